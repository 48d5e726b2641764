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
#include "autograd/dl-autograd.h"

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

/* One step from the input projection @gx [b, G h] (b_ih added) and the
 * states @h, @c: the new h (before a projection), the new c into @c_new.
 * Differentiable ops only. */
static DlTensor *
cell_composite (DlRnnMode mode,
                DlTensor *gx,
                const DlRnnLayerWeights *w,
                DlTensor *h,
                DlTensor *c,
                DlTensor **c_new,
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

      return zd ? dl_tensor_add (n, zd, error) : NULL;
    }
  {
    g_autoptr (DlTensor) pre = dl_tensor_add (gx, gh, error);

    if (!pre)
      return NULL;
    return mode == DL_RNN_MODE_RNN_RELU ? dl_tensor_relu (pre, error) : dl_tensor_tanh (pre, error);
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

      if (!hp || (c && !cp) || !(hv = cell_composite (spec->mode, xt, w, hp, cp, &cn, error)))
        return NULL;
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

/* the gradients of the node's inputs as differentiable functions of them:
 * the composite layer run again from the saved inputs and differentiated
 * with create_graph */
static gboolean
rnn_backward_recorded (DlNode *node, DlTensor **in, DlTensor **go, DlTensor **gi, GError **error)
{
  const RnnState *s = dl_node_state (node);
  DlRnnLayerWeights w = { in[IN_W_IH], in[IN_W_HH], in[IN_B_IH], in[IN_B_HH], in[IN_W_HR] };
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) h_n = NULL;
  g_autoptr (DlTensor) c_n = NULL;
  g_autoptr (GPtrArray) grads = NULL;
  DlTensor *outs[3], *gos[3], *ins[N_IN];
  const guint n_out = dl_node_data (node)->n_outputs;
  guint n_outs = 0, n_ins = 0, idx[N_IN];

  TRY (y = layer_composite (&s->spec, in[IN_X], &w, in[IN_H0], in[IN_C0], &h_n,
                            in[IN_C0] ? &c_n : NULL, error));
  {
    DlTensor *all[3] = { y, h_n, c_n };
    for (guint k = 0; k < n_out; k++)
      if (go[k] && all[k])
        {
          outs[n_outs] = all[k];
          gos[n_outs++] = go[k];
        }
  }
  for (guint i = 0; i < N_IN; i++)
    if (in[i] && dl_node_needs_input_grad (node, i))
      {
        idx[n_ins] = i;
        ins[n_ins++] = in[i];
      }
  if (n_outs == 0 || n_ins == 0)
    return TRUE;
  TRY (grads = dl_autograd_grad (outs, n_outs, ins, n_ins, gos, n_outs, TRUE, TRUE, TRUE, error));
  for (guint k = 0; k < n_ins; k++)
    if (grads->pdata[k])
      gi[idx[k]] = g_object_ref (grads->pdata[k]);
  return TRUE;
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
  DlTensor *x, *gates, *buf[5] = { NULL };
  const DlSavedTensor *slots[5] = { &s->gates, &s->cells, &s->hprev, &s->cprev, &s->m };
  DlBackendContext *ctx;
  DlRnnArgs a = { 0 };
  const guint n_out = dl_node_data (node)->n_outputs;
  gint64 n, hs, ps, gh;

  for (guint i = 0; i < N_IN; i++)
    if (s->has[i])
      TRY (in[i] = dl_node_saved (node, &s->in[i], error));
  if (dl_is_grad_enabled ())
    return rnn_backward_recorded (node, in, go, gi, error);
  for (guint k = 0; k < 5; k++)
    if (slots[k]->tensor)
      TRY (buf[k] = dl_node_saved (node, slots[k], error));
  x = in[IN_X];
  gates = buf[0];
  ctx = dl_tensor_context (x);
  n = x->sizes[0];
  gh = in[IN_W_IH]->sizes[0];
  hs = gh / gate_count (s->spec.mode);
  ps = in[IN_W_HR] ? in[IN_W_HR]->sizes[0] : 0;
  if ((go[0] && !(dy = dl_tensor_contiguous (go[0], error)))
      || (go[1] && !(dh_n = dl_tensor_contiguous (go[1], error)))
      || (n_out > 2 && go[2] && !(dc_n = dl_tensor_contiguous (go[2], error))))
    return FALSE;
  TRY (dgx = new_buffer (x, n, gh, error));
  if (s->spec.mode == DL_RNN_MODE_GRU)
    TRY (dgh = new_buffer (x, n, gh, error));
  if (ps)
    TRY (dhs = new_buffer (x, n, ps, error));
  for (guint i = 0; i < N_IN; i++)
    if (in[i] && dl_node_needs_input_grad (node, i))
      TRY (gi[i] = dl_tensor_new_empty_internal (dl_tensor_device (in[i]), in[i]->dtype,
                                                 in[i]->sizes, in[i]->ndim, error));
  a.mode = s->spec.mode;
  a.reverse = s->spec.reverse;
  a.steps = s->spec.steps;
  a.batch = in[IN_H0]->sizes[0];
  a.input_size = x->sizes[1];
  a.hidden_size = hs;
  a.proj_size = ps;
  a.batch_sizes = s->spec.batch_sizes;
  a.x = dl_tensor_data (x);
  a.w_ih = dl_tensor_data (in[IN_W_IH]);
  a.w_hh = dl_tensor_data (in[IN_W_HH]);
  a.w_hr = data_or_null (in[IN_W_HR]);
  a.gates = dl_tensor_data (gates);
  a.cells = data_or_null (buf[1]);
  a.hprev = data_or_null (buf[2]);
  a.cprev = data_or_null (buf[3]);
  a.m = data_or_null (buf[4]);
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

/* @t contiguous (a new reference), or NULL for NULL */
static gboolean
contiguous_or_null (DlTensor *t, DlTensor **out, GError **error)
{
  *out = NULL;
  return t == NULL || (*out = dl_tensor_contiguous (t, error)) != NULL;
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
  DlTensor *cont[N_IN] = { NULL };
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) hn = NULL;
  g_autoptr (DlTensor) cn = NULL;
  g_autoptr (DlNode) node = NULL;
  DlTensor *bufs[5] = { NULL };
  DlBackendContext *ctx;
  DlRnnArgs a = { 0 };
  const DlRnnMode mode = spec->mode;
  const gint64 steps = spec->steps, *batch_sizes = spec->batch_sizes;
  const gboolean lstm = mode == DL_RNN_MODE_LSTM;
  const gint64 gh = w->w_ih->sizes[0], hs = gh / gate_count (mode);
  const gint64 ps = w->w_hr ? w->w_hr->sizes[0] : 0, ho = ps ? ps : hs;
  const gint64 batch = h0->sizes[0];
  gboolean ok = TRUE;
  gint64 n = 0;
  RnnState *s;

  g_return_val_if_fail (x->ndim == 2 && h0->ndim == 2, NULL);
  g_return_val_if_fail (lstm == (c0 != NULL), NULL);
  for (gint64 t = 0; t < steps; t++)
    n += batch_sizes[t];
  g_return_val_if_fail (n == x->sizes[0], NULL);
  if (!rnn_fusable (x, n))
    return layer_composite (spec, x, w, h0, c0, h_n, lstm ? c_n : NULL, error);
  ctx = dl_tensor_context (x);
  for (guint i = 0; i < N_IN && ok; i++)
    ok = contiguous_or_null (inputs[i], &cont[i], error);
  if (ok
      && ((y = new_buffer (x, n, ho, error)) == NULL
          || (hn = new_buffer (x, batch, ho, error)) == NULL
          || (lstm && (cn = new_buffer (x, batch, hs, error)) == NULL)
          || (bufs[0] = new_buffer (x, n, gh, error)) == NULL
          || (bufs[2] = new_buffer (x, n, ho, error)) == NULL
          || ((lstm || mode == DL_RNN_MODE_GRU) && (bufs[1] = new_buffer (x, n, hs, error)) == NULL)
          || (lstm && (bufs[3] = new_buffer (x, n, hs, error)) == NULL)
          || (ps && (bufs[4] = new_buffer (x, n, hs, error)) == NULL)))
    ok = FALSE;
  if (ok)
    {
      a.mode = mode;
      a.reverse = spec->reverse;
      a.steps = steps;
      a.batch = batch;
      a.input_size = x->sizes[1];
      a.hidden_size = hs;
      a.proj_size = ps;
      a.batch_sizes = batch_sizes;
      a.x = dl_tensor_data (cont[IN_X]);
      a.w_ih = dl_tensor_data (cont[IN_W_IH]);
      a.w_hh = dl_tensor_data (cont[IN_W_HH]);
      a.b_ih = data_or_null (cont[IN_B_IH]);
      a.b_hh = data_or_null (cont[IN_B_HH]);
      a.w_hr = data_or_null (cont[IN_W_HR]);
      a.h0 = dl_tensor_data (cont[IN_H0]);
      a.c0 = data_or_null (cont[IN_C0]);
      a.y = dl_tensor_data (y);
      a.h_n = dl_tensor_data (hn);
      a.c_n = data_or_null (cn);
      a.gates = dl_tensor_data (bufs[0]);
      a.cells = data_or_null (bufs[1]);
      a.hprev = dl_tensor_data (bufs[2]);
      a.cprev = data_or_null (bufs[3]);
      a.m = data_or_null (bufs[4]);
      ctx->backend->rnn_forward (ctx, &a, x->dtype);
      if (dl_autograd_any_requires (N_IN, inputs))
        {
          node = dl_node_new_for_op ("RnnLayerBackward0", rnn_backward, N_IN, inputs);
          s = dl_node_alloc_state (node, sizeof (RnnState), rnn_state_clear);
          s->spec = *spec;
          s->spec.batch_sizes = g_memdup2 (batch_sizes, MAX (steps, 1) * sizeof (gint64));
          for (guint i = 0; i < N_IN; i++)
            if ((s->has[i] = inputs[i] != NULL))
              dl_node_save (node, &s->in[i], inputs[i], FALSE);
          {
            DlSavedTensor *slots[5] = { &s->gates, &s->cells, &s->hprev, &s->cprev, &s->m };
            for (guint k = 0; k < 5; k++)
              if (bufs[k])
                dl_node_save (node, slots[k], bufs[k], FALSE);
          }
          dl_node_set_output (node, y, 0);
          dl_node_set_output (node, hn, 1);
          if (cn)
            dl_node_set_output (node, cn, 2);
        }
    }
  for (guint i = 0; i < N_IN; i++)
    g_clear_object (&cont[i]);
  for (guint k = 0; k < 5; k++)
    g_clear_object (&bufs[k]);
  if (!ok)
    return NULL;
  *h_n = g_steal_pointer (&hn);
  if (c_n)
    *c_n = g_steal_pointer (&cn);
  return g_steal_pointer (&y);
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
