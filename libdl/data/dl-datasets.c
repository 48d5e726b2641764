/* dl-datasets.c: IDX files as tensors, and Fashion-MNIST (as tensors and
 * as a DlDataset).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-datasets.h"
#include "dl-error.h"
#include "dl-idx-private.h"
#include "dl-tensor-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-shape.h"
#include <math.h>
#include "ops/dl-ops-pointwise.h"

/**
 * dl_read_idx:
 * @path: the path of an IDX file, gzip-compressed or not
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads an IDX file (the MNIST format) into a CPU tensor: uint8 data
 * becomes a uint8 tensor, int8/int16/int32 an int32 one, float and double
 * float32 and float64. A missing file is a %DL_ERROR_IO error, a corrupt
 * one %DL_ERROR_FORMAT.
 *
 * Returns: (transfer full): the tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_read_idx (const gchar *path, GCancellable *cancellable, GError **error)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree gint64 *dims = NULL;
  gsize n_dims = 0;
  DlIdxType type;

  g_return_val_if_fail (path != NULL, NULL);
  file = g_file_new_for_path (path);
  if (!(bytes = dl_idx_read (file, &type, &n_dims, &dims, cancellable, error)))
    return NULL;
  switch (type)
    {
      case DL_IDX_UINT8:
        return dl_tensor_new_from_bytes (bytes, dims, n_dims, DL_DTYPE_UINT8, error);
      case DL_IDX_INT32:
        return dl_tensor_new_from_bytes (bytes, dims, n_dims, DL_DTYPE_INT32, error);
      case DL_IDX_FLOAT32:
        return dl_tensor_new_from_bytes (bytes, dims, n_dims, DL_DTYPE_FLOAT32, error);
      case DL_IDX_FLOAT64:
        return dl_tensor_new_from_bytes (bytes, dims, n_dims, DL_DTYPE_FLOAT64, error);
      case DL_IDX_INT8:
      case DL_IDX_INT16:
        {
          gsize n;
          const guint8 *src = g_bytes_get_data (bytes, &n);
          gsize count = type == DL_IDX_INT8 ? n : n / 2;
          gint32 *wide = g_new (gint32, MAX (count, 1));
          g_autoptr (GBytes) wb = NULL;

          for (gsize i = 0; i < count; i++)
            wide[i]
                = type == DL_IDX_INT8 ? (gint32)(gint8)src[i] : (gint32)((const gint16 *)src)[i];
          wb = g_bytes_new_take (wide, count * sizeof (gint32));
          return dl_tensor_new_from_bytes (wb, dims, n_dims, DL_DTYPE_INT32, error);
        }
      default:
        g_set_error (error, DL_ERROR, DL_ERROR_FORMAT, "read_idx: %s: unsupported type", path);
        return NULL;
    }
}

/**
 * dl_fashion_mnist_load:
 * @root: (nullable): the folder holding the four IDX files, or %NULL for
 *   %DL_FASHION_MNIST_DEFAULT_ROOT
 * @train: %TRUE for the 60000 training images, %FALSE for the 10000 test
 *   images
 * @images: (out) (transfer full): the images, uint8 [N, 28, 28]
 * @labels: (out) (transfer full): the labels, int64 [N], in 0..9
 * @error: return location for a #GError
 *
 * Loads Fashion-MNIST from the gzip-compressed IDX files
 * (train-images-idx3-ubyte.gz and friends).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
dl_fashion_mnist_load (const gchar *root,
                       gboolean train,
                       DlTensor **images,
                       DlTensor **labels,
                       GError **error)
{
  const gchar *prefix = train ? "train" : "t10k";
  g_autofree gchar *ipath = NULL;
  g_autofree gchar *lpath = NULL;
  g_autofree gchar *iname = g_strdup_printf ("%s-images-idx3-ubyte.gz", prefix);
  g_autofree gchar *lname = g_strdup_printf ("%s-labels-idx1-ubyte.gz", prefix);
  g_autoptr (DlTensor) im = NULL;
  g_autoptr (DlTensor) lb = NULL;
  gsize ind, lnd;
  const gint64 *ishape, *lshape;

  g_return_val_if_fail (images != NULL && labels != NULL, FALSE);
  if (root == NULL)
    root = DL_FASHION_MNIST_DEFAULT_ROOT;
  ipath = g_build_filename (root, iname, NULL);
  lpath = g_build_filename (root, lname, NULL);
  if (!(im = dl_read_idx (ipath, NULL, error)) || !(lb = dl_read_idx (lpath, NULL, error)))
    return FALSE;
  ishape = dl_tensor_get_shape (im, &ind);
  lshape = dl_tensor_get_shape (lb, &lnd);
  if (ind != 3 || lnd != 1 || ishape[0] != lshape[0] || dl_tensor_get_dtype (im) != DL_DTYPE_UINT8
      || dl_tensor_get_dtype (lb) != DL_DTYPE_UINT8)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FORMAT,
                   "fashion_mnist: %s and %s do not hold uint8 images [N, H, W] and N uint8 labels",
                   ipath, lpath);
      return FALSE;
    }
  *labels = dl_tensor_to_dtype (lb, DL_DTYPE_INT64, error);
  if (*labels == NULL)
    return FALSE;
  *images = g_steal_pointer (&im);
  return TRUE;
}

/* ---- DlFashionMnistDataset -------------------------------------------------------- */

/**
 * DlFashionMnistDataset:
 *
 * Fashion-MNIST as a #DlDataset: sample i is (image, label), the image a
 * float32 tensor [1, 28, 28] of (pixel / 255 - #DlFashionMnistDataset:mean) /
 * #DlFashionMnistDataset:std, the label an int64 scalar in 0..9 (the class
 * names are those of dl_fashion_mnist_class_name()). The files are read
 * when the data set is initialised (g_initable_init(), or
 * dl_fashion_mnist_dataset_new()); samples are converted as they are loaded, so a
 * #DlDataLoader's workers share that work.
 *
 * Reading and decompressing the files takes a second or so. An application
 * with a main loop constructs the data set from its properties and reads
 * them on a worker thread with g_async_initable_init_async() (the
 * #GAsyncInitable interface's default implementation, which runs
 * g_initable_init() there): in GJS,
 * `new Dl.FashionMnistDataset({train: true, mean, std})` and then
 * `dataset.init_async(GLib.PRIORITY_DEFAULT, null, (ds, res) => ds.init_finish(res))`.
 *
 * Since: 0.1
 */
struct _DlFashionMnistDataset
{
  DlDataset parent_instance;
  gchar *root;
  gboolean train;
  gdouble mean;
  gdouble std;
  DlTensor *images; /* uint8 [N, 28, 28] */
  DlTensor *labels; /* int64 [N] */
};

static void dl_fashion_mnist_dataset_initable_iface_init (GInitableIface *iface);
static void dl_fashion_mnist_dataset_async_initable_iface_init (GAsyncInitableIface *iface);

/**
 * DlFashionMnistDatasetClass:
 * @parent_class: the class of #DlDataset
 *
 * The class structure of #DlFashionMnistDataset. The type is final: its
 * class adds no virtual method to that of #DlDataset, and it cannot be
 * subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE_WITH_CODE (
    DlFashionMnistDataset,
    dl_fashion_mnist_dataset,
    DL_TYPE_DATASET,
    G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, dl_fashion_mnist_dataset_initable_iface_init)
        G_IMPLEMENT_INTERFACE (G_TYPE_ASYNC_INITABLE,
                               dl_fashion_mnist_dataset_async_initable_iface_init))

enum
{
  FM_PROP_0,
  FM_PROP_ROOT,
  FM_PROP_TRAIN,
  FM_PROP_MEAN,
  FM_PROP_STD,
  FM_N_PROPS
};

static GParamSpec *fm_properties[FM_N_PROPS];

static const gchar *const class_names[] = {
  "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
  "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot",
};

/**
 * dl_fashion_mnist_class_name:
 * @label: a label, 0..9
 *
 * Gives the name of a Fashion-MNIST class: 0 is "T-shirt/top", 1 "Trouser",
 * up to 9, "Ankle boot". The string is static.
 *
 * Returns: (nullable): the name of the class @label ("T-shirt/top",
 *   "Trouser", ...), or %NULL for a value out of range
 *
 * Since: 0.1
 */
const gchar *
dl_fashion_mnist_class_name (gint64 label)
{
  return label >= 0 && label < (gint64)G_N_ELEMENTS (class_names) ? class_names[label] : NULL;
}

static gboolean
dl_fashion_mnist_dataset_initable_init (GInitable *initable,
                                        GCancellable *cancellable,
                                        GError **error)
{
  DlFashionMnistDataset *self = DL_FASHION_MNIST_DATASET (initable);

  if (self->images)
    return TRUE;
  if (!(self->std > 0) || !isfinite (self->mean))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "FashionMNIST: std must be positive and mean finite, got mean %g, std %g",
                   self->mean, self->std);
      return FALSE;
    }
  return dl_fashion_mnist_load (self->root, self->train, &self->images, &self->labels, error);
}

static void
dl_fashion_mnist_dataset_initable_iface_init (GInitableIface *iface)
{
  iface->init = dl_fashion_mnist_dataset_initable_init;
}

/* GAsyncInitable's default init_async runs the GInitable init above in a
 * thread of GLib's pool: the data set is not shared before it completes. */
static void
dl_fashion_mnist_dataset_async_initable_iface_init (GAsyncInitableIface *iface)
{
}

static gint64
dl_fashion_mnist_dataset_get_length (DlDataset *dataset)
{
  DlFashionMnistDataset *self = DL_FASHION_MNIST_DATASET (dataset);

  return self->labels ? dl_tensor_get_size (self->labels, 0, NULL) : 0;
}

static void
dl_fashion_mnist_dataset_load_item (DlDataset *dataset,
                                    gint64 index,
                                    GPtrArray **item,
                                    GError **error)
{
  DlFashionMnistDataset *self = DL_FASHION_MNIST_DATASET (dataset);
  const gint64 *shape = self->images->sizes;
  const gint64 hw = shape[1] * shape[2];
  g_autoptr (DlTensor) image = NULL;
  g_autoptr (DlTensor) label = NULL;
  const guint8 *src;
  gfloat *dst;
  const gdouble scale = 1.0 / (255.0 * self->std), shift = self->mean / self->std;

  if (!(image = dl_empty ((gint64[]){ 1, shape[1], shape[2] }, 3, DL_DTYPE_FLOAT32, NULL, error))
      || !(label = dl_tensor_select (self->labels, 0, index, error)))
    return;
  src = (const guint8 *)dl_tensor_data (self->images) + index * hw;
  dst = (gfloat *)dl_tensor_data (image);
  for (gint64 i = 0; i < hw; i++)
    dst[i] = (gfloat)(src[i] * scale - shift);
  *item = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (*item, g_steal_pointer (&image));
  g_ptr_array_add (*item, g_steal_pointer (&label));
}

static void
dl_fashion_mnist_dataset_get_property (GObject *object,
                                       guint prop_id,
                                       GValue *value,
                                       GParamSpec *pspec)
{
  DlFashionMnistDataset *self = DL_FASHION_MNIST_DATASET (object);

  switch (prop_id)
    {
      case FM_PROP_ROOT:
        g_value_set_string (value, self->root);
        break;
      case FM_PROP_TRAIN:
        g_value_set_boolean (value, self->train);
        break;
      case FM_PROP_MEAN:
        g_value_set_double (value, self->mean);
        break;
      case FM_PROP_STD:
        g_value_set_double (value, self->std);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_fashion_mnist_dataset_set_property (GObject *object,
                                       guint prop_id,
                                       const GValue *value,
                                       GParamSpec *pspec)
{
  DlFashionMnistDataset *self = DL_FASHION_MNIST_DATASET (object);

  switch (prop_id)
    {
      case FM_PROP_ROOT:
        g_free (self->root);
        self->root = g_value_dup_string (value);
        break;
      case FM_PROP_TRAIN:
        self->train = g_value_get_boolean (value);
        break;
      case FM_PROP_MEAN:
        self->mean = g_value_get_double (value);
        break;
      case FM_PROP_STD:
        self->std = g_value_get_double (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_fashion_mnist_dataset_finalize (GObject *object)
{
  DlFashionMnistDataset *self = DL_FASHION_MNIST_DATASET (object);

  g_free (self->root);
  g_clear_object (&self->images);
  g_clear_object (&self->labels);
  G_OBJECT_CLASS (dl_fashion_mnist_dataset_parent_class)->finalize (object);
}

static void
dl_fashion_mnist_dataset_class_init (DlFashionMnistDatasetClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                            | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = dl_fashion_mnist_dataset_get_property;
  object_class->set_property = dl_fashion_mnist_dataset_set_property;
  object_class->finalize = dl_fashion_mnist_dataset_finalize;
  DL_DATASET_CLASS (klass)->get_length = dl_fashion_mnist_dataset_get_length;
  DL_DATASET_CLASS (klass)->load_item = dl_fashion_mnist_dataset_load_item;

  /**
   * DlFashionMnistDataset:root:
   *
   * The folder holding the four IDX files, or %NULL for
   * %DL_FASHION_MNIST_DEFAULT_ROOT.
   *
   * Since: 0.1
   */
  fm_properties[FM_PROP_ROOT] = g_param_spec_string ("root", NULL, NULL, NULL, flags);
  /**
   * DlFashionMnistDataset:train:
   *
   * %TRUE for the 60000 training images, %FALSE for the 10000 test images.
   *
   * Since: 0.1
   */
  fm_properties[FM_PROP_TRAIN] = g_param_spec_boolean ("train", NULL, NULL, TRUE, flags);
  /**
   * DlFashionMnistDataset:mean:
   *
   * Subtracted from the pixels scaled to [0, 1] (0.2860 is the training
   * set's mean).
   *
   * Since: 0.1
   */
  fm_properties[FM_PROP_MEAN]
      = g_param_spec_double ("mean", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, flags);
  /**
   * DlFashionMnistDataset:std:
   *
   * What the centred pixels are divided by (0.3530 is the training set's
   * standard deviation).
   *
   * Since: 0.1
   */
  fm_properties[FM_PROP_STD]
      = g_param_spec_double ("std", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1, flags);
  g_object_class_install_properties (object_class, FM_N_PROPS, fm_properties);
}

static void
dl_fashion_mnist_dataset_init (DlFashionMnistDataset *self)
{
  self->train = TRUE;
  self->std = 1;
}

/**
 * dl_fashion_mnist_dataset_new:
 * @root: (nullable): the folder holding the IDX files, or %NULL for
 *   %DL_FASHION_MNIST_DEFAULT_ROOT
 * @train: %TRUE for the training set, %FALSE for the test set
 * @mean: subtracted from the pixels scaled to [0, 1]
 * @std: what the centred pixels are divided by
 * @error: return location for a #GError
 *
 * Reads Fashion-MNIST into a data set; a missing file is a %DL_ERROR_IO
 * error naming it, a corrupt one %DL_ERROR_FORMAT.
 *
 * Returns: (transfer full): the data set, or %NULL with @error set
 *
 * Since: 0.1
 */
DlFashionMnistDataset *
dl_fashion_mnist_dataset_new (const gchar *root,
                              gboolean train,
                              gdouble mean,
                              gdouble std,
                              GError **error)
{
  return g_initable_new (DL_TYPE_FASHION_MNIST_DATASET, NULL, error, "root", root, "train", train,
                         "mean", mean, "std", std, NULL);
}
