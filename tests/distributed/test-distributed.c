/* test-distributed.c: the process group's collectives from C, run under
 * `mpirun -np N` (2 to 4 ranks) on the MPI engine: every collective and
 * dtype against the same reduction done locally (each rank knows every
 * rank's input: value_of() below), and the errors (mismatched shapes and
 * collectives across ranks fail on every rank, bad arguments, calls
 * before init).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every rank runs the same g_test cases in the same order; a failing
 * assertion aborts its rank, and mpirun then stops the job with a non-zero
 * status (the test's protocol is its exit code).
 */
#include <dl.h>

#include "../c/dl-test-utils.h"
#include "dist-expect.h"

static DlProcessGroup *pg; /* the default group */
static gint rank, size;

static const DlDType all_dtypes[] = {
  DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16,
  DL_DTYPE_INT32,   DL_DTYPE_INT64,   DL_DTYPE_UINT8,   DL_DTYPE_BOOL,
};

static const DlReduceOpKind all_ops[] = {
  DL_REDUCE_OP_KIND_SUM, DL_REDUCE_OP_KIND_PRODUCT, DL_REDUCE_OP_KIND_MIN,
  DL_REDUCE_OP_KIND_MAX, DL_REDUCE_OP_KIND_AVG,
};

/* Added to each data test's length: 0, then LARGE, whose data no longer
 * fits in the frame of the exchange of arguments (2 KB), so that both the
 * collectives completed within that exchange and the engine's own run */
#define LARGE 5000
static gint64 extra;

/* Element @i of rank @r's input: small integers, so that sums and products
 * of up to 4 ranks are exact in every dtype (bool: 0 or 1; unsigned:
 * never negative) */
static gdouble
value_of (gint r, gint64 i, DlDType dtype, gint salt)
{
  gint64 v = (r * 3 + i * 5 + salt) % 4;

  if (dtype == DL_DTYPE_BOOL)
    return (gdouble)((r + i + salt) % 3 == 0);
  if (dtype == DL_DTYPE_UINT8)
    return (gdouble)(v + 1);
  return (gdouble)(v - 1);
}

static DlTensor *
input_of (gint r, gint64 n, DlDType dtype, gint salt)
{
  g_autofree gdouble *v = g_new (gdouble, MAX (n, 1));
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (GError) error = NULL;
  DlTensor *out;

  for (gint64 i = 0; i < n; i++)
    v[i] = value_of (r, i, dtype, salt);
  t = dl_test_tensor (v, &n, 1, dtype);
  /* a writable copy (a tensor made from bytes is read-only) */
  out = dl_tensor_clone (t, &error);
  g_assert_no_error (error);
  return out;
}

/* The reduction of the ranks' element i, as the engine computes it */
static gdouble
reduce_of (DlReduceOpKind op, gint64 i, DlDType dtype, gint salt)
{
  gdouble acc = value_of (0, i, dtype, salt);

  for (gint r = 1; r < size; r++)
    acc = dist_expect_step (op, dtype, acc, value_of (r, i, dtype, salt));
  return dist_expect_finish (op, dtype, acc, size);
}

/* Asserts that @t holds @expected[0 .. n) exactly, naming the case */
static void
assert_values (DlTensor *t, const gdouble *expected, gint64 n, const gchar *what)
{
  g_autofree gdouble *got = dl_test_values (t);
  /* the expected values rounded to the tensor's dtype (a mean of 3 ranks) */
  g_autoptr (DlTensor) rounded = dl_test_tensor (expected, &n, 1, dl_tensor_get_dtype (t));
  g_autofree gdouble *want = dl_test_values (rounded);

  g_assert_cmpint (dl_tensor_numel (t), ==, n);
  for (gint64 i = 0; i < n; i++)
    if (got[i] != want[i])
      g_error ("rank %d: %s: element %" G_GINT64_FORMAT " is %g, expected %g", rank, what, i,
               got[i], want[i]);
}

static void
test_all_reduce (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    for (guint o = 0; o < G_N_ELEMENTS (all_ops); o++)
      {
        DlDType dtype = all_dtypes[d];
        DlReduceOpKind op = all_ops[o];
        const gint64 n = 37 + extra;
        g_autoptr (DlTensor) t = input_of (rank, n, dtype, (gint)o);
        g_autoptr (GError) error = NULL;
        g_autoptr (DlWork) work = NULL;
        g_autofree gchar *what
            = g_strdup_printf ("all_reduce %s op %d", dl_dtype_get_name (dtype), op);
        g_autofree gdouble *expected = g_new (gdouble, n);

        /* the odd ones asynchronously */
        work = dl_process_group_all_reduce (pg, t, op, o % 2 == 1, &error);
        if (dtype == DL_DTYPE_BOOL && op == DL_REDUCE_OP_KIND_AVG)
          {
            g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
            g_assert_null (work);
            continue;
          }
        g_assert_no_error (error);
        g_assert_true (dl_work_wait (work, &error));
        g_assert_no_error (error);
        g_assert_true (dl_work_is_completed (work));
        g_assert_true (dl_work_is_success (work));
        for (gint64 i = 0; i < n; i++)
          expected[i] = reduce_of (op, i, dtype, (gint)o);
        assert_values (t, expected, n, what);
      }
}

static void
test_reduce (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    for (guint o = 0; o < G_N_ELEMENTS (all_ops); o++)
      {
        DlDType dtype = all_dtypes[d];
        DlReduceOpKind op = all_ops[o];
        const gint64 n = 9 + extra;
        gint root = size - 1;
        g_autoptr (DlTensor) t = input_of (rank, n, dtype, (gint)o);
        g_autoptr (GError) error = NULL;
        g_autoptr (DlWork) work = NULL;
        g_autofree gdouble *expected = g_new (gdouble, n);

        if (dtype == DL_DTYPE_BOOL && op == DL_REDUCE_OP_KIND_AVG)
          continue;
        work = dl_process_group_reduce (pg, t, root, op, FALSE, &error);
        g_assert_no_error (error);
        if (rank != root)
          continue;
        for (gint64 i = 0; i < n; i++)
          expected[i] = reduce_of (op, i, dtype, (gint)o);
        assert_values (t, expected, n, "reduce");
      }
}

static void
test_broadcast (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      const gint64 n = 11 + extra;
      gint root = 1 % size;
      g_autoptr (DlTensor) t = input_of (rank, n, dtype, 0);
      g_autoptr (GError) error = NULL;
      g_autoptr (DlWork) work = dl_process_group_broadcast (pg, t, root, TRUE, &error);
      g_autofree gdouble *expected = g_new (gdouble, n);

      g_assert_no_error (error);
      g_assert_true (dl_work_wait (work, &error));
      for (gint64 i = 0; i < n; i++)
        expected[i] = value_of (root, i, dtype, 0);
      assert_values (t, expected, n, "broadcast");
    }
}

static void
test_all_gather (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      const gint64 n = 5 + extra, total = n * size;
      g_autoptr (DlTensor) t = input_of (rank, n, dtype, 1);
      g_autoptr (DlTensor) flat = dl_zeros (&total, 1, dtype, NULL, NULL);
      g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr (GError) error = NULL;
      g_autoptr (DlWork) w1 = NULL, w2 = NULL;

      for (gint r = 0; r < size; r++)
        g_ptr_array_add (list, dl_zeros (&n, 1, dtype, NULL, NULL));
      w1 = dl_process_group_all_gather (pg, list, t, FALSE, &error);
      g_assert_no_error (error);
      w2 = dl_process_group_all_gather_into_tensor (pg, flat, t, FALSE, &error);
      g_assert_no_error (error);
      for (gint r = 0; r < size; r++)
        {
          g_autofree gdouble *expected = g_new (gdouble, n);
          g_autoptr (DlTensor) part = NULL;

          for (gint64 i = 0; i < n; i++)
            expected[i] = value_of (r, i, dtype, 1);
          assert_values (g_ptr_array_index (list, r), expected, n, "all_gather");
          part = dl_tensor_narrow (flat, 0, r * n, n, &error);
          g_assert_no_error (error);
          assert_values (part, expected, n, "all_gather_into_tensor");
        }
    }
}

static void
test_gather_scatter (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      const gint64 n = 4 + extra;
      gint root = 0;
      g_autoptr (DlTensor) t = input_of (rank, n, dtype, 2);
      g_autoptr (DlTensor) out = dl_zeros (&n, 1, dtype, NULL, NULL);
      g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr (GError) error = NULL;
      g_autoptr (DlWork) w1 = NULL, w2 = NULL;
      g_autofree gdouble *expected = g_new (gdouble, n);

      for (gint r = 0; r < size; r++)
        g_ptr_array_add (list, rank == root ? dl_zeros (&n, 1, dtype, NULL, NULL)
                                            : input_of (r, n, dtype, 7));
      w1 = dl_process_group_gather (pg, t, rank == root ? list : NULL, root, FALSE, &error);
      g_assert_no_error (error);
      if (rank == root)
        for (gint r = 0; r < size; r++)
          {
            for (gint64 i = 0; i < n; i++)
              expected[i] = value_of (r, i, dtype, 2);
            assert_values (g_ptr_array_index (list, r), expected, n, "gather");
          }
      /* scatter from the last rank: element r of its list is input_of (r, 7) */
      g_ptr_array_set_size (list, 0);
      for (gint r = 0; r < size; r++)
        g_ptr_array_add (list, input_of (r, n, dtype, 7));
      w2 = dl_process_group_scatter (pg, out, rank == size - 1 ? list : NULL, size - 1, FALSE,
                                     &error);
      g_assert_no_error (error);
      for (gint64 i = 0; i < n; i++)
        expected[i] = value_of (rank, i, dtype, 7);
      assert_values (out, expected, n, "scatter");
    }
}

/* The same collectives on data too large for the exchange's frame */
static void
test_large (void)
{
  extra = LARGE;
  test_all_reduce ();
  test_reduce ();
  test_broadcast ();
  test_all_gather ();
  test_gather_scatter ();
  extra = 0;
}

static void
test_reduce_scatter (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    for (guint o = 0; o < G_N_ELEMENTS (all_ops); o++)
      {
        DlDType dtype = all_dtypes[d];
        DlReduceOpKind op = all_ops[o];
        const gint64 n = 3, total = n * size;
        /* rank r's input is input_of (r, total): block b goes to rank b */
        g_autoptr (DlTensor) in = input_of (rank, total, dtype, (gint)o);
        g_autoptr (DlTensor) out1 = dl_zeros (&n, 1, dtype, NULL, NULL);
        g_autoptr (DlTensor) out2 = dl_zeros (&n, 1, dtype, NULL, NULL);
        g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);
        g_autoptr (GError) error = NULL;
        g_autoptr (DlWork) w1 = NULL, w2 = NULL;
        gdouble expected[3];

        if (dtype == DL_DTYPE_BOOL && op == DL_REDUCE_OP_KIND_AVG)
          continue;
        for (gint r = 0; r < size; r++)
          g_ptr_array_add (list, dl_tensor_narrow (in, 0, r * n, n, &error));
        g_assert_no_error (error);
        w1 = dl_process_group_reduce_scatter (pg, out1, list, op, FALSE, &error);
        g_assert_no_error (error);
        w2 = dl_process_group_reduce_scatter_tensor (pg, out2, in, op, FALSE, &error);
        g_assert_no_error (error);
        for (gint64 i = 0; i < n; i++)
          expected[i] = reduce_of (op, rank * n + i, dtype, (gint)o);
        assert_values (out1, expected, n, "reduce_scatter");
        assert_values (out2, expected, n, "reduce_scatter_tensor");
      }
}

static void
test_all_to_all (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      const gint64 n = 2, total = n * size;
      /* rank s's input block r is elements [r n, r n + n) of input_of (s, total) */
      g_autoptr (DlTensor) in = input_of (rank, total, dtype, 3);
      g_autoptr (DlTensor) out = dl_zeros (&total, 1, dtype, NULL, NULL);
      g_autoptr (GPtrArray) ins = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr (GPtrArray) outs = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr (GError) error = NULL;
      g_autoptr (DlWork) w1 = NULL, w2 = NULL;

      for (gint r = 0; r < size; r++)
        {
          g_ptr_array_add (ins, dl_tensor_narrow (in, 0, r * n, n, &error));
          g_ptr_array_add (outs, dl_zeros (&n, 1, dtype, NULL, NULL));
        }
      w1 = dl_process_group_all_to_all (pg, outs, ins, FALSE, &error);
      g_assert_no_error (error);
      w2 = dl_process_group_all_to_all_single (pg, out, in, FALSE, &error);
      g_assert_no_error (error);
      for (gint s = 0; s < size; s++)
        {
          gdouble expected[2];
          g_autoptr (DlTensor) part = dl_tensor_narrow (out, 0, s * n, n, &error);

          for (gint64 i = 0; i < n; i++)
            expected[i] = value_of (s, rank * n + i, dtype, 3);
          assert_values (g_ptr_array_index (outs, s), expected, n, "all_to_all");
          assert_values (part, expected, n, "all_to_all_single");
        }
    }
}

/* A ring: every rank sends to the next and receives from the previous,
 * both asynchronously, large enough that the engine cannot buffer it */
static void
test_send_recv (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (all_dtypes); d++)
    {
      DlDType dtype = all_dtypes[d];
      const gint64 n = 100000;
      gint next = (rank + 1) % size, prev = (rank + size - 1) % size;
      g_autoptr (DlTensor) t = input_of (rank, n, dtype, 4);
      g_autoptr (DlTensor) in = dl_zeros (&n, 1, dtype, NULL, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (DlWork) ws = dl_process_group_send (pg, t, next, 3, TRUE, &error);
      g_autoptr (DlWork) wr = dl_process_group_recv (pg, in, prev, 3, TRUE, &error);
      g_autofree gdouble *expected = g_new (gdouble, n);

      g_assert_no_error (error);
      g_assert_true (dl_work_wait (wr, &error));
      g_assert_true (dl_work_wait (ws, &error));
      g_assert_no_error (error);
      for (gint64 i = 0; i < n; i++)
        expected[i] = value_of (prev, i, dtype, 4);
      assert_values (in, expected, n, "send/recv");
    }
}

/* A rank that passes another shape, dtype or collective makes the
 * collective fail on every rank, naming both sides; the group works on */
static void
test_mismatch (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = dl_zeros (DL_SHAPE (2 + (rank == 1)), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) u
      = dl_zeros (DL_SHAPE (4), rank == 1 ? DL_DTYPE_INT32 : DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) ok = input_of (rank, 4, DL_DTYPE_FLOAT32, 0);
  g_autoptr (DlWork) work = NULL;
  gdouble expected[4];

  work = dl_process_group_all_reduce (pg, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
  g_assert_null (work);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "float32 [2]"));
  g_assert_nonnull (strstr (error->message, "float32 [3]"));
  g_clear_error (&error);

  work = dl_process_group_all_reduce (pg, u, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "int32"));
  g_clear_error (&error);

  /* one rank's data fits in the exchange's frame, the other's does not */
  {
    g_autoptr (DlTensor) v
        = dl_zeros (DL_SHAPE (rank == 1 ? LARGE : 2), DL_DTYPE_FLOAT32, NULL, NULL);

    work = dl_process_group_all_reduce (pg, v, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
    g_assert_null (work);
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_assert_nonnull (strstr (error->message, "float32 [5000]"));
    g_clear_error (&error);
  }

  /* different collectives */
  if (rank == 1)
    work = dl_process_group_broadcast (pg, ok, 0, FALSE, &error);
  else
    work = dl_process_group_all_reduce (pg, ok, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "broadcast"));
  g_clear_error (&error);

  /* a rank whose own checks fail (a non-contiguous tensor) fails there,
   * and the others learn of it instead of waiting */
  {
    g_autoptr (DlTensor) m = dl_zeros (DL_SHAPE (3, 3), DL_DTYPE_FLOAT32, NULL, NULL);
    g_autoptr (DlTensor) mt = dl_tensor_transpose (m, 0, 1, NULL);

    work = dl_process_group_all_reduce (pg, rank == 0 ? mt : m, DL_REDUCE_OP_KIND_SUM, FALSE,
                                        &error);
    g_assert_null (work);
    g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
    g_assert_nonnull (strstr (error->message, rank == 0 ? "not contiguous" : "rank 0 rejected"));
    g_clear_error (&error);
  }

  /* and the group still works */
  work = dl_process_group_all_reduce (pg, ok, DL_REDUCE_OP_KIND_MAX, FALSE, &error);
  g_assert_no_error (error);
  for (gint64 i = 0; i < 4; i++)
    expected[i] = reduce_of (DL_REDUCE_OP_KIND_MAX, i, DL_DTYPE_FLOAT32, 0);
  assert_values (ok, expected, 4, "all_reduce after the errors");
}

/* Arguments every rank gets wrong alike: errors before any exchange */
static void
test_bad_arguments (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = dl_zeros (DL_SHAPE (4), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) odd = dl_zeros (DL_SHAPE (2 * size + 1), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (GPtrArray) short_list = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlWork) work = NULL;
  const gint dup[] = { 0, 0 };

  work = dl_process_group_broadcast (pg, t, size, FALSE, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  work = dl_process_group_all_gather (pg, short_list, t, FALSE, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "one per rank"));
  g_clear_error (&error);
  work = dl_process_group_all_to_all_single (pg, odd, odd, FALSE, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  work = dl_process_group_send (pg, t, rank, 0, FALSE, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_process_group_new_group (pg, dup, 2, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* A subgroup of the odd ranks and one of rank 0 alone */
static void
test_new_group (void)
{
  g_autoptr (GError) error = NULL;
  const gint odd[] = { 1, 3 };
  gint n_odd = size > 3 ? 2 : 1;
  g_autoptr (DlProcessGroup) sub = dl_process_group_new_group (pg, odd, n_odd, &error);

  g_assert_no_error (error);
  if (rank % 2 == 0)
    g_assert_null (sub);
  else
    {
      g_autoptr (DlTensor) t = dl_full (DL_SHAPE (2), rank, DL_DTYPE_INT64, NULL, NULL);
      g_autoptr (DlWork) work = NULL;
      gdouble expected[2];

      g_assert_nonnull (sub);
      g_assert_cmpint (dl_process_group_get_size (sub), ==, n_odd);
      g_assert_cmpint (dl_process_group_get_rank (sub), ==, rank / 2);
      g_assert_cmpstr (dl_process_group_get_backend_name (sub), ==, "mpi");
      work = dl_process_group_all_reduce (sub, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);
      g_assert_no_error (error);
      expected[0] = expected[1] = n_odd == 2 ? 4 : 1;
      assert_values (t, expected, 2, "all_reduce on the subgroup");
    }
  g_clear_object (&sub);
  {
    g_autoptr (DlWork) work = dl_process_group_barrier (pg, FALSE, &error);
    g_assert_no_error (error);
  }
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;

  g_test_init (&argc, &argv, NULL);

  /* before init: no default group, and destroying it is an error */
  g_assert_false (dl_distributed_is_initialized ());
  g_assert_null (dl_distributed_get_default_group ());
  g_assert_false (dl_distributed_destroy_process_group (&error));
  g_assert_error (error, DL_ERROR, DL_ERROR_FAILED);
  g_clear_error (&error);
  /* nccl is known; here, under mpirun, it cannot start: without its
   * module (DL_ERROR_NOT_SUPPORTED), without a GPU (DL_ERROR_DEVICE), or
   * with one but no RANK and WORLD_SIZE, which mpirun does not set
   * (DL_ERROR_ARGUMENT). tests/distributed/test-nccl.c runs it. */
  g_assert_false (dl_distributed_init_process_group ("nccl", NULL, -1, -1, 30, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == DL_ERROR
                 && (error->code == DL_ERROR_NOT_SUPPORTED || error->code == DL_ERROR_DEVICE
                     || error->code == DL_ERROR_ARGUMENT));
  g_assert_false (dl_distributed_is_initialized ());
  g_clear_error (&error);
  g_assert_false (dl_distributed_init_process_group ("carrier-pigeon", NULL, -1, -1, 30, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  if (!dl_distributed_is_backend_available ("mpi"))
    {
      g_print ("SKIP: the MPI engine module is not available\n");
      return 77;
    }
  /* MPI's ranks win: a world size that differs from mpirun's is refused */
  g_assert_false (dl_distributed_init_process_group ("mpi", NULL, -1, 99, 30, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);

  if (!dl_distributed_init_process_group ("mpi", NULL, -1, -1, 30, &error))
    g_error ("init_process_group: %s", error->message);
  pg = dl_distributed_get_default_group ();
  rank = dl_process_group_get_rank (pg);
  size = dl_process_group_get_size (pg);
  g_assert_cmpint (size, >=, 2);
  g_assert_cmpfloat (dl_process_group_get_timeout (pg), ==, 30);
  g_assert_false (dl_distributed_init_process_group ("mpi", NULL, -1, -1, 30, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_FAILED);
  g_clear_error (&error);

  g_test_add_func ("/distributed/all-reduce", test_all_reduce);
  g_test_add_func ("/distributed/reduce", test_reduce);
  g_test_add_func ("/distributed/broadcast", test_broadcast);
  g_test_add_func ("/distributed/all-gather", test_all_gather);
  g_test_add_func ("/distributed/gather-scatter", test_gather_scatter);
  g_test_add_func ("/distributed/large", test_large);
  g_test_add_func ("/distributed/reduce-scatter", test_reduce_scatter);
  g_test_add_func ("/distributed/all-to-all", test_all_to_all);
  g_test_add_func ("/distributed/send-recv", test_send_recv);
  g_test_add_func ("/distributed/mismatch", test_mismatch);
  g_test_add_func ("/distributed/bad-arguments", test_bad_arguments);
  g_test_add_func ("/distributed/new-group", test_new_group);
  if (g_test_run () != 0)
    return 1;
  g_assert_true (dl_distributed_destroy_process_group (&error));
  g_assert_false (dl_distributed_is_initialized ());
  return 0;
}
