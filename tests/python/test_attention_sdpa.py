# test_attention_sdpa.py: F.scaled_dot_product_attention (PyTorch 2's
# signature) against the explicit formula computed with PyTorch 1.13,
# which predates the function:
#   softmax(q @ k.transpose(-2, -1) * scale + mask) @ v
# with a bool mask as masked_fill(~mask, -inf) and is_causal as -inf above
# the diagonal (top-left aligned), as PyTorch 2's math reference does.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

import numpy as np
import pytest
import torch

from conftest import Dl, SELF_CHECK, assert_same, pair, to_np

# torch 1.13 has no scaled_dot_product_attention: nothing to self-check
pytestmark = pytest.mark.skipif(SELF_CHECK, reason='torch 1.13 lacks scaled_dot_product_attention')

TOLS = {'float32': dict(rtol=2e-5, atol=2e-6), 'float64': dict(rtol=1e-10, atol=1e-12)}


def sdpa(*args, **kw):
    return Dl.nn.functional.scaled_dot_product_attention(*args, **kw)


def explicit(q, k, v, mask=None, is_causal=False, scale=None, dropout_scales=None):
    """PyTorch 2's math path, in torch 1.13 ops."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(-2, -1) * scale
    if is_causal:
        L, S = s.shape[-2:]
        s = s.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), float('-inf'))
    if mask is not None:
        s = s.masked_fill(~mask, float('-inf')) if mask.dtype == torch.bool else s + mask
    p = torch.softmax(s, -1)
    if dropout_scales is not None:
        p = p * dropout_scales
    return p @ v


def transposed_pair(a, name):
    """(libdl, torch) leaves holding a, laid out with the last two dims
    swapped in memory (a transposed view)."""
    sw = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    x, t = pair(sw, name)
    x, t = x.transpose(-1, -2), t.transpose(-1, -2)
    assert not x.is_contiguous()
    return x.detach().requires_grad_(True), t.detach().requires_grad_(True)


def heads_pair(a, name):
    """(libdl, torch) leaves holding a [B, H, L, E], as a view of [B, L, H,
    E] (how attention layers split heads)."""
    x, t = pair(np.ascontiguousarray(np.swapaxes(a, -3, -2)), name)
    x, t = x.transpose(-3, -2), t.transpose(-3, -2)
    return x.detach().requires_grad_(True), t.detach().requires_grad_(True)


def leaves(rng, shape, name, layout):
    a = rng.standard_normal(shape)
    if layout == 'transposed':
        return transposed_pair(a, name)
    if layout == 'heads' and len(shape) == 4:
        return heads_pair(a, name)
    return pair(a, name, requires_grad=True)


def check_against_explicit(rng, qs, ks, vs, name, layout='contiguous', mask=None, **kw):
    (q, tq), (k, tk), (v, tv) = [leaves(rng, s, name, layout) for s in (qs, ks, vs)]
    dm, tm = mask if mask is not None else (None, None)
    out = sdpa(q, k, v, attn_mask=dm, **kw)
    ref = explicit(tq, tk, tv, tm, **kw)
    assert_same(out, ref, **TOLS[name], msg='output: ')
    g = rng.standard_normal(tuple(ref.shape))
    gd, gt = pair(g, name)
    out.backward(gd)
    ref.backward(gt)
    for x, t, what in ((q, tq, 'query'), (k, tk, 'key'), (v, tv, 'value')):
        assert_same(x.grad, t.grad, **TOLS[name], msg=f'grad of {what}: ')
    if dm is not None and dm.requires_grad:
        assert_same(dm.grad, tm.grad, **TOLS[name], msg='grad of attn_mask: ')


# (query, key, value) shapes: batch dims 0 to 3, L != S, E != Ev, broadcast
# batch dims, lengths not multiples of the kernel's blocks (64 x 256)
SHAPES = [
    ((5, 4), (7, 4), (7, 6)),
    ((1, 3, 4), (1, 9, 4), (1, 9, 2)),
    ((3, 6, 8), (3, 6, 8), (3, 6, 8)),
    ((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 5)),
    ((2, 3, 5, 4), (1, 3, 7, 4), (2, 1, 7, 5)),
    ((2, 1, 3, 5, 4), (3, 7, 4), (1, 3, 7, 3)),
    ((1, 2, 70, 16), (1, 2, 300, 16), (1, 2, 300, 8)),
    ((2, 130, 8), (2, 257, 8), (2, 257, 8)),
    ((1, 40, 8), (1, 600, 8), (1, 600, 4)),
]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('shapes', SHAPES, ids=[str(s[0]) + str(s[1]) for s in SHAPES])
@pytest.mark.parametrize('layout', ['contiguous', 'transposed', 'heads'])
def test_no_mask(rng, shapes, name, layout):
    check_against_explicit(rng, *shapes, name, layout)


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('shapes', SHAPES, ids=[str(s[0]) + str(s[1]) for s in SHAPES])
def test_causal(rng, shapes, name):
    check_against_explicit(rng, *shapes, name, 'heads', is_causal=True)


@pytest.mark.parametrize('L,S', [(7, 3), (3, 7), (100, 300), (300, 100), (257, 257)])
@pytest.mark.parametrize('batch', [(), (2,)])
def test_causal_lengths(rng, L, S, batch):
    check_against_explicit(rng, batch + (L, 8), batch + (S, 8), batch + (S, 4), 'float32',
                           is_causal=True)


def mask_shapes(qs, ks):
    """mask shapes that broadcast to the scores [..., L, S]"""
    L, S, batch = qs[-2], ks[-2], qs[:-2]
    out = [(L, S), (1, S), (L, 1)]
    if batch:
        out.append(batch + (L, S))
        out.append((1,) * len(batch) + (L, S))
        out.append(batch[:-1] + (1, L, S))
    return out


MASK_CASES = [(s, m) for s in SHAPES[:5] + SHAPES[6:7] for m in mask_shapes(s[0], s[1])]


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('shapes,mshape', MASK_CASES, ids=[f'{s[0]}{m}' for s, m in MASK_CASES])
def test_bool_mask(rng, shapes, mshape, name):
    m = rng.random(mshape) < 0.7
    m[..., 0] = True  # every row attends something (fully masked rows: below)
    check_against_explicit(rng, *shapes, name, 'transposed', mask=pair(m))


@pytest.mark.parametrize('name', ['float32', 'float64'])
@pytest.mark.parametrize('shapes,mshape', MASK_CASES, ids=[f'{s[0]}{m}' for s, m in MASK_CASES])
def test_float_mask_with_grad(rng, shapes, mshape, name):
    m = rng.standard_normal(mshape)
    check_against_explicit(rng, *shapes, name, 'contiguous', mask=pair(m, name, True))


@pytest.mark.parametrize('name', ['float32', 'float64'])
def test_float_mask_one_problem_many_key_blocks(rng, name):
    """one problem (the backward's threads then share its key blocks)"""
    m = rng.standard_normal((50, 700))
    check_against_explicit(rng, (50, 8), (700, 8), (700, 6), name, 'transposed',
                           mask=pair(m, name, True))


def test_float_mask_with_inf_and_strides(rng):
    m = rng.standard_normal((6, 9))
    m[rng.random(m.shape) < 0.3] = -np.inf
    m[:, 2] = 0.0
    dm, tm = pair(np.ascontiguousarray(m.T), 'float32')
    check_against_explicit(rng, (2, 6, 4), (2, 9, 4), (2, 9, 3), 'float32',
                           mask=(dm.t(), tm.t()))


@pytest.mark.parametrize('scale', [0.3, -1.5, 2.0])
def test_scale(rng, scale):
    check_against_explicit(rng, (2, 5, 4), (2, 6, 4), (2, 6, 3), 'float64', scale=scale)


def test_large_float32(rng):
    check_against_explicit(rng, (1, 2, 600, 64), (1, 2, 700, 64), (1, 2, 700, 32), 'float32',
                           'heads', is_causal=True)


@pytest.mark.parametrize('kind', ['bool', 'float'])
def test_fully_masked_rows_are_nan(rng, kind):
    """softmax of a row of -inf is NaN in PyTorch's math path: so are the
    output's row here; the other rows are unchanged."""
    (q, tq), (k, tk), (v, tv) = [pair(rng.standard_normal(s), 'float64')
                                 for s in ((2, 5, 4), (2, 300, 4), (2, 300, 3))]
    keep = rng.random((5, 300)) < 0.5
    keep[:, 0] = True
    keep[2] = False
    m = keep if kind == 'bool' else np.where(keep, 0.0, -np.inf)
    dm, tm = pair(m, None if kind == 'bool' else 'float64')
    out, ref = sdpa(q, k, v, attn_mask=dm), explicit(tq, tk, tv, tm)
    assert np.isnan(to_np(out)[:, 2]).all()
    assert not np.isnan(np.delete(to_np(out), 2, axis=1)).any()
    assert_same(out, ref)


@pytest.mark.parametrize('where', ['query', 'key', 'value'])
def test_nan_inputs(rng, where):
    """NaN spreads as in the explicit formula: a query's row, every row for
    a key, a column for a value"""
    arrays = [rng.standard_normal(s) for s in ((2, 5, 4), (2, 300, 4), (2, 300, 3))]
    arrays[['query', 'key', 'value'].index(where)][1, 3, 1] = np.nan
    (q, tq), (k, tk), (v, tv) = [pair(a, 'float32') for a in arrays]
    assert_same(sdpa(q, k, v), explicit(tq, tk, tv), **TOLS['float32'])
    assert_same(sdpa(q, k, v, is_causal=True), explicit(tq, tk, tv, is_causal=True),
                **TOLS['float32'])


def test_no_keys(rng):
    """S = 0: the softmax of nothing times nothing is a zero output"""
    check_against_explicit(rng, (2, 5, 4), (2, 0, 4), (2, 0, 3), 'float32')


@pytest.mark.parametrize('shapes', [((0, 5, 4), (0, 6, 4), (0, 6, 3)),
                                    ((2, 0, 4), (2, 6, 4), (2, 6, 3)),
                                    ((2, 5, 4), (2, 6, 4), (2, 6, 0))], ids=['batch', 'L', 'Ev'])
def test_empty(rng, shapes):
    check_against_explicit(rng, *shapes, 'float32')


@pytest.mark.parametrize('name', ['float16', 'bfloat16'])
def test_half_dtypes(rng, name):
    (q, tq), (k, tk), (v, tv) = [pair(rng.standard_normal(s), name)
                                 for s in ((2, 5, 8), (2, 7, 8), (2, 7, 4))]
    out = sdpa(q, k, v)
    ref = explicit(tq.float(), tk.float(), tv.float()).to(tq.dtype)
    assert_same(out, ref, rtol=2e-2, atol=2e-2)


def double_leaves(rng, *shapes):
    return [Dl.tensor(rng.uniform(-1, 1, s), dtype=Dl.float64, requires_grad=True)
            for s in shapes]


@pytest.mark.parametrize('kw', [{}, {'is_causal': True}, {'scale': 0.7}], ids=['plain', 'causal', 'scale'])
def test_gradcheck(rng, kw):
    q, k, v = double_leaves(rng, (2, 3, 4), (2, 5, 4), (1, 5, 3))
    fn = lambda q, k, v: sdpa(q, k, v, **kw)  # noqa: E731
    assert Dl.autograd.gradcheck(fn, (q, k, v))
    assert Dl.autograd.gradgradcheck(fn, (q, k, v))


def test_gradcheck_masks(rng):
    q, k, v, m = double_leaves(rng, (2, 3, 4), (2, 5, 4), (2, 5, 3), (3, 5))
    fn = lambda q, k, v, m: sdpa(q, k, v, attn_mask=m)  # noqa: E731
    assert Dl.autograd.gradcheck(fn, (q, k, v, m))
    assert Dl.autograd.gradgradcheck(fn, (q, k, v, m))
    b = Dl.tensor(rng.random((2, 1, 5)) < 0.6)
    b[..., 0] = True
    fb = lambda q, k, v: sdpa(q, k, v, attn_mask=b)  # noqa: E731
    assert Dl.autograd.gradcheck(fb, (q, k, v))
    assert Dl.autograd.gradgradcheck(fb, (q, k, v))


def test_double_backward_matches_torch(rng):
    """second derivatives (create_graph) against the explicit formula's"""
    arrays = [rng.uniform(-1, 1, s) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 3), (3, 5))]
    res = []
    for mod, f in ((Dl, lambda *t: sdpa(*t[:3], attn_mask=t[3])), (torch, explicit)):
        xs = [mod.tensor(a, dtype=mod.float64, requires_grad=True) for a in arrays]
        out = f(*xs)
        g = mod.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)), dtype=mod.float64)
        first = mod.autograd.grad(out, xs, g, create_graph=True)
        total = sum((d * mod.tensor(np.cos(np.arange(d.numel())).reshape(tuple(d.shape)),
                                    dtype=mod.float64)).sum() for d in first)
        second = mod.autograd.grad(total, xs)
        res.append([np.array(t.detach().numpy()) for t in list(first) + list(second)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


# ---- dropout ---------------------------------------------------------------


def dropout_scales(q, k, p, seed):
    """The dropout scales the kernel draws for q, k with this seed: with
    value = identity the output is softmax (scores) o Z."""
    S = k.shape[-2]
    eye = Dl.eye(S, dtype=q.dtype)
    Dl.manual_seed(seed)
    probs = sdpa(q.detach(), k.detach(), eye, dropout_p=p)
    plain = sdpa(q.detach(), k.detach(), eye)
    return to_np(probs) / to_np(plain)


def test_dropout_same_seed_same_result(rng):
    q, k, v = [Dl.tensor(rng.standard_normal(s), dtype=Dl.float32)
               for s in ((2, 40, 8), (2, 50, 8), (2, 50, 8))]
    Dl.manual_seed(3)
    a = to_np(sdpa(q, k, v, dropout_p=0.4))
    Dl.manual_seed(3)
    b = to_np(sdpa(q, k, v, dropout_p=0.4))
    c = to_np(sdpa(q, k, v, dropout_p=0.4))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    assert not np.allclose(a, to_np(sdpa(q, k, v)))


@pytest.mark.parametrize('p', [0.2, 0.5])
def test_dropout_statistics(rng, p):
    """each weight kept with probability 1 - p and scaled by 1 / (1 - p):
    the zeros' fraction is p and the output's mean is preserved"""
    q, k = [Dl.tensor(rng.standard_normal(s), dtype=Dl.float64) for s in ((4, 100, 8), (4, 300, 8))]
    z = dropout_scales(q, k, p, seed=7)
    kept = np.isclose(z, 1 / (1 - p))
    assert np.logical_or(kept, z == 0).all()
    assert abs((~kept).mean() - p) < 0.01  # 120000 draws: sd 0.0015
    ones = Dl.ones(4, 300, 5, dtype=Dl.float64)
    Dl.manual_seed(8)
    mean = to_np(sdpa(q, k, ones, dropout_p=p)).mean()
    assert abs(mean - 1) < 0.02


def test_dropout_one_gives_zeros(rng):
    q, k, v = double_leaves(rng, (2, 3, 4), (2, 5, 4), (2, 5, 3))
    out = sdpa(q, k, v, dropout_p=1.0)
    assert (to_np(out) == 0).all()


@pytest.mark.parametrize('causal', [False, True])
def test_dropout_gradients_match_explicit(rng, causal):
    """forward and gradients against the explicit formula with the same
    dropout scales (read back from the kernel), over several blocks"""
    qs, ks, vs = (2, 70, 8), (2, 260, 8), (2, 260, 5)
    (q, tq), (k, tk), (v, tv) = [pair(rng.standard_normal(s), 'float64', True) for s in (qs, ks, vs)]
    m = rng.standard_normal((70, 260))
    dm, tm = pair(m, 'float64', True)
    mask = None if causal else dm
    z = dropout_scales(q, k, 0.3, seed=11) if causal else None
    if not causal:
        Dl.manual_seed(11)
        eye = Dl.eye(260, dtype=Dl.float64)
        z = to_np(sdpa(q.detach(), k.detach(), eye, attn_mask=dm.detach(), dropout_p=0.3)) / \
            to_np(sdpa(q.detach(), k.detach(), eye, attn_mask=dm.detach()))
    Dl.manual_seed(11)
    out = sdpa(q, k, v, attn_mask=mask, dropout_p=0.3, is_causal=causal)
    ref = explicit(tq, tk, tv, None if causal else tm, is_causal=causal,
                   dropout_scales=torch.tensor(np.nan_to_num(z)))
    assert_same(out, ref, rtol=1e-9, atol=1e-11)
    g = rng.standard_normal(tuple(ref.shape))
    out.backward(Dl.tensor(g))
    ref.backward(torch.tensor(g))
    for x, t in ((q, tq), (k, tk), (v, tv)) + (() if causal else ((dm, tm),)):
        assert_same(x.grad, t.grad, rtol=1e-9, atol=1e-11)


def test_dropout_gradcheck(rng):
    q, k, v = double_leaves(rng, (2, 3, 4), (2, 6, 4), (2, 6, 3))

    def fn(q, k, v):
        Dl.manual_seed(5)
        return sdpa(q, k, v, dropout_p=0.4)

    assert Dl.autograd.gradcheck(fn, (q, k, v))
    assert Dl.autograd.gradgradcheck(fn, (q, k, v))


def test_dropout_generator_from_c(rng):
    """the C API takes a generator: the same seed gives the same draws"""
    q, k, v = [Dl.tensor(rng.standard_normal(s), dtype=Dl.float32)
               for s in ((1, 9, 4), (1, 11, 4), (1, 11, 4))]
    outs = []
    for _ in range(2):
        g = Dl.Generator()
        g.manual_seed(42)
        outs.append(to_np(Dl.scaled_dot_product_attention(q, k, v, None, 0.5, False, 0.0, g)))
    np.testing.assert_array_equal(*outs)


# ---- bad input -------------------------------------------------------------


def f32(*shape):
    return Dl.zeros(*shape)


BAD = [
    ('1-d', lambda: sdpa(f32(4), f32(3, 4), f32(3, 4)), 'at least 2 dims'),
    ('E', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 3), f32(2, 6, 3)), 'embedding dims 4 and 3'),
    ('S', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4), f32(2, 7, 4)), 'sequence lengths 6 and 7'),
    ('batch', lambda: sdpa(f32(2, 5, 4), f32(3, 6, 4), f32(3, 6, 4)), 'do not broadcast'),
    ('dtype', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4).double(), f32(2, 6, 4)), 'same dtype'),
    ('int', lambda: sdpa(*(Dl.zeros(2, 5, 4, dtype=Dl.int64),) * 3), 'not implemented'),
    ('mask shape', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4), f32(2, 6, 4),
                                attn_mask=Dl.ones(5, 5, dtype=Dl.bool)), '[5, 5]'),
    ('mask batch', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4), f32(2, 6, 4),
                                attn_mask=Dl.ones(3, 5, 6, dtype=Dl.bool)), '[3, 5, 6]'),
    ('mask dtype', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4), f32(2, 6, 4),
                                attn_mask=Dl.ones(5, 6, dtype=Dl.int64)), 'attn_mask dtype'),
    ('mask float64', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4), f32(2, 6, 4),
                                  attn_mask=Dl.ones(5, 6, dtype=Dl.float64)), 'attn_mask dtype'),
    ('causal+mask', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4), f32(2, 6, 4),
                                 attn_mask=f32(5, 6), is_causal=True), 'is_causal'),
    ('dropout>1', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4), f32(2, 6, 4), dropout_p=1.5),
     'between 0 and 1'),
    ('dropout<0', lambda: sdpa(f32(2, 5, 4), f32(2, 6, 4), f32(2, 6, 4), dropout_p=-0.1),
     'between 0 and 1'),
]


@pytest.mark.parametrize('fn,text', [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input(fn, text):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert 'scaled_dot_product_attention' in str(info.value)
    assert text in str(info.value)
