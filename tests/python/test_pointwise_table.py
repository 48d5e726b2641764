# test_pointwise_table.py: the variants the op table derives, against torch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The op lists come from the library (Dl.pointwise_op_names, the table in
# libdl/ops/dl-ops-pointwise.def), so an op added there is tested here
# without a new line: every in-place variant on contiguous and transposed
# tensors of several dtypes, and the number variants, all compared with
# what torch gives (or the exception class torch raises).

import numpy as np
import pytest
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl as _lib  # noqa: E402  (the list, even in self-check mode)

from conftest import Dl, assert_same, rand_np, pair, torch_ref, dl_call  # noqa: E402

_F = _lib.OpFlags
UNARY_INPLACE = list(_lib.pointwise_op_names(_F.UNARY | _F.INPLACE))
BINARY_INPLACE = list(_lib.pointwise_op_names(_F.BINARY | _F.INPLACE))
BINARY_SCALAR = list(_lib.pointwise_op_names(_F.BINARY | _F.SCALAR))
DTYPES = ["float32", "float64", "int64", "bool"]


def check_inplace(fn, x, t, **tol):
    """fn writes into its first argument: the written tensors must agree, or
    both libraries must raise the class torch raises."""
    try:
        torch_ref(fn, t)
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        with pytest.raises(type(e)):
            dl_call(fn, x)
        return
    assert dl_call(fn, x) is x
    assert_same(x, t, **tol)


def test_lists_follow_the_table():
    assert "exp" in UNARY_INPLACE and "gelu" not in UNARY_INPLACE
    assert "add" in BINARY_INPLACE and "maximum" not in BINARY_INPLACE
    assert set(_lib.pointwise_op_names(_F.BINARY | _F.REFLECTED)) == {
        "sub", "div", "pow", "xlogy", "bitwise_left_shift", "bitwise_right_shift"}
    assert set(_lib.pointwise_op_names(_F.COMPARISON)) == {"eq", "ne", "lt", "le", "gt", "ge"}
    every = list(_lib.pointwise_op_names(_F.NONE))
    assert len(every) == len(set(every))


@pytest.mark.parametrize("op", UNARY_INPLACE)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed"])
def test_unary_inplace(rng, op, name, transposed):
    a = rand_np(rng, (3, 4), name)
    x, t = pair(a, name)
    if transposed:
        x, t = x.t(), t.t()
    if hasattr(torch.Tensor, op + "_"):
        check_inplace(lambda v: getattr(v, op + "_")(), x, t)
    else:  # silu_: torch has it as F.silu (inplace=True) only
        check_inplace(lambda v: getattr(v, op + "_")() if v is x
                      else getattr(torch.nn.functional, op)(v, inplace=True), x, t)


@pytest.mark.parametrize("op", BINARY_INPLACE)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("other", ["float32", "int64", "bool"])
def test_binary_inplace(rng, op, name, other):
    a = rand_np(rng, (3, 4), name)
    b = rand_np(rng, (4,), other, nonzero=True)
    x, t = pair(a, name)
    y, u = pair(b, other)
    check_inplace(lambda v: getattr(v, op + "_")(y if v is x else u), x, t)


@pytest.mark.parametrize("op", BINARY_SCALAR)
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("number", [2, 0.5, True], ids=["int", "float", "bool"])
def test_binary_number(rng, op, name, number):
    a = rand_np(rng, (3, 4), name)
    x, t = pair(a, name)
    try:
        expected = torch_ref(lambda v: getattr(v, op)(number), t)
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        with pytest.raises(type(e)):
            dl_call(lambda v: getattr(v, op)(number), x)
        return
    assert_same(dl_call(lambda v: getattr(v, op)(number), x), expected)


# the C names of the number variants, called through the typelib
needs_libdl = pytest.mark.skipif(Dl is torch, reason="libdl's own C functions")


@needs_libdl
@pytest.mark.parametrize("op", ["sub", "div", "pow"])
def test_reflected(rng, op):
    a = rand_np(rng, (3, 4), "float64", positive=True)
    x, t = pair(a, "float64")
    assert_same(getattr(_lib.Tensor, "r%s_scalar" % op)(x, 1.5),
                torch_ref(lambda v: getattr(torch, op)(1.5, v), t))


@needs_libdl
def test_alpha_variants(rng):
    x, t = pair(rand_np(rng, (3, 4), "float64"), "float64")
    y, u = pair(rand_np(rng, (4,), "float64"), "float64")
    assert_same(_lib.Tensor.sub_scaled(x, y, 2.5), torch.sub(t, u, alpha=2.5))
    assert _lib.Tensor.sub_scaled_(x, y, 2.5) is x
    assert_same(x, t.sub_(u, alpha=2.5))


def test_inplace_keeps_history(rng):
    # an in-place op on a non-leaf records the write; the gradient follows
    x, t = pair(rand_np(rng, (5,), "float64", positive=True), "float64", requires_grad=True)
    y, u = x * 1, t * 1
    for v in (y, u):
        v.log_()
        v.sin_()
    assert y.grad_fn.name() == u.grad_fn.name()
    y.sum().backward()
    u.sum().backward()
    assert_same(x.grad, t.grad)
    np.testing.assert_allclose(x.grad.numpy(), (np.cos(np.log(t.detach().numpy()))
                                                / t.detach().numpy()), rtol=1e-12)
