/* test-linalg.c: torch.linalg's factorizations through the C API
 * (libdl/ops/dl-ops-lapack.c): exact answers on small matrices,
 * reconstruction on random batches, float32 and float64, transposed
 * inputs, the errors, and the gradients against central differences.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-gradcheck.h"

static DlTensor *
mat (const gdouble *v, const gint64 *shape, gsize nd, DlDType dtype)
{
  return dl_test_tensor (v, shape, nd, dtype);
}

/* @a (*, n, n) plus @shift times the identity */
static DlTensor *
shifted (DlTensor *a, gdouble shift, GError **error)
{
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (a, &nd);
  g_autoptr (DlTensor) eye
      = dl_eye (shape[nd - 1], shape[nd - 1], dl_tensor_get_dtype (a), NULL, error);
  g_autoptr (DlTensor) s = eye ? dl_tensor_mul_scalar (eye, shift, error) : NULL;

  return s ? dl_tensor_add (a, s, error) : NULL;
}

static void
assert_identity (DlTensor *t, gint64 n, gdouble tol)
{
  g_autofree gdouble *v = dl_test_values (t);
  gint64 total = dl_tensor_numel (t);

  for (gint64 i = 0; i < total; i++)
    {
      gint64 r = (i / n) % n, c = i % n;

      if (fabs (v[i] - (r == c)) > tol)
        {
          g_test_fail_printf ("element %" G_GINT64_FORMAT ": %.9g", i, v[i]);
          return;
        }
    }
}

static void
test_inv_det_solve (void)
{
  const gdouble a[] = { 2, 1, 1, 3 };
  const DlDType dtypes[] = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64 };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) m = mat (a, DL_SHAPE (2, 2), dtypes[d]);
      g_autoptr (DlTensor) inv = dl_tensor_linalg_inv (m, &error);
      g_autoptr (DlTensor) det = NULL;
      g_autoptr (DlTensor) sign = NULL;
      g_autoptr (DlTensor) logabs = NULL;
      g_autoptr (DlTensor) b = mat ((const gdouble[]){ 3, 5 }, DL_SHAPE (2), dtypes[d]);
      g_autoptr (DlTensor) x = NULL;
      gdouble tol = dtypes[d] == DL_DTYPE_FLOAT32 ? 1e-6 : 1e-14;

      g_assert_no_error (error);
      dl_test_assert_values (inv, (const gdouble[]){ 0.6, -0.2, -0.2, 0.4 }, 4, tol);
      det = dl_tensor_linalg_det (m, &error);
      g_assert_no_error (error);
      dl_test_assert_values (det, (const gdouble[]){ 5 }, 1, tol);
      g_assert_true (dl_tensor_linalg_slogdet (m, &sign, &logabs, &error));
      dl_test_assert_values (sign, (const gdouble[]){ 1 }, 1, 0);
      dl_test_assert_values (logabs, (const gdouble[]){ log (5) }, 1, tol);
      /* 2 x + y = 3, x + 3 y = 5 */
      x = dl_tensor_linalg_solve (m, b, &error);
      g_assert_no_error (error);
      dl_test_assert_shape (x, DL_SHAPE (2));
      dl_test_assert_values (x, (const gdouble[]){ 0.8, 1.4 }, 2, tol * 10);
    }
}

static void
test_inv_batched_transposed (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gdouble *v = dl_test_random_values (4 * 5 * 5);
  g_autoptr (DlTensor) r = mat (v, DL_SHAPE (4, 5, 5), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) a = shifted (r, 3, &error);
  g_autoptr (DlTensor) at = dl_tensor_transpose (a, 1, 2, &error);
  g_autoptr (DlTensor) inv = dl_tensor_linalg_inv (at, &error);
  g_autoptr (DlTensor) p = dl_tensor_matmul (at, inv, &error);

  g_assert_no_error (error);
  g_assert_false (dl_tensor_is_contiguous (at));
  dl_test_assert_shape (inv, DL_SHAPE (4, 5, 5));
  assert_identity (p, 5, 1e-12);
}

static void
test_cholesky_eigh (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = mat ((const gdouble[]){ 4, 2, 2, 3 }, DL_SHAPE (2, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) l = dl_tensor_linalg_cholesky (a, FALSE, &error);
  g_autoptr (DlTensor) u = dl_tensor_linalg_cholesky (a, TRUE, &error);
  g_autoptr (DlTensor) s = mat ((const gdouble[]){ 2, 1, 1, 2 }, DL_SHAPE (2, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) q = NULL;
  g_autoptr (DlTensor) w2 = NULL;
  g_autoptr (DlTensor) q2 = NULL;

  g_assert_no_error (error);
  dl_test_assert_values (l, (const gdouble[]){ 2, 0, 1, sqrt (2) }, 4, 1e-15);
  dl_test_assert_values (u, (const gdouble[]){ 2, 1, 0, sqrt (2) }, 4, 1e-15);
  g_assert_true (dl_tensor_linalg_eigh (s, FALSE, TRUE, &w, &q, &error));
  dl_test_assert_values (w, (const gdouble[]){ 1, 3 }, 2, 1e-14);
  {
    g_autofree gdouble *qv = dl_test_values (q);

    /* (1, -1) / sqrt 2 and (1, 1) / sqrt 2, up to sign */
    g_assert_cmpfloat_with_epsilon (fabs (qv[0]), sqrt (0.5), 1e-14);
    g_assert_cmpfloat_with_epsilon (qv[0] * qv[2], -0.5, 1e-14);
    g_assert_cmpfloat_with_epsilon (qv[1] * qv[3], 0.5, 1e-14);
  }
  /* the values alone: no vectors */
  g_assert_true (dl_tensor_linalg_eigh (s, TRUE, FALSE, &w2, &q2, &error));
  g_assert_null (q2);
  dl_test_assert_values (w2, (const gdouble[]){ 1, 3 }, 2, 1e-14);
}

static void
test_qr_svd (void)
{
  const DlDType dtypes[] = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64 };
  g_autofree gdouble *v = dl_test_random_values (2 * 5 * 3);

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensor) a = mat (v, DL_SHAPE (2, 5, 3), dtypes[d]);
      g_autoptr (DlTensor) q = NULL;
      g_autoptr (DlTensor) r = NULL;
      g_autoptr (DlTensor) qr = NULL;
      g_autoptr (DlTensor) u = NULL;
      g_autoptr (DlTensor) s = NULL;
      g_autoptr (DlTensor) vh = NULL;
      g_autoptr (DlTensor) us = NULL;
      g_autoptr (DlTensor) s1 = NULL;
      g_autoptr (DlTensor) usv = NULL;
      g_autoptr (DlTensor) qt = NULL;
      g_autoptr (DlTensor) qtq = NULL;
      g_autofree gdouble *av = NULL;
      gdouble tol = dtypes[d] == DL_DTYPE_FLOAT32 ? 1e-5 : 1e-13;

      g_assert_true (dl_tensor_linalg_qr (a, "reduced", &q, &r, &error));
      g_assert_no_error (error);
      dl_test_assert_shape (q, DL_SHAPE (2, 5, 3));
      dl_test_assert_shape (r, DL_SHAPE (2, 3, 3));
      qr = dl_tensor_matmul (q, r, &error);
      av = dl_test_values (a);
      dl_test_assert_values (qr, av, 30, tol);
      qt = dl_tensor_transpose (q, 1, 2, &error);
      qtq = dl_tensor_matmul (qt, q, &error);
      g_assert_no_error (error);
      assert_identity (qtq, 3, tol);
      {
        g_autofree gdouble *rv = dl_test_values (r);

        g_assert_cmpfloat (rv[3], ==, 0); /* below the diagonal */
      }

      g_assert_true (dl_tensor_linalg_svd (a, FALSE, TRUE, &u, &s, &vh, &error));
      dl_test_assert_shape (u, DL_SHAPE (2, 5, 3));
      dl_test_assert_shape (s, DL_SHAPE (2, 3));
      dl_test_assert_shape (vh, DL_SHAPE (2, 3, 3));
      s1 = dl_tensor_unsqueeze (s, 1, &error);
      us = dl_tensor_mul (u, s1, &error);
      usv = dl_tensor_matmul (us, vh, &error);
      g_assert_no_error (error);
      dl_test_assert_values (usv, av, 30, tol * 10);
    }
}

static void
test_lu (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = mat ((const gdouble[]){ 1, 2, 3, 4 }, DL_SHAPE (2, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) lu = NULL;
  g_autoptr (DlTensor) piv = NULL;

  /* rows swapped: [3 4; 1 2] = [1 0; 1/3 1] [3 4; 0 2/3] */
  g_assert_true (dl_tensor_linalg_lu_factor (a, &lu, &piv, &error));
  g_assert_no_error (error);
  dl_test_assert_values (lu, (const gdouble[]){ 3, 4, 1.0 / 3, 2.0 / 3 }, 4, 1e-15);
  g_assert_cmpint (dl_tensor_get_dtype (piv), ==, DL_DTYPE_INT32);
  dl_test_assert_values (piv, (const gdouble[]){ 2, 2 }, 2, 0);
}

/* exp of a nilpotent matrix is its finite series; of a diagonal one, the
 * exponentials of its entries */
static void
test_matrix_exp (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) n
      = mat ((const gdouble[]){ 0, 1, 2, 0, 0, 3, 0, 0, 0 }, DL_SHAPE (3, 3), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) d
      = mat ((const gdouble[]){ 5, 0, 0, -2 }, DL_SHAPE (2, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) en = dl_tensor_linalg_matrix_exp (n, &error);
  g_autoptr (DlTensor) ed = dl_tensor_linalg_matrix_exp (d, &error);

  g_assert_no_error (error);
  /* I + N + N^2 / 2, N^2 = [0 0 3; 0 0 0; 0 0 0] */
  dl_test_assert_values (en, (const gdouble[]){ 1, 1, 3.5, 0, 1, 3, 0, 0, 1 }, 9, 1e-15);
  dl_test_assert_values (ed, (const gdouble[]){ exp (5), 0, 0, exp (-2) }, 4, 1e-13);
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) sing
      = mat ((const gdouble[]){ 1, 2, 2, 4 }, DL_SHAPE (2, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) neg
      = mat ((const gdouble[]){ -1, 0, 0, -1 }, DL_SHAPE (2, 2), DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) rect = dl_zeros (DL_SHAPE (2, 3), DL_DTYPE_FLOAT64, NULL, &error);
  g_autoptr (DlTensor) ints = dl_zeros (DL_SHAPE (2, 2), DL_DTYPE_INT64, NULL, &error);
  g_autoptr (DlTensor) vec = dl_zeros (DL_SHAPE (3), DL_DTYPE_FLOAT64, NULL, &error);
  DlTensor *out;

  out = dl_tensor_linalg_inv (sing, &error);
  g_assert_null (out);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "linalg.inv: The diagonal element 2 is zero, the inversion could not be "
                   "completed because the input matrix is singular.");
  g_clear_error (&error);
  g_assert_null (dl_tensor_linalg_cholesky (neg, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "not positive-definite"));
  g_clear_error (&error);
  g_assert_null (dl_tensor_linalg_det (rect, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_cmpstr (error->message, ==,
                   "linalg.det: A must be batches of square matrices, but they are 2 by 3 "
                   "matrices");
  g_clear_error (&error);
  g_assert_null (dl_tensor_linalg_inv (ints, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DTYPE);
  g_assert_cmpstr (error->message, ==,
                   "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  g_clear_error (&error);
  g_assert_false (dl_tensor_linalg_svd (vec, TRUE, TRUE, NULL, NULL, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_false (dl_tensor_linalg_qr (rect, "full", NULL, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dl_tensor_linalg_solve (sing, vec, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  /* the meta device has no values: every factorization refuses it, the
   * empty ones (which write values on the host) included */
  {
    DlDevice *meta = dl_device_get ("meta", &error);
    g_autoptr (DlTensor) m = NULL;
    g_autoptr (DlTensor) e = NULL;

    g_assert_no_error (error);
    m = dl_zeros (DL_SHAPE (3, 3), DL_DTYPE_FLOAT64, meta, &error);
    e = dl_zeros (DL_SHAPE (3, 0), DL_DTYPE_FLOAT64, meta, &error);
    g_assert_no_error (error);
    g_assert_null (dl_tensor_linalg_inv (m, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
    g_clear_error (&error);
    g_assert_false (dl_tensor_linalg_svd (e, TRUE, TRUE, NULL, NULL, NULL, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
    g_clear_error (&error);
    g_assert_false (dl_tensor_linalg_qr (e, "complete", NULL, NULL, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  }
}

/* ---- gradients -------------------------------------------------------- */

static DlTensor *
g_inv (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) a = shifted (x[0], 3, error);

  return a ? dl_tensor_linalg_inv (a, error) : NULL;
}

static DlTensor *
g_det (DlTensor **x, GError **error)
{
  return dl_tensor_linalg_det (x[0], error);
}

static DlTensor *
g_logabsdet (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) a = shifted (x[0], 3, error);
  g_autoptr (DlTensor) sign = NULL;
  DlTensor *l = NULL;

  if (a && !dl_tensor_linalg_slogdet (a, &sign, &l, error))
    return NULL;
  return l;
}

static DlTensor *
g_solve (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) a = shifted (x[0], 3, error);

  return a ? dl_tensor_linalg_solve (a, x[1], error) : NULL;
}

/* A A^T + I: positive-definite, and symmetric for eigh */
static DlTensor *
spd_of (DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) xt = dl_tensor_transpose (x, -2, -1, error);
  g_autoptr (DlTensor) p = xt ? dl_tensor_matmul (x, xt, error) : NULL;

  return p ? shifted (p, 1, error) : NULL;
}

static DlTensor *
g_cholesky (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) a = spd_of (x[0], error);

  return a ? dl_tensor_linalg_cholesky (a, FALSE, error) : NULL;
}

static DlTensor *
g_eigvalsh (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) a = spd_of (x[0], error);
  DlTensor *w = NULL;

  if (a && !dl_tensor_linalg_eigh (a, FALSE, FALSE, &w, NULL, error))
    return NULL;
  return w;
}

static DlTensor *
g_svdvals (DlTensor **x, GError **error)
{
  DlTensor *s = NULL;

  if (!dl_tensor_linalg_svd (x[0], FALSE, FALSE, NULL, &s, NULL, error))
    return NULL;
  return s;
}

/* Q R: the identity of A, through both factors' gradients */
static DlTensor *
g_qr (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) q = NULL;
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) r2 = NULL;

  if (!dl_tensor_linalg_qr (x[0], "reduced", &q, &r, error) || !(r2 = dl_tensor_mul (r, r, error)))
    return NULL;
  return dl_tensor_matmul (q, r2, error);
}

static DlTensor *
g_solve_triangular (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) a = shifted (x[0], 3, error);

  return a ? dl_tensor_linalg_solve_triangular (a, x[1], TRUE, TRUE, FALSE, error) : NULL;
}

static DlTensor *
g_lu (DlTensor **x, GError **error)
{
  DlTensor *lu = NULL;
  g_autoptr (DlTensor) piv = NULL;

  if (!dl_tensor_linalg_lu_factor (x[0], &lu, &piv, error))
    return NULL;
  return lu;
}

static DlTensor *
g_matrix_exp (DlTensor **x, GError **error)
{
  return dl_tensor_linalg_matrix_exp (x[0], error);
}

static const DlTestGradCase grad_cases[] = {
  { "inv", g_inv, 1, { { 2, 3, 3 } }, { 3 } },
  { "det", g_det, 1, { { 3, 3 } }, { 2 } },
  { "slogdet", g_logabsdet, 1, { { 2, 3, 3 } }, { 3 } },
  { "solve", g_solve, 2, { { 2, 3, 3 }, { 3, 2 } }, { 3, 2 } },
  { "cholesky", g_cholesky, 1, { { 2, 3, 3 } }, { 3 } },
  { "eigvalsh", g_eigvalsh, 1, { { 3, 3 } }, { 2 } },
  { "svdvals", g_svdvals, 1, { { 4, 3 } }, { 2 } },
  { "qr", g_qr, 1, { { 4, 3 } }, { 2 } },
  { "matrix-exp", g_matrix_exp, 1, { { 2, 3, 3 } }, { 3 } },
  { "lu-factor", g_lu, 1, { { 2, 3, 3 } }, { 3 } },
  { "solve-triangular", g_solve_triangular, 2, { { 3, 3 }, { 3, 2 } }, { 2, 2 } },
};

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/linalg/inv-det-solve", test_inv_det_solve);
  g_test_add_func ("/linalg/inv-batched-transposed", test_inv_batched_transposed);
  g_test_add_func ("/linalg/cholesky-eigh", test_cholesky_eigh);
  g_test_add_func ("/linalg/qr-svd", test_qr_svd);
  g_test_add_func ("/linalg/lu", test_lu);
  g_test_add_func ("/linalg/matrix-exp", test_matrix_exp);
  g_test_add_func ("/linalg/errors", test_errors);
  for (guint i = 0; i < G_N_ELEMENTS (grad_cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/linalg/gradcheck/%s", grad_cases[i].name);

      g_test_add_data_func (path, &grad_cases[i], dl_test_gradcheck);
    }
  return g_test_run ();
}
