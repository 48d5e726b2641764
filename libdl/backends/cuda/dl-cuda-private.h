/* dl-cuda-private.h: what the files of the CUDA module share.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <cuda_runtime_api.h>
#include <glib.h>

#include "backends/dl-backend.h"
#include "dl-cuda-gemm-plan.h"

G_BEGIN_DECLS

/* A CUDA runtime call whose failure is a bug or a lost device: logged
 * with the call, file and line (a slot has no GError to report it in). */
#define DL_CUDA_CHECK(call)                                                                        \
  G_STMT_START                                                                                     \
  {                                                                                                \
    cudaError_t dl_cuda_err_ = (call);                                                             \
    if (dl_cuda_err_ != cudaSuccess)                                                               \
      g_warning ("%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString (dl_cuda_err_));   \
  }                                                                                                \
  G_STMT_END

/* The stream that the calling thread's work on @ctx's device is queued
 * on: every kernel launch, library call and asynchronous copy of a slot
 * goes there, and the caching allocator hands out blocks for it. */
cudaStream_t dl_cuda_current_stream (DlBackendContext *ctx);

/* One product of float32 or float64 @dtype (see DlCudaGemmEx) through
 * cuBLAS on the current stream (dl-cuda-blas.c): what the recurrent
 * slots' plan runs (dl-cuda-rnn.cu). */
void dl_cuda_gemm_ex (DlBackendContext *ctx, DlDType dtype, const DlCudaGemmEx *g);

G_END_DECLS
