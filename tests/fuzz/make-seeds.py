#!/usr/bin/python3
# make-seeds.py DIR: writes a seed corpus for fuzz-safetensors: small
# valid files of every dtype, 0-d and empty tensors, with and without
# metadata, through the independent writer of tests/python.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'python'))
import safetensors_ref  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
shapes = [(), (0,), (3,), (2, 3), (1, 0, 2)]
for i, (dtype, size) in enumerate(sorted(safetensors_ref.SIZES.items())):
    tensors = {}
    for j, shape in enumerate(shapes):
        n = 1
        for s in shape:
            n *= s
        tensors['t%d.%s' % (j, dtype)] = (dtype, shape, bytes((k * 7) % 256
                                                              for k in range(n * size)))
    meta = {'format': 'pt', 'i': str(i)} if i % 2 else None
    safetensors_ref.write(os.path.join(out, 'seed-%s.safetensors' % dtype), tensors, meta)
