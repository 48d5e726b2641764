/* dl-ops-activation.h
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

DL_EXPORT DlTensor *dl_tensor_log_softmax (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_softmax (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_leaky_relu (DlTensor *self, gdouble negative_slope, GError **error);
DL_EXPORT DlTensor *dl_tensor_leaky_relu_ (DlTensor *self, gdouble negative_slope, GError **error);

G_END_DECLS
