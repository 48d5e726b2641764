# test_blas.py: which OpenBLAS libdl's GEMMs run on, whatever the process
# loaded first (libdl/backends/cpu/dl-cpu-blas.c, docs/threading.md).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys

import pytest

OPENMP_DIR = "/usr/lib/x86_64-linux-gnu/openblas-openmp"
# AddressSanitizer refuses RTLD_DEEPBIND: libdl then keeps to the process's
# OpenBLAS (docs/threading.md, "Fallbacks")
ASAN = "libasan" in open("/proc/self/maps").read()

# numpy (and torch, when asked) first: their pthread OpenBLAS is loaded
# before libdl; then a product big enough to reach BLAS, checked against
# numpy, and the OpenBLAS files the process maps
PROGRAM = """
import sys
if sys.argv[1] == "dl":
    import dl
import numpy as np
if sys.argv[1] == "torch":
    import torch
import gi
gi.require_version("Dl", "1.0")
from gi.repository import Dl
np.dot(np.ones((300, 300)), np.ones((300, 300)))
a = np.random.default_rng(0).standard_normal((300, 200)).astype(np.float32)
got = (Dl.from_numpy(a) @ Dl.from_numpy(a.T.copy())).numpy()
np.testing.assert_allclose(got, a.astype(np.float64) @ a.T.astype(np.float64), rtol=1e-4,
                           atol=1e-3)
maps = open("/proc/self/maps").read()
print(sorted({line.split()[-1].split("/")[-2] for line in maps.splitlines()
              if "libopenblas" in line}))
"""


def mapped_builds(first, **env):
    out = subprocess.run([sys.executable, "-c", PROGRAM, first], capture_output=True, text=True,
                         env=dict(os.environ, **env), check=True)
    return out.stdout.strip()


@pytest.mark.skipif(not os.path.isdir(OPENMP_DIR), reason="no OpenMP build of OpenBLAS")
@pytest.mark.skipif(ASAN, reason="AddressSanitizer refuses RTLD_DEEPBIND")
@pytest.mark.parametrize("first", ["numpy", "torch"])
def test_openmp_build_whatever_came_first(first):
    builds = mapped_builds(first)
    assert "openblas-openmp" in builds
    assert "openblas-pthread" in builds  # numpy's own, untouched


@pytest.mark.skipif(not os.path.isdir(OPENMP_DIR), reason="no OpenMP build of OpenBLAS")
def test_process_blas_on_request():
    assert mapped_builds("numpy", DL_BLAS="process") == "['openblas-pthread']"


@pytest.mark.skipif(not os.path.isdir(OPENMP_DIR), reason="no OpenMP build of OpenBLAS")
def test_dl_first_gives_numpy_the_openmp_build():
    # `import dl` loads libdl before numpy: numpy links libopenblas.so.0,
    # which libdl already loaded from the OpenMP build
    assert mapped_builds("dl") == "['openblas-openmp']"
