/* dl-idx-private.h: reader for (optionally gzip-compressed) IDX files.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#ifdef DL_COMPILATION
#include "dl-error.h"
#endif

/* Stand-alone builds (test harnesses) get the same domain and codes. */
#ifndef DL_ERROR
#define DL_ERROR (g_quark_from_static_string ("dl-error-quark"))
enum
{
  DL_ERROR_OUT_OF_MEMORY = 6,
  DL_ERROR_IO = 8,
  DL_ERROR_FORMAT = 9,
};
#endif

G_BEGIN_DECLS

/* The IDX type code (third byte of the magic number). */
typedef enum
{
  DL_IDX_UINT8 = 0x08,
  DL_IDX_INT8 = 0x09,
  DL_IDX_INT16 = 0x0B,
  DL_IDX_INT32 = 0x0C,
  DL_IDX_FLOAT32 = 0x0D,
  DL_IDX_FLOAT64 = 0x0E
} DlIdxType;

/* Reads the whole IDX file @file, which may be gzip-compressed (detected by
 * the 0x1f 0x8b magic) or not.
 *
 * On success returns the data (host byte order, row-major) as GBytes, and
 * sets *type, *n_dims (1 to 4) and *dims (newly allocated gint64 array of
 * *n_dims sizes, free with g_free).  Each of @type, @n_dims and @dims may be
 * NULL.
 *
 * On failure returns NULL, leaves the out arguments untouched and sets
 * @error:
 *  - G_IO_ERROR_CANCELLED, as is, when @cancellable was cancelled;
 *  - DL_ERROR_IO when the file cannot be opened or read
 *    ("read_idx: <path>: <GIO message>");
 *  - DL_ERROR_FORMAT when the contents are corrupt: empty file, bad magic,
 *    unknown type code, 0 or more than 4 dims, a size product that
 *    overflows, truncated data, trailing bytes, or a corrupt gzip stream
 *    ("read_idx: <path>: <what is wrong>");
 *  - DL_ERROR_OUT_OF_MEMORY when the data buffer cannot be allocated.
 */
GBytes *dl_idx_read (GFile *file,
                     DlIdxType *type,
                     gsize *n_dims,
                     gint64 **dims,
                     GCancellable *cancellable,
                     GError **error);

G_END_DECLS
