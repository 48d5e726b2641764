# _tensor_more.py: the rest of torch's everyday tensor API: the in-place
# forms that libdl writes in C (addmm_, addmv_, addbmm_, baddbmm_, addr_,
# lerp_, nan_to_num_, logical_*_, cumsum_, cumprod_), the torch.<op>_
# functions over the Tensor methods, and ops torch itself writes over other
# ops (quantile, masked_scatter, put_, index_reduce, sum_to_size, the
# scatter forms of select/slice/diagonal, the window functions, trapezoid,
# vander, combinations, tril_indices, ...), here as compositions of
# libdl's differentiable ops, so gradients come from those ops. Argument
# checks and messages follow torch 1.13.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import itertools
import math
import numbers
import warnings

from ._creation import arange, tensor, zeros
from ._dtype import _BOOL, float32, float64, get_default_dtype, int64, set_default_dtype
from ._indexing import stack
from ._lib import Dl, _checked, _is_tensor


def _need_tensor(v, name, arg):
    if not _is_tensor(v):
        raise TypeError("%s(): argument '%s' (position 1) must be Tensor, not %s"
                        % (name, arg, type(v).__name__))
    return v


# ---- in-place forms in C ---------------------------------------------------

def _add_product_(c_fn, name, a1, a2):
    def method(self, x, y, *, beta=1, alpha=1):
        _need_tensor(x, name, a1)
        _need_tensor(y, name, a2)
        c_fn(self, x, y, float(beta), float(alpha))
        return self
    method.__name__ = name
    return _checked(method)


def _lerp_(self, end, weight):
    _need_tensor(end, 'lerp_', 'end')
    if _is_tensor(weight):
        Dl.Tensor.lerp_(self, end, weight)
    elif isinstance(weight, numbers.Real) and not isinstance(weight, bool):
        Dl.Tensor.lerp_scalar_(self, end, float(weight))
    else:
        raise TypeError("lerp_(): argument 'weight' must be Tensor or Number, not %s"
                        % type(weight).__name__)
    return self


def _nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    Dl.Tensor.nan_to_num_(self, float(nan),
                          float('nan') if posinf is None else float(posinf),
                          float('nan') if neginf is None else float(neginf))
    return self


def _logical_(c_fn, name):
    def method(self, other):
        c_fn(self, _need_tensor(other, name, 'other'))
        return self
    method.__name__ = name
    return _checked(method)


def _logical_not_(self):
    Dl.Tensor.logical_not_(self)
    return self


def _scan_(c_fn, name):
    def method(self, dim, *, dtype=None):
        if dtype is not None and dtype != self.dtype:
            raise RuntimeError("%s: dtype %s must match the tensor's dtype %s"
                               % (name, dtype, self.dtype))
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise TypeError("%s(): argument 'dim' must be int, not %s"
                            % (name, type(dim).__name__))
        c_fn(self, int(dim))
        return self
    method.__name__ = name
    return _checked(method)


def _clamp_min_(self, min):
    return self.clamp_(min=min)


def _clamp_max_(self, max):
    return self.clamp_(max=max)


def _as_strided(self, size, stride, storage_offset=None):
    return Dl.Tensor.as_strided(self, [int(v) for v in size], [int(v) for v in stride],
                                -1 if storage_offset is None else int(storage_offset))


def _resize_(self, *sizes, memory_format=None):
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    Dl.Tensor.resize_(self, [int(v) for v in sizes])
    return self


def _resize_as_(self, the_template, memory_format=None):
    return _resize_(self, tuple(the_template.shape))


# ---- compositions ------------------------------------------------------------

def _sum_to_size(self, *size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    if len(size) > len(shape) or any(
            s != 1 and s != n for s, n in zip(reversed(size), reversed(shape))):
        raise RuntimeError("size {%s} is not expandable to size {%s}."
                           % (', '.join(map(str, size)), ', '.join(map(str, shape))))
    lead = len(shape) - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and shape[lead + i] != 1]
    if not dims:
        return self
    return self.sum(dims, keepdim=True).reshape(size)


def _narrow_copy(self, dim, start, length):
    return self.narrow(dim, start, length).clone()


def _masked_scatter(self, mask, source):
    if not _is_tensor(mask) or mask.dtype != _BOOL:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           "dtype %s" % (getattr(mask, 'dtype', type(mask).__name__),))
    if source.dtype != self.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           "got %s and %s" % (self.dtype, source.dtype))
    m = mask.expand(*self.shape) if tuple(mask.shape) != tuple(self.shape) else mask
    n = int(m.sum().item())
    if n > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least %d elements, "
                           "but got %d" % (n, source.numel()))
    out = self.clone()
    out[m] = source.reshape(-1)[:n]
    return out


def _masked_scatter_(self, mask, source):
    self.copy_(_masked_scatter(self, mask, source))
    return self


def _flat_index(self, index, name):
    if not _is_tensor(index) or index.dtype != int64:
        raise RuntimeError("%s(): Expected a long tensor for index, but got %s"
                           % (name, getattr(index, 'dtype', type(index).__name__)))
    n = self.numel()
    idx = index.reshape(-1)
    if idx.numel() and (int(idx.max().item()) >= n or int(idx.min().item()) < -n):
        raise IndexError("%s(): index out of range for a tensor of %d elements" % (name, n))
    return idx.remainder(n) if idx.numel() else idx


def _put(self, index, source, accumulate=False):
    idx = _flat_index(self, index, 'put')
    if source.numel() != idx.numel():
        raise RuntimeError("put_(): Expected source and index to have the same number of "
                           "elements, but got source.numel() = %d, index.numel() = %d"
                           % (source.numel(), idx.numel()))
    flat = self.reshape(-1).clone()
    flat = flat.index_put((idx,), source.reshape(-1), accumulate=accumulate)
    return flat.view(*self.shape)


def _put_(self, index, source, accumulate=False):
    self.copy_(_put(self, index, source, accumulate))
    return self


_INDEX_REDUCE = ('prod', 'mean', 'amax', 'amin')


def _index_reduce_args(self, dim, index, source, reduce, name):
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError("%s(): Expected reduce to be one of prod, mean, amax or amin but "
                           "got %s." % (name, reduce))
    if not _is_tensor(index) or index.dim() > 1:
        raise IndexError("%s(): Index is supposed to be a vector" % name)
    d = dim % max(self.dim(), 1)
    shape = [1] * source.dim()
    shape[d] = index.numel()
    return d, index.reshape(shape).expand(*source.shape)


def _index_reduce(self, dim, index, source, reduce, *, include_self=True):
    d, idx = _index_reduce_args(self, dim, index, source, reduce, 'index_reduce')
    return self.scatter_reduce(d, idx, source, reduce, include_self=include_self)


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    d, idx = _index_reduce_args(self, dim, index, source, reduce, 'index_reduce_')
    return self.scatter_reduce_(d, idx, source, reduce, include_self=include_self)


_INTERPOLATIONS = ('linear', 'lower', 'higher', 'midpoint', 'nearest')


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan, name):
    if not self.is_floating_point():
        raise RuntimeError("%s() input tensor must be either float or double dtype" % name)
    if interpolation not in _INTERPOLATIONS:
        raise ValueError("%s() interpolation must be one of linear, lower, higher, midpoint or "
                         "nearest. Got %s" % (name, interpolation))
    scalar_q = not _is_tensor(q)
    qt = tensor(q, dtype=self.dtype) if scalar_q else q
    if qt.dim() > 1:
        raise RuntimeError("%s() q must be a scalar or 1D tensor" % name)
    if qt.dtype != self.dtype:
        raise RuntimeError("%s() q tensor must be same dtype as the input tensor" % name)
    if bool(((qt < 0) | (qt > 1)).any().item()):
        raise RuntimeError("%s() q values must be in the range [0, 1]" % name)
    if self.numel() == 0:
        raise RuntimeError("%s() input tensor must be non-empty" % name)
    x = self.reshape(-1) if dim is None else self.movedim(dim, -1)
    s = x.sort(-1).values  # NaN sorts last
    n = s.shape[-1]
    nan = s.isnan()
    if ignore_nan:
        count = (~nan).sum(-1, keepdim=True)
    else:
        count = zeros(*s.shape[:-1], 1, dtype=int64) + n
    qv = qt.reshape(-1)
    # positions (q * (count - 1)), one column per q
    pos = qv.to(float64) * (count.to(float64) - 1).clamp(min=0)
    lo = pos.floor()
    hi = pos.ceil()
    if interpolation == 'lower':
        hi = lo
    elif interpolation == 'higher':
        lo = hi
    elif interpolation == 'nearest':
        lo = hi = pos.round()
    lo_i = lo.to(int64).clamp(0, n - 1)
    hi_i = hi.to(int64).clamp(0, n - 1)
    vlo = s.gather(-1, lo_i)
    vhi = s.gather(-1, hi_i)
    if interpolation == 'midpoint':
        out = vlo + (vhi - vlo) * 0.5
    elif interpolation == 'linear':
        out = vlo + (vhi - vlo) * (pos - lo).to(self.dtype)
    else:
        out = vlo
    # a row with a NaN (quantile) or of NaNs only (nanquantile) gives NaN
    bad = nan.any(-1, keepdim=True) if not ignore_nan else (count == 0)
    out = out.masked_fill(bad.expand(*out.shape), math.nan)
    out = out.movedim(-1, 0)  # q first, as torch
    if dim is None:
        if keepdim:
            out = out.reshape(out.shape[0], *([1] * self.dim()))
    elif keepdim:
        out = out.unsqueeze(dim % self.dim() + 1)
    if scalar_q or qt.dim() == 0:
        out = out.squeeze(0)
    return out


def _t_quantile(self, q, dim=None, keepdim=False, *, interpolation='linear'):
    return _quantile(self, q, dim, keepdim, interpolation, False, 'quantile')


def _t_nanquantile(self, q, dim=None, keepdim=False, *, interpolation='linear'):
    return _quantile(self, q, dim, keepdim, interpolation, True, 'nanquantile')


def _fill_diagonal_(self, fill_value, wrap=False):
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.dim() == 2:
        rows, cols = self.shape
        self.diagonal().fill_(fill_value)
        if wrap and rows > cols + 1:
            # the diagonal starts again every cols + 1 rows
            start = cols + 1
            while start < rows:
                block = self[start:]
                block.diagonal().fill_(fill_value)
                start += cols + 1
        return self
    idx = arange(self.shape[0])
    self[(idx,) * self.dim()] = fill_value
    return self


def _histogram(self, bins=100, *, range=None, weight=None, density=False):
    from . import return_types
    from ._composites import searchsorted
    from ._creation import linspace
    if not self.is_floating_point():
        raise RuntimeError("torch.histogram: input tensor and bins tensors should have the "
                           "same dtype, but got input %s and bins float" % self.dtype)
    x = self.reshape(-1)
    if _is_tensor(bins):
        if bins.dim() != 1 or bins.numel() < 1:
            raise RuntimeError("torch.histogram(): bins tensor should have one dimension "
                               "and at least 1 element, but got %s" % (list(bins.shape),))
        edges = bins.to(self.dtype)
    else:
        if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins <= 0:
            raise RuntimeError("torch.histogram(): bins must be > 0, but got %s for dimension 0"
                               % (bins,))
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel():
            lo, hi = float(x.min().item()), float(x.max().item())
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError("torch.histogram(): min should not exceed max, but got min %s "
                               "max %s" % (lo, hi))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = linspace(lo, hi, int(bins) + 1, dtype=self.dtype)
    n = edges.numel() - 1
    hist = zeros(max(n, 0), dtype=self.dtype)
    w = None if weight is None else weight.reshape(-1).to(self.dtype)
    if n > 0 and x.numel():
        inside = (x >= edges[0]) & (x <= edges[-1])
        # bin i holds [edge i, edge i+1); the last holds its right edge too
        idx = (searchsorted(edges, x, right=True) - 1).clamp(0, n - 1)
        xs = idx[inside]
        vals = w[inside] if w is not None else x.new_ones(xs.numel())
        hist = hist.scatter_add(0, xs, vals)
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    return return_types.histogram((hist, edges))


def _frexp(self):
    from . import return_types
    from ._dtype import int32
    if not self.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    x = self.detach().to(float64)
    finite = x.isfinite() & (x != 0)
    a = x.abs().masked_fill(~finite, 1.0)
    e = a.log2().floor() + 1
    m = x.masked_fill(~finite, 1.0) * (-e).exp2()
    # log2 may land one off near powers of two: bring |m| into [0.5, 1)
    big = m.abs() >= 1
    e, m = e + big.to(float64), m.where(~big, m / 2)
    small = m.abs() < 0.5
    e, m = e - small.to(float64), m.where(~small, m * 2)
    m = m.where(finite, x)
    e = e.masked_fill(~finite, 0)
    return return_types.frexp((m.to(self.dtype), e.to(int32)))


METHODS = {
    'as_strided': _checked(_as_strided),
    'resize_': _checked(_resize_),
    'resize_as_': _checked(_resize_as_),
    'histogram': _histogram,
    'frexp': _frexp,
    'addmm_': _add_product_(Dl.Tensor.addmm_, 'addmm_', 'mat1', 'mat2'),
    'addmv_': _add_product_(Dl.Tensor.addmv_, 'addmv_', 'mat', 'vec'),
    'addbmm_': _add_product_(Dl.Tensor.addbmm_, 'addbmm_', 'batch1', 'batch2'),
    'baddbmm_': _add_product_(Dl.Tensor.baddbmm_, 'baddbmm_', 'batch1', 'batch2'),
    'addr_': _add_product_(Dl.Tensor.addr_, 'addr_', 'vec1', 'vec2'),
    'lerp_': _checked(_lerp_),
    'nan_to_num_': _checked(_nan_to_num_),
    'logical_and_': _logical_(Dl.Tensor.logical_and_, 'logical_and_'),
    'logical_or_': _logical_(Dl.Tensor.logical_or_, 'logical_or_'),
    'logical_xor_': _logical_(Dl.Tensor.logical_xor_, 'logical_xor_'),
    'logical_not_': _checked(_logical_not_),
    'cumsum_': _scan_(Dl.Tensor.cumsum_, 'cumsum_'),
    'cumprod_': _scan_(Dl.Tensor.cumprod_, 'cumprod_'),
    'clamp_min_': _clamp_min_,
    'clamp_max_': _clamp_max_,
    'sum_to_size': _sum_to_size,
    'narrow_copy': _narrow_copy,
    'masked_scatter': _masked_scatter,
    'masked_scatter_': _masked_scatter_,
    'put': _put,
    'put_': _put_,
    'index_reduce': _index_reduce,
    'index_reduce_': _index_reduce_,
    'quantile': _t_quantile,
    'nanquantile': _t_nanquantile,
    'fill_diagonal_': _fill_diagonal_,
}


# ---- torch.* functions -------------------------------------------------------

# torch.<op>_(input, ...): torch's functional names of in-place methods
_INPLACE_FUNCTIONS = (
    'abs_', 'acos_', 'acosh_', 'arccos_', 'arccosh_', 'arcsin_', 'arcsinh_', 'arctan_',
    'arctanh_', 'asin_', 'asinh_', 'atan_', 'atanh_', 'ceil_', 'clamp_max_', 'clamp_min_',
    'clip_', 'cos_', 'cosh_', 'deg2rad_', 'detach_', 'erf_', 'erfc_', 'exp2_', 'exp_',
    'expm1_', 'fill_', 'fix_', 'floor_', 'frac_', 'gcd_', 'i0_', 'lcm_', 'ldexp_', 'log10_',
    'log1p_', 'log2_', 'log_', 'logit_', 'nan_to_num_', 'neg_', 'negative_', 'rad2deg_',
    'reciprocal_', 'round_', 'rsqrt_', 'sigmoid_', 'sin_', 'sinc_', 'sinh_', 'sqrt_',
    'square_', 'tan_', 'tanh_', 'trunc_', 'xlogy_', 'zero_', 'index_put_', 'resize_as_')


def _inplace_function(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    return fn


def clamp_min(input, min):
    return input.clamp_min(min)


def clamp_max(input, max):
    return input.clamp_max(max)


def _triangle_indices(row, col, offset, dtype, upper, name):
    for v, arg in ((row, 'row'), (col, 'col'), (offset, 'offset')):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError("%s(): argument '%s' must be int, not %s"
                            % (name, arg, type(v).__name__))
    if row < 0 or col < 0:
        raise RuntimeError("%s(): row and col must be non-negative, got %d and %d"
                           % (name, row, col))
    if row == 0 or col == 0:
        return zeros(2, 0, dtype=dtype)
    r = arange(row).unsqueeze(1).expand(row, col)
    c = arange(col).unsqueeze(0).expand(row, col)
    keep = (c - r >= offset) if upper else (c - r <= offset)
    return stack([r[keep], c[keep]]).to(dtype)


def tril_indices(row, col, offset=0, *, dtype=int64, device='cpu', layout=None):
    return _triangle_indices(row, col, offset, dtype, False, 'tril_indices')


def triu_indices(row, col, offset=0, *, dtype=int64, device='cpu', layout=None):
    return _triangle_indices(row, col, offset, dtype, True, 'triu_indices')


def combinations(input, r=2, with_replacement=False):
    if input.dim() != 1:
        raise RuntimeError("Expect a 1D vector, but got shape %s" % (list(input.shape),))
    if r < 0:
        raise RuntimeError("Expect a non-negative number, but got %d" % r)
    if r == 0:
        return input.new_empty(0)
    pick = (itertools.combinations_with_replacement if with_replacement
            else itertools.combinations)
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return input.new_empty(0, r)
    idx = tensor(rows, dtype=int64)
    return input[idx.reshape(-1)].reshape(len(rows), r)


def _trapezoid_args(y, x, dx, dim, name):
    if x is not None and dx is not None:
        raise TypeError("%s() received an invalid combination of arguments: x and dx" % name)
    d = dim % max(y.dim(), 1)
    n = y.shape[d] if y.dim() else 0
    return d, n


def _spacing(y, x, d, dim):
    """the differences of the sample points @x along y's dim @d (a 1-D @x
    lies along it; one of more dims along its own @dim)"""
    if not _is_tensor(x):
        x = tensor(x, dtype=y.dtype)
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[d] = x.shape[0]
        x = x.reshape(shape)
        xd = d
    else:
        xd = dim % x.dim()
    return x.narrow(xd, 1, x.shape[xd] - 1) - x.narrow(xd, 0, x.shape[xd] - 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    d, n = _trapezoid_args(y, x, dx, dim, 'trapezoid')
    if n == 0:
        return y.sum(d) * 0
    left = y.narrow(d, 0, n - 1)
    right = y.narrow(d, 1, n - 1)
    if x is None:
        return (left + right).sum(d) * ((1.0 if dx is None else float(dx)) / 2)
    return ((left + right) * _spacing(y, x, d, dim)).sum(d) / 2


def trapz(y, x=None, *, dx=None, dim=-1):
    if x is not None and not _is_tensor(x):
        raise TypeError("trapz() received an invalid combination of arguments - got (Tensor, "
                        "%s): x must be a Tensor (the spacing is the keyword dx)"
                        % type(x).__name__)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    d, n = _trapezoid_args(y, x, dx, dim, 'cumulative_trapezoid')
    if n == 0:
        return y.narrow(d, 0, 0)
    left = y.narrow(d, 0, n - 1)
    right = y.narrow(d, 1, n - 1)
    if x is None:
        return ((left + right) * ((1.0 if dx is None else float(dx)) / 2)).cumsum(d)
    return ((left + right) * _spacing(y, x, d, dim) / 2).cumsum(d)


def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return x.new_empty(x.shape[0], 0)
    dt = x.dtype if x.is_floating_point() else int64
    cols = [x.to(dt).new_ones(x.shape[0])]
    for _ in range(1, n):
        cols.append(cols[-1] * x.to(dt))
    out = stack(cols, 1)
    return out if increasing else out.flip(1)


def _window(name, window_length, periodic, dtype, fn):
    if isinstance(window_length, bool) or not isinstance(window_length, numbers.Integral):
        raise TypeError("%s(): argument 'window_length' must be int, not %s"
                        % (name, type(window_length).__name__))
    if window_length < 0:
        raise RuntimeError("%s requires non-negative window_length, got window_length=%d"
                           % (name, window_length))
    dtype = get_default_dtype() if dtype is None else dtype
    if dtype not in (float32, float64):
        raise RuntimeError("%s expects floating point dtypes, got: %s" % (name, dtype))
    if window_length == 0:
        return zeros(0, dtype=dtype)
    if window_length == 1:
        return zeros(1, dtype=dtype) + 1
    n = window_length + 1 if periodic else window_length
    k = arange(n, dtype=float64)
    w = fn(k, n)
    if periodic:
        w = w[:-1]
    return w.to(dtype)


def _cosine_sum(a):
    def fn(k, n):
        w = 0
        for i, c in enumerate(a):
            w = w + ((-1) ** i) * c * (2 * math.pi * i * k / (n - 1)).cos()
        return w
    return fn


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    return _window('hann_window', window_length, periodic, dtype, _cosine_sum((0.5, 0.5))) \
        .requires_grad_(requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False):
    return _window('hamming_window', window_length, periodic, dtype,
                   _cosine_sum((alpha, beta))).requires_grad_(requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    return _window('blackman_window', window_length, periodic, dtype,
                   _cosine_sum((0.42, 0.5, 0.08))).requires_grad_(requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    return _window('bartlett_window', window_length, periodic, dtype,
                   lambda k, n: 1 - (2 * k / (n - 1) - 1).abs()).requires_grad_(requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False):
    def fn(k, n):
        r = (2 * k / (n - 1) - 1)
        return (beta * (1 - r * r).clamp(min=0).sqrt()).i0() / \
            tensor(float(beta), dtype=float64).i0()
    return _window('kaiser_window', window_length, periodic, dtype, fn) \
        .requires_grad_(requires_grad)


def _probe(v):
    """@v for a promotion probe: a tensor as one element of its ndim (so a
    0-d tensor stays 0-d and takes part as one), a number as itself"""
    return v.new_zeros([1] * v.dim()) if _is_tensor(v) else v


def result_type(tensor1, tensor2):
    if not _is_tensor(tensor1) and not _is_tensor(tensor2):
        return (tensor(tensor1) + tensor2).dtype
    return (_probe(tensor1) + _probe(tensor2)).dtype


def _kind(dt):
    if dt == _BOOL:
        return 0
    return 2 if dt.is_floating_point else 1


def can_cast(from_, to):
    return _kind(from_) <= _kind(to)


def promote_types(type1, type2):
    return (zeros(1, dtype=type1) + zeros(1, dtype=type2)).dtype


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    return tensor(float(s), dtype=dtype or get_default_dtype(), requires_grad=requires_grad)


def rsub(input, other, *, alpha=1):
    return (other - input * alpha) if alpha != 1 else (other - input)


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input):
    return input.is_signed()


def typename(o):
    if _is_tensor(o):
        return o.type()
    module = type(o).__module__
    name = type(o).__qualname__
    return name if module in (None, 'builtins') else module + '.' + name


def set_default_tensor_type(t):
    name = t if isinstance(t, str) else getattr(t, '__name__', str(t))
    name = name.rsplit('.', 1)[-1]
    kinds = {'FloatTensor': float32, 'DoubleTensor': float64}
    if name not in kinds:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(kinds[name])


def split_with_sizes(input, split_sizes, dim=0):
    if sum(split_sizes) != input.shape[dim]:
        raise RuntimeError("split_with_sizes expects split_sizes to sum exactly to %d (input "
                           "tensor's size at dimension %d), but got split_sizes=%s"
                           % (input.shape[dim], dim, list(split_sizes)))
    return input.split(list(split_sizes), dim)


def select_scatter(input, src, dim, index):
    out = input.clone()
    out.select(dim, index).copy_(src)
    return out


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    out = input.clone()
    idx = [slice(None)] * input.dim()
    idx[dim % input.dim()] = slice(start, end, step)
    out[tuple(idx)] = src
    return out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    out = input.clone()
    out.diagonal(offset, dim1, dim2).copy_(src)
    return out


def _range(start, end=None, step=1, *, dtype=None, requires_grad=False, **kwargs):
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    out = (arange(n, dtype=float64) * step + start).to(dtype or get_default_dtype())
    return out.requires_grad_(requires_grad)


FUNCTIONS = {name: _inplace_function(name) for name in _INPLACE_FUNCTIONS}
FUNCTIONS.update({f.__name__: f for f in (
    clamp_min, clamp_max, tril_indices, triu_indices, combinations, trapezoid, trapz,
    cumulative_trapezoid, vander, hann_window, hamming_window, blackman_window,
    bartlett_window, kaiser_window, result_type, can_cast, promote_types, scalar_tensor,
    rsub, is_same_size, is_signed, typename, set_default_tensor_type, split_with_sizes,
    select_scatter, slice_scatter, diagonal_scatter)})
FUNCTIONS['range'] = _range
FUNCTIONS.update({
    'histogram': lambda input, bins=100, *, range=None, weight=None, density=False:
        _histogram(input, bins, range=range, weight=weight, density=density),
    'frexp': lambda input: _frexp(input),
    'as_strided': lambda input, size, stride, storage_offset=None:
        METHODS['as_strided'](input, size, stride, storage_offset),
    'quantile': lambda input, q, dim=None, keepdim=False, *, interpolation='linear':
        _t_quantile(input, q, dim, keepdim, interpolation=interpolation),
    'nanquantile': lambda input, q, dim=None, keepdim=False, *, interpolation='linear':
        _t_nanquantile(input, q, dim, keepdim, interpolation=interpolation),
    'masked_scatter': lambda input, mask, source: _masked_scatter(input, mask, source),
    'put': lambda input, index, source, accumulate=False: _put(input, index, source, accumulate),
    'index_reduce': lambda input, dim, index, source, reduce, *, include_self=True:
        _index_reduce(input, dim, index, source, reduce, include_self=include_self),
    'narrow_copy': lambda input, dim, start, length: _narrow_copy(input, dim, start, length),
})
for _n in ('histogram', 'frexp', 'as_strided', 'quantile', 'nanquantile', 'masked_scatter', 'put', 'index_reduce', 'narrow_copy'):
    FUNCTIONS[_n].__name__ = FUNCTIONS[_n].__qualname__ = _n
