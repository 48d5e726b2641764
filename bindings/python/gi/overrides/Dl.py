# Dl.py: the PyTorch-compatible Python layer over the Dl typelib.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# With `from gi.repository import Dl as torch`, PyTorch code runs on libdl.
# This file is sugar only: argument parsing, operators, Python protocols and
# PyTorch's exception classes. Every computation happens in C, so that C,
# GJS and Vala users get it too. The hot paths (operators between tensors)
# are one Python frame deep; see shared/GI-NOTES.md for what each costs.

import builtins
import collections
import functools
import numbers
import sys
import types

import numpy as _np
from gi.repository import GLib

from ..module import get_introspection_module
from ..overrides import override

Dl = get_introspection_module('Dl')

__all__ = []


# Exports whose names are Python builtins (float, int, bool, sum, max, ...)
# must not shadow the builtins this file uses, so they live here and the
# module's __getattr__ hands them to PyGObject's override loader.
_SHADOWED = {}


def _export(obj, name=None):
    name = name or obj.__name__
    if hasattr(builtins, name):
        _SHADOWED[name] = obj
    else:
        globals()[name] = obj
    __all__.append(name)
    return obj


def __getattr__(name):
    try:
        return _SHADOWED[name]
    except KeyError:
        raise AttributeError(name) from None


# ---- errors -------------------------------------------------------------

_ERROR_DOMAIN = 'dl-error-quark'


_glib_error_str = GLib.Error.__str__


def _error_str(self):
    """libdl's errors print as PyTorch's do: just the message, which names
    the op. Errors of other domains keep PyGObject's format."""
    if getattr(self, 'domain', None) == _ERROR_DOMAIN:
        return self.message
    return _glib_error_str(self)


GLib.Error.__str__ = _error_str


def _translate(e):
    """The exception PyTorch raises for a DL_ERROR: IndexError for indices
    and dims out of range, the GLib.Error (a RuntimeError) otherwise."""
    if isinstance(e, GLib.Error) and e.domain == _ERROR_DOMAIN and e.code == int(Dl.Error.INDEX):
        return IndexError(e.message)
    return e


def _checked(fn):
    """Wraps a method so that DL_ERROR_INDEX surfaces as IndexError."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GLib.Error as e:
            raise _translate(e) from None
    return wrapper


# ---- dtypes and devices -------------------------------------------------

class dtype:
    """A tensor element type, printed as PyTorch prints it (torch.float32)."""
    __slots__ = ('_value', 'name', 'is_floating_point', 'itemsize')

    def __init__(self, value):
        self._value = value
        self.name = Dl.dtype_get_name(value)
        self.is_floating_point = Dl.dtype_is_floating_point(value)
        self.itemsize = Dl.dtype_get_size(value)

    def __repr__(self):
        return 'torch.' + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


_export(dtype)
_DTYPES = {}
for _name in ('float32', 'float64', 'float16', 'bfloat16', 'int32', 'int64', 'uint8', 'bool'):
    _v = getattr(Dl.DType, _name.upper())
    _DTYPES[int(_v)] = _export(dtype(_v), _name)
for _alias, _name in (('float', 'float32'), ('double', 'float64'), ('half', 'float16'),
                      ('int', 'int32'), ('long', 'int64')):
    _export(_DTYPES[int(getattr(Dl.DType, _name.upper()))], _alias)
_BOOL = _DTYPES[int(Dl.DType.BOOL)]


def _dtype_by_name(name):
    return _DTYPES[int(getattr(Dl.DType, name.upper()))]


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


_export(get_default_dtype)
_export(set_default_dtype)


class device:
    """A device name, as torch.device: device('cpu'), device('cuda', 0)."""
    __slots__ = ('type', 'index')

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError('device() expects a string such as "cpu" or "cuda:0"')
        if ':' in type:
            type, idx = type.split(':', 1)
            if index is not None or not idx.isdigit():
                raise RuntimeError('Invalid device string: %r' % (type + ':' + idx))
            index = int(idx)
        if type not in ('cpu', 'cuda'):
            raise RuntimeError('Expected one of cpu, cuda device type at start of device '
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


_export(device)
_CPU = device('cpu')


def _dl_device(d):
    """The Dl.Device for a device spec, raising PyTorch's error for CUDA."""
    if d is None:
        return None
    d = device(d)
    if d.type == 'cpu':
        return None
    return Dl.Device.get(str(d))


class Size(tuple):
    """The shape of a tensor, as torch.Size."""
    __slots__ = ()

    def __repr__(self):
        return 'torch.Size([%s])' % ', '.join(str(s) for s in self)

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


_export(Size)


def _size_args(size, fn='size'):
    """Sizes given as f(2, 3), f((2, 3)) or f([2, 3])."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, numbers.Integral) or isinstance(s, bool):
            raise TypeError('%s(): argument \'size\' must be a tuple of ints, but found element '
                            'of type %s' % (fn, type(s).__name__))
        out.append(int(s))
    return out


# ---- tensors ------------------------------------------------------------

_ReturnValues = collections.namedtuple('return_types', ['values', 'indices'])


class _ArrayView:
    """Hands numpy a tensor's memory; holding the tensor keeps it alive."""
    __slots__ = ('__array_interface__', '_tensor')


_NP_TYPESTR = {'float32': '<f4', 'float64': '<f8', 'float16': '<f2', 'int32': '<i4',
               'int64': '<i8', 'uint8': '|u1', 'bool': '|b1'}


def _release(owner):
    """Called when a tensor made by from_numpy lets go of the array."""


_t_add = Dl.Tensor.add
_t_sub = Dl.Tensor.sub
_t_mul = Dl.Tensor.mul
_t_div = Dl.Tensor.div
_t_matmul = Dl.Tensor.matmul


def _is_tensor(x):
    return isinstance(x, Dl.Tensor)


def _scalar_operand(self, other):
    """(tensor, value) for an op with a Python int or float: the C scalar
    ops take the number's kind from its value, so a float with an integral
    value next to an integer tensor goes as a wrapped float64 number
    instead. (Python bools go as bool 0-d tensors, see _binary_fallback.)"""
    if isinstance(other, bool):
        return None, None
    if isinstance(other, numbers.Integral):
        return self, float(other)
    if isinstance(other, numbers.Real):
        v = float(other)
        if v.is_integer() and not Dl.dtype_is_floating_point(self.get_dtype()):
            return self, Dl.Tensor.new_wrapped_scalar(v, Dl.DType.FLOAT64)
        return self, v
    return None, None


def _binary(tensor_fn, scalar_fn, name):
    def op(self, other):
        if type(other) is Tensor:
            return tensor_fn(self, other)
        t, v = _scalar_operand(self, other)
        if t is None:
            if isinstance(other, _np.ndarray):
                return tensor_fn(self, tensor(other))
            return NotImplemented
        return scalar_fn(t, v)
    op.__name__ = name
    return op


def _reflected(scalar_fn, name, tensor_fn):
    def op(self, other):
        if isinstance(other, bool):
            return tensor_fn(_bool_scalar(other), self)
        t, v = _scalar_operand(self, other)
        if t is None:
            return NotImplemented
        return scalar_fn(t, v) if type(v) is float else tensor_fn(v, t)
    op.__name__ = name
    return op


def _comparison(tensor_fn, scalar_fn, name, none_result):
    def op(self, other):
        if type(other) is Tensor:
            return tensor_fn(self, other)
        if other is None:
            return none_result
        if isinstance(other, bool):
            return tensor_fn(self, _bool_scalar(other))
        t, v = _scalar_operand(self, other)
        if t is None:
            return NotImplemented
        return scalar_fn(t, v) if type(v) is float else tensor_fn(t, v)
    op.__name__ = name
    return op


def _inplace(tensor_fn, scalar_fn, name):
    def op(self, other):
        if _is_tensor(other):
            tensor_fn(self, other)
        elif isinstance(other, bool):
            tensor_fn(self, _bool_scalar(other))
        elif isinstance(other, numbers.Real):
            t, v = _scalar_operand(self, other)
            if type(v) is float:
                scalar_fn(self, v)
            else:
                tensor_fn(self, v)
        else:
            raise TypeError('%s(): argument \'other\' must be a Tensor or a number, not %s'
                            % (name, type(other).__name__))
        return self
    op.__name__ = name
    return op


def _dims(dim):
    if isinstance(dim, numbers.Integral):
        return [int(dim)]
    return [int(d) for d in dim]


class Tensor(Dl.Tensor):
    """A libdl tensor with PyTorch's Python API."""

    # -- operators (hot paths: one frame deep for tensor operands) --
    def __add__(self, other):
        if type(other) is Tensor:
            return _t_add(self, other)
        t, v = _scalar_operand(self, other)
        if t is None:
            return _binary_fallback(self, other, _t_add)
        return t.add_scalar(v) if type(v) is float else _t_add(t, v)

    def __sub__(self, other):
        if type(other) is Tensor:
            return _t_sub(self, other)
        t, v = _scalar_operand(self, other)
        if t is None:
            return _binary_fallback(self, other, _t_sub)
        return t.sub_scalar(v) if type(v) is float else _t_sub(t, v)

    def __mul__(self, other):
        if type(other) is Tensor:
            return _t_mul(self, other)
        t, v = _scalar_operand(self, other)
        if t is None:
            return _binary_fallback(self, other, _t_mul)
        return t.mul_scalar(v) if type(v) is float else _t_mul(t, v)

    def __truediv__(self, other):
        if type(other) is Tensor:
            return _t_div(self, other)
        t, v = _scalar_operand(self, other)
        if t is None:
            return _binary_fallback(self, other, _t_div)
        return t.div_scalar(v) if type(v) is float else _t_div(t, v)

    def __matmul__(self, other):
        if _is_tensor(other):
            return _t_matmul(self, other)
        return NotImplemented

    __radd__ = _reflected(Dl.Tensor.add_scalar, '__radd__', Dl.Tensor.add)
    __rmul__ = _reflected(Dl.Tensor.mul_scalar, '__rmul__', Dl.Tensor.mul)
    __rsub__ = _reflected(Dl.Tensor.rsub_scalar, '__rsub__', Dl.Tensor.sub)
    __rtruediv__ = _reflected(Dl.Tensor.rdiv_scalar, '__rtruediv__', Dl.Tensor.div)

    __eq__ = _comparison(Dl.Tensor.eq, Dl.Tensor.eq_scalar, '__eq__', False)
    __ne__ = _comparison(Dl.Tensor.ne, Dl.Tensor.ne_scalar, '__ne__', True)
    __lt__ = _comparison(Dl.Tensor.lt, Dl.Tensor.lt_scalar, '__lt__', NotImplemented)
    __le__ = _comparison(Dl.Tensor.le, Dl.Tensor.le_scalar, '__le__', NotImplemented)
    __gt__ = _comparison(Dl.Tensor.gt, Dl.Tensor.gt_scalar, '__gt__', NotImplemented)
    __ge__ = _comparison(Dl.Tensor.ge, Dl.Tensor.ge_scalar, '__ge__', NotImplemented)
    __hash__ = object.__hash__

    __iadd__ = _inplace(Dl.Tensor.add_, Dl.Tensor.add_scalar_, 'add_')
    __isub__ = _inplace(Dl.Tensor.sub_, lambda t, v: Dl.Tensor.add_scalar_(t, -v), 'sub_')
    __imul__ = _inplace(Dl.Tensor.mul_, Dl.Tensor.mul_scalar_, 'mul_')
    __itruediv__ = _inplace(Dl.Tensor.div_, lambda t, v: Dl.Tensor.mul_scalar_(t, 1.0 / v),
                            'div_')

    def __neg__(self):
        return self.neg()

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    # -- PyTorch-named methods with PyTorch signatures --
    def add(self, other, alpha=1):
        if alpha != 1:
            return self.add_scaled(other if _is_tensor(other) else tensor(other), float(alpha))
        return self + other

    def sub(self, other, alpha=1):
        if alpha != 1:
            return self.add_scaled(other if _is_tensor(other) else tensor(other), -float(alpha))
        return self - other

    def mul(self, other):
        return self * other

    def div(self, other):
        return self / other

    def add_(self, other, alpha=1):
        if alpha != 1:
            Dl.Tensor.add_scaled_(self, other, float(alpha))
            return self
        return self.__iadd__(other)

    def sub_(self, other, alpha=1):
        if alpha != 1:
            Dl.Tensor.add_scaled_(self, other, -float(alpha))
            return self
        return self.__isub__(other)

    def mul_(self, other):
        return self.__imul__(other)

    def div_(self, other):
        return self.__itruediv__(other)

    def fill_(self, value):
        Dl.Tensor.fill_(self, float(value))
        return self

    def zero_(self):
        Dl.Tensor.zero_(self)
        return self

    def copy_(self, src):
        Dl.Tensor.copy_(self, src if _is_tensor(src) else tensor(src))
        return self

    def uniform_(self, a=0.0, b=1.0):
        Dl.Tensor.uniform_(self, float(a), float(b))
        return self

    def normal_(self, mean=0.0, std=1.0):
        Dl.Tensor.normal_(self, float(mean), float(std))
        return self

    def eq(self, other):
        return self == other

    def ne(self, other):
        return self != other

    def lt(self, other):
        return self < other

    def le(self, other):
        return self <= other

    def gt(self, other):
        return self > other

    def ge(self, other):
        return self >= other

    # -- attributes --
    @property
    def shape(self):
        return Size(self.get_shape())

    def size(self, dim=None):
        if dim is None:
            return Size(self.get_shape())
        try:
            return self.get_size(dim)
        except GLib.Error as e:
            raise _translate(e) from None

    def dim(self):
        return self.get_ndim()

    @property
    def ndim(self):
        return self.get_ndim()

    @property
    def dtype(self):
        return _DTYPES[int(self.get_dtype())]

    @property
    def device(self):
        return _CPU if self.get_device().get_name() == 'cpu' else device(self.get_device().get_name())

    @property
    def is_cuda(self):
        return self.get_device().get_device_type() == Dl.DeviceType.CUDA

    def stride(self, dim=None):
        strides = tuple(self.get_strides())
        if dim is None:
            return strides
        if not -len(strides) <= dim < max(len(strides), 1):
            raise IndexError('Dimension out of range (expected to be in range of [%d, %d], '
                             'but got %d)' % (-max(len(strides), 1), max(len(strides), 1) - 1, dim))
        return strides[dim]

    def storage_offset(self):
        return self.get_storage_offset()

    def data_ptr(self):
        return self.get_data_ptr()

    def is_floating_point(self):
        return Dl.dtype_is_floating_point(self.get_dtype())

    def nelement(self):
        return self.numel()

    def __len__(self):
        if self.get_ndim() == 0:
            raise TypeError('len() of a 0-d tensor')
        return self.get_shape()[0]

    def __iter__(self):
        if self.get_ndim() == 0:
            raise TypeError('iteration over a 0-d tensor')
        return (self.select(0, i) for i in range(self.get_shape()[0]))

    def __repr__(self):
        return self.to_string()

    __str__ = __repr__

    def __format__(self, spec):
        if self.get_ndim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # -- autograd --
    @property
    def requires_grad(self):
        return self.get_requires_grad()

    @requires_grad.setter
    def requires_grad(self, value):
        self.set_requires_grad(bool(value))

    def requires_grad_(self, requires_grad=True):
        self.set_requires_grad(bool(requires_grad))
        return self

    @property
    def grad(self):
        return self.get_grad()

    @grad.setter
    def grad(self, value):
        self.set_grad(value)

    @property
    def grad_fn(self):
        return self.get_grad_fn()

    @property
    def is_leaf(self):
        return Dl.Tensor.is_leaf(self)

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        if retain_graph is None:
            retain_graph = create_graph
        if gradient is not None and not _is_tensor(gradient):
            gradient = tensor(gradient, dtype=self.dtype)
        Dl.Tensor.backward(self, gradient, bool(retain_graph), bool(create_graph))

    def detach_(self):
        raise RuntimeError('detach_() is not supported yet; use detach()')

    # -- conversion --
    def item(self):
        if self.numel() != 1:
            raise ValueError('only one element tensors can be converted to Python scalars')
        dt = self.get_dtype()
        if dt == Dl.DType.BOOL:
            return bool(Dl.Tensor.item(self))
        if not Dl.dtype_is_floating_point(dt):
            return int(self.numpy().reshape(-1)[0])  # exact beyond 2**53
        return Dl.Tensor.item(self)

    def __float__(self):
        return float(Dl.Tensor.item(self))

    def __int__(self):
        return int(Dl.Tensor.item(self))

    def __index__(self):
        if Dl.dtype_is_floating_point(self.get_dtype()) or self.numel() != 1:
            raise TypeError('only integer tensors of a single element can be converted to an index')
        return int(Dl.Tensor.item(self))

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError('Boolean value of Tensor with more than one value is ambiguous')
        return bool(Dl.Tensor.item(self))

    def numpy(self):
        if self.get_requires_grad():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        name = Dl.dtype_get_name(self.get_dtype())
        if name == 'bfloat16':
            raise TypeError('Got unsupported ScalarType BFloat16')
        size = Dl.dtype_get_size(self.get_dtype())
        view = _ArrayView()
        view._tensor = self
        view.__array_interface__ = {
            'version': 3,
            'shape': tuple(self.get_shape()),
            'typestr': _NP_TYPESTR[name],
            'data': (self.get_data_ptr(), False),
            'strides': tuple(s * size for s in self.get_strides()),
        }
        return _np.asarray(view)

    def tolist(self):
        t = self.detach()
        if t.get_dtype() == Dl.DType.BFLOAT16:
            t = t.to_dtype(Dl.DType.FLOAT32)
        return t.numpy().tolist()

    def to(self, *args, **kwargs):
        target_dtype = kwargs.pop('dtype', None)
        target_device = kwargs.pop('device', None)
        kwargs.pop('non_blocking', None)
        kwargs.pop('copy', None)
        if kwargs:
            raise TypeError('to() got an unexpected keyword argument %r' % next(iter(kwargs)))
        for a in args:
            if type(a) is dtype:
                target_dtype = a
            elif isinstance(a, (str, device)):
                target_device = a
            elif _is_tensor(a):
                target_dtype = a.dtype
            else:
                raise TypeError('to() received an invalid combination of arguments')
        t = self
        if target_device is not None:
            _dl_device(target_device)
        if target_dtype is not None:
            t = t.to_dtype(target_dtype._value)
        return t

    def type_as(self, other):
        return self.to_dtype(other.get_dtype())

    def float(self):
        return self.to_dtype(Dl.DType.FLOAT32)

    def double(self):
        return self.to_dtype(Dl.DType.FLOAT64)

    def half(self):
        return self.to_dtype(Dl.DType.FLOAT16)

    def bfloat16(self):
        return self.to_dtype(Dl.DType.BFLOAT16)

    def long(self):
        return self.to_dtype(Dl.DType.INT64)

    def int(self):
        return self.to_dtype(Dl.DType.INT32)

    def bool(self):
        return self.to_dtype(Dl.DType.BOOL)

    def cpu(self):
        return self

    # -- reductions --
    @_checked
    def sum(self, dim=None, keepdim=False, dtype=None):
        t = self if dtype is None else self.to(dtype)
        if dim is None:
            return Dl.Tensor.sum(t)
        return t.sum_dims(_dims(dim), keepdim)

    @_checked
    def mean(self, dim=None, keepdim=False, dtype=None):
        t = self if dtype is None else self.to(dtype)
        if dim is None:
            return Dl.Tensor.mean(t)
        return t.mean_dims(_dims(dim), keepdim)

    @_checked
    def max(self, dim=None, keepdim=False):
        if _is_tensor(dim):
            return self.maximum(dim)
        if dim is None:
            return Dl.Tensor.max(self)
        values, indices = self.max_dim(dim, keepdim)
        return _ReturnValues(values, indices)

    @_checked
    def min(self, dim=None, keepdim=False):
        if _is_tensor(dim):
            return self.minimum(dim)
        if dim is None:
            return Dl.Tensor.min(self)
        values, indices = self.min_dim(dim, keepdim)
        return _ReturnValues(values, indices)

    @_checked
    def argmax(self, dim=None, keepdim=False):
        if dim is None:
            return Dl.Tensor.argmax(self.reshape(-1), 0, False)
        return Dl.Tensor.argmax(self, dim, keepdim)

    @_checked
    def argmin(self, dim=None, keepdim=False):
        if dim is None:
            return Dl.Tensor.argmin(self.reshape(-1), 0, False)
        return Dl.Tensor.argmin(self, dim, keepdim)

    # -- shape --
    def view(self, *shape):
        return Dl.Tensor.view(self, _size_args(shape, 'view'))

    def reshape(self, *shape):
        return Dl.Tensor.reshape(self, _size_args(shape, 'reshape'))

    def view_as(self, other):
        return Dl.Tensor.view(self, other.get_shape())

    def reshape_as(self, other):
        return Dl.Tensor.reshape(self, other.get_shape())

    def expand(self, *sizes):
        return Dl.Tensor.expand(self, _size_args(sizes, 'expand'))

    def expand_as(self, other):
        return Dl.Tensor.expand(self, other.get_shape())

    @_checked
    def permute(self, *dims):
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = dims[0]
        return Dl.Tensor.permute(self, [int(d) for d in dims])

    @_checked
    def transpose(self, dim0, dim1):
        return Dl.Tensor.transpose(self, dim0, dim1)

    def t(self):
        return Dl.Tensor.t(self)

    @property
    def T(self):
        n = self.get_ndim()
        return Dl.Tensor.permute(self, list(range(n - 1, -1, -1)))

    @property
    def mT(self):
        return Dl.Tensor.transpose(self, -2, -1)

    @_checked
    def unsqueeze(self, dim):
        return Dl.Tensor.unsqueeze(self, dim)

    @_checked
    def squeeze(self, dim=None):
        if dim is None:
            return Dl.Tensor.reshape(self, [s for s in self.get_shape() if s != 1])
        return self.squeeze_dim(dim)

    @_checked
    def flatten(self, start_dim=0, end_dim=-1):
        return Dl.Tensor.flatten(self, start_dim, end_dim)

    @_checked
    def narrow(self, dim, start, length):
        return Dl.Tensor.narrow(self, dim, int(start), int(length))

    @_checked
    def select(self, dim, index):
        return Dl.Tensor.select(self, dim, int(index))

    def contiguous(self, memory_format=None):
        return Dl.Tensor.contiguous(self)

    def clone(self, memory_format=None):
        return Dl.Tensor.clone(self)

    # -- activations --
    @_checked
    def log_softmax(self, dim, dtype=None):
        t = self if dtype is None else self.to(dtype)
        return Dl.Tensor.log_softmax(t, dim)

    @_checked
    def softmax(self, dim, dtype=None):
        t = self if dtype is None else self.to(dtype)
        return Dl.Tensor.softmax(t, dim)

    # -- indexing: ints, slices, None, Ellipsis --
    def _index(self, idx):
        if type(idx) is not tuple:
            idx = (idx,)
        n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
        if sum(1 for i in idx if i is Ellipsis) > 1:
            raise IndexError('an index can only have a single ellipsis (\'...\')')
        ndim = self.get_ndim()
        if n_real > ndim:
            raise IndexError('too many indices for tensor of dimension %d' % ndim)
        t, d = self, 0
        for i in idx:
            if i is None:
                t = t.unsqueeze(d)
                d += 1
            elif i is Ellipsis:
                d += ndim - n_real
            elif isinstance(i, slice):
                step = 1 if i.step is None else int(i.step)
                if step <= 0:
                    raise ValueError('step must be greater than zero')
                start = 0 if i.start is None else int(i.start)
                stop = sys.maxsize if i.stop is None else int(i.stop)
                t = Dl.Tensor.slice(t, d, start, stop, step)
                d += 1
            elif isinstance(i, (numbers.Integral, Tensor)) and not isinstance(i, bool):
                if _is_tensor(i):
                    if i.get_ndim() != 0 or Dl.dtype_is_floating_point(i.get_dtype()):
                        raise IndexError('indexing with tensors (boolean masks, index tensors) '
                                         'is not supported yet')
                    i = i.item()
                size = t.get_shape()[d]
                if not -size <= i < size:
                    raise IndexError('index %d is out of bounds for dimension %d with size %d'
                                     % (i, d, size))
                t = Dl.Tensor.select(t, d, int(i))
            else:
                raise IndexError('only integers, slices (`:`), ellipsis (`...`) and None are '
                                 'valid indices (got %s)' % type(i).__name__)
        return t

    def __getitem__(self, idx):
        try:
            return self._index(idx)
        except GLib.Error as e:
            raise _translate(e) from None

    def __setitem__(self, idx, value):
        target = self._index(idx)
        if _is_tensor(value):
            target.copy_(value)
        else:
            target.fill_(value)


Tensor = override(Tensor)
__all__.append('Tensor')


_BOOL_SCALARS = {}


def _bool_scalar(value):
    """A 0-d bool tensor for a Python bool (shared; never written to)."""
    t = _BOOL_SCALARS.get(value)
    if t is None:
        t = _BOOL_SCALARS[value] = Dl.Tensor.new_scalar(1.0 if value else 0.0, Dl.DType.BOOL)
    return t


def _binary_fallback(self, other, fn):
    if isinstance(other, bool):
        return fn(self, _bool_scalar(other))
    if isinstance(other, (_np.ndarray, list, tuple)):
        return fn(self, tensor(other))
    if _is_tensor(other):
        return fn(self, other)
    return NotImplemented


class Node(Dl.Node):
    """An autograd graph node (a tensor's grad_fn)."""

    def name(self):
        return self.get_name()

    def __repr__(self):
        return '<%s object at %#x>' % (self.get_name(), id(self))


Node = override(Node)
__all__.append('Node')


# ---- creation -----------------------------------------------------------

def _finish(t, requires_grad):
    if requires_grad:
        t.set_requires_grad(True)
    return t


def _creation(c_fn, name):
    def fn(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None,
           pin_memory=False):
        return _finish(c_fn(_size_args(size, name), _dt(dtype), _dl_device(device)), requires_grad)
    fn.__name__ = name
    return fn


zeros = _export(_creation(Dl.zeros, 'zeros'))
ones = _export(_creation(Dl.ones, 'ones'))
empty = _export(_creation(Dl.empty, 'empty'))
rand = _export(_creation(Dl.rand, 'rand'))
randn = _export(_creation(Dl.randn, 'randn'))


@_export
def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _BOOL
        elif isinstance(fill_value, numbers.Integral):
            dtype = int64
    return _finish(Dl.full(_size_args((size,), 'full'), float(fill_value), _dt(dtype),
                           _dl_device(device)), requires_grad)


def _like(fn, name):
    def like(input, dtype=None, device=None, requires_grad=False):
        return fn(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)
    like.__name__ = name
    return like


zeros_like = _export(_like(zeros, 'zeros_like'))
ones_like = _export(_like(ones, 'ones_like'))
empty_like = _export(_like(empty, 'empty_like'))
rand_like = _export(_like(rand, 'rand_like'))
randn_like = _export(_like(randn, 'randn_like'))


@_export
def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    return full(input.shape, fill_value, dtype=dtype or input.dtype, requires_grad=requires_grad)


@_export
def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    vals = (start, end, step)
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) or
                       (_is_tensor(v) and not v.is_floating_point()) for v in vals)
        dtype = int64 if integral else get_default_dtype()
    vals = [float(v) for v in vals]
    return _finish(Dl.arange(vals[0], vals[1], vals[2], _dt(dtype), _dl_device(device)),
                   requires_grad)


@_export
def randint(low, high=None, size=None, dtype=None, device=None, requires_grad=False):
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    return _finish(Dl.randint(int(low), int(high), _size_args((size,), 'randint'),
                              _dt(dtype or int64), _dl_device(device)), requires_grad)


@_export
def manual_seed(seed):
    Dl.manual_seed(int(seed) & 0xFFFFFFFFFFFFFFFF)


def _infer_dtype(arr, data):
    if isinstance(data, _np.ndarray) or isinstance(data, _np.generic):
        if arr.dtype in _FROM_NP:
            return _FROM_NP[arr.dtype]
        raise TypeError("can't convert np.ndarray of type %s" % arr.dtype)
    if arr.dtype == _np.bool_:
        return _BOOL
    if arr.dtype.kind in 'iu':
        return int64
    if arr.dtype.kind == 'f':
        return get_default_dtype()
    raise TypeError('Could not infer dtype of %s' % type(data).__name__)


@_export
def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if _is_tensor(data):
        t = data.detach().clone()
        if dtype is not None:
            t = t.to(dtype)
        return _finish(t, requires_grad)
    try:
        arr = _np.asarray(data)
    except ValueError as e:
        raise ValueError('tensor(): %s' % e) from None
    if arr.dtype == object:
        raise TypeError('tensor(): could not convert %r to a tensor' % (data,))
    if dtype is None:
        dtype = _infer_dtype(arr, data)
    with _np.errstate(over='ignore', invalid='ignore'):
        if dtype.name == 'bfloat16':
            src = _np.array(arr, dtype=_np.float32, order='C')
            t = Dl.Tensor.new_from_bytes(GLib.Bytes.new(src.tobytes()), Dl.DType.FLOAT32,
                                         list(src.shape)).to_dtype(Dl.DType.BFLOAT16)
        else:
            src = _np.array(arr, dtype=_NP_OF[dtype.name], order='C')
            t = Dl.Tensor.new_from_bytes(GLib.Bytes.new(src.tobytes()), dtype._value,
                                         list(src.shape))
    _dl_device(device)
    return _finish(t, requires_grad)


@_export
def as_tensor(data, dtype=None, device=None):
    if _is_tensor(data):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, _np.ndarray) and dtype is None and data.dtype in _FROM_NP:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


@_export
def from_numpy(ndarray):
    if not isinstance(ndarray, _np.ndarray):
        raise TypeError('expected np.ndarray (got %s)' % type(ndarray).__name__)
    if ndarray.dtype not in _FROM_NP:
        raise TypeError("can't convert np.ndarray of type numpy.%s. The only supported types "
                        "are: float64, float32, float16, int64, int32, uint8, and bool."
                        % ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError('At least one stride in the given numpy array is negative, and tensors '
                         'with negative strides are not currently supported.')
    d = _FROM_NP[ndarray.dtype]
    size = ndarray.itemsize
    if any(s % size for s in ndarray.strides):
        raise ValueError('given numpy array strides not a multiple of the element byte size')
    return Dl.Tensor.new_from_address(ndarray.ctypes.data, d._value, list(ndarray.shape),
                                      [s // size for s in ndarray.strides], _release, ndarray)


def _unary_fn(name):
    method = getattr(Tensor, name)

    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    fn.__name__ = name
    return fn


for _name in ('neg', 'exp', 'log', 'relu', 'abs', 'sqrt', 'tanh', 'sigmoid', 'sum', 'mean',
              'argmax', 'argmin', 't', 'flatten', 'squeeze', 'unsqueeze', 'transpose', 'permute',
              'reshape', 'log_softmax', 'softmax', 'matmul', 'detach', 'clone', 'numel',
              'maximum', 'minimum', 'narrow', 'select'):
    _export(_unary_fn(_name))


@_export
def add(input, other, alpha=1):
    if not _is_tensor(input):
        input = tensor(input)
    return input.add(other, alpha=alpha)


@_export
def sub(input, other, alpha=1):
    if not _is_tensor(input):
        input = tensor(input)
    return input.sub(other, alpha=alpha)


@_export
def mul(input, other):
    return (input if _is_tensor(input) else tensor(input)) * other


@_export
def div(input, other):
    return (input if _is_tensor(input) else tensor(input)) / other


def _max(input, dim=None, keepdim=False):
    return input.max(dim, keepdim)


def _min(input, dim=None, keepdim=False):
    return input.min(dim, keepdim)


_export(_max, 'max')
_export(_min, 'min')


@_export
def is_tensor(obj):
    return _is_tensor(obj)


# ---- autograd mode --------------------------------------------------------

class _GradMode:
    """Base of no_grad/enable_grad: a context manager and a decorator."""
    _enabled = None

    def __enter__(self):
        self._prev = Dl.set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        Dl.set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Disables gradient recording in a with block or a decorated function."""
    _enabled = False


class enable_grad(_GradMode):
    """Enables gradient recording in a with block or a decorated function."""
    _enabled = True


class set_grad_enabled(_GradMode):
    """Sets gradient recording on or off: at once, and for a with block."""

    def __init__(self, mode):
        self._enabled = bool(mode)
        self._prev = Dl.set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def __call__(self, fn):
        Dl.set_grad_enabled(self._prev)
        return _GradMode.__call__(self, fn)


_export(no_grad)
_export(enable_grad)
_export(set_grad_enabled)
_export(Dl.is_grad_enabled, 'is_grad_enabled')


# ---- nn ---------------------------------------------------------------------

def _forward_vfunc(self, input):
    """Module.forward called from C (dl_module_forward): the Python forward."""
    return self.forward(input)


class Module(Dl.Module):
    """torch.nn.Module: subclass it, assign layers and Parameters as
    attributes in __init__, define forward, call the module."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # PyGObject hooks vfuncs from each class's own namespace, so every
        # Python subclass gets the bridge from C's forward to its forward.
        if 'forward' in cls.__dict__ and 'do_forward' not in cls.__dict__:
            cls.do_forward = _forward_vfunc

    def __setattr__(self, name, value):
        if isinstance(value, Dl.Module):
            self.register_module(name, value)
        elif _is_tensor(value) and value.get_requires_grad() and Dl.Tensor.is_leaf(value):
            self.register_parameter(name, value)
        elif value is None and self.get_parameter(name) is not None:
            self.register_parameter(name, None)
        super().__setattr__(name, value)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        p = Dl.Module.get_parameter(self, name)
        if p is not None:
            return p
        m = Dl.Module.get_module(self, name)
        if m is not None:
            return m
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        if type(self).do_forward is _forward_vfunc:
            raise NotImplementedError('Module [%s] is missing the required "forward" function'
                                      % type(self).__name__)
        return Dl.Module.forward(self, *args, **kwargs)

    def parameters(self, recurse=True):
        return iter(Dl.Module.parameters(self))

    def named_parameters(self, prefix='', recurse=True):
        names = self.parameter_names()
        params = Dl.Module.parameters(self)
        return iter([(prefix + ('.' if prefix else '') + n, p) for n, p in zip(names, params)])

    def children(self):
        return iter(Dl.Module.children(self))

    def named_children(self):
        return iter(list(zip(self.children_names(), Dl.Module.children(self))))

    def modules(self):
        yield self
        for c in self.children():
            yield from c.modules()

    def add_module(self, name, module):
        self.register_module(name, module)
        super().__setattr__(name, module)

    def train(self, mode=True):
        self.set_training(bool(mode))
        return self

    def eval(self):
        return self.train(False)

    @property
    def training(self):
        return self.get_training()

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def apply(self, fn):
        for c in self.children():
            c.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, (str, device)):
                _dl_device(a)
        return self

    def __repr__(self):
        lines = [type(self).__name__ + '(']
        for name, child in self.named_children():
            body = repr(child).replace('\n', '\n  ')
            lines.append('  (%s): %s' % (name, body))
        if len(lines) == 1:
            return type(self).__name__ + '(' + self.extra_repr() + ')'
        return '\n'.join(lines) + '\n)'

    def extra_repr(self):
        return ''


Module = override(Module)
__all__.append('Module')


class Linear(Dl.Linear):
    """torch.nn.Linear(in_features, out_features, bias=True)."""

    def __new__(cls, in_features, out_features, bias=True, device=None, dtype=None):
        return Dl.Linear.new(int(in_features), int(out_features), bool(bias))

    def __init__(self, *args, **kwargs):
        pass

    @property
    def weight(self):
        return self.get_parameter('weight')

    @property
    def bias(self):
        return self.get_parameter('bias')

    @property
    def in_features(self):
        return self.get_in_features()

    @property
    def out_features(self):
        return self.get_out_features()

    def extra_repr(self):
        return 'in_features=%d, out_features=%d, bias=%s' % (
            self.get_in_features(), self.get_out_features(), self.get_parameter('bias') is not None)


Linear = override(Linear)
__all__.append('Linear')


def _parameter(data=None, requires_grad=True):
    """nn.Parameter: a leaf tensor sharing data's storage that requires grad."""
    if data is None:
        data = empty(0)
    p = data.detach()
    p.set_requires_grad(bool(requires_grad))
    return p


def _check_batch(input, target):
    if input.get_ndim() >= 1 and target.get_ndim() >= 1 and \
            input.get_shape()[0] != target.get_shape()[0]:
        raise ValueError('Expected input batch_size (%d) to match target batch_size (%d).'
                         % (input.get_shape()[0], target.get_shape()[0]))


def _cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean',
                   label_smoothing=0.0):
    if weight is not None or reduction != 'mean' or label_smoothing != 0.0:
        raise NotImplementedError('cross_entropy: weight, reduction other than "mean" and '
                                  'label_smoothing arrive with the nn milestone')
    _check_batch(input, target)
    try:
        return Dl.cross_entropy(input, target)
    except GLib.Error as e:
        raise _translate(e) from None


def _nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean'):
    if weight is not None or reduction != 'mean':
        raise NotImplementedError('nll_loss: weight and reduction other than "mean" arrive with '
                                  'the nn milestone')
    _check_batch(input, target)
    try:
        return Dl.nll_loss(input, target)
    except GLib.Error as e:
        raise _translate(e) from None


functional = types.SimpleNamespace(
    relu=lambda input, inplace=False: input.relu(),
    sigmoid=lambda input: input.sigmoid(),
    tanh=lambda input: input.tanh(),
    log_softmax=lambda input, dim=None, dtype=None: input.log_softmax(dim, dtype),
    softmax=lambda input, dim=None, dtype=None: input.softmax(dim, dtype),
    linear=lambda input, weight, bias=None: (input @ weight.t() + bias) if bias is not None
    else input @ weight.t(),
    cross_entropy=_cross_entropy,
    nll_loss=_nll_loss,
)


def _make_nn():
    class ReLU(Module):
        def __init__(self, inplace=False):
            super().__init__()

        def forward(self, input):
            return input.relu()

    class Sigmoid(Module):
        def forward(self, input):
            return input.sigmoid()

    class Tanh(Module):
        def forward(self, input):
            return input.tanh()

    class Identity(Module):
        def __init__(self, *args, **kwargs):
            super().__init__()

        def forward(self, input):
            return input

    class Flatten(Module):
        def __init__(self, start_dim=1, end_dim=-1):
            super().__init__()
            self.start_dim, self.end_dim = start_dim, end_dim

        def forward(self, input):
            return input.flatten(self.start_dim, self.end_dim)

    class LogSoftmax(Module):
        def __init__(self, dim=None):
            super().__init__()
            self.dim = dim

        def forward(self, input):
            return input.log_softmax(self.dim)

    class Softmax(Module):
        def __init__(self, dim=None):
            super().__init__()
            self.dim = dim

        def forward(self, input):
            return input.softmax(self.dim)

    class Sequential(Module):
        def __init__(self, *modules):
            super().__init__()
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

        def forward(self, input):
            for m in self.children():
                input = m(input)
            return input

        def __getitem__(self, i):
            return list(self.children())[i]

        def __len__(self):
            return len(list(self.children()))

    class CrossEntropyLoss(Module):
        def __init__(self, weight=None, ignore_index=-100, reduction='mean',
                     label_smoothing=0.0):
            super().__init__()
            self._args = dict(weight=weight, ignore_index=ignore_index, reduction=reduction,
                              label_smoothing=label_smoothing)

        def forward(self, input, target):
            return _cross_entropy(input, target, **self._args)

    class NLLLoss(Module):
        def __init__(self, weight=None, ignore_index=-100, reduction='mean'):
            super().__init__()
            self._args = dict(weight=weight, ignore_index=ignore_index, reduction=reduction)

        def forward(self, input, target):
            return _nll_loss(input, target, **self._args)

    ns = types.SimpleNamespace(
        Module=Module, Linear=Linear, Parameter=_parameter, functional=functional,
        ReLU=ReLU, Sigmoid=Sigmoid, Tanh=Tanh, Identity=Identity, Flatten=Flatten,
        LogSoftmax=LogSoftmax, Softmax=Softmax, Sequential=Sequential,
        CrossEntropyLoss=CrossEntropyLoss, NLLLoss=NLLLoss)
    for cls in (ReLU, Sigmoid, Tanh, Identity, Flatten, LogSoftmax, Softmax, Sequential,
                CrossEntropyLoss, NLLLoss):
        cls.__qualname__ = cls.__name__
        cls.__module__ = 'Dl.nn'
    return ns


nn = _export(_make_nn(), 'nn')


# ---- optim -------------------------------------------------------------------

class Optimizer(Dl.Optimizer):
    """torch.optim.Optimizer over DlOptimizer."""

    def zero_grad(self, set_to_none=True):
        Dl.Optimizer.zero_grad(self, bool(set_to_none))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        Dl.Optimizer.step(self)
        return loss

    @property
    def param_groups(self):
        return [{'params': list(self.get_params()), 'lr': self.get_lr()}]


Optimizer = override(Optimizer)
__all__.append('Optimizer')


def _params_list(params):
    params = list(params)
    if params and isinstance(params[0], dict):
        raise NotImplementedError('parameter groups arrive with the optim milestone')
    return params


def _sgd(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
         maximize=False, foreach=None, differentiable=False):
    if maximize:
        raise NotImplementedError('SGD(maximize=True) arrives with the optim milestone')
    try:
        return Dl.Sgd.new(_params_list(params), float(lr), float(momentum), float(dampening),
                          float(weight_decay), bool(nesterov))
    except GLib.Error as e:
        raise ValueError(e.message) from None


optim = _export(types.SimpleNamespace(SGD=_sgd, Optimizer=Optimizer), 'optim')


# ---- data sets -----------------------------------------------------------------

def _fashion_mnist(root=None, train=True):
    """(images uint8 [N, 28, 28], labels int64 [N]) from Debian's
    dataset-fashion-mnist files (or the IDX files under root)."""
    try:
        _ok, images, labels = Dl.fashion_mnist_load(root, bool(train))
    except GLib.Error as e:
        if e.code == int(Dl.Error.IO):
            raise FileNotFoundError(e.message) from None
        raise
    return images, labels


datasets = _export(types.SimpleNamespace(fashion_mnist=_fashion_mnist,
                                         read_idx=lambda path: Dl.read_idx(path, None)),
                   'datasets')


# ---- creation, random generators, linear algebra (issue 3) ---------------

_SEED_MASK = 0xFFFFFFFFFFFFFFFF


def _check_generator(generator):
    if generator is not None and not isinstance(generator, Dl.Generator):
        raise TypeError('generator must be a Dl.Generator, got %s' % type(generator).__name__)
    return generator


class Generator(Dl.Generator):
    """torch.Generator(device='cpu'): a seedable random stream."""

    def __new__(cls, device='cpu'):
        return Dl.Generator.new(_dl_device(device))

    def __init__(self, *args, **kwargs):
        pass

    def manual_seed(self, seed):
        Dl.Generator.manual_seed(self, int(seed) & _SEED_MASK)
        return self

    def seed(self):
        return Dl.Generator.seed(self)

    def initial_seed(self):
        return Dl.Generator.initial_seed(self)

    def get_state(self):
        data = Dl.Generator.get_state(self).get_data()
        return tensor(list(data), dtype=uint8)

    def set_state(self, new_state):
        if not _is_tensor(new_state) or new_state.dtype != uint8:
            raise TypeError('set_state: expected a torch.ByteTensor from get_state, got %s'
                            % type(new_state).__name__)
        raw = bytes(new_state.contiguous().numpy().tobytes())
        Dl.Generator.set_state(self, GLib.Bytes.new(raw))
        return self

    @property
    def device(self):
        return device(self.get_device().get_name())

    def __repr__(self):
        return '<torch._C.Generator object at %#x>' % id(self)


Generator = override(Generator)
_export(Generator, 'Generator')


@_export
def manual_seed(seed):
    return Dl.manual_seed(int(seed) & _SEED_MASK)


@_export
def seed():
    return Dl.default_generator().seed()


@_export
def initial_seed():
    return Dl.default_generator().initial_seed()


@_export
def get_rng_state():
    return Dl.default_generator().get_state()


@_export
def set_rng_state(new_state):
    Dl.default_generator().set_state(new_state)


_export(Dl.default_generator(), 'default_generator')


def _random_creation(c_fn, name):
    def fn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
           layout=None, pin_memory=False):
        return _finish(c_fn(_size_args(size, name), _dt(dtype), _dl_device(device),
                            _check_generator(generator)), requires_grad)
    fn.__name__ = name
    return fn


rand = _export(_random_creation(Dl.rand_gen, 'rand'))
randn = _export(_random_creation(Dl.randn_gen, 'randn'))


@_export
def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    return _finish(Dl.randint_gen(int(low), int(high), _size_args((size,), 'randint'),
                                  _dt(dtype or int64), _dl_device(device),
                                  _check_generator(generator)), requires_grad)


@_export
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False,
             pin_memory=False):
    if _is_tensor(n):
        n = n.item()
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError("randperm(): argument 'n' must be int, not %s" % type(n).__name__)
    return _finish(Dl.randperm(int(n), _dt(dtype or int64), _dl_device(device),
                               _check_generator(generator)), requires_grad)


def _uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    if 'from' in kwargs:
        from_ = kwargs.pop('from')
    if kwargs:
        raise TypeError('uniform_() got an unexpected keyword argument %r' % next(iter(kwargs)))
    Dl.Tensor.uniform_gen_(self, float(from_), float(to), _check_generator(generator))
    return self


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    Dl.Tensor.normal_gen_(self, float(mean), float(std), _check_generator(generator))
    return self


def _bernoulli_(self, p=0.5, *, generator=None):
    if _is_tensor(p):
        u = rand(*self.shape, dtype=p.dtype if p.is_floating_point() else float64,
                 generator=generator)
        self.copy_(u < p)
        return self
    Dl.Tensor.bernoulli_(self, float(p), _check_generator(generator))
    return self


Tensor.uniform_ = _uniform_
Tensor.normal_ = _normal_
Tensor.bernoulli_ = _bernoulli_


@_export
def bernoulli(input, p=None, *, generator=None):
    if not input.is_floating_point():
        raise RuntimeError('bernoulli: expected a floating-point tensor of probabilities, '
                           'got %s' % input.dtype)
    out = empty(*input.shape, dtype=input.dtype)
    if p is not None:
        return _bernoulli_(out, p, generator=generator)
    return _bernoulli_(out, input.detach(), generator=generator)


Tensor.bernoulli = lambda self, p=None, *, generator=None: bernoulli(self, p, generator=generator)


@_export
def normal(mean, std, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    if _is_tensor(mean) or _is_tensor(std):
        ref = mean if _is_tensor(mean) else std
        z = randn(*ref.shape, dtype=ref.dtype, generator=generator)
        return z * std + mean
    if size is None:
        raise TypeError("normal() missing required argument 'size'")
    t = empty(*_size_args((size,), 'normal'), dtype=dtype, device=device)
    return _finish(_normal_(t, mean, std, generator=generator), requires_grad)


@_export
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None,
             layout=None):
    vals = []
    for v in (start, end):
        if _is_tensor(v):
            v = v.item()
        vals.append(float(v))
    if _is_tensor(steps):
        steps = steps.item()
    if not isinstance(steps, numbers.Integral) or isinstance(steps, bool):
        raise TypeError("linspace(): argument 'steps' must be int, not %s"
                        % type(steps).__name__)
    return _finish(Dl.linspace(vals[0], vals[1], int(steps), _dt(dtype), _dl_device(device)),
                   requires_grad)


@_export
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None, layout=None,
        pin_memory=False):
    if m is None:
        m = n
    for name, v in (('n', n), ('m', m)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise TypeError("eye(): argument '%s' must be int, not %s" % (name, type(v).__name__))
    return _finish(Dl.eye(int(n), int(m), _dt(dtype), _dl_device(device)), requires_grad)


def _like_fn(fn, name):
    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None):
        return fn(*input.shape, dtype=dtype or input.dtype, device=device,
                  requires_grad=requires_grad)
    like.__name__ = name
    return like


zeros_like = _export(_like_fn(zeros, 'zeros_like'))
ones_like = _export(_like_fn(ones, 'ones_like'))
empty_like = _export(_like_fn(empty, 'empty_like'))
rand_like = _export(_like_fn(rand, 'rand_like'))
randn_like = _export(_like_fn(randn, 'randn_like'))


@_export
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return full(input.shape, fill_value, dtype=dtype or input.dtype, device=device,
                requires_grad=requires_grad)


@_export
def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=device,
                   requires_grad=requires_grad)


def _matrix_op(c_fn, name):
    def op(input, other):
        if not _is_tensor(other):
            raise TypeError('%s(): argument \'%s\' must be Tensor, not %s'
                            % (name, 'mat2' if name in ('mm', 'bmm') else 'tensor',
                               type(other).__name__))
        return c_fn(input, other)
    op.__name__ = name
    return op


for _name in ('mm', 'bmm', 'dot', 'outer'):
    _op = _matrix_op(getattr(Dl.Tensor, _name), _name)
    setattr(Tensor, _name, _op)
    _export(_op, _name)
Tensor.ger = Tensor.outer
_export(Tensor.outer, 'ger')
Tensor.vdot = Tensor.dot
_export(Tensor.dot, 'vdot')


@_export
def einsum(equation, *operands):
    if not isinstance(equation, str):
        raise TypeError('einsum(): argument \'equation\' must be str, not %s'
                        % type(equation).__name__)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    for t in operands:
        if not _is_tensor(t):
            raise TypeError('einsum(): operands must be tensors, got %s' % type(t).__name__)
    return Dl.einsum(equation, list(operands))


_tensor_from_data = tensor


def _unwrap_data(data):
    """Python data with one-element tensors replaced by their values, and
    what PyTorch refuses refused with PyTorch's exception."""
    if data is None:
        raise RuntimeError('Could not infer dtype of NoneType')
    if _is_tensor(data):
        if data.numel() != 1:
            raise TypeError('only integer tensors of a single element can be converted to an '
                            'index')
        return data.item()
    if isinstance(data, (list, tuple)):
        return [_unwrap_data(d) for d in data]
    if isinstance(data, numbers.Integral) and not isinstance(data, bool) and \
            not -2 ** 63 <= int(data) < 2 ** 63:
        raise RuntimeError('Overflow when unpacking long')
    return data


@_export
def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if data is None or (isinstance(data, numbers.Integral) and not _is_tensor(data)):
        data = _unwrap_data(data)
    try:
        return _tensor_from_data(data, dtype=dtype, device=device, requires_grad=requires_grad)
    except TypeError:
        if not isinstance(data, (list, tuple, numbers.Integral)) or isinstance(data, bool):
            raise
    return _tensor_from_data(_unwrap_data(data), dtype=dtype, device=device,
                             requires_grad=requires_grad)


@_export
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool):
        raise TypeError("multinomial(): argument 'num_samples' must be int, not %s"
                        % type(num_samples).__name__)
    return Dl.multinomial(input, int(num_samples), bool(replacement),
                          _check_generator(generator))


Tensor.multinomial = lambda self, num_samples, replacement=False, *, generator=None: \
    multinomial(self, num_samples, replacement, generator=generator)


def _mv(input, vec):
    return Dl.Tensor.mv(input, vec)


def _addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return Dl.Tensor.addmm(input, mat1, mat2, float(beta), float(alpha))


def _baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return Dl.Tensor.baddbmm(input, batch1, batch2, float(beta), float(alpha))


for _name, _fn in (('mv', _mv), ('addmm', _addmm), ('baddbmm', _baddbmm)):
    _fn.__name__ = _name
    setattr(Tensor, _name, _fn)
    _export(_fn, _name)


@_export
def tensordot(a, b, dims=2, out=None):
    if _is_tensor(dims):
        dims = dims.tolist()
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError('tensordot expects dims >= 0, but got dims=%d' % dims)
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError('tensordot expects dims < ndim_a or ndim_b, but got dims=%d'
                               % dims)
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError('tensordot expects dims to be a pair of lists')
        da, db = dims
        da = [da] if isinstance(da, numbers.Integral) else list(da)
        db = [db] if isinstance(db, numbers.Integral) else list(db)
    return _checked(Dl.Tensor.tensordot)(a, b, [int(d) for d in da], [int(d) for d in db])


@_export
def inner(input, other):
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    return tensordot(input, other, ([-1], [-1]))


Tensor.inner = inner
Tensor.tensordot = tensordot


def _with_size_kwarg(fn):
    """Lets a factory taking *size also take size= as a keyword, as torch's do."""
    @functools.wraps(fn)
    def wrapper(*size, **kwargs):
        if 'size' in kwargs:
            if size:
                raise TypeError("%s() got multiple values for argument 'size'" % fn.__name__)
            size = (kwargs.pop('size'),)
        return fn(*size, **kwargs)
    return wrapper


for _name in ('zeros', 'ones', 'empty', 'rand', 'randn'):
    _export(_with_size_kwarg(globals()[_name]), _name)

_RANDOM_TOP = {'float32': 2 ** 24, 'float64': 2 ** 53, 'float16': 2 ** 11, 'bfloat16': 2 ** 8,
               'int32': 2 ** 31, 'int64': 2 ** 63 - 1, 'uint8': 2 ** 8, 'bool': 2}


def _random_(self, from_=None, to=None, *, generator=None, **kwargs):
    """Tensor.random_([from,] to): integers uniform in [from, to); with no
    bounds, [0, 2^mantissa] for floats and the whole range for integers."""
    if 'from' in kwargs:
        from_ = kwargs.pop('from')
    if kwargs:
        raise TypeError('random_() got an unexpected keyword argument %r' % next(iter(kwargs)))
    if from_ is None and to is None:
        low, high = 0, _RANDOM_TOP[self.dtype.name] + (1 if self.is_floating_point() else 0)
    elif to is None:
        low, high = 0, from_
    else:
        low, high = from_, to
    r = randint(int(low), int(high), tuple(self.shape), generator=generator)
    self.copy_(r)
    return self


Tensor.random_ = _random_


# ---- math (issue 3) ----------------------------------------------------------
# The pointwise math library (libdl/ops/dl-ops-math.c): Python numbers go to
# the C tensor functions as wrapped numbers, which take part in type promotion
# as PyTorch's Python scalars do.

def _math_operand(x):
    """A tensor for an operand: tensors as they are, Python numbers as
    wrapped 0-d tensors, arrays and lists as new tensors; None otherwise."""
    if _is_tensor(x):
        return x
    if isinstance(x, _np.generic) and x.ndim == 0:
        x = x.item()
    if isinstance(x, bool):
        return Dl.Tensor.new_wrapped_scalar(1.0 if x else 0.0, Dl.DType.BOOL)
    if isinstance(x, numbers.Integral):
        return Dl.Tensor.new_wrapped_scalar(float(x), Dl.DType.INT64)
    if isinstance(x, numbers.Real):
        return Dl.Tensor.new_wrapped_scalar(float(x), Dl.DType.FLOAT64)
    if isinstance(x, (_np.ndarray, list, tuple)):
        return tensor(x)
    return None


def _math_arg(x, fname, argname):
    o = _math_operand(x)
    if o is None:
        raise TypeError("%s(): argument '%s' must be Tensor or Number, not %s"
                        % (fname, argname, type(x).__name__))
    return o


def _math_binary_method(cfn, name):
    def method(self, other):
        return cfn(self, _math_arg(other, name, 'other'))
    method.__name__ = name
    return method


def _math_operator(cfn, name, reflected=False):
    def op(self, other):
        o = _math_operand(other)
        if o is None:
            return NotImplemented
        return cfn(o, self) if reflected else cfn(self, o)
    op.__name__ = name
    return op


def _math_binary_fn(cfn, name):
    def fn(input, other):
        return cfn(_math_arg(input, name, 'input'), _math_arg(other, name, 'other'))
    fn.__name__ = name
    return fn


for _name in ('floor_divide', 'remainder', 'atan2', 'bitwise_and', 'bitwise_or',
              'bitwise_xor', 'logical_and', 'logical_or', 'logical_xor'):
    setattr(Tensor, _name, _math_binary_method(getattr(Dl.Tensor, _name), _name))
    _export(_math_binary_fn(getattr(Dl.Tensor, _name), _name))
Tensor.arctan2 = Tensor.atan2
_export(_math_binary_fn(Dl.Tensor.atan2, 'arctan2'))


def _tensor_pow(self, exponent):
    return Dl.Tensor.pow(self, _math_arg(exponent, 'pow', 'exponent'))


Tensor.pow = _tensor_pow
Tensor.__pow__ = _math_operator(Dl.Tensor.pow, '__pow__')
Tensor.__rpow__ = _math_operator(Dl.Tensor.pow, '__rpow__', reflected=True)
Tensor.__floordiv__ = _math_operator(Dl.Tensor.floor_divide, '__floordiv__')
Tensor.__rfloordiv__ = _math_operator(Dl.Tensor.floor_divide, '__rfloordiv__', reflected=True)
Tensor.__mod__ = _math_operator(Dl.Tensor.remainder, '__mod__')
Tensor.__rmod__ = _math_operator(Dl.Tensor.remainder, '__rmod__', reflected=True)
Tensor.__and__ = _math_operator(Dl.Tensor.bitwise_and, '__and__')
Tensor.__rand__ = _math_operator(Dl.Tensor.bitwise_and, '__rand__', reflected=True)
Tensor.__or__ = _math_operator(Dl.Tensor.bitwise_or, '__or__')
Tensor.__ror__ = _math_operator(Dl.Tensor.bitwise_or, '__ror__', reflected=True)
Tensor.__xor__ = _math_operator(Dl.Tensor.bitwise_xor, '__xor__')
Tensor.__rxor__ = _math_operator(Dl.Tensor.bitwise_xor, '__rxor__', reflected=True)


def _invert(self):
    if self.dtype.is_floating_point:
        raise TypeError('~ (operator.invert) is only implemented on integer and Boolean-type '
                        'tensors')
    return Dl.Tensor.bitwise_not(self)


Tensor.__invert__ = _invert


def _pow(input, exponent):
    if not _is_tensor(input) and _is_tensor(exponent):
        return Dl.Tensor.pow(_math_arg(input, 'pow', 'self'), exponent)
    return _tensor_pow(_math_arg(input, 'pow', 'input'), exponent)


# named apart from the builtin pow, which this module must keep
_export(_pow, 'pow')


def _clamp_bound(x, argname):
    return None if x is None else _math_arg(x, 'clamp', argname)


def _clamp(self, min=None, max=None):
    return Dl.Tensor.clamp(self, _clamp_bound(min, 'min'), _clamp_bound(max, 'max'))


def _clamp_(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    Dl.Tensor.clamp_(self, _clamp_bound(min, 'min'), _clamp_bound(max, 'max'))
    return self


def _relu_(self):
    Dl.Tensor.relu_(self)
    return self


Tensor.clamp = Tensor.clip = _clamp
Tensor.clamp_ = Tensor.clip_ = _clamp_
Tensor.relu_ = _relu_
Tensor.clamp_min = lambda self, min: _clamp(self, min=min)
Tensor.clamp_max = lambda self, max: _clamp(self, max=max)


@_export
def clamp(input, min=None, max=None):
    return _clamp(input, min, max)


@_export
def clamp_(input, min=None, max=None):
    return _clamp_(input, min, max)


_export(clamp, 'clip')
_export(_relu_, 'relu_')


def _lerp(self, end, weight):
    if _is_tensor(weight):
        return Dl.Tensor.lerp(self, end, weight)
    if not isinstance(weight, numbers.Real):
        raise TypeError("lerp(): argument 'weight' must be Tensor or Number, not %s"
                        % type(weight).__name__)
    return Dl.Tensor.lerp_scalar(self, end, float(weight))


Tensor.lerp = _lerp


@_export
def lerp(input, end, weight):
    return _lerp(input, end, weight)


def _nan_to_num(self, nan=0.0, posinf=None, neginf=None):
    return Dl.Tensor.nan_to_num(self, float(nan),
                                float('nan') if posinf is None else float(posinf),
                                float('nan') if neginf is None else float(neginf))


Tensor.nan_to_num = _nan_to_num


@_export
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return _nan_to_num(input, nan, posinf, neginf)


def _round(self, decimals=0):
    if decimals == 0:
        return Dl.Tensor.round(self)
    scale = 10.0 ** decimals
    return Dl.Tensor.round(self * scale) / scale


Tensor.round = _round


def _round_fn(input, decimals=0):
    return _round(input, decimals)


_export(_round_fn, 'round')


def _gelu(input, approximate='none'):
    if approximate == 'none':
        return Dl.Tensor.gelu(input)
    if approximate == 'tanh':
        return Dl.Tensor.gelu_tanh(input)
    raise RuntimeError("approximate argument must be either none or tanh.")


def _silu(input, inplace=False):
    if inplace:
        out = Dl.Tensor.silu(input)
        input.copy_(out)
        return input
    return Dl.Tensor.silu(input)


functional.gelu = _gelu
functional.silu = _silu

Tensor.absolute = Tensor.abs
Tensor.fix = Tensor.trunc
for _name in ('expm1', 'log1p', 'log2', 'rsqrt', 'sin', 'cos', 'tan', 'sign', 'floor', 'ceil',
              'trunc', 'frac', 'reciprocal', 'erf', 'isnan', 'isinf', 'isfinite', 'logical_not',
              'bitwise_not', 'fix'):
    _export(_unary_fn(_name))


def _make_math_modules():
    class GELU(Module):
        def __init__(self, approximate='none'):
            super().__init__()
            self.approximate = approximate

        def forward(self, input):
            return _gelu(input, self.approximate)

    class SiLU(Module):
        def __init__(self, inplace=False):
            super().__init__()

        def forward(self, input):
            return Dl.Tensor.silu(input)

    for cls in (GELU, SiLU):
        cls.__qualname__ = cls.__name__
        cls.__module__ = 'Dl.nn'
    return GELU, SiLU


nn.GELU, nn.SiLU = _make_math_modules()


def _math_inplace(cfn, name, operator=False):
    def op(self, other):
        o = _math_operand(other)
        if o is None:
            if operator:
                return NotImplemented
            raise TypeError("%s(): argument 'other' must be Tensor or Number, not %s"
                            % (name, type(other).__name__))
        cfn(self, o)
        return self
    op.__name__ = name
    return op


for _name in ('pow_', 'floor_divide_', 'remainder_', 'bitwise_and_', 'bitwise_or_',
              'bitwise_xor_'):
    setattr(Tensor, _name, _math_inplace(getattr(Dl.Tensor, _name), _name))
Tensor.__ipow__ = _math_inplace(Dl.Tensor.pow_, '__ipow__', True)
Tensor.__ifloordiv__ = _math_inplace(Dl.Tensor.floor_divide_, '__ifloordiv__', True)
Tensor.__imod__ = _math_inplace(Dl.Tensor.remainder_, '__imod__', True)
Tensor.__iand__ = _math_inplace(Dl.Tensor.bitwise_and_, '__iand__', True)
Tensor.__ior__ = _math_inplace(Dl.Tensor.bitwise_or_, '__ior__', True)
Tensor.__ixor__ = _math_inplace(Dl.Tensor.bitwise_xor_, '__ixor__', True)


# ---- indexing and joining (issue 3) ----

def _index_error_as_runtime(fn):
    """gather/scatter: an index out of range is a RuntimeError in PyTorch,
    a dim out of range an IndexError."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GLib.Error as e:
            if 'is out of bounds for dimension' in e.message:
                raise
            raise _translate(e) from None
    return wrapper


def _to_tensor_arg(x):
    if _is_tensor(x):
        return x
    return tensor(x)


def _number_tensor(value, like=None):
    """A wrapped 0-d tensor for a Python number (or like's dtype)."""
    if _is_tensor(value):
        return value
    if like is not None:
        return Dl.Tensor.new_scalar(float(value), like.get_dtype())
    if isinstance(value, bool):
        return Dl.Tensor.new_wrapped_scalar(1.0 if value else 0.0, Dl.DType.BOOL)
    if isinstance(value, numbers.Integral):
        return Dl.Tensor.new_wrapped_scalar(float(value), Dl.DType.INT64)
    if isinstance(value, numbers.Real):
        return Dl.Tensor.new_wrapped_scalar(float(value), Dl.DType.FLOAT64)
    raise TypeError('expected a Tensor or a number, not %s' % type(value).__name__)


def _no_out(out, name):
    if out is not None:
        raise NotImplementedError('%s(out=) is not supported yet' % name)


@_index_error_as_runtime
def _t_gather(self, dim, index, *, sparse_grad=False, out=None):
    _no_out(out, 'gather')
    return Dl.Tensor.gather(self, dim, index)


@_index_error_as_runtime
def _t_scatter(self, dim, index, src=None, *, value=None, reduce=None):
    if reduce is not None:
        raise NotImplementedError('scatter(reduce=) is not supported yet')
    if src is None:
        src = value
    if _is_tensor(src):
        return Dl.Tensor.scatter(self, dim, index, src)
    return Dl.Tensor.scatter_value(self, dim, index, float(src))


@_index_error_as_runtime
def _t_scatter_add(self, dim, index, src):
    return Dl.Tensor.scatter_add(self, dim, index, src)


@_index_error_as_runtime
def _t_scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    if reduce is not None:
        raise NotImplementedError('scatter_(reduce=) is not supported yet')
    if src is None:
        src = value
    if _is_tensor(src):
        Dl.Tensor.scatter_(self, dim, index, src)
    else:
        Dl.Tensor.scatter_value_(self, dim, index, float(src))
    return self


@_index_error_as_runtime
def _t_scatter_add_(self, dim, index, src):
    Dl.Tensor.scatter_add_(self, dim, index, src)
    return self


@_checked
def _t_index_select(self, dim, index):
    return Dl.Tensor.index_select(self, dim, index)


@_checked
def _t_masked_fill(self, mask, value):
    if _is_tensor(value):
        return Dl.Tensor.masked_fill_tensor(self, mask, value)
    return Dl.Tensor.masked_fill(self, mask, float(value))


@_checked
def _t_masked_fill_(self, mask, value):
    if _is_tensor(value):
        if value.requires_grad:
            raise RuntimeError('masked_fill_: a value tensor that requires grad is not '
                               'supported in place; use masked_fill')
        value = value.item()
    Dl.Tensor.masked_fill_(self, mask, float(value))
    return self


@_checked
def _t_masked_select(self, mask):
    return Dl.Tensor.masked_select(self, mask)


@_checked
def _t_nonzero(self, *, as_tuple=False):
    nz = Dl.Tensor.nonzero(self)
    if not as_tuple:
        return nz
    if self.get_ndim() == 0:
        return (Dl.Tensor.nonzero(self.reshape(1)).reshape(-1),)
    return tuple(nz.select(1, d) for d in range(self.get_ndim()))


@_checked
def _t_take_along_dim(self, indices, dim=None):
    if dim is None:
        return Dl.Tensor.take_along_dim(self.reshape(-1), indices.reshape(-1), 0)
    return Dl.Tensor.take_along_dim(self, indices, dim)


@_checked
def _t_where(self, condition, y):
    return where(condition, self, y)


def _index_list(indices):
    out = []
    for i in indices:
        if i is None:
            raise NotImplementedError('index_put_: None entries are not supported; index the '
                                      'leading dims')
        i = _to_tensor_arg(i)
        if i.get_dtype() in (Dl.DType.BOOL, Dl.DType.UINT8):
            out.extend(_t_nonzero(i.bool() if i.get_dtype() == Dl.DType.UINT8 else i,
                                  as_tuple=True))
        else:
            out.append(i)
    return out


@_checked
def _t_index_put_(self, indices, values, accumulate=False):
    Dl.Tensor.index_put_(self, _index_list(indices), _number_tensor(values, self),
                         bool(accumulate))
    return self


@_checked
def _t_index_put(self, indices, values, accumulate=False):
    return Dl.Tensor.index_put(self, _index_list(indices), _number_tensor(values, self),
                               bool(accumulate))


_c_unbind = Dl.Tensor.unbind
_c_split = Dl.Tensor.split
_c_split_with_sizes = Dl.Tensor.split_with_sizes
_c_chunk = Dl.Tensor.chunk


@_checked
def _t_unbind(self, dim=0):
    return tuple(_c_unbind(self, dim))


@_checked
def _t_split(self, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, numbers.Integral):
        return tuple(_c_split(self, int(split_size_or_sections), dim))
    return tuple(_c_split_with_sizes(self, [int(s) for s in split_size_or_sections], dim))


@_checked
def _t_chunk(self, chunks, dim=0):
    return tuple(_c_chunk(self, int(chunks), dim))


@_checked
def _t_repeat(self, *sizes):
    return Dl.Tensor.repeat(self, _size_args(sizes, 'repeat'))


@_checked
def _t_flip(self, *dims):
    return Dl.Tensor.flip(self, _size_args(dims, 'flip'))


def _int_tuple(x):
    return [int(x)] if isinstance(x, numbers.Integral) else [int(v) for v in x]


@_checked
def _t_roll(self, shifts, dims=None):
    return Dl.Tensor.roll(self, _int_tuple(shifts), [] if dims is None else _int_tuple(dims))


@_checked
def _t_tril(self, diagonal=0):
    return Dl.Tensor.tril(self, int(diagonal))


@_checked
def _t_triu(self, diagonal=0):
    return Dl.Tensor.triu(self, int(diagonal))


def _triangle_mask(self, diagonal, lower):
    """True where tril_ (lower) or triu_ zeroes an element."""
    if self.get_ndim() < 2:
        raise IndexError('%s_: input tensor must have at least 2 dimensions'
                         % ('tril' if lower else 'triu'))
    r, c = self.get_shape()[-2:]
    ones = Dl.ones([r, c], Dl.DType.BOOL, None)
    return _t_triu(ones, diagonal + 1) if lower else _t_tril(ones, diagonal - 1)


def _t_tril_(self, diagonal=0):
    return _t_masked_fill_(self, _triangle_mask(self, int(diagonal), True), 0)


def _t_triu_(self, diagonal=0):
    return _t_masked_fill_(self, _triangle_mask(self, int(diagonal), False), 0)


def _movedim_front(t, dim):
    nd = t.get_ndim()
    dim = dim + nd if dim < 0 else dim
    if not 0 <= dim < max(nd, 1):
        raise IndexError('Dimension out of range (expected to be in range of [%d, %d], but got '
                         '%d)' % (-max(nd, 1), max(nd, 1) - 1, dim))
    perm = [dim] + [d for d in range(nd) if d != dim]
    return t if dim == 0 or nd == 0 else t.permute(*perm), perm


def _index_along(self, dim, index, source, accumulate, name, inplace=True):
    """self with source put (or added) at index along dim: index_put on a
    view with dim moved to the front."""
    if index.get_ndim() > 1:
        raise IndexError('%s(): Index is supposed to be a vector' % name)
    if index.get_dtype() not in (Dl.DType.INT64, Dl.DType.INT32):
        raise IndexError('%s(): Expected dtype int32/int64 for index' % name)
    base = self if self.get_ndim() else self.reshape(1)
    t, perm = _movedim_front(base, dim)
    moved = perm != list(range(len(perm)))
    if _is_tensor(source) and source.get_ndim() > 0 and moved:
        source = source.permute(*perm)
    source = _number_tensor(source, self)
    if inplace:
        Dl.Tensor.index_put_(t, [index.reshape(-1)], source, accumulate)
        return self
    res = Dl.Tensor.index_put(t, [index.reshape(-1)], source, accumulate)
    if moved:
        inv = [0] * len(perm)
        for k, p in enumerate(perm):
            inv[p] = k
        res = res.permute(*inv)
    return res.reshape(self.shape) if self.get_ndim() == 0 else res


@_checked
def _t_index_add_(self, dim, index, source, *, alpha=1):
    if alpha != 1:
        source = source * alpha
    return _index_along(self, dim, index, source, True, 'index_add_')


@_checked
def _t_index_copy_(self, dim, index, source):
    return _index_along(self, dim, index, source, False, 'index_copy_')


@_checked
def _t_index_fill_(self, dim, index, value):
    if _is_tensor(value):
        if value.get_ndim() != 0:
            raise RuntimeError('index_fill_ only supports a 0-dimensional value tensor, but got '
                               'tensor with %d dimension(s).' % value.get_ndim())
        value = value.item()
    return _index_along(self, dim, index, value, False, 'index_fill_')


@_checked
def _t_index_add(self, dim, index, source, *, alpha=1):
    if alpha != 1:
        source = source * alpha
    return _index_along(self, dim, index, source, True, 'index_add', inplace=False)


@_checked
def _t_index_copy(self, dim, index, source):
    return _index_along(self, dim, index, source, False, 'index_copy', inplace=False)


@_checked
def _t_index_fill(self, dim, index, value):
    if _is_tensor(value):
        if value.get_ndim() != 0:
            raise RuntimeError('index_fill_ only supports a 0-dimensional value tensor, but got '
                               'tensor with %d dimension(s).' % value.get_ndim())
        value = value.item()
    return _index_along(self, dim, index, value, False, 'index_fill', inplace=False)


def _broadcast_shape(shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for k, v in enumerate(s):
            o = nd - len(s) + k
            if out[o] == 1:
                out[o] = v
            elif v != 1 and v != out[o]:
                raise IndexError('shape mismatch: indexing tensors could not be broadcast '
                                 'together with shapes %s' % ' '.join(str(list(x)) for x in shapes))
    return out


def _split_index(self, idx):
    """Applies the basic part of an index (ints, slices, None, Ellipsis) as
    views, as PyTorch does, and returns (view, [(dim, int64 index)]) for
    the advanced part, each index a dim of the view."""
    if type(idx) is not tuple:
        idx = (idx,)
    items = []
    for i in idx:
        if isinstance(i, (list, _np.ndarray)) or (isinstance(i, tuple)):
            i = tensor(i)
            if i.get_ndim() == 1 and i.get_shape()[0] == 0:
                i = i.long()
        if _is_tensor(i) and i.get_dtype() == Dl.DType.UINT8:
            i = i.bool()
        items.append(i)

    def width(i):
        if i is None or i is Ellipsis:
            return 0
        if _is_tensor(i) and i.get_dtype() == Dl.DType.BOOL:
            return max(i.get_ndim(), 1)
        return 1
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError('an index can only have a single ellipsis (\'...\')')
    ndim = self.get_ndim()
    n_real = sum(width(i) for i in items)
    if n_real > ndim:
        raise IndexError('too many indices for tensor of dimension %d' % ndim)
    t, d, adv = self, 0, []
    for i in items:
        if i is None:
            t = t.unsqueeze(d)
            d += 1
        elif i is Ellipsis:
            d += ndim - n_real
        elif isinstance(i, slice):
            step = 1 if i.step is None else int(i.step)
            if step <= 0:
                raise ValueError('step must be greater than zero')
            start = 0 if i.start is None else int(i.start)
            stop = sys.maxsize if i.stop is None else int(i.stop)
            t = Dl.Tensor.slice(t, d, start, stop, step)
            d += 1
        elif _is_tensor(i) and i.get_dtype() == Dl.DType.BOOL:
            if i.get_ndim() == 0:
                t = t.unsqueeze(d)
                adv.append((d, tensor([0] if i.item() else [], dtype=int64)))
            else:
                # as in PyTorch, a mask moves the basic indices that follow
                # it on by one dim only; it expands over its dims below
                adv.append((d, i))
            d += 1
        elif _is_tensor(i):
            if i.get_dtype() not in (Dl.DType.INT64, Dl.DType.UINT8, Dl.DType.BOOL):
                raise IndexError('tensors used as indices must be long, byte or bool tensors')
            if i.get_ndim() == 0:
                t = Dl.Tensor.select(t, d, int(i.item()))
            else:
                adv.append((d, i))
                d += 1
        elif isinstance(i, numbers.Integral) and not isinstance(i, bool):
            t = Dl.Tensor.select(t, d, int(i))
        else:
            raise IndexError('only integers, slices (`:`), ellipsis (`...`), None and long or '
                             'byte Variables are valid indices (got %s)' % type(i).__name__)
    out, shift = [], 0
    shape = t.get_shape()
    for d, i in adv:
        d += shift
        if i.get_dtype() != Dl.DType.BOOL:
            out.append((d, i))
            continue
        k = i.get_ndim()
        for j, s in enumerate(i.get_shape()):
            if d + j >= len(shape) or s != shape[d + j]:
                raise IndexError('The shape of the mask %s at index %d does not match the '
                                 'shape of the indexed tensor %s at index %d'
                                 % (list(i.get_shape()), j, list(shape), d + j))
        for j, col in enumerate(_t_nonzero(i, as_tuple=True)):
            out.append((d + j, col))
        shift += k - 1
    adv = out
    return t, adv


def _advanced_layout(t, adv):
    """(permuted view with the indexed dims first, index tensors, the
    broadcast index shape, the permutation from B-first results to
    PyTorch's layout or None)."""
    dims = [d for d, _ in adv]
    rest = [d for d in range(t.get_ndim()) if d not in dims]
    perm = dims + rest
    tp = t if perm == list(range(t.get_ndim())) else t.permute(*perm)
    bshape = _broadcast_shape([list(i.get_shape()) for _, i in adv])
    nb = len(bshape)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    back = None
    if adjacent and dims[0] > 0:
        first = dims[0]
        back = [nb + k for k in range(first)] + list(range(nb)) + \
            [nb + k for k in range(first, len(rest))]
    return tp, [i for _, i in adv], bshape, back


def _getitem(self, idx):
    try:
        t, adv = _split_index(self, idx)
        if not adv:
            return t
        tp, indices, _, back = _advanced_layout(t, adv)
        res = Dl.Tensor.index(tp, indices)
        return res if back is None else res.permute(*back)
    except GLib.Error as e:
        raise _translate(e) from None


def _basic_as_advanced(self, idx):
    """For a basic index (ints, slices, one Ellipsis), index tensors that
    pick the same elements (each along its own axis, as numpy's ix_), and
    the positions of the int ones; None where the index has other parts."""
    items = list(idx) if type(idx) is tuple else [idx]
    if not all(i is Ellipsis or isinstance(i, slice) or
               (isinstance(i, numbers.Integral) and not isinstance(i, bool)) for i in items):
        return None
    if sum(1 for i in items if i is Ellipsis) > 1:
        return None
    ndim = self.get_ndim()
    n_real = sum(1 for i in items if i is not Ellipsis)
    if n_real > ndim or ndim == 0:
        return None
    full = []
    for i in items:
        full.extend([slice(None)] * (ndim - n_real) if i is Ellipsis else [i])
    full.extend([slice(None)] * (ndim - len(full)))
    shape = self.get_shape()
    indices, int_dims = [], []
    for k, (i, size) in enumerate(zip(full, shape)):
        if isinstance(i, slice):
            if i.step is not None and int(i.step) <= 0:
                raise ValueError('step must be greater than zero')
            r = list(range(*i.indices(size)))
        else:
            i = int(i)
            if not -size <= i < size:
                raise IndexError('index %d is out of bounds for dimension %d with size %d'
                                 % (i, k, size))
            r = [i % size]
            int_dims.append(k)
        view = [1] * ndim
        view[k] = len(r)
        indices.append(tensor(r, dtype=int64).reshape(view))
    return indices, int_dims


def _setitem_with_history(self, idx, value):
    """self[basic index] = value recorded in the graph: an index_put_ on
    self itself (a write through a view would bypass autograd)."""
    plan = _basic_as_advanced(self, idx)
    if plan is None:
        return False
    indices, int_dims = plan
    full_shape = [i.get_shape()[k] for k, i in enumerate(indices)]
    if not _is_tensor(value):
        value = Dl.Tensor.new_scalar(float(value), self.get_dtype())
    elif value.get_dtype() != self.get_dtype():
        value = value.to(self.dtype)
    result_shape = [s for k, s in enumerate(full_shape) if k not in int_dims]
    try:
        value = value.expand(*result_shape) if result_shape else value.reshape([])
    except GLib.Error:
        raise RuntimeError('shape mismatch: value tensor of shape %s cannot be broadcast to '
                           'indexing result of shape %s'
                           % (list(value.shape), result_shape)) from None
    Dl.Tensor.index_put_(self, indices, value.reshape(full_shape), False)
    return True


def _setitem(self, idx, value):
    try:
        if is_grad_enabled() and (self.requires_grad or
                                  (_is_tensor(value) and value.requires_grad)):
            if _setitem_with_history(self, idx, value):
                return
        t, adv = _split_index(self, idx)
        if not adv:
            if _is_tensor(value):
                t.copy_(value)
            elif isinstance(value, (list, tuple, _np.ndarray)):
                t.copy_(tensor(value, dtype=t.dtype))
            else:
                t.fill_(value)
            return
        tp, indices, bshape, back = _advanced_layout(t, adv)
        if not _is_tensor(value):
            if isinstance(value, (list, tuple, _np.ndarray)):
                value = tensor(value, dtype=t.dtype)
            else:
                value = Dl.Tensor.new_scalar(float(value), t.get_dtype())
        if back is not None:
            rest = [s for k, s in enumerate(t.get_shape()) if k not in [d for d, _ in adv]]
            first = adv[0][0]
            result_shape = rest[:first] + bshape + rest[first:]
            try:
                value = value.expand(*result_shape)
            except GLib.Error:
                raise RuntimeError('shape mismatch: value tensor of shape %s cannot be '
                                   'broadcast to indexing result of shape %s'
                                   % (list(value.shape), result_shape)) from None
            inv = [0] * len(back)
            for k, b in enumerate(back):
                inv[b] = k
            value = value.permute(*inv)
        Dl.Tensor.index_put_(tp, indices, value, False)
    except GLib.Error as e:
        raise _translate(e) from None


@_checked
def _t_take(self, index):
    if index.get_dtype() != Dl.DType.INT64:
        raise RuntimeError('take(): Expected a long tensor for index, but got %s'
                           % index.dtype)
    return Dl.Tensor.index(self.reshape(-1), [index])


def _t_argwhere(self):
    return _t_nonzero(self)


Tensor.take = _t_take
Tensor.argwhere = _t_argwhere
Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
Tensor.gather = _t_gather
Tensor.scatter = _t_scatter
Tensor.scatter_ = _t_scatter_
Tensor.scatter_add = _t_scatter_add
Tensor.scatter_add_ = _t_scatter_add_
Tensor.index_select = _t_index_select
Tensor.masked_fill = _t_masked_fill
Tensor.masked_fill_ = _t_masked_fill_
Tensor.masked_select = _t_masked_select
Tensor.nonzero = _t_nonzero
Tensor.take_along_dim = _t_take_along_dim
Tensor.where = _t_where
Tensor.index_put_ = _t_index_put_
Tensor.index_put = _t_index_put
Tensor.unbind = _t_unbind
Tensor.split = _t_split
Tensor.chunk = _t_chunk
Tensor.repeat = _t_repeat
Tensor.flip = _t_flip
Tensor.fliplr = lambda self: _t_flip(self, 1)
Tensor.flipud = lambda self: _t_flip(self, 0)
Tensor.roll = _t_roll
Tensor.tril = _t_tril
Tensor.triu = _t_triu
Tensor.tril_ = _t_tril_
Tensor.triu_ = _t_triu_
Tensor.index_add_ = _t_index_add_
Tensor.index_copy_ = _t_index_copy_
Tensor.index_fill_ = _t_index_fill_
Tensor.index_add = _t_index_add
Tensor.index_copy = _t_index_copy
Tensor.index_fill = _t_index_fill


def _method_fn(method, name):
    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    fn.__name__ = name
    return fn


for _name in ('gather', 'scatter', 'scatter_add', 'index_select', 'masked_fill',
              'masked_select', 'take_along_dim', 'unbind', 'split', 'chunk', 'flip', 'fliplr',
              'flipud', 'roll', 'tril', 'triu', 'index_put', 'index_add', 'index_copy',
              'index_fill', 'take', 'argwhere'):
    _export(_method_fn(getattr(Tensor, _name), _name))


@_export
def nonzero(input, *, as_tuple=False, out=None):
    _no_out(out, 'nonzero')
    return _t_nonzero(input, as_tuple=as_tuple)


@_export
def where(condition, input=None, other=None):
    if input is None and other is None:
        return _t_nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError('where() takes 1 or 3 arguments')
    try:
        return Dl.where(condition, _number_tensor(input), _number_tensor(other))
    except GLib.Error as e:
        raise _translate(e) from None


def _tensor_seq(tensors, name):
    if _is_tensor(tensors) or not isinstance(tensors, (list, tuple)):
        raise TypeError('%s(): argument \'tensors\' must be tuple of Tensors, not %s'
                        % (name, type(tensors).__name__))
    for t in tensors:
        if not _is_tensor(t):
            raise TypeError('expected Tensor as element in argument \'tensors\' of %s(), but '
                            'got %s' % (name, type(t).__name__))
    return list(tensors)


@_export
def cat(tensors, dim=0, *, out=None):
    _no_out(out, 'cat')
    try:
        return Dl.cat(_tensor_seq(tensors, 'cat'), dim)
    except GLib.Error as e:
        raise _translate(e) from None


_export(cat, 'concat')
_export(cat, 'concatenate')


@_export
def stack(tensors, dim=0, *, out=None):
    _no_out(out, 'stack')
    try:
        return Dl.stack(_tensor_seq(tensors, 'stack'), dim)
    except GLib.Error as e:
        raise _translate(e) from None


@_export
def hstack(tensors):
    tensors = _tensor_seq(tensors, 'hstack')
    return cat(tensors, 0 if all(t.get_ndim() <= 1 for t in tensors) else 1)


@_export
def vstack(tensors):
    tensors = [t.reshape(1, -1) if t.get_ndim() < 2 else t
               for t in _tensor_seq(tensors, 'vstack')]
    return cat(tensors, 0)


def _one_hot(tensor, num_classes=-1):
    try:
        return Dl.one_hot(tensor, int(num_classes))
    except GLib.Error as e:
        raise _translate(e) from None


functional.one_hot = _one_hot


# ---- reductions, scans and sorting (issue 3) ------------------------------------

def _as_dtype(result, dtype):
    """With dtype= given, torch computes in it and returns it, integers
    included (int64 accumulation wraps to the same low bits)."""
    if dtype is None or result.dtype == dtype:
        return result
    return result.to(dtype)


def _dims_or_all(dim):
    """A dim argument as a list for libdl, where [] means every dim."""
    if dim is None:
        return []
    return _dims(dim)


def _reduce_prod(self, dim=None, keepdim=False, dtype=None):
    t = self if dtype is None else self.to(dtype)
    if dim is None:
        return _as_dtype(Dl.Tensor.prod(t), dtype)
    if not isinstance(dim, numbers.Integral):
        raise TypeError('prod(): argument \'dim\' must be int, not %s' % type(dim).__name__)
    return _as_dtype(t.prod_dims([int(dim)], keepdim), dtype)


def _reduce_amax(self, dim=(), keepdim=False):
    return Dl.Tensor.amax(self, _dims_or_all(dim), keepdim)


def _reduce_amin(self, dim=(), keepdim=False):
    return Dl.Tensor.amin(self, _dims_or_all(dim), keepdim)


def _var_args(dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is not None and unbiased is not None:
        raise RuntimeError('var(): cannot specify both unbiased and correction')
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return _dims_or_all(dim), float(correction), bool(keepdim)


def _reduce_var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.var(self, dims, corr, keep)


def _reduce_std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.std(self, dims, corr, keep)


def _reduce_norm(self, p='fro', dim=None, keepdim=False, dtype=None):
    t = self if dtype is None else self.to(dtype)
    if p is None or p == 'fro':
        p = 2
    elif isinstance(p, str):
        raise RuntimeError('norm(): the norm %r is not supported' % (p,))
    return Dl.Tensor.norm(t, float(p), _dims_or_all(dim), keepdim)


def _reduce_logsumexp(self, dim, keepdim=False):
    return Dl.Tensor.logsumexp(self, _dims(dim), keepdim)


def _reduce_all(self, dim=None, keepdim=False):
    return Dl.Tensor.all(self, _dims_or_all(dim), keepdim)


def _reduce_any(self, dim=None, keepdim=False):
    return Dl.Tensor.any(self, _dims_or_all(dim), keepdim)


def _reduce_median(self, dim=None, keepdim=False):
    if dim is None:
        return Dl.Tensor.median(self)
    values, indices = self.median_dim(int(dim), keepdim)
    return _ReturnValues(values, indices)


def _reduce_nanmedian(self, dim=None, keepdim=False):
    if dim is None:
        return Dl.Tensor.nanmedian(self)
    values, indices = self.nanmedian_dim(int(dim), keepdim)
    return _ReturnValues(values, indices)


def _scan_args(self, dtype):
    return self if dtype is None else self.to(dtype)


def _scan_cumsum(self, dim, *, dtype=None):
    return _as_dtype(Dl.Tensor.cumsum(_scan_args(self, dtype), int(dim)), dtype)


def _scan_cumprod(self, dim, *, dtype=None):
    return _as_dtype(Dl.Tensor.cumprod(_scan_args(self, dtype), int(dim)), dtype)


def _scan_sort(self, dim=-1, descending=False, stable=False):
    # the sort is always stable
    values, indices = Dl.Tensor.sort(self, int(dim), bool(descending))
    return _ReturnValues(values, indices)


def _scan_argsort(self, dim=-1, descending=False, stable=False):
    return _scan_sort(self, dim, descending)[1]


def _scan_topk(self, k, dim=-1, largest=True, sorted=True):
    values, indices = Dl.Tensor.topk(self, int(k), int(dim), bool(largest))
    return _ReturnValues(values, indices)


def _scan_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        raise NotImplementedError('unique(dim=...) is not supported yet')
    values, inverse, counts = Dl.Tensor.unique(self)
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out[0] if len(out) == 1 else out


def _reduce_kthvalue(self, k, dim=-1, keepdim=False):
    values, indices = Dl.Tensor.kthvalue(self, int(k), int(dim), bool(keepdim))
    return _ReturnValues(values, indices)


def _reduce_var_mean(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.var(self, dims, corr, keep), self.mean_dims(dims, keep)


def _reduce_std_mean(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.std(self, dims, corr, keep), self.mean_dims(dims, keep)


def _reduce_count_nonzero(self, dim=None):
    nz = self != 0
    return nz.sum() if dim is None else nz.sum(dim)


_MinMax = collections.namedtuple('aminmax', ['min', 'max'])


def _reduce_aminmax(self, *, dim=None, keepdim=False):
    dims = _dims_or_all(dim)
    return _MinMax(Dl.Tensor.amin(self, dims, keepdim), Dl.Tensor.amax(self, dims, keepdim))


def _scan_cummax(self, dim):
    values, indices = Dl.Tensor.cummax(self, int(dim))
    return _ReturnValues(values, indices)


def _scan_cummin(self, dim):
    values, indices = Dl.Tensor.cummin(self, int(dim))
    return _ReturnValues(values, indices)


def _scan_unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        raise NotImplementedError('unique_consecutive(dim=...) is not supported yet')
    values, inverse, counts = Dl.Tensor.unique_consecutive(self)
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out[0] if len(out) == 1 else out


def _reduce_nansum(self, dim=None, keepdim=False, dtype=None):
    t = self if dtype is None else self.to(dtype)
    return _as_dtype(Dl.Tensor.nansum(t, _dims_or_all(dim), keepdim), dtype)


def _reduce_nanmean(self, dim=None, keepdim=False, dtype=None):
    t = self if dtype is None else self.to(dtype)
    return Dl.Tensor.nanmean(t, _dims_or_all(dim), keepdim)


def _scan_msort(self):
    return _scan_sort(self, 0)[0]


for _name, _fn in (('kthvalue', _reduce_kthvalue), ('var_mean', _reduce_var_mean),
                   ('std_mean', _reduce_std_mean), ('count_nonzero', _reduce_count_nonzero),
                   ('aminmax', _reduce_aminmax), ('msort', _scan_msort),
                   ('cummax', _scan_cummax), ('cummin', _scan_cummin),
                   ('unique_consecutive', _scan_unique_consecutive),
                   ('nansum', _reduce_nansum), ('nanmean', _reduce_nanmean),
                   ('prod', _reduce_prod), ('amax', _reduce_amax), ('amin', _reduce_amin),
                   ('var', _reduce_var), ('std', _reduce_std), ('norm', _reduce_norm),
                   ('logsumexp', _reduce_logsumexp), ('all', _reduce_all), ('any', _reduce_any),
                   ('median', _reduce_median), ('nanmedian', _reduce_nanmedian),
                   ('cumsum', _scan_cumsum),
                   ('cumprod', _scan_cumprod), ('sort', _scan_sort), ('argsort', _scan_argsort),
                   ('topk', _scan_topk), ('unique', _scan_unique)):
    _fn = _checked(_fn)
    _fn.__name__ = _name
    setattr(Tensor, _name, _fn)
    _export(_unary_fn(_name))
