# test_torch_names.py: module-level names and Tensor queries that ordinary
# torch scripts use (inf, nan, pi, e, finfo, iinfo, is_floating_point,
# is_complex, is_nonzero, Tensor.type/new/data/is_signed/..., the legacy
# constructors torch.FloatTensor..., set_printoptions,
# use_deterministic_algorithms, set_float32_matmul_precision), against
# PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings

import numpy as np
import pytest
import torch

from conftest import DTYPES, FLOAT_DTYPES, INT_DTYPES, Dl, assert_same, rand_pair


def raises_like(fn_dl, fn_th):
    """Both raise, the same exception class and message."""
    with pytest.raises(Exception) as th:
        fn_th()
    with pytest.raises(type(th.value)) as dl:
        fn_dl()
    assert str(dl.value) == str(th.value)


def test_constants():
    for name in ("inf", "nan", "pi", "e"):
        a, b = getattr(Dl, name), getattr(torch, name)
        assert (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_finfo(name):
    a, b = Dl.finfo(getattr(Dl, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert repr(a) == repr(b)
    assert a == Dl.finfo(getattr(Dl, name))


@pytest.mark.parametrize("name", INT_DTYPES)
def test_iinfo(name):
    a, b = Dl.iinfo(getattr(Dl, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert repr(a) == repr(b)


def test_finfo_iinfo_errors():
    assert Dl.finfo() == Dl.finfo(Dl.float32)
    Dl.set_default_dtype(Dl.float64)
    try:
        assert Dl.finfo().dtype == "float64"
    finally:
        Dl.set_default_dtype(Dl.float32)
    raises_like(lambda: Dl.finfo(Dl.int32), lambda: torch.finfo(torch.int32))
    raises_like(lambda: Dl.iinfo(Dl.float32), lambda: torch.iinfo(torch.float32))
    raises_like(lambda: Dl.iinfo(Dl.bool), lambda: torch.iinfo(torch.bool))
    raises_like(lambda: Dl.finfo("x"), lambda: torch.finfo("x"))


@pytest.mark.parametrize("name", DTYPES)
def test_type_queries(rng, name):
    x, t = rand_pair(rng, (2, 3), name)
    assert Dl.is_floating_point(x) == torch.is_floating_point(t)
    assert Dl.is_complex(x) == torch.is_complex(t) == x.is_complex() == t.is_complex()
    assert x.is_signed() == t.is_signed()
    assert x.is_cpu and t.is_cpu
    assert x.ndimension() == t.ndimension()
    assert x.is_same_size(x[0:1].expand(2, 3)) and not x.is_same_size(x.t())
    assert x.type() == t.type()
    for target in ("torch.DoubleTensor", "torch.LongTensor", "torch.BoolTensor"):
        assert_same(x.type(target), t.type(target))
    assert_same(x.type(Dl.int32), t.type(torch.int32))
    assert_same(x.type(Dl.HalfTensor), t.type(torch.HalfTensor))
    assert x.type(x.dtype) is x
    assert_same(x.byte(), t.byte())
    assert isinstance(x, getattr(Dl, x.type().split(".")[-1]))
    assert not isinstance(x, Dl.FloatTensor) or name == "float32"


def test_type_errors(rng):
    x, t = rand_pair(rng, (2,), "float32")
    raises_like(lambda: x.type("foo"), lambda: t.type("foo"))
    raises_like(lambda: Dl.is_floating_point(3), lambda: torch.is_floating_point(3))
    with pytest.raises(TypeError, match="int8"):
        x.char()
    with pytest.raises(TypeError, match="int16"):
        x.short()


def test_is_nonzero():
    for v in ([0.0], [2], [True], [[0.5]]):
        assert Dl.is_nonzero(Dl.tensor(v)) == torch.is_nonzero(torch.tensor(v))
    for v in ([1.0, 2.0], []):
        raises_like(lambda: Dl.is_nonzero(Dl.tensor(v)), lambda: torch.is_nonzero(torch.tensor(v)))


def test_new_and_legacy_constructors():
    x, t = Dl.zeros(2, 3, dtype=Dl.float64), torch.zeros(2, 3, dtype=torch.float64)
    for args in ((), (4,), (2, 3), ([1, 2],), ((2, 3),), ([[1.5, 2]],)):
        a, b = x.new(*args), t.new(*args)
        assert a.shape == b.shape and a.dtype == Dl.float64
        if args and not isinstance(args[0], int):
            assert_same(a, b)
    assert x.new(Dl.Size([3, 1])).shape == (3, 1)
    assert x.new(x) is not x and t.new(t) is not t  # an alias, as torch's
    raises_like(lambda: x.new("a"), lambda: t.new("a"))
    for name in ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor",
                 "ByteTensor", "HalfTensor", "BFloat16Tensor"):
        D, T = getattr(Dl, name), getattr(torch, name)
        assert D(2, 3).shape == T(2, 3).shape and D(2, 3).type() == T(2, 3).type()
        assert_same(D([1, 0, 3]), T([1, 0, 3]))
        assert_same(D([[1.7, -2.0]]) if name not in ("ByteTensor",) else D([[1.7, 2.0]]),
                    T([[1.7, -2.0]]) if name not in ("ByteTensor",) else T([[1.7, 2.0]]))
        assert D().shape == T().shape == (0,)
        assert isinstance(D(1), D) and isinstance(T(1), T)
        assert not isinstance(Dl.zeros(1, dtype=Dl.bool if name != "BoolTensor" else Dl.int64),
                              D)
        assert not isinstance(3, D)
    assert repr(Dl.FloatTensor) == repr(torch.FloatTensor)
    with pytest.raises(TypeError):
        torch.FloatTensor(2, dtype=torch.float64)
    with pytest.raises(TypeError):
        Dl.FloatTensor(2, dtype=Dl.float64)


def test_data_property():
    x = Dl.arange(6.0).reshape(2, 3).requires_grad_()
    d = x.data
    assert d.data_ptr() == x.data_ptr() and not d.requires_grad and d.is_leaf
    d[0, 0] = 7.0
    assert x[0, 0].item() == 7.0
    y = Dl.ones(4, dtype=Dl.float64)
    x.data = y
    assert x.shape == (4,) and x.dtype == Dl.float64 and x.requires_grad and x.is_leaf
    assert x.data_ptr() == y.data_ptr()
    (x * 2).sum().backward()
    assert_same(x.grad, torch.full((4,), 2.0, dtype=torch.float64))
    # the optimizer idiom: p.data = p.data - lr * p.grad
    p = Dl.ones(3).requires_grad_()
    (p * p).sum().backward()
    p.data = p.data - 0.5 * p.grad
    assert_same(p.detach(), torch.zeros(3))
    # a view gives up its base
    b = Dl.zeros(4)
    v = b[1:3]
    v.data = Dl.ones(5)
    assert v.shape == (5,) and b.sum().item() == 0.0
    with pytest.raises(TypeError):
        x.data = 3


PRINT_CASES = [dict(sci_mode=False), dict(sci_mode=True), dict(precision=2), dict(precision=0),
               dict(precision=7, sci_mode=True), dict(profile="short"),
               dict(threshold=5, edgeitems=1), dict(linewidth=30),
               dict(profile="full", linewidth=120), dict(edgeitems=2, threshold=3, linewidth=50),
               dict(profile="short", precision=5)]


def print_values(lib):
    return [lib.tensor([1e-8, 1e10]), lib.zeros(3), lib.tensor([1.0, 2.0]), lib.arange(20.0) / 3,
            lib.arange(2000.0).reshape(40, 50) * 1.5, lib.tensor([1, 2, 300]),
            lib.tensor([True, False]), lib.tensor(3.14159),
            lib.tensor([float("nan"), 1.5, float("inf")], dtype=lib.float64),
            lib.arange(12.0).reshape(3, 4) / 7, lib.arange(1500, dtype=lib.int32),
            lib.full((2, 2), 1e-5)]


@pytest.mark.parametrize("case", range(len(PRINT_CASES)))
def test_set_printoptions(case):
    opts = PRINT_CASES[case]
    try:
        torch.set_printoptions(**opts)
        Dl.set_printoptions(**opts)
        for a, b in zip(print_values(Dl), print_values(torch)):
            assert repr(a) == repr(b)
            assert str(a) == str(b)
    finally:
        torch.set_printoptions(profile="default")
        Dl.set_printoptions(profile="default")
    assert repr(Dl.arange(2000.0)) == repr(torch.arange(2000.0))


def test_set_printoptions_sci_mode_resets():
    # as in torch, every call sets sci_mode (None: automatic)
    try:
        for lib in (Dl, torch):
            lib.set_printoptions(sci_mode=True)
            lib.set_printoptions(precision=3)
        assert repr(Dl.tensor([1.5, 2.0])) == repr(torch.tensor([1.5, 2.0])) == \
            "tensor([1.500, 2.000])"
    finally:
        torch.set_printoptions(profile="default")
        Dl.set_printoptions(profile="default")
    with pytest.raises(TypeError):
        Dl.set_printoptions(precision="4")


def test_deterministic_algorithms():
    assert Dl.are_deterministic_algorithms_enabled() is False
    try:
        Dl.use_deterministic_algorithms(True, warn_only=True)
        assert Dl.are_deterministic_algorithms_enabled() is True
        assert Dl.is_deterministic_algorithms_warn_only_enabled() is True
        # the CPU ops stay usable and deterministic
        x = Dl.arange(10.0)
        idx = Dl.tensor([0, 1, 1, 3])
        a = Dl.zeros(4).index_add(0, idx, x[:4])
        assert a.tolist() == Dl.zeros(4).index_add(0, idx, x[:4]).tolist()
        Dl.use_deterministic_algorithms(False)
        assert Dl.are_deterministic_algorithms_enabled() is False
        assert Dl.is_deterministic_algorithms_warn_only_enabled() is False
    finally:
        Dl.use_deterministic_algorithms(False)
    for bad in (1, "x", None):
        raises_like(lambda: Dl.use_deterministic_algorithms(bad),
                    lambda: torch.use_deterministic_algorithms(bad))
    raises_like(lambda: Dl.use_deterministic_algorithms(True, warn_only=1),
                lambda: torch.use_deterministic_algorithms(True, warn_only=1))


def test_float32_matmul_precision():
    assert Dl.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    try:
        for p in ("high", "medium", "highest"):
            Dl.set_float32_matmul_precision(p)
            assert Dl.get_float32_matmul_precision() == p
        Dl.set_float32_matmul_precision("medium")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            Dl.set_float32_matmul_precision("low")
        assert w and "low" in str(w[0].message)
        assert Dl.get_float32_matmul_precision() == "medium"
        # float32 products stay full precision whatever is recorded
        rng = np.random.default_rng(3)
        a = rng.standard_normal((16, 16)).astype(np.float32)
        got = (Dl.from_numpy(a) @ Dl.from_numpy(a)).numpy()
        np.testing.assert_allclose(got, a.astype(np.float64) @ a.astype(np.float64),
                                   rtol=1e-5, atol=1e-5)
    finally:
        Dl.set_float32_matmul_precision("highest")
    raises_like(lambda: Dl.set_float32_matmul_precision(3),
                lambda: torch.set_float32_matmul_precision(3))
