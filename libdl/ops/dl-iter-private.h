/* dl-iter-private.h: building the strided loop nests the backends run.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-tensor-private.h"

G_BEGIN_DECLS

/* Sets up @iter over @shape for @n tensors (output first), broadcasting each
 * to @shape (right-aligned; size-1 dims get stride 0) and merging dims that
 * are contiguous in every operand (dl_iter_init_operands() on the tensors'
 * data, sizes and strides). The caller has checked that the shapes
 * broadcast. More than DL_ITER_INLINE_OPERANDS tensors: clear @iter after. */
void dl_iter_init (DlIter *iter, gint n, DlTensor **tensors, const gint64 *shape, gint ndim);
gboolean dl_broadcast_shapes (const gchar *op,
                              const gint64 *a,
                              gint a_ndim,
                              const gint64 *b,
                              gint b_ndim,
                              gint64 *out,
                              gint *out_ndim,
                              GError **error);

G_END_DECLS
