/* dl-adam.c: Adam as torch.optim.Adam computes it (1.13, single tensor):
 *   t += 1;  g = ±grad + weight_decay * p
 *   m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
 *   [vmax = max (vmax, v);  v = vmax]           (amsgrad)
 *   p = p - lr / (1 - beta1^t) * m / (sqrt (v) / sqrt (1 - beta2^t) + eps)
 * in one fused kernel per parameter. AdamW (dl-adamw.c) shares it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <gio/gio.h>

#include "dl-adam.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlAdam:
 *
 * The Adam optimizer, as torch.optim.Adam: #DlOptimizer:lr,
 * #DlAdam:beta1 and #DlAdam:beta2 (Python's `betas`), #DlAdam:eps,
 * #DlAdam:weight-decay (an L2 penalty added to the gradient),
 * #DlAdam:amsgrad and #DlAdam:maximize. Each parameter's state is
 * "step" (a 0-d float32 tensor), "exp_avg", "exp_avg_sq" and, with
 * amsgrad, "max_exp_avg_sq".
 *
 * Since: 0.1
 */
struct _DlAdam
{
  DlOptimizer parent_instance;
};

/**
 * DlAdamClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlAdam. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAdam, dl_adam, DL_TYPE_OPTIMIZER)

static gboolean
check_beta (DlOptimizer *self, const DlOptimizerGroup *group, guint i, GError **error)
{
  gdouble beta = dl_optimizer_group_get (group, i ? "beta2" : "beta1");

  if (!(beta >= 0 && beta < 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: Invalid beta parameter at index %u: %g",
                   dl_optimizer_get_display_name (self), i, beta);
      return FALSE;
    }
  return TRUE;
}

gboolean
dl_adam_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  return dl_optimizer_check_min (self, group, "eps", "epsilon value", 0, error)
         && check_beta (self, group, 0, error) && check_beta (self, group, 1, error)
         && dl_optimizer_check_min (self, group, "weight_decay", "weight_decay value", 0, error);
}

gboolean
dl_adam_update (DlOptimizer *self,
                const DlOptimizerGroup *group,
                DlTensor *p,
                DlTensor *grad,
                GHashTable *state,
                gboolean decoupled,
                GError **error)
{
  const gchar *name = dl_optimizer_get_display_name (self);
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_ADAM,
    .lr = dl_optimizer_group_get (group, "lr"),
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .beta1 = dl_optimizer_group_get (group, "beta1"),
    .beta2 = dl_optimizer_group_get (group, "beta2"),
    .eps = dl_optimizer_group_get (group, "eps"),
    .amsgrad = dl_optimizer_group_get (group, "amsgrad") != 0,
    .maximize = dl_optimizer_group_get (group, "maximize") != 0,
    .decoupled = decoupled,
  };
  DlTensor *moments[3] = { NULL, NULL, NULL };
  gdouble step;

  if (!(moments[0] = dl_optimizer_state_tensor (state, "exp_avg", p, 0, NULL, error))
      || !(moments[1] = dl_optimizer_state_tensor (state, "exp_avg_sq", p, 0, NULL, error))
      || (args.amsgrad
          && !(moments[2] = dl_optimizer_state_tensor (state, "max_exp_avg_sq", p, 0, NULL, error))))
    return FALSE;
  if ((step = dl_optimizer_state_count (state, "step", DL_DTYPE_FLOAT32, error)) < 0)
    return FALSE;
  args.step_size = args.lr / (1 - pow (args.beta1, step));
  args.bias_correction2_sqrt = sqrt (1 - pow (args.beta2, step));
  return dl_optim_fused_step (name, p, grad, moments, args.amsgrad ? 3 : 2, &args, error);
}

static gboolean
adam_update (DlOptimizer *self,
             const DlOptimizerGroup *group,
             DlTensor *p,
             DlTensor *grad,
             GHashTable *state,
             GError **error)
{
  return dl_adam_update (self, group, p, grad, state, FALSE, error);
}

static gboolean
dl_adam_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, adam_update, error);
}

static void
dl_adam_class_init (DlAdamClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlAdam:beta1:
     *
     * The decay rate of the gradient's running average, in [0, 1)
     * (default 0.9; Python's `betas[0]`).
     *
     * Since: 0.1
     */
    { "beta1", 0.9, FALSE },
    /**
     * DlAdam:beta2:
     *
     * The decay rate of the squared gradient's running average, in
     * [0, 1) (default 0.999; Python's `betas[1]`).
     *
     * Since: 0.1
     */
    { "beta2", 0.999, FALSE },
    /**
     * DlAdam:eps:
     *
     * Added to the denominator, >= 0 (default 1e-8).
     *
     * Since: 0.1
     */
    { "eps", 1e-8, FALSE },
    /**
     * DlAdam:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
    /**
     * DlAdam:amsgrad:
     *
     * Use the AMSGrad variant (the running maximum of the squared
     * average; default %FALSE).
     *
     * Since: 0.1
     */
    { "amsgrad", 0, TRUE },
    /**
     * DlAdam:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_adam_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "Adam");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_adam_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_adam_init (DlAdam *self)
{
}

/**
 * dl_adam_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 0.001)
 * @beta1: the decay rate of the gradient's average (0.9)
 * @beta2: the decay rate of the squared gradient's average (0.999)
 * @eps: added to the denominator (1e-8)
 * @weight_decay: L2 penalty (0)
 * @amsgrad: whether to use AMSGrad
 * @error: return location for a #GError
 *
 * Creates an Adam optimizer and checks its hyperparameters
 * (g_initable_new()).
 *
 * The update is PyTorch's `torch.optim.Adam (params, lr, betas=(beta1,
 * beta2), eps, weight_decay, amsgrad)`: running averages of the gradient and
 * its square, bias-corrected, scale each parameter's step. For decoupled
 * weight decay use #DlAdamW.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlAdam) adam = NULL;
 *
 * if (!(fc = dl_linear_new (20, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * adam = dl_adam_new (params, 1e-3, 0.9, 0.999, 1e-8, 0, FALSE, &error);
 * ]|
 *
 * Fails with %DL_ERROR_ARGUMENT for an empty @params or a hyperparameter out
 * of its range (a negative @lr or @eps, a beta outside [0, 1)).
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter
 *
 * Since: 0.1
 */
DlAdam *
dl_adam_new (GPtrArray *params,
             gdouble lr,
             gdouble beta1,
             gdouble beta2,
             gdouble eps,
             gdouble weight_decay,
             gboolean amsgrad,
             GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_ADAM, NULL, error, "params", store, "lr", lr, "beta1", beta1,
                         "beta2", beta2, "eps", eps, "weight-decay", weight_decay, "amsgrad",
                         amsgrad, NULL);
}
