# dl.nn.modules.activation (torch.nn.modules.activation):
# the activation layers and MultiheadAttention.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import _home, GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from ..conv import ELU, Hardtanh, Softplus
from ..transformer import MultiheadAttention

__all__ = ['ReLU', 'LeakyReLU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'Softmax', 'LogSoftmax', 'ELU',
           'Hardtanh', 'Softplus', 'MultiheadAttention']

_home(__name__)
