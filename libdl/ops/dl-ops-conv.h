/* dl-ops-conv.h: convolutions, the im2col/col2im (unfold/fold) they are
 * built on, and max pooling.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"

G_BEGIN_DECLS

DL_EXPORT
DlTensor *dl_unfold (DlTensor *input,
                     const gint64 *kernel_size,
                     const gint64 *dilation,
                     const gint64 *padding,
                     const gint64 *stride,
                     GError **error);
DL_EXPORT
DlTensor *dl_fold (DlTensor *input,
                   const gint64 *output_size,
                   const gint64 *kernel_size,
                   const gint64 *dilation,
                   const gint64 *padding,
                   const gint64 *stride,
                   GError **error);
DL_EXPORT
DlTensor *dl_conv2d (DlTensor *input,
                     DlTensor *weight,
                     DlTensor *bias,
                     const gint64 *stride,
                     const gint64 *padding,
                     const gint64 *dilation,
                     gint64 groups,
                     GError **error);
DL_EXPORT
DlTensor *dl_conv1d (DlTensor *input,
                     DlTensor *weight,
                     DlTensor *bias,
                     gint64 stride,
                     gint64 padding,
                     gint64 dilation,
                     gint64 groups,
                     GError **error);
DL_EXPORT
DlTensor *dl_conv_transpose2d (DlTensor *input,
                               DlTensor *weight,
                               DlTensor *bias,
                               const gint64 *stride,
                               const gint64 *padding,
                               const gint64 *output_padding,
                               gint64 groups,
                               const gint64 *dilation,
                               GError **error);
DL_EXPORT
DlTensor *dl_conv3d (DlTensor *input,
                     DlTensor *weight,
                     DlTensor *bias,
                     const gint64 *stride,
                     const gint64 *padding,
                     const gint64 *dilation,
                     gint64 groups,
                     GError **error);
DL_EXPORT
DlTensor *dl_conv_transpose3d (DlTensor *input,
                               DlTensor *weight,
                               DlTensor *bias,
                               const gint64 *stride,
                               const gint64 *padding,
                               const gint64 *output_padding,
                               gint64 groups,
                               const gint64 *dilation,
                               GError **error);
DL_EXPORT
DlTensor *dl_conv_transpose1d (DlTensor *input,
                               DlTensor *weight,
                               DlTensor *bias,
                               gint64 stride,
                               gint64 padding,
                               gint64 output_padding,
                               gint64 groups,
                               gint64 dilation,
                               GError **error);

DL_EXPORT
DlTensor *dl_max_pool2d (DlTensor *input,
                         const gint64 *kernel_size,
                         const gint64 *stride,
                         const gint64 *padding,
                         const gint64 *dilation,
                         gboolean ceil_mode,
                         DlTensor **indices,
                         GError **error);
DL_EXPORT
DlTensor *dl_max_unpool (DlTensor *input,
                         DlTensor *indices,
                         const gint64 *output_size,
                         gsize n_output_size,
                         GError **error);

G_END_DECLS
