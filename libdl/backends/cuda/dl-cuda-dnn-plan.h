/* dl-cuda-dnn-plan.h: what the cuDNN slots (dl-cuda-dnn.c) decide before
 * they call cuDNN, as functions that need no GPU and no cuDNN library (only
 * its header's types): the descriptors' sizes and strides for a
 * DlConvArgs, the data and compute types of a dtype, and which algorithm
 * to run from cuDNN's ranked list; which batch norms and max poolings
 * cuDNN can run with libdl's contract (the rest stay with the module's own
 * kernels), their descriptors, the scratch buffers a batch norm needs and
 * how its biased variance is derived. tests/c/test-cuda-dnn.c checks them.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <cudnn.h>
#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

/* Every cuDNN function the slots call, which dl-cuda-dnn.c looks up in
 * the library it opens (the host test looks them up too) */
#define DL_CUDNN_FUNCTIONS(F)                                                                      \
  F (cudnnGetVersion)                                                                              \
  F (cudnnGetErrorString)                                                                          \
  F (cudnnCreate)                                                                                  \
  F (cudnnDestroy)                                                                                 \
  F (cudnnSetStream)                                                                               \
  F (cudnnCreateTensorDescriptor)                                                                  \
  F (cudnnDestroyTensorDescriptor)                                                                 \
  F (cudnnSetTensorNdDescriptor)                                                                   \
  F (cudnnCreateFilterDescriptor)                                                                  \
  F (cudnnDestroyFilterDescriptor)                                                                 \
  F (cudnnSetFilter4dDescriptor)                                                                   \
  F (cudnnCreateConvolutionDescriptor)                                                             \
  F (cudnnDestroyConvolutionDescriptor)                                                            \
  F (cudnnSetConvolution2dDescriptor)                                                              \
  F (cudnnSetConvolutionMathType)                                                                  \
  F (cudnnGetConvolutionForwardAlgorithm_v7)                                                       \
  F (cudnnGetConvolutionBackwardDataAlgorithm_v7)                                                  \
  F (cudnnGetConvolutionBackwardFilterAlgorithm_v7)                                                \
  F (cudnnConvolutionForward)                                                                      \
  F (cudnnConvolutionBackwardData)                                                                 \
  F (cudnnConvolutionBackwardFilter)                                                               \
  F (cudnnConvolutionBackwardBias)                                                                 \
  F (cudnnAddTensor)                                                                               \
  F (cudnnSetTensor)                                                                               \
  F (cudnnScaleTensor)                                                                             \
  F (cudnnBatchNormalizationForwardTraining)                                                       \
  F (cudnnBatchNormalizationForwardInference)                                                      \
  F (cudnnBatchNormalizationBackward)                                                              \
  F (cudnnCreatePoolingDescriptor)                                                                 \
  F (cudnnDestroyPoolingDescriptor)                                                                \
  F (cudnnSetPooling2dDescriptor)                                                                  \
  F (cudnnPoolingForward)

/* A 2-d convolution as cuDNN's descriptors describe it: x [n, c, h, w],
 * the filter [o, c, kh, kw], y [n, o, out_h, out_w], all contiguous
 * (NCHW) with the element strides given, the bias [1, o, 1, 1] */
typedef struct
{
  int x[4], x_strides[4];
  int w[4];
  int y[4], y_strides[4];
  int bias[4], bias_strides[4];
  int pad[2], stride[2], dilation[2];
  cudnnDataType_t data_type;
  cudnnDataType_t compute_type;
  cudnnMathType_t math_type;
} DlCudaConvPlan;

/* contiguous NCHW strides of @dims */
static inline void
dl_cuda_nchw_strides (const int dims[4], int strides[4])
{
  strides[3] = 1;
  for (int d = 2; d >= 0; d--)
    strides[d] = strides[d + 1] * dims[d + 1];
}

/* cuDNN's data type of @dtype into *type: float32 and float64 only */
static inline gboolean
dl_cuda_data_type (DlDType dtype, cudnnDataType_t *type)
{
  if (dtype != DL_DTYPE_FLOAT32 && dtype != DL_DTYPE_FLOAT64)
    return FALSE;
  *type = dtype == DL_DTYPE_FLOAT64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  return TRUE;
}

/* whether @v fits cuDNN's int dimensions */
static inline gboolean
dl_cuda_fits_int (gint64 v)
{
  return v >= 0 && v <= G_MAXINT;
}

/* The plan of a convolution of @dtype over geometry @g with @o output
 * channels; FALSE with *why set when cuDNN cannot run it: a dtype without
 * a cuDNN type, a size beyond int (or a tensor of 2^31 elements or more),
 * or an output size that cuDNN's formula would not give (the slot's
 * geometry is torch's: out = (in + 2 pad - dilation (k - 1) - 1) / stride
 * + 1, rounded down). float32 computes in float32 on the FMA units, never
 * TF32 (CUDNN_FMA_MATH), as the CPU does; float64 in float64. */
static inline gboolean
dl_cuda_conv_plan (const DlConvGeometry *g,
                   gint64 o,
                   DlDType dtype,
                   DlCudaConvPlan *p,
                   const char **why)
{
  const gint64 sizes[] = { g->n,  g->c,  g->h,  g->w,  g->kh,    g->kw,    g->sh, g->sw,
                           g->ph, g->pw, g->dh, g->dw, g->out_h, g->out_w, o };
  const gint64 numel[]
      = { g->n * g->c * g->h * g->w, o * g->c * g->kh * g->kw, g->n * o * g->out_h * g->out_w };

  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        p->data_type = CUDNN_DATA_FLOAT;
        p->compute_type = CUDNN_DATA_FLOAT;
        p->math_type = CUDNN_FMA_MATH;
        break;
      case DL_DTYPE_FLOAT64:
        p->data_type = CUDNN_DATA_DOUBLE;
        p->compute_type = CUDNN_DATA_DOUBLE;
        p->math_type = CUDNN_DEFAULT_MATH;
        break;
      default:
        *why = "only float32 and float64 convolutions go to cuDNN";
        return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (!dl_cuda_fits_int (sizes[i]))
      {
        *why = "a size or window parameter beyond cuDNN's int";
        return FALSE;
      }
  for (gsize i = 0; i < G_N_ELEMENTS (numel); i++)
    if (!dl_cuda_fits_int (numel[i]))
      {
        *why = "a tensor of 2^31 elements or more";
        return FALSE;
      }
  if (g->sh < 1 || g->sw < 1 || g->dh < 1 || g->dw < 1 || g->kh < 1 || g->kw < 1)
    {
      *why = "a stride, dilation or kernel size below 1";
      return FALSE;
    }
  if (g->out_h != (g->h + 2 * g->ph - g->dh * (g->kh - 1) - 1) / g->sh + 1
      || g->out_w != (g->w + 2 * g->pw - g->dw * (g->kw - 1) - 1) / g->sw + 1)
    {
      *why = "an output size other than cuDNN's";
      return FALSE;
    }
  p->x[0] = (int)g->n;
  p->x[1] = (int)g->c;
  p->x[2] = (int)g->h;
  p->x[3] = (int)g->w;
  p->w[0] = (int)o;
  p->w[1] = (int)g->c;
  p->w[2] = (int)g->kh;
  p->w[3] = (int)g->kw;
  p->y[0] = (int)g->n;
  p->y[1] = (int)o;
  p->y[2] = (int)g->out_h;
  p->y[3] = (int)g->out_w;
  p->bias[0] = 1;
  p->bias[1] = (int)o;
  p->bias[2] = 1;
  p->bias[3] = 1;
  dl_cuda_nchw_strides (p->x, p->x_strides);
  dl_cuda_nchw_strides (p->y, p->y_strides);
  dl_cuda_nchw_strides (p->bias, p->bias_strides);
  p->pad[0] = (int)g->ph;
  p->pad[1] = (int)g->pw;
  p->stride[0] = (int)g->sh;
  p->stride[1] = (int)g->sw;
  p->dilation[0] = (int)g->dh;
  p->dilation[1] = (int)g->dw;
  *why = NULL;
  return TRUE;
}

/* One entry of cuDNN's ranked list of algorithms (the fields that the
 * three cudnn*AlgoPerf_t types share) */
typedef struct
{
  int algo;
  cudnnStatus_t status;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t math_type;
} DlCudaAlgoChoice;

/* The algorithm to run from cuDNN's list @choices (best first, as
 * cudnnGet*Algorithm_v7 ranks them): the first that cuDNN can run
 * (status success) with the plan's math type, within @workspace_limit
 * bytes, deterministic ones first (a training step gives the same
 * gradients each run, as the CPU's); without one, @fallback (the
 * algorithm that needs no workspace), with *memory 0. */
static inline int
dl_cuda_pick_algo (const DlCudaAlgoChoice *choices,
                   int n,
                   cudnnMathType_t math_type,
                   size_t workspace_limit,
                   int fallback,
                   size_t *memory)
{
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++)
      {
        const DlCudaAlgoChoice *c = &choices[i];

        if (c->status != CUDNN_STATUS_SUCCESS || c->memory > workspace_limit
            || c->math_type != math_type)
          continue;
        if (pass == 0 && c->determinism != CUDNN_DETERMINISTIC)
          continue;
        *memory = c->memory;
        return c->algo;
      }
  *memory = 0;
  return fallback;
}

/* the most workspace a convolution's algorithm may take: the larger of 64
 * MiB and an eighth of the free device memory @free_bytes */
static inline size_t
dl_cuda_workspace_limit (size_t free_bytes)
{
  const size_t floor_bytes = (size_t)64 << 20;

  return MAX (floor_bytes, free_bytes / 8);
}

/* ---- batch norm ------------------------------------------------------------ */

/* A batch norm (DlNormArgs of kind DL_NORM_BATCH) as cuDNN's spatial batch
 * norm (CUDNN_BATCHNORM_SPATIAL) describes it: x, y, dy and dx [n, c, s,
 * 1] contiguous (x viewed [n, c, s]: the statistics of a channel run over
 * n and s, cuDNN's N, H and W); weight, bias, mean, rstd, var and the
 * parameters' gradients [1, c, 1, 1], in the data type (cuDNN wants them
 * in double when x is double, in float otherwise: the slot's are x's
 * dtype). */
typedef struct
{
  int x[4], x_strides[4];
  int param[4], param_strides[4];
  cudnnDataType_t data_type;
  /* what turns cuDNN's running variance, written with an exponential
   * average factor of 1 (the batch's unbiased variance, sum (x - mean)^2
   * / (m - 1)), into the contract's biased variance (sum / m): (m - 1) /
   * m, m = n s (see dl_cuda_batch_norm_var_scale) */
  double var_scale;
} DlCudaBatchNormPlan;

/* The factor that turns the unbiased variance of @m values into the
 * biased one: (m - 1) / m.
 *
 * Why var comes from cuDNN's running variance and not from its rstd: cuDNN
 * gives the batch's variance only as the running variance (unbiased, and
 * blended with the old one unless the factor is 1) and as
 * resultSaveInvVariance = 1 / sqrt (var + eps). Taking var = 1 / rstd^2 -
 * eps cancels where var is small against eps (a constant channel's 0
 * comes back as rounding noise, possibly negative), while scaling the
 * running variance is two roundings from the CPU's value: a relative
 * error of a few units in the last place, and 0 stays 0. */
static inline double
dl_cuda_batch_norm_var_scale (gint64 m)
{
  return (double)(m - 1) / (double)m;
}

/* The plan of a batch norm's forward (@backward FALSE) or backward of
 * @dtype; FALSE with *why set where the module's own kernels run it
 * instead: group and layer norm, a dtype other than float32 and float64,
 * an eps below CUDNN_BN_MIN_EPSILON (or NaN), a size beyond int (or 2^31
 * elements or more), an empty batch; in training a channel of fewer than
 * two values (cuDNN's unbiased variance divides by m - 1); for the
 * backward, eval mode (the gradient is an affine map, dx = w rstd dy,
 * which cuDNN's backward, computing the batch's statistics, does not
 * give) and a call without dx (the own kernel writes dweight and dbias
 * without an x-sized scratch for cuDNN's dx). */
static inline gboolean
dl_cuda_batch_norm_plan (const DlNormArgs *a,
                         DlDType dtype,
                         gboolean backward,
                         DlCudaBatchNormPlan *p,
                         const char **why)
{
  if (a->kind != DL_NORM_BATCH)
    {
      *why = "group and layer norm: cuDNN's batch norm has no groups";
      return FALSE;
    }
  if (!dl_cuda_data_type (dtype, &p->data_type))
    {
      *why = "only float32 and float64 batch norms go to cuDNN";
      return FALSE;
    }
  if (!(a->eps >= CUDNN_BN_MIN_EPSILON))
    {
      *why = "an eps below cuDNN's CUDNN_BN_MIN_EPSILON";
      return FALSE;
    }
  if (a->n == 0 || a->c == 0 || a->s == 0)
    {
      *why = "an empty batch";
      return FALSE;
    }
  if (!dl_cuda_fits_int (a->n) || !dl_cuda_fits_int (a->c) || !dl_cuda_fits_int (a->s))
    {
      *why = "a size beyond cuDNN's int";
      return FALSE;
    }
  /* n c < 2^62: no overflow */
  if (a->n * a->c > G_MAXINT / a->s)
    {
      *why = "a tensor of 2^31 elements or more";
      return FALSE;
    }
  if (a->training && a->n * a->s < 2)
    {
      *why = "a channel of one value in training";
      return FALSE;
    }
  if (backward && !a->training)
    {
      *why = "the gradient in eval mode, an affine map";
      return FALSE;
    }
  if (backward && a->dx == NULL)
    {
      *why = "a backward without dx";
      return FALSE;
    }
  p->x[0] = (int)a->n;
  p->x[1] = (int)a->c;
  p->x[2] = (int)a->s;
  p->x[3] = 1;
  p->param[0] = 1;
  p->param[1] = (int)a->c;
  p->param[2] = 1;
  p->param[3] = 1;
  dl_cuda_nchw_strides (p->x, p->x_strides);
  dl_cuda_nchw_strides (p->param, p->param_strides);
  p->var_scale = dl_cuda_batch_norm_var_scale (a->n * a->s);
  *why = NULL;
  return TRUE;
}

/* The per-channel buffers that cuDNN's batch norm calls take */
typedef enum
{
  DL_CUDA_BN_SCALE,        /* bnScale: weight, or ones */
  DL_CUDA_BN_BIAS,         /* bnBias (forward): bias, or zeros */
  DL_CUDA_BN_RUNNING_MEAN, /* training forward with var: cuDNN's running mean, unused */
  DL_CUDA_BN_RUNNING_VAR,  /* training forward with var: var, set to 0 first */
  DL_CUDA_BN_DSCALE,       /* backward: dweight, or scratch */
  DL_CUDA_BN_DBIAS,        /* backward: dbias, or scratch */
  DL_CUDA_BN_N_BUFFERS
} DlCudaBnBuffer;

/* where a buffer is: the slot's own pointer, none (NULL to cuDNN), or
 * block k >= 0 of the scratch */
#define DL_CUDA_BN_CALLER (-1)
#define DL_CUDA_BN_NONE (-2)

/* The scratch that cuDNN's batch norm needs beyond the slot's buffers:
 * n_blocks blocks of block_elems elements (c, rounded up to 64 elements:
 * each block starts 256-byte aligned); where each buffer is; and the value
 * each is set to before the call (fill, where filled[] is TRUE) */
typedef struct
{
  int n_blocks;
  gint64 block_elems;
  int where[DL_CUDA_BN_N_BUFFERS];
  gboolean filled[DL_CUDA_BN_N_BUFFERS];
  double fill[DL_CUDA_BN_N_BUFFERS];
} DlCudaBnScratch;

static inline void
dl_cuda_bn_scratch_take (DlCudaBnScratch *s, DlCudaBnBuffer b, gboolean filled, double fill)
{
  s->where[b] = s->n_blocks++;
  s->filled[b] = filled;
  s->fill[b] = fill;
}

/* The buffers of @a's batch norm forward (@backward FALSE) or backward.
 * cuDNN takes no NULL scale, bias or parameter gradient: a NULL weight
 * is a block of ones, a NULL bias (forward) one of zeros, a NULL dweight
 * or dbias (backward) a block that cuDNN writes and nobody reads. In a
 * training forward with var, cuDNN's running mean and variance are asked
 * for with an exponential average factor of 1: the variance goes into
 * var (scaled afterwards, see DlCudaBatchNormPlan), the mean into a
 * block; both are set to 0 first, since cuDNN computes new * 1 + old *
 * (1 - 1) and the old contents of uninitialised memory may be NaN. A
 * training forward without var passes no running buffers (cuDNN then
 * skips them). The eval forward's running statistics are the slot's mean
 * and var. */
static inline void
dl_cuda_batch_norm_scratch (const DlNormArgs *a, gboolean backward, DlCudaBnScratch *s)
{
  s->n_blocks = 0;
  s->block_elems = (a->c + 63) / 64 * 64;
  for (int b = 0; b < DL_CUDA_BN_N_BUFFERS; b++)
    {
      s->where[b] = DL_CUDA_BN_NONE;
      s->filled[b] = FALSE;
      s->fill[b] = 0;
    }
  s->where[DL_CUDA_BN_SCALE] = DL_CUDA_BN_CALLER;
  if (a->weight == NULL)
    dl_cuda_bn_scratch_take (s, DL_CUDA_BN_SCALE, TRUE, 1);
  if (!backward)
    {
      s->where[DL_CUDA_BN_BIAS] = DL_CUDA_BN_CALLER;
      if (a->bias == NULL)
        dl_cuda_bn_scratch_take (s, DL_CUDA_BN_BIAS, TRUE, 0);
      if (a->training && a->var)
        {
          dl_cuda_bn_scratch_take (s, DL_CUDA_BN_RUNNING_MEAN, TRUE, 0);
          s->where[DL_CUDA_BN_RUNNING_VAR] = DL_CUDA_BN_CALLER;
          s->filled[DL_CUDA_BN_RUNNING_VAR] = TRUE;
          s->fill[DL_CUDA_BN_RUNNING_VAR] = 0;
        }
      return;
    }
  s->where[DL_CUDA_BN_DSCALE] = DL_CUDA_BN_CALLER;
  s->where[DL_CUDA_BN_DBIAS] = DL_CUDA_BN_CALLER;
  if (a->dweight == NULL)
    dl_cuda_bn_scratch_take (s, DL_CUDA_BN_DSCALE, FALSE, 0);
  if (a->dbias == NULL)
    dl_cuda_bn_scratch_take (s, DL_CUDA_BN_DBIAS, FALSE, 0);
}

/* ---- max pooling ------------------------------------------------------------ */

/* A max pooling (the max_pool2d slot's DlConvGeometry) as cuDNN's 2-d
 * pooling describes it: x [n, c, h, w] and y [n, c, out_h, out_w]
 * contiguous, the window, symmetric padding and stride; the maximum
 * mode and NaN propagation (a window holding NaN gives NaN: PyTorch's NaN
 * wins) */
typedef struct
{
  int x[4], x_strides[4];
  int y[4], y_strides[4];
  int window[2], pad[2], stride[2];
  cudnnDataType_t data_type;
  cudnnPoolingMode_t mode;
  cudnnNanPropagation_t nan_opt;
} DlCudaPoolPlan;

/* The plan of a max pooling of @dtype over @g; FALSE with *why set where
 * the module's own kernel runs it instead: indices wanted (@with_indices:
 * cuDNN's pooling gives the maxima, not where they were, which libdl's
 * backward reads), a dtype other than float32 and float64, a dilated
 * window (cuDNN's pooling has none), padding beyond half the window (a
 * window could lie in the padding alone; the ops layer refuses that
 * anyway), an output size other than the floor formula's, (h + 2 ph - kh)
 * / sh + 1 (ceil mode's extra windows: cuDNN's padding is symmetric, so
 * it cannot add them), a size beyond int (or 2^31 elements or more) and
 * an empty batch. The values are the own kernel's, up to the sign of a
 * zero maximum (max (-0, +0) is either). */
static inline gboolean
dl_cuda_max_pool_plan (const DlConvGeometry *g,
                       gboolean with_indices,
                       DlDType dtype,
                       DlCudaPoolPlan *p,
                       const char **why)
{
  const gint64 sizes[]
      = { g->n, g->c, g->h, g->w, g->kh, g->kw, g->sh, g->sw, g->ph, g->pw, g->out_h, g->out_w };

  if (with_indices)
    {
      *why = "indices wanted: cuDNN's pooling gives no argmax";
      return FALSE;
    }
  if (!dl_cuda_data_type (dtype, &p->data_type))
    {
      *why = "only float32 and float64 poolings go to cuDNN";
      return FALSE;
    }
  if (g->dh != 1 || g->dw != 1)
    {
      *why = "a dilated window: cuDNN's pooling has no dilation";
      return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (!dl_cuda_fits_int (sizes[i]))
      {
        *why = "a size or window parameter beyond cuDNN's int";
        return FALSE;
      }
  if (g->kh < 1 || g->kw < 1 || g->sh < 1 || g->sw < 1)
    {
      *why = "a stride or window size below 1";
      return FALSE;
    }
  if (2 * g->ph > g->kh || 2 * g->pw > g->kw)
    {
      *why = "padding beyond half the window";
      return FALSE;
    }
  if (g->n == 0 || g->c == 0 || g->h == 0 || g->w == 0 || g->out_h == 0 || g->out_w == 0)
    {
      *why = "an empty batch";
      return FALSE;
    }
  /* each factor < 2^31: the products of two < 2^62 */
  if (g->n * g->c > G_MAXINT / (g->h * g->w) || g->n * g->c > G_MAXINT / (g->out_h * g->out_w))
    {
      *why = "a tensor of 2^31 elements or more";
      return FALSE;
    }
  if (g->h + 2 * g->ph < g->kh || g->w + 2 * g->pw < g->kw
      || g->out_h != (g->h + 2 * g->ph - g->kh) / g->sh + 1
      || g->out_w != (g->w + 2 * g->pw - g->kw) / g->sw + 1)
    {
      *why = "an output size other than cuDNN's (ceil mode's extra windows)";
      return FALSE;
    }
  p->x[0] = (int)g->n;
  p->x[1] = (int)g->c;
  p->x[2] = (int)g->h;
  p->x[3] = (int)g->w;
  p->y[0] = (int)g->n;
  p->y[1] = (int)g->c;
  p->y[2] = (int)g->out_h;
  p->y[3] = (int)g->out_w;
  dl_cuda_nchw_strides (p->x, p->x_strides);
  dl_cuda_nchw_strides (p->y, p->y_strides);
  p->window[0] = (int)g->kh;
  p->window[1] = (int)g->kw;
  p->pad[0] = (int)g->ph;
  p->pad[1] = (int)g->pw;
  p->stride[0] = (int)g->sh;
  p->stride[1] = (int)g->sw;
  p->mode = CUDNN_POOLING_MAX_DETERMINISTIC;
  p->nan_opt = CUDNN_PROPAGATE_NAN;
  *why = NULL;
  return TRUE;
}

G_END_DECLS
