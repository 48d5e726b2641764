/* dl-storage.h: DlStorage, a refcounted buffer owned by one device.
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
 * DlReleaseFunc:
 * @user_data: the data given with the function
 *
 * Called when a storage that wraps external memory is freed, so that the
 * owner of that memory can let it go.
 *
 * Since: 0.1
 */
typedef void (*DlReleaseFunc) (gpointer user_data);

#define DL_TYPE_STORAGE (dl_storage_get_type ())

DL_EXPORT
GType dl_storage_get_type (void) G_GNUC_CONST;
DL_EXPORT
DlStorage *dl_storage_ref (DlStorage *self);
DL_EXPORT
void dl_storage_unref (DlStorage *self);
DL_EXPORT
gsize dl_storage_get_nbytes (DlStorage *self);
DL_EXPORT
DlDevice *dl_storage_get_device (DlStorage *self);
DL_EXPORT
gboolean dl_storage_is_external (DlStorage *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DlStorage, dl_storage_unref)

G_END_DECLS
