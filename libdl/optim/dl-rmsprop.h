/* dl-rmsprop.h: DlRmsprop, RMSprop, root-mean-square propagation.
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

#define DL_TYPE_RMSPROP (dl_rmsprop_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlRmsprop, dl_rmsprop, DL, RMSPROP, DlOptimizer)

DL_EXPORT
DlRmsprop *dl_rmsprop_new (GPtrArray *params,
                           gdouble lr,
                           gdouble alpha,
                           gdouble eps,
                           gdouble weight_decay,
                           gdouble momentum,
                           gboolean centered,
                           GError **error);

G_END_DECLS
