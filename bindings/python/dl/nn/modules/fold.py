# dl.nn.modules.fold (torch.nn.modules.fold): Fold, Unfold.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..conv import Fold, Unfold
from . import _home

__all__ = ['Fold', 'Unfold']

_home(__name__)
