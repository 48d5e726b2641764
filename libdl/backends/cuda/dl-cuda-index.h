/* dl-cuda-index.h: the CUDA module's indexing, sorting and grouping slots
 * (index, nonzero, sort, scan_extremum, scatter_rows, gather_rows,
 * unique_sorted), defined in dl-cuda-index.cu; each launches on
 * dl_cuda_current_stream (ctx) and returns without waiting.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_index (DlBackendContext *ctx,
                    DlIndexOp op,
                    const DlIndexArgs *args,
                    DlDType dtype,
                    DlKernelStatus *status);
void dl_cuda_nonzero (DlBackendContext *ctx,
                      const char *data,
                      DlDType dtype,
                      gint ndim,
                      const gint64 *shape,
                      const gint64 *strides,
                      gint64 *count,
                      gint64 *out);
void dl_cuda_sort (DlBackendContext *ctx,
                   void *data,
                   void *indices,
                   gint64 n_rows,
                   gint64 n,
                   gint64 k,
                   gboolean kth_only,
                   DlDType dtype,
                   gboolean descending);
void dl_cuda_scan_extremum (DlBackendContext *ctx,
                            void *data,
                            void *indices,
                            gint64 n_rows,
                            gint64 n,
                            DlDType dtype,
                            gboolean is_max);
void dl_cuda_scatter_rows (DlBackendContext *ctx,
                           void *out,
                           const void *src,
                           const void *index,
                           gint64 n_rows,
                           gint64 n_src,
                           gint64 n_out,
                           DlDType dtype,
                           gboolean accumulate);
void dl_cuda_gather_rows (DlBackendContext *ctx,
                          void *out,
                          const void *src,
                          const void *index,
                          gint64 n_rows,
                          gint64 n_out,
                          gint64 n_src,
                          DlDType dtype);
void dl_cuda_unique_sorted (DlBackendContext *ctx,
                            const void *sorted,
                            gint64 n,
                            DlDType dtype,
                            void *values,
                            void *counts,
                            void *group,
                            gint64 *n_groups);

G_END_DECLS
