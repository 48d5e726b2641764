# _composites.py: torch functions that torch itself writes over other ops
# (meshgrid, broadcast_tensors, atleast_*d, dstack, column_stack,
# block_diag, cartesian_prod, logspace, cdist, dist, renorm, cov,
# corrcoef, histc, bucketize, searchsorted, isin, logcumsumexp), here as
# compositions of libdl's differentiable C ops, so gradients come from
# those ops; argument checks and messages follow torch 1.13.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import numbers
import warnings

from ._creation import arange, linspace, tensor, zeros
from ._dtype import _BOOL, float64, get_default_dtype, int32, int64
from ._indexing import cat, stack
from ._lib import Dl, GLib, _is_tensor, _translate


def _tensors(args, name):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for t in args:
        if not _is_tensor(t):
            raise TypeError('%s(): expected Tensor as element, but got %s'
                            % (name, type(t).__name__))
    return list(args)


# ---- shapes -----------------------------------------------------------------

def broadcast_shapes(*shapes):
    """torch.broadcast_shapes: the shape the given shapes broadcast to."""
    out = []
    for s in shapes:
        s = [s] if isinstance(s, numbers.Integral) else list(s)
        for i, n in enumerate(reversed(s)):
            if n < 0:
                raise RuntimeError('Trying to create tensor with negative dimension %d: %s'
                                   % (n, s))
            if i >= len(out):
                out.insert(0, n)
            elif out[-1 - i] == 1:
                out[-1 - i] = n
            elif n != 1 and n != out[-1 - i]:
                raise RuntimeError('Shape mismatch: objects cannot be broadcast to a single '
                                   'shape')
    from ._dtype import Size
    return Size(out)


def broadcast_tensors(*tensors):
    ts = _tensors(tensors, 'broadcast_tensors')
    shapes = [tuple(t.shape) for t in ts]
    try:
        shape = broadcast_shapes(*shapes)
    except RuntimeError:
        raise RuntimeError('broadcast_tensors: the shapes %s cannot be broadcast together'
                           % ', '.join(str(list(s)) for s in shapes)) from None
    return tuple(t.expand(*shape) for t in ts)


def meshgrid(*tensors, indexing=None):
    ts = _tensors(tensors, 'meshgrid')
    if indexing is None:
        warnings.warn('torch.meshgrid: in an upcoming release, it will be required to pass the '
                      'indexing argument.', UserWarning, stacklevel=2)
        indexing = 'ij'
    if indexing not in ('ij', 'xy'):
        raise RuntimeError("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           "received: %s" % indexing)
    if not ts:
        raise RuntimeError('meshgrid expects a non-empty TensorList')
    for t in ts:
        if t.dim() > 1:
            raise RuntimeError('torch.meshgrid: Expected 0D or 1D tensor in the tensor list but '
                               'got: %s' % t)
        if t.dtype != ts[0].dtype:
            raise RuntimeError('torch.meshgrid: Expected all tensors in the tensor list to have '
                               'the same dtype.')
    flat = [t.reshape(-1) for t in ts]
    swap = indexing == 'xy' and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = [t.shape[0] for t in flat]
    n = len(flat)
    out = []
    for i, t in enumerate(flat):
        view = [1] * n
        view[i] = shape[i]
        out.append(t.reshape(view).expand(*shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def _atleast(nd, args, name):
    ts = _tensors(args, name)
    out = []
    for t in ts:
        if t.dim() == 0:
            t = t.reshape([1] * nd)
        elif nd >= 2 and t.dim() == 1:
            t = t.unsqueeze(0)
            if nd == 3:
                t = t.unsqueeze(-1)
        elif nd == 3 and t.dim() == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    single = len(args) == 1 and _is_tensor(args[0])
    return out[0] if single else tuple(out)


def atleast_1d(*tensors):
    return _atleast(1, tensors, 'atleast_1d')


def atleast_2d(*tensors):
    return _atleast(2, tensors, 'atleast_2d')


def atleast_3d(*tensors):
    return _atleast(3, tensors, 'atleast_3d')


def dstack(tensors, *, out=None):
    ts = atleast_3d(*_tensors((tensors,), 'dstack'))
    return cat(list(ts if isinstance(ts, tuple) else (ts,)), 2)


def column_stack(tensors, *, out=None):
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in _tensors((tensors,), 'column_stack')]
    return cat(ts, 1)


def row_stack(tensors, *, out=None):
    from ._indexing import vstack
    return vstack(tensors)


def block_diag(*tensors):
    ts = []
    for i, t in enumerate(_tensors(tensors, 'block_diag')):
        if t.dim() > 2:
            raise RuntimeError('torch.block_diag: Input tensors must have 2 or fewer dimensions. '
                               'Input %d has %d dimensions' % (i, t.dim()))
        ts.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not ts:
        return zeros(1, 0)
    rows = sum(t.shape[0] for t in ts)
    dt = ts[0].dtype
    for t in ts[1:]:
        # the promoted dtype of all the blocks
        dt = (zeros((), dtype=dt) + zeros((), dtype=t.dtype)).dtype
    parts, c = [], 0
    cols = sum(t.shape[1] for t in ts)
    for t in ts:
        left = zeros(t.shape[0], c, dtype=dt, device=t.device)
        right = zeros(t.shape[0], cols - c - t.shape[1], dtype=dt, device=t.device)
        parts.append(cat([left, t.to(dt), right], 1))
        c += t.shape[1]
    return cat(parts, 0) if rows else zeros(0, cols, dtype=dt)


def cartesian_prod(*tensors):
    ts = _tensors(tensors, 'cartesian_prod')
    for t in ts:
        if t.dim() != 1:
            raise RuntimeError('Expect a 1D vector, but got shape %s' % list(t.shape))
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing='ij')
    return stack([g.reshape(-1) for g in grids], 1)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False,
             out=None, layout=None):
    exps = linspace(start, end, steps, dtype=float64, device=device)
    r = tensor(float(base), dtype=float64, device=device) ** exps
    target = dtype if dtype is not None else get_default_dtype()
    if not target.is_floating_point:
        # torch computes integer logspace in double and truncates
        r = r.floor() if float(base) >= 0 else r.trunc()
    r = r.to(target)
    return r.requires_grad_() if requires_grad else r


# ---- distances and statistics -----------------------------------------------

def _float_check(name, *ts):
    for t in ts:
        if not t.is_floating_point():
            raise RuntimeError('%s only supports floating-point dtypes, X1 got: %s'
                               % (name, t.dtype))


def _powers(m, p):
    """|m| ** p of the magnitudes m; for p < 1, whose slope is infinite at
    0, zeros give 0 with a zero gradient."""
    if p >= 1:
        return m ** p
    zero = m == 0
    return (m.masked_fill(zero, 1) ** p).masked_fill(zero, 0)


def _root(s, e):
    """s ** e, 0 with a zero gradient where s is 0 (a zero distance), as
    torch's cdist backward gives, rather than the infinite slope of the
    root there times 0."""
    zero = s <= 0
    return (s.masked_fill(zero, 1) ** e).masked_fill(zero, 0)


def cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'):
    """torch.cdist: the p-norm distances between the rows of x1 and of x2,
    batched over leading dims. For p=2 the product form through matmul
    (|a|^2 + |b|^2 - 2 a.b) is used as torch uses it: when either input
    has more than 25 rows (or compute_mode asks for it)."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError('cdist only supports at least 2D tensors, X1 got: %dD'
                           % (x1.dim() if x1.dim() < 2 else x2.dim()))
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError('X1 and X2 must have the same number of columns. X1: %d X2: %d'
                           % (x1.shape[-1], x2.shape[-1]))
    _float_check('cdist', x1, x2)
    if p < 0:
        raise RuntimeError('cdist only supports non-negative p values')
    modes = {'use_mm_for_euclid_dist_if_necessary': None, 'use_mm_for_euclid_dist': True,
             'donot_use_mm_for_euclid_dist': False}
    if compute_mode not in modes:
        raise ValueError('%s is not a valid value for compute_mode' % compute_mode)
    use_mm = modes[compute_mode]
    if use_mm is None:
        use_mm = x1.shape[-2] > 25 or x2.shape[-2] > 25
    batch = broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    a = x1.expand(*batch, *x1.shape[-2:])
    b = x2.expand(*batch, *x2.shape[-2:])
    if p == 2 and use_mm:
        # one product of [-2a, |a|^2, 1] and [b, 1, |b|^2], as torch forms it
        a2 = (a * a).sum(-1, keepdim=True)
        b2 = (b * b).sum(-1, keepdim=True)
        left = cat([a * -2, a2, a2.new_ones(a2.shape)], -1)
        right = cat([b, b2.new_ones(b2.shape), b2], -1)
        d2 = left.matmul(right.transpose(-1, -2)).clamp(min=0)
        return _root(d2, 0.5)
    diff = (a.unsqueeze(-2) - b.unsqueeze(-3)).abs()
    if p == 0:
        return (diff != 0).to(a.dtype).sum(-1)
    if math.isinf(p):
        return diff.amax(-1) if diff.shape[-1] else diff.sum(-1)
    if p == 1:
        return diff.sum(-1)
    return _root(_powers(diff, p).sum(-1), 1.0 / p)


def dist(input, other, p=2):
    """torch.dist: the p-norm of input - other."""
    d = (input - other).reshape(-1)
    p = float(p)
    if p == 0:
        return (d != 0).to(d.dtype).sum()
    if math.isinf(p):
        return d.abs().amax() if p > 0 else d.abs().amin()
    return d.norm(p)


def _t_renorm(self, p, dim, maxnorm):
    """torch.renorm: each slice along dim with a p-norm above maxnorm scaled
    down to it."""
    if self.dim() <= 1:
        raise RuntimeError('renorm: input needs at least 2 dimensions, got %d dimensions'
                           % self.dim())
    if p <= 0:
        raise RuntimeError('renorm: non-positive-norm not supported')
    if maxnorm < 0:
        raise RuntimeError('renorm: expected maxnorm to be >= 0 but got %s' % maxnorm)
    nd = self.dim()
    d = dim + nd if dim < 0 else dim
    if not 0 <= d < nd:
        raise IndexError('Dimension out of range (expected to be in range of [%d, %d], but '
                         'got %d)' % (-nd, nd - 1, dim))
    others = tuple(i for i in range(nd) if i != d)
    norms = _root(_powers(self.abs(), p).sum(others, keepdim=True), 1.0 / p)
    # torch's factor: maxnorm / (norm + 1e-7) where the norm exceeds maxnorm
    factor = (norms > maxnorm).to(self.dtype) * (maxnorm / (norms + 1e-7) - 1) + 1
    return self * factor


def cov(input, *, correction=1, fweights=None, aweights=None):
    """torch.cov: the covariance of the variables (rows) of input over its
    observations (columns)."""
    if input.dim() > 2:
        raise RuntimeError('cov(): expected input to have two or fewer dimensions but got an '
                           'input with %d dimensions' % input.dim())
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    if not x.is_floating_point():
        x = x.to(get_default_dtype())
    w = None
    if fweights is not None:
        if fweights.dim() > 1 or fweights.is_floating_point():
            raise RuntimeError('cov(): expected fweights to have one or fewer dimensions and an '
                               'integral dtype')
        w = fweights.to(x.dtype)
    if aweights is not None:
        if aweights.dim() > 1 or not aweights.is_floating_point():
            raise RuntimeError('cov(): expected aweights to have one or fewer dimensions and a '
                               'floating point dtype')
        w = aweights.to(x.dtype) if w is None else w * aweights.to(x.dtype)
    if w is None:
        wsum = tensor(float(n), dtype=x.dtype)
        avg = x.mean(1) if n else x.sum(1) / 0.0
        norm = wsum - correction
    else:
        wsum = w.sum()
        avg = (x * w).sum(1) / wsum
        if correction == 0:
            norm = wsum
        elif aweights is None:
            norm = wsum - correction
        else:
            norm = wsum - correction * (w * aweights.to(x.dtype)).sum() / wsum
    if norm.item() <= 0:
        warnings.warn('cov(): degrees of freedom is <= 0', UserWarning, stacklevel=2)
    norm = norm.clamp(min=0)
    xc = x - avg.unsqueeze(1)
    xw = xc if w is None else xc * w
    # a single variable gives a 0-d result, as torch's squeeze does
    return (xw.matmul(xc.t()) / norm).squeeze()


def corrcoef(input):
    """torch.corrcoef: the Pearson correlation coefficients of the rows."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    sd = d.sqrt()
    c = c / sd.unsqueeze(1) / sd.unsqueeze(0)
    return c.clamp(-1, 1)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """torch.histc: counts of input's elements in bins equal-width bins over
    [min, max] (the data's range when both are 0); values outside are not
    counted. Float inputs only, as on torch's CPU."""
    if not input.is_floating_point():
        raise RuntimeError('"histogram_cpu" not implemented for \'%s\''
                           % {int32: 'Int', int64: 'Long', _BOOL: 'Bool'}.get(
                               input.dtype, input.dtype))
    if bins <= 0:
        raise RuntimeError('torch.histogram(): bins must be > 0, but got %d for dimension 0'
                           % bins)
    lo, hi = float(min), float(max)
    if lo == hi and input.numel():
        lo, hi = input.min().item(), input.max().item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError('torch.histc: max must be larger than min')
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError('torch.histc: range of [%s, %s] is not finite' % (lo, hi))
    x = input.detach().reshape(-1).to(float64)
    keep = (x >= lo) & (x <= hi)
    x = x[keep]
    idx = ((x - lo) * bins / (hi - lo)).floor().to(int64).clamp(0, bins - 1)
    return idx.bincount(minlength=bins).to(input.dtype)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """torch.searchsorted: for each value, the index where it would be
    inserted into the sorted innermost rows of sorted_sequence (after equal
    entries with right=True or side='right'); a binary search in C
    (dl_searchsorted)."""
    if side is not None:
        if side not in ('left', 'right'):
            raise RuntimeError("torch.searchsorted(): side can only be 'left' or 'right' but "
                               "got %s" % side)
        if right and side == 'left':
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        right = side == 'right'
    values = input if _is_tensor(input) else tensor(input)
    try:
        return Dl.searchsorted(sorted_sequence, values, bool(right), bool(out_int32), sorter)
    except GLib.Error as e:
        raise _translate(e) from None


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    if boundaries.dim() != 1:
        raise RuntimeError('boundaries tensor must be 1 dimension, but got dim(%d)'
                           % boundaries.dim())
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """torch.isin: whether each element of elements is in test_elements."""
    if not _is_tensor(elements) and not _is_tensor(test_elements):
        raise TypeError('isin(): at least one of elements and test_elements must be a Tensor')
    e = elements if _is_tensor(elements) else tensor(elements)
    t = test_elements if _is_tensor(test_elements) else tensor(test_elements)
    # each element's place among the sorted test elements holds it or not
    s = t.detach().reshape(-1).sort()[0]
    if s.numel() == 0:
        r = zeros(e.shape, dtype=_BOOL, device=e.device)
    else:
        at = searchsorted(s, e.detach()).clamp(max=s.numel() - 1)
        r = s[at] == e
    return r.logical_not() if invert else r


def _t_logcumsumexp(self, dim):
    """torch.logcumsumexp: log(cumsum(exp(x))) along dim. With the
    slice's maximum taken out and the sums in float64, exp underflows only
    for values more than ~700 below it: when the slice spans less, that is
    the result; otherwise each output is the logsumexp of its masked prefix
    (n^2 work, exact for any range)."""
    x = self if self.is_floating_point() else self.to(get_default_dtype())
    if x.dim() == 0:
        return x.clone()
    d = dim + x.dim() if dim < 0 else dim
    if not 0 <= d < x.dim():
        raise IndexError('Dimension out of range (expected to be in range of [%d, %d], but '
                         'got %d)' % (-x.dim(), x.dim() - 1, dim))
    if x.shape[d] == 0:
        return x.clone()
    xd = x.detach().to(float64)
    fin = xd.isfinite()
    top = xd.masked_fill(~fin, -math.inf).amax(d, keepdim=True)
    low = xd.masked_fill(~fin, math.inf).amin(d, keepdim=True)
    span = (top - low).masked_fill(~(top - low).isfinite(), 0)
    if span.numel() == 0 or span.amax().item() < 700:
        m = top.masked_fill(~top.isfinite(), 0)
        return ((x.to(float64) - m).exp().cumsum(d).log() + m).to(x.dtype)
    y = x.movedim(d, -1)
    n = y.shape[-1]
    later = arange(n).unsqueeze(1) < arange(n).unsqueeze(0)
    a = y.unsqueeze(-2).expand(*y.shape[:-1], n, n).masked_fill(later, -math.inf)
    return a.logsumexp(-1).movedim(-1, d)


METHODS = {'renorm': _t_renorm, 'logcumsumexp': _t_logcumsumexp,
           'dist': lambda self, other, p=2: dist(self, other, p),
           'histc': lambda self, bins=100, min=0, max=0: histc(self, bins, min, max),
           'cov': lambda self, **kw: cov(self, **kw),
           'corrcoef': lambda self: corrcoef(self)}

FUNCTIONS = {f.__name__: f for f in (
    broadcast_shapes, broadcast_tensors, meshgrid, atleast_1d, atleast_2d, atleast_3d, dstack,
    column_stack, row_stack, block_diag, cartesian_prod, logspace, cdist, dist, cov, corrcoef,
    histc, searchsorted, bucketize, isin)}
FUNCTIONS['renorm'] = lambda input, p, dim, maxnorm: _t_renorm(input, p, dim, maxnorm)
FUNCTIONS['logcumsumexp'] = lambda input, dim: _t_logcumsumexp(input, dim)
