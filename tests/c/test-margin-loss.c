/* test-margin-loss.c: the margin and embedding losses and the distances
 * (dl-margin-loss.c, dl-distance.c) on cases worked out by hand, their
 * gradients by finite differences, their module classes and their errors.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dl-test-utils.h"
#include "dl-test-gradcheck.h"

#define T64(shape, ...) dl_test_tensor ((gdouble[]){ __VA_ARGS__ }, shape, DL_DTYPE_FLOAT64)
#define I64(shape, ...) dl_test_tensor ((gdouble[]){ __VA_ARGS__ }, shape, DL_DTYPE_INT64)

/* asserts the 0-d @t (which this takes) is @expected */
static void
assert_scalar (DlTensor *t, GError *error, gdouble expected)
{
  g_autoptr (DlTensor) owned = t;

  g_assert_no_error (error);
  g_assert_nonnull (owned);
  g_assert_cmpint (dl_tensor_get_ndim (owned), ==, 0);
  g_assert_cmpfloat_with_epsilon (dl_tensor_item (owned, NULL), expected, 1e-9);
}

static void
test_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x1 = T64 (DL_TEST_SHAPE (3), 1, 2, 3);
  g_autoptr (DlTensor) x2 = T64 (DL_TEST_SHAPE (3), 2, 0, 3);
  g_autoptr (DlTensor) y = T64 (DL_TEST_SHAPE (3), 1, -1, 1);
  g_autoptr (DlTensor) none = NULL;
  g_autoptr (DlTensor) h = T64 (DL_TEST_SHAPE (3), 0.3, 2, -1);
  g_autoptr (DlTensor) hy = T64 (DL_TEST_SHAPE (3), 1, -1, -1);
  g_autoptr (DlTensor) s = T64 (DL_TEST_SHAPE (2), 0, 1);
  g_autoptr (DlTensor) sy = T64 (DL_TEST_SHAPE (2), 1, -1);
  /* torch.nn.MultiMarginLoss's and MultiLabelMarginLoss's examples */
  g_autoptr (DlTensor) scores = T64 (DL_TEST_SHAPE (1, 4), 0.1, 0.2, 0.4, 0.8);
  g_autoptr (DlTensor) cls = I64 (DL_TEST_SHAPE (1), 3);
  g_autoptr (DlTensor) labels = I64 (DL_TEST_SHAPE (1, 4), 3, 0, -1, 1);
  g_autoptr (DlTensor) e1 = T64 (DL_TEST_SHAPE (1, 2), 1, 0);
  g_autoptr (DlTensor) e2 = T64 (DL_TEST_SHAPE (1, 2), 1, 1);
  g_autoptr (DlTensor) pos = T64 (DL_TEST_SHAPE (1), 1);
  g_autoptr (DlTensor) z = T64 (DL_TEST_SHAPE (1, 2), 0, 0);
  g_autoptr (DlTensor) bits = T64 (DL_TEST_SHAPE (1, 2), 1, 0);
  g_autoptr (DlTensor) a = T64 (DL_TEST_SHAPE (2), 0, 0);
  g_autoptr (DlTensor) p = T64 (DL_TEST_SHAPE (2), 3, 4);
  g_autoptr (DlTensor) n = T64 (DL_TEST_SHAPE (2), 0, 1);
  g_autoptr (DlTensor) rows = T64 (DL_TEST_SHAPE (3, 2), 0, 0, 3, 4, 6, 8);
  g_autoptr (DlTensor) dists = NULL;

  /* -y (x1 - x2) + 0.5: 1.5, 2.5, 0.5 */
  none = dl_margin_ranking_loss (x1, x2, y, 0.5, DL_REDUCTION_NONE, &error);
  g_assert_no_error (error);
  dl_test_assert_values (none, (gdouble[]){ 1.5, 2.5, 0.5 }, 3, 1e-12);
  assert_scalar (dl_margin_ranking_loss (x1, x2, y, 0.5, DL_REDUCTION_MEAN, &error), error, 1.5);
  assert_scalar (dl_margin_ranking_loss (x1, x2, y, 0.5, DL_REDUCTION_SUM, &error), error, 4.5);
  /* 0.3, max (0, 1 - 2), max (0, 1 + 1) */
  assert_scalar (dl_hinge_embedding_loss (h, hy, 1, DL_REDUCTION_SUM, &error), error, 2.3);
  assert_scalar (dl_soft_margin_loss (s, sy, DL_REDUCTION_SUM, &error), error,
                 log (2) + log1p (exp (1)));
  /* (0.3 + 0.4 + 0.6) / 4, and for the classes {3, 0} against {1, 2}:
   * (0.4 + 0.6 + 1.1 + 1.3) / 4, as in torch's docs */
  assert_scalar (dl_multi_margin_loss (scores, cls, 1, 1, NULL, DL_REDUCTION_MEAN, &error), error,
                 0.325);
  assert_scalar (dl_multilabel_margin_loss (scores, labels, DL_REDUCTION_MEAN, &error), error,
                 0.85);
  assert_scalar (dl_cosine_embedding_loss (e1, e2, pos, 0, DL_REDUCTION_MEAN, &error), error,
                 1 - 1 / sqrt (2));
  assert_scalar (dl_multilabel_soft_margin_loss (z, bits, NULL, DL_REDUCTION_MEAN, &error), error,
                 log (2));
  /* d (a, p) = 5, d (a, n) = 1 */
  assert_scalar (dl_triplet_margin_loss (a, p, n, 1, 2, 0, FALSE, DL_REDUCTION_MEAN, &error), error,
                 5);
  /* with swap, d (p, n) = sqrt (18) is not smaller */
  assert_scalar (dl_triplet_margin_loss (a, p, n, 1, 2, 0, TRUE, DL_REDUCTION_SUM, &error), error,
                 5);
  assert_scalar (dl_cosine_similarity (a, p, 0, 1e-8, &error), error, 0);
  assert_scalar (dl_cosine_similarity (n, p, 0, 1e-8, &error), error, 0.8);
  assert_scalar (dl_pairwise_distance (a, p, 2, 0, FALSE, &error), error, 5);
  assert_scalar (dl_pairwise_distance (a, p, 1, 0, FALSE, &error), error, 7);
  dists = dl_pdist (rows, 2, &error);
  g_assert_no_error (error);
  dl_test_assert_values (dists, (gdouble[]){ 5, 10, 5 }, 3, 1e-12);
}

/* ---- gradients ------------------------------------------------------------ */

static DlTensor *
signs (const gint64 *shape, gsize nd)
{
  gint64 n = dl_test_numel (shape, nd);
  g_autofree gdouble *v = g_new (gdouble, n);

  for (gint64 i = 0; i < n; i++)
    v[i] = i % 3 == 1 ? -1 : 1;
  return dl_test_tensor (v, shape, nd, DL_DTYPE_FLOAT64);
}

static DlTensor *
ranking_of (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) y = signs (DL_TEST_SHAPE (3, 4));

  return dl_margin_ranking_loss (x[0], x[1], y, 0.3, DL_REDUCTION_NONE, error);
}

static DlTensor *
hinge_of (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) y = signs (DL_TEST_SHAPE (4));

  return dl_hinge_embedding_loss (x[0], y, 0.5, DL_REDUCTION_MEAN, error);
}

static DlTensor *
soft_margin_of (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) y = signs (DL_TEST_SHAPE (3, 4));

  return dl_soft_margin_loss (x[0], y, DL_REDUCTION_NONE, error);
}

static DlTensor *
multilabel_soft_of (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) y = T64 (DL_TEST_SHAPE (3, 4), 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0);
  g_autoptr (DlTensor) w = T64 (DL_TEST_SHAPE (4), 0.5, 2, 1, 1.5);

  return dl_multilabel_soft_margin_loss (x[0], y, w, DL_REDUCTION_NONE, error);
}

static DlTensor *
multilabel_of (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) t = I64 (DL_TEST_SHAPE (3, 4), 1, 0, -1, 2, 3, -1, 0, 0, 0, 2, 1, 3);

  return dl_multilabel_margin_loss (x[0], t, DL_REDUCTION_NONE, error);
}

static DlTensor *
multi_margin_of (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) t = I64 (DL_TEST_SHAPE (3), 0, 3, 1);
  g_autoptr (DlTensor) w = T64 (DL_TEST_SHAPE (4), 0.5, 2, 1, 1.5);

  return dl_multi_margin_loss (x[0], t, 2, 0.7, w, DL_REDUCTION_SUM, error);
}

static DlTensor *
cosine_embedding_of (DlTensor **x, GError **error)
{
  g_autoptr (DlTensor) y = signs (DL_TEST_SHAPE (3));

  return dl_cosine_embedding_loss (x[0], x[1], y, -0.5, DL_REDUCTION_NONE, error);
}

static DlTensor *
triplet_of (DlTensor **x, GError **error)
{
  return dl_triplet_margin_loss (x[0], x[1], x[2], 2, 3, 1e-6, TRUE, DL_REDUCTION_NONE, error);
}

static DlTensor *
cosine_similarity_of (DlTensor **x, GError **error)
{
  return dl_cosine_similarity (x[0], x[1], -1, 1e-8, error);
}

static DlTensor *
pairwise_of (DlTensor **x, GError **error)
{
  return dl_pairwise_distance (x[0], x[1], 1.5, 1e-6, TRUE, error);
}

static DlTensor *
pdist_of (DlTensor **x, GError **error)
{
  return dl_pdist (x[0], 2, error);
}

static const DlTestGradCase grad_cases[] = {
  { "margin-ranking", ranking_of, 2, { { 3, 4 }, { 1, 4 } }, { 2, 2 } },
  { "hinge-embedding", hinge_of, 1, { { 4 } }, { 1 } },
  { "soft-margin", soft_margin_of, 1, { { 3, 4 } }, { 2 } },
  { "multilabel-soft-margin", multilabel_soft_of, 1, { { 3, 4 } }, { 2 } },
  { "multilabel-margin", multilabel_of, 1, { { 3, 4 } }, { 2 } },
  { "multi-margin", multi_margin_of, 1, { { 3, 4 } }, { 2 } },
  { "cosine-embedding", cosine_embedding_of, 2, { { 3, 4 }, { 3, 4 } }, { 2, 2 } },
  { "triplet-margin", triplet_of, 3, { { 3, 4 }, { 3, 4 }, { 1, 4 } }, { 2, 2, 2 } },
  { "cosine-similarity", cosine_similarity_of, 2, { { 2, 3, 4 }, { 4 } }, { 3, 1 } },
  { "pairwise-distance", pairwise_of, 2, { { 3, 4 }, { 3, 4 } }, { 2, 2 } },
  { "pdist", pdist_of, 1, { { 4, 3 } }, { 2 } },
};

/* ---- modules --------------------------------------------------------------- */

static DlTensor *
forward3 (gpointer module, DlTensor *a, DlTensor *b, DlTensor *c, GError **error)
{
  g_autoptr (GPtrArray) in = g_ptr_array_new ();
  g_autoptr (GPtrArray) out = NULL;

  g_ptr_array_add (in, a);
  g_ptr_array_add (in, b);
  if (c)
    g_ptr_array_add (in, c);
  if (!g_initable_init (G_INITABLE (module), NULL, error)
      || !(out = dl_module_forward_many (DL_MODULE (module), in, error)))
    return NULL;
  g_assert_cmpuint (out->len, ==, 1);
  return g_object_ref (g_ptr_array_index (out, 0));
}

static void
test_modules (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = T64 (DL_TEST_SHAPE (2), 0, 0);
  g_autoptr (DlTensor) p = T64 (DL_TEST_SHAPE (2), 3, 4);
  g_autoptr (DlTensor) n = T64 (DL_TEST_SHAPE (2), 0, 1);
  g_autoptr (DlTensor) scores = T64 (DL_TEST_SHAPE (2, 3), 0.1, 0.5, 0.2, 1, 0.3, -0.2);
  g_autoptr (DlTensor) cls = I64 (DL_TEST_SHAPE (2), 1, 0);
  g_autoptr (DlTensor) w = T64 (DL_TEST_SHAPE (3), 2, 3, 0.5);
  g_autoptr (DlTripletMarginLoss) triplet = NULL;
  g_autoptr (DlMultiMarginLoss) multi = NULL;
  g_autoptr (DlMultiMarginLoss) bad = NULL;
  g_autoptr (DlPairwiseDistance) dist = dl_pairwise_distance_new ();
  g_autoptr (DlCosineSimilarity) cos = dl_cosine_similarity_new ();
  g_autoptr (DlMarginRankingLoss) ranking = dl_margin_ranking_loss_new ();
  g_autoptr (DlTensor) expected = NULL;
  gdouble margin, eps;
  DlReduction reduction;

  triplet = g_object_new (DL_TYPE_TRIPLET_MARGIN_LOSS, "margin", 2.0, "eps", 0.0, "reduction",
                          DL_REDUCTION_SUM, NULL);
  g_object_get (triplet, "margin", &margin, "eps", &eps, "reduction", &reduction, NULL);
  g_assert_cmpfloat (margin, ==, 2);
  g_assert_cmpfloat (eps, ==, 0);
  g_assert_cmpint (reduction, ==, DL_REDUCTION_SUM);
  /* max (0, 2 + 5 - 1) */
  assert_scalar (forward3 (triplet, a, p, n, &error), error, 6);
  /* defaults: p 2, eps 1e-6 */
  g_object_get (dist, "p", &margin, "eps", &eps, NULL);
  g_assert_cmpfloat (margin, ==, 2);
  g_assert_cmpfloat (eps, ==, 1e-6);
  expected = dl_pairwise_distance (a, p, 2, 1e-6, FALSE, &error);
  g_assert_no_error (error);
  assert_scalar (forward3 (dist, a, p, NULL, &error), error, dl_tensor_item (expected, NULL));
  g_object_get (cos, "eps", &eps, NULL);
  g_assert_cmpfloat (eps, ==, 1e-8);

  /* the weight is the buffer "weight", and used */
  multi = g_object_new (DL_TYPE_MULTI_MARGIN_LOSS, "p", 2.0, "weight", w, NULL);
  g_clear_object (&expected);
  expected = dl_multi_margin_loss (scores, cls, 2, 1, w, DL_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  assert_scalar (forward3 (multi, scores, cls, NULL, &error), error,
                 dl_tensor_item (expected, NULL));
  g_assert_nonnull (dl_module_get_buffer (DL_MODULE (multi), "weight"));

  /* a bad option is the construct error; a missing input an error */
  bad = g_object_new (DL_TYPE_MULTI_MARGIN_LOSS, "p", 3.0, NULL);
  g_assert_false (g_initable_init (G_INITABLE (bad), NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "MultiMarginLoss"));
  g_clear_error (&error);
  g_assert_null (forward3 (ranking, a, p, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "MarginRankingLoss"));
}

/* ---- errors ----------------------------------------------------------------- */

/* asserts @t is NULL and @error (which this clears) of @code names @op */
static void
assert_fails (DlTensor *t, GError **error, gint code, const gchar *op)
{
  g_autoptr (DlTensor) owned = t;

  g_assert_null (owned);
  g_assert_error (*error, DL_ERROR, code);
  if (!strstr ((*error)->message, op))
    g_test_fail_printf ("'%s' does not name %s", (*error)->message, op);
  g_clear_error (error);
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) m = T64 (DL_TEST_SHAPE (2, 3), 1, 2, 3, 4, 5, 6);
  g_autoptr (DlTensor) v = T64 (DL_TEST_SHAPE (3), 1, 2, 3);
  g_autoptr (DlTensor) v2 = T64 (DL_TEST_SHAPE (2), 1, 2);
  g_autoptr (DlTensor) cube = T64 (DL_TEST_SHAPE (1, 1, 1), 1);
  g_autoptr (DlTensor) cls = I64 (DL_TEST_SHAPE (2), 0, 3);
  g_autoptr (DlTensor) cls_ok = I64 (DL_TEST_SHAPE (2), 0, 2);
  g_autoptr (DlTensor) labels = I64 (DL_TEST_SHAPE (2, 3), 0, 5, -1, 1, -1, 7);
  g_autoptr (DlTensor) ints = I64 (DL_TEST_SHAPE (3), 1, 2, 3);

  assert_fails (dl_margin_ranking_loss (m, m, v, 0, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_SHAPE, "margin_ranking_loss");
  assert_fails (dl_margin_ranking_loss (v, v, v, 0, DL_REDUCTION_BATCHMEAN, &error), &error,
                DL_ERROR_ARGUMENT, "margin_ranking_loss");
  assert_fails (dl_margin_ranking_loss (v, v2, v, 0, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_SHAPE, "margin_ranking_loss");
  assert_fails (dl_soft_margin_loss (v, m, DL_REDUCTION_MEAN, &error), &error, DL_ERROR_SHAPE,
                "soft_margin_loss");
  assert_fails (dl_multi_margin_loss (m, cls, 1, 1, NULL, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_ARGUMENT, "multi_margin_loss");
  assert_fails (dl_multi_margin_loss (m, cls_ok, 3, 1, NULL, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_ARGUMENT, "multi_margin_loss");
  assert_fails (dl_multi_margin_loss (m, v, 1, 1, NULL, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_SHAPE, "multi_margin_loss");
  assert_fails (dl_multi_margin_loss (m, cls_ok, 1, 1, v2, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_SHAPE, "multi_margin_loss");
  assert_fails (dl_multi_margin_loss (cube, cls_ok, 1, 1, NULL, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_SHAPE, "multi_margin_loss");
  assert_fails (dl_multilabel_margin_loss (m, labels, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_ARGUMENT, "multilabel_margin_loss");
  assert_fails (dl_multilabel_margin_loss (m, cls_ok, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_SHAPE, "multilabel_margin_loss");
  assert_fails (dl_multilabel_margin_loss (m, m, DL_REDUCTION_MEAN, &error), &error, DL_ERROR_DTYPE,
                "multilabel_margin_loss");
  assert_fails (dl_cosine_embedding_loss (m, m, m, 0, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_SHAPE, "cosine_embedding_loss");
  assert_fails (dl_cosine_embedding_loss (v, v, v2, 0, DL_REDUCTION_MEAN, &error), &error,
                DL_ERROR_SHAPE, "cosine_embedding_loss");
  assert_fails (dl_triplet_margin_loss (m, m, v, 1, 2, 1e-6, FALSE, DL_REDUCTION_MEAN, &error),
                &error, DL_ERROR_SHAPE, "triplet_margin_loss");
  assert_fails (dl_cosine_similarity (m, v2, 1, 1e-8, &error), &error, DL_ERROR_SHAPE,
                "cosine_similarity");
  assert_fails (dl_cosine_similarity (ints, ints, 0, 1e-8, &error), &error, DL_ERROR_DTYPE,
                "cosine_similarity");
  assert_fails (dl_pairwise_distance (m, v2, 2, 1e-6, FALSE, &error), &error, DL_ERROR_SHAPE,
                "pairwise_distance");
  assert_fails (dl_pdist (v, 2, &error), &error, DL_ERROR_SHAPE, "pdist");
  assert_fails (dl_pdist (m, -1, &error), &error, DL_ERROR_ARGUMENT, "pdist");

  /* soft_margin_loss has no derivative for its target (as in PyTorch); with
   * grad mode off the target may require grad */
  {
    g_autoptr (DlTensor) y = T64 (DL_TEST_SHAPE (3), 1, -1, 1);
    g_autoptr (DlTensor) ok = NULL;
    gboolean was;

    g_assert_true (dl_tensor_set_requires_grad (y, TRUE, &error));
    assert_fails (dl_soft_margin_loss (v, y, DL_REDUCTION_MEAN, &error), &error, DL_ERROR_AUTOGRAD,
                  "soft_margin_loss");
    was = dl_set_grad_enabled (FALSE);
    ok = dl_soft_margin_loss (v, y, DL_REDUCTION_MEAN, &error);
    dl_set_grad_enabled (was);
    g_assert_no_error (error);
    g_assert_nonnull (ok);
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/margin-loss/values", test_values);
  for (gsize i = 0; i < G_N_ELEMENTS (grad_cases); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/margin-loss/gradcheck/%s", grad_cases[i].name);

      g_test_add_data_func (path, &grad_cases[i], dl_test_gradcheck);
    }
  g_test_add_func ("/margin-loss/modules", test_modules);
  g_test_add_func ("/margin-loss/errors", test_errors);
  return g_test_run ();
}
