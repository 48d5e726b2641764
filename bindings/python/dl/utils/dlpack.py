# dl.utils.dlpack (torch.utils.dlpack): DLPack capsules, the array
# exchange format of numpy (np.from_dlpack), PyTorch, CuPy, JAX, ...
#
# to_dlpack(t) hands out t's memory without a copy: a DLManagedTensor
# whose manager context holds the tensor (so libdl keeps its storage)
# until the consumer calls the deleter, or, if nobody consumed it, until
# the capsule is freed. from_dlpack(obj) takes a capsule, or an object
# with __dlpack__, and makes a tensor over the producer's memory that
# calls the producer's deleter when libdl lets go of it. The structures
# are DLPack 0.x's (dlpack.h), built and read with ctypes.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes
import enum
import threading

from .._dtype import _DTYPES
from .._lib import Dl, _is_tensor

__all__ = ['DLDeviceType', 'to_dlpack', 'from_dlpack']


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLGPU = 2
    kDLCPUPinned = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLExtDev = 12
    kDLOneAPI = 14


class _Device(ctypes.Structure):
    _fields_ = [('device_type', ctypes.c_int32), ('device_id', ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint8), ('bits', ctypes.c_uint8), ('lanes', ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('device', _Device), ('ndim', ctypes.c_int32),
                ('dtype', _DataType), ('shape', ctypes.POINTER(ctypes.c_int64)),
                ('strides', ctypes.POINTER(ctypes.c_int64)), ('byte_offset', ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_Managed._fields_ = [('dl_tensor', _DLTensor), ('manager_ctx', ctypes.c_void_p),
                     ('deleter', _DELETER)]

# DLPack's type codes
_INT, _UINT, _FLOAT, _BFLOAT, _BOOL = 0, 1, 2, 4, 6
# libdl's dtypes as (code, bits), PyTorch 1.13's (which exports no bool)
_CODES = {'float32': (_FLOAT, 32), 'float64': (_FLOAT, 64), 'float16': (_FLOAT, 16),
          'bfloat16': (_BFLOAT, 16), 'int32': (_INT, 32), 'int64': (_INT, 64),
          'uint8': (_UINT, 8)}
_DTYPE_OF = {v: k for k, v in _CODES.items()}
# (newer producers mark booleans with DLPack 0.8's kDLBool)
_DTYPE_OF[(_BOOL, 8)] = 'bool'
_BY_NAME = {d.name: d for d in _DTYPES.values()}

_api = ctypes.pythonapi
# the destructor gets the capsule being freed as a bare pointer: a
# py_object would take a new reference to an object whose count is 0
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ('PyCapsule_IsValid', _api))
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ('PyCapsule_GetPointer', _api))

_NAME = b'dltensor'
_USED_NAME = b'used_dltensor'

# the capsules' managed tensors not yet deleted: address -> (struct, the
# tensor, shape and strides arrays)
_live = {}
_lock = threading.Lock()


def _delete(managed):
    with _lock:
        _live.pop(ctypes.addressof(managed.contents), None)


_deleter = _DELETER(_delete)


def _capsule_destructor(capsule):
    # a capsule nobody consumed still owns its managed tensor
    if _raw_is_valid(capsule, _NAME):
        address = _raw_get_pointer(capsule, _NAME)
        _deleter(ctypes.cast(address, ctypes.POINTER(_Managed)))


_capsule_destructor_c = _CAPSULE_DESTRUCTOR(_capsule_destructor)


def _dlpack_device(t):
    dev = t.device
    if dev.type == 'cpu':
        return DLDeviceType.kDLCPU, 0
    if dev.type == 'cuda':
        return DLDeviceType.kDLGPU, dev.index or 0
    raise ValueError('Unknown device type {} for Dlpack'.format(dev.type))


def to_dlpack(tensor):
    """torch.utils.dlpack.to_dlpack(tensor): a DLPack capsule of the
    tensor's memory (no copy); the capsule keeps the tensor alive until
    its consumer lets go."""
    if not _is_tensor(tensor):
        raise TypeError("to_dlpack(): argument 'tensor' (position 1) must be Tensor, not %s"
                        % type(tensor).__name__)
    tensor = tensor.detach()
    if tensor.dtype.name == 'bool':
        raise RuntimeError('Bool type is not supported by dlpack')
    device_type, device_id = _dlpack_device(tensor)
    code, bits = _CODES[tensor.dtype.name]
    ndim = tensor.dim()
    shape = (ctypes.c_int64 * max(ndim, 1))(*tensor.shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*tensor.stride())
    managed = _Managed()
    managed.dl_tensor.data = tensor.data_ptr() if tensor.numel() else None
    managed.dl_tensor.device = _Device(int(device_type), device_id)
    managed.dl_tensor.ndim = ndim
    managed.dl_tensor.dtype = _DataType(code, bits, 1)
    managed.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    managed.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    managed.dl_tensor.byte_offset = 0
    managed.manager_ctx = None
    managed.deleter = _deleter
    address = ctypes.addressof(managed)
    with _lock:
        _live[address] = (managed, tensor, shape, strides)
    return _api.PyCapsule_New(address, _NAME, _capsule_destructor_c)


class _Producer:
    """Holds a consumed DLManagedTensor for the tensor made over it: calls
    its deleter when libdl lets go of the memory."""
    __slots__ = ('managed',)

    def __init__(self, managed):
        self.managed = managed

    def __del__(self):
        m, self.managed = self.managed, None
        if m is not None and m.contents.deleter:
            m.contents.deleter(m)


def _from_capsule(capsule):
    from .. import _creation
    if not _api.PyCapsule_IsValid(capsule, _NAME):
        raise RuntimeError('from_dlpack received an invalid capsule. Note that DLTensor '
                           'capsules can be consumed only once, so you might have already '
                           'constructed a tensor from it once.')
    address = _api.PyCapsule_GetPointer(capsule, _NAME)
    managed = ctypes.cast(address, ctypes.POINTER(_Managed))
    dl = managed.contents.dl_tensor
    # read everything before the capsule is marked consumed: the producer
    # may free the struct once its deleter runs
    dev = dl.device.device_type
    if dev not in (DLDeviceType.kDLCPU, DLDeviceType.kDLCPUPinned):
        raise RuntimeError('Unsupported device_type: %d' % dev)
    key = (dl.dtype.code, dl.dtype.bits)
    if dl.dtype.lanes != 1 or key not in _DTYPE_OF:
        raise RuntimeError('Unsupported kDL%s bits %d' % (
            {_INT: 'Int', _UINT: 'UInt', _FLOAT: 'Float', _BFLOAT: 'Bfloat'}.get(
                dl.dtype.code, 'code %d' % dl.dtype.code), dl.dtype.bits)
            if dl.dtype.lanes == 1 else 'DLPack only supports lanes equal to 1')
    d = _BY_NAME[_DTYPE_OF[key]]
    ndim = dl.ndim
    shape = [dl.shape[i] for i in range(ndim)]
    if dl.strides:
        strides = [dl.strides[i] for i in range(ndim)]
    else:
        strides, step = [0] * ndim, 1
        for i in reversed(range(ndim)):
            strides[i] = step
            step *= max(shape[i], 1)
    data = (dl.data or 0) + dl.byte_offset
    _api.PyCapsule_SetName(capsule, _USED_NAME)
    owner = _Producer(managed)
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0 or data == 0:
        del owner
        return _creation.empty(shape, dtype=d)
    return _creation._wrap_address(data, d, shape, strides, owner)


def from_dlpack(ext_tensor):
    """torch.utils.dlpack.from_dlpack(ext_tensor): a tensor over the memory
    of a DLPack capsule or of an object with __dlpack__ (a numpy array, a
    PyTorch tensor, ...), without a copy. CPU memory only."""
    if hasattr(ext_tensor, '__dlpack__'):
        device = ext_tensor.__dlpack_device__()
        if device[0] in (DLDeviceType.kDLGPU, DLDeviceType.kDLROCM):
            capsule = ext_tensor.__dlpack__(stream=1)
        else:
            capsule = ext_tensor.__dlpack__()
    else:
        capsule = ext_tensor
    return _from_capsule(capsule)


def _tensor_dlpack(self, stream=None):
    """Tensor.__dlpack__(stream=None): the tensor as a DLPack capsule."""
    if self.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError('stream must be ``int`` or ``none``')
    return to_dlpack(self)


def _tensor_dlpack_device(self):
    """Tensor.__dlpack_device__(): (DLDeviceType, device index)."""
    return _dlpack_device(self)
