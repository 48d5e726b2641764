/* dl-channel-activation-modules.c: the activation modules that act along
 * a dim: PReLU (a learnable slope per channel), GLU, Softmin and
 * Softmax2d.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-channel-activation-modules.h"
#include "dl-module-private.h"
#include "dl-layer-props-private.h"
#include "dl-error.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"

/* Softmin's dim when not given: here dim is required (PyTorch's dim=None
 * picks a dim from the input's rank, which it deprecates) */
#define DIM_UNSET G_MININT64

/* softmax (-x) along @dim */
static DlTensor *
softmin (DlTensor *input, gint64 dim, GError **error)
{
  g_autoptr (DlTensor) neg = dl_tensor_neg (input, error);

  return neg ? dl_tensor_softmax (neg, dim, error) : NULL;
}

/* softmax over the channels of a [C, H, W] or [N, C, H, W] input */
static DlTensor *
softmax2d (DlTensor *input, GError **error)
{
  gint ndim = dl_tensor_get_ndim (input);

  if (ndim != 3 && ndim != 4)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "Softmax2d: expected input to be 3D or 4D, got %dD instead", ndim);
      return NULL;
    }
  return dl_tensor_softmax (input, -3, error);
}

/* ---- PReLU ------------------------------------------------------------------- */

/**
 * DlPrelu:
 *
 * The parametric ReLU, as torch.nn.PReLU: x where x > 0 and w x elsewhere,
 * with w the learnable parameter "weight": #DlPrelu:num-parameters slopes
 * (1, shared by all channels, or one per channel of the input's dim 1),
 * each #DlPrelu:init at first.
 *
 * Since: 0.1
 */
struct _DlPrelu
{
  DlModule parent_instance;
  gint64 num_parameters;
  gdouble init;
};

/**
 * DlPreluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlPrelu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlPrelu, dl_prelu, DL_TYPE_MODULE)

static const DlLayerProp prelu_props[] = {
  /**
   * DlPrelu:num-parameters:
   *
   * The number of slopes: 1, or the number of channels of the input
   * (default 1); not negative.
   *
   * Since: 0.1
   */
  { "num-parameters", G_TYPE_INT64, G_STRUCT_OFFSET (DlPrelu, num_parameters), 1 },
  /**
   * DlPrelu:init:
   *
   * The initial value of every slope (default 0.25).
   *
   * Since: 0.1
   */
  { "init", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlPrelu, init), 0.25 },
};

static DlTensor *
dl_prelu_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_prelu (input, dl_module_get_parameter (module, "weight"), error);
}

static gchar *
dl_prelu_extra_repr (DlModule *module)
{
  return g_strdup_printf ("num_parameters=%" G_GINT64_FORMAT, DL_PRELU (module)->num_parameters);
}

static void
dl_prelu_constructed (GObject *object)
{
  DlPrelu *self = DL_PRELU (object);
  g_autoptr (DlTensor) w = NULL;
  GError *error = NULL;

  G_OBJECT_CLASS (dl_prelu_parent_class)->constructed (object);
  if (self->num_parameters < 0)
    error = g_error_new (DL_ERROR, DL_ERROR_SHAPE,
                         "PReLU: Trying to create tensor with negative dimension %" G_GINT64_FORMAT
                         ": [%" G_GINT64_FORMAT "]",
                         self->num_parameters, self->num_parameters);
  else if ((w = dl_full (&self->num_parameters, 1, self->init,
                         dl_module_get_factory_dtype (DL_MODULE (self)),
                         dl_module_get_factory_device (DL_MODULE (self)), &error))
           && dl_tensor_set_requires_grad (w, TRUE, &error))
    dl_module_register_parameter (DL_MODULE (self), "weight", w);
  if (error)
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_prelu_class_init (DlPreluClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_prelu_constructed;
  DL_MODULE_CLASS (klass)->forward = dl_prelu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_prelu_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), prelu_props, G_N_ELEMENTS (prelu_props));
}

static void
dl_prelu_init (DlPrelu *self)
{
  dl_layer_props_init (self, prelu_props, G_N_ELEMENTS (prelu_props));
}

/**
 * dl_prelu_new:
 * @num_parameters: the number of slopes: 1 or the input's channel count
 * @init: the initial value of every slope
 * @error: return location for a #GError
 *
 * Makes a PReLU module, as `torch.nn.PReLU (num_parameters, init)`: its
 * parameter "weight" holds @num_parameters slopes, each @init, and forward
 * gives dl_tensor_prelu(). PyTorch's defaults are 1 and 0.25.
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlPrelu *
dl_prelu_new (gint64 num_parameters, gdouble init, GError **error)
{
  return g_initable_new (DL_TYPE_PRELU, NULL, error, "num-parameters", num_parameters, "init", init,
                         NULL);
}

/* ---- GLU --------------------------------------------------------------------- */

/**
 * DlGlu:
 *
 * The gated linear unit, as torch.nn.GLU: with a and b the halves of the
 * input along #DlGlu:dim, a * sigmoid (b).
 *
 * Since: 0.1
 */
struct _DlGlu
{
  DlModule parent_instance;
  gint64 dim;
};

/**
 * DlGluClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlGlu. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlGlu, dl_glu, DL_TYPE_MODULE)

static const DlLayerProp glu_props[] = {
  /**
   * DlGlu:dim:
   *
   * The dim to halve (default -1).
   *
   * Since: 0.1
   */
  { "dim", G_TYPE_INT64, G_STRUCT_OFFSET (DlGlu, dim), -1 },
};

static DlTensor *
dl_glu_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_tensor_glu (input, DL_GLU (module)->dim, error);
}

static gchar *
dl_glu_extra_repr (DlModule *module)
{
  return g_strdup_printf ("dim=%" G_GINT64_FORMAT, DL_GLU (module)->dim);
}

static void
dl_glu_class_init (DlGluClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_glu_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_glu_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), glu_props, G_N_ELEMENTS (glu_props));
}

static void
dl_glu_init (DlGlu *self)
{
  dl_layer_props_init (self, glu_props, G_N_ELEMENTS (glu_props));
}

/**
 * dl_glu_new:
 * @dim: the dim to halve
 *
 * Makes a GLU module, as `torch.nn.GLU (dim)`: forward gives
 * dl_tensor_glu(). PyTorch's default @dim is -1.
 *
 * Returns: (transfer full): a new #DlGlu
 *
 * Since: 0.1
 */
DlGlu *
dl_glu_new (gint64 dim)
{
  return g_object_new (DL_TYPE_GLU, "dim", dim, NULL);
}

/* ---- Softmin ----------------------------------------------------------------- */

/**
 * DlSoftmin:
 *
 * Applies softmin along #DlSoftmin:dim, as torch.nn.Softmin: softmax of
 * -x, so the smallest elements get the largest weights.
 *
 * Since: 0.1
 */
struct _DlSoftmin
{
  DlModule parent_instance;
  gint64 dim;
};

/**
 * DlSoftminClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSoftmin. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSoftmin, dl_softmin, DL_TYPE_MODULE)

static const DlLayerProp softmin_props[] = {
  /**
   * DlSoftmin:dim:
   *
   * The dim to normalise over; it must be given.
   *
   * Since: 0.1
   */
  { "dim", G_TYPE_INT64, G_STRUCT_OFFSET (DlSoftmin, dim), DIM_UNSET },
};

static DlTensor *
dl_softmin_forward (DlModule *module, DlTensor *input, GError **error)
{
  return softmin (input, DL_SOFTMIN (module)->dim, error);
}

static gchar *
dl_softmin_extra_repr (DlModule *module)
{
  return g_strdup_printf ("dim=%" G_GINT64_FORMAT, DL_SOFTMIN (module)->dim);
}

static void
dl_softmin_constructed (GObject *object)
{
  DlSoftmin *self = DL_SOFTMIN (object);

  G_OBJECT_CLASS (dl_softmin_parent_class)->constructed (object);
  if (self->dim == DIM_UNSET)
    dl_module_take_construct_error (
        DL_MODULE (self), g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                                       "Softmin: dim is missing: give the dim to normalise over"));
}

static void
dl_softmin_class_init (DlSoftminClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_softmin_constructed;
  DL_MODULE_CLASS (klass)->forward = dl_softmin_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_softmin_extra_repr;
  dl_layer_props_install (G_OBJECT_CLASS (klass), softmin_props, G_N_ELEMENTS (softmin_props));
}

static void
dl_softmin_init (DlSoftmin *self)
{
  dl_layer_props_init (self, softmin_props, G_N_ELEMENTS (softmin_props));
}

/**
 * dl_softmin_new:
 * @dim: the dim to normalise over; it must be given
 * @error: return location for a #GError
 *
 * Makes a Softmin module, as `torch.nn.Softmin (dim)`: forward gives softmax
 * (-x) along @dim.
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlSoftmin *
dl_softmin_new (gint64 dim, GError **error)
{
  return g_initable_new (DL_TYPE_SOFTMIN, NULL, error, "dim", dim, NULL);
}

/* ---- Softmax2d --------------------------------------------------------------- */

/**
 * DlSoftmax2d:
 *
 * Applies softmax over the channels (dim -3) of a 3-d or 4-d input, as
 * torch.nn.Softmax2d.
 *
 * Since: 0.1
 */
struct _DlSoftmax2d
{
  DlModule parent_instance;
};

/**
 * DlSoftmax2dClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSoftmax2d. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSoftmax2d, dl_softmax2d, DL_TYPE_MODULE)

static DlTensor *
dl_softmax2d_forward (DlModule *module, DlTensor *input, GError **error)
{
  return softmax2d (input, error);
}

static void
dl_softmax2d_class_init (DlSoftmax2dClass *klass)
{
  DL_MODULE_CLASS (klass)->forward = dl_softmax2d_forward;
}

static void
dl_softmax2d_init (DlSoftmax2d *self)
{
}

/**
 * dl_softmax2d_new:
 *
 * Makes a Softmax2d module, as `torch.nn.Softmax2d ()`: forward gives
 * softmax along dim -3 of a [C, H, W] or [N, C, H, W] input.
 *
 * Returns: (transfer full): a new #DlSoftmax2d
 *
 * Since: 0.1
 */
DlSoftmax2d *
dl_softmax2d_new (void)
{
  return g_object_new (DL_TYPE_SOFTMAX2D, NULL);
}
