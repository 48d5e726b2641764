# _misc.py: torch.empty_strided, asarray, frombuffer, the *_copy functions,
# get_device, the has_* build facts, set_flush_denormal, set_warn_always.
#
# frombuffer and asarray share the memory of what they are given, as
# from_numpy does (_creation._wrap_address): the tensor holds the Python
# object until libdl lets go of its storage. The *_copy functions are the
# view op followed by a clone that keeps the view's layout where it is
# dense (torch's strides), differentiable through both (torch records one
# node, ViewBackward0_copy and so on; here the view's and CloneBackward0).
# One difference: torch 1.13's detach_copy gives a tensor that requires
# grad, with a NotImplemented grad_fn; libdl's does not require grad.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numbers
import warnings

import numpy as _np

from ._dtype import _dt, _DTYPES, _size_args, get_default_dtype
from ._lib import Dl, GLib, _is_tensor
from . import _creation


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """torch.empty_strided(size, stride): an uninitialised tensor of @size
    whose elements lie @stride apart, in a storage just large enough."""
    size = _size_args((size,), 'empty_strided')
    stride = _size_args((stride,), 'empty_strided')
    if len(size) != len(stride):
        raise RuntimeError('dimensionality of sizes (%d) must match dimensionality of strides '
                           '(%d)' % (len(size), len(stride)))
    if any(s < 0 for s in size):
        raise RuntimeError('Trying to create tensor with negative dimension %d: %s'
                           % (min(size), size))
    if any(s < 0 for s in stride):
        raise RuntimeError('Storage size calculation overflowed with sizes=%s and strides=%s'
                           % (size, stride))
    n = 0 if 0 in size else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    base = _creation.empty(n, dtype=dtype, device=device)
    out = base.as_strided(size, stride)
    if requires_grad:
        out.requires_grad_(True)
    return out


_BUFFER_WARNED = []


def _warn_not_writable():
    if _BUFFER_WARNED and not is_warn_always_enabled():
        return
    _BUFFER_WARNED.append(True)
    warnings.warn('The given buffer is not writable, and PyTorch does not support non-writable '
                  'tensors. This means you can write to the underlying (supposedly '
                  'non-writable) buffer using the tensor. You may want to copy the buffer to '
                  'protect its data or make it writable before converting it to a tensor. This '
                  'type of warning will be suppressed for the rest of this program.')


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """torch.frombuffer(buffer, dtype=..., count=-1, offset=0): a 1-D
    tensor over the memory of an object with the buffer protocol (no copy):
    @count elements of @dtype from byte @offset, all that follow when
    @count is -1. A read-only buffer gives a read-only tensor (torch warns
    and lets writes through)."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError('object does not implement Python buffer protocol.') from None
    if view.readonly:
        _warn_not_writable()
    d = _DTYPES[int(_dt(dtype))]
    size = d.itemsize
    length = view.nbytes
    if length <= 0 or count == 0:
        raise ValueError('both buffer length (%d) and count (%d) must not be 0'
                         % (length, count))
    if not 0 <= offset < length:
        raise ValueError('offset (%d bytes) must be non-negative and no greater than buffer '
                         'length (%d bytes) minus 1' % (offset, length))
    if count < 0 and (length - offset) % size:
        raise ValueError('buffer length (%d bytes) after offset (%d bytes) must be a multiple '
                         'of element size (%d)' % (length - offset, offset, size))
    if count < 0:
        count = (length - offset) // size
    if offset + count * size > length:
        raise ValueError('requested buffer length (%d * %d bytes) after offset (%d bytes) must '
                         'not be greater than actual buffer length (%d bytes)'
                         % (count, size, offset, length))
    # the address through numpy, which holds the exporter for the tensor
    if view.ndim != 1 or view.format != 'B':
        view = view.cast('B')
    raw = _np.frombuffer(view, dtype=_np.uint8)
    t = _creation._wrap_address(raw.ctypes.data + offset, d, [count], [1], raw)
    if view.readonly:
        t.mark_read_only()
    if requires_grad:
        t.requires_grad_(True)
    return t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """torch.asarray(obj, dtype=None, device=None, copy=None,
    requires_grad=False): a tensor from a tensor, a numpy array, an object
    with __dlpack__ or the buffer protocol (sharing its memory unless a
    dtype or device asks for a copy, or copy=True), or a sequence or
    number (always a copy; copy=False then raises ValueError)."""
    from ._dtype import device as _device
    tensor = None
    if _is_tensor(obj):
        tensor = obj
    elif isinstance(obj, _np.ndarray):
        if obj.dtype in _creation._FROM_NP:
            # (a read-only array gives a read-only tensor, see from_numpy)
            tensor = _creation.from_numpy(obj)
    elif isinstance(obj, _np.generic):
        tensor = _creation.tensor(obj)
    elif hasattr(obj, '__dlpack__'):
        from .utils.dlpack import from_dlpack
        tensor = from_dlpack(obj)
    else:
        try:
            memoryview(obj)
            is_buffer = True
        except TypeError:
            is_buffer = False
        if is_buffer:
            tensor = frombuffer(obj, dtype=get_default_dtype() if dtype is None else dtype)
    if tensor is not None:
        want_dev = None if device is None else _device(device)
        wrong_device = want_dev is not None and want_dev != tensor.device
        wrong_dtype = dtype is not None and dtype is not tensor.dtype
        if copy or (copy is None and (wrong_device or wrong_dtype)):
            if wrong_device or wrong_dtype:
                tensor = tensor.to(device=want_dev or tensor.device,
                                   dtype=dtype or tensor.dtype, copy=bool(copy))
            else:
                tensor = tensor.clone()
        else:
            if wrong_device:
                raise ValueError("can't alias tensor from device '%s' to '%s'."
                                 % (tensor.device, want_dev))
            if wrong_dtype:
                raise ValueError("can't alias tensor with dtype '%s' into dtype '%s'."
                                 % (_torch_type_name(tensor.dtype), _torch_type_name(dtype)))
        if requires_grad or tensor.requires_grad:
            if not requires_grad and not tensor.is_leaf:
                # torch drops the history of the very tensor; libdl gives
                # it detached
                return tensor.detach()
            tensor.requires_grad_(requires_grad)
        return tensor
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    out = _creation.tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        out.requires_grad_(True)
    return out


_TORCH_TYPE_NAMES = {'float32': 'Float', 'float64': 'Double', 'float16': 'Half',
                     'bfloat16': 'BFloat16', 'int32': 'Int', 'int64': 'Long', 'uint8': 'Byte',
                     'bool': 'Bool'}


def _torch_type_name(d):
    return _TORCH_TYPE_NAMES[d.name]


# ---- the *_copy functions -------------------------------------------------

def _copy_of(view):
    # torch's *_copy clone the view keeping its layout where it is dense
    # (a permuted copy keeps the permuted strides)
    return view.clone()


def view_copy(input, size):
    """torch.view_copy(input, size): input.view(size), copied."""
    try:
        return _copy_of(input.view(size))
    except GLib.Error as e:
        # torch's RuntimeError, without libdl's op name
        raise RuntimeError(e.message.partition('view: ')[2] or e.message) from None


def permute_copy(input, dims):
    return _copy_of(input.permute(dims))


def transpose_copy(input, dim0, dim1):
    return _copy_of(input.transpose(dim0, dim1))


def expand_copy(input, size, *, implicit=False):
    return _copy_of(input.expand(size))


def squeeze_copy(input, dim=None):
    return _copy_of(input.squeeze() if dim is None else input.squeeze(dim))


def unsqueeze_copy(input, dim):
    return _copy_of(input.unsqueeze(dim))


def t_copy(input):
    return _copy_of(input.t())


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    return _copy_of(input.diagonal(offset, dim1, dim2))


def select_copy(input, dim, index):
    return _copy_of(input.select(dim, index))


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """torch.slice_copy(input, dim=0, start=None, end=None, step=1)."""
    if step <= 0:
        raise RuntimeError('slice step must be positive')
    nd = input.dim()
    if not -max(nd, 1) <= dim < max(nd, 1):
        raise IndexError('Dimension out of range (expected to be in range of [%d, %d], but got '
                         '%d)' % (-max(nd, 1), max(nd, 1) - 1, dim))
    dim %= max(nd, 1)
    return _copy_of(input[(slice(None),) * dim + (slice(start, end, step),)])


def split_copy(input, split_size, dim=0):
    return [_copy_of(p) for p in input.split(split_size, dim)]


def split_with_sizes_copy(input, split_sizes, dim=0):
    return [_copy_of(p) for p in input.split(list(split_sizes), dim)]


def unbind_copy(input, dim=0):
    return [_copy_of(p) for p in input.unbind(dim)]


def unfold_copy(input, dimension, size, step):
    return _copy_of(input.unfold(dimension, size, step))


def detach_copy(input):
    return _copy_of(input.detach())


def alias_copy(input):
    return _copy_of(input)


def as_strided_copy(input, size, stride, storage_offset=None):
    return _copy_of(input.as_strided(size, stride, storage_offset))


# ---- devices, build facts and process settings ------------------------------

def get_device(input):
    """torch.get_device(tensor): -1 for a CPU tensor, the GPU's index for a
    CUDA one."""
    if not _is_tensor(input):
        raise TypeError("get_device(): argument 'input' (position 1) must be Tensor, not %s"
                        % type(input).__name__)
    dev = input.device
    return -1 if dev.type == 'cpu' else (dev.index or 0)


def set_flush_denormal(mode):
    """torch.set_flush_denormal(mode): flushes denormal floats to zero in
    the CPU kernels of the calling thread (and its worker threads) or stops
    doing so; False where the CPU cannot (see Dl.set_flush_denormal)."""
    if not isinstance(mode, bool):
        raise RuntimeError('flush_denormal expects a bool, but got %s' % type(mode).__name__)
    return Dl.set_flush_denormal(mode)


_WARN_ALWAYS = [False]


def set_warn_always(b):
    """torch.set_warn_always(b): whether the warnings libdl gives once per
    process are given every time."""
    if not isinstance(b, bool):
        raise RuntimeError('setWarnOnlyOnce expects a bool, but got %s' % type(b).__name__)
    _WARN_ALWAYS[0] = b


def is_warn_always_enabled():
    """torch.is_warn_always_enabled()."""
    return _WARN_ALWAYS[0]


# the build facts torch exposes as torch.has_* (has_cuda, whether libdl's
# CUDA backend loads, is _api's lazy attribute): no cuDNN, LAPACK through OpenBLAS, OpenMP
# for the CPU kernels; no MKL, oneDNN, MPS or FFT
CONSTANTS = {'has_lapack': True, 'has_mkl': False, 'has_mkldnn': False, 'has_mps': False,
             'has_openmp': True, 'has_spectral': False, 'has_cudnn': False}

FUNCTIONS = {f.__name__: f for f in (
    empty_strided, frombuffer, asarray, view_copy, permute_copy, transpose_copy, expand_copy,
    squeeze_copy, unsqueeze_copy, t_copy, diagonal_copy, select_copy, slice_copy, split_copy,
    split_with_sizes_copy, unbind_copy, unfold_copy, detach_copy, alias_copy, as_strided_copy,
    get_device, set_flush_denormal, set_warn_always, is_warn_always_enabled)}
