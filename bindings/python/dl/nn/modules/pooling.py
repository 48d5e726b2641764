# dl.nn.modules.pooling (torch.nn.modules.pooling): the pooling layers.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..conv import AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d, MaxPool2d
from ..pool import (AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool3d,
                    AvgPool1d, AvgPool3d, LPPool1d, LPPool2d, MaxPool1d, MaxPool3d, MaxUnpool1d,
                    MaxUnpool2d, MaxUnpool3d)
from ..fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d
from . import _home

__all__ = ['MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d', 'AdaptiveMaxPool2d', 'MaxPool1d',
           'MaxPool3d', 'AvgPool1d', 'AvgPool3d', 'AdaptiveAvgPool1d', 'AdaptiveAvgPool3d',
           'AdaptiveMaxPool1d', 'AdaptiveMaxPool3d', 'LPPool1d', 'LPPool2d', 'MaxUnpool1d',
           'MaxUnpool2d', 'MaxUnpool3d', 'FractionalMaxPool2d', 'FractionalMaxPool3d']

_home(__name__)
