/* dl-pointwise-activation-modules.c: the element-wise activation modules
 * beyond those of dl-activation-modules.c: ReLU6, Hardswish, Hardsigmoid,
 * Mish, SELU, CELU, Hardshrink, Softshrink, Tanhshrink, Softsign,
 * LogSigmoid, Threshold and RReLU, each one op of dl-ops-activation.c or
 * of the pointwise table with its hyperparameters as construct properties.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-pointwise-activation-modules.h"
#include "dl-module-private.h"
#include "dl-layer-props-private.h"
#include "dl-error.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-pointwise.h"

/* an in-place op's result (borrowed) as forward's (a new reference) */
static DlTensor *
ref_result (DlTensor *out)
{
  return out ? g_object_ref (out) : NULL;
}

/* ---- ReLU6 ------------------------------------------------------------------- */

/**
 * DlRelu6:
 *
 * Applies min (max (x, 0), 6) element-wise, as torch.nn.ReLU6; with
 * #DlRelu6:inplace, it overwrites its input and returns it.
 *
 * Since: 0.1
 */
struct _DlRelu6
{
  DlModule parent_instance;
  gboolean inplace;
};

/**
 * DlRelu6Class:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlRelu6. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlRelu6, dl_relu6, DL_TYPE_MODULE)

static const DlLayerProp relu6_props[] = {
  /**
   * DlRelu6:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlRelu6, inplace), FALSE },
};

static DlTensor *
dl_relu6_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_RELU6 (module)->inplace)
    return ref_result (dl_tensor_relu6_ (input, error));
  return dl_tensor_relu6 (input, error);
}

static gchar *
dl_relu6_extra_repr (DlModule *module)
{
  return g_strdup (DL_RELU6 (module)->inplace ? "inplace=True" : "");
}

static void
dl_relu6_class_init (DlRelu6Class *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_relu6_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_relu6_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), relu6_props, G_N_ELEMENTS (relu6_props));
}

static void
dl_relu6_init (DlRelu6 *self)
{
  dl_layer_props_init (self, relu6_props, G_N_ELEMENTS (relu6_props));
}

/**
 * dl_relu6_new:
 * @inplace: whether forward overwrites its input
 *
 * Makes a ReLU6 module, as `torch.nn.ReLU6 (inplace)`: forward gives min
 * (max (x, 0), 6) element-wise.
 *
 * Returns: (transfer full): a new #DlRelu6
 *
 * Since: 0.1
 */
DlRelu6 *
dl_relu6_new (gboolean inplace)
{
  return g_object_new (DL_TYPE_RELU6, "inplace", inplace, NULL);
}

/* ---- Hardswish --------------------------------------------------------------- */

/**
 * DlHardswish:
 *
 * Applies x relu6 (x + 3) / 6 element-wise, as torch.nn.Hardswish; with
 * #DlHardswish:inplace, it overwrites its input and returns it.
 *
 * Since: 0.1
 */
struct _DlHardswish
{
  DlModule parent_instance;
  gboolean inplace;
};

/**
 * DlHardswishClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlHardswish. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlHardswish, dl_hardswish, DL_TYPE_MODULE)

static const DlLayerProp hardswish_props[] = {
  /**
   * DlHardswish:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlHardswish, inplace), FALSE },
};

static DlTensor *
dl_hardswish_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_HARDSWISH (module)->inplace)
    return ref_result (dl_tensor_hardswish_ (input, error));
  return dl_tensor_hardswish (input, error);
}

static void
dl_hardswish_class_init (DlHardswishClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_hardswish_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), hardswish_props, G_N_ELEMENTS (hardswish_props));
}

static void
dl_hardswish_init (DlHardswish *self)
{
  dl_layer_props_init (self, hardswish_props, G_N_ELEMENTS (hardswish_props));
}

/**
 * dl_hardswish_new:
 * @inplace: whether forward overwrites its input
 *
 * Makes a Hardswish module, as `torch.nn.Hardswish (inplace)`: forward gives
 * x relu6 (x + 3) / 6 element-wise.
 *
 * Returns: (transfer full): a new #DlHardswish
 *
 * Since: 0.1
 */
DlHardswish *
dl_hardswish_new (gboolean inplace)
{
  return g_object_new (DL_TYPE_HARDSWISH, "inplace", inplace, NULL);
}

/* ---- Hardsigmoid ------------------------------------------------------------- */

/**
 * DlHardsigmoid:
 *
 * Applies relu6 (x + 3) / 6 element-wise, as torch.nn.Hardsigmoid; with
 * #DlHardsigmoid:inplace, it overwrites its input and returns it.
 *
 * Since: 0.1
 */
struct _DlHardsigmoid
{
  DlModule parent_instance;
  gboolean inplace;
};

/**
 * DlHardsigmoidClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlHardsigmoid. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlHardsigmoid, dl_hardsigmoid, DL_TYPE_MODULE)

static const DlLayerProp hardsigmoid_props[] = {
  /**
   * DlHardsigmoid:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlHardsigmoid, inplace), FALSE },
};

static DlTensor *
dl_hardsigmoid_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_HARDSIGMOID (module)->inplace)
    return ref_result (dl_tensor_hardsigmoid_ (input, error));
  return dl_tensor_hardsigmoid (input, error);
}

static void
dl_hardsigmoid_class_init (DlHardsigmoidClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_hardsigmoid_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), hardsigmoid_props,
                          G_N_ELEMENTS (hardsigmoid_props));
}

static void
dl_hardsigmoid_init (DlHardsigmoid *self)
{
  dl_layer_props_init (self, hardsigmoid_props, G_N_ELEMENTS (hardsigmoid_props));
}

/**
 * dl_hardsigmoid_new:
 * @inplace: whether forward overwrites its input
 *
 * Makes a Hardsigmoid module, as `torch.nn.Hardsigmoid (inplace)`: forward
 * gives relu6 (x + 3) / 6 element-wise.
 *
 * Returns: (transfer full): a new #DlHardsigmoid
 *
 * Since: 0.1
 */
DlHardsigmoid *
dl_hardsigmoid_new (gboolean inplace)
{
  return g_object_new (DL_TYPE_HARDSIGMOID, "inplace", inplace, NULL);
}

/* ---- Mish -------------------------------------------------------------------- */

/**
 * DlMish:
 *
 * Applies x tanh (softplus (x)) element-wise, as torch.nn.Mish; with
 * #DlMish:inplace, it overwrites its input and returns it.
 *
 * Since: 0.1
 */
struct _DlMish
{
  DlModule parent_instance;
  gboolean inplace;
};

/**
 * DlMishClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlMish. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlMish, dl_mish, DL_TYPE_MODULE)

static const DlLayerProp mish_props[] = {
  /**
   * DlMish:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlMish, inplace), FALSE },
};

static DlTensor *
dl_mish_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_MISH (module)->inplace)
    return ref_result (dl_tensor_mish_ (input, error));
  return dl_tensor_mish (input, error);
}

static void
dl_mish_class_init (DlMishClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_mish_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), mish_props, G_N_ELEMENTS (mish_props));
}

static void
dl_mish_init (DlMish *self)
{
  dl_layer_props_init (self, mish_props, G_N_ELEMENTS (mish_props));
}

/**
 * dl_mish_new:
 * @inplace: whether forward overwrites its input
 *
 * Makes a Mish module, as `torch.nn.Mish (inplace)`: forward gives x tanh
 * (softplus (x)) element-wise.
 *
 * Returns: (transfer full): a new #DlMish
 *
 * Since: 0.1
 */
DlMish *
dl_mish_new (gboolean inplace)
{
  return g_object_new (DL_TYPE_MISH, "inplace", inplace, NULL);
}

/* ---- SELU -------------------------------------------------------------------- */

/**
 * DlSelu:
 *
 * Applies the scaled exponential linear unit element-wise, as
 * torch.nn.SELU (see dl_tensor_selu()); with #DlSelu:inplace, it
 * overwrites its input and returns it.
 *
 * Since: 0.1
 */
struct _DlSelu
{
  DlModule parent_instance;
  gboolean inplace;
};

/**
 * DlSeluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSelu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSelu, dl_selu, DL_TYPE_MODULE)

static const DlLayerProp selu_props[] = {
  /**
   * DlSelu:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlSelu, inplace), FALSE },
};

static DlTensor *
dl_selu_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_SELU (module)->inplace)
    return ref_result (dl_tensor_selu_ (input, error));
  return dl_tensor_selu (input, error);
}

static gchar *
dl_selu_extra_repr (DlModule *module)
{
  return g_strdup (DL_SELU (module)->inplace ? "inplace=True" : "");
}

static void
dl_selu_class_init (DlSeluClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_selu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_selu_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), selu_props, G_N_ELEMENTS (selu_props));
}

static void
dl_selu_init (DlSelu *self)
{
  dl_layer_props_init (self, selu_props, G_N_ELEMENTS (selu_props));
}

/**
 * dl_selu_new:
 * @inplace: whether forward overwrites its input
 *
 * Makes a SELU module, as `torch.nn.SELU (inplace)`: forward gives
 * dl_tensor_selu().
 *
 * Returns: (transfer full): a new #DlSelu
 *
 * Since: 0.1
 */
DlSelu *
dl_selu_new (gboolean inplace)
{
  return g_object_new (DL_TYPE_SELU, "inplace", inplace, NULL);
}

/* ---- CELU -------------------------------------------------------------------- */

/**
 * DlCelu:
 *
 * Applies x where x > 0 and #DlCelu:alpha (e^(x / alpha) - 1) elsewhere,
 * element-wise, as torch.nn.CELU.
 *
 * Since: 0.1
 */
struct _DlCelu
{
  DlModule parent_instance;
  gdouble alpha;
  gboolean inplace;
};

/**
 * DlCeluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlCelu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlCelu, dl_celu, DL_TYPE_MODULE)

static const DlLayerProp celu_props[] = {
  /**
   * DlCelu:alpha:
   *
   * The scale of the negative part, not 0 (default 1).
   *
   * Since: 0.1
   */
  { "alpha", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlCelu, alpha), 1.0 },
  /**
   * DlCelu:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlCelu, inplace), FALSE },
};

static DlTensor *
dl_celu_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_CELU (module)->inplace)
    return ref_result (dl_tensor_celu_ (input, DL_CELU (module)->alpha, error));
  return dl_tensor_celu (input, DL_CELU (module)->alpha, error);
}

static gchar *
dl_celu_extra_repr (DlModule *module)
{
  DlCelu *self = DL_CELU (module);
  g_autofree gchar *alpha = dl_module_repr_double (self->alpha);

  return g_strdup_printf ("alpha=%s%s", alpha, self->inplace ? ", inplace=True" : "");
}

static void
dl_celu_class_init (DlCeluClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_celu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_celu_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), celu_props, G_N_ELEMENTS (celu_props));
}

static void
dl_celu_init (DlCelu *self)
{
  dl_layer_props_init (self, celu_props, G_N_ELEMENTS (celu_props));
}

/**
 * dl_celu_new:
 * @alpha: the scale of the negative part, not 0
 * @inplace: whether forward overwrites its input
 *
 * Makes a CELU module, as `torch.nn.CELU (alpha, inplace)`: forward gives
 * dl_tensor_celu(). PyTorch's default @alpha is 1.
 *
 * Returns: (transfer full): a new #DlCelu
 *
 * Since: 0.1
 */
DlCelu *
dl_celu_new (gdouble alpha, gboolean inplace)
{
  return g_object_new (DL_TYPE_CELU, "alpha", alpha, "inplace", inplace, NULL);
}

/* ---- Hardshrink -------------------------------------------------------------- */

/**
 * DlHardshrink:
 *
 * Applies x where |x| > lambd and 0 elsewhere, element-wise, as torch.nn.Hardshrink.
 *
 * Since: 0.1
 */
struct _DlHardshrink
{
  DlModule parent_instance;
  gdouble lambd;
};

/**
 * DlHardshrinkClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlHardshrink. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlHardshrink, dl_hardshrink, DL_TYPE_MODULE)

static const DlLayerProp hardshrink_props[] = {
  /**
   * DlHardshrink:lambd:
   *
   * The half-width of the band set to 0 (default 0.5).
   *
   * Since: 0.1
   */
  { "lambd", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlHardshrink, lambd), 0.5 },
};

static DlTensor *
dl_hardshrink_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_hardshrink (input, DL_HARDSHRINK (module)->lambd, error);
}

static gchar *
dl_hardshrink_extra_repr (DlModule *module)
{
  return dl_module_repr_double (DL_HARDSHRINK (module)->lambd);
}

static void
dl_hardshrink_class_init (DlHardshrinkClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_hardshrink_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_hardshrink_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), hardshrink_props,
                          G_N_ELEMENTS (hardshrink_props));
}

static void
dl_hardshrink_init (DlHardshrink *self)
{
  dl_layer_props_init (self, hardshrink_props, G_N_ELEMENTS (hardshrink_props));
}

/**
 * dl_hardshrink_new:
 * @lambd: the half-width of the band set to 0
 *
 * Makes a Hardshrink module, as `torch.nn.Hardshrink (lambd)`: forward gives
 * x where |x| > lambd and 0 elsewhere. PyTorch's default @lambd is 0.5.
 *
 * Returns: (transfer full): a new #DlHardshrink
 *
 * Since: 0.1
 */
DlHardshrink *
dl_hardshrink_new (gdouble lambd)
{
  return g_object_new (DL_TYPE_HARDSHRINK, "lambd", lambd, NULL);
}

/* ---- Softshrink -------------------------------------------------------------- */

/**
 * DlSoftshrink:
 *
 * Applies x - lambd above lambd, x + lambd below -lambd and 0 between, element-wise, as
 * torch.nn.Softshrink.
 *
 * Since: 0.1
 */
struct _DlSoftshrink
{
  DlModule parent_instance;
  gdouble lambd;
};

/**
 * DlSoftshrinkClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSoftshrink. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSoftshrink, dl_softshrink, DL_TYPE_MODULE)

static const DlLayerProp softshrink_props[] = {
  /**
   * DlSoftshrink:lambd:
   *
   * The half-width of the band set to 0, at least 0 (default 0.5).
   *
   * Since: 0.1
   */
  { "lambd", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlSoftshrink, lambd), 0.5 },
};

static DlTensor *
dl_softshrink_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_softshrink (input, DL_SOFTSHRINK (module)->lambd, error);
}

static gchar *
dl_softshrink_extra_repr (DlModule *module)
{
  return dl_module_repr_double (DL_SOFTSHRINK (module)->lambd);
}

static void
dl_softshrink_class_init (DlSoftshrinkClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_softshrink_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_softshrink_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), softshrink_props,
                          G_N_ELEMENTS (softshrink_props));
}

static void
dl_softshrink_init (DlSoftshrink *self)
{
  dl_layer_props_init (self, softshrink_props, G_N_ELEMENTS (softshrink_props));
}

/**
 * dl_softshrink_new:
 * @lambd: the half-width of the band set to 0, at least 0
 *
 * Makes a Softshrink module, as `torch.nn.Softshrink (lambd)`: forward gives
 * x - lambd above lambd, x + lambd below -lambd and 0 between. PyTorch's
 * default @lambd is 0.5.
 *
 * Returns: (transfer full): a new #DlSoftshrink
 *
 * Since: 0.1
 */
DlSoftshrink *
dl_softshrink_new (gdouble lambd)
{
  return g_object_new (DL_TYPE_SOFTSHRINK, "lambd", lambd, NULL);
}

/* ---- Tanhshrink -------------------------------------------------------------- */

/**
 * DlTanhshrink:
 *
 * Applies x - tanh (x) element-wise, as torch.nn.Tanhshrink.
 *
 * Since: 0.1
 */
struct _DlTanhshrink
{
  DlModule parent_instance;
};

/**
 * DlTanhshrinkClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlTanhshrink. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlTanhshrink, dl_tanhshrink, DL_TYPE_MODULE)

static DlTensor *
dl_tanhshrink_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_tanhshrink (input, error);
}

static void
dl_tanhshrink_class_init (DlTanhshrinkClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_tanhshrink_forward;
}

static void
dl_tanhshrink_init (DlTanhshrink *self)
{
}

/**
 * dl_tanhshrink_new:
 *
 * Makes a Tanhshrink module, as `torch.nn.Tanhshrink ()`: forward gives x -
 * tanh (x) element-wise.
 *
 * Returns: (transfer full): a new #DlTanhshrink
 *
 * Since: 0.1
 */
DlTanhshrink *
dl_tanhshrink_new (void)
{
  return g_object_new (DL_TYPE_TANHSHRINK, NULL);
}

/* ---- Softsign ---------------------------------------------------------------- */

/**
 * DlSoftsign:
 *
 * Applies x / (1 + |x|) element-wise, as torch.nn.Softsign.
 *
 * Since: 0.1
 */
struct _DlSoftsign
{
  DlModule parent_instance;
};

/**
 * DlSoftsignClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSoftsign. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSoftsign, dl_softsign, DL_TYPE_MODULE)

static DlTensor *
dl_softsign_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_softsign (input, error);
}

static void
dl_softsign_class_init (DlSoftsignClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_softsign_forward;
}

static void
dl_softsign_init (DlSoftsign *self)
{
}

/**
 * dl_softsign_new:
 *
 * Makes a Softsign module, as `torch.nn.Softsign ()`: forward gives x / (1 +
 * |x|) element-wise.
 *
 * Returns: (transfer full): a new #DlSoftsign
 *
 * Since: 0.1
 */
DlSoftsign *
dl_softsign_new (void)
{
  return g_object_new (DL_TYPE_SOFTSIGN, NULL);
}

/* ---- LogSigmoid -------------------------------------------------------------- */

/**
 * DlLogSigmoid:
 *
 * Applies ln sigmoid (x) element-wise, as torch.nn.LogSigmoid.
 *
 * Since: 0.1
 */
struct _DlLogSigmoid
{
  DlModule parent_instance;
};

/**
 * DlLogSigmoidClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlLogSigmoid. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlLogSigmoid, dl_log_sigmoid, DL_TYPE_MODULE)

static DlTensor *
dl_log_sigmoid_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_logsigmoid (input, error);
}

static void
dl_log_sigmoid_class_init (DlLogSigmoidClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_log_sigmoid_forward;
}

static void
dl_log_sigmoid_init (DlLogSigmoid *self)
{
}

/**
 * dl_log_sigmoid_new:
 *
 * Makes a LogSigmoid module, as `torch.nn.LogSigmoid ()`: forward gives ln
 * sigmoid (x) element-wise.
 *
 * Returns: (transfer full): a new #DlLogSigmoid
 *
 * Since: 0.1
 */
DlLogSigmoid *
dl_log_sigmoid_new (void)
{
  return g_object_new (DL_TYPE_LOG_SIGMOID, NULL);
}

/* ---- Threshold --------------------------------------------------------------- */

/**
 * DlThreshold:
 *
 * Keeps x where x > #DlThreshold:threshold and replaces it with
 * #DlThreshold:value elsewhere, element-wise, as torch.nn.Threshold.
 *
 * Since: 0.1
 */
struct _DlThreshold
{
  DlModule parent_instance;
  gdouble threshold;
  gdouble value;
  gboolean inplace;
};

/**
 * DlThresholdClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlThreshold. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlThreshold, dl_threshold, DL_TYPE_MODULE)

static const DlLayerProp threshold_props[] = {
  /**
   * DlThreshold:threshold:
   *
   * The value x must exceed to be kept.
   *
   * Since: 0.1
   */
  { "threshold", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlThreshold, threshold), 0.0 },
  /**
   * DlThreshold:value:
   *
   * What replaces the elements not above the threshold.
   *
   * Since: 0.1
   */
  { "value", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlThreshold, value), 0.0 },
  /**
   * DlThreshold:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlThreshold, inplace), FALSE },
};

static DlTensor *
dl_threshold_forward (DlModule *module, DlTensor *input, GError **error)
{
  if (DL_THRESHOLD (module)->inplace)
    return ref_result (dl_tensor_threshold_ (input, DL_THRESHOLD (module)->threshold,
                                             DL_THRESHOLD (module)->value, error));
  return dl_tensor_threshold (input, DL_THRESHOLD (module)->threshold, DL_THRESHOLD (module)->value,
                              error);
}

static gchar *
dl_threshold_extra_repr (DlModule *module)
{
  DlThreshold *self = DL_THRESHOLD (module);
  g_autofree gchar *threshold = dl_module_repr_double (self->threshold);
  g_autofree gchar *value = dl_module_repr_double (self->value);

  return g_strdup_printf ("threshold=%s, value=%s%s", threshold, value,
                          self->inplace ? ", inplace=True" : "");
}

static void
dl_threshold_class_init (DlThresholdClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_threshold_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_threshold_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), threshold_props, G_N_ELEMENTS (threshold_props));
}

static void
dl_threshold_init (DlThreshold *self)
{
  dl_layer_props_init (self, threshold_props, G_N_ELEMENTS (threshold_props));
}

/**
 * dl_threshold_new:
 * @threshold: the value x must exceed to be kept
 * @value: what replaces the elements not above the threshold
 * @inplace: whether forward overwrites its input
 *
 * Makes a Threshold module, as `torch.nn.Threshold (threshold, value,
 * inplace)`: forward gives dl_tensor_threshold().
 *
 * Returns: (transfer full): a new #DlThreshold
 *
 * Since: 0.1
 */
DlThreshold *
dl_threshold_new (gdouble threshold, gdouble value, gboolean inplace)
{
  return g_object_new (DL_TYPE_THRESHOLD, "threshold", threshold, "value", value, "inplace",
                       inplace, NULL);
}

/* ---- RReLU ------------------------------------------------------------------- */

/**
 * DlRrelu:
 *
 * The randomized leaky ReLU, as torch.nn.RReLU: in training, negative
 * elements are scaled by a slope drawn from [#DlRrelu:lower,
 * #DlRrelu:upper] for each element; in eval, by the mean of the two.
 *
 * Since: 0.1
 */
struct _DlRrelu
{
  DlModule parent_instance;
  gdouble lower;
  gdouble upper;
  gboolean inplace;
};

/**
 * DlRreluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlRrelu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlRrelu, dl_rrelu, DL_TYPE_MODULE)

static const DlLayerProp rrelu_props[] = {
  /**
   * DlRrelu:lower:
   *
   * The lowest slope (default 1/8).
   *
   * Since: 0.1
   */
  { "lower", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlRrelu, lower), 0.125 },
  /**
   * DlRrelu:upper:
   *
   * The highest slope, not below the lowest (default 1/3).
   *
   * Since: 0.1
   */
  { "upper", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlRrelu, upper), 1.0 / 3.0 },
  /**
   * DlRrelu:inplace:
   *
   * Whether forward overwrites its input (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlRrelu, inplace), FALSE },
};

static DlTensor *
dl_rrelu_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlRrelu *self = DL_RRELU (module);
  gboolean training = dl_module_get_training (module);

  if (self->inplace)
    return ref_result (dl_tensor_rrelu_ (input, self->lower, self->upper, training, NULL, error));
  return dl_tensor_rrelu (input, self->lower, self->upper, training, NULL, error);
}

static gchar *
dl_rrelu_extra_repr (DlModule *module)
{
  DlRrelu *self = DL_RRELU (module);
  g_autofree gchar *lower = dl_module_repr_double (self->lower);
  g_autofree gchar *upper = dl_module_repr_double (self->upper);

  return g_strdup_printf ("lower=%s, upper=%s%s", lower, upper,
                          self->inplace ? ", inplace=True" : "");
}

static void
dl_rrelu_class_init (DlRreluClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_rrelu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_rrelu_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), rrelu_props, G_N_ELEMENTS (rrelu_props));
}

static void
dl_rrelu_init (DlRrelu *self)
{
  dl_layer_props_init (self, rrelu_props, G_N_ELEMENTS (rrelu_props));
}

/**
 * dl_rrelu_new:
 * @lower: the lowest slope
 * @upper: the highest slope, not below the lowest
 * @inplace: whether forward overwrites its input
 *
 * Makes an RReLU module, as `torch.nn.RReLU (lower, upper, inplace)`:
 * forward gives dl_tensor_rrelu() in the module's training mode, with the
 * default generator. PyTorch's defaults are 1/8 and 1/3.
 *
 * Returns: (transfer full): a new #DlRrelu
 *
 * Since: 0.1
 */
DlRrelu *
dl_rrelu_new (gdouble lower, gdouble upper, gboolean inplace)
{
  return g_object_new (DL_TYPE_RRELU, "lower", lower, "upper", upper, "inplace", inplace, NULL);
}
