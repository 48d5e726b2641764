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

from ._dtype import get_default_dtype
from ._creation import _check_generator
from ._lib import Dl, _is_tensor


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
    the last dimension."""
    g = _standard_gamma(input.detach(), generator)
    return g / g.sum(-1, keepdim=True)


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
