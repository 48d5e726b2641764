/* dl-storage-private.h
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-storage.h"
#include "dl-device-private.h"

G_BEGIN_DECLS

typedef enum
{
  DL_STORAGE_ALLOCATED, /* a block of the device's caching allocator */
  DL_STORAGE_INLINE,    /* small host memory sharing one malloc with this struct */
  DL_STORAGE_EXTERNAL,  /* lent by another owner; released through release */
  DL_STORAGE_META,      /* on the meta device: nbytes recorded, data NULL */
} DlStorageKind;

/* Host storages of at most this many bytes live inline. */
#define DL_STORAGE_INLINE_MAX 1024

struct _DlStorage
{
  gint ref_count;
  DlStorageKind kind;
  gint version;     /* bumped by every in-place write, shared by views */
  DlDevice *device; /* (owned) */
  char *data;
  gsize nbytes;
  gsize block_size; /* for DL_STORAGE_ALLOCATED and DL_STORAGE_INLINE */
  gsize head;       /* DL_STORAGE_ALLOCATED: bytes from the block's start to data */
  DlReleaseFunc release;
  gpointer release_data;
  GDestroyNotify release_notify;
  gboolean read_only; /* lent memory that must not be written */
  gboolean released;  /* the empty stand-in of a released tensor's memory */
  /* shared memory (dl_storage_share_memory, dl_storage_new_from_fd):
   * data is a MAP_SHARED mapping of shm_fd, map_size bytes; the storage's
   * own memory of its kind was released when it moved there */
  gboolean shared;
  gint shm_fd;
  gsize map_size;
};

DlStorage *dl_storage_new (DlDevice *device, gsize nbytes, GError **error);
DlStorage *dl_storage_new_at (DlDevice *device, gsize nbytes, gssize place, GError **error);
DlStorage *dl_storage_new_external (DlDevice *device,
                                    gpointer data,
                                    gsize nbytes,
                                    DlReleaseFunc release,
                                    gpointer user_data,
                                    GDestroyNotify notify);

gboolean dl_storage_share_memory (DlStorage *self, GError **error);
DlStorage *dl_storage_new_from_fd (DlDevice *device, gint fd, gsize nbytes, GError **error);

static inline void
dl_storage_bump_version (DlStorage *self)
{
  g_atomic_int_inc (&self->version);
}

G_END_DECLS
