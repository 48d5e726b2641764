# ddp_worker.py: one rank of the DistributedDataParallel tests, started by
# `mpirun -np 2` (test_ddp.py). Usage:
#
#   ddp_worker.py SCENARIO [BACKEND]
#
# BACKEND is mpi (the default) or gloo (the ranks then take RANK and
# WORLD_SIZE from mpirun's variables, and MASTER_ADDR and MASTER_PORT
# from the environment).
#
# Every rank also trains, by itself, a replica on the whole of every
# batch from the same initial weights: DistributedDataParallel on half of
# each batch per rank must end with that replica's weights. A rank prints
# "rank R: SCENARIO ok" when all is well and exits with status 1 after
# printing what differed otherwise.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import datetime
import os
import sys

import numpy as np
from gi.repository import Dl as torch

nn = torch.nn
scenario = sys.argv[1]
backend = sys.argv[2] if len(sys.argv) > 2 else 'mpi'

dist = torch.distributed
if backend == 'gloo':
    os.environ['RANK'] = os.environ['OMPI_COMM_WORLD_RANK']
    os.environ['WORLD_SIZE'] = os.environ['OMPI_COMM_WORLD_SIZE']
dist.init_process_group(backend, timeout=datetime.timedelta(seconds=30))
rank, size = dist.get_rank(), dist.get_world_size()
failures = []


def close(a, b, what, tol=1e-5):
    a = np.asarray(a.detach().tolist() if hasattr(a, 'detach') else a, dtype=np.float64)
    b = np.asarray(b.detach().tolist() if hasattr(b, 'detach') else b, dtype=np.float64)
    if a.shape != b.shape or not np.allclose(a, b, rtol=tol, atol=tol):
        failures.append('%s: max difference %s' % (
            what, np.abs(a - b).max() if a.shape == b.shape else (a.shape, b.shape)))


class Net(nn.Module):
    """A small CNN followed by an MLP head. (No BatchNorm: its statistics
    over half batches would make the ranks' gradients differ from the
    whole batch's.)"""

    def __init__(self, unused=False):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc1 = nn.Linear(4 * 4 * 4, 16)
        self.fc2 = nn.Linear(16, 3)
        if unused:
            self.spare = nn.Linear(16, 3)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


def batches(n, seed=7):
    g = np.random.default_rng(seed)
    return [(torch.tensor(g.standard_normal((8, 1, 6, 6)).astype(np.float32)),
             torch.tensor(g.integers(0, 3, 8))) for _ in range(n)]


def half(t):
    return t[rank * t.shape[0] // size:(rank + 1) * t.shape[0] // size]


def build(unused=False):
    # each rank starts from different weights: DDP copies rank 0's
    torch.manual_seed(100 + rank)
    model = Net(unused)
    torch.manual_seed(100)
    reference = Net(unused)
    return model, reference


def train(ddp, reference, accumulate):
    """SGD with momentum on DDP (half of each micro-batch per rank) and on
    the replica (whole micro-batches); @accumulate micro-batches per step,
    all but the last under no_sync()."""
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    data = batches(3 * accumulate)
    for step in range(3):
        opt.zero_grad()
        ref_opt.zero_grad()
        for j in range(accumulate):
            x, y = data[step * accumulate + j]
            if j < accumulate - 1:
                with ddp.no_sync():
                    loss_fn(ddp(half(x)), half(y)).backward()
            else:
                loss_fn(ddp(half(x)), half(y)).backward()
            loss_fn(reference(x), y).backward()
        opt.step()
        ref_opt.step()


if scenario == 'equivalence':
    for accumulate in (1, 2):
        model, reference = build()
        ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)
        if ddp.module is not model:
            failures.append('ddp.module is not the wrapped module')
        keys = list(ddp.state_dict())
        if keys != ['module.' + k for k in reference.state_dict()]:
            failures.append('state_dict keys %s' % keys)
        # rank 0's weights everywhere
        for (n, p), q in zip(model.named_parameters(), reference.parameters()):
            close(p, q, 'broadcast of %s' % n, tol=0)
        if len(ddp.get_bucket_sizes()) < 2:
            failures.append('expected several buckets, got %s' % ddp.get_bucket_sizes())
        train(ddp, reference, accumulate)
        for (n, p), q in zip(model.named_parameters(), reference.parameters()):
            close(p, q, 'accumulate=%d: %s after training' % (accumulate, n))
        # the replicas are equal on every rank
        for n, p in model.named_parameters():
            gathered = [torch.zeros_like(p) for _ in range(size)]
            dist.all_gather(gathered, p.detach().contiguous())
            close(gathered[0], gathered[-1], 'replicas of %s' % n, tol=0)
    # buffers: rank 0's at construction
    bn = nn.BatchNorm1d(3)
    bn.running_mean.fill_(float(rank))
    ddp = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(2, 3), bn))
    close(bn.running_mean, [0, 0, 0], 'running_mean broadcast from rank 0', tol=0)
    # and before each forward, every buffer at once (one broadcast of their
    # bytes): float and int64 buffers, one of them not contiguous
    bn2 = nn.BatchNorm1d(4)
    model = nn.Sequential(nn.Linear(2, 3), bn, nn.Linear(3, 4), bn2)
    model.register_buffer('grid', torch.zeros(3, 2).t())
    ddp = nn.parallel.DistributedDataParallel(model)
    with torch.no_grad():
        bn.running_var.fill_(float(rank + 2))
        bn2.running_mean.fill_(float(rank + 5))
        bn2.num_batches_tracked.fill_(rank + 7)
        model.grid.copy_(torch.arange(6.0).reshape(2, 3) + 10 * rank)
    model.eval()
    ddp(torch.ones(5, 2))
    close(bn.running_var, [2, 2, 2], 'running_var broadcast before forward', tol=0)
    close(bn2.running_mean, [5] * 4, 'a second BatchNorm\'s running_mean', tol=0)
    close(bn2.num_batches_tracked, 7, 'num_batches_tracked (int64)', tol=0)
    close(model.grid, np.arange(6.0).reshape(2, 3), 'a non-contiguous buffer', tol=0)
elif scenario == 'unused':
    model, reference = build(unused=True)
    ddp = nn.parallel.DistributedDataParallel(model)
    x, y = batches(1)[0]
    try:
        nn.CrossEntropyLoss()(ddp(half(x)), half(y)).backward()
        failures.append('backward with an unused parameter did not fail')
    except RuntimeError as e:
        for fragment in ("'spare.weight'", "'spare.bias'", 'find_unused_parameters=True'):
            if fragment not in str(e):
                failures.append('error %r lacks %r' % (str(e), fragment))
    model, reference = build(unused=True)
    ddp = nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
    train(ddp, reference, 1)
    for (n, p), q in zip(model.named_parameters(), reference.parameters()):
        close(p, q, 'find_unused_parameters: %s after training' % n)
    if model.spare.weight.grad is not None:
        failures.append('the unused parameter got a .grad')
elif scenario == 'mismatch':
    torch.manual_seed(0)
    model = nn.Linear(4, 3 + rank)
    try:
        nn.parallel.DistributedDataParallel(model)
        failures.append('different shapes across ranks were accepted')
    except (RuntimeError, ValueError) as e:
        if "parameter 'weight'" not in str(e) or '[3, 4]' not in str(e) or '[4, 4]' not in str(e):
            failures.append('error %r does not name the parameter and shapes' % str(e))
elif scenario == 'torch-gloo':
    import torch as real  # python3-torch, the reference
    import torch.distributed as rdist
    os.environ.setdefault('MASTER_ADDR', '127.0.0.1')
    # torch's own store on the next port (libdl's Gloo may hold MASTER_PORT)
    rdist.init_process_group('gloo', init_method='tcp://%s:%d' % (
        os.environ['MASTER_ADDR'], int(os.environ['MASTER_PORT']) + 1), rank=rank,
        world_size=size)
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 4))
    rmodel = real.nn.Sequential(real.nn.Linear(10, 32), real.nn.Tanh(), real.nn.Linear(32, 4))
    with real.no_grad():
        for p, q in zip(rmodel.parameters(), model.parameters()):
            p.copy_(real.tensor(np.asarray(q.detach().tolist(), dtype=np.float32)))
    ddp = nn.parallel.DistributedDataParallel(model)
    rddp = real.nn.parallel.DistributedDataParallel(rmodel)
    opt = torch.optim.Adam(ddp.parameters(), lr=0.01)
    ropt = real.optim.Adam(rddp.parameters(), lr=0.01)
    g = np.random.default_rng(11 + rank)  # each rank its own data
    for step in range(5):
        x = g.standard_normal((6, 10)).astype(np.float32)
        y = g.standard_normal((6, 4)).astype(np.float32)
        opt.zero_grad()
        ropt.zero_grad()
        loss = nn.MSELoss()(ddp(torch.tensor(x)), torch.tensor(y))
        rloss = real.nn.MSELoss()(rddp(real.tensor(x)), real.tensor(y))
        loss.backward()
        rloss.backward()
        opt.step()
        ropt.step()
        close(loss.item(), rloss.item(), 'loss at step %d' % step)
    for p, q in zip(model.parameters(), rmodel.parameters()):
        close(p, q.detach().numpy(), 'weights after training')
    rdist.destroy_process_group()
else:
    sys.exit('unknown scenario ' + scenario)

dist.destroy_process_group()
if failures:
    print('rank %d: %s FAILED\n  %s' % (rank, scenario, '\n  '.join(failures)), flush=True)
    sys.exit(1)
print('rank %d: %s ok' % (rank, scenario), flush=True)
