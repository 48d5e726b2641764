/* dl-adagrad.h: DlAdagrad, Adagrad, adaptive gradients.
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

#define DL_TYPE_ADAGRAD (dl_adagrad_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlAdagrad, dl_adagrad, DL, ADAGRAD, DlOptimizer)

DL_EXPORT
DlAdagrad *dl_adagrad_new (GPtrArray *params,
                           gdouble lr,
                           gdouble lr_decay,
                           gdouble weight_decay,
                           gdouble initial_accumulator_value,
                           gdouble eps,
                           GError **error);

G_END_DECLS
