/* test-cuda-random.cpp: the CUDA module's random kernels
 * (libdl/backends/cuda/dl-cuda-random.cuh, over libdl/backends/dl-philox.h)
 * run on the host, one "thread" at a time in a shuffled order, and
 * compared bit for bit with the CPU backend's random, multinomial, dropout
 * and attention_dropout_mask slots over every distribution and dtype, and
 * requests of odd sizes at odd offsets and seeds. Compiled by g++, not
 * nvcc: it checks which block each element takes its numbers from, the
 * per-distribution transforms and the stores into each dtype, on a machine
 * without a GPU.
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

#include "backends/cuda/dl-cuda-random.cuh"
#include "backends/dl-backend.h"
#include "test-cuda-host.h"

static const uint64_t seeds[] = { 0, 1, 0x9e3779b97f4a7c15ull, 0xffffffffffffffffull };
static const uint64_t offsets[] = { 0, 1, 3, 0xffffffffull, (1ull << 40) + 7 };
/* sizes around the blocks' 2 and 4 numbers, and one past the CPU's
 * threading grain (its OpenMP path) */
static const int64_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 9, 1023, 70001 };

/* a draw from the counter-based stream (seed, offset), which the CPU
 * kernels run as the CUDA module does (a CPU generator's own draws take
 * its Mersenne Twister instead) */
static DlRandomDraw
philox (uint64_t seed, uint64_t offset)
{
  DlRandomDraw draw = {};

  draw.seed = seed;
  draw.offset = offset;
  return draw;
}

/* Philox4x32-10's known answer for counter 0 and key 0 (Salmon et al.,
 * "Parallel random numbers: as easy as 1, 2, 3", the Random123 test
 * vectors): the block function both devices share is Philox itself */
static void
test_philox_known_answer (void)
{
  uint32_t x[4];

  dl_philox (0, 0, x);
  g_assert_cmphex (x[0], ==, 0x6627e8d5u);
  g_assert_cmphex (x[1], ==, 0xe169c58du);
  g_assert_cmphex (x[2], ==, 0xbc57ac4cu);
  g_assert_cmphex (x[3], ==, 0x9b00dbd8u);
}

static void
test_random (void)
{
  static const DlDType dtypes[]
      = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16 };
  static const struct
  {
    DlRandomOp op;
    double a, b;
  } ops[] = {
    { DL_RANDOM_UNIFORM, 0, 1 },        { DL_RANDOM_UNIFORM, -2.5, 3.75 },
    { DL_RANDOM_NORMAL, 0, 1 },         { DL_RANDOM_NORMAL, 0.5, 2.25 },
    { DL_RANDOM_BERNOULLI, 0.3, 0 },    { DL_RANDOM_BERNOULLI, 0.999, 0 },
    { DL_RANDOM_EXPONENTIAL, 1.5, 0 },  { DL_RANDOM_CAUCHY, -1, 0.5 },
    { DL_RANDOM_LOG_NORMAL, 0.2, 0.7 }, { DL_RANDOM_GEOMETRIC, 0.35, 0 },
  };
  int checked = 0;

  for (const auto &o : ops)
    for (DlDType dt : dtypes)
      for (uint64_t seed : seeds)
        for (uint64_t offset : offsets)
          for (int64_t n : sizes)
            {
              const gsize es = dl_dtype_get_size (dt);
              /* one guard element past the end: neither side writes it */
              std::vector<char> cpu ((n + 1) * es, 0x5a), gpu ((n + 1) * es, 0x5a);

              if (n > 1023 && seed != seeds[2])
                continue; /* the big size once per op, dtype and offset */
              const DlRandomDraw draw = philox (seed, offset);

              cpu_ctx.backend->random (&cpu_ctx, o.op, cpu.data (), n, dt, &draw, o.a, o.b);
              for (int64_t blk : shuffled (dl_cuda_random_blocks (n, dt)))
                dl_cuda_random_block (o.op, dt, gpu.data (), n, seed, offset, blk, o.a, o.b);
              if (memcmp (cpu.data (), gpu.data (), cpu.size ()) != 0)
                g_error ("random op %d dtype %d seed %" G_GUINT64_FORMAT
                         " offset %" G_GUINT64_FORMAT " n %" G_GINT64_FORMAT
                         ": the CUDA kernel's numbers differ from the CPU's",
                         o.op, dt, seed, offset, n);
              checked++;
            }
  g_test_message ("%d random requests identical", checked);

  /* the numbers are random: uniform(0, 1) of a big float64 request has
   * mean 1/2, and bernoulli(0.3) about 30% ones (a transform that ignored
   * its numbers would fail here, the comparison above could not tell) */
  {
    const int64_t n = 70001;
    std::vector<double> u (n), bern (n);
    double mean = 0, ones = 0;

    for (int64_t blk = 0; blk < dl_cuda_random_blocks (n, DL_DTYPE_FLOAT64); blk++)
      {
        dl_cuda_random_block (DL_RANDOM_UNIFORM, DL_DTYPE_FLOAT64, (char *)u.data (), n, 5, 9, blk,
                              0, 1);
        dl_cuda_random_block (DL_RANDOM_BERNOULLI, DL_DTYPE_FLOAT64, (char *)bern.data (), n, 5, 9,
                              blk, 0.3, 0);
      }
    for (int64_t i = 0; i < n; i++)
      {
        g_assert_true (u[i] >= 0 && u[i] < 1);
        g_assert_true (bern[i] == 0 || bern[i] == 1);
        mean += u[i] / n;
        ones += bern[i] / n;
      }
    g_assert_cmpfloat (fabs (mean - 0.5), <, 0.01);
    g_assert_cmpfloat (fabs (ones - 0.3), <, 0.01);
  }
}

/* gamma, poisson and binomial, element by element in a shuffled order,
 * against the CPU's random_params slot given the same Philox draw */
static void
test_random_params (void)
{
  static const DlDType dtypes[] = { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16 };
  static const DlRandomParamsOp ops[]
      = { DL_RANDOM_PARAMS_GAMMA, DL_RANDOM_PARAMS_POISSON, DL_RANDOM_PARAMS_BINOMIAL };
  const int64_t n = 3001;
  std::vector<double> a (n), b (n);
  int checked = 0;

  /* parameters across the samplers' branches: gamma below and above 1,
   * Poisson below and above 10, binomial by inversion and by BTRS, p on
   * either side of 1/2 */
  for (int64_t i = 0; i < n; i++)
    {
      a[i] = i % 7 == 0 ? 0.05 + i % 3 : 1 + (double)(i % 97) * (i % 5 == 0 ? 10 : 0.3);
      b[i] = (double)(i % 19 + 1) / 20;
    }
  for (DlRandomParamsOp op : ops)
    for (DlDType dt : dtypes)
      for (uint64_t seed : seeds)
        for (uint64_t offset : offsets)
          {
            const gsize es = dl_dtype_get_size (dt);
            std::vector<char> cpu ((n + 1) * es, 0x5a), gpu ((n + 1) * es, 0x5a);
            const double *bp = op == DL_RANDOM_PARAMS_BINOMIAL ? b.data () : NULL;
            const DlRandomDraw draw = philox (seed, offset);

            if (op == DL_RANDOM_PARAMS_BINOMIAL)
              for (int64_t i = 0; i < n; i++)
                a[i] = floor (a[i]);
            cpu_ctx.backend->random_params (&cpu_ctx, op, a.data (), bp, cpu.data (), n, dt, &draw);
            for (int64_t i : shuffled (n))
              dl_cuda_random_params_elem ((int)op, dt, gpu.data (), a.data (), bp, seed, offset, i);
            if (memcmp (cpu.data (), gpu.data (), cpu.size ()) != 0)
              g_error ("random_params op %d dtype %d seed %" G_GUINT64_FORMAT
                       " offset %" G_GUINT64_FORMAT ": the CUDA kernel's numbers differ",
                       op, dt, seed, offset);
            checked++;
          }
  g_test_message ("%d random_params requests identical", checked);
}

static void
test_permutation (void)
{
  for (uint64_t seed : seeds)
    for (uint64_t offset : offsets)
      for (int64_t n : { 0, 1, 2, 3, 17, 1000 })
        {
          std::vector<int64_t> cpu (n + 1, -7), gpu (n + 1, -7), sorted;

          const DlRandomDraw draw = philox (seed, offset);

          cpu_ctx.backend->random (&cpu_ctx, DL_RANDOM_PERMUTATION, cpu.data (), n, DL_DTYPE_INT64,
                                   &draw, 0, 0);
          /* the kernel is one thread running dl_philox_permutation */
          dl_philox_permutation (gpu.data (), n, seed, offset);
          g_assert_true (cpu == gpu);
          sorted.assign (gpu.begin (), gpu.begin () + n);
          std::sort (sorted.begin (), sorted.end ());
          for (int64_t i = 0; i < n; i++)
            g_assert_cmpint (sorted[i], ==, i);
          if (n == 1000)
            g_assert_false (std::is_sorted (gpu.begin (), gpu.begin () + n));
        }
}

static void
test_dropout (void)
{
  for (DlDType dt : { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64 })
    for (double p : { 0.0, 0.2, 0.5, 0.9, 1.0 })
      for (int64_t n : sizes)
        for (uint64_t offset : offsets)
          for (bool with_mask : { true, false })
            {
              const gsize es = dl_dtype_get_size (dt);
              const uint64_t seed = seeds[(n + (int64_t)offset) % G_N_ELEMENTS (seeds)];
              std::vector<char> in (n * es + 1), cpu ((n + 1) * es, 0x33), gpu ((n + 1) * es, 0x33);
              std::vector<uint8_t> cmask (n + 1, 9), gmask (n + 1, 9);
              const int64_t n_blocks = dl_cuda_random_blocks (n, dt);

              if (n > 1023 && !with_mask)
                continue;
              for (int64_t i = 0; i < n; i++)
                {
                  double v = g_rand_double_range (rng, -4, 4);

                  if (dt == DL_DTYPE_FLOAT64)
                    ((double *)in.data ())[i] = v;
                  else
                    ((float *)in.data ())[i] = (float)v;
                }
              const DlRandomDraw draw = philox (seed, offset);

              cpu_ctx.backend->dropout (&cpu_ctx, in.data (), cpu.data (),
                                        with_mask ? cmask.data () : NULL, n, p, dt, &draw);
              for (int64_t blk : shuffled (n_blocks))
                if (dt == DL_DTYPE_FLOAT64)
                  dl_cuda_dropout_block<double> ((const double *)in.data (), (double *)gpu.data (),
                                                 with_mask ? gmask.data () : NULL, n, p,
                                                 dl_cuda_dropout_scale<double> (p), seed, offset,
                                                 blk);
                else
                  dl_cuda_dropout_block<float> ((const float *)in.data (), (float *)gpu.data (),
                                                with_mask ? gmask.data () : NULL, n, p,
                                                dl_cuda_dropout_scale<float> (p), seed, offset,
                                                blk);
              g_assert_true (cpu == gpu);
              g_assert_true (cmask == gmask);
              if (with_mask && n > 1023)
                {
                  /* about 1 - p of the elements kept */
                  int64_t kept = 0;

                  for (int64_t i = 0; i < n; i++)
                    kept += gmask[i];
                  g_assert_cmpfloat (fabs ((double)kept / n - (1 - p)), <, 0.01);
                }
            }
}

/* multinomial's kernel: one thread a row, the first bad row's reason kept */
static void
host_multinomial (const double *w,
                  int64_t rows,
                  int64_t k,
                  int64_t n_samples,
                  bool replacement,
                  int64_t *out,
                  uint64_t seed,
                  uint64_t offset,
                  DlKernelStatus *status)
{
  std::vector<double> tmp (rows * std::max<int64_t> (k, 1));
  const int64_t per_row = (n_samples + 1) / 2;

  for (int64_t r : shuffled (rows))
    {
      int st = dl_philox_multinomial_row (w + r * k, k, n_samples, replacement, out + r * n_samples,
                                          seed, offset + r * per_row, tmp.data () + r * k);
      if (st != DL_PHILOX_ROW_OK && status->error == DL_KERNEL_OK)
        status->error = st;
    }
}

static void
test_multinomial (void)
{
  for (bool replacement : { true, false })
    for (int64_t rows : { 1, 3, 8 })
      for (int64_t k : { 1, 2, 7, 50 })
        for (int64_t n_samples : { 1, 2, 5, 9 })
          for (uint64_t offset : { 0ull, 5ull, 0xffffffffull })
            {
              const uint64_t seed = seeds[(rows + k + n_samples) % G_N_ELEMENTS (seeds)];
              std::vector<double> w (rows * k);
              std::vector<int64_t> cpu (rows * n_samples, -9), gpu (rows * n_samples, -9);
              DlKernelStatus cs = {}, gs = {};

              if (!replacement && n_samples > k)
                continue; /* the ops layer refuses it */
              for (auto &x : w)
                /* a third of the weights zero: without replacement they
                 * are drawn last, in a random order */
                x = g_rand_int_range (rng, 0, 3) == 0 ? 0 : g_rand_double_range (rng, 0.01, 5);
              for (int64_t r = 0; r < rows; r++)
                w[r * k] = 0.5; /* no row sums to zero */
              const DlRandomDraw draw = philox (seed, offset);

              cpu_ctx.backend->multinomial (&cpu_ctx, w.data (), rows, k, n_samples, replacement,
                                            cpu.data (), &draw, &cs);
              host_multinomial (w.data (), rows, k, n_samples, replacement, gpu.data (), seed,
                                offset, &gs);
              g_assert_cmpint (cs.error, ==, DL_KERNEL_OK);
              g_assert_cmpint (gs.error, ==, DL_KERNEL_OK);
              g_assert_true (cpu == gpu);
              for (int64_t i = 0; i < rows * n_samples; i++)
                {
                  g_assert_cmpint (gpu[i], >=, 0);
                  g_assert_cmpint (gpu[i], <, k);
                }
            }

  /* bad rows: both report the same reason */
  for (double bad : { -1.0, (double)NAN, (double)INFINITY, 0.0 })
    {
      std::vector<double> w = { 1, 2, 3, bad, bad, bad };
      std::vector<int64_t> cpu (4), gpu (4);
      DlKernelStatus cs = {}, gs = {};

      const DlRandomDraw draw = philox (1, 0);

      cpu_ctx.backend->multinomial (&cpu_ctx, w.data (), 2, 3, 2, TRUE, cpu.data (), &draw, &cs);
      host_multinomial (w.data (), 2, 3, 2, true, gpu.data (), 1, 0, &gs);
      g_assert_cmpint (cs.error, ==, bad == 0 ? DL_KERNEL_ZERO_SUM : DL_KERNEL_BAD_WEIGHT);
      g_assert_cmpint (gs.error, ==, cs.error);
    }
}

static void
test_attention_mask (void)
{
  for (DlDType dt : { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64 })
    for (double p : { 0.1, 0.6, 1.0 })
      for (int64_t s : { 1, 3, 4, 5, 13, 64 })
        for (uint64_t offset : offsets)
          {
            DlAttentionArgs a = {};
            const gsize es = dl_dtype_get_size (dt);
            int64_t total;

            a.n_batch = 2;
            a.l = 3;
            a.s = s;
            a.dropout_p = p;
            a.seed = seeds[s % G_N_ELEMENTS (seeds)];
            a.offset = offset;
            total = a.n_batch * a.l * s;
            std::vector<char> cpu ((total + 1) * es, 0x11), gpu ((total + 1) * es, 0x11);

            cpu_ctx.backend->attention_dropout_mask (&cpu_ctx, &a, cpu.data (), dt);
            for (int64_t i : shuffled (total))
              if (dt == DL_DTYPE_FLOAT64)
                dl_cuda_attention_mask_elem<double> ((double *)gpu.data (), s, a.seed, a.offset, p,
                                                     i);
              else
                dl_cuda_attention_mask_elem<float> ((float *)gpu.data (), s, a.seed, a.offset, p,
                                                    i);
            g_assert_true (cpu == gpu);
          }
}

int
main (int argc, char **argv)
{
  test_cuda_host_init (&argc, &argv);
  g_test_add_func ("/cuda-random/philox-known-answer", test_philox_known_answer);
  g_test_add_func ("/cuda-random/random", test_random);
  g_test_add_func ("/cuda-random/random-params", test_random_params);
  g_test_add_func ("/cuda-random/permutation", test_permutation);
  g_test_add_func ("/cuda-random/dropout", test_dropout);
  g_test_add_func ("/cuda-random/multinomial", test_multinomial);
  g_test_add_func ("/cuda-random/attention-mask", test_attention_mask);
  return test_cuda_host_run ();
}
