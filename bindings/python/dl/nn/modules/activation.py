# dl.nn.modules.activation (torch.nn.modules.activation):
# the activation layers and MultiheadAttention.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import _home, GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from ..conv import ELU, Hardtanh, Softplus
from ..transformer import MultiheadAttention
from ..activation import (CELU, GLU, Hardshrink, Hardsigmoid, Hardswish, LogSigmoid, Mish, PReLU,
                          ReLU6, RReLU, SELU, Softmax2d, Softmin, Softshrink, Softsign,
                          Tanhshrink, Threshold)

__all__ = ['ReLU', 'LeakyReLU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'Softmax', 'LogSoftmax', 'ELU',
           'Hardtanh', 'Softplus', 'MultiheadAttention', 'ReLU6', 'Hardswish', 'Hardsigmoid',
           'Hardshrink', 'Softshrink', 'Tanhshrink', 'Softsign', 'SELU', 'CELU', 'Mish',
           'LogSigmoid', 'Threshold', 'RReLU', 'PReLU', 'GLU', 'Softmin', 'Softmax2d']

_home(__name__)
