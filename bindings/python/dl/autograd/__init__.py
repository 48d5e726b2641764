# dl.autograd (torch.autograd): for now the grad-mode helpers; backward is
# Tensor.backward.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'is_grad_enabled', 'gradcheck',
           'gradgradcheck', 'GradcheckError']
