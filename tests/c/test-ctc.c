/* test-ctc.c: dl_ctc_loss on cases small enough to count the alignments
 * by hand, infinite losses and zero_infinity, the target layouts, the
 * gradient of the logits through log_softmax by finite differences, and
 * the errors.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"
#include "dl-test-gradcheck.h"

static DlTensor *
uniform_log_probs (gint64 T, gint64 N, gint64 C)
{
  g_autoptr (GError) error = NULL;
  DlTensor *t
      = dl_full (DL_TEST_SHAPE (T, N, C), -log ((gdouble)C), DL_DTYPE_FLOAT64, NULL, &error);

  g_assert_no_error (error);
  return t;
}

/* three losses, the second infinite */
static void
assert_losses (DlTensor *y, const gdouble *expected)
{
  g_autofree gdouble *v = dl_test_values (y);

  g_assert_cmpfloat_with_epsilon (v[0], expected[0], 1e-12);
  g_assert_cmpfloat (v[1], ==, expected[1]);
  g_assert_cmpfloat_with_epsilon (v[2], expected[2], 1e-12);
}

static void
test_ctc_counted (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) lp = uniform_log_probs (2, 3, 2);
  g_autoptr (DlTensor) lp1 = uniform_log_probs (1, 1, 2);
  g_autoptr (DlTensor) targets
      = dl_test_tensor ((gdouble[]){ 1, 0, 1, 1, 0, 0 }, DL_TEST_SHAPE (3, 2), DL_DTYPE_INT64);
  g_autoptr (DlTensor) concat
      = dl_test_tensor ((gdouble[]){ 1, 1, 1 }, DL_TEST_SHAPE (3), DL_DTYPE_INT64);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) y2 = NULL;
  g_autoptr (DlTensor) inf = NULL;
  g_autoptr (DlTensor) zero = NULL;
  /* T = 2, two equally likely classes: the target "1" has the alignments
   * 11, 01 and 10 (3/4), "1 1" needs a blank between (impossible), the
   * empty target only 00 (1/4) */
  const gdouble expected[] = { -log (0.75), INFINITY, log (4.0) };

  y = dl_ctc_loss (lp, targets, (gint64[]){ 2, 2, 2 }, 3, (gint64[]){ 1, 2, 0 }, 3, 0, FALSE,
                   &error);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (3));
  assert_losses (y, expected);
  /* the same targets concatenated */
  y2 = dl_ctc_loss (lp, concat, (gint64[]){ 2, 2, 2 }, 3, (gint64[]){ 1, 2, 0 }, 3, 0, FALSE,
                    &error);
  g_assert_no_error (error);
  assert_losses (y2, expected);
  /* T = 1 for "1 1": infinite, or 0 with zero_infinity */
  inf = dl_ctc_loss (lp1, concat, (gint64[]){ 1 }, 1, (gint64[]){ 2 }, 1, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (dl_tensor_item (inf, NULL), ==, INFINITY);
  zero = dl_ctc_loss (lp1, concat, (gint64[]){ 1 }, 1, (gint64[]){ 2 }, 1, 0, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (dl_tensor_item (zero, NULL), ==, 0);
}

static void
test_ctc_unbatched_and_blank (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) lp = NULL;
  g_autoptr (DlTensor) targets
      = dl_test_tensor ((gdouble[]){ 0 }, DL_TEST_SHAPE (1), DL_DTYPE_INT64);
  g_autoptr (DlTensor) y = NULL;
  gsize nd;

  lp = dl_full (DL_TEST_SHAPE (2, 2), -log (2.0), DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  /* blank 1, the target "0": as the first case of test_ctc_counted */
  y = dl_ctc_loss (lp, targets, (gint64[]){ 2 }, 1, (gint64[]){ 1 }, 1, 1, FALSE, &error);
  g_assert_no_error (error);
  dl_tensor_get_shape (y, &nd);
  g_assert_cmpuint (nd, ==, 0);
  g_assert_cmpint (dl_tensor_get_dtype (y), ==, DL_DTYPE_FLOAT32);
  g_assert_cmpfloat_with_epsilon (dl_tensor_item (y, NULL), -log (0.75), 1e-6);
}

static DlTensor *
ctc_of_logits (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) lp = NULL;
  g_autoptr (DlTensor) targets
      = dl_test_tensor ((gdouble[]){ 1, 2, 2, 3, 1, 0 }, DL_TEST_SHAPE (2, 3), DL_DTYPE_INT64);

  if (!(lp = dl_tensor_log_softmax (x[0], 2, error)))
    return NULL;
  return dl_ctc_loss (lp, targets, (gint64[]){ 5, 4 }, 2, (gint64[]){ 3, 2 }, 2, 0, FALSE, error);
}

static const DlTestGradCase ctc_grad_case
    = { "ctc-loss", ctc_of_logits, 1, { { 5, 2, 4 } }, { 3 } };

static void
assert_ctc_error (DlTensor *lp,
                  DlTensor *targets,
                  const gint64 *il,
                  gsize n_il,
                  const gint64 *tl,
                  gsize n_tl,
                  gint64 blank,
                  gint code,
                  const gchar *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) y = dl_ctc_loss (lp, targets, il, n_il, tl, n_tl, blank, FALSE, &error);

  g_assert_null (y);
  g_assert_error (error, DL_ERROR, code);
  if (!strstr (error->message, what))
    g_test_fail_printf ("%s: not in \"%s\"", what, error->message);
}

static void
test_ctc_errors (void)
{
  g_autoptr (DlTensor) lp = uniform_log_probs (3, 2, 3);
  g_autoptr (DlTensor) lp4 = NULL;
  g_autoptr (DlTensor) tg
      = dl_test_tensor ((gdouble[]){ 1, 2, 1, 1 }, DL_TEST_SHAPE (2, 2), DL_DTYPE_INT64);
  g_autoptr (DlTensor) tg_bad
      = dl_test_tensor ((gdouble[]){ 1, 2, 1, 5 }, DL_TEST_SHAPE (2, 2), DL_DTYPE_INT64);
  g_autoptr (DlTensor) tg_float
      = dl_test_tensor ((gdouble[]){ 1, 2, 1, 1 }, DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT32);
  g_autoptr (GError) error = NULL;
  const gint64 il[] = { 3, 3 }, tl[] = { 2, 2 };

  lp4 = dl_zeros (DL_TEST_SHAPE (3, 2, 3, 1), DL_DTYPE_FLOAT64, NULL, &error);
  g_assert_no_error (error);
  assert_ctc_error (lp4, tg, il, 2, tl, 2, 0, DL_ERROR_SHAPE, "log_probs must be (T, C)");
  assert_ctc_error (lp, tg_float, il, 2, tl, 2, 0, DL_ERROR_DTYPE, "integer targets");
  assert_ctc_error (lp, tg, il, 2, tl, 2, 3, DL_ERROR_ARGUMENT, "blank must be in label range");
  assert_ctc_error (lp, tg, il, 1, tl, 2, 0, DL_ERROR_SHAPE, "input_lengths must be of size");
  assert_ctc_error (lp, tg, (gint64[]){ 3, 4 }, 2, tl, 2, 0, DL_ERROR_ARGUMENT,
                    "input_lengths to have value at most 3, but got value 4");
  assert_ctc_error (lp, tg, il, 2, (gint64[]){ 2, 3 }, 2, 0, DL_ERROR_SHAPE,
                    "size at least 3 at dimension 1, but got size 2");
  assert_ctc_error (lp, tg_bad, il, 2, tl, 2, 0, DL_ERROR_ARGUMENT, "out of the label range");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ctc/counted", test_ctc_counted);
  g_test_add_func ("/ctc/unbatched-and-blank", test_ctc_unbatched_and_blank);
  g_test_add_data_func ("/ctc/gradcheck", &ctc_grad_case, dl_test_gradcheck);
  g_test_add_func ("/ctc/errors", test_ctc_errors);

  return g_test_run ();
}
