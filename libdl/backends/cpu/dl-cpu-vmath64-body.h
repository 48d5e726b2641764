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

/* Q (r): e^r = 1 + r + r^2 Q (r) */
TARGET static inline G_ALWAYS_INLINE VD
V (exp64_q) (VD r)
{
  VD q = r * 0x1.af39d92ab3282p-26 + 0x1.28927c0646723p-22;

  q = q * r + 0x1.71de0d2e6e42bp-19;
  q = q * r + 0x1.a019b83d2cea4p-16;
  q = q * r + 0x1.a01a01a7e5259p-13;
  q = q * r + 0x1.6c16c178c18a5p-10;
  q = q * r + 0x1.1111111110989p-7;
  q = q * r + 0x1.5555555553cd9p-5;
  q = q * r + 0x1.5555555555556p-3;
  return q * r + 0x1.0000000000001p-1;
}

/* e^r for x, with *kf = k */
TARGET static inline G_ALWAYS_INLINE VD
V (exp64_reduce) (VD x, VD *kf)
{
  VD t = x * 0x1.71547652b82fep0 + EXP64_SHIFT;
  VD r;

  *kf = t - EXP64_SHIFT;
  r = x - *kf * LN2_64_HI;
  r = r - *kf * LN2_64_LO;
  return 1.0 + (r + (r * r) * V (exp64_q) (r));
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

/* the parts of log xs for a normal xs > 0 (xs = x 2^52 where x is
 * subnormal, ebias = 52 there): *ef = e, *f = m - 1, and the return value
 * corr, log1p (f) = f - corr */
TARGET static inline G_ALWAYS_INLINE VD
V (log64_parts) (VD xs, VD ebias, VD *ef, VD *f)
{
  /* the biased exponent of xs / sqrt (1/2), and m */
  /* in unsigned arithmetic: negative, infinite and NaN lanes (set apart
   * by the callers) make no signed overflow */
  VL eb = (VL)(((VU)xs + G_GUINT64_CONSTANT (0x95f619980c433)) >> 52);
  VD m = (VD)((VU)xs - ((VU)(eb - 1023) << 52));
  VD s, z, h, p;

  *ef = (VD)(eb | G_GINT64_CONSTANT (0x4330000000000000)) - (0x1p52 + 1023.0) - ebias;
  *f = m - 1.0;
  s = *f / (2.0 + *f);
  z = s * s;
  h = 0.5 * *f * *f;
  p = z * 0x1.2b5f68a50d903p-3 + 0x1.39fdcceb4bb45p-3;
  p = p * z + 0x1.7462b91b8df65p-3;
  p = p * z + 0x1.c71c62d5e53e0p-3;
  p = p * z + 0x1.2492492dfd86cp-2;
  p = p * z + 0x1.9999999995273p-2;
  p = p * z + 0x1.5555555555558p-1;
  return h - s * (h + z * p);
}

/* x <= 0, inf or NaN: NaN for x < 0, -inf for 0, x for inf and NaN */
TARGET static inline G_ALWAYS_INLINE VD
V (log64_special) (VD x, VD y)
{
  VL special = ~((x > 0.0) & (x < __builtin_inf ()));

  y = V (sel) (special, V (sel) (x < 0.0, VDSPLAT (__builtin_nan ("")), x), y);
  return V (sel) (x == 0.0, VDSPLAT (-__builtin_inf ()), y);
}

TARGET static inline G_ALWAYS_INLINE VD
V (log64) (VD x)
{
  VL sub = x < 0x1p-1022;
  VD ef, f, corr;

  corr = V (log64_parts) (V (sel) (sub, x * 0x1p52, x),
                          V (sel) (sub, VDSPLAT (52.0), VDSPLAT (0.0)), &ef, &f);
  return V (log64_special) (x, ef * LN2_64_HI + (f - (corr - ef * LN2_64_LO)));
}

/* ---- log2 ---------------------------------------------------------------
 * e + log1p (f) / ln 2, log1p (f) = f - corr as in log, carried as
 * hi + lo (hi = f - corr rounded, lo its error: |corr| < |f|). hi is
 * split into hh, its first 27 significant bits, and hl = hi - hh, so that
 * hh C_HI, with 1 / ln 2 = C_HI + C_LO and C_HI of 26 bits, is exact; the
 * sum e + hh C_HI is carried with its rounding error (exact: e is 0 or
 * larger than the product), to which the small terms are added, which
 * leaves one rounding of consequence. */

#define INV_LN2_64_HI 0x1.7154768000000p+0
#define INV_LN2_64_LO -0x1.6a3e80f444178p-27

TARGET static inline G_ALWAYS_INLINE VD
V (log2_64) (VD x)
{
  VL sub = x < 0x1p-1022;
  VD ef, f, corr, hi, lo, hh, ph, pl, s;

  corr = V (log64_parts) (V (sel) (sub, x * 0x1p52, x),
                          V (sel) (sub, VDSPLAT (52.0), VDSPLAT (0.0)), &ef, &f);
  hi = f - corr;
  lo = (f - hi) - corr;
  hh = (VD)((VL)hi & (gint64)G_GUINT64_CONSTANT (0xfffffffffc000000));
  ph = hh * INV_LN2_64_HI;
  pl = (hi - hh) * INV_LN2_64_HI + (hi * INV_LN2_64_LO + lo * (INV_LN2_64_HI + INV_LN2_64_LO));
  s = ef + ph;
  return V (log64_special) (x, s + (((ef - s) + ph) + pl));
}

/* ---- log1p --------------------------------------------------------------
 * u = 1 + x rounded and c = x - (u - 1) its rounding error (exact);
 * log1p (x) = log u + c / u, with c / u among the small terms of log u.
 * u >= 2^-53 is normal for every x > -1. x <= -1, inf and NaN are set
 * apart at the end; the sign is x's (log1p (-0) = -0). */

TARGET static inline G_ALWAYS_INLINE VD
V (log1p64) (VD x)
{
  VD u = 1.0 + x, c = x - (u - 1.0), ef, f, corr, y;
  VL special = ~((x > -1.0) & (x < __builtin_inf ()));

  corr = V (log64_parts) (u, VDSPLAT (0.0), &ef, &f);
  y = ef * LN2_64_HI + (f - ((corr - ef * LN2_64_LO) - c / u));
  y = V (sel) (special, V (sel) (x < -1.0, VDSPLAT (__builtin_nan ("")), x), y);
  y = V (sel) (x == -1.0, VDSPLAT (-__builtin_inf ()), y);
  return (VD)(((VL)y & G_GINT64_CONSTANT (0x7fffffffffffffff))
              | ((VL)x & (gint64)G_GUINT64_CONSTANT (0x8000000000000000)));
}

/* ---- expm1 --------------------------------------------------------------
 * As in exp, x = k ln 2 + r (x clamped to [-40, 710]: below -40,
 * e^x - 1 is -1 in float64), r carried as rh + rl (r = x exactly where
 * k = 0), and e^r - 1 = rh + sm with sm = rh^2 Q (rh) + rl (1 + rh) from
 * exp's polynomial. e^x - 1 = 2^k (rh + sm) - (1 - 2^k) for k <= 0
 * (1 - 2^k exact down to k = -53) and (rh + (1 - 2^-k) + sm) 2^k for
 * k > 0 (1 - 2^-k exact to k = 53, 2^-k taken as 2^-60 beyond), the first
 * sum in either carried with its error (Knuth's fast two-sum: the
 * constant is the larger), so that where it cancels (k = +-1) the result
 * keeps one rounding of consequence; scaled as in exp, so that x up to
 * the clamp overflows to inf. The sign is x's (expm1 (-0) = -0). */

TARGET static inline G_ALWAYS_INLINE VD
V (expm1_64) (VD x)
{
  VD xc = V (sel) (x < -40.0, VDSPLAT (-40.0), x);
  VD t, kf, r1, rlo, rh, rl, sm, pk, pinv, c, s, neg, pos, y;
  VL k, big;

  xc = V (sel) (xc > 710.0, VDSPLAT (710.0), xc);
  t = xc * 0x1.71547652b82fep0 + EXP64_SHIFT;
  kf = t - EXP64_SHIFT;
  r1 = xc - kf * LN2_64_HI;
  rlo = kf * -LN2_64_LO;
  rh = r1 + rlo;
  rl = (r1 - rh) + rlo;
  sm = (rh * rh) * V (exp64_q) (rh) + (rl + rl * rh);
  /* k, and 2^k for k <= 0 (>= -58 here) */
  k = (VL)((VU)t - (VU)VDSPLAT (EXP64_SHIFT));
  pk = (VD)(((VU)t + 1023) << 52);
  c = pk - 1.0;
  s = c + pk * rh;
  neg = s + (((c - s) + pk * rh) + pk * sm);
  big = (VL)(k > 60);
  pinv = (VD)((VU)(1023 - ((big & 60) | (~big & k))) << 52);
  c = 1.0 - pinv;
  s = c + rh;
  pos = V (exp64_scale) (s + (((c - s) + rh) + sm), kf);
  y = V (sel) (kf > 0.0, pos, neg);
  return (VD)(((VL)y & G_GINT64_CONSTANT (0x7fffffffffffffff))
              | ((VL)x & (gint64)G_GUINT64_CONSTANT (0x8000000000000000)));
}

/* ---- silu and gelu_tanh ------------------------------------------------
 * x sigmoid (v), v = x for silu and v = x sqrt (8 / pi) (1 + 0.044715 x^2)
 * for gelu_tanh (0.5 x (1 + tanh (u)) = x sigmoid (2 u), without the
 * cancellation where tanh (u) is near -1): with e = e^-|v| and
 * q = e / (1 + e) as in sigmoid, x q for v <= 0 and x - x q otherwise.
 * Below v = -708, where e is subnormal, x e^v = (x e^r) 2^k with one
 * rounding; below -800 it is x * 0 (0 of x's sign, NaN at -inf, as
 * PyTorch's x / (1 + e^-x) gives), and where x is +inf, inf. */

TARGET static inline G_ALWAYS_INLINE VD
V (x_sigmoid64) (VD x, VD v)
{
  VD a = V (abs) (v), kf, p, e, q, xc, y, tail;

  p = V (exp64_reduce) (-V (sel) (a > 800.0, VDSPLAT (800.0), a), &kf);
#if LEVEL == 4
  e = V (exp64_scale) (p, kf);
  tail = V (exp64_scale) (x * p, kf);
#else
  /* k is in [-1155, 0]: p 2^(k + 200) is exact, and the scaling by
   * 2^-200 rounds once (into the subnormals) */
  p = p * (VD)(((VU)(kf + 200.0 + EXP64_SHIFT) + 1023) << 52);
  e = p * 0x1p-200;
  tail = (x * p) * 0x1p-200;
#endif
  /* q = e / (1 + e) rounded, and x times its correction (as in sigmoid)
   * added after x q: one rounding of x q the fewer */
  q = e / (1.0 + e);
  xc = x * (((e - q) - q * V (sel) (e >= 0x1p-60, e, VDSPLAT (0.0))) * (1.0 - q));
  y = V (sel) (v <= 0.0, x * q + xc, (x - x * q) - xc);
  y = V (sel) (v < -708.0, tail, y);
  y = V (sel) (v < -800.0, x * 0.0, y);
  return V (sel) (x == __builtin_inf (), x, y);
}

TARGET static inline G_ALWAYS_INLINE VD
V (silu64) (VD x)
{
  return V (x_sigmoid64) (x, x);
}

TARGET static inline G_ALWAYS_INLINE VD
V (gelu_tanh64) (VD x)
{
  /* 2 sqrt (2 / pi), and that times 0.044715 */
  return V (x_sigmoid64) (x, x * ((x * x) * 0x1.2444f2a4d8b4bp-4 + 0x1.9884533d43651p+0));
}

/* ---- sin, cos and tan ---------------------------------------------------
 * With a = |x| (sin and tan are odd, cos even: the sign of x comes last,
 * so that sin (-0) = -0), k = round (a 2 / pi) and r = a - k pi / 2:
 * sin a = +-sin r or +-cos r and tan a = sin r / cos r or -cos r / sin r
 * by k mod 4. pi / 2 = P1 + P2 + P3, P1 and P2 of 33 and 32 significant
 * bits, so that k P1 and k P2 are exact for k < 2^20 (a <= TRIG64_MAX);
 * a - k P1 is exact, the difference with k P2 is carried with its error
 * (Knuth's two-sum), and r = rh + rl, rl below half an ulp of rh. sin r =
 * r + r^3 S (r^2) and cos r = 1 - r^2 / 2 + r^4 C (r^2), S and C of degree
 * 6 (Chebyshev interpolation on r^2 in [0, 0.62], |r| <= pi / 4 and a
 * little: absolute errors 1.2e-20 and 6.7e-22), with rl's share:
 * sin (rh + rl) ~ sin rh + rl (1 - rh^2 / 2), cos (rh + rl) ~ cos rh - rh rl.
 * Lanes beyond TRIG64_MAX, infinite or NaN take glibc's sin, cos or tan,
 * one by one, after the vector (those lanes compute a = 0 in it). */

#define TRIG64_MAX 0x1p20

TARGET static inline G_ALWAYS_INLINE VD
V (trig64_reduce) (VD a, VD *rl, VL *k)
{
  VD t = a * 0x1.45f306dc9c883p-1 + EXP64_SHIFT;
  VD kf = t - EXP64_SHIFT;
  VD r1 = a - kf * 0x1.921fb54400000p+0;
  VD w = kf * 0x1.0b4611a600000p-34;
  VD rh = r1 - w, bb = rh - r1;
  VD err = (r1 - (rh - bb)) - (w + bb);
  VD l = err - kf * 0x1.3198a2e037073p-69;
  VD y = rh + l;

  *rl = l - (y - rh);
  *k = (VL)t;
  return y;
}

TARGET static inline G_ALWAYS_INLINE VD
V (sin64_r) (VD rh, VD rl, VD z)
{
  VD p = z * -0x1.ab13654fd392ap-41 + 0x1.61217781a8ccdp-33;

  p = p * z - 0x1.ae6454093c147p-26;
  p = p * z + 0x1.71de3a545b148p-19;
  p = p * z - 0x1.a01a01a01990ap-13;
  p = p * z + 0x1.1111111111110p-7;
  p = p * z - 0x1.5555555555555p-3;
  return rh + ((rl - 0.5 * z * rl) + (rh * z) * p);
}

TARGET static inline G_ALWAYS_INLINE VD
V (cos64_r) (VD rh, VD rl, VD z)
{
  VD p = z * 0x1.ab746999271a1p-45 - 0x1.9394b3581cec8p-37;
  VD h = 1.0 - 0.5 * z;

  p = p * z + 0x1.1eed8de759d0dp-29;
  p = p * z - 0x1.27e4fb7710638p-22;
  p = p * z + 0x1.a01a01a019cf6p-16;
  p = p * z - 0x1.6c16c16c16c16p-10;
  p = p * z + 0x1.5555555555555p-5;
  return h + (((1.0 - h) - 0.5 * z) + ((z * z) * p - rh * rl));
}

/* the lanes of x that are beyond TRIG64_MAX or NaN from fn, one by one */
#define TRIG64_SLOW(x, y, fn)                                                                      \
  do                                                                                               \
    {                                                                                              \
      double xs_[W], ys_[W];                                                                       \
      memcpy (xs_, &x, sizeof xs_);                                                                \
      memcpy (ys_, &y, sizeof ys_);                                                                \
      for (gint i_ = 0; i_ < W; i_++)                                                              \
        if (!(fabs (xs_[i_]) <= TRIG64_MAX))                                                       \
          ys_[i_] = fn (xs_[i_]);                                                                  \
      memcpy (&y, ys_, sizeof ys_);                                                                \
    }                                                                                              \
  while (0)

/* glibc's, for the lanes beyond the vector reduction */
static double
V (sin_libm) (double x)
{
  return sin (x);
}

static double
V (cos_libm) (double x)
{
  return cos (x);
}

static double
V (tan_libm) (double x)
{
  return tan (x);
}

/* whether any lane of m is set */
TARGET static inline G_ALWAYS_INLINE gboolean
V (any) (VL m)
{
  gint64 b[W];

  memcpy (b, &m, sizeof b);
  for (gint i = 1; i < W; i++)
    b[0] |= b[i];
  return b[0] != 0;
}

/* sin x (cos x where is_cos, tan x where is_tan; constants) */
TARGET static inline G_ALWAYS_INLINE VD
V (trig64) (VD x, gboolean is_cos, gboolean is_tan)
{
  VD a = V (abs) (x), rh, rl, z, s, c, y;
  VL slow = ~(a <= TRIG64_MAX), k, odd;
  gboolean any = V (any) (slow);

  if (G_UNLIKELY (any))
    a = V (sel) (slow, VDSPLAT (0.0), a);
  rh = V (trig64_reduce) (a, &rl, &k);
  z = rh * rh;
  if (is_cos)
    k = k + 1;
  odd = -(k & 1);
  s = V (sin64_r) (rh, rl, z);
  c = V (cos64_r) (rh, rl, z);
  if (is_tan)
    y = V (sel) (odd, -c, s) / V (sel) (odd, s, c);
  else
    y = (VD)((VL)V (sel) (odd, c, s) ^ (VL)((VU)(k & 2) << 62));
  if (!is_cos)
    y = (VD)((VL)y ^ ((VL)x & (gint64)G_GUINT64_CONSTANT (0x8000000000000000)));
  if (G_UNLIKELY (any))
    {
      double (*slow) (double) = is_tan ? V (tan_libm) : is_cos ? V (cos_libm) : V (sin_libm);

      TRIG64_SLOW (x, y, slow);
    }
  return y;
}

TARGET static inline G_ALWAYS_INLINE VD
V (sin64) (VD x)
{
  return V (trig64) (x, FALSE, FALSE);
}

TARGET static inline G_ALWAYS_INLINE VD
V (cos64) (VD x)
{
  return V (trig64) (x, TRUE, FALSE);
}

TARGET static inline G_ALWAYS_INLINE VD
V (tan64) (VD x)
{
  return V (trig64) (x, FALSE, TRUE);
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
DEFINE_VMATH64_LOOP (expm1_64)
DEFINE_VMATH64_LOOP (log1p64)
DEFINE_VMATH64_LOOP (log2_64)
DEFINE_VMATH64_LOOP (silu64)
DEFINE_VMATH64_LOOP (gelu_tanh64)
DEFINE_VMATH64_LOOP (sin64)
DEFINE_VMATH64_LOOP (cos64)
DEFINE_VMATH64_LOOP (tan64)

static const DlCpuLoop V (vmath64_loops)[DL_N_UNARY_OPS] = {
  [DL_UNARY_EXP] = V (exp64_loop),
  [DL_UNARY_LOG] = V (log64_loop),
  [DL_UNARY_SIGMOID] = V (sigmoid64_loop),
  [DL_UNARY_TANH] = V (tanh64_loop),
  [DL_UNARY_EXPM1] = V (expm1_64_loop),
  [DL_UNARY_LOG1P] = V (log1p64_loop),
  [DL_UNARY_LOG2] = V (log2_64_loop),
  [DL_UNARY_SILU] = V (silu64_loop),
  [DL_UNARY_GELU_TANH] = V (gelu_tanh64_loop),
  [DL_UNARY_SIN] = V (sin64_loop),
  [DL_UNARY_COS] = V (cos64_loop),
  [DL_UNARY_TAN] = V (tan64_loop),
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
#undef TRIG64_SLOW
#undef TRIG64_MAX
#undef INV_LN2_64_HI
#undef INV_LN2_64_LO
