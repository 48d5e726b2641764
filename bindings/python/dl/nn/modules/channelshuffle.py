# dl.nn.modules.channelshuffle (torch.nn.modules.channelshuffle): the
# channel shuffle.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..pool import ChannelShuffle
from . import _home

__all__ = ['ChannelShuffle']

_home(__name__)
