/* dl-asgd.c: averaged SGD as torch.optim.ASGD computes it (1.13):
 *   t += 1;  g = ±grad + weight_decay * p
 *   p = p (1 - lambd eta);  p = p - eta g
 *   ax = mu != 1 ? ax + (p - ax) mu : p
 *   eta = lr / (1 + lambd lr t)^alpha;  mu = 1 / max (1, t - t0)
 * in one fused kernel per parameter; eta and mu are 0-d float32 tensors,
 * as PyTorch's.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <gio/gio.h>

#include "dl-asgd.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"
#include "ops/dl-ops-pointwise.h"

/**
 * DlAsgd:
 *
 * Averaged stochastic gradient descent, as torch.optim.ASGD:
 * #DlOptimizer:lr (PyTorch's default is 0.01), #DlAsgd:lambd,
 * #DlAsgd:alpha, #DlAsgd:t0, #DlAsgd:weight-decay and #DlAsgd:maximize.
 * Each parameter's state is "step", "eta" and "mu" (0-d float32 tensors)
 * and "ax", the running average of the parameter.
 *
 * Since: 0.1
 */
struct _DlAsgd
{
  DlOptimizer parent_instance;
};

/**
 * DlAsgdClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlAsgd. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAsgd, dl_asgd, DL_TYPE_OPTIMIZER)

static gboolean
dl_asgd_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  return dl_optimizer_check_min (self, group, "weight_decay", "weight_decay value", 0, error);
}

static gboolean
asgd_update (DlOptimizer *self,
             const DlOptimizerGroup *group,
             DlTensor *p,
             DlTensor *grad,
             GHashTable *state,
             GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_ASGD,
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .maximize = dl_optimizer_group_get (group, "maximize") != 0,
  };
  gdouble lr = dl_optimizer_group_get (group, "lr");
  gdouble lambd = dl_optimizer_group_get (group, "lambd");
  DlTensor *ax, *eta_t, *mu_t;
  gdouble step, eta, mu;

  if ((step = dl_optimizer_state_count (state, "step", DL_DTYPE_FLOAT32, error)) < 0
      || !(eta_t = dl_optimizer_state_scalar (state, "eta", lr, &eta, error))
      || !(mu_t = dl_optimizer_state_scalar (state, "mu", 1, &mu, error))
      || !(ax = dl_optimizer_state_tensor (state, "ax", p, 0, NULL, error)))
    return FALSE;
  args.lr = eta;
  args.coef1 = 1 - lambd * eta;
  args.coef2 = mu;
  if (!dl_optim_fused_step ("ASGD", p, grad, &ax, 1, &args, error))
    return FALSE;
  /* PyTorch makes each as a new float32 tensor and copies it in (a state
   * loaded for float64 parameters is float64) */
  eta = (gfloat)(lr / pow (1 + lambd * lr * step, dl_optimizer_group_get (group, "alpha")));
  mu = (gfloat)(1 / MAX (1, step - dl_optimizer_group_get (group, "t0")));
  return dl_tensor_fill_ (eta_t, eta, error) && dl_tensor_fill_ (mu_t, mu, error);
}

static gboolean
dl_asgd_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, asgd_update, error);
}

static void
dl_asgd_class_init (DlAsgdClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlAsgd:lambd:
     *
     * The decay term (default 1e-4).
     *
     * Since: 0.1
     */
    { "lambd", 1e-4, FALSE },
    /**
     * DlAsgd:alpha:
     *
     * The power of the learning rate's decay (default 0.75).
     *
     * Since: 0.1
     */
    { "alpha", 0.75, FALSE },
    /**
     * DlAsgd:t0:
     *
     * The step at which averaging starts (default 1e6).
     *
     * Since: 0.1
     */
    { "t0", 1e6, FALSE },
    /**
     * DlAsgd:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
    /**
     * DlAsgd:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_asgd_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "ASGD");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_asgd_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_asgd_init (DlAsgd *self)
{
}

/**
 * dl_asgd_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 0.01)
 * @lambd: the decay term (1e-4)
 * @alpha: the power of the learning rate's decay (0.75)
 * @t0: the step at which averaging starts (1e6)
 * @weight_decay: L2 penalty (0)
 * @error: return location for a #GError
 *
 * Creates an ASGD optimizer and checks its hyperparameters
 * (g_initable_new()): PyTorch's `torch.optim.ASGD (params, lr, lambd,
 * alpha, t0, weight_decay)`. The averaged parameters are each
 * parameter's "ax" state (dl_optimizer_get_state()).
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlAsgd) opt = NULL;
 *
 * if (!(fc = dl_linear_new (20, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * opt = dl_asgd_new (params, 0.01, 1e-4, 0.75, 1e6, 0, &error);
 * ]|
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter (a negative @lr
 *   or @weight_decay)
 *
 * Since: 0.1
 */
DlAsgd *
dl_asgd_new (GPtrArray *params,
             gdouble lr,
             gdouble lambd,
             gdouble alpha,
             gdouble t0,
             gdouble weight_decay,
             GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_ASGD, NULL, error, "params", store, "lr", lr, "lambd", lambd,
                         "alpha", alpha, "t0", t0, "weight-decay", weight_decay, NULL);
}
