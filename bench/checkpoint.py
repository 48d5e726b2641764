#!/usr/bin/python3
# checkpoint.py: loading a checkpoint and reading one tensor, libdl's
# Dl.load of a safetensors file against torch.load of a torch.save file of
# the same tensors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/checkpoint.py
#   [--size-mb 400] [--tensors 100] [--rounds 3] [--dir /tmp]
#
# The checkpoint: --tensors float32 tensors of seeded random values,
# --size-mb in all, written once by torch.save (x.pt, PyTorch's zip) and
# once by Dl.save (x.safetensors). A round times, for each library, loading
# the file and summing one tensor from the middle (which reads its pages),
# as a script that loads a checkpoint to use part of it does. Both files
# are in the page cache (they were just written; the script does not drop
# caches on a shared machine), so this measures the work of the loaders,
# not the disk: torch.load copies every tensor out of the file, Dl.load
# maps the file and parses the header. The least time of the rounds of
# each; ratio = libdl / torch (target <= 0.5). Always exits 0.

import argparse
import os
import tempfile
import time

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--size-mb', type=int, default=400)
    ap.add_argument('--tensors', type=int, default=100)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--dir', default=None)
    args = ap.parse_args()
    torch.set_num_threads(2)

    n = args.size_mb * 1024 * 1024 // 4 // args.tensors
    rng = np.random.default_rng(0)
    arrays = {'layers.%03d.weight' % i: rng.standard_normal(n, dtype=np.float32)
              for i in range(args.tensors)}
    pick = 'layers.%03d.weight' % (args.tensors // 2)
    expected = float(arrays[pick].astype(np.float64).sum())

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        pt, st = os.path.join(d, 'x.pt'), os.path.join(d, 'x.safetensors')
        torch.save({k: torch.from_numpy(a) for k, a in arrays.items()}, pt)
        Dl.save({k: Dl.from_numpy(a) for k, a in arrays.items()}, st)
        del arrays
        print('checkpoint: %d float32 tensors, %.0f MB (torch.save %.0f MB, Dl.save %.0f MB)'
              % (args.tensors, args.size_mb, os.path.getsize(pt) / 2 ** 20,
                 os.path.getsize(st) / 2 ** 20))

        def torch_run():
            sd = torch.load(pt)
            return float(sd[pick].sum())

        def dl_run():
            sd = Dl.load(st)
            return float(sd[pick].sum())

        best_torch = best_dl = float('inf')
        for _ in range(args.rounds):
            t, v = timed(torch_run)
            assert abs(v - expected) < 1e-2 * (1 + abs(expected)), (v, expected)
            best_torch = min(best_torch, t)
            t, v = timed(dl_run)
            assert abs(v - expected) < 1e-2 * (1 + abs(expected)), (v, expected)
            best_dl = min(best_dl, t)
    print('load + read one tensor: torch.load %.1f ms, Dl.load %.2f ms, ratio %.4f (target <= 0.5)'
          % (best_torch * 1e3, best_dl * 1e3, best_dl / best_torch))


if __name__ == '__main__':
    main()
