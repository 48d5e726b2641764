#!/usr/bin/python3
# pool.py: average pooling, adaptive pooling, interpolation and padding,
# forward + backward, against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/pool.py
#   [--rounds R] [--seconds S]
#
# Workloads (float32, input (32, 64, 56, 56) requiring grad, forward then
# backward with a fixed output gradient):
#   avg3/2     avg_pool2d 3x3, stride 2, padding 1
#   avg2       avg_pool2d 2x2 (stride 2)
#   adapt7     adaptive_avg_pool2d to 7x7 (8x8 bins)
#   near2x     interpolate nearest, scale 2 (input (32, 64, 28, 28))
#   bilin2x    interpolate bilinear, scale 2 (input (32, 64, 28, 28))
#   reflect1   pad reflect 1 on each side
# Method as bench/conv.py (bench/sidebyside.py): torch on os.cpu_count()
# threads; the least time per call of each over R rounds; ratio = libdl /
# torch. Always exits 0.

import argparse
import os

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402,F401
import dl  # noqa: E402
from sidebyside import print_table  # noqa: E402

BIG = (32, 64, 56, 56)
SMALL = (32, 64, 28, 28)


def workload(shape, fn):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(shape, dtype=np.float32)
    g_shape = tuple(fn(torch, torch.from_numpy(x_np)).shape)
    g_np = rng.standard_normal(g_shape, dtype=np.float32)

    def make(lib):
        x = lib.from_numpy(x_np.copy()).requires_grad_()
        g = lib.from_numpy(g_np.copy())

        def run():
            x.grad = None
            fn(lib, x).backward(g)
        return run
    return make


WORK = [
    ('avg3/2', 1.0, workload(BIG, lambda m, x: m.nn.functional.avg_pool2d(x, 3, 2, 1))),
    ('avg2', 1.0, workload(BIG, lambda m, x: m.nn.functional.avg_pool2d(x, 2))),
    ('adapt7', 1.0, workload(BIG, lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 7))),
    ('near2x', 1.0, workload(SMALL, lambda m, x: m.nn.functional.interpolate(x, scale_factor=2))),
    ('bilin2x', 1.0, workload(SMALL, lambda m, x: m.nn.functional.interpolate(
        x, scale_factor=2, mode='bilinear'))),
    ('reflect1', 1.0, workload(BIG, lambda m, x: m.nn.functional.pad(x, (1, 1, 1, 1),
                                                                     'reflect'))),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--seconds', type=float, default=0.3)
    args = ap.parse_args()
    torch.set_num_threads(os.cpu_count())
    print_table(WORK, torch, dl, args.rounds, args.seconds)


if __name__ == '__main__':
    main()
