/* dl-cuda-optim.cu: the CUDA module's optim_step slot: one thread an
 * element of the parameter running dl_cuda_optim_elem (dl-cuda-optim.cuh)
 * on the context's stream, every optimizer kind in one pass.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-launch.cuh"
#include "dl-cuda-optim.cuh"
#include "dl-cuda-optim.h"
#include "dl-cuda-private.h"

template <typename T>
__global__ void
optim_kernel (DlOptimStepArgs a)
{
  DL_CUDA_EACH (i, a.n)
  dl_cuda_optim_elem<T> (a, i);
}

void
dl_cuda_optim_step (DlBackendContext *ctx, const DlOptimStepArgs *args, DlDType dtype)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  g_return_if_fail (args->kind >= DL_OPTIM_SGD && args->kind <= DL_OPTIM_ASGD);
  if (args->n == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    optim_kernel<double><<<DL_CUDA_GRID (args->n), 0, stream>>> (*args);
  else
    optim_kernel<float><<<DL_CUDA_GRID (args->n), 0, stream>>> (*args);
  DL_CUDA_CHECK (cudaGetLastError ());
}
