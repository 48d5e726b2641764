/* dl-linear.h: DlLinear, y = x W^T + b.
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

#define DL_TYPE_LINEAR (dl_linear_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlLinear, dl_linear, DL, LINEAR, DlModule)

/**
 * DlLinearClass:
 * @parent_class: the parent class
 *
 * The class of #DlLinear. Derivable, as PyTorch users subclass nn.Linear
 * (a layer with extra parameters or another forward).
 *
 * Since: 0.1
 */
struct _DlLinearClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlLinear *dl_linear_new (gint64 in_features, gint64 out_features, gboolean bias, GError **error);
DL_EXPORT
gint64 dl_linear_get_in_features (DlLinear *self);
DL_EXPORT
gint64 dl_linear_get_out_features (DlLinear *self);

G_END_DECLS
