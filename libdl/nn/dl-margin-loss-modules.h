/* dl-margin-loss-modules.h: the margin and embedding losses as modules
 * (DlMarginRankingLoss, DlHingeEmbeddingLoss, DlSoftMarginLoss,
 * DlMultiLabelMarginLoss, DlMultiLabelSoftMarginLoss, DlMultiMarginLoss,
 * DlCosineEmbeddingLoss, DlTripletMarginLoss) and the distances
 * DlCosineSimilarity and DlPairwiseDistance.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "nn/dl-module.h"

G_BEGIN_DECLS

#define DL_TYPE_MARGIN_RANKING_LOSS (dl_margin_ranking_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMarginRankingLoss,
                      dl_margin_ranking_loss,
                      DL,
                      MARGIN_RANKING_LOSS,
                      DlModule)

DL_EXPORT
DlMarginRankingLoss *dl_margin_ranking_loss_new (void);

#define DL_TYPE_HINGE_EMBEDDING_LOSS (dl_hinge_embedding_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlHingeEmbeddingLoss,
                      dl_hinge_embedding_loss,
                      DL,
                      HINGE_EMBEDDING_LOSS,
                      DlModule)

DL_EXPORT
DlHingeEmbeddingLoss *dl_hinge_embedding_loss_new (void);

#define DL_TYPE_SOFT_MARGIN_LOSS (dl_soft_margin_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSoftMarginLoss, dl_soft_margin_loss, DL, SOFT_MARGIN_LOSS, DlModule)

DL_EXPORT
DlSoftMarginLoss *dl_soft_margin_loss_new (void);

#define DL_TYPE_MULTI_LABEL_MARGIN_LOSS (dl_multi_label_margin_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMultiLabelMarginLoss,
                      dl_multi_label_margin_loss,
                      DL,
                      MULTI_LABEL_MARGIN_LOSS,
                      DlModule)

DL_EXPORT
DlMultiLabelMarginLoss *dl_multi_label_margin_loss_new (void);

#define DL_TYPE_MULTI_LABEL_SOFT_MARGIN_LOSS (dl_multi_label_soft_margin_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMultiLabelSoftMarginLoss,
                      dl_multi_label_soft_margin_loss,
                      DL,
                      MULTI_LABEL_SOFT_MARGIN_LOSS,
                      DlModule)

DL_EXPORT
DlMultiLabelSoftMarginLoss *dl_multi_label_soft_margin_loss_new (void);

#define DL_TYPE_MULTI_MARGIN_LOSS (dl_multi_margin_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMultiMarginLoss, dl_multi_margin_loss, DL, MULTI_MARGIN_LOSS, DlModule)

DL_EXPORT
DlMultiMarginLoss *dl_multi_margin_loss_new (void);

#define DL_TYPE_COSINE_EMBEDDING_LOSS (dl_cosine_embedding_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlCosineEmbeddingLoss,
                      dl_cosine_embedding_loss,
                      DL,
                      COSINE_EMBEDDING_LOSS,
                      DlModule)

DL_EXPORT
DlCosineEmbeddingLoss *dl_cosine_embedding_loss_new (void);

#define DL_TYPE_TRIPLET_MARGIN_LOSS (dl_triplet_margin_loss_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlTripletMarginLoss,
                      dl_triplet_margin_loss,
                      DL,
                      TRIPLET_MARGIN_LOSS,
                      DlModule)

DL_EXPORT
DlTripletMarginLoss *dl_triplet_margin_loss_new (void);

#define DL_TYPE_COSINE_SIMILARITY (dl_cosine_similarity_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlCosineSimilarity, dl_cosine_similarity, DL, COSINE_SIMILARITY, DlModule)

DL_EXPORT
DlCosineSimilarity *dl_cosine_similarity_new (void);

#define DL_TYPE_PAIRWISE_DISTANCE (dl_pairwise_distance_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlPairwiseDistance, dl_pairwise_distance, DL, PAIRWISE_DISTANCE, DlModule)

DL_EXPORT
DlPairwiseDistance *dl_pairwise_distance_new (void);

G_END_DECLS
