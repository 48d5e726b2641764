/* dl-node-private.h: what ops need to record themselves in the graph.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-node.h"
#include "backends/dl-backend.h"
#include "dl-dtype.h"
#include "dl-tensor-private.h"

G_BEGIN_DECLS

/* grad_outputs[i] may be NULL for an output that got no gradient (only for
 * nodes with several outputs). Set grad_inputs[i] to a new tensor (transfer
 * full) or leave it NULL for an input that needs none. */
typedef gboolean (*DlBackwardFunc) (DlNode *node,
                                    DlTensor **grad_outputs,
                                    DlTensor **grad_inputs,
                                    GError **error);

typedef struct
{
  DlNode *node;   /* (owned) (nullable): where the gradient flows next */
  DlTensor *leaf; /* (owned) (nullable): or the leaf that accumulates it */
  guint input_nr; /* which output of node */
} DlEdge;

typedef struct
{
  DlDType dtype;
  gint ndim;
  gint64 sizes[DL_MAX_DIMS];
} DlInputMeta;

#define DL_NODE_MAX_INPUTS 4

typedef struct
{
  const gchar *name;
  DlBackwardFunc backward;
  guint n_inputs;
  guint n_outputs;
  DlEdge edges[DL_NODE_MAX_INPUTS];
  DlInputMeta inputs[DL_NODE_MAX_INPUTS];
  GPtrArray *saved;       /* DlTensor */
  GArray *saved_versions; /* gint */
  gdouble scalars[4];
  gint64 ints[DL_MAX_DIMS + 4];
  gint n_ints;
  gboolean released;
  gpointer extra;   /* (owned) (nullable): more state, freed with extra_free */
  GDestroyNotify extra_free;
} DlNodeData;

DlNodeData *dl_node_data (DlNode *self);
gboolean dl_autograd_any_requires (guint n, DlTensor **inputs);
DlNode *
dl_node_new_for_op (const gchar *name, DlBackwardFunc backward, guint n_inputs, DlTensor **inputs);
void dl_node_set_output (DlNode *node, DlTensor *output, guint output_nr);
void dl_node_save (DlNode *node, DlTensor *tensor, gboolean is_output);
DlTensor *dl_node_get_saved (DlNode *node, guint i, GError **error);
gboolean dl_node_needs_input_grad (DlNode *node, guint i);
void dl_node_release (DlNode *node);

void dl_view_regenerate (DlTensor *view);
void dl_view_take_history (DlTensor *view, DlTensor *holder);

/* Brings a view's history up to date after an in-place change of its base
 * or of another view of it (see dl-view-autograd.c). */
static inline void
dl_view_sync (DlTensor *t)
{
  if (G_UNLIKELY (t->base != NULL && t->view_version != t->storage->version))
    dl_view_regenerate (t);
}

G_END_DECLS
