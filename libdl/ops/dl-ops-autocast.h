/* dl-ops-autocast.h
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-device.h"
#include "dl-dtype.h"

G_BEGIN_DECLS

DL_EXPORT gboolean dl_autocast_is_enabled (DlDeviceType device_type);
DL_EXPORT void dl_autocast_set_enabled (DlDeviceType device_type, gboolean enabled);
DL_EXPORT DlDType dl_autocast_get_dtype (DlDeviceType device_type);
DL_EXPORT gboolean dl_autocast_set_dtype (DlDeviceType device_type, DlDType dtype, GError **error);
DL_EXPORT gint dl_autocast_increment_nesting (void);
DL_EXPORT gint dl_autocast_decrement_nesting (void);
DL_EXPORT gboolean dl_autocast_is_cache_enabled (void);
DL_EXPORT void dl_autocast_set_cache_enabled (gboolean enabled);
DL_EXPORT void dl_autocast_clear_cache (void);

G_END_DECLS
