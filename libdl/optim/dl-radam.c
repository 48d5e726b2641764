/* dl-radam.c: RAdam as torch.optim.RAdam computes it (1.13):
 *   t += 1;  g = grad + weight_decay * p;  m, v as Adam's
 *   rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
 *   rho_t > 5: p = p - m / bc1 lr sqrt (bc2) / (sqrt (v) + eps) rect
 *   else:      p = p - m / bc1 lr
 * with rect = sqrt ((rho_t - 4) (rho_t - 2) rho_inf / ((rho_inf - 4)
 * (rho_inf - 2) rho_t)), in one fused kernel per parameter.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <gio/gio.h>

#include "dl-radam.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlRadam:
 *
 * The RAdam optimizer (Adam with a rectified adaptive learning rate), as
 * torch.optim.RAdam: #DlOptimizer:lr, #DlRadam:beta1 and #DlRadam:beta2
 * (Python's `betas`), #DlRadam:eps and #DlRadam:weight-decay. Each
 * parameter's state is "step" (a 0-d float32 tensor), "exp_avg" and
 * "exp_avg_sq".
 *
 * Since: 0.1
 */
struct _DlRadam
{
  DlOptimizer parent_instance;
};

/**
 * DlRadamClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlRadam. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlRadam, dl_radam, DL_TYPE_OPTIMIZER)

static gboolean
radam_update (DlOptimizer *self,
              const DlOptimizerGroup *group,
              DlTensor *p,
              DlTensor *grad,
              GHashTable *state,
              GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_RADAM,
    .lr = dl_optimizer_group_get (group, "lr"),
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .beta1 = dl_optimizer_group_get (group, "beta1"),
    .beta2 = dl_optimizer_group_get (group, "beta2"),
    .eps = dl_optimizer_group_get (group, "eps"),
  };
  DlTensor *buffers[2];
  gdouble step, bc2, rho_inf, rho_t;

  if (!(buffers[0] = dl_optimizer_state_tensor (state, "exp_avg", p, 0, NULL, error))
      || !(buffers[1] = dl_optimizer_state_tensor (state, "exp_avg_sq", p, 0, NULL, error))
      || (step = dl_optimizer_state_count (state, "step", DL_DTYPE_FLOAT32, error)) < 0)
    return FALSE;
  bc2 = 1 - pow (args.beta2, step);
  args.bias_correction = 1 - pow (args.beta1, step);
  args.bias_correction2_sqrt = sqrt (bc2);
  rho_inf = 2 / (1 - args.beta2) - 1;
  rho_t = rho_inf - 2 * step * pow (args.beta2, step) / bc2;
  args.rectified = rho_t > 5.;
  if (args.rectified)
    args.coef1
        = sqrt ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
  return dl_optim_fused_step ("RAdam", p, grad, buffers, 2, &args, error);
}

static gboolean
dl_radam_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, radam_update, error);
}

static void
dl_radam_class_init (DlRadamClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlRadam:beta1:
     *
     * The decay rate of the gradient's running average, in [0, 1)
     * (default 0.9; Python's `betas[0]`).
     *
     * Since: 0.1
     */
    { "beta1", 0.9, FALSE },
    /**
     * DlRadam:beta2:
     *
     * The decay rate of the squared gradient's running average, in
     * [0, 1) (default 0.999; Python's `betas[1]`).
     *
     * Since: 0.1
     */
    { "beta2", 0.999, FALSE },
    /**
     * DlRadam:eps:
     *
     * Added to the denominator, >= 0 (default 1e-8).
     *
     * Since: 0.1
     */
    { "eps", 1e-8, FALSE },
    /**
     * DlRadam:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_radam_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "RAdam");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_adam_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_radam_init (DlRadam *self)
{
}

/**
 * dl_radam_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 0.001)
 * @beta1: the decay rate of the gradient's average (0.9)
 * @beta2: the decay rate of the squared gradient's average (0.999)
 * @eps: added to the denominator (1e-8)
 * @weight_decay: L2 penalty (0)
 * @error: return location for a #GError
 *
 * Creates a RAdam optimizer and checks its hyperparameters
 * (g_initable_new()): PyTorch's `torch.optim.RAdam (params, lr,
 * betas=(beta1, beta2), eps, weight_decay)`.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlRadam) opt = NULL;
 *
 * if (!(fc = dl_linear_new (20, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * opt = dl_radam_new (params, 1e-3, 0.9, 0.999, 1e-8, 0, &error);
 * ]|
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter (a negative @lr,
 *   @eps or @weight_decay, a beta outside [0, 1))
 *
 * Since: 0.1
 */
DlRadam *
dl_radam_new (GPtrArray *params,
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
  return g_initable_new (DL_TYPE_RADAM, NULL, error, "params", store, "lr", lr, "beta1", beta1,
                         "beta2", beta2, "eps", eps, "weight-decay", weight_decay, NULL);
}
