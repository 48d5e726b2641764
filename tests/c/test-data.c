/* test-data.c: DlDataset subclasses, the built-in data sets and
 * DlDataLoader: batches with and without worker threads, seeded shuffles,
 * errors from samples and from collation, a pass dropped half way.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "dl-test-utils.h"

/* Squares: sample i is ([i, i * i] float64, i int64); sample fail_at
 * fails. A C data set, so workers load it. */
#define TEST_TYPE_SQUARES (test_squares_get_type ())
G_DECLARE_FINAL_TYPE (TestSquares, test_squares, TEST, SQUARES, DlDataset)

struct _TestSquares
{
  DlDataset parent_instance;
  gint64 n;
  gint64 fail_at;
  gint loads; /* atomic */
};

G_DEFINE_FINAL_TYPE (TestSquares, test_squares, DL_TYPE_DATASET)

static gint64
test_squares_get_length (DlDataset *dataset)
{
  return TEST_SQUARES (dataset)->n;
}

static void
test_squares_load_item (DlDataset *dataset, gint64 index, GPtrArray **item, GError **error)
{
  TestSquares *self = TEST_SQUARES (dataset);
  GPtrArray *out;

  g_atomic_int_inc (&self->loads);
  if (index == self->fail_at)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_IO, "squares: sample %" G_GINT64_FORMAT " is broken",
                   index);
      return;
    }
  out = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (out, dl_test_tensor ((gdouble[]){ index, index * index }, (gint64[]){ 2 }, 1,
                                        DL_DTYPE_FLOAT64));
  g_ptr_array_add (out, dl_test_tensor ((gdouble[]){ index }, NULL, 0, DL_DTYPE_INT64));
  *item = out;
}

static void
test_squares_class_init (TestSquaresClass *klass)
{
  DL_DATASET_CLASS (klass)->get_length = test_squares_get_length;
  DL_DATASET_CLASS (klass)->load_item = test_squares_load_item;
}

static void
test_squares_init (TestSquares *self)
{
  self->fail_at = -1;
}

static TestSquares *
squares_new (gint64 n, gint64 fail_at)
{
  TestSquares *self = g_object_new (TEST_TYPE_SQUARES, NULL);

  self->n = n;
  self->fail_at = fail_at;
  return self;
}

/* the labels (second tensor) of every batch of a pass, in order, and the
 * batch sizes */
static GArray *
pass_labels (DlDataLoader *loader, GArray *sizes)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDataLoaderIter) it = dl_data_loader_iterate (loader, &error);
  g_autoptr (GPtrArray) batch = NULL;
  GArray *labels = g_array_new (FALSE, FALSE, sizeof (gint64));

  g_assert_no_error (error);
  while (dl_data_loader_iter_next (it, &batch, &error))
    {
      DlTensor *x = g_ptr_array_index (batch, 0), *y = g_ptr_array_index (batch, 1);
      g_autofree gdouble *xv = dl_test_values (x);
      g_autofree gdouble *yv = dl_test_values (y);
      gint64 b = dl_tensor_get_size (y, 0, NULL);

      g_assert_cmpuint (batch->len, ==, 2);
      g_assert_cmpint (dl_tensor_get_dtype (x), ==, DL_DTYPE_FLOAT64);
      g_assert_cmpint (dl_tensor_get_dtype (y), ==, DL_DTYPE_INT64);
      dl_test_assert_shape (x, (gint64[]){ b, 2 }, 2);
      for (gint64 i = 0; i < b; i++)
        {
          gint64 v = (gint64)yv[i];

          g_assert_cmpfloat (xv[2 * i], ==, v);
          g_assert_cmpfloat (xv[2 * i + 1], ==, v * v);
          g_array_append_val (labels, v);
        }
      if (sizes)
        g_array_append_val (sizes, b);
    }
  g_assert_no_error (error);
  g_assert_cmpint (dl_data_loader_iter_get_position (it), ==, dl_data_loader_get_length (loader));
  return labels;
}

static DlDataLoader *
loader_new (DlDataset *ds,
            gint64 batch,
            gboolean shuffle,
            gboolean drop_last,
            guint workers,
            DlGenerator *generator)
{
  g_autoptr (GError) error = NULL;
  DlDataLoader *loader = g_initable_new (
      DL_TYPE_DATA_LOADER, NULL, &error, "dataset", ds, "batch-size", batch, "shuffle", shuffle,
      "drop-last", drop_last, "num-workers", workers, "generator", generator, NULL);

  g_assert_no_error (error);
  return loader;
}

static void
test_batches_with_and_without_workers (void)
{
  g_autoptr (TestSquares) ds = squares_new (23, -1);

  for (gint drop = 0; drop < 2; drop++)
    for (guint workers = 0; workers < 4; workers++)
      {
        g_autoptr (DlDataLoader) loader
            = loader_new (DL_DATASET (ds), 5, FALSE, drop, workers, NULL);
        g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gint64));
        g_autoptr (GArray) labels = pass_labels (loader, sizes);

        g_assert_cmpint (dl_data_loader_get_length (loader), ==, drop ? 4 : 5);
        g_assert_cmpuint (labels->len, ==, drop ? 20 : 23);
        for (guint i = 0; i < labels->len; i++)
          g_assert_cmpint (g_array_index (labels, gint64, i), ==, i);
        g_assert_cmpint (g_array_index (sizes, gint64, sizes->len - 1), ==, drop ? 5 : 3);
      }
}

static void
test_seeded_shuffle (void)
{
  g_autoptr (TestSquares) ds = squares_new (40, -1);
  g_autoptr (GArray) first = NULL;

  for (guint workers = 0; workers < 3; workers++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DlGenerator) gen = dl_generator_new (NULL, &error);
      g_autoptr (DlDataLoader) loader = NULL;
      g_autoptr (GArray) labels = NULL;
      g_autoptr (GArray) again = NULL;
      gboolean seen[40] = { FALSE };
      gboolean moved = FALSE;

      g_assert_no_error (error);
      dl_generator_manual_seed (gen, 11);
      loader = loader_new (DL_DATASET (ds), 7, TRUE, FALSE, workers, gen);
      labels = pass_labels (loader, NULL);
      g_assert_cmpuint (labels->len, ==, 40);
      for (guint i = 0; i < 40; i++)
        {
          gint64 v = g_array_index (labels, gint64, i);

          g_assert_false (seen[v]);
          seen[v] = TRUE;
          moved |= v != i;
        }
      g_assert_true (moved);
      if (!first)
        first = g_array_ref (labels);
      else
        g_assert_cmpmem (first->data, 40 * sizeof (gint64), labels->data, 40 * sizeof (gint64));
      /* the next pass draws a new order */
      again = pass_labels (loader, NULL);
      g_assert_true (memcmp (again->data, labels->data, 40 * sizeof (gint64)) != 0);
    }
}

static void
test_sample_error_ends_the_pass (void)
{
  g_autoptr (TestSquares) ds = squares_new (20, 12);

  for (guint workers = 0; workers < 3; workers += 2)
    {
      g_autoptr (DlDataLoader) loader
          = loader_new (DL_DATASET (ds), 4, FALSE, FALSE, workers, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (DlDataLoaderIter) it = dl_data_loader_iterate (loader, &error);
      g_autoptr (GPtrArray) batch = NULL;
      gint good = 0;

      while (dl_data_loader_iter_next (it, &batch, &error))
        good++;
      g_assert_error (error, DL_ERROR, DL_ERROR_IO);
      g_assert_nonnull (strstr (error->message, "sample 12 is broken"));
      g_assert_cmpint (good, ==, 3);
      g_clear_error (&error);
      g_assert_false (dl_data_loader_iter_next (it, &batch, &error));
      g_assert_no_error (error);
    }
}

static void
test_dropped_pass_stops_its_workers (void)
{
  g_autoptr (TestSquares) ds = squares_new (1000, -1);
  g_autoptr (DlDataLoader) loader = loader_new (DL_DATASET (ds), 2, TRUE, FALSE, 3, NULL);
  g_autoptr (GError) error = NULL;

  for (gint round = 0; round < 5; round++)
    {
      g_autoptr (DlDataLoaderIter) it = dl_data_loader_iterate (loader, &error);
      g_autoptr (GPtrArray) batch = NULL;

      g_assert_no_error (error);
      g_assert_true (dl_data_loader_iter_next (it, &batch, &error));
      g_assert_true (dl_data_loader_iter_next (it, NULL, &error));
    }
  /* the workers load at most num_workers * prefetch_factor batches ahead */
  g_assert_cmpint (g_atomic_int_get (&ds->loads), <=, 5 * (2 + 3 * 2 + 3) * 2);
}

static void
test_builtin_datasets (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_arange (0, 12, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) x2 = dl_tensor_reshape (x, (gint64[]){ 6, 2 }, 2, &error);
  g_autoptr (DlTensor) y = dl_arange (0, 6, 1, DL_DTYPE_INT64, NULL, &error);
  g_autoptr (DlTensor) bad = dl_arange (0, 5, 1, DL_DTYPE_INT64, NULL, &error);
  g_autoptr (DlTensorDataset) ds = dl_tensor_dataset_new ((DlTensor *[]){ x2, y }, 2, &error);
  g_autoptr (GPtrArray) item = NULL;
  g_autoptr (GPtrArray) tensors = NULL;
  g_autoptr (DlSubset) sub = NULL;
  g_autoptr (DlConcatDataset) cat = NULL;
  g_autoptr (GPtrArray) parts = NULL;
  g_autoptr (GPtrArray) parts2 = NULL;
  g_autoptr (DlGenerator) gen = dl_generator_new (NULL, &error);
  const gint64 *idx, *idx2;
  gsize n, n2;

  g_assert_no_error (error);
  g_assert_cmpint (dl_dataset_get_length (DL_DATASET (ds)), ==, 6);
  g_assert_true (dl_dataset_is_thread_safe (DL_DATASET (ds)));
  item = dl_dataset_get_item (DL_DATASET (ds), -2, &error);
  g_assert_no_error (error);
  dl_test_assert_values (g_ptr_array_index (item, 0), (gdouble[]){ 8, 9 }, 2, 0);
  dl_test_assert_values (g_ptr_array_index (item, 1), (gdouble[]){ 4 }, 1, 0);
  g_clear_pointer (&item, g_ptr_array_unref);
  g_assert_null (dl_dataset_get_item (DL_DATASET (ds), 6, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);
  tensors = dl_tensor_dataset_get_tensors (ds);
  g_assert_true (g_ptr_array_index (tensors, 1) == y);
  g_assert_null (dl_tensor_dataset_new ((DlTensor *[]){ x2, bad }, 2, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);

  sub = dl_subset_new (DL_DATASET (ds), (gint64[]){ 5, 0, 5 }, 3, &error);
  g_assert_no_error (error);
  item = dl_dataset_get_item (DL_DATASET (sub), 2, &error);
  dl_test_assert_values (g_ptr_array_index (item, 1), (gdouble[]){ 5 }, 1, 0);
  g_clear_pointer (&item, g_ptr_array_unref);
  g_assert_null (dl_subset_new (DL_DATASET (ds), (gint64[]){ 6 }, 1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_clear_error (&error);

  cat = dl_concat_dataset_new ((DlDataset *[]){ DL_DATASET (ds), DL_DATASET (sub) }, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_dataset_get_length (DL_DATASET (cat)), ==, 9);
  item = dl_dataset_get_item (DL_DATASET (cat), 7, &error);
  dl_test_assert_values (g_ptr_array_index (item, 1), (gdouble[]){ 0 }, 1, 0);
  g_clear_pointer (&item, g_ptr_array_unref);
  g_assert_null (dl_concat_dataset_new (NULL, 0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);

  dl_generator_manual_seed (gen, 3);
  parts = dl_random_split (DL_DATASET (ds), (gdouble[]){ 0.5, 0.5 }, 2, gen, &error);
  g_assert_no_error (error);
  dl_generator_manual_seed (gen, 3);
  parts2 = dl_random_split (DL_DATASET (ds), (gdouble[]){ 3, 3 }, 2, gen, &error);
  g_assert_no_error (error);
  idx = dl_subset_get_indices (g_ptr_array_index (parts, 0), &n);
  idx2 = dl_subset_get_indices (g_ptr_array_index (parts2, 0), &n2);
  g_assert_cmpmem (idx, n * sizeof (gint64), idx2, n2 * sizeof (gint64));
  g_assert_null (dl_random_split (DL_DATASET (ds), (gdouble[]){ 2, 3 }, 2, NULL, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);
}

static void
test_bad_loaders (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) a = dl_zeros ((gint64[]){ 3 }, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) b = dl_zeros ((gint64[]){ 4 }, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (TestSquares) ds = squares_new (4, -1);
  g_autoptr (DlDataLoader) zero = NULL;

  g_assert_null (dl_data_loader_new (DL_DATASET (ds), 0, FALSE, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "batch_size=0"));
  g_clear_error (&error);
  /* an unchecked loader reports it when iterated */
  zero = g_object_new (DL_TYPE_DATA_LOADER, "dataset", ds, "batch-size", (gint64)0, NULL);
  g_assert_null (dl_data_loader_iterate (zero, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_clear_error (&error);

  /* samples whose tensors do not stack: the error names both shapes */
  {
    g_autoptr (DlDataLoader) loader = NULL;
    g_autoptr (DlDataLoaderIter) it = NULL;

    /* samples of 3 and of 4 elements: data sets with rows of each,
     * concatenated */
    {
      g_autoptr (DlTensor) a2 = dl_tensor_reshape (a, (gint64[]){ 1, 3 }, 2, &error);
      g_autoptr (DlTensor) b2 = dl_tensor_reshape (b, (gint64[]){ 1, 4 }, 2, &error);
      g_autoptr (DlTensorDataset) da = dl_tensor_dataset_new (&a2, 1, &error);
      g_autoptr (DlTensorDataset) db = dl_tensor_dataset_new (&b2, 1, &error);
      g_autoptr (DlConcatDataset) cat
          = dl_concat_dataset_new ((DlDataset *[]){ DL_DATASET (da), DL_DATASET (db) }, 2, &error);

      g_assert_no_error (error);
      loader = dl_data_loader_new (DL_DATASET (cat), 2, FALSE, &error);
    }
    it = dl_data_loader_iterate (loader, &error);
    g_assert_false (dl_data_loader_iter_next (it, NULL, &error));
    g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
    g_assert_nonnull (strstr (error->message, "[3] at entry 0 and [4] at entry 1"));
    g_clear_error (&error);
  }
}

/* a tensor in shared memory, its descriptor handed over in a GUnixFDList
 * (as D-Bus or a GSocket would carry it), mapped again: a forked child's
 * writes through the mapping are seen by the parent */
static void
test_shared_memory_across_fork (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) t = dl_zeros ((gint64[]){ 3, 4 }, 2, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) col = NULL;
  g_autoptr (GUnixFDList) list = g_unix_fd_list_new ();
  g_autoptr (DlTensor) mapped = NULL;
  gint handle, fd, status;
  pid_t pid;

  g_assert_no_error (error);
  g_assert_false (dl_tensor_is_shared (t));
  g_assert_cmpint (dl_tensor_get_shared_fd (t), ==, -1);
  col = dl_tensor_select (t, 1, 2, &error); /* a strided view, made before sharing */
  g_assert_true (dl_tensor_share_memory (t, &error));
  g_assert_no_error (error);
  g_assert_true (dl_tensor_is_shared (t) && dl_tensor_is_shared (col));

  handle = g_unix_fd_list_append (list, dl_tensor_get_shared_fd (t), &error);
  g_assert_no_error (error);
  fd = g_unix_fd_list_get (list, handle, &error); /* a duplicate, as a receiver gets */
  g_assert_no_error (error);
  mapped = dl_tensor_new_from_shared_fd (fd, dl_tensor_get_storage_nbytes (col), (gint64[]){ 3 }, 1,
                                         (gint64[]){ 4 }, 1, dl_tensor_get_storage_offset (col),
                                         DL_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  close (fd);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      /* the child writes through the mapping only, then leaves through
       * exec: valgrind follows a fork and would count what the child
       * never unwound as lost, but does no leak check at an exec */
      if (dl_tensor_fill_ (mapped, 9, NULL))
        execl ("/bin/true", "true", (char *)NULL);
      _exit (1);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  dl_test_assert_values (col, (gdouble[]){ 9, 9, 9 }, 3, 0);
  dl_test_assert_values (t, (gdouble[]){ 0, 0, 9, 0, 0, 0, 9, 0, 0, 0, 9, 0 }, 12, 0);

  /* a view past the storage's end is refused */
  g_assert_null (dl_tensor_new_from_shared_fd (dl_tensor_get_shared_fd (t), 48, (gint64[]){ 13 }, 1,
                                               NULL, 0, 0, DL_DTYPE_FLOAT32, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/data/batches", test_batches_with_and_without_workers);
  g_test_add_func ("/data/seeded-shuffle", test_seeded_shuffle);
  g_test_add_func ("/data/sample-error", test_sample_error_ends_the_pass);
  g_test_add_func ("/data/dropped-pass", test_dropped_pass_stops_its_workers);
  g_test_add_func ("/data/builtin-datasets", test_builtin_datasets);
  g_test_add_func ("/data/bad-loaders", test_bad_loaders);
  g_test_add_func ("/data/shared-memory", test_shared_memory_across_fork);
  return g_test_run ();
}
