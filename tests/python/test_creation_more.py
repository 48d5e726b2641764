# test_creation_more.py: linspace, eye, the *_like family, tensor() edge
# cases and the default dtype's effect on creation, against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import (Dl, DTYPES, SELF_CHECK, assert_same, dl_dtype, dtype_name, th_dtype,
                      to_np)

LINSPACE = [(0, 1, 5), (-3.5, 7.25, 11), (2, 2, 4), (5, -5, 7), (0, 1, 1), (3, 9, 0),
            (0, 1, 2), (0, 10, 4), (-1e6, 1e6, 101), (1, 0, 3), (0, 1, 1000), (0, 10, 7),
            (10, 0, 7), (0.5, 7.9, 3), (-3.5, 7.25, 4)]


@pytest.mark.parametrize("args", LINSPACE, ids=str)
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16", "int64", "int32"])
def test_linspace(args, name):
    if name in ("float16", "bfloat16", "int32", "uint8") and abs(args[0]) > 1e4:
        return
    if name.startswith("int") and args[2] > 16:
        # torch 1.13's vectorised integer path rounds its step to an integer
        # (torch.linspace(0, 1, 1000, dtype=torch.int64) ends with 0)
        return
    x = Dl.linspace(*args, dtype=dl_dtype(name))
    t = torch.linspace(*args, dtype=th_dtype(name))
    tol = {"float32": 1e-6, "float64": 1e-12, "float16": 1e-3, "bfloat16": 1e-2}.get(name, 0)
    assert_same(x, t, rtol=tol, atol=tol * max(1, abs(args[0]), abs(args[1])))


def test_linspace_default_and_kwargs():
    assert_same(Dl.linspace(0, 1, steps=3), torch.linspace(0, 1, steps=3))
    assert_same(Dl.linspace(Dl.tensor(1.0), Dl.tensor(3.0), 3),
                torch.linspace(torch.tensor(1.0), torch.tensor(3.0), 3))
    x = Dl.linspace(0, 1, 4, requires_grad=True)
    assert x.requires_grad and x.is_leaf
    # the last value is exactly the end
    assert to_np(Dl.linspace(0.1, 0.7, 7, dtype=Dl.float64))[-1] == 0.7


def test_linspace_errors():
    with pytest.raises(RuntimeError):
        torch.linspace(0, 1, -1)
    with pytest.raises(RuntimeError):
        Dl.linspace(0, 1, -1)
    with pytest.raises(TypeError):
        Dl.linspace(0, 1, 2.5)


@pytest.mark.parametrize("nm", [(3,), (3, 5), (5, 3), (0,), (0, 3), (3, 0), (1,), (1, 4)],
                         ids=str)
@pytest.mark.parametrize("name", DTYPES)
def test_eye(nm, name):
    if name == "bfloat16":   # torch 1.13 has no bfloat16 eye
        if SELF_CHECK:
            pytest.skip("torch 1.13 has no bfloat16 eye")
        expected = torch.eye(*nm).bfloat16()
    else:
        expected = torch.eye(*nm, dtype=th_dtype(name))
    assert_same(Dl.eye(*nm, dtype=dl_dtype(name)), expected)


def test_eye_default_and_errors():
    assert_same(Dl.eye(4), torch.eye(4))
    assert_same(Dl.eye(2, m=3), torch.eye(2, m=3))
    assert Dl.eye(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError):
        torch.eye(-1)
    with pytest.raises(RuntimeError):
        Dl.eye(-1)
    with pytest.raises(RuntimeError):
        Dl.eye(2, -3)
    with pytest.raises(TypeError):
        Dl.eye(2.5)


LIKE_SRC = [((2, 3), "float32"), ((), "float64"), ((0, 4), "int64"), ((3, 1), "bool"),
            ((2, 2), "float16"), ((4,), "uint8"), ((1, 2, 3), "bfloat16"), ((2,), "int32")]


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like"])
@pytest.mark.parametrize("src", LIKE_SRC, ids=str)
def test_like_family(fn, src):
    shape, name = src
    x, t = Dl.zeros(shape, dtype=dl_dtype(name)), torch.zeros(shape, dtype=th_dtype(name))
    a, b = getattr(Dl, fn)(x), getattr(torch, fn)(t)
    assert tuple(a.shape) == tuple(b.shape) and dtype_name(a.dtype) == dtype_name(b.dtype)
    if fn != "empty_like":
        assert_same(a, b)
    for d in ("float64", "int32", "bool"):
        a = getattr(Dl, fn)(x, dtype=dl_dtype(d))
        b = getattr(torch, fn)(t, dtype=th_dtype(d))
        assert dtype_name(a.dtype) == dtype_name(b.dtype) == d
        if fn != "empty_like":
            assert_same(a, b)
    a = getattr(Dl, fn)(x.float(), requires_grad=True)
    assert a.requires_grad and a.is_leaf
    a = getattr(Dl, fn)(x, device="cpu")
    assert str(a.device) == "cpu"


@pytest.mark.parametrize("src", LIKE_SRC, ids=str)
@pytest.mark.parametrize("value", [2, 2.5, True, -1])
def test_full_like(src, value):
    shape, name = src
    if name in ("uint8",) and value == -1:
        return
    x, t = Dl.zeros(shape, dtype=dl_dtype(name)), torch.zeros(shape, dtype=th_dtype(name))
    assert_same(Dl.full_like(x, value), torch.full_like(t, value))
    assert_same(Dl.full_like(x, value, dtype=Dl.float64),
                torch.full_like(t, value, dtype=torch.float64))


@pytest.mark.parametrize("fn", ["rand_like", "randn_like"])
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_random_like(fn, name):
    x, t = Dl.zeros(3, 4, dtype=dl_dtype(name)).t(), torch.zeros(3, 4, dtype=th_dtype(name)).t()
    a, b = getattr(Dl, fn)(x), getattr(torch, fn)(t)
    assert tuple(a.shape) == tuple(b.shape) == (4, 3)
    assert dtype_name(a.dtype) == dtype_name(b.dtype)
    assert getattr(Dl, fn)(x, dtype=Dl.float64).dtype == Dl.float64
    assert getattr(Dl, fn)(x, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError):
        getattr(torch, fn)(torch.zeros(2, dtype=torch.int64))
    with pytest.raises(RuntimeError):
        getattr(Dl, fn)(Dl.zeros(2, dtype=Dl.int64))


def test_randint_like():
    x = Dl.zeros(3, 2, dtype=Dl.int32)
    t = torch.zeros(3, 2, dtype=torch.int32)
    a, b = Dl.randint_like(x, 5), torch.randint_like(t, 5)
    assert tuple(a.shape) == tuple(b.shape) and dtype_name(a.dtype) == dtype_name(b.dtype)
    v = to_np(Dl.randint_like(x, 3, 6))
    assert v.min() >= 3 and v.max() < 6


@pytest.mark.filterwarnings("ignore:To copy construct")
def test_tensor_edge_cases():
    cases = [
        lambda m: m.tensor([m.tensor(1.0), m.tensor(2.0)]),
        lambda m: m.tensor([[m.tensor(1), 2], [3, 4]]),
        lambda m: m.tensor(np.float64(2.5)),
        lambda m: m.tensor(np.int64(-3)),
        lambda m: m.tensor(np.array([1, 2], dtype=np.int32)),
        lambda m: m.tensor(np.array([[1.0, 2.0], [3.0, 4.0]])[:, ::2]),
        lambda m: m.tensor(range(5)),
        lambda m: m.tensor(()),
        lambda m: m.tensor([[], []]),
        lambda m: m.tensor([[[]]]),
        lambda m: m.tensor(2 ** 62),
        lambda m: m.tensor([1, 2], dtype=m.float16),
        lambda m: m.tensor([0.1, 1e30], dtype=m.float16),
        lambda m: m.tensor([1.7, -1.7], dtype=m.int64),
        lambda m: m.tensor([0, 2, -1], dtype=m.bool),
        lambda m: m.tensor(m.arange(6).reshape(2, 3).t()),
        lambda m: m.tensor(m.arange(3), dtype=m.float64),
    ]
    for i, c in enumerate(cases):
        assert_same(c(Dl), c(torch), msg="case %d: " % i)


def test_tensor_copies_and_detaches():
    x = Dl.ones(3, requires_grad=True)
    y = Dl.tensor(x)
    assert not y.requires_grad and y.is_leaf
    y.add_(1)
    assert to_np(x).tolist() == [1, 1, 1]
    a = np.zeros(2)
    z = Dl.tensor(a)
    a[0] = 5
    assert to_np(z).tolist() == [0, 0]


@pytest.mark.parametrize("data,exc", [
    ([[1, 2], [3]], ValueError), ("abc", TypeError), (None, RuntimeError),
    ([1, None], RuntimeError), (2 ** 70, RuntimeError), ([[1, 2], 3], (ValueError, TypeError)),
    (np.array([1], dtype=np.uint16), TypeError), ({1: 2}, (TypeError, RuntimeError)),
], ids=repr)
def test_tensor_bad_data(data, exc):
    with pytest.raises(exc):
        torch.tensor(data)
    with pytest.raises(exc):
        Dl.tensor(data)


def test_tensor_of_multi_element_tensors():
    with pytest.raises((TypeError, ValueError)):
        torch.tensor([torch.tensor([1, 2]), torch.tensor([3, 4])])
    with pytest.raises((TypeError, ValueError)):
        Dl.tensor([Dl.tensor([1, 2]), Dl.tensor([3, 4])])


@pytest.fixture
def float64_default():
    Dl.set_default_dtype(Dl.float64)
    if not SELF_CHECK:
        torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        Dl.set_default_dtype(Dl.float32)
        torch.set_default_dtype(torch.float32)


def test_default_dtype_effects(float64_default):
    pairs = [
        lambda m: m.tensor([1.5]), lambda m: m.tensor(2.5), lambda m: m.tensor([1, 2]),
        lambda m: m.rand(3), lambda m: m.randn(2, 2), lambda m: m.zeros(2), lambda m: m.ones(1),
        lambda m: m.empty(2), lambda m: m.full((2,), 1.5), lambda m: m.full((2,), 1),
        lambda m: m.linspace(0, 1, 3), lambda m: m.eye(2), lambda m: m.arange(3),
        lambda m: m.arange(0.0, 1.0, 0.25), lambda m: m.randint(3, (2,)),
        lambda m: m.randperm(3), lambda m: m.zeros_like(m.zeros(2, dtype=m.float32)),
        lambda m: m.tensor([True]), lambda m: m.tensor(np.array([1.0], dtype=np.float32)),
        lambda m: m.tensor([1.5], dtype=m.float32), lambda m: m.empty(1).uniform_(),
        lambda m: m.tensor([1, 2]) / 2, lambda m: m.tensor([1, 2]) * 1.5,
    ]
    for i, fn in enumerate(pairs):
        a, b = fn(Dl), fn(torch)
        assert dtype_name(a.dtype) == dtype_name(b.dtype), "case %d: %s != %s" % (
            i, a.dtype, b.dtype)
    assert_same(Dl.tensor([0.1]), torch.tensor([0.1]))
    assert_same(Dl.linspace(0, 1, 7), torch.linspace(0, 1, 7))


def test_default_dtype_half(float64_default):
    Dl.set_default_dtype(Dl.float16)
    if not SELF_CHECK:
        torch.set_default_dtype(torch.float16)
    assert Dl.get_default_dtype() == Dl.float16
    assert Dl.tensor([1.5]).dtype == Dl.float16
    assert Dl.rand(2).dtype == Dl.float16
    assert Dl.arange(3).dtype == Dl.int64


def test_size_keyword():
    for fn in ("zeros", "ones", "empty", "rand", "randn"):
        assert tuple(getattr(Dl, fn)(size=(2, 3)).shape) == \
            tuple(getattr(torch, fn)(size=(2, 3)).shape)
        assert getattr(Dl, fn)(size=[4], dtype=Dl.float64).dtype == Dl.float64


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32", "uint8", "bool"])
def test_random_(name):
    g = Dl.Generator().manual_seed(31)
    x = Dl.empty(4000, dtype=dl_dtype(name))
    assert x.random_(10, generator=g) is x if name != "bool" else True
    if name != "bool":
        a = to_np(x).astype(np.int64)
        assert a.min() == 0 and a.max() == 9
        a = to_np(x.random_(3, 7, generator=g)).astype(np.int64)
        assert a.min() == 3 and a.max() == 6
    a = to_np(x.random_(generator=g)).astype(np.float64)
    assert a.min() >= 0
    if name == "bool":
        assert set(np.unique(a)) == {0.0, 1.0}
    with pytest.raises(RuntimeError):
        torch.empty(2).random_(5, 2)
    with pytest.raises(RuntimeError):
        Dl.empty(2).random_(5, 2)


@pytest.mark.skipif(SELF_CHECK, reason="libdl's C constructor")
def test_new_from_data_copies_bytes_and_checks_their_length():
    a = np.arange(6, dtype=np.float32)
    t = Dl.Tensor.new_from_data(a.tobytes(), [2, 3], Dl.DType.FLOAT32)
    a[0] = 9  # a copy
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    with pytest.raises(RuntimeError, match="from_data: shape \\[2, 3\\] of float32 needs 24"):
        Dl.Tensor.new_from_data(a.tobytes()[1:], [2, 3], Dl.DType.FLOAT32)
