/* dl-channel-activation-modules.h: DlPrelu, DlGlu, DlSoftmin, DlSoftmax2d.
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

#define DL_TYPE_PRELU (dl_prelu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlPrelu, dl_prelu, DL, PRELU, DlModule)

DL_EXPORT
DlPrelu *dl_prelu_new (gint64 num_parameters, gdouble init, GError **error);

#define DL_TYPE_GLU (dl_glu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlGlu, dl_glu, DL, GLU, DlModule)

DL_EXPORT
DlGlu *dl_glu_new (gint64 dim);

#define DL_TYPE_SOFTMIN (dl_softmin_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSoftmin, dl_softmin, DL, SOFTMIN, DlModule)

DL_EXPORT
DlSoftmin *dl_softmin_new (gint64 dim, GError **error);

#define DL_TYPE_SOFTMAX2D (dl_softmax2d_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSoftmax2d, dl_softmax2d, DL, SOFTMAX2D, DlModule)

DL_EXPORT
DlSoftmax2d *dl_softmax2d_new (void);

G_END_DECLS
