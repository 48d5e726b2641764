# test_embedding_activations.py: embedding (padding_idx, max_norm) and the
# ELU, Hardtanh and Softplus layers (libdl's C classes) against PyTorch on
# the same weights and inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pickle

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np


@pytest.mark.parametrize('kw', [{}, {'padding_idx': 2}, {'padding_idx': -1},
                                {'max_norm': 1.0}, {'max_norm': 0.5, 'norm_type': 1.0,
                                                    'padding_idx': 0}])
@pytest.mark.parametrize('name', ['float32', 'float64'])
def test_embedding_layer(rng, kw, name):
    torch.manual_seed(0)
    m, tm = Dl.nn.Embedding(7, 4, **kw), torch.nn.Embedding(7, 4, **kw)
    assert repr(m) == repr(tm)
    assert [n for n, _ in m.named_parameters()] == ['weight']
    assert tuple(m.weight.shape) == (7, 4) and m.weight.requires_grad
    if 'padding_idx' in kw:
        assert (m.weight[m.padding_idx] == 0).all()
    w = rand_np(rng, (7, 4), name)
    m = Dl.nn.Embedding(7, 4, _weight=pair(w, name)[0], **kw)
    tm = torch.nn.Embedding(7, 4, _weight=pair(w, name)[1], **kw)
    for idx in ([[1, 2, 2], [6, 0, 3]], [5], [[[0]]]):
        i, ti = Dl.tensor(idx), torch.tensor(idx)
        y, ty = m(i), tm(ti)
        assert_same(y, ty, rtol=1e-6, atol=1e-7)
        g = rand_np(rng, tuple(ty.shape), name)
        y.backward(pair(g, name)[0])
        ty.backward(pair(g, name)[1])
        assert_same(m.weight.grad, tm.weight.grad, rtol=1e-6, atol=1e-7)
        # max_norm renormalises the looked-up rows of the weight in place
        assert_same(m.weight.detach(), tm.weight.detach(), rtol=1e-6, atol=1e-7)


def test_embedding_functional_and_errors(rng):
    w = rand_np(rng, (5, 3), 'float64')
    (dw, tw) = pair(w, 'float64', requires_grad=True)
    idx = [[0, 4], [4, 1]]
    y = Dl.nn.functional.embedding(Dl.tensor(idx), dw, padding_idx=4)
    ty = torch.nn.functional.embedding(torch.tensor(idx), tw, padding_idx=4)
    assert_same(y, ty)
    y.sum().backward()
    ty.sum().backward()
    assert_same(dw.grad, tw.grad)
    assert Dl.autograd.gradcheck(lambda t: Dl.nn.functional.embedding(Dl.tensor(idx), t),
                                 (Dl.tensor(w, requires_grad=True),))
    pre = Dl.nn.Embedding.from_pretrained(Dl.tensor(w))
    tpre = torch.nn.Embedding.from_pretrained(torch.tensor(w))
    assert repr(pre) == repr(tpre) and not pre.weight.requires_grad
    assert_same(pre(Dl.tensor([3])), tpre(torch.tensor([3])))
    for m in (Dl, torch):
        with pytest.raises(RuntimeError):
            m.nn.functional.embedding(m.tensor([0.5]), m.zeros(3, 2))
        with pytest.raises(IndexError):
            m.nn.functional.embedding(m.tensor([3]), m.zeros(3, 2))
        with pytest.raises(AssertionError):
            m.nn.Embedding(3, 2, padding_idx=3)
    e = Dl.nn.Embedding(4, 2, padding_idx=1)
    e2 = pickle.loads(pickle.dumps(e))
    assert repr(e2) == repr(e)
    assert_same(e2.weight.detach(), e.weight.detach())


@pytest.mark.parametrize('cls, args', [('ELU', ()), ('ELU', (0.5,)), ('Hardtanh', ()),
                                       ('Hardtanh', (-0.5, 2.0)), ('Softplus', ()),
                                       ('Softplus', (2, 3))])
@pytest.mark.parametrize('name', ['float32', 'float64'])
def test_activation_layers(rng, cls, args, name):
    m, tm = getattr(Dl.nn, cls)(*args), getattr(torch.nn, cls)(*args)
    assert repr(m) == repr(tm)
    a = rand_np(rng, (3, 5), name)
    (x, tx) = pair(a, name, requires_grad=True)
    xs, txs = x.t(), tx.t()
    y, ty = m(xs), tm(txs)
    assert_same(y, ty, rtol=1e-6, atol=1e-6)
    y.sum().backward()
    ty.sum().backward()
    assert_same(x.grad, tx.grad, rtol=1e-6, atol=1e-6)
    m2 = pickle.loads(pickle.dumps(m))
    assert repr(m2) == repr(m)
    if name == 'float64':
        assert Dl.autograd.gradcheck(m, (Dl.tensor(a + 0.05, requires_grad=True),))


def test_activation_inplace_and_errors():
    for m in (Dl, torch):
        x = m.tensor([-2.0, -0.5, 0.5, 3.0])
        y = m.nn.ELU(inplace=True)(x)
        assert y is x
        x = m.tensor([-2.0, -0.5, 0.5, 3.0])
        assert m.nn.Hardtanh(inplace=True)(x) is x
        assert x.tolist() == [-1.0, -0.5, 0.5, 1.0]
        with pytest.raises(AssertionError):
            m.nn.Hardtanh(1.0, -1.0)
        assert m.nn.functional.hardtanh(m.tensor([-2.0, 0.0, 2.0]), 1.0, -1.0).tolist() == \
            [-1.0, -1.0, -1.0]
    assert np.isclose(Dl.nn.ELU(inplace=True)(Dl.tensor([-1.0])).item(), np.expm1(-1.0))


@pytest.mark.parametrize('kw', [{}, {'padding_idx': 1}, {'max_norm': 1.0}])
@pytest.mark.parametrize('idx', [[1, 2, 1], [[0, 1], [1, 3]], 2, [[[1]]]])
@pytest.mark.parametrize('idtype', ['int64', 'int32'])
def test_embedding_node_and_double_backward(rng, kw, idx, idtype):
    """One EmbeddingBackward0 node, as torch records (the NLP tutorials
    print it), for any index shape; its weight gradient sums repeated rows
    and skips padding_idx, and is itself differentiable in the output
    gradient (create_graph)."""
    w = rand_np(rng, (5, 3), 'float64')
    x, t = pair(w, 'float64', requires_grad=True)
    i = Dl.tensor(idx, dtype=getattr(Dl, idtype))
    ti = torch.tensor(idx, dtype=getattr(torch, idtype))
    y, u = Dl.nn.functional.embedding(i, x, **kw), torch.nn.functional.embedding(ti, t, **kw)
    assert y.grad_fn.name() == u.grad_fn.name() == 'EmbeddingBackward0'
    assert repr(y.grad_fn).split(' at ')[0] == repr(u.grad_fn).split(' at ')[0]
    assert_same(y, u)
    g = rand_np(rng, tuple(u.shape), 'float64')
    gd, gt = pair(g, 'float64', requires_grad=True)
    (dw,) = Dl.autograd.grad(y, x, gd, create_graph=True)
    (tw,) = torch.autograd.grad(u, t, gt, create_graph=True)
    assert_same(dw, tw)
    c = rand_np(rng, (5, 3), 'float64')
    (dw * pair(c, 'float64')[0]).sum().backward()
    (tw * pair(c, 'float64')[1]).sum().backward()
    assert_same(gd.grad, gt.grad)
    with Dl.no_grad():
        assert Dl.nn.functional.embedding(i, x).grad_fn is None
    assert Dl.nn.functional.embedding(i, x.detach()).grad_fn is None
