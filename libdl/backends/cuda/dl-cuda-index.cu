/* dl-cuda-index.cu: the CUDA module's index, nonzero, sort, scan_extremum,
 * scatter_rows, gather_rows and unique_sorted slots: kernels running the
 * bodies of dl-cuda-index.cuh on the context's stream.
 *
 *   index, gather_rows, scatter_rows: a grid of rows by columns, each
 *     thread an element, the row's offsets found once per row
 *   nonzero, unique_sorted: tiles of DL_CUDA_TILE elements, a block each:
 *     their counts, the counts' offsets (one block), then each tile's
 *     block scan places its elements
 *   scan_extremum: a block a row, a block scan a tile of the row
 *   sort: a block a row sorted in shared memory (rows up to
 *     DL_CUDA_SORT_BLOCK), longer rows as tiles sorted so, then merged in
 *     global memory, each element placed by binary search; always the
 *     whole row, which is what k and kth_only ask for and more
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-index.cuh"
#include "dl-cuda-index.h"
#include "dl-cuda-launch.cuh"
#include "dl-cuda-private.h"

/* ---- launches ------------------------------------------------------------------ */

/* A grid over n_rows rows of n_cols columns: blocks of 256 threads, a
 * power of two (32 or more) of them along the columns */
struct RowsLaunch
{
  dim3 grid, block;
};

static RowsLaunch
rows_launch (int64_t n_rows, int64_t n_cols)
{
  const int64_t most = 65535;
  unsigned bx = 32, by;
  int64_t gx, gy;

  while (bx < DL_CUDA_LAUNCH_THREADS && bx < n_cols)
    bx <<= 1;
  by = DL_CUDA_LAUNCH_THREADS / bx;
  gx = (n_cols + bx - 1) / bx;
  gy = (n_rows + by - 1) / by;
  return { dim3 ((unsigned)(gx < most ? gx : most), (unsigned)(gy < most ? gy : most)),
           dim3 (bx, by) };
}

#define EACH_ROW(r, n_rows)                                                                        \
  for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < (n_rows);                   \
       r += (int64_t)gridDim.y * blockDim.y)
#define EACH_COL(j, n_cols)                                                                        \
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < (n_cols);                   \
       j += (int64_t)gridDim.x * blockDim.x)

/* a block's phases (see dl-cuda-index.cuh): the thread's part, then a
 * barrier */
#define BLOCK_PHASES                                                                               \
  auto each = [&] (auto f) {                                                                       \
    f ((int)threadIdx.x);                                                                          \
    __syncthreads ();                                                                              \
  }

static unsigned
blocks_for (int64_t n)
{
  return (unsigned)(n < 65535 ? n : 65535);
}

/* scratch from the device's caching allocator, for the current stream */
static void *
scratch (DlBackendContext *ctx, gsize bytes, const char *op)
{
  void *p = ctx->backend->raw_alloc (ctx, bytes);

  if (!p)
    g_warning ("%s on cuda:%d: no room for %" G_GSIZE_FORMAT " bytes of scratch", op,
               ctx->device_index, bytes);
  return p;
}

/* ---- index, gather_rows, scatter_rows ------------------------------------------ */

__global__ void
index_kernel (DlIndexArgs a,
              DlIndexOp op,
              DlDType dt,
              int64_t n_rows,
              int64_t n_cols,
              bool identity,
              DlKernelStatus *status)
{
  EACH_ROW (r, n_rows)
  {
    const DlCudaIndexRow row = dl_cuda_index_row (a, r);

    EACH_COL (j, n_cols)
    dl_cuda_index_elem (a, op, dt, row, j, identity, status);
  }
}

void
dl_cuda_index (DlBackendContext *ctx,
               DlIndexOp op,
               const DlIndexArgs *args,
               DlDType dtype,
               DlKernelStatus *status)
{
  cudaStream_t stream;
  int64_t n_rows, n_cols;
  RowsLaunch l;

  dl_cuda_index_extent (*args, &n_rows, &n_cols);
  if (n_rows == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  stream = dl_cuda_current_stream (ctx);
  l = rows_launch (n_rows, n_cols);
  if (args->exclude_self && op != DL_INDEX_GATHER && op != DL_INDEX_SCATTER)
    {
      index_kernel<<<l.grid, l.block, 0, stream>>> (*args, op, dtype, n_rows, n_cols, true,
                                                      status);
      DL_CUDA_CHECK (cudaGetLastError ());
    }
  index_kernel<<<l.grid, l.block, 0, stream>>> (*args, op, dtype, n_rows, n_cols, false, status);
  DL_CUDA_CHECK (cudaGetLastError ());
}

__global__ void
gather_rows_kernel (char *out,
                    const char *src,
                    const int64_t *index,
                    int64_t n_rows,
                    int64_t n_out,
                    int64_t n_src,
                    int es)
{
  EACH_ROW (r, n_rows)
  EACH_COL (j, n_out)
  dl_cuda_gather_rows_elem (out, src, index, r, j, n_out, n_src, es);
}

void
dl_cuda_gather_rows (DlBackendContext *ctx,
                     void *out,
                     const void *src,
                     const void *index,
                     gint64 n_rows,
                     gint64 n_out,
                     gint64 n_src,
                     DlDType dtype)
{
  RowsLaunch l;

  if (n_rows == 0 || n_out == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  l = rows_launch (n_rows, n_out);
  gather_rows_kernel<<<l.grid, l.block, 0, dl_cuda_current_stream (ctx)>>> (
      (char *)out, (const char *)src, (const int64_t *)index, n_rows, n_out, n_src,
      dl_cuda_dtype_size (dtype));
  DL_CUDA_CHECK (cudaGetLastError ());
}

__global__ void
scatter_rows_kernel (char *out,
                     const char *src,
                     const int64_t *index,
                     int64_t n_rows,
                     int64_t n_src,
                     int64_t n_out,
                     DlDType dt,
                     bool accumulate)
{
  EACH_ROW (r, n_rows)
  EACH_COL (j, n_src)
  dl_cuda_scatter_rows_elem (out, src, index, r, j, n_src, n_out, dt, accumulate);
}

void
dl_cuda_scatter_rows (DlBackendContext *ctx,
                      void *out,
                      const void *src,
                      const void *index,
                      gint64 n_rows,
                      gint64 n_src,
                      gint64 n_out,
                      DlDType dtype,
                      gboolean accumulate)
{
  RowsLaunch l;

  if (n_rows == 0 || n_src == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  l = rows_launch (n_rows, n_src);
  scatter_rows_kernel<<<l.grid, l.block, 0, dl_cuda_current_stream (ctx)>>> (
      (char *)out, (const char *)src, (const int64_t *)index, n_rows, n_src, n_out, dtype,
      accumulate != FALSE);
  DL_CUDA_CHECK (cudaGetLastError ());
}

/* ---- tile scans: nonzero, unique_sorted ---------------------------------------- */

template <typename Src>
__global__ void
tile_pass_kernel (Src s, int64_t n, int64_t n_tiles, int64_t *sums, const int64_t *offsets)
{
  __shared__ int64_t sa[DL_CUDA_TILE], sb[DL_CUDA_TILE];
  BLOCK_PHASES;

  for (int64_t tile = blockIdx.x; tile < n_tiles; tile += gridDim.x)
    dl_cuda_tile_pass (s, n, tile, sums, offsets, sa, sb, each);
}

__global__ void
tile_offsets_kernel (int64_t *sums, int64_t n_tiles, int64_t *total)
{
  __shared__ int64_t sa[DL_CUDA_TILE], sb[DL_CUDA_TILE], carry;
  BLOCK_PHASES;

  dl_cuda_tile_offsets (sums, n_tiles, total, sa, sb, &carry, each);
}

/* the taken elements of s counted into *total (device memory) and, with
 * take, each called with its place among them */
template <typename Src>
static void
tile_scan (DlBackendContext *ctx,
           const Src &s,
           int64_t n,
           int64_t *total,
           bool take,
           const char *op)
{
  const int64_t n_tiles = (n + DL_CUDA_TILE - 1) / DL_CUDA_TILE;
  const gsize bytes = (gsize)n_tiles * sizeof (int64_t);
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  int64_t *sums = (int64_t *)scratch (ctx, bytes, op);

  if (!sums)
    return;
  tile_pass_kernel<Src>
      <<<blocks_for (n_tiles), DL_CUDA_TILE, 0, stream>>> (s, n, n_tiles, sums, NULL);
  DL_CUDA_CHECK (cudaGetLastError ());
  tile_offsets_kernel<<<1, DL_CUDA_TILE, 0, stream>>> (sums, n_tiles, total);
  DL_CUDA_CHECK (cudaGetLastError ());
  if (take)
    {
      tile_pass_kernel<Src>
          <<<blocks_for (n_tiles), DL_CUDA_TILE, 0, stream>>> (s, n, n_tiles, NULL, sums);
      DL_CUDA_CHECK (cudaGetLastError ());
    }
  ctx->backend->raw_free (ctx, sums, bytes);
}

void
dl_cuda_nonzero (DlBackendContext *ctx,
                 const char *data,
                 DlDType dtype,
                 gint ndim,
                 const gint64 *shape,
                 const gint64 *strides,
                 gint64 *count,
                 gint64 *out)
{
  DlCudaNonzero s;
  int64_t numel = 1;
  int64_t *total = NULL;

  dl_cuda_nonzero_init (&s, data, dtype, ndim, shape, strides);
  s.out = out;
  for (gint d = 0; d < ndim; d++)
    numel *= shape[d];
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (numel == 0)
    {
      if (!out)
        DL_CUDA_CHECK (cudaMemsetAsync (count, 0, sizeof (int64_t), dl_cuda_current_stream (ctx)));
      return;
    }
  /* the count again when placing: the ops layer sized out by it */
  if (out && !(total = (int64_t *)scratch (ctx, sizeof (int64_t), "nonzero")))
    return;
  tile_scan (ctx, s, numel, out ? total : count, out != NULL, "nonzero");
  if (total)
    ctx->backend->raw_free (ctx, total, sizeof (int64_t));
}

__global__ void
unique_count_kernel (DlCudaUnique u, int64_t n)
{
  DL_CUDA_EACH (i, n)
  dl_cuda_unique_count (u, n, i);
}

void
dl_cuda_unique_sorted (DlBackendContext *ctx,
                       const void *sorted,
                       gint64 n,
                       DlDType dtype,
                       void *values,
                       void *counts,
                       void *group,
                       gint64 *n_groups)
{
  const DlCudaUnique u
      = { (const char *)sorted, dtype,           dl_cuda_dtype_size (dtype), (char *)values,
          (int64_t *)counts,    (int64_t *)group };

  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (n == 0)
    {
      DL_CUDA_CHECK (cudaMemsetAsync (n_groups, 0, sizeof (int64_t), dl_cuda_current_stream (ctx)));
      return;
    }
  tile_scan (ctx, u, n, n_groups, true, "unique");
  unique_count_kernel<<<DL_CUDA_GRID (n), 0, dl_cuda_current_stream (ctx)>>> (u, n);
  DL_CUDA_CHECK (cudaGetLastError ());
}

/* ---- scan_extremum ------------------------------------------------------------- */

template <typename V>
__global__ void
scan_extremum_kernel (char *data,
                      int64_t *indices,
                      int64_t n_rows,
                      int64_t n,
                      DlDType dt,
                      bool is_max)
{
  __shared__ DlCudaExtremum<V> sa[DL_CUDA_TILE], sb[DL_CUDA_TILE], carry;
  BLOCK_PHASES;

  for (int64_t r = blockIdx.x; r < n_rows; r += gridDim.x)
    dl_cuda_scan_extremum_row<V> (data, indices, r, n, dt, is_max, sa, sb, &carry, each);
}

void
dl_cuda_scan_extremum (DlBackendContext *ctx,
                       void *data,
                       void *indices,
                       gint64 n_rows,
                       gint64 n,
                       DlDType dtype,
                       gboolean is_max)
{
  cudaStream_t stream;

  if (n_rows == 0 || n == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  stream = dl_cuda_current_stream (ctx);
  if (dl_cuda_is_int_dtype (dtype))
    scan_extremum_kernel<int64_t><<<blocks_for (n_rows), DL_CUDA_TILE, 0, stream>>> (
        (char *)data, (int64_t *)indices, n_rows, n, dtype, is_max != FALSE);
  else
    scan_extremum_kernel<double><<<blocks_for (n_rows), DL_CUDA_TILE, 0, stream>>> (
        (char *)data, (int64_t *)indices, n_rows, n, dtype, is_max != FALSE);
  DL_CUDA_CHECK (cudaGetLastError ());
}

/* ---- sort ------------------------------------------------------------------------ */

__global__ void
sort_rows_kernel (char *data, int64_t *indices, int64_t n_rows, int64_t n, DlDType dt, bool desc)
{
  extern __shared__ DlCudaSortItem items[];
  BLOCK_PHASES;

  for (int64_t r = blockIdx.x; r < n_rows; r += gridDim.x)
    dl_cuda_sort_row (data, indices, r, n, dt, desc, items, (int)blockDim.x, each);
}

__global__ void
sort_keys_kernel (DlCudaSortItem *all,
                  const char *data,
                  int64_t n_rows,
                  int64_t n,
                  DlDType dt,
                  bool desc)
{
  const int es = dl_cuda_dtype_size (dt);

  EACH_ROW (r, n_rows)
  EACH_COL (j, n)
  all[r * n + j] = DlCudaSortItem{ dl_cuda_sort_key (data + (r * n + j) * es, dt, desc), j };
}

__global__ void
sort_tiles_kernel (DlCudaSortItem *all, int64_t n_rows, int64_t n, int64_t tiles_per_row)
{
  __shared__ DlCudaSortItem items[DL_CUDA_SORT_BLOCK];
  BLOCK_PHASES;

  for (int64_t b = blockIdx.x; b < n_rows * tiles_per_row; b += gridDim.x)
    {
      const int64_t r = b / tiles_per_row;

      dl_cuda_sort_tile (all, r, b - r * tiles_per_row, n, items, (int)blockDim.x, each);
    }
}

__global__ void
sort_merge_kernel (const DlCudaSortItem *src,
                   DlCudaSortItem *dst,
                   int64_t n_rows,
                   int64_t n,
                   int lw)
{
  EACH_ROW (r, n_rows)
  EACH_COL (j, n)
  dl_cuda_sort_merge_elem (src, dst, r, j, n, lw);
}

__global__ void
sort_finish_kernel (char *data,
                    int64_t *indices,
                    const char *orig,
                    const DlCudaSortItem *items,
                    int64_t n_rows,
                    int64_t n,
                    int es)
{
  EACH_ROW (r, n_rows)
  EACH_COL (j, n)
  dl_cuda_sort_finish_elem (data, indices, orig, items, r, j, n, es);
}

/* rows longer than DL_CUDA_SORT_BLOCK: keys, sorted tiles, merges of
 * runs twice as long each time, then the values from a copy */
static void
sort_long_rows (DlBackendContext *ctx,
                char *data,
                int64_t *indices,
                int64_t n_rows,
                int64_t n,
                DlDType dt,
                bool desc,
                cudaStream_t stream)
{
  const int es = dl_cuda_dtype_size (dt);
  const gsize item_bytes = (gsize)(n_rows * n) * sizeof (DlCudaSortItem);
  const gsize orig_bytes = (gsize)(n_rows * n) * es;
  const int64_t tiles_per_row = (n + DL_CUDA_SORT_BLOCK - 1) / DL_CUDA_SORT_BLOCK;
  const RowsLaunch l = rows_launch (n_rows, n);
  DlCudaSortItem *a = (DlCudaSortItem *)scratch (ctx, item_bytes, "sort");
  DlCudaSortItem *b = a ? (DlCudaSortItem *)scratch (ctx, item_bytes, "sort") : NULL;
  char *orig = b ? (char *)scratch (ctx, orig_bytes, "sort") : NULL;
  int lw = 0;

  if (orig)
    {
      sort_keys_kernel<<<l.grid, l.block, 0, stream>>> (a, data, n_rows, n, dt, desc);
      DL_CUDA_CHECK (cudaGetLastError ());
      sort_tiles_kernel<<<blocks_for (n_rows * tiles_per_row), 512, 0, stream>>> (a, n_rows, n,
                                                                                    tiles_per_row);
      DL_CUDA_CHECK (cudaGetLastError ());
      while (((int64_t)1 << lw) < DL_CUDA_SORT_BLOCK)
        lw++;
      for (; ((int64_t)1 << lw) < n; lw++)
        {
          DlCudaSortItem *t;

          sort_merge_kernel<<<l.grid, l.block, 0, stream>>> (a, b, n_rows, n, lw);
          DL_CUDA_CHECK (cudaGetLastError ());
          t = a;
          a = b;
          b = t;
        }
      DL_CUDA_CHECK (cudaMemcpyAsync (orig, data, orig_bytes, cudaMemcpyDeviceToDevice, stream));
      sort_finish_kernel<<<l.grid, l.block, 0, stream>>> (data, indices, orig, a, n_rows, n, es);
      DL_CUDA_CHECK (cudaGetLastError ());
    }
  if (orig)
    ctx->backend->raw_free (ctx, orig, orig_bytes);
  if (b)
    ctx->backend->raw_free (ctx, b, item_bytes);
  if (a)
    ctx->backend->raw_free (ctx, a, item_bytes);
}

void
dl_cuda_sort (DlBackendContext *ctx,
              void *data,
              void *indices,
              gint64 n_rows,
              gint64 n,
              gint64 k,
              gboolean kth_only,
              DlDType dtype,
              gboolean descending)
{
  cudaStream_t stream;

  if (n_rows == 0 || n == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  stream = dl_cuda_current_stream (ctx);
  if (n <= DL_CUDA_SORT_BLOCK)
    {
      const int p = dl_cuda_sort_span (n);
      const int nt = p / 2 < 32 ? 32 : p / 2 > 512 ? 512 : p / 2;

      sort_rows_kernel<<<blocks_for (n_rows), nt, p * sizeof (DlCudaSortItem), stream>>> (
          (char *)data, (int64_t *)indices, n_rows, n, dtype, descending != FALSE);
      DL_CUDA_CHECK (cudaGetLastError ());
    }
  else
    sort_long_rows (ctx, (char *)data, (int64_t *)indices, n_rows, n, dtype, descending != FALSE,
                    stream);
}
