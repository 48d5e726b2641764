/* dl-ops-math.c: the elementwise ops outside the op table: those with
 * more numbers than the table's (nan_to_num, logit, ldexp, float_power),
 * division with a rounding mode, and the logical ops and the closeness
 * tests, which compose the table's. Clamp is in dl-ops-math-clamp.c, lerp,
 * addcmul and addcdiv in dl-ops-math-lerp.c.
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
