/* test-tensor.c: tensors, views, pointwise ops with broadcasting,
 * reductions, matmul, dtypes, bytes, repr. (The errors bad input gives
 * are in test-errors.c, in-place aliasing and memory in test-memory.c.)
 *
 * Every op is compared with a plain loop over arrays of doubles.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

#define TOL32 1e-5
#define TOL64 1e-12

/* Creation */

static void
test_create_zeros (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = dl_zeros (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, &error);
  const gint64 *strides;
  gsize n = 0;

  g_assert_no_error (error);
  dl_test_assert_shape (t, DL_TEST_SHAPE (2, 3));
  strides = dl_tensor_get_strides (t, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (strides[0], ==, 3);
  g_assert_cmpint (strides[1], ==, 1);
  g_assert_cmpint (dl_tensor_numel (t), ==, 6);
  g_assert_cmpint (dl_tensor_get_dtype (t), ==, DL_DTYPE_FLOAT32);
  g_assert_cmpuint (dl_tensor_element_size (t), ==, 4);
  g_assert_cmpint (dl_tensor_get_storage_offset (t), ==, 0);
  g_assert_true (dl_tensor_is_contiguous (t));
  g_assert_false (dl_tensor_get_requires_grad (t));
  g_assert_cmpstr (dl_device_get_name (dl_tensor_get_device (t)), ==, "cpu");
  g_assert_cmpint (dl_tensor_get_size (t, -1, &error), ==, 3);
  g_assert_no_error (error);
  dl_test_assert_values (t, (gdouble[6]){ 0 }, 6, 0);
}

static void
test_create_ones_full (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) o = dl_ones (DL_TEST_SHAPE (4), DL_DTYPE_INT64, NULL, &error);
  g_autoptr (DlTensor) f = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (o), ==, DL_DTYPE_INT64);
  dl_test_assert_values (o, (gdouble[]){ 1, 1, 1, 1 }, 4, 0);
  f = dl_full (DL_TEST_SHAPE (2, 2), -2.5, DL_DTYPE_FLOAT64, NULL, &error);
  g_assert_no_error (error);
  dl_test_assert_values (f, (gdouble[]){ -2.5, -2.5, -2.5, -2.5 }, 4, 0);
}

static void
test_create_arange (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 5, 1, DL_DTYPE_INT64, NULL, &error);
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) c = NULL;

  g_assert_no_error (error);
  dl_test_assert_shape (a, DL_TEST_SHAPE (5));
  dl_test_assert_values (a, (gdouble[]){ 0, 1, 2, 3, 4 }, 5, 0);
  b = dl_arange (1, 2, 0.25, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  dl_test_assert_values (b, (gdouble[]){ 1, 1.25, 1.5, 1.75 }, 4, 0);
  c = dl_arange (3, 0, -1, DL_DTYPE_FLOAT64, NULL, &error);
  g_assert_no_error (error);
  dl_test_assert_values (c, (gdouble[]){ 3, 2, 1 }, 3, 0);
}

static void
test_create_scalar (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) s = dl_tensor_new_scalar (3.5, DL_DTYPE_FLOAT64);
  gsize nd = 99;

  g_assert_cmpint (dl_tensor_get_ndim (s), ==, 0);
  dl_tensor_get_shape (s, &nd);
  g_assert_cmpuint (nd, ==, 0);
  g_assert_cmpint (dl_tensor_numel (s), ==, 1);
  g_assert_cmpfloat (dl_tensor_item (s, &error), ==, 3.5);
  g_assert_no_error (error);
}

static void
test_create_random (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) u2 = NULL;
  g_autoptr (DlTensor) n = NULL;
  g_autofree gdouble *uv = NULL;
  g_autofree gdouble *uv2 = NULL;
  g_autofree gdouble *nv = NULL;
  const gint64 count = 20000;
  gdouble mean = 0, var = 0;

  dl_manual_seed (42);
  u = dl_rand (&count, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  dl_manual_seed (42);
  u2 = dl_rand (&count, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  uv = dl_test_values (u);
  uv2 = dl_test_values (u2);
  g_assert_cmpmem (uv, count * sizeof (gdouble), uv2, count * sizeof (gdouble));
  for (gint64 i = 0; i < count; i++)
    {
      g_assert_cmpfloat (uv[i], >=, 0);
      g_assert_cmpfloat (uv[i], <, 1);
      mean += uv[i] / count;
    }
  g_assert_cmpfloat_with_epsilon (mean, 0.5, 0.02);

  n = dl_randn (&count, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_assert_no_error (error);
  nv = dl_test_values (n);
  mean = 0;
  for (gint64 i = 0; i < count; i++)
    mean += nv[i] / count;
  for (gint64 i = 0; i < count; i++)
    var += (nv[i] - mean) * (nv[i] - mean) / count;
  g_assert_cmpfloat_with_epsilon (mean, 0, 0.05);
  g_assert_cmpfloat_with_epsilon (var, 1, 0.05);
}

static void
test_create_empty_shape (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = dl_zeros (DL_TEST_SHAPE (0, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) s = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_numel (t), ==, 0);
  s = dl_tensor_sum (t, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (dl_tensor_item (s, &error), ==, 0);
}

/* Views */

static void
test_view_shares_storage (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) base = dl_zeros (DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlTensor) tv = NULL;
  g_autoptr (DlTensor) src = NULL;
  DlTensor *r = NULL;
  gdouble srcv[12], expected[12];

  flat = dl_tensor_view (base, DL_TEST_SHAPE (12), &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_storage (flat) == dl_tensor_get_storage (base));
  g_assert_cmpuint (dl_tensor_get_data_ptr (flat), ==, dl_tensor_get_data_ptr (base));

  /* writing through the flat view shows in the base */
  r = dl_tensor_fill_ (flat, 7, &error);
  g_assert_no_error (error);
  g_assert_true (r == flat); /* in-place ops return their tensor, borrowed */
  for (gint i = 0; i < 12; i++)
    expected[i] = 7;
  dl_test_assert_values (base, expected, 12, 0);

  /* copying into a transposed view writes the base transposed */
  tv = dl_tensor_t (base, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_storage (tv) == dl_tensor_get_storage (base));
  for (gint i = 0; i < 12; i++)
    srcv[i] = i + 1;
  src = dl_test_tensor (srcv, DL_TEST_SHAPE (4, 3), DL_DTYPE_FLOAT32);
  r = dl_tensor_copy_ (tv, src, &error);
  g_assert_no_error (error);
  g_assert_true (r == tv);
  for (gint i = 0; i < 3; i++)
    for (gint j = 0; j < 4; j++)
      expected[i * 4 + j] = srcv[j * 3 + i];
  dl_test_assert_values (base, expected, 12, 0);

  /* and an in-place op on the view too */
  r = dl_tensor_mul_scalar_ (tv, 2, &error);
  g_assert_no_error (error);
  for (gint i = 0; i < 12; i++)
    expected[i] *= 2;
  dl_test_assert_values (base, expected, 12, 0);
}

/* unfold's overlapping windows view the input; their gradient adds up */
static void
test_view_unfold (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 5, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) s = NULL;
  const gdouble windows[] = { 0, 1, 2, 2, 3, 4 };
  const gdouble grad[] = { 1, 1, 2, 1, 1 };

  g_assert_no_error (error);
  g_assert_true (dl_tensor_set_requires_grad (a, TRUE, &error));
  w = dl_tensor_unfold (a, 0, 3, 2, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (w, DL_TEST_SHAPE (2, 3));
  dl_test_assert_values (w, windows, 6, 0);
  g_assert_true (dl_tensor_get_storage (w) == dl_tensor_get_storage (a));
  s = dl_tensor_sum (w, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (a), grad, 5, 0);
  g_assert_null (dl_tensor_unfold (a, 0, 6, 1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

/* alias (t[...]): a second tensor over the same elements and strides,
 * recorded as AliasBackward0; its gradient passes through unchanged */
static void
test_view_alias (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 6, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) tr = NULL;
  g_autoptr (DlTensor) al = NULL;
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) prod = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) plain = NULL;
  const gdouble weights[] = { 1, 2, 3, 4, 5, 6 };
  const gdouble grad[] = { 1, 3, 5, 2, 4, 6 };

  g_assert_no_error (error);
  g_assert_true (dl_tensor_set_requires_grad (a, TRUE, &error));
  m = dl_tensor_view (a, DL_TEST_SHAPE (2, 3), &error);
  g_assert_no_error (error);
  tr = dl_tensor_t (m, &error);
  g_assert_no_error (error);
  al = dl_tensor_alias (tr, &error);
  g_assert_no_error (error);
  g_assert_true (al != tr);
  /* a view of a view has the first tensor as its base */
  g_assert_null (dl_tensor_get_base (a));
  g_assert_true (dl_tensor_get_base (tr) == a);
  g_assert_true (dl_tensor_get_base (al) == a);
  g_assert_true (dl_tensor_get_storage (al) == dl_tensor_get_storage (a));
  dl_test_assert_shape (al, DL_TEST_SHAPE (3, 2));
  g_assert_false (dl_tensor_is_contiguous (al));
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (al)), ==, "AliasBackward0");
  w = dl_test_tensor (weights, DL_TEST_SHAPE (3, 2), DL_DTYPE_FLOAT64);
  prod = dl_tensor_mul (al, w, &error);
  g_assert_no_error (error);
  s = dl_tensor_sum (prod, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (a), grad, 6, 0);

  /* a tensor without grad gets no node */
  plain = dl_tensor_alias (w, &error);
  g_assert_no_error (error);
  g_assert_null (dl_tensor_get_grad_fn (plain));
  g_assert_true (dl_tensor_get_data_ptr (plain) == dl_tensor_get_data_ptr (w));
}

/* split and unbind: one node (SplitBackward0 / UnbindBackward0) has every
 * piece as an output; a piece without a gradient contributes zeros */
static void
test_view_split_node (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 6, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) s = NULL;
  DlTensor **parts = NULL;
  DlTensor **rows = NULL;
  gsize n = 0, n_rows = 0;
  const gdouble want[] = { 0, 0, 3, 1, 1, 4 };

  g_assert_no_error (error);
  g_assert_true (dl_tensor_set_requires_grad (a, TRUE, &error));
  m = dl_tensor_view (a, DL_TEST_SHAPE (2, 3), &error);
  g_assert_no_error (error);
  parts = dl_tensor_split (m, 2, 1, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 2);
  dl_test_assert_shape (parts[1], DL_TEST_SHAPE (2, 1));
  g_assert_true (dl_tensor_get_grad_fn (parts[0]) == dl_tensor_get_grad_fn (parts[1]));
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (parts[1])), ==, "SplitBackward0");
  g_assert_cmpuint (dl_tensor_get_output_nr (parts[0]), ==, 0);
  g_assert_cmpuint (dl_tensor_get_output_nr (parts[1]), ==, 1);
  g_assert_true (dl_tensor_get_base (parts[1]) == a);
  /* as in torch, no in-place write into a piece that requires grad */
  g_assert_null (dl_tensor_mul_scalar_ (parts[0], 2, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "Output 0 of SplitBackward0"));
  g_clear_error (&error);
  s = dl_tensor_sum (parts[1], &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_clear_object (&s);
  rows = dl_tensor_unbind (m, 0, &n_rows, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_rows, ==, 2);
  g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (rows[0])), ==, "UnbindBackward0");
  g_assert_cmpuint (dl_tensor_get_output_nr (rows[1]), ==, 1);
  s = dl_tensor_sum (rows[1], &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_clear_object (&s);
  s = dl_tensor_sum (parts[1], &error);
  g_assert_no_error (error);
  {
    g_autoptr (DlTensor) twice = dl_tensor_mul_scalar (s, 2, &error);

    g_assert_no_error (error);
    g_assert_true (dl_tensor_backward (twice, NULL, FALSE, FALSE, &error));
    g_assert_no_error (error);
  }
  /* column 2 once, row 1 once, column 2 twice more (the node keeps no
   * tensors: a second pass through it needs no retain_graph, as in torch) */
  dl_test_assert_values (dl_tensor_get_grad (a), want, 6, 0);
  for (gsize i = 0; i < n; i++)
    g_object_unref (parts[i]);
  g_free (parts);
  for (gsize i = 0; i < n_rows; i++)
    g_object_unref (rows[i]);
  g_free (rows);
}

/* as_strided: windows over the storage at an offset; the gradient adds up
 * where windows overlap; a geometry past the storage is refused */
static void
test_view_as_strided (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 6, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) s = NULL;
  const gdouble windows[] = { 1, 2, 3, 2, 3, 4 };
  const gdouble grad[] = { 0, 1, 2, 2, 1, 0 };

  g_assert_no_error (error);
  g_assert_true (dl_tensor_set_requires_grad (a, TRUE, &error));
  w = dl_tensor_as_strided (a, DL_TEST_SHAPE (2, 3), (gint64[]){ 1, 1 }, 2, 1, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (w, DL_TEST_SHAPE (2, 3));
  dl_test_assert_values (w, windows, 6, 0);
  g_assert_true (dl_tensor_get_storage (w) == dl_tensor_get_storage (a));
  s = dl_tensor_sum (w, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  dl_test_assert_values (dl_tensor_get_grad (a), grad, 6, 0);
  g_assert_null (dl_tensor_as_strided (a, DL_TEST_SHAPE (2, 3), (gint64[]){ 3, 1 }, 2, 1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_tensor_as_strided (a, DL_TEST_SHAPE (2, 3), (gint64[]){ 1 }, 1, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

/* resize_ shrinks within the storage and grows into a new one that keeps
 * the old elements; a tensor that requires grad is refused */
static void
test_resize (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 6, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) g = dl_zeros (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32, NULL, &error);
  DlStorage *before = dl_tensor_get_storage (a);

  g_assert_no_error (error);
  g_assert_true (dl_tensor_resize_ (a, DL_TEST_SHAPE (2, 2), &error) == a);
  dl_test_assert_shape (a, DL_TEST_SHAPE (2, 2));
  dl_test_assert_values (a, ((const gdouble[]){ 0, 1, 2, 3 }), 4, 0);
  g_assert_true (dl_tensor_get_storage (a) == before);
  g_assert_true (dl_tensor_resize_ (a, DL_TEST_SHAPE (3, 4), &error) == a);
  g_assert_no_error (error);
  dl_test_assert_shape (a, DL_TEST_SHAPE (3, 4));
  g_assert_true (dl_tensor_get_storage (a) != before);
  g_assert_true (dl_tensor_is_contiguous (a));
  {
    g_autoptr (DlTensor) flat = dl_tensor_reshape (a, (gint64[]){ 12 }, 1, &error);
    g_autoptr (DlTensor) head = dl_tensor_slice (flat, 0, 0, 6, 1, &error);

    g_assert_no_error (error);
    dl_test_assert_values (head, ((const gdouble[]){ 0, 1, 2, 3, 4, 5 }), 6, 0);
  }
  g_assert_null (dl_tensor_resize_ (a, DL_TEST_SHAPE (-1, 2), &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_true (dl_tensor_set_requires_grad (g, TRUE, &error));
  g_assert_null (dl_tensor_resize_ (g, DL_TEST_SHAPE (4), &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
}

/* in-place views change the tensor's own geometry and take over the
 * history; a leaf that requires grad is refused */
static void
test_view_inplace (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 6, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) other = dl_arange (0, 3, 1, DL_DTYPE_INT64, NULL, &error);
  const gdouble grad[] = { 0, 1, 2, 3, 4, 5 };

  g_assert_no_error (error);
  m = dl_tensor_view (a, DL_TEST_SHAPE (2, 3), &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_set_requires_grad (m, TRUE, &error));
  g_assert_null (dl_tensor_unsqueeze_ (m, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_clear_error (&error);
  y = dl_tensor_mul (m, m, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_transpose_ (y, 0, 1, &error) == y);
  g_assert_true (dl_tensor_unsqueeze_ (y, 1, &error) == y);
  g_assert_true (dl_tensor_squeeze_dim_ (y, 1, &error) == y);
  g_assert_true (dl_tensor_t_ (y, &error) == y);
  g_assert_true (dl_tensor_t_ (y, &error) == y);
  g_assert_no_error (error);
  dl_test_assert_shape (y, DL_TEST_SHAPE (3, 2));
  s = dl_tensor_sum (y, &error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  /* d(m*m)/dm / 2 = m */
  {
    g_autoptr (DlTensor) half = dl_tensor_mul_scalar (dl_tensor_get_grad (m), 0.5, &error);
    dl_test_assert_values (half, grad, 6, 0);
  }
  /* replace_data: m aliases other's memory, keeping its autograd state */
  g_assert_true (dl_tensor_replace_data (m, other, &error));
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_storage (m) == dl_tensor_get_storage (other));
  g_assert_cmpint (dl_tensor_get_dtype (m), ==, DL_DTYPE_INT64);
  dl_test_assert_shape (m, DL_TEST_SHAPE (3));
  g_assert_true (dl_tensor_get_requires_grad (m));
}

static void
test_view_transpose (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 12, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) m = dl_tensor_view (a, DL_TEST_SHAPE (3, 4), &error);
  g_autoptr (DlTensor) t = dl_tensor_transpose (m, 0, 1, &error);
  g_autoptr (DlTensor) c = NULL;
  const gint64 *st;
  gdouble expected[12];
  gsize n;

  g_assert_no_error (error);
  dl_test_assert_shape (t, DL_TEST_SHAPE (4, 3));
  st = dl_tensor_get_strides (t, &n);
  g_assert_cmpint (st[0], ==, 1);
  g_assert_cmpint (st[1], ==, 4);
  g_assert_false (dl_tensor_is_contiguous (t));
  for (gint i = 0; i < 4; i++)
    for (gint j = 0; j < 3; j++)
      expected[i * 3 + j] = j * 4 + i;
  dl_test_assert_values (t, expected, 12, 0);

  c = dl_tensor_contiguous (t, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_is_contiguous (c));
  g_assert_true (dl_tensor_get_storage (c) != dl_tensor_get_storage (m));
  st = dl_tensor_get_strides (c, &n);
  g_assert_cmpint (st[0], ==, 3);
  g_assert_cmpint (st[1], ==, 1);
  dl_test_assert_values (c, expected, 12, 0);
}

static void
test_view_permute_unsqueeze_expand (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (0, 24, 1, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) x = dl_tensor_view (a, DL_TEST_SHAPE (2, 3, 4), &error);
  g_autoptr (DlTensor) p = dl_tensor_permute (x, (gint64[]){ 2, 0, 1 }, 3, &error);
  g_autoptr (DlTensor) row = NULL;
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) f = NULL;
  g_autoptr (DlTensor) r = NULL;
  const gint64 *st;
  gdouble expected[24];
  gsize n;

  g_assert_no_error (error);
  dl_test_assert_shape (p, DL_TEST_SHAPE (4, 2, 3));
  st = dl_tensor_get_strides (p, &n);
  g_assert_cmpint (st[0], ==, 1);
  g_assert_cmpint (st[1], ==, 12);
  g_assert_cmpint (st[2], ==, 4);
  for (gint k = 0; k < 4; k++)
    for (gint i = 0; i < 2; i++)
      for (gint j = 0; j < 3; j++)
        expected[(k * 2 + i) * 3 + j] = i * 12 + j * 4 + k;
  dl_test_assert_values (p, expected, 24, 0);

  /* reshape of a non-contiguous tensor copies, in its logical order */
  r = dl_tensor_reshape (p, DL_TEST_SHAPE (8, 3), &error);
  g_assert_no_error (error);
  dl_test_assert_values (r, expected, 24, 0);
  f = dl_tensor_flatten (p, 0, -1, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (f, DL_TEST_SHAPE (24));
  dl_test_assert_values (f, expected, 24, 0);

  /* a [3] row, unsqueezed to [1, 3] and expanded to [4, 3] with stride 0 */
  row = dl_arange (0, 3, 1, DL_DTYPE_FLOAT64, NULL, &error);
  u = dl_tensor_unsqueeze (row, 0, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (u, DL_TEST_SHAPE (1, 3));
  e = dl_tensor_expand (u, DL_TEST_SHAPE (4, 3), &error);
  g_assert_no_error (error);
  st = dl_tensor_get_strides (e, &n);
  g_assert_cmpint (st[0], ==, 0);
  g_assert_true (dl_tensor_get_storage (e) == dl_tensor_get_storage (row));
  for (gint i = 0; i < 12; i++)
    expected[i] = i % 3;
  dl_test_assert_values (e, expected, 12, 0);
}

/* Pointwise binary ops against a loop, with broadcasting */

typedef enum
{
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV
} BinOp;

static gdouble
apply (BinOp op, gdouble a, gdouble b)
{
  switch (op)
    {
      case OP_ADD:
        return a + b;
      case OP_SUB:
        return a - b;
      case OP_MUL:
        return a * b;
      case OP_DIV:
        return a / b;
    }
  g_assert_not_reached ();
}

static DlTensor *
run_op (BinOp op, DlTensor *a, DlTensor *b)
{
  g_autoptr (GError) error = NULL;
  DlTensor *out = NULL;

  switch (op)
    {
      case OP_ADD:
        out = dl_tensor_add (a, b, &error);
        break;
      case OP_SUB:
        out = dl_tensor_sub (a, b, &error);
        break;
      case OP_MUL:
        out = dl_tensor_mul (a, b, &error);
        break;
      case OP_DIV:
        out = dl_tensor_div (a, b, &error);
        break;
    }
  g_assert_no_error (error);
  return out;
}

/* Row-major offset into an array of @shape, broadcast to an output index
 * @idx of @out_nd dims (right-aligned, size-1 dims repeat). */
static gint64
bcast_offset (const gint64 *idx, gint out_nd, const gint64 *shape, gint nd)
{
  gint64 off = 0;

  for (gint d = 0; d < nd; d++)
    off = off * shape[d] + (shape[d] == 1 ? 0 : idx[out_nd - nd + d]);
  return off;
}

/* The reference of @op on row-major @av [a_shape] and @bv [b_shape]. */
static gdouble *
ref_binary (BinOp op,
            const gdouble *av,
            const gint64 *a_shape,
            gint a_nd,
            const gdouble *bv,
            const gint64 *b_shape,
            gint b_nd,
            const gint64 *out_shape,
            gint out_nd)
{
  gint64 n = dl_test_numel (out_shape, out_nd);
  gdouble *out = g_new (gdouble, n);
  gint64 idx[8];

  for (gint64 flat = 0; flat < n; flat++)
    {
      gint64 rem = flat;
      for (gint d = out_nd - 1; d >= 0; d--)
        {
          idx[d] = rem % out_shape[d];
          rem /= out_shape[d];
        }
      out[flat] = apply (op, av[bcast_offset (idx, out_nd, a_shape, a_nd)],
                         bv[bcast_offset (idx, out_nd, b_shape, b_nd)]);
    }
  return out;
}

static void
test_binary_broadcast (void)
{
  const gint64 a_shape[] = { 3, 1, 5 }, b_shape[] = { 4, 1 }, out_shape[] = { 3, 4, 5 };
  g_autofree gdouble *av = dl_test_random_values (15);
  g_autofree gdouble *bv = dl_test_random_values (4);

  for (gint i = 0; i < 4; i++)
    bv[i] = bv[i] > 0 ? bv[i] + 0.5 : bv[i] - 0.5; /* keep away from 0 for div */

  for (DlDType dt = DL_DTYPE_FLOAT32; dt <= DL_DTYPE_FLOAT64; dt++)
    for (BinOp op = OP_ADD; op <= OP_DIV; op++)
      {
        g_autoptr (DlTensor) a = dl_test_tensor (av, a_shape, 3, dt);
        g_autoptr (DlTensor) b = dl_test_tensor (bv, b_shape, 2, dt);
        g_autoptr (DlTensor) out = run_op (op, a, b);
        g_autoptr (DlTensor) out_rev = run_op (op, b, a);
        g_autofree gdouble *ref = ref_binary (op, av, a_shape, 3, bv, b_shape, 2, out_shape, 3);
        g_autofree gdouble *ref_rev = ref_binary (op, bv, b_shape, 2, av, a_shape, 3, out_shape, 3);

        dl_test_assert_shape (out, out_shape, 3);
        g_assert_cmpint (dl_tensor_get_dtype (out), ==, dt);
        dl_test_assert_values (out, ref, 60, dt == DL_DTYPE_FLOAT32 ? TOL32 : TOL64);
        dl_test_assert_values (out_rev, ref_rev, 60, dt == DL_DTYPE_FLOAT32 ? TOL32 : TOL64);
      }
}

static void
test_binary_strided (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *basev = dl_test_random_values (15);  /* [5, 3] */
  g_autofree gdouble *base2v = dl_test_random_values (15); /* [5, 3] */
  g_autofree gdouble *cv = dl_test_random_values (5);      /* [5] */
  gdouble at[15], bt[15], expected[15];
  g_autoptr (DlTensor) base = dl_test_tensor (basev, DL_TEST_SHAPE (5, 3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) base2 = dl_test_tensor (base2v, DL_TEST_SHAPE (5, 3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) c = dl_test_tensor (cv, DL_TEST_SHAPE (5), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) a = dl_tensor_t (base, &error); /* [3, 5], strides [1, 3] */
  g_autoptr (DlTensor) b = dl_tensor_t (base2, &error);
  g_autoptr (DlTensor) ce = dl_tensor_expand (c, DL_TEST_SHAPE (3, 5), &error);

  g_assert_no_error (error);
  for (gint i = 0; i < 3; i++)
    for (gint j = 0; j < 5; j++)
      {
        at[i * 5 + j] = basev[j * 3 + i];
        bt[i * 5 + j] = base2v[j * 3 + i];
      }

  for (BinOp op = OP_ADD; op <= OP_MUL; op++)
    {
      g_autoptr (DlTensor) ab = run_op (op, a, b);
      g_autoptr (DlTensor) ac = run_op (op, a, ce);
      g_autoptr (DlTensor) ca = run_op (op, c, a);

      for (gint i = 0; i < 15; i++)
        expected[i] = apply (op, at[i], bt[i]);
      dl_test_assert_values (ab, expected, 15, TOL32);
      for (gint i = 0; i < 15; i++)
        expected[i] = apply (op, at[i], cv[i % 5]);
      dl_test_assert_values (ac, expected, 15, TOL32);
      for (gint i = 0; i < 15; i++)
        expected[i] = apply (op, cv[i % 5], at[i]);
      dl_test_assert_values (ca, expected, 15, TOL32);
    }
}

static void
test_binary_promotion (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_full (DL_TEST_SHAPE (2), 1.5, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) b = dl_full (DL_TEST_SHAPE (2), 2.25, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) i = dl_full (DL_TEST_SHAPE (2), 3, DL_DTYPE_INT64, NULL, &error);
  g_autoptr (DlTensor) ab = dl_tensor_add (a, b, &error);
  g_autoptr (DlTensor) ai = dl_tensor_mul (a, i, &error);

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (ab), ==, DL_DTYPE_FLOAT64);
  dl_test_assert_values (ab, (gdouble[]){ 3.75, 3.75 }, 2, 0);
  g_assert_cmpint (dl_tensor_get_dtype (ai), ==, DL_DTYPE_FLOAT32);
  dl_test_assert_values (ai, (gdouble[]){ 4.5, 4.5 }, 2, 0);
}

/* Reductions */

static void
test_reduce_sum_mean (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *xv = dl_test_random_values (60); /* [3, 4, 5] */
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (3, 4, 5), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) s = dl_tensor_sum (x, &error);
  g_autoptr (DlTensor) m = dl_tensor_mean (x, &error);
  g_autoptr (DlTensor) s02 = dl_tensor_sum_dims (x, (gint64[]){ 0, 2 }, 2, TRUE, &error);
  g_autoptr (DlTensor) s1 = dl_tensor_sum_dims (x, (gint64[]){ -2 }, 1, FALSE, &error);
  g_autoptr (DlTensor) xt = dl_tensor_transpose (x, 0, 2, &error); /* [5, 4, 3] */
  g_autoptr (DlTensor) st = dl_tensor_sum_dims (xt, (gint64[]){ 2 }, 1, FALSE, &error);
  gdouble total = 0, r02[4] = { 0 }, r1[15] = { 0 }, rt[20] = { 0 };

  g_assert_no_error (error);
  for (gint i = 0; i < 3; i++)
    for (gint j = 0; j < 4; j++)
      for (gint k = 0; k < 5; k++)
        {
          gdouble v = xv[(i * 4 + j) * 5 + k];
          total += v;
          r02[j] += v;
          r1[i * 5 + k] += v;
          rt[k * 4 + j] += v;
        }
  g_assert_cmpint (dl_tensor_get_ndim (s), ==, 0);
  g_assert_cmpfloat_with_epsilon (dl_tensor_item (s, &error), total, 1e-12);
  g_assert_cmpfloat_with_epsilon (dl_tensor_item (m, &error), total / 60, 1e-12);
  dl_test_assert_shape (s02, DL_TEST_SHAPE (1, 4, 1));
  dl_test_assert_values (s02, r02, 4, TOL64);
  dl_test_assert_shape (s1, DL_TEST_SHAPE (3, 5));
  dl_test_assert_values (s1, r1, 15, TOL64);
  dl_test_assert_shape (st, DL_TEST_SHAPE (5, 4));
  dl_test_assert_values (st, rt, 20, TOL64);
}

static void
test_reduce_max_dim (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *xv = dl_test_random_values (12); /* [3, 4] */
  g_autoptr (DlTensor) x = dl_test_tensor (xv, DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) idx_keep = NULL;
  g_autoptr (DlTensor) v = dl_tensor_max_dim (x, 1, FALSE, &idx, &error);
  g_autoptr (DlTensor) vk = dl_tensor_max_dim (x, 0, TRUE, &idx_keep, &error);
  g_autoptr (DlTensor) am = dl_tensor_argmax (x, 1, FALSE, &error);
  gdouble rv[3], ri[3], rvk[4], rik[4];
  gdouble xmax = -G_MAXDOUBLE;
  g_autoptr (DlTensor) all = dl_tensor_max (x, &error);

  g_assert_no_error (error);
  for (gint i = 0; i < 3; i++)
    {
      rv[i] = -G_MAXDOUBLE;
      for (gint j = 0; j < 4; j++)
        if ((gfloat)xv[i * 4 + j] > rv[i])
          rv[i] = (gfloat)xv[i * 4 + j], ri[i] = j;
    }
  for (gint j = 0; j < 4; j++)
    {
      rvk[j] = -G_MAXDOUBLE;
      for (gint i = 0; i < 3; i++)
        if ((gfloat)xv[i * 4 + j] > rvk[j])
          rvk[j] = (gfloat)xv[i * 4 + j], rik[j] = i;
    }
  for (gint i = 0; i < 12; i++)
    xmax = MAX (xmax, (gfloat)xv[i]);
  dl_test_assert_shape (v, DL_TEST_SHAPE (3));
  dl_test_assert_values (v, rv, 3, 0);
  g_assert_cmpint (dl_tensor_get_dtype (idx), ==, DL_DTYPE_INT64);
  dl_test_assert_values (idx, ri, 3, 0);
  dl_test_assert_values (am, ri, 3, 0);
  dl_test_assert_shape (vk, DL_TEST_SHAPE (1, 4));
  dl_test_assert_shape (idx_keep, DL_TEST_SHAPE (1, 4));
  dl_test_assert_values (vk, rvk, 4, 0);
  dl_test_assert_values (idx_keep, rik, 4, 0);
  g_assert_cmpfloat (dl_tensor_item (all, &error), ==, xmax);
}

/* Matmul */

/* [batch..., n, k] @ [batch..., k, m] with broadcast batch dims, on
 * row-major arrays; @out_shape is the full output shape. */
static gdouble *
ref_matmul (const gdouble *av,
            const gint64 *a_shape,
            gint a_nd,
            const gdouble *bv,
            const gint64 *b_shape,
            gint b_nd,
            const gint64 *out_shape,
            gint out_nd)
{
  gint64 n = a_shape[a_nd - 2], k = a_shape[a_nd - 1], m = b_shape[b_nd - 1];
  gint64 nbatch = dl_test_numel (out_shape, out_nd - 2);
  gdouble *out = g_new0 (gdouble, nbatch * n * m);
  gint64 idx[8];

  for (gint64 bi = 0; bi < nbatch; bi++)
    {
      gint64 rem = bi, ao, bo;

      for (gint d = out_nd - 3; d >= 0; d--)
        {
          idx[d] = rem % out_shape[d];
          rem /= out_shape[d];
        }
      ao = bcast_offset (idx, out_nd - 2, a_shape, a_nd - 2) * n * k;
      bo = bcast_offset (idx, out_nd - 2, b_shape, b_nd - 2) * k * m;
      for (gint64 i = 0; i < n; i++)
        for (gint64 j = 0; j < m; j++)
          for (gint64 p = 0; p < k; p++)
            out[(bi * n + i) * m + j] += av[ao + i * k + p] * bv[bo + p * m + j];
    }
  return out;
}

static void
check_matmul (const gint64 *a_shape,
              gint a_nd,
              const gint64 *b_shape,
              gint b_nd,
              const gint64 *out_shape,
              gint out_nd)
{
  g_autoptr (GError) error = NULL;
  gint64 na = dl_test_numel (a_shape, a_nd), nb = dl_test_numel (b_shape, b_nd);
  g_autofree gdouble *av = dl_test_random_values (na);
  g_autofree gdouble *bv = dl_test_random_values (nb);
  g_autofree gdouble *ref = ref_matmul (av, a_shape, a_nd, bv, b_shape, b_nd, out_shape, out_nd);

  for (DlDType dt = DL_DTYPE_FLOAT32; dt <= DL_DTYPE_FLOAT64; dt++)
    {
      g_autoptr (DlTensor) a = dl_test_tensor (av, a_shape, a_nd, dt);
      g_autoptr (DlTensor) b = dl_test_tensor (bv, b_shape, b_nd, dt);
      g_autoptr (DlTensor) c = dl_tensor_matmul (a, b, &error);

      g_assert_no_error (error);
      dl_test_assert_shape (c, out_shape, out_nd);
      dl_test_assert_values (c, ref, dl_test_numel (out_shape, out_nd),
                             dt == DL_DTYPE_FLOAT32 ? 1e-5 : 1e-12);
    }
}

static void
test_matmul_2d_batched (void)
{
  check_matmul (DL_TEST_SHAPE (3, 4), DL_TEST_SHAPE (4, 5), DL_TEST_SHAPE (3, 5));
  check_matmul (DL_TEST_SHAPE (1, 1), DL_TEST_SHAPE (1, 1), DL_TEST_SHAPE (1, 1));
  check_matmul (DL_TEST_SHAPE (17, 33), DL_TEST_SHAPE (33, 9), DL_TEST_SHAPE (17, 9));
  check_matmul (DL_TEST_SHAPE (2, 3, 4), DL_TEST_SHAPE (2, 4, 5), DL_TEST_SHAPE (2, 3, 5));
  /* broadcast batch dims */
  check_matmul (DL_TEST_SHAPE (2, 1, 3, 4), DL_TEST_SHAPE (3, 4, 5), DL_TEST_SHAPE (2, 3, 3, 5));
  check_matmul (DL_TEST_SHAPE (2, 3, 4), DL_TEST_SHAPE (4, 5), DL_TEST_SHAPE (2, 3, 5));
  check_matmul (DL_TEST_SHAPE (3, 4), DL_TEST_SHAPE (2, 4, 5), DL_TEST_SHAPE (2, 3, 5));
}

static void
test_matmul_1d (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *mv = dl_test_random_values (12); /* [3, 4] */
  g_autofree gdouble *vv = dl_test_random_values (4);
  g_autofree gdouble *wv = dl_test_random_values (3);
  g_autofree gdouble *bv = dl_test_random_values (24); /* [2, 3, 4] */
  g_autoptr (DlTensor) m = dl_test_tensor (mv, DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) v = dl_test_tensor (vv, DL_TEST_SHAPE (4), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) w = dl_test_tensor (wv, DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) bt = dl_test_tensor (bv, DL_TEST_SHAPE (2, 3, 4), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) dot = dl_tensor_matmul (v, v, &error);
  g_autoptr (DlTensor) mv_ = dl_tensor_matmul (m, v, &error);
  g_autoptr (DlTensor) wm = dl_tensor_matmul (w, m, &error);
  g_autoptr (DlTensor) bv_ = dl_tensor_matmul (bt, v, &error);
  gdouble rdot = 0, rmv[3] = { 0 }, rwm[4] = { 0 }, rbv[6] = { 0 };

  g_assert_no_error (error);
  for (gint p = 0; p < 4; p++)
    rdot += vv[p] * vv[p];
  for (gint i = 0; i < 3; i++)
    for (gint p = 0; p < 4; p++)
      {
        rmv[i] += mv[i * 4 + p] * vv[p];
        rwm[p] += wv[i] * mv[i * 4 + p];
      }
  for (gint i = 0; i < 6; i++)
    for (gint p = 0; p < 4; p++)
      rbv[i] += bv[i * 4 + p] * vv[p];
  g_assert_cmpint (dl_tensor_get_ndim (dot), ==, 0);
  g_assert_cmpfloat_with_epsilon (dl_tensor_item (dot, &error), rdot, 1e-12);
  dl_test_assert_shape (mv_, DL_TEST_SHAPE (3));
  dl_test_assert_values (mv_, rmv, 3, TOL64);
  dl_test_assert_shape (wm, DL_TEST_SHAPE (4));
  dl_test_assert_values (wm, rwm, 4, TOL64);
  dl_test_assert_shape (bv_, DL_TEST_SHAPE (2, 3));
  dl_test_assert_values (bv_, rbv, 6, TOL64);
}

static void
test_matmul_transposed (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *av = dl_test_random_values (12); /* stored [4, 3], used [3, 4] */
  g_autofree gdouble *bv = dl_test_random_values (20); /* stored [5, 4], used [4, 5] */
  g_autoptr (DlTensor) as = dl_test_tensor (av, DL_TEST_SHAPE (4, 3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) bs = dl_test_tensor (bv, DL_TEST_SHAPE (5, 4), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) a = dl_tensor_t (as, &error);
  g_autoptr (DlTensor) b = dl_tensor_t (bs, &error);
  g_autoptr (DlTensor) ab = dl_tensor_matmul (a, b, &error);
  g_autoptr (DlTensor) bta = dl_tensor_matmul (bs, as, &error); /* [5,4]@[4,3] */
  g_autoptr (DlTensor) bc = NULL;
  g_autoptr (DlTensor) x = NULL;
  gdouble at[12], btv[20];

  g_assert_no_error (error);
  for (gint i = 0; i < 3; i++)
    for (gint p = 0; p < 4; p++)
      at[i * 4 + p] = av[p * 3 + i];
  for (gint p = 0; p < 4; p++)
    for (gint j = 0; j < 5; j++)
      btv[p * 5 + j] = bv[j * 4 + p];
  {
    g_autofree gdouble *ref
        = ref_matmul (at, DL_TEST_SHAPE (3, 4), btv, DL_TEST_SHAPE (4, 5), DL_TEST_SHAPE (3, 5));
    g_autofree gdouble *ref2
        = ref_matmul (bv, DL_TEST_SHAPE (5, 4), av, DL_TEST_SHAPE (4, 3), DL_TEST_SHAPE (5, 3));
    dl_test_assert_shape (ab, DL_TEST_SHAPE (3, 5));
    dl_test_assert_values (ab, ref, 15, 1e-5);
    dl_test_assert_values (bta, ref2, 15, 1e-5);
  }
  /* a transposed operand next to a contiguous one */
  bc = dl_tensor_contiguous (b, &error);
  x = dl_tensor_matmul (a, bc, &error);
  g_assert_no_error (error);
  {
    g_autofree gdouble *ref
        = ref_matmul (at, DL_TEST_SHAPE (3, 4), btv, DL_TEST_SHAPE (4, 5), DL_TEST_SHAPE (3, 5));
    dl_test_assert_values (x, ref, 15, 1e-5);
  }
}

/* dtypes, bytes, repr */

static void
test_dtype_convert (void)
{
  g_autoptr (GError) error = NULL;
  const gdouble v[] = { 2.7, -2.7, 0.0, 1.0, 0.1, 255.0 };
  g_autoptr (DlTensor) f = dl_test_tensor (v, DL_TEST_SHAPE (6), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) i64 = dl_tensor_to_dtype (f, DL_DTYPE_INT64, &error);
  g_autoptr (DlTensor) i32 = dl_tensor_to_dtype (f, DL_DTYPE_INT32, &error);
  g_autoptr (DlTensor) b = dl_tensor_to_dtype (f, DL_DTYPE_BOOL, &error);
  g_autoptr (DlTensor) h = dl_tensor_to_dtype (f, DL_DTYPE_FLOAT16, &error);
  g_autoptr (DlTensor) bf = dl_tensor_to_dtype (f, DL_DTYPE_BFLOAT16, &error);
  g_autoptr (DlTensor) f32 = dl_tensor_to_dtype (f, DL_DTYPE_FLOAT32, &error);
  g_autoptr (DlTensor) back = dl_tensor_to_dtype (i64, DL_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (i64), ==, DL_DTYPE_INT64);
  /* casts to integers truncate toward zero */
  dl_test_assert_values (i64, (gdouble[]){ 2, -2, 0, 1, 0, 255 }, 6, 0);
  dl_test_assert_values (i32, (gdouble[]){ 2, -2, 0, 1, 0, 255 }, 6, 0);
  dl_test_assert_values (b, (gdouble[]){ 1, 1, 0, 1, 1, 1 }, 6, 0);
  /* round to nearest: 0.1 is 0.0999755859375 in half, 0.10009765625 in bf16 */
  dl_test_assert_values (h, (gdouble[]){ 2.69921875, -2.69921875, 0, 1, 0.0999755859375, 255 }, 6,
                         0);
  dl_test_assert_values (bf, (gdouble[]){ 2.703125, -2.703125, 0, 1, 0.10009765625, 255 }, 6, 0);
  dl_test_assert_values (f32, (gdouble[]){ (gfloat)2.7, (gfloat)-2.7, 0, 1, (gfloat)0.1, 255 }, 6,
                         0);
  g_assert_cmpint (dl_tensor_get_dtype (back), ==, DL_DTYPE_FLOAT32);
  dl_test_assert_values (back, (gdouble[]){ 2, -2, 0, 1, 0, 255 }, 6, 0);
  g_assert_cmpuint (dl_dtype_get_size (DL_DTYPE_BFLOAT16), ==, 2);
  g_assert_cmpstr (dl_dtype_get_name (DL_DTYPE_INT64), ==, "int64");
}

static void
test_bytes_round_trip (void)
{
  g_autoptr (GError) error = NULL;
  const gfloat data[6] = { 1.5f, -2.0f, 3.25f, 4.0f, 1e-3f, -7.5f };
  g_autoptr (GBytes) in = g_bytes_new (data, sizeof data);
  g_autoptr (DlTensor) t
      = dl_tensor_new_from_bytes (in, DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, &error);
  g_autoptr (GBytes) out = NULL;
  g_autoptr (DlTensor) tt = NULL;
  g_autoptr (GBytes) out_t = NULL;
  const gfloat expected_t[6] = { 1.5f, 4.0f, -2.0f, 1e-3f, 3.25f, -7.5f };
  gsize n;
  gconstpointer p;

  g_assert_no_error (error);
  dl_test_assert_shape (t, DL_TEST_SHAPE (2, 3));
  out = dl_tensor_to_bytes (t, &error);
  g_assert_no_error (error);
  p = g_bytes_get_data (out, &n);
  g_assert_cmpmem (p, n, data, sizeof data);

  /* to_bytes of a transposed view gives its own row-major order */
  tt = dl_tensor_t (t, &error);
  out_t = dl_tensor_to_bytes (tt, &error);
  g_assert_no_error (error);
  p = g_bytes_get_data (out_t, &n);
  g_assert_cmpmem (p, n, expected_t, sizeof expected_t);
}

static void
test_repr (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_arange (1, 5, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) m = dl_tensor_view (a, DL_TEST_SHAPE (2, 2), &error);
  g_autofree gchar *s = dl_tensor_to_string (m);
  g_autoptr (DlTensor) i = dl_arange (0, 3, 1, DL_DTYPE_INT64, NULL, &error);
  g_autofree gchar *si = dl_tensor_to_string (i);

  g_assert_no_error (error);
  g_assert_cmpstr (s, ==, "tensor([[1., 2.],\n        [3., 4.]])");
  g_assert_cmpstr (si, ==, "tensor([0, 1, 2])");
}

/* clone_format with preserve keeps a transpose's layout (torch's
 * preserve_format); contiguous_format, clone and contiguous give
 * row-major; a slice with steps gives dense strides in its own order */
static void
test_clone_format (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor ((gdouble[]){ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 },
                                           DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) t = dl_tensor_transpose (x, 0, 1, &error);
  g_autoptr (DlTensor) c = dl_tensor_clone_format (t, DL_MEMORY_FORMAT_PRESERVE, &error);
  g_autoptr (DlTensor) plain = dl_tensor_clone (t, &error);
  g_autoptr (DlTensor) cc = dl_tensor_clone_format (t, DL_MEMORY_FORMAT_CONTIGUOUS, &error);
  g_autoptr (DlTensor) k = dl_tensor_contiguous (t, &error);
  g_autoptr (DlTensor) e = dl_empty_like (t, DL_DTYPE_FLOAT64, DL_MEMORY_FORMAT_PRESERVE, &error);
  g_autoptr (DlTensor) s = dl_tensor_slice (t, 1, 0, 3, 2, &error);
  g_autoptr (DlTensor) cs = dl_tensor_clone_format (s, DL_MEMORY_FORMAT_PRESERVE, &error);
  g_autoptr (DlTensor) bad = NULL;
  gsize n;

  g_assert_no_error (error);
  g_assert_cmpmem (dl_tensor_get_strides (c, &n), 2 * sizeof (gint64), ((gint64[]){ 1, 4 }),
                   2 * sizeof (gint64));
  g_assert_cmpmem (dl_tensor_get_strides (e, &n), 2 * sizeof (gint64), ((gint64[]){ 1, 4 }),
                   2 * sizeof (gint64));
  g_assert_cmpint (dl_tensor_get_dtype (e), ==, DL_DTYPE_FLOAT64);
  g_assert_true (dl_tensor_is_contiguous (cc) && dl_tensor_is_contiguous (k)
                 && dl_tensor_is_contiguous (plain));
  g_assert_true (dl_tensor_get_storage (c) != dl_tensor_get_storage (x));
  dl_test_assert_values (c, (gdouble[]){ 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11 }, 12, 0);
  dl_test_assert_values (cc, (gdouble[]){ 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11 }, 12, 0);
  /* t[:, ::2] of shape [4, 2], strides [1, 8]: dense strides [1, 4] */
  g_assert_cmpmem (dl_tensor_get_strides (cs, &n), 2 * sizeof (gint64), ((gint64[]){ 1, 4 }),
                   2 * sizeof (gint64));
  dl_test_assert_values (cs, (gdouble[]){ 0, 8, 1, 9, 2, 10, 3, 11 }, 8, 0);
  bad = dl_tensor_clone_format (t, (DlMemoryFormat)5, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tensor/clone-format", test_clone_format);
  g_test_add_func ("/tensor/create/zeros", test_create_zeros);
  g_test_add_func ("/tensor/create/ones-full", test_create_ones_full);
  g_test_add_func ("/tensor/create/arange", test_create_arange);
  g_test_add_func ("/tensor/create/scalar", test_create_scalar);
  g_test_add_func ("/tensor/create/random", test_create_random);
  g_test_add_func ("/tensor/create/empty-shape", test_create_empty_shape);
  g_test_add_func ("/tensor/view/shares-storage", test_view_shares_storage);
  g_test_add_func ("/tensor/view/transpose", test_view_transpose);
  g_test_add_func ("/tensor/view/unfold", test_view_unfold);
  g_test_add_func ("/tensor/view/alias", test_view_alias);
  g_test_add_func ("/tensor/view/split-node", test_view_split_node);
  g_test_add_func ("/tensor/view/as-strided", test_view_as_strided);
  g_test_add_func ("/tensor/resize", test_resize);
  g_test_add_func ("/tensor/view/inplace", test_view_inplace);
  g_test_add_func ("/tensor/view/permute-unsqueeze-expand", test_view_permute_unsqueeze_expand);
  g_test_add_func ("/tensor/binary/broadcast", test_binary_broadcast);
  g_test_add_func ("/tensor/binary/strided", test_binary_strided);
  g_test_add_func ("/tensor/binary/promotion", test_binary_promotion);
  g_test_add_func ("/tensor/reduce/sum-mean", test_reduce_sum_mean);
  g_test_add_func ("/tensor/reduce/max-dim", test_reduce_max_dim);
  g_test_add_func ("/tensor/matmul/2d-batched", test_matmul_2d_batched);
  g_test_add_func ("/tensor/matmul/1d", test_matmul_1d);
  g_test_add_func ("/tensor/matmul/transposed", test_matmul_transposed);
  g_test_add_func ("/tensor/dtype/convert", test_dtype_convert);
  g_test_add_func ("/tensor/bytes/round-trip", test_bytes_round_trip);
  g_test_add_func ("/tensor/repr", test_repr);

  return g_test_run ();
}
