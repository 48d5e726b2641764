# lr_scheduler.py: dl.optim.lr_scheduler (torch.optim.lr_scheduler): the C
# schedulers (DlStepLr, ...) with PyTorch's signatures, exceptions and
# state dicts.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import types
import warnings
from collections import Counter

from gi.repository import Gio, GObject

from .._callbacks import from_c
from .._lib import OVERRIDE_MODULE, Dl, GLib, check_property_ranges, typelib_override
from .._lib import _translate as _python_error

__all__ = ['LRScheduler', 'StepLR', 'MultiStepLR', 'ExponentialLR', 'CosineAnnealingLR',
           'LambdaLR', 'LinearLR', 'OneCycleLR', 'CosineAnnealingWarmRestarts',
           'SequentialLR', 'ReduceLROnPlateau', 'ConstantLR', 'MultiplicativeLR',
           'PolynomialLR', 'CyclicLR', 'ChainedScheduler']

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
        message = rest if sep and name in __all__ else e.message
        if "'initial_lr' is not specified" in message:
            return KeyError(message)
        return ValueError(message)
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


def _c_state(variant):
    """The C scheduler's state (an a{sv}) with PyTorch's spelling of its
    keys."""
    return {_TO_TORCH.get(k, k): v for k, v in variant.unpack().items()}


# what torch.optim.lr_scheduler._LRScheduler.state_dict() ends with, in order
_BASE_KEYS = ('base_lrs', 'last_epoch', 'verbose', '_step_count', '_get_lr_called_within_step',
              '_last_lr')


@typelib_override(__name__)
class LRScheduler(Dl.LrScheduler):
    """torch.optim.lr_scheduler._LRScheduler over DlLrScheduler: subclass it
    and override do_compute_lr(group, current_lr), the C virtual method."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, last_epoch=-1, verbose=False, **properties):
        check_property_ranges(type(self), properties, type(self).__name__)
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

    # the keys PyTorch's state dict has before _BASE_KEYS, in its order
    _torch_keys = ()

    def _given(self):
        return self.__dict__.setdefault('_given_values', {})

    def _remember(self, **given):
        """Keeps the hyperparameters as given: PyTorch's state dict has
        them with their types (eta_min=0 stays an int)."""
        self._given().update(given)

    def _torch_value(self, key, c):
        v = c[key]
        given = self._given().get(key)
        if isinstance(given, (int, float, list)) and not isinstance(given, bool) and given == v:
            return list(given) if isinstance(given, list) else given
        return v

    def state_dict(self):
        """torch.optim.lr_scheduler's state dict: the same keys, in the
        same order, with the same values."""
        c = _c_state(self.get_state())
        c.update(verbose=False, _get_lr_called_within_step=False)
        out = {k: self._torch_value(k, c) for k in self._torch_keys}
        out.update((k, c[k]) for k in _BASE_KEYS)
        return out

    def _c_entries(self, state_dict):
        """The entries of a PyTorch state dict that the C scheduler reads."""
        return dict(state_dict)

    def load_state_dict(self, state_dict):
        self._remember(**{k: v for k, v in state_dict.items()
                          if isinstance(v, (int, float)) and not isinstance(v, bool)
                          or k == 'min_lrs'})
        try:
            self.set_state(_state_variant(self._c_entries(state_dict)))
        except GLib.Error as e:
            raise _translate(e) from None


_LRScheduler = LRScheduler


@typelib_override(__name__)
class StepLR(Dl.StepLr, LRScheduler):
    """torch.optim.lr_scheduler.StepLR over DlStepLr."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('step_size', 'gamma')

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self._remember(step_size=step_size, gamma=gamma)
        LRScheduler.__init__(self, optimizer, last_epoch, step_size=int(step_size),
                             gamma=float(gamma))


@typelib_override(__name__)
class MultiStepLR(Dl.MultiStepLr, LRScheduler):
    """torch.optim.lr_scheduler.MultiStepLR over DlMultiStepLr."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('milestones', 'gamma')

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self._remember(gamma=gamma)
        LRScheduler.__init__(self, optimizer, last_epoch,
                             milestones=GLib.Variant('ax', sorted(int(m) for m in milestones)),
                             gamma=float(gamma))

    @property
    def milestones(self):
        return Counter(self.props.milestones.unpack())

    def _torch_value(self, key, c):
        if key == 'milestones':
            return Counter(c[key])
        return LRScheduler._torch_value(self, key, c)


@typelib_override(__name__)
class ExponentialLR(Dl.ExponentialLr, LRScheduler):
    """torch.optim.lr_scheduler.ExponentialLR over DlExponentialLr."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('gamma',)

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self._remember(gamma=gamma)
        LRScheduler.__init__(self, optimizer, last_epoch, gamma=float(gamma))


@typelib_override(__name__)
class CosineAnnealingLR(Dl.CosineAnnealingLr, LRScheduler):
    """torch.optim.lr_scheduler.CosineAnnealingLR over DlCosineAnnealingLr."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('T_max', 'eta_min')

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self._remember(T_max=T_max, eta_min=eta_min)
        LRScheduler.__init__(self, optimizer, last_epoch, t_max=int(T_max),
                             eta_min=float(eta_min))


@typelib_override(__name__)
class LinearLR(Dl.LinearLr, LRScheduler):
    """torch.optim.lr_scheduler.LinearLR over DlLinearLr."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('start_factor', 'end_factor', 'total_iters')

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1, verbose=False):
        self._remember(start_factor=start_factor, end_factor=end_factor, total_iters=total_iters)
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


def _init_with_lambdas(self, optimizer, lr_lambda, last_epoch):
    """LambdaLR's and MultiplicativeLR's construction: one function, or one
    per group, then the initial step."""
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
class LambdaLR(Dl.LambdaLr, LRScheduler):
    """torch.optim.lr_scheduler.LambdaLR over DlLambdaLr: one function, or
    one per parameter group."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        _init_with_lambdas(self, optimizer, lr_lambda, last_epoch)

    def state_dict(self):
        # PyTorch keeps a callable object's attributes, None for a function
        state = LRScheduler.state_dict(self)
        state['lr_lambdas'] = [None if isinstance(fn, types.FunctionType) else dict(fn.__dict__)
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved = state.pop('lr_lambdas', [None] * len(self.lr_lambdas))
        LRScheduler.load_state_dict(self, state)
        for fn, attrs in zip(self.lr_lambdas, saved):
            if attrs is not None:
                fn.__dict__.update(attrs)


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

    @property
    def use_beta1(self):
        return 'betas' in getattr(self.get_optimizer(), 'defaults', {})

    def _annealing_cos(self, start, end, pct):
        "Cosine anneal from `start` to `end` as pct goes from 0.0 to 1.0."
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    def _annealing_linear(self, start, end, pct):
        "Linearly anneal from `start` to `end` as pct goes from 0.0 to 1.0."
        return (end - start) * pct + start

    @property
    def anneal_func(self):
        return self._annealing_cos if self.props.anneal_strategy == 'cos' \
            else self._annealing_linear

    @property
    def _schedule_phases(self):
        # PyTorch's table, from what C computes the phases with
        total, pct = self.props.total_steps, self.props.pct_start
        if self.props.three_phase:
            return [
                dict(end_step=float(pct * total) - 1, start_lr='initial_lr', end_lr='max_lr',
                     start_momentum='max_momentum', end_momentum='base_momentum'),
                dict(end_step=float(2 * pct * total) - 2, start_lr='max_lr',
                     end_lr='initial_lr', start_momentum='base_momentum',
                     end_momentum='max_momentum'),
                dict(end_step=total - 1, start_lr='initial_lr', end_lr='min_lr',
                     start_momentum='max_momentum', end_momentum='max_momentum')]
        return [
            dict(end_step=float(pct * total) - 1, start_lr='initial_lr', end_lr='max_lr',
                 start_momentum='max_momentum', end_momentum='base_momentum'),
            dict(end_step=total - 1, start_lr='max_lr', end_lr='min_lr',
                 start_momentum='base_momentum', end_momentum='max_momentum')]

    @property
    def _torch_keys(self):
        keys = ('total_steps', '_schedule_phases', 'anneal_func', 'cycle_momentum')
        return keys + ('use_beta1',) if self.props.cycle_momentum else keys

    def _torch_value(self, key, c):
        if key in ('_schedule_phases', 'anneal_func', 'use_beta1'):
            return getattr(self, key)
        return LRScheduler._torch_value(self, key, c)

    def _c_entries(self, state_dict):
        # C keeps the phases as pct_start and three_phase
        state = dict(state_dict)
        phases = state.pop('_schedule_phases', None)
        fn = state.pop('anneal_func', None)
        state.pop('use_beta1', None)
        if phases:
            state['three_phase'] = len(phases) == 3
            state['pct_start'] = (phases[0]['end_step'] + 1) / state['total_steps']
        if fn is not None:
            state['anneal_strategy'] = 'linear' if 'linear' in fn.__name__ else 'cos'
        return state


@typelib_override(__name__)
class CosineAnnealingWarmRestarts(Dl.CosineAnnealingWarmRestarts, LRScheduler):
    """torch.optim.lr_scheduler.CosineAnnealingWarmRestarts over
    DlCosineAnnealingWarmRestarts."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('T_0', 'T_i', 'T_mult', 'eta_min', 'T_cur')

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        self._remember(eta_min=eta_min)
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
                # PyTorch's T_cur is a float once an epoch is one
                if not isinstance(epoch, int):
                    self._float_t_cur = True
                self.step_to(float(epoch))
        except GLib.Error as e:
            raise _translate(e) from None

    def _torch_value(self, key, c):
        if key == 'T_cur':
            v = c[key]
            return int(v) if v.is_integer() and not self.__dict__.get('_float_t_cur') else v
        return LRScheduler._torch_value(self, key, c)

    def state_dict(self):
        # its step() is PyTorch's own, which leaves _step_count at 0
        state = LRScheduler.state_dict(self)
        state['_step_count'] = 0
        return state

    def _c_entries(self, state_dict):
        state = dict(state_dict)
        state.pop('_step_count', None)
        if isinstance(state.get('T_cur'), float):
            self._float_t_cur = True
        return state

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
        # PyTorch's SequentialLR keeps no base_lrs nor step count
        c = _c_state(self.get_state())
        return {'_milestones': c['milestones'], 'last_epoch': c['last_epoch'],
                '_last_lr': c['_last_lr'],
                '_schedulers': [s.state_dict() for s in self._schedulers]}

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved = state.pop('_schedulers', None)
        LRScheduler.load_state_dict(self, state)
        if saved is not None:
            if len(saved) != len(self._schedulers):
                raise ValueError('SequentialLR.load_state_dict: expected {} scheduler states, '
                                 'got {}'.format(len(self._schedulers), len(saved)))
            for s, sd in zip(self._schedulers, saved):
                s.load_state_dict(sd)


@typelib_override(__name__)
class ReduceLROnPlateau(Dl.ReduceLrOnPlateau, LRScheduler):
    """torch.optim.lr_scheduler.ReduceLROnPlateau over DlReduceLrOnPlateau:
    step(metrics)."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        per_group = isinstance(min_lr, (list, tuple))
        self._remember(factor=factor, patience=patience, threshold=threshold, cooldown=cooldown,
                       eps=eps, min_lrs=list(min_lr) if per_group
                       else [min_lr] * optimizer.get_n_param_groups())
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

    _torch_keys = ('factor', 'min_lrs', 'patience', 'verbose', 'cooldown', 'cooldown_counter',
                   'mode', 'threshold', 'threshold_mode', 'best', 'num_bad_epochs', 'mode_worse',
                   'eps', 'last_epoch')

    def state_dict(self):
        # PyTorch's ReduceLROnPlateau is no _LRScheduler: its own keys, and
        # _last_lr from its first step on
        c = _c_state(self.get_state())
        c.update(verbose=False, mode_worse=math.inf if c['mode'] == 'min' else -math.inf)
        out = {k: self._torch_value(k, c) for k in self._torch_keys}
        if c['last_epoch'] > 0:
            out['_last_lr'] = c['_last_lr']
        return out

    def _c_entries(self, state_dict):
        state = dict(state_dict)
        state.pop('mode_worse', None)
        return state

    @property
    def best(self):
        return self.props.best

    @property
    def num_bad_epochs(self):
        return self.props.num_bad_epochs

    @property
    def in_cooldown(self):
        return self.props.cooldown_counter > 0


# ---- ConstantLR, PolynomialLR, MultiplicativeLR, CyclicLR (C) ---------------------


@typelib_override(__name__)
class ConstantLR(Dl.ConstantLr, LRScheduler):
    """torch.optim.lr_scheduler.ConstantLR over DlConstantLr."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('factor', 'total_iters')

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        self._remember(factor=factor, total_iters=total_iters)
        LRScheduler.__init__(self, optimizer, last_epoch, factor=float(factor),
                             total_iters=int(total_iters))


@typelib_override(__name__)
class PolynomialLR(Dl.PolynomialLr, LRScheduler):
    """torch.optim.lr_scheduler.PolynomialLR over DlPolynomialLr."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('total_iters', 'power')

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        self._remember(total_iters=total_iters, power=power)
        LRScheduler.__init__(self, optimizer, last_epoch, total_iters=int(total_iters),
                             power=float(power))


@typelib_override(__name__)
class MultiplicativeLR(Dl.MultiplicativeLr, LRScheduler):
    """torch.optim.lr_scheduler.MultiplicativeLR over DlMultiplicativeLr:
    one function, or one per parameter group."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        _init_with_lambdas(self, optimizer, lr_lambda, last_epoch)

    # PyTorch keeps a callable object's attributes, None for a function
    state_dict = LambdaLR.state_dict
    load_state_dict = LambdaLR.load_state_dict


def _per_group(name, optimizer, value):
    n = optimizer.get_n_param_groups()
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError('expected {} values for {}, got {}'.format(n, name, len(value)))
        return list(value)
    return [value] * n


def _doubles(values):
    return GLib.Variant('ad', [float(v) for v in values])


@typelib_override(__name__)
class CyclicLR(Dl.CyclicLr, LRScheduler):
    """torch.optim.lr_scheduler.CyclicLR over DlCyclicLr; a scale_fn is
    called with the cycle (or the step) as DlCyclicLr's scale function."""
    __module__ = OVERRIDE_MODULE

    _torch_keys = ('max_lrs', 'total_size', 'step_ratio', 'mode', 'gamma', '_scale_fn_custom',
                   '_scale_fn_ref', 'scale_mode', 'cycle_momentum', 'base_momentums',
                   'max_momentums')
    _LISTS = ('max_lrs', 'base_momentums', 'max_momentums')

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode='triangular', gamma=1., scale_fn=None, scale_mode='cycle',
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1,
                 verbose=False):
        if not isinstance(optimizer, Dl.Optimizer):
            raise TypeError('{} is not an Optimizer'.format(type(optimizer).__name__))
        groups = optimizer.param_groups
        base_lrs = _per_group('base_lr', optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, groups):
                group['lr'] = lr
        max_lrs = _per_group('max_lr', optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        if mode not in ['triangular', 'triangular2', 'exp_range'] and scale_fn is None:
            raise ValueError('mode is invalid and scale_fn is None')
        if scale_fn is None:
            scale_mode = 'iterations' if mode == 'exp_range' else 'cycle'
        props = dict(max_lrs=_doubles(max_lrs), total_size=up + down, step_ratio=up / (up + down),
                     mode=str(mode), gamma=float(gamma), scale_mode=str(scale_mode),
                     cycle_momentum=bool(cycle_momentum))
        self._remember(max_lrs=max_lrs, gamma=gamma)
        if cycle_momentum:
            if 'momentum' not in getattr(optimizer, 'defaults', {}):
                raise ValueError('optimizer must support momentum with `cycle_momentum` option '
                                 'enabled')
            base_momentums = _per_group('base_momentum', optimizer, base_momentum)
            if last_epoch == -1:
                for momentum, group in zip(base_momentums, groups):
                    group['momentum'] = momentum
            max_momentums = _per_group('max_momentum', optimizer, max_momentum)
            props.update(base_momentums=_doubles(g['momentum'] for g in groups),
                         max_momentums=_doubles(max_momentums))
            self._remember(max_momentums=max_momentums)
        self._scale_fn_custom = scale_fn
        try:
            GObject.Object.__init__(self, optimizer=optimizer, last_epoch=int(last_epoch),
                                    **props)
            if scale_fn is not None:
                self.set_scale_fn(from_c(lambda group, x: float(scale_fn(x))))
            self.init(None)
        except GLib.Error as e:
            raise _translate(e) from None

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.props.mode == 'triangular':
            return 1.
        if self.props.mode == 'triangular2':
            return 1 / (2. ** (x - 1))
        return self.props.gamma ** x

    def state_dict(self):
        c = _c_state(self.get_state())
        # PyTorch keeps its own scale method through a weak reference here
        c.update(verbose=False, _get_lr_called_within_step=False,
                 _scale_fn_custom=self._scale_fn_custom, _scale_fn_ref=None)
        out = {k: self._torch_value(k, c) for k in self._torch_keys if k in c}
        out.update((k, c[k]) for k in _BASE_KEYS)
        return out

    def _c_entries(self, state_dict):
        state = {k: v for k, v in state_dict.items()
                 if k not in ('_scale_fn_custom', '_scale_fn_ref')}
        for k in self._LISTS:
            if state.get(k) is not None:
                state[k] = _doubles(state[k])
        return state


# ---- Python over DlLrScheduler -------------------------------------------------------


class _PythonScheduler(LRScheduler):
    """A scheduler written in Python over DlLrScheduler (do_compute_lr),
    its hyperparameters Python attributes saved in the state dict ahead
    of the base's keys."""
    _torch_keys = ()

    def state_dict(self):
        c = _c_state(self.get_state())
        c.update(verbose=False, _get_lr_called_within_step=False)
        out = {k: getattr(self, k) for k in self._torch_keys}
        out.update((k, c[k]) for k in _BASE_KEYS)
        return out

    def load_state_dict(self, state_dict):
        for k in self._torch_keys:
            if k in state_dict:
                setattr(self, k, state_dict[k])
        LRScheduler.load_state_dict(self, {k: v for k, v in state_dict.items()
                                           if k not in self._torch_keys})


@typelib_override(__name__)
class ChainedScheduler(Dl.ChainedScheduler, LRScheduler):
    """torch.optim.lr_scheduler.ChainedScheduler over DlChainedScheduler."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, schedulers):
        schedulers = list(schedulers)
        for i in range(1, len(schedulers)):
            if schedulers[i].optimizer is not schedulers[0].optimizer:
                raise ValueError(
                    'ChainedScheduler expects all schedulers to belong to the same optimizer, '
                    'but got schedulers at index {} and {} to be different'.format(0, i))
        store = Gio.ListStore.new(Dl.LrScheduler)
        store.splice(0, 0, schedulers)
        self._schedulers = schedulers
        try:
            GObject.Object.__init__(self, optimizer=schedulers[0].optimizer, schedulers=store)
            self.init(None)
        except GLib.Error as e:
            raise _translate(e) from None

    def state_dict(self):
        # PyTorch's ChainedScheduler keeps only these
        return {'_last_lr': self.get_last_lr(),
                '_schedulers': [s.state_dict() for s in self._schedulers]}

    def load_state_dict(self, state_dict):
        self.set_state(GLib.Variant('a{sv}', {'_last_lr': _doubles(state_dict['_last_lr'])}))
        for s, sd in zip(self._schedulers, state_dict['_schedulers']):
            s.load_state_dict(sd)
