/* dl-loss.h: loss functions.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"

G_BEGIN_DECLS

DL_EXPORT
DlTensor *dl_nll_loss (DlTensor *log_probs, DlTensor *target, GError **error);
DL_EXPORT
DlTensor *dl_cross_entropy (DlTensor *input, DlTensor *target, GError **error);

G_END_DECLS
