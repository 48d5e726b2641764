/* dl-optimizer.c: DlOptimizer: the parameters, the learning rate, step as
 * a virtual method, and construction checked through GInitable.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-optimizer.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-pointwise.h"
#include "dl-node.h"

/**
 * DlOptimizer:
 *
 * The base class of optimizers, as torch.optim.Optimizer: it holds the
 * parameters to update and a learning rate; dl_optimizer_step() applies
 * the subclass's update rule.
 *
 * Optimizers are built from construct properties: #DlOptimizer:params, a
 * #GListModel of the tensors to optimize, #DlOptimizer:lr and the
 * subclass's hyperparameters. In GJS:
 *
 * ```js
 * const params = new Gio.ListStore({item_type: Dl.Tensor});
 * params.splice(0, 0, net.parameters());
 * const sgd = new Dl.Sgd({params, lr: 0.1, momentum: 0.9});
 * ```
 *
 * As with #DlModule, the values are checked at construction; an empty
 * parameter list or an invalid value is kept as an error that
 * g_initable_init() and dl_optimizer_step() report (the bindings'
 * constructors do not call g_initable_init(); call `init (null)` to get
 * the error at once). The `_new` functions, such as dl_sgd_new(), take a
 * #GPtrArray and call g_initable_new().
 *
 * Since: 0.1
 */

typedef struct
{
  GPtrArray *params; /* DlTensor */
  gdouble lr;
  GError *construct_error;
} DlOptimizerPrivate;

static void dl_optimizer_initable_iface_init (GInitableIface *iface);

G_DEFINE_TYPE_WITH_CODE (DlOptimizer,
                         dl_optimizer,
                         G_TYPE_OBJECT,
                         G_ADD_PRIVATE (DlOptimizer)
                             G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                    dl_optimizer_initable_iface_init))

enum
{
  PROP_0,
  PROP_PARAMS,
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
dl_optimizer_finalize (GObject *object)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (DL_OPTIMIZER (object));

  g_clear_error (&priv->construct_error);
  G_OBJECT_CLASS (dl_optimizer_parent_class)->finalize (object);
}

void
dl_optimizer_class_set_display_name (DlOptimizerClass *klass, const gchar *name)
{
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), g_quark_from_static_string ("dl-optimizer-name"),
                    (gpointer)name);
}

const gchar *
dl_optimizer_get_display_name (DlOptimizer *self)
{
  GQuark quark = g_quark_from_static_string ("dl-optimizer-name");

  for (GType t = G_OBJECT_TYPE (self); t != G_TYPE_OBJECT; t = g_type_parent (t))
    {
      const gchar *name = g_type_get_qdata (t, quark);

      if (name)
        return name;
    }
  return G_OBJECT_TYPE_NAME (self);
}

void
dl_optimizer_take_construct_error (DlOptimizer *self, GError *error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  if (priv->construct_error == NULL)
    priv->construct_error = error;
  else
    g_error_free (error);
}

static gboolean
check_constructed (DlOptimizer *self, GError **error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  if (priv->construct_error)
    {
      g_propagate_error (error, g_error_copy (priv->construct_error));
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_lr (DlOptimizer *self, GError **error)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);

  if (!(priv->lr >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: invalid learning rate: %g",
                   dl_optimizer_get_display_name (self), priv->lr);
      return FALSE;
    }
  return TRUE;
}

static gboolean
dl_optimizer_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  return check_constructed (DL_OPTIMIZER (initable), error);
}

static void
dl_optimizer_initable_iface_init (GInitableIface *iface)
{
  iface->init = dl_optimizer_initable_init;
}

/* The params property: every item must be a tensor. A first invalid item
 * becomes the construct error. */
static void
set_params (DlOptimizer *self, GListModel *model)
{
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);
  guint n = model ? g_list_model_get_n_items (model) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (model, i);

      if (!DL_IS_TENSOR (item))
        {
          dl_optimizer_take_construct_error (
              self,
              g_error_new (DL_ERROR, DL_ERROR_ARGUMENT, "%s: params: item %u is a %s, not a tensor",
                           dl_optimizer_get_display_name (self), i,
                           item ? G_OBJECT_TYPE_NAME (item) : "NULL"));
          return;
        }
      g_ptr_array_add (priv->params, g_steal_pointer (&item));
    }
}

static void
dl_optimizer_constructed (GObject *object)
{
  DlOptimizer *self = DL_OPTIMIZER (object);
  DlOptimizerPrivate *priv = dl_optimizer_get_instance_private (self);
  GError *error = NULL;

  G_OBJECT_CLASS (dl_optimizer_parent_class)->constructed (object);
  if (!check_lr (self, &error))
    dl_optimizer_take_construct_error (self, error);
  else if (priv->params->len == 0 && priv->construct_error == NULL)
    dl_optimizer_take_construct_error (
        self, g_error_new (DL_ERROR, DL_ERROR_ARGUMENT, "%s: optimizer got an empty parameter list",
                           dl_optimizer_get_display_name (self)));
}

static void
dl_optimizer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_PARAMS:
        {
          GPtrArray *params = dl_optimizer_get_params (DL_OPTIMIZER (object));
          GListStore *store = g_list_store_new (DL_TYPE_TENSOR);

          g_list_store_splice (store, 0, 0, params->pdata, params->len);
          g_value_take_object (value, store);
        }
        break;
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
      case PROP_PARAMS:
        set_params (DL_OPTIMIZER (object), g_value_get_object (value));
        break;
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
  object_class->finalize = dl_optimizer_finalize;
  object_class->constructed = dl_optimizer_constructed;
  object_class->get_property = dl_optimizer_get_property;
  object_class->set_property = dl_optimizer_set_property;
  klass->step = dl_optimizer_real_step;
  dl_optimizer_class_set_display_name (klass, "Optimizer");

  /**
   * DlOptimizer:params:
   *
   * The tensors to optimize, a #GListModel of #DlTensor, given at
   * construction (at least one); read back, a new list of the
   * optimizer's parameters, those added with dl_optimizer_add_params()
   * included.
   *
   * Since: 0.1
   */
  /* Why a GListModel: measured on this stack (gjs 1.74, PyGObject 3.42,
   * valac 0.56), it is the one list type that all of C, Python, GJS and
   * Vala can pass through a property (a Gio.ListStore in each). A boxed
   * GPtrArray property works from C and Vala (GenericArray) only: GJS
   * refuses a JS array ('not a subclass of GObject_Boxed') and PyGObject a
   * list ('could not convert ... from list to GPtrArray'). A GValueArray
   * (deprecated) takes a Python list but nothing from GJS. No list type
   * takes a plain JS array or Python list everywhere, hence the
   * GPtrArray-taking _new functions beside the property. */
  properties[PROP_PARAMS]
      = g_param_spec_object ("params", NULL, NULL, G_TYPE_LIST_MODEL,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                 | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlOptimizer:lr:
   *
   * The learning rate, >= 0 (default 0.001). It may change between steps
   * (learning rate schedules); a negative or NaN value makes
   * dl_optimizer_step() fail.
   *
   * Since: 0.1
   */
  properties[PROP_LR] = g_param_spec_double (
      "lr", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1e-3,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
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
 * autograd. Fails without updating anything when the optimizer was
 * constructed with an invalid value or the learning rate is invalid.
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
  if (!check_constructed (self, error) || !check_lr (self, error))
    return FALSE;
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
 * @lr: the new learning rate, >= 0
 *
 * Sets the learning rate; dl_optimizer_step() reports a negative one.
 *
 * Since: 0.1
 */
void
dl_optimizer_set_lr (DlOptimizer *self, gdouble lr)
{
  DlOptimizerPrivate *priv;

  g_return_if_fail (DL_IS_OPTIMIZER (self));
  priv = dl_optimizer_get_instance_private (self);
  if (priv->lr != lr)
    {
      priv->lr = lr;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LR]);
    }
}
