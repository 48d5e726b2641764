/* dl-pool-modules.c: the pooling layers and dropout, each one op
 * (dl_max_pool2d(), dl_avg_pool2d(), dl_adaptive_avg_pool2d(),
 * dl_max_pool3d(), dl_avg_pool3d(), dl_dropout()) with its hyperparameters
 * as construct properties.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-pool-modules.h"
#include "dl-error.h"
#include "dl-layer-props-private.h"
#include "dl-module-private.h"
#include "ops/dl-ops-conv.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-resample.h"

#define UNSET (-1)

/* checks that each named value is at least its minimum (UNSET: missing) */
static gboolean
check_values (const gchar *layer,
              const gchar *const *names,
              const gint64 *values,
              const gint64 *mins,
              guint n,
              GError **error)
{
  for (guint i = 0; i < n; i++)
    if (values[i] < mins[i])
      {
        if (values[i] == UNSET && mins[i] > 0)
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: %s is missing: give a value >= %" G_GINT64_FORMAT, layer, names[i],
                       mins[i]);
        else
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: %s must be >= %" G_GINT64_FORMAT ", got %" G_GINT64_FORMAT, layer,
                       names[i], mins[i], values[i]);
        return FALSE;
      }
  return TRUE;
}

/* ---- MaxPool2d ------------------------------------------------------------ */

/**
 * DlMaxPool2d:
 *
 * Max pooling over the last two dims, as torch.nn.MaxPool2d: dl_max_pool2d()
 * with the layer's window. A stride of 0 (the default) is the kernel size.
 * In GJS, `new Dl.MaxPool2d({kernel_height: 2, kernel_width: 2})`.
 *
 * Since: 0.1
 */
struct _DlMaxPool2d
{
  DlModule parent_instance;
  gint64 kernel[2], stride[2], padding[2], dilation[2];
  gboolean ceil_mode;
};

/**
 * DlMaxPool2dClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlMaxPool2d. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlMaxPool2d, dl_max_pool2d_layer, DL_TYPE_MODULE)

#define MP(f) G_STRUCT_OFFSET (DlMaxPool2d, f)
static const DlLayerProp max_pool_props[] = {
  /**
   * DlMaxPool2d:kernel-height:
   *
   * The window's height (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-height", G_TYPE_INT64, MP (kernel[0]), UNSET },
  /**
   * DlMaxPool2d:kernel-width:
   *
   * The window's width (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-width", G_TYPE_INT64, MP (kernel[1]), UNSET },
  /**
   * DlMaxPool2d:stride-height:
   *
   * The window's vertical step; 0 (default): the kernel height.
   *
   * Since: 0.1
   */
  { "stride-height", G_TYPE_INT64, MP (stride[0]), 0 },
  /**
   * DlMaxPool2d:stride-width:
   *
   * The window's horizontal step; 0 (default): the kernel width.
   *
   * Since: 0.1
   */
  { "stride-width", G_TYPE_INT64, MP (stride[1]), 0 },
  /**
   * DlMaxPool2d:padding-height:
   *
   * Implicit -inf rows above and below (default 0).
   *
   * Since: 0.1
   */
  { "padding-height", G_TYPE_INT64, MP (padding[0]), 0 },
  /**
   * DlMaxPool2d:padding-width:
   *
   * Implicit -inf columns left and right (default 0).
   *
   * Since: 0.1
   */
  { "padding-width", G_TYPE_INT64, MP (padding[1]), 0 },
  /**
   * DlMaxPool2d:dilation-height:
   *
   * The vertical spacing of the window's taps (default 1).
   *
   * Since: 0.1
   */
  { "dilation-height", G_TYPE_INT64, MP (dilation[0]), 1 },
  /**
   * DlMaxPool2d:dilation-width:
   *
   * The horizontal spacing of the window's taps (default 1).
   *
   * Since: 0.1
   */
  { "dilation-width", G_TYPE_INT64, MP (dilation[1]), 1 },
  /**
   * DlMaxPool2d:ceil-mode:
   *
   * Whether a last window that only partly covers the input counts
   * (default %FALSE).
   *
   * Since: 0.1
   */
  { "ceil-mode", G_TYPE_BOOLEAN, MP (ceil_mode), FALSE },
};

/* @stride (@n values, 0: the kernel's) made explicit into @out */
static const gint64 *
effective_stride (const gint64 *stride, const gint64 *kernel, gint n, gint64 *out)
{
  for (gint i = 0; i < n; i++)
    out[i] = stride[i] ? stride[i] : kernel[i];
  return out;
}

static DlTensor *
max_pool_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlMaxPool2d *self = DL_MAX_POOL2D (module);
  gint64 stride[2];

  return dl_max_pool2d (input, self->kernel,
                        effective_stride (self->stride, self->kernel, 2, stride), self->padding,
                        self->dilation, self->ceil_mode, NULL, error);
}

static void
max_pool_constructed (GObject *object)
{
  DlMaxPool2d *self = DL_MAX_POOL2D (object);
  static const gchar *const names[] = { "kernel_height", "kernel_width", "stride_height",
                                        "stride_width",  "padding_height", "padding_width",
                                        "dilation_height", "dilation_width" };
  const gint64 values[] = { self->kernel[0],  self->kernel[1],   self->stride[0],
                            self->stride[1],  self->padding[0],  self->padding[1],
                            self->dilation[0], self->dilation[1] };
  GError *error = NULL;

  G_OBJECT_CLASS (dl_max_pool2d_layer_parent_class)->constructed (object);
  if (!check_values ("MaxPool2d", names, values, (gint64[]){ 1, 1, 0, 0, 0, 0, 1, 1 }, 8, &error))
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_max_pool2d_layer_class_init (DlMaxPool2dClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = max_pool_constructed;
  DL_MODULE_CLASS (klass)->forward = max_pool_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), max_pool_props, G_N_ELEMENTS (max_pool_props));
}

static void
dl_max_pool2d_layer_init (DlMaxPool2d *self)
{
  dl_layer_props_init (self, max_pool_props, G_N_ELEMENTS (max_pool_props));
}

/**
 * dl_max_pool2d_layer_new:
 * @kernel_size: (array fixed-size=2): the window's height and width
 * @stride: (array fixed-size=2) (nullable): its step (%NULL: the kernel
 *   size)
 * @padding: (array fixed-size=2) (nullable): -inf padding (%NULL: none)
 * @dilation: (array fixed-size=2) (nullable): the spacing of the taps
 *   (%NULL: 1)
 * @ceil_mode: whether a partly covering last window counts
 * @error: return location for a #GError
 *
 * A #DlMaxPool2d (g_initable_new() with the properties).
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlMaxPool2d *
dl_max_pool2d_layer_new (const gint64 *kernel_size,
                         const gint64 *stride,
                         const gint64 *padding,
                         const gint64 *dilation,
                         gboolean ceil_mode,
                         GError **error)
{
  static const gint64 zero[2] = { 0, 0 }, one[2] = { 1, 1 };

  g_return_val_if_fail (kernel_size != NULL, NULL);
  stride = stride ? stride : zero;
  padding = padding ? padding : zero;
  dilation = dilation ? dilation : one;
  return g_initable_new (DL_TYPE_MAX_POOL2D, NULL, error, "kernel-height", kernel_size[0],
                         "kernel-width", kernel_size[1], "stride-height", stride[0],
                         "stride-width", stride[1], "padding-height", padding[0],
                         "padding-width", padding[1], "dilation-height", dilation[0],
                         "dilation-width", dilation[1], "ceil-mode", ceil_mode, NULL);
}

/* ---- AvgPool2d ------------------------------------------------------------ */

/**
 * DlAvgPool2d:
 *
 * Average pooling over the last two dims, as torch.nn.AvgPool2d:
 * dl_avg_pool2d() with the layer's window. A stride of 0 (the default) is
 * the kernel size.
 *
 * Since: 0.1
 */
struct _DlAvgPool2d
{
  DlModule parent_instance;
  gint64 kernel[2], stride[2], padding[2];
  gboolean ceil_mode, count_include_pad;
  gint64 divisor_override;
};

/**
 * DlAvgPool2dClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlAvgPool2d. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAvgPool2d, dl_avg_pool2d_layer, DL_TYPE_MODULE)

#define AP(f) G_STRUCT_OFFSET (DlAvgPool2d, f)
static const DlLayerProp avg_pool_props[] = {
  /**
   * DlAvgPool2d:kernel-height:
   *
   * The window's height (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-height", G_TYPE_INT64, AP (kernel[0]), UNSET },
  /**
   * DlAvgPool2d:kernel-width:
   *
   * The window's width (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-width", G_TYPE_INT64, AP (kernel[1]), UNSET },
  /**
   * DlAvgPool2d:stride-height:
   *
   * The window's vertical step; 0 (default): the kernel height.
   *
   * Since: 0.1
   */
  { "stride-height", G_TYPE_INT64, AP (stride[0]), 0 },
  /**
   * DlAvgPool2d:stride-width:
   *
   * The window's horizontal step; 0 (default): the kernel width.
   *
   * Since: 0.1
   */
  { "stride-width", G_TYPE_INT64, AP (stride[1]), 0 },
  /**
   * DlAvgPool2d:padding-height:
   *
   * Implicit zero rows above and below (default 0).
   *
   * Since: 0.1
   */
  { "padding-height", G_TYPE_INT64, AP (padding[0]), 0 },
  /**
   * DlAvgPool2d:padding-width:
   *
   * Implicit zero columns left and right (default 0).
   *
   * Since: 0.1
   */
  { "padding-width", G_TYPE_INT64, AP (padding[1]), 0 },
  /**
   * DlAvgPool2d:ceil-mode:
   *
   * Whether a last window that only partly covers the input counts
   * (default %FALSE).
   *
   * Since: 0.1
   */
  { "ceil-mode", G_TYPE_BOOLEAN, AP (ceil_mode), FALSE },
  /**
   * DlAvgPool2d:count-include-pad:
   *
   * Whether the padding counts in each window's divisor (default %TRUE).
   *
   * Since: 0.1
   */
  { "count-include-pad", G_TYPE_BOOLEAN, AP (count_include_pad), TRUE },
  /**
   * DlAvgPool2d:divisor-override:
   *
   * The divisor of every window; 0 (default): the window's size.
   *
   * Since: 0.1
   */
  { "divisor-override", G_TYPE_INT64, AP (divisor_override), 0 },
};

static DlTensor *
avg_pool_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlAvgPool2d *self = DL_AVG_POOL2D (module);
  gint64 stride[2];

  return dl_avg_pool2d (input, self->kernel,
                        effective_stride (self->stride, self->kernel, 2, stride), self->padding,
                        self->ceil_mode, self->count_include_pad, self->divisor_override, error);
}

static void
avg_pool_constructed (GObject *object)
{
  DlAvgPool2d *self = DL_AVG_POOL2D (object);
  static const gchar *const names[] = { "kernel_height", "kernel_width",   "stride_height",
                                        "stride_width",  "padding_height", "padding_width",
                                        "divisor_override" };
  const gint64 values[] = { self->kernel[0],  self->kernel[1],  self->stride[0],
                            self->stride[1],  self->padding[0], self->padding[1],
                            self->divisor_override };
  GError *error = NULL;

  G_OBJECT_CLASS (dl_avg_pool2d_layer_parent_class)->constructed (object);
  if (!check_values ("AvgPool2d", names, values, (gint64[]){ 1, 1, 0, 0, 0, 0, 0 }, 7, &error))
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_avg_pool2d_layer_class_init (DlAvgPool2dClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = avg_pool_constructed;
  DL_MODULE_CLASS (klass)->forward = avg_pool_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), avg_pool_props, G_N_ELEMENTS (avg_pool_props));
}

static void
dl_avg_pool2d_layer_init (DlAvgPool2d *self)
{
  dl_layer_props_init (self, avg_pool_props, G_N_ELEMENTS (avg_pool_props));
}

/**
 * dl_avg_pool2d_layer_new:
 * @kernel_size: (array fixed-size=2): the window's height and width
 * @stride: (array fixed-size=2) (nullable): its step (%NULL: the kernel
 *   size)
 * @padding: (array fixed-size=2) (nullable): zero padding (%NULL: none)
 * @ceil_mode: whether a partly covering last window counts
 * @count_include_pad: whether the padding counts in the divisor
 * @divisor_override: the divisor of every window, 0 for the window's size
 * @error: return location for a #GError
 *
 * A #DlAvgPool2d (g_initable_new() with the properties).
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlAvgPool2d *
dl_avg_pool2d_layer_new (const gint64 *kernel_size,
                         const gint64 *stride,
                         const gint64 *padding,
                         gboolean ceil_mode,
                         gboolean count_include_pad,
                         gint64 divisor_override,
                         GError **error)
{
  static const gint64 zero[2] = { 0, 0 };

  g_return_val_if_fail (kernel_size != NULL, NULL);
  stride = stride ? stride : zero;
  padding = padding ? padding : zero;
  return g_initable_new (DL_TYPE_AVG_POOL2D, NULL, error, "kernel-height", kernel_size[0],
                         "kernel-width", kernel_size[1], "stride-height", stride[0],
                         "stride-width", stride[1], "padding-height", padding[0],
                         "padding-width", padding[1], "ceil-mode", ceil_mode, "count-include-pad",
                         count_include_pad, "divisor-override", divisor_override, NULL);
}

/* ---- AdaptiveAvgPool2d ---------------------------------------------------- */

/**
 * DlAdaptiveAvgPool2d:
 *
 * Adaptive average pooling to a fixed output size, as
 * torch.nn.AdaptiveAvgPool2d: dl_adaptive_avg_pool2d(). A size of -1 keeps
 * the input's (PyTorch's None).
 *
 * Since: 0.1
 */
struct _DlAdaptiveAvgPool2d
{
  DlModule parent_instance;
  gint64 output[2];
};

/**
 * DlAdaptiveAvgPool2dClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlAdaptiveAvgPool2d. The type is final: its class
 * adds no virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAdaptiveAvgPool2d, dl_adaptive_avg_pool2d_layer, DL_TYPE_MODULE)

static const DlLayerProp adaptive_props[] = {
  /**
   * DlAdaptiveAvgPool2d:output-height:
   *
   * The output's height; -1: the input's.
   *
   * Since: 0.1
   */
  { "output-height", G_TYPE_INT64, G_STRUCT_OFFSET (DlAdaptiveAvgPool2d, output[0]), UNSET },
  /**
   * DlAdaptiveAvgPool2d:output-width:
   *
   * The output's width; -1: the input's.
   *
   * Since: 0.1
   */
  { "output-width", G_TYPE_INT64, G_STRUCT_OFFSET (DlAdaptiveAvgPool2d, output[1]), UNSET },
};

static DlTensor *
adaptive_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlAdaptiveAvgPool2d *self = DL_ADAPTIVE_AVG_POOL2D (module);
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (input, &nd);
  gint64 out[2];

  for (gint i = 0; i < 2; i++)
    out[i] = self->output[i] >= 0 || nd < 2 ? self->output[i] : shape[nd - 2 + i];
  return dl_adaptive_avg_pool2d (input, out, error);
}

static void
adaptive_constructed (GObject *object)
{
  DlAdaptiveAvgPool2d *self = DL_ADAPTIVE_AVG_POOL2D (object);
  static const gchar *const names[] = { "output_height", "output_width" };
  GError *error = NULL;

  G_OBJECT_CLASS (dl_adaptive_avg_pool2d_layer_parent_class)->constructed (object);
  if (!check_values ("AdaptiveAvgPool2d", names, self->output, (gint64[]){ -1, -1 }, 2, &error))
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_adaptive_avg_pool2d_layer_class_init (DlAdaptiveAvgPool2dClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = adaptive_constructed;
  DL_MODULE_CLASS (klass)->forward = adaptive_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), adaptive_props, G_N_ELEMENTS (adaptive_props));
}

static void
dl_adaptive_avg_pool2d_layer_init (DlAdaptiveAvgPool2d *self)
{
  dl_layer_props_init (self, adaptive_props, G_N_ELEMENTS (adaptive_props));
}

/**
 * dl_adaptive_avg_pool2d_layer_new:
 * @output_height: the output's height, -1 for the input's
 * @output_width: the output's width, -1 for the input's
 * @error: return location for a #GError
 *
 * A #DlAdaptiveAvgPool2d (g_initable_new() with the properties).
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlAdaptiveAvgPool2d *
dl_adaptive_avg_pool2d_layer_new (gint64 output_height, gint64 output_width, GError **error)
{
  return g_initable_new (DL_TYPE_ADAPTIVE_AVG_POOL2D, NULL, error, "output-height", output_height,
                         "output-width", output_width, NULL);
}

/* ---- Dropout -------------------------------------------------------------- */

/**
 * DlDropout:
 *
 * Dropout, as torch.nn.Dropout: in training mode (#DlModule:training),
 * dl_dropout() with probability #DlDropout:p from the default generator;
 * in evaluation mode, the input itself.
 *
 * Since: 0.1
 */
struct _DlDropout
{
  DlModule parent_instance;
  gdouble p;
  gboolean inplace;
};

/**
 * DlDropoutClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlDropout. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlDropout, dl_dropout_layer, DL_TYPE_MODULE)

static const DlLayerProp dropout_props[] = {
  /**
   * DlDropout:p:
   *
   * The probability of zeroing an element, in [0, 1] (default 0.5);
   * settable after construction, as torch.nn.Dropout's p.
   *
   * Since: 0.1
   */
  { "p", G_TYPE_DOUBLE, G_STRUCT_OFFSET (DlDropout, p), 0.5, TRUE },
  /**
   * DlDropout:inplace:
   *
   * Whether forward overwrites its input in training (default %FALSE).
   *
   * Since: 0.1
   */
  { "inplace", G_TYPE_BOOLEAN, G_STRUCT_OFFSET (DlDropout, inplace), FALSE, TRUE },
};

static DlTensor *
dropout_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlDropout *self = DL_DROPOUT (module);
  g_autoptr (DlTensor) out
      = dl_dropout (input, self->p, dl_module_get_training (module), NULL, error);

  if (out == NULL || !self->inplace || out == input)
    return g_steal_pointer (&out);
  return dl_tensor_copy_ (input, out, error) ? g_object_ref (input) : NULL;
}

static void
dropout_constructed (GObject *object)
{
  DlDropout *self = DL_DROPOUT (object);

  G_OBJECT_CLASS (dl_dropout_layer_parent_class)->constructed (object);
  if (!(self->p >= 0 && self->p <= 1))
    dl_module_take_construct_error (
        DL_MODULE (self),
        g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                     "Dropout: dropout probability has to be between 0 and 1, but got %g",
                     self->p));
}

static void
dl_dropout_layer_class_init (DlDropoutClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dropout_constructed;
  DL_MODULE_CLASS (klass)->forward = dropout_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), dropout_props, G_N_ELEMENTS (dropout_props));
}

static void
dl_dropout_layer_init (DlDropout *self)
{
  dl_layer_props_init (self, dropout_props, G_N_ELEMENTS (dropout_props));
}

/**
 * dl_dropout_layer_new:
 * @p: the probability of zeroing an element
 * @inplace: whether forward overwrites its input
 * @error: return location for a #GError
 *
 * A #DlDropout (g_initable_new() with the properties).
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlDropout *
dl_dropout_layer_new (gdouble p, gboolean inplace, GError **error)
{
  return g_initable_new (DL_TYPE_DROPOUT, NULL, error, "p", p, "inplace", inplace, NULL);
}

/* ---- MaxPool3d and AvgPool3d ---------------------------------------------- */

/* the names of the 3-d windows' construct properties, in the tables' order */
static const gchar *const window3d_names[]
    = { "kernel_depth",  "kernel_height",  "kernel_width",    "stride_depth",
        "stride_height", "stride_width",   "padding_depth",   "padding_height",
        "padding_width", "dilation_depth", "dilation_height", "dilation_width" };

/* Checks the @n values of a 3-d window (kernel, stride, padding and, for
 * @n 12, dilation, 3 each) of @layer, the error becoming its construct
 * error. */
static void
check_window3d (DlModule *layer, const gchar *name, const gint64 *values, guint n)
{
  static const gint64 mins[] = { 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1 };
  GError *error = NULL;

  if (!check_values (name, window3d_names, values, mins, n, &error))
    dl_module_take_construct_error (layer, error);
}

/**
 * DlMaxPool3d:
 *
 * Max pooling over the last three dims, as torch.nn.MaxPool3d:
 * dl_max_pool3d() with the layer's window. A stride of 0 (the default) is
 * the kernel size. In GJS, `new Dl.MaxPool3d({kernel_depth: 2,
 * kernel_height: 2, kernel_width: 2})`.
 *
 * Since: 0.1
 */
struct _DlMaxPool3d
{
  DlModule parent_instance;
  gint64 kernel[3], stride[3], padding[3], dilation[3];
  gboolean ceil_mode;
};

/**
 * DlMaxPool3dClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlMaxPool3d. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlMaxPool3d, dl_max_pool3d_layer, DL_TYPE_MODULE)

#define M3(f) G_STRUCT_OFFSET (DlMaxPool3d, f)
static const DlLayerProp max_pool3d_props[] = {
  /**
   * DlMaxPool3d:kernel-depth:
   *
   * The window's depth (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-depth", G_TYPE_INT64, M3 (kernel[0]), UNSET },
  /**
   * DlMaxPool3d:kernel-height:
   *
   * The window's height (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-height", G_TYPE_INT64, M3 (kernel[1]), UNSET },
  /**
   * DlMaxPool3d:kernel-width:
   *
   * The window's width (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-width", G_TYPE_INT64, M3 (kernel[2]), UNSET },
  /**
   * DlMaxPool3d:stride-depth:
   *
   * The window's step along the depth; 0 (default): the kernel's depth.
   *
   * Since: 0.1
   */
  { "stride-depth", G_TYPE_INT64, M3 (stride[0]), 0 },
  /**
   * DlMaxPool3d:stride-height:
   *
   * The window's step along the height; 0 (default): the kernel's height.
   *
   * Since: 0.1
   */
  { "stride-height", G_TYPE_INT64, M3 (stride[1]), 0 },
  /**
   * DlMaxPool3d:stride-width:
   *
   * The window's step along the width; 0 (default): the kernel's width.
   *
   * Since: 0.1
   */
  { "stride-width", G_TYPE_INT64, M3 (stride[2]), 0 },
  /**
   * DlMaxPool3d:padding-depth:
   *
   * Implicit -inf on both sides along the depth (default 0).
   *
   * Since: 0.1
   */
  { "padding-depth", G_TYPE_INT64, M3 (padding[0]), 0 },
  /**
   * DlMaxPool3d:padding-height:
   *
   * Implicit -inf on both sides along the height (default 0).
   *
   * Since: 0.1
   */
  { "padding-height", G_TYPE_INT64, M3 (padding[1]), 0 },
  /**
   * DlMaxPool3d:padding-width:
   *
   * Implicit -inf on both sides along the width (default 0).
   *
   * Since: 0.1
   */
  { "padding-width", G_TYPE_INT64, M3 (padding[2]), 0 },
  /**
   * DlMaxPool3d:dilation-depth:
   *
   * The spacing of the window's taps along the depth (default 1).
   *
   * Since: 0.1
   */
  { "dilation-depth", G_TYPE_INT64, M3 (dilation[0]), 1 },
  /**
   * DlMaxPool3d:dilation-height:
   *
   * The spacing of the window's taps along the height (default 1).
   *
   * Since: 0.1
   */
  { "dilation-height", G_TYPE_INT64, M3 (dilation[1]), 1 },
  /**
   * DlMaxPool3d:dilation-width:
   *
   * The spacing of the window's taps along the width (default 1).
   *
   * Since: 0.1
   */
  { "dilation-width", G_TYPE_INT64, M3 (dilation[2]), 1 },
  /**
   * DlMaxPool3d:ceil-mode:
   *
   * Whether a last window that only partly covers the input counts
   * (default %FALSE).
   *
   * Since: 0.1
   */
  { "ceil-mode", G_TYPE_BOOLEAN, M3 (ceil_mode), FALSE },
};

static DlTensor *
max_pool3d_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlMaxPool3d *self = DL_MAX_POOL3D (module);
  gint64 stride[3];

  return dl_max_pool3d (input, self->kernel,
                        effective_stride (self->stride, self->kernel, 3, stride), self->padding,
                        self->dilation, self->ceil_mode, NULL, error);
}

static void
max_pool3d_constructed (GObject *object)
{
  DlMaxPool3d *self = DL_MAX_POOL3D (object);
  gint64 values[12];

  G_OBJECT_CLASS (dl_max_pool3d_layer_parent_class)->constructed (object);
  memcpy (values, self->kernel, sizeof self->kernel);
  memcpy (values + 3, self->stride, sizeof self->stride);
  memcpy (values + 6, self->padding, sizeof self->padding);
  memcpy (values + 9, self->dilation, sizeof self->dilation);
  check_window3d (DL_MODULE (self), "MaxPool3d", values, 12);
}

static void
dl_max_pool3d_layer_class_init (DlMaxPool3dClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = max_pool3d_constructed;
  DL_MODULE_CLASS (klass)->forward = max_pool3d_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), max_pool3d_props,
                          G_N_ELEMENTS (max_pool3d_props));
}

static void
dl_max_pool3d_layer_init (DlMaxPool3d *self)
{
  dl_layer_props_init (self, max_pool3d_props, G_N_ELEMENTS (max_pool3d_props));
}

/**
 * DlAvgPool3d:
 *
 * Average pooling over the last three dims, as torch.nn.AvgPool3d:
 * dl_avg_pool3d() with the layer's window. A stride of 0 (the default) is
 * the kernel size.
 *
 * Since: 0.1
 */
struct _DlAvgPool3d
{
  DlModule parent_instance;
  gint64 kernel[3], stride[3], padding[3];
  gboolean ceil_mode, count_include_pad;
  gint64 divisor_override;
};

/**
 * DlAvgPool3dClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlAvgPool3d. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAvgPool3d, dl_avg_pool3d_layer, DL_TYPE_MODULE)

#define A3(f) G_STRUCT_OFFSET (DlAvgPool3d, f)
static const DlLayerProp avg_pool3d_props[] = {
  /**
   * DlAvgPool3d:kernel-depth:
   *
   * The window's depth (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-depth", G_TYPE_INT64, A3 (kernel[0]), UNSET },
  /**
   * DlAvgPool3d:kernel-height:
   *
   * The window's height (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-height", G_TYPE_INT64, A3 (kernel[1]), UNSET },
  /**
   * DlAvgPool3d:kernel-width:
   *
   * The window's width (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-width", G_TYPE_INT64, A3 (kernel[2]), UNSET },
  /**
   * DlAvgPool3d:stride-depth:
   *
   * The window's step along the depth; 0 (default): the kernel's depth.
   *
   * Since: 0.1
   */
  { "stride-depth", G_TYPE_INT64, A3 (stride[0]), 0 },
  /**
   * DlAvgPool3d:stride-height:
   *
   * The window's step along the height; 0 (default): the kernel's height.
   *
   * Since: 0.1
   */
  { "stride-height", G_TYPE_INT64, A3 (stride[1]), 0 },
  /**
   * DlAvgPool3d:stride-width:
   *
   * The window's step along the width; 0 (default): the kernel's width.
   *
   * Since: 0.1
   */
  { "stride-width", G_TYPE_INT64, A3 (stride[2]), 0 },
  /**
   * DlAvgPool3d:padding-depth:
   *
   * Implicit zeros on both sides along the depth (default 0).
   *
   * Since: 0.1
   */
  { "padding-depth", G_TYPE_INT64, A3 (padding[0]), 0 },
  /**
   * DlAvgPool3d:padding-height:
   *
   * Implicit zeros on both sides along the height (default 0).
   *
   * Since: 0.1
   */
  { "padding-height", G_TYPE_INT64, A3 (padding[1]), 0 },
  /**
   * DlAvgPool3d:padding-width:
   *
   * Implicit zeros on both sides along the width (default 0).
   *
   * Since: 0.1
   */
  { "padding-width", G_TYPE_INT64, A3 (padding[2]), 0 },
  /**
   * DlAvgPool3d:ceil-mode:
   *
   * Whether a last window that only partly covers the input counts
   * (default %FALSE).
   *
   * Since: 0.1
   */
  { "ceil-mode", G_TYPE_BOOLEAN, A3 (ceil_mode), FALSE },
  /**
   * DlAvgPool3d:count-include-pad:
   *
   * Whether the padding counts in each window's divisor (default %TRUE).
   *
   * Since: 0.1
   */
  { "count-include-pad", G_TYPE_BOOLEAN, A3 (count_include_pad), TRUE },
  /**
   * DlAvgPool3d:divisor-override:
   *
   * The divisor of every window; 0 (default): the window's size.
   *
   * Since: 0.1
   */
  { "divisor-override", G_TYPE_INT64, A3 (divisor_override), 0 },
};

static DlTensor *
avg_pool3d_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlAvgPool3d *self = DL_AVG_POOL3D (module);
  gint64 stride[3];

  return dl_avg_pool3d (input, self->kernel,
                        effective_stride (self->stride, self->kernel, 3, stride), self->padding,
                        self->ceil_mode, self->count_include_pad, self->divisor_override, error);
}

static void
avg_pool3d_constructed (GObject *object)
{
  DlAvgPool3d *self = DL_AVG_POOL3D (object);
  gint64 values[9];
  GError *error = NULL;

  G_OBJECT_CLASS (dl_avg_pool3d_layer_parent_class)->constructed (object);
  memcpy (values, self->kernel, sizeof self->kernel);
  memcpy (values + 3, self->stride, sizeof self->stride);
  memcpy (values + 6, self->padding, sizeof self->padding);
  check_window3d (DL_MODULE (self), "AvgPool3d", values, 9);
  if (self->divisor_override < 0
      && !check_values ("AvgPool3d", (const gchar *const[]){ "divisor_override" },
                        &self->divisor_override, (gint64[]){ 0 }, 1, &error))
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
dl_avg_pool3d_layer_class_init (DlAvgPool3dClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = avg_pool3d_constructed;
  DL_MODULE_CLASS (klass)->forward = avg_pool3d_forward;
  dl_layer_props_install (G_OBJECT_CLASS (klass), avg_pool3d_props,
                          G_N_ELEMENTS (avg_pool3d_props));
}

static void
dl_avg_pool3d_layer_init (DlAvgPool3d *self)
{
  dl_layer_props_init (self, avg_pool3d_props, G_N_ELEMENTS (avg_pool3d_props));
}
