/* test-ddp.c: DlDistributedDataParallel from C, run by `mpirun -np 2`.
 *
 * Each rank builds a two-layer perceptron from its own seed, wraps it in
 * DlDistributedDataParallel (which copies rank 0's weights) and trains it
 * on its half of every batch; it also trains by itself a replica built
 * from rank 0's seed on the whole batches. The weights must end equal
 * within float32 tolerance. Prints "rank R: ok" and exits 0 on success.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <stdlib.h>

#include <dl.h>

static DlModule *
make_net (guint64 seed, GError **error)
{
  g_autoptr (DlSequential) net = NULL;
  g_autoptr (DlLinear) fc1 = NULL;
  g_autoptr (DlLinear) fc2 = NULL;
  g_autoptr (DlModule) relu = NULL;

  dl_manual_seed (seed);
  if (!(fc1 = dl_linear_new (6, 16, TRUE, error)) || !(fc2 = dl_linear_new (16, 3, TRUE, error)))
    return NULL;
  relu = g_object_new (DL_TYPE_RELU, NULL);
  net = g_object_new (DL_TYPE_SEQUENTIAL, NULL);
  dl_sequential_append (net, DL_MODULE (fc1));
  dl_sequential_append (net, relu);
  dl_sequential_append (net, DL_MODULE (fc2));
  return DL_MODULE (g_steal_pointer (&net));
}

/* one SGD step of @net on (@x, @y): mean squared error */
static gboolean
step (DlModule *net, DlOptimizer *opt, DlTensor *x, DlTensor *y, GError **error)
{
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) sq = NULL;
  g_autoptr (DlTensor) loss = NULL;

  dl_optimizer_zero_grad (opt, TRUE);
  return (out = dl_module_forward (net, x, error)) && (diff = dl_tensor_sub (out, y, error))
         && (sq = dl_tensor_mul (diff, diff, error)) && (loss = dl_tensor_mean (sq, error))
         && dl_tensor_backward (loss, NULL, FALSE, FALSE, error) && dl_optimizer_step (opt, error);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlProcessGroup) group = NULL;
  g_autoptr (DlModule) net = NULL;
  g_autoptr (DlModule) reference = NULL;
  g_autoptr (DlDistributedDataParallel) ddp = NULL;
  g_autoptr (DlOptimizer) opt = NULL;
  g_autoptr (DlOptimizer) ref_opt = NULL;
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (GPtrArray) ref_params = NULL;
  gint rank, size;

  if (!(group = dl_distributed_new_process_group ("mpi", NULL, -1, -1, 60, &error)))
    goto fail;
  rank = dl_process_group_get_rank (group);
  size = dl_process_group_get_size (group);
  if (!(net = make_net (100 + rank, &error)) || !(reference = make_net (100, &error))
      || !(ddp = dl_distributed_data_parallel_new (net, group, &error)))
    goto fail;
  params = dl_module_parameters (DL_MODULE (ddp));
  ref_params = dl_module_parameters (reference);
  if (!(opt = DL_OPTIMIZER (dl_sgd_new (params, 0.1, 0.9, 0, 0, FALSE, &error)))
      || !(ref_opt = DL_OPTIMIZER (dl_sgd_new (ref_params, 0.1, 0.9, 0, 0, FALSE, &error))))
    goto fail;
  dl_manual_seed (7);
  for (gint i = 0; i < 4; i++)
    {
      g_autoptr (DlTensor) x = dl_randn (DL_SHAPE (8, 6), DL_DTYPE_FLOAT32, NULL, &error);
      g_autoptr (DlTensor) y
          = x ? dl_randn (DL_SHAPE (8, 3), DL_DTYPE_FLOAT32, NULL, &error) : NULL;
      g_autoptr (DlTensor) xh = NULL;
      g_autoptr (DlTensor) yh = NULL;

      if (!y || !(xh = dl_tensor_narrow (x, 0, rank * 8 / size, 8 / size, &error))
          || !(yh = dl_tensor_narrow (y, 0, rank * 8 / size, 8 / size, &error))
          || !step (DL_MODULE (ddp), opt, xh, yh, &error)
          || !step (reference, ref_opt, x, y, &error))
        goto fail;
    }
  for (guint i = 0; i < params->len; i++)
    {
      g_autoptr (GBytes) a = dl_tensor_to_bytes (g_ptr_array_index (params, i), &error);
      g_autoptr (GBytes) b
          = a ? dl_tensor_to_bytes (g_ptr_array_index (ref_params, i), &error) : NULL;
      gsize n;
      const gfloat *pa, *pb;

      if (!b)
        goto fail;
      pa = g_bytes_get_data (a, &n);
      pb = g_bytes_get_data (b, NULL);
      for (gsize j = 0; j < n / sizeof (gfloat); j++)
        if (fabsf (pa[j] - pb[j]) > 1e-5f * (1 + fabsf (pb[j])))
          {
            g_printerr ("rank %d: parameter %u element %" G_GSIZE_FORMAT ": %g, expected %g\n",
                        rank, i, j, pa[j], pb[j]);
            return EXIT_FAILURE;
          }
    }
  g_print ("rank %d: ok\n", rank);
  return EXIT_SUCCESS;

fail:
  g_printerr ("test-ddp: %s\n", error->message);
  return EXIT_FAILURE;
}
