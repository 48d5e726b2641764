/* dl-ops-activation.c: softmax and log_softmax along a dim, and the
 * activations with a number (leaky_relu).
 *
 *   log_softmax (x) = (x - m) - log (sum (exp (x - m))),  m = max (x)
 *   softmax (x)     = exp (log_softmax (x))
 * The forward pass composes primitives without recording them, in float32
 * for the 16-bit types (rounded once at the end); the gradients are single
 * nodes, as PyTorch's:
 *   d log_softmax: g - exp (y) * sum (g)
 *   d softmax:     y * (g - sum (g * y))
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-pointwise-private.h"

typedef struct
{
  gint dim;
  DlSavedTensor out;
} SoftmaxState;

static gboolean
log_softmax_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const SoftmaxState *state = dl_node_state (node);
  gint64 dim = state->dim;
  DlTensor *y = dl_node_saved (node, &state->out, error);
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) ps = NULL;

  if (!y || !(p = dl_tensor_exp (y, error))
      || !(s = dl_tensor_sum_dims (go[0], &dim, 1, TRUE, error))
      || !(ps = dl_tensor_mul (p, s, error)))
    return FALSE;
  gi[0] = dl_tensor_sub (go[0], ps, error);
  return gi[0] != NULL;
}

static gboolean
softmax_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const SoftmaxState *state = dl_node_state (node);
  gint64 dim = state->dim;
  DlTensor *y = dl_node_saved (node, &state->out, error);
  g_autoptr (DlTensor) gy = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) d = NULL;

  if (!y || !(gy = dl_tensor_mul (go[0], y, error))
      || !(s = dl_tensor_sum_dims (gy, &dim, 1, TRUE, error))
      || !(d = dl_tensor_sub (go[0], s, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (y, d, error);
  return gi[0] != NULL;
}

/* log_softmax of @x along @dim, computed without autograd. */
static DlTensor *
log_softmax_values (DlTensor *x, gint64 dim, GError **error)
{
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) shifted = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) lse = NULL;

  if (x->numel == 0)
    return dl_tensor_clone (x, error);
  if (!(m = dl_tensor_max_dim (x, dim, TRUE, NULL, error))
      || !(shifted = dl_tensor_sub (x, m, error)) || !(e = dl_tensor_exp (shifted, error))
      || !(s = dl_tensor_sum_dims (e, &dim, 1, TRUE, error)) || !(lse = dl_tensor_log (s, error)))
    return NULL;
  return dl_tensor_sub (shifted, lse, error);
}

static DlTensor *
softmax_op (DlTensor *self, gint64 dim, gboolean log, GError **error)
{
  const gchar *name = log ? "log_softmax" : "softmax";
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  DlTensor *out;
  gboolean was;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_normalize_dim (name, &dim, self->ndim, error))
    return NULL;
  if (!dl_dtype_is_float (self->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: expected a floating-point tensor, got %s",
                   name, dl_dtype_get_name (self->dtype));
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  x = dl_cast_nograd (self, self->dtype == DL_DTYPE_FLOAT64 ? DL_DTYPE_FLOAT64 : DL_DTYPE_FLOAT32,
                      error);
  if (x && dim == x->ndim - 1 && x->numel > 0 && dl_tensor_is_contiguous (x)
      && dl_tensor_context (x)->backend->softmax)
    {
      /* rows along the last dim: the backend's fused kernel */
      y = dl_tensor_new_empty_internal (dl_tensor_device (x), x->dtype, x->sizes, x->ndim, error);
      if (y)
        {
          DlBackendContext *ctx = dl_tensor_context (x);

          ctx->backend->softmax (ctx, dl_tensor_data (x), dl_tensor_data (y),
                                 x->numel / x->sizes[dim], x->sizes[dim], x->dtype, log);
        }
    }
  else if (x)
    {
      y = log_softmax_values (x, dim, error);
      if (y && !log)
        {
          DlTensor *e = dl_tensor_exp (y, error);
          g_object_unref (y);
          y = e;
        }
    }
  dl_set_grad_enabled (was);
  if (!y || !(out = dl_cast_nograd (y, self->dtype, error)))
    return NULL;

  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op (log ? "LogSoftmaxBackward0" : "SoftmaxBackward0",
                                log ? log_softmax_backward : softmax_backward, 1, &self);
      SoftmaxState *s = DL_NODE_NEW_STATE (node, SoftmaxState);

      s->dim = dim;
      dl_node_save (node, &s->out, out, TRUE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_log_softmax:
 * @self: a floating-point #DlTensor
 * @dim: the dim to normalise over
 * @error: return location for a #GError
 *
 * Applies log-softmax along @dim, as `torch.log_softmax (self, dim)`: x -
 * log (sum (exp (x))) over each slice, computed without forming softmax, so
 * it stays finite where log (softmax (x)) underflows. With dl_nll_loss() it
 * makes the cross-entropy. Differentiable.
 *
 * Fails with %DL_ERROR_INDEX when @dim is out of range and %DL_ERROR_DTYPE
 * for an integer or bool tensor.
 *
 * Returns: (transfer full): log (softmax (self)) along @dim, computed
 *   stably, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_log_softmax (DlTensor *self, gint64 dim, GError **error)
{
  return softmax_op (self, dim, TRUE, error);
}

/**
 * dl_tensor_softmax:
 * @self: a floating-point #DlTensor
 * @dim: the dim to normalise over
 * @error: return location for a #GError
 *
 * Applies softmax along @dim, as `torch.softmax (self, dim)`: each slice
 * along @dim is exponentiated and divided by its sum, so it is non-negative
 * and sums to 1. The maximum is subtracted first, so large inputs do not
 * overflow. Differentiable.
 *
 * Fails with %DL_ERROR_INDEX when @dim is out of range and %DL_ERROR_DTYPE
 * for an integer or bool tensor.
 *
 * Returns: (transfer full): exp (x) / sum (exp (x)) along @dim, computed
 *   stably, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_softmax (DlTensor *self, gint64 dim, GError **error)
{
  return softmax_op (self, dim, FALSE, error);
}

/* ---- leaky_relu ------------------------------------------------------------ */

/* leaky_relu runs the unary pipeline with its slope as the kernel's
 * parameter (which the node keeps as alpha); its gradient is g where
 * x > 0 and g * slope elsewhere, written with differentiable ops so that
 * it has a gradient itself. */
static gboolean
leaky_relu_grad (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)
{
  g_autoptr (DlTensor) pos = dl_tensor_gt_scalar (a->self, 0, error);
  g_autoptr (DlTensor) scaled = pos ? dl_tensor_mul_scalar (a->grad, a->alpha, error) : NULL;

  return scaled && (*gs = dl_where (pos, a->grad, scaled, error)) != NULL;
}

static const DlPointwiseOp leaky_relu_op = {
  .name = "leaky_relu",
  .inplace_name = "leaky_relu_",
  .arity = 1,
  .kernel = DL_UNARY_LEAKY_RELU,
  .rule = DL_POINTWISE_RULE_STRICT,
  .node = "LeakyReluBackward0",
  .grad = leaky_relu_grad,
  .saves = DL_POINTWISE_SAVES_SELF,
  .flags = DL_OP_FLAGS_UNARY | DL_OP_FLAGS_INPLACE,
};

/**
 * dl_tensor_leaky_relu:
 * @self: a floating-point #DlTensor
 * @negative_slope: the factor for negative elements (PyTorch's default is
 *   0.01)
 * @error: return location for a #GError
 *
 * Computes x where x > 0 and @negative_slope * x elsewhere, elementwise,
 * as torch.nn.functional.leaky_relu.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_leaky_relu (DlTensor *self, gdouble negative_slope, GError **error)
{
  return dl_pointwise_unary_params (&leaky_relu_op, self, &negative_slope, error);
}

/**
 * dl_tensor_leaky_relu_:
 * @self: a floating-point #DlTensor, written in place
 * @negative_slope: the factor for negative elements
 * @error: return location for a #GError
 *
 * Computes dl_tensor_leaky_relu() and writes it into @self, as
 * torch.nn.functional.leaky_relu_.
 *
 * Returns: (transfer none): @self itself, as in-place ops return it (not
 *   a new reference), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_leaky_relu_ (DlTensor *self, gdouble negative_slope, GError **error)
{
  return dl_pointwise_unary_params_ (&leaky_relu_op, self, &negative_slope, error);
}

/* ---- the activations with numbers -----------------------------------------
 * Each runs the unary pipeline with its numbers as the kernel's params
 * (which the node keeps); its gradient is written with differentiable
 * ops, with PyTorch's choice at the kinks. */

/* g where @mask (consumed), 0 elsewhere */
static gboolean
grad_where (const DlPointwiseGradArgs *a, DlTensor *mask, DlTensor **gs, GError **error)
{
  return (*gs = dl_pointwise_mul_mask (a->grad, mask, error)) != NULL;
}

/* the bool tensor lo < x < hi */
static DlTensor *
strictly_between (DlTensor *x, gdouble lo, gdouble hi, GError **error)
{
  g_autoptr (DlTensor) above = dl_tensor_gt_scalar (x, lo, error);
  g_autoptr (DlTensor) below = above ? dl_tensor_lt_scalar (x, hi, error) : NULL;

  return below ? dl_tensor_logical_and (above, below, error) : NULL;
}

/* hardtanh: g where min < x < max */
static gboolean
hardtanh_grad (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)
{
  return grad_where (a, strictly_between (a->self, a->params[0], a->params[1], error), gs, error);
}

/* hardshrink and softshrink: g where x < -lambd or x > lambd */
static gboolean
shrink_grad (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)
{
  g_autoptr (DlTensor) below = dl_tensor_lt_scalar (a->self, -a->params[0], error);
  g_autoptr (DlTensor) above = below ? dl_tensor_gt_scalar (a->self, a->params[0], error) : NULL;

  return above && grad_where (a, dl_tensor_logical_or (below, above, error), gs, error);
}

/* threshold: g where x > threshold */
static gboolean
threshold_grad (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)
{
  return grad_where (a, dl_tensor_gt_scalar (a->self, a->params[0], error), gs, error);
}

/* elu with (alpha, scale, input_scale): g scale where x > 0, else
 * g scale alpha input_scale e^(input_scale x) */
static gboolean
elu_grad (const DlPointwiseGradArgs *a, DlTensor **gs, DlTensor **go, GError **error)
{
  const gdouble alpha = a->params[0], scale = a->params[1], input_scale = a->params[2];
  g_autoptr (DlTensor) pos = dl_tensor_gt_scalar (a->self, 0, error);
  g_autoptr (DlTensor) xs = pos ? dl_tensor_mul_scalar (a->self, input_scale, error) : NULL;
  g_autoptr (DlTensor) e = xs ? dl_tensor_exp (xs, error) : NULL;
  g_autoptr (DlTensor) neg
      = e ? dl_tensor_mul_scalar (e, scale * alpha * input_scale, error) : NULL;
  g_autoptr (DlTensor) gneg = neg ? dl_tensor_mul (a->grad, neg, error) : NULL;
  g_autoptr (DlTensor) gpos
      = gneg ? (scale == 1 ? g_object_ref (a->grad) : dl_tensor_mul_scalar (a->grad, scale, error))
             : NULL;

  return gpos && (*gs = dl_where (pos, gpos, gneg, error)) != NULL;
}

#define PARAM_ACTIVATION(op_name, KERNEL, node_name, grad_fn, n)                                   \
  {                                                                                                \
    .name = op_name, .inplace_name = op_name "_", .arity = 1, .kernel = DL_UNARY_##KERNEL,         \
    .rule = DL_POINTWISE_RULE_STRICT, .node = node_name, .grad = grad_fn,                          \
    .saves = DL_POINTWISE_SAVES_SELF, .flags = DL_OP_FLAGS_UNARY | DL_OP_FLAGS_INPLACE,            \
    .n_params = n,                                                                                 \
  }

static const DlPointwiseOp hardtanh_op
    = PARAM_ACTIVATION ("hardtanh", HARDTANH, "HardtanhBackward0", hardtanh_grad, 2);
static const DlPointwiseOp relu6_op
    = PARAM_ACTIVATION ("relu6", HARDTANH, "HardtanhBackward0", hardtanh_grad, 2);
static const DlPointwiseOp elu_op = PARAM_ACTIVATION ("elu", ELU, "EluBackward0", elu_grad, 3);
static const DlPointwiseOp selu_op = PARAM_ACTIVATION ("selu", ELU, "EluBackward0", elu_grad, 3);
static const DlPointwiseOp celu_op = PARAM_ACTIVATION ("celu", ELU, "CeluBackward0", elu_grad, 3);
static const DlPointwiseOp hardshrink_op
    = PARAM_ACTIVATION ("hardshrink", HARDSHRINK, "HardshrinkBackward0", shrink_grad, 1);
static const DlPointwiseOp softshrink_op
    = PARAM_ACTIVATION ("softshrink", SOFTSHRINK, "SoftshrinkBackward0", shrink_grad, 1);
static const DlPointwiseOp threshold_op
    = PARAM_ACTIVATION ("threshold", THRESHOLD, "ThresholdBackward0", threshold_grad, 2);

/* SELU's constants (Klambauer et al., 2017), as PyTorch's */
#define SELU_ALPHA 1.6732632423543772848170429916717
#define SELU_SCALE 1.0507009873554804934193349852946

static gboolean
check_lambd (const gchar *name, gdouble lambd, GError **error)
{
  if (!(lambd >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: lambda must be greater or equal to 0, but found to be %g.", name, lambd);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_celu (gdouble alpha, GError **error)
{
  if (alpha == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "celu: ZeroDivisionError: alpha cannot be 0 (it divides the input)");
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_tensor_hardtanh:
 * @self: a floating-point #DlTensor
 * @min_val: the lower bound (PyTorch's default is -1)
 * @max_val: the upper bound (PyTorch's default is 1)
 * @error: return location for a #GError
 *
 * Clamps each element to [@min_val, @max_val], as
 * torch.nn.functional.hardtanh: min (max (x, @min_val), @max_val), so
 * @max_val everywhere when @min_val > @max_val, as PyTorch's. Unlike
 * dl_tensor_clamp_scalar(), the gradient is 0 at the bounds themselves,
 * as PyTorch's HardtanhBackward0.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_hardtanh (DlTensor *self, gdouble min_val, gdouble max_val, GError **error)
{
  gdouble p[2] = { min_val, max_val };

  return dl_pointwise_unary_params (&hardtanh_op, self, p, error);
}

/**
 * dl_tensor_hardtanh_:
 * @self: a floating-point #DlTensor, written in place
 * @min_val: the lower bound
 * @max_val: the upper bound
 * @error: return location for a #GError
 *
 * Computes dl_tensor_hardtanh() and writes it into @self, as
 * torch.nn.functional.hardtanh_.
 *
 * Returns: (transfer none): @self itself, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_hardtanh_ (DlTensor *self, gdouble min_val, gdouble max_val, GError **error)
{
  gdouble p[2] = { min_val, max_val };

  return dl_pointwise_unary_params_ (&hardtanh_op, self, p, error);
}

/**
 * dl_tensor_relu6:
 * @self: a floating-point #DlTensor
 * @error: return location for a #GError
 *
 * Computes min (max (x, 0), 6) element-wise, as torch.nn.functional.relu6
 * (hardtanh between 0 and 6).
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_relu6 (DlTensor *self, GError **error)
{
  static const gdouble p[2] = { 0, 6 };

  return dl_pointwise_unary_params (&relu6_op, self, p, error);
}

/**
 * dl_tensor_relu6_:
 * @self: a floating-point #DlTensor, written in place
 * @error: return location for a #GError
 *
 * Computes dl_tensor_relu6() and writes it into @self, as
 * `torch.nn.functional.relu6 (x, inplace=True)`.
 *
 * Returns: (transfer none): @self itself, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_relu6_ (DlTensor *self, GError **error)
{
  static const gdouble p[2] = { 0, 6 };

  return dl_pointwise_unary_params_ (&relu6_op, self, p, error);
}

/**
 * dl_tensor_elu:
 * @self: a floating-point #DlTensor
 * @alpha: the scale of the negative part (PyTorch's default is 1)
 * @error: return location for a #GError
 *
 * Computes the exponential linear unit element-wise, as
 * torch.nn.functional.elu: x where x > 0, @alpha (e^x - 1) elsewhere.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_elu (DlTensor *self, gdouble alpha, GError **error)
{
  gdouble p[3] = { alpha, 1, 1 };

  return dl_pointwise_unary_params (&elu_op, self, p, error);
}

/**
 * dl_tensor_elu_:
 * @self: a floating-point #DlTensor, written in place
 * @alpha: the scale of the negative part
 * @error: return location for a #GError
 *
 * Computes dl_tensor_elu() and writes it into @self, as
 * torch.nn.functional.elu_.
 *
 * Returns: (transfer none): @self itself, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_elu_ (DlTensor *self, gdouble alpha, GError **error)
{
  gdouble p[3] = { alpha, 1, 1 };

  return dl_pointwise_unary_params_ (&elu_op, self, p, error);
}

/**
 * dl_tensor_selu:
 * @self: a floating-point #DlTensor
 * @error: return location for a #GError
 *
 * Computes the scaled exponential linear unit element-wise, as torch.selu:
 * scale x where x > 0, scale alpha (e^x - 1) elsewhere, with PyTorch's
 * constants alpha = 1.6732632423543772 and scale = 1.0507009873554805.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_selu (DlTensor *self, GError **error)
{
  static const gdouble p[3] = { SELU_ALPHA, SELU_SCALE, 1 };

  return dl_pointwise_unary_params (&selu_op, self, p, error);
}

/**
 * dl_tensor_selu_:
 * @self: a floating-point #DlTensor, written in place
 * @error: return location for a #GError
 *
 * Computes dl_tensor_selu() and writes it into @self, as torch.selu_.
 *
 * Returns: (transfer none): @self itself, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_selu_ (DlTensor *self, GError **error)
{
  static const gdouble p[3] = { SELU_ALPHA, SELU_SCALE, 1 };

  return dl_pointwise_unary_params_ (&selu_op, self, p, error);
}

/**
 * dl_tensor_celu:
 * @self: a floating-point #DlTensor
 * @alpha: the scale of the negative part, not 0 (PyTorch's default is 1)
 * @error: return location for a #GError
 *
 * Computes the continuously differentiable exponential linear unit
 * element-wise, as torch.celu: x where x > 0, @alpha (e^(x / @alpha) - 1)
 * elsewhere.
 *
 * Fails with %DL_ERROR_ARGUMENT when @alpha is 0.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_celu (DlTensor *self, gdouble alpha, GError **error)
{
  gdouble p[3] = { alpha, 1, 1 / alpha };

  if (!check_celu (alpha, error))
    return NULL;
  return dl_pointwise_unary_params (&celu_op, self, p, error);
}

/**
 * dl_tensor_celu_:
 * @self: a floating-point #DlTensor, written in place
 * @alpha: the scale of the negative part, not 0
 * @error: return location for a #GError
 *
 * Computes dl_tensor_celu() and writes it into @self, as torch.celu_.
 *
 * Returns: (transfer none): @self itself, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_celu_ (DlTensor *self, gdouble alpha, GError **error)
{
  gdouble p[3] = { alpha, 1, 1 / alpha };

  if (!check_celu (alpha, error))
    return NULL;
  return dl_pointwise_unary_params_ (&celu_op, self, p, error);
}

/**
 * dl_tensor_hardshrink:
 * @self: a floating-point #DlTensor
 * @lambd: the half-width of the band set to 0 (PyTorch's default is 0.5)
 * @error: return location for a #GError
 *
 * Computes x where x < -@lambd or x > @lambd and 0 elsewhere,
 * element-wise, as torch.nn.functional.hardshrink (a negative @lambd, which
 * PyTorch accepts here, makes an empty band).
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_hardshrink (DlTensor *self, gdouble lambd, GError **error)
{
  return dl_pointwise_unary_params (&hardshrink_op, self, &lambd, error);
}

/**
 * dl_tensor_softshrink:
 * @self: a floating-point #DlTensor
 * @lambd: the half-width of the band set to 0, at least 0 (PyTorch's
 *   default is 0.5)
 * @error: return location for a #GError
 *
 * Computes x - @lambd where x > @lambd, x + @lambd where x < -@lambd and
 * 0 elsewhere, element-wise, as torch.nn.functional.softshrink.
 *
 * Fails with %DL_ERROR_ARGUMENT for a negative @lambd.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_softshrink (DlTensor *self, gdouble lambd, GError **error)
{
  if (!check_lambd ("softshrink", lambd, error))
    return NULL;
  return dl_pointwise_unary_params (&softshrink_op, self, &lambd, error);
}

/**
 * dl_tensor_threshold:
 * @self: a floating-point #DlTensor
 * @threshold: the value x must exceed to be kept
 * @value: what replaces the elements not above @threshold
 * @error: return location for a #GError
 *
 * Computes x where x > @threshold and @value elsewhere, element-wise, as
 * torch.threshold.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_threshold (DlTensor *self, gdouble threshold, gdouble value, GError **error)
{
  gdouble p[2] = { threshold, value };

  return dl_pointwise_unary_params (&threshold_op, self, p, error);
}

/**
 * dl_tensor_threshold_:
 * @self: a floating-point #DlTensor, written in place
 * @threshold: the value x must exceed to be kept
 * @value: what replaces the elements not above @threshold
 * @error: return location for a #GError
 *
 * Computes dl_tensor_threshold() and writes it into @self, as
 * torch.threshold_.
 *
 * Returns: (transfer none): @self itself, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_threshold_ (DlTensor *self, gdouble threshold, gdouble value, GError **error)
{
  gdouble p[2] = { threshold, value };

  return dl_pointwise_unary_params_ (&threshold_op, self, p, error);
}

/* ---- rrelu ------------------------------------------------------------------
 * out = x * noise, noise 1 where x > 0 and elsewhere a slope: drawn from
 * U(lower, upper) per element in training, (lower + upper) / 2 in eval.
 * The node keeps the noise: d out = g * noise (RreluWithNoiseBackward0, in
 * both modes, as PyTorch's rrelu_with_noise). */

typedef struct
{
  DlSavedTensor noise;
} RreluState;

static gboolean
rrelu_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const RreluState *s = dl_node_state (node);
  DlTensor *noise = dl_node_saved (node, &s->noise, error);

  return noise && (gi[0] = dl_tensor_mul (go[0], noise, error)) != NULL;
}

static gboolean
check_float (const gchar *name, DlTensor *t, GError **error)
{
  if (!dl_dtype_is_float (t->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: expected a floating-point tensor, got %s",
                   name, dl_dtype_get_name (t->dtype));
      return FALSE;
    }
  return TRUE;
}

/* the noise of rrelu for @x, without history */
static DlTensor *
rrelu_noise (DlTensor *x,
             gdouble lower,
             gdouble upper,
             gboolean training,
             DlGenerator *generator,
             GError **error)
{
  g_autoptr (DlTensor) noise = NULL;
  g_autoptr (DlTensor) pos = NULL;

  if (!(noise
        = dl_tensor_new_empty_internal (dl_tensor_device (x), x->dtype, x->sizes, x->ndim, error)))
    return NULL;
  if (training ? !dl_tensor_uniform_gen_ (noise, lower, upper, generator, error)
               : !dl_tensor_fill_ (noise, (lower + upper) / 2, error))
    return NULL;
  if (!(pos = dl_tensor_gt_scalar (x, 0, error)) || !dl_tensor_masked_fill_ (noise, pos, 1, error))
    return NULL;
  return g_steal_pointer (&noise);
}

/**
 * dl_tensor_rrelu:
 * @self: a floating-point #DlTensor
 * @lower: the lowest slope (PyTorch's default is 1/8)
 * @upper: the highest slope, not below @lower (PyTorch's default is 1/3)
 * @training: whether to draw the slopes (else their mean is used)
 * @generator: (nullable): the #DlGenerator the slopes are drawn from, or
 *   %NULL for the default one
 * @error: return location for a #GError
 *
 * Computes the randomized leaky ReLU element-wise, as
 * torch.nn.functional.rrelu: x where x > 0, and elsewhere x times a slope
 * drawn uniformly from [@lower, @upper] for each element when @training,
 * or (@lower + @upper) / 2 otherwise. The gradient is the incoming one
 * times the slope each element used.
 *
 * Fails with %DL_ERROR_ARGUMENT when @lower > @upper and %DL_ERROR_DTYPE
 * for an integer or bool tensor.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_rrelu (DlTensor *self,
                 gdouble lower,
                 gdouble upper,
                 gboolean training,
                 DlGenerator *generator,
                 GError **error)
{
  g_autoptr (DlTensor) noise = NULL;
  DlTensor *out = NULL;
  gboolean was;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  if (!dl_check_live ("rrelu", self, error) || !check_float ("rrelu", self, error))
    return NULL;
  if (lower > upper)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "rrelu: lower bound should be less than or equal to the upper bound, got "
                   "lower=%g and upper=%g",
                   lower, upper);
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  noise = rrelu_noise (self, lower, upper, training, generator, error);
  if (noise)
    out = dl_tensor_mul (self, noise, error);
  dl_set_grad_enabled (was);
  if (out && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("RreluWithNoiseBackward0", rrelu_backward, 1, &self);
      RreluState *s = DL_NODE_NEW_STATE (node, RreluState);

      dl_node_save (node, &s->noise, noise, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_rrelu_:
 * @self: a floating-point #DlTensor, written in place
 * @lower: the lowest slope
 * @upper: the highest slope, not below @lower
 * @training: whether to draw the slopes (else their mean is used)
 * @generator: (nullable): the #DlGenerator the slopes are drawn from, or
 *   %NULL for the default one
 * @error: return location for a #GError
 *
 * Computes dl_tensor_rrelu() and writes it into @self, as
 * torch.nn.functional.rrelu_.
 *
 * Returns: (transfer none): @self itself, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_rrelu_ (DlTensor *self,
                  gdouble lower,
                  gdouble upper,
                  gboolean training,
                  DlGenerator *generator,
                  GError **error)
{
  g_autoptr (DlTensor) out = dl_tensor_rrelu (self, lower, upper, training, generator, error);

  return out && dl_tensor_copy_ (self, out, error) ? self : NULL;
}

/* ---- prelu ------------------------------------------------------------------
 * out = x where x > 0, w x elsewhere, with w one number or one per channel
 * (dim 1), broadcast. d x = g where x > 0, g w elsewhere; d w = the sum of
 * g x where x <= 0 over all but the channel dim (PreluBackward0). */

typedef struct
{
  DlSavedTensor self, weight;
} PreluState;

/* @weight shaped to broadcast against @x: [1, C, 1, ...] or a scalar */
static DlTensor *
prelu_weight_view (DlTensor *x, DlTensor *weight, GError **error)
{
  g_autofree gint64 *shape = g_new (gint64, MAX (x->ndim, 1));

  if (weight->numel == 1 || x->ndim < 2)
    return dl_reshape_view (weight, shape, 0, error);
  for (gint i = 0; i < x->ndim; i++)
    shape[i] = i == 1 ? weight->numel : 1;
  return dl_reshape_view (weight, shape, x->ndim, error);
}

static gboolean
prelu_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const PreluState *s = dl_node_state (node);
  DlTensor *x = dl_node_saved (node, &s->self, error);
  DlTensor *w = x ? dl_node_saved (node, &s->weight, error) : NULL;
  g_autoptr (DlTensor) wb = NULL;
  g_autoptr (DlTensor) pos = NULL;
  g_autoptr (DlTensor) neg = NULL;

  if (!w || !(wb = prelu_weight_view (x, w, error)) || !(pos = dl_tensor_gt_scalar (x, 0, error))
      || !(neg = dl_tensor_logical_not (pos, error)))
    return FALSE;
  if (dl_node_needs_input_grad (node, 0))
    {
      g_autoptr (DlTensor) gw = dl_tensor_mul (go[0], wb, error);

      if (!gw || !(gi[0] = dl_where (pos, go[0], gw, error)))
        return FALSE;
    }
  if (dl_node_needs_input_grad (node, 1))
    {
      g_autoptr (DlTensor) gx = dl_tensor_mul (go[0], x, error);
      g_autoptr (DlTensor) gneg = gx ? dl_pointwise_mul_mask (gx, g_object_ref (neg), error) : NULL;
      g_autoptr (DlTensor) summed = gneg ? dl_sum_to (gneg, wb->sizes, wb->ndim, error) : NULL;

      if (!summed || !(gi[1] = dl_reshape_view (summed, w->sizes, w->ndim, error)))
        return FALSE;
    }
  return TRUE;
}

/**
 * dl_tensor_prelu:
 * @self: a floating-point #DlTensor
 * @weight: the slopes of the negative part: a tensor of one element, or a
 *   1-D tensor of one per channel (the size of dim 1 of @self)
 * @error: return location for a #GError
 *
 * Computes the parametric ReLU element-wise, as torch.prelu: x where x > 0
 * and w x elsewhere, w the slope of the element's channel. Differentiable
 * in both @self and @weight.
 *
 * Fails with %DL_ERROR_SHAPE when @weight has more than one dim or a
 * number of elements other than 1 and the channel count, and with
 * %DL_ERROR_DTYPE for integer or bool tensors.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_prelu (DlTensor *self, DlTensor *weight, GError **error)
{
  DlTensor *inputs[2] = { self, weight };
  gint64 channels;
  g_autoptr (DlTensor) wb = NULL;
  g_autoptr (DlTensor) pos = NULL;
  g_autoptr (DlTensor) neg = NULL;
  DlTensor *out = NULL;
  gboolean was;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  if (!dl_check_live ("prelu", self, error) || !dl_check_live ("prelu", weight, error)
      || !check_float ("prelu", self, error) || !check_float ("prelu", weight, error))
    return NULL;
  if (weight->ndim > 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = %d",
                   weight->ndim);
      return NULL;
    }
  channels = self->ndim >= 2 ? self->sizes[1] : 1;
  if (weight->numel != 1 && weight->numel != channels)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "prelu: Mismatch of parameter numbers and input channel size. Found parameter "
                   "numbers = %" G_GINT64_FORMAT " and channel size = %" G_GINT64_FORMAT ".",
                   weight->numel, channels);
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  if ((wb = prelu_weight_view (self, weight, error)) && (pos = dl_tensor_gt_scalar (self, 0, error))
      && (neg = dl_tensor_mul (self, wb, error)))
    out = dl_where (pos, self, neg, error);
  dl_set_grad_enabled (was);
  if (out && dl_autograd_any_requires (2, inputs))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("PreluBackward0", prelu_backward, 2, inputs);
      PreluState *s = DL_NODE_NEW_STATE (node, PreluState);

      dl_node_save (node, &s->self, self, FALSE);
      dl_node_save (node, &s->weight, weight, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/* ---- glu ---------------------------------------------------------------------
 * a, b the halves of x along dim: out = a sigmoid (b); d a = g sigmoid (b),
 * d b = g a sigmoid (b) (1 - sigmoid (b)), joined again (GluBackward0). */

typedef struct
{
  gint64 dim;
  DlSavedTensor self;
} GluState;

/* the halves of @x along @dim */
static gboolean
glu_halves (DlTensor *x, gint64 dim, DlTensor **a, DlTensor **b, GError **error)
{
  gint64 half = x->sizes[dim] / 2;

  return (*a = dl_tensor_narrow (x, dim, 0, half, error)) != NULL
         && (*b = dl_tensor_narrow (x, dim, half, half, error)) != NULL;
}

static gboolean
glu_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const GluState *st = dl_node_state (node);
  DlTensor *x = dl_node_saved (node, &st->self, error);
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) one_m = NULL;
  g_autoptr (DlTensor) ga = NULL;
  g_autoptr (DlTensor) gas = NULL;
  g_autoptr (DlTensor) gb = NULL;
  DlTensor *parts[2];

  if (!x || !glu_halves (x, st->dim, &a, &b, error) || !(s = dl_tensor_sigmoid (b, error))
      || !(one_m = dl_tensor_rsub_scalar (s, 1, error)) || !(ga = dl_tensor_mul (go[0], s, error))
      || !(gas = dl_tensor_mul (ga, a, error)) || !(gb = dl_tensor_mul (gas, one_m, error)))
    return FALSE;
  parts[0] = ga;
  parts[1] = gb;
  return (gi[0] = dl_cat (parts, 2, st->dim, error)) != NULL;
}

/**
 * dl_tensor_glu:
 * @self: a floating-point #DlTensor
 * @dim: the dim to halve; its size must be even (PyTorch's default is -1)
 * @error: return location for a #GError
 *
 * Computes the gated linear unit, as torch.nn.functional.glu: with a and b
 * the first and second halves of @self along @dim, a * sigmoid (b).
 *
 * Fails with %DL_ERROR_INDEX when @dim is out of range, %DL_ERROR_SHAPE
 * for a 0-d tensor or an odd size along @dim, and %DL_ERROR_DTYPE for an
 * integer or bool tensor.
 *
 * Returns: (transfer full): the result, of half the size along @dim, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_glu (DlTensor *self, gint64 dim, GError **error)
{
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) s = NULL;
  DlTensor *out = NULL;
  gboolean was;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("glu", self, error) || !check_float ("glu", self, error))
    return NULL;
  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "glu does not support scalars because halving size must be even");
      return NULL;
    }
  if (!dl_normalize_dim ("glu", &dim, self->ndim, error))
    return NULL;
  if (self->sizes[dim] % 2 != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "Halving dimension must be even, but dimension %" G_GINT64_FORMAT
                   " is size %" G_GINT64_FORMAT,
                   dim, self->sizes[dim]);
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  if (glu_halves (self, dim, &a, &b, error) && (s = dl_tensor_sigmoid (b, error)))
    out = dl_tensor_mul (a, s, error);
  dl_set_grad_enabled (was);
  if (out && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("GluBackward0", glu_backward, 1, &self);
      GluState *st = DL_NODE_NEW_STATE (node, GluState);

      st->dim = dim;
      dl_node_save (node, &st->self, self, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}
