/* test-release.c: dl_tensor_release() lets a tensor's memory go, and every
 * op given a released tensor (as any operand, or through a view made
 * afterwards) fails with "<op>: tensor was released" rather than working
 * on an empty tensor.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

/* one op applied to a released tensor @r beside a live one @x (both [2, 3]
 * float32); returns the result, NULL on error */
typedef DlTensor *(*ReleasedOp) (DlTensor *r, DlTensor *x, GError **error);

static DlTensor *
op_add (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_add (r, x, error);
}

static DlTensor *
op_add_other (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_add (x, r, error);
}

static DlTensor *
op_mul_scalar (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_mul_scalar (r, 2, error);
}

static DlTensor *
op_exp (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_exp (r, error);
}

static DlTensor *
op_sum (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_sum (r, error);
}

static DlTensor *
op_mean (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_mean (r, error);
}

static DlTensor *
op_argmax (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_argmax (r, 0, FALSE, error);
}

static DlTensor *
op_matmul (DlTensor *r, DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) xt = dl_tensor_t (x, NULL);

  return dl_tensor_matmul (xt, r, error);
}

static DlTensor *
op_softmax (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_softmax (r, 0, error);
}

static DlTensor *
op_view (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_view (r, DL_TEST_SHAPE (0), error);
}

static DlTensor *
op_transpose (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_t (r, error);
}

static DlTensor *
op_unsqueeze (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_unsqueeze (r, 0, error);
}

static DlTensor *
op_contiguous (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_contiguous (r, error);
}

static DlTensor *
op_clone (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_clone (r, error);
}

static DlTensor *
op_to_dtype (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_to_dtype (r, DL_DTYPE_FLOAT64, error);
}

static DlTensor *
op_cat (DlTensor *r, DlTensor *x, GError **error)
{
  DlTensor *list[] = { x, r };

  return dl_cat (list, 2, 0, error);
}

static DlTensor *
op_index_select (DlTensor *r, DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) idx = dl_zeros (DL_TEST_SHAPE (1), DL_DTYPE_INT64, NULL, NULL);

  return dl_tensor_index_select (r, 0, idx, error);
}

static DlTensor *
op_gather (DlTensor *r, DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) idx = dl_zeros (DL_TEST_SHAPE (1, 1), DL_DTYPE_INT64, NULL, NULL);

  return dl_tensor_gather (r, 1, idx, error);
}

static DlTensor *
op_max (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_max (r, error);
}

static DlTensor *
op_median (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_median (r, error);
}

static DlTensor *
op_cumsum (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_cumsum (r, 0, error);
}

static DlTensor *
op_nonzero (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_nonzero (r, error);
}

static DlTensor *
op_std (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_tensor_std (r, NULL, 0, 1, FALSE, error);
}

static DlTensor *
op_add_ (DlTensor *r, DlTensor *x, GError **error)
{
  DlTensor *out = dl_tensor_add_scalar_ (r, 1, error);

  return out ? g_object_ref (out) : NULL;
}

static DlTensor *
op_copy_into (DlTensor *r, DlTensor *x, GError **error)
{
  DlTensor *out = dl_tensor_copy_ (r, x, error);

  return out ? g_object_ref (out) : NULL;
}

static DlTensor *
op_copy_from (DlTensor *r, DlTensor *x, GError **error)
{
  DlTensor *out = dl_tensor_copy_ (x, r, error);

  return out ? g_object_ref (out) : NULL;
}

static DlTensor *
op_fill_ (DlTensor *r, DlTensor *x, GError **error)
{
  DlTensor *out = dl_tensor_fill_ (r, 0, error);

  return out ? g_object_ref (out) : NULL;
}

static DlTensor *
op_mse_loss (DlTensor *r, DlTensor *x, GError **error)
{
  return dl_mse_loss (x, r, DL_REDUCTION_MEAN, error);
}

static const struct
{
  const gchar *op; /* the name the error gives, or NULL for any */
  ReleasedOp run;
} released_ops[] = {
  { "add", op_add },
  { "add", op_add_other },
  { "mul", op_mul_scalar },
  { "exp", op_exp },
  { "sum", op_sum },
  { "mean", op_mean },
  { NULL, op_argmax }, /* names itself max, as its other errors do */
  { "matmul", op_matmul },
  { NULL, op_softmax },
  { "view", op_view },
  { "t", op_transpose },
  { "unsqueeze", op_unsqueeze },
  { "contiguous", op_contiguous },
  { "clone", op_clone },
  { "to", op_to_dtype },
  { "cat", op_cat },
  { "index_select", op_index_select },
  { "gather", op_gather },
  { "max", op_max },
  { "median", op_median },
  { "cumsum", op_cumsum },
  { "nonzero", op_nonzero },
  { NULL, op_std },
  { "add_", op_add_ },
  { "copy_", op_copy_into },
  { "copy_", op_copy_from },
  { "fill_", op_fill_ },
  /* composite ops name the primitive that met the tensor */
  { NULL, op_mse_loss },
};

static void
test_release_ops (void)
{
  g_autoptr (DlTensor) r = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) x = dl_ones (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);

  g_assert_false (dl_tensor_is_released (r));
  dl_tensor_release (r);
  g_assert_true (dl_tensor_is_released (r));
  dl_tensor_release (r); /* twice is harmless */
  for (gsize i = 0; i < G_N_ELEMENTS (released_ops); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) out = released_ops[i].run (r, x, &error);

      if (out != NULL)
        {
          g_test_fail_printf ("op %zu (%s) gave a result for a released tensor", i,
                              released_ops[i].op);
          continue;
        }
      if (!g_error_matches (error, DL_ERROR, DL_ERROR_ARGUMENT)
          || !g_str_has_suffix (error->message, ": tensor was released")
          || (released_ops[i].op && !g_str_has_prefix (error->message, released_ops[i].op)))
        g_test_fail_printf ("op %zu: message \"%s\", expected \"%s: tensor was released\"", i,
                            error->message, released_ops[i].op ? released_ops[i].op : "<op>");
    }
}

static void
test_release_scalars (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) r = dl_ones (DL_TEST_SHAPE (1), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (GBytes) bytes = NULL;

  dl_tensor_release (r);
  dl_tensor_item (r, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "tensor was released"));
  g_clear_error (&error);
  bytes = dl_tensor_to_bytes (r, &error);
  g_assert_null (bytes);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_release_autograd (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) w = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) loss = NULL;

  dl_tensor_set_requires_grad (w, TRUE, NULL);
  y = dl_tensor_mul (w, w, NULL);
  loss = dl_tensor_sum (y, NULL);
  /* the graph holds what it saved; releasing the loss drops its history */
  dl_tensor_release (loss);
  g_assert_null (dl_tensor_get_grad_fn (loss));
  g_assert_false (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "tensor was released"));
}

/* views made before the release keep the memory; the tensor's own use fails */
static void
test_release_views_keep_memory (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_full (DL_TEST_SHAPE (2, 2), 3, DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) v = dl_tensor_t (a, NULL);
  g_autoptr (DlTensor) s = NULL;

  dl_tensor_release (a);
  s = dl_tensor_sum (v, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (dl_tensor_item (s, NULL), ==, 12);
  g_assert_false (dl_tensor_is_released (v));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tensor/release/ops", test_release_ops);
  g_test_add_func ("/tensor/release/scalars", test_release_scalars);
  g_test_add_func ("/tensor/release/autograd", test_release_autograd);
  g_test_add_func ("/tensor/release/views-keep-memory", test_release_views_keep_memory);
  return g_test_run ();
}
