/* test-cuda-pool.cpp: the CUDA module's max pooling bodies
 * (libdl/backends/cuda/dl-cuda-pool.cuh) run on the host, one output (or
 * input element) at a time in a shuffled order, and compared bit for bit
 * with the CPU backend's max_pool2d and max_pool2d_backward over random
 * geometries (strides, padding, dilation, ceil mode's extra windows) and
 * inputs with ties and NaNs, with indices and without.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "backends/cuda/dl-cuda-pool.cuh"
#include "backends/dl-backend.h"
#include "test-cuda-host.h"

/* torch's output size, ceil mode's last window kept only when it starts
 * inside the image or the left padding */
static int64_t
out_size (int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode)
{
  int64_t span = in + 2 * p - d * (k - 1) - 1, out;

  if (span < 0)
    return 0;
  out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p)
    out--;
  return out;
}

template <typename T>
static void
check_geometry (const DlConvGeometry &g, DlDType dt)
{
  const int64_t n_in = g.n * g.c * g.h * g.w, n_out = g.n * g.c * g.out_h * g.out_w;
  std::vector<T> image (n_in), cpu_out (n_out + 1, (T)7), gpu_out (n_out + 1, (T)7);
  std::vector<int64_t> cpu_idx (n_out + 1, 5), gpu_idx (n_out + 1, 5);
  std::vector<T> grad_out (n_out), cpu_gi (n_in + 1, (T)3), gpu_gi (n_in + 1, (T)3);

  for (auto &v : image)
    {
      int r = g_rand_int_range (rng, 0, 40);

      /* few distinct values: many ties; some NaNs and infinities */
      v = r == 0 ? (T)NAN : r == 1 ? (T)-INFINITY : (T)(r % 7) - 3;
    }
  for (auto &v : grad_out)
    v = (T)g_rand_double_range (rng, -2, 2);

  cpu_ctx.backend->max_pool2d (&cpu_ctx, &g, image.data (), cpu_out.data (), cpu_idx.data (), dt);
  for (int64_t o : shuffled (n_out))
    dl_cuda_max_pool_elem<T> (g, image.data (), gpu_out.data (), gpu_idx.data (), o);
  g_assert_true (memcmp (cpu_out.data (), gpu_out.data (), cpu_out.size () * sizeof (T)) == 0);
  g_assert_true (cpu_idx == gpu_idx);

  /* without indices (a pooling that records no gradient): the same maxima */
  {
    std::vector<T> cpu_bare (n_out + 1, (T)7), gpu_bare (n_out + 1, (T)7);

    cpu_ctx.backend->max_pool2d (&cpu_ctx, &g, image.data (), cpu_bare.data (), NULL, dt);
    for (int64_t o : shuffled (n_out))
      dl_cuda_max_pool_elem<T> (g, image.data (), gpu_bare.data (), (int64_t *)NULL, o);
    g_assert_true (memcmp (cpu_out.data (), cpu_bare.data (), cpu_out.size () * sizeof (T)) == 0);
    g_assert_true (memcmp (cpu_out.data (), gpu_bare.data (), cpu_out.size () * sizeof (T)) == 0);
  }

  cpu_ctx.backend->max_pool2d_backward (&cpu_ctx, &g, grad_out.data (), cpu_idx.data (),
                                        cpu_gi.data (), dt);
  for (int64_t e : shuffled (n_in))
    dl_cuda_max_pool_backward_elem<T> (g, grad_out.data (), gpu_idx.data (), gpu_gi.data (), e);
  g_assert_true (memcmp (cpu_gi.data (), gpu_gi.data (), cpu_gi.size () * sizeof (T)) == 0);
}

static void
test_max_pool (void)
{
  int checked = 0, overlapping = 0;

  for (int t = 0; t < 600; t++)
    {
      DlConvGeometry g = {};
      bool ceil_mode = g_rand_boolean (rng);

      g.n = g_rand_int_range (rng, 1, 3);
      g.c = g_rand_int_range (rng, 1, 4);
      g.h = g_rand_int_range (rng, 1, 14);
      g.w = g_rand_int_range (rng, 1, 14);
      g.kh = g_rand_int_range (rng, 1, 5);
      g.kw = g_rand_int_range (rng, 1, 5);
      g.sh = g_rand_int_range (rng, 1, 4);
      g.sw = g_rand_int_range (rng, 1, 4);
      g.ph = g_rand_int_range (rng, 0, g.kh / 2 + 1);
      g.pw = g_rand_int_range (rng, 0, g.kw / 2 + 1);
      g.dh = g_rand_int_range (rng, 1, 3);
      g.dw = g_rand_int_range (rng, 1, 3);
      g.out_h = out_size (g.h, g.kh, g.sh, g.ph, g.dh, ceil_mode);
      g.out_w = out_size (g.w, g.kw, g.sw, g.pw, g.dw, ceil_mode);
      if (g.out_h < 1 || g.out_w < 1)
        continue;
      if (t % 2)
        check_geometry<float> (g, DL_DTYPE_FLOAT32);
      else
        check_geometry<double> (g, DL_DTYPE_FLOAT64);
      checked++;
      overlapping += g.sh < g.kh || g.sw < g.kw;
    }
  /* the gradient's sums of several outputs were exercised */
  g_assert_cmpint (overlapping, >, 100);
  g_test_message ("%d geometries identical, %d with overlapping windows", checked, overlapping);
}

/* a 4x4 image, 2x2 windows of stride 1: the maximum 9 in the middle is
 * in four windows, and its gradient sums theirs */
static void
test_max_pool_by_hand (void)
{
  DlConvGeometry g = {};
  const double image[16] = { 1, 2, 3, 4, 5, 9, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6 };
  double out[9], grad_out[9], gi[16];
  int64_t idx[9];

  g.n = g.c = 1;
  g.h = g.w = 4;
  g.kh = g.kw = 2;
  g.sh = g.sw = 1;
  g.dh = g.dw = 1;
  g.out_h = g.out_w = 3;
  for (int o = 0; o < 9; o++)
    dl_cuda_max_pool_elem<double> (g, image, out, idx, o);
  g_assert_cmpfloat (out[0], ==, 9);
  g_assert_cmpint (idx[0], ==, 5);
  g_assert_cmpint (idx[1], ==, 5);
  g_assert_cmpint (idx[3], ==, 5);
  g_assert_cmpint (idx[4], ==, 5);
  g_assert_cmpint (idx[2], ==, 7);
  g_assert_cmpfloat (out[6], ==, 8);
  for (int o = 0; o < 9; o++)
    grad_out[o] = 1 << o;
  for (int e = 0; e < 16; e++)
    dl_cuda_max_pool_backward_elem<double> (g, grad_out, idx, gi, e);
  g_assert_cmpfloat (gi[5], ==, 1 + 2 + 8 + 16);
  g_assert_cmpfloat (gi[0], ==, 0);
}

int
main (int argc, char **argv)
{
  test_cuda_host_init (&argc, &argv);
  g_test_add_func ("/cuda-pool/max-pool-by-hand", test_max_pool_by_hand);
  g_test_add_func ("/cuda-pool/max-pool", test_max_pool);
  return test_cuda_host_run ();
}
