/* dl-cpu-vmath.c: float32 exp, expm1, log, log1p, log2, sin, cos, tan,
 * tanh, sigmoid, silu, erf, gelu and gelu_tanh as vector kernels, one per
 * x86-64 level (SSE2, AVX2 with FMA, AVX-512), picked from dl_cpu_isa as
 * the other per-level kernels are. glibc's expf, logf, sinf, tanhf, erff
 * and the others are scalar calls, and GCC vectorises none of them; these
 * compute W lanes at once with polynomials, the exponent bits, and no
 * table (sin, cos and tan of |x| > 2^17, NaN and inf lane by lane with
 * glibc's, after the vector).
 *
 * The maths is in dl-cpu-vmath-body.h, written once for W lanes.
 *
 * Accuracy: the largest error in ulps of the float32 result against the
 * double-precision formula, over every 61st float32 input (70M, all
 * exponents; tests/python/test_kernels.py checks bounds a little above
 * these on every 1021st, at each level):
 *                 AVX-512  AVX2  SSE2
 *   exp             0.87   0.87  1.14
 *   log             1.16   1.16  1.16
 *   tanh            0.98   0.98  1.06
 *   sigmoid         1.47   1.47  1.56
 *   silu            2.32   2.32  2.44
 *   erf             1.16   1.16  1.37
 *   gelu            6.5    6.5   6.9
 *   sin             0.86   0.86  0.89
 *   cos             0.84   0.84  0.88
 *   tan             1.23   1.23  1.22  (|x| <= 2^17; glibc's tanf
 *                                       beyond: 1.36)
 *   expm1           1.38   1.38  1.37
 *   log1p           1.19   1.19  1.21
 *   log2            1.32   1.32  1.35
 *   gelu_tanh       1.4 + 2.8 |2u| (2u = x sqrt (8 / pi) (1 + 0.044715 x^2),
 *                   rounded in float32 as in PyTorch's formula, is where
 *                   the error comes from)
 * NaN, infinities, zeros of either sign, subnormal inputs and results,
 * overflow and underflow come out as the float64 formulas give them (silu,
 * gelu and gelu_tanh of -inf are NaN: -inf * 0, as in PyTorch), and
 * the signs of zeros as C99 gives them (sin (-0) = tan (-0) = expm1 (-0) =
 * log1p (-0) = -0, log1p (-1) = log2 (0) = -inf).
 *
 * float64 exp, log, tanh and sigmoid have vector kernels of their own
 * (dl-cpu-vmath64-body.h, 2, 4 or 8 doubles a vector), in place of glibc's
 * exp, log and tanh per element: the largest error in float64 ulps against
 * decimal at 40 digits, over 40000 to 50000 inputs of every exponent and
 * the edges (tests/python/test_kernels.py checks 1.25, 1.0, 1.25 and 1.75
 * on others at each level):
 *                 AVX-512  AVX2  SSE2
 *   exp             1.00   1.00  0.97
 *   log             0.76   0.76  0.86
 *   tanh            1.07   1.07  1.11
 *   sigmoid         1.35   1.35  1.35   (1.45 seen on other inputs)
 * with C99's specials: NaN stays NaN, exp overflows to inf and underflows
 * through the subnormals to 0 (one rounding), log of 0 is -inf, of a
 * negative NaN, of a subnormal exact as any, tanh (-0) = -0.
 *
 * So have float64 expm1, log1p, log2, sin, cos, tan, silu and gelu_tanh
 * (glibc's expm1, log1p, log2, sin, cos and tan per element before, and
 * exp in silu and tanh in gelu_tanh): the largest error in float64 ulps
 * against mpmath at 60 digits, over two sets of 16000 inputs of every
 * exponent and the edges (tests/python/test_kernels.py checks 1.25 for
 * expm1, log1p, log2, sin and cos, 2 for silu, 2.25 for tan and
 * 2.25 (1 + |v|) for gelu_tanh on others at each level):
 *                 AVX-512  SSE2   (AVX2: as AVX-512 in the first set)
 *   expm1           1.15   1.15
 *   log1p           0.75   0.80
 *   log2            0.74   0.82
 *   sin             0.73   0.73   (|x| <= 2^20; glibc's sin, cos and
 *   cos             0.71   0.71    tan beyond, lane by lane)
 *   tan             2.03   2.03
 *   silu            1.84   1.69
 *   gelu_tanh       1.97 (1 + |v|) for v = x sqrt (8 / pi) (1 + 0.044715 x^2)
 *                   below 0, which rounds in float64 as in PyTorch's
 *                   formula (1.65 where |v| < 1)
 * with C99's specials (expm1 (-0) = log1p (-0) = sin (-0) = tan (-0) = -0,
 * log1p (-1) = log2 (0) = -inf, NaN for sin, cos and tan of +-inf) and
 * PyTorch's for silu and gelu_tanh (NaN at -inf, -inf * 0; 0 of x's sign
 * where x sigmoid (v) underflows). float64 erf and gelu are still glibc's
 * erf and erfc per element (dl-cpu-math.c).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <float.h>
#include <math.h>

#include "dl-cpu-private.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef DL_CPU_ISA_LEVELS
#include <immintrin.h>
#endif

#define LEVEL 1
#define W 4
#define VF dl_v4sf
#define VI dl_v4si
#define VD dl_v4df
#define V(name) name##_v4
#define TARGET DL_CPU_TARGET_BASELINE
#include "dl-cpu-vmath-body.h"

#ifdef DL_CPU_ISA_LEVELS
#define LEVEL 3
#define W 8
#define VF dl_v8sf
#define VI dl_v8si
#define VD dl_v8df
#define V(name) name##_v8
#define TARGET DL_CPU_TARGET_V3
#include "dl-cpu-vmath-body.h"

#define LEVEL 4
#define W 16
#define VF dl_v16sf
#define VI dl_v16si
#define VD dl_v16df
#define V(name) name##_v16
#define TARGET DL_CPU_TARGET_V4
#include "dl-cpu-vmath-body.h"
#endif

typedef double dl_v2df __attribute__ ((vector_size (16)));
typedef gint64 dl_v2di __attribute__ ((vector_size (16)));
typedef gint64 dl_v4di __attribute__ ((vector_size (32)));
typedef gint64 dl_v8di __attribute__ ((vector_size (64)));
typedef guint64 dl_v2du __attribute__ ((vector_size (16)));
typedef guint64 dl_v4du __attribute__ ((vector_size (32)));
typedef guint64 dl_v8du __attribute__ ((vector_size (64)));

#define LEVEL 1
#define W 2
#define VD dl_v2df
#define VL dl_v2di
#define VU dl_v2du
#define V(name) name##_d2
#define TARGET DL_CPU_TARGET_BASELINE
#include "dl-cpu-vmath64-body.h"

#ifdef DL_CPU_ISA_LEVELS
#define LEVEL 3
#define W 4
#define VD dl_v4df
#define VL dl_v4di
#define VU dl_v4du
#define V(name) name##_d4
#define TARGET DL_CPU_TARGET_V3
#include "dl-cpu-vmath64-body.h"

#define LEVEL 4
#define W 8
#define VD dl_v8df
#define VL dl_v8di
#define VU dl_v8du
#define V(name) name##_d8
#define TARGET DL_CPU_TARGET_V4
#include "dl-cpu-vmath64-body.h"
#endif

DlCpuLoop
dl_cpu_vmath_loop_f64 (DlUnaryOp op)
{
#ifdef DL_CPU_ISA_LEVELS
  if (dl_cpu_isa == DL_CPU_ISA_V4)
    return vmath64_loops_d8[op];
  if (dl_cpu_isa == DL_CPU_ISA_V3)
    return vmath64_loops_d4[op];
#endif
  return vmath64_loops_d2[op];
}

DlCpuLoop
dl_cpu_vmath_loop (DlUnaryOp op)
{
#ifdef DL_CPU_ISA_LEVELS
  if (dl_cpu_isa == DL_CPU_ISA_V4)
    return vmath_loops_v16[op];
  if (dl_cpu_isa == DL_CPU_ISA_V3)
    return vmath_loops_v8[op];
#endif
  return vmath_loops_v4[op];
}
