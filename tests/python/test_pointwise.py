# test_pointwise.py: arithmetic, comparisons, unary functions, casts and
# in-place operations compared against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import operator

import numpy as np
import pytest
import torch

from conftest import (BCAST, DTYPES, FLOAT_DTYPES, INT_DTYPES, NONCONTIG,
                      NUM_DTYPES, SHAPES, Dl, assert_same, dl_dtype, pair,
                      dl_call, rand_np, rand_pair, th_dtype, torch_ref)

BINOPS = {"add": operator.add, "sub": operator.sub,
          "mul": operator.mul, "div": operator.truediv}
CMPOPS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
          "le": operator.le, "gt": operator.gt, "ge": operator.ge}
UNARY = ["neg", "exp", "log", "relu", "abs", "sqrt", "tanh", "sigmoid"]


def check(fn, dl_args, th_args, **tol):
    """Runs fn on both libraries: results must agree, or both must raise
    the exception class torch raises."""
    try:
        expected = torch_ref(fn, *th_args)
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        with pytest.raises(type(e)):
            dl_call(fn, *dl_args)
        return None
    got = dl_call(fn, *dl_args)
    assert_same(got, expected, **tol)
    return got


def with_specials(rng, a, name):
    """Sprinkles NaN, +-inf and +-0 into float data."""
    if name not in FLOAT_DTYPES or a.size < 4:
        return a
    a = a.copy()
    flat = a.reshape(-1)
    idx = rng.choice(flat.size, size=min(4, flat.size), replace=False)
    for i, v in zip(idx, [np.nan, np.inf, -np.inf, -0.0]):
        flat[i] = v
    return a


# ---- binary operators ----------------------------------------------------

@pytest.mark.parametrize("op", list(BINOPS))
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_binary_same_dtype(rng, op, name, shape):
    x, t = rand_pair(rng, shape, name)
    y, u = rand_pair(rng, shape, name)
    check(BINOPS[op], (x, y), (t, u))


@pytest.mark.parametrize("op", list(BINOPS))
@pytest.mark.parametrize("shapes", BCAST, ids=str)
def test_binary_broadcast(rng, op, shapes):
    x, t = rand_pair(rng, shapes[0])
    y, u = rand_pair(rng, shapes[1])
    check(BINOPS[op], (x, y), (t, u))
    check(BINOPS[op], (y, x), (u, t))


@pytest.mark.parametrize("op", list(BINOPS))
@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_binary_promotion(rng, op, a, b):
    x, t = rand_pair(rng, (3, 4), a)
    y, u = rand_pair(rng, (4,), b)
    check(BINOPS[op], (x, y), (t, u))


@pytest.mark.parametrize("op", list(BINOPS))
@pytest.mark.parametrize("a,b", [("float32", "float64"), ("int32", "float64"),
                                 ("int32", "int64"), ("uint8", "int64"),
                                 ("float16", "float32"), ("bool", "int32"),
                                 ("bfloat16", "float16"), ("int64", "float16")])
def test_binary_zero_dim_promotion(rng, op, a, b):
    # 0-d tensors take part in type promotion like Python scalars do
    x, t = rand_pair(rng, (5,), a)
    y, u = rand_pair(rng, (), b, nonzero=True)
    check(BINOPS[op], (x, y), (t, u))
    check(BINOPS[op], (y, x), (u, t))


SCALARS = [3, -2, 0, 2.5, -0.5, 1e5, True]


@pytest.mark.parametrize("op", list(BINOPS))
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_binary_scalar(rng, op, name, scalar):
    x, t = rand_pair(rng, (2, 5), name)
    f = BINOPS[op]
    check(lambda a: f(a, scalar), (x,), (t,))
    check(lambda a: f(scalar, a), (x,), (t,))


@pytest.mark.parametrize("op", list(BINOPS))
def test_binary_scalar_zero_dim_and_empty(rng, op):
    f = BINOPS[op]
    for shape in [(), (0,), (1, 0)]:
        for name in ["float32", "int64"]:
            x, t = rand_pair(rng, shape, name)
            check(lambda a: f(a, 2), (x,), (t,))
            check(lambda a: f(1.5, a), (x,), (t,))


def test_division_by_zero():
    x, t = pair(np.array([1.0, -1.0, 0.0, np.nan], dtype=np.float32))
    z, u = pair(np.zeros(4, dtype=np.float32))
    check(operator.truediv, (x, z), (t, u))
    check(lambda a: a / 0, (x,), (t,))
    check(lambda a: a / 0.0, (x,), (t,))
    i, ti = pair(np.array([1, -1, 0], dtype=np.int64))
    check(lambda a: a / 0, (i,), (ti,))
    check(lambda a, b: a / b, (i, i * 0), (ti, ti * 0))


def test_uint8_wraps():
    x, t = pair(np.array([0, 1, 200, 255], dtype=np.uint8))
    y, u = pair(np.array([1, 2, 100, 255], dtype=np.uint8))
    check(operator.sub, (x, y), (t, u))
    check(operator.add, (x, y), (t, u))
    check(operator.mul, (x, y), (t, u))
    check(lambda a: -a, (x,), (t,))


def test_int_scalar_keeps_int_and_float_scalar_promotes():
    x = Dl.tensor([1, 2, 3])
    assert (x + 1).dtype == Dl.int64
    assert (x * 2).dtype == Dl.int64
    assert (2 - x).dtype == Dl.int64
    assert (x * 2.5).dtype == Dl.float32
    assert (x / 2).dtype == Dl.float32
    assert (x / x).dtype == Dl.float32
    assert (Dl.tensor([1, 2], dtype=Dl.int32) + 2).dtype == Dl.int32
    assert (Dl.tensor([1, 2], dtype=Dl.uint8) * 2).dtype == Dl.uint8
    assert (Dl.tensor([1.0], dtype=Dl.float16) * 2.5).dtype == Dl.float16
    assert (Dl.tensor([1.0], dtype=Dl.float64) + 1).dtype == Dl.float64
    assert (Dl.tensor([True]) + 1).dtype == Dl.int64
    assert (Dl.tensor([True]) * 1.5).dtype == Dl.float32
    assert (x * 2.5).tolist() == [2.5, 5.0, 7.5]
    assert (7 - x).tolist() == [6, 5, 4]
    assert (6 / x).tolist() == pytest.approx([6.0, 3.0, 2.0])


def test_int64_large_values_exact():
    big = [2 ** 62, -(2 ** 62) + 7, 2 ** 53 + 1]
    x, t = Dl.tensor(big), torch.tensor(big)
    assert_same(x + 1, t + 1)
    assert_same(x - x, t - t)
    assert_same(x + Dl.tensor([1, 1, 1]), t + torch.tensor([1, 1, 1]))
    assert (x + 1).tolist() == [v + 1 for v in big]


# ---- comparisons ---------------------------------------------------------

@pytest.mark.parametrize("op", list(CMPOPS))
@pytest.mark.parametrize("name", DTYPES)
def test_compare(rng, op, name):
    f = CMPOPS[op]
    a = with_specials(rng, rand_np(rng, (4, 5), name), name)
    b = rand_np(rng, (4, 5), name)
    b.reshape(-1)[:6] = a.reshape(-1)[:6]   # some equal pairs
    x, t = pair(a, name)
    y, u = pair(b, name)
    assert check(f, (x, y), (t, u)).dtype == Dl.bool
    check(f, (x, y[0]), (t, u[0]))            # broadcast
    for s in [0, 2, 2.5, -1]:
        check(lambda v: f(v, s), (x,), (t,))
        check(lambda v: f(s, v), (x,), (t,))


@pytest.mark.parametrize("op", list(CMPOPS))
@pytest.mark.parametrize("a,b", [("float32", "int64"), ("uint8", "int32"),
                                 ("bool", "float32"), ("float16", "float64"),
                                 ("bfloat16", "float32")])
def test_compare_mixed(rng, op, a, b):
    x, t = rand_pair(rng, (2, 3), a)
    y, u = rand_pair(rng, (3,), b)
    check(CMPOPS[op], (x, y), (t, u))


@pytest.mark.parametrize("op", list(CMPOPS))
def test_compare_nan_inf(op):
    a = np.array([np.nan, np.nan, 1.0, np.inf, -np.inf, 0.0, -0.0], dtype=np.float32)
    b = np.array([np.nan, 1.0, np.nan, np.inf, np.inf, -0.0, 0.0], dtype=np.float32)
    (x, t), (y, u) = pair(a), pair(b)
    check(CMPOPS[op], (x, y), (t, u))
    check(lambda v: CMPOPS[op](v, float("nan")), (x,), (t,))
    check(lambda v: CMPOPS[op](v, float("inf")), (x,), (t,))


@pytest.mark.parametrize("op", list(CMPOPS))
def test_compare_empty_and_zero_dim(rng, op):
    for sa, sb in [((0,), (0,)), ((), ()), ((), (3,)), ((2, 0), (1,))]:
        x, t = rand_pair(rng, sa, "int32")
        y, u = rand_pair(rng, sb, "int32")
        check(CMPOPS[op], (x, y), (t, u))


# ---- unary functions -----------------------------------------------------

@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (6,), (3, 1, 4)], ids=str)
def test_unary(rng, op, name, shape):
    x, t = rand_pair(rng, shape, name)
    check(lambda v: getattr(v, op)(), (x,), (t,))


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_unary_special_values(op, name):
    vals = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1.0, 1.0, 0.5, 88.8,
            100.0, -100.0, 1e30, -1e-3, 20.0, -20.0, 1e-7]
    x, t = pair(np.array(vals), name)
    check(lambda v: getattr(v, op)(), (x,), (t,))


@pytest.mark.parametrize("name", NUM_DTYPES)
def test_unary_minus_operator(rng, name):
    x, t = rand_pair(rng, (3, 4), name)
    check(operator.neg, (x,), (t,))


def test_unary_minus_bool_raises():
    with pytest.raises(RuntimeError):
        -torch.tensor([True])
    with pytest.raises(RuntimeError):
        -Dl.tensor([True])


@pytest.mark.parametrize("op", UNARY)
def test_unary_large(rng, op):
    x, t = rand_pair(rng, (1000, 37), "float32", low=-5, high=5)
    if op in ("log", "sqrt"):
        x, t = x.abs(), t.abs()
    check(lambda v: getattr(v, op)(), (x,), (t,))


# ---- non-contiguous operands --------------------------------------------

@pytest.mark.parametrize("label,shape,view", NONCONTIG, ids=[v[0] for v in NONCONTIG])
@pytest.mark.parametrize("name", ["float32", "float64", "int64", "bfloat16"])
def test_noncontiguous_operands(rng, label, shape, view, name):
    x, t = rand_pair(rng, shape, name)
    xv, tv = view(x), view(t)
    assert not xv.is_contiguous()
    y, u = rand_pair(rng, tuple(tv.shape), name)
    check(operator.add, (xv, y), (tv, u))
    check(operator.mul, (y, xv), (u, tv))
    check(operator.sub, (xv, xv), (tv, tv))
    check(lambda v: v / 3, (xv,), (tv,))
    check(lambda v: v.abs(), (xv,), (tv,))
    check(lambda v: v.exp(), (xv,), (tv,))
    check(lambda v: v > 0, (xv,), (tv,))
    check(lambda v: v.contiguous(), (xv,), (tv,))
    check(lambda v: v.clone(), (xv,), (tv,))


def test_broadcast_both_expanded(rng):
    x, t = rand_pair(rng, (3, 1))
    y, u = rand_pair(rng, (1, 4))
    check(lambda a, b: a.expand(3, 4) * b.expand(3, 4).t().t(), (x, y), (t, u))
    check(lambda a, b: a.t() + b.t(), (x, y), (t, u))


# ---- casts ---------------------------------------------------------------

def cast_data(rng, src, dst):
    if src in FLOAT_DTYPES:
        lo = 0.0 if dst in ("uint8",) else -100.0
        a = rng.uniform(lo, 100.0, size=(4, 6))
        a[0, :3] = [0.0, 0.5, -0.0 if lo < 0 else 1.0]
        if dst in FLOAT_DTYPES or dst == "bool":
            a[1, :3] = [np.nan, np.inf, -np.inf]
        if src == "bfloat16":
            return torch.from_numpy(a.astype(np.float32)).bfloat16().float().numpy()
        return a.astype({"float32": np.float32, "float64": np.float64,
                         "float16": np.float16}[src])
    return rand_np(rng, (4, 6), src)


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_to_dtype(rng, src, dst):
    x, t = pair(cast_data(rng, src, dst), src)
    y = check(lambda v: v.to(th_dtype(dst) if isinstance(v, torch.Tensor) else dl_dtype(dst)),
              (x,), (t,), rtol=0, atol=0)
    if src == dst:
        assert y is x          # to() to the same dtype returns self, as torch
    # non-contiguous input
    check(lambda v: v.t().to(th_dtype(dst) if isinstance(v, torch.Tensor) else dl_dtype(dst)),
          (x,), (t,), rtol=0, atol=0)


def test_float_to_half_rounding(rng):
    a = rng.standard_normal(2000) * np.logspace(-9, 6, 2000)
    a = np.concatenate([a, [65504.0, 65520.0, 65519.99, 1e-8, 6e-8, 3e-8, 2.9e-8]])
    for dst in ["float16", "bfloat16"]:
        for src in ["float32", "float64"]:
            x, t = pair(a, src)
            check(lambda v: v.to(th_dtype(dst) if isinstance(v, torch.Tensor) else dl_dtype(dst)),
                  (x,), (t,), rtol=0, atol=0)


@pytest.mark.parametrize("meth", ["float", "double", "long", "int", "bool"])
@pytest.mark.parametrize("name", DTYPES)
def test_cast_shortcuts(rng, meth, name):
    x, t = pair(cast_data(rng, name, "int64" if meth in ("long", "int") else "float32"), name)
    check(lambda v: getattr(v, meth)(), (x,), (t,), rtol=0, atol=0)


def test_cast_grad_tracking():
    x = Dl.tensor([1.0, 2.0], requires_grad=True)
    y = x.double()
    assert y.requires_grad and y.dtype == Dl.float64
    assert x.long().requires_grad is False


# ---- in-place ------------------------------------------------------------

INPLACE = {"add_": operator.iadd, "sub_": operator.isub,
           "mul_": operator.imul, "div_": operator.itruediv}


@pytest.mark.parametrize("meth", list(INPLACE))
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16", "int64", "int32"])
@pytest.mark.parametrize("other", ["tensor", "broadcast", "scalar_int", "scalar_float", "zero_dim"])
def test_inplace(rng, meth, name, other):
    x, t = rand_pair(rng, (3, 4), name)
    if other == "tensor":
        y, u = rand_pair(rng, (3, 4), name, nonzero=True)
    elif other == "broadcast":
        y, u = rand_pair(rng, (4,), name, nonzero=True)
    elif other == "zero_dim":
        y, u = rand_pair(rng, (), "float64", nonzero=True)
    elif other == "scalar_int":
        y = u = 3
    else:
        y = u = 2.5

    def method(v, w):
        r = getattr(v, meth)(w)
        assert r is v
        return v

    def operator_form(v, w):
        ident = id(v)
        v = INPLACE[meth](v, w)
        assert id(v) == ident
        return v

    for fn in (method, operator_form):
        xx, tt = x.clone(), t.clone()
        ptr = xx.data_ptr()
        check(fn, (xx, y), (tt, u))
        assert xx.data_ptr() == ptr


def test_inplace_through_views_updates_base():
    x, t = pair(np.arange(12, dtype=np.float32).reshape(3, 4))
    for v, u in [(x.t(), t.t()), (x.view(4, 3), t.view(4, 3)), (x.view(-1), t.view(-1))]:
        v.add_(1)
        u.add_(1)
        v.mul_(Dl.arange(v.shape[-1]) * 0.5 + 1)
        u.mul_(torch.arange(u.shape[-1]) * 0.5 + 1)
        assert_same(x, t)
        assert_same(v, u)
    d = x.detach()
    d.sub_(1)
    assert_same(x, t - 1)


@pytest.mark.parametrize("name", DTYPES)
def test_zero_fill(rng, name):
    x, t = rand_pair(rng, (2, 3), name)
    assert x.zero_() is x
    t.zero_()
    assert_same(x, t)
    for value in [1, 2.5, True, -3]:
        if name in INT_DTYPES + ["bool"] and isinstance(value, float):
            continue
        if name == "uint8" and value < 0:
            continue
        assert x.fill_(value) is x
        t.fill_(value)
        assert_same(x, t)
    # on a non-contiguous view
    xv, tv = x.t(), t.t()
    xv.zero_()
    tv.zero_()
    assert_same(x, t)


@pytest.mark.parametrize("src", ["float32", "float64", "int64", "bool", "bfloat16", "uint8"])
@pytest.mark.parametrize("dst", ["float32", "float64", "int32", "float16"])
def test_copy_(rng, src, dst):
    x, t = rand_pair(rng, (3, 4), dst)
    y, u = rand_pair(rng, (3, 4), src, low=0, high=50)
    assert x.copy_(y) is x
    t.copy_(u)
    assert_same(x, t)
    # broadcasting source, non-contiguous destination
    y, u = rand_pair(rng, (3,), src, low=0, high=50)
    x.t().copy_(y)
    t.t().copy_(u)
    assert_same(x, t)
    # zero-d source
    y, u = rand_pair(rng, (), src, low=0, high=50)
    x.copy_(y)
    t.copy_(u)
    assert_same(x, t)


def test_inplace_result_cannot_be_cast_raises():
    t = torch.tensor([1, 2])
    with pytest.raises(RuntimeError):
        t += 1.5
    with pytest.raises(RuntimeError):
        t.div_(2)
    x = Dl.tensor([1, 2])
    with pytest.raises(RuntimeError):
        x += 1.5
    with pytest.raises(RuntimeError):
        x.div_(2)
    with pytest.raises(RuntimeError):
        x.mul_(Dl.tensor([1.5, 2.0]))
    assert x.tolist() == [1, 2]


def test_inplace_cannot_broadcast_self():
    with pytest.raises(RuntimeError):
        torch.zeros(3).add_(torch.ones(2, 3))
    with pytest.raises(RuntimeError):
        Dl.zeros(3).add_(Dl.ones(2, 3))
    with pytest.raises(RuntimeError):
        Dl.zeros(3).copy_(Dl.ones(2))


def test_clone_and_detach_memory():
    x = Dl.tensor([1.0, 2.0, 3.0])
    c = x.clone()
    d = x.detach()
    assert c.data_ptr() != x.data_ptr()
    assert d.data_ptr() == x.data_ptr()
    x.add_(1)
    assert c.tolist() == [1.0, 2.0, 3.0]
    assert d.tolist() == [2.0, 3.0, 4.0]
    xt = Dl.ones(2, 3).t()
    assert not xt.is_contiguous()
    assert xt.contiguous().is_contiguous()
    y = Dl.ones(2, 3)
    assert y.contiguous() is y


@pytest.mark.parametrize("name", INT_DTYPES + ["bool"])
@pytest.mark.parametrize("scalar", [-2, 300, 2 ** 40, -(2 ** 33), 7])
def test_true_division_by_integer_scalar(name, scalar):
    # the scalar takes part in the float division as the number it is, not
    # wrapped to the tensor's integer dtype
    x, t = pair(np.array([4, 6, 0, 1]), name)
    check(lambda v: v / scalar, (x,), (t,))
    check(lambda v: scalar / v, (x,), (t,))


@pytest.mark.parametrize("shape", [(65537,), (1000003,), (1001, 999)], ids=str)
def test_large_parallel_paths(rng, shape):
    # sizes above any threading / vectorisation threshold, odd lengths for
    # the tails, and transposed operands for the strided kernels
    x, t = rand_pair(rng, shape)
    y, u = rand_pair(rng, shape)
    check(operator.add, (x, y), (t, u))
    check(lambda a, b: a * b - a / 3, (x, y), (t, u))
    check(lambda a: a.exp(), (x,), (t,))
    check(lambda a: a.sigmoid(), (x,), (t,))
    check(lambda a, b: a >= b, (x, y), (t, u))
    check(lambda a: a.to(Dl.float64 if not isinstance(a, torch.Tensor) else torch.float64),
          (x,), (t,))
    check(lambda a: a.to(Dl.bfloat16 if not isinstance(a, torch.Tensor) else torch.bfloat16),
          (x,), (t,), rtol=0, atol=0)
    if len(shape) == 2:
        check(lambda a, b: a.t() + b.t(), (x, y), (t, u))
        check(lambda a, b: a.t() * b[0], (x, y), (t, u))
        check(lambda a: a.t().contiguous(), (x,), (t,))
        c, w = x.clone(), t.clone()
        c.t().add_(1.0)
        w.t().add_(1.0)
        assert_same(c, w)


def assert_same_signs(x, t):
    """x equals t, the signs of zeros and infinities included."""
    assert_same(x, t)
    assert np.array_equal(np.signbit(x.numpy()), np.signbit(t.numpy()))


NEG_ZERO_OPS = {
    "truediv": lambda a: a / -0.0, "rtruediv": lambda a: -0.0 / a,
    "mul": lambda a: a * -0.0, "rmul": lambda a: -0.0 * a,
    "add": lambda a: a + -0.0, "sub": lambda a: a - -0.0, "rsub": lambda a: -0.0 - a,
    "div": lambda a: a.div(-0.0), "mul_method": lambda a: a.mul(-0.0),
    "add_method": lambda a: a.add(-0.0), "zero_div": lambda a: a / 0.0,
    "idiv": lambda a: a.clone().__itruediv__(-0.0), "imul": lambda a: a.clone().__imul__(-0.0),
    "idiv_zero": lambda a: a.clone().__itruediv__(0), "div_": lambda a: a.clone().div_(-0.0),
    "mul_": lambda a: a.clone().mul_(-0.0), "add_": lambda a: a.clone().add_(-0.0),
}


@pytest.mark.parametrize("op", sorted(NEG_ZERO_OPS))
@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32"])
def test_negative_zero_scalar_keeps_its_sign(op, name):
    fn = NEG_ZERO_OPS[op]
    vals = [1.5, -2.0, 0.0, -0.0, 3.0] if name.startswith("float") else [1, -2, 0, 3, 0]
    x, t = pair(np.array(vals, dtype=name), name)
    try:
        expected = fn(t)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            fn(x)
        return
    assert_same_signs(fn(x), expected)


def test_negative_zero_tensors():
    assert_same_signs(Dl.tensor(-0.0), torch.tensor(-0.0))
    assert_same_signs(Dl.tensor([-0.0, 0.0]), torch.tensor([-0.0, 0.0]))
    assert_same_signs(Dl.full((2,), -0.0), torch.full((2,), -0.0))
    assert_same_signs(Dl.zeros(2).fill_(-0.0), torch.zeros(2).fill_(-0.0))
    assert_same_signs(Dl.ones(3) / Dl.tensor(-0.0), torch.ones(3) / torch.tensor(-0.0))
