/* dl-cuda-gemm-plan.h: how dl-cuda-blas.c hands a DlGemmArgs to cuBLAS,
 * as a plain function that the host test (tests/c/test-cuda-kernels.cpp)
 * runs too, through a column-major GEMM of its own.
 *
 * cuBLAS is column-major and DlGemmArgs' C is row-major, so each product
 * C = A B is asked for as C^T = B^T A^T: C (row stride c_rs, unit column
 * stride) read column-major is C^T (n x m) with leading dimension c_rs;
 * X = B^T (n x k) and Y = A^T (k x m) are each read column-major as the
 * transpose of the row-major operand (unit column stride: no transpose
 * op) or as the operand itself (unit row stride: the transpose op). The
 * innermost batch dim maps onto cuBLAS' strided batch; the outer ones
 * (n_outer products of the inner batch) loop on the host.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "backends/dl-backend.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 m, n, k;       /* cuBLAS' sizes: DlGemmArgs' n, m, k */
  gboolean trans_x;     /* X (the first operand) is B; its op */
  gboolean trans_y;     /* Y (the second operand) is A */
  gint64 ldx, ldy, ldc; /* leading dimensions */
  gint64 sx, sy, sc;    /* element strides of the strided batch */
  gint64 count;         /* products in one strided batch */
  gint outer_ndim;      /* the batch dims looped on the host */
  gint64 n_outer;       /* how many strided batches */
} DlCudaGemmPlan;

/* How cuBLAS reads a row-major operand of @rows x @cols with element
 * strides (rs, cs), as its column-major transpose (cols x rows): with no
 * op where the columns are contiguous, else as itself with the transpose
 * op. A size-1 dim's stride may be anything: ld then takes a value that
 * cuBLAS accepts. */
static inline void
dl_cuda_gemm_operand (gint64 rows, gint64 cols, gint64 rs, gint64 cs, gboolean *trans, gint64 *ld)
{
  if (cs == 1 && (rows == 1 || rs >= MAX (cols, 1)))
    {
      *trans = FALSE;
      *ld = rows == 1 ? MAX (cols, 1) : rs;
    }
  else
    {
      *trans = TRUE;
      *ld = cols == 1 ? MAX (rows, 1) : MAX (cs, 1);
    }
}

static inline void
dl_cuda_gemm_plan (const DlGemmArgs *g, DlCudaGemmPlan *p)
{
  gint nd = g->batch_ndim;

  p->m = g->n;
  p->n = g->m;
  p->k = g->k;
  dl_cuda_gemm_operand (g->k, g->n, g->b_rs, g->b_cs, &p->trans_x, &p->ldx);
  dl_cuda_gemm_operand (g->m, g->k, g->a_rs, g->a_cs, &p->trans_y, &p->ldy);
  p->ldc = MAX (g->c_rs, MAX (g->n, 1));
  p->count = nd > 0 ? g->batch_shape[nd - 1] : 1;
  p->sx = nd > 0 ? g->b_batch_strides[nd - 1] : 0;
  p->sy = nd > 0 ? g->a_batch_strides[nd - 1] : 0;
  p->sc = nd > 0 ? g->c_batch_strides[nd - 1] : 0;
  p->outer_ndim = MAX (nd - 1, 0);
  p->n_outer = 1;
  for (gint d = 0; d < p->outer_ndim; d++)
    p->n_outer *= g->batch_shape[d];
}

/* One row-major product c [m, n] = op (a) op (b) + beta c of float32 or
 * float64 matrices with unit column strides (op the transpose where ta /
 * tb, beta 0 or 1): what the recurrent slots' plan (dl-cuda-rnn-plan.h)
 * asks for and dl_cuda_gemm_ex (dl-cuda-blas.c) hands to cuBLAS. */
typedef struct
{
  gboolean ta, tb;
  gint64 m, n, k;
  const void *a;
  gint64 lda;
  const void *b;
  gint64 ldb;
  gdouble beta;
  void *c;
  gint64 ldc;
} DlCudaGemmEx;

G_END_DECLS
