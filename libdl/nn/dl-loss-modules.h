/* dl-loss-modules.h: the losses as modules: DlCrossEntropyLoss and
 * DlNllLoss.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "nn/dl-module.h"
#include "nn/dl-loss.h"

G_BEGIN_DECLS

#define DL_TYPE_CROSS_ENTROPY_LOSS (dl_cross_entropy_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlCrossEntropyLoss, dl_cross_entropy_loss, DL, CROSS_ENTROPY_LOSS, DlModule)

DL_EXPORT
DlCrossEntropyLoss *dl_cross_entropy_loss_new (void);
DL_EXPORT
DlReduction dl_cross_entropy_loss_get_reduction (DlCrossEntropyLoss *self);

#define DL_TYPE_NLL_LOSS (dl_nll_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlNllLoss, dl_nll_loss, DL, NLL_LOSS, DlModule)

DL_EXPORT
DlNllLoss *dl_nll_loss_new (void);
DL_EXPORT
DlReduction dl_nll_loss_get_reduction (DlNllLoss *self);

G_END_DECLS
