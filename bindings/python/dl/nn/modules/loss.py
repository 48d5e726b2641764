# dl.nn.modules.loss (torch.nn.modules.loss): the losses.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import (_home, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss,
               MSELoss, NLLLoss, SmoothL1Loss)
from ..margin_loss import (CosineEmbeddingLoss, HingeEmbeddingLoss, MarginRankingLoss,
                           MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                           SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)

__all__ = ['L1Loss', 'MSELoss', 'SmoothL1Loss', 'HuberLoss', 'NLLLoss', 'CrossEntropyLoss',
           'BCELoss', 'BCEWithLogitsLoss', 'KLDivLoss', 'CosineEmbeddingLoss', 'MarginRankingLoss',
           'HingeEmbeddingLoss', 'SoftMarginLoss', 'MultiLabelSoftMarginLoss',
           'MultiLabelMarginLoss', 'MultiMarginLoss', 'TripletMarginLoss',
           'TripletMarginWithDistanceLoss']

from ..likelihood_losses import GaussianNLLLoss, PoissonNLLLoss  # noqa: E402
from ..ctc import CTCLoss  # noqa: E402
__all__ += ['GaussianNLLLoss', 'PoissonNLLLoss', 'CTCLoss']

_home(__name__)
