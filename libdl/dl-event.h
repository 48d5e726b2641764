/* dl-event.h: DlEvent, a marker in a stream's queue of work.
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

G_BEGIN_DECLS

#define DL_TYPE_EVENT (dl_event_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlEvent, dl_event, DL, EVENT, GObject)

DL_EXPORT
DlEvent *dl_event_new (gboolean enable_timing, gboolean blocking);
DL_EXPORT
gboolean dl_event_record (DlEvent *self, DlStream *stream, GError **error);
DL_EXPORT
gboolean dl_event_query (DlEvent *self);
DL_EXPORT
gboolean dl_event_synchronize (DlEvent *self, GError **error);
DL_EXPORT
gboolean dl_event_wait (DlEvent *self, DlStream *stream, GError **error);
DL_EXPORT
gdouble dl_event_elapsed_time (DlEvent *self, DlEvent *end, GError **error);
DL_EXPORT
DlDevice *dl_event_get_device (DlEvent *self);
DL_EXPORT
gboolean dl_event_get_enable_timing (DlEvent *self);
DL_EXPORT
gboolean dl_event_get_blocking (DlEvent *self);

G_END_DECLS
