/* dl-bilinear.h: DlBilinear, y = x1^T A x2 + b.
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

#define DL_TYPE_BILINEAR (dl_bilinear_layer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlBilinear, dl_bilinear_layer, DL, BILINEAR, DlModule)

DL_EXPORT
DlBilinear *dl_bilinear_layer_new (gint64 in1_features,
                                   gint64 in2_features,
                                   gint64 out_features,
                                   gboolean bias,
                                   GError **error);

G_END_DECLS
