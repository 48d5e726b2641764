/* test-init-utils.c: nn.init from C (gains, fans, the bounds and spreads
 * of xavier and kaiming, orthogonality, truncation, reproducibility with a
 * DlGenerator, the errors) and nn.utils (clip_grad_norm_ against
 * PyTorch's numbers, clip_grad_value_, parameters as one vector).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

static void
test_gain_and_fans (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) w = dl_empty (DL_TEST_SHAPE (64, 32, 3, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) v = dl_empty (DL_TEST_SHAPE (5), DL_DTYPE_FLOAT32, NULL, NULL);
  gint64 fan_in = 0, fan_out = 0;

  g_assert_cmpfloat (dl_init_calculate_gain ("conv2d", 0, &error), ==, 1.0);
  g_assert_cmpfloat (dl_init_calculate_gain ("relu", 0, &error), ==, sqrt (2.0));
  g_assert_cmpfloat (dl_init_calculate_gain ("tanh", 0, &error), ==, 5.0 / 3);
  g_assert_cmpfloat (dl_init_calculate_gain ("selu", 0, &error), ==, 0.75);
  g_assert_cmpfloat (dl_init_calculate_gain ("leaky_relu", 0.2, &error), ==, sqrt (2.0 / 1.04));
  g_assert_no_error (error);
  g_assert_cmpfloat (dl_init_calculate_gain ("swish", 0, &error), ==, 0);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "Unsupported nonlinearity swish");
  g_clear_error (&error);

  g_assert_true (dl_init_calculate_fan_in_and_fan_out (w, &fan_in, &fan_out, &error));
  g_assert_cmpint (fan_in, ==, 32 * 9);
  g_assert_cmpint (fan_out, ==, 64 * 9);
  g_assert_false (dl_init_calculate_fan_in_and_fan_out (v, &fan_in, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_init_xavier_uniform_ (v, 1, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_init_kaiming_normal_ (w, 0, "fan_middle", "relu", NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_init_kaiming_normal_ (w, 0, "fan_in", "softplus", NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_init_orthogonal_ (v, 1, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_init_eye_ (w, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* mean, std and max |v| of @t */
static void
moments (DlTensor *t, gdouble *mean, gdouble *std, gdouble *amax)
{
  g_autofree gdouble *v = dl_test_values (t);
  gint64 n = dl_tensor_numel (t);
  gdouble s = 0, s2 = 0;

  *amax = 0;
  for (gint64 i = 0; i < n; i++)
    {
      s += v[i];
      s2 += v[i] * v[i];
      *amax = MAX (*amax, fabs (v[i]));
    }
  *mean = s / n;
  *std = sqrt (s2 / n - *mean * *mean);
}

static void
test_kaiming_xavier (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) w = dl_empty (DL_TEST_SHAPE (200, 300), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlGenerator) gen = dl_generator_new (NULL, NULL);
  g_autofree gdouble *first = NULL;
  g_autofree gdouble *second = NULL;
  gdouble mean, std, amax, bound;

  /* kaiming_uniform_ (a = sqrt 5): Linear's default, bound 1 / sqrt (fan_in) */
  dl_generator_manual_seed (gen, 7);
  g_assert_true (dl_init_kaiming_uniform_ (w, sqrt (5.0), "fan_in", "leaky_relu", gen, &error)
                 == w);
  g_assert_no_error (error);
  first = dl_test_values (w);
  moments (w, &mean, &std, &amax);
  bound = 1 / sqrt (300.0);
  g_assert_cmpfloat (amax, <=, bound * (1 + 1e-6));
  g_assert_cmpfloat (amax, >, 0.99 * bound);
  g_assert_cmpfloat (fabs (std / (bound / sqrt (3.0)) - 1), <, 0.02);
  /* the same seed, the same values */
  dl_generator_manual_seed (gen, 7);
  dl_init_kaiming_uniform_ (w, sqrt (5.0), "fan_in", "leaky_relu", gen, &error);
  second = dl_test_values (w);
  g_assert_cmpmem (first, 60000 * sizeof (gdouble), second, 60000 * sizeof (gdouble));

  /* kaiming_normal_ fan_out relu: std sqrt (2 / 200) */
  dl_init_kaiming_normal_ (w, 0, "fan_out", "relu", NULL, &error);
  moments (w, &mean, &std, &amax);
  g_assert_cmpfloat (fabs (std / sqrt (2.0 / 200) - 1), <, 0.02);
  g_assert_cmpfloat (fabs (mean), <, 0.01 * std);
  /* xavier: std gain sqrt (2 / 500) */
  dl_init_xavier_normal_ (w, 2, NULL, &error);
  moments (w, &mean, &std, &amax);
  g_assert_cmpfloat (fabs (std / (2 * sqrt (2.0 / 500)) - 1), <, 0.02);
  dl_init_xavier_uniform_ (w, 1, NULL, &error);
  moments (w, &mean, &std, &amax);
  g_assert_cmpfloat (amax, <=, sqrt (6.0 / 500) * (1 + 1e-6));
  g_assert_no_error (error);
}

static void
test_orthogonal (void)
{
  const gint64 shapes[][2] = { { 30, 50 }, { 50, 30 }, { 20, 20 } };

  for (gsize s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) w
          = dl_empty (DL_TEST_SHAPE (shapes[s][0], shapes[s][1]), DL_DTYPE_FLOAT64, NULL, NULL);
      g_autoptr (DlTensor) wt = NULL;
      g_autoptr (DlTensor) gram = NULL;
      gint64 k = MIN (shapes[s][0], shapes[s][1]);
      g_autofree gdouble *eye = g_new0 (gdouble, k * k);

      g_assert_true (dl_init_orthogonal_ (w, 3, NULL, &error) == w);
      g_assert_no_error (error);
      wt = dl_tensor_t (w, NULL);
      gram = shapes[s][0] >= shapes[s][1] ? dl_tensor_matmul (wt, w, NULL)
                                          : dl_tensor_matmul (w, wt, NULL);
      for (gint64 i = 0; i < k; i++)
        eye[i * k + i] = 9; /* gain^2 */
      dl_test_assert_values (gram, eye, k * k, 1e-12);
    }
}

static void
test_trunc_normal_and_eye (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) w = dl_empty (DL_TEST_SHAPE (100, 100), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) e = dl_empty (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autofree gdouble *v = NULL;
  gdouble mean, std, amax;

  g_assert_true (dl_init_trunc_normal_ (w, 1, 2, 0, 1.5, NULL, &error) == w);
  g_assert_no_error (error);
  v = dl_test_values (w);
  for (gint i = 0; i < 10000; i++)
    g_assert_true (v[i] >= 0 && v[i] <= 1.5);
  /* N(1, 4) on [0, 1.5]: nearly uniform, mean 1 + 2 (phi (-1/2) - phi
   * (1/4)) / (Phi (1/4) - Phi (-1/2)) = 0.7615; the standard error of 10^4
   * samples is about 0.0043 */
  moments (w, &mean, &std, &amax);
  g_assert_cmpfloat (fabs (mean - 0.7615), <, 0.02);
  dl_init_eye_ (e, &error);
  g_assert_no_error (error);
  dl_test_assert_values (e, (gdouble[]){ 1, 0, 0, 0, 1, 0 }, 6, 0);
}

/* a parameter with gradient @g */
static DlTensor *
param_with_grad (const gdouble *g, const gint64 *shape, gsize nd)
{
  DlTensor *p = dl_zeros (shape, nd, DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) grad = dl_test_tensor (g, shape, nd, DL_DTYPE_FLOAT32);

  g_assert_true (dl_tensor_set_requires_grad (p, TRUE, NULL));
  g_assert_true (dl_tensor_set_grad (p, grad, NULL));
  return p;
}

static void
test_clip_grad (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = param_with_grad ((gdouble[]){ 3, -4 }, DL_TEST_SHAPE (2));
  g_autoptr (DlTensor) b = param_with_grad ((gdouble[]){ 1, -2, 2, 0.5 }, DL_TEST_SHAPE (2, 2));
  g_autoptr (DlTensor) c = dl_zeros (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, NULL);
  DlTensor *params[] = { a, c, b };
  g_autoptr (DlTensor) total = NULL;
  g_autoptr (DlTensor) vec = NULL;
  g_autoptr (DlTensor) back = NULL;

  /* PyTorch's numbers (float32) */
  total = dl_clip_grad_norm_ (params, 3, 1.0, 2.0, TRUE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (total, (gdouble[]){ 5.852349758148193 }, 1, 1e-7);
  dl_test_assert_values (dl_tensor_get_grad (a),
                         (gdouble[]){ 0.5126145482063293, -0.6834860444068909 }, 2, 1e-7);
  dl_test_assert_values (dl_tensor_get_grad (b),
                         (gdouble[]){ 0.17087151110172272, -0.34174302220344543,
                                      0.34174302220344543, 0.08543575555086136 },
                         4, 1e-7);
  g_assert_null (dl_tensor_get_grad (c));
  g_clear_object (&total);

  /* the inf norm, after a clip_grad_value_ */
  g_assert_true (dl_clip_grad_value_ (params, 3, 0.3, &error));
  dl_test_assert_values (dl_tensor_get_grad (a), (gdouble[]){ 0.3, -0.3 }, 2, 1e-7);
  total = dl_clip_grad_norm_ (params, 3, 2.0, INFINITY, FALSE, &error);
  dl_test_assert_values (total, (gdouble[]){ 0.3 }, 1, 1e-7);
  dl_test_assert_values (dl_tensor_get_grad (a), (gdouble[]){ 0.3, -0.3 }, 2, 1e-7);

  /* parameters as one vector and back */
  vec = dl_parameters_to_vector (params, 3, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (vec, DL_TEST_SHAPE (9));
  g_clear_object (&vec);
  vec = dl_arange (0, 9, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_true (dl_vector_to_parameters (vec, params, 3, &error));
  g_assert_no_error (error);
  dl_test_assert_values (c, (gdouble[]){ 2, 3, 4 }, 3, 0);
  back = dl_parameters_to_vector (params, 3, &error);
  dl_test_assert_values (back, (gdouble[]){ 0, 1, 2, 3, 4, 5, 6, 7, 8 }, 9, 0);
  g_assert_false (dl_vector_to_parameters (c, params, 3, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

static void
test_clip_grad_nonfinite (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = param_with_grad ((gdouble[]){ 1, NAN }, DL_TEST_SHAPE (2));
  DlTensor *params[] = { a };
  g_autoptr (DlTensor) total = NULL;
  g_autofree gdouble *v = NULL;

  g_assert_null (dl_clip_grad_norm_ (params, 1, 1.0, 2.0, TRUE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_true (strstr (error->message, "non-finite") != NULL);
  v = dl_test_values (dl_tensor_get_grad (a)); /* left as it was */
  g_assert_true (v[0] == 1 && isnan (v[1]));
  g_clear_error (&error);
  total = dl_clip_grad_norm_ (params, 1, 1.0, 2.0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (isnan (dl_tensor_item (total, NULL)));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/init/gain-and-fans", test_gain_and_fans);
  g_test_add_func ("/init/kaiming-xavier", test_kaiming_xavier);
  g_test_add_func ("/init/orthogonal", test_orthogonal);
  g_test_add_func ("/init/trunc-normal-and-eye", test_trunc_normal_and_eye);
  g_test_add_func ("/utils/clip-grad", test_clip_grad);
  g_test_add_func ("/utils/clip-grad-nonfinite", test_clip_grad_nonfinite);
  return g_test_run ();
}
