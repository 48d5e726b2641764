# _api.py: the package's top-level namespace (torch.*), which dl/__init__.py
# re-exports and gi/overrides/Dl.py gives the Dl module; see __init__.py for
# why it is a module of its own.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import builtins
import importlib

from ._dtype import (Size, bfloat16, contiguous_format, device, double, dtype, float16, float32,
                     float64, get_default_dtype, half, int32, int64, long, memory_format,
                     preserve_format, set_default_dtype, uint8)
from ._tensor import Node, Tensor
from ._creation import (Generator, addbmm, addmm, addmv, addr, arange, as_tensor, baddbmm,
                        bernoulli, bmm, dot, einsum, empty, empty_like, eye, from_numpy, full,
                        full_like, ger, get_rng_state, initial_seed, inner, linspace, manual_seed,
                        mm, multinomial, mv, normal, ones, ones_like, outer, rand, rand_like,
                        randint, randint_like, randn, randn_like, randperm, seed, set_rng_state,
                        tensor, tensordot, vdot, zeros, zeros_like)
from ._math import (allclose, arctan2, atan2, bitwise_and, bitwise_or, bitwise_xor, clamp, clamp_,
                    clip, eq, equal, floor_divide, ge, greater, greater_equal, gt, isclose, le,
                    lerp, less, less_equal, logical_and, logical_or, logical_xor, logit, lt,
                    nan_to_num, ne, not_equal, relu_, remainder)
from ._math import (addcdiv, addcmul, bitwise_left_shift, bitwise_right_shift, copysign,
                    float_power, fmax, fmin, fmod, gcd, heaviside, hypot, lcm, ldexp, logaddexp,
                    logaddexp2, nextafter, xlogy)
from ._indexing import (argwhere, cat, chunk, concat, concatenate, flip, fliplr, flipud, gather,
                        hstack, index_add, index_copy, index_fill, index_put, index_select,
                        masked_fill, masked_select, nonzero, roll, scatter, scatter_add,
                        scatter_reduce, split, stack, take, take_along_dim, tril, triu, diagonal,
                        diag, trace, bincount, unbind, unsafe_chunk, unsafe_split,
                        unsafe_split_with_sizes, vstack, where)
from ._reductions import (amax, amin, aminmax, argsort, count_nonzero, cummax, cummin, cumprod,
                          cumsum, kthvalue, logsumexp, median, msort, nanmean, nanmedian, nansum,
                          norm, prod, sort, std, std_mean, topk, unique, unique_consecutive, var,
                          var_mean)
from ._functions import (add, argmax, argmin, clone, detach, div, divide, fix, flatten, is_tensor,
                         isreal, log_softmax, logical_not, matmul, maximum, mean, minimum, mul,
                         narrow, numel, permute, positive, reshape, select, softmax, squeeze, sub,
                         t, transpose, true_divide, unflatten, unsqueeze)
from ._functions import multiply, subtract
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from .autograd.anomaly_mode import is_anomaly_enabled, set_anomaly_enabled
from . import _dtype, _functions, _math, _reductions
from . import autograd, datasets, distributed, multiprocessing, nn, optim, safetensors
from . import serialization, utils
from .serialization import load, save
from ._lib import Dl as _typelib

__all__ = ['Generator', 'Node', 'Size', 'Tensor', 'add', 'allclose', 'eq', 'equal', 'ge',
           'greater', 'greater_equal', 'gt', 'isclose', 'le', 'less', 'less_equal', 'lt', 'ne',
           'not_equal', 'divide', 'true_divide', 'contiguous_format', 'memory_format',
           'preserve_format', 'addbmm', 'addmm', 'addmv', 'addr', 'amax', 'amin', 'aminmax',
           'arange', 'arctan2', 'argmax', 'argmin', 'argsort', 'argwhere', 'as_tensor', 'atan2',
           'autograd', 'baddbmm', 'bernoulli', 'bfloat16', 'bitwise_and', 'bitwise_or',
           'bitwise_xor', 'bmm', 'cat', 'chunk', 'clamp', 'clamp_', 'clip', 'clone', 'concat',
           'concatenate', 'count_nonzero', 'cummax', 'cummin', 'cumprod', 'cumsum', 'datasets',
           'detach', 'device', 'distributed', 'div', 'dot', 'double', 'dtype', 'einsum', 'empty',
           'empty_like',
           'enable_grad', 'eye', 'fix', 'flatten', 'flip', 'fliplr', 'flipud', 'float16',
           'float32', 'float64', 'floor_divide', 'from_numpy', 'full', 'full_like', 'gather',
           'ger', 'get_default_dtype', 'get_rng_state', 'half', 'hstack', 'index_add',
           'index_copy', 'index_fill', 'index_put', 'index_select', 'initial_seed', 'inner',
           'int32', 'int64', 'is_grad_enabled', 'is_tensor', 'kthvalue', 'lerp', 'linspace',
           'load',
           'log_softmax', 'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'logsumexp',
           'long', 'manual_seed', 'masked_fill', 'masked_select', 'matmul', 'maximum', 'mean',
           'median', 'minimum', 'mm', 'msort', 'mul', 'multinomial', 'mv', 'nan_to_num', 'nanmean',
           'nanmedian', 'nansum', 'multiprocessing', 'narrow', 'nn', 'no_grad', 'nonzero', 'norm', 'normal', 'numel',
           'ones', 'ones_like', 'optim', 'outer', 'permute', 'prod', 'rand', 'rand_like',
           'randint', 'randint_like', 'randn', 'randn_like', 'randperm', 'relu_', 'remainder',
           'reshape', 'roll', 'safetensors', 'save', 'scatter', 'scatter_add', 'scatter_reduce',
           'seed', 'select', 'serialization',
           'set_default_dtype', 'set_grad_enabled', 'set_rng_state', 'softmax', 'sort', 'split',
           'squeeze', 'stack', 'std', 'std_mean', 'sub', 't', 'take', 'take_along_dim', 'tensor',
           'tensordot', 'topk', 'transpose', 'tril', 'triu', 'diagonal', 'diag', 'trace', 'bincount', 'uint8', 'unbind', 'unflatten', 'unsafe_chunk', 'unsafe_split', 'unsafe_split_with_sizes',
           'unique', 'unique_consecutive', 'unsqueeze', 'utils', 'var', 'var_mean', 'vdot',
           'vstack', 'where', 'zeros', 'zeros_like']
__all__ += ['addcdiv', 'addcmul', 'bitwise_left_shift', 'bitwise_right_shift', 'copysign',
            'float_power', 'fmax', 'fmin', 'fmod', 'gcd', 'heaviside', 'hypot', 'lcm', 'ldexp',
            'logaddexp', 'logaddexp2', 'multiply', 'nextafter', 'subtract', 'xlogy']


def set_num_threads(n):
    """Sets the CPU kernels' and matrix products' thread count for the
    calling thread, as torch.set_num_threads (see Dl.set_num_threads)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError('set_num_threads expects an int, but got %s' % type(n).__name__)
    if n < 1 or n > 2 ** 31 - 1:
        raise RuntimeError('set_num_threads expects a positive integer, got %d' % n)
    _typelib.set_num_threads(n)


def get_num_threads():
    """The CPU kernels' thread count for the calling thread, as
    torch.get_num_threads."""
    return _typelib.get_num_threads()


__all__ += ['get_num_threads', 'set_num_threads']

# torch.batch_norm, layer_norm and group_norm (not the typelib's functions,
# whose arguments are in nn.functional's order)
from .nn.normalization import (_torch_batch_norm as batch_norm,  # noqa: E402
                               _torch_group_norm as group_norm, _torch_layer_norm as layer_norm)
__all__ += ['batch_norm', 'layer_norm', 'group_norm']

# torch.conv2d and the other nn.functional ops that torch also has at the
# top level, with torch's signatures (not the typelib's functions, which
# take arrays); dropout and embedding keep torch's own argument order.
from .nn.conv import conv1d, conv2d, conv_transpose2d, max_pool2d  # noqa: E402
from .nn.activation import (celu, celu_, hardshrink, prelu, selu, selu_,  # noqa: E402
                            threshold, threshold_)
from .nn import activation as _activation  # noqa: E402


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _activation.rrelu(input, lower, upper, training, False, generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _activation.rrelu(input, lower, upper, training, True, generator)


from .nn.distance import cosine_similarity, pairwise_distance, pdist  # noqa: E402

__all__ += ['cosine_similarity', 'pairwise_distance', 'pdist']
__all__ += ['celu', 'celu_', 'hardshrink', 'prelu', 'rrelu', 'rrelu_', 'selu', 'selu_',
            'threshold', 'threshold_']


def dropout(input, p, train):
    """torch.dropout(input, p, train)."""
    from .nn.conv import dropout as _dropout
    return _dropout(input, p, bool(train))


def embedding(weight, input, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding(weight, indices, ...): the weight comes first."""
    from .nn.conv import embedding as _embedding
    return _embedding(input, weight, None if padding_idx < 0 else padding_idx,
                      scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


__all__ += ['conv1d', 'conv2d', 'conv_transpose2d', 'max_pool2d', 'dropout', 'embedding']

# torch's top-level pooling, convolution and shuffle ops (torch.max_pool1d
# and adaptive_max_pool1d give torch's (values, indices) there)
from .nn.convnd import conv3d, conv_transpose1d, conv_transpose3d  # noqa: E402
from .nn.pool import (adaptive_avg_pool1d, avg_pool1d, channel_shuffle,  # noqa: E402
                      max_pool1d_with_indices, max_pool3d, pixel_shuffle, pixel_unshuffle)
from .nn.pool import max_pool1d as _max_pool1d  # noqa: E402
from .nn.pool import adaptive_max_pool1d_with_indices as adaptive_max_pool1d  # noqa: E402


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool1d(input, kernel_size, stride=[], padding=0,
    dilation=1, ceil_mode=False)."""
    return _max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


__all__ += ['conv3d', 'conv_transpose1d', 'conv_transpose3d', 'max_pool1d', 'max_pool3d',
            'max_pool1d_with_indices', 'avg_pool1d', 'adaptive_avg_pool1d',
            'adaptive_max_pool1d', 'pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle']

# Exports whose names are Python builtins (float, int, bool, sum, max, ...)
# live in this dict rather than among this module's globals, so that no
# module shadows a builtin it uses; __getattr__ hands them out (PyGObject's
# override loader and `from dl import sum` find them that way too).
_SHADOWED = {
    'float': float32, 'int': int32, 'bool': _dtype._BOOL,
    'abs': _functions.UNARY_FUNCTIONS['abs'], 'sum': _functions._sum_fn,
    'max': _functions._max, 'min': _functions._min,
    'all': _reductions._all_fn, 'any': _reductions._any_fn,
    'pow': _math._pow, 'round': _math._round_fn,
}


_DEFAULT_GENERATOR = []


def _default_generator():
    """The default Generator, made on first use rather than at import: its
    wrapper must be made after Generator overrides DlGenerator (see
    gi/overrides/Dl.py)."""
    if not _DEFAULT_GENERATOR:
        _DEFAULT_GENERATOR.append(_typelib.default_generator())
    return _DEFAULT_GENERATOR[0]


# torch.exp (x) and the other functions of the unary ops of the op table
# (the names _functions makes from Dl.pointwise_op_names)
_TABLE = {n: f for n, f in _functions.UNARY_FUNCTIONS.items()
          if n not in _SHADOWED and not hasattr(builtins, n)}
globals().update(_TABLE)
# torch.arcsin (x) and the other aliases of table ops
globals().update(_functions.ALIAS_FUNCTIONS)
__all__ += sorted(_functions.ALIAS_FUNCTIONS) + ['isreal', 'logit', 'positive']

_LAZY = {'default_generator': _default_generator}
__all__ += ['is_anomaly_enabled', 'set_anomaly_enabled', 'inference_mode',
            'is_inference_mode_enabled']
__all__ += sorted(set(_TABLE) - set(__all__)) + sorted(_SHADOWED) + sorted(_LAZY)


def __getattr__(name):
    try:
        return _SHADOWED[name]
    except KeyError:
        pass
    make = _LAZY.get(name)
    if make is None:
        raise AttributeError("module 'dl' has no attribute %r" % name)
    return make()

# the view and shape functions of _shape.py (torch.movedim, torch.tile, ...)
from . import _shape  # noqa: E402
globals().update(_shape.FUNCTIONS)
__all__ += sorted(_shape.FUNCTIONS)

# finfo, iinfo, the legacy constructors (torch.FloatTensor, ...), the type
# queries and the constants inf, nan, pi and e (_typeinfo.py); the
# process-wide settings: print options, deterministic mode, matmul
# precision (_options.py)
from . import _composites, _options, _tensor_more, _typeinfo  # noqa: E402
globals().update(_composites.FUNCTIONS)
__all__ += sorted(_composites.FUNCTIONS)
# the torch.<op>_ functions, quantile, tril_indices, the windows, ...
# (_tensor_more.py)
globals().update(_tensor_more.FUNCTIONS)
__all__ += sorted(_tensor_more.FUNCTIONS)
globals().update(_typeinfo.FUNCTIONS)
globals().update(_options.FUNCTIONS)
__all__ += sorted(_typeinfo.FUNCTIONS) + sorted(_options.FUNCTIONS)

# torch.backends, torch.cuda and torch.onnx: the module paths that PyTorch
# scripts import (see each module)
from . import backends, cuda, onnx  # noqa: E402
__all__ += ['backends', 'cuda', 'onnx']

# torch.return_types (the named tuples of max, sort, topk, ...), torch.version
# and torch.__version__ (libdl's version, as a TorchVersion)
from . import return_types, torch_version, version  # noqa: E402

# torch.linalg and the classic linear algebra functions (inverse, det, svd, ...)
from . import linalg  # noqa: E402
globals().update(linalg.TORCH_FUNCTIONS)
__all__ += ['linalg'] + list(linalg.TORCH_FUNCTIONS)
from .torch_version import __version__  # noqa: E402
__all__ += ['return_types', 'torch_version', 'version']

# torch.constant_pad_nd, instance_norm, bilinear, poisson_nll_loss and the
# dropout variants torch has at the top level, with torch's signatures
from .nn.padding import constant_pad_nd  # noqa: E402
from .nn.normalization import _torch_instance_norm as instance_norm  # noqa: E402
from .nn.bilinear import bilinear  # noqa: E402
from .nn.likelihood_losses import _torch_poisson_nll_loss as poisson_nll_loss  # noqa: E402
from .nn.ctc import _torch_ctc_loss as ctc_loss  # noqa: E402
from .nn.dropout import (_alpha_dropout as alpha_dropout,  # noqa: E402
                         _alpha_dropout_ as alpha_dropout_, _dropout_ as dropout_,
                         _feature_alpha_dropout as feature_alpha_dropout,
                         _feature_alpha_dropout_ as feature_alpha_dropout_, feature_dropout,
                         feature_dropout_)
__all__ += ['constant_pad_nd', 'instance_norm', 'bilinear', 'poisson_nll_loss', 'ctc_loss',
            'alpha_dropout', 'alpha_dropout_', 'dropout_', 'feature_alpha_dropout',
            'feature_alpha_dropout_', 'feature_dropout', 'feature_dropout_']
# the samplers beyond uniform and normal and the gamma-function family
# (torch.poisson, binomial, _standard_gamma, polygamma, mvlgamma, igamma,
# igammac: _random.py, special.py); torch.distributions and torch.special
# themselves are imported by dl/__init__.py once the namespace is complete
from . import _random  # noqa: E402
globals().update(_random.FUNCTIONS)
__all__ += sorted(f for f in _random.FUNCTIONS if not f.startswith('_'))


def igamma(input, other, *, out=None):
    """torch.igamma: the regularised lower incomplete gamma function."""
    from . import special
    return special.gammainc(input, other)


def igammac(input, other, *, out=None):
    """torch.igammac: the regularised upper incomplete gamma function."""
    from . import special
    return special.gammaincc(input, other)


__all__ += ['igamma', 'igammac']
_LAZY['distributions'] = lambda: importlib.import_module('dl.distributions')
_LAZY['special'] = lambda: importlib.import_module('dl.special')

# torch.testing, torch.amp with autocast and the functions of its state
# (torch.is_autocast_cpu_enabled, ...), torch.cpu, torch.random; the
# creation functions over shared memory (empty_strided, asarray,
# frombuffer, from_dlpack), the *_copy functions, get_device, the has_*
# build facts, set_flush_denormal and set_warn_always (_misc.py)
from . import amp, cpu, random, testing  # noqa: E402
from . import _misc  # noqa: E402
from .utils import dlpack as _dlpack  # noqa: E402
globals().update(amp.FUNCTIONS)
globals().update(_misc.FUNCTIONS)
globals().update(_misc.CONSTANTS)
from_dlpack = _dlpack.from_dlpack
to_dlpack = _dlpack.to_dlpack
Tensor.__dlpack__ = _dlpack._tensor_dlpack
Tensor.__dlpack_device__ = _dlpack._tensor_dlpack_device
# torch.has_cuda: whether libdl's CUDA backend has a device, asked on first
# read (dl.has_cuda) rather than at import, which would start CUDA in every
# process, forked workers' parents included; so it is not in __all__
_LAZY['has_cuda'] = lambda: bool(_typelib.cuda_is_available())
__all__ += ['amp', 'cpu', 'random', 'testing', 'from_dlpack', 'to_dlpack']
__all__ += sorted(amp.FUNCTIONS) + sorted(_misc.FUNCTIONS) + sorted(_misc.CONSTANTS)
