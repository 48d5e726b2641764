#!/usr/bin/python3
# conv.py: convolutions forward + backward against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/conv.py
#   [--rounds R]
#
# Workloads (float32, forward, then backward with a fixed output gradient,
# input and weight both requiring grad):
#   3x3       input (64, 32, 28, 28), 64 filters 3x3, padding 1
#   1x1       ResNet shape: (32, 64, 56, 56), 128 filters 1x1
#   3x3/2     ResNet shape: (32, 64, 56, 56), 128 filters 3x3, stride 2, padding 1
#   3d        conv3d: (4, 16, 16, 32, 32), 32 filters 3x3x3, padding 1
# Method as bench/autograd.py: numpy and torch imported first, torch on
# os.cpu_count() threads; per workload R rounds, each timing a loop of
# about 0.3 s of torch then of libdl after 200 ms of quiet and 15 ms of
# untimed calls; the least time per call of each; ratio = libdl / torch
# (target <= 1.0 each, geometric mean <= 0.8).  Always exits 0.

import argparse
import math
import os

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import least_times  # noqa: E402



def make(lib, x_np, w_np, g_np, stride, padding):
    x = lib.from_numpy(x_np.copy()).requires_grad_()
    w = lib.from_numpy(w_np.copy()).requires_grad_()
    g = lib.from_numpy(g_np.copy())

    def run():
        x.grad = None
        w.grad = None
        conv = lib.nn.functional.conv3d if w_np.ndim == 5 else lib.nn.functional.conv2d
        conv(x, w, None, stride, padding).backward(g)
    return run



def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=0.3)
    args = p.parse_args()
    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    work = [("3x3", (64, 32, 28, 28), (64, 32, 3, 3), 1, 1),
            ("1x1", (32, 64, 56, 56), (128, 64, 1, 1), 1, 0),
            ("3x3/2", (32, 64, 56, 56), (128, 64, 3, 3), 2, 1),
            ("3d", (4, 16, 16, 32, 32), (32, 16, 3, 3, 3), 1, 1)]
    print("%-8s %12s %12s %7s" % ("conv", "torch", "libdl", "ratio"))
    ratios = []
    for name, xs, ws, stride, padding in work:
        x_np = rng.standard_normal(xs, dtype=np.float32)
        w_np = rng.standard_normal(ws, dtype=np.float32)
        conv = torch.nn.functional.conv3d if len(ws) == 5 else torch.nn.functional.conv2d
        out = conv(torch.from_numpy(x_np), torch.from_numpy(w_np), None, stride, padding)
        g_np = rng.standard_normal(tuple(out.shape), dtype=np.float32)
        bt, bd = least_times(make(torch, x_np, w_np, g_np, stride, padding),
                             make(Dl, x_np, w_np, g_np, stride, padding), args.rounds,
                             args.seconds, warmup=1)
        ratios.append(bd / bt)
        print("%-8s %9.2f ms %9.2f ms %7.2f" % (name, bt * 1e3, bd * 1e3, bd / bt), flush=True)
    print("geometric mean %.2f (target <= 0.8)" % math.exp(sum(map(math.log, ratios)) /
                                                       len(ratios)))


if __name__ == "__main__":
    main()
