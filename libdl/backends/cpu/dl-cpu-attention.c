/* dl-cpu-attention.c: fused scaled dot product attention (see
 * DlAttentionArgs), FlashAttention-style.
 *
 * Forward, for each problem b of the batch and each block of ATT_BQ query
 * rows (the tasks the threads share), one pass over the keys in blocks of
 * ATT_BK with an online softmax:
 *   S = scale Q_i K_j^T (+ mask)          a small GEMM
 *   m' = max (m, rowmax S),  P = exp (S - m')
 *   l = l exp (m - m') + rowsum P,  O = O exp (m - m') + dropout (P) V_j
 * and at the end O /= l, lse = m + log l. No [l, s] matrix is made; the
 * backward gets O and lse. A causal block past the diagonal is skipped.
 * Backward (FlashAttention-2), for each problem (the threads share the
 * batch), the probabilities recomputed block by block from lse:
 *   D = rowsum (dO o O)
 *   P = exp (scale Q_i K_j^T + mask - lse),  Z = the dropout scales
 *   dV_j += (P o Z)^T dO_i,  dP = (dO_i V_j^T) o Z,  dS = P o (dP - D)
 *   dQ_i += scale dS K_j,  dK_j += scale dS^T Q_i  (dmask = dS)
 * Rows with nothing to attend give NaN as softmax of all -inf does.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <omp.h>

#include "dl-cpu-private.h"

/* query rows per task, keys per block: a 64 x 256 score block (64 KiB of
 * float32) stays in L2 beside the Q rows and the K and V blocks */
#define ATT_BQ 64
#define ATT_BK 256

/* work (l s (e + ev) multiply-adds) below which one thread does it all */
#define ATT_PARALLEL_MIN (64.0 * 64 * 64)

/* the offset of problem @b of @a in a tensor with batch strides @bs */
static inline gint64
batch_offset (const DlAttentionArgs *a, const gint64 *bs, gint64 b)
{
  gint64 off = 0;

  for (gint d = a->batch_ndim - 1; d >= 0; d--)
    {
      off += (b % a->batch_shape[d]) * bs[d];
      b /= a->batch_shape[d];
    }
  return off;
}

/* the uniform of element j of the dropout row whose first block is
 * @counter, as DlAttentionArgs says */
static inline float
dropout_uniform (guint64 seed, guint64 counter, gint64 j)
{
  guint32 x[4];

  dl_cpu_philox (seed, counter + j / 4, x);
  return (x[j % 4] >> 8) * (1.0f / 16777216.0f);
}

#define T float
#define SFX(name) name##_f32
#define EXP dl_expf
#define LOG logf
#include "dl-cpu-attention-body.h"
#undef T
#undef SFX
#undef EXP
#undef LOG

#define T double
#define SFX(name) name##_f64
#define EXP exp
#define LOG log
#include "dl-cpu-attention-body.h"
#undef T
#undef SFX
#undef EXP
#undef LOG

void
dl_cpu_attention_forward (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype)
{
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (dtype == DL_DTYPE_FLOAT64)
    attention_forward_f64 (args);
  else
    attention_forward_f32 (args);
}

void
dl_cpu_attention_backward (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype)
{
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (dtype == DL_DTYPE_FLOAT64)
    attention_backward_f64 (args);
  else
    attention_backward_f32 (args);
}

void
dl_cpu_attention_dropout_mask (DlBackendContext *ctx,
                               const DlAttentionArgs *args,
                               void *mask,
                               DlDType dtype)
{
  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (dtype == DL_DTYPE_FLOAT64)
    attention_dropout_mask_f64 (args, mask);
  else
    attention_dropout_mask_f32 (args, mask);
}
