/* dl-ops-pointwise.h: elementwise ops. The ops of the table
 * (dl-ops-pointwise.def) are declared in the generated
 * dl-ops-pointwise-table.h; the rest here.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"
#include "dl-ops-pointwise-table.h"

G_BEGIN_DECLS

/**
 * DlOpFlags:
 * @DL_OP_FLAGS_NONE: nothing: every op
 * @DL_OP_FLAGS_UNARY: the op takes one tensor
 * @DL_OP_FLAGS_BINARY: the op takes two tensors, broadcast together
 * @DL_OP_FLAGS_DIFFERENTIABLE: the op records a gradient
 * @DL_OP_FLAGS_COMPARISON: the op gives a bool tensor from two operands
 * @DL_OP_FLAGS_INPLACE: there is `<name>_`, which writes into its first
 *   operand (and `<name>_scalar_` when the op also has
 *   %DL_OP_FLAGS_SCALAR)
 * @DL_OP_FLAGS_SCALAR: there is `<name>_scalar`, with a number as the
 *   second operand
 * @DL_OP_FLAGS_REFLECTED: there is `r<name>_scalar`, with a number as the
 *   first operand (Python's `2 - t`)
 * @DL_OP_FLAGS_ALPHA: there is `<name>_scaled`, which multiplies the
 *   second operand by a factor (torch.add's alpha)
 *
 * What an elementwise op of libdl's op table is and which variants of it
 * exist; see dl_pointwise_op_names().
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  DL_OP_FLAGS_NONE = 0,
  DL_OP_FLAGS_UNARY = 1 << 0,
  DL_OP_FLAGS_BINARY = 1 << 1,
  DL_OP_FLAGS_DIFFERENTIABLE = 1 << 2,
  DL_OP_FLAGS_COMPARISON = 1 << 3,
  DL_OP_FLAGS_INPLACE = 1 << 4,
  DL_OP_FLAGS_SCALAR = 1 << 5,
  DL_OP_FLAGS_REFLECTED = 1 << 6,
  DL_OP_FLAGS_ALPHA = 1 << 7,
} DlOpFlags;

DL_EXPORT GStrv dl_pointwise_op_names (DlOpFlags flags);

DL_EXPORT DlTensor *dl_tensor_fill_ (DlTensor *self, gdouble value, GError **error);
DL_EXPORT DlTensor *dl_tensor_zero_ (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_copy_ (DlTensor *self, DlTensor *src, GError **error);

DL_EXPORT DlTensor *dl_tensor_to_dtype (DlTensor *self, DlDType dtype, GError **error);
/**
 * DlMemoryFormat:
 * @DL_MEMORY_FORMAT_PRESERVE: as the source: its strides when it is dense
 *   (a transpose, say), else dense strides in the order of its own
 *   (torch.preserve_format)
 * @DL_MEMORY_FORMAT_CONTIGUOUS: row-major (torch.contiguous_format)
 *
 * The layout of a new tensor made like another (clone, empty_like).
 *
 * Since: 0.1
 */
typedef enum
{
  DL_MEMORY_FORMAT_PRESERVE,
  DL_MEMORY_FORMAT_CONTIGUOUS,
} DlMemoryFormat;

DL_EXPORT DlTensor *dl_tensor_clone (DlTensor *self, GError **error);
DL_EXPORT DlTensor *dl_tensor_clone_format (DlTensor *self, DlMemoryFormat format, GError **error);

G_END_DECLS
