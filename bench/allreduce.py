#!/usr/bin/python3
# allreduce.py: all_reduce bandwidth across 2 processes on this machine:
# libdl's Gloo engine against python3-torch's Gloo, and libdl's MPI engine
# against MPI_Allreduce in C.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/allreduce.py
#   [--sizes 1,16,64] [--iters N] [--repeats R] [--rounds K]
#   [--mpi build/bench/dl-bench-allreduce-mpi]
#
# Method.  For the Gloo engines the script starts 2 worker processes (this
# script again, with --worker) on loopback, which join a group (env://
# with MASTER_ADDR=127.0.0.1 and a free MASTER_PORT), fill a float32
# tensor of each size (1, 16 and 64 MB) and run, after 3 warm-up calls
# and a barrier, R repeats of a timed loop of N in-place SUM all_reduces
# (time.perf_counter() around the loop, then a barrier so both ranks
# agree the loop is over).  Rank 0 reports, per size, the best repeat's
# time per call; the bandwidth is the tensor's bytes over that time (the
# "algorithm bandwidth": with 2 ranks each rank sends and receives about
# the tensor's size).  The values are checked after the loop (2^k times
# the start on every element).  The MPI columns come from one run of the
# C program bench/allreduce-mpi.c under `mpirun -np 2` (when it was built
# and mpirun is on PATH): in the same two processes, each repeat times a
# loop of MPI_Allreduce in place and then a loop of libdl's MPI engine's
# all_reduce on a tensor of the same size, from C, so that a busy moment
# of the machine falls on both.  ratio = libdl bandwidth / the other's:
# its Gloo engine's over torch's Gloo, its MPI engine's over
# MPI_Allreduce.  With --rounds K the three runs (libdl Gloo, torch Gloo,
# the MPI pair) take turns K times and each keeps its best, so that a
# busy moment does not fall on one side of a ratio only.  Both ranks
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


def run_mpirun(program):
    """Runs @program (a list) under mpirun -np 2; rank 0's {size: seconds}"""
    cmd = ["mpirun", "-np", "2", "--oversubscribe"] + program
    env = dict(os.environ)
    if os.geteuid() == 0:
        # Open MPI refuses root unless told twice (containers run as root)
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, timeout=600,
                         env=env).stdout
    return {int(k): v for k, v in json.loads(out.strip().splitlines()[-1]).items()}


def mpi_ready(args):
    return bool(args.mpi) and os.path.exists(args.mpi) and shutil.which("mpirun") is not None


def run_mpi_pair(args):
    """MPI_Allreduce and libdl's MPI engine, timed in turn in the same two
    processes (the C program's "libdl" mode); ({size: seconds}, {size:
    seconds})"""
    both = run_mpirun([args.mpi, args.sizes, str(args.iters), str(args.repeats), "libdl"])
    return ({mb: v[0] for mb, v in both.items()}, {mb: v[1] for mb, v in both.items()})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,16,64", help="MB, comma-separated")
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the engines in turn this many times, keeping each one's best")
    parser.add_argument("--mpi", default="build/bench/dl-bench-allreduce-mpi")
    parser.add_argument("--worker", choices=["libdl", "torch"])
    parser.add_argument("--rank", type=int)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    if args.worker:
        if args.worker == "torch":
            results = worker_torch(args.rank, sizes, args.iters, args.repeats)
        else:
            results = worker_libdl(args.rank, sizes, args.iters, args.repeats)
        if args.rank == 0:
            print(json.dumps(results))
        return

    runs = {"libdl": lambda: [run_pair("libdl", args)], "torch": lambda: [run_pair("torch", args)]}
    names = {"libdl": ["libdl"], "torch": ["torch"], "mpi": ["mpi", "libdl-mpi"]}
    if mpi_ready(args):
        runs["mpi"] = lambda: run_mpi_pair(args)
    best = {}
    for _ in range(args.rounds):
        for key, run in runs.items():
            for name, result in zip(names[key], run()):
                mine = best.setdefault(name, {})
                for mb, seconds in result.items():
                    mine[mb] = min(seconds, mine.get(mb, seconds))
    libdl, torch = best["libdl"], best["torch"]
    libdl_mpi, mpi = best.get("libdl-mpi"), best.get("mpi")
    print("all_reduce SUM of float32, 2 processes on loopback, best of %d rounds x %d x %d calls"
          % (args.rounds, args.repeats, args.iters))
    print("%8s %14s %14s %10s %14s %14s %10s"
          % ("size", "libdl gloo", "torch gloo", "vs torch", "libdl mpi", "MPI", "vs MPI"))
    for mb in sizes:
        def bw(seconds):
            return "%9.2f GB/s" % (mb * MB / seconds / 1e9)

        line = "%6d MB %s %s %10.2f " % (mb, bw(libdl[mb]), bw(torch[mb]), torch[mb] / libdl[mb])
        if mpi:
            line += "%s %s %10.2f" % (bw(libdl_mpi[mb]), bw(mpi[mb]), mpi[mb] / libdl_mpi[mb])
        else:
            line += "%14s %14s %10s" % ("(no mpirun", "or not built)", "-")
        print(line)


if __name__ == "__main__":
    main()
