# test_linalg_more.py: mm, bmm, dot, outer and einsum compared against
# PyTorch, values and gradients, including the errors PyTorch raises.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, dl_call, rand_pair, to_np, torch_ref

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64"]


def tol(name, k=1):
    k = max(k, 1)
    return {"float32": dict(rtol=1e-5, atol=2e-6 * k),
            "float64": dict(rtol=1e-10, atol=1e-12 * k),
            "float16": dict(rtol=4e-3, atol=2e-3 * k),
            "bfloat16": dict(rtol=2e-2, atol=1e-2 * k)}.get(name, {})


def check(fn, dl_args, th_args, name, k=1):
    expected = torch_ref(fn, *th_args, upcast=name in ("float16", "bfloat16"))
    got = dl_call(fn, *dl_args, upcast=True)
    assert_same(got, expected, **tol(name, k))


def check_grad(fn, shapes, rng, name="float64", **kw):
    pairs = [rand_pair(rng, s, name, requires_grad=True) for s in shapes]
    out_d = fn(*[p[0] for p in pairs])
    out_t = fn(*[p[1] for p in pairs])
    assert_same(out_d, out_t, **kw)
    g = rng.standard_normal(tuple(out_t.shape))
    gd, gt = rand_pair(rng, out_t.shape, name)
    out_d.backward(gd)
    out_t.backward(gt)
    for x, t in pairs:
        assert_same(x.grad, t.grad, **kw)
    del g


# ---- mm / bmm / dot / outer ----------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((1, 1), (1, 1)), ((0, 3), (3, 2)),
                                    ((3, 0), (0, 2)), ((17, 9), (9, 1))], ids=str)
def test_mm(rng, name, shapes):
    x, t = rand_pair(rng, shapes[0], name, low=-1, high=1)
    y, u = rand_pair(rng, shapes[1], name, low=-1, high=1)
    check(lambda a, b: a.mm(b), (x, y), (t, u), name, shapes[0][1])
    check(lambda a, b: Dl.mm(a, b) if not isinstance(a, torch.Tensor) else torch.mm(a, b),
          (x, y), (t, u), name, shapes[0][1])


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 4, 5)), ((1, 1, 1), (1, 1, 1)),
                                    ((0, 3, 4), (0, 4, 2)), ((3, 2, 0), (3, 0, 4))], ids=str)
def test_bmm(rng, name, shapes):
    x, t = rand_pair(rng, shapes[0], name, low=-1, high=1)
    y, u = rand_pair(rng, shapes[1], name, low=-1, high=1)
    check(lambda a, b: a.bmm(b), (x, y), (t, u), name, shapes[0][2])


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_dot(rng, name, n):
    x, t = rand_pair(rng, (n,), name, low=-1, high=1)
    y, u = rand_pair(rng, (n,), name, low=-1, high=1)
    check(lambda a, b: a.dot(b), (x, y), (t, u), name, n)


@pytest.mark.parametrize("name", DTYPES + ["uint8", "bool"])
@pytest.mark.parametrize("shapes", [((3,), (4,)), ((0,), (2,)), ((1,), (1,)), ((5,), (0,))],
                         ids=str)
def test_outer(rng, name, shapes):
    x, t = rand_pair(rng, shapes[0], name)
    y, u = rand_pair(rng, shapes[1], name)
    check(lambda a, b: a.outer(b), (x, y), (t, u), name)


def test_outer_promotes(rng):
    x, t = rand_pair(rng, (3,), "int64")
    y, u = rand_pair(rng, (2,), "float32")
    assert_same(Dl.outer(x, y), torch.outer(t, u))


def test_noncontiguous(rng):
    x, t = rand_pair(rng, (5, 3), "float32")
    y, u = rand_pair(rng, (4, 5), "float32")
    assert_same(x.t().mm(y.t()), t.t().mm(u.t()))
    x, t = rand_pair(rng, (3, 2, 4), "float32")
    y, u = rand_pair(rng, (2, 5, 4), "float32")
    assert_same(x.transpose(0, 1).bmm(y.transpose(1, 2)), t.transpose(0, 1).bmm(u.transpose(1, 2)))
    x, t = rand_pair(rng, (10,), "float64")
    assert_same(x[::2].dot(x[1::2]), t[::2].dot(t[1::2]))
    assert_same(x[::3].outer(x[::4]), t[::3].outer(t[::4]))
    assert_same(x[::2].unsqueeze(0).mm(x[1::2].unsqueeze(1)),
                t[::2].unsqueeze(0).mm(t[1::2].unsqueeze(1)))
    assert_same(x[::2] @ x[1::2], t[::2] @ t[1::2])


@pytest.mark.parametrize("fn,shapes", [
    (lambda a, b: a.mm(b), [(3, 4), (4, 2)]),
    (lambda a, b: a.bmm(b), [(2, 3, 4), (2, 4, 5)]),
    (lambda a, b: a.dot(b), [(6,), (6,)]),
    (lambda a, b: a.outer(b), [(3,), (4,)]),
], ids=["mm", "bmm", "dot", "outer"])
def test_grad(rng, fn, shapes):
    check_grad(fn, shapes, rng)


@pytest.mark.parametrize("fn,shapes", [
    (lambda a, b: a.mm(b), [(3,), (3, 2)]),
    (lambda a, b: a.mm(b), [(2, 3, 4), (4, 2)]),
    (lambda a, b: a.mm(b), [(3, 4), (5, 2)]),
    (lambda a, b: a.bmm(b), [(3, 4), (4, 2)]),
    (lambda a, b: a.bmm(b), [(2, 3, 4), (3, 4, 2)]),
    (lambda a, b: a.bmm(b), [(2, 3, 4), (2, 5, 2)]),
    (lambda a, b: a.dot(b), [(3,), (4,)]),
    (lambda a, b: a.dot(b), [(3, 1), (3,)]),
    (lambda a, b: a.outer(b), [(3, 1), (3,)]),
], ids=["mm1d", "mm3d", "mm_inner", "bmm2d", "bmm_batch", "bmm_inner", "dot_size",
        "dot_2d", "outer_2d"])
def test_errors(rng, fn, shapes):
    ts = [torch.zeros(s) for s in shapes]
    xs = [Dl.zeros(*s) for s in shapes]
    with pytest.raises(RuntimeError) as e:
        fn(*ts)
    with pytest.raises(RuntimeError):
        fn(*xs)
    del e


def test_dtype_mismatch():
    for fn in (lambda a, b: a.mm(b.t()), lambda a, b: a[0].dot(b[0])):
        with pytest.raises(RuntimeError):
            fn(torch.zeros(2, 2), torch.zeros(2, 2, dtype=torch.float64))
        with pytest.raises(RuntimeError):
            fn(Dl.zeros(2, 2), Dl.zeros(2, 2, dtype=Dl.float64))


# ---- einsum ----------------------------------------------------------------

EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(5,)]*2),
    ("i,i", [(5,)]*2),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("bii->bi", [(2, 3, 3)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("ik,kj,jl->il", [(2, 3), (3, 4), (4, 5)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...,...->...", [(2, 3), (3,)]),
    ("i...->...", [(3, 2, 2)]),
    ("...i,i", [(2, 3, 4), (4,)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ij,jk->", [(3, 4), (4, 5)]),
    ("i j , j k -> i k", [(2, 3), (3, 2)]),
    (",->", [(), ()]),
    ("i,->i", [(3,), ()]),
    ("ij,jk->ik", [(0, 4), (4, 5)]),
    ("ij,jk->ik", [(3, 0), (0, 5)]),
    ("ij,jk->ik", [(1, 4), (4, 1)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
    ("ba,ab->", [(3, 4), (4, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e[0] + str(e[1]) for e in EINSUM])
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_einsum(rng, eq, shapes, name):
    pairs = [rand_pair(rng, s, name) for s in shapes]
    expected = torch.einsum(eq, *[p[1] for p in pairs])
    got = Dl.einsum(eq, *[p[0] for p in pairs])
    assert_same(got, expected, **tol(name, 8))
    got = Dl.einsum(eq, [p[0] for p in pairs])
    assert_same(got, expected, **tol(name, 8))


@pytest.mark.parametrize("name", ["float16", "bfloat16", "int64", "int32"])
def test_einsum_dtypes(rng, name):
    x, t = rand_pair(rng, (3, 4), name, low=-1, high=1)
    y, u = rand_pair(rng, (4, 2), name, low=-1, high=1)
    expected = torch_ref(lambda a, b: torch.einsum("ij,jk->ik", a, b), t, u, upcast=True)
    assert_same(dl_call(lambda a, b: Dl.einsum("ij,jk->ik", a, b), x, y, upcast=True),
                expected, **tol(name, 4))
    for eq in ("ij->j", "ij->ji", "ii->i"):
        sq, sqt = x[:, :3], t[:, :3]
        expected = torch_ref(lambda a: torch.einsum(eq, a), sqt, upcast=True)
        assert_same(dl_call(lambda a: Dl.einsum(eq, a), sq, upcast=True), expected,
                    **tol(name, 4))
    if name.startswith("int"):
        z, w = rand_pair(rng, (5,), name)
        assert_same(Dl.einsum("ij,k->k", x, z), torch.einsum("ij,k->k", t, w))


def test_einsum_noncontiguous(rng):
    x, t = rand_pair(rng, (4, 3), "float32")
    y, u = rand_pair(rng, (5, 4), "float32")
    assert_same(Dl.einsum("ij,jk", x.t(), y.t()), torch.einsum("ij,jk", t.t(), u.t()))
    z, w = rand_pair(rng, (1, 4), "float32")
    assert_same(Dl.einsum("ij,ij->i", z.expand(3, 4), x.t()),
                torch.einsum("ij,ij->i", w.expand(3, 4), t.t()))
    v, s = rand_pair(rng, (12,), "float32")
    assert_same(Dl.einsum("i,i", v[::3], v[1::3]), torch.einsum("i,i", s[::3], s[1::3]))


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(3, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ik,kj,jl->il", [(2, 3), (3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ij->", [(3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
], ids=lambda v: str(v))
def test_einsum_grad(rng, eq, shapes):
    check_grad(lambda *ts: (Dl.einsum if not isinstance(ts[0], torch.Tensor)
                            else torch.einsum)(eq, *ts), shapes, rng)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4)]),                 # operand count
    ("ij,jk->ik", [(3, 4), (5, 6)]),         # sizes differ
    ("ijk", [(3, 4)]),                       # subscripts vs dims
    ("ij->k", [(3, 4)]),                     # output label not in input
    ("ij->ii", [(3, 4)]),                    # repeated output label
    ("i1->i", [(3, 4)]),                     # invalid subscript
    ("ii->i", [(3, 4)]),                     # diagonal of unequal sizes
    ("i..j->i", [(3, 4)]),                   # broken ellipsis
], ids=lambda v: str(v))
def test_einsum_errors(eq, shapes):
    with pytest.raises(RuntimeError):
        torch.einsum(eq, *[torch.zeros(s) for s in shapes])
    with pytest.raises(RuntimeError):
        Dl.einsum(eq, *[Dl.zeros(*s) for s in shapes])


def test_einsum_dtype_mismatch():
    with pytest.raises(RuntimeError):
        Dl.einsum("ij,jk", Dl.zeros(2, 2), Dl.zeros(2, 2, dtype=Dl.float64))
    with pytest.raises(TypeError):
        Dl.einsum("ij", [1, 2])


def test_einsum_matches_numpy_large(rng):
    a = rng.standard_normal((8, 16, 32))
    b = rng.standard_normal((32, 16, 4))
    got = Dl.einsum("ijk,kjl->il", Dl.from_numpy(a), Dl.from_numpy(b))
    np.testing.assert_allclose(to_np(got), np.einsum("ijk,kjl->il", a, b), rtol=1e-10)


# ---- mv, addmm, baddbmm, tensordot, inner ------------------------------------

@pytest.mark.parametrize("name", ["float32", "float64", "int64"])
def test_mv(rng, name):
    x, t = rand_pair(rng, (3, 4), name)
    v, u = rand_pair(rng, (4,), name)
    check(lambda a, b: a.mv(b), (x, v), (t, u), name, 4)
    check(lambda a, b: a[:, ::2].mv(b[::2]),
          (x, v), (t, u), name, 4)
    for bad in ((5,), (4, 1)):
        with pytest.raises(RuntimeError):
            torch.mv(t, torch.zeros(bad, dtype=t.dtype))
        with pytest.raises(RuntimeError):
            Dl.mv(x, Dl.zeros(bad, dtype=x.dtype))


@pytest.mark.parametrize("input_shape", [(3, 5), (5,), (1, 5), (3, 1), ()], ids=str)
@pytest.mark.parametrize("ab", [(1, 1), (0.5, 2), (0, 1), (2, 0)], ids=str)
def test_addmm(rng, input_shape, ab):
    beta, alpha = ab
    i, it = rand_pair(rng, input_shape, "float64")
    x, t = rand_pair(rng, (3, 4), "float64")
    y, u = rand_pair(rng, (4, 5), "float64")
    assert_same(Dl.addmm(i, x, y, beta=beta, alpha=alpha),
                torch.addmm(it, t, u, beta=beta, alpha=alpha))
    assert_same(i.addmm(x, y), it.addmm(t, u))
    b1, c1 = rand_pair(rng, (2, 3, 4), "float64")
    b2, c2 = rand_pair(rng, (2, 4, 5), "float64")
    # torch 1.13's baddbmm with beta=0 reads its uninitialised output
    # (0 * NaN gives NaN now and then), so that case compares with bmm
    expected = (alpha * torch.bmm(c1, c2) if beta == 0
                else torch.baddbmm(it, c1, c2, beta=beta, alpha=alpha))
    assert_same(Dl.baddbmm(i, b1, b2, beta=beta, alpha=alpha), expected)


# alpha = 1 starts the result as beta * input and lets the GEMM add to it
# (DlGemmArgs' accumulate); sizes from one product through the split of
# rows (m >= n) and of columns over threads, broadcast inputs, k = 0
@pytest.mark.parametrize("mnk", [(3, 5, 4), (96, 80, 100), (40, 200, 90), (7, 9, 0),
                                 (300, 64, 130)], ids=str)
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_addmm_adds_into_its_input(rng, mnk, name):
    m, n, k = mnk
    x, t = rand_pair(rng, (m, k), name)
    y, u = rand_pair(rng, (k, n), name)
    for shape in ((m, n), (n,), (m, 1), (1,), ()):
        i, it = rand_pair(rng, shape, name)
        for beta in (1, 0.5, -2):
            assert_same(Dl.addmm(i, x, y, beta=beta), torch.addmm(it, t, u, beta=beta),
                        msg="%s beta %s: " % (shape, beta))
    # the input is read, not written; non-contiguous operands
    i, it = rand_pair(rng, (n,), name)
    before = to_np(i).copy()
    assert_same(Dl.addmm(i, x.t().contiguous().t(), y[:, :]),
                torch.addmm(it, t.t().contiguous().t(), u))
    np.testing.assert_array_equal(to_np(i), before)
    # a linear layer's batch of rows, 2-D and 3-D
    w, wt = rand_pair(rng, (n, k), name)
    b, bt = rand_pair(rng, (n,), name)
    assert_same(Dl.nn.functional.linear(x, w, b), torch.nn.functional.linear(t, wt, bt))
    assert_same(Dl.nn.functional.linear(x.reshape(1, m, k), w, b),
                torch.nn.functional.linear(t.reshape(1, m, k), wt, bt))


def test_addmm_beta0_ignores_nan(rng):
    x, t = rand_pair(rng, (3, 4), "float32")
    y, u = rand_pair(rng, (4, 5), "float32")
    nan_d, nan_t = Dl.full((3, 5), float("nan")), torch.full((3, 5), float("nan"))
    assert_same(Dl.addmm(nan_d, x, y, beta=0), torch.addmm(nan_t, t, u, beta=0))
    with pytest.raises(RuntimeError):
        torch.addmm(torch.zeros(4, 5), t, u)
    with pytest.raises(RuntimeError):
        Dl.addmm(Dl.zeros(4, 5), x, y)


def test_addmm_grad(rng):
    check_grad(lambda i, a, b: (Dl if not isinstance(i, torch.Tensor) else torch).addmm(
        i, a, b, beta=0.5, alpha=2), [(5,), (3, 4), (4, 5)], rng)
    check_grad(lambda i, a, b: i.baddbmm(a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)], rng)
    check_grad(lambda a, b: a.mv(b), [(3, 4), (4,)], rng)


# (op, input shape, operand shapes) of the three other scaled products
ADDS = [('addbmm', (3, 5), ((2, 3, 4), (2, 4, 5))), ('addbmm', (5,), ((1, 3, 4), (1, 4, 5))),
        ('addbmm', (), ((2, 3, 4), (2, 4, 5))), ('addmv', (3,), ((3, 4), (4,))),
        ('addmv', (1,), ((3, 4), (4,))), ('addmv', (), ((3, 4), (4,))),
        ('addr', (3, 5), ((3,), (5,))), ('addr', (5,), ((3,), (5,))),
        ('addr', (3, 1), ((3,), (5,)))]


@pytest.mark.parametrize("op,input_shape,shapes", ADDS, ids=str)
@pytest.mark.parametrize("ab", [(1, 1), (0.5, 2), (2, 0)], ids=str)
@pytest.mark.parametrize("name", ["float32", "float64", "int64"])
def test_scaled_products(rng, op, input_shape, shapes, ab, name):
    beta, alpha = ab
    if name == "int64":
        beta, alpha = int(beta * 2), int(alpha)
    i, it = rand_pair(rng, input_shape, name)
    (x, t), (y, u) = (rand_pair(rng, s, name) for s in shapes)
    check(lambda f, *a: getattr(f, op)(*a, beta=beta, alpha=alpha), (Dl, i, x, y),
          (torch, it, t, u), name, 4)
    # the method, on a non-contiguous input
    xt, tt = rand_pair(rng, shapes[0][::-1], name)
    check(lambda a, b, c: getattr(a, op)(b.transpose(0, -1) if b.dim() > 1 else b, c),
          (i, xt if len(shapes[0]) > 1 else x, y), (it, tt if len(shapes[0]) > 1 else t, u),
          name, 4)


def test_scaled_products_beta0_ignores_nan_and_errors(rng):
    for op, _, shapes in ADDS[::3]:
        (x, t), (y, u) = (rand_pair(rng, s, "float64") for s in shapes)
        out = getattr(Dl, op)(Dl.full((1,), float("nan"), dtype=Dl.float64), x, y, beta=0)
        ref = getattr(torch, op)(torch.full((1,), float("nan"), dtype=torch.float64), t, u,
                                 beta=0)
        assert_same(out, ref)
        # operands that do not fit: torch's RuntimeError, naming the op
        bad_d, bad_t = rand_pair(rng, tuple(n + 1 for n in shapes[1]), "float64")
        with pytest.raises(RuntimeError):
            getattr(torch, op)(ref, t, bad_t)
        with pytest.raises(RuntimeError, match=None if Dl is torch else op):
            getattr(Dl, op)(out, x, bad_d)
        # an input that does not broadcast to the product
        with pytest.raises(RuntimeError):
            getattr(torch, op)(torch.zeros(7, 7, dtype=torch.float64), t, u)
        with pytest.raises(RuntimeError, match=None if Dl is torch else op):
            getattr(Dl, op)(Dl.zeros(7, 7, dtype=Dl.float64), x, y)


@pytest.mark.parametrize("op,input_shape,shapes", ADDS[::2], ids=str)
def test_scaled_products_grad(rng, op, input_shape, shapes):
    check_grad(lambda i, a, b: getattr(i, op)(a, b, beta=0.5, alpha=-2),
               [input_shape] + list(shapes), rng)


def test_baddbmm_graph_as_torch(rng):
    pairs = [rand_pair(rng, s, "float64", requires_grad=True)
             for s in ((3, 5), (2, 3, 4), (2, 4, 5))]
    out = Dl.baddbmm(*[p[0] for p in pairs], beta=0.5, alpha=2)
    assert out.grad_fn.name() == torch.baddbmm(*[p[1] for p in pairs]).grad_fn.name()
    gradcheck, gradgradcheck = Dl.autograd.gradcheck, Dl.autograd.gradgradcheck
    assert gradcheck(lambda *a: Dl.baddbmm(*a, beta=0.5, alpha=2), [p[0] for p in pairs])
    assert gradgradcheck(lambda *a: Dl.baddbmm(*a, beta=0.5, alpha=2), [p[0] for p in pairs])


TENSORDOT = [((3, 4, 5), (4, 5, 6), 2), ((3, 4, 5), (4, 5, 6), ([1, 2], [0, 1])),
             ((3, 4, 5), (5, 4, 6), ([1, 2], [1, 0])), ((3, 4), (4, 5), 1), ((3,), (4,), 0),
             ((2, 3), (3, 2), ([0, 1], [1, 0])), ((3, 4), (5, 4), ([-1], [-1])),
             ((3, 4, 5), (4, 5), ([1, 2], [0, 1])), ((), (3,), 0)]


@pytest.mark.parametrize("sa,sb,dims", TENSORDOT, ids=str)
def test_tensordot(rng, sa, sb, dims):
    x, t = rand_pair(rng, sa, "float64")
    y, u = rand_pair(rng, sb, "float64")
    assert_same(Dl.tensordot(x, y, dims), torch.tensordot(t, u, dims))


def test_tensordot_errors_and_grad(rng):
    for sa, sb, dims in (((3, 4), (5, 4), 1), ((3, 4), (4, 5), ([1], [0, 1])),
                         ((3, 4), (4, 5), 3)):
        # torch 1.13 raises IndexError for lists of different lengths
        with pytest.raises((RuntimeError, IndexError)):
            torch.tensordot(torch.zeros(sa), torch.zeros(sb), dims)
        with pytest.raises((RuntimeError, IndexError)):
            Dl.tensordot(Dl.zeros(sa), Dl.zeros(sb), dims)
    with pytest.raises(IndexError):
        Dl.tensordot(Dl.zeros(3, 4), Dl.zeros(4, 5), ([5], [0]))
    check_grad(lambda a, b: (Dl if not isinstance(a, torch.Tensor) else torch).tensordot(
        a, b, ([1, 2], [1, 0])), [(3, 4, 5), (5, 4, 2)], rng)


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (4, 3)), ((2, 3, 4), (5, 4)),
                                   ((), (3, 2)), ((2,), ())], ids=str)
def test_inner(rng, sa, sb):
    x, t = rand_pair(rng, sa, "float64")
    y, u = rand_pair(rng, sb, "float64")
    assert_same(Dl.inner(x, y), torch.inner(t, u))
