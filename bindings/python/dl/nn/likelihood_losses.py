# likelihood_losses.py: torch.nn.GaussianNLLLoss and PoissonNLLLoss and
# their functions, compositions of pointwise ops and a reduction as torch's
# (gaussian_nll_loss is Python in torch too, poisson_nll_loss an ATen
# composite), so their gradients are those of the ops.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

from .modules import Module

__all__ = ['gaussian_nll_loss', 'poisson_nll_loss', 'GaussianNLLLoss', 'PoissonNLLLoss']


def _legacy_reduction(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return 'mean' if size_average and reduce else 'sum' if reduce else 'none'


def _reduce(loss, reduction):
    if reduction == 'mean':
        return loss.mean()
    if reduction == 'sum':
        return loss.sum()
    return loss


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean'):
    """torch.nn.functional.gaussian_nll_loss: 0.5 (log var + (input -
    target)^2 / var) (+ 0.5 log 2 pi with full), var clamped to eps
    without stopping its gradient, as torch's."""
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.size(-1) == 1:
            pass
        else:
            raise ValueError('var is of incorrect size')
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(reduction + ' is not valid')
    if bool((var < 0).any()):
        raise ValueError('var has negative entry/entries')
    # torch clamps a clone in place under no_grad: the value clamped, the
    # gradient passed through unchanged
    var = var + (var.clamp(min=eps) - var).detach()
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction='mean'):
    """torch.nn.functional.poisson_nll_loss: exp(input) - target input
    (log_input) or input - target log(input + eps), plus Stirling's term
    where target > 1 with full."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(reduction + ' is not valid')
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def _torch_poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """torch.poisson_nll_loss(input, target, log_input, full, eps, reduction),
    the reduction an int (0 none, 1 mean, 2 sum)."""
    return poisson_nll_loss(input, target, log_input, full, eps=eps,
                            reduction=('none', 'mean', 'sum')[reduction])


class GaussianNLLLoss(Module):
    """torch.nn.GaussianNLLLoss(*, full=False, eps=1e-06, reduction='mean');
    called with (input, target, var)."""

    def __init__(self, *, full=False, eps=1e-6, reduction='mean'):
        super().__init__()
        self.full, self.eps, self.reduction = full, eps, reduction

    def forward(self, input, target, var):
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                 reduction=self.reduction)


class PoissonNLLLoss(Module):
    """torch.nn.PoissonNLLLoss(log_input=True, full=False, size_average=None,
    eps=1e-08, reduce=None, reduction='mean')."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction='mean'):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.log_input, self.full, self.eps, self.reduction = log_input, full, eps, reduction

    def forward(self, log_input, target):
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                eps=self.eps, reduction=self.reduction)
