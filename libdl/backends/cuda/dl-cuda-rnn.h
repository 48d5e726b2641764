/* dl-cuda-rnn.h: the CUDA module's recurrent slots, defined in
 * dl-cuda-rnn.cu and registered in the backend table of
 * dl-cuda-backend.c; each queues its work on dl_cuda_current_stream (ctx).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_rnn_forward (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype);
void dl_cuda_rnn_backward (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype);

G_END_DECLS
