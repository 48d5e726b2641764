# functional.py: dl.nn.functional (torch.nn.functional).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

from .._lib import Dl, GLib, _int64_value, _translate

__all__ = ['relu', 'sigmoid', 'tanh', 'log_softmax', 'softmax', 'linear', 'cross_entropy',
           'nll_loss', 'gelu', 'silu', 'one_hot', 'leaky_relu', 'leaky_relu_', 'mse_loss',
           'l1_loss', 'smooth_l1_loss', 'huber_loss', 'binary_cross_entropy',
           'binary_cross_entropy_with_logits', 'kl_div']


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def _slope(negative_slope):
    if isinstance(negative_slope, int) and not isinstance(negative_slope, bool):
        return _int64_value(negative_slope)
    return float(negative_slope)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return leaky_relu_(input, negative_slope)
    return Dl.Tensor.leaky_relu(input, _slope(negative_slope))


def leaky_relu_(input, negative_slope=0.01):
    Dl.Tensor.leaky_relu_(input, _slope(negative_slope))
    return input


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim('log_softmax', input.dim(), _stacklevel)
    return input.log_softmax(dim, dtype)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim('softmax', input.dim(), _stacklevel)
    return input.softmax(dim, dtype)


def linear(input, weight, bias=None):
    return _call(Dl.Tensor.linear, input, weight, bias)


def gelu(input, approximate='none'):
    if approximate == 'none':
        return Dl.Tensor.gelu(input)
    if approximate == 'tanh':
        return Dl.Tensor.gelu_tanh(input)
    raise RuntimeError("approximate argument must be either none or tanh.")


def silu(input, inplace=False):
    return Dl.Tensor.silu_(input) if inplace else Dl.Tensor.silu(input)


def one_hot(tensor, num_classes=-1):
    try:
        return Dl.one_hot(tensor, int(num_classes))
    except GLib.Error as e:
        raise _translate(e) from None


def _check_batch(input, target):
    if input.get_ndim() >= 2 and target.get_ndim() >= 1 and \
            input.get_shape()[0] != target.get_shape()[0]:
        raise ValueError('Expected input batch_size (%d) to match target batch_size (%d).'
                         % (input.get_shape()[0], target.get_shape()[0]))


def _reduction_enum(size_average, reduce, reduction, batchmean=False):
    """Dl.Reduction of PyTorch's reduction string, or of the deprecated
    size_average and reduce flags when either is given."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = 'mean' if size_average and reduce else 'sum' if reduce else 'none'
    if reduction == 'batchmean' and batchmean:
        return Dl.Reduction.BATCHMEAN
    try:
        return {'none': Dl.Reduction.NONE, 'mean': Dl.Reduction.MEAN,
                'sum': Dl.Reduction.SUM}[reduction]
    except (KeyError, TypeError):
        raise ValueError('%s is not a valid value for reduction' % reduction) from None


def _call(fn, *args):
    try:
        return fn(*args)
    except GLib.Error as e:
        raise _translate(e) from None


def _warn_size(input, target):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn('Using a target size ({}) that is different to the input size ({}). This '
                      'will likely lead to incorrect results due to broadcasting. Please ensure '
                      'they have the same size.'.format(target.shape, input.shape), stacklevel=3)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction='mean', label_smoothing=0.0):
    r = _reduction_enum(size_average, reduce, reduction)
    _check_batch(input, target)
    return _call(Dl.cross_entropy_full, input, target, weight, int(ignore_index), r,
                 float(label_smoothing))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction='mean'):
    r = _reduction_enum(size_average, reduce, reduction)
    _check_batch(input, target)
    return _call(Dl.NllLoss.full, input, target, weight, int(ignore_index), r)


def mse_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    r = _reduction_enum(size_average, reduce, reduction)
    _warn_size(input, target)
    return _call(Dl.mse_loss, input, target, r)


def l1_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    r = _reduction_enum(size_average, reduce, reduction)
    _warn_size(input, target)
    return _call(Dl.l1_loss, input, target, r)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0):
    r = _reduction_enum(size_average, reduce, reduction)
    _warn_size(input, target)
    return _call(Dl.smooth_l1_loss, input, target, r, float(beta))


def huber_loss(input, target, reduction='mean', delta=1.0):
    r = _reduction_enum(None, None, reduction)
    _warn_size(input, target)
    return _call(Dl.huber_loss, input, target, r, float(delta))


def _bce_check(input, target):
    if target.get_dtype() != input.get_dtype():
        raise RuntimeError('Found dtype %s but expected %s'
                           % (_dtype_name(target), _dtype_name(input)))
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError('Using a target size ({}) that is different to the input size ({}) is '
                         'deprecated. Please ensure they have the same size.'.format(
                             target.shape, input.shape))


def _bce_logits_check(input, target):
    if not target.is_floating_point():
        raise RuntimeError("result type %s can't be cast to the desired output type %s"
                           % (_dtype_name(input), _dtype_name(target)))
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError('Target size ({}) must be the same as input size ({})'.format(
            target.shape, input.shape))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction='mean'):
    r = _reduction_enum(size_average, reduce, reduction)
    _bce_check(input, target)
    return _call(Dl.binary_cross_entropy, input, target, weight, r)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction='mean', pos_weight=None):
    r = _reduction_enum(size_average, reduce, reduction)
    _bce_logits_check(input, target)
    return _call(Dl.binary_cross_entropy_with_logits, input, target, weight, pos_weight, r)


def _dtype_name(t):
    return str(t.dtype).split('.')[-1]


def kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False):
    r = _reduction_enum(size_average, reduce, reduction, batchmean=True)
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError('kl_div: Integral inputs not supported.')
    if r == Dl.Reduction.MEAN and size_average is None and reduce is None:
        _kl_div_mean_warning()
    return _call(Dl.kl_div, input, target, r, bool(log_target))


def _kl_div_mean_warning():
    warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                  "support size.'batchmean' divides only by the batch size, and aligns with "
                  "the KL div math definition.'mean' will be changed to behave the same as "
                  "'batchmean' in the next major release.")


# the convolutions live in conv.py with their modules
from .conv import (adaptive_avg_pool2d, avg_pool2d, conv1d, conv2d,  # noqa
                   conv_transpose2d, dropout, embedding, fold, max_pool2d, softplus, unfold)
from .normalization import batch_norm, group_norm, layer_norm  # noqa

__all__ += ['conv1d', 'conv2d', 'conv_transpose2d', 'fold', 'unfold', 'max_pool2d', 'avg_pool2d',
            'adaptive_avg_pool2d', 'dropout', 'batch_norm', 'layer_norm', 'embedding', 'elu',
            'hardtanh', 'softplus']
__all__ += ['group_norm']

# padding, interpolation, normalize and channel dropout live in resample.py
from .resample import dropout2d, interpolate, normalize, pad, upsample  # noqa: E402
# the sampling grid of a spatial transformer lives in grid.py
from .grid import affine_grid, grid_sample  # noqa: E402


def upsample_nearest(input, size=None, scale_factor=None):
    """torch.nn.functional.upsample_nearest: deprecated, interpolate with
    mode='nearest'."""
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate "
                  "instead.", UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode='nearest')


def upsample_bilinear(input, size=None, scale_factor=None):
    """torch.nn.functional.upsample_bilinear: deprecated, interpolate with
    mode='bilinear' and align_corners=True."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use "
                  "nn.functional.interpolate instead.", UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)


__all__ += ['affine_grid', 'grid_sample', 'upsample_nearest', 'upsample_bilinear']
from .conv import adaptive_max_pool2d  # noqa: E402

__all__ += ['pad', 'interpolate', 'upsample', 'normalize', 'dropout2d', 'adaptive_max_pool2d']

# the 3-d convolutions and the 1-d and 3-d transposed ones (convnd.py), the
# 1-d and 3-d pooling, LP pooling, unpooling and the shuffles (pool.py)
from .convnd import conv3d, conv_transpose1d, conv_transpose3d  # noqa: E402
from .pool import (adaptive_avg_pool1d, adaptive_avg_pool3d, adaptive_max_pool1d,  # noqa: E402
                   adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices,
                   adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool1d,
                   avg_pool3d, channel_shuffle, lp_pool1d, lp_pool2d, max_pool1d,
                   max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d,
                   max_pool3d_with_indices, max_unpool1d, max_unpool2d, max_unpool3d,
                   pixel_shuffle, pixel_unshuffle)

__all__ += ['conv3d', 'conv_transpose1d', 'conv_transpose3d', 'max_pool1d', 'max_pool3d',
            'max_pool1d_with_indices', 'max_pool2d_with_indices', 'max_pool3d_with_indices',
            'avg_pool1d', 'avg_pool3d', 'adaptive_avg_pool1d', 'adaptive_avg_pool3d',
            'adaptive_max_pool1d', 'adaptive_max_pool3d', 'adaptive_max_pool1d_with_indices',
            'adaptive_max_pool2d_with_indices', 'adaptive_max_pool3d_with_indices',
            'lp_pool1d', 'lp_pool2d', 'max_unpool1d', 'max_unpool2d', 'max_unpool3d',
            'pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle']

# fractional max pooling (fractional_pool.py)
from .fractional_pool import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa
                              fractional_max_pool3d, fractional_max_pool3d_with_indices)

__all__ += ['fractional_max_pool2d', 'fractional_max_pool2d_with_indices',
            'fractional_max_pool3d', 'fractional_max_pool3d_with_indices']


# the activations beyond relu, gelu and the like live in activation.py with
# their modules (elu and hardtanh there replace conv.py's compositions)
from . import activation as _activation  # noqa: E402
from .activation import (_get_softmax_dim, celu, celu_, elu, elu_, glu,  # noqa
                         gumbel_softmax, hardshrink, hardsigmoid, hardswish, hardtanh,
                         hardtanh_, logsigmoid, mish, prelu, relu6, relu_, rrelu, rrelu_, selu,
                         selu_, softmin, softshrink, softsign,
                         tanhshrink, threshold, threshold_)

__all__ += [n for n in _activation.__all__ if n[0].islower() and n not in __all__]

# the distances and the margin and embedding losses: distance.py, margin_loss.py
from . import distance as _distance, margin_loss as _margin_loss  # noqa: E402
from .distance import cosine_similarity, pairwise_distance, pdist  # noqa: E402
from .margin_loss import (cosine_embedding_loss, hinge_embedding_loss,  # noqa: E402
                          margin_ranking_loss, multi_margin_loss, multilabel_margin_loss,
                          multilabel_soft_margin_loss, soft_margin_loss, triplet_margin_loss,
                          triplet_margin_with_distance_loss)

__all__ += [n for n in _distance.__all__ + _margin_loss.__all__ if n[0].islower()]


# ---- attention ---------------------------------------------------------------

def _mha_error(e):
    """The exception torch raises for an attention error: AssertionError for
    the checks torch 1.13 makes with assert (libdl's DL_ERROR_ARGUMENT)."""
    if isinstance(e, GLib.Error) and e.domain == 'dl-error-quark' and \
            e.code == int(Dl.Error.ARGUMENT):
        return AssertionError(e.message)
    return _translate(e)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch.nn.functional.multi_head_attention_forward (libdl's
    dl_multi_head_attention_forward): (output, weights or None)."""
    try:
        return Dl.multi_head_attention_forward(
            query, key, value, int(embed_dim_to_check), int(num_heads), in_proj_weight,
            in_proj_bias, bias_k, bias_v, bool(add_zero_attn), float(dropout_p), out_proj_weight,
            out_proj_bias, bool(training), key_padding_mask, bool(need_weights), attn_mask,
            bool(use_separate_proj_weight), q_proj_weight, k_proj_weight, v_proj_weight,
            static_k, static_v, bool(average_attn_weights), bool(is_causal))
    except GLib.Error as e:
        raise _mha_error(e) from None


__all__ += ['multi_head_attention_forward']

# scaled dot product attention lives in sdpa.py
from .sdpa import scaled_dot_product_attention  # noqa: E402

__all__ += ['scaled_dot_product_attention']

# padding's constant form, instance and local response norm, the dropout
# family, bilinear, embedding_bag and the likelihood losses
from .normalization import instance_norm, local_response_norm  # noqa: E402
from .dropout import (alpha_dropout, dropout1d, dropout3d,  # noqa: E402
                      feature_alpha_dropout)
from .bilinear import bilinear  # noqa: E402
from .embedding_bag import embedding_bag  # noqa: E402
from .likelihood_losses import gaussian_nll_loss, poisson_nll_loss  # noqa: E402
from .ctc import ctc_loss  # noqa: E402

__all__ += ['instance_norm', 'local_response_norm', 'alpha_dropout', 'dropout1d', 'dropout3d',
            'feature_alpha_dropout', 'bilinear', 'embedding_bag', 'gaussian_nll_loss',
            'poisson_nll_loss', 'ctc_loss']
