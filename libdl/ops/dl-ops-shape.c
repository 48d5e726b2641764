/* dl-ops-shape.c: views (view, reshape, transpose, permute, unsqueeze,
 * squeeze, expand) and contiguous/detach. Views share the storage of their
 * base; only reshape of an incompatible layout and contiguous copy.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-private.h"

typedef enum
{
  VIEW_RESHAPE,  /* gradient: reshape back to the input shape */
  VIEW_PERMUTE,  /* gradient: the inverse permutation */
  VIEW_EXPAND,   /* gradient: sum back to the input shape */
  VIEW_SLICE,    /* gradient: zeros with the slice set */
  VIEW_SELECT,   /* gradient: zeros with the index set */
  VIEW_DIAGONAL, /* gradient: zeros with the diagonal set */
  VIEW_UNFOLD,   /* gradient: each window's elements added back */
} ViewKind;

/* How a view was taken, for its backward. */
typedef struct
{
  ViewKind kind;
  union
  {
    gint8 inv_perm[DL_MAX_DIMS]; /* VIEW_PERMUTE */
    struct
    {
      gint dim;
      gint64 start, end, step;
    } slice; /* VIEW_SLICE */
    struct
    {
      gint dim;
      gint64 index;
    } select; /* VIEW_SELECT */
    struct
    {
      gint64 offset;
      gint dim1, dim2;
    } diagonal; /* VIEW_DIAGONAL */
    struct
    {
      gint dim;
      gint64 size, step;
    } unfold; /* VIEW_UNFOLD */
  };
} ViewState;

/* The gradient of unfold: element k of every window came from
 * self[k + i * step] along the unfolded dim, so the window's last-dim slice
 * k is added into the strided slice starting at k; overlapping windows
 * accumulate. */
static gboolean
unfold_backward (const ViewState *s, DlInputMeta *in, DlTensor *go, DlTensor **gi, GError **error)
{
  gint64 n = go->sizes[s->unfold.dim];
  g_autoptr (DlTensor) acc = NULL;

  acc = dl_zeros (in->sizes, in->ndim, go->dtype, dl_tensor_get_device (go), error);
  if (!acc)
    return FALSE;
  for (gint64 k = 0; k < s->unfold.size && n > 0; k++)
    {
      g_autoptr (DlTensor) z
          = dl_zeros (in->sizes, in->ndim, go->dtype, dl_tensor_get_device (go), error);
      g_autoptr (DlTensor) part = NULL;
      g_autoptr (DlTensor) piece = NULL;
      g_autoptr (DlTensor) sum = NULL;

      if (!z)
        return FALSE;
      part = dl_tensor_slice (z, s->unfold.dim, k, k + (n - 1) * s->unfold.step + 1, s->unfold.step,
                              error);
      piece = part ? dl_tensor_select (go, go->ndim - 1, k, error) : NULL;
      if (!piece || !dl_tensor_copy_ (part, piece, error))
        return FALSE;
      sum = dl_tensor_add (acc, z, error);
      if (!sum)
        return FALSE;
      g_set_object (&acc, sum);
    }
  gi[0] = g_steal_pointer (&acc);
  return TRUE;
}

static gboolean
view_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const ViewState *s = dl_node_state (node);
  DlInputMeta *in = &d->inputs[0];

  switch (s->kind)
    {
      case VIEW_RESHAPE:
        {
          g_autoptr (DlTensor) c = dl_tensor_contiguous (go[0], error);
          gi[0] = c ? dl_reshape_view (c, in->sizes, in->ndim, error) : NULL;
        }
        break;
      case VIEW_PERMUTE:
        {
          gint64 inv[DL_MAX_DIMS];
          for (gint i = 0; i < in->ndim; i++)
            inv[i] = s->inv_perm[i];
          gi[0] = dl_tensor_permute (go[0], inv, in->ndim, error);
        }
        break;
      case VIEW_EXPAND:
        gi[0] = dl_sum_to (go[0], in->sizes, in->ndim, error);
        break;
      case VIEW_SLICE:
      case VIEW_SELECT:
      case VIEW_DIAGONAL:
        {
          g_autoptr (DlTensor) z
              = dl_zeros (in->sizes, in->ndim, go[0]->dtype, dl_tensor_get_device (go[0]), error);
          g_autoptr (DlTensor) part = NULL;
          DlTensor *done = NULL;

          if (!z)
            return FALSE;
          /* with create_graph, the write is recorded (CopySlices): the
           * gradient stays differentiable */
          if (s->kind == VIEW_SLICE)
            part = dl_tensor_slice (z, s->slice.dim, s->slice.start, s->slice.end, s->slice.step,
                                    error);
          else if (s->kind == VIEW_DIAGONAL)
            part = dl_tensor_diagonal (z, s->diagonal.offset, s->diagonal.dim1, s->diagonal.dim2,
                                       error);
          else
            part = dl_tensor_select (z, s->select.dim, s->select.index, error);
          done = part ? dl_tensor_copy_ (part, go[0], error) : NULL;
          if (done)
            gi[0] = g_steal_pointer (&z);
        }
        break;
      case VIEW_UNFOLD:
        return unfold_backward (s, in, go[0], gi, error);
    }
  return gi[0] != NULL;
}

/* A view of @self's storage with this geometry, tied to @self's base (so
 * that writes through it are recorded there) at the storage's version */
static DlTensor *
new_view_of (DlTensor *self, const gint64 *sizes, const gint64 *strides, gint ndim, gint64 offset)
{
  DlTensor *out = dl_tensor_new_view_internal (self, sizes, strides, ndim, offset);

  out->base = g_object_ref (self->base ? self->base : self);
  out->view_version = self->storage->version;
  out->multi_output_view = self->base != NULL && self->multi_output_view;
  return out;
}

static DlTensor *
make_view_at (DlTensor *self,
              const gchar *node_name,
              const ViewState *how,
              const gint64 *sizes,
              const gint64 *strides,
              gint ndim,
              gint64 offset)
{
  DlTensor *out = new_view_of (self, sizes, strides, ndim, offset);

  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (node_name, view_backward, 1, &self);

      *DL_NODE_NEW_STATE (node, ViewState) = *how;
      dl_node_set_output (node, out, 0);
    }
  return out;
}

static DlTensor *
make_view (DlTensor *self,
           const gchar *node_name,
           ViewKind kind,
           const gint64 *sizes,
           const gint64 *strides,
           gint ndim,
           const gint *inv_perm)
{
  ViewState how = { .kind = kind };

  for (gint i = 0; inv_perm && i < ndim; i++)
    how.inv_perm[i] = inv_perm[i];
  return make_view_at (self, node_name, &how, sizes, strides, ndim, self->offset);
}

/* Resolves one -1 in @shape against @numel. */
static gboolean
infer_shape (const gchar *op,
             DlTensor *self,
             const gint64 *shape,
             gsize ndim,
             gint64 *out,
             GError **error)
{
  gint infer = -1;
  gint64 known = 1;

  if (ndim > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: at most %d dimensions", op, DL_MAX_DIMS);
      return FALSE;
    }
  if (!dl_check_numel (op, shape, ndim, error))
    return FALSE;
  for (gsize i = 0; i < ndim; i++)
    {
      out[i] = shape[i];
      if (shape[i] == -1)
        {
          if (infer >= 0)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                           "%s: only one dimension can be inferred", op);
              return FALSE;
            }
          infer = i;
        }
      else if (shape[i] < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: invalid shape dimension %" G_GINT64_FORMAT, op, shape[i]);
          return FALSE;
        }
      else
        known *= shape[i];
    }
  if (infer >= 0)
    {
      if (known == 0 || self->numel % known != 0)
        goto mismatch;
      out[infer] = self->numel / known;
    }
  else if (known != self->numel)
    goto mismatch;
  return TRUE;

mismatch:
  {
    g_autofree gchar *s = dl_shape_to_string (shape, ndim);
    g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                 "%s: shape '%s' is invalid for input of size %" G_GINT64_FORMAT, op, s,
                 self->numel);
    return FALSE;
  }
}

/* Strides for viewing @self with @shape without a copy, if possible: each
 * chunk of input dims that is contiguous in memory maps onto a run of
 * output dims with the same element count. */
static gboolean
view_strides (DlTensor *self, const gint64 *shape, gint ndim, gint64 *strides)
{
  gint view_d = ndim - 1;
  gint64 chunk_base_stride, tensor_numel = 1, view_numel = 1;

  if (self->numel == 0 || self->ndim == 0)
    {
      gint64 s = 1;
      for (gint i = ndim - 1; i >= 0; i--)
        {
          strides[i] = s;
          s *= MAX (shape[i], 1);
        }
      return TRUE;
    }
  chunk_base_stride = self->strides[self->ndim - 1];
  for (gint td = self->ndim - 1; td >= 0; td--)
    {
      tensor_numel *= self->sizes[td];
      if (td == 0
          || (self->sizes[td - 1] != 1
              && self->strides[td - 1] != tensor_numel * chunk_base_stride))
        {
          while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1))
            {
              strides[view_d] = view_numel * chunk_base_stride;
              view_numel *= shape[view_d];
              view_d--;
            }
          if (view_numel != tensor_numel)
            return FALSE;
          if (td > 0)
            {
              chunk_base_stride = self->strides[td - 1];
              tensor_numel = 1;
              view_numel = 1;
            }
        }
    }
  return view_d == -1;
}

/**
 * dl_tensor_view:
 * @self: a #DlTensor
 * @shape: (array length=n_dims): the new shape; one entry may be -1
 * @n_dims: the number of dimensions
 * @error: return location for a #GError
 *
 * A view of the same elements with another shape, sharing storage. Fails
 * when the element count differs or the layout cannot be viewed that way
 * (use dl_tensor_reshape() then).
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_view (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("view", self, error))
    return NULL;
  if (!infer_shape ("view", self, shape, n_dims, sizes, error))
    return NULL;
  if (!view_strides (self, sizes, n_dims, strides))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "view: view size is not compatible with input tensor's size and stride "
                   "(at least one dimension spans across two contiguous subspaces). "
                   "Use .reshape(...) instead.");
      return NULL;
    }
  return make_view (self, "ViewBackward0", VIEW_RESHAPE, sizes, strides, n_dims, NULL);
}

/**
 * dl_tensor_alias:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * A new tensor object over the same elements, with @self's shape and
 * strides, as torch's alias (what `t[...]` gives): a view whose in-place
 * changes @self sees, recorded as AliasBackward0 when @self requires grad.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_alias (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("alias", self, error))
    return NULL;
  return make_view (self, "AliasBackward0", VIEW_RESHAPE, self->sizes, self->strides, self->ndim,
                    NULL);
}

/* @self's elements, contiguous, with another shape, recorded as torch's
 * _unsafe_view (UnsafeViewBackward0): for an op that reshapes a result it
 * has just made, as matmul folds its rows back and reshape its copy. As in
 * torch, the result is not a view (no base): nothing else holds @self. */
DlTensor *
dl_unsafe_view (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];
  DlTensor *out;

  if (!infer_shape ("view", self, shape, n_dims, sizes, error))
    return NULL;
  if (!view_strides (self, sizes, n_dims, strides))
    return dl_tensor_view (self, shape, n_dims, error);
  out = make_view (self, "UnsafeViewBackward0", VIEW_RESHAPE, sizes, strides, n_dims, NULL);
  g_clear_object (&out->base);
  return out;
}

/* reshape: a view recorded as @view_name when the layout allows, else a
 * contiguous copy (CloneBackward0, then UnsafeViewBackward0) */
static DlTensor *
reshape_named (DlTensor *self,
               const gchar *view_name,
               const gint64 *shape,
               gsize n_dims,
               GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];
  g_autoptr (DlTensor) c = NULL;

  if (!dl_check_live ("reshape", self, error))
    return NULL;
  if (!infer_shape ("reshape", self, shape, n_dims, sizes, error))
    return NULL;
  if (view_strides (self, sizes, n_dims, strides))
    return make_view (self, view_name, VIEW_RESHAPE, sizes, strides, n_dims, NULL);
  if (!(c = dl_tensor_clone (self, error)))
    return NULL;
  return dl_unsafe_view (c, sizes, n_dims, error);
}

/**
 * dl_tensor_reshape:
 * @self: a #DlTensor
 * @shape: (array length=n_dims): the new shape; one entry may be -1
 * @n_dims: the number of dimensions
 * @error: return location for a #GError
 *
 * The same elements with another shape: a view when the layout allows
 * (ReshapeAliasBackward0, as torch 1.13's _reshape_alias), otherwise a
 * contiguous copy that is not a view (UnsafeViewBackward0 after
 * CloneBackward0, as torch's _unsafe_view).
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_reshape (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return reshape_named (self, "ReshapeAliasBackward0", shape, n_dims, error);
}

/* reshape whose view records ViewBackward0: the library's own reshapes,
 * where PyTorch's C++ composites call view (Tensor.reshape's view is
 * ReshapeAliasBackward0) */
DlTensor *
dl_reshape_view (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error)
{
  return reshape_named (self, "ViewBackward0", shape, n_dims, error);
}

/**
 * dl_tensor_flatten:
 * @self: a #DlTensor
 * @start_dim: the first dim to flatten
 * @end_dim: the last dim to flatten (-1 for the last)
 * @error: return location for a #GError
 *
 * Merges dims @start_dim to @end_dim into one, as torch.flatten.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_flatten (DlTensor *self, gint64 start_dim, gint64 end_dim, GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  gint n = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("flatten", self, error))
    return NULL;
  if (self->ndim == 0)
    {
      /* a 0-d tensor's dims are -1 and 0, as a vector's */
      gint64 one = 1;
      if (!dl_normalize_dim ("flatten", &start_dim, 1, error)
          || !dl_normalize_dim ("flatten", &end_dim, 1, error))
        return NULL;
      return dl_tensor_reshape (self, &one, 1, error);
    }
  if (!dl_normalize_dim ("flatten", &start_dim, self->ndim, error)
      || !dl_normalize_dim ("flatten", &end_dim, self->ndim, error))
    return NULL;
  if (start_dim > end_dim)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "flatten: start_dim cannot come after end_dim");
      return NULL;
    }
  for (gint i = 0; i < start_dim; i++)
    shape[n++] = self->sizes[i];
  shape[n] = 1;
  for (gint i = start_dim; i <= end_dim; i++)
    shape[n] *= self->sizes[i];
  n++;
  for (gint i = end_dim + 1; i < self->ndim; i++)
    shape[n++] = self->sizes[i];
  return dl_tensor_reshape (self, shape, n, error);
}

/**
 * dl_tensor_permute:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the new order of the dims
 * @n_dims: the number of dims; must equal the tensor's
 * @error: return location for a #GError
 *
 * A view with the dims reordered: dim i of the result is dim dims[i] of
 * @self.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_permute (DlTensor *self, const gint64 *dims, gsize n_dims, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];
  gint inv[DL_MAX_DIMS];
  gboolean seen[DL_MAX_DIMS] = { FALSE };

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("permute", self, error))
    return NULL;
  if ((gint)n_dims != self->ndim)
    {
      g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "permute: number of dims don't match: tensor of shape %s has %d dims "
                   "but %" G_GSIZE_FORMAT " were given",
                   s, self->ndim, n_dims);
      return NULL;
    }
  for (gsize i = 0; i < n_dims; i++)
    {
      gint64 d = dims[i];
      if (!dl_normalize_dim ("permute", &d, self->ndim, error))
        return NULL;
      if (seen[d])
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "permute: repeated dim %" G_GINT64_FORMAT, d);
          return NULL;
        }
      seen[d] = TRUE;
      sizes[i] = self->sizes[d];
      strides[i] = self->strides[d];
      inv[d] = i;
    }
  return make_view (self, "PermuteBackward0", VIEW_PERMUTE, sizes, strides, n_dims, inv);
}

/**
 * dl_tensor_transpose:
 * @self: a #DlTensor
 * @dim0: a dim
 * @dim1: another dim
 * @error: return location for a #GError
 *
 * A view with two dims swapped.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_transpose (DlTensor *self, gint64 dim0, gint64 dim1, GError **error)
{
  gint perm[DL_MAX_DIMS];
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("transpose", self, error))
    return NULL;
  if (!dl_normalize_dim ("transpose", &dim0, self->ndim, error)
      || !dl_normalize_dim ("transpose", &dim1, self->ndim, error))
    return NULL;
  for (gint i = 0; i < self->ndim; i++)
    {
      perm[i] = i == dim0 ? dim1 : i == dim1 ? dim0 : i;
      sizes[i] = self->sizes[perm[i]];
      strides[i] = self->strides[perm[i]];
    }
  return make_view (self, "TransposeBackward0", VIEW_PERMUTE, sizes, strides, self->ndim, perm);
}

/**
 * dl_tensor_t:
 * @self: a tensor of at most 2 dims
 * @error: return location for a #GError
 *
 * The transpose of a matrix; 0-d and 1-d tensors come back as they are.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_t (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("t", self, error))
    return NULL;
  if (self->ndim > 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "t: t() expects a tensor with <= 2 dimensions, but self is %dD", self->ndim);
      return NULL;
    }
  if (self->ndim < 2)
    return make_view (self, "TBackward0", VIEW_RESHAPE, self->sizes, self->strides, self->ndim,
                      NULL);
  {
    gint64 sizes[2] = { self->sizes[1], self->sizes[0] };
    gint64 strides[2] = { self->strides[1], self->strides[0] };
    gint perm[2] = { 1, 0 };
    return make_view (self, "TBackward0", VIEW_PERMUTE, sizes, strides, 2, perm);
  }
}

/**
 * dl_tensor_unsqueeze:
 * @self: a #DlTensor
 * @dim: where to insert a dim of size 1 (in [-ndim-1, ndim])
 * @error: return location for a #GError
 *
 * Gives a view of the tensor with a new dimension of size 1 at position
 * @dim, as `torch.unsqueeze (self, dim)`: a [3, 4] tensor unsqueezed at 0 is
 * [1, 3, 4], at -1 [3, 4, 1]. The view shares the tensor's memory.
 * Differentiable.
 *
 * Fails with %DL_ERROR_INDEX when @dim is outside [-ndim-1, ndim].
 *
 * Returns: (transfer full): a view with one more dim, or %NULL with @error
 *   set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_unsqueeze (DlTensor *self, gint64 dim, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];
  gint n = self->ndim + 1;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("unsqueeze", self, error))
    return NULL;
  if (dim < -n || dim >= n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "unsqueeze: dimension out of range (expected to be in range of [%d, %d], but "
                   "got %" G_GINT64_FORMAT ")",
                   -n, n - 1, dim);
      return NULL;
    }
  if (n > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "unsqueeze: at most %d dimensions",
                   DL_MAX_DIMS);
      return NULL;
    }
  if (dim < 0)
    dim += n;
  for (gint i = 0, j = 0; i < n; i++)
    {
      if (i == dim)
        {
          sizes[i] = 1;
          strides[i] = j < self->ndim ? self->sizes[j] * self->strides[j] : 1;
        }
      else
        {
          sizes[i] = self->sizes[j];
          strides[i] = self->strides[j];
          j++;
        }
    }
  return make_view (self, "UnsqueezeBackward0", VIEW_RESHAPE, sizes, strides, n, NULL);
}

/**
 * dl_tensor_squeeze_dim:
 * @self: a #DlTensor
 * @dim: the dim to remove if its size is 1
 * @error: return location for a #GError
 *
 * Gives a view of the tensor without dimension @dim if that dimension has
 * size 1, as `torch.squeeze (self, dim)`; a dimension of another size is
 * kept. The view shares the tensor's memory. Differentiable.
 *
 * Fails with %DL_ERROR_INDEX when @dim is outside [-ndim, ndim).
 *
 * Returns: (transfer full): a view without dim @dim when its size is 1,
 *   else a view of the same shape; %NULL with @error set on a bad dim
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_squeeze_dim (DlTensor *self, gint64 dim, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];
  gint n = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("squeeze_dim", self, error))
    return NULL;
  if (!dl_normalize_dim ("squeeze", &dim, self->ndim, error))
    return NULL;
  for (gint i = 0; i < self->ndim; i++)
    if (i != dim || self->sizes[i] != 1)
      {
        sizes[n] = self->sizes[i];
        strides[n] = self->strides[i];
        n++;
      }
  return make_view (self, "SqueezeBackward1", VIEW_RESHAPE, sizes, strides, n, NULL);
}

/**
 * dl_tensor_expand:
 * @self: a #DlTensor
 * @shape: (array length=n_dims): the shape to broadcast to; -1 keeps a size
 * @n_dims: the number of dims, at least the tensor's
 * @error: return location for a #GError
 *
 * A view that repeats size-1 dims without copying (stride 0).
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_expand (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];
  gint lead;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("expand", self, error))
    return NULL;
  if ((gint)n_dims < self->ndim || n_dims > DL_MAX_DIMS)
    {
      g_autofree gchar *s = dl_shape_to_string (shape, n_dims);
      g_autofree gchar *ss = dl_shape_to_string (self->sizes, self->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "expand: the number of sizes provided (%" G_GSIZE_FORMAT ") must be greater "
                   "or equal to the number of dimensions in the tensor (%d): %s to %s",
                   n_dims, self->ndim, ss, s);
      return NULL;
    }
  lead = n_dims - self->ndim;
  for (gint i = 0; i < (gint)n_dims; i++)
    {
      gint j = i - lead;
      gint64 want = shape[i];

      if (j < 0)
        {
          if (want < 0)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                           "expand: -1 is not allowed in a leading, non-existing dimension");
              return NULL;
            }
          sizes[i] = want;
          strides[i] = 0;
        }
      else if (want == -1 || want == self->sizes[j])
        {
          sizes[i] = self->sizes[j];
          strides[i] = self->strides[j];
        }
      else if (self->sizes[j] == 1 && want >= 0)
        {
          sizes[i] = want;
          strides[i] = 0;
        }
      else
        {
          g_autofree gchar *s = dl_shape_to_string (shape, n_dims);
          g_autofree gchar *ss = dl_shape_to_string (self->sizes, self->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "expand: the expanded size of the tensor (%" G_GINT64_FORMAT ") must "
                       "match the existing size (%" G_GINT64_FORMAT ") at non-singleton "
                       "dimension %d; %s to %s",
                       want, self->sizes[j], i, ss, s);
          return NULL;
        }
    }
  if (!dl_check_numel ("expand", sizes, n_dims, error))
    return NULL;
  return make_view (self, "ExpandBackward0", VIEW_EXPAND, sizes, strides, n_dims, NULL);
}

/**
 * dl_tensor_contiguous:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Gives the tensor in contiguous row-major layout, as
 * `torch.Tensor.contiguous ()`: a new reference to the tensor itself when it
 * already is contiguous, else a copy (recorded by autograd). Kernels and
 * dl_tensor_get_data_ptr() readers that need dense memory call this first.
 *
 * Fails with %DL_ERROR_OUT_OF_MEMORY when the copy does not fit.
 *
 * Returns: (transfer full): @self when it is contiguous, else a
 *   contiguous copy; %NULL with @error set if memory runs out
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_contiguous (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("contiguous", self, error))
    return NULL;
  if (dl_tensor_is_contiguous (self))
    return g_object_ref (self);
  return dl_tensor_clone (self, error);
}

/**
 * dl_tensor_detach:
 * @self: a #DlTensor
 *
 * Gives a tensor that shares the memory of this one but is cut off from the
 * autograd graph, as `torch.Tensor.detach ()`: it is a leaf that does not
 * require grad, and no gradient flows through it. Writing to one changes the
 * other.
 *
 * Returns: (transfer full): a view of the same storage that is cut off
 *   from the autograd graph and does not require grad
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_detach (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return dl_tensor_new_view_internal (self, self->sizes, self->strides, self->ndim, self->offset);
}

/**
 * dl_tensor_replace_data:
 * @self: a #DlTensor
 * @data: the tensor whose memory @self takes
 * @error: return location for a #GError
 *
 * Makes @self an alias of @data's memory, with its dtype, shape and
 * strides, while @self keeps its autograd state (requires_grad, grad,
 * grad_fn), as assigning `self.data = data` does in PyTorch. The change is
 * not recorded by autograd: it is for updating parameters in place of an
 * optimizer's step. A view gives up its base.
 *
 * Returns: %TRUE, or %FALSE with @error set when the memory of @self or
 *   @data was released
 *
 * Since: 0.1
 */
gboolean
dl_tensor_replace_data (DlTensor *self, DlTensor *data, GError **error)
{
  DlStorage *old;

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  g_return_val_if_fail (DL_IS_TENSOR (data), FALSE);
  if (!dl_check_live ("replace_data", self, error) || !dl_check_live ("replace_data", data, error))
    return FALSE;
  if (self == data)
    return TRUE;
  old = self->storage;
  self->storage = dl_storage_ref (data->storage);
  dl_storage_unref (old);
  self->dtype = data->dtype;
  dl_tensor_set_geometry_internal (self, data->sizes, data->strides, data->ndim, data->offset);
  g_clear_object (&self->base);
  return TRUE;
}

/**
 * dl_tensor_resize_:
 * @self: a #DlTensor that does not require grad
 * @size: (array length=n_size): the new sizes, not negative
 * @n_size: the number of dims
 * @error: return location for a #GError
 *
 * Gives @self the sizes @size with contiguous strides, as
 * torch.Tensor.resize_: the elements it keeps are the first ones of its
 * memory from its offset on; when it needs more memory than its storage
 * has, it moves to a new storage holding the old one's bytes first, and
 * the new elements are uninitialised. Unlike PyTorch's, the other views
 * of the old storage keep the old memory then.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_resize_ (DlTensor *self, const gint64 *size, gsize n_size, GError **error)
{
  gint64 strides[DL_MAX_DIMS], numel = 1, itemsize, need;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (size != NULL || n_size == 0, NULL);
  if (!dl_check_live ("resize_", self, error))
    return NULL;
  if (self->requires_grad)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "resize_: cannot resize variables that require grad");
      return NULL;
    }
  if (n_size > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "resize_: at most %d dimensions", DL_MAX_DIMS);
      return NULL;
    }
  for (gsize k = 0; k < n_size; k++)
    if (size[k] < 0)
      {
        g_autofree gchar *ss = dl_shape_to_string (size, n_size);

        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "resize_: trying to create tensor with negative dimension %" G_GINT64_FORMAT
                     ": %s",
                     size[k], ss);
        return NULL;
      }
  if (!dl_check_numel ("resize_", size, n_size, error))
    return NULL;
  for (gint k = (gint)n_size - 1; k >= 0; k--)
    {
      strides[k] = numel;
      numel *= size[k];
    }
  itemsize = dl_dtype_size (self->dtype);
  need = (self->offset + numel) * itemsize;
  if (need > (gint64)dl_storage_get_nbytes (self->storage))
    {
      gint64 old = (gint64)dl_storage_get_nbytes (self->storage) / itemsize;
      gint64 total = self->offset + numel;
      g_autoptr (DlTensor) grown = dl_tensor_new_empty_internal (dl_tensor_get_device (self),
                                                                 self->dtype, &total, 1, error);
      g_autoptr (DlTensor) from = NULL;
      g_autoptr (DlTensor) into = NULL;
      DlStorage *prev;
      gboolean was;

      if (!grown)
        return NULL;
      from = dl_tensor_new_view_internal (self, &old, (gint64[]){ 1 }, 1, 0);
      into = dl_tensor_new_view_internal (grown, &old, (gint64[]){ 1 }, 1, 0);
      was = dl_set_grad_enabled (FALSE);
      if (old > 0 && !dl_tensor_copy_ (into, from, error))
        {
          dl_set_grad_enabled (was);
          return NULL;
        }
      dl_set_grad_enabled (was);
      prev = self->storage;
      self->storage = dl_storage_ref (grown->storage);
      dl_storage_unref (prev);
      g_clear_object (&self->base);
    }
  dl_tensor_set_geometry_internal (self, size, strides, n_size, self->offset);
  dl_storage_bump_version (self->storage);
  return self;
}

/**
 * dl_tensor_slice:
 * @self: a #DlTensor
 * @dim: the dim to slice
 * @start: the first index (negative counts from the end; clamped)
 * @end: the bound, not included (negative counts from the end; clamped)
 * @step: the stride, at least 1
 * @error: return location for a #GError
 *
 * The view self[..., start:end:step, ...] along @dim, with Python's rules
 * for out-of-range bounds.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_slice (DlTensor *self, gint64 dim, gint64 start, gint64 end, gint64 step, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS], n;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("slice", self, error))
    return NULL;
  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX, "slice: cannot slice a 0-d tensor");
      return NULL;
    }
  if (!dl_normalize_dim ("slice", &dim, self->ndim, error))
    return NULL;
  if (step <= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "slice: step must be greater than zero");
      return NULL;
    }
  n = self->sizes[dim];
  if (start < 0)
    start += n;
  if (end < 0)
    end += n;
  start = CLAMP (start, 0, n);
  end = CLAMP (end, start, n);
  memcpy (sizes, self->sizes, self->ndim * sizeof (gint64));
  memcpy (strides, self->strides, self->ndim * sizeof (gint64));
  sizes[dim] = (end - start + step - 1) / step;
  strides[dim] = self->strides[dim] * step;
  return make_view_at (self, "SliceBackward0",
                       &(ViewState){ .kind = VIEW_SLICE, .slice = { dim, start, end, step } },
                       sizes, strides, self->ndim, self->offset + start * self->strides[dim]);
}

/**
 * dl_tensor_narrow:
 * @self: a #DlTensor
 * @dim: the dim to narrow
 * @start: the first index (negative counts from the end)
 * @length: how many indices to keep
 * @error: return location for a #GError
 *
 * The view of @length entries of @dim from @start, as torch.narrow.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_narrow (DlTensor *self, gint64 dim, gint64 start, gint64 length, GError **error)
{
  gint64 n;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("narrow", self, error))
    return NULL;
  if (self->ndim == 0 || !dl_normalize_dim ("narrow", &dim, self->ndim, error))
    {
      if (self->ndim == 0)
        g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                     "narrow: cannot be applied to a 0-dim tensor.");
      return NULL;
    }
  n = self->sizes[dim];
  if (start < 0)
    start += n;
  if (start < 0 || start > n || length < 0 || start + length > n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "narrow: start (%" G_GINT64_FORMAT ") + length (%" G_GINT64_FORMAT
                   ") exceeds dimension size (%" G_GINT64_FORMAT ").",
                   start, length, n);
      return NULL;
    }
  return dl_tensor_slice (self, dim, start, start + length, 1, error);
}

/**
 * dl_tensor_select:
 * @self: a #DlTensor
 * @dim: the dim to index
 * @index: the index (negative counts from the end)
 * @error: return location for a #GError
 *
 * The view self[..., index, ...] with @dim removed.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_select (DlTensor *self, gint64 dim, gint64 index, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];
  gint n = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("select", self, error))
    return NULL;
  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX, "select: invalid index of a 0-dim tensor.");
      return NULL;
    }
  if (!dl_normalize_dim ("select", &dim, self->ndim, error))
    return NULL;
  if (index < -self->sizes[dim] || index >= self->sizes[dim])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "select: index %" G_GINT64_FORMAT
                   " is out of bounds for dimension %" G_GINT64_FORMAT
                   " with size %" G_GINT64_FORMAT,
                   index, dim, self->sizes[dim]);
      return NULL;
    }
  if (index < 0)
    index += self->sizes[dim];
  for (gint i = 0; i < self->ndim; i++)
    if (i != dim)
      {
        sizes[n] = self->sizes[i];
        strides[n] = self->strides[i];
        n++;
      }
  return make_view_at (self, "SelectBackward0",
                       &(ViewState){ .kind = VIEW_SELECT, .select = { dim, index } }, sizes,
                       strides, n, self->offset + index * self->strides[dim]);
}

/**
 * dl_tensor_unflatten:
 * @self: a #DlTensor
 * @dim: the dim to split
 * @sizes: (array length=n_sizes): the sizes it becomes; one may be -1
 * @n_sizes: the number of sizes, at least 1
 * @error: return location for a #GError
 *
 * Splits dim @dim into several, as torch.unflatten: the product of @sizes
 * must equal the size of @dim.
 *
 * Returns: (transfer full): the result (a view when the layout allows), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_unflatten (DlTensor *self, gint64 dim, const gint64 *sizes, gsize n_sizes, GError **error)
{
  gint64 shape[DL_MAX_DIMS], known = 1;
  gint n = 0, infer = -1;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("unflatten", self, error))
    return NULL;
  if (self->ndim == 0 || !dl_normalize_dim ("unflatten", &dim, self->ndim, error))
    {
      if (self->ndim == 0)
        g_set_error (error, DL_ERROR, DL_ERROR_INDEX, "unflatten: cannot unflatten a 0-d tensor");
      return NULL;
    }
  if (n_sizes == 0 || self->ndim - 1 + (gint)n_sizes > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "unflatten: sizes must hold between 1 and %d entries",
                   DL_MAX_DIMS - self->ndim + 1);
      return NULL;
    }
  if (!dl_check_numel ("unflatten", sizes, n_sizes, error))
    return NULL;
  for (gsize i = 0; i < n_sizes; i++)
    {
      if (sizes[i] == -1 && infer < 0)
        infer = i;
      else if (sizes[i] < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "unflatten: invalid size %" G_GINT64_FORMAT, sizes[i]);
          return NULL;
        }
      else
        known *= sizes[i];
    }
  if ((infer < 0 && known != self->sizes[dim])
      || (infer >= 0 && (known == 0 || self->sizes[dim] % known != 0)))
    {
      g_autofree gchar *s = dl_shape_to_string (sizes, n_sizes);
      g_set_error (
          error, DL_ERROR, DL_ERROR_SHAPE,
          "unflatten: provided sizes %s don't multiply up to the size of dim %" G_GINT64_FORMAT
          " (%" G_GINT64_FORMAT ") in the input tensor",
          s, dim, self->sizes[dim]);
      return NULL;
    }
  for (gint i = 0; i < dim; i++)
    shape[n++] = self->sizes[i];
  for (gsize i = 0; i < n_sizes; i++)
    shape[n++] = (gint)i == infer ? self->sizes[dim] / known : sizes[i];
  for (gint i = dim + 1; i < self->ndim; i++)
    shape[n++] = self->sizes[i];
  /* a view, as torch's (ViewBackward0) */
  return dl_tensor_view (self, shape, n, error);
}

/**
 * dl_tensor_diagonal:
 * @self: a tensor of at least 2 dims
 * @offset: which diagonal: 0 the main one, above it when positive, below
 *   when negative
 * @dim1: the first dim of the matrices the diagonals are taken of
 * @dim2: the second dim
 * @error: return location for a #GError
 *
 * The diagonals of the matrices over dims @dim1 and @dim2, as a view, as
 * torch.diagonal(): those two dims are removed and one holding the
 * diagonal's elements is appended. Differentiable.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_diagonal (DlTensor *self, gint64 offset, gint64 dim1, gint64 dim2, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS], len, start = self->offset;
  ViewState how = { .kind = VIEW_DIAGONAL };
  gint n = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("diagonal", self, error))
    return NULL;
  if (!dl_normalize_diagonal_dims ("diagonal", &dim1, &dim2, self->ndim, error))
    return NULL;
  if (offset >= 0)
    len = MAX (MIN (self->sizes[dim1], self->sizes[dim2] - offset), 0);
  else
    len = MAX (MIN (self->sizes[dim1] + offset, self->sizes[dim2]), 0);
  if (len > 0)
    start += offset >= 0 ? offset * self->strides[dim2] : -offset * self->strides[dim1];
  for (gint i = 0; i < self->ndim; i++)
    if (i != dim1 && i != dim2)
      {
        sizes[n] = self->sizes[i];
        strides[n++] = self->strides[i];
      }
  sizes[n] = len;
  strides[n++] = self->strides[dim1] + self->strides[dim2];
  how.diagonal.offset = offset;
  how.diagonal.dim1 = dim1;
  how.diagonal.dim2 = dim2;
  return make_view_at (self, "DiagonalBackward0", &how, sizes, strides, n, start);
}

/**
 * dl_tensor_unfold:
 * @self: a #DlTensor
 * @dim: the dim to take windows along
 * @size: the length of each window
 * @step: the distance between the starts of two windows, at least 1
 * @error: return location for a #GError
 *
 * A view of every window of @size elements along @dim, @step apart, as
 * torch.Tensor.unfold: @dim's size becomes the number of windows,
 * (n - @size) / @step + 1, and a last dim of @size holds each window's
 * elements. Windows may overlap; they share @self's memory. Differentiable
 * (the gradient of overlapping elements adds up).
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_unfold (DlTensor *self, gint64 dim, gint64 size, gint64 step, GError **error)
{
  gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS], len;
  ViewState how = { .kind = VIEW_UNFOLD };
  gint n = self->ndim;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("unfold", self, error))
    return NULL;
  if (!dl_normalize_dim ("unfold", &dim, MAX (n, 1), error))
    return NULL;
  len = n ? self->sizes[dim] : 1;
  if (size < 0 || size > len)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "unfold: maximum size for tensor at dimension %" G_GINT64_FORMAT
                   " is %" G_GINT64_FORMAT " but size is %" G_GINT64_FORMAT,
                   dim, len, size);
      return NULL;
    }
  if (step <= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "unfold: step is %" G_GINT64_FORMAT " but must be > 0", step);
      return NULL;
    }
  if (n + 1 > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "unfold: at most %d dimensions", DL_MAX_DIMS);
      return NULL;
    }
  for (gint i = 0; i < n; i++)
    {
      sizes[i] = self->sizes[i];
      strides[i] = self->strides[i];
    }
  if (n)
    {
      sizes[dim] = (len - size) / step + 1;
      strides[dim] = step * self->strides[dim];
      sizes[n] = size;
      strides[n] = self->strides[dim];
      n++;
    }
  else
    {
      /* a 0-d tensor unfolds into a 1-element vector */
      sizes[0] = size;
      strides[0] = 1;
      n = 1;
    }
  how.unfold.dim = dim;
  how.unfold.size = size;
  how.unfold.step = step;
  if (self->ndim == 0)
    return make_view (self, "UnfoldBackward0", VIEW_RESHAPE, sizes, strides, n, NULL);
  return make_view_at (self, "UnfoldBackward0", &how, sizes, strides, n, self->offset);
}

/* ---- as_strided ------------------------------------------------------------- */

/* What as_strided's node keeps: the geometry of its input and of its
 * result, in elements of their storage */
typedef struct
{
  gint in_ndim, out_ndim;
  gint64 in_strides[DL_MAX_DIMS], in_offset;
  gint64 out_sizes[DL_MAX_DIMS], out_strides[DL_MAX_DIMS], out_offset;
} AsStridedState;

/* the storage positions (int64, flat) of the elements of the geometry
 * (@sizes, @strides, @offset), in row-major order */
static DlTensor *
storage_positions (const gint64 *sizes,
                   const gint64 *strides,
                   gint ndim,
                   gint64 offset,
                   DlDevice *device,
                   GError **error)
{
  g_autoptr (DlTensor) acc = dl_full (NULL, 0, offset, DL_DTYPE_INT64, device, error);
  gint64 numel = 1, flat = -1;

  for (gint d = 0; d < ndim && acc; d++)
    {
      gint64 shape[DL_MAX_DIMS];
      g_autoptr (DlTensor) r = NULL;
      g_autoptr (DlTensor) rs = NULL;
      g_autoptr (DlTensor) rv = NULL;
      DlTensor *sum;

      for (gint k = 0; k < ndim; k++)
        shape[k] = k == d ? sizes[d] : 1;
      numel *= sizes[d];
      if (!(r = dl_arange (0, sizes[d], 1, DL_DTYPE_INT64, device, error))
          || !(rs = dl_tensor_mul_scalar (r, strides[d], error))
          || !(rv = dl_reshape_view (rs, shape, ndim, error)))
        return NULL;
      sum = dl_tensor_add (acc, rv, error);
      g_set_object (&acc, sum);
      g_clear_object (&sum);
    }
  return acc ? dl_reshape_view (acc, &flat, 1, error) : NULL;
}

/* The gradient of as_strided, as torch's: the result's gradient added
 * into a zero storage at the positions its elements read (overlapping
 * ones accumulate), then read back at the input's positions, divided by
 * how many of the input's elements share each position when they do */
static gboolean
as_strided_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const AsStridedState *s = dl_node_state (node);
  DlInputMeta *in = &d->inputs[0];
  DlDevice *device = dl_tensor_get_device (go[0]);
  gint64 extent = MAX (s->in_offset, s->out_offset) + 1, flat = -1;
  gboolean overlap = FALSE;
  g_autoptr (DlTensor) out_pos = NULL;
  g_autoptr (DlTensor) in_pos = NULL;
  g_autoptr (DlTensor) zero = NULL;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) storage = NULL;
  g_autoptr (DlTensor) picked = NULL;

  {
    gint64 hi_in = s->in_offset, hi_out = s->out_offset;

    for (gint k = 0; k < s->in_ndim; k++)
      {
        if (in->sizes[k] == 0)
          hi_in = -1;
        if (hi_in >= 0)
          hi_in += (in->sizes[k] - 1) * s->in_strides[k];
        overlap |= in->sizes[k] > 1 && s->in_strides[k] == 0;
      }
    for (gint k = 0; k < s->out_ndim; k++)
      {
        if (s->out_sizes[k] == 0)
          hi_out = -1;
        if (hi_out >= 0)
          hi_out += (s->out_sizes[k] - 1) * s->out_strides[k];
      }
    extent = MAX (extent, MAX (hi_in, hi_out) + 1);
  }
  if (!(out_pos = storage_positions (s->out_sizes, s->out_strides, s->out_ndim, s->out_offset,
                                     device, error))
      || !(in_pos
           = storage_positions (in->sizes, s->in_strides, s->in_ndim, s->in_offset, device, error))
      || !(zero = dl_zeros (&extent, 1, go[0]->dtype, device, error))
      || !(g = dl_reshape_view (go[0], &flat, 1, error))
      || !(storage = dl_tensor_scatter_add (zero, 0, out_pos, g, error))
      || !(picked = dl_tensor_index_select (storage, 0, in_pos, error)))
    return FALSE;
  if (overlap)
    {
      g_autoptr (DlTensor) ones
          = dl_full ((gint64[]){ dl_tensor_numel (in_pos) }, 1, 1, go[0]->dtype, device, error);
      g_autoptr (DlTensor) counts = NULL;
      g_autoptr (DlTensor) per = NULL;
      DlTensor *scaled;

      if (!ones || !(counts = dl_tensor_scatter_add (zero, 0, in_pos, ones, error))
          || !(per = dl_tensor_index_select (counts, 0, in_pos, error))
          || !(scaled = dl_tensor_div (picked, per, error)))
        return FALSE;
      g_set_object (&picked, scaled);
      g_object_unref (scaled);
    }
  gi[0] = dl_reshape_view (picked, in->sizes, in->ndim, error);
  return gi[0] != NULL;
}

/**
 * dl_tensor_as_strided:
 * @self: a #DlTensor
 * @size: (array length=n_size): the sizes of the view
 * @n_size: the number of dims
 * @stride: (array length=n_stride): the strides of the view, in elements
 *   (not negative)
 * @n_stride: the number of strides, @n_size
 * @storage_offset: the view's first element in @self's storage, in
 *   elements; negative keeps @self's
 * @error: return location for a #GError
 *
 * A view of @self's storage with the given geometry, as
 * torch.as_strided: elements may overlap (a sliding window, a broadcast)
 * and need not lie inside @self's own view, but must lie inside its
 * storage. Its gradient (AsStridedBackward0) adds the result's gradient
 * at the storage positions it read and reads that back at @self's.
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_as_strided (DlTensor *self,
                      const gint64 *size,
                      gsize n_size,
                      const gint64 *stride,
                      gsize n_stride,
                      gint64 storage_offset,
                      GError **error)
{
  gint64 need, itemsize, have;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (size != NULL || n_size == 0, NULL);
  g_return_val_if_fail (stride != NULL || n_stride == 0, NULL);
  if (!dl_check_live ("as_strided", self, error))
    return NULL;
  if (n_size != n_stride)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "as_strided: mismatch in length of strides and shape (%" G_GSIZE_FORMAT
                   " sizes, %" G_GSIZE_FORMAT " strides)",
                   n_size, n_stride);
      return NULL;
    }
  if (n_size > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "as_strided: at most %d dimensions",
                   DL_MAX_DIMS);
      return NULL;
    }
  if (storage_offset < 0)
    storage_offset = self->offset;
  need = storage_offset + 1;
  for (gsize k = 0; k < n_size; k++)
    {
      if (size[k] < 0 || stride[k] < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "as_strided: %s %" G_GINT64_FORMAT " at dim %" G_GSIZE_FORMAT
                       " (sizes and strides must not be negative)",
                       size[k] < 0 ? "size" : "stride", size[k] < 0 ? size[k] : stride[k], k);
          return NULL;
        }
      if (size[k] == 0)
        need = 0;
    }
  for (gsize k = 0; k < n_size && need > 0; k++)
    need += (size[k] - 1) * stride[k];
  itemsize = dl_dtype_size (self->dtype);
  have = (gint64)(dl_storage_get_nbytes (self->storage) / itemsize);
  if (need > have)
    {
      g_autofree gchar *ss = dl_shape_to_string (size, n_size);
      g_autofree gchar *st = dl_shape_to_string (stride, n_stride);

      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "as_strided: sizes %s, strides %s and storage offset %" G_GINT64_FORMAT
                   " need a storage of %" G_GINT64_FORMAT " elements, out of bounds for a "
                   "storage of %" G_GINT64_FORMAT,
                   ss, st, storage_offset, need, have);
      return NULL;
    }
  out = new_view_of (self, size, stride, n_size, storage_offset);
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("AsStridedBackward0", as_strided_backward, 1, &self);
      AsStridedState *st = DL_NODE_NEW_STATE (node, AsStridedState);

      st->in_ndim = self->ndim;
      st->out_ndim = n_size;
      st->in_offset = self->offset;
      st->out_offset = storage_offset;
      for (gint k = 0; k < self->ndim; k++)
        st->in_strides[k] = self->strides[k];
      for (gsize k = 0; k < n_size; k++)
        {
          st->out_sizes[k] = size[k];
          st->out_strides[k] = stride[k];
        }
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/* ---- in-place view ops ------------------------------------------------------ */

/* Gives @self the geometry of @view, a view of it just taken, and the
 * view's history, as PyTorch's in-place view ops do: the storage version is
 * bumped (saved copies of @self no longer match), a tensor with history
 * takes the view's node, and a view of another tensor has its history
 * remade over its base at its next use (dl_view_sync). */
static DlTensor *
restride_inplace (DlTensor *self, DlTensor *view)
{
  g_autoptr (DlTensor) owned = view;

  if (!owned)
    return NULL;
  dl_tensor_set_geometry_internal (self, view->sizes, view->strides, view->ndim, view->offset);
  dl_storage_bump_version (self->storage);
  if (self->base == NULL && view->grad_fn != NULL)
    {
      g_set_object (&self->grad_fn, view->grad_fn);
      self->output_nr = view->output_nr;
    }
  return self;
}

/**
 * dl_tensor_unsqueeze_:
 * @self: a #DlTensor
 * @dim: where to insert a dim of size 1 (in [-ndim-1, ndim])
 * @error: return location for a #GError
 *
 * In-place dl_tensor_unsqueeze(): @self itself gets the new dim, as
 * torch.Tensor.unsqueeze_. Like every in-place op it bumps the storage's
 * version and is refused on a leaf that requires grad.
 *
 * Returns: (transfer none) (nullable): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_unsqueeze_ (DlTensor *self, gint64 dim, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_inplace_check_history ("unsqueeze_", self, error))
    return NULL;
  return restride_inplace (self, dl_tensor_unsqueeze (self, dim, error));
}

/**
 * dl_tensor_squeeze_dim_:
 * @self: a #DlTensor
 * @dim: the dim to remove if its size is 1
 * @error: return location for a #GError
 *
 * In-place dl_tensor_squeeze_dim(), as torch.Tensor.squeeze_(dim).
 *
 * Returns: (transfer none) (nullable): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_squeeze_dim_ (DlTensor *self, gint64 dim, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_inplace_check_history ("squeeze_", self, error))
    return NULL;
  return restride_inplace (self, dl_tensor_squeeze_dim (self, dim, error));
}

/**
 * dl_tensor_transpose_:
 * @self: a #DlTensor
 * @dim0: a dim
 * @dim1: another dim
 * @error: return location for a #GError
 *
 * In-place dl_tensor_transpose(): @self's two dims are swapped, as
 * torch.Tensor.transpose_ (and swapaxes_).
 *
 * Returns: (transfer none) (nullable): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_transpose_ (DlTensor *self, gint64 dim0, gint64 dim1, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_inplace_check_history ("transpose_", self, error))
    return NULL;
  return restride_inplace (self, dl_tensor_transpose (self, dim0, dim1, error));
}

/**
 * dl_tensor_t_:
 * @self: a tensor of at most 2 dims
 * @error: return location for a #GError
 *
 * In-place dl_tensor_t(), as torch.Tensor.t_.
 *
 * Returns: (transfer none) (nullable): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_t_ (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_inplace_check_history ("t_", self, error))
    return NULL;
  return restride_inplace (self, dl_tensor_t (self, error));
}
