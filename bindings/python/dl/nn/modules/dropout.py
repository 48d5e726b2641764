# dl.nn.modules.dropout (torch.nn.modules.dropout): Dropout, Dropout2d.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..conv import Dropout
from ..resample import Dropout2d
from . import _home

__all__ = ['Dropout', 'Dropout2d']

from ..dropout import AlphaDropout, Dropout1d, Dropout3d, FeatureAlphaDropout  # noqa
__all__ += ['Dropout1d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout']

_home(__name__)
