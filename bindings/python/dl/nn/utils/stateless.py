# stateless.py: dl.nn.utils.stateless (torch.nn.utils.stateless):
# functional_call, a module called with some of its parameters and buffers
# replaced by given tensors for that call only, as torch 1.13's.
#
# As torch, each module concerned becomes, for the call, a subclass whose
# attribute lookups give the replacements (what a Python forward reads);
# a libdl layer's C forward reads them through parametrizations of the
# layer that give them (dl_module_register_parametrization() over a
# parameter that stays: the module's own tensors are untouched).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import contextlib
import warnings

from ..._lib import Dl
from .parametrize import _register_c, _swap_class, _Value

__all__ = ['functional_call']


def _submodule(module, path):
    for item in path:
        module = getattr(module, item)
    return module


def _replace(module, names, values):
    """Makes module read values[path] for its attribute name, for each
    (name, path) of names; returns how to undo it."""
    cls = module.__class__

    def getattribute(self, name):
        if name in names:
            return values[names[name]]
        return cls.__getattribute__(self, name)

    def setattr_(self, name, value):
        if name in names:
            values[names[name]] = value
        else:
            cls.__setattr__(self, name, value)

    _swap_class(module, 'StatelessReplacer', {'__getattribute__': getattribute,
                                              '__setattr__': setattr_})
    before = {}
    givers = []  # held here for the call
    for name, path in names.items():
        before[name] = Dl.Module.get_parametrization(module, name)
        givers.append(_Value(lambda path=path: values[path]))
        _register_c(module, name, givers[-1])

    def undo():
        givers.clear()
        cls.__setattr__(module, '__class__', cls)
        for name, previous in before.items():
            if previous is None:
                Dl.Module.remove_parametrization(module, name)
            else:
                Dl.Module.register_parametrization(module, name, previous)
    return undo


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers):
    by_module = {}
    replaced = {}
    for full_path, tensor in parameters_and_buffers.items():
        *path, name = full_path.split('.')
        owner = _submodule(module, path)
        if hasattr(owner, name):
            old = getattr(owner, name)
            if id(old) not in replaced:
                replaced[id(old)] = (old, tensor)
            elif replaced[id(old)][1] is not tensor:
                warnings.warn('functional_call was passed multiple values for tied weights. '
                              'This behavior is deprecated and will be an error in future '
                              'versions')
        by_module.setdefault(id(owner), (owner, {}))[1][name] = full_path
    undos = []
    try:
        for owner, names in by_module.values():
            undos.append(_replace(owner, names, parameters_and_buffers))
        yield
    finally:
        for undo in reversed(undos):
            undo()


def functional_call(module, parameters_and_buffers, args, kwargs=None):
    """module(*args, **kwargs) (args itself when not a tuple) with the
    tensors of parameters_and_buffers (by dotted name) in place of the
    module's parameters and buffers of those names; the module's own are
    unchanged afterwards."""
    if kwargs is None:
        kwargs = {}
    with _reparametrize_module(module, parameters_and_buffers):
        if isinstance(args, tuple):
            out = module(*args, **kwargs)
        else:
            out = module(args, **kwargs)
    return out
