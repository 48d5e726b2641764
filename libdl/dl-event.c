/* dl-event.c: DlEvent, a marker in a stream's queue of work.
 *
 * Events are made without a device, as PyTorch's: the backend's event is
 * made when the event is first recorded, on the device of the stream it
 * is recorded on, and the event stays on that device. On a device without
 * streams (the CPU, meta) every op has finished when its call returns, so
 * recording an event is reading the clock: it is complete at once, and
 * the time between two such events is the host time between the records.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-device-private.h"
#include "dl-error.h"
#include "dl-stream-private.h"

struct _DlEvent
{
  GObject parent_instance;
  gboolean enable_timing;
  gboolean blocking;
  DlDevice *device;   /* where it was first recorded; NULL before */
  gpointer handle;    /* the backend's event, on a device with streams */
  gint64 recorded_us; /* on a device without: when it was recorded */
};

/**
 * DlEvent:
 *
 * A marker in the queue of a #DlStream, as `torch.cuda.Event`: recorded
 * on a stream, it completes when the work queued before it does. Other
 * streams can wait for it (dl_event_wait()), the host can ask whether it
 * has completed or wait for it, and two events made with timing give the
 * time the device took between them (dl_event_elapsed_time()).
 *
 * An event belongs to no device until it is first recorded, then to the
 * device of that stream. An event never recorded counts as complete. On
 * the CPU and the meta device, whose ops run to the end before their call
 * returns, an event completes as it is recorded and the time between two
 * is the time that passed between the two records.
 *
 * Since: 0.1
 */

/**
 * DlEventClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlEvent. The type is final.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlEvent, dl_event, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ENABLE_TIMING,
  PROP_BLOCKING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
dl_event_finalize (GObject *object)
{
  DlEvent *self = DL_EVENT (object);

  if (self->handle)
    {
      DlBackendContext *ctx = dl_device_get_context (self->device);

      ctx->backend->event_free (ctx, self->handle);
    }
  g_clear_object (&self->device);
  G_OBJECT_CLASS (dl_event_parent_class)->finalize (object);
}

static void
dl_event_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlEvent *self = DL_EVENT (object);

  switch (prop_id)
    {
      case PROP_ENABLE_TIMING:
        g_value_set_boolean (value, self->enable_timing);
        break;
      case PROP_BLOCKING:
        g_value_set_boolean (value, self->blocking);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_event_class_init (DlEventClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = dl_event_finalize;
  object_class->get_property = dl_event_get_property;

  /**
   * DlEvent:enable-timing:
   *
   * Whether the event measures time, for dl_event_elapsed_time().
   *
   * Since: 0.1
   */
  properties[PROP_ENABLE_TIMING]
      = g_param_spec_boolean ("enable-timing", NULL, NULL, FALSE,
                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlEvent:blocking:
   *
   * Whether a thread that waits for the event sleeps until it completes
   * rather than spinning.
   *
   * Since: 0.1
   */
  properties[PROP_BLOCKING]
      = g_param_spec_boolean ("blocking", NULL, NULL, FALSE,
                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_event_init (DlEvent *self)
{
  self->recorded_us = -1;
}

/**
 * dl_event_new:
 * @enable_timing: whether the event measures time
 * @blocking: whether waiting for the event sleeps rather than spins
 *
 * Makes an event, as `torch.cuda.Event (enable_timing, blocking)`. It
 * belongs to no device until it is recorded.
 *
 * Returns: (transfer full): a new event
 *
 * Since: 0.1
 */
DlEvent *
dl_event_new (gboolean enable_timing, gboolean blocking)
{
  DlEvent *self = g_object_new (DL_TYPE_EVENT, NULL);

  self->enable_timing = enable_timing;
  self->blocking = blocking;
  return self;
}

static gboolean
event_recorded (DlEvent *self)
{
  return self->handle != NULL || self->recorded_us >= 0;
}

/* Checks that @stream (NULL: the current stream of the calling thread's
 * default device) may be used with @self, which belongs to its device
 * once recorded. (transfer full) */
static DlStream *
event_stream (DlEvent *self, DlStream *stream, const gchar *op, GError **error)
{
  DlDevice *device;

  stream = stream ? g_object_ref (stream) : dl_stream_get_current (NULL);
  device = dl_stream_get_device (stream);
  if (self->device && self->device != device)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "%s: the event is on device '%s' and the stream on '%s'", op,
                   dl_device_get_name (self->device), dl_device_get_name (device));
      g_object_unref (stream);
      return NULL;
    }
  return stream;
}

/**
 * dl_event_record:
 * @self: a #DlEvent
 * @stream: (nullable): the stream, or %NULL for the calling thread's
 *   current stream of its default device
 * @error: return location for a #GError
 *
 * Records the event at the current end of @stream's queue, as
 * `torch.cuda.Event.record ()`: it completes when the work queued so far
 * does. An event may be recorded again, on a stream of the same device.
 *
 * Returns: %TRUE, or %FALSE with a %DL_ERROR_DEVICE error when the event
 *   was recorded on another device or the device cannot make an event
 *
 * Since: 0.1
 */
gboolean
dl_event_record (DlEvent *self, DlStream *stream, GError **error)
{
  g_autoptr (DlStream) s = NULL;
  DlDevice *device;
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_EVENT (self), FALSE);
  g_return_val_if_fail (stream == NULL || DL_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (!(s = event_stream (self, stream, "Event.record", error)))
    return FALSE;
  device = dl_stream_get_device (s);
  ctx = dl_device_get_context (device);
  if (!dl_backend_has_streams (ctx->backend))
    self->recorded_us = g_get_monotonic_time ();
  else
    {
      if (self->handle == NULL
          && !(self->handle = ctx->backend->event_new (ctx, self->enable_timing, self->blocking)))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                       "Event.record: device '%s' cannot make an event",
                       dl_device_get_name (device));
          return FALSE;
        }
      ctx->backend->event_record (ctx, self->handle, dl_stream_get_handle (s));
    }
  if (self->device == NULL)
    self->device = g_object_ref (device);
  return TRUE;
}

/**
 * dl_event_query:
 * @self: a #DlEvent
 *
 * Says whether the work before the event has finished, as
 * `torch.cuda.Event.query ()`, without waiting. An event never recorded
 * has nothing to wait for: %TRUE.
 *
 * Returns: %TRUE when the event has completed or was never recorded
 *
 * Since: 0.1
 */
gboolean
dl_event_query (DlEvent *self)
{
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_EVENT (self), TRUE);
  if (self->handle == NULL)
    return TRUE;
  ctx = dl_device_get_context (self->device);
  return ctx->backend->event_query (ctx, self->handle);
}

/**
 * dl_event_synchronize:
 * @self: a #DlEvent
 * @error: return location for a #GError
 *
 * Waits until the work before the event has finished, as
 * `torch.cuda.Event.synchronize ()`. Returns at once for an event never
 * recorded. A check that a kernel of the device failed is reported here.
 *
 * Returns: %TRUE, or %FALSE with @error set when a kernel failed a check
 *
 * Since: 0.1
 */
gboolean
dl_event_synchronize (DlEvent *self, GError **error)
{
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_EVENT (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (self->device == NULL)
    return TRUE;
  ctx = dl_device_get_context (self->device);
  if (self->handle)
    ctx->backend->event_synchronize (ctx, self->handle);
  return dl_device_take_kernel_status (self->device, "Event.synchronize", error);
}

/**
 * dl_event_wait:
 * @self: a #DlEvent
 * @stream: (nullable): the stream, or %NULL for the calling thread's
 *   current stream of its default device
 * @error: return location for a #GError
 *
 * Makes the work queued on @stream from now on wait for the work before
 * the event, as `torch.cuda.Event.wait ()`; the calling thread does not
 * wait. Nothing waits for an event never recorded.
 *
 * Returns: %TRUE, or %FALSE with a %DL_ERROR_DEVICE error when the event
 *   was recorded on another device than @stream's
 *
 * Since: 0.1
 */
gboolean
dl_event_wait (DlEvent *self, DlStream *stream, GError **error)
{
  g_autoptr (DlStream) s = NULL;
  DlBackendContext *ctx;

  g_return_val_if_fail (DL_IS_EVENT (self), FALSE);
  g_return_val_if_fail (stream == NULL || DL_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (!(s = event_stream (self, stream, "Event.wait", error)))
    return FALSE;
  if (self->handle == NULL)
    return TRUE;
  ctx = dl_device_get_context (self->device);
  ctx->backend->stream_wait_event (ctx, dl_stream_get_handle (s), self->handle);
  return TRUE;
}

/**
 * dl_event_elapsed_time:
 * @self: the start event
 * @end: the end event
 * @error: return location for a #GError
 *
 * Gives the time between the event and @end, in milliseconds, as
 * `torch.cuda.Event.elapsed_time ()`. Both must have been made with
 * timing, recorded on the same device, and have completed.
 *
 * Returns: the milliseconds from @self to @end; 0 with a
 *   %DL_ERROR_ARGUMENT error when one of them was made without timing, was
 *   never recorded or has not completed, or when they are on different
 *   devices
 *
 * Since: 0.1
 */
gdouble
dl_event_elapsed_time (DlEvent *self, DlEvent *end, GError **error)
{
  DlBackendContext *ctx;
  gdouble ms = 0;

  g_return_val_if_fail (DL_IS_EVENT (self), 0);
  g_return_val_if_fail (DL_IS_EVENT (end), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);
  if (!self->enable_timing || !end->enable_timing)
    {
      g_set_error_literal (error, DL_ERROR, DL_ERROR_ARGUMENT,
                           "Event.elapsed_time: both events must be created with "
                           "enable_timing=True");
      return 0;
    }
  if (!event_recorded (self) || !event_recorded (end))
    {
      g_set_error_literal (error, DL_ERROR, DL_ERROR_ARGUMENT,
                           "Event.elapsed_time: both events must be recorded before calculating "
                           "elapsed time");
      return 0;
    }
  if (self->device != end->device)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Event.elapsed_time: the events are on devices '%s' and '%s'",
                   dl_device_get_name (self->device), dl_device_get_name (end->device));
      return 0;
    }
  if (!dl_event_query (self) || !dl_event_query (end))
    {
      g_set_error_literal (error, DL_ERROR, DL_ERROR_ARGUMENT,
                           "Event.elapsed_time: both events must be completed before calculating "
                           "elapsed time");
      return 0;
    }
  if (self->handle == NULL)
    return (end->recorded_us - self->recorded_us) / 1000.0;
  ctx = dl_device_get_context (self->device);
  if (!ctx->backend->event_elapsed (ctx, self->handle, end->handle, &ms))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Event.elapsed_time: device '%s' cannot time the events",
                   dl_device_get_name (self->device));
      return 0;
    }
  return ms;
}

/**
 * dl_event_get_device:
 * @self: a #DlEvent
 *
 * Gives the device the event was recorded on.
 *
 * Returns: (transfer none) (nullable): the event's device, or %NULL
 *   before it is first recorded
 *
 * Since: 0.1
 */
DlDevice *
dl_event_get_device (DlEvent *self)
{
  g_return_val_if_fail (DL_IS_EVENT (self), NULL);
  return self->device;
}

/**
 * dl_event_get_enable_timing:
 * @self: a #DlEvent
 *
 * Says whether the event measures time.
 *
 * Returns: the #DlEvent:enable-timing the event was made with
 *
 * Since: 0.1
 */
gboolean
dl_event_get_enable_timing (DlEvent *self)
{
  g_return_val_if_fail (DL_IS_EVENT (self), FALSE);
  return self->enable_timing;
}

/**
 * dl_event_get_blocking:
 * @self: a #DlEvent
 *
 * Says whether waiting for the event sleeps rather than spins.
 *
 * Returns: the #DlEvent:blocking the event was made with
 *
 * Since: 0.1
 */
gboolean
dl_event_get_blocking (DlEvent *self)
{
  g_return_val_if_fail (DL_IS_EVENT (self), FALSE);
  return self->blocking;
}
