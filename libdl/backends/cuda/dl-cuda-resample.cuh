/* dl-cuda-resample.cuh: the per-element work of the CUDA module's
 * resample, resample_adjoint and resample_max slots
 * (dl-cuda-resample.cu), inline functions that nvcc compiles for the
 * device and g++ for the host (tests/c/test-cuda-nn.cpp compares them with
 * the CPU backend's slots).
 *
 * A DlResampleArgs' axes live in host memory; the slots copy them to the
 * device, with each axis' transpose (for every input position, the
 * outputs that read it and their weights), into a DlCudaResample.
 *
 * resample: one thread an output, the sum over its taps (z, y, x) of the
 * weights' product times the input, accumulated in double; fill where an
 * axis has no taps. resample_adjoint: one thread an input element,
 * gathering through the transposes the outputs that read it (no
 * atomics). resample_max: one thread an output, the CPU's loop (the
 * first maximum kept, a later NaN winning), identical results.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-cuda-kernels.cuh"

/* one axis and its transpose, in the memory the kernels read */
struct DlCudaResampleAxis
{
  int64_t in_size, out_size;
  const int64_t *start; /* out_size + 1 */
  const int64_t *index;
  const double *weight;
  const int64_t *tstart; /* in_size + 1 */
  const int64_t *tout;   /* the outputs reading each input */
  const double *tweight;
};

struct DlCudaResample
{
  int64_t planes;
  DlCudaResampleAxis axis[3];
  double fill;
};

/* the taps of an axis: start[out_size] */
static inline int64_t
dl_cuda_resample_taps (const DlResampleAxis *a)
{
  return a->start[a->out_size];
}

/* @a's transpose into tstart [in_size + 1], tout and tweight [taps]: the
 * outputs reading each input in increasing order */
static inline void
dl_cuda_resample_transpose (const DlResampleAxis *a,
                            int64_t *tstart,
                            int64_t *tout,
                            double *tweight)
{
  const int64_t n = dl_cuda_resample_taps (a);

  for (int64_t i = 0; i <= a->in_size; i++)
    tstart[i] = 0;
  for (int64_t k = 0; k < n; k++)
    tstart[a->index[k] + 1]++;
  for (int64_t i = 0; i < a->in_size; i++)
    tstart[i + 1] += tstart[i];
  /* tstart[i] counts up as input i's entries are placed, then is restored */
  for (int64_t o = 0; o < a->out_size; o++)
    for (int64_t k = a->start[o]; k < a->start[o + 1]; k++)
      {
        const int64_t at = tstart[a->index[k]]++;

        tout[at] = o;
        tweight[at] = a->weight[k];
      }
  for (int64_t i = a->in_size; i > 0; i--)
    tstart[i] = tstart[i - 1];
  tstart[0] = 0;
}

/* position @e of [planes, nz, ny, nx] as (p, z, y, x) */
DL_HD void
dl_cuda_resample_coords (int64_t e, int64_t nz, int64_t ny, int64_t nx, int64_t c[4])
{
  c[3] = e % nx;
  c[2] = (e / nx) % ny;
  c[1] = (e / (nx * ny)) % nz;
  c[0] = e / (nx * ny * nz);
}

/* the sum over the taps of position @c (p, z, y, x) of the map (or of
 * its transpose, @adjoint) of the weights' product times the plane @src,
 * in double */
template <typename T>
DL_HD double
dl_cuda_resample_sum (const DlCudaResample &r, bool adjoint, const int64_t c[4], const T *src)
{
  const int64_t *start[3], *pos[3], *range[3];
  const double *w[3];
  int64_t n[3];
  double acc = 0;

  for (int d = 0; d < 3; d++)
    {
      const DlCudaResampleAxis &a = r.axis[d];

      start[d] = adjoint ? a.tstart : a.start;
      pos[d] = adjoint ? a.tout : a.index;
      w[d] = adjoint ? a.tweight : a.weight;
      n[d] = adjoint ? a.out_size : a.in_size; /* the read plane's sizes */
      range[d] = start[d] + c[d + 1];          /* [range[d][0], range[d][1]) */
    }
  for (int64_t i = range[0][0]; i < range[0][1]; i++)
    for (int64_t j = range[1][0]; j < range[1][1]; j++)
      {
        const double wij = w[0][i] * w[1][j];
        const T *row = src + (pos[0][i] * n[1] + pos[1][j]) * n[2];

        for (int64_t k = range[2][0]; k < range[2][1]; k++)
          acc += wij * w[2][k] * (double)row[pos[2][k]];
      }
  return acc;
}

/* output @e of [planes, out_d, out_h, out_w] */
template <typename T>
DL_HD void
dl_cuda_resample_elem (const DlCudaResample &r, const T *in, T *out, int64_t e)
{
  const DlCudaResampleAxis &az = r.axis[0], &ay = r.axis[1], &ax = r.axis[2];
  int64_t c[4];

  dl_cuda_resample_coords (e, az.out_size, ay.out_size, ax.out_size, c);
  const int64_t p = c[0], z = c[1], y = c[2], x = c[3];
  const T *src = in + p * az.in_size * ay.in_size * ax.in_size;

  if (az.start[z] == az.start[z + 1] || ay.start[y] == ay.start[y + 1]
      || ax.start[x] == ax.start[x + 1])
    {
      out[e] = (T)r.fill;
      return;
    }
  out[e] = (T)dl_cuda_resample_sum (r, false, c, src);
}

/* input element @e of [planes, d, h, w] of the adjoint */
template <typename T>
DL_HD void
dl_cuda_resample_adjoint_elem (const DlCudaResample &r, const T *grad, T *grad_in, int64_t e)
{
  const DlCudaResampleAxis &az = r.axis[0], &ay = r.axis[1], &ax = r.axis[2];
  int64_t c[4];

  dl_cuda_resample_coords (e, az.in_size, ay.in_size, ax.in_size, c);
  const T *src = grad + c[0] * az.out_size * ay.out_size * ax.out_size;

  grad_in[e] = (T)dl_cuda_resample_sum (r, true, c, src);
}

/* output @e of the maximum over the taps, its flat position in the input
 * plane into idx[e] (-1 and 0 where there are no taps) */
template <typename T>
DL_HD void
dl_cuda_resample_max_elem (const DlCudaResample &r, const T *in, T *out, int64_t *idx, int64_t e)
{
  const DlCudaResampleAxis &az = r.axis[0], &ay = r.axis[1], &ax = r.axis[2];
  int64_t c[4];

  dl_cuda_resample_coords (e, az.out_size, ay.out_size, ax.out_size, c);
  const int64_t p = c[0], z = c[1], y = c[2], x = c[3];
  const T *src = in + p * az.in_size * ay.in_size * ax.in_size;
  T best = 0;
  int64_t where = -1;

  for (int64_t i = az.start[z]; i < az.start[z + 1]; i++)
    for (int64_t j = ay.start[y]; j < ay.start[y + 1]; j++)
      for (int64_t k = ax.start[x]; k < ax.start[x + 1]; k++)
        {
          const int64_t pos = (az.index[i] * ay.in_size + ay.index[j]) * ax.in_size + ax.index[k];
          const T v = src[pos];

          if (where < 0 || v > best || dl_cuda_isnan (v))
            {
              best = v;
              where = pos;
            }
        }
  out[e] = best;
  idx[e] = where;
}

/* the bytes dl_cuda_resample_pack writes for @a */
static inline size_t
dl_cuda_resample_pack_size (const DlResampleArgs *a)
{
  size_t bytes = 0;

  for (int d = 0; d < 3; d++)
    {
      const DlResampleAxis *ax = &a->axis[d];
      const int64_t taps = dl_cuda_resample_taps (ax);

      bytes += (size_t)(ax->out_size + 1 + ax->in_size + 1 + 2 * taps) * sizeof (int64_t)
               + (size_t)(2 * taps) * sizeof (double);
    }
  return bytes;
}

/* @a's axes and their transposes into the host buffer @buf of
 * dl_cuda_resample_pack_size bytes, and @r pointing into the copy of
 * @buf that will lie at @base (the device's, or @buf itself) */
static inline void
dl_cuda_resample_pack (const DlResampleArgs *a, char *buf, char *base, DlCudaResample *r)
{
  size_t at = 0;

  r->planes = a->planes;
  r->fill = a->fill;
  for (int d = 0; d < 3; d++)
    {
      const DlResampleAxis *ax = &a->axis[d];
      DlCudaResampleAxis *o = &r->axis[d];
      const int64_t taps = dl_cuda_resample_taps (ax);
      int64_t *start = (int64_t *)(buf + at), *index = start + ax->out_size + 1;
      int64_t *tstart = index + taps, *tout = tstart + ax->in_size + 1;
      double *weight = (double *)(tout + taps), *tweight = weight + taps;

      memcpy (start, ax->start, (size_t)(ax->out_size + 1) * sizeof (int64_t));
      /* an axis without taps may have no arrays (memcpy's source must
       * not be NULL, even for 0 bytes) */
      if (taps > 0 && ax->index)
        memcpy (index, ax->index, (size_t)taps * sizeof (int64_t));
      if (taps > 0 && ax->weight)
        memcpy (weight, ax->weight, (size_t)taps * sizeof (double));
      dl_cuda_resample_transpose (ax, tstart, tout, tweight);
      o->in_size = ax->in_size;
      o->out_size = ax->out_size;
      o->start = (const int64_t *)(base + ((char *)start - buf));
      o->index = (const int64_t *)(base + ((char *)index - buf));
      o->weight = (const double *)(base + ((char *)weight - buf));
      o->tstart = (const int64_t *)(base + ((char *)tstart - buf));
      o->tout = (const int64_t *)(base + ((char *)tout - buf));
      o->tweight = (const double *)(base + ((char *)tweight - buf));
      at = (size_t)((char *)(tweight + taps) - buf);
    }
}
