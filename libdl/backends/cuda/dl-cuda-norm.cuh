/* dl-cuda-norm.cuh: the per-thread work of the CUDA module's norm_forward
 * and norm_backward slots (dl-cuda-norm.cu), inline functions that nvcc
 * compiles for the device and g++ for the host (tests/c/test-cuda-norm.cpp
 * compares them with the CPU backend's slots).
 *
 * The formulas are dl-cpu-norm.c's (see there), sums in double:
 *   a set: the m elements that share statistics, a channel over the batch
 *     (DL_NORM_BATCH, c sets) or a sample's group of channels
 *     (DL_NORM_GROUP, n groups sets, contiguous)
 *   mean = sum x / m, var = sum (x - mean)^2 / m, rstd = 1 / sqrt (var + eps)
 *   y = x scale + shift, scale = rstd w, shift = b - mean scale
 *   dx = rstd (w dy - mean (w dy) - xhat mean (w dy xhat)) in training,
 *   w rstd dy for batch norm in eval mode; dweight = sum dy xhat, dbias =
 *   sum dy per channel.
 * One thread computes one set's statistics (or sums), one element's
 * output, or one channel's parameter gradients; the sums run in the
 * elements' order, as the CPU's do, but not in its eight lanes, so they
 * agree to rounding, not bit for bit.
 *
 Where cuDNN is found, batch norm's forward and its training backward go
 * to cuDNN's cudnnBatchNormalization* calls instead (dl-cuda-dnn.c; which
 * ones: dl_cuda_batch_norm_plan in dl-cuda-dnn-plan.h). These kernels run
 * group and layer norm, batch norm's gradient in eval mode, a backward
 * without dx, what cuDNN's limits refuse (eps below CUDNN_BN_MIN_EPSILON,
 * sizes beyond int) and everything on a machine without cuDNN; the cuDNN
 * slot's eval forward still takes rstd from dl_cuda_norm_stats.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-cuda-kernels.cuh"

/* the number of sets and their size */
DL_HD void
dl_cuda_norm_sets (const DlNormArgs &a, int64_t *n_sets, int64_t *m)
{
  if (a.kind == DL_NORM_BATCH)
    {
      *n_sets = a.c;
      *m = a.n * a.s;
    }
  else
    {
      *n_sets = a.n * a.groups;
      *m = a.c / a.groups * a.s;
    }
}

/* the index in x of element k of set q */
DL_HD int64_t
dl_cuda_norm_at (const DlNormArgs &a, int64_t q, int64_t k)
{
  if (a.kind == DL_NORM_BATCH)
    return ((k / a.s) * a.c + q) * a.s + k % a.s;
  return q * (a.c / a.groups * a.s) + k;
}

/* the set and the channel of element i of x */
DL_HD void
dl_cuda_norm_where (const DlNormArgs &a, int64_t i, int64_t *q, int64_t *ch)
{
  const int64_t row = i / a.s;

  *ch = row % a.c;
  *q = a.kind == DL_NORM_BATCH ? *ch : (row / a.c) * a.groups + *ch / (a.c / a.groups);
}

/* the statistics of set q: mean, rstd (and var) written in training,
 * rstd from the given var otherwise */
template <typename T>
DL_HD void
dl_cuda_norm_stats (const DlNormArgs &a, int64_t q)
{
  const T *x = (const T *)a.x;
  int64_t n_sets, m;

  dl_cuda_norm_sets (a, &n_sets, &m);
  if (a.kind == DL_NORM_GROUP || a.training)
    {
      double sum = 0, sq = 0;
      T mean;

      for (int64_t k = 0; k < m; k++)
        sum += x[dl_cuda_norm_at (a, q, k)];
      mean = (T)(sum / m);
      for (int64_t k = 0; k < m; k++)
        {
          T d = x[dl_cuda_norm_at (a, q, k)] - mean;
          sq += (double)d * d;
        }
      ((T *)a.mean)[q] = mean;
      if (a.var && a.kind == DL_NORM_BATCH)
        ((T *)a.var)[q] = (T)(sq / m);
      ((T *)a.rstd)[q] = (T)(1.0 / sqrt (sq / m + a.eps));
    }
  else
    ((T *)a.rstd)[q] = (T)(1.0 / sqrt ((double)((const T *)a.var)[q] + a.eps));
}

/* element i of y, from its set's statistics; layer norm (group norm with
 * s 1) in the CPU's form, (x - mean) rstd w + b, which keeps a set of one
 * element (x - mean = 0) exact */
template <typename T>
DL_HD void
dl_cuda_norm_apply (const DlNormArgs &a, int64_t i)
{
  const T *w = (const T *)a.weight, *b = (const T *)a.bias, x = ((const T *)a.x)[i];
  int64_t q, ch;
  T mean, rstd, scale, shift;

  dl_cuda_norm_where (a, i, &q, &ch);
  mean = ((const T *)a.mean)[q];
  rstd = ((const T *)a.rstd)[q];
  if (a.kind == DL_NORM_GROUP && a.s == 1 && (w || b))
    {
      T v = (x - mean) * rstd;

      if (w)
        v = v * w[ch];
      ((T *)a.y)[i] = b ? v + b[ch] : v;
      return;
    }
  scale = rstd * (w ? w[ch] : (T)1);
  shift = (b ? b[ch] : (T)0) - mean * scale;
  ((T *)a.y)[i] = x * scale + shift;
}

/* set q's sums for dx: sums[2 q] = sum w dy, sums[2 q + 1] = sum w dy xhat */
template <typename T>
DL_HD void
dl_cuda_norm_dx_sums (const DlNormArgs &a, int64_t q, double *sums)
{
  const T *x = (const T *)a.x, *dy = (const T *)a.dy, *w = (const T *)a.weight;
  const double mean = ((const T *)a.mean)[q], rstd = ((const T *)a.rstd)[q];
  double sg = 0, sgx = 0;
  int64_t n_sets, m;

  dl_cuda_norm_sets (a, &n_sets, &m);
  for (int64_t k = 0; k < m; k++)
    {
      const int64_t i = dl_cuda_norm_at (a, q, k);
      const double g = (double)dy[i] * (w ? (double)w[(i / a.s) % a.c] : 1.0);

      sg += g;
      sgx += g * ((x[i] - mean) * rstd);
    }
  sums[2 * q] = sg;
  sums[2 * q + 1] = sgx;
}

/* element i of dx; sums: dl_cuda_norm_dx_sums's (unused in eval mode) */
template <typename T>
DL_HD void
dl_cuda_norm_dx (const DlNormArgs &a, const double *sums, int64_t i)
{
  const T *x = (const T *)a.x, *dy = (const T *)a.dy, *w = (const T *)a.weight;
  int64_t q, ch, n_sets, m;
  double rstd, g;

  dl_cuda_norm_where (a, i, &q, &ch);
  dl_cuda_norm_sets (a, &n_sets, &m);
  rstd = ((const T *)a.rstd)[q];
  g = (double)dy[i] * (w ? (double)w[ch] : 1.0);
  if (a.kind == DL_NORM_BATCH && !a.training)
    ((T *)a.dx)[i] = (T)(g * rstd);
  else
    {
      const double xhat = (x[i] - (double)((const T *)a.mean)[q]) * rstd;

      ((T *)a.dx)[i] = (T)(rstd * (g - sums[2 * q] / m - xhat * sums[2 * q + 1] / m));
    }
}

/* channel ch's dweight (sum dy xhat) and dbias (sum dy), each nullable */
template <typename T>
DL_HD void
dl_cuda_norm_param_grads (const DlNormArgs &a, int64_t ch)
{
  const T *x = (const T *)a.x, *dy = (const T *)a.dy;
  double sdy = 0, sdyx = 0;

  for (int64_t b = 0; b < a.n; b++)
    for (int64_t j = 0; j < a.s; j++)
      {
        const int64_t i = (b * a.c + ch) * a.s + j;
        int64_t q, c2;

        dl_cuda_norm_where (a, i, &q, &c2);
        sdy += dy[i];
        sdyx += (double)dy[i] * ((x[i] - (double)((const T *)a.mean)[q]) * ((const T *)a.rstd)[q]);
      }
  if (a.dweight)
    ((T *)a.dweight)[ch] = (T)sdyx;
  if (a.dbias)
    ((T *)a.dbias)[ch] = (T)sdy;
}
