/* dl-adadelta.h: DlAdadelta, the Adadelta optimizer.
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

#define DL_TYPE_ADADELTA (dl_adadelta_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlAdadelta, dl_adadelta, DL, ADADELTA, DlOptimizer)

DL_EXPORT
DlAdadelta *dl_adadelta_new (GPtrArray *params,
                             gdouble lr,
                             gdouble rho,
                             gdouble eps,
                             gdouble weight_decay,
                             GError **error);

G_END_DECLS
