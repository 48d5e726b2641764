# resample.py: padding, interpolation, normalize and channel dropout for
# dl.nn.functional, and the Upsample modules; thin wrappers over libdl's
# dl_pad, dl_interpolate and dl_dropout (the argument handling PyTorch
# does in Python is done here the same way).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

from .._lib import Dl, GLib, _translate
from .conv import Dropout
from .modules import Module

__all__ = ['pad', 'interpolate', 'upsample', 'normalize', 'dropout2d', 'Upsample',
           'UpsamplingNearest2d', 'UpsamplingBilinear2d', 'Dropout2d']

_PAD_MODES = {'constant': Dl.PadMode.CONSTANT, 'reflect': Dl.PadMode.REFLECT,
              'replicate': Dl.PadMode.REPLICATE, 'circular': Dl.PadMode.CIRCULAR}


def _not_supported_as(e, exc):
    if isinstance(e, GLib.Error) and e.code == int(Dl.Error.NOT_SUPPORTED):
        return exc(e.message)
    return _translate(e)


def pad(input, pad, mode='constant', value=None):
    """torch.nn.functional.pad(input, pad, mode='constant', value=None)."""
    m = _PAD_MODES.get(mode)
    if m is None:
        raise NotImplementedError('Unrecognised padding mode %s' % mode)
    try:
        return Dl.pad(input, [int(p) for p in pad], m, 0.0 if value is None else float(value))
    except GLib.Error as e:
        raise _not_supported_as(e, NotImplementedError) from None


_MODES = {'nearest': Dl.InterpolateMode.NEAREST, 'linear': Dl.InterpolateMode.LINEAR,
          'bilinear': Dl.InterpolateMode.BILINEAR, 'bicubic': Dl.InterpolateMode.BICUBIC,
          'trilinear': Dl.InterpolateMode.TRILINEAR}
_NEEDS = {'linear': 3, 'bilinear': 4, 'bicubic': 4, 'trilinear': 5}


def _spatial_list(v, dim, what, input):
    if isinstance(v, (list, tuple)):
        if len(v) != dim:
            if what == 'size':
                raise ValueError(
                    'Input and output must have the same number of spatial dimensions, but got '
                    'input with spatial dimensions of %s and output size of %s. Please provide '
                    'input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, '
                    '...,oK) format.' % (list(input.shape[2:]), v))
            raise ValueError(
                'Input and scale_factor must have the same number of spatial dimensions, but '
                'got input with spatial dimensions of %s and scale_factor of shape %s. Please '
                'provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, '
                's2, ...,sK) format.' % (list(input.shape[2:]), v))
        return list(v)
    return [v] * dim


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate for the modes nearest, linear (3-d
    input), bilinear and bicubic (4-d), trilinear (5-d) and area (adaptive
    average pooling, 4-d), with
    PyTorch 1.13's handling of size, scale_factor and
    recompute_scale_factor."""
    if mode in ('nearest', 'area', 'nearest-exact'):
        if align_corners is not None:
            raise ValueError('align_corners option can only be set with the interpolating modes: '
                             'linear | bilinear | bicubic | trilinear')
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError('only one of size or scale_factor should be defined')
    if size is not None:
        output_size, scales = _spatial_list(size, dim, 'size', input), None
    elif scale_factor is not None:
        output_size, scales = None, _spatial_list(scale_factor, dim, 'scale_factor', input)
    else:
        raise ValueError('either size or scale_factor should be defined')
    if recompute_scale_factor and size is not None:
        raise ValueError('recompute_scale_factor is not meaningful with an explicit size.')
    if mode == 'area' and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(math.floor(float(input.shape[i + 2]) * scales[i]))
                       for i in range(dim)]
        scales = None
    if antialias and not (mode in ('bilinear', 'bicubic') and input.dim() == 4):
        raise ValueError('Anti-alias option is only supported for bilinear and bicubic modes')
    if antialias:
        raise NotImplementedError('interpolate: antialias=True is not supported by libdl')
    if mode == 'area':
        if input.dim() != 4:
            raise NotImplementedError('interpolate: mode area is supported for 4-D input only')
        from .conv import adaptive_avg_pool2d
        return adaptive_avg_pool2d(input, output_size)
    if mode not in _MODES:
        need = _NEEDS.get(mode)
        if need is not None and input.dim() in (3, 4, 5) and input.dim() != need:
            raise NotImplementedError('Got %dD input, but %s mode needs %dD input'
                                      % (input.dim(), mode, need))
        raise NotImplementedError('interpolate: mode %s is not supported by libdl' % mode)
    if mode in _NEEDS and input.dim() in (3, 4, 5) and input.dim() != _NEEDS[mode]:
        raise NotImplementedError('Got %dD input, but %s mode needs %dD input'
                                  % (input.dim(), mode, _NEEDS[mode]))
    if output_size is None:
        output_size = [int(float(input.shape[i + 2]) * scales[i]) for i in range(dim)]
    try:
        return Dl.interpolate(input, [int(s) for s in output_size],
                              None if scales is None else [float(s) for s in scales],
                              _MODES[mode], bool(align_corners))
    except GLib.Error as e:
        raise _not_supported_as(e, NotImplementedError) from None


def upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p over dim, eps), as PyTorch composes it."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:
        return out.copy_(input / denom)
    return input / denom


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of [N, C, H, W] (or [C, H, W]) with
    probability p, scaling the others by 1 / (1 - p)."""
    if p < 0.0 or p > 1.0:
        raise ValueError('dropout probability has to be between 0 and 1, but got %s' % p)
    if input.dim() not in (3, 4):
        raise RuntimeError('dropout2d: expected input of 3 or 4 dims, got %s'
                           % (tuple(input.shape),))
    if not training or p == 0.0:
        return input
    from .. import _creation
    shape = list(input.shape[:-2]) + [1, 1]
    mask = Dl.dropout(_creation.ones(shape, dtype=input.dtype), float(p), True, None)
    if inplace:
        return input.mul_(mask)
    return input * mask


class Upsample(Module):
    """torch.nn.Upsample(size=None, scale_factor=None, mode='nearest',
    align_corners=None, recompute_scale_factor=None)."""

    def __init__(self, size=None, scale_factor=None, mode='nearest', align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) \
            else (tuple(float(f) for f in scale_factor) if scale_factor else None)
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = 'scale_factor=' + repr(self.scale_factor)
        else:
            info = 'size=' + repr(self.size)
        return info + ', mode=' + self.mode


class UpsamplingNearest2d(Upsample):
    """torch.nn.UpsamplingNearest2d(size=None, scale_factor=None)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode='nearest')


class UpsamplingBilinear2d(Upsample):
    """torch.nn.UpsamplingBilinear2d(size=None, scale_factor=None)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode='bilinear', align_corners=True)


class Dropout2d(Module):
    """torch.nn.Dropout2d(p=0.5, inplace=False): zeroes whole channels."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        Dropout(p, inplace)  # PyTorch's check of p
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return dropout2d(input, self.p, self.training, self.inplace)

    extra_repr = Dropout.extra_repr
