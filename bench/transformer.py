#!/usr/bin/python3
# transformer.py: TransformerEncoderLayer and MultiheadAttention forward +
# backward against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/transformer.py
#   [--rounds R] [--seconds S]
#
# Workloads (float32, train mode, sequence 64, batch 16, d_model 256, 4
# heads; forward, then backward with a fixed output gradient, the input and
# every parameter requiring grad; gradients set to None before each call):
#   enc p=0.1   TransformerEncoderLayer(256, 4, 1024), dropout 0.1 (default)
#   enc p=0     the same with dropout 0
#   mha         MultiheadAttention(256, 4) self-attention, need_weights=False
#               (what the layers use: the fused attention)
#   mha weights the same with need_weights=True (weights materialised)
# Method: bench/sidebyside.py (torch on os.cpu_count() threads, the least
# time per call over R alternating rounds); ratio = libdl / torch, target
# <= 1.0 for the encoder layer.  Always exits 0.

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import parse_args, print_table  # noqa: E402

L, N, E, H, FF = 64, 16, 256, 4, 1024


def make_encoder(dropout):
    def make(lib):
        rng = np.random.default_rng(0)
        layer = lib.nn.TransformerEncoderLayer(E, H, FF, dropout=dropout)
        layer.train()
        x = lib.from_numpy(rng.standard_normal((L, N, E), dtype=np.float32)).requires_grad_()
        g = lib.from_numpy(rng.standard_normal((L, N, E), dtype=np.float32))

        def run():
            layer.zero_grad(set_to_none=True)
            x.grad = None
            layer(x).backward(g)
        return run
    return make


def make_mha(need_weights):
    def make(lib):
        rng = np.random.default_rng(0)
        m = lib.nn.MultiheadAttention(E, H)
        x = lib.from_numpy(rng.standard_normal((L, N, E), dtype=np.float32)).requires_grad_()
        g = lib.from_numpy(rng.standard_normal((L, N, E), dtype=np.float32))

        def run():
            m.zero_grad(set_to_none=True)
            x.grad = None
            m(x, x, x, need_weights=need_weights)[0].backward(g)
        return run
    return make


def main():
    args = parse_args(__doc__, torch)
    print_table([("enc p=0.1", 1.0, make_encoder(0.1)),
                 ("enc p=0", 1.0, make_encoder(0.0)),
                 ("mha", 1.0, make_mha(False)),
                 ("mha weights", 1.0, make_mha(True))],
                torch, Dl, args.rounds, args.seconds, warmup=2)


if __name__ == "__main__":
    main()
