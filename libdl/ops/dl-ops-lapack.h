/* dl-ops-lapack.h: torch.linalg's factorizations and solves.
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

DL_EXPORT DlTensor *dl_tensor_linalg_inv (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_linalg_det (DlTensor *self, GError **error);
DL_EXPORT gboolean dl_tensor_linalg_slogdet (DlTensor *self,
                                             DlTensor **sign,
                                             DlTensor **logabsdet,
                                             GError **error);
DL_EXPORT DlTensor *dl_tensor_linalg_solve (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_linalg_solve_triangular (DlTensor *self,
                                                       DlTensor *other,
                                                       gboolean upper,
                                                       gboolean left,
                                                       gboolean unitriangular,
                                                       GError **error);
DL_EXPORT DlTensor *dl_tensor_linalg_cholesky (DlTensor *self, gboolean upper, GError **error);
DL_EXPORT gboolean
dl_tensor_linalg_qr (DlTensor *self, const gchar *mode, DlTensor **q, DlTensor **r, GError **error);
DL_EXPORT gboolean dl_tensor_linalg_svd (DlTensor *self,
                                         gboolean full_matrices,
                                         gboolean compute_uv,
                                         DlTensor **u,
                                         DlTensor **s,
                                         DlTensor **vh,
                                         GError **error);
DL_EXPORT gboolean dl_tensor_linalg_eigh (DlTensor *self,
                                          gboolean upper,
                                          gboolean compute_v,
                                          DlTensor **eigenvalues,
                                          DlTensor **eigenvectors,
                                          GError **error);
DL_EXPORT gboolean dl_tensor_linalg_lu_factor (DlTensor *self,
                                               DlTensor **lu,
                                               DlTensor **pivots,
                                               GError **error);
DL_EXPORT DlTensor *dl_tensor_linalg_vector_norm (DlTensor *self,
                                                  gdouble ord,
                                                  const gint64 *dims,
                                                  gsize n_dims,
                                                  gboolean keepdim,
                                                  GError **error);
DL_EXPORT DlTensor *dl_tensor_linalg_matrix_exp (DlTensor *self, GError **error);

G_END_DECLS
