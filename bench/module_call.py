#!/usr/bin/python3
# module_call.py: the overhead of calling a module from Python, against
# PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/module_call.py
#   [--rounds R] [--seconds S]
#
# Workloads, each written once for both libraries (`lib` is torch or Dl,
# the latter through its PyTorch-compatible override, `from gi.repository
# import Dl as torch`):
#   linear     nn.Linear(16, 16) called on one row (1, 16) under no_grad:
#              module-call overhead, not math (target <= 1.0)
#   linear_ag  the same with autograd recording (target <= 1.0)
#   subclass   a Python nn.Module subclass holding two Linear(16, 16)
#              whose forward is fc2(relu(fc1(x))), on one row, no_grad
#              (target <= 1.0)
#   sequential Sequential(Linear(16, 16), ReLU(), Linear(16, 16)) on one
#              row, no_grad (target <= 1.0)
#   hooked     Linear(16, 16) with a forward hook that returns None
#              (target <= 1.0)
# Method as bench/autograd.py (bench/sidebyside.py): torch on
# os.cpu_count() threads; per workload R rounds, each timing a loop of
# about S seconds of torch then of libdl; the least time per call of each;
# ratio = libdl / torch. Always exits 0.

import argparse
import os

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import print_table  # noqa: E402


def make_net(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(16, 16)
            self.fc2 = lib.nn.Linear(16, 16)

        def forward(self, x):
            return self.fc2(lib.relu(self.fc1(x)))
    return Net()


def row(lib):
    return lib.tensor(np.random.default_rng(0).standard_normal((1, 16)).astype(np.float32))


def linear(lib):
    m = lib.nn.Linear(16, 16)
    x = row(lib)

    def call():
        with lib.no_grad():
            m(x)
    return call


def linear_ag(lib):
    m = lib.nn.Linear(16, 16)
    x = row(lib)
    return lambda: m(x)


def subclass(lib):
    m = make_net(lib)
    x = row(lib)

    def call():
        with lib.no_grad():
            m(x)
    return call


def sequential(lib):
    nn = lib.nn
    m = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 16))
    x = row(lib)

    def call():
        with lib.no_grad():
            m(x)
    return call


def hooked(lib):
    m = lib.nn.Linear(16, 16)
    m.register_forward_hook(lambda mod, i, o: None)
    x = row(lib)

    def call():
        with lib.no_grad():
            m(x)
    return call


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=0.3)
    args = p.parse_args()
    torch.set_num_threads(os.cpu_count())
    work = [
        ("linear", 1.0, linear),
        ("linear_ag", 1.0, linear_ag),
        ("subclass", 1.0, subclass),
        ("sequential", 1.0, sequential),
        ("hooked", 1.0, hooked),
    ]
    print_table(work, torch, Dl, args.rounds, args.seconds)


if __name__ == "__main__":
    main()
