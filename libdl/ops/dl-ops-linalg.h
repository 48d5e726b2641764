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
DL_EXPORT DlTensor *dl_tensor_mm (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_bmm (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_dot (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_outer (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_mv (DlTensor *self, DlTensor *vec, GError **error);
DL_EXPORT DlTensor *dl_tensor_addmm (DlTensor *self,
                                     DlTensor *mat1,
                                     DlTensor *mat2,
                                     gdouble beta,
                                     gdouble alpha,
                                     GError **error);
DL_EXPORT DlTensor *dl_tensor_baddbmm (DlTensor *self,
                                       DlTensor *batch1,
                                       DlTensor *batch2,
                                       gdouble beta,
                                       gdouble alpha,
                                       GError **error);
DL_EXPORT DlTensor *dl_tensor_addbmm (DlTensor *self,
                                      DlTensor *batch1,
                                      DlTensor *batch2,
                                      gdouble beta,
                                      gdouble alpha,
                                      GError **error);
DL_EXPORT DlTensor *dl_tensor_addmv (DlTensor *self,
                                     DlTensor *mat,
                                     DlTensor *vec,
                                     gdouble beta,
                                     gdouble alpha,
                                     GError **error);
DL_EXPORT DlTensor *dl_tensor_addr (DlTensor *self,
                                    DlTensor *vec1,
                                    DlTensor *vec2,
                                    gdouble beta,
                                    gdouble alpha,
                                    GError **error);
DL_EXPORT DlTensor *dl_tensor_addmm_ (DlTensor *self,
                                      DlTensor *mat1,
                                      DlTensor *mat2,
                                      gdouble beta,
                                      gdouble alpha,
                                      GError **error);
DL_EXPORT DlTensor *dl_tensor_baddbmm_ (DlTensor *self,
                                        DlTensor *batch1,
                                        DlTensor *batch2,
                                        gdouble beta,
                                        gdouble alpha,
                                        GError **error);
DL_EXPORT DlTensor *dl_tensor_addbmm_ (DlTensor *self,
                                       DlTensor *batch1,
                                       DlTensor *batch2,
                                       gdouble beta,
                                       gdouble alpha,
                                       GError **error);
DL_EXPORT DlTensor *dl_tensor_addmv_ (DlTensor *self,
                                      DlTensor *mat,
                                      DlTensor *vec,
                                      gdouble beta,
                                      gdouble alpha,
                                      GError **error);
DL_EXPORT DlTensor *dl_tensor_addr_ (DlTensor *self,
                                     DlTensor *vec1,
                                     DlTensor *vec2,
                                     gdouble beta,
                                     gdouble alpha,
                                     GError **error);
DL_EXPORT DlTensor *
dl_tensor_linear (DlTensor *self, DlTensor *weight, DlTensor *bias, GError **error);
DL_EXPORT DlTensor *
dl_bilinear (DlTensor *input1, DlTensor *input2, DlTensor *weight, DlTensor *bias, GError **error);
DL_EXPORT DlTensor *dl_tensor_tensordot (DlTensor *self,
                                         DlTensor *other,
                                         const gint64 *dims_self,
                                         gsize n_dims_self,
                                         const gint64 *dims_other,
                                         gsize n_dims_other,
                                         GError **error);

DL_EXPORT DlTensor *dl_tensor_diag (DlTensor *self, gint64 diagonal, GError **error);
DL_EXPORT DlTensor *dl_tensor_trace (DlTensor *self, GError **error);

G_END_DECLS
