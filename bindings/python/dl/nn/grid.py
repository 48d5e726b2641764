# grid.py: affine_grid and grid_sample for dl.nn.functional, the sampling
# of a spatial transformer. Written over libdl's differentiable ops
# (gather, floor, clamp, the arithmetic), as one vectorised pass per
# corner: the input's gradient comes from gather's (a scatter-add), the
# grid's from the interpolation weights, as torch's kernels compute them.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

from .._dtype import int64
from .._lib import _is_tensor

__all__ = ['affine_grid', 'grid_sample']

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if "
                  "the old behavior is desired. See the documentation of grid_sample for "
                  "details.")


def _align(align_corners):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        return False
    return bool(align_corners)


def _base_coords(n, align_corners, like):
    """the n sample positions along one dim in [-1, 1]: the pixel centres
    (align_corners=False) or the corner pixels' centres at -1 and 1"""
    from .._creation import linspace
    if n <= 1:
        return linspace(-1, 1, n, dtype=like.dtype) * 0
    c = linspace(-1, 1, n, dtype=like.dtype)
    return c if align_corners else c * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """torch.nn.functional.affine_grid(theta, size, align_corners=None):
    the sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) of the affine maps
    theta [N, 2, 3] (or [N, 3, 4])."""
    from .._creation import ones
    from .._indexing import stack
    align = _align(align_corners)
    if not _is_tensor(theta) or not theta.is_floating_point():
        raise ValueError("Expected theta to have floating point type, but got %s"
                         % getattr(theta, 'dtype', type(theta).__name__))
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             "%s. Got %s." % (list(size), list(theta.shape)))
        spatial = size[2:]
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             "%s. Got %s." % (list(size), list(theta.shape)))
        spatial = size[2:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  "affine transforms, respectively. Got size %s."
                                  % (list(size),))
    if theta.shape[0] != size[0]:
        raise ValueError("Expected theta to have the batch size %d of size, got %d"
                         % (size[0], theta.shape[0]))
    if min(size) <= 0:
        raise ValueError("Expected non-zero, positive output size. Got %s" % (list(size),))
    nd = len(spatial)
    # coordinates x (the last dim) first, as torch orders the grid
    axes = [_base_coords(n, align, theta) for n in reversed(spatial)]
    parts = []
    for i, c in enumerate(axes):
        shape = [1] * nd
        shape[nd - 1 - i] = c.shape[0]
        parts.append(c.reshape(shape).expand(*spatial))
    parts.append(ones(*spatial, dtype=theta.dtype))
    base = stack(parts, -1).reshape(1, -1, nd + 1)
    grid = base.expand(size[0], base.shape[1], nd + 1).bmm(theta.transpose(1, 2))
    return grid.reshape(size[0], *spatial, nd)


def _unnormalize(g, n, align):
    return (g + 1) * ((n - 1) / 2) if align else ((g + 1) * n - 1) / 2


def _reflect(x, twice_low, twice_high):
    """x reflected into [twice_low / 2, twice_high / 2], as torch's
    reflect_coordinates"""
    if twice_low == twice_high:
        return x * 0
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = (x - lo).abs()
    extra = x.fmod(span)
    flips = (x / span).floor()
    even = flips.fmod(2) == 0
    return (extra + lo).where(even, span - extra + lo)


def _source(g, n, padding_mode, align):
    x = _unnormalize(g, n, align)
    if padding_mode == 'border':
        x = x.clamp(0, n - 1)
    elif padding_mode == 'reflection':
        x = _reflect(x, 0, 2 * (n - 1)) if align else _reflect(x, -1, 2 * n - 1)
        x = x.clamp(0, n - 1)
    return x


def grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None):
    """torch.nn.functional.grid_sample for 4-D input [N, C, H, W] and grid
    [N, Ho, Wo, 2] (x, y in [-1, 1]): modes 'bilinear' and 'nearest',
    padding 'zeros', 'border' and 'reflection'."""
    if mode not in ('bilinear', 'nearest', 'bicubic'):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         "'nearest' or 'bicubic', but got: '%s'" % mode)
    if padding_mode not in ('zeros', 'border', 'reflection'):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         "'border', or 'reflection', but got: '%s'" % padding_mode)
    align = _align(align_corners)
    if input.dim() != 4 or grid.dim() != 4:
        if input.dim() == 5:
            raise NotImplementedError("grid_sample: libdl samples 4-D inputs only (2-D "
                                      "images); 5-D volumes are not supported")
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number "
                           "of dimensions, but got input with sizes %s and grid with sizes %s"
                           % (list(input.shape), list(grid.shape)))
    if mode == 'bicubic':
        raise NotImplementedError("grid_sample: mode 'bicubic' is not supported by libdl "
                                  "(bilinear and nearest are)")
    n, c, h, w = input.shape
    if grid.shape[0] != n or grid.shape[3] != 2:
        raise RuntimeError("grid_sampler(): expected grid to have size 2 in last dimension "
                           "and the input's batch size, but got grid with sizes %s"
                           % (list(grid.shape),))
    if input.dtype != grid.dtype:
        raise RuntimeError("grid_sampler(): expected input and grid to have same dtype, but "
                           "input has %s and grid has %s" % (input.dtype, grid.dtype))
    ho, wo = grid.shape[1], grid.shape[2]
    x = _source(grid[..., 0], w, padding_mode, align)
    y = _source(grid[..., 1], h, padding_mode, align)
    flat = input.reshape(n, c, h * w)

    def tap(xi, yi):
        """input at integer positions (xi, yi) [N, Ho, Wo], 0 outside"""
        inside = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1)
        xl, yl = xi.to(int64).clamp(0, w - 1), yi.to(int64).clamp(0, h - 1)
        idx = (yl * w + xl).reshape(n, 1, ho * wo).expand(n, c, ho * wo)
        v = flat.gather(2, idx).reshape(n, c, ho, wo)
        return v * inside.unsqueeze(1).to(input.dtype)

    if mode == 'nearest':
        return tap(x.round(), y.round())
    x0 = x.floor()
    y0 = y.floor()
    wx1 = x - x0
    wy1 = y - y0
    wx0 = 1 - wx1
    wy0 = 1 - wy1
    x0d, y0d = x0.detach(), y0.detach()
    out = tap(x0d, y0d) * (wx0 * wy0).unsqueeze(1)
    out = out + tap(x0d + 1, y0d) * (wx1 * wy0).unsqueeze(1)
    out = out + tap(x0d, y0d + 1) * (wx0 * wy1).unsqueeze(1)
    return out + tap(x0d + 1, y0d + 1) * (wx1 * wy1).unsqueeze(1)
