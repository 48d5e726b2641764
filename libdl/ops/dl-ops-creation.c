/* dl-ops-creation.c: tensors made from nothing: empty, zeros, ones, full,
 * arange, linspace, eye, and random ones from a #DlGenerator.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-generator-private.h"

/**
 * dl_manual_seed:
 * @seed: the seed
 *
 * Seeds the default random generator of every device, as torch.manual_seed:
 * those in use and those of devices first used later.
 *
 * Returns: (transfer none): the default generator of the CPU
 *
 * Since: 0.1
 */
DlGenerator *
dl_manual_seed (guint64 seed)
{
  dl_generator_manual_seed_all (seed);
  return dl_device_get_default_generator (NULL);
}

/* the device a factory was given, else the thread's default */
static DlDevice *
device_or_cpu (DlDevice *device)
{
  return device ? device : dl_device_default ();
}

/**
 * dl_empty:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Makes a tensor of the given shape without initialising its elements, as
 * `torch.empty (shape, dtype=dtype, device=device)`. Its contents are
 * whatever the memory held: write every element before reading one. The
 * tensor is a contiguous, row-major leaf that does not require grad.
 *
 * Fails with %DL_ERROR_DTYPE for a value that is not a #DlDType,
 * %DL_ERROR_ARGUMENT for a negative size, %DL_ERROR_SHAPE for more than 32
 * dimensions and %DL_ERROR_OUT_OF_MEMORY when the tensor does not fit.
 *
 * Returns: (transfer full): a new tensor whose elements are not
 *   initialised, or %NULL with @error set (negative size, out of memory)
 *
 * Since: 0.1
 */
DlTensor *
dl_empty (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error)
{
  if ((guint)dtype >= DL_N_DTYPES)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "empty: invalid dtype %d", dtype);
      return NULL;
    }
  return dl_tensor_new_empty_internal (device_or_cpu (device), dtype, shape, n_dims, error);
}

/**
 * dl_empty_like:
 * @like: the tensor whose shape, device and layout the new one takes
 * @dtype: the element type
 * @format: the layout: %DL_MEMORY_FORMAT_PRESERVE for @like's (as
 *   torch.empty_like's default), %DL_MEMORY_FORMAT_CONTIGUOUS for
 *   row-major
 * @error: return location for a #GError
 *
 * Makes an uninitialised tensor shaped like @like, as torch.empty_like;
 * the *_like factories fill it.
 *
 * Returns: (transfer full): a new tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_empty_like (DlTensor *like, DlDType dtype, DlMemoryFormat format, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (like), NULL);
  if ((guint)dtype >= DL_N_DTYPES)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "empty_like: invalid dtype %d", dtype);
      return NULL;
    }
  switch (format)
    {
      case DL_MEMORY_FORMAT_PRESERVE:
        return dl_empty_preserve_format (like, dtype, error);
      case DL_MEMORY_FORMAT_CONTIGUOUS:
        return dl_tensor_new_empty_internal (dl_tensor_device (like), dtype, like->sizes,
                                             like->ndim, error);
      default:
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "empty_like: invalid memory format %d",
                     (gint)format);
        return NULL;
    }
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
 * Makes a tensor of the given shape with every element set to @value, as
 * `torch.full (shape, value, dtype=dtype, device=device)`. @value is
 * converted to @dtype as a cast would (truncated for integer types, nonzero
 * is %TRUE for bool). An empty @shape gives a 0-d tensor.
 *
 * Fails with %DL_ERROR_ARGUMENT for a negative size, %DL_ERROR_SHAPE for
 * more than 32 dimensions and %DL_ERROR_OUT_OF_MEMORY when the tensor does
 * not fit. A device whose backend has no fill kernel fails with
 * %DL_ERROR_NOT_SUPPORTED.
 *
 * Returns: (transfer full): a new tensor filled with @value, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_full (const gint64 *shape,
         gsize n_dims,
         gdouble value,
         DlDType dtype,
         DlDevice *device,
         GError **error)
{
  DlTensor *t = dl_empty (shape, n_dims, dtype, device, error);
  DlBackendContext *ctx;
  DlIter iter;

  if (t == NULL)
    return NULL;
  if (!(ctx = DL_TENSOR_BACKEND (t, fill, "full", error)))
    {
      g_object_unref (t);
      return NULL;
    }
  dl_iter_init (&iter, 1, &t, t->sizes, t->ndim);
  ctx->backend->fill (ctx, &iter, dtype, value);
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
 * Makes a tensor of the given shape filled with zeros, as `torch.zeros
 * (shape, dtype=dtype, device=device)`; the same as dl_full() with a value
 * of 0.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) z = dl_zeros (DL_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, &error);
 *
 * if (z == NULL)
 *   g_printerr ("zeros: %s\n", error->message);
 * ]|
 *
 * DL_SHAPE() expands to the array and its length. Fails with
 * %DL_ERROR_ARGUMENT for a negative size, %DL_ERROR_SHAPE for more than 32
 * dimensions and %DL_ERROR_OUT_OF_MEMORY when the tensor does not fit.
 *
 * Returns: (transfer full): a new tensor of zeros, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_zeros (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error)
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
 * Makes a tensor of the given shape filled with ones, as `torch.ones (shape,
 * dtype=dtype, device=device)`; the same as dl_full() with a value of 1.
 *
 * Fails with %DL_ERROR_ARGUMENT for a negative size, %DL_ERROR_SHAPE for
 * more than 32 dimensions and %DL_ERROR_OUT_OF_MEMORY when the tensor does
 * not fit.
 *
 * Returns: (transfer full): a new tensor of ones, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_ones (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error)
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
 * Makes the 1-d tensor of the values from @start up to (not including) @end,
 * @step apart, as `torch.arange (start, end, step, dtype=dtype,
 * device=device)`. It has ceil ((@end - @start) / @step) elements, none when
 * @end equals @start. Each element is computed as @start + i * @step in
 * double precision and then converted to @dtype.
 *
 * Fails with %DL_ERROR_ARGUMENT when @step is 0, a bound or the step is not
 * finite, or the sign of @step points away from @end, and with
 * %DL_ERROR_OUT_OF_MEMORY when the range has too many elements.
 *
 * Returns: (transfer full): the 1-d tensor [start, start + step, ...) up
 *   to @end, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_arange (gdouble start,
           gdouble end,
           gdouble step,
           DlDType dtype,
           DlDevice *device,
           GError **error)
{
  gdouble span;
  gint64 n;
  DlTensor *t;
  g_autofree gdouble *host = NULL;

  if (step == 0 || !isfinite (start) || !isfinite (end) || !isfinite (step))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   step == 0 ? "arange: step must be nonzero"
                             : "arange: unsupported range: %g -> %g",
                   start, end);
      return NULL;
    }
  if ((step > 0 && end < start) || (step < 0 && end > start))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "arange: upper bound and larger bound inconsistent with step sign");
      return NULL;
    }
  span = ceil ((end - start) / step);
  if (span > (gdouble)G_MAXINT64 / 16)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY, "arange: too many elements");
      return NULL;
    }
  n = (gint64)span;
  if (!(t = dl_empty (&n, 1, dtype, device, error)))
    return NULL;
  if (dl_tensor_on_meta (t)) /* no values to write */
    return t;
  host = g_try_new (gdouble, MAX (n, 1));
  if (host == NULL)
    {
      g_object_unref (t);
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY, "arange: out of memory");
      return NULL;
    }
  for (gint64 i = 0; i < n; i++)
    host[i] = start + i * step;
  if (!dl_tensor_copy_from_host_doubles (t, host, "arange", error))
    {
      g_object_unref (t);
      return NULL;
    }
  return t;
}

static gboolean
check_generator (const gchar *op, DlGenerator *generator, DlDevice *device, GError **error)
{
  if (generator == NULL || dl_device_equal (dl_generator_get_device (generator), device))
    return TRUE;
  g_set_error (
      error, DL_ERROR, DL_ERROR_DEVICE, "%s: expected a generator on device %s, but got one on %s",
      op, dl_device_get_name (device), dl_device_get_name (dl_generator_get_device (generator)));
  return FALSE;
}

/* Fills @self with random numbers in place; FALSE with @error set on bad
 * input. */
static gboolean
random_fill (const gchar *op,
             DlRandomOp kind,
             DlTensor *self,
             gdouble a,
             gdouble b,
             DlGenerator *generator,
             GError **error)
{
  guint64 seed, offset;
  gint per_block = self->dtype == DL_DTYPE_FLOAT64 ? 2 : 4;
  g_autoptr (DlTensor) holder = NULL;
  DlBackendContext *ctx;

  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), FALSE);
  if (!check_generator (op, generator, dl_tensor_device (self), error))
    return FALSE;
  if (!dl_dtype_is_float (self->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: expected a floating-point tensor, got %s",
                   op, dl_dtype_get_name (self->dtype));
      return FALSE;
    }
  if (!dl_check_write_target (op, self, error)
      || !(ctx = DL_TENSOR_BACKEND (self, random, op, error))
      || (!dl_tensor_is_contiguous (self) && !DL_TENSOR_BACKEND (self, copy, op, error)))
    return FALSE;
  if (dl_inplace_wants_history (self, 0, NULL))
    {
      if (!dl_inplace_check_history (op, self, error))
        return FALSE;
      holder = dl_inplace_overwrite_begin (kind == DL_RANDOM_UNIFORM  ? "UniformBackward0"
                                           : kind == DL_RANDOM_NORMAL ? "NormalBackward0"
                                                                      : "BernoulliBackward1",
                                           self, NULL);
    }
  dl_generator_reserve (generator, dl_tensor_device (self),
                        (self->numel + per_block - 1) / per_block, &seed, &offset);
  if (dl_tensor_is_contiguous (self))
    ctx->backend->random (ctx, kind, dl_tensor_data (self), self->numel, self->dtype, seed, offset,
                          a, b);
  else
    {
      g_autoptr (DlTensor) tmp = NULL;
      DlTensor *ops[2];
      DlIter iter;

      if (!(tmp = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, self->sizes,
                                                self->ndim, error)))
        return FALSE;
      ctx->backend->random (ctx, kind, dl_tensor_data (tmp), tmp->numel, tmp->dtype, seed, offset,
                            a, b);
      ops[0] = self;
      ops[1] = tmp;
      dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
      ctx->backend->copy (ctx, &iter, self->dtype, self->dtype);
    }
  dl_storage_bump_version (self->storage);
  if (holder)
    dl_inplace_take_history (self, holder);
  return TRUE;
}

/**
 * dl_tensor_uniform_gen_:
 * @self: a floating-point #DlTensor, written in place
 * @from: the lower bound
 * @to: the upper bound
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with numbers drawn uniformly from [from, to) by @generator.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_uniform_gen_ (DlTensor *self,
                        gdouble from,
                        gdouble to,
                        DlGenerator *generator,
                        GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(from <= to) || !isfinite (to - from))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "uniform_: expects to return a [from, to) range, but found from=%g > to=%g",
                   from, to);
      return NULL;
    }
  return random_fill ("uniform_", DL_RANDOM_UNIFORM, self, from, to, generator, error) ? self
                                                                                       : NULL;
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
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_uniform_ (DlTensor *self, gdouble from, gdouble to, GError **error)
{
  return dl_tensor_uniform_gen_ (self, from, to, NULL, error);
}

/**
 * dl_tensor_normal_gen_:
 * @self: a floating-point #DlTensor, written in place
 * @mean: the mean
 * @std: the standard deviation, not negative
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with normally distributed numbers from @generator.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_normal_gen_ (DlTensor *self,
                       gdouble mean,
                       gdouble std,
                       DlGenerator *generator,
                       GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(std >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "normal_: expects std >= 0.0, but found std %g", std);
      return NULL;
    }
  return random_fill ("normal_", DL_RANDOM_NORMAL, self, mean, std, generator, error) ? self : NULL;
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
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_normal_ (DlTensor *self, gdouble mean, gdouble std, GError **error)
{
  return dl_tensor_normal_gen_ (self, mean, std, NULL, error);
}

/**
 * dl_tensor_bernoulli_:
 * @self: a #DlTensor, written in place
 * @p: the probability of a 1, in [0, 1]
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with 1 with probability @p and 0 otherwise.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_bernoulli_ (DlTensor *self, gdouble p, DlGenerator *generator, GError **error)
{
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) holder = NULL;
  DlTensor *ops[2];
  DlIter iter;
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(p >= 0 && p <= 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "bernoulli_: expected p in [0, 1], but got p=%g", p);
      return NULL;
    }
  if (!dl_check_write_target ("bernoulli_", self, error)
      || !(ctx = DL_TENSOR_BACKEND (self, copy, "bernoulli_", error)))
    return NULL;
  if (dl_inplace_wants_history (self, 0, NULL))
    {
      if (!dl_inplace_check_history ("bernoulli_", self, error))
        return NULL;
      holder = dl_inplace_overwrite_begin ("BernoulliBackward1", self, NULL);
    }
  if (!(u = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_FLOAT32, self->sizes,
                                          self->ndim, error))
      || !random_fill ("bernoulli_", DL_RANDOM_BERNOULLI, u, p, 0, generator, error))
    return NULL;
  ops[0] = self;
  ops[1] = u;
  dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
  ctx->backend->copy (ctx, &iter, self->dtype, DL_DTYPE_FLOAT32);
  dl_storage_bump_version (self->storage);
  if (holder)
    dl_inplace_take_history (self, holder);
  return self;
}

/**
 * dl_rand_gen:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: a floating-point element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Makes a tensor of numbers drawn uniformly from [0, 1) by @generator, as
 * `torch.rand (shape, generator=generator, dtype=dtype, device=device)`.
 * Drawing from a generator advances it, so the same seed gives the same
 * tensor.
 *
 * Fails with %DL_ERROR_DTYPE when @dtype is not a floating-point type, with
 * %DL_ERROR_DEVICE when @generator belongs to another device than @device,
 * and as dl_empty() does for a bad shape.
 *
 * Returns: (transfer full): a new tensor of numbers uniform in [0, 1), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_rand_gen (const gint64 *shape,
             gsize n_dims,
             DlDType dtype,
             DlDevice *device,
             DlGenerator *generator,
             GError **error)
{
  g_autoptr (DlTensor) t = dl_empty (shape, n_dims, dtype, device, error);

  if (!t || !random_fill ("rand", DL_RANDOM_UNIFORM, t, 0, 1, generator, error))
    return NULL;
  return g_steal_pointer (&t);
}

/**
 * dl_rand:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: a floating-point element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Makes a tensor of numbers drawn uniformly from [0, 1) by the default
 * generator of @device, as `torch.rand (shape, dtype=dtype, device=device)`;
 * dl_manual_seed() makes the draws repeatable. The same as dl_rand_gen()
 * with a %NULL generator, and fails as it does (%DL_ERROR_DTYPE for a dtype
 * that is not floating-point).
 *
 * Returns: (transfer full): a new tensor of numbers uniform in [0, 1) from
 *   the default generator, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_rand (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error)
{
  return dl_rand_gen (shape, n_dims, dtype, device, NULL, error);
}

/**
 * dl_randn_gen:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: a floating-point element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Makes a tensor of numbers drawn from the standard normal distribution
 * (mean 0, standard deviation 1) by @generator, as `torch.randn (shape,
 * generator=generator, dtype=dtype, device=device)`. Scale and shift the
 * result (or use dl_tensor_normal_gen_()) for another mean and deviation.
 *
 * Fails with %DL_ERROR_DTYPE when @dtype is not a floating-point type, with
 * %DL_ERROR_DEVICE when @generator belongs to another device than @device,
 * and as dl_empty() does for a bad shape.
 *
 * Returns: (transfer full): a new tensor of standard normal numbers, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_randn_gen (const gint64 *shape,
              gsize n_dims,
              DlDType dtype,
              DlDevice *device,
              DlGenerator *generator,
              GError **error)
{
  g_autoptr (DlTensor) t = dl_empty (shape, n_dims, dtype, device, error);

  if (!t || !random_fill ("randn", DL_RANDOM_NORMAL, t, 0, 1, generator, error))
    return NULL;
  return g_steal_pointer (&t);
}

/**
 * dl_randn:
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: a floating-point element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Makes a tensor of standard normal numbers (mean 0, standard deviation 1)
 * from the default generator of @device, as `torch.randn (shape,
 * dtype=dtype, device=device)`:
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) x = NULL;
 *
 * dl_manual_seed (0);
 * x = dl_randn (DL_SHAPE (64, 784), DL_DTYPE_FLOAT32, NULL, &error);
 * ]|
 *
 * The same as dl_randn_gen() with a %NULL generator; fails as it does
 * (%DL_ERROR_DTYPE for a dtype that is not floating-point).
 *
 * Returns: (transfer full): a new tensor of standard normal numbers from
 *   the default generator, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_randn (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error)
{
  return dl_randn_gen (shape, n_dims, dtype, device, NULL, error);
}

/**
 * dl_randint_gen:
 * @low: the lowest value
 * @high: one above the highest value
 * @shape: (array length=n_dims): the shape
 * @n_dims: the number of dimensions
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Makes a tensor of integers drawn uniformly from [@low, @high) by
 * @generator, as `torch.randint (low, high, shape, generator=generator,
 * dtype=dtype, device=device)`. The values are drawn as int64 and then
 * converted to @dtype, which may be any type, floating-point included.
 *
 * Fails with %DL_ERROR_ARGUMENT when @high is not above @low, with
 * %DL_ERROR_DEVICE when @generator belongs to another device than @device,
 * and as dl_empty() does for a bad shape.
 *
 * Returns: (transfer full): a new tensor of integers drawn uniformly from
 *   [low, high), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_randint_gen (gint64 low,
                gint64 high,
                const gint64 *shape,
                gsize n_dims,
                DlDType dtype,
                DlDevice *device,
                DlGenerator *generator,
                GError **error)
{
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) k = NULL;

  if (high <= low)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_ARGUMENT,
          "randint: random_ expects 'from' to be less than 'to', but got from=%" G_GINT64_FORMAT
          " >= to=%" G_GINT64_FORMAT,
          low, high);
      return NULL;
    }
  /* uniform doubles in [0, high - low), truncated (= floored), shifted */
  if (!(u = dl_empty (shape, n_dims, DL_DTYPE_FLOAT64, device, error))
      || !random_fill ("randint", DL_RANDOM_UNIFORM, u, 0, (gdouble)(high - low), generator, error))
    return NULL;
  if (!(k = dl_cast_nograd (u, DL_DTYPE_INT64, error)))
    return NULL;
  if (low != 0 && !dl_tensor_add_scalar_ (k, (gdouble)low, error))
    return NULL;
  return dl_cast_nograd (k, dtype, error);
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
 * Makes a tensor of integers drawn uniformly from [@low, @high) by the
 * default generator of @device, as `torch.randint (low, high, shape,
 * dtype=dtype, device=device)`. The same as dl_randint_gen() with a %NULL
 * generator; fails with %DL_ERROR_ARGUMENT when @high is not above @low.
 *
 * Returns: (transfer full): a new tensor of integers drawn uniformly from
 *   [low, high) by the default generator, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_randint (gint64 low,
            gint64 high,
            const gint64 *shape,
            gsize n_dims,
            DlDType dtype,
            DlDevice *device,
            GError **error)
{
  return dl_randint_gen (low, high, shape, n_dims, dtype, device, NULL, error);
}

/**
 * dl_randperm:
 * @n: the number of elements, not negative
 * @dtype: the element type (not bool; float16 and bfloat16 hold integers up to 2048 and 256
 * exactly)
 * @device: (nullable): the device, or %NULL for the CPU
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * A random permutation of 0 .. n - 1, as torch.randperm.
 *
 * Returns: (transfer full): a new 1-d tensor of @n elements, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_randperm (gint64 n, DlDType dtype, DlDevice *device, DlGenerator *generator, GError **error)
{
  g_autoptr (DlTensor) t = NULL;
  guint64 seed, offset;
  DlBackendContext *ctx;

  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  device = device_or_cpu (device);
  if (n < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "randperm: n must be non-negative, got %" G_GINT64_FORMAT, n);
      return NULL;
    }
  if ((guint)dtype >= DL_N_DTYPES || dtype == DL_DTYPE_BOOL || (dtype == DL_DTYPE_UINT8 && n > 256)
      || (dtype == DL_DTYPE_INT32 && n > G_MAXINT32))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "randperm: n=%" G_GINT64_FORMAT " is too large for the result dtype %s", n,
                   (guint)dtype < DL_N_DTYPES ? dl_dtype_get_name (dtype) : "?");
      return NULL;
    }
  if (!check_generator ("randperm", generator, device, error))
    return NULL;
  if (!(t = dl_empty (&n, 1, DL_DTYPE_INT64, device, error))
      || !(ctx = DL_TENSOR_BACKEND (t, random, "randperm", error)))
    return NULL;
  dl_generator_reserve (generator, device, (n + 1) / 2, &seed, &offset);
  ctx->backend->random (ctx, DL_RANDOM_PERMUTATION, dl_tensor_data (t), n, DL_DTYPE_INT64, seed,
                        offset, 0, 0);
  return dtype == DL_DTYPE_INT64 ? g_steal_pointer (&t) : dl_cast_nograd (t, dtype, error);
}

/**
 * dl_multinomial:
 * @probs: a 1-D or 2-D floating-point tensor of non-negative weights
 *   (each row a distribution, not necessarily normalised)
 * @num_samples: the number of draws per row, at least 1
 * @replacement: whether a category may be drawn more than once
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Draws category indices from the distributions in the rows of @probs, as
 * torch.multinomial.
 *
 * Returns: (transfer full): an int64 tensor of shape [num_samples] or
 *   [rows, num_samples], or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_multinomial (DlTensor *probs,
                gint64 num_samples,
                gboolean replacement,
                DlGenerator *generator,
                GError **error)
{
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) wc = NULL;
  g_autoptr (DlTensor) out = NULL;
  gint64 rows, k, shape[2];
  guint64 seed, offset;
  DlKernelStatus status = { 0 };
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_TENSOR (probs), NULL);
  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  if (probs->ndim != 1 && probs->ndim != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "multinomial: prob_dist must be 1 or 2 dim, got %d dims", probs->ndim);
      return NULL;
    }
  if (!dl_dtype_is_float (probs->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "multinomial: only floating-point dtypes are supported for prob_dist, got %s",
                   dl_dtype_get_name (probs->dtype));
      return NULL;
    }
  k = probs->sizes[probs->ndim - 1];
  rows = probs->ndim == 2 ? probs->sizes[0] : 1;
  if (num_samples <= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "multinomial: cannot sample n_sample <= 0 samples (got %" G_GINT64_FORMAT ")",
                   num_samples);
      return NULL;
    }
  if (k == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "multinomial: number of categories cannot be zero");
      return NULL;
    }
  if (!replacement && num_samples > k)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "multinomial: cannot sample n_sample (%" G_GINT64_FORMAT
                   ") > prob_dist.size(-1) (%" G_GINT64_FORMAT ") samples without replacement",
                   num_samples, k);
      return NULL;
    }
  if (!check_generator ("multinomial", generator, dl_tensor_device (probs), error)
      || !(ctx = DL_TENSOR_BACKEND (probs, multinomial, "multinomial", error)))
    return NULL;
  if (!(w = dl_cast_nograd (probs, DL_DTYPE_FLOAT64, error))
      || !(wc = dl_contiguous_nograd (w, error)))
    return NULL;
  shape[0] = rows;
  shape[1] = num_samples;
  if (!(out
        = dl_tensor_new_empty_internal (dl_tensor_device (probs), DL_DTYPE_INT64, shape, 2, error)))
    return NULL;
  dl_generator_reserve (generator, dl_tensor_device (probs), rows * ((num_samples + 1) / 2), &seed,
                        &offset);
  ctx->backend->multinomial (ctx, (const gdouble *)dl_tensor_data (wc), rows, k, num_samples,
                             replacement, (gint64 *)dl_tensor_data (out), seed, offset,
                             dl_kernel_status (ctx, &status));
  switch (status.error)
    {
      case DL_KERNEL_OK:
        break;
      case DL_KERNEL_BAD_WEIGHT:
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "multinomial: probability tensor contains either inf, nan or element < 0");
        return NULL;
      default:
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
        return NULL;
    }
  if (probs->ndim == 1)
    return dl_tensor_reshape (out, &num_samples, 1, error);
  return g_steal_pointer (&out);
}

/* Writes the n doubles of @host into the 1-d @t, converting. */
static DlTensor *
fill_from_host (DlTensor *t, gdouble *host, GError **error)
{
  if (!dl_tensor_copy_from_host_doubles (t, host, "linspace", error))
    {
      g_object_unref (t);
      return NULL;
    }
  return t;
}

/**
 * dl_linspace:
 * @start: the first value
 * @end: the last value
 * @steps: the number of values, not negative
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * @steps values evenly spaced from @start to @end, both included, as
 * torch.linspace.
 *
 * Returns: (transfer full): a new 1-d tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_linspace (gdouble start,
             gdouble end,
             gint64 steps,
             DlDType dtype,
             DlDevice *device,
             GError **error)
{
  DlTensor *t;
  g_autofree gdouble *host = NULL;
  gdouble step;

  if (steps < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "linspace: number of steps must be non-negative, got %" G_GINT64_FORMAT, steps);
      return NULL;
    }
  if (!(t = dl_empty (&steps, 1, dtype, device, error)))
    return NULL;
  if (steps == 0 || dl_tensor_on_meta (t)) /* no values to write */
    return t;
  host = g_try_new (gdouble, steps);
  if (host == NULL)
    {
      g_object_unref (t);
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY, "linspace: out of memory");
      return NULL;
    }
  /* integer results start and end at the bounds converted first */
  if (!dl_dtype_is_float (dtype))
    {
      start = trunc (start);
      end = trunc (end);
    }
  /* from both ends, so that the last value is exactly @end */
  step = steps > 1 ? (end - start) / (gdouble)(steps - 1) : 0;
  if (steps == 1)
    end = start;
  for (gint64 i = 0; i < steps; i++)
    host[i] = i < steps / 2 ? start + step * (gdouble)i : end - step * (gdouble)(steps - 1 - i);
  return fill_from_host (t, host, error);
}

/**
 * dl_eye:
 * @n: the number of rows, not negative
 * @m: the number of columns, not negative
 * @dtype: the element type
 * @device: (nullable): the device, or %NULL for the CPU
 * @error: return location for a #GError
 *
 * Makes the @n x @m matrix with ones on its main diagonal and zeros
 * elsewhere, as `torch.eye (n, m, dtype=dtype, device=device)`; @n equal to
 * @m gives the identity matrix.
 *
 * Fails with %DL_ERROR_ARGUMENT when @n or @m is negative.
 *
 * Returns: (transfer full): a new @n x @m tensor with ones on the diagonal
 *   and zeros elsewhere, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_eye (gint64 n, gint64 m, DlDType dtype, DlDevice *device, GError **error)
{
  gint64 shape[2] = { n, m };
  gint64 k = MIN (n, m), stride = m + 1;
  g_autoptr (DlTensor) diag = NULL;
  DlTensor *t;
  DlIter iter;
  DlBackendContext *ctx;

  if (n < 0 || m < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "eye: n and m must be non-negative, got n=%" G_GINT64_FORMAT
                   " and m=%" G_GINT64_FORMAT,
                   n, m);
      return NULL;
    }
  if (!(t = dl_zeros (shape, 2, dtype, device, error)))
    return NULL;
  if (k == 0)
    return t;
  if (!(ctx = DL_TENSOR_BACKEND (t, fill, "eye", error)))
    {
      g_object_unref (t);
      return NULL;
    }
  diag = dl_tensor_new_view_internal (t, &k, &stride, 1, t->offset);
  dl_iter_init (&iter, 1, &diag, diag->sizes, 1);
  ctx->backend->fill (ctx, &iter, dtype, 1);
  return t;
}
