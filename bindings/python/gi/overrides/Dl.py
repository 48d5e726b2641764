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

from gi.repository import GLib

from ..module import get_introspection_module
from ..overrides import override

Dl = get_introspection_module('Dl')
# Load libdl (and so the OpenBLAS build it links, the OpenMP one) before
# numpy brings in the system's default OpenBLAS; see meson.build.
Dl.Tensor.__gtype__  # noqa: B018

import numpy as _np  # noqa: E402

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
        if not -0x8000000000000000 <= other <= 0x7fffffffffffffff:
            raise RuntimeError('Overflow when unpacking long')
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
        if type(other) is Tensor or _is_tensor(other):
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
        r = Dl.Tensor.sum(t) if dim is None else t.sum_dims(_dims(dim), keepdim)
        # integer sums come out int64; an explicit dtype is the result's
        return r if dtype is None else r.to(dtype)

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
    def unflatten(self, dim, sizes):
        return Dl.Tensor.unflatten(self, dim, _size_args((sizes,), 'unflatten'))

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

    # indexing (__getitem__, __setitem__) is in Dl-sections/indexing.py


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
# rand, randn, randint, manual_seed and the *_like functions, which take a
# generator, are in Dl-sections/creation.py


@_export
def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _BOOL
        elif isinstance(fill_value, numbers.Integral):
            dtype = int64
    return _finish(Dl.full(_size_args((size,), 'full'), float(fill_value), _dt(dtype),
                           _dl_device(device)), requires_grad)


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
              'argmax', 'argmin', 't', 'flatten', 'unflatten', 'squeeze', 'unsqueeze', 'transpose', 'permute',
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
    relu=lambda input, inplace=False: input.relu_() if inplace else input.relu(),
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
            self.inplace = inplace

        def forward(self, input):
            return input.relu_() if self.inplace else input.relu()

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


# ---- the rest of the op library -----------------------------------------
# The op families of the full tensor library continue this module from the
# files in Dl-sections/. Each is executed in this module's namespace, in
# order, exactly as if its text stood here (later definitions replace
# earlier ones); they live apart only to keep each file readable.

def _include(name):
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'Dl-sections', name)
    with open(path, encoding='utf-8') as f:
        exec(compile(f.read(), path, 'exec'), globals())


for _section in ('creation.py', 'math.py', 'indexing.py', 'reductions.py'):
    _include(_section)


# ---- operators in C -----------------------------------------------------
# _dl_fast (bindings/python/dl-fast.c), when it was built, replaces the
# Tensor operators + - * / @ and unary minus by C method descriptors that
# call libdl without the GI call's marshalling; they hand every case they
# do not handle, and every error, to the Python methods above. Set
# DL_PYTHON_OPERATORS=1 to keep the Python ones.
def _install_fast_operators():
    import os
    if os.environ.get('DL_PYTHON_OPERATORS'):
        return False
    try:
        from gi.overrides import _dl_fast
    except ImportError:
        return False
    _dl_fast.install(Tensor)
    return True


_fast_operators = _install_fast_operators()
