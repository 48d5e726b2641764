/* test-cuda-nn.cpp: the CUDA module's im2col/col2im, optim_step,
 * resampling, attention and recurrent bodies (libdl/backends/cuda/
 * dl-cuda-{conv,optim,resample,attention,rnn}.cuh) run on the host, each
 * kernel's threads in a shuffled order and the kernels in the order the
 * slots launch them, and compared with the CPU backend's slots on random
 * inputs:
 *
 *   im2col, col2im       identical (both column layouts, strides,
 *                        padding, dilation)
 *   resample_max         identical (NaNs and ties)
 *   optim_step           every kind and option, to a few ulps (the CPU
 *                        build may contract to FMA)
 *   resample(_adjoint)   gathers, boxes, arbitrary taps, to rounding (the
 *                        kernels sum in double in another order)
 *   attention            masks (bool, float, broadcast), causal, scale,
 *                        dropout, every gradient, to rounding
 *   rnn                  the plan of dl-cuda-rnn-plan.h over host
 *                        operations (a plain GEMM, memcpy) with the cell
 *                        bodies: every cell kind, reverse, packed batches,
 *                        projection, optional biases and states, to
 *                        rounding
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

#include "backends/cuda/dl-cuda-attention.cuh"
#include "backends/cuda/dl-cuda-conv.cuh"
#include "backends/cuda/dl-cuda-optim.cuh"
#include "backends/cuda/dl-cuda-resample.cuh"
#include "backends/cuda/dl-cuda-rnn-plan.h"
#include "backends/cuda/dl-cuda-rnn.cuh"
#include "backends/dl-backend.h"
#include "test-cuda-host.h"

static char case_name[160]; /* the case being checked, for failures */

template <typename T>
static DlDType
dtype_of (void)
{
  return sizeof (T) == 4 ? DL_DTYPE_FLOAT32 : DL_DTYPE_FLOAT64;
}

template <typename T>
static std::vector<T>
random_vec (int64_t n, double lo = -1, double hi = 1)
{
  std::vector<T> v (n);

  for (auto &x : v)
    x = (T)g_rand_double_range (rng, lo, hi);
  return v;
}

/* got == want to @tol relative to the largest |want| (at least 1); NaN
 * where want has NaN */
template <typename T>
static void
assert_close (const std::vector<T> &want, const std::vector<T> &got, double tol, const char *what)
{
  double scale = 1;

  g_assert_cmpuint (want.size (), ==, got.size ());
  for (T w : want)
    if (w == w && fabs ((double)w) != INFINITY)
      scale = std::max (scale, fabs ((double)w));
  for (size_t i = 0; i < want.size (); i++)
    {
      const double w = want[i], g = got[i];

      if (w != w || g != g || fabs (w) == INFINITY)
        {
          if (!((w != w && g != g) || w == g))
            g_error ("%s: %s[%zu] = %.17g, the CPU's %.17g", case_name, what, i, g, w);
          continue;
        }
      if (fabs (w - g) > tol * scale)
        g_error ("%s: %s[%zu] = %.17g, the CPU's %.17g (off by %.3g, scale %.3g)", case_name, what,
                 i, g, w, fabs (w - g), scale);
    }
}

template <typename T>
static double
tolerance (double f32, double f64)
{
  return sizeof (T) == 4 ? f32 : f64;
}

/* ---- im2col, col2im --------------------------------------------------- */

template <typename T>
static void
check_conv (DlConvGeometry g)
{
  const int64_t n_img = g.n * g.c * g.h * g.w, L = g.out_h * g.out_w;
  const int64_t n_cols = g.n * g.c * g.kh * g.kw * L;
  std::vector<T> image = random_vec<T> (n_img), cols = random_vec<T> (n_cols);
  std::vector<T> cpu_cols (n_cols + 1, (T)7), gpu_cols (n_cols + 1, (T)7);
  std::vector<T> cpu_img (n_img + 1, (T)3), gpu_img (n_img + 1, (T)3);

  cpu_ctx.backend->im2col (&cpu_ctx, &g, image.data (), cpu_cols.data (), dtype_of<T> ());
  for (int64_t e : shuffled (n_cols))
    dl_cuda_im2col_elem<T> (g, image.data (), gpu_cols.data (), e);
  g_assert_true (memcmp (cpu_cols.data (), gpu_cols.data (), cpu_cols.size () * sizeof (T)) == 0);

  cpu_ctx.backend->col2im (&cpu_ctx, &g, cols.data (), cpu_img.data (), dtype_of<T> ());
  for (int64_t e : shuffled (n_img))
    dl_cuda_col2im_elem<T> (g, cols.data (), gpu_img.data (), e);
  g_assert_true (memcmp (cpu_img.data (), gpu_img.data (), cpu_img.size () * sizeof (T)) == 0);
}

static void
test_im2col (void)
{
  int checked = 0, overlapping = 0, batch_major = 0;

  for (int t = 0; t < 400; t++)
    {
      DlConvGeometry g = {};

      g.n = g_rand_int_range (rng, 1, 4);
      g.c = g_rand_int_range (rng, 1, 4);
      g.h = g_rand_int_range (rng, 1, 12);
      g.w = g_rand_int_range (rng, 1, 12);
      g.kh = g_rand_int_range (rng, 1, 5);
      g.kw = g_rand_int_range (rng, 1, 5);
      g.sh = g_rand_int_range (rng, 1, 4);
      g.sw = g_rand_int_range (rng, 1, 4);
      g.ph = g_rand_int_range (rng, 0, 3);
      g.pw = g_rand_int_range (rng, 0, 3);
      g.dh = g_rand_int_range (rng, 1, 3);
      g.dw = g_rand_int_range (rng, 1, 3);
      g.out_h = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
      g.out_w = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
      if (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1 < 0 || g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1 < 0)
        continue;
      if (g_rand_boolean (rng))
        {
          /* [n, c kh kw, L] */
          g.col_row_stride = g.out_h * g.out_w;
          g.col_batch_stride = g.c * g.kh * g.kw * g.col_row_stride;
        }
      else
        {
          /* [c kh kw, n, L]: one GEMM for the batch */
          g.col_batch_stride = g.out_h * g.out_w;
          g.col_row_stride = g.n * g.col_batch_stride;
          batch_major++;
        }
      g_snprintf (case_name, sizeof case_name, "im2col case %d", t);
      if (t % 2)
        check_conv<float> (g);
      else
        check_conv<double> (g);
      checked++;
      overlapping += g.sh < g.kh * g.dh || g.sw < g.kw * g.dw;
    }
  g_assert_cmpint (overlapping, >, 50);
  g_assert_cmpint (batch_major, >, 50);
  g_test_message ("%d geometries identical (%d with overlapping windows)", checked, overlapping);
}

/* ---- optim_step ------------------------------------------------------- */

template <typename T>
static void
check_optim (DlOptimStepArgs a)
{
  const int64_t n = a.n;
  std::vector<T> p = random_vec<T> (n, -2, 2), grad = random_vec<T> (n, -1, 1);
  std::vector<std::vector<T> > st (3);
  std::vector<T> p2;
  std::vector<std::vector<T> > st2;

  for (int k = 0; k < 3; k++)
    {
      /* the averages of squares are non-negative: Adam's 1 and 2, the
       * others' 0; the rest (momenta, RMSprop's centred average) signed;
       * Adadelta's both, the second of Adamax, NAdam, RAdam (exp_inf,
       * exp_avg_sq) and Rprop (its step sizes) */
      bool square = a.kind == DL_OPTIM_ADAM ? k > 0 : k == 0;

      if (a.kind == DL_OPTIM_ADADELTA)
        square = k < 2;
      else if (a.kind >= DL_OPTIM_ADAMAX && a.kind <= DL_OPTIM_RPROP)
        square = k == 1;
      else if (a.kind == DL_OPTIM_ASGD)
        square = false;

      st[k] = square ? random_vec<T> (n, 0.05, 1) : random_vec<T> (n, -0.2, 0.2);
    }
  if (a.kind == DL_OPTIM_ADAM && a.amsgrad)
    for (int64_t i = 0; i < n; i += 7)
      st[2][i] = (T)NAN; /* a NaN maximum stays */
  p2 = p;
  st2 = st;

  a.grad = grad.data ();
  a.param = p.data ();
  for (int k = 0; k < 3; k++)
    a.state[k] = st[k].data ();
  cpu_ctx.backend->optim_step (&cpu_ctx, &a, dtype_of<T> ());
  a.param = p2.data ();
  for (int k = 0; k < 3; k++)
    a.state[k] = st2[k].data ();
  for (int64_t i : shuffled (n))
    dl_cuda_optim_elem<T> (a, i);
  /* a few ulps of the largest value: the CPU's x86-64-v3 clones may
   * contract a product and a sum into an FMA, which the kernels never do */
  assert_close (p, p2, tolerance<T> (2e-6, 4e-15), "param");
  for (int k = 0; k < 3; k++)
    assert_close (st[k], st2[k], tolerance<T> (2e-6, 4e-15), "state");
}

static void
test_optim (void)
{
  int checked = 0;

  for (int t = 0; t < 600; t++)
    {
      DlOptimStepArgs a = {};

      a.kind = (DlOptimKind)(t % 10);
      a.n = g_rand_int_range (rng, 1, 200);
      a.lr = g_rand_double_range (rng, 1e-3, 0.5);
      a.weight_decay = g_rand_boolean (rng) ? g_rand_double_range (rng, 0, 0.1) : 0;
      a.maximize = g_rand_boolean (rng);
      a.eps = g_rand_boolean (rng) ? 1e-8 : 1e-3;
      switch (a.kind)
        {
          case DL_OPTIM_SGD:
            a.momentum = g_rand_boolean (rng) ? g_rand_double_range (rng, 0.1, 0.99) : 0;
            a.dampening = g_rand_boolean (rng) ? 0 : g_rand_double_range (rng, 0, 0.5);
            a.nesterov = a.momentum != 0 && a.dampening == 0 && g_rand_boolean (rng);
            a.first_step = g_rand_int_range (rng, 0, 4) == 0;
            break;
          case DL_OPTIM_ADAM:
            a.beta1 = g_rand_double_range (rng, 0.5, 0.95);
            a.beta2 = g_rand_double_range (rng, 0.9, 0.9999);
            a.step_size = g_rand_double_range (rng, 1e-3, 0.3);
            a.bias_correction2_sqrt = g_rand_double_range (rng, 0.05, 1);
            a.amsgrad = g_rand_boolean (rng);
            a.decoupled = g_rand_boolean (rng);
            break;
          case DL_OPTIM_RMSPROP:
            a.beta1 = g_rand_double_range (rng, 0.8, 0.999);
            a.momentum = g_rand_boolean (rng) ? g_rand_double_range (rng, 0.1, 0.9) : 0;
            a.centered = g_rand_boolean (rng);
            break;
          case DL_OPTIM_ADAGRAD:
            break;
          case DL_OPTIM_ADADELTA:
            a.beta1 = g_rand_double_range (rng, 0.5, 0.99);
            break;
          case DL_OPTIM_ADAMAX:
          case DL_OPTIM_NADAM:
          case DL_OPTIM_RADAM:
            a.beta1 = g_rand_double_range (rng, 0.5, 0.95);
            a.beta2 = g_rand_double_range (rng, 0.9, 0.9999);
            a.step_size = g_rand_double_range (rng, 1e-3, 0.3);
            a.bias_correction = g_rand_double_range (rng, 0.05, 1);
            a.bias_correction2_sqrt = g_rand_double_range (rng, 0.05, 1);
            a.coef1 = g_rand_double_range (rng, -0.3, 0.3);
            a.coef2 = g_rand_double_range (rng, -0.3, 0.3);
            a.rectified = g_rand_boolean (rng);
            break;
          case DL_OPTIM_RPROP:
            a.beta1 = g_rand_double_range (rng, 0.1, 0.9);
            a.beta2 = g_rand_double_range (rng, 1.1, 2);
            a.step_min = 1e-6;
            a.step_max = g_rand_double_range (rng, 0.1, 50);
            break;
          case DL_OPTIM_ASGD:
            a.coef1 = g_rand_double_range (rng, 0.9, 1);
            a.coef2 = g_rand_boolean (rng) ? 1 : g_rand_double_range (rng, 0, 1);
            break;
        }
      g_snprintf (case_name, sizeof case_name, "optim case %d (kind %d)", t, a.kind);
      if (t % 8 < 4)
        check_optim<float> (a);
      else
        check_optim<double> (a);
      checked++;
    }
  g_test_message ("%d optimizer steps checked", checked);
}

/* ---- resample --------------------------------------------------------- */

/* one random axis in @start, @index, @weight: kind 0 a gather (one tap of
 * weight 1, or none: padding), 1 boxes (runs of one weight: pooling), 2
 * any taps and weights (interpolation) */
struct Axis
{
  std::vector<gint64> start, index;
  std::vector<gdouble> weight;
  DlResampleAxis ax;
};

static void
random_axis (Axis &a, int kind)
{
  const int64_t in = g_rand_int_range (rng, 1, 7), out = g_rand_int_range (rng, 1, 8);

  a.start.assign (1, 0);
  a.index.clear ();
  a.weight.clear ();
  for (int64_t o = 0; o < out; o++)
    {
      if (kind == 0)
        {
          if (g_rand_int_range (rng, 0, 5) != 0)
            {
              a.index.push_back (g_rand_int_range (rng, 0, (gint32)in));
              a.weight.push_back (1);
            }
        }
      else if (kind == 1)
        {
          const int64_t lo = g_rand_int_range (rng, 0, (gint32)in);
          const int64_t len = g_rand_int_range (rng, 1, (gint32)(in - lo) + 1);

          for (int64_t k = 0; k < len; k++)
            {
              a.index.push_back (lo + k);
              a.weight.push_back (1.0 / (double)len);
            }
        }
      else
        for (int k = g_rand_int_range (rng, 0, 4); k > 0; k--)
          {
            a.index.push_back (g_rand_int_range (rng, 0, (gint32)in));
            a.weight.push_back (g_rand_double_range (rng, -1, 1));
          }
      a.start.push_back ((gint64)a.index.size ());
    }
  a.ax.in_size = in;
  a.ax.out_size = out;
  a.ax.start = a.start.data ();
  a.ax.index = a.index.data ();
  a.ax.weight = a.weight.data ();
}

template <typename T>
static void
check_resample (const DlResampleArgs &a)
{
  const int64_t n_in = a.planes * a.axis[0].in_size * a.axis[1].in_size * a.axis[2].in_size;
  const int64_t n_out = a.planes * a.axis[0].out_size * a.axis[1].out_size * a.axis[2].out_size;
  std::vector<T> in = random_vec<T> (n_in), grad = random_vec<T> (n_out);
  std::vector<T> cpu_out (n_out), gpu_out (n_out), cpu_gi (n_in), gpu_gi (n_in);
  std::vector<T> cpu_max (n_out), gpu_max (n_out);
  std::vector<int64_t> cpu_idx (n_out), gpu_idx (n_out);
  std::vector<char> buf (dl_cuda_resample_pack_size (&a) + 8);
  DlCudaResample r;
  bool all_taps = true;

  dl_cuda_resample_pack (&a, buf.data (), buf.data (), &r);
  cpu_ctx.backend->resample (&cpu_ctx, &a, in.data (), cpu_out.data (), dtype_of<T> ());
  for (int64_t e : shuffled (n_out))
    dl_cuda_resample_elem<T> (r, in.data (), gpu_out.data (), e);
  assert_close (cpu_out, gpu_out, tolerance<T> (1e-6, 1e-14), "resample");

  cpu_ctx.backend->resample_adjoint (&cpu_ctx, &a, grad.data (), cpu_gi.data (), dtype_of<T> ());
  for (int64_t e : shuffled (n_in))
    dl_cuda_resample_adjoint_elem<T> (r, grad.data (), gpu_gi.data (), e);
  assert_close (cpu_gi, gpu_gi, tolerance<T> (1e-6, 1e-14), "resample_adjoint");

  for (int d = 0; d < 3; d++)
    for (int64_t o = 0; o < a.axis[d].out_size; o++)
      all_taps = all_taps && a.axis[d].start[o] < a.axis[d].start[o + 1];
  if (!all_taps)
    return;
  for (int64_t i = 0; i < n_in; i += 5)
    in[i] = i % 3 ? (T)NAN : (T)0.25; /* NaNs and ties */
  cpu_ctx.backend->resample_max (&cpu_ctx, &a, in.data (), cpu_max.data (), cpu_idx.data (),
                                 dtype_of<T> ());
  for (int64_t e : shuffled (n_out))
    dl_cuda_resample_max_elem<T> (r, in.data (), gpu_max.data (), gpu_idx.data (), e);
  g_assert_true (memcmp (cpu_max.data (), gpu_max.data (), n_out * sizeof (T)) == 0);
  g_assert_true (cpu_idx == gpu_idx);
}

static void
test_resample (void)
{
  int kinds[3] = { 0, 0, 0 };

  for (int t = 0; t < 600; t++)
    {
      Axis axes[3];
      DlResampleArgs a = {};
      /* all three axes of one kind (the CPU's fast paths), or mixed */
      const int kind = g_rand_int_range (rng, 0, 4);

      a.planes = g_rand_int_range (rng, 1, 4);
      a.fill = g_rand_boolean (rng) ? 0 : -1.5;
      for (int d = 0; d < 3; d++)
        {
          random_axis (axes[d], kind < 3 ? kind : g_rand_int_range (rng, 0, 3));
          a.axis[d] = axes[d].ax;
        }
      if (kind < 3)
        kinds[kind]++;
      g_snprintf (case_name, sizeof case_name, "resample case %d (kind %d)", t, kind);
      if (t % 2)
        check_resample<float> (a);
      else
        check_resample<double> (a);
    }
  g_test_message ("resample: %d gathers, %d boxes, %d arbitrary maps and the rest mixed", kinds[0],
                  kinds[1], kinds[2]);
}

/* ---- attention -------------------------------------------------------- */

template <typename T> struct AttOut
{
  std::vector<T> out, lse, dq, dk, dv, dmask;
};

template <typename T>
static AttOut<T>
run_attention (DlAttentionArgs a, bool gpu, const std::vector<T> &dout)
{
  const int64_t nb = a.n_batch;
  AttOut<T> r;
  std::vector<T> dvec (std::max<int64_t> (nb * a.l, 1));

  r.out.assign (nb * a.l * a.ev, (T)5);
  r.lse.assign (nb * a.l, (T)5);
  r.dq.assign (nb * a.l * a.e, (T)5);
  r.dk.assign (nb * a.s * a.e, (T)5);
  r.dv.assign (nb * a.s * a.ev, (T)5);
  r.dmask.assign (a.dmask ? nb * a.l * a.s : 0, (T)5);
  a.out = r.out.data ();
  a.lse = r.lse.data ();
  if (gpu)
    for (int64_t row : shuffled (nb * a.l))
      dl_cuda_att_forward_row<T> (a, row);
  else
    cpu_ctx.backend->attention_forward (&cpu_ctx, &a, dtype_of<T> ());
  a.dout = dout.data ();
  a.dq = r.dq.data ();
  a.dk = r.dk.data ();
  a.dv = r.dv.data ();
  a.dmask = a.dmask ? r.dmask.data () : NULL;
  if (gpu)
    {
      for (int64_t row : shuffled (nb * a.l))
        dl_cuda_att_backward_d<T> (a, dvec.data (), row);
      for (int64_t row : shuffled (nb * a.l))
        dl_cuda_att_backward_query<T> (a, dvec.data (), row);
      for (int64_t row : shuffled (nb * a.s))
        dl_cuda_att_backward_key<T> (a, dvec.data (), row);
    }
  else
    cpu_ctx.backend->attention_backward (&cpu_ctx, &a, dtype_of<T> ());
  return r;
}

/* the cases with more rows and keys than the CPU's blocks */
static int big_attention_cases;

template <typename T>
static void
check_attention (int t)
{
  DlAttentionArgs a = {};
  const int mask_kind = g_rand_int_range (rng, 0, 3); /* none, bool, float */
  std::vector<T> q, k, v, fmask, dout;
  std::vector<uint8_t> bmask;
  int64_t q_rs, k_rs, v_rs, n_full = 1;

  a.batch_ndim = g_rand_int_range (rng, 0, 3);
  a.n_batch = 1;
  for (int d = 0; d < a.batch_ndim; d++)
    {
      a.batch_shape[d] = g_rand_int_range (rng, 1, 4);
      a.n_batch *= a.batch_shape[d];
    }
  /* now and then more queries and keys than the CPU's blocks (64 x 256):
   * its running maximum and rescaling across key blocks */
  a.l = t % 40 == 3 ? g_rand_int_range (rng, 60, 140) : g_rand_int_range (rng, 1, 9);
  a.s = t % 40 == 3 ? g_rand_int_range (rng, 250, 600) : g_rand_int_range (rng, 0, 11);
  a.e = g_rand_int_range (rng, 1, t % 40 == 3 ? 17 : 7);
  a.ev = g_rand_int_range (rng, 1, t % 40 == 3 ? 17 : 7);
  a.causal = mask_kind == 0 && g_rand_boolean (rng);
  a.scale = g_rand_boolean (rng) ? 1 / sqrt ((double)a.e) : g_rand_double_range (rng, -1, 2);
  a.dropout_p = g_rand_int_range (rng, 0, 3) == 0 ? 0.3 : 0;
  a.seed = g_rand_int (rng);
  a.offset = g_rand_int_range (rng, 0, 1000);
  /* rows padded; some batch dims broadcast (stride 0) in k and v */
  q_rs = a.e + g_rand_int_range (rng, 0, 3);
  k_rs = a.e + g_rand_int_range (rng, 0, 3);
  v_rs = a.ev + g_rand_int_range (rng, 0, 3);
  a.q_rs = q_rs;
  a.k_rs = k_rs;
  a.v_rs = v_rs;
  {
    int64_t qs = a.l * q_rs, ks = std::max<int64_t> (a.s, 1) * k_rs;
    int64_t vs = std::max<int64_t> (a.s, 1) * v_rs, ms = a.l * a.s, kn = 1;

    for (int d = a.batch_ndim - 1; d >= 0; d--)
      {
        const bool bcast = a.batch_shape[d] > 1 && g_rand_boolean (rng);

        a.q_bs[d] = qs;
        qs *= a.batch_shape[d];
        a.k_bs[d] = bcast ? 0 : ks;
        a.v_bs[d] = bcast ? 0 : vs;
        a.mask_bs[d] = bcast ? 0 : ms;
        if (!bcast)
          {
            ks *= a.batch_shape[d];
            vs *= a.batch_shape[d];
            ms *= a.batch_shape[d];
            kn *= a.batch_shape[d];
          }
      }
    n_full = kn;
    q = random_vec<T> (qs, -2, 2);
    k = random_vec<T> (ks, -2, 2);
    v = random_vec<T> (vs);
    a.q = q.data ();
    a.k = k.data ();
    a.v = v.data ();
    if (mask_kind != 0)
      {
        /* the mask's rows broadcast now and then (row stride 0) */
        const bool row_bcast = g_rand_int_range (rng, 0, 4) == 0;

        a.mask_cs = 1;
        a.mask_rs = row_bcast ? 0 : a.s;
        if (mask_kind == 1)
          {
            bmask.resize (std::max<int64_t> (ms, 1));
            for (auto &m : bmask)
              m = g_rand_int_range (rng, 0, 4) != 0;
            a.mask = bmask.data ();
            a.mask_is_bool = TRUE;
          }
        else
          {
            fmask = random_vec<T> (std::max<int64_t> (ms, 1), -1, 1);
            for (size_t i = 0; i < fmask.size (); i += 7)
              fmask[i] = -(T)INFINITY;
            a.mask = fmask.data ();
          }
      }
  }
  (void)n_full;
  big_attention_cases += a.l > 64 && a.s > 256;
  dout = random_vec<T> (a.n_batch * a.l * a.ev);
  {
    T dummy;

    /* dmask: the gradient of a float mask */
    a.dmask = mask_kind == 2 ? &dummy : NULL;
    g_snprintf (case_name, sizeof case_name,
                "attention case %d (%s, l %" G_GINT64_FORMAT " s %" G_GINT64_FORMAT
                ", mask %d, causal %d, dropout %g)",
                t, sizeof (T) == 4 ? "float" : "double", a.l, a.s, mask_kind, a.causal,
                a.dropout_p);
    AttOut<T> want = run_attention<T> (a, false, dout), got = run_attention<T> (a, true, dout);
    const double tol = tolerance<T> (3e-5, 1e-12);

    assert_close (want.out, got.out, tol, "out");
    assert_close (want.lse, got.lse, tol, "lse");
    assert_close (want.dq, got.dq, tol, "dq");
    assert_close (want.dk, got.dk, tol, "dk");
    assert_close (want.dv, got.dv, tol, "dv");
    assert_close (want.dmask, got.dmask, tol, "dmask");
  }
}

static void
test_attention (void)
{
  for (int t = 0; t < 640; t++)
    if (t % 2)
      check_attention<float> (t);
    else
      check_attention<double> (t);
  g_assert_cmpint (big_attention_cases, >=, 8);
  g_test_message ("attention: %d cases over several of the CPU's blocks", big_attention_cases);
}

/* ---- rnn -------------------------------------------------------------- */

/* the plan's operations on the host: the GEMM a plain loop (double sums),
 * the pointwise passes the kernel bodies over shuffled threads */
template <typename T>
static void
host_gemm (gpointer user, const DlCudaGemmEx *g)
{
  const T *A = (const T *)g->a, *B = (const T *)g->b;
  T *C = (T *)g->c;

  for (int64_t i = 0; i < g->m; i++)
    for (int64_t j = 0; j < g->n; j++)
      {
        double acc = g->beta != 0 ? g->beta * (double)C[i * g->ldc + j] : 0;

        for (int64_t p = 0; p < g->k; p++)
          acc += (double)(g->ta ? A[p * g->lda + i] : A[i * g->lda + p])
                 * (double)(g->tb ? B[j * g->ldb + p] : B[p * g->ldb + j]);
        C[i * g->ldc + j] = (T)acc;
      }
}

static void
host_copy (gpointer user, void *dst, const void *src, gsize bytes)
{
  memmove (dst, src, bytes);
}

static void
host_zero (gpointer user, void *dst, gsize bytes)
{
  memset (dst, 0, bytes);
}

static gpointer
host_alloc (gpointer user, gsize bytes)
{
  /* garbage, as the caching allocator's blocks hold */
  guint8 *p = (guint8 *)g_malloc (bytes);

  memset (p, 0x7f, bytes);
  return p;
}

static void
host_release (gpointer user, gpointer p, gsize bytes)
{
  g_free (p);
}

template <typename T>
static void
host_biases (gpointer user, const DlRnnArgs *a, void *bias, void *bhn)
{
  for (int64_t k : shuffled (dl_cuda_rnn_gates (a->cell) * a->hidden_size))
    dl_cuda_rnn_bias_elem<T> (*a, (T *)bias, (T *)bhn, k);
}

template <typename T>
static void
host_cells (gpointer user,
            const DlRnnArgs *a,
            gint64 bs,
            gint64 o,
            const void *gh,
            const void *bias,
            const void *bhn,
            void *h,
            void *c)
{
  for (int64_t e : shuffled (bs * a->hidden_size))
    dl_cuda_rnn_cell<T> (*a, o, (const T *)gh, (const T *)bias, (const T *)bhn, (T *)h, (T *)c, e);
}

template <typename T>
static void
host_cells_backward (gpointer user,
                     const DlRnnArgs *a,
                     gint64 bs,
                     gint64 o,
                     void *dh,
                     const void *dm,
                     void *dc)
{
  for (int64_t e : shuffled (bs * a->hidden_size))
    dl_cuda_rnn_cell_backward<T> (*a, o, (T *)dh, (const T *)dm, (T *)dc, e);
}

template <typename T>
static void
host_add (gpointer user, void *dst, const void *src, gint64 n)
{
  for (int64_t i : shuffled (n))
    ((T *)dst)[i] += ((const T *)src)[i];
}

template <typename T>
static void
host_colsum (gpointer user, void *dst, const void *src, gint64 rows, gint64 cols)
{
  for (int64_t c : shuffled (cols))
    dl_cuda_rnn_colsum_elem<T> ((T *)dst, (const T *)src, rows, cols, c);
}

template <typename T> struct RnnBufs
{
  std::vector<T> y, h_n, c_n, gates, cells, hprev, cprev, m;
  std::vector<T> dx, dw_ih, dw_hh, db_ih, db_hh, dw_hr, dh0, dc0, dgx, dgh, dhs;
};

template <typename T>
static RnnBufs<T>
run_rnn (DlRnnArgs a, bool gpu, const std::vector<bool> &want)
{
  const int64_t H = a.hidden_size, P = a.proj_size, HO = P ? P : H;
  const int64_t GH = dl_cuda_rnn_gates (a.cell) * H, B = a.batch, I = a.input_size;
  int64_t n = 0;
  RnnBufs<T> r;
  DlCudaRnnOps ops = {};

  for (int64_t t = 0; t < a.steps; t++)
    n += a.batch_sizes[t];
  r.y.assign (n * HO, (T)9);
  r.h_n.assign (B * HO, (T)9);
  r.c_n.assign (B * H, (T)9);
  r.gates.assign (n * GH, (T)9);
  r.cells.assign (n * H, (T)9);
  r.hprev.assign (n * HO, (T)9);
  r.cprev.assign (n * H, (T)9);
  r.m.assign (n * H, (T)9);
  r.dx.assign (n * I, (T)9);
  r.dw_ih.assign (GH * I, (T)9);
  r.dw_hh.assign (GH * HO, (T)9);
  r.db_ih.assign (GH, (T)9);
  r.db_hh.assign (GH, (T)9);
  r.dw_hr.assign (P * H, (T)9);
  r.dh0.assign (B * HO, (T)9);
  r.dc0.assign (B * H, (T)9);
  r.dgx.assign (n * GH, (T)9);
  r.dgh.assign (n * GH, (T)9);
  r.dhs.assign (n * std::max<int64_t> (P, 1), (T)9);
  a.y = r.y.data ();
  a.h_n = r.h_n.data ();
  a.c_n = r.c_n.data ();
  a.gates = r.gates.data ();
  a.cells = r.cells.data ();
  a.hprev = r.hprev.data ();
  a.cprev = r.cprev.data ();
  a.m = r.m.data ();
  a.dgx = r.dgx.data ();
  a.dgh = r.dgh.data ();
  a.dhs = r.dhs.data ();
  a.dx = want[0] ? r.dx.data () : NULL;
  a.dw_ih = want[1] ? r.dw_ih.data () : NULL;
  a.dw_hh = want[2] ? r.dw_hh.data () : NULL;
  a.db_ih = want[3] && a.b_ih ? r.db_ih.data () : NULL;
  a.db_hh = want[3] && a.b_hh ? r.db_hh.data () : NULL;
  a.dw_hr = P ? r.dw_hr.data () : NULL;
  a.dh0 = want[4] ? r.dh0.data () : NULL;
  a.dc0 = want[4] && a.cell == DL_RNN_CELL_LSTM ? r.dc0.data () : NULL;
  ops.gemm = host_gemm<T>;
  ops.copy = host_copy;
  ops.zero = host_zero;
  ops.alloc = host_alloc;
  ops.release = host_release;
  ops.biases = host_biases<T>;
  ops.cells = host_cells<T>;
  ops.cells_backward = host_cells_backward<T>;
  ops.add = host_add<T>;
  ops.colsum = host_colsum<T>;
  if (gpu)
    {
      dl_cuda_rnn_plan_forward (&ops, &a, sizeof (T));
      dl_cuda_rnn_plan_backward (&ops, &a, sizeof (T));
    }
  else
    {
      cpu_ctx.backend->rnn_forward (&cpu_ctx, &a, dtype_of<T> ());
      cpu_ctx.backend->rnn_backward (&cpu_ctx, &a, dtype_of<T> ());
    }
  /* scratch and untouched buffers are not compared */
  if (!a.dx)
    r.dx.clear ();
  if (!a.dw_ih)
    r.dw_ih.clear ();
  if (!a.dw_hh)
    r.dw_hh.clear ();
  if (!a.db_ih)
    r.db_ih.clear ();
  if (!a.db_hh)
    r.db_hh.clear ();
  if (!a.dh0)
    r.dh0.clear ();
  if (!a.dc0)
    r.dc0.clear ();
  if (a.cell != DL_RNN_CELL_LSTM)
    {
      r.c_n.clear ();
      r.cprev.clear ();
    }
  if (a.cell != DL_RNN_CELL_LSTM && a.cell != DL_RNN_CELL_GRU)
    r.cells.clear ();
  if (!P)
    r.m.clear ();
  return r;
}

template <typename T>
static void
check_rnn (int t, DlRnnCellKind cell)
{
  DlRnnArgs a = {};
  std::vector<gint64> sizes;
  std::vector<T> x, w_ih, w_hh, b_ih, b_hh, w_hr, h0, c0, dy, dh_n, dc_n;
  std::vector<bool> want (5);
  int64_t n = 0, H, HO, GH;

  a.cell = cell;
  a.reverse = g_rand_boolean (rng);
  a.steps = g_rand_int_range (rng, 1, 6);
  a.batch = g_rand_int_range (rng, 1, 5);
  a.input_size = g_rand_int_range (rng, 1, 6);
  a.hidden_size = H = g_rand_int_range (rng, 1, 6);
  a.proj_size = cell == DL_RNN_CELL_LSTM && g_rand_boolean (rng) ? g_rand_int_range (rng, 1, 4) : 0;
  HO = a.proj_size ? a.proj_size : H;
  GH = dl_cuda_rnn_gates (cell) * H;
  /* packed: non-increasing batch sizes, the first the batch */
  for (int64_t s = 0, bs = a.batch; s < a.steps; s++)
    {
      sizes.push_back (bs);
      n += bs;
      if (g_rand_boolean (rng))
        bs = g_rand_int_range (rng, 1, (gint32)bs + 1);
    }
  a.batch_sizes = sizes.data ();
  x = random_vec<T> (n * a.input_size);
  w_ih = random_vec<T> (GH * a.input_size, -0.8, 0.8);
  w_hh = random_vec<T> (GH * HO, -0.8, 0.8);
  b_ih = random_vec<T> (GH);
  b_hh = random_vec<T> (GH);
  w_hr = random_vec<T> (std::max<int64_t> (a.proj_size * H, 1));
  h0 = random_vec<T> (a.batch * HO);
  c0 = random_vec<T> (a.batch * H);
  dy = random_vec<T> (n * HO);
  dh_n = random_vec<T> (a.batch * HO);
  dc_n = random_vec<T> (a.batch * H);
  a.x = x.data ();
  a.w_ih = w_ih.data ();
  a.w_hh = w_hh.data ();
  a.b_ih = g_rand_int_range (rng, 0, 4) ? b_ih.data () : NULL;
  a.b_hh = g_rand_int_range (rng, 0, 4) ? b_hh.data () : NULL;
  a.w_hr = a.proj_size ? w_hr.data () : NULL;
  a.h0 = h0.data ();
  a.c0 = c0.data ();
  a.dy = g_rand_int_range (rng, 0, 4) ? dy.data () : NULL;
  a.dh_n = g_rand_boolean (rng) ? dh_n.data () : NULL;
  a.dc_n = cell == DL_RNN_CELL_LSTM && g_rand_boolean (rng) ? dc_n.data () : NULL;
  for (int k = 0; k < 5; k++)
    want[k] = g_rand_int_range (rng, 0, 4) != 0;
  g_snprintf (case_name, sizeof case_name,
              "rnn case %d (%s, cell %d, reverse %d, steps %" G_GINT64_FORMAT
              ", proj %" G_GINT64_FORMAT ")",
              t, sizeof (T) == 4 ? "float" : "double", cell, a.reverse, a.steps, a.proj_size);

  RnnBufs<T> c = run_rnn<T> (a, false, want), g = run_rnn<T> (a, true, want);
  const double tol = tolerance<T> (2e-5, 1e-12);

  assert_close (c.y, g.y, tol, "y");
  assert_close (c.h_n, g.h_n, tol, "h_n");
  assert_close (c.c_n, g.c_n, tol, "c_n");
  assert_close (c.gates, g.gates, tol, "gates");
  assert_close (c.cells, g.cells, tol, "cells");
  assert_close (c.hprev, g.hprev, tol, "hprev");
  assert_close (c.cprev, g.cprev, tol, "cprev");
  assert_close (c.m, g.m, tol, "m");
  assert_close (c.dx, g.dx, tol, "dx");
  assert_close (c.dw_ih, g.dw_ih, tol, "dw_ih");
  assert_close (c.dw_hh, g.dw_hh, tol, "dw_hh");
  assert_close (c.db_ih, g.db_ih, tol, "db_ih");
  assert_close (c.db_hh, g.db_hh, tol, "db_hh");
  assert_close (c.dw_hr, g.dw_hr, tol, "dw_hr");
  assert_close (c.dh0, g.dh0, tol, "dh0");
  assert_close (c.dc0, g.dc0, tol, "dc0");
}

static void
test_rnn (void)
{
  for (int t = 0; t < 400; t++)
    {
      const DlRnnCellKind cell = (DlRnnCellKind)(t % 4);

      if (t % 8 < 4)
        check_rnn<float> (t, cell);
      else
        check_rnn<double> (t, cell);
    }
}

int
main (int argc, char **argv)
{
  test_cuda_host_init (&argc, &argv);
  g_test_add_func ("/cuda-nn/im2col", test_im2col);
  g_test_add_func ("/cuda-nn/optim", test_optim);
  g_test_add_func ("/cuda-nn/resample", test_resample);
  g_test_add_func ("/cuda-nn/attention", test_attention);
  g_test_add_func ("/cuda-nn/rnn", test_rnn);
  return test_cuda_host_run ();
}
