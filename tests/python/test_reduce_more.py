# test_reduce_more.py: prod, amax, amin, var, std, norm, logsumexp, all,
# any, median, cumsum, cumprod, sort, argsort, topk, unique and
# unique_consecutive (of elements and of slices along a dim) compared
# against PyTorch: values, dtypes, gradients and bad inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import (RSHAPES, DTYPES, FLOAT_DTYPES, NONCONTIG, Dl, assert_same,
                      dl_call, pair, rand_np, rand_pair, torch_ref)
from conftest import check_reduction as check

NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64}


def lib(v):
    """The library a tensor belongs to, for calling torch.fn-style functions."""
    return torch if isinstance(v, torch.Tensor) else Dl


def is_th(v):
    return isinstance(v, torch.Tensor)


def dims_for(shape):
    n = len(shape)
    out = [None]
    if n == 0:
        return out + [0, -1]
    out += list(range(n)) + [-1]
    if n >= 2:
        out += [(0, 1), (-1, 0)]
    if n >= 3:
        out += [(0, 2)]
    return out


def single_dims(shape):
    return [0, -1] if len(shape) == 0 else list(range(len(shape))) + [-1]


def grad_check(fn, a, name="float64", tol=1e-6):
    """Compares d sum(fn(x) * w) / dx of libdl and torch."""
    x, t = pair(a, name, requires_grad=True)
    yt = fn(t)
    if isinstance(yt, tuple):
        yt = yt[0]
    w = np.random.default_rng(7).standard_normal(tuple(yt.shape))
    wx, wt = pair(np.asarray(w, dtype=np.float64), name)
    yx = fn(x)
    if isinstance(yx, tuple):
        yx = yx[0]
    (yx * wx).sum().backward()
    (yt * wt).sum().backward()
    assert_same(x.grad, t.grad, rtol=tol, atol=tol)


def sparse_ties(rng, shape, name):
    a = rng.integers(-2, 3, size=shape)
    if name == "bool":
        return a > 0
    return a.astype({"float32": np.float32, "float64": np.float64, "float16": np.float16,
                     "bfloat16": np.float32, "int32": np.int32, "int64": np.int64,
                     "uint8": np.uint8}[name] if name != "uint8" else np.uint8) \
        if name != "uint8" else np.abs(a).astype(np.uint8)


# ---- prod ---------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod(rng, name, shape, keepdim):
    x, t = rand_pair(rng, shape, name, low=-1.5, high=1.5)
    check(lambda v: v.prod(), x, t, rtol=1e-4, atol=1e-5)
    for dim in single_dims(shape):
        check(lambda v: v.prod(dim, keepdim=keepdim), x, t, rtol=1e-4, atol=1e-5)
        check(lambda v: lib(v).prod(v, dim, keepdim),
              x, t, rtol=1e-4, atol=1e-5)


def test_prod_int_dtype():
    x, t = pair(np.array([[2, 3], [4, 5]], np.int32))
    check(lambda v: v.prod(), x, t)
    check(lambda v: v.prod(1, dtype=lib(v).float64), x, t)
    check(lambda v: v.prod(dtype=lib(v).float32), x, t)


@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_prod_grad(rng, zeros):
    a = rng.uniform(0.5, 2.0, size=(3, 5))
    a[0, :zeros] = 0
    a[2, 1:1 + zeros] = 0
    grad_check(lambda v: v.prod(), a)
    grad_check(lambda v: v.prod(1), a)
    grad_check(lambda v: v.prod(0, keepdim=True), a)
    grad_check(lambda v: v.prod(), np.array(2.5))


# ---- amax / amin ------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["amax", "amin"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin(rng, fn, name, shape, keepdim):
    x, t = pair(sparse_ties(rng, shape, name), name)
    for dim in dims_for(shape):
        if dim is None:
            check(lambda v: getattr(v, fn)(), x, t)
        else:
            check(lambda v: getattr(v, fn)(dim, keepdim), x, t)
            check(lambda v: getattr(v, fn)(dim=dim, keepdim=keepdim), x, t)


@pytest.mark.parametrize("fn", ["amax", "amin"])
def test_amax_amin_grad_ties(rng, fn):
    a = rng.integers(-1, 2, size=(3, 4, 2)).astype(np.float64)
    grad_check(lambda v: getattr(v, fn)(), a)
    grad_check(lambda v: getattr(v, fn)(1), a)
    grad_check(lambda v: getattr(v, fn)((0, 2), keepdim=True), a)
    grad_check(lambda v: getattr(lib(v), fn)(v, -1), a)


def test_amax_nan():
    a = np.array([[1.0, np.nan, 2.0], [3.0, 1.0, -1.0]], np.float32)
    x, t = pair(a)
    for fn in (lambda v: v.amax(), lambda v: v.amax(1), lambda v: v.amin(0)):
        check(fn, x, t)


# ---- var / std ----------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
def test_var_std(rng, fn, name, shape):
    x, t = rand_pair(rng, shape, name)
    tol = dict(rtol=1e-4, atol=1e-5) if name == "float32" else {}
    check(lambda v: getattr(v, fn)(), x, t, **tol)
    if name not in FLOAT_DTYPES:   # torch refuses them
        check(lambda v: getattr(v, fn)(0), x, t)
        return
    check(lambda v: getattr(v, fn)(unbiased=False), x, t, **tol)
    check(lambda v: getattr(v, fn)(False), x, t, **tol)
    for dim in dims_for(shape)[1:]:
        for keepdim in (False, True):
            check(lambda v: getattr(v, fn)(dim, keepdim=keepdim), x, t, **tol)
            check(lambda v: getattr(v, fn)(dim, False, keepdim), x, t, **tol)
            for c in (0, 1, 2):
                check(lambda v: getattr(v, fn)(dim, correction=c, keepdim=keepdim), x, t, **tol)


@pytest.mark.parametrize("fn", ["var", "std"])
def test_var_std_grad(rng, fn):
    a = rng.standard_normal((3, 4))
    grad_check(lambda v: getattr(v, fn)(), a)
    grad_check(lambda v: getattr(v, fn)(1), a)
    grad_check(lambda v: getattr(v, fn)(0, correction=0, keepdim=True), a)


# ---- norm ------------------------------------------------------------------------------

PS = [None, 'fro', 2, 1, 0, float('inf'), float('-inf'), 3, 1.5, 0.5, -1]


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
def test_norm(rng, name, shape):
    x, t = rand_pair(rng, shape, name)
    if name not in FLOAT_DTYPES:   # torch refuses them: one error of each kind suffices
        check(lambda v: v.norm(), x, t)
        check(lambda v: v.norm(1, 0), x, t)
        return
    for p in PS:
        if p is None:
            check(lambda v: v.norm(), x, t, rtol=1e-4, atol=1e-5)
            continue
        for dim in dims_for(shape):
            if p == 'fro' and dim is not None:
                continue
            for keepdim in (False, True):
                check(lambda v: v.norm(p, dim, keepdim), x, t, rtol=1e-4, atol=1e-5)
                check(lambda v: lib(v).norm(v, p=p, dim=dim, keepdim=keepdim), x, t, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("p", [2, 1, float('inf'), 3, 1.5])
def test_norm_grad(rng, p):
    a = rng.standard_normal((3, 4))
    a[1] = 0
    a[2, 1] = a[2, 2] = 5
    a[0, 0] = 0
    grad_check(lambda v: v.norm(p), a)
    grad_check(lambda v: v.norm(p, 1), a)
    grad_check(lambda v: v.norm(p, 0, True), a)


@pytest.mark.parametrize("p", [0.5, -1, 4])
def test_norm_grad_nonzero(rng, p):
    a = rng.uniform(0.5, 2.0, size=(3, 4)) * rng.choice([-1, 1], size=(3, 4))
    grad_check(lambda v: v.norm(p), a)
    grad_check(lambda v: v.norm(p, 1), a)


# ---- logsumexp --------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp(rng, name, shape, keepdim):
    x, t = rand_pair(rng, shape, name)
    for dim in dims_for(shape)[1:]:
        check(lambda v: v.logsumexp(dim, keepdim), x, t, rtol=1e-4, atol=1e-5)
        check(lambda v: lib(v).logsumexp(v, dim, keepdim=keepdim), x, t, rtol=1e-4, atol=1e-5)


def test_logsumexp_stable_inf():
    a = np.array([[1000.0, 1000.0, -1000.0], [-np.inf, -np.inf, -np.inf],
                  [np.inf, 1.0, 2.0], [np.nan, 1.0, 2.0], [-1e38, -3e38, 0.0]], np.float32)
    x, t = pair(a)
    check(lambda v: v.logsumexp(1), x, t)
    check(lambda v: v.logsumexp(0), x, t)


def test_logsumexp_grad(rng):
    a = rng.standard_normal((3, 4)) * 10
    grad_check(lambda v: v.logsumexp(1), a)
    grad_check(lambda v: v.logsumexp((0, 1), keepdim=True), a)


# ---- all / any -------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["all", "any"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
def test_all_any(rng, fn, name, shape):
    a = sparse_ties(rng, shape, name)
    if name in FLOAT_DTYPES and a.size:
        a.reshape(-1)[0] = np.nan
    x, t = pair(a, name)
    check(lambda v: getattr(v, fn)(), x, t)
    for dim in single_dims(shape):
        for keepdim in (False, True):
            check(lambda v: getattr(v, fn)(dim, keepdim), x, t)
            check(lambda v: getattr(lib(v), fn)(v, dim=dim), x, t)


# ---- median -------------------------------------------------------------------------------

MSHAPES = [(), (1,), (7,), (6,), (3, 4), (2, 1, 3), (2, 3, 4, 2)]


@pytest.mark.parametrize("name", [n for n in DTYPES if n != "bool"])
@pytest.mark.parametrize("shape", MSHAPES, ids=str)
def test_median(rng, name, shape):
    a = rand_np(rng, shape, name)
    if name in FLOAT_DTYPES:   # distinct values, so that indices are defined
        a = np.asarray(rng.permutation(int(np.prod(shape))).reshape(shape) - 3.0,
                       dtype=a.dtype)
    x, t = pair(a, name)
    check(lambda v: v.median(), x, t)
    if name in FLOAT_DTYPES or name != "uint8":
        for dim in single_dims(shape):
            for keepdim in (False, True):
                if name in FLOAT_DTYPES:
                    r = check(lambda v: v.median(dim, keepdim), x, t)
                    assert r.indices.dtype == Dl.int64
                else:
                    rt = t.median(dim, keepdim)
                    rx = x.median(dim, keepdim)
                    assert_same(rx.values, rt.values)


def test_median_nan_and_errors():
    x, t = pair(np.array([1.0, np.nan, 3.0, 0.0], np.float32))
    check(lambda v: v.median(), x, t)
    x, t = pair(np.zeros((0,), np.float32))
    check(lambda v: v.median(), x, t)
    x, t = pair(np.zeros((2, 3), np.float32))
    check(lambda v: v.median(2), x, t)


def test_median_grad(rng):
    a = rng.permutation(12).reshape(3, 4).astype(np.float64)
    grad_check(lambda v: v.median(), a)
    grad_check(lambda v: v.median(1), a)
    grad_check(lambda v: v.median(0, keepdim=True), a)
    grad_check(lambda v: v.median(), np.array([1.0, 2.0, 2.0, 2.0, 3.0]))


def test_median_dim_nan():
    a = np.array([[1.0, np.nan, 3.0, 0.0, np.nan], [4.0, 2.0, 1.0, 5.0, 3.0],
                  [np.nan, 0.0, 1.0, 2.0, 3.0]], np.float32)
    x, t = pair(a)
    check(lambda v: v.median(1), x, t)
    check(lambda v: v.median(0, keepdim=True), x, t)
    check(lambda v: v.median(), x, t)


# ---- cumsum / cumprod ---------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
def test_cumsum_cumprod(rng, fn, name, shape):
    x, t = rand_pair(rng, shape, name, low=-1.5, high=1.5)
    for dim in single_dims(shape):
        check(lambda v: getattr(v, fn)(dim), x, t, rtol=1e-4, atol=1e-5)
        check(lambda v: getattr(lib(v), fn)(v, dim=dim), x, t,
              rtol=1e-4, atol=1e-5)
    if name == "int32" and len(shape):
        check(lambda v: getattr(v, fn)(0, dtype=lib(v).float64), x, t)


@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
@pytest.mark.parametrize("label,shape,view", NONCONTIG, ids=[v[0] for v in NONCONTIG])
def test_scan_noncontiguous(rng, fn, label, shape, view):
    x, t = rand_pair(rng, shape)
    xv, tv = view(x), view(t)
    for dim in range(tv.dim()):
        check(lambda v: getattr(v, fn)(dim), xv, tv, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_cumsum_cumprod_grad(rng, zeros):
    a = rng.uniform(0.5, 1.5, size=(3, 5))
    a[0, 1:1 + zeros] = 0
    a[1, 4 - zeros:4] = 0
    for dim in (0, 1, -1):
        grad_check(lambda v: v.cumsum(dim), a)
        grad_check(lambda v: v.cumprod(dim), a)
    grad_check(lambda v: v.cumprod(0), np.array(3.0))


# ---- sort / argsort / topk ----------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable(rng, name, shape, descending):
    x, t = pair(sparse_ties(rng, shape, name), name)
    for dim in single_dims(shape):
        check(lambda v: v.sort(dim=dim, descending=descending, stable=True) if is_th(v)
              else v.sort(dim, descending), x, t)
        check(lambda v: v.sort(dim=dim, descending=descending, stable=True), x, t)
        check(lambda v: lib(v).sort(v, dim=dim, descending=descending, stable=True), x, t)
        check(lambda v: v.sort(dim=dim, descending=descending, stable=True)[1] if is_th(v) else
              v.argsort(dim, descending=descending), x, t)


def test_sort_nan_and_noncontiguous(rng):
    a = np.array([[3.0, np.nan, 1.0, np.inf, -np.inf, np.nan, 0.0]], np.float32)
    x, t = pair(a)
    for d in (False, True):
        check(lambda v: v.sort(dim=1, descending=d, stable=True), x, t)
    for label, shape, view in NONCONTIG:
        x, t = rand_pair(rng, shape)
        xv, tv = view(x), view(t)
        for dim in range(tv.dim()):
            check(lambda v: v.sort(dim=dim, stable=True), xv, tv)


@pytest.mark.parametrize("name", [n for n in DTYPES if n != "bool"])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 4), (2, 1, 3), (2, 3, 4, 2)], ids=str)
def test_topk(rng, name, shape):
    n = int(np.prod(shape))
    a = np.asarray(rng.permutation(n).reshape(shape) % 250, dtype=rand_np(rng, shape, name).dtype)
    x, t = pair(a, name)
    for dim in single_dims(shape):
        size = 1 if len(shape) == 0 else shape[dim]
        for k in sorted({0, 1, size}):
            for largest in (True, False):
                check(lambda v: v.topk(k, dim, largest), x, t)
                check(lambda v: lib(v).topk(v, k, dim=dim, largest=largest, sorted=True), x, t)


def test_sort_topk_grad(rng):
    a = rng.standard_normal((3, 5))
    grad_check(lambda v: v.sort(1)[0], a)
    grad_check(lambda v: v.sort(0, descending=True).values, a)
    grad_check(lambda v: v.topk(2).values, a)
    grad_check(lambda v: v.topk(2, 0, largest=False)[0], a)


def test_topk_sort_errors():
    x, t = pair(np.zeros((2, 3), np.float32))
    check(lambda v: v.topk(4), x, t)
    check(lambda v: v.topk(-1), x, t)
    check(lambda v: v.topk(1, 2), x, t)
    check(lambda v: v.sort(2), x, t)
    check(lambda v: v.sort(-3), x, t)
    check(lambda v: v.cumsum(2), x, t)
    check(lambda v: v.cumprod(-3), x, t)
    check(lambda v: v.amax(3), x, t)
    check(lambda v: v.amax((0, 0)), x, t)
    check(lambda v: v.var(5), x, t)
    check(lambda v: v.logsumexp(2), x, t)
    check(lambda v: v.prod(2), x, t)
    check(lambda v: v.all(2), x, t)
    check(lambda v: v.median(2), x, t)
    x, t = pair(np.zeros((2, 0), np.float32))
    check(lambda v: v.amax(1), x, t)
    check(lambda v: v.amax(0), x, t)
    check(lambda v: v.median(1), x, t)


# ---- unique --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (9,), (3, 4), (2, 3, 4)], ids=str)
def test_unique(rng, name, shape):
    x, t = pair(sparse_ties(rng, shape, name), name)
    check(lambda v: v.unique(), x, t)
    check(lambda v: lib(v).unique(v, sorted=True, return_inverse=True), x, t)
    check(lambda v: v.unique(return_counts=True), x, t)
    check(lambda v: v.unique(return_inverse=True, return_counts=True), x, t)


def repeated_slices(rng, shape, dim, name):
    """Values in {0, 1} (or a few more) whose slices along dim repeat, some
    in runs, so that unique has groups to merge and equal leading elements
    to see past."""
    a = np.moveaxis(sparse_ties(rng, shape, name), dim, 0).copy()
    for i in range(1, a.shape[0]):
        r = rng.random()
        if r < 0.3:
            a[i] = a[i - 1]                       # a run
        elif r < 0.6:
            a[i] = a[rng.integers(0, i)]          # a repeat elsewhere
    return np.moveaxis(a, 0, dim).copy()


UNIQUE_DIM_CASES = [((6,), 0), ((7, 3), 0), ((7, 3), 1), ((3, 7), -1), ((4, 2, 3), 1),
                    ((2, 5, 3), 0), ((5, 1), 0), ((1, 1), 1), ((0, 3), 0), ((0,), 0)]


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape,dim", UNIQUE_DIM_CASES, ids=str)
def test_unique_dim(rng, name, shape, dim):
    """Unique slices in lexicographic order with inverse and counts, and
    unique_consecutive's runs of equal slices."""
    x, t = pair(repeated_slices(rng, shape, dim % len(shape), name), name)
    check(lambda v: v.unique(dim=dim), x, t)
    check(lambda v: lib(v).unique(v, return_inverse=True, return_counts=True, dim=dim), x, t)
    # with dim, the slices come out sorted whatever sorted= says
    check(lambda v: v.unique(sorted=False, return_counts=True, dim=dim), x, t)
    check(lambda v: v.unique_consecutive(dim=dim), x, t)
    check(lambda v: lib(v).unique_consecutive(v, return_inverse=True, return_counts=True,
                                              dim=dim), x, t)


@pytest.mark.parametrize("label,shape,view", NONCONTIG + [
    ("step", (8, 6), lambda t: t[::2, 1::2])], ids=[v[0] for v in NONCONTIG] + ["step"])
def test_unique_dim_noncontiguous(rng, label, shape, view):
    x, t = pair(repeated_slices(rng, shape, 0, "float32"), "float32")
    xv, tv = view(x), view(t)
    for dim in range(tv.dim()):
        check(lambda v: v.unique(return_inverse=True, return_counts=True, dim=dim), xv, tv)
        check(lambda v: v.unique_consecutive(return_inverse=True, return_counts=True, dim=dim),
              xv, tv)


def test_unique_dim_nan_slices_differ():
    nan = float("nan")
    x, t = pair(np.array([[1.5, nan], [1.5, nan], [0.5, 2.0]]), "float32")
    check(lambda v: v.unique(return_inverse=True, return_counts=True, dim=0), x, t)


def test_unique_dim_errors(rng):
    """0-d tensors and dims out of range: IndexError; an empty dim other
    than the one asked for: RuntimeError."""
    for shape, dim in (((), 0), ((2, 3), 2), ((2, 3), -3), ((3, 0), 0), ((0, 0), 1),
                       ((2, 0, 3), 2)):
        x, t = rand_pair(rng, shape)
        check(lambda v: v.unique(dim=dim), x, t)
        check(lambda v: v.unique_consecutive(dim=dim), x, t)


# ---- non-contiguous inputs ------------------------------------------------------------------

@pytest.mark.parametrize("label,shape,view", NONCONTIG + [
    ("step", (6, 5), lambda t: t[::2, 1::2])], ids=[v[0] for v in NONCONTIG] + ["step"])
def test_reduce_more_noncontiguous(rng, label, shape, view):
    x, t = rand_pair(rng, shape)
    xv, tv = view(x), view(t)
    tol = dict(rtol=1e-5, atol=1e-6)
    check(lambda v: v.prod(), xv, tv, **tol)
    check(lambda v: v.amax(), xv, tv)
    check(lambda v: v.var(), xv, tv, **tol)
    check(lambda v: v.norm(), xv, tv, **tol)
    check(lambda v: v.all(), xv, tv)
    check(lambda v: v.median(), xv, tv)
    check(lambda v: v.unique(return_inverse=True, return_counts=True), xv, tv)
    for dim in range(tv.dim()):
        check(lambda v: v.prod(dim), xv, tv, **tol)
        check(lambda v: v.amin(dim, keepdim=True), xv, tv)
        check(lambda v: v.std(dim), xv, tv, **tol)
        check(lambda v: v.norm(1, dim), xv, tv, **tol)
        check(lambda v: v.logsumexp(dim), xv, tv, **tol)
        check(lambda v: v.any(dim), xv, tv)
        check(lambda v: v.sort(dim=dim, descending=True, stable=True), xv, tv)
        # which of tied elements topk picks is unspecified: values only
        check(lambda v: v.topk(1, dim).values, xv, tv)
        if tv.shape[dim] > 0 and label not in ("expand", "expand_mid"):
            check(lambda v: v.median(dim), xv, tv)


def test_large_rows(rng):
    """Sizes that take the threaded paths of the kernels."""
    a = rng.standard_normal((600, 1000)).astype(np.float32)
    x, t = pair(a)
    check(lambda v: v.sort(dim=1, stable=True), x, t)
    check(lambda v: v.sort(dim=0, stable=True), x, t)
    check(lambda v: v.cumsum(1), x, t, rtol=1e-4, atol=1e-4)
    check(lambda v: v.cumsum(0), x, t, rtol=1e-4, atol=1e-4)
    check(lambda v: v.topk(5, 1), x, t)
    check(lambda v: v.median(1), x, t)
    check(lambda v: v.amax(1), x, t)
    check(lambda v: v.any(), x, t)
    check(lambda v: v.var(0), x, t, rtol=1e-4, atol=1e-5)
    b = rng.integers(0, 50, size=200_000)
    x, t = pair(b)
    check(lambda v: v.unique(return_inverse=True, return_counts=True), x, t)


def test_sum_from_every_alignment(rng):
    """float32 sums of runs starting at each offset of a vector: the kernel
    must count each element once (small integers, so that every sum is
    exact), and the same values must give the same bits wherever they lie
    (an address-dependent head changed the rounding)."""
    for n in (70, 1000, 300_000):
        a = rng.integers(-3, 4, size=n + 16).astype(np.float32)
        x = Dl.from_numpy(a.copy())
        for k in range(9):
            assert x[k:k + n].sum().item() == float(a[k:k + n].sum(dtype=np.int64)), (n, k)
            rows = x[k:k + n - n % 10].view(10, -1)
            assert rows.sum(1).tolist() == a[k:k + n - n % 10].reshape(10, -1).sum(1).tolist()
    # the same (non-integer) values sum to the same bits at any address:
    # runs off a 32-byte boundary go through the aligned grid, whose lanes
    # are rotated back per block (lengths around its threshold, the blocks'
    # edges and the vectors' tails)
    for n in (70, 255, 256, 257, 1000, 1023, 1024, 1025, 2047, 2049, 3001, 300_000):
        f = rng.standard_normal(n + 16).astype(np.float32)
        f[::7] *= 1e4  # large and small values: a changed order changes the bits
        y = Dl.from_numpy(f.copy())
        for k in range(9):
            assert y[k:k + n].sum().item() == Dl.from_numpy(f[k:k + n].copy()).sum().item(), (n, k)
    # an infinity or NaN in each lane of the grid's first and last vectors
    for special in (np.inf, -np.inf, np.nan):
        for pos in list(range(0, 9)) + list(range(590, 600)):
            f = np.ones(616, np.float32)
            for k in range(1, 9):
                g = f.copy()
                g[k + pos] = special
                got = Dl.from_numpy(g)[k:k + 600].sum().item()
                assert got == special or (np.isnan(special) and np.isnan(got)), (special, pos, k)


def test_row_sums_have_each_rows_own_bits(rng, threads):
    """float32 rows summed two at a time (up to 255 floats) or one at a
    time: each row's sum has the bits of that row summed alone, for odd and
    even row counts, every vector tail and rows off any boundary."""
    for n in (16, 17, 31, 32, 33, 48, 63, 64, 100, 127, 128, 200, 255, 256, 300):
        for rows in (1, 2, 5, 64):
            f = rng.standard_normal(rows * n + 8).astype(np.float32)
            f[::5] *= 1e4
            for k in (0, 3):
                x = Dl.from_numpy(f)[k:k + rows * n].view(rows, n)
                got = x.sum(1).tolist()
                want = [x[i].contiguous().sum().item() for i in range(rows)]
                assert got == want, (n, rows, k)
                assert x.mean(1).tolist() == [x[i].contiguous().mean().item()
                                              for i in range(rows)], (n, rows, k)


def test_sort_bool_and_inf():
    x, t = pair(np.array([True, False, True, False, False]))
    check(lambda v: v.sort(dim=0, stable=True), x, t)
    check(lambda v: v.sort(dim=0, descending=True, stable=True), x, t)
    a = np.array([np.inf, -np.inf, 0.0, -0.0, 1.0, np.inf], np.float64)
    x, t = pair(a)
    check(lambda v: v.sort(dim=0, stable=True), x, t)
    check(lambda v: v.cumsum(0), x, t)
    check(lambda v: v.cumprod(0), x, t)


def test_return_types():
    x, t = pair(np.array([[3.0, 1.0, 2.0]], np.float32))
    for fn in (lambda v: v.sort(), lambda v: v.topk(2), lambda v: v.median(1)):
        r = fn(x)
        values, indices = r
        assert r.values is values or r.values.shape == values.shape
        assert r.indices.dtype == Dl.int64
        assert r[0].shape == fn(t)[0].shape


# ---- kthvalue, var_mean, std_mean, count_nonzero, aminmax, msort ------------------------------

@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 4), (2, 3, 4)], ids=str)
def test_kthvalue(rng, name, shape):
    n = int(np.prod(shape))
    a = np.asarray(rng.permutation(n).reshape(shape) - 2, dtype=NP[name])
    x, t = pair(a, name)
    for dim in single_dims(shape):
        size = 1 if len(shape) == 0 else shape[dim]
        for k in sorted({1, size, (size + 1) // 2}):
            for keepdim in (False, True):
                check(lambda v: v.kthvalue(k, dim, keepdim), x, t)
                check(lambda v: lib(v).kthvalue(v, k, dim=dim, keepdim=keepdim), x, t)
        check(lambda v: v.kthvalue(size + 1, dim), x, t)
        check(lambda v: v.kthvalue(0, dim), x, t)


def test_kthvalue_grad_nan(rng):
    a = rng.permutation(12).reshape(3, 4).astype(np.float64)
    grad_check(lambda v: v.kthvalue(2, 1)[0], a)
    grad_check(lambda v: v.kthvalue(3, 0, True).values, a)
    x, t = pair(np.array([[1.0, np.nan, 0.0]], np.float32))
    check(lambda v: v.kthvalue(3, 1), x, t)
    check(lambda v: v.kthvalue(1, 1), x, t)


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4)], ids=str)
def test_var_mean_std_mean(rng, shape):
    x, t = rand_pair(rng, shape, "float64")
    for fn in ("var_mean", "std_mean"):
        check(lambda v: getattr(lib(v), fn)(v), x, t)
        check(lambda v: getattr(lib(v), fn)(v, 0, keepdim=True), x, t)
        check(lambda v: getattr(lib(v), fn)(v, -1, unbiased=False), x, t)
        check(lambda v: getattr(lib(v), fn)(v, dim=0, correction=0), x, t)


@pytest.mark.parametrize("name", DTYPES)
def test_count_nonzero_aminmax_msort(rng, name):
    a = sparse_ties(rng, (3, 4), name)
    x, t = pair(a, name)
    check(lambda v: v.count_nonzero(), x, t)
    check(lambda v: v.count_nonzero(1), x, t)
    check(lambda v: lib(v).count_nonzero(v, dim=(0, 1)), x, t)
    check(lambda v: tuple(v.aminmax()), x, t)
    check(lambda v: tuple(lib(v).aminmax(v, dim=1, keepdim=True)), x, t)
    assert_same(x.aminmax(dim=0).max, t.amax(0))
    assert_same(x.aminmax(dim=0).min, t.amin(0))
    if name != "bool":
        check(lambda v: v.msort(), x, t)
        check(lambda v: lib(v).msort(v), x, t)


# ---- cummax / cummin -------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["cummax", "cummin"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
def test_cummax_cummin(rng, fn, name, shape):
    x, t = pair(sparse_ties(rng, shape, name), name)
    for dim in single_dims(shape):
        check(lambda v: getattr(v, fn)(dim), x, t)
        check(lambda v: getattr(lib(v), fn)(v, dim=dim), x, t)


def test_cummax_nan_noncontiguous(rng):
    a = np.array([[1.0, np.nan, 3.0, np.nan, 0.0], [2.0, 2.0, -1.0, 5.0, 5.0]], np.float32)
    x, t = pair(a)
    for fn in ("cummax", "cummin"):
        check(lambda v: getattr(v, fn)(1), x, t)
        check(lambda v: getattr(v, fn)(0), x, t)
    for label, shape, view in NONCONTIG:
        x, t = rand_pair(rng, shape)
        xv, tv = view(x), view(t)
        for dim in range(tv.dim()):
            check(lambda v: v.cummax(dim), xv, tv)


@pytest.mark.parametrize("fn", ["cummax", "cummin"])
def test_cummax_cummin_grad(rng, fn):
    a = rng.integers(-2, 3, size=(3, 6)).astype(np.float64)
    grad_check(lambda v: getattr(v, fn)(1)[0], a)
    grad_check(lambda v: getattr(v, fn)(0).values, a)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (9,), (3, 4), (2, 3, 4)], ids=str)
def test_unique_consecutive(rng, name, shape):
    x, t = pair(sparse_ties(rng, shape, name), name)
    check(lambda v: v.unique_consecutive(), x, t)
    check(lambda v: lib(v).unique_consecutive(v, return_inverse=True), x, t)
    check(lambda v: v.unique_consecutive(return_counts=True), x, t)
    check(lambda v: v.unique_consecutive(return_inverse=True, return_counts=True), x, t)
    xv, tv = x.transpose(0, -1) if len(shape) > 1 else x, t.transpose(0, -1) if len(shape) > 1 else t
    check(lambda v: v.unique_consecutive(return_inverse=True, return_counts=True), xv, tv)


@pytest.mark.parametrize("n", [65, 100, 257, 1000])
@pytest.mark.parametrize("name", ["float32", "int64"])
def test_partial_selection_ties(rng, n, name):
    """topk, kthvalue and median select without a full sort on long rows:
    the result must be the stable sort's prefix, ties in original order."""
    a = rng.integers(0, 7, size=(5, n)).astype(NP[name])
    if name == "float32":
        a[1, ::7] = np.nan
    x, t = pair(a, name)
    for k in (1, 3, n // 2, n - 1):
        for largest in (True, False):
            ref = t.sort(dim=1, descending=largest, stable=True)
            got = x.topk(k, 1, largest)
            assert_same(got.values, ref.values[:, :k].contiguous())
            assert_same(got.indices, ref.indices[:, :k].contiguous())
        got = x.kthvalue(k, 1)
        ref = t.sort(dim=1, stable=True)
        assert_same(got.values, ref.values[:, k - 1].contiguous())
        assert_same(got.indices, ref.indices[:, k - 1].contiguous())
    check(lambda v: v.median(1), x, t)
    check(lambda v: v.median(0), x, t)
    check(lambda v: v.median(), x, t)
    b = a.copy()
    if name == "float32":
        b[1, ::7] = 1.5
    xb, tb = pair(b, name)
    check(lambda v: v.median(1), xb, tb)
    check(lambda v: v.median(1, keepdim=True), xb, tb)


# ---- nansum / nanmean ----------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["nansum", "nanmean"])
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", RSHAPES, ids=str)
def test_nansum_nanmean(rng, fn, name, shape):
    a = rand_np(rng, shape, name)
    if name in FLOAT_DTYPES and a.size:
        a.reshape(-1)[::3] = np.nan
    x, t = pair(a, name)
    tol = dict(rtol=1e-4, atol=1e-5)
    check(lambda v: getattr(v, fn)(), x, t, **tol)
    if name not in FLOAT_DTYPES and fn == "nanmean":
        return
    for dim in dims_for(shape)[1:]:
        for keepdim in (False, True):
            check(lambda v: getattr(lib(v), fn)(v, dim, keepdim=keepdim), x, t, **tol)


def test_nansum_nanmean_grad(rng):
    a = rng.standard_normal((3, 4))
    a[0, 1] = a[2, 2] = np.nan
    a[1, :] = np.nan
    for fn in ("nansum", "nanmean"):
        x, t = pair(a, "float64", requires_grad=True)
        getattr(x, fn)(1).nansum().backward()
        getattr(t, fn)(1).nansum().backward()
        assert_same(x.grad, t.grad)


def test_dtype_argument_and_repeated_dims():
    x, t = pair(np.array([[1.0, 2.5, 3.0], [4.0, -1.0, 2.0]], np.float32))
    for fn in (lambda v: v.prod(dtype=lib(v).int32), lambda v: v.prod(1, dtype=lib(v).int32),
               lambda v: v.cumsum(0, dtype=lib(v).int32), lambda v: v.cumprod(1, dtype=lib(v).float64),
               lambda v: lib(v).nansum(v, dtype=lib(v).float64), lambda v: v.prod(dtype=lib(v).uint8)):
        check(fn, x, t)
    x, t = pair(np.array(2.0, np.float32))
    for fn in (lambda v: v.sum((0, 0)), lambda v: v.amax((0, -1)), lambda v: v.amax((0,)),
               lambda v: v.var((0, 0))):
        check(fn, x, t)


# ---- nanmedian -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (6,), (3, 4), (2, 3, 4), (3, 70)], ids=str)
def test_nanmedian(rng, name, shape):
    n = int(np.prod(shape))
    a = np.asarray(rng.permutation(n).reshape(shape) - 3, dtype=NP[name])
    if name.startswith("float") and n > 1:
        a.reshape(-1)[::3] = np.nan
    x, t = pair(a, name)
    check(lambda v: v.nanmedian(), x, t)
    for dim in single_dims(shape):
        for keepdim in (False, True):
            check(lambda v: lib(v).nanmedian(v, dim, keepdim=keepdim), x, t)


def test_nanmedian_all_nan_rows_and_grad(rng):
    a = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 0.0], [3.0, 1.0, 2.0]], np.float32)
    x, t = pair(a)
    check(lambda v: v.nanmedian(1), x, t)
    check(lambda v: v.nanmedian(), x, t)
    check(lambda v: v.nanmedian(0), x, t)
    b = rng.permutation(12).reshape(3, 4).astype(np.float64)
    b[0, 1] = b[2, 3] = np.nan
    for fn in (lambda v: v.nanmedian(1)[0], lambda v: v.nanmedian()):
        x, t = pair(b, "float64", requires_grad=True)
        fn(x).nansum().backward()
        fn(t).nansum().backward()
        assert_same(x.grad, t.grad)
