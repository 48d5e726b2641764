/* dl-ops-scan.c: cumsum, cumprod, cummax, cummin, sort, topk, median,
 * nanmedian, kthvalue, unique and unique_consecutive (of elements, or of
 * slices along a dim), and their gradients.
 *
 * The kernels work on contiguous rows: an op copies its input with the
 * chosen dim moved last into a fresh buffer, runs the kernel in place, and
 * moves the dim back.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-reduce-private.h"

/* A fresh contiguous copy of @x (as @dtype) with @dim moved last, and its
 * row count and length. No autograd. */
static DlTensor *
rows_copy (DlTensor *x, gint64 dim, DlDType dtype, gint64 *n_rows, gint64 *n, GError **error)
{
  g_autoptr (DlTensor) det = dl_tensor_detach (x);
  g_autoptr (DlTensor) tr = NULL;
  DlTensor *out, *ops[2];
  DlBackendContext *ctx;
  DlIter iter;

  if (!(ctx = DL_TENSOR_BACKEND (x, copy, "copy", error)))
    return NULL;

  if (x->ndim > 1 && dim != x->ndim - 1)
    {
      if (!(tr = dl_tensor_transpose (det, dim, -1, error)))
        return NULL;
    }
  else
    tr = g_object_ref (det);
  if (!(out
        = dl_tensor_new_empty_internal (dl_tensor_device (x), dtype, tr->sizes, tr->ndim, error)))
    return NULL;
  ops[0] = out;
  ops[1] = tr;
  dl_iter_init (&iter, 2, ops, tr->sizes, tr->ndim);
  ctx->backend->copy (ctx, &iter, dtype, tr->dtype);
  *n = x->ndim == 0 ? 1 : x->sizes[dim];
  *n_rows = *n == 0 ? 0 : x->numel / *n;
  return out;
}

/* Undoes rows_copy's move of @dim (for a tensor of @ndim dims), contiguous. */
static DlTensor *
rows_restore (DlTensor *t, gint64 dim, gint ndim, GError **error)
{
  g_autoptr (DlTensor) tr = NULL;

  if (ndim <= 1 || dim == ndim - 1)
    return g_object_ref (t);
  if (!(tr = dl_tensor_transpose (t, dim, -1, error)))
    return NULL;
  return dl_contiguous_nograd (tr, error);
}

/* out (zeros shaped @sizes) with out[..., index[..., j], ...] += src[..., j, ...]
 * along @dim; no autograd. */
static DlTensor *
scatter_dim (DlTensor *src,
             DlTensor *index,
             gint64 dim,
             const gint64 *sizes,
             gint ndim,
             GError **error)
{
  gint64 rows, n_src, rows_o, n_out;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) i = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) zr = NULL;
  DlBackendContext *ctx;

  if (!(ctx = DL_TENSOR_BACKEND (src, scatter_rows, "scatter", error))
      || !(z = dl_zeros (sizes, ndim, src->dtype, dl_tensor_device (src), error))
      || !(zr = rows_copy (z, dim, src->dtype, &rows_o, &n_out, error))
      || !(s = rows_copy (src, dim, src->dtype, &rows, &n_src, error))
      || !(i = rows_copy (index, dim, DL_DTYPE_INT64, &rows, &n_src, error)))
    return NULL;
  ctx->backend->scatter_rows (ctx, dl_tensor_data (zr), dl_tensor_data (s), dl_tensor_data (i),
                              rows, n_src, n_out, src->dtype, TRUE);
  return rows_restore (zr, dim, ndim, error);
}

/* ---- cumsum, cumprod ------------------------------------------------------ */

static DlTensor *scan (DlScanOp op, DlTensor *self, gint64 dim, GError **error);

/* @t (owned, nullable) converted to @dtype. */
static DlTensor *
owned_as (DlTensor *t, DlDType dtype, GError **error)
{
  g_autoptr (DlTensor) owned = t;

  return owned ? dl_tensor_to_dtype (owned, dtype, error) : NULL;
}

/* Along the last dim of a tensor: the sum of the elements at and after
 * each position. */
static DlTensor *
reverse_cumsum (DlTensor *g, gint64 dim, GError **error)
{
  g_autoptr (DlTensor) total = NULL;
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) d = NULL;

  if (!(total = dl_tensor_sum_dims (g, &dim, 1, TRUE, error))
      || !(c = scan (DL_SCAN_CUMSUM, g, dim, error)) || !(d = dl_tensor_sub (total, c, error)))
    return NULL;
  return dl_tensor_add (d, g, error);
}

typedef struct
{
  gint dim;
  DlSavedTensor x, out; /* cumprod only */
} ScanState;

static gboolean
cumsum_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ScanState *s = dl_node_state (node);

  if (dl_node_data (node)->inputs[0].ndim == 0)
    gi[0] = g_object_ref (go[0]);
  else
    gi[0] = reverse_cumsum (go[0], s->dim, error);
  return gi[0] != NULL;
}

/* d out_k / d x_i = prod_{j <= k, j != i} x_j for k >= i. Without zeros
 * the gradient is reverse_cumsum (g * out) / x; with zeros the products
 * that skip x_i are formed explicitly: an n x n cumprod per row. */
static gboolean
cumprod_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ScanState *s = dl_node_state (node);
  gint dim = s->dim;
  gint ndim = dl_node_data (node)->inputs[0].ndim;
  DlTensor *x, *out;
  gdouble zeros;
  g_autoptr (DlTensor) eqz = NULL;
  g_autoptr (DlTensor) anyz = NULL;

  if (!(x = dl_node_saved (node, &s->x, error)) || !(out = dl_node_saved (node, &s->out, error)))
    return FALSE;
  if (ndim == 0 || x->numel == 0)
    {
      gi[0] = g_object_ref (go[0]);
      return TRUE;
    }
  /* on the meta device there are no values to look for zeros in: both
   * paths give the same shapes */
  if (dl_tensor_on_meta (x))
    zeros = 0;
  else if (!(eqz = dl_tensor_eq_scalar (x, 0, error))
           || !(anyz = dl_tensor_any (eqz, NULL, 0, FALSE, error)))
    return FALSE;
  else
    zeros = dl_tensor_item (anyz, error);
  if (!zeros)
    {
      g_autoptr (DlTensor) go_out = NULL;
      g_autoptr (DlTensor) r = NULL;

      if (!(go_out = dl_tensor_mul (go[0], out, error))
          || !(r = reverse_cumsum (go_out, dim, error)))
        return FALSE;
      gi[0] = dl_tensor_div (r, x, error);
      return gi[0] != NULL;
    }
  else
    {
      gint64 n = x->sizes[dim];
      gint64 col[2] = { n, 1 };
      g_autoptr (DlTensor) xt = NULL;
      g_autoptr (DlTensor) gt = NULL;
      g_autoptr (DlTensor) xu = NULL;
      g_autoptr (DlTensor) gu = NULL;
      g_autoptr (DlTensor) ar = NULL;
      g_autoptr (DlTensor) arc = NULL;
      g_autoptr (DlTensor) eye = NULL;
      g_autoptr (DlTensor) tri = NULL;
      g_autoptr (DlTensor) keep = NULL;
      g_autoptr (DlTensor) xk = NULL;
      g_autoptr (DlTensor) big = NULL;
      g_autoptr (DlTensor) c = NULL;
      g_autoptr (DlTensor) cg = NULL;
      g_autoptr (DlTensor) cgt = NULL;
      g_autoptr (DlTensor) s = NULL;
      gint64 last = -1;

      /* work with dim last: X[..., i, j] = x_j for j != i, 1 for j == i */
      if (!(xt = dl_tensor_transpose (x, dim, -1, error))
          || !(gt = dl_tensor_transpose (go[0], dim, -1, error))
          || !(xu = dl_tensor_unsqueeze (xt, -2, error))
          || !(gu = dl_tensor_unsqueeze (gt, -2, error))
          || !(ar = dl_arange (0, n, 1, DL_DTYPE_INT64, NULL, error))
          || !(arc = dl_reshape_view (ar, col, 2, error))
          || !(eye = owned_as (dl_tensor_eq (arc, ar, error), x->dtype, error))
          || !(tri = owned_as (dl_tensor_le (arc, ar, error), x->dtype, error))
          || !(keep = dl_tensor_rsub_scalar (eye, 1, error))
          || !(xk = dl_tensor_mul (xu, keep, error)) || !(big = dl_tensor_add (xk, eye, error))
          || !(c = scan (DL_SCAN_CUMPROD, big, last, error)) || !(cg = dl_tensor_mul (c, gu, error))
          || !(cgt = dl_tensor_mul (cg, tri, error))
          || !(s = dl_tensor_sum_dims (cgt, &last, 1, FALSE, error)))
        return FALSE;
      if (dim == ndim - 1)
        gi[0] = g_object_ref (s);
      else
        {
          g_autoptr (DlTensor) st = dl_tensor_transpose (s, dim, -1, error);
          gi[0] = st ? dl_tensor_contiguous (st, error) : NULL;
        }
      return gi[0] != NULL;
    }
}

static DlTensor *
scan (DlScanOp op, DlTensor *self, gint64 dim, GError **error)
{
  const gchar *name = op == DL_SCAN_CUMSUM ? "cumsum" : "cumprod";
  DlDType dt = dl_dtype_is_float (self->dtype) ? self->dtype : DL_DTYPE_INT64;
  gint64 rows, n;
  g_autoptr (DlTensor) r = NULL;
  DlBackendContext *ctx;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_normalize_dim (name, &dim, self->ndim, error)
      || !(ctx = DL_TENSOR_BACKEND (self, scan, name, error)))
    return NULL;
  if (!(r = rows_copy (self, dim, dt, &rows, &n, error)))
    return NULL;
  if (rows > 0)
    ctx->backend->scan (ctx, op, dl_tensor_data (r), rows, n, dt);
  if (!(out = rows_restore (r, dim, self->ndim, error)))
    return NULL;
  if (dl_dtype_is_float (self->dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (
          op == DL_SCAN_CUMSUM ? "CumsumBackward0" : "CumprodBackward0",
          op == DL_SCAN_CUMSUM ? cumsum_backward : cumprod_backward, 1, &self);
      ScanState *s = DL_NODE_NEW_STATE (node, ScanState);

      s->dim = dim;
      if (op == DL_SCAN_CUMPROD)
        {
          dl_node_save (node, &s->x, self, FALSE);
          dl_node_save (node, &s->out, out, TRUE);
        }
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_cumsum:
 * @self: a #DlTensor
 * @dim: the dim to accumulate along
 * @error: return location for a #GError
 *
 * The running sums along @dim. Integer and bool tensors accumulate into
 * int64.
 *
 * Returns: (transfer full): the sums, shaped like @self, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_cumsum (DlTensor *self, gint64 dim, GError **error)
{
  return scan (DL_SCAN_CUMSUM, self, dim, error);
}

/**
 * dl_tensor_cumprod:
 * @self: a #DlTensor
 * @dim: the dim to accumulate along
 * @error: return location for a #GError
 *
 * The running products along @dim. Integer and bool tensors accumulate
 * into int64.
 *
 * Returns: (transfer full): the products, shaped like @self, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_cumprod (DlTensor *self, gint64 dim, GError **error)
{
  return scan (DL_SCAN_CUMPROD, self, dim, error);
}

static DlTensor *
scan_compute (DlTensor *src, gpointer data, DlTensor *into, GError **error)
{
  const gint64 *a = data;

  return scan ((DlScanOp)a[0], src, a[1], error);
}

/* in place, self = the scan @op of self along @dim, in @self's dtype */
static DlTensor *
scan_inplace (const gchar *name, DlScanOp op, DlTensor *self, gint64 dim, GError **error)
{
  gint64 a[2] = { op, dim };

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_write_target (name, self, error))
    return NULL;
  /* cumprod's gradient reads its input: the old values */
  return dl_inplace_run (name, self, 0, NULL, op == DL_SCAN_CUMPROD, scan_compute, a, error);
}

/**
 * dl_tensor_cumsum_:
 * @self: a #DlTensor, written in place
 * @dim: the dim to accumulate along
 * @error: return location for a #GError
 *
 * In place, the running sums along @dim, as torch.Tensor.cumsum_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_cumsum_ (DlTensor *self, gint64 dim, GError **error)
{
  return scan_inplace ("cumsum_", DL_SCAN_CUMSUM, self, dim, error);
}

/**
 * dl_tensor_cumprod_:
 * @self: a #DlTensor, written in place
 * @dim: the dim to accumulate along
 * @error: return location for a #GError
 *
 * In place, the running products along @dim, as torch.Tensor.cumprod_.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_cumprod_ (DlTensor *self, gint64 dim, GError **error)
{
  return scan_inplace ("cumprod_", DL_SCAN_CUMPROD, self, dim, error);
}

/* ---- cummax, cummin -------------------------------------------------------- */

static void record_index_node (const gchar *name,
                               DlTensor *self,
                               DlTensor *values,
                               DlTensor *indices,
                               gint64 dim,
                               gboolean squeezed);

static DlTensor *
scan_extremum (gboolean is_max, DlTensor *self, gint64 dim, DlTensor **indices, GError **error)
{
  const gchar *name = is_max ? "cummax" : "cummin";
  gint64 rows, n;
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) i = NULL;
  g_autoptr (DlTensor) vo = NULL;
  g_autoptr (DlTensor) io = NULL;
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_normalize_dim (name, &dim, self->ndim, error)
      || !(ctx = DL_TENSOR_BACKEND (self, scan_extremum, name, error)))
    return NULL;
  if (!(r = rows_copy (self, dim, self->dtype, &rows, &n, error))
      || !(i = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, r->sizes,
                                             r->ndim, error)))
    return NULL;
  if (rows > 0)
    ctx->backend->scan_extremum (ctx, dl_tensor_data (r), dl_tensor_data (i), rows, n, self->dtype,
                                 is_max);
  if (!(vo = rows_restore (r, dim, self->ndim, error))
      || !(io = rows_restore (i, dim, self->ndim, error)))
    return NULL;
  record_index_node (is_max ? "CummaxBackward0" : "CumminBackward0", self, vo, io, dim, FALSE);
  if (indices)
    *indices = g_steal_pointer (&io);
  return g_steal_pointer (&vo);
}

/**
 * dl_tensor_cummax:
 * @self: a #DlTensor
 * @dim: the dim to accumulate along
 * @indices: (out) (optional) (transfer full): where to store the int64
 *   positions of the running maxima (the last one on ties)
 * @error: return location for a #GError
 *
 * The running maxima along @dim; a NaN stays once seen.
 *
 * Returns: (transfer full): the maxima, shaped like @self, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_cummax (DlTensor *self, gint64 dim, DlTensor **indices, GError **error)
{
  return scan_extremum (TRUE, self, dim, indices, error);
}

/**
 * dl_tensor_cummin:
 * @self: a #DlTensor
 * @dim: the dim to accumulate along
 * @indices: (out) (optional) (transfer full): where to store the int64
 *   positions of the running minima (the last one on ties)
 * @error: return location for a #GError
 *
 * The running minima along @dim; a NaN stays once seen.
 *
 * Returns: (transfer full): the minima, shaped like @self, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_cummin (DlTensor *self, gint64 dim, DlTensor **indices, GError **error)
{
  return scan_extremum (FALSE, self, dim, indices, error);
}

/* ---- sort, topk, median --------------------------------------------------- */

typedef struct
{
  gint dim;
  gboolean squeezed; /* the indices lack the dim (a median without keepdim) */
  DlSavedTensor indices;
} IndexState;

/* The gradient of values picked by indices along a dim: summed back into
 * those positions, zeros elsewhere. */
static gboolean
index_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const IndexState *s = dl_node_state (node);
  DlInputMeta *in = &dl_node_data (node)->inputs[0];
  gint dim = s->dim;
  DlTensor *idx;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) ik = NULL;

  if (!(idx = dl_node_saved (node, &s->indices, error)))
    return FALSE;
  if (in->ndim == 0)
    {
      gi[0] = g_object_ref (go[0]);
      return TRUE;
    }
  if (!(g = s->squeezed ? dl_tensor_unsqueeze (go[0], dim, error) : g_object_ref (go[0]))
      || !(ik = s->squeezed ? dl_tensor_unsqueeze (idx, dim, error) : g_object_ref (idx)))
    return FALSE;
  if (dl_autograd_any_requires (1, &g))
    {
      /* create_graph: the same sum through the differentiable scatter_add */
      g_autoptr (DlTensor) z
          = dl_zeros (in->sizes, in->ndim, g->dtype, dl_tensor_get_device (g), error);

      gi[0] = z ? dl_tensor_scatter_add (z, dim, ik, g, error) : NULL;
    }
  else
    gi[0] = scatter_dim (g, ik, dim, in->sizes, in->ndim, error);
  return gi[0] != NULL;
}

static void
record_index_node (const gchar *name,
                   DlTensor *self,
                   DlTensor *values,
                   DlTensor *indices,
                   gint64 dim,
                   gboolean squeezed)
{
  if (dl_dtype_is_float (self->dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (name, index_backward, 1, &self);
      IndexState *s = DL_NODE_NEW_STATE (node, IndexState);

      s->dim = dim;
      s->squeezed = squeezed;
      dl_node_save (node, &s->indices, indices, FALSE);
      dl_node_set_output (node, values, 0);
    }
}

/* Sorted values and indices along @dim, dim moved last, no autograd. */
static gboolean
sort_rows (DlTensor *self,
           gint64 dim,
           gboolean descending,
           gint64 k,
           gboolean kth_only,
           DlTensor **values,
           DlTensor **indices,
           GError **error)
{
  gint64 rows, n;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) i = NULL;
  DlBackendContext *ctx;

  if (!(ctx = DL_TENSOR_BACKEND (self, sort, "sort", error))
      || !(v = rows_copy (self, dim, self->dtype, &rows, &n, error))
      || !(i = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, v->sizes,
                                             v->ndim, error)))
    return FALSE;
  if (rows > 0)
    ctx->backend->sort (ctx, dl_tensor_data (v), dl_tensor_data (i), rows, n, CLAMP (k, 0, n),
                        kth_only, self->dtype, descending);
  *values = g_steal_pointer (&v);
  *indices = g_steal_pointer (&i);
  return TRUE;
}

/**
 * dl_tensor_sort:
 * @self: a #DlTensor
 * @dim: the dim to sort along
 * @descending: whether the largest come first
 * @indices: (out) (optional) (transfer full): where to store the int64
 *   original positions of the sorted elements
 * @error: return location for a #GError
 *
 * Sorts along @dim. The sort is stable: equal elements keep their order.
 * NaN counts as greater than every number.
 *
 * Returns: (transfer full): the sorted values, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_sort (DlTensor *self, gint64 dim, gboolean descending, DlTensor **indices, GError **error)
{
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) i = NULL;
  g_autoptr (DlTensor) vo = NULL;
  g_autoptr (DlTensor) io = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_normalize_dim ("sort", &dim, self->ndim, error))
    return NULL;
  if (!sort_rows (self, dim, descending, G_MAXINT64, FALSE, &v, &i, error)
      || !(vo = rows_restore (v, dim, self->ndim, error))
      || !(io = rows_restore (i, dim, self->ndim, error)))
    return NULL;
  record_index_node ("SortBackward0", self, vo, io, dim, FALSE);
  if (indices)
    *indices = g_steal_pointer (&io);
  return g_steal_pointer (&vo);
}

/**
 * dl_tensor_topk:
 * @self: a #DlTensor
 * @k: how many elements to take
 * @dim: the dim to take them along
 * @largest: whether to take the largest (else the smallest)
 * @indices: (out) (optional) (transfer full): where to store their int64
 *   positions along @dim
 * @error: return location for a #GError
 *
 * The @k largest (or smallest) elements along @dim, in sorted order.
 *
 * Returns: (transfer full): the values, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_topk (DlTensor *self,
                gint64 k,
                gint64 dim,
                gboolean largest,
                DlTensor **indices,
                GError **error)
{
  gint64 n;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) i = NULL;
  g_autoptr (DlTensor) vn = NULL;
  g_autoptr (DlTensor) in = NULL;
  g_autoptr (DlTensor) vc = NULL;
  g_autoptr (DlTensor) ic = NULL;
  g_autoptr (DlTensor) vo = NULL;
  g_autoptr (DlTensor) io = NULL;
  gint64 last;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_normalize_dim ("topk", &dim, self->ndim, error))
    return NULL;
  n = self->ndim == 0 ? 1 : self->sizes[dim];
  if (k < 0 || k > n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "topk: selected index k out of range (k = %" G_GINT64_FORMAT
                   ", size of dim %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT ")",
                   k, dim, n);
      return NULL;
    }
  if (!sort_rows (self, dim, largest, k, FALSE, &v, &i, error))
    return NULL;
  last = MAX (v->ndim - 1, 0);
  if (v->ndim == 0)
    {
      vc = g_object_ref (v);
      ic = g_object_ref (i);
    }
  else if (!(vn = dl_tensor_narrow (v, last, 0, k, error))
           || !(in = dl_tensor_narrow (i, last, 0, k, error))
           || !(vc = dl_contiguous_nograd (vn, error)) || !(ic = dl_contiguous_nograd (in, error)))
    return NULL;
  if (!(vo = rows_restore (vc, dim, self->ndim, error))
      || !(io = rows_restore (ic, dim, self->ndim, error)))
    return NULL;
  record_index_node ("TopkBackward0", self, vo, io, dim, FALSE);
  if (indices)
    *indices = g_steal_pointer (&io);
  return g_steal_pointer (&vo);
}

/* The element at sorted position @k along @dim and its index; for @k = -1
 * the lower median (NaN, the first, where a row holds NaN), for @k = -2
 * the lower median of the elements that are not NaN. */
static DlTensor *
pick_dim (const gchar *name,
          DlTensor *self,
          gint64 k,
          gint64 dim,
          gboolean keepdim,
          DlTensor **indices,
          GError **error)
{
  gint64 n, rows, half;
  gint64 last;
  gboolean any_nan = FALSE;
  gint64 kshape[DL_MAX_DIMS];
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) i = NULL;
  g_autoptr (DlTensor) pos = NULL;
  g_autoptr (DlTensor) vc = NULL;
  g_autoptr (DlTensor) ic = NULL;
  g_autoptr (DlTensor) vo = NULL;
  g_autoptr (DlTensor) io = NULL;
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_normalize_dim (name, &dim, self->ndim, error))
    return NULL;
  n = self->ndim == 0 ? 1 : self->sizes[dim];
  if (k < 0 && !dl_reduce_check_nonempty (name, self, dim, error))
    return NULL;
  if (k >= 0 && k >= n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: selected number k out of range for dimension %" G_GINT64_FORMAT
                   " (k = %" G_GINT64_FORMAT ", size %" G_GINT64_FORMAT ")",
                   name, dim, k + 1, n);
      return NULL;
    }
  if (!(ctx = DL_TENSOR_BACKEND (self, gather_rows, name, error)))
    return NULL;
  half = k >= 0 ? k : (n - 1) / 2;
  /* only the rows' first half + 1 need sorting, unless NaN moves the
   * median to a row's first NaN */
  if (k < 0 && dl_dtype_is_float (self->dtype))
    {
      g_autoptr (DlTensor) isn = dl_tensor_ne (self, self, error);
      g_autoptr (DlTensor) anyn = isn ? dl_tensor_any (isn, NULL, 0, FALSE, error) : NULL;

      if (!anyn)
        return NULL;
      any_nan = dl_tensor_item (anyn, NULL) != 0;
    }
  if (!sort_rows (self, dim, FALSE, any_nan ? n : half + 1, TRUE, &v, &i, error))
    return NULL;
  last = MAX (v->ndim - 1, 0);
  rows = self->numel / n;
  /* the position to take in each sorted row: the lower middle; where a
   * row holds NaN (sorted last, stably), its first NaN for median, the
   * middle of the numbers before for nanmedian */
  if (any_nan && v->ndim > 0)
    {
      g_autoptr (DlTensor) isn = dl_tensor_ne (v, v, error);
      g_autoptr (DlTensor) cnt = isn ? dl_tensor_sum_dims (isn, &last, 1, TRUE, error) : NULL;

      if (!cnt)
        return NULL;
      if (k == -1)
        {
          g_autoptr (DlTensor) has
              = owned_as (dl_tensor_gt_scalar (cnt, 0, error), DL_DTYPE_INT64, error);
          g_autoptr (DlTensor) off = has ? dl_tensor_rsub_scalar (cnt, n - half, error) : NULL;
          g_autoptr (DlTensor) shift = off ? dl_tensor_mul (has, off, error) : NULL;

          if (!shift || !(pos = dl_tensor_add_scalar (shift, half, error)))
            return NULL;
        }
      else
        {
          /* (n - 1 - count) / 2, rounded toward 0: 0 for a row of NaN */
          g_autoptr (DlTensor) valid = dl_tensor_rsub_scalar (cnt, n - 1, error);
          g_autoptr (DlTensor) vf
              = valid ? dl_tensor_to_dtype (valid, DL_DTYPE_FLOAT64, error) : NULL;
          g_autoptr (DlTensor) h = vf ? dl_tensor_mul_scalar (vf, 0.5, error) : NULL;

          if (!h || !(pos = dl_tensor_to_dtype (h, DL_DTYPE_INT64, error)))
            return NULL;
        }
    }
  else
    {
      for (gint d = 0; d < v->ndim; d++)
        kshape[d] = d == last ? 1 : v->sizes[d];
      if (!(pos = dl_full (kshape, v->ndim, half, DL_DTYPE_INT64, dl_tensor_device (self), error)))
        return NULL;
    }
  if (!(vc = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, pos->sizes,
                                           pos->ndim, error))
      || !(ic = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, pos->sizes,
                                              pos->ndim, error)))
    return NULL;
  ctx->backend->gather_rows (ctx, dl_tensor_data (vc), dl_tensor_data (v), dl_tensor_data (pos),
                             rows, 1, n, self->dtype);
  ctx->backend->gather_rows (ctx, dl_tensor_data (ic), dl_tensor_data (i), dl_tensor_data (pos),
                             rows, 1, n, DL_DTYPE_INT64);
  if (!(vo = rows_restore (vc, dim, self->ndim, error))
      || !(io = rows_restore (ic, dim, self->ndim, error)))
    return NULL;
  if (!keepdim && self->ndim > 0)
    {
      DlTensor *t;

      if (!(t = dl_tensor_squeeze_dim (vo, dim, error)))
        return NULL;
      g_object_unref (vo);
      vo = t;
      if (!(t = dl_tensor_squeeze_dim (io, dim, error)))
        return NULL;
      g_object_unref (io);
      io = t;
    }
  record_index_node (k == -1   ? "MedianBackward1"
                     : k == -2 ? "NanmedianBackward1"
                               : "KthvalueBackward0",
                     self, vo, io, dim, !keepdim && self->ndim > 0);
  if (indices)
    *indices = g_steal_pointer (&io);
  return g_steal_pointer (&vo);
}

/**
 * dl_tensor_median_dim:
 * @self: a #DlTensor
 * @dim: the dim to reduce
 * @keepdim: whether to keep @dim with size 1
 * @indices: (out) (optional) (transfer full): where to store the int64
 *   positions of the medians along @dim
 * @error: return location for a #GError
 *
 * The lower median along @dim (the element at position (n - 1) / 2 in
 * sorted order); NaN where a row holds NaN.
 *
 * Returns: (transfer full): the medians, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_median_dim (DlTensor *self,
                      gint64 dim,
                      gboolean keepdim,
                      DlTensor **indices,
                      GError **error)
{
  return pick_dim ("median", self, -1, dim, keepdim, indices, error);
}

/**
 * dl_tensor_nanmedian_dim:
 * @self: a #DlTensor
 * @dim: the dim to reduce
 * @keepdim: whether to keep @dim with size 1
 * @indices: (out) (optional) (transfer full): where to store the int64
 *   positions of the medians along @dim
 * @error: return location for a #GError
 *
 * The lower median along @dim of the elements that are not NaN (NaN where
 * a row holds nothing else).
 *
 * Returns: (transfer full): the medians, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_nanmedian_dim (DlTensor *self,
                         gint64 dim,
                         gboolean keepdim,
                         DlTensor **indices,
                         GError **error)
{
  return pick_dim ("nanmedian", self, -2, dim, keepdim, indices, error);
}

/**
 * dl_tensor_kthvalue:
 * @self: a #DlTensor
 * @k: which smallest element to take, from 1
 * @dim: the dim to reduce
 * @keepdim: whether to keep @dim with size 1
 * @indices: (out) (optional) (transfer full): where to store the int64
 *   positions of the elements along @dim
 * @error: return location for a #GError
 *
 * The @k-th smallest element along @dim (NaN counting as the largest).
 *
 * Returns: (transfer full): the values, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_kthvalue (DlTensor *self,
                    gint64 k,
                    gint64 dim,
                    gboolean keepdim,
                    DlTensor **indices,
                    GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (k < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "kthvalue: selected number k out of range (k = %" G_GINT64_FORMAT ")", k);
      return NULL;
    }
  return pick_dim ("kthvalue", self, k - 1, dim, keepdim, indices, error);
}

/* median() over everything: the gradient is shared evenly by the elements
 * equal to the median. */
static DlTensor *
median_all (gboolean skip_nan, DlTensor *self, GError **error)
{
  gint64 n;
  g_autoptr (DlTensor) flat = NULL;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live (skip_nan ? "nanmedian" : "median", self, error))
    return NULL;
  n = self->numel;
  if (n == 0)
    {
      if (dl_dtype_is_float (self->dtype))
        return dl_full (NULL, 0, NAN, self->dtype, dl_tensor_device (self), error);
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: Expected reduction dim to be specified for input.numel() == 0.",
                   skip_nan ? "nanmedian" : "median");
      return NULL;
    }
  /* the median of the flattened tensor, without recording autograd */
  {
    gboolean was = dl_set_grad_enabled (FALSE);

    if ((flat = dl_reshape_view (self, &n, 1, error)))
      out = pick_dim (skip_nan ? "nanmedian" : "median", flat, skip_nan ? -2 : -1, 0, FALSE, NULL,
                      error);
    else
      out = NULL;
    dl_set_grad_enabled (was);
  }
  if (!out)
    return NULL;
  if (dl_dtype_is_float (self->dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (
          skip_nan ? "NanmedianBackward0" : "MedianBackward0", dl_reduce_evenly_backward, 1, &self);
      DlReduceState *s = dl_reduce_state_new (node, 0, FALSE, NULL);

      dl_node_save (node, &s->input, self, FALSE);
      dl_node_save (node, &s->output, out, TRUE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_median:
 * @self: a non-empty #DlTensor
 * @error: return location for a #GError
 *
 * The lower median of all elements (NaN if any is NaN).
 *
 * Returns: (transfer full): the median as a 0-d tensor, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_median (DlTensor *self, GError **error)
{
  return median_all (FALSE, self, error);
}

/**
 * dl_tensor_nanmedian:
 * @self: a non-empty #DlTensor
 * @error: return location for a #GError
 *
 * The lower median of the elements that are not NaN (NaN if all are).
 *
 * Returns: (transfer full): the median as a 0-d tensor, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_nanmedian (DlTensor *self, GError **error)
{
  return median_all (TRUE, self, error);
}

/* ---- unique ---------------------------------------------------------------- */

/**
 * dl_tensor_unique:
 * @self: a #DlTensor
 * @inverse: (out) (optional) (transfer full): where to store, shaped like
 *   @self, the int64 position of each element's value in the result
 * @counts: (out) (optional) (transfer full): where to store how often each
 *   value occurs (int64)
 * @error: return location for a #GError
 *
 * The distinct values of @self, flattened, in ascending order.
 *
 * Returns: (transfer full): the values, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_unique (DlTensor *self, DlTensor **inverse, DlTensor **counts, GError **error)
{
  gint64 n, n_unique = 0;
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) perm = NULL;
  g_autoptr (DlTensor) vals = NULL;
  g_autoptr (DlTensor) cnt = NULL;
  g_autoptr (DlTensor) grp = NULL;
  g_autoptr (DlTensor) inv = NULL;
  g_autoptr (DlTensor) vals_n = NULL;
  g_autoptr (DlTensor) cnt_n = NULL;
  g_autoptr (DlTensor) inv_s = NULL;
  DlBackendContext *ctx;
  g_auto (DlHostValue) n_groups = { 0 };
  gint64 *n_groups_at;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  n = self->numel;
  if (!(ctx = DL_TENSOR_BACKEND (self, unique_sorted, "unique", error))
      || !DL_TENSOR_BACKEND (self, scatter_rows, "unique", error)
      || !(n_groups_at = dl_host_value_init (&n_groups, self, error)))
    return NULL;
  if (!(flat = dl_reshape_view (self, &n, 1, error))
      || !sort_rows (flat, 0, FALSE, G_MAXINT64, FALSE, &v, &perm, error))
    return NULL;
  if (!(vals = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, &n, 1, error))
      || !(cnt
           = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, &n, 1, error))
      || !(grp
           = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, &n, 1, error))
      || !(inv
           = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, &n, 1, error)))
    return NULL;
  if (n > 0)
    {
      ctx->backend->unique_sorted (ctx, dl_tensor_data (v), n, self->dtype, dl_tensor_data (vals),
                                   dl_tensor_data (cnt), dl_tensor_data (grp), n_groups_at);
      /* inverse[perm[i]] = group[i] */
      ctx->backend->scatter_rows (ctx, dl_tensor_data (inv), dl_tensor_data (grp),
                                  dl_tensor_data (perm), 1, n, n, DL_DTYPE_INT64, FALSE);
      if (!dl_host_value_read (&n_groups, "unique", error))
        return NULL;
      n_unique = n_groups.value;
    }
  if (!(vals_n = dl_tensor_narrow (vals, 0, 0, n_unique, error))
      || !(cnt_n = dl_tensor_narrow (cnt, 0, 0, n_unique, error))
      || !(inv_s = dl_reshape_view (inv, self->sizes, self->ndim, error)))
    return NULL;
  if (inverse)
    *inverse = g_steal_pointer (&inv_s);
  if (counts)
    *counts = dl_contiguous_nograd (cnt_n, error);
  return dl_contiguous_nograd (vals_n, error);
}

/**
 * dl_tensor_unique_consecutive:
 * @self: a #DlTensor
 * @inverse: (out) (optional) (transfer full): where to store, shaped like
 *   @self, the int64 position of each element's run in the result
 * @counts: (out) (optional) (transfer full): where to store the length of
 *   each run (int64)
 * @error: return location for a #GError
 *
 * The values of @self, flattened, with every run of equal neighbours
 * reduced to one element.
 *
 * Returns: (transfer full): the values, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_unique_consecutive (DlTensor *self, DlTensor **inverse, DlTensor **counts, GError **error)
{
  gint64 n, rows, len, n_unique = 0;
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) vals = NULL;
  g_autoptr (DlTensor) cnt = NULL;
  g_autoptr (DlTensor) grp = NULL;
  g_autoptr (DlTensor) vals_n = NULL;
  g_autoptr (DlTensor) cnt_n = NULL;
  g_autoptr (DlTensor) inv_s = NULL;
  DlBackendContext *ctx;
  g_auto (DlHostValue) n_groups = { 0 };
  gint64 *n_groups_at;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  n = self->numel;
  if (!(ctx = DL_TENSOR_BACKEND (self, unique_sorted, "unique_consecutive", error))
      || !(n_groups_at = dl_host_value_init (&n_groups, self, error))
      || !(flat = dl_reshape_view (self, &n, 1, error))
      || !(c = rows_copy (flat, 0, self->dtype, &rows, &len, error)))
    return NULL;
  if (!(vals = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, &n, 1, error))
      || !(cnt
           = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, &n, 1, error))
      || !(grp
           = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT64, &n, 1, error)))
    return NULL;
  if (n > 0)
    {
      ctx->backend->unique_sorted (ctx, dl_tensor_data (c), n, self->dtype, dl_tensor_data (vals),
                                   dl_tensor_data (cnt), dl_tensor_data (grp), n_groups_at);
      if (!dl_host_value_read (&n_groups, "unique_consecutive", error))
        return NULL;
      n_unique = n_groups.value;
    }
  if (!(vals_n = dl_tensor_narrow (vals, 0, 0, n_unique, error))
      || !(cnt_n = dl_tensor_narrow (cnt, 0, 0, n_unique, error))
      || !(inv_s = dl_reshape_view (grp, self->sizes, self->ndim, error)))
    return NULL;
  if (inverse)
    *inverse = g_steal_pointer (&inv_s);
  if (counts)
    *counts = dl_contiguous_nograd (cnt_n, error);
  return dl_contiguous_nograd (vals_n, error);
}

/* ---- unique slices along a dim -------------------------------------------------- */

/* The slices of @self along *@dim as the rows of a contiguous [n, m]
 * matrix, each read as torch's transpose (0, dim) lays it out (no
 * autograd). A 0-d
 * @self or an empty dim other than *@dim is an error, as in PyTorch. */
static DlTensor *
slice_rows (const gchar *op, DlTensor *self, gint64 *dim, GError **error)
{
  gint64 perm[DL_MAX_DIMS];
  gint64 shape[2];
  g_autoptr (DlTensor) det = NULL;
  g_autoptr (DlTensor) moved = NULL;
  g_autoptr (DlTensor) flat = NULL;

  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s(): Dimension specified as %" G_GINT64_FORMAT " but tensor has no dimensions",
                   op, *dim);
      return NULL;
    }
  if (!dl_normalize_dim (op, dim, self->ndim, error))
    return NULL;
  shape[0] = self->sizes[*dim];
  shape[1] = 1;
  /* the layout of torch's transpose (0, dim): the order in which slices
   * compare, so equal-leading slices sort as torch sorts them */
  for (gint d = 0; d < self->ndim; d++)
    {
      perm[d] = d == 0 ? *dim : d == *dim ? 0 : d;
      if (d == *dim)
        continue;
      if (self->sizes[d] == 0)
        {
          g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s(): There are 0 sized dimensions, and they aren't selected, so unique "
                       "cannot be applied (shape %s, dim %" G_GINT64_FORMAT ")",
                       op, s, *dim);
          return NULL;
        }
      shape[1] *= self->sizes[d];
    }
  det = dl_tensor_detach (self);
  if (!(moved = dl_tensor_permute (det, perm, self->ndim, error))
      || !(flat = dl_reshape_view (moved, shape, 2, error)))
    return NULL;
  return dl_contiguous_nograd (flat, error);
}

/* The order that sorts the rows of a contiguous [n, m] matrix
 * lexicographically: stable sorts by the last column, then the one before,
 * and so on to the first. */
static DlTensor *
lexicographic_order (DlTensor *rows, GError **error)
{
  gint64 n = rows->sizes[0], m = rows->sizes[1];
  g_autoptr (DlTensor) order
      = dl_arange (0, n, 1, DL_DTYPE_INT64, dl_tensor_get_device (rows), error);

  for (gint64 c = m - 1; order && c >= 0; c--)
    {
      g_autoptr (DlTensor) column = NULL;
      g_autoptr (DlTensor) key = NULL;
      g_autoptr (DlTensor) sorted = NULL;
      g_autoptr (DlTensor) by_key = NULL;
      g_autoptr (DlTensor) next = NULL;

      if (!(column = dl_tensor_select (rows, 1, c, error))
          || !(key = dl_tensor_index_select (column, 0, order, error))
          || !sort_rows (key, 0, FALSE, G_MAXINT64, FALSE, &sorted, &by_key, error)
          || !(next = dl_tensor_index_select (order, 0, by_key, error)))
        return NULL;
      g_set_object (&order, next);
    }
  return g_steal_pointer (&order);
}

/* Groups the equal neighbours among the rows of a contiguous [n, m]
 * matrix, n > 0: @group gets each row's group (int64, [n]), @starts the
 * first row of each group. */
static gboolean
row_groups (DlTensor *rows, DlTensor **group, DlTensor **starts, GError **error)
{
  gint64 n = rows->sizes[0], one = 1;
  DlDevice *dev = dl_tensor_get_device (rows);
  g_autoptr (DlTensor) first = NULL;
  g_autoptr (DlTensor) differs = NULL;
  g_autoptr (DlTensor) counted = NULL;
  g_autoptr (DlTensor) numbered = NULL;
  g_autoptr (DlTensor) at = NULL;

  if (!(first = dl_full (&one, 1, 1, DL_DTYPE_BOOL, dev, error)))
    return FALSE;
  if (n > 1)
    {
      /* a row starts a group where it differs from the one before */
      gint64 across = 1;
      g_autoptr (DlTensor) below = dl_tensor_narrow (rows, 0, 1, n - 1, error);
      g_autoptr (DlTensor) above = below ? dl_tensor_narrow (rows, 0, 0, n - 1, error) : NULL;
      g_autoptr (DlTensor) ne = above ? dl_tensor_ne (below, above, error) : NULL;
      g_autoptr (DlTensor) any = ne ? dl_tensor_any (ne, &across, 1, FALSE, error) : NULL;

      if (!any || !(differs = dl_cat ((DlTensor *[]){ first, any }, 2, 0, error)))
        return FALSE;
    }
  else
    differs = g_object_ref (first);
  if (!(counted = dl_tensor_to_dtype (differs, DL_DTYPE_INT64, error))
      || !(numbered = dl_tensor_cumsum (counted, 0, error))
      || !(*group = dl_tensor_sub_scalar (numbered, 1, error))
      || !(at = dl_tensor_nonzero (differs, error)))
    return FALSE;
  *starts = dl_tensor_reshape (at, (gint64[]){ at->sizes[0] }, 1, error);
  return *starts != NULL;
}

/* The unique slices of @self along @dim from its slice matrix @rows (in
 * the order @order gives, or as they are): the values with @dim moved
 * back, the inverse (each slice's group) and the counts. */
static DlTensor *
unique_slices (DlTensor *self,
               gint64 dim,
               DlTensor *rows,
               DlTensor *order,
               DlTensor **inverse,
               DlTensor **counts,
               GError **error)
{
  gint64 n = rows->sizes[0], n_groups = 0;
  gint64 moved[DL_MAX_DIMS];
  gint64 back[DL_MAX_DIMS];
  DlDevice *dev = dl_tensor_get_device (self);
  g_autoptr (DlTensor) sorted = NULL;
  g_autoptr (DlTensor) group = NULL;
  g_autoptr (DlTensor) starts = NULL;
  g_autoptr (DlTensor) picked = NULL;
  g_autoptr (DlTensor) shaped = NULL;
  g_autoptr (DlTensor) values = NULL;
  g_autoptr (DlTensor) inv = NULL;
  g_autoptr (DlTensor) cnt = NULL;

  if (n > 0)
    {
      g_autoptr (DlTensor) ones = NULL;
      g_autoptr (DlTensor) zeros = NULL;

      if (!(sorted = order ? dl_tensor_index_select (rows, 0, order, error) : g_object_ref (rows))
          || !row_groups (sorted, &group, &starts, error))
        return NULL;
      n_groups = starts->sizes[0];
      if (!(picked = dl_tensor_index_select (sorted, 0, starts, error))
          || !(ones = dl_ones (&n, 1, DL_DTYPE_INT64, dev, error))
          || !(zeros = dl_zeros (&n_groups, 1, DL_DTYPE_INT64, dev, error))
          || !(cnt = dl_tensor_scatter_add (zeros, 0, group, ones, error)))
        return NULL;
      if (order)
        {
          /* the slice at order[i] is in group[i] */
          g_autoptr (DlTensor) z = dl_zeros (&n, 1, DL_DTYPE_INT64, dev, error);
          if (!z || !(inv = dl_tensor_scatter (z, 0, order, group, error)))
            return NULL;
        }
      else
        inv = g_object_ref (group);
    }
  else if (!(picked = g_object_ref (rows)) || !(inv = dl_zeros (&n, 1, DL_DTYPE_INT64, dev, error))
           || !(cnt = dl_zeros (&n, 1, DL_DTYPE_INT64, dev, error)))
    return NULL;
  /* [groups, m] back to the shape of self with dims 0 and dim swapped
   * (slice_rows), then swapped back */
  for (gint d = 0; d < self->ndim; d++)
    {
      back[d] = d == 0 ? dim : d == dim ? 0 : d;
      moved[d] = self->sizes[back[d]];
    }
  moved[0] = n_groups;
  if (!(shaped = dl_reshape_view (picked, moved, self->ndim, error))
      || !(values = dl_tensor_permute (shaped, back, self->ndim, error)))
    return NULL;
  if (inverse)
    *inverse = g_steal_pointer (&inv);
  if (counts)
    *counts = g_steal_pointer (&cnt);
  return dl_contiguous_nograd (values, error);
}

/**
 * dl_tensor_unique_dim:
 * @self: a #DlTensor
 * @dim: the dim whose slices are compared
 * @inverse: (out) (optional) (transfer full): where to store, for each
 *   slice of @self along @dim, the int64 position of its value in the
 *   result
 * @counts: (out) (optional) (transfer full): where to store how often each
 *   slice occurs (int64)
 * @error: return location for a #GError
 *
 * The distinct slices of @self along @dim (the sub-tensors self[i] for
 * @dim 0), sorted in lexicographic order of their elements (read in the
 * order of the tensor with dims 0 and @dim swapped, as torch reads them),
 * as torch.unique with dim=: the result has @self's shape but for @dim, which
 * counts the distinct slices. Slices holding NaN are all distinct.
 *
 * Returns: (transfer full): the unique slices, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_unique_dim (DlTensor *self,
                      gint64 dim,
                      DlTensor **inverse,
                      DlTensor **counts,
                      GError **error)
{
  g_autoptr (DlTensor) rows = NULL;
  g_autoptr (DlTensor) order = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(rows = slice_rows ("unique", self, &dim, error))
      || !(order = lexicographic_order (rows, error)))
    return NULL;
  return unique_slices (self, dim, rows, order, inverse, counts, error);
}

/**
 * dl_tensor_unique_consecutive_dim:
 * @self: a #DlTensor
 * @dim: the dim whose slices are compared
 * @inverse: (out) (optional) (transfer full): where to store, for each
 *   slice of @self along @dim, the int64 position of its run in the result
 * @counts: (out) (optional) (transfer full): where to store the length of
 *   each run (int64)
 * @error: return location for a #GError
 *
 * The slices of @self along @dim with every run of equal neighbouring
 * slices reduced to one, as torch.unique_consecutive with dim=.
 *
 * Returns: (transfer full): the slices, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_unique_consecutive_dim (DlTensor *self,
                                  gint64 dim,
                                  DlTensor **inverse,
                                  DlTensor **counts,
                                  GError **error)
{
  g_autoptr (DlTensor) rows = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(rows = slice_rows ("unique_consecutive", self, &dim, error)))
    return NULL;
  return unique_slices (self, dim, rows, NULL, inverse, counts, error);
}
