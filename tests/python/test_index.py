# test_index.py: indexing ops (gather, scatter, index_select, masked ops,
# where, nonzero, take_along_dim, one_hot) and tensor[...] with masks and
# index tensors, read and written, compared against PyTorch: values,
# dtypes, gradients, non-contiguous inputs and bad inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import (DTYPES, Dl, NONCONTIG, assert_same, pair, rand_np, rand_pair,
                      torch_ref)


def same_or_raises(fn_dl, fn_th, *args):
    """fn_th on torch arguments, fn_dl on libdl ones: equal results, or the
    same exception class."""
    dls = [a[0] if isinstance(a, tuple) else a for a in args]
    ths = [a[1] if isinstance(a, tuple) else a for a in args]
    try:
        expected = torch_ref(fn_th, *ths)
    except (RuntimeError, IndexError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            fn_dl(*dls)
        return None
    got = fn_dl(*dls)
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
    else:
        assert_same(got, expected)
    return got


def same(fn, *args):
    return same_or_raises(fn, fn, *args)


def check_grad(fn, *arrays, name="float64"):
    """Gradients of sum(fn(...) * w) wrt every array, libdl vs torch."""
    ps = [pair(a, name, requires_grad=True) for a in arrays]
    out_t = fn(*[p[1] for p in ps])
    w = np.random.default_rng(0).standard_normal(tuple(out_t.shape))
    wx, wt = pair(w, name)
    (out_t * wt).sum().backward()
    out_x = fn(*[p[0] for p in ps])
    assert_same(out_x, out_t)
    (out_x * wx).sum().backward()
    for (x, t) in ps:
        if t.grad is None:
            assert x.grad is None
        else:
            assert_same(x.grad, t.grad)


def index_pair(a):
    return pair(np.asarray(a, dtype=np.int64))


# ---- gather -------------------------------------------------------------------

@pytest.mark.parametrize("shape,dim,ishape", [
    ((3, 4), 0, (2, 4)), ((3, 4), 1, (3, 6)), ((3, 4), -1, (2, 2)), ((2, 3, 4), 1, (2, 5, 3)),
    ((5,), 0, (7,)), ((), 0, ()), ((5,), 0, ()), ((), 0, (3,)), ((3, 4), 1, (3, 0)),
    ((0, 4), 1, (0, 4)), ((1, 1), 0, (1, 1)),
])
@pytest.mark.parametrize("name", DTYPES)
def test_gather(rng, shape, dim, ishape, name):
    x, t = rand_pair(rng, shape, name)
    size = shape[dim] if shape else 1
    ix, it = index_pair(rng.integers(0, max(size, 1), size=ishape) if size else
                        np.zeros(ishape, np.int64))
    same(lambda a, i: a.gather(dim, i), (x, t), (ix, it))
    same(lambda a, i: Dl.gather(a, dim, i) if a is x else torch.gather(a, dim, i),
         (x, t), (ix, it))


@pytest.mark.parametrize("label,shape,view", NONCONTIG)
def test_gather_noncontiguous(rng, label, shape, view):
    x, t = rand_pair(rng, shape)
    xv, tv = view(x), view(t)
    idx = rng.integers(0, xv.shape[0], size=tuple(xv.shape))
    ix, it = index_pair(idx)
    same(lambda a, i: a.gather(0, i), (xv, tv), (ix, it))
    # a non-contiguous index
    ix2, it2 = index_pair(idx.T.copy())
    same(lambda a, i: a.gather(0, i.t()), (xv, tv), (ix2, it2))


def test_gather_grad(rng):
    a = rand_np(rng, (3, 5), "float64")
    idx = torch.from_numpy(rng.integers(0, 3, size=(4, 5)))
    idl = Dl.from_numpy(idx.numpy().copy())
    ps = pair(a, "float64", requires_grad=True)
    ps[1].gather(0, idx).pow(2).sum().backward()
    (ps[0].gather(0, idl) * ps[0].gather(0, idl)).sum().backward()
    assert_same(ps[0].grad, ps[1].grad)
    assert ps[0].gather(0, idl).grad_fn.name() == "GatherBackward0"


def test_gather_errors():
    x, t = rand_pair(np.random.default_rng(1), (3, 4))
    for idx, dim in [([[5]], 0), ([[-1]], 0), ([[0]], 2), ([[0]], -3), ([0], 0),
                     ([[0, 0, 0, 0, 0]], 0)]:
        same(lambda a, i: a.gather(dim, i), (x, t), index_pair(idx))
    with pytest.raises(RuntimeError):
        x.gather(0, Dl.tensor([[0]], dtype=Dl.int32))
    with pytest.raises(RuntimeError):
        t.gather(0, torch.tensor([[0]], dtype=torch.int32))


# ---- scatter, scatter_add -------------------------------------------------------

def unique_index(rng, size, n, shape, dim):
    """An index of `shape` whose entries along `dim` are distinct, so that
    scatter's result does not depend on the order of writes."""
    moved = list(shape)
    moved[dim], moved[-1] = moved[-1], moved[dim]
    flat = np.stack([rng.permutation(size)[:n] for _ in range(int(np.prod(moved[:-1])))])
    a = flat.reshape(moved[:-1] + [n])
    return np.swapaxes(a, dim, -1).copy()


@pytest.mark.parametrize("shape,dim,ishape", [
    ((4, 5), 0, (3, 5)), ((4, 5), 1, (4, 2)), ((2, 3, 4), -1, (2, 3, 4)), ((6,), 0, (3,)),
    ((3, 4), 0, (0, 4)), ((1, 1), 1, (1, 1)),
])
@pytest.mark.parametrize("name", DTYPES)
def test_scatter(rng, shape, dim, ishape, name):
    x, t = rand_pair(rng, shape, name)
    s, st = rand_pair(rng, ishape, name)
    d = dim % len(shape)
    idx = unique_index(rng, shape[d], ishape[d], ishape, d)
    ix, it = index_pair(idx)
    same(lambda a, i, b: a.scatter(dim, i, b), (x, t), (ix, it), (s, st))
    same(lambda a, i: a.scatter(dim, i, 2), (x, t), (ix, it))
    same(lambda a, i: a.scatter(dim, i, value=1), (x, t), (ix, it))
    # scatter_add with repeated indices
    rep = rng.integers(0, shape[d], size=ishape)
    rx, rt = index_pair(rep)
    if name in ("float16", "bfloat16"):
        return
    same(lambda a, i, b: a.scatter_add(dim, i, b), (x, t), (rx, rt), (s, st))
    same(lambda a, i, b: (Dl.scatter_add if a is x else torch.scatter_add)(a, dim, i, b),
         (x, t), (rx, rt), (s, st))


def test_scatter_0d_index(rng):
    for shape in ((5,), ()):
        x, t = rand_pair(rng, shape)
        s, st = rand_pair(rng, ())
        ix, it = index_pair(3 if shape else 0)
        same(lambda a, i, b: a.scatter(0, i, b), (x, t), (ix, it), (s, st))
        same(lambda a, i, b: a.scatter_add(0, i, b), (x, t), (ix, it), (s, st))
        same(lambda a, i: a.scatter(0, i, 9.0), (x, t), (ix, it))


def test_scatter_add_half(rng):
    for name in ("float16", "bfloat16"):
        x, t = rand_pair(rng, (3, 4), name)
        s, st = rand_pair(rng, (3, 4), name)
        ix, it = index_pair(rng.integers(0, 3, size=(3, 4)))
        assert_same(x.scatter_add(0, ix, s), t.float().scatter_add(0, it, st.float()).to(t.dtype),
                    rtol=2e-2, atol=2e-2)


def test_scatter_src_bigger_than_index(rng):
    x, t = rand_pair(rng, (4, 5))
    s, st = rand_pair(rng, (6, 7))
    ix, it = index_pair(unique_index(rng, 4, 2, (2, 3), 0))
    same(lambda a, i, b: a.scatter(0, i, b), (x, t), (ix, it), (s, st))
    same(lambda a, i, b: a.scatter_add(0, i, b), (x, t), (ix, it), (s, st))


def test_scatter_grads(rng):
    idx = unique_index(rng, 4, 2, (2, 3), 0)
    ix, it = Dl.from_numpy(idx.copy()), torch.from_numpy(idx.copy())
    a, b = rand_np(rng, (4, 3), "float64"), rand_np(rng, (3, 5), "float64")
    check_grad(lambda s, src: (s.scatter(0, ix if isinstance(s, Dl.Tensor) else it, src)),
               a, b[:2, :3].copy())
    check_grad(lambda s, src: (s.scatter_add(0, ix if isinstance(s, Dl.Tensor) else it, src)),
               a, b[:2, :3].copy())
    check_grad(lambda s: s.scatter(0, ix if isinstance(s, Dl.Tensor) else it, 3.0), a)


def test_scatter_inplace(rng):
    x, t = rand_pair(rng, (3, 4))
    ix, it = index_pair([[0, 1, 2, 0]])
    s, st = rand_pair(rng, (1, 4))
    x.scatter_(0, ix, s)
    t.scatter_(0, it, st)
    assert_same(x, t)
    x.scatter_add_(0, ix, s)
    t.scatter_add_(0, it, st)
    assert_same(x, t)


def test_scatter_errors(rng):
    x, t = rand_pair(rng, (3, 4))
    s, st = rand_pair(rng, (3, 4))
    for idx in ([[3]], [[-1]], [[0, 0, 0, 0, 0]]):
        same(lambda a, i, b: a.scatter(0, i, b), (x, t), index_pair(idx), (s, st))
        same(lambda a, i, b: a.scatter_add(0, i, b), (x, t), index_pair(idx), (s, st))
    same(lambda a, i: a.scatter(2, i, 1.0), (x, t), index_pair([[0]]))
    same(lambda a, i, b: a.scatter(0, i, b.double()), (x, t), index_pair([[0]]), (s, st))


# ---- index_select ---------------------------------------------------------------

@pytest.mark.parametrize("shape,dim,idx", [
    ((4, 5), 0, [3, 0, 0, 1]), ((4, 5), 1, [4]), ((4, 5), -1, []), ((2, 3, 4), 1, [2, 1]),
    ((5,), 0, [1, 1]), ((), 0, [0]), ((0, 3), 1, [2, 0]), ((3,), 0, 1), ((2, 3), 1, 2),
])
@pytest.mark.parametrize("name", DTYPES)
def test_index_select(rng, shape, dim, idx, name):
    x, t = rand_pair(rng, shape, name)
    ix, it = pair(np.asarray(idx, dtype=np.int64))
    same(lambda a, i: a.index_select(dim, i), (x, t), (ix, it))
    same(lambda a, i: a.index_select(dim, i.int()), (x, t), (ix, it))


def test_index_select_noncontiguous_and_grad(rng):
    for label, shape, view in NONCONTIG:
        x, t = rand_pair(rng, shape)
        ix, it = index_pair([1, 0, 1])
        same(lambda a, i: view(a).index_select(1, i), (x, t), (ix, it))
    ix, it = index_pair([2, 0, 2, 2])
    check_grad(lambda a: a.index_select(1, ix if isinstance(a, Dl.Tensor) else it),
               rand_np(rng, (3, 4), "float64"))


def test_index_select_errors(rng):
    x, t = rand_pair(rng, (3, 4))
    for idx, dim in [([3], 0), ([0], 2), ([[0]], 0)]:
        same(lambda a, i: a.index_select(dim, i), (x, t), index_pair(idx))
    same(lambda a, i: a.index_select(0, i), (x, t), pair(np.array([0.0])))


# ---- masked_fill, masked_select, where -------------------------------------------

@pytest.mark.parametrize("shape,mshape", [
    ((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (3, 1)), ((), ()), ((0, 3), (3,)),
    ((5,), ()), ((3, 4), (2, 3, 4)), ((3, 4), (5,)),
])
@pytest.mark.parametrize("name", DTYPES)
def test_masked_fill(rng, shape, mshape, name):
    x, t = rand_pair(rng, shape, name)
    m, mt = rand_pair(rng, mshape, "bool")
    same(lambda a, k: a.masked_fill(k, 1), (x, t), (m, mt))
    same(lambda a, k: a.masked_fill(k, True if name == "bool" else 2.0), (x, t), (m, mt))
    v, vt = pair(np.array(3.0), name)
    same(lambda a, k, w: a.masked_fill(k, w), (x, t), (m, mt), (v, vt))

    def inplace(a, k):
        a = a.clone()
        a.masked_fill_(k, 0)
        return a
    same(inplace, (x, t), (m, mt))


def test_masked_fill_special_and_errors(rng):
    x, t = rand_pair(rng, (3, 4))
    m, mt = rand_pair(rng, (3, 4), "bool")
    same(lambda a, k: a.masked_fill(k, float("nan")), (x, t), (m, mt))
    same(lambda a, k: a.masked_fill(k, float("-inf")), (x, t), (m, mt))
    v, vt = pair(np.array([1.0, 2.0]))
    same(lambda a, k, w: a.masked_fill(k, w), (x, t), (m, mt), (v, vt))


def test_masked_fill_grad(rng):
    m, mt = rand_pair(rng, (3, 4), "bool")
    check_grad(lambda a: a.masked_fill(m if isinstance(a, Dl.Tensor) else mt, 0.5),
               rand_np(rng, (3, 4), "float64"))
    check_grad(lambda a, v: a.masked_fill(m if isinstance(a, Dl.Tensor) else mt, v),
               rand_np(rng, (3, 4), "float64"), np.array(2.0))

    # in place on a non-leaf keeps the history
    a = rand_np(rng, (3, 4), "float64")
    x, t = pair(a, "float64", requires_grad=True)
    y, u = x * 2, t * 2
    y.masked_fill_(m, 0)
    u.masked_fill_(mt, 0)
    (y * y).sum().backward()
    (u * u).sum().backward()
    assert_same(x.grad, t.grad)
    with pytest.raises(RuntimeError):
        x.masked_fill_(m, 0)


@pytest.mark.parametrize("shape,mshape", [
    ((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (3, 4)), ((), ()), ((0, 3), (3,)), ((2, 1), (1, 3)),
])
@pytest.mark.parametrize("name", DTYPES)
def test_masked_select(rng, shape, mshape, name):
    x, t = rand_pair(rng, shape, name)
    m, mt = rand_pair(rng, mshape, "bool")
    same(lambda a, k: a.masked_select(k), (x, t), (m, mt))
    same(lambda a, k: Dl.masked_select(a, k) if a is x else torch.masked_select(a, k),
         (x, t), (m, mt))


def test_masked_select_grad_and_errors(rng):
    m, mt = rand_pair(rng, (3, 4), "bool")
    check_grad(lambda a: a.masked_select(m if isinstance(a, Dl.Tensor) else mt),
               rand_np(rng, (4,), "float64"))
    x, t = rand_pair(rng, (3, 4))
    same(lambda a, k: a.masked_select(k.int()), (x, t), (m, mt))
    same(lambda a, k: a.masked_select(k), (x, t), rand_pair(rng, (5,), "bool"))


@pytest.mark.parametrize("cshape,xshape,yshape", [
    ((3, 4), (3, 4), (3, 4)), ((4,), (3, 4), (3, 1)), ((3, 1), (), (4,)), ((), (2,), ()),
    ((0, 2), (2,), (1, 2)), ((2, 1, 3), (4, 1), (3,)),
])
@pytest.mark.parametrize("xname,yname", [
    ("float32", "float32"), ("float64", "float32"), ("int32", "int64"), ("uint8", "bool"),
    ("int64", "float16"), ("bfloat16", "bfloat16"), ("bool", "bool"),
])
def test_where(rng, cshape, xshape, yshape, xname, yname):
    c, ct = rand_pair(rng, cshape, "bool")
    x, t = rand_pair(rng, xshape, xname)
    y, u = rand_pair(rng, yshape, yname)
    same(lambda k, a, b: Dl.where(k, a, b) if k is c else torch.where(k, a, b),
         (c, ct), (x, t), (y, u))
    same(lambda k, a, b: a.where(k, b), (c, ct), (x, t), (y, u))


def test_where_scalars_and_errors(rng):
    c, ct = rand_pair(rng, (3, 4), "bool")
    for name in ("float32", "int32", "float16", "uint8"):
        x, t = rand_pair(rng, (3, 4), name)
        for s in (0, 0.5, True):
            same(lambda k, a: Dl.where(k, a, s) if k is c else torch.where(k, a, s),
                 (c, ct), (x, t))
            same(lambda k, a: Dl.where(k, s, a) if k is c else torch.where(k, s, a),
                 (c, ct), (x, t))
    x, t = rand_pair(rng, (3, 4))
    same(lambda k, a: Dl.where(k.float(), a, a) if k is c else torch.where(k.float(), a, a),
         (c, ct), (x, t))
    same(lambda k, a: Dl.where(k, a, a[:2]) if k is c else torch.where(k, a, a[:2]),
         (c, ct), (x, t))
    x, t = pair(np.array([np.nan, np.inf, -np.inf, 1.0]))
    same(lambda a: (Dl.where if isinstance(a, Dl.Tensor) else torch.where)(a > 0, a, -a),
         (x, t))
    got = Dl.where(c)
    exp = torch.where(ct)
    assert len(got) == len(exp)
    for g, e in zip(got, exp):
        assert_same(g, e)


def test_where_grad(rng):
    c, ct = rand_pair(rng, (3, 4), "bool")
    check_grad(lambda a, b: (Dl.where if isinstance(a, Dl.Tensor) else torch.where)(
        c if isinstance(a, Dl.Tensor) else ct, a, b),
        rand_np(rng, (3, 4), "float64"), rand_np(rng, (4,), "float64"))
    check_grad(lambda a: (Dl.where if isinstance(a, Dl.Tensor) else torch.where)(
        c if isinstance(a, Dl.Tensor) else ct, a, 0.0), rand_np(rng, (1, 4), "float64"))


# ---- nonzero, take_along_dim, one_hot --------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 4), (2, 0, 3), (2, 3, 4)])
@pytest.mark.parametrize("name", DTYPES)
def test_nonzero(rng, shape, name):
    a = rand_np(rng, shape, name)
    if name != "bool":
        a = np.where(rng.random(shape) < 0.5, 0, a).astype(a.dtype)
    x, t = pair(a, name)
    same(lambda v: v.nonzero(), (x, t))
    same(lambda v: Dl.nonzero(v) if v is x else torch.nonzero(v), (x, t))
    same(lambda v: v.nonzero(as_tuple=True), (x, t))
    if len(shape) == 2:
        same(lambda v: v.t().nonzero(), (x, t))


@pytest.mark.parametrize("shape,dim,ishape", [
    ((3, 4), 1, (3, 4)), ((3, 4), 0, (1, 4)), ((3, 4), 1, (1, 2)), ((2, 3, 4), -1, (2, 3, 2)),
    ((5,), 0, (3,)), ((3, 4), None, (5,)), ((2, 3), 1, (2, 0)),
])
def test_take_along_dim(rng, shape, dim, ishape):
    x, t = rand_pair(rng, shape)
    size = int(np.prod(shape)) if dim is None else shape[dim]
    ix, it = index_pair(rng.integers(0, size, size=ishape))
    same(lambda a, i: a.take_along_dim(i, dim), (x, t), (ix, it))
    same(lambda a, i: Dl.take_along_dim(a, i, dim) if a is x else torch.take_along_dim(a, i, dim),
         (x, t), (ix, it))
    if dim is not None:
        check_grad(lambda a: a.take_along_dim(ix if isinstance(a, Dl.Tensor) else it, dim),
                   rand_np(rng, shape, "float64"))


def test_take_along_dim_argsort(rng):
    x, t = rand_pair(rng, (4, 6))
    order = np.argsort(t.numpy(), axis=1)
    ix, it = index_pair(order)
    same(lambda a, i: a.take_along_dim(i, 1), (x, t), (ix, it))
    same(lambda a, i: a.take_along_dim(i, 3), (x, t), (ix, it))
    same(lambda a, i: a.take_along_dim(i[0], 1), (x, t), (ix, it))


@pytest.mark.parametrize("values,num_classes", [
    ([0, 2, 1], -1), ([0, 2, 1], 5), ([[1, 0], [3, 3]], -1), (3, -1), (2, 4),
    ([], 3), ([], -1), ([3], 2), ([-1], 3), ([1], 0),
])
def test_one_hot(values, num_classes):
    x, t = index_pair(values)
    same(lambda v: Dl.nn.functional.one_hot(v, num_classes) if isinstance(v, Dl.Tensor)
         else torch.nn.functional.one_hot(v, num_classes), (x, t))
    same(lambda v: Dl.nn.functional.one_hot(v.int()) if isinstance(v, Dl.Tensor)
         else torch.nn.functional.one_hot(v.int()), (x, t))


# ---- tensor[...] ---------------------------------------------------------------------

GETITEM = [
    lambda v, i, m: v[i],
    lambda v, i, m: v[[0, 2, -1]],
    lambda v, i, m: v[:, [1, 0]],
    lambda v, i, m: v[..., [3, 3, 0]],
    lambda v, i, m: v[i, 1:],
    lambda v, i, m: v[1:, i[:2]],
    lambda v, i, m: v[i[:2], [0, 1]],
    lambda v, i, m: v[i[:2], :, [0, 1]],
    lambda v, i, m: v[:, [0, 2], [1, 3]],
    lambda v, i, m: v[[[0], [2]], :, [1, 3]],
    lambda v, i, m: v[0, :, [1, 2]],
    lambda v, i, m: v[:, 0, [1, 2]],
    lambda v, i, m: v[None, [1]],
    lambda v, i, m: v[m],
    lambda v, i, m: v[m[:, :, 0]],
    lambda v, i, m: v[:, m[0, :, 0]],
    lambda v, i, m: v[m[:, 0, 0], 1:3],
    lambda v, i, m: v[m[:, :, 0], 1:3],
    lambda v, i, m: v[m[:, :, 0], [0, 1]] if int(m[:, :, 0].sum()) in (0, 1, 2) else v[m[0]],
    lambda v, i, m: v[1, m[0, :, 0]],
    lambda v, i, m: v[[0, 1], m[0, :, 0]] if int(m[0, :, 0].sum()) in (1, 2) else v[0],
    lambda v, i, m: v[v > 0],
    lambda v, i, m: v[v[:, 0, 0] > 0],
    lambda v, i, m: v[[]],
    lambda v, i, m: v[i.int()],
    lambda v, i, m: v[i[0]],
    lambda v, i, m: v[[True, False, True]],
    lambda v, i, m: v[i.reshape(1, 3)],
]


@pytest.mark.parametrize("k", range(len(GETITEM)))
@pytest.mark.parametrize("name", ["float32", "int64", "bool", "float16"])
def test_getitem(rng, k, name):
    x, t = rand_pair(rng, (3, 2, 4), name)
    i, it = index_pair([2, 0, -3])
    m, mt = rand_pair(rng, (3, 2, 4), "bool")
    fn = GETITEM[k]
    same(lambda a, b, c: fn(a, b, c), (x, t), (i, it), (m, mt))
    # on a non-contiguous view
    same(lambda a, b, c: fn(a.permute(2, 1, 0).transpose(0, 2), b, c), (x, t), (i, it), (m, mt))


@pytest.mark.parametrize("k", range(len(GETITEM)))
def test_getitem_grad(rng, k):
    i, it = index_pair([2, 0, -3])
    m, mt = rand_pair(rng, (3, 2, 4), "bool")
    try:
        GETITEM[k](torch.zeros(3, 2, 4), it, mt)
    except (IndexError, RuntimeError):
        return
    check_grad(lambda a: GETITEM[k](a, i, m) if isinstance(a, Dl.Tensor) else GETITEM[k](a, it, mt),
               rand_np(rng, (3, 2, 4), "float64"))


SETITEM = [
    lambda v, i, m, s: v.__setitem__(i, 1.5),
    lambda v, i, m, s: v.__setitem__([0, 2], s[:4]),
    lambda v, i, m, s: v.__setitem__((slice(None), [1, 0]), 7),
    lambda v, i, m, s: v.__setitem__(m, -1),
    lambda v, i, m, s: v.__setitem__(m[:, :, 0], s[:4]),
    lambda v, i, m, s: v.__setitem__((Ellipsis, [0, 3]), s[:2].reshape(2, 1)),
    lambda v, i, m, s: v.__setitem__((slice(None), [0, 1], [1, 3]), s[:2]),
    lambda v, i, m, s: v.__setitem__(([0, 2], slice(None), [1, 3]), s[:2].reshape(2, 1)),
    lambda v, i, m, s: v.__setitem__((0, slice(None), [1, 2]), s[:2].reshape(1, 2)),
    lambda v, i, m, s: v.__setitem__(v > 0, 0),
    lambda v, i, m, s: v.__setitem__((slice(1, None), [0]), s[:4]),
    lambda v, i, m, s: v.__setitem__(([0, 0], [1, 1]), s[:4]),
]


@pytest.mark.parametrize("k", range(len(SETITEM)))
@pytest.mark.parametrize("name", ["float32", "int64", "float64"])
def test_setitem(rng, k, name):
    a = rand_np(rng, (3, 2, 4), name)
    s, st = rand_pair(rng, (8,), name)
    i, it = index_pair([2, 0, -3])
    m, mt = rand_pair(rng, (3, 2, 4), "bool")
    x, t = pair(a, name)
    SETITEM[k](x, i, m, s)
    SETITEM[k](t, it, mt, st)
    assert_same(x, t)
    # through a non-contiguous view, whose base must see the writes
    x, t = pair(np.ascontiguousarray(a.transpose(2, 1, 0)), name)
    xv, tv = x.permute(2, 1, 0), t.permute(2, 1, 0)
    assert not xv.is_contiguous()
    SETITEM[k](xv, i, m, s)
    SETITEM[k](tv, it, mt, st)
    assert_same(x, t)
    assert_same(xv, tv)


def test_setitem_grad(rng):
    m, mt = rand_pair(rng, (3, 4), "bool")
    a, b = rand_np(rng, (3, 4), "float64"), rand_np(rng, (2, 4), "float64")
    x, t = pair(a, "float64", requires_grad=True)
    v, vt = pair(b, "float64", requires_grad=True)
    y, u = x * 1.0, t * 1.0
    y[[2, 0]] = v
    u[[2, 0]] = vt
    y[m] = 0.0
    u[mt] = 0.0
    (y * y).sum().backward()
    (u * u).sum().backward()
    assert_same(x.grad, t.grad)
    assert_same(v.grad, vt.grad)


def test_index_put(rng):
    a = rand_np(rng, (4, 3), "float64")
    x, t = pair(a, "float64")
    i, it = index_pair([0, 1, 0, 3])
    j, jt = index_pair([2, 2, 2, 0])
    v, vt = rand_pair(rng, (4,), "float64")
    x.index_put_((i, j), v, accumulate=True)
    t.index_put_((it, jt), vt, accumulate=True)
    assert_same(x, t)
    x.index_put_((i,), Dl.tensor(5.0, dtype=Dl.float64))
    t.index_put_((it,), torch.tensor(5.0, dtype=torch.float64))
    assert_same(x, t)
    assert_same(x.index_put((j,), v[:1]), t.index_put((jt,), vt[:1]))
    # accumulate gradient
    check_grad(lambda s, w: s.index_put((i, j) if isinstance(s, Dl.Tensor) else (it, jt), w,
                                        accumulate=True), a, rand_np(rng, (4,), "float64"))


def test_index_errors(rng):
    x, t = rand_pair(rng, (3, 4))
    m, mt = rand_pair(rng, (4,), "bool")
    for fn in (lambda v, k: v[[3]], lambda v, k: v[:, [-5]], lambda v, k: v[k],
               lambda v, k: v[[0.5]] if False else v[k.float()],
               lambda v, k: v[[0, 1], [0, 1, 2]], lambda v, k: v[[0], [0], [0]],
               lambda v, k: v[k, k]):
        same(fn, (x, t), (m, mt))

    def put(v, k, vals):
        v = v.clone()
        v[[0, 1]] = vals
        return v
    same(put, (x, t), (m, mt), rand_pair(rng, (3,)))
    same(put, (x, t), (m, mt), rand_pair(rng, (4,)).__class__((Dl.ones(4, dtype=Dl.int32),
                                                                 torch.ones(4, dtype=torch.int32))))

    def put_oob(v, k):
        v = v.clone()
        v[[7]] = 1.0
        return v
    same(put_oob, (x, t), (m, mt))


# ---- in place with history, index_add / index_copy / index_fill --------------------------

def test_scatter_inplace_grad(rng):
    idx = unique_index(rng, 4, 2, (2, 3), 0)
    ix, it = Dl.from_numpy(idx.copy()), torch.from_numpy(idx.copy())
    a, b = rand_np(rng, (4, 3), "float64"), rand_np(rng, (2, 3), "float64")
    x, t = pair(a, "float64", requires_grad=True)
    s, st = pair(b, "float64", requires_grad=True)
    y, u = x * 2, t * 2
    y.scatter_(0, ix, s)
    u.scatter_(0, it, st)
    y.scatter_add_(0, ix, s * s)
    u.scatter_add_(0, it, st * st)
    jx, jt = index_pair([[0], [2]])
    y.scatter_(1, jx, 0.5)
    u.scatter_(1, jt, 0.5)
    assert_same(y, u)
    (y * y).sum().backward()
    (u * u).sum().backward()
    assert_same(x.grad, t.grad)
    assert_same(s.grad, st.grad)
    with pytest.raises(RuntimeError):
        x.scatter_(0, ix, s)


def test_tril_triu_inplace_grad(rng):
    a = rand_np(rng, (3, 4), "float64")
    x, t = pair(a, "float64", requires_grad=True)
    y, u = x * 3, t * 3
    y.tril_(1)
    u.tril_(1)
    y.triu_(-1)
    u.triu_(-1)
    assert_same(y, u)
    (y * y).sum().backward()
    (u * u).sum().backward()
    assert_same(x.grad, t.grad)


@pytest.mark.parametrize("shape,dim,idx", [
    ((4, 3), 0, [3, 0, 3]), ((4, 3), 1, [2, 0]), ((2, 3, 4), -1, [1, 1, 0]), ((5,), 0, [4, 0]),
    ((4, 3), 0, []), ((4, 3), 2, [0]), ((4, 3), 0, [4]),
])
@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32"])
def test_index_add_copy_fill(rng, shape, dim, idx, name):
    x, t = rand_pair(rng, shape, name)
    ix, it = index_pair(idx)
    sshape = list(shape)
    if -len(shape) <= dim < len(shape):
        sshape[dim] = len(idx)
    s, st = rand_pair(rng, sshape, name)
    same(lambda a, i, b: a.index_add(dim, i, b), (x, t), (ix, it), (s, st))
    same(lambda a, i, b: a.index_add(dim, i, b, alpha=2), (x, t), (ix, it), (s, st))
    if len(set(idx)) == len(idx):
        same(lambda a, i, b: a.index_copy(dim, i, b), (x, t), (ix, it), (s, st))
    same(lambda a, i: a.index_fill(dim, i, 7), (x, t), (ix, it))

    def inplace(a, i, b):
        a = a.clone()
        a.index_add_(dim, i, b)
        a.index_fill_(dim, i[:1], -1)
        return a
    same(inplace, (x, t), (ix, it), (s, st))


def test_index_add_grad(rng):
    ix, it = index_pair([2, 0, 2])
    check_grad(lambda a, b: a.index_add(1, ix if isinstance(a, Dl.Tensor) else it, b),
               rand_np(rng, (2, 4), "float64"), rand_np(rng, (2, 3), "float64"))


BASIC_SET = [
    (0,), (slice(1, None),), (slice(None), 1), (Ellipsis, 2), (1, slice(0, 3, 2)),
    (-1, -1), (slice(None, None, 2), Ellipsis),
]


@pytest.mark.parametrize("k", range(len(BASIC_SET)))
def test_basic_setitem_grad(rng, k):
    """y[basic] = v keeps the graph: v gets its gradient and the
    overwritten part of y none."""
    idx = BASIC_SET[k]
    a = rand_np(rng, (3, 4), "float64")
    tv = torch.zeros(3, 4)[idx]
    b = rand_np(rng, tuple(tv.shape), "float64")
    x, t = pair(a, "float64", requires_grad=True)
    v, vt = pair(b, "float64", requires_grad=True)
    y, u = x * 2, t * 2
    y[idx] = v * 3
    u[idx] = vt * 3
    assert_same(y, u)
    (y * y).sum().backward()
    (u * u).sum().backward()
    assert_same(x.grad, t.grad)
    assert_same(v.grad, vt.grad)
    # a number, with grad flowing into self only
    x, t = pair(a, "float64", requires_grad=True)
    y, u = x * 2, t * 2
    y[idx] = 1.5
    u[idx] = 1.5
    (y * y).sum().backward()
    (u * u).sum().backward()
    assert_same(x.grad, t.grad)
    # into a tensor that does not require grad
    z, w = Dl.zeros(3, 4, dtype=Dl.float64), torch.zeros(3, 4, dtype=torch.float64)
    v, vt = pair(b, "float64", requires_grad=True)
    z[idx] = v
    w[idx] = vt
    (z * z).sum().backward()
    (w * w).sum().backward()
    assert_same(v.grad, vt.grad)


@pytest.mark.parametrize("shape,ishape", [((3, 4), (5,)), ((3, 4), (2, 2)), ((5,), ()),
                                          ((), (2,)), ((3, 4), (0,))])
def test_take_argwhere(rng, shape, ishape):
    x, t = rand_pair(rng, shape)
    n = max(int(np.prod(shape)), 1)
    ix, it = index_pair(rng.integers(-n, n, size=ishape))
    same(lambda a, i: a.take(i), (x, t), (ix, it))
    same(lambda a, i: (Dl.take if a is x else torch.take)(a, i), (x, t), (ix, it))
    same(lambda a: a.argwhere(), (x, t))
    same(lambda a: (Dl.argwhere if a is x else torch.argwhere)(a > 0), (x, t))
    ox, ot = index_pair(np.full(ishape, n))
    same(lambda a, i: a.take(i), (x, t), (ox, ot))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_uint8_masks_are_taken_as_bool_masks(rng):
    x, t = rand_pair(rng, (3, 4))
    m = rand_np(rng, (3, 4)) > 0
    md, mt = Dl.from_numpy(m.astype(np.uint8)), torch.from_numpy(m.astype(np.uint8))
    assert_same(x.masked_fill(md, 9), t.masked_fill(mt, 9))
    assert_same(x.masked_select(md), t.masked_select(mt))
    assert_same(Dl.where(md, x, -x), torch.where(mt, t, -t))
    assert_same(x[md], t[mt])
    with pytest.warns(UserWarning, match="uint8"):
        x.masked_fill(md, 0)
    y, u = x.clone(), t.clone()
    y.masked_fill_(md, -1)
    u.masked_fill_(mt, -1)
    assert_same(y, u)


@pytest.mark.parametrize('idx', [0, -1, 5, slice(0, 1), slice(None), (0,), [0], (None, 0),
                                 (Ellipsis, 0)])
def test_zero_dim_int_and_slice_index(idx):
    """A lone int or slice on a 0-dim tensor fails as in torch's fast paths
    (applySelect, applySlice), with their messages: t[0] points to .item(),
    what pre-0.4 scripts' loss.data[0] now hits; in a tuple, the index
    count fails first."""
    x, t = Dl.tensor(3.0), torch.tensor(3.0)
    for op in (lambda a: a[idx], lambda a: a.__setitem__(idx, 1.0)):
        with pytest.raises(IndexError) as te:
            op(t)
        with pytest.raises(IndexError) as de:
            op(x)
        assert str(de.value) == str(te.value)


@pytest.mark.parametrize('shape', [(), (3,), (2, 3)])
@pytest.mark.parametrize('idx', [True, False, (True,), (True, None), (None, True),
                                 (Ellipsis, False), (True, Ellipsis, True), 'tensor_true',
                                 'tensor_false'])
def test_python_bool_index(rng, shape, idx):
    """A Python bool (or a 0-dim bool tensor) indexes a new dim of size 1
    with [0] (True) or [] (False), as torch's boolToIndexingTensor: read,
    written and differentiated."""
    if isinstance(idx, str):
        idx = (Dl.tensor(idx == 'tensor_true'), torch.tensor(idx == 'tensor_true'))
    else:
        idx = (idx, idx)
    x, t = rand_pair(rng, shape, 'float64', requires_grad=True)
    y, u = x[idx[0]], t[idx[1]]
    assert_same(y, u)
    y.sum().backward()
    u.sum().backward()
    assert_same(x.grad, t.grad)
    xd, td = x.detach().clone(), t.detach().clone()
    xd[idx[0]] = 7.0
    td[idx[1]] = 7.0
    assert_same(xd, td)


def test_python_bool_index_with_other_indices():
    x, t = Dl.arange(6.0).view(2, 3), torch.arange(6.0).view(2, 3)
    for di, ti in [((Dl.tensor([0, 1]), True), (torch.tensor([0, 1]), True)),
                   ((True, 1, False), (True, 1, False)),
                   ((Dl.tensor([[0], [1]]), True, Dl.tensor([0, 2])),
                    (torch.tensor([[0], [1]]), True, torch.tensor([0, 2])))]:
        assert_same(x[di], t[ti])
