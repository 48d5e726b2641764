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
/* Copies the elements of @src, in row-major order and converted to
 * @dtype, into host memory at @dst (numel times @dtype's size bytes).
 * Tensors in host memory are read in place, whatever their layout (the
 * CPU's copy kernel). On another device a non-contiguous tensor is first
 * made contiguous there (its backend's copy kernel), its bytes come over
 * with the backend's copy_to_host, and a dtype conversion runs on the
 * host; as the synchronising read it is, it reports a kernel's failed
 * check (dl_device_take_kernel_status). @op names the read in errors. */
gboolean dl_tensor_copy_to_host (DlTensor *src,
                                 DlDType dtype,
                                 gpointer dst,
                                 const gchar *op,
                                 GError **error);
/* Writes the numel doubles at @values (row-major) into the contiguous @t,
 * converting them to its dtype: in place on host memory, else converted
 * on the host and sent with the backend's copy_from_host. */
gboolean dl_tensor_copy_from_host_doubles (DlTensor *t,
                                           const gdouble *values,
                                           const gchar *op,
                                           GError **error);
gboolean dl_broadcast_shapes (const gchar *op,
                              const gint64 *a,
                              gint a_ndim,
                              const gint64 *b,
                              gint b_ndim,
                              gint64 *out,
                              gint *out_ndim,
                              GError **error);

G_END_DECLS
