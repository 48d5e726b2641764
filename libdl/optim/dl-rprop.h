/* dl-rprop.h: DlRprop, the resilient backpropagation optimizer.
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

#define DL_TYPE_RPROP (dl_rprop_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlRprop, dl_rprop, DL, RPROP, DlOptimizer)

DL_EXPORT
DlRprop *dl_rprop_new (GPtrArray *params,
                       gdouble lr,
                       gdouble etaminus,
                       gdouble etaplus,
                       gdouble step_size_min,
                       gdouble step_size_max,
                       GError **error);

G_END_DECLS
