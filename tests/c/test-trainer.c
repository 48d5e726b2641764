/* test-trainer.c: DlTrainer, training on a worker thread with progress on
 * the main context, against the same loop run synchronously.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>

#include <dl.h>

#include "dl-test-utils.h"

#define N_SAMPLES 96
#define N_FEATURES 4
#define N_CLASSES 3
#define BATCH 16

static GThread *main_thread;

/* a learnable synthetic classification set: the class of a sample is the
 * index of its largest of the first three features */
static DlDataLoader *
make_loader (guint32 seed, gint n_tensors)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autofree gdouble *x = g_new (gdouble, N_SAMPLES * N_FEATURES);
  g_autofree gdouble *y = g_new (gdouble, N_SAMPLES);
  g_autoptr (DlTensor) tx = NULL;
  g_autoptr (DlTensor) ty = NULL;
  g_autoptr (DlTensorDataset) dataset = NULL;
  g_autoptr (GError) error = NULL;
  DlTensor *tensors[2];
  DlDataLoader *loader;

  for (gint i = 0; i < N_SAMPLES; i++)
    {
      gint best = 0;

      for (gint j = 0; j < N_FEATURES; j++)
        x[i * N_FEATURES + j] = g_rand_double_range (rand, -1, 1);
      for (gint j = 1; j < N_CLASSES; j++)
        if (x[i * N_FEATURES + j] > x[i * N_FEATURES + best])
          best = j;
      y[i] = best;
    }
  tx = dl_test_tensor (x, DL_TEST_SHAPE (N_SAMPLES, N_FEATURES), DL_DTYPE_FLOAT32);
  ty = dl_test_tensor (y, DL_TEST_SHAPE (N_SAMPLES), DL_DTYPE_INT64);
  tensors[0] = tx;
  tensors[1] = ty;
  dataset = dl_tensor_dataset_new (tensors, n_tensors, &error);
  g_assert_no_error (error);
  loader = dl_data_loader_new (DL_DATASET (dataset), BATCH, FALSE, &error);
  g_assert_no_error (error);
  return loader;
}

/* Linear(4, 16), ReLU, Dropout(p) , Linear(16, 3), from the default
 * generator seeded with @seed */
static DlModule *
make_model (guint64 seed, gdouble dropout, gint64 in_features)
{
  g_autoptr (GPtrArray) layers = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GError) error = NULL;
  DlModule *model;

  dl_manual_seed (seed);
  g_ptr_array_add (layers, dl_linear_new (in_features, 16, TRUE, &error));
  g_assert_no_error (error);
  g_ptr_array_add (layers, dl_relu_new (FALSE));
  g_ptr_array_add (layers, dl_dropout_layer_new (dropout, FALSE, &error));
  g_assert_no_error (error);
  g_ptr_array_add (layers, dl_linear_new (16, N_CLASSES, TRUE, &error));
  g_assert_no_error (error);
  model = DL_MODULE (dl_sequential_new (layers, &error));
  g_assert_no_error (error);
  return model;
}

static DlOptimizer *
make_sgd (DlModule *model)
{
  g_autoptr (GPtrArray) params = dl_module_parameters (model);
  g_autoptr (GError) error = NULL;
  DlOptimizer *sgd = DL_OPTIMIZER (dl_sgd_new (params, 0.2, 0.5, 0, 0, FALSE, &error));

  g_assert_no_error (error);
  return sgd;
}

typedef struct
{
  DlModule *model;
  DlModule *loss;
  DlOptimizer *optimizer;
  DlDataLoader *loader;
  DlTrainer *trainer;
  GMainLoop *loop;
  GError *error;
  gboolean finished;
  GArray *losses;       /* gdouble: the progress points' */
  GArray *epoch_losses; /* gdouble: epoch-finished's */
  guint cancel_at;      /* cancel when a point of this step arrives */
  GCancellable *cancellable;
  guint n_notify_running;
  DlTensor *predict_input;
  DlTensor *predicted;
  guint points_after_predict;
} Fixture;

static void
fixture_setup (Fixture *f, guint64 seed, gdouble dropout)
{
  f->model = make_model (seed, dropout, N_FEATURES);
  f->loss = DL_MODULE (dl_cross_entropy_loss_new ());
  f->optimizer = make_sgd (f->model);
  f->loader = make_loader (42, 2);
  f->trainer = dl_trainer_new (f->model, f->loss, f->optimizer, f->loader);
  f->loop = g_main_loop_new (NULL, FALSE);
  f->losses = g_array_new (FALSE, FALSE, sizeof (gdouble));
  f->epoch_losses = g_array_new (FALSE, FALSE, sizeof (gdouble));
  f->cancellable = g_cancellable_new ();
}

static void
fixture_teardown (Fixture *f)
{
  g_assert_finalize_object (f->trainer);
  g_clear_object (&f->model);
  g_clear_object (&f->loss);
  g_clear_object (&f->optimizer);
  g_clear_object (&f->loader);
  g_clear_object (&f->cancellable);
  g_clear_object (&f->predict_input);
  g_clear_object (&f->predicted);
  g_clear_pointer (&f->loop, g_main_loop_unref);
  g_clear_pointer (&f->losses, g_array_unref);
  g_clear_pointer (&f->epoch_losses, g_array_unref);
  g_clear_error (&f->error);
}

static void
assert_on_main_thread (void)
{
  g_assert_true (g_thread_self () == main_thread);
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
}

static void
on_predicted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Fixture *f = user_data;
  g_autoptr (GError) error = NULL;

  assert_on_main_thread ();
  f->predicted = dl_trainer_predict_finish (DL_TRAINER (source), result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->predicted);
}

static void
on_progress (DlTrainer *trainer, DlTrainingPoint *point, Fixture *f)
{
  gdouble loss = dl_training_point_get_loss (point);
  gdouble accuracy = dl_training_point_get_accuracy (point);
  GListModel *history = dl_trainer_get_history (trainer);

  assert_on_main_thread ();
  g_assert_true (dl_trainer_get_running (trainer));
  g_assert_cmpuint (dl_training_point_get_step (point), ==, f->losses->len + 1);
  g_assert_cmpuint (dl_training_point_get_epoch (point), ==, f->losses->len / (N_SAMPLES / BATCH));
  g_assert_true (isfinite (loss));
  g_assert_cmpfloat (accuracy, >=, 0);
  g_assert_cmpfloat (accuracy, <=, 1);
  g_assert_cmpfloat (dl_training_point_get_samples_per_second (point), >, 0);
  g_assert_cmpfloat (dl_training_point_get_elapsed (point), >, 0);
  /* the point is in the history before the signal */
  g_assert_cmpuint (g_list_model_get_n_items (history), ==, f->losses->len + 1);
  g_array_append_val (f->losses, loss);
  if (f->cancel_at && dl_training_point_get_step (point) == f->cancel_at)
    g_cancellable_cancel (f->cancellable);
  if (f->predict_input && f->losses->len == 2)
    dl_trainer_predict_async (trainer, f->predict_input, NULL, on_predicted, f);
  if (f->predicted)
    f->points_after_predict++;
}

static void
on_epoch_finished (DlTrainer *trainer, guint epoch, gdouble mean_loss, gdouble accuracy, Fixture *f)
{
  assert_on_main_thread ();
  g_assert_cmpuint (epoch, ==, f->epoch_losses->len);
  g_assert_cmpfloat (accuracy, >=, 0);
  g_assert_cmpfloat (accuracy, <=, 1);
  g_array_append_val (f->epoch_losses, mean_loss);
}

static void
on_running (DlTrainer *trainer, GParamSpec *pspec, Fixture *f)
{
  /* TRUE is notified in dl_trainer_train_async(), FALSE from the loop */
  g_assert_true (g_thread_self () == main_thread);
  f->n_notify_running++;
}

static void
on_trained (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Fixture *f = user_data;

  assert_on_main_thread ();
  g_assert_false (dl_trainer_get_running (DL_TRAINER (source)));
  dl_trainer_train_finish (DL_TRAINER (source), result, &f->error);
  f->finished = TRUE;
  g_main_loop_quit (f->loop);
}

static void
train (Fixture *f)
{
  g_signal_connect (f->trainer, "progress", G_CALLBACK (on_progress), f);
  g_signal_connect (f->trainer, "epoch-finished", G_CALLBACK (on_epoch_finished), f);
  g_signal_connect (f->trainer, "notify::running", G_CALLBACK (on_running), f);
  dl_trainer_train_async (f->trainer, f->cancellable, on_trained, f);
  g_assert_true (dl_trainer_get_running (f->trainer));
  g_main_loop_run (f->loop);
  g_assert_true (f->finished);
}

/* the loop dl_trainer_train_async() runs, here on the calling thread */
static void
train_sync (DlModule *model,
            DlModule *loss_fn,
            DlOptimizer *optimizer,
            DlDataLoader *loader,
            guint n_steps)
{
  g_autoptr (GError) error = NULL;
  guint step = 0;

  dl_module_set_training (model, TRUE);
  while (step < n_steps)
    {
      g_autoptr (DlDataLoaderIter) iter = dl_data_loader_iterate (loader, &error);
      GPtrArray *batch = NULL;

      g_assert_no_error (error);
      while (step < n_steps && dl_data_loader_iter_next (iter, &batch, &error))
        {
          g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
          g_autoptr (GPtrArray) outputs = NULL;
          g_autoptr (DlTensor) output = NULL;

          dl_optimizer_zero_grad (optimizer, TRUE);
          output = dl_module_forward (model, g_ptr_array_index (batch, 0), &error);
          g_assert_no_error (error);
          g_ptr_array_add (inputs, output);
          g_ptr_array_add (inputs, g_ptr_array_index (batch, 1));
          outputs = dl_module_forward_many (loss_fn, inputs, &error);
          g_assert_no_error (error);
          g_assert_true (
              dl_tensor_backward (g_ptr_array_index (outputs, 0), NULL, FALSE, FALSE, &error));
          g_assert_true (dl_optimizer_step (optimizer, &error));
          g_clear_pointer (&batch, g_ptr_array_unref);
          step++;
        }
      g_clear_pointer (&batch, g_ptr_array_unref);
      g_assert_no_error (error);
    }
}

static void
assert_same_parameters (DlModule *a, DlModule *b)
{
  g_autoptr (GPtrArray) pa = dl_module_parameters (a);
  g_autoptr (GPtrArray) pb = dl_module_parameters (b);

  g_assert_cmpuint (pa->len, ==, pb->len);
  for (guint i = 0; i < pa->len; i++)
    {
      DlTensor *ta = g_ptr_array_index (pa, i);
      g_autofree gdouble *expected = dl_test_values (g_ptr_array_index (pb, i));

      dl_test_assert_values (ta, expected, dl_tensor_numel (ta), 1e-6);
    }
}

static void
test_train_loss_decreases (void)
{
  Fixture f = { 0 };

  fixture_setup (&f, 1, 0);
  dl_trainer_set_epochs (f.trainer, 6);
  train (&f);
  g_assert_no_error (f.error);
  g_assert_cmpuint (f.losses->len, ==, 6 * N_SAMPLES / BATCH);
  g_assert_cmpuint (g_list_model_get_n_items (dl_trainer_get_history (f.trainer)), ==,
                    f.losses->len);
  g_assert_cmpuint (f.epoch_losses->len, ==, 6);
  g_assert_cmpfloat (g_array_index (f.epoch_losses, gdouble, 5), <,
                     0.8 * g_array_index (f.epoch_losses, gdouble, 0));
  g_assert_cmpuint (f.n_notify_running, ==, 2);
  /* the model's mode before training (train, as built) is back */
  g_assert_true (dl_module_get_training (f.model));
  fixture_teardown (&f);
}

/* the worker's steps give the numbers of the same loop run synchronously,
 * dropout's random draws included */
static void
test_train_matches_sync (void)
{
  Fixture f = { 0 };
  g_autoptr (DlModule) ref = make_model (3, 0.25, N_FEATURES);
  g_autoptr (DlOptimizer) ref_sgd = make_sgd (ref);

  fixture_setup (&f, 3, 0.25);
  dl_trainer_set_max_steps (f.trainer, 9);
  dl_trainer_set_epochs (f.trainer, 5);
  dl_manual_seed (7);
  train (&f);
  g_assert_no_error (f.error);
  g_assert_cmpuint (f.losses->len, ==, 9);
  /* 9 steps are one whole epoch of 6 and a cut one */
  g_assert_cmpuint (f.epoch_losses->len, ==, 1);

  dl_manual_seed (7);
  train_sync (ref, f.loss, ref_sgd, f.loader, 9);
  assert_same_parameters (f.model, ref);
  fixture_teardown (&f);
}

static void
on_point_step (DlTrainer *trainer, DlTrainingPoint *point, GArray *steps)
{
  guint step = dl_training_point_get_step (point);

  g_array_append_val (steps, step);
}

/* points every progress-interval steps and after the last; a pass that
 * max-steps ends at the loader's end is an epoch */
static void
test_train_interval (void)
{
  Fixture f = { 0 };
  g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (guint));

  fixture_setup (&f, 1, 0);
  dl_trainer_set_max_steps (f.trainer, N_SAMPLES / BATCH);
  dl_trainer_set_epochs (f.trainer, 3);
  dl_trainer_set_progress_interval (f.trainer, 4);
  g_signal_connect (f.trainer, "progress", G_CALLBACK (on_point_step), steps);
  g_signal_connect (f.trainer, "epoch-finished", G_CALLBACK (on_epoch_finished), &f);
  dl_trainer_train_async (f.trainer, NULL, on_trained, &f);
  g_main_loop_run (f.loop);
  g_assert_no_error (f.error);
  g_assert_cmpuint (steps->len, ==, 2);
  g_assert_cmpuint (g_array_index (steps, guint, 0), ==, 4);
  g_assert_cmpuint (g_array_index (steps, guint, 1), ==, N_SAMPLES / BATCH);
  g_assert_cmpuint (f.epoch_losses->len, ==, 1);
  fixture_teardown (&f);
}

/* cancelling stops between steps: the parameters are those after exactly
 * the steps the history reports */
static void
test_train_cancel (void)
{
  Fixture f = { 0 };
  g_autoptr (DlModule) ref = make_model (5, 0, N_FEATURES);
  g_autoptr (DlOptimizer) ref_sgd = make_sgd (ref);
  guint n_steps;

  fixture_setup (&f, 5, 0);
  dl_trainer_set_epochs (f.trainer, 100000);
  f.cancel_at = 3;
  train (&f);
  g_assert_error (f.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  n_steps = g_list_model_get_n_items (dl_trainer_get_history (f.trainer));
  g_assert_cmpuint (n_steps, >=, 3);
  g_assert_cmpuint (n_steps, <, 100000 * N_SAMPLES / BATCH);
  g_assert_cmpuint (n_steps, ==, f.losses->len);
  train_sync (ref, f.loss, ref_sgd, f.loader, n_steps);
  assert_same_parameters (f.model, ref);
  fixture_teardown (&f);
}

/* a cancellable cancelled before the call: no step at all */
static void
test_train_cancelled_before (void)
{
  Fixture f = { 0 };
  g_autoptr (DlModule) ref = make_model (5, 0, N_FEATURES);

  fixture_setup (&f, 5, 0);
  g_cancellable_cancel (f.cancellable);
  train (&f);
  g_assert_error (f.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (f.losses->len, ==, 0);
  assert_same_parameters (f.model, ref);
  fixture_teardown (&f);
}

static void
on_second_train (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GError **error = user_data;

  assert_on_main_thread ();
  g_assert_false (dl_trainer_train_finish (DL_TRAINER (source), result, error));
}

static void
test_train_pending (void)
{
  Fixture f = { 0 };
  GError *second = NULL;

  fixture_setup (&f, 1, 0);
  dl_trainer_set_epochs (f.trainer, 2);
  g_signal_connect (f.trainer, "progress", G_CALLBACK (on_progress), &f);
  dl_trainer_train_async (f.trainer, NULL, on_trained, &f);
  dl_trainer_train_async (f.trainer, NULL, on_second_train, &second);
  g_main_loop_run (f.loop);
  g_assert_no_error (f.error);
  g_assert_error (second, G_IO_ERROR, G_IO_ERROR_PENDING);
  g_clear_error (&second);
  g_assert_cmpuint (f.losses->len, ==, 2 * N_SAMPLES / BATCH);
  fixture_teardown (&f);
}

typedef struct
{
  GMainLoop *loop;
  gdouble loss;
  gdouble accuracy;
  DlTensor *output;
  GError *error;
} Result;

static void
on_evaluated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Result *r = user_data;

  assert_on_main_thread ();
  dl_trainer_evaluate_finish (DL_TRAINER (source), result, &r->loss, &r->accuracy, &r->error);
  g_main_loop_quit (r->loop);
}

static void
on_predicted_quit (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Result *r = user_data;

  assert_on_main_thread ();
  r->output = dl_trainer_predict_finish (DL_TRAINER (source), result, &r->error);
  g_main_loop_quit (r->loop);
}

/* evaluate and predict give the numbers of model.eval () under no_grad,
 * and leave the model in the mode they found it in */
static void
test_evaluate_predict (void)
{
  Fixture f = { 0 };
  Result r = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDataLoaderIter) iter = NULL;
  g_autoptr (DlTensor) expected = NULL;
  g_autoptr (DlTensor) input = NULL;
  GPtrArray *batch = NULL;
  gdouble loss_sum = 0, correct = 0;
  gboolean was;

  fixture_setup (&f, 11, 0.5);
  r.loop = f.loop;
  dl_trainer_set_max_steps (f.trainer, 4);
  train (&f);
  g_assert_no_error (f.error);

  /* synchronously, in eval mode without gradients */
  dl_module_set_training (f.model, FALSE);
  was = dl_set_grad_enabled (FALSE);
  iter = dl_data_loader_iterate (f.loader, &error);
  while (dl_data_loader_iter_next (iter, &batch, &error))
    {
      g_autoptr (DlTensor) output
          = dl_module_forward (f.model, g_ptr_array_index (batch, 0), &error);
      g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
      g_autoptr (GPtrArray) losses = NULL;
      g_autoptr (DlTensor) predicted = NULL;
      g_autoptr (DlTensor) equal = NULL;
      g_autoptr (DlTensor) count = NULL;

      g_assert_no_error (error);
      g_ptr_array_add (inputs, output);
      g_ptr_array_add (inputs, g_ptr_array_index (batch, 1));
      losses = dl_module_forward_many (f.loss, inputs, &error);
      g_assert_no_error (error);
      loss_sum += dl_tensor_item (g_ptr_array_index (losses, 0), &error) * BATCH;
      predicted = dl_tensor_argmax (output, 1, FALSE, &error);
      equal = dl_tensor_eq (predicted, g_ptr_array_index (batch, 1), &error);
      count = dl_tensor_sum (equal, &error);
      correct += dl_tensor_item (count, &error);
      g_assert_no_error (error);
      g_clear_pointer (&batch, g_ptr_array_unref);
    }
  g_assert_no_error (error);
  input = dl_randn (DL_TEST_SHAPE (5, N_FEATURES), DL_DTYPE_FLOAT32, NULL, &error);
  expected = dl_module_forward (f.model, input, &error);
  g_assert_no_error (error);
  dl_set_grad_enabled (was);
  dl_module_set_training (f.model, TRUE);

  dl_trainer_evaluate_async (f.trainer, f.loader, NULL, on_evaluated, &r);
  g_main_loop_run (f.loop);
  g_assert_no_error (r.error);
  g_assert_cmpfloat_with_epsilon (r.loss, loss_sum / N_SAMPLES, 1e-6);
  g_assert_cmpfloat_with_epsilon (r.accuracy, correct / N_SAMPLES, 1e-12);
  g_assert_true (dl_module_get_training (f.model));

  dl_trainer_predict_async (f.trainer, input, NULL, on_predicted_quit, &r);
  g_main_loop_run (f.loop);
  g_assert_no_error (r.error);
  g_assert_true (dl_tensor_equal (r.output, expected, &error));
  g_assert_false (dl_tensor_get_requires_grad (r.output));
  g_assert_true (dl_module_get_training (f.model));
  g_clear_object (&r.output);
  fixture_teardown (&f);
}

/* a prediction made while training runs between two steps */
static void
test_predict_while_training (void)
{
  Fixture f = { 0 };
  g_autoptr (GError) error = NULL;

  fixture_setup (&f, 1, 0.5);
  dl_trainer_set_epochs (f.trainer, 100000);
  f.predict_input = dl_randn (DL_TEST_SHAPE (2, N_FEATURES), DL_DTYPE_FLOAT32, NULL, &error);
  g_signal_connect (f.trainer, "progress", G_CALLBACK (on_progress), &f);
  dl_trainer_train_async (f.trainer, f.cancellable, on_trained, &f);
  /* cancel once the prediction is in and training went on after it */
  while (f.points_after_predict < 3)
    g_main_context_iteration (NULL, TRUE);
  g_cancellable_cancel (f.cancellable);
  g_main_loop_run (f.loop);
  g_assert_error (f.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_nonnull (f.predicted);
  dl_test_assert_shape (f.predicted, DL_TEST_SHAPE (2, N_CLASSES));
  g_assert_true (dl_module_get_training (f.model));
  fixture_teardown (&f);
}

static void
on_regression_point (DlTrainer *trainer, DlTrainingPoint *point, guint *n_points)
{
  g_assert_true (isnan (dl_training_point_get_accuracy (point)));
  g_assert_true (isfinite (dl_training_point_get_loss (point)));
  (*n_points)++;
}

static void
on_regression_epoch (DlTrainer *trainer, guint epoch, gdouble loss, gdouble accuracy, gdouble *out)
{
  g_assert_true (isnan (accuracy));
  *out = loss;
}

/* with targets that are not class indices (a regression with MSELoss),
 * accuracy is NaN; evaluate's loss is the MSE over the data */
static void
test_regression_accuracy_nan (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlModule) model = make_model (8, 0, N_FEATURES);
  g_autoptr (DlModule) mse = DL_MODULE (dl_mse_loss_new ());
  g_autoptr (DlOptimizer) sgd = make_sgd (model);
  g_autoptr (DlTensor) x
      = dl_randn (DL_TEST_SHAPE (32, N_FEATURES), DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) y = dl_randn (DL_TEST_SHAPE (32, N_CLASSES), DL_DTYPE_FLOAT32, NULL, &error);
  DlTensor *tensors[] = { x, y };
  g_autoptr (DlTensorDataset) dataset = dl_tensor_dataset_new (tensors, 2, &error);
  g_autoptr (DlDataLoader) loader = dl_data_loader_new (DL_DATASET (dataset), 8, FALSE, &error);
  g_autoptr (DlTrainer) trainer = dl_trainer_new (model, mse, sgd, loader);
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr (DlTensor) expected = NULL;
  Fixture f = { 0 };
  Result r = { 0 };
  guint n_points = 0;
  gdouble epoch_loss = NAN;
  gboolean was;

  g_assert_no_error (error);
  f.loop = r.loop = loop;
  g_signal_connect (trainer, "progress", G_CALLBACK (on_regression_point), &n_points);
  g_signal_connect (trainer, "epoch-finished", G_CALLBACK (on_regression_epoch), &epoch_loss);
  dl_trainer_train_async (trainer, NULL, on_trained, &f);
  g_main_loop_run (loop);
  g_assert_no_error (f.error);
  g_assert_cmpuint (n_points, ==, 4);
  g_assert_true (isfinite (epoch_loss));

  dl_trainer_evaluate_async (trainer, loader, NULL, on_evaluated, &r);
  g_main_loop_run (loop);
  g_assert_no_error (r.error);
  g_assert_true (isnan (r.accuracy));
  was = dl_set_grad_enabled (FALSE);
  {
    g_autoptr (DlTensor) out = dl_module_forward (model, x, &error);
    g_autoptr (DlTensor) diff = dl_tensor_sub (out, y, &error);
    g_autoptr (DlTensor) sq = dl_tensor_mul (diff, diff, &error);

    expected = dl_tensor_mean (sq, &error);
  }
  dl_set_grad_enabled (was);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (r.loss, dl_tensor_item (expected, NULL), 1e-5);
}

static void
count_notify (GObject *object, GParamSpec *pspec, guint *count)
{
  (*count)++;
}

/* a model whose dropout is frozen in eval mode keeps it so, and the
 * worker's mode switches notify no handler (it would run on the worker) */
static void
test_modes_restored_quietly (void)
{
  Fixture f = { 0 };
  Result r = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) input = NULL;
  DlModule *dropout;
  guint notified = 0;

  fixture_setup (&f, 2, 0.5);
  r.loop = f.loop;
  dropout = dl_module_get_module (f.model, "2");
  g_assert_true (DL_IS_DROPOUT (dropout));
  dl_module_set_training (dropout, FALSE);
  g_signal_connect (f.model, "notify::training", G_CALLBACK (count_notify), &notified);
  g_signal_connect (dropout, "notify::training", G_CALLBACK (count_notify), &notified);
  dl_trainer_set_max_steps (f.trainer, 3);
  train (&f);
  g_assert_no_error (f.error);
  input = dl_randn (DL_TEST_SHAPE (3, N_FEATURES), DL_DTYPE_FLOAT32, NULL, &error);
  dl_trainer_predict_async (f.trainer, input, NULL, on_predicted_quit, &r);
  g_main_loop_run (f.loop);
  g_assert_no_error (r.error);
  g_clear_object (&r.output);
  g_assert_true (dl_module_get_training (f.model));
  g_assert_false (dl_module_get_training (dropout));
  g_assert_cmpuint (notified, ==, 0);
  fixture_teardown (&f);
}

static GError *
train_error (DlTrainer *trainer)
{
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Fixture f = { 0 };

  f.loop = loop;
  dl_trainer_train_async (trainer, NULL, on_trained, &f);
  g_main_loop_run (loop);
  g_assert_false (dl_trainer_get_running (trainer));
  return f.error;
}

static void
test_errors (void)
{
  g_autoptr (DlModule) model = make_model (1, 0, N_FEATURES);
  g_autoptr (DlModule) wide = make_model (1, 0, N_FEATURES + 1);
  g_autoptr (DlModule) loss = DL_MODULE (dl_cross_entropy_loss_new ());
  g_autoptr (DlModule) loss_none
      = g_object_new (DL_TYPE_CROSS_ENTROPY_LOSS, "reduction", DL_REDUCTION_NONE, NULL);
  g_autoptr (DlOptimizer) sgd = make_sgd (model);
  g_autoptr (DlDataLoader) loader = make_loader (1, 2);
  g_autoptr (DlDataLoader) inputs_only = make_loader (1, 1);
  g_autoptr (DlTrainer) trainer = NULL;
  g_autoptr (DlTrainer) bare = g_object_new (DL_TYPE_TRAINER, NULL);
  g_autoptr (DlTrainer) no_target = dl_trainer_new (model, loss, sgd, inputs_only);
  g_autoptr (DlTrainer) bad_shape = dl_trainer_new (wide, loss, sgd, loader);
  g_autoptr (DlTrainer) per_sample = dl_trainer_new (model, loss_none, sgd, loader);
  GError *error;

  trainer = dl_trainer_new (model, loss, sgd, loader);
  dl_trainer_set_epochs (trainer, 0);
  error = train_error (trainer);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "epochs"));
  g_clear_error (&error);

  error = train_error (bare);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "no model"));
  g_clear_error (&error);

  error = train_error (no_target);
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "(input, target)"));
  g_clear_error (&error);

  error = train_error (bad_shape);
  g_assert_nonnull (error);
  g_assert_true (error->domain == DL_ERROR);
  g_clear_error (&error);

  error = train_error (per_sample);
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "reduction"));
  g_clear_error (&error);

  /* a failed run leaves the trainer ready for the next */
  dl_trainer_set_epochs (trainer, 1);
  dl_trainer_set_max_steps (trainer, 1);
  error = train_error (trainer);
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  main_thread = g_thread_self ();
  g_test_add_func ("/trainer/train/loss-decreases", test_train_loss_decreases);
  g_test_add_func ("/trainer/train/matches-sync", test_train_matches_sync);
  g_test_add_func ("/trainer/train/interval", test_train_interval);
  g_test_add_func ("/trainer/train/cancel", test_train_cancel);
  g_test_add_func ("/trainer/train/cancelled-before", test_train_cancelled_before);
  g_test_add_func ("/trainer/train/pending", test_train_pending);
  g_test_add_func ("/trainer/evaluate-predict", test_evaluate_predict);
  g_test_add_func ("/trainer/predict-while-training", test_predict_while_training);
  g_test_add_func ("/trainer/modes-restored-quietly", test_modes_restored_quietly);
  g_test_add_func ("/trainer/errors", test_errors);
  g_test_add_func ("/trainer/regression-accuracy-nan", test_regression_accuracy_nan);
  return g_test_run ();
}
