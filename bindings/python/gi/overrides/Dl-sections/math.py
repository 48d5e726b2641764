# math.py: part of the Dl override (bindings/python/gi/overrides/Dl.py),
# executed in that module's namespace after it; see _include there.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

# ---- math (issue 3) ----------------------------------------------------------
# The pointwise math library (libdl/ops/dl-ops-math.c): Python numbers go to
# the C tensor functions as wrapped numbers, which take part in type promotion
# as PyTorch's Python scalars do.

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
        return Dl.Tensor.new_wrapped_scalar(float(x), Dl.DType.INT64)
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


for _name in ('floor_divide', 'remainder', 'atan2', 'bitwise_and', 'bitwise_or',
              'bitwise_xor', 'logical_and', 'logical_or', 'logical_xor'):
    setattr(Tensor, _name, _math_binary_method(getattr(Dl.Tensor, _name), _name))
    _export(_math_binary_fn(getattr(Dl.Tensor, _name), _name))
Tensor.arctan2 = Tensor.atan2
_export(_math_binary_fn(Dl.Tensor.atan2, 'arctan2'))


def _tensor_pow(self, exponent):
    return Dl.Tensor.pow(self, _math_arg(exponent, 'pow', 'exponent'))


Tensor.pow = _tensor_pow
Tensor.__pow__ = _math_operator(Dl.Tensor.pow, '__pow__')
Tensor.__rpow__ = _math_operator(Dl.Tensor.pow, '__rpow__', reflected=True)
Tensor.__floordiv__ = _math_operator(Dl.Tensor.floor_divide, '__floordiv__')
Tensor.__rfloordiv__ = _math_operator(Dl.Tensor.floor_divide, '__rfloordiv__', reflected=True)
Tensor.__mod__ = _math_operator(Dl.Tensor.remainder, '__mod__')
Tensor.__rmod__ = _math_operator(Dl.Tensor.remainder, '__rmod__', reflected=True)
Tensor.__and__ = _math_operator(Dl.Tensor.bitwise_and, '__and__')
Tensor.__rand__ = _math_operator(Dl.Tensor.bitwise_and, '__rand__', reflected=True)
Tensor.__or__ = _math_operator(Dl.Tensor.bitwise_or, '__or__')
Tensor.__ror__ = _math_operator(Dl.Tensor.bitwise_or, '__ror__', reflected=True)
Tensor.__xor__ = _math_operator(Dl.Tensor.bitwise_xor, '__xor__')
Tensor.__rxor__ = _math_operator(Dl.Tensor.bitwise_xor, '__rxor__', reflected=True)


def _invert(self):
    if self.dtype.is_floating_point:
        raise TypeError('~ (operator.invert) is only implemented on integer and Boolean-type '
                        'tensors')
    return Dl.Tensor.bitwise_not(self)


Tensor.__invert__ = _invert


def _pow(input, exponent):
    if not _is_tensor(input) and _is_tensor(exponent):
        return Dl.Tensor.pow(_math_arg(input, 'pow', 'self'), exponent)
    return _tensor_pow(_math_arg(input, 'pow', 'input'), exponent)


# named apart from the builtin pow, which this module must keep
_export(_pow, 'pow')


def _clamp_bound(x, argname):
    return None if x is None else _math_arg(x, 'clamp', argname)


def _clamp(self, min=None, max=None):
    return Dl.Tensor.clamp(self, _clamp_bound(min, 'min'), _clamp_bound(max, 'max'))


def _clamp_(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    Dl.Tensor.clamp_(self, _clamp_bound(min, 'min'), _clamp_bound(max, 'max'))
    return self


def _relu_(self):
    Dl.Tensor.relu_(self)
    return self


Tensor.clamp = Tensor.clip = _clamp
Tensor.clamp_ = Tensor.clip_ = _clamp_
Tensor.relu_ = _relu_
Tensor.clamp_min = lambda self, min: _clamp(self, min=min)
Tensor.clamp_max = lambda self, max: _clamp(self, max=max)


@_export
def clamp(input, min=None, max=None):
    return _clamp(input, min, max)


@_export
def clamp_(input, min=None, max=None):
    return _clamp_(input, min, max)


_export(clamp, 'clip')
_export(_relu_, 'relu_')


def _lerp(self, end, weight):
    if _is_tensor(weight):
        return Dl.Tensor.lerp(self, end, weight)
    if not isinstance(weight, numbers.Real):
        raise TypeError("lerp(): argument 'weight' must be Tensor or Number, not %s"
                        % type(weight).__name__)
    return Dl.Tensor.lerp_scalar(self, end, float(weight))


Tensor.lerp = _lerp


@_export
def lerp(input, end, weight):
    return _lerp(input, end, weight)


def _nan_to_num(self, nan=0.0, posinf=None, neginf=None):
    return Dl.Tensor.nan_to_num(self, float(nan),
                                float('nan') if posinf is None else float(posinf),
                                float('nan') if neginf is None else float(neginf))


Tensor.nan_to_num = _nan_to_num


@_export
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return _nan_to_num(input, nan, posinf, neginf)


def _round(self, decimals=0):
    if decimals == 0:
        return Dl.Tensor.round(self)
    scale = 10.0 ** decimals
    return Dl.Tensor.round(self * scale) / scale


Tensor.round = _round


def _round_fn(input, decimals=0):
    return _round(input, decimals)


_export(_round_fn, 'round')


def _gelu(input, approximate='none'):
    if approximate == 'none':
        return Dl.Tensor.gelu(input)
    if approximate == 'tanh':
        return Dl.Tensor.gelu_tanh(input)
    raise RuntimeError("approximate argument must be either none or tanh.")


def _silu(input, inplace=False):
    if inplace:
        out = Dl.Tensor.silu(input)
        input.copy_(out)
        return input
    return Dl.Tensor.silu(input)


functional.gelu = _gelu
functional.silu = _silu

Tensor.absolute = Tensor.abs
Tensor.fix = Tensor.trunc
for _name in ('expm1', 'log1p', 'log2', 'rsqrt', 'sin', 'cos', 'tan', 'sign', 'floor', 'ceil',
              'trunc', 'frac', 'reciprocal', 'erf', 'isnan', 'isinf', 'isfinite', 'logical_not',
              'bitwise_not', 'fix'):
    _export(_unary_fn(_name))


def _make_math_modules():
    class GELU(Module):
        def __init__(self, approximate='none'):
            super().__init__()
            self.approximate = approximate

        def forward(self, input):
            return _gelu(input, self.approximate)

    class SiLU(Module):
        def __init__(self, inplace=False):
            super().__init__()

        def forward(self, input):
            return Dl.Tensor.silu(input)

    for cls in (GELU, SiLU):
        cls.__qualname__ = cls.__name__
        cls.__module__ = 'Dl.nn'
    return GELU, SiLU


nn.GELU, nn.SiLU = _make_math_modules()


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


for _name in ('pow_', 'floor_divide_', 'remainder_', 'bitwise_and_', 'bitwise_or_',
              'bitwise_xor_'):
    setattr(Tensor, _name, _math_inplace(getattr(Dl.Tensor, _name), _name))
Tensor.__ipow__ = _math_inplace(Dl.Tensor.pow_, '__ipow__', True)
Tensor.__ifloordiv__ = _math_inplace(Dl.Tensor.floor_divide_, '__ifloordiv__', True)
Tensor.__imod__ = _math_inplace(Dl.Tensor.remainder_, '__imod__', True)
Tensor.__iand__ = _math_inplace(Dl.Tensor.bitwise_and_, '__iand__', True)
Tensor.__ior__ = _math_inplace(Dl.Tensor.bitwise_or_, '__ior__', True)
Tensor.__ixor__ = _math_inplace(Dl.Tensor.bitwise_xor_, '__ixor__', True)
