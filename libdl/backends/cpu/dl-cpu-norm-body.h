/* dl-cpu-norm-body.h: the normalisation kernels for one element type,
 * included by dl-cpu-norm.c with T (float or double) and SFX (the name
 * suffix) defined. See dl-cpu-norm.c for the formulas.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* sum of x[0..n), in eight lanes so that it vectorises */
static inline G_ALWAYS_INLINE double
SFX (sum) (const T *restrict x, gint64 n)
{
  T lane[8] = { 0 };
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    for (gint j = 0; j < 8; j++)
      lane[j] += x[i + j];
  for (; i < n; i++)
    lane[0] += x[i];
  return ((double)lane[0] + lane[1] + lane[2] + lane[3])
         + ((double)lane[4] + lane[5] + lane[6] + lane[7]);
}

/* sum of (x - m)^2 over x[0..n) */
static inline G_ALWAYS_INLINE double
SFX (sum_sq_dev) (const T *restrict x, gint64 n, T m)
{
  T lane[8] = { 0 };
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    for (gint j = 0; j < 8; j++)
      {
        T d = x[i + j] - m;
        lane[j] += d * d;
      }
  for (; i < n; i++)
    {
      T d = x[i] - m;
      lane[0] += d * d;
    }
  return ((double)lane[0] + lane[1] + lane[2] + lane[3])
         + ((double)lane[4] + lane[5] + lane[6] + lane[7]);
}

/* eight lanes of T as one GCC vector, so that the accumulators stay in
 * registers (an array of eight is spilled to the stack in loops the
 * compiler does not fully vectorise) */
typedef T SFX (lanes) __attribute__ ((vector_size (8 * sizeof (T))));

/* sum of dy and of dy * (x - m) over [0..n), added to *sdy and *sdyx; lane
 * j sums the elements i + j, as the scalar tail's lane 0 sums the rest */
static inline G_ALWAYS_INLINE void
SFX (sum_dy_dyx) (const T *restrict dy,
                  const T *restrict x,
                  gint64 n,
                  T m,
                  double *sdy,
                  double *sdyx)
{
  SFX (lanes) v1 = { 0 }, v2 = { 0 };
  T l1[8], l2[8];
  gint64 i = 0;

  for (; i + 8 <= n; i += 8)
    {
      SFX (lanes) d, xv;

      memcpy (&d, dy + i, sizeof d); /* unaligned loads */
      memcpy (&xv, x + i, sizeof xv);
      v1 += d;
      v2 += d * (xv - m);
    }
  memcpy (l1, &v1, sizeof l1);
  memcpy (l2, &v2, sizeof l2);
  for (; i < n; i++)
    {
      l1[0] += dy[i];
      l2[0] += dy[i] * (x[i] - m);
    }
  *sdy += ((double)l1[0] + l1[1] + l1[2] + l1[3]) + ((double)l1[4] + l1[5] + l1[6] + l1[7]);
  *sdyx += ((double)l2[0] + l2[1] + l2[2] + l2[3]) + ((double)l2[4] + l2[5] + l2[6] + l2[7]);
}

/* y = x * scale + shift over [0..n) */
static inline G_ALWAYS_INLINE void
SFX (affine) (const T *restrict x, T *restrict y, gint64 n, T scale, T shift)
{
  for (gint64 i = 0; i < n; i++)
    y[i] = x[i] * scale + shift;
}

/* dx = dy * a + x * b + c over [0..n) */
static inline G_ALWAYS_INLINE void
SFX (affine2) (const T *restrict dy, const T *restrict x, T *restrict dx, gint64 n, T a, T b, T c)
{
  for (gint64 i = 0; i < n; i++)
    dx[i] = dy[i] * a + x[i] * b + c;
}

/* one (sample, group) row of group/layer norm */
DL_CPU_CLONES static void
SFX (group_row) (const DlNormArgs *a, gint64 r)
{
  const gint64 cg = a->c / a->groups, d = cg * a->s, g = r % a->groups;
  const T *restrict x = (const T *)a->x + r * d;
  T *restrict y = (T *)a->y + r * d;
  const T *w = a->weight, *b = a->bias;
  T mean = (T)(SFX (sum) (x, d) / d);
  T rstd = (T)(1.0 / sqrt (SFX (sum_sq_dev) (x, d, mean) / d + a->eps));

  ((T *)a->mean)[r] = mean;
  ((T *)a->rstd)[r] = rstd;
  if (a->s == 1)
    {
      /* layer norm: the affine per element */
      const T *restrict wr = w ? w + g * cg : NULL, *restrict br = b ? b + g * cg : NULL;

      if (wr && br)
        for (gint64 j = 0; j < cg; j++)
          y[j] = (x[j] - mean) * rstd * wr[j] + br[j];
      else if (wr)
        for (gint64 j = 0; j < cg; j++)
          y[j] = (x[j] - mean) * rstd * wr[j];
      else if (br)
        for (gint64 j = 0; j < cg; j++)
          y[j] = (x[j] - mean) * rstd + br[j];
      else
        SFX (affine) (x, y, cg, rstd, -mean * rstd);
      return;
    }
  for (gint64 j = 0; j < cg; j++)
    {
      gint64 ch = g * cg + j;
      T scale = rstd * (w ? w[ch] : 1), shift = (b ? b[ch] : 0) - mean * scale;
      SFX (affine) (x + j * a->s, y + j * a->s, a->s, scale, shift);
    }
}

/* one channel of batch norm */
DL_CPU_CLONES static void
SFX (batch_channel) (const DlNormArgs *a, gint64 ch)
{
  const gint64 n = a->n, c = a->c, s = a->s, m = n * s;
  const T *x = a->x;
  T *y = a->y;
  T mean, rstd, scale, shift;

  if (a->training)
    {
      double sum = 0, sq = 0;

      for (gint64 i = 0; i < n; i++)
        sum += SFX (sum) (x + (i * c + ch) * s, s);
      mean = (T)(sum / m);
      for (gint64 i = 0; i < n; i++)
        sq += SFX (sum_sq_dev) (x + (i * c + ch) * s, s, mean);
      ((T *)a->mean)[ch] = mean;
      if (a->var)
        ((T *)a->var)[ch] = (T)(sq / m);
      rstd = (T)(1.0 / sqrt (sq / m + a->eps));
    }
  else
    {
      mean = ((const T *)a->mean)[ch];
      rstd = (T)(1.0 / sqrt ((double)((const T *)a->var)[ch] + a->eps));
    }
  ((T *)a->rstd)[ch] = rstd;
  scale = rstd * (a->weight ? ((const T *)a->weight)[ch] : 1);
  shift = (a->bias ? ((const T *)a->bias)[ch] : 0) - mean * scale;
  for (gint64 i = 0; i < n; i++)
    SFX (affine) (x + (i * c + ch) * s, y + (i * c + ch) * s, s, scale, shift);
}

/* batch norm of a batch [n, c] (s = 1): a block of up to NORM_BLOCK
 * channels at a time, row by row, so that reads stay contiguous */
DL_CPU_CLONES static void
SFX (batch_block) (const DlNormArgs *a, gint64 c0)
{
  const gint64 n = a->n, c = a->c, nb = MIN (NORM_BLOCK, c - c0);
  const T *x = (const T *)a->x + c0;
  T *y = (T *)a->y + c0;
  double acc[NORM_BLOCK];
  T mean[NORM_BLOCK], scale[NORM_BLOCK], shift[NORM_BLOCK];

  for (gint64 k = 0; k < nb; k++)
    {
      if (a->training)
        {
          acc[k] = 0;
          continue;
        }
      mean[k] = ((const T *)a->mean)[c0 + k];
      ((T *)a->rstd)[c0 + k] = (T)(1.0 / sqrt ((double)((const T *)a->var)[c0 + k] + a->eps));
    }
  if (a->training)
    {
      for (gint64 i = 0; i < n; i++)
        for (gint64 k = 0; k < nb; k++)
          acc[k] += x[i * c + k];
      for (gint64 k = 0; k < nb; k++)
        {
          mean[k] = (T)(acc[k] / n);
          acc[k] = 0;
        }
      for (gint64 i = 0; i < n; i++)
        for (gint64 k = 0; k < nb; k++)
          {
            T d = x[i * c + k] - mean[k];
            acc[k] += d * d;
          }
      for (gint64 k = 0; k < nb; k++)
        {
          ((T *)a->mean)[c0 + k] = mean[k];
          if (a->var)
            ((T *)a->var)[c0 + k] = (T)(acc[k] / n);
          ((T *)a->rstd)[c0 + k] = (T)(1.0 / sqrt (acc[k] / n + a->eps));
        }
    }
  for (gint64 k = 0; k < nb; k++)
    {
      scale[k] = ((T *)a->rstd)[c0 + k] * (a->weight ? ((const T *)a->weight)[c0 + k] : 1);
      shift[k] = (a->bias ? ((const T *)a->bias)[c0 + k] : 0) - mean[k] * scale[k];
    }
  for (gint64 i = 0; i < n; i++)
    for (gint64 k = 0; k < nb; k++)
      y[i * c + k] = x[i * c + k] * scale[k] + shift[k];
}

/* its backward, the same way */
DL_CPU_CLONES static void
SFX (batch_block_backward) (const DlNormArgs *a, gint64 c0)
{
  const gint64 n = a->n, c = a->c, nb = MIN (NORM_BLOCK, c - c0);
  const T *x = (const T *)a->x + c0, *dy = (const T *)a->dy + c0;
  const T *mean = (const T *)a->mean + c0, *rstd = (const T *)a->rstd + c0;
  double sdy[NORM_BLOCK] = { 0 }, sdyx[NORM_BLOCK] = { 0 };
  T k1[NORM_BLOCK], k2[NORM_BLOCK], k3[NORM_BLOCK];

  for (gint64 i = 0; i < n; i++)
    for (gint64 k = 0; k < nb; k++)
      {
        sdy[k] += dy[i * c + k];
        sdyx[k] += dy[i * c + k] * (x[i * c + k] - mean[k]);
      }
  for (gint64 k = 0; k < nb; k++)
    {
      T w = a->weight ? ((const T *)a->weight)[c0 + k] : 1;

      if (a->dweight)
        ((T *)a->dweight)[c0 + k] = n ? (T)(sdyx[k] * rstd[k]) : 0;
      if (a->dbias)
        ((T *)a->dbias)[c0 + k] = (T)sdy[k];
      k1[k] = w * rstd[k];
      k2[k] = k3[k] = 0;
      if (a->training)
        {
          k2[k] = (T)(-(double)w * rstd[k] * rstd[k] * rstd[k] * sdyx[k] / n);
          k3[k] = (T)(-(double)k1[k] * sdy[k] / n - mean[k] * (double)k2[k]);
        }
    }
  if (a->dx)
    {
      T *dx = (T *)a->dx + c0;

      for (gint64 i = 0; i < n; i++)
        for (gint64 k = 0; k < nb; k++)
          dx[i * c + k] = dy[i * c + k] * k1[k] + x[i * c + k] * k2[k] + k3[k];
    }
}

static void
SFX (norm_forward) (const DlNormArgs *a)
{
  gint64 total = a->n * a->c * a->s;

  if (a->kind == DL_NORM_BATCH && a->s == 1)
    DL_CPU_FOR_IF (
        total >= DL_CPU_GRAIN && a->c > NORM_BLOCK,
        for (gint64 c0 = 0; c0 < a->c; c0 += NORM_BLOCK) { SFX (batch_block)
                                                           (a, c0); });
  else if (a->kind == DL_NORM_BATCH)
    DL_CPU_FOR_IF (
        total >= DL_CPU_GRAIN && a->c > 1, for (gint64 ch = 0; ch < a->c; ch++) {
          SFX (batch_channel) (a, ch);
        });
  else
    {
      gint64 rows = a->n * a->groups;

      DL_CPU_FOR_IF (
          total >= DL_CPU_GRAIN && rows > 1, for (gint64 r = 0; r < rows; r++) {
            SFX (group_row) (a, r);
          });
    }
}

/* batch norm's backward for one channel */
DL_CPU_CLONES static void
SFX (batch_channel_backward) (const DlNormArgs *a, gint64 ch)
{
  const gint64 n = a->n, c = a->c, s = a->s, m = n * s;
  const T *x = a->x, *dy = a->dy;
  T mean = ((const T *)a->mean)[ch], rstd = ((const T *)a->rstd)[ch];
  T w = a->weight ? ((const T *)a->weight)[ch] : 1;
  double sdy = 0, sdy_xmu = 0;

  if (a->training || a->dweight || a->dbias)
    for (gint64 i = 0; i < n; i++)
      SFX (sum_dy_dyx) (dy + (i * c + ch) * s, x + (i * c + ch) * s, s, mean, &sdy, &sdy_xmu);
  if (a->dweight)
    ((T *)a->dweight)[ch] = m ? (T)(sdy_xmu * rstd) : 0; /* 0 for an empty batch */
  if (a->dbias)
    ((T *)a->dbias)[ch] = (T)sdy;
  if (a->dx)
    {
      T k1 = w * rstd, k2 = 0, k3 = 0;

      if (a->training)
        {
          k2 = (T)(-(double)w * rstd * rstd * rstd * sdy_xmu / m);
          k3 = (T)(-(double)k1 * sdy / m - mean * (double)k2);
        }
      for (gint64 i = 0; i < n; i++)
        SFX (affine2)
        (dy + (i * c + ch) * s, x + (i * c + ch) * s, (T *)a->dx + (i * c + ch) * s, s, k1, k2, k3);
    }
}

/* group/layer norm's backward for rows of one value per channel (s = 1,
 * layer norm): each row in one pass for its two sums and one for dx; the
 * weight and bias gradients (sums over the rows) into @pdw and @pdb, the
 * partial sums of the rows' part */
DL_CPU_CLONES static void
SFX (group_row_backward) (const DlNormArgs *a, gint64 r, T *restrict pdw, T *restrict pdb)
{
  const gint64 cg = a->c / a->groups, g = r % a->groups;
  const T *restrict x = (const T *)a->x + r * cg, *restrict dy = (const T *)a->dy + r * cg;
  const T *w = a->weight ? (const T *)a->weight + g * cg : NULL;
  T mean = ((const T *)a->mean)[r], rstd = ((const T *)a->rstd)[r];

  if (a->dx)
    {
      T *restrict dx = (T *)a->dx + r * cg;
      double sa = 0, sb = 0;
      T c2, c3;

      if (w)
        {
          T l1[8] = { 0 }, l2[8] = { 0 };
          gint64 j = 0;

          for (; j + 8 <= cg; j += 8)
            for (gint k = 0; k < 8; k++)
              {
                T wdy = dy[j + k] * w[j + k];
                l1[k] += wdy;
                l2[k] += wdy * (x[j + k] - mean);
              }
          for (; j < cg; j++)
            {
              T wdy = dy[j] * w[j];
              l1[0] += wdy;
              l2[0] += wdy * (x[j] - mean);
            }
          sa = ((double)l1[0] + l1[1] + l1[2] + l1[3]) + ((double)l1[4] + l1[5] + l1[6] + l1[7]);
          sb = ((double)l2[0] + l2[1] + l2[2] + l2[3]) + ((double)l2[4] + l2[5] + l2[6] + l2[7]);
        }
      else
        SFX (sum_dy_dyx) (dy, x, cg, mean, &sa, &sb);
      c2 = (T)(-(double)rstd * rstd * rstd * sb / cg);
      c3 = (T)(-(double)rstd * sa / cg - mean * (double)c2);
      if (w)
        for (gint64 j = 0; j < cg; j++)
          dx[j] = dy[j] * w[j] * rstd + x[j] * c2 + c3;
      else
        SFX (affine2) (dy, x, dx, cg, rstd, c2, c3);
    }
  if (pdw)
    for (gint64 j = 0; j < cg; j++)
      pdw[g * cg + j] += dy[j] * (x[j] - mean) * rstd;
  if (pdb)
    for (gint64 j = 0; j < cg; j++)
      pdb[g * cg + j] += dy[j];
}

static void
SFX (group_backward_rows) (const DlNormArgs *a)
{
  const gint64 rows = a->n * a->groups, c = a->c;
  gboolean par = rows * c >= DL_CPU_GRAIN && rows > 1;
  /* the rows in parts whose count and bounds follow from the size alone,
   * each part's weight and bias sums apart, added up in order: the same
   * bits on any number of threads, and on a busy machine (a region then
   * runs on one thread, dl-cpu-team.c) as on a quiet one */
  const gint np = par ? (gint)MIN (dl_cpu_parts (rows * c), rows) : 1;
  g_autofree T *pdw = a->dweight ? g_new0 (T, np * c) : NULL;
  g_autofree T *pdb = a->dbias ? g_new0 (T, np * c) : NULL;

  DL_CPU_FOR_IF (
      np > 1, for (gint p = 0; p < np; p++) {
        for (gint64 r = rows * p / np; r < rows * (p + 1) / np; r++)
          SFX (group_row_backward) (a, r, pdw ? pdw + p * c : NULL, pdb ? pdb + p * c : NULL);
      });
  for (gint p = 1; p < np; p++)
    for (gint64 j = 0; j < c; j++)
      {
        if (pdw)
          pdw[j] += pdw[p * c + j];
        if (pdb)
          pdb[j] += pdb[p * c + j];
      }
  if (pdw)
    memcpy (a->dweight, pdw, c * sizeof (T));
  if (pdb)
    memcpy (a->dbias, pdb, c * sizeof (T));
}

/* group norm's backward for one (sample, group) row with s > 1: the sums
 * of dy and dy (x - mean) of each of its channels into @sdy and @sdyx
 * ([n, c]), then its dx */
DL_CPU_CLONES static void
SFX (group_plane_row_backward) (const DlNormArgs *a, gint64 r, double *sdy, double *sdyx)
{
  const gint64 c = a->c, s = a->s, groups = a->groups, cg = c / groups;
  const gint64 ni = r / groups, g = r % groups, d = cg * s;
  const T *x = a->x, *dy = a->dy, *w = a->weight;
  T mu = ((const T *)a->mean)[r], rs = ((const T *)a->rstd)[r], c2, c3;
  double sa = 0, sb = 0;

  for (gint64 j = 0; j < cg; j++)
    {
      gint64 p = ni * c + g * cg + j;
      double wc = w ? w[g * cg + j] : 1;

      SFX (sum_dy_dyx) (dy + p * s, x + p * s, s, mu, &sdy[p], &sdyx[p]);
      sa += wc * sdy[p];
      sb += wc * sdyx[p];
    }
  if (!a->dx)
    return;
  c2 = (T)(-(double)rs * rs * rs * sb / d);
  c3 = (T)(-(double)rs * sa / d - mu * (double)c2);
  for (gint64 j = 0; j < cg; j++)
    {
      gint64 ch = g * cg + j, off = (ni * c + ch) * s;
      SFX (affine2) (dy + off, x + off, (T *)a->dx + off, s, (w ? w[ch] : 1) * rs, c2, c3);
    }
}

/* group norm's backward with s > 1: per (sample, group), the sums of dy and
 * dy (x - mean) of each of its channels, then its dx; then the weight and
 * bias gradients from the sums */
static void
SFX (group_backward_planes) (const DlNormArgs *a)
{
  const gint64 n = a->n, c = a->c, s = a->s, groups = a->groups, cg = c / groups;
  const T *rstd = a->rstd;
  g_autofree double *sdy = g_new0 (double, n *c);
  g_autofree double *sdyx = g_new0 (double, n *c);
  gboolean par = n * c * s >= DL_CPU_GRAIN;

  /* row by row: its planes' sums, then (while they are in cache) its dx */
  DL_CPU_FOR_IF (
      par && n * groups > 1, for (gint64 r = 0; r < n * groups; r++) {
        SFX (group_plane_row_backward) (a, r, sdy, sdyx);
      });
  for (gint64 ch = 0; ch < c; ch++)
    {
      double dw = 0, db = 0;

      for (gint64 ni = 0; ni < n; ni++)
        {
          gint64 r = ni * groups + ch / cg;
          dw += sdyx[ni * c + ch] * rstd[r];
          db += sdy[ni * c + ch];
        }
      if (a->dweight)
        ((T *)a->dweight)[ch] = (T)dw;
      if (a->dbias)
        ((T *)a->dbias)[ch] = (T)db;
    }
}

static void
SFX (norm_backward) (const DlNormArgs *a)
{
  if (a->kind == DL_NORM_BATCH && a->s == 1)
    DL_CPU_FOR_IF (
        a->n * a->c >= DL_CPU_GRAIN && a->c > NORM_BLOCK,
        for (gint64 c0 = 0; c0 < a->c; c0 += NORM_BLOCK) { SFX (batch_block_backward)
                                                           (a, c0); });
  else if (a->kind == DL_NORM_BATCH)
    DL_CPU_FOR_IF (
        a->n * a->c * a->s >= DL_CPU_GRAIN && a->c > 1, for (gint64 ch = 0; ch < a->c; ch++) {
          SFX (batch_channel_backward) (a, ch);
        });
  else if (a->s == 1)
    SFX (group_backward_rows) (a);
  else
    SFX (group_backward_planes) (a);
}
