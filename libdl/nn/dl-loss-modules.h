/* dl-loss-modules.h: the losses as modules: DlCrossEntropyLoss,
 * DlNllLoss, DlMseLoss, DlL1Loss, DlSmoothL1Loss, DlHuberLoss, DlBceLoss,
 * DlBceWithLogitsLoss and DlKlDivLoss.
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

#define DL_TYPE_MSE_LOSS (dl_mse_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMseLoss, dl_mse_loss, DL, MSE_LOSS, DlModule)

DL_EXPORT
DlMseLoss *dl_mse_loss_new (void);
DL_EXPORT
DlReduction dl_mse_loss_get_reduction (DlMseLoss *self);

#define DL_TYPE_L1_LOSS (dl_l1_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlL1Loss, dl_l1_loss, DL, L1_LOSS, DlModule)

DL_EXPORT
DlL1Loss *dl_l1_loss_new (void);
DL_EXPORT
DlReduction dl_l1_loss_get_reduction (DlL1Loss *self);

#define DL_TYPE_SMOOTH_L1_LOSS (dl_smooth_l1_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSmoothL1Loss, dl_smooth_l1_loss, DL, SMOOTH_L1_LOSS, DlModule)

DL_EXPORT
DlSmoothL1Loss *dl_smooth_l1_loss_new (void);
DL_EXPORT
DlReduction dl_smooth_l1_loss_get_reduction (DlSmoothL1Loss *self);

#define DL_TYPE_HUBER_LOSS (dl_huber_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlHuberLoss, dl_huber_loss, DL, HUBER_LOSS, DlModule)

DL_EXPORT
DlHuberLoss *dl_huber_loss_new (void);
DL_EXPORT
DlReduction dl_huber_loss_get_reduction (DlHuberLoss *self);

#define DL_TYPE_BCE_LOSS (dl_bce_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlBceLoss, dl_bce_loss, DL, BCE_LOSS, DlModule)

DL_EXPORT
DlBceLoss *dl_bce_loss_new (void);
DL_EXPORT
DlReduction dl_bce_loss_get_reduction (DlBceLoss *self);

#define DL_TYPE_BCE_WITH_LOGITS_LOSS (dl_bce_with_logits_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlBceWithLogitsLoss,
                      dl_bce_with_logits_loss,
                      DL,
                      BCE_WITH_LOGITS_LOSS,
                      DlModule)

DL_EXPORT
DlBceWithLogitsLoss *dl_bce_with_logits_loss_new (void);
DL_EXPORT
DlReduction dl_bce_with_logits_loss_get_reduction (DlBceWithLogitsLoss *self);

#define DL_TYPE_KL_DIV_LOSS (dl_kl_div_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlKlDivLoss, dl_kl_div_loss, DL, KL_DIV_LOSS, DlModule)

DL_EXPORT
DlKlDivLoss *dl_kl_div_loss_new (void);
DL_EXPORT
DlReduction dl_kl_div_loss_get_reduction (DlKlDivLoss *self);

G_END_DECLS
