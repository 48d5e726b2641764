/* dl-cuda-norm.cu: the CUDA module's norm_forward and norm_backward slots:
 * kernels of one thread a set (statistics, dx's sums), an element (y, dx)
 * or a channel (dweight, dbias) running the bodies of dl-cuda-norm.cuh on
 * the context's stream.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-launch.cuh"
#include "dl-cuda-norm.cuh"
#include "dl-cuda-norm.h"
#include "dl-cuda-private.h"

template <typename T>
__global__ void
dx_sums_kernel (DlNormArgs a, int64_t n_sets, double *sums)
{
  DL_CUDA_EACH (q, n_sets)
  dl_cuda_norm_dx_sums<T> (a, q, sums);
}

template <typename T>
__global__ void
param_grads_kernel (DlNormArgs a)
{
  DL_CUDA_EACH (ch, a.c)
  dl_cuda_norm_param_grads<T> (a, ch);
}

template <typename T>
static void
forward (const DlNormArgs *a, cudaStream_t stream)
{
  const int64_t total = a->n * a->c * a->s;
  int64_t n_sets, m;

  dl_cuda_norm_sets (*a, &n_sets, &m);
  dl_cuda_each<dl_cuda_norm_stats<T>><<<DL_CUDA_GRID (n_sets), 0, stream>>> (n_sets, *a);
  DL_CUDA_CHECK (cudaGetLastError ());
  dl_cuda_each<dl_cuda_norm_apply<T>><<<DL_CUDA_GRID (total), 0, stream>>> (total, *a);
  DL_CUDA_CHECK (cudaGetLastError ());
}

template <typename T>
static void
backward (DlBackendContext *ctx, const DlNormArgs *a, cudaStream_t stream)
{
  const int64_t total = a->n * a->c * a->s;
  const bool eval = a->kind == DL_NORM_BATCH && !a->training;
  int64_t n_sets, m;
  gsize bytes;
  double *sums = NULL;

  dl_cuda_norm_sets (*a, &n_sets, &m);
  bytes = (gsize)(2 * n_sets) * sizeof (double);
  if (a->dx)
    {
      if (!eval)
        {
          /* from the device's caching allocator, for this stream */
          if (!(sums = (double *)ctx->backend->raw_alloc (ctx, bytes)))
            {
              g_warning ("norm_backward on cuda:%d: no room for %" G_GSIZE_FORMAT " bytes",
                         ctx->device_index, bytes);
              return;
            }
          dx_sums_kernel<T><<<DL_CUDA_GRID (n_sets), 0, stream>>> (*a, n_sets, sums);
          DL_CUDA_CHECK (cudaGetLastError ());
        }
      dl_cuda_each<dl_cuda_norm_dx<T>><<<DL_CUDA_GRID (total), 0, stream>>> (total, *a, sums);
      DL_CUDA_CHECK (cudaGetLastError ());
      if (sums)
        ctx->backend->raw_free (ctx, sums, bytes);
    }
  if (a->dweight || a->dbias)
    {
      param_grads_kernel<T><<<DL_CUDA_GRID (a->c), 0, stream>>> (*a);
      DL_CUDA_CHECK (cudaGetLastError ());
    }
}

void
dl_cuda_norm_forward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype)
{
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (args->n * args->c * args->s == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    forward<double> (args, dl_cuda_current_stream (ctx));
  else
    forward<float> (args, dl_cuda_current_stream (ctx));
}

void
dl_cuda_norm_rstd (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);

  g_return_if_fail (args->kind == DL_NORM_BATCH && !args->training);
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (args->c == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    dl_cuda_each<dl_cuda_norm_stats<double>>
        <<<DL_CUDA_GRID (args->c), 0, stream>>> (args->c, *args);
  else
    dl_cuda_each<dl_cuda_norm_stats<float>><<<DL_CUDA_GRID (args->c), 0, stream>>> (args->c, *args);
  DL_CUDA_CHECK (cudaGetLastError ());
}

void
dl_cuda_norm_backward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype)
{
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (args->c == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    backward<double> (ctx, args, dl_cuda_current_stream (ctx));
  else
    backward<float> (ctx, args, dl_cuda_current_stream (ctx));
}
