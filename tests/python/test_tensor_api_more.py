# test_tensor_api_more.py: the in-place forms addmm_, addmv_, addbmm_,
# baddbmm_, addr_, lerp_, nan_to_num_, logical_*_, cumsum_, cumprod_,
# clamp_min_/clamp_max_; the torch.<op>_ functions; and quantile,
# nanquantile, masked_scatter, put_, index_reduce, sum_to_size,
# fill_diagonal_, the scatter forms, tril/triu_indices, combinations,
# trapezoid, vander, the window functions and the dtype queries, against
# PyTorch: values, dtypes, gradients and bad inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, compare_grads, pair, rand_np, same_pairs

ADD_PRODUCTS = [
    ("addmm_", (3, 5), (3, 4), (4, 5)),
    ("addmv_", (3,), (3, 4), (4,)),
    ("addbmm_", (3, 5), (2, 3, 4), (2, 4, 5)),
    ("baddbmm_", (2, 3, 5), (2, 3, 4), (2, 4, 5)),
    ("addr_", (3, 5), (3,), (5,)),
]


@pytest.mark.parametrize("name,s0,s1,s2", ADD_PRODUCTS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_add_product_inplace(rng, name, s0, s1, s2, dtype):
    a, b, c = (rand_np(rng, s, dtype) for s in (s0, s1, s2))
    for beta, alpha in ((1, 1), (0.5, -2), (0, 3)):
        x, t = pair(a, dtype)
        r = getattr(x, name)(pair(b, dtype)[0], pair(c, dtype)[0], beta=beta, alpha=alpha)
        getattr(t, name)(pair(b, dtype)[1], pair(c, dtype)[1], beta=beta, alpha=alpha)
        assert r is x
        assert_same(x, t)


@pytest.mark.parametrize("name,s0,s1,s2", ADD_PRODUCTS)
def test_add_product_inplace_grad(rng, name, s0, s1, s2):
    def run(lib, x, y, z):
        h = x * 1  # a non-leaf, written in place
        return getattr(h, name)(y, z, beta=0.5, alpha=2)
    compare_grads(lambda *v: run(Dl, *v), lambda *v: run(torch, *v),
                  *(rand_np(rng, s, "float64") for s in (s0, s1, s2)))


def test_add_product_inplace_errors(rng):
    x, t = pair(rand_np(rng, (3,), "float32"))
    m, mt = pair(rand_np(rng, (3, 4), "float32"))
    v, vt = pair(rand_np(rng, (4, 5), "float32"))
    # self must have the product's shape: the in-place form does not broadcast
    with pytest.raises(RuntimeError):
        t.addmm_(mt, vt)
    with pytest.raises(RuntimeError, match="addmm"):
        x.addmm_(m, v)
    leaf, leaf_t = pair(rand_np(rng, (3, 5), "float32"), requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf_t.addmm_(mt, vt)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf.addmm_(m, v)
    with pytest.raises(TypeError):
        leaf.detach().addmm_(m, 3)


def test_add_product_inplace_noncontiguous(rng):
    a = rand_np(rng, (5, 3), "float32")
    x, t = pair(a)
    b, c = rand_np(rng, (3, 4), "float32"), rand_np(rng, (4, 5), "float32")
    x.t().addmm_(pair(b)[0], pair(c)[0])
    t.t().addmm_(pair(b)[1], pair(c)[1])
    assert_same(x, t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lerp_inplace(rng, dtype):
    a, b, w = (rand_np(rng, s, dtype) for s in ((3, 4), (4,), (3, 1)))
    for weight in (0.25, "tensor"):
        x, t = pair(a, dtype)
        wx, wt = (pair(w, dtype) if weight == "tensor" else (weight, weight))
        assert x.lerp_(pair(b, dtype)[0], wx) is x
        t.lerp_(pair(b, dtype)[1], wt)
        assert_same(x, t)


def test_lerp_inplace_grad(rng):
    def run(x, e, w):
        h = x * 1
        return h.lerp_(e, w)
    compare_grads(lambda *v: run(*v), lambda *v: run(*v),
                  *(rand_np(rng, s, "float64") for s in ((3, 4), (3, 4), (3, 4))))
    compare_grads(lambda x, e: (x * 1).lerp_(e, 0.3), lambda x, e: (x * 1).lerp_(e, 0.3),
                  rand_np(rng, (5,), "float64"), rand_np(rng, (5,), "float64"))


def test_lerp_inplace_errors(rng):
    x, t = pair(rand_np(rng, (3,), "float32"))
    e, et = pair(rand_np(rng, (2, 3), "float32"))
    with pytest.raises(RuntimeError):
        t.lerp_(et, 0.5)
    with pytest.raises(RuntimeError):
        x.lerp_(e, 0.5)
    with pytest.raises(TypeError):
        x.lerp_(e, "half")


def test_nan_to_num_inplace(rng):
    a = np.array([1.0, np.nan, np.inf, -np.inf, -2.0], dtype=np.float32)
    for kw in ({}, {"nan": 7.0}, {"nan": 1.0, "posinf": 2.0, "neginf": -3.0}):
        x, t = pair(a)
        assert x.nan_to_num_(**kw) is x
        t.nan_to_num_(**kw)
        assert_same(x, t)
    compare_grads(lambda v: (v * 1).nan_to_num_(), lambda v: (v * 1).nan_to_num_(),
                  np.array([1.0, 2.0, -3.0]))


@pytest.mark.parametrize("op", ["logical_and_", "logical_or_", "logical_xor_"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_logical_inplace(rng, op, dtype):
    a = rand_np(rng, (3, 4), dtype)
    if dtype != "bool":
        a[0] = 0
    b = rand_np(rng, (4,), "bool")
    x, t = pair(a, dtype)
    assert getattr(x, op)(pair(b, "bool")[0]) is x
    getattr(t, op)(pair(b, "bool")[1])
    assert_same(x, t)
    x, t = pair(a, dtype)
    x.logical_not_()
    t.logical_not_()
    assert_same(x, t)
    with pytest.raises(TypeError):
        getattr(x, op)(1)


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_scan_inplace(rng, op, dtype):
    a = rand_np(rng, (3, 4, 2), dtype, low=-1.5, high=1.5)
    for dim in (0, 1, -1):
        x, t = pair(a, dtype)
        assert getattr(x, op)(dim) is x
        getattr(t, op)(dim)
        assert_same(x, t)
    # a transposed view: written through to its base
    x, t = pair(a, dtype)
    getattr(x.transpose(0, 2), op)(1)
    getattr(t.transpose(0, 2), op)(1)
    assert_same(x, t)


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
def test_scan_inplace_grad(rng, op):
    compare_grads(lambda v: getattr(v * 1, op)(1), lambda v: getattr(v * 1, op)(1),
                  rand_np(rng, (3, 4), "float64", low=0.5, high=1.5))
    x = pair(rand_np(rng, (3,), "float32"))[0]
    with pytest.raises(IndexError):
        getattr(x, op)(2)


def test_clamp_min_max_inplace(rng):
    a = rand_np(rng, (4, 3), "float32")
    for op, v in (("clamp_min_", 0.5), ("clamp_max_", -0.5)):
        x, t = pair(a)
        assert getattr(x, op)(v) is x
        getattr(t, op)(v)
        assert_same(x, t)
        assert_same(getattr(Dl, op[:-1])(pair(a)[0], v), getattr(torch, op[:-1])(pair(a)[1], v))


@pytest.mark.parametrize("name", ["abs_", "exp_", "sqrt_", "sigmoid_", "tanh_", "zero_",
                                  "round_", "neg_", "clamp_min_", "fill_"])
def test_torch_inplace_functions(rng, name):
    a = rand_np(rng, (3, 4), "float32", positive=True)
    args = {"clamp_min_": (0.5,), "fill_": (2.5,)}.get(name, ())
    x, t = pair(a)
    r = getattr(Dl, name)(x, *args)
    getattr(torch, name)(t, *args)
    assert r is x
    assert_same(x, t)


@pytest.mark.parametrize("q", [0.0, 0.3, 0.5, 1.0, [0.1, 0.9], "tensor"])
@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile(rng, q, interp):
    a = rand_np(rng, (4, 7), "float64")
    x, t = pair(a, "float64")
    qx, qt = (pair(np.array([0.25, 0.5, 0.8]), "float64") if q == "tensor"
              else (torch.tensor(q, dtype=torch.float64), ) * 2 if isinstance(q, list)
              else (q, q))
    if isinstance(q, list):
        qx = Dl.tensor(q, dtype=Dl.float64)
    for dim, keepdim in ((None, False), (None, True), (0, False), (1, True), (-1, False)):
        assert_same(x.quantile(qx, dim, keepdim, interpolation=interp),
                    t.quantile(qt, dim, keepdim, interpolation=interp))
        assert_same(Dl.quantile(x, qx, dim=dim, keepdim=keepdim, interpolation=interp),
                    torch.quantile(t, qt, dim=dim, keepdim=keepdim, interpolation=interp))


def test_nanquantile(rng):
    a = rand_np(rng, (3, 6), "float32")
    a[0, 2] = np.nan
    a[2, :] = np.nan
    x, t = pair(a)
    for dim in (None, 1, 0):
        assert_same(x.nanquantile(0.4, dim), t.nanquantile(0.4, dim))
        assert_same(x.quantile(0.4, dim), t.quantile(0.4, dim))


def test_quantile_grad_and_errors(rng):
    compare_grads(lambda v: v.quantile(0.3, 1), lambda v: v.quantile(0.3, 1),
                  rand_np(rng, (3, 5), "float64"))
    x, t = pair(rand_np(rng, (3, 5), "float32"))
    for bad in (1.5, -0.1):
        with pytest.raises(RuntimeError):
            t.quantile(bad)
        with pytest.raises(RuntimeError, match="quantile"):
            x.quantile(bad)
    with pytest.raises(ValueError):
        x.quantile(0.5, interpolation="cubic")
    with pytest.raises(RuntimeError, match="float or double"):
        Dl.tensor([1, 2, 3]).quantile(0.5)


def test_masked_scatter(rng):
    a = rand_np(rng, (3, 4), "float32")
    m = rand_np(rng, (4,), "bool")
    s = rand_np(rng, (20,), "float32")
    x, t = pair(a)
    (mx, mt), (sx, st) = pair(m, "bool"), pair(s)
    assert_same(x.masked_scatter(mx, sx), t.masked_scatter(mt, st))
    assert_same(Dl.masked_scatter(x, mx, sx), torch.masked_scatter(t, mt, st))
    x.masked_scatter_(mx, sx)
    t.masked_scatter_(mt, st)
    assert_same(x, t)
    compare_grads(lambda v, w: v.masked_scatter(pair(m, "bool")[0], w),
                  lambda v, w: v.masked_scatter(pair(m, "bool")[1], w),
                  rand_np(rng, (3, 4), "float64"), rand_np(rng, (20,), "float64"))
    with pytest.raises(RuntimeError):
        x.masked_scatter(mx, sx[:1])


@pytest.mark.parametrize("accumulate", [False, True])
def test_put(rng, accumulate):
    a = rand_np(rng, (3, 4), "float32")
    idx = np.array([[0, 5], [-1, 11]]) if not accumulate else np.array([0, 5, 5, 3])
    s = rand_np(rng, idx.shape, "float32")
    x, t = pair(a)
    (ix, it), (sx, st) = pair(idx, "int64"), pair(s)
    assert_same(x.put(ix, sx, accumulate), t.put(it, st, accumulate))
    x.put_(ix, sx, accumulate=accumulate)
    t.put_(it, st, accumulate=accumulate)
    assert_same(x, t)
    with pytest.raises(IndexError):
        x.put_(Dl.tensor([12]), Dl.tensor([1.0]))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(rng, reduce, include_self):
    a = rand_np(rng, (4, 3), "float32")
    s = rand_np(rng, (5, 3), "float32")
    idx = np.array([0, 2, 2, 3, 0])
    x, t = pair(a)
    (ix, it), (sx, st) = pair(idx, "int64"), pair(s)
    assert_same(x.index_reduce(0, ix, sx, reduce, include_self=include_self),
                t.index_reduce(0, it, st, reduce, include_self=include_self))
    x.index_reduce_(0, ix, sx, reduce, include_self=include_self)
    t.index_reduce_(0, it, st, reduce, include_self=include_self)
    assert_same(x, t)
    with pytest.raises(RuntimeError):
        x.index_reduce(0, ix, sx, "sum")


def test_sum_to_size_narrow_copy(rng):
    a = rand_np(rng, (2, 3, 4), "float32")
    x, t = pair(a)
    for size in ((3, 4), (1, 4), (3, 1), (2, 1, 4), (1, 1, 1), (2, 3, 4)):
        assert_same(x.sum_to_size(size), t.sum_to_size(size))
        assert_same(x.sum_to_size(*size), t.sum_to_size(*size))
    with pytest.raises(RuntimeError):
        t.sum_to_size(5)
    with pytest.raises(RuntimeError):
        x.sum_to_size(5)
    assert_same(x.narrow_copy(1, 1, 2), t.narrow_copy(1, 1, 2))
    assert_same(Dl.narrow_copy(x, 2, 0, 3), torch.narrow_copy(t, 2, 0, 3))


@pytest.mark.parametrize("shape,wrap", [((4, 4), False), ((7, 3), False), ((7, 3), True),
                                        ((3, 6), True), ((3, 3, 3), False)])
def test_fill_diagonal(rng, shape, wrap):
    x, t = pair(rand_np(rng, shape, "float32"))
    assert x.fill_diagonal_(2.5, wrap) is x
    t.fill_diagonal_(2.5, wrap)
    assert_same(x, t)


def test_fill_diagonal_errors():
    with pytest.raises(RuntimeError):
        Dl.zeros(3).fill_diagonal_(1)
    with pytest.raises(RuntimeError):
        Dl.zeros(2, 3, 2).fill_diagonal_(1)


def test_scatter_forms(rng):
    a = rand_np(rng, (4, 5), "float64")
    x, t = pair(a, "float64")
    row, rt = pair(rand_np(rng, (5,), "float64"), "float64")
    assert_same(Dl.select_scatter(x, row, 0, 2), torch.select_scatter(t, rt, 0, 2))
    blk, bt = pair(rand_np(rng, (4, 2), "float64"), "float64")
    assert_same(Dl.slice_scatter(x, blk, 1, 1, 5, 2), torch.slice_scatter(t, bt, 1, 1, 5, 2))
    d, dt = pair(rand_np(rng, (4,), "float64"), "float64")
    assert_same(Dl.diagonal_scatter(x, d, 1), torch.diagonal_scatter(t, dt, 1))
    compare_grads(lambda u, v: Dl.select_scatter(u, v, 1, 3),
                  lambda u, v: torch.select_scatter(u, v, 1, 3),
                  rand_np(rng, (4, 5), "float64"), rand_np(rng, (4,), "float64"))


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (4, 6, 1), (5, 2, -2), (0, 3, 0),
                                            (3, 4, 10)])
def test_triangle_indices(row, col, offset):
    for name in ("tril_indices", "triu_indices"):
        assert_same(getattr(Dl, name)(row, col, offset), getattr(torch, name)(row, col, offset))


@pytest.mark.parametrize("r,rep", [(2, False), (3, False), (2, True), (0, False), (5, False)])
def test_combinations(rng, r, rep):
    x, t = pair(rand_np(rng, (4,), "float32"))
    assert_same(Dl.combinations(x, r, rep), torch.combinations(t, r, rep))


def test_trapezoid(rng):
    y = rand_np(rng, (3, 6), "float64")
    xs = np.sort(rand_np(rng, (6,), "float64"))
    (yx, yt), (xx, xt) = pair(y, "float64"), pair(xs, "float64")
    assert_same(Dl.trapezoid(yx), torch.trapezoid(yt))
    assert_same(Dl.trapezoid(yx, dx=0.5, dim=0), torch.trapezoid(yt, dx=0.5, dim=0))
    assert_same(Dl.trapezoid(yx, xx), torch.trapezoid(yt, xt))
    assert_same(Dl.trapz(yx, xx), torch.trapz(yt, xt))
    with pytest.raises(TypeError):
        torch.trapz(yt, 0.3)
    with pytest.raises(TypeError):
        Dl.trapz(yx, 0.3)
    assert_same(Dl.cumulative_trapezoid(yx), torch.cumulative_trapezoid(yt))
    assert_same(Dl.cumulative_trapezoid(yx, xx), torch.cumulative_trapezoid(yt, xt))
    compare_grads(lambda v: Dl.trapezoid(v), lambda v: torch.trapezoid(v), y)


def test_vander(rng):
    a = rand_np(rng, (4,), "float64")
    x, t = pair(a, "float64")
    for n, inc in ((None, False), (3, True), (6, False), (0, False)):
        assert_same(Dl.vander(x, n, inc), torch.vander(t, n, inc))
    xi, ti = pair(np.array([1, 2, 3]), "int64")
    assert_same(Dl.vander(xi), torch.vander(ti))


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, n, periodic):
    assert_same(getattr(Dl, name)(n, periodic), getattr(torch, name)(n, periodic), atol=1e-6)
    assert_same(getattr(Dl, name)(n, periodic, dtype=Dl.float64),
                getattr(torch, name)(n, periodic, dtype=torch.float64), atol=1e-12)


def test_window_errors():
    for lib in (torch, Dl):
        with pytest.raises(RuntimeError):
            lib.hann_window(-1)
        with pytest.raises(RuntimeError):
            lib.hann_window(4, dtype=lib.int64)


def test_dtype_queries():
    pairs = [(torch.int32, Dl.int32), (torch.int64, Dl.int64), (torch.float32, Dl.float32),
             (torch.float64, Dl.float64), (torch.bool, Dl.bool), (torch.uint8, Dl.uint8)]
    for ta, da in pairs:
        for tb, db in pairs:
            assert str(Dl.promote_types(da, db)) == str(torch.promote_types(ta, tb))
            assert Dl.can_cast(da, db) == torch.can_cast(ta, tb), (ta, tb)
    for a, b in (([1, 2], 2.5), ([1.0], 2), ([True], 1), ([1], [2.0])):
        ta = torch.tensor(a)
        tb = torch.tensor(b) if isinstance(b, list) else b
        da = Dl.tensor(a)
        db = Dl.tensor(b) if isinstance(b, list) else b
        assert str(Dl.result_type(da, db)) == str(torch.result_type(ta, tb))
    assert str(Dl.result_type(Dl.tensor([1], dtype=Dl.int32), Dl.tensor(2.0, dtype=Dl.float64))) \
        == str(torch.result_type(torch.tensor([1], dtype=torch.int32),
                                 torch.tensor(2.0, dtype=torch.float64)))


def test_small_functions(rng):
    a = rand_np(rng, (3, 4), "float32")
    x, t = pair(a)
    assert_same(Dl.rsub(x, 2.0), torch.rsub(t, 2.0))
    assert_same(Dl.rsub(x, x * 2, alpha=3), torch.rsub(t, t * 2, alpha=3))
    assert Dl.is_same_size(x, x[0:3]) and not Dl.is_same_size(x, x[0:2])
    assert Dl.is_signed(x) == torch.is_signed(t)
    assert Dl.typename(x) == torch.typename(t)
    assert Dl.typename(3) == torch.typename(3) == "int"
    assert_same(Dl.scalar_tensor(3), torch.scalar_tensor(3))
    for parts in ([1, 3], [0, 4, 0]):
        for gx, gt in zip(Dl.split_with_sizes(x, parts, 1), torch.split_with_sizes(t, parts, 1)):
            assert_same(gx, gt)
    with pytest.raises(RuntimeError):
        Dl.split_with_sizes(x, [1, 1], 1)
    for gx, gt in zip(Dl.unsafe_chunk(x, 2), torch.unsafe_chunk(t, 2)):
        assert_same(gx, gt)
    with pytest.warns(UserWarning):
        r = Dl.range(1, 4, 0.5)
    assert_same(r, torch.range(1, 4, 0.5))


def test_set_default_tensor_type():
    try:
        Dl.set_default_tensor_type(Dl.DoubleTensor)
        assert Dl.get_default_dtype() == Dl.float64
        assert Dl.tensor([1.0]).dtype == Dl.float64
        Dl.set_default_tensor_type("torch.FloatTensor")
        assert Dl.get_default_dtype() == Dl.float32
        with pytest.raises(TypeError):
            Dl.set_default_tensor_type(Dl.LongTensor)
    finally:
        Dl.set_default_dtype(Dl.float32)


def test_autograd_variable(rng):
    from dl.autograd import Variable
    a = rand_np(rng, (3,), "float32")
    x, t = pair(a)
    vx, vt = Variable(x, requires_grad=True), torch.autograd.Variable(t, requires_grad=True)
    assert vx.requires_grad and vt.requires_grad
    assert isinstance(x, Variable) and isinstance(t, torch.autograd.Variable)
    assert not isinstance(a, Variable)
    (vx * vx).sum().backward()
    (vt * vt).sum().backward()
    assert_same(vx.grad, vt.grad)
    # the memory is shared, the history is not
    h = x * 2
    assert Variable(h).grad_fn is None
    vx.data[0] = 7
    assert x[0].item() == 7
    assert tuple(Variable().shape) == tuple(torch.autograd.Variable().shape)
    with pytest.warns(UserWarning):
        Variable(x, volatile=True)
    with pytest.raises(TypeError):
        Variable([1.0])


@pytest.mark.parametrize("case", [
    ((3, 3), (1, 1), 0),        # sliding windows of a vector (overlapping)
    ((2, 4), (4, 1), 2),        # a plain block at an offset
    ((4, 2), (1, 4), 0),        # a transpose
    ((3, 2, 2), (2, 4, 1), 1),
    ((2, 3), (0, 1), 0),        # a broadcast row
    ((0, 3), (3, 1), 0),
])
def test_as_strided(rng, case):
    size, stride, offset = case
    a = rand_np(rng, (12,), "float64")
    x, t = pair(a, "float64")
    assert_same(x.as_strided(size, stride, offset), t.as_strided(size, stride, offset))
    assert_same(Dl.as_strided(x, size, stride, offset),
                torch.as_strided(t, size, stride, offset))
    compare_grads(lambda v: v.as_strided(size, stride, offset),
                  lambda v: v.as_strided(size, stride, offset), a)
    # of a view, whose own offset is the default
    v, vt = x[2:], t[2:]
    assert_same(v.as_strided((2, 2), (1, 2)), vt.as_strided((2, 2), (1, 2)))
    # a view shares memory
    x.as_strided((1,), (1,), offset)[0] = 99.0
    assert x[offset].item() == 99.0


def test_as_strided_grad_of_overlapping_input(rng):
    a = rand_np(rng, (3,), "float64")
    compare_grads(lambda v: v.expand(4, 3).as_strided((2, 2), (1, 1), 0),
                  lambda v: v.expand(4, 3).as_strided((2, 2), (1, 1), 0), a)
    compare_grads(lambda v: v[1:].as_strided((2, 2), (1, 1)),
                  lambda v: v[1:].as_strided((2, 2), (1, 1)), rand_np(rng, (5,), "float64"))


def test_as_strided_errors(rng):
    x, t = pair(rand_np(rng, (6,), "float32"))
    for lib_x in (x, t):
        with pytest.raises(RuntimeError):
            lib_x.as_strided((4,), (2,), 0)
        with pytest.raises(RuntimeError):
            lib_x.as_strided((2, 2), (1,))
        with pytest.raises(RuntimeError):
            lib_x.as_strided((2,), (-1,), 3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram(rng, dtype):
    a = rand_np(rng, (40,), dtype)
    w = rand_np(rng, (40,), dtype, positive=True)
    x, t = pair(a, dtype)
    (wx, wt), (ex, et) = pair(w, dtype), pair(np.array([-2.0, -0.5, 0.0, 1.5, 3.0]), dtype)
    cases = [dict(bins=5), dict(bins=7, range=(-1.0, 2.0)), dict(bins=4, density=True),
             dict(bins=3, weight="w"), dict(bins="edges"), dict(bins="edges", weight="w",
                                                                density=True)]
    for kw in cases:
        kd = {k: {"w": wx, "edges": ex}.get(v, v) if isinstance(v, str) else v
              for k, v in kw.items()}
        kt = {k: {"w": wt, "edges": et}.get(v, v) if isinstance(v, str) else v
              for k, v in kw.items()}
        hx, htt = x.histogram(**kd), t.histogram(**kt)
        assert_same(hx.hist, htt.hist, msg=str(kw))
        assert_same(hx.bin_edges, htt.bin_edges, msg=str(kw))
        assert_same(Dl.histogram(x, **kd)[0], torch.histogram(t, **kt)[0])
    one, onet = pair(np.array([1.0, 1.0], dtype=np.float32))
    assert_same(one.histogram(2).bin_edges, onet.histogram(2).bin_edges)
    assert_same(one.histogram(2).hist, onet.histogram(2).hist)
    with pytest.raises(RuntimeError):
        Dl.tensor([1, 2]).histogram(3)


def test_frexp():
    a = np.array([0.0, -0.0, 1.0, 3.0, np.inf, -np.inf, np.nan, 1e-40, -5.0, 0.75, 2.0 ** 100,
                  1 - 2.0 ** -24, 2.0 ** -126], dtype=np.float32)
    for dtype in ("float32", "float64"):
        x, t = pair(a, dtype)
        mx, ex = x.frexp()
        mt, et = t.frexp()
        assert_same(mx, mt)
        assert_same(ex, et)
        assert_same(Dl.frexp(x).exponent, torch.frexp(t).exponent)
    with pytest.raises(RuntimeError):
        Dl.tensor([1, 2]).frexp()


def test_resize(rng):
    a = rand_np(rng, (2, 3), "float32")
    x, t = pair(a)
    t = t.clone()  # torch cannot resize numpy's memory; libdl moves to its own
    # shrinking keeps the first elements, growing keeps them too
    for size in ((3,), (2, 2), (6,), (1, 6)):
        assert x.resize_(*size) is x
        t.resize_(*size)
        # (not through numpy: torch's storage would stop being resizable)
        assert x.tolist() == t.tolist()
    x.resize_(4, 5)
    t.resize_(4, 5)
    assert tuple(x.shape) == (4, 5) and x.is_contiguous()
    assert_same(x.reshape(-1)[:6], t.reshape(-1)[:6])
    # the DCGAN example's label.resize_(batch).fill_(1)
    lbl = Dl.tensor([0.0]).resize_(8).fill_(1)
    assert_same(lbl, torch.tensor([0.0]).resize_(8).fill_(1))
    y, u = pair(rand_np(rng, (3, 2), "float32"))
    assert_same(Dl.zeros(1).resize_as_(y).copy_(y), torch.zeros(1).resize_as_(u).copy_(u))
    v = Dl.arange(10.0)[4:]
    v.resize_(2, 2)
    assert v.tolist() == [[4.0, 5.0], [6.0, 7.0]]
    with pytest.raises(RuntimeError, match="require grad"):
        Dl.zeros(3, requires_grad=True).resize_(5)
    with pytest.raises(RuntimeError):
        torch.zeros(3, requires_grad=True).resize_(5)
    with pytest.raises(RuntimeError):
        Dl.zeros(3).resize_(-1, 2)
