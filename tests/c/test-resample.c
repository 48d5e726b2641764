/* test-resample.c: dl_pad, dl_avg_pool2d, dl_adaptive_avg_pool2d,
 * dl_interpolate, dl_dropout, DlConv2d:padding-mode and the pooling,
 * dropout, embedding, activation and Conv1d/ConvTranspose2d layers from C,
 * against values worked out by hand.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <string.h>

#include <dl.h>

#include "dl-test-utils.h"

/* 1 2 3 padded by 2 on the left and 1 on the right in each mode; the
 * gradient of sum: how often each element is read */
static void
test_pad_modes (void)
{
  static const gdouble expect[4][6] = {
    { 9, 9, 1, 2, 3, 9 },
    { 3, 2, 1, 2, 3, 2 },
    { 1, 1, 1, 2, 3, 3 },
    { 2, 3, 1, 2, 3, 1 },
  };
  static const gdouble grads[4][3] = {
    { 1, 1, 1 },
    { 1, 3, 2 },
    { 3, 1, 2 },
    { 2, 2, 2 },
  };

  for (gint mode = DL_PAD_CONSTANT; mode <= DL_PAD_CIRCULAR; mode++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 1, 2, 3 }, (gint64[]){ 1, 1, 3 }, 3,
                                               DL_DTYPE_FLOAT64);
      g_autoptr (DlTensor) y = NULL;
      g_autoptr (DlTensor) s = NULL;

      g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
      y = dl_pad (x, (gint64[]){ 2, 1 }, 2, mode, mode == DL_PAD_CONSTANT ? 9 : 0, &error);
      g_assert_no_error (error);
      dl_test_assert_values (y, expect[mode], 6, 0);
      s = dl_tensor_sum (y, &error);
      g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
      dl_test_assert_values (dl_tensor_get_grad (x), grads[mode], 3, 0);
    }
}

static void
test_pad_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_zeros ((gint64[]){ 2, 3, 4 }, 3, DL_DTYPE_FLOAT32, NULL, &error);

  g_assert_null (dl_pad (x, (gint64[]){ 4, 1 }, 2, DL_PAD_REFLECT, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "Padding size should be less than"));
  g_clear_error (&error);
  g_assert_null (dl_pad (x, (gint64[]){ 1, 1, 1 }, 3, DL_PAD_CONSTANT, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_pad (x, (gint64[]){ 1, 1, 1, 1, 1, 1 }, 6, DL_PAD_REPLICATE, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  g_assert_null (dl_pad (x, (gint64[]){ -3, -2 }, 2, DL_PAD_CONSTANT, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

/* 3x3 windows with stride 2 and padding 1 over 1..16 (4x4), without the
 * padding in the divisor; ceil_mode adds no window here */
static void
test_avg_pool2d (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_arange (1, 17, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) x4 = dl_tensor_reshape (x, (gint64[]){ 1, 1, 4, 4 }, 4, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) a = NULL;
  const gint64 k[2] = { 3, 3 }, s[2] = { 2, 2 }, p[2] = { 1, 1 };

  y = dl_avg_pool2d (x4, k, s, p, FALSE, FALSE, 0, &error);
  g_assert_no_error (error);
  /* windows rows {0,1} x cols {0,1}: (1+2+5+6)/4; {0,1}x{1,2,3}: (2+3+4+6+7+8)/6 ... */
  dl_test_assert_values (y, (gdouble[]){ 3.5, 5, 9.5, 11 }, 4, 1e-12);
  g_clear_object (&y);
  y = dl_avg_pool2d (x4, k, s, p, FALSE, TRUE, 0, &error);
  dl_test_assert_values (y, (gdouble[]){ 14.0 / 9, 30.0 / 9, 57.0 / 9, 99.0 / 9 }, 4, 1e-12);
  /* 4 into 3 bins: {0,1}, {1,2}, {2,3} on both axes */
  a = dl_adaptive_avg_pool2d (x4, (gint64[]){ 3, 1 }, &error);
  g_assert_no_error (error);
  dl_test_assert_values (a, (gdouble[]){ 4.5, 8.5, 12.5 }, 3, 1e-12);
  g_assert_null (dl_avg_pool2d (x4, k, s, (gint64[]){ 2, 2 }, FALSE, TRUE, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  /* the same bins, maxima: the bottom right of each, and where */
  {
    g_autoptr (DlTensor) idx = NULL;
    g_autoptr (DlTensor) m = dl_adaptive_max_pool2d (x4, (gint64[]){ 3, 1 }, &idx, &error);

    g_assert_no_error (error);
    dl_test_assert_values (m, (gdouble[]){ 8, 12, 16 }, 3, 0);
    dl_test_assert_values (idx, (gdouble[]){ 7, 11, 15 }, 3, 0);
  }
}

/* 1 2 to 4 elements: nearest repeats, linear (align_corners) steps by 1/3 */
static void
test_interpolate (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 1, 2 }, (gint64[]){ 1, 1, 2 }, 3,
                                           DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) n = NULL;
  g_autoptr (DlTensor) l = NULL;
  g_autoptr (DlTensor) s = NULL;

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  n = dl_interpolate (x, (gint64[]){ 4 }, 1, NULL, 0, DL_INTERPOLATE_NEAREST, FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (n, (gdouble[]){ 1, 1, 2, 2 }, 4, 0);
  l = dl_interpolate (x, (gint64[]){ 4 }, 1, NULL, 0, DL_INTERPOLATE_LINEAR, TRUE, &error);
  dl_test_assert_values (l, (gdouble[]){ 1, 4.0 / 3, 5.0 / 3, 2 }, 4, 1e-12);
  s = dl_tensor_sum (l, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 2, 2 }, 2, 1e-12);
  g_assert_null (
      dl_interpolate (x, (gint64[]){ 4, 4 }, 2, NULL, 0, DL_INTERPOLATE_BILINEAR, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
}

/* dropout from a seeded generator: the same seed, the same mask; the
 * kept fraction near 1 - p; each kept element scaled by 1 / (1 - p) */
static void
test_dropout (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlGenerator) gen = dl_generator_new (NULL, &error);
  g_autoptr (DlTensor) x = dl_ones ((gint64[]){ 100, 100 }, 2, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autofree gdouble *v = NULL;
  gint kept = 0;

  dl_generator_manual_seed (gen, 7);
  a = dl_dropout (x, 0.25, TRUE, gen, &error);
  g_assert_no_error (error);
  dl_generator_manual_seed (gen, 7);
  b = dl_dropout (x, 0.25, TRUE, gen, &error);
  g_assert_true (dl_tensor_equal (a, b, &error));
  v = dl_test_values (a);
  for (gint i = 0; i < 10000; i++)
    {
      g_assert_true (v[i] == 0 || G_APPROX_VALUE (v[i], 1 / 0.75, 1e-6));
      kept += v[i] != 0;
    }
  g_assert_cmpint (ABS (kept - 7500), <, 200);
  g_assert_true (dl_dropout (x, 0.25, FALSE, gen, &error) == x);
  g_object_unref (x);
  g_assert_null (dl_dropout (x, 1.5, TRUE, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* a 1x1 kernel of weight 1 with reflect padding: the reflected input */
static void
test_conv2d_padding_mode (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlModule) conv = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 1, 2, 3, 4 }, (gint64[]){ 1, 1, 2, 2 }, 4,
                                           DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) y = NULL;

  conv = g_initable_new (DL_TYPE_CONV2D, NULL, &error, "in-channels", (gint64)1, "out-channels",
                         (gint64)1, "kernel-height", (gint64)1, "kernel-width", (gint64)1,
                         "padding-height", (gint64)1, "padding-width", (gint64)1, "bias", FALSE,
                         "padding-mode", DL_PAD_REPLICATE, NULL);
  g_assert_no_error (error);
  dl_set_grad_enabled (FALSE);
  g_assert_true (dl_tensor_fill_ (dl_module_get_parameter (conv, "weight"), 1, &error) != NULL);
  dl_set_grad_enabled (TRUE);
  y = dl_module_forward (conv, x, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y, (gdouble[]){ 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4 }, 16, 0);
}

/* each new layer built from its properties, run forward and backward */
static void
test_layers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) img = dl_arange (1, 17, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) x = dl_tensor_reshape (img, (gint64[]){ 1, 1, 4, 4 }, 4, &error);
  g_autoptr (DlMaxPool2d) mp = dl_max_pool2d_layer_new ((gint64[]){ 2, 2 }, NULL, NULL, NULL,
                                                        FALSE, &error);
  g_autoptr (DlAvgPool2d) ap = dl_avg_pool2d_layer_new ((gint64[]){ 2, 2 }, NULL, NULL, FALSE,
                                                        TRUE, 0, &error);
  g_autoptr (DlAdaptiveAvgPool2d) aap = dl_adaptive_avg_pool2d_layer_new (1, -1, &error);
  g_autoptr (DlDropout) drop = dl_dropout_layer_new (0.5, FALSE, &error);
  g_autoptr (DlEmbedding) emb = dl_embedding_layer_new (5, 3, 0, &error);
  g_autoptr (DlElu) elu = dl_elu_new (1.0, FALSE);
  g_autoptr (DlHardtanh) ht = dl_hardtanh_new (-2, 2, FALSE, &error);
  g_autoptr (DlSoftplus) sp = dl_softplus_new (1, 20);
  g_autoptr (DlConv1d) c1 = dl_conv1d_layer_new (2, 3, 3, 1, 1, 1, 1, TRUE, &error);
  g_autoptr (DlConvTranspose2d) ct
      = dl_conv_transpose2d_layer_new (1, 2, (gint64[]){ 3, 3 }, (gint64[]){ 2, 2 }, NULL, 1,
                                       TRUE, &error);
  g_assert_no_error (error);

  {
    g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (mp), x, &error);
    dl_test_assert_values (y, (gdouble[]){ 6, 8, 14, 16 }, 4, 0);
  }
  {
    g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (ap), x, &error);
    dl_test_assert_values (y, (gdouble[]){ 3.5, 5.5, 11.5, 13.5 }, 4, 1e-6);
  }
  {
    g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (aap), x, &error);
    dl_test_assert_values (y, (gdouble[]){ 7, 8, 9, 10 }, 4, 1e-6);
  }
  {
    g_autoptr (DlTensor) y = NULL;

    dl_module_set_training (DL_MODULE (drop), FALSE);
    y = dl_module_forward (DL_MODULE (drop), x, &error);
    g_assert_true (y == x);
  }
  {
    g_autoptr (DlTensor) idx = dl_test_tensor ((gdouble[]){ 0, 2, 2 }, (gint64[]){ 3 }, 1,
                                               DL_DTYPE_INT64);
    g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (emb), idx, &error);
    g_autoptr (DlTensor) s = dl_tensor_sum (y, &error);
    g_autofree gdouble *grad = NULL;

    g_assert_no_error (error);
    g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
    grad = dl_test_values (dl_tensor_get_grad (dl_module_get_parameter (DL_MODULE (emb),
                                                                        "weight")));
    /* row 0 is padding: no gradient; row 2 read twice */
    g_assert_cmpfloat (grad[0], ==, 0);
    g_assert_cmpfloat (grad[6], ==, 2);
    g_assert_cmpfloat (grad[3], ==, 0);
  }
  {
    g_autoptr (DlTensor) v = dl_test_tensor ((gdouble[]){ -3, 0, 3 }, (gint64[]){ 3 }, 1,
                                             DL_DTYPE_FLOAT64);
    g_autoptr (DlTensor) e = dl_module_forward (DL_MODULE (elu), v, &error);
    g_autoptr (DlTensor) h = dl_module_forward (DL_MODULE (ht), v, &error);
    g_autoptr (DlTensor) p = dl_module_forward (DL_MODULE (sp), v, &error);

    dl_test_assert_values (e, (gdouble[]){ expm1 (-3.0), 0, 3 }, 3, 1e-12);
    dl_test_assert_values (h, (gdouble[]){ -2, 0, 2 }, 3, 0);
    dl_test_assert_values (p, (gdouble[]){ log1p (exp (-3.0)), log (2.0), log1p (exp (3.0)) }, 3,
                           1e-12);
  }
  {
    g_autoptr (DlTensor) seq = dl_randn ((gint64[]){ 2, 2, 5 }, 3, DL_DTYPE_FLOAT32, NULL, &error);
    g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (c1), seq, &error);
    g_autoptr (DlTensor) s = dl_tensor_sum (y, &error);

    dl_test_assert_shape (y, (gint64[]){ 2, 3, 5 }, 3);
    g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
    g_assert_nonnull (dl_tensor_get_grad (dl_module_get_parameter (DL_MODULE (c1), "weight")));
  }
  {
    g_autoptr (DlTensor) y = dl_module_forward (DL_MODULE (ct), x, &error);

    g_assert_no_error (error);
    dl_test_assert_shape (y, (gint64[]){ 1, 2, 9, 9 }, 4);
  }
  /* bad hyperparameters are construct errors naming the layer */
  g_assert_null (dl_dropout_layer_new (2, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "Dropout"));
  g_clear_error (&error);
  g_assert_null (dl_conv1d_layer_new (3, 4, 3, 1, 0, 1, 2, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_embedding_layer_new (3, 2, 3, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/resample/pad-modes", test_pad_modes);
  g_test_add_func ("/resample/pad-errors", test_pad_errors);
  g_test_add_func ("/resample/avg-pool2d", test_avg_pool2d);
  g_test_add_func ("/resample/interpolate", test_interpolate);
  g_test_add_func ("/resample/dropout", test_dropout);
  g_test_add_func ("/resample/conv2d-padding-mode", test_conv2d_padding_mode);
  g_test_add_func ("/resample/layers", test_layers);
  return g_test_run ();
}
