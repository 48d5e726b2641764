/* allreduce-mpi.c: MPI_Allreduce's bandwidth, and libdl's MPI engine's
 * interleaved with it in the same processes, for bench/allreduce.py.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mpirun -np 2 dl-bench-allreduce-mpi SIZES_MB ITERS REPEATS [libdl]
 * (SIZES_MB comma-separated). For each size: a float32 buffer of ones, 3
 * warm-up in-place MPI_Allreduce SUMs, then REPEATS timed loops of ITERS
 * calls between barriers (MPI_Wtime); rank 0 prints {"MB": best seconds
 * per call, ...} as JSON on one line, as allreduce.py's workers do.
 *
 * With "libdl", MPI starts with MPI_THREAD_MULTIPLE (what libdl's engine
 * asks for), the default group of libdl's MPI engine joins the same
 * processes, and each repeat times a loop of MPI_Allreduce and then a loop
 * of dl_process_group_all_reduce() (synchronous, in place) on a tensor of
 * the same size, so that both see the same moments of a busy machine;
 * rank 0 prints {"MB": [MPI's best, libdl's best], ...}. The tensor is
 * filled with ones before each loop and checked after it (2^ITERS: ITERS
 * at most 100). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dl.h>

static void
mpi_loop (float *buf, size_t n, int iters)
{
  for (int i = 0; i < iters; i++)
    MPI_Allreduce (MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static int
libdl_loop (DlProcessGroup *group, DlTensor *t, int iters)
{
  for (int i = 0; i < iters; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlWork) work
          = dl_process_group_all_reduce (group, t, DL_REDUCE_OP_KIND_SUM, FALSE, &error);

      if (work == NULL)
        {
          fprintf (stderr, "all_reduce: %s\n", error->message);
          return 0;
        }
    }
  return 1;
}

/* @t, filled with ones before @iters sums over 2 ranks, holds 2^iters */
static int
check_doubled (DlTensor *t, size_t n, int iters)
{
  g_autoptr (DlTensor) last = dl_tensor_select (t, 0, (gint64)n - 1, NULL);
  double v = last ? dl_tensor_item (last, NULL) : 0, expect = 1.0;

  for (int i = 0; i < iters; i++)
    expect *= 2;
  if (v == expect)
    return 1;
  fprintf (stderr, "libdl: all_reduce gave %g, expected %g\n", v, expect);
  return 0;
}

int
main (int argc, char **argv)
{
  int rank, iters, repeats, first = 1, with_libdl, provided;
  char *sizes, *save = NULL;
  DlProcessGroup *group = NULL;

  with_libdl = argc == 5 && strcmp (argv[4], "libdl") == 0;
  if (with_libdl)
    MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (argc != 4 && !with_libdl)
    {
      if (rank == 0)
        fprintf (stderr, "usage: %s SIZES_MB ITERS REPEATS [libdl]\n", argv[0]);
      MPI_Finalize ();
      return 2;
    }
  if (with_libdl)
    {
      g_autoptr (GError) error = NULL;

      if (!dl_distributed_init_process_group ("mpi", NULL, -1, -1, 300, &error))
        {
          fprintf (stderr, "init_process_group: %s\n", error->message);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      group = dl_distributed_get_default_group ();
    }
  sizes = strdup (argv[1]);
  iters = atoi (argv[2]);
  repeats = atoi (argv[3]);
  if (rank == 0)
    printf ("{");
  for (char *tok = strtok_r (sizes, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
    {
      long mb = atol (tok);
      size_t n = (size_t)mb * 1048576 / sizeof (float);
      float *buf = malloc (n * sizeof (float));
      double best = 1e300, best_libdl = 1e300;
      g_autoptr (DlTensor) t = NULL;

      if (with_libdl)
        {
          t = dl_ones (DL_SHAPE ((gint64)n), DL_DTYPE_FLOAT32, NULL, NULL);
          if (t == NULL || !libdl_loop (group, t, 3))
            MPI_Abort (MPI_COMM_WORLD, 1);
        }

      for (size_t i = 0; i < n; i++)
        buf[i] = 1.0f;
      mpi_loop (buf, n, 3);
      for (int r = 0; r < repeats; r++)
        {
          double start, per_call;

          MPI_Barrier (MPI_COMM_WORLD);
          start = MPI_Wtime ();
          mpi_loop (buf, n, iters);
          per_call = (MPI_Wtime () - start) / iters;
          if (per_call < best)
            best = per_call;
          MPI_Barrier (MPI_COMM_WORLD);
          if (with_libdl)
            {
              if (!dl_tensor_fill_ (t, 1, NULL))
                MPI_Abort (MPI_COMM_WORLD, 1);
              MPI_Barrier (MPI_COMM_WORLD);
              start = MPI_Wtime ();
              if (!libdl_loop (group, t, iters))
                MPI_Abort (MPI_COMM_WORLD, 1);
              per_call = (MPI_Wtime () - start) / iters;
              if (per_call < best_libdl)
                best_libdl = per_call;
              MPI_Barrier (MPI_COMM_WORLD);
              if (!check_doubled (t, n, iters))
                MPI_Abort (MPI_COMM_WORLD, 1);
            }
        }
      if (rank == 0 && with_libdl)
        printf ("%s\"%ld\": [%.9g, %.9g]", first ? "" : ", ", mb, best, best_libdl);
      else if (rank == 0)
        printf ("%s\"%ld\": %.9g", first ? "" : ", ", mb, best);
      first = 0;
      free (buf);
    }
  if (rank == 0)
    printf ("}\n");
  free (sizes);
  if (with_libdl)
    {
      g_autoptr (GError) error = NULL;

      if (!dl_distributed_destroy_process_group (&error))
        fprintf (stderr, "destroy_process_group: %s\n", error->message);
    }
  MPI_Finalize ();
  return 0;
}
