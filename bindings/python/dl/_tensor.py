# _tensor.py: the Tensor class (PyTorch's Python API over DlTensor) and
# Node (a tensor's grad_fn). Every Tensor method is named in the class
# body below, those of the op families included (they are written in
# _creation.py, _math.py, _indexing.py and _reductions.py); at the end of
# this module the C extension _dl_fast gives the hot ones C paths.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import inspect
import numbers
import os

import numpy as _np

from . import (_callbacks, _composites, _creation, _dtype, _indexing, _math, _random, _reductions,
               _shape, _tensor_more, _typeinfo)
from ._creation import tensor
from ._dtype import _CPU, _DTYPES, Size, _dl_device, _size_args, device, dtype
from ._lib import (OVERRIDE_MODULE, WITHOUT_NUMPY_NAMES_METHODS, Dl, GLib, _checked,
                   _int_arg, _is_tensor, _translate, numpy_names, typelib_override)
from . import return_types
from ._reductions import _dims


class _ArrayView:
    """Hands numpy a tensor's memory; holding the tensor keeps it alive."""
    __slots__ = ('__array_interface__', '_tensor')


_NP_TYPESTR = {'float32': '<f4', 'float64': '<f8', 'float16': '<f2', 'int32': '<i4',
               'int64': '<i8', 'uint8': '|u1', 'bool': '|b1'}


_t_add = Dl.Tensor.add
_t_backward = _checked(Dl.Tensor.backward)
_t_sub = Dl.Tensor.sub
_t_mul = Dl.Tensor.mul
_t_div = Dl.Tensor.div
_t_matmul = Dl.Tensor.matmul


def _fill_value(value, name):
    """The double a fill of @value writes, checked as torch checks it: a
    number (a bool too) or a 0-d tensor, an int within int64."""
    if _is_tensor(value):
        if value.get_ndim() != 0:
            raise RuntimeError('%s only supports 0-dimension value tensor but got tensor with '
                               '%d dimensions.' % (name, value.get_ndim()))
        value = value.item()
    if not isinstance(value, numbers.Real):
        raise TypeError("%s(): argument 'value' must be Number, not %s"
                        % (name, type(value).__name__))
    if isinstance(value, numbers.Integral) and \
            not -0x8000000000000000 <= value <= 0x7fffffffffffffff:
        raise RuntimeError('Overflow when unpacking long')
    return float(value)


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


# type(x) is <class 'dl.Tensor'>, as torch's is <class 'torch.Tensor'>
@typelib_override('dl')
class Tensor(Dl.Tensor):
    """A libdl tensor with PyTorch's Python API."""
    __module__ = OVERRIDE_MODULE

    def __new__(cls, *args, **kwargs):
        # torch.Tensor(...), the legacy constructor: torch.FloatTensor's
        # forms in the default dtype, and (Tensor) an alias of any dtype
        from ._typeinfo import _legacy_new
        if len(args) == 1 and not kwargs and _is_tensor(args[0]):
            return Dl.Tensor.alias(args[0])
        return _legacy_new('new', _dtype.get_default_dtype(), None, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass  # __new__ made it

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
    __itruediv__ = _inplace(Dl.Tensor.div_, Dl.Tensor.div_scalar_, 'div_')

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

    def div(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return self / other
        return _math._div(self, other, rounding_mode=rounding_mode)

    def true_divide(self, other):
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

    def div_(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return self.__itruediv__(other)
        return _math._div_(self, other, rounding_mode=rounding_mode)

    def true_divide_(self, other):
        return self.__itruediv__(other)

    divide = div
    divide_ = div_
    multiply = mul
    multiply_ = mul_
    subtract = sub
    subtract_ = sub_

    def fill_(self, value):
        Dl.Tensor.fill_(self, _fill_value(value, 'fill_'))
        return self

    def zero_(self):
        Dl.Tensor.zero_(self)
        return self

    def copy_(self, src):
        Dl.Tensor.copy_(self, src if _is_tensor(src) else tensor(src))
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

    not_equal = ne
    less = lt
    less_equal = le
    greater = gt
    greater_equal = ge

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

    @property
    def is_meta(self):
        return self.get_device().get_device_type() == Dl.DeviceType.META

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
        if Dl.Tensor.is_parameter(self):
            return 'Parameter containing:\n' + self.to_string()
        return self.to_string()

    __str__ = __repr__

    def __format__(self, spec):
        if self.get_ndim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        # As PyTorch's tensors pickle by default: the values (in row-major
        # order, whatever the layout), dtype, shape and requires_grad; not
        # the grad, nor the graph (an unpickled tensor is a leaf).
        args = (self.dtype, tuple(self.get_shape()), Dl.Tensor.to_bytes(self).get_data(),
                self.get_requires_grad())
        if Dl.Tensor.is_parameter(self):  # an nn.Parameter stays one
            return (_rebuild_parameter, args)
        return (_rebuild_tensor, args)

    def __deepcopy__(self, memo):
        # as PyTorch's: a leaf's values copied, with its requires_grad and
        # its grad (deep-copied); a Parameter's without its grad
        if id(self) in memo:
            return memo[id(self)]
        if not Dl.Tensor.is_leaf(self):
            raise RuntimeError('Only Tensors created explicitly by the user (graph leaves) '
                               'support the deepcopy protocol at the moment')
        new = Dl.Tensor.clone(Dl.Tensor.detach(self))
        if Dl.Tensor.is_parameter(self):
            new = Dl.parameter_new(new, self.get_requires_grad())
            memo[id(self)] = new
            return new
        if self.get_requires_grad():
            new.set_requires_grad(True)
        memo[id(self)] = new
        grad = self.get_grad()
        if grad is not None:
            new.set_grad(copy.deepcopy(grad, memo))  # which keeps grad alive, as its id is in memo
        return new

    def share_memory_(self):
        """Moves the storage into shared memory (a memfd), as PyTorch's: the
        tensor can then go to other processes (dl.multiprocessing) without a
        copy, and writes on either side are seen by both."""
        try:
            Dl.Tensor.share_memory(self)
        except GLib.Error as e:
            raise RuntimeError(e.message) from None
        return self

    def is_shared(self):
        return Dl.Tensor.is_shared(self)

    def is_pinned(self, device=None):
        """Whether the tensor is in pinned (page-locked) host memory: never
        in libdl, which allocates none (PyTorch's answer for every CPU
        tensor without a CUDA device, and for every device tensor).
        @device as torch checks it: None, an index, a string or a device."""
        if isinstance(device, bool) or not (device is None or isinstance(device, (int, str))
                                            or type(device) is _dtype.device):
            raise TypeError("is_pinned(): argument 'device' (position 1) must be torch.device, "
                            "not %s" % type(device).__name__)
        if device is not None:
            _dtype.device(device)  # torch's RuntimeError for a bad string or a negative index
        return False

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

    @property
    def _base(self):
        return self.get_base()

    def _is_view(self):
        return self.get_base() is not None

    @property
    def output_nr(self):
        return self.get_output_nr()

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if retain_graph is None:
            retain_graph = create_graph
        if gradient is not None and not _is_tensor(gradient):
            gradient = tensor(gradient, dtype=self.dtype)
        if inputs is not None:
            # only these tensors' .grad get the gradient (leaves or not)
            from .autograd import engine
            inputs = [inputs] if _is_tensor(inputs) else list(inputs)
            if not inputs:
                raise RuntimeError("'inputs' argument to backward() cannot be empty.")
            grads = engine.grad(self, inputs, gradient, retain_graph=retain_graph,
                                create_graph=create_graph, allow_unused=True)
            for t, g in zip(inputs, grads):
                if g is None:
                    continue
                if t.grad is None:
                    t.grad = g if create_graph else g.detach().clone()
                elif create_graph:
                    t.grad = t.grad + g
                else:
                    was = Dl.set_grad_enabled(False)
                    try:
                        t.grad.add_(g)
                    finally:
                        Dl.set_grad_enabled(was)
            return
        _t_backward(self, gradient, bool(retain_graph), bool(create_graph))

    def register_hook(self, hook):
        """Runs hook(grad) on this tensor's gradient in every backward pass;
        a hook that returns a tensor replaces the gradient. Returns a handle
        whose remove() unregisters it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        name = getattr(hook, '__name__', repr(hook))

        def call(grad):
            r = hook(grad)
            if r is not None and not _is_tensor(r):
                raise TypeError("expected Tensor, but hook returned '%s'" % type(r).__name__)
            return r
        call.__name__ = name
        return RemovableHandle(Dl.Tensor.register_hook(self, _callbacks.from_c(call)))

    def retain_grad(self):
        Dl.Tensor.retain_grad(self)

    @property
    def retains_grad(self):
        return self.get_retains_grad()

    def detach_(self):
        Dl.Tensor.detach_(self)
        return self

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
        dev = self.get_device()
        if dev.get_device_type() != Dl.DeviceType.CPU:
            raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to "
                            "copy the tensor to host memory first." % dev.get_name())
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

    # numpy defers its binary operators to the tensor's reflected ones
    __array_priority__ = 1000

    def __array__(self, dtype=None):
        """np.asarray(t): the tensor's memory as an array, as numpy()
        gives it (no copy), cast when dtype asks."""
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __array_wrap__(self, array):
        """The result of a numpy ufunc on a tensor, as a tensor (numpy
        bools as uint8, as torch 1.13 makes them)."""
        if array.dtype == bool:
            array = array.astype('uint8')
        return _creation.from_numpy(array)

    def tolist(self):
        t = self.detach().cpu()
        if t.get_dtype() == Dl.DType.BFLOAT16:
            t = t.to_dtype(Dl.DType.FLOAT32)
        return t.numpy().tolist()

    def to(self, *args, **kwargs):
        target_dtype = kwargs.pop('dtype', None)
        target_device = kwargs.pop('device', None)
        kwargs.pop('non_blocking', None)
        copy = kwargs.pop('copy', False)
        if kwargs:
            raise TypeError('to() got an unexpected keyword argument %r' % next(iter(kwargs)))
        for a in args:
            if type(a) is dtype:
                target_dtype = a
            elif isinstance(a, (str, device)) or (isinstance(a, int) and not isinstance(a, bool)):
                target_device = a  # an int is a CUDA device's index, as torch's
            elif _is_tensor(a):
                target_dtype, target_device = a.dtype, a.device
            else:
                raise TypeError('to() received an invalid combination of arguments')
        t = self
        if target_device is not None:
            target = _dl_device(target_device)
            t = Dl.Tensor.to_device(t, target)
            if t is not self:
                copy = False
        if target_dtype is not None and target_dtype != self.dtype:
            t = t.to_dtype(target_dtype._value)
        elif copy:
            # copy=True: new memory even when nothing changes, as torch's
            t = t.clone()
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
        return Dl.Tensor.to_device(self, None)

    def cuda(self, device=None, non_blocking=False):
        """torch.Tensor.cuda(): a copy on a CUDA device ('cuda', or an index
        or a 'cuda:N' device); RuntimeError naming why when libdl has none."""
        if device is None:
            device = 'cuda'
        elif isinstance(device, int):
            device = 'cuda:%d' % device
        return self.to(device)

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
        return return_types.max(self.max_dim(dim, keepdim))

    @_checked
    def min(self, dim=None, keepdim=False):
        if _is_tensor(dim):
            return self.minimum(dim)
        if dim is None:
            return Dl.Tensor.min(self)
        return return_types.min(self.min_dim(dim, keepdim))

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
        return Dl.Tensor.narrow(self, dim, _int_arg(start, 'narrow', 'start'),
                                _int_arg(length, 'narrow', 'length'))

    @_checked
    def select(self, dim, index):
        return Dl.Tensor.select(self, dim, _int_arg(index, 'select', 'index'))

    def contiguous(self, memory_format=None):
        if memory_format not in (None, _dtype.contiguous_format):
            _dtype._memory_format(memory_format, 'contiguous')
            raise RuntimeError('contiguous: only torch.contiguous_format is supported')
        return Dl.Tensor.contiguous(self)

    def clone(self, *, memory_format=None):
        return Dl.Tensor.clone_format(self, _dtype._memory_format(memory_format, 'clone'))

    # -- activations --
    @_checked
    def log_softmax(self, dim, dtype=None):
        t = self if dtype is None else self.to(dtype)
        return Dl.Tensor.log_softmax(t, dim)

    @_checked
    def softmax(self, dim, dtype=None):
        t = self if dtype is None else self.to(dtype)
        return Dl.Tensor.softmax(t, dim)

    @_checked
    def hardshrink(self, lambd=0.5):
        return Dl.Tensor.hardshrink(self, float(lambd))

    @_checked
    def prelu(self, weight):
        return Dl.Tensor.prelu(self, weight)

    # -- creation and random sampling (_creation.py) --
    new_zeros = _creation._new_zeros
    new_ones = _creation._new_ones
    new_empty = _creation._new_empty
    new_full = _creation.new_full
    new_tensor = _creation.new_tensor
    uniform_ = _creation._uniform_
    normal_ = _creation._normal_
    bernoulli_ = _creation._bernoulli_
    bernoulli = _creation._t_bernoulli
    random_ = _creation._random_
    multinomial = _creation._t_multinomial
    exponential_ = _random._exponential_
    cauchy_ = _random._cauchy_
    log_normal_ = _random._log_normal_
    geometric_ = _random._geometric_
    polygamma = _random._t_polygamma
    polygamma_ = _random._t_polygamma_
    mvlgamma = _random._t_mvlgamma

    def igamma(self, other):
        from .special import gammainc
        return gammainc(self, other)

    def igammac(self, other):
        from .special import gammaincc
        return gammaincc(self, other)

    # -- matrix products (_creation.py) --
    mm = _creation.mm
    bmm = _creation.bmm
    dot = _creation.dot
    outer = _creation.outer
    ger = _creation.outer
    vdot = _creation.dot
    mv = _creation.mv
    addmm = _creation.addmm
    baddbmm = _creation.baddbmm
    addbmm = _creation.addbmm
    addmv = _creation.addmv
    addr = _creation.addr
    inner = _creation.inner
    tensordot = _creation.tensordot

    # -- pointwise math (_math.py) --
    floor_divide = _math._math_binary_method(Dl.Tensor.floor_divide, 'floor_divide')
    remainder = _math._math_binary_method(Dl.Tensor.remainder, 'remainder')
    atan2 = _math._math_binary_method(Dl.Tensor.atan2, 'atan2')
    bitwise_and = _math._math_binary_method(Dl.Tensor.bitwise_and, 'bitwise_and')
    bitwise_or = _math._math_binary_method(Dl.Tensor.bitwise_or, 'bitwise_or')
    bitwise_xor = _math._math_binary_method(Dl.Tensor.bitwise_xor, 'bitwise_xor')
    logical_and = _math._math_binary_method(Dl.Tensor.logical_and, 'logical_and')
    logical_or = _math._math_binary_method(Dl.Tensor.logical_or, 'logical_or')
    logical_xor = _math._math_binary_method(Dl.Tensor.logical_xor, 'logical_xor')
    arctan2 = atan2
    fmod = _math._math_binary_method(Dl.Tensor.fmod, 'fmod')
    copysign = _math._math_binary_method(Dl.Tensor.copysign, 'copysign')
    xlogy = _math._math_binary_method(Dl.Tensor.xlogy, 'xlogy')
    float_power = _math._math_binary_method(Dl.Tensor.float_power, 'float_power')
    bitwise_left_shift = _math._math_binary_method(Dl.Tensor.bitwise_left_shift,
                                                   'bitwise_left_shift')
    bitwise_right_shift = _math._math_binary_method(Dl.Tensor.bitwise_right_shift,
                                                    'bitwise_right_shift')
    hypot = _math._tensor_binary_method(Dl.Tensor.hypot, 'hypot')
    fmax = _math._tensor_binary_method(Dl.Tensor.fmax, 'fmax')
    fmin = _math._tensor_binary_method(Dl.Tensor.fmin, 'fmin')
    heaviside = _math._tensor_binary_method(Dl.Tensor.heaviside, 'heaviside', 'values')
    gcd = _math._tensor_binary_method(Dl.Tensor.gcd, 'gcd')
    lcm = _math._tensor_binary_method(Dl.Tensor.lcm, 'lcm')
    nextafter = _math._tensor_binary_method(Dl.Tensor.nextafter, 'nextafter')
    logaddexp = _math._tensor_binary_method(Dl.Tensor.logaddexp, 'logaddexp')
    logaddexp2 = _math._tensor_binary_method(Dl.Tensor.logaddexp2, 'logaddexp2')
    ldexp = _math._tensor_binary_method(Dl.Tensor.ldexp, 'ldexp')
    addcmul = _math._addc_method(Dl.Tensor.addcmul, 'addcmul')
    addcdiv = _math._addc_method(Dl.Tensor.addcdiv, 'addcdiv')
    addcmul_ = _math._addc_method(Dl.Tensor.addcmul_, 'addcmul_', inplace=True)
    addcdiv_ = _math._addc_method(Dl.Tensor.addcdiv_, 'addcdiv_', inplace=True)
    __lshift__ = _math._math_operator(Dl.Tensor.bitwise_left_shift, '__lshift__')
    __rlshift__ = _math._math_operator(Dl.Tensor.bitwise_left_shift, '__rlshift__',
                                       reflected=True)
    __rshift__ = _math._math_operator(Dl.Tensor.bitwise_right_shift, '__rshift__')
    __rrshift__ = _math._math_operator(Dl.Tensor.bitwise_right_shift, '__rrshift__',
                                       reflected=True)
    pow = _math._tensor_pow
    __pow__ = _math._math_operator(Dl.Tensor.pow, '__pow__')
    __rpow__ = _math._rpow
    __floordiv__ = _math._math_operator(Dl.Tensor.floor_divide, '__floordiv__')
    __rfloordiv__ = _math._math_operator(Dl.Tensor.floor_divide, '__rfloordiv__',
                                         reflected=True)
    __mod__ = _math._math_operator(Dl.Tensor.remainder, '__mod__')
    __rmod__ = _math._math_operator(Dl.Tensor.remainder, '__rmod__', reflected=True)
    __and__ = _math._math_operator(Dl.Tensor.bitwise_and, '__and__')
    __rand__ = _math._math_operator(Dl.Tensor.bitwise_and, '__rand__', reflected=True)
    __or__ = _math._math_operator(Dl.Tensor.bitwise_or, '__or__')
    __ror__ = _math._math_operator(Dl.Tensor.bitwise_or, '__ror__', reflected=True)
    __xor__ = _math._math_operator(Dl.Tensor.bitwise_xor, '__xor__')
    __rxor__ = _math._math_operator(Dl.Tensor.bitwise_xor, '__rxor__', reflected=True)
    __invert__ = _math._invert
    clamp = clip = _math._clamp
    clamp_ = clip_ = _math._clamp_
    clamp_min = _math._clamp_min
    clamp_max = _math._clamp_max
    relu_ = _math._relu_
    lerp = _math._lerp
    nan_to_num = _math._nan_to_num
    round = _math._round
    absolute = Dl.Tensor.abs
    absolute_ = Dl.Tensor.abs_
    fix = Dl.Tensor.trunc
    fix_ = Dl.Tensor.trunc_
    negative = Dl.Tensor.neg
    negative_ = Dl.Tensor.neg_
    arcsin, arcsin_ = Dl.Tensor.asin, Dl.Tensor.asin_
    arccos, arccos_ = Dl.Tensor.acos, Dl.Tensor.acos_
    arctan, arctan_ = Dl.Tensor.atan, Dl.Tensor.atan_
    arcsinh, arcsinh_ = Dl.Tensor.asinh, Dl.Tensor.asinh_
    arccosh, arccosh_ = Dl.Tensor.acosh, Dl.Tensor.acosh_
    arctanh, arctanh_ = Dl.Tensor.atanh, Dl.Tensor.atanh_
    logit = _math._logit
    logit_ = _math._logit_
    pow_ = _math._math_inplace(Dl.Tensor.pow_, 'pow_')
    floor_divide_ = _math._math_inplace(Dl.Tensor.floor_divide_, 'floor_divide_')
    remainder_ = _math._math_inplace(Dl.Tensor.remainder_, 'remainder_')
    bitwise_and_ = _math._math_inplace(Dl.Tensor.bitwise_and_, 'bitwise_and_')
    bitwise_or_ = _math._math_inplace(Dl.Tensor.bitwise_or_, 'bitwise_or_')
    bitwise_xor_ = _math._math_inplace(Dl.Tensor.bitwise_xor_, 'bitwise_xor_')
    arctan2_ = _math._tensor_inplace(Dl.Tensor.atan2_, 'arctan2_')
    fmod_ = _math._math_inplace(Dl.Tensor.fmod_, 'fmod_')
    copysign_ = _math._math_inplace(Dl.Tensor.copysign_, 'copysign_')
    xlogy_ = _math._math_inplace(Dl.Tensor.xlogy_, 'xlogy_')
    bitwise_left_shift_ = _math._math_inplace(Dl.Tensor.bitwise_left_shift_,
                                              'bitwise_left_shift_')
    bitwise_right_shift_ = _math._math_inplace(Dl.Tensor.bitwise_right_shift_,
                                               'bitwise_right_shift_')
    float_power_ = _math._float_power_
    hypot_ = _math._tensor_inplace(Dl.Tensor.hypot_, 'hypot_')
    heaviside_ = _math._tensor_inplace(Dl.Tensor.heaviside_, 'heaviside_', 'values')
    gcd_ = _math._tensor_inplace(Dl.Tensor.gcd_, 'gcd_')
    lcm_ = _math._tensor_inplace(Dl.Tensor.lcm_, 'lcm_')
    nextafter_ = _math._tensor_inplace(Dl.Tensor.nextafter_, 'nextafter_')
    ldexp_ = _math._tensor_inplace(Dl.Tensor.ldexp_, 'ldexp_')
    eq_ = _math._math_inplace(Dl.Tensor.eq_, 'eq_')
    ne_ = not_equal_ = _math._math_inplace(Dl.Tensor.ne_, 'ne_')
    lt_ = less_ = _math._math_inplace(Dl.Tensor.lt_, 'lt_')
    le_ = less_equal_ = _math._math_inplace(Dl.Tensor.le_, 'le_')
    gt_ = greater_ = _math._math_inplace(Dl.Tensor.gt_, 'gt_')
    ge_ = greater_equal_ = _math._math_inplace(Dl.Tensor.ge_, 'ge_')
    isclose = _math._isclose
    allclose = _math._allclose
    equal = _math._equal
    __ipow__ = _math._math_inplace(Dl.Tensor.pow_, '__ipow__', True)
    __ifloordiv__ = _math._math_inplace(Dl.Tensor.floor_divide_, '__ifloordiv__', True)
    __imod__ = _math._math_inplace(Dl.Tensor.remainder_, '__imod__', True)
    __iand__ = _math._math_inplace(Dl.Tensor.bitwise_and_, '__iand__', True)
    __ior__ = _math._math_inplace(Dl.Tensor.bitwise_or_, '__ior__', True)
    __ixor__ = _math._math_inplace(Dl.Tensor.bitwise_xor_, '__ixor__', True)
    __ilshift__ = _math._math_inplace(Dl.Tensor.bitwise_left_shift_, '__ilshift__', True)
    __irshift__ = _math._math_inplace(Dl.Tensor.bitwise_right_shift_, '__irshift__', True)

    # -- indexing, gather and scatter, joining (_indexing.py) --
    __getitem__ = _indexing._getitem
    __setitem__ = _indexing._setitem
    take = _indexing._t_take
    argwhere = _indexing._t_argwhere
    gather = _indexing._t_gather
    scatter = _indexing._t_scatter
    scatter_ = _indexing._t_scatter_
    scatter_add = _indexing._t_scatter_add
    scatter_add_ = _indexing._t_scatter_add_
    scatter_reduce = _indexing._t_scatter_reduce
    scatter_reduce_ = _indexing._t_scatter_reduce_
    index_select = _indexing._t_index_select
    masked_fill = _indexing._t_masked_fill
    masked_fill_ = _indexing._t_masked_fill_
    masked_select = _indexing._t_masked_select
    nonzero = _indexing._t_nonzero
    take_along_dim = _indexing._t_take_along_dim
    where = _indexing._t_where
    index_put_ = _indexing._t_index_put_
    index_put = _indexing._t_index_put
    unbind = _indexing._t_unbind
    split = _indexing._t_split
    chunk = _indexing._t_chunk
    unsafe_split = _indexing._t_unsafe_split
    unsafe_split_with_sizes = _indexing._t_unsafe_split_with_sizes
    unsafe_chunk = _indexing._t_unsafe_chunk
    repeat = _indexing._t_repeat
    flip = _indexing._t_flip
    fliplr = _indexing._t_fliplr
    flipud = _indexing._t_flipud
    roll = _indexing._t_roll
    tril = _indexing._t_tril
    triu = _indexing._t_triu
    diagonal = _indexing._t_diagonal
    diag = _indexing._t_diag
    trace = _indexing._t_trace
    bincount = _indexing._t_bincount
    tril_ = _indexing._t_tril_
    triu_ = _indexing._t_triu_
    index_add_ = _indexing._t_index_add_
    index_copy_ = _indexing._t_index_copy_
    index_fill_ = _indexing._t_index_fill_
    index_add = _indexing._t_index_add
    index_copy = _indexing._t_index_copy
    index_fill = _indexing._t_index_fill

    # -- reductions, scans, sorting (_reductions.py) --
    kthvalue = _reductions._t_kthvalue
    var_mean = _reductions._t_var_mean
    std_mean = _reductions._t_std_mean
    count_nonzero = _reductions._t_count_nonzero
    aminmax = _reductions._t_aminmax
    msort = _reductions._t_msort
    cummax = _reductions._t_cummax
    cummin = _reductions._t_cummin
    unique_consecutive = _reductions._t_unique_consecutive
    nansum = _reductions._t_nansum
    nanmean = _reductions._t_nanmean
    prod = _reductions._t_prod
    amax = _reductions._t_amax
    amin = _reductions._t_amin
    var = _reductions._t_var
    std = _reductions._t_std
    norm = _reductions._t_norm
    logsumexp = _reductions._t_logsumexp
    all = _reductions._t_all
    any = _reductions._t_any
    median = _reductions._t_median
    nanmedian = _reductions._t_nanmedian
    cumsum = _reductions._t_cumsum
    cumprod = _reductions._t_cumprod
    sort = _reductions._t_sort
    argsort = _reductions._t_argsort
    topk = _reductions._t_topk
    unique = _reductions._t_unique


def _rebuild_tensor(dtype, shape, data, requires_grad):
    """A tensor from what Tensor.__reduce_ex__ saved."""
    t = Dl.Tensor.new_from_bytes(GLib.Bytes.new(data), list(shape), dtype._value)
    if requires_grad:
        t.set_requires_grad(True)
    return t


def _rebuild_parameter(dtype, shape, data, requires_grad):
    return Dl.parameter_new(_rebuild_tensor(dtype, shape, data, False), requires_grad)


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


@typelib_override(__name__)
class Node(Dl.Node):
    """An autograd graph node (a tensor's grad_fn)."""
    __module__ = OVERRIDE_MODULE

    def name(self):
        return self.get_name()

    @property
    def next_functions(self):
        """torch's next_functions: a (node, 0) pair per input, the node
        None where the input needs no gradient and an AccumulateGrad where
        it is a leaf."""
        pairs = []
        for i in range(self.get_n_inputs()):
            node = self.get_next_node(i)
            if node is None:
                leaf = self.get_next_leaf(i)
                node = AccumulateGrad(leaf) if leaf is not None else None
            pairs.append((node, 0))
        return tuple(pairs)

    def __repr__(self):
        return '<%s object at %#x>' % (self.get_name(), id(self))


class AccumulateGrad:
    """The end of an edge at a leaf (torch's AccumulateGrad node): its
    variable is the leaf."""

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return 'torch::autograd::AccumulateGrad'

    next_functions = ()

    def __repr__(self):
        return '<AccumulateGrad object at %#x>' % id(self)


# ---- hot methods in C -------------------------------------------------------
# the view and shape methods of _shape.py (movedim, tile, unfold, the
# in-place views, ...)
# and the type queries and legacy forms of _typeinfo.py (type(), new(),
# is_signed, data, ...), and the in-place forms and compositions of
# _tensor_more.py (addmm_, lerp_, cumsum_, quantile, masked_scatter, ...)
for _name, _fn in {**_shape.METHODS, **_typeinfo.METHODS, **_typeinfo.PROPERTIES,
                   **_composites.METHODS, **_tensor_more.METHODS}.items():
    setattr(Tensor, _name, _fn)


# _dl_fast (bindings/python/dl-fast.c), when it was built, replaces the
# operators and the hot methods and properties of Tensor (the names that
# _dl_fast.names() lists) by C ones that call libdl without the GI call's
# marshalling and this module's Python frames; they hand every case they do
# not handle, and every error, to the Python methods above (each C method's
# __wrapped__), so results and exceptions are the same. Set
# DL_PYTHON_OPERATORS=1 to keep the Python ones.
_PYTHON_METHODS = {}


def _take_numpy_names():
    """Tensor's methods with a dim or keepdim parameter take numpy's axis
    and keepdims (see _lib.numpy_names), but for the ones torch writes in
    Python; done before _dl_fast keeps the methods as its fallbacks (its C
    paths hand those keywords to them)."""
    for name, fn in list(vars(Tensor).items()):
        if not inspect.isfunction(fn) or name in WITHOUT_NUMPY_NAMES_METHODS:
            continue
        params = inspect.signature(fn).parameters
        if 'dim' in params or 'keepdim' in params:
            setattr(Tensor, name, numpy_names(fn, name))


_take_numpy_names()


def _install_fast_operators():
    if os.environ.get('DL_PYTHON_OPERATORS'):
        return False
    try:
        from gi.overrides import _dl_fast
    except ImportError:
        return False
    # what the C ones replace (their fallbacks), for the tests to compare with
    _PYTHON_METHODS.update((name, getattr(Tensor, name)) for name in _dl_fast.names())
    _dl_fast.install(Tensor, _DTYPES, Size, _CPU, return_types)
    return True


_fast_operators = _install_fast_operators()


class RemovableHandle:
    """What register_hook() returns: remove() unregisters the hook (again
    does nothing); also a context manager that removes it on exit."""

    def __init__(self, hook_id):
        self.id = hook_id

    def remove(self):
        Dl.autograd_remove_hook(self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False
