# dl.backends.openmp (torch.backends.openmp).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

__all__ = ['is_available']


def is_available():
    """torch.backends.openmp.is_available(): True, libdl's CPU kernels run
    on an OpenMP thread pool (libdl links OpenMP and the OpenMP build of
    OpenBLAS; docs/threading.md)."""
    return True
