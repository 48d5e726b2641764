# serialization.py: torch.save and torch.load, in PyTorch's zip format or
# as safetensors files; torch.serialization's safe globals.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Which format:
# - Dl.load chooses by the file's content: a zip archive (magic "PK\3\4")
#   is PyTorch's format, a stream that starts with the pickled magic number
#   0x1950a86a20f9469cfc6c is PyTorch's legacy (torch < 1.6, non-zip)
#   format, anything else is read as safetensors.
# - Dl.save writes PyTorch's zip format (what python3-torch 1.13 and 2.x
#   torch.load read, for any picklable object), or its legacy format with
#   _use_new_zipfile_serialization=False, except when the path ends
#   in ".safetensors" or when called with format='safetensors': then a
#   safetensors file. PyTorch's format is the default because a `.pt`
#   written by Dl.save must load in PyTorch as it is, whatever it holds;
#   safetensors is kept for files named so (libdl's C, GJS and Vala programs
#   and any safetensors reader read them, and they hold no code at all).
#
# PyTorch's zip format (as torch's PyTorchStreamWriter writes it): a zip of
# stored (uncompressed) entries under one top-level folder: data.pkl, the
# pickled object (protocol 2), each tensor's storage in data/<key> (raw,
# little-endian, the data aligned to 64 bytes in the file), byteorder
# ("little") and version ("3"). In the pickle a tensor is
# torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
# requires_grad, OrderedDict()), a parameter
# torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict()), a
# storage the persistent id ('storage', torch.FloatStorage, key, 'cpu',
# numel). Tensors that share memory (views of one tensor) share one
# storage, written once, and load as views of one memory again. libdl's
# objects are written under PyTorch's names (dl.X -> torch.X: dtypes,
# torch.Size, torch.device, torch.nn.modules.* classes), so PyTorch loads a
# whole libdl module as its own class, and libdl loads PyTorch's names as
# its own objects. A user's Module subclass is written in PyTorch's layout
# (training, _parameters, _buffers, _modules, the hook dicts and its own
# attributes) under its own name, as PyTorch writes it, and loads back as
# the libdl class of that name. Where torch's __dict__ lacks a layer's
# arguments (the Transformer layers keep d_model, nhead, ... in their
# children), libdl reads them from the children (_LOAD_KEYWORDS).
#
# OneCycleLR's state dict holds a method bound to the scheduler
# (anneal_func), which pickle writes as getattr(scheduler, name): the
# scheduler object, its __dict__ (its state dict and its optimizer), and the
# optimizer as Optimizer.__getstate__ gives it. libdl writes its scheduler
# and optimizer so (torch's classes, torch's layout); torch.optim objects
# in a pickle load in libdl as _TorchObject records, kept as read.
#
# Loading a path in the zip format memory-maps the file: the tensors view
# the file's pages and are read when used (copy-on-write: changing a loaded
# tensor never changes the file). A file object is read into memory once.
# The legacy format is read once, each storage straight into its tensors'
# memory (see "PyTorch's legacy format" below).
#
# weights_only=True unpickles with an allow-list (tensors, storages,
# OrderedDict, torch.Size, dtypes, devices, set, frozenset, complex,
# slice, ...) extended by add_safe_globals() / safe_globals(); any other
# global is a pickle.UnpicklingError naming it, and is never imported.
#
# The safetensors layout:
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
# Loading a safetensors file memory-maps it as well.

import collections
import contextlib
import ctypes
import errno
import functools
import io
import json
import math
import mmap
import os
import pickle
import struct
import threading
import types
import zipfile

from gi.repository import Gio, GLib

from ._dtype import _BOOL, bfloat16, dtype, float16, float32, float64, int32, int64, uint8
from ._lib import OVERRIDE_MODULE, Dl, _is_tensor

__all__ = ['save', 'load', 'add_safe_globals', 'clear_safe_globals', 'get_safe_globals',
           'safe_globals']

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
    (OneCycleLR's state dict holds its anneal_func, as torch's does), or of
    a scheduler loaded from a pickle (a _TorchObject); None for anything
    else."""
    owner = getattr(obj, '__self__', None)
    if owner is None or not callable(obj):
        return None
    if isinstance(owner, _TorchObject):
        module, name = owner.torch_path
        return [name, obj.__name__] if module == 'torch.optim.lr_scheduler' else None
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
        if key == '$method':  # bound to a scheduler of no state, as torch's needs
            return getattr(_torch_object('torch.optim.lr_scheduler', value[0]), value[1])
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


# ---- PyTorch's zip format: names ------------------------------------------

# torch.<X>Storage <-> libdl's dtype (the storages of the eight dtypes).
_STORAGE_DTYPES = collections.OrderedDict([
    ('FloatStorage', float32), ('DoubleStorage', float64), ('HalfStorage', float16),
    ('BFloat16Storage', bfloat16), ('IntStorage', int32), ('LongStorage', int64),
    ('ByteStorage', uint8), ('BoolStorage', _BOOL)])
_STORAGE_NAMES = {d: n for n, d in _STORAGE_DTYPES.items()}

# The PyTorch attributes of a module's __dict__ besides its parameters,
# buffers and children, for the layers Dl.save writes as PyTorch's classes.
_MODULE_ATTRIBUTES = {
    'Linear': ('in_features', 'out_features'),
    'Identity': (), 'Sequential': (), 'ModuleList': (), 'ModuleDict': (),
    'ReLU': ('inplace',), 'ReLU6': ('inplace',), 'SiLU': ('inplace',), 'Tanh': (),
    'Sigmoid': (), 'LeakyReLU': ('negative_slope', 'inplace'), 'GELU': ('approximate',),
    'Dropout': ('p', 'inplace'), 'Flatten': ('start_dim', 'end_dim'),
    'Softmax': ('dim',), 'LogSoftmax': ('dim',),
    'Conv2d': ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation',
               'transposed', 'output_padding', 'groups', 'padding_mode',
               '_reversed_padding_repeated_twice'),
    'Embedding': ('num_embeddings', 'embedding_dim', 'padding_idx', 'max_norm', 'norm_type',
                  'scale_grad_by_freq', 'sparse'),
    'LayerNorm': ('normalized_shape', 'eps', 'elementwise_affine'),
    'GroupNorm': ('num_groups', 'num_channels', 'eps', 'affine'),
    'BatchNorm1d': ('num_features', 'eps', 'momentum', 'affine', 'track_running_stats'),
    'BatchNorm2d': ('num_features', 'eps', 'momentum', 'affine', 'track_running_stats'),
    'LSTM': ('mode', 'input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first',
             'dropout', 'bidirectional', 'proj_size', '_flat_weights_names', '_all_weights',
             '_flat_weights'),
    'Conv1d': ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation',
               'transposed', 'output_padding', 'groups', 'padding_mode',
               '_reversed_padding_repeated_twice'),
    'MaxPool2d': ('kernel_size', 'stride', 'padding', 'dilation', 'return_indices',
                  'ceil_mode'),
    'AvgPool2d': ('kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad',
                  'divisor_override'),
    'AdaptiveAvgPool2d': ('output_size',),
    'AdaptiveMaxPool2d': ('output_size', 'return_indices'),
    'Dropout2d': ('p', 'inplace'),
    'ELU': ('alpha', 'inplace'), 'Hardtanh': ('min_val', 'max_val', 'inplace'),
    'Softplus': ('beta', 'threshold'),
    'ConvTranspose2d': ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding',
                        'dilation', 'transposed', 'output_padding', 'groups', 'padding_mode',
                        '_reversed_padding_repeated_twice'),
    'Unflatten': ('dim', 'unflattened_size'),
    'Upsample': ('name', 'size', 'scale_factor', 'mode', 'align_corners',
                 'recompute_scale_factor'),
    'CrossEntropyLoss': ('reduction', 'ignore_index', 'label_smoothing'),
    'NLLLoss': ('reduction', 'ignore_index'), 'MSELoss': ('reduction',),
    'L1Loss': ('reduction',), 'BCELoss': ('reduction',), 'BCEWithLogitsLoss': ('reduction',),
    'SmoothL1Loss': ('reduction', 'beta'), 'HuberLoss': ('reduction', 'delta'),
    'KLDivLoss': ('reduction', 'log_target'),
}
# The optional buffers torch's losses register as None when not given
_NONE_BUFFERS = {'CrossEntropyLoss': ('weight',), 'NLLLoss': ('weight',), 'BCELoss': ('weight',),
                 'BCEWithLogitsLoss': ('weight', 'pos_weight')}
# GRU's attributes are LSTM's; RNN adds its nonlinearity first
_MODULE_ATTRIBUTES['GRU'] = _MODULE_ATTRIBUTES['LSTM']
_MODULE_ATTRIBUTES['RNN'] = ('nonlinearity',) + _MODULE_ATTRIBUTES['LSTM']
# MultiheadAttention's out_proj is this Linear in torch (a name for its
# quantization passes)
_MODULE_ATTRIBUTES['NonDynamicallyQuantizableLinear'] = _MODULE_ATTRIBUTES['Linear']
# Where torch's class keeps one of these as a parameter or a child (bias_k, a
# stack's norm, a layer's activation module), it is not written as an
# attribute too.
_MODULE_ATTRIBUTES.update({
    'MultiheadAttention': ('embed_dim', 'kdim', 'vdim', '_qkv_same_embed_dim', 'num_heads',
                           'dropout', 'batch_first', 'head_dim', 'bias_k', 'bias_v',
                           'add_zero_attn'),
    'TransformerEncoderLayer': ('norm_first', 'activation_relu_or_gelu', 'activation'),
    'TransformerDecoderLayer': ('norm_first', 'activation'),
    'TransformerEncoder': ('num_layers', 'norm', 'enable_nested_tensor', 'mask_check'),
    'TransformerDecoder': ('num_layers', 'norm'),
    'Transformer': ('d_model', 'nhead', 'batch_first'),
})

# the padding, instance norm, dropout, bilinear, embedding bag and
# likelihood loss layers (the instance norms register weight and bias as
# None without affine, and their running statistics as None buffers
# without tracking)
_MODULE_ATTRIBUTES.update({n: ('padding', 'value') for n in (
    'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d', 'ZeroPad2d')})
_MODULE_ATTRIBUTES.update({n + d: ('padding',) for n in ('ReflectionPad', 'ReplicationPad')
                           for d in ('1d', '2d', '3d')})
_MODULE_ATTRIBUTES.update({n: ('p', 'inplace') for n in (
    'Dropout1d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout')})
_MODULE_ATTRIBUTES.update({'InstanceNorm' + d: _MODULE_ATTRIBUTES['BatchNorm2d']
                           for d in ('1d', '2d', '3d')})
_NONE_BUFFERS.update({'InstanceNorm' + d: ('running_mean', 'running_var', 'num_batches_tracked')
                      for d in ('1d', '2d', '3d')})
_MODULE_ATTRIBUTES.update({
    'BatchNorm3d': _MODULE_ATTRIBUTES['BatchNorm2d'],
    'LocalResponseNorm': ('size', 'alpha', 'beta', 'k'),
    'Bilinear': ('in1_features', 'in2_features', 'out_features'),
    'EmbeddingBag': ('num_embeddings', 'embedding_dim', 'max_norm', 'norm_type',
                     'scale_grad_by_freq', 'mode', 'sparse', 'include_last_offset',
                     'padding_idx'),
    'GaussianNLLLoss': ('reduction', 'full', 'eps'),
    'PoissonNLLLoss': ('reduction', 'log_input', 'full', 'eps'),
    'CTCLoss': ('reduction', 'blank', 'zero_infinity'),
})
# the margin and embedding losses, the distances, fractional max pooling and
# CrossMapLRN2d (the weights and _random_samples None buffers when not given)
_MODULE_ATTRIBUTES.update({
    'MarginRankingLoss': ('reduction', 'margin'), 'HingeEmbeddingLoss': ('reduction', 'margin'),
    'CosineEmbeddingLoss': ('reduction', 'margin'), 'SoftMarginLoss': ('reduction',),
    'MultiLabelMarginLoss': ('reduction',), 'MultiLabelSoftMarginLoss': ('reduction',),
    'MultiMarginLoss': ('reduction', 'p', 'margin'),
    'TripletMarginLoss': ('reduction', 'margin', 'p', 'eps', 'swap'),
    'CosineSimilarity': ('dim', 'eps'), 'PairwiseDistance': ('norm', 'eps', 'keepdim'),
    'CrossMapLRN2d': ('size', 'alpha', 'beta', 'k'),
})
_MODULE_ATTRIBUTES.update({'FractionalMaxPool' + d: ('kernel_size', 'return_indices',
                                                     'output_size', 'output_ratio')
                           for d in ('2d', '3d')})
_NONE_BUFFERS.update({'MultiLabelSoftMarginLoss': ('weight',), 'MultiMarginLoss': ('weight',),
                      'FractionalMaxPool2d': ('_random_samples',),
                      'FractionalMaxPool3d': ('_random_samples',)})

def _attention_parameter_order(m):
    qkv = ('q_proj_weight', 'k_proj_weight', 'v_proj_weight')
    order = ('in_proj_weight',) + qkv if m._qkv_same_embed_dim else qkv + ('in_proj_weight',)
    return order + ('in_proj_bias',)


# The parameters torch's class always registers, in its order (None when
# absent); the module's other parameters follow
_PARAMETER_ORDER = {'MultiheadAttention': _attention_parameter_order}
_PARAMETER_ORDER.update({'InstanceNorm' + d: (lambda m: ('weight', 'bias'))
                         for d in ('1d', '2d', '3d')})
# The functions of torch.nn.functional that are torch._C._nn's (written in
# C), which pickle names there (python3-torch 1.13 and 2.x); the others it
# names in torch.nn.functional
_TORCH_C_FUNCTIONS = frozenset(('gelu', 'softplus', 'linear', 'one_hot', 'avg_pool2d',
                                'avg_pool3d', 'softshrink', 'elu_', 'hardtanh_', 'leaky_relu_'))


def _torch_alias(module, name):
    if module == 'torch._C._nn':  # F.logsigmoid is torch._C._nn.log_sigmoid
        return 'torch.nn.functional', 'logsigmoid' if name == 'log_sigmoid' else name
    return module, name


def _torch_function_path(fn):
    """(module, name) under which torch pickles its namesake of @fn, a
    function of dl.nn.functional (a Transformer layer's activation); None
    for other functions. (torch.nn.functional's name resolves in torch
    whatever the function's home.)"""
    from .nn import functional as F
    name = getattr(fn, '__name__', None)
    if not name or getattr(F, name, None) is not fn:
        return None
    return ('torch._C._nn' if name in _TORCH_C_FUNCTIONS else 'torch.nn.functional'), name

# The hook dicts torch 1.13's Module.__init__ makes (2.x adds its own when
# it unpickles a module without them).
_MODULE_HOOK_DICTS = ('_backward_hooks', '_forward_hooks', '_forward_pre_hooks',
                      '_state_dict_hooks', '_load_state_dict_pre_hooks',
                      '_load_state_dict_post_hooks')


def _nn():
    from . import nn
    return nn


def _torch_class_path(cls):
    """(module, name) of PyTorch's class for libdl's layer class @cls: the
    rule dl.X -> torch.X (dl.nn.modules mirrors torch.nn.modules)."""
    module = getattr(cls, '__module__', '') or ''
    if module.startswith('dl.nn.modules.'):
        return 'torch' + module[2:], cls.__name__
    return None


def _dl_class(module, name):
    """libdl's object for PyTorch's global module.name (torch.X -> dl.X),
    None when libdl has none."""
    import importlib
    try:
        return getattr(importlib.import_module('dl' + module[5:]), name, None)
    except ImportError:
        return None


class _Global:
    """A PyTorch global (module, name) that the pickle names without
    importing torch."""
    _cache = {}

    def __new__(cls, module, name):
        key = (module, name)
        g = cls._cache.get(key)
        if g is None:
            g = object.__new__(cls)
            g.module, g.name = module, name
            cls._cache[key] = g
        return g

    def __call__(self, *args, **kwargs):
        raise TypeError('%s.%s is PyTorch\'s, named in a pickle' % (self.module, self.name))


# ---- saving -----------------------------------------------------------------

class _Storage:
    """A storage to write: @nbytes bytes at @address, of @dtype."""

    def __init__(self, key, address, nbytes, dtype, owner):
        self.key, self.address, self.nbytes, self.dtype, self.owner = (key, address, nbytes,
                                                                       dtype, owner)

    def numel(self):
        return self.nbytes // Dl.dtype_get_size(self.dtype._value)


class _TensorData:
    """A parameter's data, pickled as a plain tensor inside
    _rebuild_parameter."""

    def __init__(self, tensor):
        self.tensor = tensor


def _storage_span(t):
    size = Dl.dtype_get_size(t.get_dtype())
    base = t.get_data_ptr() - t.get_storage_offset() * size
    return base, base + t.get_storage_nbytes(), size


class _Storages:
    """The storages of the tensors a pickle holds: tensors whose memory
    overlaps (views of one tensor, or of one loaded storage) share one, as
    in PyTorch."""

    def __init__(self, tensors):
        self.tensors = tensors  # alive while the pickle names them by id
        self.of = {}            # id(tensor) -> (storage, element offset, strides)
        self.list = []
        spans = []
        for t in tensors:
            if t.get_device().get_device_type() != Dl.DeviceType.CPU:
                raise RuntimeError('Dl.save: only tensors on the CPU can be saved in PyTorch\'s '
                                   'format; move the tensor with .cpu() first')
            if t.numel() == 0 or t.get_storage_nbytes() == 0:
                self.of[id(t)] = (self._new(0, 0, t.dtype, None), 0, tuple(t.get_strides()))
                continue
            base, end, size = _storage_span(t)
            spans.append((base, end, size, t))
        spans.sort(key=lambda s: (s[0], -s[1]))
        i = 0
        while i < len(spans):
            group = [spans[i]]
            end = spans[i][1]
            i += 1
            while i < len(spans) and spans[i][0] < end:
                group.append(spans[i])
                end = max(end, spans[i][1])
                i += 1
            base, size, dt = group[0][0], group[0][2], group[0][3].dtype
            if all(g[3].dtype == dt and (g[0] - base) % size == 0 for g in group) \
                    and (end - base) % size == 0:
                st = self._new(base, end - base, dt, group)
                for _, _, _, t in group:
                    self.of[id(t)] = (st, (t.get_data_ptr() - base) // size,
                                      tuple(t.get_strides()))
            else:  # one memory seen as different dtypes: each tensor a copy of its own
                for _, _, _, t in group:
                    c = t.detach().contiguous().clone()
                    st = self._new(c.get_data_ptr(), c.get_storage_nbytes(), c.dtype, c)
                    self.of[id(t)] = (st, 0, tuple(c.get_strides()))

    def _new(self, address, nbytes, dt, owner):
        st = _Storage(str(len(self.list)), address, nbytes, dt, owner)
        self.list.append(st)
        return st


class _TorchPickler(pickle._Pickler):
    """Pickles libdl's objects as PyTorch pickles its own (the pure-Python
    pickler, so that libdl's objects can be written under torch's global
    names). With @storages None it only collects the tensors."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol, storages, optim_states, legacy=False):
        super().__init__(file, protocol)
        self.storages = storages
        self.optim_states = optim_states  # id(object) -> its __dict__, one for both passes
        self.legacy = legacy
        self.tensors = []

    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            pid = ('storage', _Global('torch', _STORAGE_NAMES[obj.dtype]), obj.key, 'cpu',
                   obj.numel())
            return pid + (None,) if self.legacy else pid  # the legacy format's view: none
        return None

    def reducer_override(self, obj):
        if _is_tensor(obj):
            if obj.get_requires_grad() and obj.get_grad_fn() is not None:
                raise RuntimeError('Dl.save: cannot pickle a tensor that requires grad and is '
                                   'not a leaf (it has a grad_fn); save .detach() instead')
            if Dl.Tensor.is_parameter(obj):
                return (_Global('torch._utils', '_rebuild_parameter'),
                        (_TensorData(obj), obj.get_requires_grad(), collections.OrderedDict()))
            return self._reduce_tensor(obj, obj.get_requires_grad())
        if isinstance(obj, _TensorData):
            return self._reduce_tensor(obj.tensor, False)
        if isinstance(obj, dtype):
            return str(obj).split('.')[-1]  # save_global below names it torch.<name>
        from ._dtype import Size, device
        if type(obj) is Size:
            return (_Global('torch', 'Size'), (tuple(obj),))
        if isinstance(obj, device):
            return (_Global('torch', 'device'), (str(obj),))
        if isinstance(obj, Dl.Module):
            return self._reduce_module(obj)
        if isinstance(obj, _TorchObject):
            return (_Global('copyreg', '__newobj__'), (_Global(*obj.torch_path),), obj.state)
        path = _optim_path(obj)
        if path is not None:
            if id(obj) not in self.optim_states:
                self.optim_states[id(obj)] = (obj, _optim_state(obj))
            return (_Global('copyreg', '__newobj__'), (_Global(*path),),
                    self.optim_states[id(obj)][1])
        if _scheduler_method(obj) is not None:
            # a scheduler's method (OneCycleLR's anneal_func): torch's bound
            # method, getattr of the scheduler object
            return (getattr, (obj.__self__, obj.__name__))
        return NotImplemented

    def _reduce_tensor(self, t, requires_grad):
        if self.storages is None:
            self.tensors.append(t)
            return (tuple, ((),))
        st, offset, strides = self.storages.of[id(t)]
        return (_Global('torch._utils', '_rebuild_tensor_v2'),
                (st, offset, tuple(t.get_shape()), strides, bool(requires_grad),
                 collections.OrderedDict()))

    def _reduce_module(self, m):
        cls = type(m)
        path = _torch_class_path(cls)
        custom = path is None and cls.__module__ not in (OVERRIDE_MODULE, 'gi.repository.Dl')
        if custom:  # the user's Module subclass: PyTorch's layout under its own name
            path = (cls.__module__, cls.__qualname__)
        elif path is None or path[1] not in _MODULE_ATTRIBUTES:
            raise pickle.PicklingError(
                'Dl.save: cannot write libdl\'s %s as a PyTorch module (libdl writes %s as '
                'PyTorch\'s classes); save its state_dict() instead'
                % (cls.__name__, ', '.join(sorted(_MODULE_ATTRIBUTES))))
        state = {'training': bool(m.training)}
        own = Dl.Module.get_own_names(m)
        state['_parameters'] = _torch_parameters(m, path[1], own)
        buffers = [n for n in own if Dl.Module.has_buffer(m, n)]
        state['_buffers'] = collections.OrderedDict((n, Dl.Module.get_buffer(m, n))
                                                    for n in buffers)
        for n in _NONE_BUFFERS.get(path[1], ()):
            state['_buffers'].setdefault(n, None)
        state['_non_persistent_buffers_set'] = set(
            n for n in buffers if not Dl.Module.get_buffer_persistent(m, n))
        for name in _MODULE_HOOK_DICTS:
            state[name] = collections.OrderedDict()
        state['_is_full_backward_hook'] = None
        state['_modules'] = collections.OrderedDict(zip(Dl.Module.children_names(m),
                                                        Dl.Module.children(m)))
        if custom:
            from .nn.modules import _plain_dict
            state.update(_plain_dict(m))
            return (_Global('copyreg', '__newobj__'), (cls,), state)
        for name in _MODULE_ATTRIBUTES[path[1]]:
            if name not in state['_parameters'] and name not in state['_modules']:
                state[name] = _torch_attribute(m, name)
        return (_Global('copyreg', '__newobj__'), (_Global(*path),), state)

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            module, name = obj.module, obj.name
        elif isinstance(obj, dtype):
            module = 'torch'
        else:
            path = _torch_class_path(obj) if isinstance(obj, type) else \
                _torch_function_path(obj)
            if path is None:
                return super().save_global(obj, name)
            module, name = path
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + module.encode('utf-8') + b'\n' + name.encode('utf-8')
                       + b'\n')
        self.memoize(obj)

    dispatch[_Global] = save_global
    dispatch[types.FunctionType] = save_global


def _nn_properties(m):
    return getattr(type(m), '_properties', ())


def _torch_parameters(m, kind, own):
    """The _parameters torch's class @kind keeps for libdl's module @m
    (whose members are @own): its parameters, with None for those torch
    registers as None."""
    params = collections.OrderedDict((n, Dl.Module.get_parameter(m, n)) for n in own
                                     if Dl.Module.has_parameter(m, n))
    order = _PARAMETER_ORDER.get(kind)
    if order is not None:
        first = [(n, params.pop(n, None)) for n in order(m)]
        return collections.OrderedDict(first + list(params.items()))
    if 'bias' in _nn_properties(m) and not m.get_property('bias'):
        params['bias'] = None
    return params


def _torch_attribute(m, name):
    if name == 'transposed':
        return type(m).__name__.startswith('ConvTranspose')
    if name == 'output_padding':
        return tuple(getattr(m, 'output_padding', None) or (0,) * len(m.kernel_size))
    if name == '_flat_weights':  # the parameters themselves, as torch's RNNs keep them
        return [Dl.Module.get_parameter(m, n) for n in m._flat_weights_names]
    if name in ('scale_grad_by_freq', 'sparse'):
        return bool(getattr(m, name, False))
    if name == '_reversed_padding_repeated_twice':
        p = m.padding
        if not isinstance(p, tuple):  # 'same' or 'valid'
            return [0, 0] * len(m.kernel_size)
        return tuple(v for v in reversed(p) for _ in range(2))
    return getattr(m, name)


def _optim_path(obj):
    """torch's (module, name) of libdl's scheduler or optimizer @obj (the
    user's own for a subclass of theirs); None for other objects."""
    from . import optim
    from .optim import lr_scheduler
    if isinstance(obj, lr_scheduler.LRScheduler):
        if isinstance(obj, (lr_scheduler.LambdaLR, lr_scheduler.SequentialLR)):
            # their state dicts are not torch's __dict__ (functions, schedulers)
            raise pickle.PicklingError('Dl.save: cannot write libdl\'s %s object as PyTorch\'s; '
                                       'save its state_dict() instead' % type(obj).__name__)
        home, module = lr_scheduler, 'torch.optim.lr_scheduler'
    elif isinstance(obj, optim.Optimizer):
        home, module = optim, 'torch.optim.' + type(obj).__name__.lower()
    else:
        return None
    cls = type(obj)
    if getattr(home, cls.__name__, None) is cls:
        return module, cls.__name__
    return cls.__module__, cls.__qualname__


def _optim_state(obj):
    """The __dict__ torch pickles for its scheduler or optimizer like @obj:
    a scheduler's optimizer and state dict; an optimizer's
    Optimizer.__getstate__ (defaults, the state by parameter, param_groups
    holding the parameters)."""
    from .optim import Optimizer
    if not isinstance(obj, Optimizer):
        state = {'optimizer': obj.optimizer}
        state.update(obj.state_dict())
        return state
    sd = obj.state_dict()
    params = [p for g in obj.param_groups for p in g['params']]
    by_param = collections.defaultdict(dict)
    for i, s in sd['state'].items():
        by_param[params[i]] = s
    groups = [dict([('params', list(g['params']))] + [(k, v) for k, v in packed.items()
                                                      if k != 'params'])
              for g, packed in zip(obj.param_groups, sd['param_groups'])]
    return {'defaults': dict(obj.defaults), 'state': by_param, 'param_groups': groups}


def _pickle(obj, pickle_protocol, legacy=False):
    optim_states = {}
    collect = _TorchPickler(io.BytesIO(), pickle_protocol, None, optim_states)
    collect.dump(obj)
    storages = _Storages(collect.tensors)
    out = io.BytesIO()
    _TorchPickler(out, pickle_protocol, storages, optim_states, legacy).dump(obj)
    return out.getvalue(), storages.list


_ALIGN = 64


_ZIP32 = 0xFFFFFFFF
_force_zip64 = False  # tests write zip64 records without writing 4 GiB


class _ZipWriter:
    """Writes a zip of stored entries to @f, each entry's data at a multiple
    of 64 bytes from the start (an extra field of padding, as PyTorch's
    writer pads), with zip64 records where sizes or offsets need them. It
    never seeks (any writable stream does). The CRC-32 of the next entries
    is computed on a thread while this one is written."""

    def __init__(self, f):
        self.f = f
        self.pos = 0
        self.central = []

    def _write(self, b):
        self.f.write(b)
        self.pos += len(b)

    def add(self, name, data, nbytes, crc):
        name_b = name.encode('utf-8')
        offset = self.pos
        zip64 = _force_zip64 or nbytes >= _ZIP32 or offset >= _ZIP32
        extra = struct.pack('<HHQQ', 1, 16, nbytes, nbytes) if zip64 else b''
        pad = (-(offset + 30 + len(name_b) + len(extra) + 4)) % _ALIGN
        extra += b'FB' + struct.pack('<H', pad) + b'Z' * pad
        size32 = _ZIP32 if zip64 else nbytes
        self._write(struct.pack('<IHHHHHIIIHH', 0x04034b50, 45 if zip64 else 20, 0, 0, 0, 0x21,
                                crc, size32, size32, len(name_b), len(extra)) + name_b + extra)
        if nbytes:
            self._write(data)
        self.central.append((name_b, crc, nbytes, offset))

    def close(self):
        start = self.pos
        for name_b, crc, nbytes, offset in self.central:
            fields = []
            if _force_zip64 or nbytes >= _ZIP32:
                fields += [nbytes, nbytes]
            if _force_zip64 or offset >= _ZIP32:
                fields.append(offset)
            extra = struct.pack('<HH', 1, 8 * len(fields)) + struct.pack(
                '<%dQ' % len(fields), *fields) if fields else b''
            size32 = _ZIP32 if (_force_zip64 or nbytes >= _ZIP32) else nbytes
            off32 = _ZIP32 if (_force_zip64 or offset >= _ZIP32) else offset
            version = 45 if fields else 20
            self._write(struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, version, version, 0, 0, 0,
                                    0x21, crc, size32, size32, len(name_b), len(extra), 0, 0, 0,
                                    0, off32) + name_b + extra)
        size = self.pos - start
        n = len(self.central)
        if _force_zip64 or n >= 0xFFFF or start >= _ZIP32 or size >= _ZIP32:
            end64 = self.pos
            self._write(struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, n, n, size,
                                    start))
            self._write(struct.pack('<IIQI', 0x07064b50, 0, end64, 1))
            self._write(struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, _ZIP32,
                                    _ZIP32, 0))
        else:
            self._write(struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, n, n, size, start, 0))


def _storage_bytes(st):
    if not st.nbytes:
        return b''
    return memoryview((ctypes.c_char * st.nbytes).from_address(st.address)).cast('B')


def _archive_name(f):
    if _is_path(f):
        base = os.path.basename(os.fsdecode(f))
        stem = os.path.splitext(base)[0]
        if stem and all(c.isalnum() or c in '_-.' for c in stem):
            return stem
    return 'archive'


def _save_zip(obj, f, name, pickle_protocol):
    import concurrent.futures
    import zlib
    data, storages = _pickle(obj, pickle_protocol)
    entries = [(name + '/data.pkl', data), (name + '/byteorder', b'little')]
    entries += [('%s/data/%s' % (name, st.key), _storage_bytes(st)) for st in storages]
    entries.append((name + '/version', b'3\n'))
    writer = _ZipWriter(f)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        # zlib.crc32 lets go of the GIL: the CRCs run ahead of the writes
        crcs = [pool.submit(zlib.crc32, d) for _, d in entries]
        for (entry, d), crc in zip(entries, crcs):
            writer.add(entry, d, len(d), crc.result())
    writer.close()


def _save_legacy(obj, f, pickle_protocol):
    """Writes @obj in PyTorch's legacy format (see "PyTorch's legacy
    format" below): the storages' keys in sorted order, as torch sorts
    them, each storage's bytes written from the tensor's memory."""
    data, storages = _pickle(obj, pickle_protocol, legacy=True)
    sys_info = {'protocol_version': _LEGACY_PROTOCOL_VERSION, 'little_endian': True,
                'type_sizes': {'short': 2, 'int': 4, 'long': struct.calcsize('l')}}
    for head in (_LEGACY_MAGIC_NUMBER, _LEGACY_PROTOCOL_VERSION, sys_info):
        f.write(pickle.dumps(head, protocol=pickle_protocol))
    f.write(data)
    by_key = sorted(storages, key=lambda st: st.key)
    f.write(pickle.dumps([st.key for st in by_key], protocol=pickle_protocol))
    for st in by_key:
        f.write(struct.pack('<q', st.numel()))
        if st.nbytes:
            f.write(_storage_bytes(st))


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         *, format=None):
    """torch.save: writes @obj, any picklable object (tensors, state
    dicts, optimizer states, whole modules of libdl's layers, numpy arrays,
    plain values), to @f, a path or a binary file object, in PyTorch's zip
    format (in its legacy, pre-1.6 format with
    _use_new_zipfile_serialization=False); as a safetensors file when the
    path ends in ".safetensors" or @format is 'safetensors' (see this
    module's comment)."""
    if format not in (None, 'pytorch', 'safetensors'):
        raise ValueError("Dl.save: format must be 'pytorch' or 'safetensors', not %r" % (format,))
    if format is None:
        format = ('safetensors' if _is_path(f)
                  and os.fsdecode(f).endswith('.safetensors') else 'pytorch')
    if format == 'pytorch':
        if pickle_module is not None and pickle_module is not pickle:
            raise RuntimeError('Dl.save: only the pickle module is supported as pickle_module')
        if _is_path(f):
            with open(os.fsdecode(f), 'wb') as out:
                if _use_new_zipfile_serialization:
                    _save_zip(obj, out, _archive_name(f), pickle_protocol)
                else:
                    _save_legacy(obj, out, pickle_protocol)
        elif _use_new_zipfile_serialization:
            _save_zip(obj, f, 'archive', pickle_protocol)
        else:
            _save_legacy(obj, f, pickle_protocol)
        return
    td = _flatten(obj)
    try:
        if _is_path(f):
            Dl.safetensors_save(td, Gio.File.new_for_path(os.fsdecode(f)), None)
        else:
            f.write(Dl.safetensors_save_to_bytes(td).get_data())
    except GLib.Error as e:
        raise _io_error(e, f) from None


# ---- safe globals (torch.serialization) --------------------------------------

_safe_lock = threading.Lock()
_user_safe_globals = []
_scoped = threading.local()


def add_safe_globals(safe_globals):
    """torch.serialization.add_safe_globals: allows the classes and
    functions in @safe_globals (or (obj, 'module.name') pairs) in
    weights_only loading."""
    if not isinstance(safe_globals, (list, tuple)):
        raise TypeError('add_safe_globals expects a list of globals, not %s'
                        % type(safe_globals).__name__)
    with _safe_lock:
        _user_safe_globals.extend(safe_globals)


def get_safe_globals():
    """torch.serialization.get_safe_globals: the globals added by
    add_safe_globals."""
    with _safe_lock:
        return list(_user_safe_globals)


def clear_safe_globals():
    """torch.serialization.clear_safe_globals."""
    with _safe_lock:
        del _user_safe_globals[:]


@contextlib.contextmanager
def safe_globals(globals_list):
    """torch.serialization.safe_globals: add_safe_globals for the body of
    a with statement (this thread)."""
    previous = getattr(_scoped, 'globals', [])
    _scoped.globals = previous + list(globals_list)
    try:
        yield
    finally:
        _scoped.globals = previous


def _global_names(g):
    """The names under which a pickle may ask for @g: its own, and
    PyTorch's for a libdl class."""
    if isinstance(g, tuple) and len(g) == 2 and isinstance(g[1], str):
        return {g[1]}
    names = set()
    module = getattr(g, '__module__', None)
    name = getattr(g, '__qualname__', None) or getattr(g, '__name__', None)
    if module and name:
        names.add('%s.%s' % (module, name))
    if isinstance(g, type):
        path = _torch_class_path(g)
        if path:
            names.add('%s.%s' % path)
    return names


def _allowed_user_global(module, name):
    full = '%s.%s' % (module, name)
    for g in get_safe_globals() + getattr(_scoped, 'globals', []):
        if full in _global_names(g):
            return g[0] if isinstance(g, tuple) else g
    return None


# ---- loading -----------------------------------------------------------------

class _StorageType:
    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype


class _LoadedStorage:
    """A storage of the archive: @nbytes bytes at @address, kept alive by
    @owner (the mapped file or the bytes read)."""

    def __init__(self, address, nbytes, dtype, owner, key):
        self.address, self.nbytes, self.dtype, self.owner, self.key = (address, nbytes, dtype,
                                                                       owner, key)
        self.element_size = Dl.dtype_get_size(dtype._value)

    def numel(self):
        return self.nbytes // self.element_size

    def tensor(self, offset, size, stride):
        return Dl.Tensor.new_from_address(self.address + offset * self.element_size,
                                          list(size), list(stride), self.dtype._value,
                                          _release, self.owner)


def _release(owner):
    """Called when a loaded tensor lets go of the memory it views."""


def _check_ints(what, values, n=None):
    if not isinstance(values, (tuple, list)) or (n is not None and len(values) != n) or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise RuntimeError('Dl.load: a tensor\'s %s must be a tuple of ints, got %r'
                           % (what, values))


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False,
                    backward_hooks=None, metadata=None):
    """torch._utils._rebuild_tensor_v2: a view of @storage, checked against
    the storage's length (a file cannot make a view past its data)."""
    if not isinstance(storage, _LoadedStorage):
        raise RuntimeError('Dl.load: _rebuild_tensor_v2 expects a storage, got %s'
                           % type(storage).__name__)
    if not isinstance(storage_offset, int) or storage_offset < 0:
        raise RuntimeError('Dl.load: invalid storage offset %r' % (storage_offset,))
    _check_ints('size', size)
    _check_ints('stride', stride, len(size))
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError('Dl.load: invalid tensor of size %s and stride %s (negative values)'
                           % (tuple(size), tuple(stride)))
    numel = 1
    for s in size:
        numel *= s
    if numel >= 2 ** 63 or any(s >= 2 ** 63 for s in stride) or storage_offset >= 2 ** 63:
        raise RuntimeError('Dl.load: a tensor of size %s and stride %s is too large'
                           % (tuple(size), tuple(stride)))
    if numel == 0:
        t = Dl.Tensor.new_from_bytes(GLib.Bytes.new(b''), list(size), storage.dtype._value)
    else:
        last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride))
        if last >= storage.numel():
            raise RuntimeError('Dl.load: a tensor of size %s, stride %s and storage offset %d '
                               'reaches past its storage of %d elements (key %s)'
                               % (tuple(size), tuple(stride), storage_offset, storage.numel(),
                                  storage.key))
        t = storage.tensor(storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks=None, *args):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """torch 2's form of a parameter that has Python attributes: the
    attributes are dropped (a libdl tensor holds none)."""
    return _rebuild_parameter(data, requires_grad)


def _rebuild_from_type_v2(func, new_type, args, state):
    """torch's form of a tensor that has Python attributes (a libdl tensor
    holds none: they are dropped)."""
    return func(*args)


def _load_from_bytes(b):
    raise RuntimeError('Dl.load: the file holds a storage in PyTorch\'s legacy format '
                       '(torch.storage._load_from_bytes), which libdl does not read')


_WEIGHTS_ONLY_BUILTINS = {
    ('collections', 'OrderedDict'): collections.OrderedDict,
    ('builtins', 'set'): set, ('builtins', 'frozenset'): frozenset,
    ('builtins', 'complex'): complex, ('builtins', 'slice'): slice,
    ('builtins', 'bytearray'): bytearray, ('builtins', 'range'): range,
}
_WEIGHTS_ONLY_BUILTINS.update({('__builtin__', n): v for (m, n), v in
                               list(_WEIGHTS_ONLY_BUILTINS.items()) if m == 'builtins'})


class _PendingModule:
    """A PyTorch module as the pickle gives it (its class, then its
    __dict__): libdl builds its module from this record once the whole
    pickle is read (_build_modules), since a module's parameters and
    children may come later in the pickle than the module itself."""

    cls = torch_name = pending = None

    def __new__(cls, *args, **kwargs):
        record = object.__new__(cls)
        record.state = None
        cls.pending.append(record)
        return record

    def __setstate__(self, state):
        self.state = state


class _TorchObject:
    """An object of a torch.optim class as a pickle holds it: the scheduler
    (and its optimizer) that OneCycleLR's anneal_func is bound to. It keeps
    its class's torch path and its __dict__ as read, and is written back as
    it was; its methods are those of libdl's namesake class, bound to it
    (so anneal_func runs and names its function)."""

    torch_path = None

    def __new__(cls, *args):
        record = object.__new__(cls)
        record.state = None
        return record

    def __setstate__(self, state):
        self.state = state

    def __getattr__(self, name):
        if not name.startswith('__'):
            fn = getattr(_dl_class(*self.torch_path), name, None)
            if isinstance(fn, types.FunctionType):
                return types.MethodType(fn, self)
        raise AttributeError('PyTorch\'s %s.%s, as a pickle holds it, has no attribute %r'
                             % (self.torch_path + (name,)))

    def __repr__(self):
        return '<PyTorch\'s %s.%s, as pickled>' % self.torch_path

    def __reduce__(self):  # for pickle itself (copies, worker processes)
        return (_torch_object, self.torch_path, self.state)


@functools.lru_cache(maxsize=None)
def _torch_object_class(module, name):
    return type(name, (_TorchObject,), {'torch_path': (module, name)})


def _torch_object(module, name):
    return _torch_object_class(module, name)()


class _Unpickler(pickle.Unpickler):
    """The unpickler of PyTorch's pickles: @storages(key, type, numel,
    location) gives the storage a persistent id names; @legacy for the
    pre-1.6 format's persistent ids."""

    def __init__(self, file, storages, map_location, weights_only, legacy=False, **kwargs):
        super().__init__(file, **kwargs)
        self.storages = storages
        self.legacy = legacy
        self.map_location = map_location
        self.weights_only = weights_only
        self.loaded = {}
        self.pending = []

    def persistent_load(self, pid):
        """A storage ('storage', type, key, location, numel), or in the
        legacy format also ('storage', ..., numel, view_metadata) and a
        module class ('module', class, source_file, source)."""
        if isinstance(pid, tuple) and len(pid) == 4 and pid[0] == 'module' and self.legacy:
            if not isinstance(pid[1], type):
                raise pickle.UnpicklingError('Dl.load: invalid module id %r' % (pid[:2],))
            return pid[1]  # the class (PyTorch checks its source; libdl has its own)
        if not isinstance(pid, tuple) or len(pid) != (6 if self.legacy else 5) or \
                pid[0] != 'storage':
            raise pickle.UnpicklingError('Dl.load: unknown persistent id %r (PyTorch\'s files '
                                         'name storages as (\'storage\', type, key, location, '
                                         'numel%s))' % (pid[:1] if isinstance(pid, tuple) else pid,
                                                        ', view' if self.legacy else ''))
        _, stype, key, location, numel = pid[:5]
        if not isinstance(stype, _StorageType):
            raise pickle.UnpicklingError('Dl.load: unknown storage type %r' % (stype,))
        if not isinstance(key, str) or not isinstance(numel, int) or numel < 0 or \
                isinstance(numel, bool) or numel >= 2 ** 62:
            raise pickle.UnpicklingError('Dl.load: invalid storage %r' % (pid,))
        st = self.loaded.get(key)
        if st is None:
            st = self.storages(key, stype, numel, location)
            self.loaded[key] = st
        elif st.dtype != stype.dtype or st.numel() != numel:
            raise pickle.UnpicklingError('Dl.load: the storage %s is named as %s of %d elements '
                                         'and as %s of %d' % (key, _STORAGE_NAMES.get(st.dtype),
                                                              st.numel(), stype.name, numel))
        if self.legacy and pid[5] is not None:
            return _storage_view(st, pid[5])
        return st

    def find_class(self, module, name):
        if module == 'torch._utils' and name == '_rebuild_tensor_v2':
            return _rebuild_tensor
        if module == 'torch._utils' and name == '_rebuild_parameter':
            return _rebuild_parameter
        if module == 'torch._utils' and name == '_rebuild_parameter_with_state':
            return _rebuild_parameter_with_state
        if module == 'torch._tensor' and name == '_rebuild_from_type_v2':
            return _rebuild_from_type_v2
        if module == 'torch' and name == 'Tensor':
            return Dl.Tensor
        if module in ('torch', 'torch.cuda') and name.endswith('Storage'):
            # (torch.cuda.<X>Storage in files of old versions saved from a GPU)
            if name == 'UntypedStorage':
                return _StorageType(name, uint8)
            if name in _STORAGE_DTYPES:
                return _StorageType(name, _STORAGE_DTYPES[name])
            raise pickle.UnpicklingError('Dl.load: the file holds a torch.%s, a storage of a '
                                         'dtype libdl does not have' % name)
        if module == 'torch' and name in ('Size', 'device'):
            from . import _dtype
            return getattr(_dtype, name)
        if module == 'torch' and name in _DTYPES:
            return _DTYPES[name]
        if module == 'torch.storage' and name == '_load_from_bytes':
            return _load_from_bytes
        if (module, name) in _WEIGHTS_ONLY_BUILTINS:
            return _WEIGHTS_ONLY_BUILTINS[(module, name)]
        user = _allowed_user_global(module, name)
        if user is not None:
            return self._module_class(user, module, name)
        if self.weights_only:
            raise pickle.UnpicklingError(
                'Weights only load failed. Re-running `torch.load` with `weights_only` set to '
                '`False` will likely succeed, but it can result in arbitrary code execution. '
                'Do it only if you get the file from a trusted source. '
                'Unsupported global: GLOBAL %s.%s was not an allowed global by default. '
                'Please use `torch.serialization.add_safe_globals([%s])` to allowlist this '
                'global if you trust it.' % (module, name, name))
        if module == 'copyreg' and name == '__newobj__':
            return _newobj
        module, name = _torch_alias(module, name)
        if module == 'torch' or module.startswith('torch.'):
            obj = _dl_class(module, name)
            if module.startswith('torch.optim.') and (obj is None or isinstance(obj, type)):
                return _torch_object_class(module, name)
            if obj is None:
                raise pickle.UnpicklingError('Dl.load: the file needs PyTorch\'s %s.%s, which '
                                             'libdl does not have' % (module, name))
            return self._module_class(obj, module, name)
        # the user's Module subclass too is saved in PyTorch's layout
        return self._module_class(super().find_class(module, name), module, name)

    def _module_class(self, obj, module, name):
        """@obj, or for a module class saved in PyTorch's layout (one of
        PyTorch's, or the user's own Module subclass) the class that
        records its instances (_pending_class)."""
        if isinstance(obj, type) and issubclass(obj, Dl.Module) and \
                (module == 'torch' or module.startswith('torch.')
                 or not (obj.__module__ or '').startswith('dl.')):
            return self._pending_class(obj, module, name)
        return obj

    def _pending_class(self, cls, module, name):
        """What the pickle instantiates for the module class @cls: a
        _PendingModule subclass that records each instance here."""
        return type(name, (_PendingModule,), {'cls': cls, 'torch_name': '%s.%s' % (module, name),
                                              'pending': self.pending})


def _newobj(cls, *args):
    return cls.__new__(cls, *args)


def _construct_module(record, convert):
    import inspect
    state = record.state
    if not isinstance(state, dict):
        raise RuntimeError('Dl.load: the state of a %s is not a dict' % record.torch_name)
    params = state.get('_parameters') or {}
    buffers = state.get('_buffers') or {}
    children = collections.OrderedDict((n, convert(c)) for n, c in
                                        (state.get('_modules') or {}).items())
    cls = record.cls
    if not (cls.__module__ or '').startswith('dl.'):
        return _construct_custom(record, state, params, buffers, children)
    if issubclass(cls, _nn().Sequential):
        m = cls(children)
    else:
        try:
            sig = inspect.signature(cls.__init__)
        except (TypeError, ValueError):
            sig = None
        kwargs = {}
        if sig is not None:
            for pname, p in sig.parameters.items():
                if pname in ('self', 'device', 'dtype') or p.kind in (p.VAR_POSITIONAL,
                                                                      p.VAR_KEYWORD):
                    continue
                if pname in state:
                    kwargs[pname] = state[pname]
                elif pname == 'bias' and 'bias' in params:
                    kwargs['bias'] = params['bias'] is not None
        if issubclass(cls, _nn().RNNBase):  # RNN, LSTM, GRU take (*args, **kwargs)
            for k in ('input_size', 'hidden_size', 'num_layers', 'nonlinearity', 'bias',
                      'batch_first', 'dropout', 'bidirectional', 'proj_size'):
                if k in state:
                    kwargs[k] = state[k]
            if not kwargs.get('proj_size'):
                kwargs.pop('proj_size', None)
        keywords = _LOAD_KEYWORDS.get(cls.__name__)
        try:
            if keywords is not None:  # what torch keeps in the children
                kwargs.update((k, v) for k, v in keywords(state, params, children).items()
                              if sig is None or k in sig.parameters)
            m = cls(**kwargs)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, GLib.Error) as e:
            raise RuntimeError('Dl.load: cannot make libdl\'s %s for PyTorch\'s %s: %s'
                               % (cls.__name__, record.torch_name, e)) from None
        for n, c in children.items():
            setattr(m, n, c)
    with _no_grad():
        for n, p in params.items():
            if p is None:
                continue
            current = getattr(m, n, None)
            if _is_tensor(current) and tuple(current.shape) != tuple(p.shape):
                raise RuntimeError('Dl.load: %s\'s %s has shape %s in the file, libdl\'s '
                                   'module %s' % (record.torch_name, n, tuple(p.shape),
                                                  tuple(current.shape)))
            from .nn.parameter import Parameter
            setattr(m, n, p if isinstance(p, Parameter) else Parameter(p))
        non_persistent = state.get('_non_persistent_buffers_set') or set()
        for n, b in buffers.items():
            if b is not None:
                m.register_buffer(n, b, persistent=n not in non_persistent)
    m.set_property('training', bool(state.get('training', True)))
    return m


def _attention_keywords(state, params, children):
    return {'bias': params.get('in_proj_bias') is not None,
            'add_bias_kv': params.get('bias_k') is not None}


def _layer_keywords(state, params, children):
    """A Transformer layer's arguments: torch's layer keeps them in its
    children (and its activation, when a module)."""
    attn = children['self_attn']
    kw = dict(d_model=attn.embed_dim, nhead=attn.num_heads, batch_first=attn.batch_first,
              dim_feedforward=children['linear1'].out_features, dropout=children['dropout'].p,
              layer_norm_eps=children['norm1'].eps)
    if 'activation' in children:
        kw['activation'] = children['activation']
    return kw


def _stack_keywords(state, params, children):
    layer = children['layers'][0]
    kw = {'encoder_layer': layer, 'decoder_layer': layer}
    if 'norm' in children:
        kw['norm'] = children['norm']
    return kw


def _transformer_keywords(state, params, children):
    """Transformer's arguments, from its stacks and their first layers
    (libdl builds the model, then takes torch's stacks in place of its
    own)."""
    encoder, decoder = children['encoder'], children['decoder']
    layer = encoder.layers[0]
    kw = _layer_keywords(None, None, {n: getattr(layer, n) for n in
                                      ('self_attn', 'linear1', 'dropout', 'norm1')})
    kw.update(num_encoder_layers=encoder.num_layers, num_decoder_layers=decoder.num_layers,
              activation=layer.activation, norm_first=layer.norm_first)
    return kw


# libdl's arguments for a class whose torch __dict__ lacks some of them
_LOAD_KEYWORDS = {'MultiheadAttention': _attention_keywords,
                  'TransformerEncoderLayer': _layer_keywords,
                  'TransformerDecoderLayer': _layer_keywords,
                  'TransformerEncoder': _stack_keywords, 'TransformerDecoder': _stack_keywords,
                  'Transformer': _transformer_keywords}
# PairwiseDistance keeps its p as norm
_LOAD_KEYWORDS['PairwiseDistance'] = lambda state, params, children: (
    {'p': state['norm']} if 'norm' in state else {})


# What torch's Module keeps in its __dict__ besides the module's own
# attributes.
_TORCH_MODULE_KEYS = frozenset(('training', '_parameters', '_buffers', '_modules',
                                '_non_persistent_buffers_set', '_is_full_backward_hook')
                               + _MODULE_HOOK_DICTS)


def _construct_custom(record, state, params, buffers, children):
    """The user's Module subclass from PyTorch's layout, made as unpickling
    makes it (without its __init__)."""
    from .nn.modules import _rebuild_module
    from .nn.parameter import Parameter
    non_persistent = state.get('_non_persistent_buffers_set') or set()
    return _rebuild_module(
        record.cls,
        [(n, p if isinstance(p, Parameter) else Parameter(p)) for n, p in params.items()
         if p is not None],
        [(n, b, n not in non_persistent) for n, b in buffers.items() if b is not None],
        list(children.items()), bool(state.get('training', True)),
        {k: v for k, v in state.items() if k not in _TORCH_MODULE_KEYS and not
         k.startswith('_forward_hooks') and not k.startswith('_backward_pre_hooks')})


def _no_grad():
    from .autograd import no_grad
    return no_grad()


def _build_modules(obj, pending):
    """@obj with each _PendingModule in it replaced by libdl's module (a
    module reached twice is one module)."""
    done = {}

    def convert(record):
        m = done.get(id(record))
        if m is None:
            m = _construct_module(record, convert)
            done[id(record)] = m
        return m

    seen = {}

    def walk(x):
        if isinstance(x, _PendingModule):
            return convert(x)
        if id(x) in seen:
            return seen[id(x)]
        if isinstance(x, dict):
            seen[id(x)] = x
            for k, v in list(x.items()):
                x[k] = walk(v)
            return x
        if isinstance(x, list):
            seen[id(x)] = x
            x[:] = [walk(v) for v in x]
            return x
        if isinstance(x, tuple) and type(x) is tuple:
            seen[id(x)] = x
            r = tuple(walk(v) for v in x)
            seen[id(x)] = r
            return r
        return x

    return walk(obj)


class _Archive:
    """A zip archive of PyTorch's format read from @fp (seekable): its
    records by name under the archive's top folder. @buf is the mapped
    file when there is one (storages then view it)."""

    def __init__(self, fp, buf, what):
        self.fp, self.buf, self.what = fp, buf, what
        try:
            self.zf = zipfile.ZipFile(fp)
            infos = self.zf.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
                struct.error) as e:
            raise RuntimeError('Dl.load: %s is not a valid PyTorch zip archive (%s)'
                               % (what, e)) from None
        if not infos:
            raise RuntimeError('Dl.load: %s is an empty zip archive' % what)
        self.prefix = infos[0].filename.split('/', 1)[0] + '/'
        self.records = {i.filename[len(self.prefix):]: i for i in infos
                        if i.filename.startswith(self.prefix)}
        if 'data.pkl' not in self.records:
            raise RuntimeError('Dl.load: %s has no data.pkl record: not a PyTorch checkpoint '
                               '(torch.save) archive' % what)
        if 'byteorder' in self.records and self.read('byteorder') != b'little':
            raise RuntimeError('Dl.load: %s holds big-endian data, which libdl does not read'
                               % what)

    def span(self, name):
        """(offset, length) of a stored record's data in the file, None for
        a compressed one."""
        info = self.records[name]
        if info.compress_type != zipfile.ZIP_STORED:
            return None
        self.fp.seek(info.header_offset)
        header = self.fp.read(30)
        if len(header) != 30 or header[:4] != b'PK\x03\x04':
            raise RuntimeError('Dl.load: %s: the zip entry %s is damaged' % (self.what,
                                                                              info.filename))
        n, e = struct.unpack('<HH', header[26:30])
        start = info.header_offset + 30 + n + e
        end = self.fp.seek(0, io.SEEK_END)
        if start + info.file_size > end:
            raise RuntimeError('Dl.load: %s is truncated (the entry %s ends past the file)'
                               % (self.what, info.filename))
        return start, info.file_size

    def read(self, name):
        try:
            return self.zf.read(self.prefix + name)
        except (zipfile.BadZipFile, OSError, ValueError, struct.error, EOFError) as e:
            raise RuntimeError('Dl.load: %s: cannot read %s (%s)' % (self.what, name, e)) \
                from None


def _aligned(nbytes):
    """An array of @nbytes bytes at a multiple of 64 bytes, and its address."""
    import numpy
    a = numpy.empty(nbytes + 64, numpy.uint8)
    skip = (-a.ctypes.data) % 64
    return a[skip:skip + nbytes], a.ctypes.data + skip


def _storage_loader(archive, map_location):
    def load_storage(key, stype, numel, location):
        name = 'data/' + key
        if name not in archive.records:
            raise RuntimeError('Dl.load: %s has no record %s for the storage %s'
                               % (archive.what, name, key))
        nbytes = numel * Dl.dtype_get_size(stype.dtype._value)
        span = archive.span(name)
        length = span[1] if span is not None else archive.records[name].file_size
        if length < nbytes:
            raise RuntimeError('Dl.load: %s: the storage %s holds %d bytes, fewer than its %d '
                               'elements of %s need (%d)' % (archive.what, key, length, numel,
                                                             stype.name, nbytes))
        if nbytes == 0:
            st = _LoadedStorage(0, 0, stype.dtype, None, key)
        elif span is not None and archive.buf is not None and \
                _address(archive.buf, span[0]) % 64 == 0:
            # a view of the mapped file (zero copy)
            holder = ctypes.c_char.from_buffer(archive.buf, span[0])
            st = _LoadedStorage(ctypes.addressof(holder), nbytes, stype.dtype, holder, key)
        else:
            holder, address = _aligned(nbytes)
            if span is not None:
                archive.fp.seek(span[0])
                if _read_into(archive.fp, memoryview(holder).cast('B')) != nbytes:
                    raise RuntimeError('Dl.load: %s is truncated (storage %s)'
                                       % (archive.what, key))
            else:  # a compressed entry: only what the storage needs is read
                with archive.zf.open(archive.prefix + name) as entry:
                    got = entry.read(nbytes)
                if len(got) != nbytes:
                    raise RuntimeError('Dl.load: %s is truncated (storage %s)'
                                       % (archive.what, key))
                holder[:] = memoryview(got).cast('B')
            st = _LoadedStorage(address, nbytes, stype.dtype, holder, key)
        return _map_storage(st, location, map_location)
    return load_storage


def _address(buf, offset):
    holder = ctypes.c_char.from_buffer(buf, offset)
    address = ctypes.addressof(holder)
    del holder
    return address


def _map_storage(st, location, map_location):
    if map_location is None:
        return st
    if callable(map_location):
        out = map_location(st, location)
        if out is None or out is st:
            return st
        raise RuntimeError('Dl.load: a map_location function may only return the storage it '
                           'was given (libdl keeps every storage on the CPU)')
    if isinstance(map_location, dict):
        map_location = map_location.get(location, location)
    target = str(map_location)
    if target.split(':')[0] != 'cpu':
        from ._dtype import device
        device(target)  # torch's error for a bad device name
        raise RuntimeError('Dl.load: cannot map the storages to %s: libdl loads them on the CPU'
                           % target)
    return st


def _open(f):
    """(fp, buf) for @f: a path opened and mapped copy-on-write,
    a seekable file object as it is (buf None), the bytes of another, or
    (a file in the legacy format) the unseekable stream itself."""
    if _is_path(f):
        fd = open(os.fsdecode(f), 'rb')
        size = os.fstat(fd.fileno()).st_size
        return fd, (mmap.mmap(fd.fileno(), size, access=mmap.ACCESS_COPY) if size else None)
    try:
        if f.seekable():
            return f, None
    except AttributeError:
        pass
    head = f.read(_HEAD)
    if _is_legacy(head):  # read as it comes (the legacy format never seeks)
        return io.BufferedReader(_Prefixed(head, f)), None
    return io.BytesIO(head + f.read()), None


def _unpickle(unpickler, what, name, weights_only):
    """Runs @unpickler (reading the pickle @name of @what), with torch's
    errors for a damaged pickle or a refused weights-only load, and builds
    the modules it holds."""
    try:
        result = unpickler.load()
    except RecursionError:
        raise pickle.UnpicklingError('Dl.load: %s: the pickle nests too deeply' % what) \
            from None
    except pickle.UnpicklingError:
        raise
    except Exception as e:
        if weights_only:  # as torch: any failure of a weights-only load is this error
            raise pickle.UnpicklingError(
                'Weights only load failed. %s could not be loaded: WeightsUnpickler error: %s'
                % (what, e)) from None
        if not isinstance(e, (EOFError, IndexError, KeyError, struct.error, ValueError)):
            raise
        raise pickle.UnpicklingError('Dl.load: %s: the pickle %s is damaged (%s: %s)'
                                     % (what, name, type(e).__name__, e)) from None
    if unpickler.pending:
        result = _build_modules(result, unpickler.pending)
    return result


def _load_zip(fp, buf, what, map_location, weights_only, pickle_load_args):
    archive = _Archive(fp, buf, what)
    unpickler = _Unpickler(io.BytesIO(archive.read('data.pkl')),
                           _storage_loader(archive, map_location), map_location, weights_only,
                           **pickle_load_args)
    return _unpickle(unpickler, what, 'data.pkl', weights_only)


# ---- PyTorch's legacy format --------------------------------------------------
#
# What torch < 1.6 wrote (and torch.save(..., _use_new_zipfile_serialization=
# False) still writes): a stream of pickles, the magic number, the protocol
# version (1001), sys_info (a dict: little_endian, type sizes), the object
# (a storage's persistent id is ('storage', torch.<X>Storage, key, location,
# numel, view_metadata), view_metadata None or (view_key, offset, numel) for
# a storage that is a slice of another; a module class's ('module', class,
# source_file, source)), then the sorted list of the storages' keys and,
# for each key in that order, its element count (int64, little-endian) and
# its raw bytes. The data comes after the pickle and nothing in the file
# says where a storage's bytes lie before the pickle is read (the counts
# are in elements of dtypes the pickle names), so the storages' memory is
# allocated as the pickle names them, the tensors view it, and the data is
# then read once, straight into it. A seekable stream is never seeked in
# this format, so an unseekable one is read as it comes.

_LEGACY_MAGIC_NUMBER = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL_VERSION = 1001
# how a legacy file starts: the magic number pickled (protocol 2 unless
# torch.save was given another)
_LEGACY_MAGICS = tuple(pickle.dumps(_LEGACY_MAGIC_NUMBER, protocol=p) for p in (2, 3, 4, 5))
_HEAD = max(len(m) for m in _LEGACY_MAGICS)


def _is_legacy(head):
    return head.startswith(_LEGACY_MAGICS)


def _storage_view(root, view):
    """The slice (view_key, offset, numel) of the storage @root, as the
    legacy format's view_metadata names it: the same memory."""
    if not isinstance(view, tuple) or len(view) != 3 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in view[1:]):
        raise pickle.UnpicklingError('Dl.load: invalid storage view %r' % (view,))
    _, offset, numel = view
    if offset < 0 or numel < 0 or offset + numel > root.numel():
        raise pickle.UnpicklingError('Dl.load: a view of %d elements at %d is past the end of '
                                     'its storage of %d (key %s)' % (numel, offset, root.numel(),
                                                                     root.key))
    return _LoadedStorage(root.address + offset * root.element_size if numel else 0,
                          numel * root.element_size, root.dtype, root.owner, root.key)


def _small_pickle(fp, what, name, pickle_load_args):
    """One of the legacy format's plain pickles (magic, version, sys_info,
    the storage keys): no global may be in it."""
    unpickler = _Unpickler(fp, None, None, True, **pickle_load_args)
    try:
        return unpickler.load()
    except pickle.UnpicklingError:
        raise
    except Exception as e:
        raise pickle.UnpicklingError('Dl.load: %s: the %s pickle of PyTorch\'s legacy format '
                                     'is damaged (%s: %s)' % (what, name, type(e).__name__, e)) \
            from None


def _load_legacy(fp, what, map_location, weights_only, pickle_load_args):
    magic = _small_pickle(fp, what, 'magic number', pickle_load_args)
    if magic != _LEGACY_MAGIC_NUMBER:
        raise RuntimeError('Invalid magic number; corrupt file?')
    version = _small_pickle(fp, what, 'protocol version', pickle_load_args)
    if version != _LEGACY_PROTOCOL_VERSION:
        raise RuntimeError('Invalid protocol version: %s' % (version,))
    sys_info = _small_pickle(fp, what, 'sys_info', pickle_load_args)
    if isinstance(sys_info, dict) and sys_info.get('little_endian') is False:
        raise RuntimeError('Dl.load: %s holds big-endian data, which libdl does not read' % what)
    storages = collections.OrderedDict()  # key -> the storage whose bytes are to be read
    # the bytes a seekable file has left: what its storages can hold at most
    left = None
    if fp.seekable():
        here = fp.tell()
        left = fp.seek(0, io.SEEK_END) - here
        fp.seek(here)

    def new_storage(key, stype, numel, location):
        nonlocal left
        nbytes = numel * Dl.dtype_get_size(stype.dtype._value)
        if left is not None:
            left -= nbytes
            if left < 0:  # refused before it is allocated
                raise RuntimeError('Dl.load: %s is truncated: the storage %s of %d elements of '
                                   '%s does not fit in what is left of the file'
                                   % (what, key, numel, stype.name))
        if nbytes:
            holder, address = _aligned(nbytes)
        else:
            holder, address = None, 0
        st = _LoadedStorage(address, nbytes, stype.dtype, holder, key)
        storages[key] = st
        return _map_storage(st, location, map_location)

    unpickler = _Unpickler(fp, new_storage, map_location, weights_only, legacy=True,
                           **pickle_load_args)
    result = _unpickle(unpickler, what, 'of the object', weights_only)
    keys = _small_pickle(fp, what, 'storage keys', pickle_load_args)
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys) or \
            len(keys) != len(storages) or set(keys) != set(storages):
        raise RuntimeError('Dl.load: %s: the storage keys listed after the pickle (%s) are '
                           'not the storages the pickle names (%s)'
                           % (what, _summary(keys), _summary(list(storages))))
    count = bytearray(8)
    for key in keys:
        st = storages[key]
        if _read_into(fp, memoryview(count)) != 8:
            raise RuntimeError('Dl.load: %s is truncated (the size of storage %s is missing)'
                               % (what, key))
        numel, = struct.unpack('<q', count)
        if numel != st.numel():
            raise RuntimeError('Dl.load: %s: storage %s has wrong size: expected %d got %d'
                               % (what, key, st.numel(), numel))
        if st.nbytes and _read_into(fp, memoryview(st.owner).cast('B')) != st.nbytes:
            raise RuntimeError('Dl.load: %s is truncated (storage %s needs %d bytes)'
                               % (what, key, st.nbytes))
    return result


def _summary(keys):
    if not isinstance(keys, list):
        return 'a %s' % type(keys).__name__
    return '%d keys: %s' % (len(keys), ', '.join(map(repr, keys[:4]))
                           + (', ...' if len(keys) > 4 else ''))


def _read_into(fp, view):
    """Fills @view from @fp; the number of bytes read (fewer at the end)."""
    got = 0
    while got < len(view):
        n = fp.readinto(view[got:])
        if not n:
            break
        got += n
    return got


class _Prefixed(io.RawIOBase):
    """An unseekable stream @f whose first bytes @head were already read."""

    def __init__(self, head, f):
        self.head, self.f = head, f

    def readable(self):
        return True

    def readinto(self, b):
        if self.head:
            n = min(len(b), len(self.head))
            b[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        if hasattr(self.f, 'readinto'):
            return self.f.readinto(b)
        data = self.f.read(len(b))
        b[:len(data)] = data
        return len(data)


def _apply_map_location(t, map_location):
    if callable(map_location):
        out = map_location(t, 'cpu')
        return t if out is None else out
    if isinstance(map_location, dict):
        map_location = map_location.get('cpu', 'cpu')
    return t.to(map_location)


def load(f, map_location=None, pickle_module=None, *, weights_only=False, mmap=None,
         **pickle_load_args):
    """torch.load: reads what torch.save (PyTorch's or libdl's) or a
    safetensors writer wrote to @f, a path (memory-mapped) or a binary file
    object (an unseekable one is read into memory first, or read as it
    comes when it is in PyTorch's legacy format). PyTorch's zip archives
    and legacy (pre-1.6) streams give back the pickled object (with
    @weights_only, only tensors, containers, plain values and the globals
    of add_safe_globals may be in it); a safetensors file gives what
    Dl.save wrote, or a dict of its tensors by sorted name."""
    if pickle_module is not None and pickle_module is not pickle:
        raise RuntimeError('Dl.load: only the pickle module is supported as pickle_module')
    pickle_load_args.setdefault('encoding', 'utf-8')
    what = repr(os.fsdecode(f)) if _is_path(f) else 'the file'
    try:
        fp, buf = _open(f)
        if isinstance(fp, io.BufferedReader) and not fp.seekable():
            head = fp.peek(_HEAD)
        else:
            start = fp.tell()
            head = fp.read(_HEAD)
            fp.seek(start)
    except OSError as e:
        raise _io_error(e, f) from None
    try:
        if head[:4] == b'PK\x03\x04':
            return _load_zip(fp, buf, what, map_location, weights_only, pickle_load_args)
        if _is_legacy(head):
            return _load_legacy(fp, what, map_location, weights_only, pickle_load_args)
        if _is_path(f):
            td = Dl.safetensors_load(Gio.File.new_for_path(os.fsdecode(f)), None)
        else:
            td = Dl.safetensors_load_bytes(GLib.Bytes.new(fp.read()))
    except GLib.Error as e:
        raise _io_error(e, f) from None
    finally:
        if fp is not f:
            fp.close()
    tensors = _tensors_of(td)
    if map_location is not None:
        tensors = collections.OrderedDict((n, _apply_map_location(t, map_location))
                                          for n, t in tensors.items())
    tree = td.get_metadata(_TREE_KEY)
    if tree is None:
        return tensors
    return _decode(json.loads(tree), tensors)
