# test_unary_elementwise.py: the inverse trigonometric and hyperbolic
# functions, log10, exp2, square, the special functions (erfc, erfinv,
# lgamma, digamma, i0, sinc), the angle conversions, sgn and the sign and
# infinity predicates, logit and positive, with their in-place forms and
# their aliases, against python3-torch 1.13.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

import mpmath
import numpy as np
import pytest
import torch

from conftest import Dl, NONCONTIG, assert_same, dl_call, pair, rand_np

# op: (low, high) of the random float inputs, wide enough to leave the
# domain (asin (2) = NaN, acosh (0.5) = NaN, log10 (-1) = NaN)
RANGES = {
    'asin': (-1.3, 1.3), 'acos': (-1.3, 1.3), 'atan': (-6, 6), 'sinh': (-6, 6),
    'cosh': (-6, 6), 'asinh': (-6, 6), 'acosh': (0.5, 6), 'atanh': (-1.3, 1.3),
    'log10': (-1, 20), 'exp2': (-20, 20), 'square': (-6, 6), 'erfc': (-5, 5),
    'erfinv': (-1.1, 1.1), 'lgamma': (-6, 12), 'digamma': (-6, 12), 'deg2rad': (-400, 400),
    'rad2deg': (-7, 7), 'sgn': (-3, 3), 'signbit': (-3, 3), 'sinc': (-6, 6), 'i0': (-30, 30),
    'isneginf': (-3, 3), 'isposinf': (-3, 3), 'isreal': (-3, 3), 'positive': (-3, 3),
    'negative': (-3, 3), 'fix': (-3, 3), 'logit': (-0.2, 1.2),
    'arcsin': (-1.3, 1.3), 'arccos': (-1.3, 1.3), 'arctan': (-6, 6), 'arcsinh': (-6, 6),
    'arccosh': (0.5, 6), 'arctanh': (-1.3, 1.3), 'absolute': (-3, 3),
}
OPS = sorted(RANGES)

# float32 tolerances (rtol, atol) where torch's float kernels and libdl's
# (the special functions in double, rounded once) differ in the last bits
F32_TOL = {'digamma': (1e-5, 1e-5), 'lgamma': (1e-5, 1e-5), 'i0': (2e-5, 1e-6),
           'erfinv': (2e-5, 1e-6), 'sinc': (1e-5, 1e-6)}

# torch has no signbit_, isneginf_, isposinf_, isreal_ nor positive_
INPLACE = [op for op in OPS if hasattr(torch.Tensor, op + '_')]

SHAPES = [(), (0,), (7,), (3, 4), (2, 3, 4, 2)]
DTYPES = ['float32', 'float64', 'int64', 'int32', 'uint8', 'bool']


def inputs(rng, op, shape, name):
    lo, hi = RANGES[op]
    if name in ('float32', 'float64'):
        return rand_np(rng, shape, name, low=lo, high=hi)
    return rand_np(rng, shape, name)


def tol(op, name):
    if name == 'float32' and op in F32_TOL:
        return dict(zip(('rtol', 'atol'), F32_TOL[op]))
    return {}


def check(fn, x, t, **kw):
    """fn on libdl and on torch: the same values and dtype, or the
    exception class torch raises"""
    try:
        expected = fn(t)
    except (RuntimeError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            dl_call(fn, x)
        return
    assert_same(dl_call(fn, x), expected, **kw)


@pytest.mark.parametrize('op', OPS)
@pytest.mark.parametrize('name', DTYPES)
@pytest.mark.parametrize('shape', SHAPES, ids=str)
def test_method_and_function(rng, op, name, shape):
    x, t = pair(inputs(rng, op, shape, name), name)
    check(lambda v: getattr(v, op)(), x, t, **tol(op, name))
    check(lambda v: getattr(Dl if v is x else torch, op)(v), x, t, **tol(op, name))


@pytest.mark.parametrize('op', OPS)
@pytest.mark.parametrize('view', NONCONTIG, ids=lambda v: v[0])
def test_noncontiguous(rng, op, view):
    _, base, fn = view
    for name in ('float32', 'float64'):
        x, t = pair(inputs(rng, op, base, name), name)
        check(lambda v: getattr(fn(v), op)(), x, t, **tol(op, name))


@pytest.mark.parametrize('op', INPLACE)
@pytest.mark.parametrize('name', ['float32', 'float64', 'int64', 'bool'])
@pytest.mark.parametrize('transposed', [False, True], ids=['contiguous', 'transposed'])
def test_inplace(rng, op, name, transposed):
    x, t = pair(inputs(rng, op, (3, 4), name), name)
    if transposed:
        x, t = x.t(), t.t()
    try:
        getattr(t, op + '_')()
    except RuntimeError:
        with pytest.raises(RuntimeError):
            getattr(x, op + '_')()
        return
    assert getattr(x, op + '_')() is x
    assert_same(x, t, **tol(op, name))


SPECIAL = {
    'asin': [2.0, -2.0, 1.0, -1.0, 0.0, math.inf, math.nan],
    'acos': [2.0, 1.0, -1.0, math.nan],
    'atan': [math.inf, -math.inf, 0.0, -0.0, math.nan],
    'acosh': [0.5, 1.0, math.inf, -math.inf],
    'atanh': [1.0, -1.0, 2.0, 0.0],
    'asinh': [math.inf, -math.inf, -0.0],
    'sinh': [800.0, -800.0, -0.0], 'cosh': [800.0, -800.0, 0.0],
    'log10': [0.0, -0.0, -1.0, 1.0, 1e300, math.inf],
    'exp2': [-math.inf, math.inf, 1024.0, -1080.0, 0.5],
    'square': [math.inf, -math.inf, math.nan, 1e200, -0.0],
    'erfc': [-math.inf, math.inf, 30.0, -30.0, 0.0],
    'erfinv': [1.0, -1.0, 1.5, -1.5, 0.0, -0.0, 1 - 1e-12, -1 + 1e-9, 1e-10, math.nan],
    'lgamma': [0.0, -0.0, -1.0, -2.0, -1.5, 1.0, 2.0, math.inf, -math.inf, 1e-300, 3e5],
    'digamma': [0.0, -0.0, -1.0, -2.0, -1.5, -100.5, 1.0, 1e-8, 1e6, math.inf, -math.inf,
                math.nan],
    'deg2rad': [180.0, -90.0, math.inf], 'rad2deg': [math.pi, -math.inf],
    'sgn': [-0.0, 0.0, math.nan, -math.inf, 5.0],
    'signbit': [-0.0, 0.0, -math.inf, math.inf, -1e-300, math.nan],
    'sinc': [0.0, -0.0, 1.0, 0.5, 1e-20, math.inf, math.nan],
    'i0': [0.0, -0.0, 40.0, 41.0, -60.0, 700.0, 720.0, math.inf, -math.inf, math.nan, 1e-5],
    'isneginf': [-math.inf, math.inf, math.nan, 0.0],
    'isposinf': [-math.inf, math.inf, math.nan, 0.0],
    'logit': [0.0, 1.0, 0.5, -0.5, 1.5, 1e-30],
}


# torch 1.13's float64 erfinv loses digits near +-1 (5.0420291 for
# erfinv (1 - 1e-12), 5.0420319 exactly): compared with mpmath below
SPECIAL_TOL = {('erfinv', 'float64'): dict(rtol=1e-6)}


@pytest.mark.parametrize('op', sorted(SPECIAL))
@pytest.mark.parametrize('name', ['float32', 'float64'])
def test_special_values(op, name):
    x, t = pair(np.array(SPECIAL[op]), name)
    check(lambda v: getattr(v, op)(), x, t, **SPECIAL_TOL.get((op, name), tol(op, name)))


def mp_values(fn, a):
    return np.array([float(fn(mpmath.mpf(float(v)))) for v in a])


# float64 against mpmath at 30 digits, where torch is not accurate enough
# to be the oracle: erfinv near +-1, and polygamma (digamma's derivative,
# whose torch kernel stops its asymptotic series early: 1e-9 off at 0.3)
MP_CASES = [
    ('erfinv', [0.5, -0.9, 0.999, 1 - 1e-12, -1 + 1e-9, 1e-10, 0.999999],
     lambda v: mpmath.erfinv(v)),
    ('digamma', [0.3, 1.1, 2.5, 5.0, -0.5, -3.7, 1e-5, 123.4], mpmath.digamma),
    ('lgamma', [0.3, 2.5, 50.0, -0.5, -3.7], lambda v: mpmath.log(abs(mpmath.gamma(v)))),
    ('i0', [0.0, 0.3, 2.5, -7.0, 39.9, 40.1, 150.0, -600.0], lambda v: mpmath.besseli(0, v)),
    ('sinc', [0.3, -2.5, 7.25, 1e-9], lambda v: mpmath.sin(mpmath.pi * v) / (mpmath.pi * v)),
]


@pytest.mark.parametrize('op,values,fn', MP_CASES, ids=[c[0] for c in MP_CASES])
def test_against_mpmath(op, values, fn):
    mpmath.mp.dps = 30
    x = Dl.tensor(values, dtype=Dl.float64)
    np.testing.assert_allclose(getattr(x, op)().numpy(), mp_values(fn, values), rtol=1e-13)


def test_derivatives_against_mpmath():
    # digamma's first and second derivatives are polygamma (1, x) and
    # polygamma (2, x); i0's are i1 and i0 - i1 / x
    mpmath.mp.dps = 30
    a = [0.3, 1.1, 2.5, 5.0, -0.5, -3.7, 20.0]
    x = Dl.tensor(a, dtype=Dl.float64, requires_grad=True)
    (g,) = Dl.autograd.grad(x.digamma().sum(), x, create_graph=True)
    (h,) = Dl.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), mp_values(lambda v: mpmath.psi(1, v), a),
                               rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), mp_values(lambda v: mpmath.psi(2, v), a), rtol=1e-12)
    b = [0.0, 0.3, -2.5, 7.0, 45.0]
    x = Dl.tensor(b, dtype=Dl.float64, requires_grad=True)
    (g,) = Dl.autograd.grad(x.i0().sum(), x, create_graph=True)
    (h,) = Dl.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), mp_values(lambda v: mpmath.besseli(1, v), b),
                               rtol=1e-13, atol=1e-300)
    want = [0.5] + [float(mpmath.besseli(0, v) - mpmath.besseli(1, v) / v) for v in b[1:]]
    np.testing.assert_allclose(h.numpy(), want, rtol=1e-12)


def test_exact_values():
    # the brief's examples, spelled out
    f = Dl.tensor([2.0, 0.5, 0.0, 1.0], dtype=Dl.float64)
    assert math.isnan(f[0:1].asin().item())
    assert math.isnan(f[1:2].acosh().item())
    assert f[2:3].log10().item() == -math.inf
    assert f[3:4].erfinv().item() == math.inf
    assert Dl.digamma(Dl.tensor([0.0])).item() == -math.inf
    assert Dl.digamma(Dl.tensor([-0.0])).item() == math.inf
    assert math.isnan(Dl.digamma(Dl.tensor([-3.0])).item())
    assert Dl.lgamma(Dl.tensor([-3.0])).item() == math.inf


@pytest.mark.parametrize('eps', [None, 0.0, 0.1, 0.3, 1e-6])
@pytest.mark.parametrize('name', ['float32', 'float64', 'int64'])
def test_logit_eps(rng, eps, name):
    a = rand_np(rng, (4, 5), name, low=-0.2, high=1.2)
    x, t = pair(a, name)
    check(lambda v: v.logit(eps), x, t)
    check(lambda v: (Dl if v is x else torch).logit(v, eps=eps), x, t)
    check(lambda v: v.logit_(eps=eps), x, t)


@pytest.mark.parametrize('eps', [None, 0.2])
def test_logit_grad(rng, eps):
    a = rng.uniform(0.05, 0.95, (3, 4))
    x, t = pair(a, 'float64', requires_grad=True)
    y, u = x.logit(eps), t.logit(eps)
    assert y.grad_fn.name() == u.grad_fn.name() == 'LogitBackward0'
    w = rng.standard_normal((3, 4))
    (y * Dl.tensor(w)).sum().backward()
    (u * torch.tensor(w)).sum().backward()
    assert_same(x.grad, t.grad)


def test_positive_is_self(rng):
    x, t = pair(rand_np(rng, (3,), 'float32'), 'float32')
    assert Dl.positive(x) is x and x.positive() is x
    for name in ('int64', 'float64'):
        x, _ = pair(rand_np(rng, (3,), name), name)
        assert x.positive() is x


def test_isreal_is_all_true(rng):
    for name in DTYPES:
        x, t = pair(rand_np(rng, (2, 3), name), name)
        assert_same(Dl.isreal(x), torch.isreal(t))


ALIASES = {'arcsin': 'asin', 'arccos': 'acos', 'arctan': 'atan', 'arcsinh': 'asinh',
           'arccosh': 'acosh', 'arctanh': 'atanh', 'negative': 'neg', 'fix': 'trunc',
           'absolute': 'abs'}


@pytest.mark.parametrize('alias', sorted(ALIASES))
def test_aliases(rng, alias):
    op = ALIASES[alias]
    a = rand_np(rng, (3, 4), 'float64', low=-0.9, high=0.9)
    if op == 'acosh':
        a = a + 2.0
    x, _ = pair(a, 'float64')
    want = getattr(x, op)()
    assert_same(getattr(x, alias)(), torch.from_numpy(want.numpy()))
    assert_same(getattr(Dl, alias)(x), torch.from_numpy(want.numpy()))
    c = x.clone()
    assert getattr(c, alias + '_')() is c
    assert_same(c, torch.from_numpy(want.numpy()))


# differentiable ops: (op, low, high), inputs where the derivative is finite
GRAD_CASES = [
    ('asin', -0.9, 0.9), ('acos', -0.9, 0.9), ('atan', -3, 3), ('sinh', -3, 3),
    ('cosh', -3, 3), ('asinh', -3, 3), ('acosh', 1.2, 4), ('atanh', -0.9, 0.9),
    ('log10', 0.2, 5), ('exp2', -3, 3), ('square', -3, 3), ('erfc', -2, 2),
    ('erfinv', -0.9, 0.9), ('lgamma', 0.2, 6), ('digamma', 0.2, 6), ('deg2rad', -200, 200),
    ('rad2deg', -3, 3), ('sgn', -3, 3), ('sinc', -3, 3), ('i0', -5, 5), ('logit', 0.05, 0.95),
    ('arcsin', -0.9, 0.9), ('arccosh', 1.2, 4), ('negative', -3, 3), ('fix', -3, 3),
    ('positive', -3, 3),
]


@pytest.mark.parametrize('op,lo,hi', GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grad(rng, op, lo, hi):
    a = rng.uniform(lo, hi, (3, 4))
    w = rng.standard_normal((3, 4))
    x, t = pair(a, 'float64', requires_grad=True)
    y, u = getattr(x * 1, op)(), getattr(t * 1, op)()
    if u.grad_fn is not None and op != 'positive':
        assert y.grad_fn.name() == u.grad_fn.name()
    (y * Dl.tensor(w)).sum().backward()
    (u * torch.tensor(w)).sum().backward()
    # torch's trigamma is 1e-9 off (see MP_CASES)
    assert_same(x.grad, t.grad, **({'rtol': 1e-8} if op == 'digamma' else {}))


@pytest.mark.parametrize('op', ['lgamma', 'digamma', 'i0', 'sinc', 'erfinv', 'asin'])
def test_second_derivative(rng, op):
    lo, hi = {'lgamma': (0.5, 4), 'digamma': (0.5, 4), 'erfinv': (-0.8, 0.8),
              'asin': (-0.8, 0.8)}.get(op, (-3, 3))
    a = rng.uniform(lo, hi, (6,))
    x, t = pair(a, 'float64', requires_grad=True)
    (gx,) = Dl.autograd.grad(getattr(x, op)().sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(getattr(t, op)().sum(), t, create_graph=True)
    r = 1e-8 if op in ('digamma', 'lgamma') else None  # torch's polygamma, see MP_CASES
    assert_same(gx, gt, rtol=r)
    (hx,) = Dl.autograd.grad(gx.sum(), x)
    (ht,) = torch.autograd.grad(gt.sum(), t)
    assert_same(hx, ht, rtol=r or 1e-9, atol=1e-10)


def test_sinc_grad_at_zero():
    x, t = pair(np.array([0.0, 1.0, -2.5]), 'float64', requires_grad=True)
    x.sinc().sum().backward()
    t.sinc().sum().backward()
    assert_same(x.grad, t.grad)


def test_bad_input():
    with pytest.raises(TypeError):
        Dl.asin('a')
    with pytest.raises(TypeError):
        Dl.square([1.0, 2.0])
    with pytest.raises(TypeError):
        Dl.tensor([0.5]).logit(eps='a')
    with pytest.raises(RuntimeError):
        Dl.tensor([True]).positive()
    with pytest.raises(RuntimeError):  # a float result into an integer tensor
        Dl.tensor([1, 2]).asin_()
    with pytest.raises(RuntimeError):
        Dl.tensor([True, False]).square_()
