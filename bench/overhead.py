#!/usr/bin/python3
# overhead.py: the per-call cost of Tensor methods from Python, libdl
# against PyTorch, on small tensors (where the binding, not the kernel,
# is most of the time).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/overhead.py
#   [--only PATTERN]... [--repeats R] [--quick]
#
# DL_PYTHON_OPERATORS=1 measures the Python methods instead of _dl_fast's.
#
# Method.  Both libraries run in this one process on a 10-element float32
# vector x (and y, and m, the same values as 2x5) copied from one numpy
# array; PyTorch with torch.set_num_threads(os.cpu_count()).  For each
# line: warm-up calls, then R rounds, each timing a loop of N calls of the
# libdl form and a loop of N calls of the torch form, in alternating order,
# so that noise from the rest of the machine hits both alike.  N is chosen
# so that a loop takes about 20 ms.  Printed: the least time per call of
# each library over the rounds, ratio = libdl / torch of those, the median
# of the R per-round ratios, and the spread of the per-round ratios
# (max / min), which says how noisy the line was.  Below 1 libdl is faster.

import argparse
import os
import statistics
import sys
import time

import numpy as np

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402

import torch  # noqa: E402


def cases(lib):
    """(label, function) pairs over lib (Dl or torch), for the same inputs."""
    a = np.random.RandomState(0).rand(10).astype(np.float32)
    x = lib.from_numpy(a.copy())
    y = lib.from_numpy(a.copy())
    z = lib.from_numpy(a.copy())         # written to by the in-place lines
    m = lib.from_numpy(a.copy()).view(2, 5)
    one = x.sum()
    w = lib.from_numpy(a.copy()).requires_grad_()
    (w * w).sum().backward()
    return [
        ('x + y', lambda: x + y),
        ('x * 2.0', lambda: x * 2.0),
        ('x.add(y)', lambda: x.add(y)),
        ('x.mul(2.0)', lambda: x.mul(2.0)),
        ('x.sub(y)', lambda: x.sub(y)),
        ('x.div(y)', lambda: x.div(y)),
        ('2.0 * x', lambda: 2.0 * x),
        ('-x', lambda: -x),
        ('x.neg()', lambda: x.neg()),
        ('x.relu()', lambda: x.relu()),
        ('x.sigmoid()', lambda: x.sigmoid()),
        ('x.tanh()', lambda: x.tanh()),
        ('x.exp()', lambda: x.exp()),
        ('x.log()', lambda: x.log()),
        ('x.sin()', lambda: x.sin()),
        ('x.cos()', lambda: x.cos()),
        ('x.abs()', lambda: x.abs()),
        ('x.sqrt()', lambda: x.sqrt()),
        ('x.rsqrt()', lambda: x.rsqrt()),
        ('x.sum()', lambda: x.sum()),
        ('x.sum(0)', lambda: x.sum(0)),
        ('m.sum(1, keepdim=True)', lambda: m.sum(1, keepdim=True)),
        ('m.sum(dim=(0, 1))', lambda: m.sum(dim=(0, 1))),
        ('x.mean()', lambda: x.mean()),
        ('m.mean(1)', lambda: m.mean(1)),
        ('x.max()', lambda: x.max()),
        ('m.max(1)', lambda: m.max(1)),
        ('x.min()', lambda: x.min()),
        ('m.min(dim=1, keepdim=True)', lambda: m.min(dim=1, keepdim=True)),
        ('x.argmax()', lambda: x.argmax()),
        ('m.argmax(dim=1)', lambda: m.argmax(dim=1)),
        ('x.view(2, 5)', lambda: x.view(2, 5)),
        ('x.reshape(5, 2)', lambda: x.reshape(5, 2)),
        ('x.view(2,5).t()', lambda: x.view(2, 5).t()),
        ('m.t()', lambda: m.t()),
        ('m.flatten()', lambda: m.flatten()),
        ('x.unsqueeze(0)', lambda: x.unsqueeze(0)),
        ('m.unsqueeze(1).squeeze()', lambda: m.unsqueeze(1).squeeze()),
        ('m.squeeze(0)', lambda: m.squeeze(0)),
        ('m.permute(1, 0)', lambda: m.permute(1, 0)),
        ('m.transpose(0, 1)', lambda: m.transpose(0, 1)),
        ('m.t().contiguous()', lambda: m.t().contiguous()),
        ('x.contiguous()', lambda: x.contiguous()),
        ('x.expand(3, 10)', lambda: x.expand(3, 10)),
        ('x.softmax(0)', lambda: x.softmax(0)),
        ('m.log_softmax(dim=1)', lambda: m.log_softmax(dim=1)),
        ('x.pow(2)', lambda: x.pow(2)),
        ('x ** 2', lambda: x ** 2),
        ('x > y', lambda: x > y),
        ('x == y', lambda: x == y),
        ('x < 0.5', lambda: x < 0.5),
        ('x.ge(y)', lambda: x.ge(y)),
        ('x.clamp(0, 1)', lambda: x.clamp(0, 1)),
        ('x.clamp(min=y)', lambda: x.clamp(min=y)),
        ('z.add_(y)', lambda: z.add_(y)),
        ('z.add_(1.0)', lambda: z.add_(1.0)),
        ('z.sub_(y)', lambda: z.sub_(y)),
        ('z.mul_(1.0)', lambda: z.mul_(1.0)),
        ('z.div_(1.0)', lambda: z.div_(1.0)),
        ('z.clamp_(-1, 1)', lambda: z.clamp_(-1, 1)),
        ('z += y', lambda: z.__iadd__(y)),
        ('z.zero_()', lambda: z.zero_()),
        ('z.fill_(0.5)', lambda: z.fill_(0.5)),
        ('z.copy_(y)', lambda: z.copy_(y)),
        ('x.clone()', lambda: x.clone()),
        ('x.detach()', lambda: x.detach()),
        ('x.shape', lambda: x.shape),
        ('x.size()', lambda: x.size()),
        ('x.size(0)', lambda: x.size(0)),
        ('x.dim()', lambda: x.dim()),
        ('x.ndim', lambda: x.ndim),
        ('x.numel()', lambda: x.numel()),
        ('x.dtype', lambda: x.dtype),
        ('x.device', lambda: x.device),
        ('x.requires_grad', lambda: x.requires_grad),
        ('w.grad', lambda: w.grad),
        ('x.is_leaf', lambda: x.is_leaf),
        ('one.item()', lambda: one.item()),
        ('x[0]', lambda: x[0]),
        ('m[:, 1]', lambda: m[:, 1]),
        ('x[0:2]', lambda: x[0:2]),
        ('m[1, 2:4]', lambda: m[1, 2:4]),
    ]


def time_loop(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--only', action='append', default=[],
                    help='run the lines whose label contains PATTERN (repeatable)')
    ap.add_argument('--repeats', type=int, default=7, help='rounds per line (default 7)')
    ap.add_argument('--quick', action='store_true', help='3 rounds of shorter loops')
    args = ap.parse_args()
    torch.set_num_threads(os.cpu_count())
    rounds = 3 if args.quick else args.repeats
    budget = 0.005 if args.quick else 0.02
    print('libdl / torch per call, 10-element float32, %d rounds, torch on %d threads%s'
          % (rounds, torch.get_num_threads(),
             ', Python methods' if os.environ.get('DL_PYTHON_OPERATORS') else ''))
    print('%-28s %9s %9s %7s %7s %7s' % ('', 'libdl ns', 'torch ns', 'ratio', 'median',
                                         'spread'))
    ratios = []
    for (label, fd), (_, ft) in zip(cases(Dl), cases(torch)):
        if args.only and not any(p.lower() in label.lower() for p in args.only):
            continue
        for _ in range(200):
            fd()
            ft()
        n = max(200, int(budget / max(time_loop(fd, 200), time_loop(ft, 200))))
        td, tt, per_round = [], [], []
        for r in range(rounds):
            if r % 2:
                b = time_loop(ft, n)
                a = time_loop(fd, n)
            else:
                a = time_loop(fd, n)
                b = time_loop(ft, n)
            td.append(a)
            tt.append(b)
            per_round.append(a / b)
        ratio = min(td) / min(tt)
        ratios.append(ratio)
        print('%-28s %9.0f %9.0f %7.2f %7.2f %7.2f' % (label, min(td) * 1e9, min(tt) * 1e9, ratio,
                                                       statistics.median(per_round),
                                                       max(per_round) / min(per_round)))
        sys.stdout.flush()
    if ratios:
        print('geometric mean of the ratios: %.2f; worst %.2f'
              % (statistics.geometric_mean(ratios), max(ratios)))


if __name__ == '__main__':
    main()
