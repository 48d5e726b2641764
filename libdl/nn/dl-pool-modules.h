/* dl-pool-modules.h: the pooling layers DlMaxPool2d, DlAvgPool2d,
 * DlAdaptiveAvgPool2d, DlMaxPool3d, DlAvgPool3d and the dropout layer
 * DlDropout.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "nn/dl-module.h"

G_BEGIN_DECLS

#define DL_TYPE_MAX_POOL2D (dl_max_pool2d_layer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMaxPool2d, dl_max_pool2d_layer, DL, MAX_POOL2D, DlModule)

DL_EXPORT
DlMaxPool2d *dl_max_pool2d_layer_new (const gint64 *kernel_size,
                                      const gint64 *stride,
                                      const gint64 *padding,
                                      const gint64 *dilation,
                                      gboolean ceil_mode,
                                      GError **error);

#define DL_TYPE_AVG_POOL2D (dl_avg_pool2d_layer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlAvgPool2d, dl_avg_pool2d_layer, DL, AVG_POOL2D, DlModule)

DL_EXPORT
DlAvgPool2d *dl_avg_pool2d_layer_new (const gint64 *kernel_size,
                                      const gint64 *stride,
                                      const gint64 *padding,
                                      gboolean ceil_mode,
                                      gboolean count_include_pad,
                                      gint64 divisor_override,
                                      GError **error);

#define DL_TYPE_ADAPTIVE_AVG_POOL2D (dl_adaptive_avg_pool2d_layer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlAdaptiveAvgPool2d,
                      dl_adaptive_avg_pool2d_layer,
                      DL,
                      ADAPTIVE_AVG_POOL2D,
                      DlModule)

DL_EXPORT
DlAdaptiveAvgPool2d *dl_adaptive_avg_pool2d_layer_new (gint64 output_height,
                                                       gint64 output_width,
                                                       GError **error);

#define DL_TYPE_DROPOUT (dl_dropout_layer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlDropout, dl_dropout_layer, DL, DROPOUT, DlModule)

DL_EXPORT
DlDropout *dl_dropout_layer_new (gdouble p, gboolean inplace, GError **error);

#define DL_TYPE_MAX_POOL3D (dl_max_pool3d_layer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMaxPool3d, dl_max_pool3d_layer, DL, MAX_POOL3D, DlModule)

#define DL_TYPE_AVG_POOL3D (dl_avg_pool3d_layer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlAvgPool3d, dl_avg_pool3d_layer, DL, AVG_POOL3D, DlModule)

G_END_DECLS
