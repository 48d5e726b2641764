/* test-cuda-dnn.c: what the CUDA module's cuDNN slots decide without a
 * GPU (libdl/backends/cuda/dl-cuda-dnn-plan.h): the descriptors of a
 * convolution, a batch norm and a max pooling, what cuDNN is not handed
 * (and so runs on the module's own kernels), the choice of algorithm from
 * cuDNN's ranked list, a batch norm's scratch buffers and how its biased
 * variance is derived; and that the cuDNN library found at run time has
 * every function the slots call, at the major version of the headers.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <float.h>
#include <math.h>

#include <gmodule.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "backends/cuda/dl-cuda-dnn-plan.h"

/* a geometry with torch's output size */
static DlConvGeometry
geometry (gint64 n,
          gint64 c,
          gint64 h,
          gint64 w,
          gint64 kh,
          gint64 kw,
          gint64 sh,
          gint64 sw,
          gint64 ph,
          gint64 pw,
          gint64 dh,
          gint64 dw)
{
  DlConvGeometry g = { 0 };

  g.n = n, g.c = c, g.h = h, g.w = w, g.kh = kh, g.kw = kw;
  g.sh = sh, g.sw = sw, g.ph = ph, g.pw = pw, g.dh = dh, g.dw = dw;
  g.out_h = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
  g.out_w = (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
  return g;
}

static void
test_conv_plan (void)
{
  /* x [2, 3, 11, 7], 5 filters 3x2, stride (2, 1), padding (1, 0),
   * dilation (1, 2): out 6 x 5 */
  DlConvGeometry g = geometry (2, 3, 11, 7, 3, 2, 2, 1, 1, 0, 1, 2);
  DlCudaConvPlan p = { 0 };
  const char *why = "unset";

  g_assert_cmpint (g.out_h, ==, 6);
  g_assert_cmpint (g.out_w, ==, 5);
  g_assert_true (dl_cuda_conv_plan (&g, 5, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_null (why);
  g_assert_cmpint (p.data_type, ==, CUDNN_DATA_FLOAT);
  g_assert_cmpint (p.compute_type, ==, CUDNN_DATA_FLOAT);
  g_assert_cmpint (p.math_type, ==, CUDNN_FMA_MATH); /* never TF32 */
  {
    const int x[] = { 2, 3, 11, 7 }, xs[] = { 231, 77, 7, 1 };
    const int w[] = { 5, 3, 3, 2 };
    const int y[] = { 2, 5, 6, 5 }, ys[] = { 150, 30, 5, 1 };
    const int b[] = { 1, 5, 1, 1 }, bs[] = { 5, 1, 1, 1 };

    for (int d = 0; d < 4; d++)
      {
        g_assert_cmpint (p.x[d], ==, x[d]);
        g_assert_cmpint (p.x_strides[d], ==, xs[d]);
        g_assert_cmpint (p.w[d], ==, w[d]);
        g_assert_cmpint (p.y[d], ==, y[d]);
        g_assert_cmpint (p.y_strides[d], ==, ys[d]);
        g_assert_cmpint (p.bias[d], ==, b[d]);
        g_assert_cmpint (p.bias_strides[d], ==, bs[d]);
      }
  }
  g_assert_cmpint (p.pad[0], ==, 1);
  g_assert_cmpint (p.pad[1], ==, 0);
  g_assert_cmpint (p.stride[0], ==, 2);
  g_assert_cmpint (p.stride[1], ==, 1);
  g_assert_cmpint (p.dilation[0], ==, 1);
  g_assert_cmpint (p.dilation[1], ==, 2);

  g_assert_true (dl_cuda_conv_plan (&g, 5, DL_DTYPE_FLOAT64, &p, &why));
  g_assert_cmpint (p.data_type, ==, CUDNN_DATA_DOUBLE);
  g_assert_cmpint (p.compute_type, ==, CUDNN_DATA_DOUBLE);
}

/* what cuDNN is not handed, and why */
static void
test_conv_plan_refused (void)
{
  DlConvGeometry g = geometry (2, 3, 11, 7, 3, 2, 2, 1, 1, 0, 1, 2), bad;
  DlCudaConvPlan p = { 0 };
  const char *why = NULL;

  for (DlDType dt = DL_DTYPE_FLOAT16; dt <= DL_DTYPE_BOOL; dt++)
    if (dt != DL_DTYPE_FLOAT32 && dt != DL_DTYPE_FLOAT64)
      {
        g_assert_false (dl_cuda_conv_plan (&g, 5, dt, &p, &why));
        g_assert_true (strstr (why, "float32 and float64"));
      }

  /* ceil-mode or otherwise foreign output sizes */
  bad = g;
  bad.out_h++;
  g_assert_false (dl_cuda_conv_plan (&bad, 5, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "an output size other than cuDNN's");
  bad = g;
  bad.out_w--;
  g_assert_false (dl_cuda_conv_plan (&bad, 5, DL_DTYPE_FLOAT32, &p, &why));

  /* beyond int: one size, and a tensor of 2^31 elements of int sizes */
  bad = geometry (1, 1, (gint64)G_MAXINT + 1, 1, 1, 1, 1, 1, 0, 0, 1, 1);
  g_assert_false (dl_cuda_conv_plan (&bad, 1, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "a size or window parameter beyond cuDNN's int");
  bad = geometry (1 << 16, 1 << 15, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1);
  g_assert_false (dl_cuda_conv_plan (&bad, 1, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "a tensor of 2^31 elements or more");
  g_assert_false (dl_cuda_conv_plan (&g, (gint64)G_MAXINT + 1, DL_DTYPE_FLOAT32, &p, &why));

  bad = g;
  bad.sh = 0;
  g_assert_false (dl_cuda_conv_plan (&bad, 5, DL_DTYPE_FLOAT32, &p, &why));
}

/* every geometry torch's formula gives is taken, with its sizes */
static void
test_conv_plan_many (void)
{
  GRand *rng = g_rand_new_with_seed (15);

  for (int t = 0; t < 2000; t++)
    {
      gint64 kh = g_rand_int_range (rng, 1, 6), kw = g_rand_int_range (rng, 1, 6);
      gint64 dh = g_rand_int_range (rng, 1, 4), dw = g_rand_int_range (rng, 1, 4);
      gint64 ph = g_rand_int_range (rng, 0, 3), pw = g_rand_int_range (rng, 0, 3);
      gint64 h = dh * (kh - 1) + 1 - 2 * ph + g_rand_int_range (rng, 0, 20);
      gint64 w = dw * (kw - 1) + 1 - 2 * pw + g_rand_int_range (rng, 0, 20);
      DlConvGeometry g;
      DlCudaConvPlan p = { 0 };
      const char *why;

      if (h < 1 || w < 1)
        continue;
      g = geometry (g_rand_int_range (rng, 1, 5), g_rand_int_range (rng, 1, 9), h, w, kh, kw,
                    g_rand_int_range (rng, 1, 4), g_rand_int_range (rng, 1, 4), ph, pw, dh, dw);
      g_assert_cmpint (g.out_h, >=, 1);
      g_assert_true (dl_cuda_conv_plan (&g, 4, DL_DTYPE_FLOAT64, &p, &why));
      g_assert_cmpint (p.y[2], ==, g.out_h);
      g_assert_cmpint (p.y[3], ==, g.out_w);
      g_assert_cmpint (p.x_strides[0], ==, g.c * h * w);
      g_assert_cmpint (p.y_strides[1], ==, g.out_h * g.out_w);
    }
  g_rand_free (rng);
}

static void
test_pick_algo (void)
{
  const DlCudaAlgoChoice ranked[] = {
    /* not supported here */
    { 6, CUDNN_STATUS_NOT_SUPPORTED, 0, CUDNN_DETERMINISTIC, CUDNN_FMA_MATH },
    /* fast, but TF32 (tensor cores) */
    { 1, CUDNN_STATUS_SUCCESS, 0, CUDNN_DETERMINISTIC, CUDNN_TENSOR_OP_MATH },
    /* too much workspace for a 1 MiB limit */
    { 5, CUDNN_STATUS_SUCCESS, 8 << 20, CUDNN_DETERMINISTIC, CUDNN_FMA_MATH },
    /* not deterministic */
    { 3, CUDNN_STATUS_SUCCESS, 1024, CUDNN_NON_DETERMINISTIC, CUDNN_FMA_MATH },
    { 2, CUDNN_STATUS_SUCCESS, 4096, CUDNN_DETERMINISTIC, CUDNN_FMA_MATH },
    { 0, CUDNN_STATUS_SUCCESS, 0, CUDNN_DETERMINISTIC, CUDNN_FMA_MATH },
  };
  size_t memory = 99;

  /* the first deterministic one that cuDNN can run in the math type and
   * the workspace */
  g_assert_cmpint (dl_cuda_pick_algo (ranked, 6, CUDNN_FMA_MATH, 1 << 20, 7, &memory), ==, 2);
  g_assert_cmpuint (memory, ==, 4096);
  /* a larger workspace: the best ranked that fits */
  g_assert_cmpint (dl_cuda_pick_algo (ranked, 6, CUDNN_FMA_MATH, 16 << 20, 7, &memory), ==, 5);
  g_assert_cmpuint (memory, ==, 8 << 20);
  /* no workspace at all */
  g_assert_cmpint (dl_cuda_pick_algo (ranked, 6, CUDNN_FMA_MATH, 0, 7, &memory), ==, 0);
  g_assert_cmpuint (memory, ==, 0);
  /* only non-deterministic ones fit: the best of them */
  g_assert_cmpint (dl_cuda_pick_algo (ranked, 4, CUDNN_FMA_MATH, 1 << 20, 7, &memory), ==, 3);
  g_assert_cmpuint (memory, ==, 1024);
  /* nothing fits: the fallback, with no workspace */
  memory = 99;
  g_assert_cmpint (dl_cuda_pick_algo (ranked, 3, CUDNN_FMA_MATH, 1 << 20, 7, &memory), ==, 7);
  g_assert_cmpuint (memory, ==, 0);
  g_assert_cmpint (dl_cuda_pick_algo (ranked, 0, CUDNN_FMA_MATH, 1 << 20, 7, &memory), ==, 7);
  /* the math type is the plan's */
  g_assert_cmpint (dl_cuda_pick_algo (ranked, 6, CUDNN_TENSOR_OP_MATH, 1 << 20, 7, &memory), ==, 1);

  g_assert_cmpuint (dl_cuda_workspace_limit (0), ==, (size_t)64 << 20);
  g_assert_cmpuint (dl_cuda_workspace_limit ((size_t)8 << 30), ==, (size_t)1 << 30);
}

/* ---- batch norm ---------------------------------------------------------------- */

static DlNormArgs
batch_norm_args (gint64 n, gint64 c, gint64 s, gboolean training)
{
  static double buffer[4];
  DlNormArgs a = { 0 };

  a.kind = DL_NORM_BATCH;
  a.n = n, a.c = c, a.s = s, a.groups = c;
  a.eps = 1e-5;
  a.training = training;
  /* pointers only compared with NULL */
  a.x = a.weight = a.bias = a.dy = buffer;
  a.y = a.mean = a.rstd = a.var = a.dx = a.dweight = a.dbias = buffer;
  return a;
}

static void
test_batch_norm_plan (void)
{
  /* x [4, 3, 5, 2] viewed [4, 3, 10]: cuDNN's [4, 3, 10, 1] */
  DlNormArgs a = batch_norm_args (4, 3, 10, TRUE);
  DlCudaBatchNormPlan p = { 0 };
  const char *why = "unset";
  const int x[] = { 4, 3, 10, 1 }, xs[] = { 30, 10, 1, 1 };
  const int c[] = { 1, 3, 1, 1 }, cs[] = { 3, 1, 1, 1 };

  g_assert_true (dl_cuda_batch_norm_plan (&a, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  g_assert_null (why);
  g_assert_cmpint (p.data_type, ==, CUDNN_DATA_FLOAT);
  for (int d = 0; d < 4; d++)
    {
      g_assert_cmpint (p.x[d], ==, x[d]);
      g_assert_cmpint (p.x_strides[d], ==, xs[d]);
      g_assert_cmpint (p.param[d], ==, c[d]);
      g_assert_cmpint (p.param_strides[d], ==, cs[d]);
    }
  /* m = n s = 40 */
  g_assert_cmpfloat (p.var_scale, ==, 39.0 / 40.0);
  /* float64: scale, bias, mean and variances in double too */
  g_assert_true (dl_cuda_batch_norm_plan (&a, DL_DTYPE_FLOAT64, TRUE, &p, &why));
  g_assert_cmpint (p.data_type, ==, CUDNN_DATA_DOUBLE);
  /* eval mode forward, a 2-d input [n, c] (s 1), one sample: cuDNN */
  a = batch_norm_args (1, 7, 1, FALSE);
  g_assert_true (dl_cuda_batch_norm_plan (&a, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  g_assert_cmpint (p.x[0], ==, 1);
  g_assert_cmpint (p.x[1], ==, 7);
  g_assert_cmpint (p.x[2], ==, 1);
  g_assert_cmpint (p.x_strides[0], ==, 7);
  /* eps 0 is cuDNN 9's CUDNN_BN_MIN_EPSILON */
  a = batch_norm_args (2, 3, 1, TRUE);
  a.eps = 0;
  g_assert_true (dl_cuda_batch_norm_plan (&a, DL_DTYPE_FLOAT64, FALSE, &p, &why));
  /* a training backward without dweight and dbias: cuDNN, with scratch */
  a.dweight = a.dbias = NULL;
  a.weight = NULL;
  g_assert_true (dl_cuda_batch_norm_plan (&a, DL_DTYPE_FLOAT64, TRUE, &p, &why));
}

/* what stays with the own kernels, and why */
static void
test_batch_norm_plan_refused (void)
{
  DlNormArgs a = batch_norm_args (4, 3, 10, TRUE), bad;
  DlCudaBatchNormPlan p = { 0 };
  const char *why = NULL;

  for (DlDType dt = DL_DTYPE_FLOAT16; dt <= DL_DTYPE_BOOL; dt++)
    if (dt != DL_DTYPE_FLOAT32 && dt != DL_DTYPE_FLOAT64)
      {
        g_assert_false (dl_cuda_batch_norm_plan (&a, dt, FALSE, &p, &why));
        g_assert_cmpstr (why, ==, "only float32 and float64 batch norms go to cuDNN");
      }

  /* group and layer norm */
  bad = a;
  bad.kind = DL_NORM_GROUP;
  bad.groups = 1;
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  g_assert_cmpstr (why, ==, "group and layer norm: cuDNN's batch norm has no groups");
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, TRUE, &p, &why));

  /* eps below CUDNN_BN_MIN_EPSILON, or NaN */
  bad = a;
  bad.eps = -1e-3;
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  g_assert_cmpstr (why, ==, "an eps below cuDNN's CUDNN_BN_MIN_EPSILON");
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, TRUE, &p, &why));
  bad.eps = NAN;
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));

  /* empty */
  for (int d = 0; d < 3; d++)
    {
      bad = a;
      *(d == 0 ? &bad.n : d == 1 ? &bad.c : &bad.s) = 0;
      g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
      g_assert_cmpstr (why, ==, "an empty batch");
    }

  /* beyond int: one size; 2^31 elements of int sizes; 2^31 - 1 taken */
  bad = a;
  bad.s = (gint64)G_MAXINT + 1;
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  g_assert_cmpstr (why, ==, "a size beyond cuDNN's int");
  bad = batch_norm_args (1 << 10, 1 << 11, 1 << 10, TRUE);
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  g_assert_cmpstr (why, ==, "a tensor of 2^31 elements or more");
  bad = batch_norm_args (G_MAXINT, 1, 1, TRUE);
  g_assert_true (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  bad = batch_norm_args (2, G_MAXINT / 2 + 1, 1, TRUE);
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));

  /* a channel of one value: refused in training (m - 1 = 0), taken in
   * eval mode */
  bad = batch_norm_args (1, 3, 1, TRUE);
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  g_assert_cmpstr (why, ==, "a channel of one value in training");
  bad.training = FALSE;
  g_assert_true (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));

  /* the backward in eval mode, and without dx; the forward of either is
   * cuDNN's */
  bad = a;
  bad.training = FALSE;
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, TRUE, &p, &why));
  g_assert_cmpstr (why, ==, "the gradient in eval mode, an affine map");
  g_assert_true (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
  bad = a;
  bad.dx = NULL;
  g_assert_false (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, TRUE, &p, &why));
  g_assert_cmpstr (why, ==, "a backward without dx");
  g_assert_true (dl_cuda_batch_norm_plan (&bad, DL_DTYPE_FLOAT32, FALSE, &p, &why));
}

/* the scratch: ones for a missing weight, zeros for a missing bias,
 * cuDNN's running buffers set to 0, blocks for missing gradients */
static void
test_batch_norm_scratch (void)
{
  DlNormArgs a = batch_norm_args (4, 3, 10, TRUE);
  DlCudaBnScratch s;

  /* everything given, var wanted: only cuDNN's running mean, zeroed; the
   * running variance is var itself, zeroed */
  dl_cuda_batch_norm_scratch (&a, FALSE, &s);
  g_assert_cmpint (s.n_blocks, ==, 1);
  g_assert_cmpint (s.block_elems, ==, 64);
  g_assert_cmpint (s.where[DL_CUDA_BN_SCALE], ==, DL_CUDA_BN_CALLER);
  g_assert_false (s.filled[DL_CUDA_BN_SCALE]);
  g_assert_cmpint (s.where[DL_CUDA_BN_BIAS], ==, DL_CUDA_BN_CALLER);
  g_assert_false (s.filled[DL_CUDA_BN_BIAS]);
  g_assert_cmpint (s.where[DL_CUDA_BN_RUNNING_MEAN], ==, 0);
  g_assert_true (s.filled[DL_CUDA_BN_RUNNING_MEAN]);
  g_assert_cmpfloat (s.fill[DL_CUDA_BN_RUNNING_MEAN], ==, 0);
  g_assert_cmpint (s.where[DL_CUDA_BN_RUNNING_VAR], ==, DL_CUDA_BN_CALLER);
  g_assert_true (s.filled[DL_CUDA_BN_RUNNING_VAR]);
  g_assert_cmpfloat (s.fill[DL_CUDA_BN_RUNNING_VAR], ==, 0);
  g_assert_cmpint (s.where[DL_CUDA_BN_DSCALE], ==, DL_CUDA_BN_NONE);
  g_assert_cmpint (s.where[DL_CUDA_BN_DBIAS], ==, DL_CUDA_BN_NONE);

  /* no weight, no bias, no var: ones and zeros, no running buffers */
  a.weight = a.bias = NULL;
  a.var = NULL;
  dl_cuda_batch_norm_scratch (&a, FALSE, &s);
  g_assert_cmpint (s.n_blocks, ==, 2);
  g_assert_cmpint (s.where[DL_CUDA_BN_SCALE], ==, 0);
  g_assert_true (s.filled[DL_CUDA_BN_SCALE]);
  g_assert_cmpfloat (s.fill[DL_CUDA_BN_SCALE], ==, 1);
  g_assert_cmpint (s.where[DL_CUDA_BN_BIAS], ==, 1);
  g_assert_true (s.filled[DL_CUDA_BN_BIAS]);
  g_assert_cmpfloat (s.fill[DL_CUDA_BN_BIAS], ==, 0);
  g_assert_cmpint (s.where[DL_CUDA_BN_RUNNING_MEAN], ==, DL_CUDA_BN_NONE);
  g_assert_cmpint (s.where[DL_CUDA_BN_RUNNING_VAR], ==, DL_CUDA_BN_NONE);

  /* eval mode: the running statistics are the slot's mean and var, no
   * running outputs; a bias but no weight */
  a = batch_norm_args (4, 65, 10, FALSE);
  a.weight = NULL;
  dl_cuda_batch_norm_scratch (&a, FALSE, &s);
  g_assert_cmpint (s.n_blocks, ==, 1);
  g_assert_cmpint (s.block_elems, ==, 128);
  g_assert_cmpint (s.where[DL_CUDA_BN_SCALE], ==, 0);
  g_assert_cmpfloat (s.fill[DL_CUDA_BN_SCALE], ==, 1);
  g_assert_cmpint (s.where[DL_CUDA_BN_BIAS], ==, DL_CUDA_BN_CALLER);
  g_assert_cmpint (s.where[DL_CUDA_BN_RUNNING_MEAN], ==, DL_CUDA_BN_NONE);
  g_assert_cmpint (s.where[DL_CUDA_BN_RUNNING_VAR], ==, DL_CUDA_BN_NONE);

  /* backward: no bias; a weight, dbias wanted, dweight not: one block
   * cuDNN writes (not filled) */
  a = batch_norm_args (4, 64, 10, TRUE);
  a.dweight = NULL;
  dl_cuda_batch_norm_scratch (&a, TRUE, &s);
  g_assert_cmpint (s.n_blocks, ==, 1);
  g_assert_cmpint (s.block_elems, ==, 64);
  g_assert_cmpint (s.where[DL_CUDA_BN_SCALE], ==, DL_CUDA_BN_CALLER);
  g_assert_cmpint (s.where[DL_CUDA_BN_BIAS], ==, DL_CUDA_BN_NONE);
  g_assert_cmpint (s.where[DL_CUDA_BN_RUNNING_MEAN], ==, DL_CUDA_BN_NONE);
  g_assert_cmpint (s.where[DL_CUDA_BN_RUNNING_VAR], ==, DL_CUDA_BN_NONE);
  g_assert_cmpint (s.where[DL_CUDA_BN_DSCALE], ==, 0);
  g_assert_false (s.filled[DL_CUDA_BN_DSCALE]);
  g_assert_cmpint (s.where[DL_CUDA_BN_DBIAS], ==, DL_CUDA_BN_CALLER);
  /* no weight, neither gradient: ones and two blocks */
  a.weight = NULL;
  a.dbias = NULL;
  dl_cuda_batch_norm_scratch (&a, TRUE, &s);
  g_assert_cmpint (s.n_blocks, ==, 3);
  g_assert_cmpint (s.where[DL_CUDA_BN_SCALE], ==, 0);
  g_assert_true (s.filled[DL_CUDA_BN_SCALE]);
  g_assert_cmpfloat (s.fill[DL_CUDA_BN_SCALE], ==, 1);
  g_assert_cmpint (s.where[DL_CUDA_BN_DSCALE], ==, 1);
  g_assert_cmpint (s.where[DL_CUDA_BN_DBIAS], ==, 2);
  g_assert_false (s.filled[DL_CUDA_BN_DBIAS]);
}

/* var from cuDNN's running variance: the unbiased variance (as cuDNN
 * writes it, rounded to float) times var_scale (a float, as
 * cudnnScaleTensor takes it) is the contract's biased variance, sum (x -
 * mean)^2 / m in double rounded to float, to a few units in the last
 * place; a constant channel's 0 stays 0. The other route, 1 / rstd^2 -
 * eps, is shown to miss a channel whose variance is small against eps. */
static void
test_batch_norm_var (void)
{
  GRand *rng = g_rand_new_with_seed (151);
  const double eps = 1e-5;
  int misses_by_rstd = 0;

  for (int t = 0; t < 300; t++)
    {
      const gint64 m = g_rand_int_range (rng, 2, 400);
      /* spreads from 0 (constant) to 100, and tiny ones below eps */
      const double spread = t % 10 == 0 ? 0 : t % 3 == 0 ? 1e-5 : g_rand_double_range (rng, 0, 100);
      const double centre = g_rand_double_range (rng, -5, 5);
      DlNormArgs a = batch_norm_args (1, 1, m, TRUE);
      DlCudaBatchNormPlan p = { 0 };
      const char *why;
      double sum = 0, sq = 0, mean;
      float biased, unbiased, derived, rstd, by_rstd;
      float *x = g_new (float, m);

      for (gint64 i = 0; i < m; i++)
        sum += x[i] = (float)(centre + spread * g_rand_double_range (rng, -1, 1));
      mean = (float)(sum / m);
      for (gint64 i = 0; i < m; i++)
        sq += ((double)x[i] - mean) * ((double)x[i] - mean);
      biased = (float)(sq / m);
      unbiased = (float)(sq / (m - 1));
      g_assert_true (dl_cuda_batch_norm_plan (&a, DL_DTYPE_FLOAT32, FALSE, &p, &why));
      derived = unbiased * (float)p.var_scale;
      if (spread == 0)
        g_assert_cmpfloat (derived, ==, 0);
      g_assert_cmpfloat (fabsf (derived - biased), <=, 3 * FLT_EPSILON * biased);
      /* the same in float64 */
      g_assert_cmpfloat (fabs (sq / (m - 1) * p.var_scale - sq / m), <=, 4 * DBL_EPSILON * sq / m);

      rstd = (float)(1 / sqrt (sq / m + eps));
      by_rstd = 1 / (rstd * rstd) - (float)eps;
      misses_by_rstd += fabsf (by_rstd - biased) > 1e-3f * biased;
      g_free (x);
    }
  /* the scaled route is right where 1 / rstd^2 - eps is not */
  g_assert_cmpint (misses_by_rstd, >, 50);
  g_rand_free (rng);
}

/* ---- max pooling ----------------------------------------------------------------- */

/* @g (geometry ()'s) with torch's pooling output size: none where no
 * window fits, ceil mode's extra windows with @ceil_mode */
static DlConvGeometry
pool_geometry (DlConvGeometry g, gboolean ceil_mode)
{
  const gint64 h = g.h, w = g.w, kh = g.kh, kw = g.kw, sh = g.sh, sw = g.sw;
  const gint64 ph = g.ph, pw = g.pw, dh = g.dh, dw = g.dw;

  /* no window fits: the ops layer refuses it */
  if (h + 2 * ph - dh * (kh - 1) - 1 < 0 || w + 2 * pw - dw * (kw - 1) - 1 < 0)
    {
      g.out_h = g.out_w = 0;
      return g;
    }
  if (ceil_mode)
    {
      g.out_h = (h + 2 * ph - dh * (kh - 1) - 1 + sh - 1) / sh + 1;
      g.out_w = (w + 2 * pw - dw * (kw - 1) - 1 + sw - 1) / sw + 1;
      /* the last window starts inside the image or its left padding */
      if ((g.out_h - 1) * sh >= h + ph)
        g.out_h--;
      if ((g.out_w - 1) * sw >= w + pw)
        g.out_w--;
    }
  return g;
}

static void
test_max_pool_plan (void)
{
  /* x [2, 3, 9, 8], windows 3 x 2, stride (2, 1), padding (1, 0): out
   * 5 x 7 */
  DlConvGeometry g = pool_geometry (geometry (2, 3, 9, 8, 3, 2, 2, 1, 1, 0, 1, 1), FALSE);
  DlCudaPoolPlan p = { 0 };
  const char *why = "unset";
  const int x[] = { 2, 3, 9, 8 }, xs[] = { 216, 72, 8, 1 };
  const int y[] = { 2, 3, 5, 7 }, ys[] = { 105, 35, 7, 1 };

  g_assert_cmpint (g.out_h, ==, 5);
  g_assert_cmpint (g.out_w, ==, 7);
  g_assert_true (dl_cuda_max_pool_plan (&g, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_null (why);
  g_assert_cmpint (p.data_type, ==, CUDNN_DATA_FLOAT);
  g_assert_cmpint (p.mode, ==, CUDNN_POOLING_MAX_DETERMINISTIC);
  g_assert_cmpint (p.nan_opt, ==, CUDNN_PROPAGATE_NAN); /* NaN wins, as in PyTorch */
  for (int d = 0; d < 4; d++)
    {
      g_assert_cmpint (p.x[d], ==, x[d]);
      g_assert_cmpint (p.x_strides[d], ==, xs[d]);
      g_assert_cmpint (p.y[d], ==, y[d]);
      g_assert_cmpint (p.y_strides[d], ==, ys[d]);
    }
  g_assert_cmpint (p.window[0], ==, 3);
  g_assert_cmpint (p.window[1], ==, 2);
  g_assert_cmpint (p.pad[0], ==, 1);
  g_assert_cmpint (p.pad[1], ==, 0);
  g_assert_cmpint (p.stride[0], ==, 2);
  g_assert_cmpint (p.stride[1], ==, 1);
  g_assert_true (dl_cuda_max_pool_plan (&g, FALSE, DL_DTYPE_FLOAT64, &p, &why));
  g_assert_cmpint (p.data_type, ==, CUDNN_DATA_DOUBLE);

  /* ceil mode where it adds no window: the same plan */
  g = pool_geometry (geometry (2, 3, 9, 8, 3, 2, 2, 2, 1, 0, 1, 1), TRUE);
  g_assert_cmpint (g.out_h, ==, 5);
  g_assert_true (dl_cuda_max_pool_plan (&g, FALSE, DL_DTYPE_FLOAT32, &p, &why));
}

static void
test_max_pool_plan_refused (void)
{
  DlConvGeometry g = pool_geometry (geometry (2, 3, 9, 8, 3, 2, 2, 1, 1, 0, 1, 1), FALSE), bad;
  DlCudaPoolPlan p = { 0 };
  const char *why = NULL;

  /* indices wanted */
  g_assert_false (dl_cuda_max_pool_plan (&g, TRUE, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "indices wanted: cuDNN's pooling gives no argmax");
  for (DlDType dt = DL_DTYPE_FLOAT16; dt <= DL_DTYPE_BOOL; dt++)
    if (dt != DL_DTYPE_FLOAT32 && dt != DL_DTYPE_FLOAT64)
      {
        g_assert_false (dl_cuda_max_pool_plan (&g, FALSE, dt, &p, &why));
        g_assert_cmpstr (why, ==, "only float32 and float64 poolings go to cuDNN");
      }
  /* dilation */
  bad = pool_geometry (geometry (2, 3, 9, 8, 3, 2, 2, 1, 1, 0, 2, 1), FALSE);
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "a dilated window: cuDNN's pooling has no dilation");
  bad = pool_geometry (geometry (2, 3, 9, 8, 3, 2, 2, 1, 1, 0, 1, 3), FALSE);
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  /* ceil mode's extra window: h 8, window 3, stride 2 gives 4 windows
   * floored, 5 with ceil mode's last one from position 8 - 1 */
  bad = pool_geometry (geometry (1, 1, 8, 8, 3, 3, 2, 2, 1, 1, 1, 1), TRUE);
  g_assert_cmpint (bad.out_h, ==, 5);
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "an output size other than cuDNN's (ceil mode's extra windows)");
  bad = pool_geometry (geometry (1, 1, 8, 8, 3, 3, 2, 2, 1, 1, 1, 1), FALSE);
  g_assert_cmpint (bad.out_h, ==, 4);
  g_assert_true (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  bad.out_w--;
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  /* padding beyond half the window */
  bad = pool_geometry (geometry (1, 1, 8, 8, 3, 3, 1, 1, 2, 1, 1, 1), FALSE);
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "padding beyond half the window");
  /* empty */
  bad = g;
  bad.n = 0;
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "an empty batch");
  /* beyond int: a size, and 2^31 elements of int sizes */
  bad = pool_geometry (geometry (1, 1, (gint64)G_MAXINT + 1, 2, 2, 2, 2, 2, 0, 0, 1, 1), FALSE);
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "a size or window parameter beyond cuDNN's int");
  bad = pool_geometry (geometry (1 << 10, 1 << 10, 1 << 6, 1 << 5, 2, 2, 2, 2, 0, 0, 1, 1), FALSE);
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
  g_assert_cmpstr (why, ==, "a tensor of 2^31 elements or more");
  bad = g;
  bad.sw = 0;
  g_assert_false (dl_cuda_max_pool_plan (&bad, FALSE, DL_DTYPE_FLOAT32, &p, &why));
}

/* over random geometries the ops layer can hand over: taken exactly when
 * undilated and without ceil mode's extra windows; each taken window then
 * has a tap inside the image (cuDNN's maximum over the taps inside, the
 * padding left out, is the own kernel's) */
static void
test_max_pool_plan_many (void)
{
  GRand *rng = g_rand_new_with_seed (152);
  int taken = 0, refused = 0, ceil_taken = 0;

  for (int t = 0; t < 3000; t++)
    {
      gint64 kh = g_rand_int_range (rng, 1, 6), kw = g_rand_int_range (rng, 1, 6);
      gint64 dh = g_rand_int_range (rng, 1, 3), dw = g_rand_int_range (rng, 1, 3);
      gint64 sh = g_rand_int_range (rng, 1, 4), sw = g_rand_int_range (rng, 1, 4);
      gint64 ph = g_rand_int_range (rng, 0, kh / 2 + 1), pw = g_rand_int_range (rng, 0, kw / 2 + 1);
      gint64 h = g_rand_int_range (rng, 1, 20), w = g_rand_int_range (rng, 1, 20);
      gboolean ceil_mode = g_rand_boolean (rng), extra, ok;
      DlConvGeometry g;
      DlCudaPoolPlan p;
      const char *why;

      if (t % 3 == 0)
        dh = dw = 1;
      g = pool_geometry (geometry (2, 3, h, w, kh, kw, sh, sw, ph, pw, dh, dw), ceil_mode);
      if (g.out_h < 1 || g.out_w < 1)
        continue;
      extra = g.out_h != (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1
              || g.out_w != (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
      ok = dl_cuda_max_pool_plan (&g, FALSE, DL_DTYPE_FLOAT32, &p, &why);
      g_assert_true (ok == (dh == 1 && dw == 1 && !extra));
      g_assert_false (dl_cuda_max_pool_plan (&g, TRUE, DL_DTYPE_FLOAT32, &p, &why));
      if (!ok)
        {
          refused++;
          continue;
        }
      taken++;
      ceil_taken += ceil_mode;
      g_assert_cmpint (p.y[2], ==, g.out_h);
      g_assert_cmpint (p.y[3], ==, g.out_w);
      /* the first and last windows of each axis hold a tap of the image */
      g_assert_cmpint (-ph + kh - 1, >=, 0);
      g_assert_cmpint ((g.out_h - 1) * sh - ph, <, h);
      g_assert_cmpint (-pw + kw - 1, >=, 0);
      g_assert_cmpint ((g.out_w - 1) * sw - pw, <, w);
    }
  g_assert_cmpint (taken, >, 500);
  g_assert_cmpint (refused, >, 500);
  g_assert_cmpint (ceil_taken, >, 100);
  g_rand_free (rng);
}

/* the library the module opens at run time has what the slots call */
static void
test_library (void)
{
  size_t (*get_version) (void) = NULL;
  GModule *lib;

  if (RUNNING_ON_VALGRIND)
    {
      /* memcheck flags glibc's own ld.so (strncmp in is_dst, reading
       * libcudnn's RPATH strings word by word), not code of libdl */
      g_test_skip ("under valgrind: its reports in ld.so loading libcudnn are not libdl's");
      return;
    }
  lib = g_module_open ("libcudnn.so." G_STRINGIFY (CUDNN_MAJOR),
                       G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (lib == NULL)
    {
      g_test_skip_printf ("cuDNN is not installed here (%s)", g_module_error ());
      return;
    }
#define CHECK(name)                                                                                \
  {                                                                                                \
    gpointer sym = NULL;                                                                           \
    if (!g_module_symbol (lib, #name, &sym) || sym == NULL)                                        \
      g_error ("%s has no %s", g_module_name (lib), #name);                                        \
  }
  DL_CUDNN_FUNCTIONS (CHECK)
#undef CHECK
  g_assert_true (g_module_symbol (lib, "cudnnGetVersion", (gpointer *)&get_version));
  g_assert_cmpuint (get_version () / 10000, ==, CUDNN_MAJOR);
  g_module_close (lib);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cuda-dnn/conv-plan", test_conv_plan);
  g_test_add_func ("/cuda-dnn/conv-plan-refused", test_conv_plan_refused);
  g_test_add_func ("/cuda-dnn/conv-plan-many", test_conv_plan_many);
  g_test_add_func ("/cuda-dnn/pick-algo", test_pick_algo);
  g_test_add_func ("/cuda-dnn/batch-norm-plan", test_batch_norm_plan);
  g_test_add_func ("/cuda-dnn/batch-norm-plan-refused", test_batch_norm_plan_refused);
  g_test_add_func ("/cuda-dnn/batch-norm-scratch", test_batch_norm_scratch);
  g_test_add_func ("/cuda-dnn/batch-norm-var", test_batch_norm_var);
  g_test_add_func ("/cuda-dnn/max-pool-plan", test_max_pool_plan);
  g_test_add_func ("/cuda-dnn/max-pool-plan-refused", test_max_pool_plan_refused);
  g_test_add_func ("/cuda-dnn/max-pool-plan-many", test_max_pool_plan_many);
  g_test_add_func ("/cuda-dnn/library", test_library);
  return g_test_run ();
}
