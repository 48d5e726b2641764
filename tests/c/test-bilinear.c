/* test-bilinear.c: dl_bilinear against the sum it defines, its gradients
 * (all four inputs, by finite differences) and errors; the DlBilinear
 * layer (parameters, forward_many, construct errors); DlBatchNorm3d's
 * rank check and statistics.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"
#include "dl-test-gradcheck.h"

/* y[n, o] = sum_ij x1[n, i] w[o, i, j] x2[n, j] + b[o], by loops */
static void
bilinear_reference (const gdouble *x1,
                    const gdouble *x2,
                    const gdouble *w,
                    const gdouble *b,
                    gint64 rows,
                    gint64 in1,
                    gint64 in2,
                    gint64 out,
                    gdouble *y)
{
  for (gint64 n = 0; n < rows; n++)
    for (gint64 o = 0; o < out; o++)
      {
        gdouble s = b ? b[o] : 0;

        for (gint64 i = 0; i < in1; i++)
          for (gint64 j = 0; j < in2; j++)
            s += x1[n * in1 + i] * w[(o * in1 + i) * in2 + j] * x2[n * in2 + j];
        y[n * out + o] = s;
      }
}

static void
test_bilinear_values (void)
{
  const gint64 in1 = 3, in2 = 4, out = 5;
  g_autofree gdouble *x1v = dl_test_random_values (2 * 3 * in1);
  g_autofree gdouble *x2v = dl_test_random_values (2 * 3 * in2);
  g_autofree gdouble *wv = dl_test_random_values (out * in1 * in2);
  g_autofree gdouble *bv = dl_test_random_values (out);
  gdouble expected[2 * 3 * 5], expected_nb[2 * 3 * 5];
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x1 = dl_test_tensor (x1v, DL_TEST_SHAPE (2, 3, in1), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) x2 = dl_test_tensor (x2v, DL_TEST_SHAPE (2, 3, in2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) w = dl_test_tensor (wv, DL_TEST_SHAPE (out, in1, in2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) b = dl_test_tensor (bv, DL_TEST_SHAPE (out), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) y_nb = NULL;
  g_autoptr (DlTensor) x1f = NULL;
  g_autoptr (DlTensor) x2f = NULL;
  g_autoptr (DlTensor) wf = NULL;
  g_autoptr (DlTensor) yf = NULL;

  bilinear_reference (x1v, x2v, wv, bv, 6, in1, in2, out, expected);
  bilinear_reference (x1v, x2v, wv, NULL, 6, in1, in2, out, expected_nb);
  y = dl_bilinear (x1, x2, w, b, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (2, 3, out));
  dl_test_assert_values (y, expected, 30, 1e-12);
  y_nb = dl_bilinear (x1, x2, w, NULL, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y_nb, expected_nb, 30, 1e-12);

  /* float32 agrees within float32's precision */
  x1f = dl_test_tensor (x1v, DL_TEST_SHAPE (6, in1), DL_DTYPE_FLOAT32);
  x2f = dl_test_tensor (x2v, DL_TEST_SHAPE (6, in2), DL_DTYPE_FLOAT32);
  wf = dl_test_tensor (wv, DL_TEST_SHAPE (out, in1, in2), DL_DTYPE_FLOAT32);
  yf = dl_bilinear (x1f, x2f, wf, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (yf), ==, DL_DTYPE_FLOAT32);
  dl_test_assert_shape (yf, DL_TEST_SHAPE (6, out));
  dl_test_assert_values (yf, expected_nb, 30, 1e-5);
}

static DlTensor *
bilinear_with_bias (DlTensor **x, GError **error)
{
  return dl_bilinear (x[0], x[1], x[2], x[3], error);
}

static DlTensor *
bilinear_unbatched (DlTensor **x, GError **error)
{
  return dl_bilinear (x[0], x[1], x[2], NULL, error);
}

static const DlTestGradCase bilinear_grad_cases[] = {
  { "bilinear", bilinear_with_bias, 4, { { 3, 2 }, { 3, 4 }, { 2, 2, 4 }, { 2 } }, { 2, 2, 3, 1 } },
  { "bilinear-unbatched", bilinear_unbatched, 3, { { 3 }, { 2 }, { 4, 3, 2 } }, { 1, 1, 3 } },
};

static void
assert_bilinear_error (DlTensor *x1, DlTensor *x2, DlTensor *w, DlTensor *b, const gchar *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) y = dl_bilinear (x1, x2, w, b, &error);

  g_assert_null (y);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, what));
}

static void
test_bilinear_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x1 = dl_zeros (DL_TEST_SHAPE (4, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) x2 = dl_zeros (DL_TEST_SHAPE (4, 2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) x2_3d = dl_zeros (DL_TEST_SHAPE (1, 4, 2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) x2_batch = dl_zeros (DL_TEST_SHAPE (5, 2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) w = dl_zeros (DL_TEST_SHAPE (6, 3, 2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) w_in1 = dl_zeros (DL_TEST_SHAPE (6, 4, 2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) w_in2 = dl_zeros (DL_TEST_SHAPE (6, 3, 5), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) w_2d = dl_zeros (DL_TEST_SHAPE (6, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) b = dl_zeros (DL_TEST_SHAPE (7), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) x2_f64 = dl_zeros (DL_TEST_SHAPE (4, 2), DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) y = NULL;

  g_assert_no_error (error);
  assert_bilinear_error (x1, x2_3d, w, NULL, "input dimensions do not match: got 2 and 3");
  assert_bilinear_error (x1, x2_batch, w, NULL,
                         "input batch dimensions do not match at dim 0: got 4 and 5");
  assert_bilinear_error (x1, x2, w_in1, NULL,
                         "input1 size does not match weight size: got 3 but "
                         "expected 4");
  assert_bilinear_error (x1, x2, w_in2, NULL,
                         "input2 size does not match weight size: got 2 but "
                         "expected 5");
  assert_bilinear_error (x1, x2, w, b,
                         "bias size does not match weight size: got 7 but expected 6");
  assert_bilinear_error (x1, x2, w_2d, NULL, "weight must be a 3D tensor");
  y = dl_bilinear (x1, x2_f64, w, NULL, &error);
  g_assert_null (y);
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
}

static void
test_bilinear_layer (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlBilinear) layer = dl_bilinear_layer_new (3, 4, 2, TRUE, &error);
  g_autoptr (DlBilinear) nobias = NULL;
  g_autoptr (DlBilinear) bad = NULL;
  g_autoptr (DlTensor) x1 = NULL;
  g_autoptr (DlTensor) x2 = NULL;
  g_autoptr (DlTensor) expected = NULL;
  g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) outputs = NULL;
  g_autoptr (GPtrArray) one = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) none = NULL;
  g_autofree gdouble *wv = NULL;
  g_autofree gchar *repr = NULL;
  DlTensor *w, *b;
  gint64 in1 = 0;

  g_assert_no_error (error);
  w = dl_module_get_parameter (DL_MODULE (layer), "weight");
  b = dl_module_get_parameter (DL_MODULE (layer), "bias");
  dl_test_assert_shape (w, DL_TEST_SHAPE (2, 3, 4));
  dl_test_assert_shape (b, DL_TEST_SHAPE (2));
  g_assert_true (dl_tensor_get_requires_grad (w));
  /* uniform in (-1/sqrt (3), 1/sqrt (3)) and not constant */
  wv = dl_test_values (w);
  for (gint i = 0; i < 24; i++)
    g_assert_cmpfloat (fabs (wv[i]), <=, 1 / sqrt (3.0));
  g_assert_cmpfloat (wv[0], !=, wv[1]);
  g_object_get (layer, "in1-features", &in1, NULL);
  g_assert_cmpint (in1, ==, 3);
  repr = dl_module_to_string (DL_MODULE (layer));
  g_assert_cmpstr (repr, ==, "Bilinear(in1_features=3, in2_features=4, out_features=2, bias=True)");

  x1 = dl_randn (DL_TEST_SHAPE (5, 3), DL_DTYPE_FLOAT32, NULL, &error);
  x2 = dl_randn (DL_TEST_SHAPE (5, 4), DL_DTYPE_FLOAT32, NULL, &error);
  g_ptr_array_add (inputs, g_object_ref (x1));
  g_ptr_array_add (inputs, g_object_ref (x2));
  outputs = dl_module_forward_many (DL_MODULE (layer), inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  expected = dl_bilinear (x1, x2, w, b, &error);
  g_assert_no_error (error);
  {
    g_autofree gdouble *ev = dl_test_values (expected);
    dl_test_assert_values (g_ptr_array_index (outputs, 0), ev, 10, 0);
  }

  /* one input is an error, not a crash */
  g_ptr_array_add (one, g_object_ref (x1));
  none = dl_module_forward_many (DL_MODULE (layer), one, &error);
  g_assert_null (none);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);

  nobias = dl_bilinear_layer_new (3, 4, 2, FALSE, &error);
  g_assert_no_error (error);
  g_assert_null (dl_module_get_parameter (DL_MODULE (nobias), "bias"));

  bad = dl_bilinear_layer_new (3, -1, 2, TRUE, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "in2_features"));
}

static void
test_batch_norm3d (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlBatchNorm3d) bn = dl_batch_norm3d_layer_new (2, &error);
  g_autoptr (DlTensor) x4 = dl_randn (DL_TEST_SHAPE (2, 2, 3, 3), DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) x5
      = dl_randn (DL_TEST_SHAPE (2, 2, 3, 3, 2), DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) bad = NULL;
  g_autoptr (DlTensor) mean = NULL;
  g_autoptr (DlTensor) var = NULL;
  g_autofree gdouble *mv = NULL;
  g_autofree gdouble *vv = NULL;

  g_assert_no_error (error);
  g_assert_true (DL_IS_BATCH_NORM (bn));
  bad = dl_module_forward (DL_MODULE (bn), x4, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "BatchNorm3d: expected 5D input (got 4D input)"));
  g_clear_error (&error);
  dl_module_to_dtype (DL_MODULE (bn), DL_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  y = dl_module_forward (DL_MODULE (bn), x5, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (2, 2, 3, 3, 2));
  /* training mode: each channel of the output has mean 0 and variance 1 */
  mean = dl_tensor_mean_dims (y, (gint64[]){ 0, 2, 3, 4 }, 4, FALSE, &error);
  var = dl_tensor_var (y, (gint64[]){ 0, 2, 3, 4 }, 4, 0, FALSE, &error);
  g_assert_no_error (error);
  mv = dl_test_values (mean);
  vv = dl_test_values (var);
  for (gint c = 0; c < 2; c++)
    {
      g_assert_cmpfloat (fabs (mv[c]), <, 1e-12);
      g_assert_cmpfloat (fabs (vv[c] - 1), <, 1e-3);
    }
  g_assert_true (dl_module_has_buffer (DL_MODULE (bn), "num_batches_tracked"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bilinear/values", test_bilinear_values);
  for (gsize i = 0; i < G_N_ELEMENTS (bilinear_grad_cases); i++)
    {
      g_autofree gchar *path
          = g_strdup_printf ("/bilinear/gradcheck/%s", bilinear_grad_cases[i].name);
      g_test_add_data_func (path, &bilinear_grad_cases[i], dl_test_gradcheck);
    }
  g_test_add_func ("/bilinear/errors", test_bilinear_errors);
  g_test_add_func ("/bilinear/layer", test_bilinear_layer);
  g_test_add_func ("/batch-norm3d", test_batch_norm3d);

  return g_test_run ();
}
