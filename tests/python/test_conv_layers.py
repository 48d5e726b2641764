# test_conv_layers.py: nn.Conv1d, nn.Conv2d and nn.ConvTranspose2d as
# libdl's C classes (DlConv1d, DlConv2d, DlConvTranspose2d): against
# PyTorch from the same weights, default initialisation, output_size,
# pickling and subclassing.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import pickle

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np

TOL = {'rtol': 1e-4, 'atol': 1e-5}


def copy_params(m, tm):
    with Dl.no_grad():
        for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
            assert n == tn and tuple(p.shape) == tuple(tp.shape)
            p.copy_(Dl.from_numpy(tp.detach().numpy()))


def run_both(rng, m, tm, shape, **kw):
    copy_params(m, tm)
    a = rand_np(rng, shape, 'float32')
    x, tx = pair(a, 'float32', requires_grad=True)
    y, ty = m(x, **kw), tm(tx, **kw)
    assert_same(y, ty, **TOL)
    g = rand_np(rng, tuple(ty.shape), 'float32')
    y.backward(pair(g)[0])
    ty.backward(pair(g)[1])
    assert_same(x.grad, tx.grad, **TOL)
    for p, tp in zip(m.parameters(), tm.parameters()):
        assert_same(p.grad, tp.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize('args, kw, shape', [
    ((3, 4, 3), {}, (2, 3, 9)),
    ((4, 6, 5), {'stride': 2, 'padding': 2, 'groups': 2, 'bias': False}, (1, 4, 11)),
    ((2, 2, 3), {'dilation': 2, 'padding_mode': 'circular', 'padding': 2}, (3, 2, 7)),
    ((2, 3, 4), {'padding': 'same', 'padding_mode': 'reflect'}, (2, 9)),
])
def test_conv1d_layer(rng, args, kw, shape):
    m, tm = Dl.nn.Conv1d(*args, **kw), torch.nn.Conv1d(*args, **kw)
    assert repr(m) == repr(tm)
    run_both(rng, m, tm, shape)


@pytest.mark.parametrize('args, kw, shape, out', [
    ((3, 4, 3), {}, (2, 3, 5, 5), None),
    ((4, 6, (3, 2)), {'stride': 2, 'padding': 1, 'output_padding': 1, 'groups': 2},
     (1, 4, 4, 5), None),
    ((2, 3, 3), {'stride': 2, 'padding': 1, 'dilation': 2, 'bias': False}, (3, 2, 4, 4), None),
    ((2, 3, 3), {"stride": 3}, (1, 2, 4, 4), (13, 14)),
    ((2, 3, 3), {'stride': 2}, (2, 3, 3), (8, 7)),
])
def test_conv_transpose2d_layer(rng, args, kw, shape, out):
    m, tm = Dl.nn.ConvTranspose2d(*args, **kw), torch.nn.ConvTranspose2d(*args, **kw)
    assert repr(m) == repr(tm)
    run_both(rng, m, tm, shape, **({} if out is None else {'output_size': out}))


def test_default_initialisation():
    for m, fan_in in ((Dl.nn.Conv1d(6, 50, 5, groups=2), 3 * 5),
                      (Dl.nn.ConvTranspose2d(6, 40, 3, groups=2), 20 * 9),
                      (Dl.nn.Conv2d(8, 30, 3), 8 * 9)):
        bound = 1 / math.sqrt(fan_in)
        w = m.weight.detach().numpy()
        assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
        assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
        assert np.abs(m.bias.detach().numpy()).max() <= bound


def test_layers_pickle_and_subclass():
    for m in (Dl.nn.Conv1d(2, 3, 3, padding=1, padding_mode='replicate'),
              Dl.nn.Conv2d(2, 3, 3, padding='same', padding_mode='circular'),
              Dl.nn.ConvTranspose2d(2, 3, (3, 2), stride=2, output_padding=1)):
        m2 = pickle.loads(pickle.dumps(m))
        assert repr(m2) == repr(m)
        assert_same(m2.weight.detach(), m.weight.detach())
        x = Dl.randn(1, 2, 5, 5) if m.weight.dim() == 4 else Dl.randn(1, 2, 5)
        assert_same(m2(x), m(x))

    class Residual(Dl.nn.Conv1d):
        def __init__(self):
            super().__init__(2, 2, 3, padding=1)

        def forward(self, x):
            return x + super().forward(x)
    r = Residual()
    x = Dl.randn(1, 2, 6)
    assert_same(r(x), x + Dl.nn.functional.conv1d(x, r.weight, r.bias, padding=1), **TOL)


@pytest.mark.parametrize('make, exc', [
    (lambda m: m.nn.Conv1d(3, 4, 3, groups=2), ValueError),
    (lambda m: m.nn.ConvTranspose2d(3, 4, 3, groups=2), ValueError),
    (lambda m: m.nn.Conv1d(3, 4, 3, padding_mode='foo'), ValueError),
    (lambda m: m.nn.ConvTranspose2d(3, 4, 3, padding_mode='reflect'), ValueError),
])
def test_layer_errors(make, exc):
    with pytest.raises(exc):
        make(Dl)
    with pytest.raises(exc):
        make(torch)
    m = Dl.nn.ConvTranspose2d(2, 3, 3, stride=2)
    with pytest.raises(ValueError, match='output size'):
        m(Dl.randn(1, 2, 4, 4), output_size=(20, 9))
    with pytest.raises(RuntimeError, match='channels'):
        Dl.nn.Conv1d(2, 3, 3)(Dl.randn(1, 4, 8))


def test_top_level_functions_take_torchs_arguments(rng):
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    dx, tx = Dl.tensor(x), torch.tensor(x)
    dw, tw = Dl.tensor(w), torch.tensor(w)
    np.testing.assert_allclose(Dl.conv2d(dx, dw, None, 1, 1).numpy(),
                               torch.conv2d(tx, tw, None, 1, 1).numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(Dl.conv_transpose2d(dx, dw.transpose(0, 1).contiguous(),
                                                   stride=2).numpy(),
                               torch.conv_transpose2d(tx, tw.transpose(0, 1).contiguous(),
                                                      stride=2).numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(Dl.conv1d(dx[:, :, 0], dw[:, :, 0], padding=1).numpy(),
                               torch.conv1d(tx[:, :, 0], tw[:, :, 0], padding=1).numpy(),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(Dl.max_pool2d(dx, 2).numpy(), torch.max_pool2d(tx, 2).numpy())
    np.testing.assert_array_equal(Dl.max_pool2d(dx, (2, 2), (1, 1)).numpy(),
                                  torch.max_pool2d(tx, (2, 2), (1, 1)).numpy())
    np.testing.assert_array_equal(Dl.dropout(dx, 0.5, False).numpy(), x)
    table = rng.standard_normal((5, 2)).astype(np.float32)
    np.testing.assert_array_equal(
        Dl.embedding(Dl.tensor(table), Dl.tensor([4, 0, 4])).numpy(),
        torch.embedding(torch.tensor(table), torch.tensor([4, 0, 4])).numpy())
