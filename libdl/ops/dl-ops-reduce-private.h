/* dl-ops-reduce-private.h: helpers shared by the reduction files.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-ops-private.h"

G_BEGIN_DECLS

/* Parses @dims (n of them; none means all) into a mask of @self's dims,
 * with GErrors naming @op for a dim out of range or repeated. */
gboolean dl_reduce_dims_mask (const gchar *op,
                              DlTensor *self,
                              const gint *dims,
                              gsize n,
                              gboolean *mask,
                              GError **error);
/* Stores keepdim and the mask of reduced dims in a node: ints[0] and
 * ints[2 + i]. */
void dl_reduce_save_mask (DlNodeData *d, gint ndim, gboolean keepdim, const gboolean *mask);
/* @t, shaped like the output of the node's reduction, with the reduced
 * dims back as size 1. */
/* Backward of a reduction over all elements that picks one value (max,
 * min, median): saved input 0 and output 1; ties share the gradient. */
gboolean dl_reduce_evenly_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);
DlTensor *dl_reduce_node_keepdim (DlNodeData *d, DlTensor *t, GError **error);

G_END_DECLS
