/* dl-cuda-backend.c: the CUDA backend, built as the loadable module
 * libdl-cuda-1.0.so. libdl opens it on first use of a "cuda" device
 * (dl-device.c) and calls its one entry point, dl_cuda_module_init(),
 * which asks the CUDA runtime for devices and hands back the device type.
 *
 * Here live the memory slots (device memory through the stream allocator
 * over cudaMalloc/cudaFree and cudaEvents, and copies between host and
 * device), streams and events, and the allocator's memory statistics.
 * The kernel slots are in dl-cuda-kernels.cu (elementwise, reduce, scan
 * and softmax, nvcc), dl-cuda-index.cu (gathers and scatters, nonzero,
 * sorts, running extrema, unique), dl-cuda-conv.cu, -optim.cu,
 * -resample.cu, -attention.cu and -rnn.cu (im2col/col2im, the optimizers'
 * step, resampling, attention, recurrent layers), dl-cuda-pool.cu,
 * -norm.cu, -random.cu, and dl-cuda-blas.c (gemm_batched, cuBLAS); every
 * slot left NULL in the table below libdl reports as not supported on
 * 'cuda'.
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
#include "dl-cuda-index.h"
#include "dl-cuda-kernels.h"
#include "dl-cuda-private.h"
#include "dl-cuda-norm.h"
#include "dl-cuda-pool.h"
#include "dl-cuda-random.h"
#include "dl-cuda-attention.h"
#include "dl-cuda-conv.h"
#include "dl-cuda-optim.h"
#include "dl-cuda-resample.h"
#include "dl-cuda-rnn.h"
#ifdef DL_CUDA_HAVE_CUDNN
#include "dl-cuda-dnn.h"
#endif

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

/* The calling thread's current stream of the device (dl-stream.c keeps
 * it), the default stream until it makes another current. */
cudaStream_t
dl_cuda_current_stream (DlBackendContext *ctx)
{
  return (cudaStream_t)(ctx->current_stream ? ctx->current_stream (ctx) : ctx->stream);
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

/* Copies are queued on the calling thread's current stream, after the
 * work that makes or reads the device buffer, and waited for: the host
 * buffer is the caller's to read or reuse when the call returns. Reading
 * values (item, numpy, printing) is such a copy, so it synchronizes the
 * current stream, as in PyTorch. (The current stream may be one made
 * with cudaStreamNonBlocking, which a plain cudaMemcpy would not wait
 * for.) */
static void
cuda_copy_to_host (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);

  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyDeviceToHost, stream));
  DL_CUDA_CHECK (cudaStreamSynchronize (stream));
}

static void
cuda_copy_from_host (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);

  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyHostToDevice, stream));
  DL_CUDA_CHECK (cudaStreamSynchronize (stream));
}

/* ---- synchronization, streams and events ------------------------------
 * Streams are made non-blocking (they do not wait for the legacy default
 * stream), as PyTorch's pool streams are; dl-stream.c keeps their handles
 * in a pool, so a stream is never destroyed while the caching allocator
 * may still record an event on it. */

static void
cuda_synchronize (DlBackendContext *ctx)
{
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaDeviceSynchronize ());
}

static gpointer
cuda_stream_new (DlBackendContext *ctx, gint priority)
{
  cudaStream_t stream = NULL;
  int least = 0, greatest = 0;

  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  /* CUDA's priorities run from least (0) down to greatest (-5 or so) */
  DL_CUDA_CHECK (cudaDeviceGetStreamPriorityRange (&least, &greatest));
  if (cudaStreamCreateWithPriority (&stream, cudaStreamNonBlocking,
                                    CLAMP (priority, greatest, least))
      != cudaSuccess)
    {
      cudaGetLastError ();
      return NULL;
    }
  return stream;
}

static void
cuda_stream_free (DlBackendContext *ctx, gpointer stream)
{
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaStreamDestroy ((cudaStream_t)stream));
}

/* cudaErrorNotReady: work is still queued; another error is reported
 * and counts as done, so that no caller waits for ever */
static gboolean
cuda_ready (cudaError_t err, const gchar *call)
{
  if (err == cudaErrorNotReady)
    return FALSE;
  if (err != cudaSuccess)
    g_warning ("%s: %s", call, cudaGetErrorString (err));
  return TRUE;
}

static gboolean
cuda_stream_query (DlBackendContext *ctx, gpointer stream)
{
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  return cuda_ready (cudaStreamQuery ((cudaStream_t)stream), "cudaStreamQuery");
}

static void
cuda_stream_synchronize (DlBackendContext *ctx, gpointer stream)
{
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaStreamSynchronize ((cudaStream_t)stream));
}

static void
cuda_stream_wait_event (DlBackendContext *ctx, gpointer stream, gpointer event)
{
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaStreamWaitEvent ((cudaStream_t)stream, (cudaEvent_t)event, 0));
}

static gpointer
cuda_event_new (DlBackendContext *ctx, gboolean enable_timing, gboolean blocking)
{
  cudaEvent_t event = NULL;
  unsigned int flags = (enable_timing ? cudaEventDefault : cudaEventDisableTiming)
                       | (blocking ? cudaEventBlockingSync : 0);

  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (cudaEventCreateWithFlags (&event, flags) != cudaSuccess)
    {
      cudaGetLastError ();
      return NULL;
    }
  return event;
}

static void
cuda_event_free (DlBackendContext *ctx, gpointer event)
{
  DL_CUDA_CHECK (cudaEventDestroy ((cudaEvent_t)event));
}

static void
cuda_event_record (DlBackendContext *ctx, gpointer event, gpointer stream)
{
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  DL_CUDA_CHECK (cudaEventRecord ((cudaEvent_t)event, (cudaStream_t)stream));
}

static gboolean
cuda_event_query (DlBackendContext *ctx, gpointer event)
{
  return cuda_ready (cudaEventQuery ((cudaEvent_t)event), "cudaEventQuery");
}

static void
cuda_event_synchronize (DlBackendContext *ctx, gpointer event)
{
  DL_CUDA_CHECK (cudaEventSynchronize ((cudaEvent_t)event));
}

static gboolean
cuda_event_elapsed (DlBackendContext *ctx, gpointer start, gpointer end, gdouble *ms)
{
  float elapsed = 0;

  if (cudaEventElapsedTime (&elapsed, (cudaEvent_t)start, (cudaEvent_t)end) != cudaSuccess)
    {
      cudaGetLastError ();
      return FALSE;
    }
  *ms = elapsed;
  return TRUE;
}

/* ---- memory statistics: the stream allocator's ------------------------ */

static void
cuda_memory_stats (DlBackendContext *ctx, DlMemoryStats *stats)
{
  CudaDevice *dev = ctx->data;

  dl_stream_allocator_get_memory_stats (dev->allocator, stats);
}

static void
cuda_memory_reset_peaks (DlBackendContext *ctx)
{
  CudaDevice *dev = ctx->data;

  dl_stream_allocator_reset_peaks (dev->allocator);
}

static void
cuda_memory_empty_cache (DlBackendContext *ctx)
{
  CudaDevice *dev = ctx->data;

  dl_stream_allocator_empty_cache (dev->allocator);
}

/* not const: the cuDNN slots are filled in when cuDNN opens */
static DlBackend cuda_backend = {
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
  .index = dl_cuda_index,
  .nonzero = dl_cuda_nonzero,
  .sort = dl_cuda_sort,
  .scan_extremum = dl_cuda_scan_extremum,
  .scatter_rows = dl_cuda_scatter_rows,
  .gather_rows = dl_cuda_gather_rows,
  .unique_sorted = dl_cuda_unique_sorted,
  .softmax = dl_cuda_softmax,
  .synchronize = cuda_synchronize,
  .stream_new = cuda_stream_new,
  .stream_free = cuda_stream_free,
  .stream_query = cuda_stream_query,
  .stream_synchronize = cuda_stream_synchronize,
  .stream_wait_event = cuda_stream_wait_event,
  .event_new = cuda_event_new,
  .event_free = cuda_event_free,
  .event_record = cuda_event_record,
  .event_query = cuda_event_query,
  .event_synchronize = cuda_event_synchronize,
  .event_elapsed = cuda_event_elapsed,
  .memory_stats = cuda_memory_stats,
  .memory_reset_peaks = cuda_memory_reset_peaks,
  .memory_empty_cache = cuda_memory_empty_cache,
  .random = dl_cuda_random,
  .random_params = dl_cuda_random_params,
  .multinomial = dl_cuda_multinomial,
  .dropout = dl_cuda_dropout,
  .attention_dropout_mask = dl_cuda_attention_dropout_mask,
  .max_pool2d = dl_cuda_max_pool2d,
  .max_pool2d_backward = dl_cuda_max_pool2d_backward,
  .norm_forward = dl_cuda_norm_forward,
  .norm_backward = dl_cuda_norm_backward,
  .im2col = dl_cuda_im2col,
  .col2im = dl_cuda_col2im,
  .optim_step = dl_cuda_optim_step,
  .resample = dl_cuda_resample,
  .resample_adjoint = dl_cuda_resample_adjoint,
  .resample_max = dl_cuda_resample_max,
  .attention_forward = dl_cuda_attention_forward,
  .attention_backward = dl_cuda_attention_backward,
  .rnn_forward = dl_cuda_rnn_forward,
  .rnn_backward = dl_cuda_rnn_backward,
};

static gint
cuda_device_count (void)
{
  return n_cuda_devices;
}

/* the device's cudaDeviceProp: name, global memory, compute capability,
 * multiprocessors (left as the registry set them when the query fails) */
static void
cuda_get_info (const DlBackendContext *ctx, DlDeviceInfo *info)
{
  struct cudaDeviceProp prop;

  if (cudaGetDeviceProperties (&prop, ctx->device_index) != cudaSuccess)
    return;
  g_strlcpy (info->product_name, prop.name, sizeof info->product_name);
  info->total_memory = prop.totalGlobalMem;
  info->major = prop.major;
  info->minor = prop.minor;
  info->multi_processor_count = prop.multiProcessorCount;
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
#ifdef DL_CUDA_HAVE_CUDNN
  dl_cuda_dnn_clear (dev->index);
#endif
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
#ifdef DL_CUDA_HAVE_CUDNN
  dl_cuda_dnn_install (&cuda_backend);
#endif
  *info = (DlDeviceTypeInfo){
    .type = "cuda",
    .device_type = DL_DEVICE_TYPE_CUDA,
    .backend = &cuda_backend,
    .indexed = TRUE,
    .device_count = cuda_device_count,
    .context_init = cuda_context_init,
    .context_clear = cuda_context_clear,
    .get_info = cuda_get_info,
    /* the stream allocator caches below libdl's allocator */
    .min_cached_size = 0,
    .cache_limit = 0,
  };
  return TRUE;
}
