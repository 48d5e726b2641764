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

/**
 * DlReduction:
 * @DL_REDUCTION_NONE: no reduction: one loss per sample
 * @DL_REDUCTION_MEAN: the mean of the samples' losses (PyTorch's default);
 *   a weighted classification loss divides by the total weight instead
 * @DL_REDUCTION_SUM: the sum of the samples' losses
 * @DL_REDUCTION_BATCHMEAN: the sum divided by the batch size (the size of
 *   dim 0); only dl_kl_div() takes it
 *
 * How a loss combines its samples' losses, PyTorch's `reduction=`
 * argument ('none', 'mean', 'sum', and kl_div's 'batchmean').
 *
 * Since: 0.1
 */
typedef enum
{
  DL_REDUCTION_NONE,
  DL_REDUCTION_MEAN,
  DL_REDUCTION_SUM,
  DL_REDUCTION_BATCHMEAN,
} DlReduction;

DL_EXPORT
DlTensor *dl_nll_loss (DlTensor *log_probs, DlTensor *target, GError **error);
DL_EXPORT
DlTensor *dl_cross_entropy (DlTensor *input, DlTensor *target, GError **error);
DL_EXPORT
DlTensor *dl_nll_loss_full (DlTensor *input,
                            DlTensor *target,
                            DlTensor *weight,
                            gint64 ignore_index,
                            DlReduction reduction,
                            GError **error);
DL_EXPORT
DlTensor *dl_cross_entropy_full (DlTensor *input,
                                 DlTensor *target,
                                 DlTensor *weight,
                                 gint64 ignore_index,
                                 DlReduction reduction,
                                 gdouble label_smoothing,
                                 GError **error);
DL_EXPORT
DlTensor *dl_mse_loss (DlTensor *input, DlTensor *target, DlReduction reduction, GError **error);
DL_EXPORT
DlTensor *dl_l1_loss (DlTensor *input, DlTensor *target, DlReduction reduction, GError **error);
DL_EXPORT
DlTensor *dl_smooth_l1_loss (DlTensor *input,
                             DlTensor *target,
                             DlReduction reduction,
                             gdouble beta,
                             GError **error);
DL_EXPORT
DlTensor *dl_huber_loss (DlTensor *input,
                         DlTensor *target,
                         DlReduction reduction,
                         gdouble delta,
                         GError **error);
DL_EXPORT
DlTensor *dl_binary_cross_entropy (DlTensor *input,
                                   DlTensor *target,
                                   DlTensor *weight,
                                   DlReduction reduction,
                                   GError **error);
DL_EXPORT
DlTensor *dl_binary_cross_entropy_with_logits (DlTensor *input,
                                               DlTensor *target,
                                               DlTensor *weight,
                                               DlTensor *pos_weight,
                                               DlReduction reduction,
                                               GError **error);
DL_EXPORT
DlTensor *dl_kl_div (DlTensor *input,
                     DlTensor *target,
                     DlReduction reduction,
                     gboolean log_target,
                     GError **error);

G_END_DECLS
