/* dl-cpu-vmath64-body.h: the float64 vector math of dl-cpu-vmath.c,
 * written once for vectors of W doubles and included once per x86-64
 * level.
 *
 * The including file defines:
 *   LEVEL  1 (SSE2, or GCC's generic vectors elsewhere), 3 (AVX2 and FMA)
 *          or 4 (AVX-512)
 *   W      the lanes: 2, 4 or 8
 *   VD VL  the vector types of W doubles and of W int64s
 *   V(n)   n with the level's suffix (n_d2, n_d4, n_d8)
 *   TARGET the level's function attribute
 * and leaves behind V (vmath64_loops), the kernels indexed by DlUnaryOp
 * (undefining the parameters).
 *
 * Every lane is computed on its own (no test across lanes picks a path),
 * with GCC's generic vector arithmetic, which contracts a * b + c into a
 * fused multiply-add where the level has FMA; the formulas are accurate
 * either way (the SSE2 variant has none). Lane masks are VLs of all-ones
 * or zero lanes, as GCC's vector comparisons give them.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define VDSPLAT(c) ((VD){} + (double)(c))

/* a where m is set, b elsewhere */
TARGET static inline G_ALWAYS_INLINE VD
V (sel) (VL m, VD a, VD b)
{
  return (VD)((m & (VL)a) | (~m & (VL)b));
}

TARGET static inline G_ALWAYS_INLINE VD
V (abs) (VD x)
{
  return (VD)((VL)x & G_GINT64_CONSTANT (0x7fffffffffffffff));
}

/* ---- e^x ----------------------------------------------------------------
 * e^x = 2^k e^r with k = round (x / ln 2) and r = x - k ln 2, ln 2 in two
 * parts, the first with 41 significant bits so that k LN2_HI is exact for
 * |k| < 2^12 (and x - k LN2_HI exact); |r| <= ln 2 / 2 (a little more where
 * x / ln 2 rounds differently). e^r = 1 + (r + r^2 Q (r)), Q of degree 9
 * (so a degree-11 polynomial for e^r; Chebyshev interpolation of
 * (e^r - 1 - r) / r^2 on [-0.348, 0.348], the coefficients rounded to
 * float64: relative error of e^r from the polynomial 2^-55.8). k comes out
 * of t = x / ln 2 + 1.5 * 2^52, which holds it in its low mantissa bits,
 * so that 2^k is t << 52 plus the exponent bias for normal exponents. x is
 * clamped to [-746, 710] first (a NaN stays: the comparisons are false),
 * where k is in [-1077, 1025]; 2^k is applied as two normal powers of two
 * (vscalefpd with AVX-512), so that the result overflows to inf and
 * underflows through the subnormals to 0 with one rounding. */

#define EXP64_SHIFT 0x1.8p52
#define LN2_64_HI 0x1.62e42fefa3000p-1
#define LN2_64_LO 0x1.3de6af278ece6p-42

/* e^r for x, with *kf = k */
TARGET static inline G_ALWAYS_INLINE VD
V (exp64_reduce) (VD x, VD *kf)
{
  VD t = x * 0x1.71547652b82fep0 + EXP64_SHIFT;
  VD r, q;

  *kf = t - EXP64_SHIFT;
  r = x - *kf * LN2_64_HI;
  r = r - *kf * LN2_64_LO;
  q = r * 0x1.af39d92ab3282p-26 + 0x1.28927c0646723p-22;
  q = q * r + 0x1.71de0d2e6e42bp-19;
  q = q * r + 0x1.a019b83d2cea4p-16;
  q = q * r + 0x1.a01a01a7e5259p-13;
  q = q * r + 0x1.6c16c178c18a5p-10;
  q = q * r + 0x1.1111111110989p-7;
  q = q * r + 0x1.5555555553cd9p-5;
  q = q * r + 0x1.5555555555556p-3;
  q = q * r + 0x1.0000000000001p-1;
  return 1.0 + (r + (r * r) * q);
}

/* p 2^k for k = kf in [-1077, 1025]: exact, or rounded once into the
 * subnormals, or inf */
TARGET static inline G_ALWAYS_INLINE VD
V (exp64_scale) (VD p, VD kf)
{
#if LEVEL == 4
  return (VD)_mm512_scalef_pd ((__m512d)p, (__m512d)kf);
#else
  /* k1 = round (k / 2) (k / 2 is exact), k2 = k - k1: both in [-539, 513] */
  VD t1 = kf * 0.5 + EXP64_SHIFT;
  VD k1f = t1 - EXP64_SHIFT;
  VD t2 = (kf - k1f) + EXP64_SHIFT;

  return p * (VD)(((VL)t1 + 1023) << 52) * (VD)(((VL)t2 + 1023) << 52);
#endif
}

TARGET static inline G_ALWAYS_INLINE VD
V (exp64) (VD x)
{
  VD kf, p;

  x = V (sel) (x < -746.0, VDSPLAT (-746.0), x);
  x = V (sel) (x > 710.0, VDSPLAT (710.0), x);
  p = V (exp64_reduce) (x, &kf);
  return V (exp64_scale) (p, kf);
}

/* ---- sigmoid ------------------------------------------------------------
 * With e = e^-|x| (in [0, 1], never overflows), sigmoid (-|x|) = e / (1 + e)
 * and sigmoid (|x|) = 1 / (1 + e). q = e / (1 + e) rounded; the residual
 * r = e - q (1 + e) = (e - q) - q e (e - q is exact, q e is exact with FMA
 * and within half an ulp of q e without) corrects it: e / (1 + e) =
 * q + r / (1 + e), with 1 / (1 + e) ~ 1 - q. Below e = 2^-60 the correction
 * is 0 (q = e), and q e is not computed there, to keep the subnormals out
 * of the arithmetic. */

/* e / (1 + e) for e in [0, 1] (or NaN) */
TARGET static inline G_ALWAYS_INLINE VD
V (sigmoid64_parts) (VD e)
{
  VD q = e / (1.0 + e);
  VD r = (e - q) - q * V (sel) (e >= 0x1p-60, e, VDSPLAT (0.0));

  return q + r * (1.0 - q);
}

TARGET static inline G_ALWAYS_INLINE VD
V (sigmoid64) (VD x)
{
  VD q = V (sigmoid64_parts) (V (exp64) (-V (abs) (x)));

  return V (sel) (x < 0.0, q, 1.0 - q);
}

/* ---- tanh ---------------------------------------------------------------
 * For a = |x| < 0.625: a + a^3 P (a^2), P of degree 10 (Chebyshev
 * interpolation of (tanh (a) - a) / a^3 on [0, 0.3907]: relative error
 * 2^-51.1, which a^3 P, below 0.13 of the result, makes 2^-54); above:
 * 1 - 2 sigmoid (-2a) = 1 - 2 e / (1 + e) with e = e^-2a as in sigmoid, a
 * capped at 20, where tanh is 1 in float64. Both are computed; the sign
 * comes last (so tanh (-0) = -0, and a NaN stays NaN). */

TARGET static inline G_ALWAYS_INLINE VD
V (tanh64) (VD x)
{
  VD a = V (abs) (x), z = a * a;
  VD p = z * -0x1.214c6669d5aacp-16 + 0x1.4ddab0f178eb6p-14;
  VD small, large, kf, y;

  p = p * z - 0x1.e3f7f3a7dd53dp-13;
  p = p * z + 0x1.33fc620468678p-11;
  p = p * z - 0x1.7d80237f01d40p-10;
  p = p * z + 0x1.d6d17f5af6289p-9;
  p = p * z - 0x1.226e291f6bd9fp-7;
  p = p * z + 0x1.664f4836f1aeep-6;
  p = p * z - 0x1.ba1ba1b92a1ffp-5;
  p = p * z + 0x1.11111111107aap-3;
  p = p * z - 0x1.5555555555553p-2;
  small = (a * z) * p + a;
  large = V (sel) (a > 20.0, VDSPLAT (20.0), a) * -2.0;
  large = V (exp64_reduce) (large, &kf);
  large = 1.0 - 2.0 * V (sigmoid64_parts) (V (exp64_scale) (large, kf));
  y = V (sel) (a < 0.625, small, large);
  return (VD)(((VL)y & G_GINT64_CONSTANT (0x7fffffffffffffff))
              | ((VL)x & (gint64)G_GUINT64_CONSTANT (0x8000000000000000)));
}

/* ---- log ----------------------------------------------------------------
 * x = 2^e m with m in [sqrt (1/2), sqrt (2)), found in the bits (subnormal
 * x scaled by 2^52 first); log x = e ln 2 + log1p (f) with f = m - 1
 * (exact). With s = f / (2 + f) (|s| <= 0.1716) and h = f^2 / 2,
 * log1p (f) = 2 atanh (s) = f - (h - s (h + R)), R = s^2 H (s^2) (that is
 * 2 s^3 / 3 + 2 s^5 / 5 + ...: f - 2 s = s f = h - s h), H of degree 6
 * (Chebyshev interpolation on [0, 0.02946]: relative error 2^-50.9, which
 * s R, below 0.01 of the result, makes 2^-57). The part that is not f or
 * e LN2_HI is small and summed first. Zero, negative, infinite and NaN
 * lanes are set apart at the end. */

TARGET static inline G_ALWAYS_INLINE VD
V (log64) (VD x)
{
  VL sub = x < 0x1p-1022;
  VD xs = V (sel) (sub, x * 0x1p52, x);
  /* the biased exponent of x / sqrt (1/2), and m */
  /* in unsigned arithmetic: negative, infinite and NaN lanes (set apart
   * at the end) make no signed overflow */
  VL eb = (VL)(((VU)xs + G_GUINT64_CONSTANT (0x95f619980c433)) >> 52);
  VD m = (VD)((VU)xs - ((VU)(eb - 1023) << 52));
  VD ef = (VD)(eb | G_GINT64_CONSTANT (0x4330000000000000)) - (0x1p52 + 1023.0)
          - V (sel) (sub, VDSPLAT (52.0), VDSPLAT (0.0));
  VD f = m - 1.0;
  VD s = f / (2.0 + f), z = s * s, h = 0.5 * f * f;
  VD p = z * 0x1.2b5f68a50d903p-3 + 0x1.39fdcceb4bb45p-3;
  VD y;
  VL special;

  p = p * z + 0x1.7462b91b8df65p-3;
  p = p * z + 0x1.c71c62d5e53e0p-3;
  p = p * z + 0x1.2492492dfd86cp-2;
  p = p * z + 0x1.9999999995273p-2;
  p = p * z + 0x1.5555555555558p-1;
  y = ef * LN2_64_HI + (f - ((h - s * (h + z * p)) - ef * LN2_64_LO));
  /* x <= 0, inf or NaN: NaN for x < 0, -inf for 0, x for inf and NaN */
  special = ~((x > 0.0) & (x < __builtin_inf ()));
  y = V (sel) (special, V (sel) (x < 0.0, VDSPLAT (__builtin_nan ("")), x), y);
  return V (sel) (x == 0.0, VDSPLAT (-__builtin_inf ()), y);
}

/* ---- the loops ----------------------------------------------------------
 * A run of n doubles at unit stride, by whole vectors and a part (padded
 * with 1); strided runs go through a buffer on the stack, a block at a
 * time. */

#define VMATH64_BLOCK 128

#define DEFINE_VMATH64_LOOP(fn)                                                                    \
  TARGET static void V (fn##_run) (double *y, const double *x, gint64 n)                           \
  {                                                                                                \
    gint64 i = 0;                                                                                  \
    VD v;                                                                                          \
    for (; i + W <= n; i += W)                                                                     \
      {                                                                                            \
        memcpy (&v, x + i, sizeof v);                                                              \
        v = V (fn) (v);                                                                            \
        memcpy (y + i, &v, sizeof v);                                                              \
      }                                                                                            \
    if (i < n)                                                                                     \
      {                                                                                            \
        double b[W];                                                                               \
        for (gint j = 0; j < W; j++)                                                               \
          b[j] = i + j < n ? x[i + j] : 1.0;                                                       \
        memcpy (&v, b, sizeof v);                                                                  \
        v = V (fn) (v);                                                                            \
        memcpy (b, &v, sizeof v);                                                                  \
        memcpy (y + i, b, (n - i) * sizeof (double));                                              \
      }                                                                                            \
  }                                                                                                \
  TARGET static void V (fn##_loop) (char **data, const gint64 *s, gint64 n, gpointer ctx)          \
  {                                                                                                \
    double buf[VMATH64_BLOCK];                                                                     \
    if (s[0] == sizeof (double) && s[1] == sizeof (double))                                        \
      {                                                                                            \
        V (fn##_run) ((double *)data[0], (const double *)data[1], n);                              \
        return;                                                                                    \
      }                                                                                            \
    for (gint64 i = 0; i < n; i += VMATH64_BLOCK)                                                  \
      {                                                                                            \
        gint64 m = MIN (n - i, VMATH64_BLOCK);                                                     \
        for (gint64 j = 0; j < m; j++)                                                             \
          buf[j] = *(const double *)(data[1] + (i + j) * s[1]);                                    \
        V (fn##_run) (buf, buf, m);                                                                \
        for (gint64 j = 0; j < m; j++)                                                             \
          *(double *)(data[0] + (i + j) * s[0]) = buf[j];                                          \
      }                                                                                            \
  }

DEFINE_VMATH64_LOOP (exp64)
DEFINE_VMATH64_LOOP (log64)
DEFINE_VMATH64_LOOP (sigmoid64)
DEFINE_VMATH64_LOOP (tanh64)

static const DlCpuLoop V (vmath64_loops)[DL_N_UNARY_OPS] = {
  [DL_UNARY_EXP] = V (exp64_loop),
  [DL_UNARY_LOG] = V (log64_loop),
  [DL_UNARY_SIGMOID] = V (sigmoid64_loop),
  [DL_UNARY_TANH] = V (tanh64_loop),
};

#undef LEVEL
#undef W
#undef VD
#undef VL
#undef VU
#undef V
#undef TARGET
#undef VDSPLAT
#undef DEFINE_VMATH64_LOOP
