/* test-activations.c: the activations with numbers (hardtanh, relu6, elu,
 * selu, celu, hardshrink, softshrink, threshold, rrelu), prelu and glu
 * from C: values against their formulas, gradcheck, in-place forms, bad
 * arguments as GErrors; and their modules (construction, forward, printed
 * form, PReLU's parameter).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>

#include "dl-test-gradcheck.h"

#define SELU_ALPHA 1.6732632423543772848170429916717
#define SELU_SCALE 1.0507009873554804934193349852946

static const gdouble xs[] = { -4, -2.5, -0.7, -0.2, 0.1, 0.45, 1.5, 7 };
#define N_XS G_N_ELEMENTS (xs)

static DlTensor *
input (void)
{
  return dl_test_tensor (xs, (gint64[]){ N_XS }, 1, DL_DTYPE_FLOAT64);
}

typedef DlTensor *(*Op) (DlTensor *x, GError **error);
typedef gdouble (*Ref) (gdouble x);

static DlTensor *
op_hardtanh (DlTensor *x, GError **error)
{
  return dl_tensor_hardtanh (x, -0.5, 1.0, error);
}
static gdouble
ref_hardtanh (gdouble x)
{
  return CLAMP (x, -0.5, 1.0);
}
static gdouble
ref_relu6 (gdouble x)
{
  return CLAMP (x, 0, 6);
}
static DlTensor *
op_elu (DlTensor *x, GError **error)
{
  return dl_tensor_elu (x, 0.7, error);
}
static gdouble
ref_elu (gdouble x)
{
  return x > 0 ? x : 0.7 * expm1 (x);
}
static gdouble
ref_selu (gdouble x)
{
  return SELU_SCALE * (x > 0 ? x : SELU_ALPHA * expm1 (x));
}
static DlTensor *
op_celu (DlTensor *x, GError **error)
{
  return dl_tensor_celu (x, 1.5, error);
}
static gdouble
ref_celu (gdouble x)
{
  return x > 0 ? x : 1.5 * expm1 (x / 1.5);
}
static DlTensor *
op_hardshrink (DlTensor *x, GError **error)
{
  return dl_tensor_hardshrink (x, 0.5, error);
}
static gdouble
ref_hardshrink (gdouble x)
{
  return fabs (x) > 0.5 ? x : 0;
}
static DlTensor *
op_softshrink (DlTensor *x, GError **error)
{
  return dl_tensor_softshrink (x, 0.5, error);
}
static gdouble
ref_softshrink (gdouble x)
{
  return x > 0.5 ? x - 0.5 : x < -0.5 ? x + 0.5 : 0;
}
static DlTensor *
op_threshold (DlTensor *x, GError **error)
{
  return dl_tensor_threshold (x, 0.3, -9, error);
}
static gdouble
ref_threshold (gdouble x)
{
  return x > 0.3 ? x : -9;
}
static DlTensor *
op_rrelu_eval (DlTensor *x, GError **error)
{
  return dl_tensor_rrelu (x, 0.1, 0.3, FALSE, NULL, error);
}
static gdouble
ref_rrelu_eval (gdouble x)
{
  return x > 0 ? x : 0.2 * x;
}
static gdouble
ref_hardswish (gdouble x)
{
  return x * CLAMP (x + 3, 0, 6) / 6;
}
static gdouble
ref_logsigmoid (gdouble x)
{
  return -log1p (exp (-x));
}
static gdouble
ref_mish (gdouble x)
{
  return x * tanh (log1p (exp (x)));
}

static const struct
{
  const gchar *name;
  Op op;
  Ref ref;
  const gchar *node;
} cases[] = {
  { "hardtanh", op_hardtanh, ref_hardtanh, "HardtanhBackward0" },
  { "relu6", dl_tensor_relu6, ref_relu6, "HardtanhBackward0" },
  { "elu", op_elu, ref_elu, "EluBackward0" },
  { "selu", dl_tensor_selu, ref_selu, "EluBackward0" },
  { "celu", op_celu, ref_celu, "CeluBackward0" },
  { "hardshrink", op_hardshrink, ref_hardshrink, "HardshrinkBackward0" },
  { "softshrink", op_softshrink, ref_softshrink, "SoftshrinkBackward0" },
  { "threshold", op_threshold, ref_threshold, "ThresholdBackward0" },
  { "rrelu", op_rrelu_eval, ref_rrelu_eval, "RreluWithNoiseBackward0" },
  { "hardswish", dl_tensor_hardswish, ref_hardswish, "HardswishBackward0" },
  { "logsigmoid", dl_tensor_logsigmoid, ref_logsigmoid, "LogSigmoidBackward0" },
  { "mish", dl_tensor_mish, ref_mish, "MishBackward0" },
};

static void
test_values (void)
{
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) x = input ();
      g_autoptr (DlTensor) y = NULL;
      g_autoptr (DlTensor) x32 = dl_tensor_to_dtype (x, DL_DTYPE_FLOAT32, NULL);
      g_autoptr (DlTensor) y32 = NULL;
      gdouble expected[N_XS];

      for (guint i = 0; i < N_XS; i++)
        expected[i] = cases[c].ref (xs[i]);
      g_test_message ("%s", cases[c].name);
      g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
      y = cases[c].op (x, &error);
      g_assert_no_error (error);
      dl_test_assert_values (y, expected, N_XS, 1e-12);
      g_assert_cmpstr (dl_node_get_name (dl_tensor_get_grad_fn (y)), ==, cases[c].node);
      y32 = cases[c].op (x32, &error);
      g_assert_no_error (error);
      g_assert_cmpint (dl_tensor_get_dtype (y32), ==, DL_DTYPE_FLOAT32);
      dl_test_assert_values (y32, expected, N_XS, 1e-5);
    }
}

static void
test_inplace (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = input ();
  gdouble expected[N_XS];

  for (guint i = 0; i < N_XS; i++)
    expected[i] = ref_selu (ref_threshold (ref_celu (ref_elu (CLAMP (xs[i], 0, 6)))));
  g_assert_true (dl_tensor_relu6_ (x, &error) == x);
  g_assert_true (dl_tensor_elu_ (x, 0.7, &error) == x);
  g_assert_true (dl_tensor_celu_ (x, 1.5, &error) == x);
  g_assert_true (dl_tensor_threshold_ (x, 0.3, -9, &error) == x);
  g_assert_true (dl_tensor_selu_ (x, &error) == x);
  g_assert_no_error (error);
  dl_test_assert_values (x, expected, N_XS, 1e-12);
  g_assert_true (dl_tensor_hardtanh_ (x, -1, 1, &error) == x);
  for (guint i = 0; i < N_XS; i++)
    expected[i] = CLAMP (expected[i], -1, 1);
  dl_test_assert_values (x, expected, N_XS, 1e-12);
}

static void
test_rrelu_training (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlGenerator) gen = dl_generator_new (NULL, NULL);
  g_autoptr (DlTensor) x = input ();
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) y2 = NULL;
  g_autofree gdouble *v = NULL;
  g_autofree gdouble *v2 = NULL;

  dl_generator_manual_seed (gen, 7);
  y = dl_tensor_rrelu (x, 0.1, 0.3, TRUE, gen, &error);
  g_assert_no_error (error);
  v = dl_test_values (y);
  for (guint i = 0; i < N_XS; i++)
    if (xs[i] > 0)
      g_assert_cmpfloat (v[i], ==, xs[i]);
    else
      {
        g_assert_cmpfloat (v[i] / xs[i], >=, 0.1 - 1e-12);
        g_assert_cmpfloat (v[i] / xs[i], <=, 0.3 + 1e-12);
      }
  dl_generator_manual_seed (gen, 7);
  y2 = dl_tensor_rrelu (x, 0.1, 0.3, TRUE, gen, &error);
  v2 = dl_test_values (y2);
  for (guint i = 0; i < N_XS; i++)
    g_assert_cmpfloat (v[i], ==, v2[i]);
}

static void
test_errors (void)
{
  g_autoptr (DlTensor) x = input ();
  g_autoptr (DlTensor) xi = dl_tensor_to_dtype (x, DL_DTYPE_INT64, NULL);
  g_autoptr (DlTensor) odd = dl_test_tensor (xs, (gint64[]){ 1, 7 }, 2, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) w2 = dl_test_tensor (xs, (gint64[]){ 2 }, 1, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) x3 = dl_test_tensor (xs, (gint64[]){ 2, 3 }, 2, DL_DTYPE_FLOAT64);
  struct
  {
    DlTensor *result;
    gint code;
  } bad[] = {
    { dl_tensor_softshrink (x, -0.5, NULL), DL_ERROR_ARGUMENT },
    { dl_tensor_celu (x, 0, NULL), DL_ERROR_ARGUMENT },
    { dl_tensor_rrelu (x, 0.5, 0.1, TRUE, NULL, NULL), DL_ERROR_ARGUMENT },
    { dl_tensor_glu (odd, -1, NULL), DL_ERROR_SHAPE },
    { dl_tensor_prelu (x3, w2, NULL), DL_ERROR_SHAPE },
    { dl_tensor_selu (xi, NULL), DL_ERROR_DTYPE },
    { dl_tensor_glu (xi, 0, NULL), DL_ERROR_DTYPE },
  };
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_null (bad[i].result);
  g_assert_null (dl_tensor_glu (odd, -1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "dimension 1 is size 7"));
  g_clear_error (&error);
  g_assert_null (dl_tensor_softshrink (x, -0.5, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_tensor_prelu (x3, w2, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
}

/* gradcheck of the ops with numbers, prelu and glu, on inputs away from
 * their kinks */
static DlTensor *
grad_shrink (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) h = dl_tensor_hardshrink (x[0], 0.2, error);

  return h ? dl_tensor_softshrink (h, 0.1, error) : NULL;
}

static DlTensor *
grad_elus (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) a = dl_tensor_elu (x[0], 0.7, error);
  g_autoptr (DlTensor) b = a ? dl_tensor_celu (a, 1.5, error) : NULL;

  return b ? dl_tensor_selu (b, error) : NULL;
}

static DlTensor *
grad_clamps (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) a = dl_tensor_hardtanh (x[0], -2, 2, error);
  g_autoptr (DlTensor) b = a ? dl_tensor_relu6 (a, error) : NULL;
  g_autoptr (DlTensor) c = b ? dl_tensor_threshold (x[0], 0, 3, error) : NULL;

  return c ? dl_tensor_add (b, c, error) : NULL;
}

static DlTensor *
grad_rrelu (DlTensor **x, GError **error)
{
  return dl_tensor_rrelu (x[0], 0.1, 0.3, FALSE, NULL, error);
}

static DlTensor *
grad_prelu (DlTensor **x, GError **error)
{
  return dl_tensor_prelu (x[0], x[1], error);
}

static DlTensor *
grad_glu (DlTensor **x, GError **error)
{
  return dl_tensor_glu (x[0], 1, error);
}

static const DlTestGradCase grad_cases[] = {
  { "shrink", grad_shrink, 1, { { 3, 4 } }, { 2 }, .min_abs = 0.35 },
  { "elus", grad_elus, 1, { { 3, 4 } }, { 2 }, .min_abs = 0.05 },
  { "clamps", grad_clamps, 1, { { 3, 4 } }, { 2 }, .min_abs = 0.05 },
  { "rrelu", grad_rrelu, 1, { { 3, 4 } }, { 2 }, .min_abs = 0.05 },
  { "prelu", grad_prelu, 2, { { 2, 3, 4 }, { 3 } }, { 3, 1 }, .min_abs = 0.05 },
  { "prelu-shared", grad_prelu, 2, { { 4, 2 }, { 1 } }, { 2, 1 }, .min_abs = 0.05 },
  { "glu", grad_glu, 1, { { 3, 4 } }, { 2 } },
};

/* ---- modules ----------------------------------------------------------------------- */

static void
assert_printed (gpointer module, const gchar *expected)
{
  g_autofree gchar *s = dl_module_to_string (DL_MODULE (module));

  g_assert_cmpstr (s, ==, expected);
}

static void
test_modules (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = input ();
  g_autoptr (DlRelu6) relu6 = dl_relu6_new (FALSE);
  g_autoptr (DlCelu) celu = dl_celu_new (1.5, FALSE);
  g_autoptr (DlHardshrink) hardshrink = dl_hardshrink_new (0.5);
  g_autoptr (DlThreshold) threshold = dl_threshold_new (0.3, -9, TRUE);
  g_autoptr (DlRrelu) rrelu = dl_rrelu_new (0.1, 0.3, FALSE);
  g_autoptr (DlGlu) glu = dl_glu_new (-1);
  g_autoptr (DlSoftmin) softmin = NULL;
  g_autoptr (DlPrelu) prelu = dl_prelu_new (4, 0.5, &error);
  g_autoptr (DlTensor) copy = dl_tensor_clone (x, NULL);
  DlTensor *y;
  gdouble expected[N_XS];

  g_assert_no_error (error);
  for (guint i = 0; i < N_XS; i++)
    expected[i] = ref_relu6 (xs[i]);
  y = dl_test_run_module (relu6, x);
  dl_test_assert_values (y, expected, N_XS, 0);
  g_object_unref (y);
  assert_printed (relu6, "ReLU6()");
  for (guint i = 0; i < N_XS; i++)
    expected[i] = ref_celu (xs[i]);
  y = dl_test_run_module (celu, x);
  dl_test_assert_values (y, expected, N_XS, 1e-12);
  g_object_unref (y);
  assert_printed (celu, "CELU(alpha=1.5)");
  assert_printed (hardshrink, "Hardshrink(0.5)");
  y = dl_test_run_module (threshold, copy);
  g_assert_true (y == copy);
  g_object_unref (y);
  for (guint i = 0; i < N_XS; i++)
    expected[i] = ref_threshold (xs[i]);
  dl_test_assert_values (copy, expected, N_XS, 0);
  assert_printed (threshold, "Threshold(threshold=0.3, value=-9.0, inplace=True)");
  dl_module_set_training (DL_MODULE (rrelu), FALSE);
  for (guint i = 0; i < N_XS; i++)
    expected[i] = ref_rrelu_eval (xs[i]);
  y = dl_test_run_module (rrelu, x);
  dl_test_assert_values (y, expected, N_XS, 1e-12);
  g_object_unref (y);
  assert_printed (rrelu, "RReLU(lower=0.1, upper=0.3)");

  /* PReLU: one slope per channel of dim 1, "weight" */
  {
    g_autoptr (DlTensor) x2 = dl_test_tensor (xs, (gint64[]){ 2, 4 }, 2, DL_DTYPE_FLOAT32);
    DlTensor *w = dl_module_get_parameter (DL_MODULE (prelu), "weight");
    g_autoptr (DlTensor) s = NULL;

    g_assert_nonnull (w);
    g_assert_true (dl_tensor_get_requires_grad (w));
    g_assert_cmpint (dl_tensor_numel (w), ==, 4);
    y = dl_test_run_module (prelu, x2);
    for (guint i = 0; i < N_XS; i++)
      expected[i] = xs[i] > 0 ? xs[i] : 0.5 * xs[i];
    dl_test_assert_values (y, expected, N_XS, 1e-6);
    s = dl_tensor_sum (y, &error);
    g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
    g_assert_no_error (error);
    dl_test_assert_values (dl_tensor_get_grad (w), (gdouble[]){ -4, -2.5, -0.7, -0.2 }, 4, 1e-6);
    g_object_unref (y);
    assert_printed (prelu, "PReLU(num_parameters=4)");
  }
  g_assert_null (dl_prelu_new (-1, 0.25, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);

  /* GLU halves the last dim; Softmin needs its dim */
  y = dl_test_run_module (glu, x);
  g_assert_cmpint (dl_tensor_numel (y), ==, N_XS / 2);
  g_object_unref (y);
  assert_printed (glu, "GLU(dim=-1)");
  softmin = g_initable_new (DL_TYPE_SOFTMIN, NULL, &error, NULL);
  g_assert_null (softmin);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  softmin = dl_softmin_new (0, &error);
  g_assert_no_error (error);
  assert_printed (softmin, "Softmin(dim=0)");
}

static void
test_modules_simple (void)
{
  g_autoptr (DlTensor) x = input ();
  g_autoptr (DlTensor) x4 = dl_test_tensor (xs, (gint64[]){ 1, 2, 2, 2 }, 4, DL_DTYPE_FLOAT64);
  const struct
  {
    gpointer module;
    Op op;
    const gchar *printed;
  } simple[] = {
    { dl_hardswish_new (FALSE), dl_tensor_hardswish, "Hardswish()" },
    { dl_hardsigmoid_new (FALSE), dl_tensor_hardsigmoid, "Hardsigmoid()" },
    { dl_mish_new (FALSE), dl_tensor_mish, "Mish()" },
    { dl_selu_new (FALSE), dl_tensor_selu, "SELU()" },
    { dl_tanhshrink_new (), dl_tensor_tanhshrink, "Tanhshrink()" },
    { dl_softsign_new (), dl_tensor_softsign, "Softsign()" },
    { dl_log_sigmoid_new (), dl_tensor_logsigmoid, "LogSigmoid()" },
    { dl_softshrink_new (0.5), op_softshrink, "Softshrink(0.5)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (simple); i++)
    {
      g_autoptr (DlTensor) y = dl_test_run_module (simple[i].module, x);
      g_autoptr (DlTensor) ref = simple[i].op (x, NULL);
      g_autofree gdouble *r = dl_test_values (ref);

      dl_test_assert_values (y, r, N_XS, 0);
      assert_printed (simple[i].module, simple[i].printed);
      g_object_unref (simple[i].module);
    }

  /* Softmax2d: over dim -3 of a 4-d input, each position's channels sum to 1 */
  {
    g_autoptr (DlSoftmax2d) sm = dl_softmax2d_new ();
    g_autoptr (DlTensor) y = dl_test_run_module (sm, x4);
    g_autofree gdouble *v = dl_test_values (y);
    g_autoptr (GError) error = NULL;

    for (guint i = 0; i < 4; i++)
      g_assert_cmpfloat_with_epsilon (v[i] + v[i + 4], 1, 1e-12);
    g_assert_null (dl_module_forward (DL_MODULE (sm), x, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/activations/values", test_values);
  g_test_add_func ("/activations/inplace", test_inplace);
  g_test_add_func ("/activations/rrelu-training", test_rrelu_training);
  g_test_add_func ("/activations/errors", test_errors);
  for (guint i = 0; i < G_N_ELEMENTS (grad_cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/activations/gradcheck/%s", grad_cases[i].name);

      g_test_add_data_func (path, &grad_cases[i], dl_test_gradcheck);
    }
  g_test_add_func ("/activations/modules", test_modules);
  g_test_add_func ("/activations/modules-simple", test_modules_simple);
  return g_test_run ();
}
