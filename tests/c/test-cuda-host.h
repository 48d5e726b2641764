/* test-cuda-host.h: what the host tests of the CUDA module's kernel
 * bodies (test-cuda-random, -pool, -norm) share: the CPU backend's
 * context they compare with, a seeded GRand, and a shuffled order in
 * which to run a kernel's "threads" (the GPU runs them in none).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include <algorithm>
#include <vector>

#include "backends/dl-backend.h"

static DlBackendContext cpu_ctx;
static GRand *rng;

/* 0 .. n - 1 in a random order */
static std::vector<int64_t>
shuffled (int64_t n)
{
  std::vector<int64_t> order (n);

  for (int64_t i = 0; i < n; i++)
    order[i] = i;
  for (int64_t i = n - 1; i > 0; i--)
    std::swap (order[i], order[g_rand_int_range (rng, 0, (gint32)i + 1)]);
  return order;
}

/* g_test_init, the GRand and the CPU backend's context */
static void
test_cuda_host_init (int *argc, char ***argv)
{
  DlDeviceTypeInfo info;

  g_test_init (argc, argv, NULL);
  rng = g_rand_new_with_seed (20261128);
  dl_cpu_get_device_type_info (&info);
  cpu_ctx.backend = info.backend;
  cpu_ctx.device_index = -1;
  if (info.context_init && !info.context_init (&cpu_ctx, NULL))
    g_error ("the CPU backend's context_init failed");
}

/* runs the tests added since test_cuda_host_init, frees the GRand */
static int
test_cuda_host_run (void)
{
  int ret = g_test_run ();

  g_rand_free (rng);
  return ret;
}
