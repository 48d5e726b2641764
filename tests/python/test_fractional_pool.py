# test_fractional_pool.py: fractional max pooling (F.fractional_max_pool2d/3d,
# nn.FractionalMaxPool2d/3d) and nn.CrossMapLRN2d against PyTorch: values,
# indices and gradients on the same _random_samples, the windows of drawn
# samples, modules and errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np

F = Dl.nn.functional
TF = torch.nn.functional


def _same_grads(rng, y, u, x, t):
    w = rng.standard_normal(tuple(u.shape))
    wx, wt = pair(w, "float64")
    (y * wx.to(y.dtype)).sum().backward()
    (u * wt.to(u.dtype)).sum().backward()
    assert_same(x.grad, t.grad)


def _assert_node(y, v, name):
    """torch's node; for an unbatched input, libdl's is under the view that
    takes the batch of one off again"""
    assert v.grad_fn.name() == name
    node = y.grad_fn if y.grad_fn.name() == name else y.grad_fn.get_next_node(0)
    assert node.name() == name


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("shape,kernel,size,ratio", [
    ((2, 3, 9, 7), 2, (4, 3), None),
    ((2, 3, 9, 7), (3, 2), None, (0.5, 0.7)),
    ((3, 8, 8), 3, (6, 6), None),
    ((1, 2, 5, 5), 1, (5, 5), None),
    ((2, 1, 6, 10), (2, 3), (1, 8), None),
])
def test_fractional_max_pool2d(rng, name, shape, kernel, size, ratio):
    a = rand_np(rng, shape, name)
    n = 1 if len(shape) == 3 else shape[0]
    u = rng.random((n, shape[-3], 2))
    (x, t), (ux, ut) = pair(a, name, requires_grad=True), pair(u, name)
    y, i = F.fractional_max_pool2d(x, kernel, size, ratio, True, _random_samples=ux)
    v, j = TF.fractional_max_pool2d(t, kernel, size, ratio, True, _random_samples=ut)
    assert_same(y, v)
    assert_same(i, j)
    _assert_node(y, v, "FractionalMaxPool2DBackward0")
    _same_grads(rng, y, v, x, t)


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("shape,kernel,size,ratio", [
    ((2, 2, 6, 7, 5), 2, (3, 4, 2), None),
    ((2, 5, 6, 7), (1, 2, 3), None, (0.5, 0.6, 0.5)),
])
def test_fractional_max_pool3d(rng, name, shape, kernel, size, ratio):
    a = rand_np(rng, shape, name)
    n = 1 if len(shape) == 4 else shape[0]
    u = rng.random((n, shape[-4], 3))
    (x, t), (ux, ut) = pair(a, name, requires_grad=True), pair(u, name)
    y, i = F.fractional_max_pool3d_with_indices(x, kernel, size, ratio, _random_samples=ux)
    v, j = TF.fractional_max_pool3d_with_indices(t, kernel, size, ratio, _random_samples=ut)
    assert_same(y, v)
    assert_same(i, j)
    _assert_node(y, v, "FractionalMaxPool3DBackward0")
    _same_grads(rng, y, v, x, t)


def test_drawn_samples_pick_windows(rng):
    """Without _random_samples the windows are drawn: the output holds the
    input's values at the indices, and two draws seeded alike agree."""
    x = Dl.from_numpy(rand_np(rng, (2, 3, 10, 9), "float64"))
    Dl.manual_seed(3)
    y, i = F.fractional_max_pool2d(x, 2, output_size=(5, 4), return_indices=True)
    Dl.manual_seed(3)
    y2 = F.fractional_max_pool2d(x, 2, output_size=(5, 4))
    assert tuple(y.shape) == (2, 3, 5, 4)
    assert_same(y2, torch.from_numpy(y.numpy()))
    flat = x.reshape(2, 3, -1).gather(2, i.reshape(2, 3, -1)).reshape(2, 3, 5, 4)
    assert np.array_equal(flat.numpy(), y.numpy())


def test_gradcheck(rng):
    u = Dl.tensor([[[0.25, 0.6], [0.9, 0.1]]], dtype=Dl.float64)
    x = Dl.from_numpy(rand_np(rng, (1, 2, 7, 6), "float64")).requires_grad_(True)
    f = lambda a: F.fractional_max_pool2d(a, 2, (3, 4), _random_samples=u)  # noqa: E731
    assert Dl.autograd.gradcheck(f, (x,))
    assert Dl.autograd.gradgradcheck(f, (x,))
    u3 = Dl.tensor([[[0.3, 0.5, 0.8]]], dtype=Dl.float64)
    x3 = Dl.from_numpy(rand_np(rng, (1, 1, 5, 6, 4), "float64")).requires_grad_(True)
    assert Dl.autograd.gradcheck(
        lambda a: F.fractional_max_pool3d(a, (2, 2, 1), (3, 2, 4), _random_samples=u3), (x3,))


def test_modules(rng):
    u = rng.random((2, 3, 2))
    (ux, ut) = pair(u, "float32")
    m = Dl.nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True, _random_samples=ux)
    tm = torch.nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True,
                                      _random_samples=ut)
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    x, t = pair(rand_np(rng, (2, 3, 11, 8), "float32"))
    (y, i), (v, j) = m(x), tm(t)
    assert_same(y, v)
    assert_same(i, j)
    m3 = Dl.nn.FractionalMaxPool3d(2, output_size=(2, 3, 2))
    assert tuple(m3(Dl.zeros(3, 4, 5, 3)).shape) == (3, 2, 3, 2)
    for kwargs in ({}, {"output_size": 2, "output_ratio": 0.5}, {"output_ratio": 1.5}):
        with pytest.raises(ValueError):
            torch.nn.FractionalMaxPool2d(2, **kwargs)
        with pytest.raises(ValueError):
            Dl.nn.FractionalMaxPool2d(2, **kwargs)


def test_errors(rng):
    x, t = pair(rand_np(rng, (2, 3, 6, 6), "float32"))
    for f, tf in [(F.fractional_max_pool2d, TF.fractional_max_pool2d)]:
        with pytest.raises(ValueError):
            tf(t, 2)
        with pytest.raises(ValueError):
            f(x, 2)
        with pytest.raises(RuntimeError):
            tf(t, 4, output_size=(4, 4))
        with pytest.raises(RuntimeError, match="fractional_max_pool2d"):
            f(x, 4, output_size=(4, 4))
        with pytest.raises(IndexError):
            tf(t[0, 0], 2, output_size=(2, 2))
        with pytest.raises(IndexError):
            f(x[0, 0], 2, output_size=(2, 2))
        u = Dl.rand(1, 1, 2)
        with pytest.raises(RuntimeError, match="fractional_max_pool2d"):
            f(x[0, 0], 2, output_size=(2, 2), _random_samples=u)
    with pytest.raises(RuntimeError, match="_random_samples"):
        F.fractional_max_pool2d(x, 2, (3, 3), _random_samples=Dl.rand(2, 3, 3))


@pytest.mark.parametrize("size", [2, 3, 4, 5])
@pytest.mark.parametrize("channels", [1, 3, 8])
def test_cross_map_lrn2d(rng, size, channels):
    a = rand_np(rng, (2, channels, 3, 4), "float64")
    (x, t) = pair(a, "float64", requires_grad=True)
    m = Dl.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)
    tm = torch.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)
    assert repr(m) == repr(tm)
    y, v = m(x), tm(t)
    assert_same(y, v)
    _same_grads(rng, y, v, x, t)
