# optimizers.py: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam,
# RAdam, Rprop, ASGD and LBFGS: the C optimizers (DlSgd, DlAdam, ...) with
# torch.optim's signatures.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

from .._dtype import float64
from .._lib import OVERRIDE_MODULE, Dl, GLib, typelib_override
from .. import _creation
from .._indexing import stack
from ..autograd.grad_mode import enable_grad
from .optimizer import _BOOLEAN, _PAIRS, Optimizer, _as_groups, _params_store, _value_error, required

__all__ = ['SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'Adadelta', 'Adamax', 'NAdam', 'RAdam',
           'Rprop', 'ASGD', 'LBFGS']


# what torch.optim's constructors call an option in "Invalid ...: nan"
_NAN_NAMES = {'lr': 'learning rate', 'eps': 'epsilon value', 'beta1': 'beta parameter at index 0',
              'beta2': 'beta parameter at index 1', 'lr_decay': 'lr_decay value'}


def _construct(opt, typelib_class, params, defaults, properties):
    """Makes the C optimizer from its construct properties (the first
    group), checks them as torch.optim's constructors do, then adds the
    other groups."""
    groups = _as_groups(params)
    if defaults.get('lr') is required:
        raise ValueError("parameter group didn't specify a value of required optimization "
                         "parameter lr")
    # A NaN or an infinity is out of a double property's range: GObject
    # would warn and keep the default. torch's checks (0 <= value) refuse a
    # NaN and take an infinity, which goes in as a group option.
    nonfinite = {k: v for k, v in properties.items()
                 if type(v) is float and not math.isfinite(v)}
    for k, v in nonfinite.items():
        if math.isnan(v):
            raise ValueError('Invalid %s: nan' % _NAN_NAMES.get(k, k + ' value'))
    try:
        typelib_class.__init__(opt, params=_params_store(groups[0]['params']),
                               **{k: v for k, v in properties.items() if k not in nonfinite})
        for k, v in nonfinite.items():
            opt.set_group_option(0, k, v)
        opt.init(None)
    except GLib.Error as e:
        raise _value_error(e) from None
    opt.defaults = defaults
    opt._extras = [{k: v for k, v in defaults.items() if k in opt._extra_defaults}]
    opt._set_group(0, groups[0])
    for g in groups[1:]:
        opt.add_param_group(g)


def _betas(betas):
    b1, b2 = betas
    return float(b1), float(b2)


@typelib_override(__name__)
class SGD(Dl.Sgd, Optimizer):
    """torch.optim.SGD over DlSgd."""
    __module__ = OVERRIDE_MODULE
    _native_state = True
    _extra_defaults = {'foreach': None, 'differentiable': False}
    _state_order = ('momentum_buffer',)

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False):
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable)
        _construct(self, Dl.Sgd, params, defaults, dict(
            lr=float(lr) if lr is not required else 0.0, momentum=float(momentum),
            dampening=float(dampening), weight_decay=float(weight_decay),
            nesterov=bool(nesterov), maximize=bool(maximize)))


class _AdamBase(Optimizer):
    _native_state = True
    _state_order = ('step', 'exp_avg', 'exp_avg_sq', 'max_exp_avg_sq')

    def _init_adam(self, typelib_class, params, lr, betas, eps, weight_decay, amsgrad, maximize,
                   extras):
        b1, b2 = _betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, **extras)
        _construct(self, typelib_class, params, defaults, dict(
            lr=float(lr), beta1=b1, beta2=b2, eps=float(eps), weight_decay=float(weight_decay),
            amsgrad=bool(amsgrad), maximize=bool(maximize)))


@typelib_override(__name__)
class Adam(Dl.Adam, _AdamBase):
    """torch.optim.Adam over DlAdam."""
    __module__ = OVERRIDE_MODULE
    _extra_defaults = {'foreach': None, 'capturable': False, 'differentiable': False,
                       'fused': False}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=False):
        self._init_adam(Dl.Adam, params, lr, betas, eps, weight_decay, amsgrad, maximize,
                        dict(foreach=foreach, capturable=capturable,
                             differentiable=differentiable, fused=fused))


@typelib_override(__name__)
class AdamW(Dl.AdamW, _AdamBase):
    """torch.optim.AdamW over DlAdamW."""
    __module__ = OVERRIDE_MODULE
    _extra_defaults = {'foreach': None, 'capturable': False}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False):
        self._init_adam(Dl.AdamW, params, lr, betas, eps, weight_decay, amsgrad, maximize,
                        dict(foreach=foreach, capturable=capturable))


@typelib_override(__name__)
class RMSprop(Dl.Rmsprop, Optimizer):
    """torch.optim.RMSprop over DlRmsprop."""
    __module__ = OVERRIDE_MODULE
    _native_state = True
    _extra_defaults = {'foreach': None, 'differentiable': False}
    _state_order = ('step', 'square_avg', 'momentum_buffer', 'grad_avg')

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, foreach=None, maximize=False, differentiable=False):
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        _construct(self, Dl.Rmsprop, params, defaults, dict(
            lr=float(lr), alpha=float(alpha), eps=float(eps), weight_decay=float(weight_decay),
            momentum=float(momentum), centered=bool(centered), maximize=bool(maximize)))


@typelib_override(__name__)
class Adagrad(Dl.Adagrad, Optimizer):
    """torch.optim.Adagrad over DlAdagrad."""
    __module__ = OVERRIDE_MODULE
    _native_state = True
    _extra_defaults = {'foreach': None}
    _state_order = ('step', 'sum')

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False):
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize)
        _construct(self, Dl.Adagrad, params, defaults, dict(
            lr=float(lr), lr_decay=float(lr_decay), weight_decay=float(weight_decay),
            initial_accumulator_value=float(initial_accumulator_value), eps=float(eps),
            maximize=bool(maximize)))


def _construct_defaults(opt, typelib_class, params, defaults):
    """_construct with the construct properties made from @defaults:
    numbers as floats, booleans as they are, a pair (betas, etas,
    step_sizes) as its two options; the options libdl keeps only in Python
    (foreach, ...) left out."""
    properties = {}
    for k, v in defaults.items():
        if k in _PAIRS:
            properties.update(zip(_PAIRS[k], (float(x) for x in v)))
        elif k not in opt._extra_defaults:
            properties[k] = bool(v) if k in _BOOLEAN else float(v)
    _construct(opt, typelib_class, params, defaults, properties)


class _NativeOptimizer(Optimizer):
    _native_state = True
    _extra_defaults = {'foreach': None}


@typelib_override(__name__)
class Adadelta(Dl.Adadelta, _NativeOptimizer):
    """torch.optim.Adadelta over DlAdadelta."""
    __module__ = OVERRIDE_MODULE
    _state_order = ('step', 'square_avg', 'acc_delta')

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 maximize=False):
        _construct_defaults(self, Dl.Adadelta, params, dict(
            lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
            foreach=foreach))


@typelib_override(__name__)
class Adamax(Dl.Adamax, _NativeOptimizer):
    """torch.optim.Adamax over DlAdamax."""
    __module__ = OVERRIDE_MODULE
    _state_order = ('step', 'exp_avg', 'exp_inf')

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False):
        _construct_defaults(self, Dl.Adamax, params, dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
            maximize=maximize))


@typelib_override(__name__)
class NAdam(Dl.Nadam, _NativeOptimizer):
    """torch.optim.NAdam over DlNadam."""
    __module__ = OVERRIDE_MODULE
    _state_order = ('step', 'mu_product', 'exp_avg', 'exp_avg_sq')

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, foreach=None):
        _construct_defaults(self, Dl.Nadam, params, dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
            momentum_decay=momentum_decay, foreach=foreach))


@typelib_override(__name__)
class RAdam(Dl.Radam, _NativeOptimizer):
    """torch.optim.RAdam over DlRadam."""
    __module__ = OVERRIDE_MODULE
    _state_order = ('step', 'exp_avg', 'exp_avg_sq')

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None):
        _construct_defaults(self, Dl.Radam, params, dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach))


@typelib_override(__name__)
class Rprop(Dl.Rprop, _NativeOptimizer):
    """torch.optim.Rprop over DlRprop."""
    __module__ = OVERRIDE_MODULE
    _state_order = ('step', 'prev', 'step_size')

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), foreach=None,
                 maximize=False):
        _construct_defaults(self, Dl.Rprop, params, dict(
            lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize))


@typelib_override(__name__)
class ASGD(Dl.Asgd, _NativeOptimizer):
    """torch.optim.ASGD over DlAsgd."""
    __module__ = OVERRIDE_MODULE
    _state_order = ('step', 'eta', 'mu', 'ax')

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False):
        _construct_defaults(self, Dl.Asgd, params, dict(
            lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
            maximize=maximize))


@typelib_override(__name__)
class LBFGS(Dl.Lbfgs, Optimizer):
    """torch.optim.LBFGS over DlLbfgs: step(closure)."""
    __module__ = OVERRIDE_MODULE
    _native_state = True
    _extra_defaults = {'line_search_fn': None}
    _state_order = ('func_evals', 'n_iter', 'al', 'd', 't', 'old_dirs', 'old_stps', 'ro', 'H_diag',
                    'prev_flat_grad', 'prev_loss')

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        groups = _as_groups(params)  # params may be a generator: read once
        if len(groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        _construct(self, Dl.Lbfgs, groups, defaults, dict(
            lr=float(lr), max_iter=float(max_iter), max_eval=float(max_eval),
            tolerance_grad=float(tolerance_grad), tolerance_change=float(tolerance_change),
            history_size=float(history_size), line_search_fn=line_search_fn))

    def add_param_group(self, param_group):
        raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    # C keeps PyTorch's lists of tensors as the rows of one tensor and its
    # Python numbers as 0-d float64 tensors (see DlLbfgs)
    _ROWS = ('old_dirs', 'old_stps', 'ro', 'al')
    _NUMBERS = ('t', 'prev_loss')

    def _state_entries(self, i):
        entries = Optimizer._state_entries(self, i)
        for n in self._NUMBERS:
            if isinstance(entries.get(n), Dl.Tensor):
                entries[n] = entries[n].item()
        # t is PyTorch's lr itself, an int when lr is one, until a first
        # iteration or a line search makes another number of it
        lr = self.param_groups[0]['lr']
        if isinstance(lr, int) and entries.get('t') == lr:
            entries['t'] = lr
        for n in self._ROWS:
            if n in entries:
                entries[n] = list(entries[n].unbind(0))
        if 'al' in entries:
            entries['al'] += [None] * (self.param_groups[0]['history_size'] - len(entries['al']))
        return entries

    def _load_state_entries(self, saved):
        for n, v in saved.items():
            if n in self._ROWS:
                rows = [r if isinstance(r, Dl.Tensor) else _creation.tensor(r)
                        for r in v if r is not None]
                if rows:
                    v = stack(rows)
                else:
                    flat = saved['d'].numel() if n in ('old_dirs', 'old_stps') else None
                    v = _creation.zeros((0, flat) if flat is not None else (0,),
                                        dtype=saved['d'].dtype)
            elif n in self._NUMBERS:
                v = _creation.tensor(float(v), dtype=float64)
            yield n, v

    def step(self, closure):
        failures = []

        def call(*user_data):
            try:
                with enable_grad():
                    loss = closure()
                if not isinstance(loss, Dl.Tensor):
                    loss = _creation.tensor(float(loss))
                return loss
            except BaseException as e:  # re-raised below, as PyTorch lets it through
                failures.append(e)
                return None

        try:
            return self.step_closure(call)
        except GLib.Error:
            if failures:
                raise failures[0] from None
            raise
