/* dl-cpu-conv.c: im2col and col2im, the data movement of convolutions
 * done as GEMMs (see DlConvGeometry in dl-backend.h).
 *
 * im2col writes each column row (one channel, one kernel tap) as out_h
 * runs of out_w elements: a run is a strided read of one image row, with
 * the parts that fall in the padding zeroed. col2im sums the rows of one
 * channel into its image plane; planes are independent, so threads share
 * out (image, channel) planes and never write the same element.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#include "dl-cpu-private.h"

/* the first and one past the last output x whose input column
 * x * sw + off lies in [0, w) */
static inline void
valid_range (gint64 off, gint64 sw, gint64 w, gint64 out_w, gint64 *x0, gint64 *x1)
{
  gint64 lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
  gint64 hi = off >= w ? 0 : (w - 1 - off) / sw + 1;

  *x0 = MIN (lo, out_w);
  *x1 = CLAMP (hi, *x0, out_w);
}

#define DL_DEFINE_CONV(T, suffix)                                                                  \
  static void im2col_planes_##suffix (const DlConvGeometry *g, const T *image, T *cols, gint64 p0, \
                                      gint64 p1)                                                   \
  {                                                                                                \
    const gint64 taps = g->kh * g->kw;                                                             \
                                                                                                   \
    for (gint64 p = p0; p < p1; p++)                                                               \
      {                                                                                            \
        const T *src = image + p * g->h * g->w;                                                    \
        T *dst = cols + (p / g->c) * g->col_batch_stride + (p % g->c) * taps * g->col_row_stride;  \
                                                                                                   \
        for (gint64 i = 0; i < g->kh; i++)                                                         \
          for (gint64 j = 0; j < g->kw; j++, dst += g->col_row_stride)                             \
            {                                                                                      \
              const gint64 xoff = j * g->dw - g->pw;                                               \
              gint64 x0, x1;                                                                       \
                                                                                                   \
              valid_range (xoff, g->sw, g->w, g->out_w, &x0, &x1);                                 \
              for (gint64 y = 0; y < g->out_h; y++)                                                \
                {                                                                                  \
                  const gint64 iy = y * g->sh - g->ph + i * g->dh;                                 \
                  T *row = dst + y * g->out_w;                                                     \
                                                                                                   \
                  if (iy < 0 || iy >= g->h)                                                        \
                    {                                                                              \
                      memset (row, 0, g->out_w * sizeof (T));                                      \
                      continue;                                                                    \
                    }                                                                              \
                  const T *in = src + iy * g->w + xoff;                                            \
                  for (gint64 x = 0; x < x0; x++)                                                  \
                    row[x] = 0;                                                                    \
                  if (g->sw == 1)                                                                  \
                    memcpy (row + x0, in + x0, (x1 - x0) * sizeof (T));                            \
                  else                                                                             \
                    for (gint64 x = x0; x < x1; x++)                                               \
                      row[x] = in[x * g->sw];                                                      \
                  for (gint64 x = x1; x < g->out_w; x++)                                           \
                    row[x] = 0;                                                                    \
                }                                                                                  \
            }                                                                                      \
      }                                                                                            \
  }                                                                                                \
                                                                                                   \
  static void im2col_##suffix (const DlConvGeometry *g, const T *image, T *cols)                   \
  {                                                                                                \
    const gint64 planes = g->n * g->c, taps = g->kh * g->kw, l = g->out_h * g->out_w;              \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        planes *taps *l >= DL_CPU_GRAIN, for (gint64 p = 0; p < planes; p++) {                     \
          im2col_planes_##suffix (g, image, cols, p, p + 1);                                       \
        });                                                                                        \
  }                                                                                                \
                                                                                                   \
  static void col2im_planes_##suffix (const DlConvGeometry *g, const T *cols, T *image, gint64 p0, \
                                      gint64 p1)                                                   \
  {                                                                                                \
    const gint64 taps = g->kh * g->kw;                                                             \
                                                                                                   \
    for (gint64 p = p0; p < p1; p++)                                                               \
      {                                                                                            \
        T *dst = image + p * g->h * g->w;                                                          \
        const T *src                                                                               \
            = cols + (p / g->c) * g->col_batch_stride + (p % g->c) * taps * g->col_row_stride;     \
                                                                                                   \
        memset (dst, 0, g->h * g->w * sizeof (T));                                                 \
        for (gint64 i = 0; i < g->kh; i++)                                                         \
          for (gint64 j = 0; j < g->kw; j++, src += g->col_row_stride)                             \
            {                                                                                      \
              const gint64 xoff = j * g->dw - g->pw;                                               \
              gint64 x0, x1;                                                                       \
                                                                                                   \
              valid_range (xoff, g->sw, g->w, g->out_w, &x0, &x1);                                 \
              for (gint64 y = 0; y < g->out_h; y++)                                                \
                {                                                                                  \
                  const gint64 iy = y * g->sh - g->ph + i * g->dh;                                 \
                  const T *row = src + y * g->out_w;                                               \
                  T *out;                                                                          \
                                                                                                   \
                  if (iy < 0 || iy >= g->h)                                                        \
                    continue;                                                                      \
                  out = dst + iy * g->w + xoff;                                                    \
                  if (g->sw == 1)                                                                  \
                    for (gint64 x = x0; x < x1; x++)                                               \
                      out[x] += row[x];                                                            \
                  else                                                                             \
                    for (gint64 x = x0; x < x1; x++)                                               \
                      out[x * g->sw] += row[x];                                                    \
                }                                                                                  \
            }                                                                                      \
      }                                                                                            \
  }                                                                                                \
                                                                                                   \
  static void col2im_##suffix (const DlConvGeometry *g, const T *cols, T *image)                   \
  {                                                                                                \
    const gint64 planes = g->n * g->c, taps = g->kh * g->kw, l = g->out_h * g->out_w;              \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        planes *taps *l >= DL_CPU_GRAIN, for (gint64 p = 0; p < planes; p++) {                     \
          col2im_planes_##suffix (g, cols, image, p, p + 1);                                       \
        });                                                                                        \
  }

DL_DEFINE_CONV (float, f32)
DL_DEFINE_CONV (double, f64)

/* Fused convolutions (groups 1), see DlConvArgs: the images are shared
 * out among the threads, each working on one image at a time with its own
 * columns [c * kh * kw, l] (which stay in its cache) and single-threaded
 * GEMMs that write the image's output [o, l] in place, the bias filled in
 * first (beta 1). The backward recomputes each image's columns for the
 * weight's gradient (summed per thread with beta 1, then across the
 * threads), then overwrites them with weight^T @ dy and sums them back
 * into the input's gradient (col2im). A 1 x 1 convolution with stride 1
 * and no padding needs no columns: the image is its own. With a batch
 * smaller than the threads, one image at a time goes to the threaded GEMM
 * instead. */
static gboolean
cols_are_image (const DlConvGeometry *g)
{
  return g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0;
}

#define DL_DEFINE_CONV_FUSED(T, suffix, DT)                                                        \
  static void conv2d_forward_##suffix (const DlConvArgs *a)                                        \
  {                                                                                                \
    DlConvGeometry g1 = a->g;                                                                      \
    const gint64 n = a->g.n, c = a->g.c, o = a->o, l = a->g.out_h * a->g.out_w;                    \
    const gint64 ck = c * a->g.kh * a->g.kw, chw = c * a->g.h * a->g.w;                            \
    const gboolean direct = cols_are_image (&a->g);                                                \
    const gint nt = (gint)MIN (omp_get_max_threads (), n);                                         \
    const T *x = a->x, *w = a->weight, *bias = a->bias;                                            \
    T *y = a->y;                                                                                   \
                                                                                                   \
    g1.n = 1;                                                                                      \
    g1.col_batch_stride = ck * l;                                                                  \
    g1.col_row_stride = l;                                                                         \
    _Pragma ("omp parallel num_threads(nt) if (nt > 1)")                                           \
    {                                                                                              \
      T *cols = direct ? NULL : g_new (T, ck * l);                                                 \
                                                                                                   \
      _Pragma ("omp for schedule(static)") for (gint64 i = 0; i < n; i++)                          \
      {                                                                                            \
        const T *xi = x + i * chw;                                                                 \
        T *yi = y + i * o * l;                                                                     \
                                                                                                   \
        if (!direct)                                                                               \
          im2col_planes_##suffix (&g1, xi, cols, 0, c);                                            \
        if (bias)                                                                                  \
          for (gint64 r = 0; r < o; r++)                                                           \
            for (gint64 j = 0; j < l; j++)                                                         \
              yi[r * l + j] = bias[r];                                                             \
        dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, o, l, ck, w, ck, direct ? xi : cols, l,             \
                             bias ? 1.0 : 0.0, yi, l);                                             \
      }                                                                                            \
      g_free (cols);                                                                               \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  static void conv2d_backward_##suffix (const DlConvArgs *a)                                       \
  {                                                                                                \
    DlConvGeometry g1 = a->g;                                                                      \
    const gint64 n = a->g.n, c = a->g.c, o = a->o, l = a->g.out_h * a->g.out_w;                    \
    const gint64 ck = c * a->g.kh * a->g.kw, chw = c * a->g.h * a->g.w;                            \
    const gboolean direct = cols_are_image (&a->g);                                                \
    const gint nt = (gint)MIN (omp_get_max_threads (), n);                                         \
    const T *x = a->x, *w = a->weight, *dy = a->dy;                                                \
    T *dx = a->dx, *dweight = a->dweight, *dbias = a->dbias;                                       \
    T **dws = g_new0 (T *, nt);                                                                    \
    gdouble *dbs = g_new0 (gdouble, nt * o);                                                       \
                                                                                                   \
    g1.n = 1;                                                                                      \
    g1.col_batch_stride = ck * l;                                                                  \
    g1.col_row_stride = l;                                                                         \
    _Pragma ("omp parallel num_threads(nt) if (nt > 1)")                                           \
    {                                                                                              \
      const gint t = omp_get_thread_num ();                                                        \
      T *cols = direct ? NULL : g_new (T, ck * l);                                                 \
      T *dw = dweight ? (t == 0 ? dweight : g_new (T, o * ck)) : NULL;                             \
      gdouble *db = dbs + t * o;                                                                   \
      gboolean first = TRUE;                                                                       \
                                                                                                   \
      _Pragma ("omp for schedule(static)") for (gint64 i = 0; i < n; i++)                          \
      {                                                                                            \
        const T *xi = x + i * chw, *dyi = dy + i * o * l;                                          \
                                                                                                   \
        if (dw)                                                                                    \
          {                                                                                        \
            if (!direct)                                                                           \
              im2col_planes_##suffix (&g1, xi, cols, 0, c);                                        \
            dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, o, ck, l, dyi, l, direct ? xi : cols, l,         \
                                 first ? 0.0 : 1.0, dw, ck);                                       \
            first = FALSE;                                                                         \
          }                                                                                        \
        if (dx && direct)                                                                          \
          dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, c, l, o, w, ck, dyi, l, 0.0, dx + i * chw, l);     \
        else if (dx)                                                                               \
          {                                                                                        \
            dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, ck, l, o, w, ck, dyi, l, 0.0, cols, l);          \
            col2im_planes_##suffix (&g1, cols, dx + i * chw, 0, c);                                \
          }                                                                                        \
        if (dbias)                                                                                 \
          for (gint64 r = 0; r < o; r++)                                                           \
            {                                                                                      \
              gdouble s = 0;                                                                       \
              for (gint64 j = 0; j < l; j++)                                                       \
                s += dyi[r * l + j];                                                               \
              db[r] += s;                                                                          \
            }                                                                                      \
      }                                                                                            \
      if (dw && first)                                                                             \
        memset (dw, 0, o *ck * sizeof (T));                                                        \
      dws[t] = dw;                                                                                 \
      g_free (cols);                                                                               \
    }                                                                                              \
    for (gint t = 1; t < nt; t++)                                                                  \
      if (dws[t])                                                                                  \
        {                                                                                          \
          for (gint64 e = 0; e < o * ck; e++)                                                      \
            dweight[e] += dws[t][e];                                                               \
          g_free (dws[t]);                                                                         \
        }                                                                                          \
    if (dbias)                                                                                     \
      for (gint64 r = 0; r < o; r++)                                                               \
        {                                                                                          \
          gdouble s = 0;                                                                           \
          for (gint t = 0; t < nt; t++)                                                            \
            s += dbs[t * o + r];                                                                   \
          dbias[r] = (T)s;                                                                         \
        }                                                                                          \
    g_free (dws);                                                                                  \
    g_free (dbs);                                                                                  \
  }

DL_DEFINE_CONV_FUSED (float, f32, DL_DTYPE_FLOAT32)
DL_DEFINE_CONV_FUSED (double, f64, DL_DTYPE_FLOAT64)

void
dl_cpu_conv2d_forward (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    conv2d_forward_f64 (args);
  else
    conv2d_forward_f32 (args);
}

void
dl_cpu_conv2d_backward (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    conv2d_backward_f64 (args);
  else
    conv2d_backward_f32 (args);
}

/* the taps [*lo, *hi) of a window starting at @start (with @k taps @d
 * apart) that lie inside [0, @size) */
static inline void
taps_inside (gint64 start, gint64 k, gint64 d, gint64 size, gint64 *lo, gint64 *hi)
{
  *lo = start >= 0 ? 0 : (-start + d - 1) / d;
  *hi = start + (k - 1) * d < size ? k : (size - start + d - 1) / d;
  if (*hi < *lo)
    *hi = *lo;
}

/* one (image, channel) plane per iteration; each output the maximum of its
 * window's taps that lie inside the image (the first maximum; the first
 * NaN wins), the taps' ranges clipped once per row and column */
#define DL_DEFINE_MAX_POOL(T, suffix)                                                              \
  DL_CPU_CLONES static void max_pool2d_##suffix (const DlConvGeometry *g, const T *image, T *out,  \
                                                 gint64 *idx)                                      \
  {                                                                                                \
    const gint64 planes = g->n * g->c, l = g->out_h * g->out_w;                                    \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        planes *l * g->kh * g->kw >= DL_CPU_GRAIN, for (gint64 p = 0; p < planes; p++) {           \
          const T *src = image + p * g->h * g->w;                                                  \
          T *dst = out + p * l;                                                                    \
          gint64 *at = idx + p * l;                                                                \
                                                                                                   \
          for (gint64 y = 0; y < g->out_h; y++)                                                    \
            {                                                                                      \
              const gint64 iy0 = y * g->sh - g->ph;                                                \
              gint64 i_lo, i_hi;                                                                   \
                                                                                                   \
              taps_inside (iy0, g->kh, g->dh, g->h, &i_lo, &i_hi);                                 \
              for (gint64 x = 0; x < g->out_w; x++)                                                \
                {                                                                                  \
                  const gint64 ix0 = x * g->sw - g->pw;                                            \
                  gint64 j_lo, j_hi, where = -1;                                                   \
                  T best = 0;                                                                      \
                                                                                                   \
                  taps_inside (ix0, g->kw, g->dw, g->w, &j_lo, &j_hi);                             \
                  if (i_lo < i_hi && j_lo < j_hi)                                                  \
                    {                                                                              \
                      where = (iy0 + i_lo * g->dh) * g->w + ix0 + j_lo * g->dw;                    \
                      best = src[where];                                                           \
                    }                                                                              \
                  for (gint64 i = i_lo; i < i_hi; i++)                                             \
                    {                                                                              \
                      const gint64 r = (iy0 + i * g->dh) * g->w + ix0;                             \
                                                                                                   \
                      for (gint64 j = j_lo; j < j_hi; j++)                                         \
                        {                                                                          \
                          T v = src[r + j * g->dw];                                                \
                                                                                                   \
                          if (v > best || (v != v && best == best))                                \
                            {                                                                      \
                              best = v;                                                            \
                              where = r + j * g->dw;                                               \
                            }                                                                      \
                        }                                                                          \
                    }                                                                              \
                  dst[y * g->out_w + x] = best;                                                    \
                  at[y * g->out_w + x] = where;                                                    \
                }                                                                                  \
            }                                                                                      \
        });                                                                                        \
  }                                                                                                \
                                                                                                   \
  /* the output gradient added at each window's maximum, plane by plane */                         \
  static void max_pool2d_backward_##suffix (const DlConvGeometry *g, const T *grad_out,            \
                                            const gint64 *idx, T *grad_in)                         \
  {                                                                                                \
    const gint64 planes = g->n * g->c, l = g->out_h * g->out_w, hw = g->h * g->w;                  \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        planes *(l + hw) >= DL_CPU_GRAIN, for (gint64 p = 0; p < planes; p++) {                    \
          const T *go = grad_out + p * l;                                                          \
          const gint64 *at = idx + p * l;                                                          \
          T *gi = grad_in + p * hw;                                                                \
                                                                                                   \
          memset (gi, 0, hw * sizeof (T));                                                         \
          for (gint64 k = 0; k < l; k++)                                                           \
            if (at[k] >= 0)                                                                        \
              gi[at[k]] += go[k];                                                                  \
        });                                                                                        \
  }

DL_DEFINE_MAX_POOL (float, f32)
DL_DEFINE_MAX_POOL (double, f64)

void
dl_cpu_max_pool2d (DlBackendContext *ctx,
                   const DlConvGeometry *g,
                   const void *image,
                   void *out,
                   gint64 *indices,
                   DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    max_pool2d_f64 (g, image, out, indices);
  else
    max_pool2d_f32 (g, image, out, indices);
}

void
dl_cpu_max_pool2d_backward (DlBackendContext *ctx,
                            const DlConvGeometry *g,
                            const void *grad_out,
                            const gint64 *indices,
                            void *grad_in,
                            DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    max_pool2d_backward_f64 (g, grad_out, indices, grad_in);
  else
    max_pool2d_backward_f32 (g, grad_out, indices, grad_in);
}

void
dl_cpu_im2col (DlBackendContext *ctx,
               const DlConvGeometry *g,
               const void *image,
               void *cols,
               DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    im2col_f64 (g, image, cols);
  else
    im2col_f32 (g, image, cols);
}

void
dl_cpu_col2im (DlBackendContext *ctx,
               const DlConvGeometry *g,
               const void *cols,
               void *image,
               DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT64)
    col2im_f64 (g, cols, image);
  else
    col2im_f32 (g, cols, image);
}
