/* dl-lr-scheduler.c: DlLrScheduler: the epoch counter, the base learning
 * rates, step and state dicts of torch.optim.lr_scheduler._LRScheduler.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gio/gio.h>

#include "dl-lr-scheduler.h"
#include "dl-lr-scheduler-private.h"
#include "dl-error.h"

/**
 * DlLrScheduler:
 *
 * The base class of learning-rate schedulers, as
 * torch.optim.lr_scheduler._LRScheduler: it sets the learning rate of
 * each parameter group of #DlLrScheduler:optimizer at every
 * dl_lr_scheduler_step(), from the group's base learning rate (its
 * "initial_lr" option, which construction sets from "lr" when it is
 * missing) and the epoch count #DlLrScheduler:last-epoch.
 *
 * Construction ends with the initial step (epoch 0) for libdl's
 * schedulers, as in PyTorch; a subclass written in another language takes
 * it in g_initable_init(). Hyperparameters are construct properties
 * checked at construction: a bad value is an error of g_initable_init()
 * (the `_new` functions call it; from GJS, call `init(null)`).
 *
 * A subclass overrides #DlLrSchedulerClass.get_lr (Python's `do_get_lr`,
 * GJS's `vfunc_get_lr`, Vala's `override get_lr`). dl_lr_scheduler_get_state()
 * and dl_lr_scheduler_set_state() save and restore a scheduler as a
 * dictionary (a{sv}) in the layout of PyTorch's state dicts: "last_epoch",
 * "_step_count", "base_lrs", "_last_lr" and the scheduler's read-write
 * properties under their names with underscores.
 *
 * Since: 0.1
 */

typedef struct
{
  DlOptimizer *optimizer;
  gint64 last_epoch;
  gint64 step_count;
  GArray *base_lrs; /* gdouble */
  GArray *last_lrs; /* gdouble */
  gboolean initial_done;
  GError *construct_error;
} DlLrSchedulerPrivate;

static void dl_lr_scheduler_initable_iface_init (GInitableIface *iface);

G_DEFINE_TYPE_WITH_CODE (DlLrScheduler,
                         dl_lr_scheduler,
                         G_TYPE_OBJECT,
                         G_ADD_PRIVATE (DlLrScheduler)
                             G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                    dl_lr_scheduler_initable_iface_init))

enum
{
  PROP_0,
  PROP_OPTIMIZER,
  PROP_LAST_EPOCH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- class data ---------------------------------------------------------- */

static gpointer
class_qdata (DlLrScheduler *self, const gchar *key)
{
  GQuark quark = g_quark_from_static_string (key);

  for (GType t = G_OBJECT_TYPE (self); t != G_TYPE_OBJECT; t = g_type_parent (t))
    {
      gpointer data = g_type_get_qdata (t, quark);

      if (data)
        return data;
    }
  return NULL;
}

void
dl_lr_scheduler_class_setup (DlLrSchedulerClass *klass, const gchar *name, gboolean own)
{
  GType type = G_TYPE_FROM_CLASS (klass);

  g_type_set_qdata (type, g_quark_from_static_string ("dl-lr-scheduler-name"), (gpointer)name);
  /* per type, not inherited: a subclass of a libdl class is not "own" */
  g_type_set_qdata (type, g_quark_from_static_string ("dl-lr-scheduler-own"),
                    GINT_TO_POINTER (own));
}

const gchar *
dl_lr_scheduler_get_display_name (DlLrScheduler *self)
{
  const gchar *name = class_qdata (self, "dl-lr-scheduler-name");

  return name ? name : G_OBJECT_TYPE_NAME (self);
}

void
dl_lr_scheduler_class_set_extra_state (DlLrSchedulerClass *klass,
                                       DlLrSchedulerSaveExtra save,
                                       DlLrSchedulerLoadExtra load)
{
  GType type = G_TYPE_FROM_CLASS (klass);

  g_type_set_qdata (type, g_quark_from_static_string ("dl-lr-scheduler-save"), (gpointer)save);
  g_type_set_qdata (type, g_quark_from_static_string ("dl-lr-scheduler-load"), (gpointer)load);
}

void
dl_lr_scheduler_take_construct_error (DlLrScheduler *self, GError *error)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  if (priv->construct_error == NULL)
    priv->construct_error = error;
  else
    g_error_free (error);
}

/* ---- construction -------------------------------------------------------- */

static void
dl_lr_scheduler_dispose (GObject *object)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (DL_LR_SCHEDULER (object));

  g_clear_object (&priv->optimizer);
  G_OBJECT_CLASS (dl_lr_scheduler_parent_class)->dispose (object);
}

static void
dl_lr_scheduler_finalize (GObject *object)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (DL_LR_SCHEDULER (object));

  g_array_unref (priv->base_lrs);
  g_array_unref (priv->last_lrs);
  g_clear_error (&priv->construct_error);
  G_OBJECT_CLASS (dl_lr_scheduler_parent_class)->finalize (object);
}

gboolean
dl_lr_scheduler_initial_step (DlLrScheduler *self, GError **error)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  if (priv->initial_done)
    return TRUE;
  priv->initial_done = TRUE;
  priv->step_count = 0;
  return dl_lr_scheduler_step (self, error);
}

void
dl_lr_scheduler_mark_started (DlLrScheduler *self)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  priv->initial_done = TRUE;
}

static gboolean
check_constructed (DlLrScheduler *self, GError **error)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  if (priv->construct_error)
    {
      g_propagate_error (error, g_error_copy (priv->construct_error));
      return FALSE;
    }
  return TRUE;
}

static gboolean
dl_lr_scheduler_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  DlLrScheduler *self = DL_LR_SCHEDULER (initable);

  return check_constructed (self, error) && dl_lr_scheduler_initial_step (self, error);
}

static void
dl_lr_scheduler_initable_iface_init (GInitableIface *iface)
{
  iface->init = dl_lr_scheduler_initable_init;
}

static void
dl_lr_scheduler_constructed (GObject *object)
{
  DlLrScheduler *self = DL_LR_SCHEDULER (object);
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);
  const gchar *name = dl_lr_scheduler_get_display_name (self);
  GError *error = NULL;
  guint n;

  G_OBJECT_CLASS (dl_lr_scheduler_parent_class)->constructed (object);
  if (priv->optimizer == NULL)
    {
      dl_lr_scheduler_take_construct_error (
          self, g_error_new (DL_ERROR, DL_ERROR_ARGUMENT, "%s: an optimizer is required", name));
      return;
    }
  n = dl_optimizer_get_n_param_groups (priv->optimizer);
  for (guint i = 0; i < n; i++)
    {
      GError *missing = NULL;
      gdouble initial = dl_optimizer_get_group_option (priv->optimizer, i, "initial_lr", &missing);

      if (missing)
        {
          g_error_free (missing);
          if (priv->last_epoch != -1)
            {
              dl_lr_scheduler_take_construct_error (
                  self, g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                                     "%s: param 'initial_lr' is not specified in "
                                     "param_groups[%u] when resuming an optimizer",
                                     name, i));
              return;
            }
          initial = dl_optimizer_get_group_lr (priv->optimizer, i);
          dl_optimizer_set_group_option (priv->optimizer, i, "initial_lr", initial, NULL);
        }
      g_array_append_val (priv->base_lrs, initial);
    }
  if (GPOINTER_TO_INT (g_type_get_qdata (G_OBJECT_TYPE (self),
                                         g_quark_from_static_string ("dl-lr-scheduler-own")))
      && priv->construct_error == NULL && !dl_lr_scheduler_initial_step (self, &error))
    dl_lr_scheduler_take_construct_error (self, error);
}

static void
dl_lr_scheduler_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (DL_LR_SCHEDULER (object));

  switch (prop_id)
    {
      case PROP_OPTIMIZER:
        g_value_set_object (value, priv->optimizer);
        break;
      case PROP_LAST_EPOCH:
        g_value_set_int64 (value, priv->last_epoch);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_lr_scheduler_set_property (GObject *object,
                              guint prop_id,
                              const GValue *value,
                              GParamSpec *pspec)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (DL_LR_SCHEDULER (object));

  switch (prop_id)
    {
      case PROP_OPTIMIZER:
        g_set_object (&priv->optimizer, g_value_get_object (value));
        break;
      case PROP_LAST_EPOCH:
        dl_lr_scheduler_set_last_epoch (DL_LR_SCHEDULER (object), g_value_get_int64 (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* ---- stepping ------------------------------------------------------------ */

static void
dl_lr_scheduler_real_get_lr (DlLrScheduler *self,
                             guint group,
                             gdouble current_lr,
                             gdouble *lr,
                             GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "%s: the scheduler does not implement get_lr", dl_lr_scheduler_get_display_name (self));
  *lr = 0;
}

static void
dl_lr_scheduler_real_get_closed_form_lr (DlLrScheduler *self,
                                         guint group,
                                         gdouble *lr,
                                         GError **error)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  *lr = dl_lr_scheduler_get_lr (self, group, dl_optimizer_get_group_lr (priv->optimizer, group),
                                error);
}

/* every group's new rate from @closed_form or the chainable get_lr, then
 * all applied at once, as PyTorch does */
static gboolean
update_lrs (DlLrScheduler *self, gboolean closed_form, GError **error)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);
  guint n = dl_optimizer_get_n_param_groups (priv->optimizer);
  g_autofree gdouble *lrs = g_new (gdouble, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      GError *local = NULL;

      lrs[i] = closed_form ? dl_lr_scheduler_get_closed_form_lr (self, i, &local)
                           : dl_lr_scheduler_get_lr (
                               self, i, dl_optimizer_get_group_lr (priv->optimizer, i), &local);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
    }
  return dl_lr_scheduler_apply_lrs (self, lrs, n, error);
}

void
dl_lr_scheduler_count_step (DlLrScheduler *self)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  priv->step_count++;
}

gint64
dl_lr_scheduler_get_step_count (DlLrScheduler *self)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  return priv->step_count;
}

void
dl_lr_scheduler_set_step_count (DlLrScheduler *self, gint64 count)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  priv->step_count = count;
}

void
dl_lr_scheduler_set_last_epoch (DlLrScheduler *self, gint64 epoch)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  if (priv->last_epoch != epoch)
    {
      priv->last_epoch = epoch;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_EPOCH]);
    }
}

static gboolean
dl_lr_scheduler_real_step (DlLrScheduler *self, GError **error)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  priv->step_count++;
  dl_lr_scheduler_set_last_epoch (self, priv->last_epoch + 1);
  return update_lrs (self, FALSE, error);
}

static gboolean
dl_lr_scheduler_real_step_to (DlLrScheduler *self, gdouble epoch, GError **error)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  priv->step_count++;
  dl_lr_scheduler_set_last_epoch (self, (gint64)floor (epoch));
  return update_lrs (self, TRUE, error);
}

static void
dl_lr_scheduler_class_init (DlLrSchedulerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = dl_lr_scheduler_dispose;
  object_class->finalize = dl_lr_scheduler_finalize;
  object_class->constructed = dl_lr_scheduler_constructed;
  object_class->get_property = dl_lr_scheduler_get_property;
  object_class->set_property = dl_lr_scheduler_set_property;
  klass->compute_lr = dl_lr_scheduler_real_get_lr;
  klass->compute_closed_form_lr = dl_lr_scheduler_real_get_closed_form_lr;
  klass->step = dl_lr_scheduler_real_step;
  klass->step_to = dl_lr_scheduler_real_step_to;

  /**
   * DlLrScheduler:optimizer:
   *
   * The optimizer whose parameter groups' learning rates the scheduler
   * sets (required).
   *
   * Since: 0.1
   */
  properties[PROP_OPTIMIZER] = g_param_spec_object (
      "optimizer", NULL, NULL, DL_TYPE_OPTIMIZER,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlLrScheduler:last-epoch:
   *
   * The index of the last epoch stepped to: -1 at construction (the
   * initial step makes it 0), or the epoch to resume from (every group
   * must then have its "initial_lr" option).
   *
   * Since: 0.1
   */
  properties[PROP_LAST_EPOCH] = g_param_spec_int64 (
      "last-epoch", NULL, NULL, -1, G_MAXINT64, -1,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_lr_scheduler_init (DlLrScheduler *self)
{
  DlLrSchedulerPrivate *priv = dl_lr_scheduler_get_instance_private (self);

  priv->last_epoch = -1;
  priv->base_lrs = g_array_new (FALSE, FALSE, sizeof (gdouble));
  priv->last_lrs = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

/**
 * dl_lr_scheduler_step: (virtual step)
 * @self: a #DlLrScheduler
 * @error: return location for a #GError
 *
 * Advances one epoch and sets each group's learning rate, as PyTorch's
 * `scheduler.step()` (call it after the optimizer's step).
 *
 * Returns: %TRUE on success; %FALSE with @error set for a scheduler
 *   constructed with invalid values, or one that cannot step further
 *   (OneCycleLR past its total steps)
 *
 * Since: 0.1
 */
gboolean
dl_lr_scheduler_step (DlLrScheduler *self, GError **error)
{
  DlLrSchedulerPrivate *priv;
  GError *local = NULL;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), FALSE);
  priv = dl_lr_scheduler_get_instance_private (self);
  if (!check_constructed (self, error))
    return FALSE;
  if (!priv->initial_done)
    return dl_lr_scheduler_initial_step (self, error);
  if (!DL_LR_SCHEDULER_GET_CLASS (self)->step (self, &local) || local)
    {
      if (local == NULL)
        local = g_error_new (DL_ERROR, DL_ERROR_FAILED, "%s.step failed",
                             dl_lr_scheduler_get_display_name (self));
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_lr_scheduler_step_to: (virtual step_to)
 * @self: a #DlLrScheduler
 * @epoch: the epoch to go to
 * @error: return location for a #GError
 *
 * Sets the epoch and each group's learning rate for it, from the closed
 * form where the scheduler has one (PyTorch's deprecated
 * `scheduler.step(epoch)`; SequentialLR restarts its schedulers with it).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_lr_scheduler_step_to (DlLrScheduler *self, gdouble epoch, GError **error)
{
  DlLrSchedulerPrivate *priv;
  GError *local = NULL;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), FALSE);
  priv = dl_lr_scheduler_get_instance_private (self);
  if (!check_constructed (self, error))
    return FALSE;
  priv->initial_done = TRUE;
  if (!DL_LR_SCHEDULER_GET_CLASS (self)->step_to (self, epoch, &local) || local)
    {
      if (local == NULL)
        local = g_error_new (DL_ERROR, DL_ERROR_FAILED, "%s.step failed",
                             dl_lr_scheduler_get_display_name (self));
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

/**
 * DlLrSchedulerClass::compute_lr:
 * @self: a #DlLrScheduler
 * @group: a parameter group's index
 * @current_lr: the group's learning rate now
 * @lr: (out): return location for the new learning rate
 * @error: return location for a #GError
 *
 * Computes the learning rate of @group at the epoch
 * dl_lr_scheduler_get_last_epoch(); see dl_lr_scheduler_get_lr().
 *
 * Since: 0.1
 */

/**
 * DlLrSchedulerClass::compute_closed_form_lr:
 * @self: a #DlLrScheduler
 * @group: a parameter group's index
 * @lr: (out): return location for the learning rate
 * @error: return location for a #GError
 *
 * Computes the learning rate of @group at the last epoch from its base
 * learning rate alone; see dl_lr_scheduler_get_closed_form_lr().
 *
 * Since: 0.1
 */

/* a get_lr-like vfunc's rate, NaN when it set @local */
static gdouble
checked_rate (gdouble rate, GError *local, GError **error)
{
  if (local)
    {
      g_propagate_error (error, local);
      return NAN;
    }
  return rate;
}

/**
 * dl_lr_scheduler_get_lr:
 * @self: a #DlLrScheduler
 * @group: a parameter group's index
 * @current_lr: the group's learning rate now
 * @error: return location for a #GError
 *
 * The learning rate of @group at the epoch dl_lr_scheduler_get_last_epoch()
 * (a step has just advanced it), computed from the current one as
 * PyTorch's get_lr does: what #DlLrSchedulerClass.compute_lr hands back.
 *
 * Returns: the new learning rate; with @error set on failure
 *
 * Since: 0.1
 */
gdouble
dl_lr_scheduler_get_lr (DlLrScheduler *self, guint group, gdouble current_lr, GError **error)
{
  GError *local = NULL;
  gdouble lr = NAN;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), 0);
  DL_LR_SCHEDULER_GET_CLASS (self)->compute_lr (self, group, current_lr, &lr, &local);
  return checked_rate (lr, local, error);
}

/**
 * dl_lr_scheduler_get_closed_form_lr:
 * @self: a #DlLrScheduler
 * @group: a parameter group's index
 * @error: return location for a #GError
 *
 * The learning rate of @group at the last epoch from its base learning
 * rate alone (what dl_lr_scheduler_step_to() sets): what
 * #DlLrSchedulerClass.compute_closed_form_lr hands back.
 *
 * Returns: the learning rate; with @error set on failure
 *
 * Since: 0.1
 */
gdouble
dl_lr_scheduler_get_closed_form_lr (DlLrScheduler *self, guint group, GError **error)
{
  GError *local = NULL;
  gdouble lr = NAN;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), 0);
  DL_LR_SCHEDULER_GET_CLASS (self)->compute_closed_form_lr (self, group, &lr, &local);
  return checked_rate (lr, local, error);
}

/**
 * dl_lr_scheduler_get_optimizer:
 * @self: a #DlLrScheduler
 *
 * Gives the optimizer whose learning rates the scheduler sets, the
 * #DlLrScheduler:optimizer property.
 *
 * Returns: (transfer none) (nullable): the scheduled optimizer
 *
 * Since: 0.1
 */
DlOptimizer *
dl_lr_scheduler_get_optimizer (DlLrScheduler *self)
{
  DlLrSchedulerPrivate *priv;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), NULL);
  priv = dl_lr_scheduler_get_instance_private (self);
  return priv->optimizer;
}

/**
 * dl_lr_scheduler_get_last_epoch:
 * @self: a #DlLrScheduler
 *
 * Gives the epoch the scheduler last stepped to, as `last_epoch` of a
 * PyTorch scheduler: 0 after construction (which takes the initial step),
 * one more after each dl_lr_scheduler_step().
 *
 * Returns: the last epoch stepped to (#DlLrScheduler:last-epoch)
 *
 * Since: 0.1
 */
gint64
dl_lr_scheduler_get_last_epoch (DlLrScheduler *self)
{
  DlLrSchedulerPrivate *priv;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), 0);
  priv = dl_lr_scheduler_get_instance_private (self);
  return priv->last_epoch;
}

/**
 * dl_lr_scheduler_get_base_lr:
 * @self: a #DlLrScheduler
 * @group: a parameter group's index
 *
 * Gives the learning rate the schedule of parameter group @group starts
 * from, as `base_lrs[group]` of a PyTorch scheduler: the rate its factors
 * multiply.
 *
 * Returns: the group's base learning rate (its "initial_lr" at
 *   construction; for a group added later, its current "initial_lr" or
 *   learning rate)
 *
 * Since: 0.1
 */
gdouble
dl_lr_scheduler_get_base_lr (DlLrScheduler *self, guint group)
{
  DlLrSchedulerPrivate *priv;
  gdouble v;
  GError *missing = NULL;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), 0);
  priv = dl_lr_scheduler_get_instance_private (self);
  if (group < priv->base_lrs->len)
    return g_array_index (priv->base_lrs, gdouble, group);
  g_return_val_if_fail (priv->optimizer != NULL, 0);
  g_return_val_if_fail (group < dl_optimizer_get_n_param_groups (priv->optimizer), 0);
  v = dl_optimizer_get_group_option (priv->optimizer, group, "initial_lr", &missing);
  if (missing)
    {
      g_error_free (missing);
      v = dl_optimizer_get_group_lr (priv->optimizer, group);
    }
  return v;
}

/**
 * dl_lr_scheduler_get_last_lr:
 * @self: a #DlLrScheduler
 * @n_groups: (out): the number of rates
 *
 * The learning rates the last step set, one per parameter group
 * (PyTorch's get_last_lr()).
 *
 * Returns: (transfer full) (array length=n_groups): the rates
 *
 * Since: 0.1
 */
gdouble *
dl_lr_scheduler_get_last_lr (DlLrScheduler *self, gsize *n_groups)
{
  DlLrSchedulerPrivate *priv;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), NULL);
  g_return_val_if_fail (n_groups != NULL, NULL);
  priv = dl_lr_scheduler_get_instance_private (self);
  *n_groups = priv->last_lrs->len;
  return g_memdup2 (priv->last_lrs->data, sizeof (gdouble) * MAX (priv->last_lrs->len, 1));
}

/**
 * dl_lr_scheduler_apply_lrs:
 * @self: a #DlLrScheduler
 * @lrs: (array length=n_groups): a learning rate per parameter group
 * @n_groups: the length of @lrs: the optimizer's number of groups
 * @error: return location for a #GError
 *
 * Sets each group's learning rate and records them as the last ones
 * (dl_lr_scheduler_get_last_lr()): what a subclass's own step calls.
 *
 * Returns: %TRUE on success; %FALSE with @error set when @n_groups is not
 *   the optimizer's number of groups
 *
 * Since: 0.1
 */
gboolean
dl_lr_scheduler_apply_lrs (DlLrScheduler *self,
                           const gdouble *lrs,
                           gsize n_groups,
                           GError **error)
{
  DlLrSchedulerPrivate *priv;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), FALSE);
  g_return_val_if_fail (lrs != NULL || n_groups == 0, FALSE);
  priv = dl_lr_scheduler_get_instance_private (self);
  if (!check_constructed (self, error))
    return FALSE;
  if (n_groups != dl_optimizer_get_n_param_groups (priv->optimizer))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %" G_GSIZE_FORMAT " learning rates for %u parameter groups",
                   dl_lr_scheduler_get_display_name (self), n_groups,
                   dl_optimizer_get_n_param_groups (priv->optimizer));
      return FALSE;
    }
  g_array_set_size (priv->last_lrs, 0);
  for (guint i = 0; i < n_groups; i++)
    {
      dl_optimizer_set_group_lr (priv->optimizer, i, lrs[i]);
      g_array_append_val (priv->last_lrs, lrs[i]);
    }
  return TRUE;
}

/* ---- state --------------------------------------------------------------- */

static GVariant *
doubles_variant (GArray *a)
{
  return g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, a->data, a->len, sizeof (gdouble));
}

static gboolean
is_state_pspec (GParamSpec *pspec)
{
  return (pspec->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE
         && !(pspec->flags & G_PARAM_CONSTRUCT_ONLY) && pspec != properties[PROP_LAST_EPOCH];
}

static GVariant *
value_to_variant (const GValue *value)
{
  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value)))
    {
      case G_TYPE_DOUBLE:
        return g_variant_new_double (g_value_get_double (value));
      case G_TYPE_INT64:
        return g_variant_new_int64 (g_value_get_int64 (value));
      case G_TYPE_INT:
        return g_variant_new_int64 (g_value_get_int (value));
      case G_TYPE_UINT:
        return g_variant_new_int64 (g_value_get_uint (value));
      case G_TYPE_BOOLEAN:
        return g_variant_new_boolean (g_value_get_boolean (value));
      case G_TYPE_STRING:
        return g_value_get_string (value) ? g_variant_new_string (g_value_get_string (value))
                                          : NULL;
      case G_TYPE_VARIANT:
        return g_value_get_variant (value);
      default:
        return NULL;
    }
}

/* @variant into @value (initialised to the property's type) */
static gboolean
variant_to_value (GVariant *variant, GValue *value)
{
  GType t = G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value));
  gdouble number = 0;

  if (t == G_TYPE_VARIANT)
    {
      g_value_set_variant (value, variant);
      return TRUE;
    }
  if (t == G_TYPE_STRING)
    {
      if (!g_variant_is_of_type (variant, G_VARIANT_TYPE_STRING))
        return FALSE;
      g_value_set_string (value, g_variant_get_string (variant, NULL));
      return TRUE;
    }
  if (g_variant_is_of_type (variant, G_VARIANT_TYPE_DOUBLE))
    number = g_variant_get_double (variant);
  else if (g_variant_is_of_type (variant, G_VARIANT_TYPE_INT64))
    number = g_variant_get_int64 (variant);
  else if (g_variant_is_of_type (variant, G_VARIANT_TYPE_INT32))
    number = g_variant_get_int32 (variant);
  else if (g_variant_is_of_type (variant, G_VARIANT_TYPE_BOOLEAN))
    number = g_variant_get_boolean (variant);
  else
    return FALSE;
  switch (t)
    {
      case G_TYPE_DOUBLE:
        g_value_set_double (value, number);
        return TRUE;
      case G_TYPE_INT64:
        g_value_set_int64 (value, (gint64)number);
        return TRUE;
      case G_TYPE_INT:
        g_value_set_int (value, (gint)number);
        return TRUE;
      case G_TYPE_UINT:
        g_value_set_uint (value, (guint)number);
        return TRUE;
      case G_TYPE_BOOLEAN:
        g_value_set_boolean (value, number != 0);
        return TRUE;
      default:
        return FALSE;
    }
}

/**
 * dl_lr_scheduler_get_state:
 * @self: a #DlLrScheduler
 *
 * The scheduler's state, as PyTorch's `scheduler.state_dict()`: a
 * dictionary (a{sv}) of "last_epoch" (x), "_step_count" (x), "base_lrs"
 * and "_last_lr" (ad), and each read-write property of the scheduler's
 * class under its name with underscores (hyperparameters such as
 * "gamma", and the counters of the schedulers that keep some).
 *
 * Returns: (transfer full): the state
 *
 * Since: 0.1
 */
GVariant *
dl_lr_scheduler_get_state (DlLrScheduler *self)
{
  DlLrSchedulerPrivate *priv;
  DlLrSchedulerSaveExtra save;
  g_auto (GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);
  g_autofree GParamSpec **pspecs = NULL;
  guint n;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), NULL);
  priv = dl_lr_scheduler_get_instance_private (self);
  g_variant_dict_insert (&dict, "last_epoch", "x", priv->last_epoch);
  g_variant_dict_insert (&dict, "_step_count", "x", priv->step_count);
  g_variant_dict_insert_value (&dict, "base_lrs", doubles_variant (priv->base_lrs));
  g_variant_dict_insert_value (&dict, "_last_lr", doubles_variant (priv->last_lrs));
  pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (self), &n);
  for (guint i = 0; i < n; i++)
    {
      g_auto (GValue) value = G_VALUE_INIT;
      g_autofree gchar *key = NULL;
      GVariant *v;

      if (!is_state_pspec (pspecs[i]))
        continue;
      g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspecs[i]));
      g_object_get_property (G_OBJECT (self), pspecs[i]->name, &value);
      if (!(v = value_to_variant (&value)))
        continue;
      key = g_strdelimit (g_strdup (pspecs[i]->name), "-", '_');
      g_variant_dict_insert_value (&dict, key, v);
    }
  if ((save = class_qdata (self, "dl-lr-scheduler-save")))
    save (self, &dict);
  return g_variant_ref_sink (g_variant_dict_end (&dict));
}

static gboolean
read_doubles (DlLrScheduler *self, GVariant *v, GArray *into, const gchar *key, GError **error)
{
  gsize n;
  const gdouble *d;

  if (!g_variant_is_of_type (v, G_VARIANT_TYPE ("ad")))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s.load_state_dict: '%s' is a %s, not a list of numbers (ad)",
                   dl_lr_scheduler_get_display_name (self), key, g_variant_get_type_string (v));
      return FALSE;
    }
  d = g_variant_get_fixed_array (v, &n, sizeof (gdouble));
  g_array_set_size (into, 0);
  g_array_append_vals (into, d, n);
  return TRUE;
}

/**
 * dl_lr_scheduler_set_state:
 * @self: a #DlLrScheduler
 * @state: a dictionary (a{sv}) from dl_lr_scheduler_get_state()
 * @error: return location for a #GError
 *
 * Restores a state, as PyTorch's `scheduler.load_state_dict()`; the
 * learning rates of the optimizer are not changed (restore the optimizer's
 * own state for them). Keys the scheduler does not know are ignored, as
 * PyTorch ignores them.
 *
 * Returns: %TRUE on success; %FALSE with @error set for a value of the
 *   wrong type (the state is then partly restored)
 *
 * Since: 0.1
 */
gboolean
dl_lr_scheduler_set_state (DlLrScheduler *self, GVariant *state, GError **error)
{
  DlLrSchedulerPrivate *priv;
  DlLrSchedulerLoadExtra load;
  g_auto (GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);
  GVariantIter iter;
  const gchar *key;
  GVariant *value;

  g_return_val_if_fail (DL_IS_LR_SCHEDULER (self), FALSE);
  g_return_val_if_fail (state != NULL, FALSE);
  priv = dl_lr_scheduler_get_instance_private (self);
  if (!g_variant_is_of_type (state, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s.load_state_dict: the state is a %s, not a dictionary (a{sv})",
                   dl_lr_scheduler_get_display_name (self), g_variant_get_type_string (state));
      return FALSE;
    }
  g_variant_dict_init (&dict, state);
  g_variant_iter_init (&iter, state);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autoptr (GVariant) v = value;
      g_autofree gchar *name = g_strdelimit (g_strdup (key), "_", '-');
      GParamSpec *pspec;
      g_auto (GValue) gvalue = G_VALUE_INIT;
      gboolean ok = TRUE;

      if (strcmp (key, "base_lrs") == 0)
        ok = read_doubles (self, v, priv->base_lrs, key, error);
      else if (strcmp (key, "_last_lr") == 0)
        ok = read_doubles (self, v, priv->last_lrs, key, error);
      else if (strcmp (key, "last_epoch") == 0 || strcmp (key, "_step_count") == 0)
        {
          g_value_init (&gvalue, G_TYPE_INT64);
          if (!(ok = variant_to_value (v, &gvalue)))
            g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                         "%s.load_state_dict: '%s' is a %s, not a number",
                         dl_lr_scheduler_get_display_name (self), key,
                         g_variant_get_type_string (v));
          else if (key[0] == '_')
            priv->step_count = g_value_get_int64 (&gvalue);
          else
            dl_lr_scheduler_set_last_epoch (self, g_value_get_int64 (&gvalue));
        }
      else if ((pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (self), name))
               && is_state_pspec (pspec))
        {
          g_value_init (&gvalue, G_PARAM_SPEC_VALUE_TYPE (pspec));
          /* a variant property takes only its own type (MultiStepLR's
           * "ax", CyclicLR's "ad") */
          if (G_IS_PARAM_SPEC_VARIANT (pspec)
              && !g_variant_is_of_type (v, G_PARAM_SPEC_VARIANT (pspec)->type))
            ok = FALSE;
          if (!ok || !(ok = variant_to_value (v, &gvalue)))
            g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                         "%s.load_state_dict: '%s' is a %s, which does not fit the property",
                         dl_lr_scheduler_get_display_name (self), key,
                         g_variant_get_type_string (v));
          else
            g_object_set_property (G_OBJECT (self), pspec->name, &gvalue);
        }
      if (!ok)
        return FALSE;
    }
  priv->initial_done = TRUE;
  if ((load = class_qdata (self, "dl-lr-scheduler-load")))
    return load (self, &dict, error);
  return TRUE;
}
