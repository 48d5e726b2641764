/* test-iter.c: DlIter's geometry (broadcasting, ordering and merging dims)
 * from raw sizes and strides, the CPU loop driver over more operands than
 * the iterator keeps inline.
 *
 * Built from the library's objects, so that it reaches the private
 * symbols (see tests/meson.build).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "backends/cpu/dl-cpu-private.h"

/* an operand of @ndim dims with row-major strides over @sizes */
static DlIterOperand
contiguous_operand (gpointer data,
                    const gint64 *sizes,
                    gint ndim,
                    gint element_size,
                    gint64 *strides)
{
  gint64 s = 1;

  for (gint d = ndim - 1; d >= 0; d--)
    {
      strides[d] = s;
      s *= sizes[d];
    }
  return (DlIterOperand){ data, sizes, strides, ndim, element_size };
}

static void
test_iter_geometry_coalesce (void)
{
  static float out[24], in[24];
  gint64 shape[3] = { 2, 3, 4 }, so[3], si[3];
  DlIterOperand ops[2];
  g_auto (DlIter) iter = DL_ITER_INIT;

  ops[0] = contiguous_operand (out, shape, 3, 4, so);
  ops[1] = contiguous_operand (in, shape, 3, 4, si);
  dl_iter_init_operands (&iter, 2, ops, shape, 3);
  /* contiguous everywhere: one dim */
  g_assert_cmpint (iter.ndim, ==, 1);
  g_assert_cmpint (iter.shape[0], ==, 24);
  g_assert_cmpint (iter.strides[0][0], ==, 4);
  g_assert_cmpint (iter.strides[1][0], ==, 4);
  g_assert_true (iter.data[0] == (char *)out && iter.data[1] == (char *)in);
  g_assert_cmpint (dl_iter_numel (&iter), ==, 24);
}

static void
test_iter_geometry_broadcast (void)
{
  static double out[24], col[3];
  gint64 shape[3] = { 2, 3, 4 }, so[3];
  gint64 col_sizes[2] = { 3, 1 }, col_strides[2] = { 1, 1 };
  DlIterOperand ops[2];
  g_auto (DlIter) iter = DL_ITER_INIT;

  ops[0] = contiguous_operand (out, shape, 3, 8, so);
  ops[1] = (DlIterOperand){ (char *)col, col_sizes, col_strides, 2, 8 };
  dl_iter_init_operands (&iter, 2, ops, shape, 3);
  /* the input repeats over dims 0 and 2: nothing merges */
  g_assert_cmpint (iter.ndim, ==, 3);
  g_assert_cmpint (iter.shape[0], ==, 2);
  g_assert_cmpint (iter.shape[1], ==, 3);
  g_assert_cmpint (iter.shape[2], ==, 4);
  g_assert_cmpint (iter.strides[0][0], ==, 96);
  g_assert_cmpint (iter.strides[0][1], ==, 32);
  g_assert_cmpint (iter.strides[0][2], ==, 8);
  g_assert_cmpint (iter.strides[1][0], ==, 0);
  g_assert_cmpint (iter.strides[1][1], ==, 8);
  g_assert_cmpint (iter.strides[1][2], ==, 0);
}

static void
test_iter_geometry_order (void)
{
  static gint32 out[12], in[12];
  /* the output is the transpose of a contiguous [4, 3]: the loop walks it
   * in memory order, and the contiguous input along its stride */
  gint64 shape[2] = { 3, 4 }, out_strides[2] = { 1, 3 }, si[2];
  gint64 one[2] = { 1, 1 }, unit[2] = { 1, 4 }, scalar_shape[1] = { 1 };
  DlIterOperand ops[2];
  g_auto (DlIter) iter = DL_ITER_INIT;

  ops[0] = (DlIterOperand){ (char *)out, shape, out_strides, 2, 4 };
  ops[1] = contiguous_operand (in, shape, 2, 4, si);
  dl_iter_init_operands (&iter, 2, ops, shape, 2);
  g_assert_cmpint (iter.ndim, ==, 2);
  g_assert_cmpint (iter.shape[0], ==, 4);
  g_assert_cmpint (iter.shape[1], ==, 3);
  g_assert_cmpint (iter.strides[0][0], ==, 12);
  g_assert_cmpint (iter.strides[0][1], ==, 4);
  g_assert_cmpint (iter.strides[1][0], ==, 4);
  g_assert_cmpint (iter.strides[1][1], ==, 16);

  /* every dim of size 1 (and 0-d): one dim of one element */
  dl_iter_clear (&iter);
  ops[0] = (DlIterOperand){ (char *)out, one, unit, 2, 4 };
  ops[1] = (DlIterOperand){ (char *)in, scalar_shape, unit, 0, 4 };
  dl_iter_init_operands (&iter, 2, ops, one, 2);
  g_assert_cmpint (iter.ndim, ==, 1);
  g_assert_cmpint (iter.shape[0], ==, 1);
  g_assert_cmpint (iter.strides[0][0], ==, 0);
  g_assert_cmpint (iter.strides[1][0], ==, 0);
}

/* out = in1 + 2 in2 + 3 in3 + 4 in4 + 5 in5, in double */
static void
sum5_loop (char **data, const gint64 *s, gint64 n, gpointer ctx)
{
  guint *calls = ctx;

  g_atomic_int_inc (calls);
  for (gint64 i = 0; i < n; i++)
    {
      gdouble v = 0;
      for (gint k = 1; k <= 5; k++)
        v += k * *(const gdouble *)(data[k] + i * s[k]);
      *(gdouble *)(data[0] + i * s[0]) = v;
    }
}

/* Six operands (the iterator keeps four inline) of different broadcast
 * shapes and layouts, through the threaded driver when @big. */
static void
run_six_operands (gint64 rows, gint64 cols)
{
  gint64 shape[2] = { rows, cols }, so[2], s1[2];
  gint64 row_sizes[1] = { cols }, row_strides[1] = { 1 };
  gint64 col_sizes[2] = { rows, 1 }, col_strides[2] = { 1, 1 };
  gint64 t_strides[2] = { 1, rows }; /* a transposed [cols, rows] */
  gint64 scalar_sizes[1] = { 1 }, scalar_strides[1] = { 0 };
  g_autofree gdouble *out = g_new0 (gdouble, rows * cols);
  g_autofree gdouble *m = g_new (gdouble, rows * cols);
  g_autofree gdouble *row = g_new (gdouble, cols);
  g_autofree gdouble *col = g_new (gdouble, rows);
  g_autofree gdouble *mt = g_new (gdouble, rows * cols);
  gdouble scalar = 0.25;
  DlIterOperand ops[6];
  guint calls = 0;
  g_auto (DlIter) iter = DL_ITER_INIT;

  for (gint64 i = 0; i < rows * cols; i++)
    m[i] = g_test_rand_double_range (-1, 1);
  for (gint64 j = 0; j < cols; j++)
    row[j] = g_test_rand_double_range (-1, 1);
  for (gint64 i = 0; i < rows; i++)
    col[i] = g_test_rand_double_range (-1, 1);
  for (gint64 i = 0; i < rows * cols; i++)
    mt[i] = g_test_rand_double_range (-1, 1);

  ops[0] = contiguous_operand (out, shape, 2, 8, so);
  ops[1] = contiguous_operand (m, shape, 2, 8, s1);
  ops[2] = (DlIterOperand){ (char *)row, row_sizes, row_strides, 1, 8 };
  ops[3] = (DlIterOperand){ (char *)col, col_sizes, col_strides, 2, 8 };
  ops[4] = (DlIterOperand){ (char *)mt, shape, t_strides, 2, 8 };
  ops[5] = (DlIterOperand){ (char *)&scalar, scalar_sizes, scalar_strides, 1, 8 };
  dl_iter_init_operands (&iter, 6, ops, shape, 2);
  g_assert_cmpint (iter.n_operands, ==, 6);
  g_assert_true (iter.data != iter.inline_data);
  for (gint k = 0; k < 6; k++)
    g_assert_true (iter.data[k] == ops[k].data);
  g_assert_cmpint (iter.strides[5][0], ==, 0);
  dl_cpu_iter_for_each (&iter, sum5_loop, &calls);
  g_assert_cmpuint (calls, >, 0);

  for (gint64 i = 0; i < rows; i++)
    for (gint64 j = 0; j < cols; j++)
      {
        gdouble want
            = m[i * cols + j] + 2 * row[j] + 3 * col[i] + 4 * mt[j * rows + i] + 5 * scalar;
        g_assert_cmpfloat (out[i * cols + j], ==, want);
      }
}

static void
test_iter_many_operands (void)
{
  run_six_operands (5, 7);
  /* above every threading grain: the driver splits the range */
  run_six_operands (700, 600);
}

static void
test_iter_reserve_clear (void)
{
  g_auto (DlIter) small = DL_ITER_INIT;
  g_auto (DlIter) big = DL_ITER_INIT;

  dl_iter_reserve (&small, DL_ITER_INLINE_OPERANDS);
  g_assert_true (small.data == small.inline_data);
  dl_iter_reserve (&big, 9);
  g_assert_true (big.data != big.inline_data);
  for (gint k = 0; k < 9; k++)
    {
      big.data[k] = NULL;
      for (gint d = 0; d < DL_MAX_DIMS; d++)
        big.strides[k][d] = k + d;
    }
  dl_iter_clear (&big);
  g_assert_null (big.data);
  /* clearing twice is harmless */
  dl_iter_clear (&big);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/iter/geometry/coalesce", test_iter_geometry_coalesce);
  g_test_add_func ("/iter/geometry/broadcast", test_iter_geometry_broadcast);
  g_test_add_func ("/iter/geometry/order", test_iter_geometry_order);
  g_test_add_func ("/iter/many-operands", test_iter_many_operands);
  g_test_add_func ("/iter/reserve-clear", test_iter_reserve_clear);

  return g_test_run ();
}
