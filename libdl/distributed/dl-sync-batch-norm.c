/* dl-sync-batch-norm.c: DlSyncBatchNorm, batch normalisation whose batch
 * statistics are summed across the ranks of a process group.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-error.h"
#include "dl-node-private.h"
#include "dl-tensor-private.h"
#include "autograd/dl-autograd-private.h"
#include "distributed/dl-distributed.h"
#include "distributed/dl-sync-batch-norm.h"
#include "ops/dl-ops-private.h"

/**
 * DlSyncBatchNorm:
 *
 * A #DlBatchNorm whose training-mode statistics are those of the whole
 * batch across the ranks of #DlSyncBatchNorm:process-group:
 * torch.nn.SyncBatchNorm. Each rank passes its share of the batch
 * [N, C, *]; the forward pass sums, per channel, the count, the sum and
 * the sum of squares of every rank's share (one all-reduce) and
 * normalises with the mean and variance of the whole batch, which also
 * update the running statistics; the backward pass all-reduces the
 * gradients of the two sums, so that every rank gets the gradients one
 * process would compute on the whole batch. N ranks with 1/N of the
 * batch each thus give the outputs, gradients and running statistics of
 * a #DlBatchNorm on the whole batch. Every rank must run the forward and
 * backward passes together, as for any collective.
 *
 * In eval mode, and when the group has one rank, it is a #DlBatchNorm.
 * With no #DlSyncBatchNorm:process-group the default group
 * (dl_distributed_get_default_group()) is used, looked up at each
 * forward pass; training without any group is an error.
 *
 * The statistics are summed in float64. Inputs of any rank of at least
 * 2 dims are taken, as torch's.
 *
 * Since: 0.1
 */
typedef struct
{
  DlProcessGroup *group; /* (owned) (nullable) */
} DlSyncBatchNormPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlSyncBatchNorm, dl_sync_batch_norm, DL_TYPE_BATCH_NORM)

enum
{
  PROP_0,
  PROP_PROCESS_GROUP,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

/* ---- the all-reduce that autograd sees ------------------------------------ */

typedef struct
{
  DlProcessGroup *group; /* (owned) */
} AllReduceState;

static void
all_reduce_state_clear (gpointer data)
{
  AllReduceState *s = data;

  g_clear_object (&s->group);
}

/* the sum of @t across @group, in a new contiguous tensor */
static DlTensor *
sum_across (DlProcessGroup *group, DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) dense = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlWork) work = NULL;
  gboolean was = dl_set_grad_enabled (FALSE);

  if ((dense = dl_tensor_contiguous (t, error)))
    out = dl_tensor_clone (dense, error);
  dl_set_grad_enabled (was);
  if (out == NULL)
    return NULL;
  work = dl_process_group_all_reduce (group, out, DL_REDUCE_OP_KIND_SUM, FALSE, error);
  return work ? g_steal_pointer (&out) : NULL;
}

static DlTensor *sum_across_differentiable (DlProcessGroup *group, DlTensor *t, GError **error);

/* the gradient of a sum across the ranks is the sum of the ranks'
 * gradients: torch's SyncBatchNorm backward all-reduces the same two
 * per-channel sums (recorded in its turn under create_graph) */
static gboolean
all_reduce_backward (DlNode *node, DlTensor **grad_outputs, DlTensor **grad_inputs, GError **error)
{
  const AllReduceState *s = dl_node_state (node);

  grad_inputs[0] = sum_across_differentiable (s->group, grad_outputs[0], error);
  return grad_inputs[0] != NULL;
}

/* sum_across() recorded for autograd */
static DlTensor *
sum_across_differentiable (DlProcessGroup *group, DlTensor *t, GError **error)
{
  DlTensor *out = sum_across (group, t, error);

  if (out && dl_autograd_any_requires (1, &t))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("SyncBatchNormAllReduceBackward", all_reduce_backward, 1, &t);
      AllReduceState *s
          = dl_node_alloc_state (node, sizeof (AllReduceState), all_reduce_state_clear);

      s->group = g_object_ref (group);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/* ---- the forward pass ------------------------------------------------------ */

/* the running statistics' factor of this step, after counting it: the
 * momentum, or 1 / the batches seen for a cumulative average (momentum
 * negative, torch's None) */
static gboolean
count_batch (DlModule *module, gdouble momentum, gdouble *factor, GError **error)
{
  DlTensor *nbt = dl_module_get_buffer (module, "num_batches_tracked");
  gboolean was, ok;

  *factor = momentum;
  if (nbt == NULL)
    return TRUE;
  was = dl_set_grad_enabled (FALSE);
  ok = dl_tensor_add_scalar_ (nbt, 1, error) != NULL;
  dl_set_grad_enabled (was);
  if (ok && momentum < 0)
    {
      GError *local = NULL;
      gdouble steps = dl_tensor_item (nbt, &local);

      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      *factor = 1.0 / steps;
    }
  return ok;
}

/* running = (1 - factor) running + factor @batch (a [1, C, 1...] float64
 * tensor), without grad */
static gboolean
update_running (DlTensor *running, DlTensor *batch, gdouble factor, GError **error)
{
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlTensor) scaled = NULL;
  g_autoptr (DlTensor) kept = NULL;
  g_autoptr (DlTensor) sum = NULL;
  gint64 c = dl_tensor_numel (running);

  return (flat = dl_tensor_reshape (batch, &c, 1, error))
         && (scaled = dl_tensor_mul_scalar (flat, factor, error))
         && (kept = dl_tensor_mul_scalar (running, 1.0 - factor, error))
         && (sum = dl_tensor_add (kept, scaled, error)) && dl_tensor_copy_ (running, sum, error);
}

static DlTensor *
sync_forward (DlModule *module, DlProcessGroup *group, DlTensor *input, GError **error)
{
  gint64 num_features;
  gdouble eps, momentum, factor = 0;
  gboolean track;
  gint nd = dl_tensor_get_ndim (input);
  gint64 dims[16], bshape[16];
  gsize n_dims = 0;
  gdouble local_count = 1, n;
  g_autoptr (DlTensor) x = NULL, sq = NULL, s = NULL, q = NULL, gs = NULL, gq = NULL;
  g_autoptr (DlTensor) count = NULL, stats = NULL, all = NULL;
  g_autoptr (DlTensor) mean = NULL, ex2 = NULL, mean2 = NULL, var = NULL;
  g_autoptr (DlTensor) veps = NULL, invstd = NULL, mean_t = NULL, invstd_t = NULL;
  g_autoptr (DlTensor) centred = NULL, normed = NULL, scaled = NULL, w = NULL, b = NULL;
  DlTensor *weight = dl_module_get_parameter (module, "weight");
  DlTensor *bias = dl_module_get_parameter (module, "bias");
  DlTensor *rm = dl_module_get_buffer (module, "running_mean");
  DlTensor *rv = dl_module_get_buffer (module, "running_var");

  g_object_get (module, "num-features", &num_features, "eps", &eps, "momentum", &momentum,
                "track-running-stats", &track, NULL);
  if (nd > (gint)G_N_ELEMENTS (dims))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "SyncBatchNorm: expected at most %d dims (got %dD input)",
                   (gint)G_N_ELEMENTS (dims), nd);
      return NULL;
    }
  if (dl_tensor_get_size (input, 1, NULL) != num_features)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "SyncBatchNorm: running_mean should contain %" G_GINT64_FORMAT
                   " elements not %" G_GINT64_FORMAT,
                   dl_tensor_get_size (input, 1, NULL), num_features);
      return NULL;
    }
  for (gint d = 0; d < nd; d++)
    {
      bshape[d] = d == 1 ? num_features : 1;
      if (d != 1)
        {
          dims[n_dims++] = d;
          local_count *= (gdouble)dl_tensor_get_size (input, d, NULL);
        }
    }
  /* every rank's per-channel sum, sum of squares and count, summed in
   * one all-reduce (so that the backward pass has one too, whatever order
   * the autograd engine runs its nodes in) */
  TRY (x = dl_tensor_to_dtype (input, DL_DTYPE_FLOAT64, error));
  TRY (sq = dl_tensor_mul (x, x, error));
  TRY (s = dl_tensor_sum_dims (x, dims, n_dims, TRUE, error));
  TRY (q = dl_tensor_sum_dims (sq, dims, n_dims, TRUE, error));
  TRY (count = dl_full (bshape, nd, local_count, DL_DTYPE_FLOAT64, NULL, error));
  TRY (stats = dl_cat ((DlTensor *[]){ s, q, count }, 3, 0, error));
  TRY (all = sum_across_differentiable (group, stats, error));
  n = ((const gdouble *)GSIZE_TO_POINTER (dl_tensor_get_data_ptr (all)))[2 * num_features];
  if (n <= 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "SyncBatchNorm: expected more than 1 value per channel when training, got "
                   "input size %g across the ranks",
                   n);
      return NULL;
    }
  TRY (gs = dl_tensor_narrow (all, 0, 0, 1, error));
  TRY (gq = dl_tensor_narrow (all, 0, 1, 1, error));
  /* the whole batch's mean and (biased) variance */
  TRY (mean = dl_tensor_div_scalar (gs, n, error));
  TRY (ex2 = dl_tensor_div_scalar (gq, n, error));
  TRY (mean2 = dl_tensor_mul (mean, mean, error));
  TRY (var = dl_tensor_sub (ex2, mean2, error));
  TRY (veps = dl_tensor_add_scalar (var, eps, error));
  TRY (invstd = dl_tensor_rsqrt (veps, error));
  if (track && rm && rv)
    {
      gboolean was, ok;
      g_autoptr (DlTensor) unbiased = NULL;

      if (!count_batch (module, momentum, &factor, error))
        return NULL;
      was = dl_set_grad_enabled (FALSE);
      ok = (unbiased = dl_tensor_mul_scalar (var, n / (n - 1), error))
           && update_running (rm, mean, factor, error)
           && update_running (rv, unbiased, factor, error);
      dl_set_grad_enabled (was);
      if (!ok)
        return NULL;
    }
  TRY (mean_t = dl_tensor_to_dtype (mean, dl_tensor_get_dtype (input), error));
  TRY (invstd_t = dl_tensor_to_dtype (invstd, dl_tensor_get_dtype (input), error));
  TRY (centred = dl_tensor_sub (input, mean_t, error));
  TRY (normed = dl_tensor_mul (centred, invstd_t, error));
  if (weight == NULL || bias == NULL)
    return g_steal_pointer (&normed);
  TRY (w = dl_tensor_reshape (weight, bshape, nd, error));
  TRY (b = dl_tensor_reshape (bias, bshape, nd, error));
  TRY (scaled = dl_tensor_mul (normed, w, error));
  return dl_tensor_add (scaled, b, error);
}

static DlTensor *
dl_sync_batch_norm_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlSyncBatchNormPrivate *priv
      = dl_sync_batch_norm_get_instance_private (DL_SYNC_BATCH_NORM (module));
  DlProcessGroup *group = priv->group;

  if (dl_tensor_get_ndim (input) < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "SyncBatchNorm: expected at least 2D input (got %dD input)",
                   dl_tensor_get_ndim (input));
      return NULL;
    }
  if (!dl_module_get_training (module))
    return DL_MODULE_CLASS (dl_sync_batch_norm_parent_class)->forward (module, input, error);
  if (group == NULL)
    group = dl_distributed_get_default_group ();
  if (group == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "SyncBatchNorm: training needs a process group: give process_group or call "
                   "init_process_group first");
      return NULL;
    }
  if (dl_process_group_get_size (group) == 1)
    return DL_MODULE_CLASS (dl_sync_batch_norm_parent_class)->forward (module, input, error);
  return sync_forward (module, group, input, error);
}

/* ---- the GObject ------------------------------------------------------------ */

static void
dl_sync_batch_norm_dispose (GObject *object)
{
  DlSyncBatchNormPrivate *priv
      = dl_sync_batch_norm_get_instance_private (DL_SYNC_BATCH_NORM (object));

  g_clear_object (&priv->group);
  G_OBJECT_CLASS (dl_sync_batch_norm_parent_class)->dispose (object);
}

static void
dl_sync_batch_norm_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlSyncBatchNormPrivate *priv
      = dl_sync_batch_norm_get_instance_private (DL_SYNC_BATCH_NORM (object));

  switch (prop_id)
    {
      case PROP_PROCESS_GROUP:
        g_value_set_object (value, priv->group);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_sync_batch_norm_set_property (GObject *object,
                                 guint prop_id,
                                 const GValue *value,
                                 GParamSpec *pspec)
{
  DlSyncBatchNormPrivate *priv
      = dl_sync_batch_norm_get_instance_private (DL_SYNC_BATCH_NORM (object));

  switch (prop_id)
    {
      case PROP_PROCESS_GROUP:
        g_set_object (&priv->group, g_value_get_object (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_sync_batch_norm_class_init (DlSyncBatchNormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = dl_sync_batch_norm_dispose;
  object_class->get_property = dl_sync_batch_norm_get_property;
  object_class->set_property = dl_sync_batch_norm_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_sync_batch_norm_forward;

  /**
   * DlSyncBatchNorm:process-group:
   *
   * The group whose ranks share the batch; %NULL for the default group
   * at each forward pass (torch's `process_group=None`).
   *
   * Since: 0.1
   */
  props[PROP_PROCESS_GROUP]
      = g_param_spec_object ("process-group", NULL, NULL, DL_TYPE_PROCESS_GROUP,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
dl_sync_batch_norm_init (DlSyncBatchNorm *self)
{
}

/**
 * dl_sync_batch_norm_new:
 * @num_features: the number of channels C of the input [N, C, *]
 * @process_group: (nullable): the group whose ranks share the batch;
 *   %NULL for the default group
 * @error: return location for a #GError
 *
 * Creates a #DlSyncBatchNorm with PyTorch's defaults (eps 1e-5, momentum
 * 0.1, affine, tracking running statistics).
 *
 * Returns: (transfer full): the layer, or %NULL with @error set when
 *   @num_features is not positive
 *
 * Since: 0.1
 */
DlSyncBatchNorm *
dl_sync_batch_norm_new (gint64 num_features, DlProcessGroup *process_group, GError **error)
{
  g_return_val_if_fail (process_group == NULL || DL_IS_PROCESS_GROUP (process_group), NULL);
  return g_initable_new (DL_TYPE_SYNC_BATCH_NORM, NULL, error, "num-features", num_features,
                         "process-group", process_group, NULL);
}

/**
 * dl_sync_batch_norm_get_process_group:
 * @self: a #DlSyncBatchNorm
 *
 * The #DlSyncBatchNorm:process-group of @self.
 *
 * Returns: (transfer none) (nullable): the group, or %NULL for the
 *   default group
 *
 * Since: 0.1
 */
DlProcessGroup *
dl_sync_batch_norm_get_process_group (DlSyncBatchNorm *self)
{
  DlSyncBatchNormPrivate *priv;

  g_return_val_if_fail (DL_IS_SYNC_BATCH_NORM (self), NULL);
  priv = dl_sync_batch_norm_get_instance_private (self);
  return priv->group;
}

/* a #DlSyncBatchNorm with @bn's settings, parameters and buffers (the
 * same tensors, as torch's convert_sync_batchnorm shares them) */
static DlModule *
sync_of (DlModule *bn, DlProcessGroup *group, GError **error)
{
  gint64 num_features;
  gdouble eps, momentum;
  gboolean affine, track;
  DlModule *out;

  g_object_get (bn, "num-features", &num_features, "eps", &eps, "momentum", &momentum, "affine",
                &affine, "track-running-stats", &track, NULL);
  out = g_initable_new (DL_TYPE_SYNC_BATCH_NORM, NULL, error, "num-features", num_features, "eps",
                        eps, "momentum", momentum, "affine", affine, "track-running-stats", track,
                        "process-group", group, NULL);
  if (out == NULL)
    return NULL;
  if (affine)
    for (guint i = 0; i < 2; i++)
      {
        const gchar *name = i ? "bias" : "weight";

        dl_module_register_parameter (out, name, dl_module_get_parameter (bn, name));
      }
  if (track)
    for (guint i = 0; i < 3; i++)
      {
        const gchar *name
            = (const gchar *[]){ "running_mean", "running_var", "num_batches_tracked" }[i];

        dl_module_register_buffer (out, name, dl_module_get_buffer (bn, name), TRUE);
      }
  dl_module_set_training (out, dl_module_get_training (bn));
  return out;
}

/**
 * dl_sync_batch_norm_convert_sync_batchnorm:
 * @module: a module
 * @process_group: (nullable): the group the new layers sync over; %NULL
 *   for the default group
 * @error: return location for a #GError
 *
 * torch.nn.SyncBatchNorm.convert_sync_batchnorm: replaces every
 * #DlBatchNorm in @module (itself included) by a #DlSyncBatchNorm with
 * the same settings, sharing its parameters and running statistics.
 * Children are replaced in place.
 *
 * Returns: (transfer full): @module (a new reference), or the new layer
 *   when @module itself is a #DlBatchNorm; %NULL with @error set on
 *   failure
 *
 * Since: 0.1
 */
DlModule *
dl_sync_batch_norm_convert_sync_batchnorm (DlModule *module,
                                           DlProcessGroup *process_group,
                                           GError **error)
{
  g_auto (GStrv) names = NULL;

  g_return_val_if_fail (DL_IS_MODULE (module), NULL);
  g_return_val_if_fail (process_group == NULL || DL_IS_PROCESS_GROUP (process_group), NULL);
  if (DL_IS_BATCH_NORM (module) && !DL_IS_SYNC_BATCH_NORM (module))
    return sync_of (module, process_group, error);
  names = dl_module_children_names (module);
  for (gsize i = 0; names && names[i]; i++)
    {
      DlModule *child = dl_module_get_module (module, names[i]);
      g_autoptr (DlModule) converted = NULL;

      if (child == NULL)
        continue;
      converted = dl_sync_batch_norm_convert_sync_batchnorm (child, process_group, error);
      if (converted == NULL)
        return NULL;
      if (converted != child)
        dl_module_register_module (module, names[i], converted);
    }
  return g_object_ref (module);
}
