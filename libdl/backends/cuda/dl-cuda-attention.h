/* dl-cuda-attention.h: the CUDA module's fused attention slots, defined
 * in dl-cuda-attention.cu and registered in the backend table of
 * dl-cuda-backend.c; each launches on dl_cuda_current_stream (ctx).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_attention_forward (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype);
void dl_cuda_attention_backward (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype);

G_END_DECLS
