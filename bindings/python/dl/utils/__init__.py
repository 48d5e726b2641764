# dl.utils (torch.utils).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import data, dlpack

__all__ = ['data', 'dlpack']
