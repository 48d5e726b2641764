# serialization.py: torch.save and torch.load, over safetensors files.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Dl.save(obj, f) writes a safetensors file (libdl's C reader and writer,
# data/dl-safetensors.c), whatever the file's name: `Dl.save(model.
# state_dict(), 'model.pt')` writes safetensors under the name .pt.
#
# The layout:
# - A dict of str -> tensor (a state dict) is written as it is: each tensor
#   under its key, `__metadata__` {"format": "pt"} as Hugging Face's
#   safetensors.torch writes it. Any safetensors reader loads it, and
#   Dl.load of any safetensors file gives such a dict (keys sorted).
# - Any other object made of dicts, lists, tuples, tensors, numbers,
#   strings, booleans and None (an optimizer's state_dict: {'state': {0:
#   {'exp_avg': t, 'step': t}}, 'param_groups': [{'lr': 0.1, 'params': [0]}]})
#   is written as its tensors under dotted paths of the keys that lead to
#   them ('state.0.exp_avg'), and the structure as JSON in the metadata
#   entry 'dl.tree', each tensor replaced by {"$tensor": name}. Dicts whose
#   keys are all strings not starting with '$' are JSON objects; other
#   dicts are {"$dict": [[key, value], ...]}, tuples {"$tuple": [...]},
#   floats that JSON cannot hold {"$float": "inf"}, dtypes {"$dtype":
#   "float32"}. A tensor reached twice is written once and loads as one
#   tensor. Other readers see the tensors under their dotted names.
#
# Loading memory-maps the file: the tensors view the file's pages and are
# read when used (copy-on-write: changing a loaded tensor never changes
# the file).

import collections
import errno
import json
import math
import os

from gi.repository import Gio, GLib

from ._dtype import _BOOL, bfloat16, dtype, float16, float32, float64, int32, int64, uint8
from ._lib import Dl, _is_tensor

__all__ = ['save', 'load']

_TREE_KEY = 'dl.tree'

_DTYPES = {str(d).split('.')[-1]: d for d in (float32, float64, float16, bfloat16, int32, int64,
                                              uint8, _BOOL)}


def _tensor_dict(tensors, metadata=None):
    td = Dl.TensorDict.new()
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise TypeError('safetensors keys must be str, not %s' % type(name).__name__)
        if not _is_tensor(t):
            raise TypeError('the value of %r is a %s, not a Tensor' % (name, type(t).__name__))
        td.insert(name, t)
    for k, v in (metadata or {}).items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError('safetensors metadata must map str to str')
        td.set_metadata(k, v)
    return td


def _tensors_of(td):
    return collections.OrderedDict((n, td.lookup(n)) for n in td.get_names())


class _Flattener:
    """Walks an object, collecting its tensors under dotted names and
    giving the JSON-able structure with {"$tensor": name} in their place."""

    def __init__(self):
        self.tensors = {}
        self.names = {}   # id(tensor) -> name

    def name_for(self, path, t):
        if id(t) in self.names:
            return self.names[id(t)]
        name = '.'.join(path) or 'tensor'
        base, n = name, 1
        while name in self.tensors:
            name = '%s#%d' % (base, n)
            n += 1
        self.tensors[name] = t
        self.names[id(t)] = name
        return name

    def encode(self, obj, path):
        if _is_tensor(obj):
            return {'$tensor': self.name_for(path, obj)}
        if obj is None or isinstance(obj, (bool, int, str)):
            return obj
        if isinstance(obj, float):
            if math.isfinite(obj):
                return obj
            return {'$float': repr(obj)}
        if isinstance(obj, dtype):
            return {'$dtype': str(obj).split('.')[-1]}
        if isinstance(obj, dict):
            if all(isinstance(k, str) and not k.startswith('$') for k in obj):
                return {k: self.encode(v, path + [k]) for k, v in obj.items()}
            return {'$dict': [[self.encode(k, path + ['key']), self.encode(v, path + [str(k)])]
                              for k, v in obj.items()]}
        if isinstance(obj, list):
            return [self.encode(v, path + [str(i)]) for i, v in enumerate(obj)]
        if isinstance(obj, tuple):
            return {'$tuple': [self.encode(v, path + [str(i)]) for i, v in enumerate(obj)]}
        method = _scheduler_method(obj)
        if method is not None:
            return {'$method': method}
        raise TypeError('Dl.save: cannot save an object of type %s at %r: safetensors files '
                        'hold tensors, and libdl keeps dicts, lists, tuples, numbers, strings '
                        'and None beside them (save a module\'s state_dict(), not the module)'
                        % (type(obj).__name__, '.'.join(path) or '<root>'))


def _scheduler_method(obj):
    """[class, name] for a method of one of libdl's learning-rate schedulers
    (OneCycleLR's state dict holds its anneal_func, as torch's does), which
    is kept by name: what loading it back needs; None for anything else."""
    owner = getattr(obj, '__self__', None)
    if owner is None or not callable(obj):
        return None
    from .optim import lr_scheduler
    cls = type(owner)
    if cls.__module__ != lr_scheduler.__name__ or getattr(lr_scheduler, cls.__name__, None) is not cls:
        return None
    return [cls.__name__, obj.__name__]


def _decode(node, tensors):
    if isinstance(node, list):
        return [_decode(v, tensors) for v in node]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        (key, value), = node.items()
        if key == '$tensor':
            return tensors[value]
        if key == '$float':
            return float(value)
        if key == '$dtype':
            return _DTYPES[value]
        if key == '$tuple':
            return tuple(_decode(v, tensors) for v in value)
        if key == '$dict':
            return {_decode(k, tensors): _decode(v, tensors) for k, v in value}
        if key == '$method':
            from .optim import lr_scheduler
            return getattr(getattr(lr_scheduler, value[0]), value[1])
    return {k: _decode(v, tensors) for k, v in node.items()}


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


def _flatten(obj):
    if isinstance(obj, dict) and all(isinstance(k, str) and _is_tensor(v) for k, v in obj.items()):
        return _tensor_dict(obj, {'format': 'pt'})
    flat = _Flattener()
    tree = flat.encode(obj, [])
    return _tensor_dict(flat.tensors, {'format': 'pt', _TREE_KEY: json.dumps(tree)})


def _io_error(e, f):
    """OSError for an I/O failure (FileNotFoundError for a missing file);
    the GLib.Error, a RuntimeError, for a malformed file."""
    if _is_path(f) and not os.path.exists(os.fsdecode(f)):
        return FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fsdecode(f))
    if isinstance(e, GLib.Error) and e.domain == 'dl-error-quark' and e.code == int(Dl.Error.IO):
        return OSError(e.message)
    return e


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """torch.save: writes @obj (a dict of tensors, a state dict, an
    optimizer's state_dict, or any tree of dicts, lists, tuples, tensors
    and plain values) to @f, a path or a binary file object, as a
    safetensors file (see this module's comment for the layout)."""
    td = _flatten(obj)
    try:
        if _is_path(f):
            Dl.safetensors_save(td, Gio.File.new_for_path(os.fsdecode(f)), None)
        else:
            f.write(Dl.safetensors_save_to_bytes(td).get_data())
    except GLib.Error as e:
        raise _io_error(e, f) from None


def _apply_map_location(t, map_location):
    if map_location is None:
        return t
    if callable(map_location):
        out = map_location(t, 'cpu')
        return t if out is None else out
    if isinstance(map_location, dict):
        map_location = map_location.get('cpu', 'cpu')
    return t.to(map_location)


def load(f, map_location=None, pickle_module=None, *, weights_only=False, mmap=None,
         **pickle_load_args):
    """torch.load of a file Dl.save (or any safetensors writer) wrote: @f
    is a path (memory-mapped) or a binary file object (read into memory).
    Gives back what was saved; a plain safetensors file gives a dict of its
    tensors by sorted name."""
    try:
        if _is_path(f):
            path = os.fsdecode(f)
            with open(path, 'rb') as probe:
                magic = probe.read(4)
            td = Dl.safetensors_load(Gio.File.new_for_path(path), None)
        else:
            data = f.read()
            magic = data[:4]
            td = Dl.safetensors_load_bytes(GLib.Bytes.new(data))
    except GLib.Error as e:
        if magic == b'PK\x03\x04':
            raise RuntimeError('%s is a zip archive (a PyTorch checkpoint of torch.save, '
                               'pickled): libdl reads safetensors files; in PyTorch, '
                               'safetensors.torch.save_file(torch.load(f), "x.safetensors") '
                               'converts it' % (f if _is_path(f) else 'the file')) from None
        raise _io_error(e, f) from None
    tensors = _tensors_of(td)
    if map_location is not None:
        tensors = collections.OrderedDict((n, _apply_map_location(t, map_location))
                                          for n, t in tensors.items())
    tree = td.get_metadata(_TREE_KEY)
    if tree is None:
        return tensors
    return _decode(json.loads(tree), tensors)

