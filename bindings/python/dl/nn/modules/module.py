# dl.nn.modules.module (torch.nn.modules.module): Module.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import _home, Module

__all__ = ['Module']

_home(__name__)
