/* dl-cpu-attention-body.h: the attention kernels for one element type,
 * included by dl-cpu-attention.c with T (float or double), SFX (the name
 * suffix), EXP and LOG defined. See dl-cpu-attention.c for the formulas.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define DT (sizeof (T) == 4 ? DL_DTYPE_FLOAT32 : DL_DTYPE_FLOAT64)

/* z[c] = the dropout scale of element (b, row, j0 + c) of the
 * probabilities: 0 or 1 / (1 - p); cols at most ATT_BK */
DL_CPU_CLONES static void
SFX (dropout_scales) (const DlAttentionArgs *a,
                      gint64 b,
                      gint64 row,
                      gint64 j0,
                      gint64 cols,
                      T *restrict z)
{
  const guint64 counter = a->offset + (guint64)(b * a->l + row) * (guint64)((a->s + 3) / 4);
  const T keep = a->dropout_p < 1 ? (T)(1.0 / (1.0 - a->dropout_p)) : 0;
  const float p = (float)a->dropout_p;
  const gint64 first = j0 / 4, skip = j0 % 4;
  guint32 bits[ATT_BK + 8];

  philox_blocks (a->seed, counter + (guint64)first, (skip + cols + 3) / 4, bits);
  for (gint64 c = 0; c < cols; c++)
    z[c] = (bits[skip + c] >> 8) * (1.0f / 16777216.0f) >= p ? keep : 0;
}

/* the factor the exponentials apply to the scores (exp (f x - m)): the
 * scale, when no mask is added after it and it keeps the scores' order;
 * else 1, and att_scores applies the scale */
static inline T
SFX (exp_factor) (const DlAttentionArgs *a)
{
  return !a->mask && a->scale > 0 ? (T)a->scale : 1;
}

/* scores row @row of problem @b over keys j0 .. j0 + cols: x = scale x +
 * the mask (-inf where a bool mask forbids or past the causal diagonal),
 * the scale left to the exponentials when exp_factor says so */
DL_CPU_CLONES static void
SFX (att_scores) (const DlAttentionArgs *a,
                  T *restrict x,
                  gint64 cols,
                  gint64 b,
                  gint64 row,
                  gint64 j0,
                  gint64 mask_off)
{
  const T scale = (T)a->scale;

  if (SFX (exp_factor) (a) == 1 && scale != 1)
    for (gint64 c = 0; c < cols; c++)
      x[c] *= scale;
  if (a->mask)
    {
      const gint64 cs = a->mask_cs, base = mask_off + row * a->mask_rs + j0 * cs;

      if (a->mask_is_bool)
        {
          const guint8 *m = (const guint8 *)a->mask + base;
          for (gint64 c = 0; c < cols; c++)
            x[c] = m[c * cs] ? x[c] : -(T)INFINITY;
        }
      else if (cs == 1)
        {
          const T *restrict m = (const T *)a->mask + base;
          for (gint64 c = 0; c < cols; c++)
            x[c] += m[c];
        }
      else
        {
          const T *m = (const T *)a->mask + base;
          for (gint64 c = 0; c < cols; c++)
            x[c] += m[c * cs];
        }
    }
  if (a->causal)
    for (gint64 c = MAX (0, row + 1 - j0); c < cols; c++)
      x[c] = -(T)INFINITY;
}

/* the largest of x[0..n), NaN ignored (the exponentials' sum shows it),
 * -inf when there is none; in eight lanes so that it vectorises */
DL_CPU_CLONES static T
SFX (row_max) (const T *restrict x, gint64 n)
{
  T lane[8], m;
  gint64 c = 0;

  for (gint j = 0; j < 8; j++)
    lane[j] = -(T)INFINITY;
  for (; c + 8 <= n; c += 8)
    for (gint j = 0; j < 8; j++)
      lane[j] = x[c + j] > lane[j] ? x[c + j] : lane[j];
  for (; c < n; c++)
    lane[0] = x[c] > lane[0] ? x[c] : lane[0];
  m = lane[0];
  for (gint j = 1; j < 8; j++)
    m = lane[j] > m ? lane[j] : m;
  return m;
}

/* x = exp (f x - m); returns the sum, in eight lanes so that it
 * vectorises */
DL_CPU_CLONES static T
SFX (exp_sum) (T *restrict x, gint64 n, T f, T m)
{
  T lane[8] = { 0 };
  gint64 c = 0;

  for (; c + 8 <= n; c += 8)
    for (gint j = 0; j < 8; j++)
      {
        T e = EXP (x[c + j] * f - m);
        x[c + j] = e;
        lane[j] += e;
      }
  for (; c < n; c++)
    {
      x[c] = EXP (x[c] * f - m);
      lane[0] += x[c];
    }
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

DL_CPU_CLONES static void
SFX (scale_row) (T *restrict x, gint64 n, T s)
{
  for (gint64 c = 0; c < n; c++)
    x[c] *= s;
}

/* the forward of the query rows i0 .. i0 + ATT_BQ of problem @b; sbuf
 * holds ATT_BQ x ATT_BK scores, m and lsum ATT_BQ values */
static void
SFX (attention_forward_task) (const DlAttentionArgs *a,
                              gint64 b,
                              gint64 i0,
                              T *sbuf,
                              T *zbuf,
                              T *m,
                              T *lsum)
{
  const gint64 rows = MIN (ATT_BQ, a->l - i0), e = a->e, ev = a->ev;
  const gint64 kend = a->causal ? MIN (a->s, i0 + rows) : a->s;
  const T *q = (const T *)a->q + batch_offset (a, a->q_bs, b) + i0 * a->q_rs;
  const T *k = (const T *)a->k + batch_offset (a, a->k_bs, b);
  const T *v = (const T *)a->v + batch_offset (a, a->v_bs, b);
  const gint64 mask_off = a->mask ? batch_offset (a, a->mask_bs, b) : 0;
  T *o = (T *)a->out + (b * a->l + i0) * ev;
  T *lse = (T *)a->lse + b * a->l + i0;
  const T f = SFX (exp_factor) (a);

  memset (o, 0, rows * ev * sizeof (T));
  for (gint64 r = 0; r < rows; r++)
    {
      m[r] = -(T)INFINITY;
      lsum[r] = 0;
    }
  for (gint64 j0 = 0; j0 < kend; j0 += ATT_BK)
    {
      const gint64 cols = MIN (ATT_BK, kend - j0);

      dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, rows, cols, e, q, a->q_rs, k + j0 * a->k_rs, a->k_rs, 0,
                           sbuf, cols);
      for (gint64 r = 0; r < rows; r++)
        {
          T *x = sbuf + r * cols, mnew, alpha;

          SFX (att_scores) (a, x, cols, b, i0 + r, j0, mask_off);
          mnew = MAX (m[r], SFX (row_max) (x, cols) * f);
          if (mnew == -(T)INFINITY)
            {
              /* nothing to attend yet, or NaN: the row's sum tells */
              for (gint64 c = 0; c < cols; c++)
                if (x[c] != x[c])
                  lsum[r] = (T)NAN;
              memset (x, 0, cols * sizeof (T));
              continue;
            }
          alpha = m[r] == -(T)INFINITY ? 0 : EXP (m[r] - mnew);
          lsum[r] = lsum[r] * alpha + SFX (exp_sum) (x, cols, f, mnew);
          if (alpha != 1)
            SFX (scale_row) (o + r * ev, ev, alpha);
          m[r] = mnew;
          if (a->dropout_p > 0)
            {
              SFX (dropout_scales) (a, b, i0 + r, j0, cols, zbuf);
              for (gint64 c = 0; c < cols; c++)
                x[c] *= zbuf[c];
            }
        }
      dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, rows, ev, cols, sbuf, cols, v + j0 * a->v_rs, a->v_rs,
                           1.0, o, ev);
    }
  for (gint64 r = 0; r < rows; r++)
    {
      if (a->s == 0)
        lse[r] = -(T)INFINITY; /* softmax over no keys: an empty sum, out stays 0 */
      else if (!(lsum[r] > 0))
        {
          /* all -inf (or NaN): softmax gives NaN */
          for (gint64 c = 0; c < ev; c++)
            o[r * ev + c] = (T)NAN;
          lse[r] = (T)NAN;
        }
      else
        {
          SFX (scale_row) (o + r * ev, ev, 1 / lsum[r]);
          lse[r] = m[r] + LOG (lsum[r]);
        }
    }
}

static void
SFX (attention_forward) (const DlAttentionArgs *a)
{
  const gint64 nqb = (a->l + ATT_BQ - 1) / ATT_BQ, tasks = a->n_batch * nqb;
  const gdouble work = (gdouble)a->n_batch * a->l * a->s * (a->e + a->ev);

  DL_CPU_PARALLEL_IF (work >= ATT_PARALLEL_MIN && tasks > 1, {
    T *sbuf = g_new (T, ATT_BQ * ATT_BK + ATT_BK + 2 * ATT_BQ);
    T *zbuf = sbuf + ATT_BQ * ATT_BK, *m = zbuf + ATT_BK, *lsum = m + ATT_BQ;

    _Pragma ("omp for schedule(dynamic)") for (gint64 t = 0; t < tasks; t++)
        SFX (attention_forward_task) (a, t / nqb, (t % nqb) * ATT_BQ, sbuf, zbuf, m, lsum);
    g_free (sbuf);
  });
}

/* zeroes problem @b's gradients (dq unless @keep_dq) and sets dvec[0..l)
 * to D = rowsum (dO o O) */
static void
SFX (attention_backward_init) (const DlAttentionArgs *a, gint64 b, gboolean keep_dq, T *dvec)
{
  const gint64 l = a->l, s = a->s, e = a->e, ev = a->ev;
  const T *o = (const T *)a->out + b * l * ev, *dout = (const T *)a->dout + b * l * ev;

  if (a->dq && !keep_dq)
    memset ((T *)a->dq + b * l * e, 0, l * e * sizeof (T));
  if (a->dk)
    memset ((T *)a->dk + b * s * e, 0, s * e * sizeof (T));
  if (a->dv)
    memset ((T *)a->dv + b * s * ev, 0, s * ev * sizeof (T));
  if (a->dmask && a->causal) /* the blocks a causal backward skips are masked: dS 0 */
    memset ((T *)a->dmask + b * l * s, 0, l * s * sizeof (T));
  for (gint64 i = 0; i < l; i++)
    {
      T acc = 0;
      for (gint64 c = 0; c < ev; c++)
        acc += dout[i * ev + c] * o[i * ev + c];
      dvec[i] = acc;
    }
}

/* the gradients from key block j0 of problem @b: dk, dv and dmask of its
 * keys, and its terms of dq added into @dq (problem @b's [l, e], nullable);
 * dvec is the problem's D; scratch: 3 ATT_BQ x ATT_BK values */
static void
SFX (attention_backward_block) (const DlAttentionArgs *a,
                                gint64 b,
                                gint64 j0,
                                T *dq,
                                const T *dvec,
                                T *scratch)
{
  const gint64 l = a->l, s = a->s, e = a->e, ev = a->ev, cols = MIN (ATT_BK, s - j0);
  const T *q = (const T *)a->q + batch_offset (a, a->q_bs, b);
  const T *k = (const T *)a->k + batch_offset (a, a->k_bs, b);
  const T *v = (const T *)a->v + batch_offset (a, a->v_bs, b);
  const gint64 mask_off = a->mask ? batch_offset (a, a->mask_bs, b) : 0;
  const T *dout = (const T *)a->dout + b * l * ev;
  const T *lse = (const T *)a->lse + b * l;
  T *dk = a->dk ? (T *)a->dk + b * s * e : NULL;
  T *dv = a->dv ? (T *)a->dv + b * s * ev : NULL;
  T *dmask = a->dmask ? (T *)a->dmask + b * l * s : NULL;
  const gboolean need_ds = dq || dk || dmask;
  T *pbuf = scratch, *dpbuf = pbuf + ATT_BQ * ATT_BK, *zbuf = dpbuf + ATT_BQ * ATT_BK;
  const T scale = (T)a->scale, f = SFX (exp_factor) (a);

  for (gint64 i0 = a->causal ? j0 / ATT_BQ * ATT_BQ : 0; i0 < l; i0 += ATT_BQ)
    {
      const gint64 rows = MIN (ATT_BQ, l - i0);
      const T *qi = q + i0 * a->q_rs, *doi = dout + i0 * ev;
      const T *pd = pbuf;

      /* P = exp (scores - lse) */
      dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, rows, cols, e, qi, a->q_rs, k + j0 * a->k_rs, a->k_rs,
                           0, pbuf, cols);
      for (gint64 r = 0; r < rows; r++)
        {
          SFX (att_scores) (a, pbuf + r * cols, cols, b, i0 + r, j0, mask_off);
          SFX (exp_sum) (pbuf + r * cols, cols, f, lse[i0 + r]);
          if (a->dropout_p > 0)
            SFX (dropout_scales) (a, b, i0 + r, j0, cols, zbuf + r * cols);
        }
      if (a->dropout_p > 0)
        {
          for (gint64 t = 0; t < rows * cols; t++)
            dpbuf[t] = pbuf[t] * zbuf[t];
          pd = dpbuf;
        }
      /* dV_j += (P o Z)^T dO_i */
      if (dv)
        dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, cols, ev, rows, pd, cols, doi, ev, 1.0, dv + j0 * ev,
                             ev);
      if (!need_ds)
        continue;
      /* dP = (dO_i V_j^T) o Z, dS = P o (dP - D) */
      dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, rows, cols, ev, doi, ev, v + j0 * a->v_rs, a->v_rs, 0,
                           dpbuf, cols);
      for (gint64 r = 0; r < rows; r++)
        {
          T *restrict dp = dpbuf + r * cols;
          const T *restrict p = pbuf + r * cols, *restrict z = zbuf + r * cols;
          const T d = dvec[i0 + r];

          if (a->dropout_p > 0)
            for (gint64 c = 0; c < cols; c++)
              dp[c] = p[c] * (dp[c] * z[c] - d);
          else
            for (gint64 c = 0; c < cols; c++)
              dp[c] = p[c] * (dp[c] - d);
          if (dmask)
            memcpy (dmask + (i0 + r) * s + j0, dp, cols * sizeof (T));
          SFX (scale_row) (dp, cols, scale);
        }
      /* dQ_i += scale dS K_j, dK_j += scale dS^T Q_i */
      if (dq)
        dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, rows, e, cols, dpbuf, cols, k + j0 * a->k_rs,
                             a->k_rs, 1.0, dq + i0 * e, e);
      if (dk)
        dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, cols, e, rows, dpbuf, cols, qi, a->q_rs, 1.0,
                             dk + j0 * e, e);
    }
}

/* With at least a problem per thread, the threads share the problems;
 * with fewer, they share the key blocks of all problems, each adding its
 * terms of dq into a copy of its own, the copies summed at the end. */
static void
SFX (attention_backward) (const DlAttentionArgs *a)
{
  const gint64 nb = a->n_batch, l = a->l, e = a->e, nkb = (a->s + ATT_BK - 1) / ATT_BK;
  const gdouble work = (gdouble)nb * l * a->s * (a->e + a->ev);
  /* dq is summed over per-thread copies: its bits depend on the thread
   * count, so the count the user set, not the team (dl-cpu-team.c) */
  const gint nt = omp_in_parallel () ? 1 : omp_get_max_threads ();
  const gboolean parallel = work >= ATT_PARALLEL_MIN && nt > 1;
  T *dvec, *dq_copies = NULL;

  if (!parallel || nb >= nt || nkb < 2)
    {
      DL_CPU_PARALLEL_IF (parallel && nb > 1, {
        T *scratch = g_new (T, 3 * ATT_BQ * ATT_BK + l);

        _Pragma ("omp for schedule(dynamic)") for (gint64 b = 0; b < nb; b++)
        {
          T *dq = a->dq ? (T *)a->dq + b * l * e : NULL, *dv = scratch + 3 * ATT_BQ * ATT_BK;

          SFX (attention_backward_init) (a, b, FALSE, dv);
          for (gint64 j0 = 0; j0 < a->s; j0 += ATT_BK)
            SFX (attention_backward_block) (a, b, j0, dq, dv, scratch);
        }
        g_free (scratch);
      });
      return;
    }
  dvec = g_new (T, nb * l);
  if (a->dq)
    dq_copies = g_new0 (T, (gsize)nt * nb * l * e);
#pragma omp parallel num_threads(nt)
  {
    T *scratch = g_new (T, 3 * ATT_BQ * ATT_BK);
    T *mine = dq_copies ? dq_copies + (gsize)omp_get_thread_num () * nb * l * e : NULL;

#pragma omp for schedule(static)
    for (gint64 b = 0; b < nb; b++)
      SFX (attention_backward_init) (a, b, TRUE, dvec + b * l);
#pragma omp for schedule(dynamic)
    for (gint64 t = 0; t < nb * nkb; t++)
      SFX (attention_backward_block)
      (a, t / nkb, t % nkb * ATT_BK, mine ? mine + t / nkb * l * e : NULL, dvec + t / nkb * l,
       scratch);
    if (dq_copies)
      {
#pragma omp for schedule(static)
        for (gint64 i = 0; i < nb * l * e; i++)
          {
            T acc = 0;
            for (gint c = 0; c < omp_get_num_threads (); c++)
              acc += dq_copies[(gsize)c * nb * l * e + i];
            ((T *)a->dq)[i] = acc;
          }
      }
    g_free (scratch);
  }
  g_free (dvec);
  g_free (dq_copies);
}

static void
SFX (attention_dropout_mask) (const DlAttentionArgs *a, void *mask)
{
  const gint64 rows = a->n_batch * a->l;

  DL_CPU_FOR_IF (
      rows * a->s >= DL_CPU_GRAIN, for (gint64 t = 0; t < rows; t++) {
        for (gint64 j0 = 0; j0 < a->s; j0 += ATT_BK)
          SFX (dropout_scales)
          (a, t / a->l, t % a->l, j0, MIN (ATT_BK, a->s - j0), (T *)mask + t * a->s + j0);
      });
}

#undef DT
