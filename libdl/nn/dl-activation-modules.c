/* dl-activation-modules.c: modules that apply one tensor op: the
 * activations, Identity, Flatten, and Softmax and LogSoftmax, each with its
 * hyperparameters as construct properties.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-activation-modules.h"
#include "dl-module-private.h"
#include "dl-layer-props-private.h"
#include "ops/dl-ops-index.h"
#include "dl-error.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"

#define PARAM_FLAGS                                                                                \
  (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

/* ---- ReLU ---------------------------------------------------------------- */

/**
 * DlRelu:
 *
 * Applies max (x, 0) element-wise, as torch.nn.ReLU; with
 * #DlRelu:inplace, it overwrites its input and returns it.
 *
 * Since: 0.1
 */
struct _DlRelu
{
  DlModule parent_instance;
  gboolean inplace;
};

/**
 * DlReluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlRelu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlRelu, dl_relu, DL_TYPE_MODULE)

enum
{
  RELU_PROP_0,
  RELU_PROP_INPLACE,
  RELU_N_PROPS
};

static GParamSpec *relu_properties[RELU_N_PROPS];

static DlTensor *
dl_relu_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_RELU (module)->inplace)
    {
      /* relu_ returns its tensor borrowed; forward returns a reference */
      DlTensor *out = dl_tensor_relu_ (input, error);
      return out ? g_object_ref (out) : NULL;
    }
  return dl_tensor_relu (input, error);
}

static void
dl_relu_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case RELU_PROP_INPLACE:
        g_value_set_boolean (value, DL_RELU (object)->inplace);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_relu_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case RELU_PROP_INPLACE:
        DL_RELU (object)->inplace = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_relu_extra_repr (DlModule *module)
{
  return g_strdup (dl_relu_get_inplace (DL_RELU (module)) ? "inplace=True" : "");
}

static void
dl_relu_class_init (DlReluClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = dl_relu_get_property;
  object_class->set_property = dl_relu_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_relu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_relu_extra_repr;

  /**
   * DlRelu:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  relu_properties[RELU_PROP_INPLACE]
      = g_param_spec_boolean ("inplace", NULL, NULL, FALSE, PARAM_FLAGS);
  g_object_class_install_properties (object_class, RELU_N_PROPS, relu_properties);
}

static void
dl_relu_init (DlRelu *self)
{
}

/**
 * dl_relu_new:
 * @inplace: whether forward overwrites its input
 *
 * Makes a ReLU module, as `torch.nn.ReLU (inplace)`: forward gives max (x,
 * 0) element-wise.
 *
 * Returns: (transfer full): a new #DlRelu
 *
 * Since: 0.1
 */
DlRelu *
dl_relu_new (gboolean inplace)
{
  return g_object_new (DL_TYPE_RELU, "inplace", inplace, NULL);
}

/**
 * dl_relu_get_inplace:
 * @self: a #DlRelu
 *
 * Says whether forward overwrites its input and returns it instead of making
 * a new tensor, the #DlRelu:inplace property (the `inplace` argument of
 * `torch.nn.ReLU`).
 *
 * Returns: whether forward overwrites its input
 *
 * Since: 0.1
 */
gboolean
dl_relu_get_inplace (DlRelu *self)
{
  g_return_val_if_fail (DL_IS_RELU (self), FALSE);
  return self->inplace;
}

/* ---- LeakyReLU ------------------------------------------------------------ */

/**
 * DlLeakyRelu:
 *
 * Applies x where x > 0 and #DlLeakyRelu:negative-slope times x elsewhere,
 * element-wise, as torch.nn.LeakyReLU; with #DlLeakyRelu:inplace, it
 * overwrites its input and returns it.
 *
 * Since: 0.1
 */
struct _DlLeakyRelu
{
  DlModule parent_instance;
  gdouble negative_slope;
  gboolean inplace;
};

/**
 * DlLeakyReluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlLeakyRelu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlLeakyRelu, dl_leaky_relu, DL_TYPE_MODULE)

enum
{
  LEAKY_RELU_PROP_0,
  LEAKY_RELU_PROP_NEGATIVE_SLOPE,
  LEAKY_RELU_PROP_INPLACE,
  LEAKY_RELU_N_PROPS
};

static GParamSpec *leaky_relu_properties[LEAKY_RELU_N_PROPS];

static DlTensor *
dl_leaky_relu_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlLeakyRelu *self = DL_LEAKY_RELU (module);

  if (self->inplace)
    {
      /* leaky_relu_ returns its tensor borrowed; forward returns a reference */
      DlTensor *out = dl_tensor_leaky_relu_ (input, self->negative_slope, error);
      return out ? g_object_ref (out) : NULL;
    }
  return dl_tensor_leaky_relu (input, self->negative_slope, error);
}

static void
dl_leaky_relu_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case LEAKY_RELU_PROP_NEGATIVE_SLOPE:
        g_value_set_double (value, DL_LEAKY_RELU (object)->negative_slope);
        break;
      case LEAKY_RELU_PROP_INPLACE:
        g_value_set_boolean (value, DL_LEAKY_RELU (object)->inplace);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_leaky_relu_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case LEAKY_RELU_PROP_NEGATIVE_SLOPE:
        DL_LEAKY_RELU (object)->negative_slope = g_value_get_double (value);
        break;
      case LEAKY_RELU_PROP_INPLACE:
        DL_LEAKY_RELU (object)->inplace = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_leaky_relu_extra_repr (DlModule *module)
{
  gdouble slope = dl_leaky_relu_get_negative_slope (DL_LEAKY_RELU (module));
  g_autofree gchar *text = dl_module_repr_double (slope);

  return g_strdup_printf ("negative_slope=%s%s", text,
                          dl_leaky_relu_get_inplace (DL_LEAKY_RELU (module)) ? ", inplace=True"
                                                                             : "");
}

static void
dl_leaky_relu_class_init (DlLeakyReluClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = dl_leaky_relu_get_property;
  object_class->set_property = dl_leaky_relu_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_leaky_relu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_leaky_relu_extra_repr;

  /**
   * DlLeakyRelu:negative-slope:
   *
   * The factor for negative elements (default 0.01).
   *
   * Since: 0.1
   */
  leaky_relu_properties[LEAKY_RELU_PROP_NEGATIVE_SLOPE] = g_param_spec_double (
      "negative-slope", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.01, PARAM_FLAGS);
  /**
   * DlLeakyRelu:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  leaky_relu_properties[LEAKY_RELU_PROP_INPLACE]
      = g_param_spec_boolean ("inplace", NULL, NULL, FALSE, PARAM_FLAGS);
  g_object_class_install_properties (object_class, LEAKY_RELU_N_PROPS, leaky_relu_properties);
}

static void
dl_leaky_relu_init (DlLeakyRelu *self)
{
  self->negative_slope = 0.01;
}

/**
 * dl_leaky_relu_new:
 * @negative_slope: the factor for negative elements
 * @inplace: whether forward overwrites its input
 *
 * Makes a leaky ReLU module, as `torch.nn.LeakyReLU (negative_slope,
 * inplace)`: forward gives x where x > 0 and @negative_slope * x elsewhere.
 * PyTorch's default slope is 0.01.
 *
 * Returns: (transfer full): a new #DlLeakyRelu
 *
 * Since: 0.1
 */
DlLeakyRelu *
dl_leaky_relu_new (gdouble negative_slope, gboolean inplace)
{
  return g_object_new (DL_TYPE_LEAKY_RELU, "negative-slope", negative_slope, "inplace", inplace,
                       NULL);
}

/**
 * dl_leaky_relu_get_negative_slope:
 * @self: a #DlLeakyRelu
 *
 * Gives the factor applied to negative elements, the
 * #DlLeakyRelu:negative-slope property.
 *
 * Returns: the factor for negative elements
 *
 * Since: 0.1
 */
gdouble
dl_leaky_relu_get_negative_slope (DlLeakyRelu *self)
{
  g_return_val_if_fail (DL_IS_LEAKY_RELU (self), 0);
  return self->negative_slope;
}

/**
 * dl_leaky_relu_get_inplace:
 * @self: a #DlLeakyRelu
 *
 * Says whether forward overwrites its input and returns it instead of making
 * a new tensor, the #DlLeakyRelu:inplace property (the `inplace` argument of
 * `torch.nn.LeakyReLU`).
 *
 * Returns: whether forward overwrites its input
 *
 * Since: 0.1
 */
gboolean
dl_leaky_relu_get_inplace (DlLeakyRelu *self)
{
  g_return_val_if_fail (DL_IS_LEAKY_RELU (self), FALSE);
  return self->inplace;
}

/* ---- GELU, SiLU ------------------------------------------------------------- */

/**
 * DlGelu:
 *
 * Applies the Gaussian error linear unit element-wise, as torch.nn.GELU:
 * exactly (#DlGelu:approximate "none") or with its tanh approximation
 * ("tanh"). Another value is an error from g_initable_init() and from
 * forward; see #DlModule.
 *
 * Since: 0.1
 */
struct _DlGelu
{
  DlModule parent_instance;
  gchar *approximate;
};

/**
 * DlGeluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlGelu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlGelu, dl_gelu, DL_TYPE_MODULE)

enum
{
  GELU_PROP_0,
  GELU_PROP_APPROXIMATE,
  GELU_N_PROPS
};

static GParamSpec *gelu_properties[GELU_N_PROPS];

static DlTensor *
dl_gelu_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (g_str_equal (DL_GELU (module)->approximate, "tanh"))
    return dl_tensor_gelu_tanh (input, error);
  return dl_tensor_gelu (input, error);
}

static void
dl_gelu_constructed (GObject *object)
{
  DlGelu *self = DL_GELU (object);

  G_OBJECT_CLASS (dl_gelu_parent_class)->constructed (object);
  if (!g_str_equal (self->approximate, "none") && !g_str_equal (self->approximate, "tanh"))
    dl_module_take_construct_error (
        DL_MODULE (self), g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                                       "GELU: approximate must be \"none\" or \"tanh\", not \"%s\"",
                                       self->approximate));
}

static void
dl_gelu_finalize (GObject *object)
{
  g_free (DL_GELU (object)->approximate);
  G_OBJECT_CLASS (dl_gelu_parent_class)->finalize (object);
}

static void
dl_gelu_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case GELU_PROP_APPROXIMATE:
        g_value_set_string (value, DL_GELU (object)->approximate);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_gelu_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlGelu *self = DL_GELU (object);

  switch (prop_id)
    {
      case GELU_PROP_APPROXIMATE:
        g_free (self->approximate);
        self->approximate
            = g_strdup (g_value_get_string (value) ? g_value_get_string (value) : "none");
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_gelu_extra_repr (DlModule *module)
{
  return g_strdup_printf ("approximate='%s'", dl_gelu_get_approximate (DL_GELU (module)));
}

static void
dl_gelu_class_init (DlGeluClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_gelu_constructed;
  object_class->finalize = dl_gelu_finalize;
  object_class->get_property = dl_gelu_get_property;
  object_class->set_property = dl_gelu_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_gelu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_gelu_extra_repr;

  /**
   * DlGelu:approximate:
   *
   * "none" for the exact GELU (the default), "tanh" for its tanh
   * approximation.
   *
   * Since: 0.1
   */
  gelu_properties[GELU_PROP_APPROXIMATE]
      = g_param_spec_string ("approximate", NULL, NULL, "none", PARAM_FLAGS);
  g_object_class_install_properties (object_class, GELU_N_PROPS, gelu_properties);
}

static void
dl_gelu_init (DlGelu *self)
{
  self->approximate = g_strdup ("none");
}

/**
 * dl_gelu_new:
 * @approximate: (nullable): "none" (or %NULL) for the exact GELU, "tanh"
 *   for its tanh approximation
 * @error: return location for a #GError
 *
 * Makes a GELU module, as `torch.nn.GELU (approximate)`: forward gives x *
 * Phi (x), Phi the standard normal distribution function, or its tanh
 * approximation.
 *
 * Fails with %DL_ERROR_ARGUMENT when @approximate is neither "none" nor
 * "tanh".
 *
 * Returns: (transfer full): a new #DlGelu, or %NULL with @error set for
 *   another @approximate
 *
 * Since: 0.1
 */
DlGelu *
dl_gelu_new (const gchar *approximate, GError **error)
{
  return g_initable_new (DL_TYPE_GELU, NULL, error, "approximate",
                         approximate ? approximate : "none", NULL);
}

/**
 * dl_gelu_get_approximate:
 * @self: a #DlGelu
 *
 * Gives which form of GELU the module computes, the #DlGelu:approximate
 * property: "none" for the exact one, "tanh" for the approximation.
 *
 * Returns: (transfer none): "none" or "tanh" (or the invalid value the
 *   module was given)
 *
 * Since: 0.1
 */
const gchar *
dl_gelu_get_approximate (DlGelu *self)
{
  g_return_val_if_fail (DL_IS_GELU (self), NULL);
  return self->approximate;
}

/**
 * DlSilu:
 *
 * Applies x sigmoid (x) element-wise, as torch.nn.SiLU; with
 * #DlSilu:inplace, it overwrites its input and returns it.
 *
 * Since: 0.1
 */
struct _DlSilu
{
  DlModule parent_instance;
  gboolean inplace;
};

/**
 * DlSiluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSilu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSilu, dl_silu, DL_TYPE_MODULE)

enum
{
  SILU_PROP_0,
  SILU_PROP_INPLACE,
  SILU_N_PROPS
};

static GParamSpec *silu_properties[SILU_N_PROPS];

static DlTensor *
dl_silu_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_SILU (module)->inplace)
    {
      /* silu_ returns its tensor borrowed; forward returns a reference */
      DlTensor *out = dl_tensor_silu_ (input, error);
      return out ? g_object_ref (out) : NULL;
    }
  return dl_tensor_silu (input, error);
}

static void
dl_silu_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case SILU_PROP_INPLACE:
        g_value_set_boolean (value, DL_SILU (object)->inplace);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_silu_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case SILU_PROP_INPLACE:
        DL_SILU (object)->inplace = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_silu_extra_repr (DlModule *module)
{
  return g_strdup (dl_silu_get_inplace (DL_SILU (module)) ? "inplace=True" : "");
}

static void
dl_silu_class_init (DlSiluClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = dl_silu_get_property;
  object_class->set_property = dl_silu_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_silu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_silu_extra_repr;

  /**
   * DlSilu:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  silu_properties[SILU_PROP_INPLACE]
      = g_param_spec_boolean ("inplace", NULL, NULL, FALSE, PARAM_FLAGS);
  g_object_class_install_properties (object_class, SILU_N_PROPS, silu_properties);
}

static void
dl_silu_init (DlSilu *self)
{
}

/**
 * dl_silu_new:
 * @inplace: whether forward overwrites its input
 *
 * Makes a SiLU (swish) module, as `torch.nn.SiLU (inplace)`: forward gives x
 * * sigmoid (x) element-wise.
 *
 * Returns: (transfer full): a new #DlSilu
 *
 * Since: 0.1
 */
DlSilu *
dl_silu_new (gboolean inplace)
{
  return g_object_new (DL_TYPE_SILU, "inplace", inplace, NULL);
}

/**
 * dl_silu_get_inplace:
 * @self: a #DlSilu
 *
 * Says whether forward overwrites its input and returns it instead of making
 * a new tensor, the #DlSilu:inplace property (the `inplace` argument of
 * `torch.nn.SiLU`).
 *
 * Returns: whether forward overwrites its input
 *
 * Since: 0.1
 */
gboolean
dl_silu_get_inplace (DlSilu *self)
{
  g_return_val_if_fail (DL_IS_SILU (self), FALSE);
  return self->inplace;
}

/* ---- Sigmoid, Tanh, Identity ---------------------------------------------- */

/**
 * DlSigmoid:
 *
 * Applies 1 / (1 + exp (-x)) element-wise, as torch.nn.Sigmoid.
 *
 * Since: 0.1
 */
struct _DlSigmoid
{
  DlModule parent_instance;
};

/**
 * DlSigmoidClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSigmoid. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSigmoid, dl_sigmoid, DL_TYPE_MODULE)

static DlTensor *
dl_sigmoid_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_sigmoid (input, error);
}

static void
dl_sigmoid_class_init (DlSigmoidClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_sigmoid_forward;
}

static void
dl_sigmoid_init (DlSigmoid *self)
{
}

/**
 * dl_sigmoid_new:
 *
 * Makes a sigmoid module, as `torch.nn.Sigmoid ()`: forward gives 1 / (1 +
 * exp (-x)) element-wise.
 *
 * Returns: (transfer full): a new #DlSigmoid
 *
 * Since: 0.1
 */
DlSigmoid *
dl_sigmoid_new (void)
{
  return g_object_new (DL_TYPE_SIGMOID, NULL);
}

/**
 * DlTanh:
 *
 * Applies tanh element-wise, as torch.nn.Tanh.
 *
 * Since: 0.1
 */
struct _DlTanh
{
  DlModule parent_instance;
};

/**
 * DlTanhClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlTanh. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlTanh, dl_tanh, DL_TYPE_MODULE)

static DlTensor *
dl_tanh_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_tanh (input, error);
}

static void
dl_tanh_class_init (DlTanhClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_tanh_forward;
}

static void
dl_tanh_init (DlTanh *self)
{
}

/**
 * dl_tanh_new:
 *
 * Makes a tanh module, as `torch.nn.Tanh ()`: forward gives the hyperbolic
 * tangent element-wise.
 *
 * Returns: (transfer full): a new #DlTanh
 *
 * Since: 0.1
 */
DlTanh *
dl_tanh_new (void)
{
  return g_object_new (DL_TYPE_TANH, NULL);
}

/**
 * DlIdentity:
 *
 * Returns its input, the same tensor, as torch.nn.Identity: a placeholder
 * where a model has an optional layer.
 *
 * Since: 0.1
 */
struct _DlIdentity
{
  DlModule parent_instance;
};

/**
 * DlIdentityClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlIdentity. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlIdentity, dl_identity, DL_TYPE_MODULE)

static DlTensor *
dl_identity_forward (DlModule *module, DlTensor *input, GError **error)
{
  return g_object_ref (input);
}

static void
dl_identity_class_init (DlIdentityClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_identity_forward;
}

static void
dl_identity_init (DlIdentity *self)
{
}

/**
 * dl_identity_new:
 *
 * Makes a module whose forward gives its input back, as `torch.nn.Identity
 * ()`: a placeholder where a layer is optional.
 *
 * Returns: (transfer full): a new #DlIdentity
 *
 * Since: 0.1
 */
DlIdentity *
dl_identity_new (void)
{
  return g_object_new (DL_TYPE_IDENTITY, NULL);
}

/* ---- Flatten -------------------------------------------------------------- */

/**
 * DlFlatten:
 *
 * Merges the dims #DlFlatten:start-dim to #DlFlatten:end-dim of its input
 * into one, as torch.nn.Flatten (by default all but the batch dim).
 *
 * Since: 0.1
 */
struct _DlFlatten
{
  DlModule parent_instance;
  gint64 start_dim;
  gint64 end_dim;
};

/**
 * DlFlattenClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlFlatten. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlFlatten, dl_flatten, DL_TYPE_MODULE)

enum
{
  FLATTEN_PROP_0,
  FLATTEN_PROP_START_DIM,
  FLATTEN_PROP_END_DIM,
  FLATTEN_N_PROPS
};

static GParamSpec *flatten_properties[FLATTEN_N_PROPS];

static DlTensor *
dl_flatten_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlFlatten *self = DL_FLATTEN (module);

  return dl_tensor_flatten (input, self->start_dim, self->end_dim, error);
}

static void
dl_flatten_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlFlatten *self = DL_FLATTEN (object);

  switch (prop_id)
    {
      case FLATTEN_PROP_START_DIM:
        g_value_set_int64 (value, self->start_dim);
        break;
      case FLATTEN_PROP_END_DIM:
        g_value_set_int64 (value, self->end_dim);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_flatten_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlFlatten *self = DL_FLATTEN (object);

  switch (prop_id)
    {
      case FLATTEN_PROP_START_DIM:
        self->start_dim = g_value_get_int64 (value);
        break;
      case FLATTEN_PROP_END_DIM:
        self->end_dim = g_value_get_int64 (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_flatten_extra_repr (DlModule *module)
{
  return g_strdup_printf ("start_dim=%" G_GINT64_FORMAT ", end_dim=%" G_GINT64_FORMAT,
                          dl_flatten_get_start_dim (DL_FLATTEN (module)),
                          dl_flatten_get_end_dim (DL_FLATTEN (module)));
}

static void
dl_flatten_class_init (DlFlattenClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = dl_flatten_get_property;
  object_class->set_property = dl_flatten_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_flatten_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_flatten_extra_repr;

  /**
   * DlFlatten:start-dim:
   *
   * The first dim to flatten (default 1; negative counts from the end).
   *
   * Since: 0.1
   */
  flatten_properties[FLATTEN_PROP_START_DIM]
      = g_param_spec_int64 ("start-dim", NULL, NULL, G_MININT64, G_MAXINT64, 1, PARAM_FLAGS);
  /**
   * DlFlatten:end-dim:
   *
   * The last dim to flatten (default -1, the last).
   *
   * Since: 0.1
   */
  flatten_properties[FLATTEN_PROP_END_DIM]
      = g_param_spec_int64 ("end-dim", NULL, NULL, G_MININT64, G_MAXINT64, -1, PARAM_FLAGS);
  g_object_class_install_properties (object_class, FLATTEN_N_PROPS, flatten_properties);
}

static void
dl_flatten_init (DlFlatten *self)
{
  self->start_dim = 1;
  self->end_dim = -1;
}

/**
 * dl_flatten_new:
 * @start_dim: the first dim to flatten (PyTorch's default is 1)
 * @end_dim: the last dim to flatten (PyTorch's default is -1)
 *
 * The dims are checked against each input's in forward.
 *
 * Returns: (transfer full): a new #DlFlatten
 *
 * Since: 0.1
 */
DlFlatten *
dl_flatten_new (gint64 start_dim, gint64 end_dim)
{
  return g_object_new (DL_TYPE_FLATTEN, "start-dim", start_dim, "end-dim", end_dim, NULL);
}

/**
 * dl_flatten_get_start_dim:
 * @self: a #DlFlatten
 *
 * Gives the first dimension the module flattens, the #DlFlatten:start-dim
 * property (1 by default, as in `torch.nn.Flatten`, so the batch dimension
 * stays).
 *
 * Returns: the first dim to flatten
 *
 * Since: 0.1
 */
gint64
dl_flatten_get_start_dim (DlFlatten *self)
{
  g_return_val_if_fail (DL_IS_FLATTEN (self), 0);
  return self->start_dim;
}

/**
 * dl_flatten_get_end_dim:
 * @self: a #DlFlatten
 *
 * Gives the last dimension the module flattens, the #DlFlatten:end-dim
 * property (-1 by default: the last one).
 *
 * Returns: the last dim to flatten
 *
 * Since: 0.1
 */
gint64
dl_flatten_get_end_dim (DlFlatten *self)
{
  g_return_val_if_fail (DL_IS_FLATTEN (self), 0);
  return self->end_dim;
}

/* ---- Softmax, LogSoftmax -------------------------------------------------- */

/* The default of their dim property: not given. PyTorch's dim=None picks a
 * dim from the input's rank, which it deprecates; here dim is required. */
#define DIM_UNSET G_MININT64

static void
check_dim_given (DlModule *self, const gchar *module, gint64 dim)
{
  if (dim == DIM_UNSET)
    dl_module_take_construct_error (
        self, g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                           "%s: dim is missing: give the dim to normalise over", module));
}

static GParamSpec *
dim_property (void)
{
  return g_param_spec_int64 ("dim", NULL, NULL, G_MININT64, G_MAXINT64, DIM_UNSET, PARAM_FLAGS);
}

/**
 * DlSoftmax:
 *
 * Applies softmax along #DlSoftmax:dim, as torch.nn.Softmax.
 *
 * Since: 0.1
 */
struct _DlSoftmax
{
  DlModule parent_instance;
  gint64 dim;
};

/**
 * DlSoftmaxClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSoftmax. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSoftmax, dl_softmax, DL_TYPE_MODULE)

enum
{
  SOFTMAX_PROP_0,
  SOFTMAX_PROP_DIM,
  SOFTMAX_N_PROPS
};

static GParamSpec *softmax_properties[SOFTMAX_N_PROPS];

static DlTensor *
dl_softmax_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_softmax (input, DL_SOFTMAX (module)->dim, error);
}

static void
dl_softmax_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_softmax_parent_class)->constructed (object);
  check_dim_given (DL_MODULE (object), "Softmax", DL_SOFTMAX (object)->dim);
}

static void
dl_softmax_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case SOFTMAX_PROP_DIM:
        g_value_set_int64 (value, DL_SOFTMAX (object)->dim);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_softmax_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case SOFTMAX_PROP_DIM:
        DL_SOFTMAX (object)->dim = g_value_get_int64 (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_softmax_extra_repr (DlModule *module)
{
  return g_strdup_printf ("dim=%" G_GINT64_FORMAT, dl_softmax_get_dim (DL_SOFTMAX (module)));
}

static void
dl_softmax_class_init (DlSoftmaxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_softmax_constructed;
  object_class->get_property = dl_softmax_get_property;
  object_class->set_property = dl_softmax_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_softmax_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_softmax_extra_repr;

  /**
   * DlSoftmax:dim:
   *
   * The dim to normalise over (required; negative counts from the end).
   *
   * Since: 0.1
   */
  softmax_properties[SOFTMAX_PROP_DIM] = dim_property ();
  g_object_class_install_properties (object_class, SOFTMAX_N_PROPS, softmax_properties);
}

static void
dl_softmax_init (DlSoftmax *self)
{
  self->dim = DIM_UNSET;
}

/**
 * dl_softmax_new:
 * @dim: the dim to normalise over
 *
 * Makes a softmax module, as `torch.nn.Softmax (dim)`: forward gives
 * dl_tensor_softmax() of its input along @dim, which may count from the end.
 * A @dim out of range fails in forward.
 *
 * Returns: (transfer full): a new #DlSoftmax
 *
 * Since: 0.1
 */
DlSoftmax *
dl_softmax_new (gint64 dim)
{
  return g_object_new (DL_TYPE_SOFTMAX, "dim", dim, NULL);
}

/**
 * dl_softmax_get_dim:
 * @self: a #DlSoftmax
 *
 * Gives the dimension the module normalises over, the #DlSoftmax:dim
 * property.
 *
 * Returns: the dim it normalises over
 *
 * Since: 0.1
 */
gint64
dl_softmax_get_dim (DlSoftmax *self)
{
  g_return_val_if_fail (DL_IS_SOFTMAX (self), 0);
  return self->dim;
}

/**
 * DlLogSoftmax:
 *
 * Applies log (softmax) along #DlLogSoftmax:dim, computed stably, as
 * torch.nn.LogSoftmax.
 *
 * Since: 0.1
 */
struct _DlLogSoftmax
{
  DlModule parent_instance;
  gint64 dim;
};

/**
 * DlLogSoftmaxClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlLogSoftmax. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlLogSoftmax, dl_log_softmax, DL_TYPE_MODULE)

enum
{
  LOG_SOFTMAX_PROP_0,
  LOG_SOFTMAX_PROP_DIM,
  LOG_SOFTMAX_N_PROPS
};

static GParamSpec *log_softmax_properties[LOG_SOFTMAX_N_PROPS];

static DlTensor *
dl_log_softmax_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_log_softmax (input, DL_LOG_SOFTMAX (module)->dim, error);
}

static void
dl_log_softmax_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_log_softmax_parent_class)->constructed (object);
  check_dim_given (DL_MODULE (object), "LogSoftmax", DL_LOG_SOFTMAX (object)->dim);
}

static void
dl_log_softmax_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case LOG_SOFTMAX_PROP_DIM:
        g_value_set_int64 (value, DL_LOG_SOFTMAX (object)->dim);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_log_softmax_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case LOG_SOFTMAX_PROP_DIM:
        DL_LOG_SOFTMAX (object)->dim = g_value_get_int64 (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_log_softmax_extra_repr (DlModule *module)
{
  return g_strdup_printf ("dim=%" G_GINT64_FORMAT,
                          dl_log_softmax_get_dim (DL_LOG_SOFTMAX (module)));
}

static void
dl_log_softmax_class_init (DlLogSoftmaxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_log_softmax_constructed;
  object_class->get_property = dl_log_softmax_get_property;
  object_class->set_property = dl_log_softmax_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_log_softmax_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_log_softmax_extra_repr;

  /**
   * DlLogSoftmax:dim:
   *
   * The dim to normalise over (required; negative counts from the end).
   *
   * Since: 0.1
   */
  log_softmax_properties[LOG_SOFTMAX_PROP_DIM] = dim_property ();
  g_object_class_install_properties (object_class, LOG_SOFTMAX_N_PROPS, log_softmax_properties);
}

static void
dl_log_softmax_init (DlLogSoftmax *self)
{
  self->dim = DIM_UNSET;
}

/**
 * dl_log_softmax_new:
 * @dim: the dim to normalise over
 *
 * Makes a log-softmax module, as `torch.nn.LogSoftmax (dim)`: forward gives
 * dl_tensor_log_softmax() of its input along @dim. A @dim out of range fails
 * in forward.
 *
 * Returns: (transfer full): a new #DlLogSoftmax
 *
 * Since: 0.1
 */
DlLogSoftmax *
dl_log_softmax_new (gint64 dim)
{
  return g_object_new (DL_TYPE_LOG_SOFTMAX, "dim", dim, NULL);
}

/**
 * dl_log_softmax_get_dim:
 * @self: a #DlLogSoftmax
 *
 * Gives the dimension the module normalises over, the #DlLogSoftmax:dim
 * property.
 *
 * Returns: the dim it normalises over
 *
 * Since: 0.1
 */
gint64
dl_log_softmax_get_dim (DlLogSoftmax *self)
{
  g_return_val_if_fail (DL_IS_LOG_SOFTMAX (self), 0);
  return self->dim;
}

/* ---- ELU, Hardtanh, Softplus ------------------------------------------------ */

/**
 * DlElu:
 *
 * The exponential linear unit element-wise, as torch.nn.ELU: x where
 * x > 0, #DlElu:alpha * (exp(x) - 1) elsewhere.
 *
 * Since: 0.1
 */
struct _DlElu
{
  DlModule parent_instance;
  gdouble alpha;
  gboolean inplace;
};

/**
 * DlEluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlElu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlElu, dl_elu, DL_TYPE_MODULE)

static const DlLayerProp elu_props[] = {
  /**
   * DlElu:alpha:
   *
   * The scale of the negative part (default 1).
   *
   * Since: 0.1
   */
  { "alpha", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlElu, alpha), 1.0 },
  /**
   * DlElu:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlElu, inplace), FALSE },
};

static DlTensor *
dl_elu_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlElu *self = DL_ELU (module);

  if (self->inplace)
    {
      DlTensor *out = dl_tensor_elu_ (input, self->alpha, error);
      return out ? g_object_ref (out) : NULL;
    }
  return dl_tensor_elu (input, self->alpha, error);
}

static void
dl_elu_class_init (DlEluClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_elu_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), elu_props, G_N_ELEMENTS (elu_props));
}

static void
dl_elu_init (DlElu *self)
{
  dl_layer_props_init (self, elu_props, G_N_ELEMENTS (elu_props));
}

/**
 * dl_elu_new:
 * @alpha: the scale of the negative part
 * @inplace: whether forward overwrites its input
 *
 * Makes an ELU module, as `torch.nn.ELU (alpha, inplace)`: forward gives x
 * where x > 0 and @alpha * (exp (x) - 1) elsewhere. PyTorch's default @alpha
 * is 1.
 *
 * Returns: (transfer full): a new #DlElu
 *
 * Since: 0.1
 */
DlElu *
dl_elu_new (gdouble alpha, gboolean inplace)
{
  return g_object_new (DL_TYPE_ELU, "alpha", alpha, "inplace", inplace, NULL);
}

/**
 * DlHardtanh:
 *
 * x clamped to [#DlHardtanh:min-val, #DlHardtanh:max-val] element-wise, as
 * torch.nn.Hardtanh.
 *
 * Since: 0.1
 */
struct _DlHardtanh
{
  DlModule parent_instance;
  gdouble min_val, max_val;
  gboolean inplace;
};

/**
 * DlHardtanhClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlHardtanh. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlHardtanh, dl_hardtanh, DL_TYPE_MODULE)

static const DlLayerProp hardtanh_props[] = {
  /**
   * DlHardtanh:min-val:
   *
   * The lower bound (default -1).
   *
   * Since: 0.1
   */
  { "min-val", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlHardtanh, min_val), -1.0 },
  /**
   * DlHardtanh:max-val:
   *
   * The upper bound (default 1), not below #DlHardtanh:min-val.
   *
   * Since: 0.1
   */
  { "max-val", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlHardtanh, max_val), 1.0 },
  /**
   * DlHardtanh:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlHardtanh, inplace), FALSE },
};

static DlTensor *
dl_hardtanh_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlHardtanh *self = DL_HARDTANH (module);

  if (self->inplace)
    {
      DlTensor *out = dl_tensor_hardtanh_ (input, self->min_val, self->max_val, error);
      return out ? g_object_ref (out) : NULL;
    }
  return dl_tensor_hardtanh (input, self->min_val, self->max_val, error);
}

static void
dl_hardtanh_constructed (GObject *object)
{
  DlHardtanh *self = DL_HARDTANH (object);

  G_OBJECT_CLASS (dl_hardtanh_parent_class)->constructed (object);
  if (self->min_val > self->max_val)
    dl_module_take_construct_error (
        DL_MODULE (self), g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                                       "Hardtanh: min_val cannot be greater than max_val, got "
                                       "min_val=%g and max_val=%g",
                                       self->min_val, self->max_val));
}

static void
dl_hardtanh_class_init (DlHardtanhClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_hardtanh_constructed;
  DL_MODULE_CLASS (klass)->forward = dl_hardtanh_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), hardtanh_props, G_N_ELEMENTS (hardtanh_props));
}

static void
dl_hardtanh_init (DlHardtanh *self)
{
  dl_layer_props_init (self, hardtanh_props, G_N_ELEMENTS (hardtanh_props));
}

/**
 * dl_hardtanh_new:
 * @min_val: the lower bound
 * @max_val: the upper bound, not below @min_val
 * @inplace: whether forward overwrites its input
 * @error: return location for a #GError
 *
 * A #DlHardtanh (g_initable_new() with the properties).
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlHardtanh *
dl_hardtanh_new (gdouble min_val, gdouble max_val, gboolean inplace, GError **error)
{
  return g_initable_new (DL_TYPE_HARDTANH, NULL, error, "min-val", min_val, "max-val", max_val,
                         "inplace", inplace, NULL);
}

/**
 * DlSoftplus:
 *
 * log(1 + exp(#DlSoftplus:beta * x)) / beta element-wise, as
 * torch.nn.Softplus, and x itself where beta * x exceeds
 * #DlSoftplus:threshold.
 *
 * Since: 0.1
 */
struct _DlSoftplus
{
  DlModule parent_instance;
  gdouble beta, threshold;
};

/**
 * DlSoftplusClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSoftplus. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSoftplus, dl_softplus, DL_TYPE_MODULE)

static const DlLayerProp softplus_props[] = {
  /**
   * DlSoftplus:beta:
   *
   * The sharpness (default 1).
   *
   * Since: 0.1
   */
  { "beta", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlSoftplus, beta), 1.0 },
  /**
   * DlSoftplus:threshold:
   *
   * Above it (beta * x), the identity (default 20).
   *
   * Since: 0.1
   */
  { "threshold", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlSoftplus, threshold), 20.0 },
};

static DlTensor *
dl_softplus_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlSoftplus *self = DL_SOFTPLUS (module);
  g_autoptr (DlTensor) scaled = NULL;
  g_autoptr (DlTensor) linear = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) l = NULL;
  g_autoptr (DlTensor) soft = NULL;

  if (!(scaled = dl_tensor_mul_scalar (input, self->beta, error))
      || !(linear = dl_tensor_gt_scalar (scaled, self->threshold, error))
      || !(e = dl_tensor_exp (scaled, error)) || !(l = dl_tensor_log1p (e, error))
      || !(soft = dl_tensor_div_scalar (l, self->beta, error)))
    return NULL;
  return dl_where (linear, input, soft, error);
}

static void
dl_softplus_class_init (DlSoftplusClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_softplus_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), softplus_props, G_N_ELEMENTS (softplus_props));
}

static void
dl_softplus_init (DlSoftplus *self)
{
  dl_layer_props_init (self, softplus_props, G_N_ELEMENTS (softplus_props));
}

/**
 * dl_softplus_new:
 * @beta: the sharpness
 * @threshold: above it (beta * x), the identity
 *
 * Makes a softplus module, as `torch.nn.Softplus (beta, threshold)`: forward
 * gives log (1 + exp (@beta * x)) / @beta, and x itself where @beta * x is
 * above @threshold, for stability. PyTorch's defaults are 1 and 20.
 *
 * Returns: (transfer full): a new #DlSoftplus
 *
 * Since: 0.1
 */
DlSoftplus *
dl_softplus_new (gdouble beta, gdouble threshold)
{
  return g_object_new (DL_TYPE_SOFTPLUS, "beta", beta, "threshold", threshold, NULL);
}
