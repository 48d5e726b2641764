/* dl-trainer.c: DlTrainer, a training loop on a worker thread: the
 * object, its properties and signals, and the lock its jobs share the
 * model through.
 *
 * A job (training, an evaluation, a prediction) runs on a thread of its
 * own and touches the model only while it holds the trainer's model lock;
 * training holds it for one step at a time (forward, backward, optimizer
 * step), so an evaluation batch or a prediction runs between two steps.
 * What the worker reports (progress points, finished epochs, the end)
 * goes into a queue that the job's source on the caller's main context
 * drains, in order, when the worker wakes it: signals and the task's
 * callback all run there. The main context joins the worker before it
 * frees the job. The jobs are in dl-trainer-train.c and
 * dl-trainer-eval.c, what they share in dl-trainer-job.c.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-trainer-private.h"

/* ---- DlTrainer ------------------------------------------------------------ */

/**
 * DlTrainer:
 *
 * A training loop for programs with a main loop (GTK applications, GJS,
 * Python with GLib): dl_trainer_train_async() runs the epochs of
 * `for input, target in loader: optimizer.zero_grad (); loss = loss_fn
 * (model (input), target); loss.backward (); optimizer.step ()` on a
 * worker thread and reports its progress on the caller's main context,
 * so the user interface never waits for a step.
 *
 * ## Signals and threads
 *
 * #DlTrainer::progress (every #DlTrainer:progress-interval steps and after
 * the last), #DlTrainer::epoch-finished, the notifications of
 * #DlTrainer:running, the points appended to #DlTrainer:history and the
 * GAsyncReadyCallback of each `_async` call are all emitted on the
 * #GMainContext that was the thread-default one when the call was made,
 * never on the worker: a GJS or Python handler runs on its own thread.
 *
 * ## Sharing the model
 *
 * The worker touches the model, the loss and the optimizer only while it
 * holds the trainer's lock, one step at a time; dl_trainer_evaluate_async()
 * (one batch at a time) and dl_trainer_predict_async() take the same lock,
 * so a program can classify while it trains: its predictions run between
 * two steps, with the model in eval mode and gradients off, and training
 * resumes in train mode after them. The worker switches the modes of the
 * model's modules without notifying #DlModule:training (a notification
 * would run the program's handlers on the worker), and each module has
 * its own mode back when a job ends.
 *
 * While a job runs, the main thread may read the trainer's own properties
 * and #DlModule:training, and keep references to the model's objects; it
 * must not run the model, change or read its parameters' values (a
 * state dict, a checkpoint), change the optimizer's options or state, or
 * iterate the loaders: do those before dl_trainer_train_async() or after
 * its callback, or through dl_trainer_predict_async().
 *
 * ## Code of language bindings
 *
 * The worker thread runs no code of a language binding: JavaScript cannot
 * run off the main thread and Python code would contend for the
 * interpreter's lock. A model or loss with a module whose forward (or a
 * forward hook) is written in Python or JavaScript, a parameter with such
 * a hook, an optimizer whose step is, or a loader whose data set loads its
 * items in one (dl_dataset_is_thread_safe() is %FALSE) makes the `_async`
 * call fail with %DL_ERROR_NOT_SUPPORTED, naming the module, parameter or
 * class. Subclasses written in C or Vala (compiled code) are fine. From
 * Python or JavaScript, build the model from libdl's modules
 * (#DlSequential, #DlLinear, ...), and wrap the samples of a data set in a
 * #DlTensorDataset (or use a #DlSubset of a built-in data set). An anomaly trace function
 * (dl_autograd_set_anomaly_trace_func()) also runs on the worker when anomaly detection is on: do
 * not set one from a binding while training.
 *
 * ## Thread settings
 *
 * The worker takes the calling thread's default device
 * (dl_set_default_device()) and its number of OpenMP threads; the default
 * dtype and the random generators are shared by all threads already (a
 * generator serialises its draws; draw nothing from a generator the
 * loader shuffles with while training, or the order depends on timing).
 * Training records gradients whatever the caller's grad mode;
 * evaluation and prediction run without gradients.
 *
 * Training a classifier for two steps and reading its accuracy on the
 * main loop:
 *
 * |[<!-- language="C" -->
 * static void
 * trained (GObject *source, GAsyncResult *result, gpointer user_data)
 * {
 *   g_autoptr (GError) error = NULL;
 *
 *   if (!dl_trainer_train_finish (DL_TRAINER (source), result, &error))
 *     g_printerr ("training failed: %s\n", error->message);
 *   g_main_loop_quit (user_data);
 * }
 *
 * static void
 * on_progress (DlTrainer *trainer, DlTrainingPoint *point, gpointer user_data)
 * {
 *   g_print ("step %u: loss %g\n", dl_training_point_get_step (point),
 *            dl_training_point_get_loss (point));
 * }
 *
 * static void
 * train_two_steps (DlModule *model, DlDataLoader *loader)
 * {
 *   g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
 *   g_autoptr (GPtrArray) params = dl_module_parameters (model);
 *   g_autoptr (DlSgd) sgd = dl_sgd_new (params, 0.1, 0, 0, 0, FALSE, NULL);
 *   g_autoptr (DlModule) loss = DL_MODULE (dl_cross_entropy_loss_new ());
 *   g_autoptr (DlTrainer) trainer
 *       = dl_trainer_new (model, loss, DL_OPTIMIZER (sgd), loader);
 *
 *   dl_trainer_set_max_steps (trainer, 2);
 *   g_signal_connect (trainer, "progress", G_CALLBACK (on_progress), NULL);
 *   dl_trainer_train_async (trainer, NULL, trained, loop);
 *   g_main_loop_run (loop);
 * }
 * ]|
 *
 * Since: 0.1
 */

/**
 * DlTrainerClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlTrainer. The type is final.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlTrainer, dl_trainer, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_LOSS,
  PROP_OPTIMIZER,
  PROP_TRAIN_LOADER,
  PROP_EPOCHS,
  PROP_MAX_STEPS,
  PROP_PROGRESS_INTERVAL,
  PROP_RUNNING,
  PROP_HISTORY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_PROGRESS,
  SIGNAL_EPOCH_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
dl_trainer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlTrainer *self = DL_TRAINER (object);

  switch (prop_id)
    {
      case PROP_MODEL:
        g_value_set_object (value, self->model);
        break;
      case PROP_LOSS:
        g_value_set_object (value, self->loss);
        break;
      case PROP_OPTIMIZER:
        g_value_set_object (value, self->optimizer);
        break;
      case PROP_TRAIN_LOADER:
        g_value_set_object (value, self->train_loader);
        break;
      case PROP_EPOCHS:
        g_value_set_uint (value, self->epochs);
        break;
      case PROP_MAX_STEPS:
        g_value_set_uint (value, self->max_steps);
        break;
      case PROP_PROGRESS_INTERVAL:
        g_value_set_uint (value, self->progress_interval);
        break;
      case PROP_RUNNING:
        g_value_set_boolean (value, self->running);
        break;
      case PROP_HISTORY:
        g_value_set_object (value, self->history);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_trainer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlTrainer *self = DL_TRAINER (object);

  switch (prop_id)
    {
      case PROP_MODEL:
        g_set_object (&self->model, g_value_get_object (value));
        break;
      case PROP_LOSS:
        g_set_object (&self->loss, g_value_get_object (value));
        break;
      case PROP_OPTIMIZER:
        g_set_object (&self->optimizer, g_value_get_object (value));
        break;
      case PROP_TRAIN_LOADER:
        g_set_object (&self->train_loader, g_value_get_object (value));
        break;
      case PROP_EPOCHS:
        dl_trainer_set_epochs (self, g_value_get_uint (value));
        break;
      case PROP_MAX_STEPS:
        dl_trainer_set_max_steps (self, g_value_get_uint (value));
        break;
      case PROP_PROGRESS_INTERVAL:
        dl_trainer_set_progress_interval (self, g_value_get_uint (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_trainer_dispose (GObject *object)
{
  DlTrainer *self = DL_TRAINER (object);

  g_clear_object (&self->model);
  g_clear_object (&self->loss);
  g_clear_object (&self->optimizer);
  g_clear_object (&self->train_loader);
  g_clear_object (&self->history);
  G_OBJECT_CLASS (dl_trainer_parent_class)->dispose (object);
}

static void
dl_trainer_finalize (GObject *object)
{
  DlTrainer *self = DL_TRAINER (object);

  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (dl_trainer_parent_class)->finalize (object);
}

static void
dl_trainer_class_init (DlTrainerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags construct_only = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY
                                     | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;
  const GParamFlags settable
      = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = dl_trainer_get_property;
  object_class->set_property = dl_trainer_set_property;
  object_class->dispose = dl_trainer_dispose;
  object_class->finalize = dl_trainer_finalize;

  /**
   * DlTrainer:model:
   *
   * The model trained, evaluated and run: its one input is a batch's
   * first tensor.
   *
   * Since: 0.1
   */
  properties[PROP_MODEL]
      = g_param_spec_object ("model", NULL, NULL, DL_TYPE_MODULE, construct_only);
  /**
   * DlTrainer:loss:
   *
   * The loss module (a #DlCrossEntropyLoss, a #DlMseLoss, ...), called as
   * loss (output, target) and giving one value.
   *
   * Since: 0.1
   */
  properties[PROP_LOSS] = g_param_spec_object ("loss", NULL, NULL, DL_TYPE_MODULE, construct_only);
  /**
   * DlTrainer:optimizer:
   *
   * The optimizer that steps after each batch's backward pass; it should
   * hold the model's parameters.
   *
   * Since: 0.1
   */
  properties[PROP_OPTIMIZER]
      = g_param_spec_object ("optimizer", NULL, NULL, DL_TYPE_OPTIMIZER, construct_only);
  /**
   * DlTrainer:train-loader:
   *
   * The loader of the training data: batches of (input, target), further
   * tensors of a batch are left out.
   *
   * Since: 0.1
   */
  properties[PROP_TRAIN_LOADER]
      = g_param_spec_object ("train-loader", NULL, NULL, DL_TYPE_DATA_LOADER, construct_only);
  /**
   * DlTrainer:epochs:
   *
   * How many passes over #DlTrainer:train-loader a training run makes
   * (0 makes dl_trainer_train_async() fail). Read when a run starts.
   *
   * Since: 0.1
   */
  properties[PROP_EPOCHS] = g_param_spec_uint ("epochs", NULL, NULL, 0, G_MAXUINT, 1, settable);
  /**
   * DlTrainer:max-steps:
   *
   * The most optimizer steps a training run takes, over all its epochs;
   * 0 for no limit. Read when a run starts.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_STEPS]
      = g_param_spec_uint ("max-steps", NULL, NULL, 0, G_MAXUINT, 0, settable);
  /**
   * DlTrainer:progress-interval:
   *
   * A #DlTrainer::progress point is reported every this many steps, and
   * after a run's last step; 0 reports none. Read when a run starts.
   *
   * Since: 0.1
   */
  properties[PROP_PROGRESS_INTERVAL]
      = g_param_spec_uint ("progress-interval", NULL, NULL, 0, G_MAXUINT, 1, settable);
  /**
   * DlTrainer:running:
   *
   * Whether a training run is under way: %TRUE from
   * dl_trainer_train_async() until just before its callback runs.
   *
   * Since: 0.1
   */
  properties[PROP_RUNNING]
      = g_param_spec_boolean ("running", NULL, NULL, FALSE,
                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlTrainer:history:
   *
   * The #DlTrainingPoint of each #DlTrainer::progress signal of the
   * current (or last) training run, in order, as a #GListModel: a chart
   * binds to it. Emptied when a run starts; items are appended on the
   * main context, just before the signal.
   *
   * Since: 0.1
   */
  properties[PROP_HISTORY]
      = g_param_spec_object ("history", NULL, NULL, G_TYPE_LIST_MODEL,
                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * DlTrainer::progress:
   * @trainer: the trainer
   * @point: the progress point, also appended to #DlTrainer:history
   *
   * Emitted on the caller's main context every #DlTrainer:progress-interval
   * optimizer steps of a training run, and after its last step.
   *
   * Since: 0.1
   */
  signals[SIGNAL_PROGRESS]
      = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                      G_TYPE_NONE, 1, DL_TYPE_TRAINING_POINT);
  /**
   * DlTrainer::epoch-finished:
   * @trainer: the trainer
   * @epoch: the epoch, from 0
   * @mean_loss: the mean loss of the epoch's samples (each batch's loss
   *   weighted by its number of samples)
   * @accuracy: the fraction of the epoch's samples classified right, or
   *   NaN as for #DlTrainingPoint:accuracy
   *
   * Emitted on the caller's main context when a training run has made a
   * whole pass over #DlTrainer:train-loader (not for a pass that
   * #DlTrainer:max-steps or cancelling cut short).
   *
   * Since: 0.1
   */
  signals[SIGNAL_EPOCH_FINISHED]
      = g_signal_new ("epoch-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
}

static void
dl_trainer_init (DlTrainer *self)
{
  self->epochs = 1;
  self->progress_interval = 1;
  self->history = g_list_store_new (DL_TYPE_TRAINING_POINT);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
}

/**
 * dl_trainer_new:
 * @model: the model to train
 * @loss: the loss module, called as loss (output, target)
 * @optimizer: the optimizer of @model's parameters
 * @train_loader: the loader of (input, target) batches
 *
 * Makes a trainer of @model, as a training loop written with these four
 * would be. Set #DlTrainer:epochs and #DlTrainer:max-steps before
 * dl_trainer_train_async().
 *
 * Returns: (transfer full): a new trainer for one epoch
 *
 * Since: 0.1
 */
DlTrainer *
dl_trainer_new (DlModule *model, DlModule *loss, DlOptimizer *optimizer, DlDataLoader *train_loader)
{
  g_return_val_if_fail (DL_IS_MODULE (model), NULL);
  g_return_val_if_fail (DL_IS_MODULE (loss), NULL);
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  g_return_val_if_fail (DL_IS_DATA_LOADER (train_loader), NULL);
  return g_object_new (DL_TYPE_TRAINER, "model", model, "loss", loss, "optimizer", optimizer,
                       "train-loader", train_loader, NULL);
}

/**
 * dl_trainer_get_model:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:model.
 *
 * Returns: (transfer none) (nullable): the model
 *
 * Since: 0.1
 */
DlModule *
dl_trainer_get_model (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), NULL);
  return self->model;
}

/**
 * dl_trainer_get_loss:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:loss.
 *
 * Returns: (transfer none) (nullable): the loss module
 *
 * Since: 0.1
 */
DlModule *
dl_trainer_get_loss (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), NULL);
  return self->loss;
}

/**
 * dl_trainer_get_optimizer:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:optimizer.
 *
 * Returns: (transfer none) (nullable): the optimizer
 *
 * Since: 0.1
 */
DlOptimizer *
dl_trainer_get_optimizer (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), NULL);
  return self->optimizer;
}

/**
 * dl_trainer_get_train_loader:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:train-loader.
 *
 * Returns: (transfer none) (nullable): the loader of the training data
 *
 * Since: 0.1
 */
DlDataLoader *
dl_trainer_get_train_loader (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), NULL);
  return self->train_loader;
}

/* sets one of the uint settings read when a run starts, and notifies it */
static void
set_setting (DlTrainer *self, guint *field, guint value, guint prop)
{
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

/**
 * dl_trainer_get_epochs:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:epochs.
 *
 * Returns: the number of epochs of a training run
 *
 * Since: 0.1
 */
guint
dl_trainer_get_epochs (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), 0);
  return self->epochs;
}

/**
 * dl_trainer_set_epochs:
 * @self: a #DlTrainer
 * @epochs: the number of passes over the training data
 *
 * Sets #DlTrainer:epochs, for the next training run.
 *
 * Since: 0.1
 */
void
dl_trainer_set_epochs (DlTrainer *self, guint epochs)
{
  g_return_if_fail (DL_IS_TRAINER (self));
  set_setting (self, &self->epochs, epochs, PROP_EPOCHS);
}

/**
 * dl_trainer_get_max_steps:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:max-steps.
 *
 * Returns: the most steps of a training run, 0 for no limit
 *
 * Since: 0.1
 */
guint
dl_trainer_get_max_steps (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), 0);
  return self->max_steps;
}

/**
 * dl_trainer_set_max_steps:
 * @self: a #DlTrainer
 * @max_steps: the most optimizer steps of a run, 0 for no limit
 *
 * Sets #DlTrainer:max-steps, for the next training run.
 *
 * Since: 0.1
 */
void
dl_trainer_set_max_steps (DlTrainer *self, guint max_steps)
{
  g_return_if_fail (DL_IS_TRAINER (self));
  set_setting (self, &self->max_steps, max_steps, PROP_MAX_STEPS);
}

/**
 * dl_trainer_get_progress_interval:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:progress-interval.
 *
 * Returns: the number of steps between two progress points
 *
 * Since: 0.1
 */
guint
dl_trainer_get_progress_interval (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), 0);
  return self->progress_interval;
}

/**
 * dl_trainer_set_progress_interval:
 * @self: a #DlTrainer
 * @interval: the steps between two progress points, 0 for none
 *
 * Sets #DlTrainer:progress-interval, for the next training run.
 *
 * Since: 0.1
 */
void
dl_trainer_set_progress_interval (DlTrainer *self, guint interval)
{
  g_return_if_fail (DL_IS_TRAINER (self));
  set_setting (self, &self->progress_interval, interval, PROP_PROGRESS_INTERVAL);
}

/**
 * dl_trainer_get_running:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:running.
 *
 * Returns: whether a training run is under way
 *
 * Since: 0.1
 */
gboolean
dl_trainer_get_running (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), FALSE);
  return self->running;
}

/**
 * dl_trainer_get_history:
 * @self: a #DlTrainer
 *
 * Gives #DlTrainer:history, the progress points of the current or last
 * training run.
 *
 * Returns: (transfer none): a #GListModel of #DlTrainingPoint
 *
 * Since: 0.1
 */
GListModel *
dl_trainer_get_history (DlTrainer *self)
{
  g_return_val_if_fail (DL_IS_TRAINER (self), NULL);
  return G_LIST_MODEL (self->history);
}

/* #DlTrainer:running, notified (on the main context) */
void
dl_trainer_set_running (DlTrainer *self, gboolean running)
{
  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

/* what a training run's events do on the main context: a point joins
 * #DlTrainer:history, then #DlTrainer::progress; #DlTrainer::epoch-finished */
void
dl_trainer_emit_progress (DlTrainer *self, DlTrainingPoint *point)
{
  g_list_store_append (self->history, point);
  g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, point);
}

void
dl_trainer_emit_epoch_finished (DlTrainer *self, guint epoch, gdouble mean_loss, gdouble accuracy)
{
  g_signal_emit (self, signals[SIGNAL_EPOCH_FINISHED], 0, epoch, mean_loss, accuracy);
}
