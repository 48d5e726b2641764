/* dl-transformer.c: TransformerEncoderLayer, TransformerDecoderLayer,
 * their stacks and Transformer, as torch 1.13's (with torch 2's is_causal
 * hints). The layers run their children by name (self_attn, linear1,
 * dropout, linear2, norm1, ...), so a loaded or replaced child is the one
 * used; the feed-forward activation is the fused relu or gelu op.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-transformer.h"
#include "dl-attention.h"
#include "dl-containers.h"
#include "dl-enums.h"
#include "dl-error.h"
#include "dl-init.h"
#include "dl-linear.h"
#include "dl-module-private.h"
#include "dl-norm-modules.h"
#include "dl-pool-modules.h"
#include "dl-tensor-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-join.h"
#include "ops/dl-ops-pointwise.h"

/* The hyperparameters the layers and the model share */
typedef struct
{
  gint64 d_model;
  gint64 nhead;
  gint64 dim_feedforward;
  gdouble dropout;
  DlTransformerActivation activation;
  gdouble layer_norm_eps;
  gboolean batch_first;
  gboolean norm_first;
  gint64 num_encoder_layers; /* DlTransformer only */
  gint64 num_decoder_layers;
  DlDType dtype;    /* the building module's DlModule:dtype and :device, */
  DlDevice *device; /* given to its children (no reference: the module's) */
} TfConfig;

enum
{
  PROP_0,
  PROP_D_MODEL,
  PROP_NHEAD,
  PROP_DIM_FEEDFORWARD,
  PROP_DROPOUT,
  PROP_ACTIVATION,
  PROP_LAYER_NORM_EPS,
  PROP_BATCH_FIRST,
  PROP_NORM_FIRST,
  N_LAYER_PROPS,
  PROP_NUM_ENCODER_LAYERS = N_LAYER_PROPS,
  PROP_NUM_DECODER_LAYERS,
  N_MODEL_PROPS
};

#define CONSTRUCT_FLAGS                                                                            \
  (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
config_init (TfConfig *c)
{
  c->d_model = 512;
  c->nhead = 8;
  c->dim_feedforward = 2048;
  c->dropout = 0.1;
  c->activation = DL_TRANSFORMER_ACTIVATION_RELU;
  c->layer_norm_eps = 1e-5;
  c->num_encoder_layers = 6;
  c->num_decoder_layers = 6;
}

static void
config_get (TfConfig *c, guint prop_id, GValue *value)
{
  switch (prop_id)
    {
      case PROP_D_MODEL:
        g_value_set_int64 (value, c->d_model);
        break;
      case PROP_NHEAD:
        g_value_set_int64 (value, c->nhead);
        break;
      case PROP_DIM_FEEDFORWARD:
        g_value_set_int64 (value, c->dim_feedforward);
        break;
      case PROP_DROPOUT:
        g_value_set_double (value, c->dropout);
        break;
      case PROP_ACTIVATION:
        g_value_set_enum (value, c->activation);
        break;
      case PROP_LAYER_NORM_EPS:
        g_value_set_double (value, c->layer_norm_eps);
        break;
      case PROP_BATCH_FIRST:
        g_value_set_boolean (value, c->batch_first);
        break;
      case PROP_NORM_FIRST:
        g_value_set_boolean (value, c->norm_first);
        break;
      case PROP_NUM_ENCODER_LAYERS:
        g_value_set_int64 (value, c->num_encoder_layers);
        break;
      case PROP_NUM_DECODER_LAYERS:
        g_value_set_int64 (value, c->num_decoder_layers);
        break;
      default:
        g_assert_not_reached ();
    }
}

static void
config_set (TfConfig *c, guint prop_id, const GValue *value)
{
  switch (prop_id)
    {
      case PROP_D_MODEL:
        c->d_model = g_value_get_int64 (value);
        break;
      case PROP_NHEAD:
        c->nhead = g_value_get_int64 (value);
        break;
      case PROP_DIM_FEEDFORWARD:
        c->dim_feedforward = g_value_get_int64 (value);
        break;
      case PROP_DROPOUT:
        c->dropout = g_value_get_double (value);
        break;
      case PROP_ACTIVATION:
        c->activation = g_value_get_enum (value);
        break;
      case PROP_LAYER_NORM_EPS:
        c->layer_norm_eps = g_value_get_double (value);
        break;
      case PROP_BATCH_FIRST:
        c->batch_first = g_value_get_boolean (value);
        break;
      case PROP_NORM_FIRST:
        c->norm_first = g_value_get_boolean (value);
        break;
      case PROP_NUM_ENCODER_LAYERS:
        c->num_encoder_layers = g_value_get_int64 (value);
        break;
      case PROP_NUM_DECODER_LAYERS:
        c->num_decoder_layers = g_value_get_int64 (value);
        break;
      default:
        g_assert_not_reached ();
    }
}

/* The construct properties of the layers (and the model's first eight) */
static void
install_config_properties (GObjectClass *object_class, gboolean model)
{
  GParamSpec *props[N_MODEL_PROPS] = { NULL };

  props[PROP_D_MODEL]
      = g_param_spec_int64 ("d-model", NULL, NULL, G_MININT64, G_MAXINT64, 512, CONSTRUCT_FLAGS);
  props[PROP_NHEAD]
      = g_param_spec_int64 ("nhead", NULL, NULL, G_MININT64, G_MAXINT64, 8, CONSTRUCT_FLAGS);
  props[PROP_DIM_FEEDFORWARD] = g_param_spec_int64 ("dim-feedforward", NULL, NULL, G_MININT64,
                                                    G_MAXINT64, 2048, CONSTRUCT_FLAGS);
  props[PROP_DROPOUT] = g_param_spec_double ("dropout", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.1,
                                             CONSTRUCT_FLAGS);
  props[PROP_ACTIVATION]
      = g_param_spec_enum ("activation", NULL, NULL, DL_TYPE_TRANSFORMER_ACTIVATION,
                           DL_TRANSFORMER_ACTIVATION_RELU, CONSTRUCT_FLAGS);
  props[PROP_LAYER_NORM_EPS] = g_param_spec_double ("layer-norm-eps", NULL, NULL, -G_MAXDOUBLE,
                                                    G_MAXDOUBLE, 1e-5, CONSTRUCT_FLAGS);
  props[PROP_BATCH_FIRST]
      = g_param_spec_boolean ("batch-first", NULL, NULL, FALSE, CONSTRUCT_FLAGS);
  props[PROP_NORM_FIRST] = g_param_spec_boolean ("norm-first", NULL, NULL, FALSE, CONSTRUCT_FLAGS);
  if (model)
    {
      props[PROP_NUM_ENCODER_LAYERS] = g_param_spec_int64 (
          "num-encoder-layers", NULL, NULL, G_MININT64, G_MAXINT64, 6, CONSTRUCT_FLAGS);
      props[PROP_NUM_DECODER_LAYERS] = g_param_spec_int64 (
          "num-decoder-layers", NULL, NULL, G_MININT64, G_MAXINT64, 6, CONSTRUCT_FLAGS);
    }
  g_object_class_install_properties (object_class, model ? N_MODEL_PROPS : N_LAYER_PROPS, props);
}

static gboolean
config_check (const gchar *op, TfConfig *c, GError **error)
{
  if (c->d_model <= 0 || c->nhead <= 0 || c->dim_feedforward <= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: d_model, nhead and dim_feedforward must be > 0, got %" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT,
                   op, c->d_model, c->nhead, c->dim_feedforward);
      return FALSE;
    }
  if (c->num_encoder_layers < 0 || c->num_decoder_layers < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: the numbers of layers must be >= 0, got %" G_GINT64_FORMAT
                   " and %" G_GINT64_FORMAT,
                   op, c->num_encoder_layers, c->num_decoder_layers);
      return FALSE;
    }
  return TRUE;
}

static gboolean
add_child (DlModule *self, const gchar *name, gpointer child, GError **error)
{
  g_autoptr (DlModule) owned = child;

  return owned && dl_module_add_module (self, name, owned, error);
}

static gpointer
new_attention (TfConfig *c, GError **error)
{
  return g_initable_new (DL_TYPE_MULTIHEAD_ATTENTION, NULL, error, "embed-dim", c->d_model,
                         "num-heads", c->nhead, "dropout", c->dropout, "batch-first",
                         c->batch_first, "dtype", (gint)c->dtype, "device", c->device, NULL);
}

static gpointer
new_norm (TfConfig *c, GError **error)
{
  GVariant *shape
      = g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, &c->d_model, 1, sizeof (gint64));

  return g_initable_new (DL_TYPE_LAYER_NORM, NULL, error, "normalized-shape", shape, "eps",
                         c->layer_norm_eps, "dtype", (gint)c->dtype, "device", c->device, NULL);
}

static gpointer
new_linear (TfConfig *c, gint64 in_features, gint64 out_features, GError **error)
{
  return g_initable_new (DL_TYPE_LINEAR, NULL, error, "in-features", in_features, "out-features",
                         out_features, "dtype", (gint)c->dtype, "device", c->device, NULL);
}

/* an encoder or decoder layer of @type from the model's configuration */
static gpointer
new_layer (GType type, TfConfig *c, GError **error)
{
  return g_initable_new (type, NULL, error, "d-model", c->d_model, "nhead", c->nhead,
                         "dim-feedforward", c->dim_feedforward, "dropout", c->dropout, "activation",
                         c->activation, "layer-norm-eps", c->layer_norm_eps, "batch-first",
                         c->batch_first, "norm-first", c->norm_first, "dtype", (gint)c->dtype,
                         "device", c->device, NULL);
}

/* the children of a layer in torch's order: the attentions, then linear1,
 * dropout, linear2, the norms and the dropouts after each block */
static gboolean
build_layer (DlModule *self, TfConfig *c, gboolean decoder, GError **error)
{
  static const gchar *const norms[] = { "norm1", "norm2", "norm3" };
  static const gchar *const dropouts[] = { "dropout1", "dropout2", "dropout3" };
  gint blocks = decoder ? 3 : 2;

  c->dtype = dl_module_get_factory_dtype (self);
  c->device = dl_module_get_factory_device (self);
  if (!config_check (decoder ? "TransformerDecoderLayer" : "TransformerEncoderLayer", c, error)
      || !add_child (self, "self_attn", new_attention (c, error), error)
      || (decoder && !add_child (self, "multihead_attn", new_attention (c, error), error))
      || !add_child (self, "linear1", new_linear (c, c->d_model, c->dim_feedforward, error), error)
      || !add_child (self, "dropout", dl_dropout_layer_new (c->dropout, FALSE, error), error)
      || !add_child (self, "linear2", new_linear (c, c->dim_feedforward, c->d_model, error), error))
    return FALSE;
  for (gint i = 0; i < blocks; i++)
    if (!add_child (self, norms[i], new_norm (c, error), error))
      return FALSE;
  for (gint i = 0; i < blocks; i++)
    if (!add_child (self, dropouts[i], dl_dropout_layer_new (c->dropout, FALSE, error), error))
      return FALSE;
  return TRUE;
}

static DlModule *
child (DlModule *self, const gchar *op, const gchar *name, GError **error)
{
  DlModule *m = dl_module_get_module (self, name);

  if (m == NULL)
    g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: the layer has no child '%s'", op, name);
  return m;
}

static DlTensor *
run_child (DlModule *self, const gchar *op, const gchar *name, DlTensor *x, GError **error)
{
  DlModule *m = child (self, op, name, error);

  return m ? dl_module_forward (m, x, error) : NULL;
}

/* dropout_name (attn (x, mem, mem)), torch's _sa_block and _mha_block */
static DlTensor *
attention_block (DlModule *self,
                 const gchar *op,
                 const gchar *attn_name,
                 const gchar *dropout_name,
                 DlTensor *x,
                 DlTensor *mem,
                 DlTensor *mask,
                 DlTensor *kpm,
                 gboolean is_causal,
                 GError **error)
{
  DlModule *attn = child (self, op, attn_name, error);
  g_autoptr (DlTensor) a = NULL;

  if (attn == NULL)
    return NULL;
  if (!DL_IS_MULTIHEAD_ATTENTION (attn))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %s must be a MultiheadAttention, not %s", op, attn_name,
                   G_OBJECT_TYPE_NAME (attn));
      return NULL;
    }
  if (!(a = dl_multihead_attention_attend (DL_MULTIHEAD_ATTENTION (attn), x, mem, mem, kpm, FALSE,
                                           mask, TRUE, is_causal, NULL, error)))
    return NULL;
  return run_child (self, op, dropout_name, a, error);
}

/* dropout_name (linear2 (dropout (activation (linear1 (x))))) */
static DlTensor *
feed_forward_block (DlModule *self,
                    const gchar *op,
                    DlTransformerActivation activation,
                    const gchar *dropout_name,
                    DlTensor *x,
                    GError **error)
{
  g_autoptr (DlTensor) h = run_child (self, op, "linear1", x, error);
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) d = NULL;
  g_autoptr (DlTensor) y = NULL;

  if (h == NULL)
    return NULL;
  a = activation == DL_TRANSFORMER_ACTIVATION_GELU ? dl_tensor_gelu (h, error)
                                                   : dl_tensor_relu (h, error);
  if (a == NULL || !(d = run_child (self, op, "dropout", a, error))
      || !(y = run_child (self, op, "linear2", d, error)))
    return NULL;
  return run_child (self, op, dropout_name, y, error);
}

/* A residual step: norm_first: x + block (norm (x)); else norm (x + block (x)).
 * The block is one of the three above, given as a closure. */
typedef DlTensor *(*BlockFunc) (DlModule *self, gpointer data, DlTensor *x, GError **error);

static DlTensor *
residual (DlModule *self,
          const gchar *op,
          gboolean norm_first,
          const gchar *norm_name,
          BlockFunc block,
          gpointer data,
          DlTensor *x,
          GError **error)
{
  g_autoptr (DlTensor) n = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) s = NULL;

  if (norm_first)
    {
      if (!(n = run_child (self, op, norm_name, x, error)) || !(b = block (self, data, n, error)))
        return NULL;
      return dl_tensor_add (x, b, error);
    }
  if (!(b = block (self, data, x, error)) || !(s = dl_tensor_add (x, b, error)))
    return NULL;
  return run_child (self, op, norm_name, s, error);
}

typedef struct
{
  const gchar *op;
  const gchar *attn_name;
  const gchar *dropout_name;
  DlTensor *mem; /* NULL: self-attention */
  DlTensor *mask;
  DlTensor *kpm;
  gboolean is_causal;
  DlTransformerActivation activation;
} BlockArgs;

static DlTensor *
attention_step (DlModule *self, gpointer data, DlTensor *x, GError **error)
{
  BlockArgs *b = data;

  return attention_block (self, b->op, b->attn_name, b->dropout_name, x, b->mem ? b->mem : x,
                          b->mask, b->kpm, b->is_causal, error);
}

static DlTensor *
feed_forward_step (DlModule *self, gpointer data, DlTensor *x, GError **error)
{
  BlockArgs *b = data;

  return feed_forward_block (self, b->op, b->activation, b->dropout_name, x, error);
}

static gboolean
check_mask_dtype (const gchar *op, DlTensor *kpm, GError **error)
{
  DlDType t;

  if (kpm == NULL)
    return TRUE;
  t = dl_tensor_get_dtype (kpm);
  if (t != DL_DTYPE_BOOL && !dl_dtype_is_floating_point (t))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: only bool and floating types of key_padding_mask are supported", op);
      return FALSE;
    }
  return TRUE;
}

/* A copy of @layer: a new object of its type from the same construct
 * properties, in its dtype, with the values of its state dict (torch's
 * deepcopy in _get_clones) */
static DlModule *
clone_module (DlModule *layer, GError **error)
{
  guint n = 0, k = 0;
  g_autofree GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (layer), &n);
  g_autofree const gchar **names = g_new0 (const gchar *, n + 1);
  GValue *values = g_new0 (GValue, n + 1);
  g_autoptr (DlModule) copy = NULL;
  g_autoptr (DlTensorDict) state = NULL;
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (GBytes) saved = NULL;
  gboolean ok, init_ok;

  for (guint i = 0; i < n; i++)
    if ((specs[i]->flags & G_PARAM_CONSTRUCT_ONLY) && (specs[i]->flags & G_PARAM_READABLE))
      {
        names[k] = specs[i]->name;
        g_value_init (&values[k], specs[i]->value_type);
        g_object_get_property (G_OBJECT (layer), specs[i]->name, &values[k]);
        k++;
      }
  /* the copy's own initial values are overwritten below: the numbers it
   * draws at construction go back to the default generator, which a
   * deepcopy leaves as it was */
  saved = dl_generator_get_state (dl_default_generator ());
  copy = DL_MODULE (g_object_new_with_properties (G_OBJECT_TYPE (layer), k, names, values));
  for (guint i = 0; i < k; i++)
    g_value_unset (&values[i]);
  g_free (values);
  init_ok = g_initable_init (G_INITABLE (copy), NULL, error);
  if (!dl_generator_set_state (dl_default_generator (), saved, init_ok ? error : NULL) || !init_ok)
    return NULL;
  params = dl_module_named_parameters (layer, TRUE, NULL);
  if (params->len > 0 && !dl_module_to_dtype (copy, dl_tensor_get_dtype (params->pdata[0]), error))
    return NULL;
  state = dl_module_state_dict (layer);
  ok = dl_module_load_state_dict (copy, state, TRUE, NULL, NULL, error);
  if (!ok)
    return NULL;
  dl_module_set_training (copy, dl_module_get_training (layer));
  return g_steal_pointer (&copy);
}

/* "layers" (a DlModuleList of @num_layers copies of @layer) and "norm" */
static gboolean
build_stack (DlModule *self, DlModule *layer, gint64 num_layers, DlModule *norm, GError **error)
{
  g_autoptr (GPtrArray) copies = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlModuleList) list = NULL;

  if (num_layers < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: num_layers must be >= 0, got %" G_GINT64_FORMAT, G_OBJECT_TYPE_NAME (self),
                   num_layers);
      return FALSE;
    }
  for (gint64 i = 0; i < num_layers; i++)
    {
      DlModule *c = clone_module (layer, error);

      if (c == NULL)
        return FALSE;
      g_ptr_array_add (copies, c);
    }
  list = dl_module_list_new (copies);
  if (!dl_module_add_module (self, "layers", DL_MODULE (list), error))
    return FALSE;
  return norm == NULL || dl_module_add_module (self, "norm", norm, error);
}

/* ---- DlTransformerEncoderLayer ---------------------------------------- */

/**
 * DlTransformerEncoderLayer:
 *
 * A Transformer encoder layer, as torch.nn.TransformerEncoderLayer:
 * self-attention and a feed-forward block, each with a residual
 * connection, layer norm (after each, or before with
 * #DlTransformerEncoderLayer:norm-first) and dropout. Its children, in
 * torch's names and order: "self_attn" (#DlMultiheadAttention),
 * "linear1", "dropout", "linear2", "norm1", "norm2", "dropout1",
 * "dropout2". dl_transformer_encoder_layer_encode() takes the masks.
 *
 * Its construct properties are #DlTransformerEncoderLayer:d-model,
 * #DlTransformerEncoderLayer:nhead, #DlTransformerEncoderLayer:dim-feedforward,
 * #DlTransformerEncoderLayer:dropout, #DlTransformerEncoderLayer:activation,
 * #DlTransformerEncoderLayer:layer-norm-eps,
 * #DlTransformerEncoderLayer:batch-first and
 * #DlTransformerEncoderLayer:norm-first.
 *
 * Since: 0.1
 */
typedef struct
{
  TfConfig config;
} DlTransformerEncoderLayerPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlTransformerEncoderLayer, dl_transformer_encoder_layer, DL_TYPE_MODULE)

static TfConfig *
enc_config (gpointer self)
{
  return &((DlTransformerEncoderLayerPrivate *)dl_transformer_encoder_layer_get_instance_private (
               DL_TRANSFORMER_ENCODER_LAYER (self)))
              ->config;
}

static DlTensor *
dl_transformer_encoder_layer_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_transformer_encoder_layer_encode (DL_TRANSFORMER_ENCODER_LAYER (module), input, NULL,
                                              NULL, FALSE, error);
}

static void
dl_transformer_encoder_layer_constructed (GObject *object)
{
  GError *error = NULL;

  G_OBJECT_CLASS (dl_transformer_encoder_layer_parent_class)->constructed (object);
  if (!build_layer (DL_MODULE (object), enc_config (object), FALSE, &error))
    dl_module_take_construct_error (DL_MODULE (object), error);
}

static void
dl_transformer_encoder_layer_get_property (GObject *object,
                                           guint prop_id,
                                           GValue *value,
                                           GParamSpec *pspec)
{
  config_get (enc_config (object), prop_id, value);
}

static void
dl_transformer_encoder_layer_set_property (GObject *object,
                                           guint prop_id,
                                           const GValue *value,
                                           GParamSpec *pspec)
{
  config_set (enc_config (object), prop_id, value);
}

static void
dl_transformer_encoder_layer_class_init (DlTransformerEncoderLayerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_transformer_encoder_layer_constructed;
  object_class->get_property = dl_transformer_encoder_layer_get_property;
  object_class->set_property = dl_transformer_encoder_layer_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_transformer_encoder_layer_forward;

  /**
   * DlTransformerEncoderLayer:d-model:
   *
   * The embedding size (512).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerEncoderLayer:nhead:
   *
   * The number of attention heads, dividing #DlTransformerEncoderLayer:d-model
   * (8).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerEncoderLayer:dim-feedforward:
   *
   * The width of the feed-forward block (2048).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerEncoderLayer:dropout:
   *
   * The dropout probability of every dropout of the layer (0.1).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerEncoderLayer:activation:
   *
   * The feed-forward activation (relu).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerEncoderLayer:layer-norm-eps:
   *
   * The eps of the layer norms (1e-5).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerEncoderLayer:batch-first:
   *
   * Whether batched inputs are (N, L, E) rather than (L, N, E) (%FALSE).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerEncoderLayer:norm-first:
   *
   * Whether layer norm comes before each block rather than after its
   * residual sum (%FALSE).
   *
   * Since: 0.1
   */
  install_config_properties (object_class, FALSE);
}

static void
dl_transformer_encoder_layer_init (DlTransformerEncoderLayer *self)
{
  config_init (enc_config (self));
}

/**
 * dl_transformer_encoder_layer_new:
 * @d_model: the embedding size
 * @nhead: the number of heads
 * @dim_feedforward: the width of the feed-forward block
 * @dropout: the dropout probability
 * @activation: the feed-forward activation
 * @layer_norm_eps: the eps of the layer norms
 * @batch_first: whether batched inputs are (N, L, E)
 * @norm_first: whether layer norm comes before each block
 * @error: return location for a #GError
 *
 * Creates a #DlTransformerEncoderLayer.
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTransformerEncoderLayer *
dl_transformer_encoder_layer_new (gint64 d_model,
                                  gint64 nhead,
                                  gint64 dim_feedforward,
                                  gdouble dropout,
                                  DlTransformerActivation activation,
                                  gdouble layer_norm_eps,
                                  gboolean batch_first,
                                  gboolean norm_first,
                                  GError **error)
{
  return g_initable_new (DL_TYPE_TRANSFORMER_ENCODER_LAYER, NULL, error, "d-model", d_model,
                         "nhead", nhead, "dim-feedforward", dim_feedforward, "dropout", dropout,
                         "activation", activation, "layer-norm-eps", layer_norm_eps, "batch-first",
                         batch_first, "norm-first", norm_first, NULL);
}

/**
 * dl_transformer_encoder_layer_encode:
 * @self: a #DlTransformerEncoderLayer
 * @src: the sequence (S, N, E), batch first (N, S, E) or unbatched (S, E)
 * @src_mask: (nullable): the attention mask (S, S) or (N·nhead, S, S), as
 *   dl_multihead_attention_attend() takes it (bool %TRUE: not allowed)
 * @src_key_padding_mask: (nullable): (N, S) or (S), bool (%TRUE: padding)
 *   or float
 * @is_causal: a hint that @src_mask is the causal mask (torch 2's)
 * @error: return location for a #GError
 *
 * torch.nn.TransformerEncoderLayer's forward.
 *
 * Returns: (transfer full): the output, of @src's shape, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_transformer_encoder_layer_encode (DlTransformerEncoderLayer *self,
                                     DlTensor *src,
                                     DlTensor *src_mask,
                                     DlTensor *src_key_padding_mask,
                                     gboolean is_causal,
                                     GError **error)
{
  static const gchar op[] = "TransformerEncoderLayer";
  DlModule *module = DL_MODULE (self);
  TfConfig *c;
  BlockArgs sa = { op, "self_attn", "dropout1", NULL, src_mask, src_key_padding_mask, is_causal };
  BlockArgs ff = { op, NULL, "dropout2" };
  g_autoptr (DlTensor) x = NULL;

  g_return_val_if_fail (DL_IS_TRANSFORMER_ENCODER_LAYER (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  if (!dl_module_check_constructed (module, error)
      || !check_mask_dtype (op, src_key_padding_mask, error))
    return NULL;
  c = enc_config (self);
  ff.activation = c->activation;
  if (!(x = residual (module, op, c->norm_first, "norm1", attention_step, &sa, src, error)))
    return NULL;
  return residual (module, op, c->norm_first, "norm2", feed_forward_step, &ff, x, error);
}

/* ---- DlTransformerDecoderLayer ---------------------------------------- */

/**
 * DlTransformerDecoderLayer:
 *
 * A Transformer decoder layer, as torch.nn.TransformerDecoderLayer:
 * self-attention, attention over the encoder's output (the memory) and a
 * feed-forward block, each with a residual connection, layer norm and
 * dropout. Its children, in torch's names and order: "self_attn",
 * "multihead_attn", "linear1", "dropout", "linear2", "norm1", "norm2",
 * "norm3", "dropout1", "dropout2", "dropout3". dl_module_forward_many()
 * takes [tgt, memory]; dl_transformer_decoder_layer_decode() the masks
 * too.
 *
 * Its construct properties are those of #DlTransformerEncoderLayer.
 *
 * Since: 0.1
 */
typedef struct
{
  TfConfig config;
} DlTransformerDecoderLayerPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlTransformerDecoderLayer, dl_transformer_decoder_layer, DL_TYPE_MODULE)

static TfConfig *
dec_config (gpointer self)
{
  return &((DlTransformerDecoderLayerPrivate *)dl_transformer_decoder_layer_get_instance_private (
               DL_TRANSFORMER_DECODER_LAYER (self)))
              ->config;
}

static gboolean
two_inputs (const gchar *op, GPtrArray *inputs, GError **error)
{
  if (inputs->len != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: forward takes [tgt, memory], got %u inputs", op, inputs->len);
      return FALSE;
    }
  return TRUE;
}

static void
one_output (GPtrArray **outputs, DlTensor *out)
{
  if (out == NULL)
    return;
  *outputs = g_ptr_array_new ();
  g_ptr_array_add (*outputs, out);
}

static void
dl_transformer_decoder_layer_forward_many (DlModule *module,
                                           GPtrArray *inputs,
                                           GPtrArray **outputs,
                                           GError **error)
{
  if (two_inputs ("TransformerDecoderLayer", inputs, error))
    one_output (outputs, dl_transformer_decoder_layer_decode (
                             DL_TRANSFORMER_DECODER_LAYER (module), inputs->pdata[0],
                             inputs->pdata[1], NULL, NULL, NULL, NULL, FALSE, FALSE, error));
}

static void
dl_transformer_decoder_layer_constructed (GObject *object)
{
  GError *error = NULL;

  G_OBJECT_CLASS (dl_transformer_decoder_layer_parent_class)->constructed (object);
  if (!build_layer (DL_MODULE (object), dec_config (object), TRUE, &error))
    dl_module_take_construct_error (DL_MODULE (object), error);
}

static void
dl_transformer_decoder_layer_get_property (GObject *object,
                                           guint prop_id,
                                           GValue *value,
                                           GParamSpec *pspec)
{
  config_get (dec_config (object), prop_id, value);
}

static void
dl_transformer_decoder_layer_set_property (GObject *object,
                                           guint prop_id,
                                           const GValue *value,
                                           GParamSpec *pspec)
{
  config_set (dec_config (object), prop_id, value);
}

static void
dl_transformer_decoder_layer_class_init (DlTransformerDecoderLayerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_transformer_decoder_layer_constructed;
  object_class->get_property = dl_transformer_decoder_layer_get_property;
  object_class->set_property = dl_transformer_decoder_layer_set_property;
  DL_MODULE_CLASS (klass)->forward_many = dl_transformer_decoder_layer_forward_many;

  /**
   * DlTransformerDecoderLayer:d-model:
   *
   * The embedding size (512).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerDecoderLayer:nhead:
   *
   * The number of attention heads (8).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerDecoderLayer:dim-feedforward:
   *
   * The width of the feed-forward block (2048).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerDecoderLayer:dropout:
   *
   * The dropout probability of every dropout of the layer (0.1).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerDecoderLayer:activation:
   *
   * The feed-forward activation (relu).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerDecoderLayer:layer-norm-eps:
   *
   * The eps of the layer norms (1e-5).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerDecoderLayer:batch-first:
   *
   * Whether batched inputs are (N, L, E) rather than (L, N, E) (%FALSE).
   *
   * Since: 0.1
   */
  /**
   * DlTransformerDecoderLayer:norm-first:
   *
   * Whether layer norm comes before each block (%FALSE).
   *
   * Since: 0.1
   */
  install_config_properties (object_class, FALSE);
}

static void
dl_transformer_decoder_layer_init (DlTransformerDecoderLayer *self)
{
  config_init (dec_config (self));
}

/**
 * dl_transformer_decoder_layer_new:
 * @d_model: the embedding size
 * @nhead: the number of heads
 * @dim_feedforward: the width of the feed-forward block
 * @dropout: the dropout probability
 * @activation: the feed-forward activation
 * @layer_norm_eps: the eps of the layer norms
 * @batch_first: whether batched inputs are (N, L, E)
 * @norm_first: whether layer norm comes before each block
 * @error: return location for a #GError
 *
 * Creates a #DlTransformerDecoderLayer.
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTransformerDecoderLayer *
dl_transformer_decoder_layer_new (gint64 d_model,
                                  gint64 nhead,
                                  gint64 dim_feedforward,
                                  gdouble dropout,
                                  DlTransformerActivation activation,
                                  gdouble layer_norm_eps,
                                  gboolean batch_first,
                                  gboolean norm_first,
                                  GError **error)
{
  return g_initable_new (DL_TYPE_TRANSFORMER_DECODER_LAYER, NULL, error, "d-model", d_model,
                         "nhead", nhead, "dim-feedforward", dim_feedforward, "dropout", dropout,
                         "activation", activation, "layer-norm-eps", layer_norm_eps, "batch-first",
                         batch_first, "norm-first", norm_first, NULL);
}

/**
 * dl_transformer_decoder_layer_decode:
 * @self: a #DlTransformerDecoderLayer
 * @tgt: the target sequence (T, N, E), (N, T, E) or (T, E)
 * @memory: the encoder's output (S, N, E), (N, S, E) or (S, E)
 * @tgt_mask: (nullable): the self-attention mask (T, T) or (N·nhead, T, T)
 * @memory_mask: (nullable): the memory attention mask (T, S) or
 *   (N·nhead, T, S)
 * @tgt_key_padding_mask: (nullable): (N, T) or (T)
 * @memory_key_padding_mask: (nullable): (N, S) or (S)
 * @tgt_is_causal: a hint that @tgt_mask is the causal mask
 * @memory_is_causal: a hint that @memory_mask is the causal mask
 * @error: return location for a #GError
 *
 * torch.nn.TransformerDecoderLayer's forward.
 *
 * Returns: (transfer full): the output, of @tgt's shape, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_transformer_decoder_layer_decode (DlTransformerDecoderLayer *self,
                                     DlTensor *tgt,
                                     DlTensor *memory,
                                     DlTensor *tgt_mask,
                                     DlTensor *memory_mask,
                                     DlTensor *tgt_key_padding_mask,
                                     DlTensor *memory_key_padding_mask,
                                     gboolean tgt_is_causal,
                                     gboolean memory_is_causal,
                                     GError **error)
{
  static const gchar op[] = "TransformerDecoderLayer";
  DlModule *module = DL_MODULE (self);
  TfConfig *c;
  BlockArgs sa
      = { op, "self_attn", "dropout1", NULL, tgt_mask, tgt_key_padding_mask, tgt_is_causal };
  BlockArgs ca = { op,          "multihead_attn",        "dropout2",      memory,
                   memory_mask, memory_key_padding_mask, memory_is_causal };
  BlockArgs ff = { op, NULL, "dropout3" };
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;

  g_return_val_if_fail (DL_IS_TRANSFORMER_DECODER_LAYER (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (tgt) && DL_IS_TENSOR (memory), NULL);
  if (!dl_module_check_constructed (module, error))
    return NULL;
  c = dec_config (self);
  ff.activation = c->activation;
  if (!(x = residual (module, op, c->norm_first, "norm1", attention_step, &sa, tgt, error))
      || !(y = residual (module, op, c->norm_first, "norm2", attention_step, &ca, x, error)))
    return NULL;
  return residual (module, op, c->norm_first, "norm3", feed_forward_step, &ff, y, error);
}

/* ---- the stacks ------------------------------------------------------- */

static GPtrArray *
stack_layers (DlModule *self, const gchar *op, GError **error)
{
  DlModule *layers = child (self, op, "layers", error);

  return layers ? dl_module_children (layers) : NULL;
}

static DlTensor *
final_norm (DlModule *self, DlTensor *x, GError **error)
{
  DlModule *norm = dl_module_get_module (self, "norm");

  return norm ? dl_module_forward (norm, x, error) : g_object_ref (x);
}

/**
 * DlTransformerEncoder:
 *
 * A stack of encoder layers, as torch.nn.TransformerEncoder: the child
 * "layers" (a #DlModuleList of copies of one layer: "layers.0", ...) and
 * an optional final "norm". Made with dl_transformer_encoder_new(); its
 * construct property #DlTransformerEncoder:num-layers only records the
 * number of layers.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 num_layers;
} DlTransformerEncoderPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlTransformerEncoder, dl_transformer_encoder, DL_TYPE_MODULE)

/**
 * DlTransformerDecoder:
 *
 * A stack of decoder layers, as torch.nn.TransformerDecoder: the child
 * "layers" (a #DlModuleList) and an optional final "norm". Made with
 * dl_transformer_decoder_new(); dl_module_forward_many() takes [tgt,
 * memory].
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 num_layers;
} DlTransformerDecoderPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlTransformerDecoder, dl_transformer_decoder, DL_TYPE_MODULE)

enum
{
  STACK_PROP_0,
  STACK_PROP_NUM_LAYERS,
  STACK_N_PROPS
};

static gint64 *
stack_num_layers (GObject *object)
{
  if (DL_IS_TRANSFORMER_ENCODER (object))
    return &((DlTransformerEncoderPrivate *)dl_transformer_encoder_get_instance_private (
                 DL_TRANSFORMER_ENCODER (object)))
                ->num_layers;
  return &((DlTransformerDecoderPrivate *)dl_transformer_decoder_get_instance_private (
               DL_TRANSFORMER_DECODER (object)))
              ->num_layers;
}

static void
stack_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  if (prop_id == STACK_PROP_NUM_LAYERS)
    g_value_set_int64 (value, *stack_num_layers (object));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
stack_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  if (prop_id == STACK_PROP_NUM_LAYERS)
    *stack_num_layers (object) = g_value_get_int64 (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
stack_install_properties (GObjectClass *object_class)
{
  object_class->get_property = stack_get_property;
  object_class->set_property = stack_set_property;
  g_object_class_install_property (
      object_class, STACK_PROP_NUM_LAYERS,
      g_param_spec_int64 ("num-layers", NULL, NULL, G_MININT64, G_MAXINT64, 0, CONSTRUCT_FLAGS));
}

static DlTensor *
dl_transformer_encoder_forward (DlModule *module, DlTensor *input, GError **error)
{
  return dl_transformer_encoder_encode (DL_TRANSFORMER_ENCODER (module), input, NULL, NULL, FALSE,
                                        error);
}

static void
dl_transformer_encoder_class_init (DlTransformerEncoderClass *klass)
{
  /**
   * DlTransformerEncoder:num-layers:
   *
   * The number of layers the stack was made with (0).
   *
   * Since: 0.1
   */
  stack_install_properties (G_OBJECT_CLASS (klass));
  DL_MODULE_CLASS (klass)->forward = dl_transformer_encoder_forward;
}

static void
dl_transformer_encoder_init (DlTransformerEncoder *self)
{
}

/**
 * dl_transformer_encoder_new:
 * @encoder_layer: the layer to copy (a #DlTransformerEncoderLayer or any
 *   module with construct properties and a state dict)
 * @num_layers: the number of copies
 * @norm: (nullable): the final norm
 * @error: return location for a #GError
 *
 * Creates a #DlTransformerEncoder of @num_layers copies of @encoder_layer
 * (each with its parameters' values, as torch's deepcopy) and @norm.
 *
 * Returns: (transfer full): a new stack, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTransformerEncoder *
dl_transformer_encoder_new (DlModule *encoder_layer,
                            gint64 num_layers,
                            DlModule *norm,
                            GError **error)
{
  g_autoptr (DlTransformerEncoder) self = NULL;

  g_return_val_if_fail (DL_IS_MODULE (encoder_layer), NULL);
  g_return_val_if_fail (norm == NULL || DL_IS_MODULE (norm), NULL);
  self = g_initable_new (DL_TYPE_TRANSFORMER_ENCODER, NULL, error, "num-layers", num_layers, NULL);
  if (self == NULL || !build_stack (DL_MODULE (self), encoder_layer, num_layers, norm, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * dl_transformer_encoder_encode:
 * @self: a #DlTransformerEncoder
 * @src: the sequence (S, N, E), (N, S, E) or (S, E)
 * @mask: (nullable): the attention mask of every layer
 * @src_key_padding_mask: (nullable): (N, S) or (S)
 * @is_causal: a hint that @mask is the causal mask
 * @error: return location for a #GError
 *
 * torch.nn.TransformerEncoder's forward: each layer in turn, then the
 * norm. A layer that is no #DlTransformerEncoderLayer runs through
 * dl_module_forward() (without the masks).
 *
 * Returns: (transfer full): the output, of @src's shape, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_transformer_encoder_encode (DlTransformerEncoder *self,
                               DlTensor *src,
                               DlTensor *mask,
                               DlTensor *src_key_padding_mask,
                               gboolean is_causal,
                               GError **error)
{
  static const gchar op[] = "TransformerEncoder";
  g_autoptr (GPtrArray) layers = NULL;
  g_autoptr (DlTensor) x = NULL;

  g_return_val_if_fail (DL_IS_TRANSFORMER_ENCODER (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  if (!dl_module_check_constructed (DL_MODULE (self), error)
      || !check_mask_dtype (op, src_key_padding_mask, error)
      || !(layers = stack_layers (DL_MODULE (self), op, error)))
    return NULL;
  x = g_object_ref (src);
  for (guint i = 0; i < layers->len; i++)
    {
      DlModule *layer = layers->pdata[i];
      DlTensor *y;

      if (DL_IS_TRANSFORMER_ENCODER_LAYER (layer))
        y = dl_transformer_encoder_layer_encode (DL_TRANSFORMER_ENCODER_LAYER (layer), x, mask,
                                                 src_key_padding_mask, is_causal, error);
      else
        y = dl_module_forward (layer, x, error);
      if (y == NULL)
        return NULL;
      g_object_unref (x);
      x = y;
    }
  return final_norm (DL_MODULE (self), x, error);
}

static void
dl_transformer_decoder_forward_many (DlModule *module,
                                     GPtrArray *inputs,
                                     GPtrArray **outputs,
                                     GError **error)
{
  if (two_inputs ("TransformerDecoder", inputs, error))
    one_output (outputs, dl_transformer_decoder_decode (DL_TRANSFORMER_DECODER (module),
                                                        inputs->pdata[0], inputs->pdata[1], NULL,
                                                        NULL, NULL, NULL, FALSE, FALSE, error));
}

static void
dl_transformer_decoder_class_init (DlTransformerDecoderClass *klass)
{
  /**
   * DlTransformerDecoder:num-layers:
   *
   * The number of layers the stack was made with (0).
   *
   * Since: 0.1
   */
  stack_install_properties (G_OBJECT_CLASS (klass));
  DL_MODULE_CLASS (klass)->forward_many = dl_transformer_decoder_forward_many;
}

static void
dl_transformer_decoder_init (DlTransformerDecoder *self)
{
}

/**
 * dl_transformer_decoder_new:
 * @decoder_layer: the layer to copy
 * @num_layers: the number of copies
 * @norm: (nullable): the final norm
 * @error: return location for a #GError
 *
 * Creates a #DlTransformerDecoder of @num_layers copies of @decoder_layer
 * and @norm.
 *
 * Returns: (transfer full): a new stack, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTransformerDecoder *
dl_transformer_decoder_new (DlModule *decoder_layer,
                            gint64 num_layers,
                            DlModule *norm,
                            GError **error)
{
  g_autoptr (DlTransformerDecoder) self = NULL;

  g_return_val_if_fail (DL_IS_MODULE (decoder_layer), NULL);
  g_return_val_if_fail (norm == NULL || DL_IS_MODULE (norm), NULL);
  self = g_initable_new (DL_TYPE_TRANSFORMER_DECODER, NULL, error, "num-layers", num_layers, NULL);
  if (self == NULL || !build_stack (DL_MODULE (self), decoder_layer, num_layers, norm, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * dl_transformer_decoder_decode:
 * @self: a #DlTransformerDecoder
 * @tgt: the target sequence (T, N, E), (N, T, E) or (T, E)
 * @memory: the encoder's output
 * @tgt_mask: (nullable): the self-attention mask of every layer
 * @memory_mask: (nullable): the memory attention mask of every layer
 * @tgt_key_padding_mask: (nullable): (N, T) or (T)
 * @memory_key_padding_mask: (nullable): (N, S) or (S)
 * @tgt_is_causal: a hint that @tgt_mask is the causal mask
 * @memory_is_causal: a hint that @memory_mask is the causal mask
 * @error: return location for a #GError
 *
 * torch.nn.TransformerDecoder's forward: each layer in turn, then the
 * norm. A layer that is no #DlTransformerDecoderLayer runs through
 * dl_module_forward_many() on [tgt, memory].
 *
 * Returns: (transfer full): the output, of @tgt's shape, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_transformer_decoder_decode (DlTransformerDecoder *self,
                               DlTensor *tgt,
                               DlTensor *memory,
                               DlTensor *tgt_mask,
                               DlTensor *memory_mask,
                               DlTensor *tgt_key_padding_mask,
                               DlTensor *memory_key_padding_mask,
                               gboolean tgt_is_causal,
                               gboolean memory_is_causal,
                               GError **error)
{
  static const gchar op[] = "TransformerDecoder";
  g_autoptr (GPtrArray) layers = NULL;
  g_autoptr (DlTensor) x = NULL;

  g_return_val_if_fail (DL_IS_TRANSFORMER_DECODER (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (tgt) && DL_IS_TENSOR (memory), NULL);
  if (!dl_module_check_constructed (DL_MODULE (self), error)
      || !(layers = stack_layers (DL_MODULE (self), op, error)))
    return NULL;
  x = g_object_ref (tgt);
  for (guint i = 0; i < layers->len; i++)
    {
      DlModule *layer = layers->pdata[i];
      DlTensor *y = NULL;

      if (DL_IS_TRANSFORMER_DECODER_LAYER (layer))
        y = dl_transformer_decoder_layer_decode (
            DL_TRANSFORMER_DECODER_LAYER (layer), x, memory, tgt_mask, memory_mask,
            tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal, memory_is_causal, error);
      else
        {
          g_autoptr (GPtrArray) in = g_ptr_array_new ();
          g_autoptr (GPtrArray) out = NULL;

          g_ptr_array_add (in, x);
          g_ptr_array_add (in, memory);
          if ((out = dl_module_forward_many (layer, in, error)) && out->len > 0)
            y = g_object_ref (out->pdata[0]);
        }
      if (y == NULL)
        {
          if (error && *error == NULL)
            g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "%s: layer %u gave no output", op, i);
          return NULL;
        }
      g_object_unref (x);
      x = y;
    }
  return final_norm (DL_MODULE (self), x, error);
}

/* ---- DlTransformer ---------------------------------------------------- */

/**
 * DlTransformer:
 *
 * The Transformer model, as torch.nn.Transformer: the children "encoder"
 * (a #DlTransformerEncoder of #DlTransformer:num-encoder-layers layers
 * with a final #DlLayerNorm) and "decoder" (a #DlTransformerDecoder
 * likewise), every parameter of more than one dim initialised by
 * xavier_uniform_ as torch's _reset_parameters. torch's defaults:
 * d_model 512, nhead 8, 6 + 6 layers, dim_feedforward 2048, dropout 0.1.
 * dl_module_forward_many() takes [src, tgt]; dl_transformer_transform()
 * the masks too.
 *
 * Since: 0.1
 */
typedef struct
{
  TfConfig config;
} DlTransformerPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlTransformer, dl_transformer, DL_TYPE_MODULE)

static TfConfig *
tf_config (gpointer self)
{
  return &((DlTransformerPrivate *)dl_transformer_get_instance_private (DL_TRANSFORMER (self)))
              ->config;
}

static gboolean
build_model (DlModule *self, TfConfig *c, GError **error)
{
  g_autoptr (DlModule) enc_layer = NULL;
  g_autoptr (DlModule) dec_layer = NULL;
  g_autoptr (DlModule) enc_norm = NULL;
  g_autoptr (DlModule) dec_norm = NULL;
  g_autoptr (DlModule) encoder = NULL;
  g_autoptr (DlModule) decoder = NULL;
  g_autoptr (GPtrArray) params = NULL;

  c->dtype = dl_module_get_factory_dtype (self);
  c->device = dl_module_get_factory_device (self);
  if (!config_check ("Transformer", c, error)
      || !(enc_layer = new_layer (DL_TYPE_TRANSFORMER_ENCODER_LAYER, c, error))
      || !(enc_norm = new_norm (c, error))
      || !(encoder = (DlModule *)dl_transformer_encoder_new (enc_layer, c->num_encoder_layers,
                                                             enc_norm, error))
      || !dl_module_add_module (self, "encoder", encoder, error)
      || !(dec_layer = new_layer (DL_TYPE_TRANSFORMER_DECODER_LAYER, c, error))
      || !(dec_norm = new_norm (c, error))
      || !(decoder = (DlModule *)dl_transformer_decoder_new (dec_layer, c->num_decoder_layers,
                                                             dec_norm, error))
      || !dl_module_add_module (self, "decoder", decoder, error))
    return FALSE;
  params = dl_module_named_parameters (self, TRUE, NULL);
  for (guint i = 0; i < params->len; i++)
    if (dl_tensor_get_ndim (params->pdata[i]) > 1
        && !dl_init_xavier_uniform_ (params->pdata[i], 1.0, NULL, error))
      return FALSE;
  return TRUE;
}

static void
dl_transformer_forward_many (DlModule *module,
                             GPtrArray *inputs,
                             GPtrArray **outputs,
                             GError **error)
{
  if (inputs->len != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Transformer: forward takes [src, tgt], got %u inputs", inputs->len);
      return;
    }
  one_output (outputs, dl_transformer_transform (DL_TRANSFORMER (module), inputs->pdata[0],
                                                 inputs->pdata[1], NULL, NULL, NULL, NULL, NULL,
                                                 NULL, FALSE, FALSE, FALSE, error));
}

static void
dl_transformer_constructed (GObject *object)
{
  GError *error = NULL;

  G_OBJECT_CLASS (dl_transformer_parent_class)->constructed (object);
  if (!build_model (DL_MODULE (object), tf_config (object), &error))
    dl_module_take_construct_error (DL_MODULE (object), error);
}

static void
dl_transformer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  config_get (tf_config (object), prop_id, value);
}

static void
dl_transformer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  config_set (tf_config (object), prop_id, value);
}

static void
dl_transformer_class_init (DlTransformerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_transformer_constructed;
  object_class->get_property = dl_transformer_get_property;
  object_class->set_property = dl_transformer_set_property;
  DL_MODULE_CLASS (klass)->forward_many = dl_transformer_forward_many;

  /**
   * DlTransformer:d-model:
   *
   * The embedding size (512).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:nhead:
   *
   * The number of attention heads (8).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:dim-feedforward:
   *
   * The width of the feed-forward blocks (2048).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:dropout:
   *
   * The dropout probability (0.1).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:activation:
   *
   * The feed-forward activation (relu).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:layer-norm-eps:
   *
   * The eps of the layer norms (1e-5).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:batch-first:
   *
   * Whether batched inputs are (N, L, E) (%FALSE).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:norm-first:
   *
   * Whether layer norm comes before each block (%FALSE).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:num-encoder-layers:
   *
   * The number of encoder layers (6).
   *
   * Since: 0.1
   */
  /**
   * DlTransformer:num-decoder-layers:
   *
   * The number of decoder layers (6).
   *
   * Since: 0.1
   */
  install_config_properties (object_class, TRUE);
}

static void
dl_transformer_init (DlTransformer *self)
{
  config_init (tf_config (self));
}

/**
 * dl_transformer_new:
 * @d_model: the embedding size
 * @nhead: the number of heads
 * @num_encoder_layers: the number of encoder layers
 * @num_decoder_layers: the number of decoder layers
 * @dim_feedforward: the width of the feed-forward blocks
 * @dropout: the dropout probability
 * @activation: the feed-forward activation
 * @layer_norm_eps: the eps of the layer norms
 * @batch_first: whether batched inputs are (N, L, E)
 * @norm_first: whether layer norm comes before each block
 * @error: return location for a #GError
 *
 * Creates a #DlTransformer.
 *
 * Returns: (transfer full): a new model, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTransformer *
dl_transformer_new (gint64 d_model,
                    gint64 nhead,
                    gint64 num_encoder_layers,
                    gint64 num_decoder_layers,
                    gint64 dim_feedforward,
                    gdouble dropout,
                    DlTransformerActivation activation,
                    gdouble layer_norm_eps,
                    gboolean batch_first,
                    gboolean norm_first,
                    GError **error)
{
  return g_initable_new (DL_TYPE_TRANSFORMER, NULL, error, "d-model", d_model, "nhead", nhead,
                         "num-encoder-layers", num_encoder_layers, "num-decoder-layers",
                         num_decoder_layers, "dim-feedforward", dim_feedforward, "dropout", dropout,
                         "activation", activation, "layer-norm-eps", layer_norm_eps, "batch-first",
                         batch_first, "norm-first", norm_first, NULL);
}

/**
 * dl_transformer_transform:
 * @self: a #DlTransformer
 * @src: the source sequence (S, N, E), (N, S, E) or (S, E)
 * @tgt: the target sequence (T, N, E), (N, T, E) or (T, E)
 * @src_mask: (nullable): the encoder's attention mask (S, S)
 * @tgt_mask: (nullable): the decoder's self-attention mask (T, T), such as
 *   dl_transformer_generate_square_subsequent_mask() gives
 * @memory_mask: (nullable): the decoder's memory attention mask (T, S)
 * @src_key_padding_mask: (nullable): (N, S) or (S)
 * @tgt_key_padding_mask: (nullable): (N, T) or (T)
 * @memory_key_padding_mask: (nullable): (N, S) or (S)
 * @src_is_causal: a hint that @src_mask is the causal mask
 * @tgt_is_causal: a hint that @tgt_mask is the causal mask
 * @memory_is_causal: a hint that @memory_mask is the causal mask
 * @error: return location for a #GError
 *
 * torch.nn.Transformer's forward: the encoder on @src, the decoder on
 * @tgt and the encoder's output.
 *
 * Returns: (transfer full): the output, of @tgt's shape, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_transformer_transform (DlTransformer *self,
                          DlTensor *src,
                          DlTensor *tgt,
                          DlTensor *src_mask,
                          DlTensor *tgt_mask,
                          DlTensor *memory_mask,
                          DlTensor *src_key_padding_mask,
                          DlTensor *tgt_key_padding_mask,
                          DlTensor *memory_key_padding_mask,
                          gboolean src_is_causal,
                          gboolean tgt_is_causal,
                          gboolean memory_is_causal,
                          GError **error)
{
  static const gchar op[] = "Transformer";
  TfConfig *c;
  DlModule *encoder, *decoder;
  g_autoptr (DlTensor) memory = NULL;
  gint sd, td;
  gsize n;

  g_return_val_if_fail (DL_IS_TRANSFORMER (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (src) && DL_IS_TENSOR (tgt), NULL);
  if (!dl_module_check_constructed (DL_MODULE (self), error))
    return NULL;
  c = tf_config (self);
  sd = dl_tensor_get_ndim (src);
  td = dl_tensor_get_ndim (tgt);
  if (sd == 3 && td == 3)
    {
      gint b = c->batch_first ? 0 : 1;

      if (dl_tensor_get_shape (src, &n)[b] != dl_tensor_get_shape (tgt, &n)[b])
        {
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: the batch number of src and tgt must be equal", op);
          return NULL;
        }
    }
  if (sd == 0 || td == 0 || dl_tensor_get_shape (src, &n)[sd - 1] != c->d_model
      || dl_tensor_get_shape (tgt, &n)[td - 1] != c->d_model)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_SHAPE,
          "%s: the feature number of src and tgt must be equal to d_model (%" G_GINT64_FORMAT ")",
          op, c->d_model);
      return NULL;
    }
  if (!(encoder = child (DL_MODULE (self), op, "encoder", error))
      || !(decoder = child (DL_MODULE (self), op, "decoder", error)))
    return NULL;
  if (!DL_IS_TRANSFORMER_ENCODER (encoder) || !DL_IS_TRANSFORMER_DECODER (decoder))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "%s: a custom encoder or decoder (%s, %s) runs from its own language's forward",
                   op, G_OBJECT_TYPE_NAME (encoder), G_OBJECT_TYPE_NAME (decoder));
      return NULL;
    }
  if (!(memory = dl_transformer_encoder_encode (DL_TRANSFORMER_ENCODER (encoder), src, src_mask,
                                                src_key_padding_mask, src_is_causal, error)))
    return NULL;
  return dl_transformer_decoder_decode (DL_TRANSFORMER_DECODER (decoder), tgt, memory, tgt_mask,
                                        memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                                        tgt_is_causal, memory_is_causal, error);
}

/**
 * dl_transformer_generate_square_subsequent_mask:
 * @sz: the sequence length
 * @error: return location for a #GError
 *
 * The causal mask of torch.nn.Transformer.generate_square_subsequent_mask:
 * a float (default dtype) @sz × @sz matrix, -inf above the diagonal and 0
 * elsewhere.
 *
 * Returns: (transfer full): the mask, or %NULL with @error set (@sz < 0)
 *
 * Since: 0.1
 */
DlTensor *
dl_transformer_generate_square_subsequent_mask (gint64 sz, GError **error)
{
  g_autoptr (DlTensor) full = NULL;

  if (sz < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "generate_square_subsequent_mask: sz must be >= 0, got %" G_GINT64_FORMAT, sz);
      return NULL;
    }
  if (!(full = dl_full ((gint64[]){ sz, sz }, 2, -INFINITY, dl_get_default_dtype (), NULL, error)))
    return NULL;
  return dl_tensor_triu (full, 1, error);
}
