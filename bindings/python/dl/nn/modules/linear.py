# dl.nn.modules.linear (torch.nn.modules.linear): Linear, Identity.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import _home, Identity, Linear

__all__ = ['Linear', 'Identity']

from ..bilinear import Bilinear  # noqa: E402
from ..lazy import LazyLinear  # noqa: E402
__all__ += ['Bilinear', 'LazyLinear']

_home(__name__)
