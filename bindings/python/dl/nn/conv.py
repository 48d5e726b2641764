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
from .modules import Module, _construct, _Layer
from .parameter import Parameter

__all__ = ['conv1d', 'conv2d', 'conv_transpose2d', 'unfold', 'fold', 'max_pool2d',
           'avg_pool2d', 'adaptive_avg_pool2d', 'dropout', 'Conv1d', 'Conv2d', 'ConvTranspose2d',
           'Unfold', 'Fold', 'MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d', 'Dropout',
           'batch_norm', 'layer_norm', 'BatchNorm1d', 'BatchNorm2d', 'LayerNorm', 'embedding',
           'elu', 'hardtanh', 'softplus', 'Embedding', 'ELU', 'Hardtanh', 'Softplus']


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
    """padding='same': the total padding dilation * (k - 1) per dim, which
    libdl spreads evenly (an odd total would need one more row on one
    side)."""
    if any(s != 1 for s in stride):
        raise ValueError("padding='same' is not supported for strided convolutions")
    pad = []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        if total % 2:
            raise NotImplementedError("%s: padding='same' with an even kernel extent (kernel %d, "
                                      "dilation %d) needs uneven padding, which libdl does not "
                                      "do yet" % (name, k, d))
        pad.append(total // 2)
    return pad


def _padding(padding, kernel, dilation, stride, name):
    if isinstance(padding, str):
        if padding == 'valid':
            return [0] * len(kernel)
        if padding == 'same':
            return _same_padding(kernel, dilation, stride, name)
        raise ValueError("Invalid padding string '%s', should be one of {'valid', 'same'}"
                         % padding)
    return None


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _pair(stride, 'stride'), _pair(dilation, 'dilation')
    kernel = list(weight.shape[-2:])
    pad = _padding(padding, kernel, dilation, stride, 'conv2d') or _pair(padding, 'padding')
    return _call(Dl.conv2d, input, weight, bias, stride, pad, dilation, int(groups))


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if isinstance(stride, (tuple, list)):
        stride, = stride
    if isinstance(dilation, (tuple, list)):
        dilation, = dilation
    pad = _padding(padding, [weight.shape[-1]], [dilation], [stride], 'conv1d')
    if pad is None:
        pad = list(padding) if isinstance(padding, (tuple, list)) else [padding]
    return _call(Dl.conv1d, input, weight, bias, int(stride), int(pad[0]), int(dilation),
                 int(groups))


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
    if padding_mode != 'zeros':
        raise NotImplementedError("padding_mode='%s' is not supported yet (only 'zeros')"
                                  % padding_mode)


@typelib_override(__name__)
class Conv2d(_Layer, Dl.Conv2d, Module):
    """torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride=1,
    padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode='zeros', device=None, dtype=None):
        _check_padding_mode(padding_mode)
        k, s, d = (_pair(kernel_size, 'kernel_size'), _pair(stride, 'stride'),
                   _pair(dilation, 'dilation'))
        if isinstance(padding, str) and padding not in ('same', 'valid'):
            raise ValueError("Invalid padding string '%s', should be one of {'valid', 'same'}"
                             % padding)
        p = _padding(padding, k, d, s, 'Conv2d') or _pair(padding, 'padding')
        self._padding_arg = padding
        _construct(self, Dl.Conv2d, in_channels=int(in_channels), out_channels=int(out_channels),
                   kernel_height=k[0], kernel_width=k[1], stride_height=s[0], stride_width=s[1],
                   padding_height=p[0], padding_width=p[1], dilation_height=d[0],
                   dilation_width=d[1], groups=int(groups), bias=bool(bias))

    in_channels = property(lambda self: self.get_property('in-channels'))
    out_channels = property(lambda self: self.get_property('out-channels'))
    groups = property(lambda self: self.get_property('groups'))
    padding_mode = 'zeros'

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

    @property
    def weight(self):
        return Dl.Module.get_parameter(self, 'weight')

    @property
    def bias(self):
        return Dl.Module.get_parameter(self, 'bias')

    def extra_repr(self):
        s = '%d, %d, kernel_size=%s, stride=%s' % (self.in_channels, self.out_channels,
                                                  self.kernel_size, self.stride)
        if self.padding != (0, 0):
            s += ', padding=%s' % (self.padding,)
        if self.dilation != (1, 1):
            s += ', dilation=%s' % (self.dilation,)
        if self.groups != 1:
            s += ', groups=%d' % self.groups
        if self.bias is None:
            s += ', bias=False'
        return s


class _ConvNd(Module):
    """A convolution module in Python over libdl's functions, with
    PyTorch's parameters and initialisation."""

    def _init_params(self, weight_shape, fan_in, bias):
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        self.weight = Parameter(_creation.empty(weight_shape).uniform_(-bound, bound))
        if bias:
            self.bias = Parameter(_creation.empty(self.out_channels).uniform_(-bound, bound))
        else:
            self.register_parameter('bias', None)

    def _check_groups(self, in_channels, out_channels, groups):
        if groups <= 0:
            raise ValueError('groups must be a positive integer')
        if in_channels % groups != 0:
            raise ValueError('in_channels must be divisible by groups')
        if out_channels % groups != 0:
            raise ValueError('out_channels must be divisible by groups')


class Conv1d(_ConvNd):
    """torch.nn.Conv1d(in_channels, out_channels, kernel_size, stride=1,
    padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode='zeros', device=None, dtype=None):
        super().__init__()
        _check_padding_mode(padding_mode)
        self._check_groups(in_channels, out_channels, groups)
        one = lambda v: int(v[0]) if isinstance(v, (tuple, list)) else int(v)  # noqa: E731
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = (one(kernel_size),), (one(stride),)
        self.dilation = (one(dilation),)
        self.padding = padding if isinstance(padding, str) else (one(padding),)
        self.padding_mode = padding_mode
        self._init_params((out_channels, in_channels // groups, self.kernel_size[0]),
                          in_channels // groups * self.kernel_size[0], bias)

    def forward(self, input):
        return conv1d(input, self.weight, self.bias, self.stride[0],
                      self.padding if isinstance(self.padding, str) else self.padding[0],
                      self.dilation[0], self.groups)

    def extra_repr(self):
        s = '%d, %d, kernel_size=%s, stride=%s' % (self.in_channels, self.out_channels,
                                                  self.kernel_size, self.stride)
        if self.padding != (0,):
            s += ', padding=%s' % (self.padding,)
        if self.dilation != (1,):
            s += ', dilation=%s' % (self.dilation,)
        if self.groups != 1:
            s += ', groups=%d' % self.groups
        if self.bias is None:
            s += ', bias=False'
        return s


class ConvTranspose2d(_ConvNd):
    """torch.nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
    stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1,
    padding_mode='zeros')."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros',
                 device=None, dtype=None):
        super().__init__()
        if padding_mode != 'zeros':
            raise ValueError('Only "zeros" padding mode is supported for ConvTranspose2d')
        self._check_groups(in_channels, out_channels, groups)
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = tuple(_pair(kernel_size, 'kernel_size'))
        self.stride = tuple(_pair(stride, 'stride'))
        self.padding = tuple(_pair(padding, 'padding'))
        self.output_padding = tuple(_pair(output_padding, 'output_padding'))
        self.dilation = tuple(_pair(dilation, 'dilation'))
        self.padding_mode = padding_mode
        # PyTorch's fan_in for the transposed weight [in, out / groups, kh, kw]
        fan_in = out_channels // groups * self.kernel_size[0] * self.kernel_size[1]
        self._init_params((in_channels, out_channels // groups) + self.kernel_size, fan_in, bias)

    def forward(self, input, output_size=None):
        if output_size is not None:
            raise NotImplementedError('ConvTranspose2d: output_size= is not supported yet')
        return conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                self.output_padding, self.groups, self.dilation)

    def extra_repr(self):
        s = '%d, %d, kernel_size=%s, stride=%s' % (self.in_channels, self.out_channels,
                                                  self.kernel_size, self.stride)
        if self.padding != (0, 0):
            s += ', padding=%s' % (self.padding,)
        if self.dilation != (1, 1):
            s += ', dilation=%s' % (self.dilation,)
        if self.output_padding != (0, 0):
            s += ', output_padding=%s' % (self.output_padding,)
        if self.groups != 1:
            s += ', groups=%d' % self.groups
        if self.bias is None:
            s += ', bias=False'
        return s


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
    """The mean of each window: its columns (unfold) summed per channel,
    divided by the window size, or by the taps inside the image without
    count_include_pad."""
    k = _pair(kernel_size, 'kernel_size')
    s = k if stride is None or stride == [] else _pair(stride, 'stride')
    p = _pair(padding, 'padding')
    if ceil_mode:
        h, w = input.shape[-2:]
        if any((n + 2 * pp - kk) % ss for n, pp, kk, ss in zip((h, w), p, k, s)):
            raise NotImplementedError('avg_pool2d: ceil_mode=True with a partial last window '
                                      'is not supported yet')
    if any(2 * pp > kk for pp, kk in zip(p, k)):
        raise RuntimeError('avg_pool2d: pad should be at most half of kernel size, but got '
                           'pad=%s and kernel_size=%s' % (tuple(p), tuple(k)))
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    n, c, h, w = x.shape
    cols = unfold(x, k, 1, p, s)
    l = cols.shape[-1]
    sums = cols.reshape(n, c, k[0] * k[1], l).sum(2)
    if divisor_override:
        out = sums / divisor_override
    elif count_include_pad or p == [0, 0]:
        out = sums / (k[0] * k[1])
    else:
        from .. import _creation
        ones = _creation.ones(1, 1, h, w, dtype=x.dtype)
        counts = unfold(ones, k, 1, p, s).sum(1)
        out = sums / counts
    oh = (h + 2 * p[0] - k[0]) // s[0] + 1
    out = out.reshape(n, c, oh, l // oh)
    return out if batched else out.squeeze(0)


def adaptive_avg_pool2d(input, output_size):
    """Averages over output_size bins; bins of equal size (the input a
    multiple of the output, as a ResNet's 1x1 global pooling is)."""
    oh, ow = (output_size, output_size) if not isinstance(output_size, (tuple, list)) \
        else output_size
    h, w = input.shape[-2:]
    oh = h if oh is None else oh
    ow = w if ow is None else ow
    if (oh, ow) == (1, 1):
        return input.mean((-2, -1), keepdim=True)
    if h % oh or w % ow:
        raise NotImplementedError('adaptive_avg_pool2d: an input of %dx%d into %dx%d bins of '
                                  'unequal sizes is not supported yet' % (h, w, oh, ow))
    return avg_pool2d(input, (h // oh, w // ow))


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError('dropout probability has to be between 0 and 1, but got %s' % p)
    if not training or p == 0.0:
        return input
    from .. import _creation
    if p == 1.0:
        mask = _creation.zeros_like(input)
    else:
        mask = _creation.empty_like(input).bernoulli_(1 - p) / (1 - p)
    if inplace:
        return input.mul_(mask)
    return input * mask


class MaxPool2d(Module):
    """torch.nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1,
    return_indices=False, ceil_mode=False)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return 'kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}'.format(
            self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class AvgPool2d(Module):
    """torch.nn.AvgPool2d(kernel_size, stride=None, padding=0,
    ceil_mode=False, count_include_pad=True, divisor_override=None)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return 'kernel_size={}, stride={}, padding={}'.format(self.kernel_size, self.stride,
                                                             self.padding)


class AdaptiveAvgPool2d(Module):
    """torch.nn.AdaptiveAvgPool2d(output_size)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return 'output_size={}'.format(self.output_size)


class Dropout(Module):
    """torch.nn.Dropout(p=0.5, inplace=False): zeroes elements with
    probability p in training mode (scaling the rest by 1 / (1 - p))."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError('dropout probability has to be between 0 and 1, but got {}'
                             .format(p))
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return 'p={}, inplace={}'.format(self.p, self.inplace)


# ---- normalisation ----------------------------------------------------------

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    """Normalises each channel (dim 1) over the batch and the other dims;
    in training, with the batch's statistics, updating the running ones."""
    from ..autograd.grad_mode import no_grad
    dims = [0] + list(range(2, input.dim()))
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    if training:
        n = input.numel() // input.shape[1]
        if n <= 1:
            raise ValueError('Expected more than 1 value per channel when training, got input '
                             'size %s' % (list(input.shape),))
        mean = input.mean(dims)
        var = input.var(dims, unbiased=False)
        if running_mean is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
        if running_var is not None:
            with no_grad():
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    else:
        mean, var = running_mean, running_var
    y = (input - mean.reshape(shape)) * (var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalises over the last len(normalized_shape) dims."""
    normalized_shape = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) \
        else (normalized_shape,)
    k = len(normalized_shape)
    if tuple(input.shape[input.dim() - k:]) != normalized_shape:
        raise RuntimeError('Given normalized_shape=%s, expected input with shape [*, %s], but '
                           'got input of size%s' % (list(normalized_shape),
                                                    ', '.join(map(str, normalized_shape)),
                                                    list(input.shape)))
    dims = list(range(input.dim() - k, input.dim()))
    mean = input.mean(dims, keepdim=True)
    var = input.var(dims, unbiased=False, keepdim=True)
    y = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


class _BatchNorm(Module):
    _dims = ()

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None):
        super().__init__()
        from .. import _creation
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(_creation.ones(num_features))
            self.bias = Parameter(_creation.zeros(num_features))
        if track_running_stats:
            self.register_buffer('running_mean', _creation.zeros(num_features))
            self.register_buffer('running_var', _creation.ones(num_features))
            self.register_buffer('num_batches_tracked', _creation.tensor(0))
        else:
            self.register_buffer('running_mean', None)
            self.register_buffer('running_var', None)
            self.register_buffer('num_batches_tracked', None)

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            raise ValueError('expected %s input (got %dD input)'
                             % (' or '.join('%dD' % d for d in self._dims), input.dim()))

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        training = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if track else None,
                          self.running_var if track else None,
                          self.weight if self.affine else None,
                          self.bias if self.affine else None, training, factor, self.eps)

    def extra_repr(self):
        return ('{num_features}, eps={eps}, momentum={momentum}, affine={affine}, '
                'track_running_stats={track_running_stats}'.format(**self.__dict__))


class BatchNorm1d(_BatchNorm):
    """torch.nn.BatchNorm1d(num_features, eps=1e-05, momentum=0.1,
    affine=True, track_running_stats=True)."""
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """torch.nn.BatchNorm2d(num_features, eps=1e-05, momentum=0.1,
    affine=True, track_running_stats=True)."""
    _dims = (4,)


class LayerNorm(Module):
    """torch.nn.LayerNorm(normalized_shape, eps=1e-05,
    elementwise_affine=True)."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        from .. import _creation
        if not isinstance(normalized_shape, (tuple, list)):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_creation.ones(*self.normalized_shape))
            self.bias = Parameter(_creation.zeros(*self.normalized_shape))

    def forward(self, input):
        return layer_norm(input, self.normalized_shape,
                          self.weight if self.elementwise_affine else None,
                          self.bias if self.elementwise_affine else None, self.eps)

    def extra_repr(self):
        return '{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}'.format(
            **self.__dict__)


# ---- embedding and a few activations, over differentiable tensor ops -------

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of weight that input indexes; the row at padding_idx gets
    no gradient."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError('embedding: max_norm, scale_grad_by_freq and sparse are not '
                                  'supported yet')
    n = weight.shape[0]
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n
    flat = input.reshape(-1)
    out = weight.index_select(0, flat).reshape(tuple(input.shape) + (weight.shape[1],))
    if padding_idx is not None and out.requires_grad:
        keep = (input != padding_idx).unsqueeze(-1).to(out.dtype)
        out.register_hook(lambda g: g * keep)
    return out


def elu(input, alpha=1.0, inplace=False):
    from .._indexing import where
    out = where(input > 0, input, (input.exp() - 1) * alpha)
    return input.copy_(out) if inplace else out


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError('min_val cannot be greater than max_val')
    return input.clamp_(min_val, max_val) if inplace else input.clamp(min_val, max_val)


def softplus(input, beta=1, threshold=20):
    from .._indexing import where
    scaled = input * beta
    return where(scaled > threshold, input, scaled.exp().log1p() / beta)


class Embedding(Module):
    """torch.nn.Embedding(num_embeddings, embedding_dim, padding_idx=None,
    ...): weight drawn from N(0, 1), the padding row zeroed."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 device=None, dtype=None):
        super().__init__()
        from .. import _creation
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError('Padding_idx must be within num_embeddings')
            if padding_idx < 0:
                padding_idx += num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx, self.max_norm = padding_idx, max_norm
        w = _weight if _weight is not None else _creation.randn(num_embeddings, embedding_dim)
        if padding_idx is not None and _weight is None:
            w[padding_idx] = 0
        self.weight = Parameter(w)

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx, self.max_norm)

    def extra_repr(self):
        s = '{}, {}'.format(self.num_embeddings, self.embedding_dim)
        if self.padding_idx is not None:
            s += ', padding_idx={}'.format(self.padding_idx)
        return s


class ELU(Module):
    """torch.nn.ELU(alpha=1.0, inplace=False)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return 'alpha={}{}'.format(self.alpha, ', inplace=True' if self.inplace else '')


class Hardtanh(Module):
    """torch.nn.Hardtanh(min_val=-1.0, max_val=1.0, inplace=False)."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if min_val > max_val:
            raise ValueError('min_val cannot be greater than max_val')
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return 'min_val={}, max_val={}{}'.format(self.min_val, self.max_val,
                                                ', inplace=True' if self.inplace else '')


class Softplus(Module):
    """torch.nn.Softplus(beta=1, threshold=20)."""

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return 'beta={}, threshold={}'.format(self.beta, self.threshold)
