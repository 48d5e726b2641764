/* dl-ops-math.c: the pointwise math library, unary functions: checks,
 * dtype rules, dispatch to the backend's math kernels, and gradients
 * written with tensor ops. Binary ops, clamp and lerp: dl-ops-math-binary.c.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-math-private.h"

/* ---- shared helpers ---------------------------------------------------- */

/* @t in @cdt; a result in a 16-bit float type is computed in float32 on
 * operands first rounded to that type, as in dl-ops-pointwise.c */
DlTensor *
dl_math_cast_through (DlTensor *t, DlDType result, DlDType cdt, GError **error)
{
  if (dl_math_is_half (result) && t->dtype != result)
    {
      g_autoptr (DlTensor) r = dl_cast_nograd (t, result, error);
      return r ? dl_cast_nograd (r, cdt, error) : NULL;
    }
  return dl_cast_nograd (t, cdt, error);
}

/* @out converted to @rdt (consumes @out) */
DlTensor *
dl_math_finish_dtype (DlTensor *out, DlDType rdt, GError **error)
{
  DlTensor *r;

  if (out == NULL || out->dtype == rdt)
    return out;
  r = dl_cast_nograd (out, rdt, error);
  g_object_unref (out);
  return r;
}

/* g * mask, the bool @mask (consumed) converted to @g's dtype */
DlTensor *
dl_math_mul_mask (DlTensor *g, DlTensor *mask, GError **error)
{
  g_autoptr (DlTensor) m = mask;
  g_autoptr (DlTensor) f = NULL;

  if (m == NULL || !(f = dl_tensor_to_dtype (m, g->dtype, error)))
    return NULL;
  return dl_tensor_mul (g, f, error);
}

/* ---- helpers of the unary ops ------------------------------------------ */

/* a bool tensor of @t's shape filled with @value */
static DlTensor *
constant_bool (DlTensor *t, gboolean value, GError **error)
{
  DlBackendContext *ctx;
  DlTensor *out;
  DlIter iter;

  if (!(ctx = DL_TENSOR_BACKEND (t, fill, "fill", error))
      || !(out = dl_tensor_new_empty_internal (dl_tensor_device (t), DL_DTYPE_BOOL, t->sizes,
                                               t->ndim, error)))
    return NULL;
  dl_iter_init (&iter, 1, &out, t->sizes, t->ndim);
  ctx->backend->fill (ctx, &iter, DL_DTYPE_BOOL, value ? 1.0 : 0.0);
  return out;
}

/* ---- unary ------------------------------------------------------------- */

typedef enum
{
  KIND_FLOAT,    /* integers and bool promote to the default float dtype */
  KIND_STRICT,   /* floating point only */
  KIND_ROUNDING, /* integers: a copy; bool: an error */
  KIND_SIGN,     /* every dtype, kept */
  KIND_PRED,     /* bool result; integers are finite */
  KIND_BITWISE,  /* integer and bool only */
  KIND_NAN,      /* nan_to_num: integers and bool: a copy */
} UnaryKind;

static const struct
{
  const gchar *name;
  const gchar *node;
  UnaryKind kind;
  gboolean save_output; /* the gradient needs the result, else the input */
} unary_info[DL_N_UNARY_OPS] = {
  [DL_UNARY_EXPM1] = { "expm1", "Expm1Backward0", KIND_FLOAT, TRUE },
  [DL_UNARY_LOG1P] = { "log1p", "Log1PBackward0", KIND_FLOAT, FALSE },
  [DL_UNARY_LOG2] = { "log2", "Log2Backward0", KIND_FLOAT, FALSE },
  [DL_UNARY_RSQRT] = { "rsqrt", "RsqrtBackward0", KIND_FLOAT, TRUE },
  [DL_UNARY_SIN] = { "sin", "SinBackward0", KIND_FLOAT, FALSE },
  [DL_UNARY_COS] = { "cos", "CosBackward0", KIND_FLOAT, FALSE },
  [DL_UNARY_TAN] = { "tan", "TanBackward0", KIND_FLOAT, TRUE },
  [DL_UNARY_GELU] = { "gelu", "GeluBackward0", KIND_STRICT, FALSE },
  [DL_UNARY_GELU_TANH] = { "gelu", "GeluBackward0", KIND_STRICT, FALSE },
  [DL_UNARY_SILU] = { "silu", "SiluBackward0", KIND_STRICT, FALSE },
  [DL_UNARY_SIGN] = { "sign", "SignBackward0", KIND_SIGN, FALSE },
  [DL_UNARY_FLOOR] = { "floor", "FloorBackward0", KIND_ROUNDING, FALSE },
  [DL_UNARY_CEIL] = { "ceil", "CeilBackward0", KIND_ROUNDING, FALSE },
  [DL_UNARY_ROUND] = { "round", "RoundBackward0", KIND_ROUNDING, FALSE },
  [DL_UNARY_TRUNC] = { "trunc", "TruncBackward0", KIND_ROUNDING, FALSE },
  [DL_UNARY_FRAC] = { "frac", "FracBackward0", KIND_STRICT, FALSE },
  [DL_UNARY_RECIPROCAL] = { "reciprocal", "ReciprocalBackward0", KIND_FLOAT, TRUE },
  [DL_UNARY_ERF] = { "erf", "ErfBackward0", KIND_FLOAT, FALSE },
  [DL_UNARY_BITWISE_NOT] = { "bitwise_not", NULL, KIND_BITWISE, FALSE },
  [DL_UNARY_ISNAN] = { "isnan", NULL, KIND_PRED, FALSE },
  [DL_UNARY_ISINF] = { "isinf", NULL, KIND_PRED, FALSE },
  [DL_UNARY_ISFINITE] = { "isfinite", NULL, KIND_PRED, FALSE },
  [DL_UNARY_NAN_TO_NUM] = { "nan_to_num", "NanToNumBackward0", KIND_NAN, FALSE },
};

static gboolean math_unary_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);

static DlTensor *
math_unary (DlUnaryOp op, DlTensor *x, const gdouble *params, GError **error)
{
  const gchar *name = unary_info[op].name;
  DlBackendContext *ctx;
  UnaryKind kind = unary_info[op].kind;
  gboolean floating = dl_dtype_is_floating_point (x->dtype);
  DlDType cdt = x->dtype, rdt = x->dtype;
  g_autoptr (DlTensor) cx = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlTensor *ops[2];
  DlIter iter;

  g_return_val_if_fail (DL_IS_TENSOR (x), NULL);
  if ((kind == KIND_STRICT && !floating) || (kind == KIND_ROUNDING && x->dtype == DL_DTYPE_BOOL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: not supported for %s tensors", name,
                   dl_dtype_get_name (x->dtype));
      return NULL;
    }
  if (kind == KIND_BITWISE && floating)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: only integer and bool tensors are supported, not %s", name,
                   dl_dtype_get_name (x->dtype));
      return NULL;
    }
  if (!floating && (kind == KIND_ROUNDING || kind == KIND_NAN))
    return dl_tensor_clone (x, error);
  if (!floating && kind == KIND_PRED)
    return constant_bool (x, op == DL_UNARY_ISFINITE, error);
  if (!floating && kind == KIND_FLOAT)
    cdt = rdt = dl_get_default_dtype ();
  if (dl_math_is_half (cdt))
    cdt = DL_DTYPE_FLOAT32;
  if (kind == KIND_PRED)
    rdt = DL_DTYPE_BOOL;

  if (!(ctx = params ? DL_TENSOR_BACKEND (x, unary_params, name, error)
                     : DL_TENSOR_BACKEND (x, unary, name, error))
      || !(cx = dl_cast_nograd (x, cdt, error))
      || !(out = dl_tensor_new_empty_internal (dl_tensor_device (x),
                                               kind == KIND_PRED ? DL_DTYPE_BOOL : cdt, x->sizes,
                                               x->ndim, error)))
    return NULL;
  ops[0] = out;
  ops[1] = cx;
  dl_iter_init (&iter, 2, ops, x->sizes, x->ndim);
  if (params)
    ctx->backend->unary_params (ctx, op, &iter, cdt, params);
  else
    ctx->backend->unary (ctx, op, &iter, cdt);
  if (!(out = dl_math_finish_dtype (g_steal_pointer (&out), rdt, error)))
    return NULL;

  if (unary_info[op].node && dl_dtype_is_floating_point (rdt) && dl_autograd_any_requires (1, &x))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op (unary_info[op].node, math_unary_backward, 1, &x);

      dl_node_data (node)->ints[0] = op;
      if (unary_info[op].save_output)
        dl_node_save (node, out, TRUE);
      else
        dl_node_save (node, x, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/* g * d(gelu)/dx; exact: Phi (x) + x phi (x); tanh form: with
 * u = k (x + c x^3), t = tanh (u): 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2) */
static DlTensor *
gelu_grad (DlTensor *g, DlTensor *x, gboolean approximate, GError **error)
{
  const gdouble k = 0.79788456080286535588, c = 0.044715;
  g_autoptr (DlTensor) d = NULL;

  if (!approximate)
    {
      g_autoptr (DlTensor) xs = dl_tensor_mul_scalar (x, M_SQRT1_2, error);
      g_autoptr (DlTensor) e = xs ? dl_tensor_erf (xs, error) : NULL;
      g_autoptr (DlTensor) e1 = e ? dl_tensor_add_scalar (e, 1, error) : NULL;
      g_autoptr (DlTensor) cdf = e1 ? dl_tensor_mul_scalar (e1, 0.5, error) : NULL;
      g_autoptr (DlTensor) x2 = cdf ? dl_tensor_mul (x, x, error) : NULL;
      g_autoptr (DlTensor) x2h = x2 ? dl_tensor_mul_scalar (x2, -0.5, error) : NULL;
      g_autoptr (DlTensor) ex = x2h ? dl_tensor_exp (x2h, error) : NULL;
      g_autoptr (DlTensor) pdf
          = ex ? dl_tensor_mul_scalar (ex, 0.5 * M_2_SQRTPI * M_SQRT1_2, error) : NULL;
      g_autoptr (DlTensor) xpdf = pdf ? dl_tensor_mul (x, pdf, error) : NULL;
      d = xpdf ? dl_tensor_add (cdf, xpdf, error) : NULL;
    }
  else
    {
      g_autoptr (DlTensor) x2 = dl_tensor_mul (x, x, error);
      g_autoptr (DlTensor) x3 = x2 ? dl_tensor_mul (x2, x, error) : NULL;
      g_autoptr (DlTensor) inner = x3 ? dl_tensor_add_scaled (x, x3, c, error) : NULL;
      g_autoptr (DlTensor) u = inner ? dl_tensor_mul_scalar (inner, k, error) : NULL;
      g_autoptr (DlTensor) t = u ? dl_tensor_tanh (u, error) : NULL;
      g_autoptr (DlTensor) left = t ? dl_tensor_add_scalar (t, 1, error) : NULL;
      g_autoptr (DlTensor) lefth = left ? dl_tensor_mul_scalar (left, 0.5, error) : NULL;
      g_autoptr (DlTensor) t2 = lefth ? dl_tensor_mul (t, t, error) : NULL;
      g_autoptr (DlTensor) sech2 = t2 ? dl_tensor_rsub_scalar (t2, 1, error) : NULL;
      g_autoptr (DlTensor) p = sech2 ? dl_tensor_mul_scalar (x2, 3 * c, error) : NULL;
      g_autoptr (DlTensor) p1 = p ? dl_tensor_add_scalar (p, 1, error) : NULL;
      g_autoptr (DlTensor) du = p1 ? dl_tensor_mul_scalar (p1, 0.5 * k, error) : NULL;
      g_autoptr (DlTensor) r1 = du ? dl_tensor_mul (x, sech2, error) : NULL;
      g_autoptr (DlTensor) right = r1 ? dl_tensor_mul (r1, du, error) : NULL;
      d = right ? dl_tensor_add (lefth, right, error) : NULL;
    }
  return d ? dl_tensor_mul (g, d, error) : NULL;
}

static gboolean
math_unary_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlUnaryOp op = dl_node_data (node)->ints[0];
  DlTensor *g = go[0], *s;

  TRY (s = dl_node_get_saved (node, 0, error));
  switch (op)
    {
      case DL_UNARY_EXPM1: /* s = expm1 (x): g (s + 1) */
        {
          g_autoptr (DlTensor) d = dl_tensor_add_scalar (s, 1, error);
          TRY (d);
          gi[0] = dl_tensor_mul (g, d, error);
        }
        break;
      case DL_UNARY_LOG1P: /* s = x: g / (x + 1) */
        {
          g_autoptr (DlTensor) d = dl_tensor_add_scalar (s, 1, error);
          TRY (d);
          gi[0] = dl_tensor_div (g, d, error);
        }
        break;
      case DL_UNARY_LOG2: /* s = x: g / (x ln 2) */
        {
          g_autoptr (DlTensor) d = dl_tensor_mul_scalar (s, M_LN2, error);
          TRY (d);
          gi[0] = dl_tensor_div (g, d, error);
        }
        break;
      case DL_UNARY_RSQRT: /* s = x^-1/2: -g s^3 / 2 */
        {
          g_autoptr (DlTensor) s2 = dl_tensor_mul (s, s, error);
          g_autoptr (DlTensor) s3 = s2 ? dl_tensor_mul (s2, s, error) : NULL;
          g_autoptr (DlTensor) d = s3 ? dl_tensor_mul_scalar (s3, -0.5, error) : NULL;
          TRY (d);
          gi[0] = dl_tensor_mul (g, d, error);
        }
        break;
      case DL_UNARY_SIN: /* s = x: g cos x */
        {
          g_autoptr (DlTensor) d = dl_tensor_cos (s, error);
          TRY (d);
          gi[0] = dl_tensor_mul (g, d, error);
        }
        break;
      case DL_UNARY_COS: /* s = x: -g sin x */
        {
          g_autoptr (DlTensor) d = dl_tensor_sin (s, error);
          g_autoptr (DlTensor) nd = d ? dl_tensor_neg (d, error) : NULL;
          TRY (nd);
          gi[0] = dl_tensor_mul (g, nd, error);
        }
        break;
      case DL_UNARY_TAN: /* s = tan x: g (1 + s^2) */
        {
          g_autoptr (DlTensor) s2 = dl_tensor_mul (s, s, error);
          g_autoptr (DlTensor) d = s2 ? dl_tensor_add_scalar (s2, 1, error) : NULL;
          TRY (d);
          gi[0] = dl_tensor_mul (g, d, error);
        }
        break;
      case DL_UNARY_GELU:
      case DL_UNARY_GELU_TANH:
        gi[0] = gelu_grad (g, s, op == DL_UNARY_GELU_TANH, error);
        break;
      case DL_UNARY_SILU: /* s = x, sg = sigmoid (x): g sg (1 + x (1 - sg)) */
        {
          g_autoptr (DlTensor) sg = dl_tensor_sigmoid (s, error);
          g_autoptr (DlTensor) one_m = sg ? dl_tensor_rsub_scalar (sg, 1, error) : NULL;
          g_autoptr (DlTensor) xo = one_m ? dl_tensor_mul (s, one_m, error) : NULL;
          g_autoptr (DlTensor) xo1 = xo ? dl_tensor_add_scalar (xo, 1, error) : NULL;
          g_autoptr (DlTensor) d = xo1 ? dl_tensor_mul (sg, xo1, error) : NULL;
          TRY (d);
          gi[0] = dl_tensor_mul (g, d, error);
        }
        break;
      case DL_UNARY_SIGN:
      case DL_UNARY_FLOOR:
      case DL_UNARY_CEIL:
      case DL_UNARY_ROUND:
      case DL_UNARY_TRUNC:
        gi[0] = dl_zeros (g->sizes, g->ndim, g->dtype, dl_tensor_device (g), error);
        break;
      case DL_UNARY_FRAC:
        gi[0] = g_object_ref (g);
        break;
      case DL_UNARY_RECIPROCAL: /* s = 1 / x: -g s^2 */
        {
          g_autoptr (DlTensor) s2 = dl_tensor_mul (s, s, error);
          g_autoptr (DlTensor) d = s2 ? dl_tensor_neg (s2, error) : NULL;
          TRY (d);
          gi[0] = dl_tensor_mul (g, d, error);
        }
        break;
      case DL_UNARY_ERF: /* s = x: g 2/sqrt(pi) e^-x^2 */
        {
          g_autoptr (DlTensor) x2 = dl_tensor_mul (s, s, error);
          g_autoptr (DlTensor) nx2 = x2 ? dl_tensor_neg (x2, error) : NULL;
          g_autoptr (DlTensor) e = nx2 ? dl_tensor_exp (nx2, error) : NULL;
          g_autoptr (DlTensor) d = e ? dl_tensor_mul_scalar (e, M_2_SQRTPI, error) : NULL;
          TRY (d);
          gi[0] = dl_tensor_mul (g, d, error);
        }
        break;
      case DL_UNARY_NAN_TO_NUM: /* s = x: g where x is finite */
        gi[0] = dl_math_mul_mask (g, dl_tensor_isfinite (s, error), error);
        break;
      default:
        g_assert_not_reached ();
    }
  return gi[0] != NULL;
}

#define DEFINE_UNARY_PUBLIC(name, OP)                                                              \
  DlTensor *dl_tensor_##name (DlTensor *self, GError **error)                                      \
  {                                                                                                \
    return math_unary (OP, self, NULL, error);                                                     \
  }

/**
 * dl_tensor_expm1:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes e^x - 1 elementwise, accurately near 0. Integer and bool
 * tensors give the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (expm1, DL_UNARY_EXPM1)
/**
 * dl_tensor_log1p:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes ln (1 + x) elementwise, accurately near 0. Integer and bool
 * tensors give the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (log1p, DL_UNARY_LOG1P)
/**
 * dl_tensor_log2:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the base-2 logarithm elementwise. Integer and bool tensors give
 * the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (log2, DL_UNARY_LOG2)
/**
 * dl_tensor_rsqrt:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes 1 / sqrt (x) elementwise. Integer and bool tensors give the
 * default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (rsqrt, DL_UNARY_RSQRT)
/**
 * dl_tensor_sin:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the sine elementwise. Integer and bool tensors give the default
 * float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (sin, DL_UNARY_SIN)
/**
 * dl_tensor_cos:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the cosine elementwise. Integer and bool tensors give the
 * default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (cos, DL_UNARY_COS)
/**
 * dl_tensor_tan:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the tangent elementwise. Integer and bool tensors give the
 * default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (tan, DL_UNARY_TAN)
/**
 * dl_tensor_gelu:
 * @self: a floating-point #DlTensor
 * @error: return location for a #GError
 *
 * Computes the exact GELU, x Phi (x) with Phi the standard normal
 * distribution function, elementwise (torch.nn.functional.gelu).
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (gelu, DL_UNARY_GELU)
/**
 * dl_tensor_gelu_tanh:
 * @self: a floating-point #DlTensor
 * @error: return location for a #GError
 *
 * Computes GELU's tanh approximation,
 * 0.5 x (1 + tanh (sqrt (2 / pi) (x + 0.044715 x^3))), elementwise
 * (torch.nn.functional.gelu with approximate='tanh').
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (gelu_tanh, DL_UNARY_GELU_TANH)
/**
 * dl_tensor_silu:
 * @self: a floating-point #DlTensor
 * @error: return location for a #GError
 *
 * Computes x sigmoid (x) elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (silu, DL_UNARY_SILU)
/**
 * dl_tensor_sign:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the sign, -1, 0 or 1, elementwise in @self's dtype; NaN gives 0.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (sign, DL_UNARY_SIGN)
/**
 * dl_tensor_floor:
 * @self: a #DlTensor, not bool
 * @error: return location for a #GError
 *
 * Rounds down elementwise; an integer tensor gives a copy.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (floor, DL_UNARY_FLOOR)
/**
 * dl_tensor_ceil:
 * @self: a #DlTensor, not bool
 * @error: return location for a #GError
 *
 * Rounds up elementwise; an integer tensor gives a copy.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (ceil, DL_UNARY_CEIL)
/**
 * dl_tensor_round:
 * @self: a #DlTensor, not bool
 * @error: return location for a #GError
 *
 * Rounds to the nearest integer elementwise, halves to even; an integer
 * tensor gives a copy.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (round, DL_UNARY_ROUND)
/**
 * dl_tensor_trunc:
 * @self: a #DlTensor, not bool
 * @error: return location for a #GError
 *
 * Rounds toward zero elementwise; an integer tensor gives a copy.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (trunc, DL_UNARY_TRUNC)
/**
 * dl_tensor_frac:
 * @self: a floating-point #DlTensor
 * @error: return location for a #GError
 *
 * Computes the fractional part, x - trunc (x), elementwise.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (frac, DL_UNARY_FRAC)
/**
 * dl_tensor_reciprocal:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes 1 / x elementwise. Integer and bool tensors give the default
 * float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (reciprocal, DL_UNARY_RECIPROCAL)
/**
 * dl_tensor_erf:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Computes the error function elementwise. Integer and bool tensors give
 * the default float dtype.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (erf, DL_UNARY_ERF)
/**
 * dl_tensor_isnan:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Tests each element for NaN.
 *
 * Returns: (transfer full): a bool tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (isnan, DL_UNARY_ISNAN)
/**
 * dl_tensor_isinf:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Tests each element for positive or negative infinity.
 *
 * Returns: (transfer full): a bool tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (isinf, DL_UNARY_ISINF)
/**
 * dl_tensor_isfinite:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Tests each element for being neither infinite nor NaN.
 *
 * Returns: (transfer full): a bool tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (isfinite, DL_UNARY_ISFINITE)
/**
 * dl_tensor_bitwise_not:
 * @self: an integer or bool #DlTensor
 * @error: return location for a #GError
 *
 * Computes ~x elementwise: the bitwise complement of integers, the
 * negation of bools.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DEFINE_UNARY_PUBLIC (bitwise_not, DL_UNARY_BITWISE_NOT)

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
  return math_unary (DL_UNARY_NAN_TO_NUM, self, params, error);
}
