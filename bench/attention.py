#!/usr/bin/python3
# attention.py: scaled_dot_product_attention against PyTorch's explicit
# softmax(q k^T scale) v.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/attention.py
#   [--rounds R] [--seconds S]
#
# Workload: float32 query, key, value [4, 8, 1024, 64] (batch 4, 8 heads,
# L = S = 1024, E = 64), no mask. python3-torch 1.13 has no
# scaled_dot_product_attention: its side is the explicit formula (the (L, S)
# scores made, softmax, product). Rows:
#   forward           under no_grad (target ratio <= 0.8)
#   forward+backward  q, k, v requiring grad, backward with a fixed output
#                     gradient
#   causal forward    is_causal (torch: the scores masked above the
#                     diagonal)
# Method as bench/conv.py (sidebyside.least_times): torch on os.cpu_count()
# threads; ratio = libdl / torch.
# Memory: in a fresh subprocess per size, the growth of the process's peak
# RSS over one forward at L = S = 1024, 2048 and 4096 (the inputs made
# first, then the peak reset to the current RSS through
# /proc/self/clear_refs and read back as VmHWM: ru_maxrss cannot be reset,
# and the inputs' making had already set it higher); the (L, S) scores alone
# of the explicit formula are 4 * 8 * L * S * 4 bytes, the output 4 * 8 * L
# * 64 * 4. Always exits 0.

import math
import os
import subprocess
import sys

import numpy as np
import torch

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl  # noqa: E402
from sidebyside import least_times, parse_args  # noqa: E402

SHAPE = (4, 8, 1024, 64)


def explicit(q, k, v, causal=False):
    s = q @ k.transpose(-2, -1) * (1 / math.sqrt(q.shape[-1]))
    if causal:
        L, S = s.shape[-2:]
        s = s.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), float('-inf'))
    return torch.softmax(s, -1) @ v


def fused(q, k, v, causal=False):
    return Dl.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)


def make(lib, arrays, g_np, backward, causal=False):
    fn = explicit if lib is torch else fused
    q, k, v = [lib.from_numpy(a.copy()) for a in arrays]
    g = lib.from_numpy(g_np.copy())
    if not backward:
        def run():
            with lib.no_grad():
                fn(q, k, v, causal)
        return run
    for t in (q, k, v):
        t.requires_grad_()

    def run_backward():
        for t in (q, k, v):
            t.grad = None
        fn(q, k, v, causal).backward(g)
    return run_backward


def peak_growth(lib_name, L):
    """Peak RSS growth (MiB) over one forward at sequence length L, in a
    fresh process."""
    code = f"""
import math, sys
import numpy as np
import torch
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
import gi
gi.require_version("Dl", "1.0")
from gi.repository import Dl
import attention
torch.set_num_threads({os.cpu_count()})
shape = (4, 8, {L}, 64)
rng = np.random.default_rng(0)
lib = torch if {lib_name!r} == "torch" else Dl
q, k, v = [lib.from_numpy(rng.standard_normal(shape, dtype=np.float32)) for _ in range(3)]
fn = attention.explicit if lib is torch else attention.fused
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
with lib.no_grad():
    small = [lib.from_numpy(a.numpy()[..., :64, :].copy()) for a in (q, k, v)]
    fn(*small)
    # the peak (VmHWM) reset to the current RSS: what follows is all it sees
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
    out = fn(q, k, v)
    after = status("VmHWM")
print((after - before) / 1024)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if r.returncode != 0:
        return float("nan")
    return float(r.stdout.strip().splitlines()[-1])


def main():
    args = parse_args(__doc__, torch)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(SHAPE, dtype=np.float32) for _ in range(3)]
    g_np = rng.standard_normal(SHAPE, dtype=np.float32)
    print("sdpa %s float32 %12s %12s %7s %7s" % ("x".join(map(str, SHAPE)), "torch", "libdl",
                                                  "ratio", "target"))
    for name, backward, causal, target in (("forward", False, False, "0.8"),
                                           ("forward+backward", True, False, "-"),
                                           ("causal forward", False, True, "-")):
        bt, bd = least_times(make(torch, arrays, g_np, backward, causal),
                             make(Dl, arrays, g_np, backward, causal), args.rounds,
                             args.seconds, warmup=1)
        print("%-29s %9.2f ms %9.2f ms %7.2f %7s" % (name, bt * 1e3, bd * 1e3, bd / bt, target),
              flush=True)
    print("\npeak RSS growth over one forward (MiB); the explicit (L, S) scores: 4*8*L*S*4 bytes")
    print("%6s %12s %12s %12s %12s" % ("L", "scores", "output", "torch", "libdl"))
    for L in (1024, 2048, 4096):
        scores, output = 4 * 8 * L * L * 4 / 2**20, 4 * 8 * L * 64 * 4 / 2**20
        t = peak_growth("torch", L) if L <= 2048 else float("nan")
        print("%6d %12.0f %12.0f %12.1f %12.1f" % (L, scores, output, t, peak_growth("dl", L)),
              flush=True)


if __name__ == "__main__":
    main()
