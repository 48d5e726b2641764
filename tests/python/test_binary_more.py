# test_binary_more.py: the binary and ternary elementwise ops added after
# the first table (fmod, hypot, copysign, xlogy, fmax, fmin, heaviside, gcd,
# lcm, nextafter, ldexp, float_power, logaddexp, logaddexp2, the bitwise
# shifts and their operators, the aliases multiply, subtract, arctan2_,
# true_divide; addcmul and addcdiv), compared against PyTorch 1.13: values
# and dtypes on broadcasts, non-contiguous views and several dtypes, the
# function, method and in-place forms, numbers as operands where torch
# takes them, gradients and node names, and the errors torch raises.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair

FLOATS = ["float32", "float64"]
INTS = ["int32", "int64", "uint8"]
NUMERIC = FLOATS + INTS


def values(rng, name, shape, op):
    """Random values of dtype `name` for operand data of `op`: integers in
    a range where the op is defined (no zero divisors for fmod, counts
    within the width for shifts), floats with signed zeros and, for the
    NaN-aware ops, a NaN."""
    if name == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if name in INTS:
        lo = 0 if name == "uint8" else -30
        a = rng.integers(lo, 31, shape)
        return a
    a = rng.uniform(-4, 4, shape)
    a.flat[0] = 0.0
    if a.size > 2:
        a.flat[1] = -0.0
    return a


def operands(rng, name_a, name_b, op, contiguous=True):
    """(x, t), (y, u): libdl and torch operands of shapes (4, 5) and (5,),
    or, with contiguous=False, a transposed (4, 5) view and a (5,) view
    with stride 2."""
    a = values(rng, name_a, (4, 5) if contiguous else (5, 4), op)
    b = values(rng, name_b, (5,) if contiguous else (10,), op)
    if op in ("fmod_int",):
        b[b == 0] = 3
    if op == "shift":
        b = rng.integers(0, 8, b.shape)
    if op in ("fmax", "fmin") and name_a in FLOATS:
        a.flat[3] = np.nan
        b.flat[2] = np.nan
    x, t = pair(a, name_a)
    y, u = pair(b, name_b)
    if not contiguous:
        x, t = x.t(), t.t()
        y, u = y[::2], u[::2]
    return (x, t), (y, u)


# name -> (dtypes it takes, the data kind of `values`)
TENSOR_OPS = {
    "fmod": (NUMERIC, "fmod_int"),
    "hypot": (FLOATS, None),
    "copysign": (NUMERIC + ["bool"], None),
    "xlogy": (NUMERIC + ["bool"], None),
    "fmax": (NUMERIC + ["bool"], "fmax"),
    "fmin": (NUMERIC + ["bool"], "fmin"),
    "heaviside": (NUMERIC + ["bool"], None),
    "gcd": (INTS, None),
    "lcm": (INTS, None),
    "nextafter": (FLOATS, None),
    "logaddexp": (FLOATS, None),
    "logaddexp2": (FLOATS, None),
    "ldexp": (FLOATS, "shift"),
    "float_power": (FLOATS + ["int64"], None),
    "bitwise_left_shift": (INTS, "shift"),
    "bitwise_right_shift": (INTS, "shift"),
}

CASES = [(op, name) for op, (names, _) in TENSOR_OPS.items() for name in names]


def _inplace_expected(op, t, u):
    """What torch does for t.op_(u): the result tensor or the exception."""
    c = t.clone()
    try:
        getattr(c, op + "_")(u)
    except (RuntimeError, TypeError) as e:
        return e
    return c


def _check_inplace(op, x, y, t, u):
    if not hasattr(torch.Tensor, op + "_"):
        assert not hasattr(x, op + "_"), op + "_ should not exist, as in torch"
        return
    want = _inplace_expected(op, t, u)
    c = x.clone()
    if isinstance(want, Exception):
        with pytest.raises(type(want)):
            getattr(c, op + "_")(y)
        return
    assert getattr(c, op + "_")(y) is c
    assert_same(c, want, msg=op + "_: ")


@pytest.mark.parametrize("contiguous", [True, False], ids=["contiguous", "strided"])
@pytest.mark.parametrize("op,name", CASES)
def test_tensor_operands(rng, op, name, contiguous):
    kind = TENSOR_OPS[op][1]
    b_name = "int64" if op == "ldexp" else name
    (x, t), (y, u) = operands(rng, name, b_name, kind, contiguous)
    want = getattr(torch, op)(t, u)
    assert_same(getattr(Dl, op)(x, y), want, msg=op + ": ")
    assert_same(getattr(x, op)(y), getattr(t, op)(u), msg=op + " method: ")
    # broadcast the other way: (5,) op (4, 5)
    if op != "ldexp":
        assert_same(getattr(Dl, op)(y, x), getattr(torch, op)(u, t), msg=op + " reversed: ")
    _check_inplace(op, x, y, t, u)


# mixed dtypes: promotion as torch's, in-place casts and their errors
MIXED = [("fmod", "int32", "float32"), ("fmod", "uint8", "int64"), ("fmod", "float32", "float64"),
         ("copysign", "int64", "float32"), ("copysign", "float32", "float64"),
         ("xlogy", "int32", "float64"), ("xlogy", "float64", "int64"),
         ("fmax", "int32", "float32"), ("fmin", "uint8", "int32"), ("fmax", "bool", "int64"),
         ("hypot", "float32", "float64"), ("hypot", "int64", "float32"),
         ("logaddexp", "float64", "float32"), ("logaddexp2", "int32", "float32"),
         ("nextafter", "float32", "float64"), ("gcd", "int32", "int64"),
         ("lcm", "uint8", "int32"), ("bitwise_left_shift", "uint8", "int64"),
         ("bitwise_right_shift", "int32", "int64"), ("ldexp", "float32", "int32"),
         ("ldexp", "int64", "int64"), ("float_power", "float32", "int32")]


@pytest.mark.parametrize("op,na,nb", MIXED)
def test_mixed_dtypes(rng, op, na, nb):
    kind = "shift" if "shift" in op or op == "ldexp" else "fmod_int"
    (x, t), (y, u) = operands(rng, na, nb, kind)
    assert_same(getattr(Dl, op)(x, y), getattr(torch, op)(t, u), msg=op + ": ")
    _check_inplace(op, x, y, t, u)
    (x, t), (y, u) = operands(rng, nb, na, kind)
    assert_same(getattr(Dl, op)(x, y), getattr(torch, op)(t, u), msg=op + " swapped: ")
    _check_inplace(op, x, y, t, u)


NUMBER_CASES = [("fmod", 2.5), ("fmod", 2), ("fmod", -3), ("copysign", -1.5), ("copysign", 2),
                ("xlogy", 2.0), ("xlogy", 3), ("float_power", 2), ("float_power", -0.5),
                ("bitwise_left_shift", 3), ("bitwise_right_shift", 2), ("remainder", 2.5)]


@pytest.mark.parametrize("op,number", NUMBER_CASES)
@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64", "uint8"])
def test_number_operand(rng, op, number, name):
    if "shift" in op and name in FLOATS:
        pytest.skip("shifts take integers only (see test_errors)")
    a = np.abs(values(rng, name, (3, 4), "fmod_int")) if op == "float_power" else \
        values(rng, name, (3, 4), "fmod_int")
    x, t = pair(a, name)
    assert_same(getattr(Dl, op)(x, number), getattr(torch, op)(t, number), msg=op + ": ")
    assert_same(getattr(x, op)(number), getattr(t, op)(number), msg=op + " method: ")
    _check_inplace(op, x, number, t, number)


@pytest.mark.parametrize("op,number", [("xlogy", 2.0), ("xlogy", 0), ("float_power", 2),
                                       ("float_power", 1.5), ("bitwise_left_shift", 3),
                                       ("bitwise_right_shift", -64)])
@pytest.mark.parametrize("name", ["float64", "int64", "int32"])
def test_number_first(rng, op, number, name):
    if "shift" in op and name in FLOATS:
        pytest.skip("shifts take integers only")
    kind = "shift" if "shift" in op else None
    a = values(rng, name, (3, 4), kind)
    if op == "xlogy" or op == "float_power":
        a = np.abs(a)
    x, t = pair(a, name)
    assert_same(getattr(Dl, op)(number, x), getattr(torch, op)(number, t), msg=op + ": ")


@pytest.mark.parametrize("name", INTS)
def test_shift_operators(rng, name):
    a = values(rng, name, (3, 4), None)
    b = rng.integers(0, 7, (4,))
    (x, t), (y, u) = pair(a, name), pair(b, name)
    assert_same(x << y, t << u)
    assert_same(x >> y, t >> u)
    assert_same(x << 2, t << 2)
    assert_same(x >> 1, t >> 1)
    assert_same(3 << y, 3 << u)
    assert_same(100 >> y, 100 >> u)
    c, d = x.clone(), t.clone()
    c <<= y
    d <<= u
    assert_same(c, d)
    c >>= 2
    d >>= 2
    assert_same(c, d)


def test_shift_counts_out_of_range():
    """Counts past the width (and negative ones) as torch 1.13's CPU kernels
    give them: the count is taken modulo the width of C's int (int64: 64)."""
    for name, counts in [("int64", [64, -1, 70, 63]), ("int32", [33, -1, 32, 31]),
                         ("uint8", [9, 255, 8, 7])]:
        a = np.array([5, -7 if name != "uint8" else 7, 3, 1])
        (x, t), (y, u) = pair(a, name), pair(np.array(counts), name)
        assert_same(x << y, t << u, msg=name + " <<: ")
        assert_same(x >> y, t >> u, msg=name + " >>: ")


def test_special_values():
    nan, inf = float("nan"), float("inf")
    a = [0.0, 0.0, 0.0, -0.0, 1.5, -2.0, nan, inf, -inf, 3.0]
    b = [0.0, nan, -1.0, 2.0, nan, -0.0, 1.0, inf, -inf, 0.0]
    (x, t), (y, u) = pair(np.array(a), "float64"), pair(np.array(b), "float64")
    for op in ["xlogy", "fmax", "fmin", "fmod", "hypot", "copysign", "nextafter", "logaddexp",
               "logaddexp2", "heaviside"]:
        assert_same(getattr(Dl, op)(x, y), getattr(torch, op)(t, u), msg=op + ": ")
        got = getattr(Dl, op)(x, y).numpy()
        want = getattr(torch, op)(t, u).numpy()
        num = ~np.isnan(want)  # the sign of a NaN means nothing
        np.testing.assert_array_equal(np.signbit(got[num]), np.signbit(want[num]),
                                      err_msg=op + " signs")
    # xlogy (0, 0) is 0, xlogy (0, nan) is nan
    z = Dl.xlogy(Dl.tensor([0.0, 0.0]), Dl.tensor([0.0, nan]))
    assert z[0].item() == 0.0 and np.isnan(z[1].item())


def test_fmod_sign_and_integer_edges():
    (x, t), (y, u) = pair(np.array([7, -7, 7, -7, 0]), "int64"), \
        pair(np.array([3, 3, -3, -3, 5]), "int64")
    assert_same(Dl.fmod(x, y), torch.fmod(t, u))
    assert_same(x.fmod(-1), t.fmod(-1))
    # INT64_MIN fmod -1 is 0 here; torch 1.13 dies of SIGFPE on it
    x = Dl.tensor([np.iinfo(np.int64).min, 5])
    assert x.fmod(-1).tolist() == [0, 0]
    assert Dl.fmod(x, Dl.tensor([-1, -1])).tolist() == [0, 0]
    (x, t) = pair(np.array([-12, 5, 0]), "int64")
    assert_same(Dl.gcd(x, Dl.tensor([0, 0, 0])), torch.gcd(t, torch.tensor([0, 0, 0])))
    assert_same(Dl.lcm(Dl.tensor([-4, 0, 3]), Dl.tensor([6, 5, -7])),
                torch.lcm(torch.tensor([-4, 0, 3]), torch.tensor([6, 5, -7])))


def test_aliases(rng):
    a, b = rng.uniform(-3, 3, (3, 4)), rng.uniform(0.5, 3, (4,))
    (x, t), (y, u) = pair(a, "float32"), pair(b, "float32")
    assert_same(Dl.multiply(x, y), torch.multiply(t, u))
    assert_same(x.multiply(2), t.multiply(2))
    assert_same(Dl.subtract(x, y, alpha=2.5), torch.subtract(t, u, alpha=2.5))
    assert_same(x.subtract(y), t.subtract(u))
    assert_same(Dl.true_divide(x, y), torch.true_divide(t, u))
    assert_same(x.true_divide(3), t.true_divide(3))
    (i, j) = pair(np.array([5, -7, 3]), "int64")
    assert_same(Dl.subtract(i, 2, alpha=3), torch.subtract(j, 2, alpha=3))
    for name, arg, targ in [("multiply_", y, u), ("subtract_", y, u), ("arctan2_", y, u),
                            ("true_divide_", y, u)]:
        c, d = x.clone(), t.clone()
        assert getattr(c, name)(arg) is c
        getattr(d, name)(targ)
        assert_same(c, d, msg=name + ": ")
    c, d = x.clone(), t.clone()
    c.subtract_(y, alpha=-2)
    d.subtract_(u, alpha=-2)
    assert_same(c, d)
    c, d = x.clone(), t.clone()
    c.atan2_(y)
    d.atan2_(u)
    assert_same(c, d)


# -- gradients ------------------------------------------------------------

GRAD_OPS = {
    # op: (the form, the domain of (a, b))
    "fmod": (lambda m, a, b: m.fmod(a, b), "nonzero"),
    "hypot": (lambda m, a, b: m.hypot(a, b), "nonzero"),
    "copysign": (lambda m, a, b: m.copysign(a, b), "nonzero"),
    "xlogy": (lambda m, a, b: m.xlogy(a, b), "pos"),
    "fmax": (lambda m, a, b: m.fmax(a, b), "any"),
    "fmin": (lambda m, a, b: m.fmin(a, b), "any"),
    "logaddexp": (lambda m, a, b: m.logaddexp(a, b), "any"),
    "logaddexp2": (lambda m, a, b: m.logaddexp2(a, b), "any"),
    "float_power": (lambda m, a, b: m.float_power(a, b), "pos"),
    "ldexp": (lambda m, a, b: m.ldexp(a, b), "any"),
    "addcmul": (lambda m, a, b: m.addcmul(a, b, b * 0.5 + 1, value=-0.7), "any"),
    "addcdiv": (lambda m, a, b: m.addcdiv(a, a + 2, b, value=1.3), "nonzero"),
    "fmod_number": (lambda m, a, b: m.fmod(a, 0.7) * b, "nonzero"),
    "copysign_number": (lambda m, a, b: a.copysign(-1.5) * b, "nonzero"),
    "xlogy_number": (lambda m, a, b: m.xlogy(2.5, b) + m.xlogy(a, 3.0), "pos"),
}


def _domain(rng, kind, shape):
    if kind == "pos":
        return rng.uniform(0.5, 2, shape)
    if kind == "nonzero":
        return rng.choice([-1, 1], shape) * rng.uniform(0.3, 2, shape)
    return rng.uniform(-2, 2, shape)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op", sorted(GRAD_OPS))
def test_gradients(rng, op, dtype):
    fn, kind = GRAD_OPS[op]
    a, b = _domain(rng, kind, (3, 4)), _domain(rng, kind, (4,))
    (x, t), (y, u) = pair(a, dtype, True), pair(b, dtype, True)
    out, ref = fn(Dl, x, y), fn(torch, t, u)
    assert_same(out, ref)
    assert out.grad_fn.name() == ref.grad_fn.name().replace("torch::autograd::", "")
    g = rng.uniform(-1, 1, tuple(ref.shape))
    out.backward(Dl.tensor(g, dtype=out.dtype))
    ref.backward(torch.tensor(g, dtype=ref.dtype))
    assert_same(x.grad, t.grad, msg="grad self: ")
    assert_same(y.grad, u.grad, msg="grad other: ")


def test_node_names_of_the_tensor_forms():
    a = Dl.tensor([0.5, 1.5], dtype=Dl.float64, requires_grad=True)
    b = Dl.tensor([2.0, -1.0], dtype=Dl.float64, requires_grad=True)
    ta = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    tb = torch.tensor([2.0, -1.0], dtype=torch.float64, requires_grad=True)
    for op in ["fmod", "hypot", "copysign", "xlogy", "fmax", "fmin", "logaddexp", "logaddexp2",
               "nextafter", "ldexp", "float_power"]:
        assert getattr(Dl, op)(a, b).grad_fn.name() == getattr(torch, op)(ta, tb).grad_fn.name()
    # the forms with a Python number have nodes of their own in torch
    for fn in [lambda m, x: m.fmod(x, 2.5), lambda m, x: x.copysign(-1), lambda m, x: x % 0.7,
               lambda m, x: m.remainder(x, x.detach() + 1), lambda m, x: x.remainder(2),
               lambda m, x: m.xlogy(x, 2.0), lambda m, x: m.xlogy(3, x),
               lambda m, x: m.float_power(x, 2), lambda m, x: m.float_power(2.5, x),
               lambda m, x: x.pow(3), lambda m, x: 2 ** x, lambda m, x: m.pow(2, x),
               lambda m, x: 2.5 ** x]:
        assert fn(Dl, a).grad_fn.name() == fn(torch, ta).grad_fn.name()
    c, tc = a.detach().clone().requires_grad_(), ta.detach().clone().requires_grad_()
    assert (c * 1).float_power_(2).grad_fn.name() == (tc * 1).float_power_(2).grad_fn.name()
    assert Dl.addcmul(a, a, b).grad_fn.name() == torch.addcmul(ta, ta, tb).grad_fn.name()
    assert Dl.addcdiv(a, a, b).grad_fn.name() == torch.addcdiv(ta, ta, tb).grad_fn.name()


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("number", [2, 0.5, True])
def test_rpow_dtypes(rng, name, number):
    """number ** tensor: the number as a 0-d tensor of the result type, as
    torch's Tensor.__rpow__ does."""
    x, t = pair(values(rng, name, (3, 4), "shift"), name)
    try:
        want = number ** t
    except RuntimeError:
        with pytest.raises(RuntimeError):
            number ** x
        return
    assert_same(number ** x, want)


def test_backward_not_implemented():
    """nextafter and heaviside record nodes whose backward fails, as
    torch's do."""
    for op in ["nextafter", "heaviside"]:
        a = Dl.tensor([0.5, -1.5, 0.0], dtype=Dl.float64, requires_grad=True)
        b = Dl.tensor([2.0, -1.0, 0.5], dtype=Dl.float64)
        out = getattr(Dl, op)(a, b)
        ta = torch.tensor([0.5, -1.5, 0.0], dtype=torch.float64, requires_grad=True)
        tout = getattr(torch, op)(ta, torch.tensor([2.0, -1.0, 0.5], dtype=torch.float64))
        assert tout.grad_fn is not None and out.grad_fn is not None
        with pytest.raises(RuntimeError):
            tout.sum().backward()
        with pytest.raises(RuntimeError):
            out.sum().backward()


# -- addcmul and addcdiv ------------------------------------------------------

ADDC_DTYPES = [("float32", "float32", "float32"), ("float64", "float32", "float64"),
               ("float32", "int64", "float32"), ("int64", "int64", "int64"),
               ("int32", "int32", "int32"), ("uint8", "uint8", "uint8"),
               ("float64", "float64", "float64")]


@pytest.mark.parametrize("contiguous", [True, False], ids=["contiguous", "strided"])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dtypes", ADDC_DTYPES, ids=lambda d: "-".join(d))
@pytest.mark.parametrize("value", [1, 0.5, -2, 2.5])
def test_addc(rng, op, dtypes, value, contiguous):
    na, n1, n2 = dtypes
    if op == "addcdiv" and n1 not in FLOATS and n2 not in FLOATS:
        return  # an error: test_errors
    a = values(rng, na, (4, 5), None)
    b = values(rng, n1, (5,) if contiguous else (10,), None)
    c = values(rng, n2, (4, 1), None)
    if op == "addcdiv":
        c[c == 0] = 3
    (x, t), (y, u), (z, w) = pair(a, na), pair(b, n1), pair(c, n2)
    if not contiguous:
        y, u = y[::2], u[::2]
    assert_same(getattr(Dl, op)(x, y, z, value=value), getattr(torch, op)(t, u, w, value=value))
    assert_same(getattr(x, op)(y, z, value=value), getattr(t, op)(u, w, value=value))
    assert_same(getattr(Dl, op)(x, y, z), getattr(torch, op)(t, u, w))
    # the broadcast the other way round: (5,) + value * (4, 5) * (4, 1)
    assert_same(getattr(Dl, op)(y, x, z, value=value), getattr(torch, op)(u, t, w, value=value))
    want = _addc_inplace_expected(op, t, u, w, value)
    c2 = x.clone() if contiguous else x.t().clone().t()
    if isinstance(want, Exception):
        with pytest.raises(type(want)):
            getattr(c2, op + "_")(y, z, value=value)
    else:
        assert getattr(c2, op + "_")(y, z, value=value) is c2
        assert_same(c2, want)


def _addc_inplace_expected(op, t, u, w, value):
    d = t.clone()
    try:
        getattr(d, op + "_")(u, w, value=value)
    except RuntimeError as e:
        return e
    return d


@pytest.mark.filterwarnings("ignore:This overload of addcmul_")
def test_addc_value_forms(rng):
    (x, t), (y, u), (z, w) = [pair(rng.uniform(0.5, 2, (3,)), "float32") for _ in range(3)]
    assert_same(Dl.addcdiv(x, y, z, value=Dl.tensor(2.0)),
                torch.addcdiv(t, u, w, value=torch.tensor(2.0)))
    # the deprecated positional value of the methods, which optimizers of
    # old write
    c, d = x.clone(), t.clone()
    c.addcmul_(0.5, y, z)
    d.addcmul_(0.5, u, w)
    assert_same(c, d)


def test_adam_step_bit_for_bit(rng):
    """Adam's update written with addcmul_ and addcdiv_, as torch.optim's
    single-tensor Adam of 1.13 writes it, gives torch's bits."""
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
    p0 = rng.standard_normal((17, 33)).astype(np.float32)
    (p, tp) = pair(p0, "float32")
    (m, tm), (v, tv) = pair(np.zeros_like(p0), "float32"), pair(np.zeros_like(p0), "float32")
    for step in range(1, 6):
        g0 = rng.standard_normal((17, 33)).astype(np.float32)
        (g, tg) = pair(g0, "float32")
        for mod, P, M, V, G in [(Dl, p, m, v, g), (torch, tp, tm, tv, tg)]:
            M.mul_(b1).add_(G, alpha=1 - b1)
            V.mul_(b2).addcmul_(G, G.conj() if mod is torch else G, value=1 - b2)
            bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
            step_size = lr / bc1
            denom = (V.sqrt() / (bc2 ** 0.5)).add_(eps)
            P.addcdiv_(M, denom, value=-step_size)
        np.testing.assert_array_equal(v.numpy(), tv.numpy())
        np.testing.assert_array_equal(p.numpy(), tp.numpy())


# -- errors -----------------------------------------------------------------

def _raises_like(fn_dl, fn_torch):
    with pytest.raises(Exception) as te:
        fn_torch()
    with pytest.raises(type(te.value)):
        fn_dl()


@pytest.mark.parametrize("op,number", [("hypot", 2.0), ("fmax", 1.0), ("fmin", 1), ("gcd", 2),
                                       ("lcm", 2), ("nextafter", 1.0), ("logaddexp", 1.0),
                                       ("logaddexp2", 1.0), ("ldexp", 2), ("heaviside", 1.0)])
def test_tensor_only_operands(op, number):
    x, t = pair(np.array([1, 2, 3]), "int64" if op in ("gcd", "lcm") else "float32")
    _raises_like(lambda: getattr(Dl, op)(x, number), lambda: getattr(torch, op)(t, number))
    _raises_like(lambda: getattr(x, op)(number), lambda: getattr(t, op)(number))


def test_errors():
    f, tf = pair(np.array([1.5, -2.0, 3.0]), "float32")
    d, td = pair(np.array([1.5, -2.0, 3.0]), "float64")
    i, ti = pair(np.array([5, -7, 3]), "int64")
    z, tz = pair(np.array([2, 0, 1]), "int64")
    b, tb = pair(np.array([True, False, True]), "bool")
    cases = [
        ("fmod int by zero", lambda m, x: m.fmod(x["i"], x["z"])),
        ("fmod int by number zero", lambda m, x: m.fmod(x["i"], 0)),
        ("fmod_ int by zero", lambda m, x: x["i"].clone().fmod_(x["z"])),
        ("fmod bool", lambda m, x: m.fmod(x["b"], x["b"])),
        ("fmod number first", lambda m, x: m.fmod(2, x["f"])),
        ("copysign number first", lambda m, x: m.copysign(2, x["f"])),
        ("fmod_ cast", lambda m, x: x["i"].clone().fmod_(2.5)),
        ("copysign_ cast", lambda m, x: x["i"].clone().copysign_(x["f"])),
        ("xlogy_ cast", lambda m, x: x["i"].clone().xlogy_(x["i"])),
        ("hypot int", lambda m, x: m.hypot(x["i"], x["i"])),
        ("logaddexp int", lambda m, x: m.logaddexp(x["i"], x["i"])),
        ("logaddexp bool", lambda m, x: m.logaddexp(x["b"], x["b"])),
        ("nextafter int", lambda m, x: m.nextafter(x["i"], x["i"])),
        ("gcd float", lambda m, x: m.gcd(x["f"], x["f"])),
        ("gcd bool", lambda m, x: m.gcd(x["b"], x["b"])),
        ("lcm float", lambda m, x: m.lcm(x["i"], x["f"])),
        ("shift float", lambda m, x: x["f"] << 2),
        ("shift float number", lambda m, x: x["i"] >> 1.5),
        ("shift bool", lambda m, x: m.bitwise_left_shift(x["b"], x["b"])),
        ("heaviside dtypes", lambda m, x: m.heaviside(x["f"], x["d"])),
        ("heaviside int float", lambda m, x: m.heaviside(x["f"], x["i"])),
        ("float_power_ float32", lambda m, x: x["f"].clone().float_power_(2)),
        ("float_power_ int", lambda m, x: x["i"].clone().float_power_(2)),
        ("ldexp_ int", lambda m, x: x["i"].clone().ldexp_(x["i"])),
        ("addcdiv ints", lambda m, x: m.addcdiv(x["i"], x["i"], x["i"])),
        ("addcdiv float by ints", lambda m, x: m.addcdiv(x["f"], x["i"], x["z"])),
        ("addcmul bool", lambda m, x: m.addcmul(x["b"], x["b"], x["b"])),
        ("addcmul_ cast", lambda m, x: x["i"].clone().addcmul_(x["f"], x["f"])),
        ("addcmul shapes", lambda m, x: m.addcmul(x["f"], x["f"], m.ones(4))),
        ("addcmul_ broadcast self", lambda m, x: x["f"].clone().addcmul_(x["f"], m.ones(2, 3))),
        ("arctan2_ number", lambda m, x: x["f"].clone().arctan2_(2.0)),
        ("fmod_ broadcast self", lambda m, x: x["f"].clone().fmod_(m.ones(2, 3))),
    ]
    mine = {"f": f, "d": d, "i": i, "z": z, "b": b}
    theirs = {"f": tf, "d": td, "i": ti, "z": tz, "b": tb}
    for what, fn in cases:
        with pytest.raises(Exception) as te:
            fn(torch, theirs)
        try:
            fn(Dl, mine)
        except type(te.value):
            continue
        pytest.fail("%s: libdl does not raise %s" % (what, type(te.value).__name__))


@pytest.mark.parametrize('name', ['add', 'sub', 'mul', 'div', 'subtract', 'multiply'])
def test_arith_out(name):
    """torch.add(x, y, out=result) (the blitz tensor tutorial) and its kin:
    the result written into out and out returned; alpha and out keyword
    only; out= with an input that requires grad fails as torch's."""
    fn, tfn = getattr(Dl, name), getattr(torch, name)
    x, tx = Dl.tensor([[1.0, -2.0, 3.0]]), torch.tensor([[1.0, -2.0, 3.0]])
    y, ty = Dl.tensor([[0.5], [4.0]]), torch.tensor([[0.5], [4.0]])
    out, tout = Dl.empty(2, 3), torch.empty(2, 3)
    assert fn(x, y, out=out) is out
    assert tfn(tx, ty, out=tout) is tout
    assert_same(out, tout)
    assert_same(fn(2, y, out=Dl.empty(2, 1)), tfn(2, ty, out=torch.empty(2, 1)))
    if name in ('add', 'sub', 'subtract'):
        assert_same(fn(x, y, alpha=3, out=out), tfn(tx, ty, alpha=3, out=tout))
        with pytest.raises(TypeError) as te:
            tfn(tx, ty, 2)
        with pytest.raises(TypeError) as de:
            fn(x, y, 2)
        if name != 'subtract':  # torch's own message for subtract lists its overloads
            assert str(de.value) == str(te.value)
    xg, txg = x.clone().requires_grad_(), tx.clone().requires_grad_()
    with pytest.raises(RuntimeError) as te:
        tfn(txg, ty, out=tout)
    with pytest.raises(RuntimeError) as de:
        fn(xg, y, out=out)
    assert str(de.value) == str(te.value).replace('subtract', 'sub').replace('multiply', 'mul')
    with Dl.no_grad():
        assert_same(fn(xg, y, out=out), tfn(txg.detach(), ty, out=tout))
