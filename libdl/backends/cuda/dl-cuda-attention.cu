/* dl-cuda-attention.cu: the CUDA module's attention_forward and
 * attention_backward slots: one thread a query row (forward; backward:
 * D, dq, dmask) or a key row (backward: dk, dv), running the bodies of
 * dl-cuda-attention.cuh on the context's stream. The backward's D (one
 * value per query row) lives in a block of the caching allocator between
 * its two kernels.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-attention.cuh"
#include "dl-cuda-attention.h"
#include "dl-cuda-launch.cuh"
#include "dl-cuda-private.h"

template <typename T>
static void
backward (DlBackendContext *ctx, const DlAttentionArgs *a, cudaStream_t stream)
{
  const int64_t qrows = a->n_batch * a->l, krows = a->n_batch * a->s;
  const gsize bytes = (gsize)MAX (qrows, 1) * sizeof (T);
  T *dvec;

  if (!(dvec = (T *)ctx->backend->raw_alloc (ctx, bytes)))
    {
      g_warning ("attention_backward on cuda:%d: no room for %" G_GSIZE_FORMAT " bytes",
                 ctx->device_index, bytes);
      return;
    }
  if (qrows > 0)
    {
      dl_cuda_each<dl_cuda_att_backward_d<T>>
          <<<DL_CUDA_GRID (qrows), 0, stream>>> (qrows, *a, dvec);
      DL_CUDA_CHECK (cudaGetLastError ());
      if (a->dq || a->dmask)
        {
          dl_cuda_each<dl_cuda_att_backward_query<T>>
              <<<DL_CUDA_GRID (qrows), 0, stream>>> (qrows, *a, dvec);
          DL_CUDA_CHECK (cudaGetLastError ());
        }
    }
  if ((a->dk || a->dv) && krows > 0)
    {
      dl_cuda_each<dl_cuda_att_backward_key<T>>
          <<<DL_CUDA_GRID (krows), 0, stream>>> (krows, *a, dvec);
      DL_CUDA_CHECK (cudaGetLastError ());
    }
  ctx->backend->raw_free (ctx, dvec, bytes);
}

void
dl_cuda_attention_forward (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype)
{
  const int64_t rows = args->n_batch * args->l;
  cudaStream_t stream = dl_cuda_current_stream (ctx);

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (rows == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    dl_cuda_each<dl_cuda_att_forward_row<double>><<<DL_CUDA_GRID (rows), 0, stream>>> (rows, *args);
  else
    dl_cuda_each<dl_cuda_att_forward_row<float>><<<DL_CUDA_GRID (rows), 0, stream>>> (rows, *args);
  DL_CUDA_CHECK (cudaGetLastError ());
}

void
dl_cuda_attention_backward (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype)
{
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (args->n_batch == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    backward<double> (ctx, args, dl_cuda_current_stream (ctx));
  else
    backward<float> (ctx, args, dl_cuda_current_stream (ctx));
}
