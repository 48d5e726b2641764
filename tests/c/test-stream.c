/* test-stream.c: DlStream and DlEvent.
 *
 * On the CPU and the meta device (no streams): trivial streams, always
 * complete, events that read the clock, the calling thread's current
 * stream, and the errors. Then the bookkeeping a GPU backend relies on,
 * through a fake backend "queue" with stream and event slots whose
 * streams count the work queued and finished: the current stream that
 * DlBackendContext.current_stream gives each thread, queries, waits,
 * events, the handle pool, and memory statistics read through the
 * backend's slots.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl.h"
#include "dl-device-private.h"
#include "dl-stream-private.h"

/* ---- the fake backend ---------------------------------------------------- */

typedef struct
{
  gint priority;
  guint64 queued;   /* work items queued */
  guint64 finished; /* of those, finished */
  GArray *waits;    /* the tickets of the events it was told to wait for */
} FakeStream;

typedef struct
{
  FakeStream *stream; /* where it was last recorded */
  guint64 ticket;     /* complete once stream->finished reaches it */
  gboolean timing;
} FakeEvent;

static FakeStream default_queue;
static guint n_streams_made, n_streams_freed, n_events_made, n_events_freed;
static guint n_stream_syncs, n_device_syncs, n_resets, n_empties;
static DlMemoryStats fake_stats;

static FakeStream *
queue_of (DlBackendContext *ctx, gpointer stream)
{
  return stream ? stream : &default_queue;
}

static gpointer
fake_raw_alloc (DlBackendContext *ctx, gsize nbytes)
{
  return g_malloc (MAX (nbytes, 1));
}

static void
fake_raw_free (DlBackendContext *ctx, gpointer ptr, gsize nbytes)
{
  g_free (ptr);
}

static void
fake_copy (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
  memcpy (dst, src, nbytes);
}

static void
fake_synchronize (DlBackendContext *ctx)
{
  n_device_syncs++;
  default_queue.finished = default_queue.queued;
}

static gpointer
fake_stream_new (DlBackendContext *ctx, gint priority)
{
  FakeStream *s = g_new0 (FakeStream, 1);

  s->priority = priority;
  s->waits = g_array_new (FALSE, FALSE, sizeof (guint64));
  n_streams_made++;
  return s;
}

static void
fake_stream_free (DlBackendContext *ctx, gpointer stream)
{
  FakeStream *s = stream;

  g_array_unref (s->waits);
  g_free (s);
  n_streams_freed++;
}

static gboolean
fake_stream_query (DlBackendContext *ctx, gpointer stream)
{
  FakeStream *s = queue_of (ctx, stream);

  return s->finished == s->queued;
}

static void
fake_stream_synchronize (DlBackendContext *ctx, gpointer stream)
{
  FakeStream *s = queue_of (ctx, stream);

  n_stream_syncs++;
  s->finished = s->queued;
}

static void
fake_stream_wait_event (DlBackendContext *ctx, gpointer stream, gpointer event)
{
  g_array_append_val (queue_of (ctx, stream)->waits, ((FakeEvent *)event)->ticket);
}

static gpointer
fake_event_new (DlBackendContext *ctx, gboolean enable_timing, gboolean blocking)
{
  FakeEvent *e = g_new0 (FakeEvent, 1);

  e->timing = enable_timing;
  n_events_made++;
  return e;
}

static void
fake_event_free (DlBackendContext *ctx, gpointer event)
{
  g_free (event);
  n_events_freed++;
}

static void
fake_event_record (DlBackendContext *ctx, gpointer event, gpointer stream)
{
  FakeEvent *e = event;

  e->stream = queue_of (ctx, stream);
  e->ticket = e->stream->queued;
}

static gboolean
fake_event_query (DlBackendContext *ctx, gpointer event)
{
  FakeEvent *e = event;

  return e->stream->finished >= e->ticket;
}

static void
fake_event_synchronize (DlBackendContext *ctx, gpointer event)
{
  FakeEvent *e = event;

  e->stream->finished = MAX (e->stream->finished, e->ticket);
}

/* one "millisecond" per work item between the two records */
static gboolean
fake_event_elapsed (DlBackendContext *ctx, gpointer start, gpointer end, gdouble *ms)
{
  FakeEvent *a = start, *b = end;

  *ms = (gdouble)b->ticket - (gdouble)a->ticket;
  return TRUE;
}

static void
fake_memory_stats (DlBackendContext *ctx, DlMemoryStats *stats)
{
  *stats = fake_stats;
}

static void
fake_memory_reset_peaks (DlBackendContext *ctx)
{
  n_resets++;
}

static void
fake_memory_empty_cache (DlBackendContext *ctx)
{
  n_empties++;
}

static const DlBackend queue_backend = {
  .name = "queue",
  .raw_alloc = fake_raw_alloc,
  .raw_free = fake_raw_free,
  .copy_to_host = fake_copy,
  .copy_from_host = fake_copy,
  .synchronize = fake_synchronize,
  .stream_new = fake_stream_new,
  .stream_free = fake_stream_free,
  .stream_query = fake_stream_query,
  .stream_synchronize = fake_stream_synchronize,
  .stream_wait_event = fake_stream_wait_event,
  .event_new = fake_event_new,
  .event_free = fake_event_free,
  .event_record = fake_event_record,
  .event_query = fake_event_query,
  .event_synchronize = fake_event_synchronize,
  .event_elapsed = fake_event_elapsed,
  .memory_stats = fake_memory_stats,
  .memory_reset_peaks = fake_memory_reset_peaks,
  .memory_empty_cache = fake_memory_empty_cache,
};

static gint
queue_device_count (void)
{
  return 2;
}

static DlDevice *
queue_device (gint index)
{
  static gsize registered = 0;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *name = g_strdup_printf ("queue:%d", index);
  DlDevice *device;

  if (g_once_init_enter (&registered))
    {
      DlDeviceTypeInfo info = {
        .type = "queue",
        .device_type = DL_DEVICE_TYPE_CUDA,
        .backend = &queue_backend,
        .indexed = TRUE,
        .device_count = queue_device_count,
      };

      g_assert_true (dl_device_register_type (&info, &error));
      g_once_init_leave (&registered, 1);
    }
  device = dl_device_get (name, &error);
  g_assert_no_error (error);
  /* devices live as long as the process: the reference can go */
  g_object_unref (device);
  return device;
}

/* a "kernel launch" on @device: one work item on the stream its context
 * says is the calling thread's current one */
static void
launch (DlDevice *device)
{
  DlBackendContext *ctx = dl_device_get_context (device);

  queue_of (ctx, ctx->current_stream (ctx))->queued++;
}

static DlDevice *
named (const gchar *name)
{
  g_autoptr (GError) error = NULL;
  DlDevice *device = dl_device_get (name, &error);

  g_assert_no_error (error);
  g_object_unref (device);
  return device;
}

/* ---- devices without streams --------------------------------------------- */

static gpointer
current_in_thread (gpointer data)
{
  return dl_stream_get_current (data);
}

static void
test_trivial_streams (void)
{
  g_autoptr (GError) error = NULL;
  DlDevice *cpu = named ("cpu"), *meta = named ("meta");
  g_autoptr (DlStream) def = dl_stream_get_default (cpu);
  g_autoptr (DlStream) def_again = dl_stream_get_default (NULL);
  g_autoptr (DlStream) cur = dl_stream_get_current (cpu);
  g_autoptr (DlStream) s = dl_stream_new (cpu, -1, &error);
  g_autoptr (DlStream) meta_def = dl_stream_get_default (meta);
  g_autoptr (DlStream) now = NULL;
  g_autoptr (DlStream) other_thread = NULL;
  g_autoptr (DlStream) restored = NULL;

  g_assert_no_error (error);
  /* one default stream object per device, current until another is set */
  g_assert_true (def == def_again);
  g_assert_true (cur == def);
  g_assert_false (meta_def == def);
  g_assert_true (dl_stream_get_device (meta_def) == meta);
  g_assert_true (dl_stream_get_device (s) == cpu);
  g_assert_cmpint (dl_stream_get_priority (s), ==, -1);
  g_assert_cmpuint (dl_stream_get_native_handle (s), ==, 0);
  /* always complete */
  g_assert_true (dl_stream_query (s));
  g_assert_true (dl_stream_synchronize (s, &error));
  g_assert_no_error (error);
  g_assert_true (dl_device_synchronize (cpu, &error));
  g_assert_no_error (error);

  /* the current stream is the calling thread's */
  dl_stream_set_current (s);
  now = dl_stream_get_current (cpu);
  g_assert_true (now == s);
  other_thread = g_thread_join (g_thread_new ("other", current_in_thread, cpu));
  g_assert_true (other_thread == def);
  dl_stream_set_current (def);
  restored = dl_stream_get_current (NULL);
  g_assert_true (restored == def);
}

static void
test_trivial_events (void)
{
  g_autoptr (GError) error = NULL;
  DlDevice *cpu = named ("cpu"), *meta = named ("meta");
  g_autoptr (DlStream) s = dl_stream_get_current (cpu);
  g_autoptr (DlStream) on_meta = dl_stream_get_default (meta);
  g_autoptr (DlEvent) start = dl_event_new (TRUE, FALSE);
  g_autoptr (DlEvent) end = dl_event_new (TRUE, TRUE);
  g_autoptr (DlEvent) untimed = dl_event_new (FALSE, FALSE);
  g_autoptr (DlEvent) made = NULL;
  gdouble ms;

  g_assert_true (dl_event_get_enable_timing (start));
  g_assert_true (dl_event_get_blocking (end));
  g_assert_false (dl_event_get_blocking (start));
  /* never recorded: complete, on no device, not timed */
  g_assert_null (dl_event_get_device (start));
  g_assert_true (dl_event_query (start));
  g_assert_true (dl_event_synchronize (start, &error));
  g_assert_no_error (error);
  ms = dl_event_elapsed_time (start, end, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "must be recorded"));
  g_assert_cmpfloat (ms, ==, 0);
  g_clear_error (&error);

  /* on the CPU the time between two records is the host's */
  g_assert_true (dl_event_record (start, s, &error));
  g_assert_no_error (error);
  g_assert_true (dl_event_get_device (start) == cpu);
  g_usleep (20000);
  g_assert_true (dl_event_record (end, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (dl_event_query (end));
  ms = dl_event_elapsed_time (start, end, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ms, >=, 20.0);
  g_assert_cmpfloat (ms, <, 5000.0);

  g_assert_true (dl_event_record (untimed, s, &error));
  dl_event_elapsed_time (start, untimed, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "enable_timing=True"));
  g_clear_error (&error);

  /* an event stays on the device it was first recorded on */
  g_assert_false (dl_event_record (start, on_meta, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_assert_nonnull (strstr (error->message, "'cpu'"));
  g_assert_nonnull (strstr (error->message, "'meta'"));
  g_clear_error (&error);
  g_assert_false (dl_stream_wait_event (on_meta, start, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_clear_error (&error);
  g_assert_false (dl_stream_wait_stream (on_meta, s, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_clear_error (&error);
  g_assert_true (dl_stream_wait_stream (s, s, &error));
  g_assert_no_error (error);

  made = dl_stream_record_event (on_meta, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (dl_event_get_device (made) == meta);
  g_assert_false (dl_event_get_enable_timing (made));
}

static void
test_memory_stats_cpu (void)
{
  g_autoptr (GError) error = NULL;
  DlDevice *cpu = named ("cpu"), *meta = named ("meta");
  gint64 shape[] = { 1000, 1000 };
  g_autoptr (DlMemoryStats) before = dl_device_get_memory_stats (cpu);
  g_autoptr (DlMemoryStats) during = NULL;
  g_autoptr (DlMemoryStats) after = NULL;
  g_autoptr (DlMemoryStats) copy = NULL;
  g_autoptr (DlMemoryStats) on_meta = NULL;
  DlTensor *t;

  t = dl_zeros (shape, 2, DL_DTYPE_FLOAT32, cpu, &error);
  g_assert_no_error (error);
  during = dl_device_get_memory_stats (cpu);
  g_assert_cmpuint (during->allocated_bytes, >=, before->allocated_bytes + 4000000);
  g_assert_cmpuint (during->max_allocated_bytes, >=, during->allocated_bytes);
  g_assert_cmpuint (during->max_reserved_bytes, >=, during->reserved_bytes);
  g_assert_cmpuint (during->reserved_bytes, >=, during->allocated_bytes);
  g_assert_cmpuint (dl_device_get_max_memory_reserved (cpu), ==, during->max_reserved_bytes);
  g_object_unref (t);
  /* the peak stays until it is reset, then it is what is allocated now */
  g_assert_cmpuint (dl_device_get_max_memory_allocated (cpu), ==, during->max_allocated_bytes);
  dl_device_reset_peak_memory_stats (cpu);
  after = dl_device_get_memory_stats (cpu);
  g_assert_cmpuint (after->max_allocated_bytes, ==, after->allocated_bytes);
  g_assert_cmpuint (after->max_reserved_bytes, ==, after->reserved_bytes);
  g_assert_cmpuint (after->allocated_bytes, ==, before->allocated_bytes);
  /* the CPU's allocator counts no blocks or segments */
  g_assert_cmpuint (after->n_segments, ==, 0);
  copy = dl_memory_stats_copy (after);
  g_assert_cmpmem (copy, sizeof *copy, after, sizeof *after);
  on_meta = dl_device_get_memory_stats (meta);
  g_assert_cmpuint (on_meta->allocated_bytes, ==, 0);
  g_assert_cmpuint (on_meta->reserved_bytes, ==, 0);
}

/* ---- a device with streams -------------------------------------------------- */

static gpointer
launch_in_thread (gpointer data)
{
  DlDevice *device = data;
  DlBackendContext *ctx = dl_device_get_context (device);

  launch (device);
  return ctx->current_stream (ctx);
}

static void
test_queue_current_stream (void)
{
  g_autoptr (GError) error = NULL;
  DlDevice *q0 = queue_device (0), *q1 = queue_device (1);
  DlBackendContext *ctx0 = dl_device_get_context (q0), *ctx1 = dl_device_get_context (q1);
  g_autoptr (DlStream) s = dl_stream_new (q0, 0, &error);
  g_autoptr (DlStream) def = dl_stream_get_default (q0);
  FakeStream *fs;
  guint64 default_before;

  g_assert_no_error (error);
  fs = dl_stream_get_handle (s);
  g_assert_nonnull (fs);
  g_assert_cmpuint (dl_stream_get_native_handle (s), ==, (guint64)(guintptr)fs);
  /* the default stream is the context's */
  g_assert_null (ctx0->current_stream (ctx0));
  g_assert_null (dl_stream_get_handle (def));

  dl_stream_set_current (s);
  g_assert_true (ctx0->current_stream (ctx0) == fs);
  /* the other device and the other threads keep their default stream */
  g_assert_null (ctx1->current_stream (ctx1));
  default_before = default_queue.queued;
  g_assert_null (g_thread_join (g_thread_new ("other", launch_in_thread, q0)));
  g_assert_cmpuint (default_queue.queued, ==, default_before + 1);
  g_assert_cmpuint (fs->queued, ==, 0);

  /* work queued here goes on the current stream */
  launch (q0);
  launch (q0);
  g_assert_cmpuint (fs->queued, ==, 2);
  g_assert_false (dl_stream_query (s));
  g_assert_true (dl_stream_synchronize (s, &error));
  g_assert_no_error (error);
  g_assert_true (dl_stream_query (s));

  dl_stream_set_current (def);
  g_assert_null (ctx0->current_stream (ctx0));
  /* device synchronize waits for every stream */
  g_assert_true (dl_device_synchronize (q0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (default_queue.finished, ==, default_queue.queued);
}

static void
test_queue_events (void)
{
  g_autoptr (GError) error = NULL;
  DlDevice *q0 = queue_device (0), *q1 = queue_device (1);
  g_autoptr (DlStream) a = dl_stream_new (q0, 0, &error);
  g_autoptr (DlStream) b = dl_stream_new (q0, 0, &error);
  g_autoptr (DlStream) on_q1 = dl_stream_new (q1, 0, &error);
  g_autoptr (DlEvent) start = dl_event_new (TRUE, FALSE);
  g_autoptr (DlEvent) end = dl_event_new (TRUE, FALSE);
  g_autoptr (DlEvent) mark = NULL;
  FakeStream *fa = dl_stream_get_handle (a), *fb = dl_stream_get_handle (b);
  guint events_made = n_events_made, events_freed = n_events_freed;
  g_autoptr (DlStream) def = dl_stream_get_default (q0);
  gdouble ms;

  guint64 base = fa->queued;
  guint n_waits = fb->waits->len;

  g_assert_no_error (error);
  /* streams come from the pool: their queues may have a past */
  g_assert_cmpuint (fa->finished, ==, base);
  dl_stream_set_current (a);
  g_assert_true (dl_event_record (start, a, &error));
  g_assert_true (dl_event_get_device (start) == q0);
  launch (q0);
  launch (q0);
  launch (q0);
  g_assert_true (dl_event_record (end, a, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_events_made, ==, events_made + 2);
  /* the end waits for the three launches */
  g_assert_true (dl_event_query (start));
  g_assert_false (dl_event_query (end));
  dl_event_elapsed_time (start, end, &error);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "must be completed"));
  g_clear_error (&error);
  g_assert_true (dl_event_synchronize (end, &error));
  g_assert_no_error (error);
  g_assert_true (dl_event_query (end));
  ms = dl_event_elapsed_time (start, end, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ms, ==, 3.0);

  /* b waits for end on the device: the backend is told, nothing blocks */
  g_assert_true (dl_stream_wait_event (b, end, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fb->waits->len, ==, n_waits + 1);
  g_assert_cmpuint (g_array_index (fb->waits, guint64, n_waits), ==, base + 3);
  /* wait_stream: an event recorded on a at its end, waited for by b */
  launch (q0);
  g_assert_true (dl_stream_wait_stream (b, a, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fb->waits->len, ==, n_waits + 2);
  g_assert_cmpuint (g_array_index (fb->waits, guint64, n_waits + 1), ==, fa->queued);
  g_assert_cmpuint (fa->queued, ==, base + 4);
  /* that event was made for the wait and is gone */
  g_assert_cmpuint (n_events_made, ==, events_made + 3);
  g_assert_cmpuint (n_events_freed, ==, events_freed + 1);
  /* an event of q0 cannot be recorded or waited for on q1 */
  g_assert_false (dl_event_record (end, on_q1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_clear_error (&error);
  g_assert_false (dl_event_wait (end, on_q1, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  g_clear_error (&error);

  mark = dl_stream_record_event (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (dl_event_get_enable_timing (mark));
  dl_stream_set_current (def);
}

static void
test_queue_pool (void)
{
  g_autoptr (GError) error = NULL;
  DlDevice *q0 = queue_device (0);
  DlStream *s = dl_stream_new (q0, -1, &error);
  g_autoptr (DlStream) again = NULL;
  g_autoptr (DlStream) other_priority = NULL;
  gpointer handle = dl_stream_get_handle (s);
  guint made = n_streams_made;

  g_assert_no_error (error);
  g_assert_cmpint (((FakeStream *)handle)->priority, ==, -1);
  /* a finalized stream's handle is kept, not destroyed, and handed on */
  g_assert_finalize_object (s);
  g_assert_cmpuint (n_streams_freed, ==, 0);
  again = dl_stream_new (q0, -1, &error);
  g_assert_true (dl_stream_get_handle (again) == handle);
  g_assert_cmpuint (n_streams_made, ==, made);
  other_priority = dl_stream_new (q0, 0, &error);
  g_assert_false (dl_stream_get_handle (other_priority) == handle);
}

static void
test_queue_memory_stats (void)
{
  DlDevice *q0 = queue_device (0);
  g_autoptr (DlMemoryStats) stats = NULL;

  /* the figures are the backend's own allocator's */
  fake_stats = (DlMemoryStats){ .allocated_bytes = 1024,
                                .max_allocated_bytes = 4096,
                                .reserved_bytes = 2 << 20,
                                .max_reserved_bytes = 22 << 20,
                                .n_segments = 1,
                                .inactive_split_bytes = 512,
                                .n_inactive_split = 1 };
  stats = dl_device_get_memory_stats (q0);
  g_assert_cmpmem (stats, sizeof *stats, &fake_stats, sizeof fake_stats);
  g_assert_cmpuint (dl_device_get_memory_allocated (q0), ==, 1024);
  g_assert_cmpuint (dl_device_get_max_memory_allocated (q0), ==, 4096);
  g_assert_cmpuint (dl_device_get_memory_reserved (q0), ==, 2 << 20);
  g_assert_cmpuint (dl_device_get_max_memory_reserved (q0), ==, 22 << 20);
  dl_device_reset_peak_memory_stats (q0);
  g_assert_cmpuint (n_resets, ==, 1);
  dl_device_empty_cache (q0);
  g_assert_cmpuint (n_empties, ==, 1);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stream/trivial/streams", test_trivial_streams);
  g_test_add_func ("/stream/trivial/events", test_trivial_events);
  g_test_add_func ("/stream/trivial/memory-stats", test_memory_stats_cpu);
  g_test_add_func ("/stream/queue/current-stream", test_queue_current_stream);
  g_test_add_func ("/stream/queue/events", test_queue_events);
  g_test_add_func ("/stream/queue/pool", test_queue_pool);
  g_test_add_func ("/stream/queue/memory-stats", test_queue_memory_stats);
  return g_test_run ();
}
