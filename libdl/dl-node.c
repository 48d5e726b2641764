/* dl-node.c: autograd graph nodes and the thread-local grad mode.
 *
 * A node is the grad_fn of the outputs of one recorded op. It owns its
 * edges (to the grad_fn of each input, or to the input itself when that is
 * a leaf), any number of them, and the state its backward keeps: a struct
 * of the backward's own, whose DlSavedTensor fields the node tracks.
 * Outputs are saved detached (same storage, no grad_fn) so that no output
 * -> node -> output cycle forms; every saved tensor remembers the storage
 * version it had, and reading it after an in-place change is an error.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "dl-mutex-private.h"

#include "dl-node-private.h"
#include "dl-tensor-private.h"
#include "dl-error.h"

#include <string.h>

/**
 * DlNode:
 *
 * A node of the autograd graph: the `grad_fn` of a tensor that an op made
 * from tensors requiring grad. dl_tensor_backward() walks the nodes from
 * the root to the leaves.
 *
 * Since: 0.1
 */
typedef DlNodeData DlNodePrivate;
G_DEFINE_TYPE_WITH_PRIVATE (DlNode, dl_node, G_TYPE_OBJECT)

static __thread gint grad_disabled;

/* anomaly mode is process-wide, as in PyTorch */
static gint anomaly_enabled;
static GMutex anomaly_lock;
static DlAnomalyTraceFunc anomaly_trace_func;
static gpointer anomaly_trace_data;
static GDestroyNotify anomaly_trace_notify;

DlNodeData *
dl_node_data (DlNode *self)
{
  return dl_node_get_instance_private (self);
}

static void
release_saved (DlNodeData *d)
{
  for (DlSavedTensor *slot = d->saved; slot; slot = slot->next)
    {
      dl_clear_released (&slot->tensor);
      dl_clear_released (&slot->unpacked);
    }
  d->saved = NULL;
}

static void
dl_node_dispose (GObject *object)
{
  DlNodeData *d = dl_node_data (DL_NODE (object));

  for (guint i = 0; i < d->n_inputs; i++)
    {
      dl_clear_released (&d->edges[i].node);
      dl_clear_released (&d->edges[i].leaf);
    }
  d->n_inputs = 0;
  release_saved (d);
  if (d->state)
    {
      if (d->state_clear)
        d->state_clear (d->state);
      if (d->state != (gpointer)&d->inline_state)
        g_free (d->state);
      d->state = NULL;
    }
  g_clear_pointer (&d->edges, g_free);
  d->inputs = NULL;
  g_clear_pointer (&d->hooks, g_ptr_array_unref);
  g_clear_pointer (&d->trace, g_free);
  G_OBJECT_CLASS (dl_node_parent_class)->dispose (object);
}

static void
dl_node_class_init (DlNodeClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = dl_node_dispose;
}

static void
dl_node_init (DlNode *self)
{
  DlNodeData *d = dl_node_data (self);

  d->name = "Node";
  d->n_outputs = 1;
}

/**
 * dl_node_get_name:
 * @self: a #DlNode
 *
 * Gives the node's name, the one PyTorch gives the `grad_fn` of the same op
 * ("AddBackward0", "MmBackward0"), or the name of a #DlFunction.
 *
 * Returns: (transfer none): the node's name as PyTorch names it, such as
 *   "AddBackward0"
 *
 * Since: 0.1
 */
const gchar *
dl_node_get_name (DlNode *self)
{
  g_return_val_if_fail (DL_IS_NODE (self), NULL);
  return dl_node_data (self)->name;
}

/**
 * dl_node_get_n_inputs:
 * @self: a #DlNode
 *
 * Gives the number of inputs of the op the node recorded: the number of
 * gradients its backward gives, and of the edges of `grad_fn.next_functions`
 * in PyTorch.
 *
 * Returns: the number of inputs of the recorded op
 *
 * Since: 0.1
 */
guint
dl_node_get_n_inputs (DlNode *self)
{
  g_return_val_if_fail (DL_IS_NODE (self), 0);
  return dl_node_data (self)->n_inputs;
}

/**
 * dl_node_get_next_node:
 * @self: a #DlNode
 * @input: an input index
 *
 * Follows edge @input of the graph, as `grad_fn.next_functions[input][0]` in
 * PyTorch: the node that made that input. An input that is a leaf (or needs
 * no gradient) gives %NULL.
 *
 * Returns: (transfer none) (nullable): the node the gradient of @input
 *   flows to, or %NULL when it goes to a leaf or nowhere
 *
 * Since: 0.1
 */
DlNode *
dl_node_get_next_node (DlNode *self, guint input)
{
  DlNodeData *d;

  g_return_val_if_fail (DL_IS_NODE (self), NULL);
  d = dl_node_data (self);
  if (input >= d->n_inputs)
    return NULL;
  return d->edges[input].node;
}

/**
 * dl_node_get_next_leaf:
 * @self: a #DlNode
 * @input: an input index
 *
 * The leaf tensor that accumulates the gradient of @input (PyTorch's
 * AccumulateGrad node in `next_functions`), when the edge ends at one.
 *
 * Returns: (transfer none) (nullable): the leaf, or %NULL when the
 *   gradient flows to a node (dl_node_get_next_node()) or nowhere
 *
 * Since: 0.1
 */
DlTensor *
dl_node_get_next_leaf (DlNode *self, guint input)
{
  DlNodeData *d;

  g_return_val_if_fail (DL_IS_NODE (self), NULL);
  d = dl_node_data (self);
  if (input >= d->n_inputs)
    return NULL;
  return d->edges[input].leaf;
}

/**
 * dl_is_grad_enabled:
 *
 * Says whether grad mode is on for the calling thread, as
 * `torch.is_grad_enabled ()`: when it is, ops whose inputs require grad
 * record the graph that dl_tensor_backward() goes through. It is on by
 * default; dl_set_grad_enabled() turns it off for inference.
 *
 * Returns: whether ops on tensors that require grad are recorded on this
 *   thread
 *
 * Since: 0.1
 */
gboolean
dl_is_grad_enabled (void)
{
  return grad_disabled == 0;
}

/**
 * dl_set_grad_enabled:
 * @enabled: whether to record ops for autograd on this thread
 *
 * Turns gradient recording on or off for the calling thread, as
 * torch.set_grad_enabled() does; `no_grad` is built on it.
 *
 * Returns: whether it was enabled before the call
 *
 * Since: 0.1
 */
gboolean
dl_set_grad_enabled (gboolean enabled)
{
  gboolean was = grad_disabled == 0;

  grad_disabled = enabled ? 0 : 1;
  return was;
}

/**
 * dl_autograd_set_detect_anomaly:
 * @enabled: whether to look for anomalies
 *
 * Turns anomaly detection on or off for the whole process, as
 * torch.autograd.set_detect_anomaly() does: while it is on, every recorded
 * op remembers where it was made (see dl_autograd_set_anomaly_trace_func()),
 * and a backward pass whose node produces a NaN gradient fails with an
 * error that names the node and where its forward ran. It costs time.
 *
 * Since: 0.1
 */
void
dl_autograd_set_detect_anomaly (gboolean enabled)
{
  g_atomic_int_set (&anomaly_enabled, !!enabled);
}

/**
 * dl_autograd_is_anomaly_enabled:
 *
 * Says whether anomaly detection is on, as `torch.is_anomaly_enabled ()`:
 * dl_autograd_set_detect_anomaly() turns it on, and then nodes record where
 * their op ran (dl_node_get_trace()) and a backward pass that makes a NaN
 * fails naming the node.
 *
 * Returns: whether anomaly detection is on
 *
 * Since: 0.1
 */
gboolean
dl_autograd_is_anomaly_enabled (void)
{
  return g_atomic_int_get (&anomaly_enabled);
}

/**
 * dl_autograd_set_anomaly_trace_func:
 * @func: (nullable) (scope notified) (closure user_data) (destroy notify): what
 *   describes the current call stack, or %NULL for none
 * @user_data: data for @func
 * @notify: (nullable): frees @user_data
 *
 * Sets the function that anomaly mode asks where each op is recorded.
 * Language bindings set one that returns their own stack trace.
 *
 * Since: 0.1
 */
void
dl_autograd_set_anomaly_trace_func (DlAnomalyTraceFunc func,
                                    gpointer user_data,
                                    GDestroyNotify notify)
{
  GDestroyNotify old_notify;
  gpointer old_data;

  dl_mutex_lock (&anomaly_lock);
  old_notify = anomaly_trace_notify;
  old_data = anomaly_trace_data;
  anomaly_trace_func = func;
  anomaly_trace_data = user_data;
  anomaly_trace_notify = notify;
  dl_mutex_unlock (&anomaly_lock);
  if (old_notify)
    old_notify (old_data);
}

static gchar *
anomaly_trace (void)
{
  gchar *trace = NULL;

  dl_mutex_lock (&anomaly_lock);
  if (anomaly_trace_func)
    trace = anomaly_trace_func (anomaly_trace_data);
  dl_mutex_unlock (&anomaly_lock);
  return trace;
}

/**
 * dl_node_get_trace:
 * @self: a #DlNode
 *
 * Gives where the op that made the node was called, as the anomaly trace
 * function set with dl_autograd_set_anomaly_trace_func() described it (the
 * Python bindings give the Python stack). Only nodes recorded with anomaly
 * detection on have one.
 *
 * Returns: (transfer full) (nullable): where the op that made the node ran,
 *   as the anomaly trace function described it, when the node was recorded
 *   in anomaly mode; %NULL otherwise
 *
 * Since: 0.1
 */
gchar *
dl_node_get_trace (DlNode *self)
{
  g_return_val_if_fail (DL_IS_NODE (self), NULL);
  return g_strdup (dl_node_data (self)->trace);
}

gboolean
dl_autograd_any_requires (guint n, DlTensor **inputs)
{
  gboolean any = FALSE;

  if (grad_disabled)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (inputs[i])
      {
        dl_view_sync (inputs[i]);
        any |= inputs[i]->requires_grad;
      }
  return any;
}

DlNode *
dl_node_new_for_op (const gchar *name, DlBackwardFunc backward, guint n_inputs, DlTensor **inputs)
{
  DlNode *node = g_object_new (DL_TYPE_NODE, NULL);

  dl_node_init_for_op (node, name, backward, n_inputs, inputs);
  return node;
}

void
dl_node_set_output (DlNode *node, DlTensor *output, guint output_nr)
{
  DlNodeData *d = dl_node_data (node);

  g_clear_object (&output->grad_fn);
  output->grad_fn = g_object_ref (node);
  output->output_nr = output_nr;
  output->requires_grad = TRUE;
  d->n_outputs = MAX (d->n_outputs, output_nr + 1);
}

gpointer
dl_node_alloc_state (DlNode *node, gsize size, GDestroyNotify clear)
{
  DlNodeData *d = dl_node_data (node);

  g_assert (d->state == NULL);
  if (size <= sizeof d->inline_state)
    d->state = &d->inline_state;
  else
    d->state = g_malloc0 (size);
  d->state_clear = clear;
  return d->state;
}

void
dl_node_save (DlNode *node, DlSavedTensor *slot, DlTensor *tensor, gboolean is_output)
{
  DlNodeData *d = dl_node_data (node);

  g_assert (slot->tensor == NULL);
  if (is_output)
    slot->tensor = dl_tensor_new_view_internal (tensor, tensor->sizes, tensor->strides,
                                                tensor->ndim, tensor->offset);
  else
    slot->tensor = g_object_ref (tensor);
  slot->version = tensor->storage->version;
  slot->is_output = is_output;
  slot->output_nr = is_output ? tensor->output_nr : 0;
  slot->next = d->saved;
  d->saved = slot;
}

DlTensor *
dl_node_saved (DlNode *node, const DlSavedTensor *slot, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  DlTensor *t = slot->tensor;

  if (d->released || t == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "%s: Trying to backward through the graph a second time (or directly "
                   "access saved tensors after they have already been freed). Saved "
                   "intermediate values of the graph are freed when you call .backward() "
                   "or autograd.grad(). Specify retain_graph=True if you need to backward "
                   "through the graph a second time or if you need to access saved tensors "
                   "after calling backward.",
                   d->name);
      return NULL;
    }
  if (t->storage->version != slot->version)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "%s: one of the variables needed for gradient computation has been "
                   "modified by an inplace operation: it is at version %d; expected "
                   "version %d instead.",
                   d->name, t->storage->version, slot->version);
      return NULL;
    }
  if (slot->is_output && dl_is_grad_enabled () && dl_dtype_is_float (t->dtype))
    {
      DlSavedTensor *s = (DlSavedTensor *)slot;

      if (s->unpacked == NULL)
        {
          s->unpacked = dl_tensor_new_view_internal (t, t->sizes, t->strides, t->ndim, t->offset);
          dl_node_set_output (node, s->unpacked, s->output_nr);
        }
      return s->unpacked;
    }
  return t;
}

void
dl_node_drop_unpacked (DlNode *node)
{
  for (DlSavedTensor *slot = dl_node_data (node)->saved; slot; slot = slot->next)
    g_clear_object (&slot->unpacked);
}

gboolean
dl_node_needs_input_grad (DlNode *node, guint i)
{
  DlNodeData *d = dl_node_data (node);

  return i < d->n_inputs && (d->edges[i].node || d->edges[i].leaf);
}

void
dl_node_release (DlNode *node)
{
  DlNodeData *d = dl_node_data (node);

  d->released = TRUE;
  release_saved (d);
}

void
dl_node_init_for_op (DlNode *node,
                     const gchar *name,
                     DlBackwardFunc backward,
                     guint n_inputs,
                     DlTensor **inputs)
{
  DlNodeData *d = dl_node_data (node);
  gsize n_sizes = 0;
  gint64 *sizes;

  d->name = name;
  d->backward = backward;
  d->n_inputs = n_inputs;
  if (G_UNLIKELY (g_atomic_int_get (&anomaly_enabled)))
    d->trace = anomaly_trace ();
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i])
      n_sizes += inputs[i]->ndim;
  /* one block: the edges, the input metadata, then their sizes */
  d->edges
      = g_malloc0 (n_inputs * (sizeof (DlEdge) + sizeof (DlInputMeta)) + n_sizes * sizeof (gint64));
  d->inputs = (DlInputMeta *)(d->edges + n_inputs);
  sizes = (gint64 *)(d->inputs + n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      DlTensor *t = inputs[i];

      if (t == NULL)
        continue;
      dl_view_sync (t);
      d->inputs[i].dtype = t->dtype;
      d->inputs[i].ndim = t->ndim;
      d->inputs[i].sizes = sizes;
      memcpy (sizes, t->sizes, t->ndim * sizeof (gint64));
      sizes += t->ndim;
      if (!t->requires_grad)
        continue;
      if (t->grad_fn)
        {
          d->edges[i].node = g_object_ref (t->grad_fn);
          d->edges[i].input_nr = t->output_nr;
        }
      else
        d->edges[i].leaf = g_object_ref (t);
    }
}
