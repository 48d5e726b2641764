/* dl-cuda-pool.cu: the CUDA module's max_pool2d and max_pool2d_backward
 * slots: one thread an output (forward) or an input element (backward)
 * running the bodies of dl-cuda-pool.cuh, on the context's stream.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-launch.cuh"
#include "dl-cuda-pool.cuh"
#include "dl-cuda-pool.h"
#include "dl-cuda-private.h"

template <typename T>
__global__ void
max_pool_kernel (DlConvGeometry g, const T *image, T *out, int64_t *idx, int64_t total)
{
  DL_CUDA_EACH (o, total)
    dl_cuda_max_pool_elem<T> (g, image, out, idx, o);
}

template <typename T>
__global__ void
max_pool_backward_kernel (DlConvGeometry g,
                          const T *grad_out,
                          const int64_t *idx,
                          T *grad_in,
                          int64_t total)
{
  DL_CUDA_EACH (e, total)
    dl_cuda_max_pool_backward_elem<T> (g, grad_out, idx, grad_in, e);
}

void
dl_cuda_max_pool2d (DlBackendContext *ctx,
                    const DlConvGeometry *g,
                    const void *image,
                    void *out,
                    gint64 *indices,
                    DlDType dtype)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  const int64_t total = g->n * g->c * g->out_h * g->out_w;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (total == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    max_pool_kernel<double><<<DL_CUDA_GRID (total), 0, stream>>> (
        *g, (const double *)image, (double *)out, (int64_t *)indices, total);
  else
    max_pool_kernel<float><<<DL_CUDA_GRID (total), 0, stream>>> (
        *g, (const float *)image, (float *)out, (int64_t *)indices, total);
  DL_CUDA_CHECK (cudaGetLastError ());
}

void
dl_cuda_max_pool2d_backward (DlBackendContext *ctx,
                             const DlConvGeometry *g,
                             const void *grad_out,
                             const gint64 *indices,
                             void *grad_in,
                             DlDType dtype)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  const int64_t total = g->n * g->c * g->h * g->w;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (total == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    max_pool_backward_kernel<double><<<DL_CUDA_GRID (total), 0, stream>>> (
        *g, (const double *)grad_out, (const int64_t *)indices, (double *)grad_in, total);
  else
    max_pool_backward_kernel<float><<<DL_CUDA_GRID (total), 0, stream>>> (
        *g, (const float *)grad_out, (const int64_t *)indices, (float *)grad_in, total);
  DL_CUDA_CHECK (cudaGetLastError ());
}
