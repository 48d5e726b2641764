/* dl-cpu-resample.c: the separable linear maps of planes that padding,
 * average and adaptive pooling and interpolation are (see DlResampleArgs
 * in dl-backend.h), and their adjoints.
 *
 * Maps whose every axis reads one input (or none) with weight 1 (padding,
 * nearest interpolation) are gathers and copy. Others run in two passes
 * per plane, accumulated in double: each input row resampled along x,
 * then those rows combined along z and y; the adjoint runs the passes
 * backwards. Planes are independent, so threads share out whole planes
 * and never write the same element.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-cpu-private.h"

/* whether each output of the axis reads at most one input with weight 1
 * (padding, nearest interpolation): a gather, with no arithmetic */
static gboolean
axis_is_gather (const DlResampleAxis *a)
{
  for (gint64 o = 0; o < a->out_size; o++)
    {
      const gint64 n = a->start[o + 1] - a->start[o];
      if (n > 1 || (n == 1 && a->weight[a->start[o]] != 1.0))
        return FALSE;
    }
  return TRUE;
}

/* the x pass of one row: tmp[x] = sum over the taps k of x of
 * weight[k] * row[index[k]] */
#define RESAMPLE_ROW(T, ax, row, tmp)                                                              \
  for (gint64 x = 0; x < (ax)->out_size; x++)                                                      \
    {                                                                                              \
      double s = 0;                                                                                \
      for (gint64 k = (ax)->start[x]; k < (ax)->start[x + 1]; k++)                                 \
        s += (ax)->weight[k] * (row)[(ax)->index[k]];                                              \
      (tmp)[x] = s;                                                                                \
    }

#define DL_DEFINE_RESAMPLE(T, suffix)                                                              \
  /* gathers (every axis one tap of weight 1 or none) copy; other maps go                          \
   * in two passes per plane: each input row resampled along x into tmp                            \
   * [d * h, out_w], then the rows of tmp combined along z and y */                                \
  static void resample_##suffix (const DlResampleArgs *a, const T *in, T *out)                     \
  {                                                                                                \
    const DlResampleAxis *az = &a->axis[0], *ay = &a->axis[1], *ax = &a->axis[2];                  \
    const gint64 rows = az->in_size * ay->in_size;                                                 \
    const gint64 in_plane = rows * ax->in_size;                                                    \
    const gint64 out_plane = az->out_size * ay->out_size * ax->out_size;                           \
    const gboolean gather = axis_is_gather (az) && axis_is_gather (ay) && axis_is_gather (ax);     \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        a->planes *(out_plane + in_plane) >= DL_CPU_GRAIN,                                         \
        for (gint64 p = 0; p < a->planes; p++) {                                                   \
          const T *src = in + p * in_plane;                                                        \
          T *dst = out + p * out_plane;                                                            \
          g_autofree double *tmp = gather ? NULL : g_new (double, (rows + 1) * ax->out_size);      \
          double *acc = tmp ? tmp + rows * ax->out_size : NULL;                                    \
                                                                                                   \
          if (!gather)                                                                             \
            for (gint64 r = 0; r < rows; r++)                                                      \
              RESAMPLE_ROW (T, ax, src + r * ax->in_size, tmp + r * ax->out_size);                 \
          for (gint64 z = 0; z < az->out_size; z++)                                                \
            for (gint64 y = 0; y < ay->out_size; y++, dst += ax->out_size)                         \
              {                                                                                    \
                if (az->start[z] == az->start[z + 1] || ay->start[y] == ay->start[y + 1])          \
                  {                                                                                \
                    for (gint64 x = 0; x < ax->out_size; x++)                                      \
                      dst[x] = (T)a->fill;                                                         \
                    continue;                                                                      \
                  }                                                                                \
                if (gather)                                                                        \
                  {                                                                                \
                    const T *row                                                                   \
                        = src                                                                      \
                          + (az->index[az->start[z]] * ay->in_size + ay->index[ay->start[y]])      \
                                * ax->in_size;                                                     \
                    for (gint64 x = 0; x < ax->out_size; x++)                                      \
                      dst[x] = ax->start[x] == ax->start[x + 1] ? (T)a->fill                       \
                                                                : row[ax->index[ax->start[x]]];    \
                    continue;                                                                      \
                  }                                                                                \
                memset (acc, 0, ax->out_size * sizeof (double));                                   \
                for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                           \
                  for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                         \
                    {                                                                              \
                      const double w = az->weight[i] * ay->weight[j];                              \
                      const double *t                                                              \
                          = tmp + (az->index[i] * ay->in_size + ay->index[j]) * ax->out_size;      \
                      for (gint64 x = 0; x < ax->out_size; x++)                                    \
                        acc[x] += w * t[x];                                                        \
                    }                                                                              \
                for (gint64 x = 0; x < ax->out_size; x++)                                          \
                  dst[x] = ax->start[x] == ax->start[x + 1] ? (T)a->fill : (T)acc[x];              \
              }                                                                                    \
        });                                                                                        \
  }                                                                                                \
                                                                                                   \
  /* the same two passes backwards: output rows summed into tmp [d * h,                            \
   * out_w] with their z and y weights, then each tmp row scattered along x */                     \
  static void resample_adjoint_##suffix (const DlResampleArgs *a, const T *grad, T *grad_in)       \
  {                                                                                                \
    const DlResampleAxis *az = &a->axis[0], *ay = &a->axis[1], *ax = &a->axis[2];                  \
    const gint64 rows = az->in_size * ay->in_size;                                                 \
    const gint64 in_plane = rows * ax->in_size;                                                    \
    const gint64 out_plane = az->out_size * ay->out_size * ax->out_size;                           \
    const gboolean gather = axis_is_gather (ax);                                                   \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        a->planes *(out_plane + in_plane) >= DL_CPU_GRAIN,                                         \
        for (gint64 p = 0; p < a->planes; p++) {                                                   \
          T *dst = grad_in + p * in_plane;                                                         \
          const T *src = grad + p * out_plane;                                                     \
          g_autofree double *tmp = g_new0 (double, rows * ax->out_size + ax->in_size);             \
          double *acc = tmp ? tmp + rows * ax->out_size : NULL;                                    \
                                                                                                   \
          for (gint64 z = 0; z < az->out_size; z++)                                                \
            for (gint64 y = 0; y < ay->out_size; y++, src += ax->out_size)                         \
              for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                             \
                for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                           \
                  {                                                                                \
                    double *t = tmp + (az->index[i] * ay->in_size + ay->index[j]) * ax->out_size;  \
                    const double w = az->weight[i] * ay->weight[j];                                \
                    for (gint64 x = 0; x < ax->out_size; x++)                                      \
                      t[x] += w * src[x];                                                          \
                  }                                                                                \
          for (gint64 r = 0; r < rows; r++)                                                        \
            {                                                                                      \
              T *row = dst + r * ax->in_size;                                                      \
              const double *t = tmp + r * ax->out_size;                                            \
                                                                                                   \
              memset (acc, 0, ax->in_size * sizeof (double));                                      \
              if (gather)                                                                          \
                for (gint64 x = 0; x < ax->out_size; x++)                                          \
                  {                                                                                \
                    if (ax->start[x] < ax->start[x + 1])                                           \
                      acc[ax->index[ax->start[x]]] += t[x];                                        \
                  }                                                                                \
              else                                                                                 \
                for (gint64 x = 0; x < ax->out_size; x++)                                          \
                  for (gint64 k = ax->start[x]; k < ax->start[x + 1]; k++)                         \
                    acc[ax->index[k]] += ax->weight[k] * t[x];                                     \
              for (gint64 i = 0; i < ax->in_size; i++)                                             \
                row[i] = (T)acc[i];                                                                \
            }                                                                                      \
        });                                                                                        \
  }

DL_DEFINE_RESAMPLE (float, f32)
DL_DEFINE_RESAMPLE (double, f64)

void
dl_cpu_resample (DlBackendContext *ctx,
                 const DlResampleArgs *a,
                 const void *in,
                 void *out,
                 DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    resample_f64 (a, in, out);
  else
    resample_f32 (a, in, out);
}

void
dl_cpu_resample_adjoint (DlBackendContext *ctx,
                         const DlResampleArgs *a,
                         const void *grad,
                         void *grad_in,
                         DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    resample_adjoint_f64 (a, grad, grad_in);
  else
    resample_adjoint_f32 (a, grad, grad_in);
}

/* each output the maximum of its taps (PyTorch's adaptive max pooling:
 * a later NaN replaces the maximum) and its flat position in the plane */
#define DL_DEFINE_RESAMPLE_MAX(T, suffix)                                                          \
  static void resample_max_##suffix (const DlResampleArgs *a, const T *in, T *out, gint64 *idx)    \
  {                                                                                                \
    const DlResampleAxis *az = &a->axis[0], *ay = &a->axis[1], *ax = &a->axis[2];                  \
    const gint64 in_plane = az->in_size * ay->in_size * ax->in_size;                               \
    const gint64 out_plane = az->out_size * ay->out_size * ax->out_size;                           \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        a->planes *(out_plane + in_plane) >= DL_CPU_GRAIN,                                         \
        for (gint64 p = 0; p < a->planes; p++) {                                                   \
          const T *src = in + p * in_plane;                                                        \
          T *dst = out + p * out_plane;                                                            \
          gint64 *at = idx + p * out_plane;                                                        \
                                                                                                   \
          for (gint64 z = 0; z < az->out_size; z++)                                                \
            for (gint64 y = 0; y < ay->out_size; y++)                                              \
              for (gint64 x = 0; x < ax->out_size; x++, dst++, at++)                               \
                {                                                                                  \
                  T best = 0;                                                                      \
                  gint64 where = -1;                                                               \
                                                                                                   \
                  for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                         \
                    for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                       \
                      for (gint64 k = ax->start[x]; k < ax->start[x + 1]; k++)                     \
                        {                                                                          \
                          const gint64 pos                                                         \
                              = (az->index[i] * ay->in_size + ay->index[j]) * ax->in_size          \
                                + ax->index[k];                                                    \
                          const T v = src[pos];                                                    \
                                                                                                   \
                          if (where < 0 || v > best || isnan (v))                                  \
                            {                                                                      \
                              best = v;                                                            \
                              where = pos;                                                         \
                            }                                                                      \
                        }                                                                          \
                  *dst = best;                                                                     \
                  *at = where;                                                                     \
                }                                                                                  \
        });                                                                                        \
  }

DL_DEFINE_RESAMPLE_MAX (float, f32)
DL_DEFINE_RESAMPLE_MAX (double, f64)

void
dl_cpu_resample_max (DlBackendContext *ctx,
                     const DlResampleArgs *a,
                     const void *in,
                     void *out,
                     gint64 *indices,
                     DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    resample_max_f64 (a, in, out, indices);
  else
    resample_max_f32 (a, in, out, indices);
}
