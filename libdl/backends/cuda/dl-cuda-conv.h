/* dl-cuda-conv.h: the CUDA module's im2col and col2im slots, defined in
 * dl-cuda-conv.cu and registered in the backend table of
 * dl-cuda-backend.c; each launches on dl_cuda_current_stream (ctx).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_im2col (DlBackendContext *ctx,
                     const DlConvGeometry *g,
                     const void *image,
                     void *cols,
                     DlDType dtype);
void dl_cuda_col2im (DlBackendContext *ctx,
                     const DlConvGeometry *g,
                     const void *cols,
                     void *image,
                     DlDType dtype);

G_END_DECLS
