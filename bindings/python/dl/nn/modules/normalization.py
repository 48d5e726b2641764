# dl.nn.modules.normalization (torch.nn.modules.normalization): LayerNorm, GroupNorm.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..normalization import GroupNorm, LayerNorm
from . import _home

__all__ = ['LayerNorm', 'GroupNorm']

from ..normalization import CrossMapLRN2d, LocalResponseNorm  # noqa: E402
__all__ += ['LocalResponseNorm', 'CrossMapLRN2d']

_home(__name__)
