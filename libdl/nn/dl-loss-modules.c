/* dl-loss-modules.c: the classification losses as modules. They take
 * (input, target) through forward_many and give the loss; the maths is
 * dl_cross_entropy() and dl_nll_loss().
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-loss-modules.h"
#include "dl-module-private.h"
#include "dl-enums.h"
#include "dl-error.h"

typedef DlTensor *(*LossFunc) (DlTensor *input, DlTensor *target, GError **error);

/* What both losses share: their name, their function, their reduction */

static void
loss_forward_many (DlModule *self,
                   const gchar *name,
                   LossFunc func,
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
  if (!(loss = func (g_ptr_array_index (inputs, 0), g_ptr_array_index (inputs, 1), error)))
    return;
  *outputs = g_ptr_array_new (); /* the invoker adds the free function */
  g_ptr_array_add (*outputs, loss);
}

/* 'mean' is what dl_cross_entropy() and dl_nll_loss() compute today */
static void
check_reduction (DlModule *self, const gchar *name, DlReduction reduction)
{
  g_autoptr (GEnumClass) enum_class = NULL;
  GEnumValue *value;

  if (reduction == DL_REDUCTION_MEAN)
    return;
  enum_class = g_type_class_ref (DL_TYPE_REDUCTION);
  value = g_enum_get_value (enum_class, reduction);
  dl_module_take_construct_error (
      self, g_error_new (DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                         "%s: reduction '%s' is not supported yet (only 'mean')", name,
                         value ? value->value_nick : "?"));
}

static GParamSpec *
reduction_property (void)
{
  return g_param_spec_enum ("reduction", NULL, NULL, DL_TYPE_REDUCTION, DL_REDUCTION_MEAN,
                            G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                | G_PARAM_EXPLICIT_NOTIFY);
}

enum
{
  PROP_0,
  PROP_REDUCTION,
  N_PROPS
};

/* ---- CrossEntropyLoss ----------------------------------------------------- */

/**
 * DlCrossEntropyLoss:
 *
 * The cross-entropy loss between logits and class indices, as
 * torch.nn.CrossEntropyLoss: dl_module_forward_many() takes (input
 * [N, C], target int64 [N]) and gives one 0-d loss; see
 * dl_cross_entropy(). Its options are construct properties; today
 * #DlCrossEntropyLoss:reduction, which only 'mean' (the default) supports.
 *
 * Since: 0.1
 */
struct _DlCrossEntropyLoss
{
  DlModule parent_instance;
  DlReduction reduction;
};

G_DEFINE_FINAL_TYPE (DlCrossEntropyLoss, dl_cross_entropy_loss, DL_TYPE_MODULE)

static GParamSpec *cross_entropy_properties[N_PROPS];

static void
dl_cross_entropy_loss_forward_many (DlModule *module,
                                    GPtrArray *inputs,
                                    GPtrArray **outputs,
                                    GError **error)
{
  loss_forward_many (module, "CrossEntropyLoss", dl_cross_entropy, inputs, outputs, error);
}

static void
dl_cross_entropy_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_cross_entropy_loss_parent_class)->constructed (object);
  check_reduction (DL_MODULE (object), "CrossEntropyLoss",
                   DL_CROSS_ENTROPY_LOSS (object)->reduction);
}

static void
dl_cross_entropy_loss_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_REDUCTION:
        g_value_set_enum (value, DL_CROSS_ENTROPY_LOSS (object)->reduction);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_cross_entropy_loss_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_REDUCTION:
        DL_CROSS_ENTROPY_LOSS (object)->reduction = g_value_get_enum (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_cross_entropy_loss_class_init (DlCrossEntropyLossClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_cross_entropy_loss_constructed;
  object_class->get_property = dl_cross_entropy_loss_get_property;
  object_class->set_property = dl_cross_entropy_loss_set_property;
  DL_MODULE_CLASS (klass)->forward_many = dl_cross_entropy_loss_forward_many;

  /**
   * DlCrossEntropyLoss:reduction:
   *
   * How the samples' losses combine; only %DL_REDUCTION_MEAN (the
   * default) is supported yet, another value is a construct error.
   *
   * Since: 0.1
   */
  cross_entropy_properties[PROP_REDUCTION] = reduction_property ();
  g_object_class_install_properties (object_class, N_PROPS, cross_entropy_properties);
}

static void
dl_cross_entropy_loss_init (DlCrossEntropyLoss *self)
{
  self->reduction = DL_REDUCTION_MEAN;
}

/**
 * dl_cross_entropy_loss_new:
 *
 * Returns: (transfer full): a new #DlCrossEntropyLoss with the default
 *   options (mean over the batch)
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
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_cross_entropy_loss_get_reduction (DlCrossEntropyLoss *self)
{
  g_return_val_if_fail (DL_IS_CROSS_ENTROPY_LOSS (self), DL_REDUCTION_MEAN);
  return self->reduction;
}

/* ---- NLLLoss -------------------------------------------------------------- */

/**
 * DlNllLoss:
 *
 * The negative log-likelihood loss between log-probabilities and class
 * indices, as torch.nn.NLLLoss: dl_module_forward_many() takes (input
 * [N, C], target int64 [N]) and gives one 0-d loss; see dl_nll_loss().
 * Its options are construct properties; today #DlNllLoss:reduction, which
 * only 'mean' (the default) supports.
 *
 * Since: 0.1
 */
struct _DlNllLoss
{
  DlModule parent_instance;
  DlReduction reduction;
};

G_DEFINE_FINAL_TYPE (DlNllLoss, dl_nll_loss, DL_TYPE_MODULE)

static GParamSpec *nll_properties[N_PROPS];

static void
dl_nll_loss_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs, GError **error)
{
  loss_forward_many (module, "NLLLoss", dl_nll_loss, inputs, outputs, error);
}

static void
dl_nll_loss_constructed (GObject *object)
{
  G_OBJECT_CLASS (dl_nll_loss_parent_class)->constructed (object);
  check_reduction (DL_MODULE (object), "NLLLoss", DL_NLL_LOSS (object)->reduction);
}

static void
dl_nll_loss_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_REDUCTION:
        g_value_set_enum (value, DL_NLL_LOSS (object)->reduction);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_nll_loss_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_REDUCTION:
        DL_NLL_LOSS (object)->reduction = g_value_get_enum (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_nll_loss_class_init (DlNllLossClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_nll_loss_constructed;
  object_class->get_property = dl_nll_loss_get_property;
  object_class->set_property = dl_nll_loss_set_property;
  DL_MODULE_CLASS (klass)->forward_many = dl_nll_loss_forward_many;

  /**
   * DlNllLoss:reduction:
   *
   * How the samples' losses combine; only %DL_REDUCTION_MEAN (the
   * default) is supported yet, another value is a construct error.
   *
   * Since: 0.1
   */
  nll_properties[PROP_REDUCTION] = reduction_property ();
  g_object_class_install_properties (object_class, N_PROPS, nll_properties);
}

static void
dl_nll_loss_init (DlNllLoss *self)
{
  self->reduction = DL_REDUCTION_MEAN;
}

/**
 * dl_nll_loss_new:
 *
 * Returns: (transfer full): a new #DlNllLoss with the default options
 *   (mean over the batch)
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
 * Returns: how the samples' losses combine
 *
 * Since: 0.1
 */
DlReduction
dl_nll_loss_get_reduction (DlNllLoss *self)
{
  g_return_val_if_fail (DL_IS_NLL_LOSS (self), DL_REDUCTION_MEAN);
  return self->reduction;
}
