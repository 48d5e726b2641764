/* dl-storage-private.h
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-storage.h"
#include "dl-device-private.h"

G_BEGIN_DECLS

struct _DlStorage
{
  gint ref_count;
  gint version;      /* bumped by every in-place write, shared by views */
  DlDevice *device;  /* (owned) */
  char *data;
  gsize nbytes;
  gsize block_size;  /* from the device's allocator; 0 for external memory */
  DlReleaseFunc release;
  gpointer release_data;
  GDestroyNotify release_notify;
};

DlStorage *dl_storage_new          (DlDevice  *device,
                                    gsize      nbytes,
                                    GError   **error);
DlStorage *dl_storage_new_external (DlDevice       *device,
                                    gpointer        data,
                                    gsize           nbytes,
                                    DlReleaseFunc   release,
                                    gpointer        user_data,
                                    GDestroyNotify  notify);

static inline void
dl_storage_bump_version (DlStorage *self)
{
  g_atomic_int_inc (&self->version);
}

G_END_DECLS
