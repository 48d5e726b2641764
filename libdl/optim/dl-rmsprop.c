/* dl-rmsprop.c: RMSprop as torch.optim.RMSprop computes it (1.13):
 *   g = ±grad + weight_decay * p
 *   s = alpha s + (1 - alpha) g^2
 *   avg = sqrt (s - c^2) with c = alpha c + (1 - alpha) g (centered),
 *         else sqrt (s);  avg += eps
 *   momentum > 0: b = momentum b + g / avg, p = p - lr b
 *   else:         p = p - lr g / avg
 * in one fused kernel per parameter.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-rmsprop.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlRmsprop:
 *
 * The RMSprop optimizer, as torch.optim.RMSprop: #DlOptimizer:lr
 * (PyTorch's default is 0.01), #DlRmsprop:alpha, #DlRmsprop:eps,
 * #DlRmsprop:weight-decay, #DlRmsprop:momentum, #DlRmsprop:centered and
 * #DlRmsprop:maximize. Each parameter's state is "step" (a 0-d int64
 * tensor), "square_avg", "momentum_buffer" (momentum > 0) and
 * "grad_avg" (centered).
 *
 * Since: 0.1
 */
struct _DlRmsprop
{
  DlOptimizer parent_instance;
};

/**
 * DlRmspropClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlRmsprop. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlRmsprop, dl_rmsprop, DL_TYPE_OPTIMIZER)

static gboolean
dl_rmsprop_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  return dl_optimizer_check_min (self, group, "eps", "epsilon value", 0, error)
         && dl_optimizer_check_min (self, group, "momentum", "momentum value", 0, error)
         && dl_optimizer_check_min (self, group, "weight_decay", "weight_decay value", 0, error)
         && dl_optimizer_check_min (self, group, "alpha", "alpha value", 0, error);
}

static gboolean
rmsprop_update (DlOptimizer *self,
                const DlOptimizerGroup *group,
                DlTensor *p,
                DlTensor *grad,
                GHashTable *state,
                GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_RMSPROP,
    .lr = dl_optimizer_group_get (group, "lr"),
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .momentum = dl_optimizer_group_get (group, "momentum"),
    .beta1 = dl_optimizer_group_get (group, "alpha"),
    .eps = dl_optimizer_group_get (group, "eps"),
    .centered = dl_optimizer_group_get (group, "centered") != 0,
    .maximize = dl_optimizer_group_get (group, "maximize") != 0,
  };
  DlTensor *buffers[3] = { NULL, NULL, NULL };
  guint n = 1;

  if (!(buffers[0] = dl_optimizer_state_tensor (state, "square_avg", p, 0, NULL, error)))
    return FALSE;
  if (args.momentum > 0)
    {
      if (!(buffers[1] = dl_optimizer_state_tensor (state, "momentum_buffer", p, 0, NULL, error)))
        return FALSE;
      n = 2;
    }
  if (args.centered)
    {
      if (!(buffers[2] = dl_optimizer_state_tensor (state, "grad_avg", p, 0, NULL, error)))
        return FALSE;
      n = 3;
    }
  /* the kernel reads only the buffers its options use: fill the holes */
  for (guint i = 0; i < n; i++)
    if (buffers[i] == NULL)
      buffers[i] = buffers[0];
  if (dl_optimizer_state_count (state, "step", DL_DTYPE_INT64, error) < 0)
    return FALSE;
  return dl_optim_fused_step ("RMSprop", p, grad, buffers, n, &args, error);
}

static gboolean
dl_rmsprop_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, rmsprop_update, error);
}

static void
dl_rmsprop_class_init (DlRmspropClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlRmsprop:alpha:
     *
     * The smoothing constant of the squared gradient's average, >= 0
     * (default 0.99).
     *
     * Since: 0.1
     */
    { "alpha", 0.99, FALSE },
    /**
     * DlRmsprop:eps:
     *
     * Added to the denominator, >= 0 (default 1e-8).
     *
     * Since: 0.1
     */
    { "eps", 1e-8, FALSE },
    /**
     * DlRmsprop:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
    /**
     * DlRmsprop:momentum:
     *
     * The momentum factor, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "momentum", 0, FALSE },
    /**
     * DlRmsprop:centered:
     *
     * Normalize by the gradient's estimated variance rather than its
     * second moment (default %FALSE).
     *
     * Since: 0.1
     */
    { "centered", 0, TRUE },
    /**
     * DlRmsprop:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_rmsprop_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "RMSprop");
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_rmsprop_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_rmsprop_init (DlRmsprop *self)
{
}

/**
 * dl_rmsprop_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 0.01)
 * @alpha: the smoothing constant (0.99)
 * @eps: added to the denominator (1e-8)
 * @weight_decay: L2 penalty (0)
 * @momentum: the momentum factor (0)
 * @centered: whether to normalize by the estimated variance
 * @error: return location for a #GError
 *
 * Creates an RMSprop optimizer and checks its hyperparameters
 * (g_initable_new()).
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter
 *
 * Since: 0.1
 */
DlRmsprop *
dl_rmsprop_new (GPtrArray *params,
                gdouble lr,
                gdouble alpha,
                gdouble eps,
                gdouble weight_decay,
                gdouble momentum,
                gboolean centered,
                GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_RMSPROP, NULL, error, "params", store, "lr", lr, "alpha", alpha,
                         "eps", eps, "weight-decay", weight_decay, "momentum", momentum,
                         "centered", centered, NULL);
}
