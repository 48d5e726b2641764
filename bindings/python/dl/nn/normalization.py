# normalization.py: batch_norm, layer_norm, group_norm and their modules
# (BatchNorm1d/2d, LayerNorm, GroupNorm are libdl's DlBatchNorm1d/2d,
# DlLayerNorm and DlGroupNorm; the functions its fused C ops).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from ..autograd.function import Function
from .modules import Module, _construct, _Layer, _LayerTensor, _reduce_layer

__all__ = ['batch_norm', 'layer_norm', 'group_norm', 'BatchNorm1d', 'BatchNorm2d', 'LayerNorm',
           'GroupNorm', 'SyncBatchNorm']


def _norm_error(e):
    """PyTorch raises ValueError for a batch of one value per channel and
    for a wrong rank given to a BatchNorm module (its message without
    libdl's layer name)."""
    if isinstance(e, GLib.Error) and e.domain == 'dl-error-quark' and (
            'more than 1 value per channel' in e.message or 'D input (got' in e.message):
        if 'D input (got' in e.message:
            return ValueError(e.message[e.message.index('expected '):])
        return ValueError(e.message)
    return _translate(e)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    try:
        return Dl.batch_norm(input, running_mean, running_var, weight, bias, bool(training),
                             float(momentum), float(eps))
    except GLib.Error as e:
        raise _norm_error(e) from None


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    if not isinstance(normalized_shape, (tuple, list)):
        normalized_shape = (normalized_shape,)
    try:
        return Dl.layer_norm(input, [int(s) for s in normalized_shape], weight, bias, float(eps))
    except GLib.Error as e:
        raise _norm_error(e) from None


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    try:
        return Dl.group_norm(input, int(num_groups), weight, bias, float(eps))
    except GLib.Error as e:
        raise _norm_error(e) from None


def _torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                      cudnn_enabled=True):
    """torch.batch_norm, whose arguments come in another order than
    torch.nn.functional.batch_norm's"""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
                      cudnn_enable=True):
    """torch.layer_norm"""
    return layer_norm(input, normalized_shape, weight, bias, eps)


def _torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """torch.group_norm"""
    return group_norm(input, num_groups, weight, bias, eps)


class _Norm(_Layer):
    """What the norm layers share: weight and bias (None without them),
    eps, and forward with PyTorch's exceptions."""

    weight = _LayerTensor('weight')

    bias = _LayerTensor('bias')

    eps = property(lambda self: self.get_property('eps'),
                   lambda self, v: self.set_property('eps', float(v)))

    def forward(self, input):
        try:
            return Module.forward(self, input)
        except GLib.Error as e:
            raise _norm_error(e) from None



def _rebuild_with_buffers(rebuild, args, buffers):
    m = rebuild(*args)
    for name, t in buffers:
        Dl.Module.register_buffer(m, name, t, True)
    return m


class _BatchNorm(_Norm):
    _properties = ('num_features', 'eps', 'momentum', 'affine', 'track_running_stats')

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None):
        _construct(self, self._typelib_class, num_features=int(num_features), eps=float(eps),
                   momentum=-1.0 if momentum is None else float(momentum), affine=bool(affine),
                   track_running_stats=bool(track_running_stats))

    num_features = property(lambda self: self.get_property('num-features'))
    affine = property(lambda self: self.get_property('affine'))
    track_running_stats = property(lambda self: self.get_property('track-running-stats'))

    @property
    def momentum(self):
        m = self.get_property('momentum')
        return None if m < 0 else m

    @momentum.setter
    def momentum(self, value):
        self.set_property('momentum', -1.0 if value is None else float(value))

    def __getattr__(self, name):
        if name in ('running_mean', 'running_var', 'num_batches_tracked') \
                and not Dl.Module.has_buffer(self, name):
            return None
        return super().__getattr__(name)

    def __reduce_ex__(self, protocol):
        # the layer as _reduce_layer keeps it, and the running statistics
        rebuild, args = _reduce_layer(self)
        buffers = [(n, Dl.Module.get_buffer(self, n)) for n in self.buffer_names()]
        return (_rebuild_with_buffers, (rebuild, args, buffers))

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            self.weight.detach().fill_(1)
            self.bias.detach().zero_()

    def extra_repr(self):
        return ('{}, eps={}, momentum={}, affine={}, track_running_stats={}'.format(
            self.num_features, self.eps, self.momentum, self.affine, self.track_running_stats))


@typelib_override(__name__)
class BatchNorm1d(_BatchNorm, Dl.BatchNorm1d, Module):
    """torch.nn.BatchNorm1d(num_features, eps=1e-05, momentum=0.1,
    affine=True, track_running_stats=True)."""
    __module__ = OVERRIDE_MODULE
    _typelib_class = Dl.BatchNorm1d


@typelib_override(__name__)
class BatchNorm2d(_BatchNorm, Dl.BatchNorm2d, Module):
    """torch.nn.BatchNorm2d(num_features, eps=1e-05, momentum=0.1,
    affine=True, track_running_stats=True)."""
    __module__ = OVERRIDE_MODULE
    _typelib_class = Dl.BatchNorm2d


@typelib_override(__name__)
class SyncBatchNorm(_BatchNorm, Dl.SyncBatchNorm, Module):
    """torch.nn.SyncBatchNorm(num_features, eps=1e-05, momentum=0.1,
    affine=True, track_running_stats=True, process_group=None): in
    training mode the batch statistics are those of the whole batch across
    the ranks of process_group (the default group when None), and so are
    the gradients; in eval mode, or on one rank, a BatchNorm. Inputs of
    any rank of at least 2 dims."""
    __module__ = OVERRIDE_MODULE
    _typelib_class = Dl.SyncBatchNorm

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        props = dict(num_features=int(num_features), eps=float(eps),
                     momentum=-1.0 if momentum is None else float(momentum),
                     affine=bool(affine), track_running_stats=bool(track_running_stats))
        if process_group is not None:
            props['process_group'] = process_group
        _construct(self, Dl.SyncBatchNorm, **props)

    @property
    def process_group(self):
        return self.get_process_group()

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replaces every BatchNorm layer in @module (itself included) by a
        SyncBatchNorm with its settings, sharing its parameters and running
        statistics; returns @module, or the new layer when @module is one."""
        out = module
        if isinstance(module, Dl.BatchNorm) and not isinstance(module, Dl.SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            for name in ('weight', 'bias'):
                if Dl.Module.has_parameter(module, name):
                    Dl.Module.register_parameter(out, name, Dl.Module.get_parameter(module, name))
            for name in module.buffer_names():
                Dl.Module.register_buffer(out, name, Dl.Module.get_buffer(module, name), True)
            out.train(module.training)
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


@typelib_override(__name__)
class LayerNorm(_Norm, Dl.LayerNorm, Module):
    """torch.nn.LayerNorm(normalized_shape, eps=1e-05,
    elementwise_affine=True)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('eps', 'elementwise_affine')

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, device=None,
                 dtype=None):
        if not isinstance(normalized_shape, (tuple, list)):
            normalized_shape = (normalized_shape,)
        _construct(self, Dl.LayerNorm,
                   normalized_shape=GLib.Variant('ax', [int(s) for s in normalized_shape]),
                   eps=float(eps), elementwise_affine=bool(elementwise_affine))

    @property
    def normalized_shape(self):
        return tuple(self.get_normalized_shape())

    elementwise_affine = property(lambda self: self.get_property('elementwise-affine'))

    def __reduce_ex__(self, protocol):
        return (LayerNorm, (self.normalized_shape, self.eps, self.elementwise_affine),
                self.state_dict())

    def __setstate__(self, state):
        self.load_state_dict(state)

    def extra_repr(self):
        return '{}, eps={}, elementwise_affine={}'.format(self.normalized_shape, self.eps,
                                                         self.elementwise_affine)


@typelib_override(__name__)
class GroupNorm(_Norm, Dl.GroupNorm, Module):
    """torch.nn.GroupNorm(num_groups, num_channels, eps=1e-05,
    affine=True)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('num_groups', 'num_channels', 'eps', 'affine')

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, device=None,
                 dtype=None):
        _construct(self, Dl.GroupNorm, num_groups=int(num_groups),
                   num_channels=int(num_channels), eps=float(eps), affine=bool(affine))

    num_groups = property(lambda self: self.get_property('num-groups'))
    num_channels = property(lambda self: self.get_property('num-channels'))
    affine = property(lambda self: self.get_property('affine'))

    def extra_repr(self):
        return '{}, {}, eps={}, affine={}'.format(self.num_groups, self.num_channels, self.eps,
                                                 self.affine)


# ---- instance norm and local response norm -----------------------------------
# Both are compositions, as ATen's: instance_norm is batch_norm over the
# input viewed as [1, N * C, *] (its fused kernel and NativeBatchNormBackward0),
# local_response_norm a windowed sum of squares over the channels.

def _verify_spatial_size(size):
    n = 1
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError('Expected more than 1 spatial element when training, got input size {}'
                         .format(size))


def _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                         momentum, eps, cudnn_enabled=True):
    """torch.instance_norm: batch_norm of [1, N * C, *], the running
    statistics (repeated N times there) averaged back over the batch."""
    from ..autograd.grad_mode import no_grad
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError('Expected running_mean and running_var to be defined when '
                           'use_input_stats is false')
    if input.dim() < 2:
        raise RuntimeError('instance_norm: expected an input [N, C, *] of at least 2 dims, got %s'
                           % (tuple(input.shape),))
    shape = list(input.shape)
    b, c = shape[0], shape[1]

    def rep(t):
        return None if t is None else t.repeat(b)

    rm, rv = rep(running_mean), rep(running_var)
    x = input.contiguous().view([1, b * c] + shape[2:])
    out = batch_norm(x, rm, rv, rep(weight), rep(bias), bool(use_input_stats),
                     0.0 if momentum is None else momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(rm.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(rv.view(b, c).mean(0))
    return out.view(shape)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """torch.nn.functional.instance_norm: each channel of each sample
    normalised over its spatial dims."""
    if use_input_stats:
        _verify_spatial_size(tuple(input.shape))
    return _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                                momentum, eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """torch.nn.functional.local_response_norm: input / (k + alpha / size *
    sum of the squares of `size` neighbouring channels) ** beta, the
    window padded with zeros as torch's."""
    dim = input.dim()
    if dim < 3:
        raise ValueError('Expected 3D or higher dimensionality                          input '
                         '(got {} dimensions)'.format(dim))
    if input.numel() == 0:
        return input
    from .resample import pad
    sizes = list(input.shape)
    c = sizes[1]
    # [N, S, C]: the channels last, padded, then summed over each window
    sq = input.mul(input).reshape(sizes[0], c, -1).transpose(1, 2)
    padded = pad(sq, (size // 2, (size - 1) // 2))
    div = padded.narrow(2, 0, c)
    for i in range(1, size):
        div = div + padded.narrow(2, i, c)
    div = (div / size).transpose(1, 2).reshape(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


class _InstanceNorm(Module):
    _dims = (2, 3)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        from .. import _creation
        from .parameter import Parameter
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = {} if dtype is None else {'dtype': dtype}
        if affine:
            self.weight = Parameter(_creation.ones(num_features, **kw))
            self.bias = Parameter(_creation.zeros(num_features, **kw))
        else:
            self.weight = self.bias = None
        if track_running_stats:
            self.register_buffer('running_mean', _creation.zeros(num_features, **kw))
            self.register_buffer('running_var', _creation.ones(num_features, **kw))
            from .._api import tensor
            from .._dtype import long
            self.register_buffer('num_batches_tracked', tensor(0, dtype=long))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    # the same attributes as the batch norms': their resets
    reset_running_stats = _BatchNorm.reset_running_stats
    reset_parameters = _BatchNorm.reset_parameters

    def _apply_instance_norm(self, input):
        return instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                             self.training or not self.track_running_stats, self.momentum,
                             self.eps)

    def forward(self, input):
        nd = input.dim()
        if nd not in self._dims:
            raise ValueError('expected {}D or {}D input (got {}D input)'.format(
                self._dims[0], self._dims[1], nd))
        if nd == self._dims[0]:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def extra_repr(self):
        return ('{}, eps={}, momentum={}, affine={}, track_running_stats={}'.format(
            self.num_features, self.eps, self.momentum, self.affine, self.track_running_stats))


class InstanceNorm1d(_InstanceNorm):
    """torch.nn.InstanceNorm1d(num_features, eps=1e-05, momentum=0.1,
    affine=False, track_running_stats=False): [N, C, L] or [C, L]."""
    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """torch.nn.InstanceNorm2d: [N, C, H, W] or [C, H, W]."""
    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """torch.nn.InstanceNorm3d: [N, C, D, H, W] or [C, D, H, W]."""
    _dims = (4, 5)


class LocalResponseNorm(Module):
    """torch.nn.LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return '{}, alpha={}, beta={}, k={}'.format(self.size, self.alpha, self.beta, self.k)


@typelib_override(__name__)
class BatchNorm3d(_BatchNorm, Dl.BatchNorm3d, Module):
    """torch.nn.BatchNorm3d(num_features, eps=1e-05, momentum=0.1,
    affine=True, track_running_stats=True)."""
    __module__ = OVERRIDE_MODULE
    _typelib_class = Dl.BatchNorm3d


__all__ += ['instance_norm', 'local_response_norm', 'InstanceNorm1d', 'InstanceNorm2d',
            'InstanceNorm3d', 'LocalResponseNorm', 'BatchNorm3d']


# ---- CrossMapLRN2d -------------------------------------------------------------

def _channel_index(values, like):
    from .._creation import tensor
    return tensor(values, device=like.device)


def _cross_map_lrn2d_forward(ctx, input, size, alpha, beta, k):
    """torch's legacy cross-channel normalisation (from Lua Torch):
    input * scale ** -beta, scale = k + alpha / size * the squares summed
    over channels, as torch 1.13 sums them: channel c over 0 .. c + p - 1
    (p = (size - 1) // 2 + 1), less 1 .. c - p for c > p (channel 0 is
    never dropped from the running sum)."""
    if input.dim() != 4:
        raise AssertionError('CrossMapLRN2d: expected a 4-d input, got {}-d'.format(input.dim()))
    c = input.size(1)
    pre = int((size - 1) / 2 + 1)
    sq = input * input
    total = sq.cumsum(1)
    upper = total.index_select(1, _channel_index([min(i + pre - 1, c - 1) for i in range(c)],
                                                 input))
    dropped = total.index_select(1, _channel_index([max(i - pre, 0) for i in range(c)], input))
    dropped = dropped - sq.narrow(1, 0, 1)
    keep = _channel_index([1.0 if i > pre else 0.0 for i in range(c)], input).to(input.dtype)
    scale = (upper - dropped * keep.reshape(1, c, 1, 1)) * (alpha / size) + k
    output = input * scale.pow(-beta)
    ctx.save_for_backward(input, output, scale)
    ctx.lrn = (size, alpha, beta)
    return output


def _cross_map_lrn2d_backward(ctx, grad_output):
    """torch 1.13's gradient of CrossMapLRN2d: scale ** -beta * g - 2 alpha
    beta / size * input * (the sum over a window of size channels of g *
    output / scale, the window placed as torch places it)."""
    input, output, scale = ctx.saved_tensors
    size, alpha, beta = ctx.lrn
    n, c, h, w = input.shape
    ratio = grad_output * output / scale
    before = int(size - (size - 1) / 2)
    after = size - 1 - before
    parts = [input.new_zeros([n, before, h, w]), ratio]
    if after > 0:
        parts.append(input.new_zeros([n, after, h, w]))
    from .._indexing import cat
    padded = cat(parts, 1).narrow(1, 0, c + size - 1).cumsum(1)
    ends = padded.index_select(1, _channel_index([i + size - 1 for i in range(c)], input))
    starts = padded.index_select(1, _channel_index([max(i - 1, 0) for i in range(c)], input))
    first = _channel_index([0.0] + [1.0] * (c - 1), input).to(input.dtype).reshape(1, c, 1, 1)
    window = ends - starts * first
    grad_input = scale.pow(-beta) * grad_output - (2 * alpha * beta / size) * input * window
    return grad_input, None, None, None, None


class _CrossMapLRN2dFunction(Function):
    forward = staticmethod(_cross_map_lrn2d_forward)
    backward = staticmethod(_cross_map_lrn2d_backward)


class CrossMapLRN2d(Module):
    """torch.nn.CrossMapLRN2d(size, alpha=1e-4, beta=0.75, k=1): the legacy
    cross-channel normalisation of 4-d inputs, with torch 1.13's values and
    gradients."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return '{}, alpha={}, beta={}, k={}'.format(self.size, self.alpha, self.beta, self.k)


__all__ += ['CrossMapLRN2d']
