/* dl-nadam.c: NAdam as torch.optim.NAdam computes it (1.13):
 *   t += 1;  g = grad + weight_decay * p
 *   mu = beta1 (1 - 0.96^(t md) / 2);  mu' = beta1 (1 - 0.96^((t + 1) md) / 2)
 *   P = P mu (a float32 0-d tensor, as PyTorch's);  P' = P mu'
 *   m, v as Adam's;  den = sqrt (v / (1 - beta2^t)) + eps
 *   p = p - lr (1 - mu) / (1 - P) g / den - lr mu' / (1 - P') m / den
 * in one fused kernel per parameter.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <gio/gio.h>

#include "dl-nadam.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"
#include "ops/dl-ops-pointwise.h"

/**
 * DlNadam:
 *
 * The NAdam optimizer (Adam with Nesterov momentum), as
 * torch.optim.NAdam: #DlOptimizer:lr (PyTorch's default is 0.002),
 * #DlNadam:beta1 and #DlNadam:beta2 (Python's `betas`), #DlNadam:eps,
 * #DlNadam:weight-decay and #DlNadam:momentum-decay. Each parameter's
 * state is "step" and "mu_product" (0-d float32 tensors), "exp_avg" and
 * "exp_avg_sq".
 *
 * Since: 0.1
 */
struct _DlNadam
{
  DlOptimizer parent_instance;
};

/**
 * DlNadamClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlNadam. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlNadam, dl_nadam, DL_TYPE_OPTIMIZER)

static gboolean
dl_nadam_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  return dl_adam_check (self, group, error)
         && dl_optimizer_check_min (self, group, "momentum_decay", "momentum_decay value", 0,
                                    error);
}

static gboolean
nadam_update (DlOptimizer *self,
              const DlOptimizerGroup *group,
              DlTensor *p,
              DlTensor *grad,
              GHashTable *state,
              GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_NADAM,
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .beta1 = dl_optimizer_group_get (group, "beta1"),
    .beta2 = dl_optimizer_group_get (group, "beta2"),
    .eps = dl_optimizer_group_get (group, "eps"),
  };
  gdouble lr = dl_optimizer_group_get (group, "lr");
  gdouble md = dl_optimizer_group_get (group, "momentum_decay");
  DlTensor *buffers[2], *product;
  gdouble step, mu, mu_next, prod, prod_next;

  if (!(buffers[0] = dl_optimizer_state_tensor (state, "exp_avg", p, 0, NULL, error))
      || !(buffers[1] = dl_optimizer_state_tensor (state, "exp_avg_sq", p, 0, NULL, error))
      || !(product = dl_optimizer_state_scalar (state, "mu_product", 1, &prod, error))
      || (step = dl_optimizer_state_count (state, "step", DL_DTYPE_FLOAT32, error)) < 0)
    return FALSE;
  mu = args.beta1 * (1. - 0.5 * pow (0.96, step * md));
  mu_next = args.beta1 * (1. - 0.5 * pow (0.96, (step + 1) * md));
  /* PyTorch multiplies a float32 tensor by the numbers as float32 */
  prod = (gfloat)(prod * (gfloat)mu);
  if (!dl_tensor_fill_ (product, prod, error))
    return FALSE;
  prod_next = (gfloat)((gfloat)(prod * (gfloat)mu) * (gfloat)mu_next);
  args.bias_correction = 1 - pow (args.beta2, step);
  args.coef1 = -lr * (1. - mu) / (1. - prod);
  args.coef2 = -lr * mu_next / (1. - prod_next);
  return dl_optim_fused_step ("NAdam", p, grad, buffers, 2, &args, error);
}

static gboolean
dl_nadam_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, nadam_update, error);
}

static void
dl_nadam_class_init (DlNadamClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlNadam:beta1:
     *
     * The decay rate of the gradient's running average, in [0, 1)
     * (default 0.9; Python's `betas[0]`).
     *
     * Since: 0.1
     */
    { "beta1", 0.9, FALSE },
    /**
     * DlNadam:beta2:
     *
     * The decay rate of the squared gradient's running average, in
     * [0, 1) (default 0.999; Python's `betas[1]`).
     *
     * Since: 0.1
     */
    { "beta2", 0.999, FALSE },
    /**
     * DlNadam:eps:
     *
     * Added to the denominator, >= 0 (default 1e-8).
     *
     * Since: 0.1
     */
    { "eps", 1e-8, FALSE },
    /**
     * DlNadam:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
    /**
     * DlNadam:momentum-decay:
     *
     * The momentum decay ψ of the momentum schedule, >= 0 (default 0.004).
     *
     * Since: 0.1
     */
    { "momentum-decay", 4e-3, FALSE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_nadam_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "NAdam");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_nadam_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_nadam_init (DlNadam *self)
{
}

/**
 * dl_nadam_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 0.002)
 * @beta1: the decay rate of the gradient's average (0.9)
 * @beta2: the decay rate of the squared gradient's average (0.999)
 * @eps: added to the denominator (1e-8)
 * @weight_decay: L2 penalty (0)
 * @momentum_decay: the momentum decay (0.004)
 * @error: return location for a #GError
 *
 * Creates a NAdam optimizer and checks its hyperparameters
 * (g_initable_new()): PyTorch's `torch.optim.NAdam (params, lr,
 * betas=(beta1, beta2), eps, weight_decay, momentum_decay)`.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlNadam) opt = NULL;
 *
 * if (!(fc = dl_linear_new (20, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * opt = dl_nadam_new (params, 2e-3, 0.9, 0.999, 1e-8, 0, 4e-3, &error);
 * ]|
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter (a negative @lr,
 *   @eps, @weight_decay or @momentum_decay, a beta outside [0, 1))
 *
 * Since: 0.1
 */
DlNadam *
dl_nadam_new (GPtrArray *params,
              gdouble lr,
              gdouble beta1,
              gdouble beta2,
              gdouble eps,
              gdouble weight_decay,
              gdouble momentum_decay,
              GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_NADAM, NULL, error, "params", store, "lr", lr, "beta1", beta1,
                         "beta2", beta2, "eps", eps, "weight-decay", weight_decay, "momentum-decay",
                         momentum_decay, NULL);
}
