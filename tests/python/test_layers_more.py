# test_layers_more.py: the padding modules, InstanceNorm1d/2d/3d,
# BatchNorm3d, LocalResponseNorm, the dropout family (Dropout1d/3d,
# AlphaDropout, FeatureAlphaDropout), Bilinear, EmbeddingBag, ParameterList
# and ParameterDict, LazyLinear, a module's extra state,
# register_backward_hook, to_empty, GaussianNLLLoss and PoissonNLLLoss,
# against python3-torch on the same inputs and weights: values, gradients
# (inputs and parameters), float32 and float64, non-contiguous and
# unbatched inputs, repr, state_dict keys and errors; the dropout family
# by its statistics (torch's random stream is not libdl's).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

import numpy as np
import pytest
import torch

from conftest import Dl, SELF_CHECK, assert_same, dl_from_np, pair, rand_np

TOL = {'float32': {'rtol': 1e-5, 'atol': 1e-5}, 'float64': {}}
libdl_only = pytest.mark.skipif(SELF_CHECK, reason="libdl's own internals")


def copy_weights(m, tm):
    """Loads torch module tm's state into libdl module m."""
    m.load_state_dict({k: dl_from_np(v.detach().numpy()) for k, v in tm.state_dict().items()})


def run_pair(rng, m, tm, shape, name='float64', strided=False):
    """m and tm on the same input: values, the input's gradient and the
    parameters' gradients for one random output gradient."""
    a = rand_np(rng, shape, name)
    if strided:
        a = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    x, tx = pair(a, name, requires_grad=True)
    xs, txs = (x.transpose(-1, -2), tx.transpose(-1, -2)) if strided else (x, tx)
    y, ty = m(xs), tm(txs)
    assert_same(y, ty, **TOL[name])
    g = rand_np(rng, tuple(ty.shape), name)
    dg, tg = pair(g, name)
    y.backward(dg)
    ty.backward(tg)
    assert_same(x.grad, tx.grad, **TOL[name])
    for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert n == tn
        assert_same(p.grad, tp.grad, **TOL[name])
    return y, ty


# ---- padding modules --------------------------------------------------------

PAD_CASES = [
    ('ConstantPad1d', ((1, 2), 3.5), [(2, 3, 5), (3, 5)]),
    ('ConstantPad1d', (2, -1.0), [(2, 3, 4)]),
    ('ConstantPad2d', ((1, 0, 2, 1), 0.5), [(2, 3, 4, 5), (3, 4, 5)]),
    ('ConstantPad3d', (1, 2.0), [(1, 2, 3, 4, 3), (2, 3, 4, 3)]),
    ('ZeroPad2d', ((0, 1, 2, 3),), [(2, 2, 3, 4), (2, 3, 4)]),
    ('ZeroPad2d', (2,), [(1, 1, 3, 3)]),
    ('ReflectionPad1d', ((2, 1),), [(2, 3, 5), (3, 5)]),
    ('ReflectionPad2d', ((1, 2, 2, 0),), [(2, 2, 4, 5), (2, 4, 5)]),
    ('ReflectionPad2d', (1,), [(1, 1, 3, 3)]),
    ('ReflectionPad3d', ((1, 0, 1, 2, 0, 1),), [(1, 2, 3, 4, 3), (2, 3, 4, 3)]),
    ('ReplicationPad1d', ((3, 1),), [(2, 3, 4), (3, 4)]),
    ('ReplicationPad2d', (2,), [(2, 2, 3, 4), (2, 3, 4)]),
    ('ReplicationPad3d', ((1, 2, 0, 1, 2, 0),), [(1, 2, 3, 3, 2), (2, 3, 3, 2)]),
]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('cls,args,shapes', PAD_CASES)
def test_padding_modules(rng, cls, args, shapes, name):
    m, tm = getattr(Dl.nn, cls)(*args), getattr(torch.nn, cls)(*args)
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == []
    for shape in shapes:
        y, ty = run_pair(rng, m, tm, shape, name)
        assert y.grad_fn.name() == ty.grad_fn.name()
        run_pair(rng, m, tm, shape, name, strided=True)


def test_padding_gradcheck():
    for m in (Dl.nn.ReflectionPad2d((1, 2, 0, 1)), Dl.nn.ReplicationPad3d(1),
              Dl.nn.ConstantPad1d((2, 1), 0.5), Dl.nn.ReflectionPad1d(2)):
        nd = 3 if '1d' in type(m).__name__ else 4 if '2d' in type(m).__name__ else 5
        x = Dl.randn(*([2, 2, 4, 3, 3][:nd]), dtype=Dl.float64, requires_grad=True)
        assert Dl.autograd.gradcheck(m, (x,))


def test_padding_errors_and_constant_pad_nd(rng):
    a = rand_np(rng, (2, 3, 4), 'float32')
    x, tx = pair(a, 'float32')
    assert_same(Dl.constant_pad_nd(x, (1, 2, 0, 1), 2.5), torch.constant_pad_nd(tx, (1, 2, 0, 1), 2.5))
    assert_same(Dl.constant_pad_nd(x, [1, -1]), torch.constant_pad_nd(tx, [1, -1]))
    # a reflection as wide as the dim, and the wrong rank
    for m, tm, t, tt in [(Dl.nn.ReflectionPad1d(4), torch.nn.ReflectionPad1d(4), x, tx),
                         (Dl.nn.ReflectionPad2d(1), torch.nn.ReflectionPad2d(1),
                          x.reshape(24), tx.reshape(24))]:
        with pytest.raises(RuntimeError):
            tm(tt)
        with pytest.raises(RuntimeError):
            m(t)


# ---- InstanceNorm ---------------------------------------------------------

IN_CASES = [('InstanceNorm1d', (2, 3, 5), (3, 5)), ('InstanceNorm2d', (2, 3, 4, 3), (3, 4, 3)),
            ('InstanceNorm3d', (2, 3, 2, 3, 2), (3, 2, 3, 2))]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('affine,track', [(False, False), (True, False), (False, True),
                                          (True, True)])
@pytest.mark.parametrize('cls,batched,unbatched', IN_CASES)
def test_instance_norm_modules(rng, cls, batched, unbatched, affine, track, name):
    kw = dict(affine=affine, track_running_stats=track, momentum=0.2)
    m, tm = getattr(Dl.nn, cls)(3, **kw), getattr(torch.nn, cls)(3, **kw)
    if name == 'float64':
        m, tm = m.double(), tm.double()
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    if affine:  # not the defaults, so the affine part is tested
        w, b = rand_np(rng, (3,), name), rand_np(rng, (3,), name)
        tm.weight.data.copy_(torch.from_numpy(w))
        tm.bias.data.copy_(torch.from_numpy(b))
    copy_weights(m, tm)
    for shape in (batched, unbatched):
        run_pair(rng, m, tm, shape, name)
        run_pair(rng, m, tm, shape, name, strided=True)
    for k, v in tm.state_dict().items():
        assert_same(m.state_dict()[k], v, **TOL[name])
    # eval mode: the running statistics when tracked
    m.eval()
    tm.eval()
    run_pair(rng, m, tm, batched, name)


def test_instance_norm_functional(rng):
    a = rand_np(rng, (2, 3, 6), 'float64')
    x, tx = pair(a, 'float64', requires_grad=True)
    rm, trm = pair(rand_np(rng, (3,), 'float64'), 'float64')
    rv, trv = pair(rand_np(rng, (3,), 'float64', positive=True), 'float64')
    w, tw = pair(rand_np(rng, (3,), 'float64'), 'float64', requires_grad=True)
    b, tb = pair(rand_np(rng, (3,), 'float64'), 'float64', requires_grad=True)
    y = Dl.nn.functional.instance_norm(x, rm, rv, w, b, use_input_stats=True, momentum=0.3)
    ty = torch.nn.functional.instance_norm(tx, trm, trv, tw, tb, use_input_stats=True,
                                           momentum=0.3)
    assert_same(y, ty)
    assert_same(rm, trm)
    assert_same(rv, trv)
    y.sum().backward()
    ty.sum().backward()
    for p, tp in ((x, tx), (w, tw), (b, tb)):
        assert_same(p.grad, tp.grad)
    # torch.instance_norm, with the running statistics used
    y = Dl.instance_norm(x, w, b, rm, rv, False, 0.1, 1e-3, False)
    ty = torch.instance_norm(tx, tw, tb, trm, trv, False, 0.1, 1e-3, False)
    assert_same(y, ty)
    xg = Dl.randn(2, 3, 4, dtype=Dl.float64, requires_grad=True)
    wg = Dl.randn(3, dtype=Dl.float64, requires_grad=True)
    assert Dl.autograd.gradcheck(
        lambda t, u: Dl.nn.functional.instance_norm(t, weight=u, bias=u), (xg, wg))


def test_instance_norm_errors(rng):
    m, tm = Dl.nn.InstanceNorm2d(3), torch.nn.InstanceNorm2d(3)
    for shape in [(2, 3), (3, 4, 5, 6, 7)]:
        with pytest.raises(ValueError) as e:
            m(Dl.zeros(*shape))
        with pytest.raises(ValueError) as te:
            tm(torch.zeros(*shape))
        assert str(e.value) == str(te.value)
    # one spatial element in training mode
    with pytest.raises(ValueError) as e:
        Dl.nn.InstanceNorm1d(3)(Dl.zeros(2, 3, 1))
    assert 'Expected more than 1 spatial element when training' in str(e.value)
    # affine and a wrong channel count
    with pytest.raises(RuntimeError):
        Dl.nn.InstanceNorm1d(3, affine=True)(Dl.zeros(2, 4, 5))
    with pytest.raises(RuntimeError):
        torch.nn.InstanceNorm1d(3, affine=True)(torch.zeros(2, 4, 5))
    with pytest.raises(RuntimeError):
        Dl.nn.functional.instance_norm(Dl.zeros(2, 3, 4), use_input_stats=False)


# ---- BatchNorm3d ----------------------------------------------------------

@pytest.mark.parametrize('name', ['float32', 'float64'])
def test_batch_norm3d(rng, name):
    m, tm = Dl.nn.BatchNorm3d(3, momentum=0.3), torch.nn.BatchNorm3d(3, momentum=0.3)
    if name == 'float64':
        m, tm = m.double(), tm.double()
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    run_pair(rng, m, tm, (2, 3, 2, 3, 2), name)
    run_pair(rng, m, tm, (2, 3, 2, 2, 3), name, strided=True)
    for k, v in tm.state_dict().items():
        assert_same(m.state_dict()[k], v, **TOL[name])
    m.eval()
    tm.eval()
    run_pair(rng, m, tm, (1, 3, 2, 2, 2), name)
    with pytest.raises(ValueError) as e:
        m(Dl.zeros(2, 3, 4, 4, dtype=Dl.float64))
    with pytest.raises(ValueError) as te:
        tm(torch.zeros(2, 3, 4, 4, dtype=torch.float64))
    assert str(te.value) in str(e.value)


# ---- LocalResponseNorm ------------------------------------------------------

@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('size,shape', [(3, (2, 5, 4)), (2, (2, 4, 3, 3)), (5, (1, 6, 2, 2, 3)),
                                        (1, (2, 3, 4))])
def test_local_response_norm(rng, size, shape, name):
    kw = dict(alpha=0.5, beta=0.6, k=1.5)
    m, tm = Dl.nn.LocalResponseNorm(size, **kw), torch.nn.LocalResponseNorm(size, **kw)
    assert repr(m) == repr(tm)
    run_pair(rng, m, tm, shape, name)
    if len(shape) < 5:  # torch's views refuse a transposed 5-d input
        run_pair(rng, m, tm, shape, name, strided=True)


def test_local_response_norm_gradcheck_and_errors():
    x = Dl.randn(2, 4, 3, dtype=Dl.float64, requires_grad=True)
    assert Dl.autograd.gradcheck(lambda t: Dl.nn.functional.local_response_norm(t, 3, 0.3), (x,))
    assert repr(Dl.nn.LocalResponseNorm(3)) == repr(torch.nn.LocalResponseNorm(3))
    with pytest.raises(ValueError) as e:
        Dl.nn.LocalResponseNorm(2)(Dl.zeros(3, 4))
    with pytest.raises(ValueError) as te:
        torch.nn.LocalResponseNorm(2)(torch.zeros(3, 4))
    assert str(e.value) == str(te.value)


# ---- the dropout family -----------------------------------------------------

def _channels(y, x, keep_scale):
    """Every channel of y is all zeros or x * keep_scale: the number of
    zeroed channels."""
    yv, xv = y.detach().numpy(), x.detach().numpy()
    n, c = yv.shape[:2]
    yv, xv = yv.reshape(n, c, -1), xv.reshape(n, c, -1)
    zeroed = 0
    for i in range(n):
        for j in range(c):
            if np.all(yv[i, j] == 0):
                zeroed += 1
            else:
                np.testing.assert_allclose(yv[i, j], xv[i, j] * keep_scale, rtol=1e-6)
    return zeroed


@pytest.mark.parametrize('cls,fn,shape', [('Dropout1d', 'dropout1d', (40, 50, 3)),
                                          ('Dropout3d', 'dropout3d', (40, 50, 2, 1, 2))])
def test_channel_dropout(cls, fn, shape):
    Dl.manual_seed(0)
    p = 0.3
    m = getattr(Dl.nn, cls)(p)
    assert repr(m) == repr(getattr(torch.nn, cls)(p))
    x = Dl.rand(*shape) + 0.5
    y = m(x)
    zeroed = _channels(y, x, 1 / (1 - p))
    assert abs(zeroed / 2000 - p) < 0.04
    # unbatched input: whole channels too
    zeroed = _channels(m(x[0]).unsqueeze(0), x[0].unsqueeze(0), 1 / (1 - p))
    assert 0 < zeroed < 50
    # the gradient is the mask
    xg = x.clone().requires_grad_(True)
    yg = m(xg)
    yg.sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), (yg.detach() / x).numpy(), rtol=1e-5)
    # eval mode and p = 0 are the identity; p = 1 zeroes
    m.eval()
    assert m(x) is x or bool((m(x) == x).all())
    assert bool((getattr(Dl.nn.functional, fn)(x, 1.0) == 0).all())
    # in place: the input itself
    x2 = x.clone()
    out = getattr(Dl.nn.functional, fn)(x2, 0.5, inplace=True)
    assert bool((out == x2).all())
    assert _channels(x2, x, 2.0) > 0
    with pytest.raises(ValueError):
        getattr(Dl.nn, cls)(1.5)
    with pytest.raises(ValueError):
        getattr(Dl.nn.functional, fn)(x, -0.1)


def test_dropout_ranks():
    with pytest.raises(RuntimeError) as e:
        Dl.nn.functional.dropout1d(Dl.zeros(2, 3, 4, 5))
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.dropout1d(torch.zeros(2, 3, 4, 5))
    assert str(e.value) == str(te.value)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        Dl.nn.functional.dropout3d(Dl.ones(2, 3, 4), 0.5)
    assert any('dropout3d: Received a 3-D input' in str(x.message) for x in w)


ALPHA = 1.7580993408473766


@pytest.mark.parametrize('feature', [False, True])
def test_alpha_dropout(feature):
    Dl.manual_seed(1)
    p = 0.2
    a = 1.0 / np.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    cls = Dl.nn.FeatureAlphaDropout if feature else Dl.nn.AlphaDropout
    tcls = torch.nn.FeatureAlphaDropout if feature else torch.nn.AlphaDropout
    m = cls(p)
    assert repr(m) == repr(tcls(p))
    shape = (200, 100, 10) if feature else (400, 500)
    x = Dl.randn(*shape, dtype=Dl.float64)
    y = m(x)
    xv, yv = x.numpy(), y.numpy()
    kept = np.isclose(yv, a * xv + ALPHA * a * p, rtol=1e-9, atol=1e-12)
    dropped = np.isclose(yv, -ALPHA * a * (1 - p), rtol=1e-9, atol=1e-12)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - p) < 0.02
    # SELU's fixed point kept: mean 0 and variance 1
    assert abs(yv.mean()) < 0.03
    assert abs(yv.var() - 1) < 0.03
    if feature:  # whole channels dropped
        d = dropped.reshape(200, 100, 10)
        assert np.all(d.all(axis=2) | ~d.any(axis=2))
    # the gradient: a where kept, 0 where dropped
    xg = x.clone().requires_grad_(True)
    yg = m(xg)
    yg.sum().backward()
    g = xg.grad.numpy()
    yv = yg.detach().numpy()
    dropped = np.isclose(yv, -ALPHA * a * (1 - p), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, np.where(dropped, 0.0, a), rtol=1e-12)
    # eval mode is the identity; F's default is training=False
    m.eval()
    assert bool((m(x) == x).all())
    fn = Dl.nn.functional.feature_alpha_dropout if feature else Dl.nn.functional.alpha_dropout
    assert bool((fn(x, 0.5) == x).all())
    assert bool((fn(x, 1.0, True) == 0).all())
    with pytest.raises(ValueError):
        fn(x, 2.0, True)


def test_torch_level_dropouts():
    Dl.manual_seed(2)
    x = Dl.ones(300, 200, dtype=Dl.float64)
    y = Dl.alpha_dropout(x, 0.5, True)
    assert tuple(y.shape) == (300, 200)
    assert bool((Dl.alpha_dropout(x, 0.5, False) == x).all())
    z = Dl.feature_alpha_dropout(x.reshape(300, 200, 1), 0.5, True)
    assert tuple(z.shape) == (300, 200, 1)
    x2 = x.clone()
    out = Dl.dropout_(x2, 0.25, True)
    v = x2.numpy()
    assert np.all((v == 0) | np.isclose(v, 1 / 0.75))
    assert abs((v == 0).mean() - 0.25) < 0.02
    assert bool((out == x2).all())
    f = Dl.feature_dropout(Dl.ones(100, 50, 4), 0.5, True).numpy()
    assert np.all((f == 0).all(axis=2) | (f == 2).all(axis=2))
    # the in-place module form
    x3 = Dl.ones(50, 50)
    Dl.nn.Dropout1d(0.5, inplace=True)(x3)
    assert float((x3 == 0).float().mean()) > 0.3


# ---- Bilinear ---------------------------------------------------------------

@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('batch', [(5,), (2, 3), ()])
def test_bilinear_module(rng, batch, bias, name):
    m, tm = Dl.nn.Bilinear(3, 4, 2, bias=bias), torch.nn.Bilinear(3, 4, 2, bias=bias)
    if name == 'float64':
        m, tm = m.double(), tm.double()
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert tuple(m.weight.shape) == (2, 3, 4)
    copy_weights(m, tm)
    x1, tx1 = pair(rand_np(rng, batch + (3,), name), name, requires_grad=True)
    a2 = rand_np(rng, batch + (4,), name)
    x2, tx2 = pair(a2, name, requires_grad=True)
    y, ty = m(x1, x2), tm(tx1, tx2)
    assert_same(y, ty, **TOL[name])
    g = rand_np(rng, tuple(ty.shape), name)
    y.backward(dl_from_np(g))
    ty.backward(torch.from_numpy(g))
    for p, tp in [(x1, tx1), (x2, tx2)] + list(zip(m.parameters(), tm.parameters())):
        assert_same(p.grad, tp.grad, **TOL[name])


def test_bilinear_functional(rng):
    # non-contiguous inputs and weight, F.bilinear and torch.bilinear
    a1, a2 = rand_np(rng, (4, 3), 'float64'), rand_np(rng, (4, 5), 'float64')
    w, b = rand_np(rng, (2, 3, 5), 'float64'), rand_np(rng, (2,), 'float64')
    (x1, tx1), (x2, tx2) = pair(a1, 'float64'), pair(a2, 'float64')
    (wd, tw), (bd, tb) = pair(w, 'float64'), pair(b, 'float64')
    assert_same(Dl.nn.functional.bilinear(x1, x2, wd, bd),
                torch.nn.functional.bilinear(tx1, tx2, tw, tb))
    a1t = np.ascontiguousarray(a1.T)
    x1t = dl_from_np(a1t).t()
    assert not x1t.is_contiguous()
    assert_same(Dl.nn.functional.bilinear(x1t, x2, wd, bd),
                torch.nn.functional.bilinear(tx1, tx2, tw, tb))
    y = Dl.bilinear(x1, x2, wd, None)
    assert_same(y, torch.bilinear(tx1, tx2, tw, None))
    wt = Dl.from_numpy(np.ascontiguousarray(np.swapaxes(w, 1, 2))).transpose(1, 2)
    assert not wt.is_contiguous()
    assert_same(Dl.bilinear(x1, x2, wt, bd), torch.bilinear(tx1, tx2, tw, tb))
    xs = [Dl.randn(*s, dtype=Dl.float64, requires_grad=True) for s in [(3, 2), (3, 3), (2, 2, 3),
                                                                       (2,)]]
    assert Dl.autograd.gradcheck(Dl.nn.functional.bilinear, tuple(xs))
    assert Dl.autograd.gradgradcheck(Dl.nn.functional.bilinear, tuple(xs))


def test_bilinear_errors():
    w, tw = Dl.zeros(6, 3, 2), torch.zeros(6, 3, 2)
    cases = [((4, 3), (1, 4, 2), None), ((4, 3), (5, 2), None), ((4, 4), (4, 2), None),
             ((4, 3), (4, 5), None), ((4, 3), (4, 2), 7)]
    for s1, s2, nb in cases:
        args = (Dl.zeros(*s1), Dl.zeros(*s2), w, None if nb is None else Dl.zeros(nb))
        targs = (torch.zeros(*s1), torch.zeros(*s2), tw,
                 None if nb is None else torch.zeros(nb))
        with pytest.raises(RuntimeError) as te:
            torch.nn.functional.bilinear(*targs)
        with pytest.raises(RuntimeError) as e:
            Dl.nn.functional.bilinear(*args)
        assert str(te.value) in str(e.value)


# ---- EmbeddingBag -----------------------------------------------------------

BAG_INPUTS = [
    ([4, 2, 9, 1, 1, 0, 5], [0, 3, 3, 5]),  # an empty bag, a repeated index
    ([7, 3, 8, 2], [0, 1]),
    ([[1, 2, 3], [4, 1, 6]], None),
]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('mode', ['sum', 'mean', 'max'])
@pytest.mark.parametrize('idx,offsets', BAG_INPUTS)
@pytest.mark.parametrize('padding_idx', [None, 1])
def test_embedding_bag(rng, idx, offsets, mode, padding_idx, name):
    m = Dl.nn.EmbeddingBag(10, 3, mode=mode, padding_idx=padding_idx)
    tm = torch.nn.EmbeddingBag(10, 3, mode=mode, padding_idx=padding_idx)
    if name == 'float64':
        m, tm = m.double(), tm.double()
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    copy_weights(m, tm)
    i, ti = Dl.tensor(idx), torch.tensor(idx)
    o, to = (None, None) if offsets is None else (Dl.tensor(offsets), torch.tensor(offsets))
    y, ty = m(i, o), tm(ti, to)
    assert_same(y, ty, **TOL[name])
    g = rand_np(rng, tuple(ty.shape), name)
    y.backward(dl_from_np(g))
    ty.backward(torch.from_numpy(g))
    assert_same(m.weight.grad, tm.weight.grad, **TOL[name])


def test_embedding_bag_weights_and_last_offset(rng):
    w = rand_np(rng, (8, 4), 'float64')
    (wd, tw) = pair(w, 'float64', requires_grad=True)
    psw = rand_np(rng, (6,), 'float64')
    (pd, tp) = pair(psw, 'float64', requires_grad=True)
    idx, offs = [1, 2, 3, 4, 5, 6], [0, 2, 2, 6]
    kw = dict(mode='sum', include_last_offset=True)
    y = Dl.nn.functional.embedding_bag(Dl.tensor(idx), wd, Dl.tensor(offs),
                                       per_sample_weights=pd, **kw)
    ty = torch.nn.functional.embedding_bag(torch.tensor(idx), tw, torch.tensor(offs),
                                           per_sample_weights=tp, **kw)
    assert_same(y, ty)
    y.sum().backward()
    ty.sum().backward()
    assert_same(wd.grad, tw.grad)
    assert_same(pd.grad, tp.grad)
    # include_last_offset with mean and max (the last offset the input's
    # length: torch 1.13 writes out of bounds otherwise), and a 2-D input
    # with per-sample weights
    for mode in ('mean', 'max'):
        y = Dl.nn.functional.embedding_bag(Dl.tensor(idx), wd, Dl.tensor([0, 1, 1, 6]),
                                           mode=mode, include_last_offset=True)
        ty = torch.nn.functional.embedding_bag(torch.tensor(idx), tw, torch.tensor([0, 1, 1, 6]),
                                               mode=mode, include_last_offset=True)
        assert_same(y, ty)
    y = Dl.nn.functional.embedding_bag(Dl.tensor([[1, 2], [3, 3]]), wd, mode='sum',
                                       per_sample_weights=pd.narrow(0, 0, 4).reshape(2, 2))
    ty = torch.nn.functional.embedding_bag(torch.tensor([[1, 2], [3, 3]]), tw, mode='sum',
                                           per_sample_weights=tp.narrow(0, 0, 4).reshape(2, 2))
    assert_same(y, ty)
    # from_pretrained
    bag = Dl.nn.EmbeddingBag.from_pretrained(wd.detach(), mode='max')
    tbag = torch.nn.EmbeddingBag.from_pretrained(tw.detach(), mode='max')
    assert not bag.weight.requires_grad
    assert_same(bag(Dl.tensor([[0, 7]])), tbag(torch.tensor([[0, 7]])))


def test_embedding_bag_errors():
    w, tw = Dl.zeros(5, 2), torch.zeros(5, 2)
    cases = [
        (([[1, 2]], [0]), {}),                      # 2-D input with offsets
        (([1, 2], None), {}),                       # 1-D input without offsets
        (([1, 2], [[0]]), {}),                      # 2-D offsets
        (([[[1]]], None), {}),                      # 3-D input
        (([1, 2], [0]), {'mode': 'min'}),           # a bad mode
        (([1, 2], [0]), {'mode': 'mean', 'per_sample_weights': [1.0, 2.0]}),
        (([1, 2], [0]), {'mode': 'sum', 'per_sample_weights': [1.0]}),
    ]
    for (idx, offs), kw in cases:
        tkw = dict(kw)
        if 'per_sample_weights' in kw:
            kw['per_sample_weights'] = Dl.tensor(kw['per_sample_weights'])
            tkw['per_sample_weights'] = torch.tensor(tkw['per_sample_weights'])
        with pytest.raises(Exception) as te:
            torch.nn.functional.embedding_bag(
                torch.tensor(idx), tw, None if offs is None else torch.tensor(offs), **tkw)
        with pytest.raises(type(te.value)) as e:
            Dl.nn.functional.embedding_bag(Dl.tensor(idx), w,
                                           None if offs is None else Dl.tensor(offs), **kw)
        assert str(e.value) == str(te.value).replace(str(torch.Tensor), str(type(w)))
    with pytest.raises(AssertionError):
        Dl.nn.EmbeddingBag(5, 2, padding_idx=5)


# ---- ParameterList and ParameterDict ----------------------------------------

def test_parameter_list(rng):
    a, b = rand_np(rng, (2,), 'float32'), rand_np(rng, (2, 3), 'float32')
    pl = Dl.nn.ParameterList([Dl.nn.Parameter(dl_from_np(a)), dl_from_np(b)])
    tpl = torch.nn.ParameterList([torch.nn.Parameter(torch.from_numpy(a)), torch.from_numpy(b)])
    assert repr(pl) == repr(tpl)
    assert len(pl) == 2 and isinstance(pl[1], Dl.nn.Parameter)
    assert pl[1].requires_grad
    pl.append(Dl.zeros(4))
    tpl.append(torch.zeros(4))
    pl.extend([Dl.ones(1)])
    tpl.extend([torch.ones(1)])
    assert list(pl.state_dict()) == list(tpl.state_dict()) == ['0', '1', '2', '3']
    assert [tuple(p.shape) for p in pl] == [tuple(p.shape) for p in tpl]
    assert [n for n, _ in pl.named_parameters()] == [n for n, _ in tpl.named_parameters()]
    assert tuple(pl[-1].shape) == (1,)
    assert len(pl[1:3]) == 2
    with pytest.raises(IndexError):
        pl[4]

    class Net(Dl.nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = Dl.nn.ParameterList([Dl.nn.Parameter(Dl.ones(3)) for _ in range(2)])

        def forward(self, x):
            return x * self.ps[0] + self.ps[1]

    net = Net()
    assert list(net.state_dict()) == ['ps.0', 'ps.1']
    opt = Dl.optim.SGD(net.parameters(), lr=0.5)
    net(Dl.ones(3)).sum().backward()
    opt.step()
    assert_same(net.ps[0].detach(), torch.full((3,), 0.5))
    with pytest.raises(RuntimeError):
        pl(Dl.ones(1))


def test_parameter_dict(rng):
    a, b = rand_np(rng, (2,), 'float32'), rand_np(rng, (2, 3), 'float32')
    pd = Dl.nn.ParameterDict({'b': dl_from_np(b), 'a': Dl.nn.Parameter(dl_from_np(a))})
    tpd = torch.nn.ParameterDict({'b': torch.from_numpy(b),
                                  'a': torch.nn.Parameter(torch.from_numpy(a))})
    assert repr(pd) == repr(tpd)
    assert list(pd.keys()) == list(tpd.keys())
    assert list(pd.state_dict()) == list(tpd.state_dict())
    pd['c'] = Dl.zeros(1)
    tpd['c'] = torch.zeros(1)
    pd.update([('d', Dl.ones(2))])
    tpd.update([('d', torch.ones(2))])
    assert list(pd.state_dict()) == list(tpd.state_dict())
    assert isinstance(pd['c'], Dl.nn.Parameter) and 'c' in pd and len(pd) == 4
    assert tuple(pd.pop('c').shape) == (1,)
    assert 'c' not in pd and 'c' not in dict(pd.named_parameters())
    assert list(pd.state_dict()) == ['a', 'b', 'd']
    assert pd.get('zz') is None
    with pytest.raises(TypeError):
        pd[1] = Dl.zeros(1)
    with pytest.raises(RuntimeError):
        pd(Dl.ones(1))


# ---- Module: extra state, backward hook, to_empty, LazyLinear ---------------

def _extra_state_net(nn):
    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.counter = 3

        def get_extra_state(self):
            return {'counter': self.counter}

        def set_extra_state(self, state):
            self.counter = state['counter']

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.s = WithState()
            self.b = nn.BatchNorm1d(2)
    return Net


def test_extra_state():
    net, tnet = _extra_state_net(Dl.nn)(), _extra_state_net(torch.nn)()
    keys = list(net.state_dict())
    assert keys == list(tnet.state_dict())
    assert 's._extra_state' in keys
    sd = net.state_dict()
    assert sd['s._extra_state'] == {'counter': 3}
    sd['s._extra_state'] = {'counter': 7}
    net.load_state_dict(sd)
    assert net.s.counter == 7
    del sd['s._extra_state']
    with pytest.raises(RuntimeError) as e:
        net.load_state_dict(sd)
    assert 's._extra_state' in str(e.value)
    net.load_state_dict(sd, strict=False)
    with pytest.raises(RuntimeError):
        Dl.nn.Linear(2, 2).get_extra_state()


def test_register_backward_hook():
    m = Dl.nn.Linear(3, 2)
    seen = []
    handle = m.register_backward_hook(lambda mod, gi, go: seen.append((mod, gi, go)))
    x = Dl.randn(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert len(seen) == 1 and seen[0][0] is m
    assert tuple(seen[0][2][0].shape) == (4, 2)
    if not SELF_CHECK:  # torch's old-style hook sees its last op's inputs instead
        assert_same(seen[0][1][0], torch.from_numpy(x.grad.numpy()))
    handle.remove()
    m(x).sum().backward()
    assert len(seen) == 1


def test_to_empty():
    m = Dl.nn.Sequential(Dl.nn.Linear(3, 2), Dl.nn.BatchNorm1d(2))
    params = list(m.parameters())
    out = m.to_empty(device='cpu')
    assert out is m
    assert all(p is q for p, q in zip(params, m.parameters()))
    assert [tuple(p.shape) for p in m.parameters()] == [(2, 3), (2,), (2,), (2,)]
    assert m[1].num_batches_tracked.dtype == Dl.int64
    assert tuple(m(Dl.randn(4, 3)).shape) == (4, 2)


def test_lazy_linear(rng):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # "Lazy modules are a new feature ..."
        m = Dl.nn.LazyLinear(3)
        tm = torch.nn.LazyLinear(3)
    assert repr(m) == repr(tm)
    assert m.has_uninitialized_params()
    x = Dl.randn(5, 4)
    y = m(x)
    tm(torch.zeros(5, 4))
    assert repr(m) == repr(tm)
    assert tuple(y.shape) == (5, 3) and m.in_features == 4
    assert list(m.state_dict()) == list(tm.state_dict())
    # it has become a Linear, without the lazy methods, as torch's
    assert type(m) is Dl.nn.Linear and not hasattr(m, 'has_uninitialized_params')
    assert float(m.weight.abs().max()) <= 0.5
    assert_same(y, torch.from_numpy(x.numpy()) @ torch.from_numpy(m.weight.detach().numpy()).t()
                + torch.from_numpy(m.bias.detach().numpy()))
    y.sum().backward()
    assert tuple(m.weight.grad.shape) == (3, 4)


# ---- GaussianNLLLoss and PoissonNLLLoss -------------------------------------

@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('var_shape', [(4, 3), (4, 1), (4,)])
@pytest.mark.parametrize('full', [False, True])
def test_gaussian_nll_loss(rng, var_shape, reduction, full, name):
    x, tx = pair(rand_np(rng, (4, 3), name), name, requires_grad=True)
    t, tt = pair(rand_np(rng, (4, 3), name), name, requires_grad=True)
    v = rand_np(rng, var_shape, name, positive=True)
    v.flat[0] = 1e-9  # clamped to eps
    vd, tv = pair(v, name, requires_grad=True)
    m = Dl.nn.GaussianNLLLoss(full=full, reduction=reduction)
    tm = torch.nn.GaussianNLLLoss(full=full, reduction=reduction)
    assert repr(m) == repr(tm)
    y, ty = m(x, t, vd), tm(tx, tt, tv)
    assert_same(y, ty, **TOL[name])
    y.sum().backward()
    ty.sum().backward()
    for p, tp in ((x, tx), (t, tt), (vd, tv)):
        assert_same(p.grad, tp.grad, rtol=1e-4 if name == 'float32' else 1e-10, atol=1e-5)


def test_gaussian_nll_loss_errors():
    x, v = Dl.zeros(4, 3), Dl.ones(4, 2)
    for args, kw in [((x, x, v), {}), ((x, x, -Dl.ones(4, 3)), {}),
                     ((x, x, Dl.ones(4, 3)), {'reduction': 'avg'})]:
        targs = tuple(torch.from_numpy(a.numpy()) for a in args)
        with pytest.raises(ValueError) as te:
            torch.nn.functional.gaussian_nll_loss(*targs, **kw)
        with pytest.raises(ValueError) as e:
            Dl.nn.functional.gaussian_nll_loss(*args, **kw)
        assert str(e.value) == str(te.value)


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('log_input,full', [(True, False), (False, False), (True, True),
                                            (False, True)])
def test_poisson_nll_loss(rng, log_input, full, reduction, name):
    a = rand_np(rng, (3, 5), name, low=-1.0, high=2.0)
    if not log_input:
        a = np.abs(a) + 0.1
    x, tx = pair(a, name, requires_grad=True)
    t, tt = pair(rng.integers(0, 5, size=(3, 5)).astype(a.dtype), name)
    m = Dl.nn.PoissonNLLLoss(log_input=log_input, full=full, reduction=reduction)
    tm = torch.nn.PoissonNLLLoss(log_input=log_input, full=full, reduction=reduction)
    assert repr(m) == repr(tm)
    y, ty = m(x, t), tm(tx, tt)
    assert_same(y, ty, **TOL[name])
    y.sum().backward()
    ty.sum().backward()
    assert_same(x.grad, tx.grad, **TOL[name])
    r = {'none': 0, 'mean': 1, 'sum': 2}[reduction]
    assert_same(Dl.poisson_nll_loss(x, t, log_input, full, 1e-8, r),
                torch.poisson_nll_loss(tx, tt, log_input, full, 1e-8, r), **TOL[name])


def test_poisson_nll_loss_legacy_and_errors():
    x, t = Dl.ones(2, 2), Dl.ones(2, 2)
    tx, tt = torch.ones(2, 2), torch.ones(2, 2)
    assert_same(Dl.nn.PoissonNLLLoss(reduce=False)(x, t), torch.nn.PoissonNLLLoss(reduce=False)(tx, tt))
    assert_same(Dl.nn.functional.poisson_nll_loss(x, t, size_average=False),
                torch.nn.functional.poisson_nll_loss(tx, tt, size_average=False))
    with pytest.raises(ValueError) as e:
        Dl.nn.functional.poisson_nll_loss(x, t, reduction='avg')
    with pytest.raises(ValueError) as te:
        torch.nn.functional.poisson_nll_loss(tx, tt, reduction='avg')
    assert str(e.value) == str(te.value)


@libdl_only
def test_module_paths():
    import importlib
    where = {'padding': ['ConstantPad1d', 'ZeroPad2d', 'ReflectionPad3d', 'ReplicationPad2d'],
             'instancenorm': ['InstanceNorm1d', 'InstanceNorm3d'],
             'normalization': ['LocalResponseNorm'], 'batchnorm': ['BatchNorm3d'],
             'dropout': ['Dropout1d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout'],
             'linear': ['Bilinear', 'LazyLinear'], 'sparse': ['EmbeddingBag'],
             'container': ['ParameterList', 'ParameterDict'],
             'loss': ['GaussianNLLLoss', 'PoissonNLLLoss', 'CTCLoss']}
    for sub, names in where.items():
        mod = importlib.import_module('dl.nn.modules.' + sub)
        for n in names:
            cls = getattr(mod, n)
            assert cls is getattr(Dl.nn, n)
            assert cls.__module__ == 'dl.nn.modules.' + sub
            assert cls.__module__.replace('dl.', 'torch.', 1) == getattr(torch.nn, n).__module__


# ---- CTCLoss ------------------------------------------------------------------

def _ctc_case(rng, T, N, C, lengths, target_lengths, name, concat):
    logits = rand_np(rng, (T, N, C), name)
    x, tx = pair(logits, name, requires_grad=True)
    lp, tlp = x.log_softmax(2), tx.log_softmax(2)
    S = max(target_lengths) if target_lengths else 0
    tg = rng.integers(1, C, size=(N, max(S, 1)))
    if concat:
        flat = np.concatenate([tg[b, :target_lengths[b]] for b in range(N)]).astype(np.int64)
        targets, ttargets = Dl.tensor(flat.tolist(), dtype=Dl.int64), torch.tensor(flat)
    else:
        targets, ttargets = Dl.tensor(tg.tolist()), torch.tensor(tg)
    return x, tx, lp, tlp, targets, ttargets


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('concat', [False, True])
def test_ctc_loss(rng, reduction, concat, name):
    T, N, C = 12, 4, 5
    il, tlen = [12, 10, 7, 3], [4, 0, 3, 3]  # an empty target; an input too short (3 < 3 + repeats?)
    x, tx, lp, tlp, tg, ttg = _ctc_case(rng, T, N, C, il, tlen, name, concat)
    m = Dl.nn.CTCLoss(reduction=reduction, zero_infinity=True)
    tm = torch.nn.CTCLoss(reduction=reduction, zero_infinity=True)
    assert repr(m) == repr(tm)
    y, ty = m(lp, tg, il, tlen), tm(tlp, ttg, torch.tensor(il), torch.tensor(tlen))
    assert_same(y, ty, **TOL[name])
    g = rand_np(rng, tuple(ty.shape), name)
    y.backward(dl_from_np(g))
    ty.backward(torch.from_numpy(g))
    assert_same(x.grad, tx.grad, **TOL[name])
    # the gradient with respect to log_probs itself (torch's formula)
    lp2, tlp2 = pair(tlp.detach().numpy(), name, requires_grad=True)
    y2 = Dl.nn.functional.ctc_loss(lp2, tg, Dl.tensor(il), Dl.tensor(tlen), reduction=reduction,
                                   zero_infinity=True)
    ty2 = torch.nn.functional.ctc_loss(tlp2, ttg, torch.tensor(il), torch.tensor(tlen),
                                       reduction=reduction, zero_infinity=True)
    assert y2.grad_fn.name() == ty2.grad_fn.name()
    y2.sum().backward()
    ty2.sum().backward()
    assert_same(lp2.grad, tlp2.grad, **TOL[name])


def test_ctc_loss_infinity_blank_and_unbatched(rng):
    # an input shorter than its target: inf without zero_infinity
    lp = Dl.randn(3, 1, 4, dtype=Dl.float64).log_softmax(2)
    tlp = torch.from_numpy(lp.numpy())
    kw = dict(reduction='none')
    y = Dl.nn.functional.ctc_loss(lp, Dl.tensor([[1, 2, 3, 1]]), [3], [4], **kw)
    ty = torch.nn.functional.ctc_loss(tlp, torch.tensor([[1, 2, 3, 1]]), [3], [4], **kw)
    assert_same(y, ty)
    assert float(y[0]) == float('inf')
    # another blank, and an unbatched input
    a = rand_np(rng, (7, 5), 'float64')
    x, tx = pair(a, 'float64', requires_grad=True)
    for blank in (0, 4):
        y = Dl.ctc_loss(x.log_softmax(1), Dl.tensor([1, 2, 2]), [7], [3], blank, 1, False)
        ty = torch.ctc_loss(tx.log_softmax(1), torch.tensor([1, 2, 2]), [7], [3], blank, 1, False)
        assert_same(y, ty)
    xg = Dl.randn(6, 2, 4, dtype=Dl.float64, requires_grad=True)
    assert Dl.autograd.gradcheck(
        lambda t: Dl.nn.functional.ctc_loss(t.log_softmax(2), Dl.tensor([[1, 2], [3, 3]]),
                                            [6, 5], [2, 2]), (xg,))


def test_ctc_loss_errors():
    lp = Dl.zeros(5, 2, 4).log_softmax(2)
    tlp = torch.zeros(5, 2, 4).log_softmax(2)
    bad = [(([[1, 2], [1, 2]], [5, 6], [2, 2]), {}),        # input length past T
           (([[1, 2], [1, 2]], [5, 5], [2, 3]), {}),        # target length past S
           (([[1, 2], [1, 2]], [5], [2, 2]), {}),           # too few input lengths
           (([[1, 2], [1, 2]], [5, 5], [2, 2]), {'reduction': 'avg'})]
    for (tg, il, tl), kw in bad:
        with pytest.raises((RuntimeError, ValueError)) as te:
            torch.nn.functional.ctc_loss(tlp, torch.tensor(tg), il, tl, **kw)
        with pytest.raises(type(te.value)):
            Dl.nn.functional.ctc_loss(lp, Dl.tensor(tg), il, tl, **kw)
    if not SELF_CHECK:  # torch reads past its classes
        with pytest.raises(RuntimeError):
            Dl.nn.functional.ctc_loss(lp, Dl.tensor([[1, 2], [1, 9]]), [5, 5], [2, 2])
    with pytest.raises(RuntimeError):
        Dl.nn.functional.ctc_loss(lp, Dl.tensor([[1, 2], [1, 2]]), [5, 5], [2, 2], blank=4)


@libdl_only
def test_torch_save_round_trip(tmp_path):
    """The new layers saved as torch's classes load in torch (with the same
    repr and state, and run there), and torch's load back as libdl's."""
    mods = [Dl.nn.ZeroPad2d(2), Dl.nn.ReflectionPad2d((1, 2, 0, 1)), Dl.nn.InstanceNorm2d(3),
            Dl.nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
            Dl.nn.BatchNorm3d(2), Dl.nn.Bilinear(2, 3, 4), Dl.nn.EmbeddingBag(5, 2, mode='max'),
            Dl.nn.Dropout3d(0.2), Dl.nn.AlphaDropout(0.1), Dl.nn.LocalResponseNorm(3),
            Dl.nn.CTCLoss(blank=1), Dl.nn.PoissonNLLLoss(full=True), Dl.nn.GaussianNLLLoss()]
    for m in mods:
        path = str(tmp_path / 'm.pt')
        Dl.save(m, path)
        t = torch.load(path)
        assert type(t).__name__ == type(m).__name__
        assert repr(t) == repr(m)
        for k, v in m.state_dict().items():
            assert_same(v, t.state_dict()[k])
        torch.save(t, path)
        back = Dl.load(path)
        assert type(back) is type(m) and repr(back) == repr(m)
        assert list(back.state_dict()) == list(t.state_dict())
    # the instance norm torch loaded runs
    Dl.save(mods[3], str(tmp_path / 'n.pt'))
    tn = torch.load(str(tmp_path / 'n.pt'))
    x = torch.randn(2, 3, 5)
    assert_same(mods[3](Dl.from_numpy(x.numpy())), tn(x))
