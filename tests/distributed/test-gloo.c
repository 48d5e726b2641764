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
        g_autofree gdouble *expected = g_new (gdouble, N);
        g_autofree gchar *what
            = g_strdup_printf ("all_reduce %s of %s", op_names[op], dl_dtype_get_name (dtype));

        if (dtype == DL_DTYPE_BOOL && op == DL_REDUCE_OP_KIND_AVG)
          continue;
        for (gint64 i = 0; i < N; i++)
          expected[i] = combine (value (0, i, dtype), value (1, i, dtype), op, dtype);
        work = dl_process_group_all_reduce (pg, t, op, FALSE, &error);
        assert_work_done (work, error);
        assert_exact (t, expected, N, what);
      }
}

/* Many of Gloo's 1 MiB segments, waited for through a DlWork */
static void
test_all_reduce_large_async (void)
{
  const gint64 n = 3 << 20; /* 12 MiB of float32 */
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = rank_tensor (rank, n, 0, DL_DTYPE_FLOAT32);
  g_autoptr (DlWork) work = NULL;
  g_autofree gdouble *expected = g_new (gdouble, n);

  for (gint64 i = 0; i < n; i++)
    expected[i] = value (0, i, DL_DTYPE_FLOAT32) + value (1, i, DL_DTYPE_FLOAT32);
  work = dl_process_group_all_reduce (pg, t, DL_REDUCE_OP_KIND_SUM, TRUE, &error);
  g_assert_no_error (error);
  g_assert_true (dl_work_wait (work, &error));
  g_assert_no_error (error);
  g_assert_true (dl_work_is_completed (work));
  assert_exact (t, expected, n, "async all_reduce of 12 MiB");
}

static void
test_broadcast (void)
{
  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
      g_autoptr (DlWork) work = dl_process_group_broadcast (pg, t, 1, FALSE, &error);
      g_autofree gdouble *expected = g_new (gdouble, N);

      assert_work_done (work, error);
      for (gint64 i = 0; i < N; i++)
        expected[i] = value (1, i, dtype);
      assert_exact (t, expected, N, "broadcast from rank 1");
    }
}

/* The result on the root; the other rank's tensor keeps its values */
static void
test_reduce (void)
{
  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
      g_autoptr (DlWork) work
          = dl_process_group_reduce (pg, t, 1, DL_REDUCE_OP_KIND_MAX, FALSE, &error);
      g_autofree gdouble *expected = g_new (gdouble, N);

      assert_work_done (work, error);
      for (gint64 i = 0; i < N; i++)
        expected[i]
            = rank == 1 ? MAX (value (0, i, dtype), value (1, i, dtype)) : value (rank, i, dtype);
      assert_exact (t, expected, N, "reduce max to rank 1");
    }
}

static void
test_all_gather (void)
{
  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
      g_autoptr (GPtrArray) outs = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr (DlTensor) flat = dl_zeros (DL_SHAPE (2 * N), dtype, NULL, &error);
      g_autoptr (DlWork) work = NULL;
      g_autoptr (DlWork) work2 = NULL;
      g_autofree gdouble *expected = g_new (gdouble, 2 * N);

      g_assert_no_error (error);
      for (gint r = 0; r < 2; r++)
        g_ptr_array_add (outs, dl_zeros (DL_SHAPE (N), dtype, NULL, &error));
      work = dl_process_group_all_gather (pg, outs, t, FALSE, &error);
      assert_work_done (work, error);
      work2 = dl_process_group_all_gather_into_tensor (pg, flat, t, FALSE, &error);
      assert_work_done (work2, error);
      for (gint r = 0; r < 2; r++)
        {
          for (gint64 i = 0; i < N; i++)
            expected[r * N + i] = value (r, i, dtype);
          assert_exact (g_ptr_array_index (outs, r), expected + r * N, N, "all_gather");
        }
      assert_exact (flat, expected, 2 * N, "all_gather_into_tensor");
    }
}

static void
test_gather_scatter (void)
{
  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) t = rank_tensor (rank, N, 0, dtype);
      g_autoptr (DlTensor) part = dl_zeros (DL_SHAPE (N), dtype, NULL, &error);
      g_autoptr (GPtrArray) list = NULL;
      g_autoptr (DlWork) work = NULL;
      g_autofree gdouble *expected = g_new (gdouble, N);

      g_assert_no_error (error);
      /* gather to rank 0 */
      if (rank == 0)
        {
          list = g_ptr_array_new_with_free_func (g_object_unref);
          for (gint r = 0; r < 2; r++)
            g_ptr_array_add (list, dl_zeros (DL_SHAPE (N), dtype, NULL, &error));
        }
      work = dl_process_group_gather (pg, t, list, 0, FALSE, &error);
      assert_work_done (work, error);
      if (rank == 0)
        for (gint r = 0; r < 2; r++)
          {
            for (gint64 i = 0; i < N; i++)
              expected[i] = value (r, i, dtype);
            assert_exact (g_ptr_array_index (list, r), expected, N, "gather to rank 0");
          }
      g_clear_object (&work);
      g_clear_pointer (&list, g_ptr_array_unref);
      /* scatter from rank 1: rank r gets rank 1's values shifted by r * N */
      if (rank == 1)
        {
          list = g_ptr_array_new_with_free_func (g_object_unref);
          for (gint r = 0; r < 2; r++)
            g_ptr_array_add (list, rank_tensor (1, N, r * N, dtype));
        }
      work = dl_process_group_scatter (pg, part, list, 1, FALSE, &error);
      assert_work_done (work, error);
      for (gint64 i = 0; i < N; i++)
        expected[i] = value (1, rank * N + i, dtype);
      assert_exact (part, expected, N, "scatter from rank 1");
    }
}

static void
test_reduce_scatter (void)
{
  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) in = rank_tensor (rank, 2 * N, 0, dtype);
      g_autoptr (DlTensor) out = dl_zeros (DL_SHAPE (N), dtype, NULL, &error);
      g_autoptr (DlWork) work = NULL;
      g_autofree gdouble *expected = g_new (gdouble, N);

      g_assert_no_error (error);
      work = dl_process_group_reduce_scatter_tensor (pg, out, in, DL_REDUCE_OP_KIND_SUM, FALSE,
                                                     &error);
      assert_work_done (work, error);
      for (gint64 i = 0; i < N; i++)
        expected[i] = combine (value (0, rank * N + i, dtype), value (1, rank * N + i, dtype),
                               DL_REDUCE_OP_KIND_SUM, dtype);
      assert_exact (out, expected, N, "reduce_scatter_tensor sum");
    }
}

static void
test_all_to_all (void)
{
  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) in = rank_tensor (rank, 2 * N, 0, dtype);
      g_autoptr (DlTensor) out = dl_zeros (DL_SHAPE (2 * N), dtype, NULL, &error);
      g_autoptr (DlWork) work = NULL;
      g_autofree gdouble *expected = g_new (gdouble, 2 * N);

      g_assert_no_error (error);
      work = dl_process_group_all_to_all_single (pg, out, in, FALSE, &error);
      assert_work_done (work, error);
      /* rank s sent its part number rank */
      for (gint s = 0; s < 2; s++)
        for (gint64 i = 0; i < N; i++)
          expected[s * N + i] = value (s, rank * N + i, dtype);
      assert_exact (out, expected, 2 * N, "all_to_all_single");
    }
}

static void
test_send_recv (void)
{
  for (gsize d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) mine = rank_tensor (rank, N, 0, dtype);
      g_autoptr (DlTensor) got = dl_zeros (DL_SHAPE (N), dtype, NULL, &error);
      g_autoptr (DlWork) w1 = NULL;
      g_autoptr (DlWork) w2 = NULL;
      g_autofree gdouble *expected = g_new (gdouble, N);

      g_assert_no_error (error);
      /* 0 -> 1 with tag 7, then 1 -> 0 with tag 3 */
      if (rank == 0)
        {
          w1 = dl_process_group_send (pg, mine, 1, 7, FALSE, &error);
          assert_work_done (w1, error);
          w2 = dl_process_group_recv (pg, got, 1, 3, FALSE, &error);
          assert_work_done (w2, error);
        }
      else
        {
          w1 = dl_process_group_recv (pg, got, 0, 7, FALSE, &error);
          assert_work_done (w1, error);
          w2 = dl_process_group_send (pg, mine, 0, 3, FALSE, &error);
          assert_work_done (w2, error);
        }
      for (gint64 i = 0; i < N; i++)
        expected[i] = value (1 - rank, i, dtype);
      assert_exact (got, expected, N, "send / recv");
    }
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
  g_autofree gdouble *expected = g_new (gdouble, N);

  g_assert_no_error (error);
  g_assert_nonnull (sub);
  g_assert_cmpint (dl_process_group_get_rank (sub), ==, 1 - rank);
  g_assert_cmpint (dl_process_group_get_size (sub), ==, 2);
  g_assert_cmpstr (dl_process_group_get_backend_name (sub), ==, "gloo");
  /* broadcast from the subgroup's rank 1: the world's rank 0 */
  work = dl_process_group_broadcast (sub, t, 1, FALSE, &error);
  assert_work_done (work, error);
  for (gint64 i = 0; i < N; i++)
    expected[i] = value (0, i, DL_DTYPE_FLOAT32);
  assert_exact (t, expected, N, "broadcast in the swapped subgroup");

  solo = dl_process_group_new_group (pg, only0, 1, &error);
  g_assert_no_error (error);
  if (rank == 0)
    {
      g_autoptr (DlWork) w = NULL;

      g_assert_nonnull (solo);
      g_assert_cmpint (dl_process_group_get_size (solo), ==, 1);
      w = dl_process_group_all_reduce (solo, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
      assert_work_done (w, error);
      assert_exact (t, expected, N, "all_reduce in a group of one");
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
  g_test_add_func ("/gloo/broadcast", test_broadcast);
  g_test_add_func ("/gloo/reduce", test_reduce);
  g_test_add_func ("/gloo/all-gather", test_all_gather);
  g_test_add_func ("/gloo/gather-scatter", test_gather_scatter);
  g_test_add_func ("/gloo/reduce-scatter", test_reduce_scatter);
  g_test_add_func ("/gloo/all-to-all", test_all_to_all);
  g_test_add_func ("/gloo/send-recv", test_send_recv);
  g_test_add_func ("/gloo/new-group", test_new_group);
  g_test_add_func ("/gloo/mismatch", test_mismatch);
  g_test_add_func ("/gloo/timeout", test_timeout);
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
