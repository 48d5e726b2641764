/* dl-adadelta.c: Adadelta as torch.optim.Adadelta computes it (1.13):
 *   t += 1;  g = ±grad + weight_decay * p
 *   s = rho s + (1 - rho) g^2;  d = sqrt (acc + eps) / sqrt (s + eps) g
 *   acc = rho acc + (1 - rho) d^2;  p = p - lr d
 * in one fused kernel per parameter.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-adadelta.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlAdadelta:
 *
 * The Adadelta optimizer, as torch.optim.Adadelta: #DlOptimizer:lr
 * (PyTorch's default is 1), #DlAdadelta:rho, #DlAdadelta:eps,
 * #DlAdadelta:weight-decay and #DlAdadelta:maximize. Each parameter's
 * state is "step" (a 0-d int64 tensor: PyTorch's Python int),
 * "square_avg" and "acc_delta".
 *
 * Since: 0.1
 */
struct _DlAdadelta
{
  DlOptimizer parent_instance;
};

/**
 * DlAdadeltaClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlAdadelta. The type is final: its class adds
 * no virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAdadelta, dl_adadelta, DL_TYPE_OPTIMIZER)

static gboolean
dl_adadelta_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  gdouble rho = dl_optimizer_group_get (group, "rho");

  if (!(rho >= 0 && rho <= 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "Adadelta: Invalid rho value: %g", rho);
      return FALSE;
    }
  return dl_optimizer_check_min (self, group, "eps", "epsilon value", 0, error)
         && dl_optimizer_check_min (self, group, "weight_decay", "weight_decay value", 0, error);
}

static gboolean
adadelta_update (DlOptimizer *self,
                 const DlOptimizerGroup *group,
                 DlTensor *p,
                 DlTensor *grad,
                 GHashTable *state,
                 GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_ADADELTA,
    .lr = dl_optimizer_group_get (group, "lr"),
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .beta1 = dl_optimizer_group_get (group, "rho"),
    .eps = dl_optimizer_group_get (group, "eps"),
    .maximize = dl_optimizer_group_get (group, "maximize") != 0,
  };
  DlTensor *buffers[2];

  if (!(buffers[0] = dl_optimizer_state_tensor (state, "square_avg", p, 0, NULL, error))
      || !(buffers[1] = dl_optimizer_state_tensor (state, "acc_delta", p, 0, NULL, error))
      || dl_optimizer_state_count (state, "step", DL_DTYPE_INT64, error) < 0)
    return FALSE;
  return dl_optim_fused_step ("Adadelta", p, grad, buffers, 2, &args, error);
}

static gboolean
dl_adadelta_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, adadelta_update, error);
}

static void
dl_adadelta_class_init (DlAdadeltaClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlAdadelta:rho:
     *
     * The decay rate of the running averages of the squared gradient
     * and the squared update, in [0, 1] (default 0.9).
     *
     * Since: 0.1
     */
    { "rho", 0.9, FALSE },
    /**
     * DlAdadelta:eps:
     *
     * Added inside both square roots, >= 0 (default 1e-6).
     *
     * Since: 0.1
     */
    { "eps", 1e-6, FALSE },
    /**
     * DlAdadelta:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
    /**
     * DlAdadelta:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_adadelta_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "Adadelta");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_adadelta_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_adadelta_init (DlAdadelta *self)
{
}

/**
 * dl_adadelta_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate, a scale on the update (PyTorch's default: 1)
 * @rho: the decay rate of the running averages (0.9)
 * @eps: added inside the square roots (1e-6)
 * @weight_decay: L2 penalty (0)
 * @error: return location for a #GError
 *
 * Creates an Adadelta optimizer and checks its hyperparameters
 * (g_initable_new()): PyTorch's `torch.optim.Adadelta (params, lr, rho,
 * eps, weight_decay)`.
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlAdadelta) opt = NULL;
 *
 * if (!(fc = dl_linear_new (20, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * opt = dl_adadelta_new (params, 1.0, 0.9, 1e-6, 0, &error);
 * ]|
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter (a negative @lr,
 *   @eps or @weight_decay, a @rho outside [0, 1])
 *
 * Since: 0.1
 */
DlAdadelta *
dl_adadelta_new (GPtrArray *params,
                 gdouble lr,
                 gdouble rho,
                 gdouble eps,
                 gdouble weight_decay,
                 GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_ADADELTA, NULL, error, "params", store, "lr", lr, "rho", rho,
                         "eps", eps, "weight-decay", weight_decay, NULL);
}
