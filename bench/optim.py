#!/usr/bin/python3
# optim.py: optimizer steps against PyTorch: one step of Adam (and of
# Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD) over 10M parameters in 10
# tensors, and one MLP training step.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/optim.py
#   [--rounds R] [--seconds S]
#
# Workloads, each written once for both libraries (`lib` is torch or Dl):
#   adam       Adam (lr 1e-3, default betas) step over 10 float32 tensors
#              of 1M elements with fixed gradients: the fused update
#              against torch's single-tensor loop (target <= 0.8)
#   adadelta, adamax, nadam, radam, rprop, asgd
#              the same with those optimizers at torch's defaults (one
#              fused kernel per tensor here; target <= 0.8)
#   mlp_step   Linear(784, 256), ReLU, Linear(256, 10), CrossEntropyLoss on
#              a batch of 128, backward, Adam step, zero_grad
#              (target <= 1.0)
# Method as bench/autograd.py: numpy and torch imported first, torch on
# os.cpu_count() threads; per workload R rounds, each timing a loop of
# about S seconds of torch then of libdl after 200 ms of quiet and 15 ms
# of untimed calls; the least time per call of each; ratio = libdl /
# torch. Always exits 0.

import argparse
import os

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import print_table  # noqa: E402



def optimizer_step(lib, params_np, grads_np, name="Adam", **kw):
    params = [lib.from_numpy(p.copy()).requires_grad_() for p in params_np]
    for p, g in zip(params, grads_np):
        p.grad = lib.from_numpy(g.copy())
    opt = getattr(lib.optim, name)(params, **kw)

    def run():
        opt.step()
    return run


def mlp_step(lib, x_np, y_np):
    lib.manual_seed(0)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    x = lib.from_numpy(x_np.copy())
    y = lib.from_numpy(y_np.copy())

    def run():
        opt.zero_grad(set_to_none=True)
        crit(net(x), y).backward()
        opt.step()
    return run



def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=0.3)
    args = p.parse_args()
    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    params = [rng.standard_normal(1_000_000, dtype=np.float32) for _ in range(10)]
    grads = [rng.standard_normal(1_000_000, dtype=np.float32) for _ in range(10)]
    xb = rng.standard_normal((128, 784), dtype=np.float32)
    yb = rng.integers(0, 10, size=128)
    work = [
        ("adam", 0.8, lambda lib: optimizer_step(lib, params, grads, lr=1e-3)),
    ]
    for name in ("Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"):
        work.append((name.lower(), 0.8,
                     lambda lib, name=name: optimizer_step(lib, params, grads, name)))
    work += [
        ("mlp_step", 1.0, lambda lib: mlp_step(lib, xb, yb)),
    ]
    print_table(work, torch, Dl, args.rounds, args.seconds, warmup=2)

if __name__ == "__main__":
    main()
