/* percall.cc: the cost of one call of small ops from C, libdl's C API
 * against PyTorch's C++ API (ATen, from Debian's libtorch-dev), side by
 * side in one process.
 *
 * Usage: dl-bench-percall [ROUNDS]
 *
 * Ops on float32 vectors of 10^2, 10^3 and 10^4 elements (the dim ops on
 * rows of 100): sum, mean, sum(dim=1), max, amax(dim=1), argmax(dim=1),
 * exp, log, tanh, sigmoid, gelu, softmax(dim=1), x > y, x == y, x < 0.5,
 * x + y, x * y. Both libraries get the same values (libdl's tensors copy
 * ATen's bytes) and one OpenMP pool of all the cores (ATen's
 * set_num_threads is libgomp's, which libdl uses too). For each op and
 * size: warm-up calls, then ROUNDS (7) rounds, each timing a loop of about
 * 10 ms of libdl calls and one of ATen calls, alternately, each after 50 ms
 * of quiet; the least time
 * per call of each over the rounds, and ratio = libdl / ATen (below 1
 * libdl is faster). Outputs are fresh tensors each call, freed before the
 * next, as `y = f (x)` in a loop does. At the end the geometric mean and
 * the worst ratio. Always exits 0: benchmarks do not fail CI.
 *
 * Built by meson where the ATen headers are found (bench/meson.build).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <dl.h>

namespace
{

using Clock = std::chrono::steady_clock;

/* the same values as a libdl tensor (a copy of @t's bytes) */
DlTensor *
to_dl (const at::Tensor &t)
{
  at::Tensor c = t.contiguous ();
  GBytes *bytes = g_bytes_new (c.data_ptr (), c.numel () * c.element_size ());
  std::vector<gint64> shape (c.sizes ().begin (), c.sizes ().end ());
  GError *error = NULL;
  DlTensor *d
      = dl_tensor_new_from_bytes (bytes, shape.data (), shape.size (), DL_DTYPE_FLOAT32, &error);

  g_bytes_unref (bytes);
  if (d == NULL)
    {
      std::fprintf (stderr, "percall: %s\n", error->message);
      std::exit (EXIT_FAILURE);
    }
  return d;
}

/* seconds per call of @fn over a loop of @n calls, after 50 ms of quiet
 * and one untimed call (the other library's pool stops spinning; see
 * docs/threading.md) */
double
loop (const std::function<void ()> &fn, long n)
{
  std::this_thread::sleep_for (std::chrono::milliseconds (50));
  fn ();
  auto t0 = Clock::now ();
  for (long i = 0; i < n; i++)
    fn ();
  return std::chrono::duration<double> (Clock::now () - t0).count () / n;
}

/* one libdl call: the result is checked and freed */
void
check (DlTensor *r, GError *error)
{
  if (r == NULL)
    {
      std::fprintf (stderr, "percall: %s\n", error->message);
      std::exit (EXIT_FAILURE);
    }
  g_object_unref (r);
}

struct Case
{
  std::string name;
  std::function<void ()> dl, aten;
};

} // namespace

int
main (int argc, char *argv[])
{
  int rounds = argc > 1 ? std::max (1, std::atoi (argv[1])) : 7;
  unsigned hw = std::max (1u, std::thread::hardware_concurrency ());
  std::vector<double> ratios;
  double worst = 0;
  std::string worst_name;

  at::set_num_threads (hw);
  at::manual_seed (0);
  std::printf ("%-18s %7s %12s %12s %7s\n", "op", "size", "libdl", "ATen", "ratio");
  for (long n : { 100L, 1000L, 10000L })
    {
      at::Tensor x = at::randn ({ n }), y = at::randn ({ n });
      at::Tensor xp = x.abs () + 0.5; /* positive, for log */
      at::Tensor xm = x.view ({ n / 100, 100 });
      DlTensor *dx = to_dl (x), *dy = to_dl (y), *dxp = to_dl (xp), *dxm = to_dl (xm);
      const gint64 dim1[] = { 1 };
      GError *e = NULL;
      std::vector<Case> cases = {
        { "sum", [&] { check (dl_tensor_sum (dx, &e), e); }, [&] { x.sum (); } },
        { "mean", [&] { check (dl_tensor_mean (dx, &e), e); }, [&] { x.mean (); } },
        { "sum(dim=1)", [&] { check (dl_tensor_sum_dims (dxm, dim1, 1, FALSE, &e), e); },
          [&] { xm.sum (1); } },
        { "max", [&] { check (dl_tensor_max (dx, &e), e); }, [&] { x.max (); } },
        { "amax(dim=1)", [&] { check (dl_tensor_amax (dxm, dim1, 1, FALSE, &e), e); },
          [&] { xm.amax (1); } },
        { "argmax(dim=1)", [&] { check (dl_tensor_argmax (dxm, 1, FALSE, &e), e); },
          [&] { xm.argmax (1); } },
        { "exp", [&] { check (dl_tensor_exp (dx, &e), e); }, [&] { x.exp (); } },
        { "log", [&] { check (dl_tensor_log (dxp, &e), e); }, [&] { xp.log (); } },
        { "tanh", [&] { check (dl_tensor_tanh (dx, &e), e); }, [&] { x.tanh (); } },
        { "sigmoid", [&] { check (dl_tensor_sigmoid (dx, &e), e); }, [&] { x.sigmoid (); } },
        { "gelu", [&] { check (dl_tensor_gelu (dx, &e), e); }, [&] { at::gelu (x); } },
        { "softmax(dim=1)", [&] { check (dl_tensor_softmax (dxm, 1, &e), e); },
          [&] { xm.softmax (1); } },
        { "x > y", [&] { check (dl_tensor_gt (dx, dy, &e), e); }, [&] { x.gt (y); } },
        { "x == y", [&] { check (dl_tensor_eq (dx, dy, &e), e); }, [&] { x.eq (y); } },
        { "x < 0.5", [&] { check (dl_tensor_lt_scalar (dx, 0.5, &e), e); }, [&] { x.lt (0.5); } },
        { "x + y", [&] { check (dl_tensor_add (dx, dy, &e), e); }, [&] { x.add (y); } },
        { "x * y", [&] { check (dl_tensor_mul (dx, dy, &e), e); }, [&] { x.mul (y); } },
      };
      for (const Case &c : cases)
        {
          double bd = INFINITY, ba = INFINITY;
          long calls;

          for (int i = 0; i < 10; i++)
            {
              c.dl ();
              c.aten ();
            }
          calls = std::max (1L, (long)(0.01 / std::max (loop (c.dl, 20), loop (c.aten, 20))));
          for (int r = 0; r < rounds; r++)
            {
              bd = std::min (bd, loop (c.dl, calls));
              ba = std::min (ba, loop (c.aten, calls));
            }
          std::printf ("%-18s %7ld %9.0f ns %9.0f ns %7.2f\n", c.name.c_str (), n, bd * 1e9,
                       ba * 1e9, bd / ba);
          ratios.push_back (bd / ba);
          if (bd / ba > worst)
            {
              worst = bd / ba;
              worst_name = c.name + " " + std::to_string (n);
            }
        }
      for (DlTensor *t : { dx, dy, dxp, dxm })
        g_object_unref (t);
    }
  double logs = 0;
  for (double r : ratios)
    logs += std::log (r);
  std::printf ("geometric mean of libdl/ATen: %.3f; worst %.2f (%s); above 1.0: %ld of %zu\n",
               std::exp (logs / ratios.size ()), worst, worst_name.c_str (),
               (long)std::count_if (ratios.begin (), ratios.end (), [] (double r) { return r > 1.0; }),
               ratios.size ());
  return EXIT_SUCCESS;
}
