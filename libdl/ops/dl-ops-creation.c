/* dl-ops-creation.c: tensors made from nothing: empty, zeros, ones, full,
 * arange, linspace, eye, and random ones from a #DlGenerator.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-lapack-private.h"
#include "dl-generator-private.h"
#include "backends/dl-special-math.h"

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

/* whether a draw on @device from @generator (NULL: the device's default)
 * takes the CPU's Mersenne Twister */
static gboolean
generator_is_the_cpus (DlGenerator *generator, DlDevice *device)
{
  DlDevice *dev = generator ? dl_generator_get_device (generator) : device_or_cpu (device);

  return dl_device_get_device_type (dev) == DL_DEVICE_TYPE_CPU;
}

/* PyTorch's name of the node an in-place draw of @kind leaves */
static const gchar *
random_node_name (DlRandomOp kind)
{
  switch (kind)
    {
      case DL_RANDOM_UNIFORM:
        return "UniformBackward0";
      case DL_RANDOM_NORMAL:
        return "NormalBackward0";
      case DL_RANDOM_EXPONENTIAL:
        return "ExponentialBackward0";
      case DL_RANDOM_CAUCHY:
        return "CauchyBackward0";
      case DL_RANDOM_LOG_NORMAL:
        return "LogNormalBackward0";
      case DL_RANDOM_GEOMETRIC:
        return "GeometricBackward0";
      default:
        return "BernoulliBackward1";
    }
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
  gint per_block = self->dtype == DL_DTYPE_FLOAT64 ? 2 : 4;
  g_autoptr (DlTensor) holder = NULL;
  DlBackendContext *ctx;
  DlRandomDraw draw;
  DlGenerator *held;
  guint64 n_blocks;

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
      holder = dl_inplace_overwrite_begin (random_node_name (kind), self, NULL);
    }
  n_blocks = (self->numel + per_block - 1) / per_block;
  if (dl_tensor_is_contiguous (self))
    {
      held = dl_generator_begin (generator, dl_tensor_device (self), n_blocks, &draw);
      draw.dense = TRUE;
      ctx->backend->random (ctx, kind, dl_tensor_data (self), self->numel, self->dtype, &draw, a,
                            b);
      dl_generator_end (held);
    }
  else
    {
      /* drawn in the order of the elements in memory, as PyTorch's kernels
       * visit a strided tensor: into a contiguous tensor shaped as self
       * with its dims by decreasing stride, then copied to that view */
      g_autoptr (DlTensor) tmp = NULL;
      g_autoptr (DlTensor) view = NULL;
      gint64 sizes[DL_MAX_DIMS], strides[DL_MAX_DIMS];
      gint order[DL_MAX_DIMS];
      DlTensor *ops[2];
      DlIter iter;

      for (gint d = 0; d < self->ndim; d++)
        order[d] = d;
      for (gint i = 1; i < self->ndim; i++)
        for (gint j = i; j > 0 && self->strides[order[j]] > self->strides[order[j - 1]]; j--)
          {
            gint t = order[j];

            order[j] = order[j - 1];
            order[j - 1] = t;
          }
      for (gint d = 0; d < self->ndim; d++)
        {
          sizes[d] = self->sizes[order[d]];
          strides[d] = self->strides[order[d]];
        }
      view = dl_tensor_new_view_internal (self, sizes, strides, self->ndim, self->offset);
      if (!(tmp = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, sizes,
                                                self->ndim, error)))
        return FALSE;
      held = dl_generator_begin (generator, dl_tensor_device (self), n_blocks, &draw);
      ctx->backend->random (ctx, kind, dl_tensor_data (tmp), tmp->numel, tmp->dtype, &draw, a, b);
      dl_generator_end (held);
      ops[0] = view;
      ops[1] = tmp;
      dl_iter_init (&iter, 2, ops, sizes, self->ndim);
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

/* Fills @self, of any dtype, in place with numbers of @kind drawn in
 * @draw_dtype (a float dtype) and converted; FALSE with @error set */
static gboolean
random_fill_cast (const gchar *op,
                  DlRandomOp kind,
                  DlTensor *self,
                  gdouble a,
                  gdouble b,
                  DlDType draw_dtype,
                  DlGenerator *generator,
                  GError **error)
{
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) holder = NULL;
  DlTensor *ops[2];
  DlIter iter;
  DlBackendContext *ctx;

  if (!dl_check_write_target (op, self, error)
      || !(ctx = DL_TENSOR_BACKEND (self, copy, op, error)))
    return FALSE;
  if (dl_inplace_wants_history (self, 0, NULL))
    {
      if (!dl_inplace_check_history (op, self, error))
        return FALSE;
      holder = dl_inplace_overwrite_begin (random_node_name (kind), self, NULL);
    }
  if (!(u = dl_tensor_new_empty_internal (dl_tensor_device (self), draw_dtype, self->sizes,
                                          self->ndim, error))
      || !random_fill (op, kind, u, a, b, generator, error))
    return FALSE;
  ops[0] = self;
  ops[1] = u;
  dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
  ctx->backend->copy (ctx, &iter, self->dtype, draw_dtype);
  dl_storage_bump_version (self->storage);
  if (holder)
    dl_inplace_take_history (self, holder);
  return TRUE;
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
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(p >= 0 && p <= 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "bernoulli_: expected p in [0, 1], but got p=%g", p);
      return NULL;
    }
  return random_fill_cast ("bernoulli_", DL_RANDOM_BERNOULLI, self, p, 0, DL_DTYPE_FLOAT32,
                           generator, error)
             ? self
             : NULL;
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

/* Writes into @self low + (a draw mod @range) per element, as PyTorch's
 * random_ (from, to): from one 32-bit word of the CPU's stream, or two
 * when the range needs them and @self's dtype holds them; another device
 * draws uniform doubles in [0, range) and truncates them. */
static gboolean
draw_integers (const gchar *op,
               DlTensor *self,
               gint64 low,
               guint64 range,
               DlGenerator *generator,
               GError **error)
{
  g_autoptr (DlTensor) k = NULL;
  DlDevice *device = dl_tensor_device (self);

  if (!check_generator (op, generator, device, error))
    return FALSE;
  if (generator_is_the_cpus (generator, device))
    {
      DlRandomDraw draw;
      DlGenerator *held;
      DlBackendContext *ctx;

      if (!(k
            = dl_tensor_new_empty_internal (device, DL_DTYPE_INT64, self->sizes, self->ndim, error))
          || !(ctx = DL_TENSOR_BACKEND (k, random, op, error)))
        return FALSE;
      held = dl_generator_begin (generator, device, 0, &draw);
      draw.low = low;
      draw.range = range;
      draw.wide = range >= G_GUINT64_CONSTANT (1) << 32
                  && (self->dtype == DL_DTYPE_INT64 || self->dtype == DL_DTYPE_FLOAT64
                      || self->dtype == DL_DTYPE_FLOAT32 || self->dtype == DL_DTYPE_BFLOAT16);
      ctx->backend->random (ctx, DL_RANDOM_INTEGER, dl_tensor_data (k), k->numel, DL_DTYPE_INT64,
                            &draw, 0, 0);
      dl_generator_end (held);
    }
  else
    {
      g_autoptr (DlTensor) u = NULL;

      if (!(u = dl_tensor_new_empty_internal (device, DL_DTYPE_FLOAT64, self->sizes, self->ndim,
                                              error))
          || !random_fill (op, DL_RANDOM_UNIFORM, u, 0, (gdouble)range, generator, error)
          || !(k = dl_cast_nograd (u, DL_DTYPE_INT64, error))
          || (low != 0 && !dl_tensor_add_scalar_ (k, (gdouble)low, error)))
        return FALSE;
    }
  return dl_tensor_copy_ (self, k, error) != NULL;
}

/**
 * dl_tensor_random_:
 * @self: a #DlTensor, written in place
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with integers drawn uniformly from the whole range its dtype
 * holds exactly, as `Tensor.random_ ()`: [0, 2^mantissa] for a
 * floating-point dtype (2^24 for float32, 2^53 for float64), [0, max] for
 * an integer dtype, 0 or 1 for bool.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_random_ (DlTensor *self, DlGenerator *generator, GError **error)
{
  guint64 range;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  switch (self->dtype)
    {
      case DL_DTYPE_FLOAT32:
        range = (G_GUINT64_CONSTANT (1) << 24) + 1;
        break;
      case DL_DTYPE_FLOAT64:
        range = (G_GUINT64_CONSTANT (1) << 53) + 1;
        break;
      case DL_DTYPE_FLOAT16:
        range = (1 << 11) + 1;
        break;
      case DL_DTYPE_BFLOAT16:
        range = (1 << 8) + 1;
        break;
      case DL_DTYPE_BOOL:
        range = 2;
        break;
      case DL_DTYPE_INT32:
        range = (guint64)G_MAXINT32 + 1;
        break;
      case DL_DTYPE_UINT8:
        range = 256;
        break;
      default:
        range = (guint64)G_MAXINT64 + 1;
        break;
    }
  return draw_integers ("random_", self, 0, range, generator, error) ? self : NULL;
}

/**
 * dl_tensor_random_range_:
 * @self: a #DlTensor, written in place
 * @from: the lowest value
 * @to: one above the highest value
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with integers drawn uniformly from [@from, @to), as
 * `Tensor.random_ (from, to)`. A CPU generator draws PyTorch's numbers.
 *
 * Fails with %DL_ERROR_ARGUMENT when @to is not above @from.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_random_range_ (DlTensor *self,
                         gint64 from,
                         gint64 to,
                         DlGenerator *generator,
                         GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  if (to <= from)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_ARGUMENT,
          "random_: random_ expects 'from' to be less than 'to', but got from=%" G_GINT64_FORMAT
          " >= to=%" G_GINT64_FORMAT,
          from, to);
      return NULL;
    }
  return draw_integers ("random_", self, from, (guint64)to - (guint64)from, generator, error)
             ? self
             : NULL;
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
  g_autoptr (DlTensor) t = NULL;

  if (high <= low)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_ARGUMENT,
          "randint: random_ expects 'from' to be less than 'to', but got from=%" G_GINT64_FORMAT
          " >= to=%" G_GINT64_FORMAT,
          low, high);
      return NULL;
    }
  if (!check_generator ("randint", generator, device_or_cpu (device), error)
      || !(t = dl_empty (shape, n_dims, dtype, device, error))
      || !draw_integers ("randint", t, low, (guint64)high - (guint64)low, generator, error))
    return NULL;
  return g_steal_pointer (&t);
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
  DlRandomDraw draw;
  DlGenerator *held;
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
  held = dl_generator_begin (generator, device, (n + 1) / 2, &draw);
  ctx->backend->random (ctx, DL_RANDOM_PERMUTATION, dl_tensor_data (t), n, DL_DTYPE_INT64, &draw, 0,
                        0);
  dl_generator_end (held);
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
  DlRandomDraw draw;
  DlGenerator *held;
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
  held = dl_generator_begin (generator, dl_tensor_device (probs), rows * ((num_samples + 1) / 2),
                             &draw);
  draw.weights_dtype = probs->dtype;
  ctx->backend->multinomial (ctx, (const gdouble *)dl_tensor_data (wc), rows, k, num_samples,
                             replacement, (gint64 *)dl_tensor_data (out), &draw,
                             dl_kernel_status (ctx, &status));
  dl_generator_end (held);
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
    return dl_reshape_view (out, &num_samples, 1, error);
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

/**
 * dl_tensor_exponential_:
 * @self: a floating-point #DlTensor, written in place
 * @lambd: the rate, not negative
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with numbers from the exponential distribution of rate
 * @lambd (density lambd e^(-lambd x)), as `Tensor.exponential_ (lambd)`;
 * a rate of 0 gives infinities.
 *
 * Fails with %DL_ERROR_ARGUMENT for a negative @lambd, %DL_ERROR_DTYPE for
 * an integer tensor.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_exponential_ (DlTensor *self, gdouble lambd, DlGenerator *generator, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(lambd >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "exponential_ expects lambda >= 0.0, but found lambda=%g", lambd);
      return NULL;
    }
  return random_fill ("exponential_", DL_RANDOM_EXPONENTIAL, self, lambd, 0, generator, error)
             ? self
             : NULL;
}

/**
 * dl_tensor_cauchy_:
 * @self: a floating-point #DlTensor, written in place
 * @median: the median (location)
 * @sigma: the scale: half the interquartile range
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with numbers from the Cauchy distribution, density
 * 1 / (pi sigma (1 + ((x - median) / sigma)^2)), as
 * `Tensor.cauchy_ (median, sigma)`.
 *
 * Fails with %DL_ERROR_DTYPE for an integer tensor.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_cauchy_ (DlTensor *self,
                   gdouble median,
                   gdouble sigma,
                   DlGenerator *generator,
                   GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return random_fill ("cauchy_", DL_RANDOM_CAUCHY, self, median, sigma, generator, error) ? self
                                                                                          : NULL;
}

/**
 * dl_tensor_log_normal_:
 * @self: a floating-point #DlTensor, written in place
 * @mean: the mean of the logarithm
 * @std: the standard deviation of the logarithm, positive
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with numbers e^x, x normal with mean @mean and standard
 * deviation @std, as `Tensor.log_normal_ (mean, std)`.
 *
 * Fails with %DL_ERROR_ARGUMENT when @std is not positive,
 * %DL_ERROR_DTYPE for an integer tensor.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_log_normal_ (DlTensor *self,
                       gdouble mean,
                       gdouble std,
                       DlGenerator *generator,
                       GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(std > 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "log_normal_ expects std > 0.0, but found std=%g", std);
      return NULL;
    }
  return random_fill ("log_normal_", DL_RANDOM_LOG_NORMAL, self, mean, std, generator, error)
             ? self
             : NULL;
}

/**
 * dl_tensor_geometric_:
 * @self: a #DlTensor, written in place
 * @p: the probability of success of each trial, in (0, 1)
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @self with the numbers of Bernoulli trials up to and including the
 * first success: k with probability (1 - p)^(k - 1) p, as
 * `Tensor.geometric_ (p)`. Integer tensors take the counts too.
 *
 * Fails with %DL_ERROR_ARGUMENT when @p is not in (0, 1).
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_geometric_ (DlTensor *self, gdouble p, DlGenerator *generator, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!(p > 0 && p < 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "geometric_ expects p to be in (0, 1), but got p=%g", p);
      return NULL;
    }
  return random_fill_cast ("geometric_", DL_RANDOM_GEOMETRIC, self, p, 0, DL_DTYPE_FLOAT64,
                           generator, error)
             ? self
             : NULL;
}

/* A new tensor of @like's dtype, shape and device, element i drawn from
 * the float64 parameters a[i] (and b[i]) by the backend's random_params;
 * NULL with @error set */
static DlTensor *
random_params_draw (const gchar *op,
                    DlRandomParamsOp kind,
                    DlTensor *like,
                    DlTensor *a,
                    DlTensor *b,
                    DlGenerator *generator,
                    GError **error)
{
  g_autoptr (DlTensor) ad = NULL;
  g_autoptr (DlTensor) ac = NULL;
  g_autoptr (DlTensor) bd = NULL;
  g_autoptr (DlTensor) bc = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlBackendContext *ctx;
  DlRandomDraw draw;
  DlGenerator *held;

  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  if (!check_generator (op, generator, dl_tensor_device (like), error)
      || !(ctx = DL_TENSOR_BACKEND (like, random_params, op, error)))
    return NULL;
  if (!(ad = dl_cast_nograd (a, DL_DTYPE_FLOAT64, error))
      || !(ac = dl_contiguous_nograd (ad, error)))
    return NULL;
  if (b
      && (!(bd = dl_cast_nograd (b, DL_DTYPE_FLOAT64, error))
          || !(bc = dl_contiguous_nograd (bd, error))))
    return NULL;
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (like), like->dtype, like->sizes,
                                            like->ndim, error)))
    return NULL;
  if (out->numel == 0)
    return g_steal_pointer (&out);
  /* the CPU's stream, held for the call, or one Philox block of the
   * request per element: its stream (offset + i, sub) */
  held = dl_generator_begin (generator, dl_tensor_device (like), out->numel, &draw);
  ctx->backend->random_params (ctx, kind, (const gdouble *)dl_tensor_data (ac),
                               bc ? (const gdouble *)dl_tensor_data (bc) : NULL,
                               dl_tensor_data (out), out->numel, out->dtype, &draw);
  dl_generator_end (held);
  return g_steal_pointer (&out);
}

/* the parameters' dtype: PyTorch's CPU kernels of these samplers take
 * float32 and float64, other devices' every floating-point dtype */
static gboolean
check_float_param (const gchar *op, DlTensor *t, GError **error)
{
  gboolean cpu = dl_device_get_device_type (dl_tensor_device (t)) == DL_DEVICE_TYPE_CPU;

  if (t->dtype == DL_DTYPE_FLOAT32 || t->dtype == DL_DTYPE_FLOAT64
      || (!cpu && dl_dtype_is_float (t->dtype)))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "\"%s\" not implemented for '%s'", op,
               dl_lapack_torch_type_name (t->dtype));
  return FALSE;
}

typedef struct
{
  DlSavedTensor alpha;
  DlSavedTensor sample;
} StandardGammaState;

/* d alpha = g dx/dalpha (dl_standard_gamma_grad) */
static gboolean
standard_gamma_backward (DlNode *node, DlTensor **grads, DlTensor **grad_inputs, GError **error)
{
  StandardGammaState *s = dl_node_state (node);
  DlTensor *alpha = dl_node_saved (node, &s->alpha, error);
  DlTensor *x = alpha ? dl_node_saved (node, &s->sample, error) : NULL;
  g_autoptr (DlTensor) d = x ? dl_standard_gamma_grad (alpha, x, error) : NULL;

  return d && (grad_inputs[0] = dl_tensor_mul (grads[0], d, error)) != NULL;
}

/**
 * dl_standard_gamma:
 * @alpha: a floating-point #DlTensor of concentrations
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Draws one number from Gamma (alpha, 1) for each element of @alpha, as
 * `torch._standard_gamma (alpha)`: Marsaglia and Tsang's method, with the
 * boost u^(1/alpha) below 1. Results are at least the smallest normal
 * number of the dtype (that number for alpha 0 or NaN). On the CPU the
 * elements draw in turn from the generator's Mersenne Twister with
 * PyTorch's arithmetic, so a seed gives PyTorch's samples. When @alpha
 * requires grad the result's grad_fn (StandardGammaBackward0) carries the
 * reparameterised gradient dl_standard_gamma_grad() gives.
 *
 * Fails with %DL_ERROR_DTYPE for an integer @alpha, or a 16-bit one on the
 * CPU (as PyTorch's CPU kernel).
 *
 * Returns: (transfer full): a tensor of @alpha's shape and dtype, or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_standard_gamma (DlTensor *alpha, DlGenerator *generator, GError **error)
{
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (alpha), NULL);
  if (!check_float_param ("gamma_cpu", alpha, error)
      || !(out = random_params_draw ("_standard_gamma", DL_RANDOM_PARAMS_GAMMA, alpha, alpha, NULL,
                                     generator, error)))
    return NULL;
  if (dl_autograd_any_requires (1, &alpha))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("StandardGammaBackward0", standard_gamma_backward, 1, &alpha);
      StandardGammaState *s = DL_NODE_NEW_STATE (node, StandardGammaState);

      dl_node_save (node, &s->alpha, alpha, FALSE);
      dl_node_save (node, &s->sample, out, TRUE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_standard_gamma_grad:
 * @alpha: a floating-point #DlTensor of concentrations
 * @sample: Gamma (alpha, 1) samples, of @alpha's shape and dtype
 * @error: return location for a #GError
 *
 * The derivative of each Gamma (alpha, 1) sample with respect to its
 * alpha, holding the sample's quantile fixed, as
 * `torch._standard_gamma_grad (alpha, sample)`: -(dP/dalpha) / (dP/dx) of
 * the regularised incomplete gamma function P (alpha, x), dP/dalpha summed
 * from its series. Computed on the host in float64; not recorded by
 * autograd.
 *
 * Fails with %DL_ERROR_SHAPE when the shapes differ, %DL_ERROR_DTYPE when
 * the dtypes differ or are not floating-point.
 *
 * Returns: (transfer full): a tensor of @alpha's shape and dtype, or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_standard_gamma_grad (DlTensor *alpha, DlTensor *sample, GError **error)
{
  g_autofree gdouble *a = NULL;
  g_autofree gdouble *x = NULL;
  g_autoptr (DlTensor) out = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (alpha), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (sample), NULL);
  if (!check_float_param ("_standard_gamma_grad", alpha, error))
    return NULL;
  if (alpha->dtype != sample->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "_standard_gamma_grad: expected alpha and sample of one dtype, got %s and %s",
                   dl_dtype_get_name (alpha->dtype), dl_dtype_get_name (sample->dtype));
      return NULL;
    }
  if (alpha->ndim != sample->ndim
      || memcmp (alpha->sizes, sample->sizes, sizeof (gint64) * alpha->ndim) != 0)
    {
      g_autofree gchar *sa = dl_shape_to_string (alpha->sizes, alpha->ndim);
      g_autofree gchar *sb = dl_shape_to_string (sample->sizes, sample->ndim);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "_standard_gamma_grad: alpha %s and sample %s differ in shape", sa, sb);
      return NULL;
    }
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (alpha), alpha->dtype, alpha->sizes,
                                            alpha->ndim, error)))
    return NULL;
  if (out->numel == 0 || dl_tensor_on_meta (out))
    return g_steal_pointer (&out);
  a = g_new (gdouble, alpha->numel);
  x = g_new (gdouble, alpha->numel);
  if (!dl_tensor_copy_to_host (alpha, DL_DTYPE_FLOAT64, a, "_standard_gamma_grad", error)
      || !dl_tensor_copy_to_host (sample, DL_DTYPE_FLOAT64, x, "_standard_gamma_grad", error))
    return NULL;
  for (gint64 i = 0; i < alpha->numel; i++)
    a[i] = dl_special_standard_gamma_grad (a[i], x[i]);
  if (!dl_tensor_copy_from_host_doubles (out, a, "_standard_gamma_grad", error))
    return NULL;
  return g_steal_pointer (&out);
}

static gboolean
poisson_backward (DlNode *node, DlTensor **grads, DlTensor **grad_inputs, GError **error)
{
  return (grad_inputs[0] = dl_zeros (grads[0]->sizes, grads[0]->ndim, grads[0]->dtype,
                                     dl_tensor_get_device (grads[0]), error))
         != NULL;
}

/**
 * dl_poisson:
 * @rates: a floating-point #DlTensor of non-negative rates
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Draws one number from Poisson (rate) for each element of @rates, as
 * `torch.poisson (rates)`: by multiplying uniforms below rate 10,
 * Hörmann's transformed rejection (PTRS) above; on the CPU PyTorch's
 * sampler on the generator's Mersenne Twister, so a seed gives PyTorch's
 * counts. The gradient, where @rates requires grad, is zero
 * (PoissonBackward0), as torch's.
 *
 * Fails with %DL_ERROR_ARGUMENT for a negative or NaN rate,
 * %DL_ERROR_DTYPE for integer rates, or 16-bit ones on the CPU.
 *
 * Returns: (transfer full): the counts, in a tensor of @rates' shape and
 *   dtype, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_poisson (DlTensor *rates, DlGenerator *generator, GError **error)
{
  g_autoptr (DlTensor) ok = NULL;
  g_autoptr (DlTensor) all = NULL;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (rates), NULL);
  if (!check_float_param ("poisson_cpu", rates, error))
    return NULL;
  if (!dl_tensor_on_meta (rates))
    {
      GError *local = NULL;
      gdouble good;

      /* NaN is not a rate either */
      if (!(ok = dl_tensor_ge_scalar (rates, 0, error))
          || !(all = dl_tensor_all (ok, NULL, 0, FALSE, error)))
        return NULL;
      good = dl_tensor_item (all, &local);
      if (local)
        {
          g_propagate_error (error, local);
          return NULL;
        }
      if (good == 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "invalid Poisson rate, expected rate to be non-negative");
          return NULL;
        }
    }
  if (!(out = random_params_draw ("poisson", DL_RANDOM_PARAMS_POISSON, rates, rates, NULL,
                                  generator, error)))
    return NULL;
  if (dl_autograd_any_requires (1, &rates))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("PoissonBackward0", poisson_backward, 1, &rates);

      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_binomial:
 * @count: a floating-point #DlTensor of numbers of trials
 * @prob: the probabilities of success, in [0, 1], of @count's dtype;
 *   broadcast with @count
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Draws one number from Binomial (count, prob) for each element of the
 * broadcast @count and @prob, as `torch.binomial (count, prob)`: by
 * geometric waiting times where count min (p, 1 - p) < 10, Hörmann's BTRS
 * rejection above. Not differentiable. On the CPU these are PyTorch's
 * sampler and numbers, drawn in turn from the generator's Mersenne
 * Twister: a count or probability at most 0 gives 0, a probability from 1
 * the count, a NaN probability NaN (and a NaN count NaN, where PyTorch's
 * loop never ends). On other devices a negative count or a probability
 * outside [0, 1] gives NaN.
 *
 * Fails with %DL_ERROR_DTYPE when the dtypes differ or are not
 * floating-point (or are 16-bit, on the CPU), %DL_ERROR_SHAPE when the
 * shapes do not broadcast.
 *
 * Returns: (transfer full): the numbers of successes, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_binomial (DlTensor *count, DlTensor *prob, DlGenerator *generator, GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  gint ndim;
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) p = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (count), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (prob), NULL);
  if (!check_float_param ("binomial_cpu", count, error))
    return NULL;
  if (count->dtype != prob->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "binomial: Found dtype %s but expected %s",
                   dl_dtype_get_name (prob->dtype), dl_dtype_get_name (count->dtype));
      return NULL;
    }
  if (!dl_broadcast_shapes ("binomial", count->sizes, count->ndim, prob->sizes, prob->ndim, shape,
                            &ndim, error)
      || !(c = dl_tensor_expand (count, shape, ndim, error))
      || !(p = dl_tensor_expand (prob, shape, ndim, error)))
    return NULL;
  return random_params_draw ("binomial", DL_RANDOM_PARAMS_BINOMIAL, c, c, p, generator, error);
}
