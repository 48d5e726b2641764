/* dl-cuda-random.cu: the CUDA module's random slots (random, multinomial,
 * dropout, attention_dropout_mask): grid-stride __global__ wrappers around
 * the per-block bodies of dl-cuda-random.cuh, which draw from the same
 * Philox stream as the CPU backend (dl-philox.h), and the slots that
 * launch them on the context's stream.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cuda-launch.cuh"
#include "dl-cuda-private.h"
#include "dl-cuda-random.cuh"
#include "dl-cuda-random.h"

/* ---- kernels ------------------------------------------------------------ */

__global__ void
random_kernel (DlRandomOp op,
               DlDType dt,
               char *data,
               int64_t n,
               uint64_t seed,
               uint64_t offset,
               double a,
               double b)
{
  DL_CUDA_EACH (blk, dl_cuda_random_blocks (n, dt))
  dl_cuda_random_block (op, dt, data, n, seed, offset, blk, a, b);
}

/* one thread an element: its rejection loop draws from its own stream */
__global__ void
random_params_kernel (int op,
                      DlDType dt,
                      char *data,
                      const double *a,
                      const double *b,
                      int64_t n,
                      uint64_t seed,
                      uint64_t offset)
{
  DL_CUDA_EACH (i, n)
  dl_cuda_random_params_elem (op, dt, data, a, b, seed, offset, i);
}

/* Fisher-Yates is sequential: one thread */
__global__ void
permutation_kernel (int64_t *data, int64_t n, uint64_t seed, uint64_t offset)
{
  if (blockIdx.x == 0 && threadIdx.x == 0)
    dl_philox_permutation (data, n, seed, offset);
}

/* one thread a row, tmp: k doubles of scratch a row; the first bad row's
 * reason into status (the first failure wins, as DlKernelStatus says) */
__global__ void
multinomial_kernel (const double *weights,
                    int64_t rows,
                    int64_t k,
                    int64_t n_samples,
                    int replacement,
                    int64_t *out,
                    uint64_t seed,
                    uint64_t offset,
                    double *tmp,
                    DlKernelStatus *status)
{
  const int64_t per_row = (n_samples + 1) / 2;

  DL_CUDA_EACH (r, rows)
  {
    int st = dl_philox_multinomial_row (weights + r * k, k, n_samples, replacement,
                                        out + r * n_samples, seed, offset + r * per_row, tmp + r * k);
    if (st != DL_PHILOX_ROW_OK && status)
      atomicCAS ((int *)&status->error, DL_KERNEL_OK, st);
  }
}

template <typename T>
__global__ void
dropout_kernel (const T *in,
                T *out,
                uint8_t *mask,
                int64_t n,
                double p,
                T scale,
                uint64_t seed,
                uint64_t offset)
{
  const int64_t n_blocks = (n + dl_philox_per_block (sizeof (T) == 8) - 1)
                           / dl_philox_per_block (sizeof (T) == 8);

  DL_CUDA_EACH (blk, n_blocks)
  dl_cuda_dropout_block<T> (in, out, mask, n, p, scale, seed, offset, blk);
}

template <typename T>
__global__ void
attention_mask_kernel (T *mask, int64_t total, int64_t s, uint64_t seed, uint64_t offset, double p)
{
  DL_CUDA_EACH (i, total)
  dl_cuda_attention_mask_elem<T> (mask, s, seed, offset, p, i);
}

/* ---- slots ---------------------------------------------------------------- */

static_assert ((int)DL_RANDOM_UNIFORM == (int)DL_PHILOX_UNIFORM, "DlRandomOp and DlPhiloxKind");
static_assert ((int)DL_RANDOM_NORMAL == (int)DL_PHILOX_NORMAL, "DlRandomOp and DlPhiloxKind");
static_assert ((int)DL_RANDOM_BERNOULLI == (int)DL_PHILOX_BERNOULLI, "DlRandomOp and DlPhiloxKind");
static_assert ((int)DL_RANDOM_EXPONENTIAL == (int)DL_PHILOX_EXPONENTIAL, "DlRandomOp and DlPhiloxKind");
static_assert ((int)DL_RANDOM_CAUCHY == (int)DL_PHILOX_CAUCHY, "DlRandomOp and DlPhiloxKind");
static_assert ((int)DL_RANDOM_LOG_NORMAL == (int)DL_PHILOX_LOG_NORMAL, "DlRandomOp and DlPhiloxKind");
static_assert ((int)DL_RANDOM_GEOMETRIC == (int)DL_PHILOX_GEOMETRIC, "DlRandomOp and DlPhiloxKind");
static_assert ((int)DL_RANDOM_PARAMS_GAMMA == DL_PHILOX_PARAMS_GAMMA, "DlRandomParamsOp");
static_assert ((int)DL_RANDOM_PARAMS_POISSON == DL_PHILOX_PARAMS_POISSON, "DlRandomParamsOp");
static_assert ((int)DL_RANDOM_PARAMS_BINOMIAL == DL_PHILOX_PARAMS_BINOMIAL, "DlRandomParamsOp");
static_assert (DL_KERNEL_BAD_WEIGHT == DL_PHILOX_ROW_BAD_WEIGHT, "DlKernelError's values");
static_assert (DL_KERNEL_ZERO_SUM == DL_PHILOX_ROW_ZERO_SUM, "DlKernelError's values");

void
dl_cuda_random (DlBackendContext *ctx,
                DlRandomOp op,
                void *data,
                gint64 n,
                DlDType dtype,
                const DlRandomDraw *draw,
                gdouble a,
                gdouble b)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  const guint64 seed = draw->seed, offset = draw->offset;

  if (n == 0)
    return;
  g_return_if_fail (op != DL_RANDOM_INTEGER);
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (op == DL_RANDOM_PERMUTATION)
    {
      g_return_if_fail (dtype == DL_DTYPE_INT64);
      permutation_kernel<<<1, 1, 0, stream>>> ((int64_t *)data, n, seed, offset);
    }
  else
    {
      g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64
                        || dtype == DL_DTYPE_FLOAT16 || dtype == DL_DTYPE_BFLOAT16);
      random_kernel<<<DL_CUDA_GRID (dl_cuda_random_blocks (n, dtype)), 0, stream>>> (
          op, dtype, (char *)data, n, seed, offset, a, b);
    }
  DL_CUDA_CHECK (cudaGetLastError ());
}

void
dl_cuda_random_params (DlBackendContext *ctx,
                       DlRandomParamsOp op,
                       const gdouble *a,
                       const gdouble *b,
                       void *data,
                       gint64 n,
                       DlDType dtype,
                       const DlRandomDraw *draw)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);

  if (n == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  random_params_kernel<<<DL_CUDA_GRID (n), 0, stream>>> ((int)op, dtype, (char *)data, a, b, n,
                                                          draw->seed, draw->offset);
  DL_CUDA_CHECK (cudaGetLastError ());
}

void
dl_cuda_multinomial (DlBackendContext *ctx,
                     const gdouble *weights,
                     gint64 rows,
                     gint64 k,
                     gint64 n_samples,
                     gboolean replacement,
                     gint64 *out,
                     const DlRandomDraw *draw,
                     DlKernelStatus *status)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  gsize scratch_bytes = (gsize)(rows * (k > 0 ? k : 1)) * sizeof (double);
  const guint64 seed = draw->seed, offset = draw->offset;
  double *tmp;

  if (rows == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  /* from the device's caching allocator, for this stream: freed at once,
   * reused only by work queued after this kernel */
  tmp = (double *)ctx->backend->raw_alloc (ctx, scratch_bytes);
  if (tmp == NULL)
    {
      g_warning ("multinomial on cuda:%d: no room for %" G_GSIZE_FORMAT " bytes of scratch",
                 ctx->device_index, scratch_bytes);
      return;
    }
  multinomial_kernel<<<DL_CUDA_GRID (rows), 0, stream>>> (
      weights, rows, k, n_samples, replacement != FALSE, (int64_t *)out, seed, offset, tmp, status);
  DL_CUDA_CHECK (cudaGetLastError ());
  ctx->backend->raw_free (ctx, tmp, scratch_bytes);
}

void
dl_cuda_dropout (DlBackendContext *ctx,
                 const void *in,
                 void *out,
                 guint8 *mask,
                 gint64 n,
                 gdouble p,
                 DlDType dtype,
                 const DlRandomDraw *draw)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  const int64_t n_blocks = dl_cuda_random_blocks (n, dtype);
  const guint64 seed = draw->seed, offset = draw->offset;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (n == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    dropout_kernel<double><<<DL_CUDA_GRID (n_blocks), 0, stream>>> (
        (const double *)in, (double *)out, mask, n, p, dl_cuda_dropout_scale<double> (p), seed,
        offset);
  else
    dropout_kernel<float><<<DL_CUDA_GRID (n_blocks), 0, stream>>> (
        (const float *)in, (float *)out, mask, n, p, dl_cuda_dropout_scale<float> (p), seed,
        offset);
  DL_CUDA_CHECK (cudaGetLastError ());
}

void
dl_cuda_attention_dropout_mask (DlBackendContext *ctx,
                                const DlAttentionArgs *args,
                                void *mask,
                                DlDType dtype)
{
  cudaStream_t stream = dl_cuda_current_stream (ctx);
  const int64_t total = args->n_batch * args->l * args->s;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
  if (total == 0)
    return;
  DL_CUDA_CHECK (cudaSetDevice (ctx->device_index));
  if (dtype == DL_DTYPE_FLOAT64)
    attention_mask_kernel<double><<<DL_CUDA_GRID (total), 0, stream>>> (
        (double *)mask, total, args->s, args->seed, args->offset, args->dropout_p);
  else
    attention_mask_kernel<float><<<DL_CUDA_GRID (total), 0, stream>>> (
        (float *)mask, total, args->s, args->seed, args->offset, args->dropout_p);
  DL_CUDA_CHECK (cudaGetLastError ());
}
