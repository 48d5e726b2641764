/* dl-node-private.h: what ops need to record themselves in the graph.
 *
 * A node has any number of inputs (one edge each) and outputs. What its
 * backward needs besides the incoming gradients lives in a struct of the
 * backward's own (its "state"): plain fields for numbers and options, and
 * DlSavedTensor fields for tensors, which the node tracks so that it can
 * check their versions and free them after the backward pass.
 *
 *   typedef struct { DlBinaryOp op; gdouble alpha; DlSavedTensor a, b; } BinaryState;
 *
 *   node = dl_node_new_for_op ("MulBackward0", binary_backward, 2, inputs);
 *   BinaryState *s = DL_NODE_NEW_STATE (node, BinaryState);
 *   s->op = op;
 *   dl_node_save (node, &s->a, a, FALSE);
 *   ...
 *   in binary_backward:
 *   const BinaryState *s = dl_node_state (node);
 *   TRY (a = dl_node_saved (node, &s->a, error));
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-node.h"
#include "dl-tensor-private.h"

G_BEGIN_DECLS

/* grad_outputs has one entry per output of the node; an entry is NULL for
 * an output that got no gradient (only for nodes with several outputs).
 * Set grad_inputs[i] (one entry per input) to a new tensor (transfer full)
 * or leave it NULL for an input that needs none. */
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

/* What an input looked like when the op ran: gradients are summed back to
 * this shape and converted to this dtype. */
typedef struct
{
  DlDType dtype;
  gint ndim;
  const gint64 *sizes; /* ndim entries, owned by the node */
} DlInputMeta;

/* A tensor a backward needs, kept in the backward's state struct. */
typedef struct _DlSavedTensor DlSavedTensor;
struct _DlSavedTensor
{
  DlTensor *tensor;    /* (owned) (nullable): NULL until saved and after release */
  gint version;        /* its storage's version when saved */
  gboolean is_output;  /* an output of the node, saved without its history */
  guint output_nr;     /* which output, for an output (set before saving) */
  DlTensor *unpacked;  /* (owned) (nullable): an output handed to a recorded backward */
  DlSavedTensor *next; /* the node's other saved tensors */
};

/* State structs up to this size live inside the node itself. */
#define DL_NODE_INLINE_STATE 96

typedef struct
{
  const gchar *name;
  DlBackwardFunc backward;
  guint n_inputs;
  guint n_outputs;
  DlEdge *edges;        /* [n_inputs] */
  DlInputMeta *inputs;  /* [n_inputs]; one block with edges and the sizes */
  DlSavedTensor *saved; /* (nullable): the saved tensors, newest first */
  gboolean released;
  GPtrArray *hooks; /* (nullable): hooks on the outputs' gradients (autograd/dl-hooks.c) */
  gchar *trace;     /* (nullable): where it was made, in anomaly mode */
  gpointer state;             /* (nullable): the backward's struct */
  GDestroyNotify state_clear; /* (nullable): frees what the state owns */
  union
  {
    gint64 i;
    gdouble d;
    gpointer p;
    guint8 bytes[DL_NODE_INLINE_STATE];
  } inline_state;
} DlNodeData;

DlNodeData *dl_node_data (DlNode *self);
gboolean dl_autograd_any_requires (guint n, DlTensor **inputs);
/* A node for an op on @n_inputs tensors (an entry may be NULL for an
 * absent optional input): an edge to each input's history when it
 * requires grad, and each input's shape and dtype. */
DlNode *
dl_node_new_for_op (const gchar *name, DlBackwardFunc backward, guint n_inputs, DlTensor **inputs);
/* The same for an existing node, of a subclass of DlNode (DlFunction):
 * call once, on a node no op has recorded yet. */
void dl_node_init_for_op (DlNode *node,
                          const gchar *name,
                          DlBackwardFunc backward,
                          guint n_inputs,
                          DlTensor **inputs);
/* Makes @node the grad_fn of @output, its @output_nr-th output. */
void dl_node_set_output (DlNode *node, DlTensor *output, guint output_nr);

/* Allocates @node's state: @size zeroed bytes, kept until the node goes.
 * @clear (nullable) is called on the state before it is freed, for what
 * it owns besides its DlSavedTensor fields. Call once, before saving. */
gpointer dl_node_alloc_state (DlNode *node, gsize size, GDestroyNotify clear);
#define DL_NODE_NEW_STATE(node, Type) ((Type *)dl_node_alloc_state ((node), sizeof (Type), NULL))

static inline gpointer
dl_node_state (DlNode *node)
{
  return dl_node_data (node)->state;
}

/* Saves @tensor into @slot, a field of @node's state. An output of the
 * node is saved detached (same storage, no history), so that no output ->
 * node -> output cycle forms. */
void dl_node_save (DlNode *node, DlSavedTensor *slot, DlTensor *tensor, gboolean is_output);
/* The tensor saved in @slot (transfer none), or NULL with an error when the
 * graph was freed or an in-place op changed it since. A saved (floating
 * point) output read while grad mode is on, in a backward that
 * create_graph records, comes back with @node as its grad_fn, as PyTorch
 * unpacks it, so that the recorded backward reaches the node's inputs; the
 * engine drops that tensor after the backward with
 * dl_node_drop_unpacked(), which breaks the node -> tensor -> node cycle. */
DlTensor *dl_node_saved (DlNode *node, const DlSavedTensor *slot, GError **error);
void dl_node_drop_unpacked (DlNode *node);
gboolean dl_node_needs_input_grad (DlNode *node, guint i);
/* Frees the saved tensors (after a backward pass without retain_graph). */
void dl_node_release (DlNode *node);

G_END_DECLS
