#!/usr/bin/python3
# allreduce.py: all_reduce bandwidth across 2 processes on this machine:
# libdl's Gloo engine, python3-torch's Gloo, and MPI_Allreduce in C.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/allreduce.py
#   [--sizes 1,16,64] [--iters N] [--repeats R] [--mpi build/bench/dl-bench-allreduce-mpi]
#
# Method.  For each engine the script starts 2 worker processes (this
# script again, with --worker) on loopback, which join a group (libdl and
# torch: env:// with MASTER_ADDR=127.0.0.1 and a free MASTER_PORT), fill a
# float32 tensor of each size (1, 16 and 64 MB) and run, after 3 warm-up
# calls and a barrier, R repeats of a timed loop of N in-place SUM
# all_reduces (time.perf_counter() around the loop, then a barrier so both
# ranks agree the loop is over).  Rank 0 reports, per size, the best
# repeat's time per call; the bandwidth is the tensor's bytes over that time
# (the "algorithm bandwidth": with 2 ranks each rank sends and receives
# about the tensor's size).  The values are checked after the loop (2^k
# times the start on every element).  The MPI line comes from the C
# program bench/allreduce-mpi.c (MPI_Allreduce in place, MPI_Wtime, the
# same sizes and loop), started with `mpirun -np 2` when it was built and
# mpirun is on PATH.  ratio = libdl bandwidth / the other's.  Both ranks
# share this machine's cores, so the figures measure the engines' copies
# and reductions as much as the loopback network.

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time

MB = 1 << 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_libdl(rank, sizes, iters, repeats):
    import gi

    gi.require_version("Dl", "1.0")
    from gi.repository import Dl

    pg = Dl.distributed_new_process_group("gloo", "env://", rank, 2, 300.0)
    results = {}
    for mb in sizes:
        n = mb * MB // 4
        t = Dl.ones(n, dtype=Dl.float32)

        def all_reduce():
            pg.all_reduce(t, Dl.ReduceOpKind.SUM, False)

        results[mb] = time_loop(all_reduce, lambda: pg.barrier(False), iters, repeats)
        value = t[0].item()
        expect = 2.0 ** (3 + iters * repeats)
        if value != expect:
            raise SystemExit("libdl: all_reduce gave %g, expected %g" % (value, expect))
    return results


def worker_torch(rank, sizes, iters, repeats):
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=2)
    results = {}
    for mb in sizes:
        t = torch.ones(mb * MB // 4, dtype=torch.float32)
        results[mb] = time_loop(lambda: dist.all_reduce(t), dist.barrier, iters, repeats)
        expect = 2.0 ** (3 + iters * repeats)
        if t[0].item() != expect:
            raise SystemExit("torch: all_reduce gave %g, expected %g" % (t[0].item(), expect))
    dist.destroy_process_group()
    return results


def time_loop(call, barrier, iters, repeats):
    """The best repeat's seconds per call, after 3 warm-up calls"""
    for _ in range(3):
        call()
    best = float("inf")
    for _ in range(repeats):
        barrier()
        start = time.perf_counter()
        for _ in range(iters):
            call()
        best = min(best, (time.perf_counter() - start) / iters)
        barrier()
    return best


def run_pair(engine, args):
    """Starts the 2 workers of @engine; rank 0's {size: seconds}"""
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE="2")
    procs = []
    for rank in range(2):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", engine, "--rank", str(rank),
               "--sizes", args.sizes, "--iters", str(args.iters), "--repeats", str(args.repeats)]
        procs.append(subprocess.Popen(cmd, env=dict(env, RANK=str(rank)), stdout=subprocess.PIPE,
                                      text=True))
    outs = [p.communicate(timeout=600)[0] for p in procs]
    for p in procs:
        if p.returncode != 0:
            raise SystemExit("%s worker failed (exit %d)" % (engine, p.returncode))
    return {int(k): v for k, v in json.loads(outs[0]).items()}


def run_mpi(args):
    if not args.mpi or not os.path.exists(args.mpi) or not shutil.which("mpirun"):
        return None
    cmd = ["mpirun", "-np", "2", "--oversubscribe", args.mpi, args.sizes, str(args.iters),
           str(args.repeats)]
    env = dict(os.environ)
    if os.geteuid() == 0:
        # Open MPI refuses root unless told twice (containers run as root)
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, timeout=600,
                         env=env).stdout
    return {int(k): v for k, v in json.loads(out.strip().splitlines()[-1]).items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,16,64", help="MB, comma-separated")
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mpi", default="build/bench/dl-bench-allreduce-mpi")
    parser.add_argument("--worker", choices=["libdl", "torch"])
    parser.add_argument("--rank", type=int)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    if args.worker:
        fn = worker_libdl if args.worker == "libdl" else worker_torch
        results = fn(args.rank, sizes, args.iters, args.repeats)
        if args.rank == 0:
            print(json.dumps(results))
        return

    libdl = run_pair("libdl", args)
    torch = run_pair("torch", args)
    mpi = run_mpi(args)
    print("all_reduce SUM of float32, 2 processes on loopback, best of %d x %d calls"
          % (args.repeats, args.iters))
    print("%8s %14s %14s %14s %10s %10s" % ("size", "libdl gloo", "torch gloo", "MPI",
                                           "vs torch", "vs MPI"))
    for mb in sizes:
        def bw(seconds):
            return mb * MB / seconds / 1e9

        line = "%6d MB %9.2f GB/s %9.2f GB/s " % (mb, bw(libdl[mb]), bw(torch[mb]))
        line += ("%9.2f GB/s " % bw(mpi[mb])) if mpi else "%14s " % "(not built)"
        line += "%10.2f " % (torch[mb] / libdl[mb])
        line += ("%10.2f" % (mpi[mb] / libdl[mb])) if mpi else "%10s" % "-"
        print(line)


if __name__ == "__main__":
    main()
