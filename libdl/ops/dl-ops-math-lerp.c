/* dl-ops-math-lerp.c: the weighted sums of three tensors, lerp, addcmul
 * and addcdiv, each one ternary kernel forward with its own backward node,
 * and their in-place forms. The other ops of dl-ops-math.h: dl-ops-math.c.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-ops-pointwise-private.h"

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

typedef struct
{
  DlTensor *end, *weight;
  gdouble w;
} LerpArgs;

static DlTensor *
lerp_compute (DlTensor *src, gpointer data, DlTensor *into, GError **error)
{
  const LerpArgs *l = data;

  return lerp_impl (src, l->end, l->weight, l->w, error);
}

static DlTensor *
lerp_inplace (const gchar *name, DlTensor *self, LerpArgs *l, GError **error)
{
  DlTensor *others[2] = { l->end, l->weight };

  if (!dl_check_write_target (name, self, error))
    return NULL;
  /* the weight's gradient reads end - self: the old values */
  return dl_inplace_run (name, self, l->weight ? 2 : 1, others, l->weight != NULL, lerp_compute, l,
                         error);
}

/**
 * dl_tensor_lerp_:
 * @self: a floating-point #DlTensor, the start, written in place
 * @end: a #DlTensor of @self's dtype, broadcastable to @self's shape
 * @weight: a #DlTensor of @self's dtype, broadcastable to @self's shape
 * @error: return location for a #GError
 *
 * In place, self = self + weight (end - self), as torch.Tensor.lerp_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_lerp_ (DlTensor *self, DlTensor *end, DlTensor *weight, GError **error)
{
  LerpArgs l = { end, weight, 0 };

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (end) && DL_IS_TENSOR (weight), NULL);
  return lerp_inplace ("lerp_", self, &l, error);
}

/**
 * dl_tensor_lerp_scalar_:
 * @self: a floating-point #DlTensor, the start, written in place
 * @end: a #DlTensor of @self's dtype, broadcastable to @self's shape
 * @weight: the weight of @end
 * @error: return location for a #GError
 *
 * In place, self = self + weight (end - self), as torch.Tensor.lerp_ with
 * a number: the running average of an exponential moving average.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_lerp_scalar_ (DlTensor *self, DlTensor *end, gdouble weight, GError **error)
{
  LerpArgs l = { end, NULL, weight };

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (end), NULL);
  return lerp_inplace ("lerp_", self, &l, error);
}

/* ---- addcmul and addcdiv ------------------------------------------------------- */

/* self + value * t1 * t2 (addcmul) or self + value * t1 / t2 (addcdiv):
 * one ternary kernel forward, and its own backward node */

typedef struct
{
  gboolean div;
  gdouble value;
  DlSavedTensor t1, t2;
} AddcState;

static gboolean
addc_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const AddcState *s = dl_node_state (node);
  DlNodeData *d = dl_node_data (node);
  g_autoptr (DlTensor) gv = NULL;
  DlTensor *t1 = NULL, *t2 = NULL;

  if (dl_node_needs_input_grad (node, 0))
    TRY (gi[0] = dl_sum_to (go[0], d->inputs[0].sizes, d->inputs[0].ndim, error));
  if (!dl_node_needs_input_grad (node, 1) && !dl_node_needs_input_grad (node, 2))
    return TRUE;
  TRY (gv = dl_tensor_mul_scalar (go[0], s->value, error));
  /* the state keeps t2 for t1's gradient and t1 (and t2, for addcdiv) for
   * t2's */
  if (dl_node_needs_input_grad (node, 2))
    TRY (t1 = dl_node_saved (node, &s->t1, error));
  TRY (t2 = dl_node_saved (node, &s->t2, error));
  if (dl_node_needs_input_grad (node, 1))
    {
      /* g v t2, or g v / t2 */
      g_autoptr (DlTensor) g1
          = s->div ? dl_tensor_div (gv, t2, error) : dl_tensor_mul (gv, t2, error);

      TRY (g1 && (gi[1] = dl_sum_to (g1, d->inputs[1].sizes, d->inputs[1].ndim, error)));
    }
  if (dl_node_needs_input_grad (node, 2))
    {
      /* g v t1, or -g v t1 / t2^2 */
      g_autoptr (DlTensor) p = dl_tensor_mul (gv, t1, error);
      g_autoptr (DlTensor) sq = p && s->div ? dl_tensor_mul (t2, t2, error) : NULL;
      g_autoptr (DlTensor) q = sq ? dl_tensor_div (p, sq, error) : NULL;
      g_autoptr (DlTensor) g2 = q ? dl_tensor_neg (q, error) : NULL;

      if (!s->div)
        g2 = g_steal_pointer (&p);
      TRY (g2 && (gi[2] = dl_sum_to (g2, d->inputs[2].sizes, d->inputs[2].ndim, error)));
    }
  return TRUE;
}

static const gchar *
addc_name (gboolean div, gboolean inplace)
{
  return div ? (inplace ? "addcdiv_" : "addcdiv") : (inplace ? "addcmul_" : "addcmul");
}

/* The result dtype of the three operands, or FALSE with @error set for the
 * combinations PyTorch refuses. */
static gboolean
addc_dtype (gboolean div, DlTensor *self, DlTensor *t1, DlTensor *t2, DlDType *dt, GError **error)
{
  const gchar *name = addc_name (div, FALSE);

  if (!dl_check_same_device (name, self, t1, error)
      || !dl_check_same_device (name, self, t2, error))
    return FALSE;
  if (div && !dl_dtype_is_float (t1->dtype) && !dl_dtype_is_float (t2->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "addcdiv: Integer division with addcdiv is no longer supported, and in a "
                   "future release addcdiv will perform a true division of tensor1 and tensor2. "
                   "The historic addcdiv behavior can be implemented as (input + value * "
                   "torch.trunc(tensor1 / tensor2)).to(input.dtype) if both inputs are floating "
                   "point, or (input + value * tensor1 // tensor2) if both inputs are integer. "
                   "(tensor1 %s, tensor2 %s)",
                   dl_dtype_get_name (t1->dtype), dl_dtype_get_name (t2->dtype));
      return FALSE;
    }
  *dt = dl_dtype_promote (dl_result_type (self, t1), dl_result_type (self, t2));
  if (*dt == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: not supported for bool tensors", name);
      return FALSE;
    }
  return TRUE;
}

/* the broadcast shape of the three operands */
static gboolean
addc_shape (const gchar *name,
            DlTensor *self,
            DlTensor *t1,
            DlTensor *t2,
            gint64 *shape,
            gint *nd,
            GError **error)
{
  gint64 s1[DL_MAX_DIMS];
  gint n1;

  return dl_broadcast_shapes (name, t1->sizes, t1->ndim, t2->sizes, t2->ndim, s1, &n1, error)
         && dl_broadcast_shapes (name, self->sizes, self->ndim, s1, n1, shape, nd, error);
}

/* The kernel: into @into when it has dtype @dt (its shape is the
 * broadcast shape; returning @into, transfer none), else into a new
 * tensor. */
static DlTensor *
addc_kernel (gboolean div,
             DlTensor *self,
             DlTensor *t1,
             DlTensor *t2,
             gdouble value,
             DlDType dt,
             DlTensor *into,
             GError **error)
{
  const gchar *name = addc_name (div, into != NULL);
  gint64 shape[DL_MAX_DIMS];
  gint nd;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_auto (DlIter) iter = DL_ITER_INIT;
  DlBackendContext *ctx;

  if (!(ctx = DL_TENSOR_BACKEND (self, ternary, name, error))
      || !addc_shape (name, self, t1, t2, shape, &nd, error)
      || !(a = dl_cast_nograd (self, dt, error)) || !(b = dl_cast_nograd (t1, dt, error))
      || !(c = dl_cast_nograd (t2, dt, error)))
    return NULL;
  if (into && into->dtype == dt)
    out = g_object_ref (into);
  else if (!(out = dl_empty_like_layout (self->ndim == nd ? self
                                         : t1->ndim == nd ? t1
                                                          : t2,
                                         dt, shape, nd, error)))
    return NULL;
  dl_iter_init (&iter, 4, (DlTensor *[]){ out, a, b, c }, shape, nd);
  ctx->backend->ternary (ctx, div ? DL_TERNARY_ADDCDIV : DL_TERNARY_ADDCMUL, &iter, dt, &value);
  if (out == into)
    {
      dl_storage_bump_version (into->storage);
      return into;
    }
  return g_steal_pointer (&out);
}

static DlTensor *
addc_impl (gboolean div, DlTensor *self, DlTensor *t1, DlTensor *t2, gdouble value, GError **error)
{
  DlTensor *inputs[3] = { self, t1, t2 };
  g_autoptr (DlNode) node = NULL;
  DlDType dt;
  DlTensor *out;
  AddcState *s;

  if (!addc_dtype (div, self, t1, t2, &dt, error)
      || !(out = addc_kernel (div, self, t1, t2, value, dt, NULL, error)))
    return NULL;
  if (!dl_dtype_is_float (dt) || !dl_autograd_any_requires (3, inputs))
    return out;
  node = dl_node_new_for_op (div ? "AddcdivBackward0" : "AddcmulBackward0", addc_backward, 3,
                             inputs);
  s = DL_NODE_NEW_STATE (node, AddcState);
  s->div = div;
  s->value = value;
  /* t1's gradient reads t2; t2's reads t1 (and t2, for addcdiv) */
  if (dl_node_needs_input_grad (node, 1) || dl_node_needs_input_grad (node, 2))
    dl_node_save (node, &s->t2, t2, FALSE);
  if (dl_node_needs_input_grad (node, 2))
    dl_node_save (node, &s->t1, t1, FALSE);
  dl_node_set_output (node, out, 0);
  return out;
}

typedef struct
{
  gboolean div;
  DlTensor *t1, *t2;
  gdouble value;
  DlDType dt;
} AddcOperands;

static DlTensor *
addc_compute (DlTensor *src, gpointer data, DlTensor *into, GError **error)
{
  const AddcOperands *o = data;

  if (into)
    return addc_kernel (o->div, src, o->t1, o->t2, o->value, o->dt, into, error);
  return addc_impl (o->div, src, o->t1, o->t2, o->value, error);
}

static DlTensor *
addc_inplace (gboolean div,
              DlTensor *self,
              DlTensor *t1,
              DlTensor *t2,
              gdouble value,
              GError **error)
{
  const gchar *name = addc_name (div, TRUE);
  AddcOperands o = { div, t1, t2, value };
  DlTensor *others[2] = { t1, t2 };
  gint64 shape[DL_MAX_DIMS];
  gint nd;

  if (!dl_check_live (name, self, error) || !addc_dtype (div, self, t1, t2, &o.dt, error)
      || !addc_shape (name, self, t1, t2, shape, &nd, error))
    return NULL;
  if (!dl_inplace_check_shape (name, self, shape, nd, error)
      || !dl_check_write_target (name, self, error)
      || !dl_check_no_partial_overlap (name, self, t1, error)
      || !dl_check_no_partial_overlap (name, self, t2, error)
      || !dl_inplace_check_castable (name, o.dt, self->dtype, error))
    return NULL;
  return dl_inplace_run (name, self, 2, others, FALSE, addc_compute, &o, error);
}

/**
 * dl_tensor_addcmul:
 * @self: a #DlTensor
 * @tensor1: a #DlTensor broadcastable with @self
 * @tensor2: a #DlTensor broadcastable with both
 * @value: the factor of the product
 * @error: return location for a #GError
 *
 * Computes self + value * tensor1 * tensor2 elementwise in one pass, as
 * torch.addcmul (self, tensor1, tensor2, value=value). The operands are
 * promoted to a common dtype; for integers @value is truncated to one and
 * the result wraps; bool tensors are refused. Its gradients are g, g value
 * tensor2 and g value tensor1.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addcmul (DlTensor *self,
                   DlTensor *tensor1,
                   DlTensor *tensor2,
                   gdouble value,
                   GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (tensor1) && DL_IS_TENSOR (tensor2),
                        NULL);
  return addc_impl (FALSE, self, tensor1, tensor2, value, error);
}

/**
 * dl_tensor_addcmul_:
 * @self: a #DlTensor, written in place
 * @tensor1: a #DlTensor that broadcasts to the shape of @self
 * @tensor2: a #DlTensor that broadcasts to the shape of @self
 * @value: the factor of the product
 * @error: return location for a #GError
 *
 * In place, self += value * tensor1 * tensor2, in one pass (the second
 * moment update of Adam: `exp_avg_sq.addcmul_ (grad, grad, value=1 - beta2)`).
 * A floating-point result cannot be written into an integer @self.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addcmul_ (DlTensor *self,
                    DlTensor *tensor1,
                    DlTensor *tensor2,
                    gdouble value,
                    GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (tensor1) && DL_IS_TENSOR (tensor2),
                        NULL);
  return addc_inplace (FALSE, self, tensor1, tensor2, value, error);
}

/**
 * dl_tensor_addcdiv:
 * @self: a #DlTensor
 * @tensor1: a #DlTensor broadcastable with @self
 * @tensor2: a #DlTensor broadcastable with both
 * @value: the factor of the quotient
 * @error: return location for a #GError
 *
 * Computes self + value * tensor1 / tensor2 elementwise in one pass, as
 * torch.addcdiv (self, tensor1, tensor2, value=value). The operands are
 * promoted to a common dtype; as in PyTorch, @tensor1 and @tensor2 may not
 * both be integer (or bool) tensors. Its gradients are g, g value / tensor2
 * and -g value tensor1 / tensor2^2.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addcdiv (DlTensor *self,
                   DlTensor *tensor1,
                   DlTensor *tensor2,
                   gdouble value,
                   GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (tensor1) && DL_IS_TENSOR (tensor2),
                        NULL);
  return addc_impl (TRUE, self, tensor1, tensor2, value, error);
}

/**
 * dl_tensor_addcdiv_:
 * @self: a #DlTensor, written in place
 * @tensor1: a #DlTensor that broadcasts to the shape of @self
 * @tensor2: a #DlTensor that broadcasts to the shape of @self
 * @value: the factor of the quotient
 * @error: return location for a #GError
 *
 * In place, self += value * tensor1 / tensor2, in one pass (Adam's step:
 * `param.addcdiv_ (exp_avg, denom, value=-step_size)`).
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_addcdiv_ (DlTensor *self,
                    DlTensor *tensor1,
                    DlTensor *tensor2,
                    gdouble value,
                    GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (tensor1) && DL_IS_TENSOR (tensor2),
                        NULL);
  return addc_inplace (TRUE, self, tensor1, tensor2, value, error);
}
