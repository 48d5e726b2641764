/* dl-ops-search.c: searchsorted, a binary search of sorted rows on the
 * host (the values come over with dl_tensor_copy_to_host and the indices
 * go back to the values' device). Not differentiable: it gives indices.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-ops-private.h"
#include "dl-ops-search.h"

/* The first i in [0, n) with !(row[i] < v) (left) or !(row[i] <= v)
 * (right), written with >= and > as torch writes them, so that a NaN
 * value lands at the end and NaNs sorted last count as larger. @order,
 * when not NULL, gives the row's elements in sorted order. */
#define DEFINE_SEARCH(name, type)                                                                  \
  static gint64 name (const type *row, const gint64 *order, gint64 n, type v, gboolean right)      \
  {                                                                                                \
    gint64 lo = 0, hi = n;                                                                         \
    while (lo < hi)                                                                                \
      {                                                                                            \
        gint64 mid = lo + (hi - lo) / 2;                                                           \
        type b = row[order ? order[mid] : mid];                                                    \
        if (right ? !(b > v) : !(b >= v))                                                          \
          lo = mid + 1;                                                                            \
        else                                                                                       \
          hi = mid;                                                                                \
      }                                                                                            \
    return lo;                                                                                     \
  }

DEFINE_SEARCH (search_double, gdouble)
DEFINE_SEARCH (search_int64, gint64)

/* torch's name of a dtype's scalar type, as its messages print it */
static const gchar *
scalar_type_name (DlDType dtype)
{
  static const gchar *const names[DL_N_DTYPES] = {
    [DL_DTYPE_FLOAT32] = "Float",     [DL_DTYPE_FLOAT64] = "Double", [DL_DTYPE_FLOAT16] = "Half",
    [DL_DTYPE_BFLOAT16] = "BFloat16", [DL_DTYPE_INT32] = "Int",      [DL_DTYPE_INT64] = "Long",
    [DL_DTYPE_UINT8] = "Byte",        [DL_DTYPE_BOOL] = "Bool",
  };

  return names[dtype];
}

static gboolean
check_search_args (DlTensor *seq, DlTensor *values, DlTensor *sorter, GError **error)
{
  gboolean batched = seq->ndim > 1;

  if (seq->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "torch.searchsorted(): boundaries tensor should have positive dimension, but "
                   "got 0 dimension");
      return FALSE;
    }
  if (batched
      && (values->ndim != seq->ndim
          || memcmp (values->sizes, seq->sizes, (seq->ndim - 1) * sizeof (gint64)) != 0))
    {
      g_autofree gchar *b = dl_shape_to_string (seq->sizes, seq->ndim);
      g_autofree gchar *v = dl_shape_to_string (values->sizes, values->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                   "N-1 dimensions of boundaries tensor and input value tensor must match, but "
                   "we got boundaries tensor %s and input value tensor %s",
                   b, v);
      return FALSE;
    }
  if (seq->dtype == DL_DTYPE_BOOL || values->dtype == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "torch.searchsorted(): not implemented for bool tensors");
      return FALSE;
    }
  if (sorter == NULL)
    return TRUE;
  if (sorter->ndim != seq->ndim
      || memcmp (sorter->sizes, seq->sizes, seq->ndim * sizeof (gint64)) != 0)
    {
      g_autofree gchar *b = dl_shape_to_string (seq->sizes, seq->ndim);
      g_autofree gchar *s = dl_shape_to_string (sorter->sizes, sorter->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "torch.searchsorted(): boundary and sorter must have the same size, but got "
                   "boundary tensor %s and got sorter tensor %s",
                   b, s);
      return FALSE;
    }
  if (sorter->dtype != DL_DTYPE_INT64)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s",
                   scalar_type_name (sorter->dtype));
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_searchsorted:
 * @sorted_sequence: sorted boundaries: a vector, or a tensor whose
 *   innermost rows are each sorted, with the leading dims of @values
 * @values: the values to place
 * @right: %FALSE for the first index whose boundary is >= the value,
 *   %TRUE for the first whose boundary is > it
 * @out_int32: whether the indices are int32 rather than int64
 * @sorter: (nullable): int64 indices that sort each row of
 *   @sorted_sequence, when it is not sorted itself
 * @error: return location for a #GError
 *
 * For each value, the index at which it would be inserted into its row of
 * @sorted_sequence to keep the row sorted, as torch.searchsorted (and,
 * with a vector of boundaries, torch.bucketize). Integer tensors are
 * compared as int64, others as float64; a NaN value goes to the end. Not
 * differentiable.
 *
 * Returns: (transfer full): indices of @values' shape on its device, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_searchsorted (DlTensor *sorted_sequence,
                 DlTensor *values,
                 gboolean right,
                 gboolean out_int32,
                 DlTensor *sorter,
                 GError **error)
{
  DlTensor *seq = sorted_sequence;
  gboolean ints = !dl_dtype_is_float (seq->dtype) && !dl_dtype_is_float (values->dtype);
  DlDType as = ints ? DL_DTYPE_INT64 : DL_DTYPE_FLOAT64;
  gint64 m, per_row;
  g_autofree gpointer b = NULL;
  g_autofree gpointer v = NULL;
  g_autofree gint64 *order = NULL;
  g_autofree gint64 *out = NULL;
  g_autoptr (DlTensor) host = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (sorted_sequence), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (values), NULL);
  g_return_val_if_fail (sorter == NULL || DL_IS_TENSOR (sorter), NULL);
  if (!check_search_args (seq, values, sorter, error))
    return NULL;
  m = seq->sizes[seq->ndim - 1];
  per_row = seq->ndim > 1 ? (values->ndim ? values->sizes[values->ndim - 1] : 1) : values->numel;
  b = g_malloc (MAX (seq->numel, 1) * 8);
  v = g_malloc (MAX (values->numel, 1) * 8);
  out = g_new (gint64, MAX (values->numel, 1));
  if (!dl_tensor_copy_to_host (seq, as, b, "searchsorted", error)
      || !dl_tensor_copy_to_host (values, as, v, "searchsorted", error))
    return NULL;
  if (sorter)
    {
      order = g_new (gint64, MAX (sorter->numel, 1));
      if (!dl_tensor_copy_to_host (sorter, DL_DTYPE_INT64, order, "searchsorted", error))
        return NULL;
      for (gint64 i = 0; i < sorter->numel; i++)
        if (order[i] < 0 || order[i] >= m)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                         "torch.searchsorted(): sorter index %" G_GINT64_FORMAT
                         " out of range for rows of %" G_GINT64_FORMAT " boundaries",
                         order[i], m);
            return NULL;
          }
    }
  for (gint64 i = 0; i < values->numel; i++)
    {
      gint64 r = seq->ndim > 1 && per_row ? i / per_row : 0;
      const gint64 *ord = order ? order + r * m : NULL;

      if (ints)
        out[i] = search_int64 ((const gint64 *)b + r * m, ord, m, ((const gint64 *)v)[i], right);
      else
        out[i] = search_double ((const gdouble *)b + r * m, ord, m, ((const gdouble *)v)[i], right);
    }
  host = dl_tensor_new_from_data (out, values->numel * sizeof (gint64), values->sizes, values->ndim,
                                  DL_DTYPE_INT64, error);
  if (host && out_int32)
    {
      DlTensor *narrow = dl_tensor_to_dtype (host, DL_DTYPE_INT32, error);
      g_clear_object (&host);
      host = narrow;
    }
  if (host && dl_device_get_device_type (dl_tensor_get_device (values)) != DL_DEVICE_TYPE_CPU)
    return dl_tensor_to_device (host, dl_tensor_get_device (values), error);
  return g_steal_pointer (&host);
}
