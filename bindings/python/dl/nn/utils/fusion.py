# fusion.py: dl.nn.utils.fusion (torch.nn.utils.fusion): a batch norm in
# eval mode folded into the convolution or linear layer before it, for
# inference.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy

from ... import _creation
from ..._lib import Dl
from ...nn.parameter import Parameter

__all__ = ['fuse_conv_bn_eval', 'fuse_conv_bn_weights', 'fuse_linear_bn_eval',
           'fuse_linear_bn_weights']


def _check_eval(layer, bn):
    assert not (layer.training or bn.training), 'Fusion only for eval!'


def _set_weights(layer, weight, bias):
    layer.weight = weight
    if layer.bias is None and isinstance(getattr(type(layer), 'bias', None), property):
        # a libdl layer made without a bias reads it through a property;
        # its C forward takes a "bias" parameter added later
        Dl.Module.add_parameter(layer, 'bias', bias)
    else:
        layer.bias = bias


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The weight and bias (Parameters) of a convolution whose output is
    the batch norm's of the given convolution's: w * gamma / sqrt(var +
    eps) per output channel (dimension 1 of a transposed convolution's
    weight), (b - mean) * gamma / sqrt(var + eps) + beta."""
    zeros = _creation.zeros_like(bn_rm)
    conv_b = zeros if conv_b is None else conv_b
    bn_w = _creation.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros if bn_b is None else bn_b
    inv_std = (bn_rv + bn_eps).rsqrt()
    channel = [1, -1] if transpose else [-1, 1]
    scale = (bn_w * inv_std).reshape(channel + [1] * (conv_w.dim() - 2))
    fused_w = conv_w * scale
    fused_b = (conv_b - bn_rm) * inv_std * bn_w + bn_b
    return Parameter(fused_w), Parameter(fused_b)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of @conv with @bn (both in eval mode) folded in."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    _set_weights(fused, *fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                              bn.running_var, bn.eps, bn.weight, bn.bias,
                                              transpose))
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The weight and bias (Parameters) of a linear layer followed by the
    batch norm, as one linear layer."""
    linear_b = _creation.zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    return (Parameter(linear_w * scale.unsqueeze(-1)),
            Parameter((linear_b - bn_rm) * scale + bn_b))


def fuse_linear_bn_eval(linear, bn):
    """A copy of @linear with @bn (both in eval mode) folded in."""
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    _set_weights(fused, *fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                bn.running_var, bn.eps, bn.weight, bn.bias))
    return fused
