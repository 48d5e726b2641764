/* dl-asgd.h: DlAsgd, averaged stochastic gradient descent.
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

#define DL_TYPE_ASGD (dl_asgd_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlAsgd, dl_asgd, DL, ASGD, DlOptimizer)

DL_EXPORT
DlAsgd *dl_asgd_new (GPtrArray *params,
                     gdouble lr,
                     gdouble lambd,
                     gdouble alpha,
                     gdouble t0,
                     gdouble weight_decay,
                     GError **error);

G_END_DECLS
