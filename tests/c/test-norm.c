/* test-norm.c: dl_batch_norm, dl_layer_norm, dl_group_norm and the
 * DlBatchNorm2d, DlBatchNorm1d, DlLayerNorm and DlGroupNorm layers from C,
 * against values worked out by hand.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <string.h>

#include <dl.h>

#include "dl-test-utils.h"

/* [1, 2, 3] normalised with eps 0: (x - 2) * sqrt (3 / 2); sum (y) does
 * not depend on x, so its gradient is 0; weight's is xhat, bias's 1 */
static void
test_layer_norm_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x
      = dl_test_tensor ((gdouble[]){ 1, 2, 3, 2, 4, 6 }, (gint64[]){ 2, 3 }, 2, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) w = dl_ones ((gint64[]){ 3 }, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) b = dl_zeros ((gint64[]){ 3 }, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) s = NULL;
  const gdouble r = sqrt (1.5);

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  g_assert_true (dl_tensor_set_requires_grad (w, TRUE, &error));
  g_assert_true (dl_tensor_set_requires_grad (b, TRUE, &error));
  y = dl_layer_norm (x, (gint64[]){ 3 }, 1, w, b, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (y)), ==, "NativeLayerNormBackward0");
  dl_test_assert_values (y, (gdouble[]){ -r, 0, r, -r, 0, r }, 6, 1e-12);
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 0, 0, 0, 0, 0, 0 }, 6, 1e-12);
  dl_test_assert_values (dl_tensor_get_grad (w), (gdouble[]){ -2 * r, 0, 2 * r }, 3, 1e-12);
  dl_test_assert_values (dl_tensor_get_grad (b), (gdouble[]){ 2, 2, 2 }, 3, 0);

  g_assert_null (dl_layer_norm (x, (gint64[]){ 4 }, 1, NULL, NULL, 1e-5, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "expected input with shape [*, 4]"));
  g_clear_error (&error);
  g_assert_null (dl_layer_norm (x, (gint64[]){ 3 }, 1, NULL, s, 1e-5, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "Expected bias to be of same shape"));
}

/* batch [[1], [3]]: mean 2, biased variance 1, unbiased 2; the running
 * statistics move from (0, 1) by momentum 0.1 */
static void
test_batch_norm_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x
      = dl_test_tensor ((gdouble[]){ 1, 10, 3, 20 }, (gint64[]){ 2, 2 }, 2, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) rm = dl_zeros ((gint64[]){ 2 }, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) rv = dl_ones ((gint64[]){ 2 }, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) ye = NULL;
  g_autoptr (DlTensor) one = NULL;

  y = dl_batch_norm (x, rm, rv, NULL, NULL, TRUE, 0.1, 0, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y, (gdouble[]){ -1, -1, 1, 1 }, 4, 1e-6);
  dl_test_assert_values (rm, (gdouble[]){ 0.2, 1.5 }, 2, 1e-6);
  dl_test_assert_values (rv, (gdouble[]){ 0.9 + 0.1 * 2, 0.9 + 0.1 * 50 }, 2, 1e-5);
  /* eval mode: the running statistics */
  ye = dl_batch_norm (x, rm, rv, NULL, NULL, FALSE, 0.1, 0, &error);
  g_assert_no_error (error);
  dl_test_assert_values (ye,
                         (gdouble[]){ (1 - 0.2) / sqrt (1.1), (10 - 1.5) / sqrt (5.9),
                                      (3 - 0.2) / sqrt (1.1), (20 - 1.5) / sqrt (5.9) },
                         4, 1e-5);

  one = dl_ones ((gint64[]){ 1, 2 }, 2, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_null (dl_batch_norm (one, NULL, NULL, NULL, NULL, TRUE, 0.1, 1e-5, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "Expected more than 1 value per channel"));
  g_clear_error (&error);
  g_assert_null (dl_batch_norm (x, NULL, NULL, NULL, NULL, FALSE, 0.1, 1e-5, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* two groups of two channels of two values: each group's four values
 * normalised together */
static void
test_group_norm_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 1, 2, 3, 4, 0, 0, 5, 5 },
                                           (gint64[]){ 1, 4, 2 }, 3, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) y = NULL;
  const gdouble r = 1 / sqrt (1.25);

  y = dl_group_norm (x, 2, NULL, NULL, 0, &error);
  g_assert_no_error (error);
  dl_test_assert_values (y, (gdouble[]){ -1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r, -1, -1, 1, 1 }, 8,
                         1e-12);
  g_assert_null (dl_group_norm (x, 3, NULL, NULL, 1e-5, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "divisible by num_groups"));
}

/* the layers: parameters, buffers, running statistics, eval mode, checks */
static void
test_norm_layers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlBatchNorm2d) bn = dl_batch_norm2d_layer_new (3, &error);
  g_autoptr (DlBatchNorm1d) bn1 = NULL;
  g_autoptr (DlLayerNorm) ln = NULL;
  g_autoptr (DlGroupNorm) gn = NULL;
  g_autoptr (DlGroupNorm) bad = NULL;
  g_autoptr (DlTensor) x = dl_randn ((gint64[]){ 4, 3, 2, 2 }, 4, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensorDict) state = NULL;
  g_autofree gint64 *shape = NULL;
  gsize n = 0;

  g_assert_no_error (error);
  y = dl_module_forward (DL_MODULE (bn), x, &error);
  g_assert_no_error (error);
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_nonnull (dl_tensor_get_grad (dl_module_get_parameter (DL_MODULE (bn), "weight")));
  g_assert_cmpfloat (
      dl_tensor_item (dl_module_get_buffer (DL_MODULE (bn), "num_batches_tracked"), &error), ==, 1);
  g_assert_cmpint (
      dl_tensor_get_dtype (dl_module_get_buffer (DL_MODULE (bn), "num_batches_tracked")), ==,
      DL_DTYPE_INT64);
  state = dl_module_state_dict (DL_MODULE (bn));
  g_assert_nonnull (dl_tensor_dict_lookup (state, "running_var"));
  g_clear_object (&y);
  g_clear_object (&s);
  dl_module_set_training (DL_MODULE (bn), FALSE);
  y = dl_module_forward (DL_MODULE (bn), x, &error);
  g_assert_no_error (error);
  g_clear_object (&y);
  {
    g_autoptr (DlTensor) x3 = dl_randn ((gint64[]){ 4, 3, 2 }, 3, DL_DTYPE_FLOAT32, NULL, NULL);

    g_assert_null (dl_module_forward (DL_MODULE (bn), x3, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_assert_cmpstr (error->message, ==, "BatchNorm2d: expected 4D input (got 3D input)");
    g_clear_error (&error);
    /* a 1d layer without affine or running statistics */
    bn1 = g_initable_new (DL_TYPE_BATCH_NORM1D, NULL, &error, "num-features", (gint64)3, "affine",
                          FALSE, "track-running-stats", FALSE, "momentum", -1.0, NULL);
    g_assert_no_error (error);
    g_assert_null (dl_module_get_parameter (DL_MODULE (bn1), "weight"));
    g_assert_false (dl_module_has_buffer (DL_MODULE (bn1), "running_mean"));
    dl_module_set_training (DL_MODULE (bn1), FALSE);
    y = dl_module_forward (DL_MODULE (bn1), x3, &error);
    g_assert_no_error (error);
  }

  ln = dl_layer_norm_layer_new ((gint64[]){ 2, 2 }, 2, 1e-5, TRUE, &error);
  g_assert_no_error (error);
  shape = dl_layer_norm_layer_get_normalized_shape (ln, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (shape[1], ==, 2);
  g_clear_object (&y);
  y = dl_module_forward (DL_MODULE (ln), x, &error);
  g_assert_no_error (error);
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_nonnull (dl_tensor_get_grad (dl_module_get_parameter (DL_MODULE (ln), "bias")));

  gn = dl_group_norm_layer_new (3, 3, &error);
  g_assert_no_error (error);
  g_clear_object (&y);
  y = dl_module_forward (DL_MODULE (gn), x, &error);
  g_assert_no_error (error);
  bad = dl_group_norm_layer_new (4, 6, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "GroupNorm: num_channels must be divisible by num_groups");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/norm/layer-norm-values", test_layer_norm_values);
  g_test_add_func ("/norm/batch-norm-values", test_batch_norm_values);
  g_test_add_func ("/norm/group-norm-values", test_group_norm_values);
  g_test_add_func ("/norm/layers", test_norm_layers);
  return g_test_run ();
}
