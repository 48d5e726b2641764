/* dl-dataset.h: DlDataset, the base class of data sets, and the built-in
 * ones that wrap tensors or other data sets.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-generator.h"
#include "dl-tensor.h"

G_BEGIN_DECLS

#define DL_TYPE_DATASET (dl_dataset_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlDataset, dl_dataset, DL, DATASET, GObject)

/**
 * DlDatasetClass:
 * @parent_class: the parent class
 * @get_length: the number of samples; see dl_dataset_get_length()
 * @load_item: stores sample @index, its tensors in order, into @item; see
 *   #DlDatasetClass::load_item
 *
 * The class of data sets, as torch.utils.data.Dataset: a subclass gives
 * its length and loads one sample, a tuple of tensors (an image and its
 * label, say), by index. From Python they are `do_get_length` and
 * `do_load_item`, from GJS `vfunc_get_length` and `vfunc_load_item`, from
 * Vala `override get_length` and `override load_item`.
 *
 * Since: 0.1
 */
struct _DlDatasetClass
{
  GObjectClass parent_class;

  gint64 (*get_length) (DlDataset *self);
  void (*load_item) (DlDataset *self, gint64 index, GPtrArray **item, GError **error);

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
gint64 dl_dataset_get_length (DlDataset *self);
DL_EXPORT
GPtrArray *dl_dataset_get_item (DlDataset *self, gint64 index, GError **error);
DL_EXPORT
gboolean dl_dataset_is_thread_safe (DlDataset *self);

#define DL_TYPE_TENSOR_DATASET (dl_tensor_dataset_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlTensorDataset, dl_tensor_dataset, DL, TENSOR_DATASET, DlDataset)

DL_EXPORT
DlTensorDataset *dl_tensor_dataset_new (DlTensor **tensors, gsize n_tensors, GError **error);
DL_EXPORT
GPtrArray *dl_tensor_dataset_get_tensors (DlTensorDataset *self);

#define DL_TYPE_SUBSET (dl_subset_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSubset, dl_subset, DL, SUBSET, DlDataset)

DL_EXPORT
DlSubset *
dl_subset_new (DlDataset *dataset, const gint64 *indices, gsize n_indices, GError **error);
DL_EXPORT
DlDataset *dl_subset_get_dataset (DlSubset *self);
DL_EXPORT
const gint64 *dl_subset_get_indices (DlSubset *self, gsize *n_indices);

#define DL_TYPE_CONCAT_DATASET (dl_concat_dataset_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlConcatDataset, dl_concat_dataset, DL, CONCAT_DATASET, DlDataset)

DL_EXPORT
DlConcatDataset *dl_concat_dataset_new (DlDataset **datasets, gsize n_datasets, GError **error);
DL_EXPORT
GPtrArray *dl_concat_dataset_get_datasets (DlConcatDataset *self);

DL_EXPORT
GPtrArray *dl_random_split (DlDataset *dataset,
                            const gdouble *lengths,
                            gsize n_lengths,
                            DlGenerator *generator,
                            GError **error);

G_END_DECLS
