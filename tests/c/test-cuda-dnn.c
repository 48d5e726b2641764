/* test-cuda-dnn.c: what the CUDA module's cuDNN slots decide without a
 * GPU (libdl/backends/cuda/dl-cuda-dnn-plan.h): the descriptors of a
 * convolution, what cuDNN is not handed, the choice of algorithm from
 * cuDNN's ranked list; and that the cuDNN library found at run time has
 * every function the slots call, at the major version of the headers.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

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
  g_test_add_func ("/cuda-dnn/library", test_library);
  return g_test_run ();
}
