# test_printing.py: repr() and str() of tensors must equal PyTorch's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import DTYPES, Dl, dl_dtype, pair, th_dtype

CASES = [
    "lib.tensor([1.5, 2.0, -3.25])",
    "lib.tensor([1.0, 2.0, 3.0])",
    "lib.tensor(3.5)",
    "lib.tensor(7)",
    "lib.tensor(True)",
    "lib.zeros(()) + 3.5",
    "lib.tensor([7]).sum()",
    "lib.tensor([1.0, 2.0]).max()",
    "lib.tensor([1.0], dtype=lib.float64).view(())",
    "lib.ones((), dtype=lib.bool)",
    "lib.zeros((), requires_grad=True)",
    "lib.tensor([])",
    "lib.zeros(0, 3)",
    "lib.zeros(2, 0, 3, dtype=lib.int64)",
    "lib.tensor([1, 2, 3])",
    "lib.tensor([[1, -2], [300, 4]])",
    "lib.tensor([True, False])",
    "lib.tensor([1.5, 2.0], dtype=lib.float64)",
    "lib.tensor([1, 2], dtype=lib.int32)",
    "lib.tensor([1, 2], dtype=lib.uint8)",
    "lib.tensor([1.5, -2.25], dtype=lib.float16)",
    "lib.tensor([1.5, -2.25], dtype=lib.bfloat16)",
    "lib.tensor(2.5, dtype=lib.float64)",
    "lib.tensor([0.0, -0.0, 1.0])",
    "lib.tensor([float('nan'), float('inf'), -float('inf'), 1.5])",
    "lib.tensor([float('nan'), 1.0])",
    "lib.tensor([1e-8, 1.0])",
    "lib.tensor([1e10, 1.0])",
    "lib.tensor([123456.789, 0.001])",
    "lib.tensor([0.1, 0.25, 100.0])",
    "lib.tensor([1e-5, 2e-5])",
    "lib.tensor([1e20])",
    "lib.tensor([2 ** 40, -5])",
    "lib.tensor([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.5]]])",
    "lib.arange(2000)",
    "lib.arange(2000.0).view(40, 50)",
    "lib.arange(1001.0) / 7",
    "lib.arange(12).view(3, 4).t()",
    "lib.ones(3, 1, 2)",
    "lib.tensor([1.5, 2.0], requires_grad=True)",
    "lib.tensor(2.0, requires_grad=True)",
    "lib.tensor([1.5, 2.0], requires_grad=True) + 1",
    "lib.tensor([1.5, 2.0], requires_grad=True) * lib.tensor([2.0, 1.0])",
    "lib.tensor([1.5, 2.0], requires_grad=True).exp()",
    "lib.tensor([1.5, 2.0], requires_grad=True).sum()",
    "lib.tensor([1.5, 2.0], dtype=lib.float64, requires_grad=True)",
    "lib.tensor([1.5, 2.0], dtype=lib.float64, requires_grad=True) - 1",
    "lib.tensor([[1.5, 2.0]], requires_grad=True) @ lib.ones(2, 2)",
    "lib.tensor([[1.5, 2.0]], requires_grad=True).t()",
    "lib.tensor([[1.5, 2.0]], requires_grad=True).view(2)",
    "lib.tensor([[1.5, 2.0]], requires_grad=True).mean()",
    "lib.tensor([1.5, 2.0], requires_grad=True).relu()",
    "lib.tensor([1.5, 2.0], requires_grad=True).detach()",
    "lib.tensor([1.0, 2.0]) > 1.5",
    "lib.tensor([[1.0, 5.0], [3.0, 2.0]]).max(1).indices",
    "lib.tensor([1, 2]) / 2",
    "lib.zeros(3, dtype=lib.float16)",
    "lib.full((2, 2), 1e-3, dtype=lib.bfloat16)",
    "lib.tensor([-1.0, 1e-4, 1e4])",
    "lib.tensor([0.001, 0.01])",
    "lib.tensor([[1e-10, 3.0], [float('nan'), -2.0]])",
    "lib.tensor([255], dtype=lib.uint8)",
    "lib.tensor([], dtype=lib.float64)",
    "lib.tensor([], dtype=lib.bool)",
    "lib.tensor([[]])",
]


@pytest.mark.parametrize("expr", CASES)
def test_repr_matches_torch(expr):
    x = eval(expr, {"lib": Dl})
    t = eval(expr, {"lib": torch})
    assert repr(x) == repr(t)
    assert str(x) == str(t)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 4), (2, 3, 2)], ids=str)
def test_repr_random(rng, name, shape):
    if name == "bool":
        a = rng.random(shape) < 0.5
    elif name in ("int32", "int64"):
        a = rng.integers(-1000, 1000, size=shape)
    elif name == "uint8":
        a = rng.integers(0, 256, size=shape)
    else:
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)
    x = Dl.tensor(a.tolist(), dtype=dl_dtype(name))
    t = torch.tensor(a.tolist(), dtype=th_dtype(name))
    assert repr(x) == repr(t)


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9])
def test_repr_scales(rng, scale):
    x, t = pair((rng.standard_normal((4, 3)) * scale).astype(np.float32))
    assert repr(x) == repr(t)
    x, t = pair((rng.standard_normal((4, 3)) * scale).astype(np.float64))
    assert repr(x) == repr(t)


def test_repr_summarized(rng):
    x, t = pair(rng.standard_normal((50, 60)).astype(np.float32))
    assert repr(x) == repr(t)
    x, t = pair(rng.integers(0, 10, size=(3, 400, 2)).astype(np.int64))
    assert repr(x) == repr(t)


def test_repr_metadata_objects():
    x, t = Dl.zeros(2, 3), torch.zeros(2, 3)
    assert repr(x.shape) == repr(t.shape)
    assert repr(x.size()) == repr(t.size())
    assert repr(x.dtype) == repr(t.dtype)
    assert str(x.dtype) == str(t.dtype)
    assert repr(x.device) == repr(t.device)
    assert str(x.device) == str(t.device)
    x.requires_grad_()
    t.requires_grad_()
    assert repr((x * 2).grad_fn.name()) == repr((t * 2).grad_fn.name())


def test_format_scalar():
    assert "{:.3f}".format(Dl.ones(()) * 2.5) == "{:.3f}".format(torch.ones(()) * 2.5)
    assert f"{Dl.ones(3).sum() / 7:.5f}" == f"{torch.ones(3).sum() / 7:.5f}"
    assert "{:.3f}".format(Dl.tensor(2.5)) == "{:.3f}".format(torch.tensor(2.5))
    assert f"{Dl.tensor(1.0) / 3:.4f}" == f"{torch.tensor(1.0) / 3:.4f}"
