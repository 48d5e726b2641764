/* test-math.c: the math kernels (dl-cpu-math.c) through the public ops,
 * each family against a plain reference loop over the same values, on
 * contiguous, strided, broadcast and multi-threaded layouts; and the
 * errors of the math ops.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-gradcheck.h"

typedef DlTensor *(*UnaryFn) (DlTensor *self, GError **error);
typedef DlTensor *(*BinaryFn) (DlTensor *self, DlTensor *other, GError **error);

/* NaN equals NaN, infinities match by sign, else within @tol */
static void
assert_close (DlTensor *t, const gdouble *expected, gint64 n, gdouble tol, const gchar *what)
{
  g_autofree gdouble *v = dl_test_values (t);

  g_assert_cmpint (dl_tensor_numel (t), ==, n);
  for (gint64 i = 0; i < n; i++)
    {
      gdouble a = v[i], e = expected[i];

      if (isnan (e) ? isnan (a) : isinf (e) ? a == e : fabs (a - e) <= tol * (1.0 + fabs (e)))
        continue;
      g_test_fail_printf ("%s: element %" G_GINT64_FORMAT ": got %.9g, expected %.9g", what, i, a,
                          e);
      return;
    }
}

static gdouble
ref_floordiv (gdouble a, gdouble b)
{
  return b == 0 ? a / b : floor (a / b);
}

static gdouble
ref_remainder (gdouble a, gdouble b)
{
  gdouble m = fmod (a, b);

  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

static gdouble
ref_sign (gdouble x)
{
  return (x > 0) - (x < 0);
}
static gdouble
ref_rsqrt (gdouble x)
{
  return 1 / sqrt (x);
}
static gdouble
ref_frac (gdouble x)
{
  return x - trunc (x);
}
static gdouble
ref_reciprocal (gdouble x)
{
  return 1 / x;
}
static gdouble
ref_gelu (gdouble x)
{
  return x * 0.5 * (1 + erf (x * M_SQRT1_2));
}
static gdouble
ref_silu (gdouble x)
{
  return x / (1 + exp (-x));
}
static gdouble
ref_gelu_tanh (gdouble x)
{
  return 0.5 * x * (1 + tanh (sqrt (2 / M_PI) * (x + 0.044715 * x * x * x)));
}

static gdouble
ref_deg2rad (gdouble x)
{
  return x * (M_PI / 180);
}
static gdouble
ref_rad2deg (gdouble x)
{
  return x * (180 / M_PI);
}

static const struct
{
  const gchar *name;
  UnaryFn fn;
  gdouble (*ref) (gdouble);
  gboolean positive;
} unary_cases[] = {
  { "expm1", dl_tensor_expm1, expm1, FALSE },
  { "log1p", dl_tensor_log1p, log1p, TRUE },
  { "log2", dl_tensor_log2, log2, TRUE },
  { "rsqrt", dl_tensor_rsqrt, ref_rsqrt, TRUE },
  { "sin", dl_tensor_sin, sin, FALSE },
  { "cos", dl_tensor_cos, cos, FALSE },
  { "tan", dl_tensor_tan, tan, FALSE },
  { "gelu", dl_tensor_gelu, ref_gelu, FALSE },
  { "gelu_tanh", dl_tensor_gelu_tanh, ref_gelu_tanh, FALSE },
  { "silu", dl_tensor_silu, ref_silu, FALSE },
  { "sign", dl_tensor_sign, ref_sign, FALSE },
  { "floor", dl_tensor_floor, floor, FALSE },
  { "ceil", dl_tensor_ceil, ceil, FALSE },
  { "round", dl_tensor_round, nearbyint, FALSE },
  { "trunc", dl_tensor_trunc, trunc, FALSE },
  { "frac", dl_tensor_frac, ref_frac, FALSE },
  { "reciprocal", dl_tensor_reciprocal, ref_reciprocal, TRUE },
  { "erf", dl_tensor_erf, erf, FALSE },
  { "atan", dl_tensor_atan, atan, FALSE },
  { "sinh", dl_tensor_sinh, sinh, FALSE },
  { "cosh", dl_tensor_cosh, cosh, FALSE },
  { "asinh", dl_tensor_asinh, asinh, FALSE },
  { "log10", dl_tensor_log10, log10, TRUE },
  { "exp2", dl_tensor_exp2, exp2, FALSE },
  { "erfc", dl_tensor_erfc, erfc, FALSE },
  { "lgamma", dl_tensor_lgamma, lgamma, TRUE },
  { "deg2rad", dl_tensor_deg2rad, ref_deg2rad, FALSE },
  { "rad2deg", dl_tensor_rad2deg, ref_rad2deg, FALSE },
};

/* values for a unary op: in (-3, 3), or (0.1, 3.1) for @positive; the
 * values are first rounded to @dtype so that the reference sees them */
static DlTensor *
input_for (gint64 n, gboolean positive, DlDType dtype, gdouble **values)
{
  g_autofree gdouble *v = dl_test_random_values (n);
  DlTensor *t;

  for (gint64 i = 0; i < n; i++)
    v[i] = positive ? 1.6 + 1.5 * v[i] : 3 * v[i];
  t = dl_test_tensor (v, &n, 1, dtype);
  *values = dl_test_values (t);
  return t;
}

static void
test_unary_float (void)
{
  const DlDType dtypes[] = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16 };
  const gdouble tols[] = { 2e-6, 1e-13, 2e-3 };

  for (gsize c = 0; c < G_N_ELEMENTS (unary_cases); c++)
    for (gsize d = 0; d < G_N_ELEMENTS (dtypes); d++)
      {
        g_autoptr (GError) error = NULL;
        g_autofree gdouble *v = NULL;
        g_autofree gdouble *expected = g_new (gdouble, 1000);
        g_autoptr (DlTensor) x = input_for (1000, unary_cases[c].positive, dtypes[d], &v);
        g_autoptr (DlTensor) m = NULL;
        g_autoptr (DlTensor) xt = NULL;
        g_autoptr (DlTensor) y = NULL;
        g_autoptr (DlTensor) yt = NULL;
        g_autofree gdouble *expected_t = g_new (gdouble, 1000);

        for (gint i = 0; i < 1000; i++)
          expected[i] = unary_cases[c].ref (v[i]);
        y = unary_cases[c].fn (x, &error);
        g_assert_no_error (error);
        g_assert_cmpint (dl_tensor_get_dtype (y), ==, dtypes[d]);
        assert_close (y, expected, 1000, tols[d], unary_cases[c].name);

        /* a strided view: the transpose of [25, 40] */
        m = dl_tensor_view (x, DL_TEST_SHAPE (25, 40), &error);
        g_assert_no_error (error);
        xt = dl_tensor_transpose (m, 0, 1, &error);
        g_assert_no_error (error);
        yt = unary_cases[c].fn (xt, &error);
        g_assert_no_error (error);
        for (gint i = 0; i < 40; i++)
          for (gint j = 0; j < 25; j++)
            expected_t[i * 25 + j] = expected[j * 40 + i];
        assert_close (yt, expected_t, 1000, tols[d], unary_cases[c].name);
      }
}

/* a large tensor runs on several threads */
static void
test_unary_threaded (void)
{
  g_autoptr (GError) error = NULL;
  const gint64 n = 600000;
  g_autofree gdouble *v = NULL;
  g_autoptr (DlTensor) x = input_for (n, FALSE, DL_DTYPE_FLOAT64, &v);
  g_autoptr (DlTensor) y = dl_tensor_sin (x, &error);
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autofree gdouble *expected = g_new (gdouble, n);

  g_assert_no_error (error);
  for (gint64 i = 0; i < n; i++)
    expected[i] = sin (v[i]);
  assert_close (y, expected, n, 1e-14, "sin");
  e = dl_tensor_new_scalar (2, DL_DTYPE_FLOAT64);
  z = dl_tensor_remainder (x, e, &error);
  g_assert_no_error (error);
  for (gint64 i = 0; i < n; i++)
    expected[i] = ref_remainder (v[i], 2);
  assert_close (z, expected, n, 1e-14, "remainder");
}

static void
test_predicates_nan_to_num (void)
{
  const gdouble vals[] = { NAN, INFINITY, -INFINITY, -0.0, 1.5, -2.5, 1e30 };
  const DlDType dtypes[]
      = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16 };
  const gint64 n = G_N_ELEMENTS (vals);

  for (gsize d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) x = dl_test_tensor (vals, &n, 1, dtypes[d]);
      g_autofree gdouble *v = dl_test_values (x);
      g_autoptr (DlTensor) isn = dl_tensor_isnan (x, &error);
      g_autoptr (DlTensor) isi = dl_tensor_isinf (x, &error);
      g_autoptr (DlTensor) isf = dl_tensor_isfinite (x, &error);
      g_autoptr (DlTensor) r = dl_tensor_nan_to_num (x, 7, 100, -100, &error);
      gdouble en[7], ei[7], ef[7], er[7];

      g_assert_no_error (error);
      g_assert_cmpint (dl_tensor_get_dtype (isn), ==, DL_DTYPE_BOOL);
      for (gint i = 0; i < n; i++)
        {
          en[i] = isnan (v[i]) != 0;
          ei[i] = isinf (v[i]) != 0;
          ef[i] = isfinite (v[i]) != 0;
          er[i] = isnan (v[i]) ? 7 : isinf (v[i]) ? (v[i] > 0 ? 100 : -100) : v[i];
        }
      assert_close (isn, en, n, 0, "isnan");
      assert_close (isi, ei, n, 0, "isinf");
      assert_close (isf, ef, n, 0, "isfinite");
      assert_close (r, er, n, 0, "nan_to_num");
    }
}

static void
test_unary_int (void)
{
  const gdouble vals[] = { -5, -1, 0, 1, 7, 100 };
  const DlDType dtypes[] = { DL_DTYPE_INT32, DL_DTYPE_INT64, DL_DTYPE_UINT8 };
  const gint64 n = G_N_ELEMENTS (vals);

  for (gsize d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) x = dl_test_tensor (vals, &n, 1, dtypes[d]);
      g_autofree gdouble *v = dl_test_values (x);
      g_autoptr (DlTensor) s = dl_tensor_sign (x, &error);
      g_autoptr (DlTensor) b = dl_tensor_bitwise_not (x, &error);
      g_autoptr (DlTensor) f = dl_tensor_floor (x, &error);
      g_autoptr (DlTensor) e = dl_tensor_expm1 (x, &error);
      gdouble es[6], eb[6], ee[6];

      g_assert_no_error (error);
      for (gint i = 0; i < n; i++)
        {
          es[i] = ref_sign (v[i]);
          eb[i] = dtypes[d] == DL_DTYPE_UINT8 ? (gdouble)(guint8) ~(guint8)v[i]
                                              : (gdouble) ~(gint64)v[i];
          ee[i] = expm1f ((float)v[i]);
        }
      g_assert_cmpint (dl_tensor_get_dtype (s), ==, dtypes[d]);
      g_assert_cmpint (dl_tensor_get_dtype (e), ==, DL_DTYPE_FLOAT32);
      assert_close (s, es, n, 0, "sign");
      assert_close (b, eb, n, 0, "bitwise_not");
      assert_close (f, v, n, 0, "floor");
      assert_close (e, ee, n, 1e-6, "expm1");
    }
}

static const struct
{
  const gchar *name;
  BinaryFn fn;
  gdouble (*ref) (gdouble, gdouble);
} binary_cases[] = {
  { "pow", dl_tensor_pow, pow },
  { "floor_divide", dl_tensor_floor_divide, ref_floordiv },
  { "remainder", dl_tensor_remainder, ref_remainder },
  { "atan2", dl_tensor_atan2, atan2 },
};

static void
test_binary_float (void)
{
  const DlDType dtypes[] = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64 };
  const gdouble tols[] = { 2e-6, 1e-13 };

  for (gsize c = 0; c < G_N_ELEMENTS (binary_cases); c++)
    for (gsize d = 0; d < G_N_ELEMENTS (dtypes); d++)
      {
        g_autoptr (GError) error = NULL;
        g_autofree gdouble *va = NULL;
        g_autofree gdouble *vb = NULL;
        g_autoptr (DlTensor) a = input_for (600, TRUE, dtypes[d], &va);
        g_autoptr (DlTensor) b = input_for (600, FALSE, dtypes[d], &vb);
        g_autoptr (DlTensor) a2 = dl_tensor_view (a, DL_TEST_SHAPE (20, 30), &error);
        g_autoptr (DlTensor) b2 = dl_tensor_view (b, DL_TEST_SHAPE (20, 30), &error);
        g_autoptr (DlTensor) bt = dl_tensor_transpose (b2, 0, 1, &error);
        g_autoptr (DlTensor) at = dl_tensor_transpose (a2, 0, 1, &error);
        g_autoptr (DlTensor) row = dl_tensor_select (b2, 0, 3, &error);
        g_autoptr (DlTensor) y = NULL;
        g_autoptr (DlTensor) yt = NULL;
        g_autoptr (DlTensor) yb = NULL;
        gdouble e[600], et[600], eb[600];

        g_assert_no_error (error);
        for (gint i = 0; i < 20; i++)
          for (gint j = 0; j < 30; j++)
            {
              e[i * 30 + j] = binary_cases[c].ref (va[i * 30 + j], vb[i * 30 + j]);
              et[j * 20 + i] = e[i * 30 + j];
              eb[i * 30 + j] = binary_cases[c].ref (va[i * 30 + j], vb[3 * 30 + j]);
            }
        /* contiguous, strided, broadcast row */
        y = binary_cases[c].fn (a, b, &error);
        g_assert_no_error (error);
        assert_close (y, e, 600, tols[d], binary_cases[c].name);
        yt = binary_cases[c].fn (at, bt, &error);
        g_assert_no_error (error);
        assert_close (yt, et, 600, tols[d], binary_cases[c].name);
        yb = binary_cases[c].fn (a2, row, &error);
        g_assert_no_error (error);
        assert_close (yb, eb, 600, tols[d], binary_cases[c].name);
      }
}

static void
test_binary_int (void)
{
  const gdouble av[] = { 7, -7, 7, -7, 0, 3, -9, 2, 5, -1 };
  const gdouble bv[] = { 2, 2, -2, -2, 5, 4, 3, -1, 1, 3 };
  const DlDType dtypes[] = { DL_DTYPE_INT32, DL_DTYPE_INT64 };
  const gint64 n = G_N_ELEMENTS (av);

  for (gsize d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) a = dl_test_tensor (av, &n, 1, dtypes[d]);
      g_autoptr (DlTensor) b = dl_test_tensor (bv, &n, 1, dtypes[d]);
      g_autoptr (DlTensor) q = dl_tensor_floor_divide (a, b, &error);
      g_autoptr (DlTensor) r = dl_tensor_remainder (a, b, &error);
      g_autoptr (DlTensor) p = dl_tensor_pow (a, b, &error);
      g_autoptr (DlTensor) band = dl_tensor_bitwise_and (a, b, &error);
      g_autoptr (DlTensor) bor = dl_tensor_bitwise_or (a, b, &error);
      g_autoptr (DlTensor) bxor = dl_tensor_bitwise_xor (a, b, &error);
      g_autoptr (DlTensor) qs = dl_tensor_floor_divide_scalar (a, -3, &error);
      gdouble eq[10], er[10], ep[10], ea[10], eo[10], ex[10], eqs[10];

      g_assert_no_error (error);
      for (gint i = 0; i < n; i++)
        {
          gint64 x = av[i], y = bv[i];
          eq[i] = floor (av[i] / bv[i]);
          er[i] = ref_remainder (av[i], bv[i]);
          ep[i] = y >= 0 ? pow (av[i], bv[i]) : x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
          ea[i] = x & y;
          eo[i] = x | y;
          ex[i] = x ^ y;
          eqs[i] = floor (av[i] / -3);
        }
      g_assert_cmpint (dl_tensor_get_dtype (q), ==, dtypes[d]);
      assert_close (q, eq, n, 0, "floor_divide");
      assert_close (r, er, n, 0, "remainder");
      assert_close (p, ep, n, 0, "pow");
      assert_close (band, ea, n, 0, "bitwise_and");
      assert_close (bor, eo, n, 0, "bitwise_or");
      assert_close (bxor, ex, n, 0, "bitwise_xor");
      assert_close (qs, eqs, n, 0, "floor_divide_scalar");
    }
}

static void
test_clamp_lerp (void)
{
  const gdouble v[] = { -3, -1, -0.5, 0, 0.5, 1, 3, NAN };
  const gint64 n = G_N_ELEMENTS (v);
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_test_tensor (v, &n, 1, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) c = dl_tensor_clamp_scalar (x, -1, 0.5, &error);
  g_autoptr (DlTensor) hi = dl_tensor_new_scalar (1, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) cmax = dl_tensor_clamp (x, NULL, hi, &error);
  g_autoptr (DlTensor) zero = dl_zeros (&n, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) l = dl_tensor_lerp_scalar (zero, x, 0.25, &error);
  gdouble ec[8], em[8], el[8];

  g_assert_no_error (error);
  for (gint i = 0; i < n; i++)
    {
      ec[i] = isnan (v[i]) ? v[i] : MIN (MAX (v[i], -1), 0.5);
      em[i] = isnan (v[i]) ? v[i] : MIN (v[i], 1);
      el[i] = 0.25 * v[i];
    }
  assert_close (c, ec, n, 0, "clamp");
  assert_close (cmax, em, n, 0, "clamp max");
  assert_close (l, el, n, 1e-7, "lerp");
  {
    DlTensor *r = dl_tensor_clamp_ (x, NULL, hi, &error);
    g_assert_no_error (error);
    g_assert_true (r == x); /* borrowed: in-place ops return their tensor */
  }
  assert_close (x, em, n, 0, "clamp_");
  {
    /* with number bounds, in place; a NaN bound makes every element NaN */
    g_autoptr (DlTensor) y = dl_test_tensor (v, &n, 1, DL_DTYPE_FLOAT32);
    gdouble nan[8];

    g_assert_true (dl_tensor_clamp_scalar_ (y, -1, 0.5, &error) == y);
    g_assert_no_error (error);
    assert_close (y, ec, n, 0, "clamp_scalar_");
    g_assert_true (dl_tensor_clamp_scalar_ (y, NAN, 0.5, &error) == y);
    g_assert_no_error (error);
    for (gint i = 0; i < n; i++)
      nan[i] = NAN;
    assert_close (y, nan, n, 0, "clamp_scalar_ with a NaN bound");
  }
}

static void
assert_error (DlTensor *result, GError *error, gint code, const gchar *needle)
{
  g_assert_null (result);
  g_assert_error (error, DL_ERROR, code);
  if (strstr (error->message, needle) == NULL)
    g_test_fail_printf ("error message \"%s\" lacks \"%s\"", error->message, needle);
}

static void
test_errors (void)
{
  g_autoptr (DlTensor) f = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) d = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64, NULL, NULL);
  g_autoptr (DlTensor) i = dl_ones (DL_TEST_SHAPE (3), DL_DTYPE_INT64, NULL, NULL);
  g_autoptr (DlTensor) z = dl_zeros (DL_TEST_SHAPE (3), DL_DTYPE_INT64, NULL, NULL);
  g_autoptr (DlTensor) f4 = dl_ones (DL_TEST_SHAPE (4), DL_DTYPE_FLOAT32, NULL, NULL);
  struct
  {
    DlTensor *r;
    GError *e;
    gint code;
    const gchar *needle;
  } cases[10];
  gint n = 0;

#define CASE(expr, CODE, NEEDLE)                                                                   \
  G_STMT_START                                                                                     \
  {                                                                                                \
    cases[n].e = NULL;                                                                             \
    cases[n].r = (expr);                                                                           \
    cases[n].code = CODE;                                                                          \
    cases[n].needle = NEEDLE;                                                                      \
    n++;                                                                                           \
  }                                                                                                \
  G_STMT_END
  CASE (dl_tensor_floor_divide (i, z, &cases[n].e), DL_ERROR_ARGUMENT, "ZeroDivisionError");
  CASE (dl_tensor_remainder_scalar (i, 0, &cases[n].e), DL_ERROR_ARGUMENT, "ZeroDivisionError");
  CASE (dl_tensor_bitwise_and (f, i, &cases[n].e), DL_ERROR_DTYPE, "bitwise_and");
  CASE (dl_tensor_bitwise_not (f, &cases[n].e), DL_ERROR_DTYPE, "bitwise_not");
  CASE (dl_tensor_gelu (i, &cases[n].e), DL_ERROR_DTYPE, "gelu");
  CASE (dl_tensor_pow_scalar (i, -2, &cases[n].e), DL_ERROR_ARGUMENT, "negative");
  CASE (dl_tensor_clamp (f, NULL, NULL, &cases[n].e), DL_ERROR_ARGUMENT, "min");
  CASE (dl_tensor_lerp_scalar (f, d, 0.5, &cases[n].e), DL_ERROR_DTYPE, "lerp");
  CASE (dl_tensor_atan2 (f, f4, &cases[n].e), DL_ERROR_SHAPE, "atan2");
  CASE (dl_tensor_clamp_ (i, f, NULL, &cases[n].e), DL_ERROR_DTYPE, "clamp_");
#undef CASE
  for (gint k = 0; k < n; k++)
    {
      assert_error (cases[k].r, cases[k].e, cases[k].code, cases[k].needle);
      g_clear_error (&cases[k].e);
    }
}

/* ---- gradients against central finite differences in float64 ---------- */

static DlTensor *
g_nan_to_num (DlTensor **x, GError **e)
{
  return dl_tensor_nan_to_num (x[0], 0, NAN, NAN, e);
}
static DlTensor *
g_pow_scalar (DlTensor **x, GError **e)
{
  return dl_tensor_pow_scalar (x[0], 2.5, e);
}
static DlTensor *
g_rpow (DlTensor **x, GError **e)
{
  return dl_tensor_rpow_scalar (x[0], 1.7, e);
}
static DlTensor *
g_clamp (DlTensor **x, GError **e)
{
  return dl_tensor_clamp (x[0], x[1], x[2], e);
}
static DlTensor *
g_clamp_scalar (DlTensor **x, GError **e)
{
  return dl_tensor_clamp_scalar (x[0], -0.3, 0.4, e);
}
static DlTensor *
g_lerp (DlTensor **x, GError **e)
{
  return dl_tensor_lerp (x[0], x[1], x[2], e);
}
static DlTensor *
g_lerp_scalar (DlTensor **x, GError **e)
{
  return dl_tensor_lerp_scalar (x[0], x[1], 0.3, e);
}
static DlTensor *
g_leaky_relu (DlTensor **x, GError **e)
{
  return dl_tensor_leaky_relu (x[0], 0.15, e);
}

static DlTensor *
g_addcmul (DlTensor **x, GError **e)
{
  return dl_tensor_addcmul (x[0], x[1], x[2], -0.7, e);
}
static DlTensor *
g_addcdiv (DlTensor **x, GError **e)
{
  return dl_tensor_addcdiv (x[0], x[1], x[2], 1.3, e);
}
static DlTensor *
g_float_power (DlTensor **x, GError **e)
{
  return dl_tensor_float_power (x[0], x[1], e);
}
static DlTensor *
g_ldexp (DlTensor **x, GError **e)
{
  return dl_tensor_ldexp (x[0], x[1], e);
}

#define UNARY_CASE(NAME, FN, MIN_ABS, POS)                                                         \
  {                                                                                                \
    NAME, FN, 1, { { 3, 4 } }, { 2 }, MIN_ABS, POS                                                 \
  }

static const DlTestGradCase grad_cases[] = {
  UNARY_CASE ("nan_to_num", g_nan_to_num, 0, FALSE),
  UNARY_CASE ("pow_scalar", g_pow_scalar, 0.1, TRUE),
  UNARY_CASE ("rpow_scalar", g_rpow, 0, FALSE),
  UNARY_CASE ("clamp_scalar", g_clamp_scalar, 0, FALSE),
  { "clamp", g_clamp, 3, { { 3, 4 }, { 4 }, { 3, 1 } }, { 2, 1, 2 }, 0.01, FALSE },
  { "lerp", g_lerp, 3, { { 3, 4 }, { 4 }, { 3, 1 } }, { 2, 1, 2 }, 0, FALSE },
  { "lerp_scalar", g_lerp_scalar, 2, { { 3, 4 }, { 3, 4 } }, { 2, 2 }, 0, FALSE },
  UNARY_CASE ("leaky_relu", g_leaky_relu, 0.01, FALSE),
  { "addcmul", g_addcmul, 3, { { 3, 4 }, { 4 }, { 3, 1 } }, { 2, 1, 2 }, 0, FALSE },
  { "addcdiv", g_addcdiv, 3, { { 3, 4 }, { 4 }, { 3, 1 } }, { 2, 1, 2 }, 0.2, FALSE },
  { "float_power", g_float_power, 2, { { 3, 4 }, { 4 } }, { 2, 1 }, 0.2, TRUE },
  { "ldexp", g_ldexp, 2, { { 3, 4 }, { 4 } }, { 2, 1 }, 0, FALSE },
};

/* addcmul and addcdiv against the formula: broadcast, in place (into a
 * transposed tensor), integers (the value truncated, wrapping), and the
 * dtypes PyTorch refuses */
static void
test_addcmul_addcdiv (void)
{
  const gdouble av[] = { 1, -2, 3, 0.5, -1.5, 4 }, bv[] = { 2, -3, 0.25 }, cv[] = { 4, -0.5 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_test_tensor (av, DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) b = dl_test_tensor (bv, DL_TEST_SHAPE (3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) c = dl_test_tensor (cv, DL_TEST_SHAPE (2, 1), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) m = dl_tensor_addcmul (a, b, c, 0.5, &error);
  g_autoptr (DlTensor) d = dl_tensor_addcdiv (a, b, c, -2, &error);
  g_autoptr (DlTensor) at = NULL;
  g_autoptr (DlTensor) t = NULL;
  gdouble em[6], ed[6];

  g_assert_no_error (error);
  for (gint i = 0; i < 6; i++)
    {
      em[i] = av[i] + 0.5 * bv[i % 3] * cv[i / 3];
      ed[i] = av[i] + -2 * bv[i % 3] / cv[i / 3];
    }
  assert_close (m, em, 6, 1e-15, "addcmul");
  assert_close (d, ed, 6, 1e-15, "addcdiv");
  /* in place into a transposed copy: values by position */
  at = dl_tensor_transpose (a, 0, 1, &error);
  t = dl_tensor_contiguous (at, &error);
  g_assert_no_error (error);
  {
    g_autoptr (DlTensor) tt = dl_tensor_transpose (t, 0, 1, &error);
    g_assert_true (dl_tensor_addcmul_ (tt, b, c, 0.5, &error) == tt);
    g_assert_no_error (error);
    assert_close (tt, em, 6, 1e-15, "addcmul_ transposed");
    g_assert_true (dl_tensor_addcdiv_ (tt, b, c, -2, &error) == tt);
    g_assert_no_error (error);
    for (gint i = 0; i < 6; i++)
      em[i] += -2 * bv[i % 3] / cv[i / 3];
    assert_close (tt, em, 6, 1e-15, "addcdiv_ transposed");
    /* the broadcast shape must be self's */
    g_assert_null (dl_tensor_addcmul_ (b, a, c, 1, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_clear_error (&error);
  }
  {
    const gdouble iv[] = { G_MAXINT32, -5, 7 }, jv[] = { 1, 3, -4 };
    g_autoptr (DlTensor) i = dl_test_tensor (iv, DL_TEST_SHAPE (3), DL_DTYPE_INT32);
    g_autoptr (DlTensor) j = dl_test_tensor (jv, DL_TEST_SHAPE (3), DL_DTYPE_INT32);
    g_autoptr (DlTensor) r = dl_tensor_addcmul (i, j, j, 2.7, &error);
    const gdouble want[] = { (gdouble)G_MININT32 + 1, 13, 39 };

    g_assert_no_error (error);
    g_assert_cmpint (dl_tensor_get_dtype (r), ==, DL_DTYPE_INT32);
    assert_close (r, want, 3, 0, "addcmul int32 (wrapping, value 2)");
    g_assert_null (dl_tensor_addcdiv (i, j, j, 1, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
    g_clear_error (&error);
    g_assert_null (dl_tensor_addcmul_ (i, b, b, 1, &error)); /* float64 into int32 */
    g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
    g_clear_error (&error);
  }
}

/* The in-place forms of addmm, addr, lerp, cumprod, nan_to_num and
 * logical_and against the formulas, a gradient through addmm_ and
 * cumprod_ written into a non-leaf, and the shape and leaf errors */
static void
test_inplace_forms (void)
{
  const gdouble cv[] = { 1, 2, 3, 4 }, av[] = { 1, -2 }, bv[] = { 3, 0.5 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_test_tensor (av, DL_TEST_SHAPE (2, 1), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) b = dl_test_tensor (bv, DL_TEST_SHAPE (1, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) a1 = dl_tensor_reshape (a, (gint64[]){ 2 }, 1, &error);
  g_autoptr (DlTensor) b1 = dl_tensor_reshape (b, (gint64[]){ 2 }, 1, &error);
  g_autoptr (DlTensor) leaf = dl_test_tensor (cv, DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) h = NULL;
  g_autoptr (DlTensor) s = NULL;
  gdouble want[4];

  g_assert_no_error (error);
  for (gint i = 0; i < 4; i++)
    want[i] = 0.5 * cv[i] + 2 * av[i / 2] * bv[i % 2];
  {
    g_autoptr (DlTensor) c = dl_test_tensor (cv, DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT64);
    g_autoptr (DlTensor) r = dl_test_tensor (cv, DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT64);
    g_autoptr (DlTensor) e
        = dl_test_tensor ((gdouble[]){ 5, 6, 7, 8 }, DL_TEST_SHAPE (2, 2), DL_DTYPE_FLOAT64);
    g_autoptr (DlTensor) n = dl_test_tensor ((gdouble[]){ NAN, INFINITY, -INFINITY, 1 },
                                             DL_TEST_SHAPE (4), DL_DTYPE_FLOAT64);
    g_autoptr (DlTensor) f
        = dl_test_tensor ((gdouble[]){ 0, 2, 3, 0 }, DL_TEST_SHAPE (4), DL_DTYPE_FLOAT32);
    g_autoptr (DlTensor) g
        = dl_test_tensor ((gdouble[]){ 1, 0, 1, 0 }, DL_TEST_SHAPE (4), DL_DTYPE_BOOL);

    g_assert_true (dl_tensor_addmm_ (c, a, b, 0.5, 2, &error) == c);
    g_assert_no_error (error);
    assert_close (c, want, 4, 1e-15, "addmm_");
    g_assert_true (dl_tensor_addr_ (r, a1, b1, 0.5, 2, &error) == r);
    assert_close (r, want, 4, 1e-15, "addr_");
    g_assert_true (dl_tensor_lerp_scalar_ (r, e, 0.25, &error) == r);
    for (gint i = 0; i < 4; i++)
      want[i] += 0.25 * (5 + i - want[i]);
    assert_close (r, want, 4, 1e-15, "lerp_");
    g_assert_true (dl_tensor_cumprod_ (e, 1, &error) == e);
    assert_close (e, (gdouble[]){ 5, 30, 7, 56 }, 4, 0, "cumprod_");
    g_assert_true (dl_tensor_nan_to_num_ (n, 9, NAN, -1, &error) == n);
    assert_close (n, (gdouble[]){ 9, G_MAXDOUBLE, -1, 1 }, 4, 0, "nan_to_num_");
    g_assert_true (dl_tensor_logical_and_ (f, g, &error) == f);
    g_assert_cmpint (dl_tensor_get_dtype (f), ==, DL_DTYPE_FLOAT32);
    assert_close (f, (gdouble[]){ 0, 0, 1, 0 }, 4, 0, "logical_and_ into float32");
    g_assert_no_error (error);
    /* the product's shape must be self's: a [2] self does not take [2, 2] */
    g_assert_null (dl_tensor_addmm_ (a1, c, c, 1, 1, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_clear_error (&error);
  }
  /* autograd: h = leaf * 1; h.addmm_(a, b, 0.5, 2); h.cumprod_(1); sum.
   * d/dleaf: 0.5 times cumprod's gradient */
  g_assert_true (dl_tensor_set_requires_grad (leaf, TRUE, &error));
  g_assert_null (dl_tensor_addmm_ (leaf, a, b, 1, 1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_clear_error (&error);
  h = dl_tensor_mul_scalar (leaf, 1, &error);
  g_assert_true (dl_tensor_addmm_ (h, a, b, 0.5, 2, &error) == h);
  g_assert_true (dl_tensor_cumprod_ (h, 1, &error) == h);
  s = dl_tensor_sum (h, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  {
    /* the rows after addmm_ are (p, q); cumprod gives (p, p q): the
     * gradients (1 + q, p), times 0.5 */
    gdouble p0 = 0.5 * 1 + 2 * 3, q0 = 0.5 * 2 + 2 * 0.5;
    gdouble p1 = 0.5 * 3 + 2 * -2 * 3, q1 = 0.5 * 4 + 2 * -2 * 0.5;

    assert_close (dl_tensor_get_grad (leaf),
                  (gdouble[]){ 0.5 * (1 + q0), 0.5 * p0, 0.5 * (1 + q1), 0.5 * p1 }, 4, 1e-15,
                  "gradient through addmm_ and cumprod_");
  }
}

/* -0.0 is a float: x / -0.0 is -inf for positive x, x * -0.0 is -0 */
static void
test_negative_zero_scalar (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x
      = dl_test_tensor ((gdouble[]){ 2, -3 }, DL_TEST_SHAPE (2), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) i = dl_test_tensor ((gdouble[]){ 2, -3 }, DL_TEST_SHAPE (2), DL_DTYPE_INT64);
  g_autoptr (DlTensor) q = dl_tensor_div_scalar (x, -0.0, &error);
  g_autoptr (DlTensor) p = dl_tensor_mul_scalar (x, -0.0, &error);
  g_autoptr (DlTensor) pi = dl_tensor_mul_scalar (i, -0.0, &error);
  g_autofree gdouble *vq = NULL;
  g_autofree gdouble *vp = NULL;
  g_autofree gdouble *vpi = NULL;

  g_assert_no_error (error);
  vq = dl_test_values (q);
  vp = dl_test_values (p);
  vpi = dl_test_values (pi);
  g_assert_true (isinf (vq[0]) && vq[0] < 0 && isinf (vq[1]) && vq[1] > 0);
  g_assert_true (vp[0] == 0 && signbit (vp[0]) && vp[1] == 0 && !signbit (vp[1]));
  /* a float number next to an integer tensor gives the default float dtype */
  g_assert_cmpint (dl_tensor_get_dtype (pi), ==, DL_DTYPE_FLOAT32);
  g_assert_true (signbit (vpi[0]) && !signbit (vpi[1]));
}

/* div with a rounding mode: trunc rounds toward zero, floor down;
 * integers stay integers and may not be divided by zero */
static void
test_div_mode (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a
      = dl_test_tensor ((gdouble[]){ 7, -7, 7, -7 }, DL_TEST_SHAPE (4), DL_DTYPE_INT32);
  g_autoptr (DlTensor) b
      = dl_test_tensor ((gdouble[]){ 2, 2, -2, -2 }, DL_TEST_SHAPE (4), DL_DTYPE_INT32);
  g_autoptr (DlTensor) fa = dl_tensor_to_dtype (a, DL_DTYPE_FLOAT64, &error);
  g_autoptr (DlTensor) zero = dl_tensor_new_wrapped_scalar (0, DL_DTYPE_INT64);
  g_autoptr (DlTensor) t = dl_tensor_div_mode (a, b, DL_ROUNDING_MODE_TRUNC, &error);
  g_autoptr (DlTensor) f = dl_tensor_div_mode (a, b, DL_ROUNDING_MODE_FLOOR, &error);
  g_autoptr (DlTensor) n = dl_tensor_div_mode (a, b, DL_ROUNDING_MODE_NONE, &error);
  g_autoptr (DlTensor) ft = dl_tensor_div_mode (fa, b, DL_ROUNDING_MODE_TRUNC, &error);
  g_autoptr (DlTensor) bad = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (t), ==, DL_DTYPE_INT32);
  dl_test_assert_values (t, (gdouble[]){ 3, -3, -3, 3 }, 4, 0);
  dl_test_assert_values (f, (gdouble[]){ 3, -4, -4, 3 }, 4, 0);
  dl_test_assert_values (n, (gdouble[]){ 3.5, -3.5, -3.5, 3.5 }, 4, 0);
  g_assert_cmpint (dl_tensor_get_dtype (ft), ==, DL_DTYPE_FLOAT64);
  dl_test_assert_values (ft, (gdouble[]){ 3, -3, -3, 3 }, 4, 0);

  g_assert_true (dl_tensor_div_mode_ (a, b, DL_ROUNDING_MODE_FLOOR, &error) == a);
  g_assert_no_error (error);
  dl_test_assert_values (a, (gdouble[]){ 3, -4, -4, 3 }, 4, 0);

  bad = dl_tensor_div_mode (a, zero, DL_ROUNDING_MODE_TRUNC, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "ZeroDivisionError"));
  g_clear_error (&error);
  g_assert_null (dl_tensor_div_mode_ (a, b, DL_ROUNDING_MODE_NONE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_clear_error (&error);
  g_assert_null (dl_tensor_div_mode (a, b, (DlRoundingMode)7, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_isclose_equal (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a
      = dl_test_tensor ((gdouble[]){ 1, 2, NAN, INFINITY }, DL_TEST_SHAPE (4), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) b = dl_test_tensor ((gdouble[]){ 1.000001, 2.1, NAN, INFINITY },
                                           DL_TEST_SHAPE (4), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) i = dl_test_tensor ((gdouble[]){ 1, 2 }, DL_TEST_SHAPE (2), DL_DTYPE_INT64);
  g_autoptr (DlTensor) c = dl_tensor_isclose (a, b, 1e-5, 1e-8, FALSE, &error);
  g_autoptr (DlTensor) cn = dl_tensor_isclose (a, b, 1e-5, 1e-8, TRUE, &error);
  g_autoptr (DlTensor) bad = NULL;

  g_assert_no_error (error);
  dl_test_assert_values (c, (gdouble[]){ 1, 0, 0, 1 }, 4, 0);
  dl_test_assert_values (cn, (gdouble[]){ 1, 0, 1, 1 }, 4, 0);
  g_assert_false (dl_tensor_allclose (a, b, 1e-5, 1e-8, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (dl_tensor_allclose (a, b, 0.1, 0, TRUE, &error));
  g_assert_true (dl_tensor_equal (a, a, &error) == FALSE); /* NaN */
  g_assert_true (dl_tensor_equal (i, i, &error));
  g_assert_false (dl_tensor_equal (a, i, &error));
  g_assert_no_error (error);
  bad = dl_tensor_isclose (a, i, 1e-5, 1e-8, FALSE, &error);
  g_assert_null (bad);
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_clear_error (&error);
  g_assert_false (dl_tensor_allclose (a, b, -1, 0, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/math/unary-float", test_unary_float);
  g_test_add_func ("/math/unary-threaded", test_unary_threaded);
  g_test_add_func ("/math/predicates-nan-to-num", test_predicates_nan_to_num);
  g_test_add_func ("/math/unary-int", test_unary_int);
  g_test_add_func ("/math/binary-float", test_binary_float);
  g_test_add_func ("/math/binary-int", test_binary_int);
  g_test_add_func ("/math/clamp-lerp", test_clamp_lerp);
  g_test_add_func ("/math/addcmul-addcdiv", test_addcmul_addcdiv);
  g_test_add_func ("/math/errors", test_errors);
  g_test_add_func ("/math/negative-zero-scalar", test_negative_zero_scalar);
  g_test_add_func ("/math/inplace-forms", test_inplace_forms);
  g_test_add_func ("/math/div-mode", test_div_mode);
  g_test_add_func ("/math/isclose-equal", test_isclose_equal);
  for (gsize i = 0; i < G_N_ELEMENTS (grad_cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/math/gradcheck/%s", grad_cases[i].name);
      g_test_add_data_func (path, &grad_cases[i], dl_test_gradcheck);
    }
  return g_test_run ();
}
