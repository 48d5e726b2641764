# test_division_modes.py: div with rounding_mode None, 'trunc' and 'floor'
# (tensor and number divisors; function, method and in place) and
# floor_divide, compared against PyTorch 1.13, gradients included.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, FLOAT_DTYPES, INT_DTYPES, assert_same, pair, rand_pair

MODES = [None, "trunc", "floor"]


def dividend_divisor(rng, name):
    if name in INT_DTYPES:
        lo = 0 if name == "uint8" else -20
        a = rng.integers(lo, 21, size=(4, 5))
        b = rng.integers(1 if name == "uint8" else -6, 7, size=(5,))
        b[b == 0] = 3
        return pair(a, name), pair(b, name)
    a = rng.uniform(-20, 20, size=(4, 5))
    b = rng.uniform(-6, 6, size=(5,))
    b[np.abs(b) < 0.3] = 0.75
    a[0, :2] = [7.0, -7.0]  # exact quotients
    return pair(a, name), pair(b, name)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FLOAT_DTYPES + INT_DTYPES)
def test_tensor_divisor(rng, mode, name):
    (x, t), (y, u) = dividend_divisor(rng, name)
    expected = torch.div(t, u, rounding_mode=mode)
    assert_same(Dl.div(x, y, rounding_mode=mode), expected)
    assert_same(x.div(y, rounding_mode=mode), expected)
    assert_same(Dl.divide(x, y, rounding_mode=mode), expected)
    if mode == "floor" and name not in ("float16", "bfloat16"):
        assert_same(Dl.floor_divide(x, y), torch.floor_divide(t, u))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("divisor", [2, -3, 2.5, -0.75, 1])
@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64", "uint8"])
def test_number_divisor(rng, mode, divisor, name):
    (x, t), _ = dividend_divisor(rng, name)
    expected = torch.div(t, divisor, rounding_mode=mode)
    assert_same(Dl.div(x, divisor, rounding_mode=mode), expected)
    assert_same(x.div(divisor, rounding_mode=mode), expected)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64"])
def test_inplace(rng, mode, name):
    (x, t), (y, u) = dividend_divisor(rng, name)
    for other, tother in ((y, u), (3, 3)):
        try:
            t.div_(tother, rounding_mode=mode)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                x.div_(other, rounding_mode=mode)
            continue
        r = x.div_(other, rounding_mode=mode)
        assert r is x
        assert_same(x, t)


def test_module_div_out(rng):
    (x, t), (y, u) = dividend_divisor(rng, "float32")
    o, p = Dl.empty(4, 5), torch.empty(4, 5)
    assert Dl.div(x, y, rounding_mode="floor", out=o) is o
    torch.div(t, u, rounding_mode="floor", out=p)
    assert_same(o, p)


@pytest.mark.parametrize("mode", ["trunc", "floor"])
@pytest.mark.parametrize("name", ["int32", "int64", "uint8"])
def test_integer_division_by_zero(mode, name):
    for lib in (torch, Dl):
        x = lib.tensor([4, 5], dtype=getattr(lib, name))
        for other in (lib.tensor([1, 0], dtype=getattr(lib, name)), 0):
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                lib.div(x, other, rounding_mode=mode)
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                x.clone().div_(other, rounding_mode=mode)


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_float_division_by_zero(mode):
    vals = np.array([3.0, -3.0, 0.0, -0.0])
    for z in (0.0, -0.0):
        x, t = pair(vals, "float32")
        y, u = pair(np.full(4, z), "float32")
        assert_same(Dl.div(x, y, rounding_mode=mode), torch.div(t, u, rounding_mode=mode))


def test_bad_mode_and_bool():
    x = Dl.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="rounding_mode"):
        Dl.div(x, 2, rounding_mode="round")
    with pytest.raises(RuntimeError, match="rounding_mode"):
        x.div_(2, rounding_mode="Floor")
    with pytest.raises(RuntimeError):
        torch.div(torch.tensor([True]), torch.tensor([True]), rounding_mode="floor")
    with pytest.raises(RuntimeError):
        Dl.div(Dl.tensor([True]), Dl.tensor([True]), rounding_mode="floor")


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_gradient_is_zero(rng, mode):
    x, t = rand_pair(rng, (3, 4), requires_grad=True)
    y, u = rand_pair(rng, (4,), requires_grad=True, nonzero=True)
    r, s = Dl.div(x, y, rounding_mode=mode), torch.div(t, u, rounding_mode=mode)
    assert r.grad_fn.name() == s.grad_fn.name() == "DivBackward2"
    (r * 3).sum().backward()
    (s * 3).sum().backward()
    assert_same(x.grad, t.grad)
    assert_same(y.grad, u.grad)
    r = x.div(2.0, rounding_mode=mode)
    assert r.requires_grad and r.grad_fn.name() == "DivBackward2"


def test_floor_divide_operator_unchanged(rng):
    (x, t), (y, u) = dividend_divisor(rng, "int64")
    assert_same(x // y, t // u)
    assert_same(x // 4, t // 4)
