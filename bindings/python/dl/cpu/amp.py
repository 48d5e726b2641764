# dl.cpu.amp (torch.cpu.amp): autocast('cpu') under its older name.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .. import amp as _amp
from .._dtype import bfloat16

__all__ = ['autocast']


class autocast(_amp.autocast):
    """torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16,
    cache_enabled=True): torch.autocast('cpu', ...)."""

    def __init__(self, enabled=True, dtype=bfloat16, cache_enabled=True):
        super().__init__('cpu', enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
