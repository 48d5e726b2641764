/* dl-loss-modules.c: the losses as modules. Each takes (input, target)
 * through forward_many and gives the loss of its function in dl-loss.c;
 * its options are construct properties, checked in constructed (a bad
 * value is the construct error GInitable reports). All share one instance
 * layout, LossModule, and the property code (dl-loss-modules-private.h,
 * which the margin losses of dl-margin-loss-modules.c share too); each
 * class installs the properties it has.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-loss-modules.h"
#include "dl-module-private.h"
#include "dl-enums.h"
#include "dl-error.h"
#include "dl-loss-modules-private.h"

/* ---- what all losses share ------------------------------------------------- */

typedef DlTensor *(*LossCompute) (LossModule *loss,
                                  DlTensor *input,
                                  DlTensor *target,
                                  GError **error);

static void
loss_forward_many (LossModule *self,
                   const gchar *name,
                   LossCompute compute,
                   GPtrArray *inputs,
                   GPtrArray **outputs,
                   GError **error)
{
  DlTensor *loss;

  if (inputs->len != 2 || g_ptr_array_index (inputs, 0) == NULL
      || g_ptr_array_index (inputs, 1) == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: takes two inputs (input, target), got %u", name, inputs->len);
      return;
    }
  if (!(loss = compute (self, g_ptr_array_index (inputs, 0), g_ptr_array_index (inputs, 1), error)))
    return;
  *outputs = g_ptr_array_new (); /* the invoker adds the free function */
  g_ptr_array_add (*outputs, loss);
}

/* the weights become buffers, as torch registers them ("weight" then
 * "pos_weight", absent ones included), so they are in the state dict and
 * follow the module's conversions; then the options' values are checked,
 * as PyTorch checks them when the loss runs */
void
dl_loss_check_options (LossModule *self, const gchar *name, guint mask)
{
  GError *error = NULL;

  if (mask & LOSS_WEIGHT)
    dl_module_register_buffer (DL_MODULE (self), "weight", self->weight, TRUE);
  if (mask & LOSS_POS_WEIGHT)
    dl_module_register_buffer (DL_MODULE (self), "pos_weight", self->pos_weight, TRUE);
  g_clear_object (&self->weight);
  g_clear_object (&self->pos_weight);

  if (self->reduction == DL_REDUCTION_BATCHMEAN && !(mask & LOSS_LOG_TARGET))
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                         "%s: batchmean is not a valid value for reduction", name);
  else if ((mask & LOSS_LABEL_SMOOTHING)
           && !(self->label_smoothing >= 0 && self->label_smoothing <= 1))
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                         "%s: label_smoothing must be between 0.0 and 1.0. Got: %g", name,
                         self->label_smoothing);
  else if ((mask & LOSS_BETA) && !(self->beta >= 0))
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                         "%s: does not support negative values for beta, got %g", name, self->beta);
  else if ((mask & LOSS_DELTA) && !(self->delta > 0))
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                         "%s: does not support non-positive values for delta, got %g", name,
                         self->delta);
  else if ((mask & LOSS_P_1_OR_2) && self->p != 1 && self->p != 2)
    error = g_error_new (DL_ERROR, DL_ERROR_ARGUMENT, "%s: only p == 1 and p == 2 supported", name);
  if (error)
    dl_module_take_construct_error (DL_MODULE (self), error);
}

static void
loss_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  LossModule *self = (LossModule *)object;

  switch (prop_id)
    {
      case PROP_REDUCTION:
        g_value_set_enum (value, self->reduction);
        break;
      case PROP_WEIGHT:
        g_value_set_object (value, dl_module_get_buffer (DL_MODULE (self), "weight"));
        break;
      case PROP_POS_WEIGHT:
        g_value_set_object (value, dl_module_get_buffer (DL_MODULE (self), "pos_weight"));
        break;
      case PROP_IGNORE_INDEX:
        g_value_set_int64 (value, self->ignore_index);
        break;
      case PROP_LABEL_SMOOTHING:
        g_value_set_double (value, self->label_smoothing);
        break;
      case PROP_BETA:
        g_value_set_double (value, self->beta);
        break;
      case PROP_DELTA:
        g_value_set_double (value, self->delta);
        break;
      case PROP_LOG_TARGET:
        g_value_set_boolean (value, self->log_target);
        break;
      case PROP_MARGIN:
        g_value_set_double (value, self->margin);
        break;
      case PROP_P:
        g_value_set_double (value, self->p);
        break;
      case PROP_EPS:
        g_value_set_double (value, self->eps);
        break;
      case PROP_SWAP:
        g_value_set_boolean (value, self->swap);
        break;
      case PROP_DIM:
        g_value_set_int64 (value, self->dim);
        break;
      case PROP_KEEPDIM:
        g_value_set_boolean (value, self->keepdim);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
loss_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  LossModule *self = (LossModule *)object;

  switch (prop_id)
    {
      case PROP_REDUCTION:
        self->reduction = g_value_get_enum (value);
        break;
      case PROP_WEIGHT:
        g_set_object (&self->weight, g_value_get_object (value));
        break;
      case PROP_POS_WEIGHT:
        g_set_object (&self->pos_weight, g_value_get_object (value));
        break;
      case PROP_IGNORE_INDEX:
        self->ignore_index = g_value_get_int64 (value);
        break;
      case PROP_LABEL_SMOOTHING:
        self->label_smoothing = g_value_get_double (value);
        break;
      case PROP_BETA:
        self->beta = g_value_get_double (value);
        break;
      case PROP_DELTA:
        self->delta = g_value_get_double (value);
        break;
      case PROP_LOG_TARGET:
        self->log_target = g_value_get_boolean (value);
        break;
      case PROP_MARGIN:
        self->margin = g_value_get_double (value);
        break;
      case PROP_P:
        self->p = g_value_get_double (value);
        break;
      case PROP_EPS:
        self->eps = g_value_get_double (value);
        break;
      case PROP_SWAP:
        self->swap = g_value_get_boolean (value);
        break;
      case PROP_DIM:
        self->dim = g_value_get_int64 (value);
        break;
      case PROP_KEEPDIM:
        self->keepdim = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
loss_dispose (GObject *object)
{
  LossModule *self = (LossModule *)object;

  g_clear_object (&self->weight);
  g_clear_object (&self->pos_weight);
  G_OBJECT_CLASS (g_type_class_peek_parent (G_OBJECT_GET_CLASS (object)))->dispose (object);
}

/* installs the properties in @mask on @object_class (a pspec belongs to
 * one class, so each class gets its own), with the defaults @d */
void
dl_loss_class_init_with (GObjectClass *object_class, guint mask, const LossDefaults *d)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                            | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = loss_get_property;
  object_class->set_property = loss_set_property;
  object_class->dispose = loss_dispose;
  if (mask & LOSS_REDUCTION)
    g_object_class_install_property (
        object_class, PROP_REDUCTION,
        g_param_spec_enum ("reduction", NULL, NULL, DL_TYPE_REDUCTION, DL_REDUCTION_MEAN, flags));
  if (mask & LOSS_WEIGHT)
    g_object_class_install_property (
        object_class, PROP_WEIGHT,
        g_param_spec_object ("weight", NULL, NULL, DL_TYPE_TENSOR, flags));
  if (mask & LOSS_POS_WEIGHT)
    g_object_class_install_property (
        object_class, PROP_POS_WEIGHT,
        g_param_spec_object ("pos-weight", NULL, NULL, DL_TYPE_TENSOR, flags));
  if (mask & LOSS_IGNORE_INDEX)
    g_object_class_install_property (
        object_class, PROP_IGNORE_INDEX,
        g_param_spec_int64 ("ignore-index", NULL, NULL, G_MININT64, G_MAXINT64, -100, flags));
  if (mask & LOSS_LABEL_SMOOTHING)
    g_object_class_install_property (
        object_class, PROP_LABEL_SMOOTHING,
        g_param_spec_double ("label-smoothing", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, flags));
  if (mask & LOSS_BETA)
    g_object_class_install_property (
        object_class, PROP_BETA,
        g_param_spec_double ("beta", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1, flags));
  if (mask & LOSS_DELTA)
    g_object_class_install_property (
        object_class, PROP_DELTA,
        g_param_spec_double ("delta", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1, flags));
  if (mask & LOSS_LOG_TARGET)
    g_object_class_install_property (object_class, PROP_LOG_TARGET,
                                     g_param_spec_boolean ("log-target", NULL, NULL, FALSE, flags));
  if (mask & LOSS_MARGIN)
    g_object_class_install_property (
        object_class, PROP_MARGIN,
        g_param_spec_double ("margin", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, d->margin, flags));
  if (mask & LOSS_P)
    g_object_class_install_property (
        object_class, PROP_P,
        g_param_spec_double ("p", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, d->p, flags));
  if (mask & LOSS_EPS)
    g_object_class_install_property (
        object_class, PROP_EPS,
        g_param_spec_double ("eps", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, d->eps, flags));
  if (mask & LOSS_SWAP)
    g_object_class_install_property (object_class, PROP_SWAP,
                                     g_param_spec_boolean ("swap", NULL, NULL, FALSE, flags));
  if (mask & LOSS_DIM)
    g_object_class_install_property (
        object_class, PROP_DIM,
        g_param_spec_int64 ("dim", NULL, NULL, G_MININT64, G_MAXINT64, d->dim, flags));
  if (mask & LOSS_KEEPDIM)
    g_object_class_install_property (object_class, PROP_KEEPDIM,
                                     g_param_spec_boolean ("keepdim", NULL, NULL, FALSE, flags));
}

static void
loss_class_init (GObjectClass *object_class, guint mask)
{
  static const LossDefaults none = { 0 };

  dl_loss_class_init_with (object_class, mask, &none);
}

void
dl_loss_init_with (LossModule *self, const LossDefaults *d)
{
  self->reduction = DL_REDUCTION_MEAN;
  self->ignore_index = -100;
  self->beta = 1;
  self->delta = 1;
  self->margin = d->margin;
  self->p = d->p;
  self->eps = d->eps;
  self->dim = d->dim;
}

static void
loss_init (LossModule *self)
{
  static const LossDefaults none = { 0 };

  dl_loss_init_with (self, &none);
}

/* ---- CrossEntropyLoss ------------------------------------------------------ */

/**
 * DlCrossEntropyLoss:
 *
 * The cross-entropy loss between logits and class indices or class probabilities; see
 * dl_cross_entropy_full(), as torch.nn.CrossEntropyLoss: dl_module_forward_many() takes (input,
 * target) and gives the loss. Its options are construct properties.
 *
 * Since: 0.1
 */
struct _DlCrossEntropyLoss
{
  LossModule loss;
};

/**
 * DlCrossEntropyLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlCrossEntropyLoss. The type is final: its class
 * adds no virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlCrossEntropyLoss, dl_cross_entropy_loss, DL_TYPE_MODULE)

static DlTensor *
dl_cross_entropy_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_cross_entropy_full (x, y, LOSS_BUFFER (l, "weight"), l->ignore_index, l->reduction,
                                l->label_smoothing, error);
}

static void
dl_cross_entropy_loss_forward_many (DlModule *module,
                                    GPtrArray *inputs,
                                    GPtrArray **outputs,
                                    GError **error)
{
  loss_forward_many ((LossModule *)module, "CrossEntropyLoss", dl_cross_entropy_loss_compute,
                     inputs, outputs, error);
}

static void
dl_cross_entropy_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_cross_entropy_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "CrossEntropyLoss",
                         LOSS_REDUCTION | LOSS_WEIGHT | LOSS_IGNORE_INDEX | LOSS_LABEL_SMOOTHING);
}

static void
dl_cross_entropy_loss_class_init (DlCrossEntropyLossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_cross_entropy_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_cross_entropy_loss_forward_many;
  /**
   * DlCrossEntropyLoss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  /**
   * DlCrossEntropyLoss:weight:
   *
   * A weight per class (per element for the binary losses), or %NULL.
   *
   * Since: 0.1
   */
  /**
   * DlCrossEntropyLoss:ignore-index:
   *
   * A target class that contributes nothing (-100 by default).
   *
   * Since: 0.1
   */
  /**
   * DlCrossEntropyLoss:label-smoothing:
   *
   * The share of the target spread over the classes, in [0, 1] (0 by default).
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass),
                   LOSS_REDUCTION | LOSS_WEIGHT | LOSS_IGNORE_INDEX | LOSS_LABEL_SMOOTHING);
}

static void
dl_cross_entropy_loss_init (DlCrossEntropyLoss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_cross_entropy_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlCrossEntropyLoss
 *
 * Since: 0.1
 */
DlCrossEntropyLoss *
dl_cross_entropy_loss_new (void)
{
  return g_object_new (DL_TYPE_CROSS_ENTROPY_LOSS, NULL);
}

/**
 * dl_cross_entropy_loss_get_reduction:
 * @self: a #DlCrossEntropyLoss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlCrossEntropyLoss:reduction property, as the `reduction` attribute of
 * `torch.nn.CrossEntropyLoss`: %DL_REDUCTION_MEAN (the default) averages
 * them, %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss
 * per sample.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_cross_entropy_loss_get_reduction (DlCrossEntropyLoss *self)
{
  g_return_val_if_fail (DL_IS_CROSS_ENTROPY_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}

/* ---- NLLLoss --------------------------------------------------------------- */

/**
 * DlNllLoss:
 *
 * The negative log-likelihood loss between log-probabilities and class indices; see
 * dl_nll_loss_full(), as torch.nn.NLLLoss: dl_module_forward_many() takes (input, target) and gives
 * the loss. Its options are construct properties.
 *
 * Since: 0.1
 */
struct _DlNllLoss
{
  LossModule loss;
};

/**
 * DlNllLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlNllLoss. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlNllLoss, dl_nll_loss, DL_TYPE_MODULE)

static DlTensor *
dl_nll_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_nll_loss_full (x, y, LOSS_BUFFER (l, "weight"), l->ignore_index, l->reduction, error);
}

static void
dl_nll_loss_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  loss_forward_many ((LossModule *)module, "NLLLoss", dl_nll_loss_compute, inputs, outputs, error);
}

static void
dl_nll_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_nll_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "NLLLoss",
                         LOSS_REDUCTION | LOSS_WEIGHT | LOSS_IGNORE_INDEX);
}

static void
dl_nll_loss_class_init (DlNllLossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_nll_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_nll_loss_forward_many;
  /**
   * DlNllLoss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  /**
   * DlNllLoss:weight:
   *
   * A weight per class (per element for the binary losses), or %NULL.
   *
   * Since: 0.1
   */
  /**
   * DlNllLoss:ignore-index:
   *
   * A target class that contributes nothing (-100 by default).
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass), LOSS_REDUCTION | LOSS_WEIGHT | LOSS_IGNORE_INDEX);
}

static void
dl_nll_loss_init (DlNllLoss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_nll_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlNllLoss
 *
 * Since: 0.1
 */
DlNllLoss *
dl_nll_loss_new (void)
{
  return g_object_new (DL_TYPE_NLL_LOSS, NULL);
}

/**
 * dl_nll_loss_get_reduction:
 * @self: a #DlNllLoss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlNllLoss:reduction property, as the `reduction` attribute of
 * `torch.nn.NLLLoss`: %DL_REDUCTION_MEAN (the default) averages them,
 * %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss per
 * sample.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_nll_loss_get_reduction (DlNllLoss *self)
{
  g_return_val_if_fail (DL_IS_NLL_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}

/* ---- MSELoss --------------------------------------------------------------- */

/**
 * DlMseLoss:
 *
 * The mean squared error; see dl_mse_loss(), as torch.nn.MSELoss:
 * dl_module_forward_many() takes (input, target) and gives the loss. Its
 * options are construct properties.
 *
 * Since: 0.1
 */
struct _DlMseLoss
{
  LossModule loss;
};

/**
 * DlMseLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlMseLoss. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlMseLoss, dl_mse_loss, DL_TYPE_MODULE)

static DlTensor *
dl_mse_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_mse_loss (x, y, l->reduction, error);
}

static void
dl_mse_loss_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  loss_forward_many ((LossModule *)module, "MSELoss", dl_mse_loss_compute, inputs, outputs, error);
}

static void
dl_mse_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_mse_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "MSELoss", LOSS_REDUCTION);
}

static void
dl_mse_loss_class_init (DlMseLossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_mse_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_mse_loss_forward_many;
  /**
   * DlMseLoss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass), LOSS_REDUCTION);
}

static void
dl_mse_loss_init (DlMseLoss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_mse_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlMseLoss
 *
 * Since: 0.1
 */
DlMseLoss *
dl_mse_loss_new (void)
{
  return g_object_new (DL_TYPE_MSE_LOSS, NULL);
}

/**
 * dl_mse_loss_get_reduction:
 * @self: a #DlMseLoss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlMseLoss:reduction property, as the `reduction` attribute of
 * `torch.nn.MSELoss`: %DL_REDUCTION_MEAN (the default) averages them,
 * %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss per
 * sample.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_mse_loss_get_reduction (DlMseLoss *self)
{
  g_return_val_if_fail (DL_IS_MSE_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}

/* ---- L1Loss ---------------------------------------------------------------- */

/**
 * DlL1Loss:
 *
 * The absolute error; see dl_l1_loss(), as torch.nn.L1Loss:
 * dl_module_forward_many() takes (input, target) and gives the loss. Its
 * options are construct properties.
 *
 * Since: 0.1
 */
struct _DlL1Loss
{
  LossModule loss;
};

/**
 * DlL1LossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlL1Loss. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlL1Loss, dl_l1_loss, DL_TYPE_MODULE)

static DlTensor *
dl_l1_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_l1_loss (x, y, l->reduction, error);
}

static void
dl_l1_loss_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  loss_forward_many ((LossModule *)module, "L1Loss", dl_l1_loss_compute, inputs, outputs, error);
}

static void
dl_l1_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_l1_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "L1Loss", LOSS_REDUCTION);
}

static void
dl_l1_loss_class_init (DlL1LossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_l1_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_l1_loss_forward_many;
  /**
   * DlL1Loss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass), LOSS_REDUCTION);
}

static void
dl_l1_loss_init (DlL1Loss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_l1_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlL1Loss
 *
 * Since: 0.1
 */
DlL1Loss *
dl_l1_loss_new (void)
{
  return g_object_new (DL_TYPE_L1_LOSS, NULL);
}

/**
 * dl_l1_loss_get_reduction:
 * @self: a #DlL1Loss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlL1Loss:reduction property, as the `reduction` attribute of
 * `torch.nn.L1Loss`: %DL_REDUCTION_MEAN (the default) averages them,
 * %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss per
 * sample.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_l1_loss_get_reduction (DlL1Loss *self)
{
  g_return_val_if_fail (DL_IS_L1_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}

/* ---- SmoothL1Loss ---------------------------------------------------------- */

/**
 * DlSmoothL1Loss:
 *
 * The smooth L1 loss; see dl_smooth_l1_loss(), as torch.nn.SmoothL1Loss:
 * dl_module_forward_many() takes (input, target) and gives the loss. Its
 * options are construct properties.
 *
 * Since: 0.1
 */
struct _DlSmoothL1Loss
{
  LossModule loss;
};

/**
 * DlSmoothL1LossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSmoothL1Loss. The type is final: its class adds
 * no virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlSmoothL1Loss, dl_smooth_l1_loss, DL_TYPE_MODULE)

static DlTensor *
dl_smooth_l1_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_smooth_l1_loss (x, y, l->reduction, l->beta, error);
}

static void
dl_smooth_l1_loss_forward_many (DlModule *module,
                                GPtrArray *inputs,
                                GPtrArray **outputs,
                                GError **error)
{
  loss_forward_many ((LossModule *)module, "SmoothL1Loss", dl_smooth_l1_loss_compute, inputs,
                     outputs, error);
}

static void
dl_smooth_l1_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_smooth_l1_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "SmoothL1Loss", LOSS_REDUCTION | LOSS_BETA);
}

static void
dl_smooth_l1_loss_class_init (DlSmoothL1LossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_smooth_l1_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_smooth_l1_loss_forward_many;
  /**
   * DlSmoothL1Loss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  /**
   * DlSmoothL1Loss:beta:
   *
   * Where the loss turns from quadratic to linear, >= 0 (1 by default).
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass), LOSS_REDUCTION | LOSS_BETA);
}

static void
dl_smooth_l1_loss_init (DlSmoothL1Loss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_smooth_l1_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlSmoothL1Loss
 *
 * Since: 0.1
 */
DlSmoothL1Loss *
dl_smooth_l1_loss_new (void)
{
  return g_object_new (DL_TYPE_SMOOTH_L1_LOSS, NULL);
}

/**
 * dl_smooth_l1_loss_get_reduction:
 * @self: a #DlSmoothL1Loss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlSmoothL1Loss:reduction property, as the `reduction` attribute of
 * `torch.nn.SmoothL1Loss`: %DL_REDUCTION_MEAN (the default) averages them,
 * %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss per
 * sample.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_smooth_l1_loss_get_reduction (DlSmoothL1Loss *self)
{
  g_return_val_if_fail (DL_IS_SMOOTH_L1_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}

/* ---- HuberLoss ------------------------------------------------------------- */

/**
 * DlHuberLoss:
 *
 * The Huber loss; see dl_huber_loss(), as torch.nn.HuberLoss:
 * dl_module_forward_many() takes (input, target) and gives the loss. Its
 * options are construct properties.
 *
 * Since: 0.1
 */
struct _DlHuberLoss
{
  LossModule loss;
};

/**
 * DlHuberLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlHuberLoss. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlHuberLoss, dl_huber_loss, DL_TYPE_MODULE)

static DlTensor *
dl_huber_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_huber_loss (x, y, l->reduction, l->delta, error);
}

static void
dl_huber_loss_forward_many (DlModule *module,
                            GPtrArray *inputs,
                            GPtrArray **outputs,
                            GError **error)
{
  loss_forward_many ((LossModule *)module, "HuberLoss", dl_huber_loss_compute, inputs, outputs,
                     error);
}

static void
dl_huber_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_huber_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "HuberLoss", LOSS_REDUCTION | LOSS_DELTA);
}

static void
dl_huber_loss_class_init (DlHuberLossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_huber_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_huber_loss_forward_many;
  /**
   * DlHuberLoss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  /**
   * DlHuberLoss:delta:
   *
   * Where the loss turns from quadratic to linear, > 0 (1 by default).
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass), LOSS_REDUCTION | LOSS_DELTA);
}

static void
dl_huber_loss_init (DlHuberLoss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_huber_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlHuberLoss
 *
 * Since: 0.1
 */
DlHuberLoss *
dl_huber_loss_new (void)
{
  return g_object_new (DL_TYPE_HUBER_LOSS, NULL);
}

/**
 * dl_huber_loss_get_reduction:
 * @self: a #DlHuberLoss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlHuberLoss:reduction property, as the `reduction` attribute of
 * `torch.nn.HuberLoss`: %DL_REDUCTION_MEAN (the default) averages them,
 * %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss per
 * sample.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_huber_loss_get_reduction (DlHuberLoss *self)
{
  g_return_val_if_fail (DL_IS_HUBER_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}

/* ---- BCELoss --------------------------------------------------------------- */

/**
 * DlBceLoss:
 *
 * The binary cross-entropy between probabilities and targets; see dl_binary_cross_entropy(), as
 * torch.nn.BCELoss: dl_module_forward_many() takes (input, target) and gives the loss. Its options
 * are construct properties.
 *
 * Since: 0.1
 */
struct _DlBceLoss
{
  LossModule loss;
};

/**
 * DlBceLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlBceLoss. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlBceLoss, dl_bce_loss, DL_TYPE_MODULE)

static DlTensor *
dl_bce_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_binary_cross_entropy (x, y, LOSS_BUFFER (l, "weight"), l->reduction, error);
}

static void
dl_bce_loss_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  loss_forward_many ((LossModule *)module, "BCELoss", dl_bce_loss_compute, inputs, outputs, error);
}

static void
dl_bce_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_bce_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "BCELoss", LOSS_REDUCTION | LOSS_WEIGHT);
}

static void
dl_bce_loss_class_init (DlBceLossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_bce_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_bce_loss_forward_many;
  /**
   * DlBceLoss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  /**
   * DlBceLoss:weight:
   *
   * A weight per class (per element for the binary losses), or %NULL.
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass), LOSS_REDUCTION | LOSS_WEIGHT);
}

static void
dl_bce_loss_init (DlBceLoss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_bce_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlBceLoss
 *
 * Since: 0.1
 */
DlBceLoss *
dl_bce_loss_new (void)
{
  return g_object_new (DL_TYPE_BCE_LOSS, NULL);
}

/**
 * dl_bce_loss_get_reduction:
 * @self: a #DlBceLoss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlBceLoss:reduction property, as the `reduction` attribute of
 * `torch.nn.BCELoss`: %DL_REDUCTION_MEAN (the default) averages them,
 * %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss per
 * sample.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_bce_loss_get_reduction (DlBceLoss *self)
{
  g_return_val_if_fail (DL_IS_BCE_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}

/* ---- BCEWithLogitsLoss ----------------------------------------------------- */

/**
 * DlBceWithLogitsLoss:
 *
 * The binary cross-entropy between logits and targets; see dl_binary_cross_entropy_with_logits(),
 * as torch.nn.BCEWithLogitsLoss: dl_module_forward_many() takes (input, target) and gives the loss.
 * Its options are construct properties.
 *
 * Since: 0.1
 */
struct _DlBceWithLogitsLoss
{
  LossModule loss;
};

/**
 * DlBceWithLogitsLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlBceWithLogitsLoss. The type is final: its class
 * adds no virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlBceWithLogitsLoss, dl_bce_with_logits_loss, DL_TYPE_MODULE)

static DlTensor *
dl_bce_with_logits_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_binary_cross_entropy_with_logits (x, y, LOSS_BUFFER (l, "weight"),
                                              LOSS_BUFFER (l, "pos_weight"), l->reduction, error);
}

static void
dl_bce_with_logits_loss_forward_many (DlModule *module,
                                      GPtrArray *inputs,
                                      GPtrArray **outputs,
                                      GError **error)
{
  loss_forward_many ((LossModule *)module, "BCEWithLogitsLoss", dl_bce_with_logits_loss_compute,
                     inputs, outputs, error);
}

static void
dl_bce_with_logits_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_bce_with_logits_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "BCEWithLogitsLoss",
                         LOSS_REDUCTION | LOSS_WEIGHT | LOSS_POS_WEIGHT);
}

static void
dl_bce_with_logits_loss_class_init (DlBceWithLogitsLossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_bce_with_logits_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_bce_with_logits_loss_forward_many;
  /**
   * DlBceWithLogitsLoss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  /**
   * DlBceWithLogitsLoss:weight:
   *
   * A weight per class (per element for the binary losses), or %NULL.
   *
   * Since: 0.1
   */
  /**
   * DlBceWithLogitsLoss:pos-weight:
   *
   * A weight of the positive examples per class, or %NULL.
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass), LOSS_REDUCTION | LOSS_WEIGHT | LOSS_POS_WEIGHT);
}

static void
dl_bce_with_logits_loss_init (DlBceWithLogitsLoss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_bce_with_logits_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlBceWithLogitsLoss
 *
 * Since: 0.1
 */
DlBceWithLogitsLoss *
dl_bce_with_logits_loss_new (void)
{
  return g_object_new (DL_TYPE_BCE_WITH_LOGITS_LOSS, NULL);
}

/**
 * dl_bce_with_logits_loss_get_reduction:
 * @self: a #DlBceWithLogitsLoss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlBceWithLogitsLoss:reduction property, as the `reduction` attribute of
 * `torch.nn.BCEWithLogitsLoss`: %DL_REDUCTION_MEAN (the default) averages
 * them, %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss
 * per sample.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_bce_with_logits_loss_get_reduction (DlBceWithLogitsLoss *self)
{
  g_return_val_if_fail (DL_IS_BCE_WITH_LOGITS_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}

/* ---- KLDivLoss ------------------------------------------------------------- */

/**
 * DlKlDivLoss:
 *
 * The Kullback-Leibler divergence loss; see dl_kl_div(), as torch.nn.KLDivLoss:
 * dl_module_forward_many() takes (input, target) and gives the loss. Its
 * options are construct properties.
 *
 * Since: 0.1
 */
struct _DlKlDivLoss
{
  LossModule loss;
};

/**
 * DlKlDivLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlKlDivLoss. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlKlDivLoss, dl_kl_div_loss, DL_TYPE_MODULE)

static DlTensor *
dl_kl_div_loss_compute (LossModule *l, DlTensor *x, DlTensor *y, GError **error)
{
  return dl_kl_div (x, y, l->reduction, l->log_target, error);
}

static void
dl_kl_div_loss_forward_many (DlModule *module,
                             GPtrArray *inputs,
                             GPtrArray **outputs,
                             GError **error)
{
  loss_forward_many ((LossModule *)module, "KLDivLoss", dl_kl_div_loss_compute, inputs, outputs,
                     error);
}

static void
dl_kl_div_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_kl_div_loss_parent_class)->constructed (object);
  dl_loss_check_options ((LossModule *)object, "KLDivLoss", LOSS_REDUCTION | LOSS_LOG_TARGET);
}

static void
dl_kl_div_loss_class_init (DlKlDivLossClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = dl_kl_div_loss_constructed;
  DL_MODULE_CLASS (klass)->forward_many = dl_kl_div_loss_forward_many;
  /**
   * DlKlDivLoss:reduction:
   *
   * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
   *
   * Since: 0.1
   */
  /**
   * DlKlDivLoss:log-target:
   *
   * Whether the target holds log-probabilities (%FALSE by default).
   *
   * Since: 0.1
   */
  loss_class_init (G_OBJECT_CLASS (klass), LOSS_REDUCTION | LOSS_LOG_TARGET);
}

static void
dl_kl_div_loss_init (DlKlDivLoss *self)
{
  loss_init (&self->loss);
}

/**
 * dl_kl_div_loss_new:
 *
 * The loss with PyTorch's default options (the mean over the samples);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlKlDivLoss
 *
 * Since: 0.1
 */
DlKlDivLoss *
dl_kl_div_loss_new (void)
{
  return g_object_new (DL_TYPE_KL_DIV_LOSS, NULL);
}

/**
 * dl_kl_div_loss_get_reduction:
 * @self: a #DlKlDivLoss
 *
 * Gives how the module combines the losses of the samples, its
 * #DlKlDivLoss:reduction property, as the `reduction` attribute of
 * `torch.nn.KLDivLoss`: %DL_REDUCTION_MEAN (the default) averages them,
 * %DL_REDUCTION_SUM adds them and %DL_REDUCTION_NONE keeps one loss per
 * sample. %DL_REDUCTION_BATCHMEAN, the one that matches the mathematical KL
 * divergence, divides the sum by the batch size.
 *
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_kl_div_loss_get_reduction (DlKlDivLoss *self)
{
  g_return_val_if_fail (DL_IS_KL_DIV_LOSS (self), DL_REDUCTION_MEAN);
  return self->loss.reduction;
}
