/* dl-work.h: DlWork, the handle of a collective that may still be running.
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

#define DL_TYPE_WORK (dl_work_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlWork, dl_work, DL, WORK, GObject)

DL_EXPORT
gboolean dl_work_wait (DlWork *self, GError **error);
DL_EXPORT
gboolean dl_work_is_completed (DlWork *self);
DL_EXPORT
gboolean dl_work_is_success (DlWork *self);
DL_EXPORT
const GError *dl_work_get_error (DlWork *self);
DL_EXPORT
gint dl_work_get_source_rank (DlWork *self);

G_END_DECLS
