#!/usr/bin/python3
# rnn.py: recurrent layers forward + backward against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/rnn.py
#   [--rounds R] [--seconds S]
#
# Workloads (float32, one layer, sequence 35, batch 32, 128 -> 256, the
# same weights in both libraries; forward from zero states, then backward
# of sum(output * g) with a fixed g, input and parameters requiring grad):
#   LSTM, GRU (target ratio <= 0.8 each) and the tanh RNN.
# Method: bench/sidebyside.py (torch on os.cpu_count() threads, the least
# time per call over R rounds of loops of S seconds); ratio = libdl/torch.
# Always exits 0.

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import parse_args, print_table  # noqa: E402

SEQ, BATCH, IN, HIDDEN = 35, 32, 128, 256


def workload(kind, x_np, g_np, state):
    def make(lib):
        layer = getattr(lib.nn, kind)(IN, HIDDEN)
        layer.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in state.items()})
        x = lib.from_numpy(x_np.copy()).requires_grad_()
        g = lib.from_numpy(g_np.copy())

        def run():
            x.grad = None
            for p in layer.parameters():
                p.grad = None
            out = layer(x)[0]
            out.backward(g)
        return run
    return make


def main():
    args = parse_args(__doc__, torch)
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((SEQ, BATCH, IN), dtype=np.float32)
    g_np = rng.standard_normal((SEQ, BATCH, HIDDEN), dtype=np.float32)
    work = []
    for kind, target in (("LSTM", 0.8), ("GRU", 0.8), ("RNN", 0.8)):
        state = {k: v.numpy().copy() for k, v in getattr(torch.nn, kind)(IN, HIDDEN)
                 .state_dict().items()}
        work.append((kind, target, workload(kind, x_np, g_np, state)))
    print_table(work, torch, Dl, args.rounds, args.seconds, warmup=2)


if __name__ == "__main__":
    main()
