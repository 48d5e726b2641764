/* dl-ops-attention.h: scaled dot product attention.
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
DlTensor *dl_scaled_dot_product_attention (DlTensor *query,
                                           DlTensor *key,
                                           DlTensor *value,
                                           DlTensor *attn_mask,
                                           gdouble dropout_p,
                                           gboolean is_causal,
                                           gdouble scale,
                                           DlGenerator *generator,
                                           GError **error);

G_END_DECLS
