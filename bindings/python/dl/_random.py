# _random.py: the samplers beyond uniform and normal (Tensor.exponential_,
# cauchy_, log_normal_, geometric_, torch.poisson, torch.binomial,
# torch._standard_gamma, torch._sample_dirichlet), libdl's C ops drawing
# from its generators; and torch.polygamma, torch.mvlgamma, whose kernels
# are libdl's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import numbers

from ._dtype import float64, get_default_dtype
from ._creation import _check_generator
from ._lib import Dl, _is_tensor
from ._typeinfo import finfo


def _exponential_(self, lambd=1.0, *, generator=None):
    return Dl.Tensor.exponential_(self, float(lambd), _check_generator(generator))


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    return Dl.Tensor.cauchy_(self, float(median), float(sigma), _check_generator(generator))


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    return Dl.Tensor.log_normal_(self, float(mean), float(std), _check_generator(generator))


def _geometric_(self, p, *, generator=None):
    return Dl.Tensor.geometric_(self, float(p), _check_generator(generator))


def _check_tensor(t, fn, arg):
    if not _is_tensor(t):
        raise TypeError("%s(): argument '%s' (position 1) must be Tensor, not %s"
                        % (fn, arg, type(t).__name__))


def poisson(input, generator=None):
    """torch.poisson(rates): a Poisson count for each rate."""
    _check_tensor(input, 'poisson', 'input')
    return Dl.poisson(input, _check_generator(generator))


def binomial(count, prob, generator=None):
    """torch.binomial(count, prob): the successes in count trials of
    probability prob (broadcast)."""
    _check_tensor(count, 'binomial', 'count')
    _check_tensor(prob, 'binomial', 'prob')
    return Dl.binomial(count, prob, _check_generator(generator))


def _standard_gamma(input, generator=None):
    """torch._standard_gamma(alpha): Gamma(alpha, 1) samples, differentiable
    in alpha (StandardGammaBackward0)."""
    _check_tensor(input, '_standard_gamma', 'input')
    return Dl.standard_gamma(input, _check_generator(generator))


def _standard_gamma_grad(input, output):
    """torch._standard_gamma_grad(alpha, sample): d sample / d alpha."""
    return Dl.standard_gamma_grad(input, output)


def _sample_dirichlet(input, generator=None):
    """torch._sample_dirichlet(concentration): Gamma samples normalised over
    the last dimension, as PyTorch draws them (_dirichlet_from_gammas)."""
    _check_tensor(input, '_sample_dirichlet', 'input')
    return _dirichlet_from_gammas(input.detach(), generator)


def _cascade_sum_last(x):
    """x.sum(-1, keepdim=True) for a contiguous float64 x, adding in the
    order of PyTorch's vectorized inner sum on the CPU (cascade_sum with
    vectors of 4 doubles and 4 accumulators), so that the result is
    PyTorch's to the last bit; differentiable like the adds it is made of."""
    k = x.shape[-1]
    w = 4
    nvec = k // w
    n = nvec // 4  # rows of 4 vectors
    acc = None
    if n:
        rows = x[..., :n * 4 * w].reshape(tuple(x.shape[:-1]) + (n, 4, w))
        power = max(4, (1 if n <= 2 else (n - 1).bit_length()) // 4)
        step, mask = 1 << power, (1 << power) - 1
        level = [None] * 4

        def add(a, b):
            return b if a is None else a + b
        i = 0
        while i + step <= n:
            for _ in range(step):
                level[0] = add(level[0], rows[..., i, :, :])
                i += 1
            for j in range(1, 4):
                level[j] = add(level[j], level[j - 1])
                level[j - 1] = None
                if i & (mask << (j * power)):
                    break
        while i < n:
            level[0] = add(level[0], rows[..., i, :, :])
            i += 1
        for j in range(1, 4):
            if level[j] is not None:
                level[0] = add(level[0], level[j])
        acc = [level[0][..., j, :] for j in range(4)]
    vec = None if acc is None else acc[0]
    for i in range(n * 4, nvec):
        v = x[..., i * w:(i + 1) * w]
        vec = v if vec is None else vec + v
    if acc is not None:
        for j in range(1, 4):
            vec = vec + acc[j]
    total = None
    for i in range(nvec * w, k):
        v = x[..., i:i + 1]
        total = v if total is None else total + v
    if vec is not None:
        for j in range(w):
            v = vec[..., j:j + 1]
            total = v if total is None else total + v
    return total


def _dirichlet_from_gammas(concentration, generator=None):
    """PyTorch's _s_dirichlet_cpu: the gammas drawn in float64 (so float32
    ones do not underflow), normalised in float64 by PyTorch's sum, brought
    to the concentration's dtype and into [tiny, the float below 1].
    Differentiable through the gammas (StandardGammaBackward0)."""
    dtype = concentration.dtype
    g = _standard_gamma(concentration.to(float64), generator)
    x = (g / _cascade_sum_last(g)).to(dtype)
    info = finfo(dtype)
    x.detach().clamp_(min=info.tiny, max=1.0 - info.eps / 2)
    return x


def polygamma(n, input, *, out=None):
    """torch.polygamma(n, input)."""
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError("polygamma(): argument 'n' (position 1) must be int, not %s"
                        % type(n).__name__)
    return Dl.Tensor.polygamma(input, int(n))


def _t_polygamma(self, n):
    return polygamma(n, self)


def _t_polygamma_(self, n):
    return self.copy_(polygamma(n, self))


def mvlgamma(input, p):
    """torch.mvlgamma(input, p): the multivariate log-gamma function of
    dimension p, sum_i lgamma(input - i / 2) + p (p - 1) / 4 ln(pi), a
    composition of lgamma (differentiable through it)."""
    if not isinstance(p, numbers.Integral) or isinstance(p, bool):
        raise TypeError("mvlgamma(): argument 'p' (position 2) must be int, not %s"
                        % type(p).__name__)
    if p < 1:
        raise RuntimeError('p has to be greater than or equal to 1')
    if not input.is_floating_point():
        input = input.to(get_default_dtype())
    if bool((input <= (p - 1) / 2.0).any()):
        raise RuntimeError('All elements must be greater than (p-1)/2')
    total = None
    for i in range(p):
        term = (input - i / 2.0).lgamma()
        total = term if total is None else total + term
    return total + p * (p - 1) / 4.0 * math.log(math.pi)


def _t_mvlgamma(self, p):
    return mvlgamma(self, p)


FUNCTIONS = {f.__name__: f for f in (poisson, binomial, _standard_gamma, _standard_gamma_grad,
                                     _sample_dirichlet, polygamma, mvlgamma)}
