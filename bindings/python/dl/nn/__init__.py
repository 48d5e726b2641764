# dl.nn (torch.nn).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import functional, init
from .modules import (CrossEntropyLoss, Flatten, GELU, Identity, LeakyReLU, Linear, LogSoftmax,
                      Module, NLLLoss, ReLU, Sequential, Sigmoid, SiLU, Softmax, Tanh)
from .parameter import Parameter

__all__ = ['Module', 'Linear', 'Parameter', 'ReLU', 'LeakyReLU', 'Sigmoid', 'Tanh', 'GELU',
           'SiLU', 'Identity', 'Flatten', 'LogSoftmax', 'Softmax', 'Sequential',
           'CrossEntropyLoss', 'NLLLoss', 'functional', 'init']
