# dl.autograd (torch.autograd): grad(), custom Functions, the grad-mode
# helpers, anomaly mode and autograd.functional; Tensor.backward is the
# other entry point.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import function, functional, variable
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import backward, grad
from .function import Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'is_grad_enabled', 'inference_mode',
           'grad', 'backward',
           'Function', 'detect_anomaly', 'set_detect_anomaly', 'functional', 'gradcheck',
           'gradgradcheck', 'GradcheckError', 'Variable', 'variable']
