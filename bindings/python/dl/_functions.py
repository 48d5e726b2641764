# _functions.py: the torch.* functions that are Tensor methods taking the
# tensor first (torch.exp(x) is x.exp()), and add/sub/mul/div/max/min,
# which take Python numbers too.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ._creation import tensor
from ._lib import _is_tensor, _method_fn
from ._tensor import Tensor

# abs and sum are exported under those names by the package's __init__;
# here they have other names, so as not to shadow the builtins.
neg = _method_fn(Tensor.neg, 'neg')
exp = _method_fn(Tensor.exp, 'exp')
log = _method_fn(Tensor.log, 'log')
relu = _method_fn(Tensor.relu, 'relu')
_abs_fn = _method_fn(Tensor.abs, 'abs')
sqrt = _method_fn(Tensor.sqrt, 'sqrt')
tanh = _method_fn(Tensor.tanh, 'tanh')
sigmoid = _method_fn(Tensor.sigmoid, 'sigmoid')
_sum_fn = _method_fn(Tensor.sum, 'sum')
mean = _method_fn(Tensor.mean, 'mean')
argmax = _method_fn(Tensor.argmax, 'argmax')
argmin = _method_fn(Tensor.argmin, 'argmin')
t = _method_fn(Tensor.t, 't')
flatten = _method_fn(Tensor.flatten, 'flatten')
unflatten = _method_fn(Tensor.unflatten, 'unflatten')
squeeze = _method_fn(Tensor.squeeze, 'squeeze')
unsqueeze = _method_fn(Tensor.unsqueeze, 'unsqueeze')
transpose = _method_fn(Tensor.transpose, 'transpose')
permute = _method_fn(Tensor.permute, 'permute')
reshape = _method_fn(Tensor.reshape, 'reshape')
log_softmax = _method_fn(Tensor.log_softmax, 'log_softmax')
softmax = _method_fn(Tensor.softmax, 'softmax')
matmul = _method_fn(Tensor.matmul, 'matmul')
detach = _method_fn(Tensor.detach, 'detach')
clone = _method_fn(Tensor.clone, 'clone')
numel = _method_fn(Tensor.numel, 'numel')
maximum = _method_fn(Tensor.maximum, 'maximum')
minimum = _method_fn(Tensor.minimum, 'minimum')
narrow = _method_fn(Tensor.narrow, 'narrow')
select = _method_fn(Tensor.select, 'select')
expm1 = _method_fn(Tensor.expm1, 'expm1')
log1p = _method_fn(Tensor.log1p, 'log1p')
log2 = _method_fn(Tensor.log2, 'log2')
rsqrt = _method_fn(Tensor.rsqrt, 'rsqrt')
sin = _method_fn(Tensor.sin, 'sin')
cos = _method_fn(Tensor.cos, 'cos')
tan = _method_fn(Tensor.tan, 'tan')
sign = _method_fn(Tensor.sign, 'sign')
floor = _method_fn(Tensor.floor, 'floor')
ceil = _method_fn(Tensor.ceil, 'ceil')
trunc = _method_fn(Tensor.trunc, 'trunc')
frac = _method_fn(Tensor.frac, 'frac')
reciprocal = _method_fn(Tensor.reciprocal, 'reciprocal')
erf = _method_fn(Tensor.erf, 'erf')
isnan = _method_fn(Tensor.isnan, 'isnan')
isinf = _method_fn(Tensor.isinf, 'isinf')
isfinite = _method_fn(Tensor.isfinite, 'isfinite')
logical_not = _method_fn(Tensor.logical_not, 'logical_not')
bitwise_not = _method_fn(Tensor.bitwise_not, 'bitwise_not')
fix = _method_fn(Tensor.fix, 'fix')


def add(input, other, alpha=1):
    if not _is_tensor(input):
        input = tensor(input)
    return input.add(other, alpha=alpha)


def sub(input, other, alpha=1):
    if not _is_tensor(input):
        input = tensor(input)
    return input.sub(other, alpha=alpha)


def mul(input, other):
    return (input if _is_tensor(input) else tensor(input)) * other


def div(input, other):
    return (input if _is_tensor(input) else tensor(input)) / other


def _max(input, dim=None, keepdim=False):
    """torch.max (exported as max; named apart from the builtin)."""
    return input.max(dim, keepdim)


def _min(input, dim=None, keepdim=False):
    """torch.min (exported as min; named apart from the builtin)."""
    return input.min(dim, keepdim)


def is_tensor(obj):
    return _is_tensor(obj)
