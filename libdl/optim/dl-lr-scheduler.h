/* dl-lr-scheduler.h: DlLrScheduler, the base class of learning-rate
 * schedulers.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "optim/dl-optimizer.h"

G_BEGIN_DECLS

#define DL_TYPE_LR_SCHEDULER (dl_lr_scheduler_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlLrScheduler, dl_lr_scheduler, DL, LR_SCHEDULER, GObject)

/**
 * DlLrSchedulerClass:
 * @parent_class: the parent class
 * @compute_lr: a group's learning rate at the scheduler's (new) last
 *   epoch, from its current one (PyTorch's chainable get_lr); what
 *   dl_lr_scheduler_get_lr() returns
 * @compute_closed_form_lr: the same from the base learning rate and the
 *   epoch alone, for dl_lr_scheduler_step_to(); the default calls
 *   @compute_lr
 * @step: advances one epoch; see dl_lr_scheduler_step()
 * @step_to: jumps to an epoch; see dl_lr_scheduler_step_to()
 *
 * The class of learning-rate schedulers. A subclass overrides @compute_lr
 * (and @compute_closed_form_lr when it has a closed form); schedulers
 * that keep more state than the epoch override @step and @step_to.
 *
 * @compute_lr and @compute_closed_form_lr hand their rate back through
 * an out parameter and return nothing, because GJS 1.74 passes the
 * double that a JavaScript callback or vfunc returns back to C as 0,
 * whereas an out double arrives intact. Python's `do_compute_lr`, GJS's
 * `vfunc_compute_lr` and Vala's `override compute_lr` (with `out double
 * lr`) all give the rate as their result.
 *
 * Since: 0.1
 */
struct _DlLrSchedulerClass
{
  GObjectClass parent_class;

  void (*compute_lr) (DlLrScheduler *self,
                      guint group,
                      gdouble current_lr,
                      gdouble *lr,
                      GError **error);
  void (*compute_closed_form_lr) (DlLrScheduler *self, guint group, gdouble *lr, GError **error);
  gboolean (*step) (DlLrScheduler *self, GError **error);
  gboolean (*step_to) (DlLrScheduler *self, gdouble epoch, GError **error);

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
gboolean dl_lr_scheduler_step (DlLrScheduler *self, GError **error);
DL_EXPORT
gboolean dl_lr_scheduler_step_to (DlLrScheduler *self, gdouble epoch, GError **error);
DL_EXPORT
gdouble
dl_lr_scheduler_get_lr (DlLrScheduler *self, guint group, gdouble current_lr, GError **error);
DL_EXPORT
gdouble dl_lr_scheduler_get_closed_form_lr (DlLrScheduler *self, guint group, GError **error);
DL_EXPORT
DlOptimizer *dl_lr_scheduler_get_optimizer (DlLrScheduler *self);
DL_EXPORT
gint64 dl_lr_scheduler_get_last_epoch (DlLrScheduler *self);
DL_EXPORT
gdouble dl_lr_scheduler_get_base_lr (DlLrScheduler *self, guint group);
DL_EXPORT
gdouble *dl_lr_scheduler_get_last_lr (DlLrScheduler *self, gsize *n_groups);
DL_EXPORT
gboolean dl_lr_scheduler_apply_lrs (DlLrScheduler *self,
                                    const gdouble *lrs,
                                    gsize n_groups,
                                    GError **error);
DL_EXPORT
GVariant *dl_lr_scheduler_get_state (DlLrScheduler *self);
DL_EXPORT
gboolean dl_lr_scheduler_set_state (DlLrScheduler *self, GVariant *state, GError **error);

G_END_DECLS
