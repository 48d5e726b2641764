/* dl-ops-fractional-pool.c: fractional max pooling (Graham, "Fractional
 * Max-Pooling", 2014), as torch.nn.functional.fractional_max_pool2d/3d
 * compute it: each plane draws one number u in [0, 1) per spatial dim,
 * and along a dim of n into m windows of k, window i starts at
 *   floor ((i + u) a) - floor (u a),  a = (n - k) / (m - 1),
 * the last at n - k (computed in the input's precision, as PyTorch does,
 * so that the same u picks the same windows). The maxima are gathered
 * from the windows' flat positions; their node is max pooling's
 * (FractionalMaxPool2DBackward0, FractionalMaxPool3DBackward0), which adds
 * the gradient at each maximum.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-ops-fractional-pool.h"
#include "dl-ops-private.h"
#include "dl-ops-creation.h"
#include "dl-ops-index.h"
#include "dl-ops-reduce.h"
#include "dl-ops-shape.h"

/* the start of each of the @out windows of @k along a dim of @in, from
 * @u, in float (@single) or double arithmetic as PyTorch's float and
 * double kernels */
static void
window_starts (gdouble u, gboolean single, gint64 in, gint64 out, gint64 k, gint64 *starts)
{
  if (out > 1 && single)
    {
      const gfloat uf = (gfloat)u, alpha = (gfloat)(in - k) / (gfloat)(out - 1);

      for (gint64 i = 0; i < out - 1; i++)
        starts[i] = (gint64)(gint)(((gfloat)i + uf) * alpha) - (gint64)(gint)(uf * alpha);
    }
  else if (out > 1)
    {
      const gdouble alpha = (gdouble)(in - k) / (gdouble)(out - 1);

      for (gint64 i = 0; i < out - 1; i++)
        starts[i] = (gint64)(gint)(((gdouble)i + u) * alpha) - (gint64)(gint)(u * alpha);
    }
  if (out > 0)
    starts[out - 1] = in - k;
}

/* the samples: @given, checked to be [N, C, spatial], or drawn */
static DlTensor *
samples_for (const gchar *op, DlTensor *x, gint spatial, DlTensor *given, GError **error)
{
  const gint64 want[3] = { x->sizes[0], x->sizes[1], spatial };

  if (!given)
    return dl_rand (want, 3, x->dtype, dl_tensor_get_device (x), error);
  if (given->ndim != 3 || memcmp (given->sizes, want, sizeof want) != 0)
    {
      g_autofree gchar *ws = dl_shape_to_string (want, 3);
      g_autofree gchar *gs = dl_shape_to_string (given->sizes, given->ndim);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s(): expected _random_samples of shape %s (batch, channels, %d), got %s", op,
                   ws, spatial, gs);
      return NULL;
    }
  return g_object_ref (given);
}

/* the flat positions in its plane that each output position's window
 * covers, [N, C, outputs * window]: the planes' windows from their
 * samples @u ([N, C, spatial], as doubles); sizes as 3 dims, a 2-d
 * pooling's first of size 1 */
static gint64 *
window_positions (const gdouble *u,
                  gint spatial,
                  gint64 planes,
                  gboolean single,
                  const gint64 *in,
                  const gint64 *out,
                  const gint64 *k)
{
  const gint64 n_out = out[0] * out[1] * out[2], n_k = k[0] * k[1] * k[2];
  gint64 *pos = g_new (gint64, MAX (planes * n_out * n_k, 1));
  gint64 *starts[3];

  for (gint d = 0; d < 3; d++)
    starts[d] = g_new0 (gint64, MAX (out[d], 1));
  for (gint64 p = 0; p < planes; p++)
    {
      gint64 *w = pos + p * n_out * n_k;

      for (gint d = 3 - spatial; d < 3; d++)
        {
          /* PyTorch's samples: (w, h) for 2-d pooling, (t, h, w) for 3-d */
          gint s = spatial == 2 ? 2 - d : d;

          window_starts (u[p * spatial + s], single, in[d], out[d], k[d], starts[d]);
        }
      for (gint64 o0 = 0; o0 < out[0]; o0++)
        for (gint64 o1 = 0; o1 < out[1]; o1++)
          for (gint64 o2 = 0; o2 < out[2]; o2++)
            for (gint64 k0 = 0; k0 < k[0]; k0++)
              for (gint64 k1 = 0; k1 < k[1]; k1++)
                for (gint64 k2 = 0; k2 < k[2]; k2++)
                  *w++ = ((starts[0][o0] + k0) * in[1] + starts[1][o1] + k1) * in[2] + starts[2][o2]
                         + k2;
    }
  for (gint d = 0; d < 3; d++)
    g_free (starts[d]);
  return pos;
}

static gboolean
check_geometry (const gchar *op,
                gint spatial,
                const gint64 *in,
                const gint64 *kernel_size,
                const gint64 *output_size,
                GError **error)
{
  static const gchar *const dims[] = { "time", "height", "width" };

  for (gint d = 0; d < spatial; d++)
    {
      const gchar *dim = dims[3 - spatial + d];

      if (kernel_size[d] <= 0 || output_size[d] < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s(): the pool %s (%" G_GINT64_FORMAT
                       ") must be positive and the output %s (%" G_GINT64_FORMAT ") non-negative",
                       op, dim, kernel_size[d], dim, output_size[d]);
          return FALSE;
        }
      if (output_size[d] + kernel_size[d] - 1 > in[3 - spatial + d])
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s(): pool %s %" G_GINT64_FORMAT
                       " too large relative to input %s %" G_GINT64_FORMAT,
                       op, dim, kernel_size[d], dim, in[3 - spatial + d]);
          return FALSE;
        }
    }
  return TRUE;
}

/* fractional max pooling of @input's last @spatial dims */
static DlTensor *
fractional_pool (const gchar *op,
                 const gchar *name,
                 gint spatial,
                 DlTensor *input,
                 const gint64 *kernel_size,
                 const gint64 *output_size,
                 DlTensor *random_samples,
                 DlTensor **indices,
                 GError **error)
{
  const gint nd = input->ndim;
  const gboolean unbatched = nd == spatial + 1;
  gint64 in[3] = { 1, 1, 1 }, out[3] = { 1, 1, 1 }, k[3] = { 1, 1, 1 };
  gint64 n, c, plane = 1, n_out = 1, n_k = 1, oshape[5];
  g_autoptr (DlTensor) xb = NULL;
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) u64 = NULL;
  g_autoptr (GBytes) ubytes = NULL;
  g_autofree gint64 *pos = NULL;
  g_autoptr (DlTensor) idx_host = NULL;
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) x3 = NULL;
  g_autoptr (DlTensor) vals = NULL;
  g_autoptr (DlTensor) v4 = NULL;
  g_autoptr (DlTensor) arg = NULL;
  g_autoptr (DlTensor) i4 = NULL;
  g_autoptr (DlTensor) maxima = NULL;
  g_autoptr (DlTensor) at = NULL;
  g_autoptr (DlTensor) result = NULL;
  g_autoptr (DlTensor) positions = NULL;
  gboolean ok = FALSE, was;

  g_return_val_if_fail (random_samples == NULL || DL_IS_TENSOR (random_samples), NULL);
  g_return_val_if_fail (kernel_size != NULL && output_size != NULL, NULL);
  if (nd != spatial + 1 && nd != spatial + 2)
    {
      g_autofree gchar *s = dl_shape_to_string (input->sizes, input->ndim);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s(): Expected %dD or %dD tensor, but got: %s",
                   op, spatial + 1, spatial + 2, s);
      return NULL;
    }
  if (!dl_check_float_dtype (op, input, error))
    return NULL;
  for (gint i = nd - spatial - 1; i < nd; i++)
    if (input->sizes[i] == 0)
      {
        g_autofree gchar *s = dl_shape_to_string (input->sizes, input->ndim);

        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s(): Expected input to have non-zero size for non-batch dimensions, but "
                     "got %s with dimension %d being empty",
                     op, s, i);
        return NULL;
      }
  if (!(xb = unbatched ? dl_tensor_unsqueeze (input, 0, error) : g_object_ref (input)))
    return NULL;
  n = xb->sizes[0];
  c = xb->sizes[1];
  for (gint d = 0; d < spatial; d++)
    {
      in[3 - spatial + d] = xb->sizes[2 + d];
      out[3 - spatial + d] = output_size[d];
      k[3 - spatial + d] = kernel_size[d];
    }
  if (!check_geometry (op, spatial, in, kernel_size, output_size, error)
      || !(u = samples_for (op, xb, spatial, random_samples, error))
      || !(u64 = dl_tensor_to_dtype (u, DL_DTYPE_FLOAT64, error))
      || !(ubytes = dl_tensor_to_bytes (u64, error)))
    return NULL;
  for (gint d = 0; d < 3; d++)
    {
      plane *= in[d];
      n_out *= out[d];
      n_k *= k[d];
    }
  pos = window_positions (g_bytes_get_data (ubytes, NULL), spatial, n * c,
                          xb->dtype != DL_DTYPE_FLOAT64, in, out, k);
  if (!(idx_host
        = dl_tensor_new_from_data (pos, n * c * n_out * n_k * sizeof (gint64),
                                   (gint64[]){ n, c, n_out * n_k }, 3, DL_DTYPE_INT64, error))
      || !(idx = dl_tensor_to_device (idx_host, dl_tensor_get_device (xb), error)))
    return NULL;
  oshape[0] = n;
  oshape[1] = c;
  for (gint d = 0; d < spatial; d++)
    oshape[2 + d] = output_size[d];
  /* the values, without recording: max pooling's node records them */
  was = dl_set_grad_enabled (FALSE);
  ok = (x3 = dl_reshape_view (xb, (gint64[]){ n, c, plane }, 3, error))
       && (vals = dl_tensor_gather (x3, 2, idx, error))
       && (v4 = dl_reshape_view (vals, (gint64[]){ n, c, n_out, n_k }, 4, error))
       && (maxima = dl_tensor_max_dim (v4, 3, TRUE, &arg, error))
       && (i4 = dl_reshape_view (idx, (gint64[]){ n, c, n_out, n_k }, 4, error))
       && (at = dl_tensor_gather (i4, 3, arg, error))
       && (result = dl_reshape_view (maxima, oshape, spatial + 2, error))
       && (positions = dl_reshape_view (at, oshape, spatial + 2, error));
  dl_set_grad_enabled (was);
  if (!ok)
    return NULL;
  dl_max_pool_record (name, xb, result, positions, NULL);
  if (unbatched)
    {
      g_autoptr (DlTensor) o = dl_tensor_squeeze_dim (result, 0, error);

      if (o && indices)
        *indices = dl_tensor_squeeze_dim (positions, 0, error);
      return g_steal_pointer (&o);
    }
  if (indices)
    *indices = g_steal_pointer (&positions);
  return g_steal_pointer (&result);
}

/**
 * dl_fractional_max_pool2d:
 * @input: an image batch [N, C, H, W] (or one image [C, H, W])
 * @kernel_size: (array fixed-size=2): the window's height and width
 * @output_size: (array fixed-size=2): the output's height and width; each
 *   plus the window's size, less 1, at most the input's
 * @random_samples: (nullable): the numbers in [0, 1) that place each
 *   plane's windows, [N, C, 2] (for the width, then the height), as
 *   PyTorch's `_random_samples`; %NULL draws them from the default
 *   generator
 * @indices: (out) (optional) (transfer full): where to store each
 *   maximum's flat position in its plane (int64, the output's shape), as
 *   `return_indices=True` gives them
 * @error: return location for a #GError
 *
 * Fractional max pooling, as torch.nn.functional.fractional_max_pool2d():
 * windows of @kernel_size placed at pseudo-random, increasing positions,
 * as many as @output_size, each giving its maximum. Differentiable
 * (FractionalMaxPool2DBackward0: the gradient goes to each maximum).
 *
 * Returns: (transfer full): the pooled batch [N, C, oh, ow], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_fractional_max_pool2d (DlTensor *input,
                          const gint64 *kernel_size,
                          const gint64 *output_size,
                          DlTensor *random_samples,
                          DlTensor **indices,
                          GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return fractional_pool ("fractional_max_pool2d", "FractionalMaxPool2DBackward0", 2, input,
                          kernel_size, output_size, random_samples, indices, error);
}

/**
 * dl_fractional_max_pool3d:
 * @input: a volume batch [N, C, T, H, W] (or one volume [C, T, H, W])
 * @kernel_size: (array fixed-size=3): the window's depth, height and width
 * @output_size: (array fixed-size=3): the output's depth, height and
 *   width; each plus the window's size, less 1, at most the input's
 * @random_samples: (nullable): the numbers in [0, 1) that place each
 *   plane's windows, [N, C, 3] (for the depth, the height and the
 *   width), as PyTorch's `_random_samples`; %NULL draws them from the
 *   default generator
 * @indices: (out) (optional) (transfer full): where to store each
 *   maximum's flat position in its volume (int64, the output's shape)
 * @error: return location for a #GError
 *
 * Fractional max pooling over volumes, as
 * torch.nn.functional.fractional_max_pool3d(), with the windows of
 * dl_fractional_max_pool2d() along each dim. Differentiable
 * (FractionalMaxPool3DBackward0).
 *
 * Returns: (transfer full): the pooled batch [N, C, ot, oh, ow], or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_fractional_max_pool3d (DlTensor *input,
                          const gint64 *kernel_size,
                          const gint64 *output_size,
                          DlTensor *random_samples,
                          DlTensor **indices,
                          GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return fractional_pool ("fractional_max_pool3d", "FractionalMaxPool3DBackward0", 3, input,
                          kernel_size, output_size, random_samples, indices, error);
}
