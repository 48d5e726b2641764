# _shape.py: the view and shape methods of Tensor over the C ops of
# libdl/ops/dl-ops-shape.c and dl-ops-rearrange.c (movedim, swapaxes,
# in-place views, tile, repeat_interleave, tensor_split, rot90, diff, kron,
# ...), with torch's argument forms, and their torch.* functions.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numbers

from ._creation import tensor
from ._dtype import _size_args
from ._lib import Dl, _checked, _int_arg, _is_tensor, _method_fn


def _dim_list(dims, fname, argname):
    if isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        return [int(dims)]
    if isinstance(dims, (tuple, list)):
        return [_int_arg(d, fname, argname) for d in dims]
    raise TypeError("%s(): argument '%s' must be tuple of ints, not %s"
                    % (fname, argname, type(dims).__name__))


def _t_broadcast_to(self, size):
    return self.expand(size)


def _t_ravel(self):
    return self.reshape(-1)


@_checked
def _t_movedim(self, source, destination):
    return Dl.Tensor.movedim(self, _dim_list(source, 'movedim', 'source'),
                             _dim_list(destination, 'movedim', 'destination'))


@_checked
def _t_swapaxes(self, axis0, axis1):
    return Dl.Tensor.transpose(self, _int_arg(axis0, 'swapaxes', 'axis0'),
                               _int_arg(axis1, 'swapaxes', 'axis1'))


@_checked
def _t_swapdims(self, dim0, dim1):
    return Dl.Tensor.transpose(self, _int_arg(dim0, 'swapdims', 'dim0'),
                               _int_arg(dim1, 'swapdims', 'dim1'))


@_checked
def _t_transpose_(self, dim0, dim1):
    return Dl.Tensor.transpose_(self, _int_arg(dim0, 'transpose_', 'dim0'),
                                _int_arg(dim1, 'transpose_', 'dim1'))


@_checked
def _t_swapaxes_(self, axis0, axis1):
    return _t_transpose_(self, axis0, axis1)


@_checked
def _t_swapdims_(self, dim0, dim1):
    return _t_transpose_(self, dim0, dim1)


@_checked
def _t_t_(self):
    return Dl.Tensor.t_(self)


@_checked
def _t_unsqueeze_(self, dim):
    return Dl.Tensor.unsqueeze_(self, _int_arg(dim, 'unsqueeze_', 'dim'))


@_checked
def _t_squeeze_(self, dim=None):
    if dim is not None:
        return Dl.Tensor.squeeze_dim_(self, _int_arg(dim, 'squeeze_', 'dim'))
    ones = [d for d, s in enumerate(self.get_shape()) if s == 1]
    if not ones:
        # torch bumps the version even when nothing changes
        return Dl.Tensor.unsqueeze_(self, 0).squeeze_dim_(0)
    for d in reversed(ones):
        Dl.Tensor.squeeze_dim_(self, d)
    return self


@_checked
def _t_tile(self, *dims):
    return Dl.Tensor.tile(self, _size_args(dims, 'tile'))


def _repeats_tensor(repeats, fname):
    if _is_tensor(repeats):
        return repeats
    if isinstance(repeats, numbers.Integral) and not isinstance(repeats, bool):
        return tensor(int(repeats))
    raise TypeError("%s(): argument 'repeats' must be Tensor or int, not %s"
                    % (fname, type(repeats).__name__))


@_checked
def _t_repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
    if repeats is None:
        # torch.repeat_interleave(repeats): each index repeated its count
        counts = self
        if counts.get_ndim() > 1:
            raise RuntimeError('repeat_interleave: repeats must be 0-dim or 1-dim tensor')
        counts = counts.reshape(-1)
        src = Dl.arange(0, counts.get_shape()[0], 1, Dl.DType.INT64, None)
        out = Dl.Tensor.repeat_interleave(src, counts, 0)
    else:
        src = self.reshape(-1) if dim is None else self
        d = 0 if dim is None else _int_arg(dim, 'repeat_interleave', 'dim')
        out = Dl.Tensor.repeat_interleave(src, _repeats_tensor(repeats, 'repeat_interleave'), d)
    if output_size is not None:
        n = out.get_shape()[0 if dim is None else dim]
        if n != output_size:
            raise RuntimeError('repeat_interleave: allocated size does not match required size '
                               '(output_size=%d, but the repeats add up to %d)'
                               % (output_size, n))
    return out


@_checked
def _t_tensor_split(self, indices_or_sections, dim=0):
    dim = _int_arg(dim, 'tensor_split', 'dim')
    ios = indices_or_sections
    if _is_tensor(ios):
        if ios.is_floating_point() or ios.get_ndim() > 1:
            raise RuntimeError('tensor_split expected tensor_indices_or_sections to have integer '
                               'dtype and be 0-D or 1-D, but got %s of %d dims'
                               % (ios.dtype, ios.get_ndim()))
        ios = int(ios.item()) if ios.get_ndim() == 0 else [int(v) for v in ios.tolist()]
    if isinstance(ios, numbers.Integral) and not isinstance(ios, bool):
        sections = int(ios)
        if sections <= 0:
            raise RuntimeError('number of sections must be larger than 0, got %d' % sections)
        if self.get_ndim() == 0:
            raise RuntimeError('tensor_split expected at least a 1-dimensional tensor, but got '
                               'a tensor with 0 dims')
        n = self.size(dim)
        small, extra = divmod(n, sections)
        indices, at = [], 0
        for i in range(sections - 1):
            at += small + (1 if i < extra else 0)
            indices.append(at)
        return tuple(Dl.Tensor.tensor_split(self, indices, dim))
    return tuple(Dl.Tensor.tensor_split(self, _dim_list(ios, 'tensor_split', 'indices'), dim))


def _split_at(self, ios, dim, name, min_dims):
    if self.get_ndim() < min_dims:
        raise RuntimeError('torch.%s requires a tensor with at least %d dimension, but got a '
                           'tensor with %d dimensions!' % (name, min_dims, self.get_ndim()))
    if isinstance(ios, numbers.Integral) and not isinstance(ios, bool):
        size = self.size(dim)
        if ios == 0 or size % ios:
            raise RuntimeError('torch.%s attempted to split along dimension %d, but the size of '
                               'the dimension %d is not divisible by the split_size %d!'
                               % (name, dim, size, ios))
    return _t_tensor_split(self, ios, dim)


def _t_hsplit(self, indices_or_sections):
    return _split_at(self, indices_or_sections, 0 if self.get_ndim() == 1 else 1, 'hsplit', 1)


def _t_vsplit(self, indices_or_sections):
    return _split_at(self, indices_or_sections, 0, 'vsplit', 2)


def _t_dsplit(self, indices_or_sections):
    return _split_at(self, indices_or_sections, 2, 'dsplit', 3)


@_checked
def _t_rot90(self, k=1, dims=(0, 1)):
    dims = _dim_list(dims, 'rot90', 'dims')
    if len(dims) != 2:
        raise RuntimeError('expected total rotation dims == 2, but got dims = %d' % len(dims))
    return Dl.Tensor.rot90(self, _int_arg(k, 'rot90', 'k'), dims[0], dims[1])


@_checked
def _t_diag_embed(self, offset=0, dim1=-2, dim2=-1):
    return Dl.Tensor.diag_embed(self, _int_arg(offset, 'diag_embed', 'offset'),
                                _int_arg(dim1, 'diag_embed', 'dim1'),
                                _int_arg(dim2, 'diag_embed', 'dim2'))


@_checked
def _t_diagflat(self, offset=0):
    return Dl.Tensor.diag(self.reshape(-1), _int_arg(offset, 'diagflat', 'offset'))


@_checked
def _t_diff(self, n=1, dim=-1, prepend=None, append=None):
    for name, t in (('prepend', prepend), ('append', append)):
        if t is not None and not _is_tensor(t):
            raise TypeError("diff(): argument '%s' must be Tensor, not %s"
                            % (name, type(t).__name__))
    n, dim = _int_arg(n, 'diff', 'n'), _int_arg(dim, 'diff', 'dim')
    nd = self.get_ndim()
    if n < 0 and prepend is None and append is None and -nd <= dim < nd:
        # torch 1.13 hands a negative order's input back as it is
        return self
    return Dl.Tensor.diff(self, n, dim, prepend, append)


@_checked
def _t_kron(self, other):
    if not _is_tensor(other):
        raise TypeError("kron(): argument 'other' (position 2) must be Tensor, not %s"
                        % type(other).__name__)
    return Dl.Tensor.kron(self, other)


@_checked
def _t_unfold(self, dimension, size, step):
    return Dl.Tensor.unfold(self, _int_arg(dimension, 'unfold', 'dimension'),
                            _int_arg(size, 'unfold', 'size'), _int_arg(step, 'unfold', 'step'))


# Tensor methods, set on Tensor by _tensor.py
METHODS = {
    'broadcast_to': _t_broadcast_to, 'ravel': _t_ravel, 'movedim': _t_movedim,
    'moveaxis': _t_movedim, 'swapaxes': _t_swapaxes, 'swapdims': _t_swapdims,
    'swapaxes_': _t_swapaxes_, 'swapdims_': _t_swapdims_, 'transpose_': _t_transpose_,
    't_': _t_t_, 'unsqueeze_': _t_unsqueeze_, 'squeeze_': _t_squeeze_, 'tile': _t_tile,
    'repeat_interleave': _t_repeat_interleave, 'tensor_split': _t_tensor_split,
    'hsplit': _t_hsplit, 'vsplit': _t_vsplit, 'dsplit': _t_dsplit, 'rot90': _t_rot90,
    'diag_embed': _t_diag_embed, 'diagflat': _t_diagflat, 'diff': _t_diff, 'kron': _t_kron,
    'unfold': _t_unfold,
}

# the torch.* functions of those (not of the in-place ones, nor unfold,
# which torch has only as methods)
FUNCTIONS = {name: _method_fn(fn, name) for name, fn in METHODS.items()
             if not name.endswith('_') and name != 'unfold'}
