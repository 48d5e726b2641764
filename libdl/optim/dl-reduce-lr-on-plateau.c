/* dl-reduce-lr-on-plateau.c: ReduceLROnPlateau as
 * torch.optim.lr_scheduler.ReduceLROnPlateau (1.13) computes it: after
 * more than patience epochs without improvement of the metric (by
 * threshold, relative or absolute), every group's rate becomes
 * max (lr * factor, min_lr) (unless that changes it by eps or less), then
 * cooldown epochs pass before counting again.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gio/gio.h>

#include "dl-reduce-lr-on-plateau.h"
#include "dl-lr-scheduler-private.h"
#include "dl-error.h"

/**
 * DlReduceLrOnPlateau:
 *
 * Reduces the learning rates when a metric stops improving, as
 * torch.optim.lr_scheduler.ReduceLROnPlateau: step it with
 * dl_reduce_lr_on_plateau_step_metric() (plain dl_lr_scheduler_step() is
 * an error). #DlReduceLrOnPlateau:mode is "min" or "max",
 * #DlReduceLrOnPlateau:threshold-mode "rel" or "abs"; the counters
 * #DlReduceLrOnPlateau:best, #DlReduceLrOnPlateau:num-bad-epochs and
 * #DlReduceLrOnPlateau:cooldown-counter are its state. It does not change
 * the learning rates at construction.
 *
 * Since: 0.1
 */
struct _DlReduceLrOnPlateau
{
  DlLrScheduler parent_instance;
  gchar *mode;
  gdouble factor;
  gint64 patience;
  gdouble threshold;
  gchar *threshold_mode;
  gint64 cooldown;
  gdouble min_lr;
  gdouble eps;
  gdouble best;
  gint64 num_bad_epochs;
  gint64 cooldown_counter;
  GArray *min_lrs; /* gdouble, per group; empty: min_lr for all */
};

/**
 * DlReduceLrOnPlateauClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlReduceLrOnPlateau. The type is final: its class
 * adds no virtual method to that of #DlLrScheduler, and it cannot be
 * subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlReduceLrOnPlateau, dl_reduce_lr_on_plateau, DL_TYPE_LR_SCHEDULER)

enum
{
  PROP_0,
  PROP_MODE,
  PROP_FACTOR,
  PROP_PATIENCE,
  PROP_THRESHOLD,
  PROP_THRESHOLD_MODE,
  PROP_COOLDOWN,
  PROP_MIN_LR,
  PROP_EPS,
  PROP_BEST,
  PROP_NUM_BAD_EPOCHS,
  PROP_COOLDOWN_COUNTER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
is_min (DlReduceLrOnPlateau *self)
{
  return g_strcmp0 (self->mode, "min") == 0;
}

static gboolean
is_better (DlReduceLrOnPlateau *self, gdouble a)
{
  gboolean rel = g_strcmp0 (self->threshold_mode, "rel") == 0;

  if (is_min (self))
    return rel ? a < self->best * (1 - self->threshold) : a < self->best - self->threshold;
  return rel ? a > self->best * (self->threshold + 1) : a > self->best + self->threshold;
}

/**
 * dl_reduce_lr_on_plateau_step_metric:
 * @self: a #DlReduceLrOnPlateau
 * @metric: the metric of the epoch that ended (a validation loss)
 * @error: return location for a #GError
 *
 * Counts an epoch with @metric and reduces the learning rates when it has
 * not improved for more than #DlReduceLrOnPlateau:patience epochs
 * (PyTorch's `scheduler.step(metrics)`).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_reduce_lr_on_plateau_step_metric (DlReduceLrOnPlateau *self, gdouble metric, GError **error)
{
  DlLrScheduler *scheduler = DL_LR_SCHEDULER (self);
  DlOptimizer *optimizer;
  guint n;
  g_autofree gdouble *lrs = NULL;

  g_return_val_if_fail (DL_IS_REDUCE_LR_ON_PLATEAU (self), FALSE);
  if (!g_initable_init (G_INITABLE (self), NULL, error))
    return FALSE;
  optimizer = dl_lr_scheduler_get_optimizer (scheduler);
  n = dl_optimizer_get_n_param_groups (optimizer);
  lrs = g_new (gdouble, MAX (n, 1));
  dl_lr_scheduler_set_last_epoch (scheduler, dl_lr_scheduler_get_last_epoch (scheduler) + 1);
  if (is_better (self, metric))
    {
      self->best = metric;
      self->num_bad_epochs = 0;
    }
  else
    self->num_bad_epochs++;
  if (self->cooldown_counter > 0)
    {
      self->cooldown_counter--;
      self->num_bad_epochs = 0;
    }
  for (guint i = 0; i < n; i++)
    lrs[i] = dl_optimizer_get_group_lr (optimizer, i);
  if (self->num_bad_epochs > self->patience)
    {
      for (guint i = 0; i < n; i++)
        {
          gdouble min_lr = i < self->min_lrs->len ? g_array_index (self->min_lrs, gdouble, i)
                                                  : self->min_lr;
          gdouble new_lr = MAX (lrs[i] * self->factor, min_lr);

          if (lrs[i] - new_lr > self->eps)
            lrs[i] = new_lr;
        }
      self->cooldown_counter = self->cooldown;
      self->num_bad_epochs = 0;
    }
  return dl_lr_scheduler_apply_lrs (scheduler, lrs, n, error);
}

static gboolean
plateau_step (DlLrScheduler *scheduler, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
               "ReduceLROnPlateau: step needs the metric (dl_reduce_lr_on_plateau_step_metric)");
  return FALSE;
}

static gboolean
plateau_step_to (DlLrScheduler *scheduler, gdouble epoch, GError **error)
{
  return plateau_step (scheduler, error);
}

/**
 * dl_reduce_lr_on_plateau_set_min_lrs:
 * @self: a #DlReduceLrOnPlateau
 * @min_lrs: (array length=n_groups): a lower bound per parameter group
 * @n_groups: the optimizer's number of parameter groups
 * @error: return location for a #GError
 *
 * Gives each group its own lower bound (Python's list of min_lr) in place
 * of #DlReduceLrOnPlateau:min-lr.
 *
 * Returns: %TRUE on success; %FALSE with @error set when @n_groups is not
 *   the optimizer's number of groups
 *
 * Since: 0.1
 */
gboolean
dl_reduce_lr_on_plateau_set_min_lrs (DlReduceLrOnPlateau *self,
                                     const gdouble *min_lrs,
                                     gsize n_groups,
                                     GError **error)
{
  DlOptimizer *optimizer;

  g_return_val_if_fail (DL_IS_REDUCE_LR_ON_PLATEAU (self), FALSE);
  g_return_val_if_fail (min_lrs != NULL || n_groups == 0, FALSE);
  optimizer = dl_lr_scheduler_get_optimizer (DL_LR_SCHEDULER (self));
  if (optimizer == NULL || n_groups != dl_optimizer_get_n_param_groups (optimizer))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "ReduceLROnPlateau: expected %u min_lrs, got %" G_GSIZE_FORMAT,
                   optimizer ? dl_optimizer_get_n_param_groups (optimizer) : 0, n_groups);
      return FALSE;
    }
  g_array_set_size (self->min_lrs, 0);
  g_array_append_vals (self->min_lrs, min_lrs, n_groups);
  return TRUE;
}

static void
plateau_constructed (GObject *object)
{
  DlReduceLrOnPlateau *self = DL_REDUCE_LR_ON_PLATEAU (object);
  DlLrScheduler *scheduler = DL_LR_SCHEDULER (object);
  GError *error = NULL;

  if (!(self->factor < 1.0))
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT, "ReduceLROnPlateau: Factor should be < 1.0.");
  else if (g_strcmp0 (self->mode, "min") != 0 && g_strcmp0 (self->mode, "max") != 0)
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT, "ReduceLROnPlateau: mode %s is unknown!",
                         self->mode ? self->mode : "NULL");
  else if (g_strcmp0 (self->threshold_mode, "rel") != 0
           && g_strcmp0 (self->threshold_mode, "abs") != 0)
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                         "ReduceLROnPlateau: threshold mode %s is unknown!",
                         self->threshold_mode ? self->threshold_mode : "NULL");
  if (error)
    dl_lr_scheduler_take_construct_error (scheduler, error);
  self->best = is_min (self) ? INFINITY : -INFINITY;
  self->num_bad_epochs = 0;
  self->cooldown_counter = 0;
  G_OBJECT_CLASS (dl_reduce_lr_on_plateau_parent_class)->constructed (object);
  /* PyTorch counts from 0 and takes no initial step */
  dl_lr_scheduler_set_last_epoch (scheduler, 0);
  dl_lr_scheduler_mark_started (scheduler);
}

static gpointer
field (DlReduceLrOnPlateau *self, guint prop_id)
{
  switch (prop_id)
    {
      case PROP_MODE:
        return &self->mode;
      case PROP_FACTOR:
        return &self->factor;
      case PROP_PATIENCE:
        return &self->patience;
      case PROP_THRESHOLD:
        return &self->threshold;
      case PROP_THRESHOLD_MODE:
        return &self->threshold_mode;
      case PROP_COOLDOWN:
        return &self->cooldown;
      case PROP_MIN_LR:
        return &self->min_lr;
      case PROP_EPS:
        return &self->eps;
      case PROP_BEST:
        return &self->best;
      case PROP_NUM_BAD_EPOCHS:
        return &self->num_bad_epochs;
      case PROP_COOLDOWN_COUNTER:
        return &self->cooldown_counter;
      default:
        return NULL;
    }
}

static void
plateau_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  gpointer p = field (DL_REDUCE_LR_ON_PLATEAU (object), prop_id);

  if (G_VALUE_HOLDS_STRING (value))
    g_value_set_string (value, *(gchar **)p);
  else if (G_VALUE_HOLDS_INT64 (value))
    g_value_set_int64 (value, *(gint64 *)p);
  else
    g_value_set_double (value, *(gdouble *)p);
}

static void
plateau_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  gpointer p = field (DL_REDUCE_LR_ON_PLATEAU (object), prop_id);

  if (G_VALUE_HOLDS_STRING (value))
    {
      g_free (*(gchar **)p);
      *(gchar **)p = g_value_dup_string (value);
    }
  else if (G_VALUE_HOLDS_INT64 (value))
    *(gint64 *)p = g_value_get_int64 (value);
  else
    *(gdouble *)p = g_value_get_double (value);
  g_object_notify_by_pspec (object, pspec);
}

static void
plateau_finalize (GObject *object)
{
  DlReduceLrOnPlateau *self = DL_REDUCE_LR_ON_PLATEAU (object);

  g_free (self->mode);
  g_free (self->threshold_mode);
  g_array_unref (self->min_lrs);
  G_OBJECT_CLASS (dl_reduce_lr_on_plateau_parent_class)->finalize (object);
}

/* the lower bound of every group, as PyTorch's "min_lrs" */
static void
plateau_save (DlLrScheduler *scheduler, GVariantDict *dict)
{
  DlReduceLrOnPlateau *self = DL_REDUCE_LR_ON_PLATEAU (scheduler);
  guint n = dl_optimizer_get_n_param_groups (dl_lr_scheduler_get_optimizer (scheduler));
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("ad"));
  for (guint i = 0; i < n; i++)
    g_variant_builder_add (&builder, "d",
                           i < self->min_lrs->len ? g_array_index (self->min_lrs, gdouble, i)
                                                  : self->min_lr);
  g_variant_dict_insert_value (dict, "min_lrs", g_variant_builder_end (&builder));
}

static gboolean
plateau_load (DlLrScheduler *scheduler, GVariantDict *dict, GError **error)
{
  g_autoptr (GVariant) v = g_variant_dict_lookup_value (dict, "min_lrs", G_VARIANT_TYPE ("ad"));
  gsize n;
  const gdouble *values;

  if (v == NULL)
    return TRUE;
  values = g_variant_get_fixed_array (v, &n, sizeof (gdouble));
  return dl_reduce_lr_on_plateau_set_min_lrs (DL_REDUCE_LR_ON_PLATEAU (scheduler), values, n,
                                              error);
}

static void
dl_reduce_lr_on_plateau_class_init (DlReduceLrOnPlateauClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags construct = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS
                          | G_PARAM_EXPLICIT_NOTIFY;
  GParamFlags state = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->constructed = plateau_constructed;
  object_class->finalize = plateau_finalize;
  object_class->get_property = plateau_get_property;
  object_class->set_property = plateau_set_property;
  DL_LR_SCHEDULER_CLASS (klass)->step = plateau_step;
  DL_LR_SCHEDULER_CLASS (klass)->step_to = plateau_step_to;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "ReduceLROnPlateau", FALSE);
  dl_lr_scheduler_class_set_extra_state (DL_LR_SCHEDULER_CLASS (klass), plateau_save, plateau_load);

  /**
   * DlReduceLrOnPlateau:mode:
   *
   * "min" (the default: the metric should decrease) or "max".
   *
   * Since: 0.1
   */
  properties[PROP_MODE] = g_param_spec_string ("mode", NULL, NULL, "min", construct);
  /**
   * DlReduceLrOnPlateau:factor:
   *
   * The factor of a reduction, < 1 (default 0.1).
   *
   * Since: 0.1
   */
  properties[PROP_FACTOR]
      = g_param_spec_double ("factor", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.1, construct);
  /**
   * DlReduceLrOnPlateau:patience:
   *
   * The number of epochs without improvement tolerated (default 10).
   *
   * Since: 0.1
   */
  properties[PROP_PATIENCE]
      = g_param_spec_int64 ("patience", NULL, NULL, G_MININT64, G_MAXINT64, 10, construct);
  /**
   * DlReduceLrOnPlateau:threshold:
   *
   * The least change that counts as an improvement (default 1e-4).
   *
   * Since: 0.1
   */
  properties[PROP_THRESHOLD]
      = g_param_spec_double ("threshold", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1e-4, construct);
  /**
   * DlReduceLrOnPlateau:threshold-mode:
   *
   * "rel" (the default: relative to the best) or "abs".
   *
   * Since: 0.1
   */
  properties[PROP_THRESHOLD_MODE]
      = g_param_spec_string ("threshold-mode", NULL, NULL, "rel", construct);
  /**
   * DlReduceLrOnPlateau:cooldown:
   *
   * Epochs to wait after a reduction before counting again (default 0).
   *
   * Since: 0.1
   */
  properties[PROP_COOLDOWN]
      = g_param_spec_int64 ("cooldown", NULL, NULL, G_MININT64, G_MAXINT64, 0, construct);
  /**
   * DlReduceLrOnPlateau:min-lr:
   *
   * The lower bound of every group's learning rate (default 0; see
   * dl_reduce_lr_on_plateau_set_min_lrs() for one per group).
   *
   * Since: 0.1
   */
  properties[PROP_MIN_LR]
      = g_param_spec_double ("min-lr", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, construct);
  /**
   * DlReduceLrOnPlateau:eps:
   *
   * Reductions smaller than this are skipped (default 1e-8).
   *
   * Since: 0.1
   */
  properties[PROP_EPS]
      = g_param_spec_double ("eps", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1e-8, construct);
  /**
   * DlReduceLrOnPlateau:best:
   *
   * The best metric so far (state).
   *
   * Since: 0.1
   */
  properties[PROP_BEST]
      = g_param_spec_double ("best", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, state);
  /**
   * DlReduceLrOnPlateau:num-bad-epochs:
   *
   * The epochs since the last improvement (state).
   *
   * Since: 0.1
   */
  properties[PROP_NUM_BAD_EPOCHS]
      = g_param_spec_int64 ("num-bad-epochs", NULL, NULL, G_MININT64, G_MAXINT64, 0, state);
  /**
   * DlReduceLrOnPlateau:cooldown-counter:
   *
   * The epochs of cooldown left (state).
   *
   * Since: 0.1
   */
  properties[PROP_COOLDOWN_COUNTER]
      = g_param_spec_int64 ("cooldown-counter", NULL, NULL, G_MININT64, G_MAXINT64, 0, state);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_reduce_lr_on_plateau_init (DlReduceLrOnPlateau *self)
{
  self->min_lrs = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

/**
 * dl_reduce_lr_on_plateau_new:
 * @optimizer: the optimizer to schedule
 * @mode: "min" or "max"
 * @factor: the factor of a reduction (< 1)
 * @patience: the epochs without improvement tolerated
 * @error: return location for a #GError
 *
 * A scheduler with PyTorch's defaults for the other properties.
 *
 * Returns: (transfer full): a new scheduler, or %NULL with @error set for
 *   an invalid value
 *
 * Since: 0.1
 */
DlReduceLrOnPlateau *
dl_reduce_lr_on_plateau_new (DlOptimizer *optimizer,
                             const gchar *mode,
                             gdouble factor,
                             gint64 patience,
                             GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_REDUCE_LR_ON_PLATEAU, NULL, error, "optimizer", optimizer, "mode",
                         mode, "factor", factor, "patience", patience, NULL);
}
