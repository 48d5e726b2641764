/* dl-device-private.h
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-device.h"
#include "dl-allocator-private.h"
#include "backends/dl-backend.h"

G_BEGIN_DECLS

struct _DlDevice
{
  GObject parent_instance;
  DlDeviceType type;
  gint index;
  gchar *name;
  DlBackendContext context;                      /* what the backend's slots receive first */
  void (*context_clear) (DlBackendContext *ctx); /* from the registration */
  DlAllocator *allocator;                        /* over the backend's raw_alloc, with &context */
  DlDeviceInfo info;                             /* from the type's get_info */
};

DlDevice *dl_device_cpu (void); /* (transfer none) */

/* The path of the loadable module @file_name (the CUDA backend, the
 * distributed engines): in $DL_BACKEND_PATH when that is set (and only
 * there), else beside libdl in dl-1.0/ (installed) or in @build_subdir of
 * libdl's folder (the build tree), else in the configured DL_BACKEND_DIR.
 * NULL when it is in none, with the folders searched in @searched (a
 * string to free; nullable). */
gchar *dl_backend_module_find (const gchar *file_name, const gchar *build_subdir, gchar **searched);
/* the calling thread's default device, dl_set_default_device's (transfer none) */
DlDevice *dl_device_default (void);
gboolean dl_device_take_kernel_status (DlDevice *self, const gchar *op, GError **error);

/* the backend context of @self, for every call into its backend */
static inline DlBackendContext *
dl_device_get_context (DlDevice *self)
{
  return &self->context;
}

static inline const DlBackend *
dl_device_get_backend (DlDevice *self)
{
  return self->context.backend;
}

static inline DlAllocator *
dl_device_get_allocator (DlDevice *self)
{
  return self->allocator;
}

G_END_DECLS
