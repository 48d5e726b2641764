# dl.nn.modules.flatten (torch.nn.modules.flatten): Flatten, Unflatten.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import _home, Flatten, Unflatten

__all__ = ['Flatten', 'Unflatten']

_home(__name__)
