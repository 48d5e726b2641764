# dl.cpu (torch.cpu): its amp module.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import amp

__all__ = ['amp']
