# bilinear.py: torch.nn.Bilinear (libdl's DlBilinear), F.bilinear and
# torch.bilinear (dl_bilinear), and torch.nn.LazyLinear, a Linear whose
# in_features is the last dim of its first input.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from .modules import Module, _construct, _Layer
from .parameter import Parameter

__all__ = ['bilinear', 'Bilinear', 'LazyLinear']


def bilinear(input1, input2, weight, bias=None):
    """torch.nn.functional.bilinear: y = x1^T A x2 + b over the last dims."""
    try:
        return Dl.bilinear(input1, input2, weight, bias)
    except GLib.Error as e:
        raise _translate(e) from None


@typelib_override(__name__)
class Bilinear(_Layer, Dl.Bilinear, Module):
    """torch.nn.Bilinear(in1_features, in2_features, out_features,
    bias=True): libdl's DlBilinear, called with two inputs."""
    __module__ = OVERRIDE_MODULE
    _properties = ('in1_features', 'in2_features', 'out_features')

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        _construct(self, Dl.Bilinear, in1_features=int(in1_features),
                   in2_features=int(in2_features), out_features=int(out_features),
                   bias=bool(bias))

    @property
    def weight(self):
        return Dl.Module.get_parameter(self, 'weight')

    @property
    def bias(self):
        return Dl.Module.get_parameter(self, 'bias')

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        self.weight.detach().uniform_(-bound, bound)
        if self.bias is not None:
            self.bias.detach().uniform_(-bound, bound)

    def extra_repr(self):
        return 'in1_features={}, in2_features={}, out_features={}, bias={}'.format(
            self.in1_features, self.in2_features, self.out_features, self.bias is not None)


class LazyLinear(Module):
    """torch.nn.LazyLinear(out_features, bias=True): a Linear whose
    in_features (0 until then) and parameters are made at its first call,
    from the last dim of the input, initialised as Linear's; it is then
    named Linear, as torch's becomes one."""

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = 0, out_features
        self.__dict__['_lazy'] = {'bias': bias, 'dtype': dtype}

    def has_uninitialized_params(self):
        return '_lazy' in self.__dict__

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        from .. import _creation
        from ..autograd.grad_mode import no_grad
        lazy = self.__dict__.pop('_lazy')
        self.in_features = input.shape[-1]
        dtype = lazy['dtype'] or input.dtype
        bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
        with no_grad():
            self.weight = Parameter(_creation.empty(self.out_features, self.in_features,
                                                    dtype=dtype).uniform_(-bound, bound))
            if lazy['bias']:
                self.bias = Parameter(_creation.empty(self.out_features,
                                                      dtype=dtype).uniform_(-bound, bound))

    def forward(self, input):
        self.initialize_parameters(input)
        from .functional import linear
        return linear(input, self.weight, self._parameters.get('bias'))

    def _get_name(self):
        return 'LazyLinear' if self.has_uninitialized_params() else 'Linear'

    def extra_repr(self):
        bias = self.__dict__['_lazy']['bias'] if self.has_uninitialized_params() \
            else 'bias' in self._parameters
        return 'in_features={}, out_features={}, bias={}'.format(
            self.in_features, self.out_features, bias)
