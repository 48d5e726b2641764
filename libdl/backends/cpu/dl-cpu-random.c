/* dl-cpu-random.c: the CPU's random numbers.
 *
 * A draw from a CPU generator (DlRandomDraw.mt) takes its numbers from the
 * generator's Mersenne Twister (dl-mt19937.h) one element after the
 * other, with PyTorch's CPU transforms, so that a seed gives PyTorch's
 * tensors: uniform, normal (16 at a time over a whole contiguous tensor,
 * as PyTorch's normal_fill), bernoulli, exponential, cauchy, log-normal,
 * geometric, integers, permutations, multinomial, dropout, and the
 * per-element samplers of _standard_gamma, poisson and binomial (PyTorch's
 * sample_gamma, sample_poisson and sample_binomial, on its float64
 * uniforms and cached normals).
 *
 * A draw from a counter-based stream (seed, offset) takes element i's bits
 * and transforms from dl-philox.h, which the CUDA module runs too; this
 * file runs them over the elements with OpenMP.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"
#include "../dl-mt19937.h"

/* the words the bulk draws take from the stream at a time */
#define DL_MT_CHUNK 1024

static void
store_value (void *data, gint64 i, DlDType dtype, double v)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        ((float *)data)[i] = (float)v;
        break;
      case DL_DTYPE_FLOAT64:
        ((double *)data)[i] = v;
        break;
      case DL_DTYPE_FLOAT16:
        ((dl_half *)data)[i] = (dl_half)v;
        break;
      case DL_DTYPE_BFLOAT16:
        ((dl_bf16 *)data)[i] = dl_float_to_bf16 ((float)v);
        break;
      default:
        g_return_if_reached ();
    }
}

G_STATIC_ASSERT ((int)DL_RANDOM_UNIFORM == (int)DL_PHILOX_UNIFORM);
G_STATIC_ASSERT ((int)DL_RANDOM_NORMAL == (int)DL_PHILOX_NORMAL);
G_STATIC_ASSERT ((int)DL_RANDOM_BERNOULLI == (int)DL_PHILOX_BERNOULLI);
G_STATIC_ASSERT ((int)DL_RANDOM_EXPONENTIAL == (int)DL_PHILOX_EXPONENTIAL);
G_STATIC_ASSERT ((int)DL_RANDOM_CAUCHY == (int)DL_PHILOX_CAUCHY);
G_STATIC_ASSERT ((int)DL_RANDOM_LOG_NORMAL == (int)DL_PHILOX_LOG_NORMAL);
G_STATIC_ASSERT ((int)DL_RANDOM_GEOMETRIC == (int)DL_PHILOX_GEOMETRIC);
G_STATIC_ASSERT ((int)DL_RANDOM_PARAMS_GAMMA == DL_PHILOX_PARAMS_GAMMA);
G_STATIC_ASSERT ((int)DL_RANDOM_PARAMS_POISSON == DL_PHILOX_PARAMS_POISSON);
G_STATIC_ASSERT ((int)DL_RANDOM_PARAMS_BINOMIAL == DL_PHILOX_PARAMS_BINOMIAL);
G_STATIC_ASSERT (DL_KERNEL_BAD_WEIGHT == DL_PHILOX_ROW_BAD_WEIGHT);
G_STATIC_ASSERT (DL_KERNEL_ZERO_SUM == DL_PHILOX_ROW_ZERO_SUM);

/* PyTorch's normal_fill_16: data[0 .. 16) hold uniforms; pairs (j, j + 8)
 * become two normals by Box-Muller, in the element type's precision */
#define DL_DEFINE_NORMAL16(T, suffix, LOG, SQRT, COS, SIN)                                         \
  static void normal16_##suffix (T *data, T mean, T std)                                           \
  {                                                                                                \
    for (gint j = 0; j < 8; j++)                                                                   \
      {                                                                                            \
        const T u1 = (T)1 - data[j];                                                               \
        const T u2 = data[j + 8];                                                                  \
        const T radius = SQRT ((T)-2 * LOG (u1));                                                  \
        const T theta = (T)(DL_MT_2PI * (double)u2);                                               \
        data[j] = radius * COS (theta) * std + mean;                                               \
        data[j + 8] = radius * SIN (theta) * std + mean;                                           \
      }                                                                                            \
  }

DL_DEFINE_NORMAL16 (float, f32_libc, logf, sqrtf, cosf, sinf)
DL_DEFINE_NORMAL16 (double, f64, log, sqrt, cos, sin)

#ifdef DL_CPU_ISA_LEVELS
#include <immintrin.h>

/* PyTorch's AVX2 and AVX-512 kernels transform float32 blocks of 16 with
 * Cephes' single-precision log and sincos polynomials (Pommier's
 * avx_mathfun) rather than the C library's, compiled with FMA: the
 * products that GCC fuses there are the _mm256_fmadd_ps below, every
 * other operation is rounded on its own (fp-contract off), so these give
 * PyTorch's numbers on the CPUs where it runs those kernels. */
#define DL_V3_EXACT DL_CPU_TARGET_V3 __attribute__ ((optimize ("fp-contract=off")))

DL_V3_EXACT static inline __m256
cephes_log8 (__m256 x)
{
  static const float p[9] = { 7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                              -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                              2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f };
  const __m256 one = _mm256_set1_ps (1.0f);
  const __m256 invalid = _mm256_cmp_ps (x, _mm256_setzero_ps (), _CMP_LE_OS);
  __m256i k;
  __m256 e, mask, tmp, z, y;

  /* x = m 2^k with m in [0.5, 1): e = k + 1 - 1 */
  x = _mm256_max_ps (x, _mm256_castsi256_ps (_mm256_set1_epi32 (0x00800000)));
  k = _mm256_srli_epi32 (_mm256_castps_si256 (x), 23);
  x = _mm256_and_ps (x, _mm256_castsi256_ps (_mm256_set1_epi32 (~0x7f800000)));
  x = _mm256_or_ps (x, _mm256_set1_ps (0.5f));
  k = _mm256_sub_epi32 (k, _mm256_set1_epi32 (0x7f));
  e = _mm256_add_ps (_mm256_cvtepi32_ps (k), one);
  /* below sqrt (1/2): x = 2 m - 1, e - 1; else x = m - 1 */
  mask = _mm256_cmp_ps (x, _mm256_set1_ps (0.707106781186547524f), _CMP_LT_OS);
  tmp = _mm256_and_ps (x, mask);
  x = _mm256_sub_ps (x, one);
  e = _mm256_sub_ps (e, _mm256_and_ps (one, mask));
  x = _mm256_add_ps (x, tmp);
  z = _mm256_mul_ps (x, x);
  y = _mm256_set1_ps (p[0]);
  for (gint i = 1; i < 9; i++)
    y = _mm256_fmadd_ps (y, x, _mm256_set1_ps (p[i]));
  y = _mm256_mul_ps (y, x);
  y = _mm256_fmadd_ps (y, z, _mm256_mul_ps (e, _mm256_set1_ps (-2.12194440e-4f)));
  y = _mm256_sub_ps (y, _mm256_mul_ps (z, _mm256_set1_ps (0.5f)));
  x = _mm256_add_ps (x, y);
  x = _mm256_fmadd_ps (e, _mm256_set1_ps (0.693359375f), x);
  return _mm256_or_ps (x, invalid); /* NaN for x <= 0 */
}

DL_V3_EXACT static inline void
cephes_sincos8 (__m256 x, __m256 *sin_out, __m256 *cos_out)
{
  const __m256 sign = _mm256_castsi256_ps (_mm256_set1_epi32 ((gint)0x80000000u));
  __m256 sign_sin = _mm256_and_ps (x, sign), sign_cos, y, z, yc, ys, poly, s, c;
  __m256i j, jc;

  /* the octant j (even) of |x| and x reduced by j pi / 4 in three parts */
  x = _mm256_andnot_ps (sign, x);
  y = _mm256_mul_ps (x, _mm256_set1_ps (1.27323954473516f));
  j = _mm256_cvttps_epi32 (y);
  j = _mm256_and_si256 (_mm256_add_epi32 (j, _mm256_set1_epi32 (1)), _mm256_set1_epi32 (~1));
  y = _mm256_cvtepi32_ps (j);
  sign_sin = _mm256_xor_ps (sign_sin, _mm256_castsi256_ps (_mm256_slli_epi32 (
                                          _mm256_and_si256 (j, _mm256_set1_epi32 (4)), 29)));
  poly = _mm256_castsi256_ps (
      _mm256_cmpeq_epi32 (_mm256_and_si256 (j, _mm256_set1_epi32 (2)), _mm256_setzero_si256 ()));
  x = _mm256_add_ps (x, _mm256_mul_ps (y, _mm256_set1_ps (-0.78515625f)));
  x = _mm256_add_ps (x, _mm256_mul_ps (y, _mm256_set1_ps (-2.4187564849853515625e-4f)));
  x = _mm256_add_ps (x, _mm256_mul_ps (y, _mm256_set1_ps (-3.77489497744594108e-8f)));
  jc = _mm256_sub_epi32 (j, _mm256_set1_epi32 (2));
  sign_cos = _mm256_castsi256_ps (
      _mm256_slli_epi32 (_mm256_andnot_si256 (jc, _mm256_set1_epi32 (4)), 29));
  z = _mm256_mul_ps (x, x);
  /* cos on [0, pi/4] */
  yc = _mm256_fmadd_ps (_mm256_set1_ps (2.443315711809948E-005f), z,
                        _mm256_set1_ps (-1.388731625493765E-003f));
  yc = _mm256_fmadd_ps (yc, z, _mm256_set1_ps (4.166664568298827E-002f));
  yc = _mm256_mul_ps (yc, z);
  yc = _mm256_fmsub_ps (yc, z, _mm256_mul_ps (z, _mm256_set1_ps (0.5f)));
  yc = _mm256_add_ps (yc, _mm256_set1_ps (1.0f));
  /* sin on [0, pi/4] */
  ys = _mm256_fmadd_ps (_mm256_set1_ps (-1.9515295891E-4f), z, _mm256_set1_ps (8.3321608736E-3f));
  ys = _mm256_fmadd_ps (ys, z, _mm256_set1_ps (-1.6666654611E-1f));
  ys = _mm256_mul_ps (ys, z);
  ys = _mm256_fmadd_ps (ys, x, x);
  /* each of sin and cos from the polynomial of its octant */
  s = _mm256_add_ps (_mm256_andnot_ps (poly, yc), _mm256_and_ps (poly, ys));
  c = _mm256_add_ps (_mm256_sub_ps (yc, _mm256_andnot_ps (poly, yc)),
                     _mm256_sub_ps (ys, _mm256_and_ps (poly, ys)));
  *sin_out = _mm256_xor_ps (s, sign_sin);
  *cos_out = _mm256_xor_ps (c, sign_cos);
}

DL_V3_EXACT static void
normal16_f32_v3 (float *data, float mean, float std)
{
  const __m256 u1 = _mm256_sub_ps (_mm256_set1_ps (1.0f), _mm256_loadu_ps (data));
  const __m256 u2 = _mm256_loadu_ps (data + 8);
  const __m256 radius = _mm256_sqrt_ps (_mm256_mul_ps (_mm256_set1_ps (-2.0f), cephes_log8 (u1)));
  const __m256 theta = _mm256_mul_ps (_mm256_set1_ps ((float)DL_MT_2PI), u2);
  __m256 s, c;

  cephes_sincos8 (theta, &s, &c);
  _mm256_storeu_ps (data, _mm256_fmadd_ps (_mm256_mul_ps (radius, c), _mm256_set1_ps (std),
                                           _mm256_set1_ps (mean)));
  _mm256_storeu_ps (data + 8, _mm256_fmadd_ps (_mm256_mul_ps (radius, s), _mm256_set1_ps (std),
                                               _mm256_set1_ps (mean)));
}

/* The same operations on 16 lanes (two blocks at once) for the CPUs that
 * run libdl's x86-64-v4 kernels: each lane computes exactly what the AVX2
 * version does (comparisons as masks select the same values), so the
 * numbers are those of PyTorch's AVX2 kernel. */
#define DL_V4_EXACT DL_CPU_TARGET_V4 __attribute__ ((optimize ("fp-contract=off")))

DL_V4_EXACT static inline __m512
cephes_log16 (__m512 x)
{
  static const float p[9] = { 7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                              -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                              2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f };
  const __m512 one = _mm512_set1_ps (1.0f);
  const __mmask16 invalid = _mm512_cmp_ps_mask (x, _mm512_setzero_ps (), _CMP_LE_OS);
  __m512i k;
  __m512 e, tmp, z, y;
  __mmask16 mask;

  x = _mm512_max_ps (x, _mm512_castsi512_ps (_mm512_set1_epi32 (0x00800000)));
  k = _mm512_srli_epi32 (_mm512_castps_si512 (x), 23);
  x = _mm512_and_ps (x, _mm512_castsi512_ps (_mm512_set1_epi32 (~0x7f800000)));
  x = _mm512_or_ps (x, _mm512_set1_ps (0.5f));
  k = _mm512_sub_epi32 (k, _mm512_set1_epi32 (0x7f));
  e = _mm512_add_ps (_mm512_cvtepi32_ps (k), one);
  mask = _mm512_cmp_ps_mask (x, _mm512_set1_ps (0.707106781186547524f), _CMP_LT_OS);
  tmp = _mm512_maskz_mov_ps (mask, x);
  x = _mm512_sub_ps (x, one);
  e = _mm512_sub_ps (e, _mm512_maskz_mov_ps (mask, one));
  x = _mm512_add_ps (x, tmp);
  z = _mm512_mul_ps (x, x);
  y = _mm512_set1_ps (p[0]);
  for (gint i = 1; i < 9; i++)
    y = _mm512_fmadd_ps (y, x, _mm512_set1_ps (p[i]));
  y = _mm512_mul_ps (y, x);
  y = _mm512_fmadd_ps (y, z, _mm512_mul_ps (e, _mm512_set1_ps (-2.12194440e-4f)));
  y = _mm512_sub_ps (y, _mm512_mul_ps (z, _mm512_set1_ps (0.5f)));
  x = _mm512_add_ps (x, y);
  x = _mm512_fmadd_ps (e, _mm512_set1_ps (0.693359375f), x);
  /* the AVX2 version's x | all-ones for x <= 0 */
  return _mm512_mask_mov_ps (x, invalid, _mm512_castsi512_ps (_mm512_set1_epi32 (-1)));
}

DL_V4_EXACT static inline void
cephes_sincos16 (__m512 x, __m512 *sin_out, __m512 *cos_out)
{
  const __m512 sign = _mm512_castsi512_ps (_mm512_set1_epi32 ((gint)0x80000000u));
  __m512 sign_sin = _mm512_and_ps (x, sign), sign_cos, y, z, yc, ys, s, c;
  __m512i j, jc;
  __mmask16 poly;

  x = _mm512_andnot_ps (sign, x);
  y = _mm512_mul_ps (x, _mm512_set1_ps (1.27323954473516f));
  j = _mm512_cvttps_epi32 (y);
  j = _mm512_and_si512 (_mm512_add_epi32 (j, _mm512_set1_epi32 (1)), _mm512_set1_epi32 (~1));
  y = _mm512_cvtepi32_ps (j);
  sign_sin = _mm512_xor_ps (sign_sin, _mm512_castsi512_ps (_mm512_slli_epi32 (
                                          _mm512_and_si512 (j, _mm512_set1_epi32 (4)), 29)));
  poly = _mm512_cmpeq_epi32_mask (_mm512_and_si512 (j, _mm512_set1_epi32 (2)),
                                  _mm512_setzero_si512 ());
  x = _mm512_add_ps (x, _mm512_mul_ps (y, _mm512_set1_ps (-0.78515625f)));
  x = _mm512_add_ps (x, _mm512_mul_ps (y, _mm512_set1_ps (-2.4187564849853515625e-4f)));
  x = _mm512_add_ps (x, _mm512_mul_ps (y, _mm512_set1_ps (-3.77489497744594108e-8f)));
  jc = _mm512_sub_epi32 (j, _mm512_set1_epi32 (2));
  sign_cos = _mm512_castsi512_ps (
      _mm512_slli_epi32 (_mm512_andnot_si512 (jc, _mm512_set1_epi32 (4)), 29));
  z = _mm512_mul_ps (x, x);
  yc = _mm512_fmadd_ps (_mm512_set1_ps (2.443315711809948E-005f), z,
                        _mm512_set1_ps (-1.388731625493765E-003f));
  yc = _mm512_fmadd_ps (yc, z, _mm512_set1_ps (4.166664568298827E-002f));
  yc = _mm512_mul_ps (yc, z);
  yc = _mm512_fmsub_ps (yc, z, _mm512_mul_ps (z, _mm512_set1_ps (0.5f)));
  yc = _mm512_add_ps (yc, _mm512_set1_ps (1.0f));
  ys = _mm512_fmadd_ps (_mm512_set1_ps (-1.9515295891E-4f), z, _mm512_set1_ps (8.3321608736E-3f));
  ys = _mm512_fmadd_ps (ys, z, _mm512_set1_ps (-1.6666654611E-1f));
  ys = _mm512_mul_ps (ys, z);
  ys = _mm512_fmadd_ps (ys, x, x);
  s = _mm512_add_ps (_mm512_maskz_mov_ps ((__mmask16)~poly, yc), _mm512_maskz_mov_ps (poly, ys));
  c = _mm512_add_ps (_mm512_sub_ps (yc, _mm512_maskz_mov_ps ((__mmask16)~poly, yc)),
                     _mm512_sub_ps (ys, _mm512_maskz_mov_ps (poly, ys)));
  *sin_out = _mm512_xor_ps (s, sign_sin);
  *cos_out = _mm512_xor_ps (c, sign_cos);
}

/* blocks @a and @b of 16 (each its pairs (j, j + 8)) in one pass */
DL_V4_EXACT static void
normal32_f32_v4 (float *a, float *b, float mean, float std)
{
  const __m512 u1 = _mm512_sub_ps (
      _mm512_set1_ps (1.0f),
      _mm512_insertf32x8 (_mm512_castps256_ps512 (_mm256_loadu_ps (a)), _mm256_loadu_ps (b), 1));
  const __m512 u2 = _mm512_insertf32x8 (_mm512_castps256_ps512 (_mm256_loadu_ps (a + 8)),
                                        _mm256_loadu_ps (b + 8), 1);
  const __m512 radius = _mm512_sqrt_ps (_mm512_mul_ps (_mm512_set1_ps (-2.0f), cephes_log16 (u1)));
  const __m512 theta = _mm512_mul_ps (_mm512_set1_ps ((float)DL_MT_2PI), u2);
  __m512 s, c, n1, n2;

  cephes_sincos16 (theta, &s, &c);
  n1 = _mm512_fmadd_ps (_mm512_mul_ps (radius, c), _mm512_set1_ps (std), _mm512_set1_ps (mean));
  n2 = _mm512_fmadd_ps (_mm512_mul_ps (radius, s), _mm512_set1_ps (std), _mm512_set1_ps (mean));
  _mm256_storeu_ps (a, _mm512_castps512_ps256 (n1));
  _mm256_storeu_ps (b, _mm512_extractf32x8_ps (n1, 1));
  _mm256_storeu_ps (a + 8, _mm512_castps512_ps256 (n2));
  _mm256_storeu_ps (b + 8, _mm512_extractf32x8_ps (n2, 1));
}
#endif

/* a float32 block of 16 as PyTorch transforms it on this CPU: its AVX2
 * kernel's where libdl runs its x86-64-v3 or v4 kernels, the C library's
 * (PyTorch's portable kernel) elsewhere or under DL_CPU_ISA=x86-64 */
static void
normal16_f32 (float *data, float mean, float std)
{
#ifdef DL_CPU_ISA_LEVELS
  if (dl_cpu_isa >= DL_CPU_ISA_V3)
    {
      normal16_f32_v3 (data, mean, std);
      return;
    }
#endif
  normal16_f32_libc (data, mean, std);
}

/* uniforms from words: 24 bits of each in [0, 1), or 53 bits of each pair,
 * then x * span + lo, fused (FMA) or not; compiled for x86-64-v3 too, where
 * the fused product is one instruction (and the unfused one must stay
 * so: no contraction) */
DL_CPU_CLONES __attribute__ ((optimize ("fp-contract=off"))) static void
uniform_f32_from_words (float *out,
                        const guint32 *w,
                        gint64 m,
                        float span,
                        float lo,
                        gboolean fused)
{
  if (span == 1.0f && lo == 0.0f)
    for (gint64 i = 0; i < m; i++) /* x * 1 + 0 is x, fused or not */
      out[i] = (float)(w[i] & 0xffffffu) * (1.0f / 16777216.0f);
  else if (fused)
    for (gint64 i = 0; i < m; i++)
      out[i] = fmaf ((float)(w[i] & 0xffffffu) * (1.0f / 16777216.0f), span, lo);
  else
    for (gint64 i = 0; i < m; i++)
      out[i] = (float)(w[i] & 0xffffffu) * (1.0f / 16777216.0f) * span + lo;
}

DL_CPU_CLONES __attribute__ ((optimize ("fp-contract=off"))) static void
uniform_f64_from_words (double *out,
                        const guint32 *w,
                        gint64 m,
                        double span,
                        double lo,
                        gboolean fused)
{
  for (gint64 i = 0; i < m; i++)
    {
      guint64 x = ((guint64)w[2 * i] << 32) | w[2 * i + 1];
      double u = (double)(x & G_GUINT64_CONSTANT (0x1fffffffffffff)) * (1.0 / 9007199254740992.0);

      out[i] = span == 1.0 && lo == 0.0 ? u : fused ? fma (u, span, lo) : u * span + lo;
    }
}

/* float32 or float64 uniforms in [from, to), as mt_uniform draws them,
 * from the words of the stream taken a chunk at a time */
static void
mt_uniform_fill (DlMtState *mt, void *data, gint64 n, gboolean wide, double from, double to)
{
  guint32 w[DL_MT_CHUNK];
  const gboolean fused = dl_cpu_isa >= DL_CPU_ISA_V3;

  if (wide)
    {
      for (gint64 i0 = 0; i0 < n; i0 += DL_MT_CHUNK / 2)
        {
          gint64 m = MIN (DL_MT_CHUNK / 2, n - i0);

          dl_mt_words (mt, w, 2 * m);
          uniform_f64_from_words ((double *)data + i0, w, m, to - from, from, fused);
        }
      return;
    }
  for (gint64 i0 = 0; i0 < n; i0 += DL_MT_CHUNK)
    {
      gint64 m = MIN (DL_MT_CHUNK, n - i0);

      dl_mt_words (mt, w, m);
      uniform_f32_from_words ((float *)data + i0, w, m, (float)to - (float)from, (float)from,
                              fused);
    }
}

/* @n_blocks whole blocks of 16 from @data on */
static void
normal_blocks_f32 (float *data, gint64 n_blocks, float mean, float std)
{
  gint64 i = 0;

#ifdef DL_CPU_ISA_LEVELS
  if (dl_cpu_isa >= DL_CPU_ISA_V4)
    for (; i + 2 <= n_blocks; i += 2)
      normal32_f32_v4 (data + 16 * i, data + 16 * i + 16, mean, std);
#endif
  for (; i < n_blocks; i++)
    normal16_f32 (data + 16 * i, mean, std);
}

static void
normal_blocks_f64 (double *data, gint64 n_blocks, double mean, double std)
{
  for (gint64 i = 0; i < n_blocks; i++)
    normal16_f64 (data + 16 * i, mean, std);
}

/* PyTorch's normal_fill over a whole contiguous tensor of n >= 16: every
 * element's uniform first, then blocks of 16; a last partial block redraws
 * the last 16 elements' uniforms and transforms them again */
#define DL_DEFINE_NORMAL_FILL(T, suffix)                                                           \
  static void normal_fill_##suffix (DlMtState *mt, T *data, gint64 n, T mean, T std)               \
  {                                                                                                \
    mt_uniform_fill (mt, data, n, sizeof (T) == 8, 0, 1);                                          \
    normal_blocks_##suffix (data, n / 16, mean, std);                                              \
    if (n % 16 != 0)                                                                               \
      {                                                                                            \
        mt_uniform_fill (mt, data + n - 16, 16, sizeof (T) == 8, 0, 1);                            \
        normal16_##suffix (data + n - 16, mean, std);                                              \
      }                                                                                            \
  }

DL_DEFINE_NORMAL_FILL (float, f32)
DL_DEFINE_NORMAL_FILL (double, f64)

/* a uniform in [from, to) of a 16-bit float dtype (float32 and float64
 * are mt_uniform_fill's): the mantissa's bits of one word (float16 11,
 * bfloat16 8) scaled in float, the span rounded to the type as PyTorch's
 * 16-bit arithmetic rounds it */
static double
mt_uniform16 (DlMtState *mt, DlDType dtype, double from, double to)
{
  const gboolean half = dtype == DL_DTYPE_FLOAT16;
  const guint32 bits = half ? 11 : 8;
  const float lo = half ? (float)(dl_half)from : dl_bf16_to_float (dl_float_to_bf16 ((float)from));
  const float hi = half ? (float)(dl_half)to : dl_bf16_to_float (dl_float_to_bf16 ((float)to));
  const float span
      = half ? (float)(dl_half)(hi - lo) : dl_bf16_to_float (dl_float_to_bf16 (hi - lo));
  float x = (float)(dl_mt_word (mt) & ((1u << bits) - 1)) * (1.0f / (float)(1u << bits));

  return (double)(x * span + lo);
}

/* one element of @op (not uniform, integer or permutation), in double as
 * PyTorch's serial CPU kernels compute them */
static double
mt_element (DlMtState *mt, DlRandomOp op, double a, double b)
{
  switch (op)
    {
      case DL_RANDOM_NORMAL:
        return dl_mt_normal (mt) * b + a;
      case DL_RANDOM_BERNOULLI:
        return dl_mt_double (mt) < a ? 1.0 : 0.0;
      case DL_RANDOM_EXPONENTIAL:
        return (-1.0 / a) * log (1.0 - dl_mt_double (mt));
      case DL_RANDOM_CAUCHY:
        return a + b * tan (G_PI * (dl_mt_double (mt) - 0.5));
      case DL_RANDOM_LOG_NORMAL:
        return exp (dl_mt_normal (mt) * b + a);
      case DL_RANDOM_GEOMETRIC:
        return ceil (log (dl_mt_double (mt)) / log1p (-a));
      default:
        g_return_val_if_reached (0);
    }
}

/* int64 values low + (x mod range), x one word or two (draw->wide), a
 * chunk of words at a time */
static void
mt_integers (DlMtState *mt, gint64 *out, gint64 n, const DlRandomDraw *draw)
{
  guint32 w[DL_MT_CHUNK];
  const gint per = draw->wide ? 2 : 1;
  const guint64 range = draw->range, low = (guint64)draw->low;

  for (gint64 i0 = 0; i0 < n; i0 += DL_MT_CHUNK / per)
    {
      gint64 m = MIN (DL_MT_CHUNK / per, n - i0);

      dl_mt_words (mt, w, per * m);
      if (draw->wide)
        for (gint64 i = 0; i < m; i++)
          out[i0 + i] = (gint64)((((guint64)w[2 * i] << 32) | w[2 * i + 1]) % range + low);
      else
        for (gint64 i = 0; i < m; i++)
          out[i0 + i] = (gint64)((guint64)w[i] % range + low);
    }
}

/* the draws made of one float64 uniform each (bernoulli, exponential,
 * cauchy, geometric), as mt_element computes them, the uniforms taken a
 * chunk of words at a time */
static void
mt_from_doubles (DlMtState *mt,
                 DlRandomOp op,
                 void *data,
                 gint64 n,
                 DlDType dtype,
                 gdouble a,
                 gdouble b)
{
  guint32 w[DL_MT_CHUNK];
  double v[DL_MT_CHUNK / 2];
  const double inv_lambda = -1.0 / a, log_q = op == DL_RANDOM_GEOMETRIC ? log1p (-a) : 0;

  for (gint64 i0 = 0; i0 < n; i0 += DL_MT_CHUNK / 2)
    {
      gint64 m = MIN (DL_MT_CHUNK / 2, n - i0);

      dl_mt_words (mt, w, 2 * m);
      for (gint64 i = 0; i < m; i++)
        v[i] = (double)((((guint64)w[2 * i] << 32) | w[2 * i + 1])
                        & G_GUINT64_CONSTANT (0x1fffffffffffff))
               * (1.0 / 9007199254740992.0);
      switch (op)
        {
          case DL_RANDOM_BERNOULLI:
            if (dtype == DL_DTYPE_FLOAT32)
              {
                float *out = (float *)data + i0;

                for (gint64 i = 0; i < m; i++)
                  out[i] = v[i] < a ? 1.0f : 0.0f;
                continue;
              }
            for (gint64 i = 0; i < m; i++)
              v[i] = v[i] < a ? 1.0 : 0.0;
            break;
          case DL_RANDOM_EXPONENTIAL:
            for (gint64 i = 0; i < m; i++)
              v[i] = inv_lambda * log (1.0 - v[i]);
            break;
          case DL_RANDOM_CAUCHY:
            for (gint64 i = 0; i < m; i++)
              v[i] = a + b * tan (G_PI * (v[i] - 0.5));
            break;
          default: /* geometric */
            for (gint64 i = 0; i < m; i++)
              v[i] = ceil (log (v[i]) / log_q);
            break;
        }
      for (gint64 i = 0; i < m; i++)
        store_value (data, i0 + i, dtype, v[i]);
    }
}

static void
mt_random (DlMtState *mt,
           DlRandomOp op,
           void *data,
           gint64 n,
           DlDType dtype,
           const DlRandomDraw *draw,
           gdouble a,
           gdouble b)
{
  switch (op)
    {
      case DL_RANDOM_PERMUTATION:
        {
          gint64 *p = data;

          g_return_if_fail (dtype == DL_DTYPE_INT64);
          for (gint64 i = 0; i < n; i++)
            p[i] = i;
          /* position i swaps with one of i .. n - 1, from one word */
          for (gint64 i = 0; i + 1 < n; i++)
            {
              gint64 z = (gint64)(dl_mt_word (mt) % (guint64)(n - i));
              gint64 t = p[i];

              p[i] = p[z + i];
              p[z + i] = t;
            }
          return;
        }
      case DL_RANDOM_INTEGER:
        g_return_if_fail (dtype == DL_DTYPE_INT64 && draw->range > 0);
        mt_integers (mt, data, n, draw);
        return;
      case DL_RANDOM_BERNOULLI:
      case DL_RANDOM_EXPONENTIAL:
      case DL_RANDOM_CAUCHY:
      case DL_RANDOM_GEOMETRIC:
        mt_from_doubles (mt, op, data, n, dtype, a, b);
        return;
      case DL_RANDOM_UNIFORM:
        if (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64)
          mt_uniform_fill (mt, data, n, dtype == DL_DTYPE_FLOAT64, a, b);
        else
          for (gint64 i = 0; i < n; i++)
            store_value (data, i, dtype, mt_uniform16 (mt, dtype, a, b));
        return;
      case DL_RANDOM_NORMAL:
        if (draw->dense && n >= 16 && dtype == DL_DTYPE_FLOAT32)
          {
            normal_fill_f32 (mt, data, n, (float)a, (float)b);
            return;
          }
        if (draw->dense && n >= 16 && dtype == DL_DTYPE_FLOAT64)
          {
            normal_fill_f64 (mt, data, n, a, b);
            return;
          }
        if (draw->dense && n >= 16)
          {
            /* the 16-bit floats: the float32 blocks, rounded */
            float *tmp = g_new (float, n);

            normal_fill_f32 (mt, tmp, n, (float)a, (float)b);
            for (gint64 i = 0; i < n; i++)
              store_value (data, i, dtype, tmp[i]);
            g_free (tmp);
            return;
          }
        G_GNUC_FALLTHROUGH;
      default:
        for (gint64 i = 0; i < n; i++)
          store_value (data, i, dtype, mt_element (mt, op, a, b));
        return;
    }
}

void
dl_cpu_random (DlBackendContext *ctx,
               DlRandomOp op,
               void *data,
               gint64 n,
               DlDType dtype,
               const DlRandomDraw *draw,
               gdouble a,
               gdouble b)
{
  gboolean wide = dtype == DL_DTYPE_FLOAT64;
  gint per_block = wide ? 2 : 4;
  gint64 n_blocks = (n + per_block - 1) / per_block;
  guint64 seed = draw->seed, offset = draw->offset;

  if (draw->mt)
    {
      mt_random (draw->mt, op, data, n, dtype, draw, a, b);
      return;
    }
  g_return_if_fail (op != DL_RANDOM_INTEGER);
  if (op == DL_RANDOM_PERMUTATION)
    {
      g_return_if_fail (dtype == DL_DTYPE_INT64);
      dl_philox_permutation (data, n, seed, offset);
      return;
    }
  DL_CPU_FOR_IF (
      n >= DL_CPU_GRAIN, for (gint64 blk = 0; blk < n_blocks; blk++) {
        double u[4];
        gint64 base = blk * per_block;

        dl_philox_block ((DlPhiloxKind)op, seed, offset, blk, wide, a, b, u);
        for (gint j = 0; j < per_block && base + j < n; j++)
          store_value (data, base + j, dtype, u[j]);
      });
}

/* PyTorch's per-element samplers (ATen's Distributions.h and .cpp, from
 * NumPy's and TensorFlow's) compute in double with some steps in the
 * element type: @single marks a float32 element, whose steps are rounded
 * to float here. A float operation on float operands gives the double
 * operation's result rounded to float (double's 53 bits are more than
 * twice float's 24 plus 2), so rounding the double result is exact. */
static inline double
narrow (double x, gboolean single)
{
  return single ? (double)(float)x : x;
}

/* the largest integer below x as an int64, as x86-64 converts it: the
 * lowest int64 where there is none (NaN, out of range) */
static inline gint64
floor_int64 (double x)
{
  x = floor (x);
  return x >= -9223372036854775808.0 && x < 9223372036854775808.0 ? (gint64)x : G_MININT64;
}

/* Gamma (alpha, 1), as PyTorch's sample_gamma: Marsaglia and Tsang's
 * method on normals and uniforms of the stream, an alpha below 1 boosted
 * to alpha + 1 and the result scaled by (1 - u)^(1 / alpha). alpha, 1 /
 * alpha and d are in the element type, and the constants that PyTorch
 * writes as floats (1/3, 0.0331) are floats. */
static double
mt_gamma (DlMtState *mt, double alpha, gboolean single)
{
  double scale = 1.0, d, c;

  if (alpha < 1)
    {
      if (alpha == 0)
        return 0;
      scale *= pow (1 - dl_mt_double (mt), narrow (1.0 / alpha, single));
      alpha = narrow (alpha + 1, single);
    }
  d = narrow (alpha - (double)(1.0f / 3.0f), single);
  c = 1.0 / sqrt (9.0 * d);
  for (;;)
    {
      double x, y, v, u, xx;

      do
        {
          x = dl_mt_normal (mt);
          y = 1.0 + c * x;
        }
      while (y <= 0);
      v = y * y * y;
      u = 1 - dl_mt_double (mt);
      xx = x * x;
      if (u < 1.0 - (double)0.0331f * xx * xx)
        return narrow (scale * d * v, single);
      if (log (u) < 0.5 * xx + d * (1.0 - v + log (v)))
        return narrow (scale * d * v, single);
    }
}

/* Poisson (rate), as PyTorch's sample_poisson, in double: from rate 10
 * Hörmann's transformed rejection (PTRS), below it the number of uniforms
 * whose running product stays above e^-rate */
static gint64
mt_poisson (DlMtState *mt, double rate)
{
  if (rate >= 10)
    {
      const double slam = sqrt (rate), loglam = log (rate);
      const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
      const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);

      for (;;)
        {
          const double u = dl_mt_double (mt) - 0.5, v = dl_mt_double (mt);
          const double us = 0.5 - fabs (u);
          const gint64 k = floor_int64 ((2 * a / us + b) * u + rate + 0.43);

          if (us >= 0.07 && v <= vr)
            return k;
          if (k < 0 || (us < 0.013 && v > us))
            continue;
          if (log (v) + log (invalpha) - log (a / (us * us) + b)
              <= -rate + (double)k * loglam - lgamma ((double)k + 1))
            return k;
        }
    }
  if (rate == 0)
    return 0;
  {
    const double enlam = exp (-rate);
    double prod = 1.0;
    gint64 x = 0;

    for (;;)
      {
        prod *= dl_mt_double (mt);
        if (!(prod > enlam))
          return x;
        x++;
      }
  }
}

/* log (k!) - (k + 1/2) log (k + 1) + (k + 1) - log (2 pi) / 2, the
 * remainder of Stirling's approximation at k + 1: tabulated to 9, by its
 * series above (TensorFlow's stirling_approx_tail, as PyTorch has it) */
static double
stirling_tail (double k)
{
  static const double tail[10]
      = { 0.0810614667953272,  0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
          0.0166446911898211,  0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
          0.00925546218271273, 0.00833056343336287 };
  double kp1sq;

  if (k <= 9)
    return tail[(gsize)k];
  kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

/* Binomial (count, p) for count p < 10: the number of geometric waiting
 * times (log u / log (1 - p), rounded up) that fit in count; log (1 - p)
 * in the element type. A NaN count, for which PyTorch's loop never ends,
 * gives NaN. */
static double
mt_binomial_inversion (DlMtState *mt, double count, double p, gboolean single)
{
  const double logprob = single ? (double)log1pf ((float)-p) : log1p (-p);
  double geom_sum = 0, n_geom = 0;

  if (isnan (count))
    return NAN;
  for (;;)
    {
      geom_sum += ceil (log (dl_mt_double (mt)) / logprob);
      if (geom_sum > count)
        return n_geom;
      n_geom = narrow (n_geom + 1, single);
    }
}

/* Binomial (count, p) for count p >= 10, p <= 1/2: Hörmann's BTRS as
 * TensorFlow and PyTorch write it, the products of count and p in the
 * element type */
static double
mt_btrs (DlMtState *mt, double count, double p, gboolean single)
{
  const double q = narrow (1 - p, single), np = narrow (count * p, single);
  const double stddev = narrow (sqrt (narrow (np * q, single)), single);
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = np + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = narrow (p / q, single);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = floor (narrow (narrow (count + 1, single) * p, single));

  for (;;)
    {
      const double u = dl_mt_double (mt) - 0.5;
      double v = dl_mt_double (mt), us, k, nk1, bound;

      us = 0.5 - fabs (u);
      k = narrow (floor ((2 * a / us + b) * u + c), single);
      if (k < 0 || k > count)
        continue;
      if (us >= 0.07 && v <= v_r)
        return k;
      v = log (v * alpha / (a / (us * us) + b));
      nk1 = narrow (narrow (count - k, single) + 1, single);
      bound = (m + 0.5) * log ((m + 1) / (r * (count - m + 1)))
              + narrow (count + 1, single) * log ((count - m + 1) / nk1)
              + (k + 0.5) * log (r * nk1 / narrow (k + 1, single)) + stirling_tail (m)
              + stirling_tail (count - m) - stirling_tail (k)
              - stirling_tail (narrow (count - k, single));
      if (v <= bound)
        return k;
    }
}

/* Binomial (count, p), as PyTorch's sample_binomial: 0 for count or p
 * at most 0, count for p from 1, NaN for a NaN p; above p = 1/2 count
 * less the failures' count */
static double
mt_binomial (DlMtState *mt, double count, double p, gboolean single)
{
  double q;

  if (count <= 0 || p <= 0)
    return 0;
  if (p >= 1)
    return count;
  if (p <= 0.5)
    return narrow (count * p, single) >= 10 ? mt_btrs (mt, count, p, single)
                                            : mt_binomial_inversion (mt, count, p, single);
  if (p > 0.5)
    {
      q = narrow (1 - p, single);
      return narrow (count
                         - (narrow (count * q, single) >= 10
                                ? mt_btrs (mt, count, q, single)
                                : mt_binomial_inversion (mt, count, q, single)),
                     single);
    }
  return NAN;
}

/* PyTorch's CPU kernels of _standard_gamma, poisson and binomial: the
 * elements in turn, float32 and float64 (the 16-bit floats, which PyTorch
 * refuses on the CPU, as float32 rounded); gamma at least the dtype's
 * smallest normal number (PyTorch's std::max, which also takes it for
 * NaN) */
static void
mt_random_params (DlMtState *mt,
                  DlRandomParamsOp op,
                  const gdouble *a,
                  const gdouble *b,
                  void *data,
                  gint64 n,
                  DlDType dtype)
{
  const gboolean single = dtype != DL_DTYPE_FLOAT64;
  const double tiny = dl_philox_tiny (dtype == DL_DTYPE_FLOAT64, dtype == DL_DTYPE_FLOAT16);

  for (gint64 i = 0; i < n; i++)
    {
      const double ai = narrow (a[i], single);

      switch (op)
        {
          case DL_RANDOM_PARAMS_GAMMA:
            {
              double g = mt_gamma (mt, ai, single);

              store_value (data, i, dtype, tiny < g ? g : tiny);
            }
            break;
          case DL_RANDOM_PARAMS_POISSON:
            {
              gint64 k = mt_poisson (mt, ai);

              /* the count converted as PyTorch converts it: once */
              if (dtype == DL_DTYPE_FLOAT64)
                ((double *)data)[i] = (double)k;
              else
                store_value (data, i, dtype, (float)k);
            }
            break;
          case DL_RANDOM_PARAMS_BINOMIAL:
            store_value (data, i, dtype, mt_binomial (mt, ai, narrow (b[i], single), single));
            break;
          default:
            g_return_if_reached ();
        }
    }
}

void
dl_cpu_random_params (DlBackendContext *ctx,
                      DlRandomParamsOp op,
                      const gdouble *a,
                      const gdouble *b,
                      void *data,
                      gint64 n,
                      DlDType dtype,
                      const DlRandomDraw *draw)
{
  const double tiny = dl_philox_tiny (dtype == DL_DTYPE_FLOAT64, dtype == DL_DTYPE_FLOAT16);
  const guint64 seed = draw->seed, offset = draw->offset;

  if (draw->mt)
    {
      mt_random_params (draw->mt, op, a, b, data, n, dtype);
      return;
    }
  DL_CPU_FOR_IF (
      n >= DL_CPU_GRAIN / 16, for (gint64 i = 0; i < n; i++) {
        store_value (data, i, dtype,
                     dl_philox_params_elem (op, seed, offset, i, a[i], b ? b[i] : 0, tiny));
      });
}

/* row r of the weights, checked as dl_philox_multinomial_row checks it */
static gint
check_row (const gdouble *w, gint64 k)
{
  double total = 0;

  for (gint64 j = 0; j < k; j++)
    {
      if (!(w[j] >= 0) || w[j] - w[j] != 0)
        return DL_KERNEL_BAD_WEIGHT;
      total += w[j];
    }
  return total > 0 ? DL_KERNEL_OK : DL_KERNEL_ZERO_SUM;
}

/* PyTorch's CPU multinomial. With replacement and more than one sample:
 * per row the cumulative weights in the weights' precision (float for
 * float32 and the 16-bit floats), normalised, the last set to 1, and per
 * sample the first category whose cumulative weight is not below a
 * float64 uniform. Otherwise the exponential trick over the whole tensor:
 * q ~ Exp (1) in the weights' precision, then the largest w / q of each
 * row (the n_samples largest, in order). */
#define DL_DEFINE_MT_MULTINOMIAL(T, suffix)                                                        \
  static void mt_multinomial_##suffix (DlMtState *mt, const gdouble *weights, gint64 rows,         \
                                       gint64 k, gint64 n_samples, gboolean replacement,           \
                                       gint64 *out)                                                \
  {                                                                                                \
    if (replacement && n_samples > 1)                                                              \
      {                                                                                            \
        T *cum = g_new (T, k);                                                                     \
        for (gint64 r = 0; r < rows; r++)                                                          \
          {                                                                                        \
            const gdouble *w = weights + r * k;                                                    \
            T sum = 0;                                                                             \
            for (gint64 j = 0; j < k; j++)                                                         \
              {                                                                                    \
                sum += (T)w[j];                                                                    \
                cum[j] = sum;                                                                      \
              }                                                                                    \
            for (gint64 j = 0; j < k; j++)                                                         \
              cum[j] /= sum;                                                                       \
            cum[k - 1] = 1;                                                                        \
            for (gint64 s = 0; s < n_samples; s++)                                                 \
              {                                                                                    \
                double u = dl_mt_double (mt);                                                      \
                gint64 lo = 0, hi = k;                                                             \
                while (hi > lo)                                                                    \
                  {                                                                                \
                    gint64 mid = lo + (hi - lo) / 2;                                               \
                    if ((double)cum[mid] < u)                                                      \
                      lo = mid + 1;                                                                \
                    else                                                                           \
                      hi = mid;                                                                    \
                  }                                                                                \
                out[r * n_samples + s] = lo;                                                       \
              }                                                                                    \
          }                                                                                        \
        g_free (cum);                                                                              \
        return;                                                                                    \
      }                                                                                            \
    T *ratio = g_new (T, rows * k);                                                                \
    /* q ~ Exp (1), drawn as exponential_ draws it */                                              \
    mt_from_doubles (mt, DL_RANDOM_EXPONENTIAL, ratio, rows *k,                                    \
                     sizeof (T) == 8 ? DL_DTYPE_FLOAT64 : DL_DTYPE_FLOAT32, 1.0, 0);               \
    for (gint64 i = 0; i < rows * k; i++)                                                          \
      ratio[i] = (T)weights[i] / ratio[i];                                                         \
    for (gint64 r = 0; r < rows; r++)                                                              \
      {                                                                                            \
        T *row = ratio + r * k;                                                                    \
        /* the n_samples largest, first index first among equals */                                \
        for (gint64 s = 0; s < n_samples; s++)                                                     \
          {                                                                                        \
            gint64 best = -1;                                                                      \
            for (gint64 j = 0; j < k; j++)                                                         \
              if (!isnan (row[j]) && (best < 0 || row[j] > row[best]))                             \
                best = j;                                                                          \
            if (best < 0)                                                                          \
              best = 0;                                                                            \
            out[r * n_samples + s] = best;                                                         \
            row[best] = -INFINITY;                                                                 \
          }                                                                                        \
      }                                                                                            \
    g_free (ratio);                                                                                \
  }

DL_DEFINE_MT_MULTINOMIAL (float, f32)
DL_DEFINE_MT_MULTINOMIAL (double, f64)

void
dl_cpu_multinomial (DlBackendContext *ctx,
                    const gdouble *weights,
                    gint64 rows,
                    gint64 k,
                    gint64 n_samples,
                    gboolean replacement,
                    gint64 *out,
                    const DlRandomDraw *draw,
                    DlKernelStatus *kernel_status)
{
  gint64 per_row = (n_samples + 1) / 2;
  gint status = DL_KERNEL_OK;
  guint64 seed = draw->seed, offset = draw->offset;

  if (draw->mt)
    {
      /* PyTorch checks every row before it draws */
      for (gint64 r = 0; r < rows && status == DL_KERNEL_OK; r++)
        status = check_row (weights + r * k, k);
      if (status != DL_KERNEL_OK)
        {
          if (kernel_status->error == DL_KERNEL_OK)
            kernel_status->error = status;
          return;
        }
      if (draw->weights_dtype == DL_DTYPE_FLOAT64)
        mt_multinomial_f64 (draw->mt, weights, rows, k, n_samples, replacement, out);
      else
        mt_multinomial_f32 (draw->mt, weights, rows, k, n_samples, replacement, out);
      return;
    }

  DL_CPU_PARALLEL_IF (rows * MAX (k, n_samples) >= DL_CPU_GRAIN, {
    double *tmp = g_new (double, MAX (k, 1));

    _Pragma ("omp for schedule(static)") for (gint64 r = 0; r < rows; r++)
    {
      gint st = dl_philox_multinomial_row (weights + r * k, k, n_samples, replacement,
                                           out + r * n_samples, seed, offset + r * per_row, tmp);
      if (st != DL_KERNEL_OK)
        g_atomic_int_compare_and_exchange (&status, DL_KERNEL_OK, st);
    }
    g_free (tmp);
  });
  if (status != DL_KERNEL_OK && kernel_status->error == DL_KERNEL_OK)
    kernel_status->error = status;
}

/* out = in * keep / (1 - p), keep as dl_philox_dropout_block draws it
 * (from the uniforms of the request's dtype: 4 float32 or 2 float64 per
 * block); p == 1 zeroes everything */
#define DL_DEFINE_DROPOUT(T, suffix, per_block)                                                    \
  static void dropout_##suffix (const T *in, T *out, guint8 *mask, gint64 n, gdouble p,            \
                                guint64 seed, guint64 offset)                                      \
  {                                                                                                \
    const gint64 n_blocks = (n + per_block - 1) / per_block;                                       \
    const T scale = p < 1.0 ? (T)(1.0 / (1.0 - p)) : (T)0;                                         \
                                                                                                   \
    DL_CPU_FOR_IF (                                                                                \
        n >= DL_CPU_GRAIN, for (gint64 blk = 0; blk < n_blocks; blk++) {                           \
          int keep[4];                                                                             \
          const gint64 base = blk * per_block;                                                     \
                                                                                                   \
          dl_philox_dropout_block (seed, offset, blk, per_block == 2, p, keep);                    \
          for (gint j = 0; j < per_block && base + j < n; j++)                                     \
            {                                                                                      \
              out[base + j] = keep[j] ? in[base + j] * scale : (T)0;                               \
              if (mask)                                                                            \
                mask[base + j] = keep[j];                                                          \
            }                                                                                      \
        });                                                                                        \
  }

DL_DEFINE_DROPOUT (float, f32, 4)
DL_DEFINE_DROPOUT (double, f64, 2)

/* PyTorch's CPU dropout: a float64 uniform per element below 1 - p keeps
 * it; the kept noise is 1 / (1 - p) in the element type, and out = in *
 * noise (so a dropped -x is -0, a dropped inf NaN) */
#define DL_DEFINE_MT_DROPOUT(T, suffix)                                                            \
  static void mt_dropout_##suffix (DlMtState *mt, const T *in, T *out, guint8 *mask, gint64 n,     \
                                   gdouble p)                                                      \
  {                                                                                                \
    const double q = 1.0 - p;                                                                      \
    const T scale = (T)1 / (T)q;                                                                   \
                                                                                                   \
    for (gint64 i = 0; i < n; i++)                                                                 \
      {                                                                                            \
        gboolean keep = q > 0 && dl_mt_double (mt) < q; /* p = 1 draws nothing */                  \
        out[i] = in[i] * (keep ? scale : (T)0);                                                    \
        if (mask)                                                                                  \
          mask[i] = keep;                                                                          \
      }                                                                                            \
  }

DL_DEFINE_MT_DROPOUT (float, f32)
DL_DEFINE_MT_DROPOUT (double, f64)

void
dl_cpu_dropout (DlBackendContext *ctx,
                const void *in,
                void *out,
                guint8 *mask,
                gint64 n,
                gdouble p,
                DlDType dtype,
                const DlRandomDraw *draw)
{
  if (draw->mt && dtype == DL_DTYPE_FLOAT64)
    mt_dropout_f64 (draw->mt, in, out, mask, n, p);
  else if (draw->mt)
    mt_dropout_f32 (draw->mt, in, out, mask, n, p);
  else if (dtype == DL_DTYPE_FLOAT64)
    dropout_f64 (in, out, mask, n, p, draw->seed, draw->offset);
  else
    dropout_f32 (in, out, mask, n, p, draw->seed, draw->offset);
}
