/* test-samplers.c: the samplers beyond uniform and normal (exponential_,
 * cauchy_, log_normal_, geometric_, standard_gamma, poisson, binomial)
 * against their distributions: means, variances and Kolmogorov-Smirnov
 * distances with fixed seeds, bounds a few standard errors wide; the
 * reparameterised gamma gradient against finite differences of the
 * incomplete gamma function; the errors on bad arguments.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <float.h>
#include <math.h>

#include <dl.h>

#include "dl-test-utils.h"

#define N 40000

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the largest distance between the empirical distribution of the n
 * values (sorted in place) and cdf */
static double
ks_distance (double *v, gint64 n, double (*cdf) (double, gpointer), gpointer data)
{
  double d = 0;

  qsort (v, n, sizeof (double), cmp_double);
  for (gint64 i = 0; i < n; i++)
    {
      double f = cdf (v[i], data);
      d = MAX (d, MAX (fabs (f - (double)i / n), fabs ((double)(i + 1) / n - f)));
    }
  return d;
}

/* the 0.999 quantile of the KS distance for n samples, about 1.95 / sqrt (n) */
static double
ks_bound (gint64 n)
{
  return 1.95 / sqrt ((double)n);
}

static void
mean_var (const double *v, gint64 n, double *mean, double *var)
{
  double m = 0, s = 0;

  for (gint64 i = 0; i < n; i++)
    m += v[i];
  m /= n;
  for (gint64 i = 0; i < n; i++)
    s += (v[i] - m) * (v[i] - m);
  *mean = m;
  *var = s / (n - 1);
}

static DlTensor *
empty (gint64 n, DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  DlTensor *t = dl_empty (&n, 1, dtype, NULL, &error);

  g_assert_no_error (error);
  return t;
}

static double
exp_cdf (double x, gpointer data)
{
  return 1 - exp (-*(double *)data * x);
}

static void
test_exponential (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlGenerator) g = dl_generator_new (NULL, &error);
  g_autoptr (DlTensor) t = empty (N, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) t2 = empty (N, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) i = empty (4, DL_DTYPE_INT64);
  g_autofree gdouble *v = NULL;
  g_autofree gdouble *v2 = NULL;
  double lambd = 2, mean, var;

  dl_generator_manual_seed (g, 7);
  g_assert_true (dl_tensor_exponential_ (t, lambd, g, &error) == t);
  g_assert_no_error (error);
  v = dl_test_values (t);
  mean_var (v, N, &mean, &var);
  g_assert_cmpfloat_with_epsilon (mean, 0.5, 0.01);
  g_assert_cmpfloat_with_epsilon (var, 0.25, 0.015);
  g_assert_cmpfloat (ks_distance (v, N, exp_cdf, &lambd), <, ks_bound (N));
  g_assert_cmpfloat (v[0], >=, 0);

  /* the same seed, the same numbers */
  dl_generator_manual_seed (g, 7);
  dl_tensor_exponential_ (t2, lambd, g, &error);
  g_assert_no_error (error);
  v2 = dl_test_values (t2);
  g_free (v);
  v = dl_test_values (t);
  g_assert_cmpmem (v, N * sizeof (double), v2, N * sizeof (double));

  g_assert_null (dl_tensor_exponential_ (t, -1, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_tensor_exponential_ (i, 1, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
}

static double
cauchy_cdf (double x, gpointer data)
{
  const double *ms = data;
  return atan ((x - ms[0]) / ms[1]) / G_PI + 0.5;
}

static void
test_cauchy (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = empty (N, DL_DTYPE_FLOAT32);
  g_autofree gdouble *v = NULL;
  double ms[2] = { 1, 2 };

  dl_manual_seed (11);
  dl_tensor_cauchy_ (t, ms[0], ms[1], NULL, &error);
  g_assert_no_error (error);
  v = dl_test_values (t);
  g_assert_cmpfloat (ks_distance (v, N, cauchy_cdf, ms), <, ks_bound (N));
  /* the median and the quartiles */
  g_assert_cmpfloat_with_epsilon (v[N / 2], 1, 0.05);
  g_assert_cmpfloat_with_epsilon (v[N / 4], -1, 0.08);
  g_assert_cmpfloat_with_epsilon (v[3 * N / 4], 3, 0.08);
}

static double
normal_cdf (double x, gpointer data)
{
  const double *ms = data;
  return 0.5 * erfc (-(x - ms[0]) / (ms[1] * sqrt (2)));
}

static void
test_log_normal (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = empty (N, DL_DTYPE_FLOAT64);
  g_autofree gdouble *v = NULL;
  double ms[2] = { 0.5, 0.8 }, mean, var;

  dl_manual_seed (3);
  dl_tensor_log_normal_ (t, ms[0], ms[1], NULL, &error);
  g_assert_no_error (error);
  v = dl_test_values (t);
  for (gint64 i = 0; i < N; i++)
    {
      g_assert_cmpfloat (v[i], >, 0);
      v[i] = log (v[i]);
    }
  mean_var (v, N, &mean, &var);
  g_assert_cmpfloat_with_epsilon (mean, 0.5, 0.02);
  g_assert_cmpfloat_with_epsilon (sqrt (var), 0.8, 0.02);
  g_assert_cmpfloat (ks_distance (v, N, normal_cdf, ms), <, ks_bound (N));
  g_assert_null (dl_tensor_log_normal_ (t, 0, 0, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_geometric (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = empty (N, DL_DTYPE_INT64);
  g_autofree gdouble *v = NULL;
  double p = 0.3, mean, var;
  gint64 ones = 0;

  dl_manual_seed (5);
  g_assert_true (dl_tensor_geometric_ (t, p, NULL, &error) == t);
  g_assert_no_error (error);
  v = dl_test_values (t);
  for (gint64 i = 0; i < N; i++)
    {
      g_assert_cmpfloat (v[i], >=, 1);
      ones += v[i] == 1;
    }
  mean_var (v, N, &mean, &var);
  g_assert_cmpfloat_with_epsilon (mean, 1 / p, 0.06);
  g_assert_cmpfloat_with_epsilon (var, (1 - p) / (p * p), 0.4);
  g_assert_cmpfloat_with_epsilon ((double)ones / N, p, 0.01);
  g_assert_null (dl_tensor_geometric_ (t, 1, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_tensor_geometric_ (t, 0, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

/* n samples of each parameter value, as a [k, n] tensor of @dtype */
static DlTensor *
repeated (const double *params, gint k, gint64 n, DlDType dtype)
{
  g_autofree gdouble *v = g_new (gdouble, k * n);
  gint64 shape[2] = { k, n };

  for (gint j = 0; j < k; j++)
    for (gint64 i = 0; i < n; i++)
      v[j * n + i] = params[j];
  return dl_test_tensor (v, shape, 2, dtype);
}

static void
test_gamma (void)
{
  g_autoptr (GError) error = NULL;
  const double alphas[] = { 0.3, 1, 2.5, 10 };
  const gint64 n = 20000;
  g_autoptr (DlTensor) a = repeated (alphas, 4, n, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) cdf = NULL;
  g_autofree gdouble *v = NULL;
  g_autofree gdouble *f = NULL;

  dl_manual_seed (13);
  x = dl_standard_gamma (a, NULL, &error);
  g_assert_no_error (error);
  v = dl_test_values (x);
  /* the regularised incomplete gamma function at each sample is uniform */
  cdf = dl_tensor_igamma (a, x, &error);
  g_assert_no_error (error);
  f = dl_test_values (cdf);
  for (gint j = 0; j < 4; j++)
    {
      double mean, var, al = alphas[j], d = 0;
      double *fj = f + j * n;

      mean_var (v + j * n, n, &mean, &var);
      g_assert_cmpfloat (fabs (mean - al), <, 5 * sqrt (al / n));
      g_assert_cmpfloat (fabs (var - al), <, 0.06 * al);
      qsort (fj, n, sizeof (double), cmp_double);
      for (gint64 i = 0; i < n; i++)
        d = MAX (d, MAX (fabs (fj[i] - (double)i / n), fabs ((double)(i + 1) / n - fj[i])));
      g_assert_cmpfloat (d, <, ks_bound (n));
    }
}

static void
test_gamma_float32_tiny (void)
{
  g_autoptr (GError) error = NULL;
  const double alphas[] = { 1e-3, 0 };
  g_autoptr (DlTensor) a = repeated (alphas, 2, 1000, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) x = dl_standard_gamma (a, NULL, &error);
  g_autofree gdouble *v = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (x), ==, DL_DTYPE_FLOAT32);
  v = dl_test_values (x);
  /* never 0: the smallest normal float at least, that exactly for alpha 0 */
  for (gint64 i = 0; i < 2000; i++)
    g_assert_cmpfloat (v[i], >=, FLT_MIN);
  g_assert_cmpfloat (v[1999], ==, FLT_MIN);
}

/* dx/dalpha of a sample at fixed quantile: -(dP/dalpha) / (dP/dx), dP/dalpha
 * by central differences of igamma */
static void
test_gamma_grad (void)
{
  g_autoptr (GError) error = NULL;
  const double av[] = { 0.2, 0.7, 1.0, 3.0, 3.0, 25.0, 150.0 };
  const double xv[] = { 0.05, 1.3, 0.4, 1.0, 7.5, 22.0, 160.0 };
  const gint64 n = G_N_ELEMENTS (av);
  g_autoptr (DlTensor) a = dl_test_tensor (av, &n, 1, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) x = dl_test_tensor (xv, &n, 1, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) grad = dl_standard_gamma_grad (a, x, &error);
  g_autofree gdouble *gv = NULL;

  g_assert_no_error (error);
  gv = dl_test_values (grad);
  for (gint64 i = 0; i < n; i++)
    {
      const gint64 one = 1;
      double h = 1e-5 * av[i], ap = av[i] + h, am = av[i] - h;
      g_autoptr (DlTensor) tp = dl_test_tensor (&ap, &one, 1, DL_DTYPE_FLOAT64);
      g_autoptr (DlTensor) tm = dl_test_tensor (&am, &one, 1, DL_DTYPE_FLOAT64);
      g_autoptr (DlTensor) tx = dl_test_tensor (&xv[i], &one, 1, DL_DTYPE_FLOAT64);
      g_autoptr (DlTensor) pp = dl_tensor_igamma (tp, tx, &error);
      g_autoptr (DlTensor) pm = dl_tensor_igamma (tm, tx, &error);
      double dpda = (dl_tensor_item (pp, NULL) - dl_tensor_item (pm, NULL)) / (2 * h);
      double dens = exp ((av[i] - 1) * log (xv[i]) - xv[i] - lgamma (av[i]));

      g_assert_no_error (error);
      g_assert_cmpfloat (fabs (gv[i] + dpda / dens), <, 1e-5 * MAX (1, fabs (gv[i])));
    }
  {
    g_autoptr (DlTensor) short_x = dl_tensor_narrow (x, 0, 0, 2, &error);

    g_assert_no_error (error);
    g_assert_null (dl_standard_gamma_grad (a, short_x, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  }
}

static void
test_poisson (void)
{
  g_autoptr (GError) error = NULL;
  const double rates[] = { 0.5, 4, 30, 1000 };
  const gint64 n = 20000;
  g_autoptr (DlTensor) r = repeated (rates, 4, n, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) k = NULL;
  g_autoptr (DlTensor) bad = NULL;
  g_autofree gdouble *v = NULL;
  const double neg = -1;

  dl_manual_seed (17);
  k = dl_poisson (r, NULL, &error);
  g_assert_no_error (error);
  v = dl_test_values (k);
  for (gint j = 0; j < 4; j++)
    {
      double mean, var, l = rates[j];

      for (gint64 i = 0; i < n; i++)
        g_assert_cmpfloat (v[j * n + i], ==, floor (v[j * n + i]));
      mean_var (v + j * n, n, &mean, &var);
      g_assert_cmpfloat (fabs (mean - l), <, 5 * sqrt (l / n));
      g_assert_cmpfloat (fabs (var - l), <, 0.05 * l);
    }
  const gint64 one = 1;

  bad = dl_test_tensor (&neg, &one, 1, DL_DTYPE_FLOAT32);
  g_assert_null (dl_poisson (bad, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

static void
test_binomial (void)
{
  g_autoptr (GError) error = NULL;
  /* inversion (n p < 10), BTRS (above), p above 1/2 */
  const double counts[] = { 10, 100, 50, 1000 };
  const double probs[] = { 0.3, 0.4, 0.9, 0.02 };
  const gint64 n = 20000;
  g_autoptr (DlTensor) c = repeated (counts, 4, n, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) p = repeated (probs, 4, n, DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) pf = repeated (probs, 4, 1, DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) k = NULL;
  g_autofree gdouble *v = NULL;

  dl_manual_seed (19);
  k = dl_binomial (c, p, NULL, &error);
  g_assert_no_error (error);
  v = dl_test_values (k);
  for (gint j = 0; j < 4; j++)
    {
      double mean, var, m = counts[j] * probs[j], s2 = m * (1 - probs[j]);

      for (gint64 i = 0; i < n; i++)
        {
          g_assert_cmpfloat (v[j * n + i], ==, floor (v[j * n + i]));
          g_assert_cmpfloat (v[j * n + i], >=, 0);
          g_assert_cmpfloat (v[j * n + i], <=, counts[j]);
        }
      mean_var (v + j * n, n, &mean, &var);
      g_assert_cmpfloat (fabs (mean - m), <, 5 * sqrt (s2 / n));
      g_assert_cmpfloat (fabs (var - s2), <, 0.05 * s2);
    }
  g_assert_null (dl_binomial (c, pf, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/samplers/exponential", test_exponential);
  g_test_add_func ("/samplers/cauchy", test_cauchy);
  g_test_add_func ("/samplers/log-normal", test_log_normal);
  g_test_add_func ("/samplers/geometric", test_geometric);
  g_test_add_func ("/samplers/gamma", test_gamma);
  g_test_add_func ("/samplers/gamma-float32-tiny", test_gamma_float32_tiny);
  g_test_add_func ("/samplers/gamma-grad", test_gamma_grad);
  g_test_add_func ("/samplers/poisson", test_poisson);
  g_test_add_func ("/samplers/binomial", test_binomial);
  return g_test_run ();
}
