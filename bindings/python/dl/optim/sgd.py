# sgd.py: SGD, which makes a DlSgd.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import Dl, GLib

__all__ = ['SGD']


def _params_list(params):
    params = list(params)
    if params and isinstance(params[0], dict):
        raise NotImplementedError('parameter groups arrive with the optim milestone')
    return params


def SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
        maximize=False, foreach=None, differentiable=False):
    """torch.optim.SGD: a DlSgd (an Optimizer) over params."""
    if maximize:
        raise NotImplementedError('SGD(maximize=True) arrives with the optim milestone')
    try:
        return Dl.Sgd.new(_params_list(params), float(lr), float(momentum), float(dampening),
                          float(weight_decay), bool(nesterov))
    except GLib.Error as e:
        raise ValueError(e.message) from None
