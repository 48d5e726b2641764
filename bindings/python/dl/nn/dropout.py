# dropout.py: the dropout family beyond dropout and dropout2d:
# dropout1d, dropout3d (whole channels), alpha_dropout and
# feature_alpha_dropout (SELU's dropout, keeping mean and variance) and
# their modules. They are compositions over a Bernoulli mask and one
# multiply-add, as ATen's _dropout_impl: the mask is a plain tensor, so the
# gradient is the mask (times a) through the multiply.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings

from .conv import Dropout
from .modules import Module

__all__ = ['dropout1d', 'dropout3d', 'alpha_dropout', 'feature_alpha_dropout',
           'Dropout1d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout']

# SELU's alpha * scale (the value a dropped unit takes before the affine
# correction)
_ALPHA = 1.7580993408473766


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError('dropout probability has to be between 0 and 1, but got {}'.format(p))


def _noise(input, p, feature):
    """Bernoulli(1 - p) of input's shape, or of [N, C, 1, ...] for feature
    dropout."""
    from .. import _creation
    if feature:
        if input.dim() < 2:
            raise RuntimeError('Feature dropout requires at least 2 dimensions in the input')
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    else:
        shape = list(input.shape)
    noise = _creation.empty(shape, dtype=input.dtype, device=input.device)
    return noise.bernoulli_(1.0 - p)


def _dropout_impl(input, p, train, inplace, feature, alpha):
    """ATen's _dropout_impl: input * noise (/ (1 - p)), or for alpha
    dropout input * a noise + b, with a and b keeping zero mean and unit
    variance of SELU's activations."""
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    noise = _noise(input, p, feature)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = noise.add(-1.0).mul_(_ALPHA * a).add_(_ALPHA * a * p)
        noise.mul_(a)
        if inplace:
            return input.mul_(noise).add_(b)
        return input * noise + b
    noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


def _variant(name, feature, alpha, inplace):
    """torch.<name>(input, p, train), one of _dropout_impl's forms."""
    def fn(input, p, train):
        return _dropout_impl(input, p, train, inplace, feature, alpha)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = 'torch.%s(input, p, train).' % name
    return fn


feature_dropout = _variant('feature_dropout', True, False, False)
feature_dropout_ = _variant('feature_dropout_', True, False, True)
_alpha_dropout = _variant('alpha_dropout', False, True, False)
_alpha_dropout_ = _variant('alpha_dropout_', False, True, True)
_feature_alpha_dropout = _variant('feature_alpha_dropout', True, True, False)
_feature_alpha_dropout_ = _variant('feature_alpha_dropout_', True, True, True)
_dropout_ = _variant('dropout_', False, False, True)


def _channel_dropout(input, p, training, inplace, batched):
    _check_p(p)
    if not batched:
        result = _dropout_impl(input.unsqueeze(0), p, training, inplace, True, False)
        return input if inplace else result.squeeze(0)
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """torch.nn.functional.dropout1d: zeroes whole channels of [N, C, L]
    (or [C, L]) with probability p, scaling the others by 1 / (1 - p)."""
    _check_p(p)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(
            'dropout1d: Expected 2D or 3D input, but received a {}D input. Note that dropout1d '
            'exists to provide channel-wise dropout on inputs with 1 spatial dimension, a '
            'channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).'
            .format(nd))
    return _channel_dropout(input, p, training, inplace, nd == 3)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """torch.nn.functional.dropout3d: zeroes whole channels of
    [N, C, D, H, W] (or [C, D, H, W])."""
    _check_p(p)
    nd = input.dim()
    if nd not in (4, 5):
        warnings.warn(
            'dropout3d: Received a {}-D input to dropout3d, which is deprecated and will result '
            'in an error in a future release. To retain the behavior and silence this warning, '
            'please use dropout instead. Note that dropout3d exists to provide channel-wise '
            'dropout on inputs with 3 spatial dimensions, a channel dimension, and an optional '
            'batch dimension (i.e. 4D or 5D inputs).'.format(nd))
    return _channel_dropout(input, p, training, inplace, nd == 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """torch.nn.functional.alpha_dropout (note training=False by default,
    as torch's)."""
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """torch.nn.functional.feature_alpha_dropout: alpha dropout of whole
    channels."""
    return _dropout_impl(input, p, training, inplace, True, True)


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        _check_p(p)
        self.p, self.inplace = p, inplace

    extra_repr = Dropout.extra_repr


class Dropout1d(_DropoutNd):
    """torch.nn.Dropout1d(p=0.5, inplace=False)."""

    def forward(self, input):
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """torch.nn.Dropout3d(p=0.5, inplace=False)."""

    def forward(self, input):
        return dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """torch.nn.AlphaDropout(p=0.5, inplace=False): as torch's, the module
    does not pass inplace on."""

    def forward(self, input):
        return alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """torch.nn.FeatureAlphaDropout(p=0.5, inplace=False)."""

    def forward(self, input):
        return feature_alpha_dropout(input, self.p, self.training)
