/* dl-test-gradcheck.h: gradients checked against central finite
 * differences in float64, shared by the C tests.
 *
 * A case names a function of up to DL_TEST_GRAD_MAX_INPUTS tensors. The
 * check builds random float64 inputs that require grad, backpropagates
 * L = sum (f (x) * w) with random weights w (so that a gradient routed to
 * the wrong element shows), and compares every element of every input's
 * gradient with (L (x + eps) - L (x - eps)) / 2 eps.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <math.h>

#include "dl-test-utils.h"

#define DL_TEST_GRAD_MAX_INPUTS 8
#define DL_TEST_GRAD_EPS 1e-6
#define DL_TEST_GRAD_TOL 1e-6

typedef DlTensor *(*DlTestGradFunc) (DlTensor **x, GError **error);
typedef DlTensor *(*DlTestUnaryFunc) (DlTensor *x, GError **error);
typedef DlTensor *(*DlTestBinaryFunc) (DlTensor *x, DlTensor *y, GError **error);

typedef struct
{
  const gchar *name;
  DlTestGradFunc func; /* or NULL, and then op is called on the inputs */
  guint n_inputs;
  gint64 shapes[DL_TEST_GRAD_MAX_INPUTS][4];
  gsize n_dims[DL_TEST_GRAD_MAX_INPUTS];
  gdouble min_abs;   /* keep inputs at least this far from 0 (log, div, relu) */
  gboolean positive; /* and positive (log) */
  gpointer op;       /* a DlTestUnaryFunc or DlTestBinaryFunc, by n_inputs */
  gdouble lo, hi;    /* when hi > lo: inputs in [lo, hi) instead (asin, acosh) */
} DlTestGradCase;

static DlTensor *
dl_test_grad_apply (const DlTestGradCase *c, DlTensor **x, GError **error)
{
  if (c->func)
    return c->func (x, error);
  if (c->n_inputs == 1)
    return ((DlTestUnaryFunc)c->op) (x[0], error);
  return ((DlTestBinaryFunc)c->op) (x[0], x[1], error);
}

static DlTensor *
dl_test_weighted_loss (const DlTestGradCase *c, DlTensor **x, const gdouble *w, GError **error)
{
  g_autoptr (DlTensor) out = dl_test_grad_apply (c, x, error);
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) prod = NULL;
  const gint64 *shape;
  gsize nd;

  if (out == NULL)
    return NULL;
  shape = dl_tensor_get_shape (out, &nd);
  wt = dl_test_tensor (w, shape, nd, DL_DTYPE_FLOAT64);
  if (!(prod = dl_tensor_mul (out, wt, error)))
    return NULL;
  return dl_tensor_sum (prod, error);
}

/* L for the input values @vals, without recording autograd */
static gdouble
dl_test_eval_loss (const DlTestGradCase *c, gdouble **vals, const gdouble *w)
{
  g_autoptr (GError) error = NULL;
  DlTensor *x[DL_TEST_GRAD_MAX_INPUTS] = { NULL };
  g_autoptr (DlTensor) loss = NULL;
  gboolean was = dl_set_grad_enabled (FALSE);
  gdouble l;

  for (guint i = 0; i < c->n_inputs; i++)
    x[i] = dl_test_tensor (vals[i], c->shapes[i], c->n_dims[i], DL_DTYPE_FLOAT64);
  loss = dl_test_weighted_loss (c, x, w, &error);
  g_assert_no_error (error);
  l = dl_tensor_item (loss, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < c->n_inputs; i++)
    g_object_unref (x[i]);
  dl_set_grad_enabled (was);
  return l;
}

/* A GTestDataFunc: @data is a DlTestGradCase */
static void
dl_test_gradcheck (gconstpointer data)
{
  const DlTestGradCase *c = data;
  g_autoptr (GError) error = NULL;
  gdouble *vals[DL_TEST_GRAD_MAX_INPUTS] = { NULL };
  DlTensor *x[DL_TEST_GRAD_MAX_INPUTS] = { NULL };
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autofree gdouble *w = NULL;
  const gint64 *shape;
  gsize nd;

  for (guint i = 0; i < c->n_inputs; i++)
    {
      gint64 n = dl_test_numel (c->shapes[i], c->n_dims[i]);

      vals[i] = dl_test_random_values (n);
      for (gint64 j = 0; j < n; j++)
        {
          if (c->hi > c->lo)
            vals[i][j] = c->lo + (c->hi - c->lo) * (vals[i][j] + 1) / 2;
          if (c->positive)
            vals[i][j] = fabs (vals[i][j]);
          if (fabs (vals[i][j]) < c->min_abs)
            vals[i][j] += vals[i][j] < 0 ? -c->min_abs : c->min_abs;
        }
      x[i] = dl_test_tensor (vals[i], c->shapes[i], c->n_dims[i], DL_DTYPE_FLOAT64);
      g_assert_true (dl_tensor_set_requires_grad (x[i], TRUE, &error));
    }

  /* the weights, shaped like the output */
  out = dl_test_grad_apply (c, x, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_requires_grad (out));
  g_assert_nonnull (dl_tensor_get_grad_fn (out));
  shape = dl_tensor_get_shape (out, &nd);
  w = dl_test_random_values (dl_test_numel (shape, nd));

  loss = dl_test_weighted_loss (c, x, w, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < c->n_inputs; i++)
    {
      gint64 n = dl_test_numel (c->shapes[i], c->n_dims[i]);
      DlTensor *grad = dl_tensor_get_grad (x[i]);
      g_autofree gdouble *g = NULL;

      g_assert_nonnull (grad);
      dl_test_assert_shape (grad, c->shapes[i], c->n_dims[i]);
      g_assert_cmpint (dl_tensor_get_dtype (grad), ==, DL_DTYPE_FLOAT64);
      g = dl_test_values (grad);
      for (gint64 j = 0; j < n; j++)
        {
          gdouble saved = vals[i][j], lp, lm, num;

          vals[i][j] = saved + DL_TEST_GRAD_EPS;
          lp = dl_test_eval_loss (c, vals, w);
          vals[i][j] = saved - DL_TEST_GRAD_EPS;
          lm = dl_test_eval_loss (c, vals, w);
          vals[i][j] = saved;
          num = (lp - lm) / (2 * DL_TEST_GRAD_EPS);
          if (!(fabs (num - g[j]) <= DL_TEST_GRAD_TOL * (1 + fabs (num))))
            {
              g_test_fail_printf ("%s: d/dx%u[%" G_GINT64_FORMAT "]: analytic %.10g, numeric %.10g",
                                  c->name, i, j, g[j], num);
              break;
            }
        }
    }
  for (guint i = 0; i < c->n_inputs; i++)
    {
      g_object_unref (x[i]);
      g_free (vals[i]);
    }
}
