/* test-reduce-more.c: prod, all, any, amax, var, logsumexp, cumsum,
 * cumprod, sort, topk, median and unique, each kernel family compared with
 * a plain loop over arrays of doubles, on sizes that take the threaded
 * paths too; and the errors bad arguments give.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

/* Random integers in [0, k) as doubles: many ties. */
static gdouble *
tie_values (gint64 n, gint k)
{
  gdouble *v = g_new (gdouble, MAX (n, 1));

  for (gint64 i = 0; i < n; i++)
    v[i] = g_test_rand_int_range (0, k);
  return v;
}

static void
test_prod_all_any (void)
{
  const gint64 rows = 37, cols = 53;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = dl_test_random_values (rows * cols);
  g_autofree gdouble *p0 = g_new (gdouble, cols);
  g_autofree gdouble *p1 = g_new (gdouble, rows);
  g_autofree gdouble *any1 = g_new (gdouble, rows);
  g_autofree gdouble *all0 = g_new (gdouble, cols);
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) r0 = NULL;
  g_autoptr (DlTensor) r1 = NULL;
  g_autoptr (DlTensor) a1 = NULL;
  g_autoptr (DlTensor) l0 = NULL;
  gint64 d0 = 0, d1 = 1;

  for (gint64 i = 0; i < rows * cols; i++)
    {
      x[i] = 1 + x[i] * 0.2;
      if (g_test_rand_int_range (0, 5) == 0)
        x[i] = 0;
    }
  for (gint64 j = 0; j < cols; j++)
    {
      p0[j] = 1;
      all0[j] = 1;
      for (gint64 i = 0; i < rows; i++)
        {
          p0[j] *= x[i * cols + j];
          all0[j] = all0[j] && x[i * cols + j] != 0;
        }
    }
  for (gint64 i = 0; i < rows; i++)
    {
      p1[i] = 1;
      any1[i] = 0;
      for (gint64 j = 0; j < cols; j++)
        {
          p1[i] *= x[i * cols + j];
          any1[i] = any1[i] || x[i * cols + j] != 0;
        }
    }
  t = dl_test_tensor (x, DL_TEST_SHAPE (rows, cols), DL_DTYPE_FLOAT64);
  r0 = dl_tensor_prod_dims (t, &d0, 1, FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (r0, p0, cols, 1e-12);
  r1 = dl_tensor_prod_dims (t, &d1, 1, TRUE, &error);
  g_assert_no_error (error);
  dl_test_assert_shape (r1, DL_TEST_SHAPE (rows, 1));
  dl_test_assert_values (r1, p1, rows, 1e-12);
  a1 = dl_tensor_any (t, &d1, 1, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (a1), ==, DL_DTYPE_BOOL);
  dl_test_assert_values (a1, any1, rows, 0);
  l0 = dl_tensor_all (t, &d0, 1, FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (l0, all0, cols, 0);
}

static void
test_all_any_long (void)
{
  /* one run long enough to be split over threads */
  const gint64 n = 1200001;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = g_new0 (gdouble, n);
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) any = NULL;
  g_autoptr (DlTensor) all = NULL;
  g_autoptr (DlTensor) prod = NULL;

  for (gint64 i = 0; i < n; i++)
    x[i] = 1;
  x[n - 7] = 0;
  t = dl_test_tensor (x, DL_TEST_SHAPE (n), DL_DTYPE_UINT8);
  any = dl_tensor_any (t, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  all = dl_tensor_all (t, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  prod = dl_tensor_prod (t, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (any), ==, DL_DTYPE_UINT8);
  g_assert_cmpint (dl_tensor_get_dtype (prod), ==, DL_DTYPE_INT64);
  g_assert_cmpfloat (dl_tensor_item (any, NULL), ==, 1);
  g_assert_cmpfloat (dl_tensor_item (all, NULL), ==, 0);
  g_assert_cmpfloat (dl_tensor_item (prod, NULL), ==, 0);
}

static void
test_amax_var_logsumexp (void)
{
  const gint64 rows = 5, cols = 9;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = dl_test_random_values (rows * cols);
  gdouble mx[5], var[5], lse[5];
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) l = NULL;
  gint64 d1 = 1;

  for (gint64 i = 0; i < rows; i++)
    {
      gdouble mean = 0, ss = 0, se = 0;

      mx[i] = -INFINITY;
      for (gint64 j = 0; j < cols; j++)
        {
          mx[i] = MAX (mx[i], x[i * cols + j]);
          mean += x[i * cols + j] / cols;
        }
      for (gint64 j = 0; j < cols; j++)
        {
          ss += (x[i * cols + j] - mean) * (x[i * cols + j] - mean);
          se += exp (x[i * cols + j]);
        }
      var[i] = ss / (cols - 1);
      lse[i] = log (se);
    }
  t = dl_test_tensor (x, DL_TEST_SHAPE (rows, cols), DL_DTYPE_FLOAT64);
  m = dl_tensor_amax (t, &d1, 1, FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (m, mx, rows, 0);
  v = dl_tensor_var (t, &d1, 1, 1.0, FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (v, var, rows, 1e-12);
  l = dl_tensor_logsumexp (t, &d1, 1, FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (l, lse, rows, 1e-12);
}

static void
test_nansum (void)
{
  const gint64 rows = 11, cols = 17;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = dl_test_random_values (rows * cols);
  gdouble sums[17];
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) s = NULL;
  gint64 d0 = 0;

  for (gint64 i = 0; i < rows * cols; i += 4)
    x[i] = NAN;
  for (gint64 j = 0; j < cols; j++)
    {
      sums[j] = 0;
      for (gint64 i = 0; i < rows; i++)
        if (!isnan (x[i * cols + j]))
          sums[j] += x[i * cols + j];
    }
  t = dl_test_tensor (x, DL_TEST_SHAPE (rows, cols), DL_DTYPE_FLOAT64);
  s = dl_tensor_nansum (t, &d0, 1, FALSE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (s, sums, cols, 1e-12);
}

static void
check_scan (gint64 rows, gint64 cols, gint dim)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = dl_test_random_values (rows * cols);
  g_autofree gdouble *cs = g_new (gdouble, rows * cols);
  g_autofree gdouble *cp = g_new (gdouble, rows * cols);
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) ti = NULL;
  g_autoptr (DlTensor) si = NULL;
  gint64 outer = dim == 1 ? rows : cols, inner = dim == 1 ? cols : rows;

  for (gint64 i = 0; i < rows * cols; i++)
    x[i] = 1 + x[i] * 1e-3;
  for (gint64 o = 0; o < outer; o++)
    {
      gdouble acc = 0, prod = 1;
      for (gint64 k = 0; k < inner; k++)
        {
          gint64 at = dim == 1 ? o * cols + k : k * cols + o;
          acc += x[at];
          prod *= x[at];
          cs[at] = acc;
          cp[at] = prod;
        }
    }
  t = dl_test_tensor (x, DL_TEST_SHAPE (rows, cols), DL_DTYPE_FLOAT64);
  s = dl_tensor_cumsum (t, dim, &error);
  g_assert_no_error (error);
  dl_test_assert_values (s, cs, rows * cols, 1e-12);
  p = dl_tensor_cumprod (t, dim, &error);
  g_assert_no_error (error);
  dl_test_assert_values (p, cp, rows * cols, 1e-12);
  /* integers accumulate into int64 */
  ti = dl_tensor_to_dtype (t, DL_DTYPE_INT32, &error);
  g_assert_no_error (error);
  si = dl_tensor_cumsum (ti, dim, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (si), ==, DL_DTYPE_INT64);
}

static void
test_scan (void)
{
  check_scan (7, 13, 0);
  check_scan (7, 13, 1);
  check_scan (2048, 300, 1); /* threaded */
  check_scan (300, 2048, 0);
}

static void
test_cummax (void)
{
  const gint64 rows = 9, n = 31;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = tie_values (rows * n, 5);
  g_autofree gdouble *mv = g_new (gdouble, rows * n);
  g_autofree gdouble *mi = g_new (gdouble, rows * n);
  g_autoptr (DlTensor) t = dl_test_tensor (x, DL_TEST_SHAPE (rows, n), DL_DTYPE_INT32);
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) v = NULL;

  for (gint64 r = 0; r < rows; r++)
    {
      gdouble best = x[r * n];
      gint64 at = 0;
      for (gint64 j = 0; j < n; j++)
        {
          if (x[r * n + j] >= best)
            {
              best = x[r * n + j];
              at = j;
            }
          mv[r * n + j] = best;
          mi[r * n + j] = at;
        }
    }
  v = dl_tensor_cummax (t, 1, &idx, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (v), ==, DL_DTYPE_INT32);
  dl_test_assert_values (v, mv, rows * n, 0);
  dl_test_assert_values (idx, mi, rows * n, 0);
}

/* Checks rows of sorted values and indices of @x ([rows, n]) sorted along
 * dim 1: ordered, a permutation, values matching, stable. */
static void
check_sorted (const gdouble *x,
              const gdouble *v,
              const gdouble *idx,
              gint64 rows,
              gint64 n,
              gboolean desc)
{
  g_autofree gboolean *seen = g_new (gboolean, n);

  for (gint64 r = 0; r < rows; r++)
    {
      memset (seen, 0, n * sizeof (gboolean));
      for (gint64 j = 0; j < n; j++)
        {
          gint64 k = (gint64)idx[r * n + j];

          g_assert_cmpint (k, >=, 0);
          g_assert_cmpint (k, <, n);
          g_assert_false (seen[k]);
          seen[k] = TRUE;
          g_assert_cmpfloat (v[r * n + j], ==, x[r * n + k]);
          if (j > 0)
            {
              gdouble a = v[r * n + j - 1], b = v[r * n + j];
              if (desc)
                g_assert_cmpfloat (a, >=, b);
              else
                g_assert_cmpfloat (a, <=, b);
              if (a == b)
                g_assert_cmpfloat (idx[r * n + j - 1], <, idx[r * n + j]);
            }
        }
    }
}

static void
check_sort (gint64 rows, gint64 n, DlDType dtype, gboolean desc)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = tie_values (rows * n, 7);
  g_autoptr (DlTensor) t = dl_test_tensor (x, DL_TEST_SHAPE (rows, n), dtype);
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) v = dl_tensor_sort (t, 1, desc, &idx, &error);
  g_autofree gdouble *vv = NULL;
  g_autofree gdouble *iv = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_get_dtype (v), ==, dtype);
  g_assert_cmpint (dl_tensor_get_dtype (idx), ==, DL_DTYPE_INT64);
  vv = dl_test_values (v);
  iv = dl_test_values (idx);
  check_sorted (x, vv, iv, rows, n, desc);
}

static void
test_sort (void)
{
  const DlDType dtypes[]
      = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_INT64, DL_DTYPE_UINT8, DL_DTYPE_FLOAT16 };

  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    for (gint desc = 0; desc < 2; desc++)
      {
        check_sort (3, 1, dtypes[i], desc);
        check_sort (5, 33, dtypes[i], desc);
        check_sort (1, 1000, dtypes[i], desc);
      }
  check_sort (4000, 40, DL_DTYPE_FLOAT32, FALSE); /* threaded */
}

/* The quickselect paths (topk, kthvalue on long rows) against the full
 * stable sort's prefix, with many ties. */
static void
test_select_vs_sort (void)
{
  const gint64 rows = 6, n = 300;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = tie_values (rows * n, 9);
  g_autoptr (DlTensor) t = dl_test_tensor (x, DL_TEST_SHAPE (rows, n), DL_DTYPE_FLOAT32);
  const gint64 ks[] = { 1, 7, 150, 299 };

  for (guint c = 0; c < G_N_ELEMENTS (ks); c++)
    for (gint largest = 0; largest < 2; largest++)
      {
        gint64 k = ks[c];
        g_autoptr (DlTensor) si = NULL;
        g_autoptr (DlTensor) sv = dl_tensor_sort (t, 1, largest, &si, &error);
        g_autoptr (DlTensor) ti = NULL;
        g_autoptr (DlTensor) tv = dl_tensor_topk (t, k, 1, largest, &ti, &error);
        g_autoptr (DlTensor) ki = NULL;
        g_autoptr (DlTensor) kv = dl_tensor_kthvalue (t, k, 1, FALSE, &ki, &error);
        g_autofree gdouble *svv = NULL;
        g_autofree gdouble *siv = NULL;
        g_autofree gdouble *tvv = NULL;
        g_autofree gdouble *tiv = NULL;
        g_autofree gdouble *kvv = NULL;
        g_autofree gdouble *kiv = NULL;

        g_assert_no_error (error);
        svv = dl_test_values (sv);
        siv = dl_test_values (si);
        tvv = dl_test_values (tv);
        tiv = dl_test_values (ti);
        kvv = dl_test_values (kv);
        kiv = dl_test_values (ki);
        for (gint64 r = 0; r < rows; r++)
          {
            for (gint64 j = 0; j < k; j++)
              {
                g_assert_cmpfloat (tvv[r * k + j], ==, svv[r * n + j]);
                g_assert_cmpfloat (tiv[r * k + j], ==, siv[r * n + j]);
              }
            if (!largest)
              {
                g_assert_cmpfloat (kvv[r], ==, svv[r * n + k - 1]);
                g_assert_cmpfloat (kiv[r], ==, siv[r * n + k - 1]);
              }
          }
      }
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;

  return (x > y) - (x < y);
}

static void
test_topk_median_unique (void)
{
  const gint64 n = 101;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *x = tie_values (n, 20);
  g_autofree gdouble *s = g_memdup2 (x, n * sizeof (gdouble));
  g_autofree gdouble *uv = g_new (gdouble, n);
  g_autofree gdouble *uc = g_new (gdouble, n);
  g_autofree gdouble *inv = g_new (gdouble, n);
  g_autoptr (DlTensor) t = dl_test_tensor (x, DL_TEST_SHAPE (n), DL_DTYPE_FLOAT32);
  g_autoptr (DlTensor) top = NULL;
  g_autoptr (DlTensor) med = NULL;
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) ui = NULL;
  g_autoptr (DlTensor) uc_t = NULL;
  gdouble topv[5];
  gint64 nu = 0;

  qsort (s, n, sizeof (gdouble), cmp_double);
  for (gint i = 0; i < 5; i++)
    topv[i] = s[n - 1 - i];
  for (gint64 i = 0; i < n; i++)
    {
      if (i == 0 || s[i] != s[i - 1])
        {
          uv[nu] = s[i];
          uc[nu++] = 0;
        }
      uc[nu - 1]++;
    }
  for (gint64 i = 0; i < n; i++)
    for (gint64 g = 0; g < nu; g++)
      if (uv[g] == x[i])
        inv[i] = g;

  top = dl_tensor_topk (t, 5, 0, TRUE, NULL, &error);
  g_assert_no_error (error);
  dl_test_assert_values (top, topv, 5, 0);
  med = dl_tensor_median (t, &error);
  g_assert_no_error (error);
  dl_test_assert_values (med, &s[(n - 1) / 2], 1, 0);
  u = dl_tensor_unique (t, &ui, &uc_t, &error);
  g_assert_no_error (error);
  dl_test_assert_values (u, uv, nu, 0);
  dl_test_assert_values (uc_t, uc, nu, 0);
  dl_test_assert_values (ui, inv, n, 0);
}

/* ---- gradients against central differences ---- */

typedef DlTensor *(*UnaryFunc) (DlTensor *x, GError **error);

typedef struct
{
  const gchar *name;
  UnaryFunc func;
  gboolean with_zero; /* put a zero into the input */
} GradCase;

static DlTensor *
f_prod (DlTensor *x, GError **error)
{
  gint64 d = 1;
  return dl_tensor_prod_dims (x, &d, 1, FALSE, error);
}

static DlTensor *
f_prod_all (DlTensor *x, GError **error)
{
  return dl_tensor_prod (x, error);
}

static DlTensor *
f_amin (DlTensor *x, GError **error)
{
  gint64 d = 0;
  return dl_tensor_amin (x, &d, 1, TRUE, error);
}

static DlTensor *
f_var (DlTensor *x, GError **error)
{
  gint64 d = 1;
  return dl_tensor_var (x, &d, 1, 1.0, FALSE, error);
}

static DlTensor *
f_std (DlTensor *x, GError **error)
{
  return dl_tensor_std (x, NULL, 0, 0.0, FALSE, error);
}

static DlTensor *
f_norm2 (DlTensor *x, GError **error)
{
  gint64 d = 1;
  return dl_tensor_norm (x, 2, &d, 1, FALSE, error);
}

static DlTensor *
f_norm3 (DlTensor *x, GError **error)
{
  return dl_tensor_norm (x, 3, NULL, 0, FALSE, error);
}

static DlTensor *
f_logsumexp (DlTensor *x, GError **error)
{
  gint64 d = 1;
  return dl_tensor_logsumexp (x, &d, 1, TRUE, error);
}

static DlTensor *
f_cumsum (DlTensor *x, GError **error)
{
  return dl_tensor_cumsum (x, 0, error);
}

static DlTensor *
f_cumprod (DlTensor *x, GError **error)
{
  return dl_tensor_cumprod (x, 1, error);
}

static DlTensor *
f_sort (DlTensor *x, GError **error)
{
  return dl_tensor_sort (x, 1, TRUE, NULL, error);
}

static DlTensor *
f_topk (DlTensor *x, GError **error)
{
  return dl_tensor_topk (x, 2, 0, FALSE, NULL, error);
}

static DlTensor *
f_median (DlTensor *x, GError **error)
{
  return dl_tensor_median_dim (x, 1, FALSE, NULL, error);
}

static DlTensor *
f_median_all (DlTensor *x, GError **error)
{
  return dl_tensor_median (x, error);
}

static DlTensor *
f_cummin (DlTensor *x, GError **error)
{
  return dl_tensor_cummin (x, 0, NULL, error);
}

static DlTensor *
f_kthvalue (DlTensor *x, GError **error)
{
  return dl_tensor_kthvalue (x, 2, 1, TRUE, NULL, error);
}

static const GradCase grad_cases[] = {
  { "cummin", f_cummin, FALSE },
  { "kthvalue", f_kthvalue, FALSE },
  { "prod", f_prod, FALSE },
  { "prod-zero", f_prod, TRUE },
  { "prod-all-zero", f_prod_all, TRUE },
  { "amin", f_amin, FALSE },
  { "var", f_var, FALSE },
  { "std", f_std, FALSE },
  { "norm2", f_norm2, FALSE },
  { "norm3", f_norm3, FALSE },
  { "logsumexp", f_logsumexp, FALSE },
  { "cumsum", f_cumsum, FALSE },
  { "cumprod", f_cumprod, FALSE },
  { "cumprod-zero", f_cumprod, TRUE },
  { "sort", f_sort, FALSE },
  { "topk", f_topk, FALSE },
  { "median", f_median, FALSE },
  { "median-all", f_median_all, FALSE },
};

/* sum (f (x) * w) for the values @v, without autograd */
static gdouble
weighted (const GradCase *c, const gdouble *v, const gdouble *w)
{
  g_autoptr (GError) error = NULL;
  gboolean was = dl_set_grad_enabled (FALSE);
  g_autoptr (DlTensor) x = dl_test_tensor (v, DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) y = c->func (x, &error);
  g_autofree gdouble *yv = NULL;
  gdouble s = 0;

  g_assert_no_error (error);
  yv = dl_test_values (y);
  for (gint64 i = 0; i < dl_tensor_numel (y); i++)
    s += yv[i] * w[i];
  dl_set_grad_enabled (was);
  return s;
}

static void
gradcheck (gconstpointer data)
{
  const GradCase *c = data;
  const gdouble eps = 1e-6;
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *v = dl_test_random_values (12);
  g_autofree gdouble *w = NULL;
  g_autofree gdouble *g = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) yw = NULL;
  g_autoptr (DlTensor) loss = NULL;
  const gint64 *shape;
  gsize nd;

  /* values apart from each other and from 0, so that order is stable */
  for (gint i = 0; i < 12; i++)
    v[i] = (v[i] < 0 ? -0.2 : 0.2) + v[i] + i * 1e-3;
  if (c->with_zero)
    v[5] = 0;
  x = dl_test_tensor (v, DL_TEST_SHAPE (3, 4), DL_DTYPE_FLOAT64);
  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  y = c->func (x, &error);
  g_assert_no_error (error);
  g_assert_nonnull (dl_tensor_get_grad_fn (y));
  shape = dl_tensor_get_shape (y, &nd);
  w = dl_test_random_values (dl_test_numel (shape, nd));
  wt = dl_test_tensor (w, shape, nd, DL_DTYPE_FLOAT64);
  yw = dl_tensor_mul (y, wt, &error);
  g_assert_no_error (error);
  loss = dl_tensor_sum (yw, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g = dl_test_values (dl_tensor_get_grad (x));
  for (gint j = 0; j < 12; j++)
    {
      gdouble saved = v[j], lp, lm, num;

      v[j] = saved + eps;
      lp = weighted (c, v, w);
      v[j] = saved - eps;
      lm = weighted (c, v, w);
      v[j] = saved;
      num = (lp - lm) / (2 * eps);
      if (!(fabs (num - g[j]) <= 1e-5 * (1 + fabs (num))))
        {
          g_test_fail_printf ("%s: d/dx[%d]: analytic %.10g, numeric %.10g", c->name, j, g[j], num);
          return;
        }
    }
}

static void
test_errors (void)
{
  g_autoptr (DlTensor) t = dl_zeros (DL_TEST_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) ti = dl_zeros (DL_TEST_SHAPE (2, 3), DL_DTYPE_INT64, NULL, NULL);
  gint64 bad = 2;
  GError *error = NULL;

  g_assert_null (dl_tensor_cumsum (t, 2, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  g_assert_null (dl_tensor_sort (t, -3, FALSE, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  g_assert_null (dl_tensor_amax (t, &bad, 1, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  g_assert_null (dl_tensor_topk (t, 4, 1, TRUE, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "topk"));
  g_clear_error (&error);
  g_assert_null (dl_tensor_var (ti, NULL, 0, 1, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_clear_error (&error);
  g_assert_null (dl_tensor_norm (ti, 3, NULL, 0, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_clear_error (&error);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reduce-more/prod-all-any", test_prod_all_any);
  g_test_add_func ("/reduce-more/all-any-long", test_all_any_long);
  g_test_add_func ("/reduce-more/amax-var-logsumexp", test_amax_var_logsumexp);
  g_test_add_func ("/reduce-more/nansum", test_nansum);
  g_test_add_func ("/reduce-more/scan", test_scan);
  g_test_add_func ("/reduce-more/cummax", test_cummax);
  g_test_add_func ("/reduce-more/sort", test_sort);
  g_test_add_func ("/reduce-more/select-vs-sort", test_select_vs_sort);
  g_test_add_func ("/reduce-more/topk-median-unique", test_topk_median_unique);
  g_test_add_func ("/reduce-more/errors", test_errors);
  for (guint i = 0; i < G_N_ELEMENTS (grad_cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/reduce-more/grad/%s", grad_cases[i].name);
      g_test_add_data_func (path, &grad_cases[i], gradcheck);
    }

  return g_test_run ();
}
