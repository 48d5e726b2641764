# utils.py: dl.nn.utils (torch.nn.utils): gradient clipping and parameters
# as one vector, over libdl's dl_clip_grad_norm_ and friends (so C, GJS and
# Vala have them too), with PyTorch 1.13's signatures and exceptions.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

from gi.repository import GLib

from ..._lib import Dl, _is_tensor, _translate

__all__ = ['clip_grad', 'convert_parameters', 'fusion', 'fuse_conv_bn_eval',
           'fuse_conv_bn_weights', 'clip_grad_norm_', 'clip_grad_norm', 'clip_grad_value_', 'parameters_to_vector',
           'vector_to_parameters', 'parametrize', 'parametrizations', 'stateless',
           'weight_norm', 'remove_weight_norm', 'spectral_norm', 'remove_spectral_norm',
           'skip_init', 'init']


def _params(parameters):
    return [parameters] if _is_tensor(parameters) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients so that their total norm is at most max_norm;
    returns the total norm before clipping."""
    try:
        return Dl.clip_grad_norm_(_params(parameters), float(max_norm), float(norm_type),
                                  bool(error_if_nonfinite))
    except GLib.Error as e:
        if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.ARGUMENT):
            raise RuntimeError(e.message) from None
        raise _translate(e) from None


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    warnings.warn('torch.nn.utils.clip_grad_norm is now deprecated in favor of '
                  'torch.nn.utils.clip_grad_norm_.', stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value):
    """Clamps the gradients to [-clip_value, clip_value] in place."""
    try:
        Dl.clip_grad_value_(_params(parameters), float(clip_value))
    except GLib.Error as e:
        raise _translate(e) from None


def _typename(o):
    return type(o).__module__ + '.' + type(o).__name__


def parameters_to_vector(parameters):
    """The parameters flattened and joined into one vector."""
    try:
        return Dl.parameters_to_vector(list(parameters))
    except GLib.Error as e:
        raise _translate(e) from None


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of vec into the parameters."""
    if not _is_tensor(vec):
        raise TypeError('expected torch.Tensor, but got: {}'.format(_typename(vec)))
    try:
        Dl.vector_to_parameters(vec, list(parameters))
    except GLib.Error as e:
        raise _translate(e) from None


# the submodules PyTorch defines these in
from . import clip_grad, convert_parameters, fusion  # noqa: E402
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights  # noqa: E402
# the parametrizations, their hook forms, functional_call, skip_init
from . import init, parametrize, parametrizations, stateless  # noqa: E402
from .init import skip_init  # noqa: E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402
