# conv.py: convolutions and pooling for dl.nn and dl.nn.functional: conv1d,
# conv2d, conv_transpose2d, unfold, fold, max_pool2d, avg_pool2d,
# adaptive_avg_pool2d, dropout and their modules (Conv2d is libdl's
# DlConv2d; the others are Python modules over the C functions).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

from .. import _creation
from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from .modules import Module, _construct, _Layer, _LayerTensor
from .parameter import Parameter

__all__ = ['conv1d', 'conv2d', 'conv_transpose2d', 'unfold', 'fold', 'max_pool2d',
           'avg_pool2d', 'adaptive_avg_pool2d', 'dropout', 'Conv1d', 'Conv2d', 'ConvTranspose2d',
           'Unfold', 'Fold', 'MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d', 'Dropout',
           'embedding', 'softplus', 'Embedding', 'ELU', 'Hardtanh', 'Softplus',
           'adaptive_max_pool2d', 'AdaptiveMaxPool2d']


def _pair(v, name):
    if isinstance(v, (tuple, list)):
        if len(v) != 2:
            raise ValueError('%s must be an int or a pair of ints, got %r' % (name, v))
        return [int(v[0]), int(v[1])]
    return [int(v), int(v)]


def _call(fn, *args):
    try:
        return fn(*args)
    except GLib.Error as e:
        raise _translate(e) from None


def _same_padding(kernel, dilation, stride, name):
    """padding='same': the total padding dilation * (k - 1) per dim, half
    on each side, and for an odd total the extra row or column on the
    right as PyTorch pads it: (symmetric padding, F.pad's list for the
    extra or None)."""
    if any(s != 1 for s in stride):
        raise ValueError("padding='same' is not supported for strided convolutions")
    sym, extra = [], []
    for k, d in reversed(list(zip(kernel, dilation))):
        total = d * (k - 1)
        extra += [0, total % 2]
    for k, d in zip(kernel, dilation):
        sym.append(d * (k - 1) // 2)
    return sym, (extra if any(extra) else None)


def _padding(padding, kernel, dilation, stride, name):
    """(padding, F.pad's list for padding='same' with odd totals or None),
    or None for a padding given as numbers."""
    if isinstance(padding, str):
        if padding == 'valid':
            return [0] * len(kernel), None
        if padding == 'same':
            return _same_padding(kernel, dilation, stride, name)
        raise ValueError("Invalid padding string '%s', should be one of {'valid', 'same'}"
                         % padding)
    return None


def _pad_extra(input, extra):
    if extra is None:
        return input
    from .resample import pad
    return pad(input, extra)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _pair(stride, 'stride'), _pair(dilation, 'dilation')
    kernel = list(weight.shape[-2:])
    pad, extra = _padding(padding, kernel, dilation, stride, 'conv2d') or \
        (_pair(padding, 'padding'), None)
    return _call(Dl.conv2d, _pad_extra(input, extra), weight, bias, stride, pad, dilation,
                 int(groups))


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if isinstance(stride, (tuple, list)):
        stride, = stride
    if isinstance(dilation, (tuple, list)):
        dilation, = dilation
    pad, extra = _padding(padding, [weight.shape[-1]], [dilation], [stride], 'conv1d') or \
        ((list(padding) if isinstance(padding, (tuple, list)) else [padding]), None)
    return _call(Dl.conv1d, _pad_extra(input, extra), weight, bias, int(stride), int(pad[0]),
                 int(dilation), int(groups))


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _call(Dl.conv_transpose2d, input, weight, bias, _pair(stride, 'stride'),
                 _pair(padding, 'padding'), _pair(output_padding, 'output_padding'),
                 int(groups), _pair(dilation, 'dilation'))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    return _call(Dl.unfold, input, _pair(kernel_size, 'kernel_size'),
                 _pair(dilation, 'dilation'), _pair(padding, 'padding'), _pair(stride, 'stride'))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return _call(Dl.fold, input, _pair(output_size, 'output_size'),
                 _pair(kernel_size, 'kernel_size'), _pair(dilation, 'dilation'),
                 _pair(padding, 'padding'), _pair(stride, 'stride'))


def _check_padding_mode(padding_mode):
    if padding_mode not in ('zeros', 'reflect', 'replicate', 'circular'):
        raise ValueError("padding_mode must be one of ['zeros', 'reflect', 'replicate', "
                         "'circular'], but got padding_mode='%s'" % padding_mode)


_PAD_MODE = {'zeros': Dl.PadMode.CONSTANT, 'reflect': Dl.PadMode.REFLECT,
             'replicate': Dl.PadMode.REPLICATE, 'circular': Dl.PadMode.CIRCULAR}
_PAD_MODE_NAMES = {int(v): k for k, v in _PAD_MODE.items()}


def _forward_padded(m, input, pad, conv):
    """A convolution module's forward when it pads the input itself (a
    padding mode other than zeros, padding='same' with an odd total): F.pad
    by @pad in the module's mode, then @conv without padding."""
    from .resample import pad as _pad
    mode = 'constant' if m.padding_mode == 'zeros' else m.padding_mode
    return conv(_pad(input, pad, mode), m.weight, m.bias, m.stride, 0, m.dilation, m.groups)


def _conv_extra_repr(m, n):
    """torch's extra_repr of an n-d convolution module."""
    s = '%d, %d, kernel_size=%s, stride=%s' % (m.in_channels, m.out_channels, m.kernel_size,
                                              m.stride)
    if m.padding != (0,) * n:
        s += ', padding=%s' % (m.padding,)
    if m.dilation != (1,) * n:
        s += ', dilation=%s' % (m.dilation,)
    if getattr(m, 'output_padding', (0,) * n) != (0,) * n:
        s += ', output_padding=%s' % (m.output_padding,)
    if m.groups != 1:
        s += ', groups=%d' % m.groups
    if m.bias is None:
        s += ', bias=False'
    if m.padding_mode != 'zeros':
        s += ', padding_mode=%s' % m.padding_mode
    return s


@typelib_override(__name__)
class Conv2d(_Layer, Dl.Conv2d, Module):
    """torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride=1,
    padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('in_channels', 'out_channels', 'kernel_height', 'kernel_width',
                   'stride_height', 'stride_width', 'padding_height', 'padding_width',
                   'dilation_height', 'dilation_width', 'groups', 'bias', 'padding_mode')

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode='zeros', device=None, dtype=None):
        _check_padding_mode(padding_mode)
        k, s, d = (_pair(kernel_size, 'kernel_size'), _pair(stride, 'stride'),
                   _pair(dilation, 'dilation'))
        if isinstance(padding, str) and padding not in ('same', 'valid'):
            raise ValueError("Invalid padding string '%s', should be one of {'valid', 'same'}"
                             % padding)
        p, extra = _padding(padding, k, d, s, 'Conv2d') or (_pair(padding, 'padding'), None)
        self._padding_arg = padding
        if extra is not None:
            # padding='same' with an odd total: the layer pads itself in forward
            total = [dd * (kk - 1) for kk, dd in zip(k, d)]
            self._same_pad = [total[1] // 2, total[1] - total[1] // 2,
                              total[0] // 2, total[0] - total[0] // 2]
            p = [0, 0]
        _construct(self, Dl.Conv2d, in_channels=int(in_channels), out_channels=int(out_channels),
                   kernel_height=k[0], kernel_width=k[1], stride_height=s[0], stride_width=s[1],
                   padding_height=p[0], padding_width=p[1], dilation_height=d[0],
                   dilation_width=d[1], groups=int(groups), bias=bool(bias),
                   padding_mode=_PAD_MODE[padding_mode])

    def forward(self, input):
        same = self.__dict__.get('_same_pad')
        if same is None:
            return Module.forward(self, input)
        return _forward_padded(self, input, same, conv2d)

    in_channels = property(lambda self: self.get_property('in-channels'))
    out_channels = property(lambda self: self.get_property('out-channels'))
    groups = property(lambda self: self.get_property('groups'))
    padding_mode = property(lambda self: _PAD_MODE_NAMES[int(self.get_property('padding-mode'))])

    @property
    def kernel_size(self):
        return (self.get_property('kernel-height'), self.get_property('kernel-width'))

    @property
    def stride(self):
        return (self.get_property('stride-height'), self.get_property('stride-width'))

    @property
    def padding(self):
        arg = self.__dict__.get('_padding_arg')
        if isinstance(arg, str):
            return arg
        return (self.get_property('padding-height'), self.get_property('padding-width'))

    @property
    def dilation(self):
        return (self.get_property('dilation-height'), self.get_property('dilation-width'))

    weight = _LayerTensor('weight')

    bias = _LayerTensor('bias')

    def extra_repr(self):
        return _conv_extra_repr(self, 2)


def _conv_ints(v):
    return int(v[0]) if isinstance(v, (tuple, list)) else int(v)


@typelib_override(__name__)
class Conv1d(_Layer, Dl.Conv1d, Module):
    """torch.nn.Conv1d(in_channels, out_channels, kernel_size, stride=1,
    padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros'):
    libdl's DlConv1d."""
    __module__ = OVERRIDE_MODULE
    _properties = ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding',
                   'dilation', 'groups', 'bias', 'padding_mode')

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode='zeros', device=None, dtype=None):
        _check_padding_mode(padding_mode)
        k, s, d = _conv_ints(kernel_size), _conv_ints(stride), _conv_ints(dilation)
        if isinstance(padding, str) and padding not in ('same', 'valid'):
            raise ValueError("Invalid padding string '%s', should be one of {'valid', 'same'}"
                             % padding)
        p, extra = _padding(padding, [k], [d], [s], 'Conv1d') or ([_conv_ints(padding)], None)
        self._padding_arg = padding
        if extra is not None:
            total = d * (k - 1)
            self._same_pad = [total // 2, total - total // 2]
            p = [0]
        _construct(self, Dl.Conv1d, in_channels=int(in_channels), out_channels=int(out_channels),
                   kernel_size=k, stride=s, padding=p[0], dilation=d, groups=int(groups),
                   bias=bool(bias), padding_mode=_PAD_MODE[padding_mode])

    in_channels = property(lambda self: self.get_property('in-channels'))
    out_channels = property(lambda self: self.get_property('out-channels'))
    groups = property(lambda self: self.get_property('groups'))
    kernel_size = property(lambda self: (self.get_property('kernel-size'),))
    stride = property(lambda self: (self.get_property('stride'),))
    dilation = property(lambda self: (self.get_property('dilation'),))
    padding_mode = property(lambda self: _PAD_MODE_NAMES[int(self.get_property('padding-mode'))])
    weight = _LayerTensor('weight')
    bias = _LayerTensor('bias')

    @property
    def padding(self):
        arg = self.__dict__.get('_padding_arg')
        return arg if isinstance(arg, str) else (self.get_property('padding'),)

    def forward(self, input):
        same = self.__dict__.get('_same_pad')
        if same is None:
            return Module.forward(self, input)
        return _forward_padded(self, input, same, conv1d)

    def extra_repr(self):
        return _conv_extra_repr(self, 1)


def _pair_property(name):
    return property(lambda self: (self.get_property(name + '-height'),
                                  self.get_property(name + '-width')))


@typelib_override(__name__)
class ConvTranspose2d(_Layer, Dl.ConvTranspose2d, Module):
    """torch.nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
    stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1,
    padding_mode='zeros'): libdl's DlConvTranspose2d."""
    __module__ = OVERRIDE_MODULE
    _properties = ('in_channels', 'out_channels', 'kernel_height', 'kernel_width',
                   'stride_height', 'stride_width', 'padding_height', 'padding_width',
                   'output_padding_height', 'output_padding_width', 'dilation_height',
                   'dilation_width', 'groups', 'bias')

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros',
                 device=None, dtype=None):
        if padding_mode != 'zeros':
            raise ValueError('Only "zeros" padding mode is supported for ConvTranspose2d')
        k, s = _pair(kernel_size, 'kernel_size'), _pair(stride, 'stride')
        p, op = _pair(padding, 'padding'), _pair(output_padding, 'output_padding')
        d = _pair(dilation, 'dilation')
        _construct(self, Dl.ConvTranspose2d, in_channels=int(in_channels),
                   out_channels=int(out_channels), kernel_height=k[0], kernel_width=k[1],
                   stride_height=s[0], stride_width=s[1], padding_height=p[0],
                   padding_width=p[1], output_padding_height=op[0], output_padding_width=op[1],
                   dilation_height=d[0], dilation_width=d[1], groups=int(groups),
                   bias=bool(bias))

    padding_mode = 'zeros'
    in_channels = property(lambda self: self.get_property('in-channels'))
    out_channels = property(lambda self: self.get_property('out-channels'))
    groups = property(lambda self: self.get_property('groups'))
    kernel_size = _pair_property('kernel')
    stride = _pair_property('stride')
    padding = _pair_property('padding')
    output_padding = _pair_property('output-padding')
    dilation = _pair_property('dilation')
    weight = _LayerTensor('weight')
    bias = _LayerTensor('bias')

    def _output_padding(self, input, output_size):
        """PyTorch's output_padding for an output of output_size."""
        if output_size is None:
            return self.output_padding
        output_size = list(output_size)[-2:]
        extra = []
        for d in range(2):
            size = input.shape[input.dim() - 2 + d]
            least = ((size - 1) * self.stride[d] - 2 * self.padding[d]
                     + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            if not least <= output_size[d] < least + self.stride[d]:
                raise ValueError('requested an output size of {}, but valid sizes range from {} '
                                 'to {} (for an input of {})'.format(
                                     output_size, least, least + self.stride[d] - 1,
                                     list(input.shape[-2:])))
            extra.append(output_size[d] - least)
        return tuple(extra)

    def forward(self, input, output_size=None):
        if output_size is None:
            return Module.forward(self, input)
        return conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                self._output_padding(input, output_size), self.groups,
                                self.dilation)

    def extra_repr(self):
        return _conv_extra_repr(self, 2)


class Unfold(Module):
    """torch.nn.Unfold(kernel_size, dilation=1, padding=0, stride=1)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return 'kernel_size={}, dilation={}, padding={}, stride={}'.format(
            self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Module):
    """torch.nn.Fold(output_size, kernel_size, dilation=1, padding=0,
    stride=1)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self):
        return 'output_size={}, kernel_size={}, dilation={}, padding={}, stride={}'.format(
            self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


# ---- pooling and dropout --------------------------------------------------

def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    k = _pair(kernel_size, 'kernel_size')
    s = k if stride is None or stride == [] else _pair(stride, 'stride')
    try:
        out, idx = Dl.max_pool2d(input, k, s, _pair(padding, 'padding'),
                                 _pair(dilation, 'dilation'), bool(ceil_mode))
    except GLib.Error as e:
        raise _translate(e) from None
    return (out, idx) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    k = _pair(kernel_size, 'kernel_size')
    s = k if stride is None or stride == [] else _pair(stride, 'stride')
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError('avg_pool2d: divisor must be not zero')
    return _call(Dl.avg_pool2d, input, k, s, _pair(padding, 'padding'), bool(ceil_mode),
                 bool(count_include_pad), int(divisor_override or 0))


def adaptive_avg_pool2d(input, output_size):
    return _call(Dl.adaptive_avg_pool2d, input, _adaptive_size(input, output_size))


def _adaptive_size(input, output_size):
    oh, ow = (output_size, output_size) if not isinstance(output_size, (tuple, list)) \
        else output_size
    h, w = input.shape[-2:]
    return [h if oh is None else int(oh), w if ow is None else int(ow)]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    try:
        out, idx = Dl.adaptive_max_pool2d(input, _adaptive_size(input, output_size))
    except GLib.Error as e:
        raise _translate(e) from None
    return (out, idx) if return_indices else out


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError('dropout probability has to be between 0 and 1, but got %s' % p)
    out = _call(Dl.dropout, input, float(p), bool(training), None)
    if inplace and out is not input:
        return input.copy_(out)
    return out


def _stride_or_kernel(stride, kernel):
    """The layer's stride properties: 0 (the C layer's "missing", which is
    the kernel size) for None; a stride of 0 given is an error, as torch's
    forward raises."""
    if stride is None or stride == []:
        return [0, 0]
    s = _pair(stride, 'stride')
    if 0 in s:
        raise RuntimeError('stride should not be zero')
    return s


@typelib_override(__name__)
class MaxPool2d(_Layer, Dl.MaxPool2d, Module):
    """torch.nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1,
    return_indices=False, ceil_mode=False): libdl's DlMaxPool2d."""
    __module__ = OVERRIDE_MODULE
    _properties = ('kernel_height', 'kernel_width', 'stride_height', 'stride_width',
                   'padding_height', 'padding_width', 'dilation_height', 'dilation_width',
                   'ceil_mode')

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        k, s = _pair(kernel_size, 'kernel_size'), _stride_or_kernel(stride, kernel_size)
        p, d = _pair(padding, 'padding'), _pair(dilation, 'dilation')
        _construct(self, Dl.MaxPool2d, kernel_height=k[0], kernel_width=k[1], stride_height=s[0],
                   stride_width=s[1], padding_height=p[0], padding_width=p[1],
                   dilation_height=d[0], dilation_width=d[1], ceil_mode=bool(ceil_mode))
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        if not self.return_indices:
            return Module.forward(self, input)
        return max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, True)

    def extra_repr(self):
        return 'kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}'.format(
            self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


@typelib_override(__name__)
class AvgPool2d(_Layer, Dl.AvgPool2d, Module):
    """torch.nn.AvgPool2d(kernel_size, stride=None, padding=0,
    ceil_mode=False, count_include_pad=True, divisor_override=None):
    libdl's DlAvgPool2d."""
    __module__ = OVERRIDE_MODULE
    _properties = ('kernel_height', 'kernel_width', 'stride_height', 'stride_width',
                   'padding_height', 'padding_width', 'ceil_mode', 'count_include_pad',
                   'divisor_override')

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        k, s = _pair(kernel_size, 'kernel_size'), _stride_or_kernel(stride, kernel_size)
        p = _pair(padding, 'padding')
        _construct(self, Dl.AvgPool2d, kernel_height=k[0], kernel_width=k[1], stride_height=s[0],
                   stride_width=s[1], padding_height=p[0], padding_width=p[1],
                   ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                   divisor_override=int(divisor_override or 0))
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self):
        return 'kernel_size={}, stride={}, padding={}'.format(self.kernel_size, self.stride,
                                                             self.padding)


@typelib_override(__name__)
class AdaptiveAvgPool2d(_Layer, Dl.AdaptiveAvgPool2d, Module):
    """torch.nn.AdaptiveAvgPool2d(output_size): libdl's DlAdaptiveAvgPool2d
    (None: the input's size)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('output_height', 'output_width')

    def __init__(self, output_size):
        oh, ow = (output_size, output_size) if not isinstance(output_size, (tuple, list)) \
            else output_size
        # -1 is the C layer's None (the input's size), so a -1 given would
        # pass for it: refused as torch's forward does
        if any(s is not None and int(s) < 0 for s in (oh, ow)):
            raise RuntimeError('adaptive_avg_pool2d: elements of output_size must be greater '
                               'than or equal to 0 but received {%s, %s}' % (oh, ow))
        _construct(self, Dl.AdaptiveAvgPool2d, output_height=-1 if oh is None else int(oh),
                   output_width=-1 if ow is None else int(ow))
        self.output_size = output_size

    def extra_repr(self):
        return 'output_size={}'.format(self.output_size)


class AdaptiveMaxPool2d(Module):
    """torch.nn.AdaptiveMaxPool2d(output_size, return_indices=False)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return 'output_size={}'.format(self.output_size)


@typelib_override(__name__)
class Dropout(_Layer, Dl.Dropout, Module):
    """torch.nn.Dropout(p=0.5, inplace=False): libdl's DlDropout, zeroing
    elements with probability p in training mode (scaling the rest by
    1 / (1 - p))."""
    __module__ = OVERRIDE_MODULE
    _properties = ('p', 'inplace')

    def __init__(self, p=0.5, inplace=False):
        if p < 0 or p > 1:
            raise ValueError('dropout probability has to be between 0 and 1, but got {}'
                             .format(p))
        _construct(self, Dl.Dropout, p=float(p), inplace=bool(inplace))

    # settable as PyTorch's (model.dropout.p = 0.1)
    p = property(lambda self: self.get_property('p'),
                 lambda self, v: self.set_property('p', float(v)))
    inplace = property(lambda self: self.get_property('inplace'),
                       lambda self, v: self.set_property('inplace', bool(v)))

    def extra_repr(self):
        return 'p={}, inplace={}'.format(self.p, self.inplace)


# ---- embedding and a few activations, over differentiable tensor ops -------

def _padding_idx(padding_idx, n):
    if padding_idx is None:
        return None
    if padding_idx > 0:
        assert padding_idx < n, 'Padding_idx must be within num_embeddings'
    elif padding_idx < 0:
        assert padding_idx >= -n, 'Padding_idx must be within weight.size(0)'
        padding_idx += n
    return padding_idx


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of weight that input indexes (libdl's dl_embedding): the
    row at padding_idx gets no gradient; with max_norm, the rows looked up
    are renormalised in weight itself first."""
    if scale_grad_by_freq or sparse:
        raise NotImplementedError('embedding: scale_grad_by_freq and sparse are not supported '
                                  'by libdl')
    p = _padding_idx(padding_idx, weight.shape[0])
    return _call(Dl.embedding, input, weight, -1 if p is None else p,
                 float(max_norm) if max_norm is not None else 0.0, float(norm_type))


def softplus(input, beta=1, threshold=20):
    from .._indexing import where
    scaled = input * beta
    return where(scaled > threshold, input, scaled.exp().log1p() / beta)


@typelib_override(__name__)
class Embedding(_Layer, Dl.Embedding, Module):
    """torch.nn.Embedding(num_embeddings, embedding_dim, padding_idx=None,
    max_norm=None, norm_type=2.0, ...): libdl's DlEmbedding, its weight
    drawn from N(0, 1) with the padding row zeroed."""
    __module__ = OVERRIDE_MODULE
    _properties = ('num_embeddings', 'embedding_dim', 'padding_idx', 'max_norm', 'norm_type')

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 device=None, dtype=None):
        if scale_grad_by_freq or sparse:
            raise NotImplementedError('Embedding: scale_grad_by_freq and sparse are not '
                                      'supported by libdl')
        p = _padding_idx(padding_idx, num_embeddings)
        _construct(self, Dl.Embedding, num_embeddings=int(num_embeddings),
                   embedding_dim=int(embedding_dim), padding_idx=-1 if p is None else p,
                   max_norm=float(max_norm) if max_norm is not None else 0.0,
                   norm_type=float(norm_type))
        if _weight is not None:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                'Shape of weight does not match num_embeddings and embedding_dim'
            self.register_parameter('weight', Parameter(_weight.detach()))
        self.padding_idx, self.max_norm = p, max_norm
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse

    num_embeddings = property(lambda self: self.get_property('num-embeddings'))
    embedding_dim = property(lambda self: self.get_property('embedding-dim'))
    norm_type = property(lambda self: self.get_property('norm-type'))

    weight = _LayerTensor('weight')

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        rows, cols = embeddings.shape
        m = cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                _weight=embeddings)
        m.weight.requires_grad_(not freeze)
        return m

    def extra_repr(self):
        s = '{}, {}'.format(self.num_embeddings, self.embedding_dim)
        if self.padding_idx is not None:
            s += ', padding_idx={}'.format(self.padding_idx)
        if self.max_norm is not None:
            s += ', max_norm={}'.format(self.max_norm)
        if self.norm_type != 2:
            s += ', norm_type={}'.format(self.norm_type)
        return s


@typelib_override(__name__)
class ELU(_Layer, Dl.Elu, Module):
    """torch.nn.ELU(alpha=1.0, inplace=False): libdl's DlElu."""
    __module__ = OVERRIDE_MODULE
    _properties = ('alpha', 'inplace')

    def __init__(self, alpha=1.0, inplace=False):
        _construct(self, Dl.Elu, alpha=float(alpha), inplace=bool(inplace))
        self.alpha = alpha

    def extra_repr(self):
        return 'alpha={}{}'.format(self.alpha, ', inplace=True' if self.inplace else '')


@typelib_override(__name__)
class Hardtanh(_Layer, Dl.Hardtanh, Module):
    """torch.nn.Hardtanh(min_val=-1.0, max_val=1.0, inplace=False): libdl's
    DlHardtanh."""
    __module__ = OVERRIDE_MODULE
    _properties = ('min_val', 'max_val', 'inplace')

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        assert max_val > min_val
        _construct(self, Dl.Hardtanh, min_val=float(min_val), max_val=float(max_val),
                   inplace=bool(inplace))
        self.min_val, self.max_val = min_val, max_val

    def extra_repr(self):
        return 'min_val={}, max_val={}{}'.format(self.min_val, self.max_val,
                                                ', inplace=True' if self.inplace else '')


@typelib_override(__name__)
class Softplus(_Layer, Dl.Softplus, Module):
    """torch.nn.Softplus(beta=1, threshold=20): libdl's DlSoftplus."""
    __module__ = OVERRIDE_MODULE
    _properties = ('beta', 'threshold')

    def __init__(self, beta=1, threshold=20):
        _construct(self, Dl.Softplus, beta=float(beta), threshold=float(threshold))
        self.beta, self.threshold = beta, threshold

    def extra_repr(self):
        return 'beta={}, threshold={}'.format(self.beta, self.threshold)
