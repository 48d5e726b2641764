# _lib.py: what every module of the package shares: the Dl typelib without
# the overrides, PyTorch's exception classes for libdl's errors, and the
# bookkeeping for the classes that override typelib classes.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools
import numbers
import threading
import types

import gi

gi.require_version('Dl', '1.0')

from gi.module import get_introspection_module  # noqa: E402
from gi.repository import GLib  # noqa: E402

# The typelib module itself, not gi.repository.Dl (which is the override's
# proxy, and which this package is part of).
Dl = get_introspection_module('Dl')
# Load libdl (and so the OpenBLAS build it links, the OpenMP one) before
# numpy brings in the system's default OpenBLAS; see meson.build.
Dl.Tensor.__gtype__  # noqa: B018


# ---- classes that override typelib classes ------------------------------
# A Python subclass of a GObject class normally registers a GType of its
# own; PyGObject skips that only for classes of its override modules, which
# it recognises by their __module__. So a class that overrides a typelib
# class (Tensor over DlTensor, Module over DlModule, ...) says in its body
#
#     __module__ = OVERRIDE_MODULE
#
# and is decorated with @typelib_override(__name__), which gives it back
# its real module (pickle finds classes by __module__ and __qualname__)
# and records it; gi/overrides/Dl.py hands each recorded class to
# PyGObject's override(), which makes it the class of every wrapper of
# that GType.

OVERRIDE_MODULE = 'gi.overrides.Dl'
OVERRIDES = []


def typelib_override(module):
    def register(cls):
        assert cls.__module__ == OVERRIDE_MODULE, cls
        cls.__module__ = module
        OVERRIDES.append(cls)
        return cls
    return register


# ---- errors -------------------------------------------------------------

_ERROR_DOMAIN = 'dl-error-quark'


_glib_error_str = GLib.Error.__str__


def _error_str(self):
    """libdl's errors print as PyTorch's do: just the message, which names
    the op. Errors of other domains keep PyGObject's format."""
    if getattr(self, 'domain', None) == _ERROR_DOMAIN:
        return self.message
    return _glib_error_str(self)


GLib.Error.__str__ = _error_str


_python_errors = threading.local()


def stash_python_error(exc, message):
    """Keeps @exc, a Python exception raised in Python code that C called
    (an autograd Function's forward or backward), which goes on through C
    as a DL_ERROR with @message: _translate gives @exc back for it."""
    _python_errors.pending = (message, exc)


def _translate(e):
    """The exception PyTorch raises for a DL_ERROR: the Python exception
    that caused it, if Python code that C called raised one; IndexError for
    indices and dims out of range; the GLib.Error (a RuntimeError)
    otherwise."""
    pending = getattr(_python_errors, 'pending', None)
    if pending is not None and isinstance(e, GLib.Error) and pending[0] in e.message:
        _python_errors.pending = None
        return pending[1]
    if isinstance(e, GLib.Error) and e.domain == _ERROR_DOMAIN and e.code == int(Dl.Error.INDEX):
        return IndexError(e.message)
    return e


def _checked(fn):
    """Wraps a method so that DL_ERROR_INDEX surfaces as IndexError. A
    typelib function's wrapper takes its name but not its __doc__, which
    PyGObject builds anew on every read (about 50 us): wrap once, not at
    every call, where the wrapper is used often."""
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GLib.Error as e:
            raise _translate(e) from None
    if isinstance(fn, types.FunctionType):
        return functools.wraps(fn)(wrapper)
    wrapper.__name__ = wrapper.__qualname__ = getattr(fn, '__name__', 'wrapper')
    wrapper.__wrapped__ = fn
    return wrapper


_DOUBLE_MAX = 1.7976931348623157e308


def check_property_ranges(typelib_class, properties, name=None):
    """Raises ValueError for a number in @properties (construct properties
    of @typelib_class; @name is the class users know) out of its
    GParamSpec's range, a NaN included: GObject would print a warning and
    keep the default value."""
    for key, value in properties.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        spec = typelib_class.find_property(key.replace('_', '-'))
        lo, hi = getattr(spec, 'minimum', None), getattr(spec, 'maximum', None)
        if lo is None or hi is None or lo <= value <= hi:
            continue
        if isinstance(value, float) and lo <= -_DOUBLE_MAX and hi >= _DOUBLE_MAX:
            what = 'a finite number'
        else:
            what = 'in [%s, %s]' % (lo, hi)
        raise ValueError('%s: %s must be %s, got %r'
                         % (name or typelib_class.__name__, key, what, value))


def _is_tensor(x):
    return isinstance(x, Dl.Tensor)


_INT_DTYPES = (Dl.DType.INT32, Dl.DType.INT64, Dl.DType.UINT8)


def _type_name(value):
    """The name torch's argument errors give @value's type: 'float',
    'numpy.bool_'."""
    cls = type(value)
    return cls.__name__ if cls.__module__ == 'builtins' else '%s.%s' % (cls.__module__,
                                                                         cls.__name__)


def _int_arg(value, fname, argname):
    """int(value) for an argument torch declares int: Python and numpy
    ints and 0-d integer tensors; torch's TypeError for a bool, a float, a
    string or anything else (int() would truncate 1.5 and parse '1')."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, Dl.Tensor) and value.get_ndim() == 0 and \
            value.get_dtype() in _INT_DTYPES:
        return int(value.item())
    raise TypeError("%s(): argument '%s' must be int, not %s"
                    % (fname, argname, _type_name(value)))


def _int64_value(value):
    """float(value) for a Python int that fits int64, as torch unpacks a
    scalar argument; torch's RuntimeError for a larger one."""
    if not -0x8000000000000000 <= value <= 0x7fffffffffffffff:
        raise RuntimeError('Overflow when unpacking long')
    return float(value)


def _bool_arg(value, fname, argname):
    """value when it is a Python bool, else torch's TypeError: its argument
    parser takes neither ints nor numpy bools where a bool is declared."""
    if value is not True and value is not False:
        raise TypeError("%s(): argument '%s' must be bool, not %s"
                        % (fname, argname, _type_name(value)))
    return value


# ---- numpy's argument names ---------------------------------------------
# torch's argument parser takes numpy's names for two parameters of every
# op it parses (the functions and methods written in C): axis for dim and
# keepdims for keepdim, so torch.sum(x, axis=0, keepdims=True) and
# x.max(axis=1) work. The ops torch writes in Python do not:
NUMPY_NAMES = {'axis': 'dim', 'keepdims': 'keepdim'}
WITHOUT_NUMPY_NAMES = frozenset({'norm', 'split', 'unique', 'unique_consecutive', 'tensordot'})
# and Tensor.unflatten is Python in torch (torch.unflatten is not)
WITHOUT_NUMPY_NAMES_METHODS = WITHOUT_NUMPY_NAMES | {'unflatten'}


def _numpy_kwargs(kwargs, name):
    """@kwargs with numpy's names renamed to torch's; torch's TypeError
    when both are given."""
    for alias, target in NUMPY_NAMES.items():
        if alias in kwargs:
            if target in kwargs:
                raise TypeError("%s() got multiple values for argument '%s' (as '%s' and '%s')"
                                % (name, target, target, alias))
            kwargs[target] = kwargs.pop(alias)
    return kwargs


def numpy_names(fn, name=None):
    """@fn, taking axis= for dim= and keepdims= for keepdim= as torch's
    parsed ops do (the one place that does it: Tensor's methods get it in
    _tensor.py, the torch.* functions of methods in _method_fn)."""
    name = name or fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if 'axis' in kwargs or 'keepdims' in kwargs:
            kwargs = _numpy_kwargs(kwargs, name)
        return fn(*args, **kwargs)
    return wrapper


def _method_fn(method, name):
    """The torch.name(input, ...) function of the Tensor method name, with
    numpy's argument names where torch takes them."""
    if name in WITHOUT_NUMPY_NAMES:
        def fn(input, *args, **kwargs):
            return method(input, *args, **kwargs)
    else:
        def fn(input, *args, **kwargs):
            if 'axis' in kwargs or 'keepdims' in kwargs:
                kwargs = _numpy_kwargs(kwargs, name)
            return method(input, *args, **kwargs)
    fn.__name__ = name
    return fn
