/* dl-cpu-random.c: counter-based random numbers (Philox4x32-10).
 *
 * Element i of a request (seed, offset) takes its bits from Philox block
 * offset + i / per_block, so a seed gives the same numbers whatever the
 * number of threads, and a GPU backend can produce the same stream.
 *   uniform float32: 4 values per block, 24 bits each: u = (x >> 8) * 2^-24
 *   uniform float64: 2 values per block, 53 bits from two words
 *   normal: Box-Muller on pairs of uniforms, both outputs used
 *   bernoulli: 1 where the uniform is below p
 *   multinomial: sample s of row r takes the float64 uniform s of the row's
 *     blocks; with replacement a binary search in the cumulative weights,
 *     without it a scan of the weights not yet drawn
 *   permutation: Fisher-Yates from the last element down; the swap for
 *     position i (n - 1 .. 1) takes a float64 uniform, two per block
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

static inline double
u24 (guint32 x)
{
  return (x >> 8) * (1.0 / 16777216.0);
}

static inline double
u53 (guint32 hi, guint32 lo)
{
  guint64 v = ((guint64)hi << 21) ^ (lo >> 11);
  return (v & ((G_GUINT64_CONSTANT (1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

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

static void
permutation (gint64 *data, gint64 n, guint64 seed, guint64 offset)
{
  for (gint64 i = 0; i < n; i++)
    data[i] = i;
  for (gint64 i = n - 1, k = 0; i > 0; i--, k++)
    {
      guint32 x[4];
      gint64 j;
      double u;

      dl_cpu_philox (seed, offset + k / 2, x);
      u = k % 2 == 0 ? u53 (x[0], x[1]) : u53 (x[2], x[3]);
      j = (gint64)(u * (double)(i + 1));
      if (j > i)
        j = i;
      if (j != i)
        {
          gint64 tmp = data[i];
          data[i] = data[j];
          data[j] = tmp;
        }
    }
}

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
      permutation (data, n, seed, offset);
      return;
    }
  DL_CPU_FOR_IF (
      n >= DL_CPU_GRAIN, for (gint64 blk = 0; blk < n_blocks; blk++) {
        guint32 x[4];
        double u[4];
        gint64 base = blk * per_block;

        dl_cpu_philox (seed, offset + blk, x);
        if (wide)
          {
            u[0] = u53 (x[0], x[1]);
            u[1] = u53 (x[2], x[3]);
          }
        else
          for (gint j = 0; j < 4; j++)
            u[j] = u24 (x[j]);

        if (op == DL_RANDOM_NORMAL)
          for (gint j = 0; j < per_block; j += 2)
            {
              double r = sqrt (-2.0 * log (1.0 - u[j]));
              double th = 2.0 * G_PI * u[j + 1];
              u[j] = a + b * r * cos (th);
              u[j + 1] = a + b * r * sin (th);
            }
        else if (op == DL_RANDOM_BERNOULLI)
          for (gint j = 0; j < per_block; j++)
            u[j] = u[j] < a ? 1.0 : 0.0;
        else
          for (gint j = 0; j < per_block; j++)
            u[j] = a + (b - a) * u[j];

        for (gint j = 0; j < per_block && base + j < n; j++)
          store_value (data, base + j, dtype, u[j]);
      });
}

/* the float64 uniform number i of the stream starting at block @offset */
static inline double
uniform_at (guint64 seed, guint64 offset, gint64 i)
{
  guint32 x[4];

  dl_cpu_philox (seed, offset + i / 2, x);
  return i % 2 == 0 ? u53 (x[0], x[1]) : u53 (x[2], x[3]);
}

static gint
multinomial_row (const gdouble *w,
                 gint64 k,
                 gint64 n_samples,
                 gboolean replacement,
                 gint64 *out,
                 guint64 seed,
                 guint64 offset,
                 double *tmp)
{
  double total = 0;
  for (gint64 j = 0; j < k; j++)
    {
      if (!(w[j] >= 0) || isinf (w[j]))
        return DL_KERNEL_BAD_WEIGHT;
      total += w[j];
      tmp[j] = total;
    }
  if (!(total > 0))
    return DL_KERNEL_ZERO_SUM;

  if (replacement)
    for (gint64 s = 0; s < n_samples; s++)
      {
        /* the first category whose cumulative weight exceeds the target */
        double target = uniform_at (seed, offset, s) * total;
        gint64 lo = 0, hi = k - 1;

        while (lo < hi)
          {
            gint64 mid = lo + (hi - lo) / 2;
            if (tmp[mid] > target)
              hi = mid;
            else
              lo = mid + 1;
          }
        while (lo > 0 && w[lo] == 0) /* rounding at the top end */
          lo--;
        out[s] = lo;
      }
  else
    {
      /* tmp: the weights not drawn yet, -1 for those drawn */
      for (gint64 j = 0; j < k; j++)
        tmp[j] = w[j];
      for (gint64 s = 0; s < n_samples; s++)
        {
          double sum = 0, target, acc = 0, u = uniform_at (seed, offset, s);
          gint64 pick = -1, left = 0;

          for (gint64 j = 0; j < k; j++)
            if (tmp[j] > 0)
              sum += tmp[j];
            else if (tmp[j] == 0)
              left++;
          if (sum > 0)
            {
              target = u * sum;
              for (gint64 j = 0; j < k; j++)
                if (tmp[j] > 0)
                  {
                    pick = j;
                    acc += tmp[j];
                    if (acc > target)
                      break;
                  }
            }
          else
            {
              /* the positive weights are used up: the zero ones follow, in a
               * uniformly random order, as torch draws them */
              gint64 nth = MIN ((gint64)(u * (double)left), left - 1);

              for (gint64 j = 0; j < k && pick < 0; j++)
                if (tmp[j] == 0 && nth-- == 0)
                  pick = j;
            }
          out[s] = pick;
          tmp[pick] = -1;
        }
    }
  return DL_KERNEL_OK;
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
      gint st = multinomial_row (weights + r * k, k, n_samples, replacement, out + r * n_samples,
                                 seed, offset + r * per_row, tmp);
      if (st != DL_KERNEL_OK)
        g_atomic_int_compare_and_exchange (&status, DL_KERNEL_OK, st);
    }
    g_free (tmp);
  });
  if (status != DL_KERNEL_OK && kernel_status->error == DL_KERNEL_OK)
    kernel_status->error = status;
}

/* out = in * keep / (1 - p), keep = u < 1 - p with u the stream's uniform
 * numbers as dl_cpu_random draws them (4 float32 or 2 float64 per block);
 * p == 1 zeroes everything */
#define DL_DEFINE_DROPOUT(T, suffix, per_block)                                                    \
  static void dropout_##suffix (const T *in, T *out, guint8 *mask, gint64 n, gdouble p,            \
                                guint64 seed, guint64 offset)                                      \
  {                                                                                                \
    const gint64 n_blocks = (n + per_block - 1) / per_block;                                       \
    const double keep = 1.0 - p;                                                                   \
    const T scale = p < 1.0 ? (T)(1.0 / keep) : (T)0;                                              \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        n >= DL_CPU_GRAIN, for (gint64 blk = 0; blk < n_blocks; blk++) {                           \
          guint32 x[4];                                                                            \
          double u[4];                                                                             \
          const gint64 base = blk * per_block;                                                     \
                                                                                                   \
          dl_cpu_philox (seed, offset + blk, x);                                                   \
          if (per_block == 2)                                                                      \
            {                                                                                      \
              u[0] = u53 (x[0], x[1]);                                                             \
              u[1] = u53 (x[2], x[3]);                                                             \
            }                                                                                      \
          else                                                                                     \
            for (gint j = 0; j < 4; j++)                                                           \
              u[j] = u24 (x[j]);                                                                   \
          for (gint j = 0; j < per_block && base + j < n; j++)                                     \
            {                                                                                      \
              const gboolean k = u[j] < keep;                                                      \
                                                                                                   \
              out[base + j] = k ? in[base + j] * scale : (T)0;                                     \
              if (mask)                                                                            \
                mask[base + j] = k;                                                                \
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
