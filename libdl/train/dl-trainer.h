/* dl-trainer.h: DlTrainer, a training loop on a worker thread for main-loop
 * programs, and DlTrainingPoint, one point of its progress.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include <gio/gio.h>

#include "nn/dl-module.h"
#include "optim/dl-optimizer.h"
#include "data/dl-data-loader.h"

G_BEGIN_DECLS

#define DL_TYPE_TRAINING_POINT (dl_training_point_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlTrainingPoint, dl_training_point, DL, TRAINING_POINT, GObject)

DL_EXPORT
guint dl_training_point_get_epoch (DlTrainingPoint *self);
DL_EXPORT
guint dl_training_point_get_step (DlTrainingPoint *self);
DL_EXPORT
gdouble dl_training_point_get_loss (DlTrainingPoint *self);
DL_EXPORT
gdouble dl_training_point_get_accuracy (DlTrainingPoint *self);
DL_EXPORT
gdouble dl_training_point_get_samples_per_second (DlTrainingPoint *self);
DL_EXPORT
gdouble dl_training_point_get_elapsed (DlTrainingPoint *self);

#define DL_TYPE_TRAINER (dl_trainer_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlTrainer, dl_trainer, DL, TRAINER, GObject)

DL_EXPORT
DlTrainer *dl_trainer_new (DlModule *model,
                           DlModule *loss,
                           DlOptimizer *optimizer,
                           DlDataLoader *train_loader);
DL_EXPORT
DlModule *dl_trainer_get_model (DlTrainer *self);
DL_EXPORT
DlModule *dl_trainer_get_loss (DlTrainer *self);
DL_EXPORT
DlOptimizer *dl_trainer_get_optimizer (DlTrainer *self);
DL_EXPORT
DlDataLoader *dl_trainer_get_train_loader (DlTrainer *self);
DL_EXPORT
guint dl_trainer_get_epochs (DlTrainer *self);
DL_EXPORT
void dl_trainer_set_epochs (DlTrainer *self, guint epochs);
DL_EXPORT
guint dl_trainer_get_max_steps (DlTrainer *self);
DL_EXPORT
void dl_trainer_set_max_steps (DlTrainer *self, guint max_steps);
DL_EXPORT
guint dl_trainer_get_progress_interval (DlTrainer *self);
DL_EXPORT
void dl_trainer_set_progress_interval (DlTrainer *self, guint interval);
DL_EXPORT
gboolean dl_trainer_get_running (DlTrainer *self);
DL_EXPORT
GListModel *dl_trainer_get_history (DlTrainer *self);

DL_EXPORT
void dl_trainer_train_async (DlTrainer *self,
                             GCancellable *cancellable,
                             GAsyncReadyCallback callback,
                             gpointer user_data);
DL_EXPORT
gboolean dl_trainer_train_finish (DlTrainer *self, GAsyncResult *result, GError **error);

DL_EXPORT
void dl_trainer_evaluate_async (DlTrainer *self,
                                DlDataLoader *loader,
                                GCancellable *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer user_data);
DL_EXPORT
gboolean dl_trainer_evaluate_finish (DlTrainer *self,
                                     GAsyncResult *result,
                                     gdouble *loss,
                                     gdouble *accuracy,
                                     GError **error);

DL_EXPORT
void dl_trainer_predict_async (DlTrainer *self,
                               DlTensor *input,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data);
DL_EXPORT
DlTensor *dl_trainer_predict_finish (DlTrainer *self, GAsyncResult *result, GError **error);

G_END_DECLS
