# dl.nn.parallel.data_parallel (torch.nn.parallel.data_parallel):
# DataParallel on libdl's one device.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..modules import Module

__all__ = ['DataParallel']


class DataParallel(Module):
    """torch.nn.DataParallel(module, device_ids=None, output_device=None,
    dim=0): a wrapper that splits each batch across GPUs in PyTorch. libdl
    has one device, the CPU, so DataParallel does what PyTorch's does
    without a GPU: forward calls the module on the whole input. The module
    is the child `module`, so the state dict's keys are the module's
    prefixed with 'module.' and the parameters are the module's own (shared,
    not copies), as in PyTorch; device_ids is [] as PyTorch's is then, and
    device_ids, output_device and dim are accepted and change nothing."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
