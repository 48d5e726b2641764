/* dl-adamw.c: AdamW as torch.optim.AdamW computes it (1.13): Adam's
 * update (dl-adam.c) with the weight decay applied to the parameter,
 *   p = p (1 - lr weight_decay)
 * before the step rather than added to the gradient.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-adamw.h"
#include "dl-optimizer-private.h"

/**
 * DlAdamW:
 *
 * Adam with decoupled weight decay, as torch.optim.AdamW:
 * #DlOptimizer:lr,
 * #DlAdamW:beta1 and #DlAdamW:beta2 (Python's `betas`), #DlAdamW:eps,
 * #DlAdamW:weight-decay (applied to the parameters, not the gradient),
 * #DlAdamW:amsgrad and #DlAdamW:maximize. Each parameter's state is
 * "step" (a 0-d float32 tensor), "exp_avg", "exp_avg_sq" and, with
 * amsgrad, "max_exp_avg_sq".
 *
 * Since: 0.1
 */
struct _DlAdamW
{
  DlOptimizer parent_instance;
};

/**
 * DlAdamWClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlAdamW. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAdamW, dl_adamw, DL_TYPE_OPTIMIZER)

static gboolean
adamw_update (DlOptimizer *self,
             const DlOptimizerGroup *group,
             DlTensor *p,
             DlTensor *grad,
             GHashTable *state,
             GError **error)
{
  return dl_adam_update (self, group, p, grad, state, TRUE, error);
}

static gboolean
dl_adamw_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, adamw_update, error);
}

static void
dl_adamw_class_init (DlAdamWClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlAdamW:beta1:
     *
     * The decay rate of the gradient's running average, in [0, 1)
     * (default 0.9; Python's `betas[0]`).
     *
     * Since: 0.1
     */
    { "beta1", 0.9, FALSE },
    /**
     * DlAdamW:beta2:
     *
     * The decay rate of the squared gradient's running average, in
     * [0, 1) (default 0.999; Python's `betas[1]`).
     *
     * Since: 0.1
     */
    { "beta2", 0.999, FALSE },
    /**
     * DlAdamW:eps:
     *
     * Added to the denominator, >= 0 (default 1e-8).
     *
     * Since: 0.1
     */
    { "eps", 1e-8, FALSE },
    /**
     * DlAdamW:weight-decay:
     *
     * The decoupled weight decay, >= 0 (default 0.01): each step first
     * scales the parameters by 1 - lr * weight_decay.
     *
     * Since: 0.1
     */
    { "weight-decay", 1e-2, FALSE },
    /**
     * DlAdamW:amsgrad:
     *
     * Use the AMSGrad variant (the running maximum of the squared
     * average; default %FALSE).
     *
     * Since: 0.1
     */
    { "amsgrad", 0, TRUE },
    /**
     * DlAdamW:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_adamw_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "AdamW");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_adam_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_adamw_init (DlAdamW *self)
{
}

/**
 * dl_adamw_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 0.001)
 * @beta1: the decay rate of the gradient's average (0.9)
 * @beta2: the decay rate of the squared gradient's average (0.999)
 * @eps: added to the denominator (1e-8)
 * @weight_decay: the decoupled weight decay (0.01)
 * @amsgrad: whether to use AMSGrad
 * @error: return location for a #GError
 *
 * Creates an AdamW optimizer and checks its hyperparameters
 * (g_initable_new()).
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter
 *
 * Since: 0.1
 */
DlAdamW *
dl_adamw_new (GPtrArray *params,
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
  return g_initable_new (DL_TYPE_ADAMW, NULL, error, "params", store, "lr", lr, "beta1", beta1,
                         "beta2", beta2, "eps", eps, "weight-decay", weight_decay, "amsgrad",
                         amsgrad, NULL);
}
