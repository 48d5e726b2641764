#!/usr/bin/python3
# bench.py: libdl against PyTorch, side by side in one process.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python /usr/bin/python3 bench/bench.py [--quick]
#
# Method.  Both libraries run in this one process on the same machine, on
# the same input values (copied from one numpy array), alternately, so that
# frequency scaling and noise from other processes hit both alike.  PyTorch
# runs with torch.set_num_threads(os.cpu_count()); libdl with its defaults.
# For each benchmark and library: a few warm-up calls (page faults, thread
# pools, caches, allocator), then R repeats of a timed loop of N calls,
# timed with time.perf_counter(); the time per call of a repeat is the
# loop's time divided by N, and the reported figure is the minimum over the
# repeats (the run least disturbed by the rest of the system; the median is
# printed alongside).  Outputs are fresh each call, as users write `a + b`,
# so allocation of the result is part of what is measured.  ratio =
# libdl / torch time per call: below 1 libdl is faster.  Each line says PASS
# or MISS against its target; the script always exits 0, since benchmarks
# must not fail CI.  The memcpy bandwidth (numpy copy of 64 MB into a
# preallocated array) is printed for reference: the 16M add moves 192 MB
# (two reads, one write) and cannot beat that bandwidth.

import argparse
import os
import statistics
import sys
import time

import numpy as np

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402

import torch  # noqa: E402


def time_loop(fn, n):
    """Seconds per call of fn, from one timed loop of n calls."""
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def fmt(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return "%7.2f %-2s" % (seconds / scale, unit)
    return "%7.2f ns" % (seconds / 1e-9)


def memcpy_bandwidth(repeats):
    src = np.ones(64 * 1024 * 1024 // 8, dtype=np.float64)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    np.copyto(dst, src)
    best = min(time_loop(lambda: np.copyto(dst, src), 5) for _ in range(repeats))
    return src.nbytes / best   # bytes copied per second (memory traffic is twice that)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = ap.parse_args()
    reps = 3 if args.quick else 7

    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)

    print("libdl vs torch %s, %d CPUs, torch threads %d" % (
        torch.__version__, os.cpu_count(), torch.get_num_threads()))
    bw = memcpy_bandwidth(reps)
    print("memcpy bandwidth (numpy copy of 64 MB into a preallocated array): %.2f GB/s copied"
          " (%.2f GB/s of read + write traffic)" % (bw / 1e9, 2 * bw / 1e9))
    print()
    print("%-34s %11s %11s %8s %7s  %s" % ("benchmark", "libdl", "torch", "ratio", "target", ""))

    results = []

    def bench(label, dl_fn, th_fn, n, target, warmup=3):
        for fn in (dl_fn, th_fn):
            for _ in range(warmup):
                fn()
        # alternate the libraries repeat by repeat so drift hits both alike
        dl_t, th_t = [], []
        for _ in range(reps):
            dl_t.append(time_loop(dl_fn, n))
            th_t.append(time_loop(th_fn, n))
        d, t = min(dl_t), min(th_t)
        ratio = d / t
        ok = ratio <= target
        results.append(ok)
        print("%-34s %11s %11s %8.3f %7s  %s   (median %s / %s)" % (
            label, fmt(d), fmt(t), ratio, "<=%.2f" % target, "PASS" if ok else "MISS",
            fmt(statistics.median(dl_t)).strip(), fmt(statistics.median(th_t)).strip()))
        sys.stdout.flush()

    # 1. per-op overhead: a + b on 10 floats, from Python
    a_np = rng.standard_normal(10).astype(np.float32)
    b_np = rng.standard_normal(10).astype(np.float32)
    da, db = Dl.from_numpy(a_np.copy()), Dl.from_numpy(b_np.copy())
    ta, tb = torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())
    assert np.array_equal((da + db).numpy(), (ta + tb).numpy())
    bench("overhead: a + b, 10 float32", lambda: da + db, lambda: ta + tb,
          n=20000 if not args.quick else 5000, target=1.0, warmup=1000)

    # 2. bandwidth-bound: a + b on 16M float32, fresh output each call
    n16 = 16 * 1024 * 1024
    a_np = rng.standard_normal(n16, dtype=np.float32)
    b_np = rng.standard_normal(n16, dtype=np.float32)
    da, db = Dl.from_numpy(a_np), Dl.from_numpy(b_np)
    ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
    assert np.array_equal((da + db).numpy()[:1000], (ta + tb).numpy()[:1000])
    bench("a + b, 16M float32 (fresh output)", lambda: da + db, lambda: ta + tb,
          n=5, target=1.0)

    # 3. compute-bound: sgemm 1024 x 1024
    a_np = rng.standard_normal((1024, 1024), dtype=np.float32)
    b_np = rng.standard_normal((1024, 1024), dtype=np.float32)
    da, db = Dl.from_numpy(a_np), Dl.from_numpy(b_np)
    ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
    np.testing.assert_allclose((da @ db).numpy(), (ta @ tb).numpy(), rtol=1e-3, atol=1e-3)
    bench("sgemm 1024x1024 (a @ b)", lambda: da @ db, lambda: ta @ tb,
          n=3, target=1.05)

    print()
    print("%d of %d benchmarks meet their targets%s" % (
        sum(results), len(results), "" if all(results) else " (MISS lines above; not a failure)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
