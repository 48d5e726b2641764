/* dl-ops-pointwise.c: elementwise ops: checks, broadcasting, dtype
 * promotion, dispatch to the backend, and their gradients.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"

/* ---- helpers shared with the other families --------------------------- */

gboolean
dl_check_same_device (const gchar *op, DlTensor *a, DlTensor *b, GError **error)
{
  if (dl_tensor_device (a) == dl_tensor_device (b))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
               "%s: expected all tensors to be on the same device, but found at least "
               "two devices, %s and %s",
               op, dl_device_get_name (dl_tensor_device (a)),
               dl_device_get_name (dl_tensor_device (b)));
  return FALSE;
}

DlTensor *
dl_wrapped_scalar (gdouble value)
{
  gboolean integral = value == floor (value) && fabs (value) < 9.2e18;

  return dl_tensor_new_wrapped_scalar (value, integral ? DL_DTYPE_INT64 : DL_DTYPE_FLOAT64);
}

/**
 * dl_tensor_new_wrapped_scalar:
 * @value: the value
 * @dtype: the kind of number: %DL_DTYPE_FLOAT64 for a floating-point
 *   number, %DL_DTYPE_INT64 for an integer, %DL_DTYPE_BOOL for a boolean
 *
 * Makes a 0-d tensor that takes part in type promotion as a Python number
 * does in PyTorch: it never widens the other operand's dtype within its
 * category, so that an int32 tensor plus an integer stays int32 and an
 * integer tensor times the float 2.0 becomes the default float dtype.
 * Bindings whose numbers are all floats (JavaScript) use it to say which
 * kind of number they mean.
 *
 * Returns: (transfer full): the 0-d tensor
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_new_wrapped_scalar (gdouble value, DlDType dtype)
{
  DlTensor *s = dl_tensor_new_scalar (value, dtype);

  s->is_wrapped_number = TRUE;
  return s;
}

/* -1 stands for "no operand of this priority yet" */
static gint
combine_categories (gint higher, gint lower)
{
  if (higher >= 0 && dl_dtype_is_floating_point (higher))
    return higher;
  if (higher == DL_DTYPE_BOOL || (lower >= 0 && dl_dtype_is_floating_point (lower)))
    return higher < 0 ? lower : lower < 0 ? higher : (gint)dl_dtype_promote (higher, lower);
  return higher >= 0 ? higher : lower;
}

static void
update_state (gint *state, DlDType dtype)
{
  *state = *state < 0 ? (gint)dtype : (gint)dl_dtype_promote (*state, dtype);
}

DlDType
dl_result_type (DlTensor *a, DlTensor *b)
{
  gint dim = -1, zero = -1, wrapped = -1;
  DlTensor *ops[2] = { a, b };

  for (gint i = 0; i < 2; i++)
    {
      DlTensor *t = ops[i];

      if (t->is_wrapped_number)
        update_state (&wrapped,
                      dl_dtype_is_floating_point (t->dtype) ? dl_get_default_dtype () : t->dtype);
      else if (t->ndim == 0)
        update_state (&zero, t->dtype);
      else
        update_state (&dim, t->dtype);
    }
  return combine_categories (dim, combine_categories (zero, wrapped));
}

static DlTensor *
copy_into_new (DlTensor *t, DlDType dtype, GError **error)
{
  DlBackendContext *ctx;
  DlTensor *out, *ops[2];
  DlIter iter;

  if (!(ctx = DL_TENSOR_BACKEND (t, copy, "copy", error))
      || !(out
           = dl_tensor_new_empty_internal (dl_tensor_device (t), dtype, t->sizes, t->ndim, error)))
    return NULL;
  ops[0] = out;
  ops[1] = t;
  dl_iter_init (&iter, 2, ops, t->sizes, t->ndim);
  ctx->backend->copy (ctx, &iter, dtype, t->dtype);
  return out;
}

DlTensor *
dl_cast_nograd (DlTensor *t, DlDType dtype, GError **error)
{
  if (t->dtype == dtype)
    return g_object_ref (t);
  return copy_into_new (t, dtype, error);
}

DlTensor *
dl_contiguous_nograd (DlTensor *t, GError **error)
{
  if (dl_tensor_is_contiguous (t))
    return g_object_ref (t);
  return copy_into_new (t, t->dtype, error);
}

/* ---- binary ops --------------------------------------------------------- */

static const gchar *const binary_names[DL_N_BINARY_OPS] = {
  "add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
};

static const gchar *const binary_nodes[DL_N_BINARY_OPS] = {
  "AddBackward0", "SubBackward0",     "MulBackward0",
  "DivBackward0", "MaximumBackward0", "MinimumBackward0",
};

/* The dtype an op computes in: PyTorch's result type, with true division
 * of integers in the default float type. Half types compute in float32. */
static DlDType
compute_dtype (DlBinaryOp op, DlTensor *a, DlTensor *b, DlDType *result)
{
  DlDType r = dl_result_type (a, b);

  if (op == DL_BINARY_DIV && !dl_dtype_is_floating_point (r))
    r = dl_get_default_dtype ();
  *result = DL_BINARY_IS_COMPARISON (op) ? DL_DTYPE_BOOL : r;
  if (r == DL_DTYPE_FLOAT16 || r == DL_DTYPE_BFLOAT16)
    return DL_DTYPE_FLOAT32;
  return r;
}

static gboolean binary_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);

/* @t in the compute dtype @cdt. An op whose result is a 16-bit float
 * computes in float32 on operands first rounded to that type, so that a
 * number too large for it (float16 * 1e5) overflows as PyTorch's does. */
static DlTensor *
cast_through (DlTensor *t, DlDType result, DlDType cdt, GError **error)
{
  if ((result == DL_DTYPE_FLOAT16 || result == DL_DTYPE_BFLOAT16) && t->dtype != result)
    {
      g_autoptr (DlTensor) r = dl_cast_nograd (t, result, error);
      return r ? dl_cast_nograd (r, cdt, error) : NULL;
    }
  return dl_cast_nograd (t, cdt, error);
}

/* Computes op (a, b) into a new tensor, or into @into when given (its shape
 * must be the broadcast shape). Records autograd when asked. */
static DlTensor *
binary_op (DlBinaryOp op, DlTensor *a, DlTensor *b, gdouble alpha, DlTensor *into, GError **error)
{
  const gchar *name = binary_names[op];
  gint64 shape[DL_MAX_DIMS];
  gint ndim;
  DlDType cdt, rdt;
  g_autoptr (DlTensor) ca = NULL;
  g_autoptr (DlTensor) cb = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlTensor *ops[3];
  DlBackendContext *ctx;
  DlIter iter;

  g_return_val_if_fail (DL_IS_TENSOR (a) && DL_IS_TENSOR (b), NULL);
  if (!dl_check_same_device (name, a, b, error)
      || !dl_broadcast_shapes (name, a->sizes, a->ndim, b->sizes, b->ndim, shape, &ndim, error))
    return NULL;
  cdt = compute_dtype (op, a, b, &rdt);
  if (op == DL_BINARY_SUB && (a->dtype == DL_DTYPE_BOOL || b->dtype == DL_DTYPE_BOOL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "sub: subtraction, the `-` operator, with %s bool tensor%s is not "
                   "supported. If you are trying to invert a mask, use the `~` or "
                   "`logical_not()` operator instead.",
                   a->dtype == b->dtype ? "two" : "a", a->dtype == b->dtype ? "s" : "");
      return NULL;
    }
  if (cdt == DL_DTYPE_BOOL && !DL_BINARY_IS_COMPARISON (op) && op != DL_BINARY_ADD
      && op != DL_BINARY_MUL && op != DL_BINARY_MAXIMUM && op != DL_BINARY_MINIMUM)
    cdt = DL_DTYPE_INT64;

  if (!(ctx = DL_TENSOR_BACKEND (a, binary, name, error))
      || (into && !DL_TENSOR_BACKEND (a, copy, name, error))
      || !(ca = cast_through (a, rdt, cdt, error)) || !(cb = cast_through (b, rdt, cdt, error)))
    return NULL;

  if (into && into->dtype == (DL_BINARY_IS_COMPARISON (op) ? DL_DTYPE_BOOL : cdt))
    out = g_object_ref (into);
  else if (!(out = dl_empty_like_layout (a->ndim == ndim ? a : b,
                                         DL_BINARY_IS_COMPARISON (op) ? DL_DTYPE_BOOL : cdt, shape,
                                         ndim, error)))
    return NULL;

  ops[0] = out;
  ops[1] = ca;
  ops[2] = cb;
  dl_iter_init (&iter, 3, ops, shape, ndim);
  ctx->backend->binary (ctx, op, &iter, cdt, alpha);

  if (into)
    {
      if (out != into)
        {
          DlTensor *cops[2] = { into, out };
          dl_iter_init (&iter, 2, cops, shape, ndim);
          ctx->backend->copy (ctx, &iter, into->dtype, out->dtype);
        }
      dl_storage_bump_version (into->storage);
      return g_object_ref (into);
    }

  if (rdt != out->dtype)
    {
      DlTensor *r = dl_cast_nograd (out, rdt, error);
      g_object_unref (out);
      out = r;
      if (out == NULL)
        return NULL;
    }

  if (!DL_BINARY_IS_COMPARISON (op) && dl_autograd_any_requires (2, (DlTensor *[]){ a, b }))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op (binary_nodes[op], binary_backward, 2, (DlTensor *[]){ a, b });
      DlNodeData *d = dl_node_data (node);

      d->ints[0] = op;
      d->scalars[0] = alpha;
      if (op == DL_BINARY_MUL || op == DL_BINARY_DIV || op == DL_BINARY_MAXIMUM
          || op == DL_BINARY_MINIMUM)
        {
          dl_node_save (node, a, FALSE);
          dl_node_save (node, b, FALSE);
        }
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/* Gradient of maximum/minimum: to the larger (smaller) input; ties split. */
static DlTensor *
extremum_mask (DlTensor *x, DlTensor *y, gboolean max, GError **error)
{
  g_autoptr (DlTensor) strict = max ? dl_tensor_gt (x, y, error) : dl_tensor_lt (x, y, error);
  g_autoptr (DlTensor) tie = NULL;
  g_autoptr (DlTensor) fs = NULL;
  g_autoptr (DlTensor) ft = NULL;

  if (!strict || !(tie = dl_tensor_eq (x, y, error)))
    return NULL;
  if (!(fs = dl_tensor_to_dtype (strict, x->dtype, error))
      || !(ft = dl_tensor_to_dtype (tie, x->dtype, error)))
    return NULL;
  return dl_tensor_add_scaled (fs, ft, 0.5, error);
}

static gboolean
binary_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  DlBinaryOp op = d->ints[0];
  DlTensor *g = go[0];
  DlTensor *a = NULL, *b = NULL;
  g_autoptr (DlTensor) ga = NULL;
  g_autoptr (DlTensor) gb = NULL;

  if (op == DL_BINARY_MUL || op == DL_BINARY_DIV || op == DL_BINARY_MAXIMUM
      || op == DL_BINARY_MINIMUM)
    {
      TRY (a = dl_node_get_saved (node, 0, error));
      TRY (b = dl_node_get_saved (node, 1, error));
    }
  switch (op)
    {
      case DL_BINARY_ADD:
      case DL_BINARY_SUB:
        if (dl_node_needs_input_grad (node, 0))
          ga = g_object_ref (g);
        if (dl_node_needs_input_grad (node, 1))
          TRY (gb = dl_tensor_mul_scalar (g, op == DL_BINARY_ADD ? d->scalars[0] : -d->scalars[0],
                                          error));
        break;
      case DL_BINARY_MUL:
        if (dl_node_needs_input_grad (node, 0))
          TRY (ga = dl_tensor_mul (g, b, error));
        if (dl_node_needs_input_grad (node, 1))
          TRY (gb = dl_tensor_mul (g, a, error));
        break;
      case DL_BINARY_DIV:
        if (dl_node_needs_input_grad (node, 0))
          TRY (ga = dl_tensor_div (g, b, error));
        if (dl_node_needs_input_grad (node, 1))
          {
            /* d(a/b)/db = -a / b^2 */
            g_autoptr (DlTensor) t1 = dl_tensor_mul (g, a, error);
            g_autoptr (DlTensor) t2 = t1 ? dl_tensor_div (t1, b, error) : NULL;
            g_autoptr (DlTensor) t3 = t2 ? dl_tensor_div (t2, b, error) : NULL;
            TRY (t3);
            TRY (gb = dl_tensor_neg (t3, error));
          }
        break;
      case DL_BINARY_MAXIMUM:
      case DL_BINARY_MINIMUM:
        {
          gboolean max = op == DL_BINARY_MAXIMUM;
          if (dl_node_needs_input_grad (node, 0))
            {
              g_autoptr (DlTensor) m = extremum_mask (a, b, max, error);
              TRY (m);
              TRY (ga = dl_tensor_mul (g, m, error));
            }
          if (dl_node_needs_input_grad (node, 1))
            {
              g_autoptr (DlTensor) m = extremum_mask (b, a, max, error);
              TRY (m);
              TRY (gb = dl_tensor_mul (g, m, error));
            }
        }
        break;
      default:
        g_assert_not_reached ();
    }
  if (ga)
    TRY (gi[0] = dl_sum_to (ga, d->inputs[0].sizes, d->inputs[0].ndim, error));
  if (gb)
    TRY (gi[1] = dl_sum_to (gb, d->inputs[1].sizes, d->inputs[1].ndim, error));
  return TRUE;
}

/* An in-place op: checks, then either writes straight into @self (no
 * autograd involved) or computes out of place and takes the result over,
 * data and history, so that autograd sees the new value. */
static DlTensor *
inplace_op (DlBinaryOp op, DlTensor *self, DlTensor *other, gdouble alpha, GError **error)
{
  const gchar *name = binary_names[op];
  gint64 shape[DL_MAX_DIMS];
  gint ndim;
  DlDType rdt;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (!dl_broadcast_shapes (name, self->sizes, self->ndim, other->sizes, other->ndim, shape, &ndim,
                            error))
    return NULL;
  if (ndim != self->ndim || memcmp (shape, self->sizes, ndim * sizeof (gint64)) != 0)
    {
      g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *bs = dl_shape_to_string (shape, ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s_: output with shape %s doesn't match the broadcast shape %s", name, s, bs);
      return NULL;
    }
  if (!dl_check_no_internal_overlap (name, self, error)
      || !dl_check_no_partial_overlap (name, self, other, error))
    return NULL;
  compute_dtype (op, self, other, &rdt);
  if (dl_dtype_is_floating_point (rdt) && !dl_dtype_is_floating_point (self->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s_: result type %s can't be cast to the desired output type %s", name,
                   dl_dtype_get_name (rdt), dl_dtype_get_name (self->dtype));
      return NULL;
    }
  if (!dl_inplace_wants_history (self, 1, &other))
    return binary_op (op, self, other, alpha, self, error);

  {
    /* alias carries self's current history into the out-of-place op; an
     * op whose gradient needs self's old values gets a copy of them */
    g_autofree gchar *op_name = g_strconcat (name, "_", NULL);
    g_autoptr (DlTensor) alias = NULL;
    g_autoptr (DlTensor) result = NULL;

    if (!dl_inplace_check_history (op_name, self, error))
      return NULL;
    if (op == DL_BINARY_ADD || op == DL_BINARY_SUB)
      alias = dl_inplace_alias (self);
    else if (!(alias = dl_tensor_clone (self, error)))
      return NULL;
    if (!(result = binary_op (op, alias, other, alpha, NULL, error)))
      return NULL;
    return dl_inplace_commit (op_name, self, result, error);
  }
}

static DlTensor *
scalar_tensor_for (DlTensor *self, gdouble value)
{
  return dl_wrapped_scalar (value);
}

#define DEFINE_BINARY_PUBLIC(name, OP, what)                                                       \
  DlTensor *dl_tensor_##name (DlTensor *self, DlTensor *other, GError **error)                     \
  {                                                                                                \
    return binary_op (OP, self, other, 1.0, NULL, error);                                          \
  }                                                                                                \
  DlTensor *dl_tensor_##name##_scalar (DlTensor *self, gdouble other, GError **error)              \
  {                                                                                                \
    g_autoptr (DlTensor) s = NULL;                                                                 \
    g_return_val_if_fail (DL_IS_TENSOR (self), NULL);                                              \
    s = scalar_tensor_for (self, other);                                                           \
    return binary_op (OP, self, s, 1.0, NULL, error);                                              \
  }

/**
 * dl_tensor_add:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self + other elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_add_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self + other elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (add, DL_BINARY_ADD, "self + other")
/**
 * dl_tensor_sub:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self - other elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_sub_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self - other elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (sub, DL_BINARY_SUB, "self - other")
/**
 * dl_tensor_mul:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self * other elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_mul_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self * other elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (mul, DL_BINARY_MUL, "self * other")
/**
 * dl_tensor_div:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes the true quotient self / other elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_div_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes the true quotient self / other elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (div, DL_BINARY_DIV, "the true quotient self / other")
/**
 * dl_tensor_eq:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self == other as bool elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_eq_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self == other as bool elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (eq, DL_BINARY_EQ, "self == other as bool")
/**
 * dl_tensor_ne:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self != other as bool elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_ne_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self != other as bool elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (ne, DL_BINARY_NE, "self != other as bool")
/**
 * dl_tensor_lt:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self < other as bool elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_lt_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self < other as bool elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (lt, DL_BINARY_LT, "self < other as bool")
/**
 * dl_tensor_le:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self <= other as bool elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_le_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self <= other as bool elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (le, DL_BINARY_LE, "self <= other as bool")
/**
 * dl_tensor_gt:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self > other as bool elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_gt_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self > other as bool elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (gt, DL_BINARY_GT, "self > other as bool")
/**
 * dl_tensor_ge:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self >= other as bool elementwise, broadcasting both operands and promoting
 * their dtypes as PyTorch does.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
/**
 * dl_tensor_ge_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self >= other as bool elementwise with a number as @other. The number does
 * not widen the tensor's dtype, except that a fractional number next to an
 * integer tensor gives the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_BINARY_PUBLIC (ge, DL_BINARY_GE, "self >= other as bool")

/**
 * dl_tensor_maximum:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * The elementwise maximum; NaN wins.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_maximum (DlTensor *self, DlTensor *other, GError **error)
{
  return binary_op (DL_BINARY_MAXIMUM, self, other, 1.0, NULL, error);
}

/**
 * dl_tensor_minimum:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * The elementwise minimum; NaN wins.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_minimum (DlTensor *self, DlTensor *other, GError **error)
{
  return binary_op (DL_BINARY_MINIMUM, self, other, 1.0, NULL, error);
}

/**
 * dl_tensor_add_scaled:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @alpha: the factor for @other
 * @error: return location for a #GError
 *
 * Computes self + alpha * other, as torch.add (self, other, alpha=alpha).
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_add_scaled (DlTensor *self, DlTensor *other, gdouble alpha, GError **error)
{
  return binary_op (DL_BINARY_ADD, self, other, alpha, NULL, error);
}

/**
 * dl_tensor_rsub_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes other - self, for Python's `2 - t`.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_rsub_scalar (DlTensor *self, gdouble other, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = scalar_tensor_for (self, other);
  return binary_op (DL_BINARY_SUB, s, self, 1.0, NULL, error);
}

/**
 * dl_tensor_rdiv_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes other / self, for Python's `2 / t`.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_rdiv_scalar (DlTensor *self, gdouble other, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = scalar_tensor_for (self, other);
  return binary_op (DL_BINARY_DIV, s, self, 1.0, NULL, error);
}

#define DEFINE_INPLACE(name, OP, what)                                                             \
  DlTensor *dl_tensor_##name##_ (DlTensor *self, DlTensor *other, GError **error)                  \
  {                                                                                                \
    return inplace_op (OP, self, other, 1.0, error);                                               \
  }

/**
 * dl_tensor_add_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self + other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_INPLACE (add, DL_BINARY_ADD, "self + other")
/**
 * dl_tensor_sub_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self - other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_INPLACE (sub, DL_BINARY_SUB, "self - other")
/**
 * dl_tensor_mul_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self * other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_INPLACE (mul, DL_BINARY_MUL, "self * other")
/**
 * dl_tensor_div_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self / other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_INPLACE (div, DL_BINARY_DIV, "self / other")

/**
 * dl_tensor_add_scaled_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @alpha: the factor for @other
 * @error: return location for a #GError
 *
 * In place, self = self + alpha * other (the optimizers' axpy).
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_add_scaled_ (DlTensor *self, DlTensor *other, gdouble alpha, GError **error)
{
  return inplace_op (DL_BINARY_ADD, self, other, alpha, error);
}

/**
 * dl_tensor_add_scalar_:
 * @self: a #DlTensor, written in place
 * @other: a number
 * @error: return location for a #GError
 *
 * In place, self = self + other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_add_scalar_ (DlTensor *self, gdouble other, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = scalar_tensor_for (self, other);
  return inplace_op (DL_BINARY_ADD, self, s, 1.0, error);
}

/**
 * dl_tensor_mul_scalar_:
 * @self: a #DlTensor, written in place
 * @other: a number
 * @error: return location for a #GError
 *
 * In place, self = self * other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_mul_scalar_ (DlTensor *self, gdouble other, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = scalar_tensor_for (self, other);
  return inplace_op (DL_BINARY_MUL, self, s, 1.0, error);
}

/**
 * dl_tensor_fill_:
 * @self: a #DlTensor, written in place
 * @value: the value
 * @error: return location for a #GError
 *
 * Sets every element to @value.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_fill_ (DlTensor *self, gdouble value, GError **error)
{
  g_autoptr (DlTensor) holder = NULL;
  DlBackendContext *ctx;
  DlIter iter;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_no_internal_overlap ("fill_", self, error)
      || !(ctx = DL_TENSOR_BACKEND (self, fill, "fill_", error)))
    return NULL;
  if (dl_inplace_wants_history (self, 0, NULL))
    {
      if (!dl_inplace_check_history ("fill_", self, error))
        return NULL;
      holder = dl_inplace_overwrite_begin ("FillBackward0", self, NULL);
    }
  dl_iter_init (&iter, 1, &self, self->sizes, self->ndim);
  ctx->backend->fill (ctx, &iter, self->dtype, value);
  dl_storage_bump_version (self->storage);
  if (holder)
    dl_inplace_take_history (self, holder);
  return g_object_ref (self);
}

/**
 * dl_tensor_zero_:
 * @self: a #DlTensor, written in place
 * @error: return location for a #GError
 *
 * Sets every element to zero.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_zero_ (DlTensor *self, GError **error)
{
  return dl_tensor_fill_ (self, 0, error);
}

/**
 * dl_tensor_copy_:
 * @self: a #DlTensor, written in place
 * @src: a tensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * Copies the elements of @src into @self, converting dtypes.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_copy_ (DlTensor *self, DlTensor *src, GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  gint ndim;
  DlTensor *ops[2] = { self, src };
  g_autoptr (DlTensor) holder = NULL;
  DlBackendContext *ctx;
  DlIter iter;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (src), NULL);
  if (!dl_check_no_internal_overlap ("copy_", self, error)
      || !dl_check_no_partial_overlap ("copy_", self, src, error)
      || !dl_check_same_device ("copy_", self, src, error)
      || !dl_broadcast_shapes ("copy_", self->sizes, self->ndim, src->sizes, src->ndim, shape,
                               &ndim, error)
      || !(ctx = DL_TENSOR_BACKEND (self, copy, "copy_", error)))
    return NULL;
  if (ndim != self->ndim || memcmp (shape, self->sizes, ndim * sizeof (gint64)) != 0)
    {
      g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *ss = dl_shape_to_string (src->sizes, src->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "copy_: the size of source %s does not broadcast to the destination %s", ss, s);
      return NULL;
    }
  /* a source that requires grad matters only for a float destination */
  if (dl_inplace_wants_history (self, dl_dtype_is_floating_point (self->dtype) ? 1 : 0, &src))
    {
      if (!dl_inplace_check_history ("copy_", self, error))
        return NULL;
      holder = dl_inplace_overwrite_begin ("CopyBackwards", self, src);
    }
  dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
  ctx->backend->copy (ctx, &iter, self->dtype, src->dtype);
  dl_storage_bump_version (self->storage);
  if (holder)
    dl_inplace_take_history (self, holder);
  return g_object_ref (self);
}

/* ---- unary ops ---------------------------------------------------------- */

static const struct
{
  const gchar *name;
  const gchar *node;
  gboolean floating_only; /* integer inputs are promoted to the default float */
} unary_info[DL_N_UNARY_OPS] = {
  [DL_UNARY_NEG] = { "neg", "NegBackward0", FALSE },
  [DL_UNARY_EXP] = { "exp", "ExpBackward0", TRUE },
  [DL_UNARY_LOG] = { "log", "LogBackward0", TRUE },
  [DL_UNARY_RELU] = { "relu", "ReluBackward0", FALSE },
  [DL_UNARY_ABS] = { "abs", "AbsBackward0", FALSE },
  [DL_UNARY_SQRT] = { "sqrt", "SqrtBackward0", TRUE },
  [DL_UNARY_TANH] = { "tanh", "TanhBackward0", TRUE },
  [DL_UNARY_SIGMOID] = { "sigmoid", "SigmoidBackward0", TRUE },
};

static gboolean unary_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);

static DlTensor *
unary_op (DlUnaryOp op, DlTensor *x, GError **error)
{
  DlDType cdt = x->dtype, rdt = x->dtype;
  g_autoptr (DlTensor) cx = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlTensor *ops[2];
  DlBackendContext *ctx;
  DlIter iter;

  g_return_val_if_fail (DL_IS_TENSOR (x), NULL);
  if (x->dtype == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: not supported for bool tensors%s",
                   unary_info[op].name,
                   op == DL_UNARY_NEG ? "; use the `~` or `logical_not()` operator instead" : "");
      return NULL;
    }
  if (!dl_dtype_is_floating_point (cdt) && unary_info[op].floating_only)
    cdt = rdt = dl_get_default_dtype ();
  if (cdt == DL_DTYPE_FLOAT16 || cdt == DL_DTYPE_BFLOAT16)
    cdt = DL_DTYPE_FLOAT32;

  if (!(ctx = DL_TENSOR_BACKEND (x, unary, unary_info[op].name, error))
      || !(cx = dl_cast_nograd (x, cdt, error))
      || !(out = dl_empty_like_layout (x, cdt, x->sizes, x->ndim, error)))
    return NULL;
  ops[0] = out;
  ops[1] = cx;
  dl_iter_init (&iter, 2, ops, x->sizes, x->ndim);
  ctx->backend->unary (ctx, op, &iter, cdt);
  if (rdt != cdt)
    {
      DlTensor *r = dl_cast_nograd (out, rdt, error);
      g_object_unref (out);
      if (!(out = r))
        return NULL;
    }

  if (dl_autograd_any_requires (1, &x))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (unary_info[op].node, unary_backward, 1, &x);

      dl_node_data (node)->ints[0] = op;
      if (op == DL_UNARY_LOG || op == DL_UNARY_ABS)
        dl_node_save (node, x, FALSE);
      else if (op != DL_UNARY_NEG)
        dl_node_save (node, out, TRUE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

static DlTensor *
mask_to (DlTensor *mask, DlDType dtype, GError **error)
{
  g_autoptr (DlTensor) m = mask;
  return m ? dl_tensor_to_dtype (m, dtype, error) : NULL;
}

static gboolean
unary_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlUnaryOp op = dl_node_data (node)->ints[0];
  DlTensor *g = go[0], *s = NULL;

  if (op != DL_UNARY_NEG)
    TRY (s = dl_node_get_saved (node, 0, error));
  switch (op)
    {
      case DL_UNARY_NEG:
        gi[0] = dl_tensor_neg (g, error);
        break;
      case DL_UNARY_EXP: /* s = exp (x) */
        gi[0] = dl_tensor_mul (g, s, error);
        break;
      case DL_UNARY_LOG: /* s = x */
        gi[0] = dl_tensor_div (g, s, error);
        break;
      case DL_UNARY_RELU: /* s = relu (x) */
        {
          g_autoptr (DlTensor) m = mask_to (dl_tensor_gt_scalar (s, 0, error), g->dtype, error);
          TRY (m);
          gi[0] = dl_tensor_mul (g, m, error);
        }
        break;
      case DL_UNARY_ABS: /* s = x; sign (x) = (x > 0) - (x < 0) */
        {
          g_autoptr (DlTensor) pos = mask_to (dl_tensor_gt_scalar (s, 0, error), g->dtype, error);
          g_autoptr (DlTensor) neg
              = pos ? mask_to (dl_tensor_lt_scalar (s, 0, error), g->dtype, error) : NULL;
          g_autoptr (DlTensor) sign = neg ? dl_tensor_sub (pos, neg, error) : NULL;
          TRY (sign);
          gi[0] = dl_tensor_mul (g, sign, error);
        }
        break;
      case DL_UNARY_SQRT: /* s = sqrt (x); g / (2 s) */
        {
          g_autoptr (DlTensor) t = dl_tensor_div (g, s, error);
          TRY (t);
          gi[0] = dl_tensor_mul_scalar (t, 0.5, error);
        }
        break;
      case DL_UNARY_TANH: /* s = tanh (x); g (1 - s^2) */
        {
          g_autoptr (DlTensor) s2 = dl_tensor_mul (s, s, error);
          g_autoptr (DlTensor) d = s2 ? dl_tensor_rsub_scalar (s2, 1, error) : NULL;
          TRY (d);
          gi[0] = dl_tensor_mul (g, d, error);
        }
        break;
      case DL_UNARY_SIGMOID: /* s = sigmoid (x); g s (1 - s) */
        {
          g_autoptr (DlTensor) d = dl_tensor_rsub_scalar (s, 1, error);
          g_autoptr (DlTensor) sd = d ? dl_tensor_mul (s, d, error) : NULL;
          TRY (sd);
          gi[0] = dl_tensor_mul (g, sd, error);
        }
        break;
      default:
        g_assert_not_reached ();
    }
  return gi[0] != NULL;
}

#define DEFINE_UNARY_PUBLIC(name, OP, what)                                                        \
  DlTensor *dl_tensor_##name (DlTensor *self, GError **error)                                      \
  {                                                                                                \
    return unary_op (OP, self, error);                                                             \
  }

/**
 * dl_tensor_neg:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes -x elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (neg, DL_UNARY_NEG, "-x")
/**
 * dl_tensor_exp:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes e^x elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (exp, DL_UNARY_EXP, "e^x")
/**
 * dl_tensor_log:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the natural logarithm elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (log, DL_UNARY_LOG, "the natural logarithm")
/**
 * dl_tensor_relu:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes max (x, 0) elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (relu, DL_UNARY_RELU, "max (x, 0)")
/**
 * dl_tensor_abs:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes |x| elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (abs, DL_UNARY_ABS, "|x|")
/**
 * dl_tensor_sqrt:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the square root elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (sqrt, DL_UNARY_SQRT, "the square root")
/**
 * dl_tensor_tanh:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the hyperbolic tangent elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (tanh, DL_UNARY_TANH, "the hyperbolic tangent")
/**
 * dl_tensor_sigmoid:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes 1 / (1 + e^-x) elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (sigmoid, DL_UNARY_SIGMOID, "1 / (1 + e^-x)")

/* ---- dtype conversion and clone --------------------------------------- */

static gboolean
to_dtype_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  gi[0] = dl_tensor_to_dtype (go[0], dl_node_data (node)->inputs[0].dtype, error);
  return gi[0] != NULL;
}

/**
 * dl_tensor_to_dtype:
 * @self: a #DlTensor
 * @dtype: the dtype wanted
 * @error: return location for a #GError
 *
 * Converts the elements to @dtype. When @self already has @dtype, returns
 * @self itself, as torch's to() does.
 *
 * Returns: (transfer full): the converted tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_to_dtype (DlTensor *self, DlDType dtype, GError **error)
{
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if ((guint)dtype >= DL_N_DTYPES)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "to: invalid dtype %d", dtype);
      return NULL;
    }
  if (self->dtype == dtype)
    return g_object_ref (self);
  if (!(out = copy_into_new (self, dtype, error)))
    return NULL;
  if (dl_dtype_is_floating_point (dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("ToCopyBackward0", to_dtype_backward, 1, &self);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

static gboolean
identity_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  gi[0] = g_object_ref (go[0]);
  return TRUE;
}

/**
 * dl_tensor_clone:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a contiguous copy with its own storage, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clone (DlTensor *self, GError **error)
{
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(out = copy_into_new (self, self->dtype, error)))
    return NULL;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("CloneBackward0", identity_backward, 1, &self);
      dl_node_set_output (node, out, 0);
    }
  return out;
}
