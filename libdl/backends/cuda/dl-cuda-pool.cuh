/* dl-cuda-pool.cuh: the per-element work of the CUDA module's max pooling
 * slots (dl-cuda-pool.cu), inline functions that nvcc compiles for the
 * device and g++ for the host (tests/c/test-cuda-pool.cpp compares them
 * with the CPU backend's max_pool2d and max_pool2d_backward).
 *
 * Max pooling with indices is a kernel of its own, not cuDNN's: the slot
 * returns each maximum's position (PyTorch's indices), which cuDNN's
 * pooling does not give, and its backward reads those positions, where
 * cuDNN's would need the input and output again. Only a forward without
 * indices (nothing recorded for a gradient) in a geometry cuDNN's pooling
 * has goes to cuDNN (dl-cuda-dnn.c, dl_cuda_max_pool_plan); this kernel
 * runs the rest, with or without indices.
 *
 * The forward is the CPU's loop for one output: the window's taps inside
 * the image, rows then columns, the first maximum kept and the first NaN
 * winning. The backward gathers rather than scatters: input element e
 * sums, in the order of the outputs, the gradients of the outputs whose
 * window holds e and whose maximum was there; the same additions in the
 * same order as the CPU's scatter, without atomics.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-cuda-kernels.cuh"

/* the taps [*lo, *hi) of a window starting at @start (k taps @d apart)
 * that lie in [0, size) */
DL_HD void
dl_cuda_taps_inside (int64_t start, int64_t k, int64_t d, int64_t size, int64_t *lo, int64_t *hi)
{
  *lo = start >= 0 ? 0 : (-start + d - 1) / d;
  *hi = start + (k - 1) * d < size ? k : (size - start + d - 1) / d;
  if (*hi < *lo)
    *hi = *lo;
}

/* output @o (of n c out_h out_w, row major) of max pooling: the maximum
 * into out[o], its flat position in its plane into idx[o] (-1 for a
 * window with no tap inside) unless idx is NULL */
template <typename T>
DL_HD void
dl_cuda_max_pool_elem (const DlConvGeometry &g, const T *image, T *out, int64_t *idx, int64_t o)
{
  const int64_t l = g.out_h * g.out_w, p = o / l, y = (o % l) / g.out_w, x = o % g.out_w;
  const T *src = image + p * g.h * g.w;
  const int64_t iy0 = y * g.sh - g.ph, ix0 = x * g.sw - g.pw;
  int64_t i_lo, i_hi, j_lo, j_hi, where = -1;
  T best = 0;

  dl_cuda_taps_inside (iy0, g.kh, g.dh, g.h, &i_lo, &i_hi);
  dl_cuda_taps_inside (ix0, g.kw, g.dw, g.w, &j_lo, &j_hi);
  if (i_lo < i_hi && j_lo < j_hi)
    {
      where = (iy0 + i_lo * g.dh) * g.w + ix0 + j_lo * g.dw;
      best = src[where];
    }
  for (int64_t i = i_lo; i < i_hi; i++)
    {
      const int64_t r = (iy0 + i * g.dh) * g.w + ix0;

      for (int64_t j = j_lo; j < j_hi; j++)
        {
          T v = src[r + j * g.dw];

          if (v > best || (v != v && best == best))
            {
              best = v;
              where = r + j * g.dw;
            }
        }
    }
  out[o] = best;
  if (idx)
    idx[o] = where;
}

/* the outputs [*lo, *hi) along one axis whose window (k taps @d apart,
 * stride @s, padding @pad) can hold input position @e */
DL_HD void
dl_cuda_windows_over (int64_t e, int64_t k, int64_t s, int64_t pad, int64_t d, int64_t n_out,
                      int64_t *lo, int64_t *hi)
{
  /* window y starts at y s - pad and ends at y s - pad + (k - 1) d */
  const int64_t first = e + pad - (k - 1) * d, last = e + pad;

  *lo = first <= 0 ? 0 : (first + s - 1) / s;
  *hi = last < 0 ? 0 : last / s + 1;
  if (*hi > n_out)
    *hi = n_out;
  if (*hi < *lo)
    *hi = *lo;
}

/* input element @e (of n c h w) of max pooling's gradient */
template <typename T>
DL_HD void
dl_cuda_max_pool_backward_elem (const DlConvGeometry &g,
                                const T *grad_out,
                                const int64_t *idx,
                                T *grad_in,
                                int64_t e)
{
  const int64_t hw = g.h * g.w, l = g.out_h * g.out_w, p = e / hw, pos = e % hw;
  const T *go = grad_out + p * l;
  const int64_t *at = idx + p * l;
  int64_t y_lo, y_hi, x_lo, x_hi;
  T acc = 0;

  dl_cuda_windows_over (pos / g.w, g.kh, g.sh, g.ph, g.dh, g.out_h, &y_lo, &y_hi);
  dl_cuda_windows_over (pos % g.w, g.kw, g.sw, g.pw, g.dw, g.out_w, &x_lo, &x_hi);
  for (int64_t y = y_lo; y < y_hi; y++)
    for (int64_t x = x_lo; x < x_hi; x++)
      if (at[y * g.out_w + x] == pos)
        acc += go[y * g.out_w + x];
  grad_in[e] = acc;
}
