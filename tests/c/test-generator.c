/* test-generator.c: DlGenerator and the random kernels (uniform, normal,
 * bernoulli, permutation), linspace and eye, and the new linear-algebra ops
 * (mm, bmm, dot, outer, einsum), each compared with a plain loop.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

static void
test_generator_seed_and_state (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlGenerator) g = dl_generator_new (NULL, &error);
  g_autoptr (DlGenerator) h = dl_generator_new (NULL, &error);
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (GBytes) state = NULL;
  g_autoptr (GBytes) bad = g_bytes_new ("xyz", 3);
  g_autofree gdouble *av = NULL;
  g_autofree gdouble *bv = NULL;
  g_autofree gdouble *cv = NULL;
  const gint64 n = 1001;

  g_assert_no_error (error);
  g_assert_cmpstr (dl_device_get_name (dl_generator_get_device (g)), ==, "cpu");
  dl_generator_manual_seed (g, 17);
  dl_generator_manual_seed (h, 17);
  g_assert_cmpuint (dl_generator_initial_seed (g), ==, 17);
  a = dl_rand_gen (&n, 1, DL_DTYPE_FLOAT32, NULL, g, &error);
  g_assert_no_error (error);
  /* the default generator in between does not disturb h */
  g_clear_object (&c);
  c = dl_rand (&n, 1, DL_DTYPE_FLOAT32, NULL, &error);
  b = dl_rand_gen (&n, 1, DL_DTYPE_FLOAT32, NULL, h, &error);
  g_assert_no_error (error);
  av = dl_test_values (a);
  bv = dl_test_values (b);
  g_assert_cmpmem (av, n * sizeof (gdouble), bv, n * sizeof (gdouble));
  /* a CPU generator counts the 32-bit words of its Mersenne Twister: one
   * per float32 value */
  g_assert_cmpuint (dl_generator_get_offset (g), ==, n);

  /* in the layout of torch.get_rng_state () */
  state = dl_generator_get_state (g);
  g_assert_cmpuint (g_bytes_get_size (state), ==, 5056);
  g_clear_object (&a);
  a = dl_randn_gen (&n, 1, DL_DTYPE_FLOAT64, NULL, g, &error);
  dl_generator_manual_seed (g, 3);
  g_assert_true (dl_generator_set_state (g, state, &error));
  g_assert_no_error (error);
  g_clear_object (&c);
  c = dl_randn_gen (&n, 1, DL_DTYPE_FLOAT64, NULL, g, &error);
  g_assert_no_error (error);
  g_clear_pointer (&av, g_free);
  av = dl_test_values (a);
  cv = dl_test_values (c);
  g_assert_cmpmem (av, n * sizeof (gdouble), cv, n * sizeof (gdouble));

  g_assert_false (dl_generator_set_state (g, bad, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);

  g_assert_true (dl_manual_seed (5) == dl_device_get_default_generator (NULL));
  g_assert_true (dl_default_generator () == dl_device_get_default_generator (NULL));
  g_assert_cmpuint (dl_generator_initial_seed (dl_default_generator ()), ==, 5);
  g_assert_cmpuint (dl_generator_seed (g), ==, dl_generator_initial_seed (g));
}

/* A seed gives PyTorch's numbers: torch.manual_seed (0) then torch.rand
 * (3), torch.randn (3), torch.randperm (6), torch.randint (0, 10, (4,)),
 * as python3-torch 1.13 prints them; and a state PyTorch would refuse is
 * refused */
static void
test_generator_torch_numbers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlGenerator) g = dl_generator_new (NULL, &error);
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) k = NULL;
  g_autoptr (GBytes) state = NULL;
  g_autoptr (GBytes) bad = NULL;
  g_autofree guint8 *raw = NULL;
  const gint64 three = 3, six = 6, four = 4;
  gsize size;

  g_assert_no_error (error);
  dl_generator_manual_seed (g, 0);
  u = dl_rand_gen (&three, 1, DL_DTYPE_FLOAT32, NULL, g, &error);
  g_assert_no_error (error);
  dl_generator_manual_seed (g, 0);
  z = dl_randn_gen (&three, 1, DL_DTYPE_FLOAT32, NULL, g, &error);
  dl_generator_manual_seed (g, 0);
  p = dl_randperm (6, DL_DTYPE_INT64, NULL, g, &error);
  k = dl_randint_gen (0, 10, &four, 1, DL_DTYPE_INT64, NULL, g, &error);
  g_assert_no_error (error);
  dl_test_assert_values (
      u, (gdouble[]){ 0.49625658988952637, 0.7682217955589294, 0.08847743272781372 }, 3, 0);
  dl_test_assert_values (
      z, (gdouble[]){ 1.5409960746765137, -0.293428897857666, -2.1787893772125244 }, 3, 0);
  dl_test_assert_values (p, (gdouble[]){ 2, 5, 3, 0, 1, 4 }, 6, 0);
  dl_test_assert_values (k, (gdouble[]){ 9, 7, 3, 7 }, 4, 0);
  dl_test_assert_shape (p, &six, 1);

  /* left (bytes 8-11) out of 1 .. 624 */
  state = dl_generator_get_state (g);
  raw = g_bytes_unref_to_data (g_steal_pointer (&state), &size);
  g_assert_cmpuint (size, ==, 5056);
  memset (raw + 8, 0, 4);
  bad = g_bytes_new (raw, size);
  g_assert_false (dl_generator_set_state (g, bad, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_randperm (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlGenerator) g = dl_generator_new (NULL, &error);
  const gint64 sizes[] = { 0, 1, 2, 5, 1000 };

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      gint64 n = sizes[s];
      g_autoptr (DlTensor) p = dl_randperm (n, DL_DTYPE_INT64, NULL, g, &error);
      g_autofree gdouble *v = NULL;
      g_autofree gboolean *seen = g_new0 (gboolean, MAX (n, 1));

      g_assert_no_error (error);
      dl_test_assert_shape (p, &n, 1);
      v = dl_test_values (p);
      for (gint64 i = 0; i < n; i++)
        {
          g_assert_cmpfloat (v[i], >=, 0);
          g_assert_cmpfloat (v[i], <, n);
          g_assert_false (seen[(gint64)v[i]]);
          seen[(gint64)v[i]] = TRUE;
        }
    }
  g_assert_null (dl_randperm (-1, DL_DTYPE_INT64, NULL, g, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_randperm (300, DL_DTYPE_UINT8, NULL, g, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
}

static void
test_bernoulli (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 n = 20000;
  g_autoptr (DlTensor) t = dl_empty (&n, 1, DL_DTYPE_INT32, NULL, &error);
  DlTensor *r = dl_tensor_bernoulli_ (t, 0.3, NULL, &error);
  g_autofree gdouble *v = NULL;
  gdouble mean = 0;

  g_assert_no_error (error);
  g_assert_true (r == t);
  v = dl_test_values (t);
  for (gint64 i = 0; i < n; i++)
    {
      g_assert_true (v[i] == 0 || v[i] == 1);
      mean += v[i] / n;
    }
  g_assert_cmpfloat_with_epsilon (mean, 0.3, 0.02);
  g_assert_null (dl_tensor_bernoulli_ (t, -0.5, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_multinomial (void)
{
  g_autoptr (GError) error = NULL;
  const gdouble w[8] = { 0, 1, 3, 0, 2, 2, 0, 4 };
  g_autoptr (DlTensor) probs = dl_test_tensor (w, DL_TEST_SHAPE (2, 4), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) neg = NULL;
  const gdouble bad[2] = { 1, -1 };

  for (gint repl = 0; repl < 2; repl++)
    {
      g_autoptr (DlTensor) s = dl_multinomial (probs, repl ? 50 : 2, repl, NULL, &error);
      g_autofree gdouble *v = NULL;
      gint64 n = repl ? 50 : 2;

      g_assert_no_error (error);
      dl_test_assert_shape (s, DL_TEST_SHAPE (2, n));
      v = dl_test_values (s);
      for (gint r = 0; r < 2; r++)
        for (gint64 i = 0; i < n; i++)
          g_assert_cmpfloat (w[r * 4 + (gint)v[r * n + i]], >, 0);
      if (!repl)
        for (gint r = 0; r < 2; r++)
          g_assert_cmpfloat (v[r * 2], !=, v[r * 2 + 1]);
    }
  neg = dl_test_tensor (bad, DL_TEST_SHAPE (2), DL_DTYPE_FLOAT64);
  g_assert_null (dl_multinomial (neg, 1, TRUE, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_linspace_eye (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) l = dl_linspace (-1, 2, 7, DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) e = dl_eye (3, 4, DL_DTYPE_FLOAT32, NULL, &error);
  gdouble expect[12];

  g_assert_no_error (error);
  for (gint i = 0; i < 7; i++)
    expect[i] = -1 + 0.5 * i;
  dl_test_assert_values (l, expect, 7, 1e-15);
  for (gint i = 0; i < 3; i++)
    for (gint j = 0; j < 4; j++)
      expect[i * 4 + j] = i == j;
  dl_test_assert_values (e, expect, 12, 0);
  g_assert_null (dl_eye (-1, 2, DL_DTYPE_FLOAT32, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_linalg (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *av = dl_test_random_values (2 * 3 * 4);
  g_autofree gdouble *bv = dl_test_random_values (2 * 4 * 5);
  g_autoptr (DlTensor) a = dl_test_tensor (av, DL_TEST_SHAPE (2, 3, 4), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) b = dl_test_tensor (bv, DL_TEST_SHAPE (2, 4, 5), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) p = dl_tensor_bmm (a, b, &error);
  g_autoptr (DlTensor) q = dl_einsum ("bij,bjk->bik", (DlTensor *[]){ a, b }, 2, &error);
  g_autoptr (DlTensor) tr = NULL;
  g_autoptr (DlTensor) sq = NULL;
  g_autoptr (DlTensor) bad = NULL;
  gdouble expect[2 * 3 * 5], trace = 0;

  g_assert_no_error (error);
  for (gint z = 0; z < 2; z++)
    for (gint i = 0; i < 3; i++)
      for (gint k = 0; k < 5; k++)
        {
          gdouble s = 0;
          for (gint j = 0; j < 4; j++)
            s += av[z * 12 + i * 4 + j] * bv[z * 20 + j * 5 + k];
          expect[z * 15 + i * 5 + k] = s;
        }
  dl_test_assert_values (p, expect, 30, 1e-12);
  dl_test_assert_values (q, expect, 30, 1e-12);

  sq = dl_test_tensor (av, DL_TEST_SHAPE (4, 4), DL_DTYPE_FLOAT64);
  tr = dl_einsum ("ii", &sq, 1, &error);
  g_assert_no_error (error);
  for (gint i = 0; i < 4; i++)
    trace += av[i * 5];
  dl_test_assert_values (tr, &trace, 1, 1e-12);

  bad = dl_tensor_mm (a, b, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_null (dl_einsum ("ij,jk", &a, 1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/generator/seed-and-state", test_generator_seed_and_state);
  g_test_add_func ("/generator/torch-numbers", test_generator_torch_numbers);
  g_test_add_func ("/generator/randperm", test_randperm);
  g_test_add_func ("/generator/bernoulli", test_bernoulli);
  g_test_add_func ("/generator/multinomial", test_multinomial);
  g_test_add_func ("/creation/linspace-eye", test_linspace_eye);
  g_test_add_func ("/linalg/bmm-einsum", test_linalg);
  return g_test_run ();
}
