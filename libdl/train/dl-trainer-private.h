/* dl-trainer-private.h: what the files of DlTrainer share.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <math.h>

#include "dl-mutex-private.h"

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

G_BEGIN_DECLS

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

/* The settings of the calling thread that a worker takes over; the default
 * dtype, the generators and anomaly mode are process-wide already. */
typedef struct
{
  DlDevice *device; /* (nullable): the CPU */
  gint n_threads;
} DlTrainerThreadSettings;

/* The result of one batch: its loss, its number of samples and how many
 * were classified right (-1: not a classification). */
typedef struct
{
  gdouble loss;
  gint64 n_samples;
  gint64 correct;
} DlTrainerBatchResult;

/* dl-trainer.c */
void dl_trainer_set_running (DlTrainer *self, gboolean running);
void dl_trainer_emit_progress (DlTrainer *self, DlTrainingPoint *point);
void
dl_trainer_emit_epoch_finished (DlTrainer *self, guint epoch, gdouble mean_loss, gdouble accuracy);

/* dl-training-point.c */
DlTrainingPoint *dl_training_point_new_for_step (guint epoch,
                                                 guint step,
                                                 gdouble loss,
                                                 gdouble accuracy,
                                                 gdouble samples_per_second,
                                                 gdouble elapsed);

/* dl-trainer-job.c */
void dl_trainer_acquire_for_step (DlTrainer *self);
void dl_trainer_acquire_between_steps (DlTrainer *self);
void dl_trainer_release_model (DlTrainer *self);
gboolean dl_trainer_check_native_module (DlModule *module,
                                         const gchar *op,
                                         const gchar *what,
                                         GError **error);
gboolean dl_trainer_check_native_loader (DlDataLoader *loader,
                                         const gchar *op,
                                         const gchar *what,
                                         GError **error);
gboolean dl_trainer_check_set (gpointer object, const gchar *op, const gchar *what, GError **error);
void dl_trainer_thread_settings_capture (DlTrainerThreadSettings *settings);
void dl_trainer_thread_settings_apply (const DlTrainerThreadSettings *settings);
gboolean dl_trainer_split_batch (GPtrArray *batch,
                                 DlTensor **input,
                                 DlTensor **target,
                                 const gchar *op,
                                 GError **error);
gboolean dl_trainer_train_step (DlTrainer *self,
                                DlTensor *input,
                                DlTensor *target,
                                DlTrainerBatchResult *out,
                                GError **error);
DlTensor *dl_trainer_eval_batch (DlTrainer *self,
                                 DlTensor *input,
                                 DlTensor *target,
                                 DlTrainerBatchResult *out,
                                 GError **error);
GSource *
dl_trainer_wake_source_new (GTask *task, GSourceFunc func, gpointer data, const gchar *name);
void dl_trainer_wake_source_free (GSource *source);
GThread *dl_trainer_start_thread (GTask *task, GThreadFunc func, gpointer data);

G_END_DECLS
