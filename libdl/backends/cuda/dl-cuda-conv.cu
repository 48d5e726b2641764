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

template <typename T>
__global__ void
im2col_kernel (DlConvGeometry g, const T *image, T *cols, int64_t total)
{
  DL_CUDA_EACH (e, total)
  dl_cuda_im2col_elem<T> (g, image, cols, e);
}

template <typename T>
__global__ void
col2im_kernel (DlConvGeometry g, const T *cols, T *image, int64_t total)
{
  DL_CUDA_EACH (e, total)
  dl_cuda_col2im_elem<T> (g, cols, image, e);
}

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
    im2col_kernel<double>
        <<<DL_CUDA_GRID (total), 0, stream>>> (*g, (const double *)src, (double *)dst, total);
  else if (dtype == DL_DTYPE_FLOAT64)
    col2im_kernel<double>
        <<<DL_CUDA_GRID (total), 0, stream>>> (*g, (const double *)src, (double *)dst, total);
  else if (to_cols)
    im2col_kernel<float>
        <<<DL_CUDA_GRID (total), 0, stream>>> (*g, (const float *)src, (float *)dst, total);
  else
    col2im_kernel<float>
        <<<DL_CUDA_GRID (total), 0, stream>>> (*g, (const float *)src, (float *)dst, total);
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
