/* test-cuda-kernels.cpp: the CUDA module's per-element kernel bodies
 * (libdl/backends/cuda/dl-cuda-kernels.cuh) run on the host, over every
 * element of strided, broadcast and permuted operands of every dtype, and
 * compared with the CPU backend's slots on the same iterators. Compiled by
 * g++, not nvcc: it checks the indexing, broadcasting, dtype conversions
 * and op math that the GPU kernels run, on a machine without a GPU.
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

#include "backends/cuda/dl-cuda-gemm-plan.h"
#include "backends/cuda/dl-cuda-kernels.cuh"
#include "backends/dl-backend.h"

static DlBackendContext cpu_ctx;
static GRand *rng;

static const DlDType all_dtypes[] = {
  DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16,
  DL_DTYPE_INT32,   DL_DTYPE_INT64,   DL_DTYPE_UINT8,   DL_DTYPE_BOOL,
};

static bool
is_float (DlDType dt)
{
  return dt == DL_DTYPE_FLOAT32 || dt == DL_DTYPE_FLOAT64 || dt == DL_DTYPE_FLOAT16
         || dt == DL_DTYPE_BFLOAT16;
}

/* What values an input gets:
 *   ANY       every kind of value of the dtype: for floats NaN, infinities,
 *             signed zeros, ties of the 16-bit roundings, tiny and huge
 *             magnitudes (every bit pattern for the 16-bit floats)
 *   INT_SAFE  floats that convert to every integer dtype without leaving
 *             its range (C leaves the others undefined), in [0, 255]
 *   NONZERO   as ANY, with no integer zero (integer division operands)
 *   SMALL     small magnitudes: integer ops that stay clear of overflow */
typedef enum
{
  VALUES_ANY,
  VALUES_INT_SAFE,
  VALUES_NONZERO,
  VALUES_SMALL,
} Values;

static double
random_float (Values values)
{
  static const double specials[] = {
    NAN,
    INFINITY,
    -INFINITY,
    0.0,
    -0.0,
    0.5,
    1.5,
    2.5,
    -2.5,
    1.0 + 1.0 / 2048,
    1.0 + 3.0 / 2048,
    1.0 + 1.0 / 256,
    65504,
    65520,
    1e-7,
    6e-8,
    3e-8,
    1e30,
    -1e-40,
    3.0e38,
  };
  double x;

  if (values == VALUES_INT_SAFE)
    return g_rand_int_range (rng, 0, 4) == 0 ? g_rand_int_range (rng, 0, 256)
                                             : g_rand_double_range (rng, 0, 255);
  if (values != VALUES_SMALL && g_rand_int_range (rng, 0, 8) == 0)
    return specials[g_rand_int_range (rng, 0, G_N_ELEMENTS (specials))];
  if (values == VALUES_SMALL || g_rand_boolean (rng))
    return g_rand_double_range (rng, -4, 4);
  /* a magnitude from 2^-30 to 2^18 */
  x = ldexp (g_rand_double_range (rng, 1, 2), g_rand_int_range (rng, -30, 18));
  return g_rand_boolean (rng) ? x : -x;
}

static void
random_element (char *p, DlDType dt, Values values)
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT32:
      case DL_DTYPE_FLOAT64:
        dl_cuda_store (p, dt, random_float (values));
        break;
      case DL_DTYPE_FLOAT16:
      case DL_DTYPE_BFLOAT16:
        if (values == VALUES_ANY || values == VALUES_NONZERO)
          {
            uint16_t bits = (uint16_t)g_rand_int (rng);
            memcpy (p, &bits, 2);
          }
        else
          dl_cuda_store (p, dt, random_float (values));
        break;
      case DL_DTYPE_INT32:
      case DL_DTYPE_INT64:
        {
          int64_t v;
          if (values == VALUES_ANY && g_rand_int_range (rng, 0, 4) == 0)
            v = ((int64_t)g_rand_int (rng) << 32) | g_rand_int (rng);
          else
            v = g_rand_int_range (rng, -1000, 1001);
          if (values == VALUES_NONZERO && v == 0)
            v = 7;
          dl_cuda_store (p, dt, v);
          break;
        }
      case DL_DTYPE_UINT8:
        {
          int64_t v = g_rand_int_range (rng, 0, 256);
          if (values == VALUES_NONZERO && v == 0)
            v = 3;
          dl_cuda_store (p, dt, v);
          break;
        }
      case DL_DTYPE_BOOL:
        dl_cuda_store (p, dt, (int64_t)g_rand_boolean (rng));
        break;
    }
}

/* One operand of a test iterator: its own buffer, sizes and strides */
struct Operand
{
  DlDType dtype;
  int ndim;
  gint64 sizes[DL_MAX_DIMS];
  gint64 strides[DL_MAX_DIMS];
  std::vector<char> buf;
};

/* An operand of loop shape @shape: broadcast along some dims (inputs
 * only: size 1 or missing leading dims), its memory in a random dim order,
 * with gaps between elements or rows */
static void
make_operand (Operand *op, DlDType dt, const gint64 *shape, int ndim, bool input, Values values)
{
  int order[DL_MAX_DIMS];
  gint64 stride, extent = 1;
  gsize es = dl_dtype_get_size (dt);

  op->dtype = dt;
  op->ndim = ndim;
  if (input && ndim > 0 && g_rand_int_range (rng, 0, 4) == 0)
    op->ndim = g_rand_int_range (rng, 0, ndim);
  for (int i = 0; i < op->ndim; i++)
    {
      op->sizes[i] = shape[ndim - op->ndim + i];
      if (input && g_rand_int_range (rng, 0, 4) == 0)
        op->sizes[i] = 1;
      order[i] = i;
    }
  /* memory order: row-major, or shuffled */
  if (g_rand_boolean (rng))
    for (int i = op->ndim - 1; i > 0; i--)
      {
        int j = g_rand_int_range (rng, 0, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
  stride = g_rand_int_range (rng, 0, 3) == 0 ? 2 : 1;
  for (int i = op->ndim - 1; i >= 0; i--)
    {
      int d = order[i];
      op->strides[d] = stride;
      stride *= op->sizes[d] + (g_rand_int_range (rng, 0, 4) == 0 ? 1 : 0);
    }
  for (int i = 0; i < op->ndim; i++)
    extent += (op->sizes[i] - 1) * op->strides[i];
  for (int i = 0; i < op->ndim; i++)
    if (op->sizes[i] == 0)
      extent = 1;
  op->buf = std::vector<char> (extent * es + 16);
  for (gint64 e = 0; e < extent; e++)
    random_element (op->buf.data () + e * es, dt, values);
}

/* a random loop shape: up to 5 dims of up to 5 elements, empty sometimes */
static int
random_shape (gint64 *shape)
{
  int ndim = g_rand_int_range (rng, 0, 6);

  for (int i = 0; i < ndim; i++)
    shape[i] = g_rand_int_range (rng, 1, 6);
  if (ndim > 0 && g_rand_int_range (rng, 0, 40) == 0)
    shape[0] = 0;
  return ndim;
}

static void
init_iter (DlIter *iter, std::vector<Operand> &ops, const gint64 *shape, int ndim)
{
  DlIterOperand io[DL_CUDA_MAX_OPERANDS];

  for (size_t k = 0; k < ops.size (); k++)
    io[k] = (DlIterOperand){ ops[k].buf.data (), ops[k].sizes, ops[k].strides, ops[k].ndim,
                             (gint)dl_dtype_get_size (ops[k].dtype) };
  dl_iter_init_operands (iter, (gint)ops.size (), io, shape, ndim);
}

/* Runs @body (it, offsets) over every element of @iter on the host, the
 * way the grid-stride kernels do, with operand 0 moved into @out_buf. */
template <typename F>
static void
run_host (const DlIter *iter, const Operand &out, std::vector<char> &out_buf, F body)
{
  DlCudaIter it;

  dl_cuda_iter_from (&it, iter);
  it.data[0] = out_buf.data () + (iter->data[0] - out.buf.data ());
  for (int64_t i = 0; i < it.numel; i++)
    {
      int64_t off[DL_CUDA_MAX_OPERANDS];
      dl_cuda_iter_offsets (it, i, off);
      body (it, off);
    }
}

/* Compares the output buffers element by element (every byte, so that
 * elements outside the view must be untouched too): integers, bool and
 * the 16-bit floats exactly, float32 and float64 within @rtol (0: bit
 * for bit but for the sign of zero and NaN's payload) */
static void
compare (const char *what,
         const Operand &out,
         const std::vector<char> &mine,
         double rtol,
         double atol_wide = 0)
{
  gsize es = dl_dtype_get_size (out.dtype);
  gsize n = out.buf.size () / es;

  for (gsize e = 0; e < n; e++)
    {
      const char *a = out.buf.data () + e * es, *b = mine.data () + e * es;
      bool ok;

      if (out.dtype == DL_DTYPE_FLOAT32 || out.dtype == DL_DTYPE_FLOAT64)
        {
          double x = dl_cuda_load_f (a, out.dtype), y = dl_cuda_load_f (b, out.dtype);
          double atol = rtol == 0 ? 0 : (out.dtype == DL_DTYPE_FLOAT32 ? 1e-6 : 1e-13);
          atol = MAX (atol, atol_wide);
          ok = (x != x && y != y) || x == y
               || (!isinf (x) && !isinf (y) && fabs (x - y) <= rtol * fabs (x) + atol);
          if (!ok)
            g_error ("%s: element %" G_GSIZE_FORMAT ": CPU %.17g, CUDA body %.17g", what, e, x, y);
        }
      else if (out.dtype == DL_DTYPE_FLOAT16 || out.dtype == DL_DTYPE_BFLOAT16)
        {
          double x = dl_cuda_load_f (a, out.dtype), y = dl_cuda_load_f (b, out.dtype);
          ok = (x != x && y != y) || memcmp (a, b, 2) == 0;
          if (!ok)
            g_error ("%s: element %" G_GSIZE_FORMAT ": CPU %.9g (0x%04x), CUDA body %.9g (0x%04x)",
                     what, e, x, *(const uint16_t *)a, y, *(const uint16_t *)b);
        }
      else if (memcmp (a, b, es) != 0)
        {
          gint64 x = 0, y = 0;
          memcpy (&x, a, es);
          memcpy (&y, b, es);
          g_error ("%s: element %" G_GSIZE_FORMAT ": CPU %" G_GINT64_FORMAT
                   ", CUDA body %" G_GINT64_FORMAT,
                   what, e, x, y);
        }
    }
}

#define N_CASES 40

/* ---- copy and fill ---------------------------------------------------------- */

static void
test_copy (void)
{
  for (DlDType src : all_dtypes)
    for (DlDType dst : all_dtypes)
      for (int c = 0; c < N_CASES; c++)
        {
          gint64 shape[DL_MAX_DIMS];
          int ndim = random_shape (shape);
          bool to_int = is_float (src) && !is_float (dst) && dst != DL_DTYPE_BOOL;
          std::vector<Operand> ops (2);
          g_auto (DlIter) iter = DL_ITER_INIT;
          g_autofree char *what = NULL;

          make_operand (&ops[0], dst, shape, ndim, false, VALUES_ANY);
          make_operand (&ops[1], src, shape, ndim, true, to_int ? VALUES_INT_SAFE : VALUES_ANY);
          std::vector<char> mine (ops[0].buf);
          init_iter (&iter, ops, shape, ndim);
          cpu_ctx.backend->copy (&cpu_ctx, &iter, dst, src);
          run_host (&iter, ops[0], mine, [&] (const DlCudaIter &it, const int64_t *off) {
            dl_cuda_copy_elem (it.data[0] + off[0], dst, it.data[1] + off[1], src);
          });
          what = g_strdup_printf ("copy %s -> %s, case %d", dl_dtype_get_name (src),
                                  dl_dtype_get_name (dst), c);
          compare (what, ops[0], mine, 0);
        }
}

/* every float16 and bfloat16 bit pattern converted to float32 and back */
static void
test_copy_16bit_exhaustive (void)
{
  for (DlDType dt : { DL_DTYPE_FLOAT16, DL_DTYPE_BFLOAT16 })
    for (DlDType other : { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64 })
      {
        gint64 shape[1] = { 65536 };
        std::vector<Operand> ops (2);
        g_auto (DlIter) iter = DL_ITER_INIT;

        make_operand (&ops[0], other, shape, 1, false, VALUES_ANY);
        ops[0].strides[0] = 1;
        ops[0].buf = std::vector<char> (65536 * dl_dtype_get_size (other));
        ops[1].dtype = dt;
        ops[1].ndim = 1;
        ops[1].sizes[0] = 65536;
        ops[1].strides[0] = 1;
        ops[1].buf.resize (65536 * 2);
        for (int i = 0; i < 65536; i++)
          *(uint16_t *)(ops[1].buf.data () + 2 * i) = (uint16_t)i;
        /* widen */
        std::vector<char> mine (ops[0].buf);
        init_iter (&iter, ops, shape, 1);
        cpu_ctx.backend->copy (&cpu_ctx, &iter, other, dt);
        run_host (&iter, ops[0], mine, [&] (const DlCudaIter &it, const int64_t *off) {
          dl_cuda_copy_elem (it.data[0] + off[0], other, it.data[1] + off[1], dt);
        });
        compare ("16-bit widening, every pattern", ops[0], mine, 0);
        /* and back: the 16-bit values are the output */
        std::swap (ops[0], ops[1]);
        mine.resize (ops[0].buf.size ());
        memset (mine.data (), 0, mine.size ());
        memset (ops[0].buf.data (), 0, ops[0].buf.size ());
        dl_iter_clear (&iter);
        init_iter (&iter, ops, shape, 1);
        cpu_ctx.backend->copy (&cpu_ctx, &iter, dt, other);
        run_host (&iter, ops[0], mine, [&] (const DlCudaIter &it, const int64_t *off) {
          dl_cuda_copy_elem (it.data[0] + off[0], dt, it.data[1] + off[1], other);
        });
        compare ("16-bit narrowing of every pattern", ops[0], mine, 0);
      }
}

static void
test_fill (void)
{
  static const double values[]
      = { 0, -0.0, 1, -1, 2.5, 3.75, 1.0 + 1.0 / 2048, 65520, 1e-7, 255, 300, -7, NAN, INFINITY };

  for (DlDType dt : all_dtypes)
    for (double v : values)
      for (int c = 0; c < 4; c++)
        {
          gint64 shape[DL_MAX_DIMS];
          int ndim = random_shape (shape);
          std::vector<Operand> ops (1);
          g_auto (DlIter) iter = DL_ITER_INIT;
          DlCudaFillBytes bytes;
          g_autofree char *what = NULL;
          gsize es = dl_dtype_get_size (dt);

          /* C leaves float to integer conversions out of range undefined */
          if (!is_float (dt) && dt != DL_DTYPE_BOOL && (v != v || isinf (v) || v < 0 || v > 255))
            continue;
          make_operand (&ops[0], dt, shape, ndim, false, VALUES_ANY);
          std::vector<char> mine (ops[0].buf);
          init_iter (&iter, ops, shape, ndim);
          cpu_ctx.backend->fill (&cpu_ctx, &iter, dt, v);
          bytes = dl_cuda_fill_bytes (dt, v);
          run_host (&iter, ops[0], mine, [&] (const DlCudaIter &it, const int64_t *off) {
            dl_cuda_fill_elem (it.data[0] + off[0], bytes.bytes, (int)es);
          });
          what = g_strdup_printf ("fill %s with %g", dl_dtype_get_name (dt), v);
          compare (what, ops[0], mine, 0);
        }
}

/* ---- unary, binary, ternary ------------------------------------------------- */

static const DlDType compute_dtypes[] = {
  DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_INT32, DL_DTYPE_INT64, DL_DTYPE_UINT8, DL_DTYPE_BOOL,
};

/* the relative tolerance of a float op: 0 (exact) for those that round
 * once in IEEE arithmetic, more where the CPU's vector math library and
 * the C library's (the device's) may differ by a few ulp */
static double
unary_rtol (DlUnaryOp op, DlDType dt)
{
  switch (op)
    {
      case DL_UNARY_NEG:
      case DL_UNARY_RELU:
      case DL_UNARY_ABS:
      case DL_UNARY_SIGN:
      case DL_UNARY_FLOOR:
      case DL_UNARY_CEIL:
      case DL_UNARY_ROUND:
      case DL_UNARY_TRUNC:
      case DL_UNARY_FRAC:
      case DL_UNARY_NAN_TO_NUM:
      case DL_UNARY_LEAKY_RELU:
      case DL_UNARY_HARDTANH:
      case DL_UNARY_HARDSHRINK:
      case DL_UNARY_THRESHOLD:
      case DL_UNARY_ISNAN:
      case DL_UNARY_ISINF:
      case DL_UNARY_ISFINITE:
        return 0;
      default:
        return dt == DL_DTYPE_FLOAT32 ? 2e-5 : 1e-12;
    }
}

static void
test_unary (void)
{
  static const double nan_to_num[] = { 0.5, 1e3, -1e3 }, slope[] = { 0.01 }, eps[] = { 1e-3 },
                      order[] = { 1 }, bounds[] = { -0.5, 1.5 }, elu[] = { 0.7, 1.05, 0.5 },
                      lambd[] = { 0.5 }, threshold[] = { 0.3, -2 };

  for (int o = 0; o < DL_N_UNARY_OPS; o++)
    for (DlDType dt : compute_dtypes)
      {
        DlUnaryOp op = (DlUnaryOp)o;
        /* the ops from DL_UNARY_NAN_TO_NUM on take numbers */
        bool with_params = op >= DL_UNARY_NAN_TO_NUM;
        const double *params = op == DL_UNARY_NAN_TO_NUM   ? nan_to_num
                               : op == DL_UNARY_LOGIT      ? eps
                               : op == DL_UNARY_POLYGAMMA  ? order
                               : op == DL_UNARY_HARDTANH   ? bounds
                               : op == DL_UNARY_ELU        ? elu
                               : op == DL_UNARY_HARDSHRINK ? lambd
                               : op == DL_UNARY_SOFTSHRINK ? lambd
                               : op == DL_UNARY_THRESHOLD  ? threshold
                                                           : slope;
        DlDType out_dt = dl_cuda_unary_is_predicate (op) ? DL_DTYPE_BOOL : dt;

        if (!dl_cuda_unary_supported (op, dt))
          continue;
        for (int c = 0; c < N_CASES; c++)
          {
            gint64 shape[DL_MAX_DIMS];
            int ndim = random_shape (shape);
            std::vector<Operand> ops (2);
            g_auto (DlIter) iter = DL_ITER_INIT;
            g_autofree char *what = NULL;

            make_operand (&ops[0], out_dt, shape, ndim, false, VALUES_ANY);
            make_operand (&ops[1], dt, shape, ndim, true, VALUES_ANY);
            std::vector<char> mine (ops[0].buf);
            init_iter (&iter, ops, shape, ndim);
            if (with_params)
              cpu_ctx.backend->unary_params (&cpu_ctx, op, &iter, dt, params);
            else
              cpu_ctx.backend->unary (&cpu_ctx, op, &iter, dt);
            run_host (&iter, ops[0], mine, [&] (const DlCudaIter &it, const int64_t *off) {
              dl_cuda_unary_elem (op, dt, it.data[0] + off[0], it.data[1] + off[1],
                                  with_params ? params : NULL);
            });
            what = g_strdup_printf ("unary op %d on %s, case %d", o, dl_dtype_get_name (dt), c);
            compare (what, ops[0], mine, unary_rtol (op, dt));
          }
      }
}

static void
test_binary (void)
{
  for (int o = 0; o < DL_N_BINARY_OPS; o++)
    for (DlDType dt : compute_dtypes)
      {
        DlBinaryOp op = (DlBinaryOp)o;
        DlDType out_dt = DL_BINARY_IS_COMPARISON (op) ? DL_DTYPE_BOOL : dt;
        bool int_div = !is_float (dt)
                       && (op == DL_BINARY_DIV || op == DL_BINARY_FLOOR_DIVIDE
                           || op == DL_BINARY_TRUNC_DIVIDE || op == DL_BINARY_REMAINDER
                           || op == DL_BINARY_FMOD);
        bool int_arith = !is_float (dt)
                         && (op == DL_BINARY_ADD || op == DL_BINARY_SUB || op == DL_BINARY_MUL
                             || op == DL_BINARY_POW);
        /* the math library's functions (and the CPU clone's FMA) may differ
         * in the last bit */
        bool libm = op == DL_BINARY_POW || op == DL_BINARY_ATAN2 || op == DL_BINARY_HYPOT
                    || op == DL_BINARY_XLOGY || op == DL_BINARY_LOGADDEXP
                    || op == DL_BINARY_LOGADDEXP2;
        double rtol = is_float (dt) && libm
                          ? (dt == DL_DTYPE_FLOAT32 ? 2e-5 : 1e-12)
                      : is_float (dt) && (op == DL_BINARY_ADD || op == DL_BINARY_SUB)
                          /* the CPU's AVX2 clone may fuse a + alpha * b */
                          ? (dt == DL_DTYPE_FLOAT32 ? 1e-6 : 1e-15)
                          : 0;

        if (!dl_cuda_binary_supported (op, dt))
          continue;
        for (int c = 0; c < N_CASES; c++)
          {
            static const double float_alphas[] = { 1, -1, 2, 0.5, -1.5 };
            static const double int_alphas[] = { 1, 2, 3 };
            gint64 shape[DL_MAX_DIMS];
            int ndim = random_shape (shape);
            std::vector<Operand> ops (3);
            g_auto (DlIter) iter = DL_ITER_INIT;
            g_autofree char *what = NULL;
            double alpha = is_float (dt) ? float_alphas[c % G_N_ELEMENTS (float_alphas)]
                                         : int_alphas[c % G_N_ELEMENTS (int_alphas)];

            make_operand (&ops[0], out_dt, shape, ndim, false, VALUES_ANY);
            make_operand (&ops[1], dt, shape, ndim, true, int_arith ? VALUES_SMALL : VALUES_ANY);
            make_operand (&ops[2], dt, shape, ndim, true,
                          int_div     ? VALUES_NONZERO
                          : int_arith ? VALUES_SMALL
                                      : VALUES_ANY);
            std::vector<char> mine (ops[0].buf);
            init_iter (&iter, ops, shape, ndim);
            cpu_ctx.backend->binary (&cpu_ctx, op, &iter, dt, alpha);
            run_host (&iter, ops[0], mine, [&] (const DlCudaIter &it, const int64_t *off) {
              dl_cuda_binary_elem (op, dt, it.data[0] + off[0], it.data[1] + off[1],
                                   it.data[2] + off[2], alpha);
            });
            what = g_strdup_printf ("binary op %d on %s (alpha %g), case %d", o,
                                    dl_dtype_get_name (dt), alpha, c);
            compare (what, ops[0], mine, rtol);
          }
      }
}

static void
test_ternary (void)
{
  for (int o = 0; o < DL_N_TERNARY_OPS; o++)
    for (DlDType dt : all_dtypes)
      {
        DlTernaryOp op = (DlTernaryOp)o;
        int n_inputs = op == DL_TERNARY_CLAMP_SCALAR ? 1 : op == DL_TERNARY_LERP_SCALAR ? 2 : 3;

        if (!dl_cuda_ternary_supported (op, dt))
          continue;
        for (int c = 0; c < N_CASES; c++)
          {
            static const double params_list[][2]
                = { { 0.5, 2 }, { -1, 1 }, { 3, -2 }, { NAN, 1 }, { -0.25, NAN } };
            const double *params = params_list[c % G_N_ELEMENTS (params_list)];
            double int_params[2] = { (double)(c % 5 - 2), 0 };
            gint64 shape[DL_MAX_DIMS];
            int ndim = random_shape (shape);
            std::vector<Operand> ops (1 + n_inputs);
            g_auto (DlIter) iter = DL_ITER_INIT;
            g_autofree char *what = NULL;

            if (!is_float (dt))
              params = int_params;
            make_operand (&ops[0], dt, shape, ndim, false, VALUES_ANY);
            for (int k = 1; k <= n_inputs; k++)
              make_operand (&ops[k], op == DL_TERNARY_WHERE && k == 1 ? DL_DTYPE_BOOL : dt, shape,
                            ndim, true, VALUES_ANY);
            std::vector<char> mine (ops[0].buf);
            init_iter (&iter, ops, shape, ndim);
            cpu_ctx.backend->ternary (&cpu_ctx, op, &iter, dt, params);
            run_host (&iter, ops[0], mine, [&] (const DlCudaIter &it, const int64_t *off) {
              dl_cuda_ternary_elem (op, dt, it.data[0] + off[0], it.data[1] + off[1],
                                    n_inputs > 1 ? it.data[2] + off[2] : NULL,
                                    n_inputs > 2 ? it.data[3] + off[3] : NULL, params);
            });
            what = g_strdup_printf ("ternary op %d on %s, case %d", o, dl_dtype_get_name (dt), c);
            compare (what, ops[0], mine, 0);
          }
      }
}

/* ---- scan -------------------------------------------------------------------------- */

static void
test_scan (void)
{
  for (DlScanOp op : { DL_SCAN_CUMSUM, DL_SCAN_CUMPROD })
    for (DlDType dt : all_dtypes)
      for (int c = 0; c < N_CASES; c++)
        {
          gint64 rows = g_rand_int_range (rng, 0, 5), n = g_rand_int_range (rng, 0, 30);
          gsize es = dl_dtype_get_size (dt);
          Operand out;

          out.dtype = dt;
          out.buf = std::vector<char> (rows * n * es + 16);
          for (gint64 e = 0; e < rows * n; e++)
            random_element (out.buf.data () + e * es, dt,
                            op == DL_SCAN_CUMPROD && is_float (dt) ? VALUES_SMALL : VALUES_ANY);
          std::vector<char> mine (out.buf);
          cpu_ctx.backend->scan (&cpu_ctx, op, out.buf.data (), rows, n, dt);
          for (gint64 r = 0; r < rows; r++)
            dl_cuda_scan_row (op, dt, mine.data () + r * n * es, n);
          g_autofree char *what = g_strdup_printf (
              "%s of %s, %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT,
              op == DL_SCAN_CUMSUM ? "cumsum" : "cumprod", dl_dtype_get_name (dt), rows, n);
          compare (what, out, mine, 0);
        }
}

/* ---- softmax ------------------------------------------------------------------ */

static void
test_softmax (void)
{
  for (DlDType dt : { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64 })
    for (bool log : { false, true })
      for (int c = 0; c < N_CASES; c++)
        {
          gint64 rows = g_rand_int_range (rng, 1, 6), n = g_rand_int_range (rng, 1, 40);
          gsize es = dl_dtype_get_size (dt);
          Operand out;
          std::vector<char> in (rows * n * es);

          out.dtype = dt;
          out.buf = std::vector<char> (rows * n * es);
          for (gint64 e = 0; e < rows * n; e++)
            {
              /* mostly ordinary rows; now and then a NaN, an infinity or a
               * row of -inf */
              double v = g_rand_int_range (rng, 0, 30) == 0 ? random_float (VALUES_ANY)
                                                            : g_rand_double_range (rng, -20, 20);
              if (c == 3)
                v = -INFINITY;
              dl_cuda_store (in.data () + e * es, dt, v);
            }
          std::vector<char> mine (out.buf);
          cpu_ctx.backend->softmax (&cpu_ctx, in.data (), out.buf.data (), rows, n, dt, log);
          for (gint64 r = 0; r < rows; r++)
            {
              if (dt == DL_DTYPE_FLOAT32)
                dl_cuda_softmax_row ((const float *)in.data () + r * n,
                                     (float *)mine.data () + r * n, n, log);
              else
                dl_cuda_softmax_row ((const double *)in.data () + r * n,
                                     (double *)mine.data () + r * n, n, log);
            }
          g_autofree char *what
              = g_strdup_printf ("%s %s, %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT,
                                 log ? "log_softmax" : "softmax", dl_dtype_get_name (dt), rows, n);
          compare (what, out, mine, dt == DL_DTYPE_FLOAT32 ? 1e-5 : 1e-12);
        }
}

/* ---- reduce ----------------------------------------------------------------------- */

/* what the reduce kernels compute, on the host: each output's inner
 * positions in @chunks ranges (at most n_inner), then combined */
static void
run_reduce_host (DlReduceOp op, DlDType dt, const DlReduceArgs &a, int64_t chunks)
{
  int64_t n_outer = 1, n_inner = 1;

  for (int d = 0; d < a.outer_ndim; d++)
    n_outer *= a.outer_shape[d];
  for (int d = 0; d < a.inner_ndim; d++)
    n_inner *= a.inner_shape[d];
  if (n_inner == 0)
    {
      for (int64_t o = 0; o < n_outer; o++)
        dl_cuda_reduce_store (op, dt, a, o, dl_cuda_reduce_identity (op), 0);
      return;
    }
  chunks = MIN (chunks, n_inner);
  std::vector<DlCudaAcc> partials (n_outer * chunks);
  for (int64_t t = 0; t < n_outer * chunks; t++)
    {
      int64_t begin, end;
      dl_cuda_chunk_range (t % chunks, chunks, n_inner, &begin, &end);
      partials[t] = dl_cuda_reduce_range (op, dt, a, t / chunks, begin, end);
    }
  for (int64_t o = 0; o < n_outer; o++)
    {
      DlCudaAcc acc = partials[o * chunks];
      for (int64_t c = 1; c < chunks; c++)
        dl_cuda_reduce_combine (op, dt, &acc, partials[o * chunks + c]);
      dl_cuda_reduce_store (op, dt, a, o, acc, n_inner);
    }
}

static void
test_reduce (void)
{
  static const DlReduceOp ops[]
      = { DL_REDUCE_SUM,  DL_REDUCE_MEAN, DL_REDUCE_MAX, DL_REDUCE_MIN,
          DL_REDUCE_PROD, DL_REDUCE_ALL,  DL_REDUCE_ANY, DL_REDUCE_NANSUM };

  g_assert_cmpint (dl_cuda_reduce_chunks (1, 10), ==, 1);
  g_assert_cmpint (dl_cuda_reduce_chunks (1, 1 << 24), ==, 4096);
  g_assert_cmpint (dl_cuda_reduce_chunks (1 << 20, 1 << 20), ==, 1);
  for (DlReduceOp op : ops)
    for (DlDType dt : all_dtypes)
      {
        bool is_extremum = op == DL_REDUCE_MAX || op == DL_REDUCE_MIN;
        bool int_out = !is_float (dt)
                       && (op == DL_REDUCE_SUM || op == DL_REDUCE_NANSUM || op == DL_REDUCE_PROD);
        DlDType out_dt = op == DL_REDUCE_ALL || op == DL_REDUCE_ANY ? DL_DTYPE_BOOL
                         : int_out                                  ? DL_DTYPE_INT64
                                                                    : dt;
        bool sum_like = op == DL_REDUCE_SUM || op == DL_REDUCE_MEAN || op == DL_REDUCE_NANSUM;

        if (op == DL_REDUCE_MEAN && !is_float (dt))
          continue;
        for (int c = 0; c < N_CASES; c++)
          {
            gint64 shape[DL_MAX_DIMS];
            int ndim = random_shape (shape), n_inner_dims = 0;
            bool reduced[DL_MAX_DIMS];
            Operand in;
            DlReduceArgs a = {};
            gint64 n_outer = 1, n_inner = 1;
            gsize es = dl_dtype_get_size (dt), oes = dl_dtype_get_size (out_dt);

            if (ndim == 0)
              {
                ndim = 1;
                shape[0] = 1;
              }
            make_operand (&in, dt, shape, ndim, false,
                          op == DL_REDUCE_PROD && !is_float (dt) ? VALUES_SMALL : VALUES_ANY);
            /* the reduced dims: one (indices then asked for max and min) or several */
            for (int d = 0; d < ndim; d++)
              reduced[d] = g_rand_int_range (rng, 0, 2) == 0;
            /* at least one reduced dim, as the ops layer hands over */
            if (g_rand_boolean (rng) || std::find (reduced, reduced + ndim, true) == reduced + ndim)
              {
                int only = g_rand_int_range (rng, 0, ndim);
                for (int d = 0; d < ndim; d++)
                  reduced[d] = d == only;
              }
            for (int d = 0; d < ndim; d++)
              if (reduced[d])
                {
                  a.inner_shape[a.inner_ndim] = shape[d];
                  a.in_inner_strides[a.inner_ndim++] = in.strides[d] * es;
                  n_inner *= shape[d];
                  n_inner_dims++;
                }
              else
                {
                  a.outer_shape[a.outer_ndim] = shape[d];
                  a.in_outer_strides[a.outer_ndim++] = in.strides[d] * es;
                  n_outer *= shape[d];
                }
            if (is_extremum && n_inner == 0)
              continue;
            /* the output: row-major over the outer dims, every other
             * element when asked; indices the same */
            gint64 ostride = g_rand_boolean (rng) ? 2 : 1;
            for (int d = a.outer_ndim - 1; d >= 0; d--)
              {
                a.out_strides[d] = ostride * oes;
                a.indices_strides[d] = ostride * 8;
                ostride *= a.outer_shape[d];
              }
            Operand out, idx;
            out.dtype = out_dt;
            out.buf = std::vector<char> (MAX (ostride, 1) * oes + 16);
            for (gsize e = 0; e < out.buf.size () / oes; e++)
              random_element (out.buf.data () + e * oes, out_dt, VALUES_ANY);
            idx.dtype = DL_DTYPE_INT64;
            idx.buf.resize (MAX (ostride, 1) * 8 + 16);
            for (size_t e = 0; e < idx.buf.size (); e++)
              idx.buf[e] = 0x55;
            bool want_indices = is_extremum && n_inner_dims == 1;
            a.in = in.buf.data ();
            a.out = out.buf.data ();
            a.indices = want_indices ? idx.buf.data () : NULL;
            cpu_ctx.backend->reduce (&cpu_ctx, op, &a, dt);
            for (int64_t chunks : { (int64_t)1, (int64_t)3, n_inner })
              {
                /* elements of out that the reduction does not write keep
                 * the CPU run's garbage: start from it, the written ones
                 * overwritten */
                std::vector<char> mine (out.buf), mine_idx (idx.buf);
                for (size_t e = 0; e < mine_idx.size (); e++)
                  mine_idx[e] = 0x55;
                for (int64_t o = 0; o < n_outer; o++)
                  dl_cuda_store (
                      mine.data ()
                          + dl_cuda_nest_offset (o, a.outer_ndim, a.outer_shape, a.out_strides),
                      out_dt, 99.0);
                a.out = mine.data ();
                a.indices = want_indices ? mine_idx.data () : NULL;
                run_reduce_host (op, dt, a, MAX (chunks, 1));
                a.out = out.buf.data ();
                a.indices = want_indices ? idx.buf.data () : NULL;
                g_autofree char *what = g_strdup_printf (
                    "reduce op %d of %s, %" G_GINT64_FORMAT " outputs of %" G_GINT64_FORMAT
                    " (%d dims), %" G_GINT64_FORMAT " chunks",
                    op, dl_dtype_get_name (dt), n_outer, n_inner, n_inner_dims, chunks);
                compare (what, out, mine,
                         sum_like               ? (dt == DL_DTYPE_FLOAT32 ? 1e-5 : 1e-12)
                         : op == DL_REDUCE_PROD ? 1e-6
                                                : 0,
                         sum_like && dt == DL_DTYPE_FLOAT32 ? 1e-5 : 0);
                if (want_indices)
                  compare (what, idx, mine_idx, 0);
              }
          }
      }
}

/* ---- gemm_batched: cuBLAS' plan, the integer kernel ------------------------------ */

/* what cublasGemmStridedBatchedEx computes for @p (column-major, alpha 1,
 * beta 0), in double, over the outer batch dims as dl-cuda-blas.c loops */
template <typename T>
static void
emulate_cublas (const DlGemmArgs *g, const DlCudaGemmPlan *p)
{
  gint64 idx[DL_MAX_DIMS] = { 0 };

  for (gint64 o = 0; o < p->n_outer; o++)
    {
      gint64 oa = 0, ob = 0, oc = 0;

      for (int d = 0; d < p->outer_ndim; d++)
        {
          oa += idx[d] * g->a_batch_strides[d];
          ob += idx[d] * g->b_batch_strides[d];
          oc += idx[d] * g->c_batch_strides[d];
        }
      for (gint64 b = 0; b < p->count; b++)
        {
          const T *x = (const T *)g->b + ob + b * p->sx, *y = (const T *)g->a + oa + b * p->sy;
          T *c = (T *)g->c + oc + b * p->sc;

          for (gint64 i = 0; i < p->m; i++)
            for (gint64 j = 0; j < p->n; j++)
              {
                double sum = 0;
                for (gint64 l = 0; l < p->k; l++)
                  sum += (double)(p->trans_x ? x[l + i * p->ldx] : x[i + l * p->ldx])
                         * (double)(p->trans_y ? y[j + l * p->ldy] : y[l + j * p->ldy]);
                c[i + j * p->ldc] = (T)sum;
              }
        }
      for (int d = p->outer_ndim - 1; d >= 0; d--)
        {
          if (++idx[d] < g->batch_shape[d])
            break;
          idx[d] = 0;
        }
    }
}

/* a matrix of rows x cols, row-major or column-major, with padding: its
 * (rs, cs) and the elements one matrix spans */
static gint64
random_matrix_layout (gint64 rows, gint64 cols, bool force_row_major, gint64 *rs, gint64 *cs)
{
  gint64 pad = g_rand_int_range (rng, 0, 3);

  if (force_row_major || g_rand_boolean (rng))
    {
      *cs = 1;
      *rs = cols + pad;
      return rows * *rs;
    }
  *rs = 1;
  *cs = rows + pad;
  return cols * *cs;
}

static void
test_gemm (void)
{
  for (DlDType dt :
       { DL_DTYPE_FLOAT32, DL_DTYPE_FLOAT64, DL_DTYPE_INT32, DL_DTYPE_INT64, DL_DTYPE_UINT8 })
    for (int c = 0; c < 200; c++)
      {
        DlGemmArgs g = {};
        DlCudaGemmPlan p;
        gint64 span_a, span_b, span_c, n_batch = 1, stride_a = 0, stride_b = 0, stride_c;
        gsize es = dl_dtype_get_size (dt);
        bool share_a = g_rand_int_range (rng, 0, 4) == 0,
             share_b = !share_a && g_rand_int_range (rng, 0, 4) == 0;

        g.m = g_rand_int_range (rng, 1, 7);
        g.n = g_rand_int_range (rng, 1, 7);
        g.k = g_rand_int_range (rng, 1, 7);
        span_a = random_matrix_layout (g.m, g.k, false, &g.a_rs, &g.a_cs);
        span_b = random_matrix_layout (g.k, g.n, false, &g.b_rs, &g.b_cs);
        span_c = random_matrix_layout (g.m, g.n, true, &g.c_rs, &g.c_cs);
        g.batch_ndim = g_rand_int_range (rng, 0, 4);
        /* batch dims row-major over the products, A or B shared by all */
        stride_c = span_c;
        stride_a = share_a ? 0 : span_a;
        stride_b = share_b ? 0 : span_b;
        for (int d = g.batch_ndim - 1; d >= 0; d--)
          {
            g.batch_shape[d] = g_rand_int_range (rng, 1, 4);
            g.a_batch_strides[d] = stride_a;
            g.b_batch_strides[d] = stride_b;
            g.c_batch_strides[d] = stride_c;
            stride_a *= g.batch_shape[d];
            stride_b *= g.batch_shape[d];
            stride_c *= g.batch_shape[d];
            n_batch *= g.batch_shape[d];
          }
        std::vector<char> a ((share_a ? 1 : n_batch) * span_a * es),
            b ((share_b ? 1 : n_batch) * span_b * es), c_cpu (n_batch * span_c * es);
        for (gsize e = 0; e < a.size () / es; e++)
          random_element (a.data () + e * es, dt, is_float (dt) ? VALUES_SMALL : VALUES_ANY);
        for (gsize e = 0; e < b.size () / es; e++)
          random_element (b.data () + e * es, dt, is_float (dt) ? VALUES_SMALL : VALUES_ANY);
        for (gsize e = 0; e < c_cpu.size () / es; e++)
          dl_cuda_store (c_cpu.data () + e * es, dt, 1234.5);
        std::vector<char> c_mine (c_cpu);
        g.a = a.data ();
        g.b = b.data ();
        g.c = c_cpu.data ();
        cpu_ctx.backend->gemm_batched (&cpu_ctx, dt, &g);
        g.c = c_mine.data ();
        dl_cuda_gemm_plan (&g, &p);
        /* cuBLAS' own checks on its arguments */
        g_assert_cmpint (p.ldx, >=, MAX (1, p.trans_x ? p.k : p.m));
        g_assert_cmpint (p.ldy, >=, MAX (1, p.trans_y ? p.n : p.k));
        g_assert_cmpint (p.ldc, >=, MAX (1, p.m));
        if (dt == DL_DTYPE_FLOAT32)
          emulate_cublas<float> (&g, &p);
        else if (dt == DL_DTYPE_FLOAT64)
          emulate_cublas<double> (&g, &p);
        else
          /* integers: the kernel's body over every output of the batch */
          for (gint64 t = 0; t < n_batch * g.m * g.n; t++)
            dl_cuda_gemm_int_elem (dt, g, t);
        Operand out;
        out.dtype = dt;
        out.buf = c_cpu;
        g_autofree char *what = g_strdup_printf (
            "gemm %s %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
            " a (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") b (%" G_GINT64_FORMAT
            ", %" G_GINT64_FORMAT ") batch dims %d",
            dl_dtype_get_name (dt), g.m, g.n, g.k, g.a_rs, g.a_cs, g.b_rs, g.b_cs, g.batch_ndim);
        compare (what, out, c_mine, dt == DL_DTYPE_FLOAT32 ? 1e-5 : 1e-12,
                 dt == DL_DTYPE_FLOAT32 ? 1e-5 : 0);
      }
}

/* the offsets of every element of a 3-d iterator by hand */
static void
test_offsets (void)
{
  DlCudaIter it = {};
  int64_t i = 0;

  it.ndim = 3;
  it.n_operands = 2;
  it.shape[0] = 2;
  it.shape[1] = 3;
  it.shape[2] = 4;
  it.numel = 24;
  it.strides[0][0] = 96;
  it.strides[0][1] = 32;
  it.strides[0][2] = 8;
  it.strides[1][0] = 0;
  it.strides[1][1] = 4;
  it.strides[1][2] = 12;
  for (int64_t a = 0; a < 2; a++)
    for (int64_t b = 0; b < 3; b++)
      for (int64_t c = 0; c < 4; c++, i++)
        {
          int64_t off[DL_CUDA_MAX_OPERANDS];
          dl_cuda_iter_offsets (it, i, off);
          g_assert_cmpint (off[0], ==, a * 96 + b * 32 + c * 8);
          g_assert_cmpint (off[1], ==, b * 4 + c * 12);
        }
}

int
main (int argc, char **argv)
{
  DlDeviceTypeInfo info;

  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (20261128);
  dl_cpu_get_device_type_info (&info);
  cpu_ctx.backend = info.backend;
  cpu_ctx.device_index = -1;
  if (info.context_init && !info.context_init (&cpu_ctx, NULL))
    g_error ("the CPU backend's context_init failed");

  g_test_add_func ("/cuda-kernels/offsets", test_offsets);
  g_test_add_func ("/cuda-kernels/copy", test_copy);
  g_test_add_func ("/cuda-kernels/copy-16bit-exhaustive", test_copy_16bit_exhaustive);
  g_test_add_func ("/cuda-kernels/fill", test_fill);
  g_test_add_func ("/cuda-kernels/unary", test_unary);
  g_test_add_func ("/cuda-kernels/binary", test_binary);
  g_test_add_func ("/cuda-kernels/ternary", test_ternary);
  g_test_add_func ("/cuda-kernels/reduce", test_reduce);
  g_test_add_func ("/cuda-kernels/scan", test_scan);
  g_test_add_func ("/cuda-kernels/softmax", test_softmax);
  g_test_add_func ("/cuda-kernels/gemm", test_gemm);
  int ret = g_test_run ();
  g_rand_free (rng);
  return ret;
}
