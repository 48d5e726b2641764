# dl.backends.mkl (torch.backends.mkl).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

__all__ = ['is_available']


def is_available():
    """torch.backends.mkl.is_available(): False, libdl uses OpenBLAS, not
    Intel's MKL."""
    return False
