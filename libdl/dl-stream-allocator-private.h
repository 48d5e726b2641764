/* dl-stream-allocator-private.h: a caching allocator per stream, for a
 * device with asynchronous streams (the CUDA backend's memory).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dl-device.h"

G_BEGIN_DECLS

/* Block sizes are multiples of this */
#define DL_STREAM_ALLOCATOR_ROUND ((gsize)512)
/* Requests up to this size come from the small pool */
#define DL_STREAM_ALLOCATOR_SMALL_SIZE ((gsize)1 << 20)
/* The segment size of the small pool */
#define DL_STREAM_ALLOCATOR_SMALL_SEGMENT ((gsize)2 << 20)
/* The segment size of the large pool for requests below the oversize one */
#define DL_STREAM_ALLOCATOR_LARGE_SEGMENT ((gsize)20 << 20)
/* Requests from this size on get a segment of their own, rounded up to
 * DL_STREAM_ALLOCATOR_SEGMENT_ROUND, whose block is never split */
#define DL_STREAM_ALLOCATOR_OVERSIZE ((gsize)10 << 20)
#define DL_STREAM_ALLOCATOR_SEGMENT_ROUND ((gsize)2 << 20)

typedef struct _DlStreamAllocator DlStreamAllocator;

/**
 * DlStreamAllocatorProvider:
 * @alloc: allocates a segment of @size bytes; %NULL when the device is full
 * @free: releases a segment that @alloc returned, with its size
 * @event_record: records an event on @stream (the device's stream handle,
 *   %NULL for its default stream) and returns it
 * @event_query: whether the work @event_record saw on its stream is done
 * @event_free: releases an event
 *
 * What a device gives the stream allocator: raw segments and events. Every
 * hook gets the user_data given to dl_stream_allocator_new(). The hooks are
 * called with the allocator's lock held and must not call back into it.
 */
typedef struct
{
  gpointer (*alloc) (gsize size, gpointer user_data);
  void (*free) (gpointer ptr, gsize size, gpointer user_data);
  gpointer (*event_record) (gpointer stream, gpointer user_data);
  gboolean (*event_query) (gpointer event, gpointer user_data);
  void (*event_free) (gpointer event, gpointer user_data);
} DlStreamAllocatorProvider;

/**
 * DlStreamAllocatorStats:
 * @allocated_bytes: bytes of blocks handed out and not freed (rounded sizes)
 * @max_allocated_bytes: the most @allocated_bytes has been since the
 *   allocator was made or dl_stream_allocator_reset_peaks() was called
 * @reserved_bytes: bytes of the segments held from the provider
 * @max_reserved_bytes: the most @reserved_bytes has been, reset with
 *   @max_allocated_bytes
 * @n_segments: segments held from the provider
 * @n_allocated_blocks: blocks handed out and not freed
 * @inactive_split_bytes: bytes of the free blocks that are a part of a
 *   segment, not all of it (torch's inactive_split_bytes: memory that
 *   only requests small enough to fit the pieces can use)
 * @n_inactive_split_blocks: the free blocks that are a part of a segment
 * @n_free_blocks: free blocks cached in the pools
 * @free_bytes: bytes of the free blocks
 * @largest_free_block: the size of the largest free block
 * @fragmentation: 1 - @largest_free_block / @free_bytes (0 with nothing free)
 * @n_allocs: successful dl_stream_allocator_malloc() calls
 * @n_frees: dl_stream_allocator_free() calls
 * @n_splits: blocks split in two on allocation
 * @n_merges: pairs of adjacent free blocks merged into one
 * @n_segment_allocs: segments asked of the provider and given
 * @n_segment_frees: segments given back to the provider
 * @n_oom_retries: allocations retried after the cache was emptied
 *
 * The allocator's counters, as dl_stream_allocator_get_stats() reads them.
 */
typedef struct
{
  guint64 allocated_bytes;
  guint64 max_allocated_bytes;
  guint64 reserved_bytes;
  guint64 max_reserved_bytes;
  guint64 n_segments;
  guint64 n_allocated_blocks;
  guint64 inactive_split_bytes;
  guint64 n_inactive_split_blocks;
  guint64 n_free_blocks;
  guint64 free_bytes;
  guint64 largest_free_block;
  gdouble fragmentation;
  guint64 n_allocs;
  guint64 n_frees;
  guint64 n_splits;
  guint64 n_merges;
  guint64 n_segment_allocs;
  guint64 n_segment_frees;
  guint64 n_oom_retries;
} DlStreamAllocatorStats;

DlStreamAllocator *dl_stream_allocator_new (const DlStreamAllocatorProvider *provider,
                                            gpointer user_data);
void dl_stream_allocator_destroy (DlStreamAllocator *self);
gsize dl_stream_allocator_round_size (gsize size);
gpointer
dl_stream_allocator_malloc (DlStreamAllocator *self, gsize size, gpointer stream, GError **error);
void dl_stream_allocator_free (DlStreamAllocator *self, gpointer ptr);
void dl_stream_allocator_record_stream (DlStreamAllocator *self, gpointer ptr, gpointer stream);
gsize dl_stream_allocator_block_size (DlStreamAllocator *self, gpointer ptr);
void dl_stream_allocator_empty_cache (DlStreamAllocator *self);
void dl_stream_allocator_get_stats (DlStreamAllocator *self, DlStreamAllocatorStats *stats);
void dl_stream_allocator_get_memory_stats (DlStreamAllocator *self, DlMemoryStats *stats);
void dl_stream_allocator_reset_peaks (DlStreamAllocator *self);
gboolean dl_stream_allocator_check (DlStreamAllocator *self, GError **error);

G_END_DECLS
