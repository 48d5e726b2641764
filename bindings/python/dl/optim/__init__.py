# dl.optim (torch.optim).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .optimizer import Optimizer
from .sgd import SGD

__all__ = ['Optimizer', 'SGD']
