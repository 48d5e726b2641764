/* dl-ops-special.c: the rarer special functions of torch.special (i0e,
 * i1e, erfcx, ndtri, log_ndtr, the incomplete gamma functions, Hurwitz's
 * zeta), evaluated on the host in float64 from dl-special-math.h and
 * written back in the result's dtype, on any device; each with its
 * backward node, named as PyTorch's, whose derivative is evaluated the
 * same way.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "ops/dl-ops-special.h"
#include "backends/dl-special-math.h"

/* an elementwise function of one or two operands, and its derivatives in
 * each (f the function's value there); a NULL derivative: not
 * differentiable in that operand, as PyTorch's, with its message */
typedef struct
{
  const gchar *name; /* the op in messages */
  const gchar *node; /* PyTorch's backward node */
  gint arity;
  double (*f1) (double x);
  double (*f2) (double a, double b);
  double (*d0) (double a, double b, double f); /* b unused for arity 1 */
  double (*d1) (double a, double b, double f);
  const gchar *no_d0; /* the error of a missing derivative in operand 0 */
} SpecialOp;

typedef struct
{
  const SpecialOp *op;
  DlSavedTensor in[2];
  DlSavedTensor out;
} SpecialState;

/* @t's elements as n row-major doubles, or NULL with @error set */
static gdouble *
host_doubles (DlTensor *t, const gchar *op, GError **error)
{
  gdouble *v = g_new (gdouble, MAX (t->numel, 1));

  if (!dl_tensor_copy_to_host (t, DL_DTYPE_FLOAT64, v, op, error))
    {
      g_free (v);
      return NULL;
    }
  return v;
}

/* A new contiguous tensor of @shape and @dtype on @device holding
 * f (a[i], b[i]) (f1 (a[i]) for one operand), or NULL with @error set;
 * @a and @b have @shape's numel elements (@b NULL for one operand) */
static DlTensor *
host_map (const SpecialOp *op,
          double (*d) (double, double, double),
          DlTensor *a,
          DlTensor *b,
          DlTensor *f,
          DlDType dtype,
          GError **error)
{
  g_autofree gdouble *va = NULL;
  g_autofree gdouble *vb = NULL;
  g_autofree gdouble *vf = NULL;
  g_autoptr (DlTensor) out = NULL;

  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (a), dtype, a->sizes, a->ndim, error)))
    return NULL;
  if (out->numel == 0 || dl_tensor_on_meta (out))
    return g_steal_pointer (&out);
  if (!(va = host_doubles (a, op->name, error)) || (b && !(vb = host_doubles (b, op->name, error)))
      || (f && !(vf = host_doubles (f, op->name, error))))
    return NULL;
  for (gint64 i = 0; i < out->numel; i++)
    {
      double x = va[i], y = vb ? vb[i] : 0;

      va[i] = d ? d (x, y, vf ? vf[i] : 0) : op->arity == 1 ? op->f1 (x) : op->f2 (x, y);
    }
  if (!dl_tensor_copy_from_host_doubles (out, va, op->name, error))
    return NULL;
  return g_steal_pointer (&out);
}

static gboolean
special_backward (DlNode *node, DlTensor **grads, DlTensor **grad_inputs, GError **error)
{
  SpecialState *s = dl_node_state (node);
  const SpecialOp *op = s->op;
  DlTensor *f = dl_node_saved (node, &s->out, error);
  DlTensor *a = f ? dl_node_saved (node, &s->in[0], error) : NULL;
  DlTensor *b = a && op->arity == 2 ? dl_node_saved (node, &s->in[1], error) : NULL;

  if (!a || (op->arity == 2 && !b))
    return FALSE;
  for (gint i = 0; i < op->arity; i++)
    {
      double (*d) (double, double, double) = i == 0 ? op->d0 : op->d1;
      g_autoptr (DlTensor) dt = NULL;

      if (!dl_node_needs_input_grad (node, i))
        continue;
      if (d == NULL)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "the derivative for '%s' is not implemented.", op->no_d0);
          return FALSE;
        }
      if (!(dt = host_map (op, d, a, b, f, f->dtype, error))
          || !(grad_inputs[i] = dl_tensor_mul (grads[0], dt, error)))
        return FALSE;
    }
  return TRUE;
}

/* @op of @a (and @b, broadcast with it), recorded when an operand requires
 * grad; NULL with @error set */
static DlTensor *
special_apply (const SpecialOp *op, DlTensor *a, DlTensor *b, GError **error)
{
  DlTensor *inputs[2] = { a, b };
  g_autoptr (DlTensor) ea = NULL;
  g_autoptr (DlTensor) eb = NULL;
  DlTensor *out;
  DlDType dtype;

  g_return_val_if_fail (DL_IS_TENSOR (a), NULL);
  g_return_val_if_fail (op->arity == 1 || DL_IS_TENSOR (b), NULL);
  if (!dl_check_live (op->name, a, error)
      || (op->arity == 2 && !dl_check_live (op->name, b, error)))
    return NULL;
  if (op->arity == 1)
    {
      dtype = dl_dtype_is_float (a->dtype) ? a->dtype : dl_get_default_dtype ();
      ea = dl_tensor_detach (a);
    }
  else
    {
      gint64 shape[DL_MAX_DIMS];
      gint ndim;
      g_autoptr (DlTensor) da = dl_tensor_detach (a);
      g_autoptr (DlTensor) db = dl_tensor_detach (b);

      dtype = dl_dtype_promote (a->dtype, b->dtype);
      if (!dl_dtype_is_float (dtype))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: not implemented for '%s'", op->name,
                       dl_dtype_get_name (dtype));
          return NULL;
        }
      if (!dl_broadcast_shapes (op->name, a->sizes, a->ndim, b->sizes, b->ndim, shape, &ndim, error)
          || !(ea = dl_tensor_expand (da, shape, ndim, error))
          || !(eb = dl_tensor_expand (db, shape, ndim, error)))
        return NULL;
    }
  if (!dl_device_equal (dl_tensor_device (a),
                        op->arity == 2 ? dl_tensor_device (b) : dl_tensor_device (a)))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "%s: expected both operands on one device, got %s and %s", op->name,
                   dl_device_get_name (dl_tensor_device (a)),
                   dl_device_get_name (dl_tensor_device (b)));
      return NULL;
    }
  if (!(out = host_map (op, NULL, ea, eb, NULL, dtype, error)))
    return NULL;
  if (dl_autograd_any_requires (op->arity, inputs))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (op->node, special_backward, op->arity, inputs);
      SpecialState *s = DL_NODE_NEW_STATE (node, SpecialState);

      s->op = op;
      dl_node_save (node, &s->in[0], ea, FALSE);
      if (eb)
        dl_node_save (node, &s->in[1], eb, FALSE);
      dl_node_save (node, &s->out, out, TRUE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

static double
i0e (double x)
{
  return dl_special_bessel_ie (0, x);
}

static double
i1e (double x)
{
  return dl_special_bessel_ie (1, x);
}

/* i0e' = i1e - sign (x) i0e */
static double
d_i0e (double x, double unused, double f)
{
  return i1e (x) - (x > 0 ? f : x < 0 ? -f : 0);
}

/* i1e' = i0e - i1e (sign (x) + 1 / x), 1/2 at 0 */
static double
d_i1e (double x, double unused, double f)
{
  if (x == 0)
    return 0.5;
  return i0e (x) - f * ((x > 0 ? 1 : -1) + 1 / x);
}

/* erfcx' = 2 x erfcx - 2 / sqrt (pi) */
static double
d_erfcx (double x, double unused, double f)
{
  return 2 * x * f - DL_SPECIAL_2_SQRTPI;
}

/* ndtri' = sqrt (2 pi) e^(ndtri^2 / 2) */
static double
d_ndtri (double x, double unused, double f)
{
  return sqrt (2 * DL_SPECIAL_PI) * exp (f * f / 2);
}

/* log_ndtr' = phi (x) / Phi (x) = e^(-x^2/2 - log_ndtr (x)) / sqrt (2 pi) */
static double
d_log_ndtr (double x, double unused, double f)
{
  return exp (-x * x / 2 - f) / sqrt (2 * DL_SPECIAL_PI);
}

static double
igamma (double a, double x)
{
  return dl_special_gammainc (a, x, 0);
}

static double
igammac (double a, double x)
{
  return dl_special_gammainc (a, x, 1);
}

/* dP/dx = x^(a-1) e^-x / Gamma (a) */
static double
d_igamma_x (double a, double x, double f)
{
  return exp ((a - 1) * log (x) - x - lgamma (a));
}

static double
d_igammac_x (double a, double x, double f)
{
  return -d_igamma_x (a, x, f);
}

/* d zeta (x, q) / dq = -x zeta (x + 1, q) */
static double
d_zeta_q (double x, double q, double f)
{
  return -x * dl_special_zeta (x + 1, q);
}

static const SpecialOp i0e_op = { "special_i0e", "SpecialI0EBackward0", 1, i0e, NULL, d_i0e };
static const SpecialOp i1e_op = { "special_i1e", "SpecialI1EBackward0", 1, i1e, NULL, d_i1e };
static const SpecialOp erfcx_op
    = { "special_erfcx", "SpecialErfcxBackward0", 1, dl_special_erfcx, NULL, d_erfcx };
static const SpecialOp ndtri_op
    = { "special_ndtri", "SpecialNdtriBackward0", 1, dl_special_ndtri, NULL, d_ndtri };
static const SpecialOp log_ndtr_op
    = { "special_log_ndtr", "SpecialLogNdtrBackward0", 1, dl_special_log_ndtr, NULL, d_log_ndtr };
static const SpecialOp igamma_op = {
  "igamma", "IgammaBackward0", 2, NULL, igamma, NULL, d_igamma_x, "igamma: input",
};
static const SpecialOp igammac_op = {
  "igammac", "IgammacBackward0", 2, NULL, igammac, NULL, d_igammac_x, "igammac: input",
};
static const SpecialOp zeta_op = {
  "special_zeta", "SpecialZetaBackward0", 2, NULL, dl_special_zeta, NULL, d_zeta_q, "zeta",
};

/**
 * dl_tensor_special_i0e:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * The exponentially scaled modified Bessel function of the first kind of
 * order 0, e^-|x| I0 (x), at each element, as `torch.special.i0e`: finite
 * where I0 overflows. Evaluated on the host in float64. Differentiable
 * (SpecialI0EBackward0).
 *
 * Returns: (transfer full): a floating-point tensor of @self's shape, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_special_i0e (DlTensor *self, GError **error)
{
  return special_apply (&i0e_op, self, NULL, error);
}

/**
 * dl_tensor_special_i1e:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * e^-|x| I1 (x), the exponentially scaled modified Bessel function of the
 * first kind of order 1, at each element, as `torch.special.i1e`.
 * Evaluated on the host in float64. Differentiable (SpecialI1EBackward0).
 *
 * Returns: (transfer full): a floating-point tensor of @self's shape, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_special_i1e (DlTensor *self, GError **error)
{
  return special_apply (&i1e_op, self, NULL, error);
}

/**
 * dl_tensor_special_erfcx:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * The scaled complementary error function e^(x^2) erfc (x) at each
 * element, as `torch.special.erfcx`: accurate where erfc underflows.
 * Evaluated on the host in float64. Differentiable
 * (SpecialErfcxBackward0).
 *
 * Returns: (transfer full): a floating-point tensor of @self's shape, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_special_erfcx (DlTensor *self, GError **error)
{
  return special_apply (&erfcx_op, self, NULL, error);
}

/**
 * dl_tensor_special_ndtri:
 * @self: a #DlTensor of probabilities
 * @error: return location for a #GError
 *
 * The inverse of the standard normal distribution function at each
 * element, as `torch.special.ndtri`: -inf at 0, inf at 1, NaN outside
 * [0, 1]. Evaluated on the host in float64. Differentiable
 * (SpecialNdtriBackward0).
 *
 * Returns: (transfer full): a floating-point tensor of @self's shape, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_special_ndtri (DlTensor *self, GError **error)
{
  return special_apply (&ndtri_op, self, NULL, error);
}

/**
 * dl_tensor_special_log_ndtr:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * The logarithm of the standard normal distribution function at each
 * element, as `torch.special.log_ndtr`, accurate far into both tails.
 * Evaluated on the host in float64. Differentiable
 * (SpecialLogNdtrBackward0).
 *
 * Returns: (transfer full): a floating-point tensor of @self's shape, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_special_log_ndtr (DlTensor *self, GError **error)
{
  return special_apply (&log_ndtr_op, self, NULL, error);
}

/**
 * dl_tensor_igamma:
 * @self: the shapes a, not negative
 * @other: the points x, not negative; broadcast with @self
 * @error: return location for a #GError
 *
 * The regularised lower incomplete gamma function P (a, x), as
 * `torch.igamma (self, other)` and `torch.special.gammainc`. Evaluated on
 * the host in float64. Differentiable in @other only (IgammaBackward0), as
 * PyTorch's.
 *
 * Fails with %DL_ERROR_DTYPE for two integer operands, %DL_ERROR_SHAPE when
 * the shapes do not broadcast.
 *
 * Returns: (transfer full): a floating-point tensor of the broadcast shape,
 *   or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_igamma (DlTensor *self, DlTensor *other, GError **error)
{
  return special_apply (&igamma_op, self, other, error);
}

/**
 * dl_tensor_igammac:
 * @self: the shapes a, not negative
 * @other: the points x, not negative; broadcast with @self
 * @error: return location for a #GError
 *
 * The regularised upper incomplete gamma function Q (a, x) = 1 - P (a, x),
 * as `torch.igammac (self, other)` and `torch.special.gammaincc`.
 * Evaluated on the host in float64. Differentiable in @other only
 * (IgammacBackward0).
 *
 * Fails with %DL_ERROR_DTYPE for two integer operands, %DL_ERROR_SHAPE when
 * the shapes do not broadcast.
 *
 * Returns: (transfer full): a floating-point tensor of the broadcast shape,
 *   or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_igammac (DlTensor *self, DlTensor *other, GError **error)
{
  return special_apply (&igammac_op, self, other, error);
}

/**
 * dl_tensor_special_zeta:
 * @self: the exponents x
 * @other: the offsets q; broadcast with @self
 * @error: return location for a #GError
 *
 * The Hurwitz zeta function sum_k (k + q)^-x, as `torch.special.zeta`:
 * inf at x = 1, NaN below. Evaluated on the host in float64.
 * Differentiable in @other only (SpecialZetaBackward0).
 *
 * Fails with %DL_ERROR_DTYPE for two integer operands, %DL_ERROR_SHAPE when
 * the shapes do not broadcast.
 *
 * Returns: (transfer full): a floating-point tensor of the broadcast shape,
 *   or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_special_zeta (DlTensor *self, DlTensor *other, GError **error)
{
  return special_apply (&zeta_op, self, other, error);
}
