/* dl-lr-scheduler-private.h: what libdl's schedulers share with
 * DlLrScheduler.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "optim/dl-lr-scheduler.h"

G_BEGIN_DECLS

/* The name messages give schedulers of @klass ("StepLR"); and whether
 * construction ends with the initial step (libdl's own classes: a
 * subclass written in another language takes it in g_initable_init(),
 * once its object is whole). */
void dl_lr_scheduler_class_setup (DlLrSchedulerClass *klass, const gchar *name, gboolean own);
const gchar *dl_lr_scheduler_get_display_name (DlLrScheduler *self);

/* The first invalid construct value, kept for g_initable_init() */
void dl_lr_scheduler_take_construct_error (DlLrScheduler *self, GError *error);

/* The first step, from construction (last_epoch -1 to 0, or a resumed
 * epoch plus one) */
gboolean dl_lr_scheduler_initial_step (DlLrScheduler *self, GError **error);

/* Marks the initial step as taken (schedulers whose construction does
 * its own first step, or none) */
void dl_lr_scheduler_mark_started (DlLrScheduler *self);

/* The step counter of PyTorch's state dicts (_step_count) */
void dl_lr_scheduler_count_step (DlLrScheduler *self);
gint64 dl_lr_scheduler_get_step_count (DlLrScheduler *self);
void dl_lr_scheduler_set_step_count (DlLrScheduler *self, gint64 count);
void dl_lr_scheduler_set_last_epoch (DlLrScheduler *self, gint64 epoch);

/* Extra state of a subclass beyond its properties (SequentialLR's
 * children): added to and read from the state dict */
typedef void (*DlLrSchedulerSaveExtra) (DlLrScheduler *self, GVariantDict *dict);
typedef gboolean (*DlLrSchedulerLoadExtra) (DlLrScheduler *self,
                                            GVariantDict *dict,
                                            GError **error);
void dl_lr_scheduler_class_set_extra_state (DlLrSchedulerClass *klass,
                                            DlLrSchedulerSaveExtra save,
                                            DlLrSchedulerLoadExtra load);

G_END_DECLS
