# test_reduce_layouts.py: the reductions over each layout the CPU kernels
# tell apart, against PyTorch: rows (each output one run: short rows taken
# four at a time, longer ones by the vector kernels, strided runs), columns
# (the reduced dims strided under a contiguous kept dim: tiles of lanes,
# blocks of 128 rows, narrow rows laid side by side in one lane row and
# the rows left over), the generic nest, and the threaded splits of each;
# for every op and dtype they handle, with ties, NaN and infinities in
# every lane, keepdim and non-contiguous views.
#
# Float sums and means are checked against float64 sums of the same data
# (both libraries round differently); everything else must equal PyTorch's
# result exactly, indices included (the first of equal values, the first
# NaN).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, to_np

FLOATS = ["float32", "float64"]
INTS = ["int32", "int64", "uint8"]

# row lengths: the short-row kernels (below 16), vector edges, long rows
ROW_LENGTHS = list(range(1, 18)) + [31, 32, 33, 63, 64, 65, 80, 100, 1000]
# column widths: rows side by side below 64 lanes, tiles of 1024 above
COL_WIDTHS = [1, 2, 3, 5, 8, 13, 16, 17, 31, 33, 63, 64, 65, 100, 1000, 1100]
# rows per column: one, a few, around the 128-row blocks, remainders
COL_ROWS = [1, 2, 7, 129, 301]


def data(rng, shape, name, kind="rand"):
    """kind "rand": uniform values; "ties": a few small values, so that
    max and min see many equal ones; "prod": values near 1."""
    if name in INTS:
        lo = 0 if name == "uint8" else -3
        return rng.integers(lo, 4, size=shape).astype(name)
    if kind == "ties":
        return (rng.integers(-2, 3, size=shape) / 2).astype(name)
    if kind == "prod":
        return rng.uniform(0.8, 1.25, size=shape).astype(name)
    return rng.uniform(-2.0, 3.0, size=shape).astype(name)


def check_sum(got, a, dims, keepdim, mean=False, msg=""):
    """A float sum or mean against float64 sums of the same data, within a
    bound relative to the sum of magnitudes."""
    a64 = a.astype(np.float64)
    axis = tuple(dims) if dims is not None else None
    want = a64.mean(axis, keepdims=keepdim) if mean else a64.sum(axis, keepdims=keepdim)
    mag = np.abs(a64).mean(axis, keepdims=keepdim) if mean else \
        np.abs(a64).sum(axis, keepdims=keepdim)
    g = to_np(got).astype(np.float64)
    assert g.shape == np.shape(want), msg
    eps = 2e-7 if a.dtype == np.float32 else 1e-14
    with np.errstate(invalid="ignore"):
        bad = ~((g == want) | (np.abs(g - want) <= eps * (mag + 1e-30) + eps * np.abs(want)))
    bad &= ~(np.isnan(g) & np.isnan(want))
    assert not bad.any(), "%s: %s != %s" % (msg, g[bad][:5], want[bad][:5])


def check_ops(x, t, a, dim, kinds=("sum", "ext", "prod"), keepdim=False, msg=""):
    """Every reduction over dim (an int, a tuple, or None for all)."""
    name = str(t.dtype).split(".")[-1]
    floating = name in FLOATS
    dims = None if dim is None else ((dim,) if isinstance(dim, int) else dim)
    kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    m = "%s dim=%s keepdim=%s %s" % (msg, dim, keepdim, name)
    if "sum" in kinds:
        if floating:
            check_sum(x.sum(**kw), a, dims, keepdim, msg="sum " + m)
            check_sum(x.mean(**kw), a, dims, keepdim, mean=True, msg="mean " + m)
        else:
            assert_same(x.sum(**kw), t.sum(**kw), msg="sum " + m)
    if "prod" in kinds and (dim is None or isinstance(dim, int)):
        pkw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
        assert_same(x.prod(**pkw), t.prod(**pkw), rtol=1e-5 if name == "float32" else 1e-12,
                    msg="prod " + m)
    if "ext" in kinds:
        akw = {"dim": () if dim is None else dim, "keepdim": keepdim}
        assert_same(x.amax(**akw), t.amax(**akw), msg="amax " + m)
        assert_same(x.amin(**akw), t.amin(**akw), msg="amin " + m)
        if dim is None:
            assert_same(x.max(), t.max(), msg="max " + m)
            assert_same(x.min(), t.min(), msg="min " + m)
        elif isinstance(dim, int):
            for fn in ("max", "min"):
                r, rt = getattr(x, fn)(dim, keepdim=keepdim), getattr(t, fn)(dim, keepdim=keepdim)
                assert_same(r.values, rt.values, msg=fn + " values " + m)
                assert_same(r.indices, rt.indices, msg=fn + " indices " + m)
            for fn in ("argmax", "argmin"):
                assert_same(getattr(x, fn)(dim, keepdim=keepdim),
                            getattr(t, fn)(dim, keepdim=keepdim), msg=fn + " " + m)


# ---- rows --------------------------------------------------------------------

@pytest.mark.parametrize("name", FLOATS + INTS)
@pytest.mark.parametrize("n", ROW_LENGTHS)
def test_rows(rng, name, n):
    # seven rows: the short rows go four at a time, then the rest
    for kind in ("rand", "ties"):
        a = data(rng, (7, n), name, kind)
        x, t = pair(a)
        check_ops(x, t, a, 1, msg="(7, %d) %s" % (n, kind))
        check_ops(x, t, a, -1, kinds=("ext",), keepdim=True, msg="(7, %d) %s" % (n, kind))
    a = data(rng, (5, n), name, "prod")
    x, t = pair(a)
    check_ops(x, t, a, 1, kinds=("prod",), msg="prod (5, %d)" % n)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9, 16, 17, 33, 100])
@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf])
def test_rows_special_in_every_lane(name, n, special):
    # one special value per row, at every position; a row of two NaNs
    # (the first wins) and a row starting with NaN
    a = np.linspace(-1, 1, n * n, dtype=name).reshape(n, n)
    a[np.arange(n), np.arange(n)] = special
    if special != special and n > 2:
        a[0, n - 1] = np.nan
        a[1, 0] = np.nan
    x, t = pair(a)
    check_ops(x, t, a, 1, kinds=("ext", "sum"), msg="special")
    check_ops(x, t, a, None, kinds=("ext",), msg="special")


@pytest.mark.parametrize("name", FLOATS)
def test_rows_ties_across_lanes(name):
    # equal maxima in every pair of lanes: the first position wins, and
    # -0.0 against 0.0 as PyTorch orders them
    for n in (8, 16, 33, 100):
        for i in range(0, n, 3):
            for j in range(i + 1, n, 5):
                a = np.zeros((2, n), name)
                a[:, i] = a[:, j] = 4
                a[1, :] = -np.abs(a[1, :]) - 1
                a[1, i] = a[1, j] = -0.5
                x, t = pair(a)
                check_ops(x, t, a, 1, kinds=("ext",), msg="ties %d %d" % (i, j))
    a = np.array([[0.0, -0.0, 0.0], [-0.0, 0.0, -0.0]], name)
    x, t = pair(a)
    check_ops(x, t, a, 1, kinds=("ext",), msg="signed zeros")


def test_rows_strided_and_sliced(rng):
    a = data(rng, (6, 40), "float32")
    x, t = pair(a)
    views = [(lambda v: v[:, ::2], a[:, ::2]), (lambda v: v[:, 1:-3], a[:, 1:-3]),
             (lambda v: v[::2, 5:], a[::2, 5:])]
    for view, av in views:
        check_ops(view(x), view(t), av, 1, msg="view")
        check_ops(view(x), view(t), av, None, kinds=("sum", "ext"), msg="view")


@pytest.mark.parametrize("name", FLOATS + ["int64"])
def test_rows_outer_nest(rng, name):
    # several kept dims: the outer nest walked line by line
    a = data(rng, (3, 4, 5, 6), name, "ties")
    x, t = pair(a)
    for dim in range(4):
        check_ops(x, t, a, dim, msg="4-d")
    xv, tv = x.permute(2, 0, 3, 1), t.permute(2, 0, 3, 1)
    av = a.transpose(2, 0, 3, 1)
    for dim in range(4):
        check_ops(xv, tv, av, dim, msg="4-d permuted")


# ---- columns -----------------------------------------------------------------

@pytest.mark.parametrize("name", FLOATS + ["int32", "int64"])
@pytest.mark.parametrize("w", COL_WIDTHS)
def test_columns(rng, name, w):
    for r in COL_ROWS:
        kind = "ties" if r % 2 else "rand"
        a = data(rng, (r, w), name, kind)
        x, t = pair(a)
        check_ops(x, t, a, 0, kinds=("sum", "ext"), msg="(%d, %d)" % (r, w))
        check_ops(x, t, a, 0, kinds=("sum",), keepdim=True, msg="(%d, %d)" % (r, w))
        if name in FLOATS and r <= 129:
            p = data(rng, (r, w), name, "prod")
            xp, tp = pair(p)
            check_ops(xp, tp, p, 0, kinds=("prod",), msg="prod (%d, %d)" % (r, w))


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("w", [1, 3, 8, 17, 100])
def test_columns_special_in_every_row(name, w):
    # a special value in each column at a different row, so that every
    # lane of the side-by-side rows and of the blocks meets one; two NaNs
    # in a column (the first wins)
    for special in (np.nan, np.inf, -np.inf):
        r = 140
        a = np.linspace(-1, 1, r * w, dtype=name).reshape(r, w)
        for j in range(w):
            a[(j * 37) % r, j] = special
        if special != special:
            a[r - 1, 0] = np.nan
            a[0, w - 1] = np.nan
        x, t = pair(a)
        check_ops(x, t, a, 0, kinds=("ext", "sum"), msg="special %s" % special)


@pytest.mark.parametrize("name", FLOATS + ["int64"])
def test_columns_nest(rng, name):
    # kept dims around reduced ones, several reduced dims (coalesced or
    # not), a size-1 dim, views
    a = data(rng, (4, 5, 6, 7), name, "ties")
    x, t = pair(a)
    for dims in [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2), (0, 2, 3), (1, 3)]:
        check_ops(x, t, a, dims if len(dims) > 1 else dims[0], kinds=("sum", "ext"),
                  msg="4-d")
    a = data(rng, (3, 1, 5), name)
    x, t = pair(a)
    for dim in range(3):
        check_ops(x, t, a, dim, msg="size 1")
    a = data(rng, (9, 12), name, "ties")
    x, t = pair(a)
    for view, av in [(lambda v: v.t(), a.T), (lambda v: v[::2], a[::2]),
                     (lambda v: v[:, 2:7], a[:, 2:7]), (lambda v: v[1:].t()[::3], a[1:].T[::3])]:
        for dim in (0, 1):
            check_ops(view(x), view(t), av, dim, msg="view")


def test_broadcast_views(rng):
    # stride-0 dims, reduced and kept
    a = data(rng, (5, 1), "float32", "ties")
    x, t = pair(a)
    xe, te = x.expand(5, 9), t.expand(5, 9)
    ae = np.broadcast_to(a, (5, 9))
    for dim in (0, 1, None):
        check_ops(xe, te, ae, dim, kinds=("sum", "ext"), msg="expand")


def test_half_types(rng):
    for name in ("float16", "bfloat16"):
        a = data(rng, (33, 17), "float32", "ties")
        x, t = pair(a)
        x, t = x.to(getattr(Dl, name)), t.to(getattr(torch, name))
        for dim in (0, 1):
            assert_same(x.sum(dim), t.sum(dim))
            assert_same(x.amax(dim), t.amax(dim))
            r, rt = x.max(dim), t.max(dim)
            assert_same(r.values, rt.values)
            assert_same(r.indices, rt.indices)


def test_bool(rng):
    a = rng.random((37, 21)) < 0.5
    x, t = pair(a)
    for dim in (0, 1):
        assert_same(x.sum(dim), t.sum(dim))
        assert_same(x.any(dim), t.any(dim))
        assert_same(x.all(dim), t.all(dim))
        r, rt = x.max(dim), t.max(dim)
        assert_same(r.values, rt.values)
        assert_same(r.indices, rt.indices)


# ---- threads -----------------------------------------------------------------

# big enough to be split over threads whichever OpenBLAS is loaded
THREADED = [
    ((4000, 100), 1),     # rows shared out
    ((4000, 100), 0),     # one column tile, its rows split
    ((300, 1100), 0),     # two tiles, rows split
    ((100003, 3), 0),     # narrow: rows side by side, some left over
    ((64, 50, 100), 1),   # many units shared out
    ((1, 400000), 1),     # one output: the run split
    ((700, 500), None),   # everything
]


@pytest.mark.parametrize("shape,dim", THREADED, ids=str)
@pytest.mark.parametrize("name", ["float32", "float64", "int64"])
def test_threaded(rng, threads, shape, dim, name):
    a = data(rng, shape, name, "ties")
    x, t = pair(a)
    check_ops(x, t, a, dim, kinds=("sum", "ext"), msg=str(shape))
    if name != "int64":
        p = data(rng, shape, name, "prod")
        xp, tp = pair(p)
        if dim is not None:
            assert_same(xp.prod(dim), tp.double().prod(dim).to(tp.dtype),
                        rtol=1e-5 if name == "float32" else 1e-10)


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_threaded_nan_and_ties(threads, name):
    # NaN and equal values in different threads' parts: the first wins
    a = np.zeros((4000, 100), name)
    a[[100, 3000], 7] = np.nan
    a[[10, 2500], 9] = 5
    a[3999, 11] = 5
    a[[1500, 3500], 13] = -5
    x, t = pair(a)
    check_ops(x, t, a, 0, kinds=("ext",), msg="columns")
    xt, tt = x.t(), t.t()
    check_ops(xt, tt, a.T, 1, kinds=("ext",), msg="rows")
    flat = np.zeros(400000, name)
    flat[[5, 399000]] = 7
    flat[[200, 300000]] = np.nan
    x, t = pair(flat)
    for fn in ("max", "min", "argmax", "argmin"):
        assert_same(getattr(x, fn)(), getattr(t, fn)())


def test_threaded_noncontiguous_full(rng, threads):
    # a full reduction over a strided nest, its runs split over threads
    a = data(rng, (1000, 600), "float32")
    x, t = pair(a)
    xv, tv, av = x[:, :500], t[:, :500], a[:, :500]
    check_ops(xv, tv, av, None, kinds=("sum", "ext"), msg="sliced")
    xv, tv, av = x.t()[::2], t.t()[::2], a.T[::2]
    check_ops(xv, tv, av, None, kinds=("sum", "ext"), msg="transposed")
