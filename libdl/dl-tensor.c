/* dl-tensor.c: the DlTensor class: metadata, construction, host I/O.
 *
 * Ops live in ops/, autograd in autograd/; this file holds what every op
 * needs: making tensors and views, and reading their fields.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-tensor-private.h"
#include "dl-error.h"
#include "dl-enums.h"

/**
 * DlTensor:
 *
 * An n-dimensional array of one #DlDType on one #DlDevice: sizes and
 * strides over a shared #DlStorage, so that views (transpose, slicing,
 * reshape) cost no copy. A tensor that requires grad records the ops made
 * from it, and dl_tensor_backward() computes gradients through them.
 *
 * Since: 0.1
 */

const DlAutogradHooks *dl_autograd_hooks;

void
dl_autograd_install_hooks (const DlAutogradHooks *hooks)
{
  dl_autograd_hooks = hooks;
}

/**
 * DlTensorClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlTensor. The type is final: its class adds no
 * virtual method to that of GObject, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlTensor, dl_tensor, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DTYPE,
  PROP_NDIM,
  PROP_REQUIRES_GRAD,
  PROP_DEVICE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Set while the library itself constructs a tensor, so that constructed()
 * only gives a storage to tensors made bare from a binding. */
static __thread gboolean constructing_internal;

/* the objects whose last reference this thread is dropping, and whether a
 * dl_object_release() below on the stack is already emptying the queue */
static __thread GPtrArray *release_queue;
static __thread gboolean releasing;

void
dl_object_release (gpointer object)
{
  if (g_atomic_int_get (&G_OBJECT (object)->ref_count) > 1)
    {
      g_object_unref (object);
      return;
    }
  if (release_queue == NULL)
    release_queue = g_ptr_array_new ();
  g_ptr_array_add (release_queue, object);
  if (releasing)
    return;
  releasing = TRUE;
  while (release_queue->len)
    g_object_unref (g_ptr_array_steal_index_fast (release_queue, release_queue->len - 1));
  releasing = FALSE;
  g_clear_pointer (&release_queue, g_ptr_array_unref);
}

static void
dl_tensor_dispose (GObject *object)
{
  DlTensor *self = DL_TENSOR (object);

  g_clear_object (&self->grad);
  dl_clear_released (&self->grad_fn);
  dl_clear_released (&self->base);
  g_clear_pointer (&self->hooks, g_ptr_array_unref);
  G_OBJECT_CLASS (dl_tensor_parent_class)->dispose (object);
}

static void
dl_tensor_finalize (GObject *object)
{
  DlTensor *self = DL_TENSOR (object);

  g_clear_pointer (&self->storage, dl_storage_unref);
  if (self->sizes != self->inline_dims)
    g_free (self->sizes);
  G_OBJECT_CLASS (dl_tensor_parent_class)->finalize (object);
}

static void
dl_tensor_constructed (GObject *object)
{
  DlTensor *self = DL_TENSOR (object);

  G_OBJECT_CLASS (dl_tensor_parent_class)->constructed (object);
  if (!constructing_internal && self->storage == NULL)
    {
      /* Dl.Tensor() from a binding: a valid 0-d float32 zero */
      self->storage = dl_storage_new (dl_device_cpu (), sizeof (gfloat), NULL);
      memset (self->storage->data, 0, sizeof (gfloat));
    }
}

static void
dl_tensor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlTensor *self = DL_TENSOR (object);

  switch (prop_id)
    {
      case PROP_DTYPE:
        g_value_set_enum (value, self->dtype);
        break;
      case PROP_NDIM:
        g_value_set_int (value, self->ndim);
        break;
      case PROP_REQUIRES_GRAD:
        g_value_set_boolean (value, dl_tensor_get_requires_grad (self));
        break;
      case PROP_DEVICE:
        g_value_set_object (value, dl_tensor_device (self));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_tensor_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlTensor *self = DL_TENSOR (object);

  switch (prop_id)
    {
      case PROP_REQUIRES_GRAD:
        {
          g_autoptr (GError) error = NULL;
          if (!dl_tensor_set_requires_grad (self, g_value_get_boolean (value), &error))
            g_warning ("%s", error->message);
        }
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_tensor_class_init (DlTensorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = dl_tensor_dispose;
  object_class->finalize = dl_tensor_finalize;
  object_class->constructed = dl_tensor_constructed;
  object_class->get_property = dl_tensor_get_property;
  object_class->set_property = dl_tensor_set_property;

  /**
   * DlTensor:dtype:
   *
   * The element type.
   *
   * Since: 0.1
   */
  properties[PROP_DTYPE]
      = g_param_spec_enum ("dtype", NULL, NULL, DL_TYPE_DTYPE, DL_DTYPE_FLOAT32,
                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlTensor:ndim:
   *
   * The number of dimensions.
   *
   * Since: 0.1
   */
  properties[PROP_NDIM]
      = g_param_spec_int ("ndim", NULL, NULL, 0, DL_MAX_DIMS, 0,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlTensor:requires-grad:
   *
   * Whether autograd records ops on this tensor.
   *
   * Since: 0.1
   */
  properties[PROP_REQUIRES_GRAD]
      = g_param_spec_boolean ("requires-grad", NULL, NULL, FALSE,
                              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlTensor:device:
   *
   * The device the tensor's storage lives on.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE]
      = g_param_spec_object ("device", NULL, NULL, DL_TYPE_DEVICE,
                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_tensor_init (DlTensor *self)
{
  self->numel = 1;
  self->sizes = self->inline_dims;
  self->strides = self->inline_dims + DL_TENSOR_INLINE_DIMS;
}

/* Gives @t room for @ndim sizes and strides (their values are for the
 * caller to set). */
static void
tensor_set_ndim (DlTensor *t, gint ndim)
{
  if (t->sizes != t->inline_dims)
    g_free (t->sizes);
  if (ndim <= DL_TENSOR_INLINE_DIMS)
    {
      t->sizes = t->inline_dims;
      t->strides = t->inline_dims + DL_TENSOR_INLINE_DIMS;
    }
  else
    {
      t->sizes = g_new (gint64, 2 * ndim);
      t->strides = t->sizes + ndim;
    }
  t->ndim = ndim;
}

gchar *
dl_shape_to_string (const gint64 *shape, gint ndim)
{
  GString *s = g_string_new ("[");

  for (gint i = 0; i < ndim; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", shape[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

gboolean
dl_check_shape (const gchar *op, const gint64 *shape, gsize ndim, gint64 *numel, GError **error)
{
  gint64 n = 1;

  if (ndim > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: tensors have at most %d dimensions, got %" G_GSIZE_FORMAT, op, DL_MAX_DIMS,
                   ndim);
      return FALSE;
    }
  for (gsize i = 0; i < ndim; i++)
    {
      if (shape[i] < 0)
        {
          g_autofree gchar *s = dl_shape_to_string (shape, ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: negative dimension %" G_GINT64_FORMAT " in shape %s", op, shape[i], s);
          return FALSE;
        }
      if (shape[i] > 0 && n > G_MAXINT64 / 16 / shape[i])
        {
          g_autofree gchar *s = dl_shape_to_string (shape, ndim);
          g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                       "%s: shape %s has too many elements", op, s);
          return FALSE;
        }
      n *= shape[i];
    }
  if (numel)
    *numel = n;
  return TRUE;
}

/* Whether the element count of @shape fits in a gint64, multiplying the
 * sizes in order as PyTorch does (so [2^40, 2^40, 0] overflows although
 * it holds no element). Sets @error, naming @op and the shape, when not. */
gboolean
dl_check_numel (const gchar *op, const gint64 *shape, gsize ndim, GError **error)
{
  gint64 n = 1;

  for (gsize i = 0; i < ndim; i++)
    if (shape[i] >= 0 && __builtin_mul_overflow (n, shape[i], &n))
      {
        g_autofree gchar *s = dl_shape_to_string (shape, ndim);
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: numel: integer multiplication overflow (shape %s)", op, s);
        return FALSE;
      }
  return TRUE;
}

gboolean
dl_normalize_dim (const gchar *op, gint64 *dim, gint ndim, GError **error)
{
  gint64 n = MAX (ndim, 1);

  if (*dim < -n || *dim >= n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s: dimension out of range (expected to be in range of [%" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT "], but got %" G_GINT64_FORMAT ")",
                   op, -n, n - 1, *dim);
      return FALSE;
    }
  if (*dim < 0)
    *dim += n;
  return TRUE;
}

/* dl_normalize_dim() of the two dims of a diagonal (diagonal, diag_embed),
 * which must differ. */
gboolean
dl_normalize_diagonal_dims (const gchar *op, gint64 *dim1, gint64 *dim2, gint ndim, GError **error)
{
  if (!dl_normalize_dim (op, dim1, ndim, error) || !dl_normalize_dim (op, dim2, ndim, error))
    return FALSE;
  if (*dim1 == *dim2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: diagonal dimensions cannot be identical %" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT,
                   op, *dim1, *dim2);
      return FALSE;
    }
  return TRUE;
}

static DlTensor *
tensor_alloc (void)
{
  DlTensor *t;

  constructing_internal = TRUE;
  t = (DlTensor *)g_object_new_with_properties (DL_TYPE_TENSOR, 0, NULL, NULL);
  constructing_internal = FALSE;
  return t;
}

static void
set_contiguous_strides (DlTensor *t)
{
  gint64 s = 1;

  for (gint i = t->ndim - 1; i >= 0; i--)
    {
      t->strides[i] = s;
      s *= MAX (t->sizes[i], 1);
    }
}

DlTensor *
dl_tensor_new_empty_internal (DlDevice *device,
                              DlDType dtype,
                              const gint64 *shape,
                              gint ndim,
                              GError **error)
{
  return dl_tensor_new_empty_at_internal (device, dtype, shape, ndim, -1, error);
}

/* As dl_tensor_new_empty_internal, the data placed like data at @place, an
 * address modulo 4096 (dl_storage_new_at); -1 for no preference. */
DlTensor *
dl_tensor_new_empty_at_internal (DlDevice *device,
                                 DlDType dtype,
                                 const gint64 *shape,
                                 gint ndim,
                                 gssize place,
                                 GError **error)
{
  DlTensor *t;
  DlStorage *storage;
  gint64 numel;

  if (!dl_check_shape ("empty", shape, ndim, &numel, error))
    return NULL;
  storage = dl_storage_new_at (device ? device : dl_device_cpu (),
                               (gsize)numel * dl_dtype_size (dtype), place, error);
  if (storage == NULL)
    return NULL;
  t = tensor_alloc ();
  t->storage = storage;
  t->dtype = dtype;
  tensor_set_ndim (t, ndim);
  t->numel = numel;
  if (ndim)
    memcpy (t->sizes, shape, ndim * sizeof (gint64));
  set_contiguous_strides (t);
  return t;
}

/* Gives @t new sizes, strides and offset over its storage (the in-place
 * view ops: unsqueeze_, transpose_, ...). */
void
dl_tensor_set_geometry_internal (DlTensor *t,
                                 const gint64 *sizes,
                                 const gint64 *strides,
                                 gint ndim,
                                 gint64 offset)
{
  gint64 *copy = g_newa (gint64, 2 * MAX (ndim, 1));

  /* @sizes may point into @t's own arrays, which tensor_set_ndim frees */
  memcpy (copy, sizes, ndim * sizeof (gint64));
  memcpy (copy + ndim, strides, ndim * sizeof (gint64));
  tensor_set_ndim (t, ndim);
  t->offset = offset;
  t->numel = 1;
  for (gint i = 0; i < ndim; i++)
    {
      t->sizes[i] = copy[i];
      t->strides[i] = copy[ndim + i];
      t->numel *= copy[i];
    }
}

DlTensor *
dl_tensor_new_view_internal (DlTensor *base,
                             const gint64 *sizes,
                             const gint64 *strides,
                             gint ndim,
                             gint64 offset)
{
  DlTensor *t = tensor_alloc ();

  t->storage = dl_storage_ref (base->storage);
  t->dtype = base->dtype;
  tensor_set_ndim (t, ndim);
  t->offset = offset;
  t->numel = 1;
  for (gint i = 0; i < ndim; i++)
    {
      t->sizes[i] = sizes[i];
      t->strides[i] = strides[i];
      t->numel *= sizes[i];
    }
  return t;
}

/* A CPU tensor of @shape and @dtype holding a copy of the @size bytes at
 * @data, which must be exactly its elements; errors name @op. */
static DlTensor *
copy_from_host (const gchar *op,
                gconstpointer data,
                gsize size,
                const gint64 *shape,
                gsize n_dims,
                DlDType dtype,
                GError **error)
{
  gint64 numel;
  DlTensor *t;

  if (!dl_check_shape (op, shape, n_dims, &numel, error))
    return NULL;
  if ((guint64)numel * dl_dtype_size (dtype) != size)
    {
      g_autofree gchar *s = dl_shape_to_string (shape, n_dims);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: shape %s of %s needs %" G_GUINT64_FORMAT " bytes, got %" G_GSIZE_FORMAT, op,
                   s, dl_dtype_get_name (dtype), (guint64)numel * dl_dtype_size (dtype), size);
      return NULL;
    }
  t = dl_tensor_new_empty_internal (NULL, dtype, shape, n_dims, error);
  if (t && size > 0)
    memcpy (dl_tensor_data (t), data, size);
  return t;
}

/**
 * dl_tensor_new_from_data:
 * @data: (array length=size) (element-type guint8) (nullable): the
 *   elements in row-major order, in host byte order
 * @size: the length of @data in bytes: the product of @shape times the
 *   size of @dtype
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: the element type
 * @error: return location for a #GError
 *
 * Makes a CPU tensor holding a copy of @data, as in
 *
 * |[<!-- language="C" -->
 * static const float values[] = { 1, 2, 3, 4, 5, 6 };
 * g_autoptr (DlTensor) t = dl_tensor_new_from_data (values, sizeof values, DL_SHAPE (2, 3),
 *                                                   DL_DTYPE_FLOAT32, &error);
 * ]|
 *
 * The caller keeps @data. From a binding, @data is a byte array (Python
 * `bytes`, a GJS `Uint8Array`, a Vala `uint8[]`).
 *
 * Returns: (transfer full): a new tensor, or %NULL with @error set when
 *   @shape is invalid, @size does not match it, or memory runs out
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_new_from_data (gconstpointer data,
                         gsize size,
                         const gint64 *shape,
                         gsize n_dims,
                         DlDType dtype,
                         GError **error)
{
  g_return_val_if_fail (data != NULL || size == 0, NULL);
  return copy_from_host ("from_data", data, size, shape, n_dims, dtype, error);
}

/**
 * dl_tensor_new_from_bytes:
 * @bytes: the elements in row-major order, in host byte order
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: the element type
 * @error: return location for a #GError
 *
 * Makes a CPU tensor holding a copy of @bytes, as
 * dl_tensor_new_from_data() does.
 *
 * Returns: (transfer full): a new tensor, or %NULL if the size of @bytes
 *   does not match @shape and @dtype
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_new_from_bytes (GBytes *bytes,
                          const gint64 *shape,
                          gsize n_dims,
                          DlDType dtype,
                          GError **error)
{
  gsize size;
  gconstpointer data;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &size);
  return copy_from_host ("from_bytes", data, size, shape, n_dims, dtype, error);
}

/**
 * dl_tensor_new_from_address:
 * @address: the address of the first element of external host memory
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @strides: (array length=n_strides) (nullable): strides in elements, or
 *   %NULL for row-major contiguous
 * @n_strides: the number of strides: 0 or @n_dims
 * @dtype: the element type
 * @release: (scope notified) (closure user_data) (destroy notify) (nullable):
 *   called when the tensor's storage lets the memory go
 * @user_data: data for @release; the owner of the memory
 * @notify: (nullable): frees @user_data after @release
 * @error: return location for a #GError
 *
 * Wraps memory that another owner lends without copying it: this is how a
 * numpy array becomes a tensor. The memory must stay valid until @release
 * is called; from a binding, let @user_data be (or hold) the owner.
 * Strides must not be negative.
 *
 * Returns: (transfer full): a tensor viewing the memory, or %NULL on error
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_new_from_address (guintptr address,
                            const gint64 *shape,
                            gsize n_dims,
                            const gint64 *strides,
                            gsize n_strides,
                            DlDType dtype,
                            DlReleaseFunc release,
                            gpointer user_data,
                            GDestroyNotify notify,
                            GError **error)
{
  gint64 numel, extent = 1;
  DlTensor *t;

  if (!dl_check_shape ("from_address", shape, n_dims, &numel, error))
    goto fail;
  if (strides && n_strides != n_dims)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "from_address: %" G_GSIZE_FORMAT " strides for %" G_GSIZE_FORMAT " dims",
                   n_strides, n_dims);
      goto fail;
    }
  if (address == 0 && numel > 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "from_address: NULL address");
      goto fail;
    }
  t = tensor_alloc ();
  t->dtype = dtype;
  tensor_set_ndim (t, n_dims);
  t->numel = numel;
  for (gsize i = 0; i < n_dims; i++)
    t->sizes[i] = shape[i];
  if (strides)
    {
      for (gsize i = 0; i < n_dims; i++)
        {
          if (strides[i] < 0)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                           "from_address: negative strides are not supported");
              g_object_unref (t);
              goto fail;
            }
          t->strides[i] = strides[i];
          if (shape[i] > 0)
            extent += (shape[i] - 1) * strides[i];
        }
    }
  else
    {
      set_contiguous_strides (t);
      extent = numel;
    }
  if (numel == 0)
    extent = 0;
  t->storage = dl_storage_new_external (dl_device_cpu (), GSIZE_TO_POINTER (address),
                                        extent * dl_dtype_size (dtype), release, user_data, notify);
  return t;

fail:
  if (release)
    release (user_data);
  if (notify)
    notify (user_data);
  return NULL;
}

/**
 * dl_tensor_share_memory:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Moves the tensor's storage into shared memory (a memfd mapped shared),
 * as torch.Tensor.share_memory_(): the tensor and every view of it keep
 * their values and now live in memory that another process can map
 * through dl_tensor_get_shared_fd() and dl_tensor_new_from_shared_fd(),
 * so that writes on either side are seen by both. A tensor already shared
 * is left as it is. Only host (CPU) tensors can be shared.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_tensor_share_memory (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  if (!dl_check_live ("share_memory", self, error))
    return FALSE;
  return dl_storage_share_memory (self->storage, error);
}

/**
 * dl_tensor_is_shared:
 * @self: a #DlTensor
 *
 * Says whether the tensor's storage lives in shared memory that another
 * process can map, after dl_tensor_share_memory() or when it was made with
 * dl_tensor_new_from_shared_fd().
 *
 * Returns: whether the tensor's storage is in shared memory
 *   (dl_tensor_share_memory()), as torch.Tensor.is_shared()
 *
 * Since: 0.1
 */
gboolean
dl_tensor_is_shared (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  return self->storage->shared;
}

/**
 * dl_tensor_get_shared_fd:
 * @self: a #DlTensor
 *
 * The file descriptor of the shared memory that holds the tensor's
 * storage, to hand to another process (through a #GUnixFDList, say),
 * which maps it with dl_tensor_new_from_shared_fd() and the tensor's
 * dtype, shape, strides, storage offset and
 * dl_tensor_get_storage_nbytes(). The tensor keeps the descriptor: do not
 * close it.
 *
 * Returns: the descriptor, or -1 when the tensor is not shared
 *
 * Since: 0.1
 */
gint
dl_tensor_get_shared_fd (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), -1);
  return self->storage->shared ? self->storage->shm_fd : -1;
}

/**
 * dl_tensor_get_storage_nbytes:
 * @self: a #DlTensor
 *
 * Gives the size of the tensor's whole storage in bytes, as
 * `torch.Tensor.untyped_storage ().nbytes ()`: at least what the tensor's
 * own elements take, more for a view of a larger tensor.
 *
 * Returns: the size in bytes of the storage the tensor views
 *
 * Since: 0.1
 */
gsize
dl_tensor_get_storage_nbytes (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  return self->storage->nbytes;
}

/**
 * dl_tensor_new_from_shared_fd:
 * @fd: a shared-memory descriptor from dl_tensor_get_shared_fd(), in this
 *   or another process; it is duplicated, the caller keeps its own
 * @nbytes: the size of the shared storage in bytes
 *   (dl_tensor_get_storage_nbytes() of the shared tensor)
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @strides: (array length=n_strides) (nullable): strides in elements, or
 *   %NULL for row-major contiguous
 * @n_strides: the number of strides: 0 or @n_dims
 * @offset: the storage offset of the first element, in elements
 * @dtype: the element type
 * @error: return location for a #GError
 *
 * Maps shared memory that another tensor holds (dl_tensor_share_memory())
 * and views it as a tensor, without a copy: writes through either tensor
 * are seen through both, across processes. Elements outside the storage
 * are an error.
 *
 * Returns: (transfer full): the tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_new_from_shared_fd (gint fd,
                              gsize nbytes,
                              const gint64 *shape,
                              gsize n_dims,
                              const gint64 *strides,
                              gsize n_strides,
                              gint64 offset,
                              DlDType dtype,
                              GError **error)
{
  g_autoptr (DlTensor) t = NULL;
  gint64 numel, last = offset;

  if (!dl_check_shape ("from_shared_fd", shape, n_dims, &numel, error))
    return NULL;
  if ((strides && n_strides != n_dims) || offset < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "from_shared_fd: %" G_GSIZE_FORMAT " strides for %" G_GSIZE_FORMAT
                   " dims, offset %" G_GINT64_FORMAT,
                   n_strides, n_dims, offset);
      return NULL;
    }
  t = tensor_alloc ();
  t->dtype = dtype;
  tensor_set_ndim (t, n_dims);
  t->numel = numel;
  t->offset = offset;
  for (gsize i = 0; i < n_dims; i++)
    t->sizes[i] = shape[i];
  if (strides)
    for (gsize i = 0; i < n_dims; i++)
      t->strides[i] = strides[i];
  else
    set_contiguous_strides (t);
  for (gsize i = 0; i < n_dims; i++)
    {
      if (t->strides[i] < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "from_shared_fd: negative strides are not supported");
          return NULL;
        }
      if (shape[i] > 0)
        last += (shape[i] - 1) * t->strides[i];
    }
  if (numel > 0 && (gsize)(last + 1) * dl_dtype_size (dtype) > nbytes)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "from_shared_fd: the view reaches byte %" G_GINT64_FORMAT
                   " of a storage of %" G_GSIZE_FORMAT " bytes",
                   (last + 1) * (gint64)dl_dtype_size (dtype), nbytes);
      return NULL;
    }
  if (!(t->storage = dl_storage_new_from_fd (dl_device_cpu (), fd, nbytes, error)))
    return NULL;
  return g_steal_pointer (&t);
}

static void
write_scalar (char *p, DlDType dtype, gdouble value)
{
  DlIterOperand op = { .data = p, .element_size = (gint)dl_dtype_size (dtype) };
  DlBackendContext *ctx = dl_device_get_context (dl_device_cpu ());
  DlIter iter;

  dl_iter_init_operands (&iter, 1, &op, NULL, 0);
  ctx->backend->fill (ctx, &iter, dtype, value);
}

/**
 * dl_tensor_new_scalar:
 * @value: the value
 * @dtype: the element type
 *
 * Makes a 0-d CPU tensor (no dimensions, one element) holding @value
 * converted to @dtype, as `torch.tensor (value, dtype=dtype)`. It does not
 * require grad. Unlike dl_tensor_new_wrapped_scalar(), the result takes part
 * in type promotion as a tensor of @dtype.
 *
 * Returns: (transfer full): a new 0-d CPU tensor holding @value
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_new_scalar (gdouble value, DlDType dtype)
{
  DlTensor *t = dl_tensor_new_empty_internal (NULL, dtype, NULL, 0, NULL);

  g_assert (t != NULL);
  write_scalar (dl_tensor_data (t), dtype, value);
  return t;
}

/**
 * dl_tensor_get_dtype:
 * @self: a #DlTensor
 *
 * Gives the type of the tensor's elements, as `torch.Tensor.dtype` (the
 * #DlTensor:dtype property).
 *
 * Returns: the element type
 *
 * Since: 0.1
 */
DlDType
dl_tensor_get_dtype (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), DL_DTYPE_FLOAT32);
  return self->dtype;
}

/**
 * dl_tensor_get_ndim:
 * @self: a #DlTensor
 *
 * Gives the number of dimensions of the tensor, as `torch.Tensor.dim ()`
 * (the #DlTensor:ndim property).
 *
 * Returns: the number of dimensions (0 for a scalar)
 *
 * Since: 0.1
 */
gint
dl_tensor_get_ndim (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  return self->ndim;
}

/**
 * dl_tensor_get_shape:
 * @self: a #DlTensor
 * @n_dims: (out): the number of dimensions
 *
 * Gives the size of every dimension, as `torch.Tensor.shape`. The array
 * belongs to the tensor and lives as long as it does; a 0-d tensor gives an
 * empty array.
 *
 * |[<!-- language="C" -->
 * g_autoptr (DlTensor) t = dl_zeros (DL_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
 * gsize n_dims;
 * const gint64 *shape = dl_tensor_get_shape (t, &n_dims);
 *
 * for (gsize i = 0; i < n_dims; i++)
 *   g_print ("%" G_GINT64_FORMAT " ", shape[i]);
 * ]|
 *
 * Returns: (array length=n_dims) (transfer none): the size of each dimension
 *
 * Since: 0.1
 */
const gint64 *
dl_tensor_get_shape (DlTensor *self, gsize *n_dims)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  *n_dims = self->ndim;
  return self->sizes;
}

/**
 * dl_tensor_get_strides:
 * @self: a #DlTensor
 * @n_dims: (out): the number of dimensions
 *
 * Gives the step, in elements, between neighbours along every dimension, as
 * `torch.Tensor.stride ()`. A contiguous tensor of shape [2, 3] has strides
 * [3, 1]; views (transposes, slices, expands) have others, 0 for an expanded
 * dimension. The array belongs to the tensor.
 *
 * Returns: (array length=n_dims) (transfer none): the stride of each
 *   dimension, in elements
 *
 * Since: 0.1
 */
const gint64 *
dl_tensor_get_strides (DlTensor *self, gsize *n_dims)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  *n_dims = self->ndim;
  return self->strides;
}

/**
 * dl_tensor_get_size:
 * @self: a #DlTensor
 * @dim: a dimension, negative counting from the end
 * @error: return location for a #GError
 *
 * Gives the size of one dimension, as `torch.Tensor.size (dim)`.
 *
 * Fails with %DL_ERROR_INDEX when @dim is outside [-ndim, ndim).
 *
 * Returns: the size of dimension @dim, or -1 with @error set if @dim is
 *   out of range
 *
 * Since: 0.1
 */
gint64
dl_tensor_get_size (DlTensor *self, gint64 dim, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), -1);
  if (self->ndim == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "size: dimension specified as %" G_GINT64_FORMAT " but tensor has no dimensions",
                   dim);
      return -1;
    }
  if (!dl_normalize_dim ("size", &dim, self->ndim, error))
    return -1;
  return self->sizes[dim];
}

/**
 * dl_tensor_get_storage_offset:
 * @self: a #DlTensor
 *
 * Gives the position of the tensor's first element in its storage, counted
 * in elements, as `torch.Tensor.storage_offset ()`; nonzero for views such
 * as slices.
 *
 * Returns: the offset of the first element in the storage, in elements
 *
 * Since: 0.1
 */
gint64
dl_tensor_get_storage_offset (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  return self->offset;
}

/**
 * dl_tensor_numel:
 * @self: a #DlTensor
 *
 * Gives the number of elements: the product of the sizes, 1 for a 0-d
 * tensor, as `torch.Tensor.numel ()`.
 *
 * Returns: the number of elements
 *
 * Since: 0.1
 */
gint64
dl_tensor_numel (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  return self->numel;
}

/**
 * dl_tensor_mark_read_only:
 * @self: a #DlTensor
 *
 * Marks the memory under @self, which all its views share, as read-only:
 * from then on every op that writes into it (in-place ops, `copy_`,
 * `fill_`, indexed assignment, `out=` variants, optimizer steps) fails
 * with %DL_ERROR_ARGUMENT instead of writing. For tensors made over memory
 * that must not change, such as a non-writable NumPy array or a read-only
 * mapping (dl_tensor_new_from_address()). It cannot be undone; a clone is
 * writable.
 *
 * Since: 0.1
 */
void
dl_tensor_mark_read_only (DlTensor *self)
{
  g_return_if_fail (DL_IS_TENSOR (self));
  self->storage->read_only = TRUE;
}

/**
 * dl_tensor_is_read_only:
 * @self: a #DlTensor
 *
 * Whether @self's memory was marked read-only by dl_tensor_mark_read_only().
 *
 * Returns: %TRUE when writes into @self are refused
 *
 * Since: 0.1
 */
gboolean
dl_tensor_is_read_only (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  return self->storage->read_only;
}

/**
 * dl_tensor_element_size:
 * @self: a #DlTensor
 *
 * Gives the size of one element in bytes, as `torch.Tensor.element_size ()`;
 * the same as dl_dtype_get_size() of the tensor's dtype.
 *
 * Returns: the size of one element in bytes
 *
 * Since: 0.1
 */
gsize
dl_tensor_element_size (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  return dl_dtype_size (self->dtype);
}

/**
 * dl_tensor_is_contiguous:
 * @self: a #DlTensor
 *
 * Says whether the tensor is contiguous in row-major order, as
 * `torch.Tensor.is_contiguous ()`: its strides are those of a fresh tensor
 * of its shape (dimensions of size 1 may have any stride).
 * dl_tensor_contiguous() gives a contiguous tensor.
 *
 * Returns: whether the elements lie in row-major order without gaps
 *
 * Since: 0.1
 */
gboolean
dl_tensor_is_contiguous (DlTensor *self)
{
  gint64 expected = 1;

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  if (self->numel == 0)
    return TRUE;
  for (gint i = self->ndim - 1; i >= 0; i--)
    {
      if (self->sizes[i] != 1 && self->strides[i] != expected)
        return FALSE;
      expected *= self->sizes[i];
    }
  return TRUE;
}

/**
 * dl_tensor_get_device:
 * @self: a #DlTensor
 *
 * Gives the device that holds the tensor's memory, as `torch.Tensor.device`
 * (the #DlTensor:device property).
 *
 * Returns: (transfer none): the device the tensor lives on
 *
 * Since: 0.1
 */
DlDevice *
dl_tensor_get_device (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return dl_tensor_device (self);
}

/**
 * dl_tensor_get_storage:
 * @self: a #DlTensor
 *
 * Gives the storage the tensor is a view of: the block of memory it shares
 * with its views, as `torch.Tensor.untyped_storage ()`.
 *
 * Returns: (transfer none): the storage the tensor views
 *
 * Since: 0.1
 */
DlStorage *
dl_tensor_get_storage (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return self->storage;
}

/**
 * dl_tensor_get_data_ptr:
 * @self: a #DlTensor
 *
 * Gives the address of the tensor's first element (the storage's address
 * plus the storage offset), as `torch.Tensor.data_ptr ()`. On a device other
 * than the CPU it is a device address. The address stays valid while the
 * storage lives and is not released.
 *
 * Returns: the address of the first element, as torch's data_ptr()
 *
 * Since: 0.1
 */
guintptr
dl_tensor_get_data_ptr (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  return GPOINTER_TO_SIZE (dl_tensor_data (self));
}

/**
 * dl_tensor_get_requires_grad:
 * @self: a #DlTensor
 *
 * Says whether autograd records the ops that use the tensor, as
 * `torch.Tensor.requires_grad` (the #DlTensor:requires-grad property). A
 * leaf gets it from dl_tensor_set_requires_grad(); an op's result requires
 * grad when an input does and grad mode is on.
 *
 * Returns: whether autograd records ops on the tensor
 *
 * Since: 0.1
 */
gboolean
dl_tensor_get_requires_grad (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  dl_view_sync (self);
  return self->requires_grad;
}

/**
 * dl_tensor_set_requires_grad:
 * @self: a #DlTensor
 * @requires_grad: whether to record ops on the tensor
 * @error: return location for a #GError
 *
 * Makes a leaf tensor require grad, or stop. Only floating-point tensors
 * can require grad, and a non-leaf tensor cannot stop.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_tensor_set_requires_grad (DlTensor *self, gboolean requires_grad, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  dl_view_sync (self);
  requires_grad = !!requires_grad;
  if (requires_grad && !dl_dtype_is_float (self->dtype))
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_DTYPE,
          "requires_grad_: only Tensors of floating point dtype can require gradients, got %s",
          dl_dtype_get_name (self->dtype));
      return FALSE;
    }
  if (!requires_grad && self->grad_fn)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "requires_grad_: you can only change requires_grad flags of leaf variables. "
                   "If you want to use a computed variable in a subgraph that doesn't require "
                   "differentiation use var_no_grad = var.detach().");
      return FALSE;
    }
  if (self->requires_grad != requires_grad)
    {
      self->requires_grad = requires_grad;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REQUIRES_GRAD]);
    }
  return TRUE;
}

/**
 * dl_tensor_get_grad:
 * @self: a #DlTensor
 *
 * Gives the gradient that dl_tensor_backward() accumulated into this tensor,
 * as `torch.Tensor.grad`: kept for leaves that require grad, and for
 * non-leaves after dl_tensor_retain_grad(). %NULL before the first backward
 * pass and after dl_optimizer_zero_grad() with set_to_none.
 *
 * Returns: (transfer none) (nullable): the gradient accumulated by
 *   backward, or %NULL
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_get_grad (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return self->grad;
}

/**
 * dl_tensor_set_grad:
 * @self: a #DlTensor
 * @grad: (nullable): the new gradient, or %NULL to clear it
 * @error: return location for a #GError
 *
 * Replaces the accumulated gradient, as assigning `.grad` does. The
 * gradient must have the tensor's shape, dtype and device.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_tensor_set_grad (DlTensor *self, DlTensor *grad, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  g_return_val_if_fail (grad == NULL || DL_IS_TENSOR (grad), FALSE);
  if (!dl_check_live ("grad", self, error) || (grad && !dl_check_live ("grad", grad, error)))
    return FALSE;
  if (grad
      && (grad->ndim != self->ndim
          || memcmp (grad->sizes, self->sizes, self->ndim * sizeof (gint64)) != 0))
    {
      g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *gs = dl_shape_to_string (grad->sizes, grad->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "grad: assigned grad has data of a different size: %s for a tensor of %s", gs,
                   s);
      return FALSE;
    }
  if (grad && grad->dtype != self->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "grad: assigned grad has data of a different type: %s for a tensor of %s",
                   dl_dtype_get_name (grad->dtype), dl_dtype_get_name (self->dtype));
      return FALSE;
    }
  if (grad && dl_tensor_device (grad) != dl_tensor_device (self))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "grad: assigned grad has data located on a different device");
      return FALSE;
    }
  g_set_object (&self->grad, grad);
  return TRUE;
}

/**
 * dl_tensor_release:
 * @self: a #DlTensor
 *
 * Lets go of the tensor's memory now rather than when the object is
 * finalized, and of its gradient and autograd history. Views that share
 * the memory keep it alive. This is for garbage-collected bindings (GJS),
 * where an object may be finalized long after its last use.
 *
 * A released tensor has shape [0], and every op given it (or a view of
 * it made afterwards) fails with %DL_ERROR_ARGUMENT, "<op>: tensor was
 * released"; dl_tensor_is_released() tells. Releasing twice is harmless.
 *
 * Since: 0.1
 */
void
dl_tensor_release (DlTensor *self)
{
  DlStorage *empty;

  g_return_if_fail (DL_IS_TENSOR (self));
  empty = dl_storage_new (dl_tensor_device (self), 0, NULL);
  g_assert (empty != NULL);
  empty->released = TRUE;
  g_clear_pointer (&self->storage, dl_storage_unref);
  self->storage = empty;
  self->ndim = 1;
  self->sizes[0] = 0;
  self->strides[0] = 1;
  self->offset = 0;
  self->numel = 0;
  g_clear_object (&self->grad);
  g_clear_object (&self->grad_fn);
  g_clear_object (&self->base);
  self->requires_grad = FALSE;
}

/**
 * dl_tensor_is_released:
 * @self: a #DlTensor
 *
 * Says whether the tensor's memory is gone: dl_tensor_release() let go of it
 * early, as garbage-collected bindings (GJS) do to bound memory. Using a
 * released tensor in an op is an error.
 *
 * Returns: whether dl_tensor_release() let go of the tensor's memory (or
 *   of the memory of the tensor this one is a view of, before the view
 *   was made)
 *
 * Since: 0.1
 */
gboolean
dl_tensor_is_released (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  return self->storage->released;
}

gboolean
dl_tensor_released_error (const gchar *op, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: tensor was released", op);
  return FALSE;
}

/**
 * dl_tensor_get_grad_fn:
 * @self: a #DlTensor
 *
 * Gives the autograd node of the op that made the tensor, as
 * `torch.Tensor.grad_fn`; its dl_node_get_name() is PyTorch's, such as
 * "MulBackward0". %NULL for leaves and for results made with grad mode off.
 *
 * Returns: (transfer none) (nullable): the autograd node that made the
 *   tensor, or %NULL for a leaf
 *
 * Since: 0.1
 */
DlNode *
dl_tensor_get_grad_fn (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  dl_view_sync (self);
  return self->grad_fn;
}

/**
 * dl_tensor_get_output_nr:
 * @self: a #DlTensor
 *
 * Says which output of its grad_fn (dl_tensor_get_grad_fn()) the tensor
 * is, as `torch.Tensor.output_nr`: the piece's index for the results of
 * dl_tensor_split() and dl_tensor_unbind(), which share one node. 0 for a
 * leaf and for the result of an op with one output.
 *
 * Returns: the index of the tensor among its node's outputs
 *
 * Since: 0.1
 */
guint
dl_tensor_get_output_nr (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), 0);
  dl_view_sync (self);
  return self->grad_fn ? self->output_nr : 0;
}

/**
 * dl_tensor_get_base:
 * @self: a #DlTensor
 *
 * Gives the tensor a view was taken of, as `torch.Tensor._base`: for a
 * view of a view, the first tensor of the chain (the one that is not a
 * view itself). %NULL for a tensor that is not a view; dl_tensor_detach()
 * and dl_tensor_clone() give tensors that are not views.
 *
 * Returns: (transfer none) (nullable): the base of a view, or %NULL
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_get_base (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return self->base;
}

/**
 * dl_tensor_is_leaf:
 * @self: a #DlTensor
 *
 * Says whether the tensor is a leaf of the autograd graph, as
 * `torch.Tensor.is_leaf`: every tensor that does not require grad, and those
 * that require it but were made by the user (parameters, inputs) rather than
 * by a recorded op. Only leaves keep their gradient after
 * dl_tensor_backward() by default.
 *
 * Returns: whether the tensor was made by the user rather than by an op
 *   recorded by autograd
 *
 * Since: 0.1
 */
gboolean
dl_tensor_is_leaf (DlTensor *self)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), TRUE);
  dl_view_sync (self);
  return self->grad_fn == NULL;
}
