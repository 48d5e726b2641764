# _typeinfo.py: what torch says about dtypes and tensor types: finfo and
# iinfo, is_floating_point / is_complex / is_nonzero, Tensor.type() and its
# type strings, the legacy constructors torch.FloatTensor, LongTensor, ...
# (which are also isinstance checks), Tensor.new(), and the module
# constants torch.inf, nan, pi and e.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import numbers

import numpy as _np

from ._creation import empty, tensor
from ._dtype import (_BOOL, Size, bfloat16, dtype, float16, float32, float64, get_default_dtype,
                     int32, int64, uint8)
from ._lib import Dl, _checked, _is_tensor

inf = math.inf
nan = math.nan
pi = math.pi
e = math.e


def _type_name(value):
    return type(value).__name__


class finfo:
    """torch.finfo(dtype): the numerical properties of a float dtype."""

    def __init__(self, type=None):
        if type is None:
            type = get_default_dtype()
        if not isinstance(type, dtype):
            raise TypeError("finfo(): argument 'type' (position 1) must be torch.dtype, not %s"
                            % _type_name(type))
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        if type == bfloat16:
            # 8 exponent bits as float32, 7 stored mantissa bits
            self.bits, self.eps = 16, 2.0 ** -7
            self.max = (2.0 - 2.0 ** -7) * 2.0 ** 127
            self.tiny = 2.0 ** -126
        else:
            info = _np.finfo({float16: _np.float16, float32: _np.float32,
                              float64: _np.float64}[type])
            self.bits, self.eps = info.bits, float(info.eps)
            self.max, self.tiny = float(info.max), float(info.tiny)
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(('finfo', self.dtype))

    def __repr__(self):
        return ('finfo(resolution={:g}, min={:g}, max={:g}, eps={:g}, smallest_normal={:g}, '
                'tiny={:g}, dtype={})'.format(self.resolution, self.min, self.max, self.eps,
                                              self.smallest_normal, self.tiny, self.dtype))


class iinfo:
    """torch.iinfo(dtype): the range of an integer dtype."""

    def __init__(self, type):
        if not isinstance(type, dtype):
            raise TypeError("iinfo(): argument 'type' (position 1) must be torch.dtype, not %s"
                            % _type_name(type))
        if type == _BOOL:
            raise TypeError('torch.bool is not supported by torch.iinfo')
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = _np.iinfo({int32: _np.int32, int64: _np.int64, uint8: _np.uint8}[type])
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(('iinfo', self.dtype))

    def __repr__(self):
        return 'iinfo(min={:g}, max={:g}, dtype={})'.format(float(self.min), float(self.max),
                                                           self.dtype)


def _tensor_arg(fname, value):
    if not _is_tensor(value):
        raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s"
                        % (fname, _type_name(value)))
    return value


def is_floating_point(input):
    return _tensor_arg('is_floating_point', input).is_floating_point()


def is_complex(input):
    # libdl has no complex dtypes
    _tensor_arg('is_complex', input)
    return False


def real(input):
    # every libdl dtype is real: the tensor itself, as torch.real of one
    return _tensor_arg('real', input)


def imag(input):
    _tensor_arg('imag', input)
    raise RuntimeError('imag is not implemented for tensors with non-complex dtypes.')


def is_nonzero(input):
    n = _tensor_arg('is_nonzero', input).numel()
    if n == 0:
        raise RuntimeError('Boolean value of Tensor with no values is ambiguous')
    if n > 1:
        raise RuntimeError('Boolean value of Tensor with more than one value is ambiguous')
    return bool(input.item())


# ---- tensor types: 'torch.FloatTensor', the legacy constructors ----------

_TYPE_NAMES = {float32: 'Float', float64: 'Double', float16: 'Half', bfloat16: 'BFloat16',
               int32: 'Int', int64: 'Long', uint8: 'Byte', _BOOL: 'Bool'}
# torch's types of dtypes libdl lacks: named in errors
_MISSING_TYPES = {'Char': 'int8', 'Short': 'int16', 'ComplexFloat': 'complex64',
                  'ComplexDouble': 'complex128'}


def _is_cuda(t):
    return t.get_device().get_device_type() == Dl.DeviceType.CUDA


def _t_is_complex(self):
    return False


def _t_is_signed(self):
    return self.dtype not in (uint8, _BOOL)


def _t_is_cpu(self):
    return self.get_device().get_device_type() == Dl.DeviceType.CPU


def _t_is_same_size(self, other):
    return list(self.get_shape()) == list(other.get_shape())


def _t_ndimension(self):
    return self.get_ndim()


def _type_of_string(name):
    """The dtype and whether CUDA of a 'torch.FloatTensor' or
    'torch.cuda.LongTensor' string."""
    for prefix, cuda in (('torch.cuda.', True), ('torch.', False)):
        if name.startswith(prefix) and name.endswith('Tensor'):
            base = name[len(prefix):-len('Tensor')]
            for dt, n in _TYPE_NAMES.items():
                if n == base:
                    return dt, cuda
            if base in _MISSING_TYPES:
                raise TypeError('%s: libdl has no %s dtype' % (name, _MISSING_TYPES[base]))
    raise ValueError('invalid type: %r' % name)


def _t_type(self, dtype=None, non_blocking=False, **kwargs):
    """torch.Tensor.type(): the type string ('torch.FloatTensor') without an
    argument, else a copy converted to the dtype, type string or legacy
    type given (self when it already is)."""
    if dtype is None:
        return 'torch.%s%sTensor' % ('cuda.' if _is_cuda(self) else '', _TYPE_NAMES[self.dtype])
    cuda = _is_cuda(self)
    if isinstance(dtype, _LegacyType):
        target = dtype.dtype
    elif isinstance(dtype, str):
        target, cuda = _type_of_string(dtype)
    elif isinstance(dtype, type(float32)):
        target = dtype
    else:
        raise TypeError("type(): argument 'dtype' must be torch.dtype or str, not %s"
                        % _type_name(dtype))
    t = self
    if cuda != _is_cuda(self):
        t = t.to('cuda' if cuda else 'cpu')
    return t if target == t.dtype else t.to(target)


def _no_int8(name, dt):
    def method(self, memory_format=None):
        raise TypeError('%s(): libdl has no %s dtype (torch.%s)' % (name, dt, dt))
    method.__name__ = name
    return method


def _t_byte(self, memory_format=None):
    return self.to(uint8)


def _legacy_new(name, dt, dev, args, kwargs):
    """The legacy constructor forms: () an empty vector, (ints) or (Size)
    an uninitialised tensor of that shape, (Tensor) that tensor, (data) a
    tensor of that data; device= the only keyword."""
    for k in kwargs:
        if k != 'device':
            raise TypeError("%s() got an unexpected keyword argument '%s'" % (name, k))
    dev = kwargs.get('device', dev)
    if not args:
        return empty(0, dtype=dt, device=dev)
    if len(args) == 1 and isinstance(args[0], Size):
        return empty(*args[0], dtype=dt, device=dev)
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
        return empty(*args, dtype=dt, device=dev)
    if len(args) == 1:
        a = args[0]
        if _is_tensor(a):
            if a.dtype != dt:
                raise TypeError('expected %s (got %s)' % (dt, a.dtype))
            return Dl.Tensor.alias(a)
        if isinstance(a, numbers.Number):
            raise TypeError('%s(): data must be a sequence (got %s)' % (name, _type_name(a)))
        if isinstance(a, (list, tuple, _np.ndarray)):
            return tensor(a, dtype=dt, device=dev)
        raise TypeError("%s(): invalid data type '%s'" % (name, _type_name(a)))
    raise TypeError('%s() received an invalid combination of arguments' % name)


def _t_new(self, *args, **kwargs):
    return _legacy_new('new', self.dtype, self.device, args, kwargs)


class _LegacyType(type):
    """The metaclass of torch.FloatTensor and the others: calling one
    constructs a tensor of its dtype; isinstance(t, torch.FloatTensor)
    holds for CPU float32 tensors, as in torch."""

    def __call__(cls, *args, **kwargs):
        return _legacy_new(cls.__name__, cls.dtype, None, args, kwargs)

    def __instancecheck__(cls, obj):
        return _is_tensor(obj) and obj.dtype == cls.dtype and not _is_cuda(obj)

    def __repr__(cls):
        return "<class 'torch.%s'>" % cls.__name__


LEGACY_TYPES = {}
for _dt, _n in _TYPE_NAMES.items():
    LEGACY_TYPES[_n + 'Tensor'] = _LegacyType(_n + 'Tensor', (), {
        'dtype': _dt, '__doc__': 'torch.%sTensor: the legacy constructor of %r tensors.'
                                 % (_n, _dt)})
# module attributes too, where their __module__ says they are (pickling)
globals().update(LEGACY_TYPES)

def _t_get_data(self):
    return self.detach()


@_checked
def _t_set_data(self, new):
    if not _is_tensor(new):
        raise TypeError('Tensor.data must be a Tensor, not %s' % _type_name(new))
    Dl.Tensor.replace_data(self, new)


METHODS = {
    'is_complex': _t_is_complex, 'is_signed': _t_is_signed,
    'is_same_size': _t_is_same_size, 'ndimension': _t_ndimension, 'type': _t_type,
    'new': _t_new, 'byte': _t_byte, 'char': _no_int8('char', 'int8'),
    'short': _no_int8('short', 'int16'),
}
PROPERTIES = {'is_cpu': property(_t_is_cpu),
              # Tensor.data: a detached alias of the same memory; assigning
              # it makes the tensor alias another's memory, as torch's does
              'data': property(_t_get_data, _t_set_data),
              'real': property(real), 'imag': property(imag)}

FUNCTIONS = dict(LEGACY_TYPES, finfo=finfo, iinfo=iinfo, is_floating_point=is_floating_point,
                 is_complex=is_complex, is_nonzero=is_nonzero, real=real, imag=imag, inf=inf, nan=nan, pi=pi, e=e)
