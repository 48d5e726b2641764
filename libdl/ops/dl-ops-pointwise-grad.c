/* dl-ops-pointwise-grad.c: the derivatives of the pointwise ops, and the op
 * table (dl-ops-pointwise.def) that names them.
 *
 * Each derivative gets the incoming gradient g and the tensors its row
 * saves (x: the input, y: the result; a, b: the two inputs) and returns the
 * gradient of each input that needs one, written with differentiable
 * tensor ops so that create_graph records them too. The binary pipeline
 * sums the gradients back to the inputs' shapes.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-pointwise-private.h"

#define DL_GRAD(name)                                                                              \
  static gboolean name (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)

/* g * f, consuming f; for the one-line derivatives */
static DlTensor *
times (DlTensor *g, DlTensor *f, GError **error)
{
  g_autoptr (DlTensor) owned = f;

  return owned ? dl_tensor_mul (g, owned, error) : NULL;
}

/* ---- unary ---------------------------------------------------------------------- */

DL_GRAD (dl_grad_neg)
{
  return (*gs = dl_tensor_neg (a->grad, error)) != NULL;
}

DL_GRAD (dl_grad_zero) /* sign and the roundings: steps, flat between them */
{
  DlTensor *g = a->grad;

  return (*gs = dl_zeros (g->sizes, g->ndim, g->dtype, dl_tensor_get_device (g), error)) != NULL;
}

DL_GRAD (dl_grad_identity) /* frac: x - trunc (x) */
{
  *gs = g_object_ref (a->grad);
  return TRUE;
}

DL_GRAD (dl_grad_exp) /* g y */
{
  return (*gs = dl_tensor_mul (a->grad, a->result, error)) != NULL;
}

DL_GRAD (dl_grad_expm1) /* g (y + 1) */
{
  return (*gs = times (a->grad, dl_tensor_add_scalar (a->result, 1, error), error)) != NULL;
}

DL_GRAD (dl_grad_log) /* g / x */
{
  return (*gs = dl_tensor_div (a->grad, a->self, error)) != NULL;
}

DL_GRAD (dl_grad_log1p) /* g / (x + 1) */
{
  g_autoptr (DlTensor) d = dl_tensor_add_scalar (a->self, 1, error);

  return d && (*gs = dl_tensor_div (a->grad, d, error)) != NULL;
}

DL_GRAD (dl_grad_log2) /* g / (x ln 2) */
{
  g_autoptr (DlTensor) d = dl_tensor_mul_scalar (a->self, M_LN2, error);

  return d && (*gs = dl_tensor_div (a->grad, d, error)) != NULL;
}

DL_GRAD (dl_grad_sqrt) /* g / (2 y) */
{
  g_autoptr (DlTensor) t = dl_tensor_div (a->grad, a->result, error);

  return t && (*gs = dl_tensor_mul_scalar (t, 0.5, error)) != NULL;
}

DL_GRAD (dl_grad_rsqrt) /* -g y^3 / 2 */
{
  g_autoptr (DlTensor) y2 = dl_tensor_mul (a->result, a->result, error);
  g_autoptr (DlTensor) y3 = y2 ? dl_tensor_mul (y2, a->result, error) : NULL;

  return y3 && (*gs = times (a->grad, dl_tensor_mul_scalar (y3, -0.5, error), error)) != NULL;
}

DL_GRAD (dl_grad_reciprocal) /* -g y^2 */
{
  g_autoptr (DlTensor) y2 = dl_tensor_mul (a->result, a->result, error);

  return y2 && (*gs = times (a->grad, dl_tensor_neg (y2, error), error)) != NULL;
}

DL_GRAD (dl_grad_sin) /* g cos x */
{
  return (*gs = times (a->grad, dl_tensor_cos (a->self, error), error)) != NULL;
}

DL_GRAD (dl_grad_cos) /* -g sin x */
{
  g_autoptr (DlTensor) s = dl_tensor_sin (a->self, error);

  return s && (*gs = times (a->grad, dl_tensor_neg (s, error), error)) != NULL;
}

DL_GRAD (dl_grad_tan) /* g (1 + y^2) */
{
  g_autoptr (DlTensor) y2 = dl_tensor_mul (a->result, a->result, error);

  return y2 && (*gs = times (a->grad, dl_tensor_add_scalar (y2, 1, error), error)) != NULL;
}

DL_GRAD (dl_grad_tanh) /* g (1 - y^2) */
{
  g_autoptr (DlTensor) y2 = dl_tensor_mul (a->result, a->result, error);

  return y2 && (*gs = times (a->grad, dl_tensor_rsub_scalar (y2, 1, error), error)) != NULL;
}

DL_GRAD (dl_grad_sigmoid) /* g y (1 - y) */
{
  g_autoptr (DlTensor) d = dl_tensor_rsub_scalar (a->result, 1, error);

  return d && (*gs = times (a->grad, dl_tensor_mul (a->result, d, error), error)) != NULL;
}

DL_GRAD (dl_grad_erf) /* g 2/sqrt(pi) e^-x^2 */
{
  g_autoptr (DlTensor) x2 = dl_tensor_mul (a->self, a->self, error);
  g_autoptr (DlTensor) nx2 = x2 ? dl_tensor_neg (x2, error) : NULL;
  g_autoptr (DlTensor) e = nx2 ? dl_tensor_exp (nx2, error) : NULL;

  return e && (*gs = times (a->grad, dl_tensor_mul_scalar (e, M_2_SQRTPI, error), error)) != NULL;
}

DL_GRAD (dl_grad_relu) /* g where y > 0 */
{
  return (*gs = dl_pointwise_mul_mask (a->grad, dl_tensor_gt_scalar (a->result, 0, error), error))
         != NULL;
}

DL_GRAD (dl_grad_abs) /* g sign (x), sign (x) = (x > 0) - (x < 0) */
{
  DlTensor *x = a->self;
  g_autoptr (DlTensor) pos = dl_tensor_gt_scalar (x, 0, error);
  g_autoptr (DlTensor) neg = pos ? dl_tensor_lt_scalar (x, 0, error) : NULL;
  g_autoptr (DlTensor) fp = neg ? dl_tensor_to_dtype (pos, a->grad->dtype, error) : NULL;
  g_autoptr (DlTensor) fn = fp ? dl_tensor_to_dtype (neg, a->grad->dtype, error) : NULL;

  return fn && (*gs = times (a->grad, dl_tensor_sub (fp, fn, error), error)) != NULL;
}

/* d gelu / dx; exact: Phi (x) + x phi (x); tanh form: with
 * u = k (x + c x^3), t = tanh (u): 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2) */
static DlTensor *
gelu_derivative (DlTensor *x, gboolean approximate, GError **error)
{
  const gdouble k = 0.79788456080286535588, c = 0.044715;

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

      return xpdf ? dl_tensor_add (cdf, xpdf, error) : NULL;
    }
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

    return right ? dl_tensor_add (lefth, right, error) : NULL;
  }
}

DL_GRAD (dl_grad_gelu)
{
  return (*gs = times (a->grad, gelu_derivative (a->self, FALSE, error), error)) != NULL;
}

DL_GRAD (dl_grad_gelu_tanh)
{
  return (*gs = times (a->grad, gelu_derivative (a->self, TRUE, error), error)) != NULL;
}

DL_GRAD (dl_grad_silu) /* with s = sigmoid (x): g s (1 + x (1 - s)) */
{
  g_autoptr (DlTensor) s = dl_tensor_sigmoid (a->self, error);
  g_autoptr (DlTensor) one_m = s ? dl_tensor_rsub_scalar (s, 1, error) : NULL;
  g_autoptr (DlTensor) xo = one_m ? dl_tensor_mul (a->self, one_m, error) : NULL;
  g_autoptr (DlTensor) xo1 = xo ? dl_tensor_add_scalar (xo, 1, error) : NULL;

  return xo1 && (*gs = times (a->grad, dl_tensor_mul (s, xo1, error), error)) != NULL;
}

/* the activations: PyTorch's derivatives, with its choices at the kinks */

DL_GRAD (dl_grad_hardswish) /* 0 below -3, g (x / 3 + 1/2) up to 3, g above */
{
  DlTensor *x = a->self;
  g_autoptr (DlTensor) t = dl_tensor_div_scalar (x, 3, error);
  g_autoptr (DlTensor) t5 = t ? dl_tensor_add_scalar (t, 0.5, error) : NULL;
  g_autoptr (DlTensor) gt = t5 ? dl_tensor_mul (a->grad, t5, error) : NULL;
  g_autoptr (DlTensor) mid
      = gt ? dl_pointwise_mul_mask (gt, dl_tensor_ge_scalar (x, -3, error), error) : NULL;
  g_autoptr (DlTensor) hi = mid ? dl_tensor_gt_scalar (x, 3, error) : NULL;

  return hi && (*gs = dl_where (hi, a->grad, mid, error)) != NULL;
}

/* g / 6 where -3 < x < 3; 1/6 rounded to float32 in every dtype, as
 * PyTorch's CPU kernel (its constant is 1.0f / 6.0f) */
DL_GRAD (dl_grad_hardsigmoid)
{
  g_autoptr (DlTensor) ax = dl_tensor_abs (a->self, error);
  g_autoptr (DlTensor) g6 = ax ? dl_tensor_mul_scalar (a->grad, (gfloat)(1.0 / 6.0), error) : NULL;

  return g6
         && (*gs = dl_pointwise_mul_mask (g6, dl_tensor_lt_scalar (ax, 3, error), error)) != NULL;
}

DL_GRAD (dl_grad_mish) /* with t = tanh (softplus (x)): g (t + x sigmoid (x) (1 - t^2)) */
{
  DlTensor *x = a->self;
  g_autoptr (DlTensor) e = dl_tensor_exp (x, error);
  g_autoptr (DlTensor) sp = e ? dl_tensor_log1p (e, error) : NULL;
  g_autoptr (DlTensor) t = sp ? dl_tensor_tanh (sp, error) : NULL;
  g_autoptr (DlTensor) t2 = t ? dl_tensor_mul (t, t, error) : NULL;
  g_autoptr (DlTensor) one_m = t2 ? dl_tensor_rsub_scalar (t2, 1, error) : NULL;
  g_autoptr (DlTensor) s = one_m ? dl_tensor_sigmoid (x, error) : NULL;
  g_autoptr (DlTensor) xs = s ? dl_tensor_mul (x, s, error) : NULL;
  g_autoptr (DlTensor) xso = xs ? dl_tensor_mul (xs, one_m, error) : NULL;

  return xso && (*gs = times (a->grad, dl_tensor_add (t, xso, error), error)) != NULL;
}

DL_GRAD (dl_grad_logsigmoid) /* g sigmoid (-x) */
{
  g_autoptr (DlTensor) nx = dl_tensor_neg (a->self, error);

  return nx && (*gs = times (a->grad, dl_tensor_sigmoid (nx, error), error)) != NULL;
}

DL_GRAD (dl_grad_softsign) /* g / (1 + |x|)^2 */
{
  g_autoptr (DlTensor) ax = dl_tensor_abs (a->self, error);
  g_autoptr (DlTensor) d = ax ? dl_tensor_add_scalar (ax, 1, error) : NULL;
  g_autoptr (DlTensor) d2 = d ? dl_tensor_mul (d, d, error) : NULL;

  return d2 && (*gs = dl_tensor_div (a->grad, d2, error)) != NULL;
}

DL_GRAD (dl_grad_tanhshrink) /* g tanh (x)^2 */
{
  g_autoptr (DlTensor) t = dl_tensor_tanh (a->self, error);

  return t && (*gs = times (a->grad, dl_tensor_mul (t, t, error), error)) != NULL;
}

/* ---- binary ---------------------------------------------------------------------- */

DL_GRAD (dl_grad_add) /* g, alpha g */
{
  if (a->need_self)
    *gs = g_object_ref (a->grad);
  if (a->need_other)
    *go = a->alpha == 1 ? g_object_ref (a->grad) : dl_tensor_mul_scalar (a->grad, a->alpha, error);
  return !a->need_other || *go;
}

DL_GRAD (dl_grad_sub) /* g, -alpha g */
{
  if (a->need_self)
    *gs = g_object_ref (a->grad);
  if (a->need_other)
    *go = dl_tensor_mul_scalar (a->grad, -a->alpha, error);
  return !a->need_other || *go;
}

DL_GRAD (dl_grad_mul) /* g b, g a */
{
  if (a->need_self && !(*gs = dl_tensor_mul (a->grad, a->other, error)))
    return FALSE;
  return !a->need_other || (*go = dl_tensor_mul (a->grad, a->self, error));
}

DL_GRAD (dl_grad_div) /* g / b, -g a / b^2 */
{
  if (a->need_self && !(*gs = dl_tensor_div (a->grad, a->other, error)))
    return FALSE;
  if (a->need_other)
    {
      g_autoptr (DlTensor) t1 = dl_tensor_mul (a->grad, a->self, error);
      g_autoptr (DlTensor) t2 = t1 ? dl_tensor_div (t1, a->other, error) : NULL;
      g_autoptr (DlTensor) t3 = t2 ? dl_tensor_div (t2, a->other, error) : NULL;

      return t3 && (*go = dl_tensor_neg (t3, error));
    }
  return TRUE;
}

/* where @x wins maximum (or minimum) over @y: 1, on ties 0.5, else 0 */
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
extremum_grad (const DlPointwiseGradArgs *a,
               gboolean max,
               DlTensor **gs,
               DlTensor **go,
               GError **error)
{
  if (a->need_self
      && !(*gs = times (a->grad, extremum_mask (a->self, a->other, max, error), error)))
    return FALSE;
  return !a->need_other
         || (*go = times (a->grad, extremum_mask (a->other, a->self, max, error), error));
}

DL_GRAD (dl_grad_maximum) /* g to the larger input; ties split */
{
  return extremum_grad (a, TRUE, gs, go, error);
}

DL_GRAD (dl_grad_minimum)
{
  return extremum_grad (a, FALSE, gs, go, error);
}

/* @t with zeros where the bool @mask (consumed) holds */
static DlTensor *
zero_where (DlTensor *t, DlTensor *mask, GError **error)
{
  g_autoptr (DlTensor) m = mask;
  g_autoptr (DlTensor) zero = NULL;

  if (m == NULL)
    return NULL;
  zero = dl_tensor_new_scalar (0, t->dtype);
  return dl_where (m, zero, t, error);
}

DL_GRAD (dl_grad_pow)
{
  DlTensor *x = a->self, *e = a->other;

  if (a->need_self)
    {
      /* g e x^(e-1), zero where e == 0; a number's e - 1 stays a number
       * (of double precision: as a tensor op it would take the default
       * float dtype, and x^(e-1) lose precision in float64) */
      g_autoptr (DlTensor) em1 = e->is_wrapped_number
                                     ? dl_wrapped_scalar (dl_tensor_item (e, NULL) - 1)
                                     : dl_tensor_sub_scalar (e, 1, error);
      g_autoptr (DlTensor) p = em1 ? dl_tensor_pow (x, em1, error) : NULL;
      g_autoptr (DlTensor) ep = p ? dl_tensor_mul (e, p, error) : NULL;
      g_autoptr (DlTensor) t = ep ? dl_tensor_mul (a->grad, ep, error) : NULL;

      if (!t || !(*gs = zero_where (t, dl_tensor_eq_scalar (e, 0, error), error)))
        return FALSE;
    }
  if (a->need_other)
    {
      /* g x^e ln x, zero where x == 0 and e >= 0 */
      g_autoptr (DlTensor) lx = dl_tensor_log (x, error);
      g_autoptr (DlTensor) yl = lx ? dl_tensor_mul (a->result, lx, error) : NULL;
      g_autoptr (DlTensor) t = yl ? dl_tensor_mul (a->grad, yl, error) : NULL;
      g_autoptr (DlTensor) xz = t ? dl_tensor_eq_scalar (x, 0, error) : NULL;
      g_autoptr (DlTensor) enn = xz ? dl_tensor_ge_scalar (e, 0, error) : NULL;

      return enn && (*go = zero_where (t, dl_tensor_logical_and (xz, enn, error), error));
    }
  return TRUE;
}

DL_GRAD (dl_grad_floor_divide)
{
  g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
               "floor_divide: the result is not differentiable (PyTorch defines no "
               "derivative for floor_divide)");
  return FALSE;
}

DL_GRAD (dl_grad_remainder) /* g, -g floor (a / b) */
{
  if (a->need_self)
    *gs = g_object_ref (a->grad);
  if (a->need_other)
    {
      /* floor (a / b) is piecewise constant: no history (create_graph) */
      gboolean was = dl_set_grad_enabled (FALSE);
      g_autoptr (DlTensor) q = dl_tensor_floor_divide (a->self, a->other, error);
      g_autoptr (DlTensor) t = NULL;

      dl_set_grad_enabled (was);
      return q && (t = dl_tensor_mul (a->grad, q, error)) && (*go = dl_tensor_neg (t, error));
    }
  return TRUE;
}

DL_GRAD (dl_grad_atan2) /* d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2) */
{
  g_autoptr (DlTensor) a2 = dl_tensor_mul (a->self, a->self, error);
  g_autoptr (DlTensor) b2 = a2 ? dl_tensor_mul (a->other, a->other, error) : NULL;
  g_autoptr (DlTensor) den = b2 ? dl_tensor_add (a2, b2, error) : NULL;
  g_autoptr (DlTensor) gd = den ? dl_tensor_div (a->grad, den, error) : NULL;

  if (!gd || (a->need_self && !(*gs = dl_tensor_mul (gd, a->other, error))))
    return FALSE;
  if (a->need_other)
    {
      g_autoptr (DlTensor) t = dl_tensor_mul (gd, a->self, error);

      return t && (*go = dl_tensor_neg (t, error));
    }
  return TRUE;
}

/* ---- the inverse trigonometric and hyperbolic functions, logarithms, special
 * functions ----------------------------------------------------------------------- */

/* g / f, consuming f */
static DlTensor *
over (DlTensor *g, DlTensor *f, GError **error)
{
  g_autoptr (DlTensor) owned = f;

  return owned ? dl_tensor_div (g, owned, error) : NULL;
}

/* sqrt (sign (1 - x^2)), that is sqrt (1 - x^2) for sign 1 and
 * sqrt (x^2 - 1) for sign -1 */
static DlTensor *
sqrt_one_minus_square (DlTensor *x, gdouble sign, GError **error)
{
  g_autoptr (DlTensor) x2 = dl_tensor_mul (x, x, error);
  g_autoptr (DlTensor) d = NULL;

  if (!x2
      || !(d
           = sign > 0 ? dl_tensor_rsub_scalar (x2, 1, error) : dl_tensor_sub_scalar (x2, 1, error)))
    return NULL;
  return dl_tensor_sqrt (d, error);
}

/* @x with its zeros replaced by ones: a denominator for the derivatives
 * whose numerator vanishes at 0 (sinc, i1) */
static DlTensor *
zeros_to_ones (DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) z = dl_tensor_eq_scalar (x, 0, error);
  g_autoptr (DlTensor) zf = z ? dl_tensor_to_dtype (z, x->dtype, error) : NULL;

  return zf ? dl_tensor_add (x, zf, error) : NULL;
}

DL_GRAD (dl_grad_asin) /* g / sqrt (1 - x^2) */
{
  return (*gs = over (a->grad, sqrt_one_minus_square (a->self, 1, error), error)) != NULL;
}

DL_GRAD (dl_grad_acos) /* -g / sqrt (1 - x^2) */
{
  g_autoptr (DlTensor) t = over (a->grad, sqrt_one_minus_square (a->self, 1, error), error);

  return t && (*gs = dl_tensor_neg (t, error)) != NULL;
}

DL_GRAD (dl_grad_atan) /* g / (1 + x^2) */
{
  g_autoptr (DlTensor) x2 = dl_tensor_mul (a->self, a->self, error);

  return x2 && (*gs = over (a->grad, dl_tensor_add_scalar (x2, 1, error), error)) != NULL;
}

DL_GRAD (dl_grad_sinh) /* g cosh x */
{
  return (*gs = times (a->grad, dl_tensor_cosh (a->self, error), error)) != NULL;
}

DL_GRAD (dl_grad_cosh) /* g sinh x */
{
  return (*gs = times (a->grad, dl_tensor_sinh (a->self, error), error)) != NULL;
}

DL_GRAD (dl_grad_asinh) /* g / sqrt (x^2 + 1) */
{
  g_autoptr (DlTensor) x2 = dl_tensor_mul (a->self, a->self, error);
  g_autoptr (DlTensor) d = x2 ? dl_tensor_add_scalar (x2, 1, error) : NULL;

  return d && (*gs = over (a->grad, dl_tensor_sqrt (d, error), error)) != NULL;
}

DL_GRAD (dl_grad_acosh) /* g / sqrt (x^2 - 1) */
{
  return (*gs = over (a->grad, sqrt_one_minus_square (a->self, -1, error), error)) != NULL;
}

DL_GRAD (dl_grad_atanh) /* g / (1 - x^2) */
{
  g_autoptr (DlTensor) x2 = dl_tensor_mul (a->self, a->self, error);

  return x2 && (*gs = over (a->grad, dl_tensor_rsub_scalar (x2, 1, error), error)) != NULL;
}

DL_GRAD (dl_grad_log10) /* g / (x ln 10) */
{
  return (*gs = over (a->grad, dl_tensor_mul_scalar (a->self, M_LN10, error), error)) != NULL;
}

DL_GRAD (dl_grad_exp2) /* g y ln 2 */
{
  return (*gs = times (a->grad, dl_tensor_mul_scalar (a->result, M_LN2, error), error)) != NULL;
}

DL_GRAD (dl_grad_erfc) /* -g 2/sqrt(pi) e^-x^2 */
{
  g_autoptr (DlTensor) x2 = dl_tensor_mul (a->self, a->self, error);
  g_autoptr (DlTensor) nx2 = x2 ? dl_tensor_neg (x2, error) : NULL;
  g_autoptr (DlTensor) e = nx2 ? dl_tensor_exp (nx2, error) : NULL;

  return e && (*gs = times (a->grad, dl_tensor_mul_scalar (e, -M_2_SQRTPI, error), error)) != NULL;
}

DL_GRAD (dl_grad_erfinv) /* g sqrt(pi)/2 e^y^2 */
{
  g_autoptr (DlTensor) y2 = dl_tensor_mul (a->result, a->result, error);
  g_autoptr (DlTensor) e = y2 ? dl_tensor_exp (y2, error) : NULL;

  return e
         && (*gs = times (a->grad, dl_tensor_mul_scalar (e, 1 / M_2_SQRTPI, error), error)) != NULL;
}

DL_GRAD (dl_grad_lgamma) /* g digamma (x) */
{
  return (*gs = times (a->grad, dl_tensor_digamma (a->self, error), error)) != NULL;
}

DL_GRAD (dl_grad_digamma) /* g polygamma (1, x) */
{
  return (*gs = times (a->grad, dl_pointwise_polygamma (1, a->self, error), error)) != NULL;
}

DL_GRAD (dl_grad_deg2rad) /* g pi / 180 */
{
  return (*gs = dl_tensor_mul_scalar (a->grad, M_PI / 180, error)) != NULL;
}

DL_GRAD (dl_grad_rad2deg) /* g 180 / pi */
{
  return (*gs = dl_tensor_mul_scalar (a->grad, 180 / M_PI, error)) != NULL;
}

DL_GRAD (dl_grad_square) /* 2 g x */
{
  g_autoptr (DlTensor) x2 = dl_tensor_mul_scalar (a->self, 2, error);

  return x2 && (*gs = dl_tensor_mul (a->grad, x2, error)) != NULL;
}

DL_GRAD (dl_grad_sinc) /* g (cos (pi x) - sinc (x)) / x, 0 at 0 */
{
  g_autoptr (DlTensor) px = dl_tensor_mul_scalar (a->self, M_PI, error);
  g_autoptr (DlTensor) c = px ? dl_tensor_cos (px, error) : NULL;
  g_autoptr (DlTensor) s = c ? dl_tensor_sinc (a->self, error) : NULL;
  g_autoptr (DlTensor) n = s ? dl_tensor_sub (c, s, error) : NULL;
  g_autoptr (DlTensor) d = n ? over (n, zeros_to_ones (a->self, error), error) : NULL;

  return d && (*gs = dl_tensor_mul (a->grad, d, error)) != NULL;
}

DL_GRAD (dl_grad_i0) /* g i1 (x) */
{
  return (*gs = times (a->grad, dl_pointwise_i1 (a->self, error), error)) != NULL;
}

/* polygamma (n, x) and i1, for the derivatives of digamma and i0 */

DL_GRAD (dl_grad_polygamma) /* g polygamma (n + 1, x); alpha is n */
{
  return (*gs = times (a->grad, dl_pointwise_polygamma ((gint)a->alpha + 1, a->self, error), error))
         != NULL;
}

static const DlPointwiseOp polygamma_op = {
  .name = "polygamma",
  .inplace_name = "polygamma_",
  .arity = 1,
  .kernel = DL_UNARY_POLYGAMMA,
  .rule = DL_POINTWISE_RULE_FLOAT,
  .node = "PolygammaBackward0",
  .grad = dl_grad_polygamma,
  .saves = DL_POINTWISE_SAVES_SELF,
  .flags = DL_OP_FLAGS_UNARY,
};

DlTensor *
dl_pointwise_polygamma (gint n, DlTensor *x, GError **error)
{
  gdouble params[1] = { n };

  return dl_pointwise_unary_params (&polygamma_op, x, params, error);
}

DL_GRAD (dl_grad_i1) /* g (i0 (x) - i1 (x) / x), g / 2 at 0 */
{
  g_autoptr (DlTensor) i0 = dl_tensor_i0 (a->self, error);
  g_autoptr (DlTensor) q = i0 ? over (a->result, zeros_to_ones (a->self, error), error) : NULL;
  g_autoptr (DlTensor) d = q ? dl_tensor_sub (i0, q, error) : NULL;
  g_autoptr (DlTensor) z = d ? dl_tensor_eq_scalar (a->self, 0, error) : NULL;
  g_autoptr (DlTensor) zf = z ? dl_tensor_to_dtype (z, d->dtype, error) : NULL;
  g_autoptr (DlTensor) dz = zf ? dl_tensor_sub_scaled (d, zf, 0.5, error) : NULL;

  return dz && (*gs = dl_tensor_mul (a->grad, dz, error)) != NULL;
}

static const DlPointwiseOp i1_op = {
  .name = "special_i1",
  .inplace_name = "special_i1_",
  .arity = 1,
  .kernel = DL_UNARY_I1,
  .rule = DL_POINTWISE_RULE_FLOAT,
  .node = "SpecialI1Backward0",
  .grad = dl_grad_i1,
  .saves = DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_RESULT,
  .flags = DL_OP_FLAGS_UNARY,
};

DlTensor *
dl_pointwise_i1 (DlTensor *x, GError **error)
{
  return dl_pointwise_unary_params (&i1_op, x, NULL, error);
}

DL_GRAD (dl_grad_fmod) /* g, -g trunc (a / b) */
{
  if (a->need_self)
    *gs = g_object_ref (a->grad);
  if (a->need_other)
    {
      /* trunc (a / b) is piecewise constant: no history (create_graph) */
      gboolean was = dl_set_grad_enabled (FALSE);
      g_autoptr (DlTensor) q
          = dl_tensor_div_mode (a->self, a->other, DL_ROUNDING_MODE_TRUNC, error);
      g_autoptr (DlTensor) t = NULL;

      dl_set_grad_enabled (was);
      return q && (t = dl_tensor_mul (a->grad, q, error)) && (*go = dl_tensor_neg (t, error));
    }
  return TRUE;
}

DL_GRAD (dl_grad_hypot) /* g a / y, g b / y */
{
  g_autoptr (DlTensor) gy = dl_tensor_div (a->grad, a->result, error);

  if (!gy || (a->need_self && !(*gs = dl_tensor_mul (gy, a->self, error))))
    return FALSE;
  return !a->need_other || (*go = dl_tensor_mul (gy, a->other, error));
}

DL_GRAD (dl_grad_copysign) /* g y / x (0 where x == 0); other: 0 */
{
  if (a->need_self)
    {
      g_autoptr (DlTensor) r = dl_tensor_div (a->result, a->self, error);
      g_autoptr (DlTensor) rz
          = r ? zero_where (r, dl_tensor_eq_scalar (a->self, 0, error), error) : NULL;

      if (!rz || !(*gs = dl_tensor_mul (a->grad, rz, error)))
        return FALSE;
    }
  if (a->need_other)
    return (*go = dl_zeros (a->grad->sizes, a->grad->ndim, a->grad->dtype,
                            dl_tensor_get_device (a->grad), error))
           != NULL;
  return TRUE;
}

DL_GRAD (dl_grad_xlogy) /* xlogy (g, b), 0 where a == 0 and b <= 0; g a / b */
{
  if (a->need_self)
    {
      g_autoptr (DlTensor) t = dl_tensor_xlogy (a->grad, a->other, error);
      g_autoptr (DlTensor) az = t ? dl_tensor_eq_scalar (a->self, 0, error) : NULL;
      g_autoptr (DlTensor) bn = az ? dl_tensor_le_scalar (a->other, 0, error) : NULL;

      if (!bn || !(*gs = zero_where (t, dl_tensor_logical_and (az, bn, error), error)))
        return FALSE;
    }
  if (a->need_other)
    {
      g_autoptr (DlTensor) t = dl_tensor_mul (a->grad, a->self, error);

      return t && (*go = dl_tensor_div (t, a->other, error));
    }
  return TRUE;
}

/* fmax and fmin: g to self where it wins (self >= other, or <= for fmin)
 * or other is NaN, else to other */
static gboolean
fextremum_grad (const DlPointwiseGradArgs *a,
                gboolean max,
                DlTensor **gs,
                DlTensor **go,
                GError **error)
{
  g_autoptr (DlTensor) c
      = max ? dl_tensor_ge (a->self, a->other, error) : dl_tensor_le (a->self, a->other, error);
  g_autoptr (DlTensor) n = c ? dl_tensor_isnan (a->other, error) : NULL;
  g_autoptr (DlTensor) wins = n ? dl_tensor_logical_or (c, n, error) : NULL;

  if (!wins
      || (a->need_self
          && !(*gs = zero_where (a->grad, dl_tensor_logical_not (wins, error), error))))
    return FALSE;
  return !a->need_other || (*go = zero_where (a->grad, g_object_ref (wins), error));
}

DL_GRAD (dl_grad_fmax)
{
  return fextremum_grad (a, TRUE, gs, go, error);
}

DL_GRAD (dl_grad_fmin)
{
  return fextremum_grad (a, FALSE, gs, go, error);
}

/* g / (1 + base^(b - a)), g / (1 + base^(a - b)) with base e or 2 */
static gboolean
logaddexp_grad (const DlPointwiseGradArgs *a,
                gboolean two,
                DlTensor **gs,
                DlTensor **go,
                GError **error)
{
  for (guint i = 0; i < 2; i++)
    {
      DlTensor *x = i == 0 ? a->other : a->self, *y = i == 0 ? a->self : a->other;
      g_autoptr (DlTensor) d = NULL;
      g_autoptr (DlTensor) p = NULL;
      g_autoptr (DlTensor) den = NULL;

      if (!(i == 0 ? a->need_self : a->need_other))
        continue;
      if (!(d = dl_tensor_sub (x, y, error))
          || !(p = two ? dl_tensor_rpow_scalar (d, 2, error) : dl_tensor_exp (d, error))
          || !(den = dl_tensor_add_scalar (p, 1, error))
          || !(*(i == 0 ? gs : go) = dl_tensor_div (a->grad, den, error)))
        return FALSE;
    }
  return TRUE;
}

DL_GRAD (dl_grad_logaddexp)
{
  return logaddexp_grad (a, FALSE, gs, go, error);
}

DL_GRAD (dl_grad_logaddexp2)
{
  return logaddexp_grad (a, TRUE, gs, go, error);
}

/* ---- the table ---------------------------------------------------------------------- */

/* the VARIANTS column's words */
#define INPLACE DL_OP_FLAGS_INPLACE
#define SCALAR DL_OP_FLAGS_SCALAR
#define REFLECTED DL_OP_FLAGS_REFLECTED
#define ALPHA DL_OP_FLAGS_ALPHA

#define ROW(op, ARITY, KERNEL, RULE, node_name, grad_fn, SAVES, FLAGS)                             \
  [DL_OP_##op] = {                                                                                 \
    .name = #op,                                                                                   \
    .inplace_name = #op "_",                                                                       \
    .arity = ARITY,                                                                                \
    .kernel = KERNEL,                                                                              \
    .rule = DL_POINTWISE_RULE_##RULE,                                                              \
    .node = node_name,                                                                             \
    .grad = grad_fn,                                                                               \
    .saves = DL_POINTWISE_SAVES_##SAVES,                                                           \
    .flags = FLAGS,                                                                                \
  },

const DlPointwiseOp dl_pointwise_ops[DL_N_POINTWISE_OPS] = {
#define DL_UNARY_OP(name, KERNEL, RULE, node, grad, SAVES, DOMAIN, VARIANTS, what)                 \
  ROW (name, 1, DL_UNARY_##KERNEL, RULE, node, grad, SAVES, DL_OP_FLAGS_UNARY | (VARIANTS))
#define DL_BINARY_OP(name, KERNEL, RULE, node, grad, SAVES, DOMAIN, VARIANTS, what)                \
  ROW (name, 2, DL_BINARY_##KERNEL, RULE, node, grad, SAVES, DL_OP_FLAGS_BINARY | (VARIANTS))
#include "dl-ops-pointwise.def"
#undef DL_UNARY_OP
#undef DL_BINARY_OP
};
