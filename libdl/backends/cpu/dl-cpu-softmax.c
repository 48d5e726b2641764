/* dl-cpu-softmax.c: softmax and log_softmax along contiguous rows.
 *
 * For each row x[0..n):  m = max x,  s = sum exp (x - m),
 *   softmax:      y = exp (x - m) / s
 *   log_softmax:  y = (x - m) - log s
 * Three passes over a row that stays in cache, instead of the composite's
 * seven passes over the whole tensor.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* the largest element of a float32 row and whether it holds a NaN
 * (maxps: GCC does not vectorise the scalar form because of NaN rules) */
DL_CPU_CLONES static float
row_max_f32 (const float *restrict x, gint64 n, gboolean *nan)
{
  float m = x[0];
  gint64 i = 0;

  *nan = FALSE;
#ifdef __SSE2__
  if (n >= 8)
    {
      __m128 a0 = _mm_set1_ps (x[0]), a1 = a0, isnan = _mm_setzero_ps ();
      float lanes[4];

      for (; i + 8 <= n; i += 8)
        {
          __m128 v0 = _mm_loadu_ps (x + i), v1 = _mm_loadu_ps (x + i + 4);
          isnan = _mm_or_ps (isnan, _mm_or_ps (_mm_cmpunord_ps (v0, v0), _mm_cmpunord_ps (v1, v1)));
          a0 = _mm_max_ps (v0, a0);
          a1 = _mm_max_ps (v1, a1);
        }
      _mm_storeu_ps (lanes, _mm_max_ps (a0, a1));
      *nan = _mm_movemask_ps (isnan) != 0;
      for (gint j = 0; j < 4; j++)
        m = lanes[j] > m ? lanes[j] : m;
    }
#endif
  for (; i < n; i++)
    {
      *nan |= x[i] != x[i];
      m = x[i] > m ? x[i] : m;
    }
  return m;
}

static double
row_max_f64 (const double *restrict x, gint64 n, gboolean *nan)
{
  double m = x[0];

  *nan = FALSE;
  for (gint64 i = 0; i < n; i++)
    {
      *nan |= x[i] != x[i];
      m = x[i] > m ? x[i] : m;
    }
  return m;
}

/* sum of a row in eight independent lanes, so that it vectorises */
#define DEFINE_ROW_SUM(name, T)                                                                    \
  DL_CPU_CLONES static T name (const T *restrict y, gint64 n)                                      \
  {                                                                                                \
    T lane[8] = { 0 };                                                                             \
    gint64 i = 0;                                                                                  \
    for (; i + 8 <= n; i += 8)                                                                     \
      for (gint j = 0; j < 8; j++)                                                                 \
        lane[j] += y[i + j];                                                                       \
    for (; i < n; i++)                                                                             \
      lane[0] += y[i];                                                                             \
    return ((lane[0] + lane[1]) + (lane[2] + lane[3]))                                             \
           + ((lane[4] + lane[5]) + (lane[6] + lane[7]));                                          \
  }

DEFINE_ROW_SUM (row_sum_f32, float)
DEFINE_ROW_SUM (row_sum_f64, double)

#define DEFINE_SOFTMAX_ROW(name, T, EXP, LOG, SUM, MAX)                                            \
  DL_CPU_CLONES static void name (const T *restrict x, T *restrict y, gint64 n, gboolean want_log) \
  {                                                                                                \
    gboolean nan;                                                                                  \
    T m = MAX (x, n, &nan), s;                                                                     \
    if (nan || m == -(T)INFINITY)                                                                  \
      m = 0; /* NaN or all -inf rows come out NaN as in PyTorch */                                 \
    for (gint64 i = 0; i < n; i++)                                                                 \
      y[i] = EXP (x[i] - m);                                                                       \
    s = SUM (y, n);                                                                                \
    if (want_log)                                                                                  \
      {                                                                                            \
        s = LOG (s);                                                                               \
        for (gint64 i = 0; i < n; i++)                                                             \
          y[i] = (x[i] - m) - s;                                                                   \
      }                                                                                            \
    else                                                                                           \
      {                                                                                            \
        s = 1 / s;                                                                                 \
        for (gint64 i = 0; i < n; i++)                                                             \
          y[i] *= s;                                                                               \
      }                                                                                            \
  }

DEFINE_SOFTMAX_ROW (softmax_row_f32, float, dl_expf, logf, row_sum_f32, row_max_f32)
DEFINE_SOFTMAX_ROW (softmax_row_f64, double, exp, log, row_sum_f64, row_max_f64)

void
dl_cpu_softmax (const void *in,
                void *out,
                gint64 n_rows,
                gint64 n,
                DlDType dtype,
                gboolean want_log)
{
  gboolean wide = dtype == DL_DTYPE_FLOAT64;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || wide);
  if (n == 0)
    return;
#pragma omp parallel for if (n_rows * n >= DL_CPU_GRAIN) schedule(static)
  for (gint64 r = 0; r < n_rows; r++)
    {
      if (wide)
        softmax_row_f64 ((const double *)in + r * n, (double *)out + r * n, n, want_log);
      else
        softmax_row_f32 ((const float *)in + r * n, (float *)out + r * n, n, want_log);
    }
}
