# test_comparison_functions.py: torch.eq and its kin as functions (with
# their aliases and out=), the in-place comparisons, and isclose,
# allclose and equal, compared against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import NUM_DTYPES, Dl, assert_same, pair, rand_np, rand_pair

NAMES = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
         "not_equal"]


def operands(rng, name):
    # integer-valued data so that ties occur
    a = rng.integers(-3, 4, size=(3, 4)).astype(np.float64)
    b = rng.integers(-3, 4, size=(4,)).astype(np.float64)
    return pair(a, name), pair(b, name)


@pytest.mark.parametrize("fn", NAMES)
@pytest.mark.parametrize("name", NUM_DTYPES + ["bool"])
def test_module_functions_tensor_tensor(rng, fn, name):
    (x, t), (y, u) = operands(rng, name)
    assert_same(getattr(Dl, fn)(x, y), getattr(torch, fn)(t, u))
    assert_same(getattr(x, fn)(y), getattr(t, fn)(u))


@pytest.mark.parametrize("fn", NAMES)
@pytest.mark.parametrize("other", [1, -2.5, 0.0, True])
@pytest.mark.parametrize("name", ["float32", "int64", "uint8"])
def test_module_functions_tensor_number(rng, fn, other, name):
    (x, t), _ = operands(rng, name)
    assert_same(getattr(Dl, fn)(x, other), getattr(torch, fn)(t, other))
    assert_same(getattr(x, fn)(other), getattr(t, fn)(other))


@pytest.mark.parametrize("fn", NAMES)
@pytest.mark.parametrize("out_dtype", ["bool", "float32"])
def test_out(rng, fn, out_dtype):
    (x, t), (y, u) = operands(rng, "float32")
    o = Dl.zeros(3, 4, dtype=getattr(Dl, out_dtype))
    p = torch.zeros(3, 4, dtype=getattr(torch, out_dtype))
    r = getattr(Dl, fn)(x, y, out=o)
    getattr(torch, fn)(t, u, out=p)
    assert r is o
    assert_same(o, p)
    with pytest.raises(TypeError):
        getattr(Dl, fn)(x, y, out=[1])


@pytest.mark.parametrize("fn", ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal",
                                "less", "less_equal", "not_equal"])
def test_inplace(rng, fn):
    (x, t), (y, u) = operands(rng, "float32")
    r = getattr(x, fn + "_")(y)
    getattr(t, fn + "_")(u)
    assert r is x
    assert_same(x, t)
    getattr(x, fn + "_")(1.5)
    getattr(t, fn + "_")(1.5)
    assert_same(x, t)


def test_bad_operands():
    x = Dl.ones(2)
    for lib, t in ((Dl, x), (torch, torch.ones(2))):
        with pytest.raises(TypeError):
            lib.eq(t, "a")
        with pytest.raises(TypeError):
            lib.gt([1.0, 2.0], t)
    with pytest.raises(RuntimeError):
        Dl.eq(Dl.ones(2), Dl.ones(3))


CLOSE_A = [1.0, 2.0, float("nan"), float("inf"), -float("inf"), 1e-9, 100.0, 0.0]
CLOSE_B = [1.000001, 2.1, float("nan"), float("inf"), float("inf"), 0.0, 100.001, -0.0]


@pytest.mark.parametrize("kw", [{}, {"equal_nan": True}, {"rtol": 0, "atol": 0},
                                {"rtol": 1e-3}, {"atol": 0.2}, {"rtol": 0.1, "atol": 1e-12}])
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_isclose_allclose(kw, name):
    x, t = pair(np.array(CLOSE_A), name)
    y, u = pair(np.array(CLOSE_B), name)
    assert_same(Dl.isclose(x, y, **kw), torch.isclose(t, u, **kw))
    assert_same(x.isclose(y, **kw), t.isclose(u, **kw))
    for i in range(len(CLOSE_A)):
        assert Dl.allclose(x[i:], y[i:], **kw) == torch.allclose(t[i:], u[i:], **kw)
    assert x[:2].allclose(y[:2], **kw) == t[:2].allclose(u[:2], **kw)


@pytest.mark.parametrize("name", ["int32", "int64", "uint8", "bool"])
def test_isclose_integers(rng, name):
    x, t = rand_pair(rng, (20,), name)
    y, u = rand_pair(rng, (20,), name)
    for kw in ({}, {"atol": 2}, {"rtol": 0.5}):
        assert_same(Dl.isclose(x, y, **kw), torch.isclose(t, u, **kw))


def test_isclose_broadcasts_and_checks(rng):
    x, t = rand_pair(rng, (3, 4))
    y, u = rand_pair(rng, (4,))
    assert_same(Dl.isclose(x, y, atol=1.0), torch.isclose(t, u, atol=1.0))
    for lib, a, b in ((Dl, x, y), (torch, t, u)):
        with pytest.raises(RuntimeError):
            lib.isclose(a, b.double())
        with pytest.raises(RuntimeError):
            lib.isclose(a, b, rtol=-1)
        with pytest.raises(RuntimeError):
            lib.isclose(a, b, atol=-1)
        with pytest.raises(TypeError):
            lib.isclose(a, 2.0)
    x.requires_grad_()
    r = Dl.isclose(x, x)
    assert not r.requires_grad and bool(r.all())


def test_equal(rng):
    a = rand_np(rng, (3, 4))
    cases = [(a, a), (a, a + 1e-3), (a, a[:2]), (a, a.reshape(4, 3)), (a[:1], a[0]),
             (np.array([np.nan]), np.array([np.nan])), (np.zeros((0, 2)), np.zeros((0, 2)))]
    for p, q in cases:
        (x, t), (y, u) = pair(p, "float32"), pair(q, "float32")
        assert Dl.equal(x, y) is torch.equal(t, u)
        assert x.equal(y) is t.equal(u)
    x, t = pair(np.array([1, 2]), "int64")
    y, u = pair(np.array([1, 2]), "float32")
    assert Dl.equal(x, y) is torch.equal(t, u) is True
    assert Dl.equal(x.t(), x) is True
