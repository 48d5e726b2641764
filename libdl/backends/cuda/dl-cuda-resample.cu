/* dl-cuda-resample.cu: the CUDA module's resample, resample_adjoint and
 * resample_max slots: the axes (host memory) and their transposes packed
 * into one buffer copied to the device, then one thread an output (or an
 * input element, for the adjoint) running the bodies of
 * dl-cuda-resample.cuh on the context's stream.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-launch.cuh"
#include "dl-cuda-private.h"
#include "dl-cuda-resample.cuh"
#include "dl-cuda-resample.h"

/* @a's axes on the device, into @r: returns the device block to release
 * with raw_free (*bytes long) once the kernel is queued, or NULL */
static void *
upload (DlBackendContext *ctx, const DlResampleArgs *a, cudaStream_t stream, DlCudaResample *r,
        gsize *bytes)
{
  g_autofree char *host = NULL;
  char *dev;

  *bytes = MAX (dl_cuda_resample_pack_size (a), 8);
  host = (char *)g_malloc (*bytes);
  if (!(dev = (char *)ctx->backend->raw_alloc (ctx, *bytes)))
    {
      g_warning ("resample on cuda:%d: no room for %" G_GSIZE_FORMAT " bytes", ctx->device_index,
                 *bytes);
      return NULL;
    }
  dl_cuda_resample_pack (a, host, dev, r);
  /* from pageable memory: returns once @host is staged, so it may go */
  DL_CUDA_CHECK (cudaMemcpyAsync (dev, host, *bytes, cudaMemcpyHostToDevice, stream));
  return dev;
}

static int64_t
out_elems (const DlResampleArgs *a)
{
  return a->planes * a->axis[0].out_size * a->axis[1].out_size * a->axis[2].out_size;
}

static int64_t
in_elems (const DlResampleArgs *a)
{
  return a->planes * a->axis[0].in_size * a->axis[1].in_size * a->axis[2].in_size;
}

/* which of the three kernels a launch runs */
typedef enum
{
  RESAMPLE_MAP,
  RESAMPLE_ADJOINT,
  RESAMPLE_MAX,
} ResampleKind;

static void
launch (DlBackendContext *ctx,
        const DlResampleArgs *a,
        ResampleKind kind,
        const void *src,
        void *dst,
        gint64 *idx,
        DlDType dtype)
{
  const int64_t total = kind == RESAMPLE_ADJOINT ? in_elems (a) : out_elems (a);
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  DlCudaResample r;
  gsize bytes;
  void *dev;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (total == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (!(dev = upload (ctx, a, stream, &r, &bytes)))
    return;
  if (dtype == DL_DTYPE_FLOAT64)
    {
      const double *in = (const double *)src;
      double *out = (double *)dst;

      if (kind == RESAMPLE_MAP)
        dl_cuda_each<dl_cuda_resample_elem<double>>
            <<<DL_CUDA_GRID (total), 0, stream>>> (total, r, in, out);
      else if (kind == RESAMPLE_ADJOINT)
        dl_cuda_each<dl_cuda_resample_adjoint_elem<double>>
            <<<DL_CUDA_GRID (total), 0, stream>>> (total, r, in, out);
      else
        dl_cuda_each<dl_cuda_resample_max_elem<double>>
            <<<DL_CUDA_GRID (total), 0, stream>>> (total, r, in, out, (int64_t *)idx);
    }
  else
    {
      const float *in = (const float *)src;
      float *out = (float *)dst;

      if (kind == RESAMPLE_MAP)
        dl_cuda_each<dl_cuda_resample_elem<float>>
            <<<DL_CUDA_GRID (total), 0, stream>>> (total, r, in, out);
      else if (kind == RESAMPLE_ADJOINT)
        dl_cuda_each<dl_cuda_resample_adjoint_elem<float>>
            <<<DL_CUDA_GRID (total), 0, stream>>> (total, r, in, out);
      else
        dl_cuda_each<dl_cuda_resample_max_elem<float>>
            <<<DL_CUDA_GRID (total), 0, stream>>> (total, r, in, out, (int64_t *)idx);
    }
  DL_CUDA_CHECK (cudaGetLastError ());
  /* the caching allocator reuses the block only after this stream's work */
  ctx->backend->raw_free (ctx, dev, bytes);
}

void
dl_cuda_resample (DlBackendContext *ctx,
                  const DlResampleArgs *a,
                  const void *in,
                  void *out,
                  DlDType dtype)
{
  launch (ctx, a, RESAMPLE_MAP, in, out, NULL, dtype);
}

void
dl_cuda_resample_adjoint (DlBackendContext *ctx,
                          const DlResampleArgs *a,
                          const void *grad,
                          void *grad_in,
                          DlDType dtype)
{
  launch (ctx, a, RESAMPLE_ADJOINT, grad, grad_in, NULL, dtype);
}

void
dl_cuda_resample_max (DlBackendContext *ctx,
                      const DlResampleArgs *a,
                      const void *in,
                      void *out,
                      gint64 *indices,
                      DlDType dtype)
{
  launch (ctx, a, RESAMPLE_MAX, in, out, indices, dtype);
}
