/* dl-work.c: DlWork, the handle of a collective that may still be running.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-error.h"
#include "dl-stream.h"
#include "distributed/dl-work-private.h"

/**
 * DlWork:
 *
 * The handle of one collective or point-to-point operation of a
 * #DlProcessGroup (torch.distributed's `Work`): the process group's
 * functions return one, already completed unless they were asked for an
 * asynchronous operation (`async_op`). dl_work_wait() blocks until the
 * operation is done, or until the group's timeout passes, and reports its
 * error; dl_work_is_completed() asks without blocking.
 *
 * ```c
 * g_autoptr (DlWork) work = dl_process_group_all_reduce (group, grad,
 *                                                        DL_REDUCE_OP_KIND_SUM,
 *                                                        TRUE, &error);
 * // ... compute something else while the sum travels ...
 * if (work == NULL || !dl_work_wait (work, &error))
 *   g_printerr ("%s\n", error->message);
 * ```
 *
 * Since: 0.1
 */
/**
 * DlWorkClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlWork. The type is final: its class adds no
 * virtual method to that of GObject, and it cannot be subclassed.
 *
 * Since: 0.1
 */

struct _DlWork
{
  GObject parent_instance;

  GMutex lock;
  GCond cond;
  gboolean completed;
  GError *error; /* (owned) (nullable): the failure, once completed */
  gchar *collective;
  gint peer, rank, size;
  gint source_rank; /* a receive's sender; -1: none */
  gdouble timeout;
  gint64 deadline; /* monotonic, in µs; 0: none */
  GObject *group;  /* (owned) (nullable) */
  DlWorkTimeoutFunc on_timeout;
  DlEvent *event;  /* (owned) (nullable): a device group's operation ends there */
  GPtrArray *keep; /* (owned) (nullable): its tensors, kept while the GPU may use them */
};

G_DEFINE_FINAL_TYPE (DlWork, dl_work, G_TYPE_OBJECT)

static void
dl_work_finalize (GObject *object)
{
  DlWork *self = DL_WORK (object);

  g_clear_error (&self->error);
  g_free (self->collective);
  g_clear_object (&self->group);
  g_clear_object (&self->event);
  g_clear_pointer (&self->keep, g_ptr_array_unref);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (dl_work_parent_class)->finalize (object);
}

static void
dl_work_class_init (DlWorkClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dl_work_finalize;
}

static void
dl_work_init (DlWork *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->collective = g_strdup ("work");
  self->peer = -1;
  self->source_rank = -1;
  self->completed = TRUE; /* a bare DlWork (from a binding) has nothing to wait for */
}

DlWork *
dl_work_new (const gchar *collective,
             gint peer,
             gint rank,
             gint size,
             gdouble timeout,
             GObject *group,
             DlWorkTimeoutFunc on_timeout)
{
  DlWork *self = g_object_new (DL_TYPE_WORK, NULL);

  g_free (self->collective);
  self->collective = g_strdup (collective);
  self->peer = peer;
  self->rank = rank;
  self->size = size;
  self->timeout = timeout;
  if (timeout > 0)
    self->deadline = g_get_monotonic_time () + (gint64)(timeout * G_USEC_PER_SEC);
  self->group = group ? g_object_ref (group) : NULL;
  self->on_timeout = on_timeout;
  self->completed = FALSE;
  return self;
}

void
dl_work_complete (DlWork *self, const GError *error)
{
  g_mutex_lock (&self->lock);
  if (!self->completed)
    {
      self->completed = TRUE;
      self->error = error ? g_error_copy (error) : NULL;
      g_cond_broadcast (&self->cond);
    }
  g_mutex_unlock (&self->lock);
}

void
dl_work_set_event (DlWork *self, DlEvent *event, GPtrArray *keep)
{
  g_mutex_lock (&self->lock);
  g_set_object (&self->event, event);
  if (keep)
    {
      g_clear_pointer (&self->keep, g_ptr_array_unref);
      self->keep = g_ptr_array_ref (keep);
    }
  g_mutex_unlock (&self->lock);
}

GError *
dl_work_new_timeout_error (DlWork *self)
{
  /* a collective of two ranks can only have waited for the other one */
  gint peer = self->peer >= 0 ? self->peer : self->size == 2 ? 1 - self->rank : -1;

  if (peer >= 0)
    return g_error_new (DL_ERROR, DL_ERROR_FAILED,
                        "%s: timed out after %g s waiting for rank %d (rank %d of %d): "
                        "the peer died or did not take part",
                        self->collective, self->timeout, peer, self->rank, self->size);
  return g_error_new (DL_ERROR, DL_ERROR_FAILED,
                      "%s: timed out after %g s waiting for the other ranks (rank %d "
                      "of %d): a rank died or did not call %s",
                      self->collective, self->timeout, self->rank, self->size, self->collective);
}

/**
 * dl_work_wait:
 * @self: a #DlWork
 * @error: return location for a #GError
 *
 * Waits until the operation of @self is done (torch's `Work.wait()`). It
 * waits at most until the process group's timeout, counted from when the
 * operation was submitted: a peer that died or never joins the operation
 * then gives a %DL_ERROR_FAILED naming the operation, the rank it waited
 * for when that is known, and the timeout, and the process group that
 * ran it refuses any further operation (its engine may still be stuck in
 * the call; create a new group, as torch's users do after a timeout).
 *
 * An operation of a group on a GPU (the NCCL engine) ends on the GPU's
 * timeline, as in torch: once the engine has queued it on the group's
 * stream, the wait makes the calling thread's current stream of that
 * device wait for it, and returns without waiting for the GPU; kernels
 * queued after it on that stream see its results.
 *
 * Returns: %TRUE when the operation succeeded, %FALSE with @error set when
 *   it failed or timed out
 *
 * Since: 0.1
 */
gboolean
dl_work_wait (DlWork *self, GError **error)
{
  gboolean timed_out = FALSE;
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (DL_IS_WORK (self), FALSE);
  g_mutex_lock (&self->lock);
  while (!self->completed && !timed_out)
    {
      if (self->deadline == 0)
        g_cond_wait (&self->cond, &self->lock);
      else if (!g_cond_wait_until (&self->cond, &self->lock, self->deadline))
        timed_out = !self->completed;
    }
  if (timed_out)
    {
      self->error = dl_work_new_timeout_error (self);
      self->completed = TRUE;
      g_cond_broadcast (&self->cond);
      local = g_error_copy (self->error);
    }
  else if (self->error)
    local = g_error_copy (self->error);
  g_mutex_unlock (&self->lock);
  if (timed_out && self->on_timeout && self->group)
    self->on_timeout (self->group, local);
  if (local == NULL && self->event)
    {
      g_autoptr (DlStream) current = dl_stream_get_current (dl_event_get_device (self->event));

      if (!dl_stream_wait_event (current, self->event, &local))
        g_prefix_error (&local, "%s: ", self->collective);
    }
  dl_process_group_reap_finished ();
  if (local)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_work_is_completed:
 * @self: a #DlWork
 *
 * Whether the operation is done, successfully or not (torch's
 * `Work.is_completed()`); never blocks. An operation of a group on a GPU
 * (the NCCL engine) is done once the GPU has run it.
 *
 * Returns: %TRUE once the operation has finished or failed
 *
 * Since: 0.1
 */
gboolean
dl_work_is_completed (DlWork *self)
{
  gboolean completed;

  g_return_val_if_fail (DL_IS_WORK (self), FALSE);
  g_mutex_lock (&self->lock);
  completed = self->completed;
  g_mutex_unlock (&self->lock);
  /* a device group's operation: done once the GPU has run it */
  if (completed && self->event && self->error == NULL)
    completed = dl_event_query (self->event);
  if (completed)
    dl_process_group_reap_finished ();
  return completed;
}

/**
 * dl_work_is_success:
 * @self: a #DlWork
 *
 * Whether the operation finished without an error (torch's
 * `Work.is_success()`); %FALSE while it is still running.
 *
 * Returns: %TRUE when it completed successfully
 *
 * Since: 0.1
 */
gboolean
dl_work_is_success (DlWork *self)
{
  gboolean ok;

  g_return_val_if_fail (DL_IS_WORK (self), FALSE);
  g_mutex_lock (&self->lock);
  ok = self->completed && self->error == NULL;
  g_mutex_unlock (&self->lock);
  return ok;
}

/**
 * dl_work_get_error:
 * @self: a #DlWork
 *
 * The error the operation failed with (torch's `Work.exception()`).
 *
 * Returns: (transfer none) (nullable): the error, or %NULL while the
 *   operation runs or when it succeeded
 *
 * Since: 0.1
 */
const GError *
dl_work_get_error (DlWork *self)
{
  const GError *error;

  g_return_val_if_fail (DL_IS_WORK (self), NULL);
  g_mutex_lock (&self->lock);
  error = self->completed ? self->error : NULL;
  g_mutex_unlock (&self->lock);
  return error;
}

void
dl_work_set_source_rank (DlWork *self, gint src)
{
  g_mutex_lock (&self->lock);
  self->source_rank = src;
  g_mutex_unlock (&self->lock);
}

/**
 * dl_work_get_source_rank:
 * @self: a #DlWork
 *
 * The rank whose message a completed receive got (torch's
 * `Work._source_rank()`): for dl_process_group_recv_any_source() the
 * sender it matched, for dl_process_group_recv() the named source.
 *
 * Returns: the sender's rank in the work's group, or -1 for an operation
 *   that is not a receive or has not completed successfully
 *
 * Since: 0.1
 */
gint
dl_work_get_source_rank (DlWork *self)
{
  gint src;

  g_return_val_if_fail (DL_IS_WORK (self), -1);
  g_mutex_lock (&self->lock);
  src = self->completed && self->error == NULL ? self->source_rank : -1;
  g_mutex_unlock (&self->lock);
  return src;
}
