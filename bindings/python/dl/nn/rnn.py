# dl.nn's recurrent layers (torch.nn.RNN, LSTM, GRU and their cells) over
# libdl's DlRnnBase subclasses and cells: the C classes own the parameters
# and run the layers; this layer adds torch's signatures, tuples of states
# and PackedSequence inputs (whose permutation of the hidden states is
# torch's Python code too).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numbers
import warnings

from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from .modules import Module, _construct, _Layer
from .utils.rnn import PackedSequence

_MODES = {'RNN_TANH': Dl.RnnMode.RNN_TANH, 'RNN_RELU': Dl.RnnMode.RNN_RELU,
          'LSTM': Dl.RnnMode.LSTM, 'GRU': Dl.RnnMode.GRU}
_MODE_NAMES = {int(v): k for k, v in _MODES.items()}
_NONLINEARITY = {'tanh': Dl.RnnNonlinearity.TANH, 'relu': Dl.RnnNonlinearity.RELU}


def _call(fn, *args):
    try:
        return fn(*args)
    except GLib.Error as e:
        raise _translate(e) from None


def _permute(hx, permutation):
    if permutation is None or hx is None:
        return hx
    return hx.index_select(1, permutation)


def _check_base_args(mode, hidden_size, num_layers, dropout, proj_size):
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got dropout={} "
                      "and num_layers={}".format(dropout, num_layers))
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if mode not in _MODES:
        raise ValueError("Unrecognized RNN mode: " + mode)


class RNNBase(_Layer):
    """torch.nn.RNNBase(mode, input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0., bidirectional=False, proj_size=0): the
    base of RNN, LSTM and GRU (libdl's DlRnnBase); made directly, it is the
    layer of @mode."""
    __module__ = 'dl.nn'
    _properties = ('input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first', 'dropout',
                   'bidirectional', 'proj_size')

    def __new__(cls, *args, **kwargs):
        if cls is not RNNBase:
            return super().__new__(cls)
        args = list(args)
        mode = args.pop(0) if args else kwargs.pop('mode', None)
        if mode not in _MODES:
            raise ValueError("Unrecognized RNN mode: " + str(mode))
        target = {'LSTM': LSTM, 'GRU': GRU}.get(mode, RNN)
        obj = target.__new__(target)
        _layer_init(obj, target._typelib, mode, *args, **kwargs)
        # Python calls __init__ next with RNNBase's arguments: it is done
        obj.__dict__['_dl_made_by_base'] = True
        return obj

    def _made_by_base(self):
        return self.__dict__.pop('_dl_made_by_base', False)

    @property
    def mode(self):
        return _MODE_NAMES[int(self.get_property('mode'))]

    input_size = property(lambda self: self.get_property('input-size'))
    hidden_size = property(lambda self: self.get_property('hidden-size'))
    num_layers = property(lambda self: self.get_property('num-layers'))
    bias = property(lambda self: self.get_property('bias'))
    batch_first = property(lambda self: self.get_property('batch-first'))
    dropout = property(lambda self: self.get_property('dropout'))
    bidirectional = property(lambda self: self.get_property('bidirectional'))
    proj_size = property(lambda self: self.get_property('proj-size'))

    @property
    def _all_weights(self):
        names = []
        for layer in range(self.num_layers):
            for suffix in (('', '_reverse') if self.bidirectional else ('',)):
                w = ['weight_ih_l{}{}', 'weight_hh_l{}{}']
                if self.bias:
                    w += ['bias_ih_l{}{}', 'bias_hh_l{}{}']
                if self.proj_size > 0:
                    w += ['weight_hr_l{}{}']
                names.append([x.format(layer, suffix) for x in w])
        return names

    @property
    def _flat_weights_names(self):
        return [n for group in self._all_weights for n in group]

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in group] for group in self._all_weights]

    def flatten_parameters(self):
        """Does nothing: the CPU layers need no flat weight buffer (as in
        torch without cuDNN)."""

    def reset_parameters(self):
        from . import init
        stdv = 1.0 / (self.hidden_size ** 0.5) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = '{}, {}'.format(self.input_size, self.hidden_size)
        if self.proj_size != 0:
            s += ', proj_size={}'.format(self.proj_size)
        if self.num_layers != 1:
            s += ', num_layers={}'.format(self.num_layers)
        if self.bias is not True:
            s += ', bias={}'.format(self.bias)
        if self.batch_first is not False:
            s += ', batch_first={}'.format(self.batch_first)
        if self.dropout != 0:
            s += ', dropout={}'.format(self.dropout)
        if self.bidirectional is not False:
            s += ', bidirectional={}'.format(self.bidirectional)
        return s

    def forward(self, input, hx=None):
        lstm = self.mode == 'LSTM'
        if lstm and hx is not None:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise RuntimeError('LSTM: hx must be a tuple (h_0, c_0)')
            h0, c0 = hx
        else:
            h0, c0 = hx, None
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            h0, c0 = _permute(h0, sorted_indices), _permute(c0, sorted_indices)
            out, h_n, c_n = _call(Dl.RnnBase.forward_packed, self, data, batch_sizes, h0, c0)
            out = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
            h_n, c_n = _permute(h_n, unsorted_indices), _permute(c_n, unsorted_indices)
        else:
            out, h_n, c_n = _call(Dl.RnnBase.forward_state, self, input, h0, c0)
        return out, ((h_n, c_n) if lstm else h_n)


def _layer_init(self, typelib_class, mode, input_size, hidden_size, num_layers=1, bias=True,
                batch_first=False, dropout=0., bidirectional=False, proj_size=0, device=None,
                dtype=None, **extra):
    _check_base_args(mode, hidden_size, num_layers, dropout, proj_size)
    if mode.startswith('RNN_'):
        extra['nonlinearity'] = _NONLINEARITY['relu' if mode == 'RNN_RELU' else 'tanh']
    elif proj_size and mode != 'LSTM':
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    _construct(self, typelib_class, dtype=dtype, device=device, input_size=int(input_size),
               hidden_size=int(hidden_size), num_layers=int(num_layers), bias=bool(bias),
               batch_first=bool(batch_first), dropout=float(dropout),
               bidirectional=bool(bidirectional), proj_size=int(proj_size), **extra)


@typelib_override(__name__)
class RNN(RNNBase, Dl.Rnn, Module):
    """torch.nn.RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh',
    bias=True, batch_first=False, dropout=0., bidirectional=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = RNNBase._properties + ('nonlinearity',)

    _typelib = Dl.Rnn

    def __init__(self, *args, **kwargs):
        if self._made_by_base():
            return
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        nonlinearity = kwargs.pop('nonlinearity', 'tanh')
        if nonlinearity not in _NONLINEARITY:
            raise ValueError("Unknown nonlinearity '{}'".format(nonlinearity))
        mode = 'RNN_TANH' if nonlinearity == 'tanh' else 'RNN_RELU'
        _layer_init(self, Dl.Rnn, mode, *args, **kwargs)

    @property
    def nonlinearity(self):
        return 'relu' if int(self.get_property('nonlinearity')) == 1 else 'tanh'


@typelib_override(__name__)
class LSTM(RNNBase, Dl.Lstm, Module):
    """torch.nn.LSTM(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0., bidirectional=False, proj_size=0)."""
    __module__ = OVERRIDE_MODULE

    _typelib = Dl.Lstm

    def __init__(self, *args, **kwargs):
        if not self._made_by_base():
            _layer_init(self, Dl.Lstm, 'LSTM', *args, **kwargs)


@typelib_override(__name__)
class GRU(RNNBase, Dl.Gru, Module):
    """torch.nn.GRU(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0., bidirectional=False)."""
    __module__ = OVERRIDE_MODULE

    _typelib = Dl.Gru

    def __init__(self, *args, **kwargs):
        if self._made_by_base():
            return
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        _layer_init(self, Dl.Gru, 'GRU', *args, **kwargs)


class _CellAttributes(_Layer):
    _properties = ('input_size', 'hidden_size', 'bias')
    input_size = property(lambda self: self.get_property('input-size'))
    hidden_size = property(lambda self: self.get_property('hidden-size'))
    bias = property(lambda self: self.get_property('bias'))

    def _init_cell(self, typelib_class, input_size, hidden_size, bias, **extra):
        _construct(self, typelib_class, input_size=int(input_size),
                   hidden_size=int(hidden_size), bias=bool(bias), **extra)

    def _check_dim(self, input):
        if input.dim() not in (1, 2):
            raise AssertionError('{}: Expected input to be 1-D or 2-D but received {}-D tensor'
                                 .format(type(self).__name__, input.dim()))

    def reset_parameters(self):
        RNNBase.reset_parameters(self)

    def extra_repr(self):
        s = '{}, {}'.format(self.input_size, self.hidden_size)
        if self.bias is not True:
            s += ', bias={}'.format(self.bias)
        if getattr(self, 'nonlinearity', 'tanh') != 'tanh':
            s += ', nonlinearity={}'.format(self.nonlinearity)
        return s


@typelib_override(__name__)
class RNNCell(_CellAttributes, Dl.RnnCell, Module):
    """torch.nn.RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh')."""
    __module__ = OVERRIDE_MODULE
    _properties = _CellAttributes._properties + ('nonlinearity',)

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None,
                 dtype=None):
        if nonlinearity not in _NONLINEARITY:
            raise RuntimeError("Unknown nonlinearity: {}".format(nonlinearity))
        self._init_cell(Dl.RnnCell, input_size, hidden_size, bias,
                        nonlinearity=_NONLINEARITY[nonlinearity])

    @property
    def nonlinearity(self):
        return 'relu' if int(self.get_property('nonlinearity')) == 1 else 'tanh'

    def forward(self, input, hx=None):
        self._check_dim(input)
        return _call(Dl.RnnCell.step, self, input, hx)


@typelib_override(__name__)
class LSTMCell(_CellAttributes, Dl.LstmCell, Module):
    """torch.nn.LSTMCell(input_size, hidden_size, bias=True)."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        self._init_cell(Dl.LstmCell, input_size, hidden_size, bias)

    def forward(self, input, hx=None):
        self._check_dim(input)
        h0, c0 = hx if hx is not None else (None, None)
        return _call(Dl.LstmCell.step, self, input, h0, c0)


@typelib_override(__name__)
class GRUCell(_CellAttributes, Dl.GruCell, Module):
    """torch.nn.GRUCell(input_size, hidden_size, bias=True)."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        self._init_cell(Dl.GruCell, input_size, hidden_size, bias)

    def forward(self, input, hx=None):
        self._check_dim(input)
        return _call(Dl.GruCell.step, self, input, hx)
