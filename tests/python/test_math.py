# test_math.py: the pointwise math library (libdl/ops/dl-ops-math*.c)
# compared against PyTorch: unary functions, predicates, nan_to_num, pow,
# floor division, remainder, atan2, bitwise and logical ops, clamp, lerp,
# in-place forms, their gradients and their errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import operator

import numpy as np
import pytest
import torch

from conftest import (BCAST, DTYPES, FLOAT_DTYPES, INT_DTYPES, NONCONTIG,
                      SELF_CHECK, SHAPES, Dl, assert_same, pair, dl_call, rand_np,
                      rand_pair, torch_ref)

UNARY = ["expm1", "log1p", "log2", "rsqrt", "sin", "cos", "tan", "sign",
         "floor", "ceil", "round", "trunc", "frac", "reciprocal", "erf",
         "isnan", "isinf", "isfinite", "logical_not", "bitwise_not",
         "nan_to_num"]
# unary functions with a gradient, and the data range they are tested on
GRAD_UNARY = {"expm1": {}, "log1p": {"positive": True}, "log2": {"positive": True},
              "rsqrt": {"positive": True}, "sin": {}, "cos": {}, "tan": {"low": -1.2, "high": 1.2},
              "sign": {}, "floor": {}, "ceil": {}, "round": {}, "trunc": {}, "frac": {},
              "reciprocal": {"nonzero": True}, "erf": {}, "nan_to_num": {}}


def check(fn, dl_args, th_args, upcast=False, **tol):
    """Runs fn on both libraries: results must agree, or both must raise
    the exception class torch raises.  upcast: the reference computes
    16-bit floats in float32 (libdl computes their math in float32)."""
    try:
        expected = torch_ref(fn, *th_args, upcast=upcast)
    except (RuntimeError, TypeError, ValueError, IndexError, AttributeError) as e:
        cls = RuntimeError if isinstance(e, (NotImplementedError, AttributeError)) else type(e)
        with pytest.raises(cls):
            dl_call(fn, *dl_args, upcast=upcast)
        return None
    got = dl_call(fn, *dl_args, upcast=upcast)
    assert_same(got, expected, **tol)
    return got


def with_specials(a, name):
    """NaN, +-inf and +-0 in the first elements of float data."""
    if name not in FLOAT_DTYPES or a.size < 4:
        return a
    a = a.copy()
    flat = a.reshape(-1)
    flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return a


def method(name, *args, **kw):
    return lambda t: getattr(t, name)(*args, **kw)


def function(name, *args, **kw):
    return lambda t: getattr(torch if isinstance(t, torch.Tensor) else Dl, name)(t, *args, **kw)


# ---- unary -----------------------------------------------------------------

@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unary(rng, op, name, shape):
    a = rand_np(rng, shape, name, positive=op in ("log2", "rsqrt"))
    x, t = pair(a, name)
    check(method(op), (x,), (t,), rtol=2e-5 if name == "float32" else None)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_unary_specials(rng, op, name):
    a = with_specials(rand_np(rng, (3, 5), name), name)
    x, t = pair(a, name)
    check(method(op), (x,), (t,), rtol=2e-5 if name == "float32" else None)
    check(function(op), (x,), (t,), rtol=2e-5 if name == "float32" else None)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("view", NONCONTIG, ids=lambda v: v[0])
def test_unary_noncontiguous(rng, op, view):
    label, shape, f = view
    x, t = rand_pair(rng, shape, "float64", positive=True)
    check(lambda v: getattr(f(v), op)(), (x,), (t,))
    xi, ti = rand_pair(rng, shape, "int32")
    check(lambda v: getattr(f(v), op)(), (xi,), (ti,))
    # a step slice
    x, t = rand_pair(rng, (9, 4), "float32", positive=True)
    check(lambda v: getattr(v[::2, 1::2], op)(), (x,), (t,))


def test_round_half_even_and_decimals(rng):
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, 1.2345, -7.77], dtype=np.float64)
    x, t = pair(a)
    assert_same(x.round(), t.round())
    assert_same(Dl.round(x, decimals=2), torch.round(t, decimals=2))


@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_nan_to_num_args(rng, name):
    a = with_specials(rand_np(rng, (6,), name), name)
    x, t = pair(a, name)
    check(method("nan_to_num"), (x,), (t,))
    check(method("nan_to_num", nan=1.5, posinf=100.0, neginf=-7.0), (x,), (t,))
    check(function("nan_to_num", 2.0), (x,), (t,))
    check(function("nan_to_num", posinf=3.0), (x,), (t,))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4)], ids=str)
def test_gelu_silu(rng, approximate, name, shape):
    x, t = rand_pair(rng, shape, name)
    DlF, F = Dl.nn.functional, torch.nn.functional
    check(lambda v: (DlF if not isinstance(v, torch.Tensor) else F).gelu(
        v, approximate=approximate), (x,), (t,), upcast=True)
    check(lambda v: (DlF if not isinstance(v, torch.Tensor) else F).silu(v), (x,), (t,),
          upcast=True)


def test_gelu_bad_approximate():
    with pytest.raises(RuntimeError):
        Dl.nn.functional.gelu(Dl.ones(3), approximate="fast")


@pytest.mark.parametrize("op", list(GRAD_UNARY))
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_unary_grad(rng, op, name):
    a = rand_np(rng, (3, 4), name, **GRAD_UNARY[op])
    x, t = pair(a, name, requires_grad=True)
    g = rand_np(rng, (3, 4), name)
    y, u = getattr(x, op)(), getattr(t, op)()
    assert_same(y, u)
    y.backward(Dl.from_numpy(g.copy()))
    u.backward(torch.from_numpy(g.copy()))
    assert_same(x.grad, t.grad, rtol=1e-4 if name == "float32" else None)


@pytest.mark.parametrize("fn", ["gelu", "gelu_tanh", "silu"])
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_activation_grad(rng, fn, name):
    x, t = rand_pair(rng, (4, 5), name, requires_grad=True)
    if fn == "gelu_tanh":
        y = Dl.nn.functional.gelu(x, approximate="tanh")
        u = torch.nn.functional.gelu(t, approximate="tanh")
    else:
        y, u = getattr(Dl.nn.functional, fn)(x), getattr(torch.nn.functional, fn)(t)
    assert_same(y, u)
    y.sum().backward()
    u.sum().backward()
    assert_same(x.grad, t.grad, rtol=1e-4 if name == "float32" else None)


def test_nan_to_num_grad(rng):
    a = with_specials(rand_np(rng, (8,), "float64"), "float64")
    x, t = pair(a, "float64", requires_grad=True)
    x.nan_to_num(posinf=1.0).sum().backward()
    t.nan_to_num(posinf=1.0).sum().backward()
    assert_same(x.grad, t.grad)


def test_half_unary_grad(rng):
    for name in ("float16", "bfloat16"):
        x, t = rand_pair(rng, (5,), name, requires_grad=True)
        y, u = dl_call(lambda v: v.sin(), x), torch_ref(lambda v: v.sin(), t)
        assert_same(y, u)
        y.sum().backward()
        u.sum().backward()
        assert_same(x.grad, t.grad)


@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite", "logical_not"])
def test_predicates_are_proper_bools(rng, op):
    x, t = pair(with_specials(rand_np(rng, (6,), "float32"), "float32"))
    check(lambda v: getattr(v, op)().long(), (x,), (t,))
    check(lambda v: getattr(v, op)().int() + 1, (x,), (t,))


def test_predicates_no_grad(rng):
    x, _ = rand_pair(rng, (3,), requires_grad=True)
    assert not x.isnan().requires_grad
    assert x.isfinite().dtype == Dl.bool


# ---- binary ----------------------------------------------------------------

BINARY = {
    "pow": operator.pow, "floor_divide": operator.floordiv, "remainder": operator.mod,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
}
BINARY_FNS = ["pow", "floor_divide", "remainder", "atan2", "bitwise_and", "bitwise_or",
              "bitwise_xor", "logical_and", "logical_or", "logical_xor"]


def binary_fn(op):
    return lambda a, b: getattr(torch if isinstance(a, torch.Tensor) else Dl, op)(a, b)


def binary_data(rng, shape, name, op):
    """Data without integer zero divisors (checked separately) and with
    small exponents."""
    if op == "pow" and name in INT_DTYPES:
        return rand_np(rng, shape, name, positive=True) % 4
    return rand_np(rng, shape, name, nonzero=op in ("floor_divide", "remainder"))


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_binary_operators(rng, op, name, shape):
    x, t = pair(rand_np(rng, shape, name), name)
    y, u = pair(binary_data(rng, shape, name, op), name)
    check(BINARY[op], (x, y), (t, u))


@pytest.mark.parametrize("op", BINARY_FNS)
@pytest.mark.parametrize("name", DTYPES)
def test_binary_functions(rng, op, name):
    x, t = pair(rand_np(rng, (3, 4), name), name)
    y, u = pair(binary_data(rng, (3, 4), name, op), name)
    check(binary_fn(op), (x, y), (t, u))
    check(lambda a, b: getattr(a, op)(b), (x, y), (t, u))


@pytest.mark.parametrize("op", BINARY_FNS)
@pytest.mark.parametrize("shapes", BCAST, ids=str)
def test_binary_broadcast(rng, op, shapes):
    name = "int64" if op.startswith("bitwise") else "float32"
    x, t = pair(rand_np(rng, shapes[0], name), name)
    y, u = pair(binary_data(rng, shapes[1], name, op), name)
    check(binary_fn(op), (x, y), (t, u))
    if op != "pow":
        check(binary_fn(op), (y, x), (u, t))


@pytest.mark.parametrize("op", BINARY_FNS)
@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_binary_promotion(rng, op, a, b):
    x, t = pair(rand_np(rng, (3, 4), a), a)
    y, u = pair(binary_data(rng, (4,), b, op), b)
    check(binary_fn(op), (x, y), (t, u))


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("scalar", [2, -3, 2.5, -0.5, True], ids=str)
def test_binary_scalars(rng, op, name, scalar):
    x, t = pair(binary_data(rng, (3, 4), name, op), name)
    if op in ("floor_divide", "remainder") and name in INT_DTYPES + ["bool"]:
        x, t = pair(rand_np(rng, (3, 4), name, nonzero=True), name)
    f = BINARY[op]
    check(lambda v: f(v, scalar), (x,), (t,))
    check(lambda v: f(scalar, v), (x,), (t,))


@pytest.mark.parametrize("view", NONCONTIG, ids=lambda v: v[0])
@pytest.mark.parametrize("op", ["pow", "remainder", "floor_divide", "atan2"])
def test_binary_noncontiguous(rng, view, op):
    label, shape, f = view
    x, t = rand_pair(rng, shape, "float64", positive=True)
    y, u = rand_pair(rng, shape, "float64", positive=True)
    check(lambda a, b: binary_fn(op)(f(a), f(b)), (x, y), (t, u))
    xi, ti = rand_pair(rng, shape, "int64")
    yi, ui = rand_pair(rng, shape, "int64", positive=True)
    check(lambda a, b: binary_fn(op)(f(a), f(b) % 4), (xi, yi), (ti, ui))


def test_floor_divide_remainder_signs():
    a = np.array([7, -7, 7, -7, 0, 6, -6], dtype=np.int64)
    b = np.array([2, 2, -2, -2, 3, -3, 4], dtype=np.int64)
    for name in ["int32", "int64", "float32", "float64"]:
        x, t = pair(a, name)
        y, u = pair(b, name)
        assert_same(x // y, t // u)
        assert_same(x % y, t % u)
    # floats, with zero divisors and fractions
    x, t = pair(np.array([5.5, -5.5, 0.0, 1.0, -1.0, np.inf, np.nan, 3.0]))
    y, u = pair(np.array([2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 1.0, -0.7]))
    assert_same(x // y, t // u)
    assert_same(x % y, t % u)
    # the most negative integer over -1 wraps (torch 1.13 itself traps here)
    if SELF_CHECK:
        return
    x = Dl.tensor([-2 ** 63, 5])
    y = Dl.tensor([-1, -1])
    assert (x // y).tolist() == [-2 ** 63, -5]
    assert (x % y).tolist() == [0, 0]
    x = Dl.tensor([-2 ** 31, 5], dtype=Dl.int32)
    assert (x // -1).tolist() == [-2 ** 31, -5]


@pytest.mark.parametrize("name", ["int32", "int64", "uint8"])
@pytest.mark.parametrize("op", ["floor_divide", "remainder"])
def test_integer_division_by_zero(name, op):
    x, t = pair(np.array([1, 2, 3]), name)
    y, u = pair(np.array([1, 0, 1]), name)
    for fn in (binary_fn(op), BINARY[op]):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(t, u)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(x, y)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(x, 0)


def test_pow_integer_rules(rng):
    x, t = pair(np.array([1, -1, 2, -3, 0], dtype=np.int64))
    y, u = pair(np.array([-1, -3, -2, 3, 5], dtype=np.int64))
    assert_same(x ** y, t ** u)
    with pytest.raises(RuntimeError):
        t ** -1
    with pytest.raises(RuntimeError):
        x ** -1
    assert_same(x ** 2.5, t ** 2.5)
    assert_same(2 ** x.abs(), 2 ** t.abs())
    assert_same(Dl.pow(2, x.abs()), torch.pow(2, t.abs()))
    assert_same(1.5 ** x, 1.5 ** t)
    b, c = pair(np.array([True, False]))
    check(lambda v: v ** v, (b,), (c,))
    assert_same(b ** 2, c ** 2)


def test_pow_specials():
    a = np.array([0.0, 0.0, -2.0, np.nan, np.inf, 1.0, -0.0])
    e = np.array([0.0, -1.0, 0.5, 0.0, -1.0, np.nan, 3.0])
    x, t = pair(a)
    y, u = pair(e)
    assert_same(x ** y, t ** u)


@pytest.mark.parametrize("exponent", [2, 0, 3.5, -1.5])
def test_pow_scalar_grad(rng, exponent):
    x, t = rand_pair(rng, (3, 4), "float64", requires_grad=True, positive=True)
    (x ** exponent).sum().backward()
    (t ** exponent).sum().backward()
    assert_same(x.grad, t.grad)


def test_pow_tensor_grad(rng):
    a = rand_np(rng, (3, 4), "float64", positive=True)
    a[0, :2] = 0.0
    e = rand_np(rng, (4,), "float64")
    e[1] = 0.0
    x, t = pair(a, requires_grad=True)
    y, u = pair(e, requires_grad=True)
    (x ** y).sum().backward()
    (t ** u).sum().backward()
    assert_same(x.grad, t.grad)
    assert_same(y.grad, u.grad)
    # scalar base
    y2, u2 = pair(e, requires_grad=True)
    (2.5 ** y2).sum().backward()
    (2.5 ** u2).sum().backward()
    assert_same(y2.grad, u2.grad)


def test_remainder_atan2_grad(rng):
    for op in ("remainder", "atan2"):
        x, t = rand_pair(rng, (3, 4), "float64", requires_grad=True)
        y, u = rand_pair(rng, (4,), "float64", requires_grad=True, nonzero=True)
        binary_fn(op)(x, y).sum().backward()
        binary_fn(op)(t, u).sum().backward()
        assert_same(x.grad, t.grad)
        assert_same(y.grad, u.grad)


def test_floor_divide_not_differentiable(rng):
    for x in rand_pair(rng, (3,), requires_grad=True):
        y = x // 2
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="floor_divide"):
            y.sum().backward()


def test_bitwise_bad_dtypes(rng):
    x, t = rand_pair(rng, (3,), "float32")
    for f in (lambda v: v & 1, lambda v: v | v, lambda v: v ^ True):
        with pytest.raises(RuntimeError):
            f(t)
        with pytest.raises(RuntimeError):
            f(x)
    with pytest.raises(TypeError):
        ~t
    with pytest.raises(TypeError):
        ~x


@pytest.mark.parametrize("name", DTYPES)
def test_invert(rng, name):
    x, t = rand_pair(rng, (2, 3), name)
    check(lambda v: ~v, (x,), (t,))


def test_numpy_scalars(rng):
    x, t = rand_pair(rng, (3,), "int64")
    for s in (np.int64(3), np.float32(1.5), np.float64(-2.0)):
        check(lambda v: v ** s, (x,), (t,))
        check(lambda v: v.clamp(max=s), (x,), (t,))


def test_bad_operands(rng):
    x, t = rand_pair(rng, (3,))
    with pytest.raises(TypeError):
        x ** "a"
    with pytest.raises(TypeError):
        x // None
    with pytest.raises(TypeError):
        Dl.atan2(x, "b")
    y, u = rand_pair(rng, (4,))
    with pytest.raises(RuntimeError):
        torch.atan2(t, u)
    with pytest.raises(RuntimeError):
        Dl.atan2(x, y)
    with pytest.raises(RuntimeError):
        x ** y


# ---- clamp, lerp and in place --------------------------------------------

CLAMP_ARGS = [dict(min=-1), dict(max=0.5), dict(min=-1.5, max=1), dict(min=2, max=-2),
              dict(min=0.5), dict(min=True)]


@pytest.mark.parametrize("kw", CLAMP_ARGS, ids=str)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 4)], ids=str)
def test_clamp_scalars(rng, kw, name, shape):
    x, t = rand_pair(rng, shape, name)
    check(lambda v: v.clamp(**kw), (x,), (t,))
    check(lambda v: (torch if isinstance(v, torch.Tensor) else Dl).clamp(v, **kw), (x,), (t,))
    check(lambda v: v.clip(**kw), (x,), (t,))


@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_clamp_nan(rng, name):
    x, t = pair(with_specials(rand_np(rng, (6,), name), name), name)
    check(lambda v: v.clamp(-1, 1), (x,), (t,))


def test_clamp_tensors(rng):
    x, t = rand_pair(rng, (3, 4))
    lo, tlo = rand_pair(rng, (4,), low=-2, high=0)
    hi, thi = rand_pair(rng, (3, 1), low=0, high=2)
    check(lambda v, a, b: v.clamp(a, b), (x, lo, hi), (t, tlo, thi))
    check(lambda v, a: v.clamp(min=a), (x, lo), (t, tlo))
    check(lambda v, b: v.clamp(max=b), (x, hi), (t, thi))
    # a bound that broadcasts the result up
    big, tbig = rand_pair(rng, (2, 3, 4))
    check(lambda v, b: v.clamp(max=b), (x, big), (t, tbig))


def test_clamp_grad(rng):
    a = rand_np(rng, (3, 4), "float64")
    a[0, 0], a[0, 1] = -1.0, 1.0  # ties with the bounds
    x, t = pair(a, requires_grad=True)
    x.clamp(-1, 1).sum().backward()
    t.clamp(-1, 1).sum().backward()
    assert_same(x.grad, t.grad)

    for kw in ({"min": True, "max": True}, {"min": True}, {"max": True}):
        x, t = pair(a, requires_grad=True)
        lo, tlo = pair(rand_np(rng, (4,), "float64", low=-2, high=0.5), requires_grad=True)
        hi, thi = pair(rand_np(rng, (3, 1), "float64", low=-0.5, high=2), requires_grad=True)
        args = [lo if kw.get("min") else None, hi if kw.get("max") else None]
        targs = [tlo if kw.get("min") else None, thi if kw.get("max") else None]
        x.clamp(*args).sum().backward()
        t.clamp(*targs).sum().backward()
        assert_same(x.grad, t.grad)
        if kw.get("min"):
            assert_same(lo.grad, tlo.grad)
        if kw.get("max"):
            assert_same(hi.grad, thi.grad)


def test_clamp_errors(rng):
    x, t = rand_pair(rng, (3,))
    with pytest.raises(RuntimeError):
        t.clamp()
    with pytest.raises(RuntimeError):
        x.clamp()
    with pytest.raises(RuntimeError):
        x.clamp(Dl.zeros(4))
    with pytest.raises(RuntimeError):
        t.clamp(torch.zeros(4))
    with pytest.raises(TypeError):
        x.clamp("a")


@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16", "int32", "int64", "uint8"])
def test_clamp_inplace(rng, name):
    x, t = rand_pair(rng, (3, 4), name)
    r = x.clamp_(0, 2)
    t.clamp_(0, 2)
    assert r is x
    assert_same(x, t)
    x, t = rand_pair(rng, (3, 4), name)
    x.clamp_(max=1)
    t.clamp_(max=1)
    assert_same(x, t)
    # through a non-contiguous view, writing the base
    x, t = rand_pair(rng, (4, 3), name)
    x.t().clamp_(min=1)
    t.t().clamp_(min=1)
    assert_same(x, t)


def test_inplace_errors(rng):
    xi, ti = rand_pair(rng, (3,), "int64")
    with pytest.raises(RuntimeError):
        ti.clamp_(0.5)
    with pytest.raises(RuntimeError):
        xi.clamp_(0.5)
    x, t = rand_pair(rng, (3,), requires_grad=True)
    with pytest.raises(RuntimeError):
        t.clamp_(0)
    with pytest.raises(RuntimeError):
        x.clamp_(0)
    with pytest.raises(RuntimeError):
        t.relu_()
    with pytest.raises(RuntimeError):
        x.relu_()
    y, u = rand_pair(rng, (3,))
    with pytest.raises(RuntimeError):
        u.clamp_(torch.zeros(2, 3))
    with pytest.raises(RuntimeError):
        y.clamp_(Dl.zeros(2, 3))


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64", "uint8"])
def test_relu_inplace(rng, name):
    x, t = rand_pair(rng, (3, 4), name)
    r = x.relu_()
    t.relu_()
    assert r is x
    assert_same(x, t)
    x, t = rand_pair(rng, (3, 4), name)
    Dl.relu_(x)
    torch.relu_(t)
    assert_same(x, t)


def test_inplace_grad(rng):
    x, t = rand_pair(rng, (3, 4), "float64", requires_grad=True)
    y, u = x * 2, t * 2
    y.clamp_(max=1.5)
    u.clamp_(max=1.5)
    y, u = y + 0, u + 0
    y.relu_()
    u.relu_()
    assert_same(y, u)
    (y * y).sum().backward()
    (u * u).sum().backward()
    assert_same(x.grad, t.grad)


@pytest.mark.parametrize("name", DTYPES)
def test_lerp(rng, name):
    x, t = rand_pair(rng, (3, 4), name)
    y, u = rand_pair(rng, (4,), name)
    w, tw = rand_pair(rng, (3, 1), name)
    check(lambda a, b: a.lerp(b, 0.3), (x, y), (t, u))
    check(lambda a, b: (torch if isinstance(a, torch.Tensor) else Dl).lerp(a, b, 0.75),
          (x, y), (t, u))
    check(lambda a, b, c: a.lerp(b, c), (x, y, w), (t, u, tw))


def test_lerp_errors_and_grad(rng):
    x, t = rand_pair(rng, (3,), "float32")
    y, u = rand_pair(rng, (3,), "float64")
    check(lambda a, b: a.lerp(b, 0.5), (x, y), (t, u))
    w, tw = rand_pair(rng, (3,), "float64")
    check(lambda a, b, c: a.lerp(b, c), (x, x, w), (t, t, tw))
    with pytest.raises(TypeError):
        x.lerp(x, "a")
    x, t = rand_pair(rng, (3, 4), "float64", requires_grad=True)
    y, u = rand_pair(rng, (4,), "float64", requires_grad=True)
    w, tw = rand_pair(rng, (3, 1), "float64", requires_grad=True)
    x.lerp(y, w).sum().backward()
    t.lerp(u, tw).sum().backward()
    for p, q in ((x, t), (y, u), (w, tw)):
        assert_same(p.grad, q.grad)
    x, t = rand_pair(rng, (3, 4), "float64", requires_grad=True)
    (x.lerp(x * 3, 0.25) ** 2).sum().backward()
    (t.lerp(t * 3, 0.25) ** 2).sum().backward()
    assert_same(x.grad, t.grad)


def test_unary_errors(rng):
    b, c = rand_pair(rng, (3,), "bool")
    i, ti = rand_pair(rng, (3,), "int64")
    for f in (lambda v: v.floor(), lambda v: v.round()):
        check(f, (b,), (c,))
    for f in (lambda v: v.frac(), Dl.nn.functional.silu):
        with pytest.raises(RuntimeError):
            f(i)
    with pytest.raises(RuntimeError):
        torch.frac(ti)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_silu_modules(rng, approximate):
    x, t = rand_pair(rng, (2, 5), requires_grad=True)
    m, tm = Dl.nn.GELU(approximate=approximate), torch.nn.GELU(approximate=approximate)
    y, u = Dl.nn.SiLU()(m(x)), torch.nn.SiLU()(tm(t))
    assert_same(y, u)
    y.sum().backward()
    u.sum().backward()
    assert_same(x.grad, t.grad, rtol=1e-4)


INPLACE = {"pow_": operator.ipow, "floor_divide_": operator.ifloordiv,
           "remainder_": operator.imod, "bitwise_and_": operator.iand,
           "bitwise_or_": operator.ior, "bitwise_xor_": operator.ixor}


@pytest.mark.parametrize("op", list(INPLACE))
@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("other", ["same", "int", "float", "int64", "bool"])
def test_binary_inplace(rng, op, name, other):
    base = op[:-1]

    def make():
        x, t = rand_pair(rng, (3, 4), name)
        if other == "same":
            y, u = pair(binary_data(rng, (4,), name, base), name)
        elif other == "int64":
            y, u = pair(binary_data(rng, (4,), "int64", base), "int64")
        elif other == "bool":
            y, u = (True, True)
        else:
            y = u = 2 if other == "int" else 1.5
        return x, t, y, u

    x, t, y, u = make()
    for f in (lambda a, b: getattr(a, op)(b), INPLACE[op]):
        x, t, y, u = make()
        try:
            r = f(t, u)
            assert r is t
        except (RuntimeError, TypeError) as e:
            with pytest.raises(type(e)):
                dl_call(f, x, y)
            continue
        r = dl_call(f, x, y)
        assert r is x
        assert_same(x, t)


def test_binary_inplace_view_and_grad(rng):
    x, t = pair(np.arange(12).reshape(3, 4))
    v, w = x[1], t[1]
    v &= 6
    w &= 6
    assert_same(x, t)
    x, t = rand_pair(rng, (3, 4), "float64", requires_grad=True, positive=True)
    y, u = x * 1, t * 1
    y **= 2
    u **= 2
    y.sum().backward()
    u.sum().backward()
    assert_same(x.grad, t.grad)


@pytest.mark.parametrize('exponent', [1 / 3, -0.7, 2.5])
def test_pow_number_grad_keeps_float64(rng, exponent):
    # the number's e - 1 in the derivative stays a double: as a tensor op it
    # took the default dtype (float32), and the gradient was off by ~1e-8
    a = rng.uniform(0.5, 3.0, size=(7,))
    x = Dl.tensor(a, requires_grad=True)
    (x ** exponent).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    (t ** exponent).sum().backward()
    np.testing.assert_allclose(np.array(x.grad.tolist()), t.grad.numpy(), rtol=1e-14, atol=0)
