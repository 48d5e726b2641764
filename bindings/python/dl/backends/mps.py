# dl.backends.mps (torch.backends.mps): Apple's Metal backend, which libdl
# does not have.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

__all__ = ['is_available', 'is_built']


def is_available():
    """torch.backends.mps.is_available(): False, libdl has no MPS backend."""
    return False


def is_built():
    """torch.backends.mps.is_built(): False, libdl is built without MPS."""
    return False
