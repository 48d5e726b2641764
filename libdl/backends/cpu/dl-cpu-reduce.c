/* dl-cpu-reduce.c: sum, mean, max, min, prod, all, any and nansum over a
 * set of dims.
 *
 * Reference semantics, for each outer position o:
 *   out[o] = op over inner positions i of in[o, i]
 * with indices[o] = the first position of the max/min along the (single)
 * reduced dim; a NaN wins max and min (the first NaN, with its index).
 * Sums of float32 accumulate in double; of integers and bool in int64 (the
 * ops layer gives such sums an int64 output); products of floats in double.
 *
 * Paths, by the layout the ops layer hands over (dims coalesced):
 *  - rows: each output reduces one run (one reduced dim). The outer nest
 *    is walked a line (its innermost dim) at a time with pointers, and
 *    each run goes to a kernel: per ISA level for contiguous float32 and
 *    float64 (sum, product, max and min with their index), typed loops for
 *    the integers, the scalar reference (reduce_run) for the rest;
 *  - columns: the innermost kept dim is contiguous in the input and the
 *    reduced dims are strided (a sum over dim 0): whole rows are added lane
 *    by lane into a tile of accumulators, which keeps the reads sequential.
 *    Narrow rows lie side by side in one lane row (a (R, 8) tensor summed
 *    over dim 0 is read as (R / 8, 64)) and the lanes are folded at the end;
 *  - the generic loop nest, output by output.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <omp.h>

#include "dl-cpu-private.h"
#include "dl-dtype-private.h"

#ifdef DL_CPU_ISA_LEVELS
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct
{
  gdouble f;
  gint64 i;
  gint64 index;
} Acc;

static void
store (char *p, DlDType dt, gdouble v, gint64 iv)
{
  if (dl_dtype_is_float (dt))
    dl_cpu_store_f (p, dt, v);
  else
    dl_cpu_store_i (p, dt, iv);
}

static inline gboolean
is_int_dtype (DlDType dt)
{
  return !dl_dtype_is_float (dt);
}

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
#define GT(a, b) ((a) > (b))
#define LT(a, b) ((a) < (b))

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
typedef struct
{
  gdouble (*sum_f32) (const float *x, gint64 n);
  void (*sum2_f32) (const float *x, const float *y, gint64 n, gdouble *sx, gdouble *sy);
  gdouble (*sum_f64) (const double *x, gint64 n);
  gdouble (*prod_f32) (const float *x, gint64 n);
  gdouble (*prod_f64) (const double *x, gint64 n);
  Acc (*max_f32) (const float *x, gint64 n, gboolean want_index);
  Acc (*min_f32) (const float *x, gint64 n, gboolean want_index);
  Acc (*max_f64) (const double *x, gint64 n, gboolean want_index);
  Acc (*min_f64) (const double *x, gint64 n, gboolean want_index);
  void (*col_sum_f32) (const char *const *rows, gint64 nr, gint64 w, double *d);
  void (*col_prod_f32) (const char *const *rows, gint64 nr, gint64 w, double *d);
  void (*col_sum_f64) (const char *const *rows, gint64 nr, gint64 w, double *d);
  void (*col_prod_f64) (const char *const *rows, gint64 nr, gint64 w, double *d);
  void (*col_max_f32) (const char *const *rows, gint64 nr, gint64 w, float *acc);
  void (*col_min_f32) (const char *const *rows, gint64 nr, gint64 w, float *acc);
  void (*col_max_f64) (const char *const *rows, gint64 nr, gint64 w, double *acc);
  void (*col_min_f64) (const char *const *rows, gint64 nr, gint64 w, double *acc);
} RunKernels;

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

static const RunKernels *
run_kernels (void)
{
#ifdef DL_CPU_ISA_LEVELS
  if (dl_cpu_isa >= DL_CPU_ISA_V3)
    return &kernels_v8;
#endif
  return &kernels_v4;
}

/* Rows shorter than SHORT_ROW: four rows at a time in scalar registers,
 * four chains in flight, where a vector kernel would spend most of its
 * time on its lanes. Sums and products (OP, ONE) in double, divided by
 * div for the mean; max and min (BETTER) with the first index, a NaN
 * taken over a number and never the reverse. */
enum
{
  SHORT_ROW = 16
};

#define DEFINE_SHORT_FOLD(NAME, T, OP, ONE)                                                        \
  static void NAME (const char *in, gint64 si, gint64 n, gint64 count, char *out, gint64 so,       \
                    gdouble div)                                                                   \
  {                                                                                                \
    gint64 r = 0;                                                                                  \
                                                                                                   \
    for (; r + 4 <= count; r += 4)                                                                 \
      {                                                                                            \
        const T *x0 = (const T *)(in + r * si), *x1 = (const T *)(in + (r + 1) * si);              \
        const T *x2 = (const T *)(in + (r + 2) * si), *x3 = (const T *)(in + (r + 3) * si);        \
        gdouble s0 = ONE, s1 = ONE, s2 = ONE, s3 = ONE;                                            \
                                                                                                   \
        for (gint64 j = 0; j < n; j++)                                                             \
          {                                                                                        \
            s0 = s0 OP x0[j];                                                                      \
            s1 = s1 OP x1[j];                                                                      \
            s2 = s2 OP x2[j];                                                                      \
            s3 = s3 OP x3[j];                                                                      \
          }                                                                                        \
        *(T *)(out + r * so) = s0 / div;                                                           \
        *(T *)(out + (r + 1) * so) = s1 / div;                                                     \
        *(T *)(out + (r + 2) * so) = s2 / div;                                                     \
        *(T *)(out + (r + 3) * so) = s3 / div;                                                     \
      }                                                                                            \
    for (; r < count; r++)                                                                         \
      {                                                                                            \
        const T *x0 = (const T *)(in + r * si);                                                    \
        gdouble s0 = ONE;                                                                          \
                                                                                                   \
        for (gint64 j = 0; j < n; j++)                                                             \
          s0 = s0 OP x0[j];                                                                        \
        *(T *)(out + r * so) = s0 / div;                                                           \
      }                                                                                            \
  }

#define SHORT_EXT_STEP(T, BETTER, x, b, bi, j)                                                     \
  {                                                                                                \
    T v_ = (x)[j];                                                                                 \
    gboolean t_ = BETTER (v_, b) || (v_ != v_ && b == b);                                          \
    b = t_ ? v_ : b;                                                                               \
    bi = t_ ? j : bi;                                                                              \
  }

#define DEFINE_SHORT_EXTREMUM(NAME, T, BETTER)                                                     \
  static void NAME (const char *in, gint64 si, gint64 n, gint64 count, char *out, gint64 so,       \
                    char *ix, gint64 sx)                                                           \
  {                                                                                                \
    gint64 r = 0;                                                                                  \
                                                                                                   \
    for (; r + 4 <= count; r += 4)                                                                 \
      {                                                                                            \
        const T *x0 = (const T *)(in + r * si), *x1 = (const T *)(in + (r + 1) * si);              \
        const T *x2 = (const T *)(in + (r + 2) * si), *x3 = (const T *)(in + (r + 3) * si);        \
        T b0 = x0[0], b1 = x1[0], b2 = x2[0], b3 = x3[0];                                          \
        gint64 i0 = 0, i1 = 0, i2 = 0, i3 = 0;                                                     \
                                                                                                   \
        for (gint64 j = 1; j < n; j++)                                                             \
          {                                                                                        \
            SHORT_EXT_STEP (T, BETTER, x0, b0, i0, j);                                             \
            SHORT_EXT_STEP (T, BETTER, x1, b1, i1, j);                                             \
            SHORT_EXT_STEP (T, BETTER, x2, b2, i2, j);                                             \
            SHORT_EXT_STEP (T, BETTER, x3, b3, i3, j);                                             \
          }                                                                                        \
        *(T *)(out + r * so) = b0;                                                                 \
        *(T *)(out + (r + 1) * so) = b1;                                                           \
        *(T *)(out + (r + 2) * so) = b2;                                                           \
        *(T *)(out + (r + 3) * so) = b3;                                                           \
        if (ix)                                                                                    \
          {                                                                                        \
            *(gint64 *)(ix + r * sx) = i0;                                                         \
            *(gint64 *)(ix + (r + 1) * sx) = i1;                                                   \
            *(gint64 *)(ix + (r + 2) * sx) = i2;                                                   \
            *(gint64 *)(ix + (r + 3) * sx) = i3;                                                   \
          }                                                                                        \
      }                                                                                            \
    for (; r < count; r++)                                                                         \
      {                                                                                            \
        const T *x0 = (const T *)(in + r * si);                                                    \
        T b0 = x0[0];                                                                              \
        gint64 i0 = 0;                                                                             \
                                                                                                   \
        for (gint64 j = 1; j < n; j++)                                                             \
          SHORT_EXT_STEP (T, BETTER, x0, b0, i0, j);                                               \
        *(T *)(out + r * so) = b0;                                                                 \
        if (ix)                                                                                    \
          *(gint64 *)(ix + r * sx) = i0;                                                           \
      }                                                                                            \
  }

DEFINE_SHORT_FOLD (short_sum_f32, float, +, 0)
DEFINE_SHORT_FOLD (short_sum_f64, double, +, 0)
DEFINE_SHORT_FOLD (short_prod_f32, float, *, 1)
DEFINE_SHORT_FOLD (short_prod_f64, double, *, 1)
DEFINE_SHORT_EXTREMUM (short_max_f32, float, GT)
DEFINE_SHORT_EXTREMUM (short_min_f32, float, LT)
DEFINE_SHORT_EXTREMUM (short_max_f64, double, GT)
DEFINE_SHORT_EXTREMUM (short_min_f64, double, LT)

/* a + b in int64, wrapping around on overflow (as PyTorch's integer sums
 * do) without signed overflow's undefined behaviour */
static inline gint64
wrap_add (gint64 a, gint64 b)
{
  return (gint64)((guint64)a + (guint64)b);
}

/* Contiguous integer runs: sums in int64, max and min with the index
 * found in a second pass (GCC vectorises both loops). */
#define DEFINE_INT_RUNS(T, TN)                                                                     \
  DL_CPU_CLONES static gint64 sum_##TN (const T *restrict x, gint64 n)                             \
  {                                                                                                \
    guint64 s = 0; /* wraps around as PyTorch's sums do, with defined arithmetic */             \
    for (gint64 i = 0; i < n; i++)                                                                 \
      s += (guint64)x[i];                                                                          \
    return (gint64)s;                                                                              \
  }                                                                                                \
  DL_CPU_CLONES static Acc extremum_##TN (const T *restrict x, gint64 n, gboolean is_max,          \
                                          gboolean want_index)                                     \
  {                                                                                                \
    T m = x[0];                                                                                    \
    gint64 bi = 0;                                                                                 \
    if (is_max)                                                                                    \
      for (gint64 i = 1; i < n; i++)                                                               \
        m = x[i] > m ? x[i] : m;                                                                   \
    else                                                                                           \
      for (gint64 i = 1; i < n; i++)                                                               \
        m = x[i] < m ? x[i] : m;                                                                   \
    if (want_index)                                                                                \
      for (; x[bi] != m; bi++)                                                                     \
        ;                                                                                          \
    return (Acc){ .i = m, .index = bi };                                                           \
  }

DEFINE_INT_RUNS (gint32, i32)
DEFINE_INT_RUNS (gint64, i64)
DEFINE_INT_RUNS (guint8, u8)

/* Reduces n elements at stride s (bytes) starting at p, for the op: the
 * kernels above for contiguous runs, the scalar reference otherwise. */
static Acc
reduce_run (const RunKernels *k,
            DlReduceOp op,
            DlDType dt,
            const char *p,
            gint64 s,
            gint64 n,
            gboolean want_index)
{
  Acc a = { 0 };
  gboolean contig = (gsize)s == dl_dtype_size (dt);

  if (op == DL_REDUCE_SUM || op == DL_REDUCE_MEAN)
    {
      if (contig && dt == DL_DTYPE_FLOAT32)
        a.f = k->sum_f32 ((const float *)p, n);
      else if (contig && dt == DL_DTYPE_FLOAT64)
        a.f = k->sum_f64 ((const double *)p, n);
      else if (contig && dt == DL_DTYPE_INT32)
        a.i = sum_i32 ((const gint32 *)p, n);
      else if (contig && dt == DL_DTYPE_INT64)
        a.i = sum_i64 ((const gint64 *)p, n);
      else if (contig && (dt == DL_DTYPE_UINT8 || dt == DL_DTYPE_BOOL))
        a.i = sum_u8 ((const guint8 *)p, n);
      else if (is_int_dtype (dt))
        for (gint64 j = 0; j < n; j++)
          a.i = wrap_add (a.i, dl_cpu_load_i (p + j * s, dt));
      else
        for (gint64 j = 0; j < n; j++)
          a.f += dl_cpu_load_f (p + j * s, dt);
      return a;
    }

  if (op == DL_REDUCE_NANSUM)
    {
      if (is_int_dtype (dt))
        for (gint64 j = 0; j < n; j++)
          a.i = wrap_add (a.i, dl_cpu_load_i (p + j * s, dt));
      else
        for (gint64 j = 0; j < n; j++)
          {
            gdouble v = dl_cpu_load_f (p + j * s, dt);
            if (v == v)
              a.f += v;
          }
      return a;
    }
  if (op == DL_REDUCE_PROD)
    {
      if (contig && dt == DL_DTYPE_FLOAT32)
        a.f = k->prod_f32 ((const float *)p, n);
      else if (contig && dt == DL_DTYPE_FLOAT64)
        a.f = k->prod_f64 ((const double *)p, n);
      else if (is_int_dtype (dt))
        {
          /* wrapping, as PyTorch's int64 product */
          guint64 u = 1;
          for (gint64 j = 0; j < n; j++)
            u *= (guint64)dl_cpu_load_i (p + j * s, dt);
          a.i = (gint64)u;
        }
      else
        {
          a.f = 1;
          for (gint64 j = 0; j < n; j++)
            a.f *= dl_cpu_load_f (p + j * s, dt);
        }
      return a;
    }
  if (op == DL_REDUCE_ALL || op == DL_REDUCE_ANY)
    {
      gboolean want = op == DL_REDUCE_ANY;

      a.i = !want;
      for (gint64 j = 0; j < n; j++)
        {
          gboolean nz = is_int_dtype (dt) ? dl_cpu_load_i (p + j * s, dt) != 0
                                          : dl_cpu_load_f (p + j * s, dt) != 0;
          if (nz == want)
            {
              a.i = want;
              break;
            }
        }
      return a;
    }

  /* max / min: first index wins ties; NaN propagates (first NaN) */
  if (contig)
    switch (dt)
      {
        case DL_DTYPE_FLOAT32:
          return (op == DL_REDUCE_MAX ? k->max_f32 : k->min_f32) ((const float *)p, n, want_index);
        case DL_DTYPE_FLOAT64:
          return (op == DL_REDUCE_MAX ? k->max_f64 : k->min_f64) ((const double *)p, n, want_index);
        case DL_DTYPE_INT32:
          return extremum_i32 ((const gint32 *)p, n, op == DL_REDUCE_MAX, want_index);
        case DL_DTYPE_INT64:
          return extremum_i64 ((const gint64 *)p, n, op == DL_REDUCE_MAX, want_index);
        case DL_DTYPE_UINT8:
        case DL_DTYPE_BOOL:
          return extremum_u8 ((const guint8 *)p, n, op == DL_REDUCE_MAX, want_index);
        default:
          break;
      }
  if (is_int_dtype (dt))
    {
      a.i = dl_cpu_load_i (p, dt);
      for (gint64 j = 1; j < n; j++)
        {
          gint64 v = dl_cpu_load_i (p + j * s, dt);
          if (op == DL_REDUCE_MAX ? v > a.i : v < a.i)
            {
              a.i = v;
              a.index = j;
            }
        }
    }
  else
    {
      a.f = dl_cpu_load_f (p, dt);
      if (a.f != a.f)
        return a;
      for (gint64 j = 1; j < n; j++)
        {
          gdouble v = dl_cpu_load_f (p + j * s, dt);
          if (v != v)
            return (Acc){ .f = v, .index = j };
          if (op == DL_REDUCE_MAX ? v > a.f : v < a.f)
            {
              a.f = v;
              a.index = j;
            }
        }
    }
  return a;
}

static void
unravel (gint64 flat, gint nd, const gint64 *shape, gint64 *idx)
{
  for (gint d = nd - 1; d >= 0; d--)
    {
      idx[d] = flat % shape[d];
      flat /= shape[d];
    }
}

static gint64
offset_of (const gint64 *idx, const gint64 *strides, gint nd)
{
  gint64 off = 0;
  for (gint d = 0; d < nd; d++)
    off += idx[d] * strides[d];
  return off;
}

/* Combines partial results of the same op. */
static void
combine (DlReduceOp op, DlDType dt, Acc *into, Acc part, gint64 part_base)
{
  if (op == DL_REDUCE_SUM || op == DL_REDUCE_MEAN || op == DL_REDUCE_NANSUM)
    {
      into->f += part.f;
      into->i = wrap_add (into->i, part.i);
      return;
    }
  if (op == DL_REDUCE_PROD)
    {
      into->f *= part.f;
      into->i = (gint64)((guint64)into->i * (guint64)part.i);
      return;
    }
  if (op == DL_REDUCE_ALL)
    {
      into->i = into->i && part.i;
      return;
    }
  if (op == DL_REDUCE_ANY)
    {
      into->i = into->i || part.i;
      return;
    }
  part.index += part_base;
  if (is_int_dtype (dt))
    {
      if (op == DL_REDUCE_MAX ? part.i > into->i : part.i < into->i)
        *into = part;
    }
  else if (into->f != into->f)
    return;
  else if (part.f != part.f || (op == DL_REDUCE_MAX ? part.f > into->f : part.f < into->f))
    *into = part;
}

/* Writes one output (and its index) from its accumulator. */
static inline void
store_acc (DlReduceOp op, DlDType dt, char *out, char *ix, Acc a, gint64 n_inner)
{
  switch (op)
    {
      case DL_REDUCE_SUM:
      case DL_REDUCE_NANSUM:
      case DL_REDUCE_PROD:
        if (is_int_dtype (dt))
          *(gint64 *)out = a.i;
        else
          store (out, dt, a.f, 0);
        break;
      case DL_REDUCE_MEAN:
        store (out, dt, a.f / n_inner, 0);
        break;
      case DL_REDUCE_ALL:
      case DL_REDUCE_ANY:
        *(guint8 *)out = a.i != 0;
        break;
      default:
        store (out, dt, a.f, a.i);
        if (ix)
          *(gint64 *)ix = a.index;
        break;
    }
}

/* Reduces the full inner nest for one outer position. The inner nest is
 * walked as runs along its innermost dim. */
static Acc
reduce_inner (const RunKernels *k,
              DlReduceOp op,
              DlDType dt,
              const DlReduceArgs *args,
              const char *base,
              gint64 n_inner)
{
  gint nd = args->inner_ndim;
  gint64 run = args->inner_shape[nd - 1];
  gint64 n_runs = n_inner / run;
  gint64 idx[DL_MAX_DIMS] = { 0 };
  Acc acc = { 0 };

  for (gint64 r = 0; r < n_runs; r++)
    {
      const char *p = base + offset_of (idx, args->in_inner_strides, nd);
      Acc part
          = reduce_run (k, op, dt, p, args->in_inner_strides[nd - 1], run, args->indices != NULL);

      if (r == 0)
        acc = part;
      else
        combine (op, dt, &acc, part, r * run);
      /* advance the multi-index over all but the innermost dim */
      for (gint d = nd - 2; d >= 0; d--)
        {
          if (++idx[d] < args->inner_shape[d])
            break;
          idx[d] = 0;
        }
    }
  return acc;
}

/* output position @o: its n_inner elements reduced */
static inline void
reduce_outer (const RunKernels *k,
              DlReduceOp op,
              DlDType dt,
              const DlReduceArgs *args,
              gint64 o,
              gint64 n_inner)
{
  gint nd = args->outer_ndim;
  gint64 oidx[DL_MAX_DIMS];
  Acc acc;

  unravel (o, nd, args->outer_shape, oidx);
  acc = reduce_inner (k, op, dt, args, args->in + offset_of (oidx, args->in_outer_strides, nd),
                      n_inner);
  store_acc (op, dt, args->out + offset_of (oidx, args->out_strides, nd),
             args->indices ? args->indices + offset_of (oidx, args->indices_strides, nd) : NULL,
             acc, n_inner);
}

/* the longest rows summed two at a time: below the aligned grid's
 * threshold, and within one block at every level (512 floats for SSE) */
#define ROW_PAIR_MAX 255

/* Rows: @count outputs along one line of the outer nest, each reducing n
 * elements at stride s; the inputs si bytes apart, the outputs so, the
 * indices sx. Contiguous float rows call their kernels directly. */
static void
rows_line (const RunKernels *k,
           DlReduceOp op,
           DlDType dt,
           const char *in,
           gint64 si,
           gint64 s,
           gint64 n,
           gint64 count,
           char *out,
           gint64 so,
           char *ix,
           gint64 sx)
{
  gboolean f32 = dt == DL_DTYPE_FLOAT32 && s == 4, f64 = dt == DL_DTYPE_FLOAT64 && s == 8;
  gboolean is_max = op == DL_REDUCE_MAX;

  if ((f32 || f64) && n < SHORT_ROW)
    switch (op)
      {
        case DL_REDUCE_SUM:
        case DL_REDUCE_MEAN:
          (f32 ? short_sum_f32 : short_sum_f64) (in, si, n, count, out, so,
                                                 op == DL_REDUCE_MEAN ? n : 1);
          return;
        case DL_REDUCE_PROD:
          (f32 ? short_prod_f32 : short_prod_f64) (in, si, n, count, out, so, 1);
          return;
        case DL_REDUCE_MAX:
        case DL_REDUCE_MIN:
          if (f32)
            (is_max ? short_max_f32 : short_min_f32) (in, si, n, count, out, so, ix, sx);
          else
            (is_max ? short_max_f64 : short_min_f64) (in, si, n, count, out, so, ix, sx);
          return;
        default:
          break;
      }
  if (f32 && (op == DL_REDUCE_SUM || op == DL_REDUCE_MEAN))
    {
      gdouble div = op == DL_REDUCE_MEAN ? n : 1;

      gint64 r = 0;

      /* rows within one block of the sum, two at a time (sum2_f32: the
       * same bits); longer ones start off a boundary often enough for
       * sum_f32's aligned grid to be worth more */
      if (n <= ROW_PAIR_MAX)
        for (; r + 1 < count; r += 2)
          {
            gdouble s0, s1;

            k->sum2_f32 ((const float *)(in + r * si), (const float *)(in + (r + 1) * si), n, &s0,
                         &s1);
            *(float *)(out + r * so) = s0 / div;
            *(float *)(out + (r + 1) * so) = s1 / div;
          }
      for (; r < count; r++)
        *(float *)(out + r * so) = k->sum_f32 ((const float *)(in + r * si), n) / div;
      return;
    }
  if (f32 && (op == DL_REDUCE_MAX || op == DL_REDUCE_MIN))
    {
      Acc (*fn) (const float *, gint64, gboolean) = is_max ? k->max_f32 : k->min_f32;

      for (gint64 r = 0; r < count; r++)
        {
          Acc a = fn ((const float *)(in + r * si), n, ix != NULL);

          *(float *)(out + r * so) = a.f;
          if (ix)
            *(gint64 *)(ix + r * sx) = a.index;
        }
      return;
    }
  for (gint64 r = 0; r < count; r++)
    store_acc (op, dt, out + r * so, ix ? ix + r * sx : NULL,
               reduce_run (k, op, dt, in + r * si, s, n, ix != NULL), n);
}

/* Rows: outputs o0 .. o1 - 1 (flat over the outer nest) with one reduced
 * dim; unravelled once, then walked line by line. */
static void
rows_range (const RunKernels *k,
            DlReduceOp op,
            DlDType dt,
            const DlReduceArgs *args,
            gint64 o0,
            gint64 o1)
{
  gint nd = args->outer_ndim, last = nd - 1;
  gint64 oidx[DL_MAX_DIMS];

  unravel (o0, nd, args->outer_shape, oidx);
  for (gint64 o = o0; o < o1;)
    {
      gint64 count = MIN (o1 - o, args->outer_shape[last] - oidx[last]);

      rows_line (k, op, dt, args->in + offset_of (oidx, args->in_outer_strides, nd),
                 args->in_outer_strides[last], args->in_inner_strides[0], args->inner_shape[0],
                 count, args->out + offset_of (oidx, args->out_strides, nd),
                 args->out_strides[last],
                 args->indices ? args->indices + offset_of (oidx, args->indices_strides, nd) : NULL,
                 args->indices_strides[last]);
      o += count;
      oidx[last] += count - 1;
      for (gint d = last; d >= 0; d--)
        {
          if (++oidx[d] < args->outer_shape[d])
            break;
          oidx[d] = 0;
        }
    }
}

/* Columns. A block is the line of outputs along the innermost kept dim
 * (contiguous in the input); its lanes, TILE at a time, accumulate the
 * rows of the reduced nest one after the other. Float32 sums add COL_FLUSH
 * rows in float lanes, then move them into double lanes. */
enum
{
  TILE = 1024,
  COL_FLUSH = 128,
  COL_MIN_LANES = 64 /* narrower blocks lay rows side by side */
};

typedef enum
{
  COL_SUM_F32,
  COL_SUM_F64,
  COL_SUM_I32,
  COL_SUM_I64,
  COL_PROD_F32,
  COL_PROD_F64,
  COL_EXT_F32, /* max or min, from here on */
  COL_EXT_F64,
  COL_EXT_I32,
  COL_EXT_I64,
} ColKind;

typedef struct
{
  float f[TILE];  /* float32 sums since the last flush; float32 extrema */
  double d[TILE]; /* double sums and products; float64 extrema */
  gint64 i[TILE]; /* integer sums and extrema */
  gint64 x[TILE]; /* the rows where the extrema were taken */
} Tile;

/* a walk over rows: a strided nest of nd dims */
typedef struct
{
  const char *p;
  gint nd;
  const gint64 *shape, *strides;
  gint64 idx[DL_MAX_DIMS];
} Walk;

static inline void
walk_start (Walk *w,
            const char *base,
            gint nd,
            const gint64 *shape,
            const gint64 *strides,
            gint64 r)
{
  w->nd = nd;
  w->shape = shape;
  w->strides = strides;
  unravel (r, nd, shape, w->idx);
  w->p = base + offset_of (w->idx, strides, nd);
}

static inline void
walk_next (Walk *w)
{
  for (gint d = w->nd - 1; d >= 0; d--)
    {
      w->p += w->strides[d];
      if (++w->idx[d] < w->shape[d])
        return;
      w->p -= w->shape[d] * w->strides[d];
      w->idx[d] = 0;
    }
}

typedef struct
{
  const RunKernels *kern;
  DlReduceOp op;
  DlDType dt;
  ColKind kind;
  gboolean is_max, want_index;
  const DlReduceArgs *args;
  gint64 es;      /* the input's element size */
  gint64 width;   /* outputs per block */
  gint64 k;       /* input rows side by side in a lane row (1: none) */
  gint64 lanes;   /* k * width */
  gint64 n_tiles; /* per block */
  gint64 n_units; /* blocks times tiles */
  gint64 n_inner;
  gint64 n_rows; /* lane rows: n_inner / k */
  gint rnd;      /* their nest */
  gint64 rshape[DL_MAX_DIMS], rstrides[DL_MAX_DIMS];
} ColJob;

static gboolean
col_kind (DlReduceOp op, DlDType dt, ColKind *kind)
{
  gint t = dt == DL_DTYPE_FLOAT32   ? 0
           : dt == DL_DTYPE_FLOAT64 ? 1
           : dt == DL_DTYPE_INT32   ? 2
           : dt == DL_DTYPE_INT64   ? 3
                                    : -1;

  if (t < 0)
    return FALSE;
  switch (op)
    {
      case DL_REDUCE_SUM:
      case DL_REDUCE_MEAN:
        *kind = COL_SUM_F32 + t;
        return TRUE;
      case DL_REDUCE_PROD:
        *kind = COL_PROD_F32 + t;
        return t < 2;
      case DL_REDUCE_MAX:
      case DL_REDUCE_MIN:
        *kind = COL_EXT_F32 + t;
        return TRUE;
      default:
        return FALSE;
    }
}

/* rows r0 .. r1 - 1 of w lanes, the walk at row r0 */
#define COL_ROWS(T, ...)                                                                           \
  for (gint64 r = r0; r < r1; r++, walk_next (wk))                                                 \
    {                                                                                              \
      const T *restrict row = (const T *)wk->p;                                                    \
      for (gint64 j = 0; j < w; j++)                                                               \
        {                                                                                          \
          __VA_ARGS__;                                                                             \
        }                                                                                          \
    }

/* max or min into ACC: a NaN is taken over a number, never the reverse */
#define COL_EXT(T, ACC, BETTER, WANT)                                                              \
  COL_ROWS (T, T v = row[j]; T a = (T)ACC[j]; gboolean take = BETTER (v, a) || (v != v && a == a); \
            ACC[j] = take ? v : a; if (WANT) x[j] = take ? r : x[j])

#define COL_EXT_ALL(T, ACC)                                                                        \
  {                                                                                                \
    const T *first = (const T *)wk->p;                                                             \
    for (gint64 j = 0; j < w; j++)                                                                 \
      {                                                                                            \
        ACC[j] = first[j];                                                                         \
        x[j] = r0;                                                                                 \
      }                                                                                            \
    walk_next (wk);                                                                                \
    r0++;                                                                                          \
    if (job->is_max && job->want_index)                                                            \
      COL_EXT (T, ACC, GT, 1)                                                                      \
    else if (job->is_max)                                                                          \
      COL_EXT (T, ACC, GT, 0)                                                                      \
    else if (job->want_index)                                                                      \
      COL_EXT (T, ACC, LT, 1)                                                                      \
    else                                                                                           \
      COL_EXT (T, ACC, LT, 0)                                                                      \
  }

/* the next nr rows of the walk */
static inline void
walk_rows (Walk *wk, const char **rows, gint64 nr)
{
  for (gint64 q = 0; q < nr; q++, walk_next (wk))
    rows[q] = wk->p;
}

/* the rows in blocks of COL_FLUSH pointers for the column kernels */
#define COL_BLOCKS(CALL)                                                                           \
  for (gint64 r = r0; r < r1; r += COL_FLUSH)                                                      \
    {                                                                                              \
      gint64 nr = MIN (COL_FLUSH, r1 - r);                                                         \
      walk_rows (wk, rows, nr);                                                                    \
      CALL;                                                                                        \
    }

/* float max or min into ACC: with the indices by COL_EXT_ALL, without by
 * the column kernels MAX and MIN from the first row's values */
#define COL_EXT_FLOAT(T, ACC, MAX, MIN)                                                            \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (job->want_index)                                                                           \
      COL_EXT_ALL (T, ACC)                                                                         \
    else                                                                                           \
      {                                                                                            \
        memcpy (ACC, wk->p, w * sizeof (T));                                                       \
        walk_next (wk);                                                                            \
        r0++;                                                                                      \
        COL_BLOCKS ((job->is_max ? k->MAX : k->MIN) (rows, nr, w, ACC));                           \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

/* Accumulates rows r0 .. r1 - 1 (r0 < r1, numbered so for the indices)
 * of w lanes into t, from scratch; the walk starts at row r0. The float
 * kernels are the level's column kernels; extrema with their indices and
 * integers are loops that GCC vectorises. */
DL_CPU_CLONES static void
col_accumulate (const ColJob *job, Tile *t, gint64 w, Walk *wk, gint64 r0, gint64 r1)
{
  const RunKernels *k = job->kern;
  const char *rows[COL_FLUSH];
  float *restrict f = t->f;
  double *restrict d = t->d;
  gint64 *restrict i = t->i, *restrict x = t->x;

  switch (job->kind)
    {
      case COL_SUM_F32:
      case COL_SUM_F64:
        for (gint64 j = 0; j < w; j++)
          d[j] = 0;
        COL_BLOCKS ((job->kind == COL_SUM_F32 ? k->col_sum_f32 : k->col_sum_f64) (rows, nr, w, d));
        break;
      case COL_SUM_I32:
      case COL_SUM_I64:
        for (gint64 j = 0; j < w; j++)
          i[j] = 0;
        if (job->kind == COL_SUM_I32)
          COL_ROWS (gint32, i[j] = wrap_add (i[j], row[j]))
        else
          COL_ROWS (gint64, i[j] = wrap_add (i[j], row[j]))
        break;
      case COL_PROD_F32:
      case COL_PROD_F64:
        for (gint64 j = 0; j < w; j++)
          d[j] = 1;
        COL_BLOCKS (
            (job->kind == COL_PROD_F32 ? k->col_prod_f32 : k->col_prod_f64) (rows, nr, w, d));
        break;
      case COL_EXT_F32:
        COL_EXT_FLOAT (float, f, col_max_f32, col_min_f32);
        break;
      case COL_EXT_F64:
        COL_EXT_FLOAT (double, d, col_max_f64, col_min_f64);
        break;
      case COL_EXT_I32:
        COL_EXT_ALL (gint32, i)
        break;
      case COL_EXT_I64:
        COL_EXT_ALL (gint64, i)
        break;
    }
}

/* whether candidate (v, vi) beats (a, ai) for max or min: NaN over numbers
 * (the first NaN), a better value, an equal one from an earlier row */
#define EXT_TAKE(BETTER, v, vi, a, ai)                                                             \
  ((a) != (a) ? ((v) != (v) && (vi) < (ai))                                                        \
              : ((v) != (v) || BETTER (v, a) || ((v) == (a) && (vi) < (ai))))
#define EXT_TAKE_OP(is_max, v, vi, a, ai)                                                          \
  ((is_max) ? EXT_TAKE (GT, v, vi, a, ai) : EXT_TAKE (LT, v, vi, a, ai))

/* Folds lanes po .. po + w - 1 of part into lanes io .. io + w - 1 of into
 * (they may be one tile). */
static void
col_merge (const ColJob *job, Tile *into, gint64 io, const Tile *part, gint64 po, gint64 w)
{
  gboolean mx = job->is_max;

  for (gint64 j = 0; j < w; j++)
    {
      gint64 a = io + j, b = po + j, ai = into->x[a], bi = part->x[b];

      switch (job->kind)
        {
          case COL_SUM_F32:
          case COL_SUM_F64:
            into->d[a] += part->d[b];
            break;
          case COL_SUM_I32:
          case COL_SUM_I64:
            into->i[a] = wrap_add (into->i[a], part->i[b]);
            break;
          case COL_PROD_F32:
          case COL_PROD_F64:
            into->d[a] *= part->d[b];
            break;
          case COL_EXT_F32:
            if (EXT_TAKE_OP (mx, part->f[b], bi, into->f[a], ai))
              {
                into->f[a] = part->f[b];
                into->x[a] = bi;
              }
            break;
          case COL_EXT_F64:
            if (EXT_TAKE_OP (mx, part->d[b], bi, into->d[a], ai))
              {
                into->d[a] = part->d[b];
                into->x[a] = bi;
              }
            break;
          case COL_EXT_I32:
          case COL_EXT_I64:
            if (EXT_TAKE_OP (mx, part->i[b], bi, into->i[a], ai))
              {
                into->i[a] = part->i[b];
                into->x[a] = bi;
              }
            break;
        }
    }
}

/* the block, output and index pointers of unit u (a tile of a block), its
 * first lane and its number of lanes */
static void
col_unit (const ColJob *job, gint64 u, const char **in, char **out, char **ix, gint64 *w)
{
  const DlReduceArgs *args = job->args;
  gint nd = args->outer_ndim;
  gint64 oidx[DL_MAX_DIMS], l0 = u % job->n_tiles * TILE;

  unravel (u / job->n_tiles * job->width, nd, args->outer_shape, oidx);
  *w = MIN (job->lanes - l0, TILE);
  *in = args->in + offset_of (oidx, args->in_outer_strides, nd) + l0 * job->es;
  *out = args->out + offset_of (oidx, args->out_strides, nd) + l0 * args->out_strides[nd - 1];
  *ix = args->indices ? args->indices + offset_of (oidx, args->indices_strides, nd)
                            + l0 * args->indices_strides[nd - 1]
                      : NULL;
}

static void
col_rows (const ColJob *job, Tile *t, const char *in, gint64 w, gint64 r0, gint64 r1)
{
  Walk wk;

  walk_start (&wk, in, job->rnd, job->rshape, job->rstrides, r0);
  col_accumulate (job, t, w, &wk, r0, r1);
}

/* col_finish's stores, out[j] = from[j] / div: contiguous outputs in a loop
 * GCC vectorises */
#define COL_STORE(T, from, div)                                                                    \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (so == sizeof (T))                                                                          \
      {                                                                                            \
        T *restrict o = (T *)out;                                                                  \
        for (gint64 j = 0; j < w; j++)                                                             \
          o[j] = (T)((from)[j] / (div));                                                           \
      }                                                                                            \
    else                                                                                           \
      for (gint64 j = 0; j < w; j++)                                                               \
        *(T *)(out + j * so) = (T)((from)[j] / (div));                                             \
  }                                                                                                \
  G_STMT_END

/* Writes a unit's outputs from its accumulated tile; with rows side by
 * side, folds the lanes and the rows left over first. */
DL_CPU_CLONES static void
col_finish (const ColJob *job, Tile *t, const char *in, char *out, char *ix, gint64 w)
{
  const DlReduceArgs *args = job->args;
  gint last = args->outer_ndim - 1;
  gint64 so = args->out_strides[last], sx = args->indices_strides[last];
  gdouble div = job->op == DL_REDUCE_MEAN ? job->n_inner : 1;

  if (job->k > 1)
    {
      gint64 width = job->width, k = job->k, first = job->n_rows * k;

      /* lane q * width + j saw rows q, k + q, 2k + q, ... as lane rows */
      if (job->kind >= COL_EXT_F32)
        for (gint64 l = 0; l < job->lanes; l++)
          t->x[l] = t->x[l] * k + l / width;
      for (gint64 q = 1; q < k; q++)
        col_merge (job, t, 0, t, q * width, width);
      if (first < job->n_inner)
        {
          Tile rest;
          gint64 shape = job->n_inner - first, stride = args->in_inner_strides[0];
          Walk wk;

          walk_start (&wk, in + first * stride, 1, &shape, &stride, 0);
          col_accumulate (job, &rest, width, &wk, first, job->n_inner);
          col_merge (job, t, 0, &rest, 0, width);
        }
      w = width;
    }
  switch (job->kind)
    {
      case COL_SUM_F32:
      case COL_PROD_F32:
        if (div != 1)
          COL_STORE (float, t->d, div);
        else
          COL_STORE (float, t->d, 1);
        break;
      case COL_SUM_F64:
      case COL_PROD_F64:
        if (div != 1)
          COL_STORE (double, t->d, div);
        else
          COL_STORE (double, t->d, 1);
        break;
      case COL_SUM_I32:
      case COL_SUM_I64:
      case COL_EXT_I64:
        COL_STORE (gint64, t->i, 1);
        break;
      case COL_EXT_I32:
        COL_STORE (gint32, t->i, 1);
        break;
      case COL_EXT_F32:
        COL_STORE (float, t->f, 1);
        break;
      case COL_EXT_F64:
        COL_STORE (double, t->d, 1);
        break;
    }
  if (ix)
    for (gint64 j = 0; j < w; j++)
      *(gint64 *)(ix + j * sx) = t->x[j];
}

/* The columns path, when the layout and the op fit it. Threads share the
 * units when there are enough of them, else the rows of each unit (then
 * the threads' partial tiles are merged in order). */
static gboolean
try_columns (const RunKernels *k,
             DlReduceOp op,
             DlDType dt,
             const DlReduceArgs *args,
             gint64 n_outer,
             gint64 n_inner)
{
  gint ond = args->outer_ndim, ind = args->inner_ndim, nt;
  ColJob job = { .kern = k, .op = op, .dt = dt, .args = args, .n_inner = n_inner, .k = 1 };

  job.es = dl_dtype_size (dt);
  if (ond < 1 || args->in_outer_strides[ond - 1] != job.es || !col_kind (op, dt, &job.kind))
    return FALSE;
  job.is_max = op == DL_REDUCE_MAX;
  job.want_index = args->indices != NULL;
  job.width = args->outer_shape[ond - 1];
  if (ind == 1 && args->in_inner_strides[0] == job.width * job.es && job.width < COL_MIN_LANES)
    job.k = MIN ((COL_MIN_LANES + job.width - 1) / job.width, n_inner);
  job.lanes = job.k * job.width;
  job.n_rows = n_inner / job.k;
  if (job.k > 1)
    {
      job.rnd = 1;
      job.rshape[0] = job.n_rows;
      job.rstrides[0] = job.k * args->in_inner_strides[0];
    }
  else
    {
      job.rnd = ind;
      memcpy (job.rshape, args->inner_shape, ind * sizeof (gint64));
      memcpy (job.rstrides, args->in_inner_strides, ind * sizeof (gint64));
    }
  job.n_tiles = (job.lanes + TILE - 1) / TILE;
  job.n_units = n_outer / job.width * job.n_tiles;
  nt = n_outer * n_inner >= DL_CPU_GRAIN ? omp_get_max_threads () : 1;

  if (nt > 1 && job.n_units < 4 * nt && job.n_rows >= 64 * nt)
    {
      Tile *parts = g_new (Tile, nt);

#pragma omp parallel num_threads(nt)
      {
        gint t = omp_get_thread_num (), nth = omp_get_num_threads ();

        for (gint64 u = 0; u < job.n_units; u++)
          {
            const char *in;
            char *out, *ix;
            gint64 w;

            col_unit (&job, u, &in, &out, &ix, &w);
            col_rows (&job, &parts[t], in, w, job.n_rows * t / nth, job.n_rows * (t + 1) / nth);
#pragma omp barrier
            if (t == 0)
              {
                for (gint p = 1; p < nth; p++)
                  col_merge (&job, &parts[0], 0, &parts[p], 0, w);
                col_finish (&job, &parts[0], in, out, ix, w);
              }
#pragma omp barrier
          }
      }
      g_free (parts);
      return TRUE;
    }
  DL_CPU_FOR_IF (
      nt > 1 && job.n_units > 1, for (gint64 u = 0; u < job.n_units; u++) {
        const char *in;
        char *out, *ix;
        gint64 w;
        Tile t;

        col_unit (&job, u, &in, &out, &ix, &w);
        col_rows (&job, &t, in, w, 0, job.n_rows);
        col_finish (&job, &t, in, out, ix, w);
      });
  return TRUE;
}

/* A full reduction over several inner dims: runs r0 .. r1 - 1 of the
 * inner nest, indices flat over it. */
static Acc
full_runs (const RunKernels *k,
           DlReduceOp op,
           DlDType dt,
           const DlReduceArgs *args,
           gint64 r0,
           gint64 r1)
{
  gint nd = args->inner_ndim;
  gint64 run = args->inner_shape[nd - 1], s = args->in_inner_strides[nd - 1];
  Walk wk;
  Acc acc = { 0 };

  walk_start (&wk, args->in, nd - 1, args->inner_shape, args->in_inner_strides, r0);
  for (gint64 r = r0; r < r1; r++, walk_next (&wk))
    {
      Acc part = reduce_run (k, op, dt, wk.p, s, run, args->indices != NULL);

      if (r == r0)
        {
          acc = part;
          acc.index += r * run;
        }
      else
        combine (op, dt, &acc, part, r * run);
    }
  return acc;
}

void
dl_cpu_reduce (DlBackendContext *ctx, DlReduceOp op, const DlReduceArgs *args, DlDType dt)
{
  const RunKernels *k = run_kernels ();
  gint ond = args->outer_ndim, ind = args->inner_ndim;
  gint64 n_outer = 1, n_inner = 1, es = dl_dtype_size (dt);
  gboolean parallel;

  for (gint d = 0; d < ond; d++)
    n_outer *= args->outer_shape[d];
  for (gint d = 0; d < ind; d++)
    n_inner *= args->inner_shape[d];
  if (n_outer == 0)
    return;
  g_return_if_fail (n_inner > 0 || (op != DL_REDUCE_MAX && op != DL_REDUCE_MIN));

  if (n_inner == 0)
    {
      Acc zero = { 0 };
      gint64 oidx[DL_MAX_DIMS];

      if (op == DL_REDUCE_PROD || op == DL_REDUCE_ALL)
        zero = (Acc){ .f = 1, .i = 1 };
      if (op == DL_REDUCE_MEAN)
        zero = (Acc){ .f = NAN };
      for (gint64 o = 0; o < n_outer; o++)
        {
          unravel (o, ond, args->outer_shape, oidx);
          store_acc (op, dt, args->out + offset_of (oidx, args->out_strides, ond), NULL, zero, 1);
        }
      return;
    }
  parallel = n_outer * n_inner >= DL_CPU_GRAIN;

  if (n_outer == 1)
    {
      /* one output (its outer dims all 0): long runs split over threads,
       * the parts combined */
      gint64 n_runs = n_inner / args->inner_shape[ind - 1];
      gint nt = MIN (omp_get_max_threads (), 64);
      Acc parts[64], acc;

      if (!parallel || nt < 2)
        acc = full_runs (k, op, dt, args, 0, n_runs);
      else if (ind == 1)
        {
          gint64 s = args->in_inner_strides[0];

#pragma omp parallel for num_threads(nt)
          for (gint t = 0; t < nt; t++)
            {
              gint64 b = n_inner * t / nt, e = n_inner * (t + 1) / nt;
              parts[t] = reduce_run (k, op, dt, args->in + b * s, s, e - b, args->indices != NULL);
            }
          acc = parts[0];
          for (gint t = 1; t < nt; t++)
            combine (op, dt, &acc, parts[t], n_inner * t / nt);
        }
      else
        {
          nt = (gint)MIN (nt, n_runs);
#pragma omp parallel for num_threads(nt)
          for (gint t = 0; t < nt; t++)
            parts[t] = full_runs (k, op, dt, args, n_runs * t / nt, n_runs * (t + 1) / nt);
          acc = parts[0];
          for (gint t = 1; t < nt; t++)
            combine (op, dt, &acc, parts[t], 0);
        }
      store_acc (op, dt, args->out, args->indices, acc, n_inner);
      return;
    }

  if (args->in_inner_strides[ind - 1] != es && try_columns (k, op, dt, args, n_outer, n_inner))
    return;
  if (ind == 1)
    {
      /* rows; threads share the outputs */
      gint nt = parallel ? (gint)MIN (omp_get_max_threads (), n_outer) : 1;

      DL_CPU_FOR_IF (
          nt > 1, for (gint t = 0; t < nt; t++) {
            rows_range (k, op, dt, args, n_outer * t / nt, n_outer * (t + 1) / nt);
          });
      return;
    }
  DL_CPU_FOR_IF (
      parallel && n_outer > 1,
      for (gint64 o = 0; o < n_outer; o++) { reduce_outer (k, op, dt, args, o, n_inner); });
}
