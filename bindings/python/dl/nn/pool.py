# pool.py: the 1-d and 3-d pooling layers, LP pooling, max unpooling and
# the pixel and channel shuffles for dl.nn and dl.nn.functional
# (MaxPool3d and AvgPool3d are libdl's DlMaxPool3d and DlAvgPool3d, the
# other modules Python ones over the functions). The 3-d ops are libdl's
# (dl_max_pool3d, dl_avg_pool3d, dl_adaptive_*_pool3d, dl_max_unpool,
# dl_tensor_pixel_shuffle, ...); the 1-d ones run the 2-d op over rows of
# height 1, as torch 1.13 does, and LP pooling is torch's composition of
# average pooling and powers.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from .conv import _call, adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool2d, max_pool2d
from .modules import Module, _construct, _Layer

__all__ = ['max_pool1d', 'max_pool3d', 'max_pool1d_with_indices', 'max_pool2d_with_indices',
           'max_pool3d_with_indices', 'avg_pool1d', 'avg_pool3d', 'adaptive_avg_pool1d',
           'adaptive_avg_pool3d', 'adaptive_max_pool1d', 'adaptive_max_pool3d',
           'adaptive_max_pool1d_with_indices', 'adaptive_max_pool2d_with_indices',
           'adaptive_max_pool3d_with_indices', 'lp_pool1d', 'lp_pool2d', 'max_unpool1d',
           'max_unpool2d', 'max_unpool3d', 'pixel_shuffle', 'pixel_unshuffle',
           'channel_shuffle', 'MaxPool1d', 'MaxPool3d', 'AvgPool1d', 'AvgPool3d',
           'AdaptiveAvgPool1d', 'AdaptiveAvgPool3d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool3d',
           'LPPool1d', 'LPPool2d', 'MaxUnpool1d', 'MaxUnpool2d', 'MaxUnpool3d', 'PixelShuffle',
           'PixelUnshuffle', 'ChannelShuffle']


def _tuple(v, n, name):
    if isinstance(v, (tuple, list)):
        if len(v) == 1 and n > 1:
            return [int(v[0])] * n
        if len(v) != n:
            raise RuntimeError('%s must either be a single int, or a tuple of %d ints'
                               % (name, n))
        return [int(x) for x in v]
    return [int(v)] * n


def _stride(stride, kernel, n):
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        return kernel
    return _tuple(stride, n, 'stride')


def _check_1d(op, input):
    if input.dim() not in (2, 3):
        raise RuntimeError('%s: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch '
                           'size for input, but got:%s' % (op, list(input.shape)))


# ---- max pooling -------------------------------------------------------------

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    _check_1d('max_pool1d', input)
    k = _tuple(kernel_size, 1, 'kernel_size')
    out, idx = max_pool2d(input.unsqueeze(-2), [1, k[0]], [1, _stride(stride, k, 1)[0]],
                          [0, _tuple(padding, 1, 'padding')[0]],
                          [1, _tuple(dilation, 1, 'dilation')[0]], ceil_mode, True)
    return out.squeeze(-2), idx.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    out, idx = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    k = _tuple(kernel_size, 3, 'kernel_size')
    try:
        return Dl.max_pool3d(input, k, _stride(stride, k, 3), _tuple(padding, 3, 'padding'),
                             _tuple(dilation, 3, 'dilation'), bool(ceil_mode))
    except GLib.Error as e:
        raise _translate(e) from None


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    out, idx = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


# ---- average pooling ---------------------------------------------------------

def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    _check_1d('avg_pool1d', input)
    k = _tuple(kernel_size, 1, 'kernel_size')
    out = avg_pool2d(input.unsqueeze(-2), [1, k[0]], [1, _stride(stride, k, 1)[0]],
                     [0, _tuple(padding, 1, 'padding')[0]], ceil_mode, count_include_pad)
    return out.squeeze(-2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    k = _tuple(kernel_size, 3, 'kernel_size')
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError('avg_pool3d: divisor must be not zero')
    return _call(Dl.avg_pool3d, input, k, _stride(stride, k, 3), _tuple(padding, 3, 'padding'),
                 bool(ceil_mode), bool(count_include_pad), int(divisor_override or 0))


# ---- adaptive pooling --------------------------------------------------------

def _adaptive_size(input, output_size, n):
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * n
    if len(sizes) != n:
        raise RuntimeError('adaptive pooling: output_size must have %d elements, got %d'
                           % (n, len(sizes)))
    return [input.shape[input.dim() - n + i] if s is None else int(s)
            for i, s in enumerate(sizes)]


def _adaptive_size_1d(op, input, output_size):
    _check_1d(op, input)
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError('%s: output_size must be 1' % op)
        output_size = output_size[0]
    return [1, int(output_size)]


def adaptive_avg_pool1d(input, output_size):
    size = _adaptive_size_1d('adaptive_avg_pool1d', input, output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), size).squeeze(-2)


def adaptive_avg_pool3d(input, output_size):
    return _call(Dl.adaptive_avg_pool3d, input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    size = _adaptive_size_1d('adaptive_max_pool1d', input, output_size)
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), size, True)
    return out.squeeze(-2), idx.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out, idx = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    try:
        return Dl.adaptive_max_pool3d(input, _adaptive_size(input, output_size, 3))
    except GLib.Error as e:
        raise _translate(e) from None


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


# ---- LP pooling: (sum of x^p over the window)^(1/p), as torch composes it ----

def _lp_finish(out, norm_type, taps):
    from .functional import relu
    return (out.sign() * relu(out.abs())).mul(taps).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    k = _tuple(kernel_size, 1, 'kernel_size')[0]
    out = avg_pool1d(input.pow(norm_type), k, k if stride is None else stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kh, kw = _tuple(kernel_size, 2, 'kernel_size')
    out = avg_pool2d(input.pow(norm_type), [kh, kw], stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


# ---- max unpooling -----------------------------------------------------------

def _unpool_size(input, kernel, stride, padding, output_size):
    n = len(kernel)
    default = [(input.shape[input.dim() - n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError("output_size should be a sequence containing {} or {} elements, but it "
                         "has a length of '{}'".format(n, n + 2, len(output_size)))
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError('invalid output_size "{}" (dim {} must be between {} and {})'
                             .format(output_size, d, lo, hi))
    return [int(s) for s in output_size]


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    k = _tuple(kernel_size, n, 'kernel_size')
    s = _stride(stride, k, n)
    size = _unpool_size(input, k, s, _tuple(padding, n, 'padding'), output_size)
    if n == 1:
        return _call(Dl.max_unpool, input.unsqueeze(-1), indices.unsqueeze(-1),
                     size + [1]).squeeze(-1)
    return _call(Dl.max_unpool, input, indices, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


# ---- shuffles ----------------------------------------------------------------

def pixel_shuffle(input, upscale_factor):
    return _call(Dl.Tensor.pixel_shuffle, input, int(upscale_factor))


def pixel_unshuffle(input, downscale_factor):
    return _call(Dl.Tensor.pixel_unshuffle, input, int(downscale_factor))


def channel_shuffle(input, groups):
    return _call(Dl.Tensor.channel_shuffle, input, int(groups))


# ---- modules -----------------------------------------------------------------

class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self):
        return 'kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}'.format(
            self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class MaxPool1d(_MaxPoolNd):
    """torch.nn.MaxPool1d(kernel_size, stride=None, padding=0, dilation=1,
    return_indices=False, ceil_mode=False)."""

    def forward(self, input):
        return max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)


def _window3d(kernel_size, stride, padding, dilation=None):
    """The construct properties of DlMaxPool3d and DlAvgPool3d: stride 0
    (the C layer's "missing", the kernel size) for None; a stride of 0
    given is an error, as torch's forward raises."""
    k, p = _tuple(kernel_size, 3, 'kernel_size'), _tuple(padding, 3, 'padding')
    s = [0, 0, 0] if stride is None else _tuple(stride, 3, 'stride')
    if stride is not None and 0 in s:
        raise RuntimeError('stride should not be zero')
    props = {}
    for i, axis in enumerate(('depth', 'height', 'width')):
        props.update({'kernel_' + axis: k[i], 'stride_' + axis: s[i], 'padding_' + axis: p[i]})
        if dilation is not None:
            props['dilation_' + axis] = _tuple(dilation, 3, 'dilation')[i]
    return props


_WINDOW3D = tuple('%s_%s' % (w, a) for w in ('kernel', 'stride', 'padding')
                  for a in ('depth', 'height', 'width'))


@typelib_override(__name__)
class MaxPool3d(_Layer, Dl.MaxPool3d, Module):
    """torch.nn.MaxPool3d(kernel_size, stride=None, padding=0, dilation=1,
    return_indices=False, ceil_mode=False): libdl's DlMaxPool3d."""
    __module__ = OVERRIDE_MODULE
    _properties = _WINDOW3D + ('dilation_depth', 'dilation_height', 'dilation_width',
                               'ceil_mode')

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        _construct(self, Dl.MaxPool3d, ceil_mode=bool(ceil_mode),
                   **_window3d(kernel_size, stride, padding, dilation))
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        if not self.return_indices:
            return Module.forward(self, input)
        return max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, True)

    extra_repr = _MaxPoolNd.extra_repr


class AvgPool1d(Module):
    """torch.nn.AvgPool1d(kernel_size, stride=None, padding=0,
    ceil_mode=False, count_include_pad=True)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = tuple(_tuple(kernel_size, 1, 'kernel_size'))
        self.stride = tuple(_tuple(stride if stride is not None else kernel_size, 1, 'stride'))
        self.padding = tuple(_tuple(padding, 1, 'padding'))
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad)

    def extra_repr(self):
        return 'kernel_size={}, stride={}, padding={}'.format(self.kernel_size, self.stride,
                                                             self.padding)


@typelib_override(__name__)
class AvgPool3d(_Layer, Dl.AvgPool3d, Module):
    """torch.nn.AvgPool3d(kernel_size, stride=None, padding=0,
    ceil_mode=False, count_include_pad=True, divisor_override=None):
    libdl's DlAvgPool3d."""
    __module__ = OVERRIDE_MODULE
    _properties = _WINDOW3D + ('ceil_mode', 'count_include_pad', 'divisor_override')

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        _construct(self, Dl.AvgPool3d, ceil_mode=bool(ceil_mode),
                   count_include_pad=bool(count_include_pad),
                   divisor_override=int(divisor_override or 0),
                   **_window3d(kernel_size, stride, padding))
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self):
        return 'kernel_size={}, stride={}, padding={}'.format(self.kernel_size, self.stride,
                                                             self.padding)


class _AdaptivePool(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        if self._max:
            self.return_indices = return_indices

    def forward(self, input):
        if self._max:
            return self._fn(input, self.output_size, self.return_indices)
        return self._fn(input, self.output_size)

    def extra_repr(self):
        return 'output_size={}'.format(self.output_size)


class AdaptiveAvgPool1d(_AdaptivePool):
    """torch.nn.AdaptiveAvgPool1d(output_size)."""
    _max, _fn = False, staticmethod(adaptive_avg_pool1d)

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveAvgPool3d(_AdaptivePool):
    """torch.nn.AdaptiveAvgPool3d(output_size) (None: the input's size)."""
    _max, _fn = False, staticmethod(adaptive_avg_pool3d)

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveMaxPool1d(_AdaptivePool):
    """torch.nn.AdaptiveMaxPool1d(output_size, return_indices=False)."""
    _max, _fn = True, staticmethod(adaptive_max_pool1d)


class AdaptiveMaxPool3d(_AdaptivePool):
    """torch.nn.AdaptiveMaxPool3d(output_size, return_indices=False)."""
    _max, _fn = True, staticmethod(adaptive_max_pool3d)


class _LPPool(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        return self._fn(input, float(self.norm_type), self.kernel_size, self.stride,
                        self.ceil_mode)

    def extra_repr(self):
        return 'norm_type={}, kernel_size={}, stride={}, ceil_mode={}'.format(
            self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPool):
    """torch.nn.LPPool1d(norm_type, kernel_size, stride=None,
    ceil_mode=False)."""
    _fn = staticmethod(lp_pool1d)


class LPPool2d(_LPPool):
    """torch.nn.LPPool2d(norm_type, kernel_size, stride=None,
    ceil_mode=False)."""
    _fn = staticmethod(lp_pool2d)


class _MaxUnpool(Module):
    _n = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._n
        self.kernel_size = tuple(_tuple(kernel_size, n, 'kernel_size'))
        self.stride = tuple(_tuple(stride if stride is not None else kernel_size, n, 'stride'))
        self.padding = tuple(_tuple(padding, n, 'padding'))

    def forward(self, input, indices, output_size=None):
        return _max_unpool(input, indices, self.kernel_size, self.stride, self.padding,
                           output_size, self._n)

    def extra_repr(self):
        return 'kernel_size={}, stride={}, padding={}'.format(self.kernel_size, self.stride,
                                                             self.padding)


class MaxUnpool1d(_MaxUnpool):
    """torch.nn.MaxUnpool1d(kernel_size, stride=None, padding=0)."""
    _n = 1


class MaxUnpool2d(_MaxUnpool):
    """torch.nn.MaxUnpool2d(kernel_size, stride=None, padding=0)."""
    _n = 2


class MaxUnpool3d(_MaxUnpool):
    """torch.nn.MaxUnpool3d(kernel_size, stride=None, padding=0)."""
    _n = 3


class PixelShuffle(Module):
    """torch.nn.PixelShuffle(upscale_factor)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return 'upscale_factor={}'.format(self.upscale_factor)


class PixelUnshuffle(Module):
    """torch.nn.PixelUnshuffle(downscale_factor)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return 'downscale_factor={}'.format(self.downscale_factor)


class ChannelShuffle(Module):
    """torch.nn.ChannelShuffle(groups)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self):
        return 'groups={}'.format(self.groups)
