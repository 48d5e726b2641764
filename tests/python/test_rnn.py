# test_rnn.py: nn.RNN, LSTM, GRU and their cells against PyTorch from the
# same weights: outputs, final states, input, state and parameter
# gradients; packed sequences, unbatched input, gradcheck and
# gradgradcheck, dropout, bad input, state dicts and initialisation.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import pickle

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, to_np

TOL = {'float32': dict(rtol=1e-4, atol=2e-5), 'float64': dict(rtol=1e-9, atol=1e-11)}
TDT = {'float32': torch.float32, 'float64': torch.float64}
LAYERS = {'LSTM': (torch.nn.LSTM, lambda: Dl.nn.LSTM), 'GRU': (torch.nn.GRU, lambda: Dl.nn.GRU),
          'RNN_TANH': (torch.nn.RNN, lambda: Dl.nn.RNN),
          'RNN_RELU': (torch.nn.RNN, lambda: Dl.nn.RNN)}


def make_pair(mode, dtype, *args, **kwargs):
    """(libdl layer, torch layer) with torch's weights copied into libdl's."""
    tcls, dcls = LAYERS[mode]
    if mode == 'RNN_RELU':
        kwargs['nonlinearity'] = 'relu'
    t = tcls(*args, **kwargs).to(TDT[dtype])
    d = dcls()(*args, **kwargs).to(getattr(Dl, dtype))
    d.load_state_dict({k: Dl.from_numpy(v.detach().numpy().copy())
                       for k, v in t.state_dict().items()})
    return d, t


def tensors(rng, shape, dtype, grad=True):
    a = rng.standard_normal(shape).astype(dtype)
    d, t = Dl.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad:
        d.requires_grad_(True)
        t.requires_grad_(True)
    return d, t


def flat(out):
    """the tensors of (output, h_n) or (output, (h_n, c_n))"""
    o, h = out
    if isinstance(o, tuple) and hasattr(o, 'batch_sizes'):
        o = o.data
    return [o] + (list(h) if isinstance(h, tuple) else [h])


def compare_run(rng, d, t, dx, tx, dh, th, dtype):
    """forward with the given states, then backward of a random projection
    of every output; compares values and all gradients"""
    dout = d(dx, dh) if dh is not None else d(dx)
    tout = t(tx, th) if th is not None else t(tx)
    douts, touts = flat(dout), flat(tout)
    for a, b in zip(douts, touts):
        assert_same(a, b, **TOL[dtype])
    loss_d, loss_t = 0, 0
    for a, b in zip(douts, touts):
        w = rng.standard_normal(tuple(b.shape)).astype(dtype)
        loss_d = loss_d + (a * Dl.from_numpy(w.copy())).sum()
        loss_t = loss_t + (b * torch.from_numpy(w.copy())).sum()
    loss_d.backward()
    loss_t.backward()
    for (name, p), (tname, tp) in zip(d.named_parameters(), t.named_parameters()):
        assert name == tname
        assert_same(p.grad, tp.grad, msg=name + ': ', **TOL[dtype])
    return douts, touts


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('mode', ['LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU'])
@pytest.mark.parametrize('layers,bidirectional', [(1, False), (2, False), (1, True), (2, True)])
@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('states', [False, True])
def test_layer_matches_torch(rng, dtype, mode, layers, bidirectional, batch_first, states):
    d, t = make_pair(mode, dtype, 5, 6, layers, batch_first=batch_first,
                     bidirectional=bidirectional)
    seq, batch = 4, 3 if states else 1
    shape = (batch, seq, 5) if batch_first else (seq, batch, 5)
    dx, tx = tensors(rng, shape, dtype)
    dh = th = None
    if states:
        nd = layers * (2 if bidirectional else 1)
        h = tensors(rng, (nd, batch, 6), dtype)
        if mode == 'LSTM':
            c = tensors(rng, (nd, batch, 6), dtype)
            dh, th = (h[0], c[0]), (h[1], c[1])
        else:
            dh, th = h
    compare_run(rng, d, t, dx, tx, dh, th, dtype)
    assert_same(dx.grad, tx.grad, **TOL[dtype])
    if states:
        for a, b in zip(dh if isinstance(dh, tuple) else [dh], th if isinstance(th, tuple) else [th]):
            assert_same(a.grad, b.grad, **TOL[dtype])


@pytest.mark.parametrize('bidirectional', [False, True])
@pytest.mark.parametrize('layers', [1, 2])
def test_lstm_proj_size(rng, bidirectional, layers):
    d, t = make_pair('LSTM', 'float64', 4, 7, layers, bidirectional=bidirectional, proj_size=3)
    nd = layers * (2 if bidirectional else 1)
    dx, tx = tensors(rng, (5, 2, 4), 'float64')
    h, c = tensors(rng, (nd, 2, 3), 'float64'), tensors(rng, (nd, 2, 7), 'float64')
    compare_run(rng, d, t, dx, tx, (h[0], c[0]), (h[1], c[1]), 'float64')
    assert_same(dx.grad, tx.grad, **TOL['float64'])
    assert_same(h[0].grad, h[1].grad, **TOL['float64'])
    assert_same(c[0].grad, c[1].grad, **TOL['float64'])
    assert [k for k in d.state_dict()] == [k for k in t.state_dict()]


def test_non_contiguous_input(rng):
    """a transposed input and initial state, forward and backward"""
    d, t = make_pair('GRU', 'float32', 5, 4, 1)
    a = rng.standard_normal((5, 6, 3)).astype(np.float32)
    h = rng.standard_normal((4, 6, 1)).astype(np.float32)
    dx = Dl.from_numpy(a.copy()).requires_grad_(True)
    tx = torch.from_numpy(a.copy()).requires_grad_(True)
    dh = Dl.from_numpy(h.copy()).requires_grad_(True)
    th = torch.from_numpy(h.copy()).requires_grad_(True)
    dxt, dht = dx.transpose(0, 2), dh.transpose(0, 2)
    assert not dxt.is_contiguous() and not dht.is_contiguous()
    compare_run(rng, d, t, dxt, tx.transpose(0, 2), dht, th.transpose(0, 2), 'float32')
    assert_same(dx.grad, tx.grad, **TOL['float32'])
    assert_same(dh.grad, th.grad, **TOL['float32'])


def packed_pair(rng, lengths, enforce_sorted, dtype, size=3):
    seqs = [rng.standard_normal((n, size)).astype(dtype) for n in lengths]
    padded = np.zeros((max(lengths), len(lengths), size), dtype)
    for i, s in enumerate(seqs):
        padded[:len(s), i] = s
    tp = torch.from_numpy(padded.copy()).requires_grad_(True)
    tpk = torch.nn.utils.rnn.pack_padded_sequence(tp, torch.tensor(lengths),
                                                  enforce_sorted=enforce_sorted)
    data = Dl.from_numpy(tpk.data.detach().numpy().copy()).requires_grad_(True)
    idx = [None if i is None else Dl.from_numpy(i.numpy().copy())
           for i in (tpk.sorted_indices, tpk.unsorted_indices)]
    dpk = Dl.nn.utils.rnn.PackedSequence(data, Dl.from_numpy(tpk.batch_sizes.numpy().copy()),
                                         idx[0], idx[1])
    return dpk, tpk, data, tp


@pytest.mark.parametrize('mode', ['LSTM', 'GRU', 'RNN_TANH'])
@pytest.mark.parametrize('bidirectional', [False, True])
@pytest.mark.parametrize('enforce_sorted', [True, False])
def test_packed_sequences(rng, mode, bidirectional, enforce_sorted):
    lengths = [5, 3, 3, 1] if enforce_sorted else [2, 5, 1, 4]
    d, t = make_pair(mode, 'float64', 3, 4, 2, bidirectional=bidirectional)
    dpk, tpk, data, tp = packed_pair(rng, lengths, enforce_sorted, 'float64')
    nd = 2 * (2 if bidirectional else 1)
    h = tensors(rng, (nd, 4, 4), 'float64')
    if mode == 'LSTM':
        c = tensors(rng, (nd, 4, 4), 'float64')
        dh, th = (h[0], c[0]), (h[1], c[1])
    else:
        dh, th = h
    dout, tout = d(dpk, dh), t(tpk, th)
    assert isinstance(dout[0], Dl.nn.utils.rnn.PackedSequence)
    assert_same(dout[0].batch_sizes, tout[0].batch_sizes)
    douts, touts = compare_run(rng, d, t, dpk, tpk, dh, th, 'float64')
    # the data's gradient, through torch's packing
    tgrad = torch.nn.utils.rnn.pack_padded_sequence(tp.grad, torch.tensor(lengths),
                                                    enforce_sorted=enforce_sorted).data
    np.testing.assert_allclose(to_np(data.grad), tgrad.numpy(), rtol=1e-9, atol=1e-11)
    assert_same(h[0].grad, h[1].grad, **TOL['float64'])


@pytest.mark.parametrize('mode', ['LSTM', 'GRU', 'RNN_TANH'])
@pytest.mark.parametrize('batch_first', [False, True])
def test_unbatched(rng, mode, batch_first):
    d, t = make_pair(mode, 'float64', 3, 4, 2, batch_first=batch_first)
    dx, tx = tensors(rng, (6, 3), 'float64')
    h = tensors(rng, (2, 4), 'float64')
    if mode == 'LSTM':
        c = tensors(rng, (2, 4), 'float64')
        dh, th = (h[0], c[0]), (h[1], c[1])
    else:
        dh, th = h
    douts, touts = compare_run(rng, d, t, dx, tx, dh, th, 'float64')
    assert tuple(douts[0].shape) == (6, 4)
    assert_same(dx.grad, tx.grad, **TOL['float64'])


@pytest.mark.parametrize('mode', ['LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU'])
@pytest.mark.parametrize('bidirectional', [False, True])
def test_gradcheck_and_gradgradcheck(rng, mode, bidirectional):
    d, _ = make_pair(mode, 'float64', 2, 3, 1, bidirectional=bidirectional)
    x = Dl.from_numpy(rng.standard_normal((3, 2, 2))).requires_grad_(True)
    nd = 2 if bidirectional else 1
    h = Dl.from_numpy(rng.standard_normal((nd, 2, 3))).requires_grad_(True)
    c = Dl.from_numpy(rng.standard_normal((nd, 2, 3))).requires_grad_(True)
    params = list(d.parameters())

    def fn(x, h, c, *ps):
        out = d(x, (h, c) if mode == 'LSTM' else h)
        return tuple(flat(out))

    inputs = (x, h, c) + tuple(params)
    assert Dl.autograd.gradcheck(fn, inputs)
    assert Dl.autograd.gradgradcheck(fn, inputs)


def test_packed_gradcheck(rng):
    d, _ = make_pair('LSTM', 'float64', 2, 3, 1, bidirectional=True)
    dpk, _, data, _ = packed_pair(rng, [3, 2, 1], True, 'float64', size=2)

    def fn(data):
        pk = Dl.nn.utils.rnn.PackedSequence(data, dpk.batch_sizes)
        out = d(pk)
        return (out[0].data,) + tuple(out[1])

    assert Dl.autograd.gradcheck(fn, (data,))
    assert Dl.autograd.gradgradcheck(fn, (data,))


@pytest.mark.parametrize('mode', ['LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU'])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('batch', [1, 3])
def test_cells(rng, mode, dtype, batch):
    tcls = {'LSTM': torch.nn.LSTMCell, 'GRU': torch.nn.GRUCell}.get(mode, torch.nn.RNNCell)
    dcls = {'LSTM': Dl.nn.LSTMCell, 'GRU': Dl.nn.GRUCell}.get(mode, Dl.nn.RNNCell)
    kw = {'nonlinearity': 'relu'} if mode == 'RNN_RELU' else {}
    t = tcls(5, 4, **kw).to(TDT[dtype])
    d = dcls(5, 4, **kw).to(getattr(Dl, dtype))
    d.load_state_dict({k: Dl.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})
    dx, tx = tensors(rng, (batch, 5), dtype)
    h = tensors(rng, (batch, 4), dtype)
    if mode == 'LSTM':
        c = tensors(rng, (batch, 4), dtype)
        dh, th = (h[0], c[0]), (h[1], c[1])
    else:
        dh, th = h
    douts = d(dx, dh)
    touts = t(tx, th)
    douts = list(douts) if isinstance(douts, tuple) else [douts]
    touts = list(touts) if isinstance(touts, tuple) else [touts]
    for a, b in zip(douts, touts):
        assert_same(a, b, **TOL[dtype])
    sum(o.sum() * (i + 1) for i, o in enumerate(douts)).backward()
    sum(o.sum() * (i + 1) for i, o in enumerate(touts)).backward()
    assert_same(dx.grad, tx.grad, **TOL[dtype])
    assert_same(h[0].grad, h[1].grad, **TOL[dtype])
    for (n, p), (_, q) in zip(d.named_parameters(), t.named_parameters()):
        assert_same(p.grad, q.grad, msg=n + ': ', **TOL[dtype])
    # unbatched, and without states
    one = d(dx[0].detach())
    tone = t(tx[0].detach())
    for a, b in zip(one if isinstance(one, tuple) else [one],
                    tone if isinstance(tone, tuple) else [tone]):
        assert_same(a, b, **TOL[dtype])


def test_dropout_between_layers():
    Dl.manual_seed(0)
    m = Dl.nn.LSTM(4, 50, 2, dropout=0.5)
    x = Dl.randn(3, 2, 4)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert_same(a, b)
    m.train()
    c, e = m(x)[0], m(x)[0]
    # train mode draws a new mask each call; eval mode is deterministic
    assert not np.allclose(to_np(c), to_np(e))
    # with dropout 0 train and eval agree
    m0 = Dl.nn.GRU(4, 8, 2, dropout=0.0)
    m0.train()
    r1 = m0(x)[0]
    m0.eval()
    assert_same(r1, m0(x)[0])


def test_dropout_statistics():
    """one layer's output, dropped with p = 0.3 before the second: the
    second layer's input has about 30 % zeros (seen through a second layer
    whose input weights are the identity and zero elsewhere)"""
    Dl.manual_seed(1)
    m = Dl.nn.RNN(6, 400, 2, nonlinearity='relu', dropout=0.3, bias=False)
    with Dl.no_grad():
        m.weight_ih_l0.copy_(Dl.ones(400, 6) * 0.5)
        m.weight_hh_l0.zero_()
        m.weight_ih_l1.copy_(Dl.eye(400))
        m.weight_hh_l1.zero_()
    x = Dl.ones(1, 8, 6)
    m.train()
    out = to_np(m(x)[0])
    zeros = (out == 0).mean()
    assert 0.25 < zeros < 0.35
    kept = out[out != 0]
    np.testing.assert_allclose(kept, 3.0 / 0.7, rtol=1e-5)


def test_state_dict_keys_and_init():
    for kw in [dict(), dict(num_layers=2, bidirectional=True), dict(bias=False),
               dict(proj_size=2, num_layers=2)]:
        t = torch.nn.LSTM(3, 5, **kw)
        d = Dl.nn.LSTM(3, 5, **kw)
        assert list(d.state_dict().keys()) == list(t.state_dict().keys())
        for (n, p), (_, q) in zip(d.named_parameters(), t.named_parameters()):
            assert tuple(p.shape) == tuple(q.shape), n
            v = to_np(p)
            assert np.abs(v).max() <= 1 / math.sqrt(5)
        assert d._flat_weights_names == t._flat_weights_names
        assert len(d.all_weights) == len(t.all_weights)
    big = Dl.nn.GRU(30, 100)
    v = to_np(big.weight_ih_l0)
    assert np.abs(v).max() <= 0.1 and np.abs(v).max() > 0.099
    assert abs(v.mean()) < 0.01
    # torch's weights load into libdl's layer and back
    t = torch.nn.GRU(3, 4, 2, bidirectional=True)
    d = Dl.nn.GRU(3, 4, 2, bidirectional=True)
    d.load_state_dict({k: Dl.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})
    t.load_state_dict({k: torch.from_numpy(to_np(v)) for k, v in d.state_dict().items()})


def test_attributes_repr_pickle():
    for args, kw in [((10, 20), {}), ((10, 20, 2), dict(batch_first=True, dropout=0.5)),
                     ((3, 4), dict(bidirectional=True, bias=False))]:
        for name in ('LSTM', 'GRU', 'RNN'):
            d = getattr(Dl.nn, name)(*args, **kw)
            t = getattr(torch.nn, name)(*args, **kw)
            assert repr(d) == repr(t)
            for a in ('input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first',
                      'dropout', 'bidirectional', 'proj_size', 'mode'):
                assert getattr(d, a) == getattr(t, a), a
            d.flatten_parameters()
    assert repr(Dl.nn.LSTM(3, 5, proj_size=2)) == repr(torch.nn.LSTM(3, 5, proj_size=2))
    assert repr(Dl.nn.LSTMCell(3, 5, bias=False)) == repr(torch.nn.LSTMCell(3, 5, bias=False))
    assert Dl.nn.RNN(3, 4, nonlinearity='relu').nonlinearity == 'relu'
    m = Dl.nn.LSTM(3, 4, 2)
    m2 = pickle.loads(pickle.dumps(m))
    x = Dl.randn(2, 1, 3)
    assert_same(m2(x)[0], m(x)[0])


def test_bad_input():
    m = Dl.nn.LSTM(10, 20)
    with pytest.raises(RuntimeError, match=r'input.size\(-1\) must be equal to input_size. '
                                           r'Expected 10, got 7'):
        m(Dl.randn(5, 3, 7))
    with pytest.raises(RuntimeError, match=r'Expected hidden\[1\] size \(1, 3, 20\), '
                                           r'got \[2, 3, 20\]'):
        m(Dl.randn(5, 3, 10), (Dl.randn(1, 3, 20), Dl.randn(2, 3, 20)))
    with pytest.raises(RuntimeError, match='hx and cx should also be 3-D'):
        m(Dl.randn(5, 3, 10), (Dl.randn(3, 20), Dl.randn(3, 20)))
    with pytest.raises(RuntimeError, match='input must have 3 dimensions'):
        m(Dl.randn(2, 5, 3, 10))
    with pytest.raises(RuntimeError, match='Expected sequence length to be larger than 0'):
        m(Dl.randn(0, 3, 10))
    g = Dl.nn.GRU(10, 20)
    with pytest.raises(RuntimeError, match=r'Expected hidden size \(1, 3, 20\), got \[2, 3, 20\]'):
        g(Dl.randn(5, 3, 10), Dl.randn(2, 3, 20))
    with pytest.raises(RuntimeError, match='hx should also be 2-D'):
        g(Dl.randn(5, 10), Dl.randn(1, 3, 20))
    with pytest.raises(RuntimeError):
        g(Dl.randn(5, 3, 10, dtype=Dl.float64))
    c = Dl.nn.GRUCell(10, 20)
    with pytest.raises(RuntimeError, match='input has inconsistent input_size: got 7 expected 10'):
        c(Dl.randn(3, 7))
    with pytest.raises(RuntimeError, match="Input batch size 3 doesn't match hidden0 batch size 2"):
        c(Dl.randn(3, 10), Dl.randn(2, 20))
    with pytest.raises(RuntimeError, match='has inconsistent hidden_size: got 21, expected 20'):
        Dl.nn.LSTMCell(10, 20)(Dl.randn(3, 10), (Dl.randn(3, 21), Dl.randn(3, 20)))
    with pytest.raises(AssertionError, match='Expected input to be 1-D or 2-D'):
        c(Dl.randn(2, 3, 10))
    with pytest.raises(ValueError, match='proj_size has to be smaller than hidden_size'):
        Dl.nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match='proj_size argument is only supported for LSTM'):
        Dl.nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match='dropout should be a number in range'):
        Dl.nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
        Dl.nn.RNN(3, 4, nonlinearity='sigmoid')


@pytest.mark.parametrize('mode', ['LSTM', 'GRU'])
@pytest.mark.parametrize('enforce_sorted,batch_first', [(True, False), (False, True)])
def test_pack_pad_round_trip(rng, mode, enforce_sorted, batch_first):
    """pack_padded_sequence -> layer -> pad_packed_sequence, as a user
    writes it, against torch: padded output, lengths, final states and the
    padded input's gradient"""
    lengths = [4, 4, 3, 2, 1] if enforce_sorted else [1, 4, 3, 2, 2]
    d, t = make_pair(mode, 'float64', 3, 5, 2, bidirectional=True, batch_first=batch_first)
    shape = (5, 4, 3) if batch_first else (4, 5, 3)
    dx, tx = tensors(rng, shape, 'float64')
    res = []
    for m, lib, x in ((d, Dl, dx), (t, torch, tx)):
        rnn = lib.nn.utils.rnn
        packed = rnn.pack_padded_sequence(x, lib.tensor(lengths), batch_first=batch_first,
                                          enforce_sorted=enforce_sorted)
        out, h = m(packed)
        padded, lens = rnn.pad_packed_sequence(out, batch_first=batch_first)
        hs = list(h) if isinstance(h, tuple) else [h]
        (padded.sum() + sum((k + 2) * s.sum() for k, s in enumerate(hs))).backward()
        res.append((padded, lens, hs))
    (dp, dl_, dh), (tp, tl, th) = res
    assert_same(dp, tp, **TOL['float64'])
    assert list(to_np(dl_)) == list(tl.numpy())
    for a, b in zip(dh, th):
        assert_same(a, b, **TOL['float64'])
    assert_same(dx.grad, tx.grad, **TOL['float64'])


def test_rnn_base_and_subclasses(rng):
    for mode, cls in (('LSTM', 'LSTM'), ('GRU', 'GRU'), ('RNN_TANH', 'RNN'), ('RNN_RELU', 'RNN')):
        d = Dl.nn.RNNBase(mode, 3, 4, 2, bidirectional=True)
        t = torch.nn.RNNBase(mode, 3, 4, 2, bidirectional=True)
        assert isinstance(d, Dl.nn.RNNBase) and isinstance(d, Dl.nn.Module)
        assert d.mode == t.mode == mode
        assert list(d.state_dict()) == list(t.state_dict())
        assert repr(d).split('(', 1)[1] == repr(t).split('(', 1)[1]
    assert isinstance(Dl.nn.GRU(3, 4), Dl.nn.RNNBase)
    with pytest.raises(ValueError, match='Unrecognized RNN mode'):
        Dl.nn.RNNBase('CONV', 3, 4)

    class Tagger(Dl.nn.LSTM):
        def __init__(self):
            super().__init__(3, 4, batch_first=True)
            self.out = Dl.nn.Linear(4, 2)

        def forward(self, x):
            y, _ = super().forward(x)
            return self.out(y)

    m = Tagger()
    x = Dl.randn(2, 5, 3, requires_grad=True)
    m(x).sum().backward()
    assert tuple(m.weight_ih_l0.grad.shape) == (16, 3) and x.grad is not None
    assert 'out' in dict(m.named_children())


def test_mixed_dtypes_are_errors():
    m = Dl.nn.LSTM(3, 4)
    x = Dl.randn(2, 1, 3)
    with pytest.raises(RuntimeError):
        m(x, (Dl.randn(1, 1, 4, dtype=Dl.float64), Dl.randn(1, 1, 4)))
    with pytest.raises(RuntimeError):
        m(x, (Dl.randn(1, 1, 4), Dl.randn(1, 1, 4, dtype=Dl.float64)))
    m.bias_hh_l0 = Dl.nn.Parameter(m.bias_hh_l0.detach().double())
    with pytest.raises(RuntimeError):
        m(x)
    c = Dl.nn.GRUCell(3, 4)
    with pytest.raises(RuntimeError):
        c(Dl.randn(2, 3), Dl.randn(2, 4, dtype=Dl.float64))


def test_replaced_parameter_of_wrong_shape_is_an_error():
    m = Dl.nn.GRU(3, 4, 2)
    m.weight_hh_l1 = Dl.nn.Parameter(Dl.randn(12, 3))
    # libdl names the parameter; torch fails in its matrix product
    with pytest.raises(RuntimeError, match=r'weight_hh_l1 has shape \[12, 3\], expected \[12, 4\]'
                                           r'|cannot be multiplied'):
        m(Dl.randn(2, 1, 3))
    c = Dl.nn.LSTMCell(3, 4)
    c.bias_ih = Dl.nn.Parameter(Dl.randn(5))
    with pytest.raises(RuntimeError, match=r'bias_ih has shape \[5\], expected \[16\]'
                                           r'|expanded size of the tensor \(16\)'):
        c(Dl.randn(2, 3))
