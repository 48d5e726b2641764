/* dl-cuda-conv.cu: the CUDA module's im2col and col2im slots: one thread
 * a column element (im2col) or an image element (col2im, a gather: no
 * atomics) running the bodies of dl-cuda-conv.cuh on the context's stream.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-conv.cuh"
#include "dl-cuda-conv.h"
#include "dl-cuda-launch.cuh"
#include "dl-cuda-private.h"

/* im2col (@to_cols) from @src into @dst, or col2im */
static void
launch (DlBackendContext *ctx,
        const DlConvGeometry *g,
        gboolean to_cols,
        const void *src,
        void *dst,
        DlDType dtype)
{
  const int64_t image = g->n * g->c * g->h * g->w;
  const int64_t total = to_cols ? g->n * g->c * g->kh * g->kw * g->out_h * g->out_w : image;
  cudaStream_t stream = dl_cuda_current_stream (ctx);

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (total == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64 && to_cols)
    dl_cuda_each<dl_cuda_im2col_elem<double>>
        <<<DL_CUDA_GRID (total), 0, stream>>> (total, *g, (const double *)src, (double *)dst);
  else if (dtype == DL_DTYPE_FLOAT64)
    dl_cuda_each<dl_cuda_col2im_elem<double>>
        <<<DL_CUDA_GRID (total), 0, stream>>> (total, *g, (const double *)src, (double *)dst);
  else if (to_cols)
    dl_cuda_each<dl_cuda_im2col_elem<float>>
        <<<DL_CUDA_GRID (total), 0, stream>>> (total, *g, (const float *)src, (float *)dst);
  else
    dl_cuda_each<dl_cuda_col2im_elem<float>>
        <<<DL_CUDA_GRID (total), 0, stream>>> (total, *g, (const float *)src, (float *)dst);
  DL_CUDA_CHECK (cudaGetLastError ());
}

void
dl_cuda_im2col (DlBackendContext *ctx,
                const DlConvGeometry *g,
                const void *image,
                void *cols,
                DlDType dtype)
{
  launch (ctx, g, TRUE, image, cols, dtype);
}

void
dl_cuda_col2im (DlBackendContext *ctx,
                const DlConvGeometry *g,
                const void *cols,
                void *image,
                DlDType dtype)
{
  launch (ctx, g, FALSE, cols, image, dtype);
}
