# parameter.py: Parameter.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._creation import empty

__all__ = ['Parameter']


def Parameter(data=None, requires_grad=True):
    """nn.Parameter: a leaf tensor sharing data's storage that requires grad."""
    if data is None:
        data = empty(0)
    p = data.detach()
    p.set_requires_grad(bool(requires_grad))
    return p
