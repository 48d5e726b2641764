# _indexing.py: indexing (x[...] and assignment through it), gather and
# scatter, masks, index_put and friends, and joining (cat, stack, split,
# chunk, flip, roll, tril, ...).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools
import numbers
import sys
import warnings

import numpy as _np

from ._creation import tensor
from ._dtype import _CPU, _size_args, int64
from ._lib import (Dl, GLib, _bool_arg, _checked, _int64_value, _int_arg, _is_tensor,
                   _method_fn, _translate, numpy_names)


def _index_error_as_runtime(fn):
    """gather/scatter: an index out of range is a RuntimeError in PyTorch,
    a dim out of range an IndexError."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GLib.Error as e:
            if 'is out of bounds for dimension' in e.message:
                raise
            raise _translate(e) from None
    return wrapper


def _to_tensor_arg(x):
    if _is_tensor(x):
        return x
    return tensor(x)


def _on_device_of(t, like):
    """t (made on the CPU from Python values) on like's device."""
    if like.device is _CPU:
        return t
    return Dl.Tensor.to_device(t, like.get_device())


def _number_tensor(value, like=None):
    """A wrapped 0-d tensor for a Python number (or a 0-d tensor of like's
    dtype, on its device)."""
    if _is_tensor(value):
        return value
    if like is not None:
        return _on_device_of(Dl.Tensor.new_scalar(float(value), like.get_dtype()), like)
    if isinstance(value, bool):
        return Dl.Tensor.new_wrapped_scalar(1.0 if value else 0.0, Dl.DType.BOOL)
    if isinstance(value, numbers.Integral):
        return Dl.Tensor.new_wrapped_scalar(_int64_value(value), Dl.DType.INT64)
    if isinstance(value, numbers.Real):
        return Dl.Tensor.new_wrapped_scalar(float(value), Dl.DType.FLOAT64)
    raise TypeError('expected a Tensor or a number, not %s' % type(value).__name__)


def _no_out(out, name):
    if out is not None:
        raise NotImplementedError('%s(out=) is not supported yet' % name)


@_index_error_as_runtime
def _t_gather(self, dim, index, *, sparse_grad=False, out=None):
    _no_out(out, 'gather')
    return Dl.Tensor.gather(self, dim, index)


@_index_error_as_runtime
def _t_scatter(self, dim, index, src=None, *, value=None, reduce=None):
    if src is None:
        src = value
    if reduce is not None:
        if _is_tensor(src):
            return Dl.Tensor.scatter_with_reduce(self, dim, index, src, reduce)
        return Dl.Tensor.scatter_value_with_reduce(self, dim, index, float(src), reduce)
    if _is_tensor(src):
        return Dl.Tensor.scatter(self, dim, index, src)
    return Dl.Tensor.scatter_value(self, dim, index, float(src))


@_index_error_as_runtime
def _t_scatter_add(self, dim, index, src):
    return Dl.Tensor.scatter_add(self, dim, index, src)


@_index_error_as_runtime
def _t_scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    if src is None:
        src = value
    if reduce is not None:
        if _is_tensor(src):
            Dl.Tensor.scatter_with_reduce_(self, dim, index, src, reduce)
        else:
            Dl.Tensor.scatter_value_with_reduce_(self, dim, index, float(src), reduce)
    elif _is_tensor(src):
        Dl.Tensor.scatter_(self, dim, index, src)
    else:
        Dl.Tensor.scatter_value_(self, dim, index, float(src))
    return self


@_index_error_as_runtime
def _t_scatter_add_(self, dim, index, src):
    Dl.Tensor.scatter_add_(self, dim, index, src)
    return self


@_index_error_as_runtime
def _t_scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    return Dl.Tensor.scatter_reduce(self, dim, index, src, reduce, bool(include_self))


@_index_error_as_runtime
def _t_scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    Dl.Tensor.scatter_reduce_(self, dim, index, src, reduce, bool(include_self))
    return self


@_checked
def _t_index_select(self, dim, index):
    return Dl.Tensor.index_select(self, dim, index)


def _bool_mask(mask, op):
    """PyTorch still takes uint8 masks (deprecated, with a warning): as
    bool masks of their nonzero entries."""
    if _is_tensor(mask) and mask.get_dtype() == Dl.DType.UINT8:
        warnings.warn('%s received a mask with dtype torch.uint8, this behavior is now '
                      'deprecated, please use a mask with dtype torch.bool instead.' % op,
                      UserWarning, stacklevel=3)
        return mask.to_dtype(Dl.DType.BOOL)
    return mask


@_checked
def _t_masked_fill(self, mask, value):
    mask = _bool_mask(mask, 'masked_fill_')
    if _is_tensor(value):
        return Dl.Tensor.masked_fill_tensor(self, mask, value)
    return Dl.Tensor.masked_fill(self, mask, float(value))


@_checked
def _t_masked_fill_(self, mask, value):
    mask = _bool_mask(mask, 'masked_fill_')
    if _is_tensor(value):
        if value.requires_grad:
            raise RuntimeError('masked_fill_: a value tensor that requires grad is not '
                               'supported in place; use masked_fill')
        value = value.item()
    Dl.Tensor.masked_fill_(self, mask, float(value))
    return self


@_checked
def _t_masked_select(self, mask):
    return Dl.Tensor.masked_select(self, _bool_mask(mask, 'masked_select'))


@_checked
def _t_nonzero(self, *, as_tuple=False):
    nz = Dl.Tensor.nonzero(self)
    if not _bool_arg(as_tuple, 'nonzero', 'as_tuple'):
        return nz
    if self.get_ndim() == 0:
        return (Dl.Tensor.nonzero(self.reshape(1)).reshape(-1),)
    return tuple(nz.select(1, d) for d in range(self.get_ndim()))


@_checked
def _t_take_along_dim(self, indices, dim=None):
    if dim is None:
        return Dl.Tensor.take_along_dim(self.reshape(-1), indices.reshape(-1), 0)
    return Dl.Tensor.take_along_dim(self, indices, dim)


@_checked
def _t_where(self, condition, y):
    return where(condition, self, y)


def _check_mask_shape(mask, shape, d):
    """torch's IndexError unless boolean index @mask matches the dims of
    @shape from @d on."""
    for j, s in enumerate(mask.get_shape()):
        if d + j >= len(shape) or s != shape[d + j]:
            raise IndexError('The shape of the mask %s at index %d does not match the '
                             'shape of the indexed tensor %s at index %d'
                             % (list(mask.get_shape()), j, list(shape), d + j))


def _index_list(indices, shape):
    """index_put's indices, masks turned into the index tensors of their
    true entries once their shape is checked against @shape's dims (the
    ones they index)."""
    out = []
    d = 0
    for i in indices:
        if i is None:
            raise NotImplementedError('index_put_: None entries are not supported; index the '
                                      'leading dims')
        i = _to_tensor_arg(i)
        if i.get_dtype() in (Dl.DType.BOOL, Dl.DType.UINT8):
            _check_mask_shape(i, shape, d)
            out.extend(_t_nonzero(i.bool() if i.get_dtype() == Dl.DType.UINT8 else i,
                                  as_tuple=True))
            d += max(i.get_ndim(), 1)
        else:
            out.append(i)
            d += 1
    return out


@_checked
def _t_index_put_(self, indices, values, accumulate=False):
    Dl.Tensor.index_put_(self, _index_list(indices, self.get_shape()),
                         _number_tensor(values, self), bool(accumulate))
    return self


@_checked
def _t_index_put(self, indices, values, accumulate=False):
    return Dl.Tensor.index_put(self, _index_list(indices, self.get_shape()),
                               _number_tensor(values, self), bool(accumulate))


_c_unbind = Dl.Tensor.unbind
_c_split = Dl.Tensor.split
_c_split_with_sizes = Dl.Tensor.split_with_sizes
_c_chunk = Dl.Tensor.chunk


@_checked
def _t_unbind(self, dim=0):
    return tuple(_c_unbind(self, dim))


@_checked
def _t_split(self, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, numbers.Integral):
        return tuple(_c_split(self, _int_arg(split_size_or_sections, 'split',
                                             'split_size_or_sections'), dim))
    return tuple(_c_split_with_sizes(self, [int(s) for s in split_size_or_sections], dim))


@_checked
def _t_chunk(self, chunks, dim=0):
    return tuple(_c_chunk(self, _int_arg(chunks, 'chunk', 'chunks'), dim))


@_checked
def _t_unsafe_split(self, split_size, dim=0):
    """Tensor.unsafe_split: split's pieces, which autograd does not take
    for views (UnsafeSplitBackward0; no _base; writable in place)."""
    return tuple(Dl.Tensor.unsafe_split(self, _int_arg(split_size, 'unsafe_split',
                                                       'split_size'), dim))


@_checked
def _t_unsafe_split_with_sizes(self, split_sizes, dim=0):
    return tuple(Dl.Tensor.unsafe_split_with_sizes(self, [int(s) for s in split_sizes], dim))


@_checked
def _t_unsafe_chunk(self, chunks, dim=0):
    """Tensor.unsafe_chunk: chunk through unsafe_split, as torch's (an
    empty dim through unsafe_split_with_sizes)."""
    chunks = _int_arg(chunks, 'unsafe_chunk', 'chunks')
    if self.dim() == 0:
        raise RuntimeError('chunk expects at least a 1-dimensional tensor')
    if chunks <= 0:
        raise RuntimeError('chunk expects `chunks` to be greater than 0, got: %d' % chunks)
    n = self.shape[dim]
    split_size = (n + chunks - 1) // chunks
    if split_size == 0 and n == 0:
        return _t_unsafe_split_with_sizes(self, [0] * chunks, dim)
    return _t_unsafe_split(self, split_size, dim)


@_checked
def _t_repeat(self, *sizes):
    return Dl.Tensor.repeat(self, _size_args(sizes, 'repeat'))


@_checked
def _t_flip(self, *dims):
    return Dl.Tensor.flip(self, _size_args(dims, 'flip'))


def _int_tuple(x):
    return [int(x)] if isinstance(x, numbers.Integral) else [int(v) for v in x]


@_checked
def _t_roll(self, shifts, dims=None):
    return Dl.Tensor.roll(self, _int_tuple(shifts), [] if dims is None else _int_tuple(dims))


@_checked
def _t_tril(self, diagonal=0):
    return Dl.Tensor.tril(self, _int_arg(diagonal, 'tril', 'diagonal'))


@_checked
def _t_triu(self, diagonal=0):
    return Dl.Tensor.triu(self, _int_arg(diagonal, 'triu', 'diagonal'))


@_checked
def _t_diagonal(self, offset=0, dim1=0, dim2=1):
    return Dl.Tensor.diagonal(self, _int_arg(offset, 'diagonal', 'offset'),
                              _int_arg(dim1, 'diagonal', 'dim1'),
                              _int_arg(dim2, 'diagonal', 'dim2'))


@_checked
def _t_diag(self, diagonal=0):
    return Dl.Tensor.diag(self, _int_arg(diagonal, 'diag', 'diagonal'))


@_checked
def _t_trace(self):
    return Dl.Tensor.trace(self)


@_checked
def _t_bincount(self, weights=None, minlength=0):
    return Dl.Tensor.bincount(self, weights, _int_arg(minlength, 'bincount', 'minlength'))


def _triangle_mask(self, diagonal, lower):
    """True where tril_ (lower) or triu_ zeroes an element."""
    if self.get_ndim() < 2:
        raise IndexError('%s_: input tensor must have at least 2 dimensions'
                         % ('tril' if lower else 'triu'))
    r, c = self.get_shape()[-2:]
    ones = Dl.ones([r, c], Dl.DType.BOOL, None)
    return _t_triu(ones, diagonal + 1) if lower else _t_tril(ones, diagonal - 1)


def _t_tril_(self, diagonal=0):
    return _t_masked_fill_(self, _triangle_mask(self, _int_arg(diagonal, 'tril_', 'diagonal'),
                                                True), 0)


def _t_triu_(self, diagonal=0):
    return _t_masked_fill_(self, _triangle_mask(self, _int_arg(diagonal, 'triu_', 'diagonal'),
                                                False), 0)


def _movedim_front(t, dim):
    nd = t.get_ndim()
    dim = dim + nd if dim < 0 else dim
    if not 0 <= dim < max(nd, 1):
        raise IndexError('Dimension out of range (expected to be in range of [%d, %d], but got '
                         '%d)' % (-max(nd, 1), max(nd, 1) - 1, dim))
    perm = [dim] + [d for d in range(nd) if d != dim]
    return t if dim == 0 or nd == 0 else t.permute(*perm), perm


def _index_along(self, dim, index, source, accumulate, name, inplace=True):
    """self with source put (or added) at index along dim: index_put on a
    view with dim moved to the front."""
    if index.get_ndim() > 1:
        raise IndexError('%s(): Index is supposed to be a vector' % name)
    if index.get_dtype() not in (Dl.DType.INT64, Dl.DType.INT32):
        raise IndexError('%s(): Expected dtype int32/int64 for index' % name)
    base = self if self.get_ndim() else self.reshape(1)
    t, perm = _movedim_front(base, dim)
    moved = perm != list(range(len(perm)))
    if _is_tensor(source) and source.get_ndim() > 0 and moved:
        source = source.permute(*perm)
    source = _number_tensor(source, self)
    if inplace:
        Dl.Tensor.index_put_(t, [index.reshape(-1)], source, accumulate)
        return self
    res = Dl.Tensor.index_put(t, [index.reshape(-1)], source, accumulate)
    if moved:
        inv = [0] * len(perm)
        for k, p in enumerate(perm):
            inv[p] = k
        res = res.permute(*inv)
    return res.reshape(self.shape) if self.get_ndim() == 0 else res


def _check_index_source(self, dim, index, source, name):
    """torch's checks of index_add's and index_copy's source, which the
    index_put they are made of would broadcast: a tensor, of self's
    dimensionality unless one of them is a scalar, with index's length on
    dim and self's sizes on the other dims."""
    if not _is_tensor(source):
        raise TypeError("%s(): argument 'source' (position 3) must be Tensor, not %s"
                        % (name, type(source).__name__))
    # the copy's errors are IndexErrors in torch, the add's RuntimeErrors
    error = IndexError if name.startswith('index_copy') else RuntimeError
    nd, ns = self.get_ndim(), source.get_ndim()
    if nd == 0 or ns == 0:
        return
    if nd != ns:
        raise error('%s(): When source and destination are not scalars, their dimensionality '
                    'must match. Source dimensionality (%d), destination dimensionality (%d)'
                    % (name, ns, nd))
    if not isinstance(dim, int) or not -nd <= dim < nd:
        return
    dim %= nd
    if index.numel() > 0:
        # torch takes no negative index here (index_put, below, would)
        lo, hi = int(index.min()), int(index.max())
        bad = lo if lo < 0 else hi if hi >= self.shape[dim] else None
        if bad is not None:
            raise IndexError('%s(): index %d is out of bounds for dimension %d with size %d'
                             % (name, bad, dim, self.shape[dim]))
    if index.numel() != source.shape[dim]:
        raise error('%s(): Number of indices (%d) should be equal to source.size(dim) (%d)'
                    % (name, index.numel(), source.shape[dim]))
    for d in range(nd):
        if d != dim and source.shape[d] != self.shape[d]:
            raise RuntimeError('%s(): Source/destination tensor must have same slice shapes. '
                               'Destination slice shape: %d at dimension %d and source slice '
                               'shape: %d at dimension %d.'
                               % (name, self.shape[d], d, source.shape[d], d))


@_checked
def _t_index_add_(self, dim, index, source, *, alpha=1):
    _check_index_source(self, dim, index, source, 'index_add_')
    if alpha != 1:
        source = source * alpha
    return _index_along(self, dim, index, source, True, 'index_add_')


@_checked
def _t_index_copy_(self, dim, index, source):
    _check_index_source(self, dim, index, source, 'index_copy_')
    return _index_along(self, dim, index, source, False, 'index_copy_')


@_checked
def _t_index_fill_(self, dim, index, value):
    if _is_tensor(value):
        if value.get_ndim() != 0:
            raise RuntimeError('index_fill_ only supports a 0-dimensional value tensor, but got '
                               'tensor with %d dimension(s).' % value.get_ndim())
        value = value.item()
    return _index_along(self, dim, index, value, False, 'index_fill_')


@_checked
def _t_index_add(self, dim, index, source, *, alpha=1):
    _check_index_source(self, dim, index, source, 'index_add')
    if alpha != 1:
        source = source * alpha
    return _index_along(self, dim, index, source, True, 'index_add', inplace=False)


@_checked
def _t_index_copy(self, dim, index, source):
    _check_index_source(self, dim, index, source, 'index_copy')
    return _index_along(self, dim, index, source, False, 'index_copy', inplace=False)


@_checked
def _t_index_fill(self, dim, index, value):
    if _is_tensor(value):
        if value.get_ndim() != 0:
            raise RuntimeError('index_fill_ only supports a 0-dimensional value tensor, but got '
                               'tensor with %d dimension(s).' % value.get_ndim())
        value = value.item()
    return _index_along(self, dim, index, value, False, 'index_fill', inplace=False)


def _broadcast_shape(shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for k, v in enumerate(s):
            o = nd - len(s) + k
            if out[o] == 1:
                out[o] = v
            elif v != 1 and v != out[o]:
                raise IndexError('shape mismatch: indexing tensors could not be broadcast '
                                 'together with shapes %s' % ' '.join(str(list(x)) for x in shapes))
    return out


def _split_index(self, idx):
    """Applies the basic part of an index (ints, slices, None, Ellipsis) as
    views, as PyTorch does, and returns (view, [(dim, int64 index)]) for
    the advanced part, each index a dim of the view."""
    if self.get_ndim() == 0 and type(idx) is not tuple:
        # PyTorch's fast paths for a lone int or slice (applySelect,
        # applySlice) check these before counting indices: t[0] on a 0-dim
        # t points to .item(), as loss.data[0] in pre-0.4 scripts needs
        if isinstance(idx, numbers.Integral) and not isinstance(idx, bool):
            if idx == 0:
                raise IndexError('invalid index of a 0-dim tensor. Use `tensor.item()` in '
                                 'Python or `tensor.item<T>()` in C++ to convert a 0-dim '
                                 'tensor to a number')
            raise IndexError('index %d is out of bounds for dimension 0 with size 0' % idx)
        if isinstance(idx, slice):
            raise IndexError('slice() cannot be applied to a 0-dim tensor.')
    if type(idx) is not tuple:
        idx = (idx,)
    items = []
    for i in idx:
        if isinstance(i, (list, _np.ndarray)) or (isinstance(i, tuple)):
            i = _on_device_of(tensor(i), self)
            if i.get_ndim() == 1 and i.get_shape()[0] == 0:
                i = i.long()
        if _is_tensor(i) and i.get_dtype() == Dl.DType.UINT8:
            i = i.bool()
        items.append(i)

    def is_bool(i):
        # a Python bool, or a 0-dim bool tensor, which PyTorch treats alike
        return isinstance(i, bool) or \
            (_is_tensor(i) and i.get_ndim() == 0 and i.get_dtype() == Dl.DType.BOOL)

    def width(i):
        if i is None or i is Ellipsis or is_bool(i):
            return 0
        if _is_tensor(i) and i.get_dtype() == Dl.DType.BOOL:
            return max(i.get_ndim(), 1)
        return 1
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError('an index can only have a single ellipsis (\'...\')')
    ndim = self.get_ndim()
    n_real = sum(width(i) for i in items)
    if n_real > ndim:
        raise IndexError('too many indices for tensor of dimension %d' % ndim)
    t, d, adv = self, 0, []
    for i in items:
        if i is None:
            t = t.unsqueeze(d)
            d += 1
        elif is_bool(i):
            # a new dim of size 1, indexed by [0] (True) or [] (False):
            # PyTorch's boolToIndexingTensor
            t = t.unsqueeze(d)
            adv.append((d, _on_device_of(tensor([0] if bool(i) else [], dtype=int64), self)))
            d += 1
        elif i is Ellipsis:
            d += ndim - n_real
        elif isinstance(i, slice):
            step = 1 if i.step is None else int(i.step)
            if step <= 0:
                raise ValueError('step must be greater than zero')
            start = 0 if i.start is None else int(i.start)
            stop = sys.maxsize if i.stop is None else int(i.stop)
            t = Dl.Tensor.slice(t, d, start, stop, step)
            d += 1
        elif _is_tensor(i) and i.get_dtype() == Dl.DType.BOOL:
            if i.get_ndim() == 0:
                t = t.unsqueeze(d)
                adv.append((d, tensor([0] if i.item() else [], dtype=int64)))
            else:
                # as in PyTorch, a mask moves the basic indices that follow
                # it on by one dim only; it expands over its dims below
                adv.append((d, i))
            d += 1
        elif _is_tensor(i):
            if i.get_dtype() not in (Dl.DType.INT64, Dl.DType.UINT8, Dl.DType.BOOL):
                raise IndexError('tensors used as indices must be long, byte or bool tensors')
            if i.get_ndim() == 0:
                t = Dl.Tensor.select(t, d, int(i.item()))
            else:
                adv.append((d, i))
                d += 1
        elif isinstance(i, numbers.Integral) and not isinstance(i, bool):
            t = Dl.Tensor.select(t, d, int(i))
        else:
            raise IndexError('only integers, slices (`:`), ellipsis (`...`), None and long or '
                             'byte Variables are valid indices (got %s)' % type(i).__name__)
    out, shift = [], 0
    shape = t.get_shape()
    for d, i in adv:
        d += shift
        if i.get_dtype() != Dl.DType.BOOL:
            out.append((d, i))
            continue
        k = i.get_ndim()
        _check_mask_shape(i, shape, d)
        for j, col in enumerate(_t_nonzero(i, as_tuple=True)):
            out.append((d + j, col))
        shift += k - 1
    adv = out
    return t, adv


def _advanced_layout(t, adv):
    """(permuted view with the indexed dims first, index tensors, the
    broadcast index shape, the permutation from B-first results to
    PyTorch's layout or None)."""
    dims = [d for d, _ in adv]
    rest = [d for d in range(t.get_ndim()) if d not in dims]
    perm = dims + rest
    tp = t if perm == list(range(t.get_ndim())) else t.permute(*perm)
    bshape = _broadcast_shape([list(i.get_shape()) for _, i in adv])
    nb = len(bshape)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    back = None
    if adjacent and dims[0] > 0:
        first = dims[0]
        back = [nb + k for k in range(first)] + list(range(nb)) + \
            [nb + k for k in range(first, len(rest))]
    return tp, [i for _, i in adv], bshape, back


def _getitem(self, idx):
    try:
        t, adv = _split_index(self, idx)
        if not adv:
            # t[...] and t[()] are a new tensor over the same elements, as
            # in PyTorch (its AliasBackward0), not t itself
            return Dl.Tensor.alias(t) if t is self else t
        tp, indices, _, back = _advanced_layout(t, adv)
        res = Dl.Tensor.index(tp, indices)
        return res if back is None else res.permute(*back)
    except GLib.Error as e:
        raise _translate(e) from None


def _setitem(self, idx, value):
    try:
        t, adv = _split_index(self, idx)
        if not adv:
            if _is_tensor(value):
                t.copy_(value)
            elif isinstance(value, (list, tuple, _np.ndarray)):
                t.copy_(_on_device_of(tensor(value, dtype=t.dtype), t))
            else:
                t.fill_(value)
            return
        if isinstance(value, numbers.Integral) and \
                not -0x8000000000000000 <= value <= 0x7fffffffffffffff:
            raise RuntimeError('Overflow when unpacking long')
        tp, indices, bshape, back = _advanced_layout(t, adv)
        if not _is_tensor(value):
            if isinstance(value, (list, tuple, _np.ndarray)):
                value = _on_device_of(tensor(value, dtype=t.dtype), t)
            else:
                value = _number_tensor(value, t)
        if back is not None:
            rest = [s for k, s in enumerate(t.get_shape()) if k not in [d for d, _ in adv]]
            first = adv[0][0]
            result_shape = rest[:first] + bshape + rest[first:]
            try:
                value = value.expand(*result_shape)
            except GLib.Error:
                raise RuntimeError('shape mismatch: value tensor of shape %s cannot be '
                                   'broadcast to indexing result of shape %s'
                                   % (list(value.shape), result_shape)) from None
            inv = [0] * len(back)
            for k, b in enumerate(back):
                inv[b] = k
            value = value.permute(*inv)
        Dl.Tensor.index_put_(tp, indices, value, False)
    except GLib.Error as e:
        raise _translate(e) from None


@_checked
def _t_take(self, index):
    if index.get_dtype() != Dl.DType.INT64:
        raise RuntimeError('take(): Expected a long tensor for index, but got %s'
                           % index.dtype)
    return Dl.Tensor.index(self.reshape(-1), [index])


def _t_argwhere(self):
    return _t_nonzero(self)


def _t_fliplr(self):
    return _t_flip(self, 1)


def _t_flipud(self):
    return _t_flip(self, 0)


gather = _method_fn(_t_gather, 'gather')
scatter = _method_fn(_t_scatter, 'scatter')
scatter_add = _method_fn(_t_scatter_add, 'scatter_add')
index_select = _method_fn(_t_index_select, 'index_select')
masked_fill = _method_fn(_t_masked_fill, 'masked_fill')
masked_select = _method_fn(_t_masked_select, 'masked_select')
take_along_dim = _method_fn(_t_take_along_dim, 'take_along_dim')
unbind = _method_fn(_t_unbind, 'unbind')
split = _method_fn(_t_split, 'split')
chunk = _method_fn(_t_chunk, 'chunk')
unsafe_split = _method_fn(_t_unsafe_split, 'unsafe_split')
unsafe_split_with_sizes = _method_fn(_t_unsafe_split_with_sizes, 'unsafe_split_with_sizes')
unsafe_chunk = _method_fn(_t_unsafe_chunk, 'unsafe_chunk')
flip = _method_fn(_t_flip, 'flip')
fliplr = _method_fn(_t_fliplr, 'fliplr')
flipud = _method_fn(_t_flipud, 'flipud')
roll = _method_fn(_t_roll, 'roll')
tril = _method_fn(_t_tril, 'tril')
triu = _method_fn(_t_triu, 'triu')
diagonal = _method_fn(_t_diagonal, 'diagonal')
diag = _method_fn(_t_diag, 'diag')
trace = _method_fn(_t_trace, 'trace')
bincount = _method_fn(_t_bincount, 'bincount')
index_put = _method_fn(_t_index_put, 'index_put')
index_add = _method_fn(_t_index_add, 'index_add')
index_copy = _method_fn(_t_index_copy, 'index_copy')
index_fill = _method_fn(_t_index_fill, 'index_fill')
take = _method_fn(_t_take, 'take')
argwhere = _method_fn(_t_argwhere, 'argwhere')


@numpy_names
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    _no_out(out, 'scatter_reduce')
    return _t_scatter_reduce(input, dim, index, src, reduce, include_self=include_self)


def nonzero(input, *, as_tuple=False, out=None):
    _no_out(out, 'nonzero')
    return _t_nonzero(input, as_tuple=as_tuple)


def where(condition, input=None, other=None):
    if input is None and other is None:
        return _t_nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError('where() takes 1 or 3 arguments')
    try:
        return Dl.where(_bool_mask(condition, 'where'), _number_tensor(input),
                        _number_tensor(other))
    except GLib.Error as e:
        raise _translate(e) from None


def _tensor_seq(tensors, name):
    if _is_tensor(tensors) or not isinstance(tensors, (list, tuple)):
        raise TypeError('%s(): argument \'tensors\' must be tuple of Tensors, not %s'
                        % (name, type(tensors).__name__))
    for t in tensors:
        if not _is_tensor(t):
            raise TypeError('expected Tensor as element in argument \'tensors\' of %s(), but '
                            'got %s' % (name, type(t).__name__))
    return list(tensors)


@numpy_names
def cat(tensors, dim=0, *, out=None):
    _no_out(out, 'cat')
    try:
        return Dl.cat(_tensor_seq(tensors, 'cat'), dim)
    except GLib.Error as e:
        raise _translate(e) from None


concat = cat
concatenate = cat


@numpy_names
def stack(tensors, dim=0, *, out=None):
    _no_out(out, 'stack')
    try:
        return Dl.stack(_tensor_seq(tensors, 'stack'), dim)
    except GLib.Error as e:
        raise _translate(e) from None


def hstack(tensors):
    # as torch: 0-d tensors as vectors, then along dim 0 if the first is a
    # vector (the others may be empty vectors, which cat skips), else dim 1
    tensors = [t.reshape(1) if t.get_ndim() == 0 else t for t in _tensor_seq(tensors, 'hstack')]
    return cat(tensors, 0 if not tensors or tensors[0].get_ndim() == 1 else 1)


def vstack(tensors):
    tensors = [t.reshape(1, -1) if t.get_ndim() < 2 else t
               for t in _tensor_seq(tensors, 'vstack')]
    return cat(tensors, 0)
