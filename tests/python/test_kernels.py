# test_kernels.py: the CPU kernels with several variants (per x86-64 level,
# threaded or not) on the lengths and values where variants part: vector
# tails, block edges, NaN and infinities in every lane, GEMM sizes around
# the thresholds where libdl splits a product over threads.
#
# meson runs this file once more with DL_CPU_ISA=x86-64-v3 and once with
# DL_CPU_ISA=x86-64, so that the AVX2 and SSE variants are checked on a
# machine whose CPU would pick the AVX-512 ones.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import decimal
import math
import os
import subprocess
import sys
from functools import partial

import mpmath
import numpy as np
import pytest
import torch

from conftest import SELF_CHECK, Dl, assert_same, dl_call, dl_dtype, dl_from_np, pair, th_dtype, to_np

# every length up to a few 64-float steps, and the edges of the sum's
# 32-step blocks (2048 floats with AVX-512, 1024 with AVX2, 512 with SSE)
LENGTHS = (list(range(0, 80)) + [127, 128, 129, 511, 512, 513, 1023, 1024, 1025,
                                 2047, 2048, 2049, 4095, 4096, 4097, 100_003])


@pytest.mark.parametrize("n", LENGTHS)
def test_sum_f32_lengths(rng, n):
    a = rng.uniform(-1.0, 2.0, size=n).astype(np.float32)
    x, _ = pair(a)
    exact = a.astype(np.float64).sum()
    assert abs(x.sum().item() - exact) <= 1e-6 * max(1.0, np.abs(a).sum())
    if n:
        m = a[: n - n % 3].reshape(3, -1) if n >= 3 else a.reshape(1, -1)
        xm, _ = pair(m)
        np.testing.assert_allclose(to_np(xm.sum(1)), m.astype(np.float64).sum(1),
                                   rtol=1e-6, atol=1e-6)


def test_sum_f32_accuracy_threaded(rng, threads):
    # one long run split over threads, and rows split over threads
    a = rng.uniform(0.0, 1.0, size=(1 << 22) + 7).astype(np.float32)
    x, _ = pair(a)
    exact = a.astype(np.float64).sum()
    assert abs(x.sum().item() - exact) / exact < 1e-6
    m = a[: 1 << 22].reshape(1024, 4096)
    xm, _ = pair(m)
    np.testing.assert_allclose(to_np(xm.sum(1)), m.astype(np.float64).sum(1), rtol=1e-6)
    np.testing.assert_allclose(to_np(xm.mean(1)), m.astype(np.float64).mean(1), rtol=1e-6)


@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf])
def test_sum_f32_special_in_every_lane(special):
    for pos in range(0, 70):
        a = np.ones(140, np.float32)
        a[pos] = special
        x, t = pair(a)
        assert_same(x.sum(), t.sum())
        assert_same(x.reshape((2, 70)).sum(1), t.reshape((2, 70)).sum(1))
    a = np.ones(200, np.float32)
    a[3], a[150] = np.inf, -np.inf
    x, t = pair(a)
    assert_same(x.sum(), t.sum())


def log_softmax_atol(a):
    """float32's absolute error bound for log_softmax over the last dim of
    a: the result is x - max - log(sum), so near 0 it is a difference of
    terms as large as the row's range plus log(n), each rounded to float32
    (a few ulps of those terms, not of the result)."""
    a = np.asarray(a, dtype=np.float64)
    terms = np.ptp(a, axis=-1).max() + np.log(a.shape[-1])
    return 4 * np.finfo(np.float32).eps * terms


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("n", list(range(1, 40)) + [63, 64, 65, 1000, 1023])
def test_softmax_lengths(rng, fn, n):
    a = rng.uniform(-20, 20, size=(3, n)).astype(np.float32)
    x, t = pair(a)
    ref = getattr(t.double(), fn)(1).float()
    atol = log_softmax_atol(a) if fn == "log_softmax" else 1e-7
    assert_same(getattr(x, fn)(1), ref, rtol=2e-6, atol=atol)


def test_softmax_threaded(rng, threads):
    a = rng.standard_normal((512, 1000), dtype=np.float32)
    x, t = pair(a)
    assert_same(x.softmax(-1), t.double().softmax(-1).float(), rtol=2e-6, atol=1e-7)
    assert_same(x.log_softmax(-1), t.double().log_softmax(-1).float(), rtol=2e-6,
                atol=log_softmax_atol(a))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_special_in_every_lane(fn):
    for pos in range(0, 35):
        for special in (np.nan, np.inf, -np.inf):
            a = np.linspace(-3, 3, 35 * 2, dtype=np.float32).reshape(2, 35)
            a[1, pos] = special
            x, t = pair(a)
            assert_same(getattr(x, fn)(1), getattr(t, fn)(1))
    # all -inf rows, huge and tiny values, results in the subnormals
    a = np.array([[-np.inf] * 17, [1e4] * 16 + [-1e4], [-1e-30] * 17,
                  list(np.linspace(-110, 0, 17))], np.float32)
    x, t = pair(a)
    assert_same(getattr(x, fn)(1), getattr(t, fn)(1))


# (m, k, n): below, at and above the split range (56^3 .. 192^3), square,
# tall, and wide (column split) products
GEMM_SHAPES = [(48, 48, 48), (56, 56, 56), (64, 64, 64), (65, 63, 67), (100, 100, 100),
               (128, 128, 128), (192, 192, 192), (200, 200, 200), (1024, 64, 8),
               (8, 64, 1024), (3, 512, 400), (17, 700, 33)]


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("shape", GEMM_SHAPES, ids=str)
def test_matmul_split_sizes(rng, threads, name, shape):
    m, k, n = shape
    a = rng.standard_normal((m, k)).astype(name)
    b = rng.standard_normal((k, n)).astype(name)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = dict(rtol=1e-4, atol=1e-4) if name == "float32" else dict(rtol=1e-10, atol=1e-10)
    xa, _ = pair(a)
    xb, _ = pair(b)
    np.testing.assert_allclose(to_np(xa @ xb), ref, **tol)
    # transposed operands (column-major views) take the other BLAS layouts
    xat, _ = pair(np.ascontiguousarray(a.T))
    xbt, _ = pair(np.ascontiguousarray(b.T))
    np.testing.assert_allclose(to_np(xat.t() @ xbt.t()), ref, **tol)
    np.testing.assert_allclose(to_np(xa @ xbt.t()), ref, **tol)
    # a batch of two: one GEMM per batch
    xs, _ = pair(np.stack([a, 2 * a]))
    np.testing.assert_allclose(to_np(xs @ xb), np.stack([ref, 2 * ref]), **tol)


def test_matmul_split_backward(rng, threads):
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    xa, ta = pair(a, requires_grad=True)
    xb, tb = pair(b, requires_grad=True)
    (xa @ xb).sum().backward()
    (ta @ tb).sum().backward()
    assert_same(xa.grad, ta.grad, rtol=1e-5, atol=1e-5)
    assert_same(xb.grad, tb.grad, rtol=1e-5, atol=1e-5)


def _clamp_input(rng, n, name):
    """n values in [-2, 2] with NaN, inf and -inf spread over the lanes."""
    a = rng.uniform(-2, 2, size=n).astype(name)
    for i, special in zip(range(0, n, 5), [np.nan, np.inf, -np.inf] * n):
        a[i] = special
    return a


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 3, 7, 8, 9, 16, 17, 33, 65, 1000, 100_003])
def test_clamp_lengths(rng, threads, name, n):
    a = _clamp_input(rng, n, name)
    lo = rng.uniform(-1.5, 0.5, size=n).astype(name)
    hi = rng.uniform(-0.5, 1.5, size=n).astype(name)
    lo[1::7], hi[2::9] = np.nan, np.nan
    (x, t), (xl, tl), (xh, th) = pair(a), pair(lo), pair(hi)
    (xl1, tl1), (xh1, th1) = pair(lo[:1].copy()), pair(hi[-1:].copy())
    # numbers (NaN bounds too), then each mix of full and one-element
    # tensor bounds, and a missing bound
    cases = [((-1.0, 0.5), (-1.0, 0.5)), ((0.25, None), (0.25, None)),
             ((None, -0.75), (None, -0.75)), ((1.0, -1.0), (1.0, -1.0)),
             ((float("nan"), 1.0), (float("nan"), 1.0)),
             ((xl, xh), (tl, th)), ((xl, None), (tl, None)), ((None, xh), (None, th)),
             ((xl1, xh), (tl1, th)), ((xl, xh1), (tl, th1)), ((xl1, xh1), (tl1, th1))]
    for (dlo, dhi), (tlo, thi) in cases:
        msg = "clamp(%s, %s): " % (type(dlo).__name__, type(dhi).__name__)
        assert_same(x.clamp(dlo, dhi), t.clamp(tlo, thi), msg=msg)
        y, u = pair(a)
        r = y.clamp_(dlo, dhi)
        u.clamp_(tlo, thi)
        assert r is y
        assert_same(y, u, msg="in place " + msg)
    # strided input (every other element) takes the strided loops
    assert_same(x[::2].clamp(-0.5, 0.5), t[::2].clamp(-0.5, 0.5))
    assert_same(x[::2].clamp(xl[::2], xh[::2]), t[::2].clamp(tl[::2], th[::2]))


# ---- float32 exp, log, tanh, sigmoid, silu, erf, gelu, gelu_tanh, sin, cos,
# tan, expm1, log1p and log2 -------------------------------------------------
# (dl-cpu-vmath.c: one vector kernel per x86-64 level, with a fast path
# for vectors whose lanes are all in the plain range and another for the
# rest).  References are computed in float64 from the float32 inputs;
# errors are in units in the last place of the float32 result (the ulp of
# the exact value: 2^(e - 23) for 2^e <= |ref| < 2^(e + 1), 2^-149 in the
# subnormals).

def _sigmoid64(x):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(-np.abs(x))
        return np.where(x < 0, e / (1 + e), 1 / (1 + e))


def _erfc64(x):
    return torch.special.erfc(torch.from_numpy(x)).numpy()


def _gelu_tanh_v(x):
    """The argument of gelu_tanh's sigmoid: 0.5 x (1 + tanh (u)) = x sigmoid (2u)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return 2 * np.sqrt(2 / np.pi) * (x + 0.044715 * x * x * x)


def _mul64(x, y):
    with np.errstate(invalid="ignore"):
        return x * y


# name: (the op on a libdl or torch tensor, given the module, the float64
# reference, the largest error allowed in ulps: a number or a function of
# x).  The bounds are the largest errors measured over every float32
# input, at every level (see dl-cpu-vmath.c), rounded up.  gelu_tanh's
# argument 2u = x sqrt (8 / pi) (1 + 0.044715 x^2) rounds in float32 (as in
# PyTorch's formula), and e^2u carries that rounding times |2u|, so its
# bound grows with |2u|.
VMATH_OPS = {
    "exp": (lambda L, x: L.exp(x), np.exp, 1.5),
    "log": (lambda L, x: L.log(x), np.log, 1.5),
    "tanh": (lambda L, x: L.tanh(x), np.tanh, 1.5),
    "sigmoid": (lambda L, x: L.sigmoid(x), _sigmoid64, 2.0),
    "silu": (lambda L, x: L.nn.functional.silu(x), lambda x: _mul64(x, _sigmoid64(x)), 3.0),
    "erf": (lambda L, x: L.erf(x), lambda x: torch.erf(torch.from_numpy(x)).numpy(), 2.0),
    "gelu": (lambda L, x: L.nn.functional.gelu(x),
             lambda x: _mul64(x * 0.5, _erfc64(-x * np.sqrt(0.5))), 8.0),
    "gelu_tanh": (lambda L, x: L.nn.functional.gelu(x, approximate="tanh"),
                  lambda x: _mul64(x, _sigmoid64(_gelu_tanh_v(x))),
                  lambda x: 1.5 + 3 * np.abs(_gelu_tanh_v(x))),
    "sin": (lambda L, x: L.sin(x), np.sin, 1.0),
    "cos": (lambda L, x: L.cos(x), np.cos, 1.0),
    "tan": (lambda L, x: L.tan(x), np.tan, 1.5),
    "expm1": (lambda L, x: L.expm1(x), np.expm1, 1.5),
    "log1p": (lambda L, x: L.log1p(x), np.log1p, 1.5),
    "log2": (lambda L, x: L.log2(x), np.log2, 1.5),
}


def _ulp_errors(y, ref):
    """Errors of float32 results y in ulps of float64 ref: 0 where both are
    the same NaN, infinity or zero; inf where one is NaN and the other not,
    or an infinity is wrong (ref beyond the largest float32 by half an ulp
    or more rounds to an infinity)."""
    y = y.astype(np.float64)
    big = np.abs(ref) >= (2 - 2.0 ** -24) * 2.0 ** 127
    r = np.where(big, np.copysign(np.inf, ref), ref)
    ulp = np.ldexp(1.0, np.maximum(np.frexp(np.abs(ref))[1] - 24, -149))
    err = np.abs(y - r) / ulp
    same = (y == r) | (np.isnan(y) & np.isnan(r))
    err[same] = 0.0
    err[np.isnan(err) | (np.isinf(y) & ~same) | (np.isinf(r) & ~same)] = np.inf
    return err


def _check_ulps(op, x, y, msg=""):
    _, ref, bound = VMATH_OPS[op]
    with np.errstate(all="ignore"):
        r = ref(x.astype(np.float64))
        err = _ulp_errors(y, r)
        limit = np.nan_to_num(bound(x.astype(np.float64))) if callable(bound) else bound
    bad = np.flatnonzero(~(err <= limit))
    if bad.size:
        i = bad[np.argmax(err[bad] - np.broadcast_to(limit, err.shape)[bad])]
        raise AssertionError("%s%s(%r) = %r: %.3g ulp from %r (%d inputs over the bound)"
                             % (msg, op, x[i], y[i], err[i], r[i], bad.size))


def _sweep_inputs():
    """Every 1021st float32 bit pattern (4.2M values of every exponent and
    both signs, NaNs and infinities included), and the 65536 values on
    either side of 1 for log and log2."""
    bits = np.arange(0, 2 ** 32, 1021, dtype=np.uint64).astype(np.uint32)
    near_one = np.arange(0x3f800000 - 32768, 0x3f800000 + 32768, dtype=np.uint32)
    return np.concatenate([bits, near_one]).view(np.float32)


@pytest.mark.skipif(SELF_CHECK, reason="bounds of libdl's kernels")
@pytest.mark.parametrize("op", list(VMATH_OPS))
def test_vmath_ulp_sweep(op):
    x = _sweep_inputs()
    y = to_np(VMATH_OPS[op][0](Dl, Dl.from_numpy(x.copy())))
    _check_ulps(op, x, y)


@pytest.mark.skipif(SELF_CHECK, reason="bounds of libdl's kernels")
@pytest.mark.parametrize("op", ["sin", "cos", "tan"])
def test_vmath_trig_reduction(op):
    """The float32 values nearest to k pi / 2 and their neighbours, for every
    k up to the end of the fast reduction (|x| <= 2^17, where x - k pi / 2
    is as small as 8.4e-9), both signs, and the values around 2^17, where
    the lanes go over to glibc."""
    k = np.arange(1, 83444, dtype=np.float64)
    c = (k * (np.pi / 2)).astype(np.float32)
    edge = np.arange(0x48000000 - 2048, 0x48000000 + 2048, dtype=np.uint32).view(np.float32)
    x = np.concatenate([np.nextafter(c, -np.inf), c, np.nextafter(c, np.inf), edge])
    x = np.concatenate([x, -x])
    y = to_np(VMATH_OPS[op][0](Dl, Dl.from_numpy(x.copy())))
    _check_ulps(op, x, y)


def _vmath_values(rng, n):
    """n values over the ranges where the ops change behaviour: around 0,
    the plain range and its edges, the subnormals and the specials."""
    pools = [rng.uniform(-3, 3, n), rng.uniform(-110, 110, n),
             rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 87.5,
                                  -87.5, 88.8, -104.0, 1e30, -1e30]), n)]
    pick = rng.integers(0, 10, n)
    return np.where(pick < 6, pools[0], np.where(pick < 9, pools[1], pools[2])).astype(np.float32)


@pytest.mark.parametrize("op", list(VMATH_OPS))
def test_vmath_lengths(rng, op):
    """Every length up to 80 and some longer ones (the vector tails), and
    the same values through every lane position: each result is the
    element's own, whatever its neighbours."""
    fn = VMATH_OPS[op][0]
    a = _vmath_values(rng, 4200)
    if op in ("log", "log2"):
        a = np.abs(a)
    whole = to_np(dl_call(lambda v: fn(Dl, v), dl_from_np(a)))
    for n in list(range(0, 81)) + [127, 128, 129, 1000, 4097]:
        for start in (0, 1, 5) if n <= 80 else (0, 3):
            x = a[start:start + n]
            y = to_np(dl_call(lambda v: fn(Dl, v), dl_from_np(x)))
            assert y.shape == (len(x),)
            if SELF_CHECK:
                continue
            np.testing.assert_array_equal(y, whole[start:start + n],
                                          err_msg="%s, n=%d from %d" % (op, n, start))
            _check_ulps(op, x, y, msg="n=%d: " % n)


SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40,
                     -1e-40, 1.17549435e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0,
                     88.72283, 88.72284, 88.7229, -87.33654, -87.5, -103.97, -104.0, -110.0,
                     -120.5, 9.0, -9.01, 10.0, 3.92, -3.93, 13.2, -13.2, 14.2, -16.5, 1e20,
                     -1e20,
                     # sin, cos, tan: around the end of the fast reduction
                     # (2^17) and pi / 2; expm1: the ends of its
                     # polynomial and of its range; log1p: near -1
                     131071.99, 131072.0, -131072.02, 262144.0, 1.5707964, -1.5707963,
                     0.5, -0.5, -17.4, -25.5, 89.5, -0.99999994, -0.75, 1e-30,
                     -1e-30], np.float32)


@pytest.mark.parametrize("op", list(VMATH_OPS))
def test_vmath_specials_in_every_lane(op):
    """NaN, infinities, signed zeros, subnormals, overflow and underflow
    edges, one at a time in each of 40 lanes among plain values: NaN where
    the float64 formula and PyTorch give NaN (silu, gelu and gelu_tanh of
    -inf are -inf * 0), the infinities and signed zeros the float64 formula
    rounds to, and the others within the bound."""
    fn, ref, _ = VMATH_OPS[op]
    for special in SPECIALS:
        for pos in range(40):
            a = np.linspace(0.25, 2.5, 40, dtype=np.float32)
            a[pos] = special
            x, t = pair(a)
            y, u = to_np(dl_call(lambda v: fn(Dl, v), x)), fn(torch, t).numpy()
            with np.errstate(all="ignore"):
                r64 = ref(a.astype(np.float64))
                r = r64.astype(np.float32)
            msg = "%s(%r) in lane %d" % (op, special, pos)
            np.testing.assert_array_equal(np.isnan(y), np.isnan(r), err_msg=msg)
            np.testing.assert_array_equal(np.isnan(u), np.isnan(r), err_msg=msg + " (torch)")
            # infinities, and zeros where the exact value is below half the
            # least subnormal (at half, 0 and 2^-149 are both within an ulp)
            exact = np.isinf(r) | (np.abs(r64) < 2.0 ** -150)
            np.testing.assert_array_equal(y[exact], r[exact], err_msg=msg)
            if not SELF_CHECK:
                # (PyTorch's gelu gives +0 at -0)
                np.testing.assert_array_equal(np.signbit(y[exact]), np.signbit(r[exact]),
                                              err_msg=msg)
                _check_ulps(op, a, y, msg=msg + ": ")


@pytest.mark.parametrize("op", list(VMATH_OPS))
def test_vmath_strided_and_in_place(rng, op):
    """Strided runs (a column, every other element) go through a buffer;
    in-place ops write over their input."""
    fn = VMATH_OPS[op][0]
    a = _vmath_values(rng, 3 * 700).reshape(700, 3)
    if op in ("log", "log2"):
        a = np.abs(a)
    x, _ = pair(a)
    whole = to_np(dl_call(lambda v: fn(Dl, v), x))
    # the same values as contiguous runs give (PyTorch's strided loops
    # round differently from its vector ones)
    same = (partial(np.testing.assert_allclose, rtol=1e-4, atol=1e-6) if SELF_CHECK
            else np.testing.assert_array_equal)
    same(to_np(dl_call(lambda v: fn(Dl, v), x[:, 1])), whole[:, 1])
    same(to_np(dl_call(lambda v: fn(Dl, v), x.t())), whole.T)
    flat = x.reshape(-1)
    same(to_np(dl_call(lambda v: fn(Dl, v), flat[::2])), whole.reshape(-1)[::2])
    if op in ("exp", "log", "tanh", "sigmoid", "sin", "cos", "tan", "expm1", "log1p", "log2"):
        y, _ = pair(a)
        r = getattr(y, op + "_")()
        assert r is y
        same(to_np(y), whole)


# ---- float64 exp, log, tanh and sigmoid ------------------------------------
# (dl-cpu-vmath64-body.h: one vector kernel per x86-64 level, every lane on
# its own).  numpy's float64 functions are not correctly rounded, so the
# references are computed with decimal at 40 digits; errors are in units
# in the last place of the float64 result (2^(e - 52) for
# 2^e <= |ref| < 2^(e + 1), 2^-1074 in the subnormals).

_D40 = decimal.Context(prec=40, Emax=999999, Emin=-999999, traps=[])


def _tanh_dec(x):
    a = abs(x)
    if a < decimal.Decimal("1e-8"):
        t = a - a ** 3 / 3 + 2 * a ** 5 / 15
    else:
        e = (-2 * a).exp()
        t = (1 - e) / (1 + e)
    return t.copy_sign(x)


# name: (the op on a libdl or torch tensor, given the module, the exact
# value as a Decimal of a finite float64 x (None where it is not a finite
# nonzero number), the value of the specials x (NaN, infinities, zeros and
# what float64 makes of them), the largest error allowed in ulps).  The
# bounds are the largest errors measured (see dl-cpu-vmath.c), rounded up.
VMATH64_OPS = {
    "exp": (lambda L, x: L.exp(x), lambda x: x.exp(), math.exp, 1.25),
    "log": (lambda L, x: L.log(x), lambda x: x.ln() if x > 0 else None,
            lambda x: -math.inf if x == 0 else math.nan if x < 0 or x != x else x, 1.0),
    "tanh": (lambda L, x: L.tanh(x), lambda x: _tanh_dec(x) if x != 0 else None,
             math.tanh, 1.25),
    "sigmoid": (lambda L, x: L.sigmoid(x), lambda x: 1 / (1 + (-x).exp()),
                lambda x: 0.5 if x == 0 else 1.0 if x == math.inf else 0.0 if x == -math.inf
                else math.nan, 1.75),
}


# expm1, log1p, log2, sin, cos, tan, silu and gelu_tanh (the second set of
# float64 kernels): exact values from mpmath at 60 digits (sin, cos and
# tan of a near a multiple of pi / 2 cancel some 60 bits), as Decimals.
# gelu_tanh's argument v = x sqrt (8 / pi) (1 + 0.044715 x^2) rounds in
# float64 (as in PyTorch's formula), and x sigmoid (v) carries that
# rounding times |v| where v < 0, so its bound grows with |v|.

def _mp(fn):
    def exact(x):
        with mpmath.workdps(60):
            v = fn(mpmath.mpf(str(x)))
            if v is None:
                return None
            # beyond float64's range both ways: an infinity or a zero,
            # signed (Decimal's exponent stops at a million)
            if abs(v) > mpmath.mpf("1e400") or abs(v) < mpmath.mpf("1e-400"):
                m = "Infinity" if abs(v) > 1 else "0"
                return decimal.Decimal(("-" if v < 0 else "") + m)
            return decimal.Decimal(mpmath.nstr(v, 50, strip_zeros=False))
    return exact


def _gelu_tanh_mp(x):
    u = mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x ** 3)
    return x / (1 + mpmath.exp(-2 * u))


def _trig_special(fn):
    return lambda x: math.nan if not math.isfinite(x) else fn(x)


def _log_special(x):
    return -math.inf if x == 0 else math.nan if x < 0 or x != x else x


VMATH64_OPS.update({
    "expm1": (lambda L, x: L.expm1(x), _mp(mpmath.expm1), math.expm1, 1.25),
    "log1p": (lambda L, x: L.log1p(x), _mp(lambda x: mpmath.log1p(x) if x > -1 else None),
              lambda x: -math.inf if x == -1 else math.nan if x < -1 or x != x else x, 1.25),
    "log2": (lambda L, x: L.log2(x), _mp(lambda x: mpmath.log(x, 2) if x > 0 else None),
             _log_special, 1.25),
    "sin": (lambda L, x: L.sin(x), _mp(mpmath.sin), _trig_special(math.sin), 1.25),
    "cos": (lambda L, x: L.cos(x), _mp(mpmath.cos), _trig_special(math.cos), 1.25),
    "tan": (lambda L, x: L.tan(x), _mp(mpmath.tan), _trig_special(math.tan), 2.25),
    "silu": (lambda L, x: L.nn.functional.silu(x), _mp(lambda x: x / (1 + mpmath.exp(-x))),
             lambda x: math.nan if x == -math.inf else x, 2.0),
    "gelu_tanh": (lambda L, x: L.nn.functional.gelu(x, approximate="tanh"), _mp(_gelu_tanh_mp),
                  lambda x: math.nan if x == -math.inf else x,
                  lambda x: 2.25 + 2.25 * np.maximum(-_gelu_tanh_v(x), 0)),
})


def _ulp64_errors(op, x, y):
    """Errors of float64 results y in ulps of the exact values of op at x:
    0 where y is the special value (NaN, infinity, signed zero) C99 gives,
    inf where it is not, and where the exact value rounds to an infinity or
    is below half the least subnormal, 0 or inf for y being that or not."""
    _, exact, special, _ = VMATH64_OPS[op]
    err = np.zeros(len(x))
    with decimal.localcontext(_D40):
        for i, (xi, yi) in enumerate(zip(x.tolist(), y.tolist())):
            r = exact(decimal.Decimal(xi)) if math.isfinite(xi) and xi != 0 else None
            if r is None:
                s = special(xi)
                ok = (math.isnan(s) and math.isnan(yi)) or (
                    s == yi and math.copysign(1, s) == math.copysign(1, yi))
                err[i] = 0.0 if ok else np.inf
                continue
            rf = float(r)
            if math.isinf(rf) or abs(r) < decimal.Decimal(2) ** -1075:
                err[i] = 0.0 if yi == rf and math.copysign(1, yi) == math.copysign(1, rf) else np.inf
                continue
            if not math.isfinite(yi):
                err[i] = np.inf
                continue
            e = math.frexp(abs(rf))[1] - 1 if rf != 0 else -1075
            ulp = decimal.Decimal(2) ** max(e - 52, -1074)
            err[i] = float(abs(decimal.Decimal(yi) - r) / ulp)
    return err


def _check_ulps64(op, x, y, msg=""):
    err = _ulp64_errors(op, x, y)
    bound = VMATH64_OPS[op][3]
    if callable(bound):
        bound = np.nan_to_num(bound(x))
    bad = np.flatnonzero(~(err <= bound))
    if bad.size:
        i = bad[np.argmax(err[bad])]
        raise AssertionError("%s%s(%r) = %r: %.3g ulp (%d inputs over the bound)"
                             % (msg, op, x[i], y[i], err[i], bad.size))


def _vmath64_inputs(op, rng, n):
    """n random inputs over the op's whole range and its edges: every
    exponent, the ends of the polynomials, around overflow and into the
    subnormal results."""
    if op in ("log", "log2"):
        bits = rng.integers(1, 0x7ff0000000000000, n // 2, dtype=np.int64)
        return np.concatenate([bits.view(np.float64), rng.uniform(0.5, 2.0, n // 4),
                               1 + rng.uniform(-2.0 ** -20, 2.0 ** -20, n // 8),
                               rng.uniform(0.7, 0.72, n // 16), rng.uniform(1.41, 1.42, n // 16)])
    if op == "log1p":
        bits = rng.integers(1, 0x7ff0000000000000, n // 4, dtype=np.int64)
        return np.concatenate([bits.view(np.float64), -1 + np.exp2(rng.uniform(-53, 0, n // 8)),
                               rng.uniform(-0.3, 0.42, n // 4), rng.uniform(-1, 10, n // 8),
                               np.exp2(rng.uniform(-1074, -10, n // 8)),
                               -np.exp2(rng.uniform(-1074, -10, n // 8))])
    if op in ("sin", "cos", "tan"):
        # near multiples of pi / 2 too, and beyond the vector reduction's
        # 2^20 (glibc's, lane by lane)
        k = rng.integers(1, 600000, n // 5).astype(np.float64)
        near = k * (np.pi / 2)
        near = near + rng.integers(-3, 4, len(near)) * np.spacing(near)
        x = np.concatenate([rng.uniform(-10, 10, n // 5), rng.uniform(-1e6, 1e6, n // 5), near,
                            rng.uniform(-0.8, 0.8, n // 10), rng.uniform(1e6, 3e6, n // 10),
                            np.exp2(rng.uniform(-1074, -10, n // 10))])
        return x * rng.choice([-1.0, 1.0], len(x))
    pools = {
        "exp": [(-746.0, 710.0), (-0.4, 0.4), (-1e-10, 1e-10), (-745.2, -708.0), (709.0, 709.8)],
        "tanh": [(-25.0, 25.0), (-1.0, 1.0), (0.6, 0.65), (-1e-6, 1e-6), (18.0, 21.0)],
        "sigmoid": [(-800.0, 40.0), (-5.0, 5.0), (-745.2, -708.0), (-40.0, -35.0), (35.0, 40.0)],
        "expm1": [(-45.0, 712.0), (-1.2, 1.2), (-1e-10, 1e-10), (-0.36, 0.36), (700.0, 709.8),
                  (-40.0, -30.0)],
        "silu": [(-850.0, 40.0), (-5.0, 5.0), (-760.0, -700.0), (-40.0, -35.0), (35.0, 40.0)],
        "gelu_tanh": [(-30.0, 30.0), (-5.0, 5.0), (-28.0, -24.0), (-1.0, 1.0)],
    }[op]
    x = np.concatenate([rng.uniform(a, b, n // len(pools)) for a, b in pools])
    if op != "exp":
        x = np.concatenate([x, -np.exp2(rng.uniform(-1074, -10, n // 8))])
    if op in ("tanh", "expm1", "silu", "gelu_tanh"):
        x = np.concatenate([x, np.exp2(rng.uniform(-1074, -10, n // 8))])
    return x


@pytest.mark.skipif(SELF_CHECK, reason="bounds of libdl's kernels")
@pytest.mark.parametrize("op", list(VMATH64_OPS))
def test_vmath64_ulps(rng, op):
    x = _vmath64_inputs(op, rng, 4000)
    y = to_np(VMATH64_OPS[op][0](Dl, Dl.from_numpy(x.copy())))
    assert y.dtype == np.float64
    _check_ulps64(op, x, y)


@pytest.mark.parametrize("op", list(VMATH64_OPS))
def test_vmath64_lengths(rng, op):
    """Every length up to 80 and some longer ones (the vector tails) from
    several starts: each result is the element's own, whatever its
    neighbours."""
    fn = VMATH64_OPS[op][0]
    a = _vmath64_inputs(op, rng, 1200)
    a = a[rng.permutation(len(a))]
    whole = to_np(dl_call(lambda v: fn(Dl, v), dl_from_np(a)))
    if not SELF_CHECK:
        _check_ulps64(op, a, whole)
    for n in list(range(0, 81)) + [127, 128, 129, 1000]:
        for start in (0, 1, 3) if n <= 80 else (0, 3):
            x = a[start:start + n]
            y = to_np(dl_call(lambda v: fn(Dl, v), dl_from_np(x)))
            assert y.shape == (len(x),)
            if not SELF_CHECK:
                np.testing.assert_array_equal(y, whole[start:start + n],
                                              err_msg="%s, n=%d from %d" % (op, n, start))


SPECIALS64 = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324, 1e-310,
                       -1e-310, 2.2250738585072014e-308, 1.7976931348623157e308,
                       -1.7976931348623157e308, 1.0, -1.0, 709.782712893384, 709.7827128933841,
                       709.79, 710.0, -708.39, -708.4, -745.1332191019411, -745.1332191019412,
                       -745.2, -746.0, -800.0, 0.625, -0.625, 0.6249999999999999, 19.06, -20.0,
                       20.5, 36.8, -37.5, 1e-8, -1e-8, 1e300, -1e300, 1.5707963267948966,
                       -3.141592653589793, 1048576.0, 1048576.0000000002, 6381956970095103e6,
                       -0.9999999999999999, -1.0000000000000002, 750.0, -751.0, -850.0,
                       -40.0, -41.0, 0.5], np.float64)


@pytest.mark.parametrize("op", list(VMATH64_OPS))
def test_vmath64_specials_in_every_lane(op):
    """NaN, infinities, signed zeros, subnormals, overflow and underflow
    edges and the ends of the polynomials, one at a time in each of 24
    lanes among plain values: NaN where C99 gives NaN, and the infinities
    and signed zeros it gives, the others within the bound."""
    fn = VMATH64_OPS[op][0]
    for special in SPECIALS64:
        for pos in range(24):
            a = np.linspace(0.25, 2.5, 24)
            a[pos] = special
            x, t = pair(a)
            y = to_np(dl_call(lambda v: fn(Dl, v), x))
            msg = "%s(%r) in lane %d" % (op, special, pos)
            if SELF_CHECK:
                np.testing.assert_array_equal(np.isnan(y), np.isnan(fn(torch, t).numpy()),
                                              err_msg=msg)
                continue
            _check_ulps64(op, a, y, msg=msg + ": ")


@pytest.mark.parametrize("op", list(VMATH64_OPS))
def test_vmath64_strided_and_in_place(rng, op):
    """Strided runs (a column, every other element) go through a buffer;
    in-place ops write over their input."""
    fn = VMATH64_OPS[op][0]
    a = _vmath64_inputs(op, rng, 3 * 400)
    a = a[rng.permutation(len(a))][:3 * 400].reshape(-1, 3)
    x, _ = pair(a)
    whole = to_np(dl_call(lambda v: fn(Dl, v), x))
    same = (partial(np.testing.assert_allclose, rtol=1e-12, atol=1e-300) if SELF_CHECK
            else np.testing.assert_array_equal)
    same(to_np(dl_call(lambda v: fn(Dl, v), x[:, 1])), whole[:, 1])
    same(to_np(dl_call(lambda v: fn(Dl, v), x.t())), whole.T)
    flat = x.reshape(-1)
    same(to_np(dl_call(lambda v: fn(Dl, v), flat[::2])), whole.reshape(-1)[::2])
    if op in ("silu", "gelu_tanh"):
        return
    y, _ = pair(a)
    r = getattr(y, op + "_")()
    assert r is y
    same(to_np(y), whole)


# fill_ writes contiguous runs as 1-, 2-, 4- or 8-byte patterns (memset
# for a value whose bytes are all 0, -0.0 not among them) and strided ones
# element by element; the elements around the filled ones stay as they were.
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16", "int32",
                                  "int64", "uint8", "bool"])
@pytest.mark.parametrize("value", [0, 1, -0.0, 2.5])
@pytest.mark.parametrize("n", [0, 1, 7, 31, 33, 1000, 100_003])
def test_fill_patterns(rng, threads, name, value, n):
    if name in ("uint8", "int32", "int64") and value in (-0.0, 2.5):
        value = 3
    if name == "bool":
        value = bool(value)
    for step in (1, 3):
        base = rng.uniform(-9, 9, size=n * step + 2)
        x, t = pair(base.astype(np.float32), name) if name != "bool" else pair(base > 0)
        x[1:1 + n * step:step].fill_(value)
        t[1:1 + n * step:step].fill_(value)
        assert_same(x, t, msg="%s %r n=%d step=%d" % (name, value, n, step))
        if isinstance(value, float) and name.startswith(("float", "bfloat")):
            # -0.0 keeps its sign bit
            assert np.array_equal(np.signbit(to_np(x).astype(np.float32)),
                                  np.signbit(t.float().numpy()))
        x[1:1 + n * step:step].zero_()
        t[1:1 + n * step:step].zero_()
        assert_same(x, t)


# Costly unary ops split over threads from DL_CPU_GRAIN / cost elements
# (float32 sin: about 5500, float64 sin: about 4700): a split run gives
# exactly the one-thread result, on contiguous and strided inputs, at sizes
# around the split points.
@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("op", ["sin", "tan", "expm1", "log1p", "tanh", "erf", "exp", "neg"])
@pytest.mark.parametrize("n", [1, 63, 65, 700, 1000, 4681, 4682, 5461, 20000, 40000])
def test_costly_unary_split(rng, name, op, n):
    a = rng.uniform(0.1, 1.5, size=2 * n).astype(name)
    x, t = pair(a, name)
    torch.set_num_threads(1)
    one = getattr(x[::2], op)().numpy().copy(), getattr(x[:n], op)().numpy().copy()
    torch.set_num_threads(2)
    try:
        got = getattr(x[::2], op)(), getattr(x[:n], op)()
    finally:
        torch.set_num_threads(1)
    for g, o in zip(got, one):
        assert np.array_equal(to_np(g), o, equal_nan=True), (op, name, n)
    assert_same(got[0], getattr(t[::2], op)())
    assert_same(got[1], getattr(t[:n], op)())


# Casts run as contiguous loops (F16C for float16 at x86-64-v3 and up) or
# strided ones, split over threads from DL_CPU_GRAIN / cost elements: every
# pair of dtypes against PyTorch, with float specials (NaN, infinities,
# -0, values beyond float16's range and in its subnormals) among the data.
CAST_DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("src", CAST_DTYPES)
@pytest.mark.parametrize("dst", CAST_DTYPES)
@pytest.mark.parametrize("n", [1, 7, 33, 1000, 40000])
def test_cast_pairs(rng, threads, src, dst, n):
    a = rng.uniform(-300.0, 300.0, size=2 * n)
    if src.startswith(("float", "bfloat")):
        a[::7] = rng.uniform(-1.0, 1.0, size=a[::7].size) * 1e-6     # float16 subnormals
        a[3::11] = 7e4                                                 # beyond float16
        for i, v in enumerate([np.nan, np.inf, -np.inf, -0.0]):
            if 5 * i + 1 < a.size:
                a[5 * i + 1] = v
    else:
        a = np.clip(np.round(a), 0 if src in ("uint8", "bool") else -300, 255)
    if dst in ("int32", "int64", "uint8") and src.startswith(("float", "bfloat")):
        a = np.where(np.isfinite(a), np.clip(a, 0 if dst == "uint8" else -300, 255), 1.0)
    x, t = pair(a.astype(np.float64), src) if src != "bool" else pair(a > 0)
    for xs, ts in ((x[:n], t[:n]), (x[::2], t[::2])):
        got = xs.to(dl_dtype(dst))
        want = ts.to(th_dtype(dst))
        assert_same(got, want, msg="%s -> %s n=%d" % (src, dst, n))


@pytest.mark.skipif(SELF_CHECK, reason="torch 1.13 lacks scaled_dot_product_attention")
@pytest.mark.parametrize("s", [4, 36, 260, 516])
def test_attention_dropout_philox(rng, s):
    """the attention kernel's Philox blocks (eight at a time with AVX2, one
    at a time otherwise) give the same mask: with value = the identity the
    output is the probabilities times the dropout scales (0 or 1 / 0.7),
    the same for a seed every time and on the portable kernels
    (DL_CPU_ISA=x86-64, in a subprocess); the key comes from the CPU
    generator's stream"""
    q, k = [rng.standard_normal(sh) for sh in ((9, 4), (s, 4))]
    script = ('import sys, numpy as np, dl as Dl\n'
              'q = Dl.tensor(np.array(%r), dtype=Dl.float64)\n'
              'k = Dl.tensor(np.array(%r), dtype=Dl.float64)\n'
              'eye = Dl.eye(%d, dtype=Dl.float64)\n'
              'f = Dl.nn.functional.scaled_dot_product_attention\n'
              'Dl.manual_seed(21)\n'
              'z = f(q, k, eye, dropout_p=0.3).numpy() / f(q, k, eye).numpy()\n'
              'sys.stdout.write(repr(z.tolist()))\n') % (q.tolist(), k.tolist(), s)
    zs = []
    for isa in (None, 'x86-64'):
        env = dict(os.environ)
        if isa:
            env['DL_CPU_ISA'] = isa
        out = subprocess.run([sys.executable, '-c', script], env=env, capture_output=True,
                             text=True)
        assert out.returncode == 0, out.stderr
        zs.append(np.array(eval(out.stdout)))
    np.testing.assert_array_equal(zs[0], zs[1])
    z = zs[0]
    kept = np.isclose(z, 1 / 0.7, rtol=1e-12)
    assert np.all(kept | (z == 0))
    assert abs(kept.mean() - 0.7) < 5 * np.sqrt(0.21 / z.size)


@pytest.mark.parametrize("op", ["add", "mul", "neg", "relu", "exp", "tanh", "add_f64", "lt"])
def test_results_share_their_inputs_line_offset(rng, threads, op):
    """An elementwise result of a contiguous input starts at the input's
    offset within a 64-byte line (its kernel first runs up to the line's
    end, then on aligned streams): every start and length near the line
    and vector edges gives the element's own value, and a result of an
    input of another element size starts on a line."""
    fns = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "neg": lambda a, b: -a,
           "relu": lambda a, b: a.relu(), "exp": lambda a, b: a.exp(),
           "tanh": lambda a, b: a.tanh(), "add_f64": lambda a, b: a + b,
           "lt": lambda a, b: a < b}
    fn = fns[op]
    dt = np.float64 if op == "add_f64" else np.float32
    a = rng.standard_normal(5000).astype(dt)
    b = rng.standard_normal(5000).astype(dt)
    xa, xb = Dl.from_numpy(a.copy()), Dl.from_numpy(b.copy())
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    size = a.itemsize
    for n in list(range(0, 40)) + [63, 64, 65, 1000, 4096 - 7]:
        for k in range(0, 64 // size + 1):
            x, y = xa[k:k + n], xb[k:k + n]
            r = fn(x, y)
            want = fn(ta[k:k + n], tb[k:k + n]).numpy()
            got = r.numpy()
            if op in ("exp", "tanh"):
                # the vector kernels' own values, whatever the place
                np.testing.assert_array_equal(got, to_np(fn(Dl.from_numpy(a[k:k + n].copy()),
                                                            None)))
                np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
            else:
                np.testing.assert_array_equal(got, want, err_msg="%s n=%d k=%d" % (op, n, k))
            if r.numel() * r.element_size() <= 1024:
                continue  # small results live inline, 16-byte aligned
            if op != "lt":
                assert r.data_ptr() % 64 == x.data_ptr() % 64, (op, n, k)
            else:
                assert r.data_ptr() % 64 == 0


@pytest.mark.parametrize("start", [0, 1, 3, 16, 1000])
@pytest.mark.parametrize("n", [1000, 20_000, 300_000])
def test_elementwise_result_placed_like_its_input(start, n):
    """An elementwise result sits where its input sits within a cache line
    (all streams line-aligned after the same head) and, from 64 KB, within
    a page (no store shares its low 12 address bits with a load a few
    elements ahead); values as numpy's, whatever the place."""
    if SELF_CHECK:
        pytest.skip("libdl's placement")
    a = np.random.default_rng(n + start).standard_normal(n + start, dtype=np.float32)
    b = np.random.default_rng(n).standard_normal(n + start, dtype=np.float32)
    x, y = Dl.from_numpy(a)[start:], Dl.from_numpy(b)[start:]
    for r, want in ((x + y, a[start:] + b[start:]), (x.exp(), np.exp(a[start:]))):
        at, got = x.data_ptr(), r.data_ptr()
        assert got % 64 == at % 64
        if n * 4 >= 64 << 10:
            assert got % 4096 == at % 4096
        np.testing.assert_allclose(r.numpy(), want, rtol=2e-6)
