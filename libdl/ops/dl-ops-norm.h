/* dl-ops-norm.h: batch, layer and group normalisation.
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
DlTensor *dl_batch_norm (DlTensor *input,
                         DlTensor *running_mean,
                         DlTensor *running_var,
                         DlTensor *weight,
                         DlTensor *bias,
                         gboolean training,
                         gdouble momentum,
                         gdouble eps,
                         GError **error);
DL_EXPORT
DlTensor *dl_layer_norm (DlTensor *input,
                         const gint64 *normalized_shape,
                         gsize n_normalized,
                         DlTensor *weight,
                         DlTensor *bias,
                         gdouble eps,
                         GError **error);
DL_EXPORT
DlTensor *dl_group_norm (DlTensor *input,
                         gint64 num_groups,
                         DlTensor *weight,
                         DlTensor *bias,
                         gdouble eps,
                         GError **error);

G_END_DECLS
