/* dl-cuda-dnn.c: the CUDA module's convolution slots (conv2d_forward,
 * conv2d_backward) through cuDNN.
 *
 * cuDNN is opened at run time (libcudnn.so.9, through GModule: from the
 * loader's path, then from the toolkit's folder meson found), not
 * linked: the module loads, and every other slot works, on a machine with
 * the CUDA driver and no cuDNN. dl_cuda_dnn_install() fills the slots
 * into the backend when the library and every function used here are
 * found; otherwise they stay NULL, libdl reports conv2d's fused path as
 * not available on 'cuda', and the reason ("cuDNN not found: ...") is
 * logged once as a debug message (G_MESSAGES_DEBUG=Dl).
 *
 * The API is cuDNN's descriptor ("legacy") API: cudnnConvolutionForward,
 * BackwardData, BackwardFilter and BackwardBias with the _v7 heuristics.
 * cuDNN 9 still ships it (in libcudnn_cnn, reached through the
 * libcudnn.so.9 shim) and marks it deprecated; it was chosen over the
 * graph (backend descriptor) API because each operation is a few calls
 * whose semantics have not changed since cuDNN 7, against about ten
 * backend descriptors per operation to build and finalise, which nothing
 * here could run to check them: this machine has no GPU. The calls live
 * in this one file, behind the function table below, so moving to the
 * graph API later changes nothing else.
 *
 * What the descriptors hold and which algorithm runs is decided by
 * dl-cuda-dnn-plan.h (host-tested). Each device has its handle, made on
 * its first convolution; every call is queued on dl_cuda_current_stream
 * (ctx), and the workspace comes from the device's caching allocator
 * for that stream (ctx->backend->raw_alloc), freed once the calls are
 * queued (the allocator reuses a block only for work queued after them).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gmodule.h>

#include "dl-cuda-dnn-plan.h"
#include "dl-error.h"
#include "dl-cuda-dnn.h"
#include "dl-cuda-private.h"

/* ---- the library, opened at run time ---------------------------------- */

/* one pointer per function, of the function's own type */
#define DECLARE_POINTER(name) __typeof__ (name) *name;
static struct
{
  DL_CUDNN_FUNCTIONS (DECLARE_POINTER)
} dnn;
#undef DECLARE_POINTER

static GModule *dnn_library;

#define CUDNN_SONAME "libcudnn.so." G_STRINGIFY (CUDNN_MAJOR)

/* Opens cuDNN and finds every function; FALSE with the reason in @error
 * (DL_ERROR_NOT_SUPPORTED: "cuDNN not found: ...") */
static gboolean
load_cudnn (GError **error)
{
  /* the loader's path first, then the toolkit the module was built with */
  dnn_library = g_module_open (CUDNN_SONAME, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (dnn_library == NULL)
    dnn_library = g_module_open (DL_CUDA_LIBDIR G_DIR_SEPARATOR_S CUDNN_SONAME,
                                 G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (dnn_library == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "cuDNN not found: %s",
                   g_module_error ());
      return FALSE;
    }
#define FIND(name)                                                                                 \
  if (!g_module_symbol (dnn_library, #name, (gpointer *)&dnn.name))                                \
    {                                                                                              \
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "cuDNN not found: %s has no %s",       \
                   g_module_name (dnn_library), #name);                                            \
      g_module_close (dnn_library);                                                                \
      dnn_library = NULL;                                                                          \
      return FALSE;                                                                                \
    }
  DL_CUDNN_FUNCTIONS (FIND)
#undef FIND
  /* the same major version as the headers: the descriptors' layouts and
   * enums are its */
  if (dnn.cudnnGetVersion () / 10000 != CUDNN_MAJOR)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "cuDNN not found: %s is version %zu, libdl was built for %d.x",
                   g_module_name (dnn_library), dnn.cudnnGetVersion (), CUDNN_MAJOR);
      g_module_close (dnn_library);
      dnn_library = NULL;
      return FALSE;
    }
  return TRUE;
}

/* A cuDNN call whose failure is a bug or a lost device: logged with the
 * call, file and line (a slot has no GError to report it in) */
#define DNN_CHECK(call)                                                                            \
  G_STMT_START                                                                                     \
  {                                                                                                \
    cudnnStatus_t dl_dnn_st_ = (call);                                                             \
    if (dl_dnn_st_ != CUDNN_STATUS_SUCCESS)                                                        \
      g_warning ("%s:%d: %s: %s", __FILE__, __LINE__, #call,                                       \
                 dnn.cudnnGetErrorString (dl_dnn_st_));                                            \
  }                                                                                                \
  G_STMT_END

/* ---- handles, one per device --------------------------------------------- */

#define MAX_DEVICES 64
static cudnnHandle_t handles[MAX_DEVICES];
static GMutex handles_lock;

/* @ctx's device's handle, set to queue on the current stream; NULL
 * (logged) when cuDNN cannot make one */
static cudnnHandle_t
get_handle (DlBackendContext *ctx)
{
  const gint device = ctx->device_index;
  cudnnHandle_t h;

  g_return_val_if_fail (device >= 0 && device < MAX_DEVICES, NULL);
  DL_CUDA_CHECK (cudaSetDevice (device));
  g_mutex_lock (&handles_lock);
  if (handles[device] == NULL)
    {
      cudnnStatus_t st = dnn.cudnnCreate (&handles[device]);

      if (st != CUDNN_STATUS_SUCCESS)
        {
          g_warning ("cudnnCreate on device %d: %s", device, dnn.cudnnGetErrorString (st));
          handles[device] = NULL;
        }
    }
  h = handles[device];
  g_mutex_unlock (&handles_lock);
  if (h)
    DNN_CHECK (dnn.cudnnSetStream (h, dl_cuda_current_stream (ctx)));
  return h;
}

void
dl_cuda_dnn_clear (gint device)
{
  g_mutex_lock (&handles_lock);
  if (dnn_library && device >= 0 && device < MAX_DEVICES && handles[device])
    {
      dnn.cudnnDestroy (handles[device]);
      handles[device] = NULL;
    }
  g_mutex_unlock (&handles_lock);
}

/* ---- descriptors ------------------------------------------------------------ */

typedef struct
{
  DlCudaConvPlan plan;
  cudnnHandle_t handle;
  cudnnTensorDescriptor_t x, y, bias;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  size_t workspace_limit;
} Conv;

static void
conv_clear (Conv *cv)
{
  if (cv->x)
    dnn.cudnnDestroyTensorDescriptor (cv->x);
  if (cv->y)
    dnn.cudnnDestroyTensorDescriptor (cv->y);
  if (cv->bias)
    dnn.cudnnDestroyTensorDescriptor (cv->bias);
  if (cv->w)
    dnn.cudnnDestroyFilterDescriptor (cv->w);
  if (cv->conv)
    dnn.cudnnDestroyConvolutionDescriptor (cv->conv);
}

/* the descriptors of @a's convolution; FALSE (logged) when cuDNN cannot
 * take it */
static gboolean
conv_init (Conv *cv, DlBackendContext *ctx, const DlConvArgs *a, DlDType dtype, const char *op)
{
  const char *why;
  size_t free_bytes = 0, total_bytes = 0;
  cudnnStatus_t st;

  memset (cv, 0, sizeof *cv);
  if (!dl_cuda_conv_plan (&a->g, a->o, dtype, &cv->plan, &why))
    {
      /* the ops layer hands over only what dl_cuda_conv_plan takes */
      g_warning ("%s on cuda:%d: not for cuDNN: %s", op, ctx->device_index, why);
      return FALSE;
    }
  if (!(cv->handle = get_handle (ctx)))
    return FALSE;
  if ((st = dnn.cudnnCreateTensorDescriptor (&cv->x)) != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnCreateTensorDescriptor (&cv->y)) != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnCreateTensorDescriptor (&cv->bias)) != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnCreateFilterDescriptor (&cv->w)) != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnCreateConvolutionDescriptor (&cv->conv)) != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnSetTensorNdDescriptor (cv->x, cv->plan.data_type, 4, cv->plan.x,
                                               cv->plan.x_strides))
             != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnSetTensorNdDescriptor (cv->y, cv->plan.data_type, 4, cv->plan.y,
                                               cv->plan.y_strides))
             != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnSetTensorNdDescriptor (cv->bias, cv->plan.data_type, 4, cv->plan.bias,
                                               cv->plan.bias_strides))
             != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnSetFilter4dDescriptor (cv->w, cv->plan.data_type, CUDNN_TENSOR_NCHW,
                                               cv->plan.w[0], cv->plan.w[1], cv->plan.w[2],
                                               cv->plan.w[3]))
             != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnSetConvolution2dDescriptor (cv->conv, cv->plan.pad[0], cv->plan.pad[1],
                                                    cv->plan.stride[0], cv->plan.stride[1],
                                                    cv->plan.dilation[0], cv->plan.dilation[1],
                                                    CUDNN_CROSS_CORRELATION, cv->plan.compute_type))
             != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnSetConvolutionMathType (cv->conv, cv->plan.math_type))
             != CUDNN_STATUS_SUCCESS)
    {
      g_warning ("%s on cuda:%d: cuDNN refused the descriptors: %s", op, ctx->device_index,
                 dnn.cudnnGetErrorString (st));
      conv_clear (cv);
      return FALSE;
    }
  DL_CUDA_CHECK (cudaMemGetInfo (&free_bytes, &total_bytes));
  cv->workspace_limit = dl_cuda_workspace_limit (free_bytes);
  return TRUE;
}

/* cuDNN's ranked algorithms of one kind, copied into DlCudaAlgoChoices */
#define ALGO_CHOICES(perf, n, out)                                                                 \
  G_STMT_START                                                                                     \
  {                                                                                                \
    for (int i_ = 0; i_ < (n); i_++)                                                               \
      (out)[i_] = (DlCudaAlgoChoice){ (int)(perf)[i_].algo, (perf)[i_].status, (perf)[i_].memory,  \
                                      (perf)[i_].determinism, (perf)[i_].mathType };               \
  }                                                                                                \
  G_STMT_END

/* up to this many ranked algorithms are asked for */
#define MAX_ALGOS 16

/* Picks the algorithm from cuDNN's ranked @choices (see
 * dl_cuda_pick_algo) and takes its workspace from the device's allocator
 * into *ws (*ws_bytes); when there is no room, the best algorithm that
 * needs none (or @fallback) with *ws NULL. */
static int
choose (DlBackendContext *ctx,
        const Conv *cv,
        const DlCudaAlgoChoice *choices,
        int n,
        int fallback,
        gpointer *ws,
        size_t *ws_bytes)
{
  int algo
      = dl_cuda_pick_algo (choices, n, cv->plan.math_type, cv->workspace_limit, fallback, ws_bytes);

  *ws = NULL;
  if (*ws_bytes == 0 || (*ws = ctx->backend->raw_alloc (ctx, *ws_bytes)))
    return algo;
  return dl_cuda_pick_algo (choices, n, cv->plan.math_type, 0, fallback, ws_bytes);
}

static void
workspace_free (DlBackendContext *ctx, gpointer ws, size_t bytes)
{
  if (ws)
    ctx->backend->raw_free (ctx, ws, bytes);
}

/* ---- slots ------------------------------------------------------------------ */

void
dl_cuda_conv2d_forward (DlBackendContext *ctx, const DlConvArgs *a, DlDType dtype)
{
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void *one = dtype == DL_DTYPE_FLOAT64 ? (const void *)&one_d : (const void *)&one_f;
  const void *zero = dtype == DL_DTYPE_FLOAT64 ? (const void *)&zero_d : (const void *)&zero_f;
  cudnnConvolutionFwdAlgoPerf_t perf[MAX_ALGOS];
  DlCudaAlgoChoice choices[MAX_ALGOS];
  int n_perf = 0, algo;
  size_t ws_bytes;
  gpointer ws;
  Conv cv;

  if (!conv_init (&cv, ctx, a, dtype, "conv2d_forward"))
    return;
  DNN_CHECK (dnn.cudnnGetConvolutionForwardAlgorithm_v7 (cv.handle, cv.x, cv.w, cv.conv, cv.y,
                                                         MAX_ALGOS, &n_perf, perf));
  ALGO_CHOICES (perf, n_perf, choices);
  algo = choose (ctx, &cv, choices, n_perf, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws,
                 &ws_bytes);
  DNN_CHECK (dnn.cudnnConvolutionForward (cv.handle, one, cv.x, a->x, cv.w, a->weight, cv.conv,
                                          (cudnnConvolutionFwdAlgo_t)algo, ws, ws_bytes, zero, cv.y,
                                          a->y));
  if (a->bias)
    DNN_CHECK (dnn.cudnnAddTensor (cv.handle, one, cv.bias, a->bias, one, cv.y, a->y));
  workspace_free (ctx, ws, ws_bytes);
  conv_clear (&cv);
}

void
dl_cuda_conv2d_backward (DlBackendContext *ctx, const DlConvArgs *a, DlDType dtype)
{
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void *one = dtype == DL_DTYPE_FLOAT64 ? (const void *)&one_d : (const void *)&one_f;
  const void *zero = dtype == DL_DTYPE_FLOAT64 ? (const void *)&zero_d : (const void *)&zero_f;
  DlCudaAlgoChoice choices[MAX_ALGOS];
  int n_perf = 0, algo;
  size_t ws_bytes;
  gpointer ws;
  Conv cv;

  if (!conv_init (&cv, ctx, a, dtype, "conv2d_backward"))
    return;
  if (a->dx)
    {
      cudnnConvolutionBwdDataAlgoPerf_t perf[MAX_ALGOS];

      DNN_CHECK (dnn.cudnnGetConvolutionBackwardDataAlgorithm_v7 (cv.handle, cv.w, cv.y, cv.conv,
                                                                  cv.x, MAX_ALGOS, &n_perf, perf));
      ALGO_CHOICES (perf, n_perf, choices);
      algo = choose (ctx, &cv, choices, n_perf, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, &ws, &ws_bytes);
      DNN_CHECK (dnn.cudnnConvolutionBackwardData (cv.handle, one, cv.w, a->weight, cv.y, a->dy,
                                                   cv.conv, (cudnnConvolutionBwdDataAlgo_t)algo, ws,
                                                   ws_bytes, zero, cv.x, a->dx));
      workspace_free (ctx, ws, ws_bytes);
    }
  if (a->dweight)
    {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[MAX_ALGOS];

      DNN_CHECK (dnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7 (
          cv.handle, cv.x, cv.y, cv.conv, cv.w, MAX_ALGOS, &n_perf, perf));
      ALGO_CHOICES (perf, n_perf, choices);
      algo
          = choose (ctx, &cv, choices, n_perf, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, &ws, &ws_bytes);
      DNN_CHECK (dnn.cudnnConvolutionBackwardFilter (cv.handle, one, cv.x, a->x, cv.y, a->dy,
                                                     cv.conv, (cudnnConvolutionBwdFilterAlgo_t)algo,
                                                     ws, ws_bytes, zero, cv.w, a->dweight));
      workspace_free (ctx, ws, ws_bytes);
    }
  if (a->dbias)
    DNN_CHECK (
        dnn.cudnnConvolutionBackwardBias (cv.handle, one, cv.y, a->dy, zero, cv.bias, a->dbias));
  conv_clear (&cv);
}

/* ---- installation ---------------------------------------------------------- */

void
dl_cuda_dnn_install (DlBackend *backend)
{
  g_autoptr (GError) error = NULL;

  if (!load_cudnn (&error))
    {
      g_debug ("the CUDA module's convolutions: %s", error->message);
      return;
    }
  backend->conv2d_forward = dl_cuda_conv2d_forward;
  backend->conv2d_backward = dl_cuda_conv2d_backward;
}
