# _functions.py: the torch.* functions that are Tensor methods taking the
# tensor first (torch.exp(x) is x.exp()), and add/sub/mul/div/max/min,
# which take Python numbers too.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import builtins

from ._creation import tensor
from ._lib import Dl as _typelib
from ._lib import _is_tensor, _method_fn, numpy_names
from ._math import _div, _into_out
from ._tensor import Tensor


def _unary_functions():
    """torch.<op>(x), the function form of x.<op>(), for every unary op of
    libdl's op table (libdl/ops/dl-ops-pointwise.def, read through
    Dl.pointwise_op_names): an op added there is a function here too."""
    return {name: _method_fn(getattr(Tensor, name), name)
            for name in _typelib.pointwise_op_names(_typelib.OpFlags.UNARY)}


UNARY_FUNCTIONS = _unary_functions()
# this module's names, but for those that are builtins (abs, round): _api
# exports those apart
globals().update({n: f for n, f in UNARY_FUNCTIONS.items() if not hasattr(builtins, n)})

# sum is exported under that name by the package's _api; here it has
# another name, so as not to shadow the builtin.
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
logical_not = _method_fn(Tensor.logical_not, 'logical_not')
fix = _method_fn(Tensor.fix, 'fix')
positive = _method_fn(Tensor.positive, 'positive')
isreal = _method_fn(Tensor.isreal, 'isreal')

# torch's other names of unary ops (numpy's arc* and negative, absolute)
ALIASES = {'arcsin': 'asin', 'arccos': 'acos', 'arctan': 'atan', 'arcsinh': 'asinh',
           'arccosh': 'acosh', 'arctanh': 'atanh', 'negative': 'neg', 'absolute': 'abs'}
ALIAS_FUNCTIONS = {alias: _method_fn(getattr(Tensor, alias), alias) for alias in ALIASES}
globals().update(ALIAS_FUNCTIONS)


def _check_out_grad(out, name, *args):
    """torch's rule for a differentiable op given out=: no input may
    require grad while grad mode is on."""
    if out is not None and _typelib.is_grad_enabled() and \
            builtins.any(_is_tensor(a) and a.requires_grad for a in args):
        raise RuntimeError("%s(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad." % name)


def add(input, other, *, alpha=1, out=None):
    _check_out_grad(out, 'add', input, other)
    if not _is_tensor(input):
        input = tensor(input)
    return _into_out(input.add(other, alpha=alpha), out, 'add')


def sub(input, other, *, alpha=1, out=None):
    _check_out_grad(out, 'sub', input, other)
    if not _is_tensor(input):
        input = tensor(input)
    return _into_out(input.sub(other, alpha=alpha), out, 'sub')


def mul(input, other, *, out=None):
    _check_out_grad(out, 'mul', input, other)
    return _into_out((input if _is_tensor(input) else tensor(input)) * other, out, 'mul')


multiply = mul


def subtract(input, other, *, alpha=1, out=None):
    return sub(input, other, alpha=alpha, out=out)


def div(input, other, *, rounding_mode=None, out=None):
    _check_out_grad(out, 'div', input, other)
    input = input if _is_tensor(input) else tensor(input)
    return _into_out(_div(input, other, rounding_mode=rounding_mode), out, 'div')


def true_divide(input, other, *, out=None):
    return div(input, other, out=out)


divide = div


def _max(input, dim=None, keepdim=False):
    """torch.max (exported as max; named apart from the builtin)."""
    return input.max(dim, keepdim)


def _min(input, dim=None, keepdim=False):
    """torch.min (exported as min; named apart from the builtin)."""
    return input.min(dim, keepdim)


_max = numpy_names(_max, 'max')
_min = numpy_names(_min, 'min')


def is_tensor(obj):
    return _is_tensor(obj)
