/* dl-pointwise-activation-modules.h: DlRelu6, DlHardswish, DlHardsigmoid,
 * DlMish, DlSelu, DlCelu, DlHardshrink, DlSoftshrink, DlTanhshrink,
 * DlSoftsign, DlLogSigmoid, DlThreshold, DlRrelu.
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

#define DL_TYPE_RELU6 (dl_relu6_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlRelu6, dl_relu6, DL, RELU6, DlModule)

DL_EXPORT
DlRelu6 *dl_relu6_new (gboolean inplace);

#define DL_TYPE_HARDSWISH (dl_hardswish_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlHardswish, dl_hardswish, DL, HARDSWISH, DlModule)

DL_EXPORT
DlHardswish *dl_hardswish_new (gboolean inplace);

#define DL_TYPE_HARDSIGMOID (dl_hardsigmoid_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlHardsigmoid, dl_hardsigmoid, DL, HARDSIGMOID, DlModule)

DL_EXPORT
DlHardsigmoid *dl_hardsigmoid_new (gboolean inplace);

#define DL_TYPE_MISH (dl_mish_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMish, dl_mish, DL, MISH, DlModule)

DL_EXPORT
DlMish *dl_mish_new (gboolean inplace);

#define DL_TYPE_SELU (dl_selu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSelu, dl_selu, DL, SELU, DlModule)

DL_EXPORT
DlSelu *dl_selu_new (gboolean inplace);

#define DL_TYPE_CELU (dl_celu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlCelu, dl_celu, DL, CELU, DlModule)

DL_EXPORT
DlCelu *dl_celu_new (gdouble alpha, gboolean inplace);

#define DL_TYPE_HARDSHRINK (dl_hardshrink_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlHardshrink, dl_hardshrink, DL, HARDSHRINK, DlModule)

DL_EXPORT
DlHardshrink *dl_hardshrink_new (gdouble lambd);

#define DL_TYPE_SOFTSHRINK (dl_softshrink_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSoftshrink, dl_softshrink, DL, SOFTSHRINK, DlModule)

DL_EXPORT
DlSoftshrink *dl_softshrink_new (gdouble lambd);

#define DL_TYPE_TANHSHRINK (dl_tanhshrink_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlTanhshrink, dl_tanhshrink, DL, TANHSHRINK, DlModule)

DL_EXPORT
DlTanhshrink *dl_tanhshrink_new (void);

#define DL_TYPE_SOFTSIGN (dl_softsign_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSoftsign, dl_softsign, DL, SOFTSIGN, DlModule)

DL_EXPORT
DlSoftsign *dl_softsign_new (void);

#define DL_TYPE_LOG_SIGMOID (dl_log_sigmoid_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlLogSigmoid, dl_log_sigmoid, DL, LOG_SIGMOID, DlModule)

DL_EXPORT
DlLogSigmoid *dl_log_sigmoid_new (void);

#define DL_TYPE_THRESHOLD (dl_threshold_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlThreshold, dl_threshold, DL, THRESHOLD, DlModule)

DL_EXPORT
DlThreshold *dl_threshold_new (gdouble threshold, gdouble value, gboolean inplace);

#define DL_TYPE_RRELU (dl_rrelu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlRrelu, dl_rrelu, DL, RRELU, DlModule)

DL_EXPORT
DlRrelu *dl_rrelu_new (gdouble lower, gdouble upper, gboolean inplace);

G_END_DECLS
