# test_fast_operators.py: the Tensor operators in C (_dl_fast) give what
# the Python operators they replace give: values, dtypes, exception classes,
# NotImplemented for foreign operands, autograd; and the module is in use
# when it was built.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import operator
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same

import gi.overrides.Dl as DlModule

OPS = [operator.add, operator.sub, operator.mul, operator.truediv]

OPERANDS = [
    lambda lib: lib.tensor([[1.5, -2.0, 3.0]]),
    lambda lib: lib.tensor([[1], [2]]),
    lambda lib: lib.tensor([True, False, True]),
    lambda lib: lib.tensor(2.5, dtype=lib.float64),
    lambda lib: 3,
    lambda lib: -2.5,
    lambda lib: 2.0,
    lambda lib: True,
    lambda lib: 2 ** 70,
]


@pytest.mark.skipif(bool(os.environ.get('DL_PYTHON_OPERATORS')),
                    reason='DL_PYTHON_OPERATORS asks for the Python operators')
def test_fast_module_is_in_use():
    built = any(name.startswith('_dl_fast') for p in sys.path
                for name in (os.listdir(os.path.join(p, 'gi', 'overrides'))
                             if os.path.isdir(os.path.join(p, 'gi', 'overrides')) else []))
    assert DlModule._fast_operators == built
    if built:
        assert type(Dl.Tensor.__dict__['__add__']).__name__ == 'method_descriptor'


@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("i", range(4))
@pytest.mark.parametrize("j", range(len(OPERANDS)))
def test_same_as_torch(op, i, j):
    a, b = OPERANDS[i](Dl), OPERANDS[j](Dl)
    ta, tb = OPERANDS[i](torch), OPERANDS[j](torch)
    try:
        expected = op(ta, tb)
    except Exception as e:  # noqa: BLE001 - any class: libdl must match it
        with pytest.raises(type(e)):
            op(a, b)
        return
    assert_same(op(a, b), expected)


def test_matmul_and_neg():
    a = Dl.tensor([[1.0, 2.0], [3.0, 4.0]])
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert_same(a @ a, t @ t)
    assert_same(-a, -t)
    assert_same(-Dl.tensor([1, -2]), -torch.tensor([1, -2]))
    with pytest.raises(RuntimeError):
        -Dl.tensor([True])
    with pytest.raises(RuntimeError):
        Dl.ones(2, 3) @ Dl.ones(2, 3)
    with pytest.raises(TypeError):
        a @ 2


def test_errors_keep_their_class_and_message():
    with pytest.raises(RuntimeError, match=r"add: shapes \[3\] and \[4\]"):
        Dl.ones(3) + Dl.ones(4)
    with pytest.raises(TypeError):
        Dl.ones(3) + "x"
    with pytest.raises(TypeError):
        Dl.ones(3) * object()


def test_foreign_operands_reach_their_reflected_operators():
    class Other:
        def __radd__(self, other):
            return "radd"

        def __rmul__(self, other):
            return "rmul"
    assert Dl.ones(2) + Other() == "radd"
    assert Dl.ones(2) * Other() == "rmul"
    assert_same(Dl.ones(2) + np.array([1.0, 2.0], dtype=np.float32),
                torch.ones(2) + torch.tensor([1.0, 2.0]))


def test_parameters_and_autograd():
    w = Dl.nn.Parameter(Dl.tensor([1.0, 2.0]))
    x = Dl.tensor([3.0, 4.0], requires_grad=True)
    y = ((w * x + 1) / 2 - w) @ x
    y.backward()
    tw = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    tx = torch.tensor([3.0, 4.0], requires_grad=True)
    u = ((tw * tx + 1) / 2 - tw) @ tx
    u.backward()
    assert_same(y, u)
    assert_same(w.grad, tw.grad)
    assert_same(x.grad, tx.grad)


def test_large_tensors_release_the_gil():
    a = Dl.ones(1 << 16)
    assert_same(a + a, torch.full((1 << 16,), 2.0))
    assert_same(a * 3, torch.full((1 << 16,), 3.0))


def test_python_operators_still_work_when_asked_for():
    code = ("import gi; gi.require_version('Dl', '1.0')\n"
            "from gi.repository import Dl\n"
            "import gi.overrides.Dl as M\n"
            "assert not M._fast_operators\n"
            "a = Dl.tensor([1.0, 2.0])\n"
            "print(((a + 1) * a - a / 2).tolist(), (-a).tolist())\n")
    env = dict(os.environ, DL_PYTHON_OPERATORS='1')
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[1.5, 5.0] [-1.0, -2.0]"
