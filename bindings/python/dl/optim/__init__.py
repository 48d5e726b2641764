# dl.optim (torch.optim).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .optimizer import Optimizer
from .optimizers import (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam,
                         Rprop, ASGD, LBFGS)
from . import lr_scheduler
from . import swa_utils

__all__ = ['Optimizer', 'SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'Adadelta', 'Adamax',
           'NAdam', 'RAdam', 'Rprop', 'ASGD', 'LBFGS', 'lr_scheduler', 'swa_utils']
