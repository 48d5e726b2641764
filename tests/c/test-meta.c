/* test-meta.c: the meta device from C: tensors with a shape, a dtype and
 * strides and no data; ops work out their outputs' geometry, autograd
 * runs, nothing is allocated, and reads of values are refused.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

static DlDevice *
meta_device (void)
{
  g_autoptr (GError) error = NULL;
  DlDevice *meta = dl_device_get ("meta", &error);

  g_assert_no_error (error);
  g_assert_nonnull (meta);
  return meta;
}

static void
assert_strides (DlTensor *t, const gint64 *strides, gsize n_dims)
{
  gsize nd = 0;
  const gint64 *s = dl_tensor_get_strides (t, &nd);

  g_assert_cmpuint (nd, ==, n_dims);
  for (gsize i = 0; i < n_dims; i++)
    g_assert_cmpint (s[i], ==, strides[i]);
}

static void
test_meta_device (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (DlDevice) again = meta_device ();
  g_autoptr (GError) error = NULL;
  DlDevice *bad;

  g_assert_true (meta == again);
  g_assert_cmpint (dl_device_get_device_type (meta), ==, DL_DEVICE_TYPE_META);
  g_assert_cmpstr (dl_device_get_name (meta), ==, "meta");
  g_assert_cmpint (dl_device_get_index (meta), ==, -1);
  /* one unnumbered device, as the CPU */
  bad = dl_device_get ("meta:0", &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
}

static void
test_meta_ops (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_empty (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT64, meta, &error);
  g_autoptr (DlTensor) b = dl_empty (DL_TEST_SHAPE (3, 5), DL_DTYPE_FLOAT64, meta, &error);
  g_autoptr (DlTensor) f = dl_empty (DL_TEST_SHAPE (3, 5), DL_DTYPE_FLOAT32, meta, &error);
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) bad = NULL;

  g_assert_no_error (error);
  /* the matmul's dtype check and shape, as on the CPU */
  bad = dl_tensor_matmul (a, f, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_clear_error (&error);
  c = dl_tensor_matmul (a, b, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (c, DL_TEST_SHAPE (2, 5));
  g_assert_cmpint (dl_tensor_get_dtype (c), ==, DL_DTYPE_FLOAT64);
  g_assert_true (dl_tensor_get_device (c) == meta);
  /* a view keeps its strides */
  t = dl_tensor_transpose (c, 0, 1, &error);
  g_assert_no_error (error);
  assert_strides (t, DL_TEST_SHAPE (1, 5));
  /* an elementwise op of a transposed tensor keeps its layout */
  e = dl_tensor_exp (t, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (e, DL_TEST_SHAPE (5, 2));
  s = dl_tensor_sum (e, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (s, NULL, 0);
  /* shape errors are the CPU's */
  bad = dl_tensor_matmul (b, a, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "matmul"));
}

static void
test_meta_no_memory (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", NULL);
  g_autoptr (GError) error = NULL;
  guint64 before = dl_device_get_memory_allocated (cpu);
  g_autoptr (DlTensor) big
      = dl_empty (DL_TEST_SHAPE (1 << 20, 1 << 20), DL_DTYPE_FLOAT32, meta, &error);
  g_autoptr (DlTensor) prod = NULL;

  /* 4 TiB of float32: only its size */
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_numel (big), ==, (gint64)1 << 40);
  prod = dl_tensor_matmul (big, big, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (prod, DL_TEST_SHAPE (1 << 20, 1 << 20));
  g_assert_cmpuint (dl_device_get_memory_allocated (meta), ==, 0);
  g_assert_cmpuint (dl_device_get_memory_allocated (cpu), ==, before);
}

static void
test_meta_reads_refused (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, meta, &error);
  g_autoptr (DlTensor) one = dl_zeros (NULL, 0, DL_DTYPE_FLOAT32, meta, &error);
  g_autoptr (DlTensor) nz = NULL;
  g_autoptr (DlTensor) on_cpu = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree gchar *text = NULL;
  gdouble v;

  g_assert_no_error (error);
  v = dl_tensor_item (one, &error);
  g_assert_cmpfloat (v, ==, 0);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "item: not supported on meta tensors"));
  g_clear_error (&error);

  bytes = dl_tensor_to_bytes (a, &error);
  g_assert_null (bytes);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);

  nz = dl_tensor_nonzero (a, &error);
  g_assert_null (nz);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "meta"));
  g_clear_error (&error);

  on_cpu = dl_tensor_to_device (a, NULL, &error);
  g_assert_null (on_cpu);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "cannot copy out of meta tensor"));

  text = dl_tensor_to_string (a);
  g_assert_cmpstr (text, ==, "tensor(..., device='meta', size=(2, 3))");
}

static void
test_meta_to_device (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) c = dl_test_tensor ((const gdouble[]){ 1, 2, 3, 4, 5, 6 },
                                           DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) ct = dl_tensor_transpose (c, 0, 1, &error);
  g_autoptr (DlTensor) m = dl_tensor_to_device (ct, meta, &error);
  g_autoptr (DlTensor) same = NULL;

  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_device (m) == meta);
  dl_test_assert_shape (m, DL_TEST_SHAPE (3, 2));
  /* the transposed layout, as torch's preserve_format */
  assert_strides (m, DL_TEST_SHAPE (1, 3));
  same = dl_tensor_to_device (m, meta, &error);
  g_assert_no_error (error);
  g_assert_true (same == m);
}

static void
test_meta_mixed_devices (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) m = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, meta, &error);
  g_autoptr (DlTensor) c = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) scalar = dl_tensor_new_scalar (2, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) sum = NULL;
  g_autoptr (DlTensor) scaled = NULL;

  g_assert_no_error (error);
  sum = dl_tensor_add (m, c, &error);
  g_assert_null (sum);
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "meta and cpu"));
  g_clear_error (&error);
  /* a 0-d CPU tensor joins, as in PyTorch */
  scaled = dl_tensor_mul (m, scalar, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_device (scaled) == meta);
  dl_test_assert_shape (scaled, DL_TEST_SHAPE (2, 3));
}

static void
test_meta_autograd (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_empty (DL_TEST_SHAPE (4, 3), DL_DTYPE_FLOAT32, meta, &error);
  g_autoptr (DlTensor) w = dl_empty (DL_TEST_SHAPE (3, 5), DL_DTYPE_FLOAT32, meta, &error);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) loss = NULL;
  DlTensor *gx, *gw;

  g_assert_no_error (error);
  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  g_assert_true (dl_tensor_set_requires_grad (w, TRUE, &error));
  y = dl_tensor_matmul (x, w, &error);
  g_assert_no_error (error);
  r = dl_tensor_tanh (y, &error);
  g_assert_no_error (error);
  loss = dl_tensor_sum (r, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  gx = dl_tensor_get_grad (x);
  gw = dl_tensor_get_grad (w);
  g_assert_nonnull (gx);
  g_assert_nonnull (gw);
  g_assert_true (dl_tensor_get_device (gx) == meta);
  dl_test_assert_shape (gx, DL_TEST_SHAPE (4, 3));
  dl_test_assert_shape (gw, DL_TEST_SHAPE (3, 5));
}

static void
test_meta_module (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLinear) layer = dl_linear_new (8, 4, TRUE, &error);
  g_autoptr (DlTensor) in = dl_empty (DL_TEST_SHAPE (2, 8), DL_DTYPE_FLOAT32, meta, &error);
  g_autoptr (DlTensor) out = NULL;
  DlTensor *weight;

  g_assert_no_error (error);
  weight = dl_module_get_parameter (DL_MODULE (layer), "weight");
  g_assert_true (dl_module_to_device (DL_MODULE (layer), meta, &error));
  g_assert_no_error (error);
  /* the parameter is the same object, now on meta */
  g_assert_true (dl_module_get_parameter (DL_MODULE (layer), "weight") == weight);
  g_assert_true (dl_tensor_get_device (weight) == meta);
  out = dl_module_forward (DL_MODULE (layer), in, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (out, DL_TEST_SHAPE (2, 4));
  g_assert_false (dl_module_to_device (DL_MODULE (layer), NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
}

static void
test_meta_default_device (void)
{
  g_autoptr (DlDevice) meta = meta_device ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) on_meta = NULL;
  g_autoptr (DlTensor) on_cpu = NULL;
  g_autoptr (DlLinear) layer = NULL;
  g_autoptr (DlDevice) dflt = NULL;

  dl_set_default_device (meta);
  dflt = dl_device_get_default ();
  g_assert_true (dflt == meta);
  on_meta = dl_zeros (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, &error);
  layer = dl_linear_new (4096, 4096, TRUE, &error);
  dl_set_default_device (NULL);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_device (on_meta) == meta);
  g_assert_true (dl_tensor_get_device (dl_module_get_parameter (DL_MODULE (layer), "weight"))
                 == meta);
  g_assert_cmpuint (dl_device_get_memory_allocated (meta), ==, 0);
  on_cpu = dl_zeros (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (dl_device_get_name (dl_tensor_get_device (on_cpu)), ==, "cpu");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/meta/device", test_meta_device);
  g_test_add_func ("/meta/ops", test_meta_ops);
  g_test_add_func ("/meta/no-memory", test_meta_no_memory);
  g_test_add_func ("/meta/reads-refused", test_meta_reads_refused);
  g_test_add_func ("/meta/to-device", test_meta_to_device);
  g_test_add_func ("/meta/mixed-devices", test_meta_mixed_devices);
  g_test_add_func ("/meta/autograd", test_meta_autograd);
  g_test_add_func ("/meta/module", test_meta_module);
  g_test_add_func ("/meta/default-device", test_meta_default_device);
  return g_test_run ();
}
