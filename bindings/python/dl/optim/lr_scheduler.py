# lr_scheduler.py: dl.optim.lr_scheduler (torch.optim.lr_scheduler): the C
# schedulers (DlStepLr, ...) with PyTorch's signatures, exceptions and
# state dicts.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings
from collections import Counter

from gi.repository import Gio, GObject

from .._callbacks import from_c
from .._lib import OVERRIDE_MODULE, Dl, GLib, typelib_override
from .._lib import _translate as _python_error

__all__ = ['LRScheduler', 'StepLR', 'MultiStepLR', 'ExponentialLR', 'CosineAnnealingLR',
           'LambdaLR', 'LinearLR', 'OneCycleLR', 'CosineAnnealingWarmRestarts',
           'SequentialLR', 'ReduceLROnPlateau']

# state dict keys: PyTorch's spelling <-> the C property's
_TO_TORCH = {'t_max': 'T_max', 't_0': 'T_0', 't_i': 'T_i', 't_mult': 'T_mult', 't_cur': 'T_cur',
             'milestones': 'milestones'}
_FROM_TORCH = {v: k for k, v in _TO_TORCH.items()}
_PYTHON_ONLY = ('verbose', '_get_lr_called_within_step', 'lr_lambdas', 'mode_worse',
                '_schedule_phases', '_anneal_func', 'use_beta1')


def _translate(e):
    cause = _python_error(e)
    if cause is not e:
        return cause
    if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.ARGUMENT):
        # C names the scheduler ("LinearLR: ..."); PyTorch's messages do not
        name, sep, rest = e.message.partition(': ')
        return ValueError(rest if sep and name in __all__ else e.message)
    return e


def _to_variant(key, value):
    if isinstance(value, GLib.Variant):
        return value
    if isinstance(value, bool):
        return GLib.Variant('b', value)
    if isinstance(value, int):
        return GLib.Variant('x', value)
    if isinstance(value, float):
        return GLib.Variant('d', value)
    if isinstance(value, str):
        return GLib.Variant('s', value)
    if isinstance(value, Counter):
        return GLib.Variant('ax', sorted(value.elements()))
    if isinstance(value, (list, tuple)):
        if key == '_schedulers':
            return GLib.Variant('av', [_state_variant(s) for s in value])
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value) and \
                key not in ('base_lrs', '_last_lr', 'min_lrs'):
            return GLib.Variant('ax', list(value))
        return GLib.Variant('ad', [float(v) for v in value])
    return None


def _state_variant(state_dict):
    entries = {}
    for k, v in state_dict.items():
        if k in _PYTHON_ONLY:
            continue
        k = _FROM_TORCH.get(k, k).lstrip('_') if k in ('_milestones',) else _FROM_TORCH.get(k, k)
        v = _to_variant(k, v)
        if v is not None:
            entries[k] = v
    return GLib.Variant('a{sv}', entries)


def _state_dict(variant):
    state = {}
    for k, v in variant.unpack().items():
        if k == '_schedulers':
            v = [_fix_keys(s) for s in v]
        state[_TO_TORCH.get(k, k)] = v
    return _fix_keys(state)


def _fix_keys(state):
    out = {_TO_TORCH.get(k, k): v for k, v in state.items()}
    out.setdefault('verbose', False)
    return out


@typelib_override(__name__)
class LRScheduler(Dl.LrScheduler):
    """torch.optim.lr_scheduler._LRScheduler over DlLrScheduler: subclass it
    and override do_compute_lr(group, current_lr), the C virtual method."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, last_epoch=-1, verbose=False, **properties):
        try:
            GObject.Object.__init__(self, optimizer=optimizer, last_epoch=int(last_epoch),
                                    **properties)
            self.init(None)
        except GLib.Error as e:
            raise _translate(e) from None

    @property
    def optimizer(self):
        return self.get_optimizer()

    @property
    def last_epoch(self):
        return self.get_last_epoch()

    @property
    def base_lrs(self):
        return [self.get_base_lr(i) for i in range(self.get_optimizer().get_n_param_groups())]

    def get_last_lr(self):
        return list(Dl.LrScheduler.get_last_lr(self))

    def step(self, epoch=None):
        try:
            if epoch is None:
                Dl.LrScheduler.step(self)
            else:
                warnings.warn('The epoch parameter in `scheduler.step()` was not necessary and '
                              'is being deprecated where possible.', UserWarning)
                self.step_to(float(epoch))
        except GLib.Error as e:
            raise _translate(e) from None

    def state_dict(self):
        return _state_dict(self.get_state())

    def load_state_dict(self, state_dict):
        try:
            self.set_state(_state_variant(state_dict))
        except GLib.Error as e:
            raise _translate(e) from None


_LRScheduler = LRScheduler


@typelib_override(__name__)
class StepLR(Dl.StepLr, LRScheduler):
    """torch.optim.lr_scheduler.StepLR over DlStepLr."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        LRScheduler.__init__(self, optimizer, last_epoch, step_size=int(step_size),
                             gamma=float(gamma))


@typelib_override(__name__)
class MultiStepLR(Dl.MultiStepLr, LRScheduler):
    """torch.optim.lr_scheduler.MultiStepLR over DlMultiStepLr."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        LRScheduler.__init__(self, optimizer, last_epoch,
                             milestones=GLib.Variant('ax', sorted(int(m) for m in milestones)),
                             gamma=float(gamma))

    @property
    def milestones(self):
        return Counter(self.props.milestones.unpack())


@typelib_override(__name__)
class ExponentialLR(Dl.ExponentialLr, LRScheduler):
    """torch.optim.lr_scheduler.ExponentialLR over DlExponentialLr."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        LRScheduler.__init__(self, optimizer, last_epoch, gamma=float(gamma))


@typelib_override(__name__)
class CosineAnnealingLR(Dl.CosineAnnealingLr, LRScheduler):
    """torch.optim.lr_scheduler.CosineAnnealingLR over DlCosineAnnealingLr."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        LRScheduler.__init__(self, optimizer, last_epoch, t_max=int(T_max),
                             eta_min=float(eta_min))


@typelib_override(__name__)
class LinearLR(Dl.LinearLr, LRScheduler):
    """torch.optim.lr_scheduler.LinearLR over DlLinearLr."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1, verbose=False):
        LRScheduler.__init__(self, optimizer, last_epoch, start_factor=float(start_factor),
                             end_factor=float(end_factor), total_iters=int(total_iters))
        # PyTorch's arithmetic on these is int or float as given, which
        # its ZeroDivisionError's message shows
        self._int_args = all(isinstance(v, int) for v in (start_factor, end_factor, total_iters))

    def step(self, epoch=None):
        try:
            LRScheduler.step(self, epoch)
        except GLib.Error as e:
            if 'division by zero' not in e.message:
                raise
            raise ZeroDivisionError('division by zero' if self._int_args
                                    else 'float division by zero') from None


@typelib_override(__name__)
class LambdaLR(Dl.LambdaLr, LRScheduler):
    """torch.optim.lr_scheduler.LambdaLR over DlLambdaLr: one function, or
    one per parameter group."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        n = optimizer.get_n_param_groups()
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError('Expected {} lr_lambdas, but got {}'.format(n, len(lr_lambda)))
            lambdas = list(lr_lambda)
        else:
            lambdas = [lr_lambda] * n
        self.lr_lambdas = lambdas
        try:
            GObject.Object.__init__(self, optimizer=optimizer, last_epoch=int(last_epoch))
            self.set_lambda(from_c(lambda group, epoch: float(lambdas[group](epoch))))
            self.init(None)
        except GLib.Error as e:
            raise _translate(e) from None


@typelib_override(__name__)
class OneCycleLR(Dl.OneCycleLr, LRScheduler):
    """torch.optim.lr_scheduler.OneCycleLR over DlOneCycleLr."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25., final_div_factor=1e4, three_phase=False,
                 last_epoch=-1, verbose=False):
        n = optimizer.get_n_param_groups()
        if isinstance(max_lr, (list, tuple)):
            if len(max_lr) != n:
                raise ValueError('expected {} values for max_lr, got {}'.format(n, len(max_lr)))
            for i, v in enumerate(max_lr):
                optimizer.set_group_option(i, 'max_lr', float(v))
            max_lr = 0.0
        # a momentum per group: the groups' options, which C reads when
        # the property is negative
        per_group = {}
        for name, v in (('max_momentum', max_momentum), ('base_momentum', base_momentum)):
            if cycle_momentum and isinstance(v, (list, tuple)):
                if len(v) != n:
                    raise ValueError('expected {} values for {}, got {}'.format(n, name, len(v)))
                per_group[name] = [float(x) for x in v]
        for name, values in per_group.items():
            for i, v in enumerate(values):
                optimizer.set_group_option(i, name, v)
        if 'max_momentum' in per_group or isinstance(max_momentum, (list, tuple)):
            max_momentum = -1.0
        if 'base_momentum' in per_group or isinstance(base_momentum, (list, tuple)):
            base_momentum = -1.0
        for name, v in (('total_steps', total_steps), ('epochs', epochs),
                        ('steps_per_epoch', steps_per_epoch)):
            if v is not None and (not isinstance(v, int) or v <= 0):
                raise ValueError('Expected positive integer {}, but got {}'.format(name, v))
        LRScheduler.__init__(self, optimizer, last_epoch, max_lr=float(max_lr),
                             total_steps=int(total_steps or 0), epochs=int(epochs or 0),
                             steps_per_epoch=int(steps_per_epoch or 0),
                             pct_start=float(pct_start), anneal_strategy=str(anneal_strategy),
                             cycle_momentum=bool(cycle_momentum),
                             base_momentum=float(base_momentum),
                             max_momentum=float(max_momentum), div_factor=float(div_factor),
                             final_div_factor=float(final_div_factor),
                             three_phase=bool(three_phase))

    @property
    def total_steps(self):
        return self.props.total_steps


@typelib_override(__name__)
class CosineAnnealingWarmRestarts(Dl.CosineAnnealingWarmRestarts, LRScheduler):
    """torch.optim.lr_scheduler.CosineAnnealingWarmRestarts over
    DlCosineAnnealingWarmRestarts."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError('Expected positive integer T_0, but got {}'.format(T_0))
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError('Expected integer T_mult >= 1, but got {}'.format(T_mult))
        LRScheduler.__init__(self, optimizer, last_epoch, t_0=T_0, t_mult=T_mult,
                             eta_min=float(eta_min))

    def step(self, epoch=None):
        # a fractional epoch is this scheduler's documented use, no warning
        try:
            if epoch is None:
                Dl.LrScheduler.step(self)
            else:
                self.step_to(float(epoch))
        except GLib.Error as e:
            raise _translate(e) from None

    @property
    def T_cur(self):
        return self.props.t_cur

    @property
    def T_i(self):
        return self.props.t_i


@typelib_override(__name__)
class SequentialLR(Dl.SequentialLr, LRScheduler):
    """torch.optim.lr_scheduler.SequentialLR over DlSequentialLr."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        store = Gio.ListStore.new(Dl.LrScheduler)
        store.splice(0, 0, list(schedulers))
        self._schedulers = list(schedulers)
        LRScheduler.__init__(self, optimizer, last_epoch, schedulers=store,
                             milestones=GLib.Variant('ax', [int(m) for m in milestones]))

    def state_dict(self):
        state = LRScheduler.state_dict(self)
        state['_milestones'] = state.pop('milestones')
        return state


@typelib_override(__name__)
class ReduceLROnPlateau(Dl.ReduceLrOnPlateau, LRScheduler):
    """torch.optim.lr_scheduler.ReduceLROnPlateau over DlReduceLrOnPlateau:
    step(metrics)."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        per_group = isinstance(min_lr, (list, tuple))
        LRScheduler.__init__(self, optimizer, -1, mode=str(mode), factor=float(factor),
                             patience=int(patience), threshold=float(threshold),
                             threshold_mode=str(threshold_mode), cooldown=int(cooldown),
                             min_lr=0.0 if per_group else float(min_lr), eps=float(eps))
        if per_group:
            n = optimizer.get_n_param_groups()
            if len(min_lr) != n:
                raise ValueError('expected {} min_lrs, got {}'.format(n, len(min_lr)))
            self.set_min_lrs([float(v) for v in min_lr])

    def step(self, metrics, epoch=None):
        if epoch is not None:
            warnings.warn('The epoch parameter in `scheduler.step()` was not necessary and is '
                          'being deprecated where possible.', UserWarning)
        try:
            self.step_metric(float(metrics))
        except GLib.Error as e:
            raise _translate(e) from None

    @property
    def best(self):
        return self.props.best

    @property
    def num_bad_epochs(self):
        return self.props.num_bad_epochs

    @property
    def in_cooldown(self):
        return self.props.cooldown_counter > 0
