/* dl-cpu-resample.c: the separable linear maps of planes that padding,
 * average and adaptive pooling and interpolation are (see DlResampleArgs
 * in dl-backend.h), and their adjoints.
 *
 * Maps whose every axis reads one input (or none) with weight 1 (padding,
 * nearest interpolation) are gathers and copy. Others run in two passes
 * per plane, accumulated in the element type (as PyTorch's opmath): each input row resampled along
 * x, then those rows combined along z and y; the adjoint runs the passes backwards. Planes are
 * independent, so threads share out whole planes and never write the same element.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-cpu-private.h"

/* whether each output of the axis reads at most one input with weight 1
 * (padding, nearest interpolation): a gather, with no arithmetic */
static gboolean
axis_is_gather (const DlResampleAxis *a)
{
  for (gint64 o = 0; o < a->out_size; o++)
    {
      const gint64 n = a->start[o + 1] - a->start[o];
      if (n > 1 || (n == 1 && a->weight[a->start[o]] != 1.0))
        return FALSE;
    }
  return TRUE;
}

/* for a gather axis, the input each output reads, or -1 (g_free it) */
static gint64 *
gather_index (const DlResampleAxis *a)
{
  gint64 *g = g_new (gint64, MAX (a->out_size, 1));

  for (gint64 o = 0; o < a->out_size; o++)
    g[o] = a->start[o] < a->start[o + 1] ? a->index[a->start[o]] : -1;
  return g;
}

/* k when the gather index @g of @out outputs repeats each of @in inputs k
 * times in order (nearest upsampling by an integer factor: g[x] = x / k),
 * else 0 */
static gint64
gather_repeat (const gint64 *g, gint64 in, gint64 out)
{
  gint64 k;

  if (g == NULL || in <= 0 || out % in != 0)
    return 0;
  k = out / in;
  for (gint64 x = 0; x < out; x++)
    if (g[x] != x / k)
      return 0;
  return k;
}

/* The transpose of an axis: for each input position, the outputs that read
 * it and with which weights (in @t's arrays, g_free them), so that the
 * adjoint gathers instead of scattering into overlapping windows. */
typedef struct
{
  gint64 *start, *out;
  gdouble *weight;
} AxisTranspose;

static void
axis_transpose (const DlResampleAxis *a, AxisTranspose *t)
{
  const gint64 n = a->start[a->out_size];
  g_autofree gint64 *fill = g_new0 (gint64, a->in_size + 1);

  t->start = g_new0 (gint64, a->in_size + 1);
  t->out = g_new (gint64, MAX (n, 1));
  t->weight = g_new (gdouble, MAX (n, 1));
  for (gint64 k = 0; k < n; k++)
    t->start[a->index[k] + 1]++;
  for (gint64 i = 0; i < a->in_size; i++)
    t->start[i + 1] += t->start[i];
  for (gint64 o = 0; o < a->out_size; o++)
    for (gint64 k = a->start[o]; k < a->start[o + 1]; k++)
      {
        const gint64 at = t->start[a->index[k]] + fill[a->index[k]]++;
        t->out[at] = o;
        t->weight[at] = a->weight[k];
      }
}

static void
axis_transpose_clear (AxisTranspose *t)
{
  g_free (t->start);
  g_free (t->out);
  g_free (t->weight);
}

/* whether each output of the axis reads a run of consecutive inputs with
 * one weight (average and adaptive pooling): a box, summed without
 * indices */
static gboolean
axis_is_box (const DlResampleAxis *a)
{
  for (gint64 o = 0; o < a->out_size; o++)
    for (gint64 k = a->start[o] + 1; k < a->start[o + 1]; k++)
      if (a->index[k] != a->index[k - 1] + 1 || a->weight[k] != a->weight[k - 1])
        return FALSE;
  return TRUE;
}

/* the x pass of one row: tmp[x] = sum over the taps k of x of
 * weight[k] * row[index[k]] (a box: the run summed, then weighted) */
#define RESAMPLE_ROW(T, A, ax, box, row, tmp)                                                      \
  for (gint64 x = 0; x < (ax)->out_size; x++)                                                      \
    {                                                                                              \
      const gint64 k0 = (ax)->start[x], k1 = (ax)->start[x + 1];                                   \
      A s = 0;                                                                                     \
      if ((box) && k1 > k0)                                                                        \
        {                                                                                          \
          const T *run = (row) + (ax)->index[k0];                                                  \
          for (gint64 i = 0; i < k1 - k0; i++)                                                     \
            s += run[i];                                                                           \
          s *= (A)(ax)->weight[k0];                                                                \
        }                                                                                          \
      else                                                                                         \
        for (gint64 k = k0; k < k1; k++)                                                           \
          s += (A)(ax)->weight[k] * (row)[(ax)->index[k]];                                         \
      (tmp)[x] = s;                                                                                \
    }

#define DL_DEFINE_RESAMPLE(T, A, suffix)                                                           \
  /* gathers (every axis one tap of weight 1 or none) copy; other maps go                          \
   * in two passes per plane: each input row resampled along x into tmp                            \
   * [d * h, out_w], then the rows of tmp combined along z and y */                                \
  static void resample_##suffix (const DlResampleArgs *a, const T *in, T *out)                     \
  {                                                                                                \
    const DlResampleAxis *az = &a->axis[0], *ay = &a->axis[1], *ax = &a->axis[2];                  \
    const gint64 rows = az->in_size * ay->in_size;                                                 \
    const gint64 in_plane = rows * ax->in_size;                                                    \
    const gint64 out_plane = az->out_size * ay->out_size * ax->out_size;                           \
    const gboolean gather = axis_is_gather (az) && axis_is_gather (ay) && axis_is_gather (ax);     \
    const gboolean box = axis_is_box (ax);                                                         \
    g_autofree gint64 *gx = gather ? gather_index (ax) : NULL;                                     \
    const gint64 rep = gather_repeat (gx, ax->in_size, ax->out_size);                              \
    /* which pass first: the cheaper, counting a tap of the x pass (a                              \
     * reduction through indices) as 4 of the row pass (a vector axpy);                            \
     * downsampling along z and y (pooling) combines input rows first */                           \
    const gint64 taps_zy = az->start[az->out_size] * ay->start[ay->out_size];                      \
    const gint64 taps_x = ax->start[ax->out_size];                                                 \
    const gboolean y_first = !gather                                                               \
                             && taps_zy * ax->in_size + 4 * az->out_size * ay->out_size * taps_x   \
                                    < 4 * rows * taps_x + taps_zy * ax->out_size;                  \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        a->planes *(out_plane + in_plane) >= DL_CPU_GRAIN,                                         \
        for (gint64 p = 0; p < a->planes; p++) {                                                   \
          const T *src = in + p * in_plane;                                                        \
          T *dst = out + p * out_plane;                                                            \
          g_autofree A *tmp = gather    ? NULL                                                     \
                              : y_first ? g_new (A, ax->in_size + ax->out_size)                    \
                                        : g_new (A, (rows + 1) * ax->out_size);                    \
          A *acc = tmp ? tmp + (y_first ? ax->in_size : rows * ax->out_size) : NULL;               \
          const T *last = NULL; /* the input row the previous output row copied */                 \
                                                                                                   \
          if (y_first)                                                                             \
            {                                                                                      \
              for (gint64 z = 0; z < az->out_size; z++)                                            \
                for (gint64 y = 0; y < ay->out_size; y++, dst += ax->out_size)                     \
                  {                                                                                \
                    memset (tmp, 0, ax->in_size * sizeof (A));                                     \
                    for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                       \
                      for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                     \
                        {                                                                          \
                          const A w = (A)(az->weight[i] * ay->weight[j]);                          \
                          const T *row                                                             \
                              = src + (az->index[i] * ay->in_size + ay->index[j]) * ax->in_size;   \
                          for (gint64 k = 0; k < ax->in_size; k++)                                 \
                            tmp[k] += w * row[k];                                                  \
                        }                                                                          \
                    RESAMPLE_ROW (A, A, ax, box, tmp, acc);                                        \
                    for (gint64 x = 0; x < ax->out_size; x++)                                      \
                      dst[x] = ax->start[x] == ax->start[x + 1]                                    \
                                       || az->start[z] == az->start[z + 1]                         \
                                       || ay->start[y] == ay->start[y + 1]                         \
                                   ? (T)a->fill                                                    \
                                   : (T)acc[x];                                                    \
                  }                                                                                \
              continue;                                                                            \
            }                                                                                      \
          if (!gather)                                                                             \
            for (gint64 r = 0; r < rows; r++)                                                      \
              RESAMPLE_ROW (T, A, ax, box, src + r * ax->in_size, tmp + r * ax->out_size);         \
          for (gint64 z = 0; z < az->out_size; z++)                                                \
            for (gint64 y = 0; y < ay->out_size; y++, dst += ax->out_size)                         \
              {                                                                                    \
                if (az->start[z] == az->start[z + 1] || ay->start[y] == ay->start[y + 1])          \
                  {                                                                                \
                    for (gint64 x = 0; x < ax->out_size; x++)                                      \
                      dst[x] = (T)a->fill;                                                         \
                    last = NULL;                                                                   \
                    continue;                                                                      \
                  }                                                                                \
                if (gather)                                                                        \
                  {                                                                                \
                    const T *row                                                                   \
                        = src                                                                      \
                          + (az->index[az->start[z]] * ay->in_size + ay->index[ay->start[y]])      \
                                * ax->in_size;                                                     \
                    if (row == last) /* nearest upsampling repeats rows */                         \
                      memcpy (dst, dst - ax->out_size, ax->out_size * sizeof (T));                 \
                    else if (rep == 2)                                                             \
                      for (gint64 i = 0; i < ax->in_size; i++)                                     \
                        dst[2 * i] = dst[2 * i + 1] = row[i];                                      \
                    else if (rep > 0)                                                              \
                      for (gint64 i = 0; i < ax->in_size; i++)                                     \
                        for (gint64 j = 0; j < rep; j++)                                           \
                          dst[i * rep + j] = row[i];                                               \
                    else                                                                           \
                      for (gint64 x = 0; x < ax->out_size; x++)                                    \
                        dst[x] = gx[x] < 0 ? (T)a->fill : row[gx[x]];                              \
                    last = row;                                                                    \
                    continue;                                                                      \
                  }                                                                                \
                last = NULL;                                                                       \
                memset (acc, 0, ax->out_size * sizeof (A));                                        \
                for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                           \
                  for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                         \
                    {                                                                              \
                      const A w = (A)az->weight[i] * ay->weight[j];                                \
                      const A *t                                                                   \
                          = tmp + (az->index[i] * ay->in_size + ay->index[j]) * ax->out_size;      \
                      for (gint64 x = 0; x < ax->out_size; x++)                                    \
                        acc[x] += w * t[x];                                                        \
                    }                                                                              \
                for (gint64 x = 0; x < ax->out_size; x++)                                          \
                  dst[x] = ax->start[x] == ax->start[x + 1] ? (T)a->fill : (T)acc[x];              \
              }                                                                                    \
        });                                                                                        \
  }                                                                                                \
                                                                                                   \
  /* the same two passes backwards: output rows summed into tmp [d * h,                            \
   * out_w] with their z and y weights, then each tmp row scattered along x */                     \
  static void resample_adjoint_##suffix (const DlResampleArgs *a, const T *grad, T *grad_in)       \
  {                                                                                                \
    const DlResampleAxis *az = &a->axis[0], *ay = &a->axis[1], *ax = &a->axis[2];                  \
    const gint64 rows = az->in_size * ay->in_size;                                                 \
    const gint64 in_plane = rows * ax->in_size;                                                    \
    const gint64 out_plane = az->out_size * ay->out_size * ax->out_size;                           \
    const gboolean all_gather = axis_is_gather (ax) && axis_is_gather (az) && axis_is_gather (ay); \
    g_autofree gint64 *gx = all_gather ? gather_index (ax) : NULL;                                 \
    const gint64 rep = gather_repeat (gx, ax->in_size, ax->out_size);                              \
    AxisTranspose tx = { 0 };                                                                      \
    gboolean runs = FALSE; /* disjoint boxes: each output's run written whole */                   \
                                                                                                   \
    if (!all_gather)                                                                               \
      {                                                                                            \
        axis_transpose (ax, &tx);                                                                  \
        runs = axis_is_box (ax);                                                                   \
        for (gint64 i = 0; i < ax->in_size && runs; i++)                                           \
          runs = tx.start[i + 1] - tx.start[i] <= 1;                                               \
      }                                                                                            \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        a->planes *(out_plane + in_plane) >= DL_CPU_GRAIN,                                         \
        for (gint64 p = 0; p < a->planes; p++) {                                                   \
          T *dst = grad_in + p * in_plane;                                                         \
          const T *src = grad + p * out_plane;                                                     \
          g_autofree A *tmp = NULL;                                                                \
                                                                                                   \
          if (all_gather)                                                                          \
            {                                                                                      \
              /* padding, nearest: each output added to the one input it read */                   \
              memset (dst, 0, in_plane * sizeof (T));                                              \
              for (gint64 z = 0; z < az->out_size; z++)                                            \
                for (gint64 y = 0; y < ay->out_size; y++, src += ax->out_size)                     \
                  {                                                                                \
                    T *row;                                                                        \
                                                                                                   \
                    if (az->start[z] == az->start[z + 1] || ay->start[y] == ay->start[y + 1])      \
                      continue;                                                                    \
                    row = dst                                                                      \
                          + (az->index[az->start[z]] * ay->in_size + ay->index[ay->start[y]])      \
                                * ax->in_size;                                                     \
                    if (rep == 2)                                                                  \
                      for (gint64 i = 0; i < ax->in_size; i++)                                     \
                        row[i] = (row[i] + src[2 * i]) + src[2 * i + 1]; /* the gather's order */  \
                    else if (rep > 0)                                                              \
                      for (gint64 i = 0; i < ax->in_size; i++)                                     \
                        for (gint64 j = 0; j < rep; j++)                                           \
                          row[i] += src[i * rep + j];                                              \
                    else                                                                           \
                      for (gint64 x = 0; x < ax->out_size; x++)                                    \
                        if (gx[x] >= 0)                                                            \
                          row[gx[x]] += src[x];                                                    \
                  }                                                                                \
              continue;                                                                            \
            }                                                                                      \
          tmp = g_new0 (A, rows * ax->out_size);                                                   \
          for (gint64 z = 0; z < az->out_size; z++)                                                \
            for (gint64 y = 0; y < ay->out_size; y++, src += ax->out_size)                         \
              for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                             \
                for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                           \
                  {                                                                                \
                    A *t = tmp + (az->index[i] * ay->in_size + ay->index[j]) * ax->out_size;       \
                    const A w = (A)(az->weight[i] * ay->weight[j]);                                \
                    for (gint64 x = 0; x < ax->out_size; x++)                                      \
                      t[x] += w * src[x];                                                          \
                  }                                                                                \
          for (gint64 r = 0; r < rows; r++)                                                        \
            {                                                                                      \
              T *row = dst + r * ax->in_size;                                                      \
              const A *t = tmp + r * ax->out_size;                                                 \
                                                                                                   \
              if (runs)                                                                            \
                {                                                                                  \
                  memset (row, 0, ax->in_size * sizeof (T));                                       \
                  for (gint64 x = 0; x < ax->out_size; x++)                                        \
                    {                                                                              \
                      const gint64 k0 = ax->start[x], n = ax->start[x + 1] - k0;                   \
                      const T g = n > 0 ? (T)((A)ax->weight[k0] * t[x]) : (T)0;                    \
                      T *run = n > 0 ? row + ax->index[k0] : row;                                  \
                      for (gint64 i = 0; i < n; i++)                                               \
                        run[i] = g;                                                                \
                    }                                                                              \
                  continue;                                                                        \
                }                                                                                  \
              for (gint64 i = 0; i < ax->in_size; i++)                                             \
                {                                                                                  \
                  A s = 0;                                                                         \
                  for (gint64 k = tx.start[i]; k < tx.start[i + 1]; k++)                           \
                    s += (A)tx.weight[k] * t[tx.out[k]];                                           \
                  row[i] = (T)s;                                                                   \
                }                                                                                  \
            }                                                                                      \
        });                                                                                        \
    axis_transpose_clear (&tx);                                                                    \
  }

DL_DEFINE_RESAMPLE (float, float, f32)
DL_DEFINE_RESAMPLE (double, double, f64)

void
dl_cpu_resample (DlBackendContext *ctx,
                 const DlResampleArgs *a,
                 const void *in,
                 void *out,
                 DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    resample_f64 (a, in, out);
  else
    resample_f32 (a, in, out);
}

void
dl_cpu_resample_adjoint (DlBackendContext *ctx,
                         const DlResampleArgs *a,
                         const void *grad,
                         void *grad_in,
                         DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    resample_adjoint_f64 (a, grad, grad_in);
  else
    resample_adjoint_f32 (a, grad, grad_in);
}

/* each output the maximum of its taps (PyTorch's adaptive max pooling:
 * a later NaN replaces the maximum) and its flat position in the plane */
#define DL_DEFINE_RESAMPLE_MAX(T, suffix)                                                          \
  static void resample_max_##suffix (const DlResampleArgs *a, const T *in, T *out, gint64 *idx)    \
  {                                                                                                \
    const DlResampleAxis *az = &a->axis[0], *ay = &a->axis[1], *ax = &a->axis[2];                  \
    const gint64 in_plane = az->in_size * ay->in_size * ax->in_size;                               \
    const gint64 out_plane = az->out_size * ay->out_size * ax->out_size;                           \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        a->planes *(out_plane + in_plane) >= DL_CPU_GRAIN,                                         \
        for (gint64 p = 0; p < a->planes; p++) {                                                   \
          const T *src = in + p * in_plane;                                                        \
          T *dst = out + p * out_plane;                                                            \
          gint64 *at = idx + p * out_plane;                                                        \
                                                                                                   \
          for (gint64 z = 0; z < az->out_size; z++)                                                \
            for (gint64 y = 0; y < ay->out_size; y++)                                              \
              for (gint64 x = 0; x < ax->out_size; x++, dst++, at++)                               \
                {                                                                                  \
                  T best = 0;                                                                      \
                  gint64 where = -1;                                                               \
                                                                                                   \
                  for (gint64 i = az->start[z]; i < az->start[z + 1]; i++)                         \
                    for (gint64 j = ay->start[y]; j < ay->start[y + 1]; j++)                       \
                      for (gint64 k = ax->start[x]; k < ax->start[x + 1]; k++)                     \
                        {                                                                          \
                          const gint64 pos                                                         \
                              = (az->index[i] * ay->in_size + ay->index[j]) * ax->in_size          \
                                + ax->index[k];                                                    \
                          const T v = src[pos];                                                    \
                                                                                                   \
                          if (where < 0 || v > best || isnan (v))                                  \
                            {                                                                      \
                              best = v;                                                            \
                              where = pos;                                                         \
                            }                                                                      \
                        }                                                                          \
                  *dst = best;                                                                     \
                  *at = where;                                                                     \
                }                                                                                  \
        });                                                                                        \
  }

DL_DEFINE_RESAMPLE_MAX (float, f32)
DL_DEFINE_RESAMPLE_MAX (double, f64)

void
dl_cpu_resample_max (DlBackendContext *ctx,
                     const DlResampleArgs *a,
                     const void *in,
                     void *out,
                     gint64 *indices,
                     DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    resample_max_f64 (a, in, out, indices);
  else
    resample_max_f32 (a, in, out, indices);
}
