# weight_norm.py: dl.nn.utils.weight_norm (torch.nn.utils.weight_norm):
# the hook form of weight normalisation, weight = g * v / ||v||, with
# torch 1.13's parameters (weight_g, weight_v: checkpoints load across),
# hook object, attribute and errors. The weight is computed by a forward
# pre-hook into a plain attribute, as in torch; a libdl layer's C forward
# reads it through a parametrization of the layer (parametrize._Attribute).
#
# The weight is libdl's dl_weight_norm (torch._weight_norm): one node,
# WeightNormInterfaceBackward0, for dim 0 or the last dim, the norm, a
# division and a product for the others, as torch 1.13 records them.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from gi.repository import GLib

from ..._lib import Dl, _translate
from ..parameter import Parameter
from .parametrize import _AttributeHook, _attach_attribute, _detach_attribute, _remove_hook

__all__ = ['WeightNorm', 'weight_norm', 'remove_weight_norm']


def norm_except_dim(v, pow=2, dim=0):
    """torch.norm_except_dim: the pow-norm of v over every dim but dim,
    kept as a size-1 dim each (the norm of all of v, 0-d, for dim -1)."""
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.dim()
    dims = [d for d in range(v.dim()) if d != dim]
    if not dims:  # a vector along dim: each element's norm
        return v.abs()
    return v.norm(pow, dims, keepdim=True)


def _weight_norm(v, g, dim=0):
    """torch._weight_norm: v * (g / norm_except_dim(v, 2, dim))."""
    try:
        return Dl.weight_norm(v, g, dim)
    except GLib.Error as e:
        raise _translate(e) from None


def _check_initialized(weight, what):
    from ..parameter import UninitializedParameter
    if isinstance(weight, UninitializedParameter):
        raise ValueError(
            "The module passed to `{0}` can't have uninitialized parameters. Make sure to run "
            "the dummy forward before applying {1} normalization".format(
                what, 'weight' if what == 'WeightNorm' else 'spectral'))


class WeightNorm(_AttributeHook):
    """The forward pre-hook weight_norm registers: it sets module.<name>
    from <name>_g and <name>_v before each forward."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + '_g')
        v = getattr(module, self.name + '_v')
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError('Cannot register two weight_norm hooks on the same parameter '
                                   '{}'.format(name))
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        _check_initialized(weight, 'WeightNorm')
        delattr(module, name)
        module.register_parameter(name + '_g', Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + '_v', Parameter(weight.data))
        module.__dict__[name] = fn.compute_weight(module)
        _attach_attribute(module, name, fn)
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        _detach_attribute(module, self.name, self)
        delattr(module, self.name + '_g')
        delattr(module, self.name + '_v')
        setattr(module, self.name, Parameter(weight.data))

    def _value(self, module):
        return self.compute_weight(module)

    def __call__(self, module, inputs):
        module.__dict__[self.name] = self.compute_weight(module)


def weight_norm(module, name='weight', dim=0):
    """Replaces the parameter name of module by name_g (its norm over
    every dim but dim; over all of it for dim=None) and name_v (its
    direction), recombined before each forward. Returns module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name='weight'):
    """Makes name a plain parameter again (its current value)."""
    return _remove_hook(module, WeightNorm, name, 'weight_norm')
