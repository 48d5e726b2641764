# test_diagonal.py: diagonal (a view), diag, trace and bincount against
# torch: values, views, gradients, errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest

import torch

from conftest import Dl, assert_same, pair, rand_np


@pytest.mark.parametrize('shape,offset,dims', [
    ((4, 4), 0, (0, 1)), ((3, 5), 2, (0, 1)), ((5, 3), -2, (0, 1)), ((3, 5), 7, (0, 1)),
    ((2, 3, 4), 1, (0, 2)), ((2, 3, 4), -1, (2, 0)), ((2, 3, 4, 5), 0, (-1, 1)),
])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int64'])
def test_diagonal_matches_torch(rng, shape, offset, dims, dtype):
    a = rand_np(rng, shape, dtype)
    d, t = pair(a, dtype)
    got = d.diagonal(offset, *dims)
    want = t.diagonal(offset, *dims)
    assert_same(got, want)
    assert_same(Dl.diagonal(d, offset=offset, dim1=dims[0], dim2=dims[1]), want)
    if got.numel():
        # a view: writes reach the base
        got.fill_(7)
        want.fill_(7)
        assert_same(d, t)


def test_diagonal_of_non_contiguous_and_gradients(rng):
    a = rand_np(rng, (5, 4, 3), 'float64')
    d, t = pair(a, 'float64', requires_grad=True)
    dv, tv = d.transpose(0, 2), t.transpose(0, 2)
    g = rand_np(rng, (4, 3), 'float64')
    (dv.diagonal(1, 0, 2) * Dl.tensor(g)).sum().backward()
    (tv.diagonal(1, 0, 2) * torch.tensor(g)).sum().backward()
    assert_same(d.grad, t.grad)
    if Dl is not torch:
        x = Dl.tensor(rand_np(rng, (3, 4), 'float64'), requires_grad=True)
        assert Dl.autograd.gradcheck(lambda x: x.diagonal(-1) * 2, (x,))
        assert Dl.autograd.gradgradcheck(lambda x: x.diagonal(1).pow(2), (x,))
        assert Dl.autograd.gradcheck(lambda x: Dl.diag(x, 1), (x,))
        v = Dl.tensor(rand_np(rng, (3,), 'float64'), requires_grad=True)
        assert Dl.autograd.gradcheck(lambda v: Dl.diag(v, -2), (v,))
        assert Dl.autograd.gradcheck(lambda x: Dl.trace(x), (x,))


@pytest.mark.parametrize('shape,k', [((4,), 0), ((3,), 2), ((3,), -1), ((4, 4), 0),
                                     ((3, 5), 1), ((5, 3), -2)])
def test_diag_and_trace(rng, shape, k):
    a = rand_np(rng, shape, 'float32')
    d, t = pair(a, 'float32')
    assert_same(Dl.diag(d, k), torch.diag(t, k))
    assert_same(d.diag(k), t.diag(k))
    if len(shape) == 2:
        assert_same(Dl.trace(d), torch.trace(t), rtol=1e-6, atol=1e-6)
        assert_same(d.trace(), t.trace(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('weights', [None, 'float32', 'float64', 'int32'])
@pytest.mark.parametrize('minlength', [0, 3, 12])
def test_bincount(rng, weights, minlength):
    x = rng.integers(0, 8, 20).astype(np.int64)
    d, t = pair(x, 'int64')
    kw = {'minlength': minlength}
    if weights:
        w = rand_np(rng, (20,), weights)
        dw, tw = pair(w, weights)
        assert_same(Dl.bincount(d, dw, **kw), torch.bincount(t, tw, **kw), rtol=1e-6, atol=1e-6)
    else:
        assert_same(d.bincount(**kw), t.bincount(**kw))
    assert_same(Dl.bincount(Dl.tensor([], dtype=Dl.int64)),
                torch.bincount(torch.tensor([], dtype=torch.int64)))


def test_errors():
    with pytest.raises(RuntimeError, match='cannot be identical'):
        Dl.ones(2, 2).diagonal(0, 1, 1)
    with pytest.raises(IndexError):
        Dl.ones(3).diagonal()
    with pytest.raises(RuntimeError, match='expected a matrix'):
        Dl.trace(Dl.ones(3))
    with pytest.raises(RuntimeError, match='matrix or a vector expected'):
        Dl.diag(Dl.ones(2, 2, 2))
    for bad in [Dl.tensor([-1]), Dl.tensor([[1]]), Dl.tensor([1.0])]:
        with pytest.raises(RuntimeError):
            Dl.bincount(bad)
