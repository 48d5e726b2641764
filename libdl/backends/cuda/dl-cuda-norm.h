/* dl-cuda-norm.h: the CUDA module's normalisation slots (batch, group and
 * layer norm, see DlNormArgs), defined in dl-cuda-norm.cu; each launches
 * on dl_cuda_current_stream (ctx).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_norm_forward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);
void dl_cuda_norm_backward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);
/* batch norm in eval mode: only rstd = 1 / sqrt (var + eps), for the
 * cuDNN slot (dl-cuda-dnn.c), whose inference call writes y alone */
void dl_cuda_norm_rstd (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);

G_END_DECLS
