/* dl-radam.h: DlRadam, the RAdam optimizer.
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

#define DL_TYPE_RADAM (dl_radam_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlRadam, dl_radam, DL, RADAM, DlOptimizer)

DL_EXPORT
DlRadam *dl_radam_new (GPtrArray *params,
                       gdouble lr,
                       gdouble beta1,
                       gdouble beta2,
                       gdouble eps,
                       gdouble weight_decay,
                       GError **error);

G_END_DECLS
