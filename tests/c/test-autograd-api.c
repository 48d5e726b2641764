/* test-autograd-api.c: dl_autograd_grad(), tensor hooks and retained
 * gradients, detach_(), anomaly mode, graphs a million nodes deep, and
 * backward passes on two threads at once.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dl.h>

#include "dl-test-utils.h"

static DlTensor *
leaf (const gdouble *v, gint64 n)
{
  g_autoptr (GError) error = NULL;
  DlTensor *x = dl_test_tensor (v, (gint64[]){ n }, 1, DL_DTYPE_FLOAT64);

  g_assert_true (dl_tensor_set_requires_grad (x, TRUE, &error));
  g_assert_no_error (error);
  return x;
}

/* grad of sum (x^2 * y) with respect to x and y, and to an intermediate;
 * .grad stays untouched */
static void
test_grad_basic (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gdouble[]){ 1, 2, 3 }, 3);
  g_autoptr (DlTensor) y = leaf ((gdouble[]){ 4, 5, 6 }, 3);
  g_autoptr (DlTensor) x2 = dl_tensor_mul (x, x, &error);
  g_autoptr (DlTensor) p = dl_tensor_mul (x2, y, &error);
  g_autoptr (DlTensor) s = dl_tensor_sum (p, &error);
  g_autoptr (GPtrArray) g = NULL;

  g = dl_autograd_grad (&s, 1, (DlTensor *[]){ x, y, x2 }, 3, NULL, 0, TRUE, FALSE, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g->len, ==, 3);
  dl_test_assert_values (g->pdata[0], (gdouble[]){ 8, 20, 36 }, 3, 0.0);
  dl_test_assert_values (g->pdata[1], (gdouble[]){ 1, 4, 9 }, 3, 0.0);
  dl_test_assert_values (g->pdata[2], (gdouble[]){ 4, 5, 6 }, 3, 0.0);
  g_assert_null (dl_tensor_get_grad (x));
  g_assert_null (dl_tensor_get_grad (y));
  g_assert_null (dl_tensor_get_grad_fn (g->pdata[0]));
  for (guint i = 0; i < g->len; i++)
    g_object_unref (g->pdata[i]);
}

/* Hessian-vector product: d/dx <d/dx sum (x^3), v> = 6 x v */
static void
test_grad_create_graph (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gdouble[]){ 1, -2, 0.5 }, 3);
  g_autoptr (DlTensor) v = dl_test_tensor ((gdouble[]){ 1, 2, 3 }, (gint64[]){ 3 }, 1,
                                           DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) c = dl_tensor_pow_scalar (x, 3, &error);
  g_autoptr (DlTensor) e = dl_tensor_exp (x, &error);
  g_autoptr (DlTensor) ce = dl_tensor_add (c, e, &error);
  g_autoptr (DlTensor) s = dl_tensor_sum (ce, &error);
  g_autoptr (GPtrArray) g = NULL;
  g_autoptr (GPtrArray) h = NULL;
  g_autoptr (DlTensor) gv = NULL;
  g_autoptr (DlTensor) gvs = NULL;

  /* create_graph needs retain_graph (PyTorch's default for it): the second
   * pass goes through exp's node, whose saved output it needs */
  g = dl_autograd_grad (&s, 1, &x, 1, NULL, 0, TRUE, TRUE, FALSE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (dl_tensor_get_grad_fn (g->pdata[0]));
  gv = dl_tensor_mul (g->pdata[0], v, &error);
  gvs = dl_tensor_sum (gv, &error);
  h = dl_autograd_grad (&gvs, 1, &x, 1, NULL, 0, FALSE, FALSE, FALSE, &error);
  g_assert_no_error (error);
  /* (6 x + e^x) v */
  dl_test_assert_values (h->pdata[0],
                         (gdouble[]){ (6 + exp (1)) * 1, (-12 + exp (-2)) * 2, (3 + exp (0.5)) * 3 },
                         3, 1e-12);
  g_object_unref (g->pdata[0]);
  g_object_unref (h->pdata[0]);
}

static void
test_grad_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gdouble[]){ 1, 2 }, 2);
  g_autoptr (DlTensor) z = leaf ((gdouble[]){ 1, 2 }, 2);
  g_autoptr (DlTensor) c = dl_test_tensor ((gdouble[]){ 1, 2 }, (gint64[]){ 2 }, 1,
                                           DL_DTYPE_FLOAT64);
  g_autoptr (DlTensor) y = dl_tensor_mul (x, x, &error);
  g_autoptr (DlTensor) s = dl_tensor_sum (y, &error);
  g_autoptr (DlTensor) wrong = dl_test_tensor ((gdouble[]){ 1, 2, 3 }, (gint64[]){ 3 }, 1,
                                               DL_DTYPE_FLOAT64);
  g_autoptr (GPtrArray) g = NULL;

  /* a non-scalar output needs a grad_output */
  g_assert_null (dl_autograd_grad (&y, 1, &x, 1, NULL, 0, TRUE, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "scalar outputs"));
  g_clear_error (&error);
  /* a grad_output of the wrong shape names both shapes */
  g_assert_null (dl_autograd_grad (&y, 1, &x, 1, &wrong, 1, TRUE, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "[3]"));
  g_assert_nonnull (strstr (error->message, "[2]"));
  g_clear_error (&error);
  /* an input the output does not depend on */
  g_assert_null (dl_autograd_grad (&s, 1, &z, 1, NULL, 0, TRUE, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "allow_unused"));
  g_clear_error (&error);
  g = dl_autograd_grad (&s, 1, (DlTensor *[]){ z, x }, 2, NULL, 0, TRUE, FALSE, TRUE, &error);
  g_assert_no_error (error);
  g_assert_null (g->pdata[0]);
  dl_test_assert_values (g->pdata[1], (gdouble[]){ 2, 4 }, 2, 0.0);
  g_object_unref (g->pdata[1]);
  /* an input that does not require grad */
  g_assert_null (dl_autograd_grad (&s, 1, &c, 1, NULL, 0, TRUE, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_clear_error (&error);
  /* twice without retain_graph */
  g_assert_nonnull ((g_ptr_array_unref (g), g = dl_autograd_grad (&s, 1, &x, 1, NULL, 0, FALSE,
                                                                  FALSE, FALSE, &error)));
  g_object_unref (g->pdata[0]);
  g_assert_null (dl_autograd_grad (&s, 1, &x, 1, NULL, 0, FALSE, FALSE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "second time"));
}

static DlTensor *
times_ten (DlTensor *grad, gpointer user_data, GError **error)
{
  (*(gint *)user_data)++;
  return dl_tensor_mul_scalar (grad, 10, error);
}

static DlTensor *
wrong_shape (DlTensor *grad, gpointer user_data, GError **error)
{
  return dl_zeros ((gint64[]){ 5 }, 1, DL_DTYPE_FLOAT64, NULL, error);
}

static DlTensor *
failing (DlTensor *grad, gpointer user_data, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "no thanks");
  return NULL;
}

static void
count_free (gpointer data)
{
  (*(gint *)data) += 100;
}

/* hooks on a non-leaf and a leaf, retain_grad in registration order, and
 * removal */
static void
test_hooks (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gdouble[]){ 1, 1 }, 2);
  g_autoptr (DlTensor) y = dl_tensor_mul_scalar (x, 2, &error);
  g_autoptr (DlTensor) z = dl_tensor_mul_scalar (y, 3, &error);
  g_autoptr (DlTensor) s = dl_tensor_sum (z, &error);
  gint calls = 0, leaf_calls = 0;
  guint id, leaf_id;

  g_assert_true (dl_tensor_retain_grad (y, &error));
  g_assert_true (dl_tensor_get_retains_grad (y));
  id = dl_tensor_register_hook (y, times_ten, &calls, count_free, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (id, >, 0);
  leaf_id = dl_tensor_register_hook (x, times_ten, &leaf_calls, NULL, &error);
  g_assert_true (dl_tensor_backward (s, NULL, TRUE, FALSE, &error));
  g_assert_no_error (error);
  /* retained before the hook: 3; the hook makes 30, x gets 60, then x's
   * hook makes 600 */
  dl_test_assert_values (dl_tensor_get_grad (y), (gdouble[]){ 3, 3 }, 2, 0.0);
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 600, 600 }, 2, 0.0);
  g_assert_cmpint (calls, ==, 1);
  g_assert_cmpint (leaf_calls, ==, 1);

  g_assert_true (dl_autograd_remove_hook (id));
  g_assert_cmpint (calls, ==, 101); /* notify ran */
  g_assert_false (dl_autograd_remove_hook (id));
  g_assert_true (dl_autograd_remove_hook (leaf_id));
  dl_tensor_set_grad (x, NULL, NULL);
  g_assert_true (dl_tensor_backward (s, NULL, TRUE, FALSE, &error));
  dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 6, 6 }, 2, 0.0);
  dl_test_assert_values (dl_tensor_get_grad (y), (gdouble[]){ 6, 6 }, 2, 0.0);

  /* a hook that changes the shape, and one that fails */
  id = dl_tensor_register_hook (y, wrong_shape, NULL, NULL, &error);
  g_assert_false (dl_tensor_backward (s, NULL, TRUE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "changed the size"));
  g_clear_error (&error);
  dl_autograd_remove_hook (id);
  dl_tensor_register_hook (y, failing, NULL, NULL, &error);
  g_assert_false (dl_tensor_backward (s, NULL, TRUE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "no thanks"));
  g_clear_error (&error);

  /* not on a tensor that does not require grad */
  {
    g_autoptr (DlTensor) c = dl_test_tensor ((gdouble[]){ 1 }, (gint64[]){ 1 }, 1,
                                             DL_DTYPE_FLOAT64);
    gint freed = 0;

    g_assert_cmpuint (dl_tensor_register_hook (c, times_ten, &freed, count_free, &error), ==, 0);
    g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
    g_assert_cmpint (freed, ==, 100);
    g_clear_error (&error);
    g_assert_false (dl_tensor_retain_grad (c, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  }
}

/* the hooks' data is freed with the graph, and no hook keeps the tensors
 * or the graph alive */
static void
test_hooks_no_cycles (void)
{
  g_autoptr (GError) error = NULL;
  DlTensor *x = leaf ((gdouble[]){ 1, 2 }, 2);
  DlTensor *y = dl_tensor_mul (x, x, &error);
  DlNode *fn = dl_tensor_get_grad_fn (y);
  gint calls = 0;
  gpointer wx = x, wy = y, wfn = fn;

  g_object_add_weak_pointer (G_OBJECT (x), &wx);
  g_object_add_weak_pointer (G_OBJECT (y), &wy);
  g_object_add_weak_pointer (G_OBJECT (fn), &wfn);
  dl_tensor_register_hook (y, times_ten, &calls, count_free, &error);
  dl_tensor_register_hook (x, times_ten, &calls, count_free, &error);
  g_assert_true (dl_tensor_retain_grad (y, &error));
  g_object_unref (y);
  g_assert_null (wy);
  g_assert_null (wfn);
  g_assert_cmpint (calls, ==, 100);
  g_object_unref (x);
  g_assert_null (wx);
  g_assert_cmpint (calls, ==, 200);
}

static void
test_detach_ (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gdouble[]){ 1, 2 }, 2);
  g_autoptr (DlTensor) y = dl_tensor_mul (x, x, &error);
  g_autoptr (DlTensor) v = dl_tensor_narrow (x, 0, 0, 1, &error);

  g_assert_true (dl_tensor_detach_ (y, &error));
  g_assert_null (dl_tensor_get_grad_fn (y));
  g_assert_false (dl_tensor_get_requires_grad (y));
  g_assert_true (dl_tensor_is_leaf (y));
  g_assert_false (dl_tensor_detach_ (v, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "views"));
}

static void
test_anomaly (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gdouble[]){ 0, 1 }, 2);
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) s = NULL;

  dl_autograd_set_detect_anomaly (TRUE);
  g_assert_true (dl_autograd_is_anomaly_enabled ());
  r = dl_tensor_sqrt (x, &error);
  z = dl_tensor_mul_scalar (r, 0, &error);
  s = dl_tensor_sum (z, &error);
  g_assert_false (dl_tensor_backward (s, NULL, TRUE, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_AUTOGRAD);
  g_assert_nonnull (strstr (error->message, "SqrtBackward0"));
  g_assert_nonnull (strstr (error->message, "nan"));
  g_clear_error (&error);
  dl_autograd_set_detect_anomaly (FALSE);
  /* off: the NaN goes through, as in PyTorch */
  g_assert_true (dl_tensor_backward (s, NULL, TRUE, FALSE, &error));
  {
    g_autofree gdouble *g = dl_test_values (dl_tensor_get_grad (x));
    g_assert_true (isnan (g[0]));
    g_assert_cmpfloat (g[1], ==, 0);
  }
}

/* y = y * 1.0 a million times: builds, backpropagates and frees without
 * recursion (a recursive free overflows the stack long before) */
static void
test_deep_chain (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = leaf ((gdouble[]){ 1, 2 }, 2);
  for (gint pass = 0; pass < 2; pass++)
    {
      /* with backward, then only dropped */
      const gint n = pass == 0 ? 1000000 : 200000;
      DlTensor *y = g_object_ref (x);
      g_autoptr (DlTensor) s = NULL;

      for (gint i = 0; i < n; i++)
        {
          DlTensor *next = dl_tensor_mul_scalar (y, 1.0, &error);
          g_assert_nonnull (next);
          g_object_unref (y);
          y = next;
        }
      if (pass == 0)
        {
          s = dl_tensor_sum (y, &error);
          g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
          g_assert_no_error (error);
          dl_test_assert_values (dl_tensor_get_grad (x), (gdouble[]){ 1, 1 }, 2, 0.0);
        }
      g_object_unref (y); /* the whole chain goes here */
    }
}

/* Two threads train the same little model on their own copies; each must
 * get what one thread alone gets. Grad mode is per thread. */
typedef struct
{
  gdouble seed;
  gdouble result[3];
  gboolean grad_was_on;
} ThreadJob;

static gpointer
thread_job (gpointer p)
{
  ThreadJob *job = p;
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) w = leaf ((gdouble[]){ job->seed, 2 * job->seed, -job->seed }, 3);

  if (job->seed > 1)
    dl_set_grad_enabled (FALSE); /* must not leak into the other thread */
  dl_set_grad_enabled (TRUE);
  for (gint step = 0; step < 200; step++)
    {
      g_autoptr (DlTensor) t = dl_tensor_tanh (w, &error);
      g_autoptr (DlTensor) e = dl_tensor_exp (t, &error);
      g_autoptr (DlTensor) s = dl_tensor_sum (e, &error);
      gboolean was;

      g_assert_true (dl_tensor_backward (s, NULL, FALSE, FALSE, &error));
      was = dl_set_grad_enabled (FALSE);
      {
        g_autoptr (DlTensor) st = dl_tensor_mul_scalar (dl_tensor_get_grad (w), 0.01, &error);
        g_assert_nonnull (dl_tensor_sub_ (w, st, &error));
      }
      dl_set_grad_enabled (was);
      dl_tensor_set_grad (w, NULL, NULL);
    }
  job->grad_was_on = dl_is_grad_enabled ();
  {
    g_autofree gdouble *v = dl_test_values (w);
    memcpy (job->result, v, sizeof job->result);
  }
  return NULL;
}

static void
test_threads (void)
{
  ThreadJob alone[2] = { { .seed = 0.5 }, { .seed = 1.5 } };
  ThreadJob together[2] = { { .seed = 0.5 }, { .seed = 1.5 } };
  GThread *threads[2];

  thread_job (&alone[0]);
  thread_job (&alone[1]);
  dl_set_grad_enabled (FALSE);
  for (gint i = 0; i < 2; i++)
    threads[i] = g_thread_new ("autograd", thread_job, &together[i]);
  for (gint i = 0; i < 2; i++)
    g_thread_join (threads[i]);
  /* the main thread's grad mode is its own */
  g_assert_false (dl_is_grad_enabled ());
  dl_set_grad_enabled (TRUE);
  for (gint i = 0; i < 2; i++)
    {
      g_assert_true (together[i].grad_was_on);
      for (gint k = 0; k < 3; k++)
        g_assert_cmpfloat (together[i].result[k], ==, alone[i].result[k]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/autograd-api/grad", test_grad_basic);
  g_test_add_func ("/autograd-api/grad-create-graph", test_grad_create_graph);
  g_test_add_func ("/autograd-api/grad-errors", test_grad_errors);
  g_test_add_func ("/autograd-api/hooks", test_hooks);
  g_test_add_func ("/autograd-api/hooks-no-cycles", test_hooks_no_cycles);
  g_test_add_func ("/autograd-api/detach-inplace", test_detach_);
  g_test_add_func ("/autograd-api/anomaly", test_anomaly);
  g_test_add_func ("/autograd-api/deep-chain", test_deep_chain);
  g_test_add_func ("/autograd-api/threads", test_threads);
  return g_test_run ();
}
