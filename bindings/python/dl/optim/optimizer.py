# optimizer.py: Optimizer, over DlOptimizer: parameter groups as dicts,
# state and state dicts in torch.optim's layout.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from collections import defaultdict
from collections.abc import MutableMapping

from .. import _creation
from .._dtype import float32, int64
from .._lib import OVERRIDE_MODULE, Dl, GLib, typelib_override
from ..autograd.grad_mode import enable_grad

from gi.repository import Gio

__all__ = ['Optimizer', 'required']


class _RequiredParameter:
    """torch.optim.optimizer.required: a default that must be given."""

    def __repr__(self):
        return '<required parameter>'


required = _RequiredParameter()

# options that read back as bools, and the pairs C keeps as two options
_BOOLEAN = frozenset(('nesterov', 'maximize', 'amsgrad', 'centered'))
_PAIRS = {'betas': ('beta1', 'beta2'), 'etas': ('etaminus', 'etaplus'),
          'step_sizes': ('step_size_min', 'step_size_max')}


def _value_error(e):
    return ValueError(e.message)


def _params_store(params):
    store = Gio.ListStore.new(Dl.Tensor)
    store.splice(0, 0, list(params))
    return store


def _as_groups(params):
    """The param_groups torch.optim.Optimizer makes of @params: a list of
    dicts whose 'params' are lists."""
    if isinstance(params, Dl.Tensor):
        raise TypeError('params argument given to the optimizer should be an iterable of '
                        'Tensors or dicts, but got ' + type(params).__name__)
    groups = list(params)
    if not groups:
        return [{'params': []}]
    if not isinstance(groups[0], dict):
        groups = [{'params': groups}]
    out = []
    for g in groups:
        g = dict(g)
        p = g['params']
        g['params'] = [p] if isinstance(p, Dl.Tensor) else list(p)
        for t in g['params']:
            if not isinstance(t, Dl.Tensor):
                raise TypeError('optimizer can only optimize Tensors, but one of the params is '
                                + type(t).__name__)
        out.append(g)
    return out


class ParamGroup(MutableMapping):
    """One parameter group of an optimizer, as the dict torch.optim keeps:
    'params' and the options, read from and written to the C optimizer
    (group['lr'] = x takes effect at the next step)."""

    __slots__ = ('_opt', '_index')

    def __init__(self, opt, index):
        self._opt = opt
        self._index = index

    def _names(self):
        names = list(self._opt.list_group_options(self._index))
        for pair, (first, second) in _PAIRS.items():
            if first in names and second in names:
                i = names.index(first)
                names = [n for n in names if n not in (first, second)]
                names.insert(i, pair)
        return names

    def __getitem__(self, key):
        opt, i = self._opt, self._index
        if key == 'params':
            return list(opt.get_group_params(i))
        extras = opt._group_extras(i)
        if key in extras:
            return extras[key]
        try:
            if key in _PAIRS:
                # each number an int where the optimizer's default has one,
                # as Rprop's step_sizes=(1e-6, 50)
                default = getattr(opt, 'defaults', {}).get(key) or (None, None)
                pair = []
                for name, d in zip(_PAIRS[key], default):
                    value = opt.get_group_option(i, name)
                    is_int = isinstance(d, int) and not isinstance(d, bool)
                    pair.append(int(value) if is_int and value.is_integer() else value)
                return tuple(pair)
            value = opt.get_group_option(i, key)
        except GLib.Error:
            raise KeyError(key) from None
        if key in _BOOLEAN or key in opt._boolean_options():
            return bool(value)
        return int(value) if key in opt._int_options() and value.is_integer() else value

    def __setitem__(self, key, value):
        opt, i = self._opt, self._index
        if key == 'params':
            raise TypeError("a parameter group's 'params' cannot be replaced; use "
                            "add_param_group")
        if key in _PAIRS:
            for name, v in zip(_PAIRS[key], value):
                opt.set_group_option(i, name, float(v))
            return
        if isinstance(value, (bool, int, float)) and key not in opt._group_extras(i):
            opt.set_group_option(i, key, float(value))
        else:
            opt._group_extras(i)[key] = value

    def __delitem__(self, key):
        extras = self._opt._group_extras(self._index)
        if key not in extras:
            raise TypeError("the options of a libdl parameter group cannot be deleted")
        del extras[key]

    def __iter__(self):
        yield from self._names()
        yield from self._opt._group_extras(self._index)
        yield 'params'

    def __len__(self):
        return len(self._names()) + len(self._opt._group_extras(self._index)) + 1

    def __repr__(self):
        return repr(dict(self))

    def __eq__(self, other):
        return dict(self) == other


def _state_value(name, t):
    # counters (RMSprop's step, LBFGS's func_evals and n_iter) are 0-d int64
    # tensors: PyTorch keeps ints
    if t is not None and t.dim() == 0 and t.dtype == int64:
        return int(t.item())
    return t


@typelib_override(__name__)
class Optimizer(Dl.Optimizer):
    """torch.optim.Optimizer over DlOptimizer.

    Subclass it as in PyTorch (__init__(params, defaults), a step() that
    walks self.param_groups and keeps self.state), or override do_step,
    the C virtual method, which DlOptimizer's step calls from any language.
    """
    __module__ = OVERRIDE_MODULE

    # the optimizers written in C keep their state in C; a subclass written
    # in Python keeps self.state, a dict, as in PyTorch
    _native_state = False
    # options PyTorch keeps that mean nothing to libdl, with their defaults
    _extra_defaults = {}

    def __init__(self, params, defaults):
        groups = _as_groups(params)
        numeric = {k: v for k, v in defaults.items()
                   if isinstance(v, (bool, int, float)) and k != 'lr'}
        lr = defaults.get('lr', 1e-3)
        try:
            Dl.Optimizer.__init__(self, params=_params_store(groups[0]['params']),
                                  lr=float(lr) if lr is not required else 1e-3)
            self.init(None)
        except GLib.Error as e:
            raise _value_error(e) from None
        self.defaults = dict(defaults)
        self._extras = [{k: v for k, v in defaults.items()
                         if k != 'lr' and k not in _PAIRS and k not in numeric}]
        for k, v in numeric.items():
            self.set_group_option(0, k, float(v))
        self._set_group(0, groups[0])
        for g in groups[1:]:
            self.add_param_group(g)

    # ---- groups ------------------------------------------------------------------

    def _group_extras(self, i):
        extras = self.__dict__.setdefault('_extras', [])
        while len(extras) <= i:
            extras.append(dict(self._extra_defaults))
        return extras[i]

    def _boolean_options(self):
        cls = type(self)
        cached = cls.__dict__.get('_booleans_cache')
        if cached is None:
            cached = frozenset(p.name.replace('-', '_') for p in self.list_properties()
                               if p.value_type.name == 'gboolean')
            cls._booleans_cache = cached
        return cached

    def _int_options(self):
        return frozenset(k for k, v in getattr(self, 'defaults', {}).items()
                         if isinstance(v, int) and not isinstance(v, bool))

    def _set_group(self, i, group):
        view = ParamGroup(self, i)
        for k, v in group.items():
            if k != 'params':
                view[k] = v

    @property
    def param_groups(self):
        return [ParamGroup(self, i) for i in range(self.get_n_param_groups())]

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError('param group must be a dict')
        group = _as_groups([param_group])[0]
        for k, v in getattr(self, 'defaults', {}).items():
            if v is required and k not in group:
                raise ValueError("parameter group didn't specify a value of required "
                                 "optimization parameter " + k)
        names, values = [], []
        for k, v in group.items():
            if k in _PAIRS:
                names += list(_PAIRS[k])
                values += [float(v[0]), float(v[1])]
            elif k != 'params' and isinstance(v, (bool, int, float)):
                names.append(k)
                values.append(float(v))
        try:
            Dl.Optimizer.add_param_group(self, group['params'], names, values)
        except GLib.Error as e:
            raise _value_error(e) from None
        i = self.get_n_param_groups() - 1
        extras = self._group_extras(i)
        extras.update({k: v for k, v in getattr(self, 'defaults', {}).items()
                       if not isinstance(v, (bool, int, float)) and k != 'lr'
                       and k not in _PAIRS})
        extras.update({k: v for k, v in group.items()
                       if k != 'params' and k not in _PAIRS
                       and not isinstance(v, (bool, int, float))})

    # ---- stepping ------------------------------------------------------------------

    def zero_grad(self, set_to_none=False):
        Dl.Optimizer.zero_grad(self, bool(set_to_none))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        Dl.Optimizer.step(self)
        return loss

    # ---- state ------------------------------------------------------------------

    @property
    def state(self):
        if not self._native_state:
            return self.__dict__.setdefault('_py_state', defaultdict(dict))
        state = {}
        for i, p in enumerate(self.get_params()):
            entries = self._state_entries(i)
            if entries:
                state[p] = entries
        return state

    # the order PyTorch makes a parameter's state entries in (C lists them
    # sorted)
    _state_order = ()

    def _state_entries(self, i):
        """Parameter @i's state as PyTorch keeps it, from the C state; a
        subclass converts what C keeps another way."""
        order = {n: k for k, n in enumerate(self._state_order)}
        names = sorted(self.list_state(i), key=lambda n: order.get(n, len(order)))
        return {n: _state_value(n, self.get_state(i, n)) for n in names}

    def state_dict(self):
        index = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != 'params'}
            packed['params'] = [index.setdefault(id(p), len(index)) for p in g['params']]
            groups.append(packed)
        params = self.get_params()
        state = {}
        if self._native_state:
            for i in range(len(params)):
                entries = self._state_entries(i)
                if entries:
                    state[i] = entries
        else:
            for p, s in self.state.items():
                if id(p) in index:
                    state[index[id(p)]] = s
        return {'state': state, 'param_groups': groups}

    def load_state_dict(self, state_dict):
        import copy
        groups = self.param_groups
        saved_groups = state_dict['param_groups']
        if len(groups) != len(saved_groups):
            raise ValueError('loaded state dict has a different number of parameter groups')
        if any(len(g['params']) != len(s['params']) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        for i, s in enumerate(saved_groups):
            self._set_group(i, s)
        # the saved indices of this optimizer's parameters, in order
        saved_index = [j for s in saved_groups for j in s['params']]
        saved_state = state_dict['state']
        params = self.get_params()
        if self._native_state:
            for i in range(len(params)):
                self.clear_state(i)
                for n, v in self._load_state_entries(saved_state.get(saved_index[i], {})):
                    if v is not None and not isinstance(v, Dl.Tensor):
                        v = _creation.tensor(v, dtype=int64 if isinstance(v, int) else float32)
                    self.set_state(i, n, v)
        else:
            state = defaultdict(dict)
            for i, p in enumerate(params):
                if saved_index[i] in saved_state:
                    state[p] = copy.deepcopy(saved_state[saved_index[i]])
            self._py_state = state

    def _load_state_entries(self, saved):
        """The (name, value) pairs set_state restores from one parameter's
        saved state; a subclass converts what C keeps another way."""
        return saved.items()

    def __repr__(self):
        lines = [type(self).__name__ + ' (']
        for i, g in enumerate(self.param_groups):
            lines.append('Parameter Group %d' % i)
            for k in sorted(k for k in g if k != 'params'):
                lines.append('    %s: %s' % (k, g[k]))
        lines.append(')')
        return '\n'.join(lines)

    def __getstate__(self):
        raise TypeError('an optimizer pickles through its state_dict()')
