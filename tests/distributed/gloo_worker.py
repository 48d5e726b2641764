#!/usr/bin/python3
# gloo_worker.py: one rank of the two-process Gloo tests (test_gloo.py
# starts two of these with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
# set).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: gloo_worker.py SCENARIO OUTDIR
#
#   collectives  every collective on every dtype, checked here against
#                numpy on the inputs both ranks make from their seeds
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
N = 300

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
    product and mean of two is exact in every dtype"""
    rng = np.random.default_rng(1000 * seed + 17 + rank)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(np.float64)
    if dtype == "uint8":
        return rng.integers(0, 16, n).astype(np.float64)
    return rng.integers(-4, 5, n).astype(np.float64)


def expected(op, a, b, dtype):
    if dtype == "bool":
        return {"SUM": np.logical_or, "MAX": np.logical_or, "PRODUCT": np.logical_and,
                "MIN": np.logical_and}[op](a, b).astype(np.float64)
    if op == "AVG":
        return (a + b) / 2 if dtype.startswith(("float", "bfloat")) else np.trunc((a + b) / 2)
    return {"SUM": a + b, "PRODUCT": a * b, "MIN": np.minimum(a, b),
            "MAX": np.maximum(a, b)}[op]


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


def collectives(pg):
    assert pg.get_rank() == RANK and pg.get_size() == 2
    assert pg.get_backend_name() == "gloo"
    other = 1 - RANK
    for dt in DTYPES:
        mine, theirs = inputs(RANK, N, dt), inputs(other, N, dt)
        both = [inputs(0, N, dt), inputs(1, N, dt)]
        for op in OPS:
            if dt == "bool" and op == "AVG":
                continue
            t = tensor(mine, dt)
            done(pg.all_reduce(t, getattr(Dl.ReduceOpKind, op), False))
            check(t, expected(op, mine, theirs, dt), "all_reduce %s %s" % (op, dt))
        # async, waited for
        t = tensor(mine, dt)
        work = pg.all_reduce(t, Dl.ReduceOpKind.MAX, True)
        assert work.wait()
        check(t, expected("MAX", mine, theirs, dt), "async all_reduce MAX %s" % dt)
        # broadcast from rank 1
        t = tensor(mine, dt)
        done(pg.broadcast(t, 1, False))
        check(t, both[1], "broadcast %s" % dt)
        # reduce to rank 0: the other rank keeps its values
        t = tensor(mine, dt)
        done(pg.reduce(t, 0, Dl.ReduceOpKind.SUM, False))
        check(t, expected("SUM", mine, theirs, dt) if RANK == 0 else mine, "reduce %s" % dt)
        # all_gather, both forms
        outs = [tensor(np.zeros(N), dt) for _ in range(2)]
        done(pg.all_gather(outs, tensor(mine, dt), False))
        for r in range(2):
            check(outs[r], both[r], "all_gather %s part %d" % (dt, r))
        flat = tensor(np.zeros(2 * N), dt)
        done(pg.all_gather_into_tensor(flat, tensor(mine, dt), False))
        check(flat, np.concatenate(both), "all_gather_into_tensor %s" % dt)
        # gather to rank 1
        gl = [tensor(np.zeros(N), dt) for _ in range(2)] if RANK == 1 else None
        done(pg.gather(tensor(mine, dt), gl, 1, False))
        if RANK == 1:
            for r in range(2):
                check(gl[r], both[r], "gather %s part %d" % (dt, r))
        # scatter from rank 0: rank r gets rank 0's second inputs' part r
        parts = inputs(0, 2 * N, dt, seed=1)
        out = tensor(np.zeros(N), dt)
        sl = [tensor(parts[r * N:(r + 1) * N], dt) for r in range(2)] if RANK == 0 else None
        done(pg.scatter(out, sl, 0, False))
        check(out, parts[RANK * N:(RANK + 1) * N], "scatter %s" % dt)
        # reduce_scatter, both forms
        big = [inputs(r, 2 * N, dt, seed=2) for r in range(2)]
        red = expected("MIN" if dt != "bool" else "SUM", big[0], big[1], dt)
        out = tensor(np.zeros(N), dt)
        op = Dl.ReduceOpKind.MIN if dt != "bool" else Dl.ReduceOpKind.SUM
        done(pg.reduce_scatter_tensor(out, tensor(big[RANK], dt), op, False))
        check(out, red[RANK * N:(RANK + 1) * N], "reduce_scatter_tensor %s" % dt)
        out = tensor(np.zeros(N), dt)
        done(pg.reduce_scatter(out, [tensor(big[RANK][r * N:(r + 1) * N], dt) for r in range(2)],
                               op, False))
        check(out, red[RANK * N:(RANK + 1) * N], "reduce_scatter %s" % dt)
        # all_to_all, both forms: rank s's part r goes to rank r's slot s
        out = tensor(np.zeros(2 * N), dt)
        done(pg.all_to_all_single(out, tensor(big[RANK], dt), False))
        want = np.concatenate([big[s][RANK * N:(RANK + 1) * N] for s in range(2)])
        check(out, want, "all_to_all_single %s" % dt)
        outs = [tensor(np.zeros(N), dt) for _ in range(2)]
        done(pg.all_to_all(outs, [tensor(big[RANK][r * N:(r + 1) * N], dt) for r in range(2)],
                           False))
        for s in range(2):
            check(outs[s], big[s][RANK * N:(RANK + 1) * N], "all_to_all %s from %d" % (dt, s))
        # send / recv, asynchronous on both sides
        got = tensor(np.zeros(N), dt)
        if RANK == 0:
            w1 = pg.send(tensor(mine, dt), 1, 5, True)
            w2 = pg.recv(got, 1, 6, True)
        else:
            w2 = pg.recv(got, 0, 5, True)
            w1 = pg.send(tensor(mine, dt), 0, 6, True)
        assert w1.wait() and w2.wait()
        check(got, theirs, "send / recv %s" % dt)
    done(pg.barrier(False))


def main():
    timeout = 5.0 if SCENARIO == "dead" else 30.0
    method = "env://"
    if SCENARIO == "tcp":
        method = "tcp://%s:%s" % (os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"])
    pg = Dl.distributed_new_process_group("gloo", method, RANK, 2, timeout)
    if SCENARIO == "collectives":
        collectives(pg)
    elif SCENARIO == "tcp":
        # the rendezvous is what differs: one collective per dtype
        for dt in DTYPES:
            mine, theirs = inputs(RANK, N, dt), inputs(1 - RANK, N, dt)
            t = tensor(mine, dt)
            done(pg.all_reduce(t, Dl.ReduceOpKind.MAX, False))
            check(t, expected("MAX", mine, theirs, dt), "all_reduce MAX %s over tcp://" % dt)
    elif SCENARIO == "mismatch":
        t = tensor(np.ones(4 + RANK), "float32")
        try:
            pg.all_reduce(t, Dl.ReduceOpKind.SUM, False)
        except GLib.Error as e:
            assert "all_reduce" in e.message, e.message
            print("rank %d: %s" % (RANK, e.message))
        else:
            raise AssertionError("rank %d: all_reduce of mismatched shapes passed" % RANK)
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
