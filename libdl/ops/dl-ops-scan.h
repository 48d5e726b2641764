/* dl-ops-scan.h
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

DL_EXPORT DlTensor *dl_tensor_cumsum (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_cumprod (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_cumsum_ (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_cumprod_ (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *
dl_tensor_cummax (DlTensor *self, gint64 dim, DlTensor **indices, GError **error);
DL_EXPORT DlTensor *
dl_tensor_cummin (DlTensor *self, gint64 dim, DlTensor **indices, GError **error);
DL_EXPORT DlTensor *dl_tensor_sort (DlTensor *self,
                                    gint64 dim,
                                    gboolean descending,
                                    DlTensor **indices,
                                    GError **error);
DL_EXPORT DlTensor *dl_tensor_topk (DlTensor *self,
                                    gint64 k,
                                    gint64 dim,
                                    gboolean largest,
                                    DlTensor **indices,
                                    GError **error);
DL_EXPORT DlTensor *dl_tensor_median (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_median_dim (DlTensor *self,
                                          gint64 dim,
                                          gboolean keepdim,
                                          DlTensor **indices,
                                          GError **error);
DL_EXPORT DlTensor *dl_tensor_nanmedian (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_nanmedian_dim (DlTensor *self,
                                             gint64 dim,
                                             gboolean keepdim,
                                             DlTensor **indices,
                                             GError **error);
DL_EXPORT DlTensor *dl_tensor_kthvalue (DlTensor *self,
                                        gint64 k,
                                        gint64 dim,
                                        gboolean keepdim,
                                        DlTensor **indices,
                                        GError **error);
DL_EXPORT DlTensor *
dl_tensor_unique (DlTensor *self, DlTensor **inverse, DlTensor **counts, GError **error);
DL_EXPORT DlTensor *dl_tensor_unique_consecutive (DlTensor *self,
                                                  DlTensor **inverse,
                                                  DlTensor **counts,
                                                  GError **error);
DL_EXPORT DlTensor *dl_tensor_unique_dim (DlTensor *self,
                                          gint64 dim,
                                          DlTensor **inverse,
                                          DlTensor **counts,
                                          GError **error);
DL_EXPORT DlTensor *dl_tensor_unique_consecutive_dim (DlTensor *self,
                                                      gint64 dim,
                                                      DlTensor **inverse,
                                                      DlTensor **counts,
                                                      GError **error);

G_END_DECLS
