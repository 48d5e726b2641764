/* dl-cuda-index.cuh: the work of the CUDA module's index, nonzero, sort,
 * scan_extremum, scatter_rows, gather_rows and unique_sorted slots
 * (dl-cuda-index.cu), as inline functions that nvcc compiles for the
 * device and g++ for the host (tests/c/test-cuda-index.cpp runs them over
 * host memory and compares them with the CPU backend's slots, see
 * dl-cpu-index.c and dl-cpu-scan.c for the semantics).
 *
 * Two kinds of bodies:
 *
 * - One element's work (a gather or scatter of one index, a row gather),
 *   which a launch runs for each (row, column) of a grid: the row's byte
 *   offsets are found once per row (dl_cuda_index_row), not per element.
 * - A block's work (the tile scans of nonzero and unique_sorted, a row's
 *   running extremum, a row's sort), written as phases: each (f) runs
 *   f (t) for every thread t of the block and then waits for all of them
 *   (on the device f (threadIdx.x) and __syncthreads (), on the host every
 *   t in a shuffled order). What a thread hands to the next phase goes
 *   through the block's shared arrays, never through its registers, so
 *   the host runs the same code the device does.
 *
 * Scatters that reduce (a sum, product, max, min) update their element
 * atomically (dl_cuda_atomic_update: a compare-and-swap loop on the
 * aligned word that holds it; atomicAdd for the sums of float32, float64,
 * int32 and int64), in an unspecified order as PyTorch's do: the results
 * are the CPU's up to the rounding of float sums and products.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-cuda-kernels.cuh"

/* the threads of a tile scan's block, and the elements of its tile */
#define DL_CUDA_TILE 256
/* the longest row sorted in one block's shared memory, and the length of
 * the runs that the global merge sort starts from (a power of two) */
#define DL_CUDA_SORT_BLOCK 2048

/* ---- status and atomics ---------------------------------------------------- */

/* The first failed check wins: error and value (see DlKernelStatus). */
DL_HD void
dl_cuda_report (DlKernelStatus *st, int32_t err, int64_t value)
{
#ifdef __CUDA_ARCH__
  if (atomicCAS ((int *)&st->error, DL_KERNEL_OK, err) == DL_KERNEL_OK)
    st->value = value;
#else
  if (st->error == DL_KERNEL_OK)
    {
      st->error = err;
      st->value = value;
    }
#endif
}

/* Runs f (elem) on a copy of the element of @es bytes at @p and stores
 * the result, atomically on the device: a compare-and-swap loop on the
 * 64-bit word of an 8-byte element or the aligned 32-bit word holding a
 * smaller one (bytes of the word outside the element are left as they
 * are). */
template <typename F>
DL_HD void
dl_cuda_atomic_update (char *p, int es, F f)
{
#ifdef __CUDA_ARCH__
  if (es == 8)
    {
      unsigned long long *w = (unsigned long long *)p;
      unsigned long long old = *w, assumed;

      do
        {
          unsigned long long v = assumed = old;
          f ((char *)&v);
          old = atomicCAS (w, assumed, v);
        }
      while (old != assumed);
    }
  else
    {
      const uintptr_t at = (uintptr_t)p;
      unsigned int *w = (unsigned int *)(at & ~(uintptr_t)3);
      unsigned int old = *w, assumed;

      do
        {
          unsigned int v = assumed = old;
          f ((char *)&v + (at & 3));
          old = atomicCAS (w, assumed, v);
        }
      while (old != assumed);
    }
#else
  f (p);
#endif
}

/* es bytes from src to dst, as one load and store of their size */
DL_HD void
dl_cuda_copy_bytes (char *dst, const char *src, int es)
{
  switch (es)
    {
      case 8:
        *(uint64_t *)dst = *(const uint64_t *)src;
        break;
      case 4:
        *(uint32_t *)dst = *(const uint32_t *)src;
        break;
      case 2:
        *(uint16_t *)dst = *(const uint16_t *)src;
        break;
      default:
        *dst = *src;
        break;
    }
}

/* ---- gather and scatter along a dim (index) -------------------------------- */

/* dst = dst (op) src for one element of a reducing scatter, as
 * dl-cpu-index.c's reduce_element: sums in the dtype's own precision
 * (16-bit floats through float, integers wrapping, bool as or), products,
 * max and min of floats in double (NaN winning), rounded to float first
 * for float16, of integers in int64 */
DL_HD void
dl_cuda_index_reduce_elem (DlIndexOp op, DlDType dt, char *dst, const char *src)
{
  if (op == DL_INDEX_SCATTER_ADD)
    {
      switch (dt)
        {
          case DL_DTYPE_FLOAT32:
            *(float *)dst += *(const float *)src;
            break;
          case DL_DTYPE_FLOAT64:
            *(double *)dst += *(const double *)src;
            break;
          case DL_DTYPE_FLOAT16:
          case DL_DTYPE_BFLOAT16:
            dl_cuda_store (dst, dt,
                           (float)dl_cuda_load_f (dst, dt) + (float)dl_cuda_load_f (src, dt));
            break;
          case DL_DTYPE_BOOL:
            *(uint8_t *)dst = *(uint8_t *)dst || *(const uint8_t *)src;
            break;
          default:
            dl_cuda_store (
                dst, dt,
                (int64_t)((uint64_t)dl_cuda_load_i (dst, dt) + (uint64_t)dl_cuda_load_i (src, dt)));
            break;
        }
    }
  else if (!dl_cuda_is_int_dtype (dt))
    {
      double a = dl_cuda_load_f (dst, dt), b = dl_cuda_load_f (src, dt);

      if (op == DL_INDEX_SCATTER_MUL)
        a *= b;
      else if (b != b || (op == DL_INDEX_SCATTER_AMAX ? b > a : b < a))
        a = b; /* once a is NaN, no comparison replaces it */
      dl_cuda_store (dst, dt, dt == DL_DTYPE_FLOAT16 ? (double)(float)a : a);
    }
  else
    {
      int64_t a = dl_cuda_load_i (dst, dt), b = dl_cuda_load_i (src, dt);

      if (op == DL_INDEX_SCATTER_MUL)
        a = (int64_t)((uint64_t)a * (uint64_t)b);
      else if (op == DL_INDEX_SCATTER_AMAX ? b > a : b < a)
        a = b;
      dl_cuda_store (dst, dt, a);
    }
}

/* dst (op)= src atomically: atomicAdd for the sums that have one */
DL_HD void
dl_cuda_index_reduce_atomic (DlIndexOp op, DlDType dt, char *dst, const char *src)
{
#ifdef __CUDA_ARCH__
  if (op == DL_INDEX_SCATTER_ADD)
    switch (dt)
      {
        case DL_DTYPE_FLOAT32:
          atomicAdd ((float *)dst, *(const float *)src);
          return;
        case DL_DTYPE_FLOAT64:
          atomicAdd ((double *)dst, *(const double *)src);
          return;
        case DL_DTYPE_INT32:
          atomicAdd ((unsigned int *)dst, *(const unsigned int *)src);
          return;
        case DL_DTYPE_INT64:
          atomicAdd ((unsigned long long *)dst, *(const unsigned long long *)src);
          return;
        default:
          break;
      }
#endif
  dl_cuda_atomic_update (dst, dl_cuda_dtype_size (dt),
                         [=] (char *e) { dl_cuda_index_reduce_elem (op, dt, e, src); });
}

/* the value x with x (op) y = y for every y of the dtype (dl-cpu-index.c's
 * store_identity) */
DL_HD void
dl_cuda_index_identity (DlIndexOp op, DlDType dt, char *dst)
{
  if (!dl_cuda_is_int_dtype (dt))
    dl_cuda_store (dst, dt,
                   op == DL_INDEX_SCATTER_ADD    ? 0.0
                   : op == DL_INDEX_SCATTER_MUL  ? 1.0
                   : op == DL_INDEX_SCATTER_AMAX ? -(double)INFINITY
                                                 : (double)INFINITY);
  else
    {
      int64_t lowest = 0, highest = 1;

      switch (dt)
        {
          case DL_DTYPE_INT32:
            lowest = INT32_MIN;
            highest = INT32_MAX;
            break;
          case DL_DTYPE_INT64:
            lowest = INT64_MIN;
            highest = INT64_MAX;
            break;
          case DL_DTYPE_UINT8:
            highest = 255;
            break;
          default: /* bool */
            break;
        }
      dl_cuda_store (dst, dt,
                     op == DL_INDEX_SCATTER_ADD    ? (int64_t)0
                     : op == DL_INDEX_SCATTER_MUL  ? (int64_t)1
                     : op == DL_INDEX_SCATTER_AMAX ? lowest
                                                   : highest);
    }
}

/* The loop nest over the index tensor's shape, as rows of its last dim:
 * n_rows rows of n_cols elements */
DL_HD void
dl_cuda_index_extent (const DlIndexArgs &a, int64_t *n_rows, int64_t *n_cols)
{
  int64_t rows = 1;

  for (int d = 0; d < a.ndim - 1; d++)
    rows *= a.shape[d];
  *n_cols = a.ndim > 0 ? a.shape[a.ndim - 1] : 1;
  *n_rows = *n_cols == 0 ? 0 : rows;
}

/* the byte offsets of a row's first elements in self (the indexed dim
 * left out), other and index */
struct DlCudaIndexRow
{
  int64_t self, other, index;
};

DL_HD DlCudaIndexRow
dl_cuda_index_row (const DlIndexArgs &a, int64_t row)
{
  DlCudaIndexRow r = { 0, 0, 0 };

  for (int d = a.ndim - 2; d >= 0; d--)
    {
      const int64_t p = row % a.shape[d];

      row /= a.shape[d];
      if (d != a.dim)
        r.self += p * a.self_strides[d];
      r.other += p * a.other_strides[d];
      r.index += p * a.index_strides[d];
    }
  return r;
}

/* Element j of a row: a bad index is reported (and nothing is moved);
 * with identity, the first pass of a reducing scatter with exclude_self,
 * the element of self that the index names takes the reduction's
 * identity. */
DL_HD void
dl_cuda_index_elem (const DlIndexArgs &a,
                    DlIndexOp op,
                    DlDType dt,
                    const DlCudaIndexRow &r,
                    int64_t j,
                    bool identity,
                    DlKernelStatus *status)
{
  const int last = a.ndim - 1;
  const int64_t s_inner = a.ndim > 0 && last != a.dim ? a.self_strides[last] : 0;
  const int64_t o_inner = a.ndim > 0 ? a.other_strides[last] : 0;
  const int64_t i_inner = a.ndim > 0 ? a.index_strides[last] : 0;
  const int64_t i = *(const int64_t *)(a.index + r.index + j * i_inner);
  char *sp, *op_;

  if (i < 0 || i >= a.dim_size)
    {
      if (!identity)
        dl_cuda_report (status, DL_KERNEL_INDEX_OUT_OF_BOUNDS, i);
      return;
    }
  sp = a.self + r.self + j * s_inner + i * a.self_strides[a.dim];
  op_ = a.other + r.other + j * o_inner;
  if (identity)
    dl_cuda_index_identity (op, dt, sp);
  else if (op == DL_INDEX_GATHER)
    dl_cuda_copy_bytes (op_, sp, dl_cuda_dtype_size (dt));
  else if (op == DL_INDEX_SCATTER)
    dl_cuda_copy_bytes (sp, op_, dl_cuda_dtype_size (dt));
  else
    dl_cuda_index_reduce_atomic (op, dt, sp, op_);
}

/* ---- gather_rows, scatter_rows -------------------------------------------- */

/* out[r, j] = src[r, index[r, j]]; an index out of [0, n_src) moves nothing */
DL_HD void
dl_cuda_gather_rows_elem (char *out,
                          const char *src,
                          const int64_t *index,
                          int64_t r,
                          int64_t j,
                          int64_t n_out,
                          int64_t n_src,
                          int es)
{
  const int64_t k = index[r * n_out + j];

  if (k >= 0 && k < n_src)
    dl_cuda_copy_bytes (out + (r * n_out + j) * es, src + (r * n_src + k) * es, es);
}

/* dst += src as dl-cpu-scan.c's scatter_rows: floats in double, integers
 * in int64 */
DL_HD void
dl_cuda_add_wide (DlDType dt, char *dst, const char *src)
{
  if (dl_cuda_is_int_dtype (dt))
    dl_cuda_store (
        dst, dt,
        (int64_t)((uint64_t)dl_cuda_load_i (dst, dt) + (uint64_t)dl_cuda_load_i (src, dt)));
  else
    dl_cuda_store (dst, dt, dl_cuda_load_f (dst, dt) + dl_cuda_load_f (src, dt));
}

/* out[r, index[r, j]] = src[r, j] (+= with accumulate, atomically); an
 * index out of [0, n_out) moves nothing */
DL_HD void
dl_cuda_scatter_rows_elem (char *out,
                           const char *src,
                           const int64_t *index,
                           int64_t r,
                           int64_t j,
                           int64_t n_src,
                           int64_t n_out,
                           DlDType dt,
                           bool accumulate)
{
  const int64_t k = index[r * n_src + j];
  const int es = dl_cuda_dtype_size (dt);
  char *o = out + (r * n_out + k) * es;
  const char *x = src + (r * n_src + j) * es;

  if (k < 0 || k >= n_out)
    return;
  if (!accumulate)
    dl_cuda_copy_bytes (o, x, es);
  else if (dt == DL_DTYPE_FLOAT32 || dt == DL_DTYPE_FLOAT64 || dt == DL_DTYPE_INT32
           || dt == DL_DTYPE_INT64)
    /* the same sum: a float32 sum rounded from double is float's */
    dl_cuda_index_reduce_atomic (DL_INDEX_SCATTER_ADD, dt, o, x);
  else
    dl_cuda_atomic_update (o, es, [=] (char *e) { dl_cuda_add_wide (dt, e, x); });
}

/* ---- block scans ------------------------------------------------------------- */

/* An inclusive scan of a[0 .. DL_CUDA_TILE) under the associative
 * @combine (its left operand the earlier), b the same size as scratch:
 * Hillis and Steele's steps, each a phase. Returns where the result is. */
template <typename T, typename C, typename Each>
DL_HD T *
dl_cuda_block_scan (T *a, T *b, C combine, Each each)
{
  for (int off = 1; off < DL_CUDA_TILE; off *= 2)
    {
      T *tmp;

      each ([=] (int t) { b[t] = t >= off ? combine (a[t - off], a[t]) : a[t]; });
      tmp = a;
      a = b;
      b = tmp;
    }
  return a;
}

struct DlCudaPlus
{
  DL_HD int64_t operator() (int64_t x, int64_t y) const
  {
    return x + y;
  }
};

/* What a tile scan of flags over n elements needs: a Src has
 *   bool flag (int64_t i) const     whether element i is taken
 *   void take (int64_t i, bool taken, int64_t g) const
 *                                   called for each element, g the number
 *                                   of taken elements up to i, less one
 * A pass over tile t (elements t * DL_CUDA_TILE ...) counts its flags
 * into sums[t] (offsets NULL) or, with the tiles' exclusive offsets,
 * calls take. sa, sb: DL_CUDA_TILE int64 of shared memory. */
template <typename Src, typename Each>
DL_HD void
dl_cuda_tile_pass (const Src &s,
                   int64_t n,
                   int64_t tile,
                   int64_t *sums,
                   const int64_t *offsets,
                   int64_t *sa,
                   int64_t *sb,
                   Each each)
{
  const int64_t i0 = tile * DL_CUDA_TILE;
  const Src *src = &s;
  int64_t *incl;

  each ([=] (int t) { sa[t] = i0 + t < n && src->flag (i0 + t); });
  incl = dl_cuda_block_scan (sa, sb, DlCudaPlus (), each);
  if (!offsets)
    each ([=] (int t) {
      if (t == 0)
        sums[tile] = incl[DL_CUDA_TILE - 1];
    });
  else
    each ([=] (int t) {
      const int64_t before = t > 0 ? incl[t - 1] : 0;

      if (i0 + t < n)
        src->take (i0 + t, incl[t] != before, offsets[tile] + incl[t] - 1);
    });
}

/* The tiles' counts sums[0 .. n_tiles) turned into exclusive offsets in
 * place, their total into *total: one block, DL_CUDA_TILE tiles a round,
 * the running total kept in carry (one int64 of shared memory). */
template <typename Each>
DL_HD void
dl_cuda_tile_offsets (int64_t *sums,
                      int64_t n_tiles,
                      int64_t *total,
                      int64_t *sa,
                      int64_t *sb,
                      int64_t *carry,
                      Each each)
{
  each ([=] (int t) {
    if (t == 0)
      *carry = 0;
  });
  for (int64_t c0 = 0; c0 < n_tiles; c0 += DL_CUDA_TILE)
    {
      int64_t *incl;

      each ([=] (int t) { sa[t] = c0 + t < n_tiles ? sums[c0 + t] : 0; });
      incl = dl_cuda_block_scan (sa, sb, DlCudaPlus (), each);
      each ([=] (int t) {
        if (c0 + t < n_tiles)
          sums[c0 + t] = *carry + (t > 0 ? incl[t - 1] : 0);
      });
      each ([=] (int t) {
        if (t == 0)
          *carry += incl[DL_CUDA_TILE - 1];
      });
    }
  each ([=] (int t) {
    if (t == 0)
      *total = *carry;
  });
}

/* ---- nonzero ---------------------------------------------------------------- */

/* A strided tensor's elements in row-major order: taken where nonzero,
 * their coordinates (ndim of them, over shape) written to out[g]. The
 * elements are read through the same tensor with its dims merged where
 * their strides allow (read_ndim dims of read_shape, read_strides): one
 * dim, no division, for a contiguous tensor. */
struct DlCudaNonzero
{
  const char *data;
  DlDType dt;
  int ndim, read_ndim;
  int64_t shape[DL_MAX_DIMS];
  int64_t read_shape[DL_MAX_DIMS];
  int64_t read_strides[DL_MAX_DIMS];
  int64_t *out;

  DL_HD bool flag (int64_t i) const
  {
    const char *p = data;

    for (int d = read_ndim - 1; d > 0; d--)
      {
        p += (i % read_shape[d]) * read_strides[d];
        i /= read_shape[d];
      }
    if (read_ndim > 0)
      p += i * read_strides[0];
    return dl_cuda_visit (p, dt, [] (auto v) { return v != 0; });
  }

  DL_HD void take (int64_t i, bool taken, int64_t g) const
  {
    if (!taken)
      return;
    for (int d = ndim - 1; d > 0; d--)
      {
        out[g * ndim + d] = i % shape[d];
        i /= shape[d];
      }
    if (ndim > 0)
      out[g * ndim] = i;
  }
};

/* @s for the tensor at @data (byte strides), out unset: size-1 dims
 * dropped from the reading shape, and a dim merged into the one before it
 * where that one's stride steps over it */
static inline void
dl_cuda_nonzero_init (DlCudaNonzero *s,
                      const char *data,
                      DlDType dt,
                      int ndim,
                      const int64_t *shape,
                      const int64_t *strides)
{
  *s = DlCudaNonzero{};
  s->data = data;
  s->dt = dt;
  s->ndim = ndim;
  for (int d = 0; d < ndim; d++)
    {
      s->shape[d] = shape[d];
      if (shape[d] == 1)
        continue;
      if (s->read_ndim > 0 && s->read_strides[s->read_ndim - 1] == strides[d] * shape[d])
        {
          s->read_shape[s->read_ndim - 1] *= shape[d];
          s->read_strides[s->read_ndim - 1] = strides[d];
        }
      else
        {
          s->read_shape[s->read_ndim] = shape[d];
          s->read_strides[s->read_ndim] = strides[d];
          s->read_ndim++;
        }
    }
}

/* ---- unique_sorted ---------------------------------------------------------- */

/* A contiguous array's groups of equal neighbours (floats compared as
 * doubles, so every NaN starts a group, as on the CPU): the first element
 * of group g writes values[g] and its position into counts[g], every
 * element its group; dl_cuda_unique_count then turns positions into
 * sizes. */
struct DlCudaUnique
{
  const char *sorted;
  DlDType dt;
  int es;
  char *values;
  int64_t *counts;
  int64_t *group;

  DL_HD bool flag (int64_t i) const
  {
    const char *p = sorted + i * es;

    if (i == 0)
      return true;
    if (dl_cuda_is_int_dtype (dt))
      return dl_cuda_load_i (p, dt) != dl_cuda_load_i (p - es, dt);
    return !(dl_cuda_load_f (p, dt) == dl_cuda_load_f (p - es, dt));
  }

  DL_HD void take (int64_t i, bool taken, int64_t g) const
  {
    if (taken)
      {
        dl_cuda_copy_bytes (values + g * es, sorted + i * es, es);
        counts[g] = i;
      }
    group[i] = g;
  }
};

/* after the tile pass: the last element of each group makes its count */
DL_HD void
dl_cuda_unique_count (const DlCudaUnique &u, int64_t n, int64_t i)
{
  const int64_t g = u.group[i];

  if (i == n - 1 || u.group[i + 1] != g)
    u.counts[g] = i + 1 - u.counts[g];
}

/* ---- scan_extremum ---------------------------------------------------------- */

/* a running extremum: its value (double for floats, int64 for integers)
 * and where it was */
template <typename V> struct DlCudaExtremum
{
  V v;
  int64_t at;
};

/* b (the later) wins a tie, and a NaN wins over every number and over an
 * earlier NaN: the last NaN if any, else the last of the extrema */
template <typename V> struct DlCudaExtremumCombine
{
  bool is_max;

  DL_HD DlCudaExtremum<V> operator() (const DlCudaExtremum<V> &a, const DlCudaExtremum<V> &b) const
  {
    if (dl_cuda_isnan (b.v) || (!dl_cuda_isnan (a.v) && (is_max ? b.v >= a.v : b.v <= a.v)))
      return b;
    return a;
  }
};

/* Row r of n elements (dtype dt, es bytes) in place: DL_CUDA_TILE
 * elements a round, the extremum of the rounds before in carry (shared
 * memory, as sa and sb) */
template <typename V, typename Each>
DL_HD void
dl_cuda_scan_extremum_row (char *data,
                           int64_t *indices,
                           int64_t r,
                           int64_t n,
                           DlDType dt,
                           bool is_max,
                           DlCudaExtremum<V> *sa,
                           DlCudaExtremum<V> *sb,
                           DlCudaExtremum<V> *carry,
                           Each each)
{
  const int es = dl_cuda_dtype_size (dt);
  const DlCudaExtremumCombine<V> combine = { is_max };
  char *row = data + r * n * es;
  int64_t *idx = indices + r * n;

  for (int64_t j0 = 0; j0 < n; j0 += DL_CUDA_TILE)
    {
      DlCudaExtremum<V> *incl;

      each ([=] (int t) {
        const int64_t j = j0 + t;

        sa[t].at = j;
        if (j >= n)
          sa[t].v = 0;
        else if (dl_cuda_is_int_dtype (dt))
          sa[t].v = (V)dl_cuda_load_i (row + j * es, dt);
        else
          sa[t].v = (V)dl_cuda_load_f (row + j * es, dt);
      });
      incl = dl_cuda_block_scan (sa, sb, combine, each);
      each ([=] (int t) {
        const int64_t j = j0 + t;

        if (j < n)
          {
            const DlCudaExtremum<V> e = j0 > 0 ? combine (*carry, incl[t]) : incl[t];

            dl_cuda_store (row + j * es, dt, e.v);
            idx[j] = e.at;
          }
      });
      each ([=] (int t) {
        if (t == 0)
          *carry = j0 > 0 ? combine (*carry, incl[DL_CUDA_TILE - 1]) : incl[DL_CUDA_TILE - 1];
      });
    }
}

/* ---- sort --------------------------------------------------------------------- */

/* An element to sort: its key and where it was. Keys are unsigned
 * integers in the sort's order: floats' bits made monotonic (-0 as +0,
 * every NaN greatest), integers offset by 2^63, the complement for a
 * descending sort. All items differ in their position, which breaks the
 * ties: the order is the stable sort's, whatever the network. */
struct DlCudaSortItem
{
  uint64_t key;
  int64_t pos;
};

/* after every item of a row: a tile's padding */
#define DL_CUDA_SORT_PAD                                                                           \
  DlCudaSortItem                                                                                   \
  {                                                                                                \
    ~(uint64_t)0, INT64_MAX                                                                        \
  }

DL_HD uint64_t
dl_cuda_sort_key (const char *p, DlDType dt, bool descending)
{
  uint64_t k;

  if (dl_cuda_is_int_dtype (dt))
    k = (uint64_t)dl_cuda_load_i (p, dt) ^ ((uint64_t)1 << 63);
  else
    {
      const double v = dl_cuda_load_f (p, dt);

      if (v != v)
        k = ~(uint64_t)0;
      else
        {
          const uint64_t b = dl_cuda_double_bits (v == 0 ? 0.0 : v);

          k = b >> 63 ? ~b : b | ((uint64_t)1 << 63);
        }
    }
  return descending ? ~k : k;
}

DL_HD bool
dl_cuda_sort_before (const DlCudaSortItem &a, const DlCudaSortItem &b)
{
  return a.key < b.key || (a.key == b.key && a.pos < b.pos);
}

/* Sorts items[0 .. p) (p a power of two, nt threads) with Batcher's
 * bitonic network, a phase per step */
template <typename Each>
DL_HD void
dl_cuda_bitonic_sort (DlCudaSortItem *items, int p, int nt, Each each)
{
  for (int k = 2; k <= p; k <<= 1)
    for (int jj = k >> 1; jj > 0; jj >>= 1)
      each ([=] (int t) {
        for (int q = t; q < p / 2; q += nt)
          {
            const int i = 2 * q - (q & (jj - 1)), l = i + jj;
            const bool up = (i & k) == 0;

            if (up ? dl_cuda_sort_before (items[l], items[i])
                   : dl_cuda_sort_before (items[i], items[l]))
              {
                const DlCudaSortItem x = items[i];
                items[i] = items[l];
                items[l] = x;
              }
          }
      });
}

/* the least power of two >= n (n <= DL_CUDA_SORT_BLOCK), at least 2 */
DL_HD int
dl_cuda_sort_span (int64_t n)
{
  int p = 2;

  while (p < n)
    p <<= 1;
  return p;
}

/* A whole row of n <= DL_CUDA_SORT_BLOCK elements sorted in shared memory
 * (items: dl_cuda_sort_span (n) of them): keys in, the network, then each
 * item's original bits read (into its key) before any is written back. */
template <typename Each>
DL_HD void
dl_cuda_sort_row (char *data,
                  int64_t *indices,
                  int64_t r,
                  int64_t n,
                  DlDType dt,
                  bool descending,
                  DlCudaSortItem *items,
                  int nt,
                  Each each)
{
  const int es = dl_cuda_dtype_size (dt), p = dl_cuda_sort_span (n);
  char *row = data + r * n * es;
  int64_t *idx = indices + r * n;

  each ([=] (int t) {
    for (int q = t; q < p; q += nt)
      items[q] = q < n ? DlCudaSortItem{ dl_cuda_sort_key (row + q * es, dt, descending), q }
                       : DL_CUDA_SORT_PAD;
  });
  dl_cuda_bitonic_sort (items, p, nt, each);
  each ([=] (int t) {
    for (int q = t; q < n; q += nt)
      {
        items[q].key = 0;
        dl_cuda_copy_bytes ((char *)&items[q].key, row + items[q].pos * es, es);
      }
  });
  each ([=] (int t) {
    for (int q = t; q < n; q += nt)
      {
        dl_cuda_copy_bytes (row + q * es, (const char *)&items[q].key, es);
        idx[q] = items[q].pos;
      }
  });
}

/* Longer rows, in global memory: the items of row r's tile (its
 * DL_CUDA_SORT_BLOCK elements from tile * DL_CUDA_SORT_BLOCK) sorted in
 * shared memory and written back, the runs the merges start from */
template <typename Each>
DL_HD void
dl_cuda_sort_tile (DlCudaSortItem *all,
                   int64_t r,
                   int64_t tile,
                   int64_t n,
                   DlCudaSortItem *items,
                   int nt,
                   Each each)
{
  const int64_t j0 = tile * DL_CUDA_SORT_BLOCK;
  const int64_t len = n - j0 < DL_CUDA_SORT_BLOCK ? n - j0 : DL_CUDA_SORT_BLOCK;
  DlCudaSortItem *row = all + r * n + j0;

  each ([=] (int t) {
    for (int q = t; q < DL_CUDA_SORT_BLOCK; q += nt)
      items[q] = q < len ? row[q] : DL_CUDA_SORT_PAD;
  });
  dl_cuda_bitonic_sort (items, DL_CUDA_SORT_BLOCK, nt, each);
  each ([=] (int t) {
    for (int q = t; q < len; q += nt)
      row[q] = items[q];
  });
}

/* the number of items of run[0 .. len) before x */
DL_HD int64_t
dl_cuda_sort_rank (const DlCudaSortItem *run, int64_t len, const DlCudaSortItem &x)
{
  int64_t lo = 0, hi = len;

  while (lo < hi)
    {
      const int64_t mid = lo + (hi - lo) / 2;

      if (dl_cuda_sort_before (run[mid], x))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* One merge of sorted runs of 2^lw items into runs twice as long: item j
 * of row r goes to its rank in its run plus its rank in the other run of
 * its pair. */
DL_HD void
dl_cuda_sort_merge_elem (const DlCudaSortItem *src,
                         DlCudaSortItem *dst,
                         int64_t r,
                         int64_t j,
                         int64_t n,
                         int lw)
{
  const DlCudaSortItem *row = src + r * n;
  const int64_t w = (int64_t)1 << lw, lo = (j >> lw) << lw;
  const int64_t pair = ((j >> lw) & 1) ? lo - w : lo;
  const int64_t other = ((j >> lw) & 1) ? lo - w : lo + w;
  const int64_t other_len = other >= n ? 0 : (n - other < w ? n - other : w);

  dst[r * n + pair + (j - lo) + dl_cuda_sort_rank (row + other, other_len, row[j])] = row[j];
}

/* the end of the global sort: element j of row r from the copy of the
 * original rows, with its position */
DL_HD void
dl_cuda_sort_finish_elem (char *data,
                          int64_t *indices,
                          const char *orig,
                          const DlCudaSortItem *items,
                          int64_t r,
                          int64_t j,
                          int64_t n,
                          int es)
{
  const int64_t pos = items[r * n + j].pos;

  dl_cuda_copy_bytes (data + (r * n + j) * es, orig + (r * n + pos) * es, es);
  indices[r * n + j] = pos;
}
