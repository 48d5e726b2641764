/* test-threads.c: eight threads train a model each at the same time,
 * sharing the allocator, the generators' registry and the OpenMP pool;
 * every thread's result must equal the same training run alone. Under a
 * ThreadSanitizer build (tools/run-sanitized-tests.sh thread) it is the
 * race detector's workload.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dl-test-utils.h"

#define N_THREADS 8
#define N_STEPS 12
#define BATCH 512
#define N_IN 64
#define N_HIDDEN 32
#define N_OUT 4

typedef struct
{
  guint64 seed;
  DlSequential *net;  /* (owned) */
  DlTensor *x, *y;    /* (owned) */
  gdouble losses[N_STEPS];
  GPtrArray *params;  /* (owned) the trained parameters */
  GError *error;
} Job;

/* A model and its data from a generator of its own: the same seed gives
 * the same job in any thread. */
static void
job_init (Job *job, guint64 seed)
{
  g_autoptr (DlGenerator) gen = NULL;
  g_autoptr (DlLinear) fc1 = NULL;
  g_autoptr (DlLinear) fc2 = NULL;
  g_autoptr (DlRelu) relu = dl_relu_new (FALSE);
  GError **error = &job->error;
  gboolean was_enabled;

  memset (job, 0, sizeof *job);
  job->seed = seed;
  if (!(gen = dl_generator_new (NULL, error)))
    return;
  dl_generator_manual_seed (gen, seed);
  if (!(fc1 = dl_linear_new (N_IN, N_HIDDEN, TRUE, error))
      || !(fc2 = dl_linear_new (N_HIDDEN, N_OUT, TRUE, error))
      || !(job->net = dl_sequential_new (NULL, error)))
    return;
  dl_sequential_append (job->net, DL_MODULE (fc1));
  dl_sequential_append (job->net, DL_MODULE (relu));
  dl_sequential_append (job->net, DL_MODULE (fc2));
  /* the layers' own init drew from the global generator: redraw them
   * from this job's */
  job->params = dl_module_parameters (DL_MODULE (job->net));
  was_enabled = dl_set_grad_enabled (FALSE);
  for (guint i = 0; i < job->params->len && !job->error; i++)
    dl_tensor_uniform_gen_ (g_ptr_array_index (job->params, i), -0.2, 0.2, gen, error);
  dl_set_grad_enabled (was_enabled);
  if (job->error)
    return;
  if (!(job->x = dl_randn_gen ((gint64[]){ BATCH, N_IN }, 2, DL_DTYPE_FLOAT32, NULL, gen, error)))
    return;
  job->y = dl_randint_gen (0, N_OUT, (gint64[]){ BATCH }, 1, DL_DTYPE_INT64, NULL, gen, error);
}

static void
job_clear (Job *job)
{
  g_clear_object (&job->net);
  g_clear_object (&job->x);
  g_clear_object (&job->y);
  g_clear_pointer (&job->params, g_ptr_array_unref);
  g_clear_error (&job->error);
}

/* Adam on cross-entropy: forward, backward and step, N_STEPS times. */
static gpointer
job_train (gpointer data)
{
  Job *job = data;
  GError **error = &job->error;
  g_autoptr (DlAdam) adam = NULL;

  if (job->error || !(adam = dl_adam_new (job->params, 0.01, 0.9, 0.999, 1e-8, 0, FALSE, error)))
    return NULL;
  for (gint step = 0; step < N_STEPS; step++)
    {
      g_autoptr (DlTensor) logits = NULL;
      g_autoptr (DlTensor) loss = NULL;

      if (!(logits = dl_module_forward (DL_MODULE (job->net), job->x, error))
          || !(loss = dl_cross_entropy (logits, job->y, error)))
        return NULL;
      dl_optimizer_zero_grad (DL_OPTIMIZER (adam), TRUE);
      if (!dl_tensor_backward (loss, NULL, FALSE, FALSE, error)
          || !dl_optimizer_step (DL_OPTIMIZER (adam), error))
        return NULL;
      job->losses[step] = dl_tensor_item (loss, error);
    }
  return NULL;
}

static void
test_threads_train_as_alone (void)
{
  Job alone[N_THREADS], together[N_THREADS];
  GThread *threads[N_THREADS];

  for (gint i = 0; i < N_THREADS; i++)
    {
      job_init (&alone[i], 100 + i);
      g_assert_no_error (alone[i].error);
      job_train (&alone[i]);
      g_assert_no_error (alone[i].error);
      job_init (&together[i], 100 + i);
      g_assert_no_error (together[i].error);
    }
  for (gint i = 0; i < N_THREADS; i++)
    threads[i] = g_thread_new ("train", job_train, &together[i]);
  for (gint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);
  for (gint i = 0; i < N_THREADS; i++)
    {
      g_assert_no_error (together[i].error);
      /* the loss fell, and every step and parameter is the lone run's */
      g_assert_cmpfloat (alone[i].losses[N_STEPS - 1], <, alone[i].losses[0]);
      for (gint s = 0; s < N_STEPS; s++)
        g_assert_cmpfloat (together[i].losses[s], ==, alone[i].losses[s]);
      for (guint p = 0; p < alone[i].params->len; p++)
        {
          DlTensor *a = g_ptr_array_index (alone[i].params, p);
          g_autofree gdouble *expected = dl_test_values (a);

          dl_test_assert_values (g_ptr_array_index (together[i].params, p), expected,
                                 dl_tensor_numel (a), 0.0);
        }
      job_clear (&alone[i]);
      job_clear (&together[i]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/threads/train-as-alone", test_threads_train_as_alone);
  return g_test_run ();
}
