/* dl-activation-modules.h: the small element-wise and shape modules:
 * DlRelu, DlLeakyRelu, DlGelu, DlSilu, DlSigmoid, DlTanh, DlIdentity,
 * DlFlatten, DlSoftmax, DlLogSoftmax, DlElu, DlHardtanh, DlSoftplus.
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

#define DL_TYPE_RELU (dl_relu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlRelu, dl_relu, DL, RELU, DlModule)

DL_EXPORT
DlRelu *dl_relu_new (gboolean inplace);
DL_EXPORT
gboolean dl_relu_get_inplace (DlRelu *self);

#define DL_TYPE_LEAKY_RELU (dl_leaky_relu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlLeakyRelu, dl_leaky_relu, DL, LEAKY_RELU, DlModule)

DL_EXPORT
DlLeakyRelu *dl_leaky_relu_new (gdouble negative_slope, gboolean inplace);
DL_EXPORT
gdouble dl_leaky_relu_get_negative_slope (DlLeakyRelu *self);
DL_EXPORT
gboolean dl_leaky_relu_get_inplace (DlLeakyRelu *self);

#define DL_TYPE_GELU (dl_gelu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlGelu, dl_gelu, DL, GELU, DlModule)

DL_EXPORT
DlGelu *dl_gelu_new (const gchar *approximate, GError **error);
DL_EXPORT
const gchar *dl_gelu_get_approximate (DlGelu *self);

#define DL_TYPE_SILU (dl_silu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSilu, dl_silu, DL, SILU, DlModule)

DL_EXPORT
DlSilu *dl_silu_new (gboolean inplace);
DL_EXPORT
gboolean dl_silu_get_inplace (DlSilu *self);

#define DL_TYPE_SIGMOID (dl_sigmoid_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSigmoid, dl_sigmoid, DL, SIGMOID, DlModule)

DL_EXPORT
DlSigmoid *dl_sigmoid_new (void);

#define DL_TYPE_TANH (dl_tanh_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlTanh, dl_tanh, DL, TANH, DlModule)

DL_EXPORT
DlTanh *dl_tanh_new (void);

#define DL_TYPE_IDENTITY (dl_identity_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlIdentity, dl_identity, DL, IDENTITY, DlModule)

DL_EXPORT
DlIdentity *dl_identity_new (void);

#define DL_TYPE_FLATTEN (dl_flatten_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlFlatten, dl_flatten, DL, FLATTEN, DlModule)

DL_EXPORT
DlFlatten *dl_flatten_new (gint64 start_dim, gint64 end_dim);
DL_EXPORT
gint64 dl_flatten_get_start_dim (DlFlatten *self);
DL_EXPORT
gint64 dl_flatten_get_end_dim (DlFlatten *self);

#define DL_TYPE_SOFTMAX (dl_softmax_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSoftmax, dl_softmax, DL, SOFTMAX, DlModule)

DL_EXPORT
DlSoftmax *dl_softmax_new (gint64 dim);
DL_EXPORT
gint64 dl_softmax_get_dim (DlSoftmax *self);

#define DL_TYPE_LOG_SOFTMAX (dl_log_softmax_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlLogSoftmax, dl_log_softmax, DL, LOG_SOFTMAX, DlModule)

DL_EXPORT
DlLogSoftmax *dl_log_softmax_new (gint64 dim);
DL_EXPORT
gint64 dl_log_softmax_get_dim (DlLogSoftmax *self);

#define DL_TYPE_ELU (dl_elu_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlElu, dl_elu, DL, ELU, DlModule)

DL_EXPORT
DlElu *dl_elu_new (gdouble alpha, gboolean inplace);

#define DL_TYPE_HARDTANH (dl_hardtanh_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlHardtanh, dl_hardtanh, DL, HARDTANH, DlModule)

DL_EXPORT
DlHardtanh *dl_hardtanh_new (gdouble min_val, gdouble max_val, gboolean inplace, GError **error);

#define DL_TYPE_SOFTPLUS (dl_softplus_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSoftplus, dl_softplus, DL, SOFTPLUS, DlModule)

DL_EXPORT
DlSoftplus *dl_softplus_new (gdouble beta, gdouble threshold);

G_END_DECLS
