#!/usr/bin/python3
# unary.py: the float32 transcendental kernels, libdl against PyTorch, per
# element on one thread, at each x86-64 level libdl builds.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/unary.py
#   [--rounds R] [--only PATTERN]... [--isa LEVEL[:CAPABILITY]]... [--sizes N,N,...]
#
# Ops: exp, log, tanh, sigmoid, gelu, gelu tanh (approximate='tanh'),
# silu, sin, cos, tan, expm1, log1p and log2 on float32 vectors of 10^3,
# 10^4 and 10^5 elements (--sizes), with values where each op does its
# work: uniform in [-10, 10] (log and log2: in (0, 100], log1p: in
# (-1, 99]).  Each configuration runs in a process of its own, with
# DL_CPU_ISA set to the level, which caps the level of libdl's kernels, and
# ATEN_CPU_CAPABILITY to PyTorch's matching one, which caps PyTorch's
# (its build has AVX-512, AVX2 and default kernels): x86-64-v4 against
# PyTorch's own pick on this CPU (AVX2 on the AMD EPYC these numbers were
# taken on) and against its AVX-512 kernels, x86-64-v3 against AVX2, x86-64
# (SSE2) against PyTorch's default (its kernels without AVX) and against its
# AVX2 ones.  --isa LEVEL[:CAPABILITY] picks configurations instead
# (CAPABILITY: avx512, avx2, default, or none for PyTorch's own pick).
#
# Method, as bench.py: one thread for both (OMP_NUM_THREADS=1 in the
# child's environment and torch.set_num_threads(1)), both libraries in one
# process on the same values, alternately; per point R rounds (default 7),
# each timing a loop of about 20 ms of libdl then of torch (in alternating
# order); the least time per call over the rounds of each, divided by the
# number of elements (ns per element); ratio = libdl / torch of those,
# median = the median of the per-round ratios (below 1 libdl is faster).
# Outputs are fresh each call, so the per-call costs (binding, allocation)
# are in the figures; at 10^3 they are a large part, at 10^5 a small one.
# At the end: the ratios at 10^4 elements, one column per level.  The
# script always exits 0: benchmarks do not fail CI.

import argparse
import os
import statistics
import subprocess
import sys
import time

CONFIGS = ["x86-64-v4:none", "x86-64-v4:avx512", "x86-64-v3:avx2", "x86-64:default",
           "x86-64:avx2"]
LEVELS = ["x86-64-v4", "x86-64-v3", "x86-64"]
OPS = ["exp", "log", "tanh", "sigmoid", "gelu", "gelu tanh", "silu", "sin", "cos", "tan", "expm1",
       "log1p", "log2"]


def time_loop(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def measure(fd, ft, rounds, budget=0.02):
    """(least libdl time, least torch time, median ratio) per call."""
    for _ in range(20):
        fd()
        ft()
    one = max(time_loop(fd, 20), time_loop(ft, 20), 1e-8)
    n = max(1, int(budget / one))
    td, tt, per_round = [], [], []
    for r in range(rounds):
        if r % 2:
            b = time_loop(ft, n)
            a = time_loop(fd, n)
        else:
            a = time_loop(fd, n)
            b = time_loop(ft, n)
        td.append(a)
        tt.append(b)
        per_round.append(a / b)
    return min(td), min(tt), statistics.median(per_round)


def cases(Dl, torch, x, t):
    F = torch.nn.functional
    return {
        "exp": (lambda: x.exp(), lambda: t.exp()),
        "log": (lambda: x.log(), lambda: t.log()),
        "tanh": (lambda: x.tanh(), lambda: t.tanh()),
        "sigmoid": (lambda: x.sigmoid(), lambda: t.sigmoid()),
        "gelu": (lambda: x.gelu(), lambda: F.gelu(t)),
        "gelu tanh": (lambda: x.gelu_tanh(), lambda: F.gelu(t, approximate="tanh")),
        "silu": (lambda: x.silu(), lambda: F.silu(t)),
        "sin": (lambda: x.sin(), lambda: t.sin()),
        "cos": (lambda: x.cos(), lambda: t.cos()),
        "tan": (lambda: x.tan(), lambda: t.tan()),
        "expm1": (lambda: x.expm1(), lambda: t.expm1()),
        "log1p": (lambda: x.log1p(), lambda: t.log1p()),
        "log2": (lambda: x.log2(), lambda: t.log2()),
    }


def child(args):
    import numpy as np
    import torch
    import gi
    gi.require_version("Dl", "1.0")
    from gi.repository import Dl

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    cap = torch.__config__.show().split("CPU capability usage: ")[1].split()[0]
    print("libdl DL_CPU_ISA=%s, torch %s, one thread" % (os.environ.get("DL_CPU_ISA", ""), cap))
    print("TORCHCAP %s" % cap)
    print("%-10s %7s %9s %9s %7s %7s" % ("op", "n", "libdl ns", "torch ns", "ratio", "median"))
    for op in OPS:
        if args.only and not any(p.lower() in op for p in args.only):
            continue
        for n in args.sizes:
            a = rng.uniform(-10, 10, size=n).astype(np.float32)
            if op in ("log", "log2"):
                a = np.abs(a) * 10 + np.float32(1e-3)
            elif op == "log1p":
                a = np.abs(a) * 10 - np.float32(0.999)
            x, t = Dl.from_numpy(a.copy()), torch.from_numpy(a.copy())
            fd, ft = cases(Dl, torch, x, t)[op]
            np.testing.assert_allclose(fd().numpy(), ft().numpy(), rtol=1e-5, atol=1e-6)
            d, tt, med = measure(fd, ft, args.rounds)
            print("%-10s %7d %9.3f %9.3f %7.2f %7.2f"
                  % (op, n, d / n * 1e9, tt / n * 1e9, d / tt, med), flush=True)
            print("RATIO %s %d %.4f" % (op, n, d / tt), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--only", action="append", default=[])
    p.add_argument("--isa", action="append")
    p.add_argument("--sizes", default="1000,10000,100000")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        child(args)
        return
    summary = {}
    configs = []
    for c in args.isa or CONFIGS:
        level, _, cap = c.partition(":")
        if level not in LEVELS:
            p.error("unknown level %s" % level)
        configs.append((level, cap or "none"))
    labels = []
    for level, cap in configs:
        env = dict(os.environ, DL_CPU_ISA=level, OMP_NUM_THREADS="1")
        env.pop("ATEN_CPU_CAPABILITY", None)
        if cap != "none":
            env["ATEN_CPU_CAPABILITY"] = cap
        print("\n== libdl %s, torch %s ==" % (level, cap), flush=True)
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "--rounds",
               str(args.rounds), "--sizes", ",".join(map(str, args.sizes))]
        for pat in args.only:
            cmd += ["--only", pat]
        out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=False).stdout
        label = level.replace("x86-64-", "") + "/?"
        for line in out.splitlines():
            if line.startswith("TORCHCAP "):
                label = level.replace("x86-64-", "") + "/" + line.split()[1]
            elif line.startswith("RATIO "):
                _, rest = line.split(" ", 1)
                op, n, r = rest.rsplit(" ", 2)
                summary[(label, op, int(n))] = float(r)
            else:
                print(line, flush=True)
        labels.append(label)
    for n in args.sizes:
        print("\nlibdl / torch per element at %d, one thread (libdl level / torch capability)" % n)
        print("%-10s" % "op" + "".join(" %14s" % lb for lb in labels))
        for op in OPS:
            if any((lb, op, n) in summary for lb in labels):
                print("%-10s" % op + "".join(" %14s" % ("%.2f" % summary[(lb, op, n)]
                                                         if (lb, op, n) in summary else "-")
                                             for lb in labels))


if __name__ == "__main__":
    main()
