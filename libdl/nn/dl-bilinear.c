/* dl-bilinear.c: the bilinear layer, with PyTorch's default
 * initialisation: weight and bias uniform in [-1/sqrt(in1), 1/sqrt(in1)].
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-bilinear.h"
#include "dl-error.h"
#include "dl-module-private.h"
#include "ops/dl-ops-linalg.h"

/**
 * DlBilinear:
 *
 * Applies y = x1^T A x2 + b to the last dims of its two inputs, as
 * torch.nn.Bilinear (see dl_bilinear()). Its parameters are "weight"
 * [out_features, in1_features, in2_features] and "bias" [out_features],
 * drawn uniformly from (-1/sqrt (in1_features), 1/sqrt (in1_features)) as
 * PyTorch does, in #DlModule:dtype.
 *
 * It takes two inputs: call dl_module_forward_many() with both (the
 * Python layer's `m(x1, x2)`). Build it from its construct properties
 * #DlBilinear:in1-features, #DlBilinear:in2-features and
 * #DlBilinear:out-features (required) and #DlBilinear:bias
 * (`new Dl.Bilinear({in1_features: 3, in2_features: 4, out_features: 2})`
 * in GJS), or with dl_bilinear_layer_new(); a missing or negative size is
 * an error from g_initable_init() and from forward.
 *
 * Since: 0.1
 */
struct _DlBilinear
{
  DlModule parent_instance;

  gint64 in1_features, in2_features, out_features;
  gboolean bias;
};

/**
 * DlBilinearClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlBilinear. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlBilinear, dl_bilinear_layer, DL_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_IN1_FEATURES,
  PROP_IN2_FEATURES,
  PROP_OUT_FEATURES,
  PROP_BIAS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The default of the size properties: not given */
#define SIZE_UNSET (-1)

static void
dl_bilinear_layer_forward_many (DlModule *module,
                                GPtrArray *inputs,
                                GPtrArray **outputs,
                                GError **error)
{
  DlTensor *w = dl_module_get_parameter (module, "weight");
  DlTensor *b = dl_module_get_parameter (module, "bias");
  DlTensor *y;

  if (inputs->len != 2 || g_ptr_array_index (inputs, 0) == NULL
      || g_ptr_array_index (inputs, 1) == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Bilinear: forward takes two inputs (input1, input2), got %u", inputs->len);
      return;
    }
  if (w == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "Bilinear: the layer has no weight");
      return;
    }
  if (!(y
        = dl_bilinear (g_ptr_array_index (inputs, 0), g_ptr_array_index (inputs, 1), w, b, error)))
    return;
  *outputs = g_ptr_array_new (); /* the invoker adds the free function */
  g_ptr_array_add (*outputs, y);
}

static void
dl_bilinear_layer_constructed (GObject *object)
{
  DlBilinear *self = DL_BILINEAR (object);
  GError *error = NULL;
  gdouble bound;

  G_OBJECT_CLASS (dl_bilinear_layer_parent_class)->constructed (object);
  if (!dl_module_check_size ("Bilinear", "in1_features", self->in1_features, &error)
      || !dl_module_check_size ("Bilinear", "in2_features", self->in2_features, &error)
      || !dl_module_check_size ("Bilinear", "out_features", self->out_features, &error))
    {
      dl_module_take_construct_error (DL_MODULE (self), error);
      return;
    }
  bound = self->in1_features > 0 ? 1.0 / sqrt ((gdouble)self->in1_features) : 0;
  if (!dl_module_add_uniform_parameter (
          DL_MODULE (self), "weight",
          (gint64[]){ self->out_features, self->in1_features, self->in2_features }, 3, bound,
          &error)
      || (self->bias
          && !dl_module_add_uniform_parameter (DL_MODULE (self), "bias", &self->out_features, 1,
                                               bound, &error)))
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_bilinear_layer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlBilinear *self = DL_BILINEAR (object);

  switch (prop_id)
    {
      case PROP_IN1_FEATURES:
        g_value_set_int64 (value, self->in1_features);
        break;
      case PROP_IN2_FEATURES:
        g_value_set_int64 (value, self->in2_features);
        break;
      case PROP_OUT_FEATURES:
        g_value_set_int64 (value, self->out_features);
        break;
      case PROP_BIAS:
        g_value_set_boolean (value, dl_module_get_parameter (DL_MODULE (self), "bias") != NULL);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_bilinear_layer_set_property (GObject *object,
                                guint prop_id,
                                const GValue *value,
                                GParamSpec *pspec)
{
  DlBilinear *self = DL_BILINEAR (object);

  switch (prop_id)
    {
      case PROP_IN1_FEATURES:
        self->in1_features = g_value_get_int64 (value);
        break;
      case PROP_IN2_FEATURES:
        self->in2_features = g_value_get_int64 (value);
        break;
      case PROP_OUT_FEATURES:
        self->out_features = g_value_get_int64 (value);
        break;
      case PROP_BIAS:
        self->bias = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gchar *
dl_bilinear_layer_extra_repr (DlModule *module)
{
  DlBilinear *self = DL_BILINEAR (module);

  return g_strdup_printf ("in1_features=%" G_GINT64_FORMAT ", in2_features=%" G_GINT64_FORMAT
                          ", out_features=%" G_GINT64_FORMAT ", bias=%s",
                          self->in1_features, self->in2_features, self->out_features,
                          dl_module_get_parameter (module, "bias") ? "True" : "False");
}

static GParamSpec *
size_property (const gchar *name)
{
  /* every gint64, so that a bad value reaches constructed() as a GError */
  return g_param_spec_int64 (name, NULL, NULL, G_MININT64, G_MAXINT64, SIZE_UNSET,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                 | G_PARAM_EXPLICIT_NOTIFY);
}

static void
dl_bilinear_layer_class_init (DlBilinearClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_bilinear_layer_constructed;
  object_class->get_property = dl_bilinear_layer_get_property;
  object_class->set_property = dl_bilinear_layer_set_property;
  DL_MODULE_CLASS (klass)->forward_many = dl_bilinear_layer_forward_many;
  DL_MODULE_CLASS (klass)->extra_repr = dl_bilinear_layer_extra_repr;

  /**
   * DlBilinear:in1-features:
   *
   * The size of each sample of the first input (required, >= 0).
   *
   * Since: 0.1
   */
  properties[PROP_IN1_FEATURES] = size_property ("in1-features");
  /**
   * DlBilinear:in2-features:
   *
   * The size of each sample of the second input (required, >= 0).
   *
   * Since: 0.1
   */
  properties[PROP_IN2_FEATURES] = size_property ("in2-features");
  /**
   * DlBilinear:out-features:
   *
   * The size of each output sample (required, >= 0).
   *
   * Since: 0.1
   */
  properties[PROP_OUT_FEATURES] = size_property ("out-features");
  /**
   * DlBilinear:bias:
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
dl_bilinear_layer_init (DlBilinear *self)
{
  self->in1_features = SIZE_UNSET;
  self->in2_features = SIZE_UNSET;
  self->out_features = SIZE_UNSET;
  self->bias = TRUE;
}

/**
 * dl_bilinear_layer_new:
 * @in1_features: the size of each sample of the first input
 * @in2_features: the size of each sample of the second input
 * @out_features: the size of each output sample
 * @bias: whether to learn an additive bias
 * @error: return location for a #GError
 *
 * Creates a layer from its construct properties and checks them
 * (g_initable_new()), as `torch.nn.Bilinear (in1_features, in2_features,
 * out_features, bias)`.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlBilinear) layer = NULL;
 * g_autoptr (DlTensor) x1 = NULL;
 * g_autoptr (DlTensor) x2 = NULL;
 * g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
 * g_autoptr (GPtrArray) y = NULL;
 *
 * if ((layer = dl_bilinear_layer_new (3, 4, 2, TRUE, &error))
 *     && (x1 = dl_randn (DL_SHAPE (8, 3), DL_DTYPE_FLOAT32, NULL, &error))
 *     && (x2 = dl_randn (DL_SHAPE (8, 4), DL_DTYPE_FLOAT32, NULL, &error)))
 *   {
 *     g_ptr_array_add (inputs, g_object_ref (x1));
 *     g_ptr_array_add (inputs, g_object_ref (x2));
 *     y = dl_module_forward_many (DL_MODULE (layer), inputs, &error);
 *   }
 * if (error)
 *   g_printerr ("%s\n", error->message);
 * ]|
 *
 * gives one output of shape [8, 2].
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set for a
 *   negative size
 *
 * Since: 0.1
 */
DlBilinear *
dl_bilinear_layer_new (gint64 in1_features,
                       gint64 in2_features,
                       gint64 out_features,
                       gboolean bias,
                       GError **error)
{
  return g_initable_new (DL_TYPE_BILINEAR, NULL, error, "in1-features", in1_features,
                         "in2-features", in2_features, "out-features", out_features, "bias", bias,
                         NULL);
}
