/* dl-training-point.c: DlTrainingPoint, one point of a training run's
 * progress.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-trainer-private.h"

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

/* A point of a training run's progress (the trainer's worker makes them) */
DlTrainingPoint *
dl_training_point_new_for_step (guint epoch,
                                guint step,
                                gdouble loss,
                                gdouble accuracy,
                                gdouble samples_per_second,
                                gdouble elapsed)
{
  DlTrainingPoint *point = g_object_new (DL_TYPE_TRAINING_POINT, NULL);

  point->epoch = epoch;
  point->step = step;
  point->loss = loss;
  point->accuracy = accuracy;
  point->samples_per_second = samples_per_second;
  point->elapsed = elapsed;
  return point;
}
