/* dl-allocator-private.h: the caching allocator shared by all backends.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _DlAllocator DlAllocator;
typedef struct _DlBackendContext DlBackendContext;

/* a backend's raw_alloc and raw_free, called with the context the
 * allocator was made with */
typedef gpointer (*DlRawAllocFunc) (DlBackendContext *ctx, gsize nbytes);
typedef void (*DlRawFreeFunc) (DlBackendContext *ctx, gpointer ptr, gsize nbytes);

typedef struct
{
  guint64 allocated;      /* bytes handed out and not yet given back */
  guint64 peak_allocated; /* the most allocated has been */
  guint64 reserved;       /* allocated + cached */
  guint64 peak_reserved;  /* the most reserved has been */
  guint64 cached;         /* held in free lists */
  guint64 n_hits;         /* allocations served from the cache */
  guint64 n_misses;       /* allocations that went to the raw allocator */
} DlAllocatorStats;

/* A miss gives back cached blocks only of the sizes not asked for in
 * this many allocations of cached (large) sizes */
#define DL_ALLOCATOR_TRIM_AGE 1024

DlAllocator *dl_allocator_new (DlBackendContext *ctx,
                               DlRawAllocFunc raw_alloc,
                               DlRawFreeFunc raw_free,
                               gsize min_cached_size,
                               guint64 cache_limit);
void dl_allocator_free_all (DlAllocator *self);
gpointer dl_allocator_alloc (DlAllocator *self, gsize nbytes, gsize *block_size);
void dl_allocator_release (DlAllocator *self, gpointer ptr, gsize block_size);
void dl_allocator_empty_cache (DlAllocator *self);
void dl_allocator_track (DlAllocator *self, gssize delta);
void dl_allocator_get_stats (DlAllocator *self, DlAllocatorStats *stats);
void dl_allocator_reset_peaks (DlAllocator *self);
gsize dl_allocator_round_size (DlAllocator *self, gsize nbytes);

G_END_DECLS
