/* dl-ops-inplace.c: the one protocol every in-place op follows when
 * autograd may be involved.
 *
 * An in-place op is computed out of place on an alias of @self that
 * carries @self's history, and the result is then written back into @self,
 * which takes the result's history over (PyTorch's rebase_history); when
 * @self is a view, its base's history records the write instead
 * (CopySlices, dl-view-autograd.c). Ops that overwrite @self with values
 * that do not depend on the old ones (fill_, copy_, the random fills)
 * record a node that gives the old values a zero gradient. What the graph
 * cannot express is refused first: a leaf that requires grad, a view of
 * one, and a view made in no_grad mode of a tensor that requires grad.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-private.h"

#include <string.h>

gboolean
dl_inplace_check_history (const gchar *op, DlTensor *self, GError **error)
{
  DlTensor *base = self->base;

  if (!dl_is_grad_enabled ())
    return TRUE;
  dl_view_sync (self);
  if (self->requires_grad && self->grad_fn == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "%s: a leaf Variable that requires grad is being used in an in-place "
                   "operation.",
                   op);
      return FALSE;
    }
  if (base == NULL)
    return TRUE;
  if (self->multi_output_view && self->requires_grad)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "%s: Output %u of %s is a view and is being modified inplace. This view is "
                   "the output of a function that returns multiple views. Such functions do not "
                   "allow the output views to be modified inplace. You should replace the "
                   "inplace operation by an out-of-place one.",
                   op, self->output_nr, dl_node_get_name (self->grad_fn));
      return FALSE;
    }
  if (base->requires_grad && base->grad_fn == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "%s: a view of a leaf Variable that requires grad is being used in an "
                   "in-place operation.",
                   op);
      return FALSE;
    }
  if (base->requires_grad && !self->requires_grad)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "%s: a view was created in no_grad mode and is being modified inplace with "
                   "grad mode enabled. Given that this use case is ambiguous and error-prone, "
                   "it is forbidden.",
                   op);
      return FALSE;
    }
  return TRUE;
}

gboolean
dl_inplace_wants_history (DlTensor *self, guint n_others, DlTensor **others)
{
  if (!dl_is_grad_enabled ())
    return FALSE;
  dl_view_sync (self);
  return self->requires_grad || (self->base && self->base->requires_grad)
         || dl_autograd_any_requires (n_others, others);
}

DlTensor *
dl_inplace_alias (DlTensor *self)
{
  DlTensor *alias
      = dl_tensor_new_view_internal (self, self->sizes, self->strides, self->ndim, self->offset);

  dl_view_sync (self);
  alias->requires_grad = self->requires_grad;
  if (self->grad_fn)
    {
      alias->grad_fn = g_object_ref (self->grad_fn);
      alias->output_nr = self->output_nr;
    }
  return alias;
}

void
dl_inplace_take_history (DlTensor *self, DlTensor *holder)
{
  if (self->base)
    {
      dl_autograd_hooks->view_take_history (self, holder);
      return;
    }
  g_set_object (&self->grad_fn, holder->grad_fn);
  self->output_nr = holder->output_nr;
  self->requires_grad = TRUE;
}

DlTensor *
dl_inplace_commit (const gchar *op, DlTensor *self, DlTensor *result, GError **error)
{
  DlTensor *ops[2] = { self, result };
  DlBackendContext *ctx;
  DlIter iter;

  if (!(ctx = DL_TENSOR_BACKEND (self, copy, op, error)))
    return NULL;
  dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
  ctx->backend->copy (ctx, &iter, self->dtype, result->dtype);
  dl_storage_bump_version (self->storage);
  if (result->grad_fn)
    dl_inplace_take_history (self, result);
  return self;
}

gboolean
dl_inplace_check_shape (const gchar *name,
                        DlTensor *self,
                        const gint64 *shape,
                        gint ndim,
                        GError **error)
{
  g_autofree gchar *s = NULL, *bs = NULL;

  if (ndim == self->ndim && memcmp (shape, self->sizes, ndim * sizeof (gint64)) == 0)
    return TRUE;
  s = dl_shape_to_string (self->sizes, self->ndim);
  bs = dl_shape_to_string (shape, ndim);
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "%s: output with shape %s doesn't match the broadcast shape %s", name, s, bs);
  return FALSE;
}

gboolean
dl_inplace_check_castable (const gchar *name, DlDType from, DlDType to, GError **error)
{
  if ((dl_dtype_is_float (from) && !dl_dtype_is_float (to))
      || (from != DL_DTYPE_BOOL && to == DL_DTYPE_BOOL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: result type %s can't be cast to the desired output type %s", name,
                   dl_dtype_get_name (from), dl_dtype_get_name (to));
      return FALSE;
    }
  return TRUE;
}

DlTensor *
dl_inplace_run (const gchar *name,
                DlTensor *self,
                guint n_others,
                DlTensor **others,
                gboolean needs_old_values,
                DlInplaceCompute compute,
                gpointer data,
                GError **error)
{
  g_autoptr (DlTensor) src = NULL;
  g_autoptr (DlTensor) result = NULL;
  DlTensor *r;

  if (!dl_check_live (name, self, error))
    return NULL;
  for (guint i = 0; i < n_others; i++)
    if (others[i] && !dl_check_live (name, others[i], error))
      return NULL;
  if (!dl_inplace_wants_history (self, n_others, others))
    {
      /* nothing to record: straight into self where the op can */
      if (!(r = compute (self, data, self, error)))
        return NULL;
      if (r == self)
        return self;
      result = r;
    }
  else
    {
      if (!dl_inplace_check_history (name, self, error))
        return NULL;
      src = needs_old_values ? dl_tensor_clone (self, error) : dl_inplace_alias (self);
      if (src == NULL || !(result = compute (src, data, NULL, error)))
        return NULL;
    }
  if (!dl_inplace_check_shape (name, self, result->sizes, result->ndim, error)
      || !dl_inplace_check_castable (name, result->dtype, self->dtype, error))
    return NULL;
  return dl_inplace_commit (name, self, result, error);
}

/* The old values of @self get no gradient from an overwrite: zeros. */
static gboolean
overwrite_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);

  if (dl_node_needs_input_grad (node, 0)
      && !(gi[0] = dl_zeros (d->inputs[0].sizes, d->inputs[0].ndim, go[0]->dtype,
                             dl_tensor_get_device (go[0]), error)))
    return FALSE;
  if (dl_node_needs_input_grad (node, 1)
      && !(gi[1] = dl_sum_to (go[0], d->inputs[1].sizes, d->inputs[1].ndim, error)))
    return FALSE;
  return TRUE;
}

DlTensor *
dl_inplace_overwrite_begin (const gchar *node_name, DlTensor *self, DlTensor *src)
{
  /* made before the write: the node's edge is @self's current history */
  g_autoptr (DlNode) node = dl_node_new_for_op (node_name, overwrite_backward, src ? 2 : 1,
                                                (DlTensor *[]){ self, src });
  DlTensor *holder;

  holder = dl_tensor_new_view_internal (self, self->sizes, self->strides, self->ndim, self->offset);
  dl_node_set_output (node, holder, 0);
  return holder;
}
