# parameter_containers.py: torch.nn.ParameterList and torch.nn.ParameterDict,
# modules whose entries are registered as parameters under their index
# ('0', '1', ...) or key, so that parameters(), state_dict() and the
# optimizers see them as torch's do.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from collections import OrderedDict
from collections.abc import Iterable, Mapping

from .._lib import _is_tensor
from .modules import Module, ModuleList, _set_pairs
from .parameter import Parameter

__all__ = ['ParameterList', 'ParameterDict']


def _as_parameter(value):
    if _is_tensor(value) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _entry_repr(p, type_name):
    if _is_tensor(p):
        size_str = 'x'.join(str(size) for size in p.size())
        device_str = '' if not p.is_cuda else ' (GPU {})'.format(p.get_device())
        return '{} containing: [{} of size {}{}]'.format(
            'Parameter' if isinstance(p, Parameter) else 'Tensor', type_name(p), size_str,
            device_str)
    return 'Object of type: ' + type(p).__name__


class ParameterList(Module):
    """torch.nn.ParameterList(values=None): a list of parameters (tensors
    given are made Parameters), registered under '0', '1', ..."""

    def __init__(self, values=None):
        super().__init__()
        self.__dict__['_size'] = 0
        if values is not None:
            self += values

    # ModuleList's: the position as a registered name, '0', '1', ...
    _get_abs_string_index = ModuleList._get_abs_string_index

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            out = self.__class__()
            for i in range(start, stop, step):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx, param):
        setattr(self, self._get_abs_string_index(idx), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value):
        new_idx = len(self)
        self.__dict__['_size'] += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or _is_tensor(values):
            raise TypeError('ParameterList.extend should be called with an iterable, but got '
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return '\n'.join('  ({}): {}'.format(k, _entry_repr(p, lambda t: t.dtype))
                         for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError('ParameterList should not be called.')


class ParameterDict(Module):
    """torch.nn.ParameterDict(parameters=None): an ordered dict of
    parameters (tensors given are made Parameters), registered under their
    keys; a plain dict given is added in sorted order, as torch's."""

    def __init__(self, parameters=None):
        super().__init__()
        self.__dict__['_keys'] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                            "string (type is '{}'). Open an issue on github if you need "
                            "non-string keys.".format(type(key).__name__))
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        attr = self._key_to_attr(key)
        self._keys[key] = None
        setattr(self, attr, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict(((k, default) for k in keys))

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        if not isinstance(parameters, Iterable):
            raise TypeError('ParametersDict.update should be called with an iterable of '
                            'key/value pairs, but got ' + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            _set_pairs(self, parameters, 'ParameterDict')

    def extra_repr(self):
        return '\n'.join('  ({}): {}'.format(k, _entry_repr(p, lambda t: t.type()))
                         for k, p in self.items())

    def __call__(self, *args, **kwargs):
        raise RuntimeError('ParameterDict should not be called.')

    def __or__(self, other):
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other):
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other):
        self.update(other)
        return self
