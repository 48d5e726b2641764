/* dl-ops-math.c: the elementwise ops outside the op table: those with
 * more operands or numbers than the table's (clamp, lerp, nan_to_num),
 * division with a rounding mode, and the logical ops and the closeness
 * tests, which compose the table's.
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

typedef DlTensor *(*LogicalFn) (DlTensor *self, DlTensor *other, GError **error);

static DlTensor *
logical_compute (DlTensor *src, gpointer data, DlTensor *into, GError **error)
{
  gpointer *a = data;

  if (a[1] == NULL)
    return dl_tensor_logical_not (src, error);
  return ((LogicalFn)a[0]) (src, a[1], error);
}

/* in place, self = @fn (self, @other), or its negation without @other:
 * the truth values written into @self's dtype (1 and 0) */
static DlTensor *
logical_inplace (const gchar *name, LogicalFn fn, DlTensor *self, DlTensor *other, GError **error)
{
  gpointer a[2] = { (gpointer)fn, other };

  g_return_val_if_fail (DL_IS_TENSOR (self) && (other == NULL || DL_IS_TENSOR (other)), NULL);
  if (!dl_check_write_target (name, self, error))
    return NULL;
  return dl_inplace_run (name, self, other ? 1 : 0, &other, FALSE, logical_compute, a, error);
}

/**
 * dl_tensor_logical_and_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor broadcastable to @self's shape
 * @error: return location for a #GError
 *
 * In place, the logical and of the elements' truth, written as 1 and 0
 * in @self's dtype, as torch.Tensor.logical_and_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logical_and_ (DlTensor *self, DlTensor *other, GError **error)
{
  return logical_inplace ("logical_and_", dl_tensor_logical_and, self, other, error);
}

/**
 * dl_tensor_logical_or_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor broadcastable to @self's shape
 * @error: return location for a #GError
 *
 * In place, the logical or of the elements' truth, written as 1 and 0
 * in @self's dtype, as torch.Tensor.logical_or_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logical_or_ (DlTensor *self, DlTensor *other, GError **error)
{
  return logical_inplace ("logical_or_", dl_tensor_logical_or, self, other, error);
}

/**
 * dl_tensor_logical_xor_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor broadcastable to @self's shape
 * @error: return location for a #GError
 *
 * In place, the logical exclusive or of the elements' truth, written as
 * 1 and 0 in @self's dtype, as torch.Tensor.logical_xor_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logical_xor_ (DlTensor *self, DlTensor *other, GError **error)
{
  return logical_inplace ("logical_xor_", dl_tensor_logical_xor, self, other, error);
}

/**
 * dl_tensor_logical_not_:
 * @self: a #DlTensor, written in place
 * @error: return location for a #GError
 *
 * In place, the logical negation of the elements' truth, written as 1 and
 * 0 in @self's dtype, as torch.Tensor.logical_not_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logical_not_ (DlTensor *self, GError **error)
{
  return logical_inplace ("logical_not_", NULL, self, NULL, error);
}

/* ---- closeness and equality ------------------------------------------------ */

/* isclose without autograd: self == other, or both NaN with @equal_nan,
 * or a finite |self - other| <= atol + |rtol * other| (PyTorch's formula;
 * integer and bool operands count in the default float dtype for the
 * error, so that unsigned differences do not wrap) */
static DlTensor *
isclose_values (DlTensor *self,
                DlTensor *other,
                gdouble rtol,
                gdouble atol,
                gboolean equal_nan,
                GError **error)
{
  g_autoptr (DlTensor) close = dl_tensor_eq (self, other, error);
  g_autoptr (DlTensor) cs = NULL;
  g_autoptr (DlTensor) co = NULL;
  g_autoptr (DlTensor) allowed = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) actual = NULL;
  g_autoptr (DlTensor) within = NULL;
  g_autoptr (DlTensor) finite = NULL;
  g_autoptr (DlTensor) both = NULL;

  if (close == NULL)
    return NULL;
  if (equal_nan && dl_dtype_is_float (self->dtype))
    {
      g_autoptr (DlTensor) na = dl_tensor_isnan (self, error);
      g_autoptr (DlTensor) nb = na ? dl_tensor_isnan (other, error) : NULL;
      g_autoptr (DlTensor) nn = nb ? dl_tensor_logical_and (na, nb, error) : NULL;
      DlTensor *c = nn ? dl_tensor_logical_or (close, nn, error) : NULL;

      if (c == NULL)
        return NULL;
      g_object_unref (close);
      close = c;
    }
  if (rtol == 0 && atol == 0)
    return g_steal_pointer (&close);
  if (!(cs = dl_dtype_is_float (self->dtype)
                 ? g_object_ref (self)
                 : dl_tensor_to_dtype (self, dl_get_default_dtype (), error))
      || !(co = dl_dtype_is_float (other->dtype)
                    ? g_object_ref (other)
                    : dl_tensor_to_dtype (other, dl_get_default_dtype (), error))
      || !(allowed = dl_tensor_mul_scalar (co, rtol, error)) || !dl_tensor_abs_ (allowed, error)
      || !dl_tensor_add_scalar_ (allowed, atol, error) || !(diff = dl_tensor_sub (cs, co, error))
      || !(actual = dl_tensor_abs (diff, error))
      || !(within = dl_tensor_le (actual, allowed, error))
      || !(finite = dl_tensor_isfinite (actual, error))
      || !(both = dl_tensor_logical_and (within, finite, error)))
    return NULL;
  return dl_tensor_logical_or (close, both, error);
}

/**
 * dl_tensor_isclose:
 * @self: a #DlTensor
 * @other: a #DlTensor of the same dtype, broadcastable with @self
 * @rtol: the relative tolerance, at least 0
 * @atol: the absolute tolerance, at least 0
 * @equal_nan: whether two NaNs count as close
 * @error: return location for a #GError
 *
 * Tells elementwise whether @self and @other are close, as torch.isclose:
 * equal, or with |self - other| <= atol + rtol * |other|; infinities are
 * close only to themselves.
 *
 * Returns: (transfer full): a bool tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_isclose (DlTensor *self,
                   DlTensor *other,
                   gdouble rtol,
                   gdouble atol,
                   gboolean equal_nan,
                   GError **error)
{
  DlTensor *r;
  gboolean was;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (self->dtype != other->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "isclose: %s did not match %s",
                   dl_dtype_get_name (self->dtype), dl_dtype_get_name (other->dtype));
      return NULL;
    }
  if (!(rtol >= 0) || !(atol >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "isclose: %s must be greater than or equal to zero, but got %g",
                   rtol >= 0 ? "atol" : "rtol", rtol >= 0 ? atol : rtol);
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  r = isclose_values (self, other, rtol, atol, equal_nan, error);
  dl_set_grad_enabled (was);
  return r;
}

/* whether the bool tensor @t (consumed; NULL: an error is set already)
 * is all true; FALSE with @error set on failure */
static gboolean
all_true (DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) owned = t;
  gdouble v;

  return owned && dl_pointwise_item (dl_tensor_all (owned, NULL, 0, FALSE, error), &v, error)
         && v != 0;
}

/**
 * dl_tensor_allclose:
 * @self: a #DlTensor
 * @other: a #DlTensor of the same dtype, broadcastable with @self
 * @rtol: the relative tolerance, at least 0
 * @atol: the absolute tolerance, at least 0
 * @equal_nan: whether two NaNs count as close
 * @error: return location for a #GError
 *
 * Tells whether every element of @self is close to @other's, as
 * torch.allclose (see dl_tensor_isclose()).
 *
 * Returns: whether all elements are close; %FALSE also when @error is set
 *
 * Since: 0.1
 */
gboolean
dl_tensor_allclose (DlTensor *self,
                    DlTensor *other,
                    gdouble rtol,
                    gdouble atol,
                    gboolean equal_nan,
                    GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), FALSE);
  return all_true (dl_tensor_isclose (self, other, rtol, atol, equal_nan, error), error);
}

/**
 * dl_tensor_equal:
 * @self: a #DlTensor
 * @other: a #DlTensor
 * @error: return location for a #GError
 *
 * Tells whether @self and @other have the same shape and equal elements,
 * as torch.equal (dtypes may differ; NaN equals nothing).
 *
 * Returns: whether the tensors are equal; %FALSE also when @error is set
 *
 * Since: 0.1
 */
gboolean
dl_tensor_equal (DlTensor *self, DlTensor *other, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), FALSE);
  if (!dl_check_same_device ("equal", self, other, error))
    return FALSE;
  if (self->ndim != other->ndim || memcmp (self->sizes, other->sizes, self->ndim * sizeof (gint64)))
    return FALSE;
  return all_true (dl_tensor_eq (self, other, error), error);
}

/* ---- division with a rounding mode --------------------------------------- */

/* div (rounding_mode='trunc' or 'floor') is flat between its steps: its
 * gradients are zeros, as PyTorch's DivBackward2 gives */
static gboolean
rounded_div_grad (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)
{
  DlTensor *g = a->grad;
  DlDevice *device = dl_tensor_get_device (g);

  if (a->need_self && !(*gs = dl_zeros (g->sizes, g->ndim, g->dtype, device, error)))
    return FALSE;
  return !a->need_other || (*go = dl_zeros (g->sizes, g->ndim, g->dtype, device, error));
}

#define ROUNDED_DIV_OP(KERNEL)                                                                     \
  {                                                                                                \
    .name = "div", .inplace_name = "div_", .arity = 2, .kernel = KERNEL,                           \
    .rule = DL_POINTWISE_RULE_INT_DIVISION, .node = "DivBackward2", .grad = rounded_div_grad,      \
    .saves = DL_POINTWISE_SAVES_NONE, .flags = DL_OP_FLAGS_BINARY | DL_OP_FLAGS_INPLACE,           \
  }

static const DlPointwiseOp rounded_div_ops[] = {
  [DL_ROUNDING_MODE_TRUNC] = ROUNDED_DIV_OP (DL_BINARY_TRUNC_DIVIDE),
  [DL_ROUNDING_MODE_FLOOR] = ROUNDED_DIV_OP (DL_BINARY_FLOOR_DIVIDE),
};

/* trunc division of float16 or bfloat16: PyTorch rounds the quotient to
 * the dtype before it truncates (17.96 becomes bfloat16's 18, not 17), so
 * the quotient is a division in the dtype, then truncated (whose
 * gradient, as DivBackward2's, is zero) */
static DlTensor *
half_trunc_div (DlTensor *self, DlTensor *other, gboolean inplace, GError **error)
{
  g_autoptr (DlTensor) q = dl_tensor_div (self, other, error);
  g_autoptr (DlTensor) t = q ? dl_tensor_trunc (q, error) : NULL;

  if (!t)
    return NULL;
  if (inplace)
    return dl_tensor_copy_ (self, t, error) ? self : NULL;
  return g_steal_pointer (&t);
}

/* div (self, other, rounding_mode=mode), in place or not */
static DlTensor *
div_mode (DlTensor *self, DlTensor *other, DlRoundingMode mode, gboolean inplace, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  switch (mode)
    {
      case DL_ROUNDING_MODE_NONE:
        return inplace ? dl_tensor_div_ (self, other, error) : dl_tensor_div (self, other, error);
      case DL_ROUNDING_MODE_TRUNC:
        if (dl_dtype_is_half (dl_result_type (self, other)))
          return half_trunc_div (self, other, inplace, error);
        /* fall through */
      case DL_ROUNDING_MODE_FLOOR:
        return inplace ? dl_pointwise_binary_op_ (&rounded_div_ops[mode], self, other, 1.0, error)
                       : dl_pointwise_binary_op (&rounded_div_ops[mode], self, other, error);
      default:
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: expected rounding_mode to be one of none, trunc or floor, but found %d",
                     inplace ? "div_" : "div", (gint)mode);
        return NULL;
    }
}

/**
 * dl_tensor_div_mode:
 * @self: a #DlTensor, the dividend
 * @other: a #DlTensor broadcastable with @self, the divisor
 * @mode: how the quotient is rounded
 * @error: return location for a #GError
 *
 * Divides elementwise as torch.div (self, other, rounding_mode=...):
 * %DL_ROUNDING_MODE_NONE is the true division (dl_tensor_div()); with
 * %DL_ROUNDING_MODE_TRUNC or %DL_ROUNDING_MODE_FLOOR the quotient is
 * rounded toward zero or down, integer operands keep their promoted
 * integer dtype, integer division by zero is an error, bool operands are
 * refused, and the gradients are zero.
 *
 * Returns: (transfer full): the quotient, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_div_mode (DlTensor *self, DlTensor *other, DlRoundingMode mode, GError **error)
{
  return div_mode (self, other, mode, FALSE, error);
}

/**
 * dl_tensor_div_mode_:
 * @self: a #DlTensor, the dividend, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self, the divisor
 * @mode: how the quotient is rounded
 * @error: return location for a #GError
 *
 * Divides @self by @other in place as torch.Tensor.div_ (other,
 * rounding_mode=...); see dl_tensor_div_mode(). The result must be
 * castable to the dtype of @self (a true quotient cannot be written into
 * an integer tensor).
 *
 * Returns: (transfer none): @self itself, as in-place ops return it (not
 *   a new reference), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_div_mode_ (DlTensor *self, DlTensor *other, DlRoundingMode mode, GError **error)
{
  return div_mode (self, other, mode, TRUE, error);
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

static DlTensor *
nan_to_num_compute (DlTensor *src, gpointer data, DlTensor *into, GError **error)
{
  const gdouble *v = data;

  return dl_tensor_nan_to_num (src, v[0], v[1], v[2], error);
}

/**
 * dl_tensor_nan_to_num_:
 * @self: a #DlTensor, written in place
 * @nan: the value for NaN
 * @posinf: the value for positive infinity; NaN stands for the largest
 *   finite value of @self's dtype
 * @neginf: the value for negative infinity; NaN stands for the lowest
 *   finite value of @self's dtype
 * @error: return location for a #GError
 *
 * In place, replaces NaN and infinities with the given numbers, as
 * torch.Tensor.nan_to_num_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_nan_to_num_ (DlTensor *self, gdouble nan, gdouble posinf, gdouble neginf, GError **error)
{
  gdouble v[3] = { nan, posinf, neginf };

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_write_target ("nan_to_num_", self, error))
    return NULL;
  /* the gradient is 0 where a value was replaced: it reads the old values */
  return dl_inplace_run ("nan_to_num_", self, 0, NULL, TRUE, nan_to_num_compute, v, error);
}

/* ---- logit, positive, isreal ------------------------------------------------ */

/* logit runs the unary pipeline with eps as the kernel's parameter (and
 * the node's alpha); PyTorch's LogitBackward0: g / (x (1 - x)), and 0
 * where the clamp to [eps, 1 - eps] cut x off. */
static gboolean
logit_grad (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)
{
  gdouble eps = a->alpha;
  g_autoptr (DlTensor) omx = dl_tensor_rsub_scalar (a->self, 1, error);
  g_autoptr (DlTensor) den = omx ? dl_tensor_mul (a->self, omx, error) : NULL;
  g_autoptr (DlTensor) q = den ? dl_tensor_div (a->grad, den, error) : NULL;
  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) hi = NULL;

  if (q == NULL)
    return FALSE;
  if (eps < 0)
    {
      *gs = g_steal_pointer (&q);
      return TRUE;
    }
  if (!(lo = dl_tensor_ge_scalar (a->self, eps, error))
      || !(hi = dl_tensor_le_scalar (a->self, 1 - eps, error)))
    return FALSE;
  return (*gs = dl_pointwise_mul_mask (q, dl_tensor_logical_and (lo, hi, error), error)) != NULL;
}

static const DlPointwiseOp logit_op = {
  .name = "logit",
  .inplace_name = "logit_",
  .arity = 1,
  .kernel = DL_UNARY_LOGIT,
  .rule = DL_POINTWISE_RULE_FLOAT,
  .node = "LogitBackward0",
  .grad = logit_grad,
  .saves = DL_POINTWISE_SAVES_SELF,
  .flags = DL_OP_FLAGS_UNARY | DL_OP_FLAGS_INPLACE,
};

/**
 * dl_tensor_logit:
 * @self: a #DlTensor
 * @eps: the clamp's bound: @self is clamped to [@eps, 1 - @eps] first; a
 *   negative number for no clamp (PyTorch's `eps=None`)
 * @error: return location for a #GError
 *
 * The log-odds ln (x / (1 - x)) of each element, the inverse of the
 * sigmoid: -inf at 0, inf at 1 and NaN outside [0, 1] without a clamp.
 * The gradient is 0 where the clamp changed the input, as PyTorch's.
 * Integer and bool tensors give the default floating-point dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logit (DlTensor *self, gdouble eps, GError **error)
{
  gdouble params[1] = { eps };

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return dl_pointwise_unary_params (&logit_op, self, params, error);
}

/**
 * dl_tensor_logit_:
 * @self: a #DlTensor, written in place
 * @eps: the clamp's bound, as for dl_tensor_logit(); negative for none
 * @error: return location for a #GError
 *
 * dl_tensor_logit() in place. The result must be castable to the dtype
 * of @self, so an integer tensor is refused.
 *
 * Returns: (transfer none): @self itself, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logit_ (DlTensor *self, gdouble eps, GError **error)
{
  gdouble params[1] = { eps };

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return dl_pointwise_unary_params_ (&logit_op, self, params, error);
}

/**
 * dl_tensor_positive:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Unary plus, +x: @self itself, as PyTorch's `torch.positive` returns
 * its input. Bool tensors are refused, as PyTorch refuses them.
 *
 * Returns: (transfer full): a new reference to @self, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_positive (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("positive", self, error))
    return NULL;
  if (self->dtype == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "positive: the `+` operator, on a bool tensor is not supported");
      return NULL;
    }
  return g_object_ref (self);
}

/**
 * dl_tensor_isreal:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Whether each element is a real number: libdl's tensors hold no complex
 * numbers, so a bool tensor of @self's shape, all true.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_isreal (DlTensor *self, GError **error)
{
  g_autoptr (DlTensor) out = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("isreal", self, error)
      || !(out
           = dl_empty (self->sizes, self->ndim, DL_DTYPE_BOOL, dl_tensor_get_device (self), error))
      || !dl_tensor_fill_ (out, 1, error))
    return NULL;
  return g_steal_pointer (&out);
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
/* The kinds of clamp torch records apart: clamp, clamp_min, clamp_max */
typedef enum
{
  CLAMP_BOTH,
  CLAMP_MIN,
  CLAMP_MAX
} ClampKind;

static DlTensor *
clamp_impl (DlTensor *self, DlTensor *min, DlTensor *max, ClampKind kind, GError **error);

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

/* ---- ldexp and float_power -------------------------------------------------- */

/* 2^other, a float for integer exponents (the 2 is a float number, so
 * that pow gives the default float dtype for them) */
static DlTensor *
ldexp_factor (DlTensor *other, GError **error)
{
  g_autoptr (DlTensor) two = dl_tensor_new_wrapped_scalar (2.0, DL_DTYPE_FLOAT64);

  return dl_tensor_pow (two, other, error);
}

/**
 * dl_tensor_ldexp:
 * @self: a #DlTensor, the mantissas
 * @other: a #DlTensor broadcastable with @self, the exponents
 * @error: return location for a #GError
 *
 * Computes self * 2^other elementwise, as torch.ldexp: a product with
 * 2^other (so its gradient is MulBackward0's), which gives the default
 * float dtype for integer operands.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_ldexp (DlTensor *self, DlTensor *other, GError **error)
{
  g_autoptr (DlTensor) p = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (!(p = ldexp_factor (other, error)))
    return NULL;
  return dl_tensor_mul (self, p, error);
}

/**
 * dl_tensor_ldexp_:
 * @self: a floating-point #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self, the exponents
 * @error: return location for a #GError
 *
 * In place, self *= 2^other.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_ldexp_ (DlTensor *self, DlTensor *other, GError **error)
{
  g_autoptr (DlTensor) p = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (!(p = ldexp_factor (other, error)))
    return NULL;
  return dl_tensor_mul_ (self, p, error);
}

/* @t as float64 (a differentiable conversion; @t itself when it is one) */
static DlTensor *
as_double (DlTensor *t, GError **error)
{
  return dl_tensor_to_dtype (t, DL_DTYPE_FLOAT64, error);
}

/**
 * dl_tensor_float_power:
 * @self: a #DlTensor, the base
 * @exponent: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self to the power exponent elementwise in double precision, as
 * torch.float_power: both operands are converted to float64 first, so the
 * result is always float64 (and negative integer powers are allowed).
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_float_power (DlTensor *self, DlTensor *exponent, GError **error)
{
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (exponent), NULL);
  if (!(a = as_double (self, error)) || !(b = as_double (exponent, error)))
    return NULL;
  /* a Python number stays one (pow's node names for numbers) */
  a->is_wrapped_number = self->is_wrapped_number;
  b->is_wrapped_number = exponent->is_wrapped_number;
  return dl_tensor_pow (a, b, error);
}

/**
 * dl_tensor_float_power_scalar:
 * @self: a #DlTensor, the base
 * @exponent: the exponent
 * @error: return location for a #GError
 *
 * Computes self to the power @exponent elementwise in double precision, as
 * torch.float_power (self, exponent): the result is float64.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_float_power_scalar (DlTensor *self, gdouble exponent, GError **error)
{
  g_autoptr (DlTensor) a = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(a = as_double (self, error)))
    return NULL;
  return dl_tensor_pow_scalar (a, exponent, error);
}

/**
 * dl_tensor_rfloat_power_scalar:
 * @self: a #DlTensor, the exponents
 * @base: the base
 * @error: return location for a #GError
 *
 * Computes @base to the power self elementwise in double precision, as
 * torch.float_power (base, self): the result is float64.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_rfloat_power_scalar (DlTensor *self, gdouble base, GError **error)
{
  g_autoptr (DlTensor) a = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(a = as_double (self, error)))
    return NULL;
  return dl_tensor_rpow_scalar (a, base, error);
}

static gboolean
check_float_power_ (DlTensor *self, DlTensor *exponent, GError **error)
{
  if (!dl_check_live ("float_power_", self, error)
      || (exponent && !dl_check_live ("float_power_", exponent, error)))
    return FALSE;
  if (self->dtype == DL_DTYPE_FLOAT64)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
               "float_power_: the base given to float_power_ has dtype %s but the operation's "
               "result requires dtype float64",
               dl_dtype_get_name (self->dtype));
  return FALSE;
}

/**
 * dl_tensor_float_power_:
 * @self: a float64 #DlTensor, written in place
 * @exponent: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self ^ exponent in double precision. As in PyTorch,
 * @self must be float64.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_float_power_ (DlTensor *self, DlTensor *exponent, GError **error)
{
  g_autoptr (DlTensor) b = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (exponent), NULL);
  if (!check_float_power_ (self, exponent, error) || !(b = as_double (exponent, error)))
    return NULL;
  b->is_wrapped_number = exponent->is_wrapped_number;
  return dl_tensor_pow_ (self, b, error);
}

/**
 * dl_tensor_float_power_scalar_:
 * @self: a float64 #DlTensor, written in place
 * @exponent: the exponent
 * @error: return location for a #GError
 *
 * In place, self = self ^ @exponent in double precision; @self must be
 * float64.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_float_power_scalar_ (DlTensor *self, gdouble exponent, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!check_float_power_ (self, NULL, error))
    return NULL;
  return dl_tensor_pow_scalar_ (self, exponent, error);
}

/**
 * dl_tensor_polygamma:
 * @self: a #DlTensor
 * @n: the order of the derivative, not negative
 * @error: return location for a #GError
 *
 * The @n-th derivative of the digamma function at each element of @self,
 * as `torch.polygamma (n, self)`: digamma for @n = 0; +inf at the
 * non-positive integers for @n >= 1. Differentiable
 * (PolygammaBackward0: polygamma (n + 1, x)).
 *
 * Fails with %DL_ERROR_ARGUMENT for a negative @n.
 *
 * Returns: (transfer full): a floating-point tensor of @self's shape, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_polygamma (DlTensor *self, gint64 n, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (n < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "polygamma(n, x) does not support negative n.");
      return NULL;
    }
  if (n == 0)
    return dl_tensor_digamma (self, error);
  if (n > G_MAXINT)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "polygamma: n=%" G_GINT64_FORMAT " is too large", n);
      return NULL;
    }
  return dl_pointwise_polygamma ((gint)n, self, error);
}

/**
 * dl_tensor_special_i1:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * The modified Bessel function of the first kind of order 1 at each
 * element of @self, as `torch.special.i1`. Differentiable
 * (SpecialI1Backward0).
 *
 * Returns: (transfer full): a floating-point tensor of @self's shape, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_special_i1 (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return dl_pointwise_i1 (self, error);
}
