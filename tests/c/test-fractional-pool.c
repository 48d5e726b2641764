/* test-fractional-pool.c: dl_fractional_max_pool2d/3d on windows worked
 * out by hand from given samples, drawn samples, the gradient at the
 * maxima, and the errors.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dl-test-utils.h"

static DlTensor *
ramp (const gint64 *shape, gsize nd)
{
  gint64 n = dl_test_numel (shape, nd);
  g_autofree gdouble *v = g_new (gdouble, n);

  for (gint64 i = 0; i < n; i++)
    v[i] = (gdouble)i;
  return dl_test_tensor (v, shape, nd, DL_DTYPE_FLOAT64);
}

static void
test_windows (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = ramp (DL_TEST_SHAPE (1, 1, 5, 4));
  /* (w, h) samples: along the height 5 into 3 windows of 2, a = 1.5 and
   * u = 0.5 start them at 0, floor (2.25) - floor (0.75) = 2 and 3; along
   * the width 4 into 2, a = 2, at 0 and 2 */
  g_autoptr (DlTensor) u
      = dl_test_tensor ((gdouble[]){ 0.5, 0.5 }, DL_TEST_SHAPE (1, 1, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autofree gdouble *g = NULL;

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = dl_fractional_max_pool2d (x, (gint64[]){ 2, 2 }, (gint64[]){ 3, 2 }, u, &idx, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (1, 1, 3, 2));
  dl_test_assert_values (y, (gdouble[]){ 5, 7, 13, 15, 17, 19 }, 6, 0);
  dl_test_assert_values (idx, (gdouble[]){ 5, 7, 13, 15, 17, 19 }, 6, 0);
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (y)), ==,
                   "FractionalMaxPool2DBackward0");
  /* the gradient of the sum: 1 at each maximum, 0 elsewhere */
  loss = dl_tensor_sum (y, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g = dl_test_values (dl_tensor_get_grad (x));
  for (gint i = 0; i < 20; i++)
    g_assert_cmpfloat (g[i], ==, (i == 5 || i == 7 || i == 13 || i == 15 || i == 17 || i == 19));
}

static void
test_volume_and_drawn (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = ramp (DL_TEST_SHAPE (2, 3, 4, 4));
  g_autoptr (DlTensor) v = ramp (DL_TEST_SHAPE (1, 3, 3, 3));
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autofree gdouble *yv = NULL;
  g_autofree gdouble *iv = NULL;

  /* drawn samples: a ramp's maxima are the windows' last elements, at
   * their own flat positions */
  y = dl_fractional_max_pool2d (x, (gint64[]){ 2, 2 }, (gint64[]){ 2, 3 }, NULL, &idx, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (2, 3, 2, 3));
  yv = dl_test_values (y);
  iv = dl_test_values (idx);
  for (gint i = 0; i < 36; i++)
    g_assert_cmpfloat (yv[i], ==, iv[i] + 16 * (i / 6));
  /* a volume [C, T, H, W] in windows of 3 x 3 x 3 of 3 x 3 x 3: one each */
  z = dl_fractional_max_pool3d (v, (gint64[]){ 3, 3, 3 }, (gint64[]){ 1, 1, 1 }, NULL, NULL,
                                &error);
  g_assert_no_error (error);
  dl_test_assert_shape (z, DL_TEST_SHAPE (1, 1, 1, 1));
  dl_test_assert_values (z, (gdouble[]){ 26 }, 1, 0);
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = ramp (DL_TEST_SHAPE (1, 1, 5, 4));
  g_autoptr (DlTensor) flat = ramp (DL_TEST_SHAPE (5, 4));
  g_autoptr (DlTensor) u
      = dl_test_tensor ((gdouble[]){ 0.5, 0.5, 0.5 }, DL_TEST_SHAPE (1, 1, 3), DL_DTYPE_FLOAT64);

  g_assert_null (
      dl_fractional_max_pool2d (x, (gint64[]){ 3, 2 }, (gint64[]){ 4, 2 }, NULL, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "too large relative to input height"));
  g_clear_error (&error);
  g_assert_null (
      dl_fractional_max_pool2d (flat, (gint64[]){ 2, 2 }, (gint64[]){ 2, 2 }, NULL, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_null (
      dl_fractional_max_pool2d (x, (gint64[]){ 2, 2 }, (gint64[]){ 2, 2 }, u, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "_random_samples"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fractional-pool/windows", test_windows);
  g_test_add_func ("/fractional-pool/volume-and-drawn", test_volume_and_drawn);
  g_test_add_func ("/fractional-pool/errors", test_errors);
  return g_test_run ();
}
