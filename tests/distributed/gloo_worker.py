#!/usr/bin/python3
# gloo_worker.py: one rank of the two-process Gloo tests (test_gloo.py
# starts two, or three, of these with RANK, WORLD_SIZE, MASTER_ADDR and
# MASTER_PORT set).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: gloo_worker.py SCENARIO OUTDIR
#
#   collectives  every collective on every dtype, checked here against
#                numpy on the inputs every rank makes from its seed (any
#                world size up to 3)
#   tcp          all_reduce of every dtype in a group joined through
#                tcp://MASTER_ADDR:MASTER_PORT
#   mismatch     all_reduce of shapes that differ: an error on both ranks
#   dead         rank 1 leaves after a barrier; rank 0's all_reduce fails
#   compare      all_reduce and all_gather of seeded float32 data, saved to
#                OUTDIR as .npy for the test to compare with torch's Gloo
#   torch        the same through python3-torch's own Gloo
#
# A failed check raises: the worker exits non-zero with the traceback on
# stderr.

import os
import sys
import time

import numpy as np

SCENARIO, OUTDIR = sys.argv[1], sys.argv[2]
RANK = int(os.environ["RANK"])
SIZE = int(os.environ["WORLD_SIZE"])
N = 300
# and a size whose data no longer travels with the exchange of arguments
# (up to 2 MB with two ranks: the collectives of N elements finish
# within it), so that Gloo's own collectives run too (large())
N_LARGE = (1 << 20) + 3

if SCENARIO == "torch":
    import torch
    import torch.distributed as tdist

    tdist.init_process_group("gloo", init_method="env://", rank=RANK, world_size=2)
    x = torch.from_numpy(np.random.default_rng(7 + RANK).standard_normal(N).astype(np.float32))
    gathered = [torch.zeros(N) for _ in range(2)]
    tdist.all_gather(gathered, x)
    tdist.all_reduce(x)
    np.save(os.path.join(OUTDIR, "torch-%d-all_reduce.npy" % RANK), x.numpy())
    np.save(os.path.join(OUTDIR, "torch-%d-all_gather.npy" % RANK),
            np.concatenate([g.numpy() for g in gathered]))
    tdist.destroy_process_group()
    sys.exit(0)

import gi  # noqa: E402

gi.require_version("Dl", "1.0")
from gi.repository import Dl, GLib  # noqa: E402

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "bool"]
OPS = ["SUM", "PRODUCT", "MIN", "MAX", "AVG"]


def inputs(rank, n, dtype, seed=0):
    """Rank @rank's values (float64): small integers, so that every sum,
    product and mean of up to 3 ranks is exact in every dtype (uint8's
    products stay below 256)"""
    rng = np.random.default_rng(1000 * seed + 17 + rank)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(np.float64)
    if dtype == "uint8":
        return rng.integers(0, 7, n).astype(np.float64)
    return rng.integers(-4, 5, n).astype(np.float64)


def expected(op, every, dtype):
    """@op over the ranks' arrays @every, as the dtype holds it"""
    stack = np.stack(every)
    if dtype == "bool":
        any_, all_ = stack.any(axis=0), stack.all(axis=0)
        return {"SUM": any_, "MAX": any_, "PRODUCT": all_, "MIN": all_}[op].astype(np.float64)
    if op == "AVG":
        mean = stack.sum(axis=0) / len(every)
        if not dtype.startswith(("float", "bfloat")):
            return np.trunc(mean)
        # the mean of 3 is not exact: rounded to the dtype, as the result is
        return values(tensor(mean, dtype))
    return {"SUM": stack.sum(axis=0), "PRODUCT": stack.prod(axis=0),
            "MIN": stack.min(axis=0), "MAX": stack.max(axis=0)}[op]


def tensor(values, dtype):
    return Dl.tensor(values, dtype=getattr(Dl, dtype))


def values(t):
    return t.double().numpy()


def check(t, want, what):
    got = values(t)
    if not np.array_equal(got, want):
        bad = int(np.nonzero(got != want)[0][0])
        raise AssertionError("rank %d: %s: element %d is %r, expected %r"
                             % (RANK, what, bad, got[bad], want[bad]))


def done(work):
    assert work.is_completed()


def rooted_and_gathers(pg, every, dt, n, label):
    """broadcast from the last rank, reduce to rank 0 (the other ranks keep
    their values), all_gather_into_tensor and gather to the last rank, of
    the ranks' @every (@n elements each)"""
    size, last = pg.get_size(), pg.get_size() - 1
    mine = every[RANK]
    t = tensor(mine, dt)
    done(pg.broadcast(t, last, False))
    check(t, every[last], "%sbroadcast %s" % (label, dt))
    t = tensor(mine, dt)
    done(pg.reduce(t, 0, Dl.ReduceOpKind.SUM, False))
    check(t, expected("SUM", every, dt) if RANK == 0 else mine, "%sreduce %s" % (label, dt))
    flat = tensor(np.zeros(size * n), dt)
    done(pg.all_gather_into_tensor(flat, tensor(mine, dt), False))
    check(flat, np.concatenate(every), "%sall_gather_into_tensor %s" % (label, dt))
    gl = [tensor(np.zeros(n), dt) for _ in range(size)] if RANK == last else None
    done(pg.gather(tensor(mine, dt), gl, last, False))
    for r in range(size if RANK == last else 0):
        check(gl[r], every[r], "%sgather %s part %d" % (label, dt, r))


def collectives(pg):
    size = pg.get_size()
    assert pg.get_rank() == RANK and size == SIZE
    assert pg.get_backend_name() == "gloo"

    def part(a, r):
        return a[r * N:(r + 1) * N]

    for dt in DTYPES:
        every = [inputs(r, N, dt) for r in range(size)]
        mine = every[RANK]
        for op in OPS:
            if dt == "bool" and op == "AVG":
                continue
            t = tensor(mine, dt)
            done(pg.all_reduce(t, getattr(Dl.ReduceOpKind, op), False))
            check(t, expected(op, every, dt), "all_reduce %s %s" % (op, dt))
        # async, waited for
        t = tensor(mine, dt)
        work = pg.all_reduce(t, Dl.ReduceOpKind.MAX, True)
        assert work.wait()
        check(t, expected("MAX", every, dt), "async all_reduce MAX %s" % dt)
        # a synchronous call behind queued asynchronous ones waits its turn
        # (a call on an idle lane runs on the caller's thread instead)
        queued = [tensor(mine, dt) for _ in range(3)]
        works = [pg.all_reduce(q, Dl.ReduceOpKind.MAX, True) for q in queued]
        t = tensor(mine, dt)
        done(pg.all_reduce(t, Dl.ReduceOpKind.MIN, False))
        check(t, expected("MIN", every, dt), "all_reduce MIN %s after queued ones" % dt)
        for q, w in zip(queued, works):
            assert w.wait()
            check(q, expected("MAX", every, dt), "queued all_reduce MAX %s" % dt)
        rooted_and_gathers(pg, every, dt, N, "")
        # all_gather into a list
        outs = [tensor(np.zeros(N), dt) for _ in range(size)]
        done(pg.all_gather(outs, tensor(mine, dt), False))
        for r in range(size):
            check(outs[r], every[r], "all_gather %s part %d" % (dt, r))
        # scatter from rank 0: rank r gets part r of rank 0's second inputs
        parts = inputs(0, size * N, dt, seed=1)
        out = tensor(np.zeros(N), dt)
        sl = [tensor(part(parts, r), dt) for r in range(size)] if RANK == 0 else None
        done(pg.scatter(out, sl, 0, False))
        check(out, part(parts, RANK), "scatter %s" % dt)
        # reduce_scatter, both forms
        big = [inputs(r, size * N, dt, seed=2) for r in range(size)]
        opname = "MIN" if dt != "bool" else "SUM"
        red = expected(opname, big, dt)
        op = getattr(Dl.ReduceOpKind, opname)
        out = tensor(np.zeros(N), dt)
        done(pg.reduce_scatter_tensor(out, tensor(big[RANK], dt), op, False))
        check(out, part(red, RANK), "reduce_scatter_tensor %s" % dt)
        out = tensor(np.zeros(N), dt)
        done(pg.reduce_scatter(out, [tensor(part(big[RANK], r), dt) for r in range(size)], op,
                               False))
        check(out, part(red, RANK), "reduce_scatter %s" % dt)
        # all_to_all, both forms: rank s's part r goes to rank r's slot s
        out = tensor(np.zeros(size * N), dt)
        done(pg.all_to_all_single(out, tensor(big[RANK], dt), False))
        check(out, np.concatenate([part(big[s], RANK) for s in range(size)]),
              "all_to_all_single %s" % dt)
        outs = [tensor(np.zeros(N), dt) for _ in range(size)]
        done(pg.all_to_all(outs, [tensor(part(big[RANK], r), dt) for r in range(size)], False))
        for s in range(size):
            check(outs[s], part(big[s], RANK), "all_to_all %s from %d" % (dt, s))
        # send / recv around the ring, asynchronous on both sides
        got = tensor(np.zeros(N), dt)
        right, left = (RANK + 1) % size, (RANK - 1) % size
        w1 = pg.send(tensor(mine, dt), right, 5, True)
        w2 = pg.recv(got, left, 5, True)
        assert w1.wait() and w2.wait()
        check(got, every[left], "send / recv %s" % dt)
    done(pg.barrier(False))


def large(pg):
    """The collectives whose data travels with the exchange of arguments
    when small, on N_LARGE elements: Gloo's own then"""
    size = pg.get_size()
    for dt in ["float32", "float64", "bfloat16", "int64"]:
        every = [inputs(r, N_LARGE, dt) for r in range(size)]
        mine = every[RANK]
        for op in ["SUM", "MAX", "AVG"]:
            t = tensor(mine, dt)
            done(pg.all_reduce(t, getattr(Dl.ReduceOpKind, op), False))
            check(t, expected(op, every, dt), "large all_reduce %s %s" % (op, dt))
        rooted_and_gathers(pg, every, dt, N_LARGE, "large ")


def main():
    timeout = 5.0 if SCENARIO == "dead" else 30.0
    method = "env://"
    if SCENARIO == "tcp":
        method = "tcp://%s:%s" % (os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"])
    pg = Dl.distributed_new_process_group("gloo", method, RANK, SIZE, timeout)
    if SCENARIO == "collectives":
        collectives(pg)
        large(pg)
    elif SCENARIO == "tcp":
        # the rendezvous is what differs: one collective per dtype
        for dt in DTYPES:
            every = [inputs(r, N, dt) for r in range(SIZE)]
            t = tensor(every[RANK], dt)
            done(pg.all_reduce(t, Dl.ReduceOpKind.MAX, False))
            check(t, expected("MAX", every, dt), "all_reduce MAX %s over tcp://" % dt)
    elif SCENARIO == "mismatch":
        t = tensor(np.ones(4 + RANK), "float32")
        try:
            pg.all_reduce(t, Dl.ReduceOpKind.SUM, False)
        except GLib.Error as e:
            assert "all_reduce" in e.message, e.message
            print("rank %d: %s" % (RANK, e.message))
        else:
            raise AssertionError("rank %d: all_reduce of mismatched shapes passed" % RANK)
        # rank 1's data is past what travels with the exchange, rank 0's not
        t = tensor(np.ones(4 + RANK * N_LARGE), "float32")
        try:
            pg.all_reduce(t, Dl.ReduceOpKind.SUM, False)
        except GLib.Error as e:
            assert "[4]" in e.message and "[%d]" % (4 + N_LARGE) in e.message, e.message
        else:
            raise AssertionError("rank %d: all_reduce of 4 and %d elements passed"
                                 % (RANK, 4 + N_LARGE))
        done(pg.barrier(False))
    elif SCENARIO == "nocheck":
        # DL_DISTRIBUTED_CHECK=0: no exchange of arguments, so ranks that
        # disagree on the reduction are not stopped (each reduces its own
        # half of the ring with its own op); matching calls still work
        t = tensor(np.array([1, 5, 2, 7], np.float32) * (RANK + 1), "float32")
        op = Dl.ReduceOpKind.SUM if RANK == 0 else Dl.ReduceOpKind.MAX
        done(pg.all_reduce(t, op, False))
        t = tensor(np.arange(4, dtype=np.float32) + RANK, "float32")
        done(pg.all_reduce(t, Dl.ReduceOpKind.SUM, False))
        check(t, np.arange(4, dtype=np.float32) * 2 + 1, "all_reduce without the check")
        done(pg.barrier(False))
    elif SCENARIO == "dead":
        done(pg.barrier(False))
        if RANK == 1:
            os._exit(0)
        time.sleep(0.5)
        start = time.monotonic()
        try:
            pg.all_reduce(tensor(np.ones(N), "float32"), Dl.ReduceOpKind.SUM, False)
        except GLib.Error as e:
            elapsed = time.monotonic() - start
            print("rank 0 after %.2f s: %s" % (elapsed, e.message))
            assert "all_reduce" in e.message, e.message
            assert elapsed < timeout + 2, elapsed
        else:
            raise AssertionError("all_reduce with a dead peer passed")
    elif SCENARIO == "compare":
        x = np.random.default_rng(7 + RANK).standard_normal(N).astype(np.float32)
        outs = [tensor(np.zeros(N), "float32") for _ in range(2)]
        done(pg.all_gather(outs, tensor(x, "float32"), False))
        t = tensor(x, "float32")
        done(pg.all_reduce(t, Dl.ReduceOpKind.SUM, False))
        np.save(os.path.join(OUTDIR, "libdl-%d-all_reduce.npy" % RANK), t.numpy())
        np.save(os.path.join(OUTDIR, "libdl-%d-all_gather.npy" % RANK),
                np.concatenate([o.numpy() for o in outs]))
    else:
        raise SystemExit("unknown scenario " + SCENARIO)


main()
