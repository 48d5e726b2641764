# test_conv.py: conv1d, conv2d, conv_transpose2d, unfold and fold, their
# modules and gradients, against PyTorch on the same inputs and weights.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np

F32 = {'rtol': 1e-4, 'atol': 1e-5}


def leaves(rng, name, *shapes):
    out = []
    for s in shapes:
        out.append(pair(rand_np(rng, s, name), name, requires_grad=True))
    return out


def check_fwd_bwd(rng, name, fn, tfn, shapes, strided=False, **tol):
    ps = leaves(rng, name, *shapes)
    ds = [p[0] for p in ps]
    ts = [p[1] for p in ps]
    if strided:
        # a non-contiguous input: the transposed-back view of a transposed copy
        ds[0] = ds[0].transpose(-1, -2).contiguous().transpose(-1, -2)
        ts[0] = ts[0].transpose(-1, -2).contiguous().transpose(-1, -2)
        assert not ds[0].is_contiguous()
    y, ty = fn(*ds), tfn(*ts)
    assert_same(y, ty, **tol)
    g = rand_np(rng, tuple(ty.shape), name)
    dg, tg = pair(g, name)
    y.backward(dg)
    ty.backward(tg)
    for (d, t) in ps:
        assert_same(d.grad, t.grad, **tol)


CONV2D = [
    # (N, C, H, W), O, kernel, stride, padding, dilation, groups, bias
    ((2, 3, 7, 6), 4, 3, 1, 1, 1, 1, True),
    ((1, 4, 9, 8), 6, 3, 2, 0, 2, 2, True),
    ((3, 6, 5, 5), 6, 1, 1, 0, 1, 3, False),
    ((2, 3, 8, 8), 5, (2, 3), (2, 1), (1, 0), (1, 2), 1, True),
    ((1, 2, 4, 4), 3, 4, 1, 2, 1, 1, True),
    ((4, 2, 3, 3), 2, 3, 3, 1, 1, 2, True),
]


def _k(k):
    return (k, k) if isinstance(k, int) else k


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('case', range(len(CONV2D)))
def test_conv2d(rng, name, case):
    shape, o, k, s, p, d, g, bias = CONV2D[case]
    kh, kw = _k(k)
    shapes = [shape, (o, shape[1] // g, kh, kw)] + ([(o,)] if bias else [])
    tol = F32 if name == 'float32' else {}

    def run(lib):
        return lambda x, w, *b: lib.nn.functional.conv2d(x, w, b[0] if b else None, s, p, d, g)
    check_fwd_bwd(rng, name, run(Dl), run(torch), shapes, **tol)
    check_fwd_bwd(rng, name, run(Dl), run(torch), shapes, strided=True, **tol)


def test_conv2d_unbatched_and_padding_strings(rng):
    for padding in ('same', 'valid', 0):
        def run(lib):
            return lambda x, w, b: lib.nn.functional.conv2d(x, w, b, 1, padding, (1, 2), 1)
        check_fwd_bwd(rng, 'float64', run(Dl), run(torch), [(3, 6, 7), (2, 3, 3, 3), (2,)])


@pytest.mark.parametrize('case', [
    ((2, 4, 9), 6, 3, 1, 1, 1, 1),
    ((3, 4, 10), 4, 2, 2, 0, 3, 2),
    ((4, 7), 3, 3, 1, 'same', 2, 1),
])
def test_conv1d(rng, case):
    shape, o, k, s, p, d, g = case

    def run(lib):
        return lambda x, w, b: lib.nn.functional.conv1d(x, w, b, s, p, d, g)
    check_fwd_bwd(rng, 'float64', run(Dl), run(torch),
                  [shape, (o, shape[-2] // g, k), (o,)])


@pytest.mark.parametrize('case', [
    # (N, C, H, W), O, kernel, stride, padding, output_padding, groups, dilation
    ((2, 4, 5, 5), 6, 3, 2, 0, 1, 1, 1),
    ((1, 4, 4, 3), 2, (2, 3), (1, 2), (1, 0), (0, 1), 2, 1),
    ((2, 3, 3, 3), 3, 3, 1, 1, 0, 3, 2),
    ((4, 5, 5), 2, 2, 2, 0, 0, 1, 1),
])
def test_conv_transpose2d(rng, case):
    shape, o, k, s, p, op, g, d = case
    kh, kw = _k(k)
    c = shape[-3]

    def run(lib):
        return lambda x, w, b: lib.nn.functional.conv_transpose2d(x, w, b, s, p, op, g, d)
    check_fwd_bwd(rng, 'float64', run(Dl), run(torch), [shape, (c, o // g, kh, kw), (o,)])


def test_unfold_fold(rng):
    def run(lib):
        return lambda x: lib.nn.functional.unfold(x, (2, 3), dilation=(1, 2), padding=1,
                                                  stride=(2, 1))
    check_fwd_bwd(rng, 'float64', run(Dl), run(torch), [(2, 3, 6, 7)])
    check_fwd_bwd(rng, 'float32', run(Dl), run(torch), [(3, 5, 5)], **F32)

    def run_fold(lib):
        return lambda x: lib.nn.functional.fold(x, (5, 6), (2, 2), padding=1, stride=2)
    check_fwd_bwd(rng, 'float64', run_fold(Dl), run_fold(torch), [(2, 12, 12)])


def test_half_precision_computes_in_float32(rng):
    a = rand_np(rng, (1, 2, 5, 5), 'float32')
    w = rand_np(rng, (3, 2, 3, 3), 'float32')
    for name in ('bfloat16',):
        y = Dl.nn.functional.conv2d(pair(a, name)[0], pair(w, name)[0], padding=1)
        ty = torch.nn.functional.conv2d(pair(a, name)[1].float(), pair(w, name)[1].float(),
                                        padding=1)
        assert y.dtype == Dl.bfloat16
        assert_same(y.float(), ty, rtol=2e-2, atol=5e-2)


def test_double_backward(rng):
    (x, tx), (w, tw) = leaves(rng, 'float64', (2, 3, 6, 6), (4, 3, 3, 3))
    res = []
    for lib, a, b in ((Dl, x, w), (torch, tx, tw)):
        y = lib.nn.functional.conv2d(a, b, None, 2, 1)
        g, = lib.autograd.grad((y * y).sum(), a, create_graph=True)
        gg = lib.autograd.grad((g * g).sum(), [a, b])
        res.append((g, gg))
    assert_same(res[0][0], res[1][0])
    for d, t in zip(res[0][1], res[1][1]):
        assert_same(d, t)
    assert Dl.autograd.gradgradcheck(
        lambda a, b: Dl.nn.functional.conv_transpose2d(a, b, None, 2, 1, 1),
        (x[:1, :, :3, :3].detach().requires_grad_(), Dl.randn(3, 2, 3, 3,
                                                               dtype=Dl.float64,
                                                               requires_grad=True)))


def test_modules_match_torch(rng):
    x = rand_np(rng, (2, 4, 9, 9), 'float32')
    for args, kw in (((4, 6, 3), {'padding': 1}), ((4, 8, (3, 1)), {'stride': 2, 'groups': 2}),
                     ((4, 4, 3), {'padding': 'same', 'dilation': 2, 'bias': False})):
        torch.manual_seed(0)
        m, tm = Dl.nn.Conv2d(*args, **kw), torch.nn.Conv2d(*args, **kw)
        assert repr(m) == repr(tm)
        assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
        for (_, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
            assert tuple(p.shape) == tuple(tp.shape)
            # PyTorch's default initialisation: uniform in +-1/sqrt(fan_in)
            ks = tm.kernel_size
            fan_in = args[0] // kw.get('groups', 1) * ks[0] * ks[1]
            assert float(p.abs().max()) <= 1 / np.sqrt(fan_in) + 1e-6
            with torch.no_grad():
                tp.copy_(torch.from_numpy(p.detach().numpy()))
        dx, tx = pair(x, 'float32')
        assert_same(m(dx), tm(tx), **F32)
    m1, t1 = Dl.nn.Conv1d(4, 6, 3, padding=1), torch.nn.Conv1d(4, 6, 3, padding=1)
    assert repr(m1) == repr(t1)
    mt, tt = (Dl.nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1),
              torch.nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1))
    assert repr(mt) == repr(tt)
    assert tuple(mt.weight.shape) == tuple(tt.weight.shape)
    with torch.no_grad():
        tt.weight.copy_(torch.from_numpy(mt.weight.detach().numpy()))
        tt.bias.copy_(torch.from_numpy(mt.bias.detach().numpy()))
    dx, tx = pair(x, 'float32')
    assert_same(mt(dx), tt(tx), **F32)


def test_errors():
    x = Dl.randn(1, 4, 8, 8)
    with pytest.raises(RuntimeError, match=r'expected input\[1, 4, 8, 8\] to have 3 channels, '
                                           r'but got 4 channels'):
        Dl.nn.functional.conv2d(x, Dl.randn(2, 3, 3, 3))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        Dl.nn.functional.conv2d(x, Dl.randn(2, 4, 9, 9))
    with pytest.raises(RuntimeError, match='Expected 3D.*or 4D'):
        Dl.nn.functional.conv2d(Dl.randn(4, 8), Dl.randn(2, 4, 3, 3))
    with pytest.raises(RuntimeError, match='divisible by 3'):
        Dl.nn.functional.conv2d(Dl.randn(1, 6, 8, 8), Dl.randn(4, 2, 3, 3), groups=3)
    with pytest.raises(RuntimeError, match='non-positive stride is not supported'):
        Dl.nn.functional.conv2d(x, Dl.randn(2, 4, 3, 3), stride=0)
    with pytest.raises(RuntimeError, match='negative padding is not supported'):
        Dl.nn.functional.conv2d(x, Dl.randn(2, 4, 3, 3), padding=-1)
    with pytest.raises(RuntimeError, match='bias'):
        Dl.nn.functional.conv2d(x, Dl.randn(2, 4, 3, 3), Dl.randn(3))
    if Dl is not torch:  # torch 1.13 convolves integers too; libdl does not (yet)
        with pytest.raises(RuntimeError, match='not implemented'):
            Dl.nn.functional.conv2d(x.long(), Dl.randn(2, 4, 3, 3).long())
    with pytest.raises(ValueError, match='in_channels must be divisible by groups'):
        Dl.nn.Conv2d(5, 4, 3, groups=2)
    with pytest.raises(ValueError, match='strided'):
        Dl.nn.Conv2d(4, 4, 3, stride=2, padding='same')
    with pytest.raises(RuntimeError, match='output padding must be smaller'):
        Dl.nn.functional.conv_transpose2d(x, Dl.randn(4, 2, 3, 3), output_padding=1)
    with pytest.raises(RuntimeError, match='sliding blocks'):
        Dl.nn.functional.fold(Dl.randn(1, 4, 5), (4, 4), 2)


POOL = [
    # shape, kernel, stride, padding, dilation, ceil_mode
    ((2, 3, 7, 6), 2, None, 0, 1, False),
    ((1, 2, 9, 8), 3, 2, 1, 1, True),
    ((2, 2, 8, 8), (3, 2), (2, 1), (1, 0), (2, 1), False),
    ((3, 5, 5), 3, 1, 1, 1, False),
]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('case', range(len(POOL)))
def test_max_pool2d(rng, name, case):
    shape, k, s, p, d, ceil = POOL[case]

    def run(lib):
        return lambda x: lib.nn.functional.max_pool2d(x, k, s, p, d, ceil)
    tol = F32 if name == 'float32' else {}
    check_fwd_bwd(rng, name, run(Dl), run(torch), [shape], **tol)
    check_fwd_bwd(rng, name, run(Dl), run(torch), [shape], strided=True, **tol)
    a = rand_np(rng, shape, name)
    out, idx = Dl.nn.functional.max_pool2d(pair(a, name)[0], k, s, p, d, ceil, True)
    tout, tidx = torch.nn.functional.max_pool2d(pair(a, name)[1], k, s, p, d, ceil, True)
    assert_same(idx, tidx)


def test_max_pool2d_nan_and_double_backward(rng):
    x, tx = pair(np.array([[[[1.0, np.nan], [3.0, 2.0]]]]), 'float64')
    assert np.isnan(Dl.nn.functional.max_pool2d(x, 2).item())
    assert np.isnan(torch.nn.functional.max_pool2d(tx, 2).item())
    (a, ta), = leaves(rng, 'float64', (2, 2, 6, 6))
    res = []
    for lib, t in ((Dl, a), (torch, ta)):
        y = lib.nn.functional.max_pool2d(t, 3, 2, 1)
        g, = lib.autograd.grad((y * y).sum(), t, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), t)
        res.append((g, gg))
    assert_same(res[0][0], res[1][0])
    assert_same(res[0][1], res[1][1])


@pytest.mark.parametrize('case', [
    ((2, 3, 6, 6), 2, None, 0, True),
    ((1, 2, 7, 5), 3, 2, 1, True),
    ((1, 2, 7, 5), 3, 2, 1, False),
    ((3, 6, 6), (2, 3), (2, 3), (1, 1), False),
])
def test_avg_pool2d(rng, case):
    shape, k, s, p, include = case

    def run(lib):
        return lambda x: lib.nn.functional.avg_pool2d(x, k, s, p, count_include_pad=include)
    check_fwd_bwd(rng, 'float64', run(Dl), run(torch), [shape])


def test_adaptive_avg_pool_and_modules(rng):
    for out in (1, (2, 3), (None, 2)):
        def run(lib):
            return lambda x: lib.nn.functional.adaptive_avg_pool2d(x, out)
        check_fwd_bwd(rng, 'float64', run(Dl), run(torch), [(2, 3, 4, 6)])
    for args in ((Dl.nn.MaxPool2d, torch.nn.MaxPool2d, (3, 2, 1)),
                 (Dl.nn.AvgPool2d, torch.nn.AvgPool2d, (2,)),
                 (Dl.nn.AdaptiveAvgPool2d, torch.nn.AdaptiveAvgPool2d, ((1, 1),)),
                 (Dl.nn.Dropout, torch.nn.Dropout, (0.25,))):
        assert repr(args[0](*args[2])) == repr(args[1](*args[2]))


def test_dropout():
    x = Dl.ones(1000, 100)
    y = Dl.nn.functional.dropout(x, 0.3)
    kept = (y != 0).float().mean().item()
    assert abs(kept - 0.7) < 0.01
    assert np.allclose(y[y != 0].numpy(), 1 / 0.7)
    m = Dl.nn.Dropout(0.3)
    m.eval()
    assert m(x) is x
    assert Dl.nn.functional.dropout(x, 1.0).abs().sum().item() == 0
    with pytest.raises(ValueError, match='between 0 and 1'):
        Dl.nn.Dropout(1.5)
    w = Dl.ones(10, requires_grad=True)
    (Dl.nn.functional.dropout(w, 0.5) * 2).sum().backward()
    assert set(np.unique(w.grad.numpy())) <= {0.0, 4.0}


def test_pool_errors():
    with pytest.raises(RuntimeError, match='pad should be at most half'):
        Dl.nn.functional.max_pool2d(Dl.randn(1, 1, 5, 5), 2, 1, 2)
    with pytest.raises(RuntimeError, match='Output size is too small'):
        Dl.nn.functional.max_pool2d(Dl.randn(1, 1, 2, 2), 3)


@pytest.mark.parametrize('case', [
    ('BatchNorm2d', (4, 3, 5, 5), {}),
    ('BatchNorm2d', (2, 3, 4, 4), {'momentum': None, 'affine': False}),
    ('BatchNorm1d', (6, 4), {'eps': 1e-3}),
    ('BatchNorm1d', (3, 4, 5), {'track_running_stats': False}),
])
def test_batch_norm_matches_torch(rng, case):
    name, shape, kw = case
    m, tm = getattr(Dl.nn, name)(shape[1], **kw), getattr(torch.nn, name)(shape[1], **kw)
    assert repr(m) == repr(tm)
    assert list(m.state_dict().keys()) == list(tm.state_dict().keys())
    for step in range(3):
        a = rand_np(rng, shape, 'float32')
        (x, tx), = [pair(a, 'float32', requires_grad=True)]
        y, ty = m(x), tm(tx)
        assert_same(y, ty, **F32)
        g = rand_np(rng, shape, 'float32')
        y.backward(pair(g, 'float32')[0])
        ty.backward(pair(g, 'float32')[1])
        assert_same(x.grad, tx.grad, rtol=1e-4, atol=1e-4)
    for (k, v), (tk, tv) in zip(m.state_dict().items(), tm.state_dict().items()):
        assert k == tk
        assert_same(v, tv, **F32)
    m.eval()
    tm.eval()
    a = rand_np(rng, shape, 'float32')
    assert_same(m(pair(a, 'float32')[0]), tm(pair(a, 'float32')[1]), **F32)
    fresh = getattr(Dl.nn, name)(shape[1], **kw)
    fresh.load_state_dict({k: Dl.from_numpy(v.numpy()) for k, v in tm.state_dict().items()})
    fresh.eval()
    assert_same(fresh(pair(a, 'float32')[0]), tm(pair(a, 'float32')[1]), **F32)


def test_layer_norm_and_buffers(rng):
    def run(lib):
        return lambda x, w, b: lib.nn.functional.layer_norm(x, (4, 5), w, b)
    check_fwd_bwd(rng, 'float64', run(Dl), run(torch), [(3, 4, 5), (4, 5), (4, 5)])
    assert repr(Dl.nn.LayerNorm(5)) == repr(torch.nn.LayerNorm(5))
    with pytest.raises(RuntimeError, match='normalized_shape'):
        Dl.nn.functional.layer_norm(Dl.randn(3, 4), (5,))
    with pytest.raises(ValueError, match='expected 4D input'):
        Dl.nn.BatchNorm2d(3)(Dl.randn(3, 4))
    with pytest.raises(ValueError, match='more than 1 value per channel'):
        Dl.nn.BatchNorm1d(3)(Dl.randn(1, 3))

    class Net(Dl.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer('steps', Dl.zeros(()))
            self.register_buffer('scratch', Dl.zeros(2), persistent=False)
            self.bn = Dl.nn.BatchNorm1d(2)

    n = Net()
    assert [k for k, _ in n.named_buffers()] == ['steps', 'scratch', 'bn.running_mean',
                                                 'bn.running_var', 'bn.num_batches_tracked']
    assert list(n.state_dict().keys()) == ['steps', 'bn.weight', 'bn.bias', 'bn.running_mean',
                                           'bn.running_var', 'bn.num_batches_tracked']
    n.steps = Dl.ones(())
    assert n.steps.item() == 1 and n.state_dict()['steps'].item() == 1
    with pytest.raises(TypeError, match='buffer'):
        n.steps = 3
    assert len(list(n.parameters())) == 2


@pytest.mark.parametrize('fn', [
    lambda m, x: m.nn.functional.elu(x, 0.7),
    lambda m, x: m.nn.functional.hardtanh(x, -0.5, 1.5),
    lambda m, x: m.nn.functional.softplus(x, 2, 3),
    lambda m, x: m.nn.ELU()(x),
    lambda m, x: m.nn.Softplus()(x),
])
def test_composite_activations(rng, fn):
    check_fwd_bwd(rng, 'float64', lambda x: fn(Dl, x), lambda x: fn(torch, x), [(4, 5)])


def test_embedding(rng):
    w = rand_np(rng, (6, 3), 'float64')
    idx = np.array([[0, 2, 5], [2, 2, 1]])
    for pad in (None, 2, -1):
        (dw, tw) = pair(w, 'float64', requires_grad=True)
        y = Dl.nn.functional.embedding(Dl.from_numpy(idx), dw, pad)
        ty = torch.nn.functional.embedding(torch.from_numpy(idx), tw, pad)
        assert_same(y, ty)
        g = rand_np(rng, (2, 3, 3), 'float64')
        y.backward(pair(g, 'float64')[0])
        ty.backward(pair(g, 'float64')[1])
        assert_same(dw.grad, tw.grad)
    m, tm = Dl.nn.Embedding(10, 4, padding_idx=1), torch.nn.Embedding(10, 4, padding_idx=1)
    assert repr(m) == repr(tm)
    assert m.weight[1].abs().sum().item() == 0
    assert repr(Dl.nn.Hardtanh(-2, 2)) == repr(torch.nn.Hardtanh(-2, 2))
