/* dl-cuda-backend.c: the CUDA backend, built as the loadable module
 * libdl-cuda-1.0.so. libdl opens it on first use of a "cuda" device
 * (dl-device.c) and calls its one entry point, dl_cuda_module_init(),
 * which asks the CUDA runtime for devices and hands back the device type.
 *
 * The memory slots live here: device memory through the stream allocator
 * over cudaMalloc/cudaFree and cudaEvents, and copies between host and
 * device. The kernel slots are in dl-cuda-kernels.cu (elementwise,
 * reduce, scan and softmax, nvcc) and dl-cuda-blas.c (gemm_batched, cuBLAS); every slot
 * left NULL in the table below libdl reports as not supported on 'cuda'.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <cuda_runtime_api.h>
#include <gmodule.h>

#include "backends/dl-backend.h"
#include "dl-error.h"
#include "dl-stream-allocator-private.h"
#include "dl-cuda-kernels.h"
#include "dl-cuda-private.h"

/* What one device's context holds in its data */
typedef struct
{
  gint index;
  DlStreamAllocator *allocator;
} CudaDevice;

static gint n_cuda_devices;

/* ---- the stream allocator's provider ----------------------------------- */

static gpointer
provider_alloc (gsize size, gpointer user_data)
{
  CudaDevice *dev = user_data;
  void *ptr = NULL;

  DL_CUDA_CHECK (cudaSetDevice (dev->index));
  if (cudaMalloc (&ptr, size) != cudaSuccess)
    {
      /* clears the sticky out-of-memory error, so later calls see none */
      cudaGetLastError ();
      return NULL;
    }
  return ptr;
}

static void
provider_free (gpointer ptr, gsize size, gpointer user_data)
{
  CudaDevice *dev = user_data;

  DL_CUDA_CHECK (cudaSetDevice (dev->index));
  DL_CUDA_CHECK (cudaFree (ptr));
}

static gpointer
provider_event_record (gpointer stream, gpointer user_data)
{
  CudaDevice *dev = user_data;
  cudaEvent_t event = NULL;

  DL_CUDA_CHECK (cudaSetDevice (dev->index));
  DL_CUDA_CHECK (cudaEventCreateWithFlags (&event, cudaEventDisableTiming));
  DL_CUDA_CHECK (cudaEventRecord (event, (cudaStream_t)stream));
  return event;
}

static gboolean
provider_event_query (gpointer event, gpointer user_data)
{
  /* cudaErrorNotReady: the work before the event is still queued */
  return cudaEventQuery ((cudaEvent_t)event) != cudaErrorNotReady;
}

static void
provider_event_free (gpointer event, gpointer user_data)
{
  DL_CUDA_CHECK (cudaEventDestroy ((cudaEvent_t)event));
}

static const DlStreamAllocatorProvider cuda_provider = {
  .alloc = provider_alloc,
  .free = provider_free,
  .event_record = provider_event_record,
  .event_query = provider_event_query,
  .event_free = provider_event_free,
};

cudaStream_t
dl_cuda_current_stream (DlBackendContext *ctx)
{
  return (cudaStream_t)ctx->stream;
}

/* ---- the backend's memory slots ------------------------------------------ */

static gpointer
cuda_raw_alloc (DlBackendContext *ctx, gsize nbytes)
{
  CudaDevice *dev = ctx->data;

  /* NULL when the device is full: libdl's allocator reports it */
  return dl_stream_allocator_malloc (dev->allocator, MAX (nbytes, 1), dl_cuda_current_stream (ctx),
                                     NULL);
}

static void
cuda_raw_free (DlBackendContext *ctx, gpointer ptr, gsize nbytes)
{
  CudaDevice *dev = ctx->data;

  if (ptr)
    dl_stream_allocator_free (dev->allocator, ptr);
}

/* Copies are synchronous: the host buffer is the caller's to reuse when
 * the call returns. */
static void
cuda_copy_to_host (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaMemcpy (dst, src, nbytes, cudaMemcpyDeviceToHost));
}

static void
cuda_copy_from_host (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaMemcpy (dst, src, nbytes, cudaMemcpyHostToDevice));
}

static const DlBackend cuda_backend = {
  .name = "cuda",
  .host_memory = FALSE,
  .meta = FALSE,
  .raw_alloc = cuda_raw_alloc,
  .raw_free = cuda_raw_free,
  .copy_to_host = cuda_copy_to_host,
  .copy_from_host = cuda_copy_from_host,
  .copy = dl_cuda_copy,
  .fill = dl_cuda_fill,
  .unary = dl_cuda_unary,
  .binary = dl_cuda_binary,
  .unary_params = dl_cuda_unary_params,
  .ternary = dl_cuda_ternary,
  .reduce = dl_cuda_reduce,
  .gemm_batched = dl_cuda_gemm_batched,
  .scan = dl_cuda_scan,
  .softmax = dl_cuda_softmax,
};

static gint
cuda_device_count (void)
{
  return n_cuda_devices;
}

static gboolean
cuda_context_init (DlBackendContext *ctx, GError **error)
{
  CudaDevice *dev;
  cudaError_t err = cudaSetDevice (ctx->device_index);

  if (err != cudaSuccess)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "cudaSetDevice (%d): %s", ctx->device_index,
                   cudaGetErrorString (err));
      return FALSE;
    }
  dev = g_new0 (CudaDevice, 1);
  dev->index = ctx->device_index;
  dev->allocator = dl_stream_allocator_new (&cuda_provider, dev);
  ctx->stream = NULL; /* the default stream */
  ctx->data = dev;
  return TRUE;
}

static void
cuda_context_clear (DlBackendContext *ctx)
{
  CudaDevice *dev = ctx->data;

  if (dev == NULL)
    return;
  dl_cuda_blas_clear (dev->index);
  dl_stream_allocator_destroy (dev->allocator);
  g_free (dev);
  ctx->data = NULL;
}

/* The module's entry point, found by name with g_module_symbol(): fills
 * @info with the "cuda" device type when the CUDA runtime finds a driver
 * and at least one device, and cuBLAS loads; otherwise FALSE with a
 * %DL_ERROR_DEVICE error that says which is missing. */
G_MODULE_EXPORT gboolean dl_cuda_module_init (DlDeviceTypeInfo *info, GError **error);

G_MODULE_EXPORT gboolean
dl_cuda_module_init (DlDeviceTypeInfo *info, GError **error)
{
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);

  if (err != cudaSuccess || count == 0)
    {
      const gchar *reason;

      if (err == cudaErrorInsufficientDriver)
        reason = "no CUDA driver";
      else if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
        reason = "no CUDA device";
      else
        reason = "the CUDA runtime failed";
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "%s (cudaGetDeviceCount: %s)", reason,
                   err == cudaSuccess ? "0 devices" : cudaGetErrorString (err));
      return FALSE;
    }
  /* GEMMs need cuBLAS: opened here, where there is a device to run them */
  if (!dl_cuda_blas_load (error))
    return FALSE;
  n_cuda_devices = count;
  *info = (DlDeviceTypeInfo){
    .type = "cuda",
    .device_type = DL_DEVICE_TYPE_CUDA,
    .backend = &cuda_backend,
    .indexed = TRUE,
    .device_count = cuda_device_count,
    .context_init = cuda_context_init,
    .context_clear = cuda_context_clear,
    /* the stream allocator caches below libdl's allocator */
    .min_cached_size = 0,
    .cache_limit = 0,
  };
  return TRUE;
}
