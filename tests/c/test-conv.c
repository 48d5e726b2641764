/* test-conv.c: dl_conv2d, dl_conv3d, dl_unfold/dl_fold, the 3-d pooling,
 * max_unpool, the pixel shuffles and DlConv2d and DlConv3d from C, against
 * values worked out by hand.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dl.h>

#include "dl-test-utils.h"

/* a 3x3 image 1..9 and the 2x2 kernel [[1, 0], [0, -1]]: each output is
 * x[i][j] - x[i+1][j+1] = -4; with padding 1 the corners see one tap */
static void
test_conv2d_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 1, 2, 3, 4, 5, 6, 7, 8, 9 },
                                           (gint64[]){ 1, 1, 3, 3 }, 4, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) w = dl_test_tensor ((gdouble[]){ 1, 0, 0, -1 }, (gint64[]){ 1, 1, 2, 2 },
                                           4, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) b = dl_test_tensor ((gdouble[]){ 0.5 }, (gint64[]){ 1 }, 1,
                                           DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) yp = NULL;
  g_autoptr (DlTensor) s = NULL;
  const gint64 one[2] = { 1, 1 }, zero[2] = { 0, 0 };

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = dl_conv2d (x, w, b, one, zero, one, 1, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y, (gdouble[]){ -3.5, -3.5, -3.5, -3.5 }, 4, 0);
  yp = dl_conv2d (x, w, NULL, one, one, one, 1, &error);
  g_assert_no_error (error);
  /* 4x4: first row: -x[0][0], -x[0][1], -x[0][2], 0 ... */
  dl_test_assert_values (yp,
                         (gdouble[]){ -1, -2, -3, 0, -4, -4, -4, 3, -7, -4, -4, 6, 0, 7, 8, 9 },
                         16, 0);
  /* d sum(y) / dx: each tap of the kernel over the 2x2 windows */
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 1, 1, 0, 1, 0, -1, 0, -1, -1 }, 9,
                         0);
}

/* The fused conv2d (groups 1, one ConvolutionBackward0 node) against
 * direct loops over every output and tap: the output, and the gradients of
 * sum (y * g) for the input, the weight and the bias, in float32 and
 * float64, for a batch larger than the threads, 3 x 3 padded, strided and
 * dilated windows, a 1 x 1 one whose columns are the image and the 3 x 3
 * ones Winograd's transforms compute. */
static void
check_conv2d_fused (DlDType dtype,
                    gint64 n,
                    gint64 c,
                    gint64 h,
                    gint64 wd,
                    gint64 o,
                    gint64 k,
                    gint64 st,
                    gint64 pad,
                    gint64 dil)
{
  g_autoptr (GError) error = NULL;
  const gint64 oh = (h + 2 * pad - dil * (k - 1) - 1) / st + 1;
  const gint64 ow = (wd + 2 * pad - dil * (k - 1) - 1) / st + 1;
  const gint64 nx = n * c * h * wd, nw = o * c * k * k, ny = n * o * oh * ow;
  const gint64 stride[2] = { st, st }, padding[2] = { pad, pad }, dilation[2] = { dil, dil };
  g_autofree gdouble *xv = dl_test_random_values (nx);
  g_autofree gdouble *wv = dl_test_random_values (nw);
  g_autofree gdouble *bv = dl_test_random_values (o);
  g_autofree gdouble *gv = dl_test_random_values (ny);
  g_autofree gdouble *y = g_new0 (gdouble, ny);
  g_autofree gdouble *dx = g_new0 (gdouble, nx);
  g_autofree gdouble *dw = g_new0 (gdouble, nw);
  g_autofree gdouble *db = g_new0 (gdouble, o);
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (n, c, h, wd), dtype);
  g_autoptr (DlTensor) w = dl_test_tensor (wv, DL_TEST_SHAPE (o, c, k, k), dtype);
  g_autoptr (DlTensor) b = dl_test_tensor (bv, DL_TEST_SHAPE (o), dtype);
  g_autoptr (DlTensor) g = dl_test_tensor (gv, DL_TEST_SHAPE (n, o, oh, ow), dtype);
  g_autoptr (DlTensor) out = NULL;
  const gdouble tol = dtype == DL_DTYPE_FLOAT32 ? 1e-4 : 1e-10;

  for (gint64 i = 0; i < n; i++)
    for (gint64 f = 0; f < o; f++)
      for (gint64 yy = 0; yy < oh; yy++)
        for (gint64 xx = 0; xx < ow; xx++)
          {
            const gint64 at = ((i * o + f) * oh + yy) * ow + xx;

            y[at] = bv[f];
            db[f] += gv[at];
            for (gint64 ch = 0; ch < c; ch++)
              for (gint64 ki = 0; ki < k; ki++)
                for (gint64 kj = 0; kj < k; kj++)
                  {
                    const gint64 iy = yy * st - pad + ki * dil, ix = xx * st - pad + kj * dil;
                    const gint64 wi = ((f * c + ch) * k + ki) * k + kj;
                    const gint64 xi = ((i * c + ch) * h + iy) * wd + ix;

                    if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                      continue;
                    y[at] += wv[wi] * xv[xi];
                    dx[xi] += wv[wi] * gv[at];
                    dw[wi] += xv[xi] * gv[at];
                  }
          }
  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  g_assert_true (dl_tensor_set_requires_grad (w, TRUE, &error));
  g_assert_true (dl_tensor_set_requires_grad (b, TRUE, &error));
  out = dl_conv2d (x, w, b, stride, padding, dilation, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (out)), ==, "ConvolutionBackward0");
  dl_test_assert_values (out, y, ny, tol);
  g_assert_true (dl_tensor_backward (out, g, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), dx, nx, tol);
  dl_test_assert_values (dl_tensor_get_grad (w), dw, nw, tol);
  dl_test_assert_values (dl_tensor_get_grad (b), db, o, tol);
}

static void
test_conv2d_fused (void)
{
  for (gint d = 0; d < 2; d++)
    {
      DlDType dtype = d ? DL_DTYPE_FLOAT64 : DL_DTYPE_FLOAT32;

      check_conv2d_fused (dtype, 5, 3, 7, 6, 4, 3, 1, 1, 1);
      check_conv2d_fused (dtype, 1, 2, 9, 8, 3, 3, 2, 1, 2);
      check_conv2d_fused (dtype, 3, 4, 5, 5, 6, 1, 1, 0, 1);
      /* 8 channels or more: Winograd, padding 1, 0 and 3 (whose input
       * gradient goes through the columns) */
      check_conv2d_fused (dtype, 3, 8, 7, 6, 9, 3, 1, 1, 1);
      check_conv2d_fused (dtype, 2, 10, 5, 5, 8, 3, 1, 0, 1);
      check_conv2d_fused (dtype, 1, 8, 4, 5, 8, 3, 1, 3, 1);
    }
}

/* fold (unfold (x)) counts how many windows cover each element */
static void
test_unfold_fold (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) ones = dl_ones ((gint64[]){ 1, 1, 3, 3 }, 4, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) back = NULL;
  const gint64 k[2] = { 2, 2 }, one[2] = { 1, 1 }, zero[2] = { 0, 0 }, size[2] = { 3, 3 };

  gsize nd;

  cols = dl_unfold (ones, k, one, zero, one, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_shape (cols, &nd)[1], ==, 4);
  g_assert_cmpint (dl_tensor_get_shape (cols, &nd)[2], ==, 4);
  back = dl_fold (cols, size, k, one, zero, one, &error);
  g_assert_no_error (error);
  dl_test_assert_values (back, (gdouble[]){ 1, 2, 1, 2, 4, 2, 1, 2, 1 }, 9, 0);
}

static void
test_conv2d_layer (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlConv2d) conv = NULL;
  g_autoptr (DlConv2d) bad = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) s = NULL;
  const gint64 k[2] = { 3, 3 }, two[2] = { 2, 2 }, one[2] = { 1, 1 };
  gsize nd;
  const gint64 *shape;

  conv = dl_conv2d_layer_new (4, 6, k, two, one, NULL, 2, TRUE, &error);
  g_assert_no_error (error);
  shape = dl_tensor_get_shape (dl_module_get_parameter (DL_MODULE (conv), "weight"), &nd);
  g_assert_cmpuint (nd, ==, 4);
  g_assert_cmpint (shape[0], ==, 6);
  g_assert_cmpint (shape[1], ==, 2);
  x = dl_randn ((gint64[]){ 2, 4, 9, 9 }, 4, DL_DTYPE_FLOAT32, NULL, &error);
  y = dl_module_forward (DL_MODULE (conv), x, &error);
  g_assert_no_error (error);
  shape = dl_tensor_get_shape (y, &nd);
  g_assert_cmpint (shape[1], ==, 6);
  g_assert_cmpint (shape[2], ==, 5);
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_nonnull (dl_tensor_get_grad (dl_module_get_parameter (DL_MODULE (conv), "bias")));

  /* buffers: in the state dict when persistent */
  {
    g_autoptr (DlTensor) steps = dl_zeros ((gint64[]){ 1 }, 1, DL_DTYPE_INT64, NULL, &error);
    g_autoptr (DlTensor) scratch = dl_zeros ((gint64[]){ 2 }, 1, DL_DTYPE_FLOAT32, NULL, &error);
    g_autoptr (DlTensorDict) state = NULL;
    g_autoptr (GPtrArray) buffers = NULL;
    g_auto (GStrv) names = NULL;

    dl_module_register_buffer (DL_MODULE (conv), "steps", steps, TRUE);
    dl_module_register_buffer (DL_MODULE (conv), "scratch", scratch, FALSE);
    g_assert_true (dl_module_get_buffer (DL_MODULE (conv), "steps") == steps);
    g_assert_true (dl_module_has_buffer (DL_MODULE (conv), "scratch"));
    buffers = dl_module_buffers (DL_MODULE (conv));
    g_assert_cmpuint (buffers->len, ==, 2);
    state = dl_module_state_dict (DL_MODULE (conv));
    g_assert_nonnull (dl_tensor_dict_lookup (state, "steps"));
    g_assert_null (dl_tensor_dict_lookup (state, "scratch"));
    names = dl_module_buffer_names (DL_MODULE (conv));
    g_assert_cmpstr (names[1], ==, "scratch");
  }

  /* channels not divisible by groups, and a wrong input */
  bad = dl_conv2d_layer_new (5, 6, k, NULL, NULL, NULL, 2, TRUE, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "divisible by groups"));
  g_clear_error (&error);
  {
    g_autoptr (DlTensor) wrong = dl_randn ((gint64[]){ 1, 3, 9, 9 }, 4, DL_DTYPE_FLOAT32, NULL,
                                           NULL);
    g_assert_null (dl_module_forward (DL_MODULE (conv), wrong, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_assert_nonnull (strstr (error->message, "to have 4 channels, but got 3"));
  }
}

/* 2x2 windows over 1..9: the maxima and where they are */
static void
test_max_pool2d (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 1, 2, 3, 4, 5, 6, 7, 8, 9 },
                                           (gint64[]){ 1, 1, 3, 3 }, 4, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) s = NULL;
  const gint64 k[2] = { 2, 2 }, one[2] = { 1, 1 }, zero[2] = { 0, 0 };

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = dl_max_pool2d (x, k, one, zero, one, FALSE, &idx, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y, (gdouble[]){ 5, 6, 8, 9 }, 4, 0);
  dl_test_assert_values (idx, (gdouble[]){ 4, 5, 7, 8 }, 4, 0);
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 0, 0, 0, 0, 1, 1, 0, 1, 1 }, 9, 0);
  g_assert_null (dl_max_pool2d (x, (gint64[]){ 4, 4 }, one, zero, one, FALSE, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

/* without indices asked for, the ops layer lets the backend pool without
 * them (the CUDA module's cuDNN path) unless a gradient is recorded: the
 * maxima are the same either way (NaN winning, -inf padding, ceil mode's
 * last window), and a recorded gradient still finds its positions */
static void
test_max_pool2d_no_indices (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor (
      (gdouble[]){ -1, -7, 3, -4, NAN, -6, -2, 8, -9, 0, -3, -5, 2, -8, 1, -2, -4, 6, -1, 5 },
      (gint64[]){ 1, 1, 4, 5 }, 4, DL_DTYPE_FLOAT64);
  const gint64 k[2] = { 3, 3 }, s2[2] = { 2, 2 }, one[2] = { 1, 1 };
  /* windows 3x3, stride 2, padding 1, ceil mode: out 3 x 3, the last row
   * and column of windows from ceil mode */
  const gdouble expected[9] = { -1, 8, NAN, -2, 8, 5, -2, 6, 5 };

  for (int grad = 0; grad < 2; grad++)
    {
      g_autoptr (DlTensor) with = NULL;
      g_autoptr (DlTensor) idx = NULL;
      g_autoptr (DlTensor) without = NULL;
      g_autoptr (DlTensor) sum = NULL;

      g_assert_true (dl_tensor_set_requires_grad (x, grad, &error));
      with = dl_max_pool2d (x, k, s2, one, one, TRUE, &idx, &error);
      g_assert_no_error (error);
      without = dl_max_pool2d (x, k, s2, one, one, TRUE, NULL, &error);
      g_assert_no_error (error);
      for (DlTensor **t = (DlTensor *[]){ with, without }, **end = t + 2; t < end; t++)
        {
          g_autofree gdouble *v = dl_test_values (*t);

          for (int i = 0; i < 9; i++)
            if (isnan (expected[i]))
              g_assert_true (isnan (v[i]));
            else
              g_assert_cmpfloat (v[i], ==, expected[i]);
        }
      dl_test_assert_values (idx, (gdouble[]){ 0, 7, 4, 6, 7, 19, 15, 17, 19 }, 9, 0);
      g_assert_cmpint (dl_tensor_get_requires_grad (without), ==, grad);
      if (!grad)
        continue;
      /* the gradient of the pooling without indices: each output's 1 at
       * its window's maximum */
      sum = dl_tensor_sum (without, &error);
      g_assert_true (dl_tensor_backward (sum, NULL, FALSE, FALSE, &error));
      g_assert_no_error (error);
      dl_test_assert_values (
          dl_tensor_get_grad (x),
          (gdouble[]){ 1, 0, 0, 0, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 2 }, 20, 0);
    }
}

/* conv3d of the 2x2x2 volume 1..8: by a kernel of ones, the sum 36 (plus
 * the bias), and d sum / dx all ones; with padding 1 the corner output
 * sees the corner element alone. conv_transpose3d is its adjoint:
 * <conv3d (x, w), y> = <x, conv_transpose3d (y, w)>. */
static void
test_conv3d (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 1, 2, 3, 4, 5, 6, 7, 8 },
                                           (gint64[]){ 1, 1, 2, 2, 2 }, 5, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) w = dl_test_tensor ((gdouble[]){ 1, 1, 1, 1, 1, 1, 1, 1 },
                                           (gint64[]){ 1, 1, 2, 2, 2 }, 5, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) w3
      = dl_test_tensor ((gdouble[]){ 1, 1, 1, 1 }, (gint64[]){ 1, 1, 2, 2 }, 4, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) b
      = dl_test_tensor ((gdouble[]){ 0.5 }, (gint64[]){ 1 }, 1, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) yp = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) two
      = dl_test_tensor ((gdouble[]){ 2 }, (gint64[]){ 1, 1, 1, 1, 1 }, 5, DL_DTYPE_FLOAT64);
  const gint64 one[3] = { 1, 1, 1 }, zero[3] = { 0, 0, 0 };

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = dl_conv3d (x, w, b, one, zero, one, 1, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, (gint64[]){ 1, 1, 1, 1, 1 }, 5);
  dl_test_assert_values (y, (gdouble[]){ 36.5 }, 1, 0);
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 1, 1, 1, 1, 1, 1, 1, 1 }, 8, 0);
  yp = dl_conv3d (x, w, NULL, one, one, one, 1, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (yp, (gint64[]){ 1, 1, 3, 3, 3 }, 5);
  {
    g_autofree gdouble *v = dl_test_values (yp);
    g_assert_cmpfloat (v[0], ==, 1);
    g_assert_cmpfloat (v[13], ==, 36);
    g_assert_cmpfloat (v[26], ==, 8);
  }
  /* the transposed convolution of one element 2 by w: 2 w */
  t = dl_conv_transpose3d (two, x, NULL, one, zero, zero, 1, one, &error);
  g_assert_no_error (error);
  dl_test_assert_values (t, (gdouble[]){ 2, 4, 6, 8, 10, 12, 14, 16 }, 8, 0);
  /* a 4-d weight for a 5-d input, and a kernel deeper than the input */
  g_assert_null (dl_conv3d (x, w3, NULL, one, zero, one, 1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_null (dl_conv3d (x, w, NULL, (gint64[]){ 1, 0, 1 }, zero, one, 1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* max and average pooling of a 2x2x2 volume (its maximum 9 at position
 * 5), max_unpool putting it back, and the pixel shuffles */
static void
test_pool3d (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 3, 1, 4, 1, 5, 9, 2, 6 },
                                           (gint64[]){ 1, 1, 2, 2, 2 }, 5, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) ps = NULL;
  g_autoptr (DlTensor) back = NULL;
  g_autoptr (DlTensor) c4
      = dl_test_tensor ((gdouble[]){ 1, 2, 3, 4 }, (gint64[]){ 1, 4, 1, 1 }, 4, DL_DTYPE_FLOAT32);
  const gint64 k[3] = { 2, 2, 2 }, one[3] = { 1, 1, 1 }, zero[3] = { 0, 0, 0 };

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  m = dl_max_pool3d (x, k, k, zero, one, FALSE, &idx, &error);
  g_assert_no_error (error);
  dl_test_assert_values (m, (gdouble[]){ 9 }, 1, 0);
  dl_test_assert_values (idx, (gdouble[]){ 5 }, 1, 0);
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (m)), ==,
                   "MaxPool3DWithIndicesBackward0");
  s = dl_tensor_sum (m, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 0, 0, 0, 0, 0, 1, 0, 0 }, 8, 0);
  a = dl_avg_pool3d (x, k, k, zero, FALSE, TRUE, 0, &error);
  g_assert_no_error (error);
  dl_test_assert_values (a, (gdouble[]){ 31.0 / 8 }, 1, 1e-6);
  u = dl_max_unpool (m, idx, (gint64[]){ 2, 2, 2 }, 3, &error);
  g_assert_no_error (error);
  dl_test_assert_values (u, (gdouble[]){ 0, 0, 0, 0, 0, 9, 0, 0 }, 8, 0);
  g_assert_null (dl_max_unpool (m, idx, (gint64[]){ 1, 1, 1 }, 3, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_max_pool3d (x, (gint64[]){ 3, 3, 3 }, k, zero, one, FALSE, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  /* [1, 4, 1, 1] -> [1, 1, 2, 2] and back */
  ps = dl_tensor_pixel_shuffle (c4, 2, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (ps, (gint64[]){ 1, 1, 2, 2 }, 4);
  dl_test_assert_values (ps, (gdouble[]){ 1, 2, 3, 4 }, 4, 0);
  back = dl_tensor_pixel_unshuffle (ps, 2, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (back, (gint64[]){ 1, 4, 1, 1 }, 4);
  g_assert_null (dl_tensor_pixel_shuffle (ps, 2, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

/* DlConv3d: its parameters' shapes, forward, and a bad kernel refused */
static void
test_conv3d_layer (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 k[3] = { 3, 1, 2 }, one[3] = { 1, 1, 1 }, zero[3] = { 0, 0, 0 };
  g_autoptr (DlConv3d) conv = dl_conv3d_layer_new (2, 4, k, one, zero, one, 2, TRUE, &error);
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlConv3d) bad = NULL;

  g_assert_no_error (error);
  dl_test_assert_shape (dl_module_get_parameter (DL_MODULE (conv), "weight"),
                        (gint64[]){ 4, 1, 3, 1, 2 }, 5);
  dl_test_assert_shape (dl_module_get_parameter (DL_MODULE (conv), "bias"), (gint64[]){ 4 }, 1);
  x = dl_zeros ((gint64[]){ 2, 2, 5, 4, 3 }, 5, DL_DTYPE_FLOAT32, NULL, &error);
  y = dl_module_forward (DL_MODULE (conv), x, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, (gint64[]){ 2, 4, 3, 4, 2 }, 5);
  bad = dl_conv3d_layer_new (2, 4, (gint64[]){ 3, 0, 2 }, one, zero, one, 1, TRUE, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* DlMaxPool3d and DlAvgPool3d: the stride defaults to the kernel, and a
 * bad window is the construct error */
static void
test_pool3d_layers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 3, 1, 4, 1, 5, 9, 2, 6 },
                                           (gint64[]){ 1, 2, 2, 2 }, 4, DL_DTYPE_FLOAT64);
  g_autoptr (DlModule) mp
      = g_initable_new (DL_TYPE_MAX_POOL3D, NULL, &error, "kernel-depth", (gint64)1,
                        "kernel-height", (gint64)2, "kernel-width", (gint64)2, NULL);
  g_autoptr (DlModule) ap = g_initable_new (DL_TYPE_AVG_POOL3D, NULL, &error, "kernel-depth",
                                            (gint64)2, "kernel-height", (gint64)1, "kernel-width",
                                            (gint64)2, "divisor-override", (gint64)2, NULL);
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (GObject) bad = NULL;

  g_assert_no_error (error);
  m = dl_module_forward (mp, x, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (m, (gint64[]){ 1, 2, 1, 1 }, 4);
  dl_test_assert_values (m, (gdouble[]){ 4, 9 }, 2, 0);
  a = dl_module_forward (ap, x, &error);
  g_assert_no_error (error);
  dl_test_assert_values (a, (gdouble[]){ 9, 6.5 }, 2, 0);
  bad = g_initable_new (DL_TYPE_MAX_POOL3D, NULL, &error, "kernel-depth", (gint64)1,
                        "kernel-height", (gint64)2, "kernel-width", (gint64)2, "dilation-depth",
                        (gint64)0, NULL);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/conv/conv2d-values", test_conv2d_values);
  g_test_add_func ("/conv/unfold-fold", test_unfold_fold);
  g_test_add_func ("/conv/conv2d-fused", test_conv2d_fused);
  g_test_add_func ("/conv/layer", test_conv2d_layer);
  g_test_add_func ("/conv/max-pool2d", test_max_pool2d);
  g_test_add_func ("/conv/max-pool2d-no-indices", test_max_pool2d_no_indices);
  g_test_add_func ("/conv/conv3d", test_conv3d);
  g_test_add_func ("/conv/pool3d", test_pool3d);
  g_test_add_func ("/conv/conv3d-layer", test_conv3d_layer);
  g_test_add_func ("/conv/pool3d-layers", test_pool3d_layers);
  return g_test_run ();
}
