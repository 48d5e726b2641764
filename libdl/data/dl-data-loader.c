/* dl-data-loader.c: DlDataLoader and its iterator.
 *
 * A pass draws the order of the samples (a permutation from the loader's
 * generator when shuffling), cuts it into batches and collates each batch:
 * the samples' j-th tensors stacked into the batch's j-th tensor. With
 * workers, batch b is loaded by whichever worker thread claims it; a
 * worker claims the next batch only while fewer than num_workers *
 * prefetch_factor batches wait to be taken, and the caller takes them in
 * order, so a pass gives the same batches with or without workers.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "dl-mutex-private.h"

#include <gio/gio.h>

#include "dl-data-loader.h"
#include "dl-error.h"
#include "dl-tensor-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-join.h"

/**
 * DlDataLoader:
 *
 * Batches of a #DlDataset's samples, as torch.utils.data.DataLoader: one
 * pass (dl_data_loader_iterate()) gives the samples in batches of
 * #DlDataLoader:batch-size, in order or shuffled, each batch a tuple of
 * tensors with a new first dimension (the samples' j-th tensors stacked).
 *
 * With #DlDataLoader:num-workers above 0, worker threads load the batches
 * ahead of the caller, at most num-workers × #DlDataLoader:prefetch-factor
 * of them, and the caller still gets them in order. Workers only run data
 * sets whose load_item is compiled code (dl_dataset_is_thread_safe()): a
 * data set written in JavaScript or Python loads on the thread that
 * iterates (GJS cannot run JavaScript on other threads; Python's own
 * DataLoader uses processes instead).
 *
 * Built from construct properties (`new Dl.DataLoader({dataset, batch_size:
 * 64, shuffle: true})` in GJS) or with dl_data_loader_new(); a bad value
 * is reported by g_initable_init() and dl_data_loader_iterate().
 *
 * Since: 0.1
 */
struct _DlDataLoader
{
  GObject parent_instance;
  DlDataset *dataset;
  gint64 batch_size;
  gboolean shuffle;
  gboolean drop_last;
  guint num_workers;
  guint prefetch_factor;
  DlGenerator *generator;
};

static void dl_data_loader_initable_iface_init (GInitableIface *iface);

/**
 * DlDataLoaderClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlDataLoader. The type is final: its class adds no
 * virtual method to that of GObject, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE_WITH_CODE (DlDataLoader,
                               dl_data_loader,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                      dl_data_loader_initable_iface_init))

enum
{
  PROP_0,
  PROP_DATASET,
  PROP_BATCH_SIZE,
  PROP_SHUFFLE,
  PROP_DROP_LAST,
  PROP_NUM_WORKERS,
  PROP_PREFETCH_FACTOR,
  PROP_GENERATOR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
check_loader (DlDataLoader *self, GError **error)
{
  if (self->dataset == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "DataLoader: no dataset given");
      return FALSE;
    }
  if (self->batch_size < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "DataLoader: batch_size should be a positive integer value, but got "
                   "batch_size=%" G_GINT64_FORMAT,
                   self->batch_size);
      return FALSE;
    }
  if (self->prefetch_factor < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "DataLoader: prefetch_factor should be a positive integer, got %u",
                   self->prefetch_factor);
      return FALSE;
    }
  return TRUE;
}

static gboolean
dl_data_loader_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  return check_loader (DL_DATA_LOADER (initable), error);
}

static void
dl_data_loader_initable_iface_init (GInitableIface *iface)
{
  iface->init = dl_data_loader_initable_init;
}

static void
dl_data_loader_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlDataLoader *self = DL_DATA_LOADER (object);

  switch (prop_id)
    {
      case PROP_DATASET:
        g_value_set_object (value, self->dataset);
        break;
      case PROP_BATCH_SIZE:
        g_value_set_int64 (value, self->batch_size);
        break;
      case PROP_SHUFFLE:
        g_value_set_boolean (value, self->shuffle);
        break;
      case PROP_DROP_LAST:
        g_value_set_boolean (value, self->drop_last);
        break;
      case PROP_NUM_WORKERS:
        g_value_set_uint (value, self->num_workers);
        break;
      case PROP_PREFETCH_FACTOR:
        g_value_set_uint (value, self->prefetch_factor);
        break;
      case PROP_GENERATOR:
        g_value_set_object (value, self->generator);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_data_loader_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlDataLoader *self = DL_DATA_LOADER (object);

  switch (prop_id)
    {
      case PROP_DATASET:
        g_set_object (&self->dataset, g_value_get_object (value));
        break;
      case PROP_BATCH_SIZE:
        self->batch_size = g_value_get_int64 (value);
        break;
      case PROP_SHUFFLE:
        self->shuffle = g_value_get_boolean (value);
        break;
      case PROP_DROP_LAST:
        self->drop_last = g_value_get_boolean (value);
        break;
      case PROP_NUM_WORKERS:
        self->num_workers = g_value_get_uint (value);
        break;
      case PROP_PREFETCH_FACTOR:
        self->prefetch_factor = g_value_get_uint (value);
        break;
      case PROP_GENERATOR:
        g_set_object (&self->generator, g_value_get_object (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_data_loader_dispose (GObject *object)
{
  DlDataLoader *self = DL_DATA_LOADER (object);

  g_clear_object (&self->dataset);
  g_clear_object (&self->generator);
  G_OBJECT_CLASS (dl_data_loader_parent_class)->dispose (object);
}

static void
dl_data_loader_class_init (DlDataLoaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                            | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = dl_data_loader_get_property;
  object_class->set_property = dl_data_loader_set_property;
  object_class->dispose = dl_data_loader_dispose;

  /**
   * DlDataLoader:dataset:
   *
   * The data set whose samples the loader batches.
   *
   * Since: 0.1
   */
  properties[PROP_DATASET] = g_param_spec_object ("dataset", NULL, NULL, DL_TYPE_DATASET, flags);
  /**
   * DlDataLoader:batch-size:
   *
   * The number of samples per batch (the last one may have fewer; see
   * #DlDataLoader:drop-last).
   *
   * Since: 0.1
   */
  properties[PROP_BATCH_SIZE]
      = g_param_spec_int64 ("batch-size", NULL, NULL, G_MININT64, G_MAXINT64, 1, flags);
  /**
   * DlDataLoader:shuffle:
   *
   * Whether each pass visits the samples in a new random order, drawn from
   * #DlDataLoader:generator.
   *
   * Since: 0.1
   */
  properties[PROP_SHUFFLE] = g_param_spec_boolean ("shuffle", NULL, NULL, FALSE, flags);
  /**
   * DlDataLoader:drop-last:
   *
   * Whether a last batch with fewer than #DlDataLoader:batch-size samples
   * is left out.
   *
   * Since: 0.1
   */
  properties[PROP_DROP_LAST] = g_param_spec_boolean ("drop-last", NULL, NULL, FALSE, flags);
  /**
   * DlDataLoader:num-workers:
   *
   * The number of worker threads that load batches ahead of the caller;
   * 0 loads each batch when it is asked for.
   *
   * Since: 0.1
   */
  properties[PROP_NUM_WORKERS] = g_param_spec_uint ("num-workers", NULL, NULL, 0, 1024, 0, flags);
  /**
   * DlDataLoader:prefetch-factor:
   *
   * How many batches each worker may load ahead of the caller.
   *
   * Since: 0.1
   */
  properties[PROP_PREFETCH_FACTOR]
      = g_param_spec_uint ("prefetch-factor", NULL, NULL, 0, G_MAXUINT, 2, flags);
  /**
   * DlDataLoader:generator:
   *
   * The generator that draws the shuffled orders, or %NULL for the default
   * one: a generator seeded the same way gives the same orders.
   *
   * Since: 0.1
   */
  properties[PROP_GENERATOR]
      = g_param_spec_object ("generator", NULL, NULL, DL_TYPE_GENERATOR, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_data_loader_init (DlDataLoader *self)
{
  self->batch_size = 1;
  self->prefetch_factor = 2;
}

/**
 * dl_data_loader_new:
 * @dataset: the data set
 * @batch_size: the number of samples per batch, at least 1
 * @shuffle: whether each pass visits the samples in a new random order
 * @error: return location for a #GError
 *
 * Makes a loader without workers whose shuffled orders come from the
 * default generator; set other options through the construct properties.
 *
 * As `torch.utils.data.DataLoader (dataset, batch_size, shuffle)`: each pass
 * (dl_data_loader_iterate()) gives batches of @batch_size samples, the j-th
 * tensor of a batch the samples' j-th tensors stacked along a new first dim.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) x = NULL;
 * g_autoptr (DlTensor) y = NULL;
 * g_autoptr (DlTensorDataset) data = NULL;
 * g_autoptr (DlDataLoader) loader = NULL;
 * g_autoptr (DlDataLoaderIter) it = NULL;
 * g_autoptr (GPtrArray) batch = NULL;
 * DlTensor *tensors[2];
 *
 * if (!(x = dl_randn (DL_SHAPE (1000, 20), DL_DTYPE_FLOAT32, NULL, &error))
 *     || !(y = dl_randint (0, 2, DL_SHAPE (1000), DL_DTYPE_INT64, NULL, &error)))
 *   return;
 * tensors[0] = x;
 * tensors[1] = y;
 * if (!(data = dl_tensor_dataset_new (tensors, 2, &error))
 *     || !(loader = dl_data_loader_new (DL_DATASET (data), 32, TRUE, &error))
 *     || !(it = dl_data_loader_iterate (loader, &error)))
 *   return;
 * while (dl_data_loader_iter_next (it, &batch, &error))
 *   g_print ("a batch of %" G_GINT64_FORMAT " samples\n",
 *            dl_tensor_get_size (g_ptr_array_index (batch, 0), 0, NULL));
 * ]|
 *
 * Fails with %DL_ERROR_ARGUMENT when @batch_size is below 1.
 *
 * Returns: (transfer full): the loader, or %NULL with @error set
 *
 * Since: 0.1
 */
DlDataLoader *
dl_data_loader_new (DlDataset *dataset, gint64 batch_size, gboolean shuffle, GError **error)
{
  g_return_val_if_fail (DL_IS_DATASET (dataset), NULL);
  return g_initable_new (DL_TYPE_DATA_LOADER, NULL, error, "dataset", dataset, "batch-size",
                         batch_size, "shuffle", shuffle, NULL);
}

/**
 * dl_data_loader_get_dataset:
 * @self: a #DlDataLoader
 *
 * Gives the data set the loader draws its samples from, the
 * #DlDataLoader:dataset property.
 *
 * Returns: (transfer none) (nullable): the data set
 *
 * Since: 0.1
 */
DlDataset *
dl_data_loader_get_dataset (DlDataLoader *self)
{
  g_return_val_if_fail (DL_IS_DATA_LOADER (self), NULL);
  return self->dataset;
}

/**
 * dl_data_loader_get_batch_size:
 * @self: a #DlDataLoader
 *
 * Gives the number of samples per batch, the #DlDataLoader:batch-size
 * property; the last batch of a pass may be smaller unless
 * #DlDataLoader:drop-last is set.
 *
 * Returns: the number of samples per batch
 *
 * Since: 0.1
 */
gint64
dl_data_loader_get_batch_size (DlDataLoader *self)
{
  g_return_val_if_fail (DL_IS_DATA_LOADER (self), 0);
  return self->batch_size;
}

static gint64
n_batches (DlDataLoader *self, gint64 n)
{
  if (self->batch_size < 1)
    return 0;
  return self->drop_last ? n / self->batch_size : (n + self->batch_size - 1) / self->batch_size;
}

/**
 * dl_data_loader_get_length:
 * @self: a #DlDataLoader
 *
 * Gives the number of batches in one pass over the data set, as `len ()` of
 * a `torch.utils.data.DataLoader`: the number of samples divided by the
 * batch size, rounded up, or down with #DlDataLoader:drop-last. 0 without a
 * data set.
 *
 * Returns: the number of batches in a pass, as len() of a PyTorch
 *   DataLoader
 *
 * Since: 0.1
 */
gint64
dl_data_loader_get_length (DlDataLoader *self)
{
  g_return_val_if_fail (DL_IS_DATA_LOADER (self), 0);
  return self->dataset ? n_batches (self, dl_dataset_get_length (self->dataset)) : 0;
}

/* ---- collation ------------------------------------------------------------- */

/* the samples' j-th tensors stacked, for each j */
static GPtrArray *
collate (GPtrArray *samples, GError **error)
{
  g_autoptr (GPtrArray) batch = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree DlTensor **column = g_new (DlTensor *, samples->len);
  const GPtrArray *first = g_ptr_array_index (samples, 0);

  for (guint i = 1; i < samples->len; i++)
    {
      const GPtrArray *s = g_ptr_array_index (samples, i);

      if (s->len != first->len)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "DataLoader: collate: each element in list of batch should be of equal "
                       "size (sample 0 has %u tensors, sample %u has %u)",
                       first->len, i, s->len);
          return NULL;
        }
    }
  for (guint j = 0; j < first->len; j++)
    {
      g_autoptr (GError) local = NULL;
      DlTensor *stacked;

      for (guint i = 0; i < samples->len; i++)
        column[i] = g_ptr_array_index ((GPtrArray *)g_ptr_array_index (samples, i), j);
      if (!(stacked = dl_stack (column, samples->len, 0, &local)))
        {
          g_set_error (error, local->domain, local->code, "DataLoader: collate: element %u: %s", j,
                       local->message);
          return NULL;
        }
      g_ptr_array_add (batch, stacked);
    }
  return g_steal_pointer (&batch);
}

/* ---- DlDataLoaderIter ---------------------------------------------------------- */

/**
 * DlDataLoaderIter:
 *
 * One pass of a #DlDataLoader over its data set: dl_data_loader_iter_next()
 * gives the batches in order, then %FALSE. Dropping the iterator stops its
 * workers.
 *
 * Since: 0.1
 */

typedef struct
{
  GPtrArray *batch; /* a loaded batch, or NULL */
  GError *error;    /* or the reason it failed */
  gboolean done;
} Slot;

struct _DlDataLoaderIter
{
  GObject parent_instance;
  DlDataset *dataset;
  gint64 *order; /* the sample indices of the pass, in order */
  gint64 n_samples, batch_size, n_batches;
  gint64 position; /* the next batch to give */
  gboolean failed; /* a batch failed: the pass is over */

  /* workers */
  GMutex lock;
  GCond changed;
  GThread **threads;
  guint n_threads;
  gint64 next_claim; /* the next batch a worker takes */
  gint64 ahead;      /* how far past position workers may load */
  gboolean stopping;
  Slot *slots; /* one per batch */
};

/**
 * DlDataLoaderIterClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlDataLoaderIter. The type is final: its class
 * adds no virtual method to that of GObject, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlDataLoaderIter, dl_data_loader_iter, G_TYPE_OBJECT)

/* loads and collates batch @b */
static GPtrArray *
load_batch (DlDataLoaderIter *self, gint64 b, GError **error)
{
  g_autoptr (GPtrArray) samples
      = g_ptr_array_new_with_free_func ((GDestroyNotify)g_ptr_array_unref);
  gint64 start = b * self->batch_size, end = MIN (start + self->batch_size, self->n_samples);

  for (gint64 i = start; i < end; i++)
    {
      GPtrArray *s = dl_dataset_get_item (self->dataset, self->order[i], error);

      if (!s)
        return NULL;
      g_ptr_array_add (samples, s);
    }
  return collate (samples, error);
}

static gpointer
worker (gpointer data)
{
  DlDataLoaderIter *self = data;

  dl_mutex_lock (&self->lock);
  for (;;)
    {
      gint64 b;
      GPtrArray *batch;
      GError *error = NULL;

      while (!self->stopping && self->next_claim < self->n_batches
             && self->next_claim >= self->position + self->ahead)
        dl_cond_wait (&self->changed, &self->lock);
      if (self->stopping || self->next_claim >= self->n_batches)
        break;
      b = self->next_claim++;
      dl_mutex_unlock (&self->lock);
      batch = load_batch (self, b, &error);
      dl_mutex_lock (&self->lock);
      self->slots[b].batch = batch;
      self->slots[b].error = error;
      self->slots[b].done = TRUE;
      g_cond_broadcast (&self->changed);
    }
  dl_mutex_unlock (&self->lock);
  return NULL;
}

static void
stop_workers (DlDataLoaderIter *self)
{
  if (!self->threads)
    return;
  dl_mutex_lock (&self->lock);
  self->stopping = TRUE;
  g_cond_broadcast (&self->changed);
  dl_mutex_unlock (&self->lock);
  for (guint i = 0; i < self->n_threads; i++)
    g_thread_join (self->threads[i]);
  g_clear_pointer (&self->threads, g_free);
}

static void
dl_data_loader_iter_finalize (GObject *object)
{
  DlDataLoaderIter *self = DL_DATA_LOADER_ITER (object);

  stop_workers (self);
  if (self->slots)
    for (gint64 b = 0; b < self->n_batches; b++)
      {
        g_clear_pointer (&self->slots[b].batch, g_ptr_array_unref);
        g_clear_error (&self->slots[b].error);
      }
  g_free (self->slots);
  g_free (self->order);
  g_clear_object (&self->dataset);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->changed);
  G_OBJECT_CLASS (dl_data_loader_iter_parent_class)->finalize (object);
}

static void
dl_data_loader_iter_class_init (DlDataLoaderIterClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dl_data_loader_iter_finalize;
}

static void
dl_data_loader_iter_init (DlDataLoaderIter *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->changed);
}

/**
 * dl_data_loader_iterate:
 * @self: a #DlDataLoader
 * @error: return location for a #GError
 *
 * Starts a pass over the data set: draws the order of the samples (a new
 * permutation when shuffling) and starts the workers, if any.
 *
 * Returns: (transfer full): the pass, or %NULL with @error set
 *
 * Since: 0.1
 */
DlDataLoaderIter *
dl_data_loader_iterate (DlDataLoader *self, GError **error)
{
  g_autoptr (DlDataLoaderIter) it = NULL;

  g_return_val_if_fail (DL_IS_DATA_LOADER (self), NULL);
  if (!check_loader (self, error))
    return NULL;
  it = g_object_new (DL_TYPE_DATA_LOADER_ITER, NULL);
  it->dataset = g_object_ref (self->dataset);
  it->n_samples = dl_dataset_get_length (self->dataset);
  it->batch_size = self->batch_size;
  it->n_batches = n_batches (self, it->n_samples);
  it->order = g_new (gint64, MAX (it->n_samples, 1));
  if (self->shuffle)
    {
      g_autoptr (DlTensor) perm
          = dl_randperm (it->n_samples, DL_DTYPE_INT64, NULL, self->generator, error);

      if (!perm)
        return NULL;
      memcpy (it->order, dl_tensor_data (perm), it->n_samples * sizeof (gint64));
    }
  else
    for (gint64 i = 0; i < it->n_samples; i++)
      it->order[i] = i;
  if (self->num_workers > 0 && it->n_batches > 0 && dl_dataset_is_thread_safe (self->dataset))
    {
      it->slots = g_new0 (Slot, it->n_batches);
      it->ahead = (gint64)self->num_workers * self->prefetch_factor;
      it->n_threads = MIN ((gint64)self->num_workers, it->n_batches);
      it->threads = g_new0 (GThread *, it->n_threads);
      for (guint i = 0; i < it->n_threads; i++)
        it->threads[i] = g_thread_new ("dl-data-loader", worker, it);
    }
  return g_steal_pointer (&it);
}

/**
 * dl_data_loader_iter_next:
 * @self: a #DlDataLoaderIter
 * @batch: (out) (transfer container) (element-type DlTensor) (optional):
 *   return location for the next batch: its tensors, the j-th the
 *   samples' j-th tensors stacked along a new first dimension, in an array
 *   that drops them when freed
 * @error: return location for a #GError
 *
 * Gives the next batch of the pass. A sample that fails to load (or
 * samples that do not stack) fail the batch with the data set's error and
 * end the pass. The loop in C:
 *
 * |[<!-- language="C" -->
 * static gboolean
 * one_pass (DlDataLoader *loader, GError **error)
 * {
 *   g_autoptr (DlDataLoaderIter) it = dl_data_loader_iterate (loader, error);
 *   g_autoptr (GPtrArray) batch = NULL;
 *   GError *local = NULL;
 *
 *   if (it == NULL)
 *     return FALSE;
 *   while (dl_data_loader_iter_next (it, &batch, &local))
 *     g_print ("batch %" G_GINT64_FORMAT "\n", dl_data_loader_iter_get_position (it));
 *   if (local != NULL)
 *     {
 *       g_propagate_error (error, local);
 *       return FALSE;
 *     }
 *   return TRUE;
 * }
 * ]|
 *
 * Returns: %TRUE with @batch set, %FALSE after the last batch or with
 *   @error set
 *
 * Since: 0.1
 */
gboolean
dl_data_loader_iter_next (DlDataLoaderIter *self, GPtrArray **batch, GError **error)
{
  GPtrArray *out;
  Slot *slot;

  g_return_val_if_fail (DL_IS_DATA_LOADER_ITER (self), FALSE);
  if (batch)
    g_clear_pointer (batch, g_ptr_array_unref);
  if (self->failed || self->position >= self->n_batches)
    return FALSE;
  if (!self->threads)
    {
      if (!(out = load_batch (self, self->position, error)))
        self->failed = TRUE;
      self->position++;
    }
  else
    {
      dl_mutex_lock (&self->lock);
      slot = &self->slots[self->position];
      while (!slot->done)
        dl_cond_wait (&self->changed, &self->lock);
      out = g_steal_pointer (&slot->batch);
      if (slot->error)
        {
          g_propagate_error (error, g_steal_pointer (&slot->error));
          self->failed = TRUE;
        }
      self->position++;
      g_cond_broadcast (&self->changed);
      dl_mutex_unlock (&self->lock);
      if (self->failed)
        stop_workers (self);
    }
  if (!out)
    return FALSE;
  if (batch)
    *batch = out;
  else
    g_ptr_array_unref (out);
  return TRUE;
}

/**
 * dl_data_loader_iter_get_position:
 * @self: a #DlDataLoaderIter
 *
 * Gives the number of batches dl_data_loader_iter_next() has given in this
 * pass; it equals dl_data_loader_get_length() after the last one.
 *
 * Returns: the number of batches given so far
 *
 * Since: 0.1
 */
gint64
dl_data_loader_iter_get_position (DlDataLoaderIter *self)
{
  g_return_val_if_fail (DL_IS_DATA_LOADER_ITER (self), 0);
  return self->position;
}
