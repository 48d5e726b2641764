/* dl-sgd.h: DlSgd, stochastic gradient descent with momentum.
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

#define DL_TYPE_SGD (dl_sgd_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSgd, dl_sgd, DL, SGD, DlOptimizer)

DL_EXPORT
DlSgd *dl_sgd_new (GPtrArray *params,
                   gdouble lr,
                   gdouble momentum,
                   gdouble dampening,
                   gdouble weight_decay,
                   gboolean nesterov,
                   GError **error);

G_END_DECLS
