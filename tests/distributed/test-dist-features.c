/* test-dist-features.c: from C, under `mpirun -np 3`: all_to_all with
 * parts of any size, receives from any source, DlSyncBatchNorm against
 * dl_batch_norm() on the whole batch, DistributedDataParallel's
 * gradient-as-bucket-view, and AVG over groups of 3, 2 and 1 ranks. Prints "rank R: ok" and exits 0
 * on success.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>

#include <dl.h>

static gint rank, size;

static const gfloat *
floats (DlTensor *t)
{
  g_assert_true (dl_tensor_is_contiguous (t));
  g_assert_cmpint (dl_tensor_get_dtype (t), ==, DL_DTYPE_FLOAT32);
  return GSIZE_TO_POINTER (dl_tensor_get_data_ptr (t));
}

static DlTensor *
from_floats (const gfloat *v, gint64 n)
{
  g_autoptr (GError) error = NULL;
  DlTensor *t = dl_tensor_new_from_data (v, n * sizeof (gfloat), &n, 1, DL_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  return t;
}

static void
assert_close (const gfloat *got, const gfloat *expected, gint64 n, gdouble tol, const gchar *what)
{
  for (gint64 i = 0; i < n; i++)
    if (fabs (got[i] - expected[i]) > tol * (1 + fabs (expected[i])))
      g_error ("rank %d: %s[%" G_GINT64_FORMAT "]: %g, expected %g", rank, what, i, got[i],
               expected[i]);
}

/* rank s sends (s + r) % 3 values of 100 s + 10 r + i to rank r */
static gint64
part (gint s, gint r)
{
  return (s + r) % 3;
}

static void
test_all_to_all (DlProcessGroup *group)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) send = g_array_new (FALSE, FALSE, sizeof (gfloat));
  g_autoptr (GArray) expected = g_array_new (FALSE, FALSE, sizeof (gfloat));
  gint64 in_splits[8], out_splits[8];
  g_autoptr (DlTensor) input = NULL;
  g_autoptr (DlTensor) output = NULL;
  g_autoptr (DlWork) work = NULL;
  g_autoptr (GPtrArray) ins = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) outs = g_ptr_array_new_with_free_func (g_object_unref);

  for (gint r = 0; r < size; r++)
    {
      g_autoptr (GArray) mine = g_array_new (FALSE, FALSE, sizeof (gfloat));

      in_splits[r] = part (rank, r);
      out_splits[r] = part (r, rank);
      for (gint64 i = 0; i < part (rank, r); i++)
        {
          gfloat v = 100 * rank + 10 * r + i;

          g_array_append_val (send, v);
          g_array_append_val (mine, v);
        }
      for (gint64 i = 0; i < part (r, rank); i++)
        {
          gfloat v = 100 * r + 10 * rank + i;

          g_array_append_val (expected, v);
        }
      g_ptr_array_add (ins, from_floats ((gfloat *)mine->data, mine->len));
      g_ptr_array_add (outs, dl_zeros (DL_SHAPE (part (r, rank)), DL_DTYPE_FLOAT32, NULL, &error));
    }
  input = from_floats ((gfloat *)send->data, send->len);
  output = dl_full (DL_SHAPE (expected->len), -1, DL_DTYPE_FLOAT32, NULL, &error);
  work = dl_process_group_all_to_all_single_split (group, output, input, out_splits, size,
                                                   in_splits, size, TRUE, &error);
  g_assert_no_error (error);
  g_assert_true (dl_work_wait (work, &error));
  assert_close (floats (output), (gfloat *)expected->data, expected->len, 0, "split");
  g_clear_object (&work);
  work = dl_process_group_all_to_all (group, outs, ins, FALSE, &error);
  g_assert_no_error (error);
  for (gint s = 0, off = 0; s < size; off += part (s, rank), s++)
    assert_close (floats (g_ptr_array_index (outs, s)), (gfloat *)expected->data + off,
                  part (s, rank), 0, "list");
  /* a rank expecting the wrong size fails on every rank */
  g_clear_object (&work);
  out_splits[0]++;
  g_clear_object (&output);
  output = dl_zeros (DL_SHAPE (expected->len + 1), DL_DTYPE_FLOAT32, NULL, &error);
  work = dl_process_group_all_to_all_single_split (group, output, input, out_splits, size,
                                                   in_splits, size, FALSE, &error);
  g_assert_null (work);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "which expects"));
}

static void
test_any_source (DlProcessGroup *group)
{
  g_autoptr (GError) error = NULL;

  if (rank == 0)
    {
      guint seen = 0;

      for (gint i = 1; i < size; i++)
        {
          g_autoptr (DlTensor) t = dl_zeros (DL_SHAPE (2), DL_DTYPE_FLOAT32, NULL, &error);
          g_autoptr (DlWork) work = dl_process_group_recv_any_source (group, t, 5, TRUE, &error);
          gint src;

          g_assert_no_error (error);
          g_assert_cmpint (dl_work_get_source_rank (work), ==, -1);
          g_assert_true (dl_work_wait (work, &error));
          src = dl_work_get_source_rank (work);
          g_assert_cmpint (src, >=, 1);
          g_assert_cmpint (src, <, size);
          g_assert_cmpfloat (floats (t)[0], ==, src);
          g_assert_cmpfloat (floats (t)[1], ==, -src);
          seen |= 1u << src;
        }
      g_assert_cmpuint (seen, ==, ((1u << size) - 1) & ~1u);
    }
  else
    {
      g_autoptr (DlTensor) t = from_floats ((gfloat[]){ rank, -rank }, 2);
      g_autoptr (DlWork) work = dl_process_group_send (group, t, 0, 5, FALSE, &error);

      g_assert_no_error (error);
      g_assert_cmpint (dl_work_get_source_rank (work), ==, -1);
    }
}

/* SyncBatchNorm on rank r's rows [lo, hi) of a [7, 2, 3] batch against
 * dl_batch_norm() on the whole batch: outputs and input gradients */
static void
test_sync_batch_norm (DlProcessGroup *group)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlSyncBatchNorm) bn = dl_sync_batch_norm_new (2, group, &error);
  g_autoptr (DlTensor) whole = NULL, whole_leaf = NULL, mine = NULL, mine_leaf = NULL;
  g_autoptr (DlTensor) y_whole = NULL, y_mine = NULL, g = NULL, g_mine = NULL;
  g_autoptr (DlTensor) l_whole = NULL, l_mine = NULL, s_whole = NULL, s_mine = NULL;
  g_autoptr (DlTensor) rm = dl_zeros (DL_SHAPE (2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) rv = dl_ones (DL_SHAPE (2), DL_DTYPE_FLOAT32, NULL, &error);
  gint64 lo = rank * 7 / size, hi = (rank + 1) * 7 / size;

  g_assert_no_error (error);
  g_assert_true (dl_sync_batch_norm_get_process_group (bn) == group);
  dl_manual_seed (11);
  whole = dl_randn (DL_SHAPE (7, 2, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g = dl_randn (DL_SHAPE (7, 2, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  whole_leaf = dl_tensor_detach (whole);
  dl_tensor_set_requires_grad (whole_leaf, TRUE, &error);
  y_whole = dl_batch_norm (whole_leaf, rm, rv, NULL, NULL, TRUE, 0.1, 1e-5, &error);
  g_assert_no_error (error);
  mine = dl_tensor_narrow (whole, 0, lo, hi - lo, &error);
  mine_leaf = dl_tensor_contiguous (mine, &error);
  g_clear_object (&mine);
  mine = dl_tensor_detach (mine_leaf);
  dl_tensor_set_requires_grad (mine, TRUE, &error);
  y_mine = dl_module_forward (DL_MODULE (bn), mine, &error);
  g_assert_no_error (error);
  g_mine = dl_tensor_narrow (g, 0, lo, hi - lo, &error);
  l_whole = dl_tensor_mul (y_whole, g, &error);
  l_mine = dl_tensor_mul (y_mine, g_mine, &error);
  s_whole = dl_tensor_sum (l_whole, &error);
  s_mine = dl_tensor_sum (l_mine, &error);
  g_assert_true (dl_tensor_backward (s_whole, NULL, FALSE, FALSE, &error));
  g_assert_true (dl_tensor_backward (s_mine, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  {
    g_autoptr (DlTensor) y_ref = dl_tensor_narrow (y_whole, 0, lo, hi - lo, &error);
    g_autoptr (DlTensor) y_ref_c = dl_tensor_contiguous (y_ref, &error);
    g_autoptr (DlTensor) gx_ref
        = dl_tensor_narrow (dl_tensor_get_grad (whole_leaf), 0, lo, hi - lo, &error);
    g_autoptr (DlTensor) gx_ref_c = dl_tensor_contiguous (gx_ref, &error);
    g_autoptr (DlTensor) y_c = dl_tensor_contiguous (y_mine, &error);

    assert_close (floats (y_c), floats (y_ref_c), (hi - lo) * 6, 1e-4, "SyncBatchNorm output");
    assert_close (floats (dl_tensor_get_grad (mine)), floats (gx_ref_c), (hi - lo) * 6, 1e-4,
                  "SyncBatchNorm input grad");
    assert_close (floats (dl_module_get_buffer (DL_MODULE (bn), "running_mean")), floats (rm), 2,
                  1e-5, "running_mean");
    assert_close (floats (dl_module_get_buffer (DL_MODULE (bn), "running_var")), floats (rv), 2,
                  1e-5, "running_var");
  }
}

static void
test_bucket_view (DlProcessGroup *group)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLinear) linear = NULL;
  g_autoptr (DlDistributedDataParallel) ddp = NULL;
  g_autoptr (DlTensor) x = NULL, y = NULL, loss = NULL;
  DlTensor *w, *b;

  dl_manual_seed (5);
  linear = dl_linear_new (4, 3, TRUE, &error);
  g_assert_no_error (error);
  ddp = g_initable_new (DL_TYPE_DISTRIBUTED_DATA_PARALLEL, NULL, &error, "module", linear,
                        "process-group", group, "gradient-as-bucket-view", TRUE, NULL);
  g_assert_no_error (error);
  for (gint step = 0; step < 2; step++)
    {
      g_clear_object (&x);
      g_clear_object (&y);
      g_clear_object (&loss);
      x = dl_full (DL_SHAPE (2, 4), rank + 1, DL_DTYPE_FLOAT32, NULL, &error);
      y = dl_module_forward (DL_MODULE (ddp), x, &error);
      loss = dl_tensor_sum (y, &error);
      g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
      g_assert_no_error (error);
      w = dl_tensor_get_grad (dl_module_get_parameter (DL_MODULE (linear), "weight"));
      b = dl_tensor_get_grad (dl_module_get_parameter (DL_MODULE (linear), "bias"));
      /* the bucket holds bias then weight (reverse order), back to back */
      g_assert_cmpuint (dl_tensor_get_data_ptr (b) + 3 * sizeof (gfloat), ==,
                        dl_tensor_get_data_ptr (w));
      /* the mean over the ranks of 2 (r + 1), accumulated over the steps */
      for (gint i = 0; i < 12; i++)
        g_assert_cmpfloat_with_epsilon (floats (w)[i], (step + 1) * (size + 1.0), 1e-5);
      for (gint i = 0; i < 3; i++)
        g_assert_cmpfloat_with_epsilon (floats (b)[i], (step + 1) * 2.0, 1e-5);
    }
}

/* AVG is the sum divided by the group's size, value for value the
 * quotient (over 2 ranks the engine multiplies by the inverse, exact for
 * a power of two; over 3 it divides; over 1 it leaves the values), for
 * float32, float64 and int64 (truncated) */
static void
test_average (DlProcessGroup *world)
{
  const gint ranks[][3] = { { 0, 1, 2 }, { 0, 1, -1 }, { 2, -1, -1 } };
  const gsize counts[] = { 3, 2, 1 };
  const gint64 n = 1000;

  for (guint gi = 0; gi < G_N_ELEMENTS (counts); gi++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlProcessGroup) group
          = dl_process_group_new_group (world, ranks[gi], counts[gi], &error);
      const DlDType dtypes[] = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_INT64 };
      gint members = (gint)counts[gi];

      g_assert_no_error (error);
      if (group == NULL)
        continue; /* this rank is not in the subgroup */
      for (guint di = 0; di < G_N_ELEMENTS (dtypes); di++)
        {
          g_autoptr (DlTensor) t = dl_empty (DL_SHAPE (n), dtypes[di], NULL, &error);
          g_autoptr (DlWork) work = NULL;
          gpointer data;

          g_assert_no_error (error);
          data = GSIZE_TO_POINTER (dl_tensor_get_data_ptr (t));
          /* rank r: 0.1 (i + 1) (r + 1) / 7, varied so the sums are not
           * multiples of the size */
          for (gint64 i = 0; i < n; i++)
            {
              gdouble v = 0.1 * (gdouble)(i + 1) * (rank + 1) / 7.0;
              if (dtypes[di] == DL_DTYPE_FLOAT32)
                ((gfloat *)data)[i] = (gfloat)v;
              else if (dtypes[di] == DL_DTYPE_FLOAT64)
                ((gdouble *)data)[i] = v;
              else
                ((gint64 *)data)[i] = (gint64)(i * (rank + 2) + rank);
            }
          work = dl_process_group_all_reduce (group, t, DL_REDUCE_OP_KIND_AVG, FALSE, &error);
          g_assert_no_error (error);
          for (gint64 i = 0; i < n; i++)
            {
              /* the members' values summed in rank order, as the engine's
               * reduction may order them differently: compare with the
               * quotient of the engine's own sum */
              gdouble sum64 = 0;
              gfloat sum32 = 0;
              gint64 sumi = 0;

              for (gint m = 0; m < members; m++)
                {
                  gint r = ranks[gi][m];
                  gdouble v = 0.1 * (gdouble)(i + 1) * (r + 1) / 7.0;
                  sum64 += v;
                  sum32 += (gfloat)v;
                  sumi += (gint64)(i * (r + 2) + r);
                }
              if (dtypes[di] == DL_DTYPE_FLOAT32)
                g_assert_cmpfloat_with_epsilon (((gfloat *)data)[i], sum32 / (gfloat)members,
                                                1e-6 * (1 + fabsf (sum32)));
              else if (dtypes[di] == DL_DTYPE_FLOAT64)
                g_assert_cmpfloat_with_epsilon (((gdouble *)data)[i], sum64 / members,
                                                1e-14 * (1 + fabs (sum64)));
              else
                g_assert_cmpint (((gint64 *)data)[i], ==, sumi / members);
            }
        }
      /* exactly the quotient: over 3 ranks the sum 17 divided by 3, which
       * 17 times the double nearest 1/3 is not */
      {
        g_autoptr (DlTensor) t
            = dl_full (DL_SHAPE (5), rank * rank + 4, DL_DTYPE_FLOAT64, NULL, &error);
        g_autoptr (DlWork) work
            = dl_process_group_all_reduce (group, t, DL_REDUCE_OP_KIND_AVG, FALSE, &error);
        gdouble sum = 0;

        g_assert_no_error (error);
        for (gint m = 0; m < members; m++)
          sum += ranks[gi][m] * ranks[gi][m] + 4;
        for (gint i = 0; i < 5; i++)
          g_assert_cmpfloat (((gdouble *)GSIZE_TO_POINTER (dl_tensor_get_data_ptr (t)))[i], ==,
                             sum / members);
      }
    }
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlProcessGroup) group
      = dl_distributed_new_process_group ("mpi", NULL, -1, -1, 60, &error);

  g_assert_no_error (error);
  rank = dl_process_group_get_rank (group);
  size = dl_process_group_get_size (group);
  g_assert_cmpint (size, <=, 8);
  test_all_to_all (group);
  test_any_source (group);
  test_sync_batch_norm (group);
  test_bucket_view (group);
  test_average (group);
  g_print ("rank %d: ok\n", rank);
  return 0;
}
