/* dl-embedding.h: dl_embedding() and the DlEmbedding layer.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "nn/dl-module.h"

G_BEGIN_DECLS

DL_EXPORT
DlTensor *dl_embedding (DlTensor *input,
                        DlTensor *weight,
                        gint64 padding_idx,
                        gdouble max_norm,
                        gdouble norm_type,
                        GError **error);

#define DL_TYPE_EMBEDDING (dl_embedding_layer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlEmbedding, dl_embedding_layer, DL, EMBEDDING, DlModule)

DL_EXPORT
DlEmbedding *dl_embedding_layer_new (gint64 num_embeddings,
                                     gint64 embedding_dim,
                                     gint64 padding_idx,
                                     GError **error);

G_END_DECLS
