# conftest.py: shared helpers for the libdl Python test-suite.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every test compares libdl (imported as `Dl`, through its PyTorch-compatible
# GObject-Introspection overrides) against real PyTorch (`torch`), the
# oracle, on identical inputs: data is generated with a seeded numpy
# generator and copied into both libraries.
#
# Run from the source root with:
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python G_DEBUG=fatal-criticals \
#   /usr/bin/python3 -m pytest -q tests/python

import os
import zlib

# A GLib critical (a g_return_if_fail that tripped: a bug in libdl or in its
# bindings) must fail the run, not scroll by.  GLib reads G_DEBUG when it is
# loaded, which happens below with gi.
os.environ.setdefault("G_DEBUG", "fatal-criticals")

import numpy as np
import pytest

import torch

# DL_TEST_SELF_CHECK=1 runs the suite with torch standing in for libdl: every
# test must then pass, which checks the tests themselves against the oracle.
if os.environ.get("DL_TEST_SELF_CHECK"):
    Dl = torch
else:
    import gi

    gi.require_version("Dl", "1.0")
    from gi.repository import Dl  # noqa: F401

torch.set_num_threads(1)

DTYPES = ["float32", "float64", "float16", "bfloat16",
          "int32", "int64", "uint8", "bool"]
FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
INT_DTYPES = ["int32", "int64", "uint8"]
NUM_DTYPES = FLOAT_DTYPES + INT_DTYPES

NP_DTYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "bfloat16": np.float32,  # numpy has no bfloat16: values kept as float32
    "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "bool": np.bool_,
}

# (rtol, atol) for value comparisons of results of the given dtype.
TOL = {
    "float32": (1e-5, 1e-6),
    "float64": (1e-10, 1e-12),
    "float16": (2e-3, 1e-4),
    "bfloat16": (1e-2, 1e-3),
}

# Shapes used by most pointwise and reduction tests: 0-d, empty, size-1
# dims and a few ordinary ones.
SHAPES = [(), (0,), (1,), (7,), (3, 4), (2, 1, 3), (2, 0, 3), (1, 1), (2, 3, 4, 2)]

# Broadcasting pairs.
BCAST = [((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (3,)), ((1,), (2, 3)),
         ((0, 3), (1, 3)), ((5, 1, 1), (1, 4, 2)), ((2, 3, 0), (3, 1)),
         ((4, 1), ())]


def dl_dtype(name):
    return getattr(Dl, name)


def th_dtype(name):
    return getattr(torch, name)


def dtype_name(dt):
    """The PyTorch name ('float32', ...) of a libdl or torch dtype."""
    if isinstance(dt, torch.dtype) and Dl is not torch:
        return str(dt).split(".")[-1]
    for n in DTYPES:
        if getattr(Dl, n) == dt:
            return n
    raise AssertionError("unknown libdl dtype %r" % (dt,))


@pytest.fixture
def threads():
    """Two OpenMP threads (conftest runs the suite on one), so that the
    threaded paths run even on a one-CPU machine."""
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(1)


def seed_of(nodeid):
    """The seed of the test with pytest node id @nodeid: its file's name
    (not its path, which depends on where the tree and the build lie) and
    its name with parameters, mixed with DL_TEST_SEED (default 0) so the
    whole suite can be run on other inputs."""
    path, _, name = nodeid.partition("::")
    key = os.path.basename(path) + "::" + name
    return zlib.crc32(key.encode()) ^ int(os.environ.get("DL_TEST_SEED", "0"))


@pytest.fixture(autouse=True)
def _seeded_default_generators(request):
    """Both libraries' default generators seeded from the test's name: they
    start from a nondeterministic seed, as PyTorch's does, and a test that
    draws without seeding must still be the same every run."""
    seed = seed_of(request.node.nodeid)
    torch.manual_seed(seed)
    Dl.manual_seed(seed)


@pytest.fixture
def rng(request):
    """A numpy generator seeded from the test's name (seed_of), so every
    test is deterministic and independent of the order tests run in and
    of the directory they run from."""
    return np.random.default_rng(seed_of(request.node.nodeid))


def rand_np(rng, shape, name="float32", low=-3.0, high=3.0, positive=False,
            nonzero=False):
    """Random numpy data for a tensor of dtype `name`.  bfloat16 data is a
    float32 array holding exactly representable bfloat16 values."""
    shape = tuple(shape)
    if name == "bool":
        return rng.random(shape) < 0.5
    if name in INT_DTYPES:
        lo = 1 if positive else (0 if name == "uint8" else -9)
        a = rng.integers(lo, 10, size=shape)
        if nonzero:
            a[a == 0] = 1
        return a.astype(NP_DTYPES[name])
    if positive:
        low = 0.1 if low <= 0 else low
    a = rng.uniform(low, high, size=shape)
    if nonzero:
        a[np.abs(a) < 0.05] = 0.5
    if name == "bfloat16":
        return torch.from_numpy(a.astype(np.float32)).bfloat16().float().numpy()
    return a.astype(NP_DTYPES[name])


def _c(a):
    # np.ascontiguousarray turns 0-d arrays into 1-d ones: avoid it.
    return np.array(a, copy=True, order="C")


def dl_from_np(a, name=None):
    """A libdl tensor holding a copy of numpy array `a` (dtype `name`)."""
    if name == "bfloat16":
        return Dl.from_numpy(_c(np.asarray(a, dtype=np.float32))).to(Dl.bfloat16)
    if name is not None:
        with np.errstate(over="ignore"):
            a = np.asarray(a, dtype=NP_DTYPES[name])
    return Dl.from_numpy(_c(a))


def th_from_np(a, name=None):
    """A torch tensor holding a copy of numpy array `a` (dtype `name`)."""
    if name == "bfloat16":
        return torch.from_numpy(_c(np.asarray(a, dtype=np.float32))).bfloat16()
    if name is not None:
        with np.errstate(over="ignore"):
            a = np.asarray(a, dtype=NP_DTYPES[name])
    return torch.from_numpy(_c(a))


def pair(a, name=None, requires_grad=False):
    """(libdl tensor, torch tensor) with identical contents."""
    x, t = dl_from_np(a, name), th_from_np(a, name)
    if requires_grad:
        x.requires_grad_(True)
        t.requires_grad_(True)
    return x, t


def rand_pair(rng, shape, name="float32", requires_grad=False, **kw):
    return pair(rand_np(rng, shape, name, **kw), name, requires_grad)


def to_np(x):
    """A numpy copy of libdl tensor `x` (bfloat16 comes back as float32)."""
    x = x.detach()
    if x.dtype == Dl.bfloat16:
        x = x.float()
    return np.array(x.contiguous().numpy(), copy=True)


def to_torch(x):
    """A torch copy of libdl tensor `x`, same dtype and values."""
    bf = x.dtype == Dl.bfloat16
    t = torch.from_numpy(to_np(x))
    return t.bfloat16() if bf else t


def th_np(t):
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.contiguous().numpy()


def assert_same(x, t, rtol=None, atol=None, check_dtype=True, msg=""):
    """Asserts libdl tensor `x` equals torch tensor `t`: shape, dtype and
    values (NaN equal to NaN, infinities matched by sign)."""
    assert tuple(x.shape) == tuple(t.shape), \
        "%sshape %s != torch %s" % (msg, tuple(x.shape), tuple(t.shape))
    name = dtype_name(t.dtype)
    if check_dtype:
        got = dtype_name(x.dtype)
        assert got == name, "%sdtype %s != torch %s" % (msg, got, name)
    a, b = to_np(x), th_np(t)
    if name in TOL and dtype_name(x.dtype) in TOL:
        r, at = TOL[name]
        rtol = r if rtol is None else rtol
        atol = at if atol is None else atol
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=msg)
    else:
        np.testing.assert_array_equal(a, b, err_msg=msg)


def same_pairs(fn_dl, fn_th, *pairs):
    """fn_dl on the libdl sides of the (libdl, torch) @pairs gives what
    fn_th gives on the torch sides (a tensor, or a tuple of them), or
    raises the same exception class; returns libdl's result."""
    try:
        expected = fn_th(*[p[1] for p in pairs])
    except (RuntimeError, IndexError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            fn_dl(*[p[0] for p in pairs])
        return None
    got = fn_dl(*[p[0] for p in pairs])
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
    else:
        assert_same(got, expected)
    return got


def compare_grads(fn_dl, fn_th, *arrays):
    """The gradients of sum(fn(inputs) * w), for a fixed random w, equal
    torch's for float64 copies of the numpy @arrays, and so do the
    outputs."""
    ps = [pair(a, "float64", requires_grad=True) for a in arrays]
    out_t = fn_th(*[p[1] for p in ps])
    w = np.random.default_rng(0).standard_normal(tuple(out_t.shape))
    wx, wt = pair(w, "float64")
    (out_t * wt).sum().backward()
    out_x = fn_dl(*[p[0] for p in ps])
    assert_same(out_x, out_t)
    (out_x * wx).sum().backward()
    for x, t in ps:
        assert_same(x.grad, t.grad)


def torch_ref(fn, *ts, upcast=False):
    """Runs `fn` on torch tensors; where torch 1.13's CPU backend has no
    float16 kernel, computes in float32 and rounds the result to float16
    (what newer PyTorch releases do).  With upcast=True, float16 and
    bfloat16 inputs are always computed in float32 and the result rounded
    once: the reference for reductions, which torch 1.13 accumulates in
    the half type for some layouts."""
    half = (torch.float16, torch.bfloat16) if upcast else (torch.float16,)
    if not upcast or not any(isinstance(t, torch.Tensor) and t.dtype in half for t in ts):
        try:
            return fn(*ts)
        except RuntimeError as e:
            if "Half" not in str(e):
                raise
    low = [t.dtype for t in ts if isinstance(t, torch.Tensor) and t.dtype in half][0]
    up = [t.float() if isinstance(t, torch.Tensor) and t.dtype in half
          else t for t in ts]
    r = fn(*up)

    def down(v):
        return v.to(low) if isinstance(v, torch.Tensor) and v.is_floating_point() else v
    if isinstance(r, tuple):
        vals = tuple(down(v) for v in r)
        if hasattr(r, "_fields"):
            return type(r)(*vals)
        if hasattr(type(r), "n_fields"):      # torch.return_types structseq
            return type(r)(vals)
        return vals
    return down(r)


SELF_CHECK = Dl is torch


def dl_call(fn, *args, upcast=False):
    """Runs fn on libdl tensors (in self-check mode, on torch tensors with
    the float16 fallback of torch_ref)."""
    return torch_ref(fn, *args, upcast=upcast) if SELF_CHECK else fn(*args)


# Views that are not contiguous, applied identically to libdl and torch
# tensors: (label, shape of the base tensor, function of the base).
NONCONTIG = [
    ("transpose", (4, 3), lambda t: t.transpose(0, 1)),
    ("t", (5, 2), lambda t: t.t()),
    ("permute", (2, 3, 4), lambda t: t.permute(2, 0, 1)),
    ("expand", (1, 4), lambda t: t.expand(3, 4)),
    ("expand_mid", (3, 1, 2), lambda t: t.expand(3, 5, 2)),
]


# Shapes the reduction tests run over: 0-d, size-1, empty and several ranks.
RSHAPES = [(), (1,), (7,), (3, 4), (2, 1, 3), (2, 3, 4, 2), (0,), (2, 0, 3)]


def check_reduction(fn, x, t, **tol):
    """Runs `fn` on the libdl tensor `x` and on the torch tensor `t` (half
    types computed in float32 on both sides) and compares the results, or
    checks that libdl raises the exception class torch raised."""
    try:
        expected = torch_ref(fn, t, upcast=True)
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        with pytest.raises(type(e)):
            dl_call(fn, x, upcast=True)
        return None
    got = dl_call(fn, x, upcast=True)
    if isinstance(expected, tuple):
        assert isinstance(got, tuple)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e, **tol)
    else:
        assert_same(got, expected, **tol)
    return got
