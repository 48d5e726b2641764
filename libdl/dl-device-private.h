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

const DlBackend *dl_device_get_backend (DlDevice *self);
DlAllocator *dl_device_get_allocator (DlDevice *self);
DlDevice *dl_device_cpu (void); /* (transfer none) */

G_END_DECLS
