/* dl-stream.c: DlStream, a queue of work on a device, and the calling
 * thread's current stream of each device.
 *
 * A device whose backend has streams (CUDA) queues every op on the
 * calling thread's current stream of that device: the backend's slots ask
 * DlBackendContext.current_stream, which is dl_stream_context_current()
 * here. A device without them (the CPU, meta) runs each op to the end
 * before the call returns; it gets trivial streams, always complete, so
 * that code written for streams runs unchanged there (torch.cpu.Stream
 * does the same for device-agnostic code).
 *
 * The backend handles of streams that are finalized go to a pool and are
 * handed to the next streams of the same device and priority rather than
 * destroyed, as PyTorch's stream pool does: the caching allocator may
 * still record events on the stream of a block made there.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "dl-mutex-private.h"

#include "dl-device-private.h"
#include "dl-error.h"
#include "dl-stream-private.h"

struct _DlStream
{
  GObject parent_instance;
  DlDevice *device;
  gint priority;
  gpointer handle; /* the backend's; NULL for the default or a trivial stream */
  gboolean pooled; /* the handle goes back to the pool when finalized */
};

/**
 * DlStream:
 *
 * A queue of work on a device, as `torch.cuda.Stream`: ops queued on one
 * stream run in order, ops on different streams may overlap. Each thread
 * has a current stream per device (dl_stream_get_current(), at first the
 * device's default stream), on which the ops it calls are queued;
 * dl_stream_set_current() changes it. Reading a tensor's values (its
 * items, its bytes, printing it) waits for the calling thread's current
 * stream of the tensor's device.
 *
 * The CPU and the meta device run every op to the end before the call
 * returns: their streams are trivial, always complete, and waiting on them
 * or on their events returns at once. They exist so that code written for
 * a GPU runs unchanged on the CPU.
 *
 * Since: 0.1
 */

/**
 * DlStreamClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlStream. The type is final.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlStream, dl_stream, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_PRIORITY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* the default streams (DlDevice -> DlStream), made on first use and kept
 * as devices are, and the pooled handles ((device, priority) -> GSList) */
static GMutex streams_lock;
static GHashTable *default_streams;
static GHashTable *handle_pool;

typedef struct
{
  DlDevice *device;
  gint priority;
} PoolKey;

static guint
pool_key_hash (gconstpointer p)
{
  const PoolKey *k = p;

  return g_direct_hash (k->device) ^ (guint)k->priority;
}

static gboolean
pool_key_equal (gconstpointer a, gconstpointer b)
{
  const PoolKey *x = a, *y = b;

  return x->device == y->device && x->priority == y->priority;
}

static void
dl_stream_finalize (GObject *object)
{
  DlStream *self = DL_STREAM (object);

  if (self->pooled)
    {
      PoolKey key = { self->device, self->priority };
      GSList *list;

      dl_mutex_lock (&streams_lock);
      if (handle_pool == NULL)
        handle_pool = g_hash_table_new_full (pool_key_hash, pool_key_equal, g_free, NULL);
      list = g_hash_table_lookup (handle_pool, &key);
      g_hash_table_insert (handle_pool, g_memdup2 (&key, sizeof key),
                           g_slist_prepend (list, self->handle));
      dl_mutex_unlock (&streams_lock);
    }
  g_clear_object (&self->device);
  G_OBJECT_CLASS (dl_stream_parent_class)->finalize (object);
}

static void
dl_stream_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlStream *self = DL_STREAM (object);

  switch (prop_id)
    {
      case PROP_DEVICE:
        g_value_set_object (value, self->device);
        break;
      case PROP_PRIORITY:
        g_value_set_int (value, self->priority);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_stream_class_init (DlStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = dl_stream_finalize;
  object_class->get_property = dl_stream_get_property;

  /**
   * DlStream:device:
   *
   * The device whose work the stream queues.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE]
      = g_param_spec_object ("device", NULL, NULL, DL_TYPE_DEVICE,
                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlStream:priority:
   *
   * The priority the stream was made with: lower numbers run first, as
   * CUDA's; 0 for the default stream.
   *
   * Since: 0.1
   */
  properties[PROP_PRIORITY]
      = g_param_spec_int ("priority", NULL, NULL, G_MININT, G_MAXINT, 0,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_stream_init (DlStream *self)
{
}

static DlStream *
stream_make (DlDevice *device, gint priority, gpointer handle, gboolean pooled)
{
  DlStream *self = g_object_new (DL_TYPE_STREAM, NULL);

  self->device = g_object_ref (device);
  self->priority = priority;
  self->handle = handle;
  self->pooled = pooled;
  return self;
}

/**
 * dl_stream_new:
 * @device: (nullable): the device, or %NULL for the calling thread's
 *   default device (dl_device_get_default())
 * @priority: the priority: lower numbers run first, as CUDA's (-1 high,
 *   0 normal, as `torch.cuda.Stream`'s); the backend clamps it to the
 *   range the device has
 * @error: return location for a #GError
 *
 * Makes a stream on @device, as `torch.cuda.Stream (device, priority)`.
 * On a device without streams (the CPU, meta) the stream is a trivial
 * one, always complete.
 *
 * Returns: (transfer full): the new stream, or %NULL with @error set when
 *   the device's runtime cannot make one
 *
 * Since: 0.1
 */
DlStream *
dl_stream_new (DlDevice *device, gint priority, GError **error)
{
  DlBackendContext *ctx;
  PoolKey key;
  GSList *list;
  gpointer handle = NULL;

  g_return_val_if_fail (device == NULL || DL_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (device == NULL)
    device = dl_device_default ();
  ctx = dl_device_get_context (device);
  if (!dl_backend_has_streams (ctx->backend))
    return stream_make (device, priority, NULL, FALSE);

  key = (PoolKey){ device, priority };
  dl_mutex_lock (&streams_lock);
  if (handle_pool && (list = g_hash_table_lookup (handle_pool, &key)))
    {
      handle = list->data;
      g_hash_table_insert (handle_pool, g_memdup2 (&key, sizeof key),
                           g_slist_delete_link (list, list));
    }
  dl_mutex_unlock (&streams_lock);
  if (handle == NULL && !(handle = ctx->backend->stream_new (ctx, priority)))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "Stream: device '%s' cannot make a stream of priority %d",
                   dl_device_get_name (device), priority);
      return NULL;
    }
  return stream_make (device, priority, handle, TRUE);
}

/* the default stream of @device, made on first use (transfer none) */
static DlStream *
default_stream (DlDevice *device)
{
  DlStream *stream;

  dl_mutex_lock (&streams_lock);
  if (default_streams == NULL)
    default_streams = g_hash_table_new (g_direct_hash, g_direct_equal);
  stream = g_hash_table_lookup (default_streams, device);
  if (stream == NULL)
    {
      stream = stream_make (device, 0, dl_device_get_context (device)->stream, FALSE);
      g_hash_table_insert (default_streams, device, stream);
    }
  dl_mutex_unlock (&streams_lock);
  return stream;
}

/**
 * dl_stream_get_default:
 * @device: (nullable): the device, or %NULL for the calling thread's
 *   default device
 *
 * Gives the device's default stream, as `torch.cuda.default_stream ()`:
 * the one every thread's work goes on until it makes another current.
 * There is one object per device.
 *
 * Returns: (transfer full): the default stream of @device
 *
 * Since: 0.1
 */
DlStream *
dl_stream_get_default (DlDevice *device)
{
  g_return_val_if_fail (device == NULL || DL_IS_DEVICE (device), NULL);
  return g_object_ref (default_stream (device ? device : dl_device_default ()));
}

/* the calling thread's current streams: DlDevice -> DlStream (a reference) */
static GPrivate current_streams = G_PRIVATE_INIT ((GDestroyNotify)g_hash_table_unref);

static DlStream *
current_stream (DlDevice *device)
{
  GHashTable *table = g_private_get (&current_streams);
  DlStream *stream = table ? g_hash_table_lookup (table, device) : NULL;

  return stream ? stream : default_stream (device);
}

/**
 * dl_stream_get_current:
 * @device: (nullable): the device, or %NULL for the calling thread's
 *   default device
 *
 * Gives the stream on which the calling thread's ops on @device are
 * queued, as `torch.cuda.current_stream ()`: the device's default stream
 * unless dl_stream_set_current() chose another.
 *
 * Returns: (transfer full): the calling thread's current stream of @device
 *
 * Since: 0.1
 */
DlStream *
dl_stream_get_current (DlDevice *device)
{
  g_return_val_if_fail (device == NULL || DL_IS_DEVICE (device), NULL);
  return g_object_ref (current_stream (device ? device : dl_device_default ()));
}

/**
 * dl_stream_set_current:
 * @stream: a #DlStream
 *
 * Makes @stream the calling thread's current stream of its device, as
 * `torch.cuda.set_stream ()`: the thread's later ops on that device are
 * queued there. Other threads and other devices keep theirs. The thread
 * holds a reference to @stream until another stream is made current.
 *
 * Since: 0.1
 */
void
dl_stream_set_current (DlStream *stream)
{
  GHashTable *table;

  g_return_if_fail (DL_IS_STREAM (stream));
  table = g_private_get (&current_streams);
  if (table == NULL)
    {
      table = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_object_unref);
      g_private_set (&current_streams, table);
    }
  g_hash_table_insert (table, stream->device, g_object_ref (stream));
}

gpointer
dl_stream_context_current (const DlBackendContext *ctx)
{
  GHashTable *table = g_private_get (&current_streams);
  DlStream *stream;

  if (table == NULL)
    return ctx->stream;
  stream = g_hash_table_lookup (
      table, (gconstpointer)((const char *)ctx - G_STRUCT_OFFSET (DlDevice, context)));
  return stream ? stream->handle : ctx->stream;
}

gpointer
dl_stream_get_handle (DlStream *self)
{
  return self->handle;
}

/**
 * dl_stream_get_device:
 * @self: a #DlStream
 *
 * Gives the device whose work the stream queues.
 *
 * Returns: (transfer none): the stream's device
 *
 * Since: 0.1
 */
DlDevice *
dl_stream_get_device (DlStream *self)
{
  g_return_val_if_fail (DL_IS_STREAM (self), NULL);
  return self->device;
}

/**
 * dl_stream_get_priority:
 * @self: a #DlStream
 *
 * Gives the priority the stream was made with (see dl_stream_new()).
 *
 * Returns: the priority; 0 for a default stream
 *
 * Since: 0.1
 */
gint
dl_stream_get_priority (DlStream *self)
{
  g_return_val_if_fail (DL_IS_STREAM (self), 0);
  return self->priority;
}

/**
 * dl_stream_get_native_handle:
 * @self: a #DlStream
 *
 * Gives the backend's handle of the stream as a number, as
 * `torch.cuda.Stream.cuda_stream`: the `cudaStream_t` of a CUDA stream,
 * to hand to other CUDA libraries. 0 for a default stream and for the
 * trivial streams of a device without streams.
 *
 * Returns: the handle as an integer
 *
 * Since: 0.1
 */
guint64
dl_stream_get_native_handle (DlStream *self)
{
  g_return_val_if_fail (DL_IS_STREAM (self), 0);
  return (guint64)(guintptr)self->handle;
}

/**
 * dl_stream_query:
 * @self: a #DlStream
 *
 * Says whether all the work queued on the stream has finished, as
 * `torch.cuda.Stream.query ()`, without waiting. Always %TRUE on a device
 * without streams.
 *
 * Returns: %TRUE when the stream has no unfinished work
 *
 * Since: 0.1
 */
gboolean
dl_stream_query (DlStream *self)
{
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_STREAM (self), TRUE);
  ctx = dl_device_get_context (self->device);
  if (!dl_backend_has_streams (ctx->backend))
    return TRUE;
  return ctx->backend->stream_query (ctx, self->handle);
}

/**
 * dl_stream_synchronize:
 * @self: a #DlStream
 * @error: return location for a #GError
 *
 * Waits until all the work queued on the stream has finished, as
 * `torch.cuda.Stream.synchronize ()`. A check that a kernel of the device
 * failed (PyTorch's device-side assert) is reported here.
 *
 * Returns: %TRUE, or %FALSE with @error set when a kernel failed a check
 *
 * Since: 0.1
 */
gboolean
dl_stream_synchronize (DlStream *self, GError **error)
{
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_STREAM (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  ctx = dl_device_get_context (self->device);
  if (dl_backend_has_streams (ctx->backend))
    ctx->backend->stream_synchronize (ctx, self->handle);
  return dl_device_take_kernel_status (self->device, "Stream.synchronize", error);
}

/**
 * dl_stream_wait_event:
 * @self: a #DlStream
 * @event: a #DlEvent
 * @error: return location for a #GError
 *
 * Makes the work queued on the stream from now on wait for the work
 * before @event, as `torch.cuda.Stream.wait_event ()`. The calling thread
 * does not wait. An event never recorded is already complete: nothing
 * waits for it.
 *
 * Returns: %TRUE, or %FALSE with a %DL_ERROR_DEVICE error when @event was
 *   recorded on another device
 *
 * Since: 0.1
 */
gboolean
dl_stream_wait_event (DlStream *self, DlEvent *event, GError **error)
{
  g_return_val_if_fail (DL_IS_STREAM (self), FALSE);
  g_return_val_if_fail (DL_IS_EVENT (event), FALSE);
  return dl_event_wait (event, self, error);
}

/**
 * dl_stream_wait_stream:
 * @self: a #DlStream
 * @other: another stream of the same device
 * @error: return location for a #GError
 *
 * Makes the work queued on the stream from now on wait for all the work
 * queued on @other so far, as `torch.cuda.Stream.wait_stream ()`: an
 * event recorded on @other and waited for.
 *
 * Returns: %TRUE, or %FALSE with @error set when the streams are on
 *   different devices or the runtime cannot make an event
 *
 * Since: 0.1
 */
gboolean
dl_stream_wait_stream (DlStream *self, DlStream *other, GError **error)
{
  g_autoptr (DlEvent) event = NULL;

  g_return_val_if_fail (DL_IS_STREAM (self), FALSE);
  g_return_val_if_fail (DL_IS_STREAM (other), FALSE);
  if (other->device != self->device)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "Stream.wait_stream: a stream of '%s' cannot wait for a stream of '%s'",
                   dl_device_get_name (self->device), dl_device_get_name (other->device));
      return FALSE;
    }
  event = dl_stream_record_event (other, NULL, error);
  return event && dl_event_wait (event, self, error);
}

/**
 * dl_stream_record_event:
 * @self: a #DlStream
 * @event: (nullable): the event to record, or %NULL for a new one
 * @error: return location for a #GError
 *
 * Records @event at the current end of the stream's queue, as
 * `torch.cuda.Stream.record_event ()`: it completes when the work queued
 * so far does.
 *
 * Returns: (transfer full): @event (a new reference), or the new event;
 *   %NULL with @error set when dl_event_record() fails
 *
 * Since: 0.1
 */
DlEvent *
dl_stream_record_event (DlStream *self, DlEvent *event, GError **error)
{
  g_autoptr (DlEvent) recorded = NULL;

  g_return_val_if_fail (DL_IS_STREAM (self), NULL);
  g_return_val_if_fail (event == NULL || DL_IS_EVENT (event), NULL);
  recorded = event ? g_object_ref (event) : dl_event_new (FALSE, FALSE);
  if (!dl_event_record (recorded, self, error))
    return NULL;
  return g_steal_pointer (&recorded);
}
