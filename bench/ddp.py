#!/usr/bin/python3
# ddp.py: how much of DistributedDataParallel's communication the backward
# pass hides, on bench/mlp_step.py's MLP (784-256-256-10) and on the
# Fashion-MNIST CNN of examples/python/fashion_mnist.py (the model the DDP
# example trains), 2 processes on this machine over the MPI engine.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/ddp.py
#   [--steps N] [--batch B] [--bucket-cap-mb MB ...] [--bucket-view both|on|off]
#   [--model mlp|cnn|both]
# It starts itself under `mpirun -np 2` (as root: with
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 set).
#
# Method: each rank trains the model on B / 2 samples per step (SGD, momentum
# 0.9), after 10 warm-up steps, for N steps per bucket size, taking turns
# with a step of the same model alone (no DDP, its own optimizer) on the same
# B / 2 samples, both ranks at once, so that the two see the same moments
# of a busy machine. Per step it records the times of both steps, and the
# time the end of the DDP backward pass spent waiting for the buckets'
# sums (DlDistributedDataParallel's get_last_wait(): the communication not
# hidden). Then it times the same buckets summed synchronously, one after
# the other, with nothing to overlap (the communication's whole cost).
# Printed per bucket size, medians over the steps, rank 0's:
#   buckets      the buckets' sizes (elements)
#   comm         the synchronous sums of those buckets
#   exposed      the wait at the end of backward
#   hidden       1 - exposed / comm: the share of communication overlapped
#   step, local  the DDP step, and the model's step alone on half the batch
#   step/local   the median of the ratios of the pairs of steps
#   /slower      the median of the DDP step over the slower rank's local
#                step of the same pair: a synchronous step waits for the
#                slower rank, so this part of step/local is not DDP's own
#                cost but the ranks' spread (one core each, one busier)
# comm, timed from Python one collective at a time, includes each call's
# own overhead (the hand-over to the group's worker thread and the
# cross-rank metadata check), so it overstates what the buckets cost
# inside DDP, and `hidden` is an estimate.
# --model: the MLP, the CNN (421 642 parameters, 1.7 MB; batch norm
# buffers, which DDP broadcasts from rank 0 before each forward as torch's
# does, and dropout, as the example trains it), or both (the default), one
# after the other.
# --bucket-view: DDP with gradient_as_bucket_view False (off, the default),
# True (on), or both, one after the other for each bucket size (a row
# each, marked view=0 / view=1).
# With the default bucket_cap_mb (25) the whole MLP (1.08 MB) is one
# bucket, launched with the last gradient (fc1.weight's): nothing can be
# hidden then, as in PyTorch; smaller buckets start earlier. Under mpirun
# each rank is bound to one core, which its compute thread and its
# group's worker thread share: communication then costs the step its CPU
# time even when it overlaps (exposed reads about 0 when the worker ran in
# the compute thread's time slices), so step/local, not hidden, is what
# counts on a machine with a core per rank.

import argparse
import os
import statistics
import subprocess
import sys
import time


def worker(args):
    import numpy as np
    from gi.repository import Dl as torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                                    'examples', 'python'))
    import fashion_mnist
    nn = torch.nn
    dist = torch.distributed
    dist.init_process_group('mpi')
    rank, size = dist.get_rank(), dist.get_world_size()
    g = np.random.default_rng(rank)
    half = args.batch // size
    loss_fn = nn.CrossEntropyLoss()

    def mlp():
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                             nn.Linear(256, 10))

    def cnn():
        torch.manual_seed(0)
        return fashion_mnist.CNN()

    def sgd(model):
        return torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    models = {'mlp': [('MLP 784-256-256-10', mlp, (784,))],
              'cnn': [('Fashion-MNIST CNN', cnn, (1, 28, 28))]}
    models['both'] = models['mlp'] + models['cnn']
    views = {'off': [False], 'on': [True], 'both': [False, True]}[args.bucket_view]
    for title, make, sample_shape in models[args.model]:
        x = torch.from_numpy(g.standard_normal((half,) + sample_shape).astype(np.float32))
        y = torch.from_numpy(g.integers(0, 10, half))

        def step(model, opt):
            dist.barrier()
            t0 = time.perf_counter()
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
            return time.perf_counter() - t0

        local = make()
        local_opt = sgd(local)
        rows = []
        for cap, view in [(c, v) for c in args.bucket_cap_mb for v in views]:
            ddp = nn.parallel.DistributedDataParallel(make(), bucket_cap_mb=cap,
                                                      gradient_as_bucket_view=view)
            ddp_opt = sgd(ddp)
            sizes = list(ddp.get_bucket_sizes())
            # a local step and a DDP step in turn, so that both see the same
            # moments of a busy machine; the ratio is the median of the pairs'
            times, locals_, ratios, waits = [], [], [], []
            for i in range(10 + args.steps):
                t_local = step(local, local_opt)
                t_ddp = step(ddp, ddp_opt)
                if i >= 10:
                    times.append(t_ddp)
                    locals_.append(t_local)
                    ratios.append(t_ddp / t_local)
                    waits.append(ddp.get_last_wait())
            # the other ranks' local steps, for the slower-rank ratio
            mine = torch.tensor(locals_, dtype=torch.float64)
            every = [torch.zeros_like(mine) for _ in range(size)]
            dist.all_gather(every, mine)
            slowest = torch.stack(every).amax(0).tolist()
            slower = statistics.median(t / s for t, s in zip(times, slowest))
            bufs = [torch.zeros(n) for n in sizes]
            comm = []
            for i in range(10 + args.steps):
                dist.barrier()
                t0 = time.perf_counter()
                for b in bufs:
                    dist.all_reduce(b)
                if i >= 10:
                    comm.append(time.perf_counter() - t0)
            rows.append((cap, view, sizes, statistics.median(comm), statistics.median(waits),
                         statistics.median(times), statistics.median(locals_),
                         statistics.median(ratios), slower))
        if rank == 0:
            print('%s, %d ranks, %d samples per rank, %d steps'
                  % (title, size, half, args.steps), flush=True)
            for cap, view, sizes, comm, exposed, step_t, loc, ratio, slower in rows:
                print('bucket_cap_mb=%g view=%d buckets=%s comm=%.0f us exposed=%.1f us '
                      'hidden=%.0f%% step=%.2f ms local=%.2f ms step/local=%.2f /slower=%.2f'
                      % (cap, view, sizes, comm * 1e6, exposed * 1e6,
                         100 * max(0.0, 1 - exposed / comm), step_t * 1e3, loc * 1e3, ratio,
                         slower), flush=True)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--steps', type=int, default=50)
    p.add_argument('--batch', type=int, default=128)
    p.add_argument('--bucket-cap-mb', type=float, nargs='+', default=[25, 0.25, 0.05])
    p.add_argument('--bucket-view', choices=['off', 'on', 'both'], default='off',
                   help='gradient_as_bucket_view: False, True, or each in turn')
    p.add_argument('--model', choices=['mlp', 'cnn', 'both'], default='both')
    p.add_argument('--worker', action='store_true')
    args = p.parse_args()
    if args.worker:
        return worker(args)
    cmd = ['mpirun', '-np', '2', '--oversubscribe', sys.executable, os.path.abspath(__file__),
           '--worker', '--steps', str(args.steps), '--batch', str(args.batch),
           '--bucket-view', args.bucket_view, '--model', args.model,
           '--bucket-cap-mb'] + [str(c) for c in args.bucket_cap_mb]
    return subprocess.call(cmd)


if __name__ == '__main__':
    sys.exit(main())
