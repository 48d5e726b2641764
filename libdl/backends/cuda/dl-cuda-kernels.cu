/* dl-cuda-kernels.cu: the CUDA module's elementwise, reduce, scan,
 * softmax and integer GEMM slots: thin grid-stride __global__ wrappers around the
 * bodies of dl-cuda-kernels.cuh (which the host test runs too), and the
 * slots that launch them on the context's stream (dl_cuda_current_stream).
 *
 * Compiled by nvcc with --fmad=false: no a * b + c contracts into an FMA,
 * so that the formulas round as the CPU backend's do.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-kernels.cuh"
#include "dl-cuda-kernels.h"
#include "dl-cuda-private.h"

#define DL_CUDA_THREADS 256

/* up to params' three numbers, by value in the kernel's arguments */
struct DlCudaParams
{
  double v[3];
};

static DlCudaParams
params_from (const double *params, int n)
{
  DlCudaParams p = { { 0, 0, 0 } };

  for (int i = 0; params && i < n; i++)
    p.v[i] = params[i];
  return p;
}

/* blocks for a grid-stride loop over @n items */
static unsigned
grid_size (int64_t n)
{
  int64_t blocks = (n + DL_CUDA_THREADS - 1) / DL_CUDA_THREADS;

  return (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
}

/* a launch of @kernel over @n items on @stream, and its launch error */
#define LAUNCH(kernel, n, stream, ...)                                                             \
  G_STMT_START                                                                                     \
  {                                                                                                \
    kernel<<<grid_size (n), DL_CUDA_THREADS, 0, (stream)>>> (__VA_ARGS__);                       \
    DL_CUDA_CHECK (cudaGetLastError ());                                                           \
  }                                                                                                \
  G_STMT_END

#define GRID_STRIDE(i, n)                                                                          \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                        \
       i += (int64_t)blockDim.x * gridDim.x)

/* ---- kernels ------------------------------------------------------------ */

__global__ void
copy_kernel (DlCudaIter it, DlDType dst, DlDType src)
{
  GRID_STRIDE (i, it.numel)
  {
    int64_t off[DL_CUDA_MAX_OPERANDS];
    dl_cuda_iter_offsets (it, i, off);
    dl_cuda_copy_elem (it.data[0] + off[0], dst, it.data[1] + off[1], src);
  }
}

__global__ void
fill_kernel (DlCudaIter it, DlCudaFillBytes value, int es)
{
  GRID_STRIDE (i, it.numel)
  {
    int64_t off[DL_CUDA_MAX_OPERANDS];
    dl_cuda_iter_offsets (it, i, off);
    dl_cuda_fill_elem (it.data[0] + off[0], value.bytes, es);
  }
}

__global__ void
unary_kernel (DlCudaIter it, DlUnaryOp op, DlDType dt, DlCudaParams p)
{
  GRID_STRIDE (i, it.numel)
  {
    int64_t off[DL_CUDA_MAX_OPERANDS];
    dl_cuda_iter_offsets (it, i, off);
    dl_cuda_unary_elem (op, dt, it.data[0] + off[0], it.data[1] + off[1], p.v);
  }
}

__global__ void
binary_kernel (DlCudaIter it, DlBinaryOp op, DlDType dt, double alpha)
{
  GRID_STRIDE (i, it.numel)
  {
    int64_t off[DL_CUDA_MAX_OPERANDS];
    dl_cuda_iter_offsets (it, i, off);
    dl_cuda_binary_elem (op, dt, it.data[0] + off[0], it.data[1] + off[1], it.data[2] + off[2],
                         alpha);
  }
}

__global__ void
ternary_kernel (DlCudaIter it, DlTernaryOp op, DlDType dt, DlCudaParams p)
{
  GRID_STRIDE (i, it.numel)
  {
    int64_t off[DL_CUDA_MAX_OPERANDS];
    dl_cuda_iter_offsets (it, i, off);
    /* operands past the iterator's count have a NULL base: unused */
    dl_cuda_ternary_elem (op, dt, it.data[0] + off[0], it.data[1] + off[1],
                          it.data[2] ? it.data[2] + off[2] : NULL,
                          it.data[3] ? it.data[3] + off[3] : NULL, p.v);
  }
}

template <typename T>
__global__ void
softmax_kernel (const T *in, T *out, int64_t n_rows, int64_t n, bool log)
{
  GRID_STRIDE (r, n_rows)
  dl_cuda_softmax_row (in + r * n, out + r * n, n, log);
}

/* thread t reduces range t % chunks of output t / chunks: stored at once
 * when there is one range, else its partial result into partials[t] */
__global__ void
reduce_kernel (DlReduceArgs a,
               DlReduceOp op,
               DlDType dt,
               int64_t n_outer,
               int64_t n_inner,
               int64_t chunks,
               DlCudaAcc *partials)
{
  GRID_STRIDE (t, n_outer * chunks)
  {
    int64_t o = t / chunks, begin, end;
    DlCudaAcc acc;

    dl_cuda_chunk_range (t % chunks, chunks, n_inner, &begin, &end);
    acc = dl_cuda_reduce_range (op, dt, a, o, begin, end);
    if (chunks == 1)
      dl_cuda_reduce_store (op, dt, a, o, acc, n_inner);
    else
      partials[t] = acc;
  }
}

/* each output's partials combined in order, and stored */
__global__ void
reduce_combine_kernel (DlReduceArgs a,
                       DlReduceOp op,
                       DlDType dt,
                       int64_t n_outer,
                       int64_t n_inner,
                       int64_t chunks,
                       const DlCudaAcc *partials)
{
  GRID_STRIDE (o, n_outer)
  {
    DlCudaAcc acc = partials[o * chunks];

    for (int64_t c = 1; c < chunks; c++)
      dl_cuda_reduce_combine (op, dt, &acc, partials[o * chunks + c]);
    dl_cuda_reduce_store (op, dt, a, o, acc, n_inner);
  }
}

__global__ void
reduce_empty_kernel (DlReduceArgs a, DlReduceOp op, DlDType dt, int64_t n_outer)
{
  GRID_STRIDE (o, n_outer)
  dl_cuda_reduce_store (op, dt, a, o, dl_cuda_reduce_identity (op), 0);
}

__global__ void
gemm_int_kernel (DlGemmArgs g, DlDType dt, int64_t total)
{
  GRID_STRIDE (t, total)
  dl_cuda_gemm_int_elem (dt, g, t);
}

__global__ void
scan_kernel (DlScanOp op, DlDType dt, char *data, int64_t n_rows, int64_t n)
{
  GRID_STRIDE (r, n_rows)
  dl_cuda_scan_row (op, dt, data + r * n * dl_cuda_dtype_size (dt), n);
}

/* ---- slots ---------------------------------------------------------------- */

/* the iterator's arguments, FALSE when there is nothing to do */
static bool
prepare (DlBackendContext *ctx, const DlIter *iter, DlCudaIter *it)
{
  g_return_val_if_fail (iter->n_operands <= DL_CUDA_MAX_OPERANDS, false);
  dl_cuda_iter_from (it, iter);
  if (it->numel == 0)
    return false;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  return true;
}

void
dl_cuda_copy (DlBackendContext *ctx, DlIter *iter, DlDType dst_dtype, DlDType src_dtype)
{
  DlCudaIter it;

  if (!prepare (ctx, iter, &it))
    return;
  LAUNCH (copy_kernel, it.numel, dl_cuda_current_stream (ctx), it, dst_dtype, src_dtype);
}

void
dl_cuda_fill (DlBackendContext *ctx, DlIter *iter, DlDType dtype, gdouble value)
{
  DlCudaIter it;

  if (!prepare (ctx, iter, &it))
    return;
  LAUNCH (fill_kernel, it.numel, dl_cuda_current_stream (ctx), it,
          dl_cuda_fill_bytes (dtype, value), (int)dl_dtype_get_size (dtype));
}

void
dl_cuda_unary_params (DlBackendContext *ctx,
                      DlUnaryOp op,
                      DlIter *iter,
                      DlDType dtype,
                      const gdouble *params)
{
  DlCudaIter it;

  g_return_if_fail (dl_cuda_unary_supported (op, dtype)); /* the ops layer promotes first */
  g_return_if_fail (op < DL_UNARY_NAN_TO_NUM || params != NULL);
  if (!prepare (ctx, iter, &it))
    return;
  LAUNCH (unary_kernel, it.numel, dl_cuda_current_stream (ctx), it, op, dtype,
          params_from (params, op == DL_UNARY_NAN_TO_NUM || op == DL_UNARY_ELU         ? 3
                               : op == DL_UNARY_HARDTANH || op == DL_UNARY_THRESHOLD ? 2
                                                                                     : 1));
}

void
dl_cuda_unary (DlBackendContext *ctx, DlUnaryOp op, DlIter *iter, DlDType dtype)
{
  dl_cuda_unary_params (ctx, op, iter, dtype, NULL);
}

void
dl_cuda_binary (DlBackendContext *ctx, DlBinaryOp op, DlIter *iter, DlDType dtype, gdouble alpha)
{
  DlCudaIter it;

  g_return_if_fail (dl_cuda_binary_supported (op, dtype)); /* the ops layer promotes first */
  if (!prepare (ctx, iter, &it))
    return;
  LAUNCH (binary_kernel, it.numel, dl_cuda_current_stream (ctx), it, op, dtype, alpha);
}

void
dl_cuda_ternary (DlBackendContext *ctx,
                 DlTernaryOp op,
                 DlIter *iter,
                 DlDType dtype,
                 const gdouble *params)
{
  DlCudaIter it;

  g_return_if_fail (dl_cuda_ternary_supported (op, dtype)); /* the ops layer checks first */
  g_return_if_fail (op == DL_TERNARY_WHERE || params != NULL);
  if (!prepare (ctx, iter, &it))
    return;
  LAUNCH (ternary_kernel, it.numel, dl_cuda_current_stream (ctx), it, op, dtype,
          params_from (params, op == DL_TERNARY_CLAMP_SCALAR ? 2 : 1));
}

void
dl_cuda_softmax (DlBackendContext *ctx,
                 const void *in,
                 void *out,
                 gint64 n_rows,
                 gint64 n,
                 DlDType dtype,
                 gboolean log)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (n == 0 || n_rows == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT32)
    LAUNCH (softmax_kernel<float>, n_rows, stream, (const float *)in, (float *)out, n_rows, n,
            log != FALSE);
  else
    LAUNCH (softmax_kernel<double>, n_rows, stream, (const double *)in, (double *)out, n_rows, n,
            log != FALSE);
}

void
dl_cuda_reduce (DlBackendContext *ctx, DlReduceOp op, const DlReduceArgs *args, DlDType dtype)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  int64_t n_outer = 1, n_inner = 1, chunks;
  DlCudaAcc *partials = NULL;

  for (int d = 0; d < args->outer_ndim; d++)
    n_outer *= args->outer_shape[d];
  for (int d = 0; d < args->inner_ndim; d++)
    n_inner *= args->inner_shape[d];
  if (n_outer == 0)
    return;
  g_return_if_fail (n_inner > 0 || (op != DL_REDUCE_MAX && op != DL_REDUCE_MIN));
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (n_inner == 0)
    {
      LAUNCH (reduce_empty_kernel, n_outer, stream, *args, op, dtype, n_outer);
      return;
    }
  chunks = dl_cuda_reduce_chunks (n_outer, n_inner);
  if (chunks > 1
      && cudaMallocAsync ((void **)&partials, n_outer * chunks * sizeof (DlCudaAcc), stream)
             != cudaSuccess)
    {
      /* no room for the partials: one thread an output */
      cudaGetLastError ();
      partials = NULL;
      chunks = 1;
    }
  LAUNCH (reduce_kernel, n_outer * chunks, stream, *args, op, dtype, n_outer, n_inner, chunks,
          partials);
  if (chunks > 1)
    {
      LAUNCH (reduce_combine_kernel, n_outer, stream, *args, op, dtype, n_outer, n_inner, chunks,
              partials);
      DL_CUDA_CHECK (cudaFreeAsync (partials, stream));
    }
}

void
dl_cuda_gemm_int (DlBackendContext *ctx, DlDType dtype, const DlGemmArgs *g)
{
  int64_t total = g->m * g->n;

  for (int d = 0; d < g->batch_ndim; d++)
    total *= g->batch_shape[d];
  if (total == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  LAUNCH (gemm_int_kernel, total, dl_cuda_current_stream (ctx), *g, dtype, total);
}

void
dl_cuda_scan (DlBackendContext *ctx,
              DlScanOp op,
              void *data,
              gint64 n_rows,
              gint64 n,
              DlDType dtype)
{
  if (n_rows == 0 || n == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  LAUNCH (scan_kernel, n_rows, dl_cuda_current_stream (ctx), op, dtype, (char *)data, n_rows, n);
}
