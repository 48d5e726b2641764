/* dl-ops-optim.c: the optimizers' fused update (see dl-ops-optim-private.h):
 * checks, a contiguous gradient of the parameter's dtype, one kernel.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-private.h"
#include "dl-ops-optim-private.h"

DlTensor *
dl_optim_new_state (DlTensor *param, gdouble value, GError **error)
{
  g_autoptr (DlTensor) t = dl_tensor_new_empty_internal (dl_tensor_device (param), param->dtype,
                                                         param->sizes, param->ndim, error);

  if (!t || !dl_tensor_fill_ (t, value, error))
    return NULL;
  return g_steal_pointer (&t);
}

static gboolean
same_shape (DlTensor *a, DlTensor *b)
{
  if (a->ndim != b->ndim)
    return FALSE;
  for (gint d = 0; d < a->ndim; d++)
    if (a->sizes[d] != b->sizes[d])
      return FALSE;
  return TRUE;
}

gboolean
dl_optim_fused_step (const gchar *name,
                     DlTensor *param,
                     DlTensor *grad,
                     DlTensor **state,
                     guint n_state,
                     DlOptimStepArgs *args,
                     GError **error)
{
  g_autoptr (DlTensor) cast = NULL;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) p = NULL;
  DlBackendContext *ctx;

  g_return_val_if_fail (n_state <= G_N_ELEMENTS (args->state), FALSE);
  if (!dl_check_write_target (name, param, error))
    return FALSE;
  if (param->dtype != DL_DTYPE_FLOAT32 && param->dtype != DL_DTYPE_FLOAT64)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s.step: parameters of dtype %s are not supported (float32 and float64 are)",
                   name, dl_dtype_get_name (param->dtype));
      return FALSE;
    }
  if (!same_shape (param, grad))
    {
      g_autofree gchar *ps = dl_shape_to_string (param->sizes, param->ndim);
      g_autofree gchar *gs = dl_shape_to_string (grad->sizes, grad->ndim);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s.step: a parameter of shape %s has a gradient of shape %s", name, ps, gs);
      return FALSE;
    }
  for (guint i = 0; i < n_state; i++)
    if (state[i]->dtype != param->dtype || !same_shape (param, state[i])
        || !dl_tensor_is_contiguous (state[i]) || dl_tensor_device (state[i]) != dl_tensor_device (param))
      {
        g_autofree gchar *ps = dl_shape_to_string (param->sizes, param->ndim);
        g_autofree gchar *ss = dl_shape_to_string (state[i]->sizes, state[i]->ndim);

        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s.step: the state of a %s parameter of shape %s is a %s tensor of shape %s",
                     name, dl_dtype_get_name (param->dtype), ps, dl_dtype_get_name (state[i]->dtype),
                     ss);
        return FALSE;
      }
  if (!(ctx = DL_TENSOR_BACKEND (param, optim_step, name, error)))
    return FALSE;
  if (!(cast = dl_cast_nograd (grad, param->dtype, error))
      || !(g = dl_contiguous_nograd (cast, error)))
    return FALSE;
  p = dl_tensor_is_contiguous (param) ? g_object_ref (param) : dl_contiguous_nograd (param, error);
  if (!p)
    return FALSE;

  args->n = param->numel;
  args->param = dl_tensor_data (p);
  args->grad = dl_tensor_data (g);
  for (guint i = 0; i < G_N_ELEMENTS (args->state); i++)
    args->state[i] = i < n_state ? dl_tensor_data (state[i]) : NULL;
  if (args->n > 0)
    ctx->backend->optim_step (ctx, args, param->dtype);
  if (p != param && !dl_inplace_commit (name, param, p, error))
    return FALSE;
  if (p == param)
    dl_storage_bump_version (param->storage);
  return TRUE;
}
