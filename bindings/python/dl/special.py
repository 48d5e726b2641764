# special.py: torch.special. Each name is libdl's C op: the pointwise
# table's kernels (erf, erfc, erfinv, expm1, log1p, exp2, lgamma, digamma,
# polygamma, i0, sinc, sigmoid, logit, xlogy), its special_i1, and the
# host-evaluated functions of dl-ops-special.c (i0e, i1e, erfcx, ndtri,
# log_ndtr, gammainc, gammaincc, zeta). ndtr, entr and xlog1py are
# compositions of those ops (exact: one rounding each), as noted.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import numbers

from . import _random
from ._lib import Dl, _is_tensor

__all__ = ['digamma', 'entr', 'erf', 'erfc', 'erfcx', 'erfinv', 'exp2', 'expit', 'expm1',
           'gammainc', 'gammaincc', 'gammaln', 'i0', 'i0e', 'i1', 'i1e', 'log1p', 'log_ndtr',
           'log_softmax', 'logit', 'logsumexp', 'multigammaln', 'ndtr', 'ndtri', 'polygamma',
           'psi', 'round', 'sinc', 'softmax', 'xlog1py', 'xlogy', 'zeta']


def _tensor(x, fn, arg='input'):
    if not _is_tensor(x):
        raise TypeError("special_%s(): argument '%s' (position 1) must be Tensor, not %s"
                        % (fn, arg, type(x).__name__))
    return x


def _as_tensor(x, like):
    if _is_tensor(x):
        return x
    import dl
    return dl.tensor(x, dtype=like.dtype if like.is_floating_point() else None)


def _binary(fn, name, self, other):
    if not _is_tensor(self) and not _is_tensor(other):
        raise TypeError('special_%s(): expected at least one Tensor argument' % name)
    if not _is_tensor(self):
        self = _as_tensor(self, other)
    if not _is_tensor(other):
        other = _as_tensor(other, self)
    return fn(self, other)


def expit(input, *, out=None):
    return _tensor(input, 'expit').sigmoid()


def logit(input, eps=None, *, out=None):
    return _tensor(input, 'logit').logit(eps)


def erf(input, *, out=None):
    return _tensor(input, 'erf').erf()


def erfc(input, *, out=None):
    return _tensor(input, 'erfc').erfc()


def erfinv(input, *, out=None):
    return _tensor(input, 'erfinv').erfinv()


def erfcx(input, *, out=None):
    return Dl.Tensor.special_erfcx(_tensor(input, 'erfcx'))


def exp2(input, *, out=None):
    return _tensor(input, 'exp2').exp2()


def expm1(input, *, out=None):
    return _tensor(input, 'expm1').expm1()


def log1p(input, *, out=None):
    return _tensor(input, 'log1p').log1p()


def gammaln(input, *, out=None):
    return _tensor(input, 'gammaln').lgamma()


def digamma(input, *, out=None):
    return _tensor(input, 'digamma').digamma()


psi = digamma


def polygamma(n, input, *, out=None):
    return _random.polygamma(n, input)


def multigammaln(input, p, *, out=None):
    return _random.mvlgamma(input, p)


def i0(input, *, out=None):
    return _tensor(input, 'i0').i0()


def i0e(input, *, out=None):
    return Dl.Tensor.special_i0e(_tensor(input, 'i0e'))


def i1(input, *, out=None):
    return Dl.Tensor.special_i1(_tensor(input, 'i1'))


def i1e(input, *, out=None):
    return Dl.Tensor.special_i1e(_tensor(input, 'i1e'))


def ndtr(input, *, out=None):
    """Phi(x) = erfc(-x / sqrt 2) / 2 (a composition)."""
    return _tensor(input, 'ndtr').mul(-1 / math.sqrt(2)).erfc().mul(0.5)


def ndtri(input, *, out=None):
    return Dl.Tensor.special_ndtri(_tensor(input, 'ndtri'))


def log_ndtr(input, *, out=None):
    return Dl.Tensor.special_log_ndtr(_tensor(input, 'log_ndtr'))


def sinc(input, *, out=None):
    return _tensor(input, 'sinc').sinc()


def _round(input, decimals=0, *, out=None):
    """torch.special.round (named _round here, so that no builtin is
    shadowed; __getattr__ hands it out)"""
    return _tensor(input, 'round').round(decimals=decimals)


def softmax(input, dim, *, dtype=None):
    from .nn import functional as F
    return F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    from .nn import functional as F
    return F.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    return _tensor(input, 'logsumexp').logsumexp(dim, keepdim)


def xlogy(input, other, *, out=None):
    import dl
    return dl.xlogy(input, other)


def xlog1py(input, other, *, out=None):
    """input * log1p(other), 0 where input is 0 and other is not NaN (a
    composition: where over mul and log1p)."""
    import dl
    if not _is_tensor(input) and not _is_tensor(other):
        raise TypeError('special_xlog1py(): expected at least one Tensor argument')
    if not _is_tensor(input):
        input = _as_tensor(input, other)
    if not _is_tensor(other):
        other = _as_tensor(other, input)
    if not input.is_floating_point() and not other.is_floating_point():
        input = input.to(dl.get_default_dtype())
    prod = input * other.log1p()
    zero = (input == 0) & ~other.isnan()
    return dl.where(zero, dl.zeros_like(prod), prod)


def entr(input, *, out=None):
    """-x ln x for x > 0, 0 at 0, -inf below (a composition)."""
    import dl
    x = _tensor(input, 'entr')
    if not x.is_floating_point():
        x = x.to(dl.get_default_dtype())
    safe = dl.where(x > 0, x, dl.ones_like(x))
    val = -x * safe.log()
    val = dl.where(x == 0, dl.zeros_like(val), val)
    return dl.where(x < 0, dl.full_like(val, -math.inf), val)


def gammainc(input, other, *, out=None):
    return _binary(Dl.Tensor.igamma, 'gammainc', input, other)


def gammaincc(input, other, *, out=None):
    return _binary(Dl.Tensor.igammac, 'gammaincc', input, other)


def zeta(input, other, *, out=None):
    if isinstance(input, numbers.Number) and isinstance(other, numbers.Number):
        raise TypeError('special_zeta(): expected at least one Tensor argument')
    return _binary(Dl.Tensor.special_zeta, 'zeta', input, other)


def __getattr__(name):
    if name == 'round':
        return _round
    raise AttributeError("module 'dl.special' has no attribute %r" % name)
