# dist_worker.py: one rank of the distributed tests (test_distributed.py
# starts it under mpirun or dl.distributed.run). Usage:
#
#   dist_worker.py SCENARIO BACKEND
#
# Every rank computes locally what each collective must give (it knows
# every rank's input: value() below) and compares it with what the engine
# gave; a rank prints "rank R: SCENARIO ok" when all is well, and exits
# with status 1 after printing what differed otherwise.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import datetime
import os
import sys
import time

import numpy as np
from gi.repository import Dl as torch

dist = torch.distributed
scenario, backend = sys.argv[1], sys.argv[2]

DTYPES = {'float32': np.float32, 'float64': np.float64, 'float16': np.float16,
          'bfloat16': np.float32, 'int32': np.int32, 'int64': np.int64, 'uint8': np.uint8,
          'bool': np.bool_}
OPS = ['SUM', 'PRODUCT', 'MIN', 'MAX', 'AVG']


def value(r, n, dtype, salt=0):
    """Rank @r's input: small integers, exact in every dtype through sums
    and products of up to 4 ranks."""
    i = np.arange(n)
    v = (r * 3 + i * 5 + salt) % 4
    if dtype == 'bool':
        return (r + i + salt) % 3 == 0
    if dtype == 'uint8':
        return (v + 1).astype(np.uint8)
    return (v - 1).astype(np.float64)


def tensor(values, dtype):
    return torch.tensor(np.asarray(values).tolist(), dtype=getattr(torch, dtype))


def reduced(op, n, dtype, size, salt=0):
    vals = [value(r, n, dtype, salt).astype(np.float64) for r in range(size)]
    if op in ('SUM', 'AVG'):
        out = np.sum(vals, axis=0)
        if dtype == 'bool':
            out = out > 0
    elif op == 'PRODUCT':
        out = np.prod(vals, axis=0)
    elif op == 'MIN':
        out = np.min(vals, axis=0)
    else:
        out = np.max(vals, axis=0)
    if op == 'AVG':
        out = out / size if dtype in ('float32', 'float64', 'float16', 'bfloat16') \
            else np.trunc(out / size)
    return np.asarray(out, dtype=np.float64)


failures = []


def check(got, expected, what):
    g = np.asarray(got.tolist(), dtype=np.float64).ravel()
    e = np.asarray(expected, dtype=np.float64).ravel()
    if g.shape != e.shape or not np.array_equal(g, e):
        failures.append('%s: got %s, expected %s' % (what, g.tolist(), e.tolist()))


def expect_error(fn, *fragments, what=''):
    try:
        fn()
    except RuntimeError as e:
        for f in fragments:
            if f not in str(e):
                failures.append('%s: error %r does not name %r' % (what, str(e), f))
        return str(e)
    failures.append('%s: no error' % what)
    return None


def finish(rank):
    if failures:
        for f in failures:
            print('rank %d: FAIL %s' % (rank, f), flush=True)
        sys.exit(1)
    print('rank %d: %s ok' % (rank, scenario), flush=True)


def collectives(rank, size):
    for dtype in DTYPES:
        for k, op in enumerate(OPS):
            if dtype == 'bool' and op == 'AVG':
                expect_error(lambda: dist.all_reduce(tensor(value(rank, 5, dtype), dtype),
                                                     dist.ReduceOp.AVG), 'avg', 'bool',
                             what='all_reduce avg bool')
                continue
            t = tensor(value(rank, 13, dtype, k), dtype)
            work = dist.all_reduce(t, op=getattr(dist.ReduceOp, op), async_op=bool(k % 2))
            if k % 2:
                work.wait()
                if not work.is_completed():
                    failures.append('all_reduce: work not completed after wait')
            else:
                assert work is None
            check(t, reduced(op, 13, dtype, size, k), 'all_reduce %s %s' % (op, dtype))

            t = tensor(value(rank, 6, dtype, k), dtype)
            dist.reduce(t, dst=size - 1, op=getattr(dist.ReduceOp, op))
            if rank == size - 1:
                check(t, reduced(op, 6, dtype, size, k), 'reduce %s %s' % (op, dtype))

            inputs = [tensor(value(rank, 3 * size, dtype, k)[3 * r:3 * r + 3], dtype)
                      for r in range(size)]
            out = torch.zeros(3, dtype=getattr(torch, dtype))
            dist.reduce_scatter(out, inputs, op=getattr(dist.ReduceOp, op))
            check(out, reduced(op, 3 * size, dtype, size, k)[3 * rank:3 * rank + 3],
                  'reduce_scatter %s %s' % (op, dtype))
            out = torch.zeros(3, dtype=getattr(torch, dtype))
            dist.reduce_scatter_tensor(out, tensor(value(rank, 3 * size, dtype, k), dtype),
                                       op=getattr(dist.ReduceOp, op))
            check(out, reduced(op, 3 * size, dtype, size, k)[3 * rank:3 * rank + 3],
                  'reduce_scatter_tensor %s %s' % (op, dtype))

        t = tensor(value(rank, 7, dtype, 1), dtype)
        dist.broadcast(t, src=size - 1)
        check(t, value(size - 1, 7, dtype, 1), 'broadcast %s' % dtype)

        outs = [torch.zeros(2, 2, dtype=getattr(torch, dtype)) for _ in range(size)]
        dist.all_gather(outs, tensor(value(rank, 4, dtype, 2), dtype).reshape(2, 2))
        for r in range(size):
            check(outs[r], value(r, 4, dtype, 2), 'all_gather %s from %d' % (dtype, r))
        flat = torch.zeros(4 * size, dtype=getattr(torch, dtype))
        dist.all_gather_into_tensor(flat, tensor(value(rank, 4, dtype, 2), dtype))
        check(flat, np.concatenate([value(r, 4, dtype, 2) for r in range(size)]),
              'all_gather_into_tensor %s' % dtype)

        gl = [torch.zeros(3, dtype=getattr(torch, dtype)) for _ in range(size)] \
            if rank == 0 else None
        dist.gather(tensor(value(rank, 3, dtype, 3), dtype), gl, dst=0)
        if rank == 0:
            for r in range(size):
                check(gl[r], value(r, 3, dtype, 3), 'gather %s from %d' % (dtype, r))
        out = torch.zeros(3, dtype=getattr(torch, dtype))
        sl = [tensor(value(r, 3, dtype, 4), dtype) for r in range(size)] \
            if rank == size - 1 else None
        dist.scatter(out, sl, src=size - 1)
        check(out, value(rank, 3, dtype, 4), 'scatter %s' % dtype)

        ins = [tensor(value(rank, 2 * size, dtype, 5)[2 * r:2 * r + 2], dtype)
               for r in range(size)]
        outs = [torch.zeros(2, dtype=getattr(torch, dtype)) for _ in range(size)]
        dist.all_to_all(outs, ins)
        for s in range(size):
            check(outs[s], value(s, 2 * size, dtype, 5)[2 * rank:2 * rank + 2],
                  'all_to_all %s from %d' % (dtype, s))
        out = torch.zeros(2 * size, dtype=getattr(torch, dtype))
        dist.all_to_all_single(out, tensor(value(rank, 2 * size, dtype, 5), dtype))
        check(out, np.concatenate([value(s, 2 * size, dtype, 5)[2 * rank:2 * rank + 2]
                                   for s in range(size)]), 'all_to_all_single %s' % dtype)

        # a ring of isend and irecv, larger than any eager buffer
        nxt, prv = (rank + 1) % size, (rank - 1) % size
        big = tensor(value(rank, 50000, dtype, 6), dtype)
        got = torch.zeros(50000, dtype=getattr(torch, dtype))
        s = dist.isend(big, nxt, tag=2)
        q = dist.irecv(got, prv, tag=2)
        q.wait()
        s.wait()
        check(got, value(prv, 50000, dtype, 6), 'isend/irecv %s' % dtype)
        if rank == 0:
            dist.send(tensor(value(0, 5, dtype, 7), dtype), 1)
        elif rank == 1:
            got = torch.zeros(5, dtype=getattr(torch, dtype))
            if dist.recv(got, 0) != 0:
                failures.append('recv: the sender is not 0')
            check(got, value(0, 5, dtype, 7), 'send/recv %s' % dtype)

    # picklable objects
    objs = [None] * size
    dist.all_gather_object(objs, {'rank': rank, 'name': 'r' * (rank + 1)})
    if objs != [{'rank': r, 'name': 'r' * (r + 1)} for r in range(size)]:
        failures.append('all_gather_object: %r' % objs)
    lst = ['from', size - 1, {'x': 1.5}] if rank == size - 1 else [None, None, None]
    dist.broadcast_object_list(lst, src=size - 1)
    if lst != ['from', size - 1, {'x': 1.5}]:
        failures.append('broadcast_object_list: %r' % lst)

    # a subgroup of the odd ranks; src and dst are global ranks
    g = dist.new_group([1, 3][:size // 2])
    if rank % 2:
        t = torch.tensor([float(rank)])
        dist.broadcast(t, src=1, group=g)
        check(t, [1.0], 'broadcast on a subgroup')
        dist.all_reduce(t, group=g)
        check(t, [float(len(dist.get_process_group_ranks(g)))], 'all_reduce on a subgroup')
        if dist.get_rank(g) != rank // 2 or dist.get_global_rank(g, 0) != 1:
            failures.append('subgroup ranks: %d, %d' % (dist.get_rank(g),
                                                        dist.get_global_rank(g, 0)))
    elif g is not dist.GroupMember.NON_GROUP_MEMBER or dist.get_rank(g) != -1:
        failures.append('new_group: a rank outside it got %r' % (g,))
    dist.barrier()


def mismatch(rank, size):
    # shapes, dtypes and collectives that differ: an error on every rank
    expect_error(lambda: dist.all_reduce(torch.zeros(2 + rank)), 'all_reduce', '[2]', '[3]',
                 what='shapes')
    expect_error(lambda: dist.all_reduce(torch.zeros(2, dtype=torch.int32 if rank else
                                                     torch.float32)), 'int32', 'float32',
                 what='dtypes')
    expect_error((lambda: dist.broadcast(torch.zeros(2), 0)) if rank else
                 (lambda: dist.all_reduce(torch.zeros(2))), 'broadcast', 'all_reduce',
                 what='collectives')
    expect_error(lambda: dist.all_gather([torch.zeros(2)] * size, torch.zeros(2 + rank)),
                 'all_gather', what='all_gather shapes')
    t = torch.ones(3)
    dist.all_reduce(t)
    check(t, [size] * 3, 'all_reduce after the errors')


def timeout(rank, size):
    """Rank 1 joins the collective only after the timeout has passed:
    rank 0 fails within the timeout, and its group is unusable after."""
    t = torch.ones(4)
    if rank == 0:
        start = time.monotonic()
        msg = expect_error(lambda: dist.all_reduce(t), 'all_reduce', 'timed out',
                           what='timeout')
        took = time.monotonic() - start
        print('rank 0: all_reduce failed after %.1f s: %s' % (took, msg), flush=True)
        if not 2.5 <= took <= 8:
            failures.append('the timeout of 3 s took %.1f s' % took)
        expect_error(lambda: dist.barrier(), 'unusable', what='after the timeout')
    else:
        # joins late: rank 0 may have given up on the collective, so this
        # rank succeeds or times out in turn, depending on the engine
        time.sleep(3.5)
        try:
            dist.all_reduce(t)
        except RuntimeError as e:
            if 'all_reduce' not in str(e):
                failures.append('the late all_reduce: %s' % e)


def dead(rank, size):
    """Rank 1 dies during training; rank 0 waits in an all_reduce."""
    t = torch.ones(4)
    dist.all_reduce(t)
    if rank == 1:
        print('rank 1: exiting abruptly', flush=True)
        os._exit(3)
    print('rank 0: waiting in all_reduce for the dead rank', flush=True)
    try:
        dist.all_reduce(t)
    except RuntimeError as e:
        print('rank 0: all_reduce failed: %s' % e, flush=True)
        sys.exit(2)
    failures.append('all_reduce with a dead peer returned')


def stuck(rank, size):
    """With the exchange of arguments off (DL_DISTRIBUTED_CHECK=0), the
    ranks call different collectives: both pass MPI's arrival round and
    block in MPI for good. The engine's watchdog ends the job once the
    timeout (2 s) and its grace have passed, instead of a hang forever."""
    t = torch.ones(1 << 18)
    print('rank %d: entering a mismatched collective' % rank, flush=True)
    if rank == 0:
        dist.all_reduce(t)
    else:
        dist.broadcast(t, 1)
    failures.append('a mismatched blocking collective returned')


def main():
    timeout_s = {'timeout': 3, 'dead': 4, 'stuck': 2}.get(scenario, 30)
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=timeout_s))
    rank, size = dist.get_rank(), dist.get_world_size()
    if dist.get_backend() != backend:
        failures.append('get_backend() is %r' % dist.get_backend())
    globals()[scenario](rank, size)
    finish(rank)
    if scenario != 'timeout':
        dist.destroy_process_group()


main()
