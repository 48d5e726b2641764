/* dl-ops-shape.h
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

DL_EXPORT DlTensor *
dl_tensor_view (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error);
DL_EXPORT DlTensor *dl_tensor_alias (DlTensor *self, GError **error);
DL_EXPORT DlTensor *
dl_tensor_reshape (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error);
DL_EXPORT DlTensor *dl_tensor_transpose (DlTensor *self, gint64 dim0, gint64 dim1, GError **error);
DL_EXPORT DlTensor *
dl_tensor_permute (DlTensor *self, const gint64 *dims, gsize n_dims, GError **error);
DL_EXPORT DlTensor *dl_tensor_t (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_contiguous (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_unsqueeze (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_squeeze_dim (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *
dl_tensor_expand (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error);
DL_EXPORT DlTensor *
dl_tensor_flatten (DlTensor *self, gint64 start_dim, gint64 end_dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_detach (DlTensor *self);
DL_EXPORT DlTensor *dl_tensor_unflatten (DlTensor *self,
                                         gint64 dim,
                                         const gint64 *sizes,
                                         gsize n_sizes,
                                         GError **error);
DL_EXPORT DlTensor *dl_tensor_select (DlTensor *self, gint64 dim, gint64 index, GError **error);
DL_EXPORT DlTensor *
dl_tensor_slice (DlTensor *self, gint64 dim, gint64 start, gint64 end, gint64 step, GError **error);
DL_EXPORT DlTensor *
dl_tensor_narrow (DlTensor *self, gint64 dim, gint64 start, gint64 length, GError **error);

DL_EXPORT DlTensor *
dl_tensor_diagonal (DlTensor *self, gint64 offset, gint64 dim1, gint64 dim2, GError **error);

DL_EXPORT DlTensor *
dl_tensor_unfold (DlTensor *self, gint64 dim, gint64 size, gint64 step, GError **error);
DL_EXPORT DlTensor *dl_tensor_as_strided (DlTensor *self,
                                          const gint64 *size,
                                          gsize n_size,
                                          const gint64 *stride,
                                          gsize n_stride,
                                          gint64 storage_offset,
                                          GError **error);
DL_EXPORT DlTensor *dl_tensor_unsqueeze_ (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_squeeze_dim_ (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_tensor_transpose_ (DlTensor *self, gint64 dim0, gint64 dim1, GError **error);
DL_EXPORT DlTensor *dl_tensor_t_ (DlTensor *self, GError **error);
DL_EXPORT gboolean dl_tensor_replace_data (DlTensor *self, DlTensor *data, GError **error);
DL_EXPORT DlTensor *
dl_tensor_resize_ (DlTensor *self, const gint64 *size, gsize n_size, GError **error);

G_END_DECLS
