/* dl-cuda-resample.h: the CUDA module's resampling slots, defined in
 * dl-cuda-resample.cu and registered in the backend table of
 * dl-cuda-backend.c; each launches on dl_cuda_current_stream (ctx).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

void dl_cuda_resample (DlBackendContext *ctx,
                       const DlResampleArgs *a,
                       const void *in,
                       void *out,
                       DlDType dtype);
void dl_cuda_resample_adjoint (DlBackendContext *ctx,
                               const DlResampleArgs *a,
                               const void *grad,
                               void *grad_in,
                               DlDType dtype);
void dl_cuda_resample_max (DlBackendContext *ctx,
                           const DlResampleArgs *a,
                           const void *in,
                           void *out,
                           gint64 *indices,
                           DlDType dtype);

G_END_DECLS
