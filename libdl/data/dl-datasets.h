/* dl-datasets.h: readers for data set files, and the data sets over them.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-dataset.h"

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

#define DL_TYPE_FASHION_MNIST_DATASET (dl_fashion_mnist_dataset_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlFashionMnistDataset,
                      dl_fashion_mnist_dataset,
                      DL,
                      FASHION_MNIST_DATASET,
                      DlDataset)

DL_EXPORT
DlFashionMnistDataset *dl_fashion_mnist_dataset_new (const gchar *root,
                                                     gboolean train,
                                                     gdouble mean,
                                                     gdouble std,
                                                     GError **error);
DL_EXPORT
const gchar *dl_fashion_mnist_class_name (gint64 label);

G_END_DECLS
