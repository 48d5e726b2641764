# dl.nn.modules.distance (torch.nn.modules.distance): CosineSimilarity and
# PairwiseDistance.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import _home
from ..distance import CosineSimilarity, PairwiseDistance

__all__ = ['CosineSimilarity', 'PairwiseDistance']

_home(__name__)
