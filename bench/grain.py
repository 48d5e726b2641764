#!/usr/bin/python3
# grain.py: the measured costs that the CPU backend's threading grain is
# set from: each float32 and float64 unary op's time per element on one
# thread, as a multiple of neg's (the cheapest, memory-bound op), which is
# the table unary_cost[] in libdl/backends/cpu/dl-cpu-pointwise.c, and
# where splitting over the threads starts to pay, for neg and for a costly
# op.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/grain.py
#
# Method: 10^5 elements uniform in [0.5, 2) (every op defined there), the
# least time per call over 5 loops of 200 calls, with OMP_NUM_THREADS=1
# (set before libdl loads); cost = time / neg's time, rounded.  The second
# part times x.neg() and x.sin() over sizes around the grain with the
# default threads against one (a child process), to show where threading
# starts to pay.  Always exits 0.

import os
import subprocess
import sys
import timeit

OPS = ["neg", "exp", "expm1", "log", "log1p", "log2", "sqrt", "rsqrt", "reciprocal", "sin",
       "cos", "tan", "tanh", "sigmoid", "erf", "relu", "gelu", "gelu_tanh", "silu", "abs",
       "sign", "floor", "ceil", "round", "trunc", "frac", "isnan", "isinf", "isfinite"]


def load():
    import gi
    gi.require_version("Dl", "1.0")
    from gi.repository import Dl
    import dl
    return Dl, dl


def call(dl, x, op):
    if op == "gelu":
        return lambda: dl.nn.functional.gelu(x)
    if op == "gelu_tanh":
        return lambda: dl.nn.functional.gelu(x, approximate="tanh")
    if op == "silu":
        return lambda: dl.nn.functional.silu(x)
    return getattr(x, op)


def per_call(fn, number=200):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def costs():
    import numpy as np
    Dl, dl = load()
    n = 100000
    a = np.random.default_rng(0).uniform(0.5, 2.0, n)
    print("%-12s %10s %8s %10s %8s" % ("op", "f32 ns/el", "cost", "f64 ns/el", "cost"))
    base = {}
    for op in OPS:
        row = []
        for name in ("float32", "float64"):
            x = Dl.from_numpy(a.astype(name))
            t = per_call(call(dl, x, op)) / n
            base.setdefault(name, t)
            row += [t * 1e9, t / base[name]]
        print("%-12s %10.3f %8.1f %10.3f %8.1f" % (op, *row), flush=True)


def split():
    import numpy as np
    Dl, _ = load()
    for op in ("neg", "sin"):
        for n in (1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000):
            x = Dl.from_numpy(np.random.default_rng(0).uniform(0.5, 2.0, n).astype("float32"))
            print("%s %d %.3f" % (op, n, per_call(getattr(x, op), 2000) * 1e6), flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        costs() if sys.argv[2] == "costs" else split()
        return
    me = os.path.abspath(__file__)
    env1 = dict(os.environ, OMP_NUM_THREADS="1")
    print("== per-element cost on one thread (cost: multiple of neg's)")
    subprocess.run([sys.executable, me, "--child", "costs"], env=env1, check=False)
    print("\n== time per call (us): one thread, then the default threads, with libdl's grain")
    one = subprocess.run([sys.executable, me, "--child", "split"], env=env1, check=False,
                         capture_output=True, text=True).stdout.split("\n")
    many = subprocess.run([sys.executable, me, "--child", "split"], check=False,
                          capture_output=True, text=True).stdout.split("\n")
    print("%-5s %8s %10s %10s" % ("op", "n", "1 thread", "default"))
    for a, b in zip(one, many):
        if a and b:
            op, n, t1 = a.split()
            print("%-5s %8s %10s %10s" % (op, n, t1, b.split()[2]))


if __name__ == "__main__":
    main()
