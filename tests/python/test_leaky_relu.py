# test_leaky_relu.py: nn.functional.leaky_relu (out of place and in
# place), nn.LeakyReLU and their gradients, first and second order,
# compared against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pickle

import numpy as np
import pytest
import torch

from conftest import FLOAT_DTYPES, Dl, assert_same, dl_call, pair, rand_pair, torch_ref

F = Dl.nn.functional
TF = torch.nn.functional


@pytest.mark.parametrize("slope", [0.01, 0.2, 1.0, -0.5, 0.0, 3.0])
@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_values(rng, slope, name):
    x, t = rand_pair(rng, (4, 5), name)
    expected = torch_ref(lambda a: TF.leaky_relu(a, slope), t)
    assert_same(dl_call(lambda a: F.leaky_relu(a, slope), x), expected)
    assert_same(dl_call(lambda a: F.leaky_relu(a, negative_slope=slope), x), expected)
    assert_same(dl_call(lambda a: F.leaky_relu(a.t(), slope), x), expected.t())


def test_default_slope_and_special_values():
    vals = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan])
    x, t = pair(vals, "float64")
    assert_same(F.leaky_relu(x), TF.leaky_relu(t))
    assert np.array_equal(np.signbit(F.leaky_relu(x).numpy()[:4]),
                          np.signbit(TF.leaky_relu(t).numpy()[:4]))


@pytest.mark.parametrize("slope", [0.01, 0.3])
def test_inplace(rng, slope):
    x, t = rand_pair(rng, (3, 4))
    r = F.leaky_relu(x, slope, inplace=True)
    TF.leaky_relu(t, slope, inplace=True)
    assert r is x
    assert_same(x, t)
    x, t = rand_pair(rng, (3, 4))
    assert F.leaky_relu_(x, slope) is x
    TF.leaky_relu_(t, slope)
    assert_same(x, t)


@pytest.mark.parametrize("slope", [0.01, 0.25, -0.5])
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_gradient(rng, slope, name):
    x, t = rand_pair(rng, (4, 5), name, requires_grad=True)
    g, h = rand_pair(rng, (4, 5), name)
    y, u = F.leaky_relu(x, slope), TF.leaky_relu(t, slope)
    assert y.grad_fn.name() == u.grad_fn.name() == "LeakyReluBackward0"
    y.backward(g)
    u.backward(h)
    assert_same(x.grad, t.grad)


def test_gradient_at_zero_and_of_inplace_on_non_leaf(rng):
    for lib, fn in ((Dl, F), (torch, TF)):
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        fn.leaky_relu(x, 0.1).sum().backward()
        assert x.grad.tolist() == pytest.approx([0.1, 0.1, 1.0])
    x, t = rand_pair(rng, (6,), requires_grad=True)
    for a, fn in ((x, F), (t, TF)):
        y = a * 2
        fn.leaky_relu_(y, 0.2)
        (y * y).sum().backward()
    assert_same(x.grad, t.grad)


def test_double_backward(rng):
    x, t = rand_pair(rng, (5,), requires_grad=True)
    for a, fn in ((x, F), (t, TF)):
        y = fn.leaky_relu(a, 0.3)
        (y * y).sum().backward(create_graph=True)
        g = a.grad
        (g * g).sum().backward()
    assert_same(x.grad, t.grad)


def test_module(rng):
    x, t = rand_pair(rng, (3, 4))
    m, n = Dl.nn.LeakyReLU(), torch.nn.LeakyReLU()
    assert_same(m(x), n(t))
    assert repr(m) == repr(n) == "LeakyReLU(negative_slope=0.01)"
    m, n = Dl.nn.LeakyReLU(0.2, inplace=True), torch.nn.LeakyReLU(0.2, inplace=True)
    assert repr(m) == repr(n)
    assert m.negative_slope == 0.2 and m.inplace is True
    assert m(x) is x
    n(t)
    assert_same(x, t)
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.negative_slope == 0.2 and m2.inplace is True
    seq = Dl.nn.Sequential(Dl.nn.Linear(4, 3), Dl.nn.LeakyReLU(negative_slope=0.1))
    assert "LeakyReLU(negative_slope=0.1)" in repr(seq)


def test_errors():
    for lib, fn in ((Dl, F), (torch, TF)):
        with pytest.raises(RuntimeError):
            fn.leaky_relu(lib.tensor([1, -2]))
        with pytest.raises(RuntimeError):
            fn.leaky_relu_(lib.tensor([True]))
        leaf = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError):
            fn.leaky_relu_(leaf)
