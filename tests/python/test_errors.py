# test_errors.py: bad input raises the exception class PyTorch raises, with
# a message that says what went wrong; nothing emits a GLib critical (the
# suite runs with G_DEBUG=fatal-criticals, so a critical aborts it).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import numpy as np
import pytest
import torch

from conftest import Dl, SELF_CHECK

# (expression evaluated with lib = Dl or torch, substring the libdl message
# must contain, case-insensitively; None: no message check)
CASES = [
    ("lib.ones(3) + lib.ones(4)", "add"),
    ("lib.ones(2, 3) * lib.ones(4, 3)", "mul"),
    ("lib.ones(3) - lib.ones(2, 1, 4)", "sub"),
    ("lib.ones(3) / lib.ones(2)", "div"),
    ("lib.ones(3) == lib.ones(4)", None),
    ("lib.ones(3) < lib.ones(4)", None),
    ("lib.ones(3, 4) @ lib.ones(5, 6)", "matmul"),
    ("lib.ones(4) @ lib.ones(5)", None),
    ("lib.ones(2, 3, 4) @ lib.ones(3, 5, 6)", None),
    ("lib.ones(2, 2) @ lib.ones(2, 2, dtype=lib.float64)", None),
    ("lib.ones(2, 3).sum(5)", "out of range"),
    ("lib.ones(2, 3).sum((0, 2))", "out of range"),
    # dims are int64 through to C: one past int range is out of range, never
    # a dim cut down to an int (2**32 + 1 would be dim 1)
    ("lib.ones(2, 3).sum(2 ** 32 + 1)", "got 4294967297"),
    ("lib.ones(2, 3).softmax(2 ** 40)", "softmax: dimension out of range"),
    ("lib.cat([lib.ones(2, 3), lib.ones(2, 3)], 2 ** 40)", "cat: dimension out of range"),
    ("lib.ones(2, 3).transpose(0, 2 ** 32 + 1)", "transpose: dimension out of range"),
    ("lib.ones(2, 3).cumsum(-2 ** 40)", "cumsum: dimension out of range"),
    ("lib.nn.Flatten(2 ** 40)(lib.ones(2, 3))", "flatten: dimension out of range"),
    ("lib.ones(2, 3).sum((0, 0))", "multiple times"),
    ("lib.ones(2, 3).mean(-3)", "out of range"),
    ("lib.ones(2, 3).max(2)", "out of range"),
    ("lib.ones(2, 3).min(-3)", "out of range"),
    ("lib.ones(2, 3).argmax(3)", "out of range"),
    ("lib.ones(2, 3).argmin(-4)", "out of range"),
    ("lib.ones(2, 3).transpose(0, 5)", "out of range"),
    ("lib.ones(2, 3).unsqueeze(5)", "out of range"),
    ("lib.ones(2, 3).unsqueeze(-4)", "out of range"),
    ("lib.ones(2, 3).squeeze(4)", "out of range"),
    ("lib.ones(2, 3).flatten(0, 5)", "out of range"),
    ("lib.ones(2, 3).flatten(1, 0)", None),
    ("lib.ones(2, 3).softmax(3)", "out of range"),
    ("lib.ones(2, 3).log_softmax(-3)", "out of range"),
    ("lib.ones(3).log_softmax(1)", "out of range"),
    ("lib.ones(2, 3).size(5)", "out of range"),
    ("lib.ones(2, 3).stride(-3)", "out of range"),
    ("lib.ones(2, 3).permute(0, 0)", None),
    ("lib.ones(2, 3).permute(0, 1, 2)", None),
    ("lib.ones(2, 3).t().view(6)", "view"),
    ("lib.ones(3).view(2, -1)", "invalid"),
    ("lib.ones(2, 3).reshape(-1, -1)", "inferred"),
    ("lib.ones(2, 3).view(-2, 3)", "invalid"),
    ("lib.ones(2, 3).expand(3, 3)", "expand"),
    ("lib.ones(2, 3).expand(3)", None),
    ("lib.ones(2, 3, 4).t()", None),
    ("lib.ones(2).item()", None),
    ("lib.zeros(0).item()", None),
    ("lib.ones(2, dtype=lib.int64).mean()", "mean"),
    ("lib.ones(2, dtype=lib.int64).mean(0)", "mean"),
    ("-lib.ones(2, dtype=lib.bool)", None),
    ("lib.ones(2, dtype=lib.bool) - lib.ones(2, dtype=lib.bool)", None),
    ("lib.ones(2, dtype=lib.bool) - lib.ones(2)", None),
    ("lib.ones(2) - lib.ones(2, dtype=lib.bool)", None),
    ("lib.ones(2, dtype=lib.bool) - 1", None),
    ("lib.ones(2, 2, dtype=lib.bool) @ lib.ones(2, 2, dtype=lib.bool)", None),
    ("lib.ones(2, dtype=lib.int64).log_softmax(0)", None),
    ("lib.ones(2, dtype=lib.int64).softmax(0)", None),
    ("lib.zeros(-1)", "negative"),
    ("lib.ones(2, -3)", "negative"),
    ("lib.full((-1,), 2.0)", "negative"),
    ("lib.arange(0, 5, 0)", "step"),
    ("lib.arange(5, 0, 1)", "step"),
    ("lib.tensor([[1, 2], [3]])", None),
    ("lib.tensor([1, 2], requires_grad=True)", None),
    ("lib.zeros(0).max()", "max"),
    ("lib.zeros(0).min()", "min"),
    ("lib.zeros(0).argmax()", None),
    ("lib.zeros(2, 0).max(1)", None),
    ("lib.zeros(2, 0).argmin(1)", None),
    ("lib.zeros(3).copy_(lib.zeros(4))", None),
    ("lib.zeros(3).add_(lib.ones(2, 3))", None),
    ("lib.tensor([1, 2]).add_(1.5)", None),
    ("lib.tensor([1, 2]).div_(2)", None),
    ("lib.ones(2, requires_grad=True).mul_(2)", "leaf"),
    ("(lib.ones(2, requires_grad=True) * 2).backward()", "scalar"),
    ("lib.ones(2).sum().backward()", None),
    ("(lib.ones(2, requires_grad=True) * 2).backward(lib.ones(3))", None),
    ("lib.ones(2, requires_grad=True).numpy()", "numpy"),
    ("lib.ones(2, dtype=lib.bfloat16).numpy()", "BFloat16"),
    ("lib.from_numpy(np.zeros(3, dtype=np.uint16))", "uint16"),
    ("lib.from_numpy(np.zeros(3)[::-1])", "negative"),
    ("lib.from_numpy([1.0, 2.0])", None),
    ("lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 5]))", "out of bounds"),
    ("lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, -7]))", None),
    ("lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1], dtype=lib.int32))", None),
    ("lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1, 1]))", None),
    ("lib.nn.Linear(3, 2)(lib.ones(4, 5))", None),
    ("lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=-1)", "learning rate"),
    ("lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1, momentum=-1)", "momentum"),
    ("lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1, weight_decay=-1)", "weight_decay"),
    ("lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1, nesterov=True)", "nesterov"),
    ("lib.set_default_dtype(lib.int32)", None),
    ("lib.ones(2, 3).view(7)", "invalid"),
    ("lib.ones(2, 3).reshape(4, 2)", "invalid"),
]


def torch_exception(expr):
    try:
        eval(expr, {"lib": torch, "np": np})
    except Exception as e:   # noqa: BLE001 - the class is what is tested
        return e
    raise AssertionError("torch accepts %s: fix the test" % expr)


@pytest.mark.parametrize("expr,needle", CASES, ids=[c[0] for c in CASES])
def test_error_class(expr, needle):
    expected = torch_exception(expr)
    with pytest.raises(Exception) as info:
        eval(expr, {"lib": Dl, "np": np})
    got = info.value
    assert isinstance(got, type(expected)), (
        "libdl raised %s(%s); torch raises %s(%s)" % (
            type(got).__name__, got, type(expected).__name__, expected))
    if needle and not SELF_CHECK:
        assert needle.lower() in str(got).lower(), "message %r lacks %r" % (str(got), needle)


def test_errors_leave_tensors_usable():
    x = Dl.ones(2, 3)
    for bad in (lambda: x + Dl.ones(4), lambda: x.sum(7), lambda: x.view(5)):
        with pytest.raises((RuntimeError, IndexError)):
            bad()
    assert (x + 1).tolist() == [[2.0] * 3] * 2
    y = Dl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        (y * 2).backward()
    (y * 2).sum().backward()
    assert y.grad.tolist() == [2.0, 2.0]


def test_criticals_are_fatal():
    # the suite is meant to run with G_DEBUG=fatal-criticals (conftest sets
    # it before GLib is loaded), so any g_return_if_fail aborts the run
    assert "fatal-criticals" in os.environ.get("G_DEBUG", "")
