# test_creation.py: tensor factories, dtypes and default dtype.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

import numpy as np
import pytest
import torch
from conftest import (Dl, DTYPES, FLOAT_DTYPES, assert_same, dl_dtype, dtype_name,
                      th_dtype, to_np)


TENSOR_DATA = [
    1.5, 3, True, -0.0,
    [], [1.0, 2.5, -3.25], [1, 2, 3], [True, False], [1, 2.5],
    [[1, 2], [3, 4]], [[1.0], [2.0]], [[[1, 2, 3]], [[4, 5, 6]]],
    [[]], [float("inf"), float("-inf"), float("nan")],
    [2 ** 40, -(2 ** 40)], [True, 2], [True, 2.5],
]


@pytest.mark.parametrize("data", TENSOR_DATA, ids=repr)
def test_tensor_from_python_data(data):
    assert_same(Dl.tensor(data), torch.tensor(data))


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("data", [[[0, 1, 2], [3, 4, 5]], [0.0, 1.0, 1.5, 100.25], 7])
def test_tensor_with_dtype(name, data):
    assert_same(Dl.tensor(data, dtype=dl_dtype(name)),
                torch.tensor(data, dtype=th_dtype(name)))


def test_tensor_requires_grad_kwarg():
    x = Dl.tensor([1.0, 2.0], requires_grad=True)
    assert x.requires_grad is True
    assert x.is_leaf
    assert x.grad is None
    assert x.grad_fn is None
    y = Dl.tensor([1.0, 2.0])
    assert y.requires_grad is False


def test_tensor_bfloat16_rounding():
    # round-to-nearest-even from float64 data, exactly as torch
    data = [1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, 1.00390625, 3.14159265, -65504.0,
            1e-40, 3.0e38, 1e39, 0.1]
    assert_same(Dl.tensor(data, dtype=Dl.bfloat16),
                torch.tensor(data, dtype=torch.bfloat16), rtol=0, atol=0)
    assert_same(Dl.tensor(data, dtype=Dl.float16),
                torch.tensor(data, dtype=torch.float16), rtol=0, atol=0)


SIZE_ARGS = [((2, 3), {}), (((2, 3),), {}), (([4],), {}), ((0,), {}),
             (((),), {}), ((1, 0, 2), {}), ((5,), {})]


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("args,kw", SIZE_ARGS, ids=repr)
def test_zeros_ones_empty_sizes(fn, args, kw):
    x = getattr(Dl, fn)(*args, **kw)
    t = getattr(torch, fn)(*args, **kw)
    if fn == "empty":
        assert tuple(x.shape) == tuple(t.shape)
        assert x.dtype == Dl.float32
        assert x.is_contiguous()
    else:
        assert_same(x, t)


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("name", DTYPES)
def test_factories_dtype(fn, name):
    x = getattr(Dl, fn)(2, 3, dtype=dl_dtype(name))
    t = getattr(torch, fn)(2, 3, dtype=th_dtype(name))
    assert x.dtype == dl_dtype(name)
    assert x.element_size() == t.element_size()
    assert x.stride() == t.stride()
    if fn != "empty":
        assert_same(x, t)


@pytest.mark.parametrize("value", [0, 3, -2, 2.5, float("inf"), float("nan"), True, False])
def test_full_infers_dtype(value):
    assert_same(Dl.full((2, 3), value), torch.full((2, 3), value))


@pytest.mark.parametrize("name", DTYPES)
def test_full_dtype(name):
    assert_same(Dl.full((3,), 1, dtype=dl_dtype(name)),
                torch.full((3,), 1, dtype=th_dtype(name)))
    assert_same(Dl.full((), 7, dtype=dl_dtype(name)),
                torch.full((), 7, dtype=th_dtype(name)))


ARANGE_ARGS = [(5,), (0,), (5.0,), (2, 9), (1, 10, 3), (10, 0, -2), (0, 1, 0.1),
               (-1.5, 2.5, 0.5), (0.0, 1.0, 0.3), (3, 3), (1, 2, 0.25)]


@pytest.mark.parametrize("args", ARANGE_ARGS, ids=repr)
def test_arange(args):
    assert_same(Dl.arange(*args), torch.arange(*args))


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64", "uint8", "float16", "bfloat16"])
def test_arange_dtype(name):
    assert_same(Dl.arange(0, 12, 2, dtype=dl_dtype(name)),
                torch.arange(0, 12, 2, dtype=th_dtype(name)))


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like"])
@pytest.mark.parametrize("name", DTYPES)
def test_like(fn, name):
    base_x = Dl.zeros(2, 0, 3, dtype=dl_dtype(name)) if name == "bool" else \
        Dl.full((2, 3), 5, dtype=dl_dtype(name))
    base_t = torch.zeros(2, 0, 3, dtype=th_dtype(name)) if name == "bool" else \
        torch.full((2, 3), 5, dtype=th_dtype(name))
    assert_same(getattr(Dl, fn)(base_x), getattr(torch, fn)(base_t))
    assert_same(getattr(Dl, fn)(base_x, dtype=Dl.float64),
                getattr(torch, fn)(base_t, dtype=torch.float64))


def test_like_of_noncontiguous_is_contiguous():
    x = Dl.ones(3, 4).t()
    z = Dl.zeros_like(x)
    assert tuple(z.shape) == (4, 3)
    assert_same(z, torch.zeros(4, 3))


@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_random_shape_dtype(fn):
    for args, shape in [((3, 4), (3, 4)), (((2, 5),), (2, 5)), ((0,), (0,)), (((),), ())]:
        x = getattr(Dl, fn)(*args)
        assert tuple(x.shape) == shape
        assert x.dtype == Dl.float32
    x = getattr(Dl, fn)(4, dtype=Dl.float64)
    assert x.dtype == Dl.float64


@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_rand_range_and_moments(name):
    Dl.manual_seed(0)
    a = to_np(Dl.rand(20000, dtype=dl_dtype(name))).astype(np.float64)
    assert a.min() >= 0.0 and a.max() <= 1.0
    if name in ("float32", "float64"):
        assert a.max() < 1.0
    assert abs(a.mean() - 0.5) < 0.01
    assert abs(a.var() - 1 / 12) < 0.005
    assert len(np.unique(a)) > (100 if name in ("float16", "bfloat16") else 19000)


@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_randn_moments(name):
    Dl.manual_seed(1)
    a = to_np(Dl.randn(20000, dtype=dl_dtype(name))).astype(np.float64)
    assert np.isfinite(a).all()
    assert abs(a.mean()) < 0.03
    assert abs(a.std() - 1.0) < 0.03
    # roughly normal tails
    assert 0.28 < np.mean(np.abs(a) > 1.0) < 0.36


@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_manual_seed_reproducible(fn):
    Dl.manual_seed(1234)
    a = to_np(getattr(Dl, fn)(100))
    b = to_np(getattr(Dl, fn)(100))
    Dl.manual_seed(1234)
    c = to_np(getattr(Dl, fn)(100))
    Dl.manual_seed(4321)
    d = to_np(getattr(Dl, fn)(100))
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)
    assert not np.array_equal(a, d)


def test_default_dtype():
    assert Dl.get_default_dtype() == Dl.float32
    try:
        Dl.set_default_dtype(Dl.float64)
        assert Dl.get_default_dtype() == Dl.float64
        assert Dl.tensor([1.5]).dtype == Dl.float64
        assert Dl.tensor([1]).dtype == Dl.int64
        assert Dl.zeros(2).dtype == Dl.float64
        assert Dl.rand(2).dtype == Dl.float64
        assert Dl.arange(0.0, 1.0, 0.5).dtype == Dl.float64
        assert Dl.full((2,), 1.5).dtype == Dl.float64
        assert (Dl.tensor([1, 2]) / 2).dtype == Dl.float64
        assert Dl.tensor([1, 2]).exp().dtype == Dl.float64
    finally:
        Dl.set_default_dtype(Dl.float32)
    assert Dl.get_default_dtype() == Dl.float32
    assert Dl.tensor([1.5]).dtype == Dl.float32


def test_set_default_dtype_rejects_integer():
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int64)
    with pytest.raises(TypeError):
        Dl.set_default_dtype(Dl.int64)
    assert Dl.get_default_dtype() == Dl.float32


@pytest.mark.parametrize("name", DTYPES)
def test_dtype_attributes(name):
    x = Dl.zeros(1, dtype=dl_dtype(name))
    t = torch.zeros(1, dtype=th_dtype(name))
    assert x.element_size() == t.element_size()
    assert x.dtype == dl_dtype(name)
    assert dtype_name(x.dtype) == name
    assert str(x.dtype) == str(t.dtype)
    assert repr(x.dtype) == repr(t.dtype)


def test_device():
    x = Dl.zeros(2)
    assert str(x.device) == "cpu"
    assert x.device.type == "cpu"


def test_metadata():
    x = Dl.zeros(2, 3, 4)
    t = torch.zeros(2, 3, 4)
    assert x.shape == t.shape
    assert x.shape == (2, 3, 4)
    assert x.size() == (2, 3, 4)
    assert x.size(1) == 3 and x.size(-1) == 4
    assert x.dim() == 3 and x.ndim == 3
    assert x.numel() == 24
    assert x.stride() == t.stride()
    assert x.stride(0) == 12 and x.stride(-1) == 1
    assert x.is_contiguous()
    assert isinstance(x.data_ptr(), int) and x.data_ptr() != 0
    s = Dl.tensor(3.0)
    assert s.shape == () and s.dim() == 0 and s.numel() == 1


def test_item_and_tolist():
    for data in [2.5, 3, True, [1.5, 2.0], [[1, 2], [3, 4]], [], [[True], [False]]]:
        x, t = Dl.tensor(data), torch.tensor(data)
        assert x.tolist() == t.tolist()
        assert type(x.tolist()) is type(t.tolist())
    assert Dl.tensor(2.5).item() == 2.5
    assert type(Dl.tensor(3).item()) is int
    assert type(Dl.tensor(2.5).item()) is float
    assert type(Dl.tensor(True).item()) is bool
    assert Dl.tensor([[7]]).item() == 7
    assert Dl.tensor(2 ** 53 + 1).item() == 2 ** 53 + 1
    v = Dl.tensor([0.1]).item()
    assert v == torch.tensor([0.1]).item()   # float32 value, widened
    assert math.isnan(Dl.tensor(float("nan")).item())
    assert Dl.tensor([1, 2], dtype=Dl.int32).tolist() == [1, 2]
    assert type(Dl.tensor([1.0], dtype=Dl.float16).tolist()[0]) is float
