# test_resample.py: pad, interpolate, avg_pool2d, adaptive_avg_pool2d,
# normalize, one_hot, dropout and the conv padding modes, against PyTorch
# on the same inputs (values, input and parameter gradients, gradcheck and
# gradgradcheck, float32 and float64, non-contiguous inputs, errors).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np

TOL = {'float32': {'rtol': 1e-5, 'atol': 1e-5}, 'float64': {}}


def compare(rng, fn, shape, name='float64', strided=False, extra=()):
    """fn(lib, x) on the same x in libdl and torch: values and the input's
    gradient for a random output gradient."""
    a = rand_np(rng, shape, name)
    (x, tx) = pair(a, name, requires_grad=True)
    xs, txs = x, tx
    if strided:
        x2, tx2 = pair(np.ascontiguousarray(np.swapaxes(a, -1, -2)), name, requires_grad=True)
        x, tx = x2, tx2
        xs, txs = x2.transpose(-1, -2), tx2.transpose(-1, -2)
        assert not xs.is_contiguous()
    y, ty = fn(Dl, xs), fn(torch, txs)
    assert_same(y, ty, **TOL[name])
    g = rand_np(rng, tuple(ty.shape), name)
    dg, tg = pair(g, name)
    y.backward(dg)
    ty.backward(tg)
    assert_same(x.grad, tx.grad, **TOL[name])
    return y, ty


def gradchecks(fn, shape):
    x = Dl.randn(*shape, dtype=Dl.float64, requires_grad=True)
    assert Dl.autograd.gradcheck(lambda a: fn(Dl, a), (x,))
    assert Dl.autograd.gradgradcheck(lambda a: fn(Dl, a), (x,))


# ---- pad ------------------------------------------------------------------

PADS = [
    ('constant', (2, 3, 5), (1, 2)),
    ('constant', (2, 3, 5, 4), (1, 0, -1, 2)),
    ('constant', (2, 3, 4, 5, 3), (1, 1, 2, 0, 0, 1)),
    ('constant', (2, 2, 3, 4, 5), (1, 1, 1, 1, 1, 1, 1, 0)),
    ('constant', (3, 4), (-1, -2)),
    ('reflect', (2, 3, 5), (2, 4)),
    ('reflect', (3, 5), (1, 1)),
    ('reflect', (1, 2, 5, 6), (2, 3, 4, 1)),
    ('reflect', (2, 4, 5), (-1, 2, 3, 0)),
    ('reflect', (1, 2, 3, 4, 5), (1, 2, 2, 1, 1, 0)),
    ('replicate', (2, 3, 5), (3, 1)),
    ('replicate', (1, 2, 5, 6), (0, 4, 2, -1)),
    ('replicate', (2, 3, 4, 5), (1, 1, 1, 1, 2, 2)),
    ('circular', (2, 3, 5), (2, 5)),
    ('circular', (1, 2, 5, 6), (2, 1, 1, 3)),
    ('circular', (2, 3, 5), (-1, 2)),
    ('circular', (1, 2, 3, 4, 5), (1, 1, 2, 2, 1, 0)),
]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('case', range(len(PADS)))
def test_pad(rng, name, case):
    mode, shape, p = PADS[case]

    def fn(m, x):
        return m.nn.functional.pad(x, p, mode=mode)
    compare(rng, fn, shape, name)
    compare(rng, fn, shape, name, strided=True)


def test_pad_value_and_gradchecks(rng):
    compare(rng, lambda m, x: m.nn.functional.pad(x, (1, 2, 0, 1), value=2.5), (2, 3, 4))
    t = torch.arange(6).view(2, 3)
    d = Dl.arange(6).view(2, 3)
    assert_same(Dl.nn.functional.pad(d, (1, 1, -1, 1), value=7),
                torch.nn.functional.pad(t, (1, 1, -1, 1), value=7))
    for mode, shape, p in PADS[::2]:
        gradchecks(lambda m, x: m.nn.functional.pad(x, p, mode=mode), shape)


@pytest.mark.parametrize('call, exc, match', [
    (lambda m: m.nn.functional.pad(m.zeros(2, 3, 4), (1, 2, 3)), RuntimeError,
     'divisible by 2'),
    (lambda m: m.nn.functional.pad(m.zeros(2, 3), (1, 1, 1, 1, 1, 1)), RuntimeError,
     'too large'),
    (lambda m: m.nn.functional.pad(m.zeros(2, 3, 4), (4, 1), mode='reflect'), RuntimeError,
     'Padding size should be less than the corresponding input dimension'),
    (lambda m: m.nn.functional.pad(m.zeros(2, 3, 4), (5, 1), mode='circular'), RuntimeError,
     'wrapping around more than once'),
    (lambda m: m.nn.functional.pad(m.zeros(2, 3, 4), (1, 1, 1, 1, 1, 1), mode='reflect'),
     NotImplementedError, 'Only 2D, 3D, 4D, 5D padding'),
    (lambda m: m.nn.functional.pad(m.zeros(4), (1, 1), mode='replicate'),
     NotImplementedError, 'Only 2D, 3D, 4D, 5D padding'),
    (lambda m: m.nn.functional.pad(m.zeros(2, 3, 4), (1, 1), mode='reflect', value=1),
     RuntimeError, "doesn't take in value argument"),
    (lambda m: m.nn.functional.pad(m.zeros(2, 3, 4), (1, 1), mode='foo'),
     NotImplementedError, 'Unrecognised padding mode foo'),
    (lambda m: m.nn.functional.pad(m.zeros(2, 3, 0), (1, 1), mode='replicate'),
     RuntimeError, ''),
    (lambda m: m.nn.functional.pad(m.zeros(2, 3, 4, dtype=m.int64), (1, 1), mode='reflect'),
     RuntimeError, 'not implemented for'),
])
def test_pad_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call(Dl)
    with pytest.raises(exc, match=match):
        call(torch)


# ---- conv padding modes --------------------------------------------------

@pytest.mark.parametrize('mode', ['zeros', 'reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('kw', [{'padding': 1}, {'padding': (2, 1), 'stride': 2},
                                {'padding': 'same', 'kernel_size': 4},
                                {'padding': 'same', 'kernel_size': (3, 2), 'dilation': 2}])
def test_conv2d_padding_modes(rng, mode, kw):
    kw = dict(kw)
    k = kw.pop('kernel_size', 3)
    torch.manual_seed(0)
    tm = torch.nn.Conv2d(3, 4, k, padding_mode=mode, **kw).double()
    m = Dl.nn.Conv2d(3, 4, k, padding_mode=mode, **kw)
    assert repr(m) == repr(tm)
    assert m.padding_mode == mode
    with Dl.no_grad():
        m.weight.copy_(Dl.from_numpy(tm.weight.detach().numpy().astype(np.float32)))
        m.bias.copy_(Dl.from_numpy(tm.bias.detach().numpy().astype(np.float32)))
    tm = tm.float()
    for shape in ((2, 3, 7, 6), (1, 3, 5, 5)):
        a = rand_np(rng, shape, 'float32')
        x, tx = pair(a, 'float32', requires_grad=True)
        y, ty = m(x), tm(tx)
        assert_same(y, ty, rtol=1e-4, atol=1e-5)
        g = rand_np(rng, tuple(ty.shape), 'float32')
        y.backward(pair(g, 'float32')[0])
        ty.backward(pair(g, 'float32')[1])
        assert_same(x.grad, tx.grad, rtol=1e-4, atol=1e-4)
        assert_same(m.weight.grad, tm.weight.grad, rtol=1e-4, atol=1e-4)
        m.zero_grad()
        tm.zero_grad()


@pytest.mark.parametrize('mode', ['zeros', 'reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('kw', [{'padding': 2}, {'padding': 'same', 'kernel_size': 4}])
def test_conv1d_padding_modes(rng, mode, kw):
    kw = dict(kw)
    k = kw.pop('kernel_size', 3)
    torch.manual_seed(0)
    tm = torch.nn.Conv1d(2, 3, k, padding_mode=mode, **kw)
    m = Dl.nn.Conv1d(2, 3, k, padding_mode=mode, **kw)
    assert repr(m) == repr(tm)
    with Dl.no_grad():
        m.weight.copy_(Dl.from_numpy(tm.weight.detach().numpy()))
        m.bias.copy_(Dl.from_numpy(tm.bias.detach().numpy()))
    a = rand_np(rng, (3, 2, 9), 'float32')
    x, tx = pair(a, 'float32', requires_grad=True)
    y, ty = m(x), tm(tx)
    assert_same(y, ty, rtol=1e-4, atol=1e-5)
    y.sum().backward()
    ty.sum().backward()
    assert_same(x.grad, tx.grad, rtol=1e-4, atol=1e-4)


def test_conv_same_odd_functional(rng):
    def fn(m, x):
        w = m.ones(2, 3, 2, 4, dtype=m.float64) * 0.1
        return m.nn.functional.conv2d(x, w, padding='same', dilation=(1, 1))
    compare(rng, fn, (2, 3, 5, 6))
    compare(rng, lambda m, x: m.nn.functional.conv1d(x, m.ones(2, 3, 2, dtype=m.float64),
                                                     padding='same'), (1, 3, 7))


# ---- pooling ----------------------------------------------------------------

AVG = [
    ((2, 3, 6, 6), 2, None, 0, False, True, None),
    ((1, 2, 7, 5), 3, 2, 1, False, True, None),
    ((3, 2, 7, 5), 3, 2, 1, False, False, None),
    ((3, 6, 6), (2, 3), (2, 3), (1, 1), False, False, None),
    ((2, 2, 7, 8), 3, 2, 1, True, True, None),
    ((2, 2, 7, 8), 3, 2, 1, True, False, None),
    ((1, 1, 6, 6), (3, 2), (2, 2), 0, True, True, None),
    ((2, 2, 5, 7), 3, 2, 1, True, True, 5),
    ((1, 3, 4, 4), 2, 1, 1, False, False, 3),
]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('case', range(len(AVG)))
def test_avg_pool2d(rng, name, case):
    shape, k, s, p, ceil, include, div = AVG[case]

    def fn(m, x):
        return m.nn.functional.avg_pool2d(x, k, s, p, ceil, include, div)
    compare(rng, fn, shape, name)
    compare(rng, fn, shape, name, strided=True)
    if name == 'float64' and case % 3 == 0:
        gradchecks(fn, shape)
    mk = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=include,
              divisor_override=div)
    assert repr(Dl.nn.AvgPool2d(**mk)) == repr(torch.nn.AvgPool2d(**mk))


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('case', [((2, 3, 7, 5), (3, 2)), ((1, 2, 5, 9), (4, 4)),
                                  ((3, 4, 6), (None, 4)), ((2, 1, 3, 3), 5),
                                  ((1, 2, 10, 7), (3, 1)), ((2, 3, 4, 6), 1)])
def test_adaptive_avg_pool2d(rng, name, case):
    shape, out = case

    def fn(m, x):
        return m.nn.functional.adaptive_avg_pool2d(x, out)
    compare(rng, fn, shape, name)
    compare(rng, fn, shape, name, strided=True)
    if name == 'float64':
        gradchecks(fn, shape)
    assert repr(Dl.nn.AdaptiveAvgPool2d(out)) == repr(torch.nn.AdaptiveAvgPool2d(out))


@pytest.mark.parametrize('call, match', [
    (lambda m: m.nn.functional.avg_pool2d(m.zeros(1, 1, 5, 5), 2, 1, 2), 'pad should be'),
    (lambda m: m.nn.functional.avg_pool2d(m.zeros(1, 1, 2, 2), 3), ''),
    (lambda m: m.nn.functional.avg_pool2d(m.zeros(1, 1, 1, 5, 5), 2), ""),
    (lambda m: m.nn.functional.avg_pool2d(m.zeros(1, 1, 4, 4), 2, divisor_override=0),
     'divisor must be not zero'),
    (lambda m: m.nn.functional.adaptive_avg_pool2d(m.zeros(1, 2, 0, 4), 2),
     'non-zero size for non-batch dimensions'),
    (lambda m: m.nn.functional.adaptive_avg_pool2d(m.zeros(4, 4), 2), ''),
])
def test_pool_errors(call, match):
    with pytest.raises(RuntimeError, match=match):
        call(Dl)
    with pytest.raises(RuntimeError, match=match):
        call(torch)


# ---- interpolate ----------------------------------------------------------

INTERP = [
    ((2, 3, 5), {'size': 9, 'mode': 'nearest'}),
    ((2, 3, 5), {'size': 3, 'mode': 'nearest'}),
    ((1, 2, 4, 5), {'scale_factor': 2, 'mode': 'nearest'}),
    ((1, 2, 4, 5), {'scale_factor': (1.7, 0.6), 'mode': 'nearest'}),
    ((1, 2, 4, 5), {'scale_factor': 1.7, 'mode': 'nearest', 'recompute_scale_factor': True}),
    ((2, 1, 3, 4, 5), {'size': (4, 3, 7), 'mode': 'nearest'}),
    ((2, 3, 5), {'size': 8, 'mode': 'linear'}),
    ((2, 3, 5), {'size': 8, 'mode': 'linear', 'align_corners': True}),
    ((2, 3, 5), {'scale_factor': 0.5, 'mode': 'linear'}),
    ((1, 2, 4, 5), {'size': (7, 3), 'mode': 'bilinear'}),
    ((3, 2, 4, 5), {'size': (7, 9), 'mode': 'bilinear', 'align_corners': True}),
    ((1, 2, 4, 5), {'scale_factor': (2.5, 1.3), 'mode': 'bilinear'}),
    ((1, 2, 4, 5), {'scale_factor': 2.5, 'mode': 'bilinear', 'recompute_scale_factor': True}),
    ((1, 1, 1, 1), {'size': (3, 1), 'mode': 'bilinear', 'align_corners': True}),
    ((2, 2, 6, 6), {'size': (4, 3), 'mode': 'area'}),
    ((1, 2, 4, 5), {'size': (7, 3), 'mode': 'bicubic'}),
    ((2, 1, 5, 4), {'size': (9, 8), 'mode': 'bicubic', 'align_corners': True}),
    ((1, 2, 4, 5), {'scale_factor': (1.5, 2.5), 'mode': 'bicubic'}),
    ((1, 2, 3, 4, 5), {'size': (4, 6, 3), 'mode': 'trilinear'}),
    ((2, 1, 3, 3, 4), {'scale_factor': 1.5, 'mode': 'trilinear', 'align_corners': True}),
]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('case', range(len(INTERP)))
def test_interpolate(rng, name, case):
    shape, kw = INTERP[case]

    def fn(m, x):
        return m.nn.functional.interpolate(x, **kw)
    compare(rng, fn, shape, name)
    if len(shape) >= 4 and min(shape[-2:]) > 1:
        compare(rng, fn, shape, name, strided=True)
    if name == 'float64':
        gradchecks(fn, shape)


def test_upsample_modules(rng):
    for args, kw in (((), {'scale_factor': 2}), ((), {'size': (5, 7), 'mode': 'bilinear'}),
                     ((), {'scale_factor': 1.5, 'mode': 'bilinear', 'align_corners': True})):
        m, tm = Dl.nn.Upsample(*args, **kw), torch.nn.Upsample(*args, **kw)
        assert repr(m) == repr(tm)
        a = rand_np(rng, (2, 3, 4, 4), 'float32')
        assert_same(m(pair(a)[0]), tm(pair(a)[1]), **TOL['float32'])
    for cls in ('UpsamplingNearest2d', 'UpsamplingBilinear2d'):
        m, tm = getattr(Dl.nn, cls)(scale_factor=2), getattr(torch.nn, cls)(scale_factor=2)
        assert repr(m) == repr(tm)
        a = rand_np(rng, (1, 2, 3, 5), 'float32')
        assert_same(m(pair(a)[0]), tm(pair(a)[1]), **TOL['float32'])


@pytest.mark.parametrize('call, exc, match', [
    (lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), mode='nearest'), ValueError,
     'either size or scale_factor'),
    (lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), 2, 2.0), ValueError,
     'only one of size or scale_factor'),
    (lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), 2, align_corners=True), ValueError,
     'align_corners option can only be set'),
    (lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, 4), (2, 2, 2)), ValueError,
     'same number of spatial dimensions'),
    (lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), 8, mode='bilinear'),
     NotImplementedError, 'needs 4D input'),
    (lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, 4), 8, mode='linear'),
     NotImplementedError, 'needs 3D input'),
    (lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4, 4), (0, 2)), RuntimeError,
     'should be greater than 0'),
    (lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 4), 2, recompute_scale_factor=True),
     ValueError, 'recompute_scale_factor is not meaningful'),
])
def test_interpolate_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call(Dl)
    with pytest.raises(exc, match=match):
        call(torch)


# ---- normalize and one_hot ------------------------------------------------

@pytest.mark.parametrize('kw', [{}, {'p': 1.0, 'dim': 0}, {'p': 3, 'dim': -1, 'eps': 1e-3},
                                {'dim': 2}])
def test_normalize(rng, kw):
    def fn(m, x):
        return m.nn.functional.normalize(x, **kw)
    compare(rng, fn, (3, 4, 5))
    compare(rng, fn, (3, 4, 5), 'float32', strided=True)
    z = np.zeros((2, 3))
    assert_same(Dl.nn.functional.normalize(pair(z)[0], **{k: v for k, v in kw.items()
                                                         if k != 'dim'}),
                torch.nn.functional.normalize(pair(z)[1], **{k: v for k, v in kw.items()
                                                             if k != 'dim'}))
    gradchecks(fn, (2, 3, 4))


def test_one_hot():
    for vals, n in (([0, 2, 1], -1), ([[1, 0], [3, 2]], 5), ([], 3)):
        d = Dl.tensor(vals, dtype=Dl.int64)
        t = torch.tensor(vals, dtype=torch.int64)
        assert_same(Dl.nn.functional.one_hot(d, n), torch.nn.functional.one_hot(t, n))
    for bad, n, exc in (([0, 3], 3, RuntimeError), ([-1, 0], 3, RuntimeError),
                        ([1.0], 3, RuntimeError), ([], -1, RuntimeError)):
        for m in (Dl, torch):
            dt = m.float32 if isinstance(bad[0] if bad else 0, float) else m.int64
            with pytest.raises(exc):
                m.nn.functional.one_hot(m.tensor(bad, dtype=dt), n)


# ---- dropout ----------------------------------------------------------------

@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('p', [0.1, 0.5, 0.8])
def test_dropout_statistics(name, p):
    x = Dl.ones(400, 500, dtype=getattr(Dl, name), requires_grad=True)
    Dl.manual_seed(3)
    y = Dl.nn.functional.dropout(x, p)
    kept = (y != 0).double().mean().item()
    # 200000 Bernoulli draws: the fraction's std is below 0.0012
    assert abs(kept - (1 - p)) < 0.006
    assert np.allclose(y[y != 0].detach().numpy(), 1 / (1 - p), rtol=1e-6)
    y.backward(Dl.full((400, 500), 2.0, dtype=getattr(Dl, name)))
    assert_same(x.grad, y.detach() * 2)
    Dl.manual_seed(3)
    assert Dl.equal(Dl.nn.functional.dropout(x, p), y)
    g = Dl.Generator()
    g.manual_seed(3)
    assert not Dl.equal(Dl.nn.functional.dropout(x, 0.5), Dl.nn.functional.dropout(x, 0.5))


def test_dropout_modes_and_errors():
    for m in (Dl, torch):
        x = m.randn(4, 5)
        assert m.nn.functional.dropout(x, 0.5, training=False) is x
        assert (m.nn.functional.dropout(x, 1.0) == 0).all()
        with pytest.raises(ValueError, match='between 0 and 1'):
            m.nn.functional.dropout(x, 1.5)
        d = m.nn.Dropout(0.3)
        d.eval()
        assert d(x) is x
        y = x.clone()
        z = m.nn.functional.dropout(y, 0.5, inplace=True)
        assert z is y
        assert ((y == 0) | (y == x * 2)).all()
        x = m.ones(2, 8, 3, 3)
        y = m.nn.functional.dropout2d(x, 0.5)
        per_channel = y.sum((2, 3))
        assert ((per_channel == 0) | (per_channel == 18)).all()
        assert repr(m.nn.Dropout2d(0.2)) == 'Dropout2d(p=0.2, inplace=False)'
    a = Dl.randn(3, 4, dtype=Dl.float64, requires_grad=True)
    Dl.manual_seed(0)
    assert Dl.autograd.gradcheck(lambda t: (Dl.manual_seed(1), Dl.nn.functional.dropout(t))[1],
                                 (a,))


# ---- pooling and dropout layers (libdl's C classes) -------------------------

def test_pool_layers(rng):
    import pickle
    for cls, args, kw in (('MaxPool2d', (3,), {'stride': 2, 'padding': 1}),
                          ('MaxPool2d', ((2, 3),), {'ceil_mode': True, 'dilation': (1, 2)}),
                          ('AvgPool2d', (3, 2, 1), {'ceil_mode': True,
                                                    'count_include_pad': False}),
                          ('AvgPool2d', ((2, 3),), {'divisor_override': 4}),
                          ('AdaptiveAvgPool2d', ((3, None),), {}),
                          ('AdaptiveAvgPool2d', (4,), {})):
        m, tm = getattr(Dl.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
        assert repr(m) == repr(tm)
        for shape in ((2, 3, 7, 9), (1, 2, 8, 8), (3, 6, 6)):
            a = rand_np(rng, shape, 'float32')
            x, tx = pair(a, 'float32', requires_grad=True)
            y, ty = m(x), tm(tx)
            assert_same(y, ty, **TOL['float32'])
            y.sum().backward()
            ty.sum().backward()
            assert_same(x.grad, tx.grad, **TOL['float32'])
        m2 = pickle.loads(pickle.dumps(m))
        assert repr(m2) == repr(m)
    m = Dl.nn.MaxPool2d(2, return_indices=True)
    tm = torch.nn.MaxPool2d(2, return_indices=True)
    a = rand_np(rng, (1, 2, 4, 4), 'float32')
    (y, i), (ty, ti) = m(pair(a)[0]), tm(pair(a)[1])
    assert_same(y, ty)
    assert_same(i, ti)
    for bad in (lambda m: m.nn.MaxPool2d(0), lambda m: m.nn.AvgPool2d(2, padding=-1),
                lambda m: m.nn.Dropout(-0.1)):
        with pytest.raises((ValueError, RuntimeError)):
            bad(Dl)(Dl.zeros(1, 1, 4, 4))
        with pytest.raises((ValueError, RuntimeError)):
            bad(torch)(torch.zeros(1, 1, 4, 4))


def test_dropout_layer():
    import pickle
    m = Dl.nn.Dropout(0.25)
    assert repr(m) == repr(torch.nn.Dropout(0.25))
    assert m.p == 0.25 and m.inplace is False
    x = Dl.ones(200, 100, requires_grad=True)
    y = m(x)
    kept = (y != 0).double().mean().item()
    assert abs(kept - 0.75) < 0.01
    y.sum().backward()
    assert_same(x.grad, (y != 0).float() / 0.75)
    m.eval()
    assert m(x) is x
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.p == 0.25 and not m2.training
    m.train()
    m.p = 1.0
    assert m.p == 1.0 and (m(x) == 0).all()
    m.p = 0.0
    assert_same(m(x), x)
    mi = Dl.nn.Dropout(0.5, inplace=True)
    z = Dl.ones(10, 10)
    assert mi(z) is z
    assert ((z == 0) | (z == 2)).all()


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('case', [((2, 3, 7, 5), (3, 2)), ((1, 2, 5, 9), (4, 4)),
                                  ((3, 4, 6), (None, 4)), ((2, 1, 3, 3), 5),
                                  ((1, 2, 10, 7), (3, 1))])
def test_adaptive_max_pool2d(rng, name, case):
    shape, out = case

    def fn(m, x):
        return m.nn.functional.adaptive_max_pool2d(x, out)
    compare(rng, fn, shape, name)
    compare(rng, fn, shape, name, strided=True)
    a = rand_np(rng, shape, name)
    (y, i), (ty, ti) = [m.nn.functional.adaptive_max_pool2d(t, out, return_indices=True)
                        for m, t in ((Dl, pair(a, name)[0]), (torch, pair(a, name)[1]))]
    assert_same(y, ty)
    assert_same(i, ti)
    m, tm = Dl.nn.AdaptiveMaxPool2d(out), torch.nn.AdaptiveMaxPool2d(out)
    assert repr(m) == repr(tm)
    assert_same(m(pair(a, name)[0]), tm(pair(a, name)[1]))
    with pytest.raises(RuntimeError, match='non-zero size'):
        Dl.nn.functional.adaptive_max_pool2d(Dl.zeros(1, 0, 3), 2)
