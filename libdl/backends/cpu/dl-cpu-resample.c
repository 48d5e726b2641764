/* dl-cpu-resample.c: the separable linear maps of planes that padding,
 * average and adaptive pooling and interpolation are (see DlResampleArgs
 * in dl-backend.h), and their adjoints.
 *
 * The forward kernel computes each output element as a weighted sum over
 * its taps along the three axes, accumulated in double. The adjoint
 * scatters each output element back over the same taps; planes are
 * independent, so threads share out whole planes and never write the same
 * element.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-cpu-private.h"

#define DL_DEFINE_RESAMPLE(T, suffix)                                                              \
  static void resample_##suffix (const DlResampleArgs *a, const T *in, T *out)                     \
  {                                                                                                \
    const DlResampleAxis *az = &a->axis[0], *ay = &a->axis[1], *ax = &a->axis[2];                  \
    const gint64 in_plane = az->in_size * ay->in_size * ax->in_size;                               \
    const gint64 out_plane = az->out_size * ay->out_size * ax->out_size;                           \
    const gint64 taps = (az->start[az->out_size] + 1) * (ay->start[ay->out_size] + 1)              \
                        * (ax->start[ax->out_size] + 1);                                           \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        a->planes *(out_plane + taps) >= DL_CPU_GRAIN, for (gint64 p = 0; p < a->planes; p++) {    \
          const T *src = in + p * in_plane;                                                        \
          T *dst = out + p * out_plane;                                                            \
                                                                                                   \
          for (gint64 z = 0; z < az->out_size; z++)                                                \
            for (gint64 y = 0; y < ay->out_size; y++, dst += ax->out_size)                         \
              {                                                                                    \
                if (az->start[z] == az->start[z + 1] || ay->start[y] == ay->start[y + 1])          \
                  {                                                                                \
                    for (gint64 x = 0; x < ax->out_size; x++)                                      \
                      dst[x] = (T)a->fill;                                                         \
                    continue;                                                                      \
                  }                                                                                \
                for (gint64 x = 0; x < ax->out_size; x++)                                          \
                  {                                                                                \
                    double acc = 0;                                                                \
                                                                                                   \
                    if (ax->start[x] == ax->start[x + 1])                                          \
                      {                                                                            \
                        dst[x] = (T)a->fill;                                                       \
                        continue;                                                                  \
                      }                                                                            \
                    for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                       \
                      for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                     \
                        {                                                                          \
                          const T *row                                                             \
                              = src + (az->index[i] * ay->in_size + ay->index[j]) * ax->in_size;   \
                          const double w = az->weight[i] * ay->weight[j];                          \
                          double s = 0;                                                            \
                                                                                                   \
                          for (gint64 k = ax->start[x]; k < ax->start[x + 1]; k++)                 \
                            s += ax->weight[k] * row[ax->index[k]];                                \
                          acc += w * s;                                                            \
                        }                                                                          \
                    dst[x] = (T)acc;                                                               \
                  }                                                                                \
              }                                                                                    \
        });                                                                                        \
  }                                                                                                \
                                                                                                   \
  static void resample_adjoint_##suffix (const DlResampleArgs *a, const T *grad, T *grad_in)       \
  {                                                                                                \
    const DlResampleAxis *az = &a->axis[0], *ay = &a->axis[1], *ax = &a->axis[2];                  \
    const gint64 in_plane = az->in_size * ay->in_size * ax->in_size;                               \
    const gint64 out_plane = az->out_size * ay->out_size * ax->out_size;                           \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        a->planes *(out_plane + in_plane) >= DL_CPU_GRAIN,                                         \
        for (gint64 p = 0; p < a->planes; p++) {                                                   \
          T *dst = grad_in + p * in_plane;                                                         \
          const T *src = grad + p * out_plane;                                                     \
                                                                                                   \
          memset (dst, 0, in_plane * sizeof (T));                                                  \
          for (gint64 z = 0; z < az->out_size; z++)                                                \
            for (gint64 y = 0; y < ay->out_size; y++, src += ax->out_size)                         \
              for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                             \
                for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                           \
                  {                                                                                \
                    T *row = dst + (az->index[i] * ay->in_size + ay->index[j]) * ax->in_size;      \
                    const double w = az->weight[i] * ay->weight[j];                                \
                                                                                                   \
                    for (gint64 x = 0; x < ax->out_size; x++)                                      \
                      {                                                                            \
                        const double g = w * src[x];                                               \
                                                                                                   \
                        for (gint64 k = ax->start[x]; k < ax->start[x + 1]; k++)                   \
                          row[ax->index[k]] += (T)(ax->weight[k] * g);                             \
                      }                                                                            \
                  }                                                                                \
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
