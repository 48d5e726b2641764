/* dl-lr-schedulers-factor.c: the schedulers of torch.optim.lr_scheduler
 * (1.13) that scale the rate by a factor of the epoch, with PyTorch's
 * chainable get_lr and, where it has one, its closed form:
 *
 *   ConstantLR        base * factor until total_iters, then base
 *   PolynomialLR      base * (1 - min (e, total) / total)^power
 *   MultiplicativeLR  lr * lambda (group, e) at every step
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <gio/gio.h>

#include "dl-lr-schedulers.h"
#include "dl-lr-scheduler-fields-private.h"
#include "dl-error.h"

/* ---- ConstantLR -------------------------------------------------------------- */

/**
 * DlConstantLr:
 *
 * Scales each group's learning rate by #DlConstantLr:factor until
 * #DlConstantLr:total-iters epochs have passed, as
 * torch.optim.lr_scheduler.ConstantLR (a constant warm-up).
 *
 * Since: 0.1
 */
struct _DlConstantLr
{
  DlLrScheduler parent_instance;
  gdouble factor;
  gint64 total_iters;
};

/**
 * DlConstantLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlConstantLr. The type is final: its class adds
 * no virtual method to that of #DlLrScheduler, and it cannot be
 * subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlConstantLr, dl_constant_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
constant_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlConstantLr *self = DL_CONSTANT_LR (scheduler);
  gint64 e = epoch_of (self);

  if (e == 0)
    return lr * self->factor;
  if (e != self->total_iters)
    return lr;
  return lr * (1.0 / self->factor);
}
OUT_LR (constant_lr_get_lr)

static gdouble
constant_lr_closed_form (DlLrScheduler *scheduler, guint group, GError **error)
{
  DlConstantLr *self = DL_CONSTANT_LR (scheduler);
  gboolean done = epoch_of (self) >= self->total_iters;

  return base_of (self, group) * (self->factor + done * (1 - self->factor));
}
OUT_CLOSED_FORM (constant_lr_closed_form)

static void
constant_lr_constructed (GObject *object)
{
  DlConstantLr *self = DL_CONSTANT_LR (object);

  if (!(self->factor >= 0 && self->factor <= 1))
    dl_lr_scheduler_construct_error (
        self, "Constant multiplicative factor expected to be between 0 and 1.");
  G_OBJECT_CLASS (dl_constant_lr_parent_class)->constructed (object);
}

static void
dl_constant_lr_class_init (DlConstantLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlConstantLr:factor:
     *
     * The factor until #DlConstantLr:total-iters, in [0, 1] (default 1/3).
     *
     * Since: 0.1
     */
    FIELD (DlConstantLr, "factor", 'd', 1.0 / 3, factor),
    /**
     * DlConstantLr:total-iters:
     *
     * The number of epochs the factor applies for (default 5).
     *
     * Since: 0.1
     */
    FIELD (DlConstantLr, "total-iters", 'x', 5, total_iters),
  };

  INSTALL (klass, fields);
  G_OBJECT_CLASS (klass)->constructed = constant_lr_constructed;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = constant_lr_get_lr_out;
  DL_LR_SCHEDULER_CLASS (klass)->compute_closed_form_lr = constant_lr_closed_form_out;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "ConstantLR", TRUE);
}

static void
dl_constant_lr_init (DlConstantLr *self)
{
}

/**
 * dl_constant_lr_new:
 * @optimizer: the optimizer to schedule
 * @factor: the factor until @total_iters, in [0, 1]
 * @total_iters: the number of epochs the factor applies for
 * @error: return location for a #GError
 *
 * Makes a scheduler that multiplies each group's base learning rate by
 * @factor for the first @total_iters epochs, as
 * `torch.optim.lr_scheduler.ConstantLR (optimizer, factor, total_iters)`.
 * It takes its initial step on construction.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlSgd) sgd = NULL;
 * g_autoptr (DlConstantLr) warmup = NULL;
 *
 * if (!(fc = dl_linear_new (4, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * sgd = dl_sgd_new (params, 0.1, 0.9, 0, 0, FALSE, &error);
 * warmup = dl_constant_lr_new (DL_OPTIMIZER (sgd), 0.5, 4, &error);
 * ]|
 *
 * Returns: (transfer full): a new scheduler, after its initial step, or
 *   %NULL with @error set (%DL_ERROR_ARGUMENT) for a @factor outside
 *   [0, 1]
 *
 * Since: 0.1
 */
DlConstantLr *
dl_constant_lr_new (DlOptimizer *optimizer, gdouble factor, gint64 total_iters, GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_CONSTANT_LR, NULL, error, "optimizer", optimizer, "factor", factor,
                         "total-iters", total_iters, NULL);
}

/* ---- PolynomialLR ------------------------------------------------------------ */

/**
 * DlPolynomialLr:
 *
 * Decays each group's learning rate by a polynomial of the epoch to 0 at
 * #DlPolynomialLr:total-iters, as torch.optim.lr_scheduler.PolynomialLR.
 *
 * Since: 0.1
 */
struct _DlPolynomialLr
{
  DlLrScheduler parent_instance;
  gint64 total_iters;
  gdouble power;
};

/**
 * DlPolynomialLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlPolynomialLr. The type is final: its class
 * adds no virtual method to that of #DlLrScheduler, and it cannot be
 * subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlPolynomialLr, dl_polynomial_lr, DL_TYPE_LR_SCHEDULER)

static gboolean
check_total (DlPolynomialLr *self, GError **error)
{
  if (self->total_iters == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "PolynomialLR: division by zero (total_iters 0)");
      return FALSE;
    }
  return TRUE;
}

static gdouble
polynomial_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlPolynomialLr *self = DL_POLYNOMIAL_LR (scheduler);
  gint64 e = epoch_of (self);
  gdouble total = (gdouble)self->total_iters;

  if (e == 0 || e > self->total_iters)
    return lr;
  if (!check_total (self, error))
    return NAN;
  return lr * pow ((1.0 - e / total) / (1.0 - (e - 1) / total), self->power);
}
OUT_LR (polynomial_lr_get_lr)

static gdouble
polynomial_lr_closed_form (DlLrScheduler *scheduler, guint group, GError **error)
{
  DlPolynomialLr *self = DL_POLYNOMIAL_LR (scheduler);
  gint64 e = MIN (self->total_iters, epoch_of (self));

  if (!check_total (self, error))
    return NAN;
  return base_of (self, group) * pow (1.0 - e / (gdouble)self->total_iters, self->power);
}
OUT_CLOSED_FORM (polynomial_lr_closed_form)

static void
dl_polynomial_lr_class_init (DlPolynomialLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlPolynomialLr:total-iters:
     *
     * The epoch at which the rate reaches 0 (default 5).
     *
     * Since: 0.1
     */
    FIELD (DlPolynomialLr, "total-iters", 'x', 5, total_iters),
    /**
     * DlPolynomialLr:power:
     *
     * The power of the polynomial (default 1: linear).
     *
     * Since: 0.1
     */
    FIELD (DlPolynomialLr, "power", 'd', 1.0, power),
  };

  INSTALL (klass, fields);
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = polynomial_lr_get_lr_out;
  DL_LR_SCHEDULER_CLASS (klass)->compute_closed_form_lr = polynomial_lr_closed_form_out;
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "PolynomialLR", TRUE);
}

static void
dl_polynomial_lr_init (DlPolynomialLr *self)
{
}

/**
 * dl_polynomial_lr_new:
 * @optimizer: the optimizer to schedule
 * @total_iters: the epoch at which the rate reaches 0
 * @power: the power of the polynomial
 * @error: return location for a #GError
 *
 * Makes a scheduler that sets each group's learning rate to its base rate
 * times (1 - epoch / @total_iters)^@power, and 0 from @total_iters on, as
 * `torch.optim.lr_scheduler.PolynomialLR (optimizer, total_iters, power)`.
 * It takes its initial step on construction.
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlPolynomialLr *
dl_polynomial_lr_new (DlOptimizer *optimizer, gint64 total_iters, gdouble power, GError **error)
{
  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  return g_initable_new (DL_TYPE_POLYNOMIAL_LR, NULL, error, "optimizer", optimizer, "total-iters",
                         total_iters, "power", power, NULL);
}

/* ---- MultiplicativeLR -------------------------------------------------------- */

/**
 * DlMultiplicativeLr:
 *
 * Multiplies each group's learning rate by a function of the group and
 * the epoch at every step, as torch.optim.lr_scheduler.MultiplicativeLR.
 * dl_multiplicative_lr_new() takes the function; built from properties
 * (GJS's `new Dl.MultiplicativeLr({optimizer})`), it takes it from
 * dl_multiplicative_lr_set_lambda(), and its initial step comes with
 * g_initable_init().
 *
 * Since: 0.1
 */
struct _DlMultiplicativeLr
{
  DlLrScheduler parent_instance;
  DlLrLambdaSlot lr_lambda;
};

/**
 * DlMultiplicativeLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlMultiplicativeLr. The type is final: its
 * class adds no virtual method to that of #DlLrScheduler, and it cannot be
 * subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlMultiplicativeLr, dl_multiplicative_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
multiplicative_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlMultiplicativeLr *self = DL_MULTIPLICATIVE_LR (scheduler);
  gint64 e = epoch_of (self);

  if (e <= 0)
    return lr;
  return lr
         * dl_lr_lambda_slot_call (&self->lr_lambda, self, group, e, "lr_lambda",
                                   "dl_multiplicative_lr_set_lambda", error);
}
OUT_LR (multiplicative_lr_get_lr)

static void
multiplicative_lr_finalize (GObject *object)
{
  dl_lr_lambda_slot_set (&DL_MULTIPLICATIVE_LR (object)->lr_lambda, NULL, NULL, NULL);
  G_OBJECT_CLASS (dl_multiplicative_lr_parent_class)->finalize (object);
}

static void
dl_multiplicative_lr_class_init (DlMultiplicativeLrClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = multiplicative_lr_finalize;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = multiplicative_lr_get_lr_out;
  /* the function comes after construction: the initial step waits for
   * g_initable_init() */
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "MultiplicativeLR", FALSE);
}

static void
dl_multiplicative_lr_init (DlMultiplicativeLr *self)
{
}

/**
 * dl_multiplicative_lr_set_lambda:
 * @self: a #DlMultiplicativeLr
 * @lr_lambda: (scope notified) (closure user_data) (destroy destroy): the
 *   factor of each step as a function of the group and the epoch
 * @user_data: data for @lr_lambda
 * @destroy: (nullable): frees @user_data
 *
 * Sets the function (replacing any earlier one).
 *
 * Since: 0.1
 */
void
dl_multiplicative_lr_set_lambda (DlMultiplicativeLr *self,
                                 DlLrLambda lr_lambda,
                                 gpointer user_data,
                                 GDestroyNotify destroy)
{
  g_return_if_fail (DL_IS_MULTIPLICATIVE_LR (self));
  dl_lr_lambda_slot_set (&self->lr_lambda, lr_lambda, user_data, destroy);
}

/**
 * dl_multiplicative_lr_new:
 * @optimizer: the optimizer to schedule
 * @lr_lambda: (scope notified) (closure user_data) (destroy destroy): the
 *   factor of each step as a function of the group and the epoch
 * @user_data: data for @lr_lambda
 * @destroy: (nullable): frees @user_data
 * @error: return location for a #GError
 *
 * Makes a scheduler that multiplies each group's learning rate by the
 * factor @lr_lambda gives for the group and the epoch at each step from
 * epoch 1 on, as `torch.optim.lr_scheduler.MultiplicativeLR (optimizer,
 * lr_lambda)`. The scheduler keeps @lr_lambda until it is finalized,
 * then calls @destroy on @user_data. It takes its initial step (which
 * keeps the rates) on construction.
 *
 * Returns: (transfer full): a new scheduler, after its initial step
 *
 * Since: 0.1
 */
DlMultiplicativeLr *
dl_multiplicative_lr_new (DlOptimizer *optimizer,
                          DlLrLambda lr_lambda,
                          gpointer user_data,
                          GDestroyNotify destroy,
                          GError **error)
{
  g_autoptr (DlMultiplicativeLr) self = NULL;

  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  self = g_object_new (DL_TYPE_MULTIPLICATIVE_LR, "optimizer", optimizer, NULL);
  dl_multiplicative_lr_set_lambda (self, lr_lambda, user_data, destroy);
  if (!g_initable_init (G_INITABLE (self), NULL, error))
    return NULL;
  return g_steal_pointer (&self);
}
