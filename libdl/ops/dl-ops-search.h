/* dl-ops-search.h
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

DL_EXPORT DlTensor *dl_searchsorted (DlTensor *sorted_sequence,
                                     DlTensor *values,
                                     gboolean right,
                                     gboolean out_int32,
                                     DlTensor *sorter,
                                     GError **error);

G_END_DECLS
