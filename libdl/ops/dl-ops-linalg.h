/* dl-ops-linalg.h
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

DL_EXPORT DlTensor *dl_tensor_matmul (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_mm     (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_bmm    (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_dot    (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_outer  (DlTensor *self, DlTensor *other, GError **error);

G_END_DECLS
