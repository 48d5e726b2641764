/* dl-adagrad.c: Adagrad as torch.optim.Adagrad computes it (1.13):
 *   t += 1;  g = ±grad + weight_decay * p
 *   clr = lr / (1 + (t - 1) lr_decay)
 *   s = s + g^2;  p = p - clr g / (sqrt (s) + eps)
 * in one fused kernel per parameter.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-adagrad.h"
#include "dl-optimizer-private.h"
#include "dl-error.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-optim-private.h"

/**
 * DlAdagrad:
 *
 * The Adagrad optimizer, as torch.optim.Adagrad: #DlOptimizer:lr
 * (PyTorch's default is 0.01), #DlAdagrad:lr-decay,
 * #DlAdagrad:weight-decay, #DlAdagrad:initial-accumulator-value,
 * #DlAdagrad:eps and #DlAdagrad:maximize. Each parameter's state is
 * "step" (a 0-d float32 tensor) and "sum", made with the optimizer (and
 * for the parameters of a group added later), as PyTorch's.
 *
 * Since: 0.1
 */
struct _DlAdagrad
{
  DlOptimizer parent_instance;
};

/**
 * DlAdagradClass:
 * @parent_class: the class of #DlOptimizer
 *
 * The class structure of #DlAdagrad. The type is final: its class adds no
 * virtual method to that of #DlOptimizer, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlAdagrad, dl_adagrad, DL_TYPE_OPTIMIZER)

static gboolean
dl_adagrad_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error)
{
  return dl_optimizer_check_min (self, group, "lr_decay", "lr_decay value", 0, error)
         && dl_optimizer_check_min (self, group, "weight_decay", "weight_decay value", 0, error)
         && dl_optimizer_check_min (self, group, "initial_accumulator_value",
                                    "initial_accumulator_value value", 0, error)
         && dl_optimizer_check_min (self, group, "eps", "epsilon value", 0, error);
}

static gboolean
adagrad_update (DlOptimizer *self,
                const DlOptimizerGroup *group,
                DlTensor *p,
                DlTensor *grad,
                GHashTable *state,
                GError **error)
{
  DlOptimStepArgs args = {
    .kind = DL_OPTIM_ADAGRAD,
    .weight_decay = dl_optimizer_group_get (group, "weight_decay"),
    .eps = dl_optimizer_group_get (group, "eps"),
    .maximize = dl_optimizer_group_get (group, "maximize") != 0,
  };
  DlTensor *sum;
  gdouble step;

  if (!(sum = dl_optimizer_state_tensor (state, "sum", p,
                                         dl_optimizer_group_get (group, "initial_accumulator_value"),
                                         NULL, error)))
    return FALSE;
  if ((step = dl_optimizer_state_count (state, "step", DL_DTYPE_FLOAT32, error)) < 0)
    return FALSE;
  args.lr = dl_optimizer_group_get (group, "lr")
            / (1 + (step - 1) * dl_optimizer_group_get (group, "lr_decay"));
  return dl_optim_fused_step ("Adagrad", p, grad, &sum, 1, &args, error);
}

/* torch.optim.Adagrad makes "step" (a float32 0) and "sum" when it is
 * constructed, so its state dict has them before any step */
static gboolean
adagrad_init_state (DlOptimizer *self,
                    const DlOptimizerGroup *group,
                    DlTensor *p,
                    DlTensor *grad,
                    GHashTable *state,
                    GError **error)
{
  if (!g_hash_table_contains (state, "step"))
    {
      DlTensor *step = dl_zeros (NULL, 0, DL_DTYPE_FLOAT32, NULL, error);

      if (!step)
        return FALSE;
      g_hash_table_insert (state, g_strdup ("step"), step);
    }
  return dl_optimizer_state_tensor (state, "sum", p,
                                    dl_optimizer_group_get (group, "initial_accumulator_value"),
                                    NULL, error)
         != NULL;
}

static gboolean
dl_adagrad_step (DlOptimizer *self, GError **error)
{
  return dl_optimizer_foreach_update (self, adagrad_update, error);
}

static void
dl_adagrad_class_init (DlAdagradClass *klass)
{
  static const DlOptimizerOption options[] = {
    /**
     * DlAdagrad:lr-decay:
     *
     * The learning rate decay, >= 0 (default 0): step t uses
     * lr / (1 + (t - 1) lr_decay).
     *
     * Since: 0.1
     */
    { "lr-decay", 0, FALSE },
    /**
     * DlAdagrad:weight-decay:
     *
     * The L2 penalty, >= 0 (default 0).
     *
     * Since: 0.1
     */
    { "weight-decay", 0, FALSE },
    /**
     * DlAdagrad:initial-accumulator-value:
     *
     * The starting value of the sum of squared gradients, >= 0
     * (default 0).
     *
     * Since: 0.1
     */
    { "initial-accumulator-value", 0, FALSE },
    /**
     * DlAdagrad:eps:
     *
     * Added to the denominator, >= 0 (default 1e-10).
     *
     * Since: 0.1
     */
    { "eps", 1e-10, FALSE },
    /**
     * DlAdagrad:maximize:
     *
     * Maximize the objective rather than minimize it (default %FALSE).
     *
     * Since: 0.1
     */
    { "maximize", 0, TRUE },
  };

  DL_OPTIMIZER_CLASS (klass)->step = dl_adagrad_step;
  dl_optimizer_class_set_display_name (DL_OPTIMIZER_CLASS (klass), "Adagrad");
  dl_optimizer_class_set_init_state (DL_OPTIMIZER_CLASS (klass), adagrad_init_state);
  dl_optimizer_class_set_check (DL_OPTIMIZER_CLASS (klass), dl_adagrad_check);
  dl_optimizer_class_install_options (DL_OPTIMIZER_CLASS (klass), options, G_N_ELEMENTS (options));
}

static void
dl_adagrad_init (DlAdagrad *self)
{
}

/**
 * dl_adagrad_new:
 * @params: (element-type DlTensor): the parameters to optimize
 * @lr: the learning rate (PyTorch's default: 0.01)
 * @lr_decay: the learning rate decay (0)
 * @weight_decay: L2 penalty (0)
 * @initial_accumulator_value: the starting sum of squared gradients (0)
 * @eps: added to the denominator (1e-10)
 * @error: return location for a #GError
 *
 * Creates an Adagrad optimizer and checks its hyperparameters
 * (g_initable_new()).
 *
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   an empty parameter list or an invalid hyperparameter
 *
 * Since: 0.1
 */
DlAdagrad *
dl_adagrad_new (GPtrArray *params,
                gdouble lr,
                gdouble lr_decay,
                gdouble weight_decay,
                gdouble initial_accumulator_value,
                gdouble eps,
                GError **error)
{
  g_autoptr (GListStore) store = NULL;

  g_return_val_if_fail (params != NULL, NULL);
  store = dl_optimizer_params_store (params);
  return g_initable_new (DL_TYPE_ADAGRAD, NULL, error, "params", store, "lr", lr, "lr-decay",
                         lr_decay, "weight-decay", weight_decay, "initial-accumulator-value",
                         initial_accumulator_value, "eps", eps, NULL);
}
