/* dl-distance.h: distances between vectors: cosine similarity, pairwise
 * p-norm distance and pdist.
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

DL_EXPORT
DlTensor *
dl_cosine_similarity (DlTensor *x1, DlTensor *x2, gint64 dim, gdouble eps, GError **error);
DL_EXPORT
DlTensor *dl_pairwise_distance (DlTensor *x1,
                                DlTensor *x2,
                                gdouble p,
                                gdouble eps,
                                gboolean keepdim,
                                GError **error);
DL_EXPORT
DlTensor *dl_pdist (DlTensor *input, gdouble p, GError **error);

G_END_DECLS
