/* dl-cuda-dnn.h: the CUDA module's cuDNN slots (dl-cuda-dnn.c), which
 * dl_cuda_dnn_install() puts into the backend table when cuDNN can be
 * opened at run time.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "backends/dl-backend.h"

G_BEGIN_DECLS

/* Opens cuDNN (libcudnn.so.9) and fills @backend's conv2d_forward and
 * conv2d_backward; without it leaves them NULL and logs why (debug) */
void dl_cuda_dnn_install (DlBackend *backend);
void dl_cuda_conv2d_forward (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype);
void dl_cuda_conv2d_backward (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype);
/* destroys the cuDNN handle of @device, if it has one */
void dl_cuda_dnn_clear (gint device);

G_END_DECLS
