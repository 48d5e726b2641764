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

/**
 * DlRoundingMode:
 * @DL_ROUNDING_MODE_NONE: no rounding: the true quotient
 * @DL_ROUNDING_MODE_TRUNC: rounded toward zero, as C's integer division
 * @DL_ROUNDING_MODE_FLOOR: rounded down, as Python's `//`
 *
 * How dl_tensor_div_mode() rounds the quotient: PyTorch's `rounding_mode=`
 * argument of torch.div (None, 'trunc', 'floor').
 *
 * Since: 0.1
 */
typedef enum
{
  DL_ROUNDING_MODE_NONE,
  DL_ROUNDING_MODE_TRUNC,
  DL_ROUNDING_MODE_FLOOR,
} DlRoundingMode;

DL_EXPORT DlTensor *dl_tensor_addcmul (DlTensor *self,
                                       DlTensor *tensor1,
                                       DlTensor *tensor2,
                                       gdouble value,
                                       GError **error);
DL_EXPORT DlTensor *dl_tensor_addcmul_ (DlTensor *self,
                                        DlTensor *tensor1,
                                        DlTensor *tensor2,
                                        gdouble value,
                                        GError **error);
DL_EXPORT DlTensor *dl_tensor_addcdiv (DlTensor *self,
                                       DlTensor *tensor1,
                                       DlTensor *tensor2,
                                       gdouble value,
                                       GError **error);
DL_EXPORT DlTensor *dl_tensor_addcdiv_ (DlTensor *self,
                                        DlTensor *tensor1,
                                        DlTensor *tensor2,
                                        gdouble value,
                                        GError **error);
DL_EXPORT DlTensor *dl_tensor_ldexp (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_ldexp_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_float_power (DlTensor *self, DlTensor *exponent, GError **error);
DL_EXPORT DlTensor *dl_tensor_float_power_scalar (DlTensor *self, gdouble exponent, GError **error);
DL_EXPORT DlTensor *dl_tensor_rfloat_power_scalar (DlTensor *self, gdouble base, GError **error);
DL_EXPORT DlTensor *dl_tensor_float_power_ (DlTensor *self, DlTensor *exponent, GError **error);
DL_EXPORT DlTensor *
dl_tensor_float_power_scalar_ (DlTensor *self, gdouble exponent, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_not (DlTensor *self, GError **error);
DL_EXPORT DlTensor *
dl_tensor_nan_to_num (DlTensor *self, gdouble nan, gdouble posinf, gdouble neginf, GError **error);
DL_EXPORT DlTensor *dl_tensor_logit (DlTensor *self, gdouble eps, GError **error);
DL_EXPORT DlTensor *dl_tensor_logit_ (DlTensor *self, gdouble eps, GError **error);
DL_EXPORT DlTensor *dl_tensor_positive (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_isreal (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_and (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_or (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_xor (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_and_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_or_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_xor_ (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_logical_not_ (DlTensor *self, GError **error);
DL_EXPORT DlTensor *
dl_tensor_nan_to_num_ (DlTensor *self, gdouble nan, gdouble posinf, gdouble neginf, GError **error);
DL_EXPORT DlTensor *
dl_tensor_lerp_ (DlTensor *self, DlTensor *end, DlTensor *weight, GError **error);
DL_EXPORT DlTensor *
dl_tensor_lerp_scalar_ (DlTensor *self, DlTensor *end, gdouble weight, GError **error);
DL_EXPORT DlTensor *dl_tensor_clamp (DlTensor *self, DlTensor *min, DlTensor *max, GError **error);
DL_EXPORT DlTensor *dl_tensor_clamp_min (DlTensor *self, DlTensor *min, GError **error);
DL_EXPORT DlTensor *dl_tensor_clamp_max (DlTensor *self, DlTensor *max, GError **error);
DL_EXPORT DlTensor *
dl_tensor_clamp_scalar (DlTensor *self, gdouble min, gdouble max, GError **error);
DL_EXPORT DlTensor *dl_tensor_clamp_ (DlTensor *self, DlTensor *min, DlTensor *max, GError **error);
DL_EXPORT DlTensor *
dl_tensor_clamp_scalar_ (DlTensor *self, gdouble min, gdouble max, GError **error);
DL_EXPORT DlTensor *
dl_tensor_lerp (DlTensor *self, DlTensor *end, DlTensor *weight, GError **error);
DL_EXPORT DlTensor *
dl_tensor_lerp_scalar (DlTensor *self, DlTensor *end, gdouble weight, GError **error);
DL_EXPORT DlTensor *
dl_tensor_div_mode (DlTensor *self, DlTensor *other, DlRoundingMode mode, GError **error);
DL_EXPORT DlTensor *
dl_tensor_div_mode_ (DlTensor *self, DlTensor *other, DlRoundingMode mode, GError **error);
DL_EXPORT DlTensor *dl_tensor_isclose (DlTensor *self,
                                       DlTensor *other,
                                       gdouble rtol,
                                       gdouble atol,
                                       gboolean equal_nan,
                                       GError **error);
DL_EXPORT gboolean dl_tensor_allclose (DlTensor *self,
                                       DlTensor *other,
                                       gdouble rtol,
                                       gdouble atol,
                                       gboolean equal_nan,
                                       GError **error);
DL_EXPORT gboolean dl_tensor_equal (DlTensor *self, DlTensor *other, GError **error);

DL_EXPORT DlTensor *dl_tensor_polygamma (DlTensor *self, gint64 n, GError **error);
DL_EXPORT DlTensor *dl_tensor_special_i1 (DlTensor *self, GError **error);

G_END_DECLS
