/* dl-iter.c: the ops layer's glue to the backends: DlIter over tensors (the
 * geometry is in backends/dl-iter.c), the missing-slot error, shape
 * broadcasting, overlap checks and layouts for new outputs. Moving values
 * between tensors and the host is in dl-ops-host.c.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-iter-private.h"
#include "dl-ops-private.h"
#include <string.h>

#include "dl-error.h"

DlBackendContext *
dl_backend_not_supported (DlTensor *t, const gchar *op, const gchar *slot, GError **error)
{
  DlDevice *device = dl_tensor_device (t);

  if (!dl_check_live (op, t, error))
    return NULL;
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "%s: not supported on device '%s' (its backend, '%s', has no '%s' kernel)", op,
               dl_device_get_name (device), dl_device_get_backend (device)->name, slot);
  return NULL;
}

gboolean
dl_broadcast_shapes (const gchar *op,
                     const gint64 *a,
                     gint a_ndim,
                     const gint64 *b,
                     gint b_ndim,
                     gint64 *out,
                     gint *out_ndim,
                     GError **error)
{
  gint ndim = MAX (a_ndim, b_ndim);

  for (gint i = 0; i < ndim; i++)
    {
      gint ia = a_ndim - ndim + i, ib = b_ndim - ndim + i;
      gint64 sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;

      if (sa == sb || sb == 1)
        out[i] = sa;
      else if (sa == 1)
        out[i] = sb;
      else
        {
          g_autofree gchar *as = dl_shape_to_string (a, a_ndim);
          g_autofree gchar *bs = dl_shape_to_string (b, b_ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: shapes %s and %s cannot be broadcast "
                       "(size %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT " at dim %d)",
                       op, as, bs, sa, sb, i);
          return FALSE;
        }
    }
  *out_ndim = ndim;
  return dl_check_numel (op, out, ndim, error);
}

/* The tensor glue of DlIter: each tensor's first element, sizes, strides
 * and element size, handed to the geometry in backends/dl-iter.c. */
void
dl_iter_init (DlIter *iter, gint n, DlTensor **tensors, const gint64 *shape, gint ndim)
{
  DlIterOperand operands[n];

  for (gint k = 0; k < n; k++)
    {
      DlTensor *t = tensors[k];

      operands[k].data = dl_tensor_data (t);
      operands[k].sizes = t->sizes;
      operands[k].strides = t->strides;
      operands[k].ndim = t->ndim;
      operands[k].element_size = (gint)dl_dtype_size (t->dtype);
    }
  dl_iter_init_operands (iter, n, operands, shape, ndim);
}

/* Whether @op may write into @out: its memory is writable (not a
 * read-only buffer it was made from) and no two of its elements share a
 * location (an expanded view). */
gboolean
dl_check_write_target (const gchar *op, DlTensor *out, GError **error)
{
  if (!dl_check_live (op, out, error))
    return FALSE;
  if (out->storage->read_only)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: the tensor's memory is read-only (it was made from a read-only "
                   "buffer, such as a non-writable NumPy array); clone() it to write",
                   op);
      return FALSE;
    }
  for (gint i = 0; i < out->ndim; i++)
    if (out->sizes[i] > 1 && out->strides[i] == 0)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: unsupported operation: more than one element of the written-to "
                     "tensor refers to a single memory location. Please clone() the tensor "
                     "before performing the operation.",
                     op);
        return FALSE;
      }
  return TRUE;
}

static void
byte_range (DlTensor *t, gint64 *start, gint64 *end)
{
  gint64 es = dl_dtype_size (t->dtype);

  *start = t->offset * es;
  *end = *start + es;
  for (gint i = 0; i < t->ndim; i++)
    *end += (t->sizes[i] - 1) * t->strides[i] * es;
}

gboolean
dl_check_no_partial_overlap (const gchar *op, DlTensor *out, DlTensor *input, GError **error)
{
  gint64 a0, a1, b0, b1;

  if (out->storage != input->storage || out->numel == 0 || input->numel == 0)
    return TRUE;
  if (out->offset == input->offset && out->ndim == input->ndim && out->dtype == input->dtype
      && memcmp (out->sizes, input->sizes, out->ndim * sizeof (gint64)) == 0
      && memcmp (out->strides, input->strides, out->ndim * sizeof (gint64)) == 0)
    return TRUE;
  byte_range (out, &a0, &a1);
  byte_range (input, &b0, &b1);
  if (a1 <= b0 || b1 <= a0)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
               "%s: unsupported operation: some elements of the input tensor and the "
               "written-to tensor refer to a single memory location. Please clone() the "
               "tensor before performing the operation.",
               op);
  return FALSE;
}

DlTensor *
dl_empty_like_layout (DlTensor *like, DlDType dtype, const gint64 *shape, gint ndim, GError **error)
{
  gint perm[DL_MAX_DIMS];
  gint64 expected = 1;
  DlTensor *out;

  if (like != NULL && like->ndim == ndim && dl_tensor_is_contiguous (like)
      && dl_dtype_size (like->dtype) == dl_dtype_size (dtype)
      && memcmp (like->sizes, shape, ndim * sizeof (gint64)) == 0)
    {
      /* the same place within a cache line (and, for a big result, within
       * a page) as @like's data: an elementwise kernel can then align all
       * its streams, and its stores never wait on its loads
       * (dl_storage_new_at) */
      guintptr at = (guintptr)(like->storage->data + like->offset * dl_dtype_size (dtype));

      return dl_tensor_new_empty_at_internal (dl_tensor_device (like), dtype, shape, ndim,
                                              (gssize)(at % 4096), error);
    }
  if (like == NULL || like->ndim != ndim || like->numel <= 1 || dl_tensor_is_contiguous (like)
      || memcmp (like->sizes, shape, ndim * sizeof (gint64)) != 0)
    return dl_tensor_new_empty_internal (like ? dl_tensor_device (like) : NULL, dtype, shape, ndim,
                                         error);
  /* dims by decreasing stride (stable: ties keep their order) */
  for (gint i = 0; i < ndim; i++)
    perm[i] = i;
  for (gint i = 1; i < ndim; i++)
    for (gint j = i; j > 0 && like->strides[perm[j]] > like->strides[perm[j - 1]]; j--)
      {
        gint tmp = perm[j];
        perm[j] = perm[j - 1];
        perm[j - 1] = tmp;
      }
  for (gint i = ndim - 1; i >= 0; i--)
    {
      gint d = perm[i];
      if (like->sizes[d] != 1 && like->strides[d] != expected)
        return dl_tensor_new_empty_internal (dl_tensor_device (like), dtype, shape, ndim, error);
      expected *= like->sizes[d];
    }
  out = dl_tensor_new_empty_internal (dl_tensor_device (like), dtype, shape, ndim, error);
  if (out)
    {
      expected = 1;
      for (gint i = ndim - 1; i >= 0; i--)
        {
          out->strides[perm[i]] = expected;
          expected *= shape[perm[i]];
        }
    }
  return out;
}

/* torch's is_non_overlapping_and_dense: the elements fill a block of
 * numel consecutive places in some order of the dims */
static gboolean
non_overlapping_and_dense (DlTensor *t)
{
  gint perm[DL_MAX_DIMS];
  gint64 expected = 1;

  for (gint i = 0; i < t->ndim; i++)
    perm[i] = i;
  /* dims by increasing stride, those of size < 2 last */
  for (gint i = 1; i < t->ndim; i++)
    for (gint j = i; j > 0; j--)
      {
        gint a = perm[j - 1], b = perm[j];
        gboolean swap = t->sizes[a] < 2 ? t->sizes[b] >= 2
                                        : t->sizes[b] >= 2 && t->strides[b] < t->strides[a];
        if (!swap)
          break;
        perm[j - 1] = b;
        perm[j] = a;
      }
  for (gint i = 0; i < t->ndim; i++)
    {
      gint d = perm[i];

      if (t->sizes[d] < 2)
        return TRUE;
      if (t->strides[d] != expected)
        return FALSE;
      expected *= t->sizes[d];
    }
  return TRUE;
}

void
dl_preserve_format_strides (DlTensor *t, gint64 *strides)
{
  gint perm[DL_MAX_DIMS];
  gint64 stride = 1;

  if (non_overlapping_and_dense (t))
    {
      memcpy (strides, t->strides, t->ndim * sizeof (gint64));
      return;
    }
  /* torch's infer_dense_strides: dims from the fastest to the slowest,
   * an insertion sort where a zero stride leaves the order as it is and
   * equal strides put the smaller size first */
  for (gint i = 0; i < t->ndim; i++)
    perm[i] = t->ndim - 1 - i;
  for (gint i = 1; i < t->ndim; i++)
    {
      gint d1 = i;

      for (gint d0 = i - 1; d0 >= 0; d0--)
        {
          gint64 s0 = t->strides[perm[d0]], s1 = t->strides[perm[d1]];
          gint cmp = s0 == 0 || s1 == 0                        ? 0
                     : s0 < s1                                 ? -1
                     : s0 > s1                                 ? 1
                     : t->sizes[perm[d0]] > t->sizes[perm[d1]] ? 1
                                                               : 0;
          if (cmp > 0)
            {
              gint tmp = perm[d0];

              perm[d0] = perm[d1];
              perm[d1] = tmp;
              d1 = d0;
            }
          else if (cmp < 0)
            break;
        }
    }
  for (gint i = 0; i < t->ndim; i++)
    {
      strides[perm[i]] = stride;
      if (t->sizes[perm[i]] > 1)
        stride *= t->sizes[perm[i]];
    }
}

DlTensor *
dl_empty_preserve_format (DlTensor *like, DlDType dtype, GError **error)
{
  DlTensor *out = dl_tensor_new_empty_internal (dl_tensor_device (like), dtype, like->sizes,
                                                like->ndim, error);

  /* dense strides of the same numel: the same storage holds them */
  if (out)
    dl_preserve_format_strides (like, out->strides);
  return out;
}
