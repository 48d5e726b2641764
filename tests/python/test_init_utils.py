# test_init_utils.py: nn.init's statistics (orthogonality, truncation,
# the spreads of xavier and kaiming in each mode), its deterministic fills
# (eye_, dirac_) and exceptions against torch.nn.init; nn.utils'
# clip_grad_norm_ (torch's exact numbers for each norm type),
# clip_grad_value_, parameters_to_vector and vector_to_parameters.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, to_np

init, tinit = Dl.nn.init, torch.nn.init
utils, tutils = Dl.nn.utils, torch.nn.utils


# ---- init ----------------------------------------------------------------------

@pytest.mark.parametrize('shape', [(50, 80), (80, 50), (16, 8, 3, 3), (7, 7), (1, 30)])
@pytest.mark.parametrize('gain', [1.0, 2.5])
def test_orthogonal(shape, gain):
    w = Dl.empty(*shape)
    assert init.orthogonal_(w, gain=gain) is w
    m = to_np(w).astype(np.float64).reshape(shape[0], -1) / gain
    small = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(small, np.eye(small.shape[0]), atol=2e-5)


def test_orthogonal_is_random_and_haar():
    # the mean of a Haar orthogonal matrix's entries is 0, their variance 1/n
    a = np.stack([to_np(init.orthogonal_(Dl.empty(20, 20))) for _ in range(20)])
    assert abs(a.mean()) < 0.01
    assert abs(a.var() * 20 - 1) < 0.05
    assert not np.allclose(a[0], a[1])


@pytest.mark.parametrize('mean,std,a,b', [(0, 1, -2, 2), (1, 0.5, 0.5, 3), (0, 1, 0, 10),
                                          (-1, 2, -1.5, -0.5)])
def test_trunc_normal(mean, std, a, b):
    w = init.trunc_normal_(Dl.empty(200, 100), mean, std, a, b)
    v = to_np(w).astype(np.float64)
    assert v.min() >= a and v.max() <= b
    # the truncated normal's own mean and std
    alpha, beta = (a - mean) / std, (b - mean) / std
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))
    z = cdf(beta) - cdf(alpha)
    tmean = mean + std * (phi(alpha) - phi(beta)) / z
    tvar = std ** 2 * (1 + (alpha * phi(alpha) - beta * phi(beta)) / z
                       - ((phi(alpha) - phi(beta)) / z) ** 2)
    n = v.size
    assert abs(v.mean() - tmean) < 5 * math.sqrt(tvar / n)
    assert abs(v.std() - math.sqrt(tvar)) < 0.02 * math.sqrt(tvar)


@pytest.mark.parametrize('shape', [(300, 200), (64, 32, 3, 3), (8, 50, 5)])
@pytest.mark.parametrize('fn,kw', [
    ('xavier_uniform_', {}), ('xavier_normal_', {'gain': 2.0}),
    ('kaiming_uniform_', {}), ('kaiming_uniform_', {'a': math.sqrt(5)}),
    ('kaiming_uniform_', {'mode': 'fan_out', 'nonlinearity': 'relu'}),
    ('kaiming_normal_', {'mode': 'fan_out', 'nonlinearity': 'relu'}),
    ('kaiming_normal_', {'nonlinearity': 'tanh'}), ('kaiming_normal_', {'mode': 'FAN_IN'})])
def test_spreads(shape, fn, kw):
    fan_in, fan_out = tinit._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert init._calculate_fan_in_and_fan_out(Dl.empty(*shape)) == (fan_in, fan_out)
    if fn.startswith('xavier'):
        std = kw.get('gain', 1.0) * math.sqrt(2.0 / (fan_in + fan_out))
    else:
        fan = fan_in if kw.get('mode', 'fan_in').lower() == 'fan_in' else fan_out
        std = tinit.calculate_gain(kw.get('nonlinearity', 'leaky_relu'), kw.get('a', 0)) \
            / math.sqrt(fan)
    w = Dl.empty(*shape)
    assert getattr(init, fn)(w, **kw) is w
    v = to_np(w).astype(np.float64)
    n = v.size
    assert abs(v.mean()) < 5 * std / math.sqrt(n)
    assert abs(v.std() / std - 1) < 5 * math.sqrt(0.5 / n) + 0.01
    if 'uniform' in fn:
        assert np.abs(v).max() <= math.sqrt(3) * std * (1 + 1e-6)
        assert np.abs(v).max() > 0.95 * math.sqrt(3) * std


def test_uniform_normal_constant():
    w = init.uniform_(Dl.empty(100, 100), -0.5, 2)
    v = to_np(w)
    assert v.min() >= -0.5 and v.max() < 2 and abs(v.mean() - 0.75) < 0.03
    v = to_np(init.normal_(Dl.empty(100, 100), 3, 0.5))
    assert abs(v.mean() - 3) < 0.03 and abs(v.std() - 0.5) < 0.02
    assert_same(init.constant_(Dl.empty(2, 3), 1.5), tinit.constant_(torch.empty(2, 3), 1.5))
    assert_same(init.zeros_(Dl.ones(3)), torch.zeros(3))
    assert_same(init.ones_(Dl.zeros(3)), torch.ones(3))


def test_fills_are_outside_autograd():
    p = Dl.zeros(4, 5, requires_grad=True)
    for fill in (init.orthogonal_, init.xavier_uniform_, init.kaiming_normal_, init.eye_,
                 init.trunc_normal_):
        assert fill(p) is p
        assert p.is_leaf and p.grad_fn is None and p.requires_grad


@pytest.mark.parametrize('shape', [(3, 3), (2, 5), (5, 2)])
def test_eye(shape):
    assert_same(init.eye_(Dl.empty(*shape)), tinit.eye_(torch.empty(shape)))


@pytest.mark.parametrize('shape,groups', [((4, 4, 3), 1), ((6, 2, 3, 3), 2), ((3, 5, 1, 2, 3), 1),
                                          ((4, 2, 3, 3), 4)])
def test_dirac(shape, groups):
    assert_same(init.dirac_(Dl.empty(*shape), groups), tinit.dirac_(torch.empty(shape), groups))


@pytest.mark.parametrize('call', [
    lambda i, m: i._calculate_fan_in_and_fan_out(m.empty(5)),
    lambda i, m: i.xavier_uniform_(m.empty(5)),
    lambda i, m: i.kaiming_normal_(m.empty(5)),
    lambda i, m: i.kaiming_uniform_(m.empty(3, 4), nonlinearity='softplus'),
    lambda i, m: i.kaiming_uniform_(m.empty(3, 4), mode='fan_middle'),
    lambda i, m: i.calculate_gain('swish'),
    lambda i, m: i.orthogonal_(m.empty(4)),
    lambda i, m: i.eye_(m.empty(2, 2, 2)),
    lambda i, m: i.dirac_(m.empty(2, 2)),
    lambda i, m: i.dirac_(m.empty(3, 2, 3), groups=2),
])
def test_init_errors_as_torch(call):
    with pytest.raises(Exception) as theirs:
        call(tinit, torch)
    with pytest.raises(type(theirs.value)):
        call(init, Dl)


def test_kaiming_of_empty_tensor_warns():
    with pytest.warns(UserWarning, match='zero-element'):
        init.kaiming_uniform_(Dl.empty(0, 3))


# ---- utils ---------------------------------------------------------------------

def params_with_grads(rng, dtype, shapes=((3, 4), (5,), (2, 2, 2)), scale=1.0, without=()):
    """(libdl params, torch params) whose gradients are the same random
    values; the indices in `without` get no gradient."""
    ours, theirs = [], []
    for i, s in enumerate(shapes):
        p, t = pair(rng.normal(size=s), dtype, requires_grad=True)
        if i not in without:
            g, u = pair(scale * rng.normal(size=s), dtype)
            (p * g).sum().backward()
            (t * u).sum().backward()
        ours.append(p)
        theirs.append(t)
    return ours, theirs


@pytest.mark.parametrize('norm_type', [2.0, 1, 3.5, 0.5, float('inf'), 'inf'])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('max_norm', [0.1, 1e6])
def test_clip_grad_norm(rng, norm_type, dtype, max_norm):
    ours, theirs = params_with_grads(rng, dtype, without=(1,))
    nt = float(norm_type)
    total = utils.clip_grad_norm_(ours, max_norm, norm_type=nt)
    ttotal = tutils.clip_grad_norm_(theirs, max_norm, norm_type=nt)
    assert_same(total, ttotal)
    for p, t in zip(ours, theirs):
        if t.grad is None:
            assert p.grad is None
        else:
            assert_same(p.grad, t.grad)


def test_clip_grad_norm_of_one_tensor_and_none(rng):
    ours, theirs = params_with_grads(rng, 'float32', shapes=((4, 3),), scale=10)
    assert_same(utils.clip_grad_norm_(ours[0], 1.0), tutils.clip_grad_norm_(theirs[0], 1.0))
    assert_same(ours[0].grad, theirs[0].grad)
    assert float(utils.clip_grad_norm_([Dl.zeros(2, requires_grad=True)], 1.0)) == 0.0


@pytest.mark.parametrize('bad', [float('nan'), float('inf')])
def test_clip_grad_norm_nonfinite(bad):
    p, t = pair(np.ones(3), 'float32', requires_grad=True)
    g, u = pair(np.array([1.0, bad, 2.0]), 'float32')
    (p * g).sum().backward()
    (t * u).sum().backward()
    with pytest.raises(RuntimeError, match='non-finite'):
        tutils.clip_grad_norm_([t], 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError, match='non-finite'):
        utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert_same(p.grad, t.grad)     # left as they were
    assert_same(utils.clip_grad_norm_([p], 1.0), tutils.clip_grad_norm_([t], 1.0))
    assert_same(p.grad, t.grad)


def test_clip_grad_value(rng):
    ours, theirs = params_with_grads(rng, 'float32', scale=3, without=(2,))
    assert utils.clip_grad_value_(ours, 1.5) is None
    tutils.clip_grad_value_(theirs, 1.5)
    for p, t in zip(ours, theirs):
        assert (p.grad is None) == (t.grad is None)
        if t.grad is not None:
            assert_same(p.grad, t.grad)


def test_parameters_to_vector_and_back(rng):
    ours, theirs = params_with_grads(rng, 'float64')
    v, tv = utils.parameters_to_vector(ours), tutils.parameters_to_vector(theirs)
    assert_same(v, tv)
    # differentiable: the gradient flows back to each parameter
    (v * 2).sum().backward()
    (tv * 2).sum().backward()
    for p, t in zip(ours, theirs):
        assert_same(p.grad, t.grad)
    new, tnew = pair(rng.normal(size=tv.shape), 'float64')
    utils.vector_to_parameters(new, ours)
    tutils.vector_to_parameters(tnew, theirs)
    for p, t in zip(ours, theirs):
        assert_same(p, t)
    with pytest.raises(TypeError):
        utils.vector_to_parameters([1.0, 2.0], ours)
    with pytest.raises(RuntimeError):
        utils.vector_to_parameters(Dl.zeros(3), ours)


def test_clip_grad_norm_on_a_module(rng):
    m, tm = Dl.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    with torch.no_grad():
        tm.weight.copy_(torch.from_numpy(to_np(m.weight)))
        tm.bias.copy_(torch.from_numpy(to_np(m.bias)))
    x, t = pair(rng.normal(size=(5, 4)), 'float32')
    (m(x) ** 2).sum().backward()
    (tm(t) ** 2).sum().backward()
    assert_same(utils.clip_grad_norm_(m.parameters(), 0.5),
                tutils.clip_grad_norm_(tm.parameters(), 0.5), rtol=1e-5)
    assert_same(m.weight.grad, tm.weight.grad, rtol=1e-5)
