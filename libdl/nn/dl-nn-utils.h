/* dl-nn-utils.h: the gradient and parameter utilities of torch.nn.utils.
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
DlTensor *dl_clip_grad_norm_ (DlTensor **parameters,
                              gsize n_parameters,
                              gdouble max_norm,
                              gdouble norm_type,
                              gboolean error_if_nonfinite,
                              GError **error);
DL_EXPORT
gboolean
dl_clip_grad_value_ (DlTensor **parameters, gsize n_parameters, gdouble clip_value, GError **error);
DL_EXPORT
DlTensor *dl_parameters_to_vector (DlTensor **parameters, gsize n_parameters, GError **error);
DL_EXPORT
gboolean
dl_vector_to_parameters (DlTensor *vec, DlTensor **parameters, gsize n_parameters, GError **error);
DL_EXPORT
DlTensor *dl_weight_norm (DlTensor *v, DlTensor *g, gint64 dim, GError **error);

G_END_DECLS
