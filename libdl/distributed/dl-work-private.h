/* dl-work-private.h: how a process group makes and completes its works.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "distributed/dl-work.h"

G_BEGIN_DECLS

/* Called by dl_work_wait() when its deadline passes first: marks the
 * group it came from broken with @error (transfer none) */
typedef void (*DlWorkTimeoutFunc) (gpointer group, const GError *error);

/* a pending work of @collective, whose wait gives up @timeout seconds
 * after now (<= 0: never) and then calls @on_timeout (@group, error);
 * @peer (-1: any) is the rank it waits for, named in the timeout's error;
 * @group is kept (a ref) until the work is finalized */
DlWork *dl_work_new (const gchar *collective,
                     gint peer,
                     gint rank,
                     gint size,
                     gdouble timeout,
                     GObject *group,
                     DlWorkTimeoutFunc on_timeout);
/* completes @self: successfully when @error is NULL, else with a copy of
 * it; wakes its waiters. Once only; later calls are ignored. */
void dl_work_complete (DlWork *self, const GError *error);
/* a device group's work (before dl_work_complete()): it ends on the GPU
 * once @event (ref taken) has completed; @keep (nullable, ref taken), the
 * operation's tensors, stays with the work until it is finalized */
void dl_work_set_event (DlWork *self, DlEvent *event, GPtrArray *keep);
/* the error dl_work_wait() gives once the deadline of @self has passed */
GError *dl_work_new_timeout_error (DlWork *self);

/* records the rank a receive from any source got its message from
 * (before dl_work_complete()) */
void dl_work_set_source_rank (DlWork *self, gint src);

/* Frees the jobs the process groups' threads have finished (their
 * tensors, works and groups), on the calling thread; dl_work_wait() and
 * each submission call it (dl-process-group.c, -run.c) */
void dl_process_group_reap_finished (void);

G_END_DECLS
