/* dl-ops-resample.h: padding, average and adaptive average pooling,
 * interpolation (separable linear maps of images) and dropout.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"
#include "dl-generator.h"

G_BEGIN_DECLS

/**
 * DlPadMode:
 * @DL_PAD_CONSTANT: a constant value outside the input
 * @DL_PAD_REFLECT: the input mirrored at its edges, the edge not repeated
 * @DL_PAD_REPLICATE: the edge values repeated
 * @DL_PAD_CIRCULAR: the input wrapped around
 *
 * How dl_pad() fills the padding, as torch.nn.functional.pad()'s modes.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_PAD_CONSTANT,
  DL_PAD_REFLECT,
  DL_PAD_REPLICATE,
  DL_PAD_CIRCULAR,
} DlPadMode;

/**
 * DlInterpolateMode:
 * @DL_INTERPOLATE_NEAREST: the nearest input element (PyTorch's
 *   'nearest': the one at floor(output index * input / output size))
 * @DL_INTERPOLATE_LINEAR: linear interpolation of 1-d signals [N, C, L]
 * @DL_INTERPOLATE_BILINEAR: bilinear interpolation of images [N, C, H, W]
 * @DL_INTERPOLATE_BICUBIC: bicubic interpolation of images [N, C, H, W]
 *   (PyTorch's cubic convolution, A = -0.75, edges repeated)
 * @DL_INTERPOLATE_TRILINEAR: trilinear interpolation of volumes
 *   [N, C, D, H, W]
 *
 * How dl_interpolate() resamples.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_INTERPOLATE_NEAREST,
  DL_INTERPOLATE_LINEAR,
  DL_INTERPOLATE_BILINEAR,
  DL_INTERPOLATE_BICUBIC,
  DL_INTERPOLATE_TRILINEAR,
} DlInterpolateMode;

DL_EXPORT
DlTensor *dl_pad (DlTensor *input,
                  const gint64 *pad,
                  gsize n_pad,
                  DlPadMode mode,
                  gdouble value,
                  GError **error);
DL_EXPORT
DlTensor *dl_avg_pool2d (DlTensor *input,
                         const gint64 *kernel_size,
                         const gint64 *stride,
                         const gint64 *padding,
                         gboolean ceil_mode,
                         gboolean count_include_pad,
                         gint64 divisor_override,
                         GError **error);
DL_EXPORT
DlTensor *dl_avg_pool3d (DlTensor *input,
                         const gint64 *kernel_size,
                         const gint64 *stride,
                         const gint64 *padding,
                         gboolean ceil_mode,
                         gboolean count_include_pad,
                         gint64 divisor_override,
                         GError **error);
DL_EXPORT
DlTensor *dl_adaptive_avg_pool2d (DlTensor *input, const gint64 *output_size, GError **error);
DL_EXPORT
DlTensor *dl_adaptive_avg_pool3d (DlTensor *input, const gint64 *output_size, GError **error);
DL_EXPORT
DlTensor *dl_adaptive_max_pool3d (DlTensor *input,
                                  const gint64 *output_size,
                                  DlTensor **indices,
                                  GError **error);
DL_EXPORT
DlTensor *dl_max_pool3d (DlTensor *input,
                         const gint64 *kernel_size,
                         const gint64 *stride,
                         const gint64 *padding,
                         const gint64 *dilation,
                         gboolean ceil_mode,
                         DlTensor **indices,
                         GError **error);
DL_EXPORT
DlTensor *dl_adaptive_max_pool2d (DlTensor *input,
                                  const gint64 *output_size,
                                  DlTensor **indices,
                                  GError **error);
DL_EXPORT
DlTensor *dl_interpolate (DlTensor *input,
                          const gint64 *size,
                          gsize n_size,
                          const gdouble *scales,
                          gsize n_scales,
                          DlInterpolateMode mode,
                          gboolean align_corners,
                          GError **error);
DL_EXPORT
DlTensor *
dl_dropout (DlTensor *input, gdouble p, gboolean train, DlGenerator *generator, GError **error);

G_END_DECLS
