# convnd.py: the 3-d convolutions and the 1-d and 3-d transposed ones for
# dl.nn and dl.nn.functional: conv3d, conv_transpose1d, conv_transpose3d
# and their modules (Conv3d is libdl's DlConv3d; ConvTranspose1d and
# ConvTranspose3d are Python modules over the C functions).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

from .. import _creation
from .._lib import OVERRIDE_MODULE, Dl, typelib_override
from . import init
from .conv import (_call, _check_padding_mode, _conv_extra_repr, _forward_padded, _pad_extra,
                   _padding)
from .modules import Module, _construct, _Layer, _LayerTensor
from .parameter import Parameter

__all__ = ['conv3d', 'conv_transpose1d', 'conv_transpose3d', 'Conv3d', 'ConvTranspose1d',
           'ConvTranspose3d']


def _ntuple(v, n, name):
    if isinstance(v, (tuple, list)):
        if len(v) != n:
            raise RuntimeError('expected %s to be a single integer value or a list of %d values '
                               'to match the convolution dimensions, but got %s=%s'
                               % (name, n, name, list(v)))
        return [int(x) for x in v]
    return [int(v)] * n


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _ntuple(stride, 3, 'stride'), _ntuple(dilation, 3, 'dilation')
    kernel = list(weight.shape[-3:])
    pad, extra = _padding(padding, kernel, dilation, stride, 'conv3d') or \
        (_ntuple(padding, 3, 'padding'), None)
    return _call(Dl.conv3d, _pad_extra(input, extra), weight, bias, stride, pad, dilation,
                 int(groups))


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    s, p = _ntuple(stride, 1, 'stride'), _ntuple(padding, 1, 'padding')
    op, d = _ntuple(output_padding, 1, 'output_padding'), _ntuple(dilation, 1, 'dilation')
    return _call(Dl.conv_transpose1d, input, weight, bias, s[0], p[0], op[0], int(groups), d[0])


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _call(Dl.conv_transpose3d, input, weight, bias, _ntuple(stride, 3, 'stride'),
                 _ntuple(padding, 3, 'padding'), _ntuple(output_padding, 3, 'output_padding'),
                 int(groups), _ntuple(dilation, 3, 'dilation'))


def _triple_property(name):
    return property(lambda self: tuple(self.get_property('%s-%s' % (name, axis))
                                       for axis in ('depth', 'height', 'width')))


@typelib_override(__name__)
class Conv3d(_Layer, Dl.Conv3d, Module):
    """torch.nn.Conv3d(in_channels, out_channels, kernel_size, stride=1,
    padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros'):
    libdl's DlConv3d (other padding modes and padding='same' with an odd
    total pad the input in forward, as torch does)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('in_channels', 'out_channels', 'kernel_depth', 'kernel_height',
                   'kernel_width', 'stride_depth', 'stride_height', 'stride_width',
                   'padding_depth', 'padding_height', 'padding_width', 'dilation_depth',
                   'dilation_height', 'dilation_width', 'groups', 'bias')

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode='zeros', device=None, dtype=None):
        _check_padding_mode(padding_mode)
        k, s = _ntuple(kernel_size, 3, 'kernel_size'), _ntuple(stride, 3, 'stride')
        d = _ntuple(dilation, 3, 'dilation')
        if isinstance(padding, str) and padding not in ('same', 'valid'):
            raise ValueError("Invalid padding string '%s', should be one of {'valid', 'same'}"
                             % padding)
        p, extra = _padding(padding, k, d, s, 'Conv3d') or (_ntuple(padding, 3, 'padding'), None)
        self._padding_arg = padding
        self._mode = padding_mode
        self._pad_in_forward = None
        if extra is not None or (padding_mode != 'zeros' and any(p)):
            # F.pad's list (last dim first): torch pads the input itself
            total = [dd * (kk - 1) for kk, dd in zip(k, d)] if extra is not None \
                else [2 * pp for pp in p]
            self._pad_in_forward = [x for t in reversed(total) for x in (t // 2, t - t // 2)]
            self._conv_padding = p
            p = [0, 0, 0]
        _construct(self, Dl.Conv3d, in_channels=int(in_channels), out_channels=int(out_channels),
                   kernel_depth=k[0], kernel_height=k[1], kernel_width=k[2], stride_depth=s[0],
                   stride_height=s[1], stride_width=s[2], padding_depth=p[0],
                   padding_height=p[1], padding_width=p[2], dilation_depth=d[0],
                   dilation_height=d[1], dilation_width=d[2], groups=int(groups),
                   bias=bool(bias))

    kernel_size = _triple_property('kernel')
    stride = _triple_property('stride')
    dilation = _triple_property('dilation')
    padding_mode = property(lambda self: self.__dict__.get('_mode', 'zeros'))
    weight = _LayerTensor('weight')
    bias = _LayerTensor('bias')

    @property
    def padding(self):
        arg = self.__dict__.get('_padding_arg')
        if isinstance(arg, str):
            return arg
        if self.__dict__.get('_pad_in_forward') is not None:
            return tuple(self._conv_padding)
        return _triple_property('padding').fget(self)

    def forward(self, input):
        pad = self.__dict__.get('_pad_in_forward')
        if pad is None:
            return Module.forward(self, input)
        return _forward_padded(self, input, pad, conv3d)

    def extra_repr(self):
        return _conv_extra_repr(self, 3)


class _ConvTransposeNd(Module):
    """The transposed convolutions' module over conv_transpose{n}d, with
    torch's parameters, initialisation and output_size handling."""
    _n = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros',
                 device=None, dtype=None):
        super().__init__()
        n = self._n
        if padding_mode != 'zeros':
            raise ValueError('Only "zeros" padding mode is supported for {}'
                             .format(type(self).__name__))
        if groups <= 0:
            raise ValueError('groups must be a positive integer')
        if in_channels % groups != 0:
            raise ValueError('in_channels must be divisible by groups')
        if out_channels % groups != 0:
            raise ValueError('out_channels must be divisible by groups')
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = tuple(_ntuple(kernel_size, n, 'kernel_size'))
        self.stride = tuple(_ntuple(stride, n, 'stride'))
        self.padding = tuple(_ntuple(padding, n, 'padding'))
        self.output_padding = tuple(_ntuple(output_padding, n, 'output_padding'))
        self.dilation = tuple(_ntuple(dilation, n, 'dilation'))
        self.padding_mode, self.transposed = padding_mode, True
        self.weight = Parameter(_creation.empty(
            (in_channels, out_channels // groups) + self.kernel_size, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _output_padding(self, input, output_size):
        """PyTorch's output_padding for an output of output_size."""
        n = self._n
        if output_size is None:
            return self.output_padding
        output_size = list(output_size)
        if len(output_size) == input.dim():
            output_size = output_size[2:] if input.dim() == n + 2 else output_size[1:]
        output_size = output_size[-n:]
        if len(output_size) != n:
            raise ValueError('ConvTranspose{}D: for {}D input, output_size must have {} or {} '
                             'elements (got {})'.format(n, input.dim(), n, n + 2,
                                                        len(output_size)))
        extra = []
        for d in range(n):
            size = input.shape[input.dim() - n + d]
            least = ((size - 1) * self.stride[d] - 2 * self.padding[d]
                     + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            if not least <= output_size[d] < least + self.stride[d]:
                raise ValueError('requested an output size of {}, but valid sizes range from {} '
                                 'to {} (for an input of {})'.format(
                                     output_size, least, least + self.stride[d] - 1,
                                     list(input.shape[-n:])))
            extra.append(output_size[d] - least)
        return tuple(extra)

    def extra_repr(self):
        return _conv_extra_repr(self, self._n)


class ConvTranspose1d(_ConvTransposeNd):
    """torch.nn.ConvTranspose1d(in_channels, out_channels, kernel_size,
    stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1,
    padding_mode='zeros')."""
    _n = 1

    def forward(self, input, output_size=None):
        return conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                self._output_padding(input, output_size), self.groups,
                                self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """torch.nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
    stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1,
    padding_mode='zeros')."""
    _n = 3

    def forward(self, input, output_size=None):
        return conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                self._output_padding(input, output_size), self.groups,
                                self.dilation)
