# test_transformer.py: nn.TransformerEncoderLayer, TransformerEncoder,
# TransformerDecoderLayer, TransformerDecoder and Transformer (libdl's C
# classes) against PyTorch from the same weights: outputs, input and
# parameter gradients, in train mode with dropout 0 and in eval mode,
# norm_first both ways, relu/gelu/callable activations, masks, batch_first,
# unbatched inputs; state dicts, printing, pickling, errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import pickle

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np

TOL = {'rtol': 1e-4, 'atol': 1e-5}
GTOL = {'rtol': 1e-3, 'atol': 1e-4}


def load_from_torch(m, tm):
    sd = tm.state_dict()
    assert list(m.state_dict().keys()) == list(sd.keys())
    for k, v in m.state_dict().items():
        assert tuple(v.shape) == tuple(sd[k].shape), k
    m.load_state_dict({k: Dl.from_numpy(v.detach().numpy().copy()) for k, v in sd.items()})


def both(cls, *args, **kw):
    m, tm = getattr(Dl.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    load_from_torch(m, tm)
    return m, tm


def inputs(rng, shape):
    return pair(rand_np(rng, shape, 'float32', low=-1.0, high=1.0), 'float32',
                requires_grad=True)


def mask(rng, shape, kind):
    a = rng.random(shape) < 0.4
    a[..., 0] = False
    if kind == 'float':
        f = np.where(a, -np.inf, rng.uniform(-1, 1, shape)).astype(np.float32)
        return Dl.from_numpy(f.copy()), torch.from_numpy(f.copy())
    return Dl.from_numpy(a.copy()), torch.from_numpy(a.copy())


def check_grads(rng, out, tout, m, tm, pairs):
    g = rand_np(rng, tuple(tout.shape), 'float32')
    out.backward(pair(g)[0])
    tout.backward(pair(g)[1])
    for x, tx in pairs:
        assert_same(x.grad, tx.grad, **GTOL)
    tparams = dict(tm.named_parameters())
    names = [n for n, _ in m.named_parameters()]
    assert names == list(tparams)
    for name, p in m.named_parameters():
        assert_same(p.grad, tparams[name].grad, msg=name + ': ', **GTOL)


def seq_shape(L, N, E, batch_first):
    if N is None:
        return (L, E)
    return (N, L, E) if batch_first else (L, N, E)


ACTIVATIONS = ['relu', 'gelu', 'F.gelu', 'GELU()', 'silu']


def activation(name, lib):
    nn = lib.nn
    return {'relu': 'relu', 'gelu': 'gelu', 'F.gelu': nn.functional.gelu, 'GELU()': nn.GELU(),
            'silu': nn.functional.silu}[name]


@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('act', ACTIVATIONS)
@pytest.mark.parametrize('train', [True, False])
def test_encoder_layer(rng, norm_first, act, train):
    kw = dict(dim_feedforward=16, dropout=0.0 if train else 0.1, norm_first=norm_first)
    m = Dl.nn.TransformerEncoderLayer(8, 2, activation=activation(act, Dl), **kw)
    tm = torch.nn.TransformerEncoderLayer(8, 2, activation=activation(act, torch), **kw)
    load_from_torch(m, tm)
    m.train(train), tm.train(train)
    x, tx = inputs(rng, (5, 3, 8))
    out, tout = m(x), tm(tx)
    assert_same(out, tout, **TOL)
    check_grads(rng, out, tout, m, tm, [(x, tx)])


@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('N', [1, 3, None])
@pytest.mark.parametrize('masks', ['none', 'bool', 'float', 'kpm', 'bool+kpm'])
def test_encoder_layer_masks(rng, batch_first, N, masks):
    m, tm = both('TransformerEncoderLayer', 8, 2, 16, dropout=0.0, batch_first=batch_first)
    L = 5
    x, tx = inputs(rng, seq_shape(L, N, 8, batch_first))
    kw, tkw = {}, {}
    if 'bool' in masks or 'float' in masks:
        kw['src_mask'], tkw['src_mask'] = mask(rng, (L, L), masks.split('+')[0])
    if 'kpm' in masks:
        kw['src_key_padding_mask'], tkw['src_key_padding_mask'] = mask(
            rng, (L,) if N is None else (N, L), 'bool')
    out, tout = m(x, **kw), tm(tx, **tkw)
    assert_same(out, tout, **TOL)
    check_grads(rng, out, tout, m, tm, [(x, tx)])


@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('act', ['relu', 'gelu', 'silu'])
@pytest.mark.parametrize('train', [True, False])
def test_decoder_layer(rng, norm_first, act, train):
    kw = dict(dim_feedforward=16, dropout=0.0 if train else 0.1, norm_first=norm_first)
    m = Dl.nn.TransformerDecoderLayer(8, 2, activation=activation(act, Dl), **kw)
    tm = torch.nn.TransformerDecoderLayer(8, 2, activation=activation(act, torch), **kw)
    load_from_torch(m, tm)
    m.train(train), tm.train(train)
    t, tt = inputs(rng, (4, 2, 8))
    mem, tmem = inputs(rng, (6, 2, 8))
    tgt_mask, ttgt_mask = mask(rng, (4, 4), 'bool')
    mkpm, tmkpm = mask(rng, (2, 6), 'bool')
    out = m(t, mem, tgt_mask=tgt_mask, memory_key_padding_mask=mkpm)
    tout = tm(tt, tmem, tgt_mask=ttgt_mask, memory_key_padding_mask=tmkpm)
    assert_same(out, tout, **TOL)
    check_grads(rng, out, tout, m, tm, [(t, tt), (mem, tmem)])


@pytest.mark.parametrize('batch_first', [False, True])
def test_encoder_with_norm_and_mask(rng, batch_first):
    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first)
        return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8))
    m, tm = make(Dl), make(torch)
    assert m.num_layers == 2 and len(m.layers) == 2
    # the copies start equal, as torch's deepcopies
    np.testing.assert_array_equal(m.layers[0].linear1.weight.detach().numpy(),
                                  m.layers[1].linear1.weight.detach().numpy())
    load_from_torch(m, tm)
    x, tx = inputs(rng, seq_shape(5, 3, 8, batch_first))
    sm = Dl.nn.Transformer.generate_square_subsequent_mask(5)
    tsm = torch.nn.Transformer.generate_square_subsequent_mask(5)
    kpm, tkpm = mask(rng, (3, 5), 'bool')
    out = m(x, mask=sm, src_key_padding_mask=kpm)
    tout = tm(tx, mask=tsm, src_key_padding_mask=tkpm)
    assert_same(out, tout, **TOL)
    check_grads(rng, out, tout, m, tm, [(x, tx)])


def test_decoder_stack(rng):
    def make(lib):
        return lib.nn.TransformerDecoder(
            lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2, norm=lib.nn.LayerNorm(8))
    m, tm = make(Dl), make(torch)
    load_from_torch(m, tm)
    t, tt = inputs(rng, (4, 3, 8))
    mem, tmem = inputs(rng, (5, 3, 8))
    mm, tmm = mask(rng, (4, 5), 'float')
    out = m(t, mem, memory_mask=mm)
    tout = tm(tt, tmem, memory_mask=tmm)
    assert_same(out, tout, **TOL)
    check_grads(rng, out, tout, m, tm, [(t, tt), (mem, tmem)])


@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('norm_first', [False, True])
def test_transformer_end_to_end(rng, batch_first, norm_first):
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
              dropout=0.0, batch_first=batch_first, norm_first=norm_first)
    m, tm = both('Transformer', **kw)
    src, tsrc = inputs(rng, seq_shape(6, 2, 8, batch_first))
    tgt, ttgt = inputs(rng, seq_shape(4, 2, 8, batch_first))
    tgt_mask = Dl.nn.Transformer.generate_square_subsequent_mask(4)
    ttgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    skpm, tskpm = mask(rng, (2, 6), 'bool')
    out = m(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=skpm,
            memory_key_padding_mask=skpm)
    tout = tm(tsrc, ttgt, tgt_mask=ttgt_mask, src_key_padding_mask=tskpm,
              memory_key_padding_mask=tskpm)
    assert_same(out, tout, **TOL)
    check_grads(rng, out, tout, m, tm, [(src, tsrc), (tgt, ttgt)])


def test_transformer_defaults_and_init():
    m, tm = Dl.nn.Transformer(), torch.nn.Transformer()
    assert (m.d_model, m.nhead, m.batch_first) == (tm.d_model, tm.nhead, tm.batch_first)
    sd, tsd = m.state_dict(), tm.state_dict()
    assert list(sd.keys()) == list(tsd.keys())
    for k in sd:
        assert tuple(sd[k].shape) == tuple(tsd[k].shape)
    # _reset_parameters: xavier_uniform_ on every matrix
    w = m.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6.0 / (512 + 2048))
    assert np.abs(w).max() <= bound * (1 + 1e-6) and np.abs(w).max() > 0.9 * bound
    assert repr(m) == repr(tm)
    # the layers libdl made have torch's attributes too
    for layer, tlayer in zip(m.encoder.layers, tm.encoder.layers):
        assert layer.activation is Dl.nn.functional.relu
        assert layer.activation_relu_or_gelu == tlayer.activation_relu_or_gelu == 1
        assert layer.norm_first == tlayer.norm_first
    assert m.encoder.num_layers == tm.encoder.num_layers == 6
    assert m.encoder.enable_nested_tensor == tm.encoder.enable_nested_tensor


def test_transformer_custom_and_callable(rng):
    def make(lib):
        enc = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, 0.0), 1)
        return lib.nn.Transformer(8, 2, num_decoder_layers=1, dim_feedforward=16, dropout=0.0,
                                  custom_encoder=enc, activation=lib.nn.functional.silu)
    m, tm = make(Dl), make(torch)
    load_from_torch(m, tm)
    src, tsrc = inputs(rng, (5, 2, 8))
    tgt, ttgt = inputs(rng, (3, 2, 8))
    out, tout = m(src, tgt), tm(tsrc, ttgt)
    assert_same(out, tout, **TOL)
    check_grads(rng, out, tout, m, tm, [(src, tsrc), (tgt, ttgt)])


def test_is_causal_hint(rng):
    # torch 2's keywords (python3-torch 1.13 has none): the hint with the
    # causal mask gives what the mask alone gives
    hint = {} if Dl is torch else {'is_causal': True}
    m, tm = both('TransformerEncoderLayer', 8, 2, 16, dropout=0.0)
    x, tx = inputs(rng, (5, 2, 8))
    out = m(x, src_mask=Dl.nn.Transformer.generate_square_subsequent_mask(5), **hint)
    tout = tm(tx, src_mask=torch.nn.Transformer.generate_square_subsequent_mask(5))
    assert_same(out, tout, **TOL)
    check_grads(rng, out, tout, m, tm, [(x, tx)])


def test_generate_square_subsequent_mask():
    for sz in (0, 1, 5):
        assert_same(Dl.nn.Transformer.generate_square_subsequent_mask(sz),
                    torch.nn.Transformer.generate_square_subsequent_mask(sz))


def test_attributes_and_printing():
    m = Dl.nn.TransformerEncoderLayer(8, 2, 16, activation='gelu', batch_first=True)
    tm = torch.nn.TransformerEncoderLayer(8, 2, 16, activation='gelu', batch_first=True)
    assert repr(m) == repr(tm)
    assert m.norm_first == tm.norm_first and m.self_attn.batch_first is True
    assert m.activation_relu_or_gelu == tm.activation_relu_or_gelu == 2
    assert m.activation is Dl.nn.functional.gelu
    assert isinstance(m.dropout, Dl.nn.Dropout) and isinstance(m.self_attn,
                                                              Dl.nn.MultiheadAttention)
    m = Dl.nn.TransformerDecoderLayer(8, 2, 16, activation=Dl.nn.GELU())
    tm = torch.nn.TransformerDecoderLayer(8, 2, 16, activation=torch.nn.GELU())
    assert repr(m) == repr(tm)
    assert [n for n, _ in m.named_modules()] == [n for n, _ in tm.named_modules()]
    e = Dl.nn.TransformerEncoder(Dl.nn.TransformerEncoderLayer(8, 2, 16), 2)
    te = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16), 2)
    assert repr(e) == repr(te)
    assert e.norm is None


def test_pickle_and_deepcopy(rng):
    m = Dl.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    src = Dl.from_numpy(rand_np(rng, (5, 2, 8), 'float32'))
    tgt = Dl.from_numpy(rand_np(rng, (3, 2, 8), 'float32'))
    out = m(src, tgt).detach().numpy()
    for m2 in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        np.testing.assert_array_equal(m2(src, tgt).detach().numpy(), out)
    layer = Dl.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=Dl.nn.functional.silu)
    out = layer(src).detach().numpy()
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(layer))(src).detach().numpy(), out)


def test_gradcheck():
    rng = np.random.default_rng(3)
    layer = Dl.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, norm_first=True).double()
    x = Dl.from_numpy(rng.standard_normal((3, 2, 4))).requires_grad_()
    kpm = Dl.from_numpy(np.array([[False, False, True], [False, False, False]]))
    assert Dl.autograd.gradcheck(lambda a: layer(a, src_key_padding_mask=kpm), (x,))
    dec = Dl.nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, activation='gelu').double()
    mem = Dl.from_numpy(rng.standard_normal((5, 2, 4))).requires_grad_()
    assert Dl.autograd.gradcheck(lambda a, b: dec(a, b), (x, mem))


def test_errors():
    with pytest.raises(AssertionError, match='embed_dim must be divisible by num_heads'):
        Dl.nn.TransformerEncoderLayer(10, 3)
    layer = Dl.nn.TransformerEncoderLayer(8, 2, 16)
    with pytest.raises(AssertionError, match='was expecting embedding dimension of 8'):
        layer(Dl.zeros(5, 3, 6))
    with pytest.raises(RuntimeError, match='The shape of the 2D attn_mask is'):
        layer(Dl.zeros(5, 3, 8), src_mask=Dl.zeros(4, 4))
    with pytest.raises(AssertionError, match='only bool and floating types of key_padding_mask'):
        layer(Dl.zeros(5, 3, 8), src_key_padding_mask=Dl.zeros(3, 5, dtype=Dl.int64))
    m = Dl.nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match='the batch number of src and tgt must be equal'):
        m(Dl.zeros(5, 3, 8), Dl.zeros(4, 2, 8))
    with pytest.raises(RuntimeError, match='the feature number of src and tgt must be equal'):
        m(Dl.zeros(5, 3, 8), Dl.zeros(4, 3, 6))
    with pytest.raises(RuntimeError, match='activation should be relu/gelu, not tanh'):
        Dl.nn.TransformerEncoderLayer(8, 2, activation='tanh')
