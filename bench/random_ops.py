#!/usr/bin/python3
# random_ops.py: the draws of the CPU generator against PyTorch. Both
# libraries run the same Mersenne Twister and the same transforms, so the
# numbers are equal (tests/python/test_torch_random_streams.py); this
# times them.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/random_ops.py
#   [--rounds R] [--seconds S]
#
# Workloads, each written once for both libraries (`lib` is torch or Dl),
# float32 unless named:
#   rand N, randn N     torch.rand / torch.randn of N elements
#   randint 1e6         integers in [0, 1000)
#   randperm 1e5        a permutation
#   dropout 1e6         F.dropout(x, 0.1) in training mode (the mask's
#                       draws and the scaled product)
#   bernoulli 1e6       bernoulli_(0.3) in place
#   multinomial         one sample from each of 64 rows of 50 000 weights
#                       (a language model's sampling step)
#   init Linear         nn.Linear(1024, 1024): its kaiming-uniform weights
# Target: each ratio <= 1.0. The draws are serial in both (one stream
# whose order fixes the numbers); the transforms after them are where a
# library can be faster.
# Method as bench/optim.py (sidebyside.py): numpy and torch imported
# first, torch on os.cpu_count() threads; per workload R rounds of about S
# seconds of torch then of libdl; the least time per call of each; ratio =
# libdl / torch. Always exits 0.

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import parse_args, print_table  # noqa: E402


def main():
    args = parse_args(__doc__, torch)
    x_np = np.random.default_rng(0).standard_normal(1_000_000, dtype=np.float32)
    w_np = np.random.default_rng(1).random((64, 50_000), dtype=np.float32)
    work = []
    for n in (1000, 100_000, 1_000_000):
        work.append(("rand %g" % n, 1.0, lambda lib, n=n: lambda: lib.rand(n)))
        work.append(("randn %g" % n, 1.0, lambda lib, n=n: lambda: lib.randn(n)))
    work += [
        ("randn f64 1e6", 1.0, lambda lib: lambda: lib.randn(1_000_000, dtype=lib.float64)),
        ("randint 1e6", 1.0, lambda lib: lambda: lib.randint(0, 1000, (1_000_000,))),
        ("randperm 1e5", 1.0, lambda lib: lambda: lib.randperm(100_000)),
    ]

    def dropout(lib):
        x = lib.from_numpy(x_np.copy())
        f = lib.nn.functional.dropout
        return lambda: f(x, 0.1, True)

    def bernoulli(lib):
        t = lib.empty(1_000_000)
        return lambda: t.bernoulli_(0.3)

    def multinomial(lib):
        w = lib.from_numpy(w_np.copy())
        return lambda: lib.multinomial(w, 1)

    def init_linear(lib):
        return lambda: lib.nn.Linear(1024, 1024)

    work += [
        ("dropout 1e6", 1.0, dropout),
        ("bernoulli 1e6", 1.0, bernoulli),
        ("multinomial", 1.0, multinomial),
        ("init Linear", 1.0, init_linear),
    ]
    print_table(work, torch, Dl, args.rounds, args.seconds, warmup=2)


if __name__ == "__main__":
    main()
