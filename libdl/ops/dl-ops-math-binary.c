/* dl-ops-math-binary.c: the pointwise math library, binary ops (pow,
 * floor_divide, remainder, atan2, bitwise and logical ops), clamp, lerp and
 * the in-place forms: checks, dtype rules, dispatch and gradients.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-ops-private.h"
#include "dl-ops-math-private.h"

/* ---- binary ------------------------------------------------------------ */

static const struct
{
  const gchar *name;
  const gchar *node; /* NULL: not differentiable; "NotImplemented": records
                      * a node whose backward fails, as PyTorch's does */
} binary_info[DL_N_BINARY_OPS] = {
  [DL_BINARY_POW] = { "pow", "PowBackward1" },
  [DL_BINARY_FLOOR_DIVIDE] = { "floor_divide", "NotImplemented" },
  [DL_BINARY_REMAINDER] = { "remainder", "RemainderBackward0" },
  [DL_BINARY_ATAN2] = { "atan2", "Atan2Backward0" },
  [DL_BINARY_BITWISE_AND] = { "bitwise_and", NULL },
  [DL_BINARY_BITWISE_OR] = { "bitwise_or", NULL },
  [DL_BINARY_BITWISE_XOR] = { "bitwise_xor", NULL },
  [DL_BINARY_ZERO_WHERE] = { "zero_where", NULL },
};

static gboolean math_binary_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);

/* whether the integer tensor @b has a zero element */
static gboolean
has_zero (DlTensor *b, gboolean *result, GError **error)
{
  g_autoptr (DlTensor) z = dl_tensor_eq_scalar (b, 0, error);
  g_autoptr (DlTensor) n = z ? dl_tensor_sum (z, error) : NULL;
  GError *local = NULL;
  gdouble count;

  if (n == NULL)
    return FALSE;
  count = dl_tensor_item (n, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  *result = count > 0;
  return TRUE;
}

static DlTensor *
math_binary (DlBinaryOp op, DlTensor *a, DlTensor *b, GError **error)
{
  const gchar *name = binary_info[op].name;
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
  rdt = dl_result_type (a, b);
  switch (op)
    {
      case DL_BINARY_POW:
      case DL_BINARY_FLOOR_DIVIDE:
      case DL_BINARY_REMAINDER:
        if (rdt == DL_DTYPE_BOOL)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: not supported for bool tensors",
                         name);
            return NULL;
          }
        break;
      case DL_BINARY_ATAN2:
        if (!dl_dtype_is_floating_point (rdt))
          rdt = dl_get_default_dtype ();
        break;
      case DL_BINARY_BITWISE_AND:
      case DL_BINARY_BITWISE_OR:
      case DL_BINARY_BITWISE_XOR:
        if (dl_dtype_is_floating_point (rdt))
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                         "%s: only integer and bool tensors are supported, not %s", name,
                         dl_dtype_get_name (rdt));
            return NULL;
          }
        break;
      default:
        break;
    }
  cdt = dl_math_is_half (rdt) ? DL_DTYPE_FLOAT32 : rdt;
  if (!(ca = dl_math_cast_through (a, rdt, cdt, error))
      || !(cb = dl_math_cast_through (b, rdt, cdt, error)))
    return NULL;

  if ((op == DL_BINARY_FLOOR_DIVIDE || op == DL_BINARY_REMAINDER)
      && !dl_dtype_is_floating_point (cdt))
    {
      gboolean zero = FALSE;

      if (!has_zero (cb, &zero, error))
        return NULL;
      if (zero)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "ZeroDivisionError: %s: integer division by zero", name);
          return NULL;
        }
    }
  if (op == DL_BINARY_POW && !dl_dtype_is_floating_point (cdt) && b->is_wrapped_number)
    {
      GError *local = NULL;
      gdouble e = dl_tensor_item (b, &local);

      if (local)
        {
          g_propagate_error (error, local);
          return NULL;
        }
      if (e < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "pow: Integers to negative integer powers are not allowed (exponent %g).",
                       e);
          return NULL;
        }
    }

  if (!(ctx = DL_TENSOR_BACKEND (a, binary, name, error))
      || !(out = dl_tensor_new_empty_internal (dl_tensor_device (a), cdt, shape, ndim, error)))
    return NULL;
  ops[0] = out;
  ops[1] = ca;
  ops[2] = cb;
  dl_iter_init (&iter, 3, ops, shape, ndim);
  ctx->backend->binary (ctx, op, &iter, cdt, 1.0);
  if (!(out = dl_math_finish_dtype (g_steal_pointer (&out), rdt, error)))
    return NULL;

  if (binary_info[op].node && dl_dtype_is_floating_point (rdt)
      && dl_autograd_any_requires (2, (DlTensor *[]){ a, b }))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (binary_info[op].node, math_binary_backward, 2,
                                                    (DlTensor *[]){ a, b });

      dl_node_data (node)->ints[0] = op;
      dl_node_save (node, a, FALSE);
      dl_node_save (node, b, FALSE);
      if (op == DL_BINARY_POW)
        dl_node_save (node, out, TRUE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/* @t with zeros where the bool @mask (consumed) is true */
static DlTensor *
zero_where (DlTensor *t, DlTensor *mask, GError **error)
{
  g_autoptr (DlTensor) m = mask;
  g_autoptr (DlTensor) f = NULL;

  if (m == NULL || !(f = dl_cast_nograd (m, t->dtype, error)))
    return NULL;
  return math_binary (DL_BINARY_ZERO_WHERE, t, f, error);
}

static gboolean
math_binary_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  DlBinaryOp op = d->ints[0];
  DlTensor *g = go[0], *a, *b;
  g_autoptr (DlTensor) ga = NULL;
  g_autoptr (DlTensor) gb = NULL;

  TRY (a = dl_node_get_saved (node, 0, error));
  TRY (b = dl_node_get_saved (node, 1, error));
  switch (op)
    {
      case DL_BINARY_POW:
        if (dl_node_needs_input_grad (node, 0))
          {
            /* g b a^(b-1), zero where b == 0 */
            g_autoptr (DlTensor) bm1 = dl_tensor_sub_scalar (b, 1, error);
            g_autoptr (DlTensor) p = bm1 ? dl_tensor_pow (a, bm1, error) : NULL;
            g_autoptr (DlTensor) bp = p ? dl_tensor_mul (b, p, error) : NULL;
            g_autoptr (DlTensor) t = bp ? dl_tensor_mul (g, bp, error) : NULL;
            TRY (t);
            TRY (ga = zero_where (t, dl_tensor_eq_scalar (b, 0, error), error));
          }
        if (dl_node_needs_input_grad (node, 1))
          {
            /* g a^b ln a, zero where a == 0 and b >= 0 */
            DlTensor *out;
            g_autoptr (DlTensor) la = NULL;
            g_autoptr (DlTensor) ol = NULL;
            g_autoptr (DlTensor) t = NULL;
            g_autoptr (DlTensor) az = NULL;
            g_autoptr (DlTensor) bnn = NULL;

            TRY (out = dl_node_get_saved (node, 2, error));
            TRY (la = dl_tensor_log (a, error));
            TRY (ol = dl_tensor_mul (out, la, error));
            TRY (t = dl_tensor_mul (g, ol, error));
            TRY (az = dl_tensor_eq_scalar (a, 0, error));
            TRY (bnn = dl_tensor_ge_scalar (b, 0, error));
            TRY (gb = zero_where (t, dl_tensor_logical_and (az, bnn, error), error));
          }
        break;
      case DL_BINARY_REMAINDER:
        if (dl_node_needs_input_grad (node, 0))
          ga = g_object_ref (g);
        if (dl_node_needs_input_grad (node, 1))
          {
            /* -g floor (a / b) */
            g_autoptr (DlTensor) q = dl_tensor_floor_divide (a, b, error);
            g_autoptr (DlTensor) t = q ? dl_tensor_mul (g, q, error) : NULL;
            TRY (t);
            TRY (gb = dl_tensor_neg (t, error));
          }
        break;
      case DL_BINARY_ATAN2:
        {
          /* d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2) */
          g_autoptr (DlTensor) a2 = dl_tensor_mul (a, a, error);
          g_autoptr (DlTensor) b2 = a2 ? dl_tensor_mul (b, b, error) : NULL;
          g_autoptr (DlTensor) den = b2 ? dl_tensor_add (a2, b2, error) : NULL;
          g_autoptr (DlTensor) gd = den ? dl_tensor_div (g, den, error) : NULL;

          TRY (gd);
          if (dl_node_needs_input_grad (node, 0))
            TRY (ga = dl_tensor_mul (gd, b, error));
          if (dl_node_needs_input_grad (node, 1))
            {
              g_autoptr (DlTensor) t = dl_tensor_mul (gd, a, error);
              TRY (t);
              TRY (gb = dl_tensor_neg (t, error));
            }
        }
        break;
      case DL_BINARY_FLOOR_DIVIDE:
        g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                     "floor_divide: the result is not differentiable (PyTorch defines no "
                     "derivative for floor_divide)");
        return FALSE;
      default:
        g_assert_not_reached ();
    }
  if (ga)
    TRY (gi[0] = dl_sum_to (ga, d->inputs[0].sizes, d->inputs[0].ndim, error));
  if (gb)
    TRY (gi[1] = dl_sum_to (gb, d->inputs[1].sizes, d->inputs[1].ndim, error));
  return TRUE;
}

/**
 * dl_tensor_pow:
 * @self: a #DlTensor, the base
 * @exponent: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self ^ exponent elementwise, broadcasting and promoting as
 * PyTorch does. Integers to negative integer powers give 1 for 1, ±1 for
 * -1 and 0 otherwise; a negative wrapped number as the exponent of an
 * integer tensor is an error.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_pow (DlTensor *self, DlTensor *exponent, GError **error)
{
  return math_binary (DL_BINARY_POW, self, exponent, error);
}

/**
 * dl_tensor_pow_scalar:
 * @self: a #DlTensor, the base
 * @exponent: a number
 * @error: return location for a #GError
 *
 * Computes self ^ exponent elementwise with a number as the exponent.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_pow_scalar (DlTensor *self, gdouble exponent, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = dl_wrapped_scalar (exponent);
  return math_binary (DL_BINARY_POW, self, s, error);
}

/**
 * dl_tensor_rpow_scalar:
 * @self: a #DlTensor, the exponent
 * @base: a number
 * @error: return location for a #GError
 *
 * Computes base ^ self elementwise, for Python's `2 ** t`.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_rpow_scalar (DlTensor *self, gdouble base, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = dl_wrapped_scalar (base);
  return math_binary (DL_BINARY_POW, s, self, error);
}

/**
 * dl_tensor_floor_divide:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes the floor of self / other elementwise (Python's `//`). Integer
 * division by zero is an error. Not differentiable: as in PyTorch, the
 * result of inputs that require grad records a node whose backward fails.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_floor_divide (DlTensor *self, DlTensor *other, GError **error)
{
  return math_binary (DL_BINARY_FLOOR_DIVIDE, self, other, error);
}

/**
 * dl_tensor_floor_divide_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes the floor of self / other elementwise with a number as @other.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_floor_divide_scalar (DlTensor *self, gdouble other, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = dl_wrapped_scalar (other);
  return math_binary (DL_BINARY_FLOOR_DIVIDE, self, s, error);
}

/**
 * dl_tensor_remainder:
 * @self: a #DlTensor
 * @other: a #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self modulo other elementwise with the sign of @other, as
 * Python's `%`. Integer division by zero is an error.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_remainder (DlTensor *self, DlTensor *other, GError **error)
{
  return math_binary (DL_BINARY_REMAINDER, self, other, error);
}

/**
 * dl_tensor_remainder_scalar:
 * @self: a #DlTensor
 * @other: a number
 * @error: return location for a #GError
 *
 * Computes self modulo other elementwise with a number as @other.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_remainder_scalar (DlTensor *self, gdouble other, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = dl_wrapped_scalar (other);
  return math_binary (DL_BINARY_REMAINDER, self, s, error);
}

/**
 * dl_tensor_atan2:
 * @self: a #DlTensor, y
 * @other: a #DlTensor broadcastable with @self, x
 * @error: return location for a #GError
 *
 * Computes the angle of the point (other, self) elementwise, in [-pi, pi].
 * Integer tensors give the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_atan2 (DlTensor *self, DlTensor *other, GError **error)
{
  return math_binary (DL_BINARY_ATAN2, self, other, error);
}

/**
 * dl_tensor_bitwise_and:
 * @self: an integer or bool #DlTensor
 * @other: an integer or bool #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self & other elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bitwise_and (DlTensor *self, DlTensor *other, GError **error)
{
  return math_binary (DL_BINARY_BITWISE_AND, self, other, error);
}

/**
 * dl_tensor_bitwise_or:
 * @self: an integer or bool #DlTensor
 * @other: an integer or bool #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self | other elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bitwise_or (DlTensor *self, DlTensor *other, GError **error)
{
  return math_binary (DL_BINARY_BITWISE_OR, self, other, error);
}

/**
 * dl_tensor_bitwise_xor:
 * @self: an integer or bool #DlTensor
 * @other: an integer or bool #DlTensor broadcastable with @self
 * @error: return location for a #GError
 *
 * Computes self ^ other elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bitwise_xor (DlTensor *self, DlTensor *other, GError **error)
{
  return math_binary (DL_BINARY_BITWISE_XOR, self, other, error);
}

static DlTensor *
logical_op (DlBinaryOp op, DlTensor *a, DlTensor *b, GError **error)
{
  g_autoptr (DlTensor) zero = dl_tensor_new_wrapped_scalar (0, DL_DTYPE_BOOL);
  g_autoptr (DlTensor) ba = NULL;
  g_autoptr (DlTensor) bb = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (a) && DL_IS_TENSOR (b), NULL);
  if (!(ba = dl_tensor_ne (a, zero, error)) || !(bb = dl_tensor_ne (b, zero, error)))
    return NULL;
  return math_binary (op, ba, bb, error);
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
  return logical_op (DL_BINARY_BITWISE_AND, self, other, error);
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
  return logical_op (DL_BINARY_BITWISE_OR, self, other, error);
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
  return logical_op (DL_BINARY_BITWISE_XOR, self, other, error);
}

/* ---- clamp, lerp and in-place forms ---------------------------------- */

static gboolean
clamp_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  gboolean has_min = d->ints[0], has_max = d->ints[1];
  DlTensor *g = go[0], *x, *mn = NULL, *mx = NULL;
  guint imax = has_min ? 2 : 1;

  TRY (x = dl_node_get_saved (node, 0, error));
  if (has_min)
    TRY (mn = dl_node_get_saved (node, 1, error));
  if (has_max)
    TRY (mx = dl_node_get_saved (node, imax, error));

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
      TRY (t = dl_math_mul_mask (g, g_steal_pointer (&m), error));
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
      TRY (t = dl_math_mul_mask (g, g_steal_pointer (&m), error));
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
      TRY (t = dl_math_mul_mask (g, g_steal_pointer (&m), error));
      TRY (gi[imax] = dl_sum_to (t, d->inputs[imax].sizes, d->inputs[imax].ndim, error));
    }
  return TRUE;
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
  inputs[n++] = self;
  if (min)
    inputs[n++] = min;
  if (max)
    inputs[n++] = max;
  if (dl_dtype_is_floating_point (out->dtype) && dl_autograd_any_requires (n, inputs))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("ClampBackward1", clamp_backward, n, inputs);

      dl_node_data (node)->ints[0] = min != NULL;
      dl_node_data (node)->ints[1] = max != NULL;
      for (guint i = 0; i < n; i++)
        dl_node_save (node, inputs[i], FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
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

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  lo = dl_wrapped_scalar (min);
  hi = dl_wrapped_scalar (max);
  return dl_tensor_clamp (self, lo, hi, error);
}

typedef DlTensor *(*InplaceFunc) (DlTensor *src, gpointer data, GError **error);

/* An in-place op from an out-of-place @fn: the result is computed from
 * @self (or, when autograd is involved, from a clone carrying its history)
 * and written back, data and history, so that autograd sees the new
 * value. @others are further inputs that may require grad. */
static DlTensor *
inplace_commit (const gchar *name,
                DlTensor *self,
                guint n_others,
                DlTensor **others,
                InplaceFunc fn,
                gpointer data,
                GError **error)
{
  g_autoptr (DlTensor) src = NULL;
  g_autoptr (DlTensor) result = NULL;
  gboolean grad;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_no_internal_overlap (name, self, error))
    return NULL;
  grad = dl_inplace_wants_history (self, n_others, others);
  if (grad && !dl_inplace_check_history (name, self, error))
    return NULL;
  if (grad)
    src = dl_tensor_clone (self, error);
  else
    src = dl_tensor_detach (self);
  if (src == NULL || !(result = fn (src, data, error)))
    return NULL;
  if (result->ndim != self->ndim
      || memcmp (result->sizes, self->sizes, self->ndim * sizeof (gint64)) != 0)
    {
      g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *bs = dl_shape_to_string (result->sizes, result->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: output with shape %s doesn't match the broadcast shape %s", name, s, bs);
      return NULL;
    }
  if ((dl_dtype_is_floating_point (result->dtype) && !dl_dtype_is_floating_point (self->dtype))
      || (result->dtype != DL_DTYPE_BOOL && self->dtype == DL_DTYPE_BOOL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: result type %s can't be cast to the desired output type %s", name,
                   dl_dtype_get_name (result->dtype), dl_dtype_get_name (self->dtype));
      return NULL;
    }
  return dl_inplace_commit (name, self, result, error);
}

static DlTensor *
relu_fn (DlTensor *src, gpointer data, GError **error)
{
  return dl_tensor_relu (src, error);
}

/**
 * dl_tensor_relu_:
 * @self: a #DlTensor, written in place
 * @error: return location for a #GError
 *
 * In place, self = max (self, 0).
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_relu_ (DlTensor *self, GError **error)
{
  return inplace_commit ("relu_", self, 0, NULL, relu_fn, NULL, error);
}

static DlTensor *
clamp_fn (DlTensor *src, gpointer data, GError **error)
{
  DlTensor **bounds = data;

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
 * Returns: (transfer full): @self, or %NULL with @error set
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
  return inplace_commit ("clamp_", self, n, others, clamp_fn, bounds, error);
}

typedef struct
{
  DlTensor *(*fn) (DlTensor *self, DlTensor *other, GError **error);
  DlTensor *other;
} BinaryInplace;

static DlTensor *
binary_fn (DlTensor *src, gpointer data, GError **error)
{
  BinaryInplace *b = data;

  return b->fn (src, b->other, error);
}

static DlTensor *
binary_inplace (const gchar *name,
                DlTensor *self,
                DlTensor *other,
                DlTensor *(*fn) (DlTensor *, DlTensor *, GError **),
                GError **error)
{
  BinaryInplace b = { fn, other };

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (!dl_check_no_partial_overlap (name, self, other, error))
    return NULL;
  return inplace_commit (name, self, 1, &other, binary_fn, &b, error);
}

/**
 * dl_tensor_pow_:
 * @self: a #DlTensor, written in place
 * @exponent: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self ^ exponent.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_pow_ (DlTensor *self, DlTensor *exponent, GError **error)
{
  return binary_inplace ("pow_", self, exponent, dl_tensor_pow, error);
}

/**
 * dl_tensor_floor_divide_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = floor (self / other).
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_floor_divide_ (DlTensor *self, DlTensor *other, GError **error)
{
  return binary_inplace ("floor_divide_", self, other, dl_tensor_floor_divide, error);
}

/**
 * dl_tensor_remainder_:
 * @self: a #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self modulo other, with the sign of @other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_remainder_ (DlTensor *self, DlTensor *other, GError **error)
{
  return binary_inplace ("remainder_", self, other, dl_tensor_remainder, error);
}

/**
 * dl_tensor_bitwise_and_:
 * @self: an integer or bool #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self & other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bitwise_and_ (DlTensor *self, DlTensor *other, GError **error)
{
  return binary_inplace ("bitwise_and_", self, other, dl_tensor_bitwise_and, error);
}

/**
 * dl_tensor_bitwise_or_:
 * @self: an integer or bool #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self | other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bitwise_or_ (DlTensor *self, DlTensor *other, GError **error)
{
  return binary_inplace ("bitwise_or_", self, other, dl_tensor_bitwise_or, error);
}

/**
 * dl_tensor_bitwise_xor_:
 * @self: an integer or bool #DlTensor, written in place
 * @other: a #DlTensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * In place, self = self ^ other.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bitwise_xor_ (DlTensor *self, DlTensor *other, GError **error)
{
  return binary_inplace ("bitwise_xor_", self, other, dl_tensor_bitwise_xor, error);
}

static gboolean
check_lerp (DlTensor *self, DlTensor *end, DlTensor *weight, GError **error)
{
  if (!dl_dtype_is_floating_point (self->dtype))
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
  return dl_math_is_half (self->dtype)
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
  if (dl_math_is_half (dt))
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
