/* dl-nn-utils.c: torch.nn.utils' gradient clipping and parameter
 * flattening, PyTorch 1.13's arithmetic step by step (in the gradients'
 * dtype) so the norms and the scaled gradients are its numbers:
 *   total = norm (stack (norm (g_i, p)), p)   (max |g| for p = inf)
 *   g_i *= min (max_norm / (total + 1e-6), 1)
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-nn-utils.h"
#include "dl-error.h"
#include "dl-node.h"
#include "ops/dl-ops-join.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-shape.h"

/* the gradients of @parameters that have one (transfer full each) */
static GPtrArray *
collect_grads (DlTensor **parameters, gsize n_parameters)
{
  GPtrArray *grads = g_ptr_array_new_with_free_func (g_object_unref);

  for (gsize i = 0; i < n_parameters; i++)
    {
      DlTensor *g = dl_tensor_get_grad (parameters[i]);
      if (g)
        g_ptr_array_add (grads, dl_tensor_detach (g));
    }
  return grads;
}

/* the norm of one gradient: its p-norm, or max |g| for p = inf */
static DlTensor *
grad_norm (DlTensor *g, gdouble norm_type, GError **error)
{
  g_autoptr (DlTensor) a = NULL;

  if (isinf (norm_type) && norm_type > 0)
    return (a = dl_tensor_abs (g, error)) ? dl_tensor_max (a, error) : NULL;
  return dl_tensor_norm (g, norm_type, NULL, 0, FALSE, error);
}

/**
 * dl_clip_grad_norm_:
 * @parameters: (array length=n_parameters): the parameters; those without
 *   a gradient are skipped
 * @n_parameters: how many
 * @max_norm: the largest norm the gradients keep
 * @norm_type: the order of the norm (2 is PyTorch's default; %INFINITY
 *   for the largest absolute value)
 * @error_if_nonfinite: whether a total norm that is nan or infinite is an
 *   error (the gradients are then left as they are)
 * @error: return location for a #GError
 *
 * Scales the gradients of @parameters in place so that their total norm
 * (the norm of the vector of all of them) is at most @max_norm, as
 * torch.nn.utils.clip_grad_norm_.
 *
 * Returns: (transfer full): the total norm before clipping (0-d), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_clip_grad_norm_ (DlTensor **parameters,
                    gsize n_parameters,
                    gdouble max_norm,
                    gdouble norm_type,
                    gboolean error_if_nonfinite,
                    GError **error)
{
  g_autoptr (GPtrArray) grads = collect_grads (parameters, n_parameters);
  g_autoptr (GPtrArray) norms = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlTensor) stacked = NULL;
  g_autoptr (DlTensor) total = NULL;
  g_autoptr (DlTensor) shifted = NULL;
  g_autoptr (DlTensor) coef = NULL;
  g_autoptr (DlTensor) clamped = NULL;
  gboolean was;
  gdouble value;

  if (grads->len == 0)
    return dl_tensor_new_scalar (0.0, DL_DTYPE_FLOAT32);
  was = dl_set_grad_enabled (FALSE);
  for (guint i = 0; i < grads->len; i++)
    {
      DlTensor *n = grad_norm (g_ptr_array_index (grads, i), norm_type, error);
      if (!n)
        goto out;
      g_ptr_array_add (norms, n);
    }
  if (!(stacked = dl_stack ((DlTensor **)norms->pdata, norms->len, 0, error))
      || !(total = grad_norm (stacked, norm_type, error)))
    goto out;
  value = dl_tensor_item (total, NULL);
  if (error_if_nonfinite && !isfinite (value))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "The total norm of order %g for gradients from `parameters` is non-finite, "
                   "so it cannot be clipped. To disable this error and scale the gradients by "
                   "the non-finite norm anyway, set `error_if_nonfinite=False`",
                   norm_type);
      g_clear_object (&total);
      goto out;
    }
  if (!(shifted = dl_tensor_add_scalar (total, 1e-6, error))
      || !(coef = dl_tensor_rdiv_scalar (shifted, max_norm, error))
      || !(clamped = dl_tensor_clamp_scalar (coef, -INFINITY, 1.0, error)))
    {
      g_clear_object (&total);
      goto out;
    }
  for (guint i = 0; i < grads->len; i++)
    if (!dl_tensor_mul_ (g_ptr_array_index (grads, i), clamped, error))
      {
        g_clear_object (&total);
        goto out;
      }
out:
  dl_set_grad_enabled (was);
  return g_steal_pointer (&total);
}

/**
 * dl_clip_grad_value_:
 * @parameters: (array length=n_parameters): the parameters; those without
 *   a gradient are skipped
 * @n_parameters: how many
 * @clip_value: the bound: each gradient is clamped to [-@clip_value,
 *   @clip_value]
 * @error: return location for a #GError
 *
 * Clamps the gradients of @parameters in place, as
 * torch.nn.utils.clip_grad_value_.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_clip_grad_value_ (DlTensor **parameters, gsize n_parameters, gdouble clip_value, GError **error)
{
  g_autoptr (GPtrArray) grads = collect_grads (parameters, n_parameters);
  gboolean was = dl_set_grad_enabled (FALSE);
  gboolean ok = TRUE;

  for (guint i = 0; ok && i < grads->len; i++)
    ok = dl_tensor_clamp_scalar_ (g_ptr_array_index (grads, i), -clip_value, clip_value, error)
         != NULL;
  dl_set_grad_enabled (was);
  return ok;
}

/**
 * dl_parameters_to_vector:
 * @parameters: (array length=n_parameters): the parameters
 * @n_parameters: how many, at least one
 * @error: return location for a #GError
 *
 * The parameters flattened and joined into one vector, as
 * torch.nn.utils.parameters_to_vector (differentiable).
 *
 * Returns: (transfer full): the vector, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_parameters_to_vector (DlTensor **parameters, gsize n_parameters, GError **error)
{
  g_autoptr (GPtrArray) flat = g_ptr_array_new_with_free_func (g_object_unref);

  if (n_parameters == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "parameters_to_vector: expected a non-empty list of parameters");
      return NULL;
    }
  for (gsize i = 0; i < n_parameters; i++)
    {
      DlTensor *f = dl_tensor_reshape (parameters[i], (gint64[]){ -1 }, 1, error);
      if (!f)
        return NULL;
      g_ptr_array_add (flat, f);
    }
  return dl_cat ((DlTensor **)flat->pdata, flat->len, 0, error);
}

/**
 * dl_vector_to_parameters:
 * @vec: a vector of as many elements as the parameters hold together
 * @parameters: (array length=n_parameters): the parameters
 * @n_parameters: how many
 * @error: return location for a #GError
 *
 * Copies the consecutive slices of @vec into @parameters, outside
 * autograd, as torch.nn.utils.vector_to_parameters.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_vector_to_parameters (DlTensor *vec, DlTensor **parameters, gsize n_parameters, GError **error)
{
  gint64 total = 0, offset = 0;
  gboolean was, ok = TRUE;

  g_return_val_if_fail (DL_IS_TENSOR (vec), FALSE);
  for (gsize i = 0; i < n_parameters; i++)
    total += dl_tensor_numel (parameters[i]);
  if (dl_tensor_get_ndim (vec) != 1 || dl_tensor_numel (vec) != total)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "vector_to_parameters: expected a vector of %" G_GINT64_FORMAT
                   " elements, got %" G_GINT64_FORMAT " in %d dims",
                   total, dl_tensor_numel (vec), dl_tensor_get_ndim (vec));
      return FALSE;
    }
  was = dl_set_grad_enabled (FALSE);
  for (gsize i = 0; ok && i < n_parameters; i++)
    {
      gsize nd;
      const gint64 *shape = dl_tensor_get_shape (parameters[i], &nd);
      gint64 n = dl_tensor_numel (parameters[i]);
      g_autoptr (DlTensor) part = dl_tensor_narrow (vec, 0, offset, n, error);
      g_autoptr (DlTensor) shaped = part ? dl_tensor_reshape (part, shape, nd, error) : NULL;

      ok = shaped && dl_tensor_copy_ (parameters[i], shaped, error);
      offset += n;
    }
  dl_set_grad_enabled (was);
  return ok;
}
