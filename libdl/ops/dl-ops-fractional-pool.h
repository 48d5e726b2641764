/* dl-ops-fractional-pool.h: fractional max pooling.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"

G_BEGIN_DECLS

DL_EXPORT
DlTensor *dl_fractional_max_pool2d (DlTensor *input,
                                    const gint64 *kernel_size,
                                    const gint64 *output_size,
                                    DlTensor *random_samples,
                                    DlTensor **indices,
                                    GError **error);
DL_EXPORT
DlTensor *dl_fractional_max_pool3d (DlTensor *input,
                                    const gint64 *kernel_size,
                                    const gint64 *output_size,
                                    DlTensor *random_samples,
                                    DlTensor **indices,
                                    GError **error);

G_END_DECLS
