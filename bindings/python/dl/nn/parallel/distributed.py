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


def _device_index(device):
    """The index of a CUDA device given as an int, a str or a device; None
    for anything else."""
    if isinstance(device, int):
        return device
    name = device if isinstance(device, str) else str(device)  # 'cuda', 'cuda:1', 'cpu'
    kind, _, index = name.partition(':')
    if kind != 'cuda' or not (index == '' or index.isdigit()):
        return None
    return int(index or 0)


def _single_gpu(module, device_ids, output_device):
    """torch's single-device module: every parameter on one GPU, which
    device_ids names (alone) and output_device, when given, too; its index
    in a list"""
    devices = {str(p.device) for p in module.parameters()}
    ids = [_device_index(d) for d in (device_ids or [])]
    out = None if output_device is None else _device_index(output_device)
    here = next(iter(devices)) if len(devices) == 1 else None
    if (here is None or not here.startswith('cuda') or len(ids) != 1 or ids[0] is None
            or 'cuda:%d' % ids[0] != here or (output_device is not None and out != ids[0])):
        raise ValueError('DistributedDataParallel device_ids and output_device arguments only '
                         'work with single-device/multiple-device GPU modules or CPU modules, '
                         'but got device_ids {}, output_device {}, and module parameters {}.'
                         .format(device_ids, output_device,
                                 {p.device for p in module.parameters()}))
    return ids


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
    serves C, GJS and Vala. A module on the CPU takes device_ids and
    output_device None (or empty), as in PyTorch; a module on one GPU (with
    the NCCL engine) may name that GPU: device_ids=[i] (an index or a
    device) and output_device None or the same."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=25,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        if not isinstance(module, Dl.Module):
            raise TypeError('DistributedDataParallel: module must be a torch.nn.Module, not %s'
                            % type(module).__name__)
        if device_ids or output_device is not None:
            device_ids = _single_gpu(module, device_ids, output_device)
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
        self.device_ids = device_ids or None
        self.output_device = device_ids[0] if device_ids else None
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
