/* dl-format-private.h
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  DL_FORMAT_FLOAT,
  DL_FORMAT_INT,
  DL_FORMAT_BOOL
} DlFormatKind;

/* values: numel values in row-major (C-contiguous) order, as doubles (ints
 *   converted exactly).
 * shape/ndim: the tensor's shape (ndim may be 0 for a scalar).
 * suffixes: NULL-terminated array of extra ", key=value" items PyTorch appends
 *   inside the parentheses, e.g. {"dtype=torch.float64", "requires_grad=True",
 *   NULL}, or NULL for none.  (The formatter itself adds the "size=(0, 3)"
 *   suffix for empty tensors with ndim != 1, first, as torch does.)
 * Returns a newly allocated string like
 *   "tensor([[1., 2.],\n        [3., 4.]])". */
gchar *dl_format_tensor (const gdouble *values,
                         const gint64 *shape,
                         gsize ndim,
                         DlFormatKind kind,
                         const gchar *const *suffixes);

G_END_DECLS
