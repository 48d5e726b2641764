/* test-gloo.c: the Gloo engine's collectives on two processes over
 * loopback, every dtype against the reduction done here.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The test is rank 0; it starts itself again as rank 1 (DL_TEST_GLOO_RANK
 * and DL_TEST_GLOO_DIR in the environment, its TAP output dropped), both
 * meet through a file:// directory, and both run the same cases in the same
 * order. Rank 1's checks are fatal: a failure there ends it, and the last
 * case of rank 0 fails on its exit status. The last collective case is the
 * dead rank: rank 1 leaves, rank 0's all_reduce must fail at once.
 */
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>

#include "../c/dl-test-utils.h"

#define N 1000

static DlProcessGroup *pg;
static gint rank;
static GPid peer_pid;
static const gchar *dir;

static const gchar *const op_names[] = { "sum", "product", "min", "max", "avg" };

static const DlDType all_dtypes[] = {
  DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16,
  DL_DTYPE_INT32,   DL_DTYPE_INT64,   DL_DTYPE_UINT8,   DL_DTYPE_BOOL,
};

/* Element @i of rank @r: small integers, so that every sum, product and
 * mean of two is exact in every dtype (float16 and bfloat16 included) */
static gdouble
value (gint r, gint64 i, DlDType dtype)
{
  if (dtype == DL_DTYPE_BOOL)
    return (gdouble)((i / 2 + r) % 2);
  if (dtype == DL_DTYPE_UINT8)
    return (gdouble)((i * 7 + r * 3) % 6 + 1);
  return (gdouble)((i * 7 + r * 3) % 9 - 4);
}

static DlTensor *
rank_tensor (gint r, gint64 n, gint64 offset, DlDType dtype)
{
  g_autofree gdouble *v = g_new (gdouble, MAX (n, 1));

  for (gint64 i = 0; i < n; i++)
    v[i] = value (r, offset + i, dtype);
  return dl_test_tensor (v, &n, 1, dtype);
}

static gdouble
combine (gdouble a, gdouble b, DlReduceOpKind op, DlDType dtype)
{
  gboolean is_bool = dtype == DL_DTYPE_BOOL;

  switch (op)
    {
      case DL_REDUCE_OP_KIND_SUM:
        return is_bool ? (gdouble)(a || b) : a + b;
      case DL_REDUCE_OP_KIND_PRODUCT:
        return is_bool ? (gdouble)(a && b) : a * b;
      case DL_REDUCE_OP_KIND_MIN:
        return MIN (a, b);
      case DL_REDUCE_OP_KIND_MAX:
        return MAX (a, b);
      case DL_REDUCE_OP_KIND_AVG:
        /* integers divide with truncation */
        return dl_dtype_is_floating_point (dtype) ? (a + b) / 2 : trunc ((a + b) / 2);
    }
  g_assert_not_reached ();
}

/* @t holds @expected exactly; fatal on either rank */
static void
assert_exact (DlTensor *t, const gdouble *expected, gint64 n, const gchar *what)
{
  g_autofree gdouble *v = dl_test_values (t);

  g_assert_cmpint (dl_tensor_numel (t), ==, n);
  for (gint64 i = 0; i < n; i++)
    if (v[i] != expected[i])
      g_error ("rank %d: %s: element %" G_GINT64_FORMAT ": got %g, expected %g", rank, what, i,
               v[i], expected[i]);
}

static void
assert_work_done (DlWork *work, GError *error)
{
  g_assert_no_error (error);
  g_assert_nonnull (work);
  g_assert_true (dl_work_is_completed (work));
}

/* @t holds rank @r's values from index @offset on */
static void
assert_rank_values (DlTensor *t, gint r, gint64 offset, DlDType dtype, const gchar *what)
{
  gint64 n = dl_tensor_numel (t);
  g_autofree gdouble *expected = g_new (gdouble, MAX (n, 1));

  for (gint64 i = 0; i < n; i++)
    expected[i] = value (r, offset + i, dtype);
  assert_exact (t, expected, n, what);
}

/* @t holds both ranks' values from index @offset on, combined with @op */
static void
assert_combined (DlTensor *t, DlReduceOpKind op, gint64 offset, DlDType dtype, const gchar *what)
{
  gint64 n = dl_tensor_numel (t);
  g_autofree gdouble *expected = g_new (gdouble, MAX (n, 1));

  for (gint64 i = 0; i < n; i++)
    expected[i] = combine (value (0, offset + i, dtype), value (1, offset + i, dtype), op, dtype);
  assert_exact (t, expected, n, what);
}

/* The part [@start, @start + N) of @t */
static DlTensor *
part (DlTensor *t, gint64 start)
{
  g_autoptr (GError) error = NULL;
  DlTensor *p = dl_tensor_narrow (t, 0, start, N, &error);

  g_assert_no_error (error);
  return p;
}

static DlTensor *
zeros (gint64 n, DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  DlTensor *t = dl_zeros (&n, 1, dtype, NULL, &error);

  g_assert_no_error (error);
  return t;
}

static GPtrArray *
zeros_list (DlDType dtype)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);

  for (gint r = 0; r < 2; r++)
    g_ptr_array_add (list, zeros (N, dtype));
  return list;
}

/* A case run on every dtype, one after the other */
typedef struct
{
  void (*check) (DlDType dtype);
} DtypeCase;

static void
each_dtype (gconstpointer data)
{
  const DtypeCase *c = data;

  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    c->check (all_dtypes[d]);
}

static void
test_all_reduce (void)
{
  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    for (DlReduceOpKind op = DL_REDUCE_OP_KIND_SUM; op <= DL_REDUCE_OP_KIND_AVG; op++)
      {
        DlDType dtype = all_dtypes[d];
        g_autoptr (GError) error = NULL;
        g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
        g_autoptr (DlWork) work = NULL;
        g_autofree gchar *what
            = g_strdup_printf ("all_reduce %s of %s", op_names[op], dl_dtype_get_name (dtype));

        if (dtype == DL_DTYPE_BOOL && op == DL_REDUCE_OP_KIND_AVG)
          continue;
        work = dl_process_group_all_reduce (pg, t, op, FALSE, &error);
        assert_work_done (work, error);
        assert_combined (t, op, 0, dtype, what);
      }
}

/* Many of Gloo's 1 MiB segments, waited for through a DlWork */
static void
test_all_reduce_large_async (void)
{
  const gint64 n = 3 << 20; /* 12 MiB of float32 */
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, n, 0, DL_DTYPE_FLOAT32);
  g_autoptr (DlWork) work
      = dl_process_group_all_reduce (pg, t, DL_REDUCE_OP_KIND_SUM, TRUE, &error);

  g_assert_no_error (error);
  g_assert_true (dl_work_wait (work, &error));
  g_assert_no_error (error);
  g_assert_true (dl_work_is_completed (work));
  assert_combined (t, DL_REDUCE_OP_KIND_SUM, 0, DL_DTYPE_FLOAT32, "async all_reduce of 12 MiB");
}

static void
check_broadcast (DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
  g_autoptr (DlWork) work = dl_process_group_broadcast (pg, t, 1, FALSE, &error);

  assert_work_done (work, error);
  assert_rank_values (t, 1, 0, dtype, "broadcast from rank 1");
}

/* The result on the root; the other rank's tensor keeps its values */
static void
check_reduce (DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
  g_autoptr (DlWork) work
      = dl_process_group_reduce (pg, t, 1, DL_REDUCE_OP_KIND_MAX, FALSE, &error);

  assert_work_done (work, error);
  if (rank == 1)
    assert_combined (t, DL_REDUCE_OP_KIND_MAX, 0, dtype, "reduce max to rank 1");
  else
    assert_rank_values (t, 0, 0, dtype, "reduce max: rank 0 keeps its tensor");
}

static void
check_all_gather (DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
  g_autoptr (GPtrArray) outs = zeros_list (dtype);
  g_autoptr (DlTensor) flat = zeros (2 * N, dtype);
  g_autoptr (DlWork) work = dl_process_group_all_gather (pg, outs, t, FALSE, &error);
  g_autoptr (DlWork) work2 = NULL;

  assert_work_done (work, error);
  work2 = dl_process_group_all_gather_into_tensor (pg, flat, t, FALSE, &error);
  assert_work_done (work2, error);
  for (gint r = 0; r < 2; r++)
    {
      g_autoptr (DlTensor) half = part (flat, r * N);

      assert_rank_values (g_ptr_array_index (outs, r), r, 0, dtype, "all_gather");
      assert_rank_values (half, r, 0, dtype, "all_gather_into_tensor");
    }
}

static void
check_gather_scatter (DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
  g_autoptr (DlTensor) mine = zeros (N, dtype);
  g_autoptr (GPtrArray) list = rank == 0 ? zeros_list (dtype) : NULL;
  g_autoptr (DlWork) work = dl_process_group_gather (pg, t, list, 0, FALSE, &error);

  /* gather to rank 0 */
  assert_work_done (work, error);
  for (gint r = 0; rank == 0 && r < 2; r++)
    assert_rank_values (g_ptr_array_index (list, r), r, 0, dtype, "gather to rank 0");
  g_clear_object (&work);
  g_clear_pointer (&list, g_ptr_array_unref);
  /* scatter from rank 1: rank r gets rank 1's values from r * N on */
  if (rank == 1)
    {
      list = g_ptr_array_new_with_free_func (g_object_unref);
      for (gint r = 0; r < 2; r++)
        g_ptr_array_add (list, rank_tensor (1, N, r * N, dtype));
    }
  work = dl_process_group_scatter (pg, mine, list, 1, FALSE, &error);
  assert_work_done (work, error);
  assert_rank_values (mine, 1, rank * N, dtype, "scatter from rank 1");
}

static void
check_reduce_scatter (DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) in = rank_tensor (rank, 2 * N, 0, dtype);
  g_autoptr (DlTensor) out = zeros (N, dtype);
  g_autoptr (DlWork) work
      = dl_process_group_reduce_scatter_tensor (pg, out, in, DL_REDUCE_OP_KIND_SUM, FALSE, &error);

  assert_work_done (work, error);
  assert_combined (out, DL_REDUCE_OP_KIND_SUM, rank * N, dtype, "reduce_scatter_tensor sum");
}

static void
check_all_to_all (DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) in = rank_tensor (rank, 2 * N, 0, dtype);
  g_autoptr (DlTensor) out = zeros (2 * N, dtype);
  g_autoptr (DlWork) work = dl_process_group_all_to_all_single (pg, out, in, FALSE, &error);

  assert_work_done (work, error);
  /* rank s sent its part number rank */
  for (gint s = 0; s < 2; s++)
    {
      g_autoptr (DlTensor) from_s = part (out, s * N);

      assert_rank_values (from_s, s, rank * N, dtype, "all_to_all_single");
    }
}

static void
check_send_recv (DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) mine = rank_tensor (rank, N, 0, dtype);
  g_autoptr (DlTensor) got = zeros (N, dtype);
  g_autoptr (DlWork) w1 = NULL;
  g_autoptr (DlWork) w2 = NULL;

  /* 0 -> 1 with tag 7, then 1 -> 0 with tag 3 */
  if (rank == 0)
    {
      w1 = dl_process_group_send (pg, mine, 1, 7, FALSE, &error);
      assert_work_done (w1, error);
      w2 = dl_process_group_recv (pg, got, 1, 3, FALSE, &error);
    }
  else
    {
      w1 = dl_process_group_recv (pg, got, 0, 7, FALSE, &error);
      assert_work_done (w1, error);
      w2 = dl_process_group_send (pg, mine, 0, 3, FALSE, &error);
    }
  assert_work_done (w2, error);
  assert_rank_values (got, 1 - rank, 0, dtype, "send / recv");
}

/* [1, 0]: the ranks swap; [0]: rank 1 is not in it */
static void
test_new_group (void)
{
  const gint swapped[] = { 1, 0 }, only0[] = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlProcessGroup) sub = dl_process_group_new_group (pg, swapped, 2, &error);
  g_autoptr (DlProcessGroup) solo = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, DL_DTYPE_FLOAT32);
  g_autoptr (DlWork) work = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (sub);
  g_assert_cmpint (dl_process_group_get_rank (sub), ==, 1 - rank);
  g_assert_cmpint (dl_process_group_get_size (sub), ==, 2);
  g_assert_cmpstr (dl_process_group_get_backend_name (sub), ==, "gloo");
  /* broadcast from the subgroup's rank 1: the world's rank 0 */
  work = dl_process_group_broadcast (sub, t, 1, FALSE, &error);
  assert_work_done (work, error);
  assert_rank_values (t, 0, 0, DL_DTYPE_FLOAT32, "broadcast in the swapped subgroup");

  solo = dl_process_group_new_group (pg, only0, 1, &error);
  g_assert_no_error (error);
  if (rank == 0)
    {
      g_autoptr (DlWork) w = NULL;

      g_assert_nonnull (solo);
      g_assert_cmpint (dl_process_group_get_size (solo), ==, 1);
      w = dl_process_group_all_reduce (solo, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
      assert_work_done (w, error);
      assert_rank_values (t, 0, 0, DL_DTYPE_FLOAT32, "all_reduce in a group of one");
    }
  else
    g_assert_null (solo);
}

/* Shapes that differ across the ranks: an error on both, and the group
 * still works afterwards */
static void
test_mismatch (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, 3 + rank, 0, DL_DTYPE_FLOAT32);
  g_autoptr (DlWork) work
      = dl_process_group_all_reduce (pg, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
  g_autoptr (DlWork) barrier = NULL;

  g_assert_null (work);
  g_assert_nonnull (error);
  g_test_message ("rank %d: %s", rank, error->message);
  g_assert_nonnull (strstr (error->message, "all_reduce"));
  g_clear_error (&error);
  barrier = dl_process_group_barrier (pg, FALSE, &error);
  assert_work_done (barrier, error);
}

/* A rank that stops answering: the other's collective fails after the
 * group's timeout (2 s here), not never */
static void
test_timeout (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir2 = g_build_filename (dir, "timeout", NULL);
  g_autofree gchar *method = g_strconcat ("file://", dir2, NULL);
  g_autoptr (DlProcessGroup) slow
      = dl_distributed_new_process_group ("gloo", method, rank, 2, 2.0, &error);
  g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, DL_DTYPE_FLOAT32);
  g_autoptr (DlWork) work = NULL;
  gint64 start;
  gdouble elapsed;

  g_assert_no_error (error);
  g_assert_nonnull (slow);
  if (rank == 1)
    {
      /* late, then its own collective times out too */
      g_usleep (4 * G_USEC_PER_SEC);
    }
  start = g_get_monotonic_time ();
  work = dl_process_group_all_reduce (slow, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
  elapsed = (g_get_monotonic_time () - start) / 1e6;
  g_assert_null (work);
  g_assert_nonnull (error);
  g_test_message ("rank %d after %.2f s: %s", rank, elapsed, error->message);
  g_assert_nonnull (strstr (error->message, "all_reduce"));
  if (rank == 0)
    {
      g_assert_cmpfloat (elapsed, >=, 1.5);
      g_assert_cmpfloat (elapsed, <, 10.0);
    }
  g_clear_error (&error);
  /* both ranks are past the failure: meet again in the world group */
  g_clear_object (&work);
  work = dl_process_group_barrier (pg, FALSE, &error);
  assert_work_done (work, error);
}

/* A write to the socket of a rank that died raises SIGPIPE, which would
 * end this C program (unlike Python, which ignores it) before Gloo could
 * report the error: the engine ignores it, as GLib's GSocket does */
static void
test_sigpipe_ignored (void)
{
  struct sigaction action;

  g_assert_cmpint (sigaction (SIGPIPE, NULL, &action), ==, 0);
  g_assert_true (action.sa_handler == SIG_IGN);
}

/* Rank 1 leaves; rank 0's next collective fails quickly, naming it */
static void
test_dead_rank (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, DL_DTYPE_FLOAT32);
  g_autoptr (DlWork) work = NULL;
  gint64 start;
  gdouble elapsed;

  if (rank == 1)
    _exit (0);
  start = g_get_monotonic_time ();
  work = dl_process_group_all_reduce (pg, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
  elapsed = (g_get_monotonic_time () - start) / 1e6;
  g_assert_null (work);
  g_assert_nonnull (error);
  g_test_message ("after %.2f s: %s", elapsed, error->message);
  g_assert_nonnull (strstr (error->message, "all_reduce"));
  g_assert_cmpfloat (elapsed, <, 10.0);
}

/* Rank 1 ran every case without failing */
static void
test_peer_status (void)
{
  gint status = 0;

  g_assert_cmpint (waitpid (peer_pid, &status, 0), ==, peer_pid);
  peer_pid = 0;
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

static void
start_peer (const gchar *argv0)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = g_get_environ ();
  const gchar *argv[] = { argv0, NULL };

  env = g_environ_setenv (env, "DL_TEST_GLOO_RANK", "1", TRUE);
  env = g_environ_setenv (env, "DL_TEST_GLOO_DIR", dir, TRUE);
  g_assert_true (g_spawn_async (NULL, (gchar **)argv, env,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                &peer_pid, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *made = NULL;
  g_autofree gchar *method = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("DL_TEST_GLOO_RANK"))
    {
      rank = 1;
      dir = g_getenv ("DL_TEST_GLOO_DIR");
    }
  else
    {
      made = g_dir_make_tmp ("dl-test-gloo-XXXXXX", &error);
      g_assert_no_error (error);
      dir = made;
      start_peer (argv[0]);
    }
  method = g_strconcat ("file://", dir, NULL);
  pg = dl_distributed_new_process_group ("gloo", method, rank, 2, 30.0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (pg);
  g_assert_cmpint (dl_process_group_get_rank (pg), ==, rank);

  g_test_add_func ("/gloo/all-reduce", test_all_reduce);
  g_test_add_func ("/gloo/all-reduce-large-async", test_all_reduce_large_async);
  g_test_add_data_func ("/gloo/broadcast", &(const DtypeCase){ check_broadcast }, each_dtype);
  g_test_add_data_func ("/gloo/reduce", &(const DtypeCase){ check_reduce }, each_dtype);
  g_test_add_data_func ("/gloo/all-gather", &(const DtypeCase){ check_all_gather }, each_dtype);
  g_test_add_data_func ("/gloo/gather-scatter", &(const DtypeCase){ check_gather_scatter },
                        each_dtype);
  g_test_add_data_func ("/gloo/reduce-scatter", &(const DtypeCase){ check_reduce_scatter },
                        each_dtype);
  g_test_add_data_func ("/gloo/all-to-all", &(const DtypeCase){ check_all_to_all }, each_dtype);
  g_test_add_data_func ("/gloo/send-recv", &(const DtypeCase){ check_send_recv }, each_dtype);
  g_test_add_func ("/gloo/new-group", test_new_group);
  g_test_add_func ("/gloo/mismatch", test_mismatch);
  g_test_add_func ("/gloo/timeout", test_timeout);
  g_test_add_func ("/gloo/sigpipe-ignored", test_sigpipe_ignored);
  g_test_add_func ("/gloo/dead-rank", test_dead_rank);
  if (rank == 0)
    g_test_add_func ("/gloo/peer-status", test_peer_status);
  ret = g_test_run ();

  g_clear_object (&pg);
  if (made != NULL)
    {
      g_autofree gchar *timeout_dir = g_build_filename (made, "timeout", NULL);

      /* the groups removed their keys when they went */
      g_rmdir (timeout_dir);
      g_rmdir (made);
    }
  return ret;
}
