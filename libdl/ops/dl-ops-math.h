/* dl-ops-math.h: the pointwise math library
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

DL_EXPORT DlTensor *dl_tensor_expm1 (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_log1p (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_log2 (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_rsqrt (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_sin (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_cos (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_tan (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_gelu (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_gelu_tanh (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_silu (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_sign (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_floor (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_ceil (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_round (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_trunc (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_frac (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_reciprocal (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_erf (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_isnan (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_isinf (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_isfinite (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_not (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_bitwise_not (DlTensor *self, GError **error);
DL_EXPORT DlTensor *
dl_tensor_nan_to_num (DlTensor *self, gdouble nan, gdouble posinf, gdouble neginf, GError **error);

DL_EXPORT DlTensor *dl_tensor_pow (DlTensor *self, DlTensor *exponent, GError **error);
DL_EXPORT DlTensor *dl_tensor_pow_scalar (DlTensor *self, gdouble exponent, GError **error);
DL_EXPORT DlTensor *dl_tensor_rpow_scalar (DlTensor *self, gdouble base, GError **error);
DL_EXPORT DlTensor *dl_tensor_floor_divide (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_floor_divide_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_remainder (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_remainder_scalar (DlTensor *self, gdouble other, GError **error);
DL_EXPORT DlTensor *dl_tensor_atan2 (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_bitwise_and (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_bitwise_or (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_bitwise_xor (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_and (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_or (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_xor (DlTensor *self, DlTensor *other, GError **error);

DL_EXPORT DlTensor *dl_tensor_clamp (DlTensor *self, DlTensor *min, DlTensor *max, GError **error);
DL_EXPORT DlTensor *
dl_tensor_clamp_scalar (DlTensor *self, gdouble min, gdouble max, GError **error);
DL_EXPORT DlTensor *dl_tensor_clamp_ (DlTensor *self, DlTensor *min, DlTensor *max, GError **error);
DL_EXPORT DlTensor *dl_tensor_relu_ (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_pow_ (DlTensor *self, DlTensor *exponent, GError **error);
DL_EXPORT DlTensor *dl_tensor_floor_divide_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_remainder_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_bitwise_and_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_bitwise_or_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_bitwise_xor_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *
dl_tensor_lerp (DlTensor *self, DlTensor *end, DlTensor *weight, GError **error);
DL_EXPORT DlTensor *
dl_tensor_lerp_scalar (DlTensor *self, DlTensor *end, gdouble weight, GError **error);

G_END_DECLS
