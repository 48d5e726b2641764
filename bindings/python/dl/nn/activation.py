# activation.py: the activations of dl.nn.functional beyond relu, gelu and
# the like (relu6, hardswish, hardsigmoid, hardshrink, softshrink,
# tanhshrink, softsign, elu, selu, celu, mish, logsigmoid, hardtanh,
# threshold, rrelu, prelu, glu, softmin, gumbel_softmax) and their modules:
# each module is libdl's C class (libdl/nn/dl-pointwise-activation-modules.c,
# dl-channel-activation-modules.c) with torch's constructor and printed form.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from .modules import Module, _construct, _implicit_softmax, _Layer, _LayerTensor, _softmax_dim

__all__ = ['relu_', 'relu6', 'hardswish', 'hardsigmoid', 'hardshrink', 'softshrink',
           'tanhshrink', 'softsign', 'elu', 'elu_', 'selu', 'selu_', 'celu', 'celu_', 'mish',
           'logsigmoid', 'hardtanh', 'hardtanh_', 'threshold', 'threshold_', 'rrelu', 'rrelu_',
           'prelu', 'glu', 'softmin', 'gumbel_softmax',
           'ReLU6', 'Hardswish', 'Hardsigmoid', 'Hardshrink', 'Softshrink', 'Tanhshrink',
           'Softsign', 'SELU', 'CELU', 'Mish', 'LogSigmoid', 'Threshold',
           'RReLU', 'PReLU', 'GLU', 'Softmin', 'Softmax2d']


def _call(fn, *args):
    try:
        return fn(*args)
    except GLib.Error as e:
        raise _translate(e) from None


def _inplace(fn, fn_, input, inplace, *args):
    """fn(input, *args), or fn_ writing into input (which it returns)."""
    if inplace:
        _call(fn_, input, *args)
        return input
    return _call(fn, input, *args)


# ---- functional ----------------------------------------------------------------

def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return _inplace(Dl.Tensor.relu6, Dl.Tensor.relu6_, input, inplace)


def hardswish(input, inplace=False):
    return _inplace(Dl.Tensor.hardswish, Dl.Tensor.hardswish_, input, inplace)


def hardsigmoid(input, inplace=False):
    return _inplace(Dl.Tensor.hardsigmoid, Dl.Tensor.hardsigmoid_, input, inplace)


def mish(input, inplace=False):
    return _inplace(Dl.Tensor.mish, Dl.Tensor.mish_, input, inplace)


def hardshrink(input, lambd=0.5):
    return _call(Dl.Tensor.hardshrink, input, float(lambd))


def softshrink(input, lambd=0.5):
    return _call(Dl.Tensor.softshrink, input, float(lambd))


def tanhshrink(input):
    return _call(Dl.Tensor.tanhshrink, input)


def softsign(input):
    return _call(Dl.Tensor.softsign, input)


def logsigmoid(input):
    return _call(Dl.Tensor.logsigmoid, input)


def elu(input, alpha=1.0, inplace=False):
    return _inplace(Dl.Tensor.elu, Dl.Tensor.elu_, input, inplace, float(alpha))


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


def selu(input, inplace=False):
    return _inplace(Dl.Tensor.selu, Dl.Tensor.selu_, input, inplace)


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    return _inplace(Dl.Tensor.celu, Dl.Tensor.celu_, input, inplace, float(alpha))


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _inplace(Dl.Tensor.hardtanh, Dl.Tensor.hardtanh_, input, inplace, float(min_val),
                    float(max_val))


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def threshold(input, threshold, value, inplace=False):
    return _inplace(Dl.Tensor.threshold, Dl.Tensor.threshold_, input, inplace, float(threshold),
                    float(value))


def threshold_(input, threshold, value):
    return _inplace(Dl.Tensor.threshold, Dl.Tensor.threshold_, input, True, float(threshold),
                    float(value))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, generator=None):
    return _inplace(Dl.Tensor.rrelu, Dl.Tensor.rrelu_, input, inplace, float(lower),
                    float(upper), bool(training), generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return rrelu(input, lower, upper, training, True, generator)


def prelu(input, weight):
    return _call(Dl.Tensor.prelu, input, weight)


def glu(input, dim=-1):
    return _call(Dl.Tensor.glu, input, int(dim))


def _get_softmax_dim(name, ndim, stacklevel):
    """The dim PyTorch picks when a script leaves it out (pre-0.3 code such
    as F.log_softmax(x)), with its deprecation warning: 0 for 0-, 1- and
    3-dim input, else 1."""
    warnings.warn('Implicit dimension choice for {} has been deprecated. Change the call to '
                  'include dim=X as an argument.'.format(name), stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim('softmin', input.dim(), _stacklevel)
    t = input if dtype is None else input.to(dtype)
    return (-t).softmax(dim)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution (composed of differentiable
    ops, as torch's): softmax((logits + g) / tau) with g = -ln(E), E ~ Exp(1)
    drawn as torch draws it; with hard, the one-hot of its argmax with the soft
    sample's gradient (straight through)."""
    from .._creation import empty_like, zeros_like
    if eps != 1e-10:
        warnings.warn('`eps` parameter is deprecated and has no effect.')
    # torch's draw: -ln of Exp(1) numbers, so a seed gives torch's sample
    gumbels = -empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---- modules -------------------------------------------------------------------

def _inplace_str(m, first=False):
    if not m.inplace:
        return ''
    return 'inplace=True' if first else ', inplace=True'


@typelib_override(__name__)
class ReLU6(_Layer, Dl.Relu6, Module):
    """torch.nn.ReLU6(inplace=False): libdl's DlRelu6."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Relu6, inplace=bool(inplace))
        self.min_val, self.max_val = 0.0, 6.0

    def extra_repr(self):
        return _inplace_str(self, True)


@typelib_override(__name__)
class Hardswish(_Layer, Dl.Hardswish, Module):
    """torch.nn.Hardswish(inplace=False): libdl's DlHardswish."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Hardswish, inplace=bool(inplace))


@typelib_override(__name__)
class Hardsigmoid(_Layer, Dl.Hardsigmoid, Module):
    """torch.nn.Hardsigmoid(inplace=False): libdl's DlHardsigmoid."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Hardsigmoid, inplace=bool(inplace))


@typelib_override(__name__)
class Mish(_Layer, Dl.Mish, Module):
    """torch.nn.Mish(inplace=False): libdl's DlMish."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Mish, inplace=bool(inplace))


@typelib_override(__name__)
class SELU(_Layer, Dl.Selu, Module):
    """torch.nn.SELU(inplace=False): libdl's DlSelu."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Selu, inplace=bool(inplace))

    def extra_repr(self):
        return _inplace_str(self, True)


@typelib_override(__name__)
class CELU(_Layer, Dl.Celu, Module):
    """torch.nn.CELU(alpha=1.0, inplace=False): libdl's DlCelu."""
    __module__ = OVERRIDE_MODULE
    _properties = ('alpha', 'inplace')

    def __init__(self, alpha=1.0, inplace=False):
        _construct(self, Dl.Celu, alpha=float(alpha), inplace=bool(inplace))
        self.alpha = alpha

    def extra_repr(self):
        return 'alpha={}{}'.format(self.alpha, _inplace_str(self))


class _Shrink(_Layer):
    _properties = ('lambd',)

    def __init__(self, lambd=0.5):
        _construct(self, type(self)._typelib, lambd=float(lambd))
        self.lambd = lambd

    def extra_repr(self):
        return str(self.lambd)


@typelib_override(__name__)
class Hardshrink(_Shrink, Dl.Hardshrink, Module):
    """torch.nn.Hardshrink(lambd=0.5): libdl's DlHardshrink."""
    __module__ = OVERRIDE_MODULE
    _typelib = Dl.Hardshrink


@typelib_override(__name__)
class Softshrink(_Shrink, Dl.Softshrink, Module):
    """torch.nn.Softshrink(lambd=0.5): libdl's DlSoftshrink."""
    __module__ = OVERRIDE_MODULE
    _typelib = Dl.Softshrink


@typelib_override(__name__)
class Tanhshrink(_Layer, Dl.Tanhshrink, Module):
    """torch.nn.Tanhshrink(): libdl's DlTanhshrink."""
    __module__ = OVERRIDE_MODULE

    def __init__(self):
        _construct(self, Dl.Tanhshrink)


@typelib_override(__name__)
class Softsign(_Layer, Dl.Softsign, Module):
    """torch.nn.Softsign(): libdl's DlSoftsign."""
    __module__ = OVERRIDE_MODULE

    def __init__(self):
        _construct(self, Dl.Softsign)


@typelib_override(__name__)
class LogSigmoid(_Layer, Dl.LogSigmoid, Module):
    """torch.nn.LogSigmoid(): libdl's DlLogSigmoid."""
    __module__ = OVERRIDE_MODULE

    def __init__(self):
        _construct(self, Dl.LogSigmoid)


@typelib_override(__name__)
class Threshold(_Layer, Dl.Threshold, Module):
    """torch.nn.Threshold(threshold, value, inplace=False): libdl's
    DlThreshold."""
    __module__ = OVERRIDE_MODULE
    _properties = ('threshold', 'value', 'inplace')

    def __init__(self, threshold, value, inplace=False):
        _construct(self, Dl.Threshold, threshold=float(threshold), value=float(value),
                   inplace=bool(inplace))
        self.threshold, self.value = threshold, value

    def extra_repr(self):
        return 'threshold={}, value={}{}'.format(self.threshold, self.value, _inplace_str(self))


@typelib_override(__name__)
class RReLU(_Layer, Dl.Rrelu, Module):
    """torch.nn.RReLU(lower=1/8, upper=1/3, inplace=False): libdl's
    DlRrelu."""
    __module__ = OVERRIDE_MODULE
    _properties = ('lower', 'upper', 'inplace')

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        _construct(self, Dl.Rrelu, lower=float(lower), upper=float(upper),
                   inplace=bool(inplace))
        self.lower, self.upper = lower, upper

    def extra_repr(self):
        return 'lower={}, upper={}{}'.format(self.lower, self.upper, _inplace_str(self))


@typelib_override(__name__)
class PReLU(_Layer, Dl.Prelu, Module):
    """torch.nn.PReLU(num_parameters=1, init=0.25): libdl's DlPrelu, its
    parameter weight holding the slopes."""
    __module__ = OVERRIDE_MODULE
    _properties = ('num_parameters', 'init')

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        _construct(self, Dl.Prelu, dtype=dtype, device=device,
                   num_parameters=int(num_parameters), init=float(init))
        self.num_parameters, self.init = num_parameters, init

    weight = _LayerTensor('weight')

    def reset_parameters(self):
        from . import init as _init
        _init.constant_(self.weight, self.init)

    def extra_repr(self):
        return 'num_parameters={}'.format(self.num_parameters)


@typelib_override(__name__)
class GLU(_Layer, Dl.Glu, Module):
    """torch.nn.GLU(dim=-1): libdl's DlGlu."""
    __module__ = OVERRIDE_MODULE
    _properties = ('dim',)

    def __init__(self, dim=-1):
        _construct(self, Dl.Glu, dim=int(dim))

    def extra_repr(self):
        return 'dim={}'.format(self.dim)


@typelib_override(__name__)
class Softmin(_Layer, Dl.Softmin, Module):
    """torch.nn.Softmin(dim): libdl's DlSoftmin."""
    __module__ = OVERRIDE_MODULE
    _properties = ('dim',)

    def __init__(self, dim=None):
        _construct(self, Dl.Softmin, dim=_softmax_dim('Softmin', dim))
        if dim is None:
            self.__dict__['dim'] = None

    def forward(self, input):
        return _implicit_softmax(self, input, 'softmin')

    def extra_repr(self):
        return 'dim={dim}'.format(dim=self.dim)


@typelib_override(__name__)
class Softmax2d(_Layer, Dl.Softmax2d, Module):
    """torch.nn.Softmax2d(): libdl's DlSoftmax2d."""
    __module__ = OVERRIDE_MODULE

    def __init__(self):
        _construct(self, Dl.Softmax2d)

    def forward(self, input):
        assert input.dim() == 4 or input.dim() == 3, \
            'Softmax2d: expected input to be 3D or 4D, got {}D instead'.format(input.dim())
        return Module.forward(self, input)
