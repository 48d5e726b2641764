/* dl-norm-modules.c: DlBatchNorm (and DlBatchNorm1d, 2d, 3d),
 * DlLayerNorm and DlGroupNorm over dl_batch_norm(), dl_layer_norm() and
 * dl_group_norm(), with PyTorch's parameters ("weight" ones, "bias"
 * zeros), buffers ("running_mean" zeros, "running_var" ones,
 * "num_batches_tracked" an int64 0) and running-statistics rules.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-norm-modules.h"
#include "dl-error.h"
#include "dl-module-private.h"
#include "dl-node.h"
#include "ops/dl-ops-norm.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"

#define SIZE_UNSET (-1)

static GParamSpec *
int64_property (const gchar *name, gint64 default_value)
{
  /* every gint64 is accepted, so that a bad value reaches constructed()
   * and becomes a GError (a range would only print a warning) */
  return g_param_spec_int64 (name, NULL, NULL, G_MININT64, G_MAXINT64, default_value,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                 | G_PARAM_EXPLICIT_NOTIFY);
}

static GParamSpec *
double_property (const gchar *name, gdouble default_value)
{
  return g_param_spec_double (name, NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, default_value,
                              G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
                                  | G_PARAM_EXPLICIT_NOTIFY);
}

static GParamSpec *
bool_property (const gchar *name, gboolean default_value)
{
  return g_param_spec_boolean (name, NULL, NULL, default_value,
                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                   | G_PARAM_EXPLICIT_NOTIFY);
}

/* "weight" (ones) and "bias" (zeros) of @shape, in the layer's dtype */
static gboolean
add_affine (DlModule *self, const gint64 *shape, gsize n_dims, GError **error)
{
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) b = NULL;

  if (!(w = dl_ones (shape, n_dims, dl_module_get_factory_dtype (self),
                     dl_module_get_factory_device (self), error))
      || !dl_tensor_set_requires_grad (w, TRUE, error)
      || !(b = dl_zeros (shape, n_dims, dl_module_get_factory_dtype (self),
                         dl_module_get_factory_device (self), error))
      || !dl_tensor_set_requires_grad (b, TRUE, error))
    return FALSE;
  dl_module_register_parameter (self, "weight", w);
  dl_module_register_parameter (self, "bias", b);
  return TRUE;
}

/* the layer's PyTorch name, for messages: its type's name without "Dl" */
static const gchar *
layer_name (gpointer self)
{
  return G_OBJECT_TYPE_NAME (self) + 2;
}

static gboolean
check_positive (gpointer self, const gchar *what, gint64 value, GError **error)
{
  if (value == SIZE_UNSET)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s is missing", layer_name (self),
                   what);
      return FALSE;
    }
  if (value < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s must be >= 0, got %" G_GINT64_FORMAT,
                   layer_name (self), what, value);
      return FALSE;
    }
  return TRUE;
}

/* ---- DlBatchNorm ------------------------------------------------------ */

/**
 * DlBatchNorm:
 *
 * Batch normalisation of a batch [N, C, *], as torch.nn.BatchNorm1d and
 * BatchNorm2d (see dl_batch_norm()): in training mode each channel is
 * normalised with the batch's mean and variance and the running
 * statistics are updated (running = (1 - momentum) running + momentum
 * batch, the variance unbiased; with #DlBatchNorm:momentum negative, the
 * cumulative average over the batches seen, PyTorch's momentum=None); in
 * eval mode the running statistics are used. With
 * #DlBatchNorm:track-running-stats %FALSE there are none and the batch's
 * statistics are used in both modes.
 *
 * Parameters "weight" (ones) and "bias" (zeros) [C] when
 * #DlBatchNorm:affine; buffers "running_mean" (zeros), "running_var"
 * (ones) and "num_batches_tracked" (an int64 scalar) when tracking. The
 * subclasses #DlBatchNorm1d, #DlBatchNorm2d and #DlBatchNorm3d check the
 * input's rank as PyTorch's do; #DlBatchNorm takes any batch of at least
 * 2 dims.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 num_features;
  gdouble eps, momentum;
  gboolean affine, track_running_stats;
} DlBatchNormPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlBatchNorm, dl_batch_norm_layer, DL_TYPE_MODULE)

enum
{
  BN_PROP_0,
  BN_PROP_NUM_FEATURES,
  BN_PROP_EPS,
  BN_PROP_MOMENTUM,
  BN_PROP_AFFINE,
  BN_PROP_TRACK_RUNNING_STATS,
  BN_N_PROPS
};

static GParamSpec *bn_properties[BN_N_PROPS];

static DlBatchNormPrivate *
bn_priv (gpointer self)
{
  return dl_batch_norm_layer_get_instance_private (DL_BATCH_NORM (self));
}

/* the input's rank as the layer expects it, with PyTorch's message */
static gboolean
check_rank (DlModule *module, DlTensor *input, GError **error)
{
  gint nd = dl_tensor_get_ndim (input);

  if (DL_IS_BATCH_NORM2D (module) && nd != 4)
    g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: expected 4D input (got %dD input)",
                 layer_name (module), nd);
  else if (DL_IS_BATCH_NORM3D (module) && nd != 5)
    g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: expected 5D input (got %dD input)",
                 layer_name (module), nd);
  else if (DL_IS_BATCH_NORM1D (module) && nd != 2 && nd != 3)
    g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: expected 2D or 3D input (got %dD input)",
                 layer_name (module), nd);
  else if (nd < 2)
    g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                 "%s: expected an input of at least 2D (got %dD input)", layer_name (module), nd);
  else
    return TRUE;
  return FALSE;
}

static DlTensor *
dl_batch_norm_layer_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlBatchNormPrivate *p = bn_priv (module);
  DlTensor *rm = dl_module_get_buffer (module, "running_mean");
  DlTensor *rv = dl_module_get_buffer (module, "running_var");
  DlTensor *nbt = dl_module_get_buffer (module, "num_batches_tracked");
  gboolean training = dl_module_get_training (module);
  gdouble factor = p->momentum < 0 ? 0.0 : p->momentum;
  gboolean use_batch_stats;

  if (!check_rank (module, input, error))
    return NULL;
  if ((p->affine || p->track_running_stats)
      && dl_tensor_get_size (input, 1, NULL) != p->num_features)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: running_mean should contain %" G_GINT64_FORMAT
                   " elements not %" G_GINT64_FORMAT,
                   layer_name (module), dl_tensor_get_size (input, 1, NULL), p->num_features);
      return NULL;
    }
  if (training && p->track_running_stats && nbt)
    {
      gboolean was = dl_set_grad_enabled (FALSE);
      gboolean ok = dl_tensor_add_scalar_ (nbt, 1, error) != NULL;

      dl_set_grad_enabled (was);
      if (!ok)
        return NULL;
      if (p->momentum < 0)
        {
          GError *local = NULL;
          gdouble steps = dl_tensor_item (nbt, &local);

          if (local)
            {
              g_propagate_error (error, local);
              return NULL;
            }
          factor = 1.0 / steps;
        }
    }
  use_batch_stats = training || rm == NULL || rv == NULL;
  if (training && !p->track_running_stats)
    rm = rv = NULL;
  return dl_batch_norm (input, rm, rv, dl_module_get_parameter (module, "weight"),
                        dl_module_get_parameter (module, "bias"), use_batch_stats, factor, p->eps,
                        error);
}

static void
dl_batch_norm_layer_constructed (GObject *object)
{
  DlBatchNormPrivate *p = bn_priv (object);
  DlModule *m = DL_MODULE (object);
  GError *error = NULL;
  const gint64 *c = &p->num_features;
  g_autoptr (DlTensor) rm = NULL;
  g_autoptr (DlTensor) rv = NULL;
  g_autoptr (DlTensor) nbt = NULL;

  G_OBJECT_CLASS (dl_batch_norm_layer_parent_class)->constructed (object);
  if (!check_positive (object, "num_features", p->num_features, &error)
      || (p->affine && !add_affine (m, c, 1, &error)))
    {
      dl_module_take_construct_error (m, error);
      return;
    }
  if (!p->track_running_stats)
    return;
  if (!(rm = dl_zeros (c, 1, dl_module_get_factory_dtype (m), dl_module_get_factory_device (m),
                       &error))
      || !(rv = dl_ones (c, 1, dl_module_get_factory_dtype (m), dl_module_get_factory_device (m),
                         &error))
      || !(nbt = dl_zeros (NULL, 0, DL_DTYPE_INT64, dl_module_get_factory_device (m), &error)))
    {
      dl_module_take_construct_error (m, error);
      return;
    }
  dl_module_register_buffer (m, "running_mean", rm, TRUE);
  dl_module_register_buffer (m, "running_var", rv, TRUE);
  dl_module_register_buffer (m, "num_batches_tracked", nbt, TRUE);
}

static void
dl_batch_norm_layer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlBatchNormPrivate *p = bn_priv (object);

  switch (prop_id)
    {
      case BN_PROP_NUM_FEATURES:
        g_value_set_int64 (value, p->num_features);
        break;
      case BN_PROP_EPS:
        g_value_set_double (value, p->eps);
        break;
      case BN_PROP_MOMENTUM:
        g_value_set_double (value, p->momentum);
        break;
      case BN_PROP_AFFINE:
        g_value_set_boolean (value, p->affine);
        break;
      case BN_PROP_TRACK_RUNNING_STATS:
        g_value_set_boolean (value, p->track_running_stats);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_batch_norm_layer_set_property (GObject *object,
                                  guint prop_id,
                                  const GValue *value,
                                  GParamSpec *pspec)
{
  DlBatchNormPrivate *p = bn_priv (object);

  switch (prop_id)
    {
      case BN_PROP_NUM_FEATURES:
        if (p->num_features != g_value_get_int64 (value))
          {
            p->num_features = g_value_get_int64 (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      case BN_PROP_EPS:
        if (p->eps != g_value_get_double (value))
          {
            p->eps = g_value_get_double (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      case BN_PROP_MOMENTUM:
        if (p->momentum != g_value_get_double (value))
          {
            p->momentum = g_value_get_double (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      case BN_PROP_AFFINE:
        p->affine = g_value_get_boolean (value);
        break;
      case BN_PROP_TRACK_RUNNING_STATS:
        p->track_running_stats = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_batch_norm_layer_class_init (DlBatchNormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_batch_norm_layer_constructed;
  object_class->get_property = dl_batch_norm_layer_get_property;
  object_class->set_property = dl_batch_norm_layer_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_batch_norm_layer_forward;

  /**
   * DlBatchNorm:num-features:
   *
   * The number of channels C (required, >= 0). Writable after
   * construction, as torch's attribute: the parameters and buffers keep
   * their size (a lazy layer sets it with the ones it makes).
   *
   * Since: 0.1
   */
  bn_properties[BN_PROP_NUM_FEATURES] = g_param_spec_int64 (
      "num-features", NULL, NULL, G_MININT64, G_MAXINT64, SIZE_UNSET,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlBatchNorm:eps:
   *
   * Added to the variance (default 1e-5).
   *
   * Since: 0.1
   */
  bn_properties[BN_PROP_EPS] = double_property ("eps", 1e-5);
  /**
   * DlBatchNorm:momentum:
   *
   * The weight of each batch's statistics in the running ones (default
   * 0.1); negative for the cumulative average (PyTorch's momentum=None).
   *
   * Since: 0.1
   */
  bn_properties[BN_PROP_MOMENTUM] = double_property ("momentum", 0.1);
  /**
   * DlBatchNorm:affine:
   *
   * Whether the layer learns a scale "weight" and shift "bias" per channel
   * (default %TRUE).
   *
   * Since: 0.1
   */
  bn_properties[BN_PROP_AFFINE] = bool_property ("affine", TRUE);
  /**
   * DlBatchNorm:track-running-stats:
   *
   * Whether the layer keeps running statistics for eval mode (default
   * %TRUE).
   *
   * Since: 0.1
   */
  bn_properties[BN_PROP_TRACK_RUNNING_STATS] = bool_property ("track-running-stats", TRUE);
  g_object_class_install_properties (object_class, BN_N_PROPS, bn_properties);
}

static void
dl_batch_norm_layer_init (DlBatchNorm *self)
{
  DlBatchNormPrivate *p = bn_priv (self);

  p->num_features = SIZE_UNSET;
  p->eps = 1e-5;
  p->momentum = 0.1;
  p->affine = p->track_running_stats = TRUE;
}

/**
 * DlBatchNorm1d:
 *
 * A #DlBatchNorm for a batch [N, C] or [N, C, L], as torch.nn.BatchNorm1d.
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlBatchNorm1d, dl_batch_norm1d_layer, DL_TYPE_BATCH_NORM)

static void
dl_batch_norm1d_layer_class_init (DlBatchNorm1dClass *klass)
{
}

static void
dl_batch_norm1d_layer_init (DlBatchNorm1d *self)
{
}

/**
 * DlBatchNorm2d:
 *
 * A #DlBatchNorm for an image batch [N, C, H, W], as torch.nn.BatchNorm2d.
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlBatchNorm2d, dl_batch_norm2d_layer, DL_TYPE_BATCH_NORM)

static void
dl_batch_norm2d_layer_class_init (DlBatchNorm2dClass *klass)
{
}

static void
dl_batch_norm2d_layer_init (DlBatchNorm2d *self)
{
}

/**
 * DlBatchNorm3d:
 *
 * A #DlBatchNorm for a volume batch [N, C, D, H, W], as
 * torch.nn.BatchNorm3d.
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlBatchNorm3d, dl_batch_norm3d_layer, DL_TYPE_BATCH_NORM)

static void
dl_batch_norm3d_layer_class_init (DlBatchNorm3dClass *klass)
{
}

static void
dl_batch_norm3d_layer_init (DlBatchNorm3d *self)
{
}

/**
 * dl_batch_norm1d_layer_new:
 * @num_features: the number of channels C
 * @error: return location for a #GError
 *
 * Creates a #DlBatchNorm1d with PyTorch's defaults (eps 1e-5, momentum
 * 0.1, affine, tracking running statistics).
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlBatchNorm1d *
dl_batch_norm1d_layer_new (gint64 num_features, GError **error)
{
  return g_initable_new (DL_TYPE_BATCH_NORM1D, NULL, error, "num-features", num_features, NULL);
}

/**
 * dl_batch_norm2d_layer_new:
 * @num_features: the number of channels C
 * @error: return location for a #GError
 *
 * Creates a #DlBatchNorm2d with PyTorch's defaults (eps 1e-5, momentum
 * 0.1, affine, tracking running statistics).
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlBatchNorm2d *
dl_batch_norm2d_layer_new (gint64 num_features, GError **error)
{
  return g_initable_new (DL_TYPE_BATCH_NORM2D, NULL, error, "num-features", num_features, NULL);
}

/* ---- DlLayerNorm ------------------------------------------------------ */

/**
 * DlLayerNorm:
 *
 * Layer normalisation over the trailing #DlLayerNorm:normalized-shape dims,
 * as torch.nn.LayerNorm (see dl_layer_norm()), with parameters "weight"
 * (ones) and "bias" (zeros) of that shape when
 * #DlLayerNorm:elementwise-affine.
 *
 * Since: 0.1
 */
typedef struct
{
  GVariant *normalized_shape; /* "ax" */
  gdouble eps;
  gboolean elementwise_affine;
} DlLayerNormPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlLayerNorm, dl_layer_norm_layer, DL_TYPE_MODULE)

enum
{
  LN_PROP_0,
  LN_PROP_NORMALIZED_SHAPE,
  LN_PROP_EPS,
  LN_PROP_ELEMENTWISE_AFFINE,
  LN_N_PROPS
};

static GParamSpec *ln_properties[LN_N_PROPS];

static DlLayerNormPrivate *
ln_priv (gpointer self)
{
  return dl_layer_norm_layer_get_instance_private (DL_LAYER_NORM (self));
}

static DlTensor *
dl_layer_norm_layer_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlLayerNormPrivate *p = ln_priv (module);
  gsize n = 0;
  const gint64 *shape = g_variant_get_fixed_array (p->normalized_shape, &n, sizeof (gint64));

  return dl_layer_norm (input, shape, n, dl_module_get_parameter (module, "weight"),
                        dl_module_get_parameter (module, "bias"), p->eps, error);
}

static void
dl_layer_norm_layer_constructed (GObject *object)
{
  DlLayerNormPrivate *p = ln_priv (object);
  GError *error = NULL;
  gsize n = 0;
  const gint64 *shape;

  G_OBJECT_CLASS (dl_layer_norm_layer_parent_class)->constructed (object);
  if (p->normalized_shape == NULL)
    {
      g_set_error (&error, DL_ERROR, DL_ERROR_ARGUMENT, "LayerNorm: normalized_shape is missing");
      dl_module_take_construct_error (DL_MODULE (object), error);
      return;
    }
  shape = g_variant_get_fixed_array (p->normalized_shape, &n, sizeof (gint64));
  for (gsize i = 0; i < n; i++)
    if (!check_positive (object, "normalized_shape", shape[i], &error))
      {
        dl_module_take_construct_error (DL_MODULE (object), error);
        return;
      }
  if (p->elementwise_affine && !add_affine (DL_MODULE (object), shape, n, &error))
    dl_module_take_construct_error (DL_MODULE (object), error);
}

static void
dl_layer_norm_layer_finalize (GObject *object)
{
  g_clear_pointer (&ln_priv (object)->normalized_shape, g_variant_unref);
  G_OBJECT_CLASS (dl_layer_norm_layer_parent_class)->finalize (object);
}

static void
dl_layer_norm_layer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlLayerNormPrivate *p = ln_priv (object);

  switch (prop_id)
    {
      case LN_PROP_NORMALIZED_SHAPE:
        g_value_set_variant (value, p->normalized_shape);
        break;
      case LN_PROP_EPS:
        g_value_set_double (value, p->eps);
        break;
      case LN_PROP_ELEMENTWISE_AFFINE:
        g_value_set_boolean (value, p->elementwise_affine);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_layer_norm_layer_set_property (GObject *object,
                                  guint prop_id,
                                  const GValue *value,
                                  GParamSpec *pspec)
{
  DlLayerNormPrivate *p = ln_priv (object);

  switch (prop_id)
    {
      case LN_PROP_NORMALIZED_SHAPE:
        g_clear_pointer (&p->normalized_shape, g_variant_unref);
        p->normalized_shape = g_value_dup_variant (value);
        break;
      case LN_PROP_EPS:
        if (p->eps != g_value_get_double (value))
          {
            p->eps = g_value_get_double (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      case LN_PROP_ELEMENTWISE_AFFINE:
        p->elementwise_affine = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_layer_norm_layer_class_init (DlLayerNormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_layer_norm_layer_constructed;
  object_class->finalize = dl_layer_norm_layer_finalize;
  object_class->get_property = dl_layer_norm_layer_get_property;
  object_class->set_property = dl_layer_norm_layer_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_layer_norm_layer_forward;

  /**
   * DlLayerNorm:normalized-shape:
   *
   * The trailing dims normalised together, an array of int64 ("ax";
   * required).
   *
   * Since: 0.1
   */
  ln_properties[LN_PROP_NORMALIZED_SHAPE]
      = g_param_spec_variant ("normalized-shape", NULL, NULL, G_VARIANT_TYPE ("ax"), NULL,
                              G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                  | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlLayerNorm:eps:
   *
   * Added to the variance (default 1e-5).
   *
   * Since: 0.1
   */
  ln_properties[LN_PROP_EPS] = double_property ("eps", 1e-5);
  /**
   * DlLayerNorm:elementwise-affine:
   *
   * Whether the layer learns a "weight" and "bias" of the normalised shape
   * (default %TRUE).
   *
   * Since: 0.1
   */
  ln_properties[LN_PROP_ELEMENTWISE_AFFINE] = bool_property ("elementwise-affine", TRUE);
  g_object_class_install_properties (object_class, LN_N_PROPS, ln_properties);
}

static void
dl_layer_norm_layer_init (DlLayerNorm *self)
{
  DlLayerNormPrivate *p = ln_priv (self);

  p->eps = 1e-5;
  p->elementwise_affine = TRUE;
}

/**
 * dl_layer_norm_layer_new:
 * @normalized_shape: (array length=n_dims): the trailing dims normalised
 *   together
 * @n_dims: the length of @normalized_shape
 * @eps: added to the variance
 * @elementwise_affine: whether to learn a weight and a bias
 * @error: return location for a #GError
 *
 * Creates a #DlLayerNorm.
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlLayerNorm *
dl_layer_norm_layer_new (const gint64 *normalized_shape,
                         gsize n_dims,
                         gdouble eps,
                         gboolean elementwise_affine,
                         GError **error)
{
  GVariant *shape
      = g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, normalized_shape, n_dims, sizeof (gint64));

  return g_initable_new (DL_TYPE_LAYER_NORM, NULL, error, "normalized-shape", shape, "eps", eps,
                         "elementwise-affine", elementwise_affine, NULL);
}

/**
 * dl_layer_norm_layer_get_normalized_shape:
 * @self: a #DlLayerNorm
 * @n_dims: (out): where to store the length
 *
 * The trailing dims the layer normalises.
 *
 * Returns: (array length=n_dims) (transfer full): the normalised shape
 *
 * Since: 0.1
 */
gint64 *
dl_layer_norm_layer_get_normalized_shape (DlLayerNorm *self, gsize *n_dims)
{
  DlLayerNormPrivate *p;
  gsize n = 0;
  const gint64 *shape = NULL;

  g_return_val_if_fail (DL_IS_LAYER_NORM (self), NULL);
  g_return_val_if_fail (n_dims != NULL, NULL);
  p = ln_priv (self);
  if (p->normalized_shape)
    shape = g_variant_get_fixed_array (p->normalized_shape, &n, sizeof (gint64));
  *n_dims = n;
  return n ? g_memdup2 (shape, n * sizeof (gint64)) : NULL;
}

/* ---- DlGroupNorm ------------------------------------------------------ */

/**
 * DlGroupNorm:
 *
 * Group normalisation of a batch [N, C, *], as torch.nn.GroupNorm (see
 * dl_group_norm()): the C = #DlGroupNorm:num-channels channels split into
 * #DlGroupNorm:num-groups groups, with parameters "weight" (ones) and
 * "bias" (zeros) [C] when #DlGroupNorm:affine.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 num_groups, num_channels;
  gdouble eps;
  gboolean affine;
} DlGroupNormPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlGroupNorm, dl_group_norm_layer, DL_TYPE_MODULE)

enum
{
  GN_PROP_0,
  GN_PROP_NUM_GROUPS,
  GN_PROP_NUM_CHANNELS,
  GN_PROP_EPS,
  GN_PROP_AFFINE,
  GN_N_PROPS
};

static GParamSpec *gn_properties[GN_N_PROPS];

static DlGroupNormPrivate *
gn_priv (gpointer self)
{
  return dl_group_norm_layer_get_instance_private (DL_GROUP_NORM (self));
}

static DlTensor *
dl_group_norm_layer_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlGroupNormPrivate *p = gn_priv (module);

  return dl_group_norm (input, p->num_groups, dl_module_get_parameter (module, "weight"),
                        dl_module_get_parameter (module, "bias"), p->eps, error);
}

static void
dl_group_norm_layer_constructed (GObject *object)
{
  DlGroupNormPrivate *p = gn_priv (object);
  GError *error = NULL;

  G_OBJECT_CLASS (dl_group_norm_layer_parent_class)->constructed (object);
  if (!check_positive (object, "num_groups", p->num_groups, &error)
      || !check_positive (object, "num_channels", p->num_channels, &error))
    ;
  else if (p->num_groups == 0 || p->num_channels % p->num_groups != 0)
    g_set_error (&error, DL_ERROR, DL_ERROR_ARGUMENT,
                 "GroupNorm: num_channels must be divisible by num_groups");
  else if (p->affine)
    add_affine (DL_MODULE (object), &p->num_channels, 1, &error);
  if (error)
    dl_module_take_construct_error (DL_MODULE (object), error);
}

static void
dl_group_norm_layer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlGroupNormPrivate *p = gn_priv (object);

  switch (prop_id)
    {
      case GN_PROP_NUM_GROUPS:
        g_value_set_int64 (value, p->num_groups);
        break;
      case GN_PROP_NUM_CHANNELS:
        g_value_set_int64 (value, p->num_channels);
        break;
      case GN_PROP_EPS:
        g_value_set_double (value, p->eps);
        break;
      case GN_PROP_AFFINE:
        g_value_set_boolean (value, p->affine);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_group_norm_layer_set_property (GObject *object,
                                  guint prop_id,
                                  const GValue *value,
                                  GParamSpec *pspec)
{
  DlGroupNormPrivate *p = gn_priv (object);

  switch (prop_id)
    {
      case GN_PROP_NUM_GROUPS:
        p->num_groups = g_value_get_int64 (value);
        break;
      case GN_PROP_NUM_CHANNELS:
        p->num_channels = g_value_get_int64 (value);
        break;
      case GN_PROP_EPS:
        if (p->eps != g_value_get_double (value))
          {
            p->eps = g_value_get_double (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      case GN_PROP_AFFINE:
        p->affine = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_group_norm_layer_class_init (DlGroupNormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_group_norm_layer_constructed;
  object_class->get_property = dl_group_norm_layer_get_property;
  object_class->set_property = dl_group_norm_layer_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_group_norm_layer_forward;

  /**
   * DlGroupNorm:num-groups:
   *
   * The number of groups; it divides #DlGroupNorm:num-channels (required).
   *
   * Since: 0.1
   */
  gn_properties[GN_PROP_NUM_GROUPS] = int64_property ("num-groups", SIZE_UNSET);
  /**
   * DlGroupNorm:num-channels:
   *
   * The number of channels C (required).
   *
   * Since: 0.1
   */
  gn_properties[GN_PROP_NUM_CHANNELS] = int64_property ("num-channels", SIZE_UNSET);
  /**
   * DlGroupNorm:eps:
   *
   * Added to the variance (default 1e-5).
   *
   * Since: 0.1
   */
  gn_properties[GN_PROP_EPS] = double_property ("eps", 1e-5);
  /**
   * DlGroupNorm:affine:
   *
   * Whether the layer learns a "weight" and "bias" per channel (default
   * %TRUE).
   *
   * Since: 0.1
   */
  gn_properties[GN_PROP_AFFINE] = bool_property ("affine", TRUE);
  g_object_class_install_properties (object_class, GN_N_PROPS, gn_properties);
}

static void
dl_group_norm_layer_init (DlGroupNorm *self)
{
  DlGroupNormPrivate *p = gn_priv (self);

  p->num_groups = p->num_channels = SIZE_UNSET;
  p->eps = 1e-5;
  p->affine = TRUE;
}

/**
 * dl_group_norm_layer_new:
 * @num_groups: the number of groups
 * @num_channels: the number of channels C, a multiple of @num_groups
 * @error: return location for a #GError
 *
 * Creates a #DlGroupNorm with PyTorch's defaults (eps 1e-5, affine).
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlGroupNorm *
dl_group_norm_layer_new (gint64 num_groups, gint64 num_channels, GError **error)
{
  return g_initable_new (DL_TYPE_GROUP_NORM, NULL, error, "num-groups", num_groups, "num-channels",
                         num_channels, NULL);
}

/**
 * dl_batch_norm3d_layer_new:
 * @num_features: the number of channels C
 * @error: return location for a #GError
 *
 * Creates a #DlBatchNorm3d with PyTorch's defaults (eps 1e-5, momentum
 * 0.1, affine, tracking running statistics).
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlBatchNorm3d *
dl_batch_norm3d_layer_new (gint64 num_features, GError **error)
{
  return g_initable_new (DL_TYPE_BATCH_NORM3D, NULL, error, "num-features", num_features, NULL);
}
