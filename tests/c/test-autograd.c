/* test-autograd.c: gradients checked against central finite differences in
 * float64, accumulation, retain_graph, no_grad, and that a graph leaves no
 * reference cycles behind.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-gradcheck.h"

#define TOL_EXACT 1e-12

/* The functions under test */

static DlTensor *
f_add (DlTensor **x, GError **e)
{
  return dl_tensor_add (x[0], x[1], e);
}
static DlTensor *
f_sub (DlTensor **x, GError **e)
{
  return dl_tensor_sub (x[0], x[1], e);
}
static DlTensor *
f_mul (DlTensor **x, GError **e)
{
  return dl_tensor_mul (x[0], x[1], e);
}
static DlTensor *
f_div (DlTensor **x, GError **e)
{
  return dl_tensor_div (x[0], x[1], e);
}
static DlTensor *
f_matmul (DlTensor **x, GError **e)
{
  return dl_tensor_matmul (x[0], x[1], e);
}
static DlTensor *
f_sum (DlTensor **x, GError **e)
{
  return dl_tensor_sum (x[0], e);
}
static DlTensor *
f_mean (DlTensor **x, GError **e)
{
  return dl_tensor_mean (x[0], e);
}
static DlTensor *
f_log_softmax1 (DlTensor **x, GError **e)
{
  return dl_tensor_log_softmax (x[0], 1, e);
}
static DlTensor *
f_log_softmax0 (DlTensor **x, GError **e)
{
  return dl_tensor_log_softmax (x[0], 0, e);
}

/* one node with seven inputs (nodes have no fixed arity) */
static DlTensor *
f_cat7 (DlTensor **x, GError **e)
{
  return dl_cat (x, 7, 1, e);
}

static DlTensor *
f_sum_dims (DlTensor **x, GError **e)
{
  return dl_tensor_sum_dims (x[0], (gint64[]){ 0, 2 }, 2, TRUE, e);
}

static DlTensor *
f_mean_dims (DlTensor **x, GError **e)
{
  return dl_tensor_mean_dims (x[0], (gint64[]){ -1 }, 1, FALSE, e);
}

static DlTensor *
f_max_dim (DlTensor **x, GError **e)
{
  g_autoptr (DlTensor) idx = NULL;

  return dl_tensor_max_dim (x[0], 1, FALSE, &idx, e);
}

static DlTensor *
f_softmax (DlTensor **x, GError **e)
{
  return dl_tensor_softmax (x[0], -1, e);
}
static DlTensor *
f_maximum (DlTensor **x, GError **e)
{
  return dl_tensor_maximum (x[0], x[1], e);
}
static DlTensor *
f_minimum (DlTensor **x, GError **e)
{
  return dl_tensor_minimum (x[0], x[1], e);
}
static DlTensor *
f_max (DlTensor **x, GError **e)
{
  return dl_tensor_max (x[0], e);
}
static DlTensor *
f_add_scaled (DlTensor **x, GError **e)
{
  return dl_tensor_add_scaled (x[0], x[1], -2.5, e);
}
static DlTensor *
f_rsub (DlTensor **x, GError **e)
{
  return dl_tensor_rsub_scalar (x[0], 3, e);
}
static DlTensor *
f_rdiv (DlTensor **x, GError **e)
{
  return dl_tensor_rdiv_scalar (x[0], 3, e);
}
static DlTensor *
f_div_scalar (DlTensor **x, GError **e)
{
  return dl_tensor_div_scalar (x[0], -4, e);
}

static DlTensor *
f_min_dim (DlTensor **x, GError **e)
{
  g_autoptr (DlTensor) idx = NULL;

  return dl_tensor_min_dim (x[0], 0, TRUE, &idx, e);
}

/* view, permute, expand, unsqueeze, flatten, reshape of a strided tensor */
static DlTensor *
f_shapes (DlTensor **x, GError **e)
{
  g_autoptr (DlTensor) v = dl_tensor_view (x[0], DL_TEST_SHAPE (2, 3, 2), e);
  g_autoptr (DlTensor) p = v ? dl_tensor_permute (v, (gint64[]){ 2, 0, 1 }, 3, e) : NULL;
  g_autoptr (DlTensor) u = p ? dl_tensor_unsqueeze (p, 1, e) : NULL;
  g_autoptr (DlTensor) ex = u ? dl_tensor_expand (u, DL_TEST_SHAPE (2, 3, 2, 3), e) : NULL;
  g_autoptr (DlTensor) f = ex ? dl_tensor_flatten (ex, 1, 2, e) : NULL;

  return f ? dl_tensor_reshape (f, DL_TEST_SHAPE (-1, 3), e) : NULL;
}

static DlTensor *
f_cross_entropy (DlTensor **x, GError **e)
{
  g_autoptr (DlTensor) target
      = dl_test_tensor ((gdouble[]){ 2, 0, 1, 2 }, DL_TEST_SHAPE (4), DL_DTYPE_INT64);

  return dl_cross_entropy (x[0], target, e);
}

/* matmul of a transposed operand: strided inputs and gradients */
static DlTensor *
f_matmul_t (DlTensor **x, GError **e)
{
  g_autoptr (DlTensor) at = dl_tensor_t (x[0], e);

  return at ? dl_tensor_matmul (at, x[1], e) : NULL;
}

/* a small chain: log_softmax (relu (x W) + b) */
static DlTensor *
f_chain (DlTensor **x, GError **e)
{
  g_autoptr (DlTensor) h = dl_tensor_matmul (x[0], x[1], e);
  g_autoptr (DlTensor) r = h ? dl_tensor_relu (h, e) : NULL;
  g_autoptr (DlTensor) s = r ? dl_tensor_add (r, x[2], e) : NULL;

  return s ? dl_tensor_log_softmax (s, -1, e) : NULL;
}

static const DlTestGradCase grad_cases[] = {
  { "add-bcast", f_add, 2, { { 3, 1 }, { 1, 4 } }, { 2, 2 }, 0, FALSE },
  { "sub", f_sub, 2, { { 2, 3 }, { 2, 1 } }, { 2, 2 }, 0, FALSE },
  { "mul", f_mul, 2, { { 2, 3, 1 }, { 3, 4 } }, { 3, 2 }, 0, FALSE },
  { "div", f_div, 2, { { 3, 4 }, { 3, 4 } }, { 2, 2 }, 0.5, FALSE },
  { "div-bcast", f_div, 2, { { 3, 4 }, { 4 } }, { 2, 1 }, 0.5, FALSE },
  { "matmul", f_matmul, 2, { { 3, 4 }, { 4, 5 } }, { 2, 2 }, 0, FALSE },
  { "matmul-batched", f_matmul, 2, { { 2, 3, 4 }, { 4, 2 } }, { 3, 2 }, 0, FALSE },
  { "matmul-bcast", f_matmul, 2, { { 2, 1, 2, 3 }, { 3, 3, 2 } }, { 4, 3 }, 0, FALSE },
  { "matmul-vec", f_matmul, 2, { { 3, 4 }, { 4 } }, { 2, 1 }, 0, FALSE },
  { "matmul-vecmat", f_matmul, 2, { { 4 }, { 4, 3 } }, { 1, 2 }, 0, FALSE },
  { "matmul-dot", f_matmul, 2, { { 5 }, { 5 } }, { 1, 1 }, 0, FALSE },
  { "matmul-transposed", f_matmul_t, 2, { { 4, 3 }, { 4, 2 } }, { 2, 2 }, 0, FALSE },
  { "sum", f_sum, 1, { { 3, 4 } }, { 2 }, 0, FALSE },
  { "sum-dims", f_sum_dims, 1, { { 2, 3, 4 } }, { 3 }, 0, FALSE },
  { "mean", f_mean, 1, { { 3, 4 } }, { 2 }, 0, FALSE },
  { "mean-dims", f_mean_dims, 1, { { 3, 4 } }, { 2 }, 0, FALSE },
  { "log-softmax", f_log_softmax1, 1, { { 3, 5 } }, { 2 }, 0, FALSE },
  { "log-softmax-dim0", f_log_softmax0, 1, { { 3, 5 } }, { 2 }, 0, FALSE },
  { "max-dim", f_max_dim, 1, { { 4, 5 } }, { 2 }, 0, FALSE },
  { "chain", f_chain, 3, { { 4, 3 }, { 3, 5 }, { 5 } }, { 2, 2, 1 }, 0, FALSE },
  { "cat-7",
    f_cat7,
    7,
    { { 2, 1 }, { 2, 3 }, { 2, 2 }, { 2, 1 }, { 2, 4 }, { 2, 1 }, { 2, 2 } },
    { 2, 2, 2, 2, 2, 2, 2 },
    0,
    FALSE },
  { "softmax", f_softmax, 1, { { 3, 4 } }, { 2 }, 0, FALSE },
  { "maximum", f_maximum, 2, { { 3, 4 }, { 4 } }, { 2, 1 }, 0, FALSE },
  { "minimum", f_minimum, 2, { { 3, 4 }, { 3, 1 } }, { 2, 2 }, 0, FALSE },
  { "max", f_max, 1, { { 3, 4 } }, { 2 }, 0, FALSE },
  { "min-dim", f_min_dim, 1, { { 3, 4 } }, { 2 }, 0, FALSE },
  { "add-scaled", f_add_scaled, 2, { { 3, 4 }, { 3, 4 } }, { 2, 2 }, 0, FALSE },
  { "rsub-scalar", f_rsub, 1, { { 3, 4 } }, { 2 }, 0, FALSE },
  { "rdiv-scalar", f_rdiv, 1, { { 3, 4 } }, { 2 }, 0.5, FALSE },
  { "div-scalar", f_div_scalar, 1, { { 3, 4 } }, { 2 }, 0, FALSE },
  { "shapes", f_shapes, 1, { { 12 } }, { 1 }, 0, FALSE },
  { "cross-entropy", f_cross_entropy, 1, { { 4, 3 } }, { 2 }, 0, FALSE },
};

/* Accumulation and retain_graph */

static void
test_accumulate (void)
{
  g_autoptr (GError) error = NULL;
  const gdouble xv[] = { 1.0, -2.0, 3.0 };
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) sq = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) y2 = NULL;

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  g_assert_true (dl_tensor_is_leaf (x));
  sq = dl_tensor_mul (x, x, &error);
  y = dl_tensor_sum (sq, &error);
  g_assert_no_error (error);
  g_assert_false (dl_tensor_is_leaf (y));

  g_assert_true (dl_tensor_backward (y, NULL, TRUE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 2, -4, 6 }, 3, 0);
  /* the graph was retained: a second backward adds the same again */
  g_assert_true (dl_tensor_backward (y, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 4, -8, 12 }, 3, 0);
  /* a third without retain_graph: the saved tensors are gone */
  g_assert_false (dl_tensor_backward (y, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "second time"));
  g_clear_error (&error);
  /* the failed backward left the gradient alone */
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 4, -8, 12 }, 3, 0);

  /* a fresh graph accumulates into the same leaf */
  y2 = dl_tensor_sum (x, &error);
  g_assert_true (dl_tensor_backward (y2, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 5, -7, 13 }, 3, 0);

  /* set_grad (NULL) clears it */
  dl_tensor_set_grad (x, NULL, NULL);
  g_assert_null (dl_tensor_get_grad (x));
}

static void
test_backward_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_ones (DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) g = NULL;

  /* nothing requires grad */
  g_assert_false (dl_tensor_backward (x, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_clear_error (&error);

  /* a non-scalar output needs an explicit gradient */
  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = dl_tensor_mul_scalar (x, 3, &error);
  g_assert_false (dl_tensor_backward (y, NULL, TRUE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_clear_error (&error);
  g = dl_full (DL_TEST_SHAPE (2, 2), 0.5, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_true (dl_tensor_backward (y, g, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 1.5, 1.5, 1.5, 1.5 }, 4, 0);

  /* a non-leaf cannot stop requiring grad */
  g_assert_false (dl_tensor_set_requires_grad (y, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
}

static void
test_no_grad (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) d = NULL;
  gboolean was;

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  g_assert_true (dl_is_grad_enabled ());
  was = dl_set_grad_enabled (FALSE);
  g_assert_true (was);
  g_assert_false (dl_is_grad_enabled ());
  y = dl_tensor_mul (x, x, &error);
  z = dl_tensor_sum (y, &error);
  g_assert_no_error (error);
  g_assert_null (dl_tensor_get_grad_fn (y));
  g_assert_false (dl_tensor_get_requires_grad (y));
  g_assert_null (dl_tensor_get_grad_fn (z));
  g_assert_false (dl_set_grad_enabled (was));
  g_assert_true (dl_is_grad_enabled ());
  /* nothing was recorded, so there is nothing to run backward through */
  g_assert_false (dl_tensor_backward (z, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_null (dl_tensor_get_grad (x));
  g_clear_error (&error);

  /* detach: same values and storage, out of the graph */
  d = dl_tensor_detach (x);
  g_assert_false (dl_tensor_get_requires_grad (d));
  g_assert_null (dl_tensor_get_grad_fn (d));
  g_assert_true (dl_tensor_get_storage (d) == dl_tensor_get_storage (x));
}

static void
test_grad_fn_names (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_ones (DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) b = dl_ones (DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) d = NULL;
  DlNode *node;

  dl_tensor_set_requires_grad (a, TRUE, &error);
  c = dl_tensor_matmul (a, b, &error);
  d = dl_tensor_add (c, a, &error);
  g_assert_no_error (error);
  g_assert_null (dl_tensor_get_grad_fn (a));
  node = dl_tensor_get_grad_fn (d);
  g_assert_cmpstr (dl_node_get_name (node), ==, "AddBackward0");
  g_assert_cmpuint (dl_node_get_n_inputs (node), ==, 2);
  g_assert_true (dl_node_get_next_node (node, 0) == dl_tensor_get_grad_fn (c));
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (c)), ==, "MmBackward0");
}

/* A node takes any number of inputs: cat of 9 tensors is one node with an
 * edge to each. */
static void
test_many_inputs (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) xs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) yw = NULL;
  g_autoptr (DlTensor) loss = NULL;
  DlNode *node;
  gint64 offset = 0;

  for (gint i = 0; i < 9; i++)
    {
      DlTensor *x = dl_zeros (DL_TEST_SHAPE (i + 1), DL_DTYPE_FLOAT64, NULL, &error);
      g_assert_no_error (error);
      dl_tensor_set_requires_grad (x, TRUE, &error);
      g_ptr_array_add (xs, x);
    }
  y = dl_cat ((DlTensor **)xs->pdata, xs->len, 0, &error);
  g_assert_no_error (error);
  node = dl_tensor_get_grad_fn (y);
  g_assert_cmpstr (dl_node_get_name (node), ==, "CatBackward0");
  g_assert_cmpuint (dl_node_get_n_inputs (node), ==, 9);
  for (guint i = 0; i < 9; i++)
    g_assert_null (dl_node_get_next_node (node, i)); /* leaves */
  /* loss = sum (y * (0, 1, 2, ...)): input i's gradient is its slice */
  w = dl_arange (0, 45, 1, DL_DTYPE_FLOAT64, NULL, &error);
  yw = dl_tensor_mul (y, w, &error);
  loss = dl_tensor_sum (yw, &error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  for (gint i = 0; i < 9; i++)
    {
      DlTensor *grad = dl_tensor_get_grad (g_ptr_array_index (xs, i));
      g_autofree gdouble *expected = g_new (gdouble, i + 1);

      for (gint k = 0; k <= i; k++)
        expected[k] = offset + k;
      offset += i + 1;
      dl_test_assert_values (grad, expected, i + 1, 0);
    }
}

static void
test_create_graph (void)
{
  g_autoptr (GError) error = NULL;
  const gdouble xv[] = { 1.0, 2.0 };
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) x2 = NULL;
  g_autoptr (DlTensor) x3 = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) gs = NULL;

  /* y = sum (x^3): dy/dx = 3x^2, and d/dx sum (3x^2) = 6x */
  dl_tensor_set_requires_grad (x, TRUE, &error);
  x2 = dl_tensor_mul (x, x, &error);
  x3 = dl_tensor_mul (x2, x, &error);
  y = dl_tensor_sum (x3, &error);
  /* create_graph needs retain_graph (PyTorch's default for it): the
   * gradient's graph runs through the nodes of the first one */
  g_assert_true (dl_tensor_backward (y, NULL, TRUE, TRUE, &error));
  g_assert_no_error (error);
  g = g_object_ref (dl_tensor_get_grad (x));
  dl_test_assert_values (g, (gdouble[]){ 3, 12 }, 2, TOL_EXACT);
  g_assert_nonnull (dl_tensor_get_grad_fn (g));
  dl_tensor_set_grad (x, NULL, NULL);
  gs = dl_tensor_sum (g, &error);
  g_assert_true (dl_tensor_backward (gs, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 6, 12 }, 2, TOL_EXACT);
}

/* In-place ops and autograd */

static DlTensor *
leaf3 (gdouble a, gdouble b, gdouble c)
{
  g_autoptr (GError) error = NULL;
  DlTensor *x = dl_test_tensor ((gdouble[]){ a, b, c }, DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64);

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  return x;
}

static void
test_inplace_checks (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf3 (1, 2, 3);
  DlTensor *r = NULL; /* in-place ops return their tensor, borrowed */
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) s = NULL;
  gboolean was;

  /* a leaf that requires grad cannot be written in place ... */
  r = dl_tensor_add_scalar_ (x, 1, &error);
  g_assert_null (r);
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_clear_error (&error);
  dl_test_assert_values (x, (gdouble[]){ 1, 2, 3 }, 3, 0);
  /* ... except with grad recording off, as an optimizer step does */
  was = dl_set_grad_enabled (FALSE);
  r = dl_tensor_add_scalar_ (x, 1, &error);
  dl_set_grad_enabled (was);
  g_assert_no_error (error);
  g_assert_true (r == x);
  dl_test_assert_values (x, (gdouble[]){ 2, 3, 4 }, 3, 0);
  g_assert_true (dl_tensor_is_leaf (x));

  /* exp saves its output: changing it in place makes backward refuse */
  y = dl_tensor_exp (x, &error);
  s = dl_tensor_sum (y, &error);
  r = dl_tensor_mul_scalar_ (y, 2, &error);
  g_assert_no_error (error);
  g_assert_false (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "inplace"));
}

static void
check_inplace_non_leaf (gboolean use_mul)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf3 (1, 2, 3);
  g_autoptr (DlTensor) y = dl_tensor_mul_scalar (x, 2, &error);
  DlTensor *r = NULL; /* in-place ops return their tensor, borrowed */
  g_autoptr (DlTensor) s = NULL;
  gdouble expected = use_mul ? 6 : 2;

  /* y = 2x; y *= 3 (or y += 1); d sum (y) / dx = 6 (or 2), as in PyTorch */
  r = use_mul ? dl_tensor_mul_scalar_ (y, 3, &error) : dl_tensor_add_scalar_ (y, 1, &error);
  g_assert_no_error (error);
  g_assert_true (r == y);
  dl_test_assert_values (y, use_mul ? (gdouble[]){ 6, 12, 18 } : (gdouble[]){ 3, 5, 7 }, 3, 0);
  s = dl_tensor_sum (y, &error);
  if (!dl_tensor_backward (s, NULL, FALSE, FALSE, &error))
    {
      g_test_fail_printf ("backward after an in-place %s on a non-leaf failed: %s",
                          use_mul ? "mul_scalar_" : "add_scalar_", error->message);
      return;
    }
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ expected, expected, expected }, 3, 0);
}

static void
test_inplace_non_leaf_add (void)
{
  check_inplace_non_leaf (FALSE);
}

static void
test_inplace_non_leaf_mul (void)
{
  check_inplace_non_leaf (TRUE);
}

/* An op keeps only what the gradients of the inputs that require grad
 * read: y * c keeps c, not y, so y may change in place afterwards; but c
 * is kept, and changing it makes backward refuse. */
static void
test_inplace_saved_only_needed (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf3 (1, 2, 3);
  g_autoptr (DlTensor) c
      = dl_test_tensor ((gdouble[]){ 2, 3, 4 }, DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) y = dl_tensor_mul_scalar (x, 1, &error);
  g_autoptr (DlTensor) z = dl_tensor_mul (y, c, &error);
  g_autoptr (DlTensor) q = dl_tensor_div (y, c, &error);
  g_autoptr (DlTensor) zq = dl_tensor_add (z, q, &error);
  g_autoptr (DlTensor) s = dl_tensor_sum (zq, &error);
  g_autoptr (DlTensor) s2 = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (dl_tensor_mul_scalar_ (y, 5, &error));
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  /* d (y c + y / c) / dx = c + 1 / c */
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 2.5, 3 + 1.0 / 3, 4.25 }, 3, 1e-12);

  g_clear_object (&z);
  g_clear_object (&s);
  z = dl_tensor_mul (x, c, &error);
  s2 = dl_tensor_sum (z, &error);
  g_assert_nonnull (dl_tensor_add_scalar_ (c, 1, &error));
  g_assert_no_error (error);
  g_assert_false (dl_tensor_backward (s2, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
}

/* Writing through a view of a non-leaf changes the base: the base's
 * history records the write (CopySlices) and its gradient follows. */
static void
test_inplace_view_of_non_leaf (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf3 (1, 2, 3);
  g_autoptr (DlTensor) y = dl_tensor_mul_scalar (x, 1, &error);
  g_autoptr (DlTensor) v = dl_tensor_slice (y, 0, 1, 3, 1, &error);
  DlTensor *r = dl_tensor_mul_scalar_ (v, 5, &error);
  g_autoptr (DlTensor) s = NULL;

  g_assert_no_error (error);
  g_assert_true (r == v);
  dl_test_assert_values (y, (gdouble[]){ 1, 10, 15 }, 3, 0);
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (y)), ==, "CopySlices");
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (v)), ==, "AsStridedBackward0");
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 1, 5, 5 }, 3, 0);
}

/* Writing a tensor that requires grad into a view of a plain tensor makes
 * the plain tensor part of the graph; a view of a leaf that requires grad
 * cannot be written. */
static void
test_inplace_view_copy_from_grad (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) w = leaf3 (1, 2, 3);
  g_autoptr (DlTensor) z = dl_zeros (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) row = dl_tensor_select (z, 0, 1, &error);
  DlTensor *done = dl_tensor_copy_ (row, w, &error);
  g_autoptr (DlTensor) sq = NULL, s = NULL, wv = NULL;
  DlTensor *bad = NULL;

  g_assert_no_error (error);
  g_assert_true (done == row);
  g_assert_true (dl_tensor_get_requires_grad (z));
  sq = dl_tensor_mul (z, z, &error);
  s = dl_tensor_sum (sq, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  dl_test_assert_values (dl_tensor_get_grad (w), (gdouble[]){ 2, 4, 6 }, 3, 0);

  wv = dl_tensor_slice (w, 0, 0, 2, 1, &error);
  bad = dl_tensor_add_scalar_ (wv, 1, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
}

/* Reference cycles: after backward (or without it) and dropping every
 * reference, the tensors and the nodes of the graph are finalized. */

static void
check_graph_freed (gboolean run_backward, gboolean retain_graph)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", NULL);
  guint64 before = dl_device_get_memory_allocated (cpu);
  DlTensor *x = dl_randn (DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT32, NULL, &error);
  DlTensor *w = dl_randn (DL_TEST_SHAPE (4, 2), DL_DTYPE_FLOAT32, NULL, &error);
  DlTensor *h, *e, *ls, *y;
  gpointer h_weak, e_weak, ls_weak, y_weak, grad_weak = NULL;
  gpointer mm_node, exp_node, lsm_node, sum_node;

  dl_tensor_set_requires_grad (w, TRUE, &error);
  h = dl_tensor_matmul (x, w, &error);       /* saves its inputs */
  e = dl_tensor_exp (h, &error);             /* saves its output */
  ls = dl_tensor_log_softmax (e, 1, &error); /* a composite */
  y = dl_tensor_mean (ls, &error);
  g_assert_no_error (error);

  h_weak = h, e_weak = e, ls_weak = ls, y_weak = y;
  g_object_add_weak_pointer (G_OBJECT (h), &h_weak);
  g_object_add_weak_pointer (G_OBJECT (e), &e_weak);
  g_object_add_weak_pointer (G_OBJECT (ls), &ls_weak);
  g_object_add_weak_pointer (G_OBJECT (y), &y_weak);
  mm_node = dl_tensor_get_grad_fn (h);
  exp_node = dl_tensor_get_grad_fn (e);
  lsm_node = dl_tensor_get_grad_fn (ls);
  sum_node = dl_tensor_get_grad_fn (y);
  g_object_add_weak_pointer (mm_node, &mm_node);
  g_object_add_weak_pointer (exp_node, &exp_node);
  g_object_add_weak_pointer (lsm_node, &lsm_node);
  g_object_add_weak_pointer (sum_node, &sum_node);

  if (run_backward)
    {
      g_assert_true (dl_tensor_backward (y, NULL, retain_graph, FALSE, &error));
      g_assert_no_error (error);
      grad_weak = dl_tensor_get_grad (w);
      g_assert_nonnull (grad_weak);
      g_object_add_weak_pointer (grad_weak, &grad_weak);
    }

  g_object_unref (y);
  g_object_unref (ls);
  g_object_unref (e);
  g_object_unref (h);
  g_assert_null (y_weak);
  g_assert_null (ls_weak);
  g_assert_null (e_weak);
  g_assert_null (h_weak);
  g_assert_null (sum_node);
  g_assert_null (lsm_node);
  g_assert_null (exp_node);
  g_assert_null (mm_node);
  /* the leaves are now held by the test alone */
  g_assert_finalize_object (x);
  g_assert_finalize_object (w);
  g_assert_null (grad_weak);
  /* and so are the storages: the device holds no more memory than before */
  g_assert_cmpuint (dl_device_get_memory_allocated (cpu), ==, before);
}

static void
test_no_cycles (void)
{
  check_graph_freed (FALSE, FALSE);
  check_graph_freed (TRUE, FALSE);
  check_graph_freed (TRUE, TRUE);
}

/* The same through in-place writes into views: the base's CopySlices, the
 * view's regenerated history and a stale view, all freed with the tensors. */
static void
check_view_graph_freed (gboolean run_backward)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", NULL);
  guint64 before = dl_device_get_memory_allocated (cpu);
  DlTensor *x = dl_randn (DL_TEST_SHAPE (64, 64), DL_DTYPE_FLOAT32, NULL, &error);
  DlTensor *w = dl_randn (DL_TEST_SHAPE (64), DL_DTYPE_FLOAT32, NULL, &error);
  DlTensor *y, *v, *a, *p, *s, *done;
  gpointer y_weak, v_weak, a_weak, s_weak, base_node;

  dl_tensor_set_requires_grad (x, TRUE, &error);
  dl_tensor_set_requires_grad (w, TRUE, &error);
  y = dl_tensor_mul_scalar (x, 2, &error);
  a = dl_tensor_select (y, 0, 0, &error); /* goes stale below */
  v = dl_tensor_select (y, 0, 3, &error);
  done = dl_tensor_mul_ (v, w, &error);
  g_assert_true (done == v);
  p = dl_tensor_mul (a, v, &error); /* a regenerated: AsStridedBackward0 */
  s = dl_tensor_sum (p, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (a)), ==, "AsStridedBackward0");
  y_weak = y, v_weak = v, a_weak = a, s_weak = s;
  base_node = dl_tensor_get_grad_fn (y);
  g_object_add_weak_pointer (G_OBJECT (y), &y_weak);
  g_object_add_weak_pointer (G_OBJECT (v), &v_weak);
  g_object_add_weak_pointer (G_OBJECT (a), &a_weak);
  g_object_add_weak_pointer (G_OBJECT (s), &s_weak);
  g_object_add_weak_pointer (base_node, &base_node);
  if (run_backward)
    {
      g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
      g_assert_no_error (error);
    }
  g_object_unref (s);
  g_object_unref (p);
  g_object_unref (v);
  g_object_unref (a);
  g_object_unref (y);
  g_assert_null (s_weak);
  g_assert_null (v_weak);
  g_assert_null (a_weak);
  g_assert_null (y_weak);
  g_assert_null (base_node);
  g_assert_finalize_object (x);
  g_assert_finalize_object (w);
  g_assert_cmpuint (dl_device_get_memory_allocated (cpu), ==, before);
}

static void
test_view_graph_freed (void)
{
  check_view_graph_freed (FALSE);
  check_view_graph_freed (TRUE);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (grad_cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/autograd/gradcheck/%s", grad_cases[i].name);
      g_test_add_data_func (path, &grad_cases[i], dl_test_gradcheck);
    }
  g_test_add_func ("/autograd/accumulate", test_accumulate);
  g_test_add_func ("/autograd/backward-errors", test_backward_errors);
  g_test_add_func ("/autograd/no-grad", test_no_grad);
  g_test_add_func ("/autograd/grad-fn-names", test_grad_fn_names);
  g_test_add_func ("/autograd/many-inputs", test_many_inputs);
  g_test_add_func ("/autograd/create-graph", test_create_graph);
  g_test_add_func ("/autograd/no-cycles", test_no_cycles);
  g_test_add_func ("/autograd/inplace/checks", test_inplace_checks);
  g_test_add_func ("/autograd/inplace/non-leaf-add", test_inplace_non_leaf_add);
  g_test_add_func ("/autograd/inplace/non-leaf-mul", test_inplace_non_leaf_mul);
  g_test_add_func ("/autograd/inplace/saved-only-needed", test_inplace_saved_only_needed);
  g_test_add_func ("/autograd/inplace/view-of-non-leaf", test_inplace_view_of_non_leaf);
  g_test_add_func ("/autograd/inplace/view-copy-from-grad", test_inplace_view_copy_from_grad);
  g_test_add_func ("/autograd/inplace/view-graph-freed", test_view_graph_freed);

  return g_test_run ();
}
