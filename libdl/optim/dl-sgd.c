/* dl-sgd.c: SGD as torch.optim.SGD computes it:
 *   g = grad + weight_decay * p
 *   b = g on the first step, else momentum * b + (1 - dampening) * g
 *   g = g + momentum * b if nesterov, else b (when momentum != 0)
 *   p = p - lr * g
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-sgd.h"
#include "dl-error.h"
#include "ops/dl-ops-private.h"

/**
 * DlSgd:
 *
 * Stochastic gradient descent with optional momentum, dampening, weight
 * decay and Nesterov momentum.
 *
 * Since: 0.1
 */
struct _DlSgd
{
  DlOptimizer parent_instance;
  gdouble momentum;
  gdouble dampening;
  gdouble weight_decay;
  gboolean nesterov;
  GHashTable *buffers; /* DlTensor param -> DlTensor momentum buffer */
};

G_DEFINE_FINAL_TYPE (DlSgd, dl_sgd, DL_TYPE_OPTIMIZER)

static gboolean
dl_sgd_step (DlOptimizer *optimizer, GError **error)
{
  DlSgd *self = DL_SGD (optimizer);
  GPtrArray *params = dl_optimizer_get_params (optimizer);
  gdouble lr = dl_optimizer_get_lr (optimizer);

  for (guint i = 0; i < params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (params, i);
      DlTensor *grad = dl_tensor_get_grad (p);
      g_autoptr (DlTensor) g = NULL;

      if (grad == NULL)
        continue;
      if (self->weight_decay != 0)
        TRY (g = dl_tensor_add_scaled (grad, p, self->weight_decay, error));
      else
        g = g_object_ref (grad);

      if (self->momentum != 0)
        {
          DlTensor *buf = g_hash_table_lookup (self->buffers, p);

          if (buf == NULL)
            {
              TRY (buf = dl_tensor_clone (g, error));
              g_hash_table_insert (self->buffers, g_object_ref (p), buf);
            }
          else
            {
              TRY (dl_tensor_mul_scalar_ (buf, self->momentum, error));
              TRY (dl_tensor_add_scaled_ (buf, g, 1 - self->dampening, error));
            }
          if (self->nesterov)
            {
              DlTensor *n = dl_tensor_add_scaled (g, buf, self->momentum, error);
              TRY (n);
              g_object_unref (g);
              g = n;
            }
          else
            {
              g_object_unref (g);
              g = g_object_ref (buf);
            }
        }
      TRY (dl_tensor_add_scaled_ (p, g, -lr, error));
    }
  return TRUE;
}

static void
dl_sgd_finalize (GObject *object)
{
  DlSgd *self = DL_SGD (object);

  g_hash_table_unref (self->buffers);
  G_OBJECT_CLASS (dl_sgd_parent_class)->finalize (object);
}

static void
dl_sgd_class_init (DlSgdClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dl_sgd_finalize;
  DL_OPTIMIZER_CLASS (klass)->step = dl_sgd_step;
}

static void
dl_sgd_init (DlSgd *self)
{
  self->buffers = g_hash_table_new_full (NULL, NULL, g_object_unref, g_object_unref);
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
 * Returns: (transfer full): a new optimizer, or %NULL with @error set for
 *   invalid hyper-parameters
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
  DlSgd *self;

  g_return_val_if_fail (params != NULL, NULL);
  if (lr < 0 || momentum < 0 || weight_decay < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "SGD: invalid %s value: %g",
                   lr < 0         ? "learning rate"
                   : momentum < 0 ? "momentum"
                                  : "weight_decay",
                   lr < 0         ? lr
                   : momentum < 0 ? momentum
                                  : weight_decay);
      return NULL;
    }
  if (nesterov && (momentum <= 0 || dampening != 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "SGD: Nesterov momentum requires a momentum and zero dampening");
      return NULL;
    }
  if (params->len == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "SGD: optimizer got an empty parameter list");
      return NULL;
    }
  self = g_object_new (DL_TYPE_SGD, "lr", lr, NULL);
  self->momentum = momentum;
  self->dampening = dampening;
  self->weight_decay = weight_decay;
  self->nesterov = nesterov;
  dl_optimizer_add_params (DL_OPTIMIZER (self), params);
  return self;
}
