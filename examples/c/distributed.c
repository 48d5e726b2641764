/* distributed.c: data-parallel training from C, with a process group.
 *
 * Every rank (process) holds its own shard of the data: points x in R^3
 * with targets y = x . (2, -1, 0.5) + 1, drawn from a generator seeded by
 * the rank. The ranks start from the same weights (rank 0's, broadcast),
 * and at every step each computes the gradients of its shard's loss, the
 * ranks average them (asynchronous all_reduces, one per parameter,
 * waited for together) and each applies the same SGD step: the weights
 * stay identical everywhere, and they are those one process would reach
 * on all the shards at once. This is what DistributedDataParallel does.
 *
 * Run with the MPI engine under mpirun:
 *   mpirun -np 2 ./dl-example-distributed
 *
 * Build (from an installed libdl):
 *   cc distributed.c $(pkg-config --cflags --libs dl-1.0) -o distributed
 *
 * Exits with status 0 when the weights came out the same on every rank
 * and close to the true ones; 77 when the MPI engine is not there.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <stdlib.h>

#include <dl.h>

static int
fail (gint rank, const GError *error)
{
  g_printerr ("distributed (rank %d): %s\n", rank, error->message);
  return EXIT_FAILURE;
}

/* This rank's shard: @n points and their targets */
static gboolean
make_shard (gint rank, gint64 n, DlTensor **x, DlTensor **y, GError **error)
{
  const gdouble w[3] = { 2, -1, 0.5 };
  g_autoptr (DlGenerator) gen = dl_generator_new (NULL, error);
  g_autoptr (DlTensor) true_w = NULL;
  g_autoptr (DlTensor) xw = NULL;

  if (gen == NULL)
    return FALSE;
  dl_generator_manual_seed (gen, 1000 + rank);
  if (!(*x = dl_randn_gen (DL_SHAPE (n, 3), DL_DTYPE_FLOAT32, NULL, gen, error)))
    return FALSE;
  true_w = dl_tensor_new_from_data ((const gfloat[]){ w[0], w[1], w[2] }, 3 * sizeof (gfloat),
                                    DL_SHAPE (3, 1), DL_DTYPE_FLOAT32, error);
  return true_w && (xw = dl_tensor_matmul (*x, true_w, error))
         && (*y = dl_tensor_add_scalar (xw, 1.0, error));
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlLinear) model = NULL;
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (DlSgd) sgd = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  DlProcessGroup *group;
  gint rank, size;
  gdouble first = 0, last = 0;

  if (!dl_distributed_is_backend_available ("mpi"))
    {
      g_print ("distributed: the MPI engine is not available; skipped\n");
      return 77;
    }
  /* ranks and world size come from mpirun */
  if (!dl_distributed_init_process_group ("mpi", NULL, -1, -1, 60, &error))
    return fail (-1, error);
  group = dl_distributed_get_default_group ();
  rank = dl_process_group_get_rank (group);
  size = dl_process_group_get_size (group);

  dl_manual_seed (rank); /* a different initialisation on every rank ... */
  if (!(model = dl_linear_new (3, 1, TRUE, &error)) || !make_shard (rank, 64, &x, &y, &error))
    return fail (rank, error);
  params = dl_module_parameters (DL_MODULE (model));
  /* ... replaced by rank 0's */
  for (guint i = 0; i < params->len; i++)
    {
      g_autoptr (DlWork) work
          = dl_process_group_broadcast (group, g_ptr_array_index (params, i), 0, FALSE, &error);

      if (!work)
        return fail (rank, error);
    }
  if (!(sgd = dl_sgd_new (params, 0.1, 0.0, 0.0, 0.0, FALSE, &error)))
    return fail (rank, error);

  for (gint step = 0; step < 100; step++)
    {
      g_autoptr (DlTensor) out = dl_module_forward (DL_MODULE (model), x, &error);
      g_autoptr (DlTensor) loss = out ? dl_mse_loss (out, y, DL_REDUCTION_MEAN, &error) : NULL;
      g_autoptr (GPtrArray) works = g_ptr_array_new_with_free_func (g_object_unref);

      dl_optimizer_zero_grad (DL_OPTIMIZER (sgd), TRUE);
      if (!loss || !dl_tensor_backward (loss, NULL, FALSE, FALSE, &error))
        return fail (rank, error);
      /* average the gradients across the ranks: all the all_reduces are
       * started, then waited for */
      for (guint i = 0; i < params->len; i++)
        {
          DlTensor *grad = dl_tensor_get_grad (g_ptr_array_index (params, i));
          DlWork *work
              = dl_process_group_all_reduce (group, grad, DL_REDUCE_OP_KIND_AVG, TRUE, &error);

          if (!work)
            return fail (rank, error);
          g_ptr_array_add (works, work);
        }
      for (guint i = 0; i < works->len; i++)
        if (!dl_work_wait (g_ptr_array_index (works, i), &error))
          return fail (rank, error);
      if (!dl_optimizer_step (DL_OPTIMIZER (sgd), &error))
        return fail (rank, error);
      last = dl_tensor_item (loss, &error);
      if (step == 0)
        first = last;
    }

  /* every rank must hold the same weights: gather them and compare */
  {
    DlTensor *weight = g_ptr_array_index (params, 0);
    g_autoptr (DlTensor) all = dl_zeros (DL_SHAPE (size, 3), DL_DTYPE_FLOAT32, NULL, &error);
    g_autoptr (DlTensor) flat = all ? dl_tensor_reshape (weight, DL_SHAPE (3), &error) : NULL;
    g_autoptr (DlWork) work = NULL;
    g_autoptr (GBytes) bytes = NULL;
    const gfloat *w;

    if (!flat || !(work = dl_process_group_all_gather_into_tensor (group, all, flat, FALSE, &error))
        || !(bytes = dl_tensor_to_bytes (all, &error)))
      return fail (rank, error);
    w = g_bytes_get_data (bytes, NULL);
    for (gint r = 1; r < size; r++)
      for (gint j = 0; j < 3; j++)
        if (w[3 * r + j] != w[j])
          {
            g_printerr ("distributed: rank %d's weight %d is %g, rank 0's %g\n", r, j, w[3 * r + j],
                        w[j]);
            return EXIT_FAILURE;
          }
    if (rank == 0)
      g_print ("%d ranks: loss %.4f -> %.4f on rank 0, weights (%.3f, %.3f, %.3f) on all\n", size,
               first, last, w[0], w[1], w[2]);
    if (fabs (w[0] - 2) > 0.05 || fabs (w[1] + 1) > 0.05 || fabs (w[2] - 0.5) > 0.05)
      {
        g_printerr ("distributed: the weights did not converge\n");
        return EXIT_FAILURE;
      }
  }
  if (!dl_distributed_destroy_process_group (&error))
    return fail (rank, error);
  return EXIT_SUCCESS;
}
