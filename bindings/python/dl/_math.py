# _math.py: the pointwise math library (libdl/ops/dl-ops-math*.c): binary
# math with Python numbers, pow, clamp, lerp, rounding, and the factories
# for the Tensor methods and operators over them (see _tensor.py).
#
# Python numbers go to the C tensor functions as wrapped numbers, which
# take part in type promotion as PyTorch's Python scalars do.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numbers

import numpy as _np

from ._creation import tensor
from ._lib import Dl, _int64_value, _is_tensor


def _math_operand(x):
    """A tensor for an operand: tensors as they are, Python numbers as
    wrapped 0-d tensors, arrays and lists as new tensors; None otherwise."""
    if _is_tensor(x):
        return x
    if isinstance(x, _np.generic) and x.ndim == 0:
        x = x.item()
    if isinstance(x, bool):
        return Dl.Tensor.new_wrapped_scalar(1.0 if x else 0.0, Dl.DType.BOOL)
    if isinstance(x, numbers.Integral):
        return Dl.Tensor.new_wrapped_scalar(_int64_value(x), Dl.DType.INT64)
    if isinstance(x, numbers.Real):
        return Dl.Tensor.new_wrapped_scalar(float(x), Dl.DType.FLOAT64)
    if isinstance(x, (_np.ndarray, list, tuple)):
        return tensor(x)
    return None


def _math_arg(x, fname, argname):
    o = _math_operand(x)
    if o is None:
        raise TypeError("%s(): argument '%s' must be Tensor or Number, not %s"
                        % (fname, argname, type(x).__name__))
    return o


def _math_binary_method(cfn, name):
    def method(self, other):
        return cfn(self, _math_arg(other, name, 'other'))
    method.__name__ = name
    return method


def _math_operator(cfn, name, reflected=False):
    def op(self, other):
        o = _math_operand(other)
        if o is None:
            return NotImplemented
        return cfn(o, self) if reflected else cfn(self, o)
    op.__name__ = name
    return op


def _math_binary_fn(cfn, name):
    def fn(input, other):
        return cfn(_math_arg(input, name, 'input'), _math_arg(other, name, 'other'))
    fn.__name__ = name
    return fn


def _math_inplace(cfn, name, operator=False):
    def op(self, other):
        o = _math_operand(other)
        if o is None:
            if operator:
                return NotImplemented
            raise TypeError("%s(): argument 'other' must be Tensor or Number, not %s"
                            % (name, type(other).__name__))
        cfn(self, o)
        return self
    op.__name__ = name
    return op


def _into_out(result, out, name):
    """result, or result written into out (out=), which must have its
    shape; its dtype may differ, as torch's out= casts."""
    if out is None:
        return result
    if not _is_tensor(out):
        raise TypeError("%s(): argument 'out' must be Tensor, not %s" % (name, type(out).__name__))
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError('%s: out= has shape %s, but the result has shape %s (libdl does not '
                           'resize out)' % (name, list(out.shape), list(result.shape)))
    Dl.Tensor.copy_(out, result)
    return out


def _comparison_fn(cfn, name):
    """torch.eq and its kin: tensor and tensor or number, with out=."""
    def fn(input, other, *, out=None):
        if not _is_tensor(input):
            raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s"
                            % (name, type(input).__name__))
        return _into_out(cfn(input, _math_arg(other, name, 'other')), out, name)
    fn.__name__ = name
    return fn


eq = _comparison_fn(Dl.Tensor.eq, 'eq')
ne = not_equal = _comparison_fn(Dl.Tensor.ne, 'ne')
lt = less = _comparison_fn(Dl.Tensor.lt, 'lt')
le = less_equal = _comparison_fn(Dl.Tensor.le, 'le')
gt = greater = _comparison_fn(Dl.Tensor.gt, 'gt')
ge = greater_equal = _comparison_fn(Dl.Tensor.ge, 'ge')


def _tensor_arg(x, fname, argname, position):
    if not _is_tensor(x):
        raise TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s"
                        % (fname, argname, position, type(x).__name__))
    return x


def _isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return Dl.Tensor.isclose(_tensor_arg(self, 'isclose', 'input', 1),
                             _tensor_arg(other, 'isclose', 'other', 2), float(rtol), float(atol),
                             bool(equal_nan))


def _allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return Dl.Tensor.allclose(_tensor_arg(self, 'allclose', 'input', 1),
                              _tensor_arg(other, 'allclose', 'other', 2), float(rtol),
                              float(atol), bool(equal_nan))


def _equal(self, other):
    return Dl.Tensor.equal(_tensor_arg(self, 'equal', 'input', 1),
                           _tensor_arg(other, 'equal', 'other', 2))


isclose = _isclose
allclose = _allclose
equal = _equal


_ROUNDING_MODES = {'trunc': Dl.RoundingMode.TRUNC, 'floor': Dl.RoundingMode.FLOOR}


def _rounding_mode(mode):
    try:
        return _ROUNDING_MODES[mode]
    except (KeyError, TypeError):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           "found '%s'" % (mode,)) from None


def _div(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return self / other
    return Dl.Tensor.div_mode(self, _math_arg(other, 'div', 'other'),
                              _rounding_mode(rounding_mode))


def _div_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return self.__itruediv__(other)
    Dl.Tensor.div_mode_(self, _math_arg(other, 'div_', 'other'), _rounding_mode(rounding_mode))
    return self


floor_divide = _math_binary_fn(Dl.Tensor.floor_divide, 'floor_divide')
remainder = _math_binary_fn(Dl.Tensor.remainder, 'remainder')
atan2 = _math_binary_fn(Dl.Tensor.atan2, 'atan2')
bitwise_and = _math_binary_fn(Dl.Tensor.bitwise_and, 'bitwise_and')
bitwise_or = _math_binary_fn(Dl.Tensor.bitwise_or, 'bitwise_or')
bitwise_xor = _math_binary_fn(Dl.Tensor.bitwise_xor, 'bitwise_xor')
logical_and = _math_binary_fn(Dl.Tensor.logical_and, 'logical_and')
logical_or = _math_binary_fn(Dl.Tensor.logical_or, 'logical_or')
logical_xor = _math_binary_fn(Dl.Tensor.logical_xor, 'logical_xor')
arctan2 = _math_binary_fn(Dl.Tensor.atan2, 'arctan2')


def _tensor_pow(self, exponent):
    return Dl.Tensor.pow(self, _math_arg(exponent, 'pow', 'exponent'))


def _rpow(self, other):
    """number ** tensor as torch 1.13's Tensor.__rpow__ computes it: the
    number as a 0-d tensor of the result type, to the power self (so the
    node is the Tensor-Tensor pow's, PowBackward1)."""
    if isinstance(other, _np.generic) and other.ndim == 0:
        other = other.item()
    if not isinstance(other, numbers.Real):
        o = _math_operand(other)
        return NotImplemented if o is None else Dl.Tensor.pow(o, self)
    dt = self.get_dtype()
    if not Dl.dtype_is_floating_point(dt) and not isinstance(other, numbers.Integral):
        dt = Dl.get_default_dtype()
    elif dt == Dl.DType.BOOL and not isinstance(other, bool):
        dt = Dl.DType.INT64
    base = Dl.Tensor.new_scalar(float(other), dt)
    if self.get_device().get_name() != 'cpu':
        base = base.to_device(self.get_device())
    return Dl.Tensor.pow(base, self)


def _invert(self):
    if self.dtype.is_floating_point:
        raise TypeError('~ (operator.invert) is only implemented on integer and Boolean-type '
                        'tensors')
    return Dl.Tensor.bitwise_not(self)


def _pow(input, exponent):
    """torch.pow (exported as pow; named apart from the builtin)."""
    if not _is_tensor(input) and _is_tensor(exponent):
        return Dl.Tensor.pow(_math_arg(input, 'pow', 'self'), exponent)
    return _tensor_pow(_math_arg(input, 'pow', 'input'), exponent)


def _clamp_bound(x, argname):
    return None if x is None else _math_arg(x, 'clamp', argname)


def _clamp(self, min=None, max=None):
    return Dl.Tensor.clamp(self, _clamp_bound(min, 'min'), _clamp_bound(max, 'max'))


def _clamp_(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    Dl.Tensor.clamp_(self, _clamp_bound(min, 'min'), _clamp_bound(max, 'max'))
    return self


def _clamp_min(self, min):
    return Dl.Tensor.clamp_min(self, _clamp_bound(min, 'min'))


def _clamp_max(self, max):
    return Dl.Tensor.clamp_max(self, _clamp_bound(max, 'max'))


def _relu_(self):
    Dl.Tensor.relu_(self)
    return self


def clamp(input, min=None, max=None):
    return _clamp(input, min, max)


def clamp_(input, min=None, max=None):
    return _clamp_(input, min, max)


clip = clamp
relu_ = _relu_


def _lerp(self, end, weight):
    if _is_tensor(weight):
        return Dl.Tensor.lerp(self, end, weight)
    if not isinstance(weight, numbers.Real):
        raise TypeError("lerp(): argument 'weight' must be Tensor or Number, not %s"
                        % type(weight).__name__)
    return Dl.Tensor.lerp_scalar(self, end, float(weight))


def lerp(input, end, weight):
    return _lerp(input, end, weight)


def _nan_to_num(self, nan=0.0, posinf=None, neginf=None):
    return Dl.Tensor.nan_to_num(self, float(nan),
                                float('nan') if posinf is None else float(posinf),
                                float('nan') if neginf is None else float(neginf))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return _nan_to_num(input, nan, posinf, neginf)


def _logit_eps(eps, name):
    """logit's eps for libdl: a number, or -1 (no clamp) for None"""
    if eps is None:
        return -1.0
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise TypeError("%s(): argument 'eps' must be float, not %s" % (name, type(eps).__name__))
    return float(eps)


def _logit(self, eps=None):
    return Dl.Tensor.logit(self, _logit_eps(eps, 'logit'))


def _logit_(self, eps=None):
    return Dl.Tensor.logit_(self, _logit_eps(eps, 'logit_'))


def logit(input, eps=None):
    return _logit(input, eps)


def _round(self, decimals=0):
    if decimals == 0:
        return Dl.Tensor.round(self)
    scale = 10.0 ** decimals
    return Dl.Tensor.round(self * scale) / scale


def _round_fn(input, decimals=0):
    """torch.round (exported as round; named apart from the builtin)."""
    return _round(input, decimals)


# -- the binary ops of torch 1.13 that take a Tensor only as their second
# operand (hypot, fmax, gcd, ...): a number there is a TypeError, as torch's
# argument parser raises --

def _tensor_arg(x, fname, argname, position):
    if not _is_tensor(x):
        raise TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s"
                        % (fname, argname, position, type(x).__name__))
    return x


def _tensor_binary_method(cfn, name, argname='other'):
    def method(self, other):
        return cfn(self, _tensor_arg(other, name, argname, 1))
    method.__name__ = name
    return method


def _tensor_binary_fn(cfn, name, argname='other'):
    def fn(input, other):
        return cfn(_tensor_arg(input, name, 'input', 1), _tensor_arg(other, name, argname, 2))
    fn.__name__ = name
    return fn


def _tensor_inplace(cfn, name, argname='other'):
    def op(self, other):
        cfn(self, _tensor_arg(other, name, argname, 1))
        return self
    op.__name__ = name
    return op


def _tensor_first_fn(cfn, name):
    """torch.name(input, other) with input a Tensor and other a Tensor or a
    number (fmod, copysign)."""
    def fn(input, other):
        return cfn(_tensor_arg(input, name, 'input', 1), _math_arg(other, name, 'other'))
    fn.__name__ = name
    return fn


fmod = _tensor_first_fn(Dl.Tensor.fmod, 'fmod')
copysign = _tensor_first_fn(Dl.Tensor.copysign, 'copysign')
xlogy = _math_binary_fn(Dl.Tensor.xlogy, 'xlogy')
bitwise_left_shift = _math_binary_fn(Dl.Tensor.bitwise_left_shift, 'bitwise_left_shift')
bitwise_right_shift = _math_binary_fn(Dl.Tensor.bitwise_right_shift, 'bitwise_right_shift')
float_power = _math_binary_fn(Dl.Tensor.float_power, 'float_power')
hypot = _tensor_binary_fn(Dl.Tensor.hypot, 'hypot')
fmax = _tensor_binary_fn(Dl.Tensor.fmax, 'fmax')
fmin = _tensor_binary_fn(Dl.Tensor.fmin, 'fmin')
heaviside = _tensor_binary_fn(Dl.Tensor.heaviside, 'heaviside', 'values')
gcd = _tensor_binary_fn(Dl.Tensor.gcd, 'gcd')
lcm = _tensor_binary_fn(Dl.Tensor.lcm, 'lcm')
nextafter = _tensor_binary_fn(Dl.Tensor.nextafter, 'nextafter')
logaddexp = _tensor_binary_fn(Dl.Tensor.logaddexp, 'logaddexp')
logaddexp2 = _tensor_binary_fn(Dl.Tensor.logaddexp2, 'logaddexp2')
ldexp = _tensor_binary_fn(Dl.Tensor.ldexp, 'ldexp')


# -- addcmul and addcdiv --

def _addc_value(value, name):
    if _is_tensor(value):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        raise TypeError("%s(): argument 'value' must be Number, not %s"
                        % (name, type(value).__name__))
    return float(value)


def _addc_args(name, args, value):
    """(tensor1, tensor2, value) from torch's forms: (tensor1, tensor2,
    *, value=1) and the deprecated (value, tensor1, tensor2)."""
    if len(args) == 3 and not _is_tensor(args[0]):
        value, args = args[0], args[1:]
    if len(args) != 2:
        raise TypeError('%s() takes 2 tensors (tensor1, tensor2) but %d arguments were given'
                        % (name, len(args)))
    t1 = _tensor_arg(args[0], name, 'tensor1', 1)
    t2 = _tensor_arg(args[1], name, 'tensor2', 2)
    return t1, t2, _addc_value(value, name)


def _addc_method(cfn, name, inplace=False):
    def method(self, *args, value=1):
        t1, t2, v = _addc_args(name, args, value)
        r = cfn(self, t1, t2, v)
        return self if inplace else r
    method.__name__ = name
    return method


def _addc_fn(cfn, name):
    def fn(input, *args, value=1, out=None):
        t1, t2, v = _addc_args(name, args, value)
        return _into_out(cfn(_tensor_arg(input, name, 'input', 0), t1, t2, v), out, name)
    fn.__name__ = name
    return fn


addcmul = _addc_fn(Dl.Tensor.addcmul, 'addcmul')
addcdiv = _addc_fn(Dl.Tensor.addcdiv, 'addcdiv')


def _float_power_(self, exponent):
    Dl.Tensor.float_power_(self, _math_arg(exponent, 'float_power_', 'exponent'))
    return self
