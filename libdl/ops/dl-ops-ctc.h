/* dl-ops-ctc.h: the connectionist temporal classification loss.
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

DL_EXPORT DlTensor *dl_ctc_loss (DlTensor *log_probs,
                                 DlTensor *targets,
                                 const gint64 *input_lengths,
                                 gsize n_input_lengths,
                                 const gint64 *target_lengths,
                                 gsize n_target_lengths,
                                 gint64 blank,
                                 gboolean zero_infinity,
                                 GError **error);

G_END_DECLS
