# bilinear.py: torch.nn.Bilinear (libdl's DlBilinear), F.bilinear and
# torch.bilinear (dl_bilinear).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from .modules import Module, _construct, _Layer, _LayerTensor

__all__ = ['bilinear', 'Bilinear']


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

    weight = _LayerTensor('weight')

    bias = _LayerTensor('bias')

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        self.weight.detach().uniform_(-bound, bound)
        if self.bias is not None:
            self.bias.detach().uniform_(-bound, bound)

    def extra_repr(self):
        return 'in1_features={}, in2_features={}, out_features={}, bias={}'.format(
            self.in1_features, self.in2_features, self.out_features, self.bias is not None)
