/* dl-file-map-private.h: a checkpoint file as the readers see it.
 *
 * The safetensors and PyTorch readers both parse a file's bytes in place:
 * a local file is memory-mapped private and copy-on-write (opened
 * read-only, mapped writable: MAP_PRIVATE), so loaded tensors view the
 * file's pages and writing into one never changes the file; a file
 * without a local path is read into memory.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Maps or reads @file. On success returns TRUE and sets either *map (a
 * local file) or *bytes (any other); on failure a DL_ERROR_IO whose
 * message starts "@format: <the file's name>: ". */
gboolean dl_file_map_private (GFile *file,
                              GCancellable *cancellable,
                              const gchar *format,
                              GMappedFile **map,
                              GBytes **bytes,
                              GError **error);

G_END_DECLS
