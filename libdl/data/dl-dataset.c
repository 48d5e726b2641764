/* dl-dataset.c: DlDataset, and the data sets built from tensors or other
 * data sets: DlTensorDataset, DlSubset, DlConcatDataset, dl_random_split().
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-dataset.h"
#include "dl-native-private.h"
#include "dl-error.h"
#include "dl-tensor-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-shape.h"

/**
 * DlDataset:
 *
 * A data set, as torch.utils.data.Dataset: samples by index, each a tuple
 * of tensors (an image and its label, say). Subclass it and implement
 * #DlDatasetClass.get_length and #DlDatasetClass.load_item, in C or in any
 * language; #DlDataLoader batches the samples.
 *
 * A subclass's load_item must be safe to call from several threads at
 * once when it is written in C (a #DlDataLoader with workers calls it from
 * its worker threads). One written in a binding's language (Python, GJS)
 * is only called on the thread that iterates the loader; see
 * dl_dataset_is_thread_safe().
 *
 * Since: 0.1
 */

G_DEFINE_TYPE (DlDataset, dl_dataset, G_TYPE_OBJECT)

static gint64
dl_dataset_real_get_length (DlDataset *self)
{
  return 0;
}

static void
dl_dataset_real_load_item (DlDataset *self, gint64 index, GPtrArray **item, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "dataset: %s does not implement load_item",
               G_OBJECT_TYPE_NAME (self));
}

static void
dl_dataset_class_init (DlDatasetClass *klass)
{
  klass->get_length = dl_dataset_real_get_length;
  klass->load_item = dl_dataset_real_load_item;
}

static void
dl_dataset_init (DlDataset *self)
{
}

/**
 * DlDatasetClass::load_item:
 * @self: a #DlDataset
 * @index: the sample's index, in [0, length)
 * @item: (out) (transfer full) (element-type DlTensor): return location
 *   for the sample: a new array holding a reference to each of its
 *   tensors (in C, one made with `g_ptr_array_new_with_free_func
 *   (g_object_unref)`)
 * @error: return location for a #GError
 *
 * Loads one sample; dl_dataset_get_item() calls it with an index it has
 * checked. On failure it sets @error and leaves @item unset. (The sample
 * comes back through a parameter, as #DlModuleClass::forward_many's
 * outputs do, so that an override hands its new tensors over.)
 *
 * Since: 0.1
 */

/**
 * dl_dataset_get_length: (virtual get_length)
 * @self: a #DlDataset
 *
 * Gives the number of samples in the data set, as `len ()` of a
 * `torch.utils.data.Dataset`; samples are numbered 0 to length - 1. A
 * subclass implements the get_length virtual method (`do_get_length` in
 * Python, `vfunc_get_length` in GJS, `override get_length` in Vala).
 *
 * Returns: the number of samples
 *
 * Since: 0.1
 */
gint64
dl_dataset_get_length (DlDataset *self)
{
  g_return_val_if_fail (DL_IS_DATASET (self), 0);
  return MAX (DL_DATASET_GET_CLASS (self)->get_length (self), 0);
}

static void
unref_if_set (gpointer p)
{
  if (p)
    g_object_unref (p);
}

/**
 * dl_dataset_get_item:
 * @self: a #DlDataset
 * @index: the sample's index; a negative one counts from the end
 * @error: return location for a #GError
 *
 * Loads sample @index through the subclass's
 * #DlDatasetClass::load_item. An index out of range is a %DL_ERROR_INDEX
 * error, as is what the subclass reports.
 *
 * Returns: (transfer container) (element-type DlTensor): the sample's
 *   tensors, in an array that drops them when freed, or %NULL with @error
 *   set
 *
 * Since: 0.1
 */
GPtrArray *
dl_dataset_get_item (DlDataset *self, gint64 index, GError **error)
{
  g_autoptr (GPtrArray) item = NULL;
  GError *local = NULL;
  gint64 n;

  g_return_val_if_fail (DL_IS_DATASET (self), NULL);
  n = dl_dataset_get_length (self);
  if (index < -n || index >= n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "dataset: index %" G_GINT64_FORMAT " is out of range for %s of %" G_GINT64_FORMAT
                   " samples",
                   index, G_OBJECT_TYPE_NAME (self), n);
      return NULL;
    }
  if (index < 0)
    index += n;
  DL_DATASET_GET_CLASS (self)->load_item (self, index, &item, &local);
  if (item)
    g_ptr_array_set_free_func (item, unref_if_set);
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (item == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "dataset: %s.load_item gave no sample for index %" G_GINT64_FORMAT,
                   G_OBJECT_TYPE_NAME (self), index);
      return NULL;
    }
  for (guint i = 0; i < item->len; i++)
    if (!DL_IS_TENSOR (g_ptr_array_index (item, i)))
      {
        g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                     "dataset: %s.load_item gave a sample whose element %u is not a tensor",
                     G_OBJECT_TYPE_NAME (self), i);
        return NULL;
      }
  return g_steal_pointer (&item);
}

/**
 * dl_dataset_is_thread_safe:
 * @self: a #DlDataset
 *
 * Whether #DlDataLoader workers may load samples of @self from their
 * threads: %TRUE when the class's load_item is compiled code (C or Vala),
 * %FALSE when a binding implemented it (a Python or GJS subclass: GJS
 * cannot run JavaScript on another thread, and Python code runs one thread
 * at a time anyway). A loader loads the samples of a data set that is not
 * thread-safe on the thread that iterates it.
 *
 * Returns: whether load_item may run on worker threads
 *
 * Since: 0.1
 */
gboolean
dl_dataset_is_thread_safe (DlDataset *self)
{
  g_return_val_if_fail (DL_IS_DATASET (self), FALSE);
  return dl_is_native_code ((gpointer)DL_DATASET_GET_CLASS (self)->load_item);
}

/* a GCopyFunc: a new reference (g_ptr_array_copy's arrays share their
 * source's free function, g_object_unref here) */
static gpointer
ref_object (gconstpointer object, gpointer user_data)
{
  return g_object_ref ((gpointer)object);
}

/* ---- DlTensorDataset ------------------------------------------------------ */

/**
 * DlTensorDataset:
 *
 * Samples that are slices of tensors along their first dimension, as
 * torch.utils.data.TensorDataset: sample i of a data set of images [N, 1,
 * 28, 28] and labels [N] is (images[i], labels[i]).
 *
 * Since: 0.1
 */
struct _DlTensorDataset
{
  DlDataset parent_instance;
  GPtrArray *tensors;
};

/**
 * DlTensorDatasetClass:
 * @parent_class: the class of #DlDataset
 *
 * The class structure of #DlTensorDataset. The type is final: its class adds
 * no virtual method to that of #DlDataset, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlTensorDataset, dl_tensor_dataset, DL_TYPE_DATASET)

static gint64
dl_tensor_dataset_get_length (DlDataset *dataset)
{
  DlTensorDataset *self = DL_TENSOR_DATASET (dataset);

  return self->tensors->len ? ((DlTensor *)g_ptr_array_index (self->tensors, 0))->sizes[0] : 0;
}

static void
dl_tensor_dataset_load_item (DlDataset *dataset, gint64 index, GPtrArray **item, GError **error)
{
  DlTensorDataset *self = DL_TENSOR_DATASET (dataset);
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < self->tensors->len; i++)
    {
      DlTensor *row = dl_tensor_select (g_ptr_array_index (self->tensors, i), 0, index, error);

      if (!row)
        return;
      g_ptr_array_add (out, row);
    }
  *item = g_steal_pointer (&out);
}

static void
dl_tensor_dataset_finalize (GObject *object)
{
  g_ptr_array_unref (DL_TENSOR_DATASET (object)->tensors);
  G_OBJECT_CLASS (dl_tensor_dataset_parent_class)->finalize (object);
}

static void
dl_tensor_dataset_class_init (DlTensorDatasetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dl_tensor_dataset_finalize;
  DL_DATASET_CLASS (klass)->get_length = dl_tensor_dataset_get_length;
  DL_DATASET_CLASS (klass)->load_item = dl_tensor_dataset_load_item;
}

static void
dl_tensor_dataset_init (DlTensorDataset *self)
{
  self->tensors = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * dl_tensor_dataset_new:
 * @tensors: (array length=n_tensors): the tensors, each with the same
 *   size in its first dimension (the number of samples)
 * @n_tensors: the number of tensors
 * @error: return location for a #GError
 *
 * Makes a data set whose sample i is (tensors[0][i], tensors[1][i], ...).
 * The data set keeps a reference to each tensor; tensors of different
 * first sizes, or a 0-d one, are a %DL_ERROR_SHAPE error.
 *
 * Returns: (transfer full): the data set, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensorDataset *
dl_tensor_dataset_new (DlTensor **tensors, gsize n_tensors, GError **error)
{
  g_autoptr (DlTensorDataset) self = NULL;

  g_return_val_if_fail (tensors != NULL || n_tensors == 0, NULL);
  for (gsize i = 0; i < n_tensors; i++)
    {
      g_return_val_if_fail (DL_IS_TENSOR (tensors[i]), NULL);
      if (tensors[i]->ndim == 0 || tensors[i]->sizes[0] != tensors[0]->sizes[0]
          || tensors[0]->ndim == 0)
        {
          g_set_error (
              error, DL_ERROR, DL_ERROR_SHAPE,
              "TensorDataset: Size mismatch between tensors: tensor 0 has %" G_GINT64_FORMAT
              " samples, tensor %" G_GSIZE_FORMAT " %" G_GINT64_FORMAT
              " (each needs a first dimension of the same size)",
              tensors[0]->ndim ? tensors[0]->sizes[0] : 0, i,
              tensors[i]->ndim ? tensors[i]->sizes[0] : 0);
          return NULL;
        }
    }
  self = g_object_new (DL_TYPE_TENSOR_DATASET, NULL);
  for (gsize i = 0; i < n_tensors; i++)
    g_ptr_array_add (self->tensors, g_object_ref (tensors[i]));
  return g_steal_pointer (&self);
}

/**
 * dl_tensor_dataset_get_tensors:
 * @self: a #DlTensorDataset
 *
 * Gives the tensors the data set was made from, as
 * `torch.utils.data.TensorDataset.tensors`: sample i is their i-th slices
 * along the first dimension.
 *
 * Returns: (transfer container) (element-type DlTensor): the tensors the
 *   samples are slices of
 *
 * Since: 0.1
 */
GPtrArray *
dl_tensor_dataset_get_tensors (DlTensorDataset *self)
{
  g_return_val_if_fail (DL_IS_TENSOR_DATASET (self), NULL);
  return g_ptr_array_copy (self->tensors, ref_object, NULL);
}

/* ---- DlSubset -------------------------------------------------------------- */

/**
 * DlSubset:
 *
 * The samples of another data set at given indices, as
 * torch.utils.data.Subset: sample i is sample indices[i] of the data set.
 *
 * Since: 0.1
 */
struct _DlSubset
{
  DlDataset parent_instance;
  DlDataset *dataset;
  GArray *indices; /* gint64 */
};

/**
 * DlSubsetClass:
 * @parent_class: the class of #DlDataset
 *
 * The class structure of #DlSubset. The type is final: its class adds no
 * virtual method to that of #DlDataset, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSubset, dl_subset, DL_TYPE_DATASET)

static gint64
dl_subset_get_length (DlDataset *dataset)
{
  return DL_SUBSET (dataset)->indices->len;
}

static void
dl_subset_load_item (DlDataset *dataset, gint64 index, GPtrArray **item, GError **error)
{
  DlSubset *self = DL_SUBSET (dataset);

  *item = dl_dataset_get_item (self->dataset, g_array_index (self->indices, gint64, index), error);
}

static void
dl_subset_finalize (GObject *object)
{
  DlSubset *self = DL_SUBSET (object);

  g_clear_object (&self->dataset);
  g_array_unref (self->indices);
  G_OBJECT_CLASS (dl_subset_parent_class)->finalize (object);
}

static void
dl_subset_class_init (DlSubsetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dl_subset_finalize;
  DL_DATASET_CLASS (klass)->get_length = dl_subset_get_length;
  DL_DATASET_CLASS (klass)->load_item = dl_subset_load_item;
}

static void
dl_subset_init (DlSubset *self)
{
  self->indices = g_array_new (FALSE, FALSE, sizeof (gint64));
}

/**
 * dl_subset_new:
 * @dataset: the data set the samples come from
 * @indices: (array length=n_indices): the indices of the samples in
 *   @dataset, in the subset's order (repeats allowed)
 * @n_indices: the number of indices
 * @error: return location for a #GError
 *
 * Makes the subset of @dataset at @indices. An index out of @dataset's
 * range is a %DL_ERROR_INDEX error.
 *
 * Returns: (transfer full): the subset, or %NULL with @error set
 *
 * Since: 0.1
 */
DlSubset *
dl_subset_new (DlDataset *dataset, const gint64 *indices, gsize n_indices, GError **error)
{
  DlSubset *self;
  gint64 n;

  g_return_val_if_fail (DL_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (indices != NULL || n_indices == 0, NULL);
  n = dl_dataset_get_length (dataset);
  for (gsize i = 0; i < n_indices; i++)
    if (indices[i] < -n || indices[i] >= n)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                     "Subset: index %" G_GINT64_FORMAT
                     " is out of range for %s of %" G_GINT64_FORMAT " samples",
                     indices[i], G_OBJECT_TYPE_NAME (dataset), n);
        return NULL;
      }
  self = g_object_new (DL_TYPE_SUBSET, NULL);
  self->dataset = g_object_ref (dataset);
  g_array_append_vals (self->indices, indices, n_indices);
  return self;
}

/**
 * dl_subset_get_dataset:
 * @self: a #DlSubset
 *
 * Gives the data set the subset takes its samples from, as
 * `torch.utils.data.Subset.dataset`.
 *
 * Returns: (transfer none): the data set the samples come from
 *
 * Since: 0.1
 */
DlDataset *
dl_subset_get_dataset (DlSubset *self)
{
  g_return_val_if_fail (DL_IS_SUBSET (self), NULL);
  return self->dataset;
}

/**
 * dl_subset_get_indices:
 * @self: a #DlSubset
 * @n_indices: (out): return location for the number of indices
 *
 * Gives the positions in the underlying data set of the subset's samples, in
 * order, as `torch.utils.data.Subset.indices`: sample i of the subset is
 * sample indices[i] of the data set. The array belongs to the subset.
 *
 * Returns: (array length=n_indices) (transfer none): the indices of the
 *   samples in the data set
 *
 * Since: 0.1
 */
const gint64 *
dl_subset_get_indices (DlSubset *self, gsize *n_indices)
{
  g_return_val_if_fail (DL_IS_SUBSET (self), NULL);
  g_return_val_if_fail (n_indices != NULL, NULL);
  *n_indices = self->indices->len;
  return (const gint64 *)self->indices->data;
}

/* ---- DlConcatDataset ------------------------------------------------------- */

/**
 * DlConcatDataset:
 *
 * Data sets one after the other, as torch.utils.data.ConcatDataset.
 *
 * Since: 0.1
 */
struct _DlConcatDataset
{
  DlDataset parent_instance;
  GPtrArray *datasets;
  GArray *ends; /* gint64: the cumulative lengths, as torch's cumulative_sizes */
};

/**
 * DlConcatDatasetClass:
 * @parent_class: the class of #DlDataset
 *
 * The class structure of #DlConcatDataset. The type is final: its class adds
 * no virtual method to that of #DlDataset, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlConcatDataset, dl_concat_dataset, DL_TYPE_DATASET)

static gint64
dl_concat_dataset_get_length (DlDataset *dataset)
{
  DlConcatDataset *self = DL_CONCAT_DATASET (dataset);

  return self->ends->len ? g_array_index (self->ends, gint64, self->ends->len - 1) : 0;
}

static void
dl_concat_dataset_load_item (DlDataset *dataset, gint64 index, GPtrArray **item, GError **error)
{
  DlConcatDataset *self = DL_CONCAT_DATASET (dataset);
  guint lo = 0, hi = self->ends->len - 1;

  /* the first data set whose end lies past index */
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (self->ends, gint64, mid) > index)
        hi = mid;
      else
        lo = mid + 1;
    }
  if (lo > 0)
    index -= g_array_index (self->ends, gint64, lo - 1);
  *item = dl_dataset_get_item (g_ptr_array_index (self->datasets, lo), index, error);
}

static void
dl_concat_dataset_finalize (GObject *object)
{
  DlConcatDataset *self = DL_CONCAT_DATASET (object);

  g_ptr_array_unref (self->datasets);
  g_array_unref (self->ends);
  G_OBJECT_CLASS (dl_concat_dataset_parent_class)->finalize (object);
}

static void
dl_concat_dataset_class_init (DlConcatDatasetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dl_concat_dataset_finalize;
  DL_DATASET_CLASS (klass)->get_length = dl_concat_dataset_get_length;
  DL_DATASET_CLASS (klass)->load_item = dl_concat_dataset_load_item;
}

static void
dl_concat_dataset_init (DlConcatDataset *self)
{
  self->datasets = g_ptr_array_new_with_free_func (g_object_unref);
  self->ends = g_array_new (FALSE, FALSE, sizeof (gint64));
}

/**
 * dl_concat_dataset_new:
 * @datasets: (array length=n_datasets): the data sets, in order
 * @n_datasets: the number of data sets, at least one
 * @error: return location for a #GError
 *
 * Makes the data set of the samples of @datasets one after the other.
 *
 * Returns: (transfer full): the concatenation, or %NULL with @error set
 *
 * Since: 0.1
 */
DlConcatDataset *
dl_concat_dataset_new (DlDataset **datasets, gsize n_datasets, GError **error)
{
  DlConcatDataset *self;
  gint64 end = 0;

  g_return_val_if_fail (datasets != NULL || n_datasets == 0, NULL);
  if (n_datasets == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "ConcatDataset: datasets should not be an empty iterable");
      return NULL;
    }
  for (gsize i = 0; i < n_datasets; i++)
    g_return_val_if_fail (DL_IS_DATASET (datasets[i]), NULL);
  self = g_object_new (DL_TYPE_CONCAT_DATASET, NULL);
  for (gsize i = 0; i < n_datasets; i++)
    {
      end += dl_dataset_get_length (datasets[i]);
      g_ptr_array_add (self->datasets, g_object_ref (datasets[i]));
      g_array_append_val (self->ends, end);
    }
  return self;
}

/**
 * dl_concat_dataset_get_datasets:
 * @self: a #DlConcatDataset
 *
 * Gives the data sets the concatenation is made of, as
 * `torch.utils.data.ConcatDataset.datasets`: their samples follow each other
 * in this order.
 *
 * Returns: (transfer container) (element-type DlDataset): the data sets,
 *   in order
 *
 * Since: 0.1
 */
GPtrArray *
dl_concat_dataset_get_datasets (DlConcatDataset *self)
{
  g_return_val_if_fail (DL_IS_CONCAT_DATASET (self), NULL);
  return g_ptr_array_copy (self->datasets, ref_object, NULL);
}

/* ---- random_split ---------------------------------------------------------- */

/* the subsets' lengths: @lengths as counts, or as fractions summing to 1
 * (floored, the remainder handed out one by one from the first, as torch
 * 1.13 does) */
static gboolean
split_lengths (gint64 n, const gdouble *lengths, gsize n_lengths, gint64 *out, GError **error)
{
  gdouble total = 0;
  gint64 count = 0;

  for (gsize i = 0; i < n_lengths; i++)
    total += lengths[i];
  if (fabs (total - 1) < 1e-9 && n != 1)
    {
      gint64 rest = n;

      for (gsize i = 0; i < n_lengths; i++)
        {
          if (!(lengths[i] >= 0 && lengths[i] <= 1))
            {
              g_set_error (
                  error, DL_ERROR, DL_ERROR_ARGUMENT,
                  "random_split: Fraction at index %" G_GSIZE_FORMAT " is not between 0 and 1", i);
              return FALSE;
            }
          out[i] = (gint64)floor (n * lengths[i]);
          rest -= out[i];
        }
      for (gint64 i = 0; i < rest; i++)
        out[i % n_lengths]++;
      return TRUE;
    }
  for (gsize i = 0; i < n_lengths; i++)
    {
      if (!(lengths[i] >= 0) || lengths[i] != floor (lengths[i]))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "random_split: length %g at index %" G_GSIZE_FORMAT
                       " is neither a count nor a fraction of lengths summing to 1",
                       lengths[i], i);
          return FALSE;
        }
      out[i] = (gint64)lengths[i];
      count += out[i];
    }
  if (count != n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "random_split: Sum of input lengths (%" G_GINT64_FORMAT
                   ") does not equal the length of the input dataset (%" G_GINT64_FORMAT ")",
                   count, n);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_random_split:
 * @dataset: the data set to split
 * @lengths: (array length=n_lengths): the subsets' lengths, as counts
 *   summing to the data set's length or as fractions summing to 1
 * @n_lengths: the number of subsets
 * @generator: (nullable): the generator that draws the permutation, or
 *   %NULL for the default one
 * @error: return location for a #GError
 *
 * Splits @dataset at random into non-overlapping subsets, as
 * torch.utils.data.random_split(): a random permutation of the indices,
 * cut into consecutive pieces of the given lengths. Fractions become
 * counts by flooring, the rest handed out one at a time from the first
 * subset on. The same @generator state gives the same split.
 *
 * Returns: (transfer container) (element-type DlSubset): the subsets, in
 *   an array that drops them when freed, or %NULL with @error set
 *
 * Since: 0.1
 */
GPtrArray *
dl_random_split (DlDataset *dataset,
                 const gdouble *lengths,
                 gsize n_lengths,
                 DlGenerator *generator,
                 GError **error)
{
  g_autoptr (GPtrArray) out = NULL;
  g_autoptr (DlTensor) perm = NULL;
  g_autofree gint64 *counts = NULL;
  const gint64 *idx;
  gint64 n, start = 0;

  g_return_val_if_fail (DL_IS_DATASET (dataset), NULL);
  g_return_val_if_fail (lengths != NULL || n_lengths == 0, NULL);
  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  n = dl_dataset_get_length (dataset);
  counts = g_new0 (gint64, MAX (n_lengths, 1));
  if (!split_lengths (n, lengths, n_lengths, counts, error)
      || !(perm = dl_randperm (n, DL_DTYPE_INT64, NULL, generator, error)))
    return NULL;
  idx = (const gint64 *)dl_tensor_data (perm);
  out = g_ptr_array_new_with_free_func (g_object_unref);
  for (gsize i = 0; i < n_lengths; i++)
    {
      DlSubset *s = dl_subset_new (dataset, idx + start, counts[i], error);

      if (!s)
        return NULL;
      g_ptr_array_add (out, s);
      start += counts[i];
    }
  return g_steal_pointer (&out);
}
