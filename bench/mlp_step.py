#!/usr/bin/python3
# mlp_step.py: one training step of a 784-256-256-10 MLP, libdl (from
# Python and from C) against PyTorch, at batch 16, 64 and 256, in both
# import orders.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/mlp_step.py
#   [--rounds R] [--steps N] [--c-program PATH]
#
# The step, written once for both libraries (`lib` is torch or Dl): zero_grad,
# forward through Linear(784, 256), ReLU, Linear(256, 256), ReLU,
# Linear(256, 10), CrossEntropyLoss against integer labels, backward, and
# SGD(lr=0.01, momentum=0.9).step(), on a fixed batch.  The C form is
# bench/mlp-step.c (built as build/bench/dl-bench-mlp-step), run as a
# process of its own beside this one.
#
# Method: each import order runs in a process of its own ("torch-first":
# numpy and torch before libdl; "dl-first": libdl loaded and used before
# torch and numpy are imported).  In it, for each batch: 20 warm-up steps of each
# library, then R rounds, each timing N steps of torch, of libdl from
# Python and of libdl from C (the C program's own least time over its
# rounds), each after 200 ms of quiet (the thread pools of the other
# library stop spinning) and 15 ms of untimed steps (the first calls after
# a pause wake sleeping threads); see bench/scaling.py and
# docs/threading.md.
# Printed: the least time per step of each, and ratio = libdl / torch.
# Target: ratio <= 0.8 for both.  Always exits 0.

import argparse
import os
import subprocess
import sys
import time

SETTLE = 0.2
WARM = 0.015
BATCHES = (16, 64, 256)


def build_step(lib, nn, optim, batch, x_np, y_np):
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                        nn.Linear(256, 10))
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    x = lib.from_numpy(x_np[:batch].copy())
    y = lib.from_numpy(y_np[:batch].copy())

    def step():
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def timed(step, n):
    time.sleep(SETTLE)
    # untimed steps first: the first calls after the pause wake sleeping
    # threads, a scheduler tick or two on the VMs measured (bench/scaling.py)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < WARM:
        step()
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t0) / n


def run_c(program, batch, steps):
    out = subprocess.run([program, str(batch), str(steps), "3"], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError("%s failed: %s" % (program, out.stderr.strip()))
    return float(out.stdout.split()[1])


def child(args):
    # "dl-first" means before numpy too: numpy then gets libdl's OpenMP
    # OpenBLAS (docs/threading.md)
    if args.order == "torch-first":
        import numpy as np
        import torch
        import gi
        gi.require_version("Dl", "1.0")
        from gi.repository import Dl
    else:
        import gi
        gi.require_version("Dl", "1.0")
        from gi.repository import Dl
        Dl.zeros([1]) @ Dl.zeros([1])
        import torch
        import numpy as np
    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((max(BATCHES), 784), dtype=np.float32)
    y_np = rng.integers(0, 10, size=max(BATCHES))
    have_c = os.access(args.c_program, os.X_OK)
    print("%-6s %12s %12s %12s %8s %8s" % ("batch", "torch", "libdl py", "libdl C",
                                          "py/torch", "C/torch"))
    for batch in BATCHES:
        ts = build_step(torch, torch.nn, torch.optim, batch, x_np, y_np)
        ds = build_step(Dl, Dl.nn, Dl.optim, batch, x_np, y_np)
        for _ in range(20):
            ts()
            ds()
        bt = bd = bc = float("inf")
        for _ in range(args.rounds):
            bt = min(bt, timed(ts, args.steps))
            bd = min(bd, timed(ds, args.steps))
            if have_c:
                time.sleep(SETTLE)
                bc = min(bc, run_c(args.c_program, batch, args.steps))
        print("%-6d %9.3f ms %9.3f ms %9s %8.2f %8s" % (
            batch, bt * 1e3, bd * 1e3, "%.3f ms" % (bc * 1e3) if have_c else "-", bd / bt,
            "%.2f" % (bc / bt) if have_c else "-"), flush=True)
    if not have_c:
        print("(no C program at %s: build it with ninja -C build)" % args.c_program)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--order", choices=["torch-first", "dl-first"])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--c-program", default=os.path.join(root, "build", "bench",
                                                        "dl-bench-mlp-step"))
    args = p.parse_args()
    if args.order:
        child(args)
        return
    for order in ("torch-first", "dl-first"):
        print("\n== import order: %s ==" % order, flush=True)
        subprocess.run([sys.executable, os.path.abspath(__file__), "--order", order,
                        "--rounds", str(args.rounds), "--steps", str(args.steps),
                        "--c-program", args.c_program], check=False)


if __name__ == "__main__":
    main()
