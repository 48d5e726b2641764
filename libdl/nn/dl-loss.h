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
 * @DL_REDUCTION_NONE: no reduction: one loss per sample (not supported
 *   yet)
 * @DL_REDUCTION_MEAN: the mean of the samples' losses (PyTorch's default)
 * @DL_REDUCTION_SUM: the sum of the samples' losses (not supported yet)
 *
 * How a loss combines its samples' losses, PyTorch's `reduction=`
 * argument ('none', 'mean', 'sum').
 *
 * Since: 0.1
 */
typedef enum
{
  DL_REDUCTION_NONE,
  DL_REDUCTION_MEAN,
  DL_REDUCTION_SUM,
} DlReduction;

DL_EXPORT
DlTensor *dl_nll_loss (DlTensor *log_probs, DlTensor *target, GError **error);
DL_EXPORT
DlTensor *dl_cross_entropy (DlTensor *input, DlTensor *target, GError **error);

G_END_DECLS
