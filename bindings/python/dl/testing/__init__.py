# dl.testing (torch.testing): assert_close, make_tensor and the deprecated
# assert_allclose, with torch 1.13's signatures, default tolerances,
# exception types and messages (checked side by side with python3-torch in
# tests/python/test_torch_misc.py).
#
# assert_close walks nested sequences and mappings in step, pairs up the
# leaves (None, bools, Python and numpy numbers, tensors and what
# as_tensor takes), checks every pair and raises the first failure. The
# mismatch report of two tensors is worked out in numpy over the float64
# (or int64) copies the comparison uses, which gives torch's figures: the
# greatest differences among the mismatched elements, a NaN counting as
# the greatest, at the first index where it occurs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import cmath
import collections.abc
import math
import warnings

import numpy as _np

from .._dtype import (bfloat16, float16, float32, float64, int32, int64, uint8)
from .._dtype import _BOOL
from .._lib import _is_tensor

__all__ = ['assert_close', 'make_tensor', 'assert_allclose', 'rand', 'randn']

# (rtol, atol) of each dtype; other dtypes compare exactly
_TOLERANCES = {float16: (0.001, 1e-5), bfloat16: (0.016, 1e-5), float32: (1.3e-6, 1e-5),
               float64: (1e-7, 1e-7)}
# the dtypes Python numbers stand for
_NUMBER_DTYPES = {int: int64, float: float64, complex: 'complex128'}
_COMPLEX128_TOLERANCES = (1e-7, 1e-7)


class _Failure(Exception):
    """A failed check: the exception class to raise, its message and where
    in the nested inputs it happened."""

    def __init__(self, kind, message, where=()):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.where = where

    def error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.where:
            text += '\n\nThe failure occurred for item ' + ''.join(str([k]) for k in self.where)
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """A kind of pair that does not take the inputs."""


def _tolerances(dtypes, rtol, atol, where):
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                       "but got no %s." % ('rtol' if rtol is None else 'atol'), where)
    if rtol is not None:
        return rtol, atol
    pairs = [_COMPLEX128_TOLERANCES if d == 'complex128' else _TOLERANCES.get(d, (0.0, 0.0))
             for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_line(kind, diff, index, tol, exact):
    if index is None:
        line = '%s difference: %s' % (kind.title(), diff)
    else:
        line = 'Greatest %s difference: %s at index %s' % (kind, diff, index)
    if not exact:
        line += ' (up to %s allowed)' % tol
    return line + '\n'


def _mismatch(default_identifier, identifier, extra, abs_diff, abs_index, atol, rel_diff,
              rel_index, rtol):
    exact = rtol == 0 and atol == 0
    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    text = '%s are not %s!\n\n' % (identifier, 'equal' if exact else 'close')
    if extra:
        text += extra.strip() + '\n'
    text += _diff_line('absolute', abs_diff, abs_index, atol, exact)
    text += _diff_line('relative', rel_diff, rel_index, rtol, exact)
    return text.strip()


def _scalar_mismatch(actual, expected, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float('inf') if expected == 0 else abs_diff / abs(expected)
    return _mismatch('Scalars', identifier, None, abs_diff, None, atol, rel_diff, None, rtol)


def _greatest(values):
    """(value, flat index) of the greatest element, a NaN being the
    greatest, the first occurrence winning, as torch.max(t, 0)."""
    nan = _np.isnan(values) if values.dtype.kind == 'f' else None
    i = int(_np.argmax(nan)) if nan is not None and nan.any() else int(_np.argmax(values))
    return values[i].item(), i


def _tensor_mismatch(actual, expected, mismatches, rtol, atol, identifier=None):
    shape = mismatches.shape

    def unravel(flat):
        return tuple(int(i) for i in _np.unravel_index(flat, shape)) if shape else ()

    total = mismatches.size
    count = int(mismatches.sum())
    extra = 'Mismatched elements: %d / %d (%s)' % (count, total, format(count / total, '.1%'))
    a = actual.reshape(-1)
    b = expected.reshape(-1)
    matches = ~mismatches.reshape(-1)
    with _np.errstate(all='ignore'):
        abs_diff = _np.abs(a - b)
        abs_diff[matches] = 0
        if abs_diff.dtype.kind == 'f':
            rel_diff = abs_diff / _np.abs(b)
        else:
            # an integer division gives the default dtype, float32, in torch
            rel_diff = abs_diff.astype(_np.float32) / _np.abs(b).astype(_np.float32)
    rel_diff[matches] = 0
    abs_value, abs_index = _greatest(abs_diff)
    rel_value, rel_index = _greatest(rel_diff)
    return _mismatch('Tensor-likes', identifier, extra, abs_value, unravel(abs_index), atol,
                     rel_value, unravel(rel_index), rtol)


# ---- the pairs -------------------------------------------------------------

def _none_pair(actual, expected, where, options):
    if not (actual is None or expected is None):
        raise _Unsupported

    def check():
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, 'None mismatch: %s is not %s' % (actual, expected),
                           where)
    return check


def _bool_pair(actual, expected, where, options):
    kinds = (bool, _np.bool_)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)

    def check():
        if actual is not expected:
            raise _Failure(AssertionError, 'Booleans mismatch: %s is not %s'
                           % (actual, expected), where)
    return check


def _number_pair(actual, expected, where, options):
    kinds = (int, float, complex, _np.number)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    actual, expected = [v.item() if isinstance(v, _np.number) else v for v in (actual, expected)]
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(v)] for v in (actual, expected)],
                             options['rtol'], options['atol'], where)

    def check():
        if options['check_dtype'] and type(actual) is not type(expected):
            raise _Failure(AssertionError, 'The (d)types do not match: %s != %s.'
                           % (type(actual), type(expected)), where)
        if actual == expected:
            return
        if options['equal_nan'] and cmath.isnan(actual) and cmath.isnan(expected):
            return
        diff = abs(actual - expected)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_mismatch(actual, expected, rtol, atol), where)
    return check


def _as_tensor(value):
    if _is_tensor(value):
        return value
    from .._creation import as_tensor
    try:
        return as_tensor(value)
    except Exception:
        raise _Unsupported from None


def _tensor_pair(actual, expected, where, options):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not options['allow_subclasses'] and type(actual) is not type(expected):
        raise _Unsupported
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    rtol, atol = _tolerances([actual.dtype, expected.dtype], options['rtol'], options['atol'],
                             where)

    def attribute(name, a, b):
        raise _Failure(AssertionError, "The values for attribute '%s' do not match: %s != %s."
                       % (name, a, b), where)

    def check():
        a, b = actual, expected
        if a.shape != b.shape:
            attribute('shape', a.shape, b.shape)
        # libdl's tensors are all strided: the layouts always agree
        if options['check_stride'] and a.stride() != b.stride():
            attribute('stride()', a.stride(), b.stride())
        if options['check_device'] and a.device != b.device:
            attribute('device', a.device, b.device)
        if options['check_dtype'] and a.dtype != b.dtype:
            attribute('dtype', a.dtype, b.dtype)
        if a.is_meta or b.is_meta:
            return
        if a.device != b.device:
            a, b = a.cpu(), b.cpu()
        if a.dtype != b.dtype:
            from .._tensor_more import promote_types
            common = promote_types(a.dtype, b.dtype)
            a, b = a.to(common), b.to(common)
        wide = float64 if a.is_floating_point() else int64
        a, b = a.detach().to(wide), b.detach().to(wide)
        from .._math import isclose
        close = isclose(a, b, rtol=rtol, atol=atol, equal_nan=options['equal_nan'])
        if bool(close.all()):
            return
        if a.dim() == 0:
            text = _scalar_mismatch(a.item(), b.item(), rtol, atol)
        else:
            text = _tensor_mismatch(a.numpy(), b.numpy(), ~close.numpy(), rtol, atol)
        raise _Failure(AssertionError, text, where)
    return check


_PAIRS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _is_sequence(value):
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str)


def _originate(actual, expected, where, options):
    """The checks of the leaves of @actual and @expected, walked in step."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, 'The length of the sequences mismatch: %d != %d'
                           % (len(actual), len(expected)), where)
        checks = []
        for i in range(len(actual)):
            checks += _originate(actual[i], expected[i], where + (i,), options)
        return checks
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        a_keys, e_keys = set(actual.keys()), set(expected.keys())
        if a_keys != e_keys:
            raise _Failure(AssertionError, 'The keys of the mappings do not match:\n'
                           'Missing keys in the actual mapping: %s\n'
                           'Additional keys in the actual mapping: %s'
                           % (sorted(e_keys - a_keys), sorted(a_keys - e_keys)), where)
        keys = a_keys
        try:
            keys = sorted(keys)
        except Exception:
            pass
        checks = []
        for k in keys:
            checks += _originate(actual[k], expected[k], where + (k,), options)
        return checks
    for make in _PAIRS:
        try:
            return [make(actual, expected, where, options)]
        except (_Unsupported, _Failure) as e:
            if isinstance(e, _Failure):
                raise
            continue
        except Exception as e:
            raise RuntimeError(
                'Originating a %s() at item %s with\n\n%s(): %s\n\nand\n\n%s(): %s\n\nresulted '
                'in the unexpected exception above. If you are a user and see this message during '
                'normal operation please file an issue at '
                'https://github.com/pytorch/pytorch/issues. If you are a developer and working on '
                'the comparison functions, please except the previous error and raise an '
                'expressive `ErrorMeta` instead.'
                % (_PAIR_NAMES[make], ''.join(str([k]) for k in where), type(actual).__name__,
                   actual, type(expected).__name__, expected)) from e
    raise _Failure(TypeError, 'No comparison pair was able to handle inputs of type %s and %s.'
                   % (type(actual), type(expected)), where)


_PAIR_NAMES = {_none_pair: 'NonePair', _bool_pair: 'BooleanPair', _number_pair: 'NumberPair',
               _tensor_pair: 'TensorLikePair'}


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """torch.testing.assert_close: asserts that @actual and @expected
    (tensors, numbers, bools, None, or sequences and mappings of them) are
    close: |actual - expected| <= atol + rtol * |expected| elementwise, with
    the dtype's default tolerances when rtol and atol are omitted; raises
    AssertionError with torch's report otherwise. A str @msg replaces the
    report, a callable gets it and returns the message."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride)
    try:
        checks = _originate(actual, expected, (), options)
    except _Failure as failure:
        raise failure.error() from None
    for check in checks:
        try:
            check()
        except _Failure as failure:
            raise failure.error(msg) from None


# ---- make_tensor -----------------------------------------------------------

_INTEGRAL = (uint8, int32, int64)
_FLOATING = (float16, bfloat16, float32, float64)


def _low_high(low, high, lowest, highest, default_low, default_high, dtype):
    low = default_low if low is None else low
    high = default_high if high is None else high
    if low != low or high != high:
        raise ValueError('make_tensor: one of low or high was NaN!')
    if low > high:
        raise ValueError('make_tensor: low must be weakly less than high!')
    low = min(max(low, lowest), highest)
    high = min(max(high, lowest), highest)
    if dtype in _INTEGRAL:
        return math.floor(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False):
    """torch.testing.make_tensor: a tensor of @shape, @dtype and @device
    with values drawn uniformly from [low, high) (bools 0 or 1; by default
    [-9, 9) for floats, [-9, 10) for integers, [0, 10) for uint8), strided
    every other element with noncontiguous, zeros replaced by 1 or the
    dtype's tiny with exclude_zero."""
    from .._creation import randint, rand, tensor
    from .._typeinfo import finfo, iinfo
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if requires_grad and dtype not in _FLOATING:
        raise ValueError('make_tensor: requires_grad must be False for integral dtype')
    if dtype is _BOOL:
        result = randint(0, 2, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        low, high = _low_high(low, high, info.min, info.max, 0 if dtype == uint8 else -9, 10,
                              dtype)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        info = finfo(dtype)
        low, high = _low_high(low, high, info.min, info.max, -9, 9, dtype)
        u = rand(shape, device=device, dtype=dtype)
        result = high * u + low * (1 - u)
    else:
        raise TypeError("The requested dtype '%s' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues" % (dtype,))
    if noncontiguous and result.numel() > 1:
        result = result.repeat_interleave(2, dim=-1)[..., ::2]
    if exclude_zero:
        one = 1 if dtype is _BOOL or dtype in _INTEGRAL else finfo(dtype).tiny
        result[result == 0] = tensor(one, device=device, dtype=dtype)
    if dtype in _FLOATING:
        result.requires_grad = requires_grad
    return result


# ---- deprecated ----------------------------------------------------------

_DEPRECATED = ('torch.testing.%s() is deprecated since 1.12 and will be removed in 1.14. ')
_OLD_TOLERANCES = {float16: (1e-3, 1e-3), float32: (1e-4, 1e-5), float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=''):
    """torch.testing.assert_allclose (deprecated since 1.12): assert_close
    with the older default tolerances, NaNs equal, dtypes not checked;
    warns FutureWarning after a passing comparison, as torch does."""
    from .._creation import tensor
    if not _is_tensor(actual):
        actual = tensor(actual)
    if not _is_tensor(expected):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        a = _OLD_TOLERANCES.get(actual.dtype, (0.0, 0.0))
        e = _OLD_TOLERANCES.get(expected.dtype, (0.0, 0.0))
        rtol, atol = max(a[0], e[0]), max(a[1], e[1])
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
    warnings.warn((_DEPRECATED % 'assert_allclose') + 'Use torch.testing.assert_close() '
                  'instead. For detailed upgrade instructions see '
                  'https://github.com/pytorch/pytorch/issues/61844.', FutureWarning)


def rand(*args, **kwargs):
    """torch.testing.rand (deprecated): torch.rand, with a FutureWarning."""
    from .._creation import rand as _rand
    out = _rand(*args, **kwargs)
    warnings.warn((_DEPRECATED % 'rand') + 'Use torch.rand() instead.', FutureWarning)
    return out


def randn(*args, **kwargs):
    """torch.testing.randn (deprecated): torch.randn, with a FutureWarning."""
    from .._creation import randn as _randn
    out = _randn(*args, **kwargs)
    warnings.warn((_DEPRECATED % 'randn') + 'Use torch.randn() instead.', FutureWarning)
    return out
