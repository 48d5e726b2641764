/* dl-engine.c: the backward pass.
 *
 * From the root's grad_fn, count for every reachable node how many edges
 * lead into it; then run nodes whose count has dropped to zero, summing the
 * gradients that arrive for each of their outputs first. Leaves accumulate
 * into .grad. Unless retain_graph, each node frees its saved tensors once
 * it has run. Backward formulas are tensor ops: with create_graph they are
 * recorded too, which gives higher-order gradients.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-node-private.h"
#include "dl-tensor-private.h"
#include "dl-error.h"
#include "ops/dl-ops-private.h"

typedef struct
{
  gint deps;
  guint n_outputs;
  DlTensor *grads[]; /* [n_outputs]: the summed gradient of each output */
} NodeState;

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

static gboolean
accumulate_leaf (DlTensor *leaf, DlTensor *g, gboolean create_graph, GError **error)
{
  g_autoptr (DlTensor) gg = NULL;

  if (g->ndim != leaf->ndim || memcmp (g->sizes, leaf->sizes, leaf->ndim * sizeof (gint64)) != 0)
    {
      if (!(gg = dl_sum_to (g, leaf->sizes, leaf->ndim, error)))
        return FALSE;
    }
  else
    gg = g_object_ref (g);
  if (gg->dtype != leaf->dtype)
    {
      DlTensor *c = dl_tensor_to_dtype (gg, leaf->dtype, error);
      g_object_unref (gg);
      if (!(gg = c))
        return FALSE;
    }
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
run_backward (DlTensor *root,
              DlTensor *grad_root,
              gboolean retain_graph,
              gboolean create_graph,
              GError **error)
{
  g_autoptr (GHashTable) state = g_hash_table_new_full (NULL, NULL, NULL, node_state_free);
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  g_autoptr (GPtrArray) ready = g_ptr_array_new ();
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  NodeState *rs;
  gboolean ok = TRUE;

  /* count dependencies */
  g_hash_table_insert (state, root->grad_fn, node_state_new (root->grad_fn));
  g_ptr_array_add (stack, root->grad_fn);
  while (stack->len)
    {
      DlNode *n = g_ptr_array_steal_index_fast (stack, stack->len - 1);
      DlNodeData *d = dl_node_data (n);

      for (guint i = 0; i < d->n_inputs; i++)
        {
          DlNode *next = d->edges[i].node;
          NodeState *s;

          if (!next)
            continue;
          s = g_hash_table_lookup (state, next);
          if (!s)
            {
              s = node_state_new (next);
              g_hash_table_insert (state, next, s);
              g_ptr_array_add (stack, next);
            }
          s->deps++;
        }
    }

  rs = g_hash_table_lookup (state, root->grad_fn);
  rs->grads[root->output_nr] = g_object_ref (grad_root);
  g_ptr_array_add (ready, root->grad_fn);

  while (ok && ready->len)
    {
      DlNode *n = g_ptr_array_steal_index_fast (ready, ready->len - 1);
      DlNodeData *d = dl_node_data (n);
      NodeState *s = g_hash_table_lookup (state, n);
      g_autofree DlTensor **gi = g_new0 (DlTensor *, MAX (d->n_inputs, 1));

      g_ptr_array_add (order, n);
      if (!d->backward)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD, "%s: node has no backward", d->name);
          ok = FALSE;
          break;
        }
      if (node_state_empty (s))
        goto next_inputs; /* nothing flowed here */
      if (!d->backward (n, s->grads, gi, error))
        {
          ok = FALSE;
          for (guint i = 0; i < d->n_inputs; i++)
            g_clear_object (&gi[i]);
          break;
        }
      node_state_clear_grads (s);

      for (guint i = 0; i < d->n_inputs && ok; i++)
        {
          DlEdge *e = &d->edges[i];

          if (gi[i] == NULL)
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
              NodeState *ns = g_hash_table_lookup (state, e->node);
              ok = accumulate (&ns->grads[e->input_nr], gi[i], error);
            }
          else if (e->leaf)
            ok = accumulate_leaf (e->leaf, gi[i], create_graph, error);
        }
      for (guint i = 0; i < d->n_inputs; i++)
        g_clear_object (&gi[i]);

    next_inputs:
      for (guint i = 0; i < d->n_inputs; i++)
        {
          DlNode *next = d->edges[i].node;
          NodeState *ns;

          if (!next)
            continue;
          ns = g_hash_table_lookup (state, next);
          if (--ns->deps == 0)
            g_ptr_array_add (ready, next);
        }
    }

  if (!retain_graph)
    for (guint i = 0; i < order->len; i++)
      dl_node_release (g_ptr_array_index (order, i));
  return ok;
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
  gboolean was, ok;

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  g_return_val_if_fail (gradient == NULL || DL_IS_TENSOR (gradient), FALSE);
  dl_view_sync (self);
  if (!self->requires_grad)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_AUTOGRAD,
          "backward: element 0 of tensors does not require grad and does not have a grad_fn");
      return FALSE;
    }
  if (gradient == NULL)
    {
      if (self->numel != 1)
        {
          g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "backward: grad can be implicitly created only for scalar outputs, "
                       "got shape %s",
                       s);
          return FALSE;
        }
      g = dl_full (self->sizes, self->ndim, 1, self->dtype, dl_tensor_device (self), error);
      if (!g)
        return FALSE;
    }
  else
    {
      if (gradient->ndim != self->ndim
          || memcmp (gradient->sizes, self->sizes, self->ndim * sizeof (gint64)) != 0)
        {
          g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
          g_autofree gchar *gs = dl_shape_to_string (gradient->sizes, gradient->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "backward: mismatch in shape: grad_output[0] has a shape of %s and "
                       "output[0] has a shape of %s",
                       gs, s);
          return FALSE;
        }
      g = g_object_ref (gradient);
    }

  was = dl_set_grad_enabled (create_graph);
  if (self->grad_fn == NULL)
    ok = accumulate_leaf (self, g, create_graph, error);
  else
    ok = run_backward (self, g, retain_graph, create_graph, error);
  dl_set_grad_enabled (was);
  return ok;
}
