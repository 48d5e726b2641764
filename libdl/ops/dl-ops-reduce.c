/* dl-ops-reduce.c: sum, mean, max, min, argmax, argmin, prod, amax, amin,
 * all, any and nansum over all dims or a set of dims, and their gradients.
 * (var, std, norm, logsumexp and nanmean, composites, are in
 * dl-ops-stats.c.)
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-reduce-private.h"

/* Merges adjacent dims of a strided nest where every array is contiguous
 * across them; drops size-1 dims. */
static gint
coalesce (gint ndim, gint64 *shape, gint n_arrays, gint64 **strides)
{
  gint out = -1;

  for (gint i = 0; i < ndim; i++)
    {
      gboolean can = out >= 0;

      if (shape[i] == 1)
        continue;
      for (gint k = 0; k < n_arrays && can; k++)
        can = strides[k][out] == strides[k][i] * shape[i];
      if (can)
        {
          shape[out] *= shape[i];
          for (gint k = 0; k < n_arrays; k++)
            strides[k][out] = strides[k][i];
        }
      else
        {
          out++;
          shape[out] = shape[i];
          for (gint k = 0; k < n_arrays; k++)
            strides[k][out] = strides[k][i];
        }
    }
  if (out < 0)
    {
      shape[0] = 1;
      for (gint k = 0; k < n_arrays; k++)
        strides[k][0] = 0;
      return 1;
    }
  return out + 1;
}

/* Parses @dims into a mask; an empty list means all dims. */
static gboolean
dims_mask (const gchar *op,
           DlTensor *self,
           const gint64 *dims,
           gsize n,
           gboolean *mask,
           GError **error)
{
  gboolean seen_0d = FALSE;

  if (!dl_check_live (op, self, error))
    return FALSE;
  for (gint i = 0; i < DL_MAX_DIMS; i++)
    mask[i] = n == 0;
  for (gsize i = 0; i < n; i++)
    {
      gint64 d = dims[i];
      if (!dl_normalize_dim (op, &d, self->ndim, error))
        return FALSE;
      /* a 0-d tensor has no dim to mark, but takes 0 and -1 once */
      if (self->ndim == 0 ? seen_0d : mask[d])
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: dim %" G_GINT64_FORMAT " appears multiple times in the list of dims",
                       op, d);
          return FALSE;
        }
      if (self->ndim == 0)
        seen_0d = TRUE;
      else
        mask[d] = TRUE;
    }
  return TRUE;
}

gboolean
dl_reduce_check_nonempty (const gchar *op, DlTensor *self, gint dim, GError **error)
{
  if (!dl_check_live (op, self, error))
    return FALSE;
  if (self->ndim == 0 || self->sizes[dim] != 0)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
               "%s: Expected reduction dim %d to have non-zero size.", op, dim);
  return FALSE;
}

gboolean
dl_reduce_dims_mask (const gchar *op,
                     DlTensor *self,
                     const gint64 *dims,
                     gsize n,
                     gboolean *mask,
                     GError **error)
{
  return dims_mask (op, self, dims, n, mask, error);
}

/* Runs the backend reduction of @x over the dims in @mask into new tensors. */
static DlTensor *
reduce_raw (DlReduceOp op,
            DlTensor *x,
            const gboolean *mask,
            gboolean keepdim,
            DlDType out_dtype,
            DlTensor **indices_out,
            GError **error)
{
  gint64 out_shape[DL_MAX_DIMS];
  gint out_ndim = 0;
  DlReduceArgs args = { 0 };
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) indices = NULL;
  g_autoptr (DlTensor) cx = NULL;
  gint64 es;
  gint64 *outer_strides[3], *inner_strides[1];
  gint n_outer_arrays;
  DlBackendContext *ctx;

  if (!(ctx = DL_TENSOR_BACKEND (x, reduce, "reduce", error)))
    return NULL;
  /* half types reduce through float32 */
  if ((x->dtype == DL_DTYPE_FLOAT16 || x->dtype == DL_DTYPE_BFLOAT16) && op != DL_REDUCE_ALL
      && op != DL_REDUCE_ANY)
    {
      g_autoptr (DlTensor) f = NULL;
      g_autoptr (DlTensor) r = NULL;
      if (!(f = dl_cast_nograd (x, DL_DTYPE_FLOAT32, error))
          || !(r = reduce_raw (op, f, mask, keepdim, DL_DTYPE_FLOAT32, indices_out, error)))
        return NULL;
      return dl_cast_nograd (r, out_dtype, error);
    }
  cx = g_object_ref (x);
  es = dl_dtype_size (x->dtype);
  for (gint i = 0; i < x->ndim; i++)
    {
      if (!mask[i])
        out_shape[out_ndim++] = x->sizes[i];
      else if (keepdim)
        out_shape[out_ndim++] = 1;
    }
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (x), out_dtype, out_shape, out_ndim,
                                            error)))
    return NULL;
  if (indices_out
      && !(indices = dl_tensor_new_empty_internal (dl_tensor_device (x), DL_DTYPE_INT64, out_shape,
                                                   out_ndim, error)))
    return NULL;

  /* outer dims: the kept ones, with the output's strides */
  {
    gint64 ostride[DL_MAX_DIMS];
    gint64 s = 1, oes = dl_dtype_size (out_dtype);
    gint k = 0;

    /* contiguous output strides over the kept dims, innermost last */
    for (gint i = x->ndim - 1; i >= 0; i--)
      if (!mask[i])
        {
          ostride[i] = s;
          s *= x->sizes[i];
        }
    for (gint i = 0; i < x->ndim; i++)
      if (!mask[i])
        {
          args.outer_shape[k] = x->sizes[i];
          args.in_outer_strides[k] = x->strides[i] * es;
          args.out_strides[k] = ostride[i] * oes;
          args.indices_strides[k] = ostride[i] * 8;
          k++;
        }
    args.outer_ndim = k;
    outer_strides[0] = args.in_outer_strides;
    outer_strides[1] = args.out_strides;
    outer_strides[2] = args.indices_strides;
    n_outer_arrays = 3;
    if (k > 0)
      args.outer_ndim = coalesce (k, args.outer_shape, n_outer_arrays, outer_strides);
    k = 0;
    for (gint i = 0; i < x->ndim; i++)
      if (mask[i])
        {
          args.inner_shape[k] = x->sizes[i];
          args.in_inner_strides[k] = x->strides[i] * es;
          k++;
        }
    inner_strides[0] = args.in_inner_strides;
    args.inner_ndim = coalesce (k, args.inner_shape, 1, inner_strides);
    if (k == 0)
      {
        args.inner_ndim = 1;
        args.inner_shape[0] = 1;
        args.in_inner_strides[0] = es;
      }
  }
  args.in = dl_tensor_data (cx);
  args.out = dl_tensor_data (out);
  args.indices = indices ? dl_tensor_data (indices) : NULL;
  ctx->backend->reduce (ctx, op, &args, x->dtype);
  if (indices_out)
    *indices_out = g_steal_pointer (&indices);
  return g_steal_pointer (&out);
}

DlTensor *
dl_sum_to (DlTensor *grad, const gint64 *shape, gint ndim, GError **error)
{
  gint64 dims[DL_MAX_DIMS];
  gint n = 0, lead = grad->ndim - ndim;
  g_autoptr (DlTensor) s = NULL;

  if (grad->ndim == ndim && memcmp (grad->sizes, shape, ndim * sizeof (gint64)) == 0)
    return g_object_ref (grad);
  for (gint i = 0; i < grad->ndim; i++)
    if (i < lead || (shape[i - lead] == 1 && grad->sizes[i] != 1))
      dims[n++] = i;
  if (n == 0)
    return dl_reshape_view (grad, shape, ndim, error);
  if (!(s = dl_tensor_sum_dims (grad, dims, n, TRUE, error)))
    return NULL;
  return dl_reshape_view (s, shape, ndim, error);
}

/* Gradient of a sum/mean: the output gradient broadcast back. */
static gboolean
sum_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlInputMeta *in = &dl_node_data (node)->inputs[0];
  const DlReduceState *s = dl_node_state (node);
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) e = NULL;

  if (!(g = dl_reduce_node_keepdim (node, go[0], error)))
    return FALSE;
  if (!(e = dl_tensor_expand (g, in->sizes, in->ndim, error)))
    return FALSE;
  if (s->mean)
    gi[0] = dl_tensor_mul_scalar (e, s->param, error);
  else
    gi[0] = dl_tensor_contiguous (e, error);
  return gi[0] != NULL;
}

static DlTensor *
sum_mean (gboolean mean,
          DlTensor *self,
          const gint64 *dims,
          gsize n,
          gboolean keepdim,
          GError **error)
{
  const gchar *op = mean ? "mean" : "sum";
  gboolean mask[DL_MAX_DIMS];
  DlDType out_dtype = self->dtype;
  DlTensor *out;
  gint64 count = 1;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dims_mask (op, self, dims, n, mask, error))
    return NULL;
  if (!dl_dtype_is_float (self->dtype))
    {
      if (mean)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                       "mean: could not infer output dtype. Input dtype must be either a "
                       "floating point or complex dtype. Got: %s",
                       dl_dtype_get_name (self->dtype));
          return NULL;
        }
      out_dtype = DL_DTYPE_INT64;
    }
  for (gint i = 0; i < self->ndim; i++)
    if (mask[i])
      count *= self->sizes[i];
  if (!(out = reduce_raw (mean ? DL_REDUCE_MEAN : DL_REDUCE_SUM, self, mask, keepdim, out_dtype,
                          NULL, error)))
    return NULL;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (mean ? (n ? "MeanBackward1" : "MeanBackward0")
                                                         : (n ? "SumBackward1" : "SumBackward0"),
                                                    sum_backward, 1, &self);
      DlReduceState *s = dl_reduce_state_new (node, self->ndim, keepdim, mask);

      s->mean = mean;
      s->param = 1.0 / count;
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_sum:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * The sum of all elements, as a 0-d tensor. Integer and bool tensors sum
 * to int64.
 *
 * Returns: (transfer full): the sum, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_sum (DlTensor *self, GError **error)
{
  return sum_mean (FALSE, self, NULL, 0, FALSE, error);
}

/**
 * dl_tensor_sum_dims:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * Sums over the given dims.
 *
 * Returns: (transfer full): the sums, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_sum_dims (DlTensor *self,
                    const gint64 *dims,
                    gsize n_dims,
                    gboolean keepdim,
                    GError **error)
{
  return sum_mean (FALSE, self, dims, n_dims, keepdim, error);
}

/**
 * dl_tensor_mean:
 * @self: a floating-point #DlTensor
 * @error: return location for a #GError
 *
 * Averages all the elements into a 0-d tensor, as `torch.mean (self)`.
 * Differentiable.
 *
 * Fails with %DL_ERROR_DTYPE for an integer or bool tensor.
 *
 * Returns: (transfer full): the mean of all elements as a 0-d tensor, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_mean (DlTensor *self, GError **error)
{
  return sum_mean (TRUE, self, NULL, 0, FALSE, error);
}

/**
 * dl_tensor_mean_dims:
 * @self: a floating-point #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * Averages over the given dims.
 *
 * Returns: (transfer full): the means, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_mean_dims (DlTensor *self,
                     const gint64 *dims,
                     gsize n_dims,
                     gboolean keepdim,
                     GError **error)
{
  return sum_mean (TRUE, self, dims, n_dims, keepdim, error);
}

/* max()/min() (and median()) over everything: the gradient is spread
 * evenly over the elements equal to the saved result. */
gboolean
dl_reduce_evenly_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const DlReduceState *s = dl_node_state (node);
  DlTensor *x, *out;
  g_autoptr (DlTensor) eq = NULL;
  g_autoptr (DlTensor) mask = NULL;
  g_autoptr (DlTensor) count = NULL;
  g_autoptr (DlTensor) share = NULL;

  if (!(x = dl_node_saved (node, &s->input, error))
      || !(out = dl_node_saved (node, &s->output, error)))
    return FALSE;
  if (!(eq = dl_tensor_eq (x, out, error)) || !(mask = dl_tensor_to_dtype (eq, go[0]->dtype, error))
      || !(count = dl_tensor_sum (mask, error)) || !(share = dl_tensor_div (go[0], count, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (mask, share, error);
  return gi[0] != NULL;
}

static DlTensor *
extremum_all (DlReduceOp op, DlTensor *self, GError **error)
{
  const gchar *name = op == DL_REDUCE_MAX ? "max" : "min";
  gboolean mask[DL_MAX_DIMS];
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live (name, self, error))
    return NULL;
  if (self->numel == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument.",
                   name);
      return NULL;
    }
  dims_mask (name, self, NULL, 0, mask, NULL);
  if (!(out = reduce_raw (op, self, mask, FALSE, self->dtype, NULL, error)))
    return NULL;
  if (dl_dtype_is_float (self->dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op (op == DL_REDUCE_MAX ? "MaxBackward1" : "MinBackward1",
                                dl_reduce_evenly_backward, 1, &self);
      DlReduceState *s = dl_reduce_state_new (node, self->ndim, FALSE, mask);

      dl_node_save (node, &s->input, self, FALSE);
      dl_node_save (node, &s->output, out, TRUE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_max:
 * @self: a non-empty #DlTensor
 * @error: return location for a #GError
 *
 * Gives the largest element as a 0-d tensor, as `torch.max (self)`. A NaN
 * anywhere makes the result NaN. Differentiable: the gradient is shared
 * evenly among tied maxima. dl_tensor_argmax() gives the position instead.
 *
 * Fails with %DL_ERROR_ARGUMENT for an empty tensor.
 *
 * Returns: (transfer full): the largest element as a 0-d tensor (NaN if
 *   any), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_max (DlTensor *self, GError **error)
{
  return extremum_all (DL_REDUCE_MAX, self, error);
}

/**
 * dl_tensor_min:
 * @self: a non-empty #DlTensor
 * @error: return location for a #GError
 *
 * Gives the smallest element as a 0-d tensor, as `torch.min (self)`. A NaN
 * anywhere makes the result NaN. Differentiable: the gradient is shared
 * evenly among tied minima. dl_tensor_argmin() gives the position instead.
 *
 * Fails with %DL_ERROR_ARGUMENT for an empty tensor.
 *
 * Returns: (transfer full): the smallest element as a 0-d tensor (NaN if
 *   any), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_min (DlTensor *self, GError **error)
{
  return extremum_all (DL_REDUCE_MIN, self, error);
}

typedef struct
{
  gint dim;
  gboolean keepdim;
  DlSavedTensor indices;
} ExtremumDimState;

/* max(dim)/min(dim): the gradient goes to the position of the index. */
static gboolean
extremum_dim_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlInputMeta *in = &dl_node_data (node)->inputs[0];
  const ExtremumDimState *s = dl_node_state (node);
  gint dim = s->dim;
  gboolean keepdim = s->keepdim;
  DlTensor *idx;
  gint64 ashape[DL_MAX_DIMS];
  g_autoptr (DlTensor) ar = NULL;
  g_autoptr (DlTensor) arv = NULL;
  g_autoptr (DlTensor) idxk = NULL;
  g_autoptr (DlTensor) gk = NULL;
  g_autoptr (DlTensor) hit = NULL;
  g_autoptr (DlTensor) mask = NULL;

  if (!(idx = dl_node_saved (node, &s->indices, error)))
    return FALSE;
  /* mask[..., j, ...] = (j == indices[...]) along dim */
  for (gint i = 0; i < in->ndim; i++)
    ashape[i] = i == dim ? in->sizes[i] : 1;
  if (!(ar = dl_arange (0, in->sizes[dim], 1, DL_DTYPE_INT64, NULL, error))
      || !(arv = dl_reshape_view (ar, ashape, in->ndim, error)))
    return FALSE;
  if (!(idxk = keepdim ? g_object_ref (idx) : dl_tensor_unsqueeze (idx, dim, error))
      || !(gk = keepdim ? g_object_ref (go[0]) : dl_tensor_unsqueeze (go[0], dim, error)))
    return FALSE;
  if (!(hit = dl_tensor_eq (arv, idxk, error))
      || !(mask = dl_tensor_to_dtype (hit, go[0]->dtype, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (gk, mask, error);
  return gi[0] != NULL;
}

static DlTensor *
extremum_dim (DlReduceOp op,
              DlTensor *self,
              gint64 dim,
              gboolean keepdim,
              DlTensor **indices,
              GError **error)
{
  const gchar *name = op == DL_REDUCE_MAX ? "max" : "min";
  gboolean mask[DL_MAX_DIMS] = { FALSE };
  g_autoptr (DlTensor) idx = NULL;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_normalize_dim (name, &dim, self->ndim, error)
      || !dl_reduce_check_nonempty (name, self, dim, error))
    return NULL;
  if (self->ndim > 0)
    mask[dim] = TRUE;
  if (!(out = reduce_raw (op, self, mask, keepdim, self->dtype, &idx, error)))
    return NULL;
  if (dl_dtype_is_float (self->dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (
          op == DL_REDUCE_MAX ? "MaxBackward0" : "MinBackward0", extremum_dim_backward, 1, &self);
      ExtremumDimState *s = DL_NODE_NEW_STATE (node, ExtremumDimState);

      s->dim = dim;
      s->keepdim = keepdim || self->ndim == 0;
      dl_node_save (node, &s->indices, idx, TRUE);
      dl_node_set_output (node, out, 0);
    }
  if (indices)
    *indices = g_steal_pointer (&idx);
  return out;
}

/**
 * dl_tensor_max_dim:
 * @self: a #DlTensor
 * @dim: the dim to reduce
 * @keepdim: whether to keep @dim with size 1
 * @indices: (out) (optional) (transfer full): where to store the int64
 *   positions of the maxima along @dim
 * @error: return location for a #GError
 *
 * The largest value along @dim and where it is (the first, on ties).
 *
 * Returns: (transfer full): the values, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_max_dim (DlTensor *self, gint64 dim, gboolean keepdim, DlTensor **indices, GError **error)
{
  return extremum_dim (DL_REDUCE_MAX, self, dim, keepdim, indices, error);
}

/**
 * dl_tensor_min_dim:
 * @self: a #DlTensor
 * @dim: the dim to reduce
 * @keepdim: whether to keep @dim with size 1
 * @indices: (out) (optional) (transfer full): where to store the int64
 *   positions of the minima along @dim
 * @error: return location for a #GError
 *
 * The smallest value along @dim and where it is (the first, on ties).
 *
 * Returns: (transfer full): the values, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_min_dim (DlTensor *self, gint64 dim, gboolean keepdim, DlTensor **indices, GError **error)
{
  return extremum_dim (DL_REDUCE_MIN, self, dim, keepdim, indices, error);
}

/**
 * dl_tensor_argmax:
 * @self: a #DlTensor
 * @dim: the dim to reduce
 * @keepdim: whether to keep @dim with size 1
 * @error: return location for a #GError
 *
 * Gives the index of the largest element along @dim, as `torch.argmax (self,
 * dim, keepdim)`; with ties, the first. The result is int64, has @dim
 * removed (kept with size 1 when @keepdim is %TRUE) and does not require
 * grad.
 *
 * Fails with %DL_ERROR_INDEX when @dim is out of range or has size 0.
 *
 * Returns: (transfer full): the int64 positions of the maxima along @dim,
 *   or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_argmax (DlTensor *self, gint64 dim, gboolean keepdim, GError **error)
{
  DlTensor *idx = NULL;
  gboolean was = dl_set_grad_enabled (FALSE);
  g_autoptr (DlTensor) v = extremum_dim (DL_REDUCE_MAX, self, dim, keepdim, &idx, error);

  dl_set_grad_enabled (was);
  return v ? idx : NULL;
}

/**
 * dl_tensor_argmin:
 * @self: a #DlTensor
 * @dim: the dim to reduce
 * @keepdim: whether to keep @dim with size 1
 * @error: return location for a #GError
 *
 * Gives the index of the smallest element along @dim, as `torch.argmin
 * (self, dim, keepdim)`; with ties, the first. The result is int64, has @dim
 * removed (kept with size 1 when @keepdim is %TRUE) and does not require
 * grad.
 *
 * Fails with %DL_ERROR_INDEX when @dim is out of range or has size 0.
 *
 * Returns: (transfer full): the int64 positions of the minima along @dim,
 *   or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_argmin (DlTensor *self, gint64 dim, gboolean keepdim, GError **error)
{
  DlTensor *idx = NULL;
  gboolean was = dl_set_grad_enabled (FALSE);
  g_autoptr (DlTensor) v = extremum_dim (DL_REDUCE_MIN, self, dim, keepdim, &idx, error);

  dl_set_grad_enabled (was);
  return v ? idx : NULL;
}

/* ---- prod, amax, amin, all, any, nansum -------------------------------------- */

/* The node state shared by the reductions below and dl-ops-stats.c. */
DlReduceState *
dl_reduce_state_new (DlNode *node, gint ndim, gboolean keepdim, const gboolean *mask)
{
  DlReduceState *s = DL_NODE_NEW_STATE (node, DlReduceState);

  s->keepdim = keepdim;
  for (gint i = 0; i < ndim; i++)
    s->mask[i] = mask[i];
  return s;
}

gint
dl_reduce_node_dims (DlNode *node, gint64 *dims)
{
  const DlReduceState *s = dl_node_state (node);
  gint n = 0;

  for (gint i = 0; i < dl_node_data (node)->inputs[0].ndim; i++)
    if (s->mask[i])
      dims[n++] = i;
  return n;
}

DlTensor *
dl_reduce_node_keepdim (DlNode *node, DlTensor *t, GError **error)
{
  const DlReduceState *s = dl_node_state (node);
  DlInputMeta *in = &dl_node_data (node)->inputs[0];
  gint64 kshape[DL_MAX_DIMS];

  if (s->keepdim)
    return g_object_ref (t);
  for (gint i = 0; i < in->ndim; i++)
    kshape[i] = s->mask[i] ? 1 : in->sizes[i];
  return dl_reshape_view (t, kshape, in->ndim, error);
}

static DlTensor *
mask_as (DlTensor *bool_t, DlDType dtype, GError **error)
{
  g_autoptr (DlTensor) b = bool_t;

  return b ? dl_tensor_to_dtype (b, dtype, error) : NULL;
}

/* d prod / d x_i = the product of the others: prod / x_i without zeros;
 * with exactly one zero, the product of the nonzeros at the zero, else 0. */
/* The product of the other values reduced with each element of @x (over
 * @dims), as exclusive cumulative products from both ends, PyTorch's
 * prod_safe_zeros_backward: no division, so its own gradient is right
 * where x has zeros too. For create_graph; @x has elements and dims. */
static DlTensor *
prod_of_others (DlTensor *x, const gint64 *dims, gint n, GError **error)
{
  gint64 perm[DL_MAX_DIMS], inv[DL_MAX_DIMS], last;
  gint m = 0;
  gint64 flat[DL_MAX_DIMS], one_shape[DL_MAX_DIMS], k = 1;
  gboolean reduced[DL_MAX_DIMS] = { FALSE };
  g_autoptr (DlTensor) xp = NULL;
  g_autoptr (DlTensor) xf = NULL;
  g_autoptr (DlTensor) ones = NULL;
  g_autoptr (DlTensor) head = NULL;
  g_autoptr (DlTensor) tail = NULL;
  g_autoptr (DlTensor) tail_r = NULL;
  g_autoptr (DlTensor) fwd_in = NULL;
  g_autoptr (DlTensor) bwd_in = NULL;
  g_autoptr (DlTensor) fwd = NULL;
  g_autoptr (DlTensor) bwd_r = NULL;
  g_autoptr (DlTensor) bwd = NULL;
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) rp = NULL;

  for (gint i = 0; i < n; i++)
    reduced[dims[i]] = TRUE;
  for (gint i = 0; i < x->ndim; i++)
    if (!reduced[i])
      {
        perm[m] = i;
        flat[m] = one_shape[m] = x->sizes[i];
        m++;
      }
  last = m;
  for (gint i = 0, j = m; i < x->ndim; i++)
    if (reduced[i])
      {
        perm[j++] = i;
        k *= x->sizes[i];
      }
  for (gint i = 0; i < x->ndim; i++)
    inv[perm[i]] = i;
  flat[last] = k;
  one_shape[last] = 1;
  if (!(xp = dl_tensor_permute (x, perm, x->ndim, error))
      || !(xf = dl_reshape_view (xp, flat, last + 1, error))
      || !(ones = dl_ones (one_shape, last + 1, x->dtype, dl_tensor_get_device (x), error))
      || !(head = dl_tensor_narrow (xf, last, 0, k - 1, error))
      || !(tail = dl_tensor_narrow (xf, last, 1, k - 1, error))
      || !(tail_r = dl_tensor_flip (tail, &last, 1, error))
      || !(fwd_in = dl_cat ((DlTensor *[]){ ones, head }, 2, last, error))
      || !(bwd_in = dl_cat ((DlTensor *[]){ ones, tail_r }, 2, last, error))
      || !(fwd = dl_tensor_cumprod (fwd_in, last, error))
      || !(bwd_r = dl_tensor_cumprod (bwd_in, last, error))
      || !(bwd = dl_tensor_flip (bwd_r, &last, 1, error)) || !(r = dl_tensor_mul (fwd, bwd, error))
      || !(rp = dl_reshape_view (r, xp->sizes, x->ndim, error)))
    return NULL;
  return dl_tensor_permute (rp, inv, x->ndim, error);
}

static gboolean
prod_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const DlReduceState *s = dl_node_state (node);
  gint64 dims[DL_MAX_DIMS];
  gint n = dl_reduce_node_dims (node, dims);
  DlTensor *x;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) nz = NULL;
  g_autoptr (DlTensor) x1 = NULL;
  g_autoptr (DlTensor) p1 = NULL;
  g_autoptr (DlTensor) none = NULL;
  g_autoptr (DlTensor) one = NULL;
  g_autoptr (DlTensor) q = NULL;
  g_autoptr (DlTensor) t0 = NULL;
  g_autoptr (DlTensor) zp = NULL;
  g_autoptr (DlTensor) t1 = NULL;
  g_autoptr (DlTensor) sum = NULL;

  if (!(x = dl_node_saved (node, &s->input, error))
      || !(g = dl_reduce_node_keepdim (node, go[0], error)))
    return FALSE;
  if (x->ndim > 0 && x->numel > 0 && dl_autograd_any_requires (2, (DlTensor *[]){ g, x }))
    {
      /* create_graph: a formula whose gradient is right at zeros too */
      g_autoptr (DlTensor) others = prod_of_others (x, dims, n, error);

      gi[0] = others ? dl_tensor_mul (g, others, error) : NULL;
      return gi[0] != NULL;
    }
  if (!(z = mask_as (dl_tensor_eq_scalar (x, 0, error), x->dtype, error))
      || !(nz = dl_tensor_sum_dims (z, dims, n, TRUE, error)) || !(x1 = dl_tensor_add (x, z, error))
      || !(p1 = dl_tensor_prod_dims (x1, dims, n, TRUE, error))
      || !(none = mask_as (dl_tensor_eq_scalar (nz, 0, error), x->dtype, error))
      || !(one = mask_as (dl_tensor_eq_scalar (nz, 1, error), x->dtype, error))
      || !(q = dl_tensor_div (p1, x1, error)) || !(t0 = dl_tensor_mul (q, none, error))
      || !(zp = dl_tensor_mul (z, p1, error)) || !(t1 = dl_tensor_mul (zp, one, error))
      || !(sum = dl_tensor_add (t0, t1, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (g, sum, error);
  return gi[0] != NULL;
}

/**
 * dl_tensor_prod_dims:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * The product over the given dims. Integer and bool tensors multiply to
 * int64; the product of nothing is 1.
 *
 * Returns: (transfer full): the products, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_prod_dims (DlTensor *self,
                     const gint64 *dims,
                     gsize n_dims,
                     gboolean keepdim,
                     GError **error)
{
  gboolean mask[DL_MAX_DIMS];
  DlDType out_dtype;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dims_mask ("prod", self, dims, n_dims, mask, error))
    return NULL;
  out_dtype = dl_dtype_is_float (self->dtype) ? self->dtype : DL_DTYPE_INT64;
  if (!(out = reduce_raw (DL_REDUCE_PROD, self, mask, keepdim, out_dtype, NULL, error)))
    return NULL;
  if (dl_dtype_is_float (self->dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (n_dims ? "ProdBackward1" : "ProdBackward0",
                                                    prod_backward, 1, &self);
      DlReduceState *s = dl_reduce_state_new (node, self->ndim, keepdim, mask);

      dl_node_save (node, &s->input, self, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_prod:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Multiplies all the elements into a 0-d tensor, as `torch.prod (self)`; 1
 * for an empty tensor. Integer and bool tensors give an int64 result, as in
 * PyTorch. Differentiable for floating-point tensors.
 *
 * Returns: (transfer full): the product of all elements as a 0-d tensor
 *   (int64 for integer and bool tensors), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_prod (DlTensor *self, GError **error)
{
  return dl_tensor_prod_dims (self, NULL, 0, FALSE, error);
}

/* amax/amin: the gradient is spread evenly over the tied extrema. */
static gboolean
amax_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const DlReduceState *s = dl_node_state (node);
  gint64 dims[DL_MAX_DIMS];
  gint n = dl_reduce_node_dims (node, dims);
  DlTensor *x, *out;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) ok = NULL;
  g_autoptr (DlTensor) mask = NULL;
  g_autoptr (DlTensor) count = NULL;
  g_autoptr (DlTensor) share = NULL;

  if (!(x = dl_node_saved (node, &s->input, error))
      || !(out = dl_node_saved (node, &s->output, error)))
    return FALSE;
  if (!(g = dl_reduce_node_keepdim (node, go[0], error))
      || !(ok = dl_reduce_node_keepdim (node, out, error)))
    return FALSE;
  if (!(mask = mask_as (dl_tensor_eq (x, ok, error), go[0]->dtype, error))
      || !(count = dl_tensor_sum_dims (mask, dims, n, TRUE, error))
      || !(share = dl_tensor_div (g, count, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (mask, share, error);
  return gi[0] != NULL;
}

static DlTensor *
amax_amin (DlReduceOp op,
           DlTensor *self,
           const gint64 *dims,
           gsize n,
           gboolean keepdim,
           GError **error)
{
  const gchar *name = op == DL_REDUCE_MAX ? "amax" : "amin";
  gboolean mask[DL_MAX_DIMS];
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  /* as PyTorch: a dim of size 0 is reported before a repeated one */
  for (gsize i = 0; i < n; i++)
    {
      gint64 d = dims[i] < 0 ? dims[i] + self->ndim : dims[i];

      if (d >= 0 && d < self->ndim && !dl_reduce_check_nonempty (name, self, d, error))
        return NULL;
    }
  if (!dims_mask (name, self, dims, n, mask, error))
    return NULL;
  if (n == 0 && self->numel == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument.",
                   name);
      return NULL;
    }
  if (!(out = reduce_raw (op, self, mask, keepdim, self->dtype, NULL, error)))
    return NULL;
  if (dl_dtype_is_float (self->dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (
          op == DL_REDUCE_MAX ? "AmaxBackward0" : "AminBackward0", amax_backward, 1, &self);

      DlReduceState *s = dl_reduce_state_new (node, self->ndim, keepdim, mask);

      dl_node_save (node, &s->input, self, FALSE);
      dl_node_save (node, &s->output, out, TRUE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_amax:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * The largest values over the given dims (NaN if any). The gradient is
 * shared evenly by the elements equal to the maximum.
 *
 * Returns: (transfer full): the maxima, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_amax (DlTensor *self, const gint64 *dims, gsize n_dims, gboolean keepdim, GError **error)
{
  return amax_amin (DL_REDUCE_MAX, self, dims, n_dims, keepdim, error);
}

/**
 * dl_tensor_amin:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * The smallest values over the given dims (NaN if any). The gradient is
 * shared evenly by the elements equal to the minimum.
 *
 * Returns: (transfer full): the minima, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_amin (DlTensor *self, const gint64 *dims, gsize n_dims, gboolean keepdim, GError **error)
{
  return amax_amin (DL_REDUCE_MIN, self, dims, n_dims, keepdim, error);
}

static DlTensor *
all_any (DlReduceOp op,
         DlTensor *self,
         const gint64 *dims,
         gsize n,
         gboolean keepdim,
         GError **error)
{
  gboolean mask[DL_MAX_DIMS];

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dims_mask (op == DL_REDUCE_ALL ? "all" : "any", self, dims, n, mask, error))
    return NULL;
  return reduce_raw (op, self, mask, keepdim,
                     self->dtype == DL_DTYPE_UINT8 ? DL_DTYPE_UINT8 : DL_DTYPE_BOOL, NULL, error);
}

/**
 * dl_tensor_all:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * Whether every element over the given dims is nonzero (true over no
 * elements). The result is bool, or uint8 for a uint8 tensor.
 *
 * Returns: (transfer full): the results, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_all (DlTensor *self, const gint64 *dims, gsize n_dims, gboolean keepdim, GError **error)
{
  return all_any (DL_REDUCE_ALL, self, dims, n_dims, keepdim, error);
}

/**
 * dl_tensor_any:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * Whether some element over the given dims is nonzero (false over no
 * elements). The result is bool, or uint8 for a uint8 tensor.
 *
 * Returns: (transfer full): the results, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_any (DlTensor *self, const gint64 *dims, gsize n_dims, gboolean keepdim, GError **error)
{
  return all_any (DL_REDUCE_ANY, self, dims, n_dims, keepdim, error);
}

/* nansum: the gradient flows to the elements that are not NaN. */
static gboolean
nansum_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlInputMeta *in = &dl_node_data (node)->inputs[0];
  const DlReduceState *s = dl_node_state (node);
  DlTensor *x;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) ok = NULL;

  if (!(x = dl_node_saved (node, &s->input, error))
      || !(g = dl_reduce_node_keepdim (node, go[0], error))
      || !(e = dl_tensor_expand (g, in->sizes, in->ndim, error))
      || !(ok = mask_as (dl_tensor_eq (x, x, error), go[0]->dtype, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (e, ok, error);
  return gi[0] != NULL;
}

/**
 * dl_tensor_nansum:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * Sums over the given dims, taking NaN as 0. Integer and bool tensors sum
 * to int64.
 *
 * Returns: (transfer full): the sums, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_nansum (DlTensor *self,
                  const gint64 *dims,
                  gsize n_dims,
                  gboolean keepdim,
                  GError **error)
{
  gboolean mask[DL_MAX_DIMS];
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dims_mask ("nansum", self, dims, n_dims, mask, error))
    return NULL;
  if (!(out
        = reduce_raw (DL_REDUCE_NANSUM, self, mask, keepdim,
                      dl_dtype_is_float (self->dtype) ? self->dtype : DL_DTYPE_INT64, NULL, error)))
    return NULL;
  if (dl_dtype_is_float (self->dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("NansumBackward0", nansum_backward, 1, &self);

      DlReduceState *s = dl_reduce_state_new (node, self->ndim, keepdim, mask);

      dl_node_save (node, &s->input, self, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}
