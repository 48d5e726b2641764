#!/usr/bin/python3
# ddp.py: how much of DistributedDataParallel's communication the backward
# pass hides, on bench/mlp_step.py's MLP (784-256-256-10), 2 processes on
# this machine over the MPI engine.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/ddp.py
#   [--steps N] [--batch B] [--bucket-cap-mb MB ...]
# It starts itself under `mpirun -np 2` (as root: with
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 set).
#
# Method: each rank trains the MLP on B / 2 samples per step (SGD, momentum
# 0.9), after 10 warm-up steps, for N steps per bucket size. Per step it
# records the time of the step, and the time the end of the backward pass
# spent waiting for the buckets' sums (DlDistributedDataParallel's
# get_last_wait(): the communication not hidden). Then it times the same
# buckets summed synchronously, one after the other, with nothing to
# overlap (the communication's whole cost), and a step of the MLP alone
# (no DDP) on B / 2 samples, both ranks at once. Printed per bucket size,
# medians over the steps, rank 0's:
#   buckets      the buckets' sizes (elements)
#   comm         the synchronous sums of those buckets
#   exposed      the wait at the end of backward
#   hidden       1 - exposed / comm: the share of communication overlapped
#   step/local   the DDP step over the MLP's step alone on half the batch
# comm, timed from Python one collective at a time, includes each call's
# own overhead (the hand-over to the group's worker thread and the
# cross-rank metadata check), so it overstates what the buckets cost
# inside DDP, and `hidden` is an estimate.
# With the default bucket_cap_mb (25) the whole MLP (1.08 MB) is one
# bucket, launched with the last gradient (fc1.weight's): nothing can be
# hidden then, as in PyTorch; smaller buckets start earlier.

import argparse
import os
import statistics
import subprocess
import sys
import time


def worker(args):
    import numpy as np
    from gi.repository import Dl as torch
    nn = torch.nn
    dist = torch.distributed
    dist.init_process_group('mpi')
    rank, size = dist.get_rank(), dist.get_world_size()
    g = np.random.default_rng(rank)
    half = args.batch // size
    x = torch.from_numpy(g.standard_normal((half, 784)).astype(np.float32))
    y = torch.from_numpy(g.integers(0, 10, half))
    loss_fn = nn.CrossEntropyLoss()

    def mlp():
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                             nn.Linear(256, 10))

    def timed_steps(model, n):
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        times, waits = [], []
        for i in range(10 + n):
            dist.barrier()
            t0 = time.perf_counter()
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
            if i >= 10:
                times.append(time.perf_counter() - t0)
                if hasattr(model, 'get_last_wait'):
                    waits.append(model.get_last_wait())
        return times, waits

    local, _ = timed_steps(mlp(), args.steps)
    rows = []
    for cap in args.bucket_cap_mb:
        ddp = nn.parallel.DistributedDataParallel(mlp(), bucket_cap_mb=cap)
        sizes = list(ddp.get_bucket_sizes())
        times, waits = timed_steps(ddp, args.steps)
        bufs = [torch.zeros(n) for n in sizes]
        comm = []
        for i in range(10 + args.steps):
            dist.barrier()
            t0 = time.perf_counter()
            for b in bufs:
                dist.all_reduce(b)
            if i >= 10:
                comm.append(time.perf_counter() - t0)
        rows.append((cap, sizes, statistics.median(comm), statistics.median(waits),
                     statistics.median(times)))
    if rank == 0:
        loc = statistics.median(local)
        print('MLP 784-256-256-10, %d ranks, %d samples per rank, %d steps; local step %.2f ms'
              % (size, half, args.steps, loc * 1e3), flush=True)
        for cap, sizes, comm, exposed, step in rows:
            print('bucket_cap_mb=%g buckets=%s comm=%.0f us exposed=%.1f us hidden=%.0f%% '
                  'step=%.2f ms step/local=%.2f'
                  % (cap, sizes, comm * 1e6, exposed * 1e6,
                     100 * max(0.0, 1 - exposed / comm), step * 1e3, step / loc), flush=True)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--steps', type=int, default=50)
    p.add_argument('--batch', type=int, default=128)
    p.add_argument('--bucket-cap-mb', type=float, nargs='+', default=[25, 0.25, 0.05])
    p.add_argument('--worker', action='store_true')
    args = p.parse_args()
    if args.worker:
        return worker(args)
    cmd = ['mpirun', '-np', '2', '--oversubscribe', sys.executable, os.path.abspath(__file__),
           '--worker', '--steps', str(args.steps), '--batch', str(args.batch),
           '--bucket-cap-mb'] + [str(c) for c in args.bucket_cap_mb]
    return subprocess.call(cmd)


if __name__ == '__main__':
    sys.exit(main())
