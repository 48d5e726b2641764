/* dl-cpu-vmath-body.h: the float32 vector math of dl-cpu-vmath.c, written
 * once for vectors of W floats and included once per x86-64 level.
 *
 * The including file defines:
 *   LEVEL  1 (SSE2, or GCC's generic vectors elsewhere), 3 (AVX2 and FMA)
 *          or 4 (AVX-512)
 *   W      the lanes: 4, 8 or 16
 *   VF VI  the vector types of W floats and of W int32s
 *   V(n)   n with the level's suffix (n_v4, n_v8, n_v16)
 *   TARGET the level's function attribute
 * and leaves behind V (vmath_loops), the kernels indexed by DlUnaryOp
 * (undefining the parameters).
 *
 * Arithmetic on VF is GCC's, which contracts a * b + c into one fused
 * multiply-add where the level has FMA; every formula below is accurate
 * with or without that contraction (the SSE2 variant has none), except
 * where vfma asks for the fused form.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* ---- primitives -------------------------------------------------------
 * VM is a lane mask: a VI of all-ones / zero lanes, or AVX-512's mask
 * register. VMIN (a, b) and VMAX (a, b) are the x86 ones: b where either
 * is NaN, so VMAX (c, x) and VMIN (c, x) keep a NaN x. VFNMADD (a, b, c)
 * is c - a * b, with one rounding where the level has FMA; VFMSUB, where
 * it has, a * b - c with one rounding. */

#if LEVEL == 4
typedef __mmask16 V (mask);
#define VM V (mask)
#define VCMP(a, b, pred) _mm512_cmp_ps_mask ((a), (b), (pred))
#define VLT(a, b) VCMP (a, b, _CMP_LT_OQ)
#define VLE(a, b) VCMP (a, b, _CMP_LE_OQ)
#define VGE(a, b) VCMP (a, b, _CMP_GE_OQ)
#define VEQ(a, b) VCMP (a, b, _CMP_EQ_OQ)
#define VMIN _mm512_min_ps
#define VMAX _mm512_max_ps
#define VFNMADD _mm512_fnmadd_ps
#define VFMSUB _mm512_fmsub_ps
#else
#define VM VI
#define VLT(a, b) ((VI)((a) < (b)))
#define VLE(a, b) ((VI)((a) <= (b)))
#define VGE(a, b) ((VI)((a) >= (b)))
#define VEQ(a, b) ((VI)((a) == (b)))
#endif

#if LEVEL == 3
#define VMIN _mm256_min_ps
#define VMAX _mm256_max_ps
#define VFNMADD _mm256_fnmadd_ps
#define VFMSUB _mm256_fmsub_ps
#elif LEVEL == 1
#define VFNMADD(a, b, c) ((c) - (a) * (b))
#ifdef __SSE2__
#define VMIN _mm_min_ps
#define VMAX _mm_max_ps
#else
#define VMIN(a, b) V (sel) (VLT (a, b), a, b)
#define VMAX(a, b) V (sel) (VLT (b, a), a, b)
#endif
#endif

/* a where m is set, b elsewhere */
TARGET static inline G_ALWAYS_INLINE VF
V (sel) (VM m, VF a, VF b)
{
#if LEVEL == 4
  return _mm512_mask_blend_ps (m, b, a);
#elif LEVEL == 3
  return _mm256_blendv_ps (b, a, (__m256)m);
#else
  return (VF)((m & (VI)a) | (~m & (VI)b));
#endif
}

/* a where the sign bit of m is set, b elsewhere */
TARGET static inline G_ALWAYS_INLINE VF
V (sel_sign) (VI m, VF a, VF b)
{
#if LEVEL == 4
  return _mm512_mask_blend_ps (_mm512_movepi32_mask ((__m512i)m), b, a);
#elif LEVEL == 3
  return _mm256_blendv_ps (b, a, (__m256)m);
#else
  return V (sel) (m >> 31, a, b);
#endif
}

/* whether every lane of m is set */
TARGET static inline G_ALWAYS_INLINE gboolean
V (all) (VM m)
{
#if LEVEL == 4
  return m == 0xffff;
#elif LEVEL == 3
  return _mm256_movemask_ps ((__m256)m) == 0xff;
#elif defined(__SSE2__)
  return _mm_movemask_ps ((__m128)m) == 0xf;
#else
  return (m[0] & m[1] & m[2] & m[3]) != 0;
#endif
}

/* the low part of a * b, exactly: a * b = hi + vmul_lo (a, b, hi) for
 * hi = a * b rounded (Dekker's product where there is no FMA) */
TARGET static inline G_ALWAYS_INLINE VF
V (mul_lo) (VF a, VF b, VF hi)
{
#ifdef VFMSUB
  return VFMSUB (a, b, hi);
#else
  VF ca = a * 4097.0f, cb = b * 4097.0f;
  VF ah = ca - (ca - a), bh = cb - (cb - b);
  VF al = a - ah, bl = b - bh;

  return ((ah * bh - hi) + ah * bl + al * bh) + al * bl;
#endif
}

#define VSPLAT(c) ((VF){} + (float)(c))

/* a / b within a relative 2^-14 at least, which a Newton step that
 * follows makes exact enough: AVX-512's vrcp14ps; division elsewhere */
TARGET static inline G_ALWAYS_INLINE VF
V (div_approx) (VF a, VF b)
{
#if LEVEL == 4
  return a * _mm512_rcp14_ps (b);
#else
  return a / b;
#endif
}

TARGET static inline G_ALWAYS_INLINE VF
V (abs) (VF x)
{
  return (VF)((VI)x & 0x7fffffff);
}

/* -|x| */
TARGET static inline G_ALWAYS_INLINE VF
V (neg_abs) (VF x)
{
  return (VF)((VI)x | (gint32)0x80000000);
}

/* |mag| with the sign of sgn */
TARGET static inline G_ALWAYS_INLINE VF
V (copysign) (VF mag, VF sgn)
{
  return (VF)(((VI)mag & 0x7fffffff) | ((VI)sgn & (gint32)0x80000000));
}

TARGET static inline G_ALWAYS_INLINE VF
V (load) (const float *p)
{
  VF v;

  memcpy (&v, p, sizeof v);
  return v;
}

TARGET static inline G_ALWAYS_INLINE void
V (store) (float *p, VF v)
{
  memcpy (p, &v, sizeof v);
}

/* n < W floats, the other lanes 1 (in every function's plain range) */
TARGET static inline G_ALWAYS_INLINE VF
V (load_part) (const float *p, gint64 n)
{
#if LEVEL == 4
  return _mm512_mask_loadu_ps (_mm512_set1_ps (1.0f), (__mmask16)((1u << n) - 1), p);
#else
  float b[W];

  for (gint i = 0; i < W; i++)
    b[i] = i < n ? p[i] : 1.0f;
  return V (load) (b);
#endif
}

TARGET static inline G_ALWAYS_INLINE void
V (store_part) (float *p, VF v, gint64 n)
{
#if LEVEL == 4
  _mm512_mask_storeu_ps (p, (__mmask16)((1u << n) - 1), v);
#else
  float b[W];

  V (store) (b, v);
  memcpy (p, b, n * sizeof (float));
#endif
}

/* ---- e^x ----------------------------------------------------------------
 * e^x = 2^k e^r with k = round (x / ln 2) and r = x - k ln 2, ln 2 in two
 * parts, the first with 9 significant bits so that k LN2_HI is exact;
 * |r| <= ln 2 / 2. e^r = 1 + r + r^2 P (r), P of degree 4 (minimax for the
 * relative error, with the coefficients rounded to float32: 2^-28.3). k
 * comes out of t = x / ln 2 + 1.5 * 2^23, which holds it in its low
 * mantissa bits, so that 2^k is t << 23 plus the exponent bias when k is a
 * normal exponent. */

#define EXP_SHIFT 12582912.0f /* 1.5 * 2^23 */
#define EXP_SHIFT_BITS 0x4b400000

/* e^r for x; *t as above, *kf = k */
TARGET static inline G_ALWAYS_INLINE VF
V (exp_reduce) (VF x, VF *t, VF *kf)
{
  VF r, p;

  *t = x * 1.44269504088896341f + EXP_SHIFT;
  *kf = *t - EXP_SHIFT;
  r = x - *kf * 0.693359375f;
  r = r - *kf * -2.12194440e-4f;
  p = r * 1.382128918e-03f + 8.368669078e-03f;
  p = p * r + 4.166825861e-02f;
  p = p * r + 1.666652113e-01f;
  p = p * r + 4.999999404e-01f;
  p = p * r + 1.0f;
  return p * r + 1.0f;
}

/* 2^k for k in [-126, 127] */
TARGET static inline G_ALWAYS_INLINE VF
V (exp_pow2) (VF t)
{
  return (VF)(((VI)t << 23) + 0x3f800000);
}

/* v 2^k for k in [-174, 129] with one rounding (into the subnormals) and
 * overflow to infinity: with vscalefps, or as two normal powers of two */
TARGET static inline G_ALWAYS_INLINE VF
V (exp_scale) (VF v, VF t, VF kf)
{
#if LEVEL == 4
  return _mm512_scalef_ps (v, kf);
#else
  VI k = (VI)t - EXP_SHIFT_BITS;
  VI k1 = k >> 1;

  return v * (VF)((k1 + 127) << 23) * (VF)((k - k1 + 127) << 23);
#endif
}

/* Whether e^x of every lane can take the plain path: |x| <= 87 keeps e^x
 * a normal number. (With AVX-512, vscalefps makes the other path as
 * cheap, and e^x and sigmoid take it always.) */
TARGET static inline G_ALWAYS_INLINE gboolean
V (exp_plain) (VF x)
{
  return V (all) (VLE (V (abs) (x), VSPLAT (87.0f)));
}

/* e^x for |x| <= 87 */
TARGET static inline G_ALWAYS_INLINE VF
V (exp_plain_e) (VF x)
{
  VF t, kf, p = V (exp_reduce) (x, &t, &kf);

  return p * V (exp_pow2) (t);
}

/* e^x for any x (for x <= 0 or NaN only, saving a clamp, when nonpos),
 * and m e^x with one rounding of m e^r before the exact or once-rounded
 * scaling by 2^k when me is not NULL (so that results in the subnormals
 * are as accurate as normal ones). Below x = -120, e^x and m e^x for any
 * |m| < 2^20 are 0 in float32, and m e^x is m * 0 (NaN for an infinite m,
 * as PyTorch's composite formulas give). */
TARGET static inline G_ALWAYS_INLINE VF
V (exp_any_mul) (VF x, VF m, VF *me, gboolean nonpos)
{
  VM under = VLT (x, VSPLAT (-120.0f));
  VF t, kf, p;

  x = VMAX (VSPLAT (-120.0f), x);
  if (!nonpos)
    x = VMIN (VSPLAT (89.0f), x);
  p = V (exp_reduce) (x, &t, &kf);
  if (me)
    *me = V (exp_scale) (V (sel) (under, m * 0.0f, m) * p, t, kf);
  /* (p 2^k underflows to 0 there; scaling 0 instead spares the assist
   * that an underflowing multiplication takes, which vscalefps does not) */
  return V (exp_scale) (LEVEL < 4 ? V (sel) (under, VSPLAT (0.0f), p) : p, t, kf);
}

/* e^x: within 1 ulp (measured: see dl-cpu-vmath.c) */
TARGET static inline G_ALWAYS_INLINE VF
V (exp) (VF x)
{
  if (LEVEL < 4 && V (exp_plain) (x))
    return V (exp_plain_e) (x);
  return V (exp_any_mul) (x, VSPLAT (1.0f), NULL, FALSE);
}

/* ---- the sigmoid family -------------------------------------------------
 * With e = e^-|v| (never overflows), sigmoid (-|v|) = e / (1 + e) and
 * sigmoid (|v|) = 1 / (1 + e). 1 + e rounds; the residual
 * r = e - q (1 + e) of q ~ e / (1 + e) (rounded, or AVX-512's 14-bit
 * approximation), which FMAs give exactly (e - q is exact), corrects it:
 * e / (1 + e) = q + r / (1 + e), with 1 / (1 + e) ~ 1 - q.
 *   x sigmoid (v) = x e / (1 + e) for v < 0, x / (1 + e) otherwise,
 * is silu for v = x and gelu_tanh for v = x sqrt (8 / pi) (1 + 0.044715 x^2)
 * (0.5 x (1 + tanh (u)) = x sigmoid (2 u), without the cancellation where
 * tanh (u) is near -1).
 *
 * Where e^-|v| or the result falls into the subnormals, the lanes take
 * m e^-|v| from the exponential, with one rounding; the others compute as
 * on the plain path, so that a lane's result does not depend on its
 * neighbours. */

/* e / (1 + e), and 1 / (1 + e) in *one_over, for e in [0, 1] */
TARGET static inline G_ALWAYS_INLINE VF
V (sigmoid_parts) (VF e, VF *one_over)
{
  VF q = V (div_approx) (e, 1.0f + e);
  /* q e is below the correction's reach for e < 2^-30, and subnormal
   * further down, which costs a microcode assist per operation: 0 */
  VF r = (e - q) - q * V (sel) (VGE (e, VSPLAT (0x1p-30f)), e, VSPLAT (0.0f));

  q = q + r * (1.0f - q);
  if (one_over)
    *one_over = 1.0f - q;
  return q;
}

/* *e = e^a for a <= 0; TRUE where every lane takes the plain path. When
 * not, the lanes below -87 (*tail) hold 1 in *e, so that formulas of e^a
 * computed there do not take the slow subnormal arithmetic (a microcode
 * assist per operation), and e^a in *e_tail and m e^a (one rounding) in
 * *me when me is not NULL, for the caller to put in. */
TARGET static inline G_ALWAYS_INLINE gboolean
V (exp_nonpos) (VF a, VF m, VF *e, VF *me, VF *e_tail, VM *tail)
{
  if (V (exp_plain) (a))
    {
      *e = V (exp_plain_e) (a);
      return TRUE;
    }
  *e_tail = V (exp_any_mul) (a, m, me, TRUE);
  *tail = VLT (a, VSPLAT (-87.0f));
  *e = V (sel) (*tail, VSPLAT (1.0f), *e_tail);
  return FALSE;
}

TARGET static inline G_ALWAYS_INLINE VF
V (sigmoid) (VF x)
{
  VF e, e_tail = { 0 }, one_over, q, y, one = VSPLAT (1.0f);
  VM neg = VLT (x, VSPLAT (0.0f)), tail = { 0 };
  gboolean plain = V (exp_nonpos) (V (neg_abs) (x), one, &e, NULL, &e_tail, &tail);

  q = V (sigmoid_parts) (e, &one_over);
  y = V (sel) (neg, q, one_over);
  return plain ? y : V (sel) (tail, V (sel) (neg, e_tail, one), y);
}

/* x sigmoid (v): with q = sigmoid (-|v|), x q for v <= 0 and x - x q (one
 * rounding) otherwise; beyond |v| = 87, x e^v and x */
TARGET static inline G_ALWAYS_INLINE VF
V (x_sigmoid) (VF x, VF v)
{
  VF e, e_tail, xe = { 0 }, q, y;
  VM neg = VLE (v, VSPLAT (0.0f)), tail = { 0 };
  gboolean plain = V (exp_nonpos) (V (neg_abs) (v), x, &e, &xe, &e_tail, &tail);

  q = V (sigmoid_parts) (e, NULL);
  y = V (sel) (neg, x * q, VFNMADD (x, q, x));
  return plain ? y : V (sel) (tail, V (sel) (neg, xe, x), y);
}

TARGET static inline G_ALWAYS_INLINE VF
V (silu) (VF x)
{
  return V (x_sigmoid) (x, x);
}

TARGET static inline G_ALWAYS_INLINE VF
V (gelu_tanh) (VF x)
{
  /* 2 sqrt (2 / pi) and that times 0.044715 */
  return V (x_sigmoid) (x, x * ((x * x) * 0.0713548162726f + 1.59576912160573f));
}

/* ---- tanh ---------------------------------------------------------------
 * For a = |x| < 0.75: a + a^3 P (a^2), P of degree 5 (minimax for the
 * relative error: 2^-29); above: 1 - 2 sigmoid (-2a), with a capped at 10,
 * where tanh is 1 in float32. Both are computed; the sign comes last. */

TARGET static inline G_ALWAYS_INLINE VF
V (tanh) (VF x)
{
  VF a = V (abs) (x), z = a * a;
  VF p = z * 1.741756685e-03f - 7.665812504e-03f;
  VF small, t, kf, e, large;

  p = p * z + 2.145779319e-02f;
  p = p * z - 5.389453471e-02f;
  p = p * z + 1.333272010e-01f;
  p = p * z - 3.333331645e-01f;
  small = (a * z) * p + a;
  e = V (exp_reduce) (VMIN (VSPLAT (10.0f), a) * -2.0f, &t, &kf) * V (exp_pow2) (t);
  large = 1.0f - 2.0f * V (sigmoid_parts) (e, NULL);
  return V (copysign) (V (sel) (VLT (a, VSPLAT (0.75f)), small, large), x);
}

/* ---- erf and gelu -------------------------------------------------------
 * For a >= 0, Phi (-a) = erfc (a / sqrt 2) / 2 = e^(-a^2 / 2) G (a), where
 * G falls from 1/2 to 0 like 1 / (a sqrt (2 pi)): G = P / Q with P of
 * degree 5 and Q of degree 6 (a rational minimax fit over [0, 16], the
 * coefficients rounded to float32 one by one: relative error 2^-27.6).
 * a^2 is carried as hi + lo, so that the exponential is accurate where
 * a^2 is large, as e^-hi (1 - lo). */

TARGET static inline G_ALWAYS_INLINE VF
V (phi_ratio) (VF a)
{
  VF p = a * 8.842044626e-04f + 1.168792881e-02f;
  VF q = a * 2.216372639e-03f + 2.929721028e-02f;

  p = p * a + 7.176497579e-02f;
  p = p * a + 2.521350682e-01f;
  p = p * a + 5.099120736e-01f;
  p = p * a + 0.5f;
  q = q * a + 1.821078211e-01f;
  q = q * a + 6.612341404e-01f;
  q = q * a + 1.454591632e+00f;
  q = q * a + 1.817708731e+00f;
  q = q * a + 1.0f;
  return p / q;
}

/* For a = |x| < 0.875: x + x E (x^2), E of degree 5 (minimax for the
 * relative error of erf, with float32 coefficients: 2^-26; x + x E keeps
 * the rounding of 2 / sqrt (pi) out); above: 1 - erfc (a), erfc (a) =
 * 2 Phi (-a sqrt 2), with a capped at 4, where erf is 1 in float32; the
 * sign last. */
TARGET static inline G_ALWAYS_INLINE VF
V (erf) (VF x)
{
  VF a = V (abs) (x), z = x * x;
  VF p = z * -6.040721200e-04f + 5.002323072e-03f;
  VF small, ac, hi, lo, t, kf, large;

  p = p * z - 2.677242830e-02f;
  p = p * z + 1.128196493e-01f;
  p = p * z - 3.761250675e-01f;
  p = p * z + 1.283791512e-01f;
  small = x * p + x;
  ac = VMIN (VSPLAT (4.0f), a);
  hi = ac * ac;
  lo = V (mul_lo) (ac, ac, hi);
  large = 2.0f * V (phi_ratio) (ac * 1.41421356237309505f);
  large = 1.0f - V (exp_reduce) (-hi, &t, &kf) * V (exp_pow2) (t) * (large - large * lo);
  return V (sel) (VLT (a, VSPLAT (0.875f)), small, V (copysign) (large, x));
}

/* gelu (x) = x Phi (x): t = x Phi (-|x|) = x e^(-x^2 / 2) G (|x|), and
 * gelu (x) = t for x <= 0, x - t otherwise (m e^(-x^2 / 2) in one
 * rounding where that is subnormal, as in x_sigmoid). x is capped at +-16 inside,
 * beyond which t is x * 0: 0, or NaN at -inf as in PyTorch (x Phi (x) with
 * Phi (-inf) = 0); +inf keeps a finite factor, and gelu (inf) = inf - 0. */
TARGET static inline G_ALWAYS_INLINE VF
V (gelu) (VF x)
{
  VF xc = VMIN (VSPLAT (16.0f), VMAX (VSPLAT (-16.0f), x));
  VF hi = xc * xc, lo = V (mul_lo) (xc, xc, hi);
  VF g = V (phi_ratio) (V (abs) (xc)), m, e, t, me = { 0 }, e_tail;
  VM tail = { 0 };
  gboolean plain;

  m = VMIN (VSPLAT (16.0f), x) * (g - g * (0.5f * lo));
  plain = V (exp_nonpos) (hi * -0.5f, m, &e, &me, &e_tail, &tail);
  t = plain ? m * e : V (sel) (tail, me, m * e);
  return V (sel) (VLE (x, VSPLAT (0.0f)), t, x - t);
}

/* ---- sin, cos and tan ---------------------------------------------------
 * With a = |x| (sin and tan are odd, cos even: the sign of x comes last,
 * so that sin (-0) = -0), k = round (a 2 / pi) and r = a - k pi / 2:
 * sin a = +-sin r or +-cos r and tan a = tan r or -1 / tan r by k mod 4.
 * r is carried as rh + rl in float32, rl below half an ulp of rh.
 *
 * The fast reduction holds for a <= TRIG_MAX = 2^17 (k < 83444), where
 * the float32 nearest to a multiple of pi / 2 is 8.4e-9 off it (2^-26.8):
 * - with FMA (AVX2, AVX-512): k from the float32 product, as in exp; pi / 2
 *   in three float32 parts P1 + P2 + P3 (24 bits each, 2^-76 short);
 *   a - k P1 is exact (a and k P1 are multiples of 2^-24, and their
 *   difference is below 1), k P2 is split exactly into ch + cl by a fused
 *   multiply-subtract, the sum (a - k P1) - ch exactly into rh + err by
 *   Knuth's two-sum, and rl = err - cl - k P3: rh + rl is within 2e-17 of
 *   r (the roundings of k P3 and of rl), a relative 2^-28.6 where r is
 *   least.
 * - SSE2, without FMA: r in float64, pi / 2 in two parts, the first with
 *   33 significant bits so that a - k PIO2_HI is exact for k < 2^20, and
 *   rh + rl from the float64 r (within 2^-50 of r).
 * k is rounded from a product off by less than 0.005 (FMA) or 0.008, so
 * that |r| <= 0.8, the range of the polynomials below (minimax for the
 * relative error, float32 coefficients rounded one by one): sin r =
 * r + r^3 S (r^2), S of degree 2 (2^-27.7); cos r = 1 - r^2 / 2 +
 * r^4 C (r^2), C of degree 2 (2^-32.6); tan r = r + r^3 T (r^2), T of
 * degree 6 (2^-29). Lanes beyond TRIG_MAX, infinite or NaN take glibc's
 * sinf, cosf or tanf, one by one; the others compute as on the plain path
 * (where these lanes compute a = 0). */

#define TRIG_MAX 131072.0f

#ifdef VFMSUB
/* rh + rl = a - k pi / 2 for 0 <= a <= TRIG_MAX, and k in *k */
TARGET static inline G_ALWAYS_INLINE VF
V (trig_reduce) (VF a, VF *rl, VI *k)
{
  VF t = a * 0.636619772367581343f + EXP_SHIFT;
  VF kf = t - EXP_SHIFT;
  VF r1 = VFNMADD (kf, VSPLAT (0x1.921fb6p+0f), a);
  VF ch = kf * -0x1.777a5cp-25f;
  VF cl = VFMSUB (kf, VSPLAT (-0x1.777a5cp-25f), ch) + kf * -0x1.ee59dap-50f;
  VF rh = r1 - ch, bb = rh - r1;

  *rl = ((r1 - (rh - bb)) - (ch + bb)) - cl;
  *k = (VI)t - EXP_SHIFT_BITS;
  return rh;
}
#else
typedef gint64 V (vl) __attribute__ ((vector_size (W * sizeof (gint64))));

TARGET static inline G_ALWAYS_INLINE VF
V (trig_reduce) (VF a, VF *rl, VI *k)
{
  VD ad = __builtin_convertvector(a, VD);
  VD td = ad * 0.636619772367581343 + 0x1.8p52;
  VD kd = td - 0x1.8p52;
  VD rd = (ad - kd * 0x1.921fb544p+0) - kd * 0x1.0b4611a626331p-34;
  VF rh = __builtin_convertvector(rd, VF);

  *rl = __builtin_convertvector(rd - __builtin_convertvector(rh, VD), VF);
  /* k from the low bits of td's mantissa */
  *k = __builtin_convertvector((V (vl))td, VI);
  return rh;
}
#endif

/* sin (rh + rl), z = rh^2 */
TARGET static inline G_ALWAYS_INLINE VF
V (sin_r) (VF rh, VF rl, VF z)
{
  VF p = z * -1.950554142e-04f + 8.332095109e-03f;

  p = p * z - 1.666665375e-01f;
  return rh + (rl + (rh * z) * p);
}

/* cos (rh + rl), z = rh^2: 1 - z / 2 with its rounding error, and
 * cos (rh + rl) ~ cos rh - rh rl */
TARGET static inline G_ALWAYS_INLINE VF
V (cos_r) (VF rh, VF rl, VF z)
{
  VF p = z * 2.441208017e-05f - 1.388713019e-03f;
  VF h = VFNMADD (VSPLAT (0.5f), z, VSPLAT (1.0f));

  p = p * z + 4.166664183e-02f;
  return h + (VFNMADD (VSPLAT (0.5f), z, 1.0f - h) + ((z * z) * p - rh * rl));
}

/* the lanes of x that are beyond TRIG_MAX or NaN from fn, one by one */
#define TRIG_SLOW(x, y, fn)                                                                        \
  do                                                                                               \
    {                                                                                              \
      float xs_[W], ys_[W];                                                                        \
      V (store) (xs_, x);                                                                          \
      V (store) (ys_, y);                                                                          \
      for (gint i_ = 0; i_ < W; i_++)                                                              \
        if (!(fabsf (xs_[i_]) <= TRIG_MAX))                                                        \
          ys_[i_] = fn (xs_[i_]);                                                                  \
      y = V (load) (ys_);                                                                          \
    }                                                                                              \
  while (0)

/* sin x (cos: cos x); is_cos is a constant */
TARGET static inline G_ALWAYS_INLINE VF
V (sin_cos) (VF x, gboolean is_cos)
{
  VF a = V (abs) (x), rh, rl, z, y;
  VM plain = VLE (a, VSPLAT (TRIG_MAX));
  gboolean all = V (all) (plain);
  VI k, sign;

  if (G_UNLIKELY (!all))
    a = V (sel) (plain, a, VSPLAT (0.0f));
  rh = V (trig_reduce) (a, &rl, &k);
  z = rh * rh;
  if (is_cos)
    k = k + 1;
  y = V (sel_sign) (k << 31, V (cos_r) (rh, rl, z), V (sin_r) (rh, rl, z));
  /* -sin and -cos for k mod 4 = 2, 3; sin is odd */
  sign = (k & 2) << 30;
  if (!is_cos)
    sign ^= (VI)x & (gint32)0x80000000;
  y = (VF)((VI)y ^ sign);
  if (G_UNLIKELY (!all))
    {
      if (is_cos)
        TRIG_SLOW (x, y, cosf);
      else
        TRIG_SLOW (x, y, sinf);
    }
  return y;
}

TARGET static inline G_ALWAYS_INLINE VF
V (sin) (VF x)
{
  return V (sin_cos) (x, FALSE);
}

TARGET static inline G_ALWAYS_INLINE VF
V (cos) (VF x)
{
  return V (sin_cos) (x, TRUE);
}

/* tan r as th + tl (th rounded), and for odd k -1 / (th + tl): the
 * reciprocal g of th corrected by its exact residual 1 - th g and tl */
TARGET static inline G_ALWAYS_INLINE VF
V (tan) (VF x)
{
  VF a = V (abs) (x), rh, rl, z, p, tail, th, tl, g, e, y;
  VM plain = VLE (a, VSPLAT (TRIG_MAX));
  gboolean all = V (all) (plain);
  VI k;

  if (G_UNLIKELY (!all))
    a = V (sel) (plain, a, VSPLAT (0.0f));
  rh = V (trig_reduce) (a, &rl, &k);
  z = rh * rh;
  p = z * 4.579898901e-03f - 3.183431108e-04f;
  p = p * z + 1.115292218e-02f;
  p = p * z + 2.116200887e-02f;
  p = p * z + 5.408267677e-02f;
  p = p * z + 1.333246827e-01f;
  p = p * z + 3.333335519e-01f;
  /* tan (rh + rl) ~ tan rh + rl (1 + rh^2) */
  tail = (rh * z) * p + (rl + rl * z);
  th = rh + tail;
  tl = tail - (th - rh);
  g = 1.0f / th;
#ifdef VFMSUB
  e = VFNMADD (th, g, VSPLAT (1.0f));
#else
  {
    VF q = th * g;

    e = (1.0f - q) - V (mul_lo) (th, g, q);
  }
#endif
  e = e - tl * g;
  g = -(g + g * e);
  y = V (sel_sign) (k << 31, g, th);
  y = (VF)((VI)y ^ ((VI)x & (gint32)0x80000000));
  if (G_UNLIKELY (!all))
    TRIG_SLOW (x, y, tanf);
  return y;
}

/* ---- expm1 --------------------------------------------------------------
 * For |x| <= 0.5, e^x - 1 = u = x + x^2 E (x), E of degree 5 (minimax for
 * the relative error, float32 coefficients: 2^-27.7). Above, as in exp:
 * k = round (x / ln 2), r = x - k ln 2 (|r| <= 0.35), u = e^r - 1 by the
 * same polynomial, and e^x - 1 = 2^k u - (1 - 2^k) for k < 0 (1 - 2^k
 * exact down to k = -24; x is capped at -25, where e^x - 1 is -1 in
 * float32), (u + (1 - 2^-k)) 2^k for k > 0 (1 - 2^-k exact to k = 24, and
 * within 2^-25 of 1 above), with 2^k as 2^(k - 2) 4 so that x up to the
 * cap of 89 overflows to infinity. No cancellation: where k = 1, u >= -0.18
 * beside 0.5, and where k = -1, 2^k u is below half of the result. The
 * sign is x's (e^x - 1 is as x, and expm1 (-0) = -0). */

TARGET static inline G_ALWAYS_INLINE VF
V (expm1) (VF x)
{
  VF xc = VMIN (VSPLAT (89.0f), VMAX (VSPLAT (-25.0f), x));
  VF xk = V (sel) (VLE (V (abs) (xc), VSPLAT (0.5f)), VSPLAT (0.0f), xc);
  VF t = xk * 1.44269504088896341f + EXP_SHIFT;
  VF kf = t - EXP_SHIFT, r, p, u, pk, pinv, neg, pos;
  VI k = (VI)t - EXP_SHIFT_BITS;
  VI big = (VI)(k > 24);

  r = xc - kf * 0.693359375f;
  r = r - kf * -2.12194440e-4f;
  p = r * 2.008644951e-04f + 1.401102985e-03f;
  p = p * r + 8.332852274e-03f;
  p = p * r + 4.166495427e-02f;
  p = p * r + 1.666666865e-01f;
  p = p * r + 5.000000596e-01f;
  u = (r * r) * p + r;
  /* k <= 0: 2^k; k > 0: 2^(k - 2), and 2^-k (2^-25 beyond k = 24) */
  pk = (VF)((k + 127) << 23);
  neg = u * pk - (1.0f - pk);
  pinv = (VF)((127 - ((k & ~big) | (25 & big))) << 23);
  pos = (u + (1.0f - pinv)) * (VF)((k + 125) << 23) * 4.0f;
  return V (copysign) (V (sel) (VLT (VSPLAT (0.0f), kf), pos, neg), x);
}

/* ---- log ----------------------------------------------------------------
 * x = 2^e m with m in [sqrt (1/2), sqrt (2)), found in the bits;
 * log x = e ln 2 + log1p (f) with f = m - 1 (exact), and
 * log1p (f) = f + f^2 P (f), P of degree 7 (minimax for the relative error
 * of log1p, with float32 coefficients: 2^-25). Subnormals are scaled by 2^23 first; zero, negative,
 * infinite and NaN lanes are set apart at the end. */

/* ---- log1p and log2 -----------------------------------------------------
 * log1p: u = 1 + x rounded, c = x - (u - 1) its rounding error (exact),
 * and log1p (x) = log u + c / u, with log u as in log and c / u
 * added in the small terms; u >= 2^-24 is normal for every x > -1. x <= -1,
 * inf and NaN on a side path; the sign is x's (log1p (-0) = -0).
 *
 * log2: e + log1p (f) / ln 2 from the same polynomial, f / ln 2 as an
 * exact product with 1 / ln 2 in two parts, and e + f / ln 2 with its
 * rounding error, which leaves one rounding of consequence. */

/* the exponent and f = m - 1 of x = 2^e m, m in [sqrt (1/2), sqrt (2)),
 * e - ebias as a float, and log1p (f) - f - f^2 / 2... as f^2 P (f) */
TARGET static inline G_ALWAYS_INLINE VF
V (log_parts) (VF x, VF ebias, VF *ef, VF *tail)
{
  /* without the sign bit: negative lanes are set apart at the end, and
   * the integer arithmetic stays in range (no signed overflow) */
  VI ix = (VI)x & 0x7fffffff;
  VI e = (ix - 0x3f3504f3) >> 23;
  VF f = (VF)(ix - e * (1 << 23)) - 1.0f;
  VF p = f * 8.738756180e-02f - 1.430770755e-01f;

  *ef = __builtin_convertvector(e, VF) - ebias;
  p = p * f + 1.491635889e-01f;
  p = p * f - 1.657031476e-01f;
  p = p * f + 1.996223927e-01f;
  p = p * f - 2.500177622e-01f;
  p = p * f + 3.333394527e-01f;
  p = p * f - 4.999999106e-01f;
  *tail = (f * f) * p;
  return f;
}

/* log x of a normal x > 0 (ebias: the bias of subnormals scaled by 2^23) */
TARGET static inline G_ALWAYS_INLINE VF
V (log_normal) (VF x, VF ebias)
{
  VF ef, tail, f = V (log_parts) (x, ebias, &ef, &tail);

  return ((tail + ef * -2.12194440e-4f) + f) + ef * 0.693359375f;
}

TARGET static inline G_ALWAYS_INLINE VF
V (log1p) (VF x)
{
  VF u = 1.0f + x, c = x - (u - 1.0f), ef, tail, f, y;

  f = V (log_parts) (u, VSPLAT (0.0f), &ef, &tail);
  y = (tail + (ef * -2.12194440e-4f + c / u) + f) + ef * 0.693359375f;
  if (G_UNLIKELY (!V (all) (VLT (VSPLAT (-1.0f), x) & VLE (x, VSPLAT (FLT_MAX)))))
    {
      y = V (sel) (VEQ (x, VSPLAT (-1.0f)), VSPLAT (-INFINITY), y);
      y = V (sel) (VEQ (x, VSPLAT (INFINITY)), x, y);
      y = V (sel) (VGE (x, VSPLAT (-1.0f)), y, VSPLAT (NAN));
    }
  return V (copysign) (y, x);
}

TARGET static inline G_ALWAYS_INLINE VF
V (log2_normal) (VF x, VF ebias)
{
  VF ef, tail, f = V (log_parts) (x, ebias, &ef, &tail);
  VF ph = f * 1.44269502162933350f;
  VF pl = V (mul_lo) (f, VSPLAT (1.44269502162933350f), ph) + f * 1.9259629911266175e-08f;
  VF s = ef + ph;

  return s + (((ef - s) + ph) + (tail * 1.44269504088896341f + pl));
}

/* ln x (base2 FALSE) or log2 x (TRUE) over every float: normal inputs by
 * the polynomial, subnormals scaled by 2^23 first, then 0, inf and
 * negatives (NaN stays NaN) */
TARGET static inline G_ALWAYS_INLINE VF
V (log_any) (VF x, gboolean base2)
{
  VF y, xs, e0 = VSPLAT (0.0f);
  VM tiny;

  if (V (all) (VGE (x, VSPLAT (0x1p-126f)) & VLE (x, VSPLAT (FLT_MAX))))
    return base2 ? V (log2_normal) (x, e0) : V (log_normal) (x, e0);
  tiny = VLT (x, VSPLAT (0x1p-126f));
  xs = V (sel) (tiny, x * 0x1p23f, x);
  e0 = V (sel) (tiny, VSPLAT (23.0f), e0);
  y = base2 ? V (log2_normal) (xs, e0) : V (log_normal) (xs, e0);
  y = V (sel) (VEQ (x, VSPLAT (0.0f)), VSPLAT (-INFINITY), y);
  y = V (sel) (VEQ (x, VSPLAT (INFINITY)), x, y);
  return V (sel) (VGE (x, VSPLAT (0.0f)), y, VSPLAT (NAN));
}

TARGET static inline G_ALWAYS_INLINE VF
V (log) (VF x)
{
  return V (log_any) (x, FALSE);
}

TARGET static inline G_ALWAYS_INLINE VF
V (log2) (VF x)
{
  return V (log_any) (x, TRUE);
}

/* ---- the loops ----------------------------------------------------------
 * A run of n floats at unit stride, by whole vectors and a part; strided
 * runs go through a buffer on the stack, a block at a time. */

#define VMATH_BLOCK 256

#define DEFINE_VMATH_LOOP(fn)                                                                      \
  TARGET static void V (fn##_run) (float *y, const float *x, gint64 n)                             \
  {                                                                                                \
    gint64 i = MIN (dl_cpu_line_head (y, sizeof (float)) % W, n);                                  \
    /* a part up to y's next vector boundary first, which no vector then   \
     * crosses a cache line from (see dl_cpu_line_head) */                                         \
    if (i > 0)                                                                                     \
      V (store_part) (y, V (fn) (V (load_part) (x, i)), i);                                        \
    for (; i + W <= n; i += W)                                                                     \
      V (store) (y + i, V (fn) (V (load) (x + i)));                                                \
    if (i < n)                                                                                     \
      V (store_part) (y + i, V (fn) (V (load_part) (x + i, n - i)), n - i);                        \
  }                                                                                                \
  TARGET static void V (fn##_loop) (char **data, const gint64 *s, gint64 n, gpointer ctx)          \
  {                                                                                                \
    float buf[VMATH_BLOCK];                                                                        \
    if (s[0] == sizeof (float) && s[1] == sizeof (float))                                          \
      {                                                                                            \
        V (fn##_run) ((float *)data[0], (const float *)data[1], n);                                \
        return;                                                                                    \
      }                                                                                            \
    for (gint64 i = 0; i < n; i += VMATH_BLOCK)                                                    \
      {                                                                                            \
        gint64 m = MIN (n - i, VMATH_BLOCK);                                                       \
        for (gint64 j = 0; j < m; j++)                                                             \
          buf[j] = *(const float *)(data[1] + (i + j) * s[1]);                                     \
        V (fn##_run) (buf, buf, m);                                                                \
        for (gint64 j = 0; j < m; j++)                                                             \
          *(float *)(data[0] + (i + j) * s[0]) = buf[j];                                           \
      }                                                                                            \
  }

DEFINE_VMATH_LOOP (exp)
DEFINE_VMATH_LOOP (log)
DEFINE_VMATH_LOOP (tanh)
DEFINE_VMATH_LOOP (sigmoid)
DEFINE_VMATH_LOOP (silu)
DEFINE_VMATH_LOOP (gelu)
DEFINE_VMATH_LOOP (gelu_tanh)
DEFINE_VMATH_LOOP (erf)
DEFINE_VMATH_LOOP (sin)
DEFINE_VMATH_LOOP (cos)
DEFINE_VMATH_LOOP (tan)
DEFINE_VMATH_LOOP (expm1)
DEFINE_VMATH_LOOP (log1p)
DEFINE_VMATH_LOOP (log2)

static const DlCpuLoop V (vmath_loops)[DL_N_UNARY_OPS] = {
  [DL_UNARY_EXP] = V (exp_loop),
  [DL_UNARY_LOG] = V (log_loop),
  [DL_UNARY_TANH] = V (tanh_loop),
  [DL_UNARY_SIGMOID] = V (sigmoid_loop),
  [DL_UNARY_SILU] = V (silu_loop),
  [DL_UNARY_GELU] = V (gelu_loop),
  [DL_UNARY_GELU_TANH] = V (gelu_tanh_loop),
  [DL_UNARY_ERF] = V (erf_loop),
  [DL_UNARY_SIN] = V (sin_loop),
  [DL_UNARY_COS] = V (cos_loop),
  [DL_UNARY_TAN] = V (tan_loop),
  [DL_UNARY_EXPM1] = V (expm1_loop),
  [DL_UNARY_LOG1P] = V (log1p_loop),
  [DL_UNARY_LOG2] = V (log2_loop),
};

#undef LEVEL
#undef W
#undef VF
#undef VI
#undef VD
#undef V
#undef TARGET
#undef VM
#undef VMIN
#undef VMAX
#undef VFNMADD
#undef VFMSUB
#undef VCMP
#undef VLT
#undef VLE
#undef VGE
#undef VEQ
#undef VSPLAT
#undef DEFINE_VMATH_LOOP
#undef TRIG_SLOW
