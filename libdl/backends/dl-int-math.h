/* dl-int-math.h: the integer helpers of the pointwise math kernels, shared
 * by the CPU backend (dl-cpu-math.c) and the CUDA module's kernel bodies
 * (cuda/dl-cuda-kernels.cuh), which nvcc compiles for the device: plain C
 * on int64_t, marked __host__ __device__ under nvcc.
 *
 * They work on 64 bits; wrapping arithmetic is done unsigned, so that
 * overflow wraps as two's complement instead of being undefined. The ops
 * layer rules out division by zero; it gives 0 here, never a trap.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>

#ifdef __CUDACC__
#define DL_INT_MATH_FN static inline __host__ __device__
#else
#define DL_INT_MATH_FN static inline
#endif

/* a ** b; a negative exponent gives 0 but for a = 1 and -1 */
DL_INT_MATH_FN int64_t
dl_int_pow (int64_t a, int64_t b)
{
  uint64_t r = 1, base = (uint64_t)a;

  if (b < 0)
    return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
  while (b)
    {
      if (b & 1)
        r *= base;
      base *= base;
      b >>= 1;
    }
  return (int64_t)r;
}

/* Python's a // b; INT64_MIN / -1 would trap in the hardware divide */
DL_INT_MATH_FN int64_t
dl_int_floordiv (int64_t a, int64_t b)
{
  int64_t q;

  if (b == 0)
    return 0;
  if (b == -1)
    return (int64_t)(0 - (uint64_t)a);
  q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    q--;
  return q;
}

/* C's division, which truncates */
DL_INT_MATH_FN int64_t
dl_int_truncdiv (int64_t a, int64_t b)
{
  if (b == 0)
    return 0;
  if (b == -1)
    return (int64_t)(0 - (uint64_t)a);
  return a / b;
}

/* Python's a % b: the sign of b */
DL_INT_MATH_FN int64_t
dl_int_remainder (int64_t a, int64_t b)
{
  int64_t m;

  if (b == 0 || b == -1)
    return 0;
  m = a % b;
  if (m != 0 && ((m < 0) != (b < 0)))
    m += b;
  return m;
}

/* C's a % b: the sign of a (fmod); b == -1 gives 0 without the trap */
DL_INT_MATH_FN int64_t
dl_int_fmod (int64_t a, int64_t b)
{
  if (b == 0 || b == -1)
    return 0;
  return a % b;
}

/* the greatest common divisor, non-negative (Euclid's algorithm) */
DL_INT_MATH_FN int64_t
dl_int_gcd (int64_t a, int64_t b)
{
  uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;

  while (y != 0)
    {
      uint64_t t = x % y;
      x = y;
      y = t;
    }
  return (int64_t)x;
}

/* the least common multiple, |a / gcd (a, b) * b|, wrapping; 0 when a or
 * b is */
DL_INT_MATH_FN int64_t
dl_int_lcm (int64_t a, int64_t b)
{
  int64_t g = dl_int_gcd (a, b);
  uint64_t m;

  if (g == 0)
    return 0;
  m = (uint64_t)(a / g) * (uint64_t)b;
  return (int64_t)m < 0 ? (int64_t)(0 - m) : (int64_t)m;
}
