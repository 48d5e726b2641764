/* dl-trainer-job.c: what the trainer's jobs share: the model's lock,
 * the checks made before a job starts, one batch (a training step, an
 * evaluation batch), the calling thread's settings a worker takes over,
 * the source that wakes the caller's main context, the worker thread.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-trainer-private.h"

/* ---- the model's lock --------------------------------------------------- */

/* training's turn: waits while another job uses the model or waits for it */
void
dl_trainer_acquire_for_step (DlTrainer *self)
{
  dl_mutex_lock (&self->lock);
  while (self->busy || self->waiting > 0)
    dl_cond_wait (&self->cond, &self->lock);
  self->busy = TRUE;
  dl_mutex_unlock (&self->lock);
}

/* an evaluation batch or a prediction: goes before training's next step */
void
dl_trainer_acquire_between_steps (DlTrainer *self)
{
  dl_mutex_lock (&self->lock);
  self->waiting++;
  while (self->busy)
    dl_cond_wait (&self->cond, &self->lock);
  self->waiting--;
  self->busy = TRUE;
  dl_mutex_unlock (&self->lock);
}

void
dl_trainer_release_model (DlTrainer *self)
{
  dl_mutex_lock (&self->lock);
  self->busy = FALSE;
  g_cond_broadcast (&self->cond);
  dl_mutex_unlock (&self->lock);
}

/* ---- what a job checks before it starts ---------------------------------- */

gboolean
dl_trainer_check_native_module (DlModule *module,
                                const gchar *op,
                                const gchar *what,
                                GError **error)
{
  g_autofree gchar *found = dl_module_find_binding_code (module, what);
  g_autoptr (GPtrArray) params = NULL;
  g_auto (GStrv) names = NULL;

  if (found)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "%s: %s is written in a language binding, whose code cannot run on the "
                   "trainer's worker thread; build the model from libdl's modules",
                   op, found);
      return FALSE;
    }
  params = dl_module_parameters (module);
  for (guint i = 0; i < params->len; i++)
    if (!dl_tensor_hooks_are_native (g_ptr_array_index (params, i)))
      {
        names = dl_module_parameter_names (module);
        g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                     "%s: the %s's parameter '%s' has a hook written in a language binding, "
                     "whose code cannot run on the trainer's worker thread; remove it while "
                     "training",
                     op, what, names[i]);
        return FALSE;
      }
  return TRUE;
}

gboolean
dl_trainer_check_native_loader (DlDataLoader *loader,
                                const gchar *op,
                                const gchar *what,
                                GError **error)
{
  DlDataset *dataset = dl_data_loader_get_dataset (loader);

  if (dataset == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: the %s has no dataset", op, what);
      return FALSE;
    }
  if (dl_dataset_is_thread_safe (dataset))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "%s: the %s's data set (%s) loads its items in a language binding, whose code "
               "cannot run on the trainer's worker thread; wrap its samples in a "
               "DlTensorDataset",
               op, what, G_OBJECT_TYPE_NAME (dataset));
  return FALSE;
}

gboolean
dl_trainer_check_set (gpointer object, const gchar *op, const gchar *what, GError **error)
{
  if (object != NULL)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: no %s given", op, what);
  return FALSE;
}

/* ---- one batch ----------------------------------------------------------- */

void
dl_trainer_thread_settings_capture (DlTrainerThreadSettings *settings)
{
  DlDevice *device = dl_device_default ();

  settings->device = device == dl_device_cpu () ? NULL : device;
  settings->n_threads = dl_get_num_threads ();
}

void
dl_trainer_thread_settings_apply (const DlTrainerThreadSettings *settings)
{
  dl_set_default_device (settings->device);
  dl_set_num_threads (settings->n_threads, NULL); /* at least 1: captured above */
}

/* the loss module's value for (output, target) */
static DlTensor *
compute_loss (DlModule *loss_fn,
              DlTensor *output,
              DlTensor *target,
              const gchar *op,
              GError **error)
{
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr (GPtrArray) outputs = NULL;
  DlTensor *loss;

  g_ptr_array_add (inputs, output);
  g_ptr_array_add (inputs, target);
  outputs = dl_module_forward_many (loss_fn, inputs, error);
  if (outputs == NULL)
    return NULL;
  if (outputs->len < 1 || g_ptr_array_index (outputs, 0) == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: the loss module (%s) gave no output",
                   op, G_OBJECT_TYPE_NAME (loss_fn));
      return NULL;
    }
  loss = g_ptr_array_index (outputs, 0);
  if (dl_tensor_numel (loss) != 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: the loss module (%s) gave %" G_GINT64_FORMAT
                   " values; one is needed (reduction 'mean' or 'sum')",
                   op, G_OBJECT_TYPE_NAME (loss_fn), dl_tensor_numel (loss));
      return NULL;
    }
  return g_object_ref (loss);
}

/* How many samples of the batch the model classified right (argmax over
 * the output's dimension 1 equals the target), or -1 when the targets are
 * not class indices. Runs without gradients. */
static gint64
count_correct (DlTensor *output, DlTensor *target, GError **error)
{
  gsize n_out, n_target;
  const gint64 *out_shape = dl_tensor_get_shape (output, &n_out);
  const gint64 *target_shape = dl_tensor_get_shape (target, &n_target);
  g_autoptr (DlTensor) predicted = NULL;
  g_autoptr (DlTensor) target64 = NULL;
  g_autoptr (DlTensor) equal = NULL;
  g_autoptr (DlTensor) count = NULL;
  gboolean was_enabled;
  gdouble value;

  if (dl_dtype_is_floating_point (dl_tensor_get_dtype (target))
      || dl_tensor_get_dtype (target) == DL_DTYPE_BOOL || n_out != n_target + 1 || n_out < 2)
    return -1;
  /* output [N, C, d...] against target [N, d...] */
  if (out_shape[0] != target_shape[0])
    return -1;
  for (gsize i = 1; i < n_target; i++)
    if (out_shape[i + 1] != target_shape[i])
      return -1;
  was_enabled = dl_set_grad_enabled (FALSE);
  predicted = dl_tensor_argmax (output, 1, FALSE, error);
  if (predicted)
    target64 = dl_tensor_to_dtype (target, DL_DTYPE_INT64, error);
  if (target64)
    equal = dl_tensor_eq (predicted, target64, error);
  if (equal)
    count = dl_tensor_sum (equal, error);
  dl_set_grad_enabled (was_enabled);
  if (count == NULL)
    return G_MININT64;
  value = dl_tensor_item (count, error);
  return isnan (value) ? G_MININT64 : (gint64)value;
}

/* the (input, target) of a loader's batch */
gboolean
dl_trainer_split_batch (GPtrArray *batch,
                        DlTensor **input,
                        DlTensor **target,
                        const gchar *op,
                        GError **error)
{
  if (batch->len < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: a batch of the loader has %u tensor%s; (input, target) is needed", op,
                   batch->len, batch->len == 1 ? "" : "s");
      return FALSE;
    }
  *input = g_ptr_array_index (batch, 0);
  *target = g_ptr_array_index (batch, 1);
  return TRUE;
}

static gint64
batch_size_of (DlTensor *input)
{
  return dl_tensor_get_ndim (input) > 0 ? dl_tensor_get_size (input, 0, NULL) : 1;
}

/* One optimizer step on (input, target), with the model held: zero_grad,
 * forward, loss, backward, step, as a PyTorch loop writes it. */
gboolean
dl_trainer_train_step (DlTrainer *self,
                       DlTensor *input,
                       DlTensor *target,
                       DlTrainerBatchResult *out,
                       GError **error)
{
  g_autoptr (DlTensor) output = NULL;
  g_autoptr (DlTensor) loss = NULL;

  dl_optimizer_zero_grad (self->optimizer, TRUE);
  output = dl_module_forward (self->model, input, error);
  if (output == NULL)
    return FALSE;
  loss = compute_loss (self->loss, output, target, "Trainer", error);
  if (loss == NULL || !dl_tensor_backward (loss, NULL, FALSE, FALSE, error)
      || !dl_optimizer_step (self->optimizer, error))
    return FALSE;
  out->loss = dl_tensor_item (loss, error);
  if (isnan (out->loss) && error && *error)
    return FALSE;
  out->n_samples = batch_size_of (input);
  out->correct = count_correct (output, target, error);
  return out->correct != G_MININT64;
}

/* The model's output for @input in eval mode without gradients, with the
 * model held; the model's mode is restored. With @target, also the loss
 * and the count of right classifications. */
DlTensor *
dl_trainer_eval_batch (DlTrainer *self,
                       DlTensor *input,
                       DlTensor *target,
                       DlTrainerBatchResult *out,
                       GError **error)
{
  g_autoptr (GArray) modes = dl_module_get_modes (self->model);
  gboolean was_enabled = dl_set_grad_enabled (FALSE);
  g_autoptr (DlTensor) output = NULL;
  gboolean ok = TRUE;

  dl_module_set_training_quietly (self->model, FALSE);
  output = dl_module_forward (self->model, input, error);
  if (output && target)
    {
      g_autoptr (DlTensor) loss = compute_loss (self->loss, output, target, "evaluate", error);

      out->loss = loss ? dl_tensor_item (loss, error) : NAN;
      out->n_samples = batch_size_of (input);
      out->correct = loss ? count_correct (output, target, error) : G_MININT64;
      ok = loss != NULL && out->correct != G_MININT64 && !(error && *error);
    }
  dl_module_set_modes_quietly (self->model, modes);
  dl_set_grad_enabled (was_enabled);
  return ok ? g_steal_pointer (&output) : NULL;
}

/* ---- waking the caller's main context ----------------------------------- */

/* A job's source on the caller's context, attached there by the `_async`
 * call: the worker wakes it with g_source_set_ready_time() (which GLib
 * allows from any thread, and which allocates nothing), never
 * g_main_context_invoke(), which runs the function on the calling thread
 * when it can acquire the context. The job destroys it after joining the
 * worker, so the worker never holds the last reference. */
static gboolean
wake_source_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
  g_source_set_ready_time (source, -1);
  return callback (data);
}

static GSourceFuncs wake_source_funcs = { NULL, NULL, wake_source_dispatch, NULL, NULL, NULL };

GSource *
dl_trainer_wake_source_new (GTask *task, GSourceFunc func, gpointer data, const gchar *name)
{
  GSource *source = g_source_new (&wake_source_funcs, sizeof (GSource));

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, func, data, NULL);
  g_source_set_static_name (source, name);
  g_source_attach (source, g_task_get_context (task));
  return source;
}

void
dl_trainer_wake_source_free (GSource *source)
{
  g_source_destroy (source);
  g_source_unref (source);
}

/* starts @func on a new thread, or returns @task's error; the job's
 * completion on the main context joins the thread (which has nothing
 * left to do by then but exit) */
GThread *
dl_trainer_start_thread (GTask *task, GThreadFunc func, gpointer data)
{
  GError *error = NULL;
  GThread *thread = g_thread_try_new ("dl-trainer", func, data, &error);

  if (thread == NULL)
    g_task_return_error (task, error);
  return thread;
}
