# dl.nn.parallel.distributed (torch.nn.parallel.distributed):
# DistributedDataParallel, libdl's DlDistributedDataParallel with PyTorch's
# signature and no_sync().
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from contextlib import contextmanager

from gi.repository import GLib

from ..._lib import OVERRIDE_MODULE, Dl, _translate, typelib_override
from ..modules import Module, _construct

__all__ = ['DistributedDataParallel']


@typelib_override(__name__)
class DistributedDataParallel(Dl.DistributedDataParallel, Module):
    """torch.nn.parallel.DistributedDataParallel(module, device_ids=None,
    output_device=None, dim=0, broadcast_buffers=True, process_group=None,
    bucket_cap_mb=25, find_unused_parameters=False, ...): trains module on
    every rank of the process group (the default group unless one is
    given) with the gradients averaged across the ranks during backward.

    Construction copies rank 0's parameters and buffers to every rank;
    each forward copies rank 0's buffers again (broadcast_buffers); the
    backward pass sums the gradients in buckets of bucket_cap_mb megabytes,
    each sent as soon as its gradients are ready, and leaves the mean in
    every parameter's .grad (with gradient_as_bucket_view=True, each .grad
    is a view into its bucket and is averaged there). The work is libdl's (C), so the same class
    serves C, GJS and Vala. libdl runs on the CPU: device_ids and
    output_device must be None (or empty), as for a CPU module in
    PyTorch."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=25,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        if not isinstance(module, Dl.Module):
            raise TypeError('DistributedDataParallel: module must be a torch.nn.Module, not %s'
                            % type(module).__name__)
        if device_ids or output_device is not None:
            raise ValueError('DistributedDataParallel device_ids and output_device arguments '
                             'only work with single-device/multiple-device GPU modules; libdl '
                             'modules are on the CPU, so leave them None')
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError('DistributedDataParallel is not needed when a module doesn\'t '
                               'have any parameter that requires a gradient.')
        props = dict(module=module, broadcast_buffers=bool(broadcast_buffers),
                     bucket_cap_mb=float(bucket_cap_mb),
                     find_unused_parameters=bool(find_unused_parameters),
                     gradient_as_bucket_view=bool(gradient_as_bucket_view))
        if process_group is not None:
            props['process_group'] = process_group
        _construct(self, Dl.DistributedDataParallel, **props)
        self.__dict__['module'] = module
        self.dim = dim
        self.device_ids = None
        self.output_device = None
        self.broadcast_buffers = bool(broadcast_buffers)
        self.find_unused_parameters = bool(find_unused_parameters)
        self.gradient_as_bucket_view = bool(gradient_as_bucket_view)
        self.static_graph = bool(static_graph)

    @property
    def process_group(self):
        return self.get_process_group()

    @property
    def require_backward_grad_sync(self):
        return self.get_require_sync()

    @require_backward_grad_sync.setter
    def require_backward_grad_sync(self, value):
        self.set_require_sync(bool(value))

    def forward(self, *inputs, **kwargs):
        try:
            self.pre_forward()
        except GLib.Error as e:
            raise _translate(e) from None
        return self.module(*inputs, **kwargs)

    @contextmanager
    def no_sync(self):
        """Inside the block, forward and backward passes accumulate the
        gradients locally, without communication; the first backward after
        a forward outside it averages the accumulated gradients."""
        old = self.get_require_sync()
        self.set_require_sync(False)
        try:
            yield
        finally:
            self.set_require_sync(old)

    def extra_repr(self):
        return ''
