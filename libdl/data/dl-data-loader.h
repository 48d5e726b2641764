/* dl-data-loader.h: DlDataLoader, batches of a data set's samples, and
 * DlDataLoaderIter, one pass over them.
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

#define DL_TYPE_DATA_LOADER_ITER (dl_data_loader_iter_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlDataLoaderIter, dl_data_loader_iter, DL, DATA_LOADER_ITER, GObject)

#define DL_TYPE_DATA_LOADER (dl_data_loader_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlDataLoader, dl_data_loader, DL, DATA_LOADER, GObject)

DL_EXPORT
DlDataLoader *
dl_data_loader_new (DlDataset *dataset, gint64 batch_size, gboolean shuffle, GError **error);
DL_EXPORT
DlDataset *dl_data_loader_get_dataset (DlDataLoader *self);
DL_EXPORT
gint64 dl_data_loader_get_batch_size (DlDataLoader *self);
DL_EXPORT
gint64 dl_data_loader_get_length (DlDataLoader *self);
DL_EXPORT
DlDataLoaderIter *dl_data_loader_iterate (DlDataLoader *self, GError **error);
DL_EXPORT
gboolean dl_data_loader_iter_next (DlDataLoaderIter *self, GPtrArray **batch, GError **error);
DL_EXPORT
gint64 dl_data_loader_iter_get_position (DlDataLoaderIter *self);

G_END_DECLS
