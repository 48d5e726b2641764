# test_shape.py: views and shape manipulation compared against PyTorch:
# values, shapes, strides, contiguity and storage sharing.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pytest
import torch

from conftest import Dl, assert_same, rand_pair


def check_view(fn, x, t, shares=True):
    """fn applied to both: same values, shape, strides and contiguity;
    a view must share memory with its base."""
    try:
        expected = fn(t)
    except (RuntimeError, IndexError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            fn(x)
        return None
    got = fn(x)
    assert_same(got, expected)
    if expected.numel() > 1:
        assert got.stride() == expected.stride(), "strides %s != torch %s" % (
            got.stride(), expected.stride())
    assert got.is_contiguous() == expected.is_contiguous()
    if shares and expected.numel() > 0:
        same = expected.data_ptr() - t.data_ptr()
        assert got.data_ptr() - x.data_ptr() == same
    return got


@pytest.mark.parametrize("shape,target", [
    ((2, 3, 4), (6, 4)), ((2, 3, 4), (-1,)), ((2, 3, 4), (4, -1)), ((2, 3, 4), (2, -1, 2)),
    ((6,), (1, 6, 1)), ((), (1,)), ((1,), ()), ((), ()), ((0, 3), (3, 0)), ((0, 3), (-1, 3)),
    ((2, 3, 4), (24,)), ((1, 1, 1), ()), ((4, 1), (1, 4)),
])
def test_view_reshape(rng, shape, target):
    x, t = rand_pair(rng, shape)
    check_view(lambda v: v.view(target), x, t)
    check_view(lambda v: v.reshape(target), x, t)
    if target:
        check_view(lambda v: v.view(*target), x, t)
        check_view(lambda v: v.reshape(*target), x, t)


def test_view_shares_storage():
    x = Dl.zeros(2, 3)
    v = x.view(6)
    v.fill_(2.0)
    assert x.tolist() == [[2.0] * 3] * 2
    v.add_(Dl.arange(6.0))
    assert x.tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]


def test_view_of_noncontiguous(rng):
    x, t = rand_pair(rng, (3, 4))
    xt, tt = x.t(), t.t()
    check_view(lambda v: v.view(12), xt, tt)            # RuntimeError
    check_view(lambda v: v.view(4, 3), xt, tt)          # allowed: same shape
    check_view(lambda v: v.unsqueeze(0).view(1, 4, 3), xt, tt)
    r = xt.reshape(12)                                   # copies
    assert_same(r, tt.reshape(12))
    assert r.is_contiguous()
    xe, te = Dl.ones(1, 4).expand(3, 4), torch.ones(1, 4).expand(3, 4)
    assert_same(xe.reshape(12), te.reshape(12))
    check_view(lambda v: v.view(3, 2, 2), xe, te)        # splitting a dim: allowed


def test_view_bad_sizes(rng):
    x, t = rand_pair(rng, (2, 3))
    for target in [(5,), (-1, -1), (4, -1), (0, -1), (7,), (2, -2)]:
        check_view(lambda v: v.view(*target), x, t)
        check_view(lambda v: v.reshape(*target), x, t)


@pytest.mark.parametrize("d0,d1", [(0, 1), (1, 0), (0, 2), (-1, 0), (1, 1), (-3, -1)])
def test_transpose(rng, d0, d1):
    x, t = rand_pair(rng, (2, 3, 4))
    check_view(lambda v: v.transpose(d0, d1), x, t)
    check_view(lambda v: v.transpose(d0, d1).transpose(d0, d1), x, t)


@pytest.mark.parametrize("dims", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, -3, -2), (2, 1, 0)])
def test_permute(rng, dims):
    x, t = rand_pair(rng, (2, 3, 4))
    check_view(lambda v: v.permute(*dims), x, t)
    check_view(lambda v: v.permute(dims), x, t)
    check_view(lambda v: v.permute(dims).contiguous(), x, t, shares=False)


def test_permute_bad(rng):
    x, t = rand_pair(rng, (2, 3, 4))
    for dims in [(0, 1), (0, 0, 1), (0, 1, 3), (0, 1, 2, 3)]:
        check_view(lambda v: v.permute(*dims), x, t)


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (1, 3), (0, 2)], ids=str)
def test_t(rng, shape):
    x, t = rand_pair(rng, shape)
    check_view(lambda v: v.t(), x, t)
    if len(shape) == 2:
        check_view(lambda v: v.T, x, t)


def test_t_3d_raises(rng):
    x, t = rand_pair(rng, (2, 3, 4))
    check_view(lambda v: v.t(), x, t)


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1, -2, -4])
def test_unsqueeze(rng, dim):
    x, t = rand_pair(rng, (2, 1, 3))
    check_view(lambda v: v.unsqueeze(dim), x, t)
    s, u = rand_pair(rng, ())
    if -1 <= dim <= 0:
        check_view(lambda v: v.unsqueeze(dim), s, u)


@pytest.mark.parametrize("dim", [4, -5])
def test_unsqueeze_bad_dim(rng, dim):
    x, t = rand_pair(rng, (2, 1, 3))
    check_view(lambda v: v.unsqueeze(dim), x, t)


@pytest.mark.parametrize("shape", [(2, 1, 3), (1, 1), (1,), (), (3,), (1, 0, 1), (2, 1, 1, 3, 1)], ids=str)
def test_squeeze(rng, shape):
    x, t = rand_pair(rng, shape)
    check_view(lambda v: v.squeeze(), x, t)
    for dim in range(-len(shape), len(shape)):
        check_view(lambda v: v.squeeze(dim), x, t)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 1, 3, 2), (5,), (), (2, 0, 3)], ids=str)
def test_flatten(rng, shape):
    x, t = rand_pair(rng, shape)
    check_view(lambda v: v.flatten(), x, t)
    n = max(len(shape), 1)
    for s in range(-n, n):
        for e in range(-n, n):
            check_view(lambda v: v.flatten(s, e), x, t)
    check_view(lambda v: v.flatten(start_dim=1 if len(shape) > 1 else 0), x, t)


def test_flatten_noncontiguous(rng):
    x, t = rand_pair(rng, (3, 4, 2))
    check_view(lambda v: v.transpose(0, 1).flatten(), x, t, shares=False)
    check_view(lambda v: v.transpose(0, 1).flatten(1), x, t, shares=False)
    check_view(lambda v: v.permute(2, 0, 1).flatten(1), x, t)   # still a view


@pytest.mark.parametrize("shape,target", [
    ((1, 4), (3, 4)), ((1, 4), (3, -1)), ((3, 1), (3, 5)), ((4,), (2, 3, 4)), ((), (2, 2)),
    ((1,), (0,)), ((2, 1, 3), (2, 4, 3)), ((2, 1, 3), (5, 2, 4, 3)), ((3,), (3,)), ((1, 1), (1, 0)),
])
def test_expand(rng, shape, target):
    x, t = rand_pair(rng, shape)
    check_view(lambda v: v.expand(*target), x, t)
    check_view(lambda v: v.expand(target), x, t)


def test_expand_bad(rng):
    x, t = rand_pair(rng, (2, 3))
    for target in [(3, 3), (3,), (2, 3, 1), (-1, 3, 3)]:
        check_view(lambda v: v.expand(*target), x, t)


def test_contiguous(rng):
    x, t = rand_pair(rng, (3, 4))
    y = x.contiguous()
    assert y is x
    for fn in [lambda v: v.t(), lambda v: v.unsqueeze(1).expand(3, 2, 4),
               lambda v: v.permute(1, 0).unsqueeze(0)]:
        xv, tv = fn(x), fn(t)
        c, d = xv.contiguous(), tv.contiguous()
        assert_same(c, d)
        assert c.is_contiguous()
        assert c.stride() == d.stride()
        assert c.data_ptr() != x.data_ptr()


def test_strides_and_metadata(rng):
    x, t = rand_pair(rng, (2, 3, 4))
    for fn in [lambda v: v, lambda v: v.transpose(0, 2), lambda v: v.permute(1, 2, 0),
               lambda v: v.unsqueeze(1), lambda v: v.flatten(0, 1),
               lambda v: v.view(4, 6).t(), lambda v: v.reshape(2, 12),
               lambda v: v.transpose(0, 1).unsqueeze(-1).expand(3, 2, 4, 5)]:
        xv, tv = fn(x), fn(t)
        assert xv.shape == tv.shape
        assert xv.size() == tv.size()
        assert xv.stride() == tv.stride()
        assert xv.dim() == tv.dim() and xv.ndim == tv.ndim
        assert xv.numel() == tv.numel()
        assert xv.is_contiguous() == tv.is_contiguous()
        for d in range(-tv.dim(), tv.dim()):
            assert xv.size(d) == tv.size(d)
            assert xv.stride(d) == tv.stride(d)


def test_view_chain_values(rng):
    x, t = rand_pair(rng, (2, 3, 4, 5))
    fn = lambda v: v.permute(3, 1, 0, 2).reshape(5, 3, 8).transpose(1, 2).unsqueeze(0) \
        .flatten(2).squeeze(0).t()
    assert_same(fn(x), fn(t))
    assert_same(fn(x).contiguous(), fn(t).contiguous())
    assert_same(fn(x) * 2 + 1, fn(t) * 2 + 1)


def test_size_is_tuple_like():
    x = Dl.zeros(2, 3)
    s = x.shape
    assert s == (2, 3)
    assert s == torch.Size([2, 3])
    assert list(s) == [2, 3]
    assert s[0] == 2 and s[-1] == 3
    assert len(s) == 2
    assert isinstance(s, tuple)
    assert Dl.zeros(s).shape == s
    assert Dl.zeros(*s).shape == s
    assert x.view(s[::-1]).shape == (3, 2)
    assert x.size() == s
