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
                              const gint64 *dims,
                              gsize n,
                              gboolean *mask,
                              GError **error);
/* FALSE with an IndexError naming @op when @self's dim @dim (in range)
 * has size 0, which max, min, amax, amin and the scans over a dim refuse;
 * a 0-d tensor has no such dim. */
gboolean dl_reduce_check_nonempty (const gchar *op, DlTensor *self, gint dim, GError **error);
/* What the backward of a reduction keeps: which of the input's dims were
 * reduced, whether they were kept, a number, and the tensors it saved. */
typedef struct
{
  gboolean keepdim;
  gboolean mean;               /* sum's node: the gradient is scaled by param */
  guint8 mask[DL_MAX_DIMS];    /* whether input dim i is reduced */
  gdouble param;               /* mean: 1 / count; norm: p */
  DlSavedTensor input, output; /* as each reduction needs */
} DlReduceState;

/* Gives @node a DlReduceState with keepdim and the mask of reduced dims. */
DlReduceState *
dl_reduce_state_new (DlNode *node, gint ndim, gboolean keepdim, const gboolean *mask);
/* The reduced dims of the node's input, as a list; returns how many. */
gint dl_reduce_node_dims (DlNode *node, gint64 *dims);
/* @t, shaped like the output of the node's reduction, with the reduced
 * dims back as size 1. */
DlTensor *dl_reduce_node_keepdim (DlNode *node, DlTensor *t, GError **error);
/* Backward of a reduction over all elements that picks one value (max,
 * min, median): a DlReduceState with input and output saved; ties share
 * the gradient. */
gboolean dl_reduce_evenly_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error);

G_END_DECLS
