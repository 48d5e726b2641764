/* allreduce-mpi.c: MPI_Allreduce's bandwidth, for bench/allreduce.py.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mpirun -np 2 dl-bench-allreduce-mpi SIZES_MB ITERS REPEATS
 * (SIZES_MB comma-separated). For each size: a float32 buffer of ones, 3
 * warm-up in-place MPI_Allreduce SUMs, then REPEATS timed loops of ITERS
 * calls between barriers (MPI_Wtime); rank 0 prints {"MB": best seconds
 * per call, ...} as JSON on one line, as allreduce.py's workers do. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (int argc, char **argv)
{
  int rank, iters, repeats, first = 1;
  char *sizes, *save = NULL;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (argc != 4)
    {
      if (rank == 0)
        fprintf (stderr, "usage: %s SIZES_MB ITERS REPEATS\n", argv[0]);
      MPI_Finalize ();
      return 2;
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
      double best = 1e300;

      for (size_t i = 0; i < n; i++)
        buf[i] = 1.0f;
      for (int w = 0; w < 3; w++)
        MPI_Allreduce (MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      for (int r = 0; r < repeats; r++)
        {
          double start, per_call;

          MPI_Barrier (MPI_COMM_WORLD);
          start = MPI_Wtime ();
          for (int i = 0; i < iters; i++)
            MPI_Allreduce (MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
          per_call = (MPI_Wtime () - start) / iters;
          if (per_call < best)
            best = per_call;
          MPI_Barrier (MPI_COMM_WORLD);
        }
      if (rank == 0)
        printf ("%s\"%ld\": %.9g", first ? "" : ", ", mb, best);
      first = 0;
      free (buf);
    }
  if (rank == 0)
    printf ("}\n");
  free (sizes);
  MPI_Finalize ();
  return 0;
}
