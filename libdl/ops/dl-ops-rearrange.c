/* dl-ops-rearrange.c: shape ops composed of the differentiable views and
 * ops (movedim, tile, repeat_interleave, tensor_split, rot90, diag_embed,
 * diff, kron, channel_shuffle), as PyTorch writes them over its
 * primitives; their gradients come from the ops they are made of. The
 * pixel shuffles are one node each (their gradients are each other).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-ops-private.h"
#include "dl-ops-rearrange.h"

/**
 * dl_tensor_movedim:
 * @self: a #DlTensor
 * @source: (array length=n_source): the dims to move
 * @n_source: how many
 * @destination: (array length=n_destination): where each goes
 * @n_destination: how many; equal to @n_source
 * @error: return location for a #GError
 *
 * A view with dims @source moved to positions @destination and the other
 * dims in their order, as torch.movedim (and moveaxis).
 *
 * Returns: (transfer full): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_movedim (DlTensor *self,
                   const gint64 *source,
                   gsize n_source,
                   const gint64 *destination,
                   gsize n_destination,
                   GError **error)
{
  gint64 perm[DL_MAX_DIMS], src[DL_MAX_DIMS], dst[DL_MAX_DIMS];
  gboolean used_src[DL_MAX_DIMS] = { FALSE }, used_dst[DL_MAX_DIMS] = { FALSE };
  gint n = self->ndim;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (n_source != n_destination)
    {
      g_autofree gchar *s = dl_shape_to_string (source, (gint)n_source);
      g_autofree gchar *d = dl_shape_to_string (destination, (gint)n_destination);
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "movedim: Invalid source or destination dims: source (%s dims) should "
                   "contain the same number of dims as destination (%s dims)",
                   s, d);
      return NULL;
    }
  if (n_source > (gsize)MAX (n, 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "movedim: %" G_GSIZE_FORMAT " dims given for a tensor of %d dims", n_source, n);
      return NULL;
    }
  for (gsize i = 0; i < n_source; i++)
    {
      src[i] = source[i];
      dst[i] = destination[i];
      if (!dl_normalize_dim ("movedim", &src[i], n, error)
          || !dl_normalize_dim ("movedim", &dst[i], n, error))
        return NULL;
      if (used_src[src[i]] || used_dst[dst[i]])
        {
          g_autofree gchar *s
              = dl_shape_to_string (used_src[src[i]] ? source : destination, (gint)n_source);
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "movedim: repeated dim in `%s` (%s)",
                       used_src[src[i]] ? "source" : "destination", s);
          return NULL;
        }
      used_src[src[i]] = used_dst[dst[i]] = TRUE;
    }
  if (n == 0)
    return dl_tensor_view (self, NULL, 0, error);
  for (gint i = 0; i < n; i++)
    perm[i] = -1;
  for (gsize i = 0; i < n_source; i++)
    perm[dst[i]] = src[i];
  /* the dims not moved fill the free places in order */
  for (gint i = 0, j = 0; i < n; i++)
    {
      if (perm[i] >= 0)
        continue;
      while (used_src[j])
        j++;
      perm[i] = j++;
    }
  return dl_tensor_permute (self, perm, n, error);
}

/**
 * dl_tensor_tile:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): how many copies along each dim; with fewer
 *   entries than @self has dims, the leading dims get 1
 * @n_dims: how many
 * @error: return location for a #GError
 *
 * @self repeated along each dim, as torch.tile: dl_tensor_repeat() with
 * @dims padded with leading ones to @self's dims. Differentiable.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_tile (DlTensor *self, const gint64 *dims, gsize n_dims, GError **error)
{
  gint64 reps[DL_MAX_DIMS];
  gsize n = MAX (n_dims, (gsize)self->ndim), lead;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (n > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "tile: at most %d dimensions", DL_MAX_DIMS);
      return NULL;
    }
  lead = n - n_dims;
  for (gsize i = 0; i < n; i++)
    reps[i] = i < lead ? 1 : dims[i - lead];
  return dl_tensor_repeat (self, reps, n, error);
}

/**
 * dl_tensor_repeat_interleave:
 * @self: a #DlTensor
 * @repeats: an integer tensor: a 0-d count for every element, or one count
 *   per element of @dim
 * @dim: the dim whose elements are repeated
 * @error: return location for a #GError
 *
 * Each element of @self along @dim repeated its count of times in place, as
 * torch.repeat_interleave(self, repeats, dim): [a, b] with repeats [1, 2]
 * is [a, b, b]. Differentiable in @self (an index_select).
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_repeat_interleave (DlTensor *self, DlTensor *repeats, gint64 dim, GError **error)
{
  g_autoptr (DlTensor) counts = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (DlTensor) index = NULL;
  g_autofree gint64 *idx = NULL;
  const gint64 *c;
  gint64 len, total = 0, k = 0, shape[1];

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (repeats), NULL);
  if (!dl_normalize_dim ("repeat_interleave", &dim, MAX (self->ndim, 1), error))
    return NULL;
  if (self->ndim == 0)
    {
      g_autoptr (DlTensor) flat = dl_reshape_view (self, (gint64[]){ 1 }, 1, error);
      return flat ? dl_tensor_repeat_interleave (flat, repeats, 0, error) : NULL;
    }
  if (dl_dtype_is_float (repeats->dtype) || repeats->dtype == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "repeat_interleave: repeats has to be Long tensor, got %s",
                   dl_dtype_get_name (repeats->dtype));
      return NULL;
    }
  if (repeats->ndim > 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "repeat_interleave: repeats must be 0-dim or 1-dim tensor, got %d dims",
                   repeats->ndim);
      return NULL;
    }
  len = self->sizes[dim];
  if (repeats->ndim == 1 && repeats->sizes[0] != len && repeats->sizes[0] != 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "repeat_interleave: repeats must have the same size as input along dim, but "
                   "got repeats.size(0) = %" G_GINT64_FORMAT " and input.size(%" G_GINT64_FORMAT
                   ") = %" G_GINT64_FORMAT,
                   repeats->sizes[0], dim, len);
      return NULL;
    }
  counts = dl_tensor_to_dtype (repeats, DL_DTYPE_INT64, error);
  bytes = counts ? dl_tensor_to_bytes (counts, error) : NULL;
  if (!bytes)
    return NULL;
  c = g_bytes_get_data (bytes, NULL);
  for (gint64 i = 0; i < len; i++)
    {
      gint64 r = c[repeats->ndim == 1 && repeats->sizes[0] == len ? i : 0];
      if (r < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "repeat_interleave: repeats can not be negative, got %" G_GINT64_FORMAT, r);
          return NULL;
        }
      if (total > G_MAXINT64 / 8 - r)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                       "repeat_interleave: %" G_GINT64_FORMAT " repeats are too many", r);
          return NULL;
        }
      total += r;
    }
  idx = g_try_new (gint64, MAX (total, 1));
  if (!idx)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                   "repeat_interleave: cannot allocate %" G_GINT64_FORMAT " indices", total);
      return NULL;
    }
  for (gint64 i = 0; i < len; i++)
    for (gint64 r = c[repeats->ndim == 1 && repeats->sizes[0] == len ? i : 0]; r > 0; r--)
      idx[k++] = i;
  shape[0] = total;
  index = dl_tensor_new_from_data (idx, total * sizeof (gint64), shape, 1, DL_DTYPE_INT64, error);
  if (index && dl_device_get_device_type (dl_tensor_get_device (self)) != DL_DEVICE_TYPE_CPU)
    {
      DlTensor *moved = dl_tensor_to_device (index, dl_tensor_get_device (self), error);
      g_clear_object (&index);
      index = moved;
    }
  return index ? dl_tensor_index_select (self, dim, index, error) : NULL;
}

/**
 * dl_tensor_tensor_split:
 * @self: a tensor with at least one dim
 * @indices: (array length=n_indices): where the pieces start, after the
 *   first; clamped to the dim's size
 * @n_indices: how many; there are @n_indices + 1 pieces
 * @dim: the dim to split
 * @n_out: (out): return location for the number of tensors
 * @error: return location for a #GError
 *
 * Views of @self cut along @dim before each of @indices, as
 * torch.tensor_split(self, indices, dim): [0, indices[0]), [indices[0],
 * indices[1]), ..., [indices[n-1], size), each a Python slice (negative
 * indices count from the end; an end before its start gives an empty
 * piece, and an index past the end is the end).
 *
 * Returns: (array length=n_out) (transfer full): the views, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor **
dl_tensor_tensor_split (DlTensor *self,
                        const gint64 *indices,
                        gsize n_indices,
                        gint64 dim,
                        gsize *n_out,
                        GError **error)
{
  GPtrArray *parts;
  gint64 len, start = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (n_out != NULL, NULL);
  *n_out = 0;
  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "tensor_split expected at least a 1-dimensional tensor, but got a tensor "
                   "with 0 dims");
      return NULL;
    }
  if (!dl_normalize_dim ("tensor_split", &dim, self->ndim, error))
    return NULL;
  len = self->sizes[dim];
  parts = g_ptr_array_new_with_free_func (g_object_unref);
  for (gsize i = 0; i <= n_indices; i++)
    {
      /* piece i is self[indices[i-1]:indices[i]] along @dim, with Python's
       * slice rules: negative indices count from the end, and an end
       * before the start gives an empty piece */
      gint64 end = len;
      DlTensor *piece;

      if (i < n_indices)
        end = indices[i] < 0 ? MAX (indices[i] + len, 0) : MIN (indices[i], len);
      piece = dl_tensor_narrow (self, dim, start, MAX (end - start, 0), error);
      if (!piece)
        {
          g_ptr_array_unref (parts);
          return NULL;
        }
      g_ptr_array_add (parts, piece);
      start = end;
    }
  *n_out = parts->len;
  g_ptr_array_set_free_func (parts, NULL);
  g_ptr_array_add (parts, NULL);
  return (DlTensor **)g_ptr_array_free (parts, FALSE);
}

/**
 * dl_tensor_rot90:
 * @self: a tensor of at least 2 dims
 * @k: how many quarter turns, from @dim0 towards @dim1; negative turns the
 *   other way
 * @dim0: the first dim of the plane
 * @dim1: the second dim of the plane
 * @error: return location for a #GError
 *
 * @self rotated by 90 degrees @k times in the plane of @dim0 and @dim1, as
 * torch.rot90: a flip and a transpose. Differentiable.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_rot90 (DlTensor *self, gint64 k, gint64 dim0, gint64 dim1, GError **error)
{
  g_autoptr (DlTensor) flipped = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (self->ndim < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "rot90: expected total dims >= 2, but got total dims = %d", self->ndim);
      return NULL;
    }
  if (!dl_normalize_dim ("rot90", &dim0, self->ndim, error)
      || !dl_normalize_dim ("rot90", &dim1, self->ndim, error))
    return NULL;
  if (dim0 == dim1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "rot90: expected rotation dims to be different, but got dim0 = %" G_GINT64_FORMAT
                   " and dim1 = %" G_GINT64_FORMAT,
                   dim0, dim1);
      return NULL;
    }
  k = ((k % 4) + 4) % 4;
  switch (k)
    {
      case 1:
        flipped = dl_tensor_flip (self, &dim1, 1, error);
        return flipped ? dl_tensor_transpose (flipped, dim0, dim1, error) : NULL;
      case 2:
        return dl_tensor_flip (self, (gint64[]){ dim0, dim1 }, 2, error);
      case 3:
        flipped = dl_tensor_flip (self, &dim0, 1, error);
        return flipped ? dl_tensor_transpose (flipped, dim0, dim1, error) : NULL;
      default:
        return dl_tensor_clone (self, error);
    }
}

/**
 * dl_tensor_diag_embed:
 * @self: a tensor whose last dim holds the diagonals
 * @offset: which diagonal they fill: 0 the main one, above it when
 *   positive, below when negative
 * @dim1: the first dim of the matrices, counted in the result's dims
 * @dim2: the second dim
 * @error: return location for a #GError
 *
 * Matrices, zero but for the diagonals that @self's last dim gives, as
 * torch.diag_embed: the result has one more dim than @self, with matrices
 * of side n + |@offset| over dims @dim1 and @dim2. Differentiable.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_diag_embed (DlTensor *self, gint64 offset, gint64 dim1, gint64 dim2, GError **error)
{
  gint64 shape[DL_MAX_DIMS], n, side;
  gint ndim = self->ndim + 1;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) diag = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (self->ndim == 0 || ndim > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "diag_embed: expected a tensor of 1 to %d dims, got %d dims", DL_MAX_DIMS - 1,
                   self->ndim);
      return NULL;
    }
  if (!dl_normalize_diagonal_dims ("diag_embed", &dim1, &dim2, ndim, error))
    return NULL;
  n = self->sizes[self->ndim - 1];
  side = n + ABS (offset);
  for (gint i = 0, j = 0; i < ndim; i++)
    shape[i] = i == dim1 || i == dim2 ? side : self->sizes[j++];
  out = dl_zeros (shape, ndim, self->dtype, dl_tensor_get_device (self), error);
  diag = out ? dl_tensor_diagonal (out, offset, dim1, dim2, error) : NULL;
  /* the copy into a fresh tensor's view records the history of @self */
  if (!diag || !dl_tensor_copy_ (diag, self, error))
    return NULL;
  return g_steal_pointer (&out);
}

static DlTensor *
diff_once (DlTensor *t, gint64 dim, GError **error)
{
  gint64 len = t->sizes[dim];
  g_autoptr (DlTensor) hi = NULL;
  g_autoptr (DlTensor) lo = NULL;

  if (len == 0)
    return g_object_ref (t);
  hi = dl_tensor_narrow (t, dim, 1, len - 1, error);
  lo = hi ? dl_tensor_narrow (t, dim, 0, len - 1, error) : NULL;
  if (!lo)
    return NULL;
  if (t->dtype == DL_DTYPE_BOOL)
    return dl_tensor_logical_xor (hi, lo, error);
  return dl_tensor_sub (hi, lo, error);
}

/**
 * dl_tensor_diff:
 * @self: a tensor with at least one dim
 * @n: how many times to take differences; 0 or less gives the input
 *   (after @prepend and @append), as torch 1.13 does
 * @dim: the dim along which
 * @prepend: (nullable): values put before @self along @dim first
 * @append: (nullable): values put after @self along @dim first
 * @error: return location for a #GError
 *
 * The @n-th forward difference along @dim, as torch.diff: out[i] =
 * in[i + 1] - in[i], applied @n times (logical xor for bool tensors).
 * Differentiable.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_diff (DlTensor *self,
                gint64 n,
                gint64 dim,
                DlTensor *prepend,
                DlTensor *append,
                GError **error)
{
  g_autoptr (DlTensor) cur = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "diff expects input to be at least one-dimensional");
      return NULL;
    }
  if ((prepend && prepend->ndim != self->ndim) || (append && append->ndim != self->ndim))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "diff expects prepend or append to be the same dimension as input, got %d "
                   "and %d dims for an input of %d",
                   prepend ? prepend->ndim : self->ndim, append ? append->ndim : self->ndim,
                   self->ndim);
      return NULL;
    }
  if (!dl_normalize_dim ("diff", &dim, self->ndim, error))
    return NULL;
  if (prepend || append)
    {
      DlTensor *parts[3];
      gsize k = 0;
      if (prepend)
        parts[k++] = prepend;
      parts[k++] = self;
      if (append)
        parts[k++] = append;
      cur = dl_cat (parts, k, dim, error);
    }
  else
    cur = g_object_ref (self);
  for (gint64 i = 0; cur && i < n && cur->sizes[dim] > 0; i++)
    {
      DlTensor *next = diff_once (cur, dim, error);
      g_clear_object (&cur);
      cur = next;
    }
  /* a new tensor, as torch's, also when nothing was taken away */
  if (cur == self)
    {
      g_clear_object (&cur);
      return dl_tensor_clone (self, error);
    }
  return g_steal_pointer (&cur);
}

/**
 * dl_tensor_kron:
 * @self: a #DlTensor
 * @other: a #DlTensor
 * @error: return location for a #GError
 *
 * The Kronecker product, as torch.kron: the shorter shape is padded with
 * leading ones, and block (i, j, ...) of the result is self[i, j, ...] *
 * @other, so each dim has size self.size(d) * other.size(d).
 * Differentiable.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_kron (DlTensor *self, DlTensor *other, GError **error)
{
  gint n = MAX (self->ndim, other->ndim);
  gint64 sa[DL_MAX_DIMS], sb[DL_MAX_DIMS], out[DL_MAX_DIMS];
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) prod = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (other), NULL);
  if (2 * n > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "kron: at most %d dimensions", DL_MAX_DIMS / 2);
      return NULL;
    }
  for (gint i = 0; i < n; i++)
    {
      gint ia = i - (n - self->ndim), ib = i - (n - other->ndim);
      gint64 da = ia >= 0 ? self->sizes[ia] : 1, db = ib >= 0 ? other->sizes[ib] : 1;
      /* a as [a0, 1, a1, 1, ...] and b as [1, b0, 1, b1, ...]: the product
       * broadcasts to [a0, b0, a1, b1, ...] */
      sa[2 * i] = da;
      sa[2 * i + 1] = 1;
      sb[2 * i] = 1;
      sb[2 * i + 1] = db;
      out[i] = da * db;
    }
  a = dl_reshape_view (self, sa, 2 * n, error);
  b = a ? dl_reshape_view (other, sb, 2 * n, error) : NULL;
  prod = b ? dl_tensor_mul (a, b, error) : NULL;
  return prod ? dl_reshape_view (prod, out, n, error) : NULL;
}

/* ---- pixel and channel shuffles ------------------------------------------ */

/* The pixel shuffles are each other's gradient: one node each (as
 * PyTorch's PixelShuffleBackward0 and PixelUnshuffleBackward0), whose
 * backward is the other shuffle, so every order of derivative is one. */
typedef struct
{
  gint64 factor;
} ShuffleState;

static DlTensor *pixel_shuffle_impl (DlTensor *self, gint64 r, gboolean up, GError **error);

static gboolean
pixel_shuffle_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ShuffleState *s = dl_node_state (node);

  return (gi[0] = pixel_shuffle_impl (go[0], s->factor, FALSE, error)) != NULL;
}

static gboolean
pixel_unshuffle_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ShuffleState *s = dl_node_state (node);

  return (gi[0] = pixel_shuffle_impl (go[0], s->factor, TRUE, error)) != NULL;
}

/* pixel_shuffle (@up) or pixel_unshuffle of @self by @r */
static DlTensor *
pixel_shuffle_impl (DlTensor *self, gint64 r, gboolean up, GError **error)
{
  const gchar *op = up ? "pixel_shuffle" : "pixel_unshuffle";
  const gint nd = self->ndim;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) out = NULL;
  gint64 shape[DL_MAX_DIMS], lead = 1, c, h, w;
  gboolean was;

  if (nd < 3)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: %s expects input to have at least 3 dimensions, but got input with %d "
                   "dimension(s)",
                   op, op, nd);
      return NULL;
    }
  if (r <= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: %s expects a positive %s, but got %" G_GINT64_FORMAT, op, op,
                   up ? "upscale_factor" : "downscale_factor", r);
      return NULL;
    }
  c = self->sizes[nd - 3];
  h = self->sizes[nd - 2];
  w = self->sizes[nd - 1];
  if (up && c % (r * r) != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "pixel_shuffle: pixel_shuffle expects its input's 'channel' dimension to be "
                   "divisible by the square of upscale_factor, but input.size(-3)=%" G_GINT64_FORMAT
                   " is not divisible by %" G_GINT64_FORMAT,
                   c, r * r);
      return NULL;
    }
  for (gint d = 0; !up && d < 2; d++)
    if (self->sizes[nd - 2 + d] % r != 0)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "pixel_unshuffle: pixel_unshuffle expects %s to be divisible by "
                     "downscale_factor, but input.size(%d)=%" G_GINT64_FORMAT
                     " is not divisible by %" G_GINT64_FORMAT,
                     d ? "width" : "height", d - 2, self->sizes[nd - 2 + d], r);
        return NULL;
      }
  for (gint d = 0; d < nd - 3; d++)
    lead *= self->sizes[d];
  memcpy (shape, self->sizes, nd * sizeof (gint64));
  was = dl_set_grad_enabled (FALSE);
  if (up)
    {
      /* [B, C, r, r, H, W] -> [B, C, H, r, W, r] */
      shape[nd - 3] = c / (r * r);
      shape[nd - 2] = h * r;
      shape[nd - 1] = w * r;
      if ((v = dl_reshape_view (self, (gint64[]){ lead, c / (r * r), r, r, h, w }, 6, error)))
        p = dl_tensor_permute (v, (gint64[]){ 0, 1, 4, 2, 5, 3 }, 6, error);
    }
  else
    {
      /* [B, C, H, r, W, r] -> [B, C, r, r, H, W] */
      shape[nd - 3] = c * r * r;
      shape[nd - 2] = h / r;
      shape[nd - 1] = w / r;
      if ((v = dl_reshape_view (self, (gint64[]){ lead, c, h / r, r, w / r, r }, 6, error)))
        p = dl_tensor_permute (v, (gint64[]){ 0, 1, 3, 5, 2, 4 }, 6, error);
    }
  if (p)
    {
      g_autoptr (DlTensor) copy = dl_tensor_clone_format (p, DL_MEMORY_FORMAT_CONTIGUOUS, error);
      out = copy ? dl_tensor_view (copy, shape, nd, error) : NULL;
    }
  dl_set_grad_enabled (was);
  if (out && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op (up ? "PixelShuffleBackward0" : "PixelUnshuffleBackward0",
                                up ? pixel_shuffle_backward : pixel_unshuffle_backward, 1, &self);
      ShuffleState *s = DL_NODE_NEW_STATE (node, ShuffleState);

      s->factor = r;
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/**
 * dl_tensor_pixel_shuffle:
 * @self: a batch [*, C r², H, W]
 * @upscale_factor: r
 * @error: return location for a #GError
 *
 * Rearranges channels into space, as torch.nn.functional.pixel_shuffle()
 * does: element (c r² + i r + j, y, x) goes to (c, y r + i, x r + j).
 * Differentiable (its gradient is dl_tensor_pixel_unshuffle()).
 *
 * Returns: (transfer full): the batch [*, C, H r, W r], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_pixel_shuffle (DlTensor *self, gint64 upscale_factor, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return pixel_shuffle_impl (self, upscale_factor, TRUE, error);
}

/**
 * dl_tensor_pixel_unshuffle:
 * @self: a batch [*, C, H r, W r]
 * @downscale_factor: r
 * @error: return location for a #GError
 *
 * The inverse of dl_tensor_pixel_shuffle(), as
 * torch.nn.functional.pixel_unshuffle(): space into channels.
 * Differentiable.
 *
 * Returns: (transfer full): the batch [*, C r², H, W], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_pixel_unshuffle (DlTensor *self, gint64 downscale_factor, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return pixel_shuffle_impl (self, downscale_factor, FALSE, error);
}

/**
 * dl_tensor_channel_shuffle:
 * @self: a batch [N, C, *]
 * @groups: the number of groups, a divisor of C
 * @error: return location for a #GError
 *
 * Interleaves the channels of @groups groups, as
 * torch.nn.functional.channel_shuffle() does (ShuffleNet's shuffle):
 * channel g C / groups + k goes to k groups + g. Differentiable (a view,
 * a transpose and a copy).
 *
 * Returns: (transfer full): the shuffled batch, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_channel_shuffle (DlTensor *self, gint64 groups, GError **error)
{
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) t = NULL;
  gint64 rest = 1;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (self->ndim < 3)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "channel_shuffle: channel_shuffle expects input to have at least 3 "
                   "dimensions, but got input with %d dimension(s)",
                   self->ndim);
      return NULL;
    }
  if (groups <= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "channel_shuffle: Number of groups to divide channels in must be positive. "
                   "Value of groups:%" G_GINT64_FORMAT,
                   groups);
      return NULL;
    }
  if (self->sizes[1] % groups != 0)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_SHAPE,
          "channel_shuffle: Number of channels must be divisible by groups. Got %" G_GINT64_FORMAT
          " channels and %" G_GINT64_FORMAT " groups.",
          self->sizes[1], groups);
      return NULL;
    }
  for (gint d = 2; d < self->ndim; d++)
    rest *= self->sizes[d];
  if (!(v = dl_reshape_view (
            self, (gint64[]){ self->sizes[0], groups, self->sizes[1] / groups, rest }, 4, error))
      || !(t = dl_tensor_transpose (v, 1, 2, error)))
    return NULL;
  return dl_reshape_view (t, self->sizes, self->ndim, error);
}
