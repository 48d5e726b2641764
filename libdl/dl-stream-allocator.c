/* dl-stream-allocator.c: a caching allocator per stream, over a provider's
 * raw segments and events.
 *
 * Meant for a device whose work runs asynchronously on streams (CUDA):
 * asking the device for memory synchronises it, so freed memory is kept and
 * reused. Requests are rounded to 512 bytes. Requests up to 1 MiB are cut
 * from 2 MiB segments (the small pool), larger ones from 20 MiB segments
 * (the large pool), and those of 10 MiB or more get a segment of their own,
 * rounded to 2 MiB, whose block is never split. A block larger than the
 * request is split when the rest is worth keeping (any rest in the small
 * pool, more than 1 MiB in the large one); adjacent free blocks of one
 * segment merge.
 *
 * A freed block may still be read or written by work queued on the streams
 * that used it. Each free records an event on the block's stream and on
 * every stream dl_stream_allocator_record_stream() named; the block serves a
 * stream only when all its pending events are on that stream (stream order
 * then keeps the old work first), and any stream once they have completed.
 * Events are polled on every allocation. When the provider is full, the
 * segments that are wholly free are given back and the allocation retried.
 *
 * The logic runs on the CPU in tests/c/test-stream-allocator.c through a
 * host provider with events completed by hand.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "dl-mutex-private.h"

#include "dl-error.h"
#include "dl-stream-allocator-private.h"

typedef struct _Segment Segment;
typedef struct _Block Block;

typedef struct
{
  gpointer handle; /* the provider's */
  gpointer stream;
} Event;

struct _Block
{
  Segment *segment;
  Block *prev; /* neighbours in the segment, by address */
  Block *next;
  guint8 *ptr;
  gsize size;
  gboolean allocated;
  gpointer stream;          /* the stream it was allocated on */
  GPtrArray *uses;          /* other streams from record_stream, while allocated */
  GArray *events;           /* Event: pending events, while free */
  GSequenceIter *pool_iter; /* its place in its pool, while free */
  guint settle_slot;        /* 1 + its index in process_events_locked()'s list, or 0 */
};

struct _Segment
{
  guint8 *base;
  gsize size;
  gboolean small;
  gboolean oversize; /* its one block is never split */
  Block *first;
};

struct _DlStreamAllocator
{
  GMutex lock;
  DlStreamAllocatorProvider provider;
  gpointer user_data;
  GSequence *small_pool; /* free blocks by size, then address */
  GSequence *large_pool;
  GHashTable *live;    /* pointer -> allocated Block */
  GHashTable *pending; /* free Blocks with pending events (a set) */
  GPtrArray *segments; /* Segment */
  DlStreamAllocatorStats stats;
};

static gint
block_compare (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const Block *x = a, *y = b;

  if (x->size != y->size)
    return x->size < y->size ? -1 : 1;
  if (x->ptr != y->ptr)
    return x->ptr < y->ptr ? -1 : 1;
  return 0;
}

/**
 * dl_stream_allocator_new:
 * @provider: the device's segments and events (copied)
 * @user_data: passed to every hook of @provider
 *
 * Makes an allocator over @provider, holding nothing yet.
 *
 * Returns: (transfer full): the allocator, for dl_stream_allocator_destroy()
 */
DlStreamAllocator *
dl_stream_allocator_new (const DlStreamAllocatorProvider *provider, gpointer user_data)
{
  DlStreamAllocator *self;

  g_return_val_if_fail (provider != NULL, NULL);
  g_return_val_if_fail (provider->alloc && provider->free, NULL);
  g_return_val_if_fail (provider->event_record && provider->event_query && provider->event_free,
                        NULL);

  self = g_new0 (DlStreamAllocator, 1);
  g_mutex_init (&self->lock);
  self->provider = *provider;
  self->user_data = user_data;
  self->small_pool = g_sequence_new (NULL);
  self->large_pool = g_sequence_new (NULL);
  self->live = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->pending = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->segments = g_ptr_array_new ();
  return self;
}

static void
block_drop_events (DlStreamAllocator *self, Block *b)
{
  if (!b->events)
    return;
  for (guint i = 0; i < b->events->len; i++)
    self->provider.event_free (g_array_index (b->events, Event, i).handle, self->user_data);
  g_clear_pointer (&b->events, g_array_unref);
  g_hash_table_remove (self->pending, b);
}

static void
block_destroy (DlStreamAllocator *self, Block *b)
{
  block_drop_events (self, b);
  g_clear_pointer (&b->uses, g_ptr_array_unref);
  g_free (b);
}

/**
 * dl_stream_allocator_destroy:
 * @self: (transfer full): an allocator
 *
 * Gives every segment back to the provider and frees the allocator, with the
 * events still pending. Blocks not yet freed are released with it.
 */
void
dl_stream_allocator_destroy (DlStreamAllocator *self)
{
  if (!self)
    return;
  for (guint i = 0; i < self->segments->len; i++)
    {
      Segment *seg = g_ptr_array_index (self->segments, i);
      Block *b = seg->first;

      while (b)
        {
          Block *next = b->next;
          block_destroy (self, b);
          b = next;
        }
      self->provider.free (seg->base, seg->size, self->user_data);
      g_free (seg);
    }
  g_ptr_array_unref (self->segments);
  g_sequence_free (self->small_pool);
  g_sequence_free (self->large_pool);
  g_hash_table_unref (self->live);
  g_hash_table_unref (self->pending);
  g_mutex_clear (&self->lock);
  g_free (self);
}

/**
 * dl_stream_allocator_round_size:
 * @size: a request in bytes
 *
 * The size of the block a request of @size bytes gets: a multiple of 512,
 * at least 512.
 *
 * Returns: the rounded size, or 0 when it would overflow
 */
gsize
dl_stream_allocator_round_size (gsize size)
{
  if (size > G_MAXSIZE - DL_STREAM_ALLOCATOR_SEGMENT_ROUND)
    return 0;
  if (size == 0)
    return DL_STREAM_ALLOCATOR_ROUND;
  return (size + DL_STREAM_ALLOCATOR_ROUND - 1) / DL_STREAM_ALLOCATOR_ROUND
         * DL_STREAM_ALLOCATOR_ROUND;
}

static GSequence *
block_pool (DlStreamAllocator *self, Block *b)
{
  return b->segment->small ? self->small_pool : self->large_pool;
}

static void
pool_insert (DlStreamAllocator *self, Block *b)
{
  b->pool_iter = g_sequence_insert_sorted (block_pool (self, b), b, block_compare, NULL);
}

static void
pool_remove (Block *b)
{
  g_sequence_remove (b->pool_iter);
  b->pool_iter = NULL;
}

/* The one stream all pending events of @b are on: *only is set to it and
 * TRUE returned, or *only is NULL with no events. FALSE: events on several
 * streams, so no stream may use the block yet. */
static gboolean
block_single_stream (Block *b, gboolean *any, gpointer *only)
{
  *any = TRUE;
  *only = NULL;
  if (!b->events)
    return TRUE;
  for (guint i = 0; i < b->events->len; i++)
    {
      gpointer s = g_array_index (b->events, Event, i).stream;

      if (*any)
        {
          *any = FALSE;
          *only = s;
        }
      else if (s != *only)
        return FALSE;
    }
  return TRUE;
}

static gboolean
block_usable_by (Block *b, gpointer stream)
{
  gboolean any;
  gpointer only;

  if (!block_single_stream (b, &any, &only))
    return FALSE;
  return any || only == stream;
}

/* Two free neighbours merge when the merged block's events would still be
 * on one stream at most, so that a usable block never becomes unusable. */
static gboolean
blocks_mergeable (Block *a, Block *b)
{
  gboolean any_a, any_b;
  gpointer only_a, only_b;

  if (!a || !b || a->allocated || b->allocated)
    return FALSE;
  if (!block_single_stream (a, &any_a, &only_a) || !block_single_stream (b, &any_b, &only_b))
    return FALSE;
  return any_a || any_b || only_a == only_b;
}

/* Merges free @hi into free @lo, its lower neighbour; @lo is out of the
 * pools and @hi may be in its own. @hi is freed: when @changed holds it,
 * its entry becomes NULL. */
static void
merge_into (DlStreamAllocator *self, Block *lo, Block *hi, GPtrArray *changed)
{
  if (hi->pool_iter)
    pool_remove (hi);
  if (changed && hi->settle_slot)
    g_ptr_array_index (changed, hi->settle_slot - 1) = NULL;
  lo->size += hi->size;
  lo->next = hi->next;
  if (hi->next)
    hi->next->prev = lo;
  if (hi->events)
    {
      if (!lo->events)
        lo->events = g_array_new (FALSE, FALSE, sizeof (Event));
      g_array_append_vals (lo->events, hi->events->data, hi->events->len);
      g_clear_pointer (&hi->events, g_array_unref);
      g_hash_table_remove (self->pending, hi);
      g_hash_table_add (self->pending, lo);
    }
  g_free (hi);
  self->stats.n_merges++;
}

/* Puts free @b (in no pool) into its pool, merged with its free neighbours
 * where they allow it (see merge_into() for @changed). Neighbours whose
 * events changed and are not settled yet may merge in turn, hence the
 * loops. */
static void
free_block_settle (DlStreamAllocator *self, Block *b, GPtrArray *changed)
{
  while (blocks_mergeable (b->prev, b))
    {
      Block *lo = b->prev;

      pool_remove (lo);
      merge_into (self, lo, b, changed);
      b = lo;
    }
  while (blocks_mergeable (b, b->next))
    merge_into (self, b, b->next, changed);
  pool_insert (self, b);
}

/* Drops the events that have completed; blocks left without any become
 * usable by every stream and may merge with their neighbours. */
static void
process_events_locked (DlStreamAllocator *self)
{
  GPtrArray *changed = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;

  g_hash_table_iter_init (&it, self->pending);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      Block *b = key;
      guint before = b->events->len;

      for (guint i = b->events->len; i-- > 0;)
        {
          Event *e = &g_array_index (b->events, Event, i);

          if (self->provider.event_query (e->handle, self->user_data))
            {
              self->provider.event_free (e->handle, self->user_data);
              g_array_remove_index_fast (b->events, i);
            }
        }
      if (b->events->len == 0)
        {
          g_clear_pointer (&b->events, g_array_unref);
          g_hash_table_iter_remove (&it);
        }
      if (b->events == NULL || b->events->len != before)
        {
          g_ptr_array_add (changed, b);
          b->settle_slot = changed->len;
        }
    }
  /* settle each changed block, skipping those merged away */
  for (guint i = 0; i < changed->len; i++)
    {
      Block *b = g_ptr_array_index (changed, i);

      if (!b)
        continue;
      b->settle_slot = 0;
      pool_remove (b);
      free_block_settle (self, b, changed);
    }
  g_ptr_array_unref (changed);
}

static gboolean
segment_releasable (Segment *seg)
{
  Block *b = seg->first;

  return !b->allocated && !b->next && !b->events;
}

/* Gives the wholly free segments without pending events back to the
 * provider. Returns the bytes released. */
static guint64
release_cached_locked (DlStreamAllocator *self)
{
  guint64 released = 0;

  process_events_locked (self);
  for (guint i = self->segments->len; i-- > 0;)
    {
      Segment *seg = g_ptr_array_index (self->segments, i);

      if (!segment_releasable (seg))
        continue;
      pool_remove (seg->first);
      g_free (seg->first);
      self->provider.free (seg->base, seg->size, self->user_data);
      self->stats.reserved_bytes -= seg->size;
      self->stats.n_segments--;
      self->stats.n_segment_frees++;
      released += seg->size;
      g_free (seg);
      g_ptr_array_remove_index_fast (self->segments, i);
    }
  return released;
}

/* The free block that serves @size bytes on @stream best: the smallest
 * that fits and that the stream may use. Oversize requests take oversize
 * blocks only (they have segments of their own), and only when less than a
 * large segment would be wasted; other requests never take them. */
static Block *
pool_find (DlStreamAllocator *self, gsize size, gpointer stream)
{
  gboolean small = size <= DL_STREAM_ALLOCATOR_SMALL_SIZE;
  gboolean oversize = size >= DL_STREAM_ALLOCATOR_OVERSIZE;
  GSequence *pool = small ? self->small_pool : self->large_pool;
  Block key = { .size = size, .ptr = NULL };
  GSequenceIter *it = g_sequence_search (pool, &key, block_compare, NULL);

  for (; !g_sequence_iter_is_end (it); it = g_sequence_iter_next (it))
    {
      Block *b = g_sequence_get (it);

      if (b->segment->oversize != oversize
          || (oversize && b->size - size >= DL_STREAM_ALLOCATOR_LARGE_SEGMENT))
        continue;
      if (block_usable_by (b, stream))
        return b;
    }
  return NULL;
}

static gsize
segment_size_for (gsize size)
{
  if (size <= DL_STREAM_ALLOCATOR_SMALL_SIZE)
    return DL_STREAM_ALLOCATOR_SMALL_SEGMENT;
  if (size < DL_STREAM_ALLOCATOR_OVERSIZE)
    return DL_STREAM_ALLOCATOR_LARGE_SEGMENT;
  return (size + DL_STREAM_ALLOCATOR_SEGMENT_ROUND - 1) / DL_STREAM_ALLOCATOR_SEGMENT_ROUND
         * DL_STREAM_ALLOCATOR_SEGMENT_ROUND;
}

/* A new segment for @size bytes as one free block (in no pool), or NULL
 * when the provider is full. */
static Block *
segment_new_locked (DlStreamAllocator *self, gsize size)
{
  gsize seg_size = segment_size_for (size);
  gpointer base = self->provider.alloc (seg_size, self->user_data);
  Segment *seg;
  Block *b;

  if (!base)
    return NULL;
  seg = g_new0 (Segment, 1);
  seg->base = base;
  seg->size = seg_size;
  seg->small = size <= DL_STREAM_ALLOCATOR_SMALL_SIZE;
  seg->oversize = size >= DL_STREAM_ALLOCATOR_OVERSIZE;
  b = g_new0 (Block, 1);
  b->segment = seg;
  b->ptr = base;
  b->size = seg_size;
  seg->first = b;
  g_ptr_array_add (self->segments, seg);
  self->stats.reserved_bytes += seg_size;
  self->stats.max_reserved_bytes = MAX (self->stats.max_reserved_bytes, self->stats.reserved_bytes);
  self->stats.n_segments++;
  self->stats.n_segment_allocs++;
  return b;
}

static gboolean
should_split (Block *b, gsize size)
{
  gsize rest = b->size - size;

  if (b->segment->oversize)
    return FALSE;
  if (b->segment->small)
    return rest >= DL_STREAM_ALLOCATOR_ROUND;
  return rest > DL_STREAM_ALLOCATOR_SMALL_SIZE;
}

/**
 * dl_stream_allocator_malloc:
 * @self: an allocator
 * @size: bytes wanted
 * @stream: (nullable): the stream that will use them (%NULL: the default one)
 * @error: return location for a #GError
 *
 * Allocates a block of at least @size bytes for work on @stream, from the
 * cache when a free block fits and @stream may use it, else from a new
 * segment. When the provider is full, the wholly free segments go back to it
 * first and the allocation is retried.
 *
 * Returns: (transfer full): the block, or %NULL with %DL_ERROR_OUT_OF_MEMORY
 */
gpointer
dl_stream_allocator_malloc (DlStreamAllocator *self, gsize size, gpointer stream, GError **error)
{
  gsize rounded = dl_stream_allocator_round_size (size);
  Block *b;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (rounded == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                   "stream allocator: a request of %" G_GSIZE_FORMAT " bytes is too large", size);
      return NULL;
    }

  dl_mutex_lock (&self->lock);
  process_events_locked (self);
  b = pool_find (self, rounded, stream);
  if (b)
    pool_remove (b);
  else
    {
      b = segment_new_locked (self, rounded);
      if (!b && release_cached_locked (self) > 0)
        {
          self->stats.n_oom_retries++;
          b = segment_new_locked (self, rounded);
        }
    }
  if (!b)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                   "stream allocator: out of memory allocating %" G_GSIZE_FORMAT
                   " bytes (a %" G_GSIZE_FORMAT "-byte segment): %" G_GUINT64_FORMAT
                   " bytes reserved, %" G_GUINT64_FORMAT " allocated",
                   size, segment_size_for (rounded), self->stats.reserved_bytes,
                   self->stats.allocated_bytes);
      dl_mutex_unlock (&self->lock);
      return NULL;
    }

  if (should_split (b, rounded))
    {
      Block *rest = g_new0 (Block, 1);

      rest->segment = b->segment;
      rest->ptr = b->ptr + rounded;
      rest->size = b->size - rounded;
      rest->prev = b;
      rest->next = b->next;
      if (b->next)
        b->next->prev = rest;
      b->next = rest;
      b->size = rounded;
      /* the rest keeps the events: the work they wait for may touch it */
      if (b->events)
        {
          rest->events = g_steal_pointer (&b->events);
          g_hash_table_remove (self->pending, b);
          g_hash_table_add (self->pending, rest);
        }
      pool_insert (self, rest);
      self->stats.n_splits++;
    }
  /* events left on the block are all on @stream, which orders them */
  block_drop_events (self, b);
  b->allocated = TRUE;
  b->stream = stream;
  g_hash_table_insert (self->live, b->ptr, b);
  self->stats.allocated_bytes += b->size;
  self->stats.max_allocated_bytes
      = MAX (self->stats.max_allocated_bytes, self->stats.allocated_bytes);
  self->stats.n_allocs++;
  dl_mutex_unlock (&self->lock);
  return b->ptr;
}

static gpointer
lookup_locked (DlStreamAllocator *self, gpointer ptr)
{
  return g_hash_table_lookup (self->live, ptr);
}

static void
block_add_event (DlStreamAllocator *self, Block *b, gpointer stream)
{
  Event e = { self->provider.event_record (stream, self->user_data), stream };

  if (!b->events)
    b->events = g_array_new (FALSE, FALSE, sizeof (Event));
  g_array_append_val (b->events, e);
  g_hash_table_add (self->pending, b);
}

/**
 * dl_stream_allocator_free:
 * @self: an allocator
 * @ptr: (nullable): a block dl_stream_allocator_malloc() returned
 *
 * Returns a block to the cache. Its stream may reuse it at once; other
 * streams once the events recorded now on its stream, and on those
 * dl_stream_allocator_record_stream() named, have completed.
 */
void
dl_stream_allocator_free (DlStreamAllocator *self, gpointer ptr)
{
  Block *b;

  g_return_if_fail (self != NULL);
  if (!ptr)
    return;
  dl_mutex_lock (&self->lock);
  b = lookup_locked (self, ptr);
  if (!b)
    {
      dl_mutex_unlock (&self->lock);
      g_return_if_fail (b != NULL);
      return;
    }
  g_hash_table_remove (self->live, ptr);
  b->allocated = FALSE;
  self->stats.allocated_bytes -= b->size;
  self->stats.n_frees++;
  block_add_event (self, b, b->stream);
  if (b->uses)
    {
      for (guint i = 0; i < b->uses->len; i++)
        block_add_event (self, b, g_ptr_array_index (b->uses, i));
      g_clear_pointer (&b->uses, g_ptr_array_unref);
    }
  b->stream = NULL;
  free_block_settle (self, b, NULL);
  dl_mutex_unlock (&self->lock);
}

/**
 * dl_stream_allocator_record_stream:
 * @self: an allocator
 * @ptr: an allocated block
 * @stream: (nullable): another stream whose work uses the block
 *
 * Notes that work queued on @stream uses @ptr, so that once freed it is
 * reused only after that work is done.
 */
void
dl_stream_allocator_record_stream (DlStreamAllocator *self, gpointer ptr, gpointer stream)
{
  Block *b;

  g_return_if_fail (self != NULL);
  dl_mutex_lock (&self->lock);
  b = lookup_locked (self, ptr);
  if (b && stream != b->stream)
    {
      if (!b->uses)
        b->uses = g_ptr_array_new ();
      if (!g_ptr_array_find (b->uses, stream, NULL))
        g_ptr_array_add (b->uses, stream);
    }
  dl_mutex_unlock (&self->lock);
  g_return_if_fail (b != NULL);
}

/**
 * dl_stream_allocator_block_size:
 * @self: an allocator
 * @ptr: an allocated block
 *
 * Returns: the size of the block at @ptr, or 0 when it is not allocated
 */
gsize
dl_stream_allocator_block_size (DlStreamAllocator *self, gpointer ptr)
{
  Block *b;
  gsize size;

  g_return_val_if_fail (self != NULL, 0);
  dl_mutex_lock (&self->lock);
  b = lookup_locked (self, ptr);
  size = b ? b->size : 0;
  dl_mutex_unlock (&self->lock);
  return size;
}

/**
 * dl_stream_allocator_empty_cache:
 * @self: an allocator
 *
 * Gives back to the provider every segment that is wholly free and whose
 * events have completed.
 */
void
dl_stream_allocator_empty_cache (DlStreamAllocator *self)
{
  g_return_if_fail (self != NULL);
  dl_mutex_lock (&self->lock);
  release_cached_locked (self);
  dl_mutex_unlock (&self->lock);
}

static void
pool_stats (GSequence *pool, DlStreamAllocatorStats *stats)
{
  for (GSequenceIter *it = g_sequence_get_begin_iter (pool); !g_sequence_iter_is_end (it);
       it = g_sequence_iter_next (it))
    {
      Block *b = g_sequence_get (it);

      stats->n_free_blocks++;
      stats->free_bytes += b->size;
      stats->largest_free_block = MAX (stats->largest_free_block, b->size);
      if (b->size < b->segment->size)
        {
          stats->n_inactive_split_blocks++;
          stats->inactive_split_bytes += b->size;
        }
    }
}

/**
 * dl_stream_allocator_get_stats:
 * @self: an allocator
 * @stats: (out caller-allocates): where to write the counters
 *
 * Reads the allocator's counters and the state of its pools.
 */
void
dl_stream_allocator_get_stats (DlStreamAllocator *self, DlStreamAllocatorStats *stats)
{
  g_return_if_fail (self != NULL && stats != NULL);
  dl_mutex_lock (&self->lock);
  *stats = self->stats;
  stats->n_free_blocks = stats->free_bytes = stats->largest_free_block = 0;
  stats->inactive_split_bytes = stats->n_inactive_split_blocks = 0;
  stats->n_allocated_blocks = g_hash_table_size (self->live);
  pool_stats (self->small_pool, stats);
  pool_stats (self->large_pool, stats);
  stats->fragmentation
      = stats->free_bytes ? 1.0 - (gdouble)stats->largest_free_block / stats->free_bytes : 0.0;
  dl_mutex_unlock (&self->lock);
}

/**
 * dl_stream_allocator_get_memory_stats:
 * @self: an allocator
 * @stats: (out caller-allocates): where to write the figures
 *
 * Reads the allocator's figures as a device reports them
 * (dl_device_get_memory_stats()).
 */
void
dl_stream_allocator_get_memory_stats (DlStreamAllocator *self, DlMemoryStats *stats)
{
  DlStreamAllocatorStats s;

  dl_stream_allocator_get_stats (self, &s);
  *stats = (DlMemoryStats){
    .allocated_bytes = s.allocated_bytes,
    .max_allocated_bytes = s.max_allocated_bytes,
    .reserved_bytes = s.reserved_bytes,
    .max_reserved_bytes = s.max_reserved_bytes,
    .cached_bytes = s.free_bytes,
    .n_allocations = s.n_allocated_blocks,
    .n_segments = s.n_segments,
    .n_free_blocks = s.n_free_blocks,
    .largest_free_block = s.largest_free_block,
    .inactive_split_bytes = s.inactive_split_bytes,
    .n_inactive_split = s.n_inactive_split_blocks,
    .n_alloc_retries = s.n_oom_retries,
  };
}

/**
 * dl_stream_allocator_reset_peaks:
 * @self: an allocator
 *
 * Sets the peaks of allocated and reserved bytes to the bytes allocated
 * and reserved now.
 */
void
dl_stream_allocator_reset_peaks (DlStreamAllocator *self)
{
  g_return_if_fail (self != NULL);
  dl_mutex_lock (&self->lock);
  self->stats.max_allocated_bytes = self->stats.allocated_bytes;
  self->stats.max_reserved_bytes = self->stats.reserved_bytes;
  dl_mutex_unlock (&self->lock);
}

#define CHECK_FAIL(...)                                                                            \
  G_STMT_START                                                                                     \
  {                                                                                                \
    g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "stream allocator check: " __VA_ARGS__);        \
    goto out;                                                                                      \
  }                                                                                                \
  G_STMT_END

/**
 * dl_stream_allocator_check:
 * @self: an allocator
 * @error: return location for a #GError
 *
 * Checks the allocator's invariants, for tests: the blocks of each segment
 * tile it exactly, free blocks and only they are in the pools, no two
 * adjacent free blocks could merge, oversize segments hold one block, and
 * the counters agree with the blocks (allocated <= reserved).
 *
 * Returns: %TRUE when they hold, else %FALSE with %DL_ERROR_FAILED naming
 *   the first that does not
 */
gboolean
dl_stream_allocator_check (DlStreamAllocator *self, GError **error)
{
  guint64 reserved = 0, allocated = 0, n_live = 0, n_free = 0, n_pending = 0;
  gboolean ok = FALSE;

  g_return_val_if_fail (self != NULL, FALSE);
  dl_mutex_lock (&self->lock);
  for (guint i = 0; i < self->segments->len; i++)
    {
      Segment *seg = g_ptr_array_index (self->segments, i);
      guint8 *end = seg->base;
      guint n_blocks = 0;

      if (!seg->first || seg->first->prev)
        CHECK_FAIL ("segment %p has no first block", seg->base);
      for (Block *b = seg->first; b; b = b->next)
        {
          n_blocks++;
          if (b->segment != seg || b->ptr != end || b->size == 0
              || b->size % DL_STREAM_ALLOCATOR_ROUND != 0)
            CHECK_FAIL ("block %p (%" G_GSIZE_FORMAT " bytes) does not follow %p in segment %p",
                        b->ptr, b->size, end, seg->base);
          if (b->next && b->next->prev != b)
            CHECK_FAIL ("block %p: its neighbour does not point back", b->ptr);
          end += b->size;
          if (b->allocated)
            {
              allocated += b->size;
              n_live++;
              if (b->pool_iter || b->events)
                CHECK_FAIL ("allocated block %p is in a pool or has events", b->ptr);
              if (g_hash_table_lookup (self->live, b->ptr) != b)
                CHECK_FAIL ("allocated block %p is not in the live table", b->ptr);
            }
          else
            {
              n_free++;
              if (!b->pool_iter || g_sequence_get (b->pool_iter) != b
                  || g_sequence_iter_get_sequence (b->pool_iter)
                         != (seg->small ? self->small_pool : self->large_pool))
                CHECK_FAIL ("free block %p is not in its pool", b->ptr);
              if (blocks_mergeable (b, b->next))
                CHECK_FAIL ("free blocks %p and %p are adjacent and not merged", b->ptr,
                            b->next->ptr);
              if ((b->events != NULL) != g_hash_table_contains (self->pending, b)
                  || (b->events && b->events->len == 0))
                CHECK_FAIL ("free block %p: its events and the pending set disagree", b->ptr);
              n_pending += b->events != NULL;
            }
        }
      if (end != seg->base + seg->size)
        CHECK_FAIL ("the blocks of segment %p cover %" G_GSIZE_FORMAT " of its %" G_GSIZE_FORMAT
                    " bytes",
                    seg->base, (gsize)(end - seg->base), seg->size);
      if (seg->oversize && n_blocks != 1)
        CHECK_FAIL ("oversize segment %p was split into %u blocks", seg->base, n_blocks);
      reserved += seg->size;
    }
  if (reserved != self->stats.reserved_bytes || self->segments->len != self->stats.n_segments)
    CHECK_FAIL ("reserved %" G_GUINT64_FORMAT " bytes in %u segments, counted %" G_GUINT64_FORMAT
                " in %" G_GUINT64_FORMAT,
                reserved, self->segments->len, self->stats.reserved_bytes, self->stats.n_segments);
  if (allocated != self->stats.allocated_bytes)
    CHECK_FAIL ("allocated %" G_GUINT64_FORMAT " bytes, counted %" G_GUINT64_FORMAT, allocated,
                self->stats.allocated_bytes);
  if (allocated > reserved || self->stats.max_allocated_bytes < allocated
      || self->stats.max_reserved_bytes < reserved)
    CHECK_FAIL ("allocated %" G_GUINT64_FORMAT " exceeds reserved %" G_GUINT64_FORMAT
                " or the peaks %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
                allocated, reserved, self->stats.max_allocated_bytes,
                self->stats.max_reserved_bytes);
  if (n_live != g_hash_table_size (self->live)
      || n_free
             != (guint64)g_sequence_get_length (self->small_pool)
                    + g_sequence_get_length (self->large_pool)
      || n_pending != g_hash_table_size (self->pending))
    CHECK_FAIL ("%" G_GUINT64_FORMAT " allocated and %" G_GUINT64_FORMAT
                " free blocks do not match the tables",
                n_live, n_free);
  if (self->stats.n_allocs - self->stats.n_frees != n_live
      || self->stats.n_segment_allocs - self->stats.n_segment_frees != self->stats.n_segments)
    CHECK_FAIL ("the allocation counters do not match %" G_GUINT64_FORMAT " live blocks", n_live);
  ok = TRUE;
out:
  dl_mutex_unlock (&self->lock);
  return ok;
}
