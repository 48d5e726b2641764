/* dl-cuda-conv.cuh: the per-element work of the CUDA module's im2col and
 * col2im slots (dl-cuda-conv.cu), inline functions that nvcc compiles for
 * the device and g++ for the host (tests/c/test-cuda-nn.cpp compares them
 * with the CPU backend's slots).
 *
 * im2col: one thread per element of the columns, reading the image
 * element its row (channel, tap) and position (y, x) see, or 0 in the
 * padding. col2im: one thread per image element, gathering the column
 * entries that read it: for each tap (i, j) the output position (y, x)
 * with y sh - ph + i dh = iy and x sw - pw + j dw = ix, when it exists.
 * No two threads write one element, so no atomics; the sums run over the
 * taps in the CPU's order (rows i, then columns j), as its scatter adds
 * them to each element.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-cuda-kernels.cuh"

/* element @e of the columns [n, c kh kw, out_h out_w] (counted in that
 * logical order; where it lies follows g's strides) */
template <typename T>
DL_HD void
dl_cuda_im2col_elem (const DlConvGeometry &g, const T *image, T *cols, int64_t e)
{
  const int64_t l = g.out_h * g.out_w, taps = g.kh * g.kw, rows = g.c * taps;
  const int64_t pos = e % l, r = (e / l) % rows, b = e / (l * rows);
  const int64_t ch = r / taps, i = (r % taps) / g.kw, j = r % g.kw;
  const int64_t y = pos / g.out_w, x = pos % g.out_w;
  const int64_t iy = y * g.sh - g.ph + i * g.dh, ix = x * g.sw - g.pw + j * g.dw;
  T v = 0;

  if (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w)
    v = image[((b * g.c + ch) * g.h + iy) * g.w + ix];
  cols[b * g.col_batch_stride + r * g.col_row_stride + pos] = v;
}

/* the output position along one axis whose tap @t (stride @s, padding
 * @p, dilation @d) reads input position @in, or -1 */
DL_HD int64_t
dl_cuda_conv_out_pos (int64_t in, int64_t t, int64_t s, int64_t p, int64_t d, int64_t n_out)
{
  const int64_t at = in + p - t * d;

  if (at < 0 || at % s != 0 || at / s >= n_out)
    return -1;
  return at / s;
}

/* image element @e of [n, c, h, w]: the sum of the column entries that
 * read it, zero when none does */
template <typename T>
DL_HD void
dl_cuda_col2im_elem (const DlConvGeometry &g, const T *cols, T *image, int64_t e)
{
  const int64_t ix = e % g.w, iy = (e / g.w) % g.h, ch = (e / (g.w * g.h)) % g.c;
  const int64_t b = e / (g.w * g.h * g.c), taps = g.kh * g.kw;
  const T *src = cols + b * g.col_batch_stride + ch * taps * g.col_row_stride;
  T acc = 0;

  for (int64_t i = 0; i < g.kh; i++)
    {
      const int64_t y = dl_cuda_conv_out_pos (iy, i, g.sh, g.ph, g.dh, g.out_h);

      if (y < 0)
        continue;
      for (int64_t j = 0; j < g.kw; j++)
        {
          const int64_t x = dl_cuda_conv_out_pos (ix, j, g.sw, g.pw, g.dw, g.out_w);

          if (x >= 0)
            acc += src[(i * g.kw + j) * g.col_row_stride + y * g.out_w + x];
        }
    }
  image[e] = acc;
}
