/* test-cuda-norm.cpp: the CUDA module's normalisation bodies
 * (libdl/backends/cuda/dl-cuda-norm.cuh) run on the host in the order of
 * the kernels' launches (each kernel's threads shuffled) and compared with
 * the CPU backend's norm_forward and norm_backward: batch norm in training
 * and eval mode, group norm, layer norm (groups 1, s 1), with and without
 * weight and bias, each gradient requested alone and together. The sums
 * run in another order than the CPU's lanes, so the values are checked
 * against the CPU's float64 results on the same inputs: the kernels may
 * be no further off than the CPU's own float32 (float64) values, plus a
 * few ulps.
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

#include "backends/cuda/dl-cuda-norm.cuh"
#include "backends/dl-backend.h"
#include "test-cuda-host.h"

static char case_name[128]; /* the case check() runs, for failures */

/* What one run writes */
template <typename T> struct Outputs
{
  std::vector<T> mean, rstd, var, y, dx, dw, db;
};

/* the inputs of a case, in double (float32 cases round them first) */
struct Case
{
  DlNormKind kind;
  int64_t n, c, s, groups;
  bool training, affine;
  int grads;
  std::vector<double> x, dy, w, b, run_mean, run_var;
};

template <typename T>
static std::vector<T>
as (const std::vector<double> &v)
{
  return std::vector<T> (v.begin (), v.end ());
}

/* runs the case through the CPU's slots (gpu false) or the kernels'
 * bodies, launch after launch, each launch's threads shuffled */
template <typename T>
static Outputs<T>
run (const Case &k, bool gpu)
{
  const DlDType dt = sizeof (T) == 4 ? DL_DTYPE_FLOAT32 : DL_DTYPE_FLOAT64;
  const int64_t total = k.n * k.c * k.s, n_sets = k.kind == DL_NORM_BATCH ? k.c : k.n * k.groups;
  const bool eval = k.kind == DL_NORM_BATCH && !k.training;
  std::vector<T> x = as<T> (k.x), dy = as<T> (k.dy), w = as<T> (k.w), b = as<T> (k.b);
  Outputs<T> o;
  std::vector<double> sums (2 * n_sets);
  DlNormArgs a = {};

  o.mean = eval ? as<T> (k.run_mean) : std::vector<T> (n_sets);
  o.var = eval ? as<T> (k.run_var) : std::vector<T> (n_sets);
  o.rstd.resize (n_sets);
  o.y.resize (total);
  o.dx.resize (total);
  o.dw.resize (k.c);
  o.db.resize (k.c);
  a.kind = k.kind;
  a.n = k.n;
  a.c = k.c;
  a.s = k.s;
  a.groups = k.groups;
  a.eps = 1e-5;
  a.training = k.training;
  a.x = x.data ();
  a.weight = k.affine ? w.data () : NULL;
  a.bias = k.affine ? b.data () : NULL;
  a.dy = dy.data ();
  a.mean = o.mean.data ();
  a.rstd = o.rstd.data ();
  a.var = k.kind == DL_NORM_BATCH ? o.var.data () : NULL;
  a.y = o.y.data ();
  a.dx = k.grads & 1 ? o.dx.data () : NULL;
  a.dweight = k.grads & 2 ? o.dw.data () : NULL;
  a.dbias = k.grads & 4 ? o.db.data () : NULL;
  if (!gpu)
    {
      cpu_ctx.backend->norm_forward (&cpu_ctx, &a, dt);
      cpu_ctx.backend->norm_backward (&cpu_ctx, &a, dt);
      return o;
    }
  for (int64_t q : shuffled (n_sets))
    dl_cuda_norm_stats<T> (a, q);
  for (int64_t i : shuffled (total))
    dl_cuda_norm_apply<T> (a, i);
  if (a.dx)
    {
      if (!eval)
        for (int64_t q : shuffled (n_sets))
          dl_cuda_norm_dx_sums<T> (a, q, sums.data ());
      for (int64_t i : shuffled (total))
        dl_cuda_norm_dx<T> (a, sums.data (), i);
    }
  if (a.dweight || a.dbias)
    for (int64_t ch : shuffled (k.c))
      dl_cuda_norm_param_grads<T> (a, ch);
  return o;
}

/* The kernels' values against the CPU's float64 ones (@ref): no further
 * off than the CPU's own values of the dtype (@cpu) are, plus a few ulps
 * of the value times its condition (@cond, nullable: 1), which a set of
 * few close elements makes large for y and dx: x - mean loses its digits to the
 * rounding of the mean, on either device, in different ways */
template <typename T>
static void
assert_close (const std::vector<double> &ref,
              const std::vector<T> &cpu,
              const std::vector<T> &got,
              const char *what,
              const std::vector<double> *cond = NULL)
{
  const double ulps = sizeof (T) == 4 ? 1e-6 : 1e-14;

  for (size_t i = 0; i < ref.size (); i++)
    {
      const double err = fabs ((double)got[i] - ref[i]), cpu_err = fabs ((double)cpu[i] - ref[i]);
      const double k = cond ? (*cond)[i] : 1;

      if (!(err <= 2 * cpu_err + 8 * ulps * k * (1 + fabs (ref[i]))))
        g_error ("%s: %s[%zu]: float64 %.17g, the CPU's %.17g, the CUDA kernel's %.17g", case_name,
                 what, i, ref[i], (double)cpu[i], (double)got[i]);
    }
}

template <typename T>
static void
check (DlNormKind kind,
       int64_t n,
       int64_t c,
       int64_t s,
       int64_t groups,
       bool training,
       bool affine,
       int grads)
{
  Case k;
  auto fill = [] (int64_t len, double lo, double hi) {
    std::vector<double> v (len);

    for (auto &e : v)
      /* values of the dtype: the float64 reference sees the same inputs */
      e = (double)(T)g_rand_double_range (rng, lo, hi);
    return v;
  };

  g_snprintf (case_name, sizeof case_name,
              "%s norm, n %" G_GINT64_FORMAT " c %" G_GINT64_FORMAT " s %" G_GINT64_FORMAT
              " groups %" G_GINT64_FORMAT " %s%s, gradients %d, %s",
              kind == DL_NORM_BATCH ? "batch" : "group", n, c, s, groups,
              training ? "training" : "eval", affine ? " affine" : "", grads,
              sizeof (T) == 4 ? "float32" : "float64");
  k.kind = kind;
  k.n = n;
  k.c = c;
  k.s = s;
  k.groups = groups;
  k.training = training;
  k.affine = affine;
  k.grads = grads;
  /* float64: an offset that the two-pass variance must survive; float32
   * centred, where a set of two close values would otherwise lose most
   * of its digits to the rounding of its mean (on either device) */
  k.x = sizeof (T) == 8 ? fill (n * c * s, 3, 5) : fill (n * c * s, -1, 1);
  k.dy = fill (n * c * s, -1, 1);
  k.w = fill (c, 0.5, 1.5);
  k.b = fill (c, -1, 1);
  k.run_mean = fill (c, 3.5, 4.5);
  k.run_var = fill (c, 0.1, 1);

  Outputs<double> ref = run<double> (k, false);
  Outputs<T> cpu = run<T> (k, false), got = run<T> (k, true);

  assert_close (ref.mean, cpu.mean, got.mean, "mean");
  assert_close (ref.rstd, cpu.rstd, got.rstd, "rstd");
  assert_close (ref.var, cpu.var, got.var, "var");
  /* y's and dx's condition: rstd (|x| + |mean|) of its set (the weights
   * are at most 1.5), at least 1 */
  std::vector<double> cond (n * c * s);
  for (int64_t i = 0; i < n * c * s; i++)
    {
      DlNormArgs where = {};
      int64_t q, ch;

      where.kind = kind;
      where.c = c;
      where.s = s;
      where.groups = groups;
      dl_cuda_norm_where (where, i, &q, &ch);
      cond[i] = MAX (1.0, 2 * ref.rstd[q] * (fabs (k.x[i]) + fabs (ref.mean[q])));
    }
  assert_close (ref.y, cpu.y, got.y, "y", &cond);
  assert_close (ref.dx, cpu.dx, got.dx, "dx", &cond);
  assert_close (ref.dw, cpu.dw, got.dw, "dweight");
  assert_close (ref.db, cpu.db, got.db, "dbias");
}

template <typename T>
static void
check_all (void)
{
  static const int64_t shapes[][3]
      = { { 4, 3, 5 }, { 2, 6, 1 }, { 1, 4, 9 }, { 8, 1, 3 }, { 16, 70, 1 } };

  for (const auto &sh : shapes)
    for (bool affine : { true, false })
      for (int grads : { 1, 2, 4, 7 })
        {
          check<T> (DL_NORM_BATCH, sh[0], sh[1], sh[2], 1, true, affine, grads);
          check<T> (DL_NORM_BATCH, sh[0], sh[1], sh[2], 1, false, affine, grads);
          for (int64_t groups = 1; groups <= sh[1]; groups++)
            if (sh[1] % groups == 0)
              check<T> (DL_NORM_GROUP, sh[0], sh[1], sh[2], groups, true, affine, grads);
        }
  /* layer norm: rows of a [6, 37] input */
  check<T> (DL_NORM_GROUP, 6, 37, 1, 1, true, true, 7);
}

static void
test_norm_f32 (void)
{
  check_all<float> ();
}

static void
test_norm_f64 (void)
{
  check_all<double> ();
}

/* batch norm of two channels by hand: the biased variance and the
 * normalised values */
static void
test_batch_norm_by_hand (void)
{
  const double x[] = { 1, 10, 3, 20 }; /* [n 2, c 2, s 1] */
  double mean[2], rstd[2], var[2], y[4];
  DlNormArgs a = {};

  a.kind = DL_NORM_BATCH;
  a.n = 2;
  a.c = 2;
  a.s = 1;
  a.groups = 1;
  a.eps = 0;
  a.training = TRUE;
  a.x = x;
  a.mean = mean;
  a.rstd = rstd;
  a.var = var;
  a.y = y;
  for (int q = 0; q < 2; q++)
    dl_cuda_norm_stats<double> (a, q);
  for (int i = 0; i < 4; i++)
    dl_cuda_norm_apply<double> (a, i);
  g_assert_cmpfloat (mean[0], ==, 2);
  g_assert_cmpfloat (mean[1], ==, 15);
  g_assert_cmpfloat (var[0], ==, 1);
  g_assert_cmpfloat (var[1], ==, 25);
  g_assert_cmpfloat (y[0], ==, -1);
  g_assert_cmpfloat (y[2], ==, 1);
  g_assert_cmpfloat (y[1], ==, -1);
  g_assert_cmpfloat (y[3], ==, 1);
}

int
main (int argc, char **argv)
{
  test_cuda_host_init (&argc, &argv);
  g_test_add_func ("/cuda-norm/batch-norm-by-hand", test_batch_norm_by_hand);
  g_test_add_func ("/cuda-norm/float32", test_norm_f32);
  g_test_add_func ("/cuda-norm/float64", test_norm_f64);
  return test_cuda_host_run ();
}
