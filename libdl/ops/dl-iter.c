/* dl-iter.c: the ops layer's glue to the backends: DlIter over tensors (the
 * geometry is in backends/dl-iter.c), the missing-slot error, shape
 * broadcasting, overlap checks and layouts for new outputs.
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

  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "%s: not supported on device '%s' (its backend, '%s', has no '%s' kernel)", op,
               dl_device_get_name (device), dl_device_get_backend (device)->name, slot);
  return NULL;
}

/* an operand for host memory at @data holding @sizes of @dtype row-major;
 * @strides receives its strides */
static DlIterOperand
host_operand (gpointer data, const gint64 *sizes, gint ndim, DlDType dtype, gint64 *strides)
{
  gint64 s = 1;

  for (gint d = ndim - 1; d >= 0; d--)
    {
      strides[d] = s;
      s *= sizes[d];
    }
  return (DlIterOperand){ data, sizes, strides, ndim, (gint)dl_dtype_size (dtype) };
}

static DlIterOperand
tensor_operand (DlTensor *t)
{
  return (DlIterOperand){ dl_tensor_data (t), t->sizes, t->strides, t->ndim,
                          (gint)dl_dtype_size (t->dtype) };
}

/* dst = src converted, in host memory, with the CPU's copy kernel */
static void
host_convert (const DlIterOperand *dst,
              DlDType dst_dtype,
              const DlIterOperand *src,
              DlDType src_dtype,
              const gint64 *shape,
              gint ndim)
{
  DlBackendContext *cpu = dl_device_get_context (dl_device_cpu ());
  DlIterOperand ops[2] = { *dst, *src };
  DlIter iter;

  dl_iter_init_operands (&iter, 2, ops, shape, ndim);
  cpu->backend->copy (cpu, &iter, dst_dtype, src_dtype);
}

gboolean
dl_tensor_copy_to_host (DlTensor *src, DlDType dtype, gpointer dst, const gchar *op, GError **error)
{
  DlBackendContext *ctx = dl_tensor_context (src);
  g_autoptr (DlTensor) contiguous = NULL;
  g_autofree gpointer tmp = NULL;
  gint64 strides[DL_MAX_DIMS], tmp_strides[DL_MAX_DIMS];
  DlIterOperand to = host_operand (dst, src->sizes, src->ndim, dtype, strides);
  gsize nbytes;

  if (src->numel == 0)
    return TRUE;
  if (ctx->backend->host_memory)
    {
      DlIterOperand from = tensor_operand (src);

      host_convert (&to, dtype, &from, src->dtype, src->sizes, src->ndim);
      return TRUE;
    }
  if (!dl_tensor_is_contiguous (src))
    {
      DlBackendContext *c = DL_TENSOR_BACKEND (src, copy, op, error);
      DlTensor *ops[2];
      DlIter iter;

      if (c == NULL
          || !(contiguous = dl_tensor_new_empty_internal (dl_tensor_device (src), src->dtype,
                                                          src->sizes, src->ndim, error)))
        return FALSE;
      ops[0] = contiguous;
      ops[1] = src;
      dl_iter_init (&iter, 2, ops, src->sizes, src->ndim);
      c->backend->copy (c, &iter, src->dtype, src->dtype);
      src = contiguous;
    }
  nbytes = src->numel * dl_dtype_size (src->dtype);
  if (dtype == src->dtype)
    ctx->backend->copy_to_host (ctx, dst, dl_tensor_data (src), nbytes);
  else
    {
      DlIterOperand from;

      if (!(tmp = g_try_malloc (nbytes)))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                       "%s: out of memory copying %" G_GSIZE_FORMAT " bytes", op, nbytes);
          return FALSE;
        }
      ctx->backend->copy_to_host (ctx, tmp, dl_tensor_data (src), nbytes);
      from = host_operand (tmp, src->sizes, src->ndim, src->dtype, tmp_strides);
      host_convert (&to, dtype, &from, src->dtype, src->sizes, src->ndim);
    }
  return dl_device_take_kernel_status (dl_tensor_device (src), op, error);
}

gboolean
dl_tensor_copy_from_host_doubles (DlTensor *t,
                                  const gdouble *values,
                                  const gchar *op,
                                  GError **error)
{
  DlBackendContext *ctx = dl_tensor_context (t);
  gint64 strides[DL_MAX_DIMS];
  DlIterOperand from
      = host_operand ((gpointer)values, t->sizes, t->ndim, DL_DTYPE_FLOAT64, strides);
  g_autofree gpointer tmp = NULL;
  gint64 tmp_strides[DL_MAX_DIMS];
  DlIterOperand to;
  gsize nbytes = t->numel * dl_dtype_size (t->dtype);

  g_return_val_if_fail (dl_tensor_is_contiguous (t), FALSE);
  if (t->numel == 0)
    return TRUE;
  if (ctx->backend->host_memory)
    {
      to = tensor_operand (t);
      host_convert (&to, t->dtype, &from, DL_DTYPE_FLOAT64, t->sizes, t->ndim);
      return TRUE;
    }
  if (!(tmp = g_try_malloc (nbytes)))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                   "%s: out of memory copying %" G_GSIZE_FORMAT " bytes", op, nbytes);
      return FALSE;
    }
  to = host_operand (tmp, t->sizes, t->ndim, t->dtype, tmp_strides);
  host_convert (&to, t->dtype, &from, DL_DTYPE_FLOAT64, t->sizes, t->ndim);
  ctx->backend->copy_from_host (ctx, dl_tensor_data (t), tmp, nbytes);
  return TRUE;
}

gint64 *
dl_host_value_init (DlHostValue *v, DlTensor *like, GError **error)
{
  v->value = 0;
  if (dl_tensor_context (like)->backend->host_memory)
    return &v->value;
  if (!(v->device
        = dl_tensor_new_empty_internal (dl_tensor_device (like), DL_DTYPE_INT64, NULL, 0, error)))
    return NULL;
  return (gint64 *)dl_tensor_data (v->device);
}

gboolean
dl_host_value_read (DlHostValue *v, const gchar *op, GError **error)
{
  DlBackendContext *ctx;

  if (v->device == NULL)
    return TRUE;
  ctx = dl_tensor_context (v->device);
  ctx->backend->copy_to_host (ctx, &v->value, dl_tensor_data (v->device), sizeof (gint64));
  return dl_device_take_kernel_status (dl_tensor_device (v->device), op, error);
}

void
dl_host_value_clear (DlHostValue *v)
{
  g_clear_object (&v->device);
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
  return TRUE;
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

gboolean
dl_check_no_internal_overlap (const gchar *op, DlTensor *out, GError **error)
{
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
