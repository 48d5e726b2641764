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
#include "dl-generator.h"

G_BEGIN_DECLS

DL_EXPORT DlTensor *dl_tensor_log_softmax (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_softmax (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_leaky_relu (DlTensor *self, gdouble negative_slope, GError **error);
DL_EXPORT DlTensor *dl_tensor_leaky_relu_ (DlTensor *self, gdouble negative_slope, GError **error);
DL_EXPORT DlTensor *
dl_tensor_hardtanh (DlTensor *self, gdouble min_val, gdouble max_val, GError **error);
DL_EXPORT DlTensor *
dl_tensor_hardtanh_ (DlTensor *self, gdouble min_val, gdouble max_val, GError **error);
DL_EXPORT DlTensor *dl_tensor_relu6 (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_relu6_ (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_elu (DlTensor *self, gdouble alpha, GError **error);
DL_EXPORT DlTensor *dl_tensor_elu_ (DlTensor *self, gdouble alpha, GError **error);
DL_EXPORT DlTensor *dl_tensor_selu (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_selu_ (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_celu (DlTensor *self, gdouble alpha, GError **error);
DL_EXPORT DlTensor *dl_tensor_celu_ (DlTensor *self, gdouble alpha, GError **error);
DL_EXPORT DlTensor *dl_tensor_hardshrink (DlTensor *self, gdouble lambd, GError **error);
DL_EXPORT DlTensor *dl_tensor_softshrink (DlTensor *self, gdouble lambd, GError **error);
DL_EXPORT DlTensor *
dl_tensor_threshold (DlTensor *self, gdouble threshold, gdouble value, GError **error);
DL_EXPORT DlTensor *
dl_tensor_threshold_ (DlTensor *self, gdouble threshold, gdouble value, GError **error);
DL_EXPORT DlTensor *dl_tensor_rrelu (DlTensor *self,
                                     gdouble lower,
                                     gdouble upper,
                                     gboolean training,
                                     DlGenerator *generator,
                                     GError **error);
DL_EXPORT DlTensor *dl_tensor_rrelu_ (DlTensor *self,
                                      gdouble lower,
                                      gdouble upper,
                                      gboolean training,
                                      DlGenerator *generator,
                                      GError **error);
DL_EXPORT DlTensor *dl_tensor_prelu (DlTensor *self, DlTensor *weight, GError **error);
DL_EXPORT DlTensor *dl_tensor_glu (DlTensor *self, gint64 dim, GError **error);

G_END_DECLS
