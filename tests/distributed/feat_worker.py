# feat_worker.py: one rank of test_dist_features.py (started under mpirun
# or dl.distributed.run). Usage:
#
#   feat_worker.py SCENARIO BACKEND
#
# Scenarios: alltoall (all_to_all_single with unequal splits, all_to_all
# with tensors of different sizes, against the local computation),
# anysource (recv/irecv with src=None, 3 ranks), syncbn (SyncBatchNorm on
# each rank's share of a batch against BatchNorm on the whole batch),
# bucketview (DistributedDataParallel with gradient_as_bucket_view=True
# against the default), refs (async collectives on tensors with a toggle
# reference whose other references go before the wait). A rank prints
# "rank R: SCENARIO ok" when all is well and exits with status 1 after
# printing what differed otherwise.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import datetime
import sys

import numpy as np
from gi.repository import Dl as torch

dist = torch.distributed
nn = torch.nn
scenario, backend = sys.argv[1], sys.argv[2]
failures = []


def check(got, expected, what, atol=0.0, rtol=0.0):
    got = np.asarray(got)
    expected = np.asarray(expected)
    if got.shape != expected.shape or not np.allclose(got, expected, atol=atol, rtol=rtol):
        diff = np.max(np.abs(got - expected)) if got.shape == expected.shape else 'shape'
        failures.append('%s: got %s, expected %s (max diff %s)' % (what, got, expected, diff))


def arr(t):
    return t.detach().numpy().copy()


# ---- all_to_all with parts of any size -------------------------------------

def splits(s, r):
    """the rows rank s sends rank r (0 included)"""
    return (s * 2 + r * 3 + 1) % 4


def block(s, r, width):
    """what rank s sends rank r: splits(s, r) rows of width values"""
    n = splits(s, r)
    return (100 * s + 10 * r + np.arange(n * width, dtype=np.float64)).reshape(n, width)


def alltoall(rank, size):
    for dtype, np_dtype in ((torch.float32, np.float32), (torch.int64, np.int64)):
        width = 3
        send = np.concatenate([block(rank, r, width) for r in range(size)]).astype(np_dtype)
        expected = np.concatenate([block(s, rank, width) for s in range(size)]).astype(np_dtype)
        inp = torch.tensor(send, dtype=dtype)
        out = torch.full((expected.shape[0], width), -1, dtype=dtype)
        dist.all_to_all_single(out, inp, output_split_sizes=[splits(s, rank) for s in range(size)],
                               input_split_sizes=[splits(rank, r) for r in range(size)])
        check(arr(out), expected, 'all_to_all_single with splits (%s)' % dtype)
        # async, only input splits given on one side: output equal blocks
        # need equal receives, so give both again
        out2 = torch.zeros(expected.shape[0], width, dtype=dtype)
        work = dist.all_to_all_single(out2, inp, [splits(s, rank) for s in range(size)],
                                      [splits(rank, r) for r in range(size)], async_op=True)
        work.wait()
        check(arr(out2), expected, 'async all_to_all_single with splits (%s)' % dtype)
        # lists of tensors of different sizes (1-D, some empty)
        ins = [torch.tensor(block(rank, r, 1).reshape(-1).astype(np_dtype), dtype=dtype)
               for r in range(size)]
        outs = [torch.zeros(splits(s, rank), dtype=dtype) for s in range(size)]
        dist.all_to_all(outs, ins)
        for s in range(size):
            check(arr(outs[s]), block(s, rank, 1).reshape(-1).astype(np_dtype),
                  'all_to_all list from rank %d (%s)' % (s, dtype))
    # equal splits still work, with and without sizes
    inp = torch.arange(2 * size, dtype=torch.float32) + 10 * rank
    out = torch.zeros(2 * size)
    dist.all_to_all_single(out, inp, [2] * size, [2] * size)
    check(arr(out), np.concatenate([10 * s + np.arange(2 * rank, 2 * rank + 2)
                                    for s in range(size)]), 'equal splits')
    # a rank that expects other sizes than it is sent fails on every rank
    wrong = [splits(s, rank) for s in range(size)]
    wrong[0] += 1
    out = torch.zeros(sum(wrong), width)
    inp = torch.zeros(sum(splits(rank, r) for r in range(size)), width)
    try:
        dist.all_to_all_single(out, inp, wrong, [splits(rank, r) for r in range(size)])
        failures.append('mismatched splits did not fail')
    except RuntimeError as e:
        if 'which expects' not in str(e):
            failures.append('mismatched splits: %s' % e)
    # bad split sizes are this rank's own error (the others see it too)
    try:
        dist.all_to_all_single(torch.zeros(4), torch.zeros(4), [1] * (size + 1), [4] + [0] * (size - 1))
        failures.append('wrong number of splits did not fail')
    except RuntimeError as e:
        if 'one per rank' not in str(e) and 'rejected its arguments' not in str(e):
            failures.append('wrong number of splits: %s' % e)
    # the group is still usable
    t = torch.ones(2)
    dist.all_reduce(t)
    check(arr(t), np.full(2, float(size)), 'all_reduce after the failures')


# ---- receives from any source ----------------------------------------------

def anysource(rank, size):
    rounds = 3
    if rank == 0:
        seen = []
        for i in range(rounds * (size - 1)):
            t = torch.zeros(4)
            if i % 2:
                src = dist.recv(t, tag=7)
            else:
                work = dist.irecv(t, tag=7)
                work.wait()
                src = work.get_source_rank()
            check(arr(t)[1:], np.arange(1, 4) + 10 * src, 'payload from rank %d' % src)
            seen.append((src, int(t[0].item())))
        for s in range(1, size):
            got = [n for src, n in seen if src == s]
            if got != list(range(rounds)):
                failures.append('messages of rank %d: %s (in order 0..%d expected)'
                                % (s, got, rounds - 1))
        # a named receive still names its sender
        t = torch.zeros(4)
        if dist.recv(t, src=1, tag=8) != 1:
            failures.append('recv(src=1) did not return 1')
    else:
        for n in range(rounds):
            dist.send(torch.tensor([float(n), 10 * rank + 1., 10 * rank + 2., 10 * rank + 3.]),
                      dst=0, tag=7)
        if rank == 1:
            dist.send(torch.zeros(4), dst=0, tag=8)
    dist.barrier()


# ---- SyncBatchNorm -----------------------------------------------------------

def shares(n, size):
    """unequal shares of a batch of n: rank r gets bounds[r]:bounds[r+1]"""
    weights = np.arange(1, size + 1)
    bounds = np.concatenate([[0], np.cumsum(weights)]) * n // weights.sum()
    return bounds


def syncbn_case(rank, size, shape, layer, momentum, steps=2):
    rng = np.random.default_rng(1234 + len(shape))
    c = shape[1]
    bounds = shares(shape[0], size)
    lo, hi = bounds[rank], bounds[rank + 1]
    torch.manual_seed(0)
    ref = layer(c, momentum=momentum)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(rng.normal(size=c).astype(np.float32)))
        ref.bias.copy_(torch.tensor(rng.normal(size=c).astype(np.float32)))
    model = nn.Sequential(copy.deepcopy(ref))
    model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    sync = model[0]
    if type(sync).__name__ != 'SyncBatchNorm':
        failures.append('convert_sync_batchnorm left a %s' % type(sync).__name__)
        return
    what = '%s %s' % (layer.__name__, shape)
    for step in range(steps):
        x = (rng.normal(size=shape) * 3 + 1.5).astype(np.float32)
        g = rng.normal(size=shape).astype(np.float32)
        xw = torch.tensor(x, requires_grad=True)
        yw = ref(xw)
        (yw * torch.tensor(g)).sum().backward()
        xs = torch.tensor(x[lo:hi], requires_grad=True)
        ys = model(xs)
        (ys * torch.tensor(g[lo:hi])).sum().backward()
        check(arr(ys), arr(yw)[lo:hi], '%s step %d output' % (what, step), atol=2e-5, rtol=1e-4)
        check(arr(xs.grad), arr(xw.grad)[lo:hi], '%s step %d input grad' % (what, step),
              atol=2e-5, rtol=1e-4)
        for name in ('weight', 'bias'):
            grad = getattr(sync, name).grad.clone()
            dist.all_reduce(grad)
            check(arr(grad), arr(getattr(ref, name).grad), '%s step %d %s grad'
                  % (what, step, name), atol=1e-4, rtol=1e-4)
        check(arr(sync.running_mean), arr(ref.running_mean), '%s step %d running_mean'
              % (what, step), atol=1e-5, rtol=1e-5)
        check(arr(sync.running_var), arr(ref.running_var), '%s step %d running_var'
              % (what, step), atol=1e-5, rtol=1e-5)
        check(arr(sync.num_batches_tracked), arr(ref.num_batches_tracked),
              '%s num_batches_tracked' % what)
    # second derivatives: d/dweight of <d loss/d input, h>, with create_graph
    x = (rng.normal(size=shape) * 2).astype(np.float32)
    g = rng.normal(size=shape).astype(np.float32)
    h = rng.normal(size=shape).astype(np.float32)
    grads = []
    for net, xs, gs, hs in ((ref, x, g, h), (model, x[lo:hi], g[lo:hi], h[lo:hi])):
        xt = torch.tensor(xs, requires_grad=True)
        loss = (net(xt) * torch.tensor(gs)).sum()
        gx, = torch.autograd.grad(loss, xt, create_graph=True)
        layer = net if net is ref else sync
        ww, = torch.autograd.grad((gx * torch.tensor(hs)).sum(), layer.weight)
        grads.append(ww)
    dist.all_reduce(grads[1])
    check(arr(grads[1]), arr(grads[0]), '%s second derivative' % what, atol=1e-4, rtol=1e-3)
    # eval mode: BatchNorm with the running statistics, no communication
    model.eval()
    ref.eval()
    x = rng.normal(size=shape).astype(np.float32)
    check(arr(model(torch.tensor(x))), arr(ref(torch.tensor(x))), '%s eval' % what, atol=1e-5,
          rtol=1e-5)


def syncbn(rank, size):
    syncbn_case(rank, size, (7, 3, 4, 5), nn.BatchNorm2d, 0.1)
    syncbn_case(rank, size, (9, 4), nn.BatchNorm1d, None)
    syncbn_case(rank, size, (6, 2, 5), nn.BatchNorm1d, 0.3)
    # a SyncBatchNorm made directly, on an explicit group
    group = dist.new_group(list(range(size)))
    bn = nn.SyncBatchNorm(3, process_group=group)
    if bn.process_group is not group:
        failures.append('process_group is not the group given')
    x = torch.ones(2, 3, 2) * (rank + 1)
    y = bn(x)
    # the mean over the ranks is (size + 1) / 2: rank r's values are r + 1
    mean = (size + 1) / 2.0
    var = np.mean([(r + 1 - mean) ** 2 for r in range(size)])
    check(arr(y), np.full((2, 3, 2), (rank + 1 - mean) / np.sqrt(var + 1e-5), np.float32),
          'explicit group output', atol=1e-4, rtol=1e-4)
    check(arr(bn.running_mean), np.full(3, 0.1 * mean, np.float32), 'explicit group running_mean',
          atol=1e-6)
    try:
        bn(torch.ones(3))
        failures.append('a 1-D input did not fail')
    except ValueError as e:
        if 'expected at least 2D input' not in str(e):
            failures.append('1-D input: %s' % e)


# ---- gradient_as_bucket_view -------------------------------------------------

def bucketview(rank, size):
    torch.manual_seed(3)
    base = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    plain = nn.parallel.DistributedDataParallel(copy.deepcopy(base))
    view = nn.parallel.DistributedDataParallel(copy.deepcopy(base), gradient_as_bucket_view=True)
    if not view.gradient_as_bucket_view or not view.get_property('gradient-as-bucket-view'):
        failures.append('gradient_as_bucket_view is not set')
    opt_plain = torch.optim.SGD(plain.parameters(), lr=0.1, momentum=0.9)
    opt_view = torch.optim.SGD(view.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(50 + rank)
    params = list(view.module.parameters())
    ptrs = None
    for step in range(4):
        x = torch.tensor(rng.normal(size=(6, 5)).astype(np.float32))
        target = torch.tensor(rng.normal(size=(6, 3)).astype(np.float32))
        for model, opt in ((plain, opt_plain), (view, opt_view)):
            opt.zero_grad(set_to_none=(step == 2))
            ((model(x) - target) ** 2).mean().backward()
            opt.step()
        for (name, p), q in zip(plain.module.named_parameters(), params):
            check(arr(q.grad), arr(p.grad), 'step %d %s grad' % (step, name))
            check(arr(q), arr(p), 'step %d %s' % (step, name))
        # the gradients are views of one bucket (it holds all of them: the
        # model is far below the first bucket's 1 MiB), in reverse order
        starts = [p.grad.data_ptr() for p in params]
        ends = [s + p.numel() * p.element_size() for s, p in zip(starts, params)]
        for k in range(len(params) - 1):
            if ends[k + 1] != starts[k]:
                failures.append('step %d: grad %d does not follow grad %d in the bucket: %s'
                                % (step, k, k + 1, list(zip(starts, ends))))
        if ptrs is not None and starts != ptrs:
            failures.append('step %d: the gradients moved: %s then %s' % (step, ptrs, starts))
        ptrs = starts
    # the default mode does not share: its grads are separate tensors
    pstarts = [p.grad.data_ptr() for p in plain.module.parameters()]
    pends = [s + p.numel() * p.element_size() for s, p in zip(pstarts, plain.module.parameters())]
    if all(pends[k + 1] == pstarts[k] for k in range(len(pstarts) - 1)):
        failures.append('the default mode\'s grads are laid out as a bucket')


# ---- the worker threads' references ------------------------------------------

def refs(rank, size):
    for i in range(300):
        t = torch.full((16,), float(rank + i))
        t.dl_test_mark = i  # a Python attribute: PyGObject holds a toggle reference
        work = dist.all_reduce(t, async_op=True)
        keep = t if i % 3 == 0 else None
        del t
        work.wait()
        del work
        if keep is not None:
            expected = sum(r + i for r in range(size))
            check(arr(keep), np.full(16, float(expected), np.float32), 'all_reduce %d' % i)
        # a synchronous collective right after, on a tensor with a toggle
        # reference too (test-worker-refs.c checks on which thread the
        # references go; this checks that Python sees no hang nor loss)
        u = torch.ones(2)
        u.dl_test_mark = i
        dist.broadcast(u, 0)
    dist.barrier()


def main():
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=30))
    rank, size = dist.get_rank(), dist.get_world_size()
    globals()[scenario](rank, size)
    if failures:
        print('rank %d: %s FAILED:\n  %s' % (rank, scenario, '\n  '.join(failures)), flush=True)
        sys.exit(1)
    print('rank %d: %s ok' % (rank, scenario), flush=True)
    dist.destroy_process_group()


main()
