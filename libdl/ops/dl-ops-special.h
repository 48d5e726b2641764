/* dl-ops-special.h
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
DlTensor *dl_tensor_special_i0e (DlTensor *self, GError **error);
DL_EXPORT
DlTensor *dl_tensor_special_i1e (DlTensor *self, GError **error);
DL_EXPORT
DlTensor *dl_tensor_special_erfcx (DlTensor *self, GError **error);
DL_EXPORT
DlTensor *dl_tensor_special_ndtri (DlTensor *self, GError **error);
DL_EXPORT
DlTensor *dl_tensor_special_log_ndtr (DlTensor *self, GError **error);
DL_EXPORT
DlTensor *dl_tensor_igamma (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT
DlTensor *dl_tensor_igammac (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT
DlTensor *dl_tensor_special_zeta (DlTensor *self, DlTensor *other, GError **error);

G_END_DECLS
