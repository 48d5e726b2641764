/* dl-generator-private.h: what random ops ask of a DlGenerator.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-generator.h"
#include "backends/dl-backend.h"

G_BEGIN_DECLS

/* Takes @n_blocks Philox blocks from @self (or the default generator of
 * @device when @self is NULL): the key in @seed, the first counter in
 * @offset. A CPU generator, whose stream is not counter-based, draws a
 * fresh key from its stream instead (offset 0), for the kernels that need
 * a counter-based stream (the per-element samplers, attention's dropout,
 * which its backward recomputes).  Thread-safe. */
void dl_generator_reserve (DlGenerator *self,
                           DlDevice *device,
                           guint64 n_blocks,
                           guint64 *seed,
                           guint64 *offset);

/* Starts a draw from @self (or the default generator of @device when @self
 * is NULL) into @draw: a CPU generator hands its engine (draw->mt) and
 * stays locked until dl_generator_end(); another takes @n_blocks Philox
 * blocks as dl_generator_reserve() does. Returns what to pass to
 * dl_generator_end(). */
DlGenerator *
dl_generator_begin (DlGenerator *self, DlDevice *device, guint64 n_blocks, DlRandomDraw *draw);
void dl_generator_end (DlGenerator *held);

/* Seeds the default generator of every device, those made so far and
 * those made later (dl_manual_seed ()). */
void dl_generator_manual_seed_all (guint64 seed);

G_END_DECLS
