# dl.cuda (torch.cuda): what PyTorch scripts ask before choosing a device.
# libdl has no CUDA backend: no device is available, and the seeding
# functions do what PyTorch's do without a GPU (nothing; the CPU generator
# is seeded by dl.manual_seed).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

__all__ = ['is_available', 'is_initialized', 'device_count', 'manual_seed', 'manual_seed_all',
           'empty_cache', 'synchronize', 'current_device', 'get_device_name']


def is_available():
    """torch.cuda.is_available(): False, libdl has no CUDA backend."""
    return False


def is_initialized():
    """torch.cuda.is_initialized(): False."""
    return False


def device_count():
    """torch.cuda.device_count(): 0."""
    return 0


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
