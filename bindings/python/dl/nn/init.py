# init.py: dl.nn.init (torch.nn.init): filling parameters in place with the
# usual initialisations, over the tensor's own uniform_, normal_, fill_ and
# zero_, outside autograd. Signatures and formulas are PyTorch 1.13's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings

from ..autograd.grad_mode import no_grad

__all__ = ['calculate_gain', 'uniform_', 'normal_', 'constant_', 'ones_', 'zeros_',
           'xavier_uniform_', 'xavier_normal_', 'kaiming_uniform_', 'kaiming_normal_']

# The gain of each nonlinearity that is a constant: the factor that keeps the
# variance of activations through the layer.
_GAINS = {
    'linear': 1.0, 'conv1d': 1.0, 'conv2d': 1.0, 'conv3d': 1.0, 'conv_transpose1d': 1.0,
    'conv_transpose2d': 1.0, 'conv_transpose3d': 1.0, 'sigmoid': 1.0,
    'tanh': 5.0 / 3, 'relu': math.sqrt(2.0), 'selu': 3.0 / 4,
}


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity; param is leaky_relu's
    negative slope (0.01 when None)."""
    if nonlinearity == 'leaky_relu':
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError('negative_slope {} not a valid number'.format(param))
        return math.sqrt(2.0 / (1 + slope * slope))
    if nonlinearity not in _GAINS:
        raise ValueError('Unsupported nonlinearity {}'.format(nonlinearity))
    gain = _GAINS[nonlinearity]
    return 1 if gain == 1.0 else gain


def _fans(tensor):
    """(fan_in, fan_out): dim 1 and dim 0 times the size of the rest."""
    shape = tensor.shape
    if len(shape) < 2:
        raise ValueError('Fan in and fan out can not be computed for tensor with fewer than 2 '
                         'dimensions')
    rest = 1
    for s in shape[2:]:
        rest *= s
    return shape[1] * rest, shape[0] * rest


def _fan(tensor, mode):
    if mode not in ('fan_in', 'fan_out'):
        raise ValueError('Mode {} not supported, please use one of fan_in, fan_out'.format(mode))
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == 'fan_in' else fan_out


def uniform_(tensor, a=0.0, b=1.0):
    """Fills tensor with values drawn uniformly from [a, b)."""
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0):
    """Fills tensor with values drawn from N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def xavier_uniform_(tensor, gain=1.0):
    """Glorot initialisation: uniform in [-a, a], a = gain sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.0):
    """Glorot initialisation: N(0, std^2), std = gain sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    """He initialisation: uniform in [-b, b], b = gain sqrt(3 / fan), the
    gain of nonlinearity (with negative slope a for leaky_relu)."""
    if 0 in tensor.shape:
        warnings.warn('Initializing zero-element tensors is a no-op')
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    """He initialisation: N(0, std^2), std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn('Initializing zero-element tensors is a no-op')
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std)
