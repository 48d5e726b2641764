# lazy.py: the lazy layers (torch.nn.LazyLinear, LazyConv1d/2d/3d,
# LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/
# 2d/3d), as torch 1.13's; the placeholders of their tensors,
# UninitializedParameter and UninitializedBuffer, are in parameter.py.
#
# One mechanism for all (_Lazy, torch's LazyModuleMixin): until the first
# call the tensors whose size depends on the input are placeholders (in
# the state dict too); the first call (or loading a state dict that holds
# them) takes the size from the input (the checkpoint), makes them, fills
# them as the layer it stands for does, and from then on the module
# prints as that layer. The layer's arithmetic is its functional form
# (F.linear, F.conv2d, F.batch_norm, ... libdl's kernels).
#
# Unlike torch's, a placeholder is not a Tensor, and the module keeps its
# class (a libdl layer's GObject type is fixed at construction): it prints
# as the layer it stands for, but isinstance(m, nn.Conv2d) is false.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings
from collections import OrderedDict

from .. import _creation
from ..autograd.grad_mode import no_grad
from .modules import Module
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter, _Uninitialized

__all__ = ['LazyLinear', 'LazyConv1d',
           'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d', 'LazyConvTranspose2d',
           'LazyConvTranspose3d', 'LazyBatchNorm1d', 'LazyBatchNorm2d', 'LazyBatchNorm3d',
           'LazyInstanceNorm1d', 'LazyInstanceNorm2d', 'LazyInstanceNorm3d']


class _Lazy:
    """What the lazy layers share. A subclass names the layer it stands for
    (_becomes) and says, for an input, its size attribute's value
    (_size_of) and the shapes of its lazy tensors (_shapes)."""
    _becomes = ''
    _size_name = ''

    def _lazy_start(self, tensors, dtype=None, device=None):
        """tensors: (name, kind) in registration order, kind 'p' for an
        UninitializedParameter, 'b' for an UninitializedBuffer, or a
        tensor, a buffer known already that comes in that order."""
        warnings.warn('Lazy modules are a new feature under heavy development so changes to the '
                      'API or functionality can happen at any moment.')
        kw = {'dtype': dtype, 'device': device}
        lazy = OrderedDict()
        for name, kind in tensors:
            lazy[name] = (UninitializedParameter(**kw) if kind == 'p' else
                          UninitializedBuffer(**kw) if kind == 'b' else kind)
        self.__dict__['_lazy'] = lazy
        setattr(self, self._size_name, 0)

    def has_uninitialized_params(self):
        return '_lazy' in self.__dict__

    def __getattr__(self, name):
        lazy = self.__dict__.get('_lazy')
        if lazy is not None and name in lazy:
            return lazy[name]
        return super().__getattr__(name)

    def initialize_parameters(self, input):
        """Makes the tensors for input's size and fills them as the layer
        does; nothing once they are made."""
        if self.has_uninitialized_params():
            size = self._size_of(input)
            self._materialize(size, self._shapes(size), input.dtype)

    def _materialize(self, size, shapes, input_dtype):
        lazy = self.__dict__.pop('_lazy')
        setattr(self, self._size_name, size)
        with no_grad():
            for name, t in lazy.items():
                if isinstance(t, _Uninitialized):
                    dtype = t.dtype or input_dtype
                    t = t.materialize(shapes[name], dtype=dtype)
                if isinstance(t, Parameter):
                    self.register_parameter(name, t)
                else:
                    self.register_buffer(name, t)
            self.reset_parameters()

    def _get_name(self):
        return type(self).__name__ if self.has_uninitialized_params() else self._becomes

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        out = super().state_dict(*args, destination=destination, prefix=prefix,
                                 keep_vars=keep_vars)
        lazy = self.__dict__.get('_lazy')
        if lazy and not args:
            # torch's: the placeholders, where the tensors will be
            for name, t in lazy.items():
                out[prefix + name] = t
        return out

    def load_state_dict(self, state_dict, strict=True):
        lazy = self.__dict__.get('_lazy')
        if lazy:
            # torch's _lazy_load_hook: the sizes come from the checkpoint
            shapes = {n: tuple(state_dict[n].shape) for n, t in lazy.items()
                      if isinstance(t, _Uninitialized) and n in state_dict
                      and not isinstance(state_dict[n], _Uninitialized)}
            if shapes:
                first = next(iter(shapes))
                size = self._size_from(first, shapes[first])
                self._materialize(size, self._shapes(size), state_dict[first].dtype)
        return super().load_state_dict(state_dict, strict)

    def _size_from(self, name, shape):
        return shape[self._size_dim.get(name, 0)]


class LazyLinear(_Lazy, Module):
    """torch.nn.LazyLinear(out_features, bias=True): a Linear whose
    in_features (0 until then) is the last dim of its first input."""
    _becomes = 'Linear'
    _size_name = 'in_features'
    _size_dim = {'weight': 1}

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.out_features = out_features
        self._lazy_start([('weight', 'p')] + ([('bias', 'p')] if bias else []), dtype, device)
        if not bias:
            self.register_parameter('bias', None)

    def _size_of(self, input):
        return input.shape[-1]

    def _shapes(self, size):
        return {'weight': (self.out_features, size), 'bias': (self.out_features,)}

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
        self.weight.uniform_(-bound, bound)
        if self.bias is not None:
            self.bias.uniform_(-bound, bound)

    def forward(self, input):
        self.initialize_parameters(input)
        from .functional import linear
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return 'in_features={}, out_features={}, bias={}'.format(
            self.in_features, self.out_features, self.bias is not None)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _LazyConv(_Lazy, Module):
    """The lazy convolutions: in_channels is the input's channel dim."""
    _size_name = 'in_channels'
    _transposed = False
    _n = 2

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode='zeros', device=None, dtype=None, output_padding=0):
        super().__init__()
        n = self._n
        self.out_channels, self.groups, self.padding_mode = out_channels, groups, padding_mode
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.dilation = _tuple(dilation, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        if self._transposed:
            self.output_padding = _tuple(output_padding, n)
        self._size_dim = {'weight': 0 if self._transposed else 1}
        self._lazy_start([('weight', 'p')] + ([('bias', 'p')] if bias else []), dtype, device)
        if not bias:
            self.register_parameter('bias', None)

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
            w = (size, self.out_channels // self.groups) + self.kernel_size
        else:
            w = (self.out_channels, size // self.groups) + self.kernel_size
        return {'weight': w, 'bias': (self.out_channels,)}

    def _size_from(self, name, shape):
        # a checkpoint's weight: its in_channels (times groups, for a conv)
        return shape[0] if self._transposed else shape[1] * self.groups

    def reset_parameters(self):
        from .init import _calculate_fan_in_and_fan_out, kaiming_uniform_
        kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = _calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in != 0 else 0
            self.bias.uniform_(-bound, bound)

    def forward(self, input):
        self.initialize_parameters(input)
        from . import functional as F
        n = self._n
        if self._transposed:
            fn = getattr(F, 'conv_transpose%dd' % n)
            return fn(input, self.weight, self.bias, self.stride, self.padding,
                      self.output_padding, self.groups, self.dilation)
        fn = getattr(F, 'conv%dd' % n)
        if self.padding_mode != 'zeros':
            pad = [p for p in reversed(self.padding) for _ in range(2)]
            return fn(F.pad(input, pad, mode=self.padding_mode), self.weight, self.bias,
                      self.stride, 0, self.dilation, self.groups)
        return fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                  self.groups)

    def extra_repr(self):
        from .conv import _conv_extra_repr
        return _conv_extra_repr(self, self._n)


def _conv_class(name, n, transposed):
    doc = ('torch.nn.{0}(out_channels, kernel_size, ...): a {1} whose in_channels is the '
           'channel dim of its first input.'.format(name, name[4:]))
    return type(name, (_LazyConv,), {'__doc__': doc, '_n': n, '_transposed': transposed,
                                     '_becomes': name[4:], '__module__': __name__})


LazyConv1d = _conv_class('LazyConv1d', 1, False)
LazyConv2d = _conv_class('LazyConv2d', 2, False)
LazyConv3d = _conv_class('LazyConv3d', 3, False)


class _LazyConvTranspose(_LazyConv):
    _transposed = True

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None):
        if padding_mode != 'zeros':
            raise ValueError('Only "zeros" padding mode is supported for {}'
                             .format(type(self).__name__))
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)


def _conv_t_class(name, n):
    doc = ('torch.nn.{0}(out_channels, kernel_size, ...): a {1} whose in_channels is the '
           'channel dim of its first input.'.format(name, name[4:]))
    return type(name, (_LazyConvTranspose,), {'__doc__': doc, '_n': n, '_becomes': name[4:],
                                              '__module__': __name__})


LazyConvTranspose1d = _conv_t_class('LazyConvTranspose1d', 1)
LazyConvTranspose2d = _conv_t_class('LazyConvTranspose2d', 2)
LazyConvTranspose3d = _conv_t_class('LazyConvTranspose3d', 3)


class _LazyNorm(_Lazy, Module):
    """The lazy batch and instance norms: num_features is the input's
    channel dim; weight and bias (affine), running_mean, running_var and
    num_batches_tracked (track_running_stats) as the layer's."""
    _size_name = 'num_features'
    _size_dim = {}
    _dims = (2, 3)

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        tensors = [('weight', 'p'), ('bias', 'p')] if affine else []
        if track_running_stats:
            from .._dtype import long
            tensors += [('running_mean', 'b'), ('running_var', 'b'),
                        ('num_batches_tracked', _creation.tensor(0, dtype=long))]
        self._lazy_start(tensors, dtype, device)
        if not affine:
            self.register_parameter('weight', None)
            self.register_parameter('bias', None)
        if not track_running_stats:
            for name in ('running_mean', 'running_var', 'num_batches_tracked'):
                self.register_buffer(name, None)

    def _size_of(self, input):
        return input.shape[1]

    def _shapes(self, size):
        return {n: (size,) for n in ('weight', 'bias', 'running_mean', 'running_var')}

    def reset_parameters(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()
        if self.affine:
            self.weight.fill_(1)
            self.bias.zero_()

    def extra_repr(self):
        return '{}, eps={}, momentum={}, affine={}, track_running_stats={}'.format(
            self.num_features, self.eps, self.momentum, self.affine, self.track_running_stats)


class _LazyBatchNorm(_LazyNorm):
    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError('expected {} input (got {}D input)'.format(
                ' or '.join('%dD' % d for d in self._dims), input.dim()))
        self.initialize_parameters(input)
        from .normalization import batch_norm
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch = self.training or not self.track_running_stats
        track = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if track else None,
                          self.running_var if track else None, self.weight, self.bias,
                          use_batch, factor, self.eps)


class _LazyInstanceNorm(_LazyNorm):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__(eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        self.initialize_parameters(input)
        from .normalization import _InstanceNorm
        return _InstanceNorm.forward(self, input)

    def _apply_instance_norm(self, input):
        from .normalization import _InstanceNorm
        return _InstanceNorm._apply_instance_norm(self, input)


def _norm_class(name, base, dims, doc):
    return type(name, (base,), {'__doc__': doc, '_dims': dims, '_becomes': name[4:],
                                '__module__': __name__})


_BN_DOC = ('torch.nn.{}(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True): a {} '
           'whose num_features is the channel dim of its first input.')
LazyBatchNorm1d = _norm_class('LazyBatchNorm1d', _LazyBatchNorm, (2, 3),
                              _BN_DOC.format('LazyBatchNorm1d', 'BatchNorm1d'))
LazyBatchNorm2d = _norm_class('LazyBatchNorm2d', _LazyBatchNorm, (4,),
                              _BN_DOC.format('LazyBatchNorm2d', 'BatchNorm2d'))
LazyBatchNorm3d = _norm_class('LazyBatchNorm3d', _LazyBatchNorm, (5,),
                              _BN_DOC.format('LazyBatchNorm3d', 'BatchNorm3d'))
_IN_DOC = ('torch.nn.{}(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True): an {} '
           'whose num_features is the channel dim of its first input.')
LazyInstanceNorm1d = _norm_class('LazyInstanceNorm1d', _LazyInstanceNorm, (2, 3),
                                 _IN_DOC.format('LazyInstanceNorm1d', 'InstanceNorm1d'))
LazyInstanceNorm2d = _norm_class('LazyInstanceNorm2d', _LazyInstanceNorm, (3, 4),
                                 _IN_DOC.format('LazyInstanceNorm2d', 'InstanceNorm2d'))
LazyInstanceNorm3d = _norm_class('LazyInstanceNorm3d', _LazyInstanceNorm, (4, 5),
                                 _IN_DOC.format('LazyInstanceNorm3d', 'InstanceNorm3d'))
