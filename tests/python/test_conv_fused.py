# test_conv_fused.py: conv2d with groups 1, which runs as one fused node
# (ConvolutionBackward0) on the backend's conv2d kernels, against PyTorch
# and against the same convolution spelled with unfold and a product (the
# chain of ops conv2d used to be): batch 1, odd and larger than the
# threads, large channels, 1 x 1 (the columns are the image) and strided,
# dilated, padded windows, with and without bias, inputs that need no
# gradient, create_graph, half precision, and the shapes that miss the
# fused path (groups, empty batches, mixed dtypes).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import SELF_CHECK, Dl, assert_same, pair, rand_np

# values in [-1, 1]; sums of up to about 1300 products in float32
F32 = {'rtol': 1e-4, 'atol': 1e-3}

CASES = [
    # (N, C, H, W), O, kernel, stride, padding, dilation, bias
    ((1, 3, 7, 6), 4, 3, 1, 1, 1, True),
    ((3, 5, 9, 8), 6, 3, 1, 1, 1, False),
    ((5, 2, 6, 7), 3, 1, 1, 0, 1, True),
    ((7, 4, 5, 5), 2, 1, 1, 0, 1, False),
    ((3, 4, 8, 9), 5, 1, 2, 0, 1, True),
    ((2, 3, 9, 9), 4, 3, 2, 1, 1, True),
    ((3, 2, 9, 10), 3, (2, 3), (2, 1), (1, 2), (2, 1), False),
    ((1, 130, 6, 5), 70, 3, 1, 1, 1, True),
    ((9, 40, 12, 12), 33, 3, 1, 1, 1, True),
    ((4, 3, 5, 5), 2, 5, 1, 0, 1, True),
    # 3 x 3, stride 1, 8 channels or more: Winograd F(2 x 2, 3 x 3), whose
    # input gradient needs padding <= 2; odd output sizes, edge tiles
    ((3, 16, 7, 9), 12, 3, 1, 0, 1, False),
    ((2, 9, 5, 6), 10, 3, 1, 2, 1, True),
    ((1, 8, 8, 8), 8, 3, 1, 1, 1, False),
    ((2, 12, 6, 7), 9, 3, 1, (1, 0), 1, True),
    ((2, 8, 4, 4), 8, 3, 1, 3, 1, True),
    ((3, 8, 30, 33), 20, 3, 1, 1, 1, True),
    ((2, 7, 6, 6), 8, 3, 1, 1, 1, True),
    # columns of more than 4 MiB: blocks of output rows
    ((2, 64, 130, 130), 8, 3, 2, 1, 1, True),
]


def _k(k):
    return (k, k) if isinstance(k, int) else k


def _composite(lib, x, w, b, s, p, d):
    """conv2d as unfold and a matrix product"""
    n, o = x.shape[0], w.shape[0]
    kh, kw = w.shape[2], w.shape[3]
    sh, sw = _k(s)
    ph, pw = _k(p)
    dh, dw = _k(d)
    oh = (x.shape[2] + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (x.shape[3] + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    cols = lib.nn.functional.unfold(x, (kh, kw), (dh, dw), (ph, pw), (sh, sw))
    y = lib.matmul(w.reshape(o, -1), cols).reshape(n, o, oh, ow)
    return y if b is None else y + b.reshape(1, o, 1, 1)


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('case', range(len(CASES)))
@pytest.mark.parametrize('strided', [False, True])
def test_fused_matches_torch_and_composite(rng, name, case, strided):
    shape, o, k, s, p, d, bias = CASES[case]
    kh, kw = _k(k)
    shapes = [shape, (o, shape[1], kh, kw)] + ([(o,)] if bias else [])
    arrays = [rand_np(rng, sh, name, low=-1, high=1) for sh in shapes]
    g = None
    grads = []
    for fn in ('torch', 'fused', 'composite'):
        lib = torch if fn == 'torch' else Dl
        ts = [pair(a, name, requires_grad=True)[0 if lib is Dl else 1] for a in arrays]
        x = ts[0]
        if strided:
            x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
            assert not x.is_contiguous()
        b = ts[2] if bias else None
        if fn == 'composite':
            y = _composite(lib, x, ts[1], b, s, p, d)
        else:
            y = lib.nn.functional.conv2d(x, ts[1], b, s, p, d)
        if fn == 'fused':
            assert y.grad_fn.name() == 'ConvolutionBackward0'
        if g is None:
            g = rand_np(rng, tuple(y.shape), name, low=-1, high=1)
        y.backward(pair(g, name)[0 if lib is Dl else 1])
        grads.append([y] + [t.grad for t in ts])
    tol = F32 if name == 'float32' else {}
    for fused, other in ((grads[1], grads[0]), (grads[1], grads[2])):
        for a, b in zip(fused, other):
            if isinstance(b, torch.Tensor):
                assert_same(a, b, **tol)
            else:
                np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(),
                                           **(tol or {'rtol': 1e-10, 'atol': 1e-10}))


@pytest.mark.parametrize('needs', [(True, False, False), (False, True, True),
                                   (False, False, True), (True, True, False)])
def test_some_inputs_need_no_gradient(rng, needs):
    arrays = [rand_np(rng, s, 'float64') for s in ((3, 4, 7, 7), (5, 4, 3, 3), (5,))]
    res = []
    for lib in (Dl, torch):
        ts = [pair(a, 'float64', requires_grad=r)[0 if lib is Dl else 1]
              for a, r in zip(arrays, needs)]
        y = lib.nn.functional.conv2d(ts[0], ts[1], ts[2], 1, 1)
        y.sum().backward()
        res.append([y] + [t.grad for t in ts])
    assert_same(res[0][0], res[1][0])
    for r, a, b in zip(needs, res[0][1:], res[1][1:]):
        assert (a is None) == (not r)
        if r:
            assert_same(a, b)


def test_no_grad_has_no_history(rng):
    x, _ = pair(rand_np(rng, (2, 3, 5, 5), 'float32'), 'float32', requires_grad=True)
    w, _ = pair(rand_np(rng, (4, 3, 3, 3), 'float32'), 'float32', requires_grad=True)
    with Dl.no_grad():
        y = Dl.nn.functional.conv2d(x, w, padding=1)
    assert y.grad_fn is None and not y.requires_grad


def test_create_graph_with_bias_matches_torch(rng):
    arrays = [rand_np(rng, s, 'float64') for s in ((3, 2, 6, 5), (4, 2, 3, 2), (4,))]
    res = []
    for lib in (Dl, torch):
        x, w, b = [pair(a, 'float64', requires_grad=True)[0 if lib is Dl else 1] for a in arrays]
        y = lib.nn.functional.conv2d(x, w, b, (2, 1), (1, 0), (1, 2))
        gx, gw, gb = lib.autograd.grad((y * y).sum(), [x, w, b], create_graph=True)
        second = lib.autograd.grad((gx * gx).sum() + (gw * gw).sum() + (gb * gb).sum(),
                                   [x, w, b])
        res.append([gx, gw, gb] + list(second))
    for a, b in zip(*res):
        assert_same(a, b)
    x = Dl.randn(2, 2, 5, 5, dtype=Dl.float64, requires_grad=True)
    w = Dl.randn(3, 2, 3, 3, dtype=Dl.float64, requires_grad=True)
    b = Dl.randn(3, dtype=Dl.float64, requires_grad=True)
    assert Dl.autograd.gradcheck(lambda *t: Dl.nn.functional.conv2d(*t, 2, 1), (x, w, b))
    assert Dl.autograd.gradgradcheck(lambda *t: Dl.nn.functional.conv2d(*t, 2, 1), (x, w, b))


@pytest.mark.parametrize('name', ['bfloat16'])  # torch's CPU conv has no float16
def test_half_precision(rng, name):
    a = rand_np(rng, (3, 2, 6, 6), 'float32', low=-1, high=1)
    w = rand_np(rng, (4, 2, 3, 3), 'float32', low=-1, high=1)
    x, tx = pair(a, name, requires_grad=True)
    wd, tw = pair(w, name, requires_grad=True)
    y = Dl.nn.functional.conv2d(x, wd, None, 1, 1)
    ty = torch.nn.functional.conv2d(tx.float(), tw.float(), None, 1, 1)
    assert y.dtype == getattr(Dl, name)
    assert_same(y.float(), ty, rtol=2e-2, atol=5e-2)
    y.float().sum().backward()
    ty.sum().backward()
    assert x.grad.dtype == getattr(Dl, name) and wd.grad.dtype == getattr(Dl, name)
    assert_same(x.grad.float(), tx.grad.float(), rtol=2e-2, atol=5e-2)
    assert_same(wd.grad.float(), tw.grad.float(), rtol=2e-2, atol=1e-1)


def test_paths_the_fused_node_leaves(rng):
    # groups: the chain of ops; an empty batch: an empty output
    arrays = [rand_np(rng, s, 'float64') for s in ((2, 4, 6, 6), (6, 2, 3, 3))]
    res = []
    for lib in (Dl, torch):
        x, w = [pair(a, 'float64', requires_grad=True)[0 if lib is Dl else 1] for a in arrays]
        y = lib.nn.functional.conv2d(x, w, None, 1, 1, 1, 2)
        y.sum().backward()
        res.append((y, x.grad, w.grad))
    for a, b in zip(*res):
        assert_same(a, b)
    for lib in (Dl, torch):
        y = lib.nn.functional.conv2d(lib.zeros(0, 3, 5, 5), lib.ones(2, 3, 3, 3))
        assert tuple(y.shape) == (0, 2, 3, 3)


def test_bad_inputs_raise(rng):
    for lib in (Dl, torch):
        x = lib.ones(2, 3, 5, 5)
        with pytest.raises(RuntimeError):
            lib.nn.functional.conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64))
        with pytest.raises(RuntimeError):
            lib.nn.functional.conv2d(x, lib.ones(4, 3, 3, 3), lib.ones(4, dtype=lib.float64))
        with pytest.raises(RuntimeError):
            lib.nn.functional.conv2d(x, lib.ones(4, 2, 3, 3))
        with pytest.raises(RuntimeError):
            lib.nn.functional.conv2d(x, lib.ones(4, 3, 7, 7))
        with pytest.raises(RuntimeError):
            lib.nn.functional.conv_transpose2d(x, lib.ones(3, 4, 3, 3),
                                               lib.ones(4, dtype=lib.float64))
    msg = r'Input type \(float\)' if SELF_CHECK else r'conv2d: Input type \(float32\)'
    with pytest.raises(RuntimeError, match=msg + ' and bias type'):
        Dl.nn.functional.conv2d(Dl.ones(2, 3, 5, 5), Dl.ones(4, 3, 3, 3),
                                Dl.ones(4, dtype=Dl.float64))


@pytest.mark.parametrize('name', ['float32', 'float64'])
def test_non_contiguous_weight_bias_and_output_gradient(rng, name):
    arrays = [rand_np(rng, s, name, low=-1, high=1)
              for s in ((3, 8, 7, 9), (10, 8, 3, 3), (2, 10), (3, 10, 9, 7))]
    res = []
    for lib in (Dl, torch):
        x, w, b, g = [pair(a, name, requires_grad=i < 3)[0 if lib is Dl else 1]
                      for i, a in enumerate(arrays)]
        wt, bt, gt = w.transpose(2, 3), b[1], g.transpose(2, 3)
        assert not (wt.is_contiguous() or gt.is_contiguous())
        y = lib.nn.functional.conv2d(x, wt, bt, 1, 1)
        y.backward(gt)
        res.append((y, x.grad, w.grad, b.grad))
    tol = F32 if name == 'float32' else {}
    for a, b in zip(*res):
        assert_same(a, b, **tol)
