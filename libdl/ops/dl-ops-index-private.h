/* dl-ops-index-private.h: helpers shared by the indexing ops
 * (dl-ops-index.c) and the scatter family (dl-ops-scatter.c).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-ops-private.h"

G_BEGIN_DECLS

/* Runs the backend's gather/scatter kernel @kind of @self along @dim with
 * @index and @other (the output of a gather, the source of a scatter);
 * an index out of range is an error naming @op. */
gboolean dl_index_run (const gchar *op,
                       DlIndexOp kind,
                       DlTensor *self,
                       gint dim,
                       DlTensor *index,
                       DlTensor *other,
                       gboolean exclude_self,
                       GError **error);
/* The shape rules of gather and scatter (normalises *@dim); @src may be
 * NULL. */
gboolean dl_index_check_gather_shapes (const gchar *op,
                                       DlTensor *self,
                                       gint64 *dim,
                                       DlTensor *index,
                                       DlTensor *src,
                                       GError **error);
/* A zero tensor of @shape with @src in its leading corner, differentiable. */
DlTensor *dl_index_pad_to (DlTensor *src, const gint64 *shape, gint ndim, GError **error);
/* The in-place protocol (dl-ops-inplace.c) with the overlap check the
 * indexing ops need. */
DlTensor *
dl_index_commit_inplace (const gchar *op, DlTensor *self, DlTensor *result, GError **error);
DlTensor *dl_index_inplace_alias (const gchar *op, DlTensor *self, GError **error);

G_END_DECLS
