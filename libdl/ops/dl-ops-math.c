/* dl-ops-math.c: the elementwise ops outside the op table: those with
 * more operands or numbers than the table's (clamp, lerp, nan_to_num) and
 * the logical ops, which compose the table's.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-ops-pointwise-private.h"

/* ---- logical ops ----------------------------------------------------------- */

/**
 * dl_tensor_logical_not:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the logical negation elementwise: true where an element is zero.
 *
 * Returns: (transfer full): a bool tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logical_not (DlTensor *self, GError **error)
{
  g_autoptr (DlTensor) zero = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  zero = dl_tensor_new_wrapped_scalar (0, DL_DTYPE_BOOL);
  return dl_tensor_eq (self, zero, error);
}

/* the largest finite value of a floating-point dtype */

/* @op of the truth values of @a and @b */
static DlTensor *
logical_op (DlPointwiseOpId op, DlTensor *a, DlTensor *b, GError **error)
{
  g_autoptr (DlTensor) zero = dl_tensor_new_wrapped_scalar (0, DL_DTYPE_BOOL);
  g_autoptr (DlTensor) ba = NULL;
  g_autoptr (DlTensor) bb = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (a) && DL_IS_TENSOR (b), NULL);
  if (!(ba = dl_tensor_ne (a, zero, error)) || !(bb = dl_tensor_ne (b, zero, error)))
    return NULL;
  return dl_pointwise_binary (op, ba, bb, 1.0, error);
}

/**
 * dl_tensor_logical_and:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes the logical and of the elements' truth (nonzero) elementwise.
 *
 * Returns: (transfer full): a bool tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logical_and (DlTensor *self, DlTensor *other, GError **error)
{
  return logical_op (DL_OP_bitwise_and, self, other, error);
}

/**
 * dl_tensor_logical_or:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes the logical or of the elements' truth (nonzero) elementwise.
 *
 * Returns: (transfer full): a bool tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logical_or (DlTensor *self, DlTensor *other, GError **error)
{
  return logical_op (DL_OP_bitwise_or, self, other, error);
}

/**
 * dl_tensor_logical_xor:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes the logical exclusive or of the elements' truth (nonzero)
 * elementwise.
 *
 * Returns: (transfer full): a bool tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logical_xor (DlTensor *self, DlTensor *other, GError **error)
{
  return logical_op (DL_OP_bitwise_xor, self, other, error);
}

/* ---- nan_to_num ------------------------------------------------------------- */

/* nan_to_num runs the unary pipeline with its numbers as the kernel's
 * parameters; its gradient flows where the input is finite. */
static gboolean
nan_to_num_grad (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)
{
  return (*gs = dl_pointwise_mul_mask (a->grad, dl_tensor_isfinite (a->self, error), error))
         != NULL;
}

static const DlPointwiseOp nan_to_num_op = {
  .name = "nan_to_num",
  .inplace_name = "nan_to_num_",
  .arity = 1,
  .kernel = DL_UNARY_NAN_TO_NUM,
  .rule = DL_POINTWISE_RULE_NAN_TO_NUM,
  .node = "NanToNumBackward0",
  .grad = nan_to_num_grad,
  .saves = DL_POINTWISE_SAVES_SELF,
  .flags = DL_OP_FLAGS_UNARY,
};

static gdouble
dtype_max (DlDType dtype)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT16:
        return 65504.0;
      case DL_DTYPE_BFLOAT16:
        return 3.3895313892515355e38;
      case DL_DTYPE_FLOAT32:
        return G_MAXFLOAT;
      default:
        return G_MAXDOUBLE;
    }
}

/**
 * dl_tensor_nan_to_num:
 * @self: a #DlTensor
 * @nan: the value for NaN
 * @posinf: the value for positive infinity; NaN stands for the largest
 *   finite value of @self's dtype
 * @neginf: the value for negative infinity; NaN stands for the lowest
 *   finite value of @self's dtype
 * @error: return location for a #GError
 *
 * Replaces NaN and infinities with the given numbers. Integer and bool
 * tensors give a copy.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_nan_to_num (DlTensor *self, gdouble nan, gdouble posinf, gdouble neginf, GError **error)
{
  gdouble params[3];

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  params[0] = nan;
  params[1] = isnan (posinf) ? dtype_max (self->dtype) : posinf;
  params[2] = isnan (neginf) ? -dtype_max (self->dtype) : neginf;
  return dl_pointwise_unary_params (&nan_to_num_op, self, params, error);
}

/* ---- clamp, lerp and in-place forms ---------------------------------- */

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
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) out = NULL;
  GError *local = NULL;
  DlTensor *inputs[3];
  guint n = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (min == NULL || DL_IS_TENSOR (min), NULL);
  g_return_val_if_fail (max == NULL || DL_IS_TENSOR (max), NULL);
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
      g_autoptr (DlNode) node = dl_node_new_for_op ("ClampBackward1", clamp_backward, n, inputs);

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
  if (!dl_check_no_internal_overlap ("clamp_", self, error))
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
  if (!dl_check_no_internal_overlap ("clamp_", self, error))
    return NULL;
  return dl_inplace_run ("clamp_", self, n, others, TRUE, clamp_compute, bounds, error);
}

/* ---- lerp --------------------------------------------------------------------- */

static gboolean
check_lerp (DlTensor *self, DlTensor *end, DlTensor *weight, GError **error)
{
  if (!dl_dtype_is_float (self->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "lerp: not supported for %s tensors",
                   dl_dtype_get_name (self->dtype));
      return FALSE;
    }
  if (end->dtype != self->dtype || (weight && weight->dtype != self->dtype))
    {
      gboolean bad_end = end->dtype != self->dtype;
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "lerp: expected dtype %s for `%s` but got dtype %s",
                   dl_dtype_get_name (self->dtype), bad_end ? "end" : "weight",
                   dl_dtype_get_name (bad_end ? end->dtype : weight->dtype));
      return FALSE;
    }
  return dl_check_same_device ("lerp", self, end, error)
         && (weight == NULL || dl_check_same_device ("lerp", self, weight, error));
}

/* Whether lerp may run as one ternary kernel: when the backend has one,
 * with no history to record (the composite below records it) and when the
 * composite's result would be laid out contiguously: always for the 16-bit
 * floats (their result is a cast), else when every input is contiguous
 * (each binary op lays its result out like one of its inputs). */
static gboolean
lerp_can_fuse (DlTensor *self, DlTensor *end, DlTensor *weight)
{
  if (dl_tensor_context (self)->backend->ternary == NULL
      || dl_autograd_any_requires (3, (DlTensor *[]){ self, end, weight }))
    return FALSE;
  return dl_dtype_is_half (self->dtype)
         || (dl_tensor_is_contiguous (self) && dl_tensor_is_contiguous (end)
             && (weight == NULL || dl_tensor_is_contiguous (weight)));
}

/* self + weight (end - self) in one kernel: the bits of the composite, and
 * its errors (the shapes broadcast as its sub and mul do) */
static DlTensor *
lerp_fused (DlTensor *self, DlTensor *end, DlTensor *weight, gdouble w, GError **error)
{
  gint64 s1[DL_MAX_DIMS], shape[DL_MAX_DIMS];
  gint n1, nd;
  g_auto (DlIter) iter = DL_ITER_INIT;
  DlBackendContext *ctx;
  DlTensor *out;

  if (!(ctx = DL_TENSOR_BACKEND (self, ternary, "lerp", error)))
    return NULL;
  if (!dl_broadcast_shapes ("sub", end->sizes, end->ndim, self->sizes, self->ndim, s1, &n1, error))
    return NULL;
  if (weight)
    {
      if (!dl_broadcast_shapes ("mul", weight->sizes, weight->ndim, s1, n1, shape, &nd, error))
        return NULL;
    }
  else
    {
      memcpy (shape, s1, n1 * sizeof (gint64));
      nd = n1;
    }
  if (!(out
        = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, shape, nd, error)))
    return NULL;
  dl_iter_init (&iter, weight ? 4 : 3, (DlTensor *[]){ out, self, end, weight }, shape, nd);
  ctx->backend->ternary (ctx, weight ? DL_TERNARY_LERP : DL_TERNARY_LERP_SCALAR, &iter, self->dtype,
                         &w);
  return out;
}

/* self + weight (end - self), in float32 for the 16-bit types; @weight
 * may be NULL for the number @w */
static DlTensor *
lerp_impl (DlTensor *self, DlTensor *end, DlTensor *weight, gdouble w, GError **error)
{
  DlDType dt = self->dtype;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) step = NULL;
  g_autoptr (DlTensor) out = NULL;

  if (!check_lerp (self, end, weight, error))
    return NULL;
  if (lerp_can_fuse (self, end, weight))
    return lerp_fused (self, end, weight, w, error);
  if (dl_dtype_is_half (dt))
    {
      if (!(a = dl_tensor_to_dtype (self, DL_DTYPE_FLOAT32, error))
          || !(b = dl_tensor_to_dtype (end, DL_DTYPE_FLOAT32, error))
          || (weight && !(wt = dl_tensor_to_dtype (weight, DL_DTYPE_FLOAT32, error))))
        return NULL;
    }
  else
    {
      a = g_object_ref (self);
      b = g_object_ref (end);
      wt = weight ? g_object_ref (weight) : NULL;
    }
  if (!(diff = dl_tensor_sub (b, a, error)))
    return NULL;
  step = wt ? dl_tensor_mul (wt, diff, error) : dl_tensor_mul_scalar (diff, w, error);
  if (step == NULL || !(out = dl_tensor_add (a, step, error)))
    return NULL;
  return dl_tensor_to_dtype (out, dt, error);
}

/**
 * dl_tensor_lerp:
 * @self: a floating-point #DlTensor, the start
 * @end: a #DlTensor of @self's dtype, broadcastable with it
 * @weight: a #DlTensor of @self's dtype, broadcastable with both
 * @error: return location for a #GError
 *
 * Interpolates linearly, self + weight (end - self), elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_lerp (DlTensor *self, DlTensor *end, DlTensor *weight, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (end) && DL_IS_TENSOR (weight), NULL);
  return lerp_impl (self, end, weight, 0, error);
}

/**
 * dl_tensor_lerp_scalar:
 * @self: a floating-point #DlTensor, the start
 * @end: a #DlTensor of @self's dtype, broadcastable with it
 * @weight: the weight of @end
 * @error: return location for a #GError
 *
 * Interpolates linearly, self + weight (end - self), elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_lerp_scalar (DlTensor *self, DlTensor *end, gdouble weight, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (end), NULL);
  return lerp_impl (self, end, NULL, weight, error);
}
