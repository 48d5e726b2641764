/* test-gradcheck.c: dl_autograd_gradcheck() and gradgradcheck() from C:
 * passing and failing functions, the error they report, the inputs left
 * as they were, and the node names table.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

#define EPS 1e-6
#define ATOL 1e-5
#define RTOL 1e-3

static DlTensor *
leaf (const gint64 *shape, gsize n_dims, gdouble lo)
{
  g_autoptr (GError) error = NULL;
  gint64 n = dl_test_numel (shape, n_dims);
  g_autofree gdouble *v = dl_test_random_values (n);
  DlTensor *t;

  for (gint64 i = 0; i < n; i++)
    v[i] = lo + (v[i] + 1) / 2; /* in [lo, lo + 1) */
  t = dl_test_tensor (v, shape, n_dims, DL_DTYPE_FLOAT64);
  g_assert_true (dl_tensor_set_requires_grad (t, TRUE, &error));
  return t;
}

static GPtrArray *
one (DlTensor *t)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  if (t)
    g_ptr_array_add (out, t);
  return out;
}

/* (a * b).sin (), and (a - b) summed over dim 1: two outputs */
static GPtrArray *
f_two_outputs (DlTensor **x, guint n, gpointer user_data, GError **error)
{
  g_autoptr (DlTensor) p = dl_tensor_mul (x[0], x[1], error);
  g_autoptr (DlTensor) d = p ? dl_tensor_sub (x[0], x[1], error) : NULL;
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 dim = 1;
  DlTensor *s, *r;

  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (user_data, ==, "data");
  if (!d || !(s = dl_tensor_sin (p, error)))
    return NULL;
  g_ptr_array_add (out, s);
  if (!(r = dl_tensor_sum_dims (d, &dim, 1, FALSE, error)))
    return NULL;
  g_ptr_array_add (out, r);
  return g_steal_pointer (&out);
}

/* x * |x| with |x| detached: the gradient misses the |x| term */
static GPtrArray *
f_wrong (DlTensor **x, guint n, gpointer user_data, GError **error)
{
  g_autoptr (DlTensor) a = dl_tensor_abs (x[0], error);
  g_autoptr (DlTensor) d = a ? dl_tensor_detach (a) : NULL;

  return d ? one (dl_tensor_mul (x[0], d, error)) : NULL;
}

/* x^3 as x * x * x: first and second derivatives right */
static GPtrArray *
f_cube (DlTensor **x, guint n, gpointer user_data, GError **error)
{
  g_autoptr (DlTensor) sq = dl_tensor_mul (x[0], x[0], error);

  return sq ? one (dl_tensor_mul (sq, x[0], error)) : NULL;
}

/* x^2 as x * x.detach () + x.detach () * (x - x.detach ()): the value and
 * the first derivative (2 x) are right, the second derivative is lost */
static GPtrArray *
f_first_order_only (DlTensor **x, guint n, gpointer user_data, GError **error)
{
  g_autoptr (DlTensor) d = dl_tensor_detach (x[0]);
  g_autoptr (DlTensor) a = dl_tensor_mul (x[0], d, error);
  g_autoptr (DlTensor) b = a ? dl_tensor_sub (x[0], d, error) : NULL;
  g_autoptr (DlTensor) c = b ? dl_tensor_mul (d, b, error) : NULL;

  return c ? one (dl_tensor_add (a, c, error)) : NULL;
}

/* the product over dims 0 and 2 */
static GPtrArray *
f_prod_dims (DlTensor **x, guint n, gpointer user_data, GError **error)
{
  return one (dl_tensor_prod_dims (x[0], (gint64[]){ 0, 2 }, 2, FALSE, error));
}

static GPtrArray *
f_fails (DlTensor **x, guint n, gpointer user_data, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "f_fails: no");
  return NULL;
}

static void
test_pass (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = leaf ((gint64[]){ 3, 4 }, 2, -0.5);
  g_autoptr (DlTensor) b = leaf ((gint64[]){ 4 }, 1, -0.5);
  DlTensor *x[] = { a, b };

  g_assert_true (dl_autograd_gradcheck (f_two_outputs, "data", x, 2, EPS, ATOL, RTOL, TRUE, 0,
                                        TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (dl_autograd_gradgradcheck (f_two_outputs, "data", x, 2, NULL, 0, EPS, ATOL, RTOL,
                                            TRUE, TRUE, 0, TRUE, &error));
  g_assert_no_error (error);
}

static void
test_mismatch (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gint64[]){ 2, 3 }, 2, 0.5);
  g_autofree gdouble *before = dl_test_values (x);
  g_autofree gdouble *after = NULL;
  const gchar *element;

  g_assert_false (
      dl_autograd_gradcheck (f_wrong, NULL, &x, 1, EPS, ATOL, RTOL, TRUE, 0, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_true (g_str_has_prefix (error->message,
                                   "Jacobian mismatch for output 0 with respect to input 0,\n"
                                   "numerical:tensor("));
  g_assert_nonnull (strstr (error->message, "\nanalytical:tensor("));
  /* d out[0, 0] / d x[0, 0] is 2 x numerically, x analytically (x > 0) */
  element = strstr (error->message, "first mismatch: d output 0[0, 0] / d input 0[0, 0]: numerical ");
  g_assert_nonnull (element);
  element = strchr (element, ':') + 1;
  element = strstr (element, "numerical ") + strlen ("numerical ");
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (element, NULL), 2 * before[0], 1e-6);
  element = strstr (element, ", analytical ");
  g_assert_nonnull (element);
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (element + strlen (", analytical "), NULL),
                                  before[0], 1e-9);
  g_clear_error (&error);

  /* not raising: FALSE and no error */
  g_assert_false (
      dl_autograd_gradcheck (f_wrong, NULL, &x, 1, EPS, ATOL, RTOL, FALSE, 0, TRUE, &error));
  g_assert_no_error (error);

  /* the input is as it was */
  after = dl_test_values (x);
  for (gint i = 0; i < 6; i++)
    g_assert_cmpfloat (after[i], ==, before[i]);
}

static void
test_second_order (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gint64[]){ 4 }, 1, 0.5);

  g_assert_true (
      dl_autograd_gradcheck (f_cube, NULL, &x, 1, EPS, ATOL, RTOL, TRUE, 0, TRUE, &error));
  g_assert_true (dl_autograd_gradgradcheck (f_cube, NULL, &x, 1, NULL, 0, EPS, ATOL, RTOL, FALSE,
                                            TRUE, 0, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (dl_autograd_gradcheck (f_first_order_only, NULL, &x, 1, EPS, ATOL, RTOL, TRUE, 0,
                                        TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (dl_autograd_gradgradcheck (f_first_order_only, NULL, &x, 1, NULL, 0, EPS, ATOL,
                                             RTOL, FALSE, TRUE, 0, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_true (g_str_has_prefix (error->message, "Jacobian mismatch for output 0"));
}

/* prod's second derivatives where its input has zeros (one, or two, in
 * a product) */
static void
test_prod_zeros (void)
{
  g_autoptr (GError) error = NULL;
  gdouble v[12] = { 0.5, 0, 1.5, 1.2, -0.3, 0.7, 0.4, 0.9, -1.1, 0, 2, 0 };
  g_autoptr (DlTensor) x = dl_test_tensor (v, (gint64[]){ 2, 2, 3 }, 3, DL_DTYPE_FLOAT64);

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  g_assert_true (
      dl_autograd_gradcheck (f_prod_dims, NULL, &x, 1, EPS, ATOL, RTOL, TRUE, 0, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (dl_autograd_gradgradcheck (f_prod_dims, NULL, &x, 1, NULL, 0, EPS, ATOL, RTOL,
                                            FALSE, TRUE, 0, TRUE, &error));
  g_assert_no_error (error);
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gint64[]){ 3 }, 1, 0);
  g_autoptr (DlTensor) c = dl_test_tensor ((gdouble[]){ 1, 2, 3 }, (gint64[]){ 3 }, 1,
                                           DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) g = dl_test_tensor ((gdouble[]){ 1, 2 }, (gint64[]){ 2 }, 1,
                                           DL_DTYPE_FLOAT64);

  /* the function's own error, even when not raising */
  g_assert_false (
      dl_autograd_gradcheck (f_fails, NULL, &x, 1, EPS, ATOL, RTOL, FALSE, 0, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);

  /* no input requires grad */
  g_assert_false (
      dl_autograd_gradcheck (f_cube, NULL, &c, 1, EPS, ATOL, RTOL, TRUE, 0, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);

  /* grad_outputs of the wrong number and shape */
  g_assert_false (dl_autograd_gradgradcheck (f_cube, NULL, &x, 1, (DlTensor *[]){ g, g }, 2, EPS,
                                             ATOL, RTOL, FALSE, TRUE, 0, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (dl_autograd_gradgradcheck (f_cube, NULL, &x, 1, &g, 1, EPS, ATOL, RTOL, FALSE,
                                             TRUE, 0, TRUE, &error));
  g_assert_nonnull (error);
}

static void
test_node_names (void)
{
  const gchar *const *names = dl_autograd_get_node_names ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gint64[]){ 3 }, 1, 0);
  g_autoptr (DlTensor) y = dl_tensor_exp (x, &error);
  const gchar *made = dl_node_get_name (dl_tensor_get_grad_fn (y));
  gboolean found = FALSE;
  guint n = 0;

  for (; names[n]; n++)
    {
      if (n)
        g_assert_cmpint (strcmp (names[n - 1], names[n]), <, 0);
      found |= g_str_equal (names[n], made);
    }
  g_assert_true (found);
  g_assert_cmpuint (n, >, 50);
  g_assert_true (g_strv_contains (names, "MmBackward0"));
  g_assert_true (g_strv_contains (names, "CopySlices"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gradcheck/pass", test_pass);
  g_test_add_func ("/gradcheck/mismatch", test_mismatch);
  g_test_add_func ("/gradcheck/second-order", test_second_order);
  g_test_add_func ("/gradcheck/prod-zeros", test_prod_zeros);
  g_test_add_func ("/gradcheck/errors", test_errors);
  g_test_add_func ("/gradcheck/node-names", test_node_names);
  return g_test_run ();
}
