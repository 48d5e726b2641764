/* test-loss.c: the loss functions and modules from C: values and
 * gradients against PyTorch's (computed with python3-torch 1.13 and
 * written here), each reduction, the options as construct properties, and
 * the errors for bad input.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

#define F64 DL_DTYPE_FLOAT64

/* @loss (taken) has the values @expected */
static void
assert_loss (DlTensor *loss, GError *error, const gdouble *expected, gint64 n)
{
  g_autoptr (DlTensor) owned = loss;

  g_assert_no_error (error);
  g_assert_nonnull (owned);
  dl_test_assert_values (owned, expected, n, 1e-12);
}

static void
test_regression (void)
{
  GError *error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 0.5, -1, 2, 0 }, DL_TEST_SHAPE (2, 2), F64);
  g_autoptr (DlTensor) y
      = dl_test_tensor ((gdouble[]){ 1, 1, -0.5, 0.25 }, DL_TEST_SHAPE (2, 2), F64);

  assert_loss (dl_mse_loss (x, y, DL_REDUCTION_NONE, &error), error,
               (gdouble[]){ 0.25, 4.0, 6.25, 0.0625 }, 4);
  assert_loss (dl_mse_loss (x, y, DL_REDUCTION_MEAN, &error), error, (gdouble[]){ 2.640625 }, 1);
  assert_loss (dl_l1_loss (x, y, DL_REDUCTION_SUM, &error), error, (gdouble[]){ 5.25 }, 1);
  assert_loss (dl_smooth_l1_loss (x, y, DL_REDUCTION_NONE, 0.5, &error), error,
               (gdouble[]){ 0.25, 1.75, 2.25, 0.0625 }, 4);
  assert_loss (dl_smooth_l1_loss (x, y, DL_REDUCTION_SUM, 0.5, &error), error,
               (gdouble[]){ 4.3125 }, 1);
  assert_loss (dl_huber_loss (x, y, DL_REDUCTION_NONE, 0.7, &error), error,
               (gdouble[]){ 0.125, 1.155, 1.505, 0.03125 }, 4);
  assert_loss (dl_huber_loss (x, y, DL_REDUCTION_MEAN, 0.7, &error), error,
               (gdouble[]){ 0.7040625 }, 1);
}

static void
test_classification (void)
{
  GError *error = NULL;
  g_autoptr (DlTensor) logits = dl_test_tensor (
      (gdouble[]){ 1, 2, 0.5, -1, 0, 0, 0, 0, 3, -2, 1, 0.5 }, DL_TEST_SHAPE (3, 4), F64);
  g_autoptr (DlTensor) target
      = dl_test_tensor ((gdouble[]){ 1, -100, 3 }, DL_TEST_SHAPE (3), DL_DTYPE_INT64);
  g_autoptr (DlTensor) weight
      = dl_test_tensor ((gdouble[]){ 0.5, 1, 2, 1.5 }, DL_TEST_SHAPE (4), F64);
  g_autoptr (DlTensor) loss = NULL;
  g_autoptr (DlNode) unused = NULL;
  DlTensor *grad;

  assert_loss (dl_cross_entropy_full (logits, target, weight, -100, DL_REDUCTION_NONE, 0.1, &error),
               error, (gdouble[]){ 0.7075614455380025, 0.0, 3.9920738353270435 }, 3);
  assert_loss (dl_cross_entropy_full (logits, target, weight, -100, DL_REDUCTION_SUM, 0.1, &error),
               error, (gdouble[]){ 4.699635280865046 }, 1);
  assert_loss (dl_nll_loss_full (logits, target, weight, -100, DL_REDUCTION_MEAN, &error), error,
               (gdouble[]){ -1.1 }, 1);

  /* the gradient of the weighted, smoothed mean */
  g_assert_true (dl_tensor_set_requires_grad (logits, TRUE, NULL));
  loss = dl_cross_entropy_full (logits, target, weight, -100, DL_REDUCTION_MEAN, 0.1, &error);
  g_assert_no_error (error);
  dl_test_assert_values (loss, (gdouble[]){ 1.8798541123460184 }, 1, 1e-12);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  grad = dl_tensor_get_grad (logits);
  dl_test_assert_values (grad,
                         (gdouble[]){ 0.08692520539976248, -0.12012138458446035,
                                      0.03575545547533727, -0.0025592762906393464, 0, 0, 0, 0,
                                      0.47696383938833886, -0.006752553194725631,
                                      0.045226712713426154, -0.5154379989070392 },
                         12, 1e-12);
}

static void
test_binary_and_divergence (void)
{
  GError *error = NULL;
  g_autoptr (DlTensor) p = dl_test_tensor ((gdouble[]){ 0.1, 0.9, 0.5, 0 }, DL_TEST_SHAPE (4), F64);
  g_autoptr (DlTensor) q = dl_test_tensor ((gdouble[]){ 0, 1, 0.25, 1 }, DL_TEST_SHAPE (4), F64);
  g_autoptr (DlTensor) bw = dl_test_tensor ((gdouble[]){ 1, 2, 0.5, 1 }, DL_TEST_SHAPE (4), F64);
  g_autoptr (DlTensor) z
      = dl_test_tensor ((gdouble[]){ -1000, 1000, 0.5, -3 }, DL_TEST_SHAPE (4), F64);
  g_autoptr (DlTensor) pw = dl_test_tensor ((gdouble[]){ 2, 0.5, 1, 3 }, DL_TEST_SHAPE (4), F64);
  g_autoptr (DlTensor) lp = dl_test_tensor (
      (gdouble[]){ log (0.5), log (0.5), log (0.25), log (0.75) }, DL_TEST_SHAPE (2, 2), F64);
  g_autoptr (DlTensor) lpf = dl_test_tensor (
      (gdouble[]){ log (0.5), log (0.5), log (0.75), log (0.25) }, DL_TEST_SHAPE (2, 2), F64);
  g_autoptr (DlTensor) tg
      = dl_test_tensor ((gdouble[]){ 0, 1, 0.5, 0.5 }, DL_TEST_SHAPE (2, 2), F64);

  /* log 0 clamped at -100 */
  assert_loss (dl_binary_cross_entropy (p, q, bw, DL_REDUCTION_NONE, &error), error,
               (gdouble[]){ 0.10536051565782628, 0.21072103131565256, 0.34657359027997264, 100.0 },
               4);
  /* logits of +-1000: no overflow */
  assert_loss (dl_binary_cross_entropy_with_logits (z, q, NULL, pw, DL_REDUCTION_NONE, &error),
               error, (gdouble[]){ 0.0, 0.0, 0.8490769841801067, 9.145762054721226 }, 4);
  assert_loss (dl_kl_div (lp, tg, DL_REDUCTION_BATCHMEAN, FALSE, &error), error,
               (gdouble[]){ 0.41849410839291784 }, 1);
  assert_loss (dl_kl_div (lp, lpf, DL_REDUCTION_SUM, TRUE, &error), error,
               (gdouble[]){ 0.5493061443340548 }, 1);
}

/* @loss is NULL with an error of @code whose message holds @part */
static void
assert_loss_error (DlTensor *loss, GError **error, gint code, const gchar *part)
{
  g_assert_null (loss);
  g_assert_error (*error, DL_ERROR, code);
  if (!strstr ((*error)->message, part))
    g_test_fail_printf ("'%s' does not say '%s'", (*error)->message, part);
  g_clear_error (error);
}

static void
test_errors (void)
{
  GError *error = NULL;
  g_autoptr (DlTensor) x = dl_zeros (DL_TEST_SHAPE (2, 3), F64, NULL, NULL);
  g_autoptr (DlTensor) x3 = dl_zeros (DL_TEST_SHAPE (2, 3, 4), F64, NULL, NULL);
  g_autoptr (DlTensor) big
      = dl_test_tensor ((gdouble[]){ 0, 5 }, DL_TEST_SHAPE (2), DL_DTYPE_INT64);
  g_autoptr (DlTensor) ft = dl_zeros (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) t3 = dl_zeros (DL_TEST_SHAPE (3), DL_DTYPE_INT64, NULL, NULL);
  g_autoptr (DlTensor) t25 = dl_zeros (DL_TEST_SHAPE (2, 5), DL_DTYPE_INT64, NULL, NULL);
  g_autoptr (DlTensor) w4 = dl_ones (DL_TEST_SHAPE (4), F64, NULL, NULL);
  g_autoptr (DlTensor) p = dl_full (DL_TEST_SHAPE (2, 3), 1.5, F64, NULL, NULL);
  g_autoptr (DlTensor) p1 = dl_zeros (DL_TEST_SHAPE (2, 1), F64, NULL, NULL);

  assert_loss_error (dl_cross_entropy (x, big, &error), &error, DL_ERROR_INDEX,
                     "cross_entropy: Target 5 is out of bounds");
  assert_loss_error (dl_nll_loss (x, ft, &error), &error, DL_ERROR_DTYPE, "Long");
  assert_loss_error (dl_nll_loss (x, t3, &error), &error, DL_ERROR_SHAPE,
                     "Expected input batch_size (2) to match target batch_size (3)");
  assert_loss_error (dl_cross_entropy (x3, t25, &error), &error, DL_ERROR_SHAPE,
                     "Expected target size [2, 4], got [2, 5]");
  assert_loss_error (dl_cross_entropy_full (x, t3, w4, -100, DL_REDUCTION_MEAN, 0, &error), &error,
                     DL_ERROR_SHAPE, "target batch_size");
  assert_loss_error (dl_cross_entropy_full (x, big, NULL, -100, DL_REDUCTION_MEAN, 2, &error),
                     &error, DL_ERROR_ARGUMENT, "label_smoothing");
  assert_loss_error (dl_binary_cross_entropy (p, p, NULL, DL_REDUCTION_MEAN, &error), &error,
                     DL_ERROR_ARGUMENT, "between 0 and 1");
  assert_loss_error (
      dl_binary_cross_entropy_with_logits (p, p1, NULL, NULL, DL_REDUCTION_MEAN, &error), &error,
      DL_ERROR_SHAPE, "Target size [2, 1] must be the same as input size [2, 3]");
  assert_loss_error (dl_smooth_l1_loss (p, p, DL_REDUCTION_MEAN, -1, &error), &error,
                     DL_ERROR_ARGUMENT, "beta");
  assert_loss_error (dl_huber_loss (p, p, DL_REDUCTION_MEAN, 0, &error), &error, DL_ERROR_ARGUMENT,
                     "delta");
  assert_loss_error (dl_mse_loss (p, p, DL_REDUCTION_BATCHMEAN, &error), &error, DL_ERROR_ARGUMENT,
                     "batchmean is not a valid value for reduction");
  assert_loss_error (dl_mse_loss (p, w4, DL_REDUCTION_MEAN, &error), &error, DL_ERROR_SHAPE, "");
}

/* @module's loss on (@input, @target) equals @expected */
static void
assert_module_loss (gpointer module, DlTensor *input, DlTensor *target, DlTensor *expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) in = g_ptr_array_new ();
  g_autoptr (GPtrArray) out = NULL;
  g_autofree gdouble *ev = dl_test_values (expected);

  g_assert_true (g_initable_init (G_INITABLE (module), NULL, &error));
  g_ptr_array_add (in, input);
  g_ptr_array_add (in, target);
  out = dl_module_forward_many (DL_MODULE (module), in, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (out->len, ==, 1);
  dl_test_assert_values (g_ptr_array_index (out, 0), ev, dl_tensor_numel (expected), 1e-14);
}

static void
test_modules (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *xv = dl_test_random_values (12);
  g_autofree gdouble *yv = dl_test_random_values (12);
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (4, 3), F64);
  g_autoptr (DlTensor) y = dl_test_tensor (yv, DL_TEST_SHAPE (4, 3), F64);
  g_autoptr (DlTensor) probs = dl_tensor_sigmoid (x, NULL);
  g_autoptr (DlTensor) targets = dl_tensor_sigmoid (y, NULL);
  g_autoptr (DlTensor) cls
      = dl_test_tensor ((gdouble[]){ 0, 2, 1, 2 }, DL_TEST_SHAPE (4), DL_DTYPE_INT64);
  g_autoptr (DlTensor) w = dl_test_tensor ((gdouble[]){ 0.5, 2, 1 }, DL_TEST_SHAPE (3), F64);
  DlTensor *got_weight = NULL;
  gint64 ignore_index = 0;
  gdouble beta = 0;
  gboolean log_target = FALSE;
  DlReduction reduction;

  {
    g_autoptr (DlCrossEntropyLoss) m
        = g_object_new (DL_TYPE_CROSS_ENTROPY_LOSS, "weight", w, "ignore-index", (gint64)1,
                        "label-smoothing", 0.2, "reduction", DL_REDUCTION_SUM, NULL);
    g_autoptr (DlTensor) ref = dl_cross_entropy_full (x, cls, w, 1, DL_REDUCTION_SUM, 0.2, &error);
    g_assert_no_error (error);
    assert_module_loss (m, x, cls, ref);
    g_object_get (m, "weight", &got_weight, "ignore-index", &ignore_index, NULL);
    g_assert_true (got_weight == w);
    g_assert_cmpint (ignore_index, ==, 1);
    g_clear_object (&got_weight);
    /* the weight is the buffer "weight", as torch registers it */
    g_assert_true (dl_module_get_buffer (DL_MODULE (m), "weight") == w);
  }
  {
    g_autoptr (DlNllLoss) m = g_object_new (DL_TYPE_NLL_LOSS, "reduction", DL_REDUCTION_NONE, NULL);
    g_autoptr (DlTensor) ref = dl_nll_loss_full (x, cls, NULL, -100, DL_REDUCTION_NONE, &error);
    assert_module_loss (m, x, cls, ref);
  }
  {
    g_autoptr (DlMseLoss) m = dl_mse_loss_new ();
    g_autoptr (DlTensor) ref = dl_mse_loss (x, y, DL_REDUCTION_MEAN, &error);
    assert_module_loss (m, x, y, ref);
    g_assert_cmpint (dl_mse_loss_get_reduction (m), ==, DL_REDUCTION_MEAN);
  }
  {
    g_autoptr (DlL1Loss) m = g_object_new (DL_TYPE_L1_LOSS, "reduction", DL_REDUCTION_SUM, NULL);
    g_autoptr (DlTensor) ref = dl_l1_loss (x, y, DL_REDUCTION_SUM, &error);
    assert_module_loss (m, x, y, ref);
  }
  {
    g_autoptr (DlSmoothL1Loss) m = g_object_new (DL_TYPE_SMOOTH_L1_LOSS, "beta", 0.3, NULL);
    g_autoptr (DlTensor) ref = dl_smooth_l1_loss (x, y, DL_REDUCTION_MEAN, 0.3, &error);
    assert_module_loss (m, x, y, ref);
    g_object_get (m, "beta", &beta, NULL);
    g_assert_cmpfloat (beta, ==, 0.3);
  }
  {
    g_autoptr (DlHuberLoss) m = g_object_new (DL_TYPE_HUBER_LOSS, "delta", 0.4, NULL);
    g_autoptr (DlTensor) ref = dl_huber_loss (x, y, DL_REDUCTION_MEAN, 0.4, &error);
    assert_module_loss (m, x, y, ref);
  }
  {
    g_autoptr (DlBceLoss) m = g_object_new (DL_TYPE_BCE_LOSS, "weight", w, NULL);
    g_autoptr (DlTensor) ref
        = dl_binary_cross_entropy (probs, targets, w, DL_REDUCTION_MEAN, &error);
    assert_module_loss (m, probs, targets, ref);
  }
  {
    g_autoptr (DlBceWithLogitsLoss) m
        = g_object_new (DL_TYPE_BCE_WITH_LOGITS_LOSS, "pos-weight", w, NULL);
    g_autoptr (DlTensor) ref
        = dl_binary_cross_entropy_with_logits (x, targets, NULL, w, DL_REDUCTION_MEAN, &error);
    assert_module_loss (m, x, targets, ref);
  }
  {
    g_autoptr (DlKlDivLoss) m = g_object_new (DL_TYPE_KL_DIV_LOSS, "reduction",
                                              DL_REDUCTION_BATCHMEAN, "log-target", TRUE, NULL);
    g_autoptr (DlTensor) ref = dl_kl_div (x, y, DL_REDUCTION_BATCHMEAN, TRUE, &error);
    assert_module_loss (m, x, y, ref);
    g_object_get (m, "log-target", &log_target, "reduction", &reduction, NULL);
    g_assert_true (log_target);
    g_assert_cmpint (reduction, ==, DL_REDUCTION_BATCHMEAN);
  }
  g_assert_no_error (error);
}

static void
test_module_construct_errors (void)
{
  struct
  {
    GType type;
    const gchar *property;
    gdouble value;
    const gchar *message;
  } cases[] = {
    { DL_TYPE_CROSS_ENTROPY_LOSS, "label-smoothing", 1.5,
      "CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0. Got: 1.5" },
    { DL_TYPE_SMOOTH_L1_LOSS, "beta", -1,
      "SmoothL1Loss: does not support negative values for beta" },
    { DL_TYPE_HUBER_LOSS, "delta", 0, "HuberLoss: does not support non-positive values for delta" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GObject) m = g_object_new (cases[i].type, cases[i].property, cases[i].value, NULL);

      g_assert_false (g_initable_init (G_INITABLE (m), NULL, &error));
      g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
      g_assert_true (g_str_has_prefix (error->message, cases[i].message));
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (DlBceLoss) m
        = g_object_new (DL_TYPE_BCE_LOSS, "reduction", DL_REDUCTION_BATCHMEAN, NULL);
    g_assert_false (g_initable_init (G_INITABLE (m), NULL, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/loss/regression", test_regression);
  g_test_add_func ("/loss/classification", test_classification);
  g_test_add_func ("/loss/binary-and-divergence", test_binary_and_divergence);
  g_test_add_func ("/loss/errors", test_errors);
  g_test_add_func ("/loss/modules", test_modules);
  g_test_add_func ("/loss/modules/construct-errors", test_module_construct_errors);
  return g_test_run ();
}
