/* dl-allocator.c: a size-binned caching allocator over a backend's raw
 * allocate/free.
 *
 * Blocks of at least min_cached_size bytes are rounded up to a size class
 * (four classes per power of two) and, when released, kept on that class's
 * free list instead of going back to the raw allocator, up to cache_limit
 * bytes in all. The point on the CPU: a fresh large allocation from the OS
 * pays a page fault per 4 KiB on first touch, which halves the speed of a
 * memory-bound op that writes a new output; a reused block is already
 * mapped. On a GPU it saves the synchronising cudaMalloc/cudaFree.
 *
 * Smaller blocks (64-byte multiples below min_cached_size) are kept too, a
 * few of each exact size in a small table (SMALL_SLOTS slots of one size
 * each, at most SMALL_SLOT_BYTES per slot), so that the op after op
 * allocation of a program's small tensors is a table lookup, not a
 * posix_memalign and a free (about 1400 instructions together, 20% of an
 * out-of-place add of 1000 floats). A size whose slot holds another size
 * is not kept; a miss on a small size never trims the large free lists.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "dl-mutex-private.h"

#include "dl-allocator-private.h"

#define SMALL_SLOTS 64
#define SMALL_SLOT_BYTES (256 * 1024)
#define SMALL_SLOT_BLOCKS 8

/* the cached blocks of one small size (size is 0 while the slot is empty) */
typedef struct
{
  gsize size;
  guint n;
  gpointer blocks[SMALL_SLOT_BLOCKS];
} SmallSlot;

struct _DlAllocator
{
  GMutex lock;
  DlBackendContext *ctx; /* (not owned): the device's, for raw_alloc and raw_free */
  DlRawAllocFunc raw_alloc;
  DlRawFreeFunc raw_free;
  gsize min_cached_size;
  guint64 cache_limit;
  GHashTable *free_lists; /* block size -> GSList of pointers */
  GHashTable *last_asked; /* block size -> the clock when it was last asked for (a gsize) */
  guint64 clock;          /* large allocations so far */
  SmallSlot small[SMALL_SLOTS];
  DlAllocatorStats stats;
};

DlAllocator *
dl_allocator_new (DlBackendContext *ctx,
                  DlRawAllocFunc raw_alloc,
                  DlRawFreeFunc raw_free,
                  gsize min_cached_size,
                  guint64 cache_limit)
{
  DlAllocator *self = g_new0 (DlAllocator, 1);

  g_mutex_init (&self->lock);
  self->ctx = ctx;
  self->raw_alloc = raw_alloc;
  self->raw_free = raw_free;
  self->min_cached_size = MAX (min_cached_size, 64);
  self->cache_limit = cache_limit;
  self->free_lists = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->last_asked = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return self;
}

/* Sizes below the cached minimum round to 64 bytes; larger ones to one of
 * four classes per power of two (at most 25% waste). */
gsize
dl_allocator_round_size (DlAllocator *self, gsize nbytes)
{
  gsize p, step;

  if (nbytes < self->min_cached_size)
    return (nbytes + 63) & ~(gsize)63;
  p = 1;
  while (p * 2 < nbytes && p < G_MAXSIZE / 4)
    p <<= 1;
  /* p <= nbytes <= 2p: round up to a multiple of p / 4 */
  step = MAX (p / 4, 64);
  return (nbytes + step - 1) / step * step;
}

/* the small table's slot for a block size below min_cached_size */
static SmallSlot *
small_slot (DlAllocator *self, gsize size)
{
  guint64 h = (guint64)(size / 64) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);

  return &self->small[h >> (64 - 6)];
}

/* how many blocks of @size a slot keeps */
static guint
small_capacity (gsize size)
{
  return CLAMP (SMALL_SLOT_BYTES / size, 1, SMALL_SLOT_BLOCKS);
}

static void
release_small_locked (DlAllocator *self)
{
  for (guint i = 0; i < SMALL_SLOTS; i++)
    {
      SmallSlot *slot = &self->small[i];

      for (guint j = 0; j < slot->n; j++)
        {
          self->raw_free (self->ctx, slot->blocks[j], slot->size);
          self->stats.cached -= slot->size;
          self->stats.reserved -= slot->size;
        }
      slot->n = 0;
      slot->size = 0;
    }
}

static void
release_list_locked (DlAllocator *self, gsize size, GSList *list)
{
  for (GSList *l = list; l; l = l->next)
    {
      self->raw_free (self->ctx, l->data, size);
      self->stats.cached -= size;
      self->stats.reserved -= size;
    }
  g_slist_free (list);
}

/* notes that a block of @size (at least min_cached_size) was asked for */
static void
note_asked_locked (DlAllocator *self, gsize size)
{
  gint64 key = size;

  /* the clock starts at 1: a size never asked for reads as 0 */
  self->clock++;
  g_hash_table_replace (self->last_asked, g_memdup2 (&key, sizeof key),
                        GSIZE_TO_POINTER (self->clock));
}

/* releases cached blocks, whole free lists at a time, until at least
 * @nbytes went back or none are left: first of the sizes no longer asked
 * for (not in the last DL_ALLOCATOR_TRIM_AGE large allocations), then,
 * while the cache holds more than is in use, of any size. A size in use
 * stays otherwise, however long ago its blocks were cached: a training
 * step that needs one more block of each of two sizes than the cache
 * holds would have each miss give back the other size's blocks, and every
 * step would take fresh memory from the system for both (a page fault per
 * 4 KiB on first touch; the weight gradients of an MLP step accumulated
 * into existing grads did) */
static void
trim_locked (DlAllocator *self, gsize nbytes)
{
  gsize released = 0;

  for (gint pass = 0; pass < 2 && released < nbytes; pass++)
    {
      GHashTableIter iter;
      gpointer key, value;

      if (pass == 1 && self->stats.cached <= self->stats.allocated)
        break;
      g_hash_table_iter_init (&iter, self->free_lists);
      while (released < nbytes && g_hash_table_iter_next (&iter, &key, &value))
        {
          gsize size = *(gint64 *)key;
          guint64 asked = GPOINTER_TO_SIZE (g_hash_table_lookup (self->last_asked, key));

          if (pass == 0 && asked && self->clock - asked < DL_ALLOCATOR_TRIM_AGE)
            continue;
          released += size * g_slist_length (value);
          release_list_locked (self, size, value);
          g_hash_table_iter_remove (&iter);
        }
    }
}

gpointer
dl_allocator_alloc (DlAllocator *self, gsize nbytes, gsize *block_size)
{
  gsize size = dl_allocator_round_size (self, MAX (nbytes, 1));
  gpointer ptr = NULL;

  dl_mutex_lock (&self->lock);
  if (size >= self->min_cached_size)
    {
      gint64 key = size;
      GSList *list = g_hash_table_lookup (self->free_lists, &key);

      note_asked_locked (self, size);
      if (list)
        {
          ptr = list->data;
          list = g_slist_delete_link (list, list);
          if (list)
            g_hash_table_insert (self->free_lists, g_memdup2 (&key, sizeof key), list);
          else
            g_hash_table_remove (self->free_lists, &key);
          self->stats.cached -= size;
          self->stats.n_hits++;
        }
    }
  else
    {
      SmallSlot *slot = small_slot (self, size);

      if (slot->size == size && slot->n > 0)
        {
          ptr = slot->blocks[--slot->n];
          self->stats.cached -= size;
          self->stats.n_hits++;
        }
    }
  if (ptr == NULL)
    {
      /* a size the cache has none of: the blocks it holds are of sizes no
       * longer asked for (a phase of the program ended, say training gave
       * way to evaluation), so as much of them as this block goes back
       * first, and the memory held stays near the memory in use */
      if (size >= self->min_cached_size)
        trim_locked (self, size);
      ptr = self->raw_alloc (self->ctx, size);
      if (ptr == NULL && self->stats.cached > 0)
        {
          /* out of memory with blocks cached: give them back and retry */
          dl_mutex_unlock (&self->lock);
          dl_allocator_empty_cache (self);
          dl_mutex_lock (&self->lock);
          ptr = self->raw_alloc (self->ctx, size);
        }
      if (ptr == NULL)
        {
          dl_mutex_unlock (&self->lock);
          return NULL;
        }
      self->stats.reserved += size;
      self->stats.peak_reserved = MAX (self->stats.peak_reserved, self->stats.reserved);
      self->stats.n_misses++;
    }
  self->stats.allocated += size;
  self->stats.peak_allocated = MAX (self->stats.peak_allocated, self->stats.allocated);
  dl_mutex_unlock (&self->lock);
  *block_size = size;
  return ptr;
}

void
dl_allocator_release (DlAllocator *self, gpointer ptr, gsize block_size)
{
  gboolean fits;

  dl_mutex_lock (&self->lock);
  self->stats.allocated -= block_size;
  fits = self->stats.cached + block_size <= self->cache_limit;
  if (fits && block_size >= self->min_cached_size)
    {
      gint64 key = block_size;
      GSList *list = g_hash_table_lookup (self->free_lists, &key);

      /* insert frees the duplicate key when the size is already there */
      g_hash_table_insert (self->free_lists, g_memdup2 (&key, sizeof key),
                           g_slist_prepend (list, ptr));
      self->stats.cached += block_size;
      ptr = NULL;
    }
  else if (fits)
    {
      SmallSlot *slot = small_slot (self, block_size);

      if ((slot->n == 0 || slot->size == block_size) && slot->n < small_capacity (block_size))
        {
          slot->size = block_size;
          slot->blocks[slot->n++] = ptr;
          self->stats.cached += block_size;
          ptr = NULL;
        }
    }
  if (ptr != NULL)
    {
      self->raw_free (self->ctx, ptr, block_size);
      self->stats.reserved -= block_size;
    }
  dl_mutex_unlock (&self->lock);
}

/* Counts memory allocated outside the allocator (small inline storages) in
 * its allocated, peak and reserved figures. */
void
dl_allocator_track (DlAllocator *self, gssize delta)
{
  dl_mutex_lock (&self->lock);
  self->stats.allocated += delta;
  self->stats.reserved += delta;
  if (self->stats.allocated > self->stats.peak_allocated)
    self->stats.peak_allocated = self->stats.allocated;
  if (self->stats.reserved > self->stats.peak_reserved)
    self->stats.peak_reserved = self->stats.reserved;
  dl_mutex_unlock (&self->lock);
}

void
dl_allocator_empty_cache (DlAllocator *self)
{
  GHashTableIter iter;
  gpointer key, value;

  dl_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->free_lists);
  while (g_hash_table_iter_next (&iter, &key, &value))
    release_list_locked (self, *(gint64 *)key, value);
  g_hash_table_remove_all (self->free_lists);
  release_small_locked (self);
  dl_mutex_unlock (&self->lock);
}

void
dl_allocator_get_stats (DlAllocator *self, DlAllocatorStats *stats)
{
  dl_mutex_lock (&self->lock);
  *stats = self->stats;
  dl_mutex_unlock (&self->lock);
}

/* Sets the peaks of allocated and reserved bytes to what they are now
 * (torch.cuda.reset_peak_memory_stats). */
void
dl_allocator_reset_peaks (DlAllocator *self)
{
  dl_mutex_lock (&self->lock);
  self->stats.peak_allocated = self->stats.allocated;
  self->stats.peak_reserved = self->stats.reserved;
  dl_mutex_unlock (&self->lock);
}

void
dl_allocator_free_all (DlAllocator *self)
{
  dl_allocator_empty_cache (self);
  g_hash_table_unref (self->free_lists);
  g_hash_table_unref (self->last_asked);
  g_mutex_clear (&self->lock);
  g_free (self);
}
