/* test-worker-refs.c: the threads of a process group never drop the last
 * reference of a tensor or work they ran (a binding's object may need the
 * binding's lock to go, which the waiting thread may hold): the thread
 * that submits or waits does; and a receive from any source in a group
 * of one is an error. One rank, on the Gloo engine (file://).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dl.h>
#include <glib/gstdio.h>
#include <string.h>

static DlProcessGroup *group;

/* the thread a weak-ref notify ran on, and whether it ran */
typedef struct
{
  GThread *thread;
  gboolean gone;
} Finalized;

static void
on_finalize (gpointer data, GObject *where_the_object_was)
{
  Finalized *f = data;

  f->thread = g_thread_self ();
  f->gone = TRUE;
}

/* an async all_reduce whose tensor's only other reference goes before the
 * wait: the tensor is finalized on this thread, by the wait */
static void
test_tensor_dropped_by_waiter (void)
{
  g_autoptr (GError) error = NULL;
  Finalized f = { NULL, FALSE };
  DlTensor *t = dl_ones (DL_SHAPE (64), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlWork) work = NULL;

  g_assert_no_error (error);
  g_object_weak_ref (G_OBJECT (t), on_finalize, &f);
  work = dl_process_group_all_reduce (group, t, DL_REDUCE_OP_KIND_SUM, TRUE, &error);
  g_assert_no_error (error);
  g_object_unref (t);
  /* the worker finishes the job meanwhile; the tensor stays alive */
  while (!dl_work_is_completed (work) && !f.gone)
    g_usleep (1000);
  g_usleep (50000);
  g_assert_true (dl_work_wait (work, &error));
  g_assert_no_error (error);
  g_assert_true (f.gone);
  g_assert_true (f.thread == g_thread_self ());
}

/* an async work dropped without a wait: it goes, with its tensor, on the
 * thread of the next submission (or of this one, if it was that quick) */
static void
test_work_dropped_by_next_submission (void)
{
  g_autoptr (GError) error = NULL;
  Finalized ft = { NULL, FALSE }, fw = { NULL, FALSE };
  DlTensor *t = dl_ones (DL_SHAPE (64), DL_DTYPE_FLOAT32, NULL, &error);
  DlWork *work;
  g_autoptr (DlWork) barrier = NULL;

  g_assert_no_error (error);
  work = dl_process_group_all_reduce (group, t, DL_REDUCE_OP_KIND_SUM, TRUE, &error);
  g_assert_no_error (error);
  g_object_weak_ref (G_OBJECT (t), on_finalize, &ft);
  g_object_weak_ref (G_OBJECT (work), on_finalize, &fw);
  g_object_unref (t);
  g_object_unref (work);
  g_usleep (100000);
  /* not gone on the worker (gone here already when the job finished
   * before the submission's own look at the finished jobs) */
  g_assert_true (!ft.gone || ft.thread == g_thread_self ());
  g_assert_true (!fw.gone || fw.thread == g_thread_self ());
  barrier = dl_process_group_barrier (group, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (ft.gone && fw.gone);
  g_assert_true (ft.thread == g_thread_self ());
  g_assert_true (fw.thread == g_thread_self ());
}

/* the same from another thread: each waiter frees on its own thread */
static gpointer
wait_in_thread (gpointer data)
{
  g_autoptr (GError) error = NULL;
  Finalized *f = data;
  DlTensor *t = dl_ones (DL_SHAPE (8), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlWork) work = NULL;

  g_object_weak_ref (G_OBJECT (t), on_finalize, f);
  work = dl_process_group_broadcast (group, t, 0, TRUE, &error);
  g_object_unref (t);
  g_usleep (50000);
  dl_work_wait (work, &error);
  return NULL;
}

static void
test_other_thread (void)
{
  Finalized f = { NULL, FALSE };
  GThread *thread = g_thread_new ("waiter", wait_in_thread, &f);

  g_thread_join (thread);
  g_assert_true (f.gone);
  g_assert_true (f.thread == thread);
}

/* a receive from any source in a group of one has no one to wait for */
static void
test_recv_any_alone (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = dl_zeros (DL_SHAPE (2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlWork) work = dl_process_group_recv_any_source (group, t, 0, FALSE, &error);

  g_assert_null (work);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "no other rank"));
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = NULL;
  g_autofree gchar *method = NULL;
  g_autofree gchar *file = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("dl-worker-refs-XXXXXX", &error);
  g_assert_no_error (error);
  file = g_build_filename (dir, "rendezvous", NULL);
  method = g_strconcat ("file://", file, NULL);
  group = dl_distributed_new_process_group ("gloo", method, 0, 1, 30.0, &error);
  g_assert_no_error (error);
  g_test_add_func ("/worker-refs/tensor-dropped-by-waiter", test_tensor_dropped_by_waiter);
  g_test_add_func ("/worker-refs/work-dropped-by-next-submission",
                   test_work_dropped_by_next_submission);
  g_test_add_func ("/worker-refs/other-thread", test_other_thread);
  g_test_add_func ("/worker-refs/recv-any-alone", test_recv_any_alone);
  status = g_test_run ();
  g_clear_object (&group);
  g_remove (file);
  g_rmdir (dir);
  return status;
}
