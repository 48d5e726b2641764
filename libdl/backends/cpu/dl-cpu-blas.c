/* dl-cpu-blas.c: matrix multiply through OpenBLAS (float32, float64) and a
 * plain loop for the integer types.
 *
 * C[m, n] = sum_k A[m, k] * B[k, n], every matrix given by element strides
 * (row, column). The ops layer guarantees that A and B have a unit stride in
 * one of their two dims and C is row-major contiguous.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <cblas.h>

#include "dl-cpu-private.h"

/* BLAS wants a transpose flag and a leading dimension per operand. */
static void
blas_layout (gint64 rs, gint64 cs, gint64 cols, CBLAS_TRANSPOSE *trans, blasint *ld)
{
  if (cs == 1)
    {
      *trans = CblasNoTrans;
      *ld = MAX (rs, MAX (cols, 1));
    }
  else
    {
      *trans = CblasTrans;
      *ld = MAX (cs, 1);
    }
}

/* The threading grain that suits the OpenBLAS build this process loaded:
 * openblas_get_parallel () is 2 for the OpenMP build, whose GEMMs run on the
 * same OpenMP pool as our kernels. */
gint64
dl_cpu_blas_grain (void)
{
  return openblas_get_parallel () == 2 ? 32768 : 262144;
}

#define DEFINE_NAIVE(TN, T, ACC)                                                                   \
  static void gemm_naive_##TN (gint64 m, gint64 n, gint64 k, const T *a, gint64 a_rs, gint64 a_cs, \
                               const T *b, gint64 b_rs, gint64 b_cs, T *c, gint64 c_rs,            \
                               gint64 c_cs)                                                        \
  {                                                                                                \
    for (gint64 i = 0; i < m; i++)                                                                 \
      for (gint64 j = 0; j < n; j++)                                                               \
        {                                                                                          \
          ACC acc = 0;                                                                             \
          for (gint64 p = 0; p < k; p++)                                                           \
            acc += (ACC)a[i * a_rs + p * a_cs] * (ACC)b[p * b_rs + j * b_cs];                      \
          c[i * c_rs + j * c_cs] = (T)acc;                                                         \
        }                                                                                          \
  }
DEFINE_NAIVE (i32, gint32, gint64)
DEFINE_NAIVE (i64, gint64, gint64)
DEFINE_NAIVE (u8, guint8, gint64)

void
dl_cpu_gemm (DlDType dtype,
             gint64 m,
             gint64 n,
             gint64 k,
             const void *a,
             gint64 a_rs,
             gint64 a_cs,
             const void *b,
             gint64 b_rs,
             gint64 b_cs,
             void *c,
             gint64 c_rs,
             gint64 c_cs)
{
  CBLAS_TRANSPOSE ta, tb;
  blasint lda, ldb;

  if (m == 0 || n == 0)
    return;
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
      case DL_DTYPE_FLOAT64:
        if (k == 0)
          {
            gsize es = dl_dtype_get_size (dtype);
            for (gint64 i = 0; i < m; i++)
              memset ((char *)c + i * c_rs * es, 0, n * es);
            return;
          }
        blas_layout (a_rs, a_cs, k, &ta, &lda);
        blas_layout (b_rs, b_cs, n, &tb, &ldb);
        if (dtype == DL_DTYPE_FLOAT32)
          cblas_sgemm (CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c,
                       MAX (c_rs, 1));
        else
          cblas_dgemm (CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, MAX (c_rs, 1));
        break;
      case DL_DTYPE_INT32:
        gemm_naive_i32 (m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, c_rs, c_cs);
        break;
      case DL_DTYPE_INT64:
        gemm_naive_i64 (m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, c_rs, c_cs);
        break;
      case DL_DTYPE_UINT8:
        gemm_naive_u8 (m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, c_rs, c_cs);
        break;
      default:
        g_return_if_reached (); /* the ops layer promotes or refuses first */
    }
}
