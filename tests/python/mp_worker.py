# mp_worker.py: the function test_package.py runs in a multiprocessing
# worker (spawned, so a fresh interpreter that imports dl to unpickle its
# argument). A module of its own, so that the worker imports only this.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import dl


def affine(t):
    """(pid, 2 t + 1) computed in the worker from the unpickled t."""
    assert type(t) is dl.Tensor
    return os.getpid(), t * 2 + 1
