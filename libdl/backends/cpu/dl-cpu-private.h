/* dl-cpu-private.h: shared pieces of the CPU backend: element types,
 * conversions for the 16-bit floats, and the threaded strided loop driver.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>
#include <string.h>
#include <math.h>

#include "backends/dl-backend.h"
#include "backends/dl-philox.h"

G_BEGIN_DECLS

/* Work below this many elements runs on the calling thread alone: 32K
 * elements of a cheap elementwise op, where an OpenMP region (about 1 us
 * to wake the pool and join it) costs less than the half of the work it
 * moves to another core. Measured in docs/threading.md. */
extern gint64 dl_cpu_grain;
#define DL_CPU_GRAIN dl_cpu_grain

/* The team of a parallel region and a busy machine (dl-cpu-team.c).
 * Regions take dl_cpu_team_threads () threads: OpenMP's count, or 1 while
 * other processes keep the workers waiting. The regions that run most note
 * when their workers start:
 *   DlCpuTeamClock clock;
 *   nt = MIN (dl_cpu_team_threads (), parts);
 *   dl_cpu_team_fork (&clock, nt);
 *   #pragma omp parallel num_threads(nt)
 *   { dl_cpu_team_arrive (&clock, omp_get_thread_num ()); ... }
 *   dl_cpu_team_join (&clock);
 * A worker is late DL_CPU_TEAM_LATE_US after the fork. Of the last
 * DL_CPU_TEAM_WINDOW regions that forked within DL_CPU_TEAM_WARM_US of the
 * end of the one before (whose workers had no time to fall asleep),
 * DL_CPU_TEAM_LATE_MIN late ones, with more threads runnable than there are
 * processors (/proc/loadavg), make regions run alone for a span that
 * starts at DL_CPU_TEAM_SOLO_MIN_US and doubles with each late try after
 * it, up to DL_CPU_TEAM_SOLO_MAX_US; it starts short again after
 * DL_CPU_TEAM_CALM_US of regions on time. */
#define DL_CPU_TEAM_LATE_US 1000
#define DL_CPU_TEAM_WARM_US 2000
#define DL_CPU_TEAM_WINDOW 8
#define DL_CPU_TEAM_LATE_MIN 3
#define DL_CPU_TEAM_SOLO_MIN_US 50000
#define DL_CPU_TEAM_SOLO_MAX_US 1600000
#define DL_CPU_TEAM_CALM_US 500000

typedef struct
{
  gint64 fork;  /* g_get_monotonic_time () before the region */
  gint threads; /* the region's team */
  gint late;    /* set by a worker that started late */
} DlCpuTeamClock;

/* what a test reads: when the current span ends (0: none yet, or ended
 * and reset), the length of the next, how many began */
typedef struct
{
  gint64 solo_until;
  gint64 next_span;
  guint64 solo_count;
} DlCpuTeamState;

gint dl_cpu_team_threads (void);
void dl_cpu_team_join (const DlCpuTeamClock *clock);
void dl_cpu_team_join_at (const DlCpuTeamClock *clock, gint64 end);
void dl_cpu_team_get_state (DlCpuTeamState *state);
void dl_cpu_team_reset (void);
/* for a test: the file read in place of /proc/loadavg (NULL: that one) */
void dl_cpu_team_set_loadavg_path (const gchar *path);

/* Sums whose bits must not depend on the threads that share them (a full
 * reduction, norm layers' weight gradients) run in parts of at least
 * DL_CPU_PART_MIN elements, DL_CPU_PARTS at most, added up in order: how
 * many parts @n elements make (2 at least), from the size alone. */
#define DL_CPU_PART_MIN 8192
#define DL_CPU_PARTS 16

static inline gint
dl_cpu_parts (gint64 n)
{
  return (gint)CLAMP (n / DL_CPU_PART_MIN, 2, DL_CPU_PARTS);
}

static inline void
dl_cpu_team_fork (DlCpuTeamClock *clock, gint threads)
{
  clock->fork = g_get_monotonic_time ();
  clock->threads = threads;
  clock->late = 0;
}

/* in the region, by each of its threads; @thread is omp_get_thread_num () */
static inline void
dl_cpu_team_arrive (DlCpuTeamClock *clock, gint thread)
{
  if (thread != 0 && g_get_monotonic_time () - clock->fork > DL_CPU_TEAM_LATE_US)
    __atomic_store_n (&clock->late, 1, __ATOMIC_RELAXED);
}

/* A loop (a for statement) that OpenMP's threads share when @cond holds,
 * and that runs on this thread alone otherwise, without entering a parallel
 * region: a region whose if () is false still costs about 0.3 us in
 * libgomp, more than a small op's whole loop.
 *   DL_CPU_FOR_IF (n >= DL_CPU_GRAIN, for (gint64 r = 0; r < n; r++) { ... });
 */
#define DL_CPU_FOR_IF(cond, ...)                                                                   \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (cond)                                                                                      \
      {                                                                                            \
        _Pragma ("omp parallel for schedule(static) num_threads(dl_cpu_team_threads ())")          \
            __VA_ARGS__                                                                            \
      }                                                                                            \
    else                                                                                           \
      {                                                                                            \
        __VA_ARGS__                                                                                \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

/* A block that OpenMP's threads all run when @cond holds (with its
 * _Pragma ("omp for") loops shared out), and that this thread runs alone
 * otherwise, outside any parallel region (an orphaned omp for then runs
 * its whole loop here). */
#define DL_CPU_PARALLEL_IF(cond, ...)                                                              \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (cond)                                                                                      \
      {                                                                                            \
        _Pragma ("omp parallel num_threads(dl_cpu_team_threads ())")                               \
        {                                                                                          \
          __VA_ARGS__                                                                              \
        }                                                                                          \
      }                                                                                            \
    else                                                                                           \
      {                                                                                            \
        __VA_ARGS__                                                                                \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

typedef _Float16 dl_half;
typedef guint16 dl_bf16;

static inline float
dl_bf16_to_float (dl_bf16 v)
{
  guint32 bits = (guint32)v << 16;
  float f;
  memcpy (&f, &bits, 4);
  return f;
}

static inline dl_bf16
dl_float_to_bf16 (float f)
{
  guint32 bits;
  memcpy (&bits, &f, 4);
  if (isnan (f))
    return 0x7fc0;
  /* round to nearest even */
  bits += 0x7fff + ((bits >> 16) & 1);
  return (dl_bf16)(bits >> 16);
}

/* Compute-bound kernels are compiled twice: for x86-64-v3 (AVX2 and FMA)
 * and for the baseline; the loader picks the clone the CPU can run (GCC's
 * target_clones, resolved once through an ifunc). Ifuncs run before a
 * sanitizer's runtime is up, so sanitized builds (DL_NO_TARGET_CLONES,
 * set by meson for -Db_sanitize) have the baseline only. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#ifdef DL_NO_TARGET_CLONES
#define DL_CPU_CLONES
#else
#define DL_CPU_CLONES __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#endif
#define DL_CPU_ISA_LEVELS 1
#define DL_CPU_TARGET_V3 __attribute__ ((target ("arch=x86-64-v3")))
#define DL_CPU_TARGET_V4 __attribute__ ((target ("arch=x86-64-v4")))
#else
#define DL_CPU_CLONES
#endif
#define DL_CPU_TARGET_BASELINE

/* A few kernels have one variant per x86-64 level, written with vectors of
 * the level's width (16 floats for AVX-512, which target_clones cannot
 * give: a clone keeps the body's types), and pick one at run time from
 * dl_cpu_isa: the best level the CPU runs, capped by the environment
 * variable DL_CPU_ISA ("x86-64-v4", "x86-64-v3" or "x86-64"), so that the
 * tests reach every variant on one machine. Set when the CPU backend is
 * first asked for. */
typedef enum
{
  DL_CPU_ISA_BASELINE,
  DL_CPU_ISA_V3,
  DL_CPU_ISA_V4,
} DlCpuIsa;

extern DlCpuIsa dl_cpu_isa;

/* GCC's generic vectors: 4, 8 or 16 floats (doubles, int32s); one
 * register at the matching level (xmm, ymm, zmm). */
typedef float dl_v4sf __attribute__ ((vector_size (16)));
typedef float dl_v8sf __attribute__ ((vector_size (32)));
typedef float dl_v16sf __attribute__ ((vector_size (64)));
typedef double dl_v4df __attribute__ ((vector_size (32)));
typedef double dl_v8df __attribute__ ((vector_size (64)));
typedef double dl_v16df __attribute__ ((vector_size (128)));
typedef gint32 dl_v4si __attribute__ ((vector_size (16)));
typedef gint32 dl_v8si __attribute__ ((vector_size (32)));
typedef gint32 dl_v16si __attribute__ ((vector_size (64)));

/* e^x for float32, within about 1 ulp, written so that GCC vectorises the
 * loops that call it (glibc's expf is a scalar call): x = k ln 2 + r with
 * |r| <= ln 2 / 2 (k rounded by the 1.5 * 2^23 trick, ln 2 split in two
 * for an exact r), a degree-7 Taylor polynomial for e^r, and 2^k built in
 * the exponent bits in two halves so that results down to the subnormals
 * come out right. Out of range inputs give inf or 0, NaN stays NaN. */
static inline G_ALWAYS_INLINE float
dl_expf (float x)
{
  /* NaN takes the low bound too (written so), which keeps k in range: the
   * shifts below stay defined, and the NaN is given back at the end */
  float xc = x > -104.0f ? (x < 89.0f ? x : 89.0f) : -104.0f;
  float kf = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = (xc - kf * 0.693359375f) - kf * -2.12194440e-4f;
  float p = 1.0f / 5040.0f;
  gint32 k, k1, b1, b2;
  float s1, s2, y;

  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  k = (gint32)kf;
  k1 = k / 2;
  b1 = (k1 + 127) << 23;
  b2 = (k - k1 + 127) << 23;
  memcpy (&s1, &b1, 4);
  memcpy (&s2, &b2, 4);
  y = p * s1 * s2;
  return x != x ? x : y;
}

/* the Philox constants, for the CPU's vectorised blocks (dl-cpu-attention.c) */
#define PHILOX_M0 DL_PHILOX_M0
#define PHILOX_M1 DL_PHILOX_M1
#define PHILOX_W0 DL_PHILOX_W0
#define PHILOX_W1 DL_PHILOX_W1

/* Philox4x32-10: the four words of block @counter of the stream @seed
 * (dl-philox.h's, which the CUDA module computes too) */
static inline void
dl_cpu_philox (guint64 seed, guint64 counter, guint32 out[4])
{
  dl_philox (seed, counter, out);
}

/* One element of any dtype as a double, or as an int64 for the integer
 * types (exact beyond 2^53); for kernels whose inner loop is not the hot
 * path. */
static inline gdouble
dl_cpu_load_f (const char *p, DlDType dt)
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT32:
        return *(const float *)p;
      case DL_DTYPE_FLOAT64:
        return *(const double *)p;
      case DL_DTYPE_FLOAT16:
        return (float)*(const dl_half *)p;
      case DL_DTYPE_BFLOAT16:
        return dl_bf16_to_float (*(const dl_bf16 *)p);
      case DL_DTYPE_INT32:
        return *(const gint32 *)p;
      case DL_DTYPE_INT64:
        return (gdouble) * (const gint64 *)p;
      case DL_DTYPE_UINT8:
      case DL_DTYPE_BOOL:
        return *(const guint8 *)p;
    }
  return 0;
}

static inline gint64
dl_cpu_load_i (const char *p, DlDType dt)
{
  switch (dt)
    {
      case DL_DTYPE_INT32:
        return *(const gint32 *)p;
      case DL_DTYPE_INT64:
        return *(const gint64 *)p;
      case DL_DTYPE_UINT8:
      case DL_DTYPE_BOOL:
        return *(const guint8 *)p;
      default:
        return (gint64)dl_cpu_load_f (p, dt);
    }
}

/* Stores a double into one element of a float dtype (16-bit floats
 * converted from the double directly) and an int64 into one of an integer
 * dtype, keeping its low bits (bool: v != 0); the loaders' counterparts. */
static inline void
dl_cpu_store_f (char *p, DlDType dt, gdouble v)
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT32:
        *(float *)p = (float)v;
        break;
      case DL_DTYPE_FLOAT64:
        *(double *)p = v;
        break;
      case DL_DTYPE_FLOAT16:
        *(dl_half *)p = (dl_half)v;
        break;
      case DL_DTYPE_BFLOAT16:
        *(dl_bf16 *)p = dl_float_to_bf16 ((float)v);
        break;
      default:
        break;
    }
}

static inline void
dl_cpu_store_i (char *p, DlDType dt, gint64 v)
{
  switch (dt)
    {
      case DL_DTYPE_INT32:
        *(gint32 *)p = (gint32)(guint32)v;
        break;
      case DL_DTYPE_INT64:
        *(gint64 *)p = v;
        break;
      case DL_DTYPE_UINT8:
        *(guint8 *)p = (guint8)v;
        break;
      case DL_DTYPE_BOOL:
        *(guint8 *)p = v != 0;
        break;
      default:
        break;
    }
}

/* Kernel names pasted from parts: DL_CPU_FN (unary_, exp, TN) is
 * unary_exp_f32 when TN is defined as f32 (the indirection expands TN). */
#define DL_CPU_FN_(prefix, opn, tn) prefix##opn##_##tn
#define DL_CPU_FN(prefix, opn, tn) DL_CPU_FN_ (prefix, opn, tn)

/* The elements of @size bytes before @p's next 64-byte boundary (0 when
 * @p is on one, or is not aligned to its element size). */
static inline gint64
dl_cpu_line_head (const void *p, gsize size)
{
  guintptr a = (guintptr)p;

  return a % size ? 0 : (gint64)(((64 - a % 64) % 64) / size);
}

/* The elementwise kernels' one-run loops (a DlCpuLoop named NAME): a
 * unit-stride branch with restrict pointers that GCC vectorises (also for
 * x86-64-v3, see DL_CPU_CLONES), branches for a broadcast operand, and the
 * general strided loop. EXPR computes from x (unary) or a and b (binary);
 * binary kernels may use alpha, the double that ctx points at (0 without
 * one). Inputs are of type T, the output of type OT. */
#define DL_CPU_DEFINE_UNARY_LOOP(NAME, T, OT, EXPR)                                                \
  DL_CPU_CLONES static void NAME (char **data, const gint64 *s, gint64 n, gpointer ctx)            \
  {                                                                                                \
    if (s[0] == sizeof (OT) && s[1] == sizeof (T))                                                 \
      {                                                                                            \
        OT *restrict o = (OT *)data[0];                                                            \
        const T *restrict in = (const T *)data[1];                                                 \
        gint64 i = 0;                                                                              \
        /* up to the output's next cache line first (see the binary loop) */                       \
        for (gint64 h = MIN (dl_cpu_line_head (o, sizeof (OT)), n); i < h; i++)                    \
          {                                                                                        \
            T x = in[i];                                                                           \
            o[i] = (OT)(EXPR);                                                                     \
          }                                                                                        \
        for (; i < n; i++)                                                                         \
          {                                                                                        \
            T x = in[i];                                                                           \
            o[i] = (OT)(EXPR);                                                                     \
          }                                                                                        \
      }                                                                                            \
    else                                                                                           \
      for (gint64 i = 0; i < n; i++)                                                               \
        {                                                                                          \
          T x = *(const T *)(data[1] + i * s[1]);                                                  \
          *(OT *)(data[0] + i * s[0]) = (OT)(EXPR);                                                \
        }                                                                                          \
  }

#define DL_CPU_DEFINE_BINARY_LOOP(NAME, T, OT, EXPR)                                               \
  DL_CPU_CLONES static void NAME (char **data, const gint64 *s, gint64 n, gpointer ctx)            \
  {                                                                                                \
    const T alpha = ctx ? (T) * (const double *)ctx : (T)0;                                        \
    (void)alpha;                                                                                   \
    if (s[0] == sizeof (OT) && s[1] == sizeof (T) && s[2] == sizeof (T))                           \
      {                                                                                            \
        OT *restrict o = (OT *)data[0];                                                            \
        const T *restrict pa = (const T *)data[1];                                                 \
        const T *restrict pb = (const T *)data[2];                                                 \
        gint64 i = 0;                                                                              \
        /* up to the output's next cache line first: when the inputs share                         \
         * its offset in a line (dl_empty_like_layout), all three streams                          \
         * are then line-aligned */                                                                \
        for (gint64 h = MIN (dl_cpu_line_head (o, sizeof (OT)), n); i < h; i++)                    \
          {                                                                                        \
            T a = pa[i], b = pb[i];                                                                \
            o[i] = (OT)(EXPR);                                                                     \
          }                                                                                        \
        for (; i < n; i++)                                                                         \
          {                                                                                        \
            T a = pa[i], b = pb[i];                                                                \
            o[i] = (OT)(EXPR);                                                                     \
          }                                                                                        \
      }                                                                                            \
    else if (s[0] == sizeof (OT) && s[1] == sizeof (T) && s[2] == 0)                               \
      {                                                                                            \
        OT *restrict o = (OT *)data[0];                                                            \
        const T *restrict pa = (const T *)data[1];                                                 \
        const T b = *(const T *)data[2];                                                           \
        for (gint64 i = 0; i < n; i++)                                                             \
          {                                                                                        \
            T a = pa[i];                                                                           \
            o[i] = (OT)(EXPR);                                                                     \
          }                                                                                        \
      }                                                                                            \
    else if (s[0] == sizeof (OT) && s[1] == 0 && s[2] == sizeof (T))                               \
      {                                                                                            \
        OT *restrict o = (OT *)data[0];                                                            \
        const T a = *(const T *)data[1];                                                           \
        const T *restrict pb = (const T *)data[2];                                                 \
        for (gint64 i = 0; i < n; i++)                                                             \
          {                                                                                        \
            T b = pb[i];                                                                           \
            o[i] = (OT)(EXPR);                                                                     \
          }                                                                                        \
      }                                                                                            \
    else                                                                                           \
      for (gint64 i = 0; i < n; i++)                                                               \
        {                                                                                          \
          T a = *(const T *)(data[1] + i * s[1]);                                                  \
          T b = *(const T *)(data[2] + i * s[2]);                                                  \
          *(OT *)(data[0] + i * s[0]) = (OT)(EXPR);                                                \
        }                                                                                          \
  }

/* The loop body over one run of n elements: data[k] points at operand k's
 * first element, strides[k] is its byte stride along the run. */
typedef void (*DlCpuLoop) (char **data, const gint64 *strides, gint64 n, gpointer ctx);

void dl_cpu_blas_init (void);
const gchar *dl_cpu_blas_better_core (const gchar *core, DlCpuIsa isa);
const gchar *dl_cpu_blas_get_core (void);
DlCpuIsa dl_cpu_hardware_isa (void);
void dl_cpu_iter_for_each (const DlIter *iter, DlCpuLoop loop, gpointer ctx);
/* as dl_cpu_iter_for_each, for a loop whose element costs @cost times a
 * cheap one's (dl_cpu_unary_cost): split over threads from DL_CPU_GRAIN /
 * @cost elements */
void dl_cpu_iter_for_each_cost (const DlIter *iter, DlCpuLoop loop, gpointer ctx, guint cost);
guint dl_cpu_unary_cost (DlUnaryOp op, DlDType dtype);
guint dl_cpu_dtype_cost (DlDType dtype);

/* kernel entry points, one family per file */
void dl_cpu_copy (DlBackendContext *ctx, DlIter *iter, DlDType dst_dtype, DlDType src_dtype);
void dl_cpu_fill (DlBackendContext *ctx, DlIter *iter, DlDType dtype, gdouble value);
void dl_cpu_unary (DlBackendContext *ctx, DlUnaryOp op, DlIter *iter, DlDType dtype);
void
dl_cpu_binary (DlBackendContext *ctx, DlBinaryOp op, DlIter *iter, DlDType dtype, gdouble alpha);
void dl_cpu_math_unary (DlBackendContext *ctx,
                        DlUnaryOp op,
                        DlIter *iter,
                        DlDType dtype,
                        const gdouble *params);
void dl_cpu_ternary (DlBackendContext *ctx,
                     DlTernaryOp op,
                     DlIter *iter,
                     DlDType dtype,
                     const gdouble *params);
void dl_cpu_math_binary (DlBackendContext *ctx, DlBinaryOp op, DlIter *iter, DlDType dtype);
/* the float32 vector kernel of a transcendental unary op for dl_cpu_isa's
 * level (dl-cpu-vmath.c), or NULL */
DlCpuLoop dl_cpu_vmath_loop (DlUnaryOp op);
/* the same for float64 (exp, log, sigmoid), or NULL */
DlCpuLoop dl_cpu_vmath_loop_f64 (DlUnaryOp op);
void dl_cpu_reduce (DlBackendContext *ctx, DlReduceOp op, const DlReduceArgs *args, DlDType dtype);
void dl_cpu_scan (DlBackendContext *ctx,
                  DlScanOp op,
                  void *data,
                  gint64 n_rows,
                  gint64 n,
                  DlDType dtype);
void dl_cpu_sort (DlBackendContext *ctx,
                  void *data,
                  void *indices,
                  gint64 n_rows,
                  gint64 n,
                  gint64 k,
                  gboolean kth_only,
                  DlDType dtype,
                  gboolean descending);
void dl_cpu_scan_extremum (DlBackendContext *ctx,
                           void *data,
                           void *indices,
                           gint64 n_rows,
                           gint64 n,
                           DlDType dtype,
                           gboolean is_max);
void dl_cpu_scatter_rows (DlBackendContext *ctx,
                          void *out,
                          const void *src,
                          const void *index,
                          gint64 n_rows,
                          gint64 n_src,
                          gint64 n_out,
                          DlDType dtype,
                          gboolean accumulate);
void dl_cpu_gather_rows (DlBackendContext *ctx,
                         void *out,
                         const void *src,
                         const void *index,
                         gint64 n_rows,
                         gint64 n_out,
                         gint64 n_src,
                         DlDType dtype);
void dl_cpu_softmax (DlBackendContext *ctx,
                     const void *in,
                     void *out,
                     gint64 n_rows,
                     gint64 n,
                     DlDType dtype,
                     gboolean log);
void dl_cpu_im2col (DlBackendContext *ctx,
                    const DlConvGeometry *g,
                    const void *image,
                    void *cols,
                    DlDType dtype);
void dl_cpu_max_pool2d (DlBackendContext *ctx,
                        const DlConvGeometry *g,
                        const void *image,
                        void *out,
                        gint64 *indices,
                        DlDType dtype);
void dl_cpu_col2im (DlBackendContext *ctx,
                    const DlConvGeometry *g,
                    const void *cols,
                    void *image,
                    DlDType dtype);
void dl_cpu_optim_step (DlBackendContext *ctx, const DlOptimStepArgs *args, DlDType dtype);
void dl_cpu_max_pool2d_backward (DlBackendContext *ctx,
                                 const DlConvGeometry *g,
                                 const void *grad_out,
                                 const gint64 *indices,
                                 void *grad_in,
                                 DlDType dtype);
void dl_cpu_norm_forward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);
void dl_cpu_norm_backward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);
void dl_cpu_conv2d_forward (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype);
void dl_cpu_conv2d_backward (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype);
void dl_cpu_rnn_forward (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype);
void dl_cpu_rnn_backward (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype);
/* C = alpha op(A) op(B) + beta C, row-major, on the BLAS libdl picked
 * (single-threaded inside an OpenMP region), float32/float64 */
void dl_cpu_blas_gemm_ex (DlDType dtype,
                          gboolean trans_a,
                          gboolean trans_b,
                          gint64 m,
                          gint64 n,
                          gint64 k,
                          const void *a,
                          gint64 lda,
                          const void *b,
                          gint64 ldb,
                          gdouble beta,
                          void *c,
                          gint64 ldc);
void dl_cpu_resample (DlBackendContext *ctx,
                      const DlResampleArgs *a,
                      const void *in,
                      void *out,
                      DlDType dtype);
void dl_cpu_resample_adjoint (DlBackendContext *ctx,
                              const DlResampleArgs *a,
                              const void *grad,
                              void *grad_in,
                              DlDType dtype);
void dl_cpu_resample_max (DlBackendContext *ctx,
                          const DlResampleArgs *a,
                          const void *in,
                          void *out,
                          gint64 *indices,
                          DlDType dtype);
void dl_cpu_dropout (DlBackendContext *ctx,
                     const void *in,
                     void *out,
                     guint8 *mask,
                     gint64 n,
                     gdouble p,
                     DlDType dtype,
                     const DlRandomDraw *draw);
void dl_cpu_unique_sorted (DlBackendContext *ctx,
                           const void *sorted,
                           gint64 n,
                           DlDType dtype,
                           void *values,
                           void *counts,
                           void *group,
                           gint64 *n_groups);
void dl_cpu_gemm_batched (DlBackendContext *ctx, DlDType dtype, const DlGemmArgs *args);
void dl_cpu_lapack (DlBackendContext *ctx, DlLapackOp op, const DlLapackArgs *args, DlDType dtype);
void dl_cpu_multinomial (DlBackendContext *ctx,
                         const gdouble *weights,
                         gint64 rows,
                         gint64 k,
                         gint64 n_samples,
                         gboolean replacement,
                         gint64 *out,
                         const DlRandomDraw *draw,
                         DlKernelStatus *status);
void dl_cpu_random (DlBackendContext *ctx,
                    DlRandomOp op,
                    void *data,
                    gint64 n,
                    DlDType dtype,
                    const DlRandomDraw *draw,
                    gdouble a,
                    gdouble b);
void dl_cpu_random_params (DlBackendContext *ctx,
                           DlRandomParamsOp op,
                           const gdouble *a,
                           const gdouble *b,
                           void *data,
                           gint64 n,
                           DlDType dtype,
                           const DlRandomDraw *draw);
void dl_cpu_index (DlBackendContext *ctx,
                   DlIndexOp op,
                   const DlIndexArgs *args,
                   DlDType dtype,
                   DlKernelStatus *status);
void dl_cpu_nonzero (DlBackendContext *ctx,
                     const char *data,
                     DlDType dtype,
                     gint ndim,
                     const gint64 *shape,
                     const gint64 *strides,
                     gint64 *count,
                     gint64 *out);

void dl_cpu_attention_forward (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype);
void dl_cpu_attention_backward (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype);
void dl_cpu_attention_dropout_mask (DlBackendContext *ctx,
                                    const DlAttentionArgs *args,
                                    void *mask,
                                    DlDType dtype);

G_END_DECLS
