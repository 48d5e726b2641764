/* dl-ops-norm.c: batch, layer and group normalisation, each one fused
 * kernel forward and one node whose backward gives the input, weight and
 * bias gradients together (the backend's norm_forward / norm_backward, see
 * DlNormArgs).
 *
 * All three are one computation on the input viewed as [n, c, s]:
 *   batch norm  statistics per channel c over n * s elements
 *   group norm  per (sample, group) over c / groups * s elements
 *   layer norm  group norm with groups = 1, s = 1 and c the product of
 *               normalized_shape (its weight is per element of a row)
 * With create_graph, the backward is recorded as tensor ops on the input
 * viewed as [n, groups, c / groups, s] (batch norm: [n, c, 1, s]), the
 * statistics recomputed differentiably, so that gradients of every order
 * come out. Float16 and bfloat16 are computed in float32.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-norm.h"
#include "dl-ops-private.h"
#include "dl-node-private.h"

typedef struct
{
  DlNormKind kind;
  gint64 n, c, s, groups;
  gdouble eps;
  gboolean training;
  gboolean has_weight;
  DlSavedTensor x, weight, mean, rstd;
} NormState;

/* The statistics' dims of the [n, groups, c / groups, s] view. */
static const gint64 batch_stat_dims[] = { 0, 2, 3 };
static const gint64 group_stat_dims[] = { 2, 3 };
static const gint64 affine_dims[] = { 0, 3 };

/* (x - mean) * rstd over the view @xv, with the statistics recomputed from
 * @xv (differentiably) or, for batch norm in eval mode, the saved ones */
static DlTensor *
composite_xhat (const NormState *st, DlTensor *xv, DlTensor *mean, DlTensor *rstd, GError **error)
{
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) ve = NULL;
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) d = NULL;
  const gint64 *dims = st->kind == DL_NORM_BATCH ? batch_stat_dims : group_stat_dims;
  gsize n_dims = st->kind == DL_NORM_BATCH ? 3 : 2;

  if (!st->training)
    {
      const gint64 shape[4] = { 1, st->c, 1, 1 };

      if (!(m = dl_reshape_view (mean, shape, 4, error))
          || !(r = dl_reshape_view (rstd, shape, 4, error)))
        return NULL;
    }
  else if (!(m = dl_tensor_mean_dims (xv, dims, n_dims, TRUE, error))
           || !(v = dl_tensor_var (xv, dims, n_dims, 0, TRUE, error))
           || !(ve = dl_tensor_add_scalar (v, st->eps, error))
           || !(r = dl_tensor_rsqrt (ve, error)))
    return NULL;
  if (!(d = dl_tensor_sub (xv, m, error)))
    return NULL;
  return dl_tensor_mul (d, r, error);
}

/* The backward as tensor ops, for create_graph:
 *   dxhat = dy w,  dx = rstd (dxhat - mean dxhat - xhat mean (dxhat xhat))
 *   (eval mode: dx = rstd dxhat),  dw = sum dy xhat,  db = sum dy */
static gboolean
norm_backward_recorded (DlNode *node,
                        const NormState *st,
                        DlTensor *x,
                        DlTensor *w,
                        DlTensor *mean,
                        DlTensor *rstd,
                        DlTensor *dy,
                        DlTensor **gi,
                        GError **error)
{
  DlInputMeta *in = dl_node_data (node)->inputs;
  gint64 g = st->kind == DL_NORM_BATCH ? st->c : st->groups;
  const gint64 view[4] = { st->n, g, st->c / g, st->s };
  const gint64 wview[4] = { 1, g, st->c / g, 1 };
  const gint64 *dims = st->kind == DL_NORM_BATCH ? batch_stat_dims : group_stat_dims;
  gsize n_dims = st->kind == DL_NORM_BATCH ? 3 : 2;
  g_autoptr (DlTensor) xv = NULL;
  g_autoptr (DlTensor) dyv = NULL;
  g_autoptr (DlTensor) xhat = NULL;
  g_autoptr (DlTensor) dxhat = NULL;

  TRY (xv = dl_reshape_view (x, view, 4, error));
  TRY (dyv = dl_reshape_view (dy, view, 4, error));
  TRY (xhat = composite_xhat (st, xv, mean, rstd, error));
  if (w)
    {
      g_autoptr (DlTensor) wv = NULL;

      TRY (wv = dl_reshape_view (w, wview, 4, error));
      TRY (dxhat = dl_tensor_mul (dyv, wv, error));
    }
  else
    dxhat = g_object_ref (dyv);
  if (dl_node_needs_input_grad (node, 0))
    {
      g_autoptr (DlTensor) dx = NULL;

      if (st->training)
        {
          g_autoptr (DlTensor) m1 = NULL;
          g_autoptr (DlTensor) p = NULL;
          g_autoptr (DlTensor) m2 = NULL;
          g_autoptr (DlTensor) t = NULL;
          g_autoptr (DlTensor) d1 = NULL;
          g_autoptr (DlTensor) d2 = NULL;
          g_autoptr (DlTensor) rs = NULL;
          g_autoptr (DlTensor) v = NULL;
          g_autoptr (DlTensor) ve = NULL;

          /* rstd again, differentiably (xhat's was not kept) */
          TRY (v = dl_tensor_var (xv, dims, n_dims, 0, TRUE, error));
          TRY (ve = dl_tensor_add_scalar (v, st->eps, error));
          TRY (rs = dl_tensor_rsqrt (ve, error));
          TRY (m1 = dl_tensor_mean_dims (dxhat, dims, n_dims, TRUE, error));
          TRY (p = dl_tensor_mul (dxhat, xhat, error));
          TRY (m2 = dl_tensor_mean_dims (p, dims, n_dims, TRUE, error));
          TRY (t = dl_tensor_mul (xhat, m2, error));
          TRY (d1 = dl_tensor_sub (dxhat, m1, error));
          TRY (d2 = dl_tensor_sub (d1, t, error));
          TRY (dx = dl_tensor_mul (d2, rs, error));
        }
      else
        {
          g_autoptr (DlTensor) r = NULL;

          TRY (r = dl_reshape_view (rstd, (gint64[]){ 1, st->c, 1, 1 }, 4, error));
          TRY (dx = dl_tensor_mul (dxhat, r, error));
        }
      TRY (gi[0] = dl_reshape_view (dx, in[0].sizes, in[0].ndim, error));
    }
  if (dl_node_needs_input_grad (node, 1))
    {
      g_autoptr (DlTensor) p = NULL;
      g_autoptr (DlTensor) sum = NULL;

      TRY (p = dl_tensor_mul (dyv, xhat, error));
      TRY (sum = dl_tensor_sum_dims (p, affine_dims, 2, FALSE, error));
      TRY (gi[1] = dl_reshape_view (sum, in[1].sizes, in[1].ndim, error));
    }
  if (dl_node_needs_input_grad (node, 2))
    {
      g_autoptr (DlTensor) sum = NULL;

      TRY (sum = dl_tensor_sum_dims (dyv, affine_dims, 2, FALSE, error));
      TRY (gi[2] = dl_reshape_view (sum, in[2].sizes, in[2].ndim, error));
    }
  return TRUE;
}

static gboolean
norm_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const NormState *st = dl_node_state (node);
  DlInputMeta *in = dl_node_data (node)->inputs;
  DlTensor *x, *w = NULL, *mean, *rstd;
  g_autoptr (DlTensor) dy = NULL;
  g_autoptr (DlTensor) dyc = NULL;
  DlBackendContext *ctx;
  DlNormArgs a = { 0 };

  TRY (x = dl_node_saved (node, &st->x, error));
  if (st->has_weight)
    TRY (w = dl_node_saved (node, &st->weight, error));
  TRY (mean = dl_node_saved (node, &st->mean, error));
  TRY (rstd = dl_node_saved (node, &st->rstd, error));
  TRY (dy = dl_tensor_to_dtype (go[0], x->dtype, error));
  if (dl_is_grad_enabled ())
    return norm_backward_recorded (node, st, x, w, mean, rstd, dy, gi, error);

  TRY (ctx = DL_TENSOR_BACKEND (x, norm_backward, "norm_backward", error));
  TRY (dyc = dl_tensor_contiguous (dy, error));
  for (guint i = 0; i < 3; i++)
    if (dl_node_needs_input_grad (node, i))
      TRY (gi[i] = dl_tensor_new_empty_internal (dl_tensor_device (x), x->dtype, in[i].sizes,
                                                 in[i].ndim, error));
  a.kind = st->kind;
  a.n = st->n;
  a.c = st->c;
  a.s = st->s;
  a.groups = st->groups;
  a.eps = st->eps;
  a.training = st->training;
  a.x = dl_tensor_data (x);
  a.weight = w ? dl_tensor_data (w) : NULL;
  a.mean = dl_tensor_data (mean);
  a.rstd = dl_tensor_data (rstd);
  a.dy = dl_tensor_data (dyc);
  a.dx = gi[0] ? dl_tensor_data (gi[0]) : NULL;
  a.dweight = gi[1] ? dl_tensor_data (gi[1]) : NULL;
  a.dbias = gi[2] ? dl_tensor_data (gi[2]) : NULL;
  ctx->backend->norm_backward (ctx, &a, x->dtype);
  return TRUE;
}

/* @t (nullable) as a contiguous tensor of @dtype, recorded */
static DlTensor *
ready (DlTensor *t, DlDType dtype, GError **error)
{
  g_autoptr (DlTensor) cast = NULL;

  if (t == NULL)
    return NULL;
  if (!(cast = dl_tensor_to_dtype (t, dtype, error)))
    return NULL;
  return dl_tensor_contiguous (cast, error);
}

/* Runs the kernel on @input (of any float dtype and layout) viewed as [n, c,
 * s] and records the node. For batch norm in eval mode @mean_in and
 * @var_in are the running statistics; in training *@batch_mean and
 * *@batch_var (optional) receive the batch's mean and biased variance. */
static DlTensor *
norm_forward (const gchar *op,
              const gchar *node_name,
              DlNormKind kind,
              DlTensor *input,
              DlTensor *weight,
              DlTensor *bias,
              gint64 n,
              gint64 c,
              gint64 s,
              gint64 groups,
              gdouble eps,
              gboolean training,
              DlTensor *mean_in,
              DlTensor *var_in,
              DlTensor **batch_mean,
              DlTensor **batch_var,
              GError **error)
{
  DlDType dtype = input->dtype == DL_DTYPE_FLOAT64 ? DL_DTYPE_FLOAT64 : DL_DTYPE_FLOAT32;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) mean = NULL;
  g_autoptr (DlTensor) rstd = NULL;
  g_autoptr (DlTensor) var = NULL;
  DlBackendContext *ctx;
  DlNormArgs a = { 0 };
  gint64 n_stats = kind == DL_NORM_BATCH ? c : n * groups;
  DlTensor *inputs[3];

  for (DlTensor **t = (DlTensor *[]){ weight, bias, mean_in, var_in }, **end = t + 4; t < end; t++)
    if (*t && !dl_check_same_device (op, input, *t, error))
      return NULL;
  if (!(ctx = DL_TENSOR_BACKEND (input, norm_forward, op, error))
      || !(x = ready (input, dtype, error)) || (weight && !(w = ready (weight, dtype, error)))
      || (bias && !(b = ready (bias, dtype, error))))
    return NULL;
  if (!(y = dl_tensor_new_empty_internal (dl_tensor_device (x), dtype, x->sizes, x->ndim, error))
      || !(rstd = dl_tensor_new_empty_internal (dl_tensor_device (x), dtype, &n_stats, 1, error)))
    return NULL;
  if (kind == DL_NORM_BATCH && !training)
    {
      gboolean was = dl_set_grad_enabled (FALSE);

      mean = ready (mean_in, dtype, error);
      var = mean ? ready (var_in, dtype, error) : NULL;
      dl_set_grad_enabled (was);
      if (!var)
        return NULL;
    }
  else if (!(mean = dl_tensor_new_empty_internal (dl_tensor_device (x), dtype, &n_stats, 1, error))
           || (batch_var
               && !(var = dl_tensor_new_empty_internal (dl_tensor_device (x), dtype, &n_stats, 1,
                                                        error))))
    return NULL;
  a.kind = kind;
  a.n = n;
  a.c = c;
  a.s = s;
  a.groups = groups;
  a.eps = eps;
  a.training = training;
  a.x = dl_tensor_data (x);
  a.weight = w ? dl_tensor_data (w) : NULL;
  a.bias = b ? dl_tensor_data (b) : NULL;
  a.mean = dl_tensor_data (mean);
  a.rstd = dl_tensor_data (rstd);
  a.var = var ? dl_tensor_data (var) : NULL;
  a.y = dl_tensor_data (y);
  ctx->backend->norm_forward (ctx, &a, dtype);

  inputs[0] = x;
  inputs[1] = w;
  inputs[2] = b;
  if (dl_autograd_any_requires (3, inputs))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (node_name, norm_backward, 3, inputs);
      NormState *st = DL_NODE_NEW_STATE (node, NormState);

      st->kind = kind;
      st->n = n;
      st->c = c;
      st->s = s;
      st->groups = groups;
      st->eps = eps;
      st->training = training;
      st->has_weight = w != NULL;
      dl_node_save (node, &st->x, x, FALSE);
      if (w)
        dl_node_save (node, &st->weight, w, FALSE);
      dl_node_save (node, &st->mean, mean, FALSE);
      dl_node_save (node, &st->rstd, rstd, FALSE);
      dl_node_set_output (node, y, 0);
    }
  if (batch_mean)
    *batch_mean = g_steal_pointer (&mean);
  if (batch_var)
    *batch_var = g_steal_pointer (&var);
  if (input->dtype != dtype)
    return dl_tensor_to_dtype (y, input->dtype, error);
  return g_steal_pointer (&y);
}

/* checks that @t (nullable) has @numel elements, with PyTorch's message */
static gboolean
check_numel (const gchar *op, const gchar *what, DlTensor *t, gint64 numel, GError **error)
{
  if (t == NULL || t->numel == numel)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "%s: %s should contain %" G_GINT64_FORMAT " elements not %" G_GINT64_FORMAT, op,
               what, numel, t->numel);
  return FALSE;
}

/* running = (1 - momentum) running + momentum batch * @scale, in place
 * without recording */
static gboolean
update_running (DlTensor *running, DlTensor *batch, gdouble momentum, gdouble scale, GError **error)
{
  g_autoptr (DlTensor) t = NULL;

  if (running == NULL)
    return TRUE;
  return (t = dl_tensor_mul_scalar (batch, momentum * scale, error))
         && dl_tensor_mul_scalar_ (running, 1 - momentum, error)
         && dl_tensor_add_ (running, t, error);
}

/**
 * dl_batch_norm:
 * @input: a batch [N, C, *]
 * @running_mean: (nullable): the running mean per channel [C], updated in
 *   place in training, used in eval mode
 * @running_var: (nullable): the running variance per channel [C], as
 *   @running_mean (updated with the batch's unbiased variance)
 * @weight: (nullable): the scale per channel [C], or %NULL for 1
 * @bias: (nullable): the shift per channel [C], or %NULL for 0
 * @training: whether to normalise with the batch's statistics (and update
 *   the running ones) rather than the running ones
 * @momentum: the weight of the batch's statistics in the running ones:
 *   running = (1 - momentum) running + momentum batch
 * @eps: added to the variance
 * @error: return location for a #GError
 *
 * Batch normalisation, as torch.nn.functional.batch_norm(): each channel
 * normalised over the batch and the other dims, y = (x - mean) / sqrt (var
 * + eps) * weight + bias. One fused kernel; differentiable in @input,
 * @weight and @bias, with gradients of every order.
 *
 * Returns: (transfer full): the normalised batch, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_batch_norm (DlTensor *input,
               DlTensor *running_mean,
               DlTensor *running_var,
               DlTensor *weight,
               DlTensor *bias,
               gboolean training,
               gdouble momentum,
               gdouble eps,
               GError **error)
{
  g_autoptr (DlTensor) bm = NULL;
  g_autoptr (DlTensor) bv = NULL;
  g_autoptr (DlTensor) y = NULL;
  gint64 n, c, s = 1;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (running_mean == NULL || DL_IS_TENSOR (running_mean), NULL);
  g_return_val_if_fail (running_var == NULL || DL_IS_TENSOR (running_var), NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  if (!dl_check_float_dtype ("batch_norm", input, error))
    return NULL;
  if (input->ndim < 2)
    {
      g_autofree gchar *shape = dl_shape_to_string (input->sizes, input->ndim);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "batch_norm: expected an input [N, C, *] of at least 2 dims, got %s", shape);
      return NULL;
    }
  n = input->sizes[0];
  c = input->sizes[1];
  for (gint i = 2; i < input->ndim; i++)
    s *= input->sizes[i];
  if (!check_numel ("batch_norm", "running_mean", running_mean, c, error)
      || !check_numel ("batch_norm", "running_var", running_var, c, error)
      || !check_numel ("batch_norm", "weight", weight, c, error)
      || !check_numel ("batch_norm", "bias", bias, c, error))
    return NULL;
  if (!training && (running_mean == NULL || running_var == NULL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "batch_norm: running_mean and running_var must be defined in evaluation mode");
      return NULL;
    }
  if (training && n * s == 1)
    {
      g_autofree gchar *shape = dl_shape_to_string (input->sizes, input->ndim);

      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "batch_norm: Expected more than 1 value per channel when training, got input "
                   "size %s",
                   shape);
      return NULL;
    }
  if (!(y = norm_forward ("batch_norm", "NativeBatchNormBackward0", DL_NORM_BATCH, input, weight,
                          bias, n, c, s, c, eps, training, running_mean, running_var,
                          training ? &bm : NULL, training ? &bv : NULL, error)))
    return NULL;
  if (training && (running_mean || running_var) && n * s > 0)
    {
      gboolean was = dl_set_grad_enabled (FALSE);
      gboolean ok = update_running (running_mean, bm, momentum, 1, error)
                    && update_running (running_var, bv, momentum,
                                       (gdouble)(n * s) / (gdouble)(n * s - 1), error);

      dl_set_grad_enabled (was);
      if (!ok)
        return NULL;
    }
  return g_steal_pointer (&y);
}

/**
 * dl_layer_norm:
 * @input: a tensor whose last dims are @normalized_shape
 * @normalized_shape: (array length=n_normalized): the trailing dims
 *   normalised together
 * @n_normalized: the length of @normalized_shape (at least 1)
 * @weight: (nullable): the scale, of shape @normalized_shape, or %NULL
 *   for 1
 * @bias: (nullable): the shift, of shape @normalized_shape, or %NULL for 0
 * @eps: added to the variance
 * @error: return location for a #GError
 *
 * Layer normalisation, as torch.nn.functional.layer_norm(): each row of
 * the trailing @normalized_shape dims normalised with its own mean and
 * (biased) variance, then scaled and shifted elementwise. One fused
 * kernel; differentiable in @input, @weight and @bias, with gradients of
 * every order.
 *
 * Returns: (transfer full): the normalised tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_layer_norm (DlTensor *input,
               const gint64 *normalized_shape,
               gsize n_normalized,
               DlTensor *weight,
               DlTensor *bias,
               gdouble eps,
               GError **error)
{
  g_autofree gchar *norm = NULL;
  gint64 rows = 1, k = 1;
  gint lead;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (normalized_shape != NULL || n_normalized == 0, NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  if (!dl_check_float_dtype ("layer_norm", input, error))
    return NULL;
  norm = dl_shape_to_string (normalized_shape, n_normalized);
  if (n_normalized < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "layer_norm: Expected normalized_shape to be at least 1-dimensional, i.e., "
                   "containing at least one element, but got normalized_shape = []");
      return NULL;
    }
  lead = input->ndim - (gint)n_normalized;
  for (gsize i = 0; lead >= 0 && i < n_normalized; i++)
    if (input->sizes[lead + i] != normalized_shape[i])
      lead = -1;
  if (lead < 0)
    {
      g_autofree gchar *shape = dl_shape_to_string (input->sizes, input->ndim);
      g_autofree gchar *inner = g_strndup (norm + 1, strlen (norm) - 2);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "layer_norm: Given normalized_shape=%s, expected input with shape [*, %s], but "
                   "got input of size%s",
                   norm, inner, shape);
      return NULL;
    }
  for (gint i = 0; i < 2; i++)
    {
      DlTensor *t = i == 0 ? weight : bias;
      gboolean same = t && t->ndim == (gint)n_normalized;

      for (gsize j = 0; same && j < n_normalized; j++)
        same = t->sizes[j] == normalized_shape[j];
      if (t && !same)
        {
          g_autofree gchar *shape = dl_shape_to_string (t->sizes, t->ndim);

          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "layer_norm: Expected %s to be of same shape as normalized_shape, but got "
                       "%s of shape %s and normalized_shape = %s",
                       i == 0 ? "weight" : "bias", i == 0 ? "weight" : "bias", shape, norm);
          return NULL;
        }
    }
  for (gint i = 0; i < lead; i++)
    rows *= input->sizes[i];
  for (gsize i = 0; i < n_normalized; i++)
    k *= normalized_shape[i];
  return norm_forward ("layer_norm", "NativeLayerNormBackward0", DL_NORM_GROUP, input, weight, bias,
                       rows, k, 1, 1, eps, TRUE, NULL, NULL, NULL, NULL, error);
}

/**
 * dl_group_norm:
 * @input: a batch [N, C, *]
 * @num_groups: the number of groups the C channels are split into; it
 *   divides C
 * @weight: (nullable): the scale per channel [C], or %NULL for 1
 * @bias: (nullable): the shift per channel [C], or %NULL for 0
 * @eps: added to the variance
 * @error: return location for a #GError
 *
 * Group normalisation, as torch.nn.functional.group_norm(): each sample's
 * channels split into @num_groups groups, each group normalised with its
 * own mean and (biased) variance, then scaled and shifted per channel. One
 * fused kernel; differentiable in @input, @weight and @bias, with
 * gradients of every order.
 *
 * Returns: (transfer full): the normalised batch, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_group_norm (DlTensor *input,
               gint64 num_groups,
               DlTensor *weight,
               DlTensor *bias,
               gdouble eps,
               GError **error)
{
  g_autofree gchar *shape = NULL;
  gint64 n, c, s = 1;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  if (!dl_check_float_dtype ("group_norm", input, error))
    return NULL;
  shape = dl_shape_to_string (input->sizes, input->ndim);
  if (input->ndim < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "group_norm: Expected at least 2 dimensions for input tensor but received %d",
                   input->ndim);
      return NULL;
    }
  n = input->sizes[0];
  c = input->sizes[1];
  for (gint i = 2; i < input->ndim; i++)
    s *= input->sizes[i];
  if (num_groups <= 0 || c % num_groups != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "group_norm: Expected number of channels in input to be divisible by "
                   "num_groups, but got input of shape %s and num_groups=%" G_GINT64_FORMAT,
                   shape, num_groups);
      return NULL;
    }
  for (gint i = 0; i < 2; i++)
    {
      DlTensor *t = i == 0 ? weight : bias;

      if (t && (t->ndim != 1 || t->numel != c))
        {
          g_autofree gchar *ts = dl_shape_to_string (t->sizes, t->ndim);

          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "group_norm: Expected %s to be a vector of size equal to the number of "
                       "channels in input, but got %s of shape %s and input of shape %s",
                       i == 0 ? "weight" : "bias", i == 0 ? "weight" : "bias", ts, shape);
          return NULL;
        }
    }
  return norm_forward ("group_norm", "NativeGroupNormBackward0", DL_NORM_GROUP, input, weight, bias,
                       n, c, s, num_groups, eps, TRUE, NULL, NULL, NULL, NULL, error);
}
