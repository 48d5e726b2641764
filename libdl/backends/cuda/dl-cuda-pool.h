/* dl-cuda-pool.h: the CUDA module's max pooling slots, defined in
 * dl-cuda-pool.cu and registered in the backend table of
 * dl-cuda-backend.c; each launches on dl_cuda_current_stream (ctx).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_max_pool2d (DlBackendContext *ctx,
                         const DlConvGeometry *g,
                         const void *image,
                         void *out,
                         gint64 *indices,
                         DlDType dtype);
void dl_cuda_max_pool2d_backward (DlBackendContext *ctx,
                                  const DlConvGeometry *g,
                                  const void *grad_out,
                                  const gint64 *indices,
                                  void *grad_in,
                                  DlDType dtype);

G_END_DECLS
