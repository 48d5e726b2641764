/* dl-file-map.c: a checkpoint file mapped copy-on-write, or read; see
 * dl-file-map-private.h.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "data/dl-file-map-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "dl-error.h"

gboolean
dl_file_map_private (GFile *file,
                     GCancellable *cancellable,
                     const gchar *format,
                     GMappedFile **map,
                     GBytes **bytes,
                     GError **error)
{
  g_autofree gchar *what = g_file_get_parse_name (file);
  g_autofree gchar *path = g_file_get_path (file);
  g_autoptr (GError) local = NULL;
  int fd;

  *map = NULL;
  *bytes = NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (path == NULL)
    {
      *bytes = g_file_load_bytes (file, cancellable, NULL, &local);
      if (*bytes == NULL)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_IO, "%s: %s: %s", format, what, local->message);
          return FALSE;
        }
      return TRUE;
    }
  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, DL_ERROR, DL_ERROR_IO, "%s: %s: cannot open: %s", format, what,
                   g_strerror (saved));
      return FALSE;
    }
  /* opened read-only and mapped writable: MAP_PRIVATE, copy-on-write */
  *map = g_mapped_file_new_from_fd (fd, TRUE, &local);
  close (fd);
  if (*map == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_IO, "%s: %s: %s", format, what, local->message);
      return FALSE;
    }
  return TRUE;
}
