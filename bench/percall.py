#!/usr/bin/python3
# percall.py: the per-call cost of small reductions, transcendental ops,
# softmax and comparisons from Python, libdl against PyTorch, on 10^2 to
# 10^4 elements, in both import orders: the Python side of
# bench/percall.cc (which compares libdl's C API with ATen's C++ one).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/percall.py
#   [--rounds R] [--only PATTERN]... [--order torch-first|dl-first]
#
# Ops (float32, uniform in [0.5, 2), so that log is defined): sum, mean,
# sum(dim=1), max, amax(dim=1), argmax(dim=1), exp, log, tanh, sigmoid,
# gelu, softmax(dim=1), x > y, x == y, x < 0.5, x + y, x * y; the dim ops on
# rows of 100 elements (10^2: one row).
#
# Method, as bench/scaling.py: each import order in a process of its own
# ("dl-first": libdl before torch and numpy);
# both libraries in it on the same values, PyTorch on os.cpu_count()
# threads; per point R rounds (default 7), each timing a loop of about
# 20 ms of libdl then of torch, each loop after 200 ms of quiet and 15 ms
# of untimed calls; the least time per call over the rounds of each; ratio
# = libdl / torch.  Outputs are fresh each call.  At the end: the
# geometric mean, the worst point and how many points are above 1.0 (the
# target is none).  Always exits 0.

import argparse
import math
import os
import subprocess
import sys
import time

SETTLE = 0.2
WARM = 0.015
SIZES = (100, 1000, 10000)


def time_loop(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def settle(fn):
    time.sleep(SETTLE)
    t0 = time.perf_counter()
    k = 0
    while k < 3 or time.perf_counter() - t0 < WARM:
        fn()
        k += 1


def measure(fd, ft, rounds, budget=0.02):
    settle(fd)
    one_d = min(time_loop(fd, 1) for _ in range(3))
    settle(ft)
    one_t = min(time_loop(ft, 1) for _ in range(3))
    n = max(1, min(200000, int(budget / max(one_d, one_t, 1e-7))))
    bd = bt = float("inf")
    for _ in range(rounds):
        settle(fd)
        bd = min(bd, time_loop(fd, n))
        settle(ft)
        bt = min(bt, time_loop(ft, n))
    return bd, bt


def ops(lib, x, y, m):
    gelu = (lambda t: t.gelu()) if hasattr(x, "gelu") else \
        (lambda t: lib.nn.functional.gelu(t))
    return [
        ("sum", lambda: x.sum()),
        ("mean", lambda: x.mean()),
        ("sum(dim=1)", lambda: m.sum(1)),
        ("max", lambda: x.max()),
        ("amax(dim=1)", lambda: m.amax(1)),
        ("argmax(dim=1)", lambda: m.argmax(1)),
        ("exp", lambda: x.exp()),
        ("log", lambda: x.log()),
        ("tanh", lambda: x.tanh()),
        ("sigmoid", lambda: x.sigmoid()),
        ("gelu", lambda: gelu(x)),
        ("softmax(dim=1)", lambda: m.softmax(1)),
        ("x > y", lambda: x > y),
        ("x == y", lambda: x == y),
        ("x < 0.5", lambda: x < 0.5),
        ("x + y", lambda: x + y),
        ("x * y", lambda: x * y),
    ]


def child(args):
    # "dl-first" means before numpy too: numpy then gets libdl's OpenMP
    # OpenBLAS (docs/threading.md)
    if args.order == "torch-first":
        import numpy as np
        import torch
        import gi
        gi.require_version("Dl", "1.0")
        from gi.repository import Dl
        Dl.zeros([1])
    else:
        import gi
        gi.require_version("Dl", "1.0")
        from gi.repository import Dl
        Dl.zeros([1])
        import torch
        import numpy as np
    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    only = [p.lower() for p in args.only]
    rows = []
    print("%-16s %7s %12s %12s %7s" % ("op", "size", "libdl", "torch", "ratio"))
    for n in SIZES:
        a = rng.uniform(0.5, 2.0, n).astype(np.float32)
        b = rng.uniform(0.5, 2.0, n).astype(np.float32)
        b[::3] = a[::3]                      # some equal elements for ==
        cols = min(100, n)
        dx, dy = Dl.from_numpy(a.copy()), Dl.from_numpy(b.copy())
        tx, ty = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
        dm, tm = dx.view(n // cols, cols), tx.view(n // cols, cols)
        for (label, fd), (_, ft) in zip(ops(Dl, dx, dy, dm), ops(torch, tx, ty, tm)):
            if only and not any(p in label.lower() for p in only):
                continue
            r, t = fd(), ft()
            r, t = (r[0], t[0]) if isinstance(t, tuple) else (r, t)
            np.testing.assert_allclose(np.asarray(r.numpy(), dtype=np.float64),
                                       np.asarray(t.numpy(), dtype=np.float64),
                                       rtol=1e-4, atol=1e-5, err_msg=label)
            d, tt = measure(fd, ft, args.rounds)
            rows.append((label, n, d, tt))
            print("%-16s %7d %9.2f us %9.2f us %7.2f" % (label, n, d * 1e6, tt * 1e6, d / tt),
                  flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--order", choices=["torch-first", "dl-first"])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--only", action="append", default=[])
    args = p.parse_args()
    if args.order:
        rows = child(args)
        if rows:
            ratios = [d / t for (_, _, d, t) in rows]
            worst = max(rows, key=lambda r: r[2] / r[3])
            print("RESULT geomean %.3f worst %.2f (%s %s) above-1.0 %d of %d" % (
                math.exp(sum(map(math.log, ratios)) / len(ratios)), worst[2] / worst[3],
                worst[0], worst[1], sum(r > 1.0 for r in ratios), len(ratios)))
        return
    for order in ("torch-first", "dl-first"):
        print("\n== import order: %s ==" % order, flush=True)
        cmd = [sys.executable, os.path.abspath(__file__), "--order", order,
               "--rounds", str(args.rounds)]
        for pat in args.only:
            cmd += ["--only", pat]
        subprocess.run(cmd, check=False)


if __name__ == "__main__":
    main()
