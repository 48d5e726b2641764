/* dl-margin-loss-modules.c: the margin and embedding losses and the
 * distances as modules: DlMarginRankingLoss, DlHingeEmbeddingLoss,
 * DlSoftMarginLoss, DlMultiLabelMarginLoss, DlMultiLabelSoftMarginLoss,
 * DlMultiMarginLoss, DlCosineEmbeddingLoss, DlTripletMarginLoss,
 * DlCosineSimilarity and DlPairwiseDistance. Each takes its inputs through
 * forward_many and gives the result of its function in dl-margin-loss.c
 * or dl-distance.c; they share the instance layout and the property code
 * of the other losses (dl-loss-modules-private.h), and one definition of
 * their GObject code (LOSS_MODULE_TYPE).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-margin-loss-modules.h"
#include "dl-loss-modules-private.h"
#include "dl-module-private.h"
#include "dl-margin-loss.h"
#include "dl-distance.h"
#include "dl-error.h"

typedef DlTensor *(*LossComputeN) (LossModule *loss, DlTensor **inputs, GError **error);

/* forward_many of a loss of @n inputs (@args names them) */
static void
loss_forward_n (LossModule *self,
                const gchar *name,
                const gchar *args,
                guint n,
                LossComputeN compute,
                GPtrArray *inputs,
                GPtrArray **outputs,
                GError **error)
{
  gboolean given = inputs->len == n;
  DlTensor *loss;

  for (guint i = 0; given && i < n; i++)
    given = g_ptr_array_index (inputs, i) != NULL;
  if (!given)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: takes %s, got %u inputs", name, args,
                   inputs->len);
      return;
    }
  if (!(loss = compute (self, (DlTensor **)inputs->pdata, error)))
    return;
  *outputs = g_ptr_array_new (); /* the invoker adds the free function */
  g_ptr_array_add (*outputs, loss);
}

/* The GObject code of a class that adds nothing to LossModule but its
 * compute function (tn##_compute, defined before): its struct, its type,
 * forward_many (@N inputs, named in @ARGS), constructed (the checks of
 * @MASK), class_init (the properties of @MASK) and init, with the
 * LossDefaults of the class as the last arguments */
#define LOSS_MODULE_TYPE(TN, tn, NAME, ARGS, N, MASK, ...)                                         \
  struct _##TN                                                                                     \
  {                                                                                                \
    LossModule loss;                                                                               \
  };                                                                                               \
  G_DEFINE_FINAL_TYPE (TN, tn, DL_TYPE_MODULE)                                                     \
  static const LossDefaults tn##_defaults = { __VA_ARGS__ };                                       \
  static void tn##_forward_many (DlModule *module, GPtrArray *inputs, GPtrArray **outputs,         \
                                 GError **error)                                                   \
  {                                                                                                \
    loss_forward_n ((LossModule *)module, NAME, ARGS, N, tn##_compute, inputs, outputs, error);    \
  }                                                                                                \
  static void tn##_constructed (GObject *object)                                                   \
  {                                                                                                \
    G_OBJECT_CLASS (tn##_parent_class)->constructed (object);                                      \
    dl_loss_check_options ((LossModule *)object, NAME, MASK);                                      \
  }                                                                                                \
  static void tn##_class_init (TN##Class *klass)                                                   \
  {                                                                                                \
    G_OBJECT_CLASS (klass)->constructed = tn##_constructed;                                        \
    DL_MODULE_CLASS (klass)->forward_many = tn##_forward_many;                                     \
    dl_loss_class_init_with (G_OBJECT_CLASS (klass), MASK, &tn##_defaults);                        \
  }                                                                                                \
  static void tn##_init (TN *self)                                                                 \
  {                                                                                                \
    dl_loss_init_with (&self->loss, &tn##_defaults);                                               \
  }

/**
 * DlMarginRankingLoss:
 *
 * The margin ranking loss; see dl_margin_ranking_loss(), as
 * torch.nn.MarginRankingLoss: dl_module_forward_many() takes (input1,
 * input2, target) and gives the loss. Its options are construct
 * properties:
 *
 * |[<!-- language="C" -->
 * g_autoptr (DlMarginRankingLoss) loss
 *     = g_object_new (DL_TYPE_MARGIN_RANKING_LOSS, "margin", 0.5, NULL);
 * ]|
 *
 * Since: 0.1
 */
/**
 * DlMarginRankingLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlMarginRankingLoss. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlMarginRankingLoss:reduction:
 *
 * How the elements' losses combine (%DL_REDUCTION_MEAN by default).
 *
 * Since: 0.1
 */
/**
 * DlMarginRankingLoss:margin:
 *
 * The margin (0 by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_margin_ranking_loss_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_margin_ranking_loss (in[0], in[1], in[2], l->margin, l->reduction, error);
}

LOSS_MODULE_TYPE (DlMarginRankingLoss,
                  dl_margin_ranking_loss,
                  "MarginRankingLoss",
                  "three inputs (input1, input2, target)",
                  3,
                  LOSS_REDUCTION | LOSS_MARGIN,
                  .margin = 0)

/**
 * dl_margin_ranking_loss_new:
 *
 * The loss with PyTorch's default options (margin 0, the mean);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlMarginRankingLoss
 *
 * Since: 0.1
 */
DlMarginRankingLoss *
dl_margin_ranking_loss_new (void)
{
  return g_object_new (DL_TYPE_MARGIN_RANKING_LOSS, NULL);
}

/**
 * DlHingeEmbeddingLoss:
 *
 * The hinge embedding loss; see dl_hinge_embedding_loss(), as
 * torch.nn.HingeEmbeddingLoss: dl_module_forward_many() takes (input,
 * target) and gives the loss. Its options are construct properties.
 *
 * Since: 0.1
 */
/**
 * DlHingeEmbeddingLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlHingeEmbeddingLoss. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlHingeEmbeddingLoss:reduction:
 *
 * How the elements' losses combine (%DL_REDUCTION_MEAN by default).
 *
 * Since: 0.1
 */
/**
 * DlHingeEmbeddingLoss:margin:
 *
 * The margin (1 by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_hinge_embedding_loss_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_hinge_embedding_loss (in[0], in[1], l->margin, l->reduction, error);
}

LOSS_MODULE_TYPE (DlHingeEmbeddingLoss,
                  dl_hinge_embedding_loss,
                  "HingeEmbeddingLoss",
                  "two inputs (input, target)",
                  2,
                  LOSS_REDUCTION | LOSS_MARGIN,
                  .margin = 1)

/**
 * dl_hinge_embedding_loss_new:
 *
 * The loss with PyTorch's default options (margin 1, the mean);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlHingeEmbeddingLoss
 *
 * Since: 0.1
 */
DlHingeEmbeddingLoss *
dl_hinge_embedding_loss_new (void)
{
  return g_object_new (DL_TYPE_HINGE_EMBEDDING_LOSS, NULL);
}

/**
 * DlSoftMarginLoss:
 *
 * The two-class logistic loss; see dl_soft_margin_loss(), as
 * torch.nn.SoftMarginLoss: dl_module_forward_many() takes (input, target)
 * and gives the loss. Its option is a construct property.
 *
 * Since: 0.1
 */
/**
 * DlSoftMarginLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlSoftMarginLoss. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlSoftMarginLoss:reduction:
 *
 * How the elements' losses combine (%DL_REDUCTION_MEAN by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_soft_margin_loss_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_soft_margin_loss (in[0], in[1], l->reduction, error);
}

LOSS_MODULE_TYPE (DlSoftMarginLoss,
                  dl_soft_margin_loss,
                  "SoftMarginLoss",
                  "two inputs (input, target)",
                  2,
                  LOSS_REDUCTION,
                  0)

/**
 * dl_soft_margin_loss_new:
 *
 * The loss with PyTorch's default option (the mean); g_object_new()
 * takes the option as a property.
 *
 * Returns: (transfer full): a new #DlSoftMarginLoss
 *
 * Since: 0.1
 */
DlSoftMarginLoss *
dl_soft_margin_loss_new (void)
{
  return g_object_new (DL_TYPE_SOFT_MARGIN_LOSS, NULL);
}

/**
 * DlMultiLabelMarginLoss:
 *
 * The multi-class multi-label hinge loss; see dl_multilabel_margin_loss(),
 * as torch.nn.MultiLabelMarginLoss: dl_module_forward_many() takes (input,
 * target) and gives the loss. Its option is a construct property.
 *
 * Since: 0.1
 */
/**
 * DlMultiLabelMarginLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlMultiLabelMarginLoss. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlMultiLabelMarginLoss:reduction:
 *
 * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_multi_label_margin_loss_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_multilabel_margin_loss (in[0], in[1], l->reduction, error);
}

LOSS_MODULE_TYPE (DlMultiLabelMarginLoss,
                  dl_multi_label_margin_loss,
                  "MultiLabelMarginLoss",
                  "two inputs (input, target)",
                  2,
                  LOSS_REDUCTION,
                  0)

/**
 * dl_multi_label_margin_loss_new:
 *
 * The loss with PyTorch's default option (the mean); g_object_new()
 * takes the option as a property.
 *
 * Returns: (transfer full): a new #DlMultiLabelMarginLoss
 *
 * Since: 0.1
 */
DlMultiLabelMarginLoss *
dl_multi_label_margin_loss_new (void)
{
  return g_object_new (DL_TYPE_MULTI_LABEL_MARGIN_LOSS, NULL);
}

/**
 * DlMultiLabelSoftMarginLoss:
 *
 * The multi-label one-versus-all loss; see
 * dl_multilabel_soft_margin_loss(), as torch.nn.MultiLabelSoftMarginLoss:
 * dl_module_forward_many() takes (input, target) and gives the loss. Its
 * options are construct properties; the weight is the buffer "weight".
 *
 * Since: 0.1
 */
/**
 * DlMultiLabelSoftMarginLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlMultiLabelSoftMarginLoss. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlMultiLabelSoftMarginLoss:reduction:
 *
 * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
 *
 * Since: 0.1
 */
/**
 * DlMultiLabelSoftMarginLoss:weight:
 *
 * A weight per class, or %NULL.
 *
 * Since: 0.1
 */
static DlTensor *
dl_multi_label_soft_margin_loss_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_multilabel_soft_margin_loss (in[0], in[1], LOSS_BUFFER (l, "weight"), l->reduction,
                                         error);
}

LOSS_MODULE_TYPE (DlMultiLabelSoftMarginLoss,
                  dl_multi_label_soft_margin_loss,
                  "MultiLabelSoftMarginLoss",
                  "two inputs (input, target)",
                  2,
                  LOSS_REDUCTION | LOSS_WEIGHT,
                  0)

/**
 * dl_multi_label_soft_margin_loss_new:
 *
 * The loss with PyTorch's default options (no weight, the mean);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlMultiLabelSoftMarginLoss
 *
 * Since: 0.1
 */
DlMultiLabelSoftMarginLoss *
dl_multi_label_soft_margin_loss_new (void)
{
  return g_object_new (DL_TYPE_MULTI_LABEL_SOFT_MARGIN_LOSS, NULL);
}

/**
 * DlMultiMarginLoss:
 *
 * The multi-class hinge loss; see dl_multi_margin_loss(), as
 * torch.nn.MultiMarginLoss: dl_module_forward_many() takes (input,
 * target) and gives the loss. Its options are construct properties; the
 * weight is the buffer "weight".
 *
 * Since: 0.1
 */
/**
 * DlMultiMarginLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlMultiMarginLoss. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlMultiMarginLoss:reduction:
 *
 * How the samples' losses combine (%DL_REDUCTION_MEAN by default).
 *
 * Since: 0.1
 */
/**
 * DlMultiMarginLoss:weight:
 *
 * A weight per class, or %NULL.
 *
 * Since: 0.1
 */
/**
 * DlMultiMarginLoss:p:
 *
 * The power of the hinge, 1 (the default) or 2.
 *
 * Since: 0.1
 */
/**
 * DlMultiMarginLoss:margin:
 *
 * The margin (1 by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_multi_margin_loss_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_multi_margin_loss (in[0], in[1], (gint64)l->p, l->margin, LOSS_BUFFER (l, "weight"),
                               l->reduction, error);
}

LOSS_MODULE_TYPE (DlMultiMarginLoss,
                  dl_multi_margin_loss,
                  "MultiMarginLoss",
                  "two inputs (input, target)",
                  2,
                  LOSS_REDUCTION | LOSS_WEIGHT | LOSS_P | LOSS_MARGIN | LOSS_P_1_OR_2,
                  .margin = 1,
                  .p = 1)

/**
 * dl_multi_margin_loss_new:
 *
 * The loss with PyTorch's default options (p 1, margin 1, no weight, the
 * mean); g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlMultiMarginLoss
 *
 * Since: 0.1
 */
DlMultiMarginLoss *
dl_multi_margin_loss_new (void)
{
  return g_object_new (DL_TYPE_MULTI_MARGIN_LOSS, NULL);
}

/**
 * DlCosineEmbeddingLoss:
 *
 * The cosine embedding loss; see dl_cosine_embedding_loss(), as
 * torch.nn.CosineEmbeddingLoss: dl_module_forward_many() takes (input1,
 * input2, target) and gives the loss. Its options are construct
 * properties.
 *
 * Since: 0.1
 */
/**
 * DlCosineEmbeddingLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlCosineEmbeddingLoss. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlCosineEmbeddingLoss:reduction:
 *
 * How the pairs' losses combine (%DL_REDUCTION_MEAN by default).
 *
 * Since: 0.1
 */
/**
 * DlCosineEmbeddingLoss:margin:
 *
 * The margin (0 by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_cosine_embedding_loss_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_cosine_embedding_loss (in[0], in[1], in[2], l->margin, l->reduction, error);
}

LOSS_MODULE_TYPE (DlCosineEmbeddingLoss,
                  dl_cosine_embedding_loss,
                  "CosineEmbeddingLoss",
                  "three inputs (input1, input2, target)",
                  3,
                  LOSS_REDUCTION | LOSS_MARGIN,
                  .margin = 0)

/**
 * dl_cosine_embedding_loss_new:
 *
 * The loss with PyTorch's default options (margin 0, the mean);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlCosineEmbeddingLoss
 *
 * Since: 0.1
 */
DlCosineEmbeddingLoss *
dl_cosine_embedding_loss_new (void)
{
  return g_object_new (DL_TYPE_COSINE_EMBEDDING_LOSS, NULL);
}

/**
 * DlTripletMarginLoss:
 *
 * The triplet margin loss; see dl_triplet_margin_loss(), as
 * torch.nn.TripletMarginLoss: dl_module_forward_many() takes (anchor,
 * positive, negative) and gives the loss. Its options are construct
 * properties.
 *
 * Since: 0.1
 */
/**
 * DlTripletMarginLossClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlTripletMarginLoss. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlTripletMarginLoss:reduction:
 *
 * How the triplets' losses combine (%DL_REDUCTION_MEAN by default).
 *
 * Since: 0.1
 */
/**
 * DlTripletMarginLoss:margin:
 *
 * The margin (1 by default).
 *
 * Since: 0.1
 */
/**
 * DlTripletMarginLoss:p:
 *
 * The order of the pairwise distance (2 by default).
 *
 * Since: 0.1
 */
/**
 * DlTripletMarginLoss:eps:
 *
 * Added to the differences in the distances (1e-6 by default).
 *
 * Since: 0.1
 */
/**
 * DlTripletMarginLoss:swap:
 *
 * Whether the distance to the negative is the smaller of the anchor's
 * and the positive's (%FALSE by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_triplet_margin_loss_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_triplet_margin_loss (in[0], in[1], in[2], l->margin, l->p, l->eps, l->swap,
                                 l->reduction, error);
}

LOSS_MODULE_TYPE (DlTripletMarginLoss,
                  dl_triplet_margin_loss,
                  "TripletMarginLoss",
                  "three inputs (anchor, positive, negative)",
                  3,
                  LOSS_REDUCTION | LOSS_MARGIN | LOSS_P | LOSS_EPS | LOSS_SWAP,
                  .margin = 1,
                  .p = 2,
                  .eps = 1e-6)

/**
 * dl_triplet_margin_loss_new:
 *
 * The loss with PyTorch's default options (margin 1, p 2, eps 1e-6, no
 * swap, the mean); g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlTripletMarginLoss
 *
 * Since: 0.1
 */
DlTripletMarginLoss *
dl_triplet_margin_loss_new (void)
{
  return g_object_new (DL_TYPE_TRIPLET_MARGIN_LOSS, NULL);
}

/**
 * DlCosineSimilarity:
 *
 * The cosine similarity along a dim; see dl_cosine_similarity(), as
 * torch.nn.CosineSimilarity: dl_module_forward_many() takes (x1, x2) and
 * gives the similarities. Its options are construct properties.
 *
 * Since: 0.1
 */
/**
 * DlCosineSimilarityClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlCosineSimilarity. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlCosineSimilarity:dim:
 *
 * The dim the vectors lie along (1 by default).
 *
 * Since: 0.1
 */
/**
 * DlCosineSimilarity:eps:
 *
 * The lower bound of the product of the norms (1e-8 by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_cosine_similarity_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_cosine_similarity (in[0], in[1], l->dim, l->eps, error);
}

LOSS_MODULE_TYPE (DlCosineSimilarity,
                  dl_cosine_similarity,
                  "CosineSimilarity",
                  "two inputs (x1, x2)",
                  2,
                  LOSS_DIM | LOSS_EPS,
                  .dim = 1,
                  .eps = 1e-8)

/**
 * dl_cosine_similarity_new:
 *
 * The module with PyTorch's default options (dim 1, eps 1e-8);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlCosineSimilarity
 *
 * Since: 0.1
 */
DlCosineSimilarity *
dl_cosine_similarity_new (void)
{
  return g_object_new (DL_TYPE_COSINE_SIMILARITY, NULL);
}

/**
 * DlPairwiseDistance:
 *
 * The p-norm distance along the last dim; see dl_pairwise_distance(), as
 * torch.nn.PairwiseDistance: dl_module_forward_many() takes (x1, x2) and
 * gives the distances. Its options are construct properties.
 *
 * Since: 0.1
 */
/**
 * DlPairwiseDistanceClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlPairwiseDistance. The type is final.
 *
 * Since: 0.1
 */
/**
 * DlPairwiseDistance:p:
 *
 * The order of the norm (2 by default).
 *
 * Since: 0.1
 */
/**
 * DlPairwiseDistance:eps:
 *
 * Added to the differences (1e-6 by default).
 *
 * Since: 0.1
 */
/**
 * DlPairwiseDistance:keepdim:
 *
 * Whether the result keeps the last dim with size 1 (%FALSE by default).
 *
 * Since: 0.1
 */
static DlTensor *
dl_pairwise_distance_compute (LossModule *l, DlTensor **in, GError **error)
{
  return dl_pairwise_distance (in[0], in[1], l->p, l->eps, l->keepdim, error);
}

LOSS_MODULE_TYPE (DlPairwiseDistance,
                  dl_pairwise_distance,
                  "PairwiseDistance",
                  "two inputs (x1, x2)",
                  2,
                  LOSS_P | LOSS_EPS | LOSS_KEEPDIM,
                  .p = 2,
                  .eps = 1e-6)

/**
 * dl_pairwise_distance_new:
 *
 * The module with PyTorch's default options (p 2, eps 1e-6, no keepdim);
 * g_object_new() takes the options as properties.
 *
 * Returns: (transfer full): a new #DlPairwiseDistance
 *
 * Since: 0.1
 */
DlPairwiseDistance *
dl_pairwise_distance_new (void)
{
  return g_object_new (DL_TYPE_PAIRWISE_DISTANCE, NULL);
}
