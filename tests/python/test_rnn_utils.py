# test_rnn_utils.py: torch.nn.utils.rnn (pad_sequence, pack_padded_sequence,
# pad_packed_sequence, pack_sequence, unpack_sequence, unpad_sequence)
# against python3-torch's, values, gradients and errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest

import torch

from conftest import Dl, assert_same, pair

R = torch.nn.utils.rnn


def dl_rnn():
    return Dl.nn.utils.rnn


def seqs(rng, lengths, tail=(3,), name="float32"):
    arrays = [rng.standard_normal((n,) + tail).astype(name) for n in lengths]
    return ([Dl.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


@pytest.mark.parametrize("lengths", [[4, 2, 3], [1], [5, 5], [2, 6, 1, 6]])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("tail", [(), (3,), (2, 2)])
def test_pad_sequence_matches_torch(rng, lengths, batch_first, tail):
    d, t = seqs(rng, lengths, tail)
    pd = dl_rnn().pad_sequence(d, batch_first=batch_first, padding_value=-1.5)
    pt = R.pad_sequence(t, batch_first=batch_first, padding_value=-1.5)
    assert_same(pd, pt)
    g = rng.standard_normal(tuple(pt.shape)).astype("float32")
    pd.backward(Dl.tensor(g))
    pt.backward(torch.tensor(g))
    for a, b in zip(d, t):
        assert_same(a.grad, b.grad)


@pytest.mark.parametrize("lengths", [[4, 3, 2], [4, 2, 3], [1, 1], [3], [2, 5, 5, 1]])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_pack_and_pad_round_trip_match_torch(rng, lengths, batch_first, name):
    enforce = all(a >= b for a, b in zip(lengths, lengths[1:]))
    shape = (len(lengths), max(lengths), 2) if batch_first else (max(lengths), len(lengths), 2)
    x, xt = pair(rng.standard_normal(shape).astype(name), requires_grad=True)
    pd = dl_rnn().pack_padded_sequence(x, Dl.tensor(lengths), batch_first, enforce)
    pt = R.pack_padded_sequence(xt, torch.tensor(lengths), batch_first, enforce)
    assert_same(pd.data, pt.data)
    assert pd.batch_sizes.tolist() == pt.batch_sizes.tolist()
    for a, b in ((pd.sorted_indices, pt.sorted_indices),
                 (pd.unsorted_indices, pt.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tolist() == b.tolist()
    total = max(lengths) + 2
    yd, ld = dl_rnn().pad_packed_sequence(pd, batch_first, 7.0, total)
    yt, lt = R.pad_packed_sequence(pt, batch_first, 7.0, total)
    assert_same(yd, yt)
    assert ld.tolist() == lt.tolist()
    g = rng.standard_normal(tuple(yt.shape)).astype(name)
    (yd * Dl.tensor(g)).sum().backward()
    (yt * torch.tensor(g)).sum().backward()
    assert_same(x.grad, xt.grad)


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_and_unpack_match_torch(rng, enforce_sorted):
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    d, t = seqs(rng, lengths, (2,))
    pd = dl_rnn().pack_sequence(d, enforce_sorted=enforce_sorted)
    pt = R.pack_sequence(t, enforce_sorted=enforce_sorted)
    assert_same(pd.data, pt.data)
    assert pd.batch_sizes.tolist() == pt.batch_sizes.tolist()
    back_d = dl_rnn().unpack_sequence(pd)
    back_t = R.unpack_sequence(pt)
    assert [list(a.shape) for a in back_d] == [list(b.shape) for b in back_t]
    for a, b in zip(back_d, back_t):
        assert_same(a, b)
    sum(a.sum() for a in back_d).backward()
    sum(b.sum() for b in back_t).backward()
    for a, b in zip(d, t):
        assert_same(a.grad, b.grad)


def test_unpad_sequence_matches_torch(rng):
    d, t = seqs(rng, [4, 1, 3], (2,))
    lengths = [4, 1, 3]
    for batch_first in (False, True):
        out_d = dl_rnn().unpad_sequence(dl_rnn().pad_sequence(d, batch_first), Dl.tensor(lengths),
                                        batch_first)
        out_t = R.unpad_sequence(R.pad_sequence(t, batch_first), torch.tensor(lengths),
                                 batch_first)
        for a, b in zip(out_d, out_t):
            assert_same(a, b)


def test_packed_sequence_fields_and_conversion(rng):
    x = Dl.tensor(rng.standard_normal((3, 2, 1)).astype("float32"))
    p = dl_rnn().pack_padded_sequence(x, [3, 1], enforce_sorted=False)
    assert isinstance(p, tuple) and p._fields == ('data', 'batch_sizes', 'sorted_indices',
                                                  'unsorted_indices')
    q = p.double()
    assert q.data.dtype == Dl.float64 and q.batch_sizes is p.batch_sizes
    assert p.to(Dl.float32) is p
    # the inverse permutation is made when only sorted_indices is given
    r = dl_rnn().PackedSequence(p.data, p.batch_sizes, Dl.tensor([1, 0]))
    assert r.unsorted_indices.tolist() == [1, 0]


@pytest.mark.parametrize("case", [
    (lambda m, x: m.pack_padded_sequence(x, [2, 3, 1]), RuntimeError, "sorted in decreasing"),
    (lambda m, x: m.pack_padded_sequence(x, [3, 2, 0]), RuntimeError, "greater than 0"),
    (lambda m, x: m.pack_padded_sequence(x, [3, 2]), RuntimeError, "batch_size=3"),
    (lambda m, x: m.pad_sequence([]), RuntimeError, "empty list"),
    (lambda m, x: m.pad_sequence([x[0, 0, 0], x[0, 0, 0]]), IndexError, "no dimensions"),
    (lambda m, x: m.pad_packed_sequence(m.pack_padded_sequence(x, [4, 2, 1]), total_length=3),
     ValueError, "total_length=3"),
])
def test_bad_input_raises_as_torch(rng, case):
    fn, exc, text = case
    x = rng.standard_normal((4, 3, 2)).astype("float32")
    for mod, arg in ((dl_rnn(), Dl.tensor(x)), (R, torch.tensor(x))):
        with pytest.raises(exc, match=text):
            fn(mod, arg)


def test_lengths_must_be_one_dimensional():
    for mod, lib in ((dl_rnn(), Dl), (R, torch)):
        with pytest.raises(RuntimeError, match="should be a 1D CPU int64 tensor, but got 2D"):
            mod.pack_padded_sequence(lib.zeros(4, 3, 2), lib.tensor([[3, 2, 1]]))
