/* dl-chained-scheduler.c: ChainedScheduler as
 * torch.optim.lr_scheduler.ChainedScheduler (1.13): every step steps each
 * of its schedulers in order, so that their factors compound; its last
 * rates are the optimizer's after them.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-lr-schedulers.h"
#include "dl-lr-scheduler-fields-private.h"
#include "dl-error.h"

/**
 * DlChainedScheduler:
 *
 * Steps each of #DlChainedScheduler:schedulers, all of one optimizer, at
 * every dl_lr_scheduler_step(), as torch.optim.lr_scheduler.ChainedScheduler
 * (a warm-up and a decay at once, say). It takes no initial step of its
 * own; its state holds its schedulers' states under "_schedulers".
 *
 * Since: 0.1
 */
struct _DlChainedScheduler
{
  DlLrScheduler parent_instance;
  GListModel *schedulers_model;
  GPtrArray *schedulers; /* DlLrScheduler */
};

/**
 * DlChainedSchedulerClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlChainedScheduler. The type is final: its class
 * adds no virtual method to that of #DlLrScheduler, and it cannot be
 * subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlChainedScheduler, dl_chained_scheduler, DL_TYPE_LR_SCHEDULER)

enum
{
  PROP_SCHEDULERS = 1,
};

/* the optimizer's rates as the scheduler's last ones */
static gboolean
take_rates (DlChainedScheduler *self, GError **error)
{
  DlOptimizer *opt = optimizer_of (self);
  guint n = dl_optimizer_get_n_param_groups (opt);
  g_autofree gdouble *lrs = g_new (gdouble, n);

  for (guint i = 0; i < n; i++)
    lrs[i] = dl_optimizer_get_group_lr (opt, i);
  return dl_lr_scheduler_apply_lrs (DL_LR_SCHEDULER (self), lrs, n, error);
}

static gboolean
chained_step (DlLrScheduler *scheduler, GError **error)
{
  DlChainedScheduler *self = DL_CHAINED_SCHEDULER (scheduler);

  for (guint i = 0; i < self->schedulers->len; i++)
    if (!dl_lr_scheduler_step (self->schedulers->pdata[i], error))
      return FALSE;
  return take_rates (self, error);
}

static gboolean
chained_step_to (DlLrScheduler *scheduler, gdouble epoch, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "ChainedScheduler: step takes no epoch (it steps each of its schedulers)");
  return FALSE;
}

static void
chained_constructed (GObject *object)
{
  DlChainedScheduler *self = DL_CHAINED_SCHEDULER (object);
  DlOptimizer *optimizer = optimizer_of (self);
  guint n = self->schedulers_model ? g_list_model_get_n_items (self->schedulers_model) : 0;
  gboolean ok = TRUE;
  GError *error = NULL;

  for (guint i = 0; i < n && ok; i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (self->schedulers_model, i);

      if (!DL_IS_LR_SCHEDULER (item))
        {
          dl_lr_scheduler_construct_error (self, "schedulers: item %u is a %s, not a scheduler", i,
                                           item ? G_OBJECT_TYPE_NAME (item) : "NULL");
          ok = FALSE;
        }
      else if (dl_lr_scheduler_get_optimizer (DL_LR_SCHEDULER (item)) != optimizer)
        {
          dl_lr_scheduler_construct_error (
              self,
              "ChainedScheduler expects all schedulers to belong to the same optimizer, but got "
              "schedulers at index 0 and %u to be different",
              i);
          ok = FALSE;
        }
      else
        g_ptr_array_add (self->schedulers, g_steal_pointer (&item));
    }
  g_clear_object (&self->schedulers_model);
  if (ok && n == 0)
    {
      dl_lr_scheduler_construct_error (self, "ChainedScheduler expects at least one scheduler");
      ok = FALSE;
    }
  G_OBJECT_CLASS (dl_chained_scheduler_parent_class)->constructed (object);
  dl_lr_scheduler_mark_started (DL_LR_SCHEDULER (self));
  if (ok && optimizer && !take_rates (self, &error))
    dl_lr_scheduler_take_construct_error (DL_LR_SCHEDULER (self), error);
}

static void
chained_save (DlLrScheduler *scheduler, GVariantDict *dict)
{
  dl_lr_scheduler_save_children (DL_CHAINED_SCHEDULER (scheduler)->schedulers, dict);
}

static gboolean
chained_load (DlLrScheduler *scheduler, GVariantDict *dict, GError **error)
{
  return dl_lr_scheduler_load_children (scheduler, DL_CHAINED_SCHEDULER (scheduler)->schedulers,
                                        dict, error);
}

static void
chained_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlChainedScheduler *self = DL_CHAINED_SCHEDULER (object);
  GListStore *store = g_list_store_new (DL_TYPE_LR_SCHEDULER);

  g_list_store_splice (store, 0, 0, self->schedulers->pdata, self->schedulers->len);
  g_value_take_object (value, store);
}

static void
chained_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlChainedScheduler *self = DL_CHAINED_SCHEDULER (object);

  g_set_object (&self->schedulers_model, g_value_get_object (value));
}

static void
chained_dispose (GObject *object)
{
  DlChainedScheduler *self = DL_CHAINED_SCHEDULER (object);

  g_clear_object (&self->schedulers_model);
  g_clear_pointer (&self->schedulers, g_ptr_array_unref);
  G_OBJECT_CLASS (dl_chained_scheduler_parent_class)->dispose (object);
}

static void
dl_chained_scheduler_class_init (DlChainedSchedulerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = chained_constructed;
  object_class->dispose = chained_dispose;
  object_class->get_property = chained_get_property;
  object_class->set_property = chained_set_property;
  /**
   * DlChainedScheduler:schedulers:
   *
   * The schedulers, a #GListModel of #DlLrScheduler given at
   * construction, all of the same optimizer (#DlLrScheduler:optimizer).
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_SCHEDULERS,
                                   g_param_spec_object ("schedulers", NULL, NULL, G_TYPE_LIST_MODEL,
                                                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY
                                                            | G_PARAM_STATIC_STRINGS
                                                            | G_PARAM_EXPLICIT_NOTIFY));
  DL_LR_SCHEDULER_CLASS (klass)->step = chained_step;
  DL_LR_SCHEDULER_CLASS (klass)->step_to = chained_step_to;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "ChainedScheduler", FALSE);
  dl_lr_scheduler_class_set_extra_state (DL_LR_SCHEDULER_CLASS (klass), chained_save, chained_load);
}

static void
dl_chained_scheduler_init (DlChainedScheduler *self)
{
  self->schedulers = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * dl_chained_scheduler_new:
 * @schedulers: (element-type DlLrScheduler): the schedulers, in the order
 *   they step, all of one optimizer
 * @error: return location for a #GError
 *
 * Makes a scheduler that steps each of @schedulers at every step, as
 * `torch.optim.lr_scheduler.ChainedScheduler (schedulers)`.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlSgd) sgd = NULL;
 * g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_object_unref);
 * g_autoptr (DlChainedScheduler) chain = NULL;
 *
 * if (!(fc = dl_linear_new (4, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * sgd = dl_sgd_new (params, 0.1, 0.9, 0, 0, FALSE, &error);
 * g_ptr_array_add (parts, dl_constant_lr_new (DL_OPTIMIZER (sgd), 0.1, 3, &error));
 * g_ptr_array_add (parts, dl_exponential_lr_new (DL_OPTIMIZER (sgd), 0.9, &error));
 * chain = dl_chained_scheduler_new (parts, &error);
 * ]|
 *
 * Returns: (transfer full): a new scheduler, or %NULL with @error set
 *   (%DL_ERROR_ARGUMENT) when @schedulers is empty or its schedulers have
 *   different optimizers
 *
 * Since: 0.1
 */
DlChainedScheduler *
dl_chained_scheduler_new (GPtrArray *schedulers, GError **error)
{
  g_autoptr (GListStore) store = g_list_store_new (DL_TYPE_LR_SCHEDULER);
  DlOptimizer *optimizer;

  g_return_val_if_fail (schedulers != NULL, NULL);
  if (schedulers->len == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "ChainedScheduler: ChainedScheduler expects at least one scheduler");
      return NULL;
    }
  g_return_val_if_fail (DL_IS_LR_SCHEDULER (schedulers->pdata[0]), NULL);
  optimizer = dl_lr_scheduler_get_optimizer (schedulers->pdata[0]);
  g_list_store_splice (store, 0, 0, schedulers->pdata, schedulers->len);
  return g_initable_new (DL_TYPE_CHAINED_SCHEDULER, NULL, error, "optimizer", optimizer,
                         "schedulers", store, NULL);
}
