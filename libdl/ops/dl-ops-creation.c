/* dl-ops-creation.c: tensors made from nothing: empty, zeros, ones, full,
 * arange, and random ones from the default generator.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"

/* The default generator: a Philox key (the seed) and a counter offset that
 * each request advances by the blocks it used. */
static GMutex rng_lock;
static guint64 rng_seed = G_GUINT64_CONSTANT (67280421310721);
static guint64 rng_offset;

static void
rng_reserve (gint64   n,
             DlDType  dtype,
             guint64 *seed,
             guint64 *offset)
{
  gint per_block = dtype == DL_DTYPE_FLOAT64 ? 2 : 4;

  g_mutex_lock (&rng_lock);
  *seed = rng_seed;
  *offset = rng_offset;
  rng_offset += (n + per_block - 1) / per_block;
  g_mutex_unlock (&rng_lock);
}

/**
 * dl_manual_seed:
 * @seed: the seed
 *
 * Seeds the default random generator, as torch.manual_seed.
 *
 * Since: 1.0
 */
void
dl_manual_seed (guint64 seed)
{
  g_mutex_lock (&rng_lock);
  rng_seed = seed;
  rng_offset = 0;
  g_mutex_unlock (&rng_lock);
}

static DlDevice *
device_or_cpu (DlDevice *device)
{
  return device ? device : dl_device_cpu ();
}

/**
 * dl_empty:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new tensor whose elements are not
 *   initialised, or %NULL with @error set (negative size, out of memory)
 *
 * Since: 1.0
 */
DlTensor *
dl_empty (const gint64  *shape,
          gsize          n_dims,
          DlDType        dtype,
          DlDevice      *device,
          GError       **error)
{
  if ((guint) dtype >= DL_N_DTYPES)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "empty: invalid dtype %d", dtype);
      return NULL;
    }
  return dl_tensor_new_empty_internal (device_or_cpu (device), dtype, shape, n_dims, error);
}

/**
 * dl_full:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @value: the value of every element
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new tensor filled with @value, or %NULL with
 *   @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_full (const gint64  *shape,
         gsize          n_dims,
         gdouble        value,
         DlDType        dtype,
         DlDevice      *device,
         GError       **error)
{
  DlTensor *t = dl_empty (shape, n_dims, dtype, device, error);
  DlIter iter;

  if (t == NULL)
    return NULL;
  dl_iter_init (&iter, 1, &t, t->sizes, t->ndim);
  dl_tensor_backend (t)->fill (&iter, dtype, value);
  return t;
}

/**
 * dl_zeros:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new tensor of zeros, or %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_zeros (const gint64  *shape,
          gsize          n_dims,
          DlDType        dtype,
          DlDevice      *device,
          GError       **error)
{
  return dl_full (shape, n_dims, 0, dtype, device, error);
}

/**
 * dl_ones:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new tensor of ones, or %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_ones (const gint64  *shape,
         gsize          n_dims,
         DlDType        dtype,
         DlDevice      *device,
         GError       **error)
{
  return dl_full (shape, n_dims, 1, dtype, device, error);
}

/**
 * dl_arange:
 * @start: the first value
 * @end: the bound, not included
 * @step: the difference between neighbours, not 0
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the 1-d tensor [start, start + step, ...) up
 *   to @end, or %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_arange (gdouble    start,
           gdouble    end,
           gdouble    step,
           DlDType    dtype,
           DlDevice  *device,
           GError   **error)
{
  gdouble span;
  gint64 n;
  DlTensor *t;
  g_autofree gdouble *host = NULL;
  g_autoptr (DlTensor) h = NULL;

  if (step == 0 || !isfinite (start) || !isfinite (end) || !isfinite (step))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   step == 0 ? "arange: step must be nonzero"
                             : "arange: unsupported range: %g -> %g", start, end);
      return NULL;
    }
  if ((step > 0 && end < start) || (step < 0 && end > start))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "arange: upper bound and larger bound inconsistent with step sign");
      return NULL;
    }
  span = ceil ((end - start) / step);
  if (span > (gdouble) G_MAXINT64 / 16)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY, "arange: too many elements");
      return NULL;
    }
  n = (gint64) span;
  if (!(t = dl_empty (&n, 1, dtype, device, error)))
    return NULL;
  host = g_try_new (gdouble, MAX (n, 1));
  if (host == NULL)
    {
      g_object_unref (t);
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY, "arange: out of memory");
      return NULL;
    }
  for (gint64 i = 0; i < n; i++)
    host[i] = start + i * step;
  if (!(h = dl_tensor_new_from_address (GPOINTER_TO_SIZE (host), DL_DTYPE_FLOAT64, &n, 1, NULL, 0,
                                        NULL, NULL, NULL, error)))
    {
      g_object_unref (t);
      return NULL;
    }
  {
    DlTensor *ops[2] = { t, h };
    DlIter iter;

    dl_iter_init (&iter, 2, ops, t->sizes, 1);
    dl_tensor_backend (t)->copy (&iter, dtype, DL_DTYPE_FLOAT64);
  }
  return t;
}

static DlTensor *
random_fill (const gchar  *op,
             DlRandomOp    kind,
             DlTensor     *self,
             gdouble       a,
             gdouble       b,
             GError      **error)
{
  guint64 seed, offset;

  if (!dl_dtype_is_floating_point (self->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: expected a floating-point tensor, got %s", op, dl_dtype_get_name (self->dtype));
      return NULL;
    }
  if (!dl_check_no_internal_overlap (op, self, error))
    return NULL;
  rng_reserve (self->numel, self->dtype, &seed, &offset);
  if (dl_tensor_is_contiguous (self))
    dl_tensor_backend (self)->random (kind, dl_tensor_data (self), self->numel, self->dtype,
                                      seed, offset, a, b);
  else
    {
      g_autoptr (DlTensor) tmp = NULL;
      DlTensor *ops[2];
      DlIter iter;

      if (!(tmp = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, self->sizes,
                                                self->ndim, error)))
        return NULL;
      dl_tensor_backend (self)->random (kind, dl_tensor_data (tmp), tmp->numel, tmp->dtype,
                                        seed, offset, a, b);
      ops[0] = self;
      ops[1] = tmp;
      dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
      dl_tensor_backend (self)->copy (&iter, self->dtype, self->dtype);
    }
  dl_storage_bump_version (self->storage);
  return g_object_ref (self);
}

/**
 * dl_tensor_uniform_:
 * @self: a floating-point #DlTensor, written in place
 * @from: the lower bound
 * @to: the upper bound
 * @error: return location for a #GError
 *
 * Fills @self with numbers drawn uniformly from [from, to) by the default
 * generator.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_tensor_uniform_ (DlTensor  *self,
                    gdouble    from,
                    gdouble    to,
                    GError   **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (from > to)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "uniform_: expects to return a [from, to) range, but found from=%g > to=%g",
                   from, to);
      return NULL;
    }
  return random_fill ("uniform_", DL_RANDOM_UNIFORM, self, from, to, error);
}

/**
 * dl_tensor_normal_:
 * @self: a floating-point #DlTensor, written in place
 * @mean: the mean
 * @std: the standard deviation, not negative
 * @error: return location for a #GError
 *
 * Fills @self with normally distributed numbers from the default generator.
 *
 * Returns: (transfer full): @self, or %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_tensor_normal_ (DlTensor  *self,
                   gdouble    mean,
                   gdouble    std,
                   GError   **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (std < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "normal_: expects std >= 0.0, but found std %g", std);
      return NULL;
    }
  return random_fill ("normal_", DL_RANDOM_NORMAL, self, mean, std, error);
}

/**
 * dl_rand:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: a floating-point element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new tensor of numbers uniform in [0, 1), or
 *   %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_rand (const gint64  *shape,
         gsize          n_dims,
         DlDType        dtype,
         DlDevice      *device,
         GError       **error)
{
  g_autoptr (DlTensor) t = dl_empty (shape, n_dims, dtype, device, error);

  return t ? random_fill ("rand", DL_RANDOM_UNIFORM, t, 0, 1, error) : NULL;
}

/**
 * dl_randn:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: a floating-point element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new tensor of standard normal numbers, or
 *   %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_randn (const gint64  *shape,
          gsize          n_dims,
          DlDType        dtype,
          DlDevice      *device,
          GError       **error)
{
  g_autoptr (DlTensor) t = dl_empty (shape, n_dims, dtype, device, error);

  return t ? random_fill ("randn", DL_RANDOM_NORMAL, t, 0, 1, error) : NULL;
}

/**
 * dl_randint:
 * @low: the lowest value
 * @high: one above the highest value
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Returns: (transfer full): a new tensor of integers drawn uniformly from
 *   [low, high), or %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_randint (gint64         low,
            gint64         high,
            const gint64  *shape,
            gsize          n_dims,
            DlDType        dtype,
            DlDevice      *device,
            GError       **error)
{
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) k = NULL;

  if (high <= low)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "randint: random_ expects 'from' to be less than 'to', but got from=%"
                   G_GINT64_FORMAT " >= to=%" G_GINT64_FORMAT, low, high);
      return NULL;
    }
  /* uniform doubles in [0, high - low), truncated (= floored), shifted */
  if (!(u = dl_empty (shape, n_dims, DL_DTYPE_FLOAT64, device, error))
      || !random_fill ("randint", DL_RANDOM_UNIFORM, u, 0, (gdouble) (high - low), error))
    return NULL;
  g_object_unref (u); /* random_fill returned a second reference */
  if (!(k = dl_cast_nograd (u, DL_DTYPE_INT64, error)))
    return NULL;
  if (low != 0)
    {
      g_autoptr (DlTensor) r = dl_tensor_add_scalar_ (k, (gdouble) low, error);
      if (!r)
        return NULL;
    }
  return dl_cast_nograd (k, dtype, error);
}
