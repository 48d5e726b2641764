/* dl-cuda-dnn-plan.h: what the cuDNN slots (dl-cuda-dnn.c) decide before
 * they call cuDNN, as functions that need no GPU and no cuDNN library (only
 * its header's types): the descriptors' sizes and strides for a
 * DlConvArgs, the data and compute types of a dtype, and which algorithm
 * to run from cuDNN's ranked list. tests/c/test-cuda-dnn.c checks them.
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
  F (cudnnAddTensor)

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

G_END_DECLS
