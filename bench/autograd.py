#!/usr/bin/python3
# autograd.py: the cost of autograd against PyTorch: per-node bookkeeping on
# a long chain of small ops, softmax and cross_entropy forward + backward,
# and a 3-layer MLP forward + backward.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/autograd.py
#   [--rounds R]
#
# Workloads, each written once for both libraries (`lib` is torch or Dl):
#   chain      100 elementwise ops (mul, add, sin, mul by a tensor, ...) on
#              1000 float32 elements from a leaf, then autograd.grad of the
#              sum: mostly per-node bookkeeping (target <= 0.8)
#   softmax    softmax(dim=-1) of a (512, 1000) float32 leaf, backward with
#              a fixed gradient (target <= 0.8)
#   cross_ent  cross_entropy of (512, 1000) logits against integer labels,
#              backward (target <= 0.8)
#   mlp        Linear(784, 256), ReLU, Linear(256, 256), ReLU,
#              Linear(256, 10), cross_entropy, backward, batch 128
#              (target <= 1.0)
# Method (bench/sidebyside.py) as bench/mlp_step.py: numpy and torch imported first (as most
# scripts start), torch on os.cpu_count() threads; per workload R rounds,
# each timing a loop of about 0.1 s of torch then of libdl after 200 ms of
# quiet and 15 ms of untimed calls; the least time per call of each;
# ratio = libdl / torch.  Always exits 0.

import argparse
import os

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import print_table  # noqa: E402



def chain(lib, x_np):
    x = lib.from_numpy(x_np.copy()).requires_grad_()
    w = lib.from_numpy((x_np * 0.5).copy())

    def run():
        y = x
        for i in range(25):
            y = y * 1.001
            y = y + 0.5
            y = y.sin()
            y = y * w
        g, = lib.autograd.grad(y.sum(), x)
        return g
    return run


def softmax(lib, x_np, g_np):
    x = lib.from_numpy(x_np.copy()).requires_grad_()
    g = lib.from_numpy(g_np.copy())

    def run():
        x.grad = None
        x.softmax(-1).backward(g)
    return run


def cross_entropy(lib, x_np, y_np):
    x = lib.from_numpy(x_np.copy()).requires_grad_()
    y = lib.from_numpy(y_np.copy())

    def run():
        x.grad = None
        lib.nn.functional.cross_entropy(x, y).backward()
    return run


def mlp(lib, x_np, y_np):
    lib.manual_seed(0)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                        nn.Linear(256, 10))
    x = lib.from_numpy(x_np.copy())
    y = lib.from_numpy(y_np.copy())

    def run():
        for p in net.parameters():
            p.grad = None
        nn.functional.cross_entropy(net(x), y).backward()
    return run



def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=0.1)
    args = p.parse_args()
    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    v = rng.standard_normal(1000, dtype=np.float32)
    logits = rng.standard_normal((512, 1000), dtype=np.float32)
    gsm = rng.standard_normal((512, 1000), dtype=np.float32)
    labels = rng.integers(0, 1000, size=512)
    xb = rng.standard_normal((128, 784), dtype=np.float32)
    yb = rng.integers(0, 10, size=128)
    work = [
        ("chain", 0.8, lambda lib: chain(lib, v)),
        ("softmax", 0.8, lambda lib: softmax(lib, logits, gsm)),
        ("cross_ent", 0.8, lambda lib: cross_entropy(lib, logits, labels)),
        ("mlp", 1.0, lambda lib: mlp(lib, xb, yb)),
    ]
    print_table(work, torch, Dl, args.rounds, args.seconds, warmup=3)

if __name__ == "__main__":
    main()
