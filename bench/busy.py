#!/usr/bin/python3
# busy.py: a small model's step while other processes keep the cores busy,
# libdl against PyTorch, both on as many threads as there are cores.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/busy.py
#   [--busy 0,1,2,5] [--seconds S]
#
# The step, written once for both libraries: a float64 linear layer of a
# 97x51 batch to 204 features (the products of pytorch/examples'
# time_sequence_prediction LSTMCell), sigmoid, tanh, a product, a sum and
# a full reduction. For each count of busy processes (each a Python loop
# that never sleeps), started and given a second to take the cores, the
# step runs for S seconds under libdl and then under torch, twice in
# alternation; printed: the mean time per step of each (the better of
# the two tries) and ratio = libdl / torch. What libdl does about a busy
# machine, and measurements: docs/threading.md. Always exits 0.

import argparse
import os
import subprocess
import sys
import time

import dl as Dl
import torch


def make_step(lib):
    gen = torch.Generator().manual_seed(0)
    arrays = [torch.randn(s, generator=gen, dtype=torch.float64).numpy()
              for s in ((97, 51), (204, 51), (204,), (97, 204))]
    x, w, b, y = (lib.from_numpy(a.copy()) for a in arrays)
    linear = lib.nn.functional.linear

    def step():
        h = linear(x, w, b)
        return (h.sigmoid() * y.tanh() + h).sum()
    return step


def per_step(step, seconds):
    for _ in range(50):
        step()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(50):
            step()
        n += 50
    return (time.perf_counter() - start) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--busy", default="0,1,2,5")
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    cores = os.cpu_count()
    torch.set_num_threads(cores)
    Dl.set_num_threads(cores)
    steps = {"libdl": make_step(Dl), "torch": make_step(torch)}
    print("cores %d; libdl and torch on %d threads each; time per step" % (cores, cores))
    print("%-16s %12s %12s %8s" % ("busy processes", "libdl", "torch", "ratio"))
    for count in (int(c) for c in args.busy.split(",")):
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(count)]
        try:
            time.sleep(1.0 if count else 0.2)
            best = {}
            for _ in range(2):
                for name, step in steps.items():
                    t = per_step(step, args.seconds)
                    best[name] = min(best.get(name, t), t)
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        print("%-16d %9.1f us %9.1f us %8.2f" % (count, best["libdl"] * 1e6,
                                                best["torch"] * 1e6,
                                                best["libdl"] / best["torch"]))


if __name__ == "__main__":
    main()
