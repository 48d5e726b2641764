# reductions.py: part of the Dl override (bindings/python/gi/overrides/Dl.py),
# executed in that module's namespace after it; see _include there.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

# ---- reductions, scans and sorting (issue 3) ------------------------------------

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
    return _as_dtype(t.prod_dims([int(dim)], keepdim), dtype)


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
    values, indices = self.median_dim(int(dim), keepdim)
    return _ReturnValues(values, indices)


def _reduce_nanmedian(self, dim=None, keepdim=False):
    if dim is None:
        return Dl.Tensor.nanmedian(self)
    values, indices = self.nanmedian_dim(int(dim), keepdim)
    return _ReturnValues(values, indices)


def _scan_args(self, dtype):
    return self if dtype is None else self.to(dtype)


def _scan_cumsum(self, dim, *, dtype=None):
    return _as_dtype(Dl.Tensor.cumsum(_scan_args(self, dtype), int(dim)), dtype)


def _scan_cumprod(self, dim, *, dtype=None):
    return _as_dtype(Dl.Tensor.cumprod(_scan_args(self, dtype), int(dim)), dtype)


def _scan_sort(self, dim=-1, descending=False, stable=False):
    # the sort is always stable
    values, indices = Dl.Tensor.sort(self, int(dim), bool(descending))
    return _ReturnValues(values, indices)


def _scan_argsort(self, dim=-1, descending=False, stable=False):
    return _scan_sort(self, dim, descending)[1]


def _scan_topk(self, k, dim=-1, largest=True, sorted=True):
    values, indices = Dl.Tensor.topk(self, int(k), int(dim), bool(largest))
    return _ReturnValues(values, indices)


def _unique_outputs(values, inverse, counts, return_inverse, return_counts):
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out[0] if len(out) == 1 else out


def _scan_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    # with dim, PyTorch sorts the slices whatever sorted says
    if dim is not None:
        values, inverse, counts = Dl.Tensor.unique_dim(self, int(dim))
    else:
        values, inverse, counts = Dl.Tensor.unique(self)
    return _unique_outputs(values, inverse, counts, return_inverse, return_counts)


def _reduce_kthvalue(self, k, dim=-1, keepdim=False):
    values, indices = Dl.Tensor.kthvalue(self, int(k), int(dim), bool(keepdim))
    return _ReturnValues(values, indices)


def _reduce_var_mean(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.var(self, dims, corr, keep), self.mean_dims(dims, keep)


def _reduce_std_mean(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, corr, keep = _var_args(dim, unbiased, keepdim, correction)
    return Dl.Tensor.std(self, dims, corr, keep), self.mean_dims(dims, keep)


def _reduce_count_nonzero(self, dim=None):
    nz = self != 0
    return nz.sum() if dim is None else nz.sum(dim)


_MinMax = collections.namedtuple('aminmax', ['min', 'max'])


def _reduce_aminmax(self, *, dim=None, keepdim=False):
    dims = _dims_or_all(dim)
    return _MinMax(Dl.Tensor.amin(self, dims, keepdim), Dl.Tensor.amax(self, dims, keepdim))


def _scan_cummax(self, dim):
    values, indices = Dl.Tensor.cummax(self, int(dim))
    return _ReturnValues(values, indices)


def _scan_cummin(self, dim):
    values, indices = Dl.Tensor.cummin(self, int(dim))
    return _ReturnValues(values, indices)


def _scan_unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        values, inverse, counts = Dl.Tensor.unique_consecutive_dim(self, int(dim))
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


for _name, _fn in (('kthvalue', _reduce_kthvalue), ('var_mean', _reduce_var_mean),
                   ('std_mean', _reduce_std_mean), ('count_nonzero', _reduce_count_nonzero),
                   ('aminmax', _reduce_aminmax), ('msort', _scan_msort),
                   ('cummax', _scan_cummax), ('cummin', _scan_cummin),
                   ('unique_consecutive', _scan_unique_consecutive),
                   ('nansum', _reduce_nansum), ('nanmean', _reduce_nanmean),
                   ('prod', _reduce_prod), ('amax', _reduce_amax), ('amin', _reduce_amin),
                   ('var', _reduce_var), ('std', _reduce_std), ('norm', _reduce_norm),
                   ('logsumexp', _reduce_logsumexp), ('all', _reduce_all), ('any', _reduce_any),
                   ('median', _reduce_median), ('nanmedian', _reduce_nanmedian),
                   ('cumsum', _scan_cumsum),
                   ('cumprod', _scan_cumprod), ('sort', _scan_sort), ('argsort', _scan_argsort),
                   ('topk', _scan_topk), ('unique', _scan_unique)):
    _fn = _checked(_fn)
    _fn.__name__ = _name
    setattr(Tensor, _name, _fn)
    _export(_unary_fn(_name))
