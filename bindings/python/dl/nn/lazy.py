# lazy.py: the lazy layers (torch.nn.LazyLinear, LazyConv1d/2d/3d,
# LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/
# 2d/3d), as torch 1.13's; the placeholders of their tensors,
# UninitializedParameter and UninitializedBuffer, are in parameter.py.
#
# One mechanism for all (_Lazy, torch's LazyModuleMixin): each is a
# subclass of the layer it stands for (LazyLinear of Linear, ...), made
# with size 0; until the first call the tensors whose size depends on the
# input are placeholders (in the state dict too); the first call (or
# loading a state dict that holds them) takes the size from the input
# (the checkpoint), makes them and fills them as the layer does, and the
# first call then makes the module an instance of that layer
# (cls_to_become), as torch's. A libdl layer's size is a property
# writable after construction for this (DlLinear:in-features, ...).
#
# Unlike torch's, a placeholder is not a Tensor.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings
from collections import OrderedDict

from .._lib import Dl
from ..autograd.grad_mode import no_grad
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .convnd import Conv3d, ConvTranspose1d, ConvTranspose3d
from .modules import Linear
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d,
                            InstanceNorm2d, InstanceNorm3d)
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter, _Uninitialized

__all__ = ['LazyLinear', 'LazyConv1d',
           'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d', 'LazyConvTranspose2d',
           'LazyConvTranspose3d', 'LazyBatchNorm1d', 'LazyBatchNorm2d', 'LazyBatchNorm3d',
           'LazyInstanceNorm1d', 'LazyInstanceNorm2d', 'LazyInstanceNorm3d']


class _Lazy:
    """What the lazy layers share. A subclass names the layer it stands for
    (cls_to_become, its base) and says, for an input, its size attribute's
    value (_size_of) and the shapes of its lazy tensors (_shapes)."""
    cls_to_become = None
    _size_name = ''
    _size_dim = {}

    def _lazy_start(self, tensors, dtype=None, device=None):
        """tensors: (name, kind) in registration order, kind 'p' for an
        UninitializedParameter, 'b' for an UninitializedBuffer, 'k' for
        the buffer the layer made (kept, in that order). The layer's own
        tensors of those names leave it until they are made."""
        warnings.warn('Lazy modules are a new feature under heavy development so changes to the '
                      'API or functionality can happen at any moment.')
        kw = {'dtype': dtype, 'device': device}
        lazy = OrderedDict()
        for name, kind in tensors:
            lazy[name] = (UninitializedParameter(**kw) if kind == 'p' else
                          UninitializedBuffer(**kw) if kind == 'b' else self._buffers[name])
            delattr(self, name)
        self.__dict__['_lazy'] = lazy
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

    def __getattribute__(self, name):
        lazy = object.__getattribute__(self, '__dict__').get('_lazy')
        if lazy is not None and name in lazy:
            return lazy[name]
        return super().__getattribute__(name)

    def has_uninitialized_params(self):
        return '_lazy' in self.__dict__

    def initialize_parameters(self, input):
        """Makes the tensors for input's size and fills them as the layer
        does; nothing once they are made."""
        if self.has_uninitialized_params():
            size = self._size_of(input)
            self._materialize(size, self._shapes(size))

    def _materialize(self, size, shapes):
        # in the placeholders' dtype (the layer's dtype=, else the default
        # dtype), as torch's, whatever the input's or the checkpoint's
        lazy = self.__dict__.pop('_lazy')
        prop = self._size_name.replace('_', '-')
        if self.find_property(prop) is not None:  # a libdl layer's
            self.set_property(prop, size)
        else:
            setattr(self, self._size_name, size)
        with no_grad():
            for name, t in lazy.items():
                if isinstance(t, _Uninitialized):
                    t = t.materialize(shapes[name], dtype=t.dtype)
                if isinstance(t, Parameter):
                    self.register_parameter(name, t)
                else:
                    Dl.Module.register_buffer(self, name, t, True)
            self.reset_parameters()

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        out = super().state_dict(*args, destination=destination, prefix=prefix,
                                 keep_vars=keep_vars)
        lazy = self.__dict__.get('_lazy')
        if lazy and not args:
            # torch's: the placeholders, where the tensors will be
            for name, t in lazy.items():
                out[prefix + name] = t
        return out

    def _lazy_load(self, state_dict, prefix):
        """torch's _lazy_load_hook: the sizes come from the checkpoint
        (Module.load_state_dict calls it on each lazy module first)."""
        lazy = self.__dict__.get('_lazy')
        shapes = {n: tuple(state_dict[prefix + n].shape) for n, t in lazy.items()
                  if isinstance(t, _Uninitialized) and prefix + n in state_dict
                  and not isinstance(state_dict[prefix + n], _Uninitialized)}
        if shapes:
            first = next(iter(shapes))
            size = self._size_from(first, shapes[first])
            self._materialize(size, self._shapes(size))

    def _size_from(self, name, shape):
        return shape[self._size_dim.get(name, 0)]


def _infer_parameters(module, input):
    """The forward pre-hook of a lazy module (torch's): makes the tensors
    from the input, then the module becomes its cls_to_become."""
    module.initialize_parameters(*input)
    module._initialize_hook.remove()
    del module._initialize_hook
    module.__class__ = module.cls_to_become


class LazyLinear(_Lazy, Linear):
    """torch.nn.LazyLinear(out_features, bias=True): a Linear whose
    in_features (0 until then) is the last dim of its first input."""
    cls_to_become = Linear
    _size_name = 'in_features'
    _size_dim = {'weight': 1}

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Linear.__init__(self, 0, out_features, bias)
        self._lazy_start([('weight', 'p')] + ([('bias', 'p')] if bias else []), dtype, device)

    def _size_of(self, input):
        return input.shape[-1]

    def _shapes(self, size):
        return {'weight': (self.out_features, size), 'bias': (self.out_features,)}

    def reset_parameters(self):
        # nothing while the layer is made with size 0 (torch's)
        if self.has_uninitialized_params() or self.in_features == 0:
            return
        bound = 1 / math.sqrt(self.in_features)
        self.weight.uniform_(-bound, bound)
        if self.bias is not None:
            self.bias.uniform_(-bound, bound)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _LazyConv(_Lazy):
    """The lazy convolutions: in_channels is the input's channel dim."""
    _size_name = 'in_channels'
    _transposed = False
    _n = 2

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode='zeros', device=None, dtype=None):
        self.cls_to_become.__init__(self, 0, out_channels, kernel_size, stride, padding,
                                    dilation, groups, bias, padding_mode)
        self._lazy_start([('weight', 'p')] + ([('bias', 'p')] if bias else []), dtype, device)

    def _size_of(self, input):
        if input.dim() not in (self._n + 1, self._n + 2):
            raise RuntimeError('Expected {}D (unbatched) or {}D (batched) input to {}, but got '
                               'input of size: {}'.format(self._n + 1, self._n + 2,
                                                          type(self).__name__, input.shape))
        size = input.shape[1 if input.dim() == self._n + 2 else 0]
        if size % self.groups != 0:
            raise ValueError('in_channels must be divisible by groups')
        return size

    def _shapes(self, size):
        if self._transposed:
            w = (size, self.out_channels // self.groups) + tuple(self.kernel_size)
        else:
            w = (self.out_channels, size // self.groups) + tuple(self.kernel_size)
        return {'weight': w, 'bias': (self.out_channels,)}

    def _size_from(self, name, shape):
        # a checkpoint's weight: its in_channels (times groups, for a conv)
        return shape[0] if self._transposed else shape[1] * self.groups

    def reset_parameters(self):
        if self.has_uninitialized_params() or self.in_channels == 0:
            return
        from .init import _calculate_fan_in_and_fan_out, kaiming_uniform_
        kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = _calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in != 0 else 0
            self.bias.uniform_(-bound, bound)


def _conv_class(name, n, base):
    doc = ('torch.nn.{0}(out_channels, kernel_size, ...): a {1} whose in_channels is the '
           'channel dim of its first input.'.format(name, name[4:]))
    return type(name, (_LazyConv, base), {'__doc__': doc, '_n': n, 'cls_to_become': base,
                                          '__module__': __name__})


LazyConv1d = _conv_class('LazyConv1d', 1, Conv1d)
LazyConv2d = _conv_class('LazyConv2d', 2, Conv2d)
LazyConv3d = _conv_class('LazyConv3d', 3, Conv3d)


class _LazyConvTranspose(_LazyConv):
    _transposed = True

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None):
        if padding_mode != 'zeros':
            raise ValueError('Only "zeros" padding mode is supported for {}'
                             .format(type(self).__name__))
        self.cls_to_become.__init__(self, 0, out_channels, kernel_size, stride, padding,
                                    output_padding, groups, bias, dilation)
        self._lazy_start([('weight', 'p')] + ([('bias', 'p')] if bias else []), dtype, device)


def _conv_t_class(name, n, base):
    doc = ('torch.nn.{0}(out_channels, kernel_size, ...): a {1} whose in_channels is the '
           'channel dim of its first input.'.format(name, name[4:]))
    return type(name, (_LazyConvTranspose, base), {'__doc__': doc, '_n': n,
                                                   'cls_to_become': base,
                                                   '__module__': __name__})


LazyConvTranspose1d = _conv_t_class('LazyConvTranspose1d', 1, ConvTranspose1d)
LazyConvTranspose2d = _conv_t_class('LazyConvTranspose2d', 2, ConvTranspose2d)
LazyConvTranspose3d = _conv_t_class('LazyConvTranspose3d', 3, ConvTranspose3d)


class _LazyNorm(_Lazy):
    """The lazy batch and instance norms: num_features is the input's
    channel dim; weight and bias (affine), running_mean, running_var and
    num_batches_tracked (track_running_stats) as the layer's."""
    _size_name = 'num_features'

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        self.cls_to_become.__init__(self, 0, eps, momentum, affine, track_running_stats)
        tensors = [('weight', 'p'), ('bias', 'p')] if affine else []
        if track_running_stats:
            tensors += [('running_mean', 'b'), ('running_var', 'b'), ('num_batches_tracked', 'k')]
        self._lazy_start(tensors, dtype, device)

    def _size_of(self, input):
        return input.shape[1]

    def _shapes(self, size):
        return {n: (size,) for n in ('weight', 'bias', 'running_mean', 'running_var')}

    def reset_parameters(self):
        if self.has_uninitialized_params() or self.num_features == 0:
            return
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()
        if self.affine:
            self.weight.fill_(1)
            self.bias.zero_()


def _norm_class(name, base, doc):
    return type(name, (_LazyNorm, base), {'__doc__': doc, 'cls_to_become': base,
                                          '__module__': __name__})


_BN_DOC = ('torch.nn.{}(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True): a {} '
           'whose num_features is the channel dim of its first input.')
LazyBatchNorm1d = _norm_class('LazyBatchNorm1d', BatchNorm1d,
                              _BN_DOC.format('LazyBatchNorm1d', 'BatchNorm1d'))
LazyBatchNorm2d = _norm_class('LazyBatchNorm2d', BatchNorm2d,
                              _BN_DOC.format('LazyBatchNorm2d', 'BatchNorm2d'))
LazyBatchNorm3d = _norm_class('LazyBatchNorm3d', BatchNorm3d,
                              _BN_DOC.format('LazyBatchNorm3d', 'BatchNorm3d'))
_IN_DOC = ('torch.nn.{}(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True): an {} '
           'whose num_features is the channel dim of its first input.')
LazyInstanceNorm1d = _norm_class('LazyInstanceNorm1d', InstanceNorm1d,
                                 _IN_DOC.format('LazyInstanceNorm1d', 'InstanceNorm1d'))
LazyInstanceNorm2d = _norm_class('LazyInstanceNorm2d', InstanceNorm2d,
                                 _IN_DOC.format('LazyInstanceNorm2d', 'InstanceNorm2d'))
LazyInstanceNorm3d = _norm_class('LazyInstanceNorm3d', InstanceNorm3d,
                                 _IN_DOC.format('LazyInstanceNorm3d', 'InstanceNorm3d'))
