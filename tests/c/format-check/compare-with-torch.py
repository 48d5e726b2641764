#!/usr/bin/python3
# compare-with-torch.py: checks dl_format_tensor () against repr () of
# PyTorch tensors for random and edge-case inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: /usr/bin/python3 compare-with-torch.py [--seed N] [--count N]
# Builds format-driver.c together with libdl/ops/dl-format.c with gcc in a
# temporary folder, feeds it every case and reports each mismatch.

import argparse
import math
import os
import random
import re
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "libdl", "ops"))

FLOAT_DTYPES = [torch.float32, torch.float64, torch.float32, torch.float64,
                torch.float16, torch.bfloat16]
INT_DTYPES = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]


def build(tmp):
    open(os.path.join(tmp, "config.h"), "w").close()
    exe = os.path.join(tmp, "format-driver")
    flags = subprocess.check_output(
        ["pkg-config", "--cflags", "--libs", "glib-2.0"], text=True).split()
    subprocess.check_call(
        ["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-I", tmp, "-I", OPS,
         os.path.join(HERE, "format-driver.c"),
         os.path.join(OPS, "dl-format.c"), "-o", exe] + flags + ["-lm"])
    return exe


def random_shape(rng):
    kind = rng.random()
    if kind < 0.08:
        return ()
    if kind < 0.15:
        # empty tensors
        ndim = rng.randint(1, 4)
        shape = [rng.randint(0, 4) for _ in range(ndim)]
        shape[rng.randrange(ndim)] = 0
        return tuple(shape)
    if kind < 0.30:
        # long rows that wrap (and summarise past 1000)
        return (rng.choice([rng.randint(7, 60), rng.randint(60, 400),
                            rng.randint(900, 2500)]),)
    if kind < 0.45:
        # large tensors that get summarised
        return rng.choice([
            (rng.randint(30, 80), rng.randint(20, 60)),
            (rng.randint(1, 9), rng.randint(1, 9), rng.randint(20, 80)),
            (rng.randint(5, 10), rng.randint(5, 10), rng.randint(5, 10),
             rng.randint(3, 10)),
            (rng.randint(1001, 1300), 1),
            (1, rng.randint(1001, 1300)),
            (6, 6, 6, 6),
            (rng.randint(200, 400), rng.randint(4, 8)),
        ])
    ndim = rng.randint(1, 4)
    return tuple(rng.choice([1, 1, 2, 3, 4, 5, 6, 7, 8]) for _ in range(ndim))


def random_float_values(rng, n):
    style = rng.randrange(10)
    out = []
    lo, hi = sorted((rng.uniform(-6, 10), rng.uniform(-6, 10)))
    for _ in range(n):
        if style == 0:
            v = rng.gauss(0, 1)
        elif style == 1:
            v = rng.random()
        elif style == 2:
            v = float(rng.randint(-1000, 1000))
        elif style == 3:
            v = float(rng.randint(-10 ** rng.randint(1, 12), 10 ** rng.randint(1, 12)))
        elif style == 4:
            v = rng.choice([-1, 1]) * 10 ** rng.uniform(lo, hi)
        elif style == 5:
            v = rng.choice([-1, 1]) * 10 ** rng.uniform(-6, 10)
        elif style == 6:
            v = rng.choice([0.0, -0.0, 1.0, -1.0, 0.5, 1e-4, 1e8, 1000.0,
                            0.00005, 99999.99995, 1e-5, 123456789.0, 2.5,
                            -0.00001, 0.99995, 9.99995, 1e10, 1e-6])
        elif style == 7:
            v = round(rng.uniform(-100, 100), rng.randint(0, 5))
        elif style == 8:
            v = float(rng.randint(-5, 5)) * 10 ** rng.randint(0, 9)
        else:
            v = rng.uniform(-1e5, 1e5)
        out.append(v)
    # sprinkle zeros and non-finite values
    if n and rng.random() < 0.3:
        for _ in range(rng.randint(1, max(1, n // 4))):
            out[rng.randrange(n)] = rng.choice(
                [math.nan, math.inf, -math.inf, 0.0, -0.0])
    if n and rng.random() < 0.04:
        out = [rng.choice([math.nan, math.inf, -math.inf, 0.0, -0.0])
               for _ in range(n)]
    return out


def random_int_values(rng, n, dtype):
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -(2 ** 53)), min(info.max, 2 ** 53)
    style = rng.randrange(4)
    out = []
    for _ in range(n):
        if style == 0:
            v = rng.randint(max(lo, -10), min(hi, 10))
        elif style == 1:
            v = rng.randint(lo, hi)
        elif style == 2:
            e = rng.randint(0, 15)
            v = max(lo, min(hi, rng.randint(-10 ** e, 10 ** e)))
        else:
            v = rng.randint(max(lo, 0), min(hi, 1000))
        out.append(v)
    return out


def make_tensor(rng):
    shape = random_shape(rng)
    n = math.prod(shape)
    r = rng.random()
    if r < 0.6:
        dtype = rng.choice(FLOAT_DTYPES)
        t = torch.tensor(random_float_values(rng, n), dtype=dtype).reshape(shape)
        if rng.random() < 0.15:
            t.requires_grad_(True)
    elif r < 0.85:
        dtype = rng.choice(INT_DTYPES)
        t = torch.tensor(random_int_values(rng, n, dtype), dtype=dtype).reshape(shape)
    else:
        t = torch.tensor([rng.random() < 0.5 for _ in range(n)],
                         dtype=torch.bool).reshape(shape)
    return t


def edge_cases():
    f = torch.float32
    d = torch.float64
    cases = [
        torch.tensor(3.0), torch.tensor(0.5), torch.tensor(1e-5),
        torch.tensor(math.nan), torch.tensor(-math.inf), torch.tensor(0.0),
        torch.tensor(-0.0), torch.tensor(3), torch.tensor(True),
        torch.tensor(1e10, dtype=d), torch.tensor(-7, dtype=torch.int32),
        torch.tensor([]), torch.tensor([], dtype=torch.int64),
        torch.tensor([], dtype=d), torch.zeros(0, 3), torch.zeros(2, 0, 3),
        torch.zeros(0, 3, dtype=torch.bool), torch.zeros(3, 0, dtype=torch.int32),
        torch.tensor([1.0, 2.0]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
        torch.tensor([1.0, 1000.0]), torch.tensor([1.0, 1001.0]),
        torch.tensor([1e8]), torch.tensor([1e8 + 8]),
        torch.tensor([1e-4, 0.1], dtype=d), torch.tensor([0.99e-4, 0.05], dtype=d),
        torch.tensor([0.0, 0.0]), torch.tensor([math.nan, 0.0]),
        torch.tensor([math.nan, math.inf, -math.inf]),
        torch.tensor([math.nan, 1.5, -2.25]),
        torch.tensor([-0.0, 1.5]), torch.tensor([-0.0, 1.0]),
        torch.tensor([True, False]), torch.tensor([True, True]),
        torch.arange(10), torch.arange(2000), torch.arange(1001.0),
        torch.arange(1000.0), torch.arange(24.0).reshape(2, 3, 4),
        torch.arange(120.0).reshape(1, 2, 3, 4, 5),
        torch.arange(5000.0).reshape(10, 10, 50) / 7,
        torch.ones(1, 1, 1), torch.ones(100) * 1e-7, torch.randn(100),
        torch.linspace(-1, 1, 300, dtype=d),
        torch.tensor([123456.0, 0.5]), torch.tensor([99999.99995]),
        torch.tensor([0.00001, 1e10]), torch.tensor([1e-6, 2e-6]),
        torch.arange(40.0, requires_grad=True),
        torch.arange(18.0, dtype=d, requires_grad=True),
        torch.arange(11.0, dtype=d, requires_grad=True),
        torch.full((10,), 1e9, dtype=d, requires_grad=True),
        torch.full((7, 2), -1e20, dtype=d),
        torch.tensor([2 ** 40, -(2 ** 50)]),
    ]
    return cases


def suffixes_for(t):
    out = []
    if t.numel() == 0:
        if t.dtype != torch.get_default_dtype():
            out.append("dtype=" + str(t.dtype))
    elif t.dtype not in (torch.float32, torch.int64, torch.bool):
        out.append("dtype=" + str(t.dtype))
    if t.requires_grad:
        out.append("requires_grad=True")
    return out


def encode(t):
    if t.dtype.is_floating_point:
        kind = "f"
    elif t.dtype == torch.bool:
        kind = "b"
    else:
        kind = "i"
    sfx = suffixes_for(t)
    lines = [" ".join([kind, str(t.dim())] + [str(s) for s in t.shape]
                      + [str(len(sfx))])]
    lines += sfx
    for v in t.detach().reshape(-1).tolist():
        lines.append(float(v).hex())
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=600)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    tensors = edge_cases() + [make_tensor(rng) for _ in range(args.count)]

    with tempfile.TemporaryDirectory() as tmp:
        exe = build(tmp)
        data = "".join(encode(t) for t in tensors).encode()
        res = subprocess.run([exe], input=data, capture_output=True, check=True)

    out = res.stdout
    pos = 0
    failures = 0
    seen = dict.fromkeys(["summarised", "scientific", "wrapped rows",
                          "nan/inf", "suffix on new line", "empty", "0-d"], 0)
    for t in tensors:
        nl = out.index(b"\n", pos)
        length = int(out[pos:nl])
        got = out[nl + 1:nl + 1 + length].decode()
        pos = nl + 1 + length
        want = repr(t)
        seen["summarised"] += "..." in want
        seen["scientific"] += "e+" in want or "e-" in want
        seen["wrapped rows"] += t.dim() == 1 and "\n" in want
        seen["nan/inf"] += "nan" in want or "inf" in want
        seen["suffix on new line"] += re.search(r",\n {7}[a-z]", want) is not None
        seen["empty"] += t.numel() == 0
        seen["0-d"] += t.dim() == 0
        if got != want:
            failures += 1
            if failures <= 10:
                print("MISMATCH shape=%s dtype=%s\n--- torch\n%s\n--- libdl\n%s\n"
                      % (tuple(t.shape), t.dtype, want, got))
    print("covered: " + ", ".join("%s %d" % kv for kv in seen.items()))
    print("%d/%d cases match" % (len(tensors) - failures, len(tensors)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
