/* dl-datasets.c: IDX files as tensors, and Fashion-MNIST.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-datasets.h"
#include "dl-error.h"
#include "dl-idx-private.h"
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
        return dl_tensor_new_from_bytes (bytes, DL_DTYPE_UINT8, dims, n_dims, error);
      case DL_IDX_INT32:
        return dl_tensor_new_from_bytes (bytes, DL_DTYPE_INT32, dims, n_dims, error);
      case DL_IDX_FLOAT32:
        return dl_tensor_new_from_bytes (bytes, DL_DTYPE_FLOAT32, dims, n_dims, error);
      case DL_IDX_FLOAT64:
        return dl_tensor_new_from_bytes (bytes, DL_DTYPE_FLOAT64, dims, n_dims, error);
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
          return dl_tensor_new_from_bytes (wb, DL_DTYPE_INT32, dims, n_dims, error);
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
