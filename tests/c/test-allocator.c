/* test-allocator.c: the caching allocator's logic, over a fake raw
 * allocator that counts what it is asked for and can be told to fail.
 *
 * dl-allocator.c is compiled into this test (its symbols are hidden in the
 * library).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-allocator-private.h"

#define KiB ((gsize)1024)
#define MIN_CACHED (1 * KiB)

/* The fake raw allocator: plain malloc, with counters and an optional
 * capacity beyond which it returns NULL, as a full device would. */
static struct
{
  guint n_allocs;
  guint n_frees;
  guint64 outstanding; /* bytes handed out by raw_alloc and not freed */
  guint64 capacity;    /* 0: unlimited */
  GHashTable *live;    /* pointer -> size, to check raw_free's size */
} raw;

static gpointer
fake_alloc (DlBackendContext *ctx, gsize nbytes)
{
  gpointer p;

  if (raw.capacity && raw.outstanding + nbytes > raw.capacity)
    return NULL;
  p = g_malloc (nbytes);
  raw.n_allocs++;
  raw.outstanding += nbytes;
  g_hash_table_insert (raw.live, p, GSIZE_TO_POINTER (nbytes));
  return p;
}

static void
fake_free (DlBackendContext *ctx, gpointer ptr, gsize nbytes)
{
  g_assert_true (g_hash_table_contains (raw.live, ptr));
  /* the allocator frees a block with the size it allocated it with */
  g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (raw.live, ptr)), ==, nbytes);
  g_hash_table_remove (raw.live, ptr);
  raw.n_frees++;
  raw.outstanding -= nbytes;
  g_free (ptr);
}

static DlAllocator *
new_allocator (guint64 cache_limit)
{
  memset (&raw, 0, sizeof raw);
  raw.live = g_hash_table_new (NULL, NULL);
  return dl_allocator_new (NULL, fake_alloc, fake_free, MIN_CACHED, cache_limit);
}

/* Frees the allocator and checks that nothing of the raw memory is left. */
static void
free_allocator (DlAllocator *a)
{
  dl_allocator_free_all (a);
  g_assert_cmpuint (raw.outstanding, ==, 0);
  g_assert_cmpuint (raw.n_allocs, ==, raw.n_frees);
  g_assert_cmpuint (g_hash_table_size (raw.live), ==, 0);
  g_hash_table_unref (raw.live);
}

static DlAllocatorStats
stats (DlAllocator *a)
{
  DlAllocatorStats s;

  dl_allocator_get_stats (a, &s);
  return s;
}

static void
test_round_size (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  /* below the cached minimum: multiples of 64 bytes */
  static const gsize small[][2] = {
    { 1, 64 }, { 63, 64 }, { 64, 64 }, { 65, 128 }, { 1000, 1024 },
  };
  /* from the minimum on: four classes per power of two, p + k * p/4 */
  static const gsize large[][2] = {
    { 1024, 1024 }, { 1025, 1280 },       { 1280, 1280 },       { 1281, 1536 },
    { 2047, 2048 }, { 2048, 2048 },       { 2049, 2560 },       { 3000, 3072 },
    { 4097, 5120 }, { 1000000, 1048576 }, { 1048577, 1310720 },
  };
  g_autoptr (GString) wrong = g_string_new (NULL);
  guint n_not_fixed = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (small); i++)
    g_assert_cmpuint (dl_allocator_round_size (a, small[i][0]), ==, small[i][1]);
  for (gsize i = 0; i < G_N_ELEMENTS (large); i++)
    {
      gsize r = dl_allocator_round_size (a, large[i][0]);

      if (r != large[i][1])
        g_string_append_printf (wrong,
                                " round_size (%" G_GSIZE_FORMAT ") = %" G_GSIZE_FORMAT
                                ", expected %" G_GSIZE_FORMAT ";",
                                large[i][0], r, large[i][1]);
    }

  /* the general properties, on every size up to 64 KiB and some beyond:
   * big enough, aligned, at most 25% waste, monotonic, and a size class
   * rounds to itself (a released block serves a request of its own size) */
  for (gsize n = 1, prev = 0; n <= (1u << 22); n += n < 65536 ? 1 : 4093)
    {
      gsize r = dl_allocator_round_size (a, n);
      gsize rr = dl_allocator_round_size (a, r);

      g_assert_cmpuint (r, >=, n);
      g_assert_cmpuint (r % 64, ==, 0);
      g_assert_cmpuint (r, >=, prev);
      if (n >= MIN_CACHED)
        g_assert_cmpuint (r - n, <=, n / 4 + 64);
      if (rr != r && n_not_fixed++ == 0)
        g_string_append_printf (wrong,
                                " not a fixed point: round_size (%" G_GSIZE_FORMAT
                                ") = %" G_GSIZE_FORMAT " but round_size (%" G_GSIZE_FORMAT
                                ") = %" G_GSIZE_FORMAT ";",
                                n, r, r, rr);
      prev = r;
    }
  if (wrong->len)
    g_test_fail_printf ("%s (%u sizes round to a size that is not its own class)", wrong->str,
                        n_not_fixed);
  free_allocator (a);
}

static void
test_reuse (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gsize bs = 0, bs2 = 0, bs3 = 0;
  gpointer p = dl_allocator_alloc (a, 4000, &bs);
  gpointer q, r;

  g_assert_nonnull (p);
  g_assert_cmpuint (bs, ==, 4096);
  g_assert_cmpuint (raw.n_allocs, ==, 1);
  memset (p, 0xab, 4000); /* the block is really that big (valgrind checks) */
  dl_allocator_release (a, p, bs);
  g_assert_cmpuint (raw.n_frees, ==, 0);

  /* a request of the same class gets the same block back, no raw call */
  q = dl_allocator_alloc (a, 3900, &bs2);
  g_assert_true (q == p);
  g_assert_cmpuint (bs2, ==, 4096);
  g_assert_cmpuint (raw.n_allocs, ==, 1);
  /* another class does not */
  r = dl_allocator_alloc (a, 8192, &bs3);
  g_assert_true (r != p);
  g_assert_cmpuint (bs3, ==, 8192);
  g_assert_cmpuint (raw.n_allocs, ==, 2);
  g_assert_cmpuint (stats (a).n_hits, ==, 1);
  g_assert_cmpuint (stats (a).n_misses, ==, 2);
  dl_allocator_release (a, q, bs2);
  dl_allocator_release (a, r, bs3);
  free_allocator (a);
}

static void
test_reuse_many (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gpointer p[4], q[4];
  gsize bs[4];

  for (gint i = 0; i < 4; i++)
    p[i] = dl_allocator_alloc (a, 2048, &bs[i]);
  for (gint i = 0; i < 4; i++)
    dl_allocator_release (a, p[i], bs[i]);
  g_assert_cmpuint (stats (a).cached, ==, 4 * 2048);
  /* four hits on one free list: four distinct blocks, all from the cache */
  for (gint i = 0; i < 4; i++)
    {
      q[i] = dl_allocator_alloc (a, 2048, &bs[i]);
      for (gint j = 0; j < i; j++)
        g_assert_true (q[i] != q[j]);
      g_assert_true (q[i] == p[0] || q[i] == p[1] || q[i] == p[2] || q[i] == p[3]);
    }
  g_assert_cmpuint (raw.n_allocs, ==, 4);
  g_assert_cmpuint (stats (a).cached, ==, 0);
  g_assert_cmpuint (stats (a).n_hits, ==, 4);
  for (gint i = 0; i < 4; i++)
    dl_allocator_release (a, q[i], bs[i]);
  free_allocator (a);
}

static void
test_stats (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gsize b1, b2, b3;
  gpointer p1 = dl_allocator_alloc (a, 4096, &b1);
  gpointer p2 = dl_allocator_alloc (a, 8192, &b2);
  gpointer p3;
  DlAllocatorStats s = stats (a);

  g_assert_cmpuint (s.allocated, ==, 4096 + 8192);
  g_assert_cmpuint (s.reserved, ==, 4096 + 8192);
  g_assert_cmpuint (s.peak_allocated, ==, 4096 + 8192);
  g_assert_cmpuint (s.cached, ==, 0);

  dl_allocator_release (a, p2, b2);
  s = stats (a);
  g_assert_cmpuint (s.allocated, ==, 4096);
  g_assert_cmpuint (s.cached, ==, 8192);
  g_assert_cmpuint (s.reserved, ==, 4096 + 8192);
  g_assert_cmpuint (s.peak_allocated, ==, 4096 + 8192);

  /* a miss gives the cached 8192-byte block back first: the cache holds
   * more than is in use */
  p3 = dl_allocator_alloc (a, 16384, &b3);
  s = stats (a);
  g_assert_cmpuint (s.allocated, ==, 4096 + 16384);
  g_assert_cmpuint (s.cached, ==, 0);
  g_assert_cmpuint (s.reserved, ==, 4096 + 16384);
  g_assert_cmpuint (s.peak_allocated, ==, 4096 + 16384);
  g_assert_cmpuint (s.reserved, ==, s.allocated + s.cached);
  g_assert_cmpuint (raw.outstanding, ==, s.reserved);

  dl_allocator_release (a, p1, b1);
  dl_allocator_release (a, p3, b3);
  s = stats (a);
  g_assert_cmpuint (s.allocated, ==, 0);
  g_assert_cmpuint (s.cached, ==, 4096 + 16384);
  g_assert_cmpuint (s.peak_allocated, ==, 4096 + 16384);
  free_allocator (a);
}

/* a miss releases cached blocks of other sizes, at least as many bytes as
 * it needs; hits keep the cache */
static void
test_trim_on_miss (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gsize b[4], bn;
  gpointer p[4], q;
  DlAllocatorStats s;

  for (gint i = 0; i < 4; i++)
    p[i] = dl_allocator_alloc (a, 4096 << i, &b[i]);
  for (gint i = 0; i < 4; i++)
    dl_allocator_release (a, p[i], b[i]);
  s = stats (a);
  g_assert_cmpuint (s.cached, ==, 4096 * 15);
  /* a hit: nothing released */
  q = dl_allocator_alloc (a, 8192, &bn);
  s = stats (a);
  g_assert_cmpuint (s.cached, ==, 4096 * 13);
  dl_allocator_release (a, q, bn);
  /* a miss of 3 * 4096: some whole free lists, of at least that much, go */
  q = dl_allocator_alloc (a, 3 * 4096, &bn);
  s = stats (a);
  g_assert_cmpuint (s.cached, <=, 4096 * 12);
  g_assert_cmpuint (s.reserved, ==, s.allocated + s.cached);
  g_assert_cmpuint (raw.outstanding, ==, s.reserved);
  dl_allocator_release (a, q, bn);
  free_allocator (a);
}

/* While more is in use than cached, a miss gives back only the sizes no
 * longer asked for */
static void
test_trim_old_sizes_only (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gsize bl, bo, bn, bq;
  gpointer live = dl_allocator_alloc (a, 1024 * KiB, &bl);
  gpointer old = dl_allocator_alloc (a, 16 * KiB, &bo);
  gpointer q, n;

  dl_allocator_release (a, old, bo);
  /* the program moves on to another size (a miss, then hits) */
  for (gint i = 0; i < DL_ALLOCATOR_TRIM_AGE; i++)
    {
      q = dl_allocator_alloc (a, 32 * KiB, &bq);
      dl_allocator_release (a, q, bq);
    }
  g_assert_cmpuint (stats (a).cached, ==, 48 * KiB);
  /* a miss: the 16 KiB block goes, the 32 KiB one in use stays */
  n = dl_allocator_alloc (a, 8 * KiB, &bn);
  g_assert_cmpuint (stats (a).cached, ==, 32 * KiB);
  q = dl_allocator_alloc (a, 32 * KiB, &bq);
  g_assert_cmpuint (stats (a).cached, ==, 0);
  dl_allocator_release (a, q, bq);
  dl_allocator_release (a, n, bn);
  dl_allocator_release (a, live, bl);
  free_allocator (a);
}

/* Two sizes each needed once more than the cache holds, in turn, as the
 * weight gradients of a training step that accumulates into existing
 * grads: after the first round every block comes from the cache (a miss
 * used to give back the other size's block, so both missed every round) */
static void
test_trim_keeps_sizes_in_use (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gsize bg1, bg2, b1, b2;
  gpointer grad1 = dl_allocator_alloc (a, 200 * KiB, &bg1);
  gpointer grad2 = dl_allocator_alloc (a, 64 * KiB, &bg2);
  guint64 misses = 0;

  for (gint round = 0; round < 50; round++)
    {
      gpointer g2 = dl_allocator_alloc (a, 64 * KiB, &b2);
      gpointer g1;

      dl_allocator_release (a, g2, b2);
      g1 = dl_allocator_alloc (a, 200 * KiB, &b1);
      dl_allocator_release (a, g1, b1);
      if (round == 0)
        misses = stats (a).n_misses;
    }
  g_assert_cmpuint (stats (a).n_misses, ==, misses);
  g_assert_cmpuint (raw.n_allocs, ==, 4);
  dl_allocator_release (a, grad1, bg1);
  dl_allocator_release (a, grad2, bg2);
  free_allocator (a);
}

static void
test_small_cached (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gsize bs, bs2;
  gpointer p = dl_allocator_alloc (a, 100, &bs), q;

  g_assert_cmpuint (bs, ==, 128);
  dl_allocator_release (a, p, bs);
  /* below the cached minimum: kept in the small table */
  g_assert_cmpuint (raw.n_frees, ==, 0);
  g_assert_cmpuint (stats (a).cached, ==, 128);
  g_assert_cmpuint (stats (a).reserved, ==, 128);
  q = dl_allocator_alloc (a, 120, &bs2);
  g_assert_true (q == p);
  g_assert_cmpuint (bs2, ==, 128);
  g_assert_cmpuint (raw.n_allocs, ==, 1);
  g_assert_cmpuint (stats (a).n_hits, ==, 1);
  g_assert_cmpuint (stats (a).cached, ==, 0);
  dl_allocator_release (a, q, bs2);
  free_allocator (a);
}

/* A slot keeps a few blocks of one size: more go back to the raw
 * allocator */
static void
test_small_capacity (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gpointer p[12];
  gsize bs[12];

  for (gint i = 0; i < 12; i++)
    p[i] = dl_allocator_alloc (a, 64, &bs[i]);
  for (gint i = 0; i < 12; i++)
    dl_allocator_release (a, p[i], bs[i]);
  g_assert_cmpuint (raw.n_frees, ==, 4);
  g_assert_cmpuint (stats (a).cached, ==, 8 * 64);
  g_assert_cmpuint (raw.outstanding, ==, stats (a).reserved);
  free_allocator (a);
}

/* Every small size is either kept (and found again without a raw
 * allocation) or given back, never lost; a small miss leaves the large
 * free lists alone; empty_cache gives the small blocks back too */
static void
test_small_sizes (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gpointer big, p[16];
  gsize big_bs, bs[16], kept = 0;
  guint n = 0, allocs;

  big = dl_allocator_alloc (a, 4 * KiB, &big_bs);
  dl_allocator_release (a, big, big_bs);
  for (gsize size = 64; size < MIN_CACHED; size += 64)
    p[n] = dl_allocator_alloc (a, size, &bs[n]), n++;
  /* the misses above did not trim the 4 KiB block */
  g_assert_cmpuint (stats (a).cached, ==, big_bs);
  for (guint i = 0; i < n; i++)
    dl_allocator_release (a, p[i], bs[i]);
  kept = stats (a).cached - big_bs;
  g_assert_cmpuint (kept, >, 0);
  g_assert_cmpuint (raw.outstanding, ==, stats (a).reserved);

  allocs = raw.n_allocs;
  for (guint i = 0; i < n; i++)
    p[i] = dl_allocator_alloc (a, bs[i], &bs[i]);
  /* each kept size came back from the table, the others from raw */
  g_assert_cmpuint (stats (a).cached, ==, big_bs);
  g_assert_cmpuint (raw.n_allocs - allocs, ==, n - stats (a).n_hits);
  for (guint i = 0; i < n; i++)
    dl_allocator_release (a, p[i], bs[i]);

  dl_allocator_empty_cache (a);
  g_assert_cmpuint (stats (a).cached, ==, 0);
  g_assert_cmpuint (stats (a).reserved, ==, 0);
  g_assert_cmpuint (raw.outstanding, ==, 0);
  free_allocator (a);
}

static void
test_cache_limit (void)
{
  DlAllocator *a = new_allocator (8 * KiB);
  gpointer p[3];
  gsize bs[3];

  for (gint i = 0; i < 3; i++)
    p[i] = dl_allocator_alloc (a, 4 * KiB, &bs[i]);
  for (gint i = 0; i < 3; i++)
    dl_allocator_release (a, p[i], bs[i]);
  /* two fit under the limit, the third went back to the raw allocator */
  g_assert_cmpuint (stats (a).cached, ==, 8 * KiB);
  g_assert_cmpuint (raw.n_frees, ==, 1);
  g_assert_cmpuint (raw.outstanding, ==, 8 * KiB);
  g_assert_cmpuint (stats (a).reserved, ==, 8 * KiB);

  /* a block bigger than the whole limit is never cached (and its miss
   * gave the two cached blocks back) */
  p[0] = dl_allocator_alloc (a, 16 * KiB, &bs[0]);
  g_assert_cmpuint (raw.n_frees, ==, 3);
  dl_allocator_release (a, p[0], bs[0]);
  g_assert_cmpuint (stats (a).cached, ==, 0);
  g_assert_cmpuint (raw.n_frees, ==, 4);
  free_allocator (a);
}

static void
test_empty_cache (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gpointer keep, p[4];
  gsize kbs, bs[4];
  DlAllocatorStats s;

  keep = dl_allocator_alloc (a, 2 * KiB, &kbs);
  for (gint i = 0; i < 4; i++)
    p[i] = dl_allocator_alloc (a, (i + 1) * 4 * KiB, &bs[i]);
  for (gint i = 0; i < 4; i++)
    dl_allocator_release (a, p[i], bs[i]);
  g_assert_cmpuint (raw.n_frees, ==, 0);

  dl_allocator_empty_cache (a);
  s = stats (a);
  g_assert_cmpuint (raw.n_frees, ==, 4);
  g_assert_cmpuint (s.cached, ==, 0);
  g_assert_cmpuint (s.reserved, ==, kbs);
  g_assert_cmpuint (s.allocated, ==, kbs);
  g_assert_cmpuint (raw.outstanding, ==, kbs);

  /* and the allocator still works afterwards */
  p[0] = dl_allocator_alloc (a, 4 * KiB, &bs[0]);
  g_assert_nonnull (p[0]);
  g_assert_cmpuint (raw.n_allocs, ==, 6);
  dl_allocator_release (a, p[0], bs[0]);
  dl_allocator_release (a, keep, kbs);
  free_allocator (a);
}

static void
test_out_of_memory (void)
{
  DlAllocator *a = new_allocator (G_MAXUINT64);
  gpointer p, q;
  gsize bs, qbs = 12345;
  DlAllocatorStats s;

  raw.capacity = 64 * KiB;
  p = dl_allocator_alloc (a, 48 * KiB, &bs);
  g_assert_nonnull (p);
  dl_allocator_release (a, p, bs);
  g_assert_cmpuint (stats (a).cached, ==, 48 * KiB);

  /* 32 KiB does not fit next to the cached 48 KiB: the allocator gives the
   * cache back and retries */
  q = dl_allocator_alloc (a, 32 * KiB, &qbs);
  g_assert_nonnull (q);
  g_assert_cmpuint (qbs, ==, 32 * KiB);
  s = stats (a);
  g_assert_cmpuint (s.cached, ==, 0);
  g_assert_cmpuint (s.reserved, ==, 32 * KiB);
  g_assert_cmpuint (s.allocated, ==, 32 * KiB);

  /* more than the device holds: NULL, and nothing counted */
  qbs = 12345;
  p = dl_allocator_alloc (a, 128 * KiB, &qbs);
  g_assert_null (p);
  g_assert_cmpuint (qbs, ==, 12345);
  s = stats (a);
  g_assert_cmpuint (s.allocated, ==, 32 * KiB);
  g_assert_cmpuint (s.reserved, ==, 32 * KiB);
  g_assert_cmpuint (s.peak_allocated, ==, 48 * KiB);

  dl_allocator_release (a, q, 32 * KiB);
  free_allocator (a);
}

static gpointer
thread_func (gpointer data)
{
  DlAllocator *a = data;

  for (gint i = 0; i < 2000; i++)
    {
      gsize bs;
      gsize n = (gsize)(1 + (i * 7919) % 16) * KiB;
      gpointer p = dl_allocator_alloc (a, n, &bs);

      g_assert_nonnull (p);
      memset (p, i, n);
      dl_allocator_release (a, p, bs);
    }
  return NULL;
}

static void
test_threads (void)
{
  DlAllocator *a = new_allocator (256 * KiB);
  GThread *threads[4];
  DlAllocatorStats s;

  /* the fake allocator itself is not thread-safe: the allocator's lock
   * must cover every raw call */
  for (gint i = 0; i < 4; i++)
    threads[i] = g_thread_new ("alloc", thread_func, a);
  for (gint i = 0; i < 4; i++)
    g_thread_join (threads[i]);
  s = stats (a);
  g_assert_cmpuint (s.allocated, ==, 0);
  g_assert_cmpuint (s.reserved, ==, s.cached);
  g_assert_cmpuint (s.cached, <=, 256 * KiB);
  g_assert_cmpuint (raw.outstanding, ==, s.reserved);
  free_allocator (a);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/allocator/round-size", test_round_size);
  g_test_add_func ("/allocator/reuse", test_reuse);
  g_test_add_func ("/allocator/reuse-many", test_reuse_many);
  g_test_add_func ("/allocator/stats", test_stats);
  g_test_add_func ("/allocator/trim-on-miss", test_trim_on_miss);
  g_test_add_func ("/allocator/trim-old-sizes-only", test_trim_old_sizes_only);
  g_test_add_func ("/allocator/trim-keeps-sizes-in-use", test_trim_keeps_sizes_in_use);
  g_test_add_func ("/allocator/small-cached", test_small_cached);
  g_test_add_func ("/allocator/small-capacity", test_small_capacity);
  g_test_add_func ("/allocator/small-sizes", test_small_sizes);
  g_test_add_func ("/allocator/cache-limit", test_cache_limit);
  g_test_add_func ("/allocator/empty-cache", test_empty_cache);
  g_test_add_func ("/allocator/out-of-memory", test_out_of_memory);
  g_test_add_func ("/allocator/threads", test_threads);

  return g_test_run ();
}
