/* dl-cpu-lapack.c: the lapack slot, over the LAPACK that OpenBLAS carries
 * (the library libdl links for its GEMMs, so no new dependency).
 *
 * Every matrix is column-major and contiguous, as LAPACK's Fortran
 * interface wants; the ops layer transposes. The matrices of a batch are
 * factored one after the other, each call free to use OpenBLAS's threads.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

/* LAPACK's Fortran ABI: every argument by address, integers 32-bit
 * (OpenBLAS's default interface), character lengths passed after the
 * arguments and ignored for the one-character flags used here. */
typedef int lp_int;

#define LAPACK_DECLS(P, T)                                                                         \
  void P##gesv_ (const lp_int *, const lp_int *, T *, const lp_int *, lp_int *, T *,               \
                 const lp_int *, lp_int *);                                                        \
  void P##getrf_ (const lp_int *, const lp_int *, T *, const lp_int *, lp_int *, lp_int *);        \
  void P##potrf_ (const char *, const lp_int *, T *, const lp_int *, lp_int *);                    \
  void P##geqrf_ (const lp_int *, const lp_int *, T *, const lp_int *, T *, T *, const lp_int *,   \
                  lp_int *);                                                                       \
  void P##orgqr_ (const lp_int *, const lp_int *, const lp_int *, T *, const lp_int *, const T *,  \
                  T *, const lp_int *, lp_int *);                                                  \
  void P##gesdd_ (const char *, const lp_int *, const lp_int *, T *, const lp_int *, T *, T *,     \
                  const lp_int *, T *, const lp_int *, T *, const lp_int *, lp_int *, lp_int *);   \
  void P##syevd_ (const char *, const char *, const lp_int *, T *, const lp_int *, T *, T *,       \
                  const lp_int *, lp_int *, const lp_int *, lp_int *);                             \
  void P##trtrs_ (const char *, const char *, const char *, const lp_int *, const lp_int *,        \
                  const T *, const lp_int *, T *, const lp_int *, lp_int *);
LAPACK_DECLS (s, float)
LAPACK_DECLS (d, double)

/* One matrix of each operand per call; a workspace, sized by LAPACK's
 * query (lwork = -1) on the first matrix, serves the whole batch. */
#define DEFINE_LAPACK(P, T)                                                                        \
  static void lapack_##P (DlLapackOp op, const DlLapackArgs *g)                                    \
  {                                                                                                \
    lp_int m = (lp_int)g->m, n = (lp_int)g->n, nrhs = (lp_int)g->nrhs;                             \
    lp_int k = MIN (m, n), lda = MAX (m, 1), ldb, lwork = -1, liwork = -1, info = 0;               \
    const char *uplo = g->upper ? "U" : "L";                                                       \
    g_autofree T *work = NULL;                                                                     \
    g_autofree lp_int *iwork = NULL;                                                               \
    g_autofree T *tau = NULL;                                                                      \
    g_autofree lp_int *piv = NULL;                                                                 \
    T wq = 0;                                                                                      \
    lp_int iwq = 0;                                                                                \
                                                                                                   \
    for (gint64 bi = 0; bi < g->n_batch; bi++)                                                     \
      {                                                                                            \
        T *a = (T *)g->a + bi * m * n;                                                             \
        info = 0;                                                                                  \
        switch (op)                                                                                \
          {                                                                                        \
            case DL_LAPACK_GESV:                                                                   \
              if (!piv)                                                                            \
                piv = g_new (lp_int, MAX (n, 1));                                                  \
              ldb = MAX (n, 1);                                                                    \
              P##gesv_ (&n, &nrhs, a, &lda, piv, (T *)g->b + bi * n * nrhs, &ldb, &info);          \
              break;                                                                               \
            case DL_LAPACK_GETRF:                                                                  \
              P##getrf_ (&m, &n, a, &lda, g->ipiv + bi * k, &info);                                \
              break;                                                                               \
            case DL_LAPACK_POTRF:                                                                  \
              P##potrf_ (uplo, &n, a, &lda, &info);                                                \
              for (lp_int j = 0; j < n; j++)                                                       \
                for (lp_int i = 0; i < n; i++)                                                     \
                  if (g->upper ? i > j : i < j)                                                    \
                    a[i + (gint64)j * n] = 0;                                                      \
              break;                                                                               \
            case DL_LAPACK_GEQRF:                                                                  \
              {                                                                                    \
                lp_int qc = g->full ? m : k, rr = g->full ? m : k;                                 \
                T *q = g->compute_q ? (T *)g->q + bi * (gint64)m * qc : NULL;                      \
                T *r = (T *)g->r + bi * (gint64)rr * n;                                            \
                if (!tau)                                                                          \
                  tau = g_new (T, MAX (k, 1));                                                     \
                if (!work)                                                                         \
                  {                                                                                \
                    lp_int qn = MAX (qc, 1);                                                       \
                    T w2 = 0;                                                                      \
                    P##geqrf_ (&m, &n, a, &lda, tau, &wq, &lwork, &info);                          \
                    if (q)                                                                         \
                      P##orgqr_ (&m, &qn, &k, a, &lda, tau, &w2, &lwork, &info);                   \
                    lwork = MAX (MAX ((lp_int)wq, (lp_int)w2), MAX (m, MAX (n, 1)));               \
                    work = g_new (T, lwork);                                                       \
                  }                                                                                \
                P##geqrf_ (&m, &n, a, &lda, tau, work, &lwork, &info);                             \
                for (lp_int j = 0; j < n; j++)                                                     \
                  for (lp_int i = 0; i < rr; i++)                                                  \
                    r[i + (gint64)j * rr] = i <= j && i < m ? a[i + (gint64)j * m] : 0;            \
                if (q)                                                                             \
                  {                                                                                \
                    /* orgqr builds Q in place, m x qc: a holds m x n */                           \
                    g_autofree T *qa = g_new0 (T, (gsize)m * MAX (qc, n) + 1);                     \
                    memcpy (qa, a, sizeof (T) * (gsize)m * MIN (n, qc));                           \
                    P##orgqr_ (&m, &qc, &k, qa, &lda, tau, work, &lwork, &info);                   \
                    memcpy (q, qa, sizeof (T) * (gsize)m * qc);                                    \
                  }                                                                                \
              }                                                                                    \
              break;                                                                               \
            case DL_LAPACK_GESDD:                                                                  \
              {                                                                                    \
                const char *jobz = !g->compute_uv ? "N" : g->full ? "A" : "S";                     \
                lp_int ucol = g->full ? m : k, vrow = g->full ? n : k;                             \
                lp_int ldu = MAX (m, 1), ldvt = MAX (vrow, 1);                                     \
                T *u = g->compute_uv ? (T *)g->u + bi * (gint64)m * ucol : NULL;                   \
                T *vt = g->compute_uv ? (T *)g->vt + bi * (gint64)vrow * n : NULL;                 \
                T du = 0, dvt = 0;                                                                 \
                if (!u)                                                                            \
                  u = &du, vt = &dvt, ldu = 1, ldvt = 1;                                           \
                if (!work)                                                                         \
                  {                                                                                \
                    iwork = g_new (lp_int, 8 * MAX (k, 1));                                        \
                    P##gesdd_ (jobz, &m, &n, a, &lda, (T *)g->s, u, &ldu, vt, &ldvt, &wq, &lwork,  \
                               iwork, &info);                                                      \
                    lwork = MAX ((lp_int)wq, 1);                                                   \
                    work = g_new (T, lwork);                                                       \
                  }                                                                                \
                P##gesdd_ (jobz, &m, &n, a, &lda, (T *)g->s + bi * k, u, &ldu, vt, &ldvt, work,    \
                           &lwork, iwork, &info);                                                  \
              }                                                                                    \
              break;                                                                               \
            case DL_LAPACK_SYEVD:                                                                  \
              {                                                                                    \
                const char *jobz = g->compute_uv ? "V" : "N";                                      \
                if (!work)                                                                         \
                  {                                                                                \
                    P##syevd_ (jobz, uplo, &n, a, &lda, (T *)g->w, &wq, &lwork, &iwq, &liwork,     \
                               &info);                                                             \
                    lwork = MAX ((lp_int)wq, 1);                                                   \
                    liwork = MAX (iwq, 1);                                                         \
                    work = g_new (T, lwork);                                                       \
                    iwork = g_new (lp_int, liwork);                                                \
                  }                                                                                \
                P##syevd_ (jobz, uplo, &n, a, &lda, (T *)g->w + bi * n, work, &lwork, iwork,       \
                           &liwork, &info);                                                        \
              }                                                                                    \
              break;                                                                               \
            case DL_LAPACK_TRTRS:                                                                  \
              ldb = MAX (n, 1);                                                                    \
              P##trtrs_ (uplo, g->trans ? "T" : "N", g->unit_diagonal ? "U" : "N", &n, &nrhs, a,   \
                         &lda, (T *)g->b + bi * n * nrhs, &ldb, &info);                            \
              /* a zero on the diagonal is LAPACK's error; torch gives inf */                      \
              info = 0;                                                                            \
              break;                                                                               \
            default:                                                                               \
              g_return_if_reached ();                                                              \
          }                                                                                        \
        g->info[bi] = info;                                                                        \
      }                                                                                            \
  }
DEFINE_LAPACK (s, float)
DEFINE_LAPACK (d, double)

void
dl_cpu_lapack (DlBackendContext *ctx, DlLapackOp op, const DlLapackArgs *args, DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT32)
    lapack_s (op, args);
  else
    lapack_d (op, args);
}
