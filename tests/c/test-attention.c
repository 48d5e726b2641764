/* test-attention.c: dl_scaled_dot_product_attention from C: values
 * against direct loops, gradients against finite differences, dropout's
 * generator, and the errors.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dl.h>

#include "dl-test-gradcheck.h"

/* softmax (q k^T scale + mask) v for one problem, by loops; mask [l, s]
 * (nullable) added, causal: -inf above the diagonal */
static void
attention_loops (const gdouble *q,
                 const gdouble *k,
                 const gdouble *v,
                 const gdouble *mask,
                 gboolean causal,
                 gint64 l,
                 gint64 s,
                 gint64 e,
                 gint64 ev,
                 gdouble *out)
{
  g_autofree gdouble *p = g_new (gdouble, s);

  for (gint64 i = 0; i < l; i++)
    {
      gdouble m = -INFINITY, sum = 0;

      for (gint64 j = 0; j < s; j++)
        {
          gdouble acc = 0;
          for (gint64 c = 0; c < e; c++)
            acc += q[i * e + c] * k[j * e + c];
          p[j] = acc / sqrt ((gdouble)e) + (mask ? mask[i * s + j] : 0);
          if (causal && j > i)
            p[j] = -INFINITY;
          m = MAX (m, p[j]);
        }
      for (gint64 j = 0; j < s; j++)
        sum += (p[j] = exp (p[j] - m));
      for (gint64 c = 0; c < ev; c++)
        {
          gdouble acc = 0;
          for (gint64 j = 0; j < s; j++)
            acc += p[j] / sum * v[j * ev + c];
          out[i * ev + c] = acc;
        }
    }
}

/* two problems of 70 queries and 300 keys (several of the kernel's
 * blocks), with a float mask or causal, float64 and float32 */
static void
check_values (DlDType dtype, gboolean with_mask, gboolean causal)
{
  const gint64 nb = 2, l = 70, s = 300, e = 5, ev = 3;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *qv = dl_test_random_values (nb * l * e);
  g_autofree gdouble *kv = dl_test_random_values (nb * s * e);
  g_autofree gdouble *vv = dl_test_random_values (nb * s * ev);
  g_autofree gdouble *mv = dl_test_random_values (l * s);
  g_autofree gdouble *expected = g_new (gdouble, nb * l * ev);
  g_autoptr (DlTensor) q = dl_test_tensor (qv, DL_TEST_SHAPE (nb, l, e), dtype);
  g_autoptr (DlTensor) k = dl_test_tensor (kv, DL_TEST_SHAPE (nb, s, e), dtype);
  g_autoptr (DlTensor) v = dl_test_tensor (vv, DL_TEST_SHAPE (nb, s, ev), dtype);
  g_autoptr (DlTensor) mask = with_mask ? dl_test_tensor (mv, DL_TEST_SHAPE (l, s), dtype) : NULL;
  g_autoptr (DlTensor) out = NULL;

  for (gint64 b = 0; b < nb; b++)
    attention_loops (qv + b * l * e, kv + b * s * e, vv + b * s * ev, with_mask ? mv : NULL, causal,
                     l, s, e, ev, expected + b * l * ev);
  out = dl_scaled_dot_product_attention (q, k, v, mask, 0, causal, 0, NULL, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (out, DL_TEST_SHAPE (nb, l, ev));
  dl_test_assert_values (out, expected, nb * l * ev, dtype == DL_DTYPE_FLOAT64 ? 1e-12 : 1e-5);
}

static void
test_values (void)
{
  check_values (DL_DTYPE_FLOAT64, FALSE, FALSE);
  check_values (DL_DTYPE_FLOAT64, TRUE, FALSE);
  check_values (DL_DTYPE_FLOAT64, FALSE, TRUE);
  check_values (DL_DTYPE_FLOAT32, TRUE, FALSE);
  check_values (DL_DTYPE_FLOAT32, FALSE, TRUE);
}

static DlTensor *
sdpa_masked (DlTensor **x, GError **error)
{
  return dl_scaled_dot_product_attention (x[0], x[1], x[2], x[3], 0, FALSE, 0, NULL, error);
}

static DlTensor *
sdpa_causal (DlTensor **x, GError **error)
{
  return dl_scaled_dot_product_attention (x[0], x[1], x[2], NULL, 0, TRUE, 0.5, NULL, error);
}

/* dropout with a generator seeded anew each call: the same mask */
static DlTensor *
sdpa_dropout (DlTensor **x, GError **error)
{
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", error);
  g_autoptr (DlGenerator) gen = cpu ? dl_generator_new (cpu, error) : NULL;

  if (!gen)
    return NULL;
  dl_generator_manual_seed (gen, 3);
  return dl_scaled_dot_product_attention (x[0], x[1], x[2], NULL, 0.3, FALSE, 0, gen, error);
}

static const DlTestGradCase grad_cases[] = {
  { "masked", sdpa_masked, 4, { { 2, 3, 4 }, { 2, 5, 4 }, { 1, 5, 3 }, { 3, 5 } }, { 3, 3, 3, 2 } },
  { "causal", sdpa_causal, 3, { { 4, 3 }, { 6, 3 }, { 6, 2 } }, { 2, 2, 2 } },
  { "dropout", sdpa_dropout, 3, { { 2, 4, 3 }, { 2, 6, 3 }, { 2, 6, 2 } }, { 3, 3, 3 } },
};

static void
test_dropout_generator (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *vals = dl_test_random_values (2 * 9 * 4);
  g_autoptr (DlTensor) x = dl_test_tensor (vals, DL_TEST_SHAPE (2, 9, 4), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) a = sdpa_dropout ((DlTensor *[]){ x, x, x }, &error);
  g_autoptr (DlTensor) b = sdpa_dropout ((DlTensor *[]){ x, x, x }, &error);
  g_autoptr (DlTensor) plain
      = dl_scaled_dot_product_attention (x, x, x, NULL, 0, FALSE, 0, NULL, &error);
  g_autoptr (GBytes) ab = NULL;
  g_autoptr (GBytes) bb = NULL;
  g_autoptr (GBytes) pb = NULL;

  g_assert_no_error (error);
  ab = dl_tensor_to_bytes (a, &error);
  bb = dl_tensor_to_bytes (b, &error);
  pb = dl_tensor_to_bytes (plain, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (ab, bb));
  g_assert_false (g_bytes_equal (ab, pb));
}

/* The fused backward (one problem over several key blocks, which the
 * threads share) against the differentiable ops a create_graph backward
 * records, with a float mask and dropout */
static void
test_backward_fused_vs_recorded (void)
{
  const gint64 l = 60, s = 600, e = 5, ev = 3; /* work enough for the threads */
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *qv = dl_test_random_values (l * e);
  g_autofree gdouble *kv = dl_test_random_values (s * e);
  g_autofree gdouble *vv = dl_test_random_values (s * ev);
  g_autofree gdouble *mv = dl_test_random_values (l * s);
  g_autofree gdouble *gv = dl_test_random_values (l * ev);
  DlTensor *x[4];
  g_autoptr (DlTensor) go = dl_test_tensor (gv, DL_TEST_SHAPE (l, ev), DL_DTYPE_FLOAT64);
  g_autoptr (GPtrArray) fused = NULL;
  g_autoptr (GPtrArray) recorded = NULL;

  x[0] = dl_test_tensor (qv, DL_TEST_SHAPE (l, e), DL_DTYPE_FLOAT64);
  x[1] = dl_test_tensor (kv, DL_TEST_SHAPE (s, e), DL_DTYPE_FLOAT64);
  x[2] = dl_test_tensor (vv, DL_TEST_SHAPE (s, ev), DL_DTYPE_FLOAT64);
  x[3] = dl_test_tensor (mv, DL_TEST_SHAPE (l, s), DL_DTYPE_FLOAT64);
  for (gint i = 0; i < 4; i++)
    g_assert_true (dl_tensor_set_requires_grad (x[i], TRUE, &error));
  for (gint pass = 0; pass < 2; pass++)
    {
      g_autoptr (DlDevice) cpu = dl_device_get ("cpu", &error);
      g_autoptr (DlGenerator) gen = dl_generator_new (cpu, &error);
      g_autoptr (DlTensor) out = NULL;

      dl_generator_manual_seed (gen, 9);
      out = dl_scaled_dot_product_attention (x[0], x[1], x[2], x[3], 0.2, FALSE, 0, gen, &error);
      g_assert_no_error (error);
      if (pass == 0)
        fused = dl_autograd_grad (&out, 1, x, 4, &go, 1, FALSE, FALSE, FALSE, &error);
      else
        recorded = dl_autograd_grad (&out, 1, x, 4, &go, 1, FALSE, TRUE, FALSE, &error);
      g_assert_no_error (error);
    }
  /* the arrays come without an element free function (see dl_autograd_grad) */
  g_ptr_array_set_free_func (fused, g_object_unref);
  g_ptr_array_set_free_func (recorded, g_object_unref);
  for (guint i = 0; i < 4; i++)
    {
      DlTensor *r = g_ptr_array_index (recorded, i);
      g_autofree gdouble *want = dl_test_values (r);

      g_assert_true (dl_tensor_get_requires_grad (r)); /* recorded with create_graph */
      dl_test_assert_values (g_ptr_array_index (fused, i), want, dl_tensor_numel (r), 1e-12);
    }
  for (gint i = 0; i < 4; i++)
    g_object_unref (x[i]);
}

static void
expect_error (DlTensor *q,
              DlTensor *k,
              DlTensor *v,
              DlTensor *mask,
              gdouble p,
              gboolean causal,
              gint code,
              const gchar *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) out
      = dl_scaled_dot_product_attention (q, k, v, mask, p, causal, 0, NULL, &error);

  g_assert_null (out);
  g_assert_error (error, DL_ERROR, code);
  g_assert_nonnull (strstr (error->message, "scaled_dot_product_attention"));
  if (!strstr (error->message, text))
    g_test_fail_printf ("'%s' does not say '%s'", error->message, text);
}

static DlTensor *
zeros (DlDType dtype, const gint64 *shape, gsize nd)
{
  g_autoptr (GError) error = NULL;
  DlTensor *t = dl_zeros (shape, nd, dtype, NULL, &error);

  g_assert_no_error (error);
  return t;
}

static void
test_errors (void)
{
  g_autoptr (DlTensor) q = zeros (DL_DTYPE_FLOAT32, DL_TEST_SHAPE (2, 5, 4));
  g_autoptr (DlTensor) k = zeros (DL_DTYPE_FLOAT32, DL_TEST_SHAPE (2, 6, 4));
  g_autoptr (DlTensor) v = zeros (DL_DTYPE_FLOAT32, DL_TEST_SHAPE (2, 6, 3));
  g_autoptr (DlTensor) one_d = zeros (DL_DTYPE_FLOAT32, DL_TEST_SHAPE (4));
  g_autoptr (DlTensor) k3 = zeros (DL_DTYPE_FLOAT32, DL_TEST_SHAPE (2, 6, 3));
  g_autoptr (DlTensor) v7 = zeros (DL_DTYPE_FLOAT32, DL_TEST_SHAPE (2, 7, 3));
  g_autoptr (DlTensor) kb = zeros (DL_DTYPE_FLOAT32, DL_TEST_SHAPE (3, 6, 4));
  g_autoptr (DlTensor) k64 = zeros (DL_DTYPE_FLOAT64, DL_TEST_SHAPE (2, 6, 4));
  g_autoptr (DlTensor) qi = zeros (DL_DTYPE_INT64, DL_TEST_SHAPE (2, 5, 4));
  g_autoptr (DlTensor) mask_shape = zeros (DL_DTYPE_BOOL, DL_TEST_SHAPE (5, 5));
  g_autoptr (DlTensor) mask_int = zeros (DL_DTYPE_INT64, DL_TEST_SHAPE (5, 6));
  g_autoptr (DlTensor) mask = zeros (DL_DTYPE_FLOAT32, DL_TEST_SHAPE (5, 6));

  expect_error (one_d, k, v, NULL, 0, FALSE, DL_ERROR_SHAPE, "at least 2 dims");
  expect_error (q, k3, v, NULL, 0, FALSE, DL_ERROR_SHAPE, "embedding dims 4 and 3");
  expect_error (q, k, v7, NULL, 0, FALSE, DL_ERROR_SHAPE, "sequence lengths 6 and 7");
  expect_error (q, kb, kb, NULL, 0, FALSE, DL_ERROR_SHAPE, "do not broadcast");
  expect_error (q, k64, v, NULL, 0, FALSE, DL_ERROR_DTYPE, "same dtype");
  expect_error (qi, qi, qi, NULL, 0, FALSE, DL_ERROR_DTYPE, "not implemented for 'int64'");
  expect_error (q, k, v, mask_shape, 0, FALSE, DL_ERROR_SHAPE, "[5, 5]");
  expect_error (q, k, v, mask_int, 0, FALSE, DL_ERROR_DTYPE, "attn_mask dtype");
  expect_error (q, k, v, mask, 0, TRUE, DL_ERROR_ARGUMENT, "is_causal=True");
  expect_error (q, k, v, NULL, 1.5, FALSE, DL_ERROR_ARGUMENT, "between 0 and 1");
  expect_error (q, k, v, NULL, -0.5, FALSE, DL_ERROR_ARGUMENT, "between 0 and 1");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/attention/values", test_values);
  for (gsize i = 0; i < G_N_ELEMENTS (grad_cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/attention/gradcheck/%s", grad_cases[i].name);
      g_test_add_data_func (path, &grad_cases[i], dl_test_gradcheck);
    }
  g_test_add_func ("/attention/dropout-generator", test_dropout_generator);
  g_test_add_func ("/attention/backward-fused-vs-recorded", test_backward_fused_vs_recorded);
  g_test_add_func ("/attention/errors", test_errors);
  return g_test_run ();
}
