/* dl-ops-math-clamp.c: clamp and its forms (clamp_min, clamp_max, number
 * bounds, in place): one ternary kernel pass where the bounds allow, the
 * composite of maximum and minimum otherwise, and the node torch records
 * for each form. The other ops of dl-ops-math.h: dl-ops-math.c.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-ops-pointwise-private.h"

/* The node's inputs are self, then min and max where given. */
typedef struct
{
  gboolean has_min, has_max;
  DlSavedTensor x, min, max;
} ClampState;

static gboolean
clamp_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const ClampState *s = dl_node_state (node);
  gboolean has_min = s->has_min, has_max = s->has_max;
  DlTensor *g = go[0], *x, *mn = NULL, *mx = NULL;
  guint imax = has_min ? 2 : 1;

  TRY (x = dl_node_saved (node, &s->x, error));
  if (has_min)
    TRY (mn = dl_node_saved (node, &s->min, error));
  if (has_max)
    TRY (mx = dl_node_saved (node, &s->max, error));

  if (dl_node_needs_input_grad (node, 0))
    {
      g_autoptr (DlTensor) m = NULL;
      g_autoptr (DlTensor) t = NULL;

      if (has_min && has_max)
        {
          g_autoptr (DlTensor) ge = dl_tensor_ge (x, mn, error);
          g_autoptr (DlTensor) le = ge ? dl_tensor_le (x, mx, error) : NULL;
          TRY (le);
          TRY (m = dl_tensor_logical_and (ge, le, error));
        }
      else if (has_min)
        TRY (m = dl_tensor_ge (x, mn, error));
      else
        TRY (m = dl_tensor_le (x, mx, error));
      TRY (t = dl_pointwise_mul_mask (g, g_steal_pointer (&m), error));
      TRY (gi[0] = dl_sum_to (t, d->inputs[0].sizes, d->inputs[0].ndim, error));
    }
  if (has_min && dl_node_needs_input_grad (node, 1))
    {
      g_autoptr (DlTensor) m = dl_tensor_lt (x, mn, error);
      g_autoptr (DlTensor) t = NULL;

      TRY (m);
      if (has_max)
        {
          g_autoptr (DlTensor) ok = dl_tensor_lt (mn, mx, error);
          g_autoptr (DlTensor) both = ok ? dl_tensor_logical_and (m, ok, error) : NULL;
          TRY (both);
          g_set_object (&m, both);
        }
      TRY (t = dl_pointwise_mul_mask (g, g_steal_pointer (&m), error));
      TRY (gi[1] = dl_sum_to (t, d->inputs[1].sizes, d->inputs[1].ndim, error));
    }
  if (has_max && dl_node_needs_input_grad (node, imax))
    {
      g_autoptr (DlTensor) m = dl_tensor_gt (x, mx, error);
      g_autoptr (DlTensor) t = NULL;

      TRY (m);
      if (has_min)
        {
          g_autoptr (DlTensor) bad = dl_tensor_lt (mx, mn, error);
          g_autoptr (DlTensor) either = bad ? dl_tensor_logical_or (m, bad, error) : NULL;
          TRY (either);
          g_set_object (&m, either);
        }
      TRY (t = dl_pointwise_mul_mask (g, g_steal_pointer (&m), error));
      TRY (gi[imax] = dl_sum_to (t, d->inputs[imax].sizes, d->inputs[imax].ndim, error));
    }
  return TRUE;
}

/* A bound for the fused clamp: @bound as a tensor of @self's dtype on its
 * device (a number converted as the composite's cast does), or @fill for a
 * missing bound; NULL where the fused kernel would not give the
 * composite's result (another dtype, another device, a bound that
 * broadcasts self to a larger shape). */
static DlTensor *
clamp_bound (DlTensor *self, DlTensor *bound, gdouble fill)
{
  gint64 shape[DL_MAX_DIMS];
  gint nd;

  if (bound == NULL || bound->is_wrapped_number)
    {
      gdouble v = fill;

      if (bound && dl_tensor_device (bound) == dl_tensor_device (self))
        v = dl_tensor_item (bound, NULL);
      else if (bound)
        return NULL;
      return dl_full (NULL, 0, v, self->dtype, dl_tensor_device (self), NULL);
    }
  if (bound->dtype != self->dtype || dl_tensor_device (bound) != dl_tensor_device (self)
      || !dl_broadcast_shapes ("clamp", self->sizes, self->ndim, bound->sizes, bound->ndim, shape,
                               &nd, NULL)
      || nd != self->ndim || memcmp (shape, self->sizes, nd * sizeof (gint64)) != 0)
    return NULL;
  return g_object_ref (bound);
}

/* clamp in one ternary kernel, for a floating-point @self with bounds of
 * its dtype (numbers or tensors) that do not change its shape: the bits,
 * dtype and layout of the composite maximum-then-minimum, into @into (in
 * place, @self's dtype and shape) or a new tensor; NULL (without an error)
 * when the fused kernel does not apply */
static DlTensor *
clamp_fused (DlTensor *self, DlTensor *min, DlTensor *max, DlTensor *into, GError **error)
{
  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) hi = NULL;
  DlBackendContext *ctx = dl_tensor_context (self);
  const gdouble unused = 0;
  DlTensor *out;
  DlIter iter;

  if (!dl_dtype_is_float (self->dtype) || ctx->backend->ternary == NULL
      || !(lo = clamp_bound (self, min, -INFINITY)) || !(hi = clamp_bound (self, max, INFINITY)))
    return NULL;
  out = into;
  if (!out && !(out = dl_empty_like_layout (self, self->dtype, self->sizes, self->ndim, error)))
    return NULL;
  dl_iter_init (&iter, 4, (DlTensor *[]){ out, self, lo, hi }, self->sizes, self->ndim);
  ctx->backend->ternary (ctx, DL_TERNARY_CLAMP, &iter, self->dtype, &unused);
  if (into)
    dl_storage_bump_version (into->storage);
  return out;
}

/* The kinds of clamp torch records apart: clamp, clamp_min, clamp_max */
typedef enum
{
  CLAMP_BOTH,
  CLAMP_MIN,
  CLAMP_MAX
} ClampKind;

static DlTensor *
clamp_impl (DlTensor *self, DlTensor *min, DlTensor *max, ClampKind kind, GError **error);

/**
 * dl_tensor_clamp:
 * @self: a #DlTensor
 * @min: (nullable): the lower bound, broadcastable with @self
 * @max: (nullable): the upper bound, broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes min (max (self, min), max) elementwise, leaving out a bound that
 * is %NULL (one of them must be given). NaN stays NaN; where @min is
 * above @max the result is @max. Dtypes promote as PyTorch's do.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clamp (DlTensor *self, DlTensor *min, DlTensor *max, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (min == NULL || DL_IS_TENSOR (min), NULL);
  g_return_val_if_fail (max == NULL || DL_IS_TENSOR (max), NULL);
  return clamp_impl (self, min, max, CLAMP_BOTH, error);
}

/**
 * dl_tensor_clamp_min:
 * @self: a #DlTensor
 * @min: the lower bound, broadcastable with @self (a number as a 0-d
 *   tensor)
 * @error: return location for a #GError
 *
 * Computes max (self, min) elementwise as torch.clamp_min: the values of
 * dl_tensor_clamp() with only @min, recorded as torch records clamp_min
 * (ClampMinBackward0 for a wrapped number, ClampMinBackward1 for a
 * tensor).
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clamp_min (DlTensor *self, DlTensor *min, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (min), NULL);
  return clamp_impl (self, min, NULL, CLAMP_MIN, error);
}

/**
 * dl_tensor_clamp_max:
 * @self: a #DlTensor
 * @max: the upper bound, broadcastable with @self (a number as a 0-d
 *   tensor)
 * @error: return location for a #GError
 *
 * Computes min (self, max) elementwise as torch.clamp_max: the values of
 * dl_tensor_clamp() with only @max, recorded as torch records clamp_max
 * (ClampMaxBackward0 for a wrapped number, ClampMaxBackward1 for a
 * tensor).
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clamp_max (DlTensor *self, DlTensor *max, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (max), NULL);
  return clamp_impl (self, NULL, max, CLAMP_MAX, error);
}

/* clamp's node name in torch: a number bound gives clamp's overload 1 and
 * clamp_min's and clamp_max's 0, a tensor bound the other one */
static const gchar *
clamp_node_name (ClampKind kind, DlTensor *min, DlTensor *max)
{
  gboolean tensor_bound = (min && !min->is_wrapped_number) || (max && !max->is_wrapped_number);

  switch (kind)
    {
      case CLAMP_MIN:
        return tensor_bound ? "ClampMinBackward1" : "ClampMinBackward0";
      case CLAMP_MAX:
        return tensor_bound ? "ClampMaxBackward1" : "ClampMaxBackward0";
      case CLAMP_BOTH:
      default:
        return tensor_bound ? "ClampBackward0" : "ClampBackward1";
    }
}

static DlTensor *
clamp_impl (DlTensor *self, DlTensor *min, DlTensor *max, ClampKind kind, GError **error)
{
  g_autoptr (DlTensor) x = NULL;

  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) out = NULL;
  GError *local = NULL;
  DlTensor *inputs[3];
  guint n = 0;

  if (min == NULL && max == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "torch.clamp: At least one of 'min' or 'max' must not be None");
      return NULL;
    }
  if (self->dtype == DL_DTYPE_BOOL && (min == NULL || min->dtype == DL_DTYPE_BOOL)
      && (max == NULL || max->dtype == DL_DTYPE_BOOL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "clamp: not supported for bool tensors");
      return NULL;
    }

  if ((out = clamp_fused (self, min, max, NULL, &local)))
    goto record;
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  /* the values, computed without recording (detached wrapped numbers stay
   * wrapped numbers for type promotion) */
  x = dl_tensor_detach (self);
  x->is_wrapped_number = self->is_wrapped_number;
  if (min)
    {
      g_autoptr (DlTensor) m = dl_tensor_detach (min);
      m->is_wrapped_number = min->is_wrapped_number;
      if (!(lo = dl_tensor_maximum (x, m, error)))
        return NULL;
    }
  else
    lo = g_object_ref (x);
  if (max)
    {
      g_autoptr (DlTensor) m = dl_tensor_detach (max);
      m->is_wrapped_number = max->is_wrapped_number;
      if (!(out = dl_tensor_minimum (lo, m, error)))
        return NULL;
    }
  else
    out = g_steal_pointer (&lo);
record:
  inputs[n++] = self;
  if (min)
    inputs[n++] = min;
  if (max)
    inputs[n++] = max;
  if (dl_dtype_is_float (out->dtype) && dl_autograd_any_requires (n, inputs))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op (clamp_node_name (kind, min, max), clamp_backward, n, inputs);

      ClampState *s = DL_NODE_NEW_STATE (node, ClampState);

      s->has_min = min != NULL;
      s->has_max = max != NULL;
      dl_node_save (node, &s->x, self, FALSE);
      if (min)
        dl_node_save (node, &s->min, min, FALSE);
      if (max)
        dl_node_save (node, &s->max, max, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/* clamp of a float32 or float64 tensor with number bounds in one kernel
 * pass, into @into (@self, in place) or a new tensor: the composite's bits
 * (the bounds rounded to the dtype, NaN winning). NULL without an error
 * when the kernel does not apply (another dtype, a backend without it). */
static DlTensor *
clamp_numbers (DlTensor *self, gdouble min, gdouble max, DlTensor *into, GError **error)
{
  const gdouble bounds[2] = { min, max };
  DlBackendContext *ctx = dl_tensor_context (self);
  DlTensor *out = into;
  DlIter iter;

  if ((self->dtype != DL_DTYPE_FLOAT32 && self->dtype != DL_DTYPE_FLOAT64)
      || ctx->backend->ternary == NULL)
    return NULL;
  if (!out && !(out = dl_empty_like_layout (self, self->dtype, self->sizes, self->ndim, error)))
    return NULL;
  dl_iter_init (&iter, 2, (DlTensor *[]){ out, self }, self->sizes, self->ndim);
  ctx->backend->ternary (ctx, DL_TERNARY_CLAMP_SCALAR, &iter, self->dtype, bounds);
  if (into)
    dl_storage_bump_version (into->storage);
  return out;
}

/**
 * dl_tensor_clamp_scalar:
 * @self: a #DlTensor
 * @min: the lower bound
 * @max: the upper bound
 * @error: return location for a #GError
 *
 * Computes min (max (self, min), max) elementwise with numbers as bounds.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clamp_scalar (DlTensor *self, gdouble min, gdouble max, GError **error)
{
  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) hi = NULL;
  GError *local = NULL;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  /* one pass when there is no history to record */
  if (!dl_autograd_any_requires (1, &self) && (out = clamp_numbers (self, min, max, NULL, &local)))
    return out;
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  lo = dl_wrapped_scalar (min);
  hi = dl_wrapped_scalar (max);
  return dl_tensor_clamp (self, lo, hi, error);
}

/**
 * dl_tensor_clamp_scalar_:
 * @self: a #DlTensor, written in place
 * @min: the lower bound (-infinity for none)
 * @max: the upper bound (+infinity for none)
 * @error: return location for a #GError
 *
 * In place, self = min (max (self, min), max), with numbers as bounds (as
 * torch.Tensor.clamp_ with numbers, and nn.utils.clip_grad_value_).
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clamp_scalar_ (DlTensor *self, gdouble min, gdouble max, GError **error)
{
  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) hi = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_write_target ("clamp_", self, error))
    return NULL;
  /* straight into self when there is no history to record */
  if (!dl_inplace_wants_history (self, 0, NULL))
    {
      GError *local = NULL;

      if (clamp_numbers (self, min, max, self, &local))
        return self;
      if (local)
        {
          g_propagate_error (error, local);
          return NULL;
        }
    }
  lo = dl_wrapped_scalar (min);
  hi = dl_wrapped_scalar (max);
  return dl_tensor_clamp_ (self, lo, hi, error);
}

static DlTensor *
clamp_compute (DlTensor *src, gpointer data, DlTensor *into, GError **error)
{
  DlTensor **bounds = data;
  GError *local = NULL;
  DlTensor *out;

  /* nothing recorded: one kernel pass straight into self where it can */
  if (into && (out = clamp_fused (src, bounds[0], bounds[1], into, &local)))
    return out;
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  return dl_tensor_clamp (src, bounds[0], bounds[1], error);
}

/**
 * dl_tensor_clamp_:
 * @self: a #DlTensor, written in place
 * @min: (nullable): the lower bound, broadcastable to @self's shape
 * @max: (nullable): the upper bound, broadcastable to @self's shape
 * @error: return location for a #GError
 *
 * In place, self = clamp (self, min, max).
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clamp_ (DlTensor *self, DlTensor *min, DlTensor *max, GError **error)
{
  DlTensor *bounds[2] = { min, max };
  DlTensor *others[2];
  guint n = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (min)
    {
      if (!dl_check_no_partial_overlap ("clamp_", self, min, error))
        return NULL;
      others[n++] = min;
    }
  if (max)
    {
      if (!dl_check_no_partial_overlap ("clamp_", self, max, error))
        return NULL;
      others[n++] = max;
    }
  if (!dl_check_write_target ("clamp_", self, error))
    return NULL;
  return dl_inplace_run ("clamp_", self, n, others, TRUE, clamp_compute, bounds, error);
}
