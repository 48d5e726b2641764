# test_reduce.py: sum, mean, max, min, argmax, argmin, softmax and
# log_softmax compared against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import (RSHAPES, DTYPES, FLOAT_DTYPES, NONCONTIG, NUM_DTYPES,
                      Dl, assert_same, dl_call, pair, rand_np, rand_pair,
                      to_np, torch_ref)
from conftest import check_reduction as check


def dims_for(shape):
    """Every dim argument worth trying on a tensor of this shape."""
    n = len(shape)
    out = [None]
    if n == 0:
        return out + [0, -1]
    out += list(range(n)) + [-1, -n]
    if n >= 2:
        out += [(0, 1), (-1, 0), tuple(range(n))]
    if n >= 3:
        out += [(0, 2), (2, 0, 1)]
    return out


def dim_id(d):
    return "all" if d is None else str(d)


def call_sum(v, dim, keepdim):
    if dim is None:
        return v.sum()
    return v.sum(dim, keepdim=keepdim) if keepdim else v.sum(dim)


def call_mean(v, dim, keepdim):
    if dim is None:
        return v.mean()
    return v.mean(dim=dim, keepdim=keepdim)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum(rng, name, shape, keepdim):
    x, t = rand_pair(rng, shape, name)
    for dim in dims_for(shape):
        if dim is None and keepdim:
            continue
        check(lambda v: call_sum(v, dim, keepdim), x, t)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_mean(rng, name, shape, keepdim):
    x, t = rand_pair(rng, shape, name)
    for dim in dims_for(shape):
        if dim is None and keepdim:
            continue
        check(lambda v: call_mean(v, dim, keepdim), x, t)


def test_sum_accuracy_large(rng):
    a = rng.uniform(0.0, 1.0, size=1_000_003).astype(np.float32)
    x, t = pair(a)
    exact = a.astype(np.float64).sum()
    got = x.sum().item()
    assert abs(got - exact) / exact < 1e-5
    assert abs(x.mean().item() - exact / a.size) / (exact / a.size) < 1e-5
    b = a[: 1000 * 1000].reshape(1000, 1000)
    xb, tb = pair(b)
    for dim in (0, 1):
        check(lambda v: v.sum(dim), xb, tb, rtol=2e-5)
        check(lambda v: v.mean(dim), xb, tb, rtol=2e-5)


# A full reduction over the grain or more runs in parts fixed by its size,
# so that its bits are the same on any number of threads (and so on a busy
# machine, where regions run alone: docs/threading.md)
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_full_reduction_bits_do_not_depend_on_threads(rng, name):
    before = Dl.get_num_threads()
    try:
        for n in (40000, 100003, 1 << 20):
            a = (rng.standard_normal(n) * 1e3).astype(name)
            x = Dl.from_numpy(a)
            cases = (lambda: x.sum(), lambda: x.mean(), lambda: (x * x).sum(),
                     lambda: x[1:].sum(), lambda: x[: n // 4 * 4].reshape(-1, 4)[:, 1:3].sum(),
                     lambda: x.max(), lambda: x.argmin(), lambda: (x / 1e3).exp().prod())
            got = []
            for nt in (1, 2, 3):
                Dl.set_num_threads(nt)
                got.append([to_np(f()).tobytes() for f in cases])
            assert got[0] == got[1] == got[2], n
    finally:
        Dl.set_num_threads(before)


def test_sum_int_overflow_exact():
    big = np.array([2 ** 62, 2 ** 61, -(2 ** 60), 3], dtype=np.int64)
    x, t = pair(big)
    check(lambda v: v.sum(), x, t)
    i32 = np.full(1000, 2 ** 30, dtype=np.int32)   # sum promotes to int64
    x, t = pair(i32)
    check(lambda v: v.sum(), x, t)
    check(lambda v: v.sum(0), x, t)
    u8 = np.full(1000, 255, dtype=np.uint8)
    x, t = pair(u8)
    check(lambda v: v.sum(), x, t)


def test_sum_nan_inf():
    a = np.array([[1.0, np.nan, 2.0], [np.inf, 1.0, -1.0], [np.inf, -np.inf, 0.0]], np.float32)
    x, t = pair(a)
    for fn in [lambda v: v.sum(), lambda v: v.sum(0), lambda v: v.sum(1),
               lambda v: v.mean(), lambda v: v.mean(0), lambda v: v.mean(1)]:
        check(fn, x, t)


@pytest.mark.parametrize("label,shape,view", NONCONTIG, ids=[v[0] for v in NONCONTIG])
def test_reduce_noncontiguous(rng, label, shape, view):
    x, t = rand_pair(rng, shape)
    xv, tv = view(x), view(t)
    for dim in dims_for(tuple(tv.shape)):
        check(lambda v: call_sum(v, dim, False), xv, tv)
        check(lambda v: call_mean(v, dim, True) if dim is not None else v.mean(), xv, tv)
    for dim in range(tv.dim()):
        check(lambda v: v.max(dim), xv, tv)
        check(lambda v: v.argmin(dim), xv, tv)
    check(lambda v: v.max(), xv, tv)
    check(lambda v: v.argmax(), xv, tv)
    check(lambda v: v.log_softmax(-1), xv, tv)


# ---- max / min / argmax / argmin -----------------------------------------

def tie_data(rng, shape, name):
    """Data with many ties, so that index choice is tested."""
    if name in FLOAT_DTYPES:
        a = rng.integers(-2, 3, size=shape).astype(np.float64) / 2
        return rand_np(rng, shape, name) if rng.random() < 0.3 else \
            np.asarray(a, dtype=np.float32 if name == "bfloat16" else
                       {"float32": np.float32, "float64": np.float64,
                        "float16": np.float16}[name])
    if name == "bool":
        return rng.random(shape) < 0.5
    return rng.integers(0, 4, size=shape).astype(
        {"int32": np.int32, "int64": np.int64, "uint8": np.uint8}[name])


@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 4), (2, 1, 3), (2, 3, 4, 2)], ids=str)
def test_max_min_all(rng, fn, name, shape):
    x, t = pair(tie_data(rng, shape, name), name)
    y = check(lambda v: getattr(v, fn)(), x, t)
    assert y.shape == ()


@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 4), (2, 1, 3), (2, 3, 4, 2), (3, 0)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_dim(rng, fn, name, shape, keepdim):
    x, t = pair(tie_data(rng, shape, name), name)
    dims = [0, -1] if len(shape) == 0 else list(range(len(shape))) + [-1]
    for dim in dims:
        if 0 in shape and shape[dim] == 0:
            continue
        if keepdim:
            r = check(lambda v: getattr(v, fn)(dim, keepdim=True), x, t)
        else:
            r = check(lambda v: getattr(v, fn)(dim=dim), x, t)
        rt = getattr(t, fn)(dim, keepdim=keepdim)
        # namedtuple-like access
        assert_same(r.values, rt.values)
        assert_same(r.indices, rt.indices)
        assert_same(r[0], rt[0])
        assert_same(r[1], rt[1])
        values, indices = r
        assert indices.dtype == Dl.int64


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
@pytest.mark.parametrize("name", NUM_DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 4), (2, 1, 3), (2, 3, 4, 2)], ids=str)
def test_argmax_argmin(rng, fn, name, shape):
    x, t = pair(tie_data(rng, shape, name), name)
    check(lambda v: getattr(v, fn)(), x, t)
    check(lambda v: getattr(v, fn)(dim=None), x, t)
    dims = [0, -1] if len(shape) == 0 else list(range(len(shape))) + [-1]
    for dim in dims:
        check(lambda v: getattr(v, fn)(dim), x, t)
        check(lambda v: getattr(v, fn)(dim=dim, keepdim=True), x, t)


@pytest.mark.parametrize("fn", ["max", "min", "argmax", "argmin"])
def test_max_min_nan(fn):
    a = np.array([[1.0, np.nan, 3.0], [np.inf, 2.0, -np.inf], [-1.0, 0.0, np.nan]], np.float32)
    x, t = pair(a)
    check(lambda v: getattr(v, fn)(), x, t)
    check(lambda v: getattr(v, fn)(0), x, t)
    check(lambda v: getattr(v, fn)(1), x, t)


def test_max_min_large(rng):
    x, t = rand_pair(rng, (257, 311))
    for fn in ["max", "min", "argmax", "argmin"]:
        check(lambda v: getattr(v, fn)(), x, t)
        check(lambda v: getattr(v, fn)(0), x, t)
        check(lambda v: getattr(v, fn)(1), x, t)


# ---- softmax / log_softmax -------------------------------------------------

@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("name", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 4), (2, 1, 3), (2, 3, 4, 2), (2, 0)], ids=str)
def test_softmax(rng, fn, name, shape):
    x, t = rand_pair(rng, shape, name, low=-5, high=5)
    dims = [0, -1] if len(shape) == 0 else list(range(len(shape))) + [-1]
    for dim in dims:
        check(lambda v: getattr(v, fn)(dim), x, t)
        check(lambda v: getattr(v, fn)(dim=dim), x, t)
        y = dl_call(lambda v: getattr(Dl.nn.functional, fn)(v, dim=dim), x)
        assert_same(y, torch_ref(lambda v: getattr(torch.nn.functional, fn)(v, dim=dim), t, upcast=True))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_stability(fn):
    a = np.array([[1000.0, 1000.0, -1000.0], [-1e4, 0.0, 1e4], [-np.inf, 0.0, 1.0],
                  [88.0, 89.0, 90.0], [1e-30, 0.0, -1e-30]], np.float32)
    x, t = pair(a)
    check(lambda v: getattr(v, fn)(1), x, t)
    check(lambda v: getattr(v, fn)(0), x, t)
    x, t = pair(a.astype(np.float64))
    check(lambda v: getattr(v, fn)(1), x, t)


def test_softmax_large(rng):
    x, t = rand_pair(rng, (64, 1000), low=-10, high=10)
    check(lambda v: v.log_softmax(1), x, t, atol=1e-5)
    check(lambda v: v.softmax(1), x, t)
    check(lambda v: v.softmax(0), x, t)
    s = x.softmax(1).sum(1)
    np.testing.assert_allclose(s.numpy(), np.ones(64), rtol=1e-5)
