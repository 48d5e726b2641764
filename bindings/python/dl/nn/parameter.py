# parameter.py: Parameter.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from gi.repository import GLib

from .._creation import empty
from .._lib import Dl, _is_tensor, _translate

__all__ = ['Parameter', 'UninitializedParameter', 'UninitializedBuffer']


class _ParameterMeta(type):
    """isinstance(t, Parameter) holds for the tensors libdl marks as
    parameters (dl_tensor_is_parameter): made by Parameter(), by a layer,
    or registered in a module."""

    def __instancecheck__(cls, obj):
        return _is_tensor(obj) and Dl.Tensor.is_parameter(obj)

    def __subclasscheck__(cls, sub):
        return sub is cls or type.__subclasscheck__(cls, sub)


class Parameter(metaclass=_ParameterMeta):
    """torch.nn.Parameter(data=None, requires_grad=True): a leaf tensor
    sharing data's storage, marked as a parameter, printed as "Parameter
    containing:"."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not _is_tensor(data):
            raise TypeError('new(): argument \'data\' (position 1) must be Tensor, not %s'
                            % type(data).__name__)
        if requires_grad and not Dl.dtype_is_floating_point(data.get_dtype()):
            raise RuntimeError('Only Tensors of floating point and complex dtype can require '
                               'gradients')
        try:
            return Dl.parameter_new(data, bool(requires_grad))
        except GLib.Error as e:
            raise _translate(e) from None


class _Uninitialized:
    """A tensor whose shape is not known yet: materialize(shape) makes it."""

    def __init__(self, requires_grad=False, device=None, dtype=None):
        self.requires_grad = requires_grad
        self.device = device
        self.dtype = dtype

    def _make(self, shape, device, dtype):
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        kw = {} if device is None else {'device': device}
        return empty(*shape, dtype=dtype, **kw)

    def _unusable(self, *args, **kwargs):
        raise ValueError(
            'Attempted to use an uninitialized parameter in {}. This error happens when you are '
            'using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{}` objects. '
            'When using LazyModules Call `forward` with a dummy batch to initialize the '
            'parameters before calling torch functions'.format('method', type(self).__name__))

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            'happens in `load_state_dict` when trying to load an uninitialized parameter into an '
            'initialized one. Call `forward` to initialize the parameters before accessing their '
            'attributes.')

    size = dim = numel = data_ptr = _unusable
    __add__ = __mul__ = __sub__ = __truediv__ = __matmul__ = __neg__ = _unusable

    def __repr__(self):
        return '<{}>'.format(type(self).__name__)


class UninitializedParameter(_Uninitialized):
    """torch.nn.UninitializedParameter(requires_grad=True, device=None,
    dtype=None): a parameter of a lazy module before its first call."""
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(requires_grad, device, dtype)

    def materialize(self, shape, device=None, dtype=None):
        """The Parameter of that shape (its values uninitialised)."""
        return Parameter(self._make(shape, device, dtype), self.requires_grad)


class UninitializedBuffer(_Uninitialized):
    """torch.nn.UninitializedBuffer(requires_grad=False, device=None,
    dtype=None): a buffer of a lazy module before its first call."""

    def materialize(self, shape, device=None, dtype=None):
        """The tensor of that shape (its values uninitialised)."""
        t = self._make(shape, device, dtype)
        return t.requires_grad_() if self.requires_grad else t
