/* dl-linear.c: the fully connected layer, with PyTorch's default
 * initialisation: weight and bias uniform in [-1/sqrt(in), 1/sqrt(in)]
 * (kaiming_uniform_ with a = sqrt(5) gives that bound for the weight).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-linear.h"
#include "dl-error.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"
#include "ops/dl-ops-linalg.h"

/**
 * DlLinear:
 *
 * Applies y = x W^T + b to the last dim of its input, as torch.nn.Linear.
 * Its parameters are "weight" [out_features, in_features] and "bias"
 * [out_features].
 *
 * Since: 0.1
 */
struct _DlLinear
{
  DlModule parent_instance;
  gint64 in_features;
  gint64 out_features;
};

G_DEFINE_FINAL_TYPE (DlLinear, dl_linear, DL_TYPE_MODULE)

static DlTensor *
dl_linear_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlLinear *self = DL_LINEAR (module);
  DlTensor *w = dl_module_get_parameter (module, "weight");
  DlTensor *b = dl_module_get_parameter (module, "bias");
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) y = NULL;
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (input, &nd);

  if (nd == 0 || shape[nd - 1] != self->in_features)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "linear: input's last dim is %" G_GINT64_FORMAT
                   ", expected in_features = %" G_GINT64_FORMAT,
                   nd ? shape[nd - 1] : 0, self->in_features);
      return NULL;
    }
  if (!(wt = dl_tensor_t (w, error)) || !(y = dl_tensor_matmul (input, wt, error)))
    return NULL;
  if (b)
    return dl_tensor_add (y, b, error);
  return g_steal_pointer (&y);
}

static void
dl_linear_class_init (DlLinearClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_linear_forward;
}

static void
dl_linear_init (DlLinear *self)
{
}

/**
 * dl_linear_new:
 * @in_features: the size of each input sample
 * @out_features: the size of each output sample
 * @bias: whether to learn an additive bias
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new layer with PyTorch's default
 *   initialisation, or %NULL with @error set for negative sizes
 *
 * Since: 0.1
 */
DlLinear *
dl_linear_new (gint64 in_features, gint64 out_features, gboolean bias, GError **error)
{
  g_autoptr (DlLinear) self = NULL;
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) b = NULL;
  gdouble bound;
  DlDType dt = dl_get_default_dtype ();

  if (in_features < 0 || out_features < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Linear: sizes must be non-negative, got in_features=%" G_GINT64_FORMAT
                   ", out_features=%" G_GINT64_FORMAT,
                   in_features, out_features);
      return NULL;
    }
  self = g_object_new (DL_TYPE_LINEAR, NULL);
  self->in_features = in_features;
  self->out_features = out_features;
  bound = in_features > 0 ? 1.0 / sqrt ((gdouble)in_features) : 0;
  if (!(w = dl_empty ((gint64[]){ out_features, in_features }, 2, dt, NULL, error))
      || !dl_tensor_uniform_ (w, -bound, bound, error))
    return NULL;
  dl_tensor_set_requires_grad (w, TRUE, NULL);
  dl_module_register_parameter (DL_MODULE (self), "weight", w);
  if (bias)
    {
      if (!(b = dl_empty (&out_features, 1, dt, NULL, error))
          || !dl_tensor_uniform_ (b, -bound, bound, error))
        return NULL;
      dl_tensor_set_requires_grad (b, TRUE, NULL);
      dl_module_register_parameter (DL_MODULE (self), "bias", b);
    }
  return g_steal_pointer (&self);
}

/**
 * dl_linear_get_in_features:
 * @self: a #DlLinear
 *
 * Returns: the size of each input sample
 *
 * Since: 0.1
 */
gint64
dl_linear_get_in_features (DlLinear *self)
{
  g_return_val_if_fail (DL_IS_LINEAR (self), 0);
  return self->in_features;
}

/**
 * dl_linear_get_out_features:
 * @self: a #DlLinear
 *
 * Returns: the size of each output sample
 *
 * Since: 0.1
 */
gint64
dl_linear_get_out_features (DlLinear *self)
{
  g_return_val_if_fail (DL_IS_LINEAR (self), 0);
  return self->out_features;
}
