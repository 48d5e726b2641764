/* mlp-step.c: one training step of a 784-256-256-10 MLP from C, timed.
 *
 * The same step as bench/mlp_step.py's: forward through Linear(784, 256),
 * ReLU, Linear(256, 256), ReLU, Linear(256, 10), cross-entropy against
 * integer labels, zero_grad, backward, SGD (lr 0.01, momentum 0.9) step.
 * The inputs are a fixed batch of normal values and random labels.
 *
 * Usage: mlp-step BATCH [STEPS [ROUNDS]]
 *   prints "BATCH seconds-per-step" with the least time per step over
 *   ROUNDS (5) timed loops of STEPS (100) steps, after 20 warm-up steps.
 *   bench/mlp_step.py runs it beside python3-torch.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>

#include <dl.h>

static DlModule *
make_mlp (GError **error)
{
  const gint64 sizes[] = { 784, 256, 256, 10 };
  g_autoptr (DlSequential) net = dl_sequential_new (NULL, error);

  if (net == NULL)
    return NULL;
  for (guint i = 0; i + 1 < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (DlLinear) fc = dl_linear_new (sizes[i], sizes[i + 1], TRUE, error);

      if (fc == NULL)
        return NULL;
      dl_sequential_append (net, DL_MODULE (fc));
      if (i + 2 < G_N_ELEMENTS (sizes))
        {
          g_autoptr (DlRelu) relu = dl_relu_new (FALSE);
          dl_sequential_append (net, DL_MODULE (relu));
        }
    }
  return DL_MODULE (g_steal_pointer (&net));
}

static gboolean
step (DlModule *net, DlOptimizer *opt, DlTensor *x, DlTensor *y, GError **error)
{
  g_autoptr (DlTensor) logits = NULL;
  g_autoptr (DlTensor) loss = NULL;

  if (!(logits = dl_module_forward (net, x, error))
      || !(loss = dl_cross_entropy (logits, y, error)))
    return FALSE;
  dl_optimizer_zero_grad (opt, TRUE);
  return dl_tensor_backward (loss, NULL, FALSE, FALSE, error) && dl_optimizer_step (opt, error);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlModule) net = NULL;
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (DlSgd) sgd = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  gint64 batch, steps = 100, rounds = 5;
  gdouble best = G_MAXDOUBLE;

  if (argc < 2 || (batch = g_ascii_strtoll (argv[1], NULL, 10)) <= 0)
    {
      g_printerr ("usage: mlp-step BATCH [STEPS [ROUNDS]]\n");
      return EXIT_FAILURE;
    }
  if (argc > 2)
    steps = MAX (1, g_ascii_strtoll (argv[2], NULL, 10));
  if (argc > 3)
    rounds = MAX (1, g_ascii_strtoll (argv[3], NULL, 10));

  dl_manual_seed (0);
  if (!(net = make_mlp (&error))
      || !(x = dl_randn ((gint64[]){ batch, 784 }, 2, DL_DTYPE_FLOAT32, NULL, &error))
      || !(y = dl_randint (0, 10, (gint64[]){ batch }, 1, DL_DTYPE_INT64, NULL, &error)))
    goto failed;
  params = dl_module_parameters (net);
  if (!(sgd = dl_sgd_new (params, 0.01, 0.9, 0.0, 0.0, FALSE, &error)))
    goto failed;

  for (gint i = 0; i < 20; i++)
    if (!step (net, DL_OPTIMIZER (sgd), x, y, &error))
      goto failed;
  for (gint64 r = 0; r < rounds; r++)
    {
      gint64 t0 = g_get_monotonic_time ();

      for (gint64 i = 0; i < steps; i++)
        if (!step (net, DL_OPTIMIZER (sgd), x, y, &error))
          goto failed;
      best = MIN (best, (g_get_monotonic_time () - t0) / 1e6 / steps);
    }
  g_print ("%" G_GINT64_FORMAT " %.9f\n", batch, best);
  return EXIT_SUCCESS;

failed:
  g_printerr ("mlp-step: %s\n", error->message);
  return EXIT_FAILURE;
}
