/* dl-cpu-math.c: the pointwise math library: transcendental and rounding
 * functions, predicates, nan_to_num, leaky_relu, pow, floor and truncating
 * division, remainder, atan2 and the bitwise ops.
 *
 * Kernels follow dl-cpu-pointwise.c: one run of n elements with byte
 * strides, a unit-stride branch GCC can vectorise, and a strided one. The
 * ops layer promotes first: float16 and bfloat16 arrive as float32, and
 * integer division by zero never arrives.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"
#include "backends/dl-int-math.h"
#include "backends/dl-special-math.h"

#include <tgmath.h>

#define FN DL_CPU_FN
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_ (a, b)

/* ---- scalar helpers ---------------------------------------------------- */

/* Python's floor division and remainder of floating-point numbers: the
 * quotient is the floor of the exact quotient, the remainder takes the
 * sign of the divisor. */
#define DEFINE_FLOAT_HELPERS(T, TN)                                                                \
  static inline T floordiv_##TN (T a, T b)                                                         \
  {                                                                                                \
    T mod, div, fl;                                                                                \
    if (b == 0)                                                                                    \
      return a / b;                                                                                \
    mod = fmod (a, b);                                                                             \
    div = (a - mod) / b;                                                                           \
    if (mod != 0 && (b < 0) != (mod < 0))                                                          \
      div -= 1;                                                                                    \
    if (div == 0)                                                                                  \
      return copysign ((T)0, a / b);                                                               \
    fl = floor (div);                                                                              \
    if (div - fl > (T)0.5)                                                                         \
      fl += 1;                                                                                     \
    return fl;                                                                                     \
  }                                                                                                \
  static inline T remainder_##TN (T a, T b)                                                        \
  {                                                                                                \
    T mod = fmod (a, b);                                                                           \
    if (mod != 0 && (b < 0) != (mod < 0))                                                          \
      mod += b;                                                                                    \
    return mod;                                                                                    \
  }                                                                                                \
  static inline T sign_##TN (T x)                                                                  \
  {                                                                                                \
    return (T)((x > 0) - (x < 0));                                                                 \
  }                                                                                                \
  /* a ln b, 0 for a == 0 but where b is NaN */                                                    \
  static inline T xlogy_##TN (T a, T b)                                                            \
  {                                                                                                \
    if (isnan (b))                                                                                 \
      return b;                                                                                    \
    return a == 0 ? (T)0 : a * log (b);                                                            \
  }                                                                                                \
  /* ln (e^a + e^b), the larger taken out: m + ln (1 + e^-|a - b|) */                              \
  static inline T logaddexp_##TN (T a, T b)                                                        \
  {                                                                                                \
    T m = a > b ? a : b;                                                                           \
    if (isinf (a) && a == b)                                                                       \
      return a;                                                                                    \
    return m + log1p (exp (-fabs (a - b)));                                                        \
  }                                                                                                \
  static inline T logaddexp2_##TN (T a, T b)                                                       \
  {                                                                                                \
    T m = a > b ? a : b;                                                                           \
    if (isinf (a) && a == b)                                                                       \
      return a;                                                                                    \
    return m + log1p (exp2 (-fabs (a - b))) * (T)(1.0 / M_LN2);                                    \
  }

/* min (max (x, 0), 6), NaN kept */
#define DEFINE_RELU6(T, TN)                                                                        \
  static inline T relu6_##TN (T x)                                                                 \
  {                                                                                                \
    return x < 0 ? (T)0 : x > 6 ? (T)6 : x;                                                        \
  }

DEFINE_RELU6 (float, f32)
DEFINE_RELU6 (double, f64)

/* min (max (x, lo), hi), NaN kept: hi everywhere when lo > hi, as
 * PyTorch's clamp and hardtanh */
#define DEFINE_CLAMP(T, TN)                                                                        \
  static inline T clamp_##TN (T x, T lo, T hi)                                                     \
  {                                                                                                \
    T t = x < lo ? lo : x;                                                                         \
    return t > hi ? hi : t;                                                                        \
  }

DEFINE_CLAMP (float, f32)
DEFINE_CLAMP (double, f64)
DEFINE_FLOAT_HELPERS (float, f32)
DEFINE_FLOAT_HELPERS (double, f64)

/* lgamma without the global signgam that C99's writes from every thread */
static inline float
lgamma_f32 (float x)
{
  int sign;

  return lgammaf_r (x, &sign);
}

static inline double
lgamma_f64 (double x)
{
  int sign;

  return lgamma_r (x, &sign);
}

/* ---- unary ------------------------------------------------------------- */

#define DL_SQRT_2_OVER_PI 0.79788456080286535588
#define DL_GELU_COEF 0.044715

#define UNARY_FLOAT_OPS(X)                                                                         \
  X (EXPM1, expm1, expm1 (x))                                                                      \
  X (LOG1P, log1p, log1p (x))                                                                      \
  X (LOG2, log2, log2 (x))                                                                         \
  X (RSQRT, rsqrt, (1 / sqrt (x)))                                                                 \
  X (SIN, sin, sin (x))                                                                            \
  X (COS, cos, cos (x))                                                                            \
  X (TAN, tan, tan (x))                                                                            \
  X (SIGN, sign, CAT (sign_, TN) (x))                                                              \
  X (FLOOR, floor, floor (x))                                                                      \
  X (CEIL, ceil, ceil (x))                                                                         \
  X (ROUND, round, nearbyint (x))                                                                  \
  X (TRUNC, trunc, trunc (x))                                                                      \
  X (FRAC, frac, (x - trunc (x)))                                                                  \
  X (RECIPROCAL, reciprocal, (1 / x))                                                              \
  X (ASIN, asin, asin (x))                                                                         \
  X (ACOS, acos, acos (x))                                                                         \
  X (ATAN, atan, atan (x))                                                                         \
  X (SINH, sinh, sinh (x))                                                                         \
  X (COSH, cosh, cosh (x))                                                                         \
  X (ASINH, asinh, asinh (x))                                                                      \
  X (ACOSH, acosh, acosh (x))                                                                      \
  X (ATANH, atanh, atanh (x))                                                                      \
  X (LOG10, log10, log10 (x))                                                                      \
  X (EXP2, exp2, exp2 (x))                                                                         \
  X (ERFC, erfc, erfc (x))                                                                         \
  X (LGAMMA, lgamma, CAT (lgamma_, TN) (x))                                                        \
  X (DEG2RAD, deg2rad, (x * (T)(M_PI / 180)))                                                      \
  X (RAD2DEG, rad2deg, (x * (T)(180 / M_PI)))                                                      \
  X (ERFINV, erfinv, (T)dl_special_erfinv (x))                                                     \
  X (DIGAMMA, digamma, (T)dl_special_digamma (x))                                                  \
  X (SINC, sinc, (T)dl_special_sinc (x))                                                           \
  X (I0, i0, (T)dl_special_bessel_i (0, x))                                                        \
  X (I1, i1, (T)dl_special_bessel_i (1, x))                                                        \
  X (SQUARE, square, (x * x))                                                                      \
  X (HARDSWISH, hardswish, (x * CAT (relu6_, TN) (x + 3) / 6))                                     \
  X (HARDSIGMOID, hardsigmoid, (CAT (relu6_, TN) (x + 3) / 6))                                     \
  X (MISH, mish, (x * tanh (log1p (exp (x)))))                                                     \
  X (LOGSIGMOID, logsigmoid, ((x < 0 ? x : 0) - log1p (exp (-fabs (x)))))                          \
  X (SOFTSIGN, softsign, (x / (1 + fabs (x))))                                                     \
  X (TANHSHRINK, tanhshrink, (x - tanh (x)))

/* float32's are vector kernels of their own (dl-cpu-vmath.c) */
#define UNARY_F64_OPS(X)                                                                           \
  X (GELU, gelu, (x * 0.5 * (1 + erf (x * M_SQRT1_2))))                                            \
  X (GELU_TANH, gelu_tanh,                                                                         \
     (0.5 * x * (1 + tanh (DL_SQRT_2_OVER_PI * (x + DL_GELU_COEF * x * x * x)))))                  \
  X (SILU, silu, (x / (1 + exp (-x))))                                                             \
  X (ERF, erf, erf (x))

#define UNARY_PRED_OPS(X)                                                                          \
  X (ISNAN, isnan, (isnan (x) != 0))                                                               \
  X (ISINF, isinf, (isinf (x) != 0))                                                               \
  X (ISFINITE, isfinite, (isfinite (x) != 0))                                                      \
  X (ISNEGINF, isneginf, (x == -(T)INFINITY))                                                      \
  X (ISPOSINF, isposinf, (x == (T)INFINITY))                                                       \
  X (SIGNBIT, signbit, (signbit (x) != 0))

#define UNARY_INT_OPS(X)                                                                           \
  X (SIGN, sign, (T)((x > 0) - (x < 0)))                                                           \
  X (SQUARE, square, (T)((guint64)x * (guint64)x))                                                 \
  X (BITWISE_NOT, bitwise_not, (T)~x)

#define UNARY_UINT_OPS(X)                                                                          \
  X (SIGN, sign, (T)(x > 0))                                                                       \
  X (SQUARE, square, (T)(x * x))                                                                   \
  X (BITWISE_NOT, bitwise_not, (T)~x)

#define UNARY_BOOL_OPS(X)                                                                          \
  X (SIGN, sign, x)                                                                                \
  X (BITWISE_NOT, bitwise_not, (T)!x)

/* out (OT) = EXPR of x (T) */
#define DEFINE_UNARY(OPN, opn, EXPR, OT)                                                           \
  DL_CPU_DEFINE_UNARY_LOOP (FN (math_unary_, opn, TN), T, OT, EXPR)
#define DEFINE_UNARY_SAME(OPN, opn, EXPR) DEFINE_UNARY (OPN, opn, EXPR, T)
#define DEFINE_UNARY_PRED(OPN, opn, EXPR) DEFINE_UNARY (OPN, opn, EXPR, guint8)

/* nan_to_num: params are (nan, posinf, neginf) */
#define DEFINE_NAN_TO_NUM                                                                          \
  static void FN (math_unary_, nan_to_num, TN) (char **data, const gint64 *s, gint64 n,            \
                                                gpointer ctx)                                      \
  {                                                                                                \
    const gdouble *p = ctx;                                                                        \
    const T vnan = (T)p[0], vpos = (T)p[1], vneg = (T)p[2];                                        \
    for (gint64 i = 0; i < n; i++)                                                                 \
      {                                                                                            \
        T x = *(const T *)(data[1] + i * s[1]);                                                    \
        *(T *)(data[0] + i * s[0]) = isnan (x) ? vnan : isinf (x) ? (x > 0 ? vpos : vneg) : x;     \
      }                                                                                            \
  }

/* leaky_relu: params are (negative_slope) */
#define DEFINE_LEAKY_RELU                                                                          \
  static void FN (math_unary_, leaky_relu, TN) (char **data, const gint64 *s, gint64 n,            \
                                                gpointer ctx)                                      \
  {                                                                                                \
    const T slope = (T)((const gdouble *)ctx)[0];                                                  \
    for (gint64 i = 0; i < n; i++)                                                                 \
      {                                                                                            \
        T x = *(const T *)(data[1] + i * s[1]);                                                    \
        *(T *)(data[0] + i * s[0]) = x > 0 ? x : x * slope;                                        \
      }                                                                                            \
  }

/* logit: params are (eps); eps < 0: no clamp. ln (x / (1 - x)) */
#define DEFINE_LOGIT                                                                               \
  static void FN (math_unary_, logit, TN) (char **data, const gint64 *s, gint64 n, gpointer ctx)   \
  {                                                                                                \
    const gdouble eps = ((const gdouble *)ctx)[0];                                                 \
    const T lo = (T)eps, hi = 1 - (T)eps;                                                          \
    for (gint64 i = 0; i < n; i++)                                                                 \
      {                                                                                            \
        T x = *(const T *)(data[1] + i * s[1]);                                                    \
        if (eps >= 0)                                                                              \
          x = x < lo ? lo : x > hi ? hi : x;                                                       \
        *(T *)(data[0] + i * s[0]) = log (x / (1 - x));                                            \
      }                                                                                            \
  }

/* polygamma: params are (n), n >= 1 */
#define DEFINE_POLYGAMMA                                                                           \
  static void FN (math_unary_, polygamma, TN) (char **data, const gint64 *s, gint64 n,             \
                                               gpointer ctx)                                       \
  {                                                                                                \
    const int order = (int)((const gdouble *)ctx)[0];                                              \
    for (gint64 i = 0; i < n; i++)                                                                 \
      {                                                                                            \
        T x = *(const T *)(data[1] + i * s[1]);                                                    \
        *(T *)(data[0] + i * s[0]) = (T)dl_special_polygamma (order, x);                           \
      }                                                                                            \
  }

/* the activations with numbers: out = EXPR of x (T) and p, the params */
#define DEFINE_PARAM_UNARY(opn, EXPR)                                                              \
  static void FN (math_unary_, opn, TN) (char **data, const gint64 *s, gint64 n, gpointer ctx)     \
  {                                                                                                \
    const gdouble *p = ctx;                                                                        \
    for (gint64 i = 0; i < n; i++)                                                                 \
      {                                                                                            \
        T x = *(const T *)(data[1] + i * s[1]);                                                    \
        *(T *)(data[0] + i * s[0]) = (EXPR);                                                       \
      }                                                                                            \
  }

/* hardtanh (min, max); elu (alpha, scale, input_scale); hardshrink and
 * softshrink (lambd); threshold (threshold, value) */
#define DEFINE_PARAM_ACTIVATIONS                                                                   \
  DEFINE_PARAM_UNARY (hardtanh, CAT (clamp_, TN) (x, (T)p[0], (T)p[1]))                            \
  DEFINE_PARAM_UNARY (elu, x > 0 ? (T)p[1] * x : (T)p[1] * (T)p[0] * expm1 ((T)p[2] * x))          \
  DEFINE_PARAM_UNARY (hardshrink, (x >= -(T)p[0] && x <= (T)p[0]) ? (T)0 : x)                      \
  DEFINE_PARAM_UNARY (softshrink, x > (T)p[0] ? x - (T)p[0] : x < -(T)p[0] ? x + (T)p[0] : (T)0)   \
  DEFINE_PARAM_UNARY (threshold, x <= (T)p[0] ? (T)p[1] : x)

#define PARAM_ENTRIES(TN)                                                                          \
  [DL_UNARY_HARDTANH] = math_unary_hardtanh_##TN, [DL_UNARY_ELU] = math_unary_elu_##TN,            \
  [DL_UNARY_HARDSHRINK] = math_unary_hardshrink_##TN,                                              \
  [DL_UNARY_SOFTSHRINK] = math_unary_softshrink_##TN,                                              \
  [DL_UNARY_THRESHOLD] = math_unary_threshold_##TN

#define T float
#define TN f32
DEFINE_PARAM_ACTIVATIONS
UNARY_FLOAT_OPS (DEFINE_UNARY_SAME)
UNARY_PRED_OPS (DEFINE_UNARY_PRED)
DEFINE_NAN_TO_NUM
DEFINE_LEAKY_RELU
DEFINE_LOGIT
DEFINE_POLYGAMMA
#undef T
#undef TN
#define T double
#define TN f64
DEFINE_PARAM_ACTIVATIONS
UNARY_FLOAT_OPS (DEFINE_UNARY_SAME)
UNARY_F64_OPS (DEFINE_UNARY_SAME)
UNARY_PRED_OPS (DEFINE_UNARY_PRED)
DEFINE_NAN_TO_NUM
DEFINE_LEAKY_RELU
DEFINE_LOGIT
DEFINE_POLYGAMMA
#undef T
#undef TN
#define T gint32
#define TN i32
UNARY_INT_OPS (DEFINE_UNARY_SAME)
#undef T
#undef TN
#define T gint64
#define TN i64
UNARY_INT_OPS (DEFINE_UNARY_SAME)
#undef T
#undef TN
#define T guint8
#define TN u8
UNARY_UINT_OPS (DEFINE_UNARY_SAME)
#undef T
#undef TN
#define T guint8
#define TN b8
UNARY_BOOL_OPS (DEFINE_UNARY_SAME)
#undef T
#undef TN

#define UNARY_ENTRY(OPN, opn, EXPR) [DL_UNARY_##OPN] = FN (math_unary_, opn, TN),
static const DlCpuLoop math_unary_loops[DL_N_DTYPES][DL_N_UNARY_OPS] = {
#define TN f32
  [DL_DTYPE_FLOAT32]
  = { UNARY_FLOAT_OPS (UNARY_ENTRY) UNARY_PRED_OPS (UNARY_ENTRY)[DL_UNARY_NAN_TO_NUM]
      = math_unary_nan_to_num_f32,
      [DL_UNARY_LEAKY_RELU] = math_unary_leaky_relu_f32, [DL_UNARY_LOGIT] = math_unary_logit_f32,
      [DL_UNARY_POLYGAMMA] = math_unary_polygamma_f32, PARAM_ENTRIES (f32) },
#undef TN
#define TN f64
  [DL_DTYPE_FLOAT64]
  = { UNARY_FLOAT_OPS (UNARY_ENTRY) UNARY_F64_OPS (UNARY_ENTRY)
          UNARY_PRED_OPS (UNARY_ENTRY)[DL_UNARY_NAN_TO_NUM]
      = math_unary_nan_to_num_f64,
      [DL_UNARY_LEAKY_RELU] = math_unary_leaky_relu_f64, [DL_UNARY_LOGIT] = math_unary_logit_f64,
      [DL_UNARY_POLYGAMMA] = math_unary_polygamma_f64, PARAM_ENTRIES (f64) },
#undef TN
#define TN i32
  [DL_DTYPE_INT32] = { UNARY_INT_OPS (UNARY_ENTRY) },
#undef TN
#define TN i64
  [DL_DTYPE_INT64] = { UNARY_INT_OPS (UNARY_ENTRY) },
#undef TN
#define TN u8
  [DL_DTYPE_UINT8] = { UNARY_UINT_OPS (UNARY_ENTRY) },
#undef TN
#define TN b8
  [DL_DTYPE_BOOL] = { UNARY_BOOL_OPS (UNARY_ENTRY) },
#undef TN
};

void
dl_cpu_math_unary (DlBackendContext *ctx,
                   DlUnaryOp op,
                   DlIter *iter,
                   DlDType dtype,
                   const gdouble *params)
{
  DlCpuLoop loop = math_unary_loops[dtype][op];

  g_return_if_fail (loop != NULL); /* the ops layer promotes first */
  g_return_if_fail (op < DL_UNARY_NAN_TO_NUM || params != NULL);
  dl_cpu_iter_for_each_cost (iter, loop, (gpointer)params, dl_cpu_unary_cost (op, dtype));
}

/* ---- binary ------------------------------------------------------------ */

#define BINARY_FLOAT_OPS(X)                                                                        \
  X (POW, pow, pow (a, b))                                                                         \
  X (FLOOR_DIVIDE, floor_divide, CAT (floordiv_, TN) (a, b))                                       \
  X (TRUNC_DIVIDE, trunc_divide, trunc (a / b))                                                    \
  X (REMAINDER, remainder, CAT (remainder_, TN) (a, b))                                            \
  X (ATAN2, atan2, atan2 (a, b))                                                                   \
  X (FMOD, fmod, fmod (a, b))                                                                      \
  X (HYPOT, hypot, hypot (a, b))                                                                   \
  X (COPYSIGN, copysign, copysign (a, b))                                                          \
  X (XLOGY, xlogy, CAT (xlogy_, TN) (a, b))                                                        \
  X (FMAX, fmax, fmax (a, b))                                                                      \
  X (FMIN, fmin, fmin (a, b))                                                                      \
  X (HEAVISIDE, heaviside, (a == 0 ? b : (T)(a > 0)))                                              \
  X (NEXTAFTER, nextafter, nextafter (a, b))                                                       \
  X (LOGADDEXP, logaddexp, CAT (logaddexp_, TN) (a, b))                                            \
  X (LOGADDEXP2, logaddexp2, CAT (logaddexp2_, TN) (a, b))

/* shifts as C shifts an int (int64 an int64), the count masked to that
 * width as x86 does: PyTorch's CPU results, out-of-range counts included */
#define SHIFT_WIDE(T) CAT (SHIFT_WIDE_, T)
#define SHIFT_WIDE_gint32 gint32
#define SHIFT_WIDE_guint8 gint32
#define SHIFT_WIDE_gint64 gint64
#define LSHIFT(a, b)                                                                               \
  ((T)(SHIFT_WIDE (T)) ((guint64)(SHIFT_WIDE (T)) (a)                                              \
                        << ((guint64)(b) & (sizeof (SHIFT_WIDE (T)) * 8 - 1))))
#define RSHIFT(a, b)                                                                               \
  ((T)((SHIFT_WIDE (T)) (a) >> ((guint64)(b) & (sizeof (SHIFT_WIDE (T)) * 8 - 1))))

#define BINARY_INT_OPS(X)                                                                          \
  X (POW, pow, dl_int_pow (a, b))                                                                  \
  X (FLOOR_DIVIDE, floor_divide, dl_int_floordiv (a, b))                                           \
  X (TRUNC_DIVIDE, trunc_divide, dl_int_truncdiv (a, b))                                           \
  X (REMAINDER, remainder, dl_int_remainder (a, b))                                                \
  X (BITWISE_AND, bitwise_and, (a & b))                                                            \
  X (BITWISE_OR, bitwise_or, (a | b))                                                              \
  X (BITWISE_XOR, bitwise_xor, (a ^ b))                                                            \
  X (FMOD, fmod, dl_int_fmod (a, b))                                                               \
  X (FMAX, fmax, (a > b ? a : b))                                                                  \
  X (FMIN, fmin, (a < b ? a : b))                                                                  \
  X (HEAVISIDE, heaviside, (a == 0 ? b : (T)(a > 0)))                                              \
  X (GCD, gcd, dl_int_gcd (a, b))                                                                  \
  X (LCM, lcm, dl_int_lcm (a, b))                                                                  \
  X (LSHIFT, lshift, LSHIFT (a, b))                                                                \
  X (RSHIFT, rshift, RSHIFT (a, b))

#define BINARY_BOOL_OPS(X)                                                                         \
  X (BITWISE_AND, bitwise_and, (a & b))                                                            \
  X (BITWISE_OR, bitwise_or, (a | b))                                                              \
  X (BITWISE_XOR, bitwise_xor, (a ^ b))                                                            \
  X (FMAX, fmax, (a | b))                                                                          \
  X (FMIN, fmin, (a & b))                                                                          \
  X (HEAVISIDE, heaviside, (a == 0 ? b : 1))

#define DEFINE_BINARY(OPN, opn, EXPR)                                                              \
  DL_CPU_DEFINE_BINARY_LOOP (FN (math_binary_, opn, TN), T, T, EXPR)

#define T float
#define TN f32
BINARY_FLOAT_OPS (DEFINE_BINARY)
#undef T
#undef TN
#define T double
#define TN f64
BINARY_FLOAT_OPS (DEFINE_BINARY)
#undef T
#undef TN
#define T gint32
#define TN i32
BINARY_INT_OPS (DEFINE_BINARY)
#undef T
#undef TN
#define T gint64
#define TN i64
BINARY_INT_OPS (DEFINE_BINARY)
#undef T
#undef TN
#define T guint8
#define TN u8
BINARY_INT_OPS (DEFINE_BINARY)
#undef T
#undef TN
#define T guint8
#define TN b8
BINARY_BOOL_OPS (DEFINE_BINARY)
#undef T
#undef TN

#define BINARY_ENTRY(OPN, opn, EXPR) [DL_BINARY_##OPN] = FN (math_binary_, opn, TN),
static const DlCpuLoop math_binary_loops[DL_N_DTYPES][DL_N_BINARY_OPS] = {
#define TN f32
  [DL_DTYPE_FLOAT32] = { BINARY_FLOAT_OPS (BINARY_ENTRY) },
#undef TN
#define TN f64
  [DL_DTYPE_FLOAT64] = { BINARY_FLOAT_OPS (BINARY_ENTRY) },
#undef TN
#define TN i32
  [DL_DTYPE_INT32] = { BINARY_INT_OPS (BINARY_ENTRY) },
#undef TN
#define TN i64
  [DL_DTYPE_INT64] = { BINARY_INT_OPS (BINARY_ENTRY) },
#undef TN
#define TN u8
  [DL_DTYPE_UINT8] = { BINARY_INT_OPS (BINARY_ENTRY) },
#undef TN
#define TN b8
  [DL_DTYPE_BOOL] = { BINARY_BOOL_OPS (BINARY_ENTRY) },
#undef TN
};

void
dl_cpu_math_binary (DlBackendContext *ctx, DlBinaryOp op, DlIter *iter, DlDType dtype)
{
  DlCpuLoop loop = math_binary_loops[dtype][op];

  g_return_if_fail (loop != NULL); /* the ops layer promotes first */
  dl_cpu_iter_for_each (iter, loop, NULL);
}
