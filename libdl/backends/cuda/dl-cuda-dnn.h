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
 * conv2d_backward, and puts the cuDNN norm_forward, norm_backward and
 * max_pool2d below in place of the own kernels' slots; without cuDNN
 * leaves the table as it is and logs why (debug) */
void dl_cuda_dnn_install (DlBackend *backend);
void dl_cuda_conv2d_forward (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype);
void dl_cuda_conv2d_backward (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype);
/* batch norm through cuDNN where dl_cuda_batch_norm_plan takes it, the own
 * kernels (dl_cuda_norm_forward, dl_cuda_norm_backward) otherwise */
void dl_cuda_dnn_norm_forward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);
void dl_cuda_dnn_norm_backward (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);
/* max pooling through cuDNN where dl_cuda_max_pool_plan takes it (no
 * indices wanted), the own kernel (dl_cuda_max_pool2d) otherwise */
void dl_cuda_dnn_max_pool2d (DlBackendContext *ctx,
                             const DlConvGeometry *g,
                             const void *image,
                             void *out,
                             gint64 *indices,
                             DlDType dtype);
/* destroys the cuDNN handle of @device, if it has one */
void dl_cuda_dnn_clear (gint device);

G_END_DECLS
