/* dl-cuda-pool.cu: the CUDA module's max_pool2d and max_pool2d_backward
 * slots: one thread an output (forward) or an input element (backward)
 * running the bodies of dl-cuda-pool.cuh, on the context's stream.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-pool.cuh"
#include "dl-cuda-pool.h"
#include "dl-cuda-private.h"

#define POOL_THREADS 256

static unsigned
pool_blocks (int64_t items)
{
  const int64_t most = 65535;
  int64_t blocks = (items + POOL_THREADS - 1) / POOL_THREADS;

  return (unsigned)(blocks < most ? blocks : most);
}

template <typename T>
__global__ void
max_pool_kernel (DlConvGeometry g, const T *image, T *out, int64_t *idx, int64_t total)
{
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (int64_t)blockDim.x * gridDim.x)
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
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (int64_t)blockDim.x * gridDim.x)
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
    max_pool_kernel<double><<<pool_blocks (total), POOL_THREADS, 0, stream>>> (
        *g, (const double *)image, (double *)out, (int64_t *)indices, total);
  else
    max_pool_kernel<float><<<pool_blocks (total), POOL_THREADS, 0, stream>>> (
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
    max_pool_backward_kernel<double><<<pool_blocks (total), POOL_THREADS, 0, stream>>> (
        *g, (const double *)grad_out, (const int64_t *)indices, (double *)grad_in, total);
  else
    max_pool_backward_kernel<float><<<pool_blocks (total), POOL_THREADS, 0, stream>>> (
        *g, (const float *)grad_out, (const int64_t *)indices, (float *)grad_in, total);
  DL_CUDA_CHECK (cudaGetLastError ());
}
