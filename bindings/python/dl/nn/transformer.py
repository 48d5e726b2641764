# transformer.py: MultiheadAttention and the Transformer family
# (libdl's DlMultiheadAttention, DlTransformerEncoderLayer, ...), with torch
# 1.13's signatures and attributes and torch 2's is_causal keywords.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import warnings

from .. import _dtype
from .._lib import OVERRIDE_MODULE, Dl, GLib, _is_tensor, typelib_override
from . import functional as F
from . import init
from .functional import _mha_error
from .modules import Module, ModuleList, _construct, _Layer

__all__ = ['MultiheadAttention', 'TransformerEncoderLayer', 'TransformerEncoder',
           'TransformerDecoderLayer', 'TransformerDecoder', 'Transformer']


def _param_or_none(name):
    return property(lambda self: Dl.Module.get_parameter(self, name))


def _child(name):
    return property(lambda self: Dl.Module.get_module(self, name))


def _warn_byte_mask(mask, what):
    if mask is not None and _is_tensor(mask) and mask.dtype == _dtype.uint8:
        warnings.warn('Byte tensor for %s in nn.MultiheadAttention is deprecated. Use bool '
                      'tensor instead.' % what)


@typelib_override(__name__)
class MultiheadAttention(_Layer, Dl.MultiheadAttention, Module):
    """torch.nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True,
    add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None,
    batch_first=False)."""
    __module__ = OVERRIDE_MODULE
    __constants__ = ['batch_first']
    _properties = ('embed_dim', 'num_heads', 'dropout', 'bias', 'add_bias_kv', 'add_zero_attn',
                   'kdim', 'vdim', 'batch_first')

    def __init__(self, embed_dim, num_heads, dropout=0., bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim // num_heads * num_heads != embed_dim:  # ZeroDivisionError as torch
            raise AssertionError('embed_dim must be divisible by num_heads')
        _construct(self, Dl.MultiheadAttention, embed_dim=int(embed_dim),
                   num_heads=int(num_heads), dropout=float(dropout), bias=bool(bias),
                   add_bias_kv=bool(add_bias_kv), add_zero_attn=bool(add_zero_attn),
                   kdim=int(kdim) if kdim is not None else 0,
                   vdim=int(vdim) if vdim is not None else 0, batch_first=bool(batch_first))
        _name_out_projs(self)

    in_proj_weight = _param_or_none('in_proj_weight')
    in_proj_bias = _param_or_none('in_proj_bias')
    q_proj_weight = _param_or_none('q_proj_weight')
    k_proj_weight = _param_or_none('k_proj_weight')
    v_proj_weight = _param_or_none('v_proj_weight')
    bias_k = _param_or_none('bias_k')
    bias_v = _param_or_none('bias_v')
    embed_dim = property(lambda self: self.get_property('embed-dim'))
    num_heads = property(lambda self: self.get_property('num-heads'))
    dropout = property(lambda self: self.get_property('dropout'))
    batch_first = property(lambda self: self.get_property('batch-first'))
    add_zero_attn = property(lambda self: self.get_property('add-zero-attn'))
    kdim = property(lambda self: self.get_property('kdim'))
    vdim = property(lambda self: self.get_property('vdim'))
    head_dim = property(lambda self: self.embed_dim // self.num_heads)

    @property
    def _qkv_same_embed_dim(self):
        return Dl.Module.get_parameter(self, 'in_proj_weight') is not None

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.)
            init.constant_(self.out_proj.bias, 0.)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        _warn_byte_mask(attn_mask, 'attn_mask')
        try:
            return Dl.MultiheadAttention.attend(self, query, key, value, key_padding_mask,
                                                bool(need_weights), attn_mask,
                                                bool(average_attn_weights), bool(is_causal))
        except GLib.Error as e:
            raise _mha_error(e) from None

    def extra_repr(self):
        return ''


def _name_out_projs(module):
    """Gives the out_proj of each MultiheadAttention in @module (made by
    libdl's C layer as a DlLinear, which Python sees as a Linear) torch's
    class, NonDynamicallyQuantizableLinear: the same C class under that
    name. Accessing the wrapper's __dict__ makes PyGObject keep the wrapper
    as long as the object lives (a toggle reference), and with it the
    class."""
    from .modules import Linear
    from .modules.linear import NonDynamicallyQuantizableLinear
    for m in module.modules():
        if isinstance(m, MultiheadAttention):
            out_proj = Dl.Module.get_module(m, 'out_proj')
            if type(out_proj) is Linear:
                out_proj.__dict__
                out_proj.__class__ = NonDynamicallyQuantizableLinear


_ACTIVATIONS = {'relu': Dl.TransformerActivation.RELU, 'gelu': Dl.TransformerActivation.GELU}


def _activation(activation):
    """(the C enum, the callable Python runs or None) of a layer's
    activation: 'relu', 'gelu', F.relu, F.gelu, ReLU() and GELU() are
    libdl's fused ops; another callable runs in Python."""
    from .modules import GELU, ReLU
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise RuntimeError('activation should be relu/gelu, not %s' % activation)
        return _ACTIVATIONS[activation], None
    if activation is F.relu or isinstance(activation, ReLU):
        return Dl.TransformerActivation.RELU, None
    if activation is F.gelu or (isinstance(activation, GELU) and activation.approximate == 'none'):
        return Dl.TransformerActivation.GELU, None
    if not callable(activation):
        raise TypeError('activation must be a string or a callable, not %s'
                        % type(activation).__name__)
    return Dl.TransformerActivation.RELU, activation


def _relu_or_gelu(activation):
    from .modules import GELU, ReLU
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    if activation is F.gelu or isinstance(activation, GELU):
        return 2
    return 0


def _set_activation(layer, activation):
    act, fn = _activation(activation)
    if isinstance(activation, str):
        activation = F.relu if activation == 'relu' else F.gelu
    layer.__dict__['_py_activation'] = fn
    layer.activation_relu_or_gelu = _relu_or_gelu(activation)
    layer.activation = activation  # a Module becomes the child "activation", as torch's
    return act


class _TransformerLayer(_Layer):
    _properties = ('d_model', 'nhead', 'dim_feedforward', 'dropout', 'activation',
                   'layer_norm_eps', 'batch_first', 'norm_first')

    def _init_layer(self, cls, d_model, nhead, dim_feedforward, dropout, activation,
                    layer_norm_eps, batch_first, norm_first):
        props = dict(d_model=int(d_model), nhead=int(nhead),
                     dim_feedforward=int(dim_feedforward), dropout=float(dropout),
                     layer_norm_eps=float(layer_norm_eps), batch_first=bool(batch_first),
                     norm_first=bool(norm_first))
        act, fn = _activation(activation)
        if int(nhead) > 0 and int(d_model) % int(nhead):
            raise AssertionError('embed_dim must be divisible by num_heads')
        _construct(self, cls, activation=act, **props)
        _set_activation(self, activation)
        _name_out_projs(self)

    dropout = _child('dropout')
    norm_first = property(lambda self: self.get_property('norm-first'))
    batch_first = property(lambda self: self.get_property('batch-first'))

    @property
    def activation(self):
        d = self.__dict__
        if 'activation' in d:
            return d['activation']
        child = Dl.Module.get_module(self, 'activation')
        if child is not None:
            return child
        # a layer libdl made (in a stack, or unpickled from C)
        return F.gelu if self.get_property('activation') == Dl.TransformerActivation.GELU \
            else F.relu

    @activation.setter
    def activation(self, value):
        if isinstance(value, Module):
            Module.__setattr__(self, 'activation', value)
        else:
            if Dl.Module.get_module(self, 'activation') is not None:
                Dl.Module.remove(self, 'activation')
            self.__dict__['activation'] = value

    @property
    def activation_relu_or_gelu(self):
        d = self.__dict__
        if 'activation_relu_or_gelu' in d:
            return d['activation_relu_or_gelu']
        return _relu_or_gelu(self.activation)

    @activation_relu_or_gelu.setter
    def activation_relu_or_gelu(self, value):
        self.__dict__['activation_relu_or_gelu'] = value

    def _activate(self, x):
        fn = self.__dict__.get('_py_activation')
        return fn(x) if fn is not None else self.activation(x)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x, dropout):
        x = self.linear2(self.dropout(self._activate(self.linear1(x))))
        return dropout(x)

    def _python_forward(self):
        # the activation is a Python callable, or the children are not the
        # ones libdl runs (a Python module in place of one)
        return self.__dict__.get('_py_activation') is not None


@typelib_override(__name__)
class TransformerEncoderLayer(_TransformerLayer, Dl.TransformerEncoderLayer, Module):
    """torch.nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048,
    dropout=0.1, activation=F.relu, layer_norm_eps=1e-5, batch_first=False,
    norm_first=False)."""
    __module__ = OVERRIDE_MODULE
    __constants__ = ['batch_first', 'norm_first']

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, device=None,
                 dtype=None):
        self._init_layer(Dl.TransformerEncoderLayer, d_model, nhead, dim_feedforward, dropout,
                         activation, layer_norm_eps, batch_first, norm_first)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        try:
            if not self._python_forward():
                return Dl.TransformerEncoderLayer.encode(self, src, src_mask,
                                                         src_key_padding_mask, bool(is_causal))
        except GLib.Error as e:
            raise _mha_error(e) from None
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x


@typelib_override(__name__)
class TransformerDecoderLayer(_TransformerLayer, Dl.TransformerDecoderLayer, Module):
    """torch.nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048,
    dropout=0.1, activation=F.relu, layer_norm_eps=1e-5, batch_first=False,
    norm_first=False)."""
    __module__ = OVERRIDE_MODULE
    __constants__ = ['batch_first', 'norm_first']

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, device=None,
                 dtype=None):
        self._init_layer(Dl.TransformerDecoderLayer, d_model, nhead, dim_feedforward, dropout,
                         activation, layer_norm_eps, batch_first, norm_first)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False,
                                is_causal=is_causal)[0]
        return self.dropout2(x)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        try:
            if not self._python_forward():
                return Dl.TransformerDecoderLayer.decode(
                    self, tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                    memory_key_padding_mask, bool(tgt_is_causal), bool(memory_is_causal))
        except GLib.Error as e:
            raise _mha_error(e) from None
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x


class _Stack(_Layer):
    _properties = ('num_layers',)
    num_layers = property(lambda self: self.get_property('num-layers'))

    def _init_stack(self, cls, layer, num_layers, norm):
        _construct(self, cls, num_layers=int(num_layers))
        self.layers = ModuleList([copy.deepcopy(layer) for _ in range(int(num_layers))])
        self.norm = norm

    def _final_norm(self, output):
        norm = Dl.Module.get_module(self, 'norm')
        return norm(output) if norm is not None else output


@typelib_override(__name__)
class TransformerEncoder(_Stack, Dl.TransformerEncoder, Module):
    """torch.nn.TransformerEncoder(encoder_layer, num_layers, norm=None,
    enable_nested_tensor=True, mask_check=True): num_layers copies of
    encoder_layer ("layers.0", ...) and the final norm."""
    __module__ = OVERRIDE_MODULE
    __constants__ = ['norm']
    # torch's defaults, for the stacks libdl makes (inside a Transformer)
    enable_nested_tensor = True
    mask_check = True

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        self._init_stack(Dl.TransformerEncoder, encoder_layer, num_layers, norm)
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        output = src
        extra = {'is_causal': True} if is_causal else {}
        for mod in self.layers:
            output = mod(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                         **extra)
        return self._final_norm(output)


@typelib_override(__name__)
class TransformerDecoder(_Stack, Dl.TransformerDecoder, Module):
    """torch.nn.TransformerDecoder(decoder_layer, num_layers, norm=None)."""
    __module__ = OVERRIDE_MODULE
    __constants__ = ['norm']

    def __init__(self, decoder_layer, num_layers, norm=None):
        self._init_stack(Dl.TransformerDecoder, decoder_layer, num_layers, norm)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        extra = {}
        if tgt_is_causal:
            extra['tgt_is_causal'] = True
        if memory_is_causal:
            extra['memory_is_causal'] = True
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask, **extra)
        return self._final_norm(output)


@typelib_override(__name__)
class Transformer(_Layer, Dl.Transformer, Module):
    """torch.nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6,
    num_decoder_layers=6, dim_feedforward=2048, dropout=0.1,
    activation=F.relu, custom_encoder=None, custom_decoder=None,
    layer_norm_eps=1e-5, batch_first=False, norm_first=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('d_model', 'nhead', 'num_encoder_layers', 'num_decoder_layers',
                   'dim_feedforward', 'dropout', 'activation', 'layer_norm_eps', 'batch_first',
                   'norm_first')

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 device=None, dtype=None):
        from .normalization import LayerNorm
        act, fn = _activation(activation)
        if int(nhead) > 0 and int(d_model) % int(nhead):
            raise AssertionError('embed_dim must be divisible by num_heads')
        # libdl builds the stacks unless one is custom or the activation
        # runs in Python: those are built here, as torch builds them
        native_enc = custom_encoder is None and fn is None
        native_dec = custom_decoder is None and fn is None
        _construct(self, Dl.Transformer, d_model=int(d_model), nhead=int(nhead),
                   num_encoder_layers=int(num_encoder_layers) if native_enc else 0,
                   num_decoder_layers=int(num_decoder_layers) if native_dec else 0,
                   dim_feedforward=int(dim_feedforward), dropout=float(dropout), activation=act,
                   layer_norm_eps=float(layer_norm_eps), batch_first=bool(batch_first),
                   norm_first=bool(norm_first))
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        elif not native_enc:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*layer_args),
                                              num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        elif not native_dec:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*layer_args),
                                              num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps))
        if not (native_enc and native_dec):
            self._reset_parameters()
        _name_out_projs(self)

    d_model = property(lambda self: self.get_property('d-model'))
    nhead = property(lambda self: self.get_property('nhead'))
    batch_first = property(lambda self: self.get_property('batch-first'))

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError('the batch number of src and tgt must be equal')
        elif self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError('the batch number of src and tgt must be equal')
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError('the feature number of src and tgt must be equal to d_model')
        enc = {'is_causal': True} if src_is_causal else {}
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              **enc)
        dec = {}
        if tgt_is_causal:
            dec['tgt_is_causal'] = True
        if memory_is_causal:
            dec['memory_is_causal'] = True
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, **dec)

    @staticmethod
    def generate_square_subsequent_mask(sz, device='cpu', dtype=None):
        try:
            mask = Dl.Transformer.generate_square_subsequent_mask(int(sz))
        except GLib.Error as e:
            raise _mha_error(e) from None
        return mask if dtype is None else mask.to(dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
