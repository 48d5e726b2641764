# parameter.py: Parameter.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from gi.repository import GLib

from .._creation import empty
from .._lib import Dl, _is_tensor, _translate

__all__ = ['Parameter']


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
