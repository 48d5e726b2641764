#!/usr/bin/python3
# scaling.py: libdl against PyTorch from 10^2 to 10^8 elements, in both
# import orders.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/scaling.py
#   [--quick] [--max-exp E] [--max-matmul N] [--rounds R] [--only PATTERN]...
#   [--order torch-first|dl-first]
#
# Each import order runs in a process of its own (this script starts them):
# "torch-first" imports numpy and torch before libdl, as most scripts
# start; "dl-first" imports gi.repository.Dl and creates a tensor (so
# that libdl and the libraries it links are loaded) before torch and
# numpy, which then get libdl's OpenMP OpenBLAS (docs/threading.md).  Which
# OpenBLAS builds each process mapped is printed under its table.
#
# --quick: 3 rounds, up to 10^7 elements and matmul 512; --order runs one
# order in this process only; --runs N runs each order N times, alternating,
# and ends with each point's median ratio over the runs (one run moves a
# point by 5-40 % on a shared machine, so that a point at parity lands on
# either side of 1.0; the median of several is the figure to quote).
#
# Ops: add, mul, exp, tanh, sum, sum(dim=1), max, softmax(dim=-1) on
# float32 with 10^2 .. 10^E elements (E = 8 unless --max-exp; the 2-d
# shape of sum(dim) and softmax has rows of 100 elements, or fewer for the
# smallest sizes); square float32 matmul of 16 .. 2048; and a Linear +
# ReLU layer (batch 64, n inputs, n outputs, n = 16 .. 2048) forward.
#
# Method, as bench.py: both libraries in one process on the same values,
# alternately, PyTorch on os.cpu_count() threads (libdl's defaults, which
# are the same OpenMP pool); per point R rounds, each timing a loop of
# about 20 ms (at least one call) of libdl then of torch; the least time
# per call over the rounds of each; ratio = libdl / torch (below 1 libdl
# is faster).  Each timed loop starts after 200 ms of quiet and 15 ms of
# untimed calls: PyTorch's GEMMs run on the pthread OpenBLAS's workers,
# libdl's on the OpenMP pool, and each pool's threads spin for some
# milliseconds after their last work, which would slow the other library's
# first calls (by up to 30x for a GEMM; docs/threading.md) and measure the
# switch, not the library; and the first calls after a pause wake sleeping
# threads, which here can cost both libraries' OpenMP regions 4-8 ms
# (docs/threading.md).  Outputs are fresh each call, as users write them.  At the
# end: the geometric mean of every ratio, the worst point, and how many
# points are above 1.0 (the target is none, and a geometric mean <= 0.8).
# The script always exits 0: benchmarks do not fail CI.

import argparse
import math
import os
import statistics
import subprocess
import sys
import time

# quiet time before each timed loop, longer than a thread pool spins after
# its last work (docs/threading.md)
SETTLE = 0.2
# then untimed calls for this long: the first calls after a pause wake the
# pool's sleeping threads, which on the VMs measured here can take a
# scheduler tick or two (docs/threading.md)
WARM = 0.015

OPS = ["add", "mul", "exp", "tanh", "sum", "sum(dim=1)", "max", "softmax(dim=-1)"]


def time_loop(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def settle(fn):
    """SETTLE seconds of quiet, then WARM seconds (and three calls at
    least) of untimed calls (see the header)."""
    time.sleep(SETTLE)
    t0 = time.perf_counter()
    k = 0
    while k < 3 or time.perf_counter() - t0 < WARM:
        fn()
        k += 1


def settled_loop(fn, n):
    """time_loop after settle()."""
    settle(fn)
    return time_loop(fn, n)


def calibrate(fn):
    settle(fn)
    return min(time_loop(fn, 1) for _ in range(3))


def measure(fd, ft, rounds, budget=0.02):
    """(least libdl time, least torch time) per call over `rounds`."""
    # calls per loop from the slower library's call, the least of three
    # after settle() (right after the other library's calls, one can take
    # milliseconds more)
    one = max(calibrate(fd), calibrate(ft), 1e-7)
    n = max(1, min(100000, int(budget / one)))
    bd = bt = float("inf")
    for _ in range(rounds):
        bd = min(bd, settled_loop(fd, n))
        bt = min(bt, settled_loop(ft, n))
    return bd, bt


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

    def wanted(label):
        return not only or any(p in label.lower() for p in only)

    rows = []

    def point(op, size, fd, ft, check=None):
        if not wanted(op):
            return
        if check is not None:
            r, t = check
            np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), rtol=1e-3,
                                       atol=1e-4)
        d, t = measure(fd, ft, args.rounds)
        rows.append((op, size, d, t))
        print("%-16s %10s %10.2f us %10.2f us %7.2f" % (op, size, d * 1e6, t * 1e6, d / t),
              flush=True)
        if args.machine:
            print("ROW\t%s\t%d\t%.9g\t%.9g" % (op, size, d, t), flush=True)

    print("%-16s %10s %13s %13s %7s" % ("op", "size", "libdl", "torch", "ratio"))
    for e in range(2, args.max_exp + 1):
        n = 10 ** e
        a = rng.standard_normal(n, dtype=np.float32)
        b = rng.standard_normal(n, dtype=np.float32)
        xa, ta = Dl.from_numpy(a.copy()), torch.from_numpy(a.copy())
        xb, tb = Dl.from_numpy(b.copy()), torch.from_numpy(b.copy())
        cols = min(100, n)
        xm, tm = xa.view(n // cols, cols), ta.view(n // cols, cols)
        point("add", n, lambda: xa + xb, lambda: ta + tb, (xa[:100] + xb[:100], ta[:100] + tb[:100]))
        point("mul", n, lambda: xa * xb, lambda: ta * tb)
        point("exp", n, lambda: xa.exp(), lambda: ta.exp(), (xa[:100].exp(), ta[:100].exp()))
        point("tanh", n, lambda: xa.tanh(), lambda: ta.tanh(), (xa[:100].tanh(), ta[:100].tanh()))
        point("sum", n, lambda: xa.sum(), lambda: ta.sum())
        point("sum(dim=1)", n, lambda: xm.sum(1), lambda: tm.sum(1),
              (xm[:3].sum(1), tm[:3].sum(1)))
        point("max", n, lambda: xa.max(), lambda: ta.max())
        point("softmax(dim=-1)", n, lambda: xm.softmax(-1), lambda: tm.softmax(-1),
              (xm[:3].softmax(-1), tm[:3].softmax(-1)))
        del xa, ta, xb, tb, xm, tm, a, b
    for s in (16, 32, 64, 128, 256, 512, 1024, 2048):
        if s > args.max_matmul:
            break
        a = rng.standard_normal((s, s), dtype=np.float32)
        b = rng.standard_normal((s, s), dtype=np.float32)
        xa, ta = Dl.from_numpy(a.copy()), torch.from_numpy(a.copy())
        xb, tb = Dl.from_numpy(b.copy()), torch.from_numpy(b.copy())
        point("matmul", s, lambda: xa @ xb, lambda: ta @ tb,
              (xa[:4] @ xb, ta[:4] @ tb) if s <= 256 else None)
        lin_d = Dl.nn.Linear(s, s)
        lin_t = torch.nn.Linear(s, s)
        with Dl.no_grad():
            lin_d.weight.copy_(Dl.from_numpy(lin_t.weight.detach().numpy().copy()))
            lin_d.bias.copy_(Dl.from_numpy(lin_t.bias.detach().numpy().copy()))
        xi = rng.standard_normal((64, s), dtype=np.float32)
        xd, xt = Dl.from_numpy(xi.copy()), torch.from_numpy(xi.copy())
        point("linear+relu", s, lambda: lin_d(xd).relu(), lambda: lin_t(xt).relu(),
              (lin_d(xd).relu(), lin_t(xt).relu()))
    maps = open("/proc/self/maps").read()
    libs = sorted({line.split()[-1] for line in maps.splitlines()
                   if "openblas" in line and line.split()[-1].startswith("/")})
    print("mapped OpenBLAS builds: " + ", ".join(os.path.dirname(x).split("/")[-1]
                                                   for x in libs))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--order", choices=["torch-first", "dl-first"])
    p.add_argument("--quick", action="store_true", help="fewer rounds, up to 10^7")
    p.add_argument("--max-exp", type=int, default=8)
    p.add_argument("--max-matmul", type=int, default=2048)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--only", action="append", default=[])
    p.add_argument("--runs", type=int, default=1,
                   help="run each order this many times; then print each point's median ratio")
    p.add_argument("--machine", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.quick:
        args.rounds = 3
        args.max_exp = min(args.max_exp, 7)
        args.max_matmul = min(args.max_matmul, 512)
    if args.order:
        rows = child(args)
        ratios = [d / t for (_, _, d, t) in rows]
        if ratios:
            worst = max(rows, key=lambda r: r[2] / r[3])
            print("RESULT geomean %.3f worst %.2f (%s %s) above-1.0 %d of %d" % (
                math.exp(sum(map(math.log, ratios)) / len(ratios)), worst[2] / worst[3],
                worst[0], worst[1], sum(r > 1.0 for r in ratios), len(ratios)))
        return
    ratios = {}  # (order, op, size) -> ratio of each run
    for run in range(args.runs):
        for order in ("torch-first", "dl-first"):
            print("\n== import order: %s%s ==" % (
                order, " (run %d of %d)" % (run + 1, args.runs) if args.runs > 1 else ""),
                flush=True)
            cmd = [sys.executable, os.path.abspath(__file__), "--order", order,
                   "--max-exp", str(args.max_exp), "--max-matmul", str(args.max_matmul),
                   "--rounds", str(args.rounds), "--machine"]
            for pat in args.only:
                cmd += ["--only", pat]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
            for line in proc.stdout:
                if line.startswith("ROW\t"):
                    _, op, size, d, t = line.rstrip("\n").split("\t")
                    ratios.setdefault((order, op, int(size)), []).append(float(d) / float(t))
                else:
                    print(line, end="", flush=True)
            proc.wait()
    if args.runs > 1:
        summary(ratios, args.runs)


def summary(ratios, runs):
    """Each point's median ratio over the runs, with the least and the
    greatest, per order; then the geometric mean of the medians and the
    points whose median is above 1.0."""
    for order in ("torch-first", "dl-first"):
        keys = [k for k in ratios if k[0] == order]
        if not keys:
            continue
        print("\n== %s: median ratio of %d runs ==" % (order, runs))
        print("%-16s %10s %7s %7s %7s" % ("op", "size", "median", "least", "most"))
        medians = []
        for k in keys:
            r = sorted(ratios[k])
            m = statistics.median(r)
            medians.append((m, k))
            print("%-16s %10s %7.2f %7.2f %7.2f" % (k[1], k[2], m, r[0], r[-1]))
        worst = max(medians)
        print("MEDIANS %s geomean %.3f worst %.2f (%s %s) above-1.0 %d of %d" % (
            order, math.exp(sum(math.log(m) for m, _ in medians) / len(medians)), worst[0],
            worst[1][1], worst[1][2], sum(m > 1.0 for m, _ in medians), len(medians)))


if __name__ == "__main__":
    main()
