# test_saved_tensors.py: ops keep only what the gradients of the inputs
# that require grad read, so that the in-place patterns PyTorch allows
# work here too, and those it refuses are refused.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pytest
import torch

from conftest import Dl, assert_same, rand_pair


def both(rng, shape, fn):
    """fn run on a libdl leaf and on a torch leaf of the same values, then
    sum().backward(); returns the two leaves."""
    x, t = rand_pair(rng, shape, requires_grad=True)
    fn(Dl, x).sum().backward()
    fn(torch, t).sum().backward()
    return x, t


def column_times_three(lib, x):
    y = x.clone()
    y[:, 1] = y[:, 1] * 3
    return y


def column_divided(lib, x):
    y = x.clone()
    y[:, 0] = y[:, 0] / 4
    y[1] = 2 * y[1]
    return y


def scaled_then_added(lib, x):
    y = x * 2
    y.add_(1)
    return y


def added_then_scaled(lib, x):
    y = x + 1
    y.mul_(2)
    return y


def subtracted_then_divided(lib, x):
    y = x.sub(1, alpha=3)
    y.div_(5)
    y -= 2
    return y


def product_with_constant(lib, x):
    # only x requires grad: x * c keeps c, so x's history may change
    c = lib.ones(x.shape) * 1.5
    y = x * 1
    z = y * c
    y.mul_(3)
    return z + y


def quotient_by_constant(lib, x):
    c = lib.ones(x.shape) * 4
    y = x * 1
    z = y / c
    y.add_(1)
    return z * y


def matmul_with_constant(lib, x):
    c = lib.ones(x.shape[1], 2) * 0.5
    y = x * 1
    z = y @ c
    y.mul_(2)
    return z.sum() + y.sum()


def remainder_by_constant(lib, x):
    y = x * 1
    z = y.remainder(1.5)
    y.mul_(2)
    return z + y


@pytest.mark.parametrize('fn', [column_times_three, column_divided, scaled_then_added,
                                added_then_scaled, subtracted_then_divided,
                                product_with_constant, quotient_by_constant,
                                matmul_with_constant, remainder_by_constant])
def test_inplace_after_op_that_does_not_need_it(rng, fn):
    x, t = both(rng, (3, 4), fn)
    assert_same(x.grad, t.grad)


def output_of_exp(lib, x):
    y = x.exp()
    y.add_(1)
    return y


def input_of_sin(lib, x):
    y = x * 1
    z = y.sin()
    y.mul_(2)
    return z


def factor_of_product(lib, x):
    # x * c with c requiring grad too: c's gradient reads x's history
    c = lib.ones(x.shape).requires_grad_()
    y = x * 1
    z = y * c
    y.mul_(2)
    return z


def constant_divisor(lib, x):
    # x / c keeps c, which changes afterwards
    c = lib.ones(x.shape) * 2
    z = x / c
    c.add_(1)
    return z


def constant_of_matmul(lib, x):
    c = lib.ones(x.shape[1], 2)
    z = x @ c
    c.mul_(2)
    return z


@pytest.mark.parametrize('fn', [output_of_exp, input_of_sin, factor_of_product, constant_divisor,
                                constant_of_matmul])
def test_inplace_change_of_a_saved_tensor_raises(rng, fn):
    for lib in (torch, Dl):
        x = lib.ones(3, 4, requires_grad=True)
        out = fn(lib, x).sum()
        with pytest.raises(RuntimeError, match='modified by an inplace operation'):
            out.backward()


def test_saved_only_what_is_needed_keeps_double_backward(rng):
    x, t = rand_pair(rng, (5,), requires_grad=True)
    w, u = rand_pair(rng, (5,), requires_grad=True)
    for a, b in ((x, w), (t, u)):
        (a * b * a).sum().backward(create_graph=True)
        g = a.grad
        (g * g).sum().backward()
    assert_same(x.grad, t.grad)
    assert_same(w.grad, u.grad)
