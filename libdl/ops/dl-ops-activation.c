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
