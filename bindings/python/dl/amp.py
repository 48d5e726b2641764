# dl.amp (torch.amp): automatic mixed precision. autocast and the
# functions of its state (torch.is_autocast_cpu_enabled,
# set_autocast_cpu_dtype, autocast_increment_nesting, clear_autocast_cache,
# ...) over libdl's per-thread autocast state (libdl/ops/dl-ops-autocast.c).
# The casting itself happens in C, at the start of the ops of PyTorch's
# autocast lists (matmul, mm, bmm, addmm, baddbmm, addbmm, linear, the
# convolutions; the losses of the fp32 list), so the
# layers' C forward (nn.Linear, nn.Conv2d, ...) autocasts too.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools
import warnings

from ._dtype import _DTYPES, bfloat16, dtype as _dtype_cls
from ._lib import Dl, _checked

__all__ = ['autocast']

_CPU = Dl.DeviceType.CPU
_CUDA = Dl.DeviceType.CUDA


def _bool_arg(value, name='enabled'):
    if not isinstance(value, bool):
        raise TypeError('%s must be a bool (got %s)' % (name, type(value).__name__))
    return value


def _dtype_arg(value):
    if not isinstance(value, _dtype_cls):
        raise TypeError('dtype must be a torch.dtype (got %s)' % type(value).__name__)
    return value


_set_dtype = _checked(Dl.autocast_set_dtype)


def is_autocast_enabled():
    """torch.is_autocast_enabled(): whether autocast is on for CUDA tensors
    in this thread."""
    return Dl.autocast_is_enabled(_CUDA)


def set_autocast_enabled(enabled):
    """torch.set_autocast_enabled(enabled): autocast of CUDA tensors on or
    off in this thread."""
    Dl.autocast_set_enabled(_CUDA, _bool_arg(enabled))


def is_autocast_cpu_enabled():
    """torch.is_autocast_cpu_enabled(): whether autocast is on for CPU
    tensors in this thread."""
    return Dl.autocast_is_enabled(_CPU)


def set_autocast_cpu_enabled(enabled):
    """torch.set_autocast_cpu_enabled(enabled)."""
    Dl.autocast_set_enabled(_CPU, _bool_arg(enabled))


def get_autocast_cpu_dtype():
    """torch.get_autocast_cpu_dtype(): the dtype CPU autocast computes in
    (torch.bfloat16 unless set)."""
    return _DTYPES[int(Dl.autocast_get_dtype(_CPU))]


def set_autocast_cpu_dtype(dtype):
    """torch.set_autocast_cpu_dtype(dtype): torch.bfloat16 only, as in
    torch (libdl's C API takes any floating-point dtype)."""
    if _dtype_arg(dtype) is not bfloat16:
        raise RuntimeError('Currently, AutocastCPU only support Bfloat16 as the '
                           'autocast_cpu_dtype')
    _set_dtype(_CPU, dtype._value)


def get_autocast_gpu_dtype():
    """torch.get_autocast_gpu_dtype(): the dtype CUDA autocast computes in
    (torch.float16 unless set)."""
    return _DTYPES[int(Dl.autocast_get_dtype(_CUDA))]


def set_autocast_gpu_dtype(dtype):
    """torch.set_autocast_gpu_dtype(dtype)."""
    _set_dtype(_CUDA, _dtype_arg(dtype)._value)


def autocast_increment_nesting():
    """torch.autocast_increment_nesting(): one more autocast region; the
    depth."""
    return Dl.autocast_increment_nesting()


def autocast_decrement_nesting():
    """torch.autocast_decrement_nesting(): one autocast region left; the
    depth."""
    return Dl.autocast_decrement_nesting()


def is_autocast_cache_enabled():
    """torch.is_autocast_cache_enabled()."""
    return Dl.autocast_is_cache_enabled()


def set_autocast_cache_enabled(enabled):
    """torch.set_autocast_cache_enabled(enabled)."""
    Dl.autocast_set_cache_enabled(_bool_arg(enabled))


def clear_autocast_cache():
    """torch.clear_autocast_cache(): drops the casts of weights kept in
    this thread."""
    Dl.autocast_clear_cache()


def _cuda_available():
    return Dl.cuda_is_available()


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True,
    cache_enabled=None): a context manager (or decorator) within which the
    ops of PyTorch's autocast lists on @device_type tensors compute in
    @dtype (CPU: torch.bfloat16, the only dtype CPU autocast takes; CUDA:
    torch.float16 by default). Regions nest; enabled=False turns autocast
    off inside one. The state is per thread."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = device_type
        if device_type == 'cuda':
            self.fast_dtype = get_autocast_gpu_dtype()
        elif device_type == 'cpu':
            self.fast_dtype = get_autocast_cpu_dtype()
        else:
            raise RuntimeError("User specified autocast device_type must be 'cuda' or 'cpu'")
        self._cache_enabled = is_autocast_cache_enabled()
        if enabled and device_type == 'cuda' and not _cuda_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. "
                          "Disabling")
            enabled = False
        if dtype is not None:
            self.fast_dtype = dtype
        if cache_enabled is not None:
            self._cache_enabled = cache_enabled
        if device_type == 'cpu' and self.fast_dtype != bfloat16:
            warnings.warn('In CPU autocast, but the target dtype is not supported. Disabling '
                          'autocast.\nCPU Autocast only supports dtype of torch.bfloat16 '
                          'currently.')
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        if self.device == 'cpu':
            self.prev = is_autocast_cpu_enabled()
            self.prev_fastdtype = get_autocast_cpu_dtype()
            set_autocast_cpu_enabled(self._enabled)
            set_autocast_cpu_dtype(self.fast_dtype)
        else:
            self.prev = is_autocast_enabled()
            self.prev_fastdtype = get_autocast_gpu_dtype()
            set_autocast_gpu_dtype(self.fast_dtype)
            set_autocast_enabled(self._enabled)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        if self.device == 'cpu':
            set_autocast_cpu_enabled(self.prev)
            set_autocast_cpu_dtype(self.prev_fastdtype)
        else:
            set_autocast_enabled(self.prev)
            set_autocast_gpu_dtype(self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


# torch.* names of this module (dl/_api.py puts them at the top level)
FUNCTIONS = {f.__name__: f for f in (
    is_autocast_enabled, set_autocast_enabled, is_autocast_cpu_enabled,
    set_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_cpu_dtype,
    get_autocast_gpu_dtype, set_autocast_gpu_dtype, autocast_increment_nesting,
    autocast_decrement_nesting, is_autocast_cache_enabled, set_autocast_cache_enabled,
    clear_autocast_cache)}
FUNCTIONS['autocast'] = autocast
