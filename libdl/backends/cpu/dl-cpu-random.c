/* dl-cpu-random.c: counter-based random numbers (Philox4x32-10).
 *
 * How element i of a request (seed, offset) takes its bits, and the
 * transforms of each distribution, are dl-philox.h's, which the CUDA
 * module runs too: a seed gives the same numbers on either device. This
 * file runs them over the elements with OpenMP and stores them.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

static void
store_value (void *data, gint64 i, DlDType dtype, double v)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        ((float *)data)[i] = (float)v;
        break;
      case DL_DTYPE_FLOAT64:
        ((double *)data)[i] = v;
        break;
      case DL_DTYPE_FLOAT16:
        ((dl_half *)data)[i] = (dl_half)v;
        break;
      case DL_DTYPE_BFLOAT16:
        ((dl_bf16 *)data)[i] = dl_float_to_bf16 ((float)v);
        break;
      default:
        g_return_if_reached ();
    }
}

G_STATIC_ASSERT ((int)DL_RANDOM_UNIFORM == (int)DL_PHILOX_UNIFORM);
G_STATIC_ASSERT ((int)DL_RANDOM_NORMAL == (int)DL_PHILOX_NORMAL);
G_STATIC_ASSERT ((int)DL_RANDOM_BERNOULLI == (int)DL_PHILOX_BERNOULLI);
G_STATIC_ASSERT ((int)DL_RANDOM_EXPONENTIAL == (int)DL_PHILOX_EXPONENTIAL);
G_STATIC_ASSERT ((int)DL_RANDOM_CAUCHY == (int)DL_PHILOX_CAUCHY);
G_STATIC_ASSERT ((int)DL_RANDOM_LOG_NORMAL == (int)DL_PHILOX_LOG_NORMAL);
G_STATIC_ASSERT ((int)DL_RANDOM_GEOMETRIC == (int)DL_PHILOX_GEOMETRIC);
G_STATIC_ASSERT ((int)DL_RANDOM_PARAMS_GAMMA == DL_PHILOX_PARAMS_GAMMA);
G_STATIC_ASSERT ((int)DL_RANDOM_PARAMS_POISSON == DL_PHILOX_PARAMS_POISSON);
G_STATIC_ASSERT ((int)DL_RANDOM_PARAMS_BINOMIAL == DL_PHILOX_PARAMS_BINOMIAL);
G_STATIC_ASSERT (DL_KERNEL_BAD_WEIGHT == DL_PHILOX_ROW_BAD_WEIGHT);
G_STATIC_ASSERT (DL_KERNEL_ZERO_SUM == DL_PHILOX_ROW_ZERO_SUM);

void
dl_cpu_random (DlBackendContext *ctx,
               DlRandomOp op,
               void *data,
               gint64 n,
               DlDType dtype,
               guint64 seed,
               guint64 offset,
               gdouble a,
               gdouble b)
{
  gboolean wide = dtype == DL_DTYPE_FLOAT64;
  gint per_block = wide ? 2 : 4;
  gint64 n_blocks = (n + per_block - 1) / per_block;

  if (op == DL_RANDOM_PERMUTATION)
    {
      g_return_if_fail (dtype == DL_DTYPE_INT64);
      dl_philox_permutation (data, n, seed, offset);
      return;
    }
  DL_CPU_FOR_IF (
      n >= DL_CPU_GRAIN, for (gint64 blk = 0; blk < n_blocks; blk++) {
        double u[4];
        gint64 base = blk * per_block;

        dl_philox_block ((DlPhiloxKind)op, seed, offset, blk, wide, a, b, u);
        for (gint j = 0; j < per_block && base + j < n; j++)
          store_value (data, base + j, dtype, u[j]);
      });
}

void
dl_cpu_random_params (DlBackendContext *ctx,
                      DlRandomParamsOp op,
                      const gdouble *a,
                      const gdouble *b,
                      void *data,
                      gint64 n,
                      DlDType dtype,
                      guint64 seed,
                      guint64 offset)
{
  const double tiny = dl_philox_tiny (dtype == DL_DTYPE_FLOAT64, dtype == DL_DTYPE_FLOAT16);

  DL_CPU_FOR_IF (
      n >= DL_CPU_GRAIN / 16, for (gint64 i = 0; i < n; i++) {
        store_value (data, i, dtype,
                     dl_philox_params_elem (op, seed, offset, i, a[i], b ? b[i] : 0, tiny));
      });
}

void
dl_cpu_multinomial (DlBackendContext *ctx,
                    const gdouble *weights,
                    gint64 rows,
                    gint64 k,
                    gint64 n_samples,
                    gboolean replacement,
                    gint64 *out,
                    guint64 seed,
                    guint64 offset,
                    DlKernelStatus *kernel_status)
{
  gint64 per_row = (n_samples + 1) / 2;
  gint status = DL_KERNEL_OK;

  DL_CPU_PARALLEL_IF (rows * MAX (k, n_samples) >= DL_CPU_GRAIN, {
    double *tmp = g_new (double, MAX (k, 1));

    _Pragma ("omp for schedule(static)") for (gint64 r = 0; r < rows; r++)
    {
      gint st = dl_philox_multinomial_row (weights + r * k, k, n_samples, replacement,
                                           out + r * n_samples, seed, offset + r * per_row, tmp);
      if (st != DL_KERNEL_OK)
        g_atomic_int_compare_and_exchange (&status, DL_KERNEL_OK, st);
    }
    g_free (tmp);
  });
  if (status != DL_KERNEL_OK && kernel_status->error == DL_KERNEL_OK)
    kernel_status->error = status;
}

/* out = in * keep / (1 - p), keep as dl_philox_dropout_block draws it
 * (from the uniforms of the request's dtype: 4 float32 or 2 float64 per
 * block); p == 1 zeroes everything */
#define DL_DEFINE_DROPOUT(T, suffix, per_block)                                                    \
  static void dropout_##suffix (const T *in, T *out, guint8 *mask, gint64 n, gdouble p,            \
                                guint64 seed, guint64 offset)                                      \
  {                                                                                                \
    const gint64 n_blocks = (n + per_block - 1) / per_block;                                       \
    const T scale = p < 1.0 ? (T)(1.0 / (1.0 - p)) : (T)0;                                         \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        n >= DL_CPU_GRAIN, for (gint64 blk = 0; blk < n_blocks; blk++) {                           \
          int keep[4];                                                                             \
          const gint64 base = blk * per_block;                                                     \
                                                                                                   \
          dl_philox_dropout_block (seed, offset, blk, per_block == 2, p, keep);                    \
          for (gint j = 0; j < per_block && base + j < n; j++)                                     \
            {                                                                                      \
              out[base + j] = keep[j] ? in[base + j] * scale : (T)0;                               \
              if (mask)                                                                            \
                mask[base + j] = keep[j];                                                          \
            }                                                                                      \
        });                                                                                        \
  }

DL_DEFINE_DROPOUT (float, f32, 4)
DL_DEFINE_DROPOUT (double, f64, 2)

void
dl_cpu_dropout (DlBackendContext *ctx,
                const void *in,
                void *out,
                guint8 *mask,
                gint64 n,
                gdouble p,
                DlDType dtype,
                guint64 seed,
                guint64 offset)
{
  if (dtype == DL_DTYPE_FLOAT64)
    dropout_f64 (in, out, mask, n, p, seed, offset);
  else
    dropout_f32 (in, out, mask, n, p, seed, offset);
}
