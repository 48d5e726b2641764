/* dl-device.h: DlDevice, a physical device tensors live on.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-types.h"

G_BEGIN_DECLS

/**
 * DlDeviceType:
 * @DL_DEVICE_TYPE_CPU: the host CPU
 * @DL_DEVICE_TYPE_CUDA: an NVIDIA GPU through the CUDA backend
 * @DL_DEVICE_TYPE_META: the meta device: tensors with a shape, a dtype and
 *   strides but no data, on which ops compute their outputs' geometry only
 *
 * The kind of a #DlDevice.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_DEVICE_TYPE_CPU,
  DL_DEVICE_TYPE_CUDA,
  DL_DEVICE_TYPE_META,
} DlDeviceType;

#define DL_TYPE_DEVICE (dl_device_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlDevice, dl_device, DL, DEVICE, GObject)

DL_EXPORT
DlDevice *dl_device_get (const gchar *name, GError **error);
DL_EXPORT
DlDevice *dl_device_get_default (void);
DL_EXPORT
gint dl_cuda_device_count (void);
DL_EXPORT
gboolean dl_cuda_is_available (void);
DL_EXPORT
void dl_set_default_device (DlDevice *device);
DL_EXPORT
DlDeviceType dl_device_get_device_type (DlDevice *self);
DL_EXPORT
gint dl_device_get_index (DlDevice *self);
DL_EXPORT
const gchar *dl_device_get_name (DlDevice *self);
DL_EXPORT
gboolean dl_device_equal (DlDevice *self, DlDevice *other);
DL_EXPORT
guint64 dl_device_get_memory_allocated (DlDevice *self);
DL_EXPORT
guint64 dl_device_get_max_memory_allocated (DlDevice *self);
DL_EXPORT
guint64 dl_device_get_memory_reserved (DlDevice *self);
DL_EXPORT
void dl_device_empty_cache (DlDevice *self);
DL_EXPORT
void dl_device_synchronize (DlDevice *self);

G_END_DECLS
