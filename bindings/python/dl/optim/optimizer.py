# optimizer.py: Optimizer, over DlOptimizer.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import OVERRIDE_MODULE, Dl, typelib_override
from ..autograd.grad_mode import enable_grad

__all__ = ['Optimizer']


@typelib_override(__name__)
class Optimizer(Dl.Optimizer):
    """torch.optim.Optimizer over DlOptimizer."""
    __module__ = OVERRIDE_MODULE

    def zero_grad(self, set_to_none=True):
        Dl.Optimizer.zero_grad(self, bool(set_to_none))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        Dl.Optimizer.step(self)
        return loss

    @property
    def param_groups(self):
        return [{'params': list(self.get_params()), 'lr': self.get_lr()}]
