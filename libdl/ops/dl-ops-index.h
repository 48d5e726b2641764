/* dl-ops-index.h
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

DL_EXPORT DlTensor *dl_tensor_gather (DlTensor *self, gint64 dim, DlTensor *index, GError **error);
DL_EXPORT DlTensor *
dl_tensor_scatter (DlTensor *self, gint64 dim, DlTensor *index, DlTensor *src, GError **error);
DL_EXPORT DlTensor *dl_tensor_scatter_value (DlTensor *self,
                                             gint64 dim,
                                             DlTensor *index,
                                             gdouble value,
                                             GError **error);
DL_EXPORT DlTensor *
dl_tensor_scatter_add (DlTensor *self, gint64 dim, DlTensor *index, DlTensor *src, GError **error);
DL_EXPORT DlTensor *
dl_tensor_scatter_ (DlTensor *self, gint64 dim, DlTensor *index, DlTensor *src, GError **error);
DL_EXPORT DlTensor *dl_tensor_scatter_value_ (DlTensor *self,
                                              gint64 dim,
                                              DlTensor *index,
                                              gdouble value,
                                              GError **error);
DL_EXPORT DlTensor *
dl_tensor_scatter_add_ (DlTensor *self, gint64 dim, DlTensor *index, DlTensor *src, GError **error);
DL_EXPORT DlTensor *dl_tensor_scatter_with_reduce (DlTensor *self,
                                                   gint64 dim,
                                                   DlTensor *index,
                                                   DlTensor *src,
                                                   const gchar *reduce,
                                                   GError **error);
DL_EXPORT DlTensor *dl_tensor_scatter_value_with_reduce (DlTensor *self,
                                                         gint64 dim,
                                                         DlTensor *index,
                                                         gdouble value,
                                                         const gchar *reduce,
                                                         GError **error);
DL_EXPORT DlTensor *dl_tensor_scatter_with_reduce_ (DlTensor *self,
                                                    gint64 dim,
                                                    DlTensor *index,
                                                    DlTensor *src,
                                                    const gchar *reduce,
                                                    GError **error);
DL_EXPORT DlTensor *dl_tensor_scatter_value_with_reduce_ (DlTensor *self,
                                                          gint64 dim,
                                                          DlTensor *index,
                                                          gdouble value,
                                                          const gchar *reduce,
                                                          GError **error);
DL_EXPORT DlTensor *dl_tensor_scatter_reduce (DlTensor *self,
                                              gint64 dim,
                                              DlTensor *index,
                                              DlTensor *src,
                                              const gchar *reduce,
                                              gboolean include_self,
                                              GError **error);
DL_EXPORT DlTensor *dl_tensor_scatter_reduce_ (DlTensor *self,
                                               gint64 dim,
                                               DlTensor *index,
                                               DlTensor *src,
                                               const gchar *reduce,
                                               gboolean include_self,
                                               GError **error);
DL_EXPORT DlTensor *
dl_tensor_index_select (DlTensor *self, gint64 dim, DlTensor *index, GError **error);
DL_EXPORT DlTensor *
dl_where (DlTensor *condition, DlTensor *input, DlTensor *other, GError **error);
DL_EXPORT DlTensor *
dl_tensor_masked_fill (DlTensor *self, DlTensor *mask, gdouble value, GError **error);
DL_EXPORT DlTensor *
dl_tensor_masked_fill_tensor (DlTensor *self, DlTensor *mask, DlTensor *value, GError **error);
DL_EXPORT DlTensor *
dl_tensor_masked_fill_ (DlTensor *self, DlTensor *mask, gdouble value, GError **error);
DL_EXPORT DlTensor *dl_tensor_masked_select (DlTensor *self, DlTensor *mask, GError **error);
DL_EXPORT DlTensor *dl_tensor_nonzero (DlTensor *self, GError **error);
DL_EXPORT DlTensor *
dl_tensor_take_along_dim (DlTensor *self, DlTensor *indices, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_one_hot (DlTensor *tensor, gint64 num_classes, GError **error);
DL_EXPORT DlTensor *
dl_tensor_index (DlTensor *self, DlTensor **indices, gsize n_indices, GError **error);
DL_EXPORT DlTensor *dl_tensor_index_put (DlTensor *self,
                                         DlTensor **indices,
                                         gsize n_indices,
                                         DlTensor *values,
                                         gboolean accumulate,
                                         GError **error);
DL_EXPORT DlTensor *dl_tensor_index_put_ (DlTensor *self,
                                          DlTensor **indices,
                                          gsize n_indices,
                                          DlTensor *values,
                                          gboolean accumulate,
                                          GError **error);

DL_EXPORT DlTensor *
dl_tensor_bincount (DlTensor *self, DlTensor *weights, gint64 minlength, GError **error);

G_END_DECLS
