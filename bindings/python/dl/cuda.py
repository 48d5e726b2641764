# dl.cuda (torch.cuda): what PyTorch scripts ask before choosing a device.
# is_available and device_count ask libdl, which loads its CUDA backend
# module on first use (no module, driver or device: False and 0). The
# CUDA backend has no kernels yet: the seeding functions do what PyTorch's
# do without a GPU (nothing; the CPU generator is seeded by dl.manual_seed).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ._lib import Dl

__all__ = ['is_available', 'is_initialized', 'device_count', 'manual_seed', 'manual_seed_all',
           'empty_cache', 'synchronize', 'current_device', 'get_device_name']


def is_available():
    """torch.cuda.is_available(): whether libdl's CUDA backend module loads
    and finds a driver and a device (Dl.cuda_is_available)."""
    return Dl.cuda_is_available()


def is_initialized():
    """torch.cuda.is_initialized(): False."""
    return False


def device_count():
    """torch.cuda.device_count(): the CUDA devices libdl can use, 0 without
    its CUDA backend module, a driver or a device (Dl.cuda_device_count)."""
    return Dl.cuda_device_count()


def manual_seed(seed):
    """torch.cuda.manual_seed(seed): seeds the current GPU's generator; with
    no GPU, as in PyTorch without one, there is none and nothing happens."""
    int(seed)


def manual_seed_all(seed):
    """torch.cuda.manual_seed_all(seed): seeds every GPU's generator; with
    no GPU, as in PyTorch without one, nothing happens."""
    int(seed)


def empty_cache():
    """torch.cuda.empty_cache(): frees the GPU memory cache; with no GPU,
    as in PyTorch without one, there is none and nothing happens."""


def _no_cuda(name):
    # PyTorch built without CUDA raises AssertionError for what needs a GPU
    raise AssertionError('torch.cuda.%s: libdl has no CUDA backend (only the CPU device)' % name)


def synchronize(device=None):
    """torch.cuda.synchronize(): needs a GPU; AssertionError, as PyTorch's
    built without CUDA."""
    _no_cuda('synchronize')


def current_device():
    """torch.cuda.current_device(): needs a GPU; AssertionError, as
    PyTorch's built without CUDA."""
    _no_cuda('current_device')


def get_device_name(device=None):
    """torch.cuda.get_device_name(): needs a GPU; AssertionError, as
    PyTorch's built without CUDA."""
    _no_cuda('get_device_name')
