# test_join.py: joining and rearranging (cat, stack, unbind, chunk, split,
# repeat, flip, roll, tril, triu) compared against PyTorch: values, dtypes,
# views sharing storage, gradients, non-contiguous inputs and bad inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import (DTYPES, Dl, NONCONTIG, assert_same, compare_grads as check_grad, pair,
                      rand_np, rand_pair, same_pairs as same)


def both(name, *args, **kwargs):
    """(fn on Dl, fn on torch) for a module-level function."""
    return (lambda *ts: getattr(Dl, name)(*ts, *args, **kwargs),
            lambda *ts: getattr(torch, name)(*ts, *args, **kwargs))


def method(name, *args, **kwargs):
    f = lambda v: getattr(v, name)(*args, **kwargs)  # noqa: E731
    return f, f


# ---- cat, stack ----------------------------------------------------------------------

@pytest.mark.parametrize("shapes,dim", [
    ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3)], -1), ([(1, 2, 3)] * 3, 2),
    ([(0, 3), (2, 3)], 0), ([(2, 3), (0,)], 0), ([(0,), (3, 2)], 1), ([(0,), (0,)], 0),
    ([(5,), (1,)], 0), ([(2, 3), (3, 3)], 1), ([(2, 3), (2, 3)], 2), ([(), ()], 0),
    ([(2,), (2, 1)], 0),
])
@pytest.mark.parametrize("name", DTYPES)
def test_cat(rng, shapes, dim, name):
    ps = [rand_pair(rng, s, name) for s in shapes]
    fd = lambda *ts: Dl.cat(list(ts), dim)  # noqa: E731
    ft = lambda *ts: torch.cat(list(ts), dim)  # noqa: E731
    same(fd, ft, *ps)
    same(lambda *ts: Dl.cat(tuple(ts), dim=dim), lambda *ts: torch.cat(tuple(ts), dim=dim), *ps)
    same(lambda *ts: Dl.concat(ts, dim), lambda *ts: torch.concat(ts, dim), *ps)


@pytest.mark.parametrize("a,b", [
    ("float32", "float64"), ("int32", "int64"), ("uint8", "bool"), ("int64", "float16"),
    ("bfloat16", "float16"), ("bool", "float32"), ("uint8", "int32"),
])
def test_cat_promotion(rng, a, b):
    same(lambda *ts: Dl.cat(ts, 1), lambda *ts: torch.cat(ts, 1),
         rand_pair(rng, (2, 3), a), rand_pair(rng, (2, 2), b))


def test_cat_noncontiguous_and_grad(rng):
    for label, shape, view in NONCONTIG:
        x, t = rand_pair(rng, shape)
        y, u = rand_pair(rng, shape)
        same(lambda p, q: Dl.cat([view(p), view(q)], 0),
             lambda p, q: torch.cat([view(p), view(q)], 0),
             (x, t), (y, u))
        same(lambda p, q: Dl.cat([view(p), view(q)], -1),
             lambda p, q: torch.cat([view(p), view(q)], -1), (x, t), (y, u))
    for n in (1, 2, 4, 5, 9):
        arrays = [rand_np(rng, (2, k + 1), "float64") for k in range(n)]
        check_grad(lambda *ts: Dl.cat(ts, 1), lambda *ts: torch.cat(ts, 1), *arrays)
    # a mix of dtypes: each gradient in its input's dtype
    x, t = rand_pair(rng, (2, 2), "float32", requires_grad=True)
    y, u = rand_pair(rng, (1, 2), "float64", requires_grad=True)
    Dl.cat([x, y]).sum().backward()
    torch.cat([t, u]).sum().backward()
    assert_same(x.grad, t.grad)
    assert_same(y.grad, u.grad)
    assert Dl.cat([x, y]).grad_fn.name() == "CatBackward0"


def test_cat_errors(rng):
    x, t = rand_pair(rng, (2, 3))
    with pytest.raises(RuntimeError):
        Dl.cat([])
    with pytest.raises(TypeError):
        Dl.cat(x)
    with pytest.raises(TypeError):
        Dl.cat([x, 1])
    same(lambda p: Dl.cat([p, p], 2), lambda p: torch.cat([p, p], 2), (x, t))
    same(lambda p: Dl.cat([p, p[0]], 0), lambda p: torch.cat([p, p[0]], 0), (x, t))


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 3)])
@pytest.mark.parametrize("dim", [0, 1, -1, -2, 3])
@pytest.mark.parametrize("name", ["float32", "int64", "bool", "bfloat16"])
def test_stack(rng, shape, dim, name):
    ps = [rand_pair(rng, shape, name) for _ in range(3)]
    same(lambda *ts: Dl.stack(ts, dim), lambda *ts: torch.stack(ts, dim), *ps)
    same(lambda *ts: Dl.stack(list(ts), dim=dim), lambda *ts: torch.stack(list(ts), dim=dim),
         *ps[:1])


def test_stack_grad_and_errors(rng):
    arrays = [rand_np(rng, (2, 3), "float64") for _ in range(6)]
    check_grad(lambda *ts: Dl.stack(ts, 1), lambda *ts: torch.stack(ts, 1), *arrays)
    x, t = rand_pair(rng, (2, 3))
    y, u = rand_pair(rng, (3, 2))
    same(lambda p, q: Dl.stack([p, q]), lambda p, q: torch.stack([p, q]), (x, t), (y, u))
    with pytest.raises(RuntimeError):
        Dl.stack([])
    same(lambda p, q: Dl.hstack([p, p]), lambda p, q: torch.hstack([p, p]), (x, t), (y, u))
    same(lambda p, q: Dl.vstack([p, p[0]]), lambda p, q: torch.vstack([p, p[0]]), (x, t), (y, u))


# ---- unbind, chunk, split -------------------------------------------------------------------

def check_views(got, base):
    """Each piece shares the base's storage (PyTorch gives views)."""
    for g in got:
        if g.numel() > 0:
            assert base.data_ptr() <= g.data_ptr() < base.data_ptr() + base.numel() * \
                base.element_size()


@pytest.mark.parametrize("shape,dim", [((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((5,), 0),
                                       ((0, 2), 1), ((2, 0), 1), ((3,), 1), ((), 0)])
def test_unbind(rng, shape, dim):
    x, t = rand_pair(rng, shape)
    got = same(*method("unbind", dim), (x, t))
    same(*both("unbind", dim), (x, t))
    if got:
        check_views(got, x)


@pytest.mark.parametrize("shape,chunks,dim", [
    ((6, 2), 3, 0), ((7, 2), 3, 0), ((5, 2), 4, 0), ((2, 5), 2, 1), ((3,), 5, 0), ((0, 3), 2, 0),
    ((4,), 1, 0), ((4,), 0, 0), ((4,), 2, 1), ((), 1, 0),
])
def test_chunk(rng, shape, chunks, dim):
    x, t = rand_pair(rng, shape)
    got = same(*method("chunk", chunks, dim), (x, t))
    same(*both("chunk", chunks, dim), (x, t))
    if got:
        check_views(got, x)


@pytest.mark.parametrize("shape,split,dim", [
    ((6, 2), 2, 0), ((7, 2), 3, 0), ((2, 5), 2, 1), ((3,), 5, 0), ((0, 3), 2, 0),
    ((6,), [1, 2, 3], 0), ((6,), [0, 6], 0), ((2, 6), (4, 2), -1), ((6,), [1, 2], 0),
    ((6,), [2, 5], 0), ((4,), 0, 0), ((4,), -1, 0), ((4,), 2, 1), ((0,), 0, 0),
])
def test_split(rng, shape, split, dim):
    x, t = rand_pair(rng, shape)
    got = same(*method("split", split, dim), (x, t))
    same(*both("split", split, dim), (x, t))
    if got:
        check_views(got, x)


def test_split_grad(rng):
    a = rand_np(rng, (5, 3), "float64")
    check_grad(lambda v: v.split([2, 3])[1] * 2, lambda v: v.split([2, 3])[1] * 2, a)
    check_grad(lambda v: v.chunk(2, 1)[0], lambda v: v.chunk(2, 1)[0], a)
    check_grad(lambda v: v.unbind(1)[2], lambda v: v.unbind(1)[2], a)


# ---- repeat, flip, roll, tril, triu -----------------------------------------------------

@pytest.mark.parametrize("shape,reps", [
    ((2, 3), (2, 2)), ((2, 3), (1, 1)), ((3,), (2, 3)), ((), (3,)), ((), ()), ((2, 3), (0, 2)),
    ((0, 2), (3, 1)), ((2, 1, 3), (1, 4, 1, 2)), ((2, 3), (2,)), ((2,), (-1,)),
])
@pytest.mark.parametrize("name", DTYPES)
def test_repeat(rng, shape, reps, name):
    x, t = rand_pair(rng, shape, name)
    same(*method("repeat", *reps) if reps else method("repeat", ()), (x, t))
    same(*method("repeat", reps), (x, t))


def test_repeat_noncontiguous_and_grad(rng):
    for label, shape, view in NONCONTIG:
        x, t = rand_pair(rng, shape)
        same(lambda v: view(v).repeat(2, 1, 3), lambda v: view(v).repeat(2, 1, 3), (x, t))
    check_grad(lambda v: v.repeat(2, 3), lambda v: v.repeat(2, 3), rand_np(rng, (2, 3), "float64"))
    check_grad(lambda v: v.repeat(2, 1, 2), lambda v: v.repeat(2, 1, 2),
               rand_np(rng, (3,), "float64"))


@pytest.mark.parametrize("shape,dims", [
    ((3, 4), (0,)), ((3, 4), (1,)), ((3, 4), (0, 1)), ((2, 3, 4), (-1, 0)), ((5,), (0,)),
    ((), (0,)), ((0, 3), (0, 1)), ((3, 4), ()), ((3, 4), (2,)), ((3, 4), (0, 0)), ((3, 4), (0, -2)),
])
@pytest.mark.parametrize("name", DTYPES)
def test_flip(rng, shape, dims, name):
    x, t = rand_pair(rng, shape, name)
    same(*method("flip", dims), (x, t))
    same(*both("flip", dims), (x, t))
    if dims:
        same(*method("flip", *dims), (x, t))


def test_flip_more(rng):
    for label, shape, view in NONCONTIG:
        x, t = rand_pair(rng, shape)
        same(lambda v: view(v).flip(0, 1), lambda v: view(v).flip(0, 1), (x, t))
    x, t = rand_pair(rng, (3, 4))
    same(*method("fliplr"), (x, t))
    same(*method("flipud"), (x, t))
    check_grad(lambda v: v.flip(1), lambda v: v.flip(1), rand_np(rng, (3, 4), "float64"))


@pytest.mark.parametrize("shape,shifts,dims", [
    ((3, 4), 1, 0), ((3, 4), -1, 1), ((3, 4), (1, 2), (0, 1)), ((3, 4), 5, None),
    ((3, 4), 7, 1), ((2, 3, 4), (-5, 2), (2, 0)), ((0, 3), 1, 0), ((5,), 0, 0), ((), 1, None),
    ((3, 4), (1, 2), (0,)), ((3, 4), 1, 2), ((3, 4), (1, 2), None), ((), 1, 0),
])
@pytest.mark.parametrize("name", DTYPES)
def test_roll(rng, shape, shifts, dims, name):
    x, t = rand_pair(rng, shape, name)
    same(*method("roll", shifts, dims), (x, t))
    same(*both("roll", shifts, dims), (x, t))


def test_roll_more(rng):
    for label, shape, view in NONCONTIG:
        x, t = rand_pair(rng, shape)
        same(lambda v: view(v).roll(1, 0), lambda v: view(v).roll(1, 0), (x, t))
        same(lambda v: view(v).roll(2), lambda v: view(v).roll(2), (x, t))
    check_grad(lambda v: v.roll((1, -1), (0, 1)), lambda v: v.roll((1, -1), (0, 1)),
               rand_np(rng, (3, 4), "float64"))


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3), (0, 3), (3, 0), (1, 1), (5,), ()])
@pytest.mark.parametrize("diagonal", [0, 1, -1, 5, -5])
@pytest.mark.parametrize("name", DTYPES)
def test_tril_triu(rng, shape, diagonal, name):
    x, t = rand_pair(rng, shape, name)
    for op in ("tril", "triu"):
        same(*method(op, diagonal), (x, t))
        same(*both(op, diagonal), (x, t))
        same(*method(op, diagonal=diagonal), (x, t))


def test_tril_triu_more(rng):
    for label, shape, view in NONCONTIG:
        x, t = rand_pair(rng, shape)
        same(lambda v: view(v).tril(), lambda v: view(v).tril(), (x, t))
        same(lambda v: view(v).triu(1), lambda v: view(v).triu(1), (x, t))
    x, t = pair(np.array([[np.nan, np.inf], [-np.inf, np.nan]]))
    same(*method("tril"), (x, t))
    same(*method("triu"), (x, t))
    check_grad(lambda v: v.tril(-1), lambda v: v.tril(-1), rand_np(rng, (4, 3), "float64"))
    check_grad(lambda v: v.triu(), lambda v: v.triu(), rand_np(rng, (2, 3, 3), "float64"))
    x, t = rand_pair(rng, (3, 3))
    x.tril_()
    t.tril_()
    assert_same(x, t)
    x.triu_(1)
    t.triu_(1)
    assert_same(x, t)


def test_stack_node(rng):
    """torch.stack records one StackBackward0 node (an LSTM's h_n and c_n
    are stacks, and the NLP tutorials print them); each input's gradient is
    its slice, in its own dtype when the inputs' dtypes differ."""
    (x, t), (y, u) = rand_pair(rng, (2, 3), "float32", requires_grad=True), \
        rand_pair(rng, (2, 3), "float64", requires_grad=True)
    s, v = Dl.stack([x, y], 2), torch.stack([t, u], 2)
    assert s.grad_fn.name() == v.grad_fn.name() == "StackBackward0"
    assert_same(s, v)
    g = rand_np(rng, (2, 3, 2), "float64")
    s.backward(Dl.tensor(g))
    v.backward(torch.tensor(g))
    assert_same(x.grad, t.grad)
    assert_same(y.grad, u.grad)
    with Dl.no_grad():
        assert Dl.stack([x, y]).grad_fn is None
    assert Dl.stack([x.detach(), y.detach()]).grad_fn is None
    m, tm = Dl.nn.LSTM(3, 4, num_layers=2), torch.nn.LSTM(3, 4, num_layers=2)
    _, (h, c) = m(Dl.randn(5, 2, 3))
    _, (th, tc) = tm(torch.randn(5, 2, 3))
    assert [h.grad_fn.name(), c.grad_fn.name()] == [th.grad_fn.name(), tc.grad_fn.name()]
