# spectral_norm.py: dl.nn.utils.spectral_norm (torch.nn.utils.spectral_norm):
# the hook form of spectral normalisation, weight = weight_orig / sigma,
# sigma estimated by power iteration on the buffers weight_u and weight_v
# (updated in training mode), with torch 1.13's parameter and buffer
# names (checkpoints load across), hook object and errors. As
# weight_norm, the weight is a plain attribute a forward pre-hook sets,
# which a libdl layer's C forward reads through a parametrization.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ... import _creation
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from ..resample import normalize
from .parametrize import _AttributeHook, _attach_attribute, _detach_attribute, _remove_hook
from .weight_norm import _check_initialized

__all__ = ['SpectralNorm', 'spectral_norm', 'remove_spectral_norm']


def _to_matrix(weight, dim):
    """weight as a matrix whose rows run along dim."""
    if dim != 0:
        weight = weight.permute(dim, *[d for d in range(weight.dim()) if d != dim])
    return weight.reshape(weight.size(0), -1)


def _power_iteration(weight_mat, u, v, n, eps, u_first):
    """n steps of the power method on weight_mat, in place in the unit
    vectors u and v (u_first: u is updated first in each step)."""
    for _ in range(n):
        if u_first:
            normalize(_creation.mv(weight_mat, v), dim=0, eps=eps, out=u)
            normalize(_creation.mv(weight_mat.t(), u), dim=0, eps=eps, out=v)
        else:
            normalize(_creation.mv(weight_mat.t(), u), dim=0, eps=eps, out=v)
            normalize(_creation.mv(weight_mat, v), dim=0, eps=eps, out=u)


class SpectralNorm(_AttributeHook):
    """The forward pre-hook spectral_norm registers: it sets module.<name>
    to <name>_orig divided by its largest singular value, estimated with
    <name>_u and <name>_v (refined by n_power_iterations steps in training
    mode)."""
    _version = 1

    def __init__(self, name='weight', n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError('Expected n_power_iterations to be positive, but got '
                             'n_power_iterations={}'.format(n_power_iterations))
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        return _to_matrix(weight, self.dim)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + '_orig')
        u = getattr(module, self.name + '_u')
        v = getattr(module, self.name + '_v')
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                _power_iteration(weight_mat, u, v, self.n_power_iterations, self.eps, False)
                u = u.clone()
                v = v.clone()
        sigma = _creation.dot(u, _creation.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        _detach_attribute(module, self.name, self)
        delattr(module, self.name + '_u')
        delattr(module, self.name + '_v')
        delattr(module, self.name + '_orig')
        module.register_parameter(self.name, Parameter(weight.detach()))

    def _value(self, module):
        return self.compute_weight(module, do_power_iteration=False)

    def __call__(self, module, inputs):
        module.__dict__[self.name] = self.compute_weight(
            module, do_power_iteration=module.training)

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError('Cannot register two spectral_norm hooks on the same '
                                   'parameter {}'.format(name))
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError('`SpectralNorm` cannot be applied as parameter `{}` is None'
                             .format(name))
        _check_initialized(weight, 'SpectralNorm')
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + '_orig', weight)
        module.__dict__[fn.name] = weight.data
        module.register_buffer(fn.name + '_u', u)
        module.register_buffer(fn.name + '_v', v)
        _attach_attribute(module, fn.name, fn)
        module.register_forward_pre_hook(fn)
        return fn


def _transposed_conv(module):
    from .. import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    return isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Divides the parameter name of module by its spectral norm before
    each forward (the parameter becomes name_orig; the buffers name_u and
    name_v hold the power method's vectors). dim defaults to 1 for the
    transposed convolutions, 0 otherwise. Returns module."""
    if dim is None:
        dim = 1 if _transposed_conv(module) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name='weight'):
    """Makes name a plain parameter again (its current normalised value)."""
    return _remove_hook(module, SpectralNorm, name, 'spectral_norm')
