/* dl-test-utils.h: helpers shared by the C tests: tensors from and to plain
 * arrays of doubles, random data, approximate comparisons.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <math.h>
#include <string.h>

#include <dl.h>

G_BEGIN_DECLS

/* The default CPU generator starts from a nondeterministic seed, as
 * PyTorch's: every test program draws from a fixed one. */
__attribute__ ((constructor)) static void
dl_test_seed_default_generator (void)
{
  dl_manual_seed (0);
}

static inline gint64
dl_test_numel (const gint64 *shape, gsize n_dims)
{
  gint64 n = 1;

  for (gsize i = 0; i < n_dims; i++)
    n *= shape[i];
  return n;
}

/* A new tensor of @dtype holding @values (row-major), built through float64
 * bytes: the values themselves go through no kernel but the cast. */
static inline DlTensor *
dl_test_tensor (const gdouble *values, const gint64 *shape, gsize n_dims, DlDType dtype)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (DlTensor) t = NULL;
  DlTensor *out;
  gint64 n = dl_test_numel (shape, n_dims);

  bytes = g_bytes_new (values, n * sizeof (gdouble));
  t = dl_tensor_new_from_bytes (bytes, shape, n_dims, DL_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);
  if (dtype == DL_DTYPE_FLOAT64)
    return g_steal_pointer (&t);
  out = dl_tensor_to_dtype (t, dtype, &error);
  g_assert_no_error (error);
  return out;
}

/* The elements of @t in row-major order of its (possibly strided) shape, as
 * doubles; free with g_free(). */
static inline gdouble *
dl_test_values (DlTensor *t)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t64 = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize size;
  gconstpointer data;

  t64 = dl_tensor_to_dtype (t, DL_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  bytes = dl_tensor_to_bytes (t64, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &size);
  g_assert_cmpuint (size, ==, dl_tensor_numel (t) * sizeof (gdouble));
  return g_memdup2 (data, MAX (size, 1));
}

/* Uniform values in [-1, 1) from the g_test random generator (seeded by
 * --seed, so a failure can be replayed). */
static inline gdouble *
dl_test_random_values (gint64 n)
{
  gdouble *v = g_new (gdouble, MAX (n, 1));

  for (gint64 i = 0; i < n; i++)
    v[i] = g_test_rand_double_range (-1.0, 1.0);
  return v;
}

static inline void
dl_test_assert_shape (DlTensor *t, const gint64 *shape, gsize n_dims)
{
  gsize nd = 0;
  const gint64 *s = dl_tensor_get_shape (t, &nd);

  g_assert_cmpuint (nd, ==, n_dims);
  g_assert_cmpint (dl_tensor_get_ndim (t), ==, (gint)n_dims);
  for (gsize i = 0; i < n_dims; i++)
    g_assert_cmpint (s[i], ==, shape[i]);
}

/* Compares @t's values with @expected within an absolute + relative
 * tolerance, naming the first index that differs. */
static inline void
dl_test_assert_values (DlTensor *t, const gdouble *expected, gint64 n, gdouble tol)
{
  g_autofree gdouble *v = dl_test_values (t);

  g_assert_cmpint (dl_tensor_numel (t), ==, n);
  for (gint64 i = 0; i < n; i++)
    if (!(fabs (v[i] - expected[i]) <= tol * (1.0 + fabs (expected[i]))))
      {
        g_test_fail_printf ("element %" G_GINT64_FORMAT ": got %.9g, expected %.9g (tol %g)", i,
                            v[i], expected[i], tol);
        return;
      }
}

/* forward of @module (a #DlModule, checked with g_initable_init()) on @x,
 * with no error */
static inline DlTensor *
dl_test_run_module (gpointer module, DlTensor *x)
{
  g_autoptr (GError) error = NULL;
  DlTensor *y;

  g_assert_true (g_initable_init (G_INITABLE (module), NULL, &error));
  g_assert_no_error (error);
  y = dl_module_forward (DL_MODULE (module), x, &error);
  g_assert_no_error (error);
  return y;
}

#define DL_TEST_SHAPE(...)                                                                         \
  ((const gint64[]){ __VA_ARGS__ }), G_N_ELEMENTS (((const gint64[]){ __VA_ARGS__ }))

G_END_DECLS
