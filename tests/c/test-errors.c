/* test-errors.c: what bad input gives: a GError in the DL_ERROR domain
 * with the right code and a message that names the op and the values, never
 * an abort or a critical.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>

#include "dl-test-utils.h"

/* Asserts @error is DL_ERROR @code and that its message holds each of the
 * NULL-terminated strings that follow. */
static void
assert_dl_error (const GError *error, gint code, ...)
{
  va_list args;
  const gchar *s;

  g_assert_error (error, DL_ERROR, code);
  va_start (args, code);
  while ((s = va_arg (args, const gchar *)))
    if (strstr (error->message, s) == NULL)
      g_test_fail_printf ("error message \"%s\" lacks \"%s\"", error->message, s);
  va_end (args);
}

static void
test_error_broadcast (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) b = dl_ones (DL_TEST_SHAPE (4), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) c = dl_tensor_add (a, b, &error);

  g_assert_null (c);
  assert_dl_error (error, DL_ERROR_SHAPE, "add", "[2, 3]", "[4]", NULL);
  g_clear_error (&error);
  c = dl_tensor_mul (b, a, &error);
  g_assert_null (c);
  assert_dl_error (error, DL_ERROR_SHAPE, "mul", "[2, 3]", "[4]", NULL);
}

static void
test_error_matmul (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) b = dl_ones (DL_TEST_SHAPE (4, 5), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) c = dl_tensor_matmul (a, b, &error);
  g_autoptr (DlTensor) v = dl_ones (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) w = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) s = dl_tensor_new_scalar (1, DL_DTYPE_FLOAT32);

  g_assert_null (c);
  assert_dl_error (error, DL_ERROR_SHAPE, "matmul", "[2, 3]", "[4, 5]", NULL);
  g_clear_error (&error);
  c = dl_tensor_matmul (v, w, &error);
  g_assert_null (c);
  assert_dl_error (error, DL_ERROR_SHAPE, "matmul", NULL);
  g_clear_error (&error);
  /* both arguments to matmul need at least one dimension */
  c = dl_tensor_matmul (s, w, &error);
  g_assert_null (c);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

static void
test_error_view (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) v = dl_tensor_view (a, DL_TEST_SHAPE (4), &error);
  g_autoptr (DlTensor) t = NULL;

  g_assert_null (v);
  assert_dl_error (error, DL_ERROR_SHAPE, "view", "[4]", "6", NULL);
  g_clear_error (&error);
  v = dl_tensor_reshape (a, DL_TEST_SHAPE (5, -1), &error);
  g_assert_null (v);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  /* view of a transposed tensor cannot merge its dims */
  t = dl_tensor_t (a, &error);
  v = dl_tensor_view (t, DL_TEST_SHAPE (6), &error);
  g_assert_null (v);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  v = dl_tensor_expand (a, DL_TEST_SHAPE (2, 4), &error);
  g_assert_null (v);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

static void
test_error_index (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) r = dl_tensor_transpose (a, 0, 5, &error);
  g_autoptr (DlTensor) idx = NULL;

  g_assert_null (r);
  assert_dl_error (error, DL_ERROR_INDEX, "transpose", "5", NULL);
  g_clear_error (&error);
  g_assert_cmpint (dl_tensor_get_size (a, 2, &error), ==, -1);
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  r = dl_tensor_sum_dims (a, (gint64[]){ -3 }, 1, FALSE, &error);
  g_assert_null (r);
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  r = dl_tensor_max_dim (a, 2, FALSE, &idx, &error);
  g_assert_null (r);
  g_assert_null (idx);
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  r = dl_tensor_log_softmax (a, 2, &error);
  g_assert_null (r);
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  r = dl_tensor_permute (a, (gint64[]){ 0, 0 }, 2, &error);
  g_assert_null (r);
  g_assert_nonnull (error);
  g_assert_true (error->domain == DL_ERROR);
}

static void
test_error_argument (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = dl_zeros (DL_TEST_SHAPE (2, -1), DL_DTYPE_FLOAT32, NULL, &error);

  g_assert_null (t);
  assert_dl_error (error, DL_ERROR_ARGUMENT, "-1", NULL);
  g_clear_error (&error);
  t = dl_arange (0, 5, 0, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_null (t);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_error_out_of_memory (void)
{
  g_autoptr (GError) error = NULL;
  /* 2^60 elements: caught before any allocation */
  g_autoptr (DlTensor) t
      = dl_zeros (DL_TEST_SHAPE ((gint64)1 << 40, (gint64)1 << 20), DL_DTYPE_FLOAT32, NULL, &error);

  g_assert_null (t);
  assert_dl_error (error, DL_ERROR_OUT_OF_MEMORY, NULL);
  g_clear_error (&error);
  /* 2^47 bytes: more than the address space, so the allocation itself fails */
  t = dl_empty (DL_TEST_SHAPE ((gint64)1 << 45), DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_null (t);
  assert_dl_error (error, DL_ERROR_OUT_OF_MEMORY, NULL);
}

static void
test_error_bytes_length (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_bytes_new ("1234567", 7);
  g_autoptr (DlTensor) t
      = dl_tensor_new_from_bytes (bytes, DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  assert_dl_error (error, DL_ERROR_SHAPE, "8", "7", NULL);
}

static void
test_error_dtype (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) i = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_INT64, NULL, NULL);
  g_autoptr (DlTensor) m = dl_tensor_mean (i, &error);
  g_autoptr (DlTensor) logits = dl_zeros (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) ftarget = dl_zeros (DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) loss = NULL;

  g_assert_null (m);
  assert_dl_error (error, DL_ERROR_DTYPE, "mean", "int64", NULL);
  g_clear_error (&error);
  loss = dl_cross_entropy (logits, ftarget, &error);
  g_assert_null (loss);
  assert_dl_error (error, DL_ERROR_DTYPE, "int64", NULL);
  g_clear_error (&error);
  /* only floating point tensors can require grad */
  g_assert_false (dl_tensor_set_requires_grad (i, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
}

static void
test_error_io_format (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = g_dir_make_tmp ("dl-test-XXXXXX", &error);
  g_autofree gchar *missing = NULL;
  g_autofree gchar *bad_magic = NULL;
  g_autofree gchar *truncated = NULL;
  g_autofree gchar *bad_gzip = NULL;
  g_autofree gchar *good = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) images = NULL;
  g_autoptr (DlTensor) labels = NULL;
  /* uint8, 1 dim of 4 elements, but only 2 of them */
  const guint8 trunc_data[] = { 0, 0, 0x08, 1, 0, 0, 0, 4, 10, 20 };
  const guint8 good_data[] = { 0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 255 };
  const guint8 gzip_data[] = { 0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0, 0, 1, 2, 3 };

  g_assert_no_error (error);
  missing = g_build_filename (dir, "missing-idx1-ubyte", NULL);
  bad_magic = g_build_filename (dir, "bad-magic", NULL);
  truncated = g_build_filename (dir, "truncated", NULL);
  bad_gzip = g_build_filename (dir, "bad.gz", NULL);
  good = g_build_filename (dir, "good", NULL);
  g_assert_true (g_file_set_contents (bad_magic, "\x12\x34\x56\x78 not an idx file", -1, NULL));
  g_assert_true (
      g_file_set_contents (truncated, (const gchar *)trunc_data, sizeof trunc_data, NULL));
  g_assert_true (g_file_set_contents (bad_gzip, (const gchar *)gzip_data, sizeof gzip_data, NULL));
  g_assert_true (g_file_set_contents (good, (const gchar *)good_data, sizeof good_data, NULL));

  t = dl_read_idx (missing, NULL, &error);
  g_assert_null (t);
  assert_dl_error (error, DL_ERROR_IO, "missing-idx1-ubyte", NULL);
  g_clear_error (&error);

  t = dl_read_idx (bad_magic, NULL, &error);
  g_assert_null (t);
  assert_dl_error (error, DL_ERROR_FORMAT, "bad-magic", NULL);
  g_clear_error (&error);

  t = dl_read_idx (truncated, NULL, &error);
  g_assert_null (t);
  assert_dl_error (error, DL_ERROR_FORMAT, NULL);
  g_clear_error (&error);

  t = dl_read_idx (bad_gzip, NULL, &error);
  g_assert_null (t);
  assert_dl_error (error, DL_ERROR_FORMAT, NULL);
  g_clear_error (&error);

  /* and a well-formed file reads back exactly */
  t = dl_read_idx (good, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (t), ==, DL_DTYPE_UINT8);
  dl_test_assert_shape (t, DL_TEST_SHAPE (2, 3));
  dl_test_assert_values (t, (gdouble[]){ 1, 2, 3, 4, 5, 255 }, 6, 0);

  /* a cancelled read reports the cancellation as it is */
  {
    g_autoptr (GCancellable) cancellable = g_cancellable_new ();
    g_autoptr (DlTensor) c = NULL;

    g_cancellable_cancel (cancellable);
    c = dl_read_idx (good, cancellable, &error);
    g_assert_null (c);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error (&error);
  }

  /* a folder without the Fashion-MNIST files */
  g_assert_false (dl_fashion_mnist_load (dir, TRUE, &images, &labels, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_IO);
  g_assert_null (images);
  g_assert_null (labels);

  g_assert_cmpint (g_remove (bad_magic), ==, 0);
  g_assert_cmpint (g_remove (truncated), ==, 0);
  g_assert_cmpint (g_remove (bad_gzip), ==, 0);
  g_assert_cmpint (g_remove (good), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_error_device (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", &error);
  g_autoptr (DlDevice) d = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (dl_device_get_device_type (cpu), ==, DL_DEVICE_TYPE_CPU);
  d = dl_device_get ("cuda", &error);
  g_assert_null (d);
  assert_dl_error (error, DL_ERROR_DEVICE, "cuda", NULL);
  g_clear_error (&error);
  d = dl_device_get ("cuda:0", &error);
  g_assert_null (d);
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_clear_error (&error);
  d = dl_device_get ("tpu", &error);
  g_assert_null (d);
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
}

static void
test_error_numel_overflow (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) e
      = dl_tensor_expand (a, DL_TEST_SHAPE (G_GINT64_CONSTANT (1) << 62, 3), &error);
  g_autoptr (DlTensor) z = dl_zeros (DL_TEST_SHAPE (0), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) column = NULL;
  g_autoptr (DlTensor) big = NULL;
  g_autofree gchar *text = NULL;

  g_assert_null (e);
  assert_dl_error (error, DL_ERROR_SHAPE, "expand", "numel: integer multiplication overflow", NULL);
  g_clear_error (&error);
  r = dl_tensor_reshape (
      z, DL_TEST_SHAPE (G_GINT64_CONSTANT (1) << 40, G_GINT64_CONSTANT (1) << 40, 0), &error);
  g_assert_null (r);
  assert_dl_error (error, DL_ERROR_SHAPE, "reshape", "overflow", NULL);
  g_clear_error (&error);
  /* 2^40 elements that share one: printed from the 6 shown, not copied */
  column = dl_tensor_reshape (a, DL_TEST_SHAPE (3, 1), &error);
  big = dl_tensor_expand (column, DL_TEST_SHAPE (3, G_GINT64_CONSTANT (1) << 40), &error);
  g_assert_no_error (error);
  text = dl_tensor_to_string (big);
  g_assert_cmpstr (text, ==,
                   "tensor([[1., 1., 1.,  ..., 1., 1., 1.],\n"
                   "        [1., 1., 1.,  ..., 1., 1., 1.],\n"
                   "        [1., 1., 1.,  ..., 1., 1., 1.]])");
}

static void
test_error_read_only (void)
{
  static float values[4] = { 1, 2, 3, 4 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t
      = dl_tensor_new_from_address (GPOINTER_TO_SIZE (values), DL_TEST_SHAPE (4), NULL, 0,
                                    DL_DTYPE_FLOAT32, NULL, NULL, NULL, &error);
  g_autoptr (DlTensor) view = NULL;
  g_autoptr (DlTensor) copy = NULL;

  g_assert_no_error (error);
  g_assert_false (dl_tensor_is_read_only (t));
  dl_tensor_mark_read_only (t);
  g_assert_true (dl_tensor_is_read_only (t));
  g_assert_null (dl_tensor_fill_ (t, 0.0, &error));
  assert_dl_error (error, DL_ERROR_ARGUMENT, "fill_", "read-only", NULL);
  g_clear_error (&error);
  view = dl_tensor_slice (t, 0, 1, 3, 1, &error);
  g_assert_true (dl_tensor_is_read_only (view));
  g_assert_null (dl_tensor_mul_scalar_ (view, 2.0, &error));
  assert_dl_error (error, DL_ERROR_ARGUMENT, "mul_", "read-only", NULL);
  g_clear_error (&error);
  g_assert_cmpfloat (values[1], ==, 2.0f);
  copy = dl_tensor_clone (t, &error);
  g_assert_false (dl_tensor_is_read_only (copy));
  g_assert_nonnull (dl_tensor_fill_ (copy, 0.0, &error));
  g_assert_no_error (error);
}

static void
test_from_data (void)
{
  static const gint64 values[] = { 1, -2, 3, 4, 5, -6 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t
      = dl_tensor_new_from_data (values, sizeof values, DL_SHAPE (2, 3), DL_DTYPE_INT64, &error);
  g_autoptr (DlTensor) bad = NULL;
  g_autoptr (DlTensor) empty = NULL;
  g_autofree gdouble *got = NULL;

  g_assert_no_error (error);
  dl_test_assert_shape (t, DL_SHAPE (2, 3));
  got = dl_test_values (t);
  for (gint i = 0; i < 6; i++)
    g_assert_cmpfloat (got[i], ==, (gdouble)values[i]);
  bad = dl_tensor_new_from_data (values, sizeof values, DL_SHAPE (2, -3), DL_DTYPE_INT64, &error);
  g_assert_null (bad);
  assert_dl_error (error, DL_ERROR_ARGUMENT, "from_data", "negative dimension", NULL);
  g_clear_error (&error);
  bad = dl_tensor_new_from_data (values, sizeof values - 1, DL_SHAPE (2, 3), DL_DTYPE_INT64,
                                 &error);
  g_assert_null (bad);
  assert_dl_error (error, DL_ERROR_SHAPE, "from_data", "needs 48 bytes, got 47", NULL);
  g_clear_error (&error);
  /* no element: no data needed */
  empty = dl_tensor_new_from_data (NULL, 0, DL_SHAPE (0, 4), DL_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_numel (empty), ==, 0);
}

/* A dim is a gint64 everywhere: one far outside the tensor's dims is an
 * error naming the op and the dim, never a dim cut down to an int (2^32 + 1
 * would be dim 1). */
static void
test_error_huge_dims (void)
{
  static const gint64 huge[] = { G_MAXINT64, (gint64)G_MAXINT + 1, G_MININT64, (gint64)G_MININT - 1,
                                 ((gint64)1 << 32) + 1 };
  g_autoptr (DlTensor) x = dl_ones (DL_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) index = dl_zeros (DL_SHAPE (2, 3), DL_DTYPE_INT64, NULL, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (huge); i++)
    {
      const gint64 d = huge[i];
      g_autofree gchar *got = g_strdup_printf ("got %" G_GINT64_FORMAT, d);
      g_autoptr (DlFlatten) flatten = dl_flatten_new (d, -1);
      g_autoptr (DlSoftmax) softmax = dl_softmax_new (d);
      struct
      {
        const gchar *op;
        DlTensor *result;
        GError *error;
      } cases[14] = { { NULL } };
      gsize n = 0;

#define HUGE_DIM_CASE(name, call)                                                                  \
  do                                                                                               \
    {                                                                                              \
      cases[n].op = name;                                                                          \
      cases[n].result = call;                                                                      \
      n++;                                                                                         \
    }                                                                                              \
  while (0)
      HUGE_DIM_CASE ("gather", dl_tensor_gather (x, d, index, &cases[n].error));
      HUGE_DIM_CASE ("cat", dl_cat ((DlTensor *[]){ x, x }, 2, d, &cases[n].error));
      HUGE_DIM_CASE ("softmax", dl_tensor_softmax (x, d, &cases[n].error));
      HUGE_DIM_CASE ("log_softmax", dl_tensor_log_softmax (x, d, &cases[n].error));
      HUGE_DIM_CASE ("sum", dl_tensor_sum_dims (x, &d, 1, FALSE, &cases[n].error));
      HUGE_DIM_CASE ("cumsum", dl_tensor_cumsum (x, d, &cases[n].error));
      HUGE_DIM_CASE ("flatten", dl_tensor_flatten (x, d, -1, &cases[n].error));
      HUGE_DIM_CASE ("flatten", dl_tensor_flatten (x, 0, d, &cases[n].error));
      HUGE_DIM_CASE ("squeeze", dl_tensor_squeeze_dim (x, d, &cases[n].error));
      HUGE_DIM_CASE ("transpose", dl_tensor_transpose (x, 0, d, &cases[n].error));
      HUGE_DIM_CASE ("unsqueeze", dl_tensor_unsqueeze (x, d, &cases[n].error));
      HUGE_DIM_CASE ("permute", dl_tensor_permute (x, (gint64[]){ 0, d }, 2, &cases[n].error));
      HUGE_DIM_CASE ("flatten", dl_module_forward (DL_MODULE (flatten), x, &cases[n].error));
      /* G_MININT64 is the Softmax module's "no dim given" */
      if (d != G_MININT64)
        HUGE_DIM_CASE ("softmax", dl_module_forward (DL_MODULE (softmax), x, &cases[n].error));
#undef HUGE_DIM_CASE
      g_assert_cmpuint (n, >=, G_N_ELEMENTS (cases) - 1);

      for (gsize c = 0; c < n; c++)
        {
          g_assert_null (cases[c].result);
          assert_dl_error (cases[c].error, DL_ERROR_INDEX, cases[c].op, "out of range", got, NULL);
          g_clear_error (&cases[c].error);
        }
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tensor/error/broadcast", test_error_broadcast);
  g_test_add_func ("/tensor/error/matmul", test_error_matmul);
  g_test_add_func ("/tensor/error/view", test_error_view);
  g_test_add_func ("/tensor/error/index", test_error_index);
  g_test_add_func ("/tensor/error/argument", test_error_argument);
  g_test_add_func ("/tensor/error/out-of-memory", test_error_out_of_memory);
  g_test_add_func ("/tensor/error/bytes-length", test_error_bytes_length);
  g_test_add_func ("/tensor/error/dtype", test_error_dtype);
  g_test_add_func ("/tensor/error/io-format", test_error_io_format);
  g_test_add_func ("/tensor/error/device", test_error_device);
  g_test_add_func ("/tensor/error/numel-overflow", test_error_numel_overflow);
  g_test_add_func ("/tensor/error/read-only", test_error_read_only);
  g_test_add_func ("/tensor/error/huge-dims", test_error_huge_dims);
  g_test_add_func ("/tensor/from-data", test_from_data);

  return g_test_run ();
}
