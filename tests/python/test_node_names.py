# test_node_names.py: the autograd graph of a linear layer and of
# cross_entropy as PyTorch records it (grad_fn names and next_functions),
# and their gradients, first and second order, by gradcheck in float64.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from conftest import SELF_CHECK, Dl, pair, rand_np

import dl
import dl.nn.functional as F
from dl.autograd import gradcheck, gradgradcheck

if SELF_CHECK:
    F = TF
    from torch.autograd import gradcheck, gradgradcheck  # noqa: F811


def chain(fn, depth=3):
    """The names of @fn and of its next_functions, @depth levels down."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), [chain(f, depth - 1) for f, _ in fn.next_functions])


# torch 1.13 records squeeze(0) of a 1-D linear's row as SqueezeBackward3;
# libdl's name for that view
SAME_VIEW = {'SqueezeBackward3': 'SqueezeBackward1'}


def same_names(dl_chain, th_chain):
    if isinstance(th_chain, str):
        # torch's own name too, so that the self-check (torch against torch) holds
        return dl_chain in (th_chain, SAME_VIEW.get(th_chain, th_chain))
    if th_chain is None or dl_chain is None:
        return dl_chain is th_chain
    return (same_names(dl_chain[0], th_chain[0]) and len(dl_chain[1]) == len(th_chain[1])
            and all(same_names(a, b) for a, b in zip(dl_chain[1], th_chain[1])))


def linear_pair(rng, shape, bias, dtype='float32'):
    w = rand_np(rng, (3, 4), dtype)
    b = rand_np(rng, (3,), dtype)
    x = rand_np(rng, shape, dtype)
    xd, xt = pair(x, dtype, requires_grad=True)
    wd, wt = pair(w, dtype, requires_grad=True)
    bd, bt = pair(b, dtype, requires_grad=True) if bias else (None, None)
    return (xd, wd, bd), (xt, wt, bt)


@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('shape', [(4,), (2, 4), (5, 2, 4), (0, 4)])
def test_linear_graph_as_torch(bias, shape):
    rng = np.random.default_rng(1)
    (xd, wd, bd), (xt, wt, bt) = linear_pair(rng, shape, bias)
    got = chain(F.linear(xd, wd, bd).grad_fn)
    want = chain(TF.linear(xt, wt, bt).grad_fn)
    assert same_names(got, want), (got, want)


def test_addmm_graph_as_torch():
    # addmm with a bias row and unit factors is the same one node as a
    # linear layer's, and gradchecks
    rng = np.random.default_rng(2)
    b, m1, m2 = (rand_np(rng, s, 'float64') for s in ((3,), (2, 4), (4, 3)))
    (bd, bt), (ad, at), (md, mt) = (pair(v, 'float64', requires_grad=True) for v in (b, m1, m2))
    lib = torch if SELF_CHECK else dl
    got = chain(lib.addmm(bd, ad, md).grad_fn)
    want = chain(torch.addmm(bt, at, mt).grad_fn)
    assert same_names(got, want), (got, want)
    assert gradcheck(lib.addmm, (bd, ad, md))
    assert gradgradcheck(lib.addmm, (bd, ad, md))


@pytest.mark.parametrize('shape', [(3,), (2, 3), (2, 1), (1, 3), (1,), ()],
                         ids=lambda s: 'x'.join(map(str, s)) or 'scalar')
@pytest.mark.parametrize('beta,alpha', [(1, 1), (0.5, 2.0), (0, 1.5), (-1, 1)])
def test_scaled_addmm_graph_as_torch(shape, beta, alpha):
    # any factors and any input that broadcasts to the product: one node,
    # the values and gradients of torch's
    rng = np.random.default_rng(3)
    b, m1, m2 = (rand_np(rng, s, 'float64') for s in (shape, (2, 4), (4, 3)))
    (bd, bt), (ad, at), (md, mt) = (pair(v, 'float64', requires_grad=True) for v in (b, m1, m2))
    lib = torch if SELF_CHECK else dl
    out = lib.addmm(bd, ad, md, beta=beta, alpha=alpha)
    ref = torch.addmm(bt, at, mt, beta=beta, alpha=alpha)
    assert same_names(chain(out.grad_fn), chain(ref.grad_fn))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    g = rand_np(rng, (2, 3), 'float64')
    out.backward(lib.from_numpy(g))
    ref.backward(torch.from_numpy(g))
    for ours, theirs in ((bd, bt), (ad, at), (md, mt)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)

    def f(i, x, y):
        return lib.addmm(i, x, y, beta=beta, alpha=alpha)
    assert gradcheck(f, (bd, ad, md))
    assert gradgradcheck(f, (bd, ad, md))


def test_addmm_beta_zero_ignores_nan_input():
    lib = torch if SELF_CHECK else dl
    i = lib.full((2, 3), float('nan'), dtype=lib.float64, requires_grad=True)
    a = lib.ones(2, 4, dtype=lib.float64, requires_grad=True)
    out = lib.addmm(i, a, lib.ones(4, 3, dtype=lib.float64), beta=0)
    assert out.grad_fn.name() == 'AddmmBackward0'
    assert (out.detach().numpy() == 4).all()
    out.sum().backward()
    assert (i.grad.numpy() == 0).all()


@pytest.mark.parametrize('bias', [True, False])
def test_linear_module_graph(bias):
    import dl
    lin = (torch if SELF_CHECK else dl).nn.Linear(4, 3, bias=bias)
    x = (torch if SELF_CHECK else dl).randn(2, 4, requires_grad=True)
    fn = lin(x).grad_fn
    assert fn.name() == ('AddmmBackward0' if bias else 'MmBackward0')
    nexts = [f for f, _ in fn.next_functions]
    if bias:
        assert nexts[0].name() == 'torch::autograd::AccumulateGrad'
        assert nexts[0].variable is lin.bias
        nexts = nexts[1:]
    assert nexts[0].name() == 'torch::autograd::AccumulateGrad' and nexts[0].variable is x
    assert nexts[1].name() == 'TBackward0'
    assert nexts[1].next_functions[0][0].variable is lin.weight


def test_linear_input_without_grad():
    """an input that needs no gradient: None in next_functions"""
    rng = np.random.default_rng(2)
    (xd, wd, bd), (xt, wt, bt) = linear_pair(rng, (2, 4), True)
    xd.requires_grad_(False)
    xt.requires_grad_(False)
    got = chain(F.linear(xd, wd, bd).grad_fn)
    assert got == chain(TF.linear(xt, wt, bt).grad_fn)
    assert got[1][1] is None


@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('shape', [(4,), (2, 4), (5, 2, 4), (2, 1, 3, 4)])
def test_linear_gradcheck(bias, shape):
    rng = np.random.default_rng(3)
    (xd, wd, bd), _ = linear_pair(rng, shape, bias, 'float64')
    inputs = (xd, wd, bd) if bias else (xd, wd)
    fn = (lambda x, w, b: F.linear(x, w, b)) if bias else (lambda x, w: F.linear(x, w))
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_linear_values_and_grads():
    rng = np.random.default_rng(4)
    (xd, wd, bd), (xt, wt, bt) = linear_pair(rng, (3, 2, 4), True)
    yd, yt = F.linear(xd, wd, bd), TF.linear(xt, wt, bt)
    np.testing.assert_allclose(yd.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    g = rand_np(rng, (3, 2, 3))
    yd.backward(Dl.tensor(g) if not SELF_CHECK else torch.tensor(g))
    yt.backward(torch.tensor(g))
    for a, b in ((xd, xt), (wd, wt), (bd, bt)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_linear_errors():
    x = Dl.randn(2, 5) if not SELF_CHECK else torch.randn(2, 5)
    w = Dl.randn(3, 4) if not SELF_CHECK else torch.randn(3, 4)
    with pytest.raises(RuntimeError):
        F.linear(x, w)


# (input shape, target shape, options)
CE_CASES = [
    ((3, 5), (3,), {}),
    ((3, 5), (3,), {'reduction': 'none'}),
    ((3, 5), (3,), {'reduction': 'sum'}),
    ((3, 5), (3,), {'weight': True}),
    ((3, 5), (3,), {'ignore_index': 1}),
    ((3, 5), (3,), {'weight': True, 'ignore_index': 1, 'reduction': 'none'}),
    ((5,), (), {}),
    ((5,), (), {'reduction': 'none'}),
    ((3, 5, 4), (3, 4), {}),
    ((3, 5, 4), (3, 4), {'reduction': 'none'}),
    ((3, 5, 4, 2), (3, 4, 2), {'weight': True}),
    ((3, 5, 4, 2, 2), (3, 4, 2, 2), {}),
    ((3, 5, 4, 2, 2), (3, 4, 2, 2), {'reduction': 'none', 'ignore_index': 0}),
]


def ce_args(rng, shape, tshape, opts, dtype='float32'):
    x = rand_np(rng, shape, dtype)
    t = rng.integers(0, shape[1] if len(shape) > 1 else shape[0], tshape)
    xd, xt = pair(x, dtype, requires_grad=True)
    td, tt = pair(np.asarray(t, np.int64), 'int64')
    od, ot = dict(opts), dict(opts)
    if opts.get('weight'):
        w = rand_np(rng, (shape[1] if len(shape) > 1 else shape[0],), dtype, positive=True)
        od['weight'], ot['weight'] = pair(w, dtype)
    return (xd, td, od), (xt, tt, ot)


@pytest.mark.parametrize('shape,tshape,opts', CE_CASES)
def test_cross_entropy_graph_as_torch(shape, tshape, opts):
    rng = np.random.default_rng(5)
    (xd, td, od), (xt, tt, ot) = ce_args(rng, shape, tshape, opts)
    got = chain(F.cross_entropy(xd, td, **od).grad_fn)
    want = chain(TF.cross_entropy(xt, tt, **ot).grad_fn)
    assert same_names(got, want), (got, want)
    got = chain(F.nll_loss(xd.log_softmax(1 if len(shape) > 1 else 0), td, **od).grad_fn)
    want = chain(TF.nll_loss(xt.log_softmax(1 if len(shape) > 1 else 0), tt, **ot).grad_fn)
    assert same_names(got, want), (got, want)


def test_cross_entropy_label_smoothing_graph():
    """the smoothed loss adds the scaled nll_loss to the smoothing term"""
    rng = np.random.default_rng(6)
    (xd, td, _), (xt, tt, _) = ce_args(rng, (3, 5), (3,), {})
    fd = F.cross_entropy(xd, td, label_smoothing=0.1).grad_fn
    ft = TF.cross_entropy(xt, tt, label_smoothing=0.1).grad_fn
    assert fd.name() == ft.name() == 'AddBackward0'
    scaled = fd.next_functions[0][0]
    assert scaled.next_functions[0][0].name() == 'NllLossBackward0'
    assert scaled.next_functions[0][0].next_functions[0][0].name() == 'LogSoftmaxBackward0'


@pytest.mark.parametrize('shape,tshape,opts', CE_CASES + [
    ((3, 5), (3,), {'label_smoothing': 0.2}),
    ((3, 5), (3,), {'label_smoothing': 0.2, 'weight': True, 'ignore_index': 3}),
    ((3, 5, 2), (3, 2), {'label_smoothing': 0.3, 'reduction': 'none'}),
    ((5,), (), {'label_smoothing': 0.1, 'reduction': 'none'}),
    ((3, 5), (3,), {'ignore_index': -5, 'reduction': 'mean'}),
])
def test_cross_entropy_gradcheck(shape, tshape, opts):
    rng = np.random.default_rng(7)
    (xd, td, od), _ = ce_args(rng, shape, tshape, opts, 'float64')

    def fn(x):
        return F.cross_entropy(x, td, **od)

    assert gradcheck(fn, (xd,))
    assert gradgradcheck(fn, (xd,))

    def nll(x):
        return F.nll_loss(x, td, **{k: v for k, v in od.items() if k != 'label_smoothing'})

    assert gradcheck(nll, (xd,))
    assert gradgradcheck(nll, (xd,))


@pytest.mark.parametrize('opts', [{}, {'weight': True}, {'label_smoothing': 0.25},
                                  {'reduction': 'none'}, {'reduction': 'sum', 'weight': True}])
def test_cross_entropy_probabilities_gradcheck(opts):
    rng = np.random.default_rng(8)
    x = rand_np(rng, (3, 5), 'float64')
    p = rng.random((3, 5))
    p /= p.sum(1, keepdims=True)
    xd, _ = pair(x, 'float64', requires_grad=True)
    pd, _ = pair(p, 'float64')
    od = dict(opts)
    if opts.get('weight'):
        od['weight'], _ = pair(rng.random(5) + 0.5, 'float64')
    fn = lambda x: F.cross_entropy(x, pd, **od)  # noqa: E731
    assert gradcheck(fn, (xd,))
    assert gradgradcheck(fn, (xd,))


@pytest.mark.parametrize('shape,tshape,opts', CE_CASES)
def test_cross_entropy_values_and_grads(shape, tshape, opts):
    rng = np.random.default_rng(9)
    (xd, td, od), (xt, tt, ot) = ce_args(rng, shape, tshape, opts)
    ld, lt = F.cross_entropy(xd, td, **od), TF.cross_entropy(xt, tt, **ot)
    np.testing.assert_allclose(ld.detach().numpy(), lt.detach().numpy(), rtol=1e-5, atol=1e-6)
    ld.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(xd.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_nll_loss_all_ignored_grad_is_zero():
    """mean over no samples: a nan loss, as torch, and zero gradients"""
    xd, xt = pair(np.zeros((2, 3), np.float32), 'float32', requires_grad=True)
    td, tt = pair(np.array([1, 1]), 'int64')
    ld, lt = F.nll_loss(xd, td, ignore_index=1), TF.nll_loss(xt, tt, ignore_index=1)
    assert np.isnan(ld.item()) and np.isnan(lt.item())
    ld.backward()
    lt.backward()
    np.testing.assert_array_equal(xd.grad.numpy(), xt.grad.numpy())


def test_clamp_node_by_bound_kind():
    # torch's clamp (numbers) records ClampBackward1, clamp.Tensor (a bound
    # that is a tensor) ClampBackward0
    for lib in (torch, Dl):
        x = lib.ones(3, requires_grad=True)
        t = lib.zeros(3)
        names = [f().grad_fn.name() for f in (
            lambda: x.clamp(min=0.5), lambda: x.clamp(0, 1), lambda: x.clip(0, 1),
            lambda: x.clamp(min=t), lambda: x.clamp(max=t), lambda: x.clamp(t, t + 1),
            lambda: x.clamp_min(0.5), lambda: x.clamp_max(0.5), lambda: lib.clamp_min(x, 0.5),
            lambda: x.clamp_min(t), lambda: x.clamp_max(t), lambda: lib.clamp_max(x, t))]
        assert names == (['ClampBackward1'] * 3 + ['ClampBackward0'] * 3
                         + ['ClampMinBackward0', 'ClampMaxBackward0', 'ClampMinBackward0',
                            'ClampMinBackward1', 'ClampMaxBackward1', 'ClampMaxBackward1']), \
            (lib, names)
