/* dl-cuda-dnn.c: the CUDA module's slots through cuDNN: convolution
 * (conv2d_forward, conv2d_backward), batch norm (norm_forward,
 * norm_backward) and max pooling without indices (max_pool2d).
 *
 * cuDNN is opened at run time (libcudnn.so.9, through GModule: from the
 * loader's path, then from the toolkit's folder meson found), not
 * linked: the module loads, and every other slot works, on a machine with
 * the CUDA driver and no cuDNN. dl_cuda_dnn_install() fills the slots
 * into the backend when the library and every function used here are
 * found; otherwise the convolution slots stay NULL (libdl reports conv2d's
 * fused path as not available on 'cuda'), the norm and pooling slots stay
 * the module's own kernels (dl-cuda-norm.cu, dl-cuda-pool.cu), and the
 * reason ("cuDNN not found: ...") is logged once as a debug message
 * (G_MESSAGES_DEBUG=Dl).
 *
 * Batch norm and max pooling go to cuDNN only where it gives libdl's
 * contract (dl_cuda_batch_norm_plan, dl_cuda_max_pool_plan in
 * dl-cuda-dnn-plan.h): batch norm's forward (training and eval) and its
 * training backward; a max pooling that wants no indices, without
 * dilation or ceil mode's extra windows. Everything else, and anything
 * for which cuDNN cannot make a handle or descriptors (before any work is
 * queued), runs the own kernel. Group and layer norm never reach cuDNN.
 *
 * The API is cuDNN's descriptor ("legacy") API: cudnnConvolutionForward,
 * BackwardData, BackwardFilter and BackwardBias with the _v7 heuristics,
 * cudnnBatchNormalization{ForwardTraining,ForwardInference,Backward},
 * cudnnPoolingForward. cuDNN 9 still ships it (in libcudnn_cnn and
 * libcudnn_ops, reached through the libcudnn.so.9 shim) and marks it
 * deprecated; it was chosen over the graph (backend descriptor) API
 * because each operation is a few calls whose semantics have not changed
 * since cuDNN 7, against about ten backend descriptors per operation to
 * build and finalise, which nothing here could run to check them: this
 * machine has no GPU. The calls live in this one file, behind the
 * function table below, so moving to the graph API later changes nothing
 * else.
 *
 * What the descriptors hold and which algorithm runs is decided by
 * dl-cuda-dnn-plan.h (host-tested). Each device has its handle, made on
 * its first cuDNN call; every call is queued on dl_cuda_current_stream
 * (ctx), and workspaces and scratch come from the device's caching
 * allocator for that stream (ctx->backend->raw_alloc), freed once the
 * calls are queued (the allocator reuses a block only for work queued
 * after them).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gmodule.h>

#include "dl-cuda-dnn-plan.h"
#include "dl-error.h"
#include "dl-cuda-dnn.h"
#include "dl-cuda-norm.h"
#include "dl-cuda-pool.h"
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

/* cuDNN's scaling factors alpha and beta: host values in double for
 * double data, in float otherwise */
static const void *
scalar_one (DlDType dtype)
{
  static const float one_f = 1;
  static const double one_d = 1;

  return dtype == DL_DTYPE_FLOAT64 ? (const void *)&one_d : (const void *)&one_f;
}

static const void *
scalar_zero (DlDType dtype)
{
  static const float zero_f = 0;
  static const double zero_d = 0;

  return dtype == DL_DTYPE_FLOAT64 ? (const void *)&zero_d : (const void *)&zero_f;
}

/* @v as the host value cuDNN reads for @dtype's data, stored in *s */
typedef union
{
  float f;
  double d;
} Scalar;

static const void *
scalar_of (DlDType dtype, double v, Scalar *s)
{
  if (dtype == DL_DTYPE_FLOAT64)
    {
      s->d = v;
      return &s->d;
    }
  s->f = (float)v;
  return &s->f;
}

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
  const void *one = scalar_one (dtype), *zero = scalar_zero (dtype);
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
  const void *one = scalar_one (dtype), *zero = scalar_zero (dtype);
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

/* ---- batch norm -------------------------------------------------------------- */

typedef struct
{
  DlCudaBatchNormPlan plan;
  DlCudaBnScratch scratch;
  cudnnHandle_t handle;
  cudnnTensorDescriptor_t x, param;
  /* each DlCudaBnBuffer's pointer, and the scratch they share */
  void *buf[DL_CUDA_BN_N_BUFFERS];
  gpointer block;
  size_t block_bytes;
} BatchNorm;

static void
batch_norm_clear (DlBackendContext *ctx, BatchNorm *bn)
{
  if (bn->x)
    dnn.cudnnDestroyTensorDescriptor (bn->x);
  if (bn->param)
    dnn.cudnnDestroyTensorDescriptor (bn->param);
  workspace_free (ctx, bn->block, bn->block_bytes);
}

/* The descriptors and buffers of @a's batch norm, the scratch filled as
 * dl_cuda_batch_norm_scratch says; FALSE where cuDNN does not take it
 * (the plan's refusals: silently) or cannot make a handle, descriptors or
 * scratch (logged), with nothing queued: the caller runs the own kernel */
static gboolean
batch_norm_init (BatchNorm *bn,
                 DlBackendContext *ctx,
                 const DlNormArgs *a,
                 DlDType dtype,
                 gboolean backward,
                 const char *op)
{
  const gsize elem = dtype == DL_DTYPE_FLOAT64 ? sizeof (double) : sizeof (float);
  /* the slot's own buffers (cuDNN takes const pointers for scale and
   * bias, which are only filled when they are scratch) */
  void *const caller[DL_CUDA_BN_N_BUFFERS] = {
    [DL_CUDA_BN_SCALE] = (void *)a->weight, [DL_CUDA_BN_BIAS] = (void *)a->bias,
    [DL_CUDA_BN_RUNNING_MEAN] = NULL,       [DL_CUDA_BN_RUNNING_VAR] = a->var,
    [DL_CUDA_BN_DSCALE] = a->dweight,       [DL_CUDA_BN_DBIAS] = a->dbias,
  };
  const char *why;
  cudnnStatus_t st;

  memset (bn, 0, sizeof *bn);
  if (!dl_cuda_batch_norm_plan (a, dtype, backward, &bn->plan, &why))
    return FALSE;
  dl_cuda_batch_norm_scratch (a, backward, &bn->scratch);
  if (!(bn->handle = get_handle (ctx)))
    return FALSE;
  if ((st = dnn.cudnnCreateTensorDescriptor (&bn->x)) != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnCreateTensorDescriptor (&bn->param)) != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnSetTensorNdDescriptor (bn->x, bn->plan.data_type, 4, bn->plan.x,
                                               bn->plan.x_strides))
             != CUDNN_STATUS_SUCCESS
      || (st = dnn.cudnnSetTensorNdDescriptor (bn->param, bn->plan.data_type, 4, bn->plan.param,
                                               bn->plan.param_strides))
             != CUDNN_STATUS_SUCCESS)
    {
      g_warning ("%s on cuda:%d: cuDNN refused the batch norm's descriptors: %s", op,
                 ctx->device_index, dnn.cudnnGetErrorString (st));
      batch_norm_clear (ctx, bn);
      return FALSE;
    }
  if (bn->scratch.n_blocks > 0)
    {
      bn->block_bytes = (size_t)bn->scratch.n_blocks * (size_t)bn->scratch.block_elems * elem;
      if (!(bn->block = ctx->backend->raw_alloc (ctx, bn->block_bytes)))
        {
          g_warning ("%s on cuda:%d: no room for %zu bytes of cuDNN scratch", op, ctx->device_index,
                     bn->block_bytes);
          bn->block_bytes = 0;
          batch_norm_clear (ctx, bn);
          return FALSE;
        }
    }
  for (int b = 0; b < DL_CUDA_BN_N_BUFFERS; b++)
    {
      const int where = bn->scratch.where[b];

      if (where == DL_CUDA_BN_NONE)
        bn->buf[b] = NULL;
      else if (where == DL_CUDA_BN_CALLER)
        bn->buf[b] = caller[b];
      else
        bn->buf[b] = (char *)bn->block + (gsize)where * (gsize)bn->scratch.block_elems * elem;
      if (bn->scratch.filled[b])
        {
          Scalar fill;

          DNN_CHECK (dnn.cudnnSetTensor (bn->handle, bn->param, bn->buf[b],
                                         scalar_of (dtype, bn->scratch.fill[b], &fill)));
        }
    }
  return TRUE;
}

/* @a's batch norm forward through cuDNN; FALSE, with nothing queued, where
 * the own kernel must run it */
static gboolean
batch_norm_forward (DlBackendContext *ctx, const DlNormArgs *a, DlDType dtype)
{
  const void *one = scalar_one (dtype), *zero = scalar_zero (dtype);
  BatchNorm bn;

  if (!batch_norm_init (&bn, ctx, a, dtype, FALSE, "norm_forward"))
    return FALSE;
  if (a->training)
    {
      Scalar scale;

      /* the batch's mean and rstd are cuDNN's saved mean and inverse
       * variance; var its running variance, written with factor 1, made
       * biased (DlCudaBatchNormPlan) */
      DNN_CHECK (dnn.cudnnBatchNormalizationForwardTraining (
          bn.handle, CUDNN_BATCHNORM_SPATIAL, one, zero, bn.x, a->x, bn.x, a->y, bn.param,
          bn.buf[DL_CUDA_BN_SCALE], bn.buf[DL_CUDA_BN_BIAS], 1.0, bn.buf[DL_CUDA_BN_RUNNING_MEAN],
          bn.buf[DL_CUDA_BN_RUNNING_VAR], a->eps, a->mean, a->rstd));
      if (a->var)
        DNN_CHECK (dnn.cudnnScaleTensor (bn.handle, bn.param, a->var,
                                         scalar_of (dtype, bn.plan.var_scale, &scale)));
    }
  else
    {
      /* rstd from the running variance (the own kernel: cuDNN's inference
       * call writes y alone), y from the running statistics */
      dl_cuda_norm_rstd (ctx, a, dtype);
      DNN_CHECK (dnn.cudnnBatchNormalizationForwardInference (
          bn.handle, CUDNN_BATCHNORM_SPATIAL, one, zero, bn.x, a->x, bn.x, a->y, bn.param,
          bn.buf[DL_CUDA_BN_SCALE], bn.buf[DL_CUDA_BN_BIAS], a->mean, a->var, a->eps));
    }
  batch_norm_clear (ctx, &bn);
  return TRUE;
}

/* @a's training backward through cuDNN, from the forward's mean and rstd;
 * FALSE, with nothing queued, where the own kernel must run it */
static gboolean
batch_norm_backward (DlBackendContext *ctx, const DlNormArgs *a, DlDType dtype)
{
  const void *one = scalar_one (dtype), *zero = scalar_zero (dtype);
  BatchNorm bn;

  if (!batch_norm_init (&bn, ctx, a, dtype, TRUE, "norm_backward"))
    return FALSE;
  DNN_CHECK (dnn.cudnnBatchNormalizationBackward (
      bn.handle, CUDNN_BATCHNORM_SPATIAL, one, zero, one, zero, bn.x, a->x, bn.x, a->dy, bn.x,
      a->dx, bn.param, bn.buf[DL_CUDA_BN_SCALE], bn.buf[DL_CUDA_BN_DSCALE],
      bn.buf[DL_CUDA_BN_DBIAS], a->eps, a->mean, a->rstd));
  batch_norm_clear (ctx, &bn);
  return TRUE;
}

void
dl_cuda_dnn_norm_forward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype)
{
  if (!batch_norm_forward (ctx, args, dtype))
    dl_cuda_norm_forward (ctx, args, dtype);
}

void
dl_cuda_dnn_norm_backward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype)
{
  if (!batch_norm_backward (ctx, args, dtype))
    dl_cuda_norm_backward (ctx, args, dtype);
}

/* ---- max pooling ---------------------------------------------------------------- */

/* @g's max pooling through cuDNN; FALSE, with nothing queued, where the
 * own kernel must run it */
static gboolean
max_pool_forward (DlBackendContext *ctx,
                  const DlConvGeometry *g,
                  const void *image,
                  void *out,
                  gboolean with_indices,
                  DlDType dtype)
{
  const void *one = scalar_one (dtype), *zero = scalar_zero (dtype);
  cudnnTensorDescriptor_t x = NULL, y = NULL;
  cudnnPoolingDescriptor_t pool = NULL;
  cudnnHandle_t handle;
  DlCudaPoolPlan plan;
  const char *why;
  cudnnStatus_t st;
  gboolean ok;

  if (!dl_cuda_max_pool_plan (g, with_indices, dtype, &plan, &why) || !(handle = get_handle (ctx)))
    return FALSE;
  ok = (st = dnn.cudnnCreateTensorDescriptor (&x)) == CUDNN_STATUS_SUCCESS
       && (st = dnn.cudnnCreateTensorDescriptor (&y)) == CUDNN_STATUS_SUCCESS
       && (st = dnn.cudnnCreatePoolingDescriptor (&pool)) == CUDNN_STATUS_SUCCESS
       && (st = dnn.cudnnSetTensorNdDescriptor (x, plan.data_type, 4, plan.x, plan.x_strides))
              == CUDNN_STATUS_SUCCESS
       && (st = dnn.cudnnSetTensorNdDescriptor (y, plan.data_type, 4, plan.y, plan.y_strides))
              == CUDNN_STATUS_SUCCESS
       && (st = dnn.cudnnSetPooling2dDescriptor (pool, plan.mode, plan.nan_opt, plan.window[0],
                                                 plan.window[1], plan.pad[0], plan.pad[1],
                                                 plan.stride[0], plan.stride[1]))
              == CUDNN_STATUS_SUCCESS;
  if (ok)
    DNN_CHECK (dnn.cudnnPoolingForward (handle, pool, one, x, image, zero, y, out));
  else
    g_warning ("max_pool2d on cuda:%d: cuDNN refused the pooling's descriptors: %s",
               ctx->device_index, dnn.cudnnGetErrorString (st));
  if (x)
    dnn.cudnnDestroyTensorDescriptor (x);
  if (y)
    dnn.cudnnDestroyTensorDescriptor (y);
  if (pool)
    dnn.cudnnDestroyPoolingDescriptor (pool);
  return ok;
}

void
dl_cuda_dnn_max_pool2d (DlBackendContext *ctx,
                        const DlConvGeometry *g,
                        const void *image,
                        void *out,
                        gint64 *indices,
                        DlDType dtype)
{
  if (!max_pool_forward (ctx, g, image, out, indices != NULL, dtype))
    dl_cuda_max_pool2d (ctx, g, image, out, indices, dtype);
}

/* ---- installation ---------------------------------------------------------- */

void
dl_cuda_dnn_install (DlBackend *backend)
{
  g_autoptr (GError) error = NULL;

  if (!load_cudnn (&error))
    {
      g_debug ("the CUDA module's convolutions, batch norm and max pooling: %s", error->message);
      return;
    }
  backend->conv2d_forward = dl_cuda_conv2d_forward;
  backend->conv2d_backward = dl_cuda_conv2d_backward;
  backend->norm_forward = dl_cuda_dnn_norm_forward;
  backend->norm_backward = dl_cuda_dnn_norm_backward;
  backend->max_pool2d = dl_cuda_dnn_max_pool2d;
}
