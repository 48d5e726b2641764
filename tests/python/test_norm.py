# test_norm.py: batch_norm, layer_norm, group_norm and BatchNorm1d/2d,
# LayerNorm, GroupNorm against PyTorch: values, input/weight/bias
# gradients, running statistics over several steps, eval mode, momentum
# None, affine False, track_running_stats False, odd and batch-1 shapes,
# non-contiguous inputs, float32 and float64, gradcheck and gradgradcheck,
# bad inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import io
import pickle

import numpy as np
import pytest
import torch

from conftest import SELF_CHECK, Dl, assert_same, pair, rand_np

TOL = {'float32': {'rtol': 1e-4, 'atol': 1e-4}, 'float64': {'rtol': 1e-10, 'atol': 1e-10}}


def strided_pair(rng, s, dtype):
    """a pair of non-contiguous views: every other element along the last
    dim longer than 1 of a bigger tensor"""
    dim = max(i for i, n in enumerate(s) if n > 1)
    big = list(s)
    big[dim] *= 2
    d, t = pair(rand_np(rng, big, dtype), dtype)
    index = (slice(None),) * dim + (slice(None, None, 2),)
    return d[index], t[index]


def leaves(rng, dtype, shapes, strided=False):
    out = []
    for i, s in enumerate(shapes):
        if s is None:
            out.append((None, None))
            continue
        if strided and i == 0:
            d, t = strided_pair(rng, s, dtype)
            assert not d.is_contiguous()
            d, t = d.detach().requires_grad_(), t.detach().requires_grad_()
            assert not d.is_contiguous()
        else:
            d, t = pair(rand_np(rng, s, dtype), dtype)
        out.append((d.requires_grad_(), t.requires_grad_()))
    return out


def check(rng, dtype, fn, shapes, strided=False):
    """fn(lib, *tensors) on libdl and torch: output and every gradient"""
    ps = leaves(rng, dtype, shapes, strided)
    y, ty = fn(Dl, *[p[0] for p in ps]), fn(torch, *[p[1] for p in ps])
    assert_same(y, ty, **TOL[dtype])
    g = rand_np(rng, tuple(ty.shape), dtype)
    dg, tg = pair(g, dtype)
    y.backward(dg)
    ty.backward(tg)
    for d, t in ps:
        if d is not None:
            assert_same(d.grad, t.grad, **TOL[dtype])


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('strided', [False, True])
@pytest.mark.parametrize('shape', [(4, 3, 5, 6), (1, 3, 7, 5), (5, 3, 1, 2), (7, 3, 2), (9, 3)])
def test_batch_norm_training(rng, dtype, strided, shape):
    c = shape[1]
    check(rng, dtype, lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, True),
          [shape, (c,), (c,)], strided)
    check(rng, dtype, lambda m, x: m.nn.functional.batch_norm(x, None, None, None, None, True,
                                                              0.1, 1e-3),
          [shape], strided)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_batch_norm_running_stats_and_eval(rng, dtype):
    shape = (6, 4, 3, 5)
    rm, trm = pair(rand_np(rng, (4,), dtype), dtype)
    rv, trv = pair(rand_np(rng, (4,), dtype, low=0.5, high=2.0), dtype)
    for step in range(3):
        (x, tx), = leaves(rng, dtype, [shape])
        y = Dl.nn.functional.batch_norm(x, rm, rv, None, None, True, 0.3)
        ty = torch.nn.functional.batch_norm(tx, trm, trv, None, None, True, 0.3)
        assert_same(y, ty, **TOL[dtype])
        assert_same(rm, trm, **TOL[dtype])
        assert_same(rv, trv, **TOL[dtype])
    # eval mode: the running statistics, gradients with them as constants
    check(rng, dtype, lambda m, x, w, b: m.nn.functional.batch_norm(
        x, m.tensor([0.1, -0.2, 0.3, 0.0], dtype=getattr(m, dtype)),
        m.tensor([1.5, 0.5, 2.0, 1.0], dtype=getattr(m, dtype)), w, b, False), [shape, (4,), (4,)])
    check(rng, dtype, lambda m, x, w, b: m.nn.functional.batch_norm(
        x, m.zeros(4, dtype=getattr(m, dtype)), m.ones(4, dtype=getattr(m, dtype)), w, b, False),
        [(3, 4), (4,), (4,)], strided=True)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('strided', [False, True])
@pytest.mark.parametrize('shape, norm', [((3, 4, 5), (5,)), ((2, 3, 4, 5), (4, 5)), ((7,), (7,)),
                                         ((1, 33), (33,)), ((5, 3, 1), (3, 1))])
def test_layer_norm(rng, dtype, strided, shape, norm):
    check(rng, dtype, lambda m, x, w, b: m.nn.functional.layer_norm(x, norm, w, b),
          [shape, norm, norm], strided)
    check(rng, dtype, lambda m, x: m.nn.functional.layer_norm(x, norm, eps=1e-3), [shape], strided)
    check(rng, dtype, lambda m, x, w: m.nn.functional.layer_norm(x, norm, w), [shape, norm],
          strided)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('strided', [False, True])
@pytest.mark.parametrize('shape, groups', [((2, 6, 5, 4), 3), ((1, 4, 7), 4), ((3, 6), 2),
                                           ((5, 8, 3, 3), 1), ((2, 3, 1, 1), 1)])
def test_group_norm(rng, dtype, strided, shape, groups):
    c = shape[1]
    check(rng, dtype, lambda m, x, w, b: m.nn.functional.group_norm(x, groups, w, b),
          [shape, (c,), (c,)], strided)
    check(rng, dtype, lambda m, x: m.nn.functional.group_norm(x, groups, eps=1e-3), [shape],
          strided)
    check(rng, dtype, lambda m, x, w: m.nn.functional.group_norm(x, groups, w),
          [shape, (c,)], strided)


def test_large_rows_threaded(rng):
    """sizes above the threading grain, float32 against float64 torch"""
    check(rng, 'float32', lambda m, x, w, b: m.nn.functional.layer_norm(x, (768,), w, b),
          [(64, 768), (768,), (768,)])
    check(rng, 'float32', lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, True),
          [(16, 8, 28, 28), (8,), (8,)])
    check(rng, 'float32', lambda m, x, w, b: m.nn.functional.group_norm(x, 4, w, b),
          [(8, 16, 14, 14), (16,), (16,)])
    # [n, c]: blocks of channels, threaded; in eval mode too
    check(rng, 'float32', lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, True),
          [(512, 100), (100,), (100,)])
    check(rng, 'float64', lambda m, x, w, b: m.nn.functional.batch_norm(
        x, m.arange(100, dtype=m.float64) / 50, m.arange(100, dtype=m.float64) / 10 + 0.5, w, b),
        [(512, 100), (100,), (100,)])


@pytest.mark.skipif(SELF_CHECK, reason='libdl only: its thread counts')
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('shape, groups', [((2048, 64), None), ((32, 64, 64), None),
                                           ((300, 24), None), ((64, 96), 4),
                                           ((4, 10, 7), None)])
def test_row_norm_weight_gradients_do_not_depend_on_threads(rng, dtype, shape, groups):
    # layer norm's (and group norm's of one value per channel) weight and
    # bias gradients sum over the rows in parts fixed by the size: the same
    # bits on 1, 2 or 3 threads (a busy machine runs them on one: minGPT's
    # LayerNorm gradients changed from run to run), and torch's values
    c = shape[-1] if groups is None else shape[1]
    x, tx = pair(rand_np(rng, shape, dtype), dtype)
    g, tg = pair(rand_np(rng, shape, dtype), dtype)
    w, tw = pair(rand_np(rng, (c,), dtype) + 1, dtype)
    b, tb = pair(rand_np(rng, (c,), dtype), dtype)

    def grads(m, x, g, w, b):
        x, w, b = (t.detach().requires_grad_() for t in (x, w, b))
        f = m.nn.functional
        y = f.layer_norm(x, (c,), w, b) if groups is None else f.group_norm(x, groups, w, b)
        y.backward(g)
        return x.grad, w.grad, b.grad

    before = Dl.get_num_threads()
    try:
        got = []
        for nt in (1, 2, 3, 2):
            Dl.set_num_threads(nt)
            got.append([t.numpy().tobytes() for t in grads(Dl, x, g, w, b)])
    finally:
        Dl.set_num_threads(before)
    assert got[0] == got[1] == got[2] == got[3]
    for d, t in zip(grads(Dl, x, g, w, b), grads(torch, tx, tg, tw, tb)):
        assert_same(d, t, **TOL[dtype])


@pytest.mark.parametrize('fn, shape', [
    (lambda m, x, w: m.nn.functional.batch_norm(x, m.zeros(4), m.ones(4), w, None, True),
     (0, 4, 3)),
    (lambda m, x, w: m.nn.functional.layer_norm(x, (4,), w), (0, 4)),
    (lambda m, x, w: m.nn.functional.group_norm(x, 2, w), (0, 4, 3)),
])
def test_empty_batch(fn, shape):
    out = []
    for lib in (Dl, torch):
        x, w = lib.zeros(*shape).requires_grad_(), lib.ones(4).requires_grad_()
        y = fn(lib, x, w)
        y.sum().backward()
        out.append((y, x.grad, w.grad))
    for d, t in zip(*out):
        assert_same(d, t)


def test_shifted_data_is_accurate():
    """a large mean over a small spread: the two-pass variance keeps it"""
    base = np.random.default_rng(3).normal(size=(16, 256)).astype(np.float32)
    x, tx = pair(base + 1e4, 'float32')
    assert_same(Dl.nn.functional.layer_norm(x, (256,)),
                torch.nn.functional.layer_norm(tx, (256,)), rtol=1e-2, atol=2e-2)


@pytest.mark.parametrize('half', ['float16', 'bfloat16'])
def test_half_precision(rng, half):
    if SELF_CHECK and half == 'float16':
        pytest.skip('torch 1.13 has no float16 norms on the CPU')
    a = rand_np(rng, (4, 6, 5), 'float32')
    x, tx = pair(a, 'float32')
    for fn in (lambda m, t: m.nn.functional.layer_norm(t, (5,)),
               lambda m, t: m.nn.functional.group_norm(t, 2),
               lambda m, t: m.nn.functional.batch_norm(t, None, None, training=True)):
        y = fn(Dl, x.to(getattr(Dl, half)))
        ty = fn(torch, tx.to(getattr(torch, half)).float()).to(getattr(torch, half))
        assert_same(y, ty, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize('fn, shapes', [
    (lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, True), [(3, 2, 3), (2,),
                                                                                  (2,)]),
    (lambda m, x, w, b: m.nn.functional.batch_norm(x, m.zeros(2, dtype=m.float64),
                                                   m.ones(2, dtype=m.float64), w, b),
     [(3, 2, 3), (2,), (2,)]),
    (lambda m, x, w, b: m.nn.functional.layer_norm(x, (2, 3), w, b), [(2, 2, 3), (2, 3), (2, 3)]),
    (lambda m, x, w, b: m.nn.functional.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
])
def test_gradcheck_and_gradgradcheck(rng, fn, shapes):
    inputs = [Dl.tensor(rand_np(rng, s, 'float64'), dtype=Dl.float64).requires_grad_()
              for s in shapes]
    assert Dl.autograd.gradcheck(lambda *a: fn(Dl, *a), inputs)
    assert Dl.autograd.gradgradcheck(lambda *a: fn(Dl, *a), inputs)


def test_double_backward_matches_torch(rng):
    res = []
    (x, tx), (w, tw) = leaves(rng, 'float64', [(4, 3, 5), (3,)])
    for lib, a, b in ((Dl, x, w), (torch, tx, tw)):
        out = []
        for f in (lambda: lib.nn.functional.batch_norm(a, None, None, b, None, True),
                  lambda: lib.nn.functional.group_norm(a, 3, b),
                  lambda: lib.nn.functional.layer_norm(a, (5,)) * b.sum()):
            y = f()
            g, = lib.autograd.grad((y * y.detach().sin()).sum(), a, create_graph=True)
            gg = lib.autograd.grad((g * g).sum(), [a, b])
            out.append((g,) + tuple(gg))
        res.append(out)
    for d, t in zip(res[0], res[1]):
        for dd, tt in zip(d, t):
            assert_same(dd, tt, **TOL['float64'])


def test_top_level_functions(rng):
    """torch.batch_norm takes weight and bias before the running statistics"""
    check(rng, 'float64', lambda m, x, w, b: m.batch_norm(x, w, b, None, None, True, 0.1, 1e-5,
                                                          False), [(4, 3, 2), (3,), (3,)])
    check(rng, 'float64', lambda m, x, w, b: m.layer_norm(x, (2,), w, b), [(4, 3, 2), (2,), (2,)])
    check(rng, 'float64', lambda m, x, w, b: m.group_norm(x, 3, w, b), [(4, 3, 2), (3,), (3,)])


# ---- modules ------------------------------------------------------------

def built(dtype, make):
    """the module made by make(lib) for libdl and torch, its parameters and
    buffers in dtype (the default dtype while it is made)"""
    out = []
    for lib in (Dl, torch):
        old = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, dtype))
        try:
            out.append(make(lib))
        finally:
            lib.set_default_dtype(old)
    return out


@pytest.mark.parametrize('name, shape, kw', [
    ('BatchNorm2d', (4, 3, 5, 5), {}),
    ('BatchNorm2d', (3, 3, 4, 4), {'momentum': None}),
    ('BatchNorm2d', (2, 3, 3, 3), {'affine': False}),
    ('BatchNorm2d', (2, 3, 3, 3), {'track_running_stats': False}),
    ('BatchNorm1d', (5, 4), {'eps': 1e-3, 'momentum': 0.5}),
    ('BatchNorm1d', (3, 4, 7), {'momentum': None, 'affine': False}),
    ('BatchNorm1d', (1, 4, 7), {}),
])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_batch_norm_modules(rng, name, shape, kw, dtype):
    m, tm = built(dtype, lambda lib: getattr(lib.nn, name)(shape[1], **kw))
    assert repr(m) == repr(tm)
    assert list(m.state_dict().keys()) == list(tm.state_dict().keys())
    assert m.momentum == tm.momentum and m.eps == tm.eps
    assert (m.running_mean is None) == (tm.running_mean is None)
    assert (m.weight is None) == (tm.weight is None)
    for step in range(3):
        (x, tx), = leaves(rng, dtype, [shape], strided=step == 1)
        y, ty = m(x), tm(tx)
        assert_same(y, ty, **TOL[dtype])
        g = rand_np(rng, shape, dtype)
        y.backward(pair(g, dtype)[0])
        ty.backward(pair(g, dtype)[1])
        assert_same(x.grad, tx.grad, **TOL[dtype])
        if tm.weight is not None:
            assert_same(m.weight.grad, tm.weight.grad, **TOL[dtype])
            assert_same(m.bias.grad, tm.bias.grad, **TOL[dtype])
    for (k, v), (tk, tv) in zip(m.state_dict().items(), tm.state_dict().items()):
        assert k == tk
        assert_same(v, tv, **TOL[dtype])
    m.eval()
    tm.eval()
    (x, tx), = leaves(rng, dtype, [shape])
    y, ty = m(x), tm(tx)
    assert_same(y, ty, **TOL[dtype])
    y.sum().backward()
    ty.sum().backward()
    assert_same(x.grad, tx.grad, **TOL[dtype])


def test_batch_norm_loads_torch_state_dict(rng):
    tm = torch.nn.BatchNorm2d(3)
    for _ in range(2):
        tm(torch.randn(4, 3, 2, 2) * 3 + 1)
    tm.weight.data.uniform_()
    buf = io.BytesIO()
    torch.save(tm.state_dict(), buf)
    buf.seek(0)
    state = torch.load(buf)
    m = Dl.nn.BatchNorm2d(3)
    m.load_state_dict({k: Dl.from_numpy(v.numpy()) if not SELF_CHECK else v
                       for k, v in state.items()})
    assert m.num_batches_tracked.item() == 2
    assert m.num_batches_tracked.dtype == Dl.int64
    m.eval()
    tm.eval()
    a = rand_np(rng, (2, 3, 4, 4), 'float32')
    assert_same(m(pair(a, 'float32')[0]), tm(pair(a, 'float32')[1]), **TOL['float32'])


def test_batch_norm_momentum_attribute():
    m = Dl.nn.BatchNorm1d(2)
    m.momentum = None
    assert m.momentum is None
    for i in range(3):
        m(Dl.tensor([[1.0 * i, 2.0], [3.0, 5.0 * i]]))
    t = torch.nn.BatchNorm1d(2, momentum=None)
    for i in range(3):
        t(torch.tensor([[1.0 * i, 2.0], [3.0, 5.0 * i]]))
    assert_same(m.running_mean, t.running_mean, **TOL['float32'])
    assert_same(m.running_var, t.running_var, **TOL['float32'])
    m.momentum = 0.2
    assert m.momentum == pytest.approx(0.2)
    m.eps = 1e-3
    assert m.eps == pytest.approx(1e-3)


def check_module(rng, dtype, make, shape):
    """the module make(lib) on libdl and torch: repr, state dict keys,
    output and the gradients of its input and parameters"""
    m, tm = built(dtype, make)
    assert repr(m) == repr(tm)
    assert list(m.state_dict().keys()) == list(tm.state_dict().keys())
    (x, tx), = leaves(rng, dtype, [shape], strided=True)
    y, ty = m(x), tm(tx)
    assert_same(y, ty, **TOL[dtype])
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert_same(x.grad, tx.grad, **TOL[dtype])
    if tm.weight is not None:
        assert_same(m.weight.grad, tm.weight.grad, **TOL[dtype])
        assert_same(m.bias.grad, tm.bias.grad, **TOL[dtype])
    else:
        assert m.weight is None and m.bias is None
    return m, tm


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('args, shape', [((5,), (3, 4, 5)), (((3, 4),), (2, 3, 4)),
                                         ((6, 1e-3, False), (1, 6))])
def test_layer_norm_module(rng, dtype, args, shape):
    m, tm = check_module(rng, dtype, lambda lib: lib.nn.LayerNorm(*args), shape)
    assert m.normalized_shape == tm.normalized_shape


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('args, shape', [((2, 6), (3, 6, 4, 5)), ((3, 3, 1e-3, False), (1, 3, 7)),
                                         ((1, 4), (2, 4))])
def test_group_norm_module(rng, dtype, args, shape):
    m, tm = check_module(rng, dtype, lambda lib: lib.nn.GroupNorm(*args), shape)
    assert (m.num_groups, m.num_channels, m.affine) == (tm.num_groups, tm.num_channels, tm.affine)


def test_batch_norm_pickles():
    m = Dl.nn.BatchNorm2d(3, momentum=None)
    m(Dl.randn(4, 3, 2, 2) * 3 + 1)
    m2 = pickle.loads(pickle.dumps(m))
    assert repr(m2) == repr(m)
    for k, v in m.state_dict().items():
        assert np.array_equal(m2.state_dict()[k].numpy(), v.numpy()), k


def test_layer_norm_pickles():
    m = Dl.nn.LayerNorm((2, 3), eps=1e-4)
    m.weight.detach().fill_(2.0)
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.normalized_shape == (2, 3) and m2.eps == pytest.approx(1e-4)
    assert_same(m2.weight, torch.full((2, 3), 2.0))


# ---- bad input ----------------------------------------------------------

def test_errors():
    F = Dl.nn.functional
    with pytest.raises(ValueError, match='Expected more than 1 value per channel when training'):
        F.batch_norm(Dl.randn(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match='Expected more than 1 value per channel when training'):
        Dl.nn.BatchNorm1d(3)(Dl.randn(1, 3))
    with pytest.raises(ValueError, match=r'expected 4D input \(got 3D input\)'):
        Dl.nn.BatchNorm2d(3)(Dl.randn(2, 3, 4))
    with pytest.raises(ValueError, match=r'expected 2D or 3D input \(got 4D input\)'):
        Dl.nn.BatchNorm1d(3)(Dl.randn(2, 3, 4, 4))
    with pytest.raises(RuntimeError, match='running_mean should contain 4 elements not 3'):
        F.batch_norm(Dl.randn(2, 4), Dl.zeros(3), Dl.ones(3))
    with pytest.raises(RuntimeError, match='running_mean should contain 4 elements not 3'):
        Dl.nn.BatchNorm1d(3)(Dl.randn(2, 4))
    with pytest.raises(RuntimeError, match=r'Given normalized_shape=\[5\], expected input with '
                       r'shape \[\*, 5\], but got input of size\s?\[3, 4\]'):
        F.layer_norm(Dl.randn(3, 4), (5,))
    with pytest.raises(RuntimeError, match='Expected weight to be of same shape as '
                       'normalized_shape'):
        F.layer_norm(Dl.randn(3, 4), (4,), Dl.ones(3))
    with pytest.raises(RuntimeError, match='Expected number of channels in input to be divisible '
                       'by num_groups'):
        F.group_norm(Dl.randn(2, 6, 4), 4)
    with pytest.raises(RuntimeError, match='Expected weight to be a vector of size equal to the '
                       'number of channels in input'):
        F.group_norm(Dl.randn(2, 6, 4), 3, Dl.ones(3))
    with pytest.raises(ValueError, match='num_channels must be divisible by num_groups'):
        Dl.nn.GroupNorm(4, 6)
    with pytest.raises(RuntimeError):
        F.layer_norm(Dl.zeros(3, 4, dtype=Dl.int64), (4,))
