# dl.nn.modules.instancenorm (torch.nn.modules.instancenorm): InstanceNorm1d/2d/3d.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from . import _home

__all__ = ['InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d']

from ..lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d  # noqa: E402
__all__ += ['LazyInstanceNorm1d', 'LazyInstanceNorm2d', 'LazyInstanceNorm3d']

_home(__name__)
