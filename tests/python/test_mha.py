# test_mha.py: nn.MultiheadAttention (libdl's DlMultiheadAttention) and
# F.multi_head_attention_forward against PyTorch from the same weights:
# outputs, attention weights (averaged and per head), input and parameter
# gradients, every mask kind, kdim != vdim, add_bias_kv, add_zero_attn,
# batch_first, unbatched inputs, the errors, gradcheck, pickling.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import math
import pickle

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np

TOL = {'rtol': 1e-4, 'atol': 1e-5}
TOL64 = {'rtol': 1e-9, 'atol': 1e-11}


def load_from_torch(m, tm):
    sd = tm.state_dict()
    assert list(m.state_dict().keys()) == list(sd.keys())
    for k, v in m.state_dict().items():
        assert tuple(v.shape) == tuple(sd[k].shape), k
    m.load_state_dict({k: Dl.from_numpy(v.detach().numpy().copy()) for k, v in sd.items()})


def make(dtype='float32', **kw):
    m, tm = Dl.nn.MultiheadAttention(**kw), torch.nn.MultiheadAttention(**kw)
    if dtype == 'float64':
        m, tm = m.double(), tm.double()
    load_from_torch(m, tm)
    return m, tm


def pair_in(rng, shape, dtype):
    return pair(rand_np(rng, shape, dtype, low=-1.0, high=1.0), dtype, requires_grad=True)


def bool_mask(rng, shape):
    """A random bool mask (True = masked) that leaves key 0 free for every
    query, so no row is all masked."""
    a = rng.random(shape) < 0.4
    a[..., 0] = False
    return a


def mask_pair(a, dtype):
    if a.dtype == np.bool_:
        return Dl.from_numpy(a.copy()), torch.from_numpy(a.copy())
    return pair(a.astype(np.float32 if dtype == 'float32' else np.float64), dtype)


def run(rng, m, tm, L, S, N, E, kdim=None, vdim=None, dtype='float32', mode='self',
        batch_first=False, need_weights=True, average=True, masks=(None, None),
        non_contiguous=False):
    tol = TOL64 if dtype == 'float64' else TOL

    def shape(n_seq, feat):
        if N is None:
            return (n_seq, feat)
        return (N, n_seq, feat) if batch_first else (n_seq, N, feat)

    if non_contiguous:
        # the transpose of a contiguous tensor
        base = shape(L, E)
        a = rand_np(rng, base[::-1], dtype, low=-1.0, high=1.0)
        x0, tx0 = pair(a, dtype)
        perm = tuple(range(len(base)))[::-1]
        q = x0.permute(*perm).requires_grad_()
        tq = tx0.permute(*perm).requires_grad_()
        assert not q.is_contiguous()
    else:
        q, tq = pair_in(rng, shape(L, E), dtype)
    if mode == 'self':
        k, tk, v, tv = q, tq, q, tq
    elif mode == 'kv':
        k, tk = pair_in(rng, shape(S, kdim or E), dtype)
        v, tv = k, tk
    else:
        k, tk = pair_in(rng, shape(S, kdim or E), dtype)
        v, tv = pair_in(rng, shape(S, vdim or E), dtype)
    am, kpm = masks
    kw, tkw = {}, {}
    if am is not None:
        kw['attn_mask'], tkw['attn_mask'] = mask_pair(am, dtype)
    if kpm is not None:
        kw['key_padding_mask'], tkw['key_padding_mask'] = mask_pair(kpm, dtype)
    out, w = m(q, k, v, need_weights=need_weights, average_attn_weights=average, **kw)
    tout, tw = tm(tq, tk, tv, need_weights=need_weights, average_attn_weights=average, **tkw)
    assert_same(out, tout, **tol)
    if need_weights:
        assert_same(w, tw, **tol)
    else:
        assert w is None and tw is None
    g = rand_np(rng, tuple(tout.shape), dtype)
    loss = (out * pair(g, dtype)[0]).sum()
    tloss = (tout * pair(g, dtype)[1]).sum()
    if need_weights:
        gw = rand_np(rng, tuple(tw.shape), dtype)
        loss = loss + (w * pair(gw, dtype)[0]).sum()
        tloss = tloss + (tw * pair(gw, dtype)[1]).sum()
    loss.backward()
    tloss.backward()
    gtol = {'rtol': 1e-3, 'atol': 1e-4} if dtype == 'float32' else TOL64
    assert_same(q.grad, tq.grad, **gtol)
    if mode != 'self':
        assert_same(k.grad, tk.grad, **gtol)
        if mode == 'sep':
            assert_same(v.grad, tv.grad, **gtol)
    tparams = dict(tm.named_parameters())
    for name, p in m.named_parameters():
        assert_same(p.grad, tparams[name].grad, msg=name + ': ', **gtol)


@pytest.mark.parametrize('N', [1, 3, None])
@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('need_weights, average', [(True, True), (True, False), (False, True)])
def test_self_attention(rng, N, batch_first, need_weights, average):
    m, tm = make(embed_dim=8, num_heads=2, batch_first=batch_first)
    run(rng, m, tm, 5, 5, N, 8, batch_first=batch_first, need_weights=need_weights,
        average=average)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('mode', ['kv', 'sep'])
def test_cross_attention(rng, dtype, mode):
    m, tm = make(dtype, embed_dim=12, num_heads=3)
    run(rng, m, tm, 4, 7, 3, 12, dtype=dtype, mode=mode)
    run(rng, m, tm, 4, 7, 3, 12, dtype=dtype, mode=mode, need_weights=False)


@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('N', [2, None])
def test_kdim_vdim(rng, batch_first, N):
    m, tm = make(embed_dim=8, num_heads=4, kdim=6, vdim=5, batch_first=batch_first)
    assert m.in_proj_weight is None and tm.in_proj_weight is None
    assert not m._qkv_same_embed_dim
    assert (m.kdim, m.vdim, m.head_dim) == (6, 5, 2)
    run(rng, m, tm, 3, 4, N, 8, kdim=6, vdim=5, mode='sep', batch_first=batch_first)
    run(rng, m, tm, 3, 4, N, 8, kdim=6, vdim=5, mode='sep', batch_first=batch_first,
        need_weights=False)


@pytest.mark.parametrize('kv, zero', [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize('with_masks', [False, True])
@pytest.mark.parametrize('need_weights', [True, False])
def test_bias_kv_zero_attn(rng, kv, zero, with_masks, need_weights):
    m, tm = make(embed_dim=8, num_heads=2, add_bias_kv=kv, add_zero_attn=zero)
    if kv:
        assert tuple(m.bias_k.shape) == (1, 1, 8)
    else:
        assert m.bias_k is None and m.bias_v is None
    masks = (bool_mask(rng, (4, 6)), bool_mask(rng, (3, 6))) if with_masks else (None, None)
    run(rng, m, tm, 4, 6, 3, 8, mode='kv', masks=masks, need_weights=need_weights)


def test_no_bias(rng):
    m, tm = make(embed_dim=6, num_heads=3, bias=False)
    assert m.in_proj_bias is None and m.out_proj.bias is None
    run(rng, m, tm, 4, 4, 2, 6)


def float_mask(rng, shape, dtype):
    a = rand_np(rng, shape, dtype, low=-2.0, high=2.0)
    a[rng.random(shape) < 0.3] = -np.inf
    a[..., 0] = 0.0
    return a


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('kind', ['bool2', 'float2', 'bool3', 'float3', 'kpm_bool', 'kpm_float',
                                  'bool2+kpm_bool', 'float3+kpm_bool', 'bool3+kpm_float',
                                  'float2+kpm_bool'])
@pytest.mark.parametrize('need_weights', [True, False])
def test_masks(rng, dtype, kind, need_weights):
    L, S, N, H = 4, 5, 3, 2
    m, tm = make(dtype, embed_dim=8, num_heads=H)
    am = kpm = None
    for part in kind.split('+'):
        if part == 'bool2':
            am = bool_mask(rng, (L, S))
        elif part == 'float2':
            am = float_mask(rng, (L, S), dtype)
        elif part == 'bool3':
            am = bool_mask(rng, (N * H, L, S))
        elif part == 'float3':
            am = float_mask(rng, (N * H, L, S), dtype)
        elif part == 'kpm_bool':
            kpm = bool_mask(rng, (N, S))
        else:
            kpm = float_mask(rng, (N, S), dtype)
    run(rng, m, tm, L, S, N, 8, dtype=dtype, mode='kv', masks=(am, kpm),
        need_weights=need_weights)


@pytest.mark.parametrize('kind', ['bool2', 'bool3', 'kpm'])
def test_masks_unbatched(rng, kind):
    L, S, H = 3, 4, 2
    m, tm = make(embed_dim=4, num_heads=H)
    masks = {'bool2': (bool_mask(rng, (L, S)), None),
             'bool3': (bool_mask(rng, (H, L, S)), None),
             'kpm': (None, bool_mask(rng, (S,)))}[kind]
    run(rng, m, tm, L, S, None, 4, mode='kv', masks=masks)


def test_non_contiguous_input(rng):
    m, tm = make(embed_dim=8, num_heads=2)
    run(rng, m, tm, 5, 5, 3, 8, non_contiguous=True)
    m, tm = make(embed_dim=8, num_heads=2, batch_first=True)
    run(rng, m, tm, 5, 5, 3, 8, batch_first=True, non_contiguous=True, need_weights=False)


def test_train_mode_dropout_zero_and_eval_with_dropout(rng):
    m, tm = make(embed_dim=8, num_heads=2, dropout=0.0)
    m.train(), tm.train()
    run(rng, m, tm, 4, 4, 2, 8)
    # dropout does nothing in eval mode
    m, tm = make(embed_dim=8, num_heads=2, dropout=0.5)
    m.eval(), tm.eval()
    run(rng, m, tm, 4, 4, 2, 8)
    run(rng, m, tm, 4, 4, 2, 8, need_weights=False)


def test_dropout_in_training(rng):
    # the random stream is libdl's own: check what dropout must give
    m = Dl.nn.MultiheadAttention(8, 2, dropout=0.5)
    m.train()
    x = Dl.from_numpy(rand_np(rng, (6, 2, 8), 'float32'))
    _, w = m(x, x, x, average_attn_weights=False)
    w = w.detach().numpy()
    zeros = (w == 0).mean()
    assert 0.2 < zeros < 0.8
    # the kept weights are scaled by 1 / (1 - p): each row sums to ~2 x kept share
    m.eval()
    _, w2 = m(x, x, x, average_attn_weights=False)
    np.testing.assert_allclose(w2.detach().numpy().sum(-1), 1.0, rtol=1e-5)


def test_byte_masks_warn_and_act_as_bool(rng):
    m, tm = make(embed_dim=8, num_heads=2)
    am = bool_mask(rng, (4, 4))
    kpm = bool_mask(rng, (2, 4))
    x, tx = pair(rand_np(rng, (4, 2, 8), 'float32'), 'float32')
    with pytest.warns(UserWarning, match='Byte tensor for attn_mask'):
        out, w = m(x, x, x, attn_mask=Dl.from_numpy(am.astype(np.uint8)),
                   key_padding_mask=Dl.from_numpy(kpm.copy()))
    tout, tw = tm(tx, tx, tx, attn_mask=torch.from_numpy(am.copy()),
                  key_padding_mask=torch.from_numpy(kpm.copy()))
    assert_same(out, tout, **TOL)
    assert_same(w, tw, **TOL)


def test_fused_dropout_in_training(rng):
    m = Dl.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = Dl.from_numpy(rand_np(rng, (6, 2, 8), 'float32'))
    m.eval()
    ref = m(x, x, x, need_weights=False)[0].detach().numpy()
    m.train()
    out = m(x, x, x, need_weights=False)[0].detach().numpy()
    assert np.isfinite(out).all() and not np.allclose(out, ref)


def test_float_masks_do_not_merge():
    # torch 1.13 merges a float key_padding_mask into a float attn_mask with
    # masked_fill, which reads the float mask's bytes as bools (garbage);
    # libdl refuses the pair
    if Dl is torch:
        pytest.skip('torch 1.13 reads the float mask as bytes')
    m = Dl.nn.MultiheadAttention(4, 2)
    x = Dl.zeros(3, 2, 4)
    with pytest.raises(RuntimeError, match='masked_fill_ only supports boolean masks'):
        m(x, x, x, attn_mask=Dl.zeros(3, 3), key_padding_mask=Dl.zeros(2, 3))


def test_is_causal_needs_mask():
    if Dl is torch:
        pytest.skip('is_causal is torch 2\'s keyword')
    m = Dl.nn.MultiheadAttention(8, 2)
    x = Dl.zeros(5, 3, 8)
    with pytest.raises(RuntimeError, match='Need attn_mask if specifying the is_causal hint'):
        m(x, x, x, is_causal=True)


def test_is_causal_hint(rng):
    L = 5
    m, tm = make(embed_dim=8, num_heads=2)
    causal = np.triu(np.ones((L, L), dtype=bool), 1)
    x, tx = pair(rand_np(rng, (L, 2, 8), 'float32'), 'float32')
    mask, tmask = mask_pair(causal, 'float32')
    # torch 2's keyword (python3-torch 1.13 has none)
    hint = {} if Dl is torch else {'is_causal': True}
    out, _ = m(x, x, x, attn_mask=mask, need_weights=False, **hint)
    tout, _ = tm(tx, tx, tx, attn_mask=tmask, need_weights=False)
    assert_same(out, tout, **TOL)


def test_functional_forward(rng):
    m, tm = make(embed_dim=8, num_heads=2, add_bias_kv=True)
    q, tq = pair_in(rng, (4, 3, 8), 'float32')
    k, tk = pair_in(rng, (6, 3, 8), 'float32')
    kpm = bool_mask(rng, (3, 6))
    args = lambda mod: (mod.embed_dim, mod.num_heads, mod.in_proj_weight, mod.in_proj_bias,
                        mod.bias_k, mod.bias_v, False, 0.0, mod.out_proj.weight,
                        mod.out_proj.bias)
    out, w = Dl.nn.functional.multi_head_attention_forward(
        q, k, k, *args(m), training=False, key_padding_mask=Dl.from_numpy(kpm.copy()))
    tout, tw = torch.nn.functional.multi_head_attention_forward(
        tq, tk, tk, *args(tm), training=False, key_padding_mask=torch.from_numpy(kpm.copy()))
    assert_same(out, tout, **TOL)
    assert_same(w, tw, **TOL)
    # separate projection weights and static keys and values
    m2, tm2 = make(embed_dim=8, num_heads=2, kdim=8, vdim=4)
    v, tv = pair_in(rng, (6, 3, 4), 'float32')
    sk, tsk = pair_in(rng, (6, 5, 4), 'float32')
    sv, tsv = pair_in(rng, (6, 5, 4), 'float32')
    kw = lambda mod: dict(use_separate_proj_weight=True, q_proj_weight=mod.q_proj_weight,
                          k_proj_weight=mod.k_proj_weight, v_proj_weight=mod.v_proj_weight)
    for st, tst in [((None, None), (None, None)), ((sk, sv), (tsk, tsv))]:
        out, w = Dl.nn.functional.multi_head_attention_forward(
            q, k, v, 8, 2, None, m2.in_proj_bias, None, None, True, 0.0, m2.out_proj.weight,
            m2.out_proj.bias, static_k=st[0], static_v=st[1], **kw(m2))
        tout, tw = torch.nn.functional.multi_head_attention_forward(
            tq, tk, tv, 8, 2, None, tm2.in_proj_bias, None, None, True, 0.0,
            tm2.out_proj.weight, tm2.out_proj.bias, static_k=tst[0], static_v=tst[1], **kw(tm2))
        assert_same(out, tout, **TOL)
        assert_same(w, tw, **TOL)


def test_default_init_and_attributes():
    m = Dl.nn.MultiheadAttention(16, 4, add_bias_kv=True, batch_first=True)
    tm = torch.nn.MultiheadAttention(16, 4, add_bias_kv=True, batch_first=True)
    for name in ('embed_dim', 'num_heads', 'dropout', 'batch_first', 'head_dim', 'kdim', 'vdim',
                 'add_zero_attn', '_qkv_same_embed_dim'):
        assert getattr(m, name) == getattr(tm, name), name
    assert repr(m) == repr(tm)
    w = m.in_proj_weight.detach().numpy()
    bound = math.sqrt(6.0 / (16 + 48))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.5 * bound
    assert (m.in_proj_bias.detach().numpy() == 0).all()
    assert (m.out_proj.bias.detach().numpy() == 0).all()
    assert m.bias_k.detach().numpy().std() > 0
    ob = m.out_proj.weight.detach().numpy()
    assert np.abs(ob).max() <= 1 / math.sqrt(16)
    m._reset_parameters()
    assert np.abs(m.in_proj_weight.detach().numpy()).max() <= bound


def test_pickle_and_deepcopy(rng):
    m, tm = make(embed_dim=8, num_heads=2, kdim=4, vdim=4, add_zero_attn=True)
    q = Dl.from_numpy(rand_np(rng, (3, 2, 8), 'float32'))
    k = Dl.from_numpy(rand_np(rng, (5, 2, 4), 'float32'))
    out, w = m(q, k, k)
    for m2 in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert type(m2) is type(m)
        out2, w2 = m2(q, k, k)
        np.testing.assert_array_equal(out2.detach().numpy(), out.detach().numpy())
        assert m2.add_zero_attn and m2.kdim == 4


def test_gradcheck():
    rng = np.random.default_rng(5)
    m = Dl.nn.MultiheadAttention(4, 2, add_bias_kv=True).double()
    q = Dl.from_numpy(rng.standard_normal((3, 2, 4))).requires_grad_()
    k = Dl.from_numpy(rng.standard_normal((4, 2, 4))).requires_grad_()
    kpm = Dl.from_numpy(np.array([[False, True, False, False], [False, False, False, True]]))
    assert Dl.autograd.gradcheck(
        lambda a, b: m(a, b, b, key_padding_mask=kpm, need_weights=False)[0], (q, k))
    assert Dl.autograd.gradcheck(
        lambda a, b: m(a, b, b, key_padding_mask=kpm, average_attn_weights=False)[1], (q, k))
    assert Dl.autograd.gradgradcheck(lambda a: m(a, a, a)[0], (q,))


def test_errors():
    with pytest.raises(AssertionError, match='embed_dim must be divisible by num_heads'):
        Dl.nn.MultiheadAttention(10, 3)
    m = Dl.nn.MultiheadAttention(8, 2)
    x = Dl.zeros(5, 3, 8)
    with pytest.raises(RuntimeError, match='The shape of the 2D attn_mask is'):
        m(x, x, x, attn_mask=Dl.zeros(5, 4))
    with pytest.raises(RuntimeError, match='The shape of the 3D attn_mask is'):
        m(x, x, x, attn_mask=Dl.zeros(3, 5, 5))
    with pytest.raises(AssertionError, match='Only float, byte, and bool types are supported'):
        m(x, x, x, attn_mask=Dl.zeros(5, 5, dtype=Dl.int64))
    with pytest.raises(AssertionError, match='only bool and floating types of key_padding_mask'):
        m(x, x, x, key_padding_mask=Dl.zeros(3, 5, dtype=Dl.int64))
    with pytest.raises(AssertionError, match='expecting key_padding_mask shape of'):
        m(x, x, x, key_padding_mask=Dl.zeros(3, 4, dtype=Dl.bool))
    with pytest.raises(AssertionError,
                       match='For batched \\(3-D\\) `query`, expected `key_padding'):
        m(x, x, x, key_padding_mask=Dl.zeros(3, dtype=Dl.bool))
    with pytest.raises(AssertionError, match='was expecting embedding dimension of 8, but got 6'):
        y = Dl.zeros(5, 3, 6)
        m(y, y, y)
    with pytest.raises(AssertionError, match='key shape .* does not match value shape'):
        m(x, x, Dl.zeros(4, 3, 8))
    with pytest.raises(AssertionError, match='query should be unbatched 2D or batched 3D'):
        z = Dl.zeros(1, 5, 3, 8)
        m(z, z, z)
    with pytest.raises(AssertionError, match='expected `key` and `value` to be 3-D'):
        m(x, Dl.zeros(5, 8), Dl.zeros(5, 8))
    with pytest.raises(AssertionError, match='Expected `attn_mask` shape to be'):
        u = Dl.zeros(5, 8)
        m(u, u, u, attn_mask=Dl.zeros(3, 5, 5))
    with pytest.raises(AssertionError):
        # a key of the wrong feature size for the separate projections
        m2 = Dl.nn.MultiheadAttention(8, 2, kdim=4, vdim=4)
        m2(x, Dl.zeros(5, 3, 6), Dl.zeros(5, 3, 4))
    with pytest.raises(RuntimeError):
        # and for the packed one (matmul's error in torch)
        m(x, Dl.zeros(5, 3, 6), Dl.zeros(5, 3, 6))
