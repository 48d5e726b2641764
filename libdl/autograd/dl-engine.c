/* dl-engine.c: the backward pass, for dl_tensor_backward() and
 * dl_autograd_grad().
 *
 * A pass first walks the graph from the roots' grad_fns (no recursion: an
 * explicit stack) and counts, for every reachable node, how many edges lead
 * into it; it then orders the nodes so that each comes after every node
 * that feeds it a gradient. In that order each node sums the gradients
 * that arrived for its outputs, runs its tensor hooks on them and its
 * backward, and passes the results along its edges. Gradients for leaves
 * are summed and, once the last node with an edge to the leaf has run (as
 * PyTorch's AccumulateGrad node runs when it is ready), go through the
 * leaf's hooks into its .grad, after which its post-accumulate hooks run
 * (DistributedDataParallel starts communicating there, while the rest of
 * the pass runs); callbacks queued during the pass run at its end;
 * dl_autograd_grad() instead captures the gradients of the tensors it was
 * asked about (and only runs the nodes that lead to them), and leaves .grad
 * alone. Unless retain_graph, each node that ran frees its saved tensors.
 * Backward formulas are tensor ops: with create_graph the pass runs in
 * grad mode and records them too, which gives higher-order gradients.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-autograd-private.h"
#include "dl-tensor-private.h"
#include "dl-error.h"
#include "ops/dl-ops-private.h"

#include <string.h>

typedef struct
{
  gint deps;
  gboolean needed; /* dl_autograd_grad(): leads to a tensor asked about */
  guint n_outputs;
  DlTensor *grads[]; /* [n_outputs]: the summed gradient of each output */
} NodeState;

typedef struct
{
  gboolean retain_graph;
  gboolean create_graph;
  GHashTable *state;    /* DlNode -> NodeState */
  GPtrArray *order;     /* the nodes, each after those that feed it */
  GHashTable *leaf_at;  /* leaf DlTensor -> its index in leaves, plus one */
  GPtrArray *leaves;    /* the leaves that got a gradient, in order */
  GPtrArray *leaf_sums; /* (owned) their summed gradients */
  GHashTable *leaf_edges; /* leaf DlTensor -> edges into it not yet run */
  GArray *callbacks;      /* the Callbacks queued during the pass */
  /* dl_autograd_grad(): the tensors asked about, and their gradients */
  guint n_inputs;
  DlTensor **inputs;
  DlTensor **captured;
} GraphTask;

static void
unref_nullable (gpointer object)
{
  if (object)
    g_object_unref (object);
}

static NodeState *
node_state_new (DlNode *node)
{
  guint n = dl_node_data (node)->n_outputs;
  NodeState *s = g_malloc0 (sizeof (NodeState) + n * sizeof (DlTensor *));

  s->n_outputs = n;
  return s;
}

static void
node_state_clear_grads (NodeState *s)
{
  for (guint i = 0; i < s->n_outputs; i++)
    g_clear_object (&s->grads[i]);
}

static void
node_state_free (gpointer p)
{
  node_state_clear_grads (p);
  g_free (p);
}

/* whether no gradient reached any output of the node */
static gboolean
node_state_empty (const NodeState *s)
{
  for (guint i = 0; i < s->n_outputs; i++)
    if (s->grads[i])
      return FALSE;
  return TRUE;
}

/* into <- into + g (new tensor; the old one may be shared) */
static gboolean
accumulate (DlTensor **into, DlTensor *g, GError **error)
{
  DlTensor *sum;

  if (*into == NULL)
    {
      *into = g_object_ref (g);
      return TRUE;
    }
  if (!(sum = dl_tensor_add (*into, g, error)))
    return FALSE;
  g_object_unref (*into);
  *into = sum;
  return TRUE;
}

/* Whether nothing but the engine can reach @g's elements: @g has
 * @engine_refs references (the engine's own), it is contiguous and plain,
 * and no other tensor shares its storage, except the view base it was
 * made from when nothing else holds that base. Such a gradient becomes a
 * leaf's grad as it is, without a copy, as PyTorch's AccumulateGrad steals
 * it. */
static gboolean
gradient_is_private (DlTensor *g, guint engine_refs)
{
  gint storage_refs = 1;

  if (G_OBJECT (g)->ref_count != engine_refs || !dl_tensor_is_contiguous (g) || g->grad_fn
      || g->is_wrapped_number)
    return FALSE;
  if (g->base)
    {
      if (G_OBJECT (g->base)->ref_count != 1 || g->base->grad_fn)
        return FALSE;
      storage_refs = 2;
    }
  return g_atomic_int_get (&g->storage->ref_count) == storage_refs;
}

/* @g summed to @sizes and converted to @dtype, as an input of that shape
 * and dtype needs it (a new reference) */
static DlTensor *
fit_gradient (DlTensor *g, const gint64 *sizes, gint ndim, DlDType dtype, GError **error)
{
  g_autoptr (DlTensor) gg = NULL;

  if (g->ndim != ndim || memcmp (g->sizes, sizes, ndim * sizeof (gint64)) != 0)
    {
      if (!(gg = dl_sum_to (g, sizes, ndim, error)))
        return NULL;
    }
  else
    gg = g_object_ref (g);
  if (gg->dtype != dtype && dl_dtype_is_float (dtype))
    return dl_tensor_to_dtype (gg, dtype, error);
  return g_steal_pointer (&gg);
}

/* Adds the summed gradient @g of @leaf to its .grad. */
static gboolean
accumulate_leaf (DlTensor *leaf, DlTensor *g, gboolean create_graph, GError **error)
{
  g_autoptr (DlTensor) gg = fit_gradient (g, leaf->sizes, leaf->ndim, leaf->dtype, error);

  if (gg == NULL)
    return FALSE;
  if (leaf->grad == NULL)
    {
      /* own the memory: the gradient may alias a tensor the user holds */
      if (create_graph)
        leaf->grad = g_object_ref (gg);
      else if (gradient_is_private (gg, gg == g ? 2 : 1))
        leaf->grad = dl_tensor_new_view_internal (gg, gg->sizes, gg->strides, gg->ndim, gg->offset);
      else
        {
          gboolean was = dl_set_grad_enabled (FALSE);
          leaf->grad = dl_tensor_clone (gg, error);
          dl_set_grad_enabled (was);
          if (leaf->grad == NULL)
            return FALSE;
        }
      return TRUE;
    }
  if (create_graph)
    {
      DlTensor *sum = dl_tensor_add (leaf->grad, gg, error);
      if (!sum)
        return FALSE;
      g_object_unref (leaf->grad);
      leaf->grad = sum;
      return TRUE;
    }
  {
    gboolean was = dl_set_grad_enabled (FALSE);
    DlTensor *r = dl_tensor_add_ (leaf->grad, gg, error);
    dl_set_grad_enabled (was);
    return r != NULL;
  }
}

static gboolean
is_input (GraphTask *task, DlTensor *t)
{
  for (guint i = 0; i < task->n_inputs; i++)
    if (task->inputs[i] == t)
      return TRUE;
  return FALSE;
}

/* a gradient @g flows into @leaf: sum it with what came before */
static gboolean
leaf_arrive (GraphTask *task, DlTensor *leaf, DlTensor *g, GError **error)
{
  guint at;

  if (task->inputs && !is_input (task, leaf))
    return TRUE; /* dl_autograd_grad() does not touch .grad */
  at = GPOINTER_TO_UINT (g_hash_table_lookup (task->leaf_at, leaf));
  if (at == 0)
    {
      g_ptr_array_add (task->leaves, leaf);
      g_ptr_array_add (task->leaf_sums, NULL);
      at = task->leaves->len;
      g_hash_table_insert (task->leaf_at, leaf, GUINT_TO_POINTER (at));
    }
  return accumulate ((DlTensor **)&task->leaf_sums->pdata[at - 1], g, error);
}

typedef struct
{
  DlAutogradCallback func;
  gpointer user_data;
  GDestroyNotify notify;
} Callback;

static void
callback_clear (gpointer p)
{
  Callback *c = p;

  if (c->notify)
    c->notify (c->user_data);
}

/* the pass running on this thread (a hook may start another) */
static GPrivate current_task = G_PRIVATE_INIT (NULL);

gboolean
dl_autograd_queue_callback (DlAutogradCallback callback,
                            gpointer user_data,
                            GDestroyNotify notify,
                            GError **error)
{
  GraphTask *task = g_private_get (&current_task);
  Callback c = { callback, user_data, notify };

  g_return_val_if_fail (callback != NULL, FALSE);
  if (task == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "queue_callback: Final callbacks can only be installed during backward pass.");
      if (notify)
        notify (user_data);
      return FALSE;
    }
  g_array_append_val (task->callbacks, c);
  return TRUE;
}

/* Runs the queued callbacks in order, also those they queue. */
static gboolean
task_run_callbacks (GraphTask *task, GError **error)
{
  for (guint i = 0; i < task->callbacks->len; i++)
    {
      Callback c = g_array_index (task->callbacks, Callback, i);
      gboolean ok;

      /* the callback may queue more, which moves the array */
      g_array_index (task->callbacks, Callback, i).notify = NULL;
      ok = c.func (c.user_data, error);
      if (c.notify)
        c.notify (c.user_data);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* Finds every node reachable from @roots and orders them: each node comes
 * after all the nodes with an edge into it. */
static void
task_order (GraphTask *task, DlTensor **roots, guint n_roots)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();

  for (guint r = 0; r < n_roots; r++)
    {
      DlNode *fn = roots[r]->grad_fn;

      if (fn && !g_hash_table_contains (task->state, fn))
        {
          g_hash_table_insert (task->state, fn, node_state_new (fn));
          g_ptr_array_add (stack, fn);
        }
    }
  while (stack->len)
    {
      DlNodeData *d = dl_node_data (g_ptr_array_steal_index_fast (stack, stack->len - 1));

      for (guint i = 0; i < d->n_inputs; i++)
        {
          DlNode *next = d->edges[i].node;
          NodeState *s;

          if (!next)
            {
              DlTensor *leaf = d->edges[i].leaf;
              if (leaf)
                g_hash_table_insert (
                    task->leaf_edges, leaf,
                    GUINT_TO_POINTER (
                        GPOINTER_TO_UINT (g_hash_table_lookup (task->leaf_edges, leaf)) + 1));
              continue;
            }
          s = g_hash_table_lookup (task->state, next);
          if (!s)
            {
              s = node_state_new (next);
              g_hash_table_insert (task->state, next, s);
              g_ptr_array_add (stack, next);
            }
          s->deps++;
        }
    }

  /* Kahn's order, last ready first (depth first, which frees gradients
   * early along a chain) */
  for (guint r = 0; r < n_roots; r++)
    {
      DlNode *fn = roots[r]->grad_fn;
      NodeState *s = fn ? g_hash_table_lookup (task->state, fn) : NULL;

      if (s && s->deps == 0)
        {
          s->deps = -1; /* queued once */
          g_ptr_array_add (stack, fn);
        }
    }
  while (stack->len)
    {
      DlNode *n = g_ptr_array_steal_index_fast (stack, stack->len - 1);
      DlNodeData *d = dl_node_data (n);

      g_ptr_array_add (task->order, n);
      for (guint i = 0; i < d->n_inputs; i++)
        {
          DlNode *next = d->edges[i].node;
          NodeState *ns;

          if (!next)
            continue;
          ns = g_hash_table_lookup (task->state, next);
          if (--ns->deps == 0)
            g_ptr_array_add (stack, next);
        }
    }
}

/* dl_autograd_grad(): marks the nodes whose backward leads to an input. */
static void
task_mark_needed (GraphTask *task)
{
  for (guint k = task->order->len; k-- > 0;)
    {
      DlNode *n = g_ptr_array_index (task->order, k);
      DlNodeData *d = dl_node_data (n);
      NodeState *s = g_hash_table_lookup (task->state, n);

      for (guint i = 0; i < d->n_inputs && !s->needed; i++)
        {
          DlEdge *e = &d->edges[i];

          if (e->node)
            {
              NodeState *ns = g_hash_table_lookup (task->state, e->node);
              s->needed = ns->needed;
              for (guint j = 0; j < task->n_inputs && !s->needed; j++)
                s->needed = task->inputs[j]->grad_fn == e->node
                            && task->inputs[j]->output_nr == e->input_nr;
            }
          else if (e->leaf)
            s->needed = is_input (task, e->leaf);
        }
    }
}

/* In anomaly mode: a NaN in a gradient a node produced is an error that
 * names the node and where its forward ran. */
static gboolean
check_anomaly (DlNode *n, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (n);

  for (guint i = 0; i < d->n_inputs; i++)
    {
      g_autoptr (DlTensor) nan = NULL;
      g_autoptr (DlTensor) any = NULL;
      gboolean was;

      if (gi[i] == NULL || !dl_dtype_is_float (gi[i]->dtype))
        continue;
      was = dl_set_grad_enabled (FALSE);
      nan = dl_tensor_isnan (gi[i], error);
      any = nan ? dl_tensor_any (nan, NULL, 0, FALSE, error) : NULL;
      dl_set_grad_enabled (was);
      if (any == NULL)
        return FALSE;
      if (dl_tensor_item (any, NULL) != 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "Function '%s' returned nan values in its %uth output.%s%s", d->name, i,
                       d->trace ? "\nTraceback of forward call that caused the error:\n" : "",
                       d->trace ? d->trace : "");
          return FALSE;
        }
    }
  return TRUE;
}

/* Runs node @n of the pass: its hooks, its backward, and passes the
 * gradients on. */
static gboolean
task_run_node (GraphTask *task, DlNode *n, GError **error)
{
  DlNodeData *d = dl_node_data (n);
  NodeState *s = g_hash_table_lookup (task->state, n);
  DlTensor *gi_small[4] = { NULL };
  g_autofree DlTensor **gi_big = NULL;
  DlTensor **gi = gi_small;
  gboolean ok = TRUE;

  if (node_state_empty (s))
    return TRUE; /* nothing flowed here */
  if (task->inputs)
    {
      for (guint j = 0; j < task->n_inputs; j++)
        if (task->inputs[j]->grad_fn == n && s->grads[task->inputs[j]->output_nr])
          g_set_object (&task->captured[j], s->grads[task->inputs[j]->output_nr]);
      if (!s->needed)
        {
          node_state_clear_grads (s);
          return TRUE;
        }
    }
  if (d->hooks)
    for (guint k = 0; k < s->n_outputs; k++)
      if (s->grads[k]
          && !dl_hooks_run (d->hooks, k, d->name, &s->grads[k], task->create_graph, error))
        return FALSE;
  if (!d->backward)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD, "%s: node has no backward", d->name);
      return FALSE;
    }
  if (d->n_inputs > G_N_ELEMENTS (gi_small))
    gi = gi_big = g_new0 (DlTensor *, d->n_inputs);
  ok = d->backward (n, s->grads, gi, error);
  dl_node_drop_unpacked (n);
  node_state_clear_grads (s);
  if (ok && G_UNLIKELY (d->trace || dl_autograd_is_anomaly_enabled ()))
    ok = check_anomaly (n, gi, error);

  for (guint i = 0; i < d->n_inputs && ok; i++)
    {
      DlEdge *e = &d->edges[i];

      if (gi[i] == NULL || (e->node == NULL && e->leaf == NULL))
        continue;
      if (gi[i]->dtype != d->inputs[i].dtype && dl_dtype_is_float (d->inputs[i].dtype))
        {
          DlTensor *c = dl_tensor_to_dtype (gi[i], d->inputs[i].dtype, error);
          g_object_unref (gi[i]);
          if (!(gi[i] = c))
            {
              ok = FALSE;
              break;
            }
        }
      if (e->node)
        {
          NodeState *ns = g_hash_table_lookup (task->state, e->node);
          ok = accumulate (&ns->grads[e->input_nr], gi[i], error);
        }
      else
        ok = leaf_arrive (task, e->leaf, gi[i], error);
    }
  for (guint i = 0; i < d->n_inputs; i++)
    g_clear_object (&gi[i]);
  return ok;
}

/* Leaf @k's summed gradient: through its hooks into its .grad, then its
 * post-accumulate hooks; its sum is dropped, so it is finished once. */
static gboolean
task_finish_leaf (GraphTask *task, guint k, GError **error)
{
  DlTensor *leaf = g_ptr_array_index (task->leaves, k);
  DlTensor **g = (DlTensor **)&task->leaf_sums->pdata[k];
  gboolean ok;

  if (*g == NULL)
    return TRUE;
  ok = (leaf->hooks == NULL || dl_hooks_run (leaf->hooks, 0, "leaf", g, task->create_graph, error))
       && accumulate_leaf (leaf, *g, task->create_graph, error);
  g_clear_object (g);
  return ok && dl_hooks_run_post_accumulate (leaf, error);
}

/* After node @n ran: the leaves whose last edge was one of its edges are
 * finished (not for dl_autograd_grad(), which captures at the end). */
static gboolean
task_leaves_ready (GraphTask *task, DlNode *n, GError **error)
{
  DlNodeData *d = dl_node_data (n);

  if (task->inputs)
    return TRUE;
  for (guint i = 0; i < d->n_inputs; i++)
    {
      DlTensor *leaf = d->edges[i].leaf;
      guint left;

      if (d->edges[i].node || leaf == NULL)
        continue;
      left = GPOINTER_TO_UINT (g_hash_table_lookup (task->leaf_edges, leaf)) - 1;
      g_hash_table_insert (task->leaf_edges, leaf, GUINT_TO_POINTER (left));
      if (left == 0)
        {
          guint at = GPOINTER_TO_UINT (g_hash_table_lookup (task->leaf_at, leaf));
          if (at && !task_finish_leaf (task, at - 1, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* The leaves not finished during the pass (those that were roots), or, for
 * dl_autograd_grad(), the captured gradients. */
static gboolean
task_finish_leaves (GraphTask *task, GError **error)
{
  for (guint k = 0; k < task->leaves->len; k++)
    {
      DlTensor *leaf = g_ptr_array_index (task->leaves, k);

      if (task->inputs)
        {
          for (guint j = 0; j < task->n_inputs; j++)
            if (task->inputs[j] == leaf)
              g_set_object (&task->captured[j], g_ptr_array_index (task->leaf_sums, k));
          continue;
        }
      if (!task_finish_leaf (task, k, error))
        return FALSE;
    }
  return TRUE;
}

/* Backpropagates @grads (one per root, each the shape of its root) from
 * @roots; with @inputs, captures their gradients into @captured instead of
 * accumulating into leaves. */
static gboolean
run_backward (DlTensor **roots,
              DlTensor **grads,
              guint n_roots,
              DlTensor **inputs,
              guint n_inputs,
              DlTensor **captured,
              gboolean retain_graph,
              gboolean create_graph,
              GError **error)
{
  GraphTask task = {
    .retain_graph = retain_graph,
    .create_graph = create_graph,
    .state = g_hash_table_new_full (NULL, NULL, NULL, node_state_free),
    .order = g_ptr_array_new (),
    .leaf_at = g_hash_table_new (NULL, NULL),
    .leaves = g_ptr_array_new (),
    .leaf_sums = g_ptr_array_new_with_free_func (unref_nullable),
    .leaf_edges = g_hash_table_new (NULL, NULL),
    .callbacks = g_array_new (FALSE, FALSE, sizeof (Callback)),
    .n_inputs = n_inputs,
    .inputs = inputs,
    .captured = captured,
  };
  gboolean was = dl_set_grad_enabled (create_graph);
  gpointer outer = g_private_get (&current_task);
  gboolean ok = TRUE;
  guint ran = 0;

  g_array_set_clear_func (task.callbacks, callback_clear);
  g_private_set (&current_task, &task);
  task_order (&task, roots, n_roots);
  if (inputs)
    task_mark_needed (&task);
  for (guint r = 0; r < n_roots && ok; r++)
    {
      DlTensor *root = roots[r];

      if (root->grad_fn)
        {
          NodeState *s = g_hash_table_lookup (task.state, root->grad_fn);
          ok = accumulate (&s->grads[root->output_nr], grads[r], error);
        }
      else
        ok = leaf_arrive (&task, root, grads[r], error);
    }
  for (; ran < task.order->len && ok; ran++)
    {
      DlNode *n = g_ptr_array_index (task.order, ran);
      ok = task_run_node (&task, n, error) && task_leaves_ready (&task, n, error);
    }
  if (ok)
    ok = task_finish_leaves (&task, error);
  if (ok)
    ok = task_run_callbacks (&task, error);
  g_private_set (&current_task, outer);
  dl_set_grad_enabled (was);

  if (!retain_graph)
    for (guint i = 0; i < ran; i++)
      dl_node_release (g_ptr_array_index (task.order, i));
  g_hash_table_unref (task.state);
  g_ptr_array_unref (task.order);
  g_hash_table_unref (task.leaf_at);
  g_ptr_array_unref (task.leaves);
  g_ptr_array_unref (task.leaf_sums);
  g_hash_table_unref (task.leaf_edges);
  g_array_unref (task.callbacks);
  return ok;
}

/* The gradient of @out to start from: @given, checked against @out's
 * shape, or ones for a one-element @out. @i numbers @out in messages. */
static DlTensor *
root_gradient (const gchar *op, DlTensor *out, DlTensor *given, guint i, GError **error)
{
  if (given == NULL)
    {
      if (out->numel != 1)
        {
          g_autofree gchar *s = dl_shape_to_string (out->sizes, out->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "%s: grad can be implicitly created only for scalar outputs, "
                       "got shape %s for output[%u]",
                       op, s, i);
          return NULL;
        }
      return dl_full (out->sizes, out->ndim, 1, out->dtype, dl_tensor_device (out), error);
    }
  if (given->ndim != out->ndim
      || memcmp (given->sizes, out->sizes, out->ndim * sizeof (gint64)) != 0)
    {
      g_autofree gchar *s = dl_shape_to_string (out->sizes, out->ndim);
      g_autofree gchar *gs = dl_shape_to_string (given->sizes, given->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Mismatch in shape: grad_output[%u] has a shape of %s and "
                   "output[%u] has a shape of %s",
                   op, i, gs, i, s);
      return NULL;
    }
  return g_object_ref (given);
}

/**
 * dl_tensor_backward:
 * @self: the tensor to differentiate, usually a scalar loss
 * @gradient: (nullable): the gradient of some outer function with respect
 *   to @self; %NULL means 1 and needs @self to have one element
 * @retain_graph: whether to keep the saved tensors for another backward
 * @create_graph: whether to record the backward pass itself, for
 *   higher-order gradients
 * @error: return location for a #GError
 *
 * Computes the gradient of @self with respect to every leaf it was made
 * from that requires grad, and adds it to the leaf's grad.
 *
 * As `loss.backward ()` in PyTorch: gradients accumulate (add up) over calls
 * until dl_optimizer_zero_grad() or dl_tensor_set_grad() clears them, and
 * the graph's saved tensors are freed after the pass unless @retain_graph is
 * %TRUE.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) w = NULL;
 * g_autoptr (DlTensor) y = NULL;
 * g_autoptr (DlTensor) loss = NULL;
 *
 * if (!(w = dl_randn (DL_SHAPE (3), DL_DTYPE_FLOAT32, NULL, &error))
 *     || !dl_tensor_set_requires_grad (w, TRUE, &error)
 *     || !(y = dl_tensor_mul (w, w, &error))
 *     || !(loss = dl_tensor_sum (y, &error))
 *     || !dl_tensor_backward (loss, NULL, FALSE, FALSE, &error))
 *   g_printerr ("%s\n", error->message);
 * ]|
 *
 * leaves 2 * `w` in dl_tensor_get_grad() of `w`. Fails with %DL_ERROR_AUTOGRAD
 * when @self does not require grad, when @gradient is %NULL and @self has
 * more than one element, or when a graph freed by an earlier pass is walked
 * again; with %DL_ERROR_SHAPE when @gradient's shape differs from @self's.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_tensor_backward (DlTensor *self,
                    DlTensor *gradient,
                    gboolean retain_graph,
                    gboolean create_graph,
                    GError **error)
{
  g_autoptr (DlTensor) g = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  g_return_val_if_fail (gradient == NULL || DL_IS_TENSOR (gradient), FALSE);
  if (!dl_check_live ("backward", self, error)
      || (gradient && !dl_check_live ("backward", gradient, error)))
    return FALSE;
  dl_view_sync (self);
  if (!self->requires_grad)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_AUTOGRAD,
          "backward: element 0 of tensors does not require grad and does not have a grad_fn");
      return FALSE;
    }
  if (!(g = root_gradient ("backward", self, gradient, 0, error)))
    return FALSE;
  return run_backward (&self, &g, 1, NULL, 0, NULL, retain_graph, create_graph, error);
}

/**
 * dl_autograd_grad:
 * @outputs: (array length=n_outputs): the tensors to differentiate
 * @n_outputs: the number of @outputs
 * @inputs: (array length=n_inputs): the tensors to differentiate with
 *   respect to: leaves that require grad, or results of recorded ops
 * @n_inputs: the number of @inputs
 * @grad_outputs: (array length=n_grad_outputs) (nullable): the gradient of
 *   some outer function with respect to each output, each the shape of its
 *   output; %NULL (or no array) means ones, for one-element outputs
 * @n_grad_outputs: 0, or the number of @outputs
 * @retain_graph: whether to keep the saved tensors for another pass
 * @create_graph: whether to record this pass, so that its results can be
 *   differentiated again (Hessian-vector products, gradient penalties)
 * @allow_unused: whether an input that no output depends on gives %NULL
 *   rather than an error
 * @error: return location for a #GError
 *
 * Computes and returns the sum of the gradients of @outputs with respect to
 * each of @inputs, as torch.autograd.grad() does. Unlike
 * dl_tensor_backward(), it does not add to any tensor's grad, and it only
 * runs the part of the graph that leads to @inputs.
 *
 * Returns: (transfer full) (element-type DlTensor): one gradient per input
 *   (an entry is %NULL for an unused input when @allow_unused), or %NULL
 *   with @error set. The array has no element free function (PyGObject
 *   would drop the elements twice): in C, unref each element, then the
 *   array
 *
 * Since: 0.1
 */
GPtrArray *
dl_autograd_grad (DlTensor **outputs,
                  guint n_outputs,
                  DlTensor **inputs,
                  guint n_inputs,
                  DlTensor **grad_outputs,
                  guint n_grad_outputs,
                  gboolean retain_graph,
                  gboolean create_graph,
                  gboolean allow_unused,
                  GError **error)
{
  g_autoptr (GPtrArray) grads = g_ptr_array_new_with_free_func (unref_nullable);
  g_autoptr (GPtrArray) result = NULL;
  gboolean ok;

  g_return_val_if_fail (n_outputs == 0 || outputs != NULL, NULL);
  g_return_val_if_fail (n_inputs == 0 || inputs != NULL, NULL);
  if (n_grad_outputs != 0 && n_grad_outputs != n_outputs)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "grad: got %u grad_outputs for %u outputs: there must be one per output",
                   n_grad_outputs, n_outputs);
      return NULL;
    }
  if (n_outputs == 0 || n_inputs == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "grad: %s",
                   n_outputs == 0 ? "no outputs to differentiate"
                                  : "no inputs to differentiate with respect to");
      return NULL;
    }
  for (guint i = 0; i < n_outputs; i++)
    {
      DlTensor *g;

      g_return_val_if_fail (DL_IS_TENSOR (outputs[i]), NULL);
      dl_view_sync (outputs[i]);
      if (!outputs[i]->requires_grad)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "grad: element %u of tensors does not require grad and does not have a "
                       "grad_fn",
                       i);
          return NULL;
        }
      if (!(g = root_gradient ("grad", outputs[i], n_grad_outputs ? grad_outputs[i] : NULL, i,
                               error)))
        return NULL;
      g_ptr_array_add (grads, g);
    }
  for (guint j = 0; j < n_inputs; j++)
    {
      g_return_val_if_fail (DL_IS_TENSOR (inputs[j]), NULL);
      dl_view_sync (inputs[j]);
      if (!inputs[j]->requires_grad)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "grad: One of the differentiated Tensors (input %u) does not require grad",
                       j);
          return NULL;
        }
    }

  /* no element free function: bindings take the elements of a (transfer
   * full) array and then free the array */
  result = g_ptr_array_new_full (n_inputs, NULL);
  g_ptr_array_set_size (result, n_inputs);
  ok = run_backward (outputs, (DlTensor **)grads->pdata, n_outputs, inputs, n_inputs,
                     (DlTensor **)result->pdata, retain_graph, create_graph, error);
  for (guint j = 0; j < n_inputs && ok; j++)
    {
      g_autoptr (DlTensor) g = g_steal_pointer (&result->pdata[j]);

      if (g == NULL)
        {
          if (allow_unused)
            continue;
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "grad: One of the differentiated Tensors (input %u) appears to not have "
                       "been used in the graph. Set allow_unused=True if this is the desired "
                       "behavior.",
                       j);
          ok = FALSE;
        }
      /* the sum of what flowed in, in the input's shape and dtype */
      else if (!(result->pdata[j]
                 = fit_gradient (g, inputs[j]->sizes, inputs[j]->ndim, inputs[j]->dtype, error)))
        ok = FALSE;
      else if (!create_graph && ((DlTensor *)result->pdata[j])->grad_fn)
        {
          DlTensor *det = dl_tensor_detach (result->pdata[j]);
          g_object_unref (result->pdata[j]);
          result->pdata[j] = det;
        }
    }
  if (!ok)
    {
      for (guint j = 0; j < n_inputs; j++)
        unref_nullable (result->pdata[j]);
      return NULL;
    }
  return g_steal_pointer (&result);
}
