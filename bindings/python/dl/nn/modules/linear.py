# dl.nn.modules.linear (torch.nn.modules.linear): Linear, Identity,
# Bilinear, LazyLinear and NonDynamicallyQuantizableLinear.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import _home, Identity, Linear

__all__ = ['Linear', 'Identity']

from ..bilinear import Bilinear  # noqa: E402
from ..lazy import LazyLinear  # noqa: E402
__all__ += ['Bilinear', 'LazyLinear']

_home(__name__)


class NonDynamicallyQuantizableLinear(Linear):
    """torch.nn.modules.linear.NonDynamicallyQuantizableLinear: a Linear
    under another name, MultiheadAttention's out_proj (torch keeps it out of
    __all__). The same C class as Linear (DlLinear): PyGObject registers no
    GType for it."""
    __gtype__ = Linear.__gtype__
