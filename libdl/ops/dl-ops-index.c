/* dl-ops-index.c: indexing ops: gather, index_select, where,
 * masked_fill, masked_select, nonzero, take_along_dim, one_hot, and the
 * advanced indexing behind tensor[index_tensors] (index, index_put).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-index-private.h"

/* ---- gather / scatter ---------------------------------------------------- */

static gboolean
check_index_dtype (const gchar *op, DlTensor *index, GError **error)
{
  if (index->dtype == DL_DTYPE_INT64)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s(): Expected dtype int64 for index, got %s", op,
               dl_dtype_get_name (index->dtype));
  return FALSE;
}

/* Runs the backend's gather/scatter; @self is written by scatters, @other
 * is the output of a gather or the source of a scatter. */
gboolean
dl_index_run (const gchar *op,
              DlIndexOp kind,
              DlTensor *self,
              gint dim,
              DlTensor *index,
              DlTensor *other,
              gboolean exclude_self,
              GError **error)
{
  DlIndexArgs args = { 0 };
  gsize es = dl_dtype_size (self->dtype);
  DlKernelStatus status = { 0 };
  DlBackendContext *ctx;

  if (!(ctx = DL_TENSOR_BACKEND (self, index, op, error)))
    return FALSE;

  args.exclude_self = exclude_self;
  args.ndim = index->ndim;
  args.dim = self->ndim == 0 ? 0 : dim;
  args.dim_size = self->ndim == 0 ? 1 : self->sizes[dim];
  args.self = dl_tensor_data (self);
  args.other = dl_tensor_data (other);
  args.index = dl_tensor_data (index);
  for (gint d = 0; d < index->ndim; d++)
    {
      args.shape[d] = index->sizes[d];
      args.self_strides[d] = self->ndim == 0 ? 0 : self->strides[d] * (gint64)es;
      args.other_strides[d] = other->ndim == 0 ? 0 : other->strides[d] * (gint64)es;
      args.index_strides[d] = index->strides[d] * (gint64)sizeof (gint64);
    }
  if (index->ndim == 0)
    {
      /* a 0-d index: one element, of a 0-d or 1-d self and other */
      args.ndim = 1;
      args.dim = 0;
      args.shape[0] = 1;
      args.self_strides[0] = self->ndim == 0 ? 0 : self->strides[0] * (gint64)es;
      args.other_strides[0] = 0;
      args.index_strides[0] = 0;
    }
  ctx->backend->index (ctx, kind, &args, self->dtype, dl_kernel_status (ctx, &status));
  if (status.error != DL_KERNEL_OK)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s(): index %" G_GINT64_FORMAT
                   " is out of bounds for dimension %d with size %" G_GINT64_FORMAT,
                   op, status.value, dim, args.dim_size);
      return FALSE;
    }
  return TRUE;
}

/* gather's shape rules: index has self's ndim and no bigger size than self
 * on the other dims (and than @src on every dim, for scatters). */
gboolean
dl_index_check_gather_shapes (const gchar *op,
                              DlTensor *self,
                              gint64 *dim,
                              DlTensor *index,
                              DlTensor *src,
                              GError **error)
{
  gint sd = MAX (self->ndim, 1), id = MAX (index->ndim, 1);

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (index), FALSE);
  if (!dl_check_same_device (op, self, index, error)
      || (src && !dl_check_same_device (op, self, src, error))
      || !dl_normalize_dim (op, dim, sd, error) || !check_index_dtype (op, index, error))
    return FALSE;
  if (sd != id)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s(): Index tensor must have the same number of dimensions as %s tensor "
                   "(%d and %d)",
                   op, src ? "self" : "input", id, sd);
      return FALSE;
    }
  if (src && MAX (src->ndim, 1) != id && src->numel > 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s(): Index tensor must have the same number of dimensions as src tensor", op);
      return FALSE;
    }
  for (gint d = 0; d < index->ndim; d++)
    {
      if ((d != *dim && self->ndim > 0 && index->sizes[d] > self->sizes[d])
          || (src && src->ndim > 0 && index->sizes[d] > src->sizes[d]))
        {
          g_autofree gchar *is = dl_shape_to_string (index->sizes, index->ndim);
          g_autofree gchar *ss = dl_shape_to_string (self->sizes, self->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s(): Size does not match at dimension %d: index %s, self %s", op, d, is,
                       ss);
          return FALSE;
        }
    }
  if (src && src->dtype != self->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s(): Expected self.dtype to be equal to src.dtype (%s and %s)", op,
                   dl_dtype_get_name (self->dtype), dl_dtype_get_name (src->dtype));
      return FALSE;
    }
  return src == NULL || dl_check_same_device (op, self, src, error);
}

/* a zero tensor of @shape with @src copied into its leading corner (the
 * gradient of a source bigger than the index), differentiable */
DlTensor *
dl_index_pad_to (DlTensor *src, const gint64 *shape, gint ndim, GError **error)
{
  g_autoptr (DlTensor) z = NULL;
  gboolean same = src->ndim == ndim;

  for (gint d = 0; same && d < ndim; d++)
    same = src->sizes[d] == shape[d];
  if (same)
    return g_object_ref (src);
  /* scatter of src into zeros at the identity positions */
  z = dl_zeros (shape, ndim, src->dtype, dl_tensor_get_device (src), error);
  if (!z)
    return NULL;
  {
    g_autoptr (DlTensor) view = g_object_ref (z);
    for (gint d = 0; d < ndim && d < src->ndim; d++)
      {
        DlTensor *n = dl_tensor_narrow (view, d, 0, src->sizes[d], error);
        if (!n)
          return NULL;
        g_object_unref (view);
        view = n;
      }
    {
      gboolean was = dl_set_grad_enabled (FALSE);
      DlTensor *done = dl_tensor_copy_ (view, src, error);
      dl_set_grad_enabled (was);
      if (!done)
        return NULL;
    }
  }
  return g_steal_pointer (&z);
}

typedef struct
{
  gint dim;
  DlSavedTensor index;
} GatherState;

static gboolean
gather_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const GatherState *s = dl_node_state (node);
  DlInputMeta *in = &dl_node_data (node)->inputs[0];
  DlTensor *index;
  g_autoptr (DlTensor) z = NULL;

  TRY (index = dl_node_saved (node, &s->index, error));
  TRY (z = dl_zeros (in->sizes, in->ndim, go[0]->dtype, dl_tensor_get_device (go[0]), error));
  gi[0] = dl_tensor_scatter_add (z, s->dim, index, go[0], error);
  return gi[0] != NULL;
}

/**
 * dl_tensor_gather:
 * @self: a #DlTensor
 * @dim: the dim to gather along
 * @index: int64 indices, with the ndim of @self
 * @error: return location for a #GError
 *
 * out[i][j][k] = self[index[i][j][k]][j][k] for @dim 0, and so on: a tensor
 * of the shape of @index, as torch.gather.
 *
 * Returns: (transfer full): the gathered tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_gather (DlTensor *self, gint64 dim, DlTensor *index, GError **error)
{
  g_autoptr (DlTensor) out = NULL;

  if (!dl_index_check_gather_shapes ("gather", self, &dim, index, NULL, error))
    return NULL;
  out = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, index->sizes,
                                      index->ndim, error);
  if (!out || !dl_index_run ("gather", DL_INDEX_GATHER, self, dim, index, out, FALSE, error))
    return NULL;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("GatherBackward0", gather_backward, 1, &self);
      GatherState *s = DL_NODE_NEW_STATE (node, GatherState);

      s->dim = dim;
      dl_node_save (node, &s->index, index, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/**
 * dl_tensor_index_select:
 * @self: a #DlTensor
 * @dim: the dim to index
 * @index: a 1-d (or 0-d) int64 or int32 tensor of indices
 * @error: return location for a #GError
 *
 * The entries of @self at @index along @dim, as torch.index_select.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_index_select (DlTensor *self, gint64 dim, DlTensor *index, GError **error)
{
  gint64 shape[DL_MAX_DIMS], vshape[DL_MAX_DIMS];
  gint nd;
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) src = NULL;
  GError *local = NULL;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (index), NULL);
  if (!dl_check_live ("index_select", self, error) || !dl_check_live ("index_select", index, error))
    return NULL;
  nd = MAX (self->ndim, 1);
  if (!dl_normalize_dim ("index_select", &dim, nd, error))
    return NULL;
  if (index->ndim > 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "index_select(): Index is supposed to be a vector, got %d dims", index->ndim);
      return NULL;
    }
  if (index->dtype != DL_DTYPE_INT64 && index->dtype != DL_DTYPE_INT32)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "index_select(): Expected dtype int32 or int64 for index, got %s",
                   dl_dtype_get_name (index->dtype));
      return NULL;
    }
  if (!(idx = dl_cast_nograd (index, DL_DTYPE_INT64, error)))
    return NULL;
  /* a gather with the index broadcast over the other dims */
  src = self->ndim == 0 ? dl_reshape_view (self, (gint64[]){ 1 }, 1, error) : g_object_ref (self);
  if (!src)
    return NULL;
  for (gint d = 0; d < nd; d++)
    {
      shape[d] = d == dim ? idx->numel : src->sizes[d];
      vshape[d] = d == dim ? idx->numel : 1;
    }
  if (!(v = dl_reshape_view (idx, vshape, nd, error))
      || !(e = dl_tensor_expand (v, shape, nd, error)))
    return NULL;
  if (e->numel == 0 && idx->numel > 0)
    {
      /* another dim is empty, so the gather reads nothing and checks no
       * index; torch checks them all the same: gather them from a line
       * as long as @dim */
      g_autoptr (DlTensor) line = dl_zeros ((gint64[]){ src->sizes[dim] }, 1, DL_DTYPE_UINT8,
                                            dl_tensor_get_device (src), error);
      g_autoptr (DlTensor) seen = NULL;

      if (!line)
        return NULL;
      seen = dl_tensor_gather (line, 0, idx, &local);
    }
  if (!local)
    out = dl_tensor_gather (src, dim, e, &local);
  else
    out = NULL;
  if (local)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "index_select(): index out of range in self "
                   "(%s)",
                   local->message);
      g_error_free (local);
      return NULL;
    }
  if (out && self->ndim == 0)
    {
      /* a 0-d input gives a 0-d result (the index then has one entry) */
      g_autoptr (DlTensor) o = out;
      if (out->numel != 1)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                       "index_select(): index of a 0-d tensor must have one element");
          return NULL;
        }
      out = dl_reshape_view (o, NULL, 0, error);
    }
  return out;
}

/* ---- where, masked ops ------------------------------------------------------ */

/* The node's inputs are input and other; the condition is saved. */
typedef struct
{
  DlSavedTensor condition;
} WhereState;

static gboolean
where_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const WhereState *state = dl_node_state (node);
  DlTensor *cond;
  g_autoptr (DlTensor) zero = dl_tensor_new_scalar (0, go[0]->dtype);

  TRY (cond = dl_node_saved (node, &state->condition, error));
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (DlTensor) w = NULL;
      g_autoptr (DlTensor) s = NULL;
      if (!dl_node_needs_input_grad (node, i))
        continue;
      TRY (w = i == 0 ? dl_where (cond, go[0], zero, error) : dl_where (cond, zero, go[0], error));
      TRY (s = dl_sum_to (w, d->inputs[i].sizes, d->inputs[i].ndim, error));
      TRY (gi[i] = dl_tensor_to_dtype (s, d->inputs[i].dtype, error));
    }
  return TRUE;
}

/**
 * dl_where:
 * @condition: a bool tensor
 * @input: the values where @condition holds
 * @other: the values elsewhere
 * @error: return location for a #GError
 *
 * condition ? input : other, elementwise, broadcasting the three and
 * promoting @input and @other to a common dtype, as torch.where.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_where (DlTensor *condition, DlTensor *input, DlTensor *other, GError **error)
{
  gint64 s1[DL_MAX_DIMS], shape[DL_MAX_DIMS];
  gint n1, nd;
  DlDType dt;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) xc = NULL;
  g_autoptr (DlTensor) oc = NULL;
  g_autoptr (DlTensor) moved1 = NULL; /* the copies dl_same_device_operands makes */
  g_autoptr (DlTensor) moved2 = NULL;
  g_autoptr (DlTensor) moved3 = NULL;
  DlTensor *inputs[2];
  g_auto (DlIter) iter = DL_ITER_INIT;
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_TENSOR (condition) && DL_IS_TENSOR (input) && DL_IS_TENSOR (other),
                        NULL);
  if (condition->dtype != DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "where: expected condition to be a boolean tensor, but got a tensor with "
                   "dtype %s",
                   dl_dtype_get_name (condition->dtype));
      return NULL;
    }
  if (!dl_same_device_operands ("where", &input, &other, &moved1, error)
      || !dl_same_device_operands ("where", &input, &condition, &moved2, error)
      || !dl_same_device_operands ("where", &other, &condition, &moved3, error)
      || !dl_broadcast_shapes ("where", condition->sizes, condition->ndim, input->sizes,
                               input->ndim, s1, &n1, error)
      || !dl_broadcast_shapes ("where", s1, n1, other->sizes, other->ndim, shape, &nd, error)
      || !(ctx = DL_TENSOR_BACKEND (input, ternary, "where", error)))
    return NULL;
  inputs[0] = input;
  inputs[1] = other;
  dt = dl_result_type (input, other);
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (input), dt, shape, nd, error))
      || !(xc = dl_cast_nograd (input, dt, error)) || !(oc = dl_cast_nograd (other, dt, error)))
    return NULL;
  dl_iter_init (&iter, 4, (DlTensor *[]){ out, condition, xc, oc }, shape, nd);
  ctx->backend->ternary (ctx, DL_TERNARY_WHERE, &iter, dt, NULL);
  if (dl_autograd_any_requires (2, inputs))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("WhereBackward0", where_backward, 2, inputs);
      WhereState *s = DL_NODE_NEW_STATE (node, WhereState);

      dl_node_save (node, &s->condition, condition, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

static gboolean
check_mask (const gchar *op, DlTensor *self, DlTensor *mask, GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  gint nd;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (mask), FALSE);
  if (mask->dtype != DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: expected BoolTensor for mask, got %s", op,
                   dl_dtype_get_name (mask->dtype));
      return FALSE;
    }
  if (!dl_broadcast_shapes (op, self->sizes, self->ndim, mask->sizes, mask->ndim, shape, &nd,
                            error))
    return FALSE;
  if (nd != self->ndim || memcmp (shape, self->sizes, nd * sizeof (gint64)) != 0)
    {
      g_autofree gchar *ms = dl_shape_to_string (mask->sizes, mask->ndim);
      g_autofree gchar *ss = dl_shape_to_string (self->sizes, self->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: the mask %s does not broadcast to the input %s", op, ms, ss);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_tensor_masked_fill_tensor:
 * @self: a #DlTensor
 * @mask: a bool tensor that broadcasts to the shape of @self
 * @value: a 0-d tensor with the value
 * @error: return location for a #GError
 *
 * A copy of @self with @value where @mask holds, as torch.masked_fill
 * with a tensor value (which gets a gradient). @mask and @self broadcast.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_masked_fill_tensor (DlTensor *self, DlTensor *mask, DlTensor *value, GError **error)
{
  g_autoptr (DlTensor) v = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (mask) && DL_IS_TENSOR (value), NULL);
  if (mask->dtype != DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "masked_fill: expected BoolTensor for mask, got %s",
                   dl_dtype_get_name (mask->dtype));
      return NULL;
    }
  if (value->ndim != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                   "with %d dimension(s).",
                   value->ndim);
      return NULL;
    }
  if (!(v = dl_tensor_to_dtype (value, self->dtype, error)))
    return NULL;
  return dl_where (mask, v, self, error);
}

/**
 * dl_tensor_masked_fill:
 * @self: a #DlTensor
 * @mask: a bool tensor that broadcasts to the shape of @self
 * @value: the value
 * @error: return location for a #GError
 *
 * A copy of @self with @value where @mask holds, as torch.masked_fill.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_masked_fill (DlTensor *self, DlTensor *mask, gdouble value, GError **error)
{
  g_autoptr (DlTensor) v = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  v = dl_tensor_new_scalar (value, self->dtype);
  return dl_tensor_masked_fill_tensor (self, mask, v, error);
}

/* The in-place protocol (dl-ops-inplace.c) after the overlap check these
 * ops need. */
DlTensor *
dl_index_commit_inplace (const gchar *op, DlTensor *self, DlTensor *result, GError **error)
{
  if (!dl_check_write_target (op, self, error))
    return NULL;
  return dl_inplace_commit (op, self, result, error);
}

DlTensor *
dl_index_inplace_alias (const gchar *op, DlTensor *self, GError **error)
{
  return dl_inplace_check_history (op, self, error) ? dl_inplace_alias (self) : NULL;
}

/**
 * dl_tensor_masked_fill_:
 * @self: a #DlTensor, written in place
 * @mask: a bool tensor that broadcasts to the shape of @self
 * @value: the value
 * @error: return location for a #GError
 *
 * Writes @value where @mask holds, as torch.Tensor.masked_fill_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_masked_fill_ (DlTensor *self, DlTensor *mask, gdouble value, GError **error)
{
  g_autoptr (DlTensor) alias = NULL;
  g_autoptr (DlTensor) result = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!check_mask ("masked_fill_", self, mask, error)
      || !(alias = dl_index_inplace_alias ("masked_fill_", self, error))
      || !(result = dl_tensor_masked_fill (alias, mask, value, error)))
    return NULL;
  return dl_index_commit_inplace ("masked_fill_", self, result, error);
}

/**
 * dl_tensor_nonzero:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * The coordinates of the nonzero elements of @self, in row-major order,
 * as an int64 tensor of shape [count, ndim], as torch.nonzero.
 *
 * Returns: (transfer full): the coordinates, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_nonzero (DlTensor *self, GError **error)
{
  gint64 bstrides[DL_MAX_DIMS], shape[2];
  gsize es;
  DlBackendContext *ctx;
  DlTensor *out;
  g_auto (DlHostValue) count = { 0 };
  gint64 *count_at;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(ctx = DL_TENSOR_BACKEND (self, nonzero, "nonzero", error))
      || !(count_at = dl_host_value_init (&count, self, error)))
    return NULL;
  es = dl_dtype_size (self->dtype);
  for (gint d = 0; d < self->ndim; d++)
    bstrides[d] = self->strides[d] * (gint64)es;
  ctx->backend->nonzero (ctx, dl_tensor_data (self), self->dtype, self->ndim, self->sizes, bstrides,
                         count_at, NULL);
  if (!dl_host_value_read (&count, "nonzero", error))
    return NULL;
  shape[0] = count.value;
  shape[1] = self->ndim;
  out = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, shape, 2, error);
  if (out && shape[0] * shape[1] > 0)
    ctx->backend->nonzero (ctx, dl_tensor_data (self), self->dtype, self->ndim, self->sizes,
                           bstrides, NULL, (gint64 *)dl_tensor_data (out));
  return out;
}

/**
 * dl_tensor_masked_select:
 * @self: a #DlTensor
 * @mask: a bool tensor that broadcasts with @self
 * @error: return location for a #GError
 *
 * The elements of @self (broadcast with @mask) where @mask holds, as a
 * 1-d tensor, as torch.masked_select.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_masked_select (DlTensor *self, DlTensor *mask, GError **error)
{
  gint64 shape[DL_MAX_DIMS], flat = -1;
  gint nd;
  g_autoptr (DlTensor) se = NULL;
  g_autoptr (DlTensor) sf = NULL;
  g_autoptr (DlTensor) me = NULL;
  g_autoptr (DlTensor) mf = NULL;
  g_autoptr (DlTensor) nz = NULL;
  g_autoptr (DlTensor) idx = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (mask), NULL);
  if (!dl_check_live ("masked_select", self, error)
      || !dl_check_live ("masked_select", mask, error))
    return NULL;
  if (mask->dtype != DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "masked_select: expected BoolTensor for mask, got %s",
                   dl_dtype_get_name (mask->dtype));
      return NULL;
    }
  if (!dl_broadcast_shapes ("masked_select", self->sizes, self->ndim, mask->sizes, mask->ndim,
                            shape, &nd, error)
      || !(se = dl_tensor_expand (self, shape, nd, error))
      || !(sf = dl_reshape_view (se, &flat, 1, error))
      || !(me = dl_tensor_expand (mask, shape, nd, error))
      || !(mf = dl_reshape_view (me, &flat, 1, error)) || !(nz = dl_tensor_nonzero (mf, error))
      || !(idx = dl_reshape_view (nz, &flat, 1, error)))
    return NULL;
  return dl_tensor_index_select (sf, 0, idx, error);
}

/**
 * dl_tensor_take_along_dim:
 * @self: a #DlTensor
 * @indices: int64 indices that broadcast with @self except along @dim
 * @dim: the dim to take along
 * @error: return location for a #GError
 *
 * Like dl_tensor_gather() after broadcasting @self and @indices on every
 * dim but @dim, as torch.take_along_dim.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_take_along_dim (DlTensor *self, DlTensor *indices, gint64 dim, GError **error)
{
  gint64 a[DL_MAX_DIMS], b[DL_MAX_DIMS], s[DL_MAX_DIMS];
  gint nd;
  g_autoptr (DlTensor) se = NULL;
  g_autoptr (DlTensor) ie = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (indices), NULL);
  if (!check_index_dtype ("take_along_dim", indices, error))
    return NULL;
  if (self->ndim != indices->ndim)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "take_along_dim(): input and indices should have the same number of "
                   "dimensions, but got %d dimensions for input, and %d dimensions for indices",
                   self->ndim, indices->ndim);
      return NULL;
    }
  if (!dl_normalize_dim ("take_along_dim", &dim, MAX (self->ndim, 1), error))
    return NULL;
  if (self->ndim == 0)
    return dl_tensor_gather (self, 0, indices, error);
  memcpy (a, self->sizes, self->ndim * sizeof (gint64));
  memcpy (b, indices->sizes, self->ndim * sizeof (gint64));
  a[dim] = b[dim] = 1;
  if (!dl_broadcast_shapes ("take_along_dim", a, self->ndim, b, self->ndim, s, &nd, error))
    return NULL;
  s[dim] = self->sizes[dim];
  if (!(se = dl_tensor_expand (self, s, nd, error)))
    return NULL;
  s[dim] = indices->sizes[dim];
  if (!(ie = dl_tensor_expand (indices, s, nd, error)))
    return NULL;
  return dl_tensor_gather (se, dim, ie, error);
}

/**
 * dl_one_hot:
 * @tensor: an int64 tensor of class values
 * @num_classes: the number of classes, or -1 for one more than the largest
 *   value in @tensor
 * @error: return location for a #GError
 *
 * An int64 tensor of shape tensor.shape + [num_classes] with a 1 at each
 * value's class and 0 elsewhere, as torch.nn.functional.one_hot.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_one_hot (DlTensor *tensor, gint64 num_classes, GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) idx = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (tensor), NULL);
  if (tensor->dtype != DL_DTYPE_INT64)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "one_hot is only applicable to index tensor (int64), got %s",
                   dl_dtype_get_name (tensor->dtype));
      return NULL;
    }
  if (tensor->ndim >= DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "one_hot: at most %d dimensions",
                   DL_MAX_DIMS - 1);
      return NULL;
    }
  if (tensor->numel > 0 && dl_tensor_on_meta (tensor))
    {
      /* the classes are values: only a given count sizes the output */
      if (num_classes == -1)
        {
          dl_meta_no_data ("one_hot (without num_classes)", error);
          return NULL;
        }
    }
  else if (tensor->numel > 0)
    {
      g_autoptr (DlTensor) mn = dl_tensor_min (tensor, error);
      g_autoptr (DlTensor) mx = mn ? dl_tensor_max (tensor, error) : NULL;
      gdouble lo, hi;
      if (!mx)
        return NULL;
      lo = dl_tensor_item (mn, NULL);
      hi = dl_tensor_item (mx, NULL);
      if (lo < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "one_hot: Class values must be "
                       "non-negative (got %.0f).",
                       lo);
          return NULL;
        }
      if (num_classes == -1)
        num_classes = (gint64)hi + 1;
      else if (hi >= num_classes)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "one_hot: Class values must be "
                       "smaller than num_classes (got %.0f for %" G_GINT64_FORMAT ").",
                       hi, num_classes);
          return NULL;
        }
    }
  else if (num_classes <= 0)
    {
      /* as torch: an empty tensor needs a positive num_classes, 0 too
       * being taken for "infer" */
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "one_hot: Can not infer total number of classes from empty tensor.");
      return NULL;
    }
  if (num_classes < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "one_hot: num_classes should be positive or -1, got %" G_GINT64_FORMAT,
                   num_classes);
      return NULL;
    }
  memcpy (shape, tensor->sizes, tensor->ndim * sizeof (gint64));
  shape[tensor->ndim] = num_classes;
  if (!(z
        = dl_zeros (shape, tensor->ndim + 1, DL_DTYPE_INT64, dl_tensor_get_device (tensor), error))
      || !(idx = dl_tensor_unsqueeze (tensor, -1, error)))
    return NULL;
  if (num_classes == 0)
    return g_steal_pointer (&z);
  return dl_tensor_scatter_value (z, -1, idx, 1, error);
}

/* ---- advanced indexing ------------------------------------------------------ */

/* The broadcast indices folded into one int64 index into the first
 * @n dims of @self taken as one: sets @bshape and @bnd to their broadcast
 * shape and *p to the product of those dims. */
static DlTensor *
linear_index (const gchar *op,
              DlTensor *self,
              DlTensor **indices,
              gsize n,
              gint64 *bshape,
              gint *bnd,
              gint64 *p,
              GError **error)
{
  g_autoptr (DlTensor) lin = NULL;

  if (n == 0 || n > (gsize)self->ndim)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s: too many indices for tensor of dimension %d (got %" G_GSIZE_FORMAT ")", op,
                   self->ndim, n);
      return NULL;
    }
  *bnd = 0;
  for (gsize k = 0; k < n; k++)
    {
      g_return_val_if_fail (DL_IS_TENSOR (indices[k]), NULL);
      if (indices[k]->dtype != DL_DTYPE_INT64 && indices[k]->dtype != DL_DTYPE_INT32)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                       "%s: tensors used as indices must be long, int, byte or bool tensors "
                       "(got %s)",
                       op, dl_dtype_get_name (indices[k]->dtype));
          return NULL;
        }
      if (!dl_check_same_device (op, self, indices[k], error)
          || !dl_broadcast_shapes (op, bshape, *bnd, indices[k]->sizes, indices[k]->ndim, bshape,
                                   bnd, error))
        return NULL;
    }
  *p = 1;
  for (gsize k = 0; k < n; k++)
    {
      gint64 size = self->sizes[k];
      g_autoptr (DlTensor) ix = NULL;
      g_autoptr (DlTensor) neg = NULL;
      g_autoptr (DlTensor) wrapped = NULL;
      g_autoptr (DlTensor) fixed = NULL;

      *p *= size;
      if (!(ix = dl_cast_nograd (indices[k], DL_DTYPE_INT64, error)))
        return NULL;
      if (ix->numel > 0)
        {
          g_autoptr (DlTensor) mn = dl_tensor_min (ix, error);
          g_autoptr (DlTensor) mx = mn ? dl_tensor_max (ix, error) : NULL;
          gint64 lo, hi;
          if (!mx)
            return NULL;
          lo = (gint64)dl_tensor_item (mn, NULL);
          hi = (gint64)dl_tensor_item (mx, NULL);
          if (lo < -size || hi >= size)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                           "%s: index %" G_GINT64_FORMAT
                           " is out of bounds for dimension %" G_GSIZE_FORMAT
                           " with size %" G_GINT64_FORMAT,
                           op, hi >= size ? hi : lo, k, size);
              return NULL;
            }
        }
      if (!(neg = dl_tensor_lt_scalar (ix, 0, error))
          || !(wrapped = dl_tensor_add_scalar (ix, size, error))
          || !(fixed = dl_where (neg, wrapped, ix, error)))
        return NULL;
      if (lin == NULL)
        lin = g_steal_pointer (&fixed);
      else
        {
          g_autoptr (DlTensor) m = dl_tensor_mul_scalar (lin, size, error);
          g_clear_object (&lin);
          if (!m || !(lin = dl_tensor_add (m, fixed, error)))
            return NULL;
        }
    }
  {
    g_autoptr (DlTensor) e = dl_tensor_expand (lin, bshape, *bnd, error);
    return e ? dl_tensor_contiguous (e, error) : NULL;
  }
}

/* @self with its first @n dims taken as one of size @p */
static DlTensor *
merge_leading (DlTensor *self, gsize n, gint64 p, GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  gint nd = 0;

  shape[nd++] = p;
  for (gint d = n; d < self->ndim; d++)
    shape[nd++] = self->sizes[d];
  return dl_reshape_view (self, shape, nd, error);
}

/**
 * dl_tensor_index:
 * @self: a #DlTensor
 * @indices: (array length=n_indices): int64 or int32 index tensors for the
 *   first @n_indices dims of @self, which broadcast together
 * @n_indices: how many
 * @error: return location for a #GError
 *
 * Advanced indexing self[indices[0], indices[1], ...]: a tensor of shape
 * broadcast(indices) + self.shape[n_indices:]. Negative indices count from
 * the end. The Python layer builds tensor[...] with masks and index
 * tensors anywhere on top of this.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_index (DlTensor *self, DlTensor **indices, gsize n_indices, GError **error)
{
  gint64 bshape[DL_MAX_DIMS], p, flat = -1;
  gint bnd, nd;
  g_autoptr (DlTensor) lin = NULL;
  g_autoptr (DlTensor) lflat = NULL;
  g_autoptr (DlTensor) merged = NULL;
  g_autoptr (DlTensor) sel = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(lin = linear_index ("index", self, indices, n_indices, bshape, &bnd, &p, error))
      || !(lflat = dl_reshape_view (lin, &flat, 1, error))
      || !(merged = merge_leading (self, n_indices, p, error))
      || !(sel = dl_tensor_index_select (merged, 0, lflat, error)))
    return NULL;
  nd = bnd;
  for (gint d = n_indices; d < self->ndim; d++)
    bshape[nd++] = self->sizes[d];
  return dl_reshape_view (sel, bshape, nd, error);
}

/* index_put as a scatter along dim 0 of @self with its indexed dims
 * merged: sets *merged (@self reshaped, a view where the layout allows),
 * *index (the linear index expanded over the other dims) and *src (the
 * values broadcast and cast to @self's dtype). */
static gboolean
prepare_put (DlTensor *self,
             DlTensor **indices,
             gsize n_indices,
             DlTensor *values,
             DlTensor **merged,
             DlTensor **index,
             DlTensor **src,
             GError **error)
{
  gint64 bshape[DL_MAX_DIMS], rshape[DL_MAX_DIMS], mshape[DL_MAX_DIMS], vshape[DL_MAX_DIMS];
  gint64 p, n;
  gint bnd, nd, vnd;
  g_autoptr (DlTensor) lin = NULL;
  g_autoptr (DlTensor) lv = NULL;
  g_autoptr (DlTensor) vc = NULL;
  g_autoptr (DlTensor) ve = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (values), FALSE);
  if (!(lin = linear_index ("index_put", self, indices, n_indices, bshape, &bnd, &p, error)))
    return FALSE;
  nd = bnd;
  memcpy (rshape, bshape, bnd * sizeof (gint64));
  n = lin->numel;
  mshape[0] = n;
  vshape[0] = n;
  vnd = 1;
  for (gint d = n_indices; d < self->ndim; d++)
    {
      rshape[nd++] = self->sizes[d];
      mshape[vnd] = self->sizes[d];
      vshape[vnd++] = 1;
    }
  {
    gint64 s[DL_MAX_DIMS];
    gint snd;
    if (!dl_broadcast_shapes ("index_put", rshape, nd, values->sizes, values->ndim, s, &snd, NULL)
        || snd != nd || memcmp (s, rshape, nd * sizeof (gint64)) != 0)
      {
        g_autofree gchar *vs = dl_shape_to_string (values->sizes, values->ndim);
        g_autofree gchar *rs = dl_shape_to_string (rshape, nd);
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "index_put: shape mismatch: value tensor of shape %s cannot be broadcast "
                     "to indexing result of shape %s",
                     vs, rs);
        return FALSE;
      }
  }
  if (!(vc = dl_tensor_to_dtype (values, self->dtype, error))
      || !(ve = dl_tensor_expand (vc, rshape, nd, error))
      || !(*src = dl_reshape_view (ve, mshape, vnd, error))
      || !(lv = dl_reshape_view (lin, vshape, vnd, error))
      || !(*index = dl_tensor_expand (lv, mshape, vnd, error))
      || !(*merged = merge_leading (self, n_indices, p, error)))
    return FALSE;
  return TRUE;
}

/**
 * dl_tensor_index_put:
 * @self: a #DlTensor
 * @indices: (array length=n_indices): int64 or int32 index tensors for the
 *   first @n_indices dims of @self, which broadcast together
 * @n_indices: how many
 * @values: values that broadcast to the shape dl_tensor_index() gives
 * @accumulate: add to the elements instead of replacing them (repeated
 *   indices then add up)
 * @error: return location for a #GError
 *
 * A copy of @self with self[indices] = values (or += with @accumulate), as
 * torch.index_put.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_index_put (DlTensor *self,
                     DlTensor **indices,
                     gsize n_indices,
                     DlTensor *values,
                     gboolean accumulate,
                     GError **error)
{
  g_autoptr (DlTensor) merged = NULL;
  g_autoptr (DlTensor) index = NULL;
  g_autoptr (DlTensor) src = NULL;
  g_autoptr (DlTensor) res = NULL;

  if (!prepare_put (self, indices, n_indices, values, &merged, &index, &src, error))
    return NULL;
  res = accumulate ? dl_tensor_scatter_add (merged, 0, index, src, error)
                   : dl_tensor_scatter (merged, 0, index, src, error);
  if (!res)
    return NULL;
  return dl_reshape_view (res, self->sizes, self->ndim, error);
}

/**
 * dl_tensor_index_put_:
 * @self: a #DlTensor, written in place
 * @indices: (array length=n_indices): int64 or int32 index tensors for the
 *   first @n_indices dims of @self, which broadcast together
 * @n_indices: how many
 * @values: values that broadcast to the shape dl_tensor_index() gives
 * @accumulate: add to the elements instead of replacing them
 * @error: return location for a #GError
 *
 * self[indices] = values (or += with @accumulate), in place, as
 * torch.Tensor.index_put_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_index_put_ (DlTensor *self,
                      DlTensor **indices,
                      gsize n_indices,
                      DlTensor *values,
                      gboolean accumulate,
                      GError **error)
{
  g_autoptr (DlTensor) alias = NULL;
  g_autoptr (DlTensor) result = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (values), NULL);
  if (values->dtype != self->dtype && !values->is_wrapped_number)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "index_put_: Index put requires the source and destination dtypes match, "
                   "got %s for the destination and %s for the source.",
                   dl_dtype_get_name (self->dtype), dl_dtype_get_name (values->dtype));
      return NULL;
    }
  if (!dl_inplace_wants_history (self, 1, &values) && values->storage != self->storage)
    {
      /* no graph to keep: scatter straight into self when its indexed
       * dims merge into a view */
      g_autoptr (DlTensor) merged = NULL;
      g_autoptr (DlTensor) index = NULL;
      g_autoptr (DlTensor) src = NULL;

      if (!dl_check_write_target ("index_put_", self, error)
          || !prepare_put (self, indices, n_indices, values, &merged, &index, &src, error))
        return NULL;
      if (merged->storage == self->storage)
        {
          if (!dl_index_check_gather_shapes ("index_put_", merged, &(gint64){ 0 }, index, src,
                                             error)
              || !dl_index_run ("index_put_", accumulate ? DL_INDEX_SCATTER_ADD : DL_INDEX_SCATTER,
                                merged, 0, index, src, FALSE, error))
            return NULL;
          dl_storage_bump_version (self->storage);
          return self;
        }
    }
  if (!(alias = dl_index_inplace_alias ("index_put_", self, error))
      || !(result = dl_tensor_index_put (alias, indices, n_indices, values, accumulate, error)))
    return NULL;
  return dl_index_commit_inplace ("index_put_", self, result, error);
}
