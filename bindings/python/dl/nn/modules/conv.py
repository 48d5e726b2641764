# dl.nn.modules.conv (torch.nn.modules.conv): the convolutions.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..conv import Conv1d, Conv2d, ConvTranspose2d
from ..convnd import Conv3d, ConvTranspose1d, ConvTranspose3d
from . import _home

__all__ = ['Conv1d', 'Conv2d', 'ConvTranspose2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose3d']

from ..lazy import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,  # noqa: E402
                    LazyConvTranspose2d, LazyConvTranspose3d)
__all__ += ['LazyConv1d', 'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d',
            'LazyConvTranspose2d', 'LazyConvTranspose3d']

_home(__name__)
