/* dl-rprop.c: Rprop as torch.optim.Rprop computes it (1.13):
 *   t += 1;  g = ±grad;  f = etaplus, etaminus or 1 as sign (g prev) is
 *   positive, negative or zero;  step = clamp (step f, min, max)
 *   g = 0 where f = etaminus;  p = p - sign (g) step;  prev = g
 * in one fused kernel per parameter; the step sizes start at lr.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-rprop.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlRprop:
 *
 * The resilient backpropagation optimizer, as torch.optim.Rprop:
 * #DlOptimizer:lr (the initial step size; PyTorch's default is 0.01),
 * #DlRprop:etaminus and #DlRprop:etaplus (Python's `etas`),
 * #DlRprop:step-size-min and #DlRprop:step-size-max (Python's
 * `step_sizes`) and #DlRprop:maximize. Each parameter's state is "step"
 * (a 0-d int64 tensor: PyTorch's Python int), "prev" and "step_size".
 *
 * Since: 0.1
 */
struct _DlRprop
{
  DlOptimizer parent_instance;
};

/**
 * DlRpropClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlRprop. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlRprop, dl_rprop, DL_TYPE_OPTIMIZER)

static gboolean
dl_rprop_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  gdouble minus = dl_optimizer_group_get (group, "etaminus");
  gdouble plus = dl_optimizer_group_get (group, "etaplus");

  if (!(0 < minus && minus < 1 && 1 < plus))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "Rprop: Invalid eta values: %g, %g", minus,
                   plus);
      return FALSE;
    }
  return TRUE;
}

static gboolean
rprop_update (DlOptimizer *self,
              const DlOptimizerGroup *group,
              DlTensor *p,
              DlTensor *grad,
              GHashTable *state,
              GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_RPROP,
    .beta1 = dl_optimizer_group_get (group, "etaminus"),
    .beta2 = dl_optimizer_group_get (group, "etaplus"),
    .step_min = dl_optimizer_group_get (group, "step_size_min"),
    .step_max = dl_optimizer_group_get (group, "step_size_max"),
    .maximize = dl_optimizer_group_get (group, "maximize") != 0,
  };
  DlTensor *buffers[2];

  if (dl_optimizer_state_count (state, "step", DL_DTYPE_INT64, error) < 0
      || !(buffers[0] = dl_optimizer_state_tensor (state, "prev", p, 0, NULL, error))
      || !(buffers[1] = dl_optimizer_state_tensor (
               state, "step_size", p, dl_optimizer_group_get (group, "lr"), NULL, error)))
    return FALSE;
  return dl_optim_fused_step ("Rprop", p, grad, buffers, 2, &args, error);
}

static gboolean
dl_rprop_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, rprop_update, error);
}

static void
dl_rprop_class_init (DlRpropClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlRprop:etaminus:
     *
     * The factor a step size shrinks by when the gradient changes sign,
     * in (0, 1) (default 0.5; Python's `etas[0]`).
     *
     * Since: 0.1
     */
    { "etaminus", 0.5, FALSE },
    /**
     * DlRprop:etaplus:
     *
     * The factor a step size grows by when the gradient keeps its sign,
     * above 1 (default 1.2; Python's `etas[1]`).
     *
     * Since: 0.1
     */
    { "etaplus", 1.2, FALSE },
    /**
     * DlRprop:step-size-min:
     *
     * The smallest step size (default 1e-6; Python's `step_sizes[0]`).
     *
     * Since: 0.1
     */
    { "step-size-min", 1e-6, FALSE },
    /**
     * DlRprop:step-size-max:
     *
     * The largest step size (default 50; Python's `step_sizes[1]`).
     *
     * Since: 0.1
     */
    { "step-size-max", 50, FALSE },
    /**
     * DlRprop:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_rprop_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "Rprop");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_rprop_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_rprop_init (DlRprop *self)
{
}

/**
 * dl_rprop_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the initial step size (PyTorch's default: 0.01)
 * @etaminus: the shrinking factor (0.5)
 * @etaplus: the growing factor (1.2)
 * @step_size_min: the smallest step size (1e-6)
 * @step_size_max: the largest step size (50)
 * @error: return location for a #GError
 *
 * Creates an Rprop optimizer and checks its hyperparameters
 * (g_initable_new()): PyTorch's `torch.optim.Rprop (params, lr,
 * etas=(etaminus, etaplus), step_sizes=(step_size_min, step_size_max))`.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlRprop) opt = NULL;
 *
 * if (!(fc = dl_linear_new (20, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * opt = dl_rprop_new (params, 0.01, 0.5, 1.2, 1e-6, 50, &error);
 * ]|
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter (a negative @lr,
 *   etas that are not 0 < @etaminus < 1 < @etaplus)
 *
 * Since: 0.1
 */
DlRprop *
dl_rprop_new (GPtrArray *params,
              gdouble lr,
              gdouble etaminus,
              gdouble etaplus,
              gdouble step_size_min,
              gdouble step_size_max,
              GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_RPROP, NULL, error, "params", store, "lr", lr, "etaminus",
                         etaminus, "etaplus", etaplus, "step-size-min", step_size_min,
                         "step-size-max", step_size_max, NULL);
}
