# test_scatter_reduce.py: scatter with reduce= ('add', 'multiply', of a
# tensor and of a number) and scatter_reduce ('sum', 'prod', 'mean', 'amax',
# 'amin', with and without self), out of place and in place, compared
# against PyTorch 1.13: values and dtypes over several shapes (0-d, empty,
# src bigger than the index) and dtypes, non-contiguous operands,
# gradients (ties of amax/amin, zeros of prod) and bad inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

import numpy as np
import pytest
import torch

from conftest import (DTYPES, NONCONTIG, SELF_CHECK, Dl, assert_same, pair, rand_np,
                      rand_pair, torch_ref)

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]

# (self shape, dim, index shape, src shape): repeated indices everywhere
CASES = [
    ((4, 5), 0, (6, 5), (6, 5)),
    ((4, 5), 1, (4, 7), (4, 8)),             # src bigger than the index
    ((2, 3, 4), -1, (2, 3, 6), (2, 3, 6)),
    ((2, 3, 4), 1, (1, 5, 2), (2, 5, 4)),
    ((6,), 0, (10,), (10,)),
    ((3, 4), 0, (0, 4), (0, 4)),             # empty index
    ((0, 4), 1, (0, 4), (0, 4)),             # empty self
    ((), 0, (), ()),                         # 0-d
    ((), 0, (3,), (3,)),                     # 0-d self, 1-d index
    ((5,), 0, (), ()),                       # 0-d index
]
CASE_IDS = ["x".join(map(str, c[0])) + "-d%d-i" % c[1] + "x".join(map(str, c[2]))
            for c in CASES]

# torch 1.13 warns that scatter_reduce is in beta
pytestmark = pytest.mark.filterwarnings("ignore:scatter_reduce")


def random_index(rng, self_shape, dim, ishape):
    size = self_shape[dim] if self_shape else 1
    return rng.integers(0, max(size, 1), size=ishape).astype(np.int64)


def ipair(a):
    return pair(np.asarray(a, dtype=np.int64))


def compare(fn, *args, **tol):
    """fn on the libdl halves and the torch halves of args (pairs, or
    values passed to both): equal results, or the same exception class."""
    dls = [a[0] if isinstance(a, tuple) else a for a in args]
    ths = [a[1] if isinstance(a, tuple) else a for a in args]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = torch_ref(fn, *ths)
    except (RuntimeError, IndexError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            fn(*dls)
        return None
    got = fn(*dls)
    assert_same(got, expected, **tol)
    return got


# ---- scatter with reduce= -------------------------------------------------------

@pytest.mark.parametrize("shape,dim,ishape,sshape", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("name", DTYPES)
def test_scatter_reduce_argument(rng, shape, dim, ishape, sshape, name):
    x, t = rand_pair(rng, shape, name)
    s, st = rand_pair(rng, sshape, name)
    ix, it = ipair(random_index(rng, shape, dim, ishape))
    for reduce in ("add", "multiply"):
        compare(lambda a, i, b: a.scatter(dim, i, b, reduce=reduce), (x, t), (ix, it), (s, st))
        compare(lambda a, i: a.scatter(dim, i, 2, reduce=reduce), (x, t), (ix, it))
        compare(lambda a, i: a.scatter(dim, i, value=-1.5, reduce=reduce), (x, t), (ix, it))
        compare(lambda a, i, b: (Dl.scatter if a is x else torch.scatter)(
            a, dim, i, b, reduce=reduce), (x, t), (ix, it), (s, st))


def test_scatter_reduce_argument_inplace(rng):
    for name in ("float32", "int64"):
        x, t = rand_pair(rng, (4, 3), name)
        s, st = rand_pair(rng, (5, 3), name)
        ix, it = ipair(rng.integers(0, 4, size=(5, 3)))
        assert x.scatter_(0, ix, s, reduce="add") is x
        t.scatter_(0, it, st, reduce="add")
        assert_same(x, t)
        x.scatter_(0, ix, s, reduce="multiply")
        t.scatter_(0, it, st, reduce="multiply")
        assert_same(x, t)
        jx, jt = ipair(rng.integers(0, 3, size=(4, 2)))
        x.scatter_(1, jx, 3, reduce="add")
        t.scatter_(1, jt, 3, reduce="add")
        assert_same(x, t)
        x.scatter_(1, jx[:, :1], value=2, reduce="multiply")
        t.scatter_(1, jt[:, :1], value=2, reduce="multiply")
        assert_same(x, t)


def test_scatter_reduce_argument_not_differentiable(rng):
    """PyTorch records the op but defines no derivative: backward fails."""
    for src in (True, False):
        x, t = rand_pair(rng, (3, 4), "float64", requires_grad=True)
        s, st = rand_pair(rng, (3, 4), "float64")
        ix, it = ipair(rng.integers(0, 3, size=(3, 4)))
        for a, i, b in ((x, ix, s), (t, it, st)):
            out = a.scatter(0, i, b if src else 2.0, reduce="multiply")
            assert out.requires_grad
            with pytest.raises(RuntimeError):
                out.sum().backward()


# ---- scatter_reduce ---------------------------------------------------------------

@pytest.mark.parametrize("shape,dim,ishape,sshape", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("name", DTYPES)
def test_scatter_reduce(rng, shape, dim, ishape, sshape, name):
    x, t = rand_pair(rng, shape, name)
    s, st = rand_pair(rng, sshape, name)
    ix, it = ipair(random_index(rng, shape, dim, ishape))
    for reduce in REDUCTIONS:
        for include_self in (True, False):
            compare(lambda a, i, b: a.scatter_reduce(dim, i, b, reduce,
                                                     include_self=include_self),
                    (x, t), (ix, it), (s, st))
    compare(lambda a, i, b: (Dl if a is x else torch).scatter_reduce(a, dim, i, b, "amax"),
            (x, t), (ix, it), (s, st))


@pytest.mark.parametrize("name", ["int32", "int64", "uint8"])
def test_scatter_reduce_integer_mean_rounds_down(name):
    """Integer means floor (negative sums included), places nothing names
    keep their value."""
    a = np.array([-1, 2, 3, 4]) if name != "uint8" else np.array([1, 2, 3, 4])
    src = np.array([-5, 6, -7, 8, 9, 10]) if name != "uint8" else np.array([5, 6, 7, 8, 9, 10])
    x, t = pair(a, name)
    s, st = pair(src, name)
    ix, it = ipair([0, 0, 1, 1, 1, 3])
    for include_self in (True, False):
        compare(lambda u, i, b: u.scatter_reduce(0, i, b, "mean", include_self=include_self),
                (x, t), (ix, it), (s, st))


def test_scatter_reduce_nan():
    nan = float("nan")
    x, t = pair(np.array([1.0, nan, 3.0, 4.0]), "float32")
    s, st = pair(np.array([nan, 6.0, 7.0, 8.0, nan, 2.0]), "float32")
    ix, it = ipair([0, 0, 1, 1, 2, 2])
    for reduce in REDUCTIONS:
        for include_self in (True, False):
            compare(lambda a, i, b: a.scatter_reduce(0, i, b, reduce, include_self=include_self),
                    (x, t), (ix, it), (s, st))


@pytest.mark.parametrize("label,shape,view", NONCONTIG + [
    ("step", (6, 8), lambda t: t[::2, 1::2])], ids=[v[0] for v in NONCONTIG] + ["step"])
def test_scatter_reduce_noncontiguous(rng, label, shape, view):
    """A strided self (written into a fresh result), a strided src and a
    transposed index."""
    x, t = rand_pair(rng, shape)
    xv, tv = view(x), view(t)
    vshape = tuple(tv.shape)
    s, st = rand_pair(rng, vshape[::-1] + (2,))
    sv, stv = s[..., 0].t() if len(vshape) == 2 else s[..., 0].permute(2, 1, 0), \
        st[..., 0].t() if len(vshape) == 2 else st[..., 0].permute(2, 1, 0)
    idx = rng.integers(0, vshape[0], size=vshape[::-1])
    ix, it = ipair(idx)
    ixv = ix.t() if len(vshape) == 2 else ix.permute(2, 1, 0)
    itv = it.t() if len(vshape) == 2 else it.permute(2, 1, 0)
    assert not ixv.is_contiguous() and not sv.is_contiguous()
    for reduce in REDUCTIONS:
        compare(lambda a, i, b: a.scatter_reduce(0, i, b, reduce), (xv, tv), (ixv, itv),
                (sv, stv))
        compare(lambda a, i, b: a.scatter_reduce(0, i, b, reduce, include_self=False),
                (xv, tv), (ixv, itv), (sv, stv))
    compare(lambda a, i, b: a.scatter(0, i, b, reduce="multiply"), (xv, tv), (ixv, itv),
            (sv, stv))


def test_scatter_reduce_inplace(rng):
    for name in ("float64", "int32"):
        x, t = rand_pair(rng, (4, 3), name)
        s, st = rand_pair(rng, (6, 3), name)
        ix, it = ipair(rng.integers(0, 4, size=(6, 3)))
        for reduce in REDUCTIONS:
            assert x.scatter_reduce_(0, ix, s, reduce, include_self=False) is x
            t.scatter_reduce_(0, it, st, reduce, include_self=False)
            assert_same(x, t)
            jx, jt = ipair(rng.integers(0, 3, size=(4, 2)))
            x.scatter_reduce_(1, jx, s, reduce)
            t.scatter_reduce_(1, jt, st, reduce)
            assert_same(x, t)


# ---- gradients ------------------------------------------------------------------------

def grads(lib_pairs, fn, w_seed=0):
    """Gradients of sum(fn(self, src) * w) for the libdl and torch pairs."""
    (x, t), (s, st) = lib_pairs
    out_t = fn(t, st)
    w = np.random.default_rng(w_seed).standard_normal(tuple(out_t.shape))
    wx, wt = pair(w, "float64")
    (out_t * wt).sum().backward()
    out_x = fn(x, s)
    assert_same(out_x, out_t)
    (out_x * wx).sum().backward()
    assert_same(x.grad, t.grad, msg="self grad: ")
    assert_same(s.grad, st.grad, msg="src grad: ")


def tie_values(rng, shape, low, high):
    """Small integers as float64: ties for amax/amin, zeros for prod."""
    return rng.integers(low, high, size=shape).astype(np.float64)


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("values", ["random", "ties"])
def test_scatter_reduce_grad(rng, reduce, include_self, values):
    """Gradients of self and src; with "ties", amax/amin split the gradient
    among equal values (self included when it equals the result, as PyTorch
    does even without include_self) and prod meets zeros, single and
    repeated, in self and src."""
    for shape, dim, ishape in (((4, 3), 0, (7, 3)), ((3, 5), 1, (3, 8)), ((2, 3, 2), 1,
                                                                          (2, 5, 2))):
        if values == "random":
            a, b = rand_np(rng, shape, "float64"), rand_np(rng, ishape, "float64")
        else:
            a, b = tie_values(rng, shape, -1, 2), tie_values(rng, ishape, -1, 2)
        ix, it = ipair(random_index(rng, shape, dim, ishape))
        ps = [pair(a, "float64", requires_grad=True), pair(b, "float64", requires_grad=True)]
        grads(ps, lambda u, v: u.scatter_reduce(dim, ix if isinstance(u, Dl.Tensor) else it,
                                                v, reduce, include_self=include_self))


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_scatter_reduce_grad_0d(rng, reduce):
    """0-d self, index or src: a 0-d index names one element."""
    for shape, idx, sshape in (((), 0, ()), ((5,), 3, ()), ((), [0, 0], (2,))):
        for include_self in (True, False):
            ix, it = ipair(idx)
            ps = [pair(tie_values(rng, shape, -1, 2), "float64", requires_grad=True),
                  pair(tie_values(rng, sshape, -1, 2), "float64", requires_grad=True)]
            grads(ps, lambda u, v: u.scatter_reduce(0, ix if isinstance(u, Dl.Tensor) else it,
                                                    v, reduce, include_self=include_self))


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_scatter_reduce_inplace_grad(rng, reduce):
    """scatter_reduce_ on a non-leaf: the gradient uses self's values from
    before the write."""
    a, b = tie_values(rng, (4, 3), -1, 3), tie_values(rng, (6, 3), -1, 3)
    ix, it = ipair(random_index(rng, (4, 3), 0, (6, 3)))
    ps = [pair(a, "float64", requires_grad=True), pair(b, "float64", requires_grad=True)]

    def fn(u, v):
        y = u * 1
        y.scatter_reduce_(0, ix if isinstance(u, Dl.Tensor) else it, v, reduce,
                          include_self=False)
        return y * 2

    grads(ps, fn)
    x = ps[0][0]
    with pytest.raises(RuntimeError):
        x.scatter_reduce_(0, ix, ps[1][0], reduce)       # a leaf that requires grad


def test_scatter_reduce_grad_only_src(rng):
    a, b = rand_np(rng, (3, 4), "float64"), rand_np(rng, (5, 4), "float64")
    ix, it = ipair(random_index(rng, (3, 4), 0, (5, 4)))
    for reduce in REDUCTIONS:
        x, t = pair(a, "float64")
        s, st = pair(b, "float64", requires_grad=True)
        x.scatter_reduce(0, ix, s, reduce).sum().backward()
        t.scatter_reduce(0, it, st, reduce).sum().backward()
        assert_same(s.grad, st.grad)
        assert x.grad is None


@pytest.mark.skipif(SELF_CHECK, reason="torch 1.13 fails here: src grad shaped like the index")
def test_scatter_reduce_grad_src_bigger_than_index(rng):
    """src's elements outside the index's shape get a zero gradient; the
    rest match torch run on src's corner."""
    a, b = rand_np(rng, (3, 4), "float64"), rand_np(rng, (6, 5), "float64")
    ix, it = ipair(random_index(rng, (3, 4), 0, (4, 4)))
    for reduce in REDUCTIONS:
        x, t = pair(a, "float64", requires_grad=True)
        s, st = pair(b, "float64", requires_grad=True)
        x.scatter_reduce(0, ix, s, reduce).pow(2).sum().backward()
        t.scatter_reduce(0, it, st[:4, :4], reduce).pow(2).sum().backward()
        assert_same(x.grad, t.grad)
        expected = torch.zeros(6, 5, dtype=torch.float64)
        expected[:4, :4] = st.grad[:4, :4]
        assert_same(s.grad, expected)


def test_scatter_reduce_grad_fn(rng):
    x, _ = rand_pair(rng, (3,), "float64", requires_grad=True)
    s, _ = rand_pair(rng, (2,), "float64")
    ix, _ = ipair([0, 2])
    assert x.scatter_reduce(0, ix, s, "amin").grad_fn.name() == "ScatterReduceBackward0"


# ---- bad inputs -----------------------------------------------------------------------

def test_scatter_reduce_errors(rng):
    x, t = rand_pair(rng, (3, 4))
    s, st = rand_pair(rng, (3, 4))
    for idx in ([[3]], [[-1]], [[0, 0, 0, 0, 0]], [0], [[[0]]]):
        for reduce in REDUCTIONS:
            compare(lambda a, i, b: a.scatter_reduce(0, i, b, reduce), (x, t), ipair(idx),
                    (s, st))
        compare(lambda a, i, b: a.scatter(0, i, b, reduce="add"), (x, t), ipair(idx), (s, st))
        compare(lambda a, i: a.scatter(0, i, 1.0, reduce="multiply"), (x, t), ipair(idx))
    ok = ipair([[0, 1]])
    # dims out of range: IndexError
    for dim in (2, -3):
        compare(lambda a, i, b: a.scatter_reduce(dim, i, b, "sum"), (x, t), ok, (s, st))
        compare(lambda a, i, b: a.scatter(dim, i, b, reduce="add"), (x, t), ok, (s, st))
    # dtypes: src, index, and mean of bool
    compare(lambda a, i, b: a.scatter_reduce(0, i, b.double(), "sum"), (x, t), ok, (s, st))
    compare(lambda a, i, b: a.scatter(0, i, b.double(), reduce="add"), (x, t), ok, (s, st))
    compare(lambda a, i, b: a.scatter_reduce(0, i.int(), b, "sum"), (x, t), ok, (s, st))
    compare(lambda a, i, b: (a > 0).scatter_reduce(0, i, b > 0, "mean"), (x, t), ok, (s, st))
    # unknown reductions, and a missing one
    for bad in ("max", "add", "Sum", ""):
        compare(lambda a, i, b: a.scatter_reduce(0, i, b, bad), (x, t), ok, (s, st))
    for bad in ("sum", "mul", "mean"):
        compare(lambda a, i, b: a.scatter(0, i, b, reduce=bad), (x, t), ok, (s, st))
        compare(lambda a, i, b: a.scatter_(0, i, b, reduce=bad), (x, t), ok, (s, st))
    compare(lambda a, i, b: a.scatter_reduce(0, i, b), (x, t), ok, (s, st))


@pytest.mark.skipif(SELF_CHECK, reason="libdl's messages")
def test_scatter_reduce_error_messages(rng):
    x, _ = rand_pair(rng, (3, 4))
    s, _ = rand_pair(rng, (2, 4))
    with pytest.raises(RuntimeError, match=r"scatter_reduce\(\): index 7 is out of bounds for "
                                           r"dimension 0 with size 3"):
        x.scatter_reduce(0, ipair([[7]])[0], s, "sum")
    with pytest.raises(RuntimeError, match=r"scatter_reduce\(\): reduce argument must be "
                                           r"either sum, prod, mean, amax or amin, not 'max'"):
        x.scatter_reduce(0, ipair([[0]])[0], s, "max")
    with pytest.raises(RuntimeError, match=r"scatter_reduce\(\): Size does not match at "
                                           r"dimension 0: index \[3, 1\], self \[3, 4\]"):
        x.scatter_reduce(1, ipair([[0], [0], [0]])[0], s, "sum")
    with pytest.raises(IndexError, match=r"scatter_reduce"):
        x.scatter_reduce(5, ipair([[0]])[0], s, "sum")
