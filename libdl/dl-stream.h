/* dl-stream.h: DlStream, a queue of work on a device.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-types.h"
#include "dl-device.h"
#include "dl-event.h"

G_BEGIN_DECLS

#define DL_TYPE_STREAM (dl_stream_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlStream, dl_stream, DL, STREAM, GObject)

DL_EXPORT
DlStream *dl_stream_new (DlDevice *device, gint priority, GError **error);
DL_EXPORT
DlStream *dl_stream_get_default (DlDevice *device);
DL_EXPORT
DlStream *dl_stream_get_current (DlDevice *device);
DL_EXPORT
void dl_stream_set_current (DlStream *stream);
DL_EXPORT
DlDevice *dl_stream_get_device (DlStream *self);
DL_EXPORT
gint dl_stream_get_priority (DlStream *self);
DL_EXPORT
guint64 dl_stream_get_native_handle (DlStream *self);
DL_EXPORT
gboolean dl_stream_query (DlStream *self);
DL_EXPORT
gboolean dl_stream_synchronize (DlStream *self, GError **error);
DL_EXPORT
gboolean dl_stream_wait_event (DlStream *self, DlEvent *event, GError **error);
DL_EXPORT
gboolean dl_stream_wait_stream (DlStream *self, DlStream *other, GError **error);
DL_EXPORT
DlEvent *dl_stream_record_event (DlStream *self, DlEvent *event, GError **error);

G_END_DECLS
