/* dl-trainer-eval.c: dl_trainer_evaluate_async() and
 * dl_trainer_predict_async(): the model's jobs that run between training
 * steps.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-trainer-private.h"

/* ---- evaluation and prediction ------------------------------------------ */

typedef struct
{
  GTask *task; /* holds the trainer and the context */
  GCancellable *cancellable;
  GThread *thread; /* the worker, joined before its results are read */
  GSource *source; /* return_model_job() on the caller's context */
  DlTrainerThreadSettings settings;
  DlDataLoader *loader; /* evaluation */
  DlTensor *input;      /* prediction */

  /* the worker's result */
  GError *error;
  gdouble loss;
  gdouble accuracy;
  DlTensor *output;
} ModelJob;

static void
model_job_free (ModelJob *job)
{
  g_clear_pointer (&job->thread, g_thread_join);
  g_clear_pointer (&job->source, dl_trainer_wake_source_free);
  g_clear_object (&job->task);
  g_clear_object (&job->cancellable);
  g_clear_object (&job->loader);
  g_clear_object (&job->input);
  g_clear_object (&job->output);
  g_clear_error (&job->error);
  g_free (job);
}

/* on the main context: the task's outcome, once the worker has exited */
static gboolean
return_model_job (gpointer data)
{
  ModelJob *job = data;

  g_clear_pointer (&job->thread, g_thread_join);

  if (job->error)
    g_task_return_error (job->task, g_steal_pointer (&job->error));
  else if (job->loader)
    {
      gdouble *values = g_new (gdouble, 2);

      values[0] = job->loss;
      values[1] = job->accuracy;
      g_task_return_pointer (job->task, values, g_free);
    }
  else
    g_task_return_pointer (job->task, g_steal_pointer (&job->output), g_object_unref);
  model_job_free (job);
  return G_SOURCE_REMOVE;
}

/* on the worker, its last call: wakes return_model_job() */
static void
send_model_job (ModelJob *job)
{
  g_source_set_ready_time (job->source, 0);
}

/* the worker's pass over the evaluation loader, one batch at a time */
static gboolean
evaluate_loop (ModelJob *job, DlTrainer *self, GError **error)
{
  g_autoptr (DlDataLoaderIter) iter = dl_data_loader_iterate (job->loader, error);
  gdouble loss_sum = 0;
  gint64 n_samples = 0, correct = 0;
  gboolean classified = TRUE;

  if (iter == NULL)
    return FALSE;
  for (;;)
    {
      g_autoptr (GPtrArray) batch = NULL;
      g_autoptr (DlTensor) output = NULL;
      DlTensor *input, *target;
      DlTrainerBatchResult result = { 0 };

      if (g_cancellable_set_error_if_cancelled (job->cancellable, error))
        return FALSE;
      if (!dl_data_loader_iter_next (iter, &batch, error))
        {
          if (error && *error)
            return FALSE;
          break;
        }
      if (batch == NULL)
        break;
      if (!dl_trainer_split_batch (batch, &input, &target, "evaluate", error))
        return FALSE;
      dl_trainer_acquire_between_steps (self);
      output = dl_trainer_eval_batch (self, input, target, &result, error);
      dl_trainer_release_model (self);
      if (output == NULL)
        return FALSE;
      loss_sum += result.loss * result.n_samples;
      n_samples += result.n_samples;
      if (result.correct < 0)
        classified = FALSE;
      else
        correct += result.correct;
    }
  job->loss = n_samples ? loss_sum / n_samples : NAN;
  job->accuracy = classified && n_samples ? (gdouble)correct / n_samples : NAN;
  return TRUE;
}

static gpointer
evaluate_thread (gpointer data)
{
  ModelJob *job = data;
  GError *error = NULL;

  dl_trainer_thread_settings_apply (&job->settings);
  if (!evaluate_loop (job, g_task_get_source_object (job->task), &error))
    job->error = error;
  dl_set_default_device (NULL);
  send_model_job (job);
  return NULL;
}

static gpointer
predict_thread (gpointer data)
{
  ModelJob *job = data;
  DlTrainer *self = g_task_get_source_object (job->task);
  GError *error = NULL;

  dl_trainer_thread_settings_apply (&job->settings);
  if (!g_cancellable_set_error_if_cancelled (job->cancellable, &error))
    {
      dl_trainer_acquire_between_steps (self);
      job->output = dl_trainer_eval_batch (self, job->input, NULL, NULL, &error);
      dl_trainer_release_model (self);
    }
  if (error)
    job->error = error;
  dl_set_default_device (NULL);
  send_model_job (job);
  return NULL;
}

static ModelJob *
model_job_new (GTask *task, GCancellable *cancellable)
{
  ModelJob *job = g_new0 (ModelJob, 1);

  job->task = g_object_ref (task);
  job->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  dl_trainer_thread_settings_capture (&job->settings);
  job->source = dl_trainer_wake_source_new (task, return_model_job, job, "[dl] DlTrainer result");
  return job;
}

/**
 * dl_trainer_evaluate_async:
 * @self: a #DlTrainer
 * @loader: the loader of (input, target) batches to evaluate on
 * @cancellable: (nullable): a #GCancellable to stop the evaluation
 * @callback: (scope async) (closure user_data): called on the current
 *   thread-default main context when the evaluation has ended
 * @user_data: data for @callback
 *
 * Runs #DlTrainer:model over every batch of @loader on a worker thread, in
 * eval mode and without gradients (the model's mode is restored after
 * each batch), and measures #DlTrainer:loss and the accuracy, as
 * `model.eval ()` and a loop under `torch.no_grad ()` would. It may run
 * while training does: each batch runs between two training steps. Get
 * the result with dl_trainer_evaluate_finish() in @callback.
 *
 * Since: 0.1
 */
void
dl_trainer_evaluate_async (DlTrainer *self,
                           DlDataLoader *loader,
                           GCancellable *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  GError *error = NULL;
  ModelJob *job;

  g_return_if_fail (DL_IS_TRAINER (self));
  g_return_if_fail (DL_IS_DATA_LOADER (loader));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, dl_trainer_evaluate_async);
  g_task_set_name (task, "[dl] dl_trainer_evaluate_async");
  if (!dl_trainer_check_set (self->model, "evaluate", "model", &error)
      || !dl_trainer_check_set (self->loss, "evaluate", "loss", &error)
      || !dl_trainer_check_native_module (self->model, "evaluate", "model", &error)
      || !dl_trainer_check_native_module (self->loss, "evaluate", "loss", &error)
      || !dl_trainer_check_native_loader (loader, "evaluate", "loader", &error))
    {
      g_task_return_error (task, error);
      return;
    }
  job = model_job_new (task, cancellable);
  job->loader = g_object_ref (loader);
  job->thread = dl_trainer_start_thread (task, evaluate_thread, job);
  if (job->thread == NULL)
    model_job_free (job);
}

/**
 * dl_trainer_evaluate_finish:
 * @self: a #DlTrainer
 * @result: the #GAsyncResult given to the callback
 * @loss: (out) (optional): the mean loss over the loader's samples (each
 *   batch's loss weighted by its number of samples; NaN for an empty
 *   loader)
 * @accuracy: (out) (optional): the fraction of samples classified right,
 *   or NaN when the targets are not class indices
 * @error: return location for a #GError
 *
 * Gives the outcome of dl_trainer_evaluate_async().
 *
 * Returns: %TRUE with @loss and @accuracy set, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_trainer_evaluate_finish (DlTrainer *self,
                            GAsyncResult *result,
                            gdouble *loss,
                            gdouble *accuracy,
                            GError **error)
{
  g_autofree gdouble *values = NULL;

  g_return_val_if_fail (DL_IS_TRAINER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == dl_trainer_evaluate_async,
                        FALSE);
  values = g_task_propagate_pointer (G_TASK (result), error);
  if (values == NULL)
    return FALSE;
  if (loss)
    *loss = values[0];
  if (accuracy)
    *accuracy = values[1];
  return TRUE;
}

/**
 * dl_trainer_predict_async:
 * @self: a #DlTrainer
 * @input: the model's input (a batch; `unsqueeze (0)` one sample)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called on the current
 *   thread-default main context with the output
 * @user_data: data for @callback
 *
 * Runs #DlTrainer:model on @input on a worker thread, in eval mode and
 * without gradients, as `model.eval ()` and `torch.no_grad ()` would, and
 * restores the model's mode. While training runs, the prediction runs
 * between two steps, so a program can classify live as it trains. Do not
 * change @input until @callback runs. Get the output with
 * dl_trainer_predict_finish().
 *
 * Since: 0.1
 */
void
dl_trainer_predict_async (DlTrainer *self,
                          DlTensor *input,
                          GCancellable *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  GError *error = NULL;
  ModelJob *job;

  g_return_if_fail (DL_IS_TRAINER (self));
  g_return_if_fail (DL_IS_TENSOR (input));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, dl_trainer_predict_async);
  g_task_set_name (task, "[dl] dl_trainer_predict_async");
  if (!dl_trainer_check_set (self->model, "predict", "model", &error)
      || !dl_trainer_check_native_module (self->model, "predict", "model", &error))
    {
      g_task_return_error (task, error);
      return;
    }
  job = model_job_new (task, cancellable);
  job->input = g_object_ref (input);
  job->thread = dl_trainer_start_thread (task, predict_thread, job);
  if (job->thread == NULL)
    model_job_free (job);
}

/**
 * dl_trainer_predict_finish:
 * @self: a #DlTrainer
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Gives the output of dl_trainer_predict_async().
 *
 * Returns: (transfer full): the model's output, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_trainer_predict_finish (DlTrainer *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == dl_trainer_predict_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
