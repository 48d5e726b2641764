/* dl-ops-math.h: the elementwise ops outside the op table (dl-ops-math.c)
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

DL_EXPORT DlTensor *dl_tensor_logical_not (DlTensor *self, GError **error);
DL_EXPORT DlTensor *
dl_tensor_nan_to_num (DlTensor *self, gdouble nan, gdouble posinf, gdouble neginf, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_and (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_or (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_xor (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_clamp (DlTensor *self, DlTensor *min, DlTensor *max, GError **error);
DL_EXPORT DlTensor *
dl_tensor_clamp_scalar (DlTensor *self, gdouble min, gdouble max, GError **error);
DL_EXPORT DlTensor *dl_tensor_clamp_ (DlTensor *self, DlTensor *min, DlTensor *max, GError **error);
DL_EXPORT DlTensor *
dl_tensor_clamp_scalar_ (DlTensor *self, gdouble min, gdouble max, GError **error);
DL_EXPORT DlTensor *
dl_tensor_lerp (DlTensor *self, DlTensor *end, DlTensor *weight, GError **error);
DL_EXPORT DlTensor *
dl_tensor_lerp_scalar (DlTensor *self, DlTensor *end, gdouble weight, GError **error);

G_END_DECLS
