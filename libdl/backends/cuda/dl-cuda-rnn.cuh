/* dl-cuda-rnn.cuh: the pointwise passes of the CUDA module's rnn_forward
 * and rnn_backward slots (dl-cuda-rnn.cu, ordered by dl-cuda-rnn-plan.h),
 * inline functions that nvcc compiles for the device and g++ for the host
 * (tests/c/test-cuda-nn.cpp runs them in the plan and compares with the
 * CPU backend's slots).
 *
 * One thread a (row, unit) pair of a step: the formulas of the CPU's
 * rnn_cells and rnn_cells_backward (dl-cpu-rnn.c) for that unit, which
 * read and write only that unit's gates, cells and states.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-cuda-kernels.cuh"

DL_HD float
dl_cuda_rnn_sigmoid (float v)
{
  return 1.0f / (1.0f + dl_exp (-v));
}

DL_HD double
dl_cuda_rnn_sigmoid (double v)
{
  return 1.0 / (1.0 + dl_exp (-v));
}

/* the CPU's float tanh: from one exponential, odd */
DL_HD float
dl_cuda_rnn_tanh (float v)
{
  const float e = dl_exp (-2.0f * dl_fabs (v)), r = (1.0f - e) / (1.0f + e);

  return v < 0 ? -r : r;
}

DL_HD double
dl_cuda_rnn_tanh (double v)
{
  return dl_tanh (v);
}

/* element @k of the summed biases [G h] and, k < h, of bhn [h] */
template <typename T>
DL_HD void
dl_cuda_rnn_bias_elem (const DlRnnArgs &a, T *bias, T *bhn, int64_t k)
{
  const int64_t H = a.hidden_size;
  const T *b_ih = (const T *)a.b_ih, *b_hh = (const T *)a.b_hh;
  const bool hn = a.cell == DL_RNN_CELL_GRU && k >= 2 * H;

  bias[k] = (b_ih ? b_ih[k] : (T)0) + (b_hh && !hn ? b_hh[k] : (T)0);
  if (hn)
    bhn[k - 2 * H] = b_hh ? b_hh[k] : (T)0;
}

/* unit @e = r h + j of the step whose rows start at @o: gh its hidden
 * projection [bs, G h], h and c the running states */
template <typename T>
DL_HD void
dl_cuda_rnn_cell (const DlRnnArgs &a,
                  int64_t o,
                  const T *gh,
                  const T *bias,
                  const T *bhn,
                  T *h,
                  T *c,
                  int64_t e)
{
  const int64_t H = a.hidden_size, P = a.proj_size, HO = P ? P : H;
  const int64_t G = a.cell == DL_RNN_CELL_LSTM ? 4 : a.cell == DL_RNN_CELL_GRU ? 3 : 1;
  const int64_t r = e / H, j = e % H;
  T *g = (T *)a.gates + (o + r) * G * H;
  const T *q = gh + r * G * H;
  T *yr = (T *)a.y + (o + r) * HO, *hr = h + r * HO;

  if (a.cell == DL_RNN_CELL_LSTM)
    {
      T *cr = c + r * H, *sr = (T *)a.cells + (o + r) * H;
      T i = dl_cuda_rnn_sigmoid (g[j] + q[j] + bias[j]);
      T f = dl_cuda_rnn_sigmoid (g[H + j] + q[H + j] + bias[H + j]);
      T gg = dl_cuda_rnn_tanh (g[2 * H + j] + q[2 * H + j] + bias[2 * H + j]);
      T og = dl_cuda_rnn_sigmoid (g[3 * H + j] + q[3 * H + j] + bias[3 * H + j]);
      T cn = f * cr[j] + i * gg;
      T mv;

      g[j] = i;
      g[H + j] = f;
      g[2 * H + j] = gg;
      g[3 * H + j] = og;
      cr[j] = cn;
      sr[j] = cn;
      mv = og * dl_cuda_rnn_tanh (cn);
      if (P)
        ((T *)a.m)[(o + r) * H + j] = mv;
      else
        yr[j] = hr[j] = mv;
    }
  else if (a.cell == DL_RNN_CELL_GRU)
    {
      T rr = dl_cuda_rnn_sigmoid (g[j] + q[j] + bias[j]);
      T z = dl_cuda_rnn_sigmoid (g[H + j] + q[H + j] + bias[H + j]);
      T hn = q[2 * H + j] + bhn[j];
      T n = dl_cuda_rnn_tanh (g[2 * H + j] + bias[2 * H + j] + rr * hn);
      T hv = n + z * (hr[j] - n);

      g[j] = rr;
      g[H + j] = z;
      g[2 * H + j] = n;
      ((T *)a.cells)[(o + r) * H + j] = hn;
      yr[j] = hr[j] = hv;
    }
  else
    {
      T v = g[j] + q[j] + bias[j];
      T hv = a.cell == DL_RNN_CELL_RELU ? (v > 0 ? v : (T)0) : dl_cuda_rnn_tanh (v);

      g[j] = hv;
      yr[j] = hr[j] = hv;
    }
}

/* unit @e = r h + j of the backward of the step whose rows start at @o:
 * dh the running gradient of the states (a GRU leaves the direct part of
 * the previous state's there), dm that of o tanh (c), dc that of the
 * cells; writes the gates' gradients into dgx (and dgh) */
template <typename T>
DL_HD void
dl_cuda_rnn_cell_backward (const DlRnnArgs &a, int64_t o, T *dh, const T *dm, T *dc, int64_t e)
{
  const int64_t H = a.hidden_size, P = a.proj_size, HO = P ? P : H;
  const int64_t G = a.cell == DL_RNN_CELL_LSTM ? 4 : a.cell == DL_RNN_CELL_GRU ? 3 : 1;
  const int64_t r = e / H, j = e % H;
  const T *g = (const T *)a.gates + (o + r) * G * H;
  T *d = (T *)a.dgx + (o + r) * G * H;

  if (a.cell == DL_RNN_CELL_LSTM)
    {
      const T cr = ((const T *)a.cells)[(o + r) * H + j];
      const T cp = ((const T *)a.cprev)[(o + r) * H + j];
      const T dmv = dm[r * H + j];
      T i = g[j], f = g[H + j], gg = g[2 * H + j], og = g[3 * H + j];
      T tc = dl_cuda_rnn_tanh (cr);
      T dct = dc[r * H + j] + dmv * og * (1 - tc * tc);

      d[j] = dct * gg * i * (1 - i);
      d[H + j] = dct * cp * f * (1 - f);
      d[2 * H + j] = dct * i * (1 - gg * gg);
      d[3 * H + j] = dmv * tc * og * (1 - og);
      dc[r * H + j] = dct * f;
    }
  else if (a.cell == DL_RNN_CELL_GRU)
    {
      const T hn = ((const T *)a.cells)[(o + r) * H + j];
      const T hp = ((const T *)a.hprev)[(o + r) * HO + j];
      T *eg = (T *)a.dgh + (o + r) * G * H;
      T rr = g[j], z = g[H + j], n = g[2 * H + j];
      T dhv = dh[r * HO + j];
      T dnp = dhv * (1 - z) * (1 - n * n);
      T dr = dnp * hn * rr * (1 - rr);
      T dz = dhv * (hp - n) * z * (1 - z);

      d[j] = eg[j] = dr;
      d[H + j] = eg[H + j] = dz;
      d[2 * H + j] = dnp;
      eg[2 * H + j] = dnp * rr;
      dh[r * HO + j] = dhv * z;
    }
  else
    {
      const T hv = g[j], dhv = dh[r * HO + j];

      d[j] = a.cell == DL_RNN_CELL_RELU ? (hv > 0 ? dhv : (T)0) : dhv * (1 - hv * hv);
    }
}

/* column @col of the column sums of src [rows, cols] */
template <typename T>
DL_HD void
dl_cuda_rnn_colsum_elem (T *dst, const T *src, int64_t rows, int64_t cols, int64_t col)
{
  T acc = 0;

  for (int64_t r = 0; r < rows; r++)
    acc += src[r * cols + col];
  dst[col] = acc;
}
