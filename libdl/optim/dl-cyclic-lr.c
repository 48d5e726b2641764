/* dl-cyclic-lr.c: CyclicLR as torch.optim.lr_scheduler.CyclicLR (1.13)
 * computes it, stepped once a batch:
 *
 *   cycle = floor (1 + e / total_size);  x = 1 + e / total_size - cycle
 *   f = x <= ratio ? x / ratio : (x - 1) / (ratio - 1)
 *   lr = base + (max - base) f scale (cycle, or e in "iterations" mode)
 *   momentum = max_m - (max_m - base_m) f scale     (cycle_momentum)
 *
 * with scale 1 (triangular), 1 / 2^(cycle - 1) (triangular2), gamma^e
 * (exp_range) or a function of the caller's.
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

/**
 * DlCyclicLr:
 *
 * Cycles each group's learning rate between its base rate and
 * #DlCyclicLr:max-lrs (and, with #DlCyclicLr:cycle-momentum, the
 * momentum the other way between #DlCyclicLr:base-momentums and
 * #DlCyclicLr:max-momentums), as torch.optim.lr_scheduler.CyclicLR. A
 * cycle is #DlCyclicLr:total-size steps, rising for the first
 * #DlCyclicLr:step-ratio of them. The amplitude scales by
 * #DlCyclicLr:mode ("triangular", "triangular2", "exp_range" with
 * #DlCyclicLr:gamma) or by a function (dl_cyclic_lr_set_scale_fn()) of the
 * cycle or the step (#DlCyclicLr:scale-mode). Its initial step comes with
 * g_initable_init(), after the function.
 *
 * Since: 0.1
 */
struct _DlCyclicLr
{
  DlLrScheduler parent_instance;
  GVariant *max_lrs;
  gdouble total_size;
  gdouble step_ratio;
  gchar *mode;
  gdouble gamma;
  gchar *scale_mode;
  gboolean cycle_momentum;
  GVariant *base_momentums;
  GVariant *max_momentums;
  DlLrLambdaSlot scale_fn;
};

/**
 * DlCyclicLrClass:
 * @parent_class: the class of #DlLrScheduler
 *
 * The class structure of #DlCyclicLr. The type is final: its class adds no
 * virtual method to that of #DlLrScheduler, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlCyclicLr, dl_cyclic_lr, DL_TYPE_LR_SCHEDULER)

static gdouble
nth (GVariant *v, guint i)
{
  gsize n = 0;
  const gdouble *d = v ? g_variant_get_fixed_array (v, &n, sizeof (gdouble)) : NULL;

  return i < n ? d[i] : NAN;
}

static gboolean
scale_of (DlCyclicLr *self, guint group, gint64 x, gdouble *scale, GError **error)
{
  GError *local = NULL;

  if (self->scale_fn.fn)
    {
      *scale = dl_lr_lambda_slot_call (&self->scale_fn, self, group, x, "scale_fn",
                                       "dl_cyclic_lr_set_scale_fn", &local);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
    }
  else if (g_strcmp0 (self->mode, "triangular") == 0)
    *scale = 1.;
  else if (g_strcmp0 (self->mode, "triangular2") == 0)
    *scale = 1 / pow (2., (gdouble)(x - 1));
  else if (g_strcmp0 (self->mode, "exp_range") == 0)
    *scale = pow (self->gamma, (gdouble)x);
  else
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "CyclicLR: mode is invalid and scale_fn is None");
      return FALSE;
    }
  return TRUE;
}

static gdouble
cyclic_lr_get_lr (DlLrScheduler *scheduler, guint group, gdouble lr, GError **error)
{
  DlCyclicLr *self = DL_CYCLIC_LR (scheduler);
  gint64 e = epoch_of (self);
  gdouble cycle = floor (1 + e / self->total_size);
  gdouble x = 1. + e / self->total_size - cycle;
  gdouble f, scale, base;

  f = x <= self->step_ratio ? x / self->step_ratio : (x - 1) / (self->step_ratio - 1);
  if (!scale_of (self, group, g_strcmp0 (self->scale_mode, "cycle") == 0 ? (gint64)cycle : e,
                 &scale, error))
    return NAN;
  if (self->cycle_momentum)
    {
      gdouble max_m = nth (self->max_momentums, group);
      gdouble height = (max_m - nth (self->base_momentums, group)) * f;

      if (!dl_optimizer_set_group_option (optimizer_of (self), group, "momentum",
                                          max_m - height * scale, error))
        return NAN;
    }
  base = base_of (self, group);
  return base + (nth (self->max_lrs, group) - base) * f * scale;
}
OUT_LR (cyclic_lr_get_lr)

/* @v (a property's "ad") when it has one value per group; else @fill (a
 * new one filled with it), or NULL with an error naming @what */
static gboolean
check_per_group (DlCyclicLr *self, GVariant **v, const gchar *what, gdouble fill, guint n_groups)
{
  gsize n = 0;

  if (*v == NULL && !isnan (fill))
    {
      g_autofree gdouble *d = g_new (gdouble, n_groups);

      for (guint i = 0; i < n_groups; i++)
        d[i] = fill;
      *v = g_variant_ref_sink (
          g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, d, n_groups, sizeof (gdouble)));
    }
  if (*v)
    g_variant_get_fixed_array (*v, &n, sizeof (gdouble));
  if (n != n_groups)
    {
      dl_lr_scheduler_construct_error (self, "expected %u values for %s, got %" G_GSIZE_FORMAT,
                                       n_groups, what, n);
      return FALSE;
    }
  return TRUE;
}

static void
cyclic_lr_constructed (GObject *object)
{
  DlCyclicLr *self = DL_CYCLIC_LR (object);
  DlOptimizer *opt = optimizer_of (self);
  guint n = opt ? dl_optimizer_get_n_param_groups (opt) : 0;

  if (opt && check_per_group (self, &self->max_lrs, "max_lr", NAN, n) && self->cycle_momentum)
    {
      g_autoptr (GError) local = NULL;

      dl_optimizer_get_group_option (opt, 0, "momentum", &local);
      if (local)
        dl_lr_scheduler_construct_error (
            self, "optimizer must support momentum with `cycle_momentum` option enabled");
      else if (self->base_momentums == NULL)
        {
          g_autofree gdouble *d = g_new (gdouble, n);

          for (guint i = 0; i < n; i++)
            d[i] = dl_optimizer_get_group_option (opt, i, "momentum", NULL);
          self->base_momentums = g_variant_ref_sink (
              g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, d, n, sizeof (gdouble)));
        }
      if (!local && check_per_group (self, &self->base_momentums, "base_momentum", NAN, n))
        check_per_group (self, &self->max_momentums, "max_momentum", 0.9, n);
    }
  G_OBJECT_CLASS (dl_cyclic_lr_parent_class)->constructed (object);
}

static void
cyclic_lr_finalize (GObject *object)
{
  dl_lr_lambda_slot_set (&DL_CYCLIC_LR (object)->scale_fn, NULL, NULL, NULL);
  dl_lr_scheduler_fields_finalize (object);
}

static void
dl_cyclic_lr_class_init (DlCyclicLrClass *klass)
{
  static const Field fields[] = {
    /**
     * DlCyclicLr:max-lrs:
     *
     * Each group's highest learning rate (an "ad" variant, one value per
     * group; required).
     *
     * Since: 0.1
     */
    { "max-lrs", 'a', 0, NULL, G_STRUCT_OFFSET (DlCyclicLr, max_lrs), FALSE },
    /**
     * DlCyclicLr:total-size:
     *
     * The length of a cycle in steps, up and down (default 4000).
     *
     * Since: 0.1
     */
    FIELD (DlCyclicLr, "total-size", 'd', 4000, total_size),
    /**
     * DlCyclicLr:step-ratio:
     *
     * The fraction of a cycle that rises (default 0.5).
     *
     * Since: 0.1
     */
    FIELD (DlCyclicLr, "step-ratio", 'd', 0.5, step_ratio),
    /**
     * DlCyclicLr:mode:
     *
     * "triangular" (default), "triangular2" (the amplitude halves each
     * cycle) or "exp_range" (times #DlCyclicLr:gamma each step); ignored
     * with a scale function.
     *
     * Since: 0.1
     */
    { "mode", 's', 0, "triangular", G_STRUCT_OFFSET (DlCyclicLr, mode), FALSE },
    /**
     * DlCyclicLr:gamma:
     *
     * The decay of "exp_range" (default 1).
     *
     * Since: 0.1
     */
    FIELD (DlCyclicLr, "gamma", 'd', 1, gamma),
    /**
     * DlCyclicLr:scale-mode:
     *
     * What the scale is a function of: "cycle" (default) or
     * "iterations" (as "exp_range").
     *
     * Since: 0.1
     */
    { "scale-mode", 's', 0, "cycle", G_STRUCT_OFFSET (DlCyclicLr, scale_mode), FALSE },
    /**
     * DlCyclicLr:cycle-momentum:
     *
     * Whether the momentum cycles too (default %TRUE; the optimizer then
     * needs a "momentum" option).
     *
     * Since: 0.1
     */
    FIELD (DlCyclicLr, "cycle-momentum", 'b', TRUE, cycle_momentum),
    /**
     * DlCyclicLr:base-momentums:
     *
     * Each group's lowest momentum (an "ad" variant; default the groups'
     * momentum at construction).
     *
     * Since: 0.1
     */
    { "base-momentums", 'a', 0, NULL, G_STRUCT_OFFSET (DlCyclicLr, base_momentums), FALSE },
    /**
     * DlCyclicLr:max-momentums:
     *
     * Each group's highest momentum (an "ad" variant; default 0.9 each).
     *
     * Since: 0.1
     */
    { "max-momentums", 'a', 0, NULL, G_STRUCT_OFFSET (DlCyclicLr, max_momentums), FALSE },
  };

  INSTALL (klass, fields);
  G_OBJECT_CLASS (klass)->constructed = cyclic_lr_constructed;
  G_OBJECT_CLASS (klass)->finalize = cyclic_lr_finalize;
  DL_LR_SCHEDULER_CLASS (klass)->compute_lr = cyclic_lr_get_lr_out;
  /* a scale function comes after construction: the initial step waits
   * for g_initable_init() */
  dl_lr_scheduler_class_setup (DL_LR_SCHEDULER_CLASS (klass), "CyclicLR", FALSE);
}

static void
dl_cyclic_lr_init (DlCyclicLr *self)
{
}

/**
 * dl_cyclic_lr_set_scale_fn:
 * @self: a #DlCyclicLr
 * @scale_fn: (scope notified) (closure user_data) (destroy destroy): the
 *   amplitude's scale as a function of the cycle (or the step, as
 *   #DlCyclicLr:scale-mode says), which it gets as its epoch
 * @user_data: data for @scale_fn
 * @destroy: (nullable): frees @user_data
 *
 * Sets the scale function, PyTorch's `scale_fn` (replacing any earlier
 * one); #DlCyclicLr:mode no longer counts.
 *
 * Since: 0.1
 */
void
dl_cyclic_lr_set_scale_fn (DlCyclicLr *self,
                           DlLrLambda scale_fn,
                           gpointer user_data,
                           GDestroyNotify destroy)
{
  g_return_if_fail (DL_IS_CYCLIC_LR (self));
  dl_lr_lambda_slot_set (&self->scale_fn, scale_fn, user_data, destroy);
}

/**
 * dl_cyclic_lr_new:
 * @optimizer: the optimizer to schedule
 * @base_lr: the lowest learning rate (every group's)
 * @max_lr: the highest learning rate (every group's)
 * @step_size_up: the number of steps up
 * @step_size_down: the number of steps down (0: as @step_size_up)
 * @mode: "triangular", "triangular2" or "exp_range"
 * @gamma: the decay of "exp_range"
 * @cycle_momentum: whether the momentum cycles too
 * @base_momentum: the lowest momentum
 * @max_momentum: the highest momentum
 * @error: return location for a #GError
 *
 * Makes a scheduler that cycles each group's learning rate between
 * @base_lr and @max_lr, as `torch.optim.lr_scheduler.CyclicLR (optimizer,
 * base_lr, max_lr, step_size_up, step_size_down, mode, gamma,
 * cycle_momentum=cycle_momentum, base_momentum, max_momentum)`: it sets
 * the groups' rates to @base_lr (and momentum to @base_momentum) and takes
 * its initial step.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlSgd) sgd = NULL;
 * g_autoptr (DlCyclicLr) clr = NULL;
 *
 * if (!(fc = dl_linear_new (4, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * sgd = dl_sgd_new (params, 0.1, 0.9, 0, 0, FALSE, &error);
 * clr = dl_cyclic_lr_new (DL_OPTIMIZER (sgd), 0.01, 0.1, 2000, 0, "triangular", 1, TRUE, 0.8,
 *                         0.9, &error);
 * ]|
 *
 * Returns: (transfer full): a new scheduler, after its initial step, or
 *   %NULL with @error set for an invalid @mode, or @cycle_momentum with an
 *   optimizer without momentum
 *
 * Since: 0.1
 */
DlCyclicLr *
dl_cyclic_lr_new (DlOptimizer *optimizer,
                  gdouble base_lr,
                  gdouble max_lr,
                  gdouble step_size_up,
                  gdouble step_size_down,
                  const gchar *mode,
                  gdouble gamma,
                  gboolean cycle_momentum,
                  gdouble base_momentum,
                  gdouble max_momentum,
                  GError **error)
{
  guint n;
  g_autofree gdouble *maxes = NULL;
  g_autofree gdouble *moms = NULL;
  gdouble down = step_size_down > 0 ? step_size_down : step_size_up;

  g_return_val_if_fail (DL_IS_OPTIMIZER (optimizer), NULL);
  g_return_val_if_fail (mode != NULL, NULL);
  if (cycle_momentum)
    {
      g_autoptr (GError) local = NULL;

      dl_optimizer_get_group_option (optimizer, 0, "momentum", &local);
      if (local)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "CyclicLR: optimizer must support momentum with `cycle_momentum` option "
                       "enabled");
          return NULL;
        }
    }
  n = dl_optimizer_get_n_param_groups (optimizer);
  maxes = g_new (gdouble, n);
  moms = g_new (gdouble, n);
  for (guint i = 0; i < n; i++)
    {
      dl_optimizer_set_group_lr (optimizer, i, base_lr);
      if (cycle_momentum)
        dl_optimizer_set_group_option (optimizer, i, "momentum", base_momentum, NULL);
      maxes[i] = max_lr;
      moms[i] = max_momentum;
    }
  return g_initable_new (
      DL_TYPE_CYCLIC_LR, NULL, error, "optimizer", optimizer, "max-lrs",
      g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, maxes, n, sizeof (gdouble)), "total-size",
      step_size_up + down, "step-ratio", step_size_up / (step_size_up + down), "mode", mode,
      "gamma", gamma, "scale-mode", g_strcmp0 (mode, "exp_range") == 0 ? "iterations" : "cycle",
      "cycle-momentum", cycle_momentum, "max-momentums",
      g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, moms, n, sizeof (gdouble)), NULL);
}
