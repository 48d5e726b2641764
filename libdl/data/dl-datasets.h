/* dl-datasets.h: readers for data set files.
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

/**
 * DL_FASHION_MNIST_DEFAULT_ROOT:
 *
 * Where Debian's dataset-fashion-mnist package installs the files.
 *
 * Since: 0.1
 */
#define DL_FASHION_MNIST_DEFAULT_ROOT "/usr/share/datasets/fashion-mnist"

DL_EXPORT
DlTensor *dl_read_idx (const gchar *path, GCancellable *cancellable, GError **error);
DL_EXPORT
gboolean dl_fashion_mnist_load (const gchar *root,
                                gboolean train,
                                DlTensor **images,
                                DlTensor **labels,
                                GError **error);

G_END_DECLS
