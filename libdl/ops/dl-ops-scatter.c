/* dl-ops-scatter.c: scatter (plain and with reduce=), scatter_add and
 * scatter_reduce, out of place and in place, with their gradients.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-index-private.h"

enum
{
  SCATTER_SRC,
  SCATTER_ADD,
  SCATTER_VALUE,
  SCATTER_REDUCE, /* scatter_reduce: src, reduced, differentiable */
};

/* How scattered values combine with what is there: scatter's reduce=
 * ('add', 'multiply') and scatter_reduce's reduce. */
typedef enum
{
  REDUCE_NONE, /* plain scatter: one of the values lands */
  REDUCE_SUM,
  REDUCE_PROD,
  REDUCE_MEAN,
  REDUCE_AMAX,
  REDUCE_AMIN,
} Reduction;

static const gchar *const reduction_names[] = { NULL, "sum", "prod", "mean", "amax", "amin" };

/* @reduce as a Reduction: scatter's names ("add", "multiply") with
 * @scatter_names, else scatter_reduce's. */
static gboolean
parse_reduce (const gchar *op,
              const gchar *reduce,
              gboolean scatter_names,
              Reduction *out,
              GError **error)
{
  if (scatter_names && g_str_equal (reduce, "add"))
    *out = REDUCE_SUM;
  else if (scatter_names && g_str_equal (reduce, "multiply"))
    *out = REDUCE_PROD;
  else
    {
      *out = REDUCE_NONE;
      for (gint r = REDUCE_SUM; !scatter_names && r <= REDUCE_AMIN; r++)
        if (g_str_equal (reduce, reduction_names[r]))
          *out = r;
    }
  if (*out != REDUCE_NONE)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
               "%s(): reduce argument must be either %s, not '%s'", op,
               scatter_names ? "add or multiply" : "sum, prod, mean, amax or amin", reduce);
  return FALSE;
}

static DlIndexOp
reduction_kernel (Reduction reduce)
{
  switch (reduce)
    {
      case REDUCE_SUM:
      case REDUCE_MEAN:
        return DL_INDEX_SCATTER_ADD;
      case REDUCE_PROD:
        return DL_INDEX_SCATTER_MUL;
      case REDUCE_AMAX:
        return DL_INDEX_SCATTER_AMAX;
      case REDUCE_AMIN:
        return DL_INDEX_SCATTER_AMIN;
      case REDUCE_NONE:
      default:
        return DL_INDEX_SCATTER;
    }
}

/* How many values a mean scatter reduces at each place of a tensor of
 * @shape (1 where none, so that dividing keeps the value there), in @dtype:
 * 1 for self where included, plus one for each index entry naming it. No
 * autograd. */
static DlTensor *
mean_counts (const gchar *op,
             const gint64 *shape,
             gint ndim,
             DlDType dtype,
             DlDevice *device,
             gint dim,
             DlTensor *index,
             gboolean include_self,
             GError **error)
{
  g_autoptr (DlTensor) counts = NULL;
  g_autoptr (DlTensor) one = NULL;
  g_autoptr (DlTensor) ones = NULL;
  g_autoptr (DlTensor) none = NULL;

  /* the 1 on the device, where the index kernel reads it */
  if (!(one = dl_full (NULL, 0, 1, dtype, device, error))
      || !(counts = dl_full (shape, ndim, include_self ? 1 : 0, dtype, device, error))
      || !(ones = dl_tensor_expand (one, index->sizes, index->ndim, error))
      || !dl_index_run (op, DL_INDEX_SCATTER_ADD, counts, dim, index, ones, FALSE, error)
      || !(none = dl_tensor_eq_scalar (counts, 0, error)))
    return NULL;
  return dl_tensor_masked_fill (counts, none, 1, error);
}

/* @src's leading corner of @index's shape: the elements a scatter reads. */
static DlTensor *
src_corner (DlTensor *src, DlTensor *index, GError **error)
{
  g_autoptr (DlTensor) view = NULL;

  if (index->ndim == 0)
    {
      /* one element: src's first, as a 0-d tensor */
      view = src->ndim > 0 ? dl_tensor_narrow (src, 0, 0, 1, error) : g_object_ref (src);
      return view ? dl_reshape_view (view, NULL, 0, error) : NULL;
    }
  view = g_object_ref (src);
  for (gint d = 0; d < index->ndim && d < src->ndim; d++)
    if (src->sizes[d] != index->sizes[d])
      {
        DlTensor *n = dl_tensor_narrow (view, d, 0, index->sizes[d], error);
        if (!n)
          return NULL;
        g_object_unref (view);
        view = n;
      }
  return g_steal_pointer (&view);
}

/* What the scatters' backwards keep; self, src and result only for
 * scatter_reduce's prod, amax and amin. */
typedef struct
{
  gint dim;
  gint kind;        /* SCATTER_* */
  Reduction reduce; /* scatter_reduce, scatter (reduce=) */
  gboolean include_self;
  DlSavedTensor index, self, src, result;
} ScatterState;

static gboolean
scatter_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const ScatterState *s = dl_node_state (node);
  gint dim = s->dim, kind = s->kind;
  DlTensor *index;

  TRY (index = dl_node_saved (node, &s->index, error));
  if (dl_node_needs_input_grad (node, 0))
    {
      if (kind == SCATTER_ADD)
        gi[0] = g_object_ref (go[0]);
      else
        TRY (gi[0] = dl_tensor_scatter_value (go[0], dim, index, 0, error));
    }
  if (kind != SCATTER_VALUE && dl_node_needs_input_grad (node, 1))
    {
      g_autoptr (DlTensor) g = NULL;
      TRY (g = dl_tensor_gather (go[0], dim, index, error));
      TRY (gi[1] = dl_index_pad_to (g, d->inputs[1].sizes, d->inputs[1].ndim, error));
    }
  return TRUE;
}

/* scatter with reduce=: PyTorch defines no derivative */
static gboolean
scatter_reduce_not_differentiable (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
               "scatter(reduce='%s'): the result is not differentiable (PyTorch defines no "
               "derivative for scatter with reduce; scatter_reduce has one)",
               ((const ScatterState *)dl_node_state (node))->reduce == REDUCE_SUM ? "add"
                                                                                  : "multiply");
  return FALSE;
}

/* The gradients of prod, from the saved self, src (its corner), result:
 * at a place p with values x_1 .. x_n (self's included or not), d out /
 * d x_k is the product of the others, which is out / x_k where x_k is not
 * 0; where x_k is the only 0 it is the product of the nonzero values, and
 * 0 where another value is 0 too. Self's gradient, the product of the
 * values scattered to p, needs no division. */
static gboolean
prod_grads (gint dim,
            DlTensor *index,
            gboolean include_self,
            DlTensor *g,
            DlTensor *self,
            DlTensor *src,
            DlTensor *result,
            DlTensor **gself,
            DlTensor **gsrc,
            GError **error)
{
  DlDevice *dev = dl_tensor_get_device (g);
  g_autoptr (DlTensor) ones = NULL;
  g_autoptr (DlTensor) src_zero = NULL;
  g_autoptr (DlTensor) src_zero_n = NULL;
  g_autoptr (DlTensor) self_zero = NULL;
  g_autoptr (DlTensor) zeros_at = NULL;
  g_autoptr (DlTensor) base = NULL;
  g_autoptr (DlTensor) src_nz = NULL;
  g_autoptr (DlTensor) nz_prod = NULL;
  g_autoptr (DlTensor) g_nz = NULL;
  g_autoptr (DlTensor) by_nz = NULL;
  g_autoptr (DlTensor) zeros_here = NULL;
  g_autoptr (DlTensor) sole = NULL;
  g_autoptr (DlTensor) sole_zero = NULL;
  g_autoptr (DlTensor) g_out = NULL;
  g_autoptr (DlTensor) by_out = NULL;
  g_autoptr (DlTensor) quotient = NULL;

  TRY (ones = dl_ones (self->sizes, self->ndim, g->dtype, dev, error));
  if (gself)
    {
      g_autoptr (DlTensor) scattered = NULL;
      TRY (scattered = dl_tensor_scatter_reduce (ones, dim, index, src, "prod", TRUE, error));
      TRY (*gself = dl_tensor_mul (g, scattered, error));
    }
  if (!gsrc)
    return TRUE;
  /* the number of zeros reduced at each place */
  TRY (src_zero = dl_tensor_eq_scalar (src, 0, error));
  TRY (src_zero_n = dl_tensor_to_dtype (src_zero, g->dtype, error));
  TRY (self_zero = dl_tensor_eq_scalar (self, 0, error));
  if (include_self)
    {
      g_autoptr (DlTensor) self_zero_n = NULL;
      TRY (self_zero_n = dl_tensor_to_dtype (self_zero, g->dtype, error));
      TRY (zeros_at = dl_tensor_scatter_add (self_zero_n, dim, index, src_zero_n, error));
      TRY (base = dl_tensor_masked_fill (self, self_zero, 1, error));
    }
  else
    {
      g_autoptr (DlTensor) z = NULL;
      TRY (z = dl_zeros (self->sizes, self->ndim, g->dtype, dev, error));
      TRY (zeros_at = dl_tensor_scatter_add (z, dim, index, src_zero_n, error));
      base = g_object_ref (ones);
    }
  /* the product of the nonzero values, for the place's only zero */
  TRY (src_nz = dl_tensor_masked_fill (src, src_zero, 1, error));
  TRY (nz_prod = dl_tensor_scatter_reduce (base, dim, index, src_nz, "prod", TRUE, error));
  TRY (g_nz = dl_tensor_mul (g, nz_prod, error));
  TRY (by_nz = dl_tensor_gather (g_nz, dim, index, error));
  TRY (zeros_here = dl_tensor_gather (zeros_at, dim, index, error));
  TRY (sole = dl_tensor_eq_scalar (zeros_here, 1, error));
  TRY (sole_zero = dl_tensor_logical_and (src_zero, sole, error));
  /* out / x_k elsewhere (0 where x_k is 0 and another value too, as out is) */
  TRY (g_out = dl_tensor_mul (g, result, error));
  TRY (by_out = dl_tensor_gather (g_out, dim, index, error));
  TRY (quotient = dl_tensor_div (by_out, src_nz, error));
  TRY (*gsrc = dl_where (sole_zero, by_nz, quotient, error));
  return TRUE;
}

/* The gradients of scatter_reduce. Saved: index, and for prod, amax and
 * amin self, src's corner and the result. Where self is not included,
 * self's gradient is 0 at the places the index names. */
static gboolean
scatter_reduce_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ScatterState *s = dl_node_state (node);
  gint dim = s->dim;
  Reduction reduce = s->reduce;
  gboolean include_self = s->include_self;
  gboolean need_self = dl_node_needs_input_grad (node, 0);
  gboolean need_src = dl_node_needs_input_grad (node, 1);
  DlTensor *g = go[0], *index, *self = NULL, *src = NULL, *result = NULL;
  g_autoptr (DlTensor) gself = NULL;
  g_autoptr (DlTensor) gsrc = NULL;

  TRY (index = dl_node_saved (node, &s->index, error));
  if (reduce == REDUCE_PROD || reduce == REDUCE_AMAX || reduce == REDUCE_AMIN)
    {
      TRY (self = dl_node_saved (node, &s->self, error));
      TRY (src = dl_node_saved (node, &s->src, error));
      TRY (result = dl_node_saved (node, &s->result, error));
    }
  switch (reduce)
    {
      case REDUCE_SUM:
        gself = g_object_ref (g);
        if (need_src)
          TRY (gsrc = dl_tensor_gather (g, dim, index, error));
        break;
      case REDUCE_MEAN:
        {
          g_autoptr (DlTensor) n = NULL;
          TRY (n = mean_counts ("scatter_reduce", g->sizes, g->ndim, g->dtype,
                                dl_tensor_get_device (g), dim, index, include_self, error));
          TRY (gself = dl_tensor_div (g, n, error));
          if (need_src)
            TRY (gsrc = dl_tensor_gather (gself, dim, index, error));
        }
        break;
      case REDUCE_AMAX:
      case REDUCE_AMIN:
        {
          /* the gradient splits evenly among the values equal to the
           * result; as PyTorch 1.13 does, self counts when it equals the
           * result even where it is not included (and then gets 0) */
          g_autoptr (DlTensor) value = NULL;
          g_autoptr (DlTensor) self_hit = NULL;
          g_autoptr (DlTensor) src_hit = NULL;
          g_autoptr (DlTensor) self_hit_n = NULL;
          g_autoptr (DlTensor) src_hit_n = NULL;
          g_autoptr (DlTensor) n = NULL;
          g_autoptr (DlTensor) share = NULL;

          TRY (value = dl_tensor_gather (result, dim, index, error));
          TRY (self_hit = dl_tensor_eq (self, result, error));
          TRY (src_hit = dl_tensor_eq (src, value, error));
          TRY (self_hit_n = dl_tensor_to_dtype (self_hit, g->dtype, error));
          TRY (src_hit_n = dl_tensor_to_dtype (src_hit, g->dtype, error));
          TRY (n = dl_tensor_scatter_add (self_hit_n, dim, index, src_hit_n, error));
          TRY (share = dl_tensor_div (g, n, error));
          TRY (gself = dl_tensor_mul (share, self_hit_n, error));
          if (need_src)
            {
              g_autoptr (DlTensor) s = NULL;
              TRY (s = dl_tensor_gather (share, dim, index, error));
              TRY (gsrc = dl_tensor_mul (s, src_hit_n, error));
            }
        }
        break;
      case REDUCE_PROD:
        TRY (prod_grads (dim, index, include_self, g, self, src, result, need_self ? &gself : NULL,
                         need_src ? &gsrc : NULL, error));
        break;
      case REDUCE_NONE:
      default:
        g_assert_not_reached ();
    }
  if (need_self)
    {
      if (include_self)
        gi[0] = g_steal_pointer (&gself);
      else
        TRY (gi[0] = dl_tensor_scatter_value (gself, dim, index, 0, error));
    }
  if (need_src)
    {
      const DlInputMeta *in = &dl_node_data (node)->inputs[1];
      if (index->ndim == 0 && in->ndim == 1)
        {
          /* a 0-d index reads src's first element */
          g_autoptr (DlTensor) one = NULL;
          TRY (one = dl_reshape_view (gsrc, (gint64[]){ 1 }, 1, error));
          g_set_object (&gsrc, one);
        }
      TRY (gi[1] = dl_index_pad_to (gsrc, in->sizes, in->ndim, error));
    }
  return TRUE;
}

/* Records the node of a scatter, if an input requires grad: @kind says
 * which, @reduce how values combine. With @inplace, @self is the alias of
 * an in-place op, whose values the gradients of prod, amax and amin need
 * copied before the op overwrites them. */
static gboolean
record_scatter (gint kind,
                Reduction reduce,
                gboolean include_self,
                gboolean inplace,
                DlTensor *self,
                gint dim,
                DlTensor *index,
                DlTensor *src,
                DlTensor *out,
                GError **error)
{
  DlTensor *inputs[2] = { self, src };
  guint n_inputs = kind == SCATTER_VALUE ? 1 : 2;
  g_autoptr (DlNode) node = NULL;
  ScatterState *s;

  if (!dl_autograd_any_requires (n_inputs, inputs))
    return TRUE;
  if (kind == SCATTER_REDUCE)
    node = dl_node_new_for_op ("ScatterReduceBackward0", scatter_reduce_backward, 2, inputs);
  else if (reduce != REDUCE_NONE)
    node = dl_node_new_for_op ("NotImplemented", scatter_reduce_not_differentiable, n_inputs,
                               inputs);
  else
    node = dl_node_new_for_op (kind == SCATTER_ADD ? "ScatterAddBackward0" : "ScatterBackward0",
                               scatter_backward, n_inputs, inputs);
  s = DL_NODE_NEW_STATE (node, ScatterState);
  s->dim = dim;
  s->kind = kind;
  s->reduce = reduce;
  s->include_self = include_self;
  dl_node_save (node, &s->index, index, FALSE);
  if (kind == SCATTER_REDUCE
      && (reduce == REDUCE_PROD || reduce == REDUCE_AMAX || reduce == REDUCE_AMIN))
    {
      g_autoptr (DlTensor) det = dl_tensor_detach (self);
      g_autoptr (DlTensor) values = inplace ? dl_tensor_clone (det, error) : g_object_ref (det);
      g_autoptr (DlTensor) corner = values ? src_corner (src, index, error) : NULL;

      if (!corner)
        return FALSE;
      dl_node_save (node, &s->self, values, FALSE);
      dl_node_save (node, &s->src, corner, FALSE);
      dl_node_save (node, &s->result, out, TRUE);
    }
  dl_node_set_output (node, out, 0);
  return TRUE;
}

/* Whether @dtype holds @value without overflow, as PyTorch asks of the
 * number a scatter writes (when it writes one): integers take finite values within their range
 * (before rounding toward 0), floats any value but a finite one beyond
 * their largest. */
static gboolean
check_value_fits (const gchar *op, gdouble value, DlDType dtype, GError **error)
{
  gdouble highest, lowest;
  gboolean integral = TRUE;

  switch (dtype)
    {
      case DL_DTYPE_UINT8:
        lowest = 0;
        highest = G_MAXUINT8;
        break;
      case DL_DTYPE_INT32:
        lowest = G_MININT32;
        highest = G_MAXINT32;
        break;
      case DL_DTYPE_INT64:
        lowest = (gdouble)G_MININT64;
        highest = (gdouble)G_MAXINT64;
        break;
      case DL_DTYPE_FLOAT16:
        integral = FALSE;
        highest = 65504;
        break;
      case DL_DTYPE_BFLOAT16:
        integral = FALSE;
        highest = 3.38953138925153547590470800371487866880e38;
        break;
      case DL_DTYPE_FLOAT32:
        integral = FALSE;
        highest = G_MAXFLOAT;
        break;
      case DL_DTYPE_FLOAT64:
      case DL_DTYPE_BOOL:
      default:
        return TRUE;
    }
  if (!integral)
    lowest = -highest;
  if (integral ? (isfinite (value) && value >= lowest && value <= highest)
               : (!isfinite (value) || fabs (value) <= highest))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
               "%s(): value %g cannot be converted to type %s without overflow", op, value,
               dl_dtype_get_name (dtype));
  return FALSE;
}

/* The scatters out of place: a copy of @self with @src (or @value, for
 * SCATTER_VALUE) scattered in, combined by @reduce. With @inplace, @self is
 * the in-place alias, whose values the gradient needs copied. */
static DlTensor *
scatter_impl (const gchar *op,
              gint kind,
              Reduction reduce,
              gboolean include_self,
              gboolean inplace,
              DlTensor *self,
              gint64 dim,
              DlTensor *index,
              DlTensor *src,
              gdouble value,
              GError **error)
{
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) filled = NULL;
  DlBackendContext *ctx;
  DlIndexOp kernel = kind == SCATTER_ADD ? DL_INDEX_SCATTER_ADD : reduction_kernel (reduce);

  if (!dl_index_check_gather_shapes (op, self, &dim, index, src, error)
      || (kind == SCATTER_VALUE && index->numel > 0
          && !check_value_fits (op, value, self->dtype, error)))
    return NULL;
  if (reduce == REDUCE_MEAN && self->dtype == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s(): reduce='mean' does not take bool tensors (nor does PyTorch's)", op);
      return NULL;
    }
  if (!(ctx = DL_TENSOR_BACKEND (self, copy, op, error))
      || !(out = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, self->sizes,
                                               self->ndim, error)))
    return NULL;
  {
    DlTensor *ops[2] = { out, self };
    DlIter iter;
    dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
    ctx->backend->copy (ctx, &iter, self->dtype, self->dtype);
  }
  if (kind == SCATTER_VALUE)
    {
      /* the value on the device, broadcast over the index's shape */
      g_autoptr (DlTensor) v
          = dl_full (NULL, 0, value, self->dtype, dl_tensor_device (self), error);
      if (!v || !(filled = dl_tensor_expand (v, index->sizes, index->ndim, error)))
        return NULL;
    }
  if (!dl_index_run (op, kernel, out, dim, index, filled ? filled : src,
                     reduce != REDUCE_NONE && !include_self, error))
    return NULL;
  if (reduce == REDUCE_MEAN)
    {
      /* the sums divided by the counts, floor-divided for integers */
      gboolean was = dl_set_grad_enabled (FALSE);
      g_autoptr (DlTensor) n
          = mean_counts (op, self->sizes, self->ndim, self->dtype, dl_tensor_get_device (self), dim,
                         index, include_self, error);
      g_autoptr (DlTensor) mean = NULL;

      if (n)
        mean = dl_dtype_is_float (self->dtype) ? dl_tensor_div (out, n, error)
                                               : dl_tensor_floor_divide (out, n, error);
      dl_set_grad_enabled (was);
      if (!mean)
        return NULL;
      g_set_object (&out, mean);
    }
  if (!record_scatter (kind, reduce, include_self, inplace, self, dim, index, src, out, error))
    return NULL;
  return g_steal_pointer (&out);
}

/**
 * dl_tensor_scatter:
 * @self: a #DlTensor
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @src: the values, of @self's dtype, at least as big as @index
 * @error: return location for a #GError
 *
 * A copy of @self with self[index[i][j]][j] = src[i][j] for @dim 0, and so
 * on, as torch.scatter. Where indices repeat, which value lands is not
 * specified.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter (DlTensor *self, gint64 dim, DlTensor *index, DlTensor *src, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  return scatter_impl ("scatter", SCATTER_SRC, REDUCE_NONE, TRUE, FALSE, self, dim, index, src, 0,
                       error);
}

/**
 * dl_tensor_scatter_value:
 * @self: a #DlTensor
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @value: the value to write
 * @error: return location for a #GError
 *
 * A copy of @self with @value written at the places @index names, as
 * torch.scatter with a number.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_value (DlTensor *self, gint64 dim, DlTensor *index, gdouble value, GError **error)
{
  return scatter_impl ("scatter", SCATTER_VALUE, REDUCE_NONE, TRUE, FALSE, self, dim, index, NULL,
                       value, error);
}

/**
 * dl_tensor_scatter_add:
 * @self: a #DlTensor
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @src: the values, of @self's dtype, at least as big as @index
 * @error: return location for a #GError
 *
 * A copy of @self with self[index[i][j]][j] += src[i][j] for @dim 0, and
 * so on, summing repeated indices, as torch.scatter_add.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_add (DlTensor *self, gint64 dim, DlTensor *index, DlTensor *src, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  return scatter_impl ("scatter_add", SCATTER_ADD, REDUCE_NONE, TRUE, FALSE, self, dim, index, src,
                       0, error);
}

static DlTensor *
scatter_inplace (const gchar *op,
                 gint kind,
                 Reduction reduce,
                 gboolean include_self,
                 DlTensor *self,
                 gint64 dim,
                 DlTensor *index,
                 DlTensor *src,
                 gdouble value,
                 GError **error)
{
  g_autoptr (DlTensor) alias = NULL;
  g_autoptr (DlTensor) result = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(alias = dl_index_inplace_alias (op, self, error))
      || !(result = scatter_impl (op, kind, reduce, include_self, TRUE, alias, dim, index, src,
                                  value, error)))
    return NULL;
  return dl_index_commit_inplace (op, self, result, error);
}

/**
 * dl_tensor_scatter_:
 * @self: a #DlTensor, written in place
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @src: the values, of @self's dtype, at least as big as @index
 * @error: return location for a #GError
 *
 * dl_tensor_scatter() in place, as torch.Tensor.scatter_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_ (DlTensor *self, gint64 dim, DlTensor *index, DlTensor *src, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  return scatter_inplace ("scatter_", SCATTER_SRC, REDUCE_NONE, TRUE, self, dim, index, src, 0,
                          error);
}

/**
 * dl_tensor_scatter_value_:
 * @self: a #DlTensor, written in place
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @value: the value to write
 * @error: return location for a #GError
 *
 * dl_tensor_scatter_value() in place, as torch.Tensor.scatter_ with a
 * number.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_value_ (DlTensor *self,
                          gint64 dim,
                          DlTensor *index,
                          gdouble value,
                          GError **error)
{
  return scatter_inplace ("scatter_", SCATTER_VALUE, REDUCE_NONE, TRUE, self, dim, index, NULL,
                          value, error);
}

/**
 * dl_tensor_scatter_add_:
 * @self: a #DlTensor, written in place
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @src: the values, of @self's dtype, at least as big as @index
 * @error: return location for a #GError
 *
 * dl_tensor_scatter_add() in place, as torch.Tensor.scatter_add_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_add_ (DlTensor *self, gint64 dim, DlTensor *index, DlTensor *src, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  return scatter_inplace ("scatter_add_", SCATTER_ADD, REDUCE_NONE, TRUE, self, dim, index, src, 0,
                          error);
}

/**
 * dl_tensor_scatter_with_reduce:
 * @self: a #DlTensor
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @src: the values, of @self's dtype, at least as big as @index
 * @reduce: how values combine with what is there: "add" or "multiply"
 * @error: return location for a #GError
 *
 * A copy of @self with self[index[i][j]][j] += src[i][j] ("add") or
 * *= src[i][j] ("multiply") for @dim 0, and so on, as torch.scatter with
 * reduce=. As in PyTorch, the result is not differentiable: a backward
 * pass through it fails; dl_tensor_scatter_reduce() has gradients.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_with_reduce (DlTensor *self,
                               gint64 dim,
                               DlTensor *index,
                               DlTensor *src,
                               const gchar *reduce,
                               GError **error)
{
  Reduction r;

  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  g_return_val_if_fail (reduce != NULL, NULL);
  if (!parse_reduce ("scatter", reduce, TRUE, &r, error))
    return NULL;
  return scatter_impl ("scatter", SCATTER_SRC, r, TRUE, FALSE, self, dim, index, src, 0, error);
}

/**
 * dl_tensor_scatter_value_with_reduce:
 * @self: a #DlTensor
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @value: the value, converted to @self's dtype
 * @reduce: how it combines with what is there: "add" or "multiply"
 * @error: return location for a #GError
 *
 * A copy of @self with @value added to ("add") or multiplied into
 * ("multiply") each place @index names, once per time it names it, as
 * torch.scatter with a number and reduce=. Not differentiable, as in
 * PyTorch.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_value_with_reduce (DlTensor *self,
                                     gint64 dim,
                                     DlTensor *index,
                                     gdouble value,
                                     const gchar *reduce,
                                     GError **error)
{
  Reduction r;

  g_return_val_if_fail (reduce != NULL, NULL);
  if (!parse_reduce ("scatter", reduce, TRUE, &r, error))
    return NULL;
  return scatter_impl ("scatter", SCATTER_VALUE, r, TRUE, FALSE, self, dim, index, NULL, value,
                       error);
}

/**
 * dl_tensor_scatter_with_reduce_:
 * @self: a #DlTensor, written in place
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @src: the values, of @self's dtype, at least as big as @index
 * @reduce: "add" or "multiply"
 * @error: return location for a #GError
 *
 * dl_tensor_scatter_with_reduce() in place, as torch.Tensor.scatter_ with
 * reduce=.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_with_reduce_ (DlTensor *self,
                                gint64 dim,
                                DlTensor *index,
                                DlTensor *src,
                                const gchar *reduce,
                                GError **error)
{
  Reduction r;

  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  g_return_val_if_fail (reduce != NULL, NULL);
  if (!parse_reduce ("scatter_", reduce, TRUE, &r, error))
    return NULL;
  return scatter_inplace ("scatter_", SCATTER_SRC, r, TRUE, self, dim, index, src, 0, error);
}

/**
 * dl_tensor_scatter_value_with_reduce_:
 * @self: a #DlTensor, written in place
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @value: the value, converted to @self's dtype
 * @reduce: "add" or "multiply"
 * @error: return location for a #GError
 *
 * dl_tensor_scatter_value_with_reduce() in place, as
 * torch.Tensor.scatter_ with a number and reduce=.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_value_with_reduce_ (DlTensor *self,
                                      gint64 dim,
                                      DlTensor *index,
                                      gdouble value,
                                      const gchar *reduce,
                                      GError **error)
{
  Reduction r;

  g_return_val_if_fail (reduce != NULL, NULL);
  if (!parse_reduce ("scatter_", reduce, TRUE, &r, error))
    return NULL;
  return scatter_inplace ("scatter_", SCATTER_VALUE, r, TRUE, self, dim, index, NULL, value, error);
}

/**
 * dl_tensor_scatter_reduce:
 * @self: a #DlTensor
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @src: the values, of @self's dtype, at least as big as @index
 * @reduce: "sum", "prod", "mean", "amax" or "amin"
 * @include_self: whether @self's value at a place takes part in its
 *   reduction
 * @error: return location for a #GError
 *
 * A copy of @self where each place that @index names holds the reduction
 * of the values of @src scattered there (and of @self's value, with
 * @include_self), as torch.scatter_reduce: out[index[i][j]][j] reduces
 * src[i][j] over every i, j that name it, for @dim 0. Places no index
 * names keep @self's value. "mean" divides by the number of values
 * reduced, rounding integers down (not for bool); "amax" and "amin"
 * propagate NaN.
 *
 * Differentiable in @self and @src for floating-point dtypes: the
 * gradient of "amax" and "amin" splits evenly among the values equal to
 * the result; that of "prod" handles zeros.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_reduce (DlTensor *self,
                          gint64 dim,
                          DlTensor *index,
                          DlTensor *src,
                          const gchar *reduce,
                          gboolean include_self,
                          GError **error)
{
  Reduction r;

  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  g_return_val_if_fail (reduce != NULL, NULL);
  if (!parse_reduce ("scatter_reduce", reduce, FALSE, &r, error))
    return NULL;
  return scatter_impl ("scatter_reduce", SCATTER_REDUCE, r, include_self, FALSE, self, dim, index,
                       src, 0, error);
}

/**
 * dl_tensor_scatter_reduce_:
 * @self: a #DlTensor, written in place
 * @dim: the dim to scatter along
 * @index: int64 indices, with the ndim of @self
 * @src: the values, of @self's dtype, at least as big as @index
 * @reduce: "sum", "prod", "mean", "amax" or "amin"
 * @include_self: whether @self's value at a place takes part in its
 *   reduction
 * @error: return location for a #GError
 *
 * dl_tensor_scatter_reduce() in place, as torch.Tensor.scatter_reduce_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_scatter_reduce_ (DlTensor *self,
                           gint64 dim,
                           DlTensor *index,
                           DlTensor *src,
                           const gchar *reduce,
                           gboolean include_self,
                           GError **error)
{
  Reduction r;

  g_return_val_if_fail (DL_IS_TENSOR (src), NULL);
  g_return_val_if_fail (reduce != NULL, NULL);
  if (!parse_reduce ("scatter_reduce_", reduce, FALSE, &r, error))
    return NULL;
  return scatter_inplace ("scatter_reduce_", SCATTER_REDUCE, r, include_self, self, dim, index, src,
                          0, error);
}

/**
 * dl_tensor_bincount:
 * @self: a 1-d tensor of non-negative integers
 * @weights: (nullable): a weight per element of @self, or %NULL to count
 * @minlength: the least length of the result
 * @error: return location for a #GError
 *
 * How often each value occurs in @self (or the sum of its elements'
 * weights), as torch.bincount(): element i of the result counts the
 * elements equal to i; the result has max(@self) + 1 elements, at least
 * @minlength. Counts are int64; sums have the weights' dtype when it is
 * floating, float64 otherwise.
 *
 * Returns: (transfer full): the counts, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bincount (DlTensor *self, DlTensor *weights, gint64 minlength, GError **error)
{
  g_autoptr (DlTensor) top = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) w = NULL;
  DlDType dtype = DL_DTYPE_INT64;
  gint64 n = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (weights == NULL || DL_IS_TENSOR (weights), NULL);
  const gboolean integral
      = !dl_dtype_is_floating_point (self->dtype) && self->dtype != DL_DTYPE_BOOL;

  if (self->ndim != 1 || !integral)
    {
      g_set_error (error, DL_ERROR, integral ? DL_ERROR_SHAPE : DL_ERROR_DTYPE,
                   "bincount: bincount only supports 1-d non-negative integral inputs (got a "
                   "%dD %s tensor)",
                   self->ndim, dl_dtype_get_name (self->dtype));
      return NULL;
    }
  if (minlength < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "bincount: minlength should be >= 0, got %" G_GINT64_FORMAT, minlength);
      return NULL;
    }
  if (weights && (weights->ndim != 1 || weights->sizes[0] != self->sizes[0]))
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_SHAPE,
          "bincount: weights should be 1-d and have the same length as input (%" G_GINT64_FORMAT
          " elements, weights of %dD)",
          self->sizes[0], weights ? weights->ndim : 0);
      return NULL;
    }
  if (self->sizes[0] > 0 && dl_tensor_on_meta (self))
    {
      /* the output's length is the largest value */
      dl_meta_no_data ("bincount", error);
      return NULL;
    }
  if (self->sizes[0] > 0)
    {
      g_autoptr (DlTensor) low = dl_tensor_min (self, error);

      if (!low || !(top = dl_tensor_max (self, error)))
        return NULL;
      if (dl_tensor_item (low, NULL) < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "bincount: bincount only supports 1-d non-negative integral inputs (got "
                       "%g)",
                       dl_tensor_item (low, NULL));
          return NULL;
        }
      n = (gint64)dl_tensor_item (top, NULL) + 1;
    }
  n = MAX (n, minlength);
  if (weights)
    dtype = dl_dtype_is_floating_point (weights->dtype) ? weights->dtype : DL_DTYPE_FLOAT64;
  if (!(out = dl_zeros ((gint64[]){ n }, 1, dtype, dl_tensor_get_device (self), error))
      || !(idx = dl_tensor_to_dtype (self, DL_DTYPE_INT64, error)))
    return NULL;
  if (weights)
    w = dl_tensor_to_dtype (weights, dtype, error);
  else
    w = dl_ones (self->sizes, 1, dtype, dl_tensor_get_device (self), error);
  if (!w || !dl_tensor_scatter_add_ (out, 0, idx, w, error))
    return NULL;
  return g_steal_pointer (&out);
}
