/* test-cuda-index.cpp: the CUDA module's indexing, sorting and grouping
 * bodies (libdl/backends/cuda/dl-cuda-index.cuh) run on the host and
 * compared with the CPU backend's slots on random inputs of every dtype:
 * gathers and scatters along a dim (and their bad indices reported in the
 * status), nonzero, stable sorts (whole rows, k first, the k-th alone;
 * rows sorted in one block and rows merged from tiles), running extrema,
 * row gathers and scatters and the groups of a sorted array. Inputs have
 * few distinct values (ties), NaNs, signed zeros and empty shapes.
 *
 * A kernel's elements run in a shuffled order; a block's phases (see
 * dl-cuda-index.cuh) run each of the block's threads in a shuffled order
 * before the next phase, as the barriers between them let the GPU; the
 * tiles and rows of a kernel run in a shuffled order too.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "backends/cuda/dl-cuda-index.cuh"
#include "backends/dl-backend.h"
#include "test-cuda-host.h"

static const DlDType all_dtypes[] = {
  DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16,
  DL_DTYPE_INT32,   DL_DTYPE_INT64,   DL_DTYPE_UINT8,   DL_DTYPE_BOOL,
};

/* a block of nt threads: each phase runs all of them, shuffled */
struct HostBlock
{
  int nt;

  template <typename F> void operator() (F f) const
  {
    for (int64_t t : shuffled (nt))
      f ((int)t);
  }
};

static int64_t
rand_int (int64_t lo, int64_t hi)
{
  return g_rand_int_range (rng, (gint32)lo, (gint32)hi);
}

/* n random elements of dt: small values (many ties) around 0, for floats
 * signed zeros and, with nans, a NaN now and then */
static std::vector<char>
random_elements (DlDType dt, int64_t n, int distinct, bool nans, bool signed_zeros = true)
{
  const int es = dl_cuda_dtype_size (dt);
  std::vector<char> buf (n * es + 8);

  for (int64_t i = 0; i < n; i++)
    {
      char *p = buf.data () + i * es;
      int64_t v = rand_int (0, distinct);

      if (dt == DL_DTYPE_BOOL)
        dl_cuda_store (p, dt, v % 2);
      else if (dt == DL_DTYPE_UINT8)
        dl_cuda_store (p, dt, v * 37 % 256);
      else if (dl_cuda_is_int_dtype (dt))
        dl_cuda_store (p, dt, v - distinct / 2);
      else if (nans && rand_int (0, 8) == 0)
        dl_cuda_store (p, dt, (double)NAN);
      else if (signed_zeros && v == distinct / 2 && rand_int (0, 2))
        dl_cuda_store (p, dt, -0.0);
      else
        dl_cuda_store (p, dt, (double)(v - distinct / 2) * 0.5);
    }
  return buf;
}

/* element i of a and b are the same: the same bytes, or both NaN */
static bool
same_elem (const char *a, const char *b, DlDType dt)
{
  const int es = dl_cuda_dtype_size (dt);

  if (memcmp (a, b, es) == 0)
    return true;
  if (dl_cuda_is_int_dtype (dt))
    return false;
  return isnan (dl_cuda_load_f (a, dt)) && isnan (dl_cuda_load_f (b, dt));
}

static void
assert_same (const char *what, const char *a, const char *b, int64_t n, DlDType dt)
{
  const int es = dl_cuda_dtype_size (dt);

  for (int64_t i = 0; i < n; i++)
    if (!same_elem (a + i * es, b + i * es, dt))
      g_error ("%s (%s): element %" G_GINT64_FORMAT " is %g, the CPU's %g", what,
               dl_dtype_get_name (dt), i, dl_cuda_load_f (b + i * es, dt),
               dl_cuda_load_f (a + i * es, dt));
}

static void
assert_same_i64 (const char *what, const int64_t *a, const int64_t *b, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    if (a[i] != b[i])
      g_error ("%s: entry %" G_GINT64_FORMAT " is %" G_GINT64_FORMAT
               ", the CPU's %" G_GINT64_FORMAT,
               what, i, b[i], a[i]);
}

/* ---- index ------------------------------------------------------------------ */

/* Contiguous byte strides of a shape, in a random order of the dims (a
 * permuted layout); returns the number of elements */
static int64_t
permuted_strides (int ndim, const int64_t *shape, int64_t es, int64_t *strides)
{
  std::vector<int64_t> order = shuffled (ndim);
  int64_t step = es;

  for (int k = ndim - 1; k >= 0; k--)
    {
      strides[order[k]] = step;
      step *= shape[order[k]] > 0 ? shape[order[k]] : 1;
    }
  return step / es;
}

static const char *
index_op_name (DlIndexOp op)
{
  static const char *names[]
      = { "gather", "scatter", "scatter_add", "scatter_mul", "scatter_amax", "scatter_amin" };
  return names[op];
}

/* float values of every magnitude a float16 has, with its precision */
static void
wide_floats (std::vector<char> &buf, DlDType dt)
{
  const int es = dl_cuda_dtype_size (dt);

  for (size_t i = 0; i + es <= buf.size (); i += es)
    dl_cuda_store (buf.data () + i, dt,
                   (rand_int (0, 2) ? -1.0 : 1.0)
                       * ldexp (1.0 + rand_int (0, 1024) / 1024.0, (int)rand_int (-14, 16)));
}

/* One random case of @op on @dt: self shaped as the index with dim's size
 * dim_size, other as the index, both in permuted layouts. A scatter that
 * does not reduce gets distinct indices along each line of dim (its
 * result is otherwise whichever write lands last); values are small
 * integers, so that sums and products are exact in any order. With wide,
 * every scatter gets distinct indices and floats of all magnitudes, so
 * that one rounding of each reduction is compared. n_bad indices are
 * made out of range. */
static void
index_case (DlIndexOp op, DlDType dt, bool exclude_self, int n_bad, bool empty, bool wide = false)
{
  const int es = dl_cuda_dtype_size (dt);
  const bool plain_scatter = op == DL_INDEX_SCATTER || wide;
  DlIndexArgs a = {};
  int64_t self_shape[DL_MAX_DIMS], n_rows, n_cols, n_index = 1, n_self, n_other;
  int64_t index_strides[DL_MAX_DIMS];
  std::vector<int64_t> bad;

  a.ndim = (int)rand_int (1, 4);
  a.dim = (int)rand_int (0, a.ndim);
  a.dim_size = rand_int (1, 6);
  for (int d = 0; d < a.ndim; d++)
    {
      a.shape[d] = rand_int (1, 5);
      if (d == a.dim && plain_scatter && a.shape[d] > a.dim_size)
        a.shape[d] = a.dim_size;
      self_shape[d] = d == a.dim ? a.dim_size : a.shape[d];
    }
  if (empty)
    a.shape[rand_int (0, a.ndim)] = 0;
  n_self = permuted_strides (a.ndim, self_shape, es, a.self_strides);
  n_other = permuted_strides (a.ndim, a.shape, es, a.other_strides);
  for (int d = a.ndim - 1; d >= 0; d--)
    {
      index_strides[d] = n_index * 8;
      n_index *= a.shape[d];
    }
  memcpy (a.index_strides, index_strides, sizeof index_strides);
  a.exclude_self = exclude_self;

  /* the index: a random permutation's prefix along each line of dim */
  std::vector<int64_t> index (n_index + 1);
  for (int64_t i = 0; i < n_index; i++)
    {
      int64_t line_pos = i / (index_strides[a.dim] / 8) % a.shape[a.dim];

      if (line_pos == 0)
        {
          std::vector<int64_t> perm = shuffled (a.dim_size);
          for (int64_t q = 0; q < a.shape[a.dim]; q++)
            index[i + q * (index_strides[a.dim] / 8)]
                = plain_scatter ? perm[q] : rand_int (0, a.dim_size);
        }
    }
  for (int b = 0; b < n_bad && n_index > 0; b++)
    {
      int64_t at = rand_int (0, n_index);

      index[at] = rand_int (0, 2) ? -1 - rand_int (0, 3) : a.dim_size + rand_int (0, 3);
      bad.push_back (index[at]);
    }

  /* max and min keep the first of -0 and +0: no signed zeros, whose
   * result would depend on the order */
  const bool extremum = op == DL_INDEX_SCATTER_AMAX || op == DL_INDEX_SCATTER_AMIN;
  std::vector<char> self = random_elements (dt, n_self, 5, extremum, !extremum);
  std::vector<char> other = random_elements (dt, n_other, 5, extremum, !extremum);
  if (wide)
    {
      wide_floats (self, dt);
      wide_floats (other, dt);
    }
  std::vector<char> self2 (self), other2 (other);
  DlKernelStatus cpu_st = {}, gpu_st = {};

  a.index = (const char *)index.data ();
  a.self = self.data ();
  a.other = other.data ();
  cpu_ctx.backend->index (&cpu_ctx, op, &a, dt, &cpu_st);

  a.self = self2.data ();
  a.other = other2.data ();
  dl_cuda_index_extent (a, &n_rows, &n_cols);
  for (int pass = exclude_self && op != DL_INDEX_GATHER && !plain_scatter ? 0 : 1; pass < 2; pass++)
    for (int64_t e : shuffled (n_rows * n_cols))
      dl_cuda_index_elem (a, op, dt, dl_cuda_index_row (a, e / n_cols), e % n_cols, pass == 0,
                          &gpu_st);

  g_autofree char *what
      = g_strdup_printf ("%s, %d dims, dim %d of %" G_GINT64_FORMAT "%s", index_op_name (op),
                         a.ndim, a.dim, a.dim_size, exclude_self ? ", exclude_self" : "");
  if (!bad.empty ())
    {
      /* reported, with one of the bad indices; the output is undefined */
      g_assert_cmpint (cpu_st.error, ==, DL_KERNEL_INDEX_OUT_OF_BOUNDS);
      g_assert_cmpint (gpu_st.error, ==, DL_KERNEL_INDEX_OUT_OF_BOUNDS);
      g_assert_true (std::find (bad.begin (), bad.end (), gpu_st.value) != bad.end ());
      return;
    }
  g_assert_cmpint (cpu_st.error, ==, DL_KERNEL_OK);
  g_assert_cmpint (gpu_st.error, ==, DL_KERNEL_OK);
  assert_same (what, self.data (), self2.data (), n_self, dt);
  assert_same (what, other.data (), other2.data (), n_other, dt);
}

static void
test_index (void)
{
  for (DlIndexOp op : { DL_INDEX_GATHER, DL_INDEX_SCATTER, DL_INDEX_SCATTER_ADD,
                        DL_INDEX_SCATTER_MUL, DL_INDEX_SCATTER_AMAX, DL_INDEX_SCATTER_AMIN })
    for (DlDType dt : all_dtypes)
      for (int c = 0; c < 12; c++)
        index_case (op, dt, c % 2 == 1, 0, false);
}

static void
test_index_rounding (void)
{
  for (DlIndexOp op : { DL_INDEX_SCATTER_ADD, DL_INDEX_SCATTER_MUL })
    for (DlDType dt : { DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16, DL_DTYPE_FLOAT32 })
      for (int c = 0; c < 40; c++)
        index_case (op, dt, false, 0, false, true);
}

static void
test_index_bad (void)
{
  for (DlIndexOp op :
       { DL_INDEX_GATHER, DL_INDEX_SCATTER, DL_INDEX_SCATTER_ADD, DL_INDEX_SCATTER_AMAX })
    for (DlDType dt : { DL_DTYPE_FLOAT32, DL_DTYPE_INT64, DL_DTYPE_BOOL })
      for (int c = 0; c < 6; c++)
        index_case (op, dt, c % 2 == 1, 1 + c % 3, false);
}

static void
test_index_empty (void)
{
  for (DlIndexOp op : { DL_INDEX_GATHER, DL_INDEX_SCATTER, DL_INDEX_SCATTER_ADD })
    for (int c = 0; c < 4; c++)
      index_case (op, DL_DTYPE_FLOAT32, c % 2 == 1, 0, true);
}

/* ---- nonzero -------------------------------------------------------------------- */

static void
nonzero_case (DlDType dt, int ndim, bool empty, bool contiguous)
{
  const int es = dl_cuda_dtype_size (dt);
  int64_t shape[DL_MAX_DIMS], strides[DL_MAX_DIMS], numel = 1, count_cpu = -1, count_gpu = -1;
  int64_t n_buf;

  for (int d = 0; d < ndim; d++)
    shape[d] = rand_int (1, d == ndim - 1 ? 700 : 6);
  if (empty && ndim > 0)
    shape[rand_int (0, ndim)] = 0;
  for (int d = 0; d < ndim; d++)
    numel *= shape[d];
  if (contiguous)
    {
      n_buf = numel;
      for (int d = ndim - 1, step = es; d >= 0; step *= (int)shape[d], d--)
        strides[d] = step;
    }
  else /* a permuted layout, every other element */
    n_buf = permuted_strides (ndim, shape, 2 * es, strides) * 2;
  std::vector<char> buf = random_elements (dt, n_buf, 3, true);

  cpu_ctx.backend->nonzero (&cpu_ctx, buf.data (), dt, ndim, shape, strides, &count_cpu, NULL);

  DlCudaNonzero s;
  dl_cuda_nonzero_init (&s, buf.data (), dt, ndim, shape, strides);
  const int64_t n_tiles = (numel + DL_CUDA_TILE - 1) / DL_CUDA_TILE;
  std::vector<int64_t> sums (n_tiles + 1), sa (DL_CUDA_TILE), sb (DL_CUDA_TILE);
  int64_t carry;
  const HostBlock block = { DL_CUDA_TILE };

  for (int64_t t : shuffled (n_tiles))
    dl_cuda_tile_pass (s, numel, t, sums.data (), (const int64_t *)NULL, sa.data (), sb.data (),
                       block);
  dl_cuda_tile_offsets (sums.data (), n_tiles, &count_gpu, sa.data (), sb.data (), &carry, block);
  g_assert_cmpint (count_gpu, ==, count_cpu);

  std::vector<int64_t> cpu_out (count_cpu * ndim + 1, -7), gpu_out (count_cpu * ndim + 1, -7);
  cpu_ctx.backend->nonzero (&cpu_ctx, buf.data (), dt, ndim, shape, strides, NULL, cpu_out.data ());
  s.out = gpu_out.data ();
  for (int64_t t : shuffled (n_tiles))
    dl_cuda_tile_pass (s, numel, t, (int64_t *)NULL, sums.data (), sa.data (), sb.data (), block);
  g_autofree char *what = g_strdup_printf ("nonzero of %s, %d dims, %" G_GINT64_FORMAT " elements",
                                           dl_dtype_get_name (dt), ndim, numel);
  assert_same_i64 (what, cpu_out.data (), gpu_out.data (), count_cpu * ndim + 1);
}

static void
test_nonzero (void)
{
  for (DlDType dt : all_dtypes)
    for (int ndim = 0; ndim <= 4; ndim++)
      for (int c = 0; c < 4; c++)
        nonzero_case (dt, ndim, false, c % 2 == 0);
  for (int c = 0; c < 4; c++)
    nonzero_case (DL_DTYPE_FLOAT32, 1 + c, true, c % 2 == 0);
}

/* ---- unique_sorted ---------------------------------------------------------------- */

static void
test_unique_sorted (void)
{
  for (DlDType dt : all_dtypes)
    for (int64_t n : { 1, 2, 7, 255, 256, 257, 1000, 3000 })
      {
        const int es = dl_cuda_dtype_size (dt);
        std::vector<char> buf = random_elements (dt, n, (int)(n / 4 + 2), true);
        std::vector<int64_t> perm (n), idx (n);

        /* sorted by the CPU: NaNs last */
        cpu_ctx.backend->sort (&cpu_ctx, buf.data (), idx.data (), 1, n, n, FALSE, dt, FALSE);

        std::vector<char> cpu_vals (n * es + 8, 3), gpu_vals (n * es + 8, 3);
        std::vector<int64_t> cpu_counts (n + 1, -5), gpu_counts (n + 1, -5);
        std::vector<int64_t> cpu_group (n + 1, -5), gpu_group (n + 1, -5);
        int64_t cpu_ng = -1, gpu_ng = -1, carry;

        cpu_ctx.backend->unique_sorted (&cpu_ctx, buf.data (), n, dt, cpu_vals.data (),
                                        cpu_counts.data (), cpu_group.data (), &cpu_ng);

        const DlCudaUnique u
            = { buf.data (), dt, es, gpu_vals.data (), gpu_counts.data (), gpu_group.data () };
        const int64_t n_tiles = (n + DL_CUDA_TILE - 1) / DL_CUDA_TILE;
        std::vector<int64_t> sums (n_tiles), sa (DL_CUDA_TILE), sb (DL_CUDA_TILE);
        const HostBlock block = { DL_CUDA_TILE };

        for (int64_t t : shuffled (n_tiles))
          dl_cuda_tile_pass (u, n, t, sums.data (), (const int64_t *)NULL, sa.data (), sb.data (),
                             block);
        dl_cuda_tile_offsets (sums.data (), n_tiles, &gpu_ng, sa.data (), sb.data (), &carry,
                              block);
        for (int64_t t : shuffled (n_tiles))
          dl_cuda_tile_pass (u, n, t, (int64_t *)NULL, sums.data (), sa.data (), sb.data (), block);
        for (int64_t i : shuffled (n))
          dl_cuda_unique_count (u, n, i);

        g_autofree char *what = g_strdup_printf ("unique_sorted of %" G_GINT64_FORMAT " %s", n,
                                                 dl_dtype_get_name (dt));
        g_assert_cmpint (gpu_ng, ==, cpu_ng);
        assert_same (what, cpu_vals.data (), gpu_vals.data (), cpu_ng, dt);
        assert_same_i64 (what, cpu_counts.data (), gpu_counts.data (), cpu_ng);
        assert_same_i64 (what, cpu_group.data (), gpu_group.data (), n);
      }
}

/* ---- scan_extremum ----------------------------------------------------------------- */

template <typename V>
static void
scan_extremum_rows (char *data, int64_t *idx, int64_t rows, int64_t n, DlDType dt, bool is_max)
{
  DlCudaExtremum<V> sa[DL_CUDA_TILE], sb[DL_CUDA_TILE], carry;

  for (int64_t r : shuffled (rows))
    dl_cuda_scan_extremum_row<V> (data, idx, r, n, dt, is_max, sa, sb, &carry,
                                  HostBlock{ DL_CUDA_TILE });
}

static void
test_scan_extremum (void)
{
  for (bool is_max : { true, false })
    for (DlDType dt : all_dtypes)
      for (int64_t n : { 0, 1, 5, 256, 300, 1500 })
        {
          const int64_t rows = rand_int (0, 4);
          std::vector<char> cpu = random_elements (dt, rows * n, 6, n > 1), gpu (cpu);
          std::vector<int64_t> cpu_idx (rows * n + 1, -3), gpu_idx (rows * n + 1, -3);

          cpu_ctx.backend->scan_extremum (&cpu_ctx, cpu.data (), cpu_idx.data (), rows, n, dt,
                                          is_max);
          if (dl_cuda_is_int_dtype (dt))
            scan_extremum_rows<int64_t> (gpu.data (), gpu_idx.data (), rows, n, dt, is_max);
          else
            scan_extremum_rows<double> (gpu.data (), gpu_idx.data (), rows, n, dt, is_max);
          g_autofree char *what = g_strdup_printf ("%s of %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT,
                                                   is_max ? "cummax" : "cummin", rows, n);
          assert_same (what, cpu.data (), gpu.data (), rows * n, dt);
          assert_same_i64 (what, cpu_idx.data (), gpu_idx.data (), rows * n + 1);
        }
}

/* ---- sort ------------------------------------------------------------------------- */

/* the slot's work on the host: a block a row, or keys, tiles and merges */
static void
host_sort (char *data, int64_t *idx, int64_t rows, int64_t n, DlDType dt, bool desc)
{
  const int es = dl_cuda_dtype_size (dt);

  if (n <= DL_CUDA_SORT_BLOCK)
    {
      const int p = dl_cuda_sort_span (n);
      const int nt = p / 2 < 32 ? 32 : p / 2 > 512 ? 512 : p / 2;
      std::vector<DlCudaSortItem> items (p);

      for (int64_t r : shuffled (rows))
        dl_cuda_sort_row (data, idx, r, n, dt, desc, items.data (), nt, HostBlock{ nt });
      return;
    }
  const int64_t tiles = (n + DL_CUDA_SORT_BLOCK - 1) / DL_CUDA_SORT_BLOCK;
  std::vector<DlCudaSortItem> a (rows * n), b (rows * n), items (DL_CUDA_SORT_BLOCK);
  std::vector<char> orig (data, data + rows * n * es);

  for (int64_t e : shuffled (rows * n))
    a[e] = DlCudaSortItem{ dl_cuda_sort_key (data + e * es, dt, desc), e % n };
  for (int64_t t : shuffled (rows * tiles))
    dl_cuda_sort_tile (a.data (), t / tiles, t % tiles, n, items.data (), 512, HostBlock{ 512 });
  for (int lw = 11; ((int64_t)1 << lw) < n; lw++)
    {
      for (int64_t e : shuffled (rows * n))
        dl_cuda_sort_merge_elem (a.data (), b.data (), e / n, e % n, n, lw);
      std::swap (a, b);
    }
  for (int64_t e : shuffled (rows * n))
    dl_cuda_sort_finish_elem (data, idx, orig.data (), a.data (), e / n, e % n, n, es);
}

static void
test_sort (void)
{
  g_assert_cmpint (1 << 11, ==, DL_CUDA_SORT_BLOCK);
  for (DlDType dt : all_dtypes)
    for (int64_t n : { 1, 2, 3, 17, 100, 2048, 2049, 3000, 5000 })
      for (bool desc : { false, true })
        {
          const int64_t rows = n > 2048 ? 2 : rand_int (1, 4);
          const int es = dl_cuda_dtype_size (dt);
          std::vector<char> orig = random_elements (dt, rows * n, n > 100 ? 40 : 7, true);
          std::vector<char> cpu (orig), gpu (orig);
          std::vector<int64_t> cpu_idx (rows * n), gpu_idx (rows * n);
          /* k first, or the k-th alone, as topk and kthvalue ask */
          const int64_t k = rand_int (1, (gint32)n + 1);
          const bool kth_only = rand_int (0, 2);

          host_sort (gpu.data (), gpu_idx.data (), rows, n, dt, desc);
          g_autofree char *what
              = g_strdup_printf ("sort of %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT "%s", rows, n,
                                 desc ? ", descending" : "");

          cpu_ctx.backend->sort (&cpu_ctx, cpu.data (), cpu_idx.data (), rows, n, n, FALSE, dt,
                                 desc);
          assert_same (what, cpu.data (), gpu.data (), rows * n, dt);
          assert_same_i64 (what, cpu_idx.data (), gpu_idx.data (), rows * n);

          /* the CPU's partial sorts agree where they are defined */
          cpu = orig;
          cpu_ctx.backend->sort (&cpu_ctx, cpu.data (), cpu_idx.data (), rows, n, k, kth_only, dt,
                                 desc);
          for (int64_t r = 0; r < rows; r++)
            for (int64_t j = kth_only ? k - 1 : 0; j < k; j++)
              {
                const int64_t e = r * n + j;

                g_assert_cmpint (cpu_idx[e], ==, gpu_idx[e]);
                g_assert_true (same_elem (cpu.data () + e * es, gpu.data () + e * es, dt));
              }
        }
}

/* every row stays a permutation of itself, its values where the indices
 * say they were */
static void
test_sort_is_a_permutation (void)
{
  for (int64_t n : { 5, 1000, 4097 })
    {
      const DlDType dt = DL_DTYPE_FLOAT32;
      std::vector<char> orig = random_elements (dt, n, 9, true), data (orig);
      std::vector<int64_t> idx (n);
      std::vector<bool> seen (n);

      host_sort (data.data (), idx.data (), 1, n, dt, false);
      for (int64_t j = 0; j < n; j++)
        {
          g_assert_true (idx[j] >= 0 && idx[j] < n && !seen[idx[j]]);
          seen[idx[j]] = true;
          g_assert_cmpmem (data.data () + j * 4, 4, orig.data () + idx[j] * 4, 4);
          if (j > 0)
            {
              float x = *(float *)(data.data () + (j - 1) * 4),
                    y = *(float *)(data.data () + j * 4);
              g_assert_true (isnan (y) || x <= y);
            }
        }
    }
}

/* ---- gather_rows, scatter_rows ------------------------------------------------------ */

static void
test_gather_rows (void)
{
  for (DlDType dt : all_dtypes)
    for (int c = 0; c < 10; c++)
      {
        const int es = dl_cuda_dtype_size (dt);
        const int64_t rows = rand_int (0, 5), n_src = rand_int (1, 40), n_out = rand_int (0, 40);
        std::vector<char> src = random_elements (dt, rows * n_src, 9, true);
        std::vector<char> cpu (rows * n_out * es + 8, 1), gpu (cpu);
        std::vector<int64_t> index (rows * n_out + 1);

        /* some out of range: those outputs are left alone */
        for (auto &i : index)
          i = rand_int (-1, (gint32)n_src + 1);
        cpu_ctx.backend->gather_rows (&cpu_ctx, cpu.data (), src.data (), index.data (), rows,
                                      n_out, n_src, dt);
        for (int64_t e : shuffled (rows * n_out))
          dl_cuda_gather_rows_elem (gpu.data (), src.data (), index.data (), e / n_out, e % n_out,
                                    n_out, n_src, es);
        assert_same ("gather_rows", cpu.data (), gpu.data (), rows * n_out, dt);
      }
}

static void
test_scatter_rows (void)
{
  for (bool accumulate : { false, true })
    for (DlDType dt : all_dtypes)
      for (int c = 0; c < 10; c++)
        {
          const int64_t rows = rand_int (0, 5), n_out = rand_int (1, 40);
          const int64_t n_src = accumulate ? rand_int (0, 60) : rand_int (0, (gint32)n_out + 1);
          /* small integers: sums exact in any order */
          std::vector<char> src = random_elements (dt, rows * n_src, 9, false);
          std::vector<char> cpu = random_elements (dt, rows * n_out, 9, false), gpu (cpu);
          std::vector<int64_t> index (rows * n_src + 1);

          for (int64_t r = 0; r < rows; r++)
            {
              /* without accumulate, distinct places in the row */
              std::vector<int64_t> perm = shuffled (n_out);
              for (int64_t j = 0; j < n_src; j++)
                index[r * n_src + j] = accumulate ? rand_int (0, (gint32)n_out) : perm[j];
            }
          if (rows * n_src > 0)
            index[rand_int (0, (gint32)(rows * n_src))] = n_out + 1; /* skipped */
          cpu_ctx.backend->scatter_rows (&cpu_ctx, cpu.data (), src.data (), index.data (), rows,
                                         n_src, n_out, dt, accumulate);
          for (int64_t e : shuffled (rows * n_src))
            dl_cuda_scatter_rows_elem (gpu.data (), src.data (), index.data (), e / n_src,
                                       e % n_src, n_src, n_out, dt, accumulate);
          assert_same (accumulate ? "scatter_rows, accumulate" : "scatter_rows", cpu.data (),
                       gpu.data (), rows * n_out, dt);
        }
}

int
main (int argc, char **argv)
{
  test_cuda_host_init (&argc, &argv);
  g_test_add_func ("/cuda-index/index", test_index);
  g_test_add_func ("/cuda-index/index/rounding", test_index_rounding);
  g_test_add_func ("/cuda-index/index/bad", test_index_bad);
  g_test_add_func ("/cuda-index/index/empty", test_index_empty);
  g_test_add_func ("/cuda-index/nonzero", test_nonzero);
  g_test_add_func ("/cuda-index/unique-sorted", test_unique_sorted);
  g_test_add_func ("/cuda-index/scan-extremum", test_scan_extremum);
  g_test_add_func ("/cuda-index/sort", test_sort);
  g_test_add_func ("/cuda-index/sort/permutation", test_sort_is_a_permutation);
  g_test_add_func ("/cuda-index/gather-rows", test_gather_rows);
  g_test_add_func ("/cuda-index/scatter-rows", test_scatter_rows);
  return test_cuda_host_run ();
}
