/* dl-margin-loss.h: the margin and embedding losses.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"
#include "nn/dl-loss.h"

G_BEGIN_DECLS

DL_EXPORT
DlTensor *dl_margin_ranking_loss (DlTensor *input1,
                                  DlTensor *input2,
                                  DlTensor *target,
                                  gdouble margin,
                                  DlReduction reduction,
                                  GError **error);
DL_EXPORT
DlTensor *dl_hinge_embedding_loss (DlTensor *input,
                                   DlTensor *target,
                                   gdouble margin,
                                   DlReduction reduction,
                                   GError **error);
DL_EXPORT
DlTensor *
dl_soft_margin_loss (DlTensor *input, DlTensor *target, DlReduction reduction, GError **error);
DL_EXPORT
DlTensor *dl_multilabel_soft_margin_loss (DlTensor *input,
                                          DlTensor *target,
                                          DlTensor *weight,
                                          DlReduction reduction,
                                          GError **error);
DL_EXPORT
DlTensor *dl_multilabel_margin_loss (DlTensor *input,
                                     DlTensor *target,
                                     DlReduction reduction,
                                     GError **error);
DL_EXPORT
DlTensor *dl_multi_margin_loss (DlTensor *input,
                                DlTensor *target,
                                gint64 p,
                                gdouble margin,
                                DlTensor *weight,
                                DlReduction reduction,
                                GError **error);
DL_EXPORT
DlTensor *dl_cosine_embedding_loss (DlTensor *input1,
                                    DlTensor *input2,
                                    DlTensor *target,
                                    gdouble margin,
                                    DlReduction reduction,
                                    GError **error);
DL_EXPORT
DlTensor *dl_triplet_margin_loss (DlTensor *anchor,
                                  DlTensor *positive,
                                  DlTensor *negative,
                                  gdouble margin,
                                  gdouble p,
                                  gdouble eps,
                                  gboolean swap,
                                  DlReduction reduction,
                                  GError **error);

G_END_DECLS
