/* dl-generator.h: DlGenerator, a seedable stream of random numbers.
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

#define DL_TYPE_GENERATOR (dl_generator_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlGenerator, dl_generator, DL, GENERATOR, GObject)

DL_EXPORT
DlGenerator *dl_generator_new (DlDevice *device, GError **error);
DL_EXPORT
void dl_generator_manual_seed (DlGenerator *self, guint64 seed);
DL_EXPORT
guint64 dl_generator_seed (DlGenerator *self);
DL_EXPORT
guint64 dl_generator_initial_seed (DlGenerator *self);
DL_EXPORT
DlDevice *dl_generator_get_device (DlGenerator *self);
DL_EXPORT
GBytes *dl_generator_get_state (DlGenerator *self);
DL_EXPORT
gboolean dl_generator_set_state (DlGenerator *self, GBytes *state, GError **error);
DL_EXPORT
guint64 dl_generator_get_offset (DlGenerator *self);

DL_EXPORT
DlGenerator *dl_device_get_default_generator (DlDevice *device);

DL_EXPORT
DlGenerator *dl_default_generator (void);

G_END_DECLS
