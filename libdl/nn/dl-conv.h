/* dl-conv.h: DlConv2d, DlConv1d, DlConvTranspose2d and DlConv3d, the
 * convolution layers.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-module.h"

G_BEGIN_DECLS

#define DL_TYPE_CONV2D (dl_conv2d_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlConv2d, dl_conv2d_layer, DL, CONV2D, DlModule)

/**
 * DlConv2dClass:
 * @parent_class: the parent class
 *
 * The class of #DlConv2d. Derivable, as PyTorch users subclass nn.Conv2d.
 *
 * Since: 0.1
 */
struct _DlConv2dClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlConv2d *dl_conv2d_layer_new (gint64 in_channels,
                               gint64 out_channels,
                               const gint64 *kernel_size,
                               const gint64 *stride,
                               const gint64 *padding,
                               const gint64 *dilation,
                               gint64 groups,
                               gboolean bias,
                               GError **error);

#define DL_TYPE_CONV1D (dl_conv1d_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlConv1d, dl_conv1d_layer, DL, CONV1D, DlModule)

/**
 * DlConv1dClass:
 * @parent_class: the parent class
 *
 * The class of #DlConv1d. Derivable, as PyTorch users subclass nn.Conv1d.
 *
 * Since: 0.1
 */
struct _DlConv1dClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlConv1d *dl_conv1d_layer_new (gint64 in_channels,
                               gint64 out_channels,
                               gint64 kernel_size,
                               gint64 stride,
                               gint64 padding,
                               gint64 dilation,
                               gint64 groups,
                               gboolean bias,
                               GError **error);

#define DL_TYPE_CONV_TRANSPOSE2D (dl_conv_transpose2d_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlConvTranspose2d,
                          dl_conv_transpose2d_layer,
                          DL,
                          CONV_TRANSPOSE2D,
                          DlModule)

/**
 * DlConvTranspose2dClass:
 * @parent_class: the parent class
 *
 * The class of #DlConvTranspose2d. Derivable, as PyTorch users subclass
 * nn.ConvTranspose2d.
 *
 * Since: 0.1
 */
struct _DlConvTranspose2dClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlConvTranspose2d *dl_conv_transpose2d_layer_new (gint64 in_channels,
                                                  gint64 out_channels,
                                                  const gint64 *kernel_size,
                                                  const gint64 *stride,
                                                  const gint64 *padding,
                                                  gint64 groups,
                                                  gboolean bias,
                                                  GError **error);

#define DL_TYPE_CONV3D (dl_conv3d_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlConv3d, dl_conv3d_layer, DL, CONV3D, DlModule)

/**
 * DlConv3dClass:
 * @parent_class: the parent class
 *
 * The class of #DlConv3d. Derivable, as PyTorch users subclass nn.Conv3d.
 *
 * Since: 0.1
 */
struct _DlConv3dClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlConv3d *dl_conv3d_layer_new (gint64 in_channels,
                               gint64 out_channels,
                               const gint64 *kernel_size,
                               const gint64 *stride,
                               const gint64 *padding,
                               const gint64 *dilation,
                               gint64 groups,
                               gboolean bias,
                               GError **error);

G_END_DECLS
