/* test-kernels.c: DlIter's geometry (broadcasting, ordering and merging
 * dims) from raw sizes and strides, the CPU loop driver over more operands
 * than the iterator keeps inline, the ternary kernels against the formulas
 * they fuse, and the batched GEMM's addressing.
 *
 * Built from the library's objects, so that it reaches the private
 * symbols (see tests/meson.build).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "backends/cpu/dl-cpu-private.h"
#include "dl-device-private.h"

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

/* ---- ternary kernels ---------------------------------------------------- */

static DlBackendContext *
cpu (void)
{
  return dl_device_get_context (dl_device_cpu ());
}

/* runs @op over n contiguous elements of @dtype: the output and @n_in
 * inputs (the first of them bool for WHERE) */
static void
run_ternary (DlTernaryOp op,
             DlDType dtype,
             gint64 n,
             gpointer out,
             gpointer *in,
             gint n_in,
             gdouble v)
{
  gint64 shape[1] = { n }, strides[1] = { 1 };
  DlIterOperand ops[4];
  DlIter iter;

  ops[0] = (DlIterOperand){ out, shape, strides, 1, (gint)dl_dtype_get_size (dtype) };
  for (gint k = 0; k < n_in; k++)
    ops[k + 1]
        = (DlIterOperand){ in[k], shape, strides, 1,
                           op == DL_TERNARY_WHERE && k == 0 ? 1 : (gint)dl_dtype_get_size (dtype) };
  dl_iter_init_operands (&iter, n_in + 1, ops, shape, 1);
  cpu ()->backend->ternary (cpu (), op, &iter, dtype, &v);
}

static void
test_ternary_where (void)
{
  const DlDType dtypes[]
      = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16,
          DL_DTYPE_INT32,   DL_DTYPE_INT64,   DL_DTYPE_UINT8,   DL_DTYPE_BOOL };
  enum
  {
    N = 37
  };

  for (gsize t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      gsize es = dl_dtype_get_size (dtypes[t]);
      guint8 cond[N], a[N * 8], b[N * 8], out[N * 8];
      gpointer in[3] = { cond, a, b };

      for (gint i = 0; i < N; i++)
        cond[i] = g_test_rand_bit ();
      for (gsize i = 0; i < N * es; i++)
        {
          a[i] = g_test_rand_int_range (0, 2);
          b[i] = g_test_rand_int_range (0, 2) + 2;
        }
      run_ternary (DL_TERNARY_WHERE, dtypes[t], N, out, in, 3, 0);
      for (gint i = 0; i < N; i++)
        g_assert_cmpmem (out + i * es, es, (cond[i] ? a : b) + i * es, es);
    }
}

/* the formulas in float and double, one rounding per operation */
static void
test_ternary_float (void)
{
  enum
  {
    N = 100
  };
  float a[N], b[N], c[N], out[N];
  double da[N], db[N], dc[N], dout[N];
  gpointer in[3] = { a, b, c }, din[3] = { da, db, dc };
  const gdouble v = 0.3;

  for (gint i = 0; i < N; i++)
    {
      da[i] = a[i] = (float)g_test_rand_double_range (-10, 10);
      db[i] = b[i] = (float)g_test_rand_double_range (-10, 10);
      dc[i] = c[i] = (float)g_test_rand_double_range (0.5, 2);
    }
  run_ternary (DL_TERNARY_LERP, DL_DTYPE_FLOAT32, N, out, in, 3, 0);
  for (gint i = 0; i < N; i++)
    {
      volatile float d = b[i] - a[i], s = c[i] * d;
      g_assert_cmpfloat (out[i], ==, (float)(a[i] + s));
    }
  run_ternary (DL_TERNARY_LERP_SCALAR, DL_DTYPE_FLOAT32, N, out, in, 2, v);
  for (gint i = 0; i < N; i++)
    {
      volatile float d = b[i] - a[i], s = (float)v * d;
      g_assert_cmpfloat (out[i], ==, (float)(a[i] + s));
    }
  run_ternary (DL_TERNARY_ADDCMUL, DL_DTYPE_FLOAT64, N, dout, din, 3, v);
  for (gint i = 0; i < N; i++)
    {
      /* the last product and the sum in one rounding, as PyTorch's AVX2
       * kernel */
      volatile double p = v * db[i];
      g_assert_cmpfloat (dout[i], ==, fma (p, dc[i], da[i]));
    }
  run_ternary (DL_TERNARY_ADDCDIV, DL_DTYPE_FLOAT64, N, dout, din, 3, v);
  for (gint i = 0; i < N; i++)
    {
      volatile double p = v * db[i], q = p / dc[i];
      g_assert_cmpfloat (dout[i], ==, da[i] + q);
    }
  /* clamp: between b and c as bounds (where b > c, c wins), NaN winning */
  a[0] = NAN;
  b[1] = NAN;
  c[2] = NAN;
  run_ternary (DL_TERNARY_CLAMP, DL_DTYPE_FLOAT32, N, out, in, 3, 0);
  g_assert_true (isnan (out[0]) && isnan (out[1]) && isnan (out[2]));
  for (gint i = 3; i < N; i++)
    g_assert_cmpfloat (out[i], ==, MIN (MAX (a[i], b[i]), c[i]));
}

/* the 16-bit floats compute in float and round once at the store */
static void
test_ternary_half (void)
{
  enum
  {
    N = 64
  };
  dl_half a[N], b[N], c[N], out[N];
  dl_bf16 ba[N], bb[N], bc[N], bout[N];
  gpointer in[3] = { a, b, c }, bin[3] = { ba, bb, bc };

  for (gint i = 0; i < N; i++)
    {
      a[i] = (dl_half)g_test_rand_double_range (-10, 10);
      b[i] = (dl_half)g_test_rand_double_range (-10, 10);
      c[i] = (dl_half)g_test_rand_double_range (0.5, 2);
      ba[i] = dl_float_to_bf16 ((float)g_test_rand_double_range (-10, 10));
      bb[i] = dl_float_to_bf16 ((float)g_test_rand_double_range (-10, 10));
      bc[i] = dl_float_to_bf16 ((float)g_test_rand_double_range (0.5, 2));
    }
  run_ternary (DL_TERNARY_ADDCDIV, DL_DTYPE_FLOAT16, N, out, in, 3, 0.5);
  run_ternary (DL_TERNARY_LERP, DL_DTYPE_BFLOAT16, N, bout, bin, 3, 0);
  for (gint i = 0; i < N; i++)
    {
      volatile float p = 0.5f * (float)b[i], q = p / (float)c[i];
      volatile float d = dl_bf16_to_float (bb[i]) - dl_bf16_to_float (ba[i]);
      volatile float s = dl_bf16_to_float (bc[i]) * d;
      dl_half want = (dl_half)((float)a[i] + q);
      dl_bf16 bwant = dl_float_to_bf16 (dl_bf16_to_float (ba[i]) + s);

      g_assert_cmpmem (&out[i], 2, &want, 2);
      g_assert_cmpmem (&bout[i], 2, &bwant, 2);
    }
}

/* integer addcmul wraps around; the value is converted to the dtype */
static void
test_ternary_addcmul_int (void)
{
  gint32 a[4] = { 1, -5, G_MAXINT32, 7 }, b[4] = { 2, 3, 1, -4 }, c[4] = { 3, 4, 1, 5 }, out[4];
  guint8 ua[2] = { 250, 3 }, ub[2] = { 2, 4 }, uc[2] = { 3, 5 }, uout[2];
  gpointer in[3] = { a, b, c }, uin[3] = { ua, ub, uc };

  run_ternary (DL_TERNARY_ADDCMUL, DL_DTYPE_INT32, 4, out, in, 3, -2.7);
  g_assert_cmpint (out[0], ==, 1 - 2 * 2 * 3);
  g_assert_cmpint (out[1], ==, -5 - 2 * 3 * 4);
  g_assert_cmpint (out[2], ==, G_MAXINT32 - 2);
  g_assert_cmpint (out[3], ==, 7 + 2 * 4 * 5);
  run_ternary (DL_TERNARY_ADDCMUL, DL_DTYPE_UINT8, 2, uout, uin, 3, 2);
  g_assert_cmpint (uout[0], ==, (guint8)(250 + 2 * 2 * 3));
  g_assert_cmpint (uout[1], ==, 3 + 2 * 4 * 5);
}

/* ---- batched GEMM ------------------------------------------------------- */

/* C[i, j] = A[i] @ B[j] over a batch of [2, 3] whose dims cannot merge (A
 * repeats along the second, B along the first), in int64 (exact) and
 * float64 (BLAS), against the plain sum. */
static void
run_gemm_batched (DlDType dtype)
{
  enum
  {
    M = 4,
    N = 5,
    K = 3
  };
  gdouble a[2][K][M], b[3][K][N], c[2][3][M][N]; /* A stored transposed */
  gint64 ia[2][K][M], ib[3][K][N], ic[2][3][M][N];
  gboolean f = dtype == DL_DTYPE_FLOAT64;
  DlGemmArgs g = {
    .m = M,
    .n = N,
    .k = K,
    .a = f ? (char *)a : (char *)ia,
    .a_rs = 1,
    .a_cs = M,
    .b = f ? (char *)b : (char *)ib,
    .b_rs = N,
    .b_cs = 1,
    .c = f ? (char *)c : (char *)ic,
    .c_rs = N,
    .c_cs = 1,
    .batch_ndim = 2,
    .batch_shape = { 2, 3 },
    .a_batch_strides = { K * M, 0 },
    .b_batch_strides = { 0, K * N },
    .c_batch_strides = { 3 * M * N, M * N },
  };

  for (gint i = 0; i < 2 * K * M; i++)
    {
      ((gint64 *)ia)[i] = g_test_rand_int_range (-9, 10);
      ((gdouble *)a)[i] = ((gint64 *)ia)[i] + 0.25;
    }
  for (gint i = 0; i < 3 * K * N; i++)
    {
      ((gint64 *)ib)[i] = g_test_rand_int_range (-9, 10);
      ((gdouble *)b)[i] = ((gint64 *)ib)[i] - 0.5;
    }
  /* once into C, then once more with accumulate: C holds the product twice */
  for (gint times = 1; times <= 2; times++)
    {
      g.accumulate = times == 2;
      cpu ()->backend->gemm_batched (cpu (), dtype, &g);
      for (gint i = 0; i < 2; i++)
        for (gint j = 0; j < 3; j++)
          for (gint r = 0; r < M; r++)
            for (gint q = 0; q < N; q++)
              {
                gdouble want = 0;
                gint64 iwant = 0;

                for (gint p = 0; p < K; p++)
                  {
                    want += a[i][p][r] * b[j][p][q];
                    iwant += ia[i][p][r] * ib[j][p][q];
                  }
                if (f)
                  g_assert_cmpfloat_with_epsilon (c[i][j][r][q], times * want, 1e-12);
                else
                  g_assert_cmpint (ic[i][j][r][q], ==, times * iwant);
              }
    }
}

static void
test_gemm_batched (void)
{
  run_gemm_batched (DL_DTYPE_INT64);
  run_gemm_batched (DL_DTYPE_FLOAT64);
}

/* No batch dims: one product; an empty batch: none. */
static void
test_gemm_batched_edges (void)
{
  gint32 a[2][2] = { { 1, 2 }, { 3, 4 } }, b[2][2] = { { 5, 6 }, { 7, 8 } }, c[2][2] = { { 0 } };
  DlGemmArgs g = {
    .m = 2,
    .n = 2,
    .k = 2,
    .a = (char *)a,
    .a_rs = 2,
    .a_cs = 1,
    .b = (char *)b,
    .b_rs = 2,
    .b_cs = 1,
    .c = (char *)c,
    .c_rs = 2,
    .c_cs = 1,
  };

  cpu ()->backend->gemm_batched (cpu (), DL_DTYPE_INT32, &g);
  g_assert_cmpint (c[0][0], ==, 19);
  g_assert_cmpint (c[0][1], ==, 22);
  g_assert_cmpint (c[1][0], ==, 43);
  g_assert_cmpint (c[1][1], ==, 50);
  c[0][0] = -1;
  g.batch_ndim = 1;
  g.batch_shape[0] = 0;
  cpu ()->backend->gemm_batched (cpu (), DL_DTYPE_INT32, &g);
  g_assert_cmpint (c[0][0], ==, -1);
  /* an empty sum (k = 0) added to C leaves it; written to C, zeros it */
  g.batch_ndim = 0;
  g.k = 0;
  g.accumulate = TRUE;
  cpu ()->backend->gemm_batched (cpu (), DL_DTYPE_INT32, &g);
  g_assert_cmpint (c[0][0], ==, -1);
  g_assert_cmpint (c[1][1], ==, 50);
  g.accumulate = FALSE;
  cpu ()->backend->gemm_batched (cpu (), DL_DTYPE_INT32, &g);
  g_assert_cmpint (c[0][0], ==, 0);
  g_assert_cmpint (c[1][1], ==, 0);
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
  g_test_add_func ("/ternary/where", test_ternary_where);
  g_test_add_func ("/ternary/float", test_ternary_float);
  g_test_add_func ("/ternary/half", test_ternary_half);
  g_test_add_func ("/ternary/addcmul-int", test_ternary_addcmul_int);
  g_test_add_func ("/gemm-batched/strided", test_gemm_batched);
  g_test_add_func ("/gemm-batched/edges", test_gemm_batched_edges);

  return g_test_run ();
}
