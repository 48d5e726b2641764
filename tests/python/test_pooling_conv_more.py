# test_pooling_conv_more.py: the 1-d and 3-d pooling (max, average,
# adaptive, LP), max unpooling, conv3d and the 1-d and 3-d transposed
# convolutions, the pixel and channel shuffles, functional and modules,
# against PyTorch on the same data: values, indices, gradients, node names,
# repr, state_dict and errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pickle

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

from conftest import Dl, assert_same, pair, rand_np

F = Dl.nn.functional
TOL = {'float32': dict(rtol=1e-4, atol=1e-5), 'float64': dict(rtol=1e-10, atol=1e-12)}


def make(rng, shape, dtype, noncontig=False, requires_grad=True):
    """(libdl, torch) inputs of @shape; with @noncontig, transposed views of
    the last two dims."""
    if noncontig:
        a = rand_np(rng, shape[:-2] + (shape[-1], shape[-2]), dtype)
        x, t = pair(a, dtype)
        x, t = x.transpose(-1, -2), t.transpose(-1, -2)
        assert not x.is_contiguous()
        if requires_grad:
            x.requires_grad_(True)
            t.requires_grad_(True)
        return x, t
    return pair(rand_np(rng, shape, dtype), dtype, requires_grad)


def leaf(x):
    return x._base if getattr(x, '_base', None) is not None else x


def check(rng, dl_fn, th_fn, x, t, dtype='float32', grad=True, indices=False):
    """Runs both functions on x and t: the same output (and indices), and
    the same gradient of sum(out * g)."""
    y, ty = dl_fn(x), th_fn(t)
    if indices:
        (y, i), (ty, ti) = y, ty
        assert_same(i, ti)
    assert_same(y, ty, **TOL[dtype])
    if grad and t.requires_grad:
        g = rand_np(rng, tuple(ty.shape), dtype)
        gx, gt = pair(g, dtype)
        (y * gx).sum().backward()
        (ty * gt).sum().backward()
        xs = x if x.is_leaf else None
        if xs is not None:
            assert_same(xs.grad, t.grad, **TOL[dtype])
    return y, ty


# ---- max pooling ---------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('shape,kw', [
    ((2, 3, 9), dict(kernel_size=2)),
    ((2, 3, 10), dict(kernel_size=3, stride=2, padding=1)),
    ((3, 11), dict(kernel_size=3, stride=2, dilation=2, ceil_mode=True)),
    ((1, 2, 7), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)),
])
def test_max_pool1d(rng, dtype, shape, kw):
    x, t = make(rng, shape, dtype)
    check(rng, lambda a: F.max_pool1d(a, **kw), lambda a: TF.max_pool1d(a, **kw), x, t, dtype)
    x, t = make(rng, shape, dtype)
    check(rng, lambda a: F.max_pool1d(a, return_indices=True, **kw),
          lambda a: TF.max_pool1d(a, return_indices=True, **kw), x, t, dtype, indices=True)
    m, tm = Dl.nn.MaxPool1d(**kw), torch.nn.MaxPool1d(**kw)
    assert repr(m) == repr(tm)
    x, t = make(rng, shape, dtype)
    check(rng, m, tm, x, t, dtype)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('shape,kw', [
    ((2, 2, 4, 5, 6), dict(kernel_size=2)),
    ((1, 3, 5, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), dilation=(2, 1, 1))),
    ((1, 2, 5, 5, 7), dict(kernel_size=3, stride=2, padding=(1, 0, 1), ceil_mode=True)),
])
def test_max_pool3d(rng, dtype, shape, kw):
    x, t = make(rng, shape, dtype)
    y, _ = check(rng, lambda a: F.max_pool3d(a, **kw), lambda a: TF.max_pool3d(a, **kw), x, t,
                 dtype)
    assert y.grad_fn.name() == 'MaxPool3DWithIndicesBackward0' or y.dim() == 4
    x, t = make(rng, shape, dtype, noncontig=True)
    check(rng, lambda a: F.max_pool3d(a, return_indices=True, **kw),
          lambda a: TF.max_pool3d(a, return_indices=True, **kw), x, t, dtype, indices=True)
    x, t = make(rng, shape, dtype)
    check(rng, lambda a: F.max_pool3d_with_indices(a, **kw),
          lambda a: TF.max_pool3d_with_indices(a, **kw), x, t, dtype, indices=True)
    m, tm = Dl.nn.MaxPool3d(return_indices=True, **kw), torch.nn.MaxPool3d(return_indices=True,
                                                                           **kw)
    assert repr(m) == repr(tm)
    x, t = make(rng, shape, dtype)
    check(rng, m, tm, x, t, dtype, indices=True)


def test_max_pool_ties_and_nan():
    a = np.zeros((1, 1, 2, 2, 2), 'float32')
    a[0, 0, 1, 0, 1] = np.nan
    x, t = pair(a)
    y, i = F.max_pool3d(x, 2, return_indices=True)
    ty, ti = TF.max_pool3d(t, 2, return_indices=True)
    assert_same(y, ty)
    assert_same(i, ti)
    b = np.ones((1, 1, 2, 2, 2), 'float64')
    x, t = pair(b)
    assert_same(F.max_pool3d(x, 2, return_indices=True)[1],
                TF.max_pool3d(t, 2, return_indices=True)[1])


def test_with_indices_names(rng):
    x, t = make(rng, (2, 3, 6, 6), 'float32')
    check(rng, lambda a: F.max_pool2d_with_indices(a, 2, 2),
          lambda a: TF.max_pool2d_with_indices(a, 2, 2), x, t, indices=True)
    x, t = make(rng, (2, 3, 9), 'float32')
    check(rng, lambda a: F.max_pool1d_with_indices(a, 3),
          lambda a: TF.max_pool1d_with_indices(a, 3), x, t, indices=True)
    for dl_fn, th_fn, shape in [
            (F.adaptive_max_pool1d_with_indices, TF.adaptive_max_pool1d_with_indices, (2, 3, 9)),
            (F.adaptive_max_pool2d_with_indices, TF.adaptive_max_pool2d_with_indices,
             (2, 3, 7, 5)),
            (F.adaptive_max_pool3d_with_indices, TF.adaptive_max_pool3d_with_indices,
             (2, 3, 5, 7, 4))]:
        x, t = make(rng, shape, 'float32')
        check(rng, lambda a: dl_fn(a, 3), lambda a: th_fn(a, 3), x, t, indices=True)


# ---- average pooling -------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('shape,kw', [
    ((2, 3, 9), dict(kernel_size=2)),
    ((2, 3, 10), dict(kernel_size=3, stride=2, padding=1)),
    ((3, 11), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
])
def test_avg_pool1d(rng, dtype, shape, kw):
    x, t = make(rng, shape, dtype)
    check(rng, lambda a: F.avg_pool1d(a, **kw), lambda a: TF.avg_pool1d(a, **kw), x, t, dtype)
    m, tm = Dl.nn.AvgPool1d(**kw), torch.nn.AvgPool1d(**kw)
    assert repr(m) == repr(tm)
    x, t = make(rng, shape, dtype)
    check(rng, m, tm, x, t, dtype)
    x, t = make(rng, shape, dtype, requires_grad=False)
    assert_same(Dl.avg_pool1d(x, **kw), torch.avg_pool1d(t, **kw), **TOL[dtype])


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('shape,kw', [
    ((2, 2, 4, 5, 6), dict(kernel_size=2)),
    ((1, 3, 5, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), count_include_pad=False,
                        padding=(1, 1, 0))),
    ((1, 2, 5, 5, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((1, 2, 5, 5, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                           count_include_pad=False)),
    ((2, 1, 4, 4, 4), dict(kernel_size=2, divisor_override=3)),
])
def test_avg_pool3d(rng, dtype, shape, kw):
    x, t = make(rng, shape, dtype)
    y, _ = check(rng, lambda a: F.avg_pool3d(a, **kw), lambda a: TF.avg_pool3d(a, **kw), x, t,
                 dtype)
    if len(shape) == 5:
        assert y.grad_fn.name() == 'AvgPool3DBackward0'
    x, t = make(rng, shape, dtype, noncontig=True)
    check(rng, lambda a: F.avg_pool3d(a, **kw), lambda a: TF.avg_pool3d(a, **kw), x, t, dtype)
    m, tm = Dl.nn.AvgPool3d(**kw), torch.nn.AvgPool3d(**kw)
    assert repr(m) == repr(tm)


# ---- adaptive pooling ------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_adaptive_pool1d(rng, dtype):
    for shape, size in [((2, 3, 9), 4), ((3, 7), 3), ((2, 2, 5), 5), ((1, 1, 4), 7)]:
        x, t = make(rng, shape, dtype)
        check(rng, lambda a: F.adaptive_avg_pool1d(a, size),
              lambda a: TF.adaptive_avg_pool1d(a, size), x, t, dtype)
        x, t = make(rng, shape, dtype)
        check(rng, lambda a: F.adaptive_max_pool1d(a, size, return_indices=True),
              lambda a: TF.adaptive_max_pool1d(a, size, return_indices=True), x, t, dtype,
              indices=True)
        x, t = make(rng, shape, dtype)
        check(rng, Dl.nn.AdaptiveMaxPool1d(size), torch.nn.AdaptiveMaxPool1d(size), x, t, dtype)
        x, t = make(rng, shape, dtype, requires_grad=False)
        assert_same(Dl.adaptive_avg_pool1d(x, size), torch.adaptive_avg_pool1d(t, size),
                    **TOL[dtype])
        (v, i), (tv, ti) = Dl.adaptive_max_pool1d(x, size), torch.adaptive_max_pool1d(t, size)
        assert_same(v, tv)
        assert_same(i, ti)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_adaptive_pool3d(rng, dtype):
    for shape, size in [((2, 3, 5, 7, 4), 3), ((3, 4, 6, 5), (2, None, 3)),
                        ((1, 2, 3, 3, 3), (5, 1, 2))]:
        x, t = make(rng, shape, dtype)
        y, _ = check(rng, lambda a: F.adaptive_avg_pool3d(a, size),
                     lambda a: TF.adaptive_avg_pool3d(a, size), x, t, dtype)
        x, t = make(rng, shape, dtype, noncontig=True)
        check(rng, lambda a: F.adaptive_max_pool3d(a, size, return_indices=True),
              lambda a: TF.adaptive_max_pool3d(a, size, return_indices=True), x, t, dtype,
              indices=True)
        for cls in ('AdaptiveAvgPool3d', 'AdaptiveMaxPool3d'):
            m, tm = getattr(Dl.nn, cls)(size), getattr(torch.nn, cls)(size)
            assert repr(m) == repr(tm)
            x, t = make(rng, shape, dtype)
            check(rng, m, tm, x, t, dtype)
    x, _ = make(rng, (1, 2, 4, 4, 4), dtype)
    assert F.adaptive_avg_pool3d(x, 2).grad_fn.name() == 'AdaptiveAvgPool3DBackward0'
    assert F.adaptive_max_pool3d(x, 2).grad_fn.name() == 'AdaptiveMaxPool3DBackward0'


# ---- LP pooling ------------------------------------------------------------------

@pytest.mark.parametrize('norm', [2, 3.0, 1])
def test_lp_pool(rng, norm):
    x, t = pair(rand_np(rng, (2, 3, 9), 'float64', positive=True, low=0.1), 'float64', True)
    check(rng, lambda a: F.lp_pool1d(a, norm, 3, 2), lambda a: TF.lp_pool1d(a, norm, 3, 2), x,
          t, 'float64')
    x, t = pair(rand_np(rng, (2, 3, 7, 6), 'float64', low=0.1, high=2), 'float64', True)
    check(rng, lambda a: F.lp_pool2d(a, norm, (3, 2), ceil_mode=True),
          lambda a: TF.lp_pool2d(a, norm, (3, 2), ceil_mode=True), x, t, 'float64')
    for cls, shape, k in [('LPPool1d', (2, 3, 8), 2), ('LPPool2d', (1, 2, 6, 6), 3)]:
        m, tm = getattr(Dl.nn, cls)(norm, k), getattr(torch.nn, cls)(norm, k)
        assert repr(m) == repr(tm)
        x, t = pair(rand_np(rng, shape, 'float32', low=0.1, high=2), 'float32', True)
        check(rng, m, tm, x, t)


# ---- max unpooling ---------------------------------------------------------------

@pytest.mark.parametrize('n', [1, 2, 3])
def test_max_unpool(rng, n):
    shape = {1: (2, 3, 9), 2: (2, 3, 6, 7), 3: (1, 2, 4, 5, 6)}[n]
    pool = getattr(TF, 'max_pool%dd' % n)
    for kw in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1)]:
        a = rand_np(rng, shape, 'float32')
        ty, ti = pool(torch.from_numpy(a), return_indices=True, **kw)
        y, i = pair(ty.numpy())[0], pair(ti.numpy())[0]
        y.requires_grad_(True)
        ty.requires_grad_(True)
        # the input's size (odd sizes are not the default output size),
        # given as torch.Size-like (with N, C) or spatial only
        size = list(shape) if 'stride' in kw else list(shape[2:])
        out = getattr(F, 'max_unpool%dd' % n)(y, i, output_size=size, **kw)
        tout = getattr(TF, 'max_unpool%dd' % n)(ty, ti, output_size=size, **kw)
        assert_same(out, tout)
        g = rand_np(rng, tuple(tout.shape), 'float32')
        (out * pair(g)[0]).sum().backward()
        (tout * pair(g)[1]).sum().backward()
        assert_same(y.grad, ty.grad)
        m = getattr(Dl.nn, 'MaxUnpool%dd' % n)(**kw)
        tm = getattr(torch.nn, 'MaxUnpool%dd' % n)(**kw)
        assert repr(m) == repr(tm)
        assert_same(m(y, i, size), tm(ty, ti, size))
    if n > 1:
        assert out.grad_fn.name() == 'MaxUnpool%dDBackward0' % n


def test_max_unpool_errors(rng):
    ty, ti = TF.max_pool2d(torch.randn(1, 1, 4, 4), 2, return_indices=True)
    y, i = pair(ty.numpy())[0], pair(ti.numpy())[0]
    with pytest.raises(RuntimeError, match='invalid max index'):
        F.max_unpool2d(y, i + 100, 2)
    with pytest.raises(ValueError, match='invalid output_size'):
        F.max_unpool2d(y, i, 2, output_size=(9, 9))
    with pytest.raises(RuntimeError):
        F.max_unpool2d(y, i.float(), 2)


# ---- convolutions ----------------------------------------------------------------

CONV3D = [
    ((2, 4, 5, 6, 7), (6, 4, 3, 3, 3), dict()),
    ((1, 4, 6, 5, 7), (4, 2, 2, 3, 1), dict(stride=(2, 1, 2), padding=(1, 0, 1), groups=2)),
    ((2, 3, 7, 6, 5), (2, 3, 3, 2, 3), dict(dilation=(2, 1, 1), padding=2, stride=2)),
    ((3, 5, 6, 4), (4, 3, 3, 3, 3), dict(padding='same')),
    ((1, 2, 5, 5, 6), (2, 2, 2, 3, 4), dict(padding='same', dilation=(1, 2, 1))),
    ((1, 2, 5, 5, 6), (2, 2, 2, 3, 4), dict(padding='valid')),
]


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('xs,ws,kw', CONV3D)
def test_conv3d(rng, dtype, xs, ws, kw):
    x, t = make(rng, xs, dtype, noncontig=(dtype == 'float64'))
    w, tw = pair(rand_np(rng, ws, dtype), dtype, True)
    b, tb = pair(rand_np(rng, ws[:1], dtype), dtype, True)
    y, ty = check(rng, lambda a: F.conv3d(a, w, b, **kw), lambda a: TF.conv3d(a, tw, tb, **kw),
                  x, t, dtype)
    assert_same(w.grad, tw.grad, **TOL[dtype])
    assert_same(b.grad, tb.grad, **TOL[dtype])
    x, t = make(rng, xs, dtype, requires_grad=False)
    assert_same(Dl.conv3d(x, w, None, **kw), torch.conv3d(t, tw, None, **kw), **TOL[dtype])


CONVT3D = [
    ((2, 4, 3, 4, 2), (4, 3, 3, 3, 3), dict()),
    ((1, 4, 3, 2, 3), (4, 2, 2, 3, 2), dict(stride=(2, 1, 3), padding=(1, 0, 1), groups=2,
                                            output_padding=(1, 0, 2))),
    ((2, 2, 3, 3, 2), (2, 3, 3, 2, 2), dict(dilation=(2, 1, 2), stride=2, output_padding=1)),
    ((2, 4, 4, 3), (2, 3, 2, 2, 2), dict(stride=2, padding=1)),
]


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('xs,ws,kw', CONVT3D)
def test_conv_transpose3d(rng, dtype, xs, ws, kw):
    x, t = make(rng, xs, dtype, noncontig=(dtype == 'float32'))
    w, tw = pair(rand_np(rng, ws, dtype), dtype, True)
    groups = kw.get('groups', 1)
    b, tb = pair(rand_np(rng, (ws[1] * groups,), dtype), dtype, True)
    check(rng, lambda a: F.conv_transpose3d(a, w, b, **kw),
          lambda a: TF.conv_transpose3d(a, tw, tb, **kw), x, t, dtype)
    assert_same(w.grad, tw.grad, **TOL[dtype])
    assert_same(b.grad, tb.grad, **TOL[dtype])
    x, t = make(rng, xs, dtype, requires_grad=False)
    assert_same(Dl.conv_transpose3d(x, w, None, **kw), torch.conv_transpose3d(t, tw, None, **kw),
                **TOL[dtype])


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('xs,ws,kw', [
    ((2, 4, 7), (4, 3, 3), dict()),
    ((1, 4, 6), (4, 2, 2), dict(stride=3, padding=1, groups=2, output_padding=2)),
    ((3, 5), (3, 2, 3), dict(dilation=2, stride=2, output_padding=1)),
])
def test_conv_transpose1d(rng, dtype, xs, ws, kw):
    x, t = make(rng, xs, dtype)
    w, tw = pair(rand_np(rng, ws, dtype), dtype, True)
    b, tb = pair(rand_np(rng, (ws[1] * kw.get('groups', 1),), dtype), dtype, True)
    check(rng, lambda a: F.conv_transpose1d(a, w, b, **kw),
          lambda a: TF.conv_transpose1d(a, tw, tb, **kw), x, t, dtype)
    assert_same(w.grad, tw.grad, **TOL[dtype])
    assert_same(b.grad, tb.grad, **TOL[dtype])
    x, t = make(rng, xs, dtype, requires_grad=False)
    assert_same(Dl.conv_transpose1d(x, w, b, **kw), torch.conv_transpose1d(t, tw, tb, **kw),
                **TOL[dtype])


def copy_params(m, tm):
    with Dl.no_grad():
        for (n, p), (tn, tp) in zip(m.state_dict().items(), tm.state_dict().items()):
            assert n == tn and tuple(p.shape) == tuple(tp.shape)
            p.copy_(Dl.from_numpy(tp.detach().numpy()))


@pytest.mark.parametrize('cls,args,kw,xs', [
    ('Conv3d', (4, 6, 3), dict(), (2, 4, 5, 6, 5)),
    ('Conv3d', (4, 6, (3, 2, 1)), dict(stride=2, padding=1, groups=2, bias=False),
     (1, 4, 5, 6, 5)),
    ('Conv3d', (2, 3, 3), dict(padding='same', dilation=2), (1, 2, 5, 5, 5)),
    ('Conv3d', (2, 3, 2), dict(padding='same'), (2, 5, 4, 5)),
    ('Conv3d', (2, 3, 3), dict(padding=1, padding_mode='replicate'), (1, 2, 4, 5, 3)),
    ('ConvTranspose1d', (4, 6, 3), dict(stride=2, output_padding=1), (2, 4, 7)),
    ('ConvTranspose1d', (4, 6, 2), dict(groups=2, bias=False, dilation=2), (4, 7)),
    ('ConvTranspose3d', (4, 2, 3), dict(stride=2, padding=1), (2, 4, 3, 2, 3)),
    ('ConvTranspose3d', (4, 6, (2, 1, 3)), dict(groups=2, output_padding=(1, 0, 0),
                                                stride=(2, 1, 1)), (4, 2, 3, 3)),
])
def test_conv_modules(rng, cls, args, kw, xs):
    torch.manual_seed(0)
    m, tm = getattr(Dl.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(m) == repr(tm)
    sd, tsd = m.state_dict(), tm.state_dict()
    assert list(sd) == list(tsd)
    for k in sd:
        assert tuple(sd[k].shape) == tuple(tsd[k].shape)
    # PyTorch's default initialisation: uniform within +-1 / sqrt(fan_in)
    w = m.weight.detach().numpy()
    fan_in = w.shape[1] * int(np.prod(w.shape[2:]))
    assert np.abs(w).max() <= 1 / np.sqrt(fan_in) + 1e-7
    assert np.abs(w).max() > 0.5 / np.sqrt(fan_in)
    copy_params(m, tm)
    x, t = make(rng, xs, 'float32')
    check(rng, m, tm, x, t)
    for p, tp in zip(m.parameters(), tm.parameters()):
        assert_same(p.grad, tp.grad, rtol=1e-4, atol=1e-4)


def test_conv_pickle_and_subclass(rng):
    for m in [Dl.nn.Conv3d(2, 4, (3, 2, 1), stride=2, padding='valid', groups=2),
              Dl.nn.Conv3d(2, 3, 2, padding='same', padding_mode='circular'),
              Dl.nn.ConvTranspose3d(2, 3, 2, stride=2, bias=False),
              Dl.nn.MaxPool3d(2, return_indices=True), Dl.nn.PixelShuffle(2),
              Dl.nn.AvgPool3d((1, 2, 2), padding=(0, 1, 1), divisor_override=3)]:
        m2 = pickle.loads(pickle.dumps(m))
        assert repr(m2) == repr(m)
        x = Dl.randn(1, 8, 4, 5, 6) if isinstance(m, Dl.nn.PixelShuffle) else \
            Dl.randn(1, 2, 4, 5, 6)
        y, y2 = m(x), m2(x)
        if isinstance(y, tuple):
            y, y2 = y[0], y2[0]
        assert_same(y2, torch.from_numpy(y.detach().numpy()))

    class Scaled(Dl.nn.Conv3d):
        def forward(self, input):
            return super().forward(input) * 2

    m = Scaled(2, 3, 2)
    x = Dl.randn(1, 2, 3, 3, 3)
    assert_same(m(x), torch.from_numpy((F.conv3d(x, m.weight, m.bias) * 2).detach().numpy()))


def test_conv_transpose_output_size(rng):
    m, tm = Dl.nn.ConvTranspose3d(2, 3, 3, stride=2), torch.nn.ConvTranspose3d(2, 3, 3, stride=2)
    copy_params(m, tm)
    x, t = make(rng, (1, 2, 3, 4, 3), 'float32', requires_grad=False)
    assert_same(m(x, output_size=[8, 9, 7]), tm(t, output_size=[8, 9, 7]), rtol=1e-4,
                atol=1e-5)
    m, tm = Dl.nn.ConvTranspose1d(2, 3, 3, stride=3), torch.nn.ConvTranspose1d(2, 3, 3, stride=3)
    copy_params(m, tm)
    x, t = make(rng, (1, 2, 4), 'float32', requires_grad=False)
    assert_same(m(x, output_size=[14]), tm(t, output_size=[14]), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError):
        m(x, output_size=[20])


# ---- shuffles --------------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_shuffles(rng, dtype):
    for shape, r in [((2, 8, 3, 5), 2), ((18, 2, 3), 3), ((2, 1, 4, 2, 2), 1), ((2, 2, 9, 2, 1), 1)]:
        x, t = make(rng, shape, dtype)
        y, ty = check(rng, lambda a: F.pixel_shuffle(a, r), lambda a: TF.pixel_shuffle(a, r), x,
                      t, dtype)
        assert y.grad_fn.name() == 'PixelShuffleBackward0'
    for shape, r in [((2, 2, 6, 4), 2), ((1, 6, 9), 3), ((2, 3, 1, 4, 6), 2)]:
        x, t = make(rng, shape, dtype, noncontig=True)
        y, ty = check(rng, lambda a: F.pixel_unshuffle(a, r),
                      lambda a: TF.pixel_unshuffle(a, r), x, t, dtype)
        assert y.grad_fn.name() == 'PixelUnshuffleBackward0'
    for shape, g in [((2, 6, 3, 2), 3), ((1, 4, 5), 2), ((2, 6, 2, 2, 2), 6)]:
        x, t = make(rng, shape, dtype, requires_grad=False)
        assert_same(F.channel_shuffle(x, g), TF.channel_shuffle(t, g))
        assert_same(Dl.channel_shuffle(x, g), torch.channel_shuffle(t, g))
        assert_same(Dl.nn.ChannelShuffle(g)(x), torch.nn.ChannelShuffle(g)(t))
    x, t = make(rng, (2, 8, 3, 3), dtype, requires_grad=False)
    assert_same(Dl.pixel_shuffle(x, 2), torch.pixel_shuffle(t, 2))
    assert_same(Dl.pixel_unshuffle(x, 3), torch.pixel_unshuffle(t, 3))
    for dl_m, th_m in [(Dl.nn.PixelShuffle(2), torch.nn.PixelShuffle(2)),
                       (Dl.nn.PixelUnshuffle(3), torch.nn.PixelUnshuffle(3)),
                       (Dl.nn.ChannelShuffle(4), torch.nn.ChannelShuffle(4))]:
        assert repr(dl_m) == repr(th_m)
        assert_same(dl_m(x), th_m(t))


def test_channel_shuffle_grad(rng):
    x, t = make(rng, (2, 6, 3), 'float64')
    y = F.channel_shuffle(x, 3)
    g = rand_np(rng, (2, 6, 3), 'float64')
    (y * pair(g)[0]).sum().backward()
    # the gradient is the inverse shuffle of g: channel shuffle by 6 / 3
    expected = TF.channel_shuffle(torch.from_numpy(g), 2)
    assert_same(x.grad, expected)


# ---- gradcheck in float64 ----------------------------------------------------------

def _x(rng, shape, positive=False):
    a = rand_np(rng, shape, 'float64', low=0.2 if positive else -3.0)
    # distinct values, so that the maxima are stable under the finite
    # differences
    a = a + np.arange(a.size).reshape(shape) * 1e-2
    return Dl.from_numpy(a).requires_grad_(True)


@pytest.mark.parametrize('name', ['max_pool1d', 'max_pool3d', 'avg_pool1d', 'avg_pool3d',
                                  'adaptive_avg_pool1d', 'adaptive_avg_pool3d',
                                  'adaptive_max_pool1d', 'adaptive_max_pool3d', 'lp_pool1d',
                                  'lp_pool2d', 'pixel_shuffle', 'pixel_unshuffle',
                                  'channel_shuffle', 'max_unpool2d', 'max_unpool3d'])
def test_gradcheck_pool(rng, name):
    fns = {
        'max_pool1d': ((1, 2, 7), lambda a: F.max_pool1d(a, 3, 2, 1, ceil_mode=True)),
        'max_pool3d': ((1, 2, 3, 4, 3), lambda a: F.max_pool3d(a, 2, 1, 1)),
        'avg_pool1d': ((1, 2, 7), lambda a: F.avg_pool1d(a, 3, 2, 1, ceil_mode=True)),
        'avg_pool3d': ((1, 2, 3, 4, 3), lambda a: F.avg_pool3d(a, 2, 1, 1,
                                                             count_include_pad=False)),
        'adaptive_avg_pool1d': ((1, 2, 7), lambda a: F.adaptive_avg_pool1d(a, 3)),
        'adaptive_avg_pool3d': ((1, 2, 3, 4, 5), lambda a: F.adaptive_avg_pool3d(a, 2)),
        'adaptive_max_pool1d': ((1, 2, 7), lambda a: F.adaptive_max_pool1d(a, 3)),
        'adaptive_max_pool3d': ((1, 2, 3, 4, 5), lambda a: F.adaptive_max_pool3d(a, 2)),
        'lp_pool1d': ((1, 2, 6), lambda a: F.lp_pool1d(a, 2, 2)),
        'lp_pool2d': ((1, 2, 4, 4), lambda a: F.lp_pool2d(a, 3, 2)),
        'pixel_shuffle': ((1, 8, 2, 3), lambda a: F.pixel_shuffle(a, 2)),
        'pixel_unshuffle': ((1, 2, 4, 2), lambda a: F.pixel_unshuffle(a, 2)),
        'channel_shuffle': ((1, 6, 2), lambda a: F.channel_shuffle(a, 2)),
    }
    if name.startswith('max_unpool'):
        n = int(name[-2])
        shape = (1, 2) + (4,) * n
        pooled, idx = getattr(TF, 'max_pool%dd' % n)(torch.randn(*shape, dtype=torch.float64), 2,
                                                     return_indices=True)
        idx = Dl.from_numpy(idx.numpy())
        x = _x(rng, tuple(pooled.shape))
        fn = (lambda a: getattr(F, name)(a, idx, 2))
    else:
        shape, fn = fns[name]
        x = _x(rng, shape, positive=name.startswith('lp'))
    assert Dl.autograd.gradcheck(fn, (x,), eps=1e-6, atol=1e-5)
    assert Dl.autograd.gradgradcheck(fn, (x,), eps=1e-6, atol=1e-5)


@pytest.mark.parametrize('name', ['conv3d', 'conv_transpose3d', 'conv_transpose1d'])
def test_gradcheck_conv(rng, name):
    if name == 'conv3d':
        args = (_x(rng, (1, 4, 3, 4, 3)), _x(rng, (2, 2, 2, 2, 2)), _x(rng, (2,)))
        fn = (lambda a, w, b: F.conv3d(a, w, b, stride=(1, 2, 1), padding=1, groups=2))
    elif name == 'conv_transpose3d':
        args = (_x(rng, (1, 2, 2, 3, 2)), _x(rng, (2, 2, 2, 2, 2)), _x(rng, (4,)))
        fn = (lambda a, w, b: F.conv_transpose3d(a, w, b, stride=2, padding=(1, 0, 0),
                                                 output_padding=(1, 0, 1), groups=2))
    else:
        args = (_x(rng, (2, 4, 5)), _x(rng, (4, 1, 3)), _x(rng, (2,)))
        fn = (lambda a, w, b: F.conv_transpose1d(a, w, b, stride=2, padding=1, groups=2,
                                                 dilation=2))
    assert Dl.autograd.gradcheck(fn, args, eps=1e-6, atol=1e-5)
    assert Dl.autograd.gradgradcheck(fn, args, eps=1e-6, atol=1e-5)


# ---- errors ----------------------------------------------------------------------

@pytest.mark.parametrize('call', [
    lambda m, x: m.nn.functional.max_pool1d(x(3), 2),
    lambda m, x: m.nn.functional.avg_pool1d(x(2, 3, 4, 5), 2),
    lambda m, x: m.nn.functional.max_pool3d(x(2, 3, 4), 2),
    lambda m, x: m.nn.functional.max_pool3d(x(1, 1, 2, 2, 2), 3),
    lambda m, x: m.nn.functional.max_pool3d(x(1, 1, 4, 4, 4), 2, padding=2),
    lambda m, x: m.nn.functional.avg_pool3d(x(2, 3, 4), 2),
    lambda m, x: m.nn.functional.avg_pool3d(x(1, 1, 4, 4, 4), 2, divisor_override=0),
    lambda m, x: m.nn.functional.adaptive_avg_pool3d(x(4, 4, 4), 2),
    lambda m, x: m.nn.functional.adaptive_max_pool3d(x(1, 1, 2, 2, 2), -1),
    lambda m, x: m.nn.functional.conv3d(x(1, 2, 3, 3, 3), x(1, 3, 2, 2, 2)),
    lambda m, x: m.nn.functional.conv3d(x(1, 2, 3, 3, 3), x(1, 2, 2, 2)),
    lambda m, x: m.nn.functional.conv3d(x(1, 2, 3, 3, 3), x(1, 2, 4, 2, 2)),
    lambda m, x: m.nn.functional.conv3d(x(1, 2, 3, 3, 3), x(1, 2, 2, 2, 2), stride=0),
    lambda m, x: m.nn.functional.conv3d(x(1, 2, 3, 3, 3), x(1, 2, 2, 2, 2), x(2)),
    lambda m, x: m.nn.functional.conv_transpose3d(x(1, 2, 3, 3, 3), x(3, 2, 2, 2, 2)),
    lambda m, x: m.nn.functional.conv_transpose3d(x(1, 2, 3, 3, 3), x(2, 2, 2, 2, 2),
                                                  stride=2, output_padding=2),
    lambda m, x: m.nn.functional.conv_transpose1d(x(1, 2, 3), x(2, 2, 2), groups=3),
    lambda m, x: m.nn.functional.pixel_shuffle(x(1, 3, 2, 2), 2),
    lambda m, x: m.nn.functional.pixel_shuffle(x(3, 2), 1),
    lambda m, x: m.nn.functional.pixel_unshuffle(x(1, 1, 3, 4), 2),
    lambda m, x: m.nn.functional.channel_shuffle(x(1, 3, 2, 2), 2),
])
def test_errors_as_torch(call):
    """Each bad call raises the exception class torch raises."""
    with pytest.raises(Exception) as theirs:
        call(torch, lambda *s: torch.ones(*s))
    with pytest.raises(Exception) as ours:
        call(Dl, lambda *s: Dl.ones(*s))
    assert isinstance(ours.value, type(theirs.value)), (ours.value, theirs.value)


def test_module_paths():
    for name, mod in [('MaxPool3d', 'pooling'), ('AvgPool1d', 'pooling'),
                      ('LPPool2d', 'pooling'), ('MaxUnpool3d', 'pooling'),
                      ('Conv3d', 'conv'), ('ConvTranspose1d', 'conv'),
                      ('PixelShuffle', 'pixelshuffle'), ('ChannelShuffle', 'channelshuffle')]:
        cls = getattr(Dl.nn, name)
        assert cls.__module__.endswith('nn.modules.' + mod), cls.__module__
        assert getattr(torch.nn, name).__module__ == 'torch.nn.modules.' + mod
