/* dl-sgd.c: SGD as torch.optim.SGD computes it:
 *   g = ±grad + weight_decay * p
 *   b = g on the first step, else momentum * b + (1 - dampening) * g
 *   g = g + momentum * b if nesterov, else b (when momentum != 0)
 *   p = p - lr * g
 * in one fused kernel per parameter (ops/dl-ops-optim-private.h).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-sgd.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlSgd:
 *
 * Stochastic gradient descent with optional momentum, dampening, weight
 * decay and Nesterov momentum, as torch.optim.SGD.
 *
 * Its hyperparameters are properties: #DlOptimizer:params and
 * #DlOptimizer:lr, #DlSgd:momentum, #DlSgd:dampening,
 * #DlSgd:weight-decay, #DlSgd:nesterov and #DlSgd:maximize (see
 * #DlOptimizer for building it from them and for parameter groups);
 * dl_sgd_new() takes the most used. Each parameter's state is its
 * "momentum_buffer", which holds no tensor (PyTorch's None) when momentum
 * is 0.
 *
 * Since: 0.1
 */
struct _DlSgd
{
  DlOptimizer parent_instance;
};

/**
 * DlSgdClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlSgd. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSgd, dl_sgd, DL_TYPE_OPTIMIZER)

/* torch.optim.SGD's checks; the learning rate is DlOptimizer's */
static gboolean
dl_sgd_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  if (!dl_optimizer_check_min (self, group, "momentum", "momentum value", 0, error)
      || !dl_optimizer_check_min (self, group, "weight_decay", "weight_decay value", 0, error))
    return FALSE;
  if (dl_optimizer_group_get (group, "nesterov") != 0
      && (dl_optimizer_group_get (group, "momentum") <= 0
          || dl_optimizer_group_get (group, "dampening") != 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "SGD: Nesterov momentum requires a momentum and zero dampening");
      return FALSE;
    }
  return TRUE;
}

static gboolean
sgd_update (DlOptimizer *self,
            const DlOptimizerGroup *group,
            DlTensor *p,
            DlTensor *grad,
            GHashTable *state,
            GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_SGD,
    .lr = dl_optimizer_group_get (group, "lr"),
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .momentum = dl_optimizer_group_get (group, "momentum"),
    .dampening = dl_optimizer_group_get (group, "dampening"),
    .nesterov = dl_optimizer_group_get (group, "nesterov") != 0,
    .maximize = dl_optimizer_group_get (group, "maximize") != 0,
  };
  DlTensor *buf = NULL;

  if (args.momentum != 0
      && !(buf
           = dl_optimizer_state_tensor (state, "momentum_buffer", p, 0, &args.first_step, error)))
    return FALSE;
  /* torch 1.13 records a None buffer without momentum */
  if (args.momentum == 0 && !g_hash_table_contains (state, "momentum_buffer"))
    g_hash_table_insert (state, g_strdup ("momentum_buffer"), NULL);
  return dl_optim_fused_step ("SGD", p, grad, &buf, buf ? 1 : 0, &args, error);
}

static gboolean
dl_sgd_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, sgd_update, error);
}

static void
dl_sgd_class_init (DlSgdClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlSgd:momentum:
     *
     * The momentum factor, >= 0 (default 0: plain SGD).
     *
     * Since: 0.1
     */
    { "momentum", 0, FALSE },
    /**
     * DlSgd:dampening:
     *
     * Dampening for momentum (default 0).
     *
     * Since: 0.1
     */
    { "dampening", 0, FALSE },
    /**
     * DlSgd:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
    /**
     * DlSgd:nesterov:
     *
     * Whether to use Nesterov momentum (needs a momentum and zero
     * dampening).
     *
     * Since: 0.1
     */
    { "nesterov", 0, TRUE },
    /**
     * DlSgd:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_sgd_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "SGD");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_sgd_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_sgd_init (DlSgd *self)
{
}

/**
 * dl_sgd_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate
 * @momentum: the momentum factor (0 for plain SGD)
 * @dampening: dampening for momentum
 * @weight_decay: L2 penalty
 * @nesterov: whether to use Nesterov momentum
 * @error: return location for a #GError
 *
 * Creates an optimizer from its construct properties and checks them
 * (g_initable_new()).
 *
 * The update is PyTorch's `torch.optim.SGD (params, lr, momentum, dampening,
 * weight_decay, nesterov)`: with g the gradient plus @weight_decay times the
 * parameter, the velocity v = @momentum * v + (1 - @dampening) * g (v = g at
 * the first step) and the parameter moves by -@lr * v (or by -@lr * (g +
 * @momentum * v) with @nesterov).
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (GPtrArray) params = NULL;
 * g_autoptr (DlSgd) sgd = NULL;
 *
 * if (!(fc = dl_linear_new (20, 2, TRUE, &error)))
 *   return;
 * params = dl_module_parameters (DL_MODULE (fc));
 * sgd = dl_sgd_new (params, 0.01, 0.9, 0, 5e-4, FALSE, &error);
 * ]|
 *
 * The optimizer keeps its own references to the parameters. Fails with
 * %DL_ERROR_ARGUMENT for an empty @params, a negative @lr, @momentum or
 * @weight_decay, or @nesterov without momentum or with dampening.
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or invalid hyper-parameters
 *
 * Since: 0.1
 */
DlSgd *
dl_sgd_new (GPtrArray *params,
            gdouble lr,
            gdouble momentum,
            gdouble dampening,
            gdouble weight_decay,
            gboolean nesterov,
            GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_SGD, NULL, error, "params", store, "lr", lr, "momentum", momentum,
                         "dampening", dampening, "weight-decay", weight_decay, "nesterov", nesterov,
                         NULL);
}
