/* dl-cuda-random.h: the CUDA module's random slots, defined in
 * dl-cuda-random.cu and registered in the backend table of
 * dl-cuda-backend.c. Each launches its work on dl_cuda_current_stream
 * (ctx) and returns without waiting for it; the numbers are the CPU
 * backend's (dl-philox.h).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_random (DlBackendContext *ctx,
                     DlRandomOp op,
                     void *data,
                     gint64 n,
                     DlDType dtype,
                     const DlRandomDraw *draw,
                     gdouble a,
                     gdouble b);
void dl_cuda_random_params (DlBackendContext *ctx,
                            DlRandomParamsOp op,
                            const gdouble *a,
                            const gdouble *b,
                            void *data,
                            gint64 n,
                            DlDType dtype,
                            const DlRandomDraw *draw);
void dl_cuda_multinomial (DlBackendContext *ctx,
                          const gdouble *weights,
                          gint64 rows,
                          gint64 k,
                          gint64 n_samples,
                          gboolean replacement,
                          gint64 *out,
                          const DlRandomDraw *draw,
                          DlKernelStatus *status);
void dl_cuda_dropout (DlBackendContext *ctx,
                      const void *in,
                      void *out,
                      guint8 *mask,
                      gint64 n,
                      gdouble p,
                      DlDType dtype,
                      const DlRandomDraw *draw);
void dl_cuda_attention_dropout_mask (DlBackendContext *ctx,
                                     const DlAttentionArgs *args,
                                     void *mask,
                                     DlDType dtype);

G_END_DECLS
