/* dl-optimizer.c: DlOptimizer: the parameters, the learning rate, and
 * step as a virtual method.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-optimizer.h"
#include "dl-error.h"
#include "ops/dl-ops-pointwise.h"
#include "autograd/dl-node.h"

/**
 * DlOptimizer:
 *
 * The base class of optimizers, as torch.optim.Optimizer: it holds the
 * parameters to update and a learning rate; dl_optimizer_step() applies
 * the subclass's update rule.
 *
 * Since: 0.1
 */

typedef struct
{
  GPtrArray *params; /* DlTensor */
  gdouble lr;
} DlOptimizerPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlOptimizer, dl_optimizer, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_LR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
dl_optimizer_dispose (GObject *object)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (DL_OPTIMIZER (object));

  g_clear_pointer (&priv->params, g_ptr_array_unref);
  G_OBJECT_CLASS (dl_optimizer_parent_class)->dispose (object);
}

static void
dl_optimizer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_LR:
        g_value_set_double (value, dl_optimizer_get_lr (DL_OPTIMIZER (object)));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_optimizer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_LR:
        dl_optimizer_set_lr (DL_OPTIMIZER (object), g_value_get_double (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gboolean
dl_optimizer_real_step (DlOptimizer *self, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "step: optimizer of type %s does not implement step", G_OBJECT_TYPE_NAME (self));
  return FALSE;
}

static void
dl_optimizer_class_init (DlOptimizerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = dl_optimizer_dispose;
  object_class->get_property = dl_optimizer_get_property;
  object_class->set_property = dl_optimizer_set_property;
  klass->step = dl_optimizer_real_step;

  /**
   * DlOptimizer:lr:
   *
   * The learning rate.
   *
   * Since: 0.1
   */
  properties[PROP_LR]
      = g_param_spec_double ("lr", NULL, NULL, 0, G_MAXDOUBLE, 1e-3,
                             G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_optimizer_init (DlOptimizer *self)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  priv->params = g_ptr_array_new_with_free_func (g_object_unref);
  priv->lr = 1e-3;
}

/**
 * dl_optimizer_step: (virtual step)
 * @self: a #DlOptimizer
 * @error: return location for a #GError
 *
 * Updates every parameter that has a gradient. Runs without recording
 * autograd.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_optimizer_step (DlOptimizer *self, GError **error)
{
  GError *local = NULL;
  gboolean ok, was;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), FALSE);
  was = dl_set_grad_enabled (FALSE);
  ok = DL_OPTIMIZER_GET_CLASS (self)->step (self, &local);
  dl_set_grad_enabled (was);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (!ok)
    g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "step: %s.step failed",
                 G_OBJECT_TYPE_NAME (self));
  return ok;
}

/**
 * dl_optimizer_zero_grad:
 * @self: a #DlOptimizer
 * @set_to_none: drop the gradients (%TRUE, PyTorch's default) rather than
 *   fill them with zeros
 *
 * Clears the gradients of the parameters before the next backward.
 *
 * Since: 0.1
 */
void
dl_optimizer_zero_grad (DlOptimizer *self, gboolean set_to_none)
{
  DlOptimizerPrivate *priv;

  g_return_if_fail (DL_IS_OPTIMIZER (self));
  priv = dl_optimizer_get_instance_private (self);
  for (guint i = 0; i < priv->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (priv->params, i);
      DlTensor *g = dl_tensor_get_grad (p);

      if (g == NULL)
        continue;
      if (set_to_none)
        dl_tensor_set_grad (p, NULL, NULL);
      else
        dl_tensor_zero_ (g, NULL);
    }
}

/**
 * dl_optimizer_add_params:
 * @self: a #DlOptimizer
 * @params: (element-type DlTensor): parameters to optimize
 *
 * Adds parameters; the optimizer keeps references to them.
 *
 * Since: 0.1
 */
void
dl_optimizer_add_params (DlOptimizer *self, GPtrArray *params)
{
  DlOptimizerPrivate *priv;

  g_return_if_fail (DL_IS_OPTIMIZER (self));
  g_return_if_fail (params != NULL);
  priv = dl_optimizer_get_instance_private (self);
  for (guint i = 0; i < params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (params, i);
      g_return_if_fail (DL_IS_TENSOR (p));
      g_ptr_array_add (priv->params, g_object_ref (p));
    }
}

/**
 * dl_optimizer_get_params:
 * @self: a #DlOptimizer
 *
 * Returns: (transfer none) (element-type DlTensor): the parameters
 *
 * Since: 0.1
 */
GPtrArray *
dl_optimizer_get_params (DlOptimizer *self)
{
  DlOptimizerPrivate *priv;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), NULL);
  priv = dl_optimizer_get_instance_private (self);
  return priv->params;
}

/**
 * dl_optimizer_get_lr:
 * @self: a #DlOptimizer
 *
 * Returns: the learning rate
 *
 * Since: 0.1
 */
gdouble
dl_optimizer_get_lr (DlOptimizer *self)
{
  DlOptimizerPrivate *priv;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), 0);
  priv = dl_optimizer_get_instance_private (self);
  return priv->lr;
}

/**
 * dl_optimizer_set_lr:
 * @self: a #DlOptimizer
 * @lr: the new learning rate, not negative
 *
 * Sets the learning rate.
 *
 * Since: 0.1
 */
void
dl_optimizer_set_lr (DlOptimizer *self, gdouble lr)
{
  DlOptimizerPrivate *priv;

  g_return_if_fail (DL_IS_OPTIMIZER (self));
  g_return_if_fail (lr >= 0);
  priv = dl_optimizer_get_instance_private (self);
  if (priv->lr != lr)
    {
      priv->lr = lr;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LR]);
    }
}
