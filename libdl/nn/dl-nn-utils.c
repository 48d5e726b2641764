/* dl-nn-utils.c: torch.nn.utils' gradient clipping and parameter
 * flattening, PyTorch 1.13's arithmetic step by step (in the gradients'
 * dtype) so the norms and the scaled gradients are its numbers:
 *   total = norm (stack (norm (g_i, p)), p)   (max |g| for p = inf)
 *   g_i *= min (max_norm / (total + 1e-6), 1)
 * and weight normalisation's weight, torch._weight_norm:
 *   w = v * (g / ||v||)   (the norm over every dim of v but dim)
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-nn-utils.h"
#include "dl-error.h"
#include "dl-node.h"
#include "dl-node-private.h"
#include "ops/dl-ops-index.h"
#include "ops/dl-ops-join.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-private.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-shape.h"
#include "dl-module-private.h"

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
      DlTensor *f = dl_nn_reshape (parameters[i], (gint64[]){ -1 }, 1, error);
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
      g_autoptr (DlTensor) shaped = part ? dl_nn_reshape (part, shape, nd, error) : NULL;

      ok = shaped && dl_tensor_copy_ (parameters[i], shaped, error);
      offset += n;
    }
  dl_set_grad_enabled (was);
  return ok;
}

/* ---- weight_norm ------------------------------------------------------------ */

/* The saved tensors of WeightNormInterfaceBackward0 (v and g; the norms
 * are computed again from v, so that a recorded backward reaches v
 * through them, as torch's _weight_norm_differentiable_backward). */
typedef struct
{
  DlSavedTensor v, g;
  gint64 dims[DL_MAX_DIMS];
  gsize n_dims;
} WeightNormState;

/* sum (@t) over @dims, keeping them; @t itself for no dims */
static DlTensor *
sum_except (DlTensor *t, const gint64 *dims, gsize n_dims, GError **error)
{
  return n_dims ? dl_tensor_sum_dims (t, dims, n_dims, TRUE, error) : g_object_ref (t);
}

/* the 2-norms of @v over @dims, keeping them; each element's for no dims
 * (a vector's norm along its one dim) */
static DlTensor *
norm_except (DlTensor *v, const gint64 *dims, gsize n_dims, GError **error)
{
  return n_dims ? dl_tensor_norm (v, 2, dims, n_dims, TRUE, error) : dl_tensor_abs (v, error);
}

/* torch's _weight_norm_interface_backward, with s = sum (go * v) over
 * every dim but dim:
 *   grad_v = (g / norms) * (go - v * s / norms^2)
 *   grad_g = s / norms */
static gboolean
weight_norm_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const WeightNormState *st = dl_node_state (node);
  DlTensor *v, *g;
  g_autoptr (DlTensor) norms = NULL;
  g_autoptr (DlTensor) prod = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) s_over = NULL;

  if (!(v = dl_node_saved (node, &st->v, error)) || !(g = dl_node_saved (node, &st->g, error))
      || !(norms = norm_except (v, st->dims, st->n_dims, error))
      || !(prod = dl_tensor_mul (go[0], v, error))
      || !(s = sum_except (prod, st->dims, st->n_dims, error))
      || !(s_over = dl_tensor_div (s, norms, error)))
    return FALSE;
  if (dl_node_needs_input_grad (node, 0))
    {
      g_autoptr (DlTensor) scale = NULL;
      g_autoptr (DlTensor) per = NULL;
      g_autoptr (DlTensor) proj = NULL;
      g_autoptr (DlTensor) rest = NULL;

      if (!(scale = dl_tensor_div (g, norms, error))
          || !(per = dl_tensor_div (s_over, norms, error))
          || !(proj = dl_tensor_mul (v, per, error)) || !(rest = dl_tensor_sub (go[0], proj, error))
          || !(gi[0] = dl_tensor_mul (scale, rest, error)))
        return FALSE;
    }
  if (dl_node_needs_input_grad (node, 1))
    {
      gsize nd;
      const gint64 *shape = dl_tensor_get_shape (g, &nd);

      if (!(gi[1] = dl_nn_reshape (s_over, shape, nd, error)))
        return FALSE;
    }
  return TRUE;
}

/**
 * dl_weight_norm:
 * @v: the direction, a floating-point #DlTensor
 * @g: the magnitude, the shape of the norms of @v over every dim but @dim
 *   (a size-1 dim for each), or a number (0-d) for @dim -1
 * @dim: the dim of @v whose slices are normalised each, or -1 for all of
 *   @v at once
 * @error: return location for a #GError
 *
 * Weight normalisation's weight, v * (g / ||v||), the 2-norm taken over
 * every dim of @v but @dim (over all of it for -1), as torch._weight_norm
 * (what torch.nn.utils.weight_norm computes before each forward). As in
 * PyTorch 1.13, for @dim 0 or the last dim it is one node,
 * WeightNormInterfaceBackward0, differentiable with respect to @v and @g;
 * for other dims it is composed of a norm, a division and a product.
 *
 * Returns: (transfer full): the weight, the shape of @v, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_weight_norm (DlTensor *v, DlTensor *g, gint64 dim, GError **error)
{
  gint64 dims[DL_MAX_DIMS];
  gsize n_dims = 0;
  gint nd;
  gboolean was;
  DlTensor *inputs[2] = { v, g };
  g_autoptr (DlTensor) norms = NULL;
  g_autoptr (DlTensor) ratio = NULL;
  g_autoptr (DlTensor) out = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (v) && DL_IS_TENSOR (g), NULL);
  nd = (gint)dl_tensor_get_ndim (v);
  if (dim == -1)
    {
      /* torch's composite: v * (g / v.norm (2)) */
      if (!(norms = dl_norm_scalar (v, 2, error)) || !(ratio = dl_tensor_div (g, norms, error)))
        return NULL;
      return dl_tensor_mul (v, ratio, error);
    }
  if (dim < -nd || dim >= MAX (nd, 1))
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_INDEX,
          "Dimension out of range (expected to be in range of [%d, %d], but got %" G_GINT64_FORMAT
          ")",
          -MAX (nd, 1), MAX (nd, 1) - 1, dim);
      return NULL;
    }
  if (dim < 0)
    dim += nd;
  for (gint i = 0; i < nd; i++)
    if (i != dim)
      dims[n_dims++] = i;
  if (dim != 0 && dim != nd - 1)
    {
      /* torch's composite for a middle dim: v * (g / norm_except_dim (v)) */
      if (!(norms = dl_tensor_norm (v, 2, dims, n_dims, TRUE, error))
          || !(ratio = dl_tensor_div (g, norms, error)))
        return NULL;
      return dl_tensor_mul (v, ratio, error);
    }
  /* the fused form: computed without history, recorded as one node */
  was = dl_set_grad_enabled (FALSE);
  if ((norms = norm_except (v, dims, n_dims, error)) && (ratio = dl_tensor_div (g, norms, error)))
    out = dl_tensor_mul (v, ratio, error);
  dl_set_grad_enabled (was);
  if (!out)
    return NULL;
  if (dl_dtype_is_floating_point (dl_tensor_get_dtype (out))
      && dl_autograd_any_requires (2, inputs))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("WeightNormInterfaceBackward0", weight_norm_backward, 2, inputs);
      WeightNormState *st = DL_NODE_NEW_STATE (node, WeightNormState);

      memcpy (st->dims, dims, n_dims * sizeof (gint64));
      st->n_dims = n_dims;
      dl_node_save (node, &st->v, v, FALSE);
      dl_node_save (node, &st->g, g, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}
