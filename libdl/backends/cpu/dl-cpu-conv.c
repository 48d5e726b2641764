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
  DL_CPU_CLONES static void im2col_planes_##suffix (const DlConvGeometry *g, const T *image,       \
                                                    T *cols, gint64 p0, gint64 p1, gint64 y0,      \
                                                    gint64 y1)                                     \
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
              for (gint64 y = y0; y < y1; y++)                                                     \
                {                                                                                  \
                  const gint64 iy = y * g->sh - g->ph + i * g->dh;                                 \
                  T *row = dst + (y - y0) * g->out_w;                                              \
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
                  else if (g->sw == 2)                                                             \
                    _Pragma ("omp simd") for (gint64 x = x0; x < x1; x++) row[x] = in[2 * x];      \
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
          im2col_planes_##suffix (g, image, cols, p, p + 1, 0, g->out_h);                          \
        });                                                                                        \
  }                                                                                                \
                                                                                                   \
  DL_CPU_CLONES static void col2im_planes_##suffix (const DlConvGeometry *g, const T *cols,        \
                                                    T *image, gint64 p0, gint64 p1, gint64 y0,     \
                                                    gint64 y1)                                     \
  {                                                                                                \
    const gint64 taps = g->kh * g->kw;                                                             \
                                                                                                   \
    for (gint64 p = p0; p < p1; p++)                                                               \
      {                                                                                            \
        T *dst = image + p * g->h * g->w;                                                          \
        const T *src                                                                               \
            = cols + (p / g->c) * g->col_batch_stride + (p % g->c) * taps * g->col_row_stride;     \
                                                                                                   \
        if (y0 == 0)                                                                               \
          memset (dst, 0, g->h * g->w * sizeof (T));                                               \
        for (gint64 i = 0; i < g->kh; i++)                                                         \
          for (gint64 j = 0; j < g->kw; j++, src += g->col_row_stride)                             \
            {                                                                                      \
              const gint64 xoff = j * g->dw - g->pw;                                               \
              gint64 x0, x1;                                                                       \
                                                                                                   \
              valid_range (xoff, g->sw, g->w, g->out_w, &x0, &x1);                                 \
              for (gint64 y = y0; y < y1; y++)                                                     \
                {                                                                                  \
                  const gint64 iy = y * g->sh - g->ph + i * g->dh;                                 \
                  const T *row = src + (y - y0) * g->out_w;                                        \
                  T *out;                                                                          \
                                                                                                   \
                  if (iy < 0 || iy >= g->h)                                                        \
                    continue;                                                                      \
                  out = dst + iy * g->w + xoff;                                                    \
                  if (g->sw == 1)                                                                  \
                    for (gint64 x = x0; x < x1; x++)                                               \
                      out[x] += row[x];                                                            \
                  else if (g->sw == 2)                                                             \
                    _Pragma ("omp simd") for (gint64 x = x0; x < x1; x++) out[2 * x] += row[x];    \
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
          col2im_planes_##suffix (g, cols, image, p, p + 1, 0, g->out_h);                          \
        });                                                                                        \
  }

DL_DEFINE_CONV (float, f32)
DL_DEFINE_CONV (double, f64)

/* Fused convolutions (groups 1), see DlConvArgs: the images are shared
 * out among the threads, each working on one image at a time with its own
 * columns [c * kh * kw, positions] (for blocks of output rows, see
 * chunk_rows) and single-threaded GEMMs that write the image's output [o,
 * l] in place, the bias filled in first (beta 1). The backward recomputes
 * each image's columns for the weight's gradient (summed per thread with
 * beta 1, then across the threads), then overwrites them with weight^T @
 * dy and sums them back into the input's gradient (col2im). A 1 x 1 convolution with stride 1
 * and no padding needs no columns: the image is its own. With a batch
 * smaller than the threads, one image at a time goes to the threaded GEMM
 * instead. */
static gboolean
cols_are_image (const DlConvGeometry *g)
{
  return g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0;
}

/* Winograd F(2 x 2, 3 x 3) for the 3 x 3 convolutions with stride 1 and
 * dilation 1 (Lavin and Gray, 2015): each 2 x 2 output tile is A^T [(G g
 * G^T) * (B^T d B)] A over the 4 x 4 input tile d that covers it, so that
 * the product over the channels becomes 16 GEMMs ([o, c] @ [c, tiles],
 * one per position of the 4 x 4 transformed tile) of 16 / 36 the
 * multiplications of the columns' GEMM. One image at a time: its channels
 * are copied into a zero-padded buffer whose tiles all lie inside it, and
 * the tiles go through in blocks whose transformed input and products stay
 * in cache. The input's gradient is the same convolution of the output's
 * gradient (padding 2 - p) with the filters flipped and transposed. */
typedef struct
{
  gint64 c, h, w, ph, pw; /* input channels, size, padding */
  gint64 o, out_h, out_w; /* output channels and size */
  gint64 tiles_w, tiles, block;
  gint64 pad_h, pad_w; /* the padded buffer's plane */
} Winograd;

static gboolean
winograd_fits (const DlConvGeometry *g, gint64 o)
{
  static gint enabled = -1; /* DL_CONV_WINOGRAD=0 turns it off */

  if (enabled < 0)
    enabled = g_strcmp0 (g_getenv ("DL_CONV_WINOGRAD"), "0") != 0;
  return enabled && g->kh == 3 && g->kw == 3 && g->sh == 1 && g->sw == 1 && g->dh == 1 && g->dw == 1
         && g->c >= 8 && o >= 8;
}

static void
winograd_plan (Winograd *p, gint64 c, gint64 h, gint64 w, gint64 ph, gint64 pw, gint64 o, gsize es)
{
  const gint64 tiles_h = (h + 2 * ph - 2 + 1) / 2;

  p->c = c;
  p->h = h;
  p->w = w;
  p->ph = ph;
  p->pw = pw;
  p->o = o;
  p->out_h = h + 2 * ph - 2;
  p->out_w = w + 2 * pw - 2;
  p->tiles_w = (p->out_w + 1) / 2;
  p->tiles = tiles_h * p->tiles_w;
  p->pad_h = 2 * tiles_h + 2;
  p->pad_w = 2 * p->tiles_w + 2;
  /* the transformed input and the products of a block in about 2 MiB
   * (whole images of 28 x 28 measured faster than blocks in L2) */
  p->block = MAX (64, (2 << 20) / (16 * (c + o) * (gint64)es));
  p->block = MIN (p->block, p->tiles);
}

/* row r of B^T d B for the transformed tile's 4 x 4 entries (x0 .. x3,
 * the row of B^T d) into v [16, c, block] at base + tx */
#define WINOGRAD_INPUT_ROW(r, x0, x1, x2, x3)                                                      \
  G_STMT_START                                                                                     \
  {                                                                                                \
    v[((r)*4 + 0) * cnb + base + tx] = (x0) - (x2);                                                \
    v[((r)*4 + 1) * cnb + base + tx] = (x1) + (x2);                                                \
    v[((r)*4 + 2) * cnb + base + tx] = (x2) - (x1);                                                \
    v[((r)*4 + 3) * cnb + base + tx] = (x1) - (x3);                                                \
  }                                                                                                \
  G_STMT_END

/* q00, q01, q10, q11: the outputs A^T M A + b of tile base + tx from its 16
 * products M in m [16, o, block] (o * block = onb) */
#define WINOGRAD_OUTPUT_TILE(T)                                                                    \
  const T m00 = m[(0 + 0) * onb + base + tx], m10 = m[(4 + 0) * onb + base + tx];                  \
  const T m20 = m[(8 + 0) * onb + base + tx], m30 = m[(12 + 0) * onb + base + tx];                 \
  const T t00 = m00 + m10 + m20, t10 = m10 - m20 - m30;                                            \
  const T m01 = m[(0 + 1) * onb + base + tx], m11 = m[(4 + 1) * onb + base + tx];                  \
  const T m21 = m[(8 + 1) * onb + base + tx], m31 = m[(12 + 1) * onb + base + tx];                 \
  const T t01 = m01 + m11 + m21, t11 = m11 - m21 - m31;                                            \
  const T m02 = m[(0 + 2) * onb + base + tx], m12 = m[(4 + 2) * onb + base + tx];                  \
  const T m22 = m[(8 + 2) * onb + base + tx], m32 = m[(12 + 2) * onb + base + tx];                 \
  const T t02 = m02 + m12 + m22, t12 = m12 - m22 - m32;                                            \
  const T m03 = m[(0 + 3) * onb + base + tx], m13 = m[(4 + 3) * onb + base + tx];                  \
  const T m23 = m[(8 + 3) * onb + base + tx], m33 = m[(12 + 3) * onb + base + tx];                 \
  const T t03 = m03 + m13 + m23, t13 = m13 - m23 - m33;                                            \
  const T q00 = t00 + t01 + t02 + b, q01 = t01 - t02 - t03 + b;                                    \
  const T q10 = t10 + t11 + t12 + b, q11 = t11 - t12 - t13 + b

#define DL_DEFINE_WINOGRAD(T, suffix, DT)                                                          \
  /* u[16][o][c] (or, with flip, u[16][c][o] for the flipped, transposed                           \
   * filters) from w [o, c, 3, 3] */                                                               \
  static void winograd_weights_##suffix (const T *w, gint64 o, gint64 c, gboolean flip, T *u)      \
  {                                                                                                \
    for (gint64 f = 0; f < o; f++)                                                                 \
      for (gint64 ch = 0; ch < c; ch++)                                                            \
        {                                                                                          \
          const T *k = w + (f * c + ch) * 9;                                                       \
          T g[3][3], t[4][3];                                                                      \
          const gint64 at = flip ? ch * o + f : f * c + ch;                                        \
                                                                                                   \
          for (gint i = 0; i < 3; i++)                                                             \
            for (gint j = 0; j < 3; j++)                                                           \
              g[i][j] = flip ? k[(2 - i) * 3 + 2 - j] : k[i * 3 + j];                              \
          for (gint j = 0; j < 3; j++)                                                             \
            {                                                                                      \
              t[0][j] = g[0][j];                                                                   \
              t[1][j] = (g[0][j] + g[1][j] + g[2][j]) / 2;                                         \
              t[2][j] = (g[0][j] - g[1][j] + g[2][j]) / 2;                                         \
              t[3][j] = g[2][j];                                                                   \
            }                                                                                      \
          for (gint i = 0; i < 4; i++)                                                             \
            {                                                                                      \
              u[(i * 4 + 0) * o * c + at] = t[i][0];                                               \
              u[(i * 4 + 1) * o * c + at] = (t[i][0] + t[i][1] + t[i][2]) / 2;                     \
              u[(i * 4 + 2) * o * c + at] = (t[i][0] - t[i][1] + t[i][2]) / 2;                     \
              u[(i * 4 + 3) * o * c + at] = t[i][2];                                               \
            }                                                                                      \
        }                                                                                          \
  }                                                                                                \
                                                                                                   \
  /* y [o, out_h, out_w] (plus bias, nullable) from one image x [c, h, w];                         \
   * pad [c, pad_h, pad_w] (each row its even columns, then its odd ones,                          \
   * so that every tap of a row of tiles is a unit-stride run), v [16, c,                          \
   * block] and m [16, o, block] are scratch */                                                    \
  DL_CPU_CLONES static void winograd_image_##suffix (const Winograd *p, const T *x, const T *u,    \
                                                     const T *bias, T *y, T *pad, T *v, T *m)      \
  {                                                                                                \
    const gint64 c = p->c, o = p->o, pw = p->pad_w, plane = p->pad_h * p->pad_w;                   \
    const gint64 tw = p->tiles_w, odd = p->tiles_w + 1, full_w = p->out_w / 2;                     \
                                                                                                   \
    memset (pad, 0, c *plane * sizeof (T));                                                        \
    for (gint64 ch = 0; ch < c; ch++)                                                              \
      for (gint64 r = 0; r < p->h; r++)                                                            \
        {                                                                                          \
          T *row = pad + ch * plane + (r + p->ph) * pw;                                            \
          const T *in = x + (ch * p->h + r) * p->w;                                                \
                                                                                                   \
          for (gint64 q = 0; q < 2; q++)                                                           \
            {                                                                                      \
              /* the inputs that land in the even (q 0) or odd half */                             \
              const gint64 i0 = (q + p->pw) & 1, n = (p->w - i0 + 1) / 2;                          \
              T *half = row + q * odd + (i0 + p->pw) / 2;                                          \
                                                                                                   \
              _Pragma ("omp simd") for (gint64 k = 0; k < n; k++) half[k] = in[i0 + 2 * k];        \
            }                                                                                      \
        }                                                                                          \
    for (gint64 t0 = 0; t0 < p->tiles; t0 += p->block)                                             \
      {                                                                                            \
        const gint64 nb = MIN (p->block, p->tiles - t0), cnb = c * nb, onb = o * nb;               \
                                                                                                   \
        for (gint64 ch = 0; ch < c; ch++)                                                          \
          for (gint64 ty = t0 / tw; ty * tw < t0 + nb; ty++)                                       \
            {                                                                                      \
              const gint64 xa = MAX (0, t0 - ty * tw), xb = MIN (tw, t0 + nb - ty * tw);           \
              const gint64 base = ch * nb + ty * tw - t0;                                          \
              const T *r0 = pad + ch * plane + 2 * ty * pw, *r1 = r0 + pw, *r2 = r1 + pw;          \
              const T *r3 = r2 + pw;                                                               \
                                                                                                   \
              _Pragma ("omp simd") for (gint64 tx = xa; tx < xb; tx++)                             \
              {                                                                                    \
                const T d00 = r0[tx], d01 = r0[odd + tx], d02 = r0[tx + 1];                        \
                const T d03 = r0[odd + tx + 1];                                                    \
                const T d10 = r1[tx], d11 = r1[odd + tx], d12 = r1[tx + 1];                        \
                const T d13 = r1[odd + tx + 1];                                                    \
                const T d20 = r2[tx], d21 = r2[odd + tx], d22 = r2[tx + 1];                        \
                const T d23 = r2[odd + tx + 1];                                                    \
                const T d30 = r3[tx], d31 = r3[odd + tx], d32 = r3[tx + 1];                        \
                const T d33 = r3[odd + tx + 1];                                                    \
                const T a00 = d00 - d20, a10 = d10 + d20, a20 = d20 - d10;                         \
                const T a30 = d10 - d30;                                                           \
                const T a01 = d01 - d21, a11 = d11 + d21, a21 = d21 - d11;                         \
                const T a31 = d11 - d31;                                                           \
                const T a02 = d02 - d22, a12 = d12 + d22, a22 = d22 - d12;                         \
                const T a32 = d12 - d32;                                                           \
                const T a03 = d03 - d23, a13 = d13 + d23, a23 = d23 - d13;                         \
                const T a33 = d13 - d33;                                                           \
                WINOGRAD_INPUT_ROW (0, a00, a01, a02, a03);                                        \
                WINOGRAD_INPUT_ROW (1, a10, a11, a12, a13);                                        \
                WINOGRAD_INPUT_ROW (2, a20, a21, a22, a23);                                        \
                WINOGRAD_INPUT_ROW (3, a30, a31, a32, a33);                                        \
              }                                                                                    \
            }                                                                                      \
        for (gint k = 0; k < 16; k++)                                                              \
          dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, o, nb, c, u + k * o * c, c, v + k * cnb, nb, 0.0, \
                               m + k * onb, nb);                                                   \
        for (gint64 f = 0; f < o; f++)                                                             \
          for (gint64 ty = t0 / tw; ty * tw < t0 + nb; ty++)                                       \
            {                                                                                      \
              const gint64 xa = MAX (0, t0 - ty * tw), xb = MIN (tw, t0 + nb - ty * tw);           \
              const gint64 base = f * nb + ty * tw - t0, oy = 2 * ty;                              \
              const gboolean two_rows = oy + 1 < p->out_h;                                         \
              const T b = bias ? bias[f] : 0;                                                      \
              T *y0 = y + (f * p->out_h + oy) * p->out_w, *y1 = y0 + p->out_w;                     \
                                                                                                   \
              /* whole tiles, then the last of a row or column, which may stick out */             \
              const gint64 xf = two_rows ? MAX (xa, MIN (xb, full_w)) : xa;                        \
                                                                                                   \
              _Pragma ("omp simd") for (gint64 tx = xa; tx < xf; tx++)                             \
              {                                                                                    \
                WINOGRAD_OUTPUT_TILE (T);                                                          \
                                                                                                   \
                y0[2 * tx] = q00;                                                                  \
                y0[2 * tx + 1] = q01;                                                              \
                y1[2 * tx] = q10;                                                                  \
                y1[2 * tx + 1] = q11;                                                              \
              }                                                                                    \
              for (gint64 tx = xf; tx < xb; tx++)                                                  \
                {                                                                                  \
                  WINOGRAD_OUTPUT_TILE (T);                                                        \
                                                                                                   \
                  (void)q11;                                                                       \
                  y0[2 * tx] = q00;                                                                \
                  if (tx < full_w)                                                                 \
                    y0[2 * tx + 1] = q01;                                                          \
                  if (two_rows)                                                                    \
                    y1[2 * tx] = q10;                                                              \
                }                                                                                  \
            }                                                                                      \
      }                                                                                            \
  }

DL_DEFINE_WINOGRAD (float, f32, DL_DTYPE_FLOAT32)
DL_DEFINE_WINOGRAD (double, f64, DL_DTYPE_FLOAT64)

/* output rows per block of columns: up to 4 MiB of them (smaller blocks
 * that stay in L2 measured slower: smaller GEMMs, dW read more often) */
static gint64
chunk_rows (gint64 ck, gint64 out_h, gint64 out_w, gsize es)
{
  return CLAMP ((4 << 20) / MAX (1, ck * out_w * (gint64)es), 1, out_h);
}

/* gc: g1 for the columns of output rows [y0, y1) (lc positions) */
#define CHUNK_GEOMETRY                                                                             \
  const gint64 y1 = MIN (a->g.out_h, y0 + yc), lc = (y1 - y0) * a->g.out_w;                        \
  DlConvGeometry gc = g1;                                                                          \
                                                                                                   \
  gc.col_row_stride = lc;                                                                          \
  gc.col_batch_stride = ck * lc

#define DL_DEFINE_CONV_FUSED(T, suffix, DT)                                                        \
  static void conv2d_forward_##suffix (const DlConvArgs *a)                                        \
  {                                                                                                \
    DlConvGeometry g1 = a->g;                                                                      \
    const gint64 n = a->g.n, c = a->g.c, o = a->o, l = a->g.out_h * a->g.out_w;                    \
    const gint64 ck = c * a->g.kh * a->g.kw, chw = c * a->g.h * a->g.w;                            \
    const gboolean direct = cols_are_image (&a->g);                                                \
    /* one image's GEMM on one thread in a region, or threaded by OpenBLAS */                      \
    /* outside one, give other bits: the count the user set, not the team */                       \
    /* of dl-cpu-team.c */                                                                         \
    const gint nt = (gint)MIN (omp_get_max_threads (), n);                                         \
    const T *x = a->x, *w = a->weight, *bias = a->bias;                                            \
    T *y = a->y;                                                                                   \
                                                                                                   \
    const gint64 yc = chunk_rows (ck, a->g.out_h, a->g.out_w, sizeof (T));                         \
                                                                                                   \
    g1.n = 1;                                                                                      \
    if (winograd_fits (&a->g, o))                                                                  \
      {                                                                                            \
        Winograd p;                                                                                \
        T *u = g_new (T, 16 * o * c);                                                              \
                                                                                                   \
        winograd_plan (&p, c, a->g.h, a->g.w, a->g.ph, a->g.pw, o, sizeof (T));                    \
        winograd_weights_##suffix (w, o, c, FALSE, u);                                             \
        _Pragma ("omp parallel num_threads(nt) if (nt > 1)")                                       \
        {                                                                                          \
          T *pad = g_new (T, c * p.pad_h * p.pad_w), *v = g_new (T, 16 * c * p.block);             \
          T *m = g_new (T, 16 * o * p.block);                                                      \
                                                                                                   \
          _Pragma ("omp for schedule(static)") for (gint64 i = 0; i < n; i++)                      \
              winograd_image_##suffix (&p, x + i * chw, u, bias, y + i * o * l, pad, v, m);        \
          g_free (pad);                                                                            \
          g_free (v);                                                                              \
          g_free (m);                                                                              \
        }                                                                                          \
        g_free (u);                                                                                \
        return;                                                                                    \
      }                                                                                            \
    _Pragma ("omp parallel num_threads(nt) if (nt > 1)")                                           \
    {                                                                                              \
      T *cols = direct ? NULL : g_new (T, ck * yc * a->g.out_w);                                   \
                                                                                                   \
      _Pragma ("omp for schedule(static)") for (gint64 i = 0; i < n; i++)                          \
      {                                                                                            \
        const T *xi = x + i * chw;                                                                 \
        T *yi = y + i * o * l;                                                                     \
                                                                                                   \
        if (bias)                                                                                  \
          for (gint64 r = 0; r < o; r++)                                                           \
            for (gint64 j = 0; j < l; j++)                                                         \
              yi[r * l + j] = bias[r];                                                             \
        if (direct)                                                                                \
          dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, o, l, ck, w, ck, xi, l, bias ? 1.0 : 0.0, yi, l); \
        else                                                                                       \
          for (gint64 y0 = 0; y0 < a->g.out_h; y0 += yc)                                           \
            {                                                                                      \
              CHUNK_GEOMETRY;                                                                      \
              im2col_planes_##suffix (&gc, xi, cols, 0, c, y0, y1);                                \
              dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, o, lc, ck, w, ck, cols, lc, bias ? 1.0 : 0.0, \
                                   yi + y0 * a->g.out_w, l);                                       \
            }                                                                                      \
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
    /* the weight gradient is summed over per-thread copies: its bits */                           \
    /* depend on the thread count, so the count the user set, not the */                           \
    /* team of dl-cpu-team.c */                                                                    \
    const gint nt = (gint)MIN (omp_get_max_threads (), n);                                         \
    const T *x = a->x, *w = a->weight, *dy = a->dy;                                                \
    T *dx = a->dx, *dweight = a->dweight, *dbias = a->dbias;                                       \
    T **dws = g_new0 (T *, nt);                                                                    \
    gdouble *dbs = g_new0 (gdouble, nt * o);                                                       \
    const gboolean wino = dx && winograd_fits (&a->g, o) && a->g.ph <= 2 && a->g.pw <= 2;          \
    Winograd p = { 0 };                                                                            \
    T *ud = NULL;                                                                                  \
                                                                                                   \
    const gint64 yc = chunk_rows (ck, a->g.out_h, a->g.out_w, sizeof (T));                         \
                                                                                                   \
    g1.n = 1;                                                                                      \
    if (wino)                                                                                      \
      {                                                                                            \
        winograd_plan (&p, o, a->g.out_h, a->g.out_w, 2 - a->g.ph, 2 - a->g.pw, c, sizeof (T));    \
        g_assert (p.out_h == a->g.h && p.out_w == a->g.w);                                         \
        ud = g_new (T, 16 * o * c);                                                                \
        winograd_weights_##suffix (w, o, c, TRUE, ud);                                             \
      }                                                                                            \
    _Pragma ("omp parallel num_threads(nt) if (nt > 1)")                                           \
    {                                                                                              \
      const gint t = omp_get_thread_num ();                                                        \
      T *cols = direct || (wino && !dweight) ? NULL : g_new (T, ck * yc * a->g.out_w);             \
      T *pad = wino ? g_new (T, o * p.pad_h * p.pad_w) : NULL;                                     \
      T *v = wino ? g_new (T, 16 * o * p.block) : NULL;                                            \
      T *m = wino ? g_new (T, 16 * c * p.block) : NULL;                                            \
      T *dw = dweight ? (t == 0 ? dweight : g_new (T, o * ck)) : NULL;                             \
      gdouble *db = dbs + t * o;                                                                   \
      gboolean first = TRUE;                                                                       \
                                                                                                   \
      _Pragma ("omp for schedule(static)") for (gint64 i = 0; i < n; i++)                          \
      {                                                                                            \
        const T *xi = x + i * chw, *dyi = dy + i * o * l;                                          \
                                                                                                   \
        if (dw && direct)                                                                          \
          dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, o, ck, l, dyi, l, xi, l, first ? 0.0 : 1.0, dw,    \
                               ck);                                                                \
        else if (dw)                                                                               \
          for (gint64 y0 = 0; y0 < a->g.out_h; y0 += yc)                                           \
            {                                                                                      \
              CHUNK_GEOMETRY;                                                                      \
              im2col_planes_##suffix (&gc, xi, cols, 0, c, y0, y1);                                \
              dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, o, ck, lc, dyi + y0 * a->g.out_w, l, cols, lc, \
                                   first && y0 == 0 ? 0.0 : 1.0, dw, ck);                          \
            }                                                                                      \
        first = FALSE;                                                                             \
        if (dx && wino)                                                                            \
          winograd_image_##suffix (&p, dyi, ud, NULL, dx + i * chw, pad, v, m);                    \
        else if (dx && direct)                                                                     \
          dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, c, l, o, w, ck, dyi, l, 0.0, dx + i * chw, l);     \
        else if (dx)                                                                               \
          for (gint64 y0 = 0; y0 < a->g.out_h; y0 += yc)                                           \
            {                                                                                      \
              CHUNK_GEOMETRY;                                                                      \
              dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, ck, lc, o, w, ck, dyi + y0 * a->g.out_w, l,    \
                                   0.0, cols, lc);                                                 \
              col2im_planes_##suffix (&gc, cols, dx + i * chw, 0, c, y0, y1);                      \
            }                                                                                      \
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
      g_free (pad);                                                                                \
      g_free (v);                                                                                  \
      g_free (m);                                                                                  \
    }                                                                                              \
    g_free (ud);                                                                                   \
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
 * NaN wins), the taps' ranges clipped once per row and column; its
 * position into idx unless idx is NULL */
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
          gint64 *at = idx ? idx + p * l : NULL;                                                   \
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
                  if (at)                                                                          \
                    at[y * g->out_w + x] = where;                                                  \
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
