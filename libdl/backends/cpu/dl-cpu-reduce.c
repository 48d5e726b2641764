/* dl-cpu-reduce.c: sum, mean, max, min, prod, all, any and nansum over a
 * set of dims.
 *
 * Reference semantics, for each outer position o:
 *   out[o] = op over inner positions i of in[o, i]
 * with indices[o] = the first position of the max/min along the (single)
 * reduced dim; a NaN wins max and min (the first NaN, with its index).
 * Sums of float32 accumulate in double; of integers and bool in int64 (the
 * ops layer gives such sums an int64 output); products of floats in double.
 *
 * Paths, by the layout the ops layer hands over (dims coalesced):
 *  - rows: each output reduces one run (one reduced dim). The outer nest
 *    is walked a line (its innermost dim) at a time with pointers, and
 *    each run goes to a kernel: per ISA level (dl-cpu-reduce-runs.c) for
 *    contiguous float32 and float64 (sum, product, max and min with their
 *    index), typed loops for the integers, the scalar reference
 *    (reduce_run) for the rest;
 *  - columns: the innermost kept dim is contiguous in the input and the
 *    reduced dims are strided (a sum over dim 0): whole rows are added lane
 *    by lane into a tile of accumulators, which keeps the reads sequential.
 *    Narrow rows lie side by side in one lane row (a (R, 8) tensor summed
 *    over dim 0 is read as (R / 8, 64)) and the lanes are folded at the end;
 *  - the generic loop nest, output by output.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <omp.h>

#include "dl-cpu-reduce-private.h"
#include "dl-dtype-private.h"

static void
store (char *p, DlDType dt, gdouble v, gint64 iv)
{
  if (dl_dtype_is_float (dt))
    dl_cpu_store_f (p, dt, v);
  else
    dl_cpu_store_i (p, dt, iv);
}

static inline gboolean
is_int_dtype (DlDType dt)
{
  return !dl_dtype_is_float (dt);
}

/* Rows shorter than SHORT_ROW: four rows at a time in scalar registers,
 * four chains in flight, where a vector kernel would spend most of its
 * time on its lanes. Sums and products (OP, ONE) in double, divided by
 * div for the mean; max and min (BETTER) with the first index, a NaN
 * taken over a number and never the reverse. */
enum
{
  SHORT_ROW = 16
};

#define DEFINE_SHORT_FOLD(NAME, T, OP, ONE)                                                        \
  static void NAME (const char *in, gint64 si, gint64 n, gint64 count, char *out, gint64 so,       \
                    gdouble div)                                                                   \
  {                                                                                                \
    gint64 r = 0;                                                                                  \
                                                                                                   \
    for (; r + 4 <= count; r += 4)                                                                 \
      {                                                                                            \
        const T *x0 = (const T *)(in + r * si), *x1 = (const T *)(in + (r + 1) * si);              \
        const T *x2 = (const T *)(in + (r + 2) * si), *x3 = (const T *)(in + (r + 3) * si);        \
        gdouble s0 = ONE, s1 = ONE, s2 = ONE, s3 = ONE;                                            \
                                                                                                   \
        for (gint64 j = 0; j < n; j++)                                                             \
          {                                                                                        \
            s0 = s0 OP x0[j];                                                                      \
            s1 = s1 OP x1[j];                                                                      \
            s2 = s2 OP x2[j];                                                                      \
            s3 = s3 OP x3[j];                                                                      \
          }                                                                                        \
        *(T *)(out + r * so) = s0 / div;                                                           \
        *(T *)(out + (r + 1) * so) = s1 / div;                                                     \
        *(T *)(out + (r + 2) * so) = s2 / div;                                                     \
        *(T *)(out + (r + 3) * so) = s3 / div;                                                     \
      }                                                                                            \
    for (; r < count; r++)                                                                         \
      {                                                                                            \
        const T *x0 = (const T *)(in + r * si);                                                    \
        gdouble s0 = ONE;                                                                          \
                                                                                                   \
        for (gint64 j = 0; j < n; j++)                                                             \
          s0 = s0 OP x0[j];                                                                        \
        *(T *)(out + r * so) = s0 / div;                                                           \
      }                                                                                            \
  }

#define SHORT_EXT_STEP(T, BETTER, x, b, bi, j)                                                     \
  {                                                                                                \
    T v_ = (x)[j];                                                                                 \
    gboolean t_ = BETTER (v_, b) || (v_ != v_ && b == b);                                          \
    b = t_ ? v_ : b;                                                                               \
    bi = t_ ? j : bi;                                                                              \
  }

#define DEFINE_SHORT_EXTREMUM(NAME, T, BETTER)                                                     \
  static void NAME (const char *in, gint64 si, gint64 n, gint64 count, char *out, gint64 so,       \
                    char *ix, gint64 sx)                                                           \
  {                                                                                                \
    gint64 r = 0;                                                                                  \
                                                                                                   \
    for (; r + 4 <= count; r += 4)                                                                 \
      {                                                                                            \
        const T *x0 = (const T *)(in + r * si), *x1 = (const T *)(in + (r + 1) * si);              \
        const T *x2 = (const T *)(in + (r + 2) * si), *x3 = (const T *)(in + (r + 3) * si);        \
        T b0 = x0[0], b1 = x1[0], b2 = x2[0], b3 = x3[0];                                          \
        gint64 i0 = 0, i1 = 0, i2 = 0, i3 = 0;                                                     \
                                                                                                   \
        for (gint64 j = 1; j < n; j++)                                                             \
          {                                                                                        \
            SHORT_EXT_STEP (T, BETTER, x0, b0, i0, j);                                             \
            SHORT_EXT_STEP (T, BETTER, x1, b1, i1, j);                                             \
            SHORT_EXT_STEP (T, BETTER, x2, b2, i2, j);                                             \
            SHORT_EXT_STEP (T, BETTER, x3, b3, i3, j);                                             \
          }                                                                                        \
        *(T *)(out + r * so) = b0;                                                                 \
        *(T *)(out + (r + 1) * so) = b1;                                                           \
        *(T *)(out + (r + 2) * so) = b2;                                                           \
        *(T *)(out + (r + 3) * so) = b3;                                                           \
        if (ix)                                                                                    \
          {                                                                                        \
            *(gint64 *)(ix + r * sx) = i0;                                                         \
            *(gint64 *)(ix + (r + 1) * sx) = i1;                                                   \
            *(gint64 *)(ix + (r + 2) * sx) = i2;                                                   \
            *(gint64 *)(ix + (r + 3) * sx) = i3;                                                   \
          }                                                                                        \
      }                                                                                            \
    for (; r < count; r++)                                                                         \
      {                                                                                            \
        const T *x0 = (const T *)(in + r * si);                                                    \
        T b0 = x0[0];                                                                              \
        gint64 i0 = 0;                                                                             \
                                                                                                   \
        for (gint64 j = 1; j < n; j++)                                                             \
          SHORT_EXT_STEP (T, BETTER, x0, b0, i0, j);                                               \
        *(T *)(out + r * so) = b0;                                                                 \
        if (ix)                                                                                    \
          *(gint64 *)(ix + r * sx) = i0;                                                           \
      }                                                                                            \
  }

DEFINE_SHORT_FOLD (short_sum_f32, float, +, 0)
DEFINE_SHORT_FOLD (short_sum_f64, double, +, 0)
DEFINE_SHORT_FOLD (short_prod_f32, float, *, 1)
DEFINE_SHORT_FOLD (short_prod_f64, double, *, 1)
DEFINE_SHORT_EXTREMUM (short_max_f32, float, GT)
DEFINE_SHORT_EXTREMUM (short_min_f32, float, LT)
DEFINE_SHORT_EXTREMUM (short_max_f64, double, GT)
DEFINE_SHORT_EXTREMUM (short_min_f64, double, LT)

/* a + b in int64, wrapping around on overflow (as PyTorch's integer sums
 * do) without signed overflow's undefined behaviour */
static inline gint64
wrap_add (gint64 a, gint64 b)
{
  return (gint64)((guint64)a + (guint64)b);
}

/* Contiguous integer runs: sums in int64, max and min with the index
 * found in a second pass (GCC vectorises both loops). */
#define DEFINE_INT_RUNS(T, TN)                                                                     \
  DL_CPU_CLONES static gint64 sum_##TN (const T *restrict x, gint64 n)                             \
  {                                                                                                \
    guint64 s = 0; /* wraps around as PyTorch's sums do, with defined arithmetic */             \
    for (gint64 i = 0; i < n; i++)                                                                 \
      s += (guint64)x[i];                                                                          \
    return (gint64)s;                                                                              \
  }                                                                                                \
  DL_CPU_CLONES static Acc extremum_##TN (const T *restrict x, gint64 n, gboolean is_max,          \
                                          gboolean want_index)                                     \
  {                                                                                                \
    T m = x[0];                                                                                    \
    gint64 bi = 0;                                                                                 \
    if (is_max)                                                                                    \
      for (gint64 i = 1; i < n; i++)                                                               \
        m = x[i] > m ? x[i] : m;                                                                   \
    else                                                                                           \
      for (gint64 i = 1; i < n; i++)                                                               \
        m = x[i] < m ? x[i] : m;                                                                   \
    if (want_index)                                                                                \
      for (; x[bi] != m; bi++)                                                                     \
        ;                                                                                          \
    return (Acc){ .i = m, .index = bi };                                                           \
  }

DEFINE_INT_RUNS (gint32, i32)
DEFINE_INT_RUNS (gint64, i64)
DEFINE_INT_RUNS (guint8, u8)

/* Reduces n elements at stride s (bytes) starting at p, for the op: the
 * kernels above for contiguous runs, the scalar reference otherwise. */
static Acc
reduce_run (const RunKernels *k,
            DlReduceOp op,
            DlDType dt,
            const char *p,
            gint64 s,
            gint64 n,
            gboolean want_index)
{
  Acc a = { 0 };
  gboolean contig = (gsize)s == dl_dtype_size (dt);

  if (op == DL_REDUCE_SUM || op == DL_REDUCE_MEAN)
    {
      if (contig && dt == DL_DTYPE_FLOAT32)
        a.f = k->sum_f32 ((const float *)p, n);
      else if (contig && dt == DL_DTYPE_FLOAT64)
        a.f = k->sum_f64 ((const double *)p, n);
      else if (contig && dt == DL_DTYPE_INT32)
        a.i = sum_i32 ((const gint32 *)p, n);
      else if (contig && dt == DL_DTYPE_INT64)
        a.i = sum_i64 ((const gint64 *)p, n);
      else if (contig && (dt == DL_DTYPE_UINT8 || dt == DL_DTYPE_BOOL))
        a.i = sum_u8 ((const guint8 *)p, n);
      else if (is_int_dtype (dt))
        for (gint64 j = 0; j < n; j++)
          a.i = wrap_add (a.i, dl_cpu_load_i (p + j * s, dt));
      else
        for (gint64 j = 0; j < n; j++)
          a.f += dl_cpu_load_f (p + j * s, dt);
      return a;
    }

  if (op == DL_REDUCE_NANSUM)
    {
      if (is_int_dtype (dt))
        for (gint64 j = 0; j < n; j++)
          a.i = wrap_add (a.i, dl_cpu_load_i (p + j * s, dt));
      else
        for (gint64 j = 0; j < n; j++)
          {
            gdouble v = dl_cpu_load_f (p + j * s, dt);
            if (v == v)
              a.f += v;
          }
      return a;
    }
  if (op == DL_REDUCE_PROD)
    {
      if (contig && dt == DL_DTYPE_FLOAT32)
        a.f = k->prod_f32 ((const float *)p, n);
      else if (contig && dt == DL_DTYPE_FLOAT64)
        a.f = k->prod_f64 ((const double *)p, n);
      else if (is_int_dtype (dt))
        {
          /* wrapping, as PyTorch's int64 product */
          guint64 u = 1;
          for (gint64 j = 0; j < n; j++)
            u *= (guint64)dl_cpu_load_i (p + j * s, dt);
          a.i = (gint64)u;
        }
      else
        {
          a.f = 1;
          for (gint64 j = 0; j < n; j++)
            a.f *= dl_cpu_load_f (p + j * s, dt);
        }
      return a;
    }
  if (op == DL_REDUCE_ALL || op == DL_REDUCE_ANY)
    {
      gboolean want = op == DL_REDUCE_ANY;

      a.i = !want;
      for (gint64 j = 0; j < n; j++)
        {
          gboolean nz = is_int_dtype (dt) ? dl_cpu_load_i (p + j * s, dt) != 0
                                          : dl_cpu_load_f (p + j * s, dt) != 0;
          if (nz == want)
            {
              a.i = want;
              break;
            }
        }
      return a;
    }

  /* max / min: first index wins ties; NaN propagates (first NaN) */
  if (contig)
    switch (dt)
      {
        case DL_DTYPE_FLOAT32:
          return (op == DL_REDUCE_MAX ? k->max_f32 : k->min_f32) ((const float *)p, n, want_index);
        case DL_DTYPE_FLOAT64:
          return (op == DL_REDUCE_MAX ? k->max_f64 : k->min_f64) ((const double *)p, n, want_index);
        case DL_DTYPE_INT32:
          return extremum_i32 ((const gint32 *)p, n, op == DL_REDUCE_MAX, want_index);
        case DL_DTYPE_INT64:
          return extremum_i64 ((const gint64 *)p, n, op == DL_REDUCE_MAX, want_index);
        case DL_DTYPE_UINT8:
        case DL_DTYPE_BOOL:
          return extremum_u8 ((const guint8 *)p, n, op == DL_REDUCE_MAX, want_index);
        default:
          break;
      }
  if (is_int_dtype (dt))
    {
      a.i = dl_cpu_load_i (p, dt);
      for (gint64 j = 1; j < n; j++)
        {
          gint64 v = dl_cpu_load_i (p + j * s, dt);
          if (op == DL_REDUCE_MAX ? v > a.i : v < a.i)
            {
              a.i = v;
              a.index = j;
            }
        }
    }
  else
    {
      a.f = dl_cpu_load_f (p, dt);
      if (a.f != a.f)
        return a;
      for (gint64 j = 1; j < n; j++)
        {
          gdouble v = dl_cpu_load_f (p + j * s, dt);
          if (v != v)
            return (Acc){ .f = v, .index = j };
          if (op == DL_REDUCE_MAX ? v > a.f : v < a.f)
            {
              a.f = v;
              a.index = j;
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
      into->i = wrap_add (into->i, part.i);
      return;
    }
  if (op == DL_REDUCE_PROD)
    {
      into->f *= part.f;
      into->i = (gint64)((guint64)into->i * (guint64)part.i);
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

/* Writes one output (and its index) from its accumulator. */
static inline void
store_acc (DlReduceOp op, DlDType dt, char *out, char *ix, Acc a, gint64 n_inner)
{
  switch (op)
    {
      case DL_REDUCE_SUM:
      case DL_REDUCE_NANSUM:
      case DL_REDUCE_PROD:
        if (is_int_dtype (dt))
          *(gint64 *)out = a.i;
        else
          store (out, dt, a.f, 0);
        break;
      case DL_REDUCE_MEAN:
        store (out, dt, a.f / n_inner, 0);
        break;
      case DL_REDUCE_ALL:
      case DL_REDUCE_ANY:
        *(guint8 *)out = a.i != 0;
        break;
      default:
        store (out, dt, a.f, a.i);
        if (ix)
          *(gint64 *)ix = a.index;
        break;
    }
}

/* Reduces the full inner nest for one outer position. The inner nest is
 * walked as runs along its innermost dim. */
static Acc
reduce_inner (const RunKernels *k,
              DlReduceOp op,
              DlDType dt,
              const DlReduceArgs *args,
              const char *base,
              gint64 n_inner)
{
  gint nd = args->inner_ndim;
  gint64 run = args->inner_shape[nd - 1];
  gint64 n_runs = n_inner / run;
  gint64 idx[DL_MAX_DIMS] = { 0 };
  Acc acc = { 0 };

  for (gint64 r = 0; r < n_runs; r++)
    {
      const char *p = base + offset_of (idx, args->in_inner_strides, nd);
      Acc part
          = reduce_run (k, op, dt, p, args->in_inner_strides[nd - 1], run, args->indices != NULL);

      if (r == 0)
        acc = part;
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

/* output position @o: its n_inner elements reduced */
static inline void
reduce_outer (const RunKernels *k,
              DlReduceOp op,
              DlDType dt,
              const DlReduceArgs *args,
              gint64 o,
              gint64 n_inner)
{
  gint nd = args->outer_ndim;
  gint64 oidx[DL_MAX_DIMS];
  Acc acc;

  unravel (o, nd, args->outer_shape, oidx);
  acc = reduce_inner (k, op, dt, args, args->in + offset_of (oidx, args->in_outer_strides, nd),
                      n_inner);
  store_acc (op, dt, args->out + offset_of (oidx, args->out_strides, nd),
             args->indices ? args->indices + offset_of (oidx, args->indices_strides, nd) : NULL,
             acc, n_inner);
}

/* the longest rows summed two at a time: below the aligned grid's
 * threshold, and within one block at every level (512 floats for SSE) */
#define ROW_PAIR_MAX 255

/* Rows: @count outputs along one line of the outer nest, each reducing n
 * elements at stride s; the inputs si bytes apart, the outputs so, the
 * indices sx. Contiguous float rows call their kernels directly. */
static void
rows_line (const RunKernels *k,
           DlReduceOp op,
           DlDType dt,
           const char *in,
           gint64 si,
           gint64 s,
           gint64 n,
           gint64 count,
           char *out,
           gint64 so,
           char *ix,
           gint64 sx)
{
  gboolean f32 = dt == DL_DTYPE_FLOAT32 && s == 4, f64 = dt == DL_DTYPE_FLOAT64 && s == 8;
  gboolean is_max = op == DL_REDUCE_MAX;

  if ((f32 || f64) && n < SHORT_ROW)
    switch (op)
      {
        case DL_REDUCE_SUM:
        case DL_REDUCE_MEAN:
          (f32 ? short_sum_f32 : short_sum_f64) (in, si, n, count, out, so,
                                                 op == DL_REDUCE_MEAN ? n : 1);
          return;
        case DL_REDUCE_PROD:
          (f32 ? short_prod_f32 : short_prod_f64) (in, si, n, count, out, so, 1);
          return;
        case DL_REDUCE_MAX:
        case DL_REDUCE_MIN:
          if (f32)
            (is_max ? short_max_f32 : short_min_f32) (in, si, n, count, out, so, ix, sx);
          else
            (is_max ? short_max_f64 : short_min_f64) (in, si, n, count, out, so, ix, sx);
          return;
        default:
          break;
      }
  if (f32 && (op == DL_REDUCE_SUM || op == DL_REDUCE_MEAN))
    {
      gdouble div = op == DL_REDUCE_MEAN ? n : 1;

      gint64 r = 0;

      /* rows within one block of the sum, two at a time (sum2_f32: the
       * same bits); longer ones start off a boundary often enough for
       * sum_f32's aligned grid to be worth more */
      if (n <= ROW_PAIR_MAX)
        for (; r + 1 < count; r += 2)
          {
            gdouble s0, s1;

            k->sum2_f32 ((const float *)(in + r * si), (const float *)(in + (r + 1) * si), n, &s0,
                         &s1);
            *(float *)(out + r * so) = s0 / div;
            *(float *)(out + (r + 1) * so) = s1 / div;
          }
      for (; r < count; r++)
        *(float *)(out + r * so) = k->sum_f32 ((const float *)(in + r * si), n) / div;
      return;
    }
  if (f32 && (op == DL_REDUCE_MAX || op == DL_REDUCE_MIN))
    {
      Acc (*fn) (const float *, gint64, gboolean) = is_max ? k->max_f32 : k->min_f32;

      for (gint64 r = 0; r < count; r++)
        {
          Acc a = fn ((const float *)(in + r * si), n, ix != NULL);

          *(float *)(out + r * so) = a.f;
          if (ix)
            *(gint64 *)(ix + r * sx) = a.index;
        }
      return;
    }
  for (gint64 r = 0; r < count; r++)
    store_acc (op, dt, out + r * so, ix ? ix + r * sx : NULL,
               reduce_run (k, op, dt, in + r * si, s, n, ix != NULL), n);
}

/* Rows: outputs o0 .. o1 - 1 (flat over the outer nest) with one reduced
 * dim; unravelled once, then walked line by line. */
static void
rows_range (const RunKernels *k,
            DlReduceOp op,
            DlDType dt,
            const DlReduceArgs *args,
            gint64 o0,
            gint64 o1)
{
  gint nd = args->outer_ndim, last = nd - 1;
  gint64 oidx[DL_MAX_DIMS];

  unravel (o0, nd, args->outer_shape, oidx);
  for (gint64 o = o0; o < o1;)
    {
      gint64 count = MIN (o1 - o, args->outer_shape[last] - oidx[last]);

      rows_line (k, op, dt, args->in + offset_of (oidx, args->in_outer_strides, nd),
                 args->in_outer_strides[last], args->in_inner_strides[0], args->inner_shape[0],
                 count, args->out + offset_of (oidx, args->out_strides, nd),
                 args->out_strides[last],
                 args->indices ? args->indices + offset_of (oidx, args->indices_strides, nd) : NULL,
                 args->indices_strides[last]);
      o += count;
      oidx[last] += count - 1;
      for (gint d = last; d >= 0; d--)
        {
          if (++oidx[d] < args->outer_shape[d])
            break;
          oidx[d] = 0;
        }
    }
}

/* Columns. A block is the line of outputs along the innermost kept dim
 * (contiguous in the input); its lanes, TILE at a time, accumulate the
 * rows of the reduced nest one after the other. Float32 sums add COL_FLUSH
 * rows in float lanes, then move them into double lanes. */
enum
{
  TILE = 1024,
  COL_FLUSH = 128,
  COL_MIN_LANES = 64 /* narrower blocks lay rows side by side */
};

typedef enum
{
  COL_SUM_F32,
  COL_SUM_F64,
  COL_SUM_I32,
  COL_SUM_I64,
  COL_PROD_F32,
  COL_PROD_F64,
  COL_EXT_F32, /* max or min, from here on */
  COL_EXT_F64,
  COL_EXT_I32,
  COL_EXT_I64,
} ColKind;

typedef struct
{
  float f[TILE];  /* float32 sums since the last flush; float32 extrema */
  double d[TILE]; /* double sums and products; float64 extrema */
  gint64 i[TILE]; /* integer sums and extrema */
  gint64 x[TILE]; /* the rows where the extrema were taken */
} Tile;

/* a walk over rows: a strided nest of nd dims */
typedef struct
{
  const char *p;
  gint nd;
  const gint64 *shape, *strides;
  gint64 idx[DL_MAX_DIMS];
} Walk;

static inline void
walk_start (Walk *w,
            const char *base,
            gint nd,
            const gint64 *shape,
            const gint64 *strides,
            gint64 r)
{
  w->nd = nd;
  w->shape = shape;
  w->strides = strides;
  unravel (r, nd, shape, w->idx);
  w->p = base + offset_of (w->idx, strides, nd);
}

static inline void
walk_next (Walk *w)
{
  for (gint d = w->nd - 1; d >= 0; d--)
    {
      w->p += w->strides[d];
      if (++w->idx[d] < w->shape[d])
        return;
      w->p -= w->shape[d] * w->strides[d];
      w->idx[d] = 0;
    }
}

typedef struct
{
  const RunKernels *kern;
  DlReduceOp op;
  DlDType dt;
  ColKind kind;
  gboolean is_max, want_index;
  const DlReduceArgs *args;
  gint64 es;      /* the input's element size */
  gint64 width;   /* outputs per block */
  gint64 k;       /* input rows side by side in a lane row (1: none) */
  gint64 lanes;   /* k * width */
  gint64 n_tiles; /* per block */
  gint64 n_units; /* blocks times tiles */
  gint64 n_inner;
  gint64 n_rows; /* lane rows: n_inner / k */
  gint rnd;      /* their nest */
  gint64 rshape[DL_MAX_DIMS], rstrides[DL_MAX_DIMS];
} ColJob;

static gboolean
col_kind (DlReduceOp op, DlDType dt, ColKind *kind)
{
  gint t = dt == DL_DTYPE_FLOAT32   ? 0
           : dt == DL_DTYPE_FLOAT64 ? 1
           : dt == DL_DTYPE_INT32   ? 2
           : dt == DL_DTYPE_INT64   ? 3
                                    : -1;

  if (t < 0)
    return FALSE;
  switch (op)
    {
      case DL_REDUCE_SUM:
      case DL_REDUCE_MEAN:
        *kind = COL_SUM_F32 + t;
        return TRUE;
      case DL_REDUCE_PROD:
        *kind = COL_PROD_F32 + t;
        return t < 2;
      case DL_REDUCE_MAX:
      case DL_REDUCE_MIN:
        *kind = COL_EXT_F32 + t;
        return TRUE;
      default:
        return FALSE;
    }
}

/* rows r0 .. r1 - 1 of w lanes, the walk at row r0 */
#define COL_ROWS(T, ...)                                                                           \
  for (gint64 r = r0; r < r1; r++, walk_next (wk))                                                 \
    {                                                                                              \
      const T *restrict row = (const T *)wk->p;                                                    \
      for (gint64 j = 0; j < w; j++)                                                               \
        {                                                                                          \
          __VA_ARGS__;                                                                             \
        }                                                                                          \
    }

/* max or min into ACC: a NaN is taken over a number, never the reverse */
#define COL_EXT(T, ACC, BETTER, WANT)                                                              \
  COL_ROWS (T, T v = row[j]; T a = (T)ACC[j]; gboolean take = BETTER (v, a) || (v != v && a == a); \
            ACC[j] = take ? v : a; if (WANT) x[j] = take ? r : x[j])

#define COL_EXT_ALL(T, ACC)                                                                        \
  {                                                                                                \
    const T *first = (const T *)wk->p;                                                             \
    for (gint64 j = 0; j < w; j++)                                                                 \
      {                                                                                            \
        ACC[j] = first[j];                                                                         \
        x[j] = r0;                                                                                 \
      }                                                                                            \
    walk_next (wk);                                                                                \
    r0++;                                                                                          \
    if (job->is_max && job->want_index)                                                            \
      COL_EXT (T, ACC, GT, 1)                                                                      \
    else if (job->is_max)                                                                          \
      COL_EXT (T, ACC, GT, 0)                                                                      \
    else if (job->want_index)                                                                      \
      COL_EXT (T, ACC, LT, 1)                                                                      \
    else                                                                                           \
      COL_EXT (T, ACC, LT, 0)                                                                      \
  }

/* the next nr rows of the walk */
static inline void
walk_rows (Walk *wk, const char **rows, gint64 nr)
{
  for (gint64 q = 0; q < nr; q++, walk_next (wk))
    rows[q] = wk->p;
}

/* the rows in blocks of COL_FLUSH pointers for the column kernels */
#define COL_BLOCKS(CALL)                                                                           \
  for (gint64 r = r0; r < r1; r += COL_FLUSH)                                                      \
    {                                                                                              \
      gint64 nr = MIN (COL_FLUSH, r1 - r);                                                         \
      walk_rows (wk, rows, nr);                                                                    \
      CALL;                                                                                        \
    }

/* float max or min into ACC: with the indices by COL_EXT_ALL, without by
 * the column kernels MAX and MIN from the first row's values */
#define COL_EXT_FLOAT(T, ACC, MAX, MIN)                                                            \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (job->want_index)                                                                           \
      COL_EXT_ALL (T, ACC)                                                                         \
    else                                                                                           \
      {                                                                                            \
        memcpy (ACC, wk->p, w * sizeof (T));                                                       \
        /* no index is asked for, but col_finish and col_merge read the */                         \
        /* lanes' rows: the first row's, defined */                                                \
        for (gint64 j = 0; j < w; j++)                                                             \
          x[j] = r0;                                                                               \
        walk_next (wk);                                                                            \
        r0++;                                                                                      \
        COL_BLOCKS ((job->is_max ? k->MAX : k->MIN) (rows, nr, w, ACC));                           \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

/* Accumulates rows r0 .. r1 - 1 (r0 < r1, numbered so for the indices)
 * of w lanes into t, from scratch; the walk starts at row r0. The float
 * kernels are the level's column kernels; extrema with their indices and
 * integers are loops that GCC vectorises. */
DL_CPU_CLONES static void
col_accumulate (const ColJob *job, Tile *t, gint64 w, Walk *wk, gint64 r0, gint64 r1)
{
  const RunKernels *k = job->kern;
  const char *rows[COL_FLUSH];
  float *restrict f = t->f;
  double *restrict d = t->d;
  gint64 *restrict i = t->i, *restrict x = t->x;

  switch (job->kind)
    {
      case COL_SUM_F32:
      case COL_SUM_F64:
        for (gint64 j = 0; j < w; j++)
          d[j] = 0;
        COL_BLOCKS ((job->kind == COL_SUM_F32 ? k->col_sum_f32 : k->col_sum_f64) (rows, nr, w, d));
        break;
      case COL_SUM_I32:
      case COL_SUM_I64:
        for (gint64 j = 0; j < w; j++)
          i[j] = 0;
        if (job->kind == COL_SUM_I32)
          COL_ROWS (gint32, i[j] = wrap_add (i[j], row[j]))
        else
          COL_ROWS (gint64, i[j] = wrap_add (i[j], row[j]))
        break;
      case COL_PROD_F32:
      case COL_PROD_F64:
        for (gint64 j = 0; j < w; j++)
          d[j] = 1;
        COL_BLOCKS (
            (job->kind == COL_PROD_F32 ? k->col_prod_f32 : k->col_prod_f64) (rows, nr, w, d));
        break;
      case COL_EXT_F32:
        COL_EXT_FLOAT (float, f, col_max_f32, col_min_f32);
        break;
      case COL_EXT_F64:
        COL_EXT_FLOAT (double, d, col_max_f64, col_min_f64);
        break;
      case COL_EXT_I32:
        COL_EXT_ALL (gint32, i)
        break;
      case COL_EXT_I64:
        COL_EXT_ALL (gint64, i)
        break;
    }
}

/* whether candidate (v, vi) beats (a, ai) for max or min: NaN over numbers
 * (the first NaN), a better value, an equal one from an earlier row */
#define EXT_TAKE(BETTER, v, vi, a, ai)                                                             \
  ((a) != (a) ? ((v) != (v) && (vi) < (ai))                                                        \
              : ((v) != (v) || BETTER (v, a) || ((v) == (a) && (vi) < (ai))))
#define EXT_TAKE_OP(is_max, v, vi, a, ai)                                                          \
  ((is_max) ? EXT_TAKE (GT, v, vi, a, ai) : EXT_TAKE (LT, v, vi, a, ai))

/* Folds lanes po .. po + w - 1 of part into lanes io .. io + w - 1 of into
 * (they may be one tile). */
static void
col_merge (const ColJob *job, Tile *into, gint64 io, const Tile *part, gint64 po, gint64 w)
{
  gboolean mx = job->is_max;

  for (gint64 j = 0; j < w; j++)
    {
      gint64 a = io + j, b = po + j, ai = into->x[a], bi = part->x[b];

      switch (job->kind)
        {
          case COL_SUM_F32:
          case COL_SUM_F64:
            into->d[a] += part->d[b];
            break;
          case COL_SUM_I32:
          case COL_SUM_I64:
            into->i[a] = wrap_add (into->i[a], part->i[b]);
            break;
          case COL_PROD_F32:
          case COL_PROD_F64:
            into->d[a] *= part->d[b];
            break;
          case COL_EXT_F32:
            if (EXT_TAKE_OP (mx, part->f[b], bi, into->f[a], ai))
              {
                into->f[a] = part->f[b];
                into->x[a] = bi;
              }
            break;
          case COL_EXT_F64:
            if (EXT_TAKE_OP (mx, part->d[b], bi, into->d[a], ai))
              {
                into->d[a] = part->d[b];
                into->x[a] = bi;
              }
            break;
          case COL_EXT_I32:
          case COL_EXT_I64:
            if (EXT_TAKE_OP (mx, part->i[b], bi, into->i[a], ai))
              {
                into->i[a] = part->i[b];
                into->x[a] = bi;
              }
            break;
        }
    }
}

/* the block, output and index pointers of unit u (a tile of a block), its
 * first lane and its number of lanes */
static void
col_unit (const ColJob *job, gint64 u, const char **in, char **out, char **ix, gint64 *w)
{
  const DlReduceArgs *args = job->args;
  gint nd = args->outer_ndim;
  gint64 oidx[DL_MAX_DIMS], l0 = u % job->n_tiles * TILE;

  unravel (u / job->n_tiles * job->width, nd, args->outer_shape, oidx);
  *w = MIN (job->lanes - l0, TILE);
  *in = args->in + offset_of (oidx, args->in_outer_strides, nd) + l0 * job->es;
  *out = args->out + offset_of (oidx, args->out_strides, nd) + l0 * args->out_strides[nd - 1];
  *ix = args->indices ? args->indices + offset_of (oidx, args->indices_strides, nd)
                            + l0 * args->indices_strides[nd - 1]
                      : NULL;
}

static void
col_rows (const ColJob *job, Tile *t, const char *in, gint64 w, gint64 r0, gint64 r1)
{
  Walk wk;

  walk_start (&wk, in, job->rnd, job->rshape, job->rstrides, r0);
  col_accumulate (job, t, w, &wk, r0, r1);
}

/* col_finish's stores, out[j] = from[j] / div: contiguous outputs in a loop
 * GCC vectorises */
#define COL_STORE(T, from, div)                                                                    \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (so == sizeof (T))                                                                          \
      {                                                                                            \
        T *restrict o = (T *)out;                                                                  \
        for (gint64 j = 0; j < w; j++)                                                             \
          o[j] = (T)((from)[j] / (div));                                                           \
      }                                                                                            \
    else                                                                                           \
      for (gint64 j = 0; j < w; j++)                                                               \
        *(T *)(out + j * so) = (T)((from)[j] / (div));                                             \
  }                                                                                                \
  G_STMT_END

/* Writes a unit's outputs from its accumulated tile; with rows side by
 * side, folds the lanes and the rows left over first. */
DL_CPU_CLONES static void
col_finish (const ColJob *job, Tile *t, const char *in, char *out, char *ix, gint64 w)
{
  const DlReduceArgs *args = job->args;
  gint last = args->outer_ndim - 1;
  gint64 so = args->out_strides[last], sx = args->indices_strides[last];
  gdouble div = job->op == DL_REDUCE_MEAN ? job->n_inner : 1;

  if (job->k > 1)
    {
      gint64 width = job->width, k = job->k, first = job->n_rows * k;

      /* lane q * width + j saw rows q, k + q, 2k + q, ... as lane rows */
      if (job->kind >= COL_EXT_F32)
        for (gint64 l = 0; l < job->lanes; l++)
          t->x[l] = t->x[l] * k + l / width;
      for (gint64 q = 1; q < k; q++)
        col_merge (job, t, 0, t, q * width, width);
      if (first < job->n_inner)
        {
          Tile rest;
          gint64 shape = job->n_inner - first, stride = args->in_inner_strides[0];
          Walk wk;

          walk_start (&wk, in + first * stride, 1, &shape, &stride, 0);
          col_accumulate (job, &rest, width, &wk, first, job->n_inner);
          col_merge (job, t, 0, &rest, 0, width);
        }
      w = width;
    }
  switch (job->kind)
    {
      case COL_SUM_F32:
      case COL_PROD_F32:
        if (div != 1)
          COL_STORE (float, t->d, div);
        else
          COL_STORE (float, t->d, 1);
        break;
      case COL_SUM_F64:
      case COL_PROD_F64:
        if (div != 1)
          COL_STORE (double, t->d, div);
        else
          COL_STORE (double, t->d, 1);
        break;
      case COL_SUM_I32:
      case COL_SUM_I64:
      case COL_EXT_I64:
        COL_STORE (gint64, t->i, 1);
        break;
      case COL_EXT_I32:
        COL_STORE (gint32, t->i, 1);
        break;
      case COL_EXT_F32:
        COL_STORE (float, t->f, 1);
        break;
      case COL_EXT_F64:
        COL_STORE (double, t->d, 1);
        break;
    }
  if (ix)
    for (gint64 j = 0; j < w; j++)
      *(gint64 *)(ix + j * sx) = t->x[j];
}

/* The columns path, when the layout and the op fit it. Threads share the
 * units when there are enough of them, else the rows of each unit (then
 * the threads' partial tiles are merged in order). */
static gboolean
try_columns (const RunKernels *k,
             DlReduceOp op,
             DlDType dt,
             const DlReduceArgs *args,
             gint64 n_outer,
             gint64 n_inner)
{
  gint ond = args->outer_ndim, ind = args->inner_ndim, nt;
  ColJob job = { .kern = k, .op = op, .dt = dt, .args = args, .n_inner = n_inner, .k = 1 };

  job.es = dl_dtype_size (dt);
  if (ond < 1 || args->in_outer_strides[ond - 1] != job.es || !col_kind (op, dt, &job.kind))
    return FALSE;
  job.is_max = op == DL_REDUCE_MAX;
  job.want_index = args->indices != NULL;
  job.width = args->outer_shape[ond - 1];
  if (ind == 1 && args->in_inner_strides[0] == job.width * job.es && job.width < COL_MIN_LANES)
    job.k = MIN ((COL_MIN_LANES + job.width - 1) / job.width, n_inner);
  job.lanes = job.k * job.width;
  job.n_rows = n_inner / job.k;
  if (job.k > 1)
    {
      job.rnd = 1;
      job.rshape[0] = job.n_rows;
      job.rstrides[0] = job.k * args->in_inner_strides[0];
    }
  else
    {
      job.rnd = ind;
      memcpy (job.rshape, args->inner_shape, ind * sizeof (gint64));
      memcpy (job.rstrides, args->in_inner_strides, ind * sizeof (gint64));
    }
  job.n_tiles = (job.lanes + TILE - 1) / TILE;
  job.n_units = n_outer / job.width * job.n_tiles;
  /* the merge of partial tiles gives bits that depend on the thread
   * count: the count the user set, not the team (dl-cpu-team.c) */
  nt = n_outer * n_inner >= DL_CPU_GRAIN ? omp_get_max_threads () : 1;

  if (nt > 1 && job.n_units < 4 * nt && job.n_rows >= 64 * nt)
    {
      Tile *parts = g_new (Tile, nt);

#pragma omp parallel num_threads(nt)
      {
        gint t = omp_get_thread_num (), nth = omp_get_num_threads ();

        for (gint64 u = 0; u < job.n_units; u++)
          {
            const char *in;
            char *out, *ix;
            gint64 w;

            col_unit (&job, u, &in, &out, &ix, &w);
            col_rows (&job, &parts[t], in, w, job.n_rows * t / nth, job.n_rows * (t + 1) / nth);
#pragma omp barrier
            if (t == 0)
              {
                for (gint p = 1; p < nth; p++)
                  col_merge (&job, &parts[0], 0, &parts[p], 0, w);
                col_finish (&job, &parts[0], in, out, ix, w);
              }
#pragma omp barrier
          }
      }
      g_free (parts);
      return TRUE;
    }
  DL_CPU_FOR_IF (
      nt > 1 && job.n_units > 1, for (gint64 u = 0; u < job.n_units; u++) {
        const char *in;
        char *out, *ix;
        gint64 w;
        Tile t;

        col_unit (&job, u, &in, &out, &ix, &w);
        col_rows (&job, &t, in, w, 0, job.n_rows);
        col_finish (&job, &t, in, out, ix, w);
      });
  return TRUE;
}

/* A full reduction over several inner dims: runs r0 .. r1 - 1 of the
 * inner nest, indices flat over it. */
static Acc
full_runs (const RunKernels *k,
           DlReduceOp op,
           DlDType dt,
           const DlReduceArgs *args,
           gint64 r0,
           gint64 r1)
{
  gint nd = args->inner_ndim;
  gint64 run = args->inner_shape[nd - 1], s = args->in_inner_strides[nd - 1];
  Walk wk;
  Acc acc = { 0 };

  walk_start (&wk, args->in, nd - 1, args->inner_shape, args->in_inner_strides, r0);
  for (gint64 r = r0; r < r1; r++, walk_next (&wk))
    {
      Acc part = reduce_run (k, op, dt, wk.p, s, run, args->indices != NULL);

      if (r == r0)
        {
          acc = part;
          acc.index += r * run;
        }
      else
        combine (op, dt, &acc, part, r * run);
    }
  return acc;
}

void
dl_cpu_reduce (DlBackendContext *ctx, DlReduceOp op, const DlReduceArgs *args, DlDType dt)
{
  const RunKernels *k = dl_cpu_reduce_run_kernels ();
  gint ond = args->outer_ndim, ind = args->inner_ndim;
  gint64 n_outer = 1, n_inner = 1, es = dl_dtype_size (dt);
  gboolean parallel;

  for (gint d = 0; d < ond; d++)
    n_outer *= args->outer_shape[d];
  for (gint d = 0; d < ind; d++)
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
      if (op == DL_REDUCE_MEAN)
        zero = (Acc){ .f = NAN };
      for (gint64 o = 0; o < n_outer; o++)
        {
          unravel (o, ond, args->outer_shape, oidx);
          store_acc (op, dt, args->out + offset_of (oidx, args->out_strides, ond), NULL, zero, 1);
        }
      return;
    }
  parallel = n_outer * n_inner >= DL_CPU_GRAIN;

  if (n_outer == 1)
    {
      /* one output (its outer dims all 0): a long one in parts whose count
       * and bounds follow from its size alone, shared by the threads and
       * combined in order, so that it has the same bits on one thread as
       * on many, and on a busy machine (dl-cpu-team.c) as on a quiet one */
      gint64 n_runs = n_inner / args->inner_shape[ind - 1];
      /* over at least the grain: parts fixed by the size (dl_cpu_parts) */
      gint np = parallel ? dl_cpu_parts (n_inner) : 1;
      Acc parts[DL_CPU_PARTS], acc;
      DlCpuTeamClock clock;
      gint nt;

      if (ind > 1)
        np = (gint)MIN (np, n_runs);
      if (np < 2)
        acc = full_runs (k, op, dt, args, 0, n_runs);
      else
        {
          gint64 s = args->in_inner_strides[0];

          nt = MIN (dl_cpu_team_threads (), np);
          dl_cpu_team_fork (&clock, nt);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
          for (gint p = 0; p < np; p++)
            {
              dl_cpu_team_arrive (&clock, omp_get_thread_num ());
              if (ind == 1)
                {
                  gint64 b = n_inner * p / np, e = n_inner * (p + 1) / np;
                  parts[p]
                      = reduce_run (k, op, dt, args->in + b * s, s, e - b, args->indices != NULL);
                }
              else
                parts[p] = full_runs (k, op, dt, args, n_runs * p / np, n_runs * (p + 1) / np);
            }
          dl_cpu_team_join (&clock);
          acc = parts[0];
          for (gint p = 1; p < np; p++)
            combine (op, dt, &acc, parts[p], ind == 1 ? n_inner * p / np : 0);
        }
      store_acc (op, dt, args->out, args->indices, acc, n_inner);
      return;
    }

  if (args->in_inner_strides[ind - 1] != es && try_columns (k, op, dt, args, n_outer, n_inner))
    return;
  if (ind == 1)
    {
      /* rows; threads share the outputs */
      gint nt = parallel ? (gint)MIN (dl_cpu_team_threads (), n_outer) : 1;

      DL_CPU_FOR_IF (
          nt > 1, for (gint t = 0; t < nt; t++) {
            rows_range (k, op, dt, args, n_outer * t / nt, n_outer * (t + 1) / nt);
          });
      return;
    }
  DL_CPU_FOR_IF (
      parallel && n_outer > 1,
      for (gint64 o = 0; o < n_outer; o++) { reduce_outer (k, op, dt, args, o, n_inner); });
}
