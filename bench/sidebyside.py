# sidebyside.py: the timing method bench/autograd.py, conv.py and optim.py
# share (imported from the folder of the script that runs).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Each timed loop starts after SETTLE seconds of quiet (the other
# library's thread pool stops spinning) and WARM seconds of untimed calls
# (the first calls after a pause wake sleeping threads); see
# bench/scaling.py and docs/threading.md.

import time

SETTLE = 0.2
WARM = 0.015


def timed(fn, seconds):
    """Seconds per call of fn over a loop of at least `seconds`."""
    time.sleep(SETTLE)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < WARM:
        fn()
    n = 0
    t0 = time.perf_counter()
    while True:
        fn()
        n += 1
        t = time.perf_counter() - t0
        if t >= seconds:
            return t / n


def least_times(tf, df, rounds, seconds, warmup=3):
    """The least time per call of torch's tf and libdl's df over `rounds`
    rounds, alternating, after `warmup` untimed calls of each."""
    for _ in range(warmup):
        tf()
        df()
    bt = bd = float("inf")
    for _ in range(rounds):
        bt = min(bt, timed(tf, seconds))
        bd = min(bd, timed(df, seconds))
    return bt, bd


def print_table(work, torch, dl, rounds, seconds, warmup=3):
    """One row per (name, target ratio, make) of `work`: make(lib) gives
    the call to time for torch and for libdl."""
    print("%-10s %12s %12s %7s %7s" % ("workload", "torch", "libdl", "ratio", "target"))
    for name, target, make in work:
        bt, bd = least_times(make(torch), make(dl), rounds, seconds, warmup)
        print("%-10s %9.1f us %9.1f us %7.2f %7.1f" % (name, bt * 1e6, bd * 1e6, bd / bt, target),
              flush=True)


def parse_args(doc, torch):
    """The options of a side-by-side benchmark (--rounds, --seconds), with
    torch set to use every core as the comparison requires."""
    import argparse
    import os

    p = argparse.ArgumentParser(description=doc)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=0.3)
    torch.set_num_threads(os.cpu_count())
    return p.parse_args()
