/* dl-trainer.c: DlTrainer, a training loop on a worker thread, and
 * DlTrainingPoint, one point of its progress.
 *
 * A job (training, an evaluation, a prediction) runs on a thread of its
 * own and touches the model only while it holds the trainer's model lock;
 * training holds it for one step at a time (forward, backward, optimizer
 * step), so an evaluation batch or a prediction runs between two steps.
 * What the worker reports (progress points, finished epochs, the end)
 * goes into a queue that the job's source on the caller's main context
 * drains, in order, when the worker wakes it: signals and the task's
 * callback all run there. The main context joins the worker before it
 * frees the job.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "dl-mutex-private.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "dl-trainer.h"
#include "dl-device-private.h"
#include "dl-dtype.h"
#include "dl-error.h"
#include "dl-node.h"
#include "dl-tensor.h"
#include "nn/dl-module-private.h"
#include "autograd/dl-autograd-private.h"
#include "dl-native-private.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-reduce.h"
#include "dl-ops-pointwise-table.h"

/* ---- DlTrainingPoint ------------------------------------------------------ */

/**
 * DlTrainingPoint:
 *
 * One point of a #DlTrainer's progress, as the #DlTrainer::progress signal
 * and #DlTrainer:history give it: the epoch and global step it was taken
 * at, that step's loss and batch accuracy, the throughput and the time
 * since training started. Its properties are read-only.
 *
 * Since: 0.1
 */
struct _DlTrainingPoint
{
  GObject parent_instance;
  guint epoch;
  guint step;
  gdouble loss;
  gdouble accuracy;
  gdouble samples_per_second;
  gdouble elapsed;
};

/**
 * DlTrainingPointClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlTrainingPoint. The type is final.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlTrainingPoint, dl_training_point, G_TYPE_OBJECT)

enum
{
  POINT_PROP_0,
  POINT_PROP_EPOCH,
  POINT_PROP_STEP,
  POINT_PROP_LOSS,
  POINT_PROP_ACCURACY,
  POINT_PROP_SAMPLES_PER_SECOND,
  POINT_PROP_ELAPSED,
  POINT_N_PROPS
};

static GParamSpec *point_properties[POINT_N_PROPS];

static void
dl_training_point_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlTrainingPoint *self = DL_TRAINING_POINT (object);

  switch (prop_id)
    {
      case POINT_PROP_EPOCH:
        g_value_set_uint (value, self->epoch);
        break;
      case POINT_PROP_STEP:
        g_value_set_uint (value, self->step);
        break;
      case POINT_PROP_LOSS:
        g_value_set_double (value, self->loss);
        break;
      case POINT_PROP_ACCURACY:
        g_value_set_double (value, self->accuracy);
        break;
      case POINT_PROP_SAMPLES_PER_SECOND:
        g_value_set_double (value, self->samples_per_second);
        break;
      case POINT_PROP_ELAPSED:
        g_value_set_double (value, self->elapsed);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_training_point_class_init (DlTrainingPointClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = dl_training_point_get_property;

  /**
   * DlTrainingPoint:epoch:
   *
   * The epoch the step belongs to, counted from 0 in each training run.
   *
   * Since: 0.1
   */
  point_properties[POINT_PROP_EPOCH]
      = g_param_spec_uint ("epoch", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * DlTrainingPoint:step:
   *
   * The global step: how many optimizer steps the training run had
   * completed when the point was taken (1 after the first).
   *
   * Since: 0.1
   */
  point_properties[POINT_PROP_STEP]
      = g_param_spec_uint ("step", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * DlTrainingPoint:loss:
   *
   * The step's loss: the loss module's value on the step's batch (its mean
   * over the batch with the usual reduction "mean").
   *
   * Since: 0.1
   */
  point_properties[POINT_PROP_LOSS]
      = g_param_spec_double ("loss", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, flags);
  /**
   * DlTrainingPoint:accuracy:
   *
   * The step's batch accuracy for classification, in [0, 1]: the fraction
   * of samples whose argmax over the model's output dimension 1 equals the
   * target class. NaN when the targets are not class indices (not of an
   * integer dtype, or of a shape that is not the output's without
   * dimension 1).
   *
   * Since: 0.1
   */
  point_properties[POINT_PROP_ACCURACY]
      = g_param_spec_double ("accuracy", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, flags);
  /**
   * DlTrainingPoint:samples-per-second:
   *
   * The throughput since the previous point (since the start of training
   * for the first): samples trained on over wall-clock seconds.
   *
   * Since: 0.1
   */
  point_properties[POINT_PROP_SAMPLES_PER_SECOND]
      = g_param_spec_double ("samples-per-second", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  /**
   * DlTrainingPoint:elapsed:
   *
   * Seconds from the start of the training run to the end of the step.
   *
   * Since: 0.1
   */
  point_properties[POINT_PROP_ELAPSED]
      = g_param_spec_double ("elapsed", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  g_object_class_install_properties (object_class, POINT_N_PROPS, point_properties);
}

static void
dl_training_point_init (DlTrainingPoint *self)
{
}

/**
 * dl_training_point_get_epoch:
 * @self: a #DlTrainingPoint
 *
 * Gives #DlTrainingPoint:epoch.
 *
 * Returns: the epoch of the point, from 0
 *
 * Since: 0.1
 */
guint
dl_training_point_get_epoch (DlTrainingPoint *self)
{
  g_return_val_if_fail (DL_IS_TRAINING_POINT (self), 0);
  return self->epoch;
}

/**
 * dl_training_point_get_step:
 * @self: a #DlTrainingPoint
 *
 * Gives #DlTrainingPoint:step.
 *
 * Returns: the number of optimizer steps completed, from 1
 *
 * Since: 0.1
 */
guint
dl_training_point_get_step (DlTrainingPoint *self)
{
  g_return_val_if_fail (DL_IS_TRAINING_POINT (self), 0);
  return self->step;
}

/**
 * dl_training_point_get_loss:
 * @self: a #DlTrainingPoint
 *
 * Gives #DlTrainingPoint:loss.
 *
 * Returns: the step's loss
 *
 * Since: 0.1
 */
gdouble
dl_training_point_get_loss (DlTrainingPoint *self)
{
  g_return_val_if_fail (DL_IS_TRAINING_POINT (self), NAN);
  return self->loss;
}

/**
 * dl_training_point_get_accuracy:
 * @self: a #DlTrainingPoint
 *
 * Gives #DlTrainingPoint:accuracy.
 *
 * Returns: the step's batch accuracy in [0, 1], or NaN when the targets
 *   are not class indices
 *
 * Since: 0.1
 */
gdouble
dl_training_point_get_accuracy (DlTrainingPoint *self)
{
  g_return_val_if_fail (DL_IS_TRAINING_POINT (self), NAN);
  return self->accuracy;
}

/**
 * dl_training_point_get_samples_per_second:
 * @self: a #DlTrainingPoint
 *
 * Gives #DlTrainingPoint:samples-per-second.
 *
 * Returns: the samples trained on per second since the previous point
 *
 * Since: 0.1
 */
gdouble
dl_training_point_get_samples_per_second (DlTrainingPoint *self)
{
  g_return_val_if_fail (DL_IS_TRAINING_POINT (self), NAN);
  return self->samples_per_second;
}

/**
 * dl_training_point_get_elapsed:
 * @self: a #DlTrainingPoint
 *
 * Gives #DlTrainingPoint:elapsed.
 *
 * Returns: the seconds from the start of training to the end of the step
 *
 * Since: 0.1
 */
gdouble
dl_training_point_get_elapsed (DlTrainingPoint *self)
{
  g_return_val_if_fail (DL_IS_TRAINING_POINT (self), NAN);
  return self->elapsed;
}

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
 * #DlTensorDataset (or use a #DlSubset of a built-in data set). An anomaly trace function (dl_autograd_set_anomaly_trace_func())
 * also runs on the worker when anomaly detection is on: do not set one
 * from a binding while training.
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
struct _DlTrainer
{
  GObject parent_instance;
  DlModule *model;
  DlModule *loss;
  DlOptimizer *optimizer;
  DlDataLoader *train_loader;
  guint epochs;
  guint max_steps;
  guint progress_interval;
  gboolean running;
  GListStore *history;

  /* the model's lock: busy while a job uses the model; training waits
   * between its steps while others (predictions, evaluation batches) wait */
  GMutex lock;
  GCond cond;
  gboolean busy;
  guint waiting;
};

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

static void
set_running (DlTrainer *self, gboolean running)
{
  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

/* ---- the model's lock --------------------------------------------------- */

/* training's turn: waits while another job uses the model or waits for it */
static void
acquire_for_step (DlTrainer *self)
{
  dl_mutex_lock (&self->lock);
  while (self->busy || self->waiting > 0)
    dl_cond_wait (&self->cond, &self->lock);
  self->busy = TRUE;
  dl_mutex_unlock (&self->lock);
}

/* an evaluation batch or a prediction: goes before training's next step */
static void
acquire_between_steps (DlTrainer *self)
{
  dl_mutex_lock (&self->lock);
  self->waiting++;
  while (self->busy)
    dl_cond_wait (&self->cond, &self->lock);
  self->waiting--;
  self->busy = TRUE;
  dl_mutex_unlock (&self->lock);
}

static void
release_model (DlTrainer *self)
{
  dl_mutex_lock (&self->lock);
  self->busy = FALSE;
  g_cond_broadcast (&self->cond);
  dl_mutex_unlock (&self->lock);
}

/* ---- what a job checks before it starts ---------------------------------- */

static gboolean
check_native_module (DlModule *module, const gchar *op, const gchar *what, GError **error)
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

static gboolean
check_native_loader (DlDataLoader *loader, const gchar *op, const gchar *what, GError **error)
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

static gboolean
check_set (gpointer object, const gchar *op, const gchar *what, GError **error)
{
  if (object != NULL)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: no %s given", op, what);
  return FALSE;
}

/* ---- one batch ----------------------------------------------------------- */

/* The settings of the calling thread that a worker takes over; the default
 * dtype, the generators and anomaly mode are process-wide already. */
typedef struct
{
  DlDevice *device; /* (nullable): the CPU */
  gint n_threads;
} ThreadSettings;

static void
thread_settings_capture (ThreadSettings *settings)
{
  DlDevice *device = dl_device_default ();

  settings->device = device == dl_device_cpu () ? NULL : device;
#ifdef _OPENMP
  settings->n_threads = omp_get_max_threads ();
#else
  settings->n_threads = 1;
#endif
}

static void
thread_settings_apply (const ThreadSettings *settings)
{
  dl_set_default_device (settings->device);
#ifdef _OPENMP
  omp_set_num_threads (settings->n_threads);
#endif
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
static gboolean
split_batch (GPtrArray *batch, DlTensor **input, DlTensor **target, const gchar *op, GError **error)
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

/* The result of one batch: its loss, its number of samples and how many
 * were classified right (-1: not a classification). */
typedef struct
{
  gdouble loss;
  gint64 n_samples;
  gint64 correct;
} BatchResult;

static gint64
batch_size_of (DlTensor *input)
{
  return dl_tensor_get_ndim (input) > 0 ? dl_tensor_get_size (input, 0, NULL) : 1;
}

/* One optimizer step on (input, target), with the model held: zero_grad,
 * forward, loss, backward, step, as a PyTorch loop writes it. */
static gboolean
train_step (DlTrainer *self, DlTensor *input, DlTensor *target, BatchResult *out, GError **error)
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
static DlTensor *
eval_batch (DlTrainer *self, DlTensor *input, DlTensor *target, BatchResult *out, GError **error)
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

static GSource *
wake_source_new (GTask *task, GSourceFunc func, gpointer data, const gchar *name)
{
  GSource *source = g_source_new (&wake_source_funcs, sizeof (GSource));

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, func, data, NULL);
  g_source_set_static_name (source, name);
  g_source_attach (source, g_task_get_context (task));
  return source;
}

static void
wake_source_free (GSource *source)
{
  g_source_destroy (source);
  g_source_unref (source);
}

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
  ThreadSettings settings;
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
  g_clear_pointer (&job->source, wake_source_free);
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
            g_list_store_append (self->history, event->point);
            g_signal_emit (self, signals[SIGNAL_PROGRESS], 0, event->point);
            break;
          case EVENT_EPOCH:
            g_signal_emit (self, signals[SIGNAL_EPOCH_FINISHED], 0, event->epoch, event->mean_loss,
                           event->accuracy);
            break;
          case EVENT_DONE:
            event_free (event);
            set_running (self, FALSE);
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
            const BatchResult *result,
            gint64 samples,
            gint64 since_us,
            gint64 now_us,
            gint64 start_us)
{
  Event *event = g_new0 (Event, 1);
  DlTrainingPoint *point = g_object_new (DL_TYPE_TRAINING_POINT, NULL);
  gdouble seconds = (now_us - since_us) / 1e6;

  point->epoch = epoch;
  point->step = step;
  point->loss = result->loss;
  point->accuracy
      = result->correct < 0 ? NAN : (gdouble)result->correct / MAX (result->n_samples, 1);
  point->samples_per_second = seconds > 0 ? samples / seconds : 0;
  point->elapsed = (now_us - start_us) / 1e6;
  event->type = EVENT_POINT;
  event->point = point;
  send_event (job, event);
}

/* ---- training ------------------------------------------------------------- */

/* where a training run stands */
typedef struct
{
  gint64 start_us;      /* when it started */
  gint64 point_us;      /* when the last point was taken */
  gint64 point_samples; /* samples trained on since */
  guint step;           /* optimizer steps completed */
  guint reported;       /* the step of the last point */
  guint last_epoch;     /* the epoch of the last step */
  BatchResult last;     /* the last step's result */
} RunState;

/* one step's bookkeeping: the epoch's sums and, every interval, a point */
static void
count_step (TrainJob *job, RunState *run, guint epoch, const BatchResult *result)
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
      BatchResult result = { 0 };
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
      if (!split_batch (batch, &input, &target, "Trainer", error))
        return FALSE;
      acquire_for_step (self);
      ok = train_step (self, input, target, &result, error);
      release_model (self);
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

  thread_settings_apply (&job->settings);
  was_enabled = dl_set_grad_enabled (TRUE);
  acquire_for_step (self);
  modes = dl_module_get_modes (self->model);
  dl_module_set_training_quietly (self->model, TRUE);
  release_model (self);

  if (!train_loop (job, self, &error))
    job->error = error;

  acquire_for_step (self);
  dl_module_set_modes_quietly (self->model, modes);
  release_model (self);
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

  if (!check_set (self->model, op, "model", error) || !check_set (self->loss, op, "loss", error)
      || !check_set (self->optimizer, op, "optimizer", error)
      || !check_set (self->train_loader, op, "train loader", error))
    return FALSE;
  if (self->epochs == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "Trainer: epochs is 0; a training run needs at least one");
      return FALSE;
    }
  if (!check_native_module (self->model, op, "model", error)
      || !check_native_module (self->loss, op, "loss", error)
      || !check_native_loader (self->train_loader, op, "train loader", error))
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

/* starts @func on a new thread, or returns @task's error; the job's
 * completion on the main context joins the thread (which has nothing
 * left to do by then but exit) */
static GThread *
start_thread (GTask *task, GThreadFunc func, gpointer data)
{
  GError *error = NULL;
  GThread *thread = g_thread_try_new ("dl-trainer", func, data, &error);

  if (thread == NULL)
    g_task_return_error (task, error);
  return thread;
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
  thread_settings_capture (&job->settings);
  job->epochs = self->epochs;
  job->max_steps = self->max_steps;
  job->interval = self->progress_interval;
  g_mutex_init (&job->lock);
  g_queue_init (&job->events);
  job->source = wake_source_new (task, deliver_events, job, "[dl] DlTrainer progress");

  g_list_store_remove_all (self->history);
  set_running (self, TRUE);
  job->thread = start_thread (task, train_thread, job);
  if (job->thread == NULL)
    {
      set_running (self, FALSE);
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

/* ---- evaluation and prediction ------------------------------------------ */

typedef struct
{
  GTask *task; /* holds the trainer and the context */
  GCancellable *cancellable;
  GThread *thread; /* the worker, joined before its results are read */
  GSource *source; /* return_model_job() on the caller's context */
  ThreadSettings settings;
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
  g_clear_pointer (&job->source, wake_source_free);
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
      BatchResult result = { 0 };

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
      if (!split_batch (batch, &input, &target, "evaluate", error))
        return FALSE;
      acquire_between_steps (self);
      output = eval_batch (self, input, target, &result, error);
      release_model (self);
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

  thread_settings_apply (&job->settings);
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

  thread_settings_apply (&job->settings);
  if (!g_cancellable_set_error_if_cancelled (job->cancellable, &error))
    {
      acquire_between_steps (self);
      job->output = eval_batch (self, job->input, NULL, NULL, &error);
      release_model (self);
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
  thread_settings_capture (&job->settings);
  job->source = wake_source_new (task, return_model_job, job, "[dl] DlTrainer result");
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
  if (!check_set (self->model, "evaluate", "model", &error)
      || !check_set (self->loss, "evaluate", "loss", &error)
      || !check_native_module (self->model, "evaluate", "model", &error)
      || !check_native_module (self->loss, "evaluate", "loss", &error)
      || !check_native_loader (loader, "evaluate", "loader", &error))
    {
      g_task_return_error (task, error);
      return;
    }
  job = model_job_new (task, cancellable);
  job->loader = g_object_ref (loader);
  job->thread = start_thread (task, evaluate_thread, job);
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
  if (!check_set (self->model, "predict", "model", &error)
      || !check_native_module (self->model, "predict", "model", &error))
    {
      g_task_return_error (task, error);
      return;
    }
  job = model_job_new (task, cancellable);
  job->input = g_object_ref (input);
  job->thread = start_thread (task, predict_thread, job);
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
