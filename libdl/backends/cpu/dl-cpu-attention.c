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

#ifdef DL_CPU_ISA_LEVELS
#include <immintrin.h>
#endif

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

#ifdef DL_CPU_ISA_LEVELS
/* philox_blocks with AVX2: eight blocks at a time, each 32-bit word in a
 * 64-bit lane (vpmuludq gives the full 32 x 32 -> 64 products) */
DL_CPU_TARGET_V3 static void
philox_blocks_v3 (guint64 seed, guint64 counter, gint64 n, guint32 *restrict bits)
{
  const __m256i m0 = _mm256_set1_epi64x (PHILOX_M0), m1 = _mm256_set1_epi64x (PHILOX_M1);
  const __m256i low = _mm256_set1_epi64x (0xffffffff);

  for (gint64 b0 = 0; b0 < n; b0 += 8)
    {
      __m256i ca = _mm256_add_epi64 (_mm256_set1_epi64x ((gint64)(counter + (guint64)b0)),
                                     _mm256_setr_epi64x (0, 1, 2, 3));
      __m256i cb = _mm256_add_epi64 (ca, _mm256_set1_epi64x (4));
      __m256i a0 = _mm256_and_si256 (ca, low), a1 = _mm256_srli_epi64 (ca, 32);
      __m256i b0v = _mm256_and_si256 (cb, low), b1 = _mm256_srli_epi64 (cb, 32);
      __m256i a2 = _mm256_setzero_si256 (), a3 = a2, b2 = a2, b3 = a2;
      guint32 k0 = (guint32)seed, k1 = (guint32)(seed >> 32);
      guint64 w[8][4];

      for (gint r = 0; r < 10; r++)
        {
          const __m256i kk0 = _mm256_set1_epi64x (k0), kk1 = _mm256_set1_epi64x (k1);
          __m256i pa0 = _mm256_mul_epu32 (a0, m0), pa1 = _mm256_mul_epu32 (a2, m1);
          __m256i pb0 = _mm256_mul_epu32 (b0v, m0), pb1 = _mm256_mul_epu32 (b2, m1);

          a0 = _mm256_xor_si256 (_mm256_xor_si256 (_mm256_srli_epi64 (pa1, 32), a1), kk0);
          a2 = _mm256_xor_si256 (_mm256_xor_si256 (_mm256_srli_epi64 (pa0, 32), a3), kk1);
          a1 = _mm256_and_si256 (pa1, low);
          a3 = _mm256_and_si256 (pa0, low);
          b0v = _mm256_xor_si256 (_mm256_xor_si256 (_mm256_srli_epi64 (pb1, 32), b1), kk0);
          b2 = _mm256_xor_si256 (_mm256_xor_si256 (_mm256_srli_epi64 (pb0, 32), b3), kk1);
          b1 = _mm256_and_si256 (pb1, low);
          b3 = _mm256_and_si256 (pb0, low);
          k0 += PHILOX_W0;
          k1 += PHILOX_W1;
        }
      _mm256_storeu_si256 ((__m256i *)w[0], a0);
      _mm256_storeu_si256 ((__m256i *)w[1], a1);
      _mm256_storeu_si256 ((__m256i *)w[2], a2);
      _mm256_storeu_si256 ((__m256i *)w[3], a3);
      _mm256_storeu_si256 ((__m256i *)w[4], b0v);
      _mm256_storeu_si256 ((__m256i *)w[5], b1);
      _mm256_storeu_si256 ((__m256i *)w[6], b2);
      _mm256_storeu_si256 ((__m256i *)w[7], b3);
      for (gint j = 0; j < 8 && b0 + j < n; j++)
        for (gint k = 0; k < 4; k++)
          bits[(b0 + j) * 4 + k] = (guint32)w[j / 4 * 4 + k][j % 4];
    }
}
#endif

/* The four words of each Philox block counter .. counter + n - 1 of the
 * stream @seed into bits[4 n], as dl_cpu_philox() computes them. */
static void
philox_blocks (guint64 seed, guint64 counter, gint64 n, guint32 *bits)
{
#ifdef DL_CPU_ISA_LEVELS
  if (dl_cpu_isa >= DL_CPU_ISA_V3)
    {
      philox_blocks_v3 (seed, counter, n, bits);
      return;
    }
#endif
  for (gint64 b = 0; b < n; b++)
    dl_cpu_philox (seed, counter + (guint64)b, bits + b * 4);
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
