/* dl-ops-attention.c: scaled dot product attention, one fused op.
 *
 *   out = dropout (softmax (scale query key^T + mask)) value
 *
 * over the last two dims, the leading (batch) dims broadcast. The forward
 * and the backward are the backend's attention kernels (FlashAttention:
 * no [L, S] matrix, only the output and each row's logsumexp kept for the
 * backward, which recomputes the probabilities block by block). A
 * backward that create_graph records (grad mode on) computes the same
 * gradients with differentiable ops instead (attention_backward_composite),
 * so gradients of every order exist. Dropout draws from a counter-based
 * stream (Philox, see DlAttentionArgs), so the backward regenerates the
 * forward's mask without storing it. Float16 and bfloat16 are computed in
 * float32.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-ops-attention.h"
#include "dl-ops-private.h"
#include "dl-generator-private.h"

#define OP "scaled_dot_product_attention"

typedef struct
{
  DlSavedTensor q, k, v, mask, out, lse;
  gdouble scale, dropout_p;
  gboolean causal;
  guint64 seed, offset;
} AttentionState;

/* @t with a contiguous last dim and rows at least a row apart, as the
 * kernels' GEMMs need (a new reference: @t itself or a contiguous copy) */
static DlTensor *
rows_ready (DlTensor *t, GError **error)
{
  const gint n = t->ndim;

  if ((t->sizes[n - 1] > 1 && t->strides[n - 1] != 1)
      || (t->sizes[n - 2] > 1 && t->strides[n - 2] < t->sizes[n - 1]))
    return dl_tensor_contiguous (t, error);
  return g_object_ref (t);
}

/* the element strides of @t's dims aligned to the right of @ndim dims (0
 * where @t has no such dim or broadcasts it) */
static void
aligned_strides (DlTensor *t, gint ndim, gint64 *strides)
{
  for (gint d = 0; d < ndim; d++)
    {
      gint td = d - (ndim - t->ndim);
      strides[d] = td < 0 || t->sizes[td] == 1 ? 0 : t->strides[td];
    }
}

/* the row stride of a [rows, cols] matrix of @t for BLAS (at least cols) */
static gint64
row_stride (DlTensor *t)
{
  gint n = t->ndim;
  return t->sizes[n - 2] > 1 ? t->strides[n - 2] : MAX (t->sizes[n - 1], 1);
}

/* Fills @a from the (rows_ready) inputs over the batch shape @batch. */
static void
fill_args (DlAttentionArgs *a,
           DlTensor *q,
           DlTensor *k,
           DlTensor *v,
           DlTensor *mask,
           const gint64 *batch,
           gint bnd)
{
  gint64 ms[DL_MAX_DIMS + 2];

  memset (a, 0, sizeof *a);
  a->batch_ndim = bnd;
  a->n_batch = 1;
  for (gint d = 0; d < bnd; d++)
    {
      a->batch_shape[d] = batch[d];
      a->n_batch *= batch[d];
    }
  a->l = q->sizes[q->ndim - 2];
  a->s = k->sizes[k->ndim - 2];
  a->e = q->sizes[q->ndim - 1];
  a->ev = v->sizes[v->ndim - 1];
  a->q = dl_tensor_data (q);
  a->k = dl_tensor_data (k);
  a->v = dl_tensor_data (v);
  /* the batch dims of each: its dims but the last two */
  {
    DlTensor *ts[3] = { q, k, v };
    gint64 *bs[3] = { a->q_bs, a->k_bs, a->v_bs };

    for (gint i = 0; i < 3; i++)
      {
        aligned_strides (ts[i], bnd + 2, ms);
        memcpy (bs[i], ms, bnd * sizeof (gint64));
      }
  }
  a->q_rs = row_stride (q);
  a->k_rs = row_stride (k);
  a->v_rs = row_stride (v);
  if (mask)
    {
      a->mask = dl_tensor_data (mask);
      a->mask_is_bool = mask->dtype == DL_DTYPE_BOOL;
      aligned_strides (mask, bnd + 2, ms);
      memcpy (a->mask_bs, ms, bnd * sizeof (gint64));
      a->mask_rs = ms[bnd];
      a->mask_cs = ms[bnd + 1];
    }
}

/* The batch shape of the saved inputs (broadcast; checked by the forward). */
static gint
batch_shape (DlTensor *q, DlTensor *k, DlTensor *v, gint64 *batch)
{
  gint64 tmp[DL_MAX_DIMS];
  gint n = 0, m = 0;

  dl_broadcast_shapes (OP, q->sizes, q->ndim - 2, k->sizes, k->ndim - 2, tmp, &n, NULL);
  dl_broadcast_shapes (OP, tmp, n, v->sizes, v->ndim - 2, batch, &m, NULL);
  return m;
}

static DlTensor *
shape_with (const gint64 *batch,
            gint bnd,
            gint64 r,
            gint64 c,
            DlDType dtype,
            DlDevice *device,
            gint extra,
            GError **error)
{
  gint64 shape[DL_MAX_DIMS + 2];

  memcpy (shape, batch, bnd * sizeof (gint64));
  shape[bnd] = r;
  shape[bnd + 1] = c;
  return dl_tensor_new_empty_internal (device, dtype, shape, bnd + extra, error);
}

/* The additive mask of the scores (no history): a float mask itself, a
 * bool one as 0 / -inf, the causal one as -inf above the diagonal; NULL
 * (and no error) without one. */
static DlTensor *
additive_mask (DlTensor *mask,
               gboolean causal,
               gint64 l,
               gint64 s,
               DlDType dtype,
               DlDevice *device,
               GError **error)
{
  if (causal)
    {
      g_autoptr (DlTensor) inf = dl_full ((gint64[]){ l, s }, 2, -INFINITY, dtype, device, error);
      return inf ? dl_tensor_triu (inf, 1, error) : NULL;
    }
  if (mask && mask->dtype == DL_DTYPE_BOOL)
    {
      g_autoptr (DlTensor) not = dl_tensor_logical_not (mask, error);
      g_autoptr (DlTensor) zeros
          = not ? dl_zeros (mask->sizes, mask->ndim, dtype, device, error) : NULL;
      return zeros ? dl_tensor_masked_fill (zeros, not, -INFINITY, error) : NULL;
    }
  return mask ? g_object_ref (mask) : NULL;
}

/* the gradients with differentiable ops (for create_graph):
 *   P = softmax (scale q k^T + mask),  Pd = P o Z (dropout scales)
 *   dv = Pd^T dO,  dP = (dO v^T) o Z,  dS = P o (dP - rowsum (P o dP))
 *   dq = scale dS k,  dk = scale dS^T q,  dmask = dS */
static gboolean
attention_backward_composite (const AttentionState *st,
                              DlTensor *q,
                              DlTensor *k,
                              DlTensor *v,
                              DlTensor *mask,
                              DlTensor *zmask,
                              DlTensor *go,
                              const gboolean *need,
                              DlTensor **gi,
                              GError **error)
{
  const gint64 l = q->sizes[q->ndim - 2], s = k->sizes[k->ndim - 2];
  g_autoptr (DlTensor) kt = NULL;
  g_autoptr (DlTensor) qk = NULL;
  g_autoptr (DlTensor) scores = NULL;
  g_autoptr (DlTensor) bias = NULL;
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) vt = NULL;
  g_autoptr (DlTensor) dpd = NULL;
  g_autoptr (DlTensor) dp = NULL;
  g_autoptr (DlTensor) pdp = NULL;
  g_autoptr (DlTensor) d = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) ds = NULL;
  g_autoptr (DlTensor) dss = NULL;

  TRY (kt = dl_tensor_transpose (k, -2, -1, error));
  TRY (qk = dl_tensor_matmul (q, kt, error));
  TRY (scores = dl_tensor_mul_scalar (qk, st->scale, error));
  if (!(bias = additive_mask (mask, st->causal, l, s, q->dtype, dl_tensor_get_device (q), error))
      && error && *error)
    return FALSE;
  if (bias)
    {
      DlTensor *sum = dl_tensor_add (scores, bias, error);
      TRY (sum);
      g_object_unref (scores);
      scores = sum;
    }
  TRY (p = dl_tensor_softmax (scores, -1, error));
  if (need[2])
    {
      g_autoptr (DlTensor) pd = zmask ? dl_tensor_mul (p, zmask, error) : g_object_ref (p);
      g_autoptr (DlTensor) pdt = pd ? dl_tensor_transpose (pd, -2, -1, error) : NULL;
      TRY (pdt && (gi[2] = dl_tensor_matmul (pdt, go, error)));
    }
  if (!need[0] && !need[1] && !need[3])
    return TRUE;
  TRY (vt = dl_tensor_transpose (v, -2, -1, error));
  TRY (dpd = dl_tensor_matmul (go, vt, error));
  TRY (dp = zmask ? dl_tensor_mul (dpd, zmask, error) : g_object_ref (dpd));
  TRY (pdp = dl_tensor_mul (p, dp, error));
  TRY (d = dl_tensor_sum_dims (pdp, (gint64[]){ -1 }, 1, TRUE, error));
  TRY (diff = dl_tensor_sub (dp, d, error));
  TRY (ds = dl_tensor_mul (p, diff, error));
  TRY (dss = dl_tensor_mul_scalar (ds, st->scale, error));
  if (need[0])
    TRY (gi[0] = dl_tensor_matmul (dss, k, error));
  if (need[1])
    {
      g_autoptr (DlTensor) dst = dl_tensor_transpose (dss, -2, -1, error);
      TRY (dst && (gi[1] = dl_tensor_matmul (dst, q, error)));
    }
  if (need[3])
    gi[3] = g_object_ref (ds);
  return TRUE;
}

static gboolean
attention_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const AttentionState *st = dl_node_state (node);
  const gboolean need[4]
      = { dl_node_needs_input_grad (node, 0), dl_node_needs_input_grad (node, 1),
          dl_node_needs_input_grad (node, 2), dl_node_needs_input_grad (node, 3) };
  g_autoptr (DlTensor) qr = NULL;
  g_autoptr (DlTensor) kr = NULL;
  g_autoptr (DlTensor) vr = NULL;
  g_autoptr (DlTensor) gc = NULL;
  g_autoptr (DlTensor) zmask = NULL;
  DlTensor *q, *k, *v, *mask = NULL, *out, *lse;
  DlBackendContext *ctx;
  DlAttentionArgs a;
  gint64 batch[DL_MAX_DIMS];
  gint bnd;

  TRY (q = dl_node_saved (node, &st->q, error));
  TRY (k = dl_node_saved (node, &st->k, error));
  TRY (v = dl_node_saved (node, &st->v, error));
  if (st->mask.tensor)
    TRY (mask = dl_node_saved (node, &st->mask, error));
  bnd = batch_shape (q, k, v, batch);
  ctx = dl_tensor_context (q);
  if (dl_is_grad_enabled ())
    {
      if (st->dropout_p > 0)
        {
          fill_args (&a, q, k, v, NULL, batch, bnd);
          a.dropout_p = st->dropout_p;
          a.seed = st->seed;
          a.offset = st->offset;
          TRY (zmask = shape_with (batch, bnd, a.l, a.s, q->dtype, dl_tensor_device (q), 2, error));
          if (zmask->numel > 0)
            ctx->backend->attention_dropout_mask (ctx, &a, dl_tensor_data (zmask), q->dtype);
        }
      return attention_backward_composite (st, q, k, v, mask, zmask, go[0], need, gi, error);
    }
  TRY (out = dl_node_saved (node, &st->out, error));
  TRY (lse = dl_node_saved (node, &st->lse, error));
  TRY (qr = rows_ready (q, error));
  TRY (kr = rows_ready (k, error));
  TRY (vr = rows_ready (v, error));
  TRY (gc = dl_tensor_contiguous (go[0], error));
  fill_args (&a, qr, kr, vr, mask, batch, bnd);
  a.causal = st->causal;
  a.scale = st->scale;
  a.dropout_p = st->dropout_p;
  a.seed = st->seed;
  a.offset = st->offset;
  a.out = dl_tensor_data (out);
  a.lse = dl_tensor_data (lse);
  a.dout = dl_tensor_data (gc);
  if (need[0])
    TRY (gi[0] = shape_with (batch, bnd, a.l, a.e, q->dtype, dl_tensor_device (q), 2, error));
  if (need[1])
    TRY (gi[1] = shape_with (batch, bnd, a.s, a.e, q->dtype, dl_tensor_device (q), 2, error));
  if (need[2])
    TRY (gi[2] = shape_with (batch, bnd, a.s, a.ev, q->dtype, dl_tensor_device (q), 2, error));
  if (need[3])
    TRY (gi[3] = shape_with (batch, bnd, a.l, a.s, q->dtype, dl_tensor_device (q), 2, error));
  a.dq = gi[0] ? dl_tensor_data (gi[0]) : NULL;
  a.dk = gi[1] ? dl_tensor_data (gi[1]) : NULL;
  a.dv = gi[2] ? dl_tensor_data (gi[2]) : NULL;
  a.dmask = gi[3] ? dl_tensor_data (gi[3]) : NULL;
  if (a.n_batch > 0)
    ctx->backend->attention_backward (ctx, &a, q->dtype);
  return TRUE;
}

/* Checks the shapes and dtypes; sets the broadcast batch shape. */
static gboolean
check_inputs (DlTensor *q,
              DlTensor *k,
              DlTensor *v,
              DlTensor *mask,
              gdouble dropout_p,
              gboolean is_causal,
              gint64 *batch,
              gint *bnd,
              GError **error)
{
  g_autofree gchar *qs = dl_shape_to_string (q->sizes, q->ndim);
  g_autofree gchar *ks = dl_shape_to_string (k->sizes, k->ndim);
  g_autofree gchar *vs = dl_shape_to_string (v->sizes, v->ndim);
  gint64 tmp[DL_MAX_DIMS];
  gint n;

  if (q->ndim < 2 || k->ndim < 2 || v->ndim < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   OP ": query, key and value must have at least 2 dims, but got query %s, key "
                      "%s and value %s",
                   qs, ks, vs);
      return FALSE;
    }
  if (q->dtype != k->dtype || q->dtype != v->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   OP ": Expected query, key, and value to have the same dtype, but got "
                      "query.dtype: %s key.dtype: %s and value.dtype: %s instead.",
                   dl_dtype_get_name (q->dtype), dl_dtype_get_name (k->dtype),
                   dl_dtype_get_name (v->dtype));
      return FALSE;
    }
  if (!dl_check_float_dtype (OP, q, error))
    return FALSE;
  if (!dl_check_same_device (OP, q, k, error) || !dl_check_same_device (OP, q, v, error)
      || (mask && !dl_check_same_device (OP, q, mask, error)))
    return FALSE;
  if (q->sizes[q->ndim - 1] != k->sizes[k->ndim - 1])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   OP ": query %s and key %s: embedding dims %" G_GINT64_FORMAT
                      " and %" G_GINT64_FORMAT " differ",
                   qs, ks, q->sizes[q->ndim - 1], k->sizes[k->ndim - 1]);
      return FALSE;
    }
  if (k->sizes[k->ndim - 2] != v->sizes[v->ndim - 2])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   OP ": key %s and value %s: sequence lengths %" G_GINT64_FORMAT
                      " and %" G_GINT64_FORMAT " differ",
                   ks, vs, k->sizes[k->ndim - 2], v->sizes[v->ndim - 2]);
      return FALSE;
    }
  if (!dl_broadcast_shapes (OP, q->sizes, q->ndim - 2, k->sizes, k->ndim - 2, tmp, &n, NULL)
      || !dl_broadcast_shapes (OP, tmp, n, v->sizes, v->ndim - 2, batch, bnd, NULL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   OP ": the batch dims of query %s, key %s and value %s do not broadcast", qs, ks,
                   vs);
      return FALSE;
    }
  if (mask && is_causal)
    {
      g_set_error_literal (error, DL_ERROR, DL_ERROR_ARGUMENT,
                           OP ": Explicit attn_mask should not be set when is_causal=True");
      return FALSE;
    }
  if (mask && mask->dtype != DL_DTYPE_BOOL && mask->dtype != q->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   OP ": Expected attn_mask dtype to be bool or to match query dtype, but got "
                      "attn_mask.dtype: %s and query.dtype: %s instead.",
                   dl_dtype_get_name (mask->dtype), dl_dtype_get_name (q->dtype));
      return FALSE;
    }
  if (mask)
    {
      const gint nd = *bnd + 2;
      gint64 want[DL_MAX_DIMS + 2];
      gboolean ok = mask->ndim <= nd;

      memcpy (want, batch, *bnd * sizeof (gint64));
      want[*bnd] = q->sizes[q->ndim - 2];
      want[*bnd + 1] = k->sizes[k->ndim - 2];
      for (gint d = 0; ok && d < mask->ndim; d++)
        {
          gint64 md = mask->sizes[mask->ndim - 1 - d], wd = want[nd - 1 - d];
          ok = md == 1 || md == wd;
        }
      if (!ok)
        {
          g_autofree gchar *ms = dl_shape_to_string (mask->sizes, mask->ndim);
          g_autofree gchar *ws = dl_shape_to_string (want, nd);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       OP ": attn_mask of shape %s does not broadcast to the scores' shape %s "
                          "(query %s, key %s)",
                       ms, ws, qs, ks);
          return FALSE;
        }
    }
  if (!(dropout_p >= 0 && dropout_p <= 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   OP ": dropout probability has to be between 0 and 1, but got %g", dropout_p);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_scaled_dot_product_attention:
 * @query: queries [..., L, E]
 * @key: keys [..., S, E]
 * @value: values [..., S, Ev]
 * @attn_mask: (nullable): a bool mask (%TRUE where a query may attend a
 *   key) or a float mask of @query's dtype added to the scores,
 *   broadcastable to [..., L, S]
 * @dropout_p: the probability of dropping an attention weight (the others
 *   are scaled by 1 / (1 - @dropout_p)); 0 for none
 * @is_causal: whether query i attends keys j <= i only (a lower-triangular
 *   mask aligned to the top left); not with @attn_mask
 * @scale: the factor of the scores, or 0 for 1 / sqrt (E)
 * @generator: (nullable): where dropout's random numbers come from (the
 *   device's default generator when %NULL)
 * @error: return location for a #GError
 *
 * Attention as torch.nn.functional.scaled_dot_product_attention() (PyTorch
 * 2) computes it: softmax (@scale @query @key^T + mask) @value, the leading
 * dims of the three broadcast. Computed by a fused kernel that makes no
 * [L, S] matrix; a row with no key to attend gives NaN, as the softmax of
 * all -inf does. Differentiable in @query, @key, @value and a float
 * @attn_mask, with gradients of every order. Dropout's numbers are libdl's
 * stream, not PyTorch's.
 *
 * Returns: (transfer full): the output [..., L, Ev], or %NULL with @error
 *   set
 *
 * Since: 0.1
 */
DlTensor *
dl_scaled_dot_product_attention (DlTensor *query,
                                 DlTensor *key,
                                 DlTensor *value,
                                 DlTensor *attn_mask,
                                 gdouble dropout_p,
                                 gboolean is_causal,
                                 gdouble scale,
                                 DlGenerator *generator,
                                 GError **error)
{
  g_autoptr (DlTensor) qr = NULL;
  g_autoptr (DlTensor) kr = NULL;
  g_autoptr (DlTensor) vr = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) lse = NULL;
  DlTensor *mask = attn_mask;
  DlBackendContext *ctx;
  DlAttentionArgs a;
  gint64 batch[DL_MAX_DIMS];
  gint bnd = 0;

  g_return_val_if_fail (DL_IS_TENSOR (query), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (key), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (value), NULL);
  g_return_val_if_fail (attn_mask == NULL || DL_IS_TENSOR (attn_mask), NULL);
  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  if (!check_inputs (query, key, value, mask, dropout_p, is_causal, batch, &bnd, error))
    return NULL;
  if (generator && !dl_device_equal (dl_generator_get_device (generator), dl_tensor_device (query)))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   OP ": expected a generator on device %s, but got one on %s",
                   dl_device_get_name (dl_tensor_device (query)),
                   dl_device_get_name (dl_generator_get_device (generator)));
      return NULL;
    }
  if (query->dtype == DL_DTYPE_FLOAT16 || query->dtype == DL_DTYPE_BFLOAT16)
    {
      g_autoptr (DlTensor) q32 = dl_tensor_to_dtype (query, DL_DTYPE_FLOAT32, error);
      g_autoptr (DlTensor) k32 = q32 ? dl_tensor_to_dtype (key, DL_DTYPE_FLOAT32, error) : NULL;
      g_autoptr (DlTensor) v32 = k32 ? dl_tensor_to_dtype (value, DL_DTYPE_FLOAT32, error) : NULL;
      g_autoptr (DlTensor) m32 = NULL;
      g_autoptr (DlTensor) r = NULL;

      if (!v32)
        return NULL;
      if (mask && mask->dtype != DL_DTYPE_BOOL
          && !(m32 = dl_tensor_to_dtype (mask, DL_DTYPE_FLOAT32, error)))
        return NULL;
      r = dl_scaled_dot_product_attention (q32, k32, v32, m32 ? m32 : mask, dropout_p, is_causal,
                                           scale, generator, error);
      return r ? dl_tensor_to_dtype (r, query->dtype, error) : NULL;
    }
  if (!(ctx = DL_TENSOR_BACKEND (query, attention_forward, OP, error))
      || !(qr = rows_ready (query, error)) || !(kr = rows_ready (key, error))
      || !(vr = rows_ready (value, error)))
    return NULL;
  fill_args (&a, qr, kr, vr, mask, batch, bnd);
  a.causal = is_causal;
  a.scale = scale != 0 ? scale : 1.0 / sqrt ((gdouble)a.e);
  a.dropout_p = dropout_p;
  if (!(out = shape_with (batch, bnd, a.l, a.ev, query->dtype, dl_tensor_device (query), 2, error))
      || !(lse = shape_with (batch, bnd, a.l, 1, query->dtype, dl_tensor_device (query), 1, error)))
    return NULL;
  if (dropout_p > 0)
    dl_generator_reserve (generator, dl_tensor_device (query),
                          (guint64)a.n_batch * a.l * ((a.s + 3) / 4), &a.seed, &a.offset);
  a.out = dl_tensor_data (out);
  a.lse = dl_tensor_data (lse);
  if (a.n_batch * a.l > 0)
    ctx->backend->attention_forward (ctx, &a, query->dtype);
  {
    DlTensor *inputs[4] = { query, key, value, mask && mask->dtype != DL_DTYPE_BOOL ? mask : NULL };

    if (dl_autograd_any_requires (4, inputs))
      {
        g_autoptr (DlNode) node = NULL;
        AttentionState *st;

        if (!ctx->backend->attention_backward || !ctx->backend->attention_dropout_mask)
          {
            dl_backend_not_supported (query, OP, "attention_backward", error);
            return NULL;
          }
        node = dl_node_new_for_op ("ScaledDotProductFlashAttentionBackward0", attention_backward, 4,
                                   inputs);
        st = dl_node_alloc_state (node, sizeof (AttentionState), NULL);
        st->scale = a.scale;
        st->dropout_p = dropout_p;
        st->causal = is_causal;
        st->seed = a.seed;
        st->offset = a.offset;
        dl_node_save (node, &st->q, query, FALSE);
        dl_node_save (node, &st->k, key, FALSE);
        dl_node_save (node, &st->v, value, FALSE);
        if (mask)
          dl_node_save (node, &st->mask, mask, FALSE);
        dl_node_save (node, &st->lse, lse, FALSE);
        dl_node_save (node, &st->out, out, TRUE);
        dl_node_set_output (node, out, 0);
      }
  }
  return g_steal_pointer (&out);
}
