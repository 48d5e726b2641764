/* dl-ops-pointwise.h
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

DL_EXPORT DlTensor *dl_tensor_add (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *
dl_tensor_add_scaled (DlTensor *self, DlTensor *other, gdouble alpha, GError **error);
DL_EXPORT DlTensor *dl_tensor_sub (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_mul (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_div (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_maximum (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_minimum (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_eq (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_ne (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_lt (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_le (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_gt (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_ge (DlTensor *self, DlTensor *other, GError **error);

DL_EXPORT DlTensor *dl_tensor_add_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_sub_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_rsub_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_mul_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_div_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_rdiv_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_eq_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_ne_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_lt_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_le_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_gt_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_ge_scalar (DlTensor *self, gdouble other, GError **error);

DL_EXPORT DlTensor *dl_tensor_neg (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_exp (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_log (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_relu (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_abs (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_sqrt (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_tanh (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_sigmoid (DlTensor *self, GError **error);

DL_EXPORT DlTensor *dl_tensor_add_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *
dl_tensor_add_scaled_ (DlTensor *self, DlTensor *other, gdouble alpha, GError **error);
DL_EXPORT DlTensor *dl_tensor_sub_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_mul_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_div_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_add_scalar_ (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_mul_scalar_ (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_fill_ (DlTensor *self, gdouble value, GError **error);
DL_EXPORT DlTensor *dl_tensor_zero_ (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_copy_ (DlTensor *self, DlTensor *src, GError **error);

DL_EXPORT DlTensor *dl_tensor_to_dtype (DlTensor *self, DlDType dtype, GError **error);
DL_EXPORT DlTensor *dl_tensor_clone (DlTensor *self, GError **error);

G_END_DECLS
