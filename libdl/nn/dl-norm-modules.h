/* dl-norm-modules.h: the normalisation layers DlBatchNorm (DlBatchNorm1d,
 * DlBatchNorm2d), DlLayerNorm and DlGroupNorm.
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

#define DL_TYPE_BATCH_NORM (dl_batch_norm_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlBatchNorm, dl_batch_norm_layer, DL, BATCH_NORM, DlModule)

/**
 * DlBatchNormClass:
 * @parent_class: the parent class
 *
 * The class of #DlBatchNorm.
 *
 * Since: 0.1
 */
struct _DlBatchNormClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_BATCH_NORM1D (dl_batch_norm1d_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlBatchNorm1d, dl_batch_norm1d_layer, DL, BATCH_NORM1D, DlBatchNorm)

/**
 * DlBatchNorm1dClass:
 * @parent_class: the parent class
 *
 * The class of #DlBatchNorm1d.
 *
 * Since: 0.1
 */
struct _DlBatchNorm1dClass
{
  DlBatchNormClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_BATCH_NORM2D (dl_batch_norm2d_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlBatchNorm2d, dl_batch_norm2d_layer, DL, BATCH_NORM2D, DlBatchNorm)

/**
 * DlBatchNorm2dClass:
 * @parent_class: the parent class
 *
 * The class of #DlBatchNorm2d.
 *
 * Since: 0.1
 */
struct _DlBatchNorm2dClass
{
  DlBatchNormClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_BATCH_NORM3D (dl_batch_norm3d_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlBatchNorm3d, dl_batch_norm3d_layer, DL, BATCH_NORM3D, DlBatchNorm)

/**
 * DlBatchNorm3dClass:
 * @parent_class: the parent class
 *
 * The class of #DlBatchNorm3d.
 *
 * Since: 0.1
 */
struct _DlBatchNorm3dClass
{
  DlBatchNormClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_LAYER_NORM (dl_layer_norm_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlLayerNorm, dl_layer_norm_layer, DL, LAYER_NORM, DlModule)

/**
 * DlLayerNormClass:
 * @parent_class: the parent class
 *
 * The class of #DlLayerNorm.
 *
 * Since: 0.1
 */
struct _DlLayerNormClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

#define DL_TYPE_GROUP_NORM (dl_group_norm_layer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlGroupNorm, dl_group_norm_layer, DL, GROUP_NORM, DlModule)

/**
 * DlGroupNormClass:
 * @parent_class: the parent class
 *
 * The class of #DlGroupNorm.
 *
 * Since: 0.1
 */
struct _DlGroupNormClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlBatchNorm2d *dl_batch_norm2d_layer_new (gint64 num_features, GError **error);
DL_EXPORT
DlBatchNorm1d *dl_batch_norm1d_layer_new (gint64 num_features, GError **error);
DL_EXPORT
DlBatchNorm3d *dl_batch_norm3d_layer_new (gint64 num_features, GError **error);
DL_EXPORT
DlLayerNorm *dl_layer_norm_layer_new (const gint64 *normalized_shape,
                                      gsize n_dims,
                                      gdouble eps,
                                      gboolean elementwise_affine,
                                      GError **error);
DL_EXPORT
gint64 *dl_layer_norm_layer_get_normalized_shape (DlLayerNorm *self, gsize *n_dims);
DL_EXPORT
DlGroupNorm *dl_group_norm_layer_new (gint64 num_groups, gint64 num_channels, GError **error);

G_END_DECLS
