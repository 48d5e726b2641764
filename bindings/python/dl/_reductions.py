# _reductions.py: reductions (prod, amax, var, std, norm, logsumexp, all,
# any, median, ...), scans (cumsum, cummax, ...), sorting, topk and unique.
# sum, mean, max, min, argmax and argmin are Tensor methods in _tensor.py.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numbers

from . import return_types
from ._lib import Dl, _bool_arg, _checked, _int_arg, _method_fn


def _dims(dim):
    if isinstance(dim, numbers.Integral):
        return [int(dim)]
    return [int(d) for d in dim]


def _as_dtype(result, dtype):
    """With dtype= given, torch computes in it and returns it, integers
    included (int64 accumulation wraps to the same low bits)."""
    if dtype is None or result.dtype == dtype:
        return result
    return result.to(dtype)


def _dims_or_all(dim):
    """A dim argument as a list for libdl, where [] means every dim."""
    if dim is None:
        return []
    return _dims(dim)


def _reduce_prod(self, dim=None, keepdim=False, dtype=None):
    t = self if dtype is None else self.to(dtype)
    if dim is None:
        return _as_dtype(Dl.Tensor.prod(t), dtype)
    if not isinstance(dim, numbers.Integral):
        raise TypeError('prod(): argument \'dim\' must be int, not %s' % type(dim).__name__)
    return _as_dtype(t.prod_dims([_int_arg(dim, 'prod', 'dim')], keepdim), dtype)


def _reduce_amax(self, dim=(), keepdim=False):
    return Dl.Tensor.amax(self, _dims_or_all(dim), keepdim)


def _reduce_amin(self, dim=(), keepdim=False):
    return Dl.Tensor.amin(self, _dims_or_all(dim), keepdim)


def _var_args(dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is not None and unbiased is not None:
        raise RuntimeError('var(): cannot specify both unbiased and correction')
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return _dims_or_all(dim), float(correction), bool(keepdim)


def _reduce_var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.var(self, dims, corr, keep)


def _reduce_std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.std(self, dims, corr, keep)


def _reduce_norm(self, p='fro', dim=None, keepdim=False, dtype=None):
    t = self if dtype is None else self.to(dtype)
    if p is None or p == 'fro':
        p = 2
    elif isinstance(p, str):
        raise RuntimeError('norm(): the norm %r is not supported' % (p,))
    return Dl.Tensor.norm(t, float(p), _dims_or_all(dim), keepdim)


def _reduce_logsumexp(self, dim, keepdim=False):
    return Dl.Tensor.logsumexp(self, _dims(dim), keepdim)


def _reduce_all(self, dim=None, keepdim=False):
    return Dl.Tensor.all(self, _dims_or_all(dim), keepdim)


def _reduce_any(self, dim=None, keepdim=False):
    return Dl.Tensor.any(self, _dims_or_all(dim), keepdim)


def _reduce_median(self, dim=None, keepdim=False):
    if dim is None:
        return Dl.Tensor.median(self)
    return return_types.median(self.median_dim(_int_arg(dim, 'median', 'dim'), keepdim))


def _reduce_nanmedian(self, dim=None, keepdim=False):
    if dim is None:
        return Dl.Tensor.nanmedian(self)
    return return_types.nanmedian(self.nanmedian_dim(_int_arg(dim, 'nanmedian', 'dim'),
                                                     keepdim))


def _scan_args(self, dtype):
    return self if dtype is None else self.to(dtype)


def _scan_cumsum(self, dim, *, dtype=None):
    return _as_dtype(Dl.Tensor.cumsum(_scan_args(self, dtype), _int_arg(dim, 'cumsum', 'dim')),
                     dtype)


def _scan_cumprod(self, dim, *, dtype=None):
    return _as_dtype(Dl.Tensor.cumprod(_scan_args(self, dtype), _int_arg(dim, 'cumprod', 'dim')),
                     dtype)


def _scan_sort(self, dim=-1, descending=False, stable=False):
    # the sort is always stable
    return return_types.sort(Dl.Tensor.sort(self, _int_arg(dim, 'sort', 'dim'), bool(descending)))


def _scan_argsort(self, dim=-1, descending=False, stable=False):
    return _scan_sort(self, dim, descending)[1]


def _scan_topk(self, k, dim=-1, largest=True, sorted=True):
    return return_types.topk(Dl.Tensor.topk(self, _int_arg(k, 'topk', 'k'),
                                            _int_arg(dim, 'topk', 'dim'), bool(largest)))


def _unique_outputs(values, inverse, counts, return_inverse, return_counts):
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out[0] if len(out) == 1 else out


def _scan_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    for name, value in (('sorted', sorted), ('return_inverse', return_inverse),
                        ('return_counts', return_counts)):
        _bool_arg(value, 'unique', name)
    # with dim, PyTorch sorts the slices whatever sorted says
    if dim is not None:
        values, inverse, counts = Dl.Tensor.unique_dim(self, _int_arg(dim, 'unique', 'dim'))
    else:
        values, inverse, counts = Dl.Tensor.unique(self)
    return _unique_outputs(values, inverse, counts, return_inverse, return_counts)


def _reduce_kthvalue(self, k, dim=-1, keepdim=False):
    return return_types.kthvalue(Dl.Tensor.kthvalue(self, _int_arg(k, 'kthvalue', 'k'),
                                                    _int_arg(dim, 'kthvalue', 'dim'),
                                                    bool(keepdim)))


def _reduce_var_mean(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.var(self, dims, corr, keep), self.mean_dims(dims, keep)


def _reduce_std_mean(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.std(self, dims, corr, keep), self.mean_dims(dims, keep)


def _reduce_count_nonzero(self, dim=None):
    nz = self != 0
    return nz.sum() if dim is None else nz.sum(dim)


def _reduce_aminmax(self, *, dim=None, keepdim=False):
    dims = _dims_or_all(dim)
    return return_types.aminmax((Dl.Tensor.amin(self, dims, keepdim),
                                 Dl.Tensor.amax(self, dims, keepdim)))


def _scan_cummax(self, dim):
    return return_types.cummax(Dl.Tensor.cummax(self, _int_arg(dim, 'cummax', 'dim')))


def _scan_cummin(self, dim):
    return return_types.cummin(Dl.Tensor.cummin(self, _int_arg(dim, 'cummin', 'dim')))


def _scan_unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    _bool_arg(return_inverse, 'unique_consecutive', 'return_inverse')
    _bool_arg(return_counts, 'unique_consecutive', 'return_counts')
    if dim is not None:
        values, inverse, counts = Dl.Tensor.unique_consecutive_dim(
            self, _int_arg(dim, 'unique_consecutive', 'dim'))
    else:
        values, inverse, counts = Dl.Tensor.unique_consecutive(self)
    return _unique_outputs(values, inverse, counts, return_inverse, return_counts)


def _reduce_nansum(self, dim=None, keepdim=False, dtype=None):
    t = self if dtype is None else self.to(dtype)
    return _as_dtype(Dl.Tensor.nansum(t, _dims_or_all(dim), keepdim), dtype)


def _reduce_nanmean(self, dim=None, keepdim=False, dtype=None):
    t = self if dtype is None else self.to(dtype)
    return Dl.Tensor.nanmean(t, _dims_or_all(dim), keepdim)


def _scan_msort(self):
    return _scan_sort(self, 0)[0]


def _method(fn, name):
    """A reduction as a Tensor method: IndexError for dims out of range."""
    fn = _checked(fn)
    fn.__name__ = name
    return fn


_t_kthvalue = _method(_reduce_kthvalue, 'kthvalue')
_t_var_mean = _method(_reduce_var_mean, 'var_mean')
_t_std_mean = _method(_reduce_std_mean, 'std_mean')
_t_count_nonzero = _method(_reduce_count_nonzero, 'count_nonzero')
_t_aminmax = _method(_reduce_aminmax, 'aminmax')
_t_msort = _method(_scan_msort, 'msort')
_t_cummax = _method(_scan_cummax, 'cummax')
_t_cummin = _method(_scan_cummin, 'cummin')
_t_unique_consecutive = _method(_scan_unique_consecutive, 'unique_consecutive')
_t_nansum = _method(_reduce_nansum, 'nansum')
_t_nanmean = _method(_reduce_nanmean, 'nanmean')
_t_prod = _method(_reduce_prod, 'prod')
_t_amax = _method(_reduce_amax, 'amax')
_t_amin = _method(_reduce_amin, 'amin')
_t_var = _method(_reduce_var, 'var')
_t_std = _method(_reduce_std, 'std')
_t_norm = _method(_reduce_norm, 'norm')
_t_logsumexp = _method(_reduce_logsumexp, 'logsumexp')
_t_all = _method(_reduce_all, 'all')
_t_any = _method(_reduce_any, 'any')
_t_median = _method(_reduce_median, 'median')
_t_nanmedian = _method(_reduce_nanmedian, 'nanmedian')
_t_cumsum = _method(_scan_cumsum, 'cumsum')
_t_cumprod = _method(_scan_cumprod, 'cumprod')
_t_sort = _method(_scan_sort, 'sort')
_t_argsort = _method(_scan_argsort, 'argsort')
_t_topk = _method(_scan_topk, 'topk')
_t_unique = _method(_scan_unique, 'unique')

kthvalue = _method_fn(_t_kthvalue, 'kthvalue')
var_mean = _method_fn(_t_var_mean, 'var_mean')
std_mean = _method_fn(_t_std_mean, 'std_mean')
count_nonzero = _method_fn(_t_count_nonzero, 'count_nonzero')
aminmax = _method_fn(_t_aminmax, 'aminmax')
msort = _method_fn(_t_msort, 'msort')
cummax = _method_fn(_t_cummax, 'cummax')
cummin = _method_fn(_t_cummin, 'cummin')
unique_consecutive = _method_fn(_t_unique_consecutive, 'unique_consecutive')
nansum = _method_fn(_t_nansum, 'nansum')
nanmean = _method_fn(_t_nanmean, 'nanmean')
prod = _method_fn(_t_prod, 'prod')
amax = _method_fn(_t_amax, 'amax')
amin = _method_fn(_t_amin, 'amin')
var = _method_fn(_t_var, 'var')
std = _method_fn(_t_std, 'std')
norm = _method_fn(_t_norm, 'norm')
logsumexp = _method_fn(_t_logsumexp, 'logsumexp')
_all_fn = _method_fn(_t_all, 'all')
_any_fn = _method_fn(_t_any, 'any')
median = _method_fn(_t_median, 'median')
nanmedian = _method_fn(_t_nanmedian, 'nanmedian')
cumsum = _method_fn(_t_cumsum, 'cumsum')
cumprod = _method_fn(_t_cumprod, 'cumprod')
sort = _method_fn(_t_sort, 'sort')
argsort = _method_fn(_t_argsort, 'argsort')
topk = _method_fn(_t_topk, 'topk')
unique = _method_fn(_t_unique, 'unique')
