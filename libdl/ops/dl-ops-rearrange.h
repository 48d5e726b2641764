/* dl-ops-rearrange.h
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

DL_EXPORT DlTensor *dl_tensor_movedim (DlTensor *self,
                                       const gint64 *source,
                                       gsize n_source,
                                       const gint64 *destination,
                                       gsize n_destination,
                                       GError **error);
DL_EXPORT DlTensor *
dl_tensor_tile (DlTensor *self, const gint64 *dims, gsize n_dims, GError **error);
DL_EXPORT DlTensor *
dl_tensor_repeat_interleave (DlTensor *self, DlTensor *repeats, gint64 dim, GError **error);
DL_EXPORT DlTensor **dl_tensor_tensor_split (DlTensor *self,
                                             const gint64 *indices,
                                             gsize n_indices,
                                             gint64 dim,
                                             gsize *n_out,
                                             GError **error);
DL_EXPORT DlTensor *
dl_tensor_rot90 (DlTensor *self, gint64 k, gint64 dim0, gint64 dim1, GError **error);
DL_EXPORT DlTensor *
dl_tensor_diag_embed (DlTensor *self, gint64 offset, gint64 dim1, gint64 dim2, GError **error);
DL_EXPORT DlTensor *dl_tensor_diff (DlTensor *self,
                                    gint64 n,
                                    gint64 dim,
                                    DlTensor *prepend,
                                    DlTensor *append,
                                    GError **error);
DL_EXPORT DlTensor *dl_tensor_kron (DlTensor *self, DlTensor *other, GError **error);
DL_EXPORT DlTensor *dl_tensor_pixel_shuffle (DlTensor *self, gint64 upscale_factor, GError **error);
DL_EXPORT DlTensor *
dl_tensor_pixel_unshuffle (DlTensor *self, gint64 downscale_factor, GError **error);
DL_EXPORT DlTensor *dl_tensor_channel_shuffle (DlTensor *self, gint64 groups, GError **error);

G_END_DECLS
