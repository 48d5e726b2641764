/* dl-init.c: the initialisations of torch.nn.init, PyTorch 1.13's formulas:
 *   fan_in = size (1) * receptive field, fan_out = size (0) * receptive field
 *   xavier:  std = gain sqrt (2 / (fan_in + fan_out)); uniform bound sqrt (3) std
 *   kaiming: std = gain (nonlinearity, a) / sqrt (fan); uniform bound sqrt (3) std
 *   orthogonal: Q of the QR of a normal matrix [rows, numel / rows]
 *     (transposed when wider than tall), its columns signed so that R's
 *     diagonal is positive, times gain
 *   trunc_normal: the inverse normal CDF of a uniform draw between the
 *     CDFs of a and b, clamped to [a, b]
 * Every fill runs outside autograd and returns the tensor.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-dtype-private.h"

#include "dl-init.h"
#include "dl-error.h"
#include "dl-node.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-math.h"

/**
 * dl_init_calculate_gain:
 * @nonlinearity: "linear", "conv1d", "conv2d", "conv3d",
 *   "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
 *   "sigmoid", "tanh", "relu", "leaky_relu" or "selu"
 * @param: the negative slope of "leaky_relu" (PyTorch's default is 0.01);
 *   ignored by the others
 * @error: return location for a #GError
 *
 * The recommended gain for a nonlinearity, as
 * torch.nn.init.calculate_gain: the factor that keeps the variance of the
 * activations through a layer.
 *
 * Returns: the gain, or 0 with @error set for an unknown nonlinearity
 *
 * Since: 0.1
 */
gdouble
dl_init_calculate_gain (const gchar *nonlinearity, gdouble param, GError **error)
{
  static const gchar *const linear[]
      = { "linear",           "conv1d",           "conv2d",  "conv3d", "conv_transpose1d",
          "conv_transpose2d", "conv_transpose3d", "sigmoid", NULL };

  g_return_val_if_fail (nonlinearity != NULL, 0);
  if (g_strv_contains (linear, nonlinearity))
    return 1.0;
  if (g_str_equal (nonlinearity, "tanh"))
    return 5.0 / 3;
  if (g_str_equal (nonlinearity, "relu"))
    return sqrt (2.0);
  if (g_str_equal (nonlinearity, "leaky_relu"))
    return sqrt (2.0 / (1 + param * param));
  if (g_str_equal (nonlinearity, "selu"))
    return 3.0 / 4;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "Unsupported nonlinearity %s", nonlinearity);
  return 0;
}

/**
 * dl_init_calculate_fan_in_and_fan_out:
 * @tensor: a weight of 2 or more dims ([out, in, k1, ...])
 * @fan_in: (out) (optional): size (1) times the receptive field
 * @fan_out: (out) (optional): size (0) times the receptive field
 * @error: return location for a #GError
 *
 * The fans of a weight, as torch.nn.init._calculate_fan_in_and_fan_out;
 * the receptive field is the product of the sizes past dim 1.
 *
 * Returns: %TRUE, or %FALSE with @error set for fewer than 2 dims
 *
 * Since: 0.1
 */
gboolean
dl_init_calculate_fan_in_and_fan_out (DlTensor *tensor,
                                      gint64 *fan_in,
                                      gint64 *fan_out,
                                      GError **error)
{
  gsize nd;
  const gint64 *shape;
  gint64 field = 1;

  g_return_val_if_fail (DL_IS_TENSOR (tensor), FALSE);
  shape = dl_tensor_get_shape (tensor, &nd);
  if (nd < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Fan in and fan out can not be computed for tensor with fewer than 2 "
                   "dimensions");
      return FALSE;
    }
  for (gsize i = 2; i < nd; i++)
    field *= shape[i];
  if (fan_in)
    *fan_in = shape[1] * field;
  if (fan_out)
    *fan_out = shape[0] * field;
  return TRUE;
}

/* ---- the fills ----------------------------------------------------------- */

/**
 * dl_init_uniform_:
 * @tensor: the tensor to fill
 * @a: the lower bound
 * @b: the upper bound
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @tensor with numbers drawn uniformly from [@a, @b), outside
 * autograd, as torch.nn.init.uniform_.
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_uniform_ (DlTensor *tensor, gdouble a, gdouble b, DlGenerator *generator, GError **error)
{
  gboolean was = dl_set_grad_enabled (FALSE);
  DlTensor *out = dl_tensor_uniform_gen_ (tensor, a, b, generator, error);

  dl_set_grad_enabled (was);
  return out;
}

/**
 * dl_init_normal_:
 * @tensor: the tensor to fill
 * @mean: the mean
 * @std: the standard deviation
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @tensor with numbers drawn from N(@mean, @std^2), outside
 * autograd, as torch.nn.init.normal_.
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_normal_ (DlTensor *tensor,
                 gdouble mean,
                 gdouble std,
                 DlGenerator *generator,
                 GError **error)
{
  gboolean was = dl_set_grad_enabled (FALSE);
  DlTensor *out = dl_tensor_normal_gen_ (tensor, mean, std, generator, error);

  dl_set_grad_enabled (was);
  return out;
}

/* the inverse of erf: Giles's single-precision approximation refined by
 * two Newton steps */
static gdouble
erfinv (gdouble y)
{
  gdouble w, p, x;

  if (y <= -1)
    return -INFINITY;
  if (y >= 1)
    return INFINITY;
  w = -log ((1.0 - y) * (1.0 + y));
  if (w < 5.0)
    {
      w -= 2.5;
      p = 2.81022636e-08;
      p = 3.43273939e-07 + p * w;
      p = -3.5233877e-06 + p * w;
      p = -4.39150654e-06 + p * w;
      p = 0.00021858087 + p * w;
      p = -0.00125372503 + p * w;
      p = -0.00417768164 + p * w;
      p = 0.246640727 + p * w;
      p = 1.50140941 + p * w;
    }
  else
    {
      w = sqrt (w) - 3.0;
      p = -0.000200214257;
      p = 0.000100950558 + p * w;
      p = 0.00134934322 + p * w;
      p = -0.00367342844 + p * w;
      p = 0.00573950773 + p * w;
      p = -0.0076224613 + p * w;
      p = 0.00943887047 + p * w;
      p = 1.00167406 + p * w;
      p = 2.83297682 + p * w;
    }
  x = p * y;
  for (int i = 0; i < 2; i++)
    x -= (erf (x) - y) / (M_2_SQRTPI * exp (-x * x));
  return x;
}

/* the values of a float64 tensor of @shape drawn uniformly from [0, 1)
 * (or with @normal from N(0, 1)), on the host */
static gdouble *
host_random (const gint64 *shape,
             gsize nd,
             gboolean normal,
             DlDType dtype,
             gdouble a,
             gdouble b,
             DlGenerator *generator,
             gsize *n,
             GError **error)
{
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) r64 = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize size;

  /* drawn in @dtype, as PyTorch draws into the tensor itself: the same
   * words of the stream, the same numbers */
  if (!dl_dtype_is_float (dtype))
    dtype = DL_DTYPE_FLOAT32;
  if (!(r = dl_empty (shape, nd, dtype, NULL, error))
      || !(normal ? dl_tensor_normal_gen_ (r, a, b, generator, error)
                  : dl_tensor_uniform_gen_ (r, a, b, generator, error))
      || !(r64 = dl_tensor_to_dtype (r, DL_DTYPE_FLOAT64, error))
      || !(bytes = dl_tensor_to_bytes (r64, error)))
    return NULL;
  *n = (gsize)dl_tensor_numel (r);
  return g_memdup2 (g_bytes_get_data (bytes, &size), *n * sizeof (gdouble));
}

/* copies @values (float64, @shape; taken) into @tensor */
static gboolean
copy_host_into (DlTensor *tensor, gdouble *values, gsize n, GError **error)
{
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (tensor, &nd);
  g_autoptr (GBytes) bytes = g_bytes_new_take (values, n * sizeof (gdouble));
  g_autoptr (DlTensor) src = dl_tensor_new_from_bytes (bytes, shape, nd, DL_DTYPE_FLOAT64, error);
  gboolean was, ok;

  if (!src)
    return FALSE;
  was = dl_set_grad_enabled (FALSE);
  ok = dl_tensor_copy_ (tensor, src, error) != NULL;
  dl_set_grad_enabled (was);
  return ok;
}

/**
 * dl_init_trunc_normal_:
 * @tensor: the tensor to fill
 * @mean: the mean of the normal distribution
 * @std: its standard deviation
 * @a: the lower bound
 * @b: the upper bound
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @tensor with numbers drawn from N(@mean, @std^2) truncated to
 * [@a, @b], outside autograd, as torch.nn.init.trunc_normal_ (by the
 * inverse CDF of a uniform draw).
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_trunc_normal_ (DlTensor *tensor,
                       gdouble mean,
                       gdouble std,
                       gdouble a,
                       gdouble b,
                       DlGenerator *generator,
                       GError **error)
{
  gsize nd, n;
  const gint64 *shape;
  gdouble lo, hi, *v;

  g_return_val_if_fail (DL_IS_TENSOR (tensor), NULL);
  shape = dl_tensor_get_shape (tensor, &nd);
  /* PyTorch's steps: the normal CDF of the bounds, l and u; uniforms in
   * [2 l - 1, 2 u - 1) drawn in the tensor's dtype; then erfinv, times
   * std sqrt 2, plus mean, clamped to [a, b] */
  lo = 2 * ((1 + erf ((a - mean) / std / M_SQRT2)) / 2) - 1;
  hi = 2 * ((1 + erf ((b - mean) / std / M_SQRT2)) / 2) - 1;
  if (!(v = host_random (shape, nd, FALSE, dl_tensor_get_dtype (tensor), lo, hi, generator, &n,
                         error)))
    return NULL;
  for (gsize i = 0; i < n; i++)
    v[i] = CLAMP (erfinv (v[i]) * (std * M_SQRT2) + mean, a, b);
  return copy_host_into (tensor, v, n, error) ? tensor : NULL;
}

/**
 * dl_init_xavier_uniform_:
 * @tensor: a weight of 2 or more dims
 * @gain: a scale (PyTorch's default is 1)
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Glorot initialisation, as torch.nn.init.xavier_uniform_: uniform in
 * [-b, b], b = @gain sqrt (6 / (fan_in + fan_out)).
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_xavier_uniform_ (DlTensor *tensor, gdouble gain, DlGenerator *generator, GError **error)
{
  gint64 fan_in, fan_out;
  gdouble bound;

  g_return_val_if_fail (DL_IS_TENSOR (tensor), NULL);
  if (!dl_init_calculate_fan_in_and_fan_out (tensor, &fan_in, &fan_out, error))
    return NULL;
  bound = sqrt (3.0) * gain * sqrt (2.0 / (gdouble)(fan_in + fan_out));
  return dl_init_uniform_ (tensor, -bound, bound, generator, error);
}

/**
 * dl_init_xavier_normal_:
 * @tensor: a weight of 2 or more dims
 * @gain: a scale (PyTorch's default is 1)
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Glorot initialisation, as torch.nn.init.xavier_normal_: N(0, std^2),
 * std = @gain sqrt (2 / (fan_in + fan_out)).
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_xavier_normal_ (DlTensor *tensor, gdouble gain, DlGenerator *generator, GError **error)
{
  gint64 fan_in, fan_out;

  g_return_val_if_fail (DL_IS_TENSOR (tensor), NULL);
  if (!dl_init_calculate_fan_in_and_fan_out (tensor, &fan_in, &fan_out, error))
    return NULL;
  return dl_init_normal_ (tensor, 0, gain * sqrt (2.0 / (gdouble)(fan_in + fan_out)), generator,
                          error);
}

/* kaiming's std, gain (nonlinearity, a) / sqrt (fan (mode)); 0 (nothing to
 * fill) for an empty tensor; -1 with @error set */
static gdouble
kaiming_std (DlTensor *tensor,
             gdouble a,
             const gchar *mode,
             const gchar *nonlinearity,
             GError **error)
{
  gint64 fan_in, fan_out;
  gdouble gain;

  if (!g_str_equal (mode, "fan_in") && !g_str_equal (mode, "fan_out"))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Mode %s not supported, please use one of fan_in, fan_out", mode);
      return -1;
    }
  if (dl_tensor_numel (tensor) == 0)
    return 0;
  if (!dl_init_calculate_fan_in_and_fan_out (tensor, &fan_in, &fan_out, error))
    return -1;
  gain = dl_init_calculate_gain (nonlinearity, a, error);
  if (gain == 0)
    return -1;
  return gain / sqrt ((gdouble)(g_str_equal (mode, "fan_in") ? fan_in : fan_out));
}

/* kaiming's fill: uniform in [-sqrt (3) std, sqrt (3) std] or N(0, std^2) */
static DlTensor *
kaiming_fill (DlTensor *tensor,
              gdouble a,
              const gchar *mode,
              const gchar *nonlinearity,
              gboolean uniform,
              DlGenerator *generator,
              GError **error)
{
  gdouble std;

  g_return_val_if_fail (DL_IS_TENSOR (tensor) && mode && nonlinearity, NULL);
  std = kaiming_std (tensor, a, mode, nonlinearity, error);
  if (std < 0)
    return NULL;
  if (dl_tensor_numel (tensor) == 0)
    return tensor;
  if (uniform)
    return dl_init_uniform_ (tensor, -sqrt (3.0) * std, sqrt (3.0) * std, generator, error);
  return dl_init_normal_ (tensor, 0, std, generator, error);
}

/**
 * dl_init_kaiming_uniform_:
 * @tensor: a weight of 2 or more dims
 * @a: the negative slope of the rectifier after the layer (for
 *   "leaky_relu"; PyTorch's default is 0)
 * @mode: "fan_in" (keeps the variance of the activations) or "fan_out"
 *   (of the gradients)
 * @nonlinearity: the nonlinearity after the layer, see
 *   dl_init_calculate_gain() (PyTorch's default is "leaky_relu")
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * He initialisation, as torch.nn.init.kaiming_uniform_: uniform in
 * [-b, b], b = gain sqrt (3 / fan). An empty tensor stays as it is.
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_kaiming_uniform_ (DlTensor *tensor,
                          gdouble a,
                          const gchar *mode,
                          const gchar *nonlinearity,
                          DlGenerator *generator,
                          GError **error)
{
  return kaiming_fill (tensor, a, mode, nonlinearity, TRUE, generator, error);
}

/**
 * dl_init_kaiming_normal_:
 * @tensor: a weight of 2 or more dims
 * @a: the negative slope of the rectifier after the layer (for
 *   "leaky_relu"; PyTorch's default is 0)
 * @mode: "fan_in" or "fan_out"
 * @nonlinearity: the nonlinearity after the layer (PyTorch's default is
 *   "leaky_relu")
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * He initialisation, as torch.nn.init.kaiming_normal_: N(0, std^2),
 * std = gain / sqrt (fan). An empty tensor stays as it is.
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_kaiming_normal_ (DlTensor *tensor,
                         gdouble a,
                         const gchar *mode,
                         const gchar *nonlinearity,
                         DlGenerator *generator,
                         GError **error)
{
  return kaiming_fill (tensor, a, mode, nonlinearity, FALSE, generator, error);
}

/* Q of the Householder QR of @m ([rows, cols], rows >= cols, row-major),
 * its columns signed so that R's diagonal is positive, into @q ([rows,
 * cols]). @m is overwritten. */
static void
householder_q (gdouble *m, gsize rows, gsize cols, gdouble *q)
{
  g_autofree gdouble *v = g_new0 (gdouble, rows * cols);
  g_autofree gdouble *sign = g_new0 (gdouble, cols);

  for (gsize k = 0; k < cols; k++)
    {
      gdouble norm = 0, vnorm = 0, alpha;
      gdouble *vk = v + k * rows;

      for (gsize i = k; i < rows; i++)
        norm += m[i * cols + k] * m[i * cols + k];
      norm = sqrt (norm);
      alpha = m[k * cols + k] > 0 ? -norm : norm;
      /* R[k, k] = alpha: Q's column k is multiplied by sign (alpha) */
      sign[k] = alpha < 0 ? -1 : 1;
      for (gsize i = k; i < rows; i++)
        vk[i] = m[i * cols + k];
      vk[k] -= alpha;
      for (gsize i = k; i < rows; i++)
        vnorm += vk[i] * vk[i];
      vnorm = sqrt (vnorm);
      if (vnorm == 0)
        continue;
      for (gsize i = k; i < rows; i++)
        vk[i] /= vnorm;
      /* m[k:, k:] -= 2 v (v^T m[k:, k:]) */
      for (gsize j = k; j < cols; j++)
        {
          gdouble dot = 0;
          for (gsize i = k; i < rows; i++)
            dot += vk[i] * m[i * cols + j];
          for (gsize i = k; i < rows; i++)
            m[i * cols + j] -= 2 * vk[i] * dot;
        }
    }
  /* Q = H_0 ... H_{cols-1} I[:, :cols] */
  memset (q, 0, rows * cols * sizeof (gdouble));
  for (gsize j = 0; j < cols; j++)
    q[j * cols + j] = 1;
  for (gsize k = cols; k-- > 0;)
    {
      gdouble *vk = v + k * rows;
      for (gsize j = 0; j < cols; j++)
        {
          gdouble dot = 0;
          for (gsize i = k; i < rows; i++)
            dot += vk[i] * q[i * cols + j];
          for (gsize i = k; i < rows; i++)
            q[i * cols + j] -= 2 * vk[i] * dot;
        }
    }
  for (gsize i = 0; i < rows; i++)
    for (gsize j = 0; j < cols; j++)
      q[i * cols + j] *= sign[j];
}

/**
 * dl_init_orthogonal_:
 * @tensor: a weight of 2 or more dims, seen as [size (0), numel / size (0)]
 * @gain: a scale (PyTorch's default is 1)
 * @generator: (nullable): the generator, or %NULL for the default one
 * @error: return location for a #GError
 *
 * Fills @tensor with a (semi-)orthogonal matrix times @gain, as
 * torch.nn.init.orthogonal_: its rows (or columns, when it is taller than
 * wide) are orthonormal, drawn uniformly (Haar) from the QR of a normal
 * matrix.
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_orthogonal_ (DlTensor *tensor, gdouble gain, DlGenerator *generator, GError **error)
{
  gsize rows, cols, tall, wide, n;
  g_autofree gdouble *m = NULL;
  g_autofree gdouble *q = NULL;
  gdouble *out;

  g_return_val_if_fail (DL_IS_TENSOR (tensor), NULL);
  if (dl_tensor_get_ndim (tensor) < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "orthogonal_: Only tensors with 2 or more dimensions are supported");
      return NULL;
    }
  if (dl_tensor_numel (tensor) == 0)
    return tensor;
  rows = (gsize)dl_tensor_get_size (tensor, 0, NULL);
  cols = (gsize)dl_tensor_numel (tensor) / rows;
  tall = MAX (rows, cols);
  wide = MIN (rows, cols);
  /* the QR of the tall one of the normal matrix and its transpose; the
   * normal numbers drawn (rows, cols) in the tensor's dtype, as PyTorch
   * draws them */
  if (!(m = host_random ((gint64[]){ (gint64)rows, (gint64)cols }, 2, TRUE,
                         dl_tensor_get_dtype (tensor), 0, 1, generator, &n, error)))
    return NULL;
  if (rows < cols)
    {
      g_autofree gdouble *t = g_new (gdouble, n);

      for (gsize i = 0; i < rows; i++)
        for (gsize j = 0; j < cols; j++)
          t[j * rows + i] = m[i * cols + j];
      memcpy (m, t, n * sizeof (gdouble));
    }
  q = g_new (gdouble, tall * wide);
  householder_q (m, tall, wide, q);
  out = g_new (gdouble, n);
  for (gsize i = 0; i < rows; i++)
    for (gsize j = 0; j < cols; j++)
      out[i * cols + j] = gain * (rows >= cols ? q[i * cols + j] : q[j * rows + i]);
  return copy_host_into (tensor, out, n, error) ? tensor : NULL;
}

/**
 * dl_init_eye_:
 * @tensor: a 2-d tensor
 * @error: return location for a #GError
 *
 * Fills @tensor with the identity matrix (ones on the main diagonal),
 * outside autograd, as torch.nn.init.eye_.
 *
 * Returns: (transfer none): @tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_init_eye_ (DlTensor *tensor, GError **error)
{
  g_autoptr (DlTensor) eye = NULL;
  gboolean was;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (tensor), NULL);
  if (dl_tensor_get_ndim (tensor) != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "eye_: Only tensors with 2 dimensions are supported");
      return NULL;
    }
  if (!(eye = dl_eye (dl_tensor_get_size (tensor, 0, NULL), dl_tensor_get_size (tensor, 1, NULL),
                      dl_tensor_get_dtype (tensor), NULL, error)))
    return NULL;
  was = dl_set_grad_enabled (FALSE);
  out = dl_tensor_copy_ (tensor, eye, error);
  dl_set_grad_enabled (was);
  return out;
}
