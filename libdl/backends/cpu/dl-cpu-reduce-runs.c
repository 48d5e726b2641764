/* dl-cpu-reduce-runs.c: the reductions' vector kernels, one set per
 * x86-64 level (dl_cpu_reduce_run_kernels picks one): a contiguous run of
 * float32 or float64 summed, multiplied or searched for its max or min,
 * and the column kernels that fold blocks of rows lane by lane. The
 * driver that walks the tensors and splits them over threads is
 * dl-cpu-reduce.c.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-cpu-reduce-private.h"

#ifdef DL_CPU_ISA_LEVELS
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Integer and double lanes beside the header's float vectors. */
typedef gint32 v4si __attribute__ ((vector_size (16)));
typedef gint32 v8si __attribute__ ((vector_size (32)));
typedef gint64 v2di __attribute__ ((vector_size (16)));
typedef gint64 v4di __attribute__ ((vector_size (32)));
typedef double v2df __attribute__ ((vector_size (16)));

/* the lanes of @a where mask @m (a comparison's result) is set, of @b
 * elsewhere; VI is the integer vector of @a's width */
#define VSELECT(VI, m, a, b) ((__typeof__ (a))(((VI)(m) & (VI)(a)) | (~(VI)(m) & (VI)(b))))
/* sets lane j_ of vector v to @val (which may read j_) through an array:
 * a vector written lane by lane stays in memory, loops included */
#define VFILL(v, val)                                                                              \
  G_STMT_START                                                                                     \
  {                                                                                                \
    __typeof__ ((v)[0]) f_[sizeof (v) / sizeof ((v)[0])];                                          \
    for (gint j_ = 0; j_ < (gint)G_N_ELEMENTS (f_); j_++)                                          \
      f_[j_] = (val);                                                                              \
    memcpy (&(v), f_, sizeof (v));                                                                 \
  }                                                                                                \
  G_STMT_END

/* The first k elements at x (0 < k < the vector's lanes) in a vector whose
 * other lanes are 0, reading nothing past x + k: a masked load at x86-64-v3
 * and v4, so that a run's tail costs one load and not k scalar steps. */
static inline dl_v4sf
part_f32_v4 (const float *x, gint64 k)
{
  dl_v4sf v = { 0 };

  for (gint64 j = 0; j < k; j++)
    v[j] = x[j];
  return v;
}

static inline v2df
part_f64_v2 (const double *x, gint64 k)
{
  return (v2df){ x[0], 0 };
}

/* The low and high halves of a float vector as doubles: one register each
 * (a vector of twice the register's width would live on the stack). */
static inline v2df
lo_v4 (dl_v4sf v)
{
#ifdef __SSE2__
  return (v2df)_mm_cvtps_pd ((__m128)v);
#else
  return (v2df){ v[0], v[1] };
#endif
}

static inline v2df
hi_v4 (dl_v4sf v)
{
#ifdef __SSE2__
  return (v2df)_mm_cvtps_pd (_mm_movehl_ps ((__m128)v, (__m128)v));
#else
  return (v2df){ v[2], v[3] };
#endif
}

#ifdef DL_CPU_ISA_LEVELS
DL_CPU_TARGET_V3 static inline dl_v8sf
part_f32_v8 (const float *x, gint64 k)
{
  const v8si iota = { 0, 1, 2, 3, 4, 5, 6, 7 };

  return (dl_v8sf)_mm256_maskload_ps (x, (__m256i)(iota < (gint32)k));
}

DL_CPU_TARGET_V3 static inline dl_v4df
part_f64_v4 (const double *x, gint64 k)
{
  const v4di iota = { 0, 1, 2, 3 };

  return (dl_v4df)_mm256_maskload_pd (x, (__m256i)(iota < k));
}

DL_CPU_TARGET_V3 static inline dl_v4df
lo_v8 (dl_v8sf v)
{
  return (dl_v4df)_mm256_cvtps_pd (_mm256_castps256_ps128 ((__m256)v));
}

DL_CPU_TARGET_V3 static inline dl_v4df
hi_v8 (dl_v8sf v)
{
  return (dl_v4df)_mm256_cvtps_pd (_mm256_extractf128_ps ((__m256)v, 1));
}

#endif

/* the W doubles of vector v added pairwise */
#define PAIRWISE_SUM(v, W)                                                                         \
  ({                                                                                               \
    double lanes_[W];                                                                              \
    memcpy (lanes_, &(v), sizeof lanes_);                                                          \
    _Pragma ("GCC unroll 8") for (gint h_ = W / 2; h_ > 0; h_ /= 2)                                \
    {                                                                                              \
      _Pragma ("GCC unroll 8") for (gint j_ = 0; j_ < h_; j_++) lanes_[j_] += lanes_[j_ + h_];     \
    }                                                                                              \
    lanes_[0];                                                                                     \
  })

/* Sum of a contiguous float32 run, as accurate as a cascade and as fast as
 * memory allows: blocks of up to 32 vectors per lane are added in float
 * lanes (four vectors a step, then what is left of the run: two, one, and
 * the last partial vector through a masked load, so that a row's tail is
 * one load), each block's total goes into double lanes, and
 * those are added pairwise at the end. Which lane an element goes to
 * depends on its place in the run only, never on its address, so that the
 * same values sum to the same bits wherever they lie (a resumed L-BFGS run
 * must match its uninterrupted twin bit for bit). A run that starts off a
 * vector boundary, as numpy's buffers do (16 bytes into a page), pays here
 * for loads that span two cache lines (1.5x on a sum of 10^5 floats in L2,
 * one thread); at x86-64-v3 sum_f32_v8_grid sums such runs from the
 * boundary with the same bits. One body for 8- and 4-float vectors
 * (AVX2 from x86-64-v3 up, SSE below). VDH: the double vector of half VF's
 * lanes; LO, HI: a VF's halves as VDH. */
#define DEFINE_SUM_F32(NAME, TARGET, VF, VDH, LO, HI, PART)                                        \
  TARGET static gdouble NAME (const float *restrict x, gint64 n)                                   \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VF) / sizeof (float),                                                            \
      STEP = 4 * W                                                                                 \
    };                                                                                             \
    VDH d0 = { 0 }, d1 = { 0 };                                                                    \
    gint64 i = 0;                                                                                  \
                                                                                                   \
    while (i < n)                                                                                  \
      {                                                                                            \
        gint64 end = i + MIN (n - i, 32 * STEP);                                                   \
        VF a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, v0, v1, v2, v3;                         \
                                                                                                   \
        for (; i + STEP <= end; i += STEP)                                                         \
          {                                                                                        \
            memcpy (&v0, x + i, sizeof v0);                                                        \
            memcpy (&v1, x + i + W, sizeof v1);                                                    \
            memcpy (&v2, x + i + 2 * W, sizeof v2);                                                \
            memcpy (&v3, x + i + 3 * W, sizeof v3);                                                \
            a0 += v0;                                                                              \
            a1 += v1;                                                                              \
            a2 += v2;                                                                              \
            a3 += v3;                                                                              \
          }                                                                                        \
        if (i + 2 * W <= end)                                                                      \
          {                                                                                        \
            memcpy (&v0, x + i, sizeof v0);                                                        \
            memcpy (&v1, x + i + W, sizeof v1);                                                    \
            a0 += v0;                                                                              \
            a1 += v1;                                                                              \
            i += 2 * W;                                                                            \
          }                                                                                        \
        if (i + W <= end)                                                                          \
          {                                                                                        \
            memcpy (&v2, x + i, sizeof v2);                                                        \
            a2 += v2;                                                                              \
            i += W;                                                                                \
          }                                                                                        \
        if (i < end)                                                                               \
          {                                                                                        \
            a3 += PART (x + i, end - i);                                                           \
            i = end;                                                                               \
          }                                                                                        \
        v0 = (a0 + a1) + (a2 + a3);                                                                \
        d0 += LO (v0);                                                                             \
        d1 += HI (v0);                                                                             \
      }                                                                                            \
    d0 += d1;                                                                                      \
    return PAIRWISE_SUM (d0, W / 2);                                                               \
  }

/* The sums of two rows of n floats (n at most one of DEFINE_SUM_F32's
 * blocks: 32 steps of four vectors), each with the bits of its single-row
 * sibling: the same steps for both rows, interleaved, so that the chain
 * of one row's final folds runs beside the other's (rows of a few hundred
 * floats are mostly that chain). */
#define DEFINE_SUM2_F32(NAME, TARGET, VF, VDH, LO, HI, PART)                                       \
  TARGET static void NAME (const float *restrict x, const float *restrict y, gint64 n,             \
                           gdouble *sx, gdouble *sy)                                               \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VF) / sizeof (float),                                                            \
      STEP = 4 * W                                                                                 \
    };                                                                                             \
    VDH dx0 = { 0 }, dx1 = { 0 }, dy0 = { 0 }, dy1 = { 0 };                                        \
    VF a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, v0, v1, v2, v3;                             \
    VF b0 = { 0 }, b1 = { 0 }, b2 = { 0 }, b3 = { 0 };                                             \
    gint64 i = 0;                                                                                  \
                                                                                                   \
    for (; i + STEP <= n; i += STEP)                                                               \
      {                                                                                            \
        memcpy (&v0, x + i, sizeof v0);                                                            \
        memcpy (&v1, x + i + W, sizeof v1);                                                        \
        memcpy (&v2, x + i + 2 * W, sizeof v2);                                                    \
        memcpy (&v3, x + i + 3 * W, sizeof v3);                                                    \
        a0 += v0;                                                                                  \
        a1 += v1;                                                                                  \
        a2 += v2;                                                                                  \
        a3 += v3;                                                                                  \
        memcpy (&v0, y + i, sizeof v0);                                                            \
        memcpy (&v1, y + i + W, sizeof v1);                                                        \
        memcpy (&v2, y + i + 2 * W, sizeof v2);                                                    \
        memcpy (&v3, y + i + 3 * W, sizeof v3);                                                    \
        b0 += v0;                                                                                  \
        b1 += v1;                                                                                  \
        b2 += v2;                                                                                  \
        b3 += v3;                                                                                  \
      }                                                                                            \
    if (i + 2 * W <= n)                                                                            \
      {                                                                                            \
        memcpy (&v0, x + i, sizeof v0);                                                            \
        memcpy (&v1, x + i + W, sizeof v1);                                                        \
        memcpy (&v2, y + i, sizeof v2);                                                            \
        memcpy (&v3, y + i + W, sizeof v3);                                                        \
        a0 += v0;                                                                                  \
        a1 += v1;                                                                                  \
        b0 += v2;                                                                                  \
        b1 += v3;                                                                                  \
        i += 2 * W;                                                                                \
      }                                                                                            \
    if (i + W <= n)                                                                                \
      {                                                                                            \
        memcpy (&v2, x + i, sizeof v2);                                                            \
        memcpy (&v3, y + i, sizeof v3);                                                            \
        a2 += v2;                                                                                  \
        b2 += v3;                                                                                  \
        i += W;                                                                                    \
      }                                                                                            \
    if (i < n)                                                                                     \
      {                                                                                            \
        a3 += PART (x + i, n - i);                                                                 \
        b3 += PART (y + i, n - i);                                                                 \
      }                                                                                            \
    v0 = (a0 + a1) + (a2 + a3);                                                                    \
    v1 = (b0 + b1) + (b2 + b3);                                                                    \
    dx0 += LO (v0);                                                                                \
    dx1 += HI (v0);                                                                                \
    dy0 += LO (v1);                                                                                \
    dy1 += HI (v1);                                                                                \
    dx0 += dx1;                                                                                    \
    dy0 += dy1;                                                                                    \
    *sx = PAIRWISE_SUM (dx0, W / 2);                                                               \
    *sy = PAIRWISE_SUM (dy0, W / 2);                                                               \
  }

/* The sum (OP +, ONE 0) or the product (OP *, ONE 1) of a contiguous
 * float64 run (VD, VI: its double and int64 vectors), four vectors a step,
 * the tail through a masked load whose empty lanes are set to ONE. */
#define DEFINE_FOLD_F64(NAME, TARGET, VD, VI, PART, OP, ONE)                                       \
  TARGET static gdouble NAME (const double *restrict x, gint64 n)                                  \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VD) / sizeof (double)                                                            \
    };                                                                                             \
    VD a0, a1, a2, a3, one, v0, v1, v2, v3;                                                        \
    VI iota;                                                                                       \
    double lanes[W], r = ONE;                                                                      \
    gint64 i = 0;                                                                                  \
                                                                                                   \
    VFILL (one, ONE);                                                                              \
    VFILL (iota, j_);                                                                              \
    a0 = a1 = a2 = a3 = one;                                                                       \
    for (; i + 4 * W <= n; i += 4 * W)                                                             \
      {                                                                                            \
        memcpy (&v0, x + i, sizeof v0);                                                            \
        memcpy (&v1, x + i + W, sizeof v1);                                                        \
        memcpy (&v2, x + i + 2 * W, sizeof v2);                                                    \
        memcpy (&v3, x + i + 3 * W, sizeof v3);                                                    \
        a0 = a0 OP v0;                                                                             \
        a1 = a1 OP v1;                                                                             \
        a2 = a2 OP v2;                                                                             \
        a3 = a3 OP v3;                                                                             \
      }                                                                                            \
    for (; i + W <= n; i += W)                                                                     \
      {                                                                                            \
        memcpy (&v0, x + i, sizeof v0);                                                            \
        a0 = a0 OP v0;                                                                             \
      }                                                                                            \
    if (i < n)                                                                                     \
      a1 = a1 OP VSELECT (VI, iota < (n - i), PART (x + i, n - i), one);                           \
    a0 = a0 OP a1;                                                                                 \
    a2 = a2 OP a3;                                                                                 \
    a0 = a0 OP a2;                                                                                 \
    memcpy (lanes, &a0, sizeof lanes);                                                             \
    for (gint j = 0; j < W; j++)                                                                   \
      r = r OP lanes[j];                                                                           \
    return r;                                                                                      \
  }

/* The product of a contiguous float32 run in double lanes (VDH: half VF's
 * lanes, LO and HI its halves), two vectors a step, the tail's empty lanes
 * set to 1. */
#define DEFINE_PROD_F32(NAME, TARGET, VF, VDH, VI, LO, HI, PART)                                   \
  TARGET static gdouble NAME (const float *restrict x, gint64 n)                                   \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VF) / sizeof (float)                                                             \
    };                                                                                             \
    VDH a0, a1, a2, a3;                                                                            \
    VF one, v0, v1;                                                                                \
    VI iota;                                                                                       \
    double lanes[W / 2], r = 1;                                                                    \
    gint64 i = 0;                                                                                  \
                                                                                                   \
    VFILL (one, 1);                                                                                \
    VFILL (iota, j_);                                                                              \
    a0 = a1 = a2 = a3 = LO (one);                                                                  \
    for (; i + 2 * W <= n; i += 2 * W)                                                             \
      {                                                                                            \
        memcpy (&v0, x + i, sizeof v0);                                                            \
        memcpy (&v1, x + i + W, sizeof v1);                                                        \
        a0 *= LO (v0);                                                                             \
        a1 *= HI (v0);                                                                             \
        a2 *= LO (v1);                                                                             \
        a3 *= HI (v1);                                                                             \
      }                                                                                            \
    if (i + W <= n)                                                                                \
      {                                                                                            \
        memcpy (&v0, x + i, sizeof v0);                                                            \
        a0 *= LO (v0);                                                                             \
        a1 *= HI (v0);                                                                             \
        i += W;                                                                                    \
      }                                                                                            \
    if (i < n)                                                                                     \
      {                                                                                            \
        v1 = VSELECT (VI, iota < (gint32)(n - i), PART (x + i, n - i), one);                       \
        a2 *= LO (v1);                                                                             \
        a3 *= HI (v1);                                                                             \
      }                                                                                            \
    a0 = (a0 * a1) * (a2 * a3);                                                                    \
    memcpy (lanes, &a0, sizeof lanes);                                                             \
    for (gint j = 0; j < W / 2; j++)                                                               \
      r *= lanes[j];                                                                               \
    return r;                                                                                      \
  }

/* max (BETTER GT, PICK the level's vector max) or min (LT, vector min) of
 * a contiguous run of T with, if asked, the index of its first occurrence;
 * the first NaN wins. Each lane keeps its best value and, with the index,
 * the position where it took it (strictly better values only, so the
 * first of equal ones), in two sets of lanes for even and odd vectors;
 * the lanes are folded by halves at the end, equal values by position. The
 * index lanes are as wide as T (int32 for float: runs shorter than
 * 2^31 - 64; longer ones find the index in a second pass). NaN is flagged
 * on the side and found again by a scalar pass: neither the blend nor the
 * vector max or min (which give their second operand) ever takes it. */
#define DEFINE_EXTREMUM(NAME, TARGET, T, VT, VI, PART, BETTER, PICK, ANY, TREE)                    \
  TARGET static Acc NAME (const T *restrict x, gint64 n, gboolean want_index)                      \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VT) / sizeof (T)                                                                 \
    };                                                                                             \
    typedef __typeof__ (((VI){ 0 })[0]) I;                                                         \
    VT a0, a1, a2, a3, v0, v1, v2, v3;                                                             \
    VI nan = { 0 }, i0 = { 0 }, i1 = { 0 }, cur, iota;                                             \
    gboolean lane_index = want_index && n < G_MAXINT32 - 4 * W;                                    \
    gint64 i = 0, bi;                                                                              \
                                                                                                   \
    VFILL (a0, x[0]);                                                                              \
    VFILL (iota, j_);                                                                              \
    a1 = a2 = a3 = a0;                                                                             \
    cur = iota;                                                                                    \
    if (lane_index)                                                                                \
      {                                                                                            \
        for (; i + 2 * W <= n; i += 2 * W, cur += 2 * W)                                           \
          {                                                                                        \
            VI t0, t1;                                                                             \
            memcpy (&v0, x + i, sizeof v0);                                                        \
            memcpy (&v1, x + i + W, sizeof v1);                                                    \
            t0 = (VI)BETTER (v0, a0);                                                              \
            t1 = (VI)BETTER (v1, a1);                                                              \
            nan |= (VI)(v0 != v0) | (VI)(v1 != v1);                                                \
            a0 = VSELECT (VI, t0, v0, a0);                                                         \
            a1 = VSELECT (VI, t1, v1, a1);                                                         \
            i0 = VSELECT (VI, t0, cur, i0);                                                        \
            i1 = VSELECT (VI, t1, cur + W, i1);                                                    \
          }                                                                                        \
        /* the odd vectors' lanes into the even ones', ties to the earlier */                      \
        {                                                                                          \
          VI t = (VI)BETTER (a1, a0) | ((VI)(a1 == a0) & (i1 < i0));                               \
          a0 = VSELECT (VI, t, a1, a0);                                                            \
          i0 = VSELECT (VI, t, i1, i0);                                                            \
        }                                                                                          \
        if (i + W <= n)                                                                            \
          {                                                                                        \
            VI t0;                                                                                 \
            memcpy (&v0, x + i, sizeof v0);                                                        \
            t0 = (VI)BETTER (v0, a0);                                                              \
            nan |= (VI)(v0 != v0);                                                                 \
            a0 = VSELECT (VI, t0, v0, a0);                                                         \
            i0 = VSELECT (VI, t0, cur, i0);                                                        \
            i += W;                                                                                \
            cur += W;                                                                              \
          }                                                                                        \
      }                                                                                            \
    else                                                                                           \
      {                                                                                            \
        for (; i + 4 * W <= n; i += 4 * W)                                                         \
          {                                                                                        \
            memcpy (&v0, x + i, sizeof v0);                                                        \
            memcpy (&v1, x + i + W, sizeof v1);                                                    \
            memcpy (&v2, x + i + 2 * W, sizeof v2);                                                \
            memcpy (&v3, x + i + 3 * W, sizeof v3);                                                \
            nan |= ((VI)(v0 != v0) | (VI)(v1 != v1)) | ((VI)(v2 != v2) | (VI)(v3 != v3));          \
            a0 = PICK (v0, a0);                                                                    \
            a1 = PICK (v1, a1);                                                                    \
            a2 = PICK (v2, a2);                                                                    \
            a3 = PICK (v3, a3);                                                                    \
          }                                                                                        \
        a0 = PICK (PICK (a1, a0), PICK (a3, a2));                                                  \
        for (; i + W <= n; i += W)                                                                 \
          {                                                                                        \
            memcpy (&v0, x + i, sizeof v0);                                                        \
            nan |= (VI)(v0 != v0);                                                                 \
            a0 = PICK (v0, a0);                                                                    \
          }                                                                                        \
      }                                                                                            \
    if (i < n)                                                                                     \
      {                                                                                            \
        VI t0;                                                                                     \
        /* the empty lanes repeat a0: never better, never NaN unless x[0] is */                    \
        v0 = VSELECT (VI, iota < (I)(n - i), PART (x + i, n - i), a0);                             \
        t0 = (VI)BETTER (v0, a0);                                                                  \
        nan |= (VI)(v0 != v0);                                                                     \
        a0 = VSELECT (VI, t0, v0, a0);                                                             \
        i0 = VSELECT (VI, t0, cur, i0);                                                            \
      }                                                                                            \
    if (ANY (nan))                                                                                 \
      for (i = 0; i < n; i++)                                                                      \
        if (x[i] != x[i])                                                                          \
          return (Acc){ .f = x[i], .index = i };                                                   \
    TREE (VT, VI, W, BETTER, PICK, a0, i0, iota, lane_index);                                      \
    bi = i0[0];                                                                                    \
    if (want_index && !lane_index)                                                                 \
      for (bi = 0; x[bi] != a0[0]; bi++)                                                           \
        ;                                                                                          \
    return (Acc){ .f = a0[0], .index = want_index ? bi : 0 };                                      \
  }

/* Folds the W lanes of a0 (with their positions i0 when lane_index) into
 * lane 0: the better value, of equal ones the earlier position. By halves,
 * with vector shuffles (GCC's __builtin_shuffle) at the wider levels, in
 * scalars for the SSE level's few lanes. */
#define TREE_SHUFFLE(VT, VI, W, BETTER, PICK, a0, i0, iota, lane_index)                            \
  _Pragma ("GCC unroll 8") for (gint h = W / 2; h > 0; h /= 2)                                     \
  {                                                                                                \
    VI m_ = (iota + h) & (W - 1);                                                                  \
    VT b_ = __builtin_shuffle (a0, m_);                                                            \
    if (lane_index)                                                                                \
      {                                                                                            \
        VI bi_ = __builtin_shuffle (i0, m_);                                                       \
        VI t_ = (VI)BETTER (b_, a0) | ((VI)(b_ == a0) & (bi_ < i0));                               \
        a0 = VSELECT (VI, t_, b_, a0);                                                             \
        i0 = VSELECT (VI, t_, bi_, i0);                                                            \
      }                                                                                            \
    else                                                                                           \
      a0 = PICK (b_, a0);                                                                          \
  }

#define TREE_SCALAR(VT, VI, W, BETTER, PICK, a0, i0, iota, lane_index)                             \
  for (gint h = 1; h < W; h++)                                                                     \
    if (BETTER (a0[h], a0[0]) || (lane_index && a0[h] == a0[0] && i0[h] < i0[0]))                  \
      {                                                                                            \
        a0[0] = a0[h];                                                                             \
        i0[0] = i0[h];                                                                             \
      }

/* whether an integer vector (a comparison's mask) has a lane set */
static inline gboolean
any_v4si (v4si v)
{
  return (v[0] | v[1] | v[2] | v[3]) != 0;
}

static inline gboolean
any_v2di (v2di v)
{
  return (v[0] | v[1]) != 0;
}

#ifdef DL_CPU_ISA_LEVELS
DL_CPU_TARGET_V3 static inline gboolean
any_v8si (v8si v)
{
  return !_mm256_testz_si256 ((__m256i)v, (__m256i)v);
}

DL_CPU_TARGET_V3 static inline gboolean
any_v4di (v4di v)
{
  return !_mm256_testz_si256 ((__m256i)v, (__m256i)v);
}

#endif

/* The vector max and min of each level: x86's, which give the second
 * operand when the first is not greater (smaller), NaN included. */
#ifdef __SSE2__
#define DEFINE_PICKS(SFX, TARGET, VT, M, MAX, MIN)                                                 \
  TARGET static inline VT vmax_##SFX (VT a, VT b)                                                  \
  {                                                                                                \
    return (VT)MAX ((M)a, (M)b);                                                                   \
  }                                                                                                \
  TARGET static inline VT vmin_##SFX (VT a, VT b)                                                  \
  {                                                                                                \
    return (VT)MIN ((M)a, (M)b);                                                                   \
  }
DEFINE_PICKS (f32_v4, , dl_v4sf, __m128, _mm_max_ps, _mm_min_ps)
DEFINE_PICKS (f64_v2, , v2df, __m128d, _mm_max_pd, _mm_min_pd)
#else
#define vmax_f32_v4(a, b) VSELECT (v4si, (a) > (b), a, b)
#define vmin_f32_v4(a, b) VSELECT (v4si, (a) < (b), a, b)
#define vmax_f64_v2(a, b) VSELECT (v2di, (a) > (b), a, b)
#define vmin_f64_v2(a, b) VSELECT (v2di, (a) < (b), a, b)
#endif
#ifdef DL_CPU_ISA_LEVELS
DEFINE_PICKS (f32_v8, DL_CPU_TARGET_V3, dl_v8sf, __m256, _mm256_max_ps, _mm256_min_ps)
DEFINE_PICKS (f64_v4, DL_CPU_TARGET_V3, dl_v4df, __m256d, _mm256_max_pd, _mm256_min_pd)
#endif

/* Column kernels: rows[0 .. nr) (nr <= COL_FLUSH) point at w lanes each;
 * every chunk of lanes is held in registers over all the rows, then
 * folded into the tile's lanes once. The last partial chunk loads through
 * the masked load and folds lane by lane. */
#define COL_CHUNKS(W, w, ...)                                                                      \
  for (gint64 j = 0; j < (w); j += (W))                                                            \
    {                                                                                              \
      gint64 k = MIN ((W), (w)-j);                                                                 \
      __VA_ARGS__                                                                                  \
    }

/* load W lanes at p, or the first k through the masked load */
#define COL_LOAD(v, p, k, W, PART)                                                                 \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if ((k) == (W))                                                                                \
      memcpy (&(v), (p), sizeof (v));                                                              \
    else                                                                                           \
      (v) = PART ((p), (k));                                                                       \
  }                                                                                                \
  G_STMT_END

/* lanes j .. j + k - 1 of the double array d, OP= the vector's lanes */
#define COL_FOLD_D(d, j, k, VD, v, OP)                                                             \
  G_STMT_START                                                                                     \
  {                                                                                                \
    double l_[sizeof (VD) / sizeof (double)];                                                      \
    VD v_ = (v), t_;                                                                               \
    if ((k) == sizeof (VD) / sizeof (double))                                                      \
      {                                                                                            \
        memcpy (&t_, (d) + (j), sizeof t_);                                                        \
        t_ OP v_;                                                                                  \
        memcpy ((d) + (j), &t_, sizeof t_);                                                        \
      }                                                                                            \
    else                                                                                           \
      {                                                                                            \
        memcpy (l_, &v_, sizeof l_);                                                               \
        for (gint64 q_ = 0; q_ < (k); q_++)                                                        \
          (d)[(j) + q_] OP l_[q_];                                                                 \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

/* float32 sums: float lanes over the rows (at most COL_FLUSH), into the
 * tile's double lanes; two vectors a chunk */
#define DEFINE_COL_SUM_F32(NAME, TARGET, VF, VDH, LO, HI, PART)                                    \
  TARGET static void NAME (const char *const *rows, gint64 nr, gint64 w, double *restrict d)       \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VF) / sizeof (float),                                                            \
      H = W / 2                                                                                    \
    };                                                                                             \
    COL_CHUNKS (2 * W, w, {                                                                        \
      VF a0 = { 0 }, a1 = { 0 }, v0, v1;                                                           \
      if (k == 2 * W)                                                                              \
        for (gint64 r = 0; r < nr; r++)                                                            \
          {                                                                                        \
            memcpy (&v0, (const float *)rows[r] + j, sizeof v0);                                   \
            memcpy (&v1, (const float *)rows[r] + j + W, sizeof v1);                               \
            a0 += v0;                                                                              \
            a1 += v1;                                                                              \
          }                                                                                        \
      else                                                                                         \
        for (gint64 r = 0; r < nr; r++)                                                            \
          {                                                                                        \
            COL_LOAD (v0, (const float *)rows[r] + j, MIN (k, W), W, PART);                        \
            a0 += v0;                                                                              \
            if (k > W)                                                                             \
              {                                                                                    \
                v1 = PART ((const float *)rows[r] + j + W, k - W);                                 \
                a1 += v1;                                                                          \
              }                                                                                    \
          }                                                                                        \
      COL_FOLD_D (d, j, MIN (k, H), VDH, LO (a0), +=);                                             \
      COL_FOLD_D (d, j + H, MIN (k, W) - H, VDH, HI (a0), +=);                                     \
      COL_FOLD_D (d, j + W, MIN (MAX (k - W, 0), H), VDH, LO (a1), +=);                            \
      COL_FOLD_D (d, j + W + H, k - W - H, VDH, HI (a1), +=);                                      \
    })                                                                                             \
  }

/* float32 products in double lanes, one vector (two double ones) a chunk */
#define DEFINE_COL_PROD_F32(NAME, TARGET, VF, VDH, LO, HI, PART)                                   \
  TARGET static void NAME (const char *const *rows, gint64 nr, gint64 w, double *restrict d)       \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VF) / sizeof (float),                                                            \
      H = W / 2                                                                                    \
    };                                                                                             \
    COL_CHUNKS (W, w, {                                                                            \
      VF v0, one;                                                                                  \
      VDH a0, a1;                                                                                  \
      VFILL (one, 1);                                                                              \
      a0 = a1 = LO (one);                                                                          \
      for (gint64 r = 0; r < nr; r++)                                                              \
        {                                                                                          \
          COL_LOAD (v0, (const float *)rows[r] + j, k, W, PART);                                   \
          a0 *= LO (v0);                                                                           \
          a1 *= HI (v0);                                                                           \
        }                                                                                          \
      COL_FOLD_D (d, j, MIN (k, H), VDH, a0, *=);                                                  \
      COL_FOLD_D (d, j + H, k - H, VDH, a1, *=);                                                   \
    })                                                                                             \
  }

/* float64 sums (OP +) or products (OP *), two vectors a chunk */
#define DEFINE_COL_FOLD_F64(NAME, TARGET, VD, PART, OP, ONE)                                       \
  TARGET static void NAME (const char *const *rows, gint64 nr, gint64 w, double *restrict d)       \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VD) / sizeof (double)                                                            \
    };                                                                                             \
    COL_CHUNKS (2 * W, w, {                                                                        \
      VD a0, a1, v0, v1;                                                                           \
      VFILL (a0, ONE);                                                                             \
      a1 = a0;                                                                                     \
      for (gint64 r = 0; r < nr; r++)                                                              \
        {                                                                                          \
          COL_LOAD (v0, (const double *)rows[r] + j, MIN (k, W), W, PART);                         \
          a0 = a0 OP v0;                                                                           \
          if (k > W)                                                                               \
            {                                                                                      \
              COL_LOAD (v1, (const double *)rows[r] + j + W, k - W, W, PART);                      \
              a1 = a1 OP v1;                                                                       \
            }                                                                                      \
        }                                                                                          \
      COL_FOLD_D (d, j, MIN (k, W), VD, a0, OP## =);                                               \
      COL_FOLD_D (d, j + W, k - W, VD, a1, OP## =);                                                \
    })                                                                                             \
  }

/* max or min (PICK) without the index into the tile's values acc: a lane
 * that saw a NaN ends NaN */
#define DEFINE_COL_PICK(NAME, TARGET, T, VT, VI, PART, PICK)                                       \
  TARGET static void NAME (const char *const *rows, gint64 nr, gint64 w, T *restrict acc)          \
  {                                                                                                \
    enum                                                                                           \
    {                                                                                              \
      W = sizeof (VT) / sizeof (T)                                                                 \
    };                                                                                             \
    COL_CHUNKS (W, w, {                                                                            \
      T l[W] = { 0 };                                                                              \
      VT a0, v0, nanv;                                                                             \
      VI nan;                                                                                      \
      if (k == W)                                                                                  \
        memcpy (&a0, acc + j, sizeof a0);                                                          \
      else                                                                                         \
        {                                                                                          \
          memcpy (l, acc + j, k * sizeof (T));                                                     \
          memcpy (&a0, l, sizeof a0);                                                              \
        }                                                                                          \
      nan = (VI)(a0 != a0);                                                                        \
      for (gint64 r = 0; r < nr; r++)                                                              \
        {                                                                                          \
          COL_LOAD (v0, (const T *)rows[r] + j, k, W, PART);                                       \
          nan |= (VI)(v0 != v0);                                                                   \
          a0 = PICK (v0, a0);                                                                      \
        }                                                                                          \
      VFILL (nanv, NAN);                                                                           \
      a0 = VSELECT (VI, nan, nanv, a0);                                                            \
      if (k == W)                                                                                  \
        memcpy (acc + j, &a0, sizeof a0);                                                          \
      else                                                                                         \
        {                                                                                          \
          memcpy (l, &a0, sizeof l);                                                               \
          memcpy (acc + j, l, k * sizeof (T));                                                     \
        }                                                                                          \
    })                                                                                             \
  }

/* The run kernels of one ISA level. */

/* SFX names the level (its float vector's lanes); VF, VI: its float and
 * int32 vectors, VDH the double vector of half their lanes, LO and HI a
 * VF's halves as VDH, PF the partial load; VD, VL: its double and int64
 * vectors, PD their partial load, DSFX their lanes. */
#define DEFINE_LEVEL(SFX, TARGET, VF, VI, VDH, LO, HI, PF, VD, VL, PD, DSFX, TREE, SUMF)           \
  DEFINE_SUM_F32 (sum_f32_##SFX, TARGET, VF, VDH, LO, HI, PF)                                      \
  DEFINE_SUM2_F32 (sum2_f32_##SFX, TARGET, VF, VDH, LO, HI, PF)                                    \
  DEFINE_FOLD_F64 (sum_f64_##SFX, TARGET, VD, VL, PD, +, 0)                                        \
  DEFINE_PROD_F32 (prod_f32_##SFX, TARGET, VF, VDH, VI, LO, HI, PF)                                \
  DEFINE_FOLD_F64 (prod_f64_##SFX, TARGET, VD, VL, PD, *, 1)                                       \
  DEFINE_EXTREMUM (max_f32_##SFX, TARGET, float, VF, VI, PF, GT, vmax_f32_##SFX, any_##VI, TREE)   \
  DEFINE_EXTREMUM (min_f32_##SFX, TARGET, float, VF, VI, PF, LT, vmin_f32_##SFX, any_##VI, TREE)   \
  DEFINE_EXTREMUM (max_f64_##SFX, TARGET, double, VD, VL, PD, GT, vmax_f64_##DSFX, any_##VL, TREE) \
  DEFINE_EXTREMUM (min_f64_##SFX, TARGET, double, VD, VL, PD, LT, vmin_f64_##DSFX, any_##VL, TREE) \
  DEFINE_COL_SUM_F32 (col_sum_f32_##SFX, TARGET, VF, VDH, LO, HI, PF)                              \
  DEFINE_COL_PROD_F32 (col_prod_f32_##SFX, TARGET, VF, VDH, LO, HI, PF)                            \
  DEFINE_COL_FOLD_F64 (col_sum_f64_##SFX, TARGET, VD, PD, +, 0)                                    \
  DEFINE_COL_FOLD_F64 (col_prod_f64_##SFX, TARGET, VD, PD, *, 1)                                   \
  DEFINE_COL_PICK (col_max_f32_##SFX, TARGET, float, VF, VI, PF, vmax_f32_##SFX)                   \
  DEFINE_COL_PICK (col_min_f32_##SFX, TARGET, float, VF, VI, PF, vmin_f32_##SFX)                   \
  DEFINE_COL_PICK (col_max_f64_##SFX, TARGET, double, VD, VL, PD, vmax_f64_##DSFX)                 \
  DEFINE_COL_PICK (col_min_f64_##SFX, TARGET, double, VD, VL, PD, vmin_f64_##DSFX)                 \
  static const RunKernels kernels_##SFX = {                                                        \
    SUMF,                                                                                          \
    sum2_f32_##SFX,                                                                                \
    sum_f64_##SFX,                                                                                 \
    prod_f32_##SFX,                                                                                \
    prod_f64_##SFX,                                                                                \
    max_f32_##SFX,                                                                                 \
    min_f32_##SFX,                                                                                 \
    max_f64_##SFX,                                                                                 \
    min_f64_##SFX,                                                                                 \
    col_sum_f32_##SFX,                                                                             \
    col_prod_f32_##SFX,                                                                            \
    col_sum_f64_##SFX,                                                                             \
    col_prod_f64_##SFX,                                                                            \
    col_max_f32_##SFX,                                                                             \
    col_min_f32_##SFX,                                                                             \
    col_max_f64_##SFX,                                                                             \
    col_min_f64_##SFX,                                                                             \
  };

DEFINE_LEVEL (v4,
              DL_CPU_TARGET_BASELINE,
              dl_v4sf,
              v4si,
              v2df,
              lo_v4,
              hi_v4,
              part_f32_v4,
              v2df,
              v2di,
              part_f64_v2,
              v2,
              TREE_SCALAR,
              sum_f32_v4)
#ifdef DL_CPU_ISA_LEVELS
static gdouble sum_f32_v8_any (const float *x, gint64 n);

DEFINE_LEVEL (v8,
              DL_CPU_TARGET_V3,
              dl_v8sf,
              v8si,
              dl_v4df,
              lo_v8,
              hi_v8,
              part_f32_v8,
              dl_v4df,
              v4di,
              part_f64_v4,
              v4,
              TREE_SHUFFLE,
              sum_f32_v8_any)

/* the shortest run sum_f32_v8_any takes through the grid */
#define SUM_GRID_MIN 256

/* lanes [lo, hi) of the aligned 8-float vector at @p, 0 elsewhere, reading
 * only those lanes */
DL_CPU_TARGET_V3 static inline dl_v8sf
lanes_f32_v8 (const float *p, gint lo, gint hi)
{
  const v8si iota = { 0, 1, 2, 3, 4, 5, 6, 7 };

  return (dl_v8sf)_mm256_maskload_ps (p, (__m256i)((iota >= lo) & (iota < hi)));
}

/* sum_f32_v8 of a run that starts off a 32-byte boundary (r floats past
 * one), with every load on one: vector t of the aligned grid holds the
 * run's elements 8t - r .. 8t - r + 7, so that accumulating the grid's
 * vectors as sum_f32_v8 accumulates the run's puts each of its 32 lane
 * sums of a block in another place, rotated by r, with the same elements
 * added in the same order. Each block's lanes are rotated back before
 * they are combined, so the result has sum_f32_v8's bits (which
 * test_sum_from_every_alignment checks) without its loads that span two
 * cache lines. The vectors at a block's two ends are loaded with the
 * lanes of the block only. */
DL_CPU_TARGET_V3 static gdouble
sum_f32_v8_grid (const float *x, gint64 n)
{
  enum
  {
    W = 8,
    BLOCK = 32 * 4 * W /* sum_f32_v8's blocks */
  };
  const gint r = (gint)(((guintptr)x % 32) / sizeof (float));
  const float *g = x - r; /* the grid: vector t at g + 8t */
  const v8si iota = { 0, 1, 2, 3, 4, 5, 6, 7 };
  /* lane j of a rotated vector is lane j + r (mod 8); lanes from 8 - r
   * on come from the next vector */
  const __m256i rot = (__m256i)((iota + r) & 7);
  const __m256 next = (__m256)(iota >= W - r);
  dl_v4df d0 = { 0 }, d1 = { 0 };

  for (gint64 p0 = 0; p0 < n; p0 += BLOCK)
    {
      gint64 end = MIN (n, p0 + BLOCK), i;
      /* the grid takes the block's whole steps of 4 vectors; the last
       * block's tail is added as sum_f32_v8 adds it, after the rotation */
      gint64 p1 = p0 + (end - p0) / (4 * W) * (4 * W);
      gint64 t0 = (p0 + r) / W, t1 = (p1 - 1 + r) / W, t;
      dl_v8sf a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, v0, v1, v2, v3;

      /* vector t0 is on a block's start (a multiple of 4: a0), and t1,
       * 4 whole steps later, its end; between them 4 k - 1 full vectors */
      if (p1 > p0)
        {
          /* added to zeros as sum_f32_v8 does (-0 + 0 is 0) */
          a0 += lanes_f32_v8 (g + W * t0, r, W);
          memcpy (&v1, g + W * (t0 + 1), sizeof v1);
          memcpy (&v2, g + W * (t0 + 2), sizeof v2);
          memcpy (&v3, g + W * (t0 + 3), sizeof v3);
          a1 += v1;
          a2 += v2;
          a3 += v3;
          for (t = t0 + 4; t < t1; t += 4)
            {
              memcpy (&v0, g + W * t, sizeof v0);
              memcpy (&v1, g + W * t + W, sizeof v1);
              memcpy (&v2, g + W * t + 2 * W, sizeof v2);
              memcpy (&v3, g + W * t + 3 * W, sizeof v3);
              a0 += v0;
              a1 += v1;
              a2 += v2;
              a3 += v3;
            }
          a0 += lanes_f32_v8 (g + W * t1, 0, r);
        }
      /* the block's lane sums back in sum_f32_v8's places: its lane c of
       * the four vectors as one row of 32 is this one's c + r */
      {
        __m256 r0 = _mm256_permutevar8x32_ps ((__m256)a0, rot);
        __m256 r1 = _mm256_permutevar8x32_ps ((__m256)a1, rot);
        __m256 r2 = _mm256_permutevar8x32_ps ((__m256)a2, rot);
        __m256 r3 = _mm256_permutevar8x32_ps ((__m256)a3, rot);

        a0 = (dl_v8sf)_mm256_blendv_ps (r0, r1, next);
        a1 = (dl_v8sf)_mm256_blendv_ps (r1, r2, next);
        a2 = (dl_v8sf)_mm256_blendv_ps (r2, r3, next);
        a3 = (dl_v8sf)_mm256_blendv_ps (r3, r0, next);
      }
      i = p1;
      if (i + 2 * W <= end)
        {
          memcpy (&v0, x + i, sizeof v0);
          memcpy (&v1, x + i + W, sizeof v1);
          a0 += v0;
          a1 += v1;
          i += 2 * W;
        }
      if (i + W <= end)
        {
          memcpy (&v2, x + i, sizeof v2);
          a2 += v2;
          i += W;
        }
      if (i < end)
        a3 += part_f32_v8 (x + i, end - i);
      v0 = (a0 + a1) + (a2 + a3);
      d0 += lo_v8 (v0);
      d1 += hi_v8 (v0);
    }
  d0 += d1;
  return PAIRWISE_SUM (d0, W / 2);
}

/* sum_f32_v8, through the aligned grid for runs off a 32-byte boundary
 * and long enough to pay for its rotation (a block's worth of lane moves
 * against a split load every other vector) */
static gdouble
sum_f32_v8_any (const float *x, gint64 n)
{
  if ((guintptr)x % 32 != 0 && (guintptr)x % sizeof (float) == 0 && n >= SUM_GRID_MIN)
    return sum_f32_v8_grid (x, n);
  return sum_f32_v8 (x, n);
}
#endif

const RunKernels *
dl_cpu_reduce_run_kernels (void)
{
#ifdef DL_CPU_ISA_LEVELS
  if (dl_cpu_isa >= DL_CPU_ISA_V3)
    return &kernels_v8;
#endif
  return &kernels_v4;
}
