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
#include "dl-module-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"
#include "ops/dl-ops-linalg.h"

/**
 * DlLinear:
 *
 * Applies y = x W^T + b to the last dim of its input, as torch.nn.Linear.
 * Its parameters are "weight" [out_features, in_features] and "bias"
 * [out_features], initialised as PyTorch does, in #DlModule:dtype (the
 * default dtype unless given).
 *
 * Build it from its construct properties, #DlLinear:in-features and
 * #DlLinear:out-features (both required) and #DlLinear:bias, in any
 * language (`new Dl.Linear({in_features: 4, out_features: 2})` in GJS), or
 * with dl_linear_new(). A missing or negative size is an error from
 * g_initable_init() and from forward; see #DlModule.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 in_features;
  gint64 out_features;
  gboolean bias;
} DlLinearPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlLinear, dl_linear, DL_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_IN_FEATURES,
  PROP_OUT_FEATURES,
  PROP_BIAS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The default of the size properties: not given (-1 given reads the same) */
#define SIZE_UNSET (-1)

static DlTensor *
dl_linear_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlLinear *self = DL_LINEAR (module);
  DlLinearPrivate *priv = dl_linear_get_instance_private (self);
  DlTensor *w = dl_module_get_parameter (module, "weight");
  DlTensor *b = dl_module_get_parameter (module, "bias");
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (input, &nd);

  if (nd == 0 || shape[nd - 1] != priv->in_features)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "linear: input's last dim is %" G_GINT64_FORMAT
                   ", expected in_features = %" G_GINT64_FORMAT,
                   nd ? shape[nd - 1] : 0, priv->in_features);
      return NULL;
    }
  if (w == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "linear: the layer has no weight");
      return NULL;
    }
  return dl_tensor_linear (input, w, b, error);
}

/* Checks the construct properties and creates the parameters; an invalid
 * value leaves the layer without them and its error in DlModule. */
static void
dl_linear_constructed (GObject *object)
{
  DlLinear *self = DL_LINEAR (object);
  DlLinearPrivate *priv = dl_linear_get_instance_private (self);
  GError *error = NULL;
  gdouble bound;

  G_OBJECT_CLASS (dl_linear_parent_class)->constructed (object);
  if (!dl_module_check_size ("Linear", "in_features", priv->in_features, &error)
      || !dl_module_check_size ("Linear", "out_features", priv->out_features, &error))
    {
      dl_module_take_construct_error (DL_MODULE (self), error);
      return;
    }
  bound = priv->in_features > 0 ? 1.0 / sqrt ((gdouble)priv->in_features) : 0;
  if (!dl_module_add_uniform_parameter (DL_MODULE (self), "weight",
                              (gint64[]){ priv->out_features, priv->in_features }, 2, bound, &error)
      || (priv->bias
          && !dl_module_add_uniform_parameter (DL_MODULE (self), "bias", &priv->out_features, 1, bound,
                                     &error)))
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_linear_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlLinear *self = DL_LINEAR (object);
  DlLinearPrivate *priv = dl_linear_get_instance_private (self);

  switch (prop_id)
    {
      case PROP_IN_FEATURES:
        g_value_set_int64 (value, priv->in_features);
        break;
      case PROP_OUT_FEATURES:
        g_value_set_int64 (value, priv->out_features);
        break;
      case PROP_BIAS:
        g_value_set_boolean (value, dl_module_get_parameter (DL_MODULE (self), "bias") != NULL);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_linear_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlLinear *self = DL_LINEAR (object);
  DlLinearPrivate *priv = dl_linear_get_instance_private (self);

  switch (prop_id)
    {
      case PROP_IN_FEATURES:
        if (priv->in_features != g_value_get_int64 (value))
          {
            priv->in_features = g_value_get_int64 (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      case PROP_OUT_FEATURES:
        priv->out_features = g_value_get_int64 (value);
        break;
      case PROP_BIAS:
        priv->bias = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_linear_extra_repr (DlModule *module)
{
  DlLinear *self = DL_LINEAR (module);

  return g_strdup_printf ("in_features=%" G_GINT64_FORMAT ", out_features=%" G_GINT64_FORMAT
                          ", bias=%s",
                          dl_linear_get_in_features (self), dl_linear_get_out_features (self),
                          dl_module_get_parameter (module, "bias") ? "True" : "False");
}

static void
dl_linear_class_init (DlLinearClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_linear_constructed;
  object_class->get_property = dl_linear_get_property;
  object_class->set_property = dl_linear_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_linear_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_linear_extra_repr;

  /* The sizes accept every gint64 so that a bad value reaches
   * dl_linear_constructed() and becomes a GError; a range in the
   * GParamSpec would only print a warning and keep the default. */

  /**
   * DlLinear:in-features:
   *
   * The size of each input sample (required, >= 0). Writable after
   * construction, as torch's attribute: forward expects it, the weight
   * keeps its size (a lazy layer sets it with the weight it makes).
   *
   * Since: 0.1
   */
  properties[PROP_IN_FEATURES] = g_param_spec_int64 (
      "in-features", NULL, NULL, G_MININT64, G_MAXINT64, SIZE_UNSET,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlLinear:out-features:
   *
   * The size of each output sample (required, >= 0).
   *
   * Since: 0.1
   */
  properties[PROP_OUT_FEATURES]
      = g_param_spec_int64 ("out-features", NULL, NULL, G_MININT64, G_MAXINT64, SIZE_UNSET,
                            G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlLinear:bias:
   *
   * Whether the layer learns an additive bias (PyTorch's `bias=True`).
   * Read back, whether it has a "bias" parameter.
   *
   * Since: 0.1
   */
  properties[PROP_BIAS]
      = g_param_spec_boolean ("bias", NULL, NULL, TRUE,
                              G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                  | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_linear_init (DlLinear *self)
{
  DlLinearPrivate *priv = dl_linear_get_instance_private (self);

  priv->in_features = SIZE_UNSET;
  priv->out_features = SIZE_UNSET;
  priv->bias = TRUE;
}

/**
 * dl_linear_new:
 * @in_features: the size of each input sample
 * @out_features: the size of each output sample
 * @bias: whether to learn an additive bias
 * @error: return location for a #GError
 *
 * Creates a layer from its construct properties and checks them
 * (g_initable_new()).
 *
 * The layer computes y = x W^T + b, as `torch.nn.Linear (in_features,
 * out_features, bias)`: its parameters "weight" [out_features, in_features]
 * and "bias" [out_features] are drawn uniformly from (-1/sqrt (in_features),
 * 1/sqrt (in_features)), in the default dtype. Any leading dims of the input
 * are batch dims.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (DlTensor) x = NULL;
 * g_autoptr (DlTensor) y = NULL;
 *
 * if (!(fc = dl_linear_new (784, 10, TRUE, &error))
 *     || !(x = dl_randn (DL_SHAPE (64, 784), DL_DTYPE_FLOAT32, NULL, &error))
 *     || !(y = dl_module_forward (DL_MODULE (fc), x, &error)))
 *   g_printerr ("%s\n", error->message);
 * ]|
 *
 * gives `y` of shape [64, 10]. Fails with %DL_ERROR_ARGUMENT for a negative
 * size.
 *
 * Returns: (transfer full): a new layer with PyTorch's default
 *   initialisation, or %NULL with @error set for negative sizes
 *
 * Since: 0.1
 */
DlLinear *
dl_linear_new (gint64 in_features, gint64 out_features, gboolean bias, GError **error)
{
  return g_initable_new (DL_TYPE_LINEAR, NULL, error, "in-features", in_features, "out-features",
                         out_features, "bias", bias, NULL);
}

/**
 * dl_linear_get_in_features:
 * @self: a #DlLinear
 *
 * Gives the size of the last dimension of the inputs the layer takes, the
 * #DlLinear:in-features property (`in_features` of `torch.nn.Linear`).
 *
 * Returns: the size of each input sample
 *
 * Since: 0.1
 */
gint64
dl_linear_get_in_features (DlLinear *self)
{
  g_return_val_if_fail (DL_IS_LINEAR (self), 0);
  return ((DlLinearPrivate *)dl_linear_get_instance_private (self))->in_features;
}

/**
 * dl_linear_get_out_features:
 * @self: a #DlLinear
 *
 * Gives the size of the last dimension of the outputs the layer gives, the
 * #DlLinear:out-features property (`out_features` of `torch.nn.Linear`).
 *
 * Returns: the size of each output sample
 *
 * Since: 0.1
 */
gint64
dl_linear_get_out_features (DlLinear *self)
{
  g_return_val_if_fail (DL_IS_LINEAR (self), 0);
  return ((DlLinearPrivate *)dl_linear_get_instance_private (self))->out_features;
}
