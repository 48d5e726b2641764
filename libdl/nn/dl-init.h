/* dl-init.h: filling parameters with the usual initialisations
 * (torch.nn.init).
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

DL_EXPORT
gdouble dl_init_calculate_gain (const gchar *nonlinearity, gdouble param, GError **error);
DL_EXPORT
gboolean dl_init_calculate_fan_in_and_fan_out (DlTensor *tensor,
                                               gint64 *fan_in,
                                               gint64 *fan_out,
                                               GError **error);
DL_EXPORT
DlTensor *
dl_init_uniform_ (DlTensor *tensor, gdouble a, gdouble b, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_init_normal_ (DlTensor *tensor,
                           gdouble mean,
                           gdouble std,
                           DlGenerator *generator,
                           GError **error);
DL_EXPORT
DlTensor *dl_init_trunc_normal_ (DlTensor *tensor,
                                 gdouble mean,
                                 gdouble std,
                                 gdouble a,
                                 gdouble b,
                                 DlGenerator *generator,
                                 GError **error);
DL_EXPORT
DlTensor *
dl_init_xavier_uniform_ (DlTensor *tensor, gdouble gain, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *
dl_init_xavier_normal_ (DlTensor *tensor, gdouble gain, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_init_kaiming_uniform_ (DlTensor *tensor,
                                    gdouble a,
                                    const gchar *mode,
                                    const gchar *nonlinearity,
                                    DlGenerator *generator,
                                    GError **error);
DL_EXPORT
DlTensor *dl_init_kaiming_normal_ (DlTensor *tensor,
                                   gdouble a,
                                   const gchar *mode,
                                   const gchar *nonlinearity,
                                   DlGenerator *generator,
                                   GError **error);
DL_EXPORT
DlTensor *
dl_init_orthogonal_ (DlTensor *tensor, gdouble gain, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_init_eye_ (DlTensor *tensor, GError **error);

G_END_DECLS
