#!/usr/bin/python3
# make-pytorch-fixtures.py: writes the small torch.save archives that the
# C, GJS and Vala tests of dl_pytorch_load_state_dict() read without
# Python. Run it from this folder with Debian's python3-torch:
#
#   /usr/bin/python3 make-pytorch-fixtures.py
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# pytorch-linear.pt     the state dict of nn.Linear(4, 3) (seed 0)
# pytorch-linear-io.pt  {"input": x of [2, 4], "output": that Linear (x)}
# pytorch-mixed.pt      a checkpoint {"model": {...}, "epoch": 3, "name": "m",
#                       "state": {0: {"step": t}}} whose values the C test
#                       computes: every dtype, views sharing one storage,
#                       non-contiguous strides, an offset, a 0-d and an
#                       empty tensor; see tests/c/test-pytorch-format.c
# pytorch-legacy-mixed.pt  the same checkpoint in PyTorch's legacy (pre-1.6,
#                       non-zip) format (_use_new_zipfile_serialization=False)
# pytorch-legacy-linear-p4.pt  pytorch-linear.pt's state dict in the legacy
#                       format with pickle protocol 4 (FRAMEs)
#
# The legacy files name their storages by memory address, so they differ
# from run to run in their keys (and the keys' order) only.

import collections
import os
import sys

import torch


def mixed():
    base = torch.arange(24, dtype=torch.float32) * 0.5      # 0, 0.5, ..., 11.5
    m = collections.OrderedDict()
    m["f32"] = base.view(4, 6)
    m["f32_t"] = base.view(4, 6).t()                         # shares the storage
    m["f32_slice"] = base.view(4, 6)[1:3, ::2]              # offset 6, strides (6, 2)
    m["f64"] = torch.arange(6, dtype=torch.float64).view(2, 3) / 4
    m["f16"] = torch.arange(5, dtype=torch.float16) - 2
    m["bf16"] = torch.arange(5, dtype=torch.bfloat16) * 2
    m["i32"] = torch.arange(-3, 3, dtype=torch.int32)
    m["i64"] = torch.arange(4, dtype=torch.int64) * 1000000007
    m["u8"] = torch.arange(250, 256, dtype=torch.uint8)
    m["bool"] = torch.tensor([True, False, True])
    m["scalar"] = torch.tensor(7.25)
    m["empty"] = torch.zeros(0, 3)
    return {"model": m, "epoch": 3, "name": "m",
            "state": {0: {"step": torch.tensor(12.0)}}}


def main():
    out = os.path.dirname(os.path.abspath(__file__)) if len(sys.argv) < 2 else sys.argv[1]
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 3)
    x = torch.randn(2, 4)
    with torch.no_grad():
        y = lin(x)
    torch.save(lin.state_dict(), os.path.join(out, "pytorch-linear.pt"))
    torch.save({"input": x, "output": y}, os.path.join(out, "pytorch-linear-io.pt"))
    torch.save(mixed(), os.path.join(out, "pytorch-mixed.pt"))
    torch.save(mixed(), os.path.join(out, "pytorch-legacy-mixed.pt"),
               _use_new_zipfile_serialization=False)
    torch.save(lin.state_dict(), os.path.join(out, "pytorch-legacy-linear-p4.pt"),
               _use_new_zipfile_serialization=False, pickle_protocol=4)


if __name__ == "__main__":
    main()
