/* dl-cpu-reduce.c: sum, mean, max, min, prod, all, any and nansum over a
 * set of dims.
 *
 * Reference semantics, for each outer position o:
 *   out[o] = op over inner positions i of in[o, i]
 * with indices[o] = the first position of the max/min along the (single)
 * reduced dim. Sums of float32 accumulate in double; of integers and bool
 * in int64 (the ops layer gives such sums an int64 output).
 *
 * Three paths: a contiguous inner run (reduce each row), a contiguous outer
 * run with strided inner dims ("columns": accumulate whole rows into a
 * buffer, which keeps the reads sequential), and the generic loop nest.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <omp.h>

#include "dl-cpu-private.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static void
store (char *p, DlDType dt, gdouble v, gint64 iv)
{
  if (dl_dtype_is_floating_point (dt))
    dl_cpu_store_f (p, dt, v);
  else
    dl_cpu_store_i (p, dt, iv);
}

/* Sum of a contiguous float32 run, as accurate as a cascade and as fast as
 * memory allows: four vectors of float lanes add blocks of 32 vectors each
 * (32 elements per lane), each block's total goes into double lanes, and
 * those are added at the end. One body for 16-, 8- and 4-float vectors
 * (AVX-512, AVX2, SSE): 16M elements on 2 cores took 1.75 ms with SSE
 * and take 1.30 ms with AVX-512 (bench.py), where one load per cache line
 * keeps more lines in flight. */
#define DEFINE_SUM_F32(NAME, TARGET, VF, VD)                                                       \
  TARGET static gdouble NAME (const float *restrict x, gint64 n)                                   \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VF) / sizeof (float),                                                            \
      STEP = 4 * W                                                                                 \
    };                                                                                             \
    VD dacc = { 0 };                                                                               \
    double lanes[W / 2];                                                                           \
    gdouble total = 0;                                                                             \
    gint64 i = 0;                                                                                  \
                                                                                                   \
    while (i + STEP <= n)                                                                          \
      {                                                                                            \
        gint64 end = i + MIN (n - i, 32 * STEP) / STEP * STEP;                                     \
        VF a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, v0, v1, v2, v3;                         \
                                                                                                   \
        for (; i < end; i += STEP)                                                                 \
          {                                                                                        \
            memcpy (&v0, x + i, sizeof v0);                                                        \
            memcpy (&v1, x + i + W, sizeof v1);                                                    \
            memcpy (&v2, x + i + 2 * W, sizeof v2);                                                \
            memcpy (&v3, x + i + 3 * W, sizeof v3);                                                \
            a0 += v0;                                                                              \
            a1 += v1;                                                                              \
            a2 += v2;                                                                              \
            a3 += v3;                                                                              \
          }                                                                                        \
        dacc += __builtin_convertvector((a0 + a1) + (a2 + a3), VD);                                \
      }                                                                                            \
    for (; i < n; i++)                                                                             \
      total += x[i];                                                                               \
    /* pairwise over the lanes, unrolled (W is a constant) */                                      \
    for (gint j = 0; j < W / 2; j++)                                                               \
      lanes[j] = dacc[j] + dacc[j + W / 2];                                                        \
    _Pragma ("GCC unroll 8") for (gint w = W / 4; w > 0; w /= 2)                                   \
    {                                                                                              \
      _Pragma ("GCC unroll 8") for (gint j = 0; j < w; j++) lanes[j] += lanes[j + w];              \
    }                                                                                              \
    return total + lanes[0];                                                                       \
  }

DEFINE_SUM_F32 (sum_f32_v4, DL_CPU_TARGET_BASELINE, dl_v4sf, dl_v4df)
#ifdef DL_CPU_ISA_LEVELS
DEFINE_SUM_F32 (sum_f32_v8, DL_CPU_TARGET_V3, dl_v8sf, dl_v8df)
DEFINE_SUM_F32 (sum_f32_v16, DL_CPU_TARGET_V4, dl_v16sf, dl_v16df)
#endif

static gdouble
sum_f32_contig (const float *restrict x, gint64 n)
{
#ifdef DL_CPU_ISA_LEVELS
  if (dl_cpu_isa == DL_CPU_ISA_V4)
    return sum_f32_v16 (x, n);
  if (dl_cpu_isa == DL_CPU_ISA_V3)
    return sum_f32_v8 (x, n);
#endif
  return sum_f32_v4 (x, n);
}

static gdouble
sum_f64_contig (const double *restrict x, gint64 n)
{
  double acc[4] = { 0 };
  gint64 i = 0;

  for (; i + 4 <= n; i += 4)
    for (gint j = 0; j < 4; j++)
      acc[j] += x[i + j];
  for (; i < n; i++)
    acc[0] += x[i];
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

typedef struct
{
  gdouble f;
  gint64 i;
  gint64 index;
  gboolean nan_seen;
} Acc;

/* max or min of a contiguous float32 run, with the index of its first
 * occurrence; the first NaN wins. The first pass runs on SSE registers
 * (maxps/minps; GCC does not vectorise the scalar form because of NaN
 * rules) with a separate NaN flag; a second pass finds the index. */
DL_CPU_CLONES static Acc
extremum_f32_contig (const float *restrict x, gint64 n, gboolean is_max, gboolean want_index)
{
  float best = x[0];
  gboolean nan = FALSE;
  gint64 i = 0;

#ifdef __SSE2__
  if (n >= 16)
    {
      __m128 acc[4], isnan = _mm_setzero_ps ();
      float lanes[4];

      for (gint j = 0; j < 4; j++)
        acc[j] = _mm_set1_ps (x[0]);
      for (; i + 16 <= n; i += 16)
        for (gint j = 0; j < 4; j++)
          {
            __m128 v = _mm_loadu_ps (x + i + 4 * j);
            isnan = _mm_or_ps (isnan, _mm_cmpunord_ps (v, v));
            acc[j] = is_max ? _mm_max_ps (v, acc[j]) : _mm_min_ps (v, acc[j]);
          }
      acc[0] = is_max ? _mm_max_ps (_mm_max_ps (acc[0], acc[1]), _mm_max_ps (acc[2], acc[3]))
                      : _mm_min_ps (_mm_min_ps (acc[0], acc[1]), _mm_min_ps (acc[2], acc[3]));
      _mm_storeu_ps (lanes, acc[0]);
      nan = _mm_movemask_ps (isnan) != 0;
      for (gint j = 0; j < 4; j++)
        best = is_max ? (lanes[j] > best ? lanes[j] : best) : (lanes[j] < best ? lanes[j] : best);
    }
#endif
  for (; i < n; i++)
    {
      float v = x[i];
      nan |= v != v;
      best = is_max ? (v > best ? v : best) : (v < best ? v : best);
    }
  if (nan)
    for (i = 0; i < n; i++)
      if (x[i] != x[i])
        return (Acc){ .f = x[i], .index = i };
  if (!want_index)
    return (Acc){ .f = best };
  for (i = 0; i < n && x[i] != best; i++)
    ;
  return (Acc){ .f = best, .index = i };
}

static inline gboolean
is_int_dtype (DlDType dt)
{
  return !dl_dtype_is_floating_point (dt);
}

/* Reduces n elements at stride s (bytes) starting at p, for the op. */
static Acc
reduce_run (DlReduceOp op, DlDType dt, const char *p, gint64 s, gint64 n, gboolean want_index)
{
  Acc a = { 0 };
  gsize es = dl_dtype_get_size (dt);

  if (op == DL_REDUCE_SUM || op == DL_REDUCE_MEAN)
    {
      if (dt == DL_DTYPE_FLOAT32 && (gsize)s == es)
        a.f = sum_f32_contig ((const float *)p, n);
      else if (dt == DL_DTYPE_FLOAT64 && (gsize)s == es)
        a.f = sum_f64_contig ((const double *)p, n);
      else if (is_int_dtype (dt))
        for (gint64 k = 0; k < n; k++)
          a.i += dl_cpu_load_i (p + k * s, dt);
      else
        for (gint64 k = 0; k < n; k++)
          a.f += dl_cpu_load_f (p + k * s, dt);
      return a;
    }

  if (op == DL_REDUCE_NANSUM)
    {
      if (is_int_dtype (dt))
        for (gint64 k = 0; k < n; k++)
          a.i += dl_cpu_load_i (p + k * s, dt);
      else
        for (gint64 k = 0; k < n; k++)
          {
            gdouble v = dl_cpu_load_f (p + k * s, dt);
            if (v == v)
              a.f += v;
          }
      return a;
    }
  if (op == DL_REDUCE_PROD)
    {
      if (is_int_dtype (dt))
        {
          a.i = 1;
          for (gint64 k = 0; k < n; k++)
            a.i *= dl_cpu_load_i (p + k * s, dt);
        }
      else
        {
          a.f = 1;
          for (gint64 k = 0; k < n; k++)
            a.f *= dl_cpu_load_f (p + k * s, dt);
        }
      return a;
    }
  if (op == DL_REDUCE_ALL || op == DL_REDUCE_ANY)
    {
      gboolean want = op == DL_REDUCE_ANY;

      a.i = !want;
      for (gint64 k = 0; k < n; k++)
        {
          gboolean nz = is_int_dtype (dt) ? dl_cpu_load_i (p + k * s, dt) != 0
                                          : dl_cpu_load_f (p + k * s, dt) != 0;
          if (nz == want)
            {
              a.i = want;
              break;
            }
        }
      return a;
    }

  /* max / min: first index wins ties; NaN propagates (first NaN) */
  a.index = 0;
  if (is_int_dtype (dt))
    {
      a.i = dl_cpu_load_i (p, dt);
      for (gint64 k = 1; k < n; k++)
        {
          gint64 v = dl_cpu_load_i (p + k * s, dt);
          if (op == DL_REDUCE_MAX ? v > a.i : v < a.i)
            {
              a.i = v;
              a.index = k;
            }
        }
    }
  else if (dt == DL_DTYPE_FLOAT32 && s == 4)
    return extremum_f32_contig ((const float *)p, n, op == DL_REDUCE_MAX, want_index);
  else if (dt == DL_DTYPE_FLOAT32)
    {
      float best = *(const float *)p;
      if (best != best)
        return (Acc){ .f = best, .index = 0 };
      for (gint64 k = 1; k < n; k++)
        {
          float v = *(const float *)(p + k * s);
          if (v != v)
            return (Acc){ .f = v, .index = k };
          if (op == DL_REDUCE_MAX ? v > best : v < best)
            {
              best = v;
              a.index = k;
            }
        }
      a.f = best;
    }
  else
    {
      a.f = dl_cpu_load_f (p, dt);
      if (a.f != a.f)
        return a;
      for (gint64 k = 1; k < n; k++)
        {
          gdouble v = dl_cpu_load_f (p + k * s, dt);
          if (v != v)
            return (Acc){ .f = v, .index = k };
          if (op == DL_REDUCE_MAX ? v > a.f : v < a.f)
            {
              a.f = v;
              a.index = k;
            }
        }
    }
  return a;
}

static void
unravel (gint64 flat, gint nd, const gint64 *shape, gint64 *idx)
{
  for (gint d = nd - 1; d >= 0; d--)
    {
      idx[d] = flat % shape[d];
      flat /= shape[d];
    }
}

static gint64
offset_of (const gint64 *idx, const gint64 *strides, gint nd)
{
  gint64 off = 0;
  for (gint d = 0; d < nd; d++)
    off += idx[d] * strides[d];
  return off;
}

/* Combines partial results of the same op. */
static void
combine (DlReduceOp op, DlDType dt, Acc *into, Acc part, gint64 part_base)
{
  if (op == DL_REDUCE_SUM || op == DL_REDUCE_MEAN || op == DL_REDUCE_NANSUM)
    {
      into->f += part.f;
      into->i += part.i;
      return;
    }
  if (op == DL_REDUCE_PROD)
    {
      into->f *= part.f;
      into->i *= part.i;
      return;
    }
  if (op == DL_REDUCE_ALL)
    {
      into->i = into->i && part.i;
      return;
    }
  if (op == DL_REDUCE_ANY)
    {
      into->i = into->i || part.i;
      return;
    }
  part.index += part_base;
  if (is_int_dtype (dt))
    {
      if (op == DL_REDUCE_MAX ? part.i > into->i : part.i < into->i)
        *into = part;
    }
  else if (into->f != into->f)
    return;
  else if (part.f != part.f || (op == DL_REDUCE_MAX ? part.f > into->f : part.f < into->f))
    *into = part;
}

static void
finish (DlReduceOp op,
        DlDType dt,
        const DlReduceArgs *args,
        gint64 o,
        const gint64 *oidx,
        Acc a,
        gint64 n_inner)
{
  char *out = args->out + offset_of (oidx, args->out_strides, args->outer_ndim);

  if (op == DL_REDUCE_SUM || op == DL_REDUCE_NANSUM)
    {
      if (is_int_dtype (dt))
        *(gint64 *)out = a.i;
      else
        store (out, dt, a.f, 0);
    }
  else if (op == DL_REDUCE_MEAN)
    store (out, dt, a.f / n_inner, 0);
  else if (op == DL_REDUCE_PROD)
    {
      if (is_int_dtype (dt))
        *(gint64 *)out = a.i;
      else
        store (out, dt, a.f, 0);
    }
  else if (op == DL_REDUCE_ALL || op == DL_REDUCE_ANY)
    *(guint8 *)out = a.i != 0;
  else
    {
      store (out, dt, a.f, a.i);
      if (args->indices)
        *(gint64 *)(args->indices + offset_of (oidx, args->indices_strides, args->outer_ndim))
            = a.index;
    }
}

/* Reduces the full inner nest for one outer position. The inner nest is
 * walked as runs along its innermost dim. */
static Acc
reduce_inner (DlReduceOp op, DlDType dt, const DlReduceArgs *args, const char *base, gint64 n_inner)
{
  gint nd = args->inner_ndim;
  gint64 run = args->inner_shape[nd - 1];
  gint64 n_runs = n_inner / run;
  gint64 idx[DL_MAX_DIMS] = { 0 };
  Acc acc = { 0 };

  for (gint64 r = 0; r < n_runs; r++)
    {
      const char *p = base + offset_of (idx, args->in_inner_strides, nd);
      Acc part = reduce_run (op, dt, p, args->in_inner_strides[nd - 1], run, args->indices != NULL);

      if (r == 0)
        {
          acc = part;
          acc.index = part.index;
        }
      else
        combine (op, dt, &acc, part, r * run);
      /* advance the multi-index over all but the innermost dim */
      for (gint d = nd - 2; d >= 0; d--)
        {
          if (++idx[d] < args->inner_shape[d])
            break;
          idx[d] = 0;
        }
    }
  return acc;
}

/* Column path: the innermost outer dim is contiguous in the input and in
 * the output and the op is a float32 sum or mean: accumulate whole rows. */
static gboolean
try_columns (DlReduceOp op, DlDType dt, const DlReduceArgs *args, gint64 n_outer, gint64 n_inner)
{
  gint ond = args->outer_ndim, ind = args->inner_ndim, nt;
  gint64 width, n_blocks;

  if (dt != DL_DTYPE_FLOAT32 || (op != DL_REDUCE_SUM && op != DL_REDUCE_MEAN) || ond < 1
      || args->in_outer_strides[ond - 1] != 4 || args->out_strides[ond - 1] != 4
      || (args->in_inner_strides[ind - 1] == 4))
    return FALSE;
  width = args->outer_shape[ond - 1];
  n_blocks = n_outer / width;
  nt = n_outer * n_inner >= DL_CPU_GRAIN * 4 ? omp_get_max_threads () : 1;

  /* Each thread sums its share of the rows, streaming through memory, into
   * float lanes flushed to double every 128 rows; the parts are added. */
  for (gint64 b = 0; b < n_blocks; b++)
    {
      gint64 oidx[DL_MAX_DIMS];
      const char *base;
      double *total = g_new0 (double, width);
      float *out;

      unravel (b * width, ond, args->outer_shape, oidx);
      base = args->in + offset_of (oidx, args->in_outer_strides, ond);
      DL_CPU_PARALLEL_IF (nt > 1, {
        gint t = omp_get_thread_num (), n_threads = omp_get_num_threads ();
        gint64 r0 = n_inner * t / n_threads, r1 = n_inner * (t + 1) / n_threads;
        gint64 iidx[DL_MAX_DIMS];
        float *facc = g_new0 (float, width);
        double *dacc = g_new0 (double, width);

        unravel (r0, ind, args->inner_shape, iidx);
        for (gint64 r = r0; r < r1; r++)
          {
            const float *restrict row
                = (const float *)(base + offset_of (iidx, args->in_inner_strides, ind));
            for (gint64 j = 0; j < width; j++)
              facc[j] += row[j];
            if ((r - r0) % 128 == 127)
              for (gint64 j = 0; j < width; j++)
                {
                  dacc[j] += facc[j];
                  facc[j] = 0;
                }
            for (gint d = ind - 1; d >= 0; d--)
              {
                if (++iidx[d] < args->inner_shape[d])
                  break;
                iidx[d] = 0;
              }
          }
        _Pragma ("omp critical") for (gint64 j = 0; j < width; j++) total[j] += dacc[j] + facc[j];
        g_free (facc);
        g_free (dacc);
      });
      out = (float *)(args->out + offset_of (oidx, args->out_strides, ond));
      for (gint64 j = 0; j < width; j++)
        out[j] = op == DL_REDUCE_MEAN ? total[j] / n_inner : total[j];
      g_free (total);
    }
  return TRUE;
}

/* output position @o: its n_inner elements reduced */
static inline void
reduce_outer (DlReduceOp op, DlDType dt, const DlReduceArgs *args, gint64 o, gint64 n_inner)
{
  gint64 oidx[DL_MAX_DIMS];
  Acc acc;

  unravel (o, args->outer_ndim, args->outer_shape, oidx);
  acc = reduce_inner (
      op, dt, args, args->in + offset_of (oidx, args->in_outer_strides, args->outer_ndim), n_inner);
  finish (op, dt, args, o, oidx, acc, n_inner);
}

void
dl_cpu_reduce (DlBackendContext *ctx, DlReduceOp op, const DlReduceArgs *args, DlDType dt)
{
  gint64 n_outer = 1, n_inner = 1;

  for (gint d = 0; d < args->outer_ndim; d++)
    n_outer *= args->outer_shape[d];
  for (gint d = 0; d < args->inner_ndim; d++)
    n_inner *= args->inner_shape[d];
  if (n_outer == 0)
    return;
  g_return_if_fail (n_inner > 0 || (op != DL_REDUCE_MAX && op != DL_REDUCE_MIN));

  if (n_inner == 0)
    {
      Acc zero = { 0 };
      gint64 oidx[DL_MAX_DIMS];

      if (op == DL_REDUCE_PROD || op == DL_REDUCE_ALL)
        zero = (Acc){ .f = 1, .i = 1 };
      for (gint64 o = 0; o < n_outer; o++)
        {
          unravel (o, args->outer_ndim, args->outer_shape, oidx);
          finish (op, dt, args, o, oidx, op == DL_REDUCE_MEAN ? (Acc){ .f = NAN } : zero,
                  op == DL_REDUCE_MEAN ? 1 : n_inner);
        }
      return;
    }

  if (n_outer > 1 && try_columns (op, dt, args, n_outer, n_inner))
    return;

  if (n_outer == 1 && args->inner_ndim == 1 && n_inner >= DL_CPU_GRAIN * 2)
    {
      /* one long run: split it over threads and combine the parts */
      gint nt = omp_get_max_threads ();
      Acc parts[64];
      gint64 s = args->in_inner_strides[0];
      gint64 oidx[DL_MAX_DIMS] = { 0 };
      Acc acc;

      nt = MIN (nt, 64);
#pragma omp parallel for num_threads(nt)
      for (gint t = 0; t < nt; t++)
        {
          gint64 b = n_inner * t / nt, e = n_inner * (t + 1) / nt;
          parts[t] = reduce_run (op, dt, args->in + b * s, s, e - b, args->indices != NULL);
        }
      acc = parts[0];
      for (gint t = 1; t < nt; t++)
        combine (op, dt, &acc, parts[t], n_inner * t / nt);
      finish (op, dt, args, 0, oidx, acc, n_inner);
      return;
    }

  DL_CPU_FOR_IF (
      n_outer > 1 && n_outer * n_inner >= DL_CPU_GRAIN * 2,
      for (gint64 o = 0; o < n_outer; o++) { reduce_outer (op, dt, args, o, n_inner); });
}
