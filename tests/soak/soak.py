# soak.py: runs the soak programs (soak-mlp in C, soak-mlp-vala, soak_mlp.py)
# and fails when a program's resident set size grows by 5% or more after
# its first sample (issue 14: long runs stay flat).
#
# Usage: soak.py [--c PROG] [--vala PROG] [--python] [--steps N] [--epochs N]
#   The defaults are the full runs: 10000 steps in C and Vala, 20 epochs of
#   500 steps in Python. The test suite runs shorter ones.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import os
import statistics
import subprocess
import sys

LIMIT = 0.05


def samples(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        sys.exit("soak: %s failed (%d):\n%s" % (" ".join(cmd), out.returncode, out.stderr))
    points = [tuple(int(v) for v in line.split()[1:3]) for line in out.stdout.splitlines()
              if line.startswith("rss ")]
    if len(points) < 3:
        sys.exit("soak: %s printed %d samples" % (" ".join(cmd), len(points)))
    return points


def judge(name, points):
    """Growth of the RSS over the run, the first sample (the warm-up) left
    out: the median of the last quarter of the samples against the median
    of the first half. Medians, because the allocator's caches make single
    samples jump by a few hundred KiB and back (5% of a 14 MiB process);
    a leak raises every late sample."""
    kib = [k for _, k in points[1:]]
    base = statistics.median(kib[:max(len(kib) // 2, 1)])
    late = statistics.median(kib[-max(len(kib) // 4, 1):])
    growth = (late - base) / base
    curve = " ".join("%d:%d" % p for p in points)
    print("%-7s median RSS %d KiB in the first half, %d KiB in the last quarter (%+.1f%%)  [%s]"
          % (name, base, late, 100 * growth, curve))
    return growth < LIMIT


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c", help="the soak-mlp program")
    ap.add_argument("--vala", help="the soak-mlp-vala program")
    ap.add_argument("--python", action="store_true", help="run soak_mlp.py")
    ap.add_argument("--steps", type=int, default=10000, help="C and Vala steps")
    ap.add_argument("--epochs", type=int, default=20, help="Python epochs")
    ap.add_argument("--epoch-steps", type=int, default=500, help="Python steps per epoch")
    args = ap.parse_args()
    every = max(args.steps // 20, 1)
    ok = True
    if args.c:
        ok &= judge("C", samples([args.c, str(args.steps), str(every)]))
    if args.vala:
        ok &= judge("Vala", samples([args.vala, str(args.steps), str(every)]))
    if args.python:
        here = os.path.dirname(os.path.abspath(__file__))
        ok &= judge("Python", samples([sys.executable, os.path.join(here, "soak_mlp.py"),
                                       str(args.epochs), str(args.epoch_steps)]))
    print("soak: %s (limit +%d%% after the first sample)" % ("flat" if ok else "GREW",
                                                              100 * LIMIT))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
