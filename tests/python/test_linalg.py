# test_linalg.py: matmul / @ compared against PyTorch (and numpy in float64
# for the larger products).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import operator

import numpy as np
import pytest
import torch

from conftest import (Dl, assert_same, dl_call, pair, rand_pair,
                      to_np, torch_ref)

MM_SHAPES = [
    ((3, 4), (4, 5)), ((1, 1), (1, 1)), ((1, 7), (7, 1)), ((7, 1), (1, 7)),
    ((5,), (5,)), ((5,), (5, 3)), ((3, 5), (5,)), ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
    ((1, 3, 4), (6, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)),
    ((0, 4), (4, 3)), ((3, 0), (0, 2)), ((2, 0, 3), (3, 4)), ((3, 4), (4, 0)),
    ((0,), (0,)), ((1,), (1,)), ((2, 2, 1, 3), (1, 3, 2)), ((17, 33), (33, 9)),
]
MM_DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64"]


def mm_tol(name, k):
    k = max(k, 1)
    return {"float32": dict(rtol=1e-5, atol=2e-6 * k),
            "float64": dict(rtol=1e-10, atol=1e-12 * k),
            "float16": dict(rtol=4e-3, atol=2e-3 * k),
            "bfloat16": dict(rtol=2e-2, atol=1e-2 * k)}.get(name, {})


def check_mm(fn, xa, xb, ta, tb, name):
    k = ta.shape[-1] if ta.dim() else 1
    try:
        expected = torch_ref(fn, ta, tb, upcast=name in ("float16", "bfloat16"))
    except RuntimeError as e:
        with pytest.raises(type(e)):
            dl_call(fn, xa, xb)
        return
    got = dl_call(fn, xa, xb, upcast=True)
    assert_same(got, expected, **mm_tol(name, k))


@pytest.mark.parametrize("name", MM_DTYPES)
@pytest.mark.parametrize("shapes", MM_SHAPES, ids=str)
def test_matmul(rng, name, shapes):
    x, t = rand_pair(rng, shapes[0], name, low=-1, high=1)
    y, u = rand_pair(rng, shapes[1], name, low=-1, high=1)
    check_mm(operator.matmul, x, y, t, u, name)
    check_mm(lambda a, b: a.matmul(b), x, y, t, u, name)


@pytest.mark.parametrize("case", ["a_t", "b_t", "both_t", "expanded", "permuted_batch"])
@pytest.mark.parametrize("name", ["float32", "float64", "int64"])
def test_matmul_noncontiguous(rng, case, name):
    if case == "a_t":
        x, t = rand_pair(rng, (6, 4), name)
        y, u = rand_pair(rng, (6, 5), name)
        fn = lambda a, b: a.t() @ b
    elif case == "b_t":
        x, t = rand_pair(rng, (4, 6), name)
        y, u = rand_pair(rng, (5, 6), name)
        fn = lambda a, b: a @ b.t()
    elif case == "both_t":
        x, t = rand_pair(rng, (6, 4), name)
        y, u = rand_pair(rng, (5, 6), name)
        fn = lambda a, b: a.t() @ b.t()
    elif case == "expanded":
        x, t = rand_pair(rng, (1, 4), name)
        y, u = rand_pair(rng, (4, 1), name)
        fn = lambda a, b: a.expand(3, 4) @ b.expand(4, 5)
    else:
        x, t = rand_pair(rng, (3, 2, 4), name)
        y, u = rand_pair(rng, (2, 5, 4), name)
        fn = lambda a, b: a.transpose(0, 1) @ b.transpose(1, 2)
    check_mm(fn, x, y, t, u, name)


@pytest.mark.parametrize("m,k,n", [(128, 256, 64), (65, 129, 33), (1, 512, 300), (300, 1, 7),
                                   (256, 256, 256)])
def test_matmul_large_vs_float64(rng, m, k, n):
    a = rng.uniform(-1, 1, size=(m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, size=(k, n)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    got = to_np(Dl.from_numpy(a) @ Dl.from_numpy(b)).astype(np.float64)
    err = np.abs(got - exact).max()
    assert err <= 4e-7 * k + 1e-6, err
    assert_same(Dl.from_numpy(a) @ Dl.from_numpy(b),
                torch.from_numpy(a) @ torch.from_numpy(b), rtol=1e-4, atol=3e-6 * k)


def test_matmul_batched_large(rng):
    x, t = rand_pair(rng, (8, 64, 48), low=-1, high=1)
    y, u = rand_pair(rng, (48, 80), low=-1, high=1)
    assert_same(x @ y, t @ u, atol=1e-4)
    assert_same(x.transpose(1, 2).matmul(x), t.transpose(1, 2).matmul(t), atol=1e-4)


def test_matmul_nan_inf():
    a = np.array([[1.0, np.nan], [2.0, 3.0]], np.float32)
    b = np.array([[np.inf, 0.0], [1.0, 1.0]], np.float32)
    (x, t), (y, u) = pair(a), pair(b)
    assert_same(x @ y, t @ u)


def test_matmul_int_exact(rng):
    a = rng.integers(-1000, 1000, size=(20, 30)).astype(np.int64)
    b = rng.integers(-1000, 1000, size=(30, 10)).astype(np.int64)
    (x, t), (y, u) = pair(a), pair(b)
    assert_same(x @ y, t @ u)
    np.testing.assert_array_equal(to_np(x @ y), a @ b)


@pytest.mark.parametrize("sa,sb", [((3, 4), (5, 6)), ((4,), (5,)), ((2, 3, 4), (3, 4, 5)),
                                   ((3,), (4, 3)), ((), (3,)), ((3, 4), ())])
def test_matmul_shape_errors(rng, sa, sb):
    x, t = rand_pair(rng, sa)
    y, u = rand_pair(rng, sb)
    with pytest.raises(RuntimeError):
        t @ u
    with pytest.raises(RuntimeError) as info:
        x @ y
    if sa and sb:
        assert "matmul" in str(info.value) or "mat" in str(info.value) or "size" in str(info.value)


def test_matmul_dtype_mismatch_raises(rng):
    x, t = rand_pair(rng, (3, 4), "float32")
    y, u = rand_pair(rng, (4, 2), "float64")
    with pytest.raises(RuntimeError):
        t @ u
    with pytest.raises(RuntimeError):
        x @ y


def test_matmul_bool_raises():
    with pytest.raises(RuntimeError):
        torch.ones(2, 2, dtype=torch.bool) @ torch.ones(2, 2, dtype=torch.bool)
    with pytest.raises(RuntimeError):
        Dl.ones(2, 2, dtype=Dl.bool) @ Dl.ones(2, 2, dtype=Dl.bool)
