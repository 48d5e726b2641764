# test_special.py: torch.special over libdl (dl/special.py), the samplers
# of dl/_random.py, torch.polygamma, mvlgamma and igamma against
# python3-torch: values on points spread over each domain (edges
# included), gradients, errors; the samplers' statistics with fixed seeds.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

import numpy as np
import pytest
import torch

import dl

DTYPES = ['float32', 'float64']


def _np(t):
    return t.detach().double().numpy()


def _tol(dtype):
    return dict(rtol=3e-6, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-11, atol=1e-13)


POINTS = {
    'expit': np.linspace(-30, 30, 41),
    'logit': np.linspace(0.01, 0.99, 23),
    'erf': np.linspace(-4, 4, 33),
    'erfc': np.linspace(-4, 20, 33),
    'erfinv': np.linspace(-0.99, 0.99, 23),
    'erfcx': np.concatenate([np.linspace(-20, 50, 57), [1e3, 1e6]]),
    'exp2': np.linspace(-10, 10, 21),
    'expm1': np.linspace(-3, 3, 21),
    'log1p': np.linspace(-0.9, 10, 21),
    'gammaln': np.linspace(0.1, 30, 31),
    'digamma': np.linspace(0.1, 30, 31),
    'psi': np.linspace(0.1, 30, 31),
    'i0': np.linspace(-20, 20, 41),
    'i0e': np.concatenate([np.linspace(-60, 60, 49), [-800.0, 1e4]]),
    'i1': np.linspace(-20, 20, 41),
    'i1e': np.concatenate([np.linspace(-60, 60, 49), [-800.0, 1e4]]),
    'ndtr': np.linspace(-8, 8, 33),
    'ndtri': np.concatenate([np.linspace(0.001, 0.999, 37), [1e-30, 1e-10, 1 - 1e-7]]),
    'log_ndtr': np.concatenate([np.linspace(-40, 10, 51), [-200.0, 30.0]]),
    'sinc': np.linspace(-3, 3, 25),
    'entr': np.concatenate([np.linspace(0, 3, 13), [-1.0]]),
}
UNARY_GRAD = ['expit', 'erf', 'erfc', 'erfcx', 'gammaln', 'digamma', 'i0', 'i0e', 'i1', 'i1e',
              'ndtr', 'ndtri', 'log_ndtr', 'sinc', 'entr', 'logit']


@pytest.mark.parametrize('name', sorted(POINTS))
@pytest.mark.parametrize('dtype', DTYPES)
def test_unary_values(name, dtype):
    x = POINTS[name]
    if dtype == 'float32' and name in ('erfcx', 'i0e', 'i1e', 'log_ndtr'):
        x = x[np.abs(x) < 1e4]
    got = getattr(dl.special, name)(dl.tensor(x, dtype=getattr(dl, dtype)))
    want = getattr(torch.special, name)(torch.tensor(x, dtype=getattr(torch, dtype)))
    assert str(got.dtype) == str(want.dtype).replace('torch.', 'dl.') or got.dtype == dl.float64 \
        or got.dtype == dl.float32
    np.testing.assert_allclose(_np(got), _np(want), **_tol(dtype))


@pytest.mark.parametrize('name', UNARY_GRAD)
def test_unary_gradients(name):
    x = POINTS[name]
    x = x[(np.abs(x) < 50) & (x != 0) & (np.abs(x) != 1)] if name != 'entr' else x[x > 0]
    res = []
    for lib in (dl, torch):
        t = lib.tensor(x, requires_grad=True)
        y = getattr(lib.special, name)(t)
        g, = lib.autograd.grad(y.sum(), [t])
        res.append(g)
    np.testing.assert_allclose(_np(res[0]), _np(res[1]), rtol=1e-8, atol=1e-12)


def test_unary_gradcheck():
    x = dl.tensor([0.3, 1.7, -2.2], dtype=dl.float64, requires_grad=True)
    for fn in (dl.special.i0e, dl.special.i1e, dl.special.erfcx, dl.special.log_ndtr):
        assert dl.autograd.gradcheck(fn, (x,))
    p = dl.tensor([0.1, 0.5, 0.93], dtype=dl.float64, requires_grad=True)
    assert dl.autograd.gradcheck(dl.special.ndtri, (p,))


def test_backward_node_names():
    x = dl.tensor([0.5, 1.5], requires_grad=True)
    assert type(dl.special.i0e(x).grad_fn).__name__ == 'SpecialI0EBackward0' or \
        dl.special.i0e(x).grad_fn.name() == 'SpecialI0EBackward0'


def _binary_case(lib, fn, a, b, dtype):
    return getattr(lib.special, fn)(lib.tensor(a, dtype=getattr(lib, dtype)),
                                    lib.tensor(b, dtype=getattr(lib, dtype)))


GAMMAINC_A = np.array([0, 0, 1, -1, 1, 1, 2, 0.5, 0.5, 3.0, 10.0, 10.0, 50.0, 200.0, 1e-3])
GAMMAINC_X = np.array([1, 0, 0, 1, -1, np.inf, 3, 0.1, 4.0, 2.5, 3.0, 15.0, 45.0, 210.0, 1e-3])


@pytest.mark.parametrize('fn', ['gammainc', 'gammaincc'])
@pytest.mark.parametrize('dtype', DTYPES)
def test_incomplete_gamma(fn, dtype):
    got = _binary_case(dl, fn, GAMMAINC_A, GAMMAINC_X, dtype)
    want = _binary_case(torch, fn, GAMMAINC_A, GAMMAINC_X, dtype)
    tol = _tol(dtype)
    np.testing.assert_allclose(_np(got), _np(want), rtol=max(tol['rtol'], 1e-9),
                               atol=max(tol['atol'], 1e-12))
    # broadcasting, torch.igamma and the Tensor method
    a = np.array([[0.5], [2.0], [7.0]])
    x = np.array([0.3, 1.0, 4.0, 9.0])
    g = dl.igamma(dl.tensor(a), dl.tensor(x)) if fn == 'gammainc' else \
        dl.tensor(a).igammac(dl.tensor(x))
    w = torch.igamma(torch.tensor(a), torch.tensor(x)) if fn == 'gammainc' else \
        torch.tensor(a).igammac(torch.tensor(x))
    np.testing.assert_allclose(_np(g), _np(w), rtol=1e-11)


def test_incomplete_gamma_gradients():
    a = np.array([0.5, 2.0, 7.0])
    x = np.array([0.3, 2.5, 6.0])
    res = []
    for lib in (dl, torch):
        at = lib.tensor(a)
        xt = lib.tensor(x, requires_grad=True)
        g, = lib.autograd.grad((lib.special.gammainc(at, xt) - lib.special.gammaincc(at, xt)
                                ).sum(), [xt])
        res.append(g)
        at.requires_grad_(True)
        y = lib.special.gammainc(at, xt)
        assert type(y.grad_fn).__name__ == 'IgammaBackward0' or lib is dl
        with pytest.raises((NotImplementedError, RuntimeError), match='igamma: input'):
            lib.autograd.grad(y.sum(), [at])
    np.testing.assert_allclose(_np(res[0]), _np(res[1]), rtol=1e-10)


@pytest.mark.parametrize('dtype', DTYPES)
def test_zeta(dtype):
    x = np.array([1, 0.5, 2, 2, 2, 2, 3, -1, 4.5, 1.5, 10.0, 2.0])
    q = np.array([1, 1, 0, -1, -1.5, 1, 2.5, 2, 0.3, 20.0, 1.0, 1e3])
    got = _binary_case(dl, 'zeta', x, q, dtype)
    want = _binary_case(torch, 'zeta', x, q, dtype)
    np.testing.assert_allclose(_np(got), _np(want), **_tol(dtype))
    # a number for either operand
    np.testing.assert_allclose(_np(dl.special.zeta(2.0, dl.tensor([1.0, 2.0]))),
                               _np(torch.special.zeta(2.0, torch.tensor([1.0, 2.0]))), rtol=1e-6)
    qt = {lib: lib.tensor([0.7, 3.0], requires_grad=True) for lib in (dl, torch)}
    gs = [lib.autograd.grad(lib.special.zeta(lib.tensor([2.5, 3.0]), qt[lib]).sum(), [qt[lib]])[0]
          for lib in (dl, torch)]
    np.testing.assert_allclose(_np(gs[0]), _np(gs[1]), rtol=1e-5)


def test_xlog1py_xlogy():
    a = np.array([0.0, 0.0, 1.5, -2.0, 3.0])
    b = np.array([np.nan, -1.0, 0.5, 2.0, -0.5])
    for fn in ('xlog1py', 'xlogy'):
        bb = b if fn == 'xlog1py' else np.abs(b)
        got = getattr(dl.special, fn)(dl.tensor(a), dl.tensor(bb))
        want = getattr(torch.special, fn)(torch.tensor(a), torch.tensor(bb))
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12)
    res = []
    for lib in (dl, torch):
        x = lib.tensor([0.5, 2.0, -1.0], requires_grad=True)
        y = lib.tensor([0.3, 1.0, 4.0], requires_grad=True)
        res.append(lib.autograd.grad(lib.special.xlog1py(x, y).sum(), [x, y]))
    for u, v in zip(*res):
        np.testing.assert_allclose(_np(u), _np(v), rtol=1e-12)


def test_reductions_and_aliases():
    r = np.random.default_rng(0)
    x = r.normal(size=(3, 4))
    for fn, args in (('softmax', (1,)), ('log_softmax', (0,)), ('logsumexp', (1,)),
                     ('round', ()), ('multigammaln', (3,)), ('polygamma', ())):
        if fn == 'multigammaln':
            a, b = (dl.tensor(np.abs(x) + 2),) + args, (torch.tensor(np.abs(x) + 2),) + args
        elif fn == 'polygamma':
            a, b = (2, dl.tensor(np.abs(x) + 0.5)), (2, torch.tensor(np.abs(x) + 0.5))
        else:
            a, b = (dl.tensor(x),) + args, (torch.tensor(x),) + args
        np.testing.assert_allclose(_np(getattr(dl.special, fn)(*a)),
                                   _np(getattr(torch.special, fn)(*b)), rtol=1e-11, atol=1e-12)


def test_polygamma_and_mvlgamma():
    x = np.linspace(0.2, 6, 12)
    for n in range(4):
        res = []
        for lib in (dl, torch):
            t = lib.tensor(x, requires_grad=True)
            y = lib.polygamma(n, t)
            g, = lib.autograd.grad(y.sum(), [t])
            res.append((y, g, t.polygamma(n)))
        for u, v in zip(*res):
            np.testing.assert_allclose(_np(u), _np(v), rtol=1e-9)
    with pytest.raises(RuntimeError, match='does not support negative n'):
        dl.polygamma(-1, dl.tensor([1.0]))
    for p in (1, 2, 4):
        res = []
        for lib in (dl, torch):
            t = lib.tensor(x + 2, requires_grad=True)
            y = lib.mvlgamma(t, p)
            res.append((y, lib.autograd.grad(y.sum(), [t])[0], t.mvlgamma(p)))
        for u, v in zip(*res):
            np.testing.assert_allclose(_np(u), _np(v), rtol=1e-10)
    with pytest.raises(RuntimeError, match='greater than or equal to 1'):
        dl.mvlgamma(dl.tensor([2.0]), 0)
    with pytest.raises(RuntimeError):
        dl.mvlgamma(dl.tensor([0.5]), 3)


# ---- the samplers -------------------------------------------------------

def _ks(samples, cdf):
    s = np.sort(samples)
    f = cdf(s)
    n = len(s)
    return max(np.max(np.abs(f - np.arange(n) / n)), np.max(np.abs(np.arange(1, n + 1) / n - f)))


@pytest.mark.parametrize('dtype', DTYPES)
def test_inplace_samplers(dtype):
    n = 30000
    g = dl.Generator()
    g.manual_seed(42)
    t = dl.empty(n, dtype=getattr(dl, dtype))
    assert t.exponential_(2.0, generator=g) is t
    x = _np(t)
    assert _ks(x, lambda v: 1 - np.exp(-2 * v)) < 1.95 / math.sqrt(n)
    t.cauchy_(1.0, 0.5)
    x = _np(t)
    assert _ks(x, lambda v: np.arctan((v - 1) / 0.5) / math.pi + 0.5) < 1.95 / math.sqrt(n)
    t.log_normal_(0.2, 0.5)
    x = np.log(_np(t))
    assert abs(x.mean() - 0.2) < 0.02 and abs(x.std() - 0.5) < 0.02
    t.geometric_(0.25)
    x = _np(t)
    assert x.min() >= 1 and np.all(x == np.floor(x))
    assert abs(x.mean() - 4) < 0.1
    # the same seed gives the same numbers
    g.manual_seed(9)
    a = _np(dl.empty(100).exponential_(generator=g))
    g.manual_seed(9)
    b = _np(dl.empty(100).exponential_(generator=g))
    assert np.array_equal(a, b)


def test_sampler_errors():
    for make in (lambda t: t.empty(3).exponential_(-1.0),
                 lambda t: t.empty(3).log_normal_(0.0, 0.0),
                 lambda t: t.empty(3).geometric_(1.5),
                 lambda t: t.empty(3, dtype=t.int64).exponential_(1.0),
                 lambda t: t.poisson(t.tensor([-1.0])),
                 lambda t: t.poisson(t.tensor([1], dtype=t.int64)),
                 lambda t: t.binomial(t.tensor([10.0]), t.tensor([0.5], dtype=t.float64))):
        with pytest.raises(RuntimeError) as want:
            make(torch)
        with pytest.raises(RuntimeError) as got:
            make(dl)
        # the same first word: the op (torch's kernel name less _cpu) or the message
        assert str(want.value).split(' ')[0].strip('"').replace('_cpu', '') in str(got.value)


def test_poisson_binomial_gamma_functions():
    dl.manual_seed(0)
    rates = dl.tensor([0.5, 5.0, 80.0]).repeat(20000, 1)
    k = dl.poisson(rates).numpy()
    np.testing.assert_allclose(k.mean(0), [0.5, 5.0, 80.0], rtol=0.03)
    np.testing.assert_allclose(k.var(0), [0.5, 5.0, 80.0], rtol=0.06)
    count = dl.tensor([4.0, 40.0, 400.0])
    prob = dl.tensor([0.7, 0.2, 0.5]).repeat(20000, 1)
    b = dl.binomial(count, prob).numpy()  # broadcast, as torch's
    np.testing.assert_allclose(b.mean(0), [2.8, 8.0, 200.0], rtol=0.02)
    assert b.max() <= 400
    alpha = dl.tensor([0.2, 1.0, 30.0], requires_grad=True)
    x = dl._standard_gamma(alpha.expand(20000, 3))
    assert type(x.grad_fn).__name__ == 'StandardGammaBackward0' or \
        x.grad_fn.name() == 'StandardGammaBackward0'
    np.testing.assert_allclose(x.detach().numpy().mean(0), [0.2, 1.0, 30.0], rtol=0.04)
    g, = dl.autograd.grad(x.mean(0).sum(), [alpha])
    np.testing.assert_allclose(g.numpy(), [1.0, 1.0, 1.0], rtol=0.05)
    r = dl.tensor([2.0], requires_grad=True)
    p = dl.poisson(r)
    g, = dl.autograd.grad(p.sum(), [r])
    assert g.item() == 0.0
    d = dl._sample_dirichlet(dl.tensor([[1.0, 2.0, 3.0]]).expand(10000, 3)).numpy()
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(d.mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.01)
