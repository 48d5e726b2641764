/* dl-adamax.h: DlAdamax, the Adamax optimizer.
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

#define DL_TYPE_ADAMAX (dl_adamax_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlAdamax, dl_adamax, DL, ADAMAX, DlOptimizer)

DL_EXPORT
DlAdamax *dl_adamax_new (GPtrArray *params,
                         gdouble lr,
                         gdouble beta1,
                         gdouble beta2,
                         gdouble eps,
                         gdouble weight_decay,
                         GError **error);

G_END_DECLS
