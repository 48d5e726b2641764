# swa_utils.py: dl.optim.swa_utils (torch.optim.swa_utils): stochastic
# weight averaging over libdl's modules and schedulers, in Python as
# PyTorch 1.13's: AveragedModel, SWALR and update_bn.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import itertools
import math
from copy import deepcopy

from .. import _creation
from .._dtype import int64
from .._lib import OVERRIDE_MODULE
from ..autograd.grad_mode import no_grad
from ..nn.modules import Module
from ..nn.normalization import _BatchNorm
from .lr_scheduler import _PythonScheduler, LRScheduler, _c_state

__all__ = ['AveragedModel', 'update_bn', 'SWALR']


class AveragedModel(Module):
    """torch.optim.swa_utils.AveragedModel(model, device=None, avg_fn=None,
    use_buffers=False): a copy of @model whose parameters (and, with
    use_buffers, buffers) are the running average that update_parameters
    keeps, by default the equal-weight mean."""

    def __init__(self, model, device=None, avg_fn=None, use_buffers=False):
        super().__init__()
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer('n_averaged', _creation.tensor(0, dtype=int64, device=device))
        if avg_fn is None:
            def avg_fn(averaged_model_parameter, model_parameter, num_averaged):
                return averaged_model_parameter + \
                    (model_parameter - averaged_model_parameter) / (num_averaged + 1)
        self.avg_fn = avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        n = self.n_averaged
        for p_swa, p_model in zip(mine, theirs):
            device = p_swa.device
            p_model_ = p_model.detach().to(device)
            if n == 0:
                p_swa.detach().copy_(p_model_)
            else:
                p_swa.detach().copy_(self.avg_fn(p_swa.detach(), p_model_, n.to(device)))
        n += 1


@no_grad()
def update_bn(loader, model, device=None):
    """One pass over @loader in training mode with every batch norm layer's
    running statistics reset and cumulative (momentum None), so that they
    become the statistics of the averaged model's activations."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = _creation.zeros_like(module.running_mean)
            module.running_var = _creation.ones_like(module.running_var)
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
        module.num_batches_tracked *= 0
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(_PythonScheduler):
    """torch.optim.swa_utils.SWALR(optimizer, swa_lr, anneal_epochs=10,
    anneal_strategy='cos'): anneals each group's rate to its swa_lr over
    anneal_epochs, then keeps it there."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('anneal_func', 'anneal_epochs')

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos',
                 last_epoch=-1, verbose=False):
        swa_lrs = self._format_param(optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group['swa_lr'] = lr
        if anneal_strategy not in ['cos', 'linear']:
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got "
                             "{}".format(anneal_strategy))
        self.anneal_func = self._cosine_anneal if anneal_strategy == 'cos' \
            else self._linear_anneal
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError('anneal_epochs must be equal or greater than 0, got '
                             '{}'.format(anneal_epochs))
        self.anneal_epochs = anneal_epochs
        LRScheduler.__init__(self, optimizer, last_epoch, verbose)

    @staticmethod
    def _format_param(optimizer, swa_lrs):
        n = optimizer.get_n_param_groups()
        if isinstance(swa_lrs, (list, tuple)):
            if len(swa_lrs) != n:
                raise ValueError('swa_lr must have the same length as optimizer.param_groups: '
                                 'swa_lr has {}, optimizer.param_groups has {}'.format(
                                     len(swa_lrs), n))
            return list(swa_lrs)
        return [swa_lrs] * n

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def do_compute_lr(self, group, current_lr):
        # PyTorch's _step_count counts the step being taken
        step = _c_state(self.get_state())['_step_count'] - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        swa_lr = self.get_optimizer().param_groups[group]['swa_lr']
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_lr = self._get_initial_lr(current_lr, swa_lr, self.anneal_func(prev_t))
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return swa_lr * alpha + prev_lr * (1 - alpha)
