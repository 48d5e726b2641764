/* dl-cuda-attention.cuh: the per-row work of the CUDA module's
 * attention_forward and attention_backward slots (dl-cuda-attention.cu),
 * inline functions that nvcc compiles for the device and g++ for the host
 * (tests/c/test-cuda-nn.cpp compares them with the CPU backend's slots).
 *
 * The formulas are the CPU's (dl-cpu-attention-body.h): scores x = q k^T,
 * then the scale (or, with no mask and a positive scale, the scale applied
 * inside the exponentials: exp (scale x - m)), the mask, the causal -inf;
 * P = exp (f x - lse) times the dropout scale of dl_philox_attention_scale.
 * A row with nothing to attend gives NaN (output and lse), no keys at all
 * gives zeros and lse -inf.
 *
 * One thread per query row (b, i) for the forward, in two passes over the
 * keys (the maximum, then the exponentials' sum and the output row, which
 * the thread owns); the backward in gather form without atomics: one
 * thread per query row computes D_i = dO_i . O_i, dq_i and the row of
 * dmask, one thread per key row (b, j) computes dk_j and dv_j summing over
 * the queries. Correctness over speed: no tiling, each thread walks its
 * rows' dot products itself.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "backends/dl-philox.h"
#include "dl-cuda-kernels.cuh"

/* the element offset of problem @b in a tensor with batch strides @bs */
DL_HD int64_t
dl_cuda_att_offset (const DlAttentionArgs &a, const int64_t *bs, int64_t b)
{
  int64_t off = 0;

  for (int d = a.batch_ndim - 1; d >= 0; d--)
    {
      off += (b % a.batch_shape[d]) * bs[d];
      b /= a.batch_shape[d];
    }
  return off;
}

/* problem b's q, k and v and its mask's offset: what each of its scores
 * reads */
template <typename T> struct DlCudaAttProblem
{
  int64_t b;
  const T *q, *k, *v;
  int64_t mask_off;
};

template <typename T>
DL_HD DlCudaAttProblem<T>
dl_cuda_att_problem (const DlAttentionArgs &a, int64_t b)
{
  DlCudaAttProblem<T> pb;

  pb.b = b;
  pb.q = (const T *)a.q + dl_cuda_att_offset (a, a.q_bs, b);
  pb.k = (const T *)a.k + dl_cuda_att_offset (a, a.k_bs, b);
  pb.v = (const T *)a.v + dl_cuda_att_offset (a, a.v_bs, b);
  pb.mask_off = a.mask ? dl_cuda_att_offset (a, a.mask_bs, b) : 0;
  return pb;
}

/* the factor inside the exponentials: the scale when no mask follows it
 * and it keeps the scores' order, else 1 (the CPU's exp_factor) */
template <typename T>
DL_HD T
dl_cuda_att_exp_factor (const DlAttentionArgs &a)
{
  return !a.mask && a.scale > 0 ? (T)a.scale : (T)1;
}

/* score (b, i, j) of problem @pb: q_i . k_j, scaled unless the
 * exponentials do it, plus the mask, -inf past the causal diagonal */
template <typename T>
DL_HD T
dl_cuda_att_score (const DlAttentionArgs &a, const DlCudaAttProblem<T> &pb, int64_t i, int64_t j)
{
  const T *q = pb.q + i * a.q_rs, *k = pb.k + j * a.k_rs;
  T x = 0;

  for (int64_t c = 0; c < a.e; c++)
    x += q[c] * k[c];
  if (dl_cuda_att_exp_factor<T> (a) == 1 && a.scale != 1)
    x *= (T)a.scale;
  if (a.mask)
    {
      const int64_t at = pb.mask_off + i * a.mask_rs + j * a.mask_cs;

      if (a.mask_is_bool)
        x = ((const uint8_t *)a.mask)[at] ? x : -(T)INFINITY;
      else
        x += ((const T *)a.mask)[at];
    }
  if (a.causal && j > i)
    x = -(T)INFINITY;
  return x;
}

/* the dropout scale of probability (b, i, j): 1 without dropout */
template <typename T>
DL_HD T
dl_cuda_att_keep (const DlAttentionArgs &a, int64_t b, int64_t i, int64_t j)
{
  if (!(a.dropout_p > 0))
    return 1;
  return (T)dl_philox_attention_scale (a.seed, a.offset, a.s, b * a.l + i, j, a.dropout_p);
}

/* the forward of query row @row = b l + i: out[row] and lse[row] */
template <typename T>
DL_HD void
dl_cuda_att_forward_row (const DlAttentionArgs &a, int64_t row)
{
  const int64_t b = row / a.l, i = row % a.l;
  const DlCudaAttProblem<T> pb = dl_cuda_att_problem<T> (a, b);
  T *o = (T *)a.out + row * a.ev;
  T *lse = (T *)a.lse + row;
  const T f = dl_cuda_att_exp_factor<T> (a);
  T mx = -(T)INFINITY, m, lsum = 0;

  for (int64_t c = 0; c < a.ev; c++)
    o[c] = 0;
  if (a.s == 0)
    {
      *lse = -(T)INFINITY; /* softmax over no keys: an empty sum */
      return;
    }
  for (int64_t j = 0; j < a.s; j++)
    {
      const T x = dl_cuda_att_score<T> (a, pb, i, j);

      mx = x > mx ? x : mx; /* NaN ignored: the sum shows it */
    }
  m = mx * f;
  if (m != -(T)INFINITY)
    for (int64_t j = 0; j < a.s; j++)
      {
        const T pj = dl_exp (dl_cuda_att_score<T> (a, pb, i, j) * f - m);
        const T w = pj * dl_cuda_att_keep<T> (a, b, i, j);
        const T *vj = pb.v + j * a.v_rs;

        lsum += pj;
        if (a.causal && j > i)
          break; /* the rest is masked: P is 0 */
        for (int64_t c = 0; c < a.ev; c++)
          o[c] += w * vj[c];
      }
  if (!(lsum > 0))
    {
      /* all -inf (or NaN): softmax gives NaN */
      for (int64_t c = 0; c < a.ev; c++)
        o[c] = (T)NAN;
      *lse = (T)NAN;
      return;
    }
  {
    const T inv = 1 / lsum;

    for (int64_t c = 0; c < a.ev; c++)
      o[c] *= inv;
  }
  *lse = m + dl_log (lsum);
}

/* P (b, i, j) of the forward, from its lse */
template <typename T>
DL_HD T
dl_cuda_att_prob (const DlAttentionArgs &a, const DlCudaAttProblem<T> &pb, int64_t i, int64_t j)
{
  const T lse = ((const T *)a.lse)[pb.b * a.l + i];

  return dl_exp (dl_cuda_att_score<T> (a, pb, i, j) * dl_cuda_att_exp_factor<T> (a) - lse);
}

/* dS (b, i, j) = P (dP Z - D_i), dP = dO_i . v_j: the gradient of the
 * score, before the scale */
template <typename T>
DL_HD T
dl_cuda_att_dscore (const DlAttentionArgs &a,
                    const DlCudaAttProblem<T> &pb,
                    const T *dvec,
                    int64_t i,
                    int64_t j)
{
  const int64_t b = pb.b;
  const T *v = pb.v + j * a.v_rs;
  const T *dout = (const T *)a.dout + (b * a.l + i) * a.ev;
  const T p = dl_cuda_att_prob<T> (a, pb, i, j);
  T dp = 0;

  for (int64_t c = 0; c < a.ev; c++)
    dp += dout[c] * v[c];
  if (a.dropout_p > 0)
    return p * (dp * dl_cuda_att_keep<T> (a, b, i, j) - dvec[b * a.l + i]);
  return p * (dp - dvec[b * a.l + i]);
}

/* D_row = dO_row . O_row, into dvec[row] */
template <typename T>
DL_HD void
dl_cuda_att_backward_d (const DlAttentionArgs &a, T *dvec, int64_t row)
{
  const T *o = (const T *)a.out + row * a.ev, *dout = (const T *)a.dout + row * a.ev;
  T acc = 0;

  for (int64_t c = 0; c < a.ev; c++)
    acc += dout[c] * o[c];
  dvec[row] = acc;
}

/* query row @row = b l + i of the backward: dq[row] and dmask's row, each
 * when non-NULL; needs every dvec */
template <typename T>
DL_HD void
dl_cuda_att_backward_query (const DlAttentionArgs &a, const T *dvec, int64_t row)
{
  const int64_t i = row % a.l;
  const DlCudaAttProblem<T> pb = dl_cuda_att_problem<T> (a, row / a.l);
  T *dq = a.dq ? (T *)a.dq + row * a.e : NULL;
  T *dmask = a.dmask ? (T *)a.dmask + row * a.s : NULL;
  const T scale = (T)a.scale;

  if (dq)
    for (int64_t c = 0; c < a.e; c++)
      dq[c] = 0;
  for (int64_t j = 0; j < a.s; j++)
    {
      T ds;

      if (a.causal && j > i)
        {
          /* masked: P is 0 */
          if (dmask)
            dmask[j] = 0;
          continue;
        }
      ds = dl_cuda_att_dscore<T> (a, pb, dvec, i, j);
      if (dmask)
        dmask[j] = ds;
      ds *= scale;
      if (dq)
        {
          const T *kj = pb.k + j * a.k_rs;

          for (int64_t c = 0; c < a.e; c++)
            dq[c] += ds * kj[c];
        }
    }
}

/* key row @krow = b s + j of the backward: dk[krow] and dv[krow], each
 * when non-NULL; needs every dvec */
template <typename T>
DL_HD void
dl_cuda_att_backward_key (const DlAttentionArgs &a, const T *dvec, int64_t krow)
{
  const int64_t b = krow / a.s, j = krow % a.s;
  const DlCudaAttProblem<T> pb = dl_cuda_att_problem<T> (a, b);
  T *dk = a.dk ? (T *)a.dk + krow * a.e : NULL;
  T *dv = a.dv ? (T *)a.dv + krow * a.ev : NULL;
  const T scale = (T)a.scale;

  if (dk)
    for (int64_t c = 0; c < a.e; c++)
      dk[c] = 0;
  if (dv)
    for (int64_t c = 0; c < a.ev; c++)
      dv[c] = 0;
  for (int64_t i = a.causal ? j : 0; i < a.l; i++)
    {
      if (dv)
        {
          const T w = dl_cuda_att_prob<T> (a, pb, i, j) * dl_cuda_att_keep<T> (a, b, i, j);
          const T *dout = (const T *)a.dout + (b * a.l + i) * a.ev;

          for (int64_t c = 0; c < a.ev; c++)
            dv[c] += w * dout[c];
        }
      if (dk)
        {
          const T ds = dl_cuda_att_dscore<T> (a, pb, dvec, i, j) * scale;
          const T *qi = pb.q + i * a.q_rs;

          for (int64_t c = 0; c < a.e; c++)
            dk[c] += ds * qi[c];
        }
    }
}
