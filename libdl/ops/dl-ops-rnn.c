/* dl-ops-rnn.c: one recurrent layer (tanh/relu RNN, LSTM, GRU) in one
 * direction over a packed sequence, as one autograd node on the backend's
 * fused kernels (see DlRnnArgs and backends/cpu/dl-cpu-rnn.c).
 *
 * The node (RnnLayerBackward0) has the inputs x, w_ih, w_hh, b_ih, b_hh,
 * w_hr, h0, c0 (absent ones NULL) and the outputs y, h_n, c_n. Its
 * backward is the backend's backward through time over the gates the
 * forward saved. A backward that create_graph records (grad mode on)
 * instead runs the layer again as a chain of differentiable ops (the
 * composite below, which DL_RNN=composite makes every layer take, the
 * tests' oracle) and differentiates that with create_graph, so gradients
 * of every order exist.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-ops-rnn-private.h"
#include "dl-ops-private.h"

enum
{
  IN_X,
  IN_W_IH,
  IN_W_HH,
  IN_B_IH,
  IN_B_HH,
  IN_W_HR,
  IN_H0,
  IN_C0,
  N_IN
};

typedef struct
{
  DlRnnLayerSpec spec; /* its batch_sizes owned */
  gboolean has[N_IN];  /* which inputs were given */
  DlSavedTensor in[N_IN];
  DlSavedTensor gates, cells, hprev, cprev, m;
} RnnState;

/* the backend's cells are DlRnnMode's values */
G_STATIC_ASSERT ((gint)DL_RNN_CELL_TANH == (gint)DL_RNN_MODE_RNN_TANH);
G_STATIC_ASSERT ((gint)DL_RNN_CELL_RELU == (gint)DL_RNN_MODE_RNN_RELU);
G_STATIC_ASSERT ((gint)DL_RNN_CELL_LSTM == (gint)DL_RNN_MODE_LSTM);
G_STATIC_ASSERT ((gint)DL_RNN_CELL_GRU == (gint)DL_RNN_MODE_GRU);

static gint
gate_count (DlRnnMode mode)
{
  return mode == DL_RNN_MODE_LSTM ? 4 : mode == DL_RNN_MODE_GRU ? 3 : 1;
}

static void
rnn_state_clear (gpointer p)
{
  RnnState *s = p;

  g_free ((gpointer)s->spec.batch_sizes);
}

/* @a @ @b^T (+ @bias) */
static DlTensor *
linear (DlTensor *a, DlTensor *b, DlTensor *bias, GError **error)
{
  g_autoptr (DlTensor) bt = dl_tensor_t (b, error);
  g_autoptr (DlTensor) p = bt ? dl_tensor_matmul (a, bt, error) : NULL;

  if (!p || !bias)
    return g_steal_pointer (&p);
  return dl_tensor_add (p, bias, error);
}

static DlTensor *
gate (DlTensor *t, gint k, gint64 h, GError **error)
{
  return dl_tensor_narrow (t, 1, k * h, h, error);
}

/* What the recorded backward needs of one step (owned references):
 * the previous states, the activated gates (LSTM i, f, g, o; GRU r, z,
 * n and in a[3] W_hn h + b_hn; RNN the new h), tanh (c') and the new h
 * before a projection. */
typedef struct
{
  DlTensor *hp, *cp, *a[4], *tc, *m;
} StepRec;

static void
step_rec_clear (StepRec *r)
{
  g_clear_object (&r->hp);
  g_clear_object (&r->cp);
  for (guint k = 0; k < 4; k++)
    g_clear_object (&r->a[k]);
  g_clear_object (&r->tc);
  g_clear_object (&r->m);
}

static void
keep (DlTensor **slot, DlTensor *t)
{
  *slot = g_object_ref (t);
}

/* One step from the input projection @gx [b, G h] (b_ih added) and the
 * states @h, @c: the new h (before a projection), the new c into @c_new;
 * what the recorded backward needs into @rec (nullable). Differentiable
 * ops only. */
static DlTensor *
cell_composite (DlRnnMode mode,
                DlTensor *gx,
                const DlRnnLayerWeights *w,
                DlTensor *h,
                DlTensor *c,
                DlTensor **c_new,
                StepRec *rec,
                GError **error)
{
  const gint64 hs = w->w_hh->sizes[0] / gate_count (mode);
  g_autoptr (DlTensor) gh = linear (h, w->w_hh, w->b_hh, error);

  if (!gh)
    return NULL;
  if (mode == DL_RNN_MODE_LSTM)
    {
      g_autoptr (DlTensor) pre = dl_tensor_add (gx, gh, error);
      g_autoptr (DlTensor) pi = pre ? gate (pre, 0, hs, error) : NULL;
      g_autoptr (DlTensor) pf = pi ? gate (pre, 1, hs, error) : NULL;
      g_autoptr (DlTensor) pg = pf ? gate (pre, 2, hs, error) : NULL;
      g_autoptr (DlTensor) po = pg ? gate (pre, 3, hs, error) : NULL;
      g_autoptr (DlTensor) i = po ? dl_tensor_sigmoid (pi, error) : NULL;
      g_autoptr (DlTensor) f = i ? dl_tensor_sigmoid (pf, error) : NULL;
      g_autoptr (DlTensor) g = f ? dl_tensor_tanh (pg, error) : NULL;
      g_autoptr (DlTensor) o = g ? dl_tensor_sigmoid (po, error) : NULL;
      g_autoptr (DlTensor) fc = o ? dl_tensor_mul (f, c, error) : NULL;
      g_autoptr (DlTensor) ig = fc ? dl_tensor_mul (i, g, error) : NULL;
      g_autoptr (DlTensor) cn = ig ? dl_tensor_add (fc, ig, error) : NULL;
      g_autoptr (DlTensor) tc = cn ? dl_tensor_tanh (cn, error) : NULL;

      if (!tc)
        return NULL;
      if (rec)
        {
          keep (&rec->a[0], i);
          keep (&rec->a[1], f);
          keep (&rec->a[2], g);
          keep (&rec->a[3], o);
          keep (&rec->tc, tc);
        }
      *c_new = g_steal_pointer (&cn);
      return dl_tensor_mul (o, tc, error);
    }
  if (mode == DL_RNN_MODE_GRU)
    {
      g_autoptr (DlTensor) xr = gate (gx, 0, hs, error);
      g_autoptr (DlTensor) xz = xr ? gate (gx, 1, hs, error) : NULL;
      g_autoptr (DlTensor) xn = xz ? gate (gx, 2, hs, error) : NULL;
      g_autoptr (DlTensor) hr = xn ? gate (gh, 0, hs, error) : NULL;
      g_autoptr (DlTensor) hz = hr ? gate (gh, 1, hs, error) : NULL;
      g_autoptr (DlTensor) hn = hz ? gate (gh, 2, hs, error) : NULL;
      g_autoptr (DlTensor) sr = hn ? dl_tensor_add (xr, hr, error) : NULL;
      g_autoptr (DlTensor) sz = sr ? dl_tensor_add (xz, hz, error) : NULL;
      g_autoptr (DlTensor) r = sz ? dl_tensor_sigmoid (sr, error) : NULL;
      g_autoptr (DlTensor) z = r ? dl_tensor_sigmoid (sz, error) : NULL;
      g_autoptr (DlTensor) rhn = z ? dl_tensor_mul (r, hn, error) : NULL;
      g_autoptr (DlTensor) sn = rhn ? dl_tensor_add (xn, rhn, error) : NULL;
      g_autoptr (DlTensor) n = sn ? dl_tensor_tanh (sn, error) : NULL;
      g_autoptr (DlTensor) d = n ? dl_tensor_sub (h, n, error) : NULL;
      g_autoptr (DlTensor) zd = d ? dl_tensor_mul (z, d, error) : NULL;

      if (zd && rec)
        {
          keep (&rec->a[0], r);
          keep (&rec->a[1], z);
          keep (&rec->a[2], n);
          keep (&rec->a[3], hn);
        }
      return zd ? dl_tensor_add (n, zd, error) : NULL;
    }
  {
    g_autoptr (DlTensor) pre = dl_tensor_add (gx, gh, error);

    g_autoptr (DlTensor) hv = NULL;

    if (!pre
        || !(hv = mode == DL_RNN_MODE_RNN_RELU ? dl_tensor_relu (pre, error)
                                               : dl_tensor_tanh (pre, error)))
      return NULL;
    if (rec)
      keep (&rec->a[0], hv);
    return g_steal_pointer (&hv);
  }
}

/* the first @n rows of @t, then (when shorter than @t) @t's other rows
 * after @head */
static DlTensor *
replace_head (DlTensor *t, DlTensor *head, GError **error)
{
  const gint64 n = head->sizes[0];
  g_autoptr (DlTensor) tail = NULL;

  if (n == t->sizes[0])
    return g_object_ref (head);
  if (!(tail = dl_tensor_narrow (t, 0, n, t->sizes[0] - n, error)))
    return NULL;
  return dl_cat ((DlTensor *[]){ head, tail }, 2, 0, error);
}

/* The layer as a chain of differentiable ops (see dl_rnn_op_layer). */
static DlTensor *
layer_composite (const DlRnnLayerSpec *spec,
                 DlTensor *x,
                 const DlRnnLayerWeights *w,
                 DlTensor *h0,
                 DlTensor *c0,
                 DlTensor **h_n,
                 DlTensor **c_n,
                 StepRec *rec,
                 GError **error)
{
  g_autoptr (DlTensor) gx = linear (x, w->w_ih, w->b_ih, error);
  g_autoptr (DlTensor) h = g_object_ref (h0);
  g_autoptr (DlTensor) c = c0 ? g_object_ref (c0) : NULL;
  const gint64 steps = spec->steps, *batch_sizes = spec->batch_sizes;
  g_autoptr (GPtrArray) ys = g_ptr_array_new_full (steps, g_object_unref);
  g_autofree gint64 *off = g_new (gint64, steps + 1);
  DlTensor *y;

  if (!gx)
    return NULL;
  off[0] = 0;
  for (gint64 t = 0; t < steps; t++)
    off[t + 1] = off[t] + batch_sizes[t];
  g_ptr_array_set_size (ys, steps);
  for (gint64 s = 0; s < steps; s++)
    {
      const gint64 t = spec->reverse ? steps - 1 - s : s, bs = batch_sizes[t];
      g_autoptr (DlTensor) xt = dl_tensor_narrow (gx, 0, off[t], bs, error);
      g_autoptr (DlTensor) hp = xt ? dl_tensor_narrow (h, 0, 0, bs, error) : NULL;
      g_autoptr (DlTensor) cp = hp && c ? dl_tensor_narrow (c, 0, 0, bs, error) : NULL;
      g_autoptr (DlTensor) cn = NULL;
      g_autoptr (DlTensor) hv = NULL;
      g_autoptr (DlTensor) hnew = NULL;

      if (!hp || (c && !cp)
          || !(hv = cell_composite (spec->mode, xt, w, hp, cp, &cn, rec ? &rec[t] : NULL, error)))
        return NULL;
      if (rec)
        {
          keep (&rec[t].hp, hp);
          if (cp)
            keep (&rec[t].cp, cp);
          keep (&rec[t].m, hv);
        }
      if (w->w_hr)
        {
          g_autoptr (DlTensor) m = g_steal_pointer (&hv);
          if (!(hv = linear (m, w->w_hr, NULL, error)))
            return NULL;
        }
      if (!(hnew = replace_head (h, hv, error)))
        return NULL;
      g_set_object (&h, hnew);
      if (c)
        {
          g_autoptr (DlTensor) cnew = replace_head (c, cn, error);
          if (!cnew)
            return NULL;
          g_set_object (&c, cnew);
        }
      ys->pdata[t] = g_steal_pointer (&hv);
    }
  if (!(y = dl_cat ((DlTensor **)ys->pdata, ys->len, 0, error)))
    return NULL;
  *h_n = g_steal_pointer (&h);
  if (c_n)
    *c_n = g_steal_pointer (&c);
  return y;
}

/* Keeps @t (transfer full, nullable) in @pool until the pool goes, and
 * returns it. */
static DlTensor *
pooled (GPtrArray *pool, DlTensor *t)
{
  if (t)
    g_ptr_array_add (pool, t);
  return t;
}

#define P(expr) pooled (pool, (expr))

static DlTensor *
zeros_like (DlTensor *t, GError **error)
{
  return dl_zeros (t->sizes, t->ndim, t->dtype, dl_tensor_get_device (t), error);
}

/* 1 - a^2 and a (1 - a): the derivatives of tanh and sigmoid from their
 * values */
static DlTensor *
one_minus_sq (GPtrArray *pool, DlTensor *a, GError **error)
{
  DlTensor *sq = P (dl_tensor_mul (a, a, error));

  return sq ? P (dl_tensor_rsub_scalar (sq, 1.0, error)) : NULL;
}

static DlTensor *
dsigmoid (GPtrArray *pool, DlTensor *a, GError **error)
{
  DlTensor *sq = P (dl_tensor_mul (a, a, error));

  return sq ? P (dl_tensor_sub (a, sq, error)) : NULL;
}

static DlTensor *
mul3 (GPtrArray *pool, DlTensor *a, DlTensor *b, DlTensor *c, GError **error)
{
  DlTensor *ab = P (dl_tensor_mul (a, b, error));

  return ab ? P (dl_tensor_mul (ab, c, error)) : NULL;
}

/* @a^T @b */
static DlTensor *
tmm (GPtrArray *pool, DlTensor *a, DlTensor *b, GError **error)
{
  DlTensor *at = P (dl_tensor_t (a, error));

  return at ? P (dl_tensor_matmul (at, b, error)) : NULL;
}

static DlTensor *
cat_rows (GPtrArray *pool, DlTensor **parts, gint64 n, GError **error)
{
  return P (dl_cat (parts, n, 0, error));
}

/* One step's gradients through the cell, from @dha (that of the new h)
 * and, for an LSTM, @dc (of the new c, [batch, h]: its first rows): the
 * input projection's gate gradients into @dgx, the hidden one's into @dgh,
 * the previous h's part that skips w_hh (GRU) into @direct (NULL else),
 * and the previous c's into @dcp (LSTM). */
static gboolean
cell_backward_recorded (GPtrArray *pool,
                        DlRnnMode mode,
                        const StepRec *r,
                        DlTensor *dha,
                        DlTensor *dm,
                        DlTensor *dc,
                        DlTensor **dgx,
                        DlTensor **dgh,
                        DlTensor **direct,
                        DlTensor **dcp,
                        GError **error)
{
  *direct = NULL;
  if (mode == DL_RNN_MODE_LSTM)
    {
      DlTensor *i = r->a[0], *f = r->a[1], *g = r->a[2], *o = r->a[3];
      DlTensor *dct, *dch, *di, *df, *dg, *dout, *d1, *d2;

      TRY (d1 = one_minus_sq (pool, r->tc, error));
      TRY (d2 = mul3 (pool, dm, o, d1, error));
      TRY (dch = P (dl_tensor_narrow (dc, 0, 0, dha->sizes[0], error)));
      TRY (dct = P (dl_tensor_add (dch, d2, error)));
      TRY (d1 = dsigmoid (pool, i, error));
      TRY (di = mul3 (pool, dct, g, d1, error));
      TRY (d1 = dsigmoid (pool, f, error));
      TRY (df = mul3 (pool, dct, r->cp, d1, error));
      TRY (d1 = one_minus_sq (pool, g, error));
      TRY (dg = mul3 (pool, dct, i, d1, error));
      TRY (d1 = dsigmoid (pool, o, error));
      TRY (dout = mul3 (pool, dm, r->tc, d1, error));
      TRY (*dgx = *dgh = P (dl_cat ((DlTensor *[]){ di, df, dg, dout }, 4, 1, error)));
      TRY (*dcp = P (dl_tensor_mul (dct, f, error)));
      return TRUE;
    }
  if (mode == DL_RNN_MODE_GRU)
    {
      DlTensor *rr = r->a[0], *z = r->a[1], *n = r->a[2], *hn = r->a[3];
      DlTensor *omz, *dnp, *dr, *dz, *diff, *d1, *dnr;

      TRY (omz = P (dl_tensor_rsub_scalar (z, 1.0, error)));
      TRY (d1 = one_minus_sq (pool, n, error));
      TRY (dnp = mul3 (pool, dha, omz, d1, error));
      TRY (d1 = dsigmoid (pool, rr, error));
      TRY (dr = mul3 (pool, dnp, hn, d1, error));
      TRY (diff = P (dl_tensor_sub (r->hp, n, error)));
      TRY (d1 = dsigmoid (pool, z, error));
      TRY (dz = mul3 (pool, dha, diff, d1, error));
      TRY (dnr = P (dl_tensor_mul (dnp, rr, error)));
      TRY (*dgx = P (dl_cat ((DlTensor *[]){ dr, dz, dnp }, 3, 1, error)));
      TRY (*dgh = P (dl_cat ((DlTensor *[]){ dr, dz, dnr }, 3, 1, error)));
      TRY (*direct = P (dl_tensor_mul (dha, z, error)));
      return TRUE;
    }
  if (mode == DL_RNN_MODE_RNN_RELU)
    {
      DlTensor *pos, *mask;

      TRY (pos = P (dl_tensor_gt_scalar (r->a[0], 0, error)));
      TRY (mask = P (dl_tensor_to_dtype (pos, dha->dtype, error)));
      TRY (*dgx = *dgh = P (dl_tensor_mul (dha, mask, error)));
      return TRUE;
    }
  {
    DlTensor *d1;

    TRY (d1 = one_minus_sq (pool, r->a[0], error));
    TRY (*dgx = *dgh = P (dl_tensor_mul (dha, d1, error)));
    return TRUE;
  }
}

/* The gradients of the node's inputs as differentiable functions of them
 * (a backward that create_graph records): the composite layer run again
 * from the saved inputs, keeping each step's gates, then backward through
 * time with differentiable ops, the same formulas as the fused kernel's,
 * and the weights' gradients as products over all rows. */
static gboolean
rnn_backward_recorded (DlNode *node, DlTensor **in, DlTensor **go, DlTensor **gi, GError **error)
{
  const RnnState *s = dl_node_state (node);
  const DlRnnLayerSpec *spec = &s->spec;
  const DlRnnMode mode = spec->mode;
  const gint64 steps = spec->steps;
  const gboolean lstm = mode == DL_RNN_MODE_LSTM;
  DlRnnLayerWeights w = { in[IN_W_IH], in[IN_W_HH], in[IN_B_IH], in[IN_B_HH], in[IN_W_HR] };
  const guint n_out = dl_node_data (node)->n_outputs;
  g_autoptr (GPtrArray) pool = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree StepRec *rec = g_new0 (StepRec, steps);
  g_autofree gint64 *off = g_new (gint64, steps + 1);
  g_autofree DlTensor **dgx = g_new0 (DlTensor *, steps);
  g_autofree DlTensor **dgh = g_new0 (DlTensor *, steps);
  g_autofree DlTensor **dhs = g_new0 (DlTensor *, steps);
  g_autofree DlTensor **hps = g_new0 (DlTensor *, steps);
  g_autofree DlTensor **ms = g_new0 (DlTensor *, steps);
  DlTensor *y = NULL, *h_n = NULL, *c_n = NULL, *dh, *dc = NULL;
  DlTensor *gx_all, *gh_all;
  gboolean ok = FALSE;

  off[0] = 0;
  for (gint64 t = 0; t < steps; t++)
    off[t + 1] = off[t] + spec->batch_sizes[t];
  y = P (layer_composite (spec, in[IN_X], &w, in[IN_H0], in[IN_C0], &h_n, lstm ? &c_n : NULL, rec,
                          error));
  P (h_n);
  P (c_n);
  if (!y)
    goto out;
  if (!(dh = go[1] ? go[1] : P (zeros_like (h_n, error)))
      || (lstm && !(dc = n_out > 2 && go[2] ? go[2] : P (zeros_like (c_n, error)))))
    goto out;
  for (gint64 k = steps - 1; k >= 0; k--)
    {
      const gint64 t = spec->reverse ? steps - 1 - k : k, bs = spec->batch_sizes[t];
      DlTensor *dha, *dm, *direct, *dcp = NULL, *dhp;

      if (!(dha = P (dl_tensor_narrow (dh, 0, 0, bs, error))))
        goto out;
      if (go[0])
        {
          DlTensor *dy = P (dl_tensor_narrow (go[0], 0, off[t], bs, error));
          if (!dy || !(dha = P (dl_tensor_add (dha, dy, error))))
            goto out;
        }
      dm = dha;
      if (w.w_hr && (!(dhs[t] = dha) || !(dm = P (dl_tensor_matmul (dha, w.w_hr, error)))))
        goto out;
      if (!cell_backward_recorded (pool, mode, &rec[t], dha, dm, dc, &dgx[t], &dgh[t], &direct,
                                   &dcp, error)
          || !(dhp = P (dl_tensor_matmul (dgh[t], w.w_hh, error)))
          || (direct && !(dhp = P (dl_tensor_add (dhp, direct, error))))
          || !(dh = P (replace_head (dh, dhp, error)))
          || (lstm && !(dc = P (replace_head (dc, dcp, error)))))
        goto out;
      hps[t] = rec[t].hp;
      ms[t] = rec[t].m;
    }
  if (!(gx_all = cat_rows (pool, dgx, steps, error))
      || !(gh_all = mode == DL_RNN_MODE_GRU ? cat_rows (pool, dgh, steps, error) : gx_all))
    goto out;
  for (guint i = 0; i < N_IN; i++)
    {
      DlTensor *g = NULL, *all;

      if (!in[i] || !dl_node_needs_input_grad (node, i))
        continue;
      switch (i)
        {
          case IN_X:
            g = P (dl_tensor_matmul (gx_all, w.w_ih, error));
            break;
          case IN_W_IH:
            g = tmm (pool, gx_all, in[IN_X], error);
            break;
          case IN_W_HH:
            g = (all = cat_rows (pool, hps, steps, error)) ? tmm (pool, gh_all, all, error) : NULL;
            break;
          case IN_B_IH:
          case IN_B_HH:
            g = P (dl_tensor_sum_dims (i == IN_B_IH ? gx_all : gh_all, (gint64[]){ 0 }, 1, FALSE,
                                       error));
            break;
          case IN_W_HR:
            g = (all = cat_rows (pool, dhs, steps, error))
                    ? tmm (pool, all, cat_rows (pool, ms, steps, error), error)
                    : NULL;
            break;
          case IN_H0:
            g = dh;
            break;
          default:
            g = dc;
        }
      if (!g)
        goto out;
      gi[i] = g_object_ref (g);
    }
  ok = TRUE;
out:
  for (gint64 t = 0; t < steps; t++)
    step_rec_clear (&rec[t]);
  return ok;
}

static DlTensor *
new_buffer (DlTensor *like, gint64 rows, gint64 cols, GError **error)
{
  return dl_tensor_new_empty_internal (dl_tensor_device (like), like->dtype,
                                       (gint64[]){ rows, cols }, 2, error);
}

static gpointer
data_or_null (DlTensor *t)
{
  return t ? dl_tensor_data (t) : NULL;
}

/* the fields of @a that the forward and backward kernels share: the
 * sizes, the inputs @cont (contiguous, NULL for absent ones) and the
 * reserve @bufs (gates, cells, hprev, cprev, m) */
static void
fill_args (DlRnnArgs *a, const DlRnnLayerSpec *spec, DlTensor **cont, DlTensor **bufs)
{
  a->cell = (DlRnnCellKind)spec->mode;
  a->reverse = spec->reverse;
  a->steps = spec->steps;
  a->batch_sizes = spec->batch_sizes;
  a->batch = cont[IN_H0]->sizes[0];
  a->input_size = cont[IN_X]->sizes[1];
  a->hidden_size = cont[IN_W_IH]->sizes[0] / gate_count (spec->mode);
  a->proj_size = cont[IN_W_HR] ? cont[IN_W_HR]->sizes[0] : 0;
  a->x = dl_tensor_data (cont[IN_X]);
  a->w_ih = dl_tensor_data (cont[IN_W_IH]);
  a->w_hh = dl_tensor_data (cont[IN_W_HH]);
  a->b_ih = data_or_null (cont[IN_B_IH]);
  a->b_hh = data_or_null (cont[IN_B_HH]);
  a->w_hr = data_or_null (cont[IN_W_HR]);
  a->h0 = dl_tensor_data (cont[IN_H0]);
  a->c0 = data_or_null (cont[IN_C0]);
  a->gates = dl_tensor_data (bufs[0]);
  a->cells = data_or_null (bufs[1]);
  a->hprev = dl_tensor_data (bufs[2]);
  a->cprev = data_or_null (bufs[3]);
  a->m = data_or_null (bufs[4]);
}

/* @in's tensors made contiguous into @cont (new references, kept in
 * @pool; NULL stays NULL) */
static gboolean
contiguous_inputs (GPtrArray *pool, DlTensor **in, DlTensor **cont, GError **error)
{
  for (guint i = 0; i < N_IN; i++)
    if (in[i] && !(cont[i] = P (dl_tensor_contiguous (in[i], error))))
      return FALSE;
    else if (!in[i])
      cont[i] = NULL;
  return TRUE;
}

static gboolean
rnn_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const RnnState *s = dl_node_state (node);
  DlTensor *in[N_IN] = { NULL };
  g_autoptr (DlTensor) dy = NULL;
  g_autoptr (DlTensor) dh_n = NULL;
  g_autoptr (DlTensor) dc_n = NULL;
  g_autoptr (DlTensor) dgx = NULL;
  g_autoptr (DlTensor) dgh = NULL;
  g_autoptr (DlTensor) dhs = NULL;
  g_autoptr (GPtrArray) pool = g_ptr_array_new_with_free_func (g_object_unref);
  DlTensor *x, *cont[N_IN], *buf[5] = { NULL };
  const DlSavedTensor *slots[5] = { &s->gates, &s->cells, &s->hprev, &s->cprev, &s->m };
  DlBackendContext *ctx;
  DlRnnArgs a = { 0 };
  const guint n_out = dl_node_data (node)->n_outputs;
  gint64 n, gh;

  for (guint i = 0; i < N_IN; i++)
    if (s->has[i])
      TRY (in[i] = dl_node_saved (node, &s->in[i], error));
  if (dl_is_grad_enabled ())
    return rnn_backward_recorded (node, in, go, gi, error);
  for (guint k = 0; k < 5; k++)
    if (slots[k]->tensor)
      TRY (buf[k] = dl_node_saved (node, slots[k], error));
  TRY (contiguous_inputs (pool, in, cont, error));
  x = in[IN_X];
  ctx = dl_tensor_context (x);
  n = x->sizes[0];
  gh = in[IN_W_IH]->sizes[0];
  if ((go[0] && !(dy = dl_tensor_contiguous (go[0], error)))
      || (go[1] && !(dh_n = dl_tensor_contiguous (go[1], error)))
      || (n_out > 2 && go[2] && !(dc_n = dl_tensor_contiguous (go[2], error))))
    return FALSE;
  TRY (dgx = new_buffer (x, n, gh, error));
  if (s->spec.mode == DL_RNN_MODE_GRU)
    TRY (dgh = new_buffer (x, n, gh, error));
  if (in[IN_W_HR])
    TRY (dhs = new_buffer (x, n, in[IN_W_HR]->sizes[0], error));
  for (guint i = 0; i < N_IN; i++)
    if (in[i] && dl_node_needs_input_grad (node, i))
      TRY (gi[i] = dl_tensor_new_empty_internal (dl_tensor_device (in[i]), in[i]->dtype,
                                                 in[i]->sizes, in[i]->ndim, error));
  fill_args (&a, &s->spec, cont, buf);
  a.dy = data_or_null (dy);
  a.dh_n = data_or_null (dh_n);
  a.dc_n = data_or_null (dc_n);
  a.dx = data_or_null (gi[IN_X]);
  a.dw_ih = data_or_null (gi[IN_W_IH]);
  a.dw_hh = data_or_null (gi[IN_W_HH]);
  a.db_ih = data_or_null (gi[IN_B_IH]);
  a.db_hh = data_or_null (gi[IN_B_HH]);
  a.dw_hr = data_or_null (gi[IN_W_HR]);
  a.dh0 = data_or_null (gi[IN_H0]);
  a.dc0 = data_or_null (gi[IN_C0]);
  a.dgx = dl_tensor_data (dgx);
  a.dgh = data_or_null (dgh);
  a.dhs = data_or_null (dhs);
  ctx->backend->rnn_backward (ctx, &a, x->dtype);
  return TRUE;
}

/* whether the layer takes the fused kernels: DL_RNN=composite makes every
 * layer take the chain of ops */
static gboolean
rnn_fusable (DlTensor *x, gint64 n)
{
  static gint composite = -1;
  const DlBackend *b = dl_tensor_context (x)->backend;

  if (composite < 0)
    composite = g_strcmp0 (g_getenv ("DL_RNN"), "composite") == 0;
  return !composite && b->rnn_forward && b->rnn_backward && n > 0
         && (x->dtype == DL_DTYPE_FLOAT32 || x->dtype == DL_DTYPE_FLOAT64);
}

DlTensor *
dl_rnn_op_layer (const DlRnnLayerSpec *spec,
                 DlTensor *x,
                 const DlRnnLayerWeights *w,
                 DlTensor *h0,
                 DlTensor *c0,
                 DlTensor **h_n,
                 DlTensor **c_n,
                 GError **error)
{
  DlTensor *inputs[N_IN] = { x, w->w_ih, w->w_hh, w->b_ih, w->b_hh, w->w_hr, h0, c0 };
  g_autoptr (GPtrArray) pool = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlNode) node = NULL;
  DlTensor *cont[N_IN], *bufs[5] = { NULL }, *y, *hn, *cn = NULL;
  DlBackendContext *ctx;
  DlRnnArgs a = { 0 };
  const DlRnnMode mode = spec->mode;
  const gboolean lstm = mode == DL_RNN_MODE_LSTM;
  const gint64 gh = w->w_ih->sizes[0], hs = gh / gate_count (mode);
  const gint64 ho = w->w_hr ? w->w_hr->sizes[0] : hs, batch = h0->sizes[0];
  gint64 n = 0;
  RnnState *s;

  g_return_val_if_fail (x->ndim == 2 && h0->ndim == 2, NULL);
  g_return_val_if_fail (lstm == (c0 != NULL), NULL);
  for (gint64 t = 0; t < spec->steps; t++)
    n += spec->batch_sizes[t];
  g_return_val_if_fail (n == x->sizes[0], NULL);
  if (!rnn_fusable (x, n))
    return layer_composite (spec, x, w, h0, c0, h_n, lstm ? c_n : NULL, NULL, error);
  ctx = dl_tensor_context (x);
  /* the outputs and the reserve: gates, cells, hprev, cprev, m */
  if (!contiguous_inputs (pool, inputs, cont, error) || !(y = P (new_buffer (x, n, ho, error)))
      || !(hn = P (new_buffer (x, batch, ho, error)))
      || (lstm && !(cn = P (new_buffer (x, batch, hs, error))))
      || !(bufs[0] = P (new_buffer (x, n, gh, error)))
      || !(bufs[2] = P (new_buffer (x, n, ho, error)))
      || ((lstm || mode == DL_RNN_MODE_GRU) && !(bufs[1] = P (new_buffer (x, n, hs, error))))
      || (lstm && !(bufs[3] = P (new_buffer (x, n, hs, error))))
      || (w->w_hr && !(bufs[4] = P (new_buffer (x, n, hs, error)))))
    return NULL;
  fill_args (&a, spec, cont, bufs);
  a.y = dl_tensor_data (y);
  a.h_n = dl_tensor_data (hn);
  a.c_n = data_or_null (cn);
  ctx->backend->rnn_forward (ctx, &a, x->dtype);
  if (dl_autograd_any_requires (N_IN, inputs))
    {
      DlSavedTensor *slots[5];

      node = dl_node_new_for_op ("RnnLayerBackward0", rnn_backward, N_IN, inputs);
      s = dl_node_alloc_state (node, sizeof (RnnState), rnn_state_clear);
      s->spec = *spec;
      s->spec.batch_sizes = g_memdup2 (spec->batch_sizes, MAX (spec->steps, 1) * sizeof (gint64));
      for (guint i = 0; i < N_IN; i++)
        if ((s->has[i] = inputs[i] != NULL))
          dl_node_save (node, &s->in[i], inputs[i], FALSE);
      slots[0] = &s->gates;
      slots[1] = &s->cells;
      slots[2] = &s->hprev;
      slots[3] = &s->cprev;
      slots[4] = &s->m;
      for (guint k = 0; k < 5; k++)
        if (bufs[k])
          dl_node_save (node, slots[k], bufs[k], FALSE);
      dl_node_set_output (node, y, 0);
      dl_node_set_output (node, hn, 1);
      if (cn)
        dl_node_set_output (node, cn, 2);
    }
  *h_n = g_object_ref (hn);
  if (c_n)
    *c_n = cn ? g_object_ref (cn) : NULL;
  return g_object_ref (y);
}

DlTensor *
dl_rnn_op_cell (DlRnnMode mode,
                DlTensor *x,
                const DlRnnLayerWeights *w,
                DlTensor *h,
                DlTensor *c,
                DlTensor **c_out,
                GError **error)
{
  g_autoptr (DlTensor) hn = NULL;
  g_autoptr (DlTensor) cn = NULL;
  g_autoptr (DlTensor) y = NULL;
  const gint64 bs = x->sizes[0];

  if (!(y
        = dl_rnn_op_layer (&(DlRnnLayerSpec){ mode, FALSE, 1, &bs }, x, w, h, c, &hn, &cn, error)))
    return NULL;
  if (c_out)
    *c_out = g_steal_pointer (&cn);
  return g_steal_pointer (&hn);
}
