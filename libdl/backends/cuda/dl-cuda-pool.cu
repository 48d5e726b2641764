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
    dl_cuda_each<dl_cuda_max_pool_elem<double>>
        <<<DL_CUDA_GRID (total), 0, stream>>> (
            total, *g, (const double *)image, (double *)out, (int64_t *)indices);
  else
    dl_cuda_each<dl_cuda_max_pool_elem<float>>
        <<<DL_CUDA_GRID (total), 0, stream>>> (
            total, *g, (const float *)image, (float *)out, (int64_t *)indices);
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
    dl_cuda_each<dl_cuda_max_pool_backward_elem<double>>
        <<<DL_CUDA_GRID (total), 0, stream>>> (
            total, *g, (const double *)grad_out, (const int64_t *)indices, (double *)grad_in);
  else
    dl_cuda_each<dl_cuda_max_pool_backward_elem<float>>
        <<<DL_CUDA_GRID (total), 0, stream>>> (
            total, *g, (const float *)grad_out, (const int64_t *)indices, (float *)grad_in);
  DL_CUDA_CHECK (cudaGetLastError ());
}
