/* dl-reduce-lr-on-plateau.h: DlReduceLrOnPlateau, the scheduler that
 * follows a metric.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "optim/dl-lr-scheduler.h"

G_BEGIN_DECLS

#define DL_TYPE_REDUCE_LR_ON_PLATEAU (dl_reduce_lr_on_plateau_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlReduceLrOnPlateau,
                      dl_reduce_lr_on_plateau,
                      DL,
                      REDUCE_LR_ON_PLATEAU,
                      DlLrScheduler)

DL_EXPORT
DlReduceLrOnPlateau *dl_reduce_lr_on_plateau_new (DlOptimizer *optimizer,
                                                  const gchar *mode,
                                                  gdouble factor,
                                                  gint64 patience,
                                                  GError **error);
DL_EXPORT
gboolean
dl_reduce_lr_on_plateau_step_metric (DlReduceLrOnPlateau *self, gdouble metric, GError **error);
DL_EXPORT
gboolean dl_reduce_lr_on_plateau_set_min_lrs (DlReduceLrOnPlateau *self,
                                              const gdouble *min_lrs,
                                              gsize n_groups,
                                              GError **error);

G_END_DECLS
