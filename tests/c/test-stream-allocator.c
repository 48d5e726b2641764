/* test-stream-allocator.c: the stream allocator's logic over host memory,
 * with events that the tests complete by hand.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-error.h"
#include "dl-stream-allocator-private.h"

#define KiB ((gsize)1024)
#define MiB ((gsize)1024 * 1024)

/* streams are plain tags */
#define STREAM_A GINT_TO_POINTER (1)
#define STREAM_B GINT_TO_POINTER (2)

typedef struct
{
  gpointer stream;
  gboolean done;
} FakeEvent;

/* The host provider: aligned host memory, a byte limit as a full device
 * has, and events that stay pending until a test completes them. */
typedef struct
{
  guint64 limit; /* 0: none */
  guint64 outstanding;
  guint n_allocs;
  guint n_frees;
  GHashTable *segments; /* base -> size */
  GPtrArray *events;    /* FakeEvent, live */
} Host;

static gpointer
host_alloc (gsize size, gpointer user_data)
{
  Host *h = user_data;
  gpointer p;

  if (h->limit && h->outstanding + size > h->limit)
    return NULL;
  p = g_aligned_alloc (1, size, 512);
  h->outstanding += size;
  h->n_allocs++;
  g_hash_table_insert (h->segments, p, GSIZE_TO_POINTER (size));
  return p;
}

static void
host_free (gpointer ptr, gsize size, gpointer user_data)
{
  Host *h = user_data;

  g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (h->segments, ptr)), ==, size);
  g_hash_table_remove (h->segments, ptr);
  h->outstanding -= size;
  h->n_frees++;
  g_aligned_free (ptr);
}

static gpointer
host_event_record (gpointer stream, gpointer user_data)
{
  Host *h = user_data;
  FakeEvent *e = g_new0 (FakeEvent, 1);

  e->stream = stream;
  g_ptr_array_add (h->events, e);
  return e;
}

static gboolean
host_event_query (gpointer event, gpointer user_data)
{
  return ((FakeEvent *)event)->done;
}

static void
host_event_free (gpointer event, gpointer user_data)
{
  Host *h = user_data;

  g_assert_true (g_ptr_array_remove_fast (h->events, event));
  g_free (event);
}

static const DlStreamAllocatorProvider host_provider = {
  host_alloc, host_free, host_event_record, host_event_query, host_event_free,
};

typedef struct
{
  Host host;
  DlStreamAllocator *a;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->host.limit = GPOINTER_TO_SIZE (data);
  f->host.segments = g_hash_table_new (g_direct_hash, g_direct_equal);
  f->host.events = g_ptr_array_new ();
  f->a = dl_stream_allocator_new (&host_provider, &f->host);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  dl_stream_allocator_destroy (f->a);
  g_assert_cmpuint (g_hash_table_size (f->host.segments), ==, 0);
  g_assert_cmpuint (f->host.events->len, ==, 0);
  g_assert_cmpuint (f->host.outstanding, ==, 0);
  g_hash_table_unref (f->host.segments);
  g_ptr_array_unref (f->host.events);
}

/* completes the pending events recorded on @stream */
static void
complete_events (Fixture *f, gpointer stream)
{
  for (guint i = 0; i < f->host.events->len; i++)
    {
      FakeEvent *e = g_ptr_array_index (f->host.events, i);

      if (e->stream == stream)
        e->done = TRUE;
    }
}

static DlStreamAllocatorStats
stats (Fixture *f)
{
  DlStreamAllocatorStats s;

  dl_stream_allocator_get_stats (f->a, &s);
  return s;
}

static void
check (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  dl_stream_allocator_check (f->a, &error);
  g_assert_no_error (error);
}

/* frees the blocks, then checks the invariants */
static void
free_blocks (Fixture *f, gpointer first, ...)
{
  va_list ap;

  va_start (ap, first);
  for (gpointer p = first; p; p = va_arg (ap, gpointer))
    dl_stream_allocator_free (f->a, p);
  va_end (ap);
  check (f);
}

static gpointer
alloc (Fixture *f, gsize size, gpointer stream)
{
  g_autoptr (GError) error = NULL;
  gpointer p = dl_stream_allocator_malloc (f->a, size, stream, &error);

  g_assert_no_error (error);
  g_assert_nonnull (p);
  /* the memory is the caller's to write */
  memset (p, 0xab, size);
  return p;
}

static void
test_rounding (Fixture *f, gconstpointer data)
{
  static const gsize cases[][2] = {
    { 0, 512 }, { 1, 512 }, { 512, 512 }, { 513, 1024 }, { 1000, 1024 }, { 4096, 4096 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gpointer p;

      g_assert_cmpuint (dl_stream_allocator_round_size (cases[i][0]), ==, cases[i][1]);
      p = alloc (f, cases[i][0], STREAM_A);
      g_assert_cmpuint (dl_stream_allocator_block_size (f->a, p), ==, cases[i][1]);
      g_assert_cmpuint ((guintptr)p % 512, ==, 0);
      dl_stream_allocator_free (f->a, p);
      check (f);
    }
  g_assert_cmpuint (dl_stream_allocator_round_size (G_MAXSIZE - 1), ==, 0);
}

static void
test_too_large (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  g_assert_null (dl_stream_allocator_malloc (f->a, G_MAXSIZE - 10, STREAM_A, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "too large"));
  check (f);
}

static void
test_pools (Fixture *f, gconstpointer data)
{
  gpointer small, large, huge;
  DlStreamAllocatorStats s;

  /* up to 1 MiB: a 2 MiB segment */
  small = alloc (f, 1 * MiB, STREAM_A);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 2 * MiB);
  g_assert_cmpuint (s.n_segments, ==, 1);
  g_assert_cmpuint (s.allocated_bytes, ==, 1 * MiB);

  /* above 1 MiB: a 20 MiB segment of the large pool, never the small one */
  large = alloc (f, 1 * MiB + 1, STREAM_A);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 22 * MiB);
  g_assert_cmpuint (s.n_segments, ==, 2);
  g_assert_cmpuint (dl_stream_allocator_block_size (f->a, large), ==, 1 * MiB + 512);

  /* 10 MiB and more: a segment of its own, rounded to 2 MiB, not split */
  huge = alloc (f, 11 * MiB + 5, STREAM_A);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 34 * MiB);
  g_assert_cmpuint (s.n_segments, ==, 3);
  g_assert_cmpuint (dl_stream_allocator_block_size (f->a, huge), ==, 12 * MiB);
  g_assert_cmpuint (s.allocated_bytes, ==, 1 * MiB + (1 * MiB + 512) + 12 * MiB);
  /* the rests: 1 MiB of the small segment, the large one's rest */
  g_assert_cmpuint (s.n_free_blocks, ==, 2);
  g_assert_cmpuint (s.free_bytes, ==, 1 * MiB + (19 * MiB - 512));
  g_assert_cmpuint (s.largest_free_block, ==, 19 * MiB - 512);
  g_assert_cmpfloat_with_epsilon (s.fragmentation, 1.0 - (19.0 * MiB - 512) / s.free_bytes, 1e-12);
  check (f);

  free_blocks (f, small, large, huge, NULL);
  s = stats (f);
  g_assert_cmpuint (s.allocated_bytes, ==, 0);
  g_assert_cmpuint (s.n_free_blocks, ==, 3);
  g_assert_cmpuint (s.free_bytes, ==, 34 * MiB);
  g_assert_cmpuint (s.largest_free_block, ==, 20 * MiB);
}

static void
test_split_merge (Fixture *f, gconstpointer data)
{
  gpointer p[3];
  DlStreamAllocatorStats s;

  for (guint i = 0; i < 3; i++)
    p[i] = alloc (f, 100 * KiB, STREAM_A);
  /* one segment, cut in order */
  g_assert_true ((guint8 *)p[1] == (guint8 *)p[0] + 100 * KiB);
  g_assert_true ((guint8 *)p[2] == (guint8 *)p[1] + 100 * KiB);
  s = stats (f);
  g_assert_cmpuint (s.n_segments, ==, 1);
  g_assert_cmpuint (s.n_splits, ==, 3);
  g_assert_cmpuint (s.n_free_blocks, ==, 1);
  g_assert_cmpuint (s.free_bytes, ==, 2 * MiB - 300 * KiB);

  /* the middle one has allocated neighbours: no merge */
  dl_stream_allocator_free (f->a, p[1]);
  check (f);
  s = stats (f);
  g_assert_cmpuint (s.n_free_blocks, ==, 2);
  g_assert_cmpuint (s.n_merges, ==, 0);
  g_assert_cmpfloat (s.fragmentation, >, 0.0);

  /* the first merges with the middle */
  dl_stream_allocator_free (f->a, p[0]);
  check (f);
  s = stats (f);
  g_assert_cmpuint (s.n_free_blocks, ==, 2);
  g_assert_cmpuint (s.n_merges, ==, 1);
  g_assert_cmpuint (s.largest_free_block, ==, 2 * MiB - 300 * KiB);

  /* the last joins both sides: one block, the whole segment */
  dl_stream_allocator_free (f->a, p[2]);
  check (f);
  s = stats (f);
  g_assert_cmpuint (s.n_free_blocks, ==, 1);
  g_assert_cmpuint (s.n_merges, ==, 3);
  g_assert_cmpuint (s.largest_free_block, ==, 2 * MiB);
  g_assert_cmpuint (s.free_bytes, ==, 2 * MiB);
  g_assert_cmpfloat (s.fragmentation, ==, 0.0);
  g_assert_cmpuint (s.n_segments, ==, 1);
  g_assert_cmpuint (s.allocated_bytes, ==, 0);
  g_assert_cmpuint (s.n_allocs, ==, 3);
  g_assert_cmpuint (s.n_frees, ==, 3);
}

static void
test_large_split (Fixture *f, gconstpointer data)
{
  gpointer p, q, r;
  DlStreamAllocatorStats s;

  /* a rest of more than 1 MiB splits in the large pool ... */
  p = alloc (f, 9 * MiB, STREAM_A);
  q = alloc (f, 9 * MiB, STREAM_A);
  g_assert_true ((guint8 *)q == (guint8 *)p + 9 * MiB);
  s = stats (f);
  g_assert_cmpuint (s.n_splits, ==, 2);
  g_assert_cmpuint (dl_stream_allocator_block_size (f->a, q), ==, 9 * MiB);
  /* ... one of 1 MiB or less does not */
  r = alloc (f, 1 * MiB + 512, STREAM_A);
  g_assert_true ((guint8 *)r == (guint8 *)q + 9 * MiB);
  g_assert_cmpuint (dl_stream_allocator_block_size (f->a, r), ==, 2 * MiB);
  s = stats (f);
  g_assert_cmpuint (s.n_splits, ==, 2);
  g_assert_cmpuint (s.n_segments, ==, 1);
  g_assert_cmpuint (s.n_free_blocks, ==, 0);
  g_assert_cmpuint (s.allocated_bytes, ==, 20 * MiB);
  check (f);
  free_blocks (f, q, r, p, NULL);
  s = stats (f);
  g_assert_cmpuint (s.n_free_blocks, ==, 1);
  g_assert_cmpuint (s.largest_free_block, ==, 20 * MiB);
}

static void
test_oversize (Fixture *f, gconstpointer data)
{
  gpointer p, q, r;
  DlStreamAllocatorStats s;

  p = alloc (f, 12 * MiB, STREAM_A);
  dl_stream_allocator_free (f->a, p);
  /* a large request below the oversize one does not take the block */
  q = alloc (f, 2 * MiB, STREAM_A);
  g_assert_true (q != p);
  s = stats (f);
  g_assert_cmpuint (s.n_segments, ==, 2);
  g_assert_cmpuint (s.n_splits, ==, 1);
  /* an oversize request takes it whole, without splitting it, and not the
   * 18 MiB rest of q's segment */
  r = alloc (f, 11 * MiB, STREAM_A);
  g_assert_true (r == p);
  g_assert_cmpuint (dl_stream_allocator_block_size (f->a, r), ==, 12 * MiB);
  s = stats (f);
  g_assert_cmpuint (s.n_splits, ==, 1);
  g_assert_cmpuint (s.n_segments, ==, 2);
  check (f);
  free_blocks (f, q, r, NULL);
}

static void
test_same_stream_reuse (Fixture *f, gconstpointer data)
{
  gpointer p, q, r;
  DlStreamAllocatorStats s;

  p = alloc (f, 4 * KiB, STREAM_A);
  dl_stream_allocator_free (f->a, p);
  /* its stream reuses it at once, with its event still pending */
  g_assert_cmpuint (f->host.events->len, ==, 1);
  q = alloc (f, 4 * KiB, STREAM_A);
  g_assert_true (q == p);
  s = stats (f);
  g_assert_cmpuint (s.n_segments, ==, 1);
  g_assert_cmpuint (s.n_segment_allocs, ==, 1);
  /* the free block p was merged into keeps A's event: B may not use it */
  g_assert_cmpuint (f->host.events->len, ==, 1);
  r = alloc (f, 4 * KiB, STREAM_B);
  s = stats (f);
  g_assert_cmpuint (s.n_segments, ==, 2);
  free_blocks (f, q, r, NULL);
}

static void
test_cross_stream (Fixture *f, gconstpointer data)
{
  gpointer p, q, r, r2;
  DlStreamAllocatorStats s;

  /* the whole small segment on A */
  p = alloc (f, 1 * MiB, STREAM_A);
  q = alloc (f, 1 * MiB, STREAM_A);
  free_blocks (f, p, q, NULL);
  s = stats (f);
  g_assert_cmpuint (s.n_free_blocks, ==, 1);
  /* B may not use it while A's work may still touch it */
  r = alloc (f, 1 * MiB, STREAM_B);
  r2 = alloc (f, 1 * MiB, STREAM_B);
  g_assert_true (r != p && r != q && r2 != p && r2 != q);
  s = stats (f);
  g_assert_cmpuint (s.n_segments, ==, 2);
  check (f);

  /* A's work done: now it may */
  complete_events (f, STREAM_A);
  q = alloc (f, 1 * MiB, STREAM_B);
  g_assert_true (q == p);
  s = stats (f);
  g_assert_cmpuint (s.n_segments, ==, 2);
  check (f);
  free_blocks (f, q, r, r2, NULL);
  complete_events (f, STREAM_B);
  dl_stream_allocator_empty_cache (f->a);
  s = stats (f);
  g_assert_cmpuint (s.n_segments, ==, 0);
  check (f);
}

static void
test_record_stream (Fixture *f, gconstpointer data)
{
  gpointer p, qa, qb, qb2, qa2;

  p = alloc (f, 8 * KiB, STREAM_A);
  /* a copy on B reads it */
  dl_stream_allocator_record_stream (f->a, p, STREAM_B);
  dl_stream_allocator_record_stream (f->a, p, STREAM_B);
  dl_stream_allocator_record_stream (f->a, p, STREAM_A); /* its own: nothing to do */
  dl_stream_allocator_free (f->a, p);
  g_assert_cmpuint (f->host.events->len, ==, 2);
  check (f);

  /* neither stream reuses it while the other's work may touch it */
  qa = alloc (f, 8 * KiB, STREAM_A);
  qb = alloc (f, 8 * KiB, STREAM_B);
  g_assert_true (qa != p && qb != p);

  /* B's work done: A may, B not yet, as A's event is pending */
  complete_events (f, STREAM_B);
  qb2 = alloc (f, 8 * KiB, STREAM_B);
  g_assert_true (qb2 != p);
  qa2 = alloc (f, 8 * KiB, STREAM_A);
  g_assert_true (qa2 == p);
  check (f);
  free_blocks (f, qa, qb, qb2, qa2, NULL);
}

static void
test_empty_cache (Fixture *f, gconstpointer data)
{
  gpointer keep, p, big;
  DlStreamAllocatorStats s;

  keep = alloc (f, 4 * KiB, STREAM_A);
  p = alloc (f, 4 * KiB, STREAM_A);
  big = alloc (f, 12 * MiB, STREAM_A);
  free_blocks (f, p, big, NULL);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 14 * MiB);

  /* pending events keep the oversize segment */
  dl_stream_allocator_empty_cache (f->a);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 14 * MiB);
  check (f);

  /* done: it goes; the small segment, partly used, stays */
  complete_events (f, STREAM_A);
  dl_stream_allocator_empty_cache (f->a);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 2 * MiB);
  g_assert_cmpuint (s.n_segments, ==, 1);
  g_assert_cmpuint (s.n_segment_frees, ==, 1);
  g_assert_cmpuint (f->host.outstanding, ==, 2 * MiB);
  g_assert_cmpuint (s.allocated_bytes, ==, 4 * KiB);
  check (f);

  dl_stream_allocator_free (f->a, keep);
  complete_events (f, STREAM_A);
  dl_stream_allocator_empty_cache (f->a);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 0);
  g_assert_cmpuint (s.n_free_blocks, ==, 0);
  g_assert_cmpuint (f->host.outstanding, ==, 0);
  check (f);
}

static void
test_max_allocated (Fixture *f, gconstpointer data)
{
  gpointer p, q;
  DlStreamAllocatorStats s;

  p = alloc (f, 3 * MiB, STREAM_A);
  q = alloc (f, 1 * MiB, STREAM_A);
  dl_stream_allocator_free (f->a, p);
  s = stats (f);
  g_assert_cmpuint (s.allocated_bytes, ==, 1 * MiB);
  g_assert_cmpuint (s.max_allocated_bytes, ==, 4 * MiB);
  dl_stream_allocator_reset_peaks (f->a);
  s = stats (f);
  g_assert_cmpuint (s.max_allocated_bytes, ==, 1 * MiB);
  p = alloc (f, 512, STREAM_A);
  s = stats (f);
  g_assert_cmpuint (s.max_allocated_bytes, ==, 1 * MiB + 512);
  free_blocks (f, p, q, NULL);
  s = stats (f);
  g_assert_cmpuint (s.max_allocated_bytes, ==, 1 * MiB + 512);
  check (f);
}

/* The figures torch.cuda.memory_stats reports: peaks of reserved memory,
 * live blocks, and the free pieces of split segments (fragmentation). */
static void
test_peaks_and_fragmentation (Fixture *f, gconstpointer data)
{
  gpointer p, q, r;
  DlStreamAllocatorStats s;
  DlMemoryStats m;

  /* 3 MiB splits a 20 MiB large segment, 1 MiB a 2 MiB small one */
  p = alloc (f, 3 * MiB, STREAM_A);
  q = alloc (f, 1 * MiB, STREAM_A);
  s = stats (f);
  g_assert_cmpuint (s.n_segments, ==, 2);
  g_assert_cmpuint (s.n_allocated_blocks, ==, 2);
  g_assert_cmpuint (s.reserved_bytes, ==, 22 * MiB);
  g_assert_cmpuint (s.max_reserved_bytes, ==, 22 * MiB);
  /* the rest of each segment is a free piece of it */
  g_assert_cmpuint (s.n_inactive_split_blocks, ==, 2);
  g_assert_cmpuint (s.inactive_split_bytes, ==, 17 * MiB + 1 * MiB);
  g_assert_cmpuint (s.n_free_blocks, ==, 2);
  g_assert_cmpfloat_with_epsilon (s.fragmentation, 1.0 - 17.0 / 18.0, 1e-12);
  /* as a device reports them */
  dl_stream_allocator_get_memory_stats (f->a, &m);
  g_assert_cmpuint (m.allocated_bytes, ==, 4 * MiB);
  g_assert_cmpuint (m.max_allocated_bytes, ==, 4 * MiB);
  g_assert_cmpuint (m.reserved_bytes, ==, 22 * MiB);
  g_assert_cmpuint (m.max_reserved_bytes, ==, 22 * MiB);
  g_assert_cmpuint (m.cached_bytes, ==, 18 * MiB);
  g_assert_cmpuint (m.n_allocations, ==, 2);
  g_assert_cmpuint (m.n_segments, ==, 2);
  g_assert_cmpuint (m.n_free_blocks, ==, 2);
  g_assert_cmpuint (m.largest_free_block, ==, 17 * MiB);
  g_assert_cmpuint (m.inactive_split_bytes, ==, 18 * MiB);
  g_assert_cmpuint (m.n_inactive_split, ==, 2);
  g_assert_cmpuint (m.n_alloc_retries, ==, 0);

  /* freeing p merges the large segment back into one free block: whole,
   * so no longer a split piece */
  dl_stream_allocator_free (f->a, p);
  complete_events (f, STREAM_A);
  s = stats (f);
  g_assert_cmpuint (s.n_allocated_blocks, ==, 1);
  g_assert_cmpuint (s.n_inactive_split_blocks, ==, 1);
  g_assert_cmpuint (s.inactive_split_bytes, ==, 1 * MiB);
  g_assert_cmpuint (s.free_bytes, ==, 21 * MiB);

  /* an oversize block is a segment of its own, never split */
  r = alloc (f, 12 * MiB, STREAM_A);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 34 * MiB);
  g_assert_cmpuint (s.max_reserved_bytes, ==, 34 * MiB);
  g_assert_cmpuint (s.n_inactive_split_blocks, ==, 1);
  dl_stream_allocator_free (f->a, r);
  complete_events (f, STREAM_A);

  /* empty_cache gives the wholly free segments back; the peak stays until
   * reset, which brings both peaks down to what is held now */
  dl_stream_allocator_empty_cache (f->a);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 2 * MiB);
  g_assert_cmpuint (s.n_segments, ==, 1);
  g_assert_cmpuint (s.max_reserved_bytes, ==, 34 * MiB);
  g_assert_cmpuint (s.max_allocated_bytes, ==, 13 * MiB);
  dl_stream_allocator_reset_peaks (f->a);
  s = stats (f);
  g_assert_cmpuint (s.max_reserved_bytes, ==, 2 * MiB);
  g_assert_cmpuint (s.max_allocated_bytes, ==, 1 * MiB);
  check (f);
  free_blocks (f, q, NULL);
  s = stats (f);
  g_assert_cmpuint (s.n_allocated_blocks, ==, 0);
  g_assert_cmpuint (s.n_inactive_split_blocks, ==, 0);
  g_assert_cmpuint (s.free_bytes, ==, 2 * MiB);
}

/* the fixture's provider holds 24 MiB */
static void
test_oom (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  gpointer p, q;
  DlStreamAllocatorStats s;

  /* two small segments cached, free and done */
  p = alloc (f, 1 * MiB, STREAM_A);
  q = alloc (f, 1 * MiB, STREAM_A);
  free_blocks (f, p, q, NULL);
  p = alloc (f, 1 * MiB, STREAM_B);
  dl_stream_allocator_free (f->a, p);
  complete_events (f, STREAM_A);
  complete_events (f, STREAM_B);
  s = stats (f);
  g_assert_cmpuint (s.reserved_bytes, ==, 4 * MiB);

  /* 22 MiB do not fit beside them: the cache is emptied and the retry works */
  p = alloc (f, 21 * MiB, STREAM_A);
  s = stats (f);
  g_assert_cmpuint (s.n_oom_retries, ==, 1);
  g_assert_cmpuint (s.reserved_bytes, ==, 22 * MiB);
  g_assert_cmpuint (s.n_segments, ==, 1);
  check (f);

  /* a true OOM: nothing to give back */
  q = dl_stream_allocator_malloc (f->a, 4 * MiB, STREAM_A, &error);
  g_assert_null (q);
  g_assert_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "4194304 bytes"));
  g_assert_nonnull (strstr (error->message, "23068672 bytes reserved"));
  g_assert_nonnull (strstr (error->message, "23068672 allocated"));
  s = stats (f);
  g_assert_cmpuint (s.n_oom_retries, ==, 1);
  check (f);
  dl_stream_allocator_free (f->a, p);
  check (f);
}

/* Random allocations and frees on two streams, events completed at
 * random, checking every invariant after each step. */
static void
test_random (Fixture *f, gconstpointer data)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20260515);
  g_autoptr (GPtrArray) live = g_ptr_array_new ();
  guint64 expect_allocated = 0;

  for (guint step = 0; step < 3000; step++)
    {
      guint what = g_rand_int_range (rand, 0, 100);

      if (what < 50 || live->len == 0)
        {
          static const gsize scale[] = { 600, 64 * KiB, 900 * KiB, 4 * MiB, 12 * MiB };
          gsize size = g_rand_int_range (rand, 1, scale[g_rand_int_range (rand, 0, 5)]);
          gpointer stream = g_rand_boolean (rand) ? STREAM_A : STREAM_B;
          g_autoptr (GError) error = NULL;
          gpointer p = dl_stream_allocator_malloc (f->a, size, stream, &error);

          if (p)
            {
              g_assert_no_error (error);
              ((guint8 *)p)[0] = ((guint8 *)p)[size - 1] = 1;
              g_ptr_array_add (live, p);
              expect_allocated += dl_stream_allocator_block_size (f->a, p);
            }
          else
            g_assert_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY);
        }
      else if (what < 85)
        {
          guint i = g_rand_int_range (rand, 0, live->len);
          gpointer p = g_ptr_array_index (live, i);

          expect_allocated -= dl_stream_allocator_block_size (f->a, p);
          if (g_rand_int_range (rand, 0, 4) == 0)
            dl_stream_allocator_record_stream (f->a, p,
                                               g_rand_boolean (rand) ? STREAM_A : STREAM_B);
          dl_stream_allocator_free (f->a, p);
          g_ptr_array_remove_index_fast (live, i);
        }
      else if (what < 97)
        complete_events (f, g_rand_boolean (rand) ? STREAM_A : STREAM_B);
      else
        dl_stream_allocator_empty_cache (f->a);

      check (f);
      g_assert_cmpuint (stats (f).allocated_bytes, ==, expect_allocated);
      g_assert_cmpuint (f->host.outstanding, ==, stats (f).reserved_bytes);
    }
  for (guint i = 0; i < live->len; i++)
    dl_stream_allocator_free (f->a, g_ptr_array_index (live, i));
  complete_events (f, STREAM_A);
  complete_events (f, STREAM_B);
  dl_stream_allocator_empty_cache (f->a);
  check (f);
  g_assert_cmpuint (stats (f).reserved_bytes, ==, 0);
}

/* Threads allocating and freeing at once; the lock keeps the invariants. */
static gpointer
thread_run (gpointer data)
{
  Fixture *f = data;

  for (guint i = 0; i < 500; i++)
    {
      gpointer p = alloc (f, (i % 7 + 1) * 3000, STREAM_A);

      dl_stream_allocator_free (f->a, p);
    }
  return NULL;
}

static void
test_threads (Fixture *f, gconstpointer data)
{
  GThread *threads[4];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("alloc", thread_run, f);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  check (f);
  g_assert_cmpuint (stats (f).n_allocs, ==, 2000);
  g_assert_cmpuint (stats (f).allocated_bytes, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn, limit)                                                                       \
  g_test_add ("/stream-allocator/" path, Fixture, GSIZE_TO_POINTER (limit), fixture_setup, fn,     \
              fixture_teardown)
  ADD ("rounding", test_rounding, 0);
  ADD ("too-large", test_too_large, 0);
  ADD ("pools", test_pools, 0);
  ADD ("split-merge", test_split_merge, 0);
  ADD ("large-split", test_large_split, 0);
  ADD ("oversize", test_oversize, 0);
  ADD ("same-stream-reuse", test_same_stream_reuse, 0);
  ADD ("cross-stream", test_cross_stream, 0);
  ADD ("record-stream", test_record_stream, 0);
  ADD ("empty-cache", test_empty_cache, 0);
  ADD ("max-allocated", test_max_allocated, 0);
  ADD ("peaks-and-fragmentation", test_peaks_and_fragmentation, 0);
  ADD ("oom", test_oom, 24 * MiB);
  ADD ("random", test_random, 64 * MiB);
  ADD ("threads", test_threads, 0);
#undef ADD

  return g_test_run ();
}
