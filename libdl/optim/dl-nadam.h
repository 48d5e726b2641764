/* dl-nadam.h: DlNadam, the NAdam optimizer.
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

#define DL_TYPE_NADAM (dl_nadam_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlNadam, dl_nadam, DL, NADAM, DlOptimizer)

DL_EXPORT
DlNadam *dl_nadam_new (GPtrArray *params,
                       gdouble lr,
                       gdouble beta1,
                       gdouble beta2,
                       gdouble eps,
                       gdouble weight_decay,
                       gdouble momentum_decay,
                       GError **error);

G_END_DECLS
