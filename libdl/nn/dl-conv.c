/* dl-conv.c: DlConv2d, with PyTorch's default initialisation: weight and
 * bias uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)], fan_in = in_channels
 * / groups * kh * kw (kaiming_uniform_ with a = sqrt(5) gives that bound
 * for the weight).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-conv.h"
#include "dl-error.h"
#include "dl-module-private.h"
#include "dl-layer-props-private.h"
#include "ops/dl-ops-conv.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-resample.h"
#include "dl-enums.h"

/**
 * DlConv2d:
 *
 * A 2-d convolution over an image batch [N, C, H, W] (or one image [C, H,
 * W]), as torch.nn.Conv2d: see dl_conv2d(). Its parameters are "weight"
 * [out_channels, in_channels / groups, kh, kw] and "bias" [out_channels],
 * initialised as PyTorch does, in #DlModule:dtype (the default dtype
 * unless given).
 *
 * Build it from its construct properties (#DlConv2d:in-channels,
 * #DlConv2d:out-channels and #DlConv2d:kernel-height /
 * #DlConv2d:kernel-width are required; the rest have PyTorch's defaults)
 * in any language (`new Dl.Conv2d({in_channels: 3, out_channels: 8,
 * kernel_height: 3, kernel_width: 3})` in GJS), or with
 * dl_conv2d_layer_new(). A bad value is an error from g_initable_init()
 * and from forward; see #DlModule.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 in_channels, out_channels;
  gint64 kernel[2], stride[2], padding[2], dilation[2];
  gint64 groups;
  gboolean bias;
  DlPadMode padding_mode;
} DlConv2dPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlConv2d, dl_conv2d_layer, DL_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_IN_CHANNELS,
  PROP_OUT_CHANNELS,
  PROP_KERNEL_HEIGHT,
  PROP_KERNEL_WIDTH,
  PROP_STRIDE_HEIGHT,
  PROP_STRIDE_WIDTH,
  PROP_PADDING_HEIGHT,
  PROP_PADDING_WIDTH,
  PROP_DILATION_HEIGHT,
  PROP_DILATION_WIDTH,
  PROP_GROUPS,
  PROP_BIAS,
  PROP_PADDING_MODE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define SIZE_UNSET (-1)

static DlConv2dPrivate *
get_priv (gpointer self)
{
  return dl_conv2d_layer_get_instance_private (DL_CONV2D (self));
}

static DlTensor *
dl_conv2d_layer_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlConv2dPrivate *priv = get_priv (module);
  DlTensor *w = dl_module_get_parameter (module, "weight");

  if (w == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "Conv2d: the layer has no weight");
      return NULL;
    }
  if (priv->padding_mode != DL_PAD_CONSTANT && (priv->padding[0] || priv->padding[1]))
    {
      /* PyTorch's padding modes: the input padded, then no padding */
      const gint64 pad[4]
          = { priv->padding[1], priv->padding[1], priv->padding[0], priv->padding[0] };
      g_autoptr (DlTensor) padded = dl_pad (input, pad, 4, priv->padding_mode, 0, error);

      return padded ? dl_conv2d (padded, w, dl_module_get_parameter (module, "bias"), priv->stride,
                                 (gint64[]){ 0, 0 }, priv->dilation, priv->groups, error)
                    : NULL;
    }
  return dl_conv2d (input, w, dl_module_get_parameter (module, "bias"), priv->stride,
                    priv->padding, priv->dilation, priv->groups, error);
}

/* @value (named @name) at least @min, and given when it has no default */
static gboolean
check_layer_value (const gchar *layer, const gchar *name, gint64 value, gint64 min, GError **error)
{
  if (value == SIZE_UNSET && min >= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %s is missing: give a value >= %" G_GINT64_FORMAT, layer, name, min);
      return FALSE;
    }
  if (value < min)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %s must be >= %" G_GINT64_FORMAT ", got %" G_GINT64_FORMAT, layer, name,
                   min, value);
      return FALSE;
    }
  return TRUE;
}

#define check_value(name, value, min, error) check_layer_value ("Conv2d", name, value, min, error)

/* the channel counts and groups of a convolution layer @layer */
static gboolean
check_groups (const gchar *layer, gint64 in, gint64 out, gint64 groups, GError **error)
{
  if (!check_layer_value (layer, "in_channels", in, 0, error)
      || !check_layer_value (layer, "out_channels", out, 0, error)
      || !check_layer_value (layer, "groups", groups, 1, error))
    return FALSE;
  if (in % groups != 0 || out % groups != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s must be divisible by groups", layer,
                   in % groups != 0 ? "in_channels" : "out_channels");
      return FALSE;
    }
  return TRUE;
}

/* the layer's "weight" of @shape and its "bias" of @out elements (when
 * @bias), uniform in +-1 / sqrt(fan_in) as PyTorch initialises them */
static void
add_conv_parameters (DlModule *module,
                     const gint64 *shape,
                     gsize n_dims,
                     gint64 fan_in,
                     gint64 out,
                     gboolean bias)
{
  const gdouble bound = fan_in > 0 ? 1.0 / sqrt ((gdouble)fan_in) : 0;
  GError *error = NULL;

  if (!dl_module_add_uniform_parameter (module, "weight", shape, n_dims, bound, &error)
      || (bias && !dl_module_add_uniform_parameter (module, "bias", &out, 1, bound, &error)))
    dl_module_take_construct_error (module, error);
}

static gboolean
check_properties (DlConv2dPrivate *p, GError **error)
{
  return check_value ("kernel_height", p->kernel[0], 1, error)
         && check_value ("kernel_width", p->kernel[1], 1, error)
         && check_value ("stride_height", p->stride[0], 1, error)
         && check_value ("stride_width", p->stride[1], 1, error)
         && check_value ("padding_height", p->padding[0], 0, error)
         && check_value ("padding_width", p->padding[1], 0, error)
         && check_value ("dilation_height", p->dilation[0], 1, error)
         && check_value ("dilation_width", p->dilation[1], 1, error)
         && check_groups ("Conv2d", p->in_channels, p->out_channels, p->groups, error);
}

static void
dl_conv2d_layer_constructed (GObject *object)
{
  DlConv2dPrivate *p = get_priv (object);
  GError *error = NULL;
  gint64 fan_in;

  G_OBJECT_CLASS (dl_conv2d_layer_parent_class)->constructed (object);
  if (!check_properties (p, &error))
    {
      dl_module_take_construct_error (DL_MODULE (object), error);
      return;
    }
  fan_in = p->in_channels / p->groups * p->kernel[0] * p->kernel[1];
  add_conv_parameters (
      DL_MODULE (object),
      (gint64[]){ p->out_channels, p->in_channels / p->groups, p->kernel[0], p->kernel[1] }, 4,
      fan_in, p->out_channels, p->bias);
}

static gint64 *
property_field (DlConv2dPrivate *p, guint prop_id)
{
  switch (prop_id)
    {
      case PROP_IN_CHANNELS:
        return &p->in_channels;
      case PROP_OUT_CHANNELS:
        return &p->out_channels;
      case PROP_KERNEL_HEIGHT:
      case PROP_KERNEL_WIDTH:
        return &p->kernel[prop_id - PROP_KERNEL_HEIGHT];
      case PROP_STRIDE_HEIGHT:
      case PROP_STRIDE_WIDTH:
        return &p->stride[prop_id - PROP_STRIDE_HEIGHT];
      case PROP_PADDING_HEIGHT:
      case PROP_PADDING_WIDTH:
        return &p->padding[prop_id - PROP_PADDING_HEIGHT];
      case PROP_DILATION_HEIGHT:
      case PROP_DILATION_WIDTH:
        return &p->dilation[prop_id - PROP_DILATION_HEIGHT];
      case PROP_GROUPS:
        return &p->groups;
      default:
        return NULL;
    }
}

static void
dl_conv2d_layer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlConv2dPrivate *p = get_priv (object);
  gint64 *field = property_field (p, prop_id);

  if (field)
    g_value_set_int64 (value, *field);
  else if (prop_id == PROP_BIAS)
    g_value_set_boolean (value, dl_module_get_parameter (DL_MODULE (object), "bias") != NULL);
  else if (prop_id == PROP_PADDING_MODE)
    g_value_set_enum (value, p->padding_mode);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
dl_conv2d_layer_set_property (GObject *object,
                              guint prop_id,
                              const GValue *value,
                              GParamSpec *pspec)
{
  DlConv2dPrivate *p = get_priv (object);
  gint64 *field = property_field (p, prop_id);

  if (field)
    {
      if (*field != g_value_get_int64 (value))
        {
          *field = g_value_get_int64 (value);
          g_object_notify_by_pspec (object, pspec);
        }
    }
  else if (prop_id == PROP_BIAS)
    p->bias = g_value_get_boolean (value);
  else if (prop_id == PROP_PADDING_MODE)
    p->padding_mode = g_value_get_enum (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static GParamSpec *
size_property (const gchar *name, gint64 default_value)
{
  /* every gint64 is accepted, so that a bad value reaches constructed()
   * and becomes a GError (a range would only print a warning) */
  return g_param_spec_int64 (name, NULL, NULL, G_MININT64, G_MAXINT64, default_value,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                 | G_PARAM_EXPLICIT_NOTIFY);
}

static void
dl_conv2d_layer_class_init (DlConv2dClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_conv2d_layer_constructed;
  object_class->get_property = dl_conv2d_layer_get_property;
  object_class->set_property = dl_conv2d_layer_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_conv2d_layer_forward;

  /**
   * DlConv2d:in-channels:
   *
   * The number of channels of the input (required, >= 0). Writable after
   * construction, as torch's attribute: the weight keeps its size (a lazy
   * layer sets it with the weight it makes).
   *
   * Since: 0.1
   */
  properties[PROP_IN_CHANNELS] = g_param_spec_int64 (
      "in-channels", NULL, NULL, G_MININT64, G_MAXINT64, SIZE_UNSET,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlConv2d:out-channels:
   *
   * The number of channels of the output, one filter each (required).
   *
   * Since: 0.1
   */
  properties[PROP_OUT_CHANNELS] = size_property ("out-channels", SIZE_UNSET);
  /**
   * DlConv2d:kernel-height:
   *
   * The filters' height (required, >= 1).
   *
   * Since: 0.1
   */
  properties[PROP_KERNEL_HEIGHT] = size_property ("kernel-height", SIZE_UNSET);
  /**
   * DlConv2d:kernel-width:
   *
   * The filters' width (required, >= 1).
   *
   * Since: 0.1
   */
  properties[PROP_KERNEL_WIDTH] = size_property ("kernel-width", SIZE_UNSET);
  /**
   * DlConv2d:stride-height:
   *
   * The filters' vertical step (default 1).
   *
   * Since: 0.1
   */
  properties[PROP_STRIDE_HEIGHT] = size_property ("stride-height", 1);
  /**
   * DlConv2d:stride-width:
   *
   * The filters' horizontal step (default 1).
   *
   * Since: 0.1
   */
  properties[PROP_STRIDE_WIDTH] = size_property ("stride-width", 1);
  /**
   * DlConv2d:padding-height:
   *
   * Rows of zeros added above and below (default 0).
   *
   * Since: 0.1
   */
  properties[PROP_PADDING_HEIGHT] = size_property ("padding-height", 0);
  /**
   * DlConv2d:padding-width:
   *
   * Columns of zeros added left and right (default 0).
   *
   * Since: 0.1
   */
  properties[PROP_PADDING_WIDTH] = size_property ("padding-width", 0);
  /**
   * DlConv2d:dilation-height:
   *
   * The vertical spacing of the filters' taps (default 1).
   *
   * Since: 0.1
   */
  properties[PROP_DILATION_HEIGHT] = size_property ("dilation-height", 1);
  /**
   * DlConv2d:dilation-width:
   *
   * The horizontal spacing of the filters' taps (default 1).
   *
   * Since: 0.1
   */
  properties[PROP_DILATION_WIDTH] = size_property ("dilation-width", 1);
  /**
   * DlConv2d:groups:
   *
   * The number of groups the channels are split into; it divides both
   * channel counts (default 1).
   *
   * Since: 0.1
   */
  properties[PROP_GROUPS] = size_property ("groups", 1);
  /**
   * DlConv2d:bias:
   *
   * Whether the layer learns an additive bias per output channel. Read
   * back, whether it has a "bias" parameter.
   *
   * Since: 0.1
   */
  properties[PROP_BIAS]
      = g_param_spec_boolean ("bias", NULL, NULL, TRUE,
                              G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                  | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlConv2d:padding-mode:
   *
   * How the padding is filled: %DL_PAD_CONSTANT for PyTorch's 'zeros'
   * (the default), or %DL_PAD_REFLECT, %DL_PAD_REPLICATE, %DL_PAD_CIRCULAR
   * (the input is padded with dl_pad() before the convolution).
   *
   * Since: 0.1
   */
  properties[PROP_PADDING_MODE]
      = g_param_spec_enum ("padding-mode", NULL, NULL, DL_TYPE_PAD_MODE, DL_PAD_CONSTANT,
                           G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                               | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_conv2d_layer_init (DlConv2d *self)
{
  DlConv2dPrivate *p = get_priv (self);

  p->in_channels = p->out_channels = SIZE_UNSET;
  p->kernel[0] = p->kernel[1] = SIZE_UNSET;
  p->stride[0] = p->stride[1] = 1;
  p->dilation[0] = p->dilation[1] = 1;
  p->groups = 1;
  p->bias = TRUE;
}

/**
 * dl_conv2d_layer_new:
 * @in_channels: the number of input channels
 * @out_channels: the number of output channels
 * @kernel_size: (array fixed-size=2): the filters' height and width
 * @stride: (array fixed-size=2) (nullable): the step, or %NULL for 1
 * @padding: (array fixed-size=2) (nullable): the zero padding, or %NULL
 *   for none
 * @dilation: (array fixed-size=2) (nullable): the taps' spacing, or %NULL
 *   for 1
 * @groups: the number of channel groups
 * @bias: whether to learn a bias
 * @error: return location for a #GError
 *
 * Creates a layer from its construct properties and checks them
 * (g_initable_new()).
 *
 * Returns: (transfer full): a new layer with PyTorch's default
 *   initialisation, or %NULL with @error set for bad values
 *
 * Since: 0.1
 */
DlConv2d *
dl_conv2d_layer_new (gint64 in_channels,
                     gint64 out_channels,
                     const gint64 *kernel_size,
                     const gint64 *stride,
                     const gint64 *padding,
                     const gint64 *dilation,
                     gint64 groups,
                     gboolean bias,
                     GError **error)
{
  static const gint64 ones[2] = { 1, 1 }, zeros[2] = { 0, 0 };

  g_return_val_if_fail (kernel_size != NULL, NULL);
  stride = stride ? stride : ones;
  padding = padding ? padding : zeros;
  dilation = dilation ? dilation : ones;
  return g_initable_new (DL_TYPE_CONV2D, NULL, error, "in-channels", in_channels, "out-channels",
                         out_channels, "kernel-height", kernel_size[0], "kernel-width",
                         kernel_size[1], "stride-height", stride[0], "stride-width", stride[1],
                         "padding-height", padding[0], "padding-width", padding[1],
                         "dilation-height", dilation[0], "dilation-width", dilation[1], "groups",
                         groups, "bias", bias, NULL);
}

/* ---- Conv1d ----------------------------------------------------------------- */

/**
 * DlConv1d:
 *
 * A 1-d convolution over a batch of sequences [N, C, L] (or one sequence
 * [C, L]), as torch.nn.Conv1d: see dl_conv1d(). Its parameters are
 * "weight" [out_channels, in_channels / groups, kernel_size] and "bias"
 * [out_channels], initialised as PyTorch does, in #DlModule:dtype (the
 * default dtype unless given).
 *
 * Build it from its construct properties (#DlConv1d:in-channels,
 * #DlConv1d:out-channels and #DlConv1d:kernel-size are required; stride 1,
 * padding 0, dilation 1, groups 1 and a bias are PyTorch's defaults) in
 * any language, or with dl_conv1d_layer_new(). A bad value is an error
 * from g_initable_init() and from forward; see #DlModule.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 in_channels, out_channels, kernel, stride, padding, dilation, groups;
  gboolean bias;
  gint padding_mode;
} DlConv1dPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlConv1d, dl_conv1d_layer, DL_TYPE_MODULE)

#define C1(f) G_STRUCT_OFFSET (DlConv1dPrivate, f)
/* offsets from the private struct: made instance offsets in class_init */
static DlLayerProp conv1d_props[] = {
  /**
   * DlConv1d:in-channels:
   *
   * The number of input channels (required, >= 0). Writable after
   * construction, as torch's attribute: the weight keeps its size (a
   * lazy layer sets it with the weight it makes).
   *
   * Since: 0.1
   */
  { "in-channels", G_TYPE_INT64, C1 (in_channels), SIZE_UNSET, TRUE },
  /**
   * DlConv1d:out-channels:
   *
   * The number of output channels (required, >= 0).
   *
   * Since: 0.1
   */
  { "out-channels", G_TYPE_INT64, C1 (out_channels), SIZE_UNSET },
  /**
   * DlConv1d:kernel-size:
   *
   * The filters' length (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-size", G_TYPE_INT64, C1 (kernel), SIZE_UNSET },
  /**
   * DlConv1d:stride:
   *
   * The filters' step (default 1).
   *
   * Since: 0.1
   */
  { "stride", G_TYPE_INT64, C1 (stride), 1 },
  /**
   * DlConv1d:padding:
   *
   * The padding at both ends (default 0), filled as #DlConv1d:padding-mode
   * says.
   *
   * Since: 0.1
   */
  { "padding", G_TYPE_INT64, C1 (padding), 0 },
  /**
   * DlConv1d:dilation:
   *
   * The spacing of the filters' taps (default 1).
   *
   * Since: 0.1
   */
  { "dilation", G_TYPE_INT64, C1 (dilation), 1 },
  /**
   * DlConv1d:groups:
   *
   * The number of channel groups (default 1).
   *
   * Since: 0.1
   */
  { "groups", G_TYPE_INT64, C1 (groups), 1 },
  /**
   * DlConv1d:bias:
   *
   * Whether the layer learns a bias per output channel (default %TRUE).
   *
   * Since: 0.1
   */
  { "bias", G_TYPE_BOOLEAN, C1 (bias), TRUE },
  /**
   * DlConv1d:padding-mode:
   *
   * How the padding is filled: %DL_PAD_CONSTANT (PyTorch's 'zeros', the
   * default), %DL_PAD_REFLECT, %DL_PAD_REPLICATE or %DL_PAD_CIRCULAR.
   *
   * Since: 0.1
   */
  { "padding-mode", G_TYPE_NONE, C1 (padding_mode), DL_PAD_CONSTANT },
};

static DlConv1dPrivate *
conv1d_priv (gpointer self)
{
  return dl_conv1d_layer_get_instance_private (DL_CONV1D (self));
}

static DlTensor *
conv1d_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlConv1dPrivate *p = conv1d_priv (module);
  DlTensor *w = dl_module_get_parameter (module, "weight");
  DlTensor *b = dl_module_get_parameter (module, "bias");
  g_autoptr (DlTensor) padded = NULL;

  if (w == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "Conv1d: the layer has no weight");
      return NULL;
    }
  if (p->padding_mode == DL_PAD_CONSTANT || p->padding == 0)
    return dl_conv1d (input, w, b, p->stride, p->padding, p->dilation, p->groups, error);
  if (!(padded
        = dl_pad (input, (gint64[]){ p->padding, p->padding }, 2, p->padding_mode, 0, error)))
    return NULL;
  return dl_conv1d (padded, w, b, p->stride, 0, p->dilation, p->groups, error);
}

static void
conv1d_constructed (GObject *object)
{
  DlConv1dPrivate *p = conv1d_priv (object);
  GError *error = NULL;

  G_OBJECT_CLASS (dl_conv1d_layer_parent_class)->constructed (object);
  if (!check_layer_value ("Conv1d", "kernel_size", p->kernel, 1, &error)
      || !check_layer_value ("Conv1d", "stride", p->stride, 1, &error)
      || !check_layer_value ("Conv1d", "padding", p->padding, 0, &error)
      || !check_layer_value ("Conv1d", "dilation", p->dilation, 1, &error)
      || !check_groups ("Conv1d", p->in_channels, p->out_channels, p->groups, &error))
    {
      dl_module_take_construct_error (DL_MODULE (object), error);
      return;
    }
  add_conv_parameters (DL_MODULE (object),
                       (gint64[]){ p->out_channels, p->in_channels / p->groups, p->kernel }, 3,
                       p->in_channels / p->groups * p->kernel, p->out_channels, p->bias);
}

/* the table's offsets, from the private struct, made instance offsets */
static void
to_instance_offsets (DlLayerProp *props, guint n, gint private_offset)
{
  for (guint i = 0; i < n; i++)
    {
      props[i].offset += private_offset;
      if (props[i].type == G_TYPE_NONE)
        props[i].type = DL_TYPE_PAD_MODE;
    }
}

static void
dl_conv1d_layer_class_init (DlConv1dClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = conv1d_constructed;
  DL_MODULE_CLASS (klass)->forward = conv1d_forward;
  to_instance_offsets (conv1d_props, G_N_ELEMENTS (conv1d_props), DlConv1d_private_offset);
  dl_layer_props_install (G_OBJECT_CLASS (klass), conv1d_props, G_N_ELEMENTS (conv1d_props));
}

static void
dl_conv1d_layer_init (DlConv1d *self)
{
  dl_layer_props_init (self, conv1d_props, G_N_ELEMENTS (conv1d_props));
}

/**
 * dl_conv1d_layer_new:
 * @in_channels: the number of input channels
 * @out_channels: the number of output channels
 * @kernel_size: the filters' length
 * @stride: the filters' step
 * @padding: the zero padding at both ends
 * @dilation: the taps' spacing
 * @groups: the number of channel groups
 * @bias: whether to learn a bias
 * @error: return location for a #GError
 *
 * A #DlConv1d (g_initable_new() with the properties): a 1-d convolution
 * layer as torch.nn.Conv1d, its weight [out, in / groups, kernel] and bias
 * initialised as PyTorch's.
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlConv1d *
dl_conv1d_layer_new (gint64 in_channels,
                     gint64 out_channels,
                     gint64 kernel_size,
                     gint64 stride,
                     gint64 padding,
                     gint64 dilation,
                     gint64 groups,
                     gboolean bias,
                     GError **error)
{
  return g_initable_new (DL_TYPE_CONV1D, NULL, error, "in-channels", in_channels, "out-channels",
                         out_channels, "kernel-size", kernel_size, "stride", stride, "padding",
                         padding, "dilation", dilation, "groups", groups, "bias", bias, NULL);
}

/* ---- ConvTranspose2d -------------------------------------------------------- */

/**
 * DlConvTranspose2d:
 *
 * A transposed 2-d convolution (the gradient of a convolution with
 * respect to its input, used to upsample) over an image batch [N, C, H,
 * W] or one image [C, H, W], as torch.nn.ConvTranspose2d: see
 * dl_conv_transpose2d(). Its parameters are "weight" [in_channels,
 * out_channels / groups, kh, kw] and "bias" [out_channels], initialised
 * as PyTorch does. Each output side is (in - 1) * stride - 2 * padding +
 * dilation * (kernel - 1) + output_padding + 1.
 *
 * Build it from its construct properties (#DlConvTranspose2d:in-channels,
 * #DlConvTranspose2d:out-channels and the kernel's height and width are
 * required; the rest have PyTorch's defaults) in any language, or with
 * dl_conv_transpose2d_layer_new(). A bad value is an error from
 * g_initable_init() and from forward; see #DlModule.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 in_channels, out_channels, kernel[2], stride[2], padding[2], output_padding[2];
  gint64 dilation[2], groups;
  gboolean bias;
} DlConvTranspose2dPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlConvTranspose2d, dl_conv_transpose2d_layer, DL_TYPE_MODULE)

#define CT(f) G_STRUCT_OFFSET (DlConvTranspose2dPrivate, f)
static DlLayerProp conv_transpose_props[] = {
  /**
   * DlConvTranspose2d:in-channels:
   *
   * The number of input channels (required, >= 0). Writable after
   * construction, as torch's attribute: the weight keeps its size (a
   * lazy layer sets it with the weight it makes).
   *
   * Since: 0.1
   */
  { "in-channels", G_TYPE_INT64, CT (in_channels), SIZE_UNSET, TRUE },
  /**
   * DlConvTranspose2d:out-channels:
   *
   * The number of output channels (required, >= 0).
   *
   * Since: 0.1
   */
  { "out-channels", G_TYPE_INT64, CT (out_channels), SIZE_UNSET },
  /**
   * DlConvTranspose2d:kernel-height:
   *
   * The filters' height (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-height", G_TYPE_INT64, CT (kernel[0]), SIZE_UNSET },
  /**
   * DlConvTranspose2d:kernel-width:
   *
   * The filters' width (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-width", G_TYPE_INT64, CT (kernel[1]), SIZE_UNSET },
  /**
   * DlConvTranspose2d:stride-height:
   *
   * The vertical step of the convolution this one transposes (default 1).
   *
   * Since: 0.1
   */
  { "stride-height", G_TYPE_INT64, CT (stride[0]), 1 },
  /**
   * DlConvTranspose2d:stride-width:
   *
   * The horizontal step of the convolution this one transposes (default 1).
   *
   * Since: 0.1
   */
  { "stride-width", G_TYPE_INT64, CT (stride[1]), 1 },
  /**
   * DlConvTranspose2d:padding-height:
   *
   * Rows taken off the top and bottom of the output (default 0).
   *
   * Since: 0.1
   */
  { "padding-height", G_TYPE_INT64, CT (padding[0]), 0 },
  /**
   * DlConvTranspose2d:padding-width:
   *
   * Columns taken off the left and right of the output (default 0).
   *
   * Since: 0.1
   */
  { "padding-width", G_TYPE_INT64, CT (padding[1]), 0 },
  /**
   * DlConvTranspose2d:output-padding-height:
   *
   * Rows added at the bottom of the output (default 0).
   *
   * Since: 0.1
   */
  { "output-padding-height", G_TYPE_INT64, CT (output_padding[0]), 0 },
  /**
   * DlConvTranspose2d:output-padding-width:
   *
   * Columns added at the right of the output (default 0).
   *
   * Since: 0.1
   */
  { "output-padding-width", G_TYPE_INT64, CT (output_padding[1]), 0 },
  /**
   * DlConvTranspose2d:dilation-height:
   *
   * The vertical spacing of the filters' taps (default 1).
   *
   * Since: 0.1
   */
  { "dilation-height", G_TYPE_INT64, CT (dilation[0]), 1 },
  /**
   * DlConvTranspose2d:dilation-width:
   *
   * The horizontal spacing of the filters' taps (default 1).
   *
   * Since: 0.1
   */
  { "dilation-width", G_TYPE_INT64, CT (dilation[1]), 1 },
  /**
   * DlConvTranspose2d:groups:
   *
   * The number of channel groups (default 1).
   *
   * Since: 0.1
   */
  { "groups", G_TYPE_INT64, CT (groups), 1 },
  /**
   * DlConvTranspose2d:bias:
   *
   * Whether the layer learns a bias per output channel (default %TRUE).
   *
   * Since: 0.1
   */
  { "bias", G_TYPE_BOOLEAN, CT (bias), TRUE },
};

static DlConvTranspose2dPrivate *
conv_transpose_priv (gpointer self)
{
  return dl_conv_transpose2d_layer_get_instance_private (DL_CONV_TRANSPOSE2D (self));
}

static DlTensor *
conv_transpose_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlConvTranspose2dPrivate *p = conv_transpose_priv (module);
  DlTensor *w = dl_module_get_parameter (module, "weight");

  if (w == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "ConvTranspose2d: the layer has no weight");
      return NULL;
    }
  return dl_conv_transpose2d (input, w, dl_module_get_parameter (module, "bias"), p->stride,
                              p->padding, p->output_padding, p->groups, p->dilation, error);
}

static void
conv_transpose_constructed (GObject *object)
{
  DlConvTranspose2dPrivate *p = conv_transpose_priv (object);
  static const gchar *const names[] = {
    "kernel_height",   "kernel_width",   "stride_height",         "stride_width",
    "padding_height",  "padding_width",  "output_padding_height", "output_padding_width",
    "dilation_height", "dilation_width",
  };
  const gint64 values[] = { p->kernel[0],         p->kernel[1],         p->stride[0],
                            p->stride[1],         p->padding[0],        p->padding[1],
                            p->output_padding[0], p->output_padding[1], p->dilation[0],
                            p->dilation[1] };
  static const gint64 mins[] = { 1, 1, 1, 1, 0, 0, 0, 0, 1, 1 };
  GError *error = NULL;

  G_OBJECT_CLASS (dl_conv_transpose2d_layer_parent_class)->constructed (object);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (!check_layer_value ("ConvTranspose2d", names[i], values[i], mins[i], &error))
      {
        dl_module_take_construct_error (DL_MODULE (object), error);
        return;
      }
  if (!check_groups ("ConvTranspose2d", p->in_channels, p->out_channels, p->groups, &error))
    {
      dl_module_take_construct_error (DL_MODULE (object), error);
      return;
    }
  /* PyTorch's fan_in of the transposed weight [in, out / groups, kh, kw] */
  add_conv_parameters (
      DL_MODULE (object),
      (gint64[]){ p->in_channels, p->out_channels / p->groups, p->kernel[0], p->kernel[1] }, 4,
      p->out_channels / p->groups * p->kernel[0] * p->kernel[1], p->out_channels, p->bias);
}

static void
dl_conv_transpose2d_layer_class_init (DlConvTranspose2dClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = conv_transpose_constructed;
  DL_MODULE_CLASS (klass)->forward = conv_transpose_forward;
  to_instance_offsets (conv_transpose_props, G_N_ELEMENTS (conv_transpose_props),
                       DlConvTranspose2d_private_offset);
  dl_layer_props_install (G_OBJECT_CLASS (klass), conv_transpose_props,
                          G_N_ELEMENTS (conv_transpose_props));
}

static void
dl_conv_transpose2d_layer_init (DlConvTranspose2d *self)
{
  dl_layer_props_init (self, conv_transpose_props, G_N_ELEMENTS (conv_transpose_props));
}

/**
 * dl_conv_transpose2d_layer_new:
 * @in_channels: the number of input channels
 * @out_channels: the number of output channels
 * @kernel_size: (array fixed-size=2): the filters' height and width
 * @stride: (array fixed-size=2) (nullable): the step, or %NULL for 1
 * @padding: (array fixed-size=2) (nullable): taken off the output, or
 *   %NULL for none
 * @groups: the number of channel groups
 * @bias: whether to learn a bias
 * @error: return location for a #GError
 *
 * A #DlConvTranspose2d (g_initable_new() with the properties; output
 * padding 0, dilation 1): a transposed 2-d convolution layer as
 * torch.nn.ConvTranspose2d, its weight [in, out / groups, kh, kw] and bias
 * initialised as PyTorch's.
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlConvTranspose2d *
dl_conv_transpose2d_layer_new (gint64 in_channels,
                               gint64 out_channels,
                               const gint64 *kernel_size,
                               const gint64 *stride,
                               const gint64 *padding,
                               gint64 groups,
                               gboolean bias,
                               GError **error)
{
  static const gint64 ones[2] = { 1, 1 }, zeros[2] = { 0, 0 };

  g_return_val_if_fail (kernel_size != NULL, NULL);
  stride = stride ? stride : ones;
  padding = padding ? padding : zeros;
  return g_initable_new (DL_TYPE_CONV_TRANSPOSE2D, NULL, error, "in-channels", in_channels,
                         "out-channels", out_channels, "kernel-height", kernel_size[0],
                         "kernel-width", kernel_size[1], "stride-height", stride[0], "stride-width",
                         stride[1], "padding-height", padding[0], "padding-width", padding[1],
                         "groups", groups, "bias", bias, NULL);
}

/* ---- Conv3d ----------------------------------------------------------------- */

/**
 * DlConv3d:
 *
 * A 3-d convolution over a volume batch [N, C, D, H, W] (or one volume
 * [C, D, H, W]), as torch.nn.Conv3d with zero padding: see dl_conv3d().
 * Its parameters are "weight" [out_channels, in_channels / groups, kd, kh,
 * kw] and "bias" [out_channels], initialised as PyTorch does, in
 * #DlModule:dtype.
 *
 * Build it from its construct properties (#DlConv3d:in-channels,
 * #DlConv3d:out-channels and the kernel's depth, height and width are
 * required; the rest have PyTorch's defaults) in any language (`new
 * Dl.Conv3d({in_channels: 1, out_channels: 4, kernel_depth: 3,
 * kernel_height: 3, kernel_width: 3})` in GJS), or with
 * dl_conv3d_layer_new(). A bad value is an error from g_initable_init()
 * and from forward; see #DlModule.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 in_channels, out_channels;
  gint64 kernel[3], stride[3], padding[3], dilation[3];
  gint64 groups;
  gboolean bias;
} DlConv3dPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlConv3d, dl_conv3d_layer, DL_TYPE_MODULE)

#define C3(f) G_STRUCT_OFFSET (DlConv3dPrivate, f)
/* offsets from the private struct: made instance offsets in class_init */
static DlLayerProp conv3d_props[] = {
  /**
   * DlConv3d:in-channels:
   *
   * The number of input channels (required, >= 0). Writable after
   * construction, as torch's attribute: the weight keeps its size (a
   * lazy layer sets it with the weight it makes).
   *
   * Since: 0.1
   */
  { "in-channels", G_TYPE_INT64, C3 (in_channels), SIZE_UNSET, TRUE },
  /**
   * DlConv3d:out-channels:
   *
   * The number of output channels (required, >= 0).
   *
   * Since: 0.1
   */
  { "out-channels", G_TYPE_INT64, C3 (out_channels), SIZE_UNSET },
  /**
   * DlConv3d:kernel-depth:
   *
   * The filters' depth (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-depth", G_TYPE_INT64, C3 (kernel[0]), SIZE_UNSET },
  /**
   * DlConv3d:kernel-height:
   *
   * The filters' height (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-height", G_TYPE_INT64, C3 (kernel[1]), SIZE_UNSET },
  /**
   * DlConv3d:kernel-width:
   *
   * The filters' width (required, >= 1).
   *
   * Since: 0.1
   */
  { "kernel-width", G_TYPE_INT64, C3 (kernel[2]), SIZE_UNSET },
  /**
   * DlConv3d:stride-depth:
   *
   * The filters' step along the depth (default 1).
   *
   * Since: 0.1
   */
  { "stride-depth", G_TYPE_INT64, C3 (stride[0]), 1 },
  /**
   * DlConv3d:stride-height:
   *
   * The filters' step along the height (default 1).
   *
   * Since: 0.1
   */
  { "stride-height", G_TYPE_INT64, C3 (stride[1]), 1 },
  /**
   * DlConv3d:stride-width:
   *
   * The filters' step along the width (default 1).
   *
   * Since: 0.1
   */
  { "stride-width", G_TYPE_INT64, C3 (stride[2]), 1 },
  /**
   * DlConv3d:padding-depth:
   *
   * The zeros added on both sides along the depth (default 0).
   *
   * Since: 0.1
   */
  { "padding-depth", G_TYPE_INT64, C3 (padding[0]), 0 },
  /**
   * DlConv3d:padding-height:
   *
   * The zeros added on both sides along the height (default 0).
   *
   * Since: 0.1
   */
  { "padding-height", G_TYPE_INT64, C3 (padding[1]), 0 },
  /**
   * DlConv3d:padding-width:
   *
   * The zeros added on both sides along the width (default 0).
   *
   * Since: 0.1
   */
  { "padding-width", G_TYPE_INT64, C3 (padding[2]), 0 },
  /**
   * DlConv3d:dilation-depth:
   *
   * The spacing of the filters' taps along the depth (default 1).
   *
   * Since: 0.1
   */
  { "dilation-depth", G_TYPE_INT64, C3 (dilation[0]), 1 },
  /**
   * DlConv3d:dilation-height:
   *
   * The spacing of the filters' taps along the height (default 1).
   *
   * Since: 0.1
   */
  { "dilation-height", G_TYPE_INT64, C3 (dilation[1]), 1 },
  /**
   * DlConv3d:dilation-width:
   *
   * The spacing of the filters' taps along the width (default 1).
   *
   * Since: 0.1
   */
  { "dilation-width", G_TYPE_INT64, C3 (dilation[2]), 1 },
  /**
   * DlConv3d:groups:
   *
   * The number of channel groups (default 1).
   *
   * Since: 0.1
   */
  { "groups", G_TYPE_INT64, C3 (groups), 1 },
  /**
   * DlConv3d:bias:
   *
   * Whether the layer learns a bias per output channel (default %TRUE).
   *
   * Since: 0.1
   */
  { "bias", G_TYPE_BOOLEAN, C3 (bias), TRUE },
};

static DlConv3dPrivate *
conv3d_priv (gpointer self)
{
  return dl_conv3d_layer_get_instance_private (DL_CONV3D (self));
}

static DlTensor *
conv3d_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlConv3dPrivate *p = conv3d_priv (module);
  DlTensor *w = dl_module_get_parameter (module, "weight");

  if (w == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "Conv3d: the layer has no weight");
      return NULL;
    }
  return dl_conv3d (input, w, dl_module_get_parameter (module, "bias"), p->stride, p->padding,
                    p->dilation, p->groups, error);
}

static void
conv3d_constructed (GObject *object)
{
  static const gchar *const names[]
      = { "kernel_depth",  "kernel_height",  "kernel_width",    "stride_depth",
          "stride_height", "stride_width",   "padding_depth",   "padding_height",
          "padding_width", "dilation_depth", "dilation_height", "dilation_width" };
  static const gint64 mins[] = { 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1 };
  DlConv3dPrivate *p = conv3d_priv (object);
  const gint64 *values[] = { p->kernel, p->stride, p->padding, p->dilation };
  GError *error = NULL;

  G_OBJECT_CLASS (dl_conv3d_layer_parent_class)->constructed (object);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (!check_layer_value ("Conv3d", names[i], values[i / 3][i % 3], mins[i], &error))
      break;
  if (error || !check_groups ("Conv3d", p->in_channels, p->out_channels, p->groups, &error))
    {
      dl_module_take_construct_error (DL_MODULE (object), error);
      return;
    }
  add_conv_parameters (DL_MODULE (object),
                       (gint64[]){ p->out_channels, p->in_channels / p->groups, p->kernel[0],
                                   p->kernel[1], p->kernel[2] },
                       5, p->in_channels / p->groups * p->kernel[0] * p->kernel[1] * p->kernel[2],
                       p->out_channels, p->bias);
}

static void
dl_conv3d_layer_class_init (DlConv3dClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = conv3d_constructed;
  DL_MODULE_CLASS (klass)->forward = conv3d_forward;
  to_instance_offsets (conv3d_props, G_N_ELEMENTS (conv3d_props), DlConv3d_private_offset);
  dl_layer_props_install (G_OBJECT_CLASS (klass), conv3d_props, G_N_ELEMENTS (conv3d_props));
}

static void
dl_conv3d_layer_init (DlConv3d *self)
{
  dl_layer_props_init (self, conv3d_props, G_N_ELEMENTS (conv3d_props));
}

/**
 * dl_conv3d_layer_new:
 * @in_channels: the number of input channels
 * @out_channels: the number of output channels
 * @kernel_size: (array fixed-size=3): the filters' depth, height and width
 * @stride: (array fixed-size=3): the filters' step
 * @padding: (array fixed-size=3): the zero padding on both sides
 * @dilation: (array fixed-size=3): the taps' spacing
 * @groups: the number of channel groups
 * @bias: whether to learn a bias
 * @error: return location for a #GError
 *
 * A #DlConv3d (g_initable_new() with the properties): a 3-d convolution
 * layer as torch.nn.Conv3d, its weight [out, in / groups, kd, kh, kw] and
 * bias initialised as PyTorch's.
 *
 * Returns: (transfer full): the layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlConv3d *
dl_conv3d_layer_new (gint64 in_channels,
                     gint64 out_channels,
                     const gint64 *kernel_size,
                     const gint64 *stride,
                     const gint64 *padding,
                     const gint64 *dilation,
                     gint64 groups,
                     gboolean bias,
                     GError **error)
{
  g_return_val_if_fail (kernel_size != NULL && stride != NULL, NULL);
  g_return_val_if_fail (padding != NULL && dilation != NULL, NULL);
  return g_initable_new (DL_TYPE_CONV3D, NULL, error, "in-channels", in_channels, "out-channels",
                         out_channels, "kernel-depth", kernel_size[0], "kernel-height",
                         kernel_size[1], "kernel-width", kernel_size[2], "stride-depth", stride[0],
                         "stride-height", stride[1], "stride-width", stride[2], "padding-depth",
                         padding[0], "padding-height", padding[1], "padding-width", padding[2],
                         "dilation-depth", dilation[0], "dilation-height", dilation[1],
                         "dilation-width", dilation[2], "groups", groups, "bias", bias, NULL);
}
