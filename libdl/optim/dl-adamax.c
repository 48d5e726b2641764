/* dl-adamax.c: Adamax as torch.optim.Adamax computes it (1.13):
 *   t += 1;  g = ±grad + weight_decay * p
 *   m = beta1 m + (1 - beta1) g;  u = max (beta2 u, |g| + eps)
 *   p = p - lr / (1 - beta1^t) * m / u
 * in one fused kernel per parameter.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <gio/gio.h>

#include "dl-adamax.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlAdamax:
 *
 * The Adamax optimizer (Adam with the infinity norm), as
 * torch.optim.Adamax: #DlOptimizer:lr (PyTorch's default is 0.002),
 * #DlAdamax:beta1 and #DlAdamax:beta2 (Python's `betas`), #DlAdamax:eps,
 * #DlAdamax:weight-decay and #DlAdamax:maximize. Each parameter's state
 * is "step" (a 0-d float32 tensor), "exp_avg" and "exp_inf".
 *
 * Since: 0.1
 */
struct _DlAdamax
{
  DlOptimizer parent_instance;
};

/**
 * DlAdamaxClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlAdamax. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAdamax, dl_adamax, DL_TYPE_OPTIMIZER)

static gboolean
adamax_update (DlOptimizer *self,
               const DlOptimizerGroup *group,
               DlTensor *p,
               DlTensor *grad,
               GHashTable *state,
               GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_ADAMAX,
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .beta1 = dl_optimizer_group_get (group, "beta1"),
    .beta2 = dl_optimizer_group_get (group, "beta2"),
    .eps = dl_optimizer_group_get (group, "eps"),
    .maximize = dl_optimizer_group_get (group, "maximize") != 0,
  };
  DlTensor *buffers[2];
  gdouble step;

  if (!(buffers[0] = dl_optimizer_state_tensor (state, "exp_avg", p, 0, NULL, error))
      || !(buffers[1] = dl_optimizer_state_tensor (state, "exp_inf", p, 0, NULL, error))
      || (step = dl_optimizer_state_count (state, "step", DL_DTYPE_FLOAT32, error)) < 0)
    return FALSE;
  args.step_size = dl_optimizer_group_get (group, "lr") / (1 - pow (args.beta1, step));
  return dl_optim_fused_step ("Adamax", p, grad, buffers, 2, &args, error);
}

static gboolean
dl_adamax_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, adamax_update, error);
}

static void
dl_adamax_class_init (DlAdamaxClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlAdamax:beta1:
     *
     * The decay rate of the gradient's running average, in [0, 1)
     * (default 0.9; Python's `betas[0]`).
     *
     * Since: 0.1
     */
    { "beta1", 0.9, FALSE },
    /**
     * DlAdamax:beta2:
     *
     * The decay rate of the running infinity norm, in [0, 1) (default
     * 0.999; Python's `betas[1]`).
     *
     * Since: 0.1
     */
    { "beta2", 0.999, FALSE },
    /**
     * DlAdamax:eps:
     *
     * Added to the gradient's magnitude, >= 0 (default 1e-8).
     *
     * Since: 0.1
     */
    { "eps", 1e-8, FALSE },
    /**
     * DlAdamax:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
    /**
     * DlAdamax:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_adamax_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "Adamax");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_adam_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_adamax_init (DlAdamax *self)
{
}

/**
 * dl_adamax_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 0.002)
 * @beta1: the decay rate of the gradient's average (0.9)
 * @beta2: the decay rate of the infinity norm (0.999)
 * @eps: added to the gradient's magnitude (1e-8)
 * @weight_decay: L2 penalty (0)
 * @error: return location for a #GError
 *
 * Creates an Adamax optimizer and checks its hyperparameters
 * (g_initable_new()): PyTorch's `torch.optim.Adamax (params, lr,
 * betas=(beta1, beta2), eps, weight_decay)`.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlAdamax) opt = NULL;
 *
 * if (!(fc = dl_linear_new (20, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * opt = dl_adamax_new (params, 2e-3, 0.9, 0.999, 1e-8, 0, &error);
 * ]|
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter (a negative @lr,
 *   @eps or @weight_decay, a beta outside [0, 1))
 *
 * Since: 0.1
 */
DlAdamax *
dl_adamax_new (GPtrArray *params,
               gdouble lr,
               gdouble beta1,
               gdouble beta2,
               gdouble eps,
               gdouble weight_decay,
               GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_ADAMAX, NULL, error, "params", store, "lr", lr, "beta1", beta1,
                         "beta2", beta2, "eps", eps, "weight-decay", weight_decay, NULL);
}
