# dl.nn.parallel.distributed (torch.nn.parallel.distributed):
# DistributedDataParallel, which needs distributed training.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..modules import Module

__all__ = ['DistributedDataParallel']


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel: data parallelism across
    processes, which needs distributed training (torch.distributed, process
    groups), not yet implemented in libdl. Constructing it raises
    RuntimeError saying so, rather than training on one process as if
    the others existed; DataParallel runs a module on libdl's one device."""

    def __init__(self, module, *args, **kwargs):
        raise RuntimeError('DistributedDataParallel: distributed training (torch.distributed, '
                           'process groups) is not yet implemented in libdl; on one device, '
                           'use the module itself or nn.DataParallel')
