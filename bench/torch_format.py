#!/usr/bin/python3
# torch_format.py: PyTorch's own checkpoints: Dl.load against torch.load
# of one file torch.save wrote, and Dl.save against torch.save.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`, with nothing else
# running):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 \
#   bench/torch_format.py [--size-mb 400] [--tensors 100] [--rounds 3] [--dir /tmp]
#   [--legacy]
#
# The state dict: --tensors float32 tensors of seeded random values,
# --size-mb in all. torch.save writes it once (x.pt); both libraries load
# that same file from the page cache (it was just written): from its path
# (Dl.load maps it, torch.load copies each storage out of it) and from an
# io.BytesIO of its bytes (both copy the storages). Saving: torch.save of
# torch's tensors and Dl.save of libdl's (the same values) to a path and
# to an io.BytesIO. Each load also sums one tensor from the middle (which
# reads its pages). The least time of the rounds of each (bench/
# sidebyside.py's method: alternating, after untimed calls), torch with
# every core; ratio = libdl / torch (target <= 1.0). With --legacy, the
# file and both saves are PyTorch's legacy format
# (_use_new_zipfile_serialization=False), which both libraries read by
# copying every storage (libdl straight into the tensors' memory).

import io
import os
import sys
import tempfile

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sidebyside import least_times  # noqa: E402


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument('--size-mb', type=int, default=400)
    ap.add_argument('--tensors', type=int, default=100)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--dir', default=None)
    ap.add_argument('--legacy', action='store_true',
                    help="PyTorch's legacy (pre-1.6, non-zip) format instead of the zip")
    args = ap.parse_args()
    fmt = {'_use_new_zipfile_serialization': not args.legacy}
    torch.set_num_threads(os.cpu_count())

    n = args.size_mb * 1024 * 1024 // 4 // args.tensors
    rng = np.random.default_rng(0)
    arrays = {'layers.%03d.weight' % i: rng.standard_normal(n, dtype=np.float32)
              for i in range(args.tensors)}
    pick = 'layers.%03d.weight' % (args.tensors // 2)
    expected = float(arrays[pick].astype(np.float64).sum())
    expected_all = sum(float(a.astype(np.float64).sum()) for a in arrays.values())
    t_sd = {k: torch.from_numpy(a) for k, a in arrays.items()}
    d_sd = {k: Dl.from_numpy(a) for k, a in arrays.items()}

    def check(v):
        assert abs(v - expected) < 1e-2 * (1 + abs(expected)), (v, expected)

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        pt = os.path.join(d, 'x.pt')
        torch.save(t_sd, pt, **fmt)
        with open(pt, 'rb') as f:
            data = f.read()
        print('state dict: %d float32 tensors, %d MB; torch.save file %.0f MB (%s format)'
              % (args.tensors, args.size_mb, len(data) / 2 ** 20,
                 'legacy' if args.legacy else 'zip'))

        def load_path(lib):
            return lambda: check(float(lib.load(pt)[pick].sum()))

        def load_all(lib):
            # every tensor summed (all its pages read): a checkpoint put to use
            def run():
                sd = lib.load(pt)
                total = sum(float(t.sum()) for t in sd.values())
                assert abs(total - expected_all) < 1e-3 * (1 + abs(expected_all))
            return run

        def load_bytes(lib):
            return lambda: check(float(lib.load(io.BytesIO(data))[pick].sum()))

        def save_path(lib, sd):
            out = os.path.join(d, 'out-%s.pt' % lib.__name__.split('.')[-1])
            return lambda: lib.save(sd, out, **fmt)

        def save_bytes(lib, sd):
            return lambda: lib.save(sd, io.BytesIO(), **fmt)

        rows = [('load path', load_path(torch), load_path(Dl)),
                ('load+touch', load_all(torch), load_all(Dl)),
                ('load bytes', load_bytes(torch), load_bytes(Dl)),
                ('save path', save_path(torch, t_sd), save_path(Dl, d_sd)),
                ('save bytes', save_bytes(torch, t_sd), save_bytes(Dl, d_sd))]
        print('%-11s %11s %11s %7s' % ('', 'torch', 'libdl', 'ratio'))
        for name, tf, df in rows:
            bt, bd = least_times(tf, df, args.rounds, 0.0, warmup=1)
            print('%-11s %8.1f ms %8.1f ms %7.3f' % (name, bt * 1e3, bd * 1e3, bd / bt),
                  flush=True)
        # what Dl.save wrote loads in torch
        Dl.save(d_sd, os.path.join(d, 'dl.pt'), **fmt)
        check(float(torch.load(os.path.join(d, 'dl.pt'))[pick].sum()))


if __name__ == '__main__':
    main()
