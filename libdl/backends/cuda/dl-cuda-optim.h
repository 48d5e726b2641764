/* dl-cuda-optim.h: the CUDA module's optim_step slot, defined in
 * dl-cuda-optim.cu and registered in the backend table of
 * dl-cuda-backend.c; it launches on dl_cuda_current_stream (ctx).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_optim_step (DlBackendContext *ctx, const DlOptimStepArgs *args, DlDType dtype);

G_END_DECLS
