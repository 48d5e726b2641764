# dl.optim (torch.optim).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .optimizer import Optimizer
from .optimizers import SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS
from . import lr_scheduler

__all__ = ['Optimizer', 'SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'LBFGS', 'lr_scheduler']
