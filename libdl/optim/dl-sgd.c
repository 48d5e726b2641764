/* dl-sgd.c: SGD as torch.optim.SGD computes it:
 *   g = grad + weight_decay * p
 *   b = g on the first step, else momentum * b + (1 - dampening) * g
 *   g = g + momentum * b if nesterov, else b (when momentum != 0)
 *   p = p - lr * g
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-sgd.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-pointwise.h"

/**
 * DlSgd:
 *
 * Stochastic gradient descent with optional momentum, dampening, weight
 * decay and Nesterov momentum, as torch.optim.SGD.
 *
 * Its hyperparameters are properties: #DlOptimizer:params and
 * #DlOptimizer:lr, #DlSgd:momentum, #DlSgd:dampening,
 * #DlSgd:weight-decay and #DlSgd:nesterov (see #DlOptimizer for building
 * it from them); dl_sgd_new() takes them all. They may change between
 * steps; a step with an invalid value fails.
 *
 * Since: 0.1
 */
struct _DlSgd
{
  DlOptimizer parent_instance;
  gdouble momentum;
  gdouble dampening;
  gdouble weight_decay;
  gboolean nesterov;
  GHashTable *buffers; /* DlTensor param -> DlTensor momentum buffer */
};

G_DEFINE_FINAL_TYPE (DlSgd, dl_sgd, DL_TYPE_OPTIMIZER)

enum
{
  PROP_0,
  PROP_MOMENTUM,
  PROP_DAMPENING,
  PROP_WEIGHT_DECAY,
  PROP_NESTEROV,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* torch.optim.SGD's checks; the learning rate is DlOptimizer's */
static gboolean
check_hyperparameters (DlSgd *self, GError **error)
{
  if (!(self->momentum >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "SGD: invalid momentum value: %g",
                   self->momentum);
      return FALSE;
    }
  if (!(self->weight_decay >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "SGD: invalid weight_decay value: %g",
                   self->weight_decay);
      return FALSE;
    }
  if (self->nesterov && (self->momentum <= 0 || self->dampening != 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "SGD: Nesterov momentum requires a momentum and zero dampening");
      return FALSE;
    }
  return TRUE;
}

static gboolean
dl_sgd_step (DlOptimizer *optimizer, GError **error)
{
  DlSgd *self = DL_SGD (optimizer);
  GPtrArray *params = dl_optimizer_get_params (optimizer);
  gdouble lr = dl_optimizer_get_lr (optimizer);

  if (!check_hyperparameters (self, error))
    return FALSE;
  for (guint i = 0; i < params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (params, i);
      DlTensor *grad = dl_tensor_get_grad (p);
      g_autoptr (DlTensor) g = NULL;

      if (grad == NULL)
        continue;
      if (self->weight_decay == 0)
        g = g_object_ref (grad);
      else if (!(g = dl_tensor_add_scaled (grad, p, self->weight_decay, error)))
        return FALSE;

      if (self->momentum != 0)
        {
          DlTensor *buf = g_hash_table_lookup (self->buffers, p);

          if (buf == NULL)
            {
              if (!(buf = dl_tensor_clone (g, error)))
                return FALSE;
              g_hash_table_insert (self->buffers, g_object_ref (p), buf);
            }
          else
            {
              if (!dl_tensor_mul_scalar_ (buf, self->momentum, error))
                return FALSE;
              if (!dl_tensor_add_scaled_ (buf, g, 1 - self->dampening, error))
                return FALSE;
            }
          if (self->nesterov)
            {
              DlTensor *n = dl_tensor_add_scaled (g, buf, self->momentum, error);
              if (!n)
                return FALSE;
              g_object_unref (g);
              g = n;
            }
          else
            {
              g_object_unref (g);
              g = g_object_ref (buf);
            }
        }
      if (!dl_tensor_add_scaled_ (p, g, -lr, error))
        return FALSE;
    }
  return TRUE;
}

static void
dl_sgd_constructed (GObject *object)
{
  GError *error = NULL;

  G_OBJECT_CLASS (dl_sgd_parent_class)->constructed (object);
  if (!check_hyperparameters (DL_SGD (object), &error))
    dl_optimizer_take_construct_error (DL_OPTIMIZER (object), error);
}

static void
dl_sgd_finalize (GObject *object)
{
  DlSgd *self = DL_SGD (object);

  g_hash_table_unref (self->buffers);
  G_OBJECT_CLASS (dl_sgd_parent_class)->finalize (object);
}

static gdouble *
double_field (DlSgd *self, guint prop_id)
{
  switch (prop_id)
    {
      case PROP_MOMENTUM:
        return &self->momentum;
      case PROP_DAMPENING:
        return &self->dampening;
      case PROP_WEIGHT_DECAY:
        return &self->weight_decay;
      default:
        return NULL;
    }
}

static void
dl_sgd_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlSgd *self = DL_SGD (object);

  if (double_field (self, prop_id))
    g_value_set_double (value, *double_field (self, prop_id));
  else if (prop_id == PROP_NESTEROV)
    g_value_set_boolean (value, self->nesterov);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
dl_sgd_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlSgd *self = DL_SGD (object);
  gdouble *field = double_field (self, prop_id);

  if (field)
    {
      if (*field != g_value_get_double (value))
        {
          *field = g_value_get_double (value);
          g_object_notify_by_pspec (object, pspec);
        }
    }
  else if (prop_id == PROP_NESTEROV)
    {
      if (self->nesterov != g_value_get_boolean (value))
        {
          self->nesterov = g_value_get_boolean (value);
          g_object_notify_by_pspec (object, pspec);
        }
    }
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static GParamSpec *
hyperparameter (const gchar *name)
{
  /* every double, so that a bad value reaches check_hyperparameters() and
   * becomes a GError rather than a GParamSpec range warning */
  return g_param_spec_double (name, NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                              G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
                                  | G_PARAM_EXPLICIT_NOTIFY);
}

static void
dl_sgd_class_init (DlSgdClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_sgd_constructed;
  object_class->finalize = dl_sgd_finalize;
  object_class->get_property = dl_sgd_get_property;
  object_class->set_property = dl_sgd_set_property;
  DL_OPTIMIZER_CLASS (klass)->step = dl_sgd_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "SGD");

  /**
   * DlSgd:momentum:
   *
   * The momentum factor, >= 0 (default 0: plain SGD).
   *
   * Since: 0.1
   */
  properties[PROP_MOMENTUM] = hyperparameter ("momentum");
  /**
   * DlSgd:dampening:
   *
   * Dampening for momentum (default 0).
   *
   * Since: 0.1
   */
  properties[PROP_DAMPENING] = hyperparameter ("dampening");
  /**
   * DlSgd:weight-decay:
   *
   * The L2 penalty, >= 0 (default 0).
   *
   * Since: 0.1
   */
  properties[PROP_WEIGHT_DECAY] = hyperparameter ("weight-decay");
  /**
   * DlSgd:nesterov:
   *
   * Whether to use Nesterov momentum (needs a momentum and zero
   * dampening).
   *
   * Since: 0.1
   */
  properties[PROP_NESTEROV] = g_param_spec_boolean (
      "nesterov", NULL, NULL, FALSE,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_sgd_init (DlSgd *self)
{
  self->buffers = g_hash_table_new_full (NULL, NULL, g_object_unref, g_object_unref);
}

/**
 * dl_sgd_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate
 * @momentum: the momentum factor (0 for plain SGD)
 * @dampening: dampening for momentum
 * @weight_decay: L2 penalty
 * @nesterov: whether to use Nesterov momentum
 * @error: return location for a #GError
 *
 * Creates an optimizer from its construct properties and checks them
 * (g_initable_new()).
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or invalid hyper-parameters
 *
 * Since: 0.1
 */
DlSgd *
dl_sgd_new (GPtrArray *params,
            gdouble lr,
            gdouble momentum,
            gdouble dampening,
            gdouble weight_decay,
            gboolean nesterov,
            GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  for (guint i = 0; i < params->len; i++)
    g_return_val_if_fail (DL_IS_TENSOR (g_ptr_array_index (params, i)), NULL);
  store = g_list_store_new (DL_TYPE_TENSOR);
  g_list_store_splice (store, 0, 0, params->pdata, params->len);
  return g_initable_new (DL_TYPE_SGD, NULL, error, "params", store, "lr", lr, "momentum", momentum,
                         "dampening", dampening, "weight-decay", weight_decay, "nesterov", nesterov,
                         NULL);
}
