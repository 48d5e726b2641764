/* dl-ops-reduce.h
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

DL_EXPORT DlTensor *dl_tensor_sum (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_sum_dims (DlTensor *self,
                                        const gint64 *dims,
                                        gsize n_dims,
                                        gboolean keepdim,
                                        GError **error);
DL_EXPORT DlTensor *dl_tensor_mean (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_mean_dims (DlTensor *self,
                                         const gint64 *dims,
                                         gsize n_dims,
                                         gboolean keepdim,
                                         GError **error);
DL_EXPORT DlTensor *dl_tensor_max (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_min (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_max_dim (DlTensor *self,
                                       gint64 dim,
                                       gboolean keepdim,
                                       DlTensor **indices,
                                       GError **error);
DL_EXPORT DlTensor *dl_tensor_min_dim (DlTensor *self,
                                       gint64 dim,
                                       gboolean keepdim,
                                       DlTensor **indices,
                                       GError **error);
DL_EXPORT DlTensor *dl_tensor_argmax (DlTensor *self, gint64 dim, gboolean keepdim, GError **error);
DL_EXPORT DlTensor *dl_tensor_argmin (DlTensor *self, gint64 dim, gboolean keepdim, GError **error);
DL_EXPORT DlTensor *dl_tensor_prod (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_prod_dims (DlTensor *self,
                                         const gint64 *dims,
                                         gsize n_dims,
                                         gboolean keepdim,
                                         GError **error);
DL_EXPORT DlTensor *
dl_tensor_amax (DlTensor *self, const gint64 *dims, gsize n_dims, gboolean keepdim, GError **error);
DL_EXPORT DlTensor *
dl_tensor_amin (DlTensor *self, const gint64 *dims, gsize n_dims, gboolean keepdim, GError **error);
DL_EXPORT DlTensor *dl_tensor_var (DlTensor *self,
                                   const gint64 *dims,
                                   gsize n_dims,
                                   gdouble correction,
                                   gboolean keepdim,
                                   GError **error);
DL_EXPORT DlTensor *dl_tensor_std (DlTensor *self,
                                   const gint64 *dims,
                                   gsize n_dims,
                                   gdouble correction,
                                   gboolean keepdim,
                                   GError **error);
DL_EXPORT DlTensor *dl_tensor_norm (DlTensor *self,
                                    gdouble p,
                                    const gint64 *dims,
                                    gsize n_dims,
                                    gboolean keepdim,
                                    GError **error);
DL_EXPORT DlTensor *dl_tensor_logsumexp (DlTensor *self,
                                         const gint64 *dims,
                                         gsize n_dims,
                                         gboolean keepdim,
                                         GError **error);
DL_EXPORT DlTensor *
dl_tensor_all (DlTensor *self, const gint64 *dims, gsize n_dims, gboolean keepdim, GError **error);
DL_EXPORT DlTensor *
dl_tensor_any (DlTensor *self, const gint64 *dims, gsize n_dims, gboolean keepdim, GError **error);
DL_EXPORT DlTensor *dl_tensor_nansum (DlTensor *self,
                                      const gint64 *dims,
                                      gsize n_dims,
                                      gboolean keepdim,
                                      GError **error);
DL_EXPORT DlTensor *dl_tensor_nanmean (DlTensor *self,
                                       const gint64 *dims,
                                       gsize n_dims,
                                       gboolean keepdim,
                                       GError **error);

G_END_DECLS
