# test_distributions.py: torch.distributions over libdl (dl/distributions)
# against python3-torch's on the same parameters: log_prob, entropy, mean,
# variance, cdf and icdf, KL divergences and their gradients with respect
# to the parameters; sample shapes; sample means against the distribution
# means (fixed seeds, bounds of several standard errors); reparameterised
# gradients; argument validation.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import zlib

import numpy as np
import pytest
import torch

import dl

SHAPES = [(), (3,), (2, 3)]
DTYPES = ['float32', 'float64']


def _pos(r, s, lo=0.5, hi=2.0):
    return r.uniform(lo, hi, s)


def _simplex(r, s, k):
    p = r.uniform(0.1, 1.0, s + (k,))
    return p / p.sum(-1, keepdims=True)


def _tril(r, s, n):
    a = r.normal(size=s + (n, n)) * 0.3
    L = np.tril(a, -1) + np.eye(n) * r.uniform(0.7, 1.5, s + (n, 1))
    return L


def _pd(r, s, n):
    L = _tril(r, s, n)
    return L @ np.swapaxes(L, -1, -2)


# name: (class, parameters(rng, shape), value(rng, shape, params),
#        differentiable parameter names, methods beyond log_prob)
CASES = {
    'Normal': ('Normal', lambda r, s: dict(loc=r.normal(size=s), scale=_pos(r, s)),
               lambda r, s, p: r.normal(size=s), ['loc', 'scale'],
               ['entropy', 'mean', 'variance', 'stddev', 'cdf', 'icdf']),
    'Laplace': ('Laplace', lambda r, s: dict(loc=r.normal(size=s), scale=_pos(r, s)),
                lambda r, s, p: r.normal(size=s), ['loc', 'scale'],
                ['entropy', 'mean', 'variance', 'stddev', 'cdf', 'icdf']),
    'Cauchy': ('Cauchy', lambda r, s: dict(loc=r.normal(size=s), scale=_pos(r, s)),
               lambda r, s, p: r.normal(size=s), ['loc', 'scale'], ['entropy', 'cdf', 'icdf']),
    'LogNormal': ('LogNormal', lambda r, s: dict(loc=r.normal(size=s) * 0.5, scale=_pos(r, s)),
                  lambda r, s, p: _pos(r, s, 0.1, 3.0), ['loc', 'scale'],
                  ['entropy', 'mean', 'variance', 'cdf', 'icdf']),
    'Exponential': ('Exponential', lambda r, s: dict(rate=_pos(r, s)),
                    lambda r, s, p: _pos(r, s, 0.05, 3.0), ['rate'],
                    ['entropy', 'mean', 'variance', 'cdf', 'icdf']),
    'Gamma': ('Gamma', lambda r, s: dict(concentration=_pos(r, s, 0.5, 3), rate=_pos(r, s)),
              lambda r, s, p: _pos(r, s, 0.1, 4.0), ['concentration', 'rate'],
              ['entropy', 'mean', 'variance']),
    'Beta': ('Beta', lambda r, s: dict(concentration1=_pos(r, s, 0.5, 3),
                                       concentration0=_pos(r, s, 0.5, 3)),
             lambda r, s, p: r.uniform(0.05, 0.95, s), ['concentration1', 'concentration0'],
             ['entropy', 'mean', 'variance']),
    'Uniform': ('Uniform', lambda r, s: (lambda lo: dict(low=lo, high=lo + _pos(r, s)))(
        r.normal(size=s)),
        lambda r, s, p: p['low'] + 0.9 * r.uniform(0, 1, s) * (p['high'] - p['low']),
        ['low', 'high'], ['entropy', 'mean', 'variance', 'stddev', 'cdf', 'icdf']),
    'Poisson': ('Poisson', lambda r, s: dict(rate=_pos(r, s, 0.5, 5)),
                lambda r, s, p: r.integers(0, 8, s).astype(float), ['rate'],
                ['mean', 'variance']),
    'BernoulliProbs': ('Bernoulli', lambda r, s: dict(probs=r.uniform(0.1, 0.9, s)),
                       lambda r, s, p: r.integers(0, 2, s).astype(float), ['probs'],
                       ['entropy', 'mean', 'variance']),
    'BernoulliLogits': ('Bernoulli', lambda r, s: dict(logits=r.normal(size=s)),
                        lambda r, s, p: r.integers(0, 2, s).astype(float), ['logits'],
                        ['entropy', 'mean', 'variance']),
    'Geometric': ('Geometric', lambda r, s: dict(probs=r.uniform(0.1, 0.9, s)),
                  lambda r, s, p: r.integers(0, 6, s).astype(float), ['probs'],
                  ['entropy', 'mean', 'variance']),
    'Binomial': ('Binomial', lambda r, s: dict(total_count=np.full(s, 10.0),
                                               probs=r.uniform(0.1, 0.9, s)),
                 lambda r, s, p: r.integers(0, 11, s).astype(float), ['probs'],
                 ['entropy', 'mean', 'variance']),
    'BinomialLogits': ('Binomial', lambda r, s: dict(total_count=np.full(s, 7.0),
                                                     logits=r.normal(size=s)),
                       lambda r, s, p: r.integers(0, 8, s).astype(float), ['logits'],
                       ['mean', 'variance']),
    'StudentT': ('StudentT', lambda r, s: dict(df=_pos(r, s, 2.5, 6), loc=r.normal(size=s),
                                               scale=_pos(r, s)),
                 lambda r, s, p: r.normal(size=s), ['df', 'loc', 'scale'],
                 ['entropy', 'mean', 'variance']),
    'CategoricalProbs': ('Categorical', lambda r, s: dict(probs=_simplex(r, s, 4)),
                         lambda r, s, p: r.integers(0, 4, s).astype(np.int64), ['probs'],
                         ['entropy']),
    'CategoricalLogits': ('Categorical', lambda r, s: dict(logits=r.normal(size=s + (4,))),
                          lambda r, s, p: r.integers(0, 4, s).astype(np.int64), ['logits'],
                          ['entropy']),
    'OneHotCategorical': ('OneHotCategorical', lambda r, s: dict(probs=_simplex(r, s, 4)),
                          lambda r, s, p: np.eye(4)[r.integers(0, 4, s)], ['probs'],
                          ['entropy', 'mean', 'variance']),
    'Dirichlet': ('Dirichlet', lambda r, s: dict(concentration=_pos(r, s + (3,), 0.5, 3)),
                  lambda r, s, p: _simplex(r, s, 3), ['concentration'],
                  ['entropy', 'mean', 'variance']),
    'MVNScaleTril': ('MultivariateNormal', lambda r, s: dict(loc=r.normal(size=s + (3,)),
                                                             scale_tril=_tril(r, s, 3)),
                     lambda r, s, p: r.normal(size=s + (3,)), ['loc', 'scale_tril'],
                     ['entropy', 'mean', 'variance']),
    'MVNCovariance': ('MultivariateNormal', lambda r, s: dict(loc=r.normal(size=s + (3,)),
                                                              covariance_matrix=_pd(r, s, 3)),
                      lambda r, s, p: r.normal(size=s + (3,)), ['loc', 'covariance_matrix'],
                      ['entropy', 'variance']),
    'MVNPrecision': ('MultivariateNormal', lambda r, s: dict(loc=r.normal(size=s + (3,)),
                                                             precision_matrix=_pd(r, s, 3)),
                     lambda r, s, p: r.normal(size=s + (3,)), ['loc', 'precision_matrix'],
                     ['entropy', 'variance']),
}


def _tensors(lib, params, dtype, grads):
    out = {}
    for k, v in params.items():
        t = lib.tensor(np.asarray(v), dtype=getattr(lib, dtype))
        if k in grads:
            t.requires_grad_(True)
        out[k] = t
    return out


def _value(lib, v, dtype):
    v = np.asarray(v)
    if v.dtype == np.int64:
        return lib.tensor(v)
    return lib.tensor(v, dtype=getattr(lib, dtype))


def _np(t):
    return t.detach().double().numpy() if hasattr(t, 'detach') else np.asarray(t)


def _tol(dtype):
    return dict(rtol=2e-4, atol=2e-5) if dtype == 'float32' else dict(rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize('case', sorted(CASES))
@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('dtype', DTYPES)
def test_values_and_gradients(case, shape, dtype):
    cls, make, value, grads, methods = CASES[case]
    if cls == 'MultivariateNormal' and shape == (2, 3):
        shape = (2,)
    r = np.random.default_rng(zlib.crc32(repr((case, shape, dtype)).encode()))
    params = make(r, shape)
    v = value(r, shape, params)
    results = {}
    for lib in (dl, torch):
        ps = _tensors(lib, params, dtype, grads)
        d = getattr(lib.distributions, cls)(**ps)
        val = _value(lib, v, dtype)
        out = {'log_prob': d.log_prob(val)}
        for m in methods:
            if m in ('cdf',):
                out[m] = d.cdf(val)
            elif m == 'icdf':
                out[m] = d.icdf(_value(lib, r.uniform(0.05, 0.95, shape), dtype))
            elif m == 'entropy':
                out[m] = d.entropy()
            else:
                out[m] = getattr(d, m)
        total = sum(o.sum() for o in out.values() if o.requires_grad)
        gs = lib.autograd.grad(total, [ps[k] for k in grads], allow_unused=True)
        results[lib] = (out, gs, tuple(d.batch_shape), tuple(d.event_shape))
        r = np.random.default_rng(zlib.crc32(repr((case, shape, dtype)).encode()))
        params = make(r, shape)
        v = value(r, shape, params)
    (o1, g1, b1, e1), (o2, g2, b2, e2) = results[dl], results[torch]
    assert (b1, e1) == (b2, e2)
    tol = _tol(dtype)
    for k in o2:
        assert tuple(o1[k].shape) == tuple(o2[k].shape), k
        np.testing.assert_allclose(_np(o1[k]), _np(o2[k]), err_msg=k, **tol)
    for name, a, b in zip(grads, g1, g2):
        assert (a is None) == (b is None), name
        if b is not None:
            np.testing.assert_allclose(_np(a), _np(b), err_msg='grad ' + name,
                                       rtol=tol['rtol'] * 10, atol=tol['atol'] * 10)


KL_PAIRS = {
    'Normal': lambda r, s: [dict(loc=r.normal(size=s), scale=_pos(r, s)) for _ in range(2)],
    'Laplace': lambda r, s: [dict(loc=r.normal(size=s), scale=_pos(r, s)) for _ in range(2)],
    'Exponential': lambda r, s: [dict(rate=_pos(r, s)) for _ in range(2)],
    'Gamma': lambda r, s: [dict(concentration=_pos(r, s, 0.5, 3), rate=_pos(r, s))
                           for _ in range(2)],
    'Beta': lambda r, s: [dict(concentration1=_pos(r, s, 0.5, 3),
                               concentration0=_pos(r, s, 0.5, 3)) for _ in range(2)],
    'Dirichlet': lambda r, s: [dict(concentration=_pos(r, s + (3,), 0.5, 3))
                               for _ in range(2)],
    'Bernoulli': lambda r, s: [dict(probs=r.uniform(0.1, 0.9, s)) for _ in range(2)],
    'Categorical': lambda r, s: [dict(logits=r.normal(size=s + (4,))) for _ in range(2)],
    'OneHotCategorical': lambda r, s: [dict(probs=_simplex(r, s, 4)) for _ in range(2)],
    'Poisson': lambda r, s: [dict(rate=_pos(r, s)) for _ in range(2)],
    'Geometric': lambda r, s: [dict(probs=r.uniform(0.1, 0.9, s)) for _ in range(2)],
    'Uniform': lambda r, s: (lambda lo: [dict(low=lo, high=lo + 1.0),
                                         dict(low=lo - 0.5, high=lo + 2.0)])(r.normal(size=s)),
    'MultivariateNormal': lambda r, s: [dict(loc=r.normal(size=s + (3,)),
                                             scale_tril=_tril(r, s, 3)) for _ in range(2)],
}


@pytest.mark.parametrize('cls', sorted(KL_PAIRS))
@pytest.mark.parametrize('shape', [(), (2, 3)])
@pytest.mark.parametrize('dtype', DTYPES)
def test_kl_divergence(cls, shape, dtype):
    if cls == 'MultivariateNormal':
        shape = shape[:1]
    results = {}
    for lib in (dl, torch):
        r = np.random.default_rng(7)
        pp, qp = KL_PAIRS[cls](r, shape)
        grads = [k for k in pp if k not in ('low', 'high')]
        ps = _tensors(lib, pp, dtype, grads)
        qs = _tensors(lib, qp, dtype, grads)
        D = getattr(lib.distributions, cls)
        kl = lib.distributions.kl_divergence(D(**ps), D(**qs))
        ins = [ps[k] for k in grads] + [qs[k] for k in grads]
        gs = lib.autograd.grad(kl.sum(), ins) if ins else ()
        results[lib] = (kl, gs)
    tol = _tol(dtype)
    np.testing.assert_allclose(_np(results[dl][0]), _np(results[torch][0]), **tol)
    for a, b in zip(results[dl][1], results[torch][1]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=tol['rtol'] * 10, atol=tol['atol'] * 10)


def test_kl_uniform_outside_is_inf():
    p = dl.distributions.Uniform(dl.tensor([0.0, 0.0]), dl.tensor([1.0, 1.0]))
    q = dl.distributions.Uniform(dl.tensor([0.5, -1.0]), dl.tensor([2.0, 2.0]))
    kl = dl.distributions.kl_divergence(p, q)
    assert math.isinf(kl[0].item()) and abs(kl[1].item() - math.log(3)) < 1e-6


def test_register_kl_and_missing_pair():
    D = dl.distributions

    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return dl.zeros(())

    assert D.kl_divergence(MyNormal(0., 1.), D.Normal(1., 1.)).item() == 0.0
    # the subclass still dispatches to Normal-Normal the other way round
    assert D.kl_divergence(D.Normal(0., 1.), MyNormal(1., 1.)).item() == pytest.approx(0.5)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Normal(0., 1.), D.Exponential(1.))


SAMPLERS = {
    'Normal': dict(loc=[0.5, -1.0], scale=[1.0, 2.0]),
    'Laplace': dict(loc=[0.5, -1.0], scale=[1.0, 2.0]),
    'Exponential': dict(rate=[0.5, 3.0]),
    'Gamma': dict(concentration=[0.4, 5.0], rate=[1.0, 2.0]),
    'Beta': dict(concentration1=[0.5, 4.0], concentration0=[2.0, 3.0]),
    'Poisson': dict(rate=[0.7, 40.0]),
    'Bernoulli': dict(probs=[0.2, 0.7]),
    'Geometric': dict(probs=[0.2, 0.7]),
    'Binomial': dict(total_count=[5.0, 200.0], probs=[0.3, 0.6]),
    'Uniform': dict(low=[0.0, -2.0], high=[1.0, 3.0]),
    'LogNormal': dict(loc=[0.0, 0.5], scale=[0.5, 0.25]),
    'StudentT': dict(df=[5.0, 10.0], loc=[0.0, 1.0], scale=[1.0, 2.0]),
    'Dirichlet': dict(concentration=[[0.5, 1.0, 2.0], [3.0, 3.0, 3.0]]),
    'Categorical': dict(probs=[[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
    'OneHotCategorical': dict(probs=[[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
    'MultivariateNormal': dict(loc=[[1.0, -1.0]], scale_tril=[[[1.0, 0.0], [0.5, 0.7]]]),
}


@pytest.mark.parametrize('cls', sorted(SAMPLERS))
def test_sample_shapes_and_means(cls):
    dl.manual_seed(1234)
    params = {k: dl.tensor(v, dtype=dl.float64) for k, v in SAMPLERS[cls].items()}
    d = getattr(dl.distributions, cls)(**params)
    n = 20000
    x = d.sample((n,))
    assert tuple(x.shape) == (n,) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert tuple(d.sample().shape) == tuple(d.batch_shape) + tuple(d.event_shape)
    assert tuple(d.sample((2, 3)).shape) == (2, 3) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert not x.requires_grad
    assert bool(d.support.check(x).all())
    xs = x.numpy()
    if cls == 'Categorical':
        probs = np.asarray(SAMPLERS[cls]['probs'])
        freq = np.stack([(xs == k).mean(0) for k in range(3)], -1)
        np.testing.assert_allclose(freq, probs, atol=0.015)
        return
    mean = d.mean.numpy()
    sd = np.sqrt(d.variance.numpy())
    assert np.all(np.abs(xs.mean(0) - mean) < 5 * sd / math.sqrt(n) + 1e-12), cls
    if cls not in ('LogNormal', 'StudentT'):
        np.testing.assert_allclose(xs.var(0), sd ** 2, rtol=0.06, atol=1e-3, err_msg=cls)


@pytest.mark.parametrize('cls', ['Normal', 'Laplace', 'Exponential', 'Cauchy', 'Gamma', 'Beta',
                                 'Dirichlet', 'LogNormal', 'Uniform', 'StudentT',
                                 'MultivariateNormal'])
def test_rsample_gradients_flow(cls):
    dl.manual_seed(3)
    params = dict(SAMPLERS.get(cls, dict(loc=[0.5, -1.0], scale=[1.0, 2.0])))
    ps = {k: dl.tensor(v, dtype=dl.float64, requires_grad=True) for k, v in params.items()}
    d = getattr(dl.distributions, cls)(**ps)
    assert d.has_rsample
    x = d.rsample((5,))
    assert x.requires_grad
    grads = dl.autograd.grad(x.sum(), list(ps.values()), allow_unused=True)
    assert any(g is not None and bool((g != 0).any()) for g in grads)


def test_gamma_rsample_gradient_is_unbiased():
    # d E[X] / d concentration = 1 / rate for X ~ Gamma(c, rate)
    dl.manual_seed(11)
    c = dl.tensor([0.3, 1.5, 6.0], dtype=dl.float64, requires_grad=True)
    rate = dl.tensor([1.0, 2.0, 0.5], dtype=dl.float64, requires_grad=True)
    n = 40000
    x = dl.distributions.Gamma(c, rate).rsample((n,))
    gc, gr = dl.autograd.grad(x.mean(0).sum(), [c, rate])
    np.testing.assert_allclose(gc.numpy(), 1 / rate.detach().numpy(), rtol=0.04)
    np.testing.assert_allclose(gr.numpy(), -(c / rate ** 2).detach().numpy(), rtol=0.04)


def test_dirichlet_and_beta_rsample_gradients_are_unbiased():
    dl.manual_seed(5)
    a = np.array([0.7, 2.0, 4.0])
    alpha = dl.tensor(a, requires_grad=True)
    n = 40000
    x = dl.distributions.Dirichlet(alpha).rsample((n,))
    g, = dl.autograd.grad(x[:, 0].mean(), [alpha])
    A = a.sum()
    expected = np.array([(A - a[0]) / A ** 2, -a[0] / A ** 2, -a[0] / A ** 2])
    np.testing.assert_allclose(g.numpy(), expected, rtol=0.06, atol=3e-3)
    c1 = dl.tensor(2.0, dtype=dl.float64, requires_grad=True)
    c0 = dl.tensor(3.0, dtype=dl.float64, requires_grad=True)
    y = dl.distributions.Beta(c1, c0).rsample((n,))
    g1, g0 = dl.autograd.grad(y.mean(), [c1, c0])
    assert g1.item() == pytest.approx(3.0 / 25.0, rel=0.06)
    assert g0.item() == pytest.approx(-2.0 / 25.0, rel=0.06)


def test_standard_gamma_grad_matches_torch():
    r = np.random.default_rng(0)
    a = r.uniform(0.1, 20, 200)
    x = np.array([np.random.default_rng(i).gamma(ai) for i, ai in enumerate(a)])
    x = np.maximum(x, 1e-6)
    got = dl._standard_gamma_grad(dl.tensor(a), dl.tensor(x)).numpy()
    want = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    # torch's is an approximation (series, Rice's saddle point and a fit)
    np.testing.assert_allclose(got, want, rtol=5e-3, atol=1e-6)


def test_transformed_distributions():
    T = {lib: lib.distributions for lib in (dl, torch)}
    r = np.random.default_rng(1)
    loc, scale = r.normal(size=4), r.uniform(0.5, 2, 4)
    v = r.uniform(0.1, 0.9, 4)
    res = {}
    for lib, D in T.items():
        lt, st = lib.tensor(loc, requires_grad=True), lib.tensor(scale, requires_grad=True)
        base = D.Normal(lt, st)
        ts = [D.AffineTransform(0.5, 2.0), D.SigmoidTransform()]
        d = D.TransformedDistribution(base, ts)
        d2 = D.TransformedDistribution(base, [D.TanhTransform()])
        d3 = D.TransformedDistribution(base, [D.ExpTransform(), D.AffineTransform(1.0, -3.0)])
        val = lib.tensor(v)
        out = [d.log_prob(val), d2.log_prob(val * 2 - 1), d3.log_prob(-val * 2),
               d.cdf(val), d3.cdf(-val * 2)]
        g = lib.autograd.grad(sum(o.sum() for o in out), [lt, st])
        res[lib] = out + list(g)
    for a, b in zip(res[dl], res[torch]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9, atol=1e-12)


def test_transform_cache_and_inverse():
    D = dl.distributions
    t = D.TanhTransform(cache_size=1)
    x = dl.tensor([0.3, -2.0, 25.0], dtype=dl.float64)
    y = t(x)
    assert t.inv(y) is x
    a = D.AffineTransform(1.0, 2.0)
    np.testing.assert_allclose(a.inv(a(x)).numpy(), x.numpy())
    c = D.ComposeTransform([D.ExpTransform(), a])
    np.testing.assert_allclose(c.inv(c(x)).numpy(), x.numpy(), rtol=1e-12)
    assert c.sign == 1


def test_independent():
    res = {}
    for lib in (dl, torch):
        loc = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        d = lib.distributions.Independent(lib.distributions.Normal(loc, 1.5), 1)
        val = lib.tensor(np.ones((4, 2, 3)))
        lp = d.log_prob(val)
        g, = lib.autograd.grad(lp.sum() + d.entropy().sum(), [loc])
        res[lib] = (tuple(d.batch_shape), tuple(d.event_shape), lp, d.entropy(), g)
    assert res[dl][:2] == res[torch][:2] == ((2,), (3,))
    for a, b in zip(res[dl][2:], res[torch][2:]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10)
    with pytest.raises(ValueError):
        dl.distributions.Independent(dl.distributions.Normal(dl.zeros(3), 1.0), 2)


def test_expand_and_enumerate_support():
    D = dl.distributions
    d = D.Normal(dl.tensor([0.0, 1.0]), dl.tensor([1.0, 2.0])).expand((3, 2))
    assert tuple(d.batch_shape) == (3, 2)
    assert tuple(d.sample().shape) == (3, 2)
    c = D.Categorical(logits=dl.zeros(2, 4)).expand((5, 2))
    assert tuple(c.sample((7,)).shape) == (7, 5, 2)
    b = D.Bernoulli(dl.tensor([0.2, 0.9]))
    assert b.enumerate_support().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    e = D.Binomial(3, dl.tensor([0.2, 0.9])).enumerate_support(expand=False)
    assert tuple(e.shape) == (4, 1)
    g = D.Gamma(dl.tensor([1.0]), dl.tensor([2.0])).expand((4, 1))
    assert tuple(g.rsample((2,)).shape) == (2, 4, 1)


def _raises_like_torch(make):
    with pytest.raises(Exception) as want:
        make(torch)
    with pytest.raises(type(want.value)) as got:
        make(dl)
    first = str(want.value).split('(')[0]
    assert str(got.value).startswith(first), (str(got.value), str(want.value))


@pytest.mark.parametrize('make', [
    lambda t: t.distributions.Normal(t.tensor([0.0]), t.tensor([-1.0])),
    lambda t: t.distributions.Exponential(t.tensor([0.0])),
    lambda t: t.distributions.Gamma(t.tensor([1.0]), t.tensor([-2.0])),
    lambda t: t.distributions.Bernoulli(t.tensor([1.5])),
    lambda t: t.distributions.Bernoulli(probs=t.tensor([0.5]), logits=t.tensor([0.0])),
    lambda t: t.distributions.Bernoulli(),
    lambda t: t.distributions.Categorical(t.tensor(0.5)),
    lambda t: t.distributions.Categorical(t.tensor([0.5, -0.5])),
    lambda t: t.distributions.Uniform(t.tensor([1.0]), t.tensor([0.0])),
    lambda t: t.distributions.Dirichlet(t.tensor(1.0)),
    lambda t: t.distributions.Dirichlet(t.tensor([1.0, -1.0])),
    lambda t: t.distributions.MultivariateNormal(t.zeros(2)),
    lambda t: t.distributions.MultivariateNormal(t.zeros(2), scale_tril=t.ones(2)),
    lambda t: t.distributions.MultivariateNormal(t.zeros(2), covariance_matrix=t.tensor(
        [[1.0, 2.0], [2.0, 1.0]])),
    lambda t: t.distributions.Geometric(t.tensor([0.0])),
    lambda t: t.distributions.Normal(0.0, 1.0).log_prob(t.tensor(float('nan'))),
    lambda t: t.distributions.Exponential(1.0).log_prob(t.tensor(-1.0)),
    lambda t: t.distributions.Poisson(t.tensor([2.0])).log_prob(t.tensor([0.5])),
    lambda t: t.distributions.Normal(t.zeros(3), 1.0).log_prob(t.zeros(2)),
    lambda t: t.distributions.Dirichlet(t.ones(3)).log_prob(t.ones(2)),
    lambda t: t.distributions.Normal(0.0, 1.0).log_prob(0.5),
])
def test_validation_errors(make):
    _raises_like_torch(make)


def test_validate_args_off():
    d = dl.distributions.Normal(dl.tensor([0.0]), dl.tensor([-1.0]), validate_args=False)
    assert math.isnan(d.log_prob(dl.tensor([0.0])).item())
    dl.distributions.Distribution.set_default_validate_args(False)
    try:
        dl.distributions.Exponential(dl.tensor([-1.0]))
    finally:
        dl.distributions.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        dl.distributions.Exponential(dl.tensor([-1.0]))


def test_policy_gradient_script():
    # REINFORCE as scripts write it: a categorical policy over logits
    dl.manual_seed(0)
    logits = dl.zeros(3, requires_grad=True)
    opt = dl.optim.SGD([logits], lr=0.5)
    reward = dl.tensor([0.0, 1.0, 0.2])
    for _ in range(200):
        m = dl.distributions.Categorical(logits=logits)
        a = m.sample((16,))
        loss = -(m.log_prob(a) * reward[a]).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert int(logits.argmax()) == 1
    assert dl.distributions.Categorical(logits=logits).probs[1].item() > 0.8


def test_constraints_against_torch():
    x = np.array([[-1.0, 0.0, 0.5], [1.0, 2.0, 3.0]])
    res = []
    for lib in (dl, torch):
        C = lib.distributions.constraints
        t = lib.tensor(x)
        checks = [C.real, C.positive, C.nonnegative, C.unit_interval, C.boolean,
                  C.nonnegative_integer, C.positive_integer, C.greater_than(0.2),
                  C.greater_than_eq(0.5), C.less_than(1.0), C.interval(-0.5, 1.0),
                  C.half_open_interval(0.0, 1.0), C.integer_interval(0, 2), C.simplex,
                  C.independent(C.positive, 1), C.real_vector, C.one_hot,
                  C.cat([C.real, C.positive], 1, [1, 2]), C.stack([C.positive, C.real], 0)]
        res.append([c.check(t).numpy() for c in checks] + [repr(c) for c in checks[7:13]])
        m = lib.tensor([[2.0, 0.5], [0.5, 1.0]])
        res[-1] += [bool(C.positive_definite.check(m)), bool(C.lower_cholesky.check(m)),
                    bool(C.lower_cholesky.check(m.tril())), bool(C.symmetric.check(m)),
                    bool(C.positive_definite.check(-m))]
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)
