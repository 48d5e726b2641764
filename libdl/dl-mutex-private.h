/* dl-mutex-private.h: libdl's locks, as ThreadSanitizer must see them.
 *
 * GLib's GMutex and GCond are futexes inside GLib, which a sanitized
 * build of libdl does not instrument: ThreadSanitizer would not know that
 * they order the accesses they guard, and would report every one as a
 * race. In a ThreadSanitizer build (DL_TSAN, set by meson) these wrappers
 * tell it; elsewhere they are GLib's own calls.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "config.h"

G_BEGIN_DECLS

#ifdef DL_TSAN
void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

static inline void
dl_mutex_lock (GMutex *mutex)
{
  g_mutex_lock (mutex);
  __tsan_acquire (mutex);
}

static inline void
dl_mutex_unlock (GMutex *mutex)
{
  __tsan_release (mutex);
  g_mutex_unlock (mutex);
}

static inline void
dl_cond_wait (GCond *cond, GMutex *mutex)
{
  __tsan_release (mutex);
  g_cond_wait (cond, mutex);
  __tsan_acquire (mutex);
}
#else
#define dl_mutex_lock g_mutex_lock
#define dl_mutex_unlock g_mutex_unlock
#define dl_cond_wait g_cond_wait
#endif

G_END_DECLS
