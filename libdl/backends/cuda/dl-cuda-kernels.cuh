/* dl-cuda-kernels.cuh: the work of one thread of each of the CUDA
 * module's kernels (an element of the elementwise ones, a range of a
 * reduction, a softmax row, an output of an integer GEMM), as inline
 * functions that compile both for the device (nvcc, in
 * dl-cuda-kernels.cu) and for the host (g++, in
 * tests/c/test-cuda-kernels.cpp, which runs them over host memory and
 * compares them with the CPU backend).
 *
 * Nothing here uses a CUDA intrinsic: element loads and stores are plain
 * pointer accesses, the 16-bit floats are converted bit by bit, and the
 * math is the C library's functions, which CUDA's device library also
 * provides. The semantics are the CPU backend's (dl-cpu-pointwise.c,
 * dl-cpu-math.c, dl-cpu-ternary.c): what each kernel does to each dtype,
 * which dtypes each op takes, integer division, NaN handling.
 *
 * A launch walks a DlCudaIter: the DlIter's shape and byte strides copied
 * by value into the kernel's arguments. Thread i computes the offsets of
 * linear element i in every operand (dl_cuda_iter_offsets) and runs the
 * body on them.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "backends/dl-backend.h"
#include "backends/dl-int-math.h"
#include "backends/dl-special-math.h"

#ifdef __CUDACC__
#define DL_HD __host__ __device__ inline
#else
#define DL_HD inline
#endif

/* the most operands a kernel here takes: where's (out, cond, a, b) */
#define DL_CUDA_MAX_OPERANDS 4

/* A DlIter by value: kernels receive it as an argument */
struct DlCudaIter
{
  int ndim;
  int n_operands;
  int64_t numel;
  int64_t shape[DL_MAX_DIMS];
  char *data[DL_CUDA_MAX_OPERANDS];
  int64_t strides[DL_CUDA_MAX_OPERANDS][DL_MAX_DIMS];
};

/* Fills @it from @iter, which has at most DL_CUDA_MAX_OPERANDS operands
 * (the ops layer hands iterators over already coalesced). */
static inline void
dl_cuda_iter_from (DlCudaIter *it, const DlIter *iter)
{
  it->ndim = iter->ndim;
  it->n_operands = iter->n_operands;
  it->numel = 1;
  for (int d = 0; d < iter->ndim; d++)
    {
      it->shape[d] = iter->shape[d];
      it->numel *= iter->shape[d];
    }
  for (int k = 0; k < DL_CUDA_MAX_OPERANDS; k++)
    {
      it->data[k] = k < iter->n_operands ? iter->data[k] : NULL;
      for (int d = 0; d < DL_MAX_DIMS; d++)
        it->strides[k][d] = k < iter->n_operands && d < iter->ndim ? iter->strides[k][d] : 0;
    }
}

/* The byte offsets of linear element @i (row-major over the shape, the
 * last dim fastest) in each of the iterator's operands. The outermost dim
 * takes what is left of @i without a division, so an iterator whose dims
 * coalesced into one (every contiguous operand) divides nothing. */
DL_HD void
dl_cuda_iter_offsets (const DlCudaIter &it, int64_t i, int64_t off[DL_CUDA_MAX_OPERANDS])
{
  for (int k = 0; k < DL_CUDA_MAX_OPERANDS; k++)
    off[k] = 0;
  for (int d = it.ndim - 1; d > 0 && i > 0; d--)
    {
      int64_t size = it.shape[d];
      int64_t idx = i % size;

      i /= size;
      for (int k = 0; k < DL_CUDA_MAX_OPERANDS; k++)
        off[k] += idx * it.strides[k][d];
    }
  if (it.ndim > 0)
    for (int k = 0; k < DL_CUDA_MAX_OPERANDS; k++)
      off[k] += i * it.strides[k][0];
}

/* ---- the 16-bit floats ---------------------------------------------------- */

DL_HD uint64_t
dl_cuda_double_bits (double x)
{
  uint64_t b;
  memcpy (&b, &x, 8);
  return b;
}

DL_HD float
dl_cuda_float_from_bits (uint32_t b)
{
  float f;
  memcpy (&f, &b, 4);
  return f;
}

/* float16 bits -> float (exact) */
DL_HD float
dl_cuda_half_to_float (uint16_t h)
{
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;

  if (exp == 0x1f) /* inf, nan */
    return dl_cuda_float_from_bits (sign | 0x7f800000u | (mant << 13));
  if (exp == 0)
    {
      /* zero and the subnormals: mant * 2^-24, exact in a float */
      float v = (float)mant * (1.0f / 16777216.0f);
      return sign ? -v : v;
    }
  return dl_cuda_float_from_bits (sign | ((exp + 112) << 23) | (mant << 13));
}

/* double -> float16 bits, rounded once to nearest even (a float converts
 * exactly to a double first, so this rounds floats right too); NaN stays a
 * quiet NaN, overflow gives infinity */
DL_HD uint16_t
dl_cuda_half_from_double (double x)
{
  uint64_t b = dl_cuda_double_bits (x);
  uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
  int exp = (int)((b >> 52) & 0x7ff);
  uint64_t mant = b & ((1ull << 52) - 1);
  uint64_t m, q, rem, half;
  int e, shift;

  if (exp == 0x7ff)
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp == 0)
    return sign; /* a double subnormal is far below float16's range */
  e = exp - 1023;
  if (e > 15)
    return sign | 0x7c00;
  m = mant | (1ull << 52);
  /* a normal float16 keeps 10 fraction bits; a subnormal counts units of
   * 2^-24 */
  shift = e >= -14 ? 42 : 42 + (-14 - e);
  if (shift > 63)
    return sign;
  q = m >> shift;
  rem = m & ((1ull << shift) - 1);
  half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1)))
    q++;
  if (e >= -14)
    /* q holds the implicit bit: exponent field (e + 15), and a carry out
     * of the fraction moves into the exponent (up to infinity) */
    return (uint16_t)(sign | (((uint64_t)(e + 14) << 10) + q));
  return (uint16_t)(sign | q);
}

/* bfloat16 bits -> float (exact) */
DL_HD float
dl_cuda_bf16_to_float (uint16_t v)
{
  return dl_cuda_float_from_bits ((uint32_t)v << 16);
}

/* float -> bfloat16 bits, to nearest even; NaN is 0x7fc0 (as the CPU) */
DL_HD uint16_t
dl_cuda_bf16_from_float (float f)
{
  uint32_t bits;

  if (f != f)
    return 0x7fc0;
  memcpy (&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return (uint16_t)(bits >> 16);
}

/* ---- loads and stores of every dtype ---------------------------------------
 * An element loads as its natural value: float for float32 and the 16-bit
 * floats, double, int32_t, int64_t, uint8_t (uint8 and bool). A store
 * converts a value of any of those types as the CPU's STORE_ macros do. */

template <typename T>
DL_HD T
dl_cuda_ld (const char *p)
{
  return *(const T *)p;
}

template <typename T>
DL_HD void
dl_cuda_st (char *p, T v)
{
  *(T *)p = v;
}

/* an integer of type I from a value: floats through int64 (in range the
 * same as a direct conversion; out of range the C conversion is
 * undefined and the CPU's result is x86's) */
template <typename I, typename V>
DL_HD I
dl_cuda_to_int (V v)
{
  if constexpr (std::is_floating_point<V>::value)
    return (I)(int64_t)v;
  else
    return (I)v;
}

template <typename V>
DL_HD void
dl_cuda_store (char *p, DlDType dt, V v)
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT32:
        dl_cuda_st<float> (p, (float)v);
        break;
      case DL_DTYPE_FLOAT64:
        dl_cuda_st<double> (p, (double)v);
        break;
      case DL_DTYPE_FLOAT16:
        dl_cuda_st<uint16_t> (p, dl_cuda_half_from_double ((double)v));
        break;
      case DL_DTYPE_BFLOAT16:
        dl_cuda_st<uint16_t> (p, dl_cuda_bf16_from_float ((float)v));
        break;
      case DL_DTYPE_INT32:
        dl_cuda_st<int32_t> (p, dl_cuda_to_int<int32_t> (v));
        break;
      case DL_DTYPE_INT64:
        dl_cuda_st<int64_t> (p, dl_cuda_to_int<int64_t> (v));
        break;
      case DL_DTYPE_UINT8:
        dl_cuda_st<uint8_t> (p, dl_cuda_to_int<uint8_t> (v));
        break;
      case DL_DTYPE_BOOL:
        dl_cuda_st<uint8_t> (p, (uint8_t)(v != 0));
        break;
    }
}

/* @f called with the element at @p as its natural value: float for
 * float32 and the 16-bit floats, double, int32_t, int64_t, uint8_t (uint8
 * and bool) */
template <typename F>
DL_HD auto
dl_cuda_visit (const char *p, DlDType dt, F f) -> decltype (f (0.0f))
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT32:
        return f (dl_cuda_ld<float> (p));
      case DL_DTYPE_FLOAT64:
        return f (dl_cuda_ld<double> (p));
      case DL_DTYPE_FLOAT16:
        return f (dl_cuda_half_to_float (dl_cuda_ld<uint16_t> (p)));
      case DL_DTYPE_BFLOAT16:
        return f (dl_cuda_bf16_to_float (dl_cuda_ld<uint16_t> (p)));
      case DL_DTYPE_INT32:
        return f (dl_cuda_ld<int32_t> (p));
      case DL_DTYPE_INT64:
        return f (dl_cuda_ld<int64_t> (p));
      default:
        return f (dl_cuda_ld<uint8_t> (p));
    }
}

/* @f called with a value of the C type of @dt, one of the dtypes with
 * their own arithmetic (float32, float64, int32, int64, uint8); nothing
 * for the others */
template <typename F>
DL_HD void
dl_cuda_dispatch (DlDType dt, F f)
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT32:
        f (0.0f);
        break;
      case DL_DTYPE_FLOAT64:
        f (0.0);
        break;
      case DL_DTYPE_INT32:
        f ((int32_t)0);
        break;
      case DL_DTYPE_INT64:
        f ((int64_t)0);
        break;
      case DL_DTYPE_UINT8:
        f ((uint8_t)0);
        break;
      default:
        break;
    }
}

/* copy with conversion: dst (dtype dd) = src (dtype sd) */
DL_HD void
dl_cuda_copy_elem (char *dst, DlDType dd, const char *src, DlDType sd)
{
  dl_cuda_visit (src, sd, [&] (auto v) { dl_cuda_store (dst, dd, v); });
}

/* fill: the element's bytes, the value stored once on the host
 * (dl_cuda_fill_bytes), copied into each element */
struct DlCudaFillBytes
{
  alignas (8) uint8_t bytes[8];
};

static inline DlCudaFillBytes
dl_cuda_fill_bytes (DlDType dt, double value)
{
  DlCudaFillBytes b = {};

  dl_cuda_store ((char *)b.bytes, dt, value);
  return b;
}

DL_HD void
dl_cuda_fill_elem (char *dst, const uint8_t *bytes, int es)
{
  for (int b = 0; b < es; b++)
    dst[b] = (char)bytes[b];
}

/* one element of any dtype as a double, or as an int64 for the integer
 * dtypes (exact beyond 2^53), as the CPU's dl_cpu_load_f and _i */
DL_HD double
dl_cuda_load_f (const char *p, DlDType dt)
{
  return dl_cuda_visit (p, dt, [] (auto v) { return (double)v; });
}

DL_HD int64_t
dl_cuda_load_i (const char *p, DlDType dt)
{
  return dl_cuda_visit (p, dt, [] (auto v) { return (int64_t)v; });
}

/* ---- math helpers, one overload per float type ------------------------- */

#define DL_CUDA_MATH1(name)                                                                        \
  DL_HD float dl_##name (float x)                                                                  \
  {                                                                                                \
    return name##f (x);                                                                            \
  }                                                                                                \
  DL_HD double dl_##name (double x)                                                                \
  {                                                                                                \
    return name (x);                                                                               \
  }
#define DL_CUDA_MATH2(name)                                                                        \
  DL_HD float dl_##name (float x, float y)                                                         \
  {                                                                                                \
    return name##f (x, y);                                                                         \
  }                                                                                                \
  DL_HD double dl_##name (double x, double y)                                                      \
  {                                                                                                \
    return name (x, y);                                                                            \
  }

DL_CUDA_MATH1 (exp)
DL_CUDA_MATH1 (expm1)
DL_CUDA_MATH1 (log)
DL_CUDA_MATH1 (log1p)
DL_CUDA_MATH1 (log2)
DL_CUDA_MATH1 (sqrt)
DL_CUDA_MATH1 (sin)
DL_CUDA_MATH1 (cos)
DL_CUDA_MATH1 (tan)
DL_CUDA_MATH1 (tanh)
DL_CUDA_MATH1 (erf)
DL_CUDA_MATH1 (floor)
DL_CUDA_MATH1 (ceil)
DL_CUDA_MATH1 (trunc)
DL_CUDA_MATH1 (rint) /* half to even in the default rounding mode */
DL_CUDA_MATH1 (fabs)
DL_CUDA_MATH1 (asin)
DL_CUDA_MATH1 (acos)
DL_CUDA_MATH1 (atan)
DL_CUDA_MATH1 (sinh)
DL_CUDA_MATH1 (cosh)
DL_CUDA_MATH1 (asinh)
DL_CUDA_MATH1 (acosh)
DL_CUDA_MATH1 (atanh)
DL_CUDA_MATH1 (log10)
DL_CUDA_MATH1 (exp2)
DL_CUDA_MATH1 (erfc)
DL_CUDA_MATH1 (lgamma)
DL_CUDA_MATH2 (pow)
DL_CUDA_MATH2 (fmod)
DL_CUDA_MATH2 (atan2)
DL_CUDA_MATH2 (copysign)
DL_CUDA_MATH2 (hypot)
DL_CUDA_MATH2 (fmax)
DL_CUDA_MATH2 (fmin)
DL_CUDA_MATH2 (nextafter)

DL_HD float
dl_fma (float x, float y, float z)
{
  return fmaf (x, y, z);
}
DL_HD double
dl_fma (double x, double y, double z)
{
  return fma (x, y, z);
}

template <typename T>
DL_HD bool
dl_cuda_isnan (T x)
{
  return x != x;
}

template <typename T>
DL_HD bool
dl_cuda_isinf (T x)
{
  return x == (T)INFINITY || x == -(T)INFINITY;
}

/* Python's floor division and remainder of floats (dl-cpu-math.c's) */
template <typename T>
DL_HD T
dl_cuda_floordiv_f (T a, T b)
{
  T mod, div, fl;

  if (b == 0)
    return a / b;
  mod = dl_fmod (a, b);
  div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0))
    div -= 1;
  if (div == 0)
    return dl_copysign ((T)0, a / b);
  fl = dl_floor (div);
  if (div - fl > (T)0.5)
    fl += 1;
  return fl;
}

template <typename T>
DL_HD T
dl_cuda_remainder_f (T a, T b)
{
  T mod = dl_fmod (a, b);

  if (mod != 0 && (b < 0) != (mod < 0))
    mod += b;
  return mod;
}

/* ---- unary ------------------------------------------------------------------
 * Which (op, dtype) pairs exist: the CPU backend's (the ops layer promotes
 * every other pair first, the 16-bit floats to float32). */

DL_HD bool
dl_cuda_unary_supported (DlUnaryOp op, DlDType dt)
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT32:
      case DL_DTYPE_FLOAT64:
        return op != DL_UNARY_BITWISE_NOT && op < DL_N_UNARY_OPS;
      case DL_DTYPE_INT32:
      case DL_DTYPE_INT64:
      case DL_DTYPE_UINT8:
        return op == DL_UNARY_NEG || op == DL_UNARY_RELU || op == DL_UNARY_ABS
               || op == DL_UNARY_SIGN || op == DL_UNARY_BITWISE_NOT || op == DL_UNARY_SQUARE;
      case DL_DTYPE_BOOL:
        return op == DL_UNARY_SIGN || op == DL_UNARY_BITWISE_NOT;
      default:
        return false;
    }
}

#define DL_CUDA_SQRT_2_OVER_PI 0.79788456080286535588
#define DL_CUDA_SQRT1_2 0.70710678118654752440
#define DL_CUDA_GELU_COEF 0.044715

/* min (max (x, 0), 6), NaN kept */
template <typename T>
DL_HD T
dl_cuda_relu6 (T x)
{
  return x < 0 ? (T)0 : x > 6 ? (T)6 : x;
}

/* a float op of x (T float or double); params for NAN_TO_NUM (nan, posinf,
 * neginf) and LEAKY_RELU (slope); predicates return 0 or 1 */
template <typename T>
DL_HD T
dl_cuda_unary_float (DlUnaryOp op, T x, const double *params)
{
  switch (op)
    {
      case DL_UNARY_NEG:
        return -x;
      case DL_UNARY_EXP:
        return dl_exp (x);
      case DL_UNARY_LOG:
        return dl_log (x);
      case DL_UNARY_RELU:
        return x > 0 ? x : (x != x ? x : 0);
      case DL_UNARY_ABS:
        return dl_fabs (x);
      case DL_UNARY_SQRT:
        return dl_sqrt (x);
      case DL_UNARY_TANH:
        return dl_tanh (x);
      case DL_UNARY_SIGMOID:
        return 1 / (1 + dl_exp (-x));
      case DL_UNARY_EXPM1:
        return dl_expm1 (x);
      case DL_UNARY_LOG1P:
        return dl_log1p (x);
      case DL_UNARY_LOG2:
        return dl_log2 (x);
      case DL_UNARY_RSQRT:
        return 1 / dl_sqrt (x);
      case DL_UNARY_SIN:
        return dl_sin (x);
      case DL_UNARY_COS:
        return dl_cos (x);
      case DL_UNARY_TAN:
        return dl_tan (x);
      case DL_UNARY_GELU:
        return x * (T)0.5 * (1 + dl_erf (x * (T)DL_CUDA_SQRT1_2));
      case DL_UNARY_GELU_TANH:
        return (T)0.5 * x
               * (1 + dl_tanh ((T)DL_CUDA_SQRT_2_OVER_PI * (x + (T)DL_CUDA_GELU_COEF * x * x * x)));
      case DL_UNARY_SILU:
        return x / (1 + dl_exp (-x));
      case DL_UNARY_SIGN: /* NaN gives 0, as the CPU's */
        return (T)((x > 0) - (x < 0));
      case DL_UNARY_FLOOR:
        return dl_floor (x);
      case DL_UNARY_CEIL:
        return dl_ceil (x);
      case DL_UNARY_ROUND:
        return dl_rint (x);
      case DL_UNARY_TRUNC:
        return dl_trunc (x);
      case DL_UNARY_FRAC:
        return x - dl_trunc (x);
      case DL_UNARY_RECIPROCAL:
        return 1 / x;
      case DL_UNARY_ERF:
        return dl_erf (x);
      case DL_UNARY_ISNAN:
        return (T)dl_cuda_isnan (x);
      case DL_UNARY_ISINF:
        return (T)dl_cuda_isinf (x);
      case DL_UNARY_ISFINITE:
        return (T)(!dl_cuda_isnan (x) && !dl_cuda_isinf (x));
      case DL_UNARY_ISNEGINF:
        return (T)(x == -(T)INFINITY);
      case DL_UNARY_ISPOSINF:
        return (T)(x == (T)INFINITY);
      case DL_UNARY_SIGNBIT:
        return (T)(signbit (x) != 0);
      case DL_UNARY_ASIN:
        return dl_asin (x);
      case DL_UNARY_ACOS:
        return dl_acos (x);
      case DL_UNARY_ATAN:
        return dl_atan (x);
      case DL_UNARY_SINH:
        return dl_sinh (x);
      case DL_UNARY_COSH:
        return dl_cosh (x);
      case DL_UNARY_ASINH:
        return dl_asinh (x);
      case DL_UNARY_ACOSH:
        return dl_acosh (x);
      case DL_UNARY_ATANH:
        return dl_atanh (x);
      case DL_UNARY_LOG10:
        return dl_log10 (x);
      case DL_UNARY_EXP2:
        return dl_exp2 (x);
      case DL_UNARY_ERFC:
        return dl_erfc (x);
      case DL_UNARY_LGAMMA:
        return dl_lgamma (x);
      case DL_UNARY_DEG2RAD:
        return x * (T)(DL_SPECIAL_PI / 180);
      case DL_UNARY_RAD2DEG:
        return x * (T)(180 / DL_SPECIAL_PI);
      case DL_UNARY_ERFINV:
        return (T)dl_special_erfinv ((double)x);
      case DL_UNARY_DIGAMMA:
        return (T)dl_special_digamma ((double)x);
      case DL_UNARY_SINC:
        return (T)dl_special_sinc ((double)x);
      case DL_UNARY_I0:
        return (T)dl_special_bessel_i (0, (double)x);
      case DL_UNARY_I1:
        return (T)dl_special_bessel_i (1, (double)x);
      case DL_UNARY_LOGIT:
        {
          const double eps = params[0];
          T z = x;

          if (eps >= 0)
            z = z < (T)eps ? (T)eps : z > 1 - (T)eps ? 1 - (T)eps : z;
          return dl_log (z / (1 - z));
        }
      case DL_UNARY_SQUARE:
        return x * x;
      case DL_UNARY_POLYGAMMA:
        return (T)dl_special_polygamma ((int)params[0], (double)x);
      case DL_UNARY_NAN_TO_NUM:
        return dl_cuda_isnan (x)   ? (T)params[0]
               : dl_cuda_isinf (x) ? (x > 0 ? (T)params[1] : (T)params[2])
                                   : x;
      case DL_UNARY_LEAKY_RELU:
        return x > 0 ? x : x * (T)params[0];
      case DL_UNARY_HARDSWISH:
        return x * dl_cuda_relu6 (x + 3) / 6;
      case DL_UNARY_HARDSIGMOID:
        return dl_cuda_relu6 (x + 3) / 6;
      case DL_UNARY_MISH:
        return x * dl_tanh (dl_log1p (dl_exp (x)));
      case DL_UNARY_LOGSIGMOID:
        return (x < 0 ? x : (T)0) - dl_log1p (dl_exp (-dl_fabs (x)));
      case DL_UNARY_SOFTSIGN:
        return x / (1 + dl_fabs (x));
      case DL_UNARY_TANHSHRINK:
        return x - dl_tanh (x);
      case DL_UNARY_HARDTANH: /* max everywhere when min > max, as PyTorch's */
        {
          T t = x < (T)params[0] ? (T)params[0] : x;
          return t > (T)params[1] ? (T)params[1] : t;
        }
      case DL_UNARY_ELU:
        return x > 0 ? (T)params[1] * x
                     : (T)params[1] * (T)params[0] * dl_expm1 ((T)params[2] * x);
      case DL_UNARY_HARDSHRINK:
        return (x >= -(T)params[0] && x <= (T)params[0]) ? (T)0 : x;
      case DL_UNARY_SOFTSHRINK:
        return x > (T)params[0] ? x - (T)params[0] : x < -(T)params[0] ? x + (T)params[0] : (T)0;
      case DL_UNARY_THRESHOLD:
        return x <= (T)params[0] ? (T)params[1] : x;
      default:
        return x;
    }
}

/* an integer op of x (T int32_t, int64_t or uint8_t) */
template <typename T>
DL_HD T
dl_cuda_unary_int (DlUnaryOp op, T x)
{
  const bool is_unsigned = std::is_unsigned<T>::value;

  switch (op)
    {
      case DL_UNARY_NEG:
        return (T)(0 - (typename std::make_unsigned<T>::type)x);
      case DL_UNARY_RELU:
        return is_unsigned ? x : (x > 0 ? x : 0);
      case DL_UNARY_ABS:
        return is_unsigned || x >= 0 ? x : (T)(0 - (typename std::make_unsigned<T>::type)x);
      case DL_UNARY_SIGN:
        if constexpr (std::is_unsigned<T>::value)
          return (T)(x > 0);
        else
          return (T)((x > 0) - (x < 0));
      case DL_UNARY_BITWISE_NOT:
        return (T)~x;
      case DL_UNARY_SQUARE: /* wrapping, as the CPU's */
        return (T)((typename std::make_unsigned<T>::type)x
                   * (typename std::make_unsigned<T>::type)x);
      default:
        return x;
    }
}

DL_HD bool
dl_cuda_unary_is_predicate (DlUnaryOp op)
{
  return op >= DL_UNARY_ISNAN && op <= DL_UNARY_SIGNBIT;
}

template <typename T>
DL_HD void
dl_cuda_unary_typed (DlUnaryOp op, char *out, const char *in, const double *params)
{
  T x = dl_cuda_ld<T> (in);

  if constexpr (std::is_floating_point<T>::value)
    {
      T r = dl_cuda_unary_float (op, x, params);
      if (dl_cuda_unary_is_predicate (op))
        dl_cuda_st<uint8_t> (out, r != 0);
      else
        dl_cuda_st<T> (out, r);
    }
  else
    dl_cuda_st<T> (out, dl_cuda_unary_int (op, x));
}

/* out = op (in), both of dtype dt (bool out for the predicates) */
DL_HD void
dl_cuda_unary_elem (DlUnaryOp op, DlDType dt, char *out, const char *in, const double *params)
{
  if (dt == DL_DTYPE_BOOL)
    {
      uint8_t x = dl_cuda_ld<uint8_t> (in);
      dl_cuda_st<uint8_t> (out, op == DL_UNARY_BITWISE_NOT ? (uint8_t)!x : x);
      return;
    }
  dl_cuda_dispatch (
      dt, [&] (auto zero) { dl_cuda_unary_typed<decltype (zero)> (op, out, in, params); });
}

/* ---- binary ----------------------------------------------------------------- */

DL_HD bool
dl_cuda_binary_supported (DlBinaryOp op, DlDType dt)
{
  bool bitwise = (op >= DL_BINARY_BITWISE_AND && op <= DL_BINARY_BITWISE_XOR)
                 || op == DL_BINARY_GCD || op == DL_BINARY_LCM || op == DL_BINARY_LSHIFT
                 || op == DL_BINARY_RSHIFT;
  bool float_only = op == DL_BINARY_ATAN2 || op == DL_BINARY_HYPOT || op == DL_BINARY_COPYSIGN
                    || op == DL_BINARY_XLOGY || op == DL_BINARY_NEXTAFTER
                    || op == DL_BINARY_LOGADDEXP || op == DL_BINARY_LOGADDEXP2;

  switch (dt)
    {
      case DL_DTYPE_FLOAT32:
      case DL_DTYPE_FLOAT64:
        return !bitwise && op < DL_N_BINARY_OPS;
      case DL_DTYPE_INT32:
      case DL_DTYPE_INT64:
      case DL_DTYPE_UINT8:
        return !float_only && op < DL_N_BINARY_OPS;
      case DL_DTYPE_BOOL:
        return op == DL_BINARY_ADD || op == DL_BINARY_MUL || op == DL_BINARY_MAXIMUM
               || op == DL_BINARY_MINIMUM || DL_BINARY_IS_COMPARISON (op)
               || (op >= DL_BINARY_BITWISE_AND && op <= DL_BINARY_BITWISE_XOR)
               || op == DL_BINARY_FMAX || op == DL_BINARY_FMIN || op == DL_BINARY_HEAVISIDE;
      default:
        return false;
    }
}

template <typename T>
DL_HD T
dl_cuda_binary_float (DlBinaryOp op, T a, T b, T alpha)
{
  switch (op)
    {
      case DL_BINARY_ADD:
        return a + alpha * b;
      case DL_BINARY_SUB:
        return a - alpha * b;
      case DL_BINARY_MUL:
        return a * b;
      case DL_BINARY_DIV:
        return a / b;
      case DL_BINARY_MAXIMUM:
        return a != a ? a : (b != b ? b : (a > b ? a : b));
      case DL_BINARY_MINIMUM:
        return a != a ? a : (b != b ? b : (a < b ? a : b));
      case DL_BINARY_POW:
        return dl_pow (a, b);
      case DL_BINARY_FLOOR_DIVIDE:
        return dl_cuda_floordiv_f (a, b);
      case DL_BINARY_TRUNC_DIVIDE:
        return dl_trunc (a / b);
      case DL_BINARY_REMAINDER:
        return dl_cuda_remainder_f (a, b);
      case DL_BINARY_ATAN2:
        return dl_atan2 (a, b);
      case DL_BINARY_FMOD:
        return dl_fmod (a, b);
      case DL_BINARY_HYPOT:
        return dl_hypot (a, b);
      case DL_BINARY_COPYSIGN:
        return dl_copysign (a, b);
      case DL_BINARY_XLOGY:
        return b != b ? b : (a == 0 ? (T)0 : a * dl_log (b));
      case DL_BINARY_FMAX:
        return dl_fmax (a, b);
      case DL_BINARY_FMIN:
        return dl_fmin (a, b);
      case DL_BINARY_HEAVISIDE:
        return a == 0 ? b : (T)(a > 0);
      case DL_BINARY_NEXTAFTER:
        return dl_nextafter (a, b);
      case DL_BINARY_LOGADDEXP:
      case DL_BINARY_LOGADDEXP2:
        {
          T m = a > b ? a : b, d = -dl_fabs (a - b);

          if (dl_cuda_isinf (a) && a == b)
            return a;
          return op == DL_BINARY_LOGADDEXP ? m + dl_log1p (dl_exp (d))
                                           : m + dl_log1p (dl_exp2 (d)) * (T)(1.0 / 0.69314718055994530942);
        }
      default:
        return 0;
    }
}

/* integers wrap (computed unsigned); division by zero, which the ops layer
 * rules out, gives 0 instead of trapping */
template <typename T>
DL_HD T
dl_cuda_binary_int (DlBinaryOp op, T a, T b, T alpha)
{
  typedef typename std::make_unsigned<T>::type U;

  switch (op)
    {
      case DL_BINARY_ADD:
        return (T)(U)((U)a + (U)alpha * (U)b);
      case DL_BINARY_SUB:
        return (T)(U)((U)a - (U)alpha * (U)b);
      case DL_BINARY_MUL:
        return (T)(U)((U)a * (U)b);
      case DL_BINARY_DIV:
        return b == 0 ? 0 : (T)dl_int_truncdiv (a, b);
      case DL_BINARY_MAXIMUM:
        return a > b ? a : b;
      case DL_BINARY_MINIMUM:
        return a < b ? a : b;
      case DL_BINARY_POW:
        return (T)dl_int_pow (a, b);
      case DL_BINARY_FLOOR_DIVIDE:
        return (T)dl_int_floordiv (a, b);
      case DL_BINARY_TRUNC_DIVIDE:
        return (T)dl_int_truncdiv (a, b);
      case DL_BINARY_REMAINDER:
        return (T)dl_int_remainder (a, b);
      case DL_BINARY_BITWISE_AND:
        return a & b;
      case DL_BINARY_BITWISE_OR:
        return a | b;
      case DL_BINARY_BITWISE_XOR:
        return a ^ b;
      case DL_BINARY_FMOD:
        return (T)dl_int_fmod (a, b);
      case DL_BINARY_FMAX:
        return a > b ? a : b;
      case DL_BINARY_FMIN:
        return a < b ? a : b;
      case DL_BINARY_HEAVISIDE:
        return a == 0 ? b : (T)(a > 0);
      case DL_BINARY_GCD:
        return (T)dl_int_gcd (a, b);
      case DL_BINARY_LCM:
        return (T)dl_int_lcm (a, b);
      case DL_BINARY_LSHIFT:
      case DL_BINARY_RSHIFT:
        {
          /* as C shifts an int (int64: an int64), the count masked to its
           * width, as the CPU backend */
          typedef typename std::conditional<sizeof (T) == 8, int64_t, int32_t>::type W;
          unsigned k = (unsigned)((uint64_t)b & (sizeof (W) * 8 - 1));

          if (op == DL_BINARY_LSHIFT)
            return (T)(W)((uint64_t)(W)a << k);
          return (T)((W)a >> k);
        }
      default:
        return 0;
    }
}

template <typename T>
DL_HD uint8_t
dl_cuda_compare (DlBinaryOp op, T a, T b)
{
  switch (op)
    {
      case DL_BINARY_EQ:
        return a == b;
      case DL_BINARY_NE:
        return a != b;
      case DL_BINARY_LT:
        return a < b;
      case DL_BINARY_LE:
        return a <= b;
      case DL_BINARY_GT:
        return a > b;
      case DL_BINARY_GE:
        return a >= b;
      default:
        return 0;
    }
}

template <typename T>
DL_HD void
dl_cuda_binary_typed (DlBinaryOp op, char *out, const char *pa, const char *pb, double alpha)
{
  T a = dl_cuda_ld<T> (pa), b = dl_cuda_ld<T> (pb);

  if (DL_BINARY_IS_COMPARISON (op))
    dl_cuda_st<uint8_t> (out, dl_cuda_compare (op, a, b));
  else if constexpr (std::is_floating_point<T>::value)
    dl_cuda_st<T> (out, dl_cuda_binary_float (op, a, b, (T)alpha));
  else
    dl_cuda_st<T> (out, dl_cuda_binary_int (op, a, b, dl_cuda_to_int<T> (alpha)));
}

/* out = a op b; bool: add and maximum are or, mul and minimum and */
DL_HD void
dl_cuda_binary_elem (DlBinaryOp op,
                     DlDType dt,
                     char *out,
                     const char *a,
                     const char *b,
                     double alpha)
{
  if (dt == DL_DTYPE_BOOL)
    {
      uint8_t x = dl_cuda_ld<uint8_t> (a), y = dl_cuda_ld<uint8_t> (b), r;

      if (DL_BINARY_IS_COMPARISON (op))
        r = dl_cuda_compare (op, x, y);
      else if (op == DL_BINARY_ADD || op == DL_BINARY_MAXIMUM || op == DL_BINARY_BITWISE_OR
               || op == DL_BINARY_FMAX)
        r = x | y;
      else if (op == DL_BINARY_BITWISE_XOR)
        r = x ^ y;
      else if (op == DL_BINARY_HEAVISIDE)
        r = x == 0 ? y : 1;
      else
        r = x & y;
      dl_cuda_st<uint8_t> (out, r);
      return;
    }
  dl_cuda_dispatch (
      dt, [&] (auto zero) { dl_cuda_binary_typed<decltype (zero)> (op, out, a, b, alpha); });
}

/* ---- ternary ------------------------------------------------------------------ */

DL_HD bool
dl_cuda_ternary_supported (DlTernaryOp op, DlDType dt)
{
  bool is_float = dt == DL_DTYPE_FLOAT32 || dt == DL_DTYPE_FLOAT64 || dt == DL_DTYPE_FLOAT16
                  || dt == DL_DTYPE_BFLOAT16;

  switch (op)
    {
      case DL_TERNARY_WHERE:
        return true;
      case DL_TERNARY_ADDCMUL:
        return dt != DL_DTYPE_BOOL;
      case DL_TERNARY_CLAMP_SCALAR:
        return dt == DL_DTYPE_FLOAT32 || dt == DL_DTYPE_FLOAT64;
      default:
        return is_float && op < DL_N_TERNARY_OPS;
    }
}

/* the binary maximum and minimum's NaN rule: a NaN bound wins */
template <typename T>
DL_HD T
dl_cuda_clamp (T x, T lo, T hi)
{
  T y = lo != lo ? lo : (lo > x ? lo : x);
  return hi != hi ? hi : (hi < y ? hi : y);
}

/* a float formula of a, b, c in CT (float for the 16-bit floats), one
 * rounding per operation: the .cu file is compiled with
 * --fmad=false so that nothing contracts into an FMA, as the CPU's; but
 * addcmul, whose last product and sum are one fma, as the CPU backend
 * and PyTorch compute it */
template <typename CT>
DL_HD CT
dl_cuda_ternary_float (DlTernaryOp op, CT a, CT b, CT c, const double *params)
{
  switch (op)
    {
      case DL_TERNARY_LERP:
        return a + c * (b - a);
      case DL_TERNARY_LERP_SCALAR:
        return a + (CT)params[0] * (b - a);
      case DL_TERNARY_ADDCMUL:
        return dl_fma ((CT)params[0] * b, c, a);
      case DL_TERNARY_ADDCDIV:
        return a + (CT)params[0] * b / c;
      case DL_TERNARY_CLAMP:
        return dl_cuda_clamp (a, b, c);
      case DL_TERNARY_CLAMP_SCALAR:
        {
          /* with bounds that are not NaN a NaN x stays NaN (the CPU's
           * maxps/minps); a NaN bound wins */
          CT lo = (CT)params[0], hi = (CT)params[1];
          if (lo != lo || hi != hi)
            return dl_cuda_clamp (a, lo, hi);
          CT y = lo > a ? lo : a;
          return hi < y ? hi : y;
        }
      default:
        return a;
    }
}

template <typename T>
DL_HD void
dl_cuda_ternary_int (char *out, const char *pa, const char *pb, const char *pc, int64_t v)
{
  typedef typename std::make_unsigned<T>::type U;
  U a = (U)dl_cuda_ld<T> (pa), b = (U)dl_cuda_ld<T> (pb), c = (U)dl_cuda_ld<T> (pc);

  dl_cuda_st<T> (out, (T)(U)(a + (U)v * b * c));
}

/* a float formula computed in CT from elements of dtype dt (float for
 * the 16-bit floats); a NULL operand (unused) reads as 0 */
template <typename CT>
DL_HD void
dl_cuda_ternary_typed (DlTernaryOp op,
                       DlDType dt,
                       char *out,
                       const char *x1,
                       const char *x2,
                       const char *x3,
                       const double *params)
{
  CT a = (CT)dl_cuda_load_f (x1, dt);
  CT b = x2 ? (CT)dl_cuda_load_f (x2, dt) : 0, c = x3 ? (CT)dl_cuda_load_f (x3, dt) : 0;

  dl_cuda_store (out, dt, dl_cuda_ternary_float (op, a, b, c, params));
}

/* operands (out, x1, x2, x3) as DlTernaryOp lists them; x3 is unused by
 * LERP_SCALAR and x2, x3 by CLAMP_SCALAR */
DL_HD void
dl_cuda_ternary_elem (DlTernaryOp op,
                      DlDType dt,
                      char *out,
                      const char *x1,
                      const char *x2,
                      const char *x3,
                      const double *params)
{
  if (op == DL_TERNARY_WHERE)
    {
      const char *src = dl_cuda_ld<uint8_t> (x1) ? x2 : x3;
      switch (dt)
        {
          case DL_DTYPE_FLOAT64:
          case DL_DTYPE_INT64:
            dl_cuda_st<uint64_t> (out, dl_cuda_ld<uint64_t> (src));
            break;
          case DL_DTYPE_FLOAT32:
          case DL_DTYPE_INT32:
            dl_cuda_st<uint32_t> (out, dl_cuda_ld<uint32_t> (src));
            break;
          case DL_DTYPE_FLOAT16:
          case DL_DTYPE_BFLOAT16:
            dl_cuda_st<uint16_t> (out, dl_cuda_ld<uint16_t> (src));
            break;
          case DL_DTYPE_UINT8:
          case DL_DTYPE_BOOL:
            dl_cuda_st<uint8_t> (out, dl_cuda_ld<uint8_t> (src));
            break;
        }
      return;
    }
  bool two = op == DL_TERNARY_LERP_SCALAR, one = op == DL_TERNARY_CLAMP_SCALAR;
  switch (dt)
    {
      case DL_DTYPE_FLOAT64:
        dl_cuda_ternary_typed<double> (op, dt, out, x1, one ? NULL : x2, one || two ? NULL : x3,
                                       params);
        break;
      case DL_DTYPE_FLOAT32:
      case DL_DTYPE_FLOAT16:
      case DL_DTYPE_BFLOAT16:
        dl_cuda_ternary_typed<float> (op, dt, out, x1, one ? NULL : x2, one || two ? NULL : x3,
                                      params);
        break;
      /* integers: addcmul only, wrapping, with params[0] cast to the dtype */
      case DL_DTYPE_INT32:
        dl_cuda_ternary_int<int32_t> (out, x1, x2, x3, (int64_t)params[0]);
        break;
      case DL_DTYPE_INT64:
        dl_cuda_ternary_int<int64_t> (out, x1, x2, x3, (int64_t)params[0]);
        break;
      case DL_DTYPE_UINT8:
        dl_cuda_ternary_int<uint8_t> (out, x1, x2, x3, (int64_t)params[0]);
        break;
      default:
        break;
    }
}

/* ---- softmax of one row ----------------------------------------------------
 * m = max x, s = sum exp (x - m); softmax exp (x - m) * (1 / s),
 * log_softmax (x - m) - log s, as the CPU's. A row with a NaN or with
 * every element -inf takes m = 0 and so comes out NaN, as in PyTorch.
 * Serial: one thread a row. */
template <typename T>
DL_HD void
dl_cuda_softmax_row (const T *x, T *y, int64_t n, bool log)
{
  T m = x[0], s = 0;
  bool nan = false;

  for (int64_t i = 0; i < n; i++)
    {
      nan = nan || x[i] != x[i];
      m = x[i] > m ? x[i] : m;
    }
  if (nan || m == -(T)INFINITY)
    m = 0;
  for (int64_t i = 0; i < n; i++)
    s += dl_exp (x[i] - m);
  if (log)
    {
      T ls = dl_log (s);
      for (int64_t i = 0; i < n; i++)
        y[i] = (x[i] - m) - ls;
    }
  else
    {
      T r = 1 / s;
      for (int64_t i = 0; i < n; i++)
        y[i] = dl_exp (x[i] - m) * r;
    }
}

/* ---- reductions ---------------------------------------------------------------
 * The CPU's reference semantics (dl-cpu-reduce.c): out[o] = op over the
 * inner positions of in[o, ...]. Float sums and products accumulate in
 * double, integer ones in int64 wrapping around (their output is int64);
 * max and min keep the first position of the extremum (a flat index into
 * the inner nest), a NaN winning (the first NaN); all and any write bool.
 *
 * A launch splits each output's inner positions into `chunks` ranges:
 * one thread reduces one range into a DlCudaAcc (dl_cuda_reduce_range),
 * and with more than one chunk a second pass combines an output's
 * partials in order (dl_cuda_reduce_combine) and stores it. */

struct DlCudaAcc
{
  double f;
  int64_t i;
  int64_t index;
};

DL_HD bool
dl_cuda_is_int_dtype (DlDType dt)
{
  return dt == DL_DTYPE_INT32 || dt == DL_DTYPE_INT64 || dt == DL_DTYPE_UINT8
         || dt == DL_DTYPE_BOOL;
}

/* the byte offset of flat position @flat of a nest of @nd dims */
DL_HD int64_t
dl_cuda_nest_offset (int64_t flat, int nd, const int64_t *shape, const int64_t *strides)
{
  int64_t off = 0;

  for (int d = nd - 1; d >= 0; d--)
    {
      off += (flat % shape[d]) * strides[d];
      flat /= shape[d];
    }
  return off;
}

/* Reduces inner positions [begin, end) (begin < end) of outer position
 * @o; a max/min index is the flat inner position. */
DL_HD DlCudaAcc
dl_cuda_reduce_range (DlReduceOp op,
                      DlDType dt,
                      const DlReduceArgs &a,
                      int64_t o,
                      int64_t begin,
                      int64_t end)
{
  const char *base
      = a.in + dl_cuda_nest_offset (o, a.outer_ndim, a.outer_shape, a.in_outer_strides);
  bool is_int = dl_cuda_is_int_dtype (dt);
  DlCudaAcc acc = { 0, 0, begin };
  int64_t idx[DL_MAX_DIMS];
  int64_t off = 0, flat = begin;
  const int nd = a.inner_ndim;

  /* the multi-index of begin, then stepped along */
  for (int d = nd - 1; d >= 0; d--)
    {
      idx[d] = flat % a.inner_shape[d];
      flat /= a.inner_shape[d];
      off += idx[d] * a.in_inner_strides[d];
    }
  if (op == DL_REDUCE_PROD)
    {
      acc.f = 1;
      acc.i = 1;
    }
  if (op == DL_REDUCE_ALL)
    acc.i = 1;
  for (int64_t j = begin; j < end; j++)
    {
      const char *p = base + off;

      switch (op)
        {
          case DL_REDUCE_SUM:
          case DL_REDUCE_MEAN:
          case DL_REDUCE_NANSUM:
            if (is_int)
              acc.i = (int64_t)((uint64_t)acc.i + (uint64_t)dl_cuda_load_i (p, dt));
            else
              {
                double v = dl_cuda_load_f (p, dt);
                if (op != DL_REDUCE_NANSUM || v == v)
                  acc.f += v;
              }
            break;
          case DL_REDUCE_PROD:
            if (is_int)
              acc.i = (int64_t)((uint64_t)acc.i * (uint64_t)dl_cuda_load_i (p, dt));
            else
              acc.f *= dl_cuda_load_f (p, dt);
            break;
          case DL_REDUCE_ALL:
          case DL_REDUCE_ANY:
            {
              bool nz = is_int ? dl_cuda_load_i (p, dt) != 0 : dl_cuda_load_f (p, dt) != 0;
              if (op == DL_REDUCE_ALL)
                acc.i = acc.i && nz;
              else
                acc.i = acc.i || nz;
              break;
            }
          case DL_REDUCE_MAX:
          case DL_REDUCE_MIN:
            {
              bool is_max = op == DL_REDUCE_MAX;
              if (is_int)
                {
                  int64_t v = dl_cuda_load_i (p, dt);
                  if (j == begin || (is_max ? v > acc.i : v < acc.i))
                    {
                      acc.i = v;
                      acc.index = j;
                    }
                }
              else if (j == begin || acc.f == acc.f)
                {
                  /* once a NaN is found it stays */
                  double v = dl_cuda_load_f (p, dt);
                  if (j == begin || v != v || (is_max ? v > acc.f : v < acc.f))
                    {
                      acc.f = v;
                      acc.index = j;
                    }
                }
              break;
            }
        }
      /* step the multi-index */
      for (int d = nd - 1; d >= 0; d--)
        {
          off += a.in_inner_strides[d];
          if (++idx[d] < a.inner_shape[d])
            break;
          off -= idx[d] * a.in_inner_strides[d];
          idx[d] = 0;
        }
    }
  return acc;
}

/* @part, the next range's result, into @into (dl-cpu-reduce.c's combine;
 * a part's index is already a flat inner position) */
DL_HD void
dl_cuda_reduce_combine (DlReduceOp op, DlDType dt, DlCudaAcc *into, DlCudaAcc part)
{
  switch (op)
    {
      case DL_REDUCE_SUM:
      case DL_REDUCE_MEAN:
      case DL_REDUCE_NANSUM:
        into->f += part.f;
        into->i = (int64_t)((uint64_t)into->i + (uint64_t)part.i);
        return;
      case DL_REDUCE_PROD:
        into->f *= part.f;
        into->i = (int64_t)((uint64_t)into->i * (uint64_t)part.i);
        return;
      case DL_REDUCE_ALL:
        into->i = into->i && part.i;
        return;
      case DL_REDUCE_ANY:
        into->i = into->i || part.i;
        return;
      default:
        break;
    }
  if (dl_cuda_is_int_dtype (dt))
    {
      if (op == DL_REDUCE_MAX ? part.i > into->i : part.i < into->i)
        *into = part;
    }
  else if (into->f != into->f)
    return;
  else if (part.f != part.f || (op == DL_REDUCE_MAX ? part.f > into->f : part.f < into->f))
    *into = part;
}

/* the result of an empty reduction (n_inner 0; never max or min) */
DL_HD DlCudaAcc
dl_cuda_reduce_identity (DlReduceOp op)
{
  DlCudaAcc acc = { 0, 0, 0 };

  if (op == DL_REDUCE_PROD || op == DL_REDUCE_ALL)
    acc.f = acc.i = 1;
  if (op == DL_REDUCE_MEAN)
    acc.f = NAN;
  return acc;
}

/* output @o (and its index) from its accumulator */
DL_HD void
dl_cuda_reduce_store (DlReduceOp op,
                      DlDType dt,
                      const DlReduceArgs &a,
                      int64_t o,
                      DlCudaAcc acc,
                      int64_t n_inner)
{
  char *out = a.out + dl_cuda_nest_offset (o, a.outer_ndim, a.outer_shape, a.out_strides);

  switch (op)
    {
      case DL_REDUCE_SUM:
      case DL_REDUCE_NANSUM:
      case DL_REDUCE_PROD:
        if (dl_cuda_is_int_dtype (dt))
          dl_cuda_st<int64_t> (out, acc.i);
        else
          dl_cuda_store (out, dt, acc.f);
        break;
      case DL_REDUCE_MEAN:
        /* n_inner 0: the identity's NaN (0 / 0 would also be NaN) */
        dl_cuda_store (out, dt, n_inner ? acc.f / (double)n_inner : acc.f);
        break;
      case DL_REDUCE_ALL:
      case DL_REDUCE_ANY:
        dl_cuda_st<uint8_t> (out, acc.i != 0);
        break;
      default:
        if (dl_cuda_is_int_dtype (dt))
          dl_cuda_store (out, dt, acc.i);
        else
          dl_cuda_store (out, dt, acc.f);
        if (a.indices)
          dl_cuda_st<int64_t> (
              a.indices + dl_cuda_nest_offset (o, a.outer_ndim, a.outer_shape, a.indices_strides),
              acc.index);
        break;
    }
}

/* how many ranges each output's inner positions split into: enough
 * threads in all to fill a GPU when there are few outputs, ranges of at
 * least a few thousand elements */
static inline int64_t
dl_cuda_reduce_chunks (int64_t n_outer, int64_t n_inner)
{
  int64_t by_size = (n_inner + 4095) / 4096, by_threads = (16384 + n_outer - 1) / n_outer;
  int64_t chunks = by_size < by_threads ? by_size : by_threads;

  return chunks > 1 ? chunks : 1;
}

/* range @c of @chunks of n_inner positions: [begin, end) */
DL_HD void
dl_cuda_chunk_range (int64_t c, int64_t chunks, int64_t n_inner, int64_t *begin, int64_t *end)
{
  *begin = n_inner * c / chunks;
  *end = n_inner * (c + 1) / chunks;
}

/* ---- integer matrix products ---------------------------------------------------
 * cuBLAS has no int32, int64 or uint8 GEMM: output element t of the batch
 * (row-major over batch, rows, columns) is a dot product of its own,
 * accumulated in int64 wrapping around and stored in the dtype, as the
 * CPU's naive loops do. */
template <typename T>
DL_HD void
dl_cuda_gemm_int_elem_typed (const DlGemmArgs &g, int64_t t)
{
  int64_t j = t % g.n, i = (t / g.n) % g.m, b = t / (g.n * g.m);
  int64_t oa = 0, ob = 0, oc = 0;
  uint64_t acc;

  for (int d = g.batch_ndim - 1; d >= 0; d--)
    {
      int64_t idx = b % g.batch_shape[d];
      b /= g.batch_shape[d];
      oa += idx * g.a_batch_strides[d];
      ob += idx * g.b_batch_strides[d];
      oc += idx * g.c_batch_strides[d];
    }
  const T *a = (const T *)g.a + oa + i * g.a_rs;
  const T *bm = (const T *)g.b + ob + j * g.b_cs;
  acc = g.accumulate ? (uint64_t)(int64_t)((T *)g.c)[oc + i * g.c_rs + j * g.c_cs] : 0;
  for (int64_t p = 0; p < g.k; p++)
    acc += (uint64_t)(int64_t)a[p * g.a_cs] * (uint64_t)(int64_t)bm[p * g.b_rs];
  ((T *)g.c)[oc + i * g.c_rs + j * g.c_cs] = (T)(int64_t)acc;
}

DL_HD void
dl_cuda_gemm_int_elem (DlDType dt, const DlGemmArgs &g, int64_t t)
{
  dl_cuda_dispatch (dt, [&] (auto zero) {
    if constexpr (std::is_integral<decltype (zero)>::value)
      dl_cuda_gemm_int_elem_typed<decltype (zero)> (g, t);
  });
}

/* ---- scans -----------------------------------------------------------------------
 * An inclusive cumulative sum or product of one contiguous row in place,
 * floats accumulating in double and integers in int64 wrapping around, as
 * dl-cpu-scan.c's. Serial: one thread a row. */
DL_HD int
dl_cuda_dtype_size (DlDType dt)
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT64:
      case DL_DTYPE_INT64:
        return 8;
      case DL_DTYPE_FLOAT32:
      case DL_DTYPE_INT32:
        return 4;
      case DL_DTYPE_FLOAT16:
      case DL_DTYPE_BFLOAT16:
        return 2;
      default:
        return 1;
    }
}

DL_HD void
dl_cuda_scan_row (DlScanOp op, DlDType dt, char *row, int64_t n)
{
  int es = dl_cuda_dtype_size (dt);
  bool sum = op == DL_SCAN_CUMSUM;

  if (dl_cuda_is_int_dtype (dt))
    {
      uint64_t acc = sum ? 0 : 1;
      for (int64_t j = 0; j < n; j++)
        {
          uint64_t v = (uint64_t)dl_cuda_load_i (row + j * es, dt);
          acc = sum ? acc + v : acc * v;
          dl_cuda_store (row + j * es, dt, (int64_t)acc);
        }
    }
  else
    {
      double acc = sum ? 0 : 1;
      for (int64_t j = 0; j < n; j++)
        {
          double v = dl_cuda_load_f (row + j * es, dt);
          acc = sum ? acc + v : acc * v;
          dl_cuda_store (row + j * es, dt, acc);
        }
    }
}
