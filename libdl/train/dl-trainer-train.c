/* dl-trainer-train.c: dl_trainer_train_async(): the training run on
 * its worker and the events it sends the caller's main context.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-trainer-private.h"

/* ---- the events a worker sends to the main context ----------------------- */

typedef enum
{
  EVENT_POINT,
  EVENT_EPOCH,
  EVENT_DONE
} EventType;

typedef struct
{
  EventType type;
  DlTrainingPoint *point; /* EVENT_POINT */
  guint epoch;            /* EVENT_EPOCH */
  gdouble mean_loss;
  gdouble accuracy;
} Event;

static void
event_free (Event *event)
{
  g_clear_object (&event->point);
  g_free (event);
}

typedef struct
{
  GTask *task; /* holds the trainer and the context */
  GCancellable *cancellable;
  GThread *thread; /* the worker, joined when the job is freed */
  GSource *source; /* deliver_events() on the caller's context */
  DlTrainerThreadSettings settings;
  guint epochs;
  guint max_steps;
  guint interval;

  /* the worker's result, read on the main context after EVENT_DONE */
  GError *error;

  /* events not yet delivered, and whether the source is woken to drain
   * them */
  GMutex lock;
  GQueue events;
  gboolean scheduled;
} TrainJob;

static void
train_job_free (TrainJob *job)
{
  g_clear_pointer (&job->thread, g_thread_join);
  g_clear_pointer (&job->source, dl_trainer_wake_source_free);
  g_clear_object (&job->task);
  g_clear_object (&job->cancellable);
  g_clear_error (&job->error);
  g_queue_clear_full (&job->events, (GDestroyNotify)event_free);
  g_mutex_clear (&job->lock);
  g_free (job);
}

/* on the main context: delivers the queued events in order */
static gboolean
deliver_events (gpointer data)
{
  TrainJob *job = data;
  DlTrainer *self = g_task_get_source_object (job->task);

  for (;;)
    {
      Event *event;

      dl_mutex_lock (&job->lock);
      event = g_queue_pop_head (&job->events);
      if (event == NULL)
        job->scheduled = FALSE;
      dl_mutex_unlock (&job->lock);
      if (event == NULL)
        return G_SOURCE_CONTINUE;
      switch (event->type)
        {
          case EVENT_POINT:
            dl_trainer_emit_progress (self, event->point);
            break;
          case EVENT_EPOCH:
            dl_trainer_emit_epoch_finished (self, event->epoch, event->mean_loss, event->accuracy);
            break;
          case EVENT_DONE:
            event_free (event);
            dl_trainer_set_running (self, FALSE);
            if (job->error)
              g_task_return_error (job->task, g_steal_pointer (&job->error));
            else
              g_task_return_boolean (job->task, TRUE);
            train_job_free (job);
            return G_SOURCE_REMOVE;
        }
      event_free (event);
    }
}

/* on the worker: queues @event for the main context */
static void
send_event (TrainJob *job, Event *event)
{
  gboolean wake;

  dl_mutex_lock (&job->lock);
  g_queue_push_tail (&job->events, event);
  wake = !job->scheduled;
  job->scheduled = TRUE;
  dl_mutex_unlock (&job->lock);
  /* the job outlives this: the main context frees it after joining the
   * worker */
  if (wake)
    g_source_set_ready_time (job->source, 0);
}

static void
send_point (TrainJob *job,
            guint epoch,
            guint step,
            const DlTrainerBatchResult *result,
            gint64 samples,
            gint64 since_us,
            gint64 now_us,
            gint64 start_us)
{
  Event *event = g_new0 (Event, 1);
  gdouble seconds = (now_us - since_us) / 1e6;

  event->type = EVENT_POINT;
  event->point = dl_training_point_new_for_step (
      epoch, step, result->loss,
      result->correct < 0 ? NAN : (gdouble)result->correct / MAX (result->n_samples, 1),
      seconds > 0 ? samples / seconds : 0, (now_us - start_us) / 1e6);
  send_event (job, event);
}

/* ---- training ------------------------------------------------------------- */

/* where a training run stands */
typedef struct
{
  gint64 start_us;           /* when it started */
  gint64 point_us;           /* when the last point was taken */
  gint64 point_samples;      /* samples trained on since */
  guint step;                /* optimizer steps completed */
  guint reported;            /* the step of the last point */
  guint last_epoch;          /* the epoch of the last step */
  DlTrainerBatchResult last; /* the last step's result */
} RunState;

/* one step's bookkeeping: the epoch's sums and, every interval, a point */
static void
count_step (TrainJob *job, RunState *run, guint epoch, const DlTrainerBatchResult *result)
{
  run->step++;
  run->last = *result;
  run->last_epoch = epoch;
  run->point_samples += result->n_samples;
  if (job->interval && run->step % job->interval == 0)
    {
      gint64 now = g_get_monotonic_time ();

      send_point (job, epoch, run->step, result, run->point_samples, run->point_us, now,
                  run->start_us);
      run->point_us = now;
      run->point_samples = 0;
      run->reported = run->step;
    }
}

/* One pass over the loader, up to #DlTrainer:max-steps; sends
 * EVENT_EPOCH when the pass reached the loader's end. FALSE with @error
 * set on failure or cancellation. */
static gboolean
train_epoch (TrainJob *job, DlTrainer *self, RunState *run, guint epoch, GError **error)
{
  g_autoptr (DlDataLoaderIter) iter = dl_data_loader_iterate (self->train_loader, error);
  gdouble loss_sum = 0;
  gint64 n_samples = 0, correct = 0;
  gboolean classified = TRUE;
  Event *event;

  if (iter == NULL)
    return FALSE;
  while (job->max_steps == 0 || run->step < job->max_steps)
    {
      g_autoptr (GPtrArray) batch = NULL;
      DlTensor *input, *target;
      DlTrainerBatchResult result = { 0 };
      gboolean ok;

      /* cancelled: stop before the step starts, never half-way */
      if (g_cancellable_set_error_if_cancelled (job->cancellable, error))
        return FALSE;
      if (!dl_data_loader_iter_next (iter, &batch, error))
        {
          if (*error)
            return FALSE;
          break;
        }
      if (!dl_trainer_split_batch (batch, &input, &target, "Trainer", error))
        return FALSE;
      dl_trainer_acquire_for_step (self);
      ok = dl_trainer_train_step (self, input, target, &result, error);
      dl_trainer_release_model (self);
      if (!ok)
        return FALSE;
      count_step (job, run, epoch, &result);
      loss_sum += result.loss * result.n_samples;
      n_samples += result.n_samples;
      if (result.correct < 0)
        classified = FALSE;
      else
        correct += result.correct;
    }
  /* a pass that max-steps cut short is no epoch */
  if (dl_data_loader_iter_get_position (iter) < dl_data_loader_get_length (self->train_loader))
    return TRUE;
  event = g_new0 (Event, 1);
  event->type = EVENT_EPOCH;
  event->epoch = epoch;
  event->mean_loss = n_samples ? loss_sum / n_samples : NAN;
  event->accuracy = classified && n_samples ? (gdouble)correct / n_samples : NAN;
  send_event (job, event);
  return TRUE;
}

/* the worker's loop over the epochs; FALSE with @error set on failure or
 * cancellation */
static gboolean
train_loop (TrainJob *job, DlTrainer *self, GError **error)
{
  RunState run = { 0 };
  gboolean ok = TRUE;

  run.start_us = run.point_us = g_get_monotonic_time ();
  run.last.loss = NAN;
  run.last.correct = -1;
  for (guint epoch = 0; ok && epoch < job->epochs; epoch++)
    {
      if (job->max_steps && run.step >= job->max_steps)
        break;
      ok = train_epoch (job, self, &run, epoch, error);
    }
  /* the last step always gets a point, even when the run failed or was
   * cancelled: the history ends with the step the parameters are at */
  if (job->interval && run.step > run.reported)
    send_point (job, run.last_epoch, run.step, &run.last, run.point_samples, run.point_us,
                g_get_monotonic_time (), run.start_us);
  return ok;
}

static gpointer
train_thread (gpointer data)
{
  TrainJob *job = data;
  DlTrainer *self = g_task_get_source_object (job->task);
  g_autoptr (GArray) modes = NULL;
  gboolean was_enabled;
  GError *error = NULL;
  Event *done;

  dl_trainer_thread_settings_apply (&job->settings);
  was_enabled = dl_set_grad_enabled (TRUE);
  dl_trainer_acquire_for_step (self);
  modes = dl_module_get_modes (self->model);
  dl_module_set_training_quietly (self->model, TRUE);
  dl_trainer_release_model (self);

  if (!train_loop (job, self, &error))
    job->error = error;

  dl_trainer_acquire_for_step (self);
  dl_module_set_modes_quietly (self->model, modes);
  dl_trainer_release_model (self);
  dl_set_grad_enabled (was_enabled);
  dl_set_default_device (NULL);
  /* the last thing the worker touches: the main context frees the job */
  done = g_new0 (Event, 1);
  done->type = EVENT_DONE;
  send_event (job, done);
  return NULL;
}

/* the checks of dl_trainer_train_async() */
static gboolean
check_train (DlTrainer *self, GError **error)
{
  const gchar *op = "Trainer";

  if (!dl_trainer_check_set (self->model, op, "model", error)
      || !dl_trainer_check_set (self->loss, op, "loss", error)
      || !dl_trainer_check_set (self->optimizer, op, "optimizer", error)
      || !dl_trainer_check_set (self->train_loader, op, "train loader", error))
    return FALSE;
  if (self->epochs == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Trainer: epochs is 0; a training run needs at least one");
      return FALSE;
    }
  if (!dl_trainer_check_native_module (self->model, op, "model", error)
      || !dl_trainer_check_native_module (self->loss, op, "loss", error)
      || !dl_trainer_check_native_loader (self->train_loader, op, "train loader", error))
    return FALSE;
  if (!dl_is_native_code ((gpointer)DL_OPTIMIZER_GET_CLASS (self->optimizer)->step))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "Trainer: the optimizer's step (%s) is written in a language binding, whose "
                   "code cannot run on the trainer's worker thread",
                   G_OBJECT_TYPE_NAME (self->optimizer));
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_trainer_train_async:
 * @self: a #DlTrainer
 * @cancellable: (nullable): a #GCancellable to stop training
 * @callback: (scope async) (closure user_data): called on the current
 *   thread-default main context when training has ended
 * @user_data: data for @callback
 *
 * Trains #DlTrainer:model for #DlTrainer:epochs passes over
 * #DlTrainer:train-loader (at most #DlTrainer:max-steps steps) on a worker
 * thread, with the model in train mode (each module's previous mode is
 * restored at the end). Each step is `optimizer.zero_grad (); loss = loss_fn (model
 * (input), target); loss.backward (); optimizer.step ()`, the numbers a
 * synchronous loop over the same batches gives.
 *
 * #DlTrainer::progress, #DlTrainer::epoch-finished and @callback run on the
 * thread-default main context of the calling thread; get the result with
 * dl_trainer_train_finish() in @callback. Cancelling @cancellable stops
 * training before its next step starts (a step under way completes, its
 * optimizer update included), so the parameters are those after the
 * last step #DlTrainer:history reports, and the run fails with
 * %G_IO_ERROR_CANCELLED.
 *
 * A second call while a run is under way fails with %G_IO_ERROR_PENDING;
 * a model, loss, optimizer or data set written in a language binding with
 * %DL_ERROR_NOT_SUPPORTED (see #DlTrainer).
 *
 * Since: 0.1
 */
void
dl_trainer_train_async (DlTrainer *self,
                        GCancellable *cancellable,
                        GAsyncReadyCallback callback,
                        gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  GError *error = NULL;
  TrainJob *job;

  g_return_if_fail (DL_IS_TRAINER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, dl_trainer_train_async);
  g_task_set_name (task, "[dl] dl_trainer_train_async");
  if (self->running)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING,
                               "Trainer: a training run is already under way");
      return;
    }
  if (!check_train (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  job = g_new0 (TrainJob, 1);
  job->task = g_object_ref (task);
  job->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  dl_trainer_thread_settings_capture (&job->settings);
  job->epochs = self->epochs;
  job->max_steps = self->max_steps;
  job->interval = self->progress_interval;
  g_mutex_init (&job->lock);
  g_queue_init (&job->events);
  job->source = dl_trainer_wake_source_new (task, deliver_events, job, "[dl] DlTrainer progress");

  g_list_store_remove_all (self->history);
  dl_trainer_set_running (self, TRUE);
  job->thread = dl_trainer_start_thread (task, train_thread, job);
  if (job->thread == NULL)
    {
      dl_trainer_set_running (self, FALSE);
      train_job_free (job);
    }
}

/**
 * dl_trainer_train_finish:
 * @self: a #DlTrainer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Gives the outcome of dl_trainer_train_async().
 *
 * Returns: %TRUE when every epoch (or #DlTrainer:max-steps steps) ran,
 *   %FALSE with @error set when training failed or was cancelled
 *
 * Since: 0.1
 */
gboolean
dl_trainer_train_finish (DlTrainer *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == dl_trainer_train_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
