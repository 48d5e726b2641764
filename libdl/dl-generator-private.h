/* dl-generator-private.h: what random ops ask of a DlGenerator.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-generator.h"

G_BEGIN_DECLS

/* Takes @n_blocks Philox blocks from @self (or the default generator of
 * @device when @self is NULL): the key in @seed, the first counter in
 * @offset.  Thread-safe. */
void dl_generator_reserve (DlGenerator *self,
                           DlDevice *device,
                           guint64 n_blocks,
                           guint64 *seed,
                           guint64 *offset);

/* Seeds the default generator of every device, those made so far and
 * those made later (dl_manual_seed ()). */
void dl_generator_manual_seed_all (guint64 seed);

G_END_DECLS
