# dl.nn.modules.batchnorm (torch.nn.modules.batchnorm): BatchNorm1d, BatchNorm2d,
# SyncBatchNorm.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..normalization import BatchNorm1d, BatchNorm2d, SyncBatchNorm
from . import _home

__all__ = ['BatchNorm1d', 'BatchNorm2d', 'SyncBatchNorm']

from ..normalization import BatchNorm3d  # noqa: E402
__all__ += ['BatchNorm3d']

from ..lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d  # noqa: E402
__all__ += ['LazyBatchNorm1d', 'LazyBatchNorm2d', 'LazyBatchNorm3d']

_home(__name__)
