/* dl-cuda-rnn.cu: the CUDA module's rnn_forward and rnn_backward slots:
 * the plan of dl-cuda-rnn-plan.h run with cuBLAS products
 * (dl_cuda_gemm_ex), copies on the context's stream, scratch from the
 * caching allocator and one thread a (row, unit) kernels running the
 * bodies of dl-cuda-rnn.cuh.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-launch.cuh"
#include "dl-cuda-private.h"
#include "dl-cuda-rnn-plan.h"
#include "dl-cuda-rnn.cuh"
#include "dl-cuda-rnn.h"

template <typename T>
__global__ void
add_kernel (T *dst, const T *src, int64_t n)
{
  DL_CUDA_EACH (i, n)
  dst[i] += src[i];
}

template <typename T>
__global__ void
colsum_kernel (T *dst, const T *src, int64_t rows, int64_t cols)
{
  DL_CUDA_EACH (c, cols)
  dl_cuda_rnn_colsum_elem<T> (dst, src, rows, cols, c);
}

typedef struct
{
  DlBackendContext *ctx;
  DlDType dtype;
  cudaStream_t stream;
} Run;

static void
op_gemm (gpointer user, const DlCudaGemmEx *g)
{
  Run *run = (Run *)user;

  dl_cuda_gemm_ex (run->ctx, run->dtype, g);
}

static void
op_copy (gpointer user, void *dst, const void *src, gsize bytes)
{
  Run *run = (Run *)user;

  if (bytes > 0)
    DL_CUDA_CHECK (cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToDevice, run->stream));
}

static void
op_zero (gpointer user, void *dst, gsize bytes)
{
  Run *run = (Run *)user;

  if (bytes > 0)
    DL_CUDA_CHECK (cudaMemsetAsync (dst, 0, bytes, run->stream));
}

static gpointer
op_alloc (gpointer user, gsize bytes)
{
  Run *run = (Run *)user;
  gpointer p = run->ctx->backend->raw_alloc (run->ctx, bytes);

  if (p == NULL)
    g_warning ("rnn on cuda:%d: no room for %" G_GSIZE_FORMAT " bytes of scratch",
               run->ctx->device_index, bytes);
  return p;
}

static void
op_release (gpointer user, gpointer p, gsize bytes)
{
  Run *run = (Run *)user;

  /* the caching allocator reuses it only after this stream's work */
  run->ctx->backend->raw_free (run->ctx, p, bytes);
}

template <typename T>
static void
op_biases (gpointer user, const DlRnnArgs *a, void *bias, void *bhn)
{
  Run *run = (Run *)user;
  const int64_t total = dl_cuda_rnn_gates (a->cell) * a->hidden_size;

  if (total == 0)
    return;
  dl_cuda_each<dl_cuda_rnn_bias_elem<T>>
      <<<DL_CUDA_GRID (total), 0, run->stream>>> (total, *a, (T *)bias, (T *)bhn);
  DL_CUDA_CHECK (cudaGetLastError ());
}

template <typename T>
static void
op_cells (gpointer user,
          const DlRnnArgs *a,
          gint64 bs,
          gint64 o,
          const void *gh,
          const void *bias,
          const void *bhn,
          void *h,
          void *c)
{
  Run *run = (Run *)user;
  const int64_t total = bs * a->hidden_size;

  if (total == 0)
    return;
  dl_cuda_each<dl_cuda_rnn_cell<T>>
      <<<DL_CUDA_GRID (total), 0, run->stream>>> (
          total, *a, o, (const T *)gh, (const T *)bias, (const T *)bhn, (T *)h, (T *)c);
  DL_CUDA_CHECK (cudaGetLastError ());
}

template <typename T>
static void
op_cells_backward (gpointer user,
                   const DlRnnArgs *a,
                   gint64 bs,
                   gint64 o,
                   void *dh,
                   const void *dm,
                   void *dc)
{
  Run *run = (Run *)user;
  const int64_t total = bs * a->hidden_size;

  if (total == 0)
    return;
  dl_cuda_each<dl_cuda_rnn_cell_backward<T>>
      <<<DL_CUDA_GRID (total), 0, run->stream>>> (total, *a, o, (T *)dh, (const T *)dm, (T *)dc);
  DL_CUDA_CHECK (cudaGetLastError ());
}

template <typename T>
static void
op_add (gpointer user, void *dst, const void *src, gint64 n)
{
  Run *run = (Run *)user;

  if (n == 0)
    return;
  add_kernel<T><<<DL_CUDA_GRID (n), 0, run->stream>>> ((T *)dst, (const T *)src, n);
  DL_CUDA_CHECK (cudaGetLastError ());
}

template <typename T>
static void
op_colsum (gpointer user, void *dst, const void *src, gint64 rows, gint64 cols)
{
  Run *run = (Run *)user;

  if (cols == 0)
    return;
  colsum_kernel<T>
      <<<DL_CUDA_GRID (cols), 0, run->stream>>> ((T *)dst, (const T *)src, rows, cols);
  DL_CUDA_CHECK (cudaGetLastError ());
}

template <typename T>
static void
ops_init (DlCudaRnnOps *ops, Run *run)
{
  ops->user = run;
  ops->gemm = op_gemm;
  ops->copy = op_copy;
  ops->zero = op_zero;
  ops->alloc = op_alloc;
  ops->release = op_release;
  ops->biases = op_biases<T>;
  ops->cells = op_cells<T>;
  ops->cells_backward = op_cells_backward<T>;
  ops->add = op_add<T>;
  ops->colsum = op_colsum<T>;
}

static void
run_plan (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype, gboolean backward)
{
  Run run = { ctx, dtype, dl_cuda_current_stream (ctx) };
  DlCudaRnnOps ops;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    ops_init<double> (&ops, &run);
  else
    ops_init<float> (&ops, &run);
  if (backward)
    dl_cuda_rnn_plan_backward (&ops, args, dtype == DL_DTYPE_FLOAT64 ? 8 : 4);
  else
    dl_cuda_rnn_plan_forward (&ops, args, dtype == DL_DTYPE_FLOAT64 ? 8 : 4);
}

void
dl_cuda_rnn_forward (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype)
{
  run_plan (ctx, args, dtype, FALSE);
}

void
dl_cuda_rnn_backward (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype)
{
  run_plan (ctx, args, dtype, TRUE);
}
