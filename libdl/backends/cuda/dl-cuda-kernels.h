/* dl-cuda-kernels.h: the CUDA module's kernel slots, defined in
 * dl-cuda-kernels.cu (nvcc) and dl-cuda-blas.c (cuBLAS), registered in the backend
 * table of dl-cuda-backend.c. Each launches its work on
 * dl_cuda_current_stream (ctx) and returns without waiting for it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_copy (DlBackendContext *ctx, DlIter *iter, DlDType dst_dtype, DlDType src_dtype);
void dl_cuda_fill (DlBackendContext *ctx, DlIter *iter, DlDType dtype, gdouble value);
void dl_cuda_unary (DlBackendContext *ctx, DlUnaryOp op, DlIter *iter, DlDType dtype);
void dl_cuda_unary_params (DlBackendContext *ctx,
                           DlUnaryOp op,
                           DlIter *iter,
                           DlDType dtype,
                           const gdouble *params);
void
dl_cuda_binary (DlBackendContext *ctx, DlBinaryOp op, DlIter *iter, DlDType dtype, gdouble alpha);
void dl_cuda_ternary (DlBackendContext *ctx,
                      DlTernaryOp op,
                      DlIter *iter,
                      DlDType dtype,
                      const gdouble *params);
void dl_cuda_reduce (DlBackendContext *ctx, DlReduceOp op, const DlReduceArgs *args, DlDType dtype);
void dl_cuda_scan (DlBackendContext *ctx,
                   DlScanOp op,
                   void *data,
                   gint64 n_rows,
                   gint64 n,
                   DlDType dtype);
void dl_cuda_softmax (DlBackendContext *ctx,
                      const void *in,
                      void *out,
                      gint64 n_rows,
                      gint64 n,
                      DlDType dtype,
                      gboolean log);
/* gemm_batched of int32, int64 and uint8 (dl-cuda-kernels.cu) */
void dl_cuda_gemm_int (DlBackendContext *ctx, DlDType dtype, const DlGemmArgs *args);
void dl_cuda_gemm_batched (DlBackendContext *ctx, DlDType dtype, const DlGemmArgs *args);
/* opens cuBLAS (once); FALSE with a DL_ERROR_DEVICE error naming why not */
gboolean dl_cuda_blas_load (GError **error);
/* destroys the cuBLAS handle of @device, if it has one */
void dl_cuda_blas_clear (gint device);

G_END_DECLS
