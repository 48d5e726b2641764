#!/usr/bin/python3
# pytorch_reader.py: loading a state dict that torch.save wrote, the C
# reader (Dl.pytorch_load_state_dict, libdl/data/dl-pytorch-format.c)
# against torch.load of the same file.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`, nothing else running):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 \
#   bench/pytorch_reader.py [--size-mb 400] [--tensors 100] [--rounds 5] [--dir /tmp]
#   [--legacy]
#
# The state dict: --tensors float32 tensors of seeded random values,
# --size-mb in all (400 MB: 100 tensors of 1M elements), written once by
# torch.save. The file is in the page cache (just written; the script does
# not drop caches on a shared machine). Two workloads, each the least time
# of --rounds, alternating the libraries, ratio = libdl / torch:
#   load + one:  load, then sum one tensor from the middle (reads its pages)
#   load + all:  load, then sum every tensor (reads every page: the mapping
#                pays its page faults here instead of in the load)
# torch.load copies every storage out of the archive; the C reader maps the
# archive copy-on-write and runs the pickle. With --legacy, torch.save
# writes its legacy (pre-1.6, non-zip) stream instead, whose storages'
# bytes are not aligned for their dtype: the C reader copies each of them
# once. Always exits 0.

import argparse
import os
import sys
import tempfile

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl, Gio  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint import timed  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--size-mb', type=int, default=400)
    ap.add_argument('--tensors', type=int, default=100)
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--dir', default=None)
    ap.add_argument('--legacy', action='store_true',
                    help="PyTorch's legacy (pre-1.6, non-zip) format instead of the zip")
    args = ap.parse_args()
    torch.set_num_threads(os.cpu_count())

    n = args.size_mb * 1000 * 1000 // 4 // args.tensors
    rng = np.random.default_rng(0)
    names = ['layers.%03d.weight' % i for i in range(args.tensors)]
    pick = names[args.tensors // 2]
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        pt = os.path.join(d, 'x.pt')
        sd = {k: torch.from_numpy(rng.standard_normal(n, dtype=np.float32)) for k in names}
        expected = {k: float(t.double().sum()) for k, t in sd.items()}
        torch.save(sd, pt, _use_new_zipfile_serialization=not args.legacy)
        del sd
        print('state dict: %d float32 tensors of %d elements, torch.save file %.0f MB'
              % (args.tensors, n, os.path.getsize(pt) / 2 ** 20))
        gfile = Gio.File.new_for_path(pt)

        def check(v):
            """@v: the sum of the picked tensor, or a dict of the sums of all."""
            for k, got in (v.items() if isinstance(v, dict) else [(pick, v)]):
                assert abs(got - expected[k]) < 1e-2 * (1 + abs(expected[k])), (k, got)

        def torch_one():
            sd = torch.load(pt)
            return float(sd[pick].sum())

        def dl_one():
            sd = Dl.pytorch_load_state_dict(gfile, None)
            return float(sd.lookup(pick).sum().item())

        def torch_all():
            sd = torch.load(pt)
            return {k: float(t.sum()) for k, t in sd.items()}

        def dl_all():
            sd = Dl.pytorch_load_state_dict(gfile, None)
            return {k: float(sd.lookup(k).sum().item()) for k in names}

        for label, tf, df in (('load + one', torch_one, dl_one), ('load + all', torch_all, dl_all)):
            bt = bd = float('inf')
            for _ in range(args.rounds):
                t, v = timed(tf)
                bt = min(bt, t)
                check(v)
                t, v = timed(df)
                bd = min(bd, t)
                check(v)
            print('%-11s torch.load %8.1f ms   Dl.pytorch_load_state_dict %8.2f ms   ratio %.4f'
                  % (label, bt * 1e3, bd * 1e3, bd / bt), flush=True)


if __name__ == '__main__':
    main()
