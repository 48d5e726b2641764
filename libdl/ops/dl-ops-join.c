/* dl-ops-join.c: joining and rearranging: cat, stack, repeat, flip, roll,
 * tril, triu. Only cat moves memory itself (through the backend's copy);
 * the others are written over views, index_select and where, whose
 * gradients they inherit.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-private.h"

static DlTensor *
int64_tensor (const gint64 *values, gint64 n, GError **error)
{
  g_autoptr (GBytes) bytes = g_bytes_new (values, n * sizeof (gint64));

  return dl_tensor_new_from_bytes (bytes, &n, 1, DL_DTYPE_INT64, error);
}

/* ---- cat ------------------------------------------------------------------ */

typedef struct
{
  gint dim;
  gint64 sizes[]; /* each input's size along dim; -1: a skipped legacy empty tensor */
} CatState;

static gboolean
cat_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const CatState *s = dl_node_state (node);
  gint64 offset = 0;

  for (guint i = 0; i < d->n_inputs; i++)
    {
      gint64 size = s->sizes[i];
      DlInputMeta *in = &d->inputs[i];
      g_autoptr (DlTensor) part = NULL;

      if (size < 0)
        {
          if (dl_node_needs_input_grad (node, i)
              && !(gi[i] = dl_zeros (in->sizes, in->ndim, in->dtype, dl_tensor_get_device (go[0]),
                                     error)))
            return FALSE;
          continue;
        }
      if (dl_node_needs_input_grad (node, i))
        {
          if (!(part = dl_tensor_narrow (go[0], s->dim, offset, size, error))
              || !(gi[i] = dl_tensor_to_dtype (part, in->dtype, error)))
            return FALSE;
        }
      offset += size;
    }
  return TRUE;
}

static gboolean
is_legacy_empty (DlTensor *t)
{
  return t->ndim == 1 && t->sizes[0] == 0;
}

static DlTensor *
cat_impl (DlTensor **tensors, gsize n, gint64 dim, GError **error)
{
  DlTensor *ref = NULL;
  gint64 shape[DL_MAX_DIMS], offset = 0;
  DlDType dt = tensors[0]->dtype;
  g_autoptr (DlTensor) out = NULL;
  DlBackendContext *ctx;

  for (gsize i = 0; i < n; i++)
    {
      g_return_val_if_fail (DL_IS_TENSOR (tensors[i]), NULL);
      if (tensors[i]->ndim == 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "cat: zero-dimensional tensor (at position %" G_GSIZE_FORMAT ") cannot be "
                       "concatenated",
                       i);
          return NULL;
        }
      if (!dl_check_same_device ("cat", tensors[0], tensors[i], error))
        return NULL;
      dt = i == 0 ? dt : dl_dtype_promote (dt, tensors[i]->dtype);
      if (ref == NULL && !is_legacy_empty (tensors[i]))
        ref = tensors[i];
    }
  if (ref == NULL)
    ref = tensors[0];
  if (!dl_normalize_dim ("cat", &dim, ref->ndim, error))
    return NULL;
  memcpy (shape, ref->sizes, ref->ndim * sizeof (gint64));
  shape[dim] = 0;
  for (gsize i = 0; i < n; i++)
    {
      DlTensor *t = tensors[i];
      if (is_legacy_empty (t) && t != ref)
        continue;
      for (gint d = 0; d < ref->ndim; d++)
        if (t->ndim != ref->ndim || (d != dim && t->sizes[d] != ref->sizes[d]))
          {
            g_autofree gchar *a = dl_shape_to_string (ref->sizes, ref->ndim);
            g_autofree gchar *b = dl_shape_to_string (t->sizes, t->ndim);
            g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                         "cat: Sizes of tensors must match except in dimension %" G_GINT64_FORMAT
                         ": %s and %s "
                         "(tensor %" G_GSIZE_FORMAT ")",
                         dim, a, b, i);
            return NULL;
          }
      shape[dim] += t->sizes[dim];
    }
  if (!(ctx = DL_TENSOR_BACKEND (ref, copy, "cat", error))
      || !(out
           = dl_tensor_new_empty_internal (dl_tensor_device (ref), dt, shape, ref->ndim, error)))
    return NULL;
  for (gsize i = 0; i < n; i++)
    {
      DlTensor *t = tensors[i];
      g_autoptr (DlTensor) part = NULL;
      DlTensor *ops[2];
      DlIter iter;

      if (is_legacy_empty (t) && t != ref)
        continue;
      part = dl_tensor_new_view_internal (out, t->sizes, out->strides, out->ndim,
                                          offset * out->strides[dim]);
      ops[0] = part;
      ops[1] = t;
      dl_iter_init (&iter, 2, ops, t->sizes, t->ndim);
      ctx->backend->copy (ctx, &iter, dt, t->dtype);
      offset += t->sizes[dim];
    }
  if (dl_autograd_any_requires (n, tensors))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("CatBackward0", cat_backward, n, tensors);
      CatState *s = dl_node_alloc_state (node, sizeof (CatState) + n * sizeof (gint64), NULL);

      s->dim = dim;
      for (gsize i = 0; i < n; i++)
        {
          gboolean skipped = is_legacy_empty (tensors[i]) && tensors[i] != ref;
          s->sizes[i] = skipped ? -1 : tensors[i]->sizes[dim];
        }
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/**
 * dl_cat:
 * @tensors: (array length=n_tensors): the tensors, with equal shapes
 *   except along @dim (1-d empty tensors are skipped, as PyTorch does)
 * @n_tensors: how many, at least one
 * @dim: the dim to join along
 * @error: return location for a #GError
 *
 * The tensors joined along @dim, promoted to a common dtype, as torch.cat.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_cat (DlTensor **tensors, gsize n_tensors, gint64 dim, GError **error)
{
  if (n_tensors == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "cat(): expected a non-empty list of Tensors");
      return NULL;
    }
  return cat_impl (tensors, n_tensors, dim, error);
}

/* torch's StackBackward0: input i's gradient is slice i of the output's
 * along the new dim, in the input's dtype */
static gboolean
stack_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const gint dim = *(const gint *)dl_node_state (node);

  for (guint i = 0; i < d->n_inputs; i++)
    {
      g_autoptr (DlTensor) part = NULL;

      if (dl_node_needs_input_grad (node, i)
          && (!(part = dl_tensor_select (go[0], dim, i, error))
              || !(gi[i] = dl_tensor_to_dtype (part, d->inputs[i].dtype, error))))
        return FALSE;
    }
  return TRUE;
}

/**
 * dl_stack:
 * @tensors: (array length=n_tensors): tensors of one shape
 * @n_tensors: how many, at least one
 * @dim: where the new dim goes, in [-ndim - 1, ndim]
 * @error: return location for a #GError
 *
 * The tensors joined along a new dim, as torch.stack.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_stack (DlTensor **tensors, gsize n_tensors, gint64 dim, GError **error)
{
  g_autoptr (GPtrArray) parts = NULL;
  g_autoptr (DlTensor) out = NULL;
  gboolean grad;

  if (n_tensors == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "stack expects a non-empty TensorList");
      return NULL;
    }
  g_return_val_if_fail (DL_IS_TENSOR (tensors[0]), NULL);
  if (!dl_normalize_dim ("stack", &dim, tensors[0]->ndim + 1, error))
    return NULL;
  parts = g_ptr_array_new_with_free_func (g_object_unref);
  for (gsize i = 0; i < n_tensors; i++)
    {
      g_return_val_if_fail (DL_IS_TENSOR (tensors[i]), NULL);
      if (tensors[i]->ndim != tensors[0]->ndim
          || memcmp (tensors[i]->sizes, tensors[0]->sizes, tensors[0]->ndim * sizeof (gint64)))
        {
          g_autofree gchar *a = dl_shape_to_string (tensors[0]->sizes, tensors[0]->ndim);
          g_autofree gchar *b = dl_shape_to_string (tensors[i]->sizes, tensors[i]->ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "stack expects each tensor to be equal size, but got %s at entry 0 and "
                       "%s at entry %" G_GSIZE_FORMAT,
                       a, b, i);
          return NULL;
        }
    }
  /* the join itself outside autograd: one StackBackward0 node, as torch
   * records, rather than an UnsqueezeBackward0 per input under a cat */
  grad = dl_is_grad_enabled ();
  dl_set_grad_enabled (FALSE);
  for (gsize i = 0; i < n_tensors; i++)
    {
      DlTensor *u = dl_tensor_unsqueeze (tensors[i], dim, error);

      if (!u)
        break;
      g_ptr_array_add (parts, u);
    }
  if (parts->len == n_tensors)
    out = dl_cat ((DlTensor **)parts->pdata, parts->len, dim, error);
  dl_set_grad_enabled (grad);
  if (!out)
    return NULL;
  if (dl_autograd_any_requires (n_tensors, tensors))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("StackBackward0", stack_backward, n_tensors, tensors);

      *DL_NODE_NEW_STATE (node, gint) = dim;
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/* ---- unbind, split, chunk ------------------------------------------------------
 * The pieces are views of @self made with grad mode off, and one node
 * records them all as its outputs, as torch's SplitBackward0,
 * SplitWithSizesBackward0 and UnbindBackward0: the backward joins the
 * pieces' gradients (zeros for a piece that got none) in one cat or stack,
 * instead of a zero-filled input-sized gradient per piece. */

static DlTensor **
steal_array (GPtrArray *parts, gsize *n_out)
{
  *n_out = parts->len;
  g_ptr_array_add (parts, NULL);
  return (DlTensor **)g_ptr_array_free (parts, FALSE);
}

static void
free_parts (GPtrArray *parts)
{
  g_ptr_array_set_free_func (parts, g_object_unref);
  g_ptr_array_unref (parts);
}

typedef struct
{
  gint dim;
  gboolean stacked; /* unbind: the pieces lost dim */
  gint64 sizes[];   /* each piece's length along dim (split) */
} PiecesState;

static gboolean
pieces_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DlNodeData *d = dl_node_data (node);
  const PiecesState *s = dl_node_state (node);
  const DlInputMeta *in = &d->inputs[0];
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_object_unref);
  DlTensor *some = NULL;

  for (guint i = 0; i < d->n_outputs && some == NULL; i++)
    some = go[i];
  g_return_val_if_fail (some != NULL, FALSE);
  for (guint i = 0; i < d->n_outputs; i++)
    {
      gint64 shape[DL_MAX_DIMS];
      gint n = 0;
      DlTensor *zeros;

      if (go[i] != NULL)
        {
          g_ptr_array_add (parts, g_object_ref (go[i]));
          continue;
        }
      for (gint k = 0; k < in->ndim; k++)
        if (k != s->dim)
          shape[n++] = in->sizes[k];
        else if (!s->stacked)
          shape[n++] = s->sizes[i];
      if (!(zeros = dl_zeros (shape, n, some->dtype, dl_tensor_get_device (some), error)))
        return FALSE;
      g_ptr_array_add (parts, zeros);
    }
  gi[0] = s->stacked ? dl_stack ((DlTensor **)parts->pdata, parts->len, s->dim, error)
                     : dl_cat ((DlTensor **)parts->pdata, parts->len, s->dim, error);
  return gi[0] != NULL;
}

/* Makes @n views of @self along @dim: of the given lengths, or (@sizes
 * NULL) each index, @dim removed; one node named @name records them.
 * @unsafe (torch's unsafe_split): the pieces share @self's elements but
 * autograd does not take them for views (no base; in-place writes into
 * them are allowed and not seen by @self's history). */
static DlTensor **
pieces (DlTensor *self,
        const gchar *name,
        const gint64 *sizes,
        gsize n,
        gint dim,
        gboolean unsafe,
        gsize *n_out,
        GError **error)
{
  GPtrArray *parts = g_ptr_array_new ();
  gboolean record = dl_autograd_any_requires (1, &self);
  gboolean was = dl_set_grad_enabled (FALSE);
  gint64 start = 0;
  DlTensor *v = NULL;

  for (gsize i = 0; i < n; i++)
    {
      v = sizes ? dl_tensor_narrow (self, dim, start, sizes[i], error)
                : dl_tensor_select (self, dim, (gint64)i, error);
      if (v == NULL)
        break;
      g_ptr_array_add (parts, v);
      start += sizes ? sizes[i] : 0;
    }
  dl_set_grad_enabled (was);
  if (parts->len < n)
    {
      free_parts (parts);
      return NULL;
    }
  for (gsize i = 0; unsafe && i < n; i++)
    g_clear_object (&((DlTensor *)parts->pdata[i])->base);
  if (record && n > 0)
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (name, pieces_backward, 1, &self);
      PiecesState *st
          = dl_node_alloc_state (node, sizeof (PiecesState) + n * sizeof (gint64), NULL);

      st->dim = dim;
      st->stacked = sizes == NULL;
      for (gsize i = 0; sizes && i < n; i++)
        st->sizes[i] = sizes[i];
      for (gsize i = 0; i < n; i++)
        {
          DlTensor *piece = parts->pdata[i];

          dl_node_set_output (node, piece, (guint)i);
          piece->multi_output_view = !unsafe;
        }
    }
  return steal_array (parts, n_out);
}

/**
 * dl_tensor_unbind:
 * @self: a #DlTensor with at least one dim
 * @dim: the dim to remove
 * @n_out: (out): return location for the number of tensors
 * @error: return location for a #GError
 *
 * The slices of @self along @dim, views with @dim removed, as
 * torch.unbind.
 *
 * Returns: (array length=n_out) (transfer full) (nullable): the views, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor **
dl_tensor_unbind (DlTensor *self, gint64 dim, gsize *n_out, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && n_out != NULL, NULL);
  *n_out = 0;
  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "unbind: Dimension specified as %" G_GINT64_FORMAT " but "
                   "tensor has no dimensions",
                   dim);
      return NULL;
    }
  if (!dl_normalize_dim ("unbind", &dim, self->ndim, error))
    return NULL;
  return pieces (self, "UnbindBackward0", NULL, self->sizes[dim], (gint)dim, FALSE, n_out, error);
}

/* split and split_with_sizes: @sizes checked, then the pieces recorded
 * under @name */
static DlTensor **
split_sizes (DlTensor *self,
             const gchar *name,
             const gint64 *sizes,
             gsize n_sizes,
             gint64 dim,
             gboolean unsafe,
             gsize *n_out,
             GError **error)
{
  gint64 total = 0;

  *n_out = 0;
  if (self->ndim == 0)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_ARGUMENT,
          "split: dimension specified as %" G_GINT64_FORMAT " but tensor has no dimensions", dim);
      return NULL;
    }
  if (!dl_normalize_dim ("split", &dim, self->ndim, error))
    return NULL;
  for (gsize i = 0; i < n_sizes; i++)
    {
      if (sizes[i] < 0)
        total = -1;
      if (total < 0)
        break;
      total += sizes[i];
    }
  if (total != self->sizes[dim])
    {
      g_autofree gchar *s = dl_shape_to_string (sizes, n_sizes);
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "split_with_sizes expects split_sizes to sum exactly to %" G_GINT64_FORMAT
                   " (input tensor's size at dimension %" G_GINT64_FORMAT
                   "), but got split_sizes=%s",
                   self->sizes[dim], dim, s);
      return NULL;
    }
  return pieces (self, name, sizes, n_sizes, (gint)dim, unsafe, n_out, error);
}

/**
 * dl_tensor_split_with_sizes:
 * @self: a #DlTensor with at least one dim
 * @sizes: (array length=n_sizes): the length of each piece along @dim;
 *   they add up to that dim's size
 * @n_sizes: how many pieces
 * @dim: the dim to split
 * @n_out: (out): return location for the number of tensors
 * @error: return location for a #GError
 *
 * @self cut along @dim into views of the given lengths, as torch.split
 * with a list of sizes.
 *
 * Returns: (array length=n_out) (transfer full) (nullable): the views, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor **
dl_tensor_split_with_sizes (DlTensor *self,
                            const gint64 *sizes,
                            gsize n_sizes,
                            gint64 dim,
                            gsize *n_out,
                            GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && n_out != NULL, NULL);
  return split_sizes (self, "SplitWithSizesBackward0", sizes, n_sizes, dim, FALSE, n_out, error);
}

/* @self cut along @dim into pieces of @split_size (the last shorter) */
static DlTensor **
split_even (DlTensor *self,
            const gchar *name,
            gint64 split_size,
            gint64 dim,
            gboolean unsafe,
            gsize *n_out,
            GError **error)
{
  g_autofree gint64 *sizes = NULL;
  gint64 n, count;

  *n_out = 0;
  if (self->ndim == 0)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_ARGUMENT,
          "split: dimension specified as %" G_GINT64_FORMAT " but tensor has no dimensions", dim);
      return NULL;
    }
  if (!dl_normalize_dim ("split", &dim, self->ndim, error))
    return NULL;
  n = self->sizes[dim];
  if (split_size < 0 || (split_size == 0 && n != 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "split expects split_size be non-negative, but got split_size=%" G_GINT64_FORMAT,
                   split_size);
      return NULL;
    }
  count = n == 0 ? 1 : n / split_size + (n % split_size != 0);
  sizes = g_new (gint64, count);
  for (gint64 i = 0; i < count; i++)
    sizes[i] = n == 0 ? 0 : MIN (split_size, n - i * split_size);
  return split_sizes (self, name, sizes, count, dim, unsafe, n_out, error);
}

/**
 * dl_tensor_split:
 * @self: a #DlTensor with at least one dim
 * @split_size: the length of each piece along @dim (the last may be
 *   shorter)
 * @dim: the dim to split
 * @n_out: (out): return location for the number of tensors
 * @error: return location for a #GError
 *
 * @self cut along @dim into views of @split_size, as torch.split with an
 * int.
 *
 * Returns: (array length=n_out) (transfer full) (nullable): the views, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor **
dl_tensor_split (DlTensor *self, gint64 split_size, gint64 dim, gsize *n_out, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && n_out != NULL, NULL);
  return split_even (self, "SplitBackward0", split_size, dim, FALSE, n_out, error);
}

/**
 * dl_tensor_unsafe_split:
 * @self: a #DlTensor with at least one dim
 * @split_size: the length of each piece along @dim (the last may be
 *   shorter)
 * @dim: the dim to split
 * @n_out: (out): return location for the number of tensors
 * @error: return location for a #GError
 *
 * dl_tensor_split() whose pieces autograd does not take for views, as
 * torch.unsafe_split: they share @self's elements, record one
 * UnsafeSplitBackward0 node, and may be written in place (the writes are
 * not seen by @self's history).
 *
 * Returns: (array length=n_out) (transfer full) (nullable): the pieces, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor **
dl_tensor_unsafe_split (DlTensor *self, gint64 split_size, gint64 dim, gsize *n_out, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && n_out != NULL, NULL);
  return split_even (self, "UnsafeSplitBackward0", split_size, dim, TRUE, n_out, error);
}

/**
 * dl_tensor_unsafe_split_with_sizes:
 * @self: a #DlTensor with at least one dim
 * @sizes: (array length=n_sizes): the length of each piece along @dim;
 *   they add up to that dim's size
 * @n_sizes: how many pieces
 * @dim: the dim to split
 * @n_out: (out): return location for the number of tensors
 * @error: return location for a #GError
 *
 * dl_tensor_split_with_sizes() whose pieces autograd does not take for
 * views, as torch.unsafe_split_with_sizes (see dl_tensor_unsafe_split()).
 *
 * Returns: (array length=n_out) (transfer full) (nullable): the pieces, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor **
dl_tensor_unsafe_split_with_sizes (DlTensor *self,
                                   const gint64 *sizes,
                                   gsize n_sizes,
                                   gint64 dim,
                                   gsize *n_out,
                                   GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self) && n_out != NULL, NULL);
  return split_sizes (self, "UnsafeSplitWithSizesBackward0", sizes, n_sizes, dim, TRUE, n_out,
                      error);
}

/**
 * dl_tensor_chunk:
 * @self: a #DlTensor with at least one dim
 * @chunks: how many pieces to aim for, at least 1
 * @dim: the dim to split
 * @n_out: (out): return location for the number of tensors
 * @error: return location for a #GError
 *
 * @self cut along @dim into at most @chunks views of equal length (the
 * last may be shorter), as torch.chunk.
 *
 * Returns: (array length=n_out) (transfer full) (nullable): the views, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor **
dl_tensor_chunk (DlTensor *self, gint64 chunks, gint64 dim, gsize *n_out, GError **error)
{
  gint64 n;

  g_return_val_if_fail (DL_IS_TENSOR (self) && n_out != NULL, NULL);
  *n_out = 0;
  if (chunks <= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "chunk expects `chunks` to be greater than 0, got: %" G_GINT64_FORMAT, chunks);
      return NULL;
    }
  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "chunk expects at least a 1-dimensional tensor");
      return NULL;
    }
  if (!dl_normalize_dim ("chunk", &dim, self->ndim, error))
    return NULL;
  n = self->sizes[dim];
  if (n == 0)
    {
      /* PyTorch gives @chunks empty pieces (and fails to allocate as
       * many as 2**40) */
      g_autofree gint64 *sizes = g_try_new0 (gint64, chunks);
      if (sizes == NULL)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                       "chunk: cannot make %" G_GINT64_FORMAT " empty pieces", chunks);
          return NULL;
        }
      return dl_tensor_split_with_sizes (self, sizes, chunks, dim, n_out, error);
    }
  return dl_tensor_split (self, (n + chunks - 1) / chunks, dim, n_out, error);
}

/* ---- repeat, flip, roll ------------------------------------------------------ */

/**
 * dl_tensor_repeat:
 * @self: a #DlTensor
 * @repeats: (array length=n_repeats): how many times to repeat each dim; at
 *   least as many entries as @self has dims (extra ones add leading dims)
 * @n_repeats: how many
 * @error: return location for a #GError
 *
 * @self tiled @repeats times along each dim, as torch.Tensor.repeat.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_repeat (DlTensor *self, const gint64 *repeats, gsize n_repeats, GError **error)
{
  gint64 inter[DL_MAX_DIMS], big[DL_MAX_DIMS], out[DL_MAX_DIMS];
  gint lead;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) c = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (n_repeats < (gsize)self->ndim)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "repeat: Number of dimensions of repeat dims (%" G_GSIZE_FORMAT ") can not be "
                   "smaller than number of dimensions of tensor (%d)",
                   n_repeats, self->ndim);
      return NULL;
    }
  if (2 * n_repeats > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "repeat: at most %d dims", DL_MAX_DIMS / 2);
      return NULL;
    }
  lead = n_repeats - self->ndim;
  for (gsize i = 0; i < n_repeats; i++)
    {
      gint64 s = (gint)i < lead ? 1 : self->sizes[i - lead];
      if (repeats[i] < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "repeat: Trying to create tensor with negative dimension %" G_GINT64_FORMAT,
                       repeats[i]);
          return NULL;
        }
      inter[2 * i] = 1;
      inter[2 * i + 1] = s;
      big[2 * i] = repeats[i];
      big[2 * i + 1] = s;
      out[i] = repeats[i] * s;
    }
  /* the expanded tensor cloned: a reshape of it alone would be a view of
   * @self wherever it can (repeat (2, 1) of a vector), and torch's repeat
   * always copies */
  if (!(v = dl_reshape_view (self, inter, 2 * n_repeats, error))
      || !(e = dl_tensor_expand (v, big, 2 * n_repeats, error))
      || !(c = dl_tensor_clone (e, error)))
    return NULL;
  return dl_reshape_view (c, out, n_repeats, error);
}

/* self indexed along @dim by a host-made index (flip, roll) */
static DlTensor *
permute_along (DlTensor *self, gint dim, const gint64 *index, GError **error)
{
  g_autoptr (DlTensor) idx = int64_tensor (index, self->sizes[dim], error);

  return idx ? dl_tensor_index_select (self, dim, idx, error) : NULL;
}

/**
 * dl_tensor_flip:
 * @self: a #DlTensor
 * @dims: (array length=n_dims): the dims to reverse
 * @n_dims: how many
 * @error: return location for a #GError
 *
 * A copy of @self with the order of the elements along @dims reversed, as
 * torch.flip.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_flip (DlTensor *self, const gint64 *dims, gsize n_dims, GError **error)
{
  gboolean seen[DL_MAX_DIMS] = { FALSE };
  g_autoptr (DlTensor) t = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  for (gsize i = 0; i < n_dims; i++)
    {
      gint64 d = dims[i];
      if (!dl_normalize_dim ("flip", &d, MAX (self->ndim, 1), error))
        return NULL;
      if (seen[d])
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "flip: dim %" G_GINT64_FORMAT " appears multiple times "
                       "in the list of dims",
                       d);
          return NULL;
        }
      seen[d] = TRUE;
    }
  t = dl_tensor_clone (self, error);
  for (gint d = 0; t && d < self->ndim; d++)
    if (seen[d] && self->sizes[d] > 1)
      {
        g_autofree gint64 *idx = g_new (gint64, self->sizes[d]);
        DlTensor *n;
        for (gint64 i = 0; i < self->sizes[d]; i++)
          idx[i] = self->sizes[d] - 1 - i;
        n = permute_along (t, d, idx, error);
        g_object_unref (t);
        t = n;
      }
  return g_steal_pointer (&t);
}

/**
 * dl_tensor_roll:
 * @self: a #DlTensor
 * @shifts: (array length=n_shifts): how far to shift along each dim
 * @n_shifts: how many
 * @dims: (array length=n_dims): the dims, as many as @shifts; none to roll
 *   the flattened tensor by one shift
 * @n_dims: how many
 * @error: return location for a #GError
 *
 * A copy of @self with its elements moved @shifts places along @dims,
 * wrapping around, as torch.roll.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_roll (DlTensor *self,
                const gint64 *shifts,
                gsize n_shifts,
                const gint64 *dims,
                gsize n_dims,
                GError **error)
{
  g_autoptr (DlTensor) t = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (n_dims == 0)
    {
      gint64 flat = -1;
      g_autoptr (DlTensor) f = NULL;
      g_autoptr (DlTensor) r = NULL;
      gint64 zero = 0;
      if (n_shifts != 1)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "roll: shifts (%" G_GSIZE_FORMAT ") and dimensions (0) must align; "
                       "without dims, give one shift",
                       n_shifts);
          return NULL;
        }
      if (!(f = dl_reshape_view (self, &flat, 1, error))
          || !(r = dl_tensor_roll (f, shifts, 1, &zero, 1, error)))
        return NULL;
      return dl_reshape_view (r, self->sizes, self->ndim, error);
    }
  if (n_shifts != n_dims)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "roll: shifts and dimensions must align. shifts: %" G_GSIZE_FORMAT
                   ", dims: %" G_GSIZE_FORMAT,
                   n_shifts, n_dims);
      return NULL;
    }
  t = dl_tensor_clone (self, error);
  for (gsize i = 0; t && i < n_dims; i++)
    {
      gint64 d = dims[i];
      gint64 n;
      g_autofree gint64 *idx = NULL;
      DlTensor *r;

      if (self->ndim == 0 || !dl_normalize_dim ("roll", &d, self->ndim, error))
        {
          if (self->ndim == 0)
            g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                         "roll: Dimension specified as %" G_GINT64_FORMAT
                         " but tensor has no dimensions",
                         d);
          return NULL;
        }
      n = self->sizes[d];
      if (n == 0)
        continue;
      idx = g_new (gint64, n);
      for (gint64 k = 0; k < n; k++)
        idx[k] = (((k - shifts[i]) % n) + n) % n;
      r = permute_along (t, d, idx, error);
      g_object_unref (t);
      t = r;
    }
  return g_steal_pointer (&t);
}

/* ---- tril, triu -------------------------------------------------------------- */

static DlTensor *
triangle (const gchar *op, DlTensor *self, gint64 diagonal, gboolean lower, GError **error)
{
  gint64 r, c, rs[2], cs[2];
  g_autoptr (DlTensor) rows = NULL;
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) rv = NULL;
  g_autoptr (DlTensor) cv = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) mask = NULL;
  g_autoptr (DlTensor) zero = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (self->ndim < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s: input tensor must have at least 2 dimensions (got %d)", op, self->ndim);
      return NULL;
    }
  r = self->sizes[self->ndim - 2];
  c = self->sizes[self->ndim - 1];
  rs[0] = r;
  rs[1] = 1;
  cs[0] = 1;
  cs[1] = c;
  /* keep where (col - row) <= diagonal (tril) or >= diagonal (triu) */
  if (!(rows = dl_arange (0, r, 1, DL_DTYPE_INT64, dl_tensor_get_device (self), error))
      || !(cols = dl_arange (0, c, 1, DL_DTYPE_INT64, dl_tensor_get_device (self), error))
      || !(rv = dl_reshape_view (rows, rs, 2, error))
      || !(cv = dl_reshape_view (cols, cs, 2, error)) || !(diff = dl_tensor_sub (cv, rv, error))
      || !(mask = lower ? dl_tensor_le_scalar (diff, diagonal, error)
                        : dl_tensor_ge_scalar (diff, diagonal, error)))
    return NULL;
  zero = dl_tensor_new_scalar (0, self->dtype);
  return dl_where (mask, self, zero, error);
}

/**
 * dl_tensor_tril:
 * @self: a #DlTensor with at least 2 dims
 * @diagonal: which diagonal bounds the triangle: 0 the main one, positive
 *   above it, negative below
 * @error: return location for a #GError
 *
 * The lower triangle of the matrices in @self, zeros elsewhere, as
 * torch.tril.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_tril (DlTensor *self, gint64 diagonal, GError **error)
{
  return triangle ("tril", self, diagonal, TRUE, error);
}

/**
 * dl_tensor_triu:
 * @self: a #DlTensor with at least 2 dims
 * @diagonal: which diagonal bounds the triangle: 0 the main one, positive
 *   above it, negative below
 * @error: return location for a #GError
 *
 * The upper triangle of the matrices in @self, zeros elsewhere, as
 * torch.triu.
 *
 * Returns: (transfer full): the new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_triu (DlTensor *self, gint64 diagonal, GError **error)
{
  return triangle ("triu", self, diagonal, FALSE, error);
}
