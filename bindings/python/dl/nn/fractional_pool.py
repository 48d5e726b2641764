# fractional_pool.py: fractional max pooling for dl.nn.functional
# (fractional_max_pool2d/3d and their _with_indices forms, libdl's
# dl_fractional_max_pool2d/3d) and dl.nn (FractionalMaxPool2d/3d, Python
# modules over them, as torch's).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import Dl, GLib, _translate
from .modules import Module

__all__ = ['fractional_max_pool2d', 'fractional_max_pool3d',
           'fractional_max_pool2d_with_indices', 'fractional_max_pool3d_with_indices',
           'FractionalMaxPool2d', 'FractionalMaxPool3d']


def _ntuple(v, n):
    if isinstance(v, (tuple, list)):
        return list(v) if len(v) != 1 else list(v) * n
    return [v] * n


def _fractional(input, n, kernel_size, output_size, output_ratio, _random_samples):
    op = 'fractional_max_pool%dd' % n
    if output_size is None and output_ratio is None:
        raise ValueError('%s requires specifying either an output_size or an output_ratio' % op)
    if output_size is None:
        ratio = _ntuple(output_ratio, n)
        output_size = [int(input.size(d - n) * ratio[d]) for d in range(n)]
    kernel = _ntuple(kernel_size, n)
    size = _ntuple(output_size, n)
    if len(kernel) != n or len(size) != n:
        raise RuntimeError('%s: kernel_size and output_size must either be a single int, or a '
                           'tuple of %d ints' % (op, n))
    if _random_samples is None:
        # torch reads the channels' dim first: an IndexError for too few dims
        input.size(-n - 1)
    fn = Dl.fractional_max_pool2d if n == 2 else Dl.fractional_max_pool3d
    try:
        return fn(input, [int(k) for k in kernel], [int(s) for s in size], _random_samples)
    except GLib.Error as e:
        raise _translate(e) from None


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """torch.nn.functional.fractional_max_pool2d_with_indices: (output,
    indices)."""
    return _fractional(input, 2, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """torch.nn.functional.fractional_max_pool2d: windows of kernel_size at
    pseudo-random increasing positions (from _random_samples [N, C, 2] in
    [0, 1), drawn when None), output_size of them per dim (or
    output_ratio of the input's size), each giving its maximum."""
    out, idx = _fractional(input, 2, kernel_size, output_size, output_ratio, _random_samples)
    return (out, idx) if return_indices else out


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """torch.nn.functional.fractional_max_pool3d_with_indices: (output,
    indices)."""
    return _fractional(input, 3, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """torch.nn.functional.fractional_max_pool3d: fractional_max_pool2d over
    volumes (_random_samples [N, C, 3])."""
    out, idx = _fractional(input, 3, kernel_size, output_size, output_ratio, _random_samples)
    return (out, idx) if return_indices else out


class _FractionalMaxPool(Module):
    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n, name = self._n, type(self).__name__
        self.kernel_size = tuple(_ntuple(kernel_size, n))
        self.return_indices = return_indices
        self.register_buffer('_random_samples', _random_samples)
        self.output_size = tuple(_ntuple(output_size, n)) if output_size is not None else None
        self.output_ratio = tuple(_ntuple(output_ratio, n)) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError('%s requires specifying either an output size, or a pooling ratio'
                             % name)
        if output_size is not None and output_ratio is not None:
            raise ValueError('only one of output_size and output_ratio may be specified')
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError('output_ratio must be between 0 and 1 (got {})'.format(output_ratio))

    def forward(self, input):
        fn = fractional_max_pool2d if self._n == 2 else fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """torch.nn.FractionalMaxPool2d(kernel_size, output_size=None,
    output_ratio=None, return_indices=False, _random_samples=None)."""
    _n = 2


class FractionalMaxPool3d(_FractionalMaxPool):
    """torch.nn.FractionalMaxPool3d(kernel_size, output_size=None,
    output_ratio=None, return_indices=False, _random_samples=None)."""
    _n = 3
