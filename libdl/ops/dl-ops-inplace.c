/* dl-ops-inplace.c: the one protocol every in-place op follows when
 * autograd may be involved.
 *
 * An in-place op is computed out of place on an alias of @self that
 * carries @self's history, and the result is then written back into @self,
 * which takes the result's history over (PyTorch's rebase_history for
 * tensors that are not views). What the graph cannot express is refused
 * first: a leaf that requires grad, and a view of a tensor that requires
 * grad (that would need PyTorch's CopySlices).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-private.h"

gboolean
dl_inplace_check_history (const gchar *op, DlTensor *self, GError **error)
{
  if (!dl_is_grad_enabled ())
    return TRUE;
  if (self->requires_grad && self->grad_fn == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "%s: a leaf Variable that requires grad is being used in an in-place "
                   "operation.",
                   op);
      return FALSE;
    }
  if (self->grad_fn && dl_node_data (self->grad_fn)->is_view)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "%s: in-place operations on a view (%s) of a tensor that requires grad "
                   "are not supported yet; clone() the view first",
                   op, dl_node_data (self->grad_fn)->name);
      return FALSE;
    }
  return TRUE;
}

DlTensor *
dl_inplace_alias (DlTensor *self)
{
  DlTensor *alias
      = dl_tensor_new_view_internal (self, self->sizes, self->strides, self->ndim, self->offset);

  alias->requires_grad = self->requires_grad;
  if (self->grad_fn)
    {
      alias->grad_fn = g_object_ref (self->grad_fn);
      alias->output_nr = self->output_nr;
    }
  return alias;
}

DlTensor *
dl_inplace_commit (DlTensor *self, DlTensor *result)
{
  DlTensor *ops[2] = { self, result };
  DlIter iter;

  dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
  dl_tensor_backend (self)->copy (&iter, self->dtype, result->dtype);
  dl_storage_bump_version (self->storage);
  if (result->grad_fn)
    {
      g_set_object (&self->grad_fn, result->grad_fn);
      self->output_nr = result->output_nr;
      self->requires_grad = TRUE;
    }
  return g_object_ref (self);
}
