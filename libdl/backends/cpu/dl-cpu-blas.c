/* dl-cpu-blas.c: matrix multiply through OpenBLAS (float32, float64) and a
 * plain loop for the integer types.
 *
 * C[m, n] = sum_k A[m, k] * B[k, n], every matrix given by element strides
 * (row, column). The ops layer guarantees that A and B have a unit stride in
 * one of their two dims and C is row-major contiguous.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* RTLD_DEEPBIND, RTLD_DEFAULT */
#include "config.h"

#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>

#include "dl-cpu-private.h"

/* BLAS wants a transpose flag and a leading dimension per operand. */
static void
blas_layout (gint64 rs, gint64 cs, gint64 cols, CBLAS_TRANSPOSE *trans, blasint *ld)
{
  if (cs == 1)
    {
      *trans = CblasNoTrans;
      *ld = MAX (rs, MAX (cols, 1));
    }
  else
    {
      *trans = CblasTrans;
      *ld = MAX (cs, 1);
    }
}

/* The GEMMs libdl runs, and from which OpenBLAS.
 *
 * A process holds one library per soname, so libdl's link to
 * libopenblas.so.0 is satisfied by whichever OpenBLAS build was loaded
 * first: the pthread build when numpy or torch came before libdl (as in
 * most scripts, and in `import dl`, which imports numpy). That build keeps
 * its own worker threads spinning for a while after each GEMM, and the
 * OpenMP regions of libdl's kernels right after one fight them for the
 * cores. So libdl loads Debian's OpenMP build by its path (it then sits
 * beside the pthread one, local to libdl, and shares the process's single
 * libgomp pool with libdl's kernels and PyTorch's) and calls its GEMMs
 * through these pointers, whatever the import order. Where that build is
 * not installed, under AddressSanitizer, or when DL_BLAS=process asks for
 * it, the GEMMs are those of the OpenBLAS the process loaded.
 * docs/threading.md has the measurements. */
static struct
{
  __typeof__ (cblas_sgemm) *sgemm;
  __typeof__ (cblas_dgemm) *dgemm;
  gboolean openmp;   /* the OpenMP build: single-threaded inside our regions */
  const gchar *core; /* its kernels' name (OpenBLAS's), NULL where unknown */
} blas = { cblas_sgemm, cblas_dgemm, FALSE, NULL };

/* Which kernels OpenBLAS runs.
 *
 * Debian's OpenBLAS builds carry kernels for every x86-64 CPU and pick
 * them, when loaded, from the CPU's family and model. A model the build
 * does not know can fall through to the oldest 64-bit kernels: Debian
 * 12's 0.3.21 takes Intel's family 6, model 0xCF (Emerald Rapids, with
 * AVX-512 and AMX) for a Prescott and runs its GEMMs with SSE3, at a
 * quarter of the speed of its AVX-512 kernels (one core, sgemm of
 * 256x256x784: 32 GFLOP/s as "Prescott", 80 as "Haswell", 122-150 as
 * "SkylakeX"; docs/threading.md). OpenBLAS lets its choice be forced
 * (OPENBLAS_CORETYPE, read when it picks). So when the OpenBLAS libdl
 * calls says "Prescott" on a CPU of x86-64 level 3 or 4, libdl has it
 * pick again with the kernels of that level: "Haswell" (AVX2, FMA) or
 * "SkylakeX" (AVX-512 F, BW, CD, DQ, VL), the ones its own fallback for
 * unknown models would give. A choice the user forced with
 * OPENBLAS_CORETYPE stays. */

/* The OPENBLAS_CORETYPE to have OpenBLAS pick again with, when its
 * kernels are @core (openblas_get_corename) on a CPU of level @isa; NULL
 * to keep them. */
const gchar *
dl_cpu_blas_better_core (const gchar *core, DlCpuIsa isa)
{
  if (core == NULL || g_ascii_strcasecmp (core, "Prescott") != 0)
    return NULL;
  switch (isa)
    {
      case DL_CPU_ISA_V4:
        return "SkylakeX";
      case DL_CPU_ISA_V3:
        return "Haswell";
      case DL_CPU_ISA_BASELINE:
      default:
        return NULL;
    }
}

/* The name of the kernels of the OpenBLAS libdl calls (after
 * dl_cpu_blas_init ()), NULL where it does not say. */
const gchar *
dl_cpu_blas_get_core (void)
{
  return blas.core;
}

/* Has the OpenBLAS of @lib (a dlopen handle, or RTLD_DEFAULT for the
 * process's) pick its kernels again where dl_cpu_blas_better_core ()
 * says so, and notes their name. Done once, when the CPU backend starts,
 * before libdl's first GEMM: the library's selection is empty between
 * the two calls, so nothing may run a GEMM on it meanwhile (libdl's own
 * copy serves libdl alone; the process's serves others only when libdl
 * was loaded first, when nothing has called it yet). */
static void
choose_core (void *lib)
{
  char *(*get_core) (void) = (char *(*)(void))dlsym (lib, "openblas_get_corename");
  void (*quit) (void) = (void (*) (void))dlsym (lib, "gotoblas_dynamic_quit");
  void (*pick) (void) = (void (*) (void))dlsym (lib, "gotoblas_dynamic_init");
  const gchar *better;

  if (get_core == NULL)
    return;
  better = dl_cpu_blas_better_core (get_core (), dl_cpu_hardware_isa ());
  /* quit and pick exist only in builds that carry every CPU's kernels */
  if (better && quit && pick && g_getenv ("OPENBLAS_CORETYPE") == NULL)
    {
      g_setenv ("OPENBLAS_CORETYPE", better, TRUE);
      quit ();
      pick ();
      g_unsetenv ("OPENBLAS_CORETYPE");
    }
  blas.core = g_intern_string (get_core ());
}

/* Whether a sanitizer's runtime is in the process: Address- and
 * ThreadSanitizer refuse RTLD_DEEPBIND. */
static gboolean
under_sanitizer (void)
{
  return dlsym (RTLD_DEFAULT, "__asan_init") != NULL || dlsym (RTLD_DEFAULT, "__tsan_init") != NULL;
}

void
dl_cpu_blas_init (void)
{
#ifdef DL_OPENBLAS_OPENMP_PATH
  /* RTLD_DEEPBIND: the library's calls to its own exported functions (its
   * threading driver among them) bind inside it, not to the pthread build
   * that may already be global in the process (GModule, which
   * introspection loads libdl with, makes libraries global) */
  if (g_strcmp0 (g_getenv ("DL_BLAS"), "process") != 0 && !under_sanitizer ())
    {
      void *h = dlopen (DL_OPENBLAS_OPENMP_PATH, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      void *s = h ? dlsym (h, "cblas_sgemm") : NULL;
      void *d = h ? dlsym (h, "cblas_dgemm") : NULL;
      void *par = h ? dlsym (h, "openblas_get_parallel") : NULL;

      /* kept open for the process's life, as a linked library is */
      if (s && d && par && ((int (*) (void))par) () == 2)
        {
          blas.sgemm = (__typeof__ (cblas_sgemm) *)s;
          blas.dgemm = (__typeof__ (cblas_dgemm) *)d;
          blas.openmp = TRUE;
          choose_core (h);
          return;
        }
      if (h)
        dlclose (h);
    }
#endif
  blas.sgemm = cblas_sgemm;
  blas.dgemm = cblas_dgemm;
  blas.openmp = openblas_get_parallel () == 2;
  choose_core (RTLD_DEFAULT);
}

#define DEFINE_NAIVE(TN, T, ACC)                                                                   \
  static void gemm_naive_##TN (gint64 m, gint64 n, gint64 k, const T *a, gint64 a_rs, gint64 a_cs, \
                               const T *b, gint64 b_rs, gint64 b_cs, T *c, gint64 c_rs,            \
                               gint64 c_cs, gboolean accumulate)                                   \
  {                                                                                                \
    for (gint64 i = 0; i < m; i++)                                                                 \
      for (gint64 j = 0; j < n; j++)                                                               \
        {                                                                                          \
          /* wrapping as torch's integer products, in unsigned arithmetic */                       \
          guint64 acc = accumulate ? (guint64)(ACC)c[i * c_rs + j * c_cs] : 0;                     \
          for (gint64 p = 0; p < k; p++)                                                           \
            acc += (guint64)(ACC)a[i * a_rs + p * a_cs] * (guint64)(ACC)b[p * b_rs + j * b_cs];    \
          c[i * c_rs + j * c_cs] = (T)(ACC)acc;                                                    \
        }                                                                                          \
  }
DEFINE_NAIVE (i32, gint32, gint64)
DEFINE_NAIVE (i64, gint64, gint64)
DEFINE_NAIVE (u8, guint8, gint64)

static void
blas_gemm (DlDType dtype,
           gint64 m,
           gint64 n,
           gint64 k,
           const void *a,
           gint64 a_rs,
           gint64 a_cs,
           const void *b,
           gint64 b_rs,
           gint64 b_cs,
           void *c,
           gint64 c_rs,
           gboolean accumulate)
{
  CBLAS_TRANSPOSE ta, tb;
  blasint lda, ldb;

  blas_layout (a_rs, a_cs, k, &ta, &lda);
  blas_layout (b_rs, b_cs, n, &tb, &ldb);
  if (dtype == DL_DTYPE_FLOAT32)
    blas.sgemm (CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, accumulate ? 1.0f : 0.0f, c,
                MAX (c_rs, 1));
  else
    blas.dgemm (CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, accumulate ? 1.0 : 0.0, c,
                MAX (c_rs, 1));
}

/* Mid-sized products (m n k from about 72^3 to 256^3) run on one thread
 * inside OpenBLAS: below 100^3 it takes its single-threaded small-matrix
 * kernel, and above that its own threading starts late and packs more
 * than it gains. Here the rows (or the columns, for a wide and short C) are
 * split in one block per thread, each a single-threaded GEMM. Measured on 2
 * cores (AMD EPYC, OpenBLAS's Zen kernels), cblas_sgemm alone vs split:
 * 64^3 3.05 vs 2.4 us, 100^3 13.4 vs 8.1 us, 128^3 26 vs 20 us, 192^3 66
 * vs 58 us; at 48^3 the split loses (1.53 vs 1.68 us: an OpenMP region
 * costs about 0.7 us here). On an Intel Xeon with OpenBLAS's SkylakeX
 * kernels: 96^3 11.4 vs 6.6 us, 192^3 69 vs 55 us, 256^3 143 vs 125 us,
 * 384^3 412 vs 399 us, 1024^3 even (least of 300 calls each); there a
 * product from Python (a @ b, mean of 20000) gains from 72^3 on (6.0 vs
 * 6.3 us; 96^3 8.6 vs 12.0) and loses at 64^3 (4.5 vs 3.9), so the
 * split starts at 72^3.
 *
 * The OpenMP build of OpenBLAS runs single-threaded inside an OpenMP
 * region. A pthread build (used only where the OpenMP one is missing, see
 * above) would start its own threads inside ours for a block above 64^3,
 * its threading threshold, so with it the blocks stay below that. */
#define SPLIT_MIN_MNK (72.0 * 72 * 72)
#define SPLIT_MAX_MNK (256.0 * 256 * 256)
#define PTHREAD_BLAS_MAX_BLOCK_MNK (64.0 * 64 * 64)

static gboolean
gemm_split (DlDType dtype,
            gint64 m,
            gint64 n,
            gint64 k,
            const char *a,
            gint64 a_rs,
            gint64 a_cs,
            const char *b,
            gint64 b_rs,
            gint64 b_cs,
            char *c,
            gint64 c_rs,
            gboolean accumulate)
{
  gdouble mnk = (gdouble)m * n * k;
  gsize es = dl_dtype_get_size (dtype);
  gboolean by_rows = m >= n;
  gint64 len = by_rows ? m : n, panels = (len + 15) / 16;
  DlCpuTeamClock clock;
  gint nb, nt;

  if (mnk < SPLIT_MIN_MNK || mnk > SPLIT_MAX_MNK || omp_in_parallel ())
    return FALSE;
  /* blocks of whole 16-row (or 16-column) panels, one per thread of the
   * count the user set: a block's bits depend on its size (OpenBLAS picks
   * its kernels and blocking by shape), so the blocks stay these whatever
   * team runs them */
  nb = MIN (omp_get_max_threads (), len / 16);
  if (nb < 2 || (!blas.openmp && mnk / nb > PTHREAD_BLAS_MAX_BLOCK_MNK))
    return FALSE;

#define GEMM_BLOCK(i)                                                                              \
  G_STMT_START                                                                                     \
  {                                                                                                \
    gint64 lo = MIN (len, panels * (i) / nb * 16), hi = MIN (len, panels * ((i) + 1) / nb * 16);   \
    if (hi > lo && by_rows)                                                                        \
      blas_gemm (dtype, hi - lo, n, k, a + lo * a_rs * es, a_rs, a_cs, b, b_rs, b_cs,              \
                 c + lo * c_rs * es, c_rs, accumulate);                                            \
    else if (hi > lo)                                                                              \
      blas_gemm (dtype, m, hi - lo, k, a, a_rs, a_cs, b + lo * b_cs * es, b_rs, b_cs, c + lo * es, \
                 c_rs, accumulate);                                                                \
  }                                                                                                \
  G_STMT_END

  nt = MIN (dl_cpu_team_threads (), nb);
  if (nt < 2)
    {
      /* the machine is busy (dl-cpu-team.c): the same blocks one after
       * another, each on one thread as in a region (OpenMP's OpenBLAS takes
       * the calling thread's count) */
      gint saved = omp_get_max_threads ();

      omp_set_num_threads (1);
      for (gint i = 0; i < nb; i++)
        GEMM_BLOCK (i);
      omp_set_num_threads (saved);
      return TRUE;
    }
  dl_cpu_team_fork (&clock, nt);
#pragma omp parallel for num_threads(nt) schedule(static, 1)
  for (gint i = 0; i < nb; i++)
    {
      dl_cpu_team_arrive (&clock, omp_get_thread_num ());
      GEMM_BLOCK (i);
    }
  dl_cpu_team_join (&clock);
#undef GEMM_BLOCK
  return TRUE;
}

static void
gemm (DlDType dtype,
      gint64 m,
      gint64 n,
      gint64 k,
      const void *a,
      gint64 a_rs,
      gint64 a_cs,
      const void *b,
      gint64 b_rs,
      gint64 b_cs,
      void *c,
      gint64 c_rs,
      gint64 c_cs,
      gboolean accumulate)
{
  if (m == 0 || n == 0 || (k == 0 && accumulate))
    return;
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
      case DL_DTYPE_FLOAT64:
        if (k == 0)
          {
            gsize es = dl_dtype_get_size (dtype);
            for (gint64 i = 0; i < m; i++)
              memset ((char *)c + i * c_rs * es, 0, n * es);
            return;
          }
        if (!gemm_split (dtype, m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, c_rs, accumulate))
          blas_gemm (dtype, m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, c_rs, accumulate);
        break;
      case DL_DTYPE_INT32:
        gemm_naive_i32 (m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, c_rs, c_cs, accumulate);
        break;
      case DL_DTYPE_INT64:
        gemm_naive_i64 (m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, c_rs, c_cs, accumulate);
        break;
      case DL_DTYPE_UINT8:
        gemm_naive_u8 (m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, c_rs, c_cs, accumulate);
        break;
      default:
        g_return_if_reached (); /* the ops layer promotes or refuses first */
    }
}

/* One GEMM per matrix of the batch, in row-major order of the batch dims
 * (each may split its rows over the threads, see gemm_split). */
void
dl_cpu_gemm_batched (DlBackendContext *ctx, DlDType dtype, const DlGemmArgs *g)
{
  gsize es = dl_dtype_get_size (dtype);
  gint64 idx[DL_MAX_DIMS] = { 0 }, n_batch = 1;
  gint nd = g->batch_ndim;

  for (gint d = 0; d < nd; d++)
    n_batch *= g->batch_shape[d];
  for (gint64 i = 0; i < n_batch; i++)
    {
      gint64 oa = 0, ob = 0, oc = 0;

      for (gint d = 0; d < nd; d++)
        {
          oa += idx[d] * g->a_batch_strides[d];
          ob += idx[d] * g->b_batch_strides[d];
          oc += idx[d] * g->c_batch_strides[d];
        }
      gemm (dtype, g->m, g->n, g->k, g->a + oa * es, g->a_rs, g->a_cs, g->b + ob * es, g->b_rs,
            g->b_cs, g->c + oc * es, g->c_rs, g->c_cs, g->accumulate);
      for (gint d = nd - 1; d >= 0; d--)
        {
          if (++idx[d] < g->batch_shape[d])
            break;
          idx[d] = 0;
        }
    }
}

void
dl_cpu_blas_gemm_ex (DlDType dtype,
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
                     gint64 ldc)
{
  CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans;
  CBLAS_TRANSPOSE tb = trans_b ? CblasTrans : CblasNoTrans;

  if (m == 0 || n == 0)
    return;
  if (dtype == DL_DTYPE_FLOAT32)
    blas.sgemm (CblasRowMajor, ta, tb, m, n, k, 1.0f, a, MAX (lda, 1), b, MAX (ldb, 1), (float)beta,
                c, MAX (ldc, 1));
  else
    blas.dgemm (CblasRowMajor, ta, tb, m, n, k, 1.0, a, MAX (lda, 1), b, MAX (ldb, 1), beta, c,
                MAX (ldc, 1));
}
