# padding.py: the padding modules of torch.nn (ConstantPad1d/2d/3d,
# ZeroPad2d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d) and
# torch.constant_pad_nd, over F.pad (libdl's dl_pad, whose kernels and
# backward nodes, ConstantPadNdBackward0, ReflectionPad2DBackward0, ...,
# are torch's).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .modules import Module
from .resample import pad

__all__ = ['ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d', 'ZeroPad2d', 'ReflectionPad1d',
           'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d',
           'ReplicationPad3d']


def _ntuple(padding, n):
    """torch's _ntuple: an int repeated n times, an iterable as a tuple."""
    if isinstance(padding, (list, tuple)):
        return tuple(padding)
    return tuple([padding] * n)


def constant_pad_nd(input, pad_, value=0):
    """torch.constant_pad_nd(input, pad, value=0)."""
    return pad(input, pad_, 'constant', value)


class _PadNd(Module):
    _n = 2
    _mode = 'constant'

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._n)

    def forward(self, input):
        return pad(input, self.padding, self._mode)

    def extra_repr(self):
        return '{}'.format(self.padding)


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return pad(input, self.padding, 'constant', self.value)

    def extra_repr(self):
        return 'padding={}, value={}'.format(self.padding, self.value)


class ConstantPad1d(_ConstantPadNd):
    """torch.nn.ConstantPad1d(padding, value)."""
    _n = 2


class ConstantPad2d(_ConstantPadNd):
    """torch.nn.ConstantPad2d(padding, value)."""
    _n = 4


class ConstantPad3d(_ConstantPadNd):
    """torch.nn.ConstantPad3d(padding, value)."""
    _n = 6


class ZeroPad2d(ConstantPad2d):
    """torch.nn.ZeroPad2d(padding)."""

    def __init__(self, padding):
        super().__init__(padding, 0.)

    def extra_repr(self):
        return '{}'.format(self.padding)


def _pad_class(name, n, mode):
    """torch.nn.<name>(padding): pads the last n / 2 dims in @mode."""
    return type(name, (_PadNd,), {'_n': n, '_mode': mode, '__module__': __name__,
                                  '__doc__': 'torch.nn.%s(padding).' % name})


ReflectionPad1d = _pad_class('ReflectionPad1d', 2, 'reflect')
ReflectionPad2d = _pad_class('ReflectionPad2d', 4, 'reflect')
ReflectionPad3d = _pad_class('ReflectionPad3d', 6, 'reflect')
ReplicationPad1d = _pad_class('ReplicationPad1d', 2, 'replicate')
ReplicationPad2d = _pad_class('ReplicationPad2d', 4, 'replicate')
ReplicationPad3d = _pad_class('ReplicationPad3d', 6, 'replicate')
