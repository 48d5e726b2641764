# _dtype.py: dtypes, devices and shapes (torch.dtype, torch.device,
# torch.Size) and the helpers that turn PyTorch's arguments for them into
# the typelib's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import builtins
import numbers
import threading

import numpy as _np

from ._lib import Dl, GLib, _is_tensor

# The dtypes float, int and bool are exported by the package's __init__
# under those names (see _SHADOWED there); here they are float32, int32 and
# _BOOL, so that this module keeps Python's float, int and bool.


class dtype:
    """A tensor element type, printed as PyTorch prints it (torch.float32)."""
    __slots__ = ('_value', 'name', 'is_floating_point', 'itemsize')
    __module__ = 'dl'  # the package's name for it, as torch.dtype

    def __init__(self, value):
        self._value = value
        self.name = Dl.dtype_get_name(value)
        self.is_floating_point = Dl.dtype_is_floating_point(value)
        self.itemsize = Dl.dtype_get_size(value)

    def __repr__(self):
        return 'torch.' + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


class memory_format:
    """A memory layout (torch.preserve_format, torch.contiguous_format)."""
    __slots__ = ('_value', 'name')

    def __init__(self, name, value):
        self.name = name
        self._value = value

    def __repr__(self):
        return 'torch.' + self.name

    def __reduce__(self):
        return self.name


preserve_format = memory_format('preserve_format', Dl.MemoryFormat.PRESERVE)
contiguous_format = memory_format('contiguous_format', Dl.MemoryFormat.CONTIGUOUS)


def _memory_format(f, name):
    """The Dl.MemoryFormat of a memory_format= argument (None: preserve)."""
    if f is None:
        return Dl.MemoryFormat.PRESERVE
    if type(f) is not memory_format:
        raise TypeError("%s(): argument 'memory_format' must be torch.memory_format, not %s"
                        % (name, type(f).__name__))
    return f._value


_DTYPES = {int(getattr(Dl.DType, _name.upper())): dtype(getattr(Dl.DType, _name.upper()))
           for _name in ('float32', 'float64', 'float16', 'bfloat16', 'int32', 'int64', 'uint8',
                         'bool')}


def _dtype_by_name(name):
    return _DTYPES[int(getattr(Dl.DType, name.upper()))]


float32 = _dtype_by_name('float32')
float64 = _dtype_by_name('float64')
float16 = _dtype_by_name('float16')
bfloat16 = _dtype_by_name('bfloat16')
int32 = _dtype_by_name('int32')
int64 = _dtype_by_name('int64')
uint8 = _dtype_by_name('uint8')
_BOOL = _dtype_by_name('bool')
double = float64
half = float16
long = int64

_NP_OF = {'float32': _np.float32, 'float64': _np.float64, 'float16': _np.float16,
          'int32': _np.int32, 'int64': _np.int64, 'uint8': _np.uint8, 'bool': _np.bool_}
_FROM_NP = {_np.dtype(v): _dtype_by_name(k) for k, v in _NP_OF.items()}


def _dt(d):
    """A Dl.DType from a dtype object, a Dl.DType or None (default)."""
    if d is None:
        return Dl.get_default_dtype()
    if type(d) is dtype:
        return d._value
    if isinstance(d, Dl.DType):
        return d
    if d is float:
        return Dl.get_default_dtype()
    if d is int:
        return Dl.DType.INT64
    if d is bool:
        return Dl.DType.BOOL
    raise TypeError('dtype must be a Dl dtype such as Dl.float32, got %r' % (d,))


def get_default_dtype():
    return _DTYPES[int(Dl.get_default_dtype())]


def set_default_dtype(d):
    try:
        Dl.set_default_dtype(_dt(d))
    except GLib.Error as e:
        raise TypeError(e.message) from None


class device:
    """A device name, as torch.device: device('cpu'), device('cuda', 0)."""
    __slots__ = ('type', 'index')

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError("Device(): argument 'index' (position 2) must be int, not %s"
                            % builtins.type(index).__name__)
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            # device(n): CUDA device n, as torch's
            type, index = 'cuda', type
        elif not isinstance(type, str):
            raise TypeError('device() expects a string such as "cpu" or "cuda:0"')
        if ':' in type:
            if index is not None:
                raise RuntimeError('type (string) must not include an index because index was '
                                   'passed explicitly: ' + type)
            name, idx = type.split(':', 1)
            if not idx.isdigit() or (len(idx) > 1 and idx[0] == '0'):
                raise RuntimeError('Invalid device string: %r' % type)
            type, index = name, int(idx)
        if index is not None and index < 0:
            raise RuntimeError('Device index must not be negative')
        if type not in ('cpu', 'cuda', 'meta'):
            raise RuntimeError('Expected one of cpu, cuda, meta device type at start of device '
                               'string: ' + type)
        self.type, self.index = type, index

    def __str__(self):
        return self.type if self.index is None else '%s:%d' % (self.type, self.index)

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))

    # `with torch.device('meta'):` makes the factories and the modules built
    # in the block use this device when given none (torch 2's)
    def __enter__(self):
        _device_stack().append(_default_dl_device())
        _set_default_device(self)
        return self

    def __exit__(self, *exc):
        _set_default_device(_device_stack().pop())


_CPU = device('cpu')

# the calling thread's default device: None for the CPU, else its Dl.Device
# (libdl keeps the same, per thread: Dl.Device.set_default)
_defaults = threading.local()


def _device_stack():
    stack = getattr(_defaults, 'stack', None)
    if stack is None:
        stack = _defaults.stack = []
    return stack


def _default_dl_device():
    """The thread's default Dl.Device, None for the CPU."""
    return getattr(_defaults, 'device', None)


def _set_default_device(d):
    """Makes @d (a device spec, a Dl.Device or None for the CPU) the default
    device of the calling thread, here and in libdl."""
    if d is not None and not isinstance(d, Dl.Device):
        d = device(d)
        d = None if d.type == 'cpu' else Dl.Device.get(str(d))
    _defaults.device = d
    Dl.set_default_device(d)


def _dl_device(d):
    """The Dl.Device for a device spec, raising PyTorch's error for CUDA;
    None for the CPU while the CPU is the default device."""
    if d is None:
        return None
    d = device(d)
    if d.type == 'cpu':
        return None if _default_dl_device() is None else Dl.Device.get('cpu')
    return Dl.Device.get(str(d))


class Size(tuple):
    """The shape of a tensor, as torch.Size."""
    __slots__ = ()
    __module__ = 'dl'  # the package's name for it, as torch.Size

    def __repr__(self):
        return 'torch.Size([%s])' % ', '.join(str(s) for s in self)

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


def _size_args(size, fn='size'):
    """Sizes given as f(2, 3), f((2, 3)) or f([2, 3])."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if _is_tensor(s):
            s = s.item()
        if not isinstance(s, numbers.Integral) or isinstance(s, bool):
            raise TypeError('%s(): argument \'size\' must be a tuple of ints, but found element '
                            'of type %s' % (fn, type(s).__name__))
        out.append(int(s))
    return out
