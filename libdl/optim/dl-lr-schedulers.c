/* dl-lr-schedulers.c: the epoch-based schedulers of
 * torch.optim.lr_scheduler (1.13), each with PyTorch's chainable get_lr
 * (what step() uses, so the sequences match PyTorch's to the last bit of
 * its arithmetic) and, where PyTorch has one, its closed form (what
 * step_to() uses):
 *
 *   StepLR         lr * gamma at every step_size-th epoch;
 *                  base * gamma^(epoch // step_size)
 *   MultiStepLR    lr * gamma^(times epoch is a milestone);
 *                  base * gamma^(milestones <= epoch)
 *   ExponentialLR  lr * gamma;  base * gamma^epoch
 *   CosineAnnealingLR  eta_min + (base - eta_min) (1 + cos (pi e / T_max)) / 2,
 *                  stepped by its ratio form
 *   LinearLR       base * (start + (end - start) min (e, total) / total)
 *   LambdaLR       base * lambda (group, e)
 *   OneCycleLR     cosine or linear phases up to max_lr and down to
 *                  min_lr, momentum (or Adam's beta1) the other way
 *   CosineAnnealingWarmRestarts  the cosine over periods T_0, T_0 T_mult, ...
 *   SequentialLR   one scheduler after another at milestones
 *
 * Hyperparameters are properties kept in each class's struct through one
 * table per class (dl-lr-scheduler-fields-private.h); those read-write
 * after construction are the scheduler's state dict.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gio/gio.h>

#include "dl-lr-schedulers.h"
#include "dl-lr-scheduler-private.h"
#include "dl-lr-scheduler-fields-private.h"
#include "dl-error.h"

static const gint64 *
milestones_of (GVariant *v, gsize *n)
{
  *n = 0;
  return v ? g_variant_get_fixed_array (v, n, sizeof (gint64)) : NULL;
}

static GVariant *
milestones_variant (const gint64 *milestones, gsize n)
{
  return g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, milestones, n, sizeof (gint64));
}

/* ---- StepLR ----------------------------------------------------------------- */

/**
 * DlStepLr:
 *
 * Decays each group's learning rate by #DlStepLr:gamma every
 * #DlStepLr:step-size epochs, as torch.optim.lr_scheduler.StepLR.
 *
 * Since: 0.1
 */
struct _DlStepLr
{
  DlLrScheduler parent_instance;
  gint64 step_size;
  gdouble gamma;
};

/**
 * DlStepLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlStepLr. The type is final: its class adds no
 * virtual method to that of #DlLrScheduler, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlStepLr, dl_step_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
step_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlStepLr *self = DL_STEP_LR (scheduler);
  gint64 e = epoch_of (self);

  if (e == 0 || e % self->step_size != 0)
    return lr;
  return lr * self->gamma;
}
OUT_LR (step_lr_get_lr)

static gdouble
step_lr_closed_form (DlLrScheduler *scheduler, guint group, GError **error)
{
  DlStepLr *self = DL_STEP_LR (scheduler);
  gint64 e = epoch_of (self);
  gint64 k = e >= 0 ? e / self->step_size : -((-e + self->step_size - 1) / self->step_size);

  return base_of (self, group) * pow (self->gamma, (gdouble)k);
}
OUT_CLOSED_FORM (step_lr_closed_form)

static void
step_lr_constructed (GObject *object)
{
  DlStepLr *self = DL_STEP_LR (object);

  if (self->step_size <= 0)
    dl_lr_scheduler_construct_error (
        self, "step_size must be a positive integer, got %" G_GINT64_FORMAT, self->step_size);
  G_OBJECT_CLASS (dl_step_lr_parent_class)->constructed (object);
}

static void
dl_step_lr_class_init (DlStepLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlStepLr:step-size:
     *
     * The period of the decay in epochs (> 0).
     *
     * Since: 0.1
     */
    FIELD (DlStepLr, "step-size", 'x', 1, step_size),
    /**
     * DlStepLr:gamma:
     *
     * The multiplicative factor of the decay (default 0.1).
     *
     * Since: 0.1
     */
    FIELD (DlStepLr, "gamma", 'd', 0.1, gamma),
  };

  INSTALL (klass, fields);
  G_OBJECT_CLASS (klass)->constructed = step_lr_constructed;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = step_lr_get_lr_out;
  DL_LR_SCHEDULER_CLASS (klass)->compute_closed_form_lr = step_lr_closed_form_out;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "StepLR", TRUE);
}

static void
dl_step_lr_init (DlStepLr *self)
{
}

/**
 * dl_step_lr_new:
 * @optimizer: the optimizer to schedule
 * @step_size: the period of the decay in epochs
 * @gamma: the multiplicative factor
 * @error: return location for a #GError
 *
 * Makes a scheduler that multiplies each group's learning rate by @gamma
 * every @step_size epochs, as `torch.optim.lr_scheduler.StepLR (optimizer,
 * step_size, gamma)`: lr = base_lr * gamma ^ floor (epoch / step_size). Like
 * PyTorch's, it takes its initial step on construction.
 *
 * Fails with %DL_ERROR_ARGUMENT when @step_size is not positive.
 *
 * Returns: (transfer full): a new scheduler, after its initial step, or
 *   %NULL with @error set for an invalid value
 *
 * Since: 0.1
 */
DlStepLr *
dl_step_lr_new (DlOptimizer *optimizer, gint64 step_size, gdouble gamma, GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_STEP_LR, NULL, error, "optimizer", optimizer, "step-size",
                         step_size, "gamma", gamma, NULL);
}

/* ---- MultiStepLR ----------------------------------------------------------- */

/**
 * DlMultiStepLr:
 *
 * Decays each group's learning rate by #DlMultiStepLr:gamma at each of
 * #DlMultiStepLr:milestones (a #GVariant of type "ax", epochs; a
 * milestone given twice decays twice), as
 * torch.optim.lr_scheduler.MultiStepLR.
 *
 * Since: 0.1
 */
struct _DlMultiStepLr
{
  DlLrScheduler parent_instance;
  GVariant *milestones;
  gdouble gamma;
};

/**
 * DlMultiStepLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlMultiStepLr. The type is final: its class adds
 * no virtual method to that of #DlLrScheduler, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlMultiStepLr, dl_multi_step_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
multi_step_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlMultiStepLr *self = DL_MULTI_STEP_LR (scheduler);
  gint64 e = epoch_of (self);
  gsize n;
  const gint64 *m = milestones_of (self->milestones, &n);
  gint hits = 0;

  for (gsize i = 0; i < n; i++)
    hits += m[i] == e;
  return hits ? lr * pow (self->gamma, hits) : lr;
}
OUT_LR (multi_step_lr_get_lr)

static gdouble
multi_step_lr_closed_form (DlLrScheduler *scheduler, guint group, GError **error)
{
  DlMultiStepLr *self = DL_MULTI_STEP_LR (scheduler);
  gint64 e = epoch_of (self);
  gsize n;
  const gint64 *m = milestones_of (self->milestones, &n);
  gint below = 0;

  for (gsize i = 0; i < n; i++)
    below += m[i] <= e;
  return base_of (self, group) * pow (self->gamma, below);
}
OUT_CLOSED_FORM (multi_step_lr_closed_form)

static void
dl_multi_step_lr_class_init (DlMultiStepLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlMultiStepLr:milestones:
     *
     * The epochs of the decays, a #GVariant of type "ax".
     *
     * Since: 0.1
     */
    FIELD (DlMultiStepLr, "milestones", 'v', 0, milestones),
    /**
     * DlMultiStepLr:gamma:
     *
     * The multiplicative factor of each decay (default 0.1).
     *
     * Since: 0.1
     */
    FIELD (DlMultiStepLr, "gamma", 'd', 0.1, gamma),
  };

  INSTALL (klass, fields);
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = multi_step_lr_get_lr_out;
  DL_LR_SCHEDULER_CLASS (klass)->compute_closed_form_lr = multi_step_lr_closed_form_out;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "MultiStepLR", TRUE);
}

static void
dl_multi_step_lr_init (DlMultiStepLr *self)
{
}

/**
 * dl_multi_step_lr_new:
 * @optimizer: the optimizer to schedule
 * @milestones: (array length=n_milestones): the epochs of the decays
 * @n_milestones: the number of milestones
 * @gamma: the multiplicative factor
 * @error: return location for a #GError
 *
 * Makes a scheduler that multiplies each group's learning rate by @gamma at
 * each epoch of @milestones, as `torch.optim.lr_scheduler.MultiStepLR
 * (optimizer, milestones, gamma)`. It takes its initial step on
 * construction.
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlMultiStepLr *
dl_multi_step_lr_new (DlOptimizer *optimizer,
                      const gint64 *milestones,
                      gsize n_milestones,
                      gdouble gamma,
                      GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  g_return_val_if_fail (milestones != NULL || n_milestones == 0, NULL);
  return g_initable_new (DL_TYPE_MULTI_STEP_LR, NULL, error, "optimizer", optimizer,
                         "milestones", milestones_variant (milestones, n_milestones), "gamma",
                         gamma, NULL);
}

/* ---- ExponentialLR --------------------------------------------------------- */

/**
 * DlExponentialLr:
 *
 * Decays each group's learning rate by #DlExponentialLr:gamma every
 * epoch, as torch.optim.lr_scheduler.ExponentialLR.
 *
 * Since: 0.1
 */
struct _DlExponentialLr
{
  DlLrScheduler parent_instance;
  gdouble gamma;
};

/**
 * DlExponentialLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlExponentialLr. The type is final: its class adds
 * no virtual method to that of #DlLrScheduler, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlExponentialLr, dl_exponential_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
exponential_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  return epoch_of (scheduler) == 0 ? lr : lr * DL_EXPONENTIAL_LR (scheduler)->gamma;
}
OUT_LR (exponential_lr_get_lr)

static gdouble
exponential_lr_closed_form (DlLrScheduler *scheduler, guint group, GError **error)
{
  return base_of (scheduler, group)
         * pow (DL_EXPONENTIAL_LR (scheduler)->gamma, (gdouble)epoch_of (scheduler));
}
OUT_CLOSED_FORM (exponential_lr_closed_form)

static void
dl_exponential_lr_class_init (DlExponentialLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlExponentialLr:gamma:
     *
     * The multiplicative factor of the decay per epoch (default 0.1).
     *
     * Since: 0.1
     */
    FIELD (DlExponentialLr, "gamma", 'd', 0.1, gamma),
  };

  INSTALL (klass, fields);
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = exponential_lr_get_lr_out;
  DL_LR_SCHEDULER_CLASS (klass)->compute_closed_form_lr = exponential_lr_closed_form_out;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "ExponentialLR", TRUE);
}

static void
dl_exponential_lr_init (DlExponentialLr *self)
{
}

/**
 * dl_exponential_lr_new:
 * @optimizer: the optimizer to schedule
 * @gamma: the multiplicative factor per epoch
 * @error: return location for a #GError
 *
 * Makes a scheduler that multiplies each group's learning rate by @gamma
 * every epoch, as `torch.optim.lr_scheduler.ExponentialLR (optimizer,
 * gamma)`: lr = base_lr * gamma ^ epoch. It takes its initial step on
 * construction.
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlExponentialLr *
dl_exponential_lr_new (DlOptimizer *optimizer, gdouble gamma, GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_EXPONENTIAL_LR, NULL, error, "optimizer", optimizer, "gamma",
                         gamma, NULL);
}

/* ---- CosineAnnealingLR ----------------------------------------------------- */

/**
 * DlCosineAnnealingLr:
 *
 * Anneals each group's learning rate from its base to
 * #DlCosineAnnealingLr:eta-min over #DlCosineAnnealingLr:t-max epochs
 * along a cosine (and back up over the next T_max, and so on), as
 * torch.optim.lr_scheduler.CosineAnnealingLR (Python's `T_max`).
 *
 * Since: 0.1
 */
struct _DlCosineAnnealingLr
{
  DlLrScheduler parent_instance;
  gint64 t_max;
  gdouble eta_min;
};

/**
 * DlCosineAnnealingLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlCosineAnnealingLr. The type is final: its class
 * adds no virtual method to that of #DlLrScheduler, and it cannot be
 * subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlCosineAnnealingLr, dl_cosine_annealing_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
cosine_annealing_lr_closed_form (DlLrScheduler *scheduler, guint group, GError **error)
{
  DlCosineAnnealingLr *self = DL_COSINE_ANNEALING_LR (scheduler);
  gdouble base = base_of (self, group);

  return self->eta_min
         + (base - self->eta_min) * (1 + cos (G_PI * epoch_of (self) / self->t_max)) / 2;
}
OUT_CLOSED_FORM (cosine_annealing_lr_closed_form)

static gdouble
cosine_annealing_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlCosineAnnealingLr *self = DL_COSINE_ANNEALING_LR (scheduler);
  gint64 e = epoch_of (self), t = self->t_max;
  gint64 r;

  if (e == 0)
    return lr;
  if (dl_lr_scheduler_get_step_count (scheduler) == 1 && e > 0)
    return cosine_annealing_lr_closed_form (scheduler, group, error);
  /* Python's (e - 1 - T_max) % (2 T_max), never negative */
  r = (e - 1 - t) % (2 * t);
  if (r < 0)
    r += 2 * t;
  if (r == 0)
    return lr + (base_of (self, group) - self->eta_min) * (1 - cos (G_PI / t)) / 2;
  return (1 + cos (G_PI * e / t)) / (1 + cos (G_PI * (e - 1) / t)) * (lr - self->eta_min)
         + self->eta_min;
}
OUT_LR (cosine_annealing_lr_get_lr)

static void
cosine_annealing_lr_constructed (GObject *object)
{
  DlCosineAnnealingLr *self = DL_COSINE_ANNEALING_LR (object);

  if (self->t_max <= 0)
    dl_lr_scheduler_construct_error (
        self, "T_max must be a positive integer, got %" G_GINT64_FORMAT, self->t_max);
  G_OBJECT_CLASS (dl_cosine_annealing_lr_parent_class)->constructed (object);
}

static void
dl_cosine_annealing_lr_class_init (DlCosineAnnealingLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlCosineAnnealingLr:t-max:
     *
     * The half period of the cosine, in epochs (> 0; Python's `T_max`).
     *
     * Since: 0.1
     */
    FIELD (DlCosineAnnealingLr, "t-max", 'x', 1, t_max),
    /**
     * DlCosineAnnealingLr:eta-min:
     *
     * The smallest learning rate (default 0).
     *
     * Since: 0.1
     */
    FIELD (DlCosineAnnealingLr, "eta-min", 'd', 0, eta_min),
  };

  INSTALL (klass, fields);
  G_OBJECT_CLASS (klass)->constructed = cosine_annealing_lr_constructed;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = cosine_annealing_lr_get_lr_out;
  DL_LR_SCHEDULER_CLASS (klass)->compute_closed_form_lr = cosine_annealing_lr_closed_form_out;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "CosineAnnealingLR", TRUE);
}

static void
dl_cosine_annealing_lr_init (DlCosineAnnealingLr *self)
{
}

/**
 * dl_cosine_annealing_lr_new:
 * @optimizer: the optimizer to schedule
 * @t_max: the half period in epochs
 * @eta_min: the smallest learning rate
 * @error: return location for a #GError
 *
 * Makes a scheduler that lowers each group's learning rate from its base
 * rate to @eta_min along half a cosine over @t_max epochs, as
 * `torch.optim.lr_scheduler.CosineAnnealingLR (optimizer, T_max, eta_min)`,
 * and back up over the next @t_max. It takes its initial step on
 * construction.
 *
 * Fails with %DL_ERROR_ARGUMENT when @t_max is not positive.
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlCosineAnnealingLr *
dl_cosine_annealing_lr_new (DlOptimizer *optimizer, gint64 t_max, gdouble eta_min, GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_COSINE_ANNEALING_LR, NULL, error, "optimizer", optimizer,
                         "t-max", t_max, "eta-min", eta_min, NULL);
}

/* ---- LinearLR -------------------------------------------------------------- */

/**
 * DlLinearLr:
 *
 * Scales each group's learning rate by a factor that goes linearly from
 * #DlLinearLr:start-factor to #DlLinearLr:end-factor over
 * #DlLinearLr:total-iters epochs, as torch.optim.lr_scheduler.LinearLR
 * (a warm-up).
 *
 * Since: 0.1
 */
struct _DlLinearLr
{
  DlLrScheduler parent_instance;
  gdouble start_factor;
  gdouble end_factor;
  gint64 total_iters;
};

/**
 * DlLinearLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlLinearLr. The type is final: its class adds no
 * virtual method to that of #DlLrScheduler, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlLinearLr, dl_linear_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
linear_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlLinearLr *self = DL_LINEAR_LR (scheduler);
  gint64 e = epoch_of (self);
  gdouble s = self->start_factor, d = self->end_factor - self->start_factor;

  if (e == 0)
    return lr * s;
  if (e > self->total_iters)
    return lr;
  /* PyTorch divides by zero the same way (a start factor of 0 at epoch 1)
   * and raises ZeroDivisionError */
  if (self->total_iters * s + (e - 1) * d == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "LinearLR: division by zero (start_factor %g at epoch %" G_GINT64_FORMAT ")", s,
                   e);
      return NAN;
    }
  return lr * (1. + d / (self->total_iters * s + (e - 1) * d));
}
OUT_LR (linear_lr_get_lr)

static gdouble
linear_lr_closed_form (DlLrScheduler *scheduler, guint group, GError **error)
{
  DlLinearLr *self = DL_LINEAR_LR (scheduler);
  gint64 e = MIN (self->total_iters, epoch_of (self));

  if (self->total_iters == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED, "LinearLR: division by zero (total_iters 0)");
      return NAN;
    }
  return base_of (self, group)
         * (self->start_factor
            + (self->end_factor - self->start_factor) * e / (gdouble)self->total_iters);
}
OUT_CLOSED_FORM (linear_lr_closed_form)

static void
linear_lr_constructed (GObject *object)
{
  DlLinearLr *self = DL_LINEAR_LR (object);

  /* torch 1.13's checks and messages: a start factor of 0 is allowed */
  if (!(self->start_factor >= 0 && self->start_factor <= 1))
    dl_lr_scheduler_construct_error (
        self, "Starting multiplicative factor expected to be between 0 and 1.");
  else if (!(self->end_factor >= 0 && self->end_factor <= 1))
    dl_lr_scheduler_construct_error (
        self, "Ending multiplicative factor expected to be between 0 and 1.");
  G_OBJECT_CLASS (dl_linear_lr_parent_class)->constructed (object);
}

static void
dl_linear_lr_class_init (DlLinearLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlLinearLr:start-factor:
     *
     * The factor at epoch 0, in [0, 1] (default 1/3). With 0, the first
     * dl_lr_scheduler_step() fails with a division by zero, as PyTorch's.
     *
     * Since: 0.1
     */
    FIELD (DlLinearLr, "start-factor", 'd', 1.0 / 3, start_factor),
    /**
     * DlLinearLr:end-factor:
     *
     * The factor from #DlLinearLr:total-iters on, in [0, 1] (default 1).
     *
     * Since: 0.1
     */
    FIELD (DlLinearLr, "end-factor", 'd', 1.0, end_factor),
    /**
     * DlLinearLr:total-iters:
     *
     * The number of epochs of the ramp (default 5).
     *
     * Since: 0.1
     */
    FIELD (DlLinearLr, "total-iters", 'x', 5, total_iters),
  };

  INSTALL (klass, fields);
  G_OBJECT_CLASS (klass)->constructed = linear_lr_constructed;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = linear_lr_get_lr_out;
  DL_LR_SCHEDULER_CLASS (klass)->compute_closed_form_lr = linear_lr_closed_form_out;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "LinearLR", TRUE);
}

static void
dl_linear_lr_init (DlLinearLr *self)
{
}

/**
 * dl_linear_lr_new:
 * @optimizer: the optimizer to schedule
 * @start_factor: the factor at epoch 0
 * @end_factor: the factor at the end of the ramp
 * @total_iters: the length of the ramp in epochs
 * @error: return location for a #GError
 *
 * Makes a scheduler that multiplies each group's base learning rate by a
 * factor going linearly from @start_factor to @end_factor over @total_iters
 * epochs and staying there, as `torch.optim.lr_scheduler.LinearLR
 * (optimizer, start_factor, end_factor, total_iters)`: a warm-up. It takes
 * its initial step on construction.
 *
 * Fails with %DL_ERROR_ARGUMENT when @start_factor or @end_factor is outside
 * [0, 1].
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlLinearLr *
dl_linear_lr_new (DlOptimizer *optimizer,
                  gdouble start_factor,
                  gdouble end_factor,
                  gint64 total_iters,
                  GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_LINEAR_LR, NULL, error, "optimizer", optimizer, "start-factor",
                         start_factor, "end-factor", end_factor, "total-iters", total_iters, NULL);
}

/* ---- LambdaLR -------------------------------------------------------------- */

/**
 * DlLambdaLr:
 *
 * Sets each group's learning rate to its base learning rate times a
 * function of the group and the epoch, as
 * torch.optim.lr_scheduler.LambdaLR. dl_lambda_lr_new() takes the
 * function; built from properties (GJS's `new Dl.LambdaLr({optimizer})`),
 * it takes it from dl_lambda_lr_set_lambda(), and its initial step comes
 * with g_initable_init().
 *
 * Since: 0.1
 */
struct _DlLambdaLr
{
  DlLrScheduler parent_instance;
  DlLrLambdaSlot lr_lambda;
};

/**
 * DlLambdaLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlLambdaLr. The type is final: its class adds no
 * virtual method to that of #DlLrScheduler, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlLambdaLr, dl_lambda_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
lambda_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlLambdaLr *self = DL_LAMBDA_LR (scheduler);

  return base_of (self, group)
         * dl_lr_lambda_slot_call (&self->lr_lambda, self, group, epoch_of (self), "lr_lambda",
                                   "dl_lambda_lr_set_lambda", error);
}
OUT_LR (lambda_lr_get_lr)

static void
lambda_lr_finalize (GObject *object)
{
  dl_lr_lambda_slot_set (&DL_LAMBDA_LR (object)->lr_lambda, NULL, NULL, NULL);
  G_OBJECT_CLASS (dl_lambda_lr_parent_class)->finalize (object);
}

static void
dl_lambda_lr_class_init (DlLambdaLrClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lambda_lr_finalize;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = lambda_lr_get_lr_out;
  /* the function comes after construction: the initial step waits for
   * g_initable_init() */
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "LambdaLR", FALSE);
}

static void
dl_lambda_lr_init (DlLambdaLr *self)
{
}

/**
 * dl_lambda_lr_set_lambda:
 * @self: a #DlLambdaLr
 * @lr_lambda: (scope notified) (closure user_data) (destroy destroy): the
 *   factor as a function of the group and the epoch
 * @user_data: data for @lr_lambda
 * @destroy: (nullable): frees @user_data
 *
 * Sets the function (replacing any earlier one).
 *
 * Since: 0.1
 */
void
dl_lambda_lr_set_lambda (DlLambdaLr *self,
                         DlLrLambda lr_lambda,
                         gpointer user_data,
                         GDestroyNotify destroy)
{
  g_return_if_fail (DL_IS_LAMBDA_LR (self));
  dl_lr_lambda_slot_set (&self->lr_lambda, lr_lambda, user_data, destroy);
}

/**
 * dl_lambda_lr_new:
 * @optimizer: the optimizer to schedule
 * @lr_lambda: (scope notified) (closure user_data) (destroy destroy): the
 *   factor as a function of the group and the epoch
 * @user_data: data for @lr_lambda
 * @destroy: (nullable): frees @user_data
 * @error: return location for a #GError
 *
 * Makes a scheduler that sets each group's learning rate to its base rate
 * times the factor @lr_lambda gives for the group and the epoch, as
 * `torch.optim.lr_scheduler.LambdaLR (optimizer, lr_lambda)`. The scheduler
 * keeps @lr_lambda until it is finalized, then calls @destroy on @user_data.
 * It takes its initial step, calling @lr_lambda for epoch 0, on
 * construction.
 *
 * Fails with the error @lr_lambda reports for that first call, if any.
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlLambdaLr *
dl_lambda_lr_new (DlOptimizer *optimizer,
                  DlLrLambda lr_lambda,
                  gpointer user_data,
                  GDestroyNotify destroy,
                  GError **error)
{
  g_autoptr (DlLambdaLr) self = NULL;

  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  self = g_object_new (DL_TYPE_LAMBDA_LR, "optimizer", optimizer, NULL);
  dl_lambda_lr_set_lambda (self, lr_lambda, user_data, destroy);
  if (!g_initable_init (G_INITABLE (self), NULL, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* ---- OneCycleLR ------------------------------------------------------------ */

/**
 * DlOneCycleLr:
 *
 * The 1cycle policy, as torch.optim.lr_scheduler.OneCycleLR: each group's
 * learning rate goes from max_lr / #DlOneCycleLr:div-factor up to max_lr
 * over the first #DlOneCycleLr:pct-start of #DlOneCycleLr:total-steps,
 * then down to that / #DlOneCycleLr:final-div-factor (with
 * #DlOneCycleLr:three-phase, back to the start first), along cosines or
 * lines (#DlOneCycleLr:anneal-strategy, "cos" or "linear"); with
 * #DlOneCycleLr:cycle-momentum the groups' "momentum" (or Adam's
 * "beta1") goes the other way between #DlOneCycleLr:max-momentum and
 * #DlOneCycleLr:base-momentum. #DlOneCycleLr:max-lr sets every group's
 * peak; 0 takes each group's "max_lr" option (Python's list of max_lr).
 * Likewise a negative #DlOneCycleLr:max-momentum or
 * #DlOneCycleLr:base-momentum takes each group's "max_momentum" or
 * "base_momentum" option.
 * Stepping past total-steps is an error.
 *
 * Since: 0.1
 */
struct _DlOneCycleLr
{
  DlLrScheduler parent_instance;
  gdouble max_lr;
  gint64 total_steps;
  gint64 epochs;
  gint64 steps_per_epoch;
  gdouble pct_start;
  gchar *anneal_strategy;
  gboolean cycle_momentum;
  gdouble base_momentum;
  gdouble max_momentum;
  gdouble div_factor;
  gdouble final_div_factor;
  gboolean three_phase;
  gboolean use_beta1;
};

/**
 * DlOneCycleLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlOneCycleLr. The type is final: its class adds no
 * virtual method to that of #DlLrScheduler, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlOneCycleLr, dl_one_cycle_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
anneal (DlOneCycleLr *self, gdouble start, gdouble end, gdouble pct)
{
  if (strcmp (self->anneal_strategy, "cos") == 0)
    return end + (start - end) / 2.0 * (cos (G_PI * pct) + 1);
  return (end - start) * pct + start;
}

static gdouble
one_cycle_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlOneCycleLr *self = DL_ONE_CYCLE_LR (scheduler);
  gint64 step = epoch_of (self);
  gdouble total = (gdouble)self->total_steps, pct = self->pct_start;
  /* end step, lr from, lr to, momentum from, momentum to */
  struct
  {
    gdouble end;
    const gchar *lr0, *lr1, *m0, *m1;
  } phases[3];
  guint n_phases;
  gdouble start = 0, out = lr;

  if (step > self->total_steps)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "OneCycleLR: Tried to step %" G_GINT64_FORMAT
                   " times. The specified number of total steps is %" G_GINT64_FORMAT,
                   step + 1, self->total_steps);
      return 0;
    }
  if (self->three_phase)
    {
      phases[0].end = pct * total - 1;
      phases[0].lr0 = "initial_lr", phases[0].lr1 = "max_lr";
      phases[0].m0 = "max_momentum", phases[0].m1 = "base_momentum";
      phases[1].end = 2 * pct * total - 2;
      phases[1].lr0 = "max_lr", phases[1].lr1 = "initial_lr";
      phases[1].m0 = "base_momentum", phases[1].m1 = "max_momentum";
      phases[2].end = total - 1;
      phases[2].lr0 = "initial_lr", phases[2].lr1 = "min_lr";
      phases[2].m0 = "max_momentum", phases[2].m1 = "max_momentum";
      n_phases = 3;
    }
  else
    {
      phases[0].end = pct * total - 1;
      phases[0].lr0 = "initial_lr", phases[0].lr1 = "max_lr";
      phases[0].m0 = "max_momentum", phases[0].m1 = "base_momentum";
      phases[1].end = total - 1;
      phases[1].lr0 = "max_lr", phases[1].lr1 = "min_lr";
      phases[1].m0 = "base_momentum", phases[1].m1 = "max_momentum";
      n_phases = 2;
    }
  for (guint i = 0; i < n_phases; i++)
    {
      if (step <= phases[i].end || i == n_phases - 1)
        {
          gdouble p = (step - start) / (phases[i].end - start);

          out = anneal (self, group_option (self, group, phases[i].lr0),
                        group_option (self, group, phases[i].lr1), p);
          if (self->cycle_momentum)
            dl_optimizer_set_group_option (
                optimizer_of (self), group, self->use_beta1 ? "beta1" : "momentum",
                anneal (self, group_option (self, group, phases[i].m0),
                        group_option (self, group, phases[i].m1), p),
                NULL);
          break;
        }
      start = phases[i].end;
    }
  return out;
}
OUT_LR (one_cycle_lr_get_lr)

static void
one_cycle_lr_constructed (GObject *object)
{
  DlOneCycleLr *self = DL_ONE_CYCLE_LR (object);
  DlOptimizer *optimizer = optimizer_of (self);
  GError *missing = NULL;

  if (optimizer == NULL)
    goto chain;
  if (self->total_steps == 0 && self->epochs == 0 && self->steps_per_epoch == 0)
    {
      dl_lr_scheduler_construct_error (
          self, "You must define either total_steps OR (epochs AND steps_per_epoch)");
      goto chain;
    }
  if (self->total_steps != 0)
    {
      if (self->total_steps < 0)
        {
          dl_lr_scheduler_construct_error (
              self, "Expected positive integer total_steps, but got %" G_GINT64_FORMAT,
              self->total_steps);
          goto chain;
        }
    }
  else
    {
      if (self->epochs <= 0)
        {
          dl_lr_scheduler_construct_error (
              self, "Expected positive integer epochs, but got %" G_GINT64_FORMAT, self->epochs);
          goto chain;
        }
      if (self->steps_per_epoch <= 0)
        {
          dl_lr_scheduler_construct_error (
              self, "Expected positive integer steps_per_epoch, but got %" G_GINT64_FORMAT,
              self->steps_per_epoch);
          goto chain;
        }
      self->total_steps = self->epochs * self->steps_per_epoch;
    }
  if (!(self->pct_start >= 0 && self->pct_start <= 1))
    {
      dl_lr_scheduler_construct_error (self, "Expected float between 0 and 1 pct_start, but got %g",
                                       self->pct_start);
      goto chain;
    }
  if (g_strcmp0 (self->anneal_strategy, "cos") != 0
      && g_strcmp0 (self->anneal_strategy, "linear") != 0)
    {
      dl_lr_scheduler_construct_error (
          self, "anneal_strategy must by one of 'cos' or 'linear', instead got %s",
          self->anneal_strategy ? self->anneal_strategy : "NULL");
      goto chain;
    }
  if (self->cycle_momentum)
    {
      gdouble unused = dl_optimizer_get_group_option (optimizer, 0, "beta1", &missing);

      (void)unused;
      self->use_beta1 = missing == NULL;
      g_clear_error (&missing);
      if (!self->use_beta1)
        {
          dl_optimizer_get_group_option (optimizer, 0, "momentum", &missing);
          if (missing)
            {
              g_clear_error (&missing);
              dl_lr_scheduler_construct_error (
                  self, "optimizer must support momentum with `cycle_momentum` option "
                        "enabled");
              goto chain;
            }
        }
    }
  for (guint i = 0; i < dl_optimizer_get_n_param_groups (optimizer); i++)
    {
      gdouble max_lr = self->max_lr;

      if (max_lr == 0)
        {
          max_lr = dl_optimizer_get_group_option (optimizer, i, "max_lr", &missing);
          if (missing)
            {
              g_clear_error (&missing);
              dl_lr_scheduler_construct_error (self, "max_lr is required (for parameter group %u)",
                                               i);
              goto chain;
            }
        }
      dl_optimizer_set_group_option (optimizer, i, "initial_lr", max_lr / self->div_factor, NULL);
      dl_optimizer_set_group_option (optimizer, i, "max_lr", max_lr, NULL);
      dl_optimizer_set_group_option (optimizer, i, "min_lr",
                                     max_lr / self->div_factor / self->final_div_factor, NULL);
      if (self->cycle_momentum)
        {
          gdouble max_m = self->max_momentum, base_m = self->base_momentum;

          /* negative: the group's own (Python's lists of momentums) */
          if (max_m < 0)
            max_m = dl_optimizer_get_group_option (optimizer, i, "max_momentum", &missing);
          if (missing == NULL && base_m < 0)
            base_m = dl_optimizer_get_group_option (optimizer, i, "base_momentum", &missing);
          if (missing)
            {
              g_clear_error (&missing);
              dl_lr_scheduler_construct_error (
                  self,
                  "max_momentum and base_momentum are required (for parameter "
                  "group %u)",
                  i);
              goto chain;
            }
          dl_optimizer_set_group_option (optimizer, i, self->use_beta1 ? "beta1" : "momentum",
                                         max_m, NULL);
          dl_optimizer_set_group_option (optimizer, i, "max_momentum", max_m, NULL);
          dl_optimizer_set_group_option (optimizer, i, "base_momentum", base_m, NULL);
        }
    }
chain:
  G_OBJECT_CLASS (dl_one_cycle_lr_parent_class)->constructed (object);
}

static void
dl_one_cycle_lr_class_init (DlOneCycleLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlOneCycleLr:max-lr:
     *
     * The peak learning rate of every group; 0 (the default) takes each
     * group's "max_lr" option.
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "max-lr", 'd', 0, max_lr),
    /**
     * DlOneCycleLr:total-steps:
     *
     * The number of steps of the cycle; 0 (the default) takes
     * #DlOneCycleLr:epochs times #DlOneCycleLr:steps-per-epoch.
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "total-steps", 'x', 0, total_steps),
    /**
     * DlOneCycleLr:epochs:
     *
     * The number of epochs, with #DlOneCycleLr:steps-per-epoch, when
     * #DlOneCycleLr:total-steps is 0.
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "epochs", 'x', 0, epochs),
    /**
     * DlOneCycleLr:steps-per-epoch:
     *
     * The number of steps per epoch (see #DlOneCycleLr:epochs).
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "steps-per-epoch", 'x', 0, steps_per_epoch),
    /**
     * DlOneCycleLr:pct-start:
     *
     * The fraction of the cycle spent increasing the learning rate, in
     * [0, 1] (default 0.3).
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "pct-start", 'd', 0.3, pct_start),
    /**
     * DlOneCycleLr:anneal-strategy:
     *
     * "cos" (the default) or "linear".
     *
     * Since: 0.1
     */
    { "anneal-strategy", 's', 0, "cos", G_STRUCT_OFFSET (DlOneCycleLr, anneal_strategy), FALSE },
    /**
     * DlOneCycleLr:cycle-momentum:
     *
     * Whether the momentum (or beta1) cycles too (default %TRUE).
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "cycle-momentum", 'b', 1, cycle_momentum),
    /**
     * DlOneCycleLr:base-momentum:
     *
     * The momentum at the learning rate's peak (default 0.85); negative:
     * each group's "base_momentum" option.
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "base-momentum", 'd', 0.85, base_momentum),
    /**
     * DlOneCycleLr:max-momentum:
     *
     * The momentum at the cycle's ends (default 0.95); negative: each
     * group's "max_momentum" option.
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "max-momentum", 'd', 0.95, max_momentum),
    /**
     * DlOneCycleLr:div-factor:
     *
     * The initial learning rate is max_lr / div_factor (default 25).
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "div-factor", 'd', 25, div_factor),
    /**
     * DlOneCycleLr:final-div-factor:
     *
     * The last learning rate is the initial one / final_div_factor
     * (default 1e4).
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "final-div-factor", 'd', 1e4, final_div_factor),
    /**
     * DlOneCycleLr:three-phase:
     *
     * Go back to the initial learning rate before the final decay
     * (default %FALSE).
     *
     * Since: 0.1
     */
    FIELD (DlOneCycleLr, "three-phase", 'b', 0, three_phase),
  };

  INSTALL (klass, fields);
  G_OBJECT_CLASS (klass)->constructed = one_cycle_lr_constructed;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = one_cycle_lr_get_lr_out;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "OneCycleLR", TRUE);
}

static void
dl_one_cycle_lr_init (DlOneCycleLr *self)
{
}

/**
 * dl_one_cycle_lr_new:
 * @optimizer: the optimizer to schedule
 * @max_lr: the peak learning rate of every group
 * @total_steps: the number of steps of the cycle
 * @error: return location for a #GError
 *
 * A 1cycle scheduler with PyTorch's defaults for the other properties.
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlOneCycleLr *
dl_one_cycle_lr_new (DlOptimizer *optimizer, gdouble max_lr, gint64 total_steps, GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_ONE_CYCLE_LR, NULL, error, "optimizer", optimizer, "max-lr",
                         max_lr, "total-steps", total_steps, NULL);
}

/* ---- CosineAnnealingWarmRestarts ---------------------------------------------- */

/**
 * DlCosineAnnealingWarmRestarts:
 *
 * Cosine annealing with warm restarts (SGDR), as
 * torch.optim.lr_scheduler.CosineAnnealingWarmRestarts: the first period
 * is #DlCosineAnnealingWarmRestarts:t-0 epochs, each next one
 * #DlCosineAnnealingWarmRestarts:t-mult times longer; the counters
 * #DlCosineAnnealingWarmRestarts:t-i and #DlCosineAnnealingWarmRestarts:t-cur
 * are its state. dl_lr_scheduler_step_to() takes fractional epochs.
 *
 * Since: 0.1
 */
struct _DlCosineAnnealingWarmRestarts
{
  DlLrScheduler parent_instance;
  gint64 t_0;
  gint64 t_mult;
  gdouble eta_min;
  gint64 t_i;
  gdouble t_cur;
};

/**
 * DlCosineAnnealingWarmRestartsClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlCosineAnnealingWarmRestarts. The type is final:
 * its class adds no virtual method to that of #DlLrScheduler, and it cannot
 * be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlCosineAnnealingWarmRestarts,
                     dl_cosine_annealing_warm_restarts,
                     DL_TYPE_LR_SCHEDULER)

static gdouble
warm_restarts_closed_form (DlLrScheduler *scheduler, guint group, GError **error)
{
  DlCosineAnnealingWarmRestarts *self = DL_COSINE_ANNEALING_WARM_RESTARTS (scheduler);

  return self->eta_min
         + (base_of (self, group) - self->eta_min) * (1 + cos (G_PI * self->t_cur / self->t_i))
               / 2;
}
OUT_CLOSED_FORM (warm_restarts_closed_form)

static gdouble
warm_restarts_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  return warm_restarts_closed_form (scheduler, group, error);
}
OUT_LR (warm_restarts_get_lr)

static gboolean
warm_restarts_apply (DlLrScheduler *scheduler, GError **error)
{
  guint n = dl_optimizer_get_n_param_groups (optimizer_of (scheduler));
  g_autofree gdouble *lrs = g_new (gdouble, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    lrs[i] = warm_restarts_closed_form (scheduler, i, NULL);
  return dl_lr_scheduler_apply_lrs (scheduler, lrs, n, error);
}

static gboolean
warm_restarts_step_to (DlLrScheduler *scheduler, gdouble epoch, GError **error)
{
  DlCosineAnnealingWarmRestarts *self = DL_COSINE_ANNEALING_WARM_RESTARTS (scheduler);

  if (!(epoch >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "CosineAnnealingWarmRestarts: Expected non-negative epoch, but got %g", epoch);
      return FALSE;
    }
  if (epoch >= self->t_0)
    {
      if (self->t_mult == 1)
        self->t_cur = fmod (epoch, (gdouble)self->t_0);
      else
        {
          gint64 n = (gint64)(log (epoch / self->t_0 * (self->t_mult - 1) + 1) / log (self->t_mult));
          gdouble power = pow (self->t_mult, n);

          self->t_cur = epoch - self->t_0 * (power - 1) / (self->t_mult - 1);
          self->t_i = self->t_0 * (gint64)power;
        }
    }
  else
    {
      self->t_i = self->t_0;
      self->t_cur = epoch;
    }
  dl_lr_scheduler_count_step (scheduler);
  dl_lr_scheduler_set_last_epoch (scheduler, (gint64)floor (epoch));
  return warm_restarts_apply (scheduler, error);
}

static gboolean
warm_restarts_step (DlLrScheduler *scheduler, GError **error)
{
  DlCosineAnnealingWarmRestarts *self = DL_COSINE_ANNEALING_WARM_RESTARTS (scheduler);
  gint64 last = epoch_of (self);

  if (last < 0)
    return warm_restarts_step_to (scheduler, 0, error);
  self->t_cur += 1;
  if (self->t_cur >= self->t_i)
    {
      self->t_cur -= self->t_i;
      self->t_i *= self->t_mult;
    }
  dl_lr_scheduler_count_step (scheduler);
  dl_lr_scheduler_set_last_epoch (scheduler, last + 1);
  return warm_restarts_apply (scheduler, error);
}

static void
warm_restarts_constructed (GObject *object)
{
  DlCosineAnnealingWarmRestarts *self = DL_COSINE_ANNEALING_WARM_RESTARTS (object);

  if (self->t_0 <= 0)
    dl_lr_scheduler_construct_error (
        self, "Expected positive integer T_0, but got %" G_GINT64_FORMAT, self->t_0);
  else if (self->t_mult < 1)
    dl_lr_scheduler_construct_error (
        self, "Expected integer T_mult >= 1, but got %" G_GINT64_FORMAT, self->t_mult);
  self->t_i = self->t_0;
  self->t_cur = (gdouble)epoch_of (self);
  G_OBJECT_CLASS (dl_cosine_annealing_warm_restarts_parent_class)->constructed (object);
}

static void
dl_cosine_annealing_warm_restarts_class_init (DlCosineAnnealingWarmRestartsClass *klass)
{
  static const Field fields[] = {
    /**
     * DlCosineAnnealingWarmRestarts:t-0:
     *
     * The length of the first period in epochs (> 0; Python's `T_0`).
     *
     * Since: 0.1
     */
    FIELD (DlCosineAnnealingWarmRestarts, "t-0", 'x', 1, t_0),
    /**
     * DlCosineAnnealingWarmRestarts:t-mult:
     *
     * The factor by which each period is longer than the last (>= 1,
     * default 1; Python's `T_mult`).
     *
     * Since: 0.1
     */
    FIELD (DlCosineAnnealingWarmRestarts, "t-mult", 'x', 1, t_mult),
    /**
     * DlCosineAnnealingWarmRestarts:eta-min:
     *
     * The smallest learning rate (default 0).
     *
     * Since: 0.1
     */
    FIELD (DlCosineAnnealingWarmRestarts, "eta-min", 'd', 0, eta_min),
    /**
     * DlCosineAnnealingWarmRestarts:t-i:
     *
     * The length of the current period (state; Python's `T_i`).
     *
     * Since: 0.1
     */
    STATE (DlCosineAnnealingWarmRestarts, "t-i", 'x', t_i),
    /**
     * DlCosineAnnealingWarmRestarts:t-cur:
     *
     * The epochs since the last restart (state; Python's `T_cur`).
     *
     * Since: 0.1
     */
    STATE (DlCosineAnnealingWarmRestarts, "t-cur", 'd', t_cur),
  };

  INSTALL (klass, fields);
  G_OBJECT_CLASS (klass)->constructed = warm_restarts_constructed;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = warm_restarts_get_lr_out;
  DL_LR_SCHEDULER_CLASS (klass)->compute_closed_form_lr = warm_restarts_closed_form_out;
  DL_LR_SCHEDULER_CLASS (klass)->step = warm_restarts_step;
  DL_LR_SCHEDULER_CLASS (klass)->step_to = warm_restarts_step_to;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "CosineAnnealingWarmRestarts",
                               TRUE);
}

static void
dl_cosine_annealing_warm_restarts_init (DlCosineAnnealingWarmRestarts *self)
{
}

/**
 * dl_cosine_annealing_warm_restarts_new:
 * @optimizer: the optimizer to schedule
 * @t_0: the length of the first period
 * @t_mult: the growth factor of the periods (>= 1)
 * @eta_min: the smallest learning rate
 * @error: return location for a #GError
 *
 * Makes a scheduler that anneals each group's learning rate from its base
 * rate to @eta_min along half a cosine and then restarts, as
 * `torch.optim.lr_scheduler.CosineAnnealingWarmRestarts (optimizer, T_0,
 * T_mult, eta_min)`: the first period lasts @t_0 epochs, each next one
 * @t_mult times longer. It takes its initial step on construction.
 *
 * Fails with %DL_ERROR_ARGUMENT when @t_0 is not positive or @t_mult is
 * below 1.
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlCosineAnnealingWarmRestarts *
dl_cosine_annealing_warm_restarts_new (DlOptimizer *optimizer,
                                       gint64 t_0,
                                       gint64 t_mult,
                                       gdouble eta_min,
                                       GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_COSINE_ANNEALING_WARM_RESTARTS, NULL, error, "optimizer",
                         optimizer, "t-0", t_0, "t-mult", t_mult, "eta-min", eta_min, NULL);
}

/* ---- SequentialLR ---------------------------------------------------------- */

/**
 * DlSequentialLr:
 *
 * Runs #DlSequentialLr:schedulers one after another, switching at
 * #DlSequentialLr:milestones (one fewer than the schedulers; each next
 * scheduler restarts at epoch 0), as torch.optim.lr_scheduler.SequentialLR.
 * Every scheduler must schedule the same optimizer. Its state holds its
 * schedulers' states under "_schedulers".
 *
 * Since: 0.1
 */
struct _DlSequentialLr
{
  DlLrScheduler parent_instance;
  GListModel *schedulers_model;
  GVariant *milestones;
  GPtrArray *schedulers; /* DlLrScheduler */
};

/**
 * DlSequentialLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlSequentialLr. The type is final: its class adds
 * no virtual method to that of #DlLrScheduler, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSequentialLr, dl_sequential_lr, DL_TYPE_LR_SCHEDULER)

enum
{
  SEQ_PROP_SCHEDULERS = 2,
};

static gboolean
sequential_take_last (DlSequentialLr *self, DlLrScheduler *child, GError **error)
{
  gsize n;
  g_autofree gdouble *lrs = dl_lr_scheduler_get_last_lr (child, &n);

  return dl_lr_scheduler_apply_lrs (DL_LR_SCHEDULER (self), lrs, n, error);
}

static gboolean
sequential_step (DlLrScheduler *scheduler, GError **error)
{
  DlSequentialLr *self = DL_SEQUENTIAL_LR (scheduler);
  gint64 e = epoch_of (self) + 1;
  gsize n;
  const gint64 *m = milestones_of (self->milestones, &n);
  guint idx = 0;
  DlLrScheduler *child;
  gboolean ok;

  while (idx < n && m[idx] <= e)
    idx++;
  dl_lr_scheduler_count_step (scheduler);
  dl_lr_scheduler_set_last_epoch (scheduler, e);
  child = g_ptr_array_index (self->schedulers, idx);
  if (idx > 0 && m[idx - 1] == e)
    ok = dl_lr_scheduler_step_to (child, 0, error);
  else
    ok = dl_lr_scheduler_step (child, error);
  return ok && sequential_take_last (self, child, error);
}

static gboolean
sequential_step_to (DlLrScheduler *scheduler, gdouble epoch, GError **error)
{
  g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
               "SequentialLR: step takes no epoch (its schedulers restart at milestones)");
  return FALSE;
}

static void
sequential_constructed (GObject *object)
{
  DlSequentialLr *self = DL_SEQUENTIAL_LR (object);
  DlLrScheduler *scheduler = DL_LR_SCHEDULER (object);
  DlOptimizer *optimizer = optimizer_of (self);
  guint n = self->schedulers_model ? g_list_model_get_n_items (self->schedulers_model) : 0;
  gsize n_milestones;
  GError *error = NULL;
  gboolean ok = TRUE;

  milestones_of (self->milestones, &n_milestones);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (self->schedulers_model, i);

      if (!DL_IS_LR_SCHEDULER (item))
        {
          dl_lr_scheduler_construct_error (self, "schedulers: item %u is a %s, not a scheduler", i,
                                           item ? G_OBJECT_TYPE_NAME (item) : "NULL");
          ok = FALSE;
          break;
        }
      if (dl_lr_scheduler_get_optimizer (DL_LR_SCHEDULER (item)) != optimizer)
        {
          dl_lr_scheduler_construct_error (
              self,
              "Sequential Schedulers expects all schedulers to belong to the "
              "same optimizer, but got schedulers at index %u to be different "
              "than the optimizer passed in.",
              i);
          ok = FALSE;
          break;
        }
      g_ptr_array_add (self->schedulers, g_steal_pointer (&item));
    }
  g_clear_object (&self->schedulers_model);
  if (ok && n == 0)
    {
      dl_lr_scheduler_construct_error (self, "SequentialLR expects at least one scheduler");
      ok = FALSE;
    }
  if (ok && n_milestones != n - 1)
    {
      dl_lr_scheduler_construct_error (
          self,
          "Sequential Schedulers expects number of schedulers provided to be "
          "one more than the number of milestone points, but got number of "
          "schedulers %u and the number of milestones to be equal to %" G_GSIZE_FORMAT,
          n, n_milestones);
      ok = FALSE;
    }
  G_OBJECT_CLASS (dl_sequential_lr_parent_class)->constructed (object);
  dl_lr_scheduler_mark_started (scheduler);
  if (!ok || optimizer == NULL)
    return;

  /* PyTorch: back to the initial rates, undo the schedulers' own initial
   * steps, and take the first one's again */
  for (guint i = 0; i < dl_optimizer_get_n_param_groups (optimizer); i++)
    dl_optimizer_set_group_lr (optimizer, i, group_option (self, i, "initial_lr"));
  for (guint i = 0; i < self->schedulers->len; i++)
    {
      DlLrScheduler *child = g_ptr_array_index (self->schedulers, i);

      dl_lr_scheduler_set_last_epoch (child, dl_lr_scheduler_get_last_epoch (child) - 1);
    }
  dl_lr_scheduler_set_last_epoch (scheduler, epoch_of (self) + 1);
  dl_lr_scheduler_set_step_count (self->schedulers->pdata[0], 0);
  if (!dl_lr_scheduler_step (self->schedulers->pdata[0], &error)
      || !sequential_take_last (self, self->schedulers->pdata[0], &error))
    dl_lr_scheduler_take_construct_error (scheduler, error);
}

static void
sequential_save (DlLrScheduler *scheduler, GVariantDict *dict)
{
  dl_lr_scheduler_save_children (DL_SEQUENTIAL_LR (scheduler)->schedulers, dict);
}

static gboolean
sequential_load (DlLrScheduler *scheduler, GVariantDict *dict, GError **error)
{
  return dl_lr_scheduler_load_children (scheduler, DL_SEQUENTIAL_LR (scheduler)->schedulers, dict,
                                        error);
}

static void
sequential_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlSequentialLr *self = DL_SEQUENTIAL_LR (object);

  if (prop_id == SEQ_PROP_SCHEDULERS)
    {
      GListStore *store = g_list_store_new (DL_TYPE_LR_SCHEDULER);

      g_list_store_splice (store, 0, 0, self->schedulers->pdata, self->schedulers->len);
      g_value_take_object (value, store);
    }
  else
    dl_lr_scheduler_field_get_property (object, prop_id, value, pspec);
}

static void
sequential_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlSequentialLr *self = DL_SEQUENTIAL_LR (object);

  if (prop_id == SEQ_PROP_SCHEDULERS)
    g_set_object (&self->schedulers_model, g_value_get_object (value));
  else
    dl_lr_scheduler_field_set_property (object, prop_id, value, pspec);
}

static void
sequential_dispose (GObject *object)
{
  DlSequentialLr *self = DL_SEQUENTIAL_LR (object);

  g_clear_object (&self->schedulers_model);
  g_clear_pointer (&self->schedulers, g_ptr_array_unref);
  G_OBJECT_CLASS (dl_sequential_lr_parent_class)->dispose (object);
}

static void
dl_sequential_lr_class_init (DlSequentialLrClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  static const Field fields[] = {
    /**
     * DlSequentialLr:milestones:
     *
     * The epochs at which the next scheduler takes over, a #GVariant of
     * type "ax".
     *
     * Since: 0.1
     */
    FIELD (DlSequentialLr, "milestones", 'v', 0, milestones),
  };

  INSTALL (klass, fields);
  object_class->constructed = sequential_constructed;
  object_class->dispose = sequential_dispose;
  object_class->get_property = sequential_get_property;
  object_class->set_property = sequential_set_property;
  /**
   * DlSequentialLr:schedulers:
   *
   * The schedulers, a #GListModel of #DlLrScheduler given at
   * construction, all of the same optimizer.
   *
   * Since: 0.1
   */
  g_object_class_install_property (
      object_class, SEQ_PROP_SCHEDULERS,
      g_param_spec_object ("schedulers", NULL, NULL, G_TYPE_LIST_MODEL,
                           G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                               | G_PARAM_EXPLICIT_NOTIFY));
  DL_LR_SCHEDULER_CLASS (klass)->step = sequential_step;
  DL_LR_SCHEDULER_CLASS (klass)->step_to = sequential_step_to;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "SequentialLR", FALSE);
  dl_lr_scheduler_class_set_extra_state (DL_LR_SCHEDULER_CLASS (klass), sequential_save,
                                         sequential_load);
}

static void
dl_sequential_lr_init (DlSequentialLr *self)
{
  self->schedulers = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * dl_sequential_lr_new:
 * @optimizer: the optimizer all the schedulers schedule
 * @schedulers: (element-type DlLrScheduler): the schedulers, in order
 * @milestones: (array length=n_milestones): the epochs of the switches
 * @n_milestones: one fewer than the schedulers
 * @error: return location for a #GError
 *
 * Makes a scheduler that hands over from one scheduler to the next at each
 * epoch of @milestones, as `torch.optim.lr_scheduler.SequentialLR
 * (optimizer, schedulers, milestones)`: a warm-up followed by a decay, say.
 * Each scheduler restarts from epoch 0 when its turn comes.
 *
 * Fails with %DL_ERROR_ARGUMENT when @schedulers is empty, holds something
 * that is not a scheduler or a scheduler of another optimizer, or does not
 * have one more entry than @milestones.
 *
 * Returns: (transfer full): a new scheduler, after its first scheduler's
 *   initial step
 *
 * Since: 0.1
 */
DlSequentialLr *
dl_sequential_lr_new (DlOptimizer *optimizer,
                      GPtrArray *schedulers,
                      const gint64 *milestones,
                      gsize n_milestones,
                      GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  g_return_val_if_fail (schedulers != NULL, NULL);
  g_return_val_if_fail (milestones != NULL || n_milestones == 0, NULL);
  store = g_list_store_new (DL_TYPE_LR_SCHEDULER);
  g_list_store_splice (store, 0, 0, schedulers->pdata, schedulers->len);
  return g_initable_new (DL_TYPE_SEQUENTIAL_LR, NULL, error, "optimizer", optimizer, "schedulers",
                         store, "milestones", milestones_variant (milestones, n_milestones), NULL);
}
