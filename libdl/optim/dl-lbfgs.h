/* dl-lbfgs.h: DlLbfgs, the L-BFGS optimizer.
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

#define DL_TYPE_LBFGS (dl_lbfgs_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlLbfgs, dl_lbfgs, DL, LBFGS, DlOptimizer)

/**
 * DlLossClosure:
 * @user_data: the data given with the function
 * @error: return location for a #GError
 *
 * Re-evaluates the model: clears the gradients, computes the loss, calls
 * backward on it and returns it (PyTorch's closure). It runs with autograd
 * recording on.
 *
 * Returns: (transfer full) (nullable): the loss, a one-element tensor, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
typedef DlTensor *(*DlLossClosure) (gpointer user_data, GError **error);

DL_EXPORT
DlLbfgs *dl_lbfgs_new (GPtrArray *params,
                       gdouble lr,
                       gint64 max_iter,
                       gint64 history_size,
                       const gchar *line_search_fn,
                       GError **error);
DL_EXPORT
DlTensor *
dl_lbfgs_step_closure (DlLbfgs *self, DlLossClosure closure, gpointer user_data, GError **error);

G_END_DECLS
