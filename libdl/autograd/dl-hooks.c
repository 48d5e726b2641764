/* dl-hooks.c: tensor hooks, retained gradients and detach_().
 *
 * A hook on a tensor runs on that tensor's gradient during a backward pass.
 * A leaf keeps its hooks itself; a tensor with a grad_fn keeps them on the
 * node, for the output it is, so that they run even when the tensor is gone
 * (as in PyTorch). retain_grad() is a hook like the others, run in the order
 * of registration, that copies the gradient into the tensor's .grad; it
 * holds the tensor weakly, so no tensor -> node -> hook -> tensor cycle
 * forms. Hook ids are process-wide, so that a handle can remove its hook
 * knowing only its id.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "dl-mutex-private.h"

#include "dl-autograd-private.h"
#include "dl-tensor-private.h"
#include "dl-error.h"
#include "dl-native-private.h"
#include "ops/dl-ops-private.h"

#include <string.h>

typedef struct
{
  guint id;
  guint output_nr;
  DlTensorHook func;             /* (nullable): NULL for retain_grad and post-accumulate hooks */
  DlPostAccumulateGradHook post; /* (nullable): a post-accumulate-grad hook */
  gpointer user_data;
  GDestroyNotify notify;
  GWeakRef retain; /* retain_grad: the tensor whose .grad gets the gradient */
} Hook;

/* id -> GWeakRef to the object (a leaf DlTensor or a DlNode) holding it */
static GMutex hooks_lock;
static GHashTable *hook_owners;
static guint last_hook_id;

static void
hook_free (gpointer p)
{
  Hook *h = p;

  dl_mutex_lock (&hooks_lock);
  if (hook_owners)
    g_hash_table_remove (hook_owners, GUINT_TO_POINTER (h->id));
  dl_mutex_unlock (&hooks_lock);
  if (h->notify)
    h->notify (h->user_data);
  g_weak_ref_clear (&h->retain);
  g_free (h);
}

static void
weak_ref_free (gpointer p)
{
  g_weak_ref_clear (p);
  g_free (p);
}

/* Adds @h to the hooks of @self (its node's when it has a grad_fn). */
static guint
hook_attach (DlTensor *self, Hook *h)
{
  GPtrArray **hooks;
  GObject *owner;
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  if (self->grad_fn)
    {
      hooks = &dl_node_data (self->grad_fn)->hooks;
      owner = G_OBJECT (self->grad_fn);
      h->output_nr = self->output_nr;
    }
  else
    {
      hooks = &self->hooks;
      owner = G_OBJECT (self);
    }
  g_weak_ref_init (ref, owner);
  dl_mutex_lock (&hooks_lock);
  if (hook_owners == NULL)
    hook_owners = g_hash_table_new_full (NULL, NULL, NULL, weak_ref_free);
  h->id = ++last_hook_id;
  g_hash_table_insert (hook_owners, GUINT_TO_POINTER (h->id), ref);
  if (*hooks == NULL)
    *hooks = g_ptr_array_new_with_free_func (hook_free);
  g_ptr_array_add (*hooks, h);
  dl_mutex_unlock (&hooks_lock);
  return h->id;
}

/* post-accumulate hooks sit with a leaf's other hooks under an output
 * number no gradient has, so dl_hooks_run() passes them by */
#define POST_ACCUMULATE G_MAXUINT

/* Adds a hook (@func, or the post-accumulate hook @post) to @self, or,
 * when not @allowed, fails with @message (and frees @user_data) */
static guint
hook_register (DlTensor *self,
               gboolean allowed,
               const gchar *message,
               DlTensorHook func,
               DlPostAccumulateGradHook post,
               gpointer user_data,
               GDestroyNotify notify,
               GError **error)
{
  Hook *h;

  if (!allowed)
    {
      g_set_error_literal (error, DL_ERROR, DL_ERROR_AUTOGRAD, message);
      if (notify)
        notify (user_data);
      return 0;
    }
  h = g_new0 (Hook, 1);
  h->func = func;
  h->post = post;
  h->user_data = user_data;
  h->notify = notify;
  if (post)
    h->output_nr = POST_ACCUMULATE; /* on a leaf: hook_attach() leaves it */
  return hook_attach (self, h);
}

/**
 * dl_tensor_register_hook:
 * @self: a #DlTensor that requires grad
 * @hook: (scope notified) (closure user_data) (destroy notify): the function
 *   to run on @self's gradient
 * @user_data: data for @hook
 * @notify: (nullable): frees @user_data when the hook is removed or its
 *   tensor's graph is freed
 * @error: return location for a #GError
 *
 * Registers a hook that every backward pass runs on the gradient of @self
 * before using it, as torch.Tensor.register_hook() does: it may look at the
 * gradient, or return a replacement of the same shape and dtype. Hooks run
 * in the order they were registered. On a leaf, the hook sees the summed
 * gradient before it is added to .grad.
 *
 * Returns: the hook's id for dl_autograd_remove_hook(), or 0 with @error
 *   set when @self does not require grad
 *
 * Since: 0.1
 */
guint
dl_tensor_register_hook (DlTensor *self,
                         DlTensorHook hook,
                         gpointer user_data,
                         GDestroyNotify notify,
                         GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  g_return_val_if_fail (hook != NULL, 0);
  dl_view_sync (self);
  return hook_register (self, self->requires_grad,
                        "register_hook: cannot register a hook on a tensor that doesn't require "
                        "gradient",
                        hook, NULL, user_data, notify, error);
}

/**
 * dl_autograd_remove_hook:
 * @id: a hook id from dl_tensor_register_hook()
 *
 * Removes a tensor hook, as the handle that torch.Tensor.register_hook()
 * returns does. Removing a hook twice, or one whose graph is gone, does
 * nothing.
 *
 * Returns: whether the hook was found and removed
 *
 * Since: 0.1
 */
gboolean
dl_autograd_remove_hook (guint id)
{
  g_autoptr (GObject) owner = NULL;
  GPtrArray *hooks;
  Hook *found = NULL;

  dl_mutex_lock (&hooks_lock);
  if (hook_owners)
    {
      GWeakRef *ref = g_hash_table_lookup (hook_owners, GUINT_TO_POINTER (id));
      owner = ref ? g_weak_ref_get (ref) : NULL;
    }
  if (owner)
    {
      hooks
          = DL_IS_TENSOR (owner) ? DL_TENSOR (owner)->hooks : dl_node_data (DL_NODE (owner))->hooks;
      for (guint i = 0; hooks && i < hooks->len; i++)
        if (((Hook *)g_ptr_array_index (hooks, i))->id == id)
          {
            found = g_ptr_array_steal_index (hooks, i);
            break;
          }
    }
  dl_mutex_unlock (&hooks_lock);
  if (found)
    hook_free (found);
  return found != NULL;
}

/* retain_grad: .grad of the tensor, if it still exists, gets @g */
static gboolean
retain (Hook *h, DlTensor *g, gboolean create_graph, GError **error)
{
  g_autoptr (DlTensor) t = g_weak_ref_get (&h->retain);
  DlTensor *sum;
  gboolean was;

  if (t == NULL)
    return TRUE;
  was = dl_set_grad_enabled (create_graph);
  if (t->grad == NULL)
    sum = create_graph ? g_object_ref (g) : dl_tensor_clone (g, error);
  else
    sum = dl_tensor_add (t->grad, g, error);
  dl_set_grad_enabled (was);
  if (sum == NULL)
    return FALSE;
  g_clear_object (&t->grad);
  t->grad = sum;
  return TRUE;
}

gboolean
dl_hooks_run (GPtrArray *hooks,
              guint output_nr,
              const gchar *where,
              DlTensor **grad,
              gboolean create_graph,
              GError **error)
{
  g_autoptr (GPtrArray) run = NULL;

  /* a hook may remove hooks: run over a copy of the list */
  dl_mutex_lock (&hooks_lock);
  run = g_ptr_array_new ();
  for (guint i = 0; i < hooks->len; i++)
    {
      Hook *h = g_ptr_array_index (hooks, i);
      if (h->output_nr == output_nr)
        g_ptr_array_add (run, h);
    }
  dl_mutex_unlock (&hooks_lock);

  for (guint i = 0; i < run->len; i++)
    {
      Hook *h = g_ptr_array_index (run, i);
      DlTensor *g = *grad;
      DlTensor *r;
      GError *local = NULL;

      if (h->func == NULL)
        {
          if (!retain (h, g, create_graph, error))
            return FALSE;
          continue;
        }
      r = h->func (g, h->user_data, &local);
      if (local)
        {
          g_clear_object (&r);
          g_propagate_prefixed_error (error, local, "hook %u on the gradient of %s: ", h->id,
                                      where);
          return FALSE;
        }
      if (r == NULL)
        continue;
      if (!DL_IS_TENSOR (r))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                       "hook %u on the gradient of %s returned a %s, not a Tensor", h->id, where,
                       G_OBJECT_TYPE_NAME (r));
          g_object_unref (r);
          return FALSE;
        }
      if (r->ndim != g->ndim || memcmp (r->sizes, g->sizes, g->ndim * sizeof (gint64)) != 0)
        {
          g_autofree gchar *was = dl_shape_to_string (g->sizes, g->ndim);
          g_autofree gchar *got = dl_shape_to_string (r->sizes, r->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "hook %u on the gradient of %s has changed the size of value: was %s, "
                       "got %s",
                       h->id, where, was, got);
          g_object_unref (r);
          return FALSE;
        }
      if (r->dtype != g->dtype)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                       "hook %u on the gradient of %s has changed the type of value: was %s, "
                       "got %s",
                       h->id, where, dl_dtype_get_name (g->dtype), dl_dtype_get_name (r->dtype));
          g_object_unref (r);
          return FALSE;
        }
      g_object_unref (*grad);
      *grad = r;
    }
  return TRUE;
}

guint
dl_tensor_register_post_accumulate_grad_hook (DlTensor *self,
                                              DlPostAccumulateGradHook hook,
                                              gpointer user_data,
                                              GDestroyNotify notify,
                                              GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  g_return_val_if_fail (hook != NULL, 0);
  dl_view_sync (self);
  return hook_register (self, self->requires_grad && self->grad_fn == NULL,
                        "register_post_accumulate_grad_hook: post accumulate grad hooks can only "
                        "be registered on leaf tensors that require grad",
                        NULL, hook, user_data, notify, error);
}

gboolean
dl_hooks_run_post_accumulate (DlTensor *leaf, GError **error)
{
  g_autoptr (GPtrArray) run = NULL;

  if (leaf->hooks == NULL)
    return TRUE;
  dl_mutex_lock (&hooks_lock);
  run = g_ptr_array_new ();
  for (guint i = 0; i < leaf->hooks->len; i++)
    {
      Hook *h = g_ptr_array_index (leaf->hooks, i);
      if (h->output_nr == POST_ACCUMULATE)
        g_ptr_array_add (run, h);
    }
  dl_mutex_unlock (&hooks_lock);
  for (guint i = 0; i < run->len; i++)
    {
      Hook *h = g_ptr_array_index (run, i);
      if (!h->post (leaf, h->user_data, error))
        return FALSE;
    }
  return TRUE;
}

/**
 * dl_tensor_retain_grad:
 * @self: a #DlTensor that requires grad
 * @error: return location for a #GError
 *
 * Makes backward passes fill in the grad of @self even though it is not a
 * leaf, as torch.Tensor.retain_grad() does. On a leaf it does nothing:
 * leaves always keep their gradient.
 *
 * Returns: %TRUE on success; %FALSE with @error set when @self does not
 *   require grad
 *
 * Since: 0.1
 */
gboolean
dl_tensor_retain_grad (DlTensor *self, GError **error)
{
  Hook *h;

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  dl_view_sync (self);
  if (!self->requires_grad)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
      return FALSE;
    }
  if (self->grad_fn == NULL || self->retains_grad)
    return TRUE;
  h = g_new0 (Hook, 1);
  g_weak_ref_init (&h->retain, self);
  hook_attach (self, h);
  self->retains_grad = TRUE;
  return TRUE;
}

/**
 * dl_tensor_get_retains_grad:
 * @self: a #DlTensor
 *
 * Says whether a non-leaf tensor keeps its gradient after
 * dl_tensor_backward(), as `torch.Tensor.retains_grad`. Leaves always keep
 * theirs and give %FALSE here, as in PyTorch.
 *
 * Returns: whether dl_tensor_retain_grad() was called on @self, a
 *   non-leaf (torch.Tensor.retains_grad)
 *
 * Since: 0.1
 */
gboolean
dl_tensor_get_retains_grad (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  return self->retains_grad && self->grad_fn != NULL;
}

/**
 * dl_tensor_detach_:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Detaches @self from the graph in place, as torch.Tensor.detach_() does:
 * it becomes a leaf that does not require grad. A view of a tensor that
 * requires grad cannot be detached in place (detach it with
 * dl_tensor_detach()).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_tensor_detach_ (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  dl_view_sync (self);
  if (self->base && self->base->requires_grad)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "detach_: Can't detach views in-place. Use detach() instead.");
      return FALSE;
    }
  dl_clear_released (&self->grad_fn);
  self->output_nr = 0;
  self->retains_grad = FALSE;
  if (self->requires_grad)
    {
      self->requires_grad = FALSE;
      g_object_notify (G_OBJECT (self), "requires-grad");
    }
  return TRUE;
}

gboolean
dl_tensor_hooks_are_native (DlTensor *self)
{
  gboolean native = TRUE;

  dl_mutex_lock (&hooks_lock);
  for (guint i = 0; native && self->hooks && i < self->hooks->len; i++)
    native = dl_is_native_code (((Hook *)g_ptr_array_index (self->hooks, i))->func);
  dl_mutex_unlock (&hooks_lock);
  return native;
}
