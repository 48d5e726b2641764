/* dl-idx.c: reader for (optionally gzip-compressed) IDX files.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The IDX format (used by MNIST and Fashion-MNIST): a big-endian magic
 * number 0x00 0x00 <type code> <number of dims>, then that many big-endian
 * uint32 sizes, then the elements in row-major order, each big-endian.
 */
#ifdef DL_COMPILATION
#include "config.h"
#endif

#include <string.h>

#include "dl-idx-private.h"

/* Buffer of the stream the compressed (or raw) file is read through. */
#define DL_IDX_STREAM_BUFFER_SIZE (256 * 1024)

/* At most this much is allocated before the data has actually arrived; the
 * buffer then grows geometrically, so a forged header promising terabytes
 * fails with "truncated" instead of exhausting memory. */
#define DL_IDX_INITIAL_ALLOC ((gsize)64 * 1024 * 1024)

#define DL_IDX_MAX_DIMS 4

static void set_format_error (GError **error, const gchar *name, const gchar *format, ...)
    G_GNUC_PRINTF (3, 4);

static void
set_format_error (GError **error, const gchar *name, const gchar *format, ...)
{
  g_autofree gchar *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, DL_ERROR, DL_ERROR_FORMAT, "read_idx: %s: %s", name, message);
}

/* Takes ownership of @local.  A cancellation is passed on as is; errors of
 * the decompressor mean a corrupt file; anything else is an I/O error. */
static void
propagate_read_error (GError **error, const gchar *name, GError *local, gboolean gzip)
{
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, local);
      return;
    }

  if (gzip
      && (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_INVALID_DATA)
          || g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT)))
    g_set_error (error, DL_ERROR, DL_ERROR_FORMAT, "read_idx: %s: corrupt gzip stream: %s", name,
                 local->message);
  else
    g_set_error (error, DL_ERROR, DL_ERROR_IO, "read_idx: %s: %s", name, local->message);

  g_error_free (local);
}

static gsize
element_size (guint8 type_code)
{
  switch (type_code)
    {
      case DL_IDX_UINT8:
      case DL_IDX_INT8:
        return 1;
      case DL_IDX_INT16:
        return 2;
      case DL_IDX_INT32:
      case DL_IDX_FLOAT32:
        return 4;
      case DL_IDX_FLOAT64:
        return 8;
      default:
        return 0;
    }
}

static void
swap_to_host (gpointer data, gsize n_elements, gsize elem_size)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  gsize i;

  switch (elem_size)
    {
      case 2:
        {
          guint16 *p = data;
          for (i = 0; i < n_elements; i++)
            p[i] = GUINT16_FROM_BE (p[i]);
        }
        break;
      case 4:
        {
          guint32 *p = data;
          for (i = 0; i < n_elements; i++)
            p[i] = GUINT32_FROM_BE (p[i]);
        }
        break;
      case 8:
        {
          guint64 *p = data;
          for (i = 0; i < n_elements; i++)
            p[i] = GUINT64_FROM_BE (p[i]);
        }
        break;
      default:
        break;
    }
#else
  (void)data;
  (void)n_elements;
  (void)elem_size;
#endif
}

/* Checks for the gzip magic 0x1f 0x8b without consuming any bytes. */
static gboolean
peek_is_gzip (GBufferedInputStream *buffered,
              gboolean *is_gzip,
              GCancellable *cancellable,
              GError **error)
{
  const guint8 *peek;
  gsize available;

  while ((available = g_buffered_input_stream_get_available (buffered)) < 2)
    {
      gssize n = g_buffered_input_stream_fill (buffered, -1, cancellable, error);

      if (n < 0)
        return FALSE;
      if (n == 0)
        break;
    }

  peek = g_buffered_input_stream_peek_buffer (buffered, &available);
  *is_gzip = available >= 2 && peek[0] == 0x1f && peek[1] == 0x8b;

  return TRUE;
}

GBytes *
dl_idx_read (GFile *file,
             DlIdxType *type,
             gsize *n_dims,
             gint64 **dims,
             GCancellable *cancellable,
             GError **error)
{
  g_autofree gchar *name = NULL;
  g_autoptr (GFileInputStream) file_stream = NULL;
  g_autoptr (GInputStream) buffered = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GConverter) decompressor = NULL;
  g_autofree gint64 *sizes = NULL;
  g_autofree guint8 *data = NULL;
  GError *local_error = NULL;
  guint8 header[4];
  guint8 size_bytes[4 * DL_IDX_MAX_DIMS];
  guint8 extra[16];
  gboolean gzip = FALSE;
  gsize n_read;
  gsize elem_size;
  gsize rank;
  gsize n_elements = 1;
  gsize total;
  gsize allocated;
  gsize filled = 0;
  gsize i;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  name = g_file_get_parse_name (file);

  file_stream = g_file_read (file, cancellable, &local_error);
  if (file_stream == NULL)
    {
      propagate_read_error (error, name, local_error, FALSE);
      return NULL;
    }

  buffered
      = g_buffered_input_stream_new_sized (G_INPUT_STREAM (file_stream), DL_IDX_STREAM_BUFFER_SIZE);
  if (!peek_is_gzip (G_BUFFERED_INPUT_STREAM (buffered), &gzip, cancellable, &local_error))
    {
      propagate_read_error (error, name, local_error, FALSE);
      return NULL;
    }

  if (gzip)
    {
      decompressor = G_CONVERTER (g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP));
      stream = g_converter_input_stream_new (buffered, decompressor);
    }
  else
    {
      stream = g_object_ref (buffered);
    }

  /* Magic number. */
  if (!g_input_stream_read_all (stream, header, sizeof header, &n_read, cancellable, &local_error))
    {
      propagate_read_error (error, name, local_error, gzip);
      return NULL;
    }
  if (n_read == 0)
    {
      set_format_error (error, name, "file is empty");
      return NULL;
    }
  if (n_read < sizeof header)
    {
      set_format_error (error, name, "truncated header (%" G_GSIZE_FORMAT " of 4 magic bytes)",
                        n_read);
      return NULL;
    }
  if (header[0] != 0 || header[1] != 0)
    {
      set_format_error (error, name, "bad magic number 0x%02x%02x%02x%02x (not an IDX file)",
                        header[0], header[1], header[2], header[3]);
      return NULL;
    }

  elem_size = element_size (header[2]);
  if (elem_size == 0)
    {
      set_format_error (error, name, "unknown IDX type code 0x%02x", header[2]);
      return NULL;
    }

  rank = header[3];
  if (rank == 0 || rank > DL_IDX_MAX_DIMS)
    {
      set_format_error (error, name,
                        "unsupported number of dimensions %" G_GSIZE_FORMAT " (expected 1 to %d)",
                        rank, DL_IDX_MAX_DIMS);
      return NULL;
    }

  /* Sizes. */
  if (!g_input_stream_read_all (stream, size_bytes, 4 * rank, &n_read, cancellable, &local_error))
    {
      propagate_read_error (error, name, local_error, gzip);
      return NULL;
    }
  if (n_read < 4 * rank)
    {
      set_format_error (error, name,
                        "truncated header (%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " size bytes)",
                        n_read, 4 * rank);
      return NULL;
    }

  sizes = g_new (gint64, rank);
  for (i = 0; i < rank; i++)
    {
      guint32 size_be;

      memcpy (&size_be, size_bytes + 4 * i, 4);
      sizes[i] = GUINT32_FROM_BE (size_be);
      if (!g_size_checked_mul (&n_elements, n_elements, (gsize)sizes[i]))
        {
          set_format_error (error, name, "the sizes in the header overflow");
          return NULL;
        }
    }
  if (!g_size_checked_mul (&total, n_elements, elem_size) || total > G_MAXSSIZE)
    {
      set_format_error (error, name, "the sizes in the header overflow");
      return NULL;
    }

  /* Data: read in large chunks; allocate no more than has arrived, give or
   * take a factor of two, so the header cannot make us allocate wildly. */
  allocated = MIN (total, DL_IDX_INITIAL_ALLOC);
  if (allocated > 0)
    {
      data = g_try_malloc (allocated);
      if (data == NULL)
        goto out_of_memory;
    }

  while (filled < total)
    {
      gsize want;

      if (filled == allocated)
        {
          gsize new_size = total - allocated > allocated ? 2 * allocated : total;
          guint8 *new_data = g_try_realloc (data, new_size);

          if (new_data == NULL)
            goto out_of_memory;
          data = new_data;
          allocated = new_size;
        }

      want = allocated - filled;
      if (!g_input_stream_read_all (stream, data + filled, want, &n_read, cancellable,
                                    &local_error))
        {
          propagate_read_error (error, name, local_error, gzip);
          return NULL;
        }
      filled += n_read;
      if (n_read < want)
        break;
    }

  if (filled < total)
    {
      set_format_error (error, name,
                        "truncated data (the header promises %" G_GSIZE_FORMAT
                        " bytes, only %" G_GSIZE_FORMAT " present)",
                        total, filled);
      return NULL;
    }

  /* Nothing may follow; for gzip this also reads up to the end of the
   * stream, so its CRC and length get checked. */
  if (!g_input_stream_read_all (stream, extra, sizeof extra, &n_read, cancellable, &local_error))
    {
      propagate_read_error (error, name, local_error, gzip);
      return NULL;
    }
  if (n_read > 0)
    {
      set_format_error (error, name,
                        "trailing data after the %" G_GSIZE_FORMAT " bytes the header promises",
                        total);
      return NULL;
    }

  swap_to_host (data, n_elements, elem_size);

  if (type != NULL)
    *type = (DlIdxType)header[2];
  if (n_dims != NULL)
    *n_dims = rank;
  if (dims != NULL)
    *dims = g_steal_pointer (&sizes);

  return g_bytes_new_take (g_steal_pointer (&data), total);

out_of_memory:
  g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
               "read_idx: %s: cannot allocate %" G_GSIZE_FORMAT " bytes for the data", name, total);
  return NULL;
}
