# dl.nn.modules.pixelshuffle (torch.nn.modules.pixelshuffle): the pixel
# shuffles.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..pool import PixelShuffle, PixelUnshuffle
from . import _home

__all__ = ['PixelShuffle', 'PixelUnshuffle']

_home(__name__)
