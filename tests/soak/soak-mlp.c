/* soak-mlp.c: trains a 784-256-10 MLP (Linear, ReLU, Linear, cross-entropy,
 * SGD with momentum) on random batches for many steps and prints the
 * process's resident set size every @every steps, as "rss STEP KIB", for
 * tests/soak/soak.py to judge.
 *
 * Usage: soak-mlp STEPS EVERY
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <dl.h>

/* The resident set size in KiB, from /proc/self/statm. */
static glong
rss_kib (void)
{
  glong pages = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");

  if (f == NULL)
    return -1;
  if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
    resident = -1;
  fclose (f);
  return resident < 0 ? -1 : resident * (sysconf (_SC_PAGESIZE) / 1024);
}

static int
fail (const GError *error)
{
  g_printerr ("soak-mlp: %s\n", error->message);
  return EXIT_FAILURE;
}

int
main (int argc, char *argv[])
{
  const gint64 batch = 64;
  gint steps = argc > 1 ? atoi (argv[1]) : 10000;
  gint every = argc > 2 ? atoi (argv[2]) : 500;
  g_autoptr (GError) error = NULL;
  g_autoptr (DlSequential) net = NULL;
  g_autoptr (DlLinear) fc1 = NULL;
  g_autoptr (DlLinear) fc2 = NULL;
  g_autoptr (DlRelu) relu = dl_relu_new (FALSE);
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (DlSgd) sgd = NULL;

  if (steps <= 0 || every <= 0)
    {
      g_printerr ("usage: soak-mlp STEPS EVERY\n");
      return EXIT_FAILURE;
    }
  dl_manual_seed (14);
  if (!(fc1 = dl_linear_new (784, 256, TRUE, &error))
      || !(fc2 = dl_linear_new (256, 10, TRUE, &error))
      || !(net = dl_sequential_new (NULL, &error)))
    return fail (error);
  dl_sequential_append (net, DL_MODULE (fc1));
  dl_sequential_append (net, DL_MODULE (relu));
  dl_sequential_append (net, DL_MODULE (fc2));
  params = dl_module_parameters (DL_MODULE (net));
  if (!(sgd = dl_sgd_new (params, 0.01, 0.9, 0.0, 0.0, FALSE, &error)))
    return fail (error);

  for (gint step = 1; step <= steps; step++)
    {
      g_autoptr (DlTensor) x = dl_randn ((gint64[]){ batch, 784 }, 2, DL_DTYPE_FLOAT32, NULL,
                                         &error);
      g_autoptr (DlTensor) y = NULL;
      g_autoptr (DlTensor) logits = NULL;
      g_autoptr (DlTensor) loss = NULL;

      if (x == NULL
          || !(y = dl_randint (0, 10, (gint64[]){ batch }, 1, DL_DTYPE_INT64, NULL, &error))
          || !(logits = dl_module_forward (DL_MODULE (net), x, &error))
          || !(loss = dl_cross_entropy (logits, y, &error)))
        return fail (error);
      dl_optimizer_zero_grad (DL_OPTIMIZER (sgd), TRUE);
      if (!dl_tensor_backward (loss, NULL, FALSE, FALSE, &error)
          || !dl_optimizer_step (DL_OPTIMIZER (sgd), &error))
        return fail (error);
      if (step % every == 0)
        g_print ("rss %d %ld\n", step, rss_kib ());
    }
  return EXIT_SUCCESS;
}
