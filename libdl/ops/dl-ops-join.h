/* dl-ops-join.h
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

DL_EXPORT DlTensor *dl_cat (DlTensor **tensors, gsize n_tensors, gint64 dim, GError **error);
DL_EXPORT DlTensor *dl_stack (DlTensor **tensors, gsize n_tensors, gint64 dim, GError **error);
DL_EXPORT DlTensor **dl_tensor_unbind (DlTensor *self, gint64 dim, gsize *n_out, GError **error);
DL_EXPORT DlTensor **
dl_tensor_split (DlTensor *self, gint64 split_size, gint64 dim, gsize *n_out, GError **error);
DL_EXPORT DlTensor **dl_tensor_split_with_sizes (DlTensor *self,
                                                 const gint64 *sizes,
                                                 gsize n_sizes,
                                                 gint64 dim,
                                                 gsize *n_out,
                                                 GError **error);
DL_EXPORT DlTensor **
dl_tensor_chunk (DlTensor *self, gint64 chunks, gint64 dim, gsize *n_out, GError **error);
DL_EXPORT DlTensor **dl_tensor_unsafe_split (DlTensor *self,
                                             gint64 split_size,
                                             gint64 dim,
                                             gsize *n_out,
                                             GError **error);
DL_EXPORT DlTensor **dl_tensor_unsafe_split_with_sizes (DlTensor *self,
                                                        const gint64 *sizes,
                                                        gsize n_sizes,
                                                        gint64 dim,
                                                        gsize *n_out,
                                                        GError **error);
DL_EXPORT DlTensor *
dl_tensor_repeat (DlTensor *self, const gint64 *repeats, gsize n_repeats, GError **error);
DL_EXPORT DlTensor *
dl_tensor_flip (DlTensor *self, const gint64 *dims, gsize n_dims, GError **error);
DL_EXPORT DlTensor *dl_tensor_roll (DlTensor *self,
                                    const gint64 *shifts,
                                    gsize n_shifts,
                                    const gint64 *dims,
                                    gsize n_dims,
                                    GError **error);
DL_EXPORT DlTensor *dl_tensor_tril (DlTensor *self, gint64 diagonal, GError **error);
DL_EXPORT DlTensor *dl_tensor_triu (DlTensor *self, gint64 diagonal, GError **error);

G_END_DECLS
