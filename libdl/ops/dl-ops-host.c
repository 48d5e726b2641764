/* dl-ops-host.c: values between tensors and host memory: item, to_bytes
 * and the move between devices, and the copies the other ops use (the
 * reads printing and size-dependent ops make, the writes of arange and
 * linspace). Every read goes through the backend's own device-to-host
 * copy; host memory is read in place.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-private.h"

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
dl_meta_no_data (const gchar *op, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "%s: not supported on meta tensors: a meta tensor has no data to read "
               "(its values, and what depends on them, are unknown)",
               op);
  return FALSE;
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
  if (ctx->backend->meta)
    return dl_meta_no_data (op, error);
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
  /* a meta tensor keeps no values: nothing to convert or stage */
  if (t->numel == 0 || ctx->backend->meta)
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
  if (ctx->backend->meta)
    return dl_meta_no_data (op, error);
  ctx->backend->copy_to_host (ctx, &v->value, dl_tensor_data (v->device), sizeof (gint64));
  return dl_device_take_kernel_status (dl_tensor_device (v->device), op, error);
}

void
dl_host_value_clear (DlHostValue *v)
{
  g_clear_object (&v->device);
}

/**
 * dl_tensor_to_bytes:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Copies the elements out in row-major order, whatever the tensor's layout.
 *
 * Returns: (transfer full): the elements, or %NULL on error
 *
 * Since: 0.1
 */
GBytes *
dl_tensor_to_bytes (DlTensor *self, GError **error)
{
  gsize n;
  gpointer buf;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("to_bytes", self, error))
    return NULL;
  n = self->numel * dl_dtype_size (self->dtype);
  buf = g_try_malloc (MAX (n, 1));
  if (buf == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                   "to_bytes: out of memory copying %" G_GSIZE_FORMAT " bytes", n);
      return NULL;
    }
  if (!dl_tensor_copy_to_host (self, self->dtype, buf, "to_bytes", error))
    {
      g_free (buf);
      return NULL;
    }
  return g_bytes_new_take (buf, n);
}

/**
 * dl_tensor_item:
 * @self: a #DlTensor with one element
 * @error: return location for a #GError
 *
 * Gives the value of a one-element tensor as a double, as `torch.Tensor.item
 * ()`; the tensor may have any number of dimensions of size 1 and live on
 * any device (it is copied to the host). Integer values beyond 2^53 lose
 * precision.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) x = dl_arange (0, 4, 1, DL_DTYPE_FLOAT32, NULL, &error);
 * g_autoptr (DlTensor) total = x ? dl_tensor_sum (x, &error) : NULL;
 *
 * if (total)
 *   g_print ("sum = %g\n", dl_tensor_item (total, &error));
 * ]|
 *
 * Fails with %DL_ERROR_SHAPE when the tensor has no element or more than
 * one.
 *
 * Returns: the only element as a double, or 0 with @error set when the
 *   tensor does not have exactly one element
 *
 * Since: 0.1
 */
gdouble
dl_tensor_item (DlTensor *self, GError **error)
{
  gdouble v = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  if (!dl_check_live ("item", self, error))
    return 0;
  if (self->numel != 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "item: a Tensor with %" G_GINT64_FORMAT
                   " elements cannot be converted to Scalar",
                   self->numel);
      return 0;
    }
  if (!dl_tensor_copy_to_host (self, DL_DTYPE_FLOAT64, &v, "item", error))
    return 0;
  return v;
}

typedef struct
{
  DlDevice *device; /* the input's; devices live as long as the process */
} ToDeviceState;

static gboolean
to_device_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  ToDeviceState *st = dl_node_state (node);

  gi[0] = dl_tensor_to_device (go[0], st->device, error);
  return gi[0] != NULL;
}

/* @self's values in a new tensor on @device (neither is meta, they
 * differ): through a contiguous staging copy in host memory */
static DlTensor *
copy_between_devices (DlTensor *self, DlDevice *device, GError **error)
{
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) host = NULL;
  DlBackendContext *to = dl_device_get_context (device);

  if (!(out = dl_tensor_new_empty_internal (device, self->dtype, self->sizes, self->ndim, error)))
    return NULL;
  if (self->numel == 0)
    return g_steal_pointer (&out);
  if (to->backend->host_memory)
    return dl_tensor_copy_to_host (self, self->dtype, dl_tensor_data (out), "to", error)
               ? g_steal_pointer (&out)
               : NULL;
  if (!(host = dl_tensor_new_empty_internal (dl_device_cpu (), self->dtype, self->sizes, self->ndim,
                                             error))
      || !dl_tensor_copy_to_host (self, self->dtype, dl_tensor_data (host), "to", error))
    return NULL;
  to->backend->copy_from_host (to, dl_tensor_data (out), dl_tensor_data (host),
                               self->numel * dl_dtype_size (self->dtype));
  return g_steal_pointer (&out);
}

/**
 * dl_tensor_to_device:
 * @self: a #DlTensor
 * @device: (nullable): the device wanted, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Moves @self to @device, as torch's to (device): @self itself when it
 * is already there, else a copy there. A copy onto the meta device takes
 * no memory and keeps @self's layout (its strides when it is dense, as
 * torch's preserve_format); a copy out of the meta device is a
 * %DL_ERROR_NOT_SUPPORTED error, since a meta tensor has no values; other
 * copies are contiguous. The gradient goes back to @self's device.
 *
 * Returns: (transfer full): the tensor on @device, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_to_device (DlTensor *self, DlDevice *device, GError **error)
{
  DlDevice *from;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (device == NULL || DL_IS_DEVICE (device), NULL);
  if (!dl_check_live ("to", self, error))
    return NULL;
  if (device == NULL)
    device = dl_device_cpu ();
  from = dl_tensor_device (self);
  if (from == device)
    return g_object_ref (self);
  if (dl_device_get_backend (from)->meta)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "to: cannot copy out of meta tensor; no data! (to '%s')",
                   dl_device_get_name (device));
      return NULL;
    }
  if (dl_device_get_backend (device)->meta)
    {
      if ((out
           = dl_tensor_new_empty_internal (device, self->dtype, self->sizes, self->ndim, error)))
        dl_preserve_format_strides (self, out->strides);
    }
  else
    out = copy_between_devices (self, device, error);
  if (out && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("ToCopyBackward0", to_device_backward, 1, &self);

      DL_NODE_NEW_STATE (node, ToDeviceState)->device = from;
      dl_node_set_output (node, out, 0);
    }
  return out;
}
