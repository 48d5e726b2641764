/* test-autocast.c: autocast through the C API (libdl/ops/dl-ops-autocast.c):
 * the per-thread state and its defaults, the lower-precision casts of the
 * matrix products, linear and the convolutions with exact expected
 * values, float64 left alone, gradients reaching float32 weights, the
 * cache of the weights' casts, and dl_set_flush_denormal().
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

/* @v rounded to bfloat16 (round to nearest even), as a double */
static gdouble
to_bf16 (gdouble v)
{
  union
  {
    gfloat f;
    guint32 u;
  } x = { .f = (gfloat)v };
  guint32 lsb = (x.u >> 16) & 1;

  x.u = (x.u + 0x7fff + lsb) & 0xffff0000u;
  return x.f;
}

static void
test_state (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (dl_autocast_is_enabled (DL_DEVICE_TYPE_CPU));
  g_assert_false (dl_autocast_is_enabled (DL_DEVICE_TYPE_CUDA));
  g_assert_cmpint (dl_autocast_get_dtype (DL_DEVICE_TYPE_CPU), ==, DL_DTYPE_BFLOAT16);
  g_assert_cmpint (dl_autocast_get_dtype (DL_DEVICE_TYPE_CUDA), ==, DL_DTYPE_FLOAT16);
  g_assert_true (dl_autocast_is_cache_enabled ());

  dl_autocast_set_enabled (DL_DEVICE_TYPE_CPU, TRUE);
  g_assert_true (dl_autocast_is_enabled (DL_DEVICE_TYPE_CPU));
  g_assert_false (dl_autocast_is_enabled (DL_DEVICE_TYPE_CUDA));
  dl_autocast_set_enabled (DL_DEVICE_TYPE_CPU, FALSE);
  g_assert_false (dl_autocast_is_enabled (DL_DEVICE_TYPE_CPU));

  g_assert_true (dl_autocast_set_dtype (DL_DEVICE_TYPE_CPU, DL_DTYPE_FLOAT16, &error));
  g_assert_no_error (error);
  g_assert_cmpint (dl_autocast_get_dtype (DL_DEVICE_TYPE_CPU), ==, DL_DTYPE_FLOAT16);
  g_assert_false (dl_autocast_set_dtype (DL_DEVICE_TYPE_CPU, DL_DTYPE_INT32, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_assert_nonnull (strstr (error->message, "int32"));
  g_clear_error (&error);
  g_assert_cmpint (dl_autocast_get_dtype (DL_DEVICE_TYPE_CPU), ==, DL_DTYPE_FLOAT16);
  g_assert_true (dl_autocast_set_dtype (DL_DEVICE_TYPE_CPU, DL_DTYPE_BFLOAT16, NULL));

  g_assert_cmpint (dl_autocast_increment_nesting (), ==, 1);
  g_assert_cmpint (dl_autocast_increment_nesting (), ==, 2);
  g_assert_cmpint (dl_autocast_decrement_nesting (), ==, 1);
  g_assert_cmpint (dl_autocast_decrement_nesting (), ==, 0);
  g_assert_cmpint (dl_autocast_decrement_nesting (), ==, 0);

  dl_autocast_set_cache_enabled (FALSE);
  g_assert_false (dl_autocast_is_cache_enabled ());
  dl_autocast_set_cache_enabled (TRUE);
}

/* mm, matmul and addmm of float32 operands give bfloat16 results equal to
 * the products of the bfloat16-rounded operands, rounded */
static void
test_matmul (void)
{
  g_autoptr (GError) error = NULL;
  const gdouble av[] = { 1.001, 2.003, -3.007, 0.51, 1.7, 2.9 };
  const gdouble bv[] = { 0.333, -1.25, 2.0005, 0.75, 1.1, -0.9 };
  g_autoptr (DlTensor) a = dl_test_tensor (av, DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) b = dl_test_tensor (bv, DL_TEST_SHAPE (3, 2), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) a64 = dl_test_tensor (av, DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) b64 = dl_test_tensor (bv, DL_TEST_SHAPE (3, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) mm = NULL;
  g_autoptr (DlTensor) mat = NULL;
  g_autoptr (DlTensor) mm64 = NULL;
  g_autoptr (DlTensor) plain = NULL;
  g_autofree gdouble *got = NULL;
  gdouble want[4];

  for (gint i = 0; i < 2; i++)
    for (gint j = 0; j < 2; j++)
      {
        gdouble s = 0;

        for (gint k = 0; k < 3; k++)
          s += to_bf16 (av[i * 3 + k]) * to_bf16 (bv[k * 2 + j]);
        want[i * 2 + j] = to_bf16 (s);
      }

  dl_autocast_set_enabled (DL_DEVICE_TYPE_CPU, TRUE);
  mm = dl_tensor_mm (a, b, &error);
  g_assert_no_error (error);
  mat = dl_tensor_matmul (a, b, &error);
  g_assert_no_error (error);
  mm64 = dl_tensor_mm (a64, b64, &error);
  g_assert_no_error (error);
  dl_autocast_set_enabled (DL_DEVICE_TYPE_CPU, FALSE);
  plain = dl_tensor_mm (a, b, &error);
  g_assert_no_error (error);

  g_assert_cmpint (dl_tensor_get_dtype (mm), ==, DL_DTYPE_BFLOAT16);
  g_assert_cmpint (dl_tensor_get_dtype (mat), ==, DL_DTYPE_BFLOAT16);
  g_assert_cmpint (dl_tensor_get_dtype (mm64), ==, DL_DTYPE_FLOAT64);
  g_assert_cmpint (dl_tensor_get_dtype (plain), ==, DL_DTYPE_FLOAT32);
  got = dl_test_values (mm);
  for (gint i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (got[i], want[i], fabs (want[i]) * 0.008 + 1e-6);
}

/* linear under autocast: a bfloat16 output whose backward gives the
 * float32 weight and bias float32 gradients; the weight's cast is cached
 * and dropped by dl_autocast_clear_cache() */
static void
test_linear_grad (void)
{
  g_autoptr (GError) error = NULL;
  const gdouble xv[] = { 0.5, -1.0, 2.0, 1.5, 0.25, -0.75 };
  const gdouble wv[] = { 0.1, 0.2, 0.3, -0.4, 0.5, 0.6 };
  const gdouble bv[] = { 0.01, -0.02 };
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) w = dl_test_tensor (wv, DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) bias = dl_test_tensor (bv, DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) y2 = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autofree gdouble *gw = NULL;
  g_autofree gdouble *gb = NULL;
  DlTensor *grad;

  g_assert_true (dl_tensor_set_requires_grad (w, TRUE, NULL));
  g_assert_true (dl_tensor_set_requires_grad (bias, TRUE, NULL));
  dl_autocast_set_enabled (DL_DEVICE_TYPE_CPU, TRUE);
  dl_autocast_increment_nesting ();
  y = dl_tensor_linear (x, w, bias, &error);
  g_assert_no_error (error);
  y2 = dl_tensor_linear (x, w, bias, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (y), ==, DL_DTYPE_BFLOAT16);
  g_assert_cmpint (dl_tensor_get_dtype (y2), ==, DL_DTYPE_BFLOAT16);
  if (dl_autocast_decrement_nesting () == 0)
    dl_autocast_clear_cache ();
  dl_autocast_set_enabled (DL_DEVICE_TYPE_CPU, FALSE);

  loss = dl_tensor_sum (y, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  grad = dl_tensor_get_grad (w);
  g_assert_nonnull (grad);
  g_assert_cmpint (dl_tensor_get_dtype (grad), ==, DL_DTYPE_FLOAT32);
  /* d sum(x w^T + b) / d w[o, i] = sum over rows of x[:, i]; the inputs
   * are exact in bfloat16 */
  gw = dl_test_values (grad);
  for (gint o = 0; o < 2; o++)
    for (gint i = 0; i < 3; i++)
      g_assert_cmpfloat (gw[o * 3 + i], ==, xv[i] + xv[3 + i]);
  grad = dl_tensor_get_grad (bias);
  g_assert_cmpint (dl_tensor_get_dtype (grad), ==, DL_DTYPE_FLOAT32);
  gb = dl_test_values (grad);
  g_assert_cmpfloat (gb[0], ==, 2.0);
  g_assert_cmpfloat (gb[1], ==, 2.0);
}

static void
test_conv2d (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_ones (DL_TEST_SHAPE (1, 1, 3, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) w = dl_ones (DL_TEST_SHAPE (1, 1, 2, 2), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autofree gdouble *v = NULL;

  dl_autocast_set_enabled (DL_DEVICE_TYPE_CPU, TRUE);
  y = dl_conv2d (x, w, NULL, (gint64[]){ 1, 1 }, (gint64[]){ 0, 0 }, (gint64[]){ 1, 1 }, 1, &error);
  g_assert_no_error (error);
  /* an op off the lists keeps its dtype */
  z = dl_tensor_add (x, x, &error);
  g_assert_no_error (error);
  dl_autocast_set_enabled (DL_DEVICE_TYPE_CPU, FALSE);
  g_assert_cmpint (dl_tensor_get_dtype (y), ==, DL_DTYPE_BFLOAT16);
  g_assert_cmpint (dl_tensor_get_dtype (z), ==, DL_DTYPE_FLOAT32);
  dl_test_assert_shape (y, DL_TEST_SHAPE (1, 1, 2, 2));
  v = dl_test_values (y);
  for (gint i = 0; i < 4; i++)
    g_assert_cmpfloat (v[i], ==, 4.0);
}

/* with flushing on, a denormal float32 input reads as zero (and a
 * denormal result is zero); off, doubling it is exact */
static void
test_flush_denormal (void)
{
  const gdouble tiny[] = { 1e-40, 2e-39 };
  g_autoptr (DlTensor) t = dl_test_tensor (tiny, DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) on = NULL;
  g_autoptr (DlTensor) off = NULL;
  g_autofree gdouble *von = NULL;
  g_autofree gdouble *voff = NULL;

  volatile gfloat probe = 1e-40f;

  if (!dl_set_flush_denormal (TRUE))
    {
      g_test_skip ("no flush-to-zero mode on this CPU");
      return;
    }
  if (probe * 2.0f != 0.0f)
    {
      /* valgrind's CPU ignores the MXCSR modes */
      g_assert_true (dl_set_flush_denormal (FALSE));
      g_test_skip ("this CPU (an emulator?) ignores flush-to-zero");
      return;
    }
  on = dl_tensor_mul_scalar (t, 2.0, NULL);
  g_assert_true (dl_set_flush_denormal (FALSE));
  off = dl_tensor_mul_scalar (t, 2.0, NULL);
  von = dl_test_values (on);
  voff = dl_test_values (off);
  g_assert_cmpfloat (von[0], ==, 0.0);
  g_assert_cmpfloat (von[1], ==, 0.0);
  g_assert_cmpfloat (voff[0], ==, 2 * (gdouble)(gfloat)1e-40);
  g_assert_cmpfloat (voff[1], ==, 2 * (gdouble)(gfloat)2e-39);
  g_assert_cmpfloat (voff[0], >, 0.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/autocast/state", test_state);
  g_test_add_func ("/autocast/matmul", test_matmul);
  g_test_add_func ("/autocast/linear-grad", test_linear_grad);
  g_test_add_func ("/autocast/conv2d", test_conv2d);
  g_test_add_func ("/autocast/flush-denormal", test_flush_denormal);
  return g_test_run ();
}
