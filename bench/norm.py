#!/usr/bin/python3
# norm.py: batch, layer and group normalisation and max pooling, forward +
# backward, against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/norm.py
#   [--rounds R]
#
# Workloads (float32, forward, then backward with a fixed output gradient;
# input, weight and bias requiring grad):
#   batch_norm2d  (64, 64, 28, 28) in training mode, with running statistics
#   layer_norm    (64, 128, 768) over the last dim (a transformer's)
#   group_norm    (32, 64, 28, 28), 8 groups
#   max_pool2d    (64, 64, 56, 56), kernel 3, stride 2, padding 1 (a ResNet's)
# Method as bench/conv.py (bench/sidebyside.py): torch on os.cpu_count()
# threads; per workload R rounds alternating torch and libdl; the least
# time per call of each; ratio = libdl / torch (target <= 1.0 each).
# Always exits 0.

import math

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import least_times, parse_args  # noqa: E402


def make(lib, kind, x_np, c, g_np):
    x = lib.from_numpy(x_np.copy()).requires_grad_()
    g = lib.from_numpy(g_np.copy())
    F = lib.nn.functional
    w = lib.from_numpy(np.ones(c, np.float32)).requires_grad_()
    b = lib.from_numpy(np.zeros(c, np.float32)).requires_grad_()
    rm = lib.from_numpy(np.zeros(c, np.float32))
    rv = lib.from_numpy(np.ones(c, np.float32))
    fns = {
        'batch_norm2d': lambda: F.batch_norm(x, rm, rv, w, b, True),
        'layer_norm': lambda: F.layer_norm(x, (c,), w, b),
        'group_norm': lambda: F.group_norm(x, 8, w, b),
        'max_pool2d': lambda: F.max_pool2d(x, 3, 2, 1),
    }
    fn = fns[kind]

    def run():
        x.grad = w.grad = b.grad = None
        fn().backward(g)
    return run


def main():
    args = parse_args(__doc__, torch)
    rng = np.random.default_rng(0)
    work = [("batch_norm2d", (64, 64, 28, 28), 64),
            ("layer_norm", (64, 128, 768), 768),
            ("group_norm", (32, 64, 28, 28), 64),
            ("max_pool2d", (64, 64, 56, 56), 64)]
    print("%-13s %12s %12s %7s" % ("workload", "torch", "libdl", "ratio"))
    ratios = []
    for name, xs, c in work:
        x_np = rng.standard_normal(xs, dtype=np.float32)
        out_shape = (xs[0], xs[1], 28, 28) if name == 'max_pool2d' else xs
        g_np = rng.standard_normal(out_shape, dtype=np.float32)
        bt, bd = least_times(make(torch, name, x_np, c, g_np), make(Dl, name, x_np, c, g_np),
                             args.rounds, args.seconds, warmup=1)
        ratios.append(bd / bt)
        print("%-13s %9.2f ms %9.2f ms %7.2f" % (name, bt * 1e3, bd * 1e3, bd / bt), flush=True)
    print("geometric mean %.2f" % math.exp(sum(map(math.log, ratios)) / len(ratios)))


if __name__ == "__main__":
    main()
