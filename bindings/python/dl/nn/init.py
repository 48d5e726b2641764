# init.py: dl.nn.init (torch.nn.init): filling parameters in place with the
# usual initialisations, outside autograd. The fills are libdl's
# (dl_init_*, so C, GJS and Vala have them too); this adds PyTorch's
# signatures, defaults, warnings and exception classes (1.13's).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings

from gi.repository import GLib

from .._lib import Dl, _translate
from ..autograd.grad_mode import no_grad

__all__ = ['calculate_gain', 'uniform_', 'normal_', 'constant_', 'ones_', 'zeros_', 'eye_',
           'dirac_', 'xavier_uniform_', 'xavier_normal_', 'kaiming_uniform_', 'kaiming_normal_',
           'orthogonal_', 'trunc_normal_', 'uniform', 'normal', 'constant', 'xavier_uniform',
           'xavier_normal', 'kaiming_uniform', 'kaiming_normal', 'orthogonal', 'sparse_',
           'sparse', 'eye', 'dirac', 'Tensor']

_LINEAR = ('linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d',
           'conv_transpose3d', 'sigmoid')


def _call(fn, *args):
    """fn(*args) with libdl's argument errors as the ValueError PyTorch
    raises."""
    try:
        return fn(*args)
    except GLib.Error as e:
        if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.ARGUMENT):
            raise ValueError(e.message) from None
        raise _translate(e) from None


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity; param is leaky_relu's
    negative slope (0.01 when None)."""
    slope = 0.01
    if nonlinearity == 'leaky_relu' and param is not None:
        if not isinstance(param, (int, float)) or isinstance(param, bool):
            raise ValueError('negative_slope {} not a valid number'.format(param))
        slope = param
    gain = _call(Dl.init_calculate_gain, str(nonlinearity), float(slope))
    return 1 if nonlinearity in _LINEAR else gain


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out): dim 1 and dim 0 times the size of the rest."""
    ok, fan_in, fan_out = _call(Dl.init_calculate_fan_in_and_fan_out, tensor)
    return fan_in, fan_out


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ('fan_in', 'fan_out'):
        raise ValueError('Mode {} not supported, please use one of fan_in, fan_out'.format(mode))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == 'fan_in' else fan_out


def uniform_(tensor, a=0.0, b=1.0):
    """Fills tensor with values drawn uniformly from [a, b)."""
    _call(Dl.init_uniform_, tensor, float(a), float(b), None)
    return tensor


def normal_(tensor, mean=0.0, std=1.0):
    """Fills tensor with values drawn from N(mean, std^2)."""
    _call(Dl.init_normal_, tensor, float(mean), float(std), None)
    return tensor


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """Fills tensor with values drawn from N(mean, std^2) truncated to
    [a, b]."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn('mean is more than 2 std from [a, b] in nn.init.trunc_normal_. '
                      'The distribution of values may be incorrect.', stacklevel=2)
    _call(Dl.init_trunc_normal_, tensor, float(mean), float(std), float(a), float(b), None)
    return tensor


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills a 2-d tensor with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError('Only tensors with 2 dimensions are supported')
    _call(Dl.init_eye_, tensor)
    return tensor


def dirac_(tensor, groups=1):
    """Fills a 3-, 4- or 5-d convolution weight with the Dirac delta: the
    convolution keeps the identity of min(out/groups, in) channels per
    group."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError('Only tensors with 3, 4, or 5 dimensions are supported')
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError('dim 0 must be divisible by groups')
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_chans_per_grp + d, d) + centre] = 1
    return tensor


def sparse_(tensor, sparsity, std=0.01):
    """Fills a 2-d tensor with N(0, std^2) values and zeroes
    ceil(sparsity * rows) of each column, at rows drawn at random."""
    if tensor.ndimension() != 2:
        raise ValueError('Only tensors with 2 dimensions are supported')
    from .. import _creation
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std)
        for col_idx in range(cols):
            zero_indices = _creation.randperm(rows)[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def xavier_uniform_(tensor, gain=1.0):
    """Glorot initialisation: uniform in [-a, a], a = gain sqrt(6 / (fan_in + fan_out))."""
    _call(Dl.init_xavier_uniform_, tensor, float(gain), None)
    return tensor


def xavier_normal_(tensor, gain=1.0):
    """Glorot initialisation: N(0, std^2), std = gain sqrt(2 / (fan_in + fan_out))."""
    _call(Dl.init_xavier_normal_, tensor, float(gain), None)
    return tensor


def _kaiming(fill, tensor, a, mode, nonlinearity):
    if 0 in tensor.shape:
        warnings.warn('Initializing zero-element tensors is a no-op')
        return tensor
    calculate_gain(nonlinearity, a)   # torch's checks of a
    _call(fill, tensor, float(a), str(mode).lower(), nonlinearity, None)
    return tensor


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    """He initialisation: uniform in [-b, b], b = gain sqrt(3 / fan), the
    gain of nonlinearity (with negative slope a for leaky_relu)."""
    return _kaiming(Dl.init_kaiming_uniform_, tensor, a, mode, nonlinearity)


def kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    """He initialisation: N(0, std^2), std = gain / sqrt(fan)."""
    return _kaiming(Dl.init_kaiming_normal_, tensor, a, mode, nonlinearity)


def orthogonal_(tensor, gain=1):
    """Fills tensor (seen as [size(0), numel / size(0)]) with a
    (semi-)orthogonal matrix times gain."""
    if tensor.dim() < 2:
        raise ValueError('Only tensors with 2 or more dimensions are supported')
    _call(Dl.init_orthogonal_, tensor, float(gain), None)
    return tensor


def _deprecated(new):
    def old(*args, **kwargs):
        warnings.warn('nn.init.{} is now deprecated in favor of nn.init.{}.'.format(
            new.__name__[:-1], new.__name__), stacklevel=2)
        return new(*args, **kwargs)
    old.__name__ = new.__name__[:-1]
    old.__doc__ = new.__doc__
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)

from .._tensor import Tensor  # noqa: E402  (torch.nn.init.Tensor)
