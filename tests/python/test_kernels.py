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

import numpy as np
import pytest
import torch

from conftest import assert_same, pair, to_np

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


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("n", list(range(1, 40)) + [63, 64, 65, 1000, 1023])
def test_softmax_lengths(rng, fn, n):
    x, t = pair(rng.uniform(-20, 20, size=(3, n)).astype(np.float32))
    ref = getattr(t.double(), fn)(1).float()
    assert_same(getattr(x, fn)(1), ref, rtol=2e-6, atol=1e-7)


def test_softmax_threaded(rng, threads):
    x, t = pair(rng.standard_normal((512, 1000), dtype=np.float32))
    assert_same(x.softmax(-1), t.double().softmax(-1).float(), rtol=2e-6, atol=1e-7)
    assert_same(x.log_softmax(-1), t.double().log_softmax(-1).float(), rtol=2e-6, atol=1e-6)


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
