# _options.py: the process-wide settings torch scripts set:
# set_printoptions (applied by libdl's printer, dl_set_print_options),
# use_deterministic_algorithms and set_float32_matmul_precision.
#
# libdl's CPU kernels are deterministic: the same inputs and thread count
# give the same bits (reductions split work in a fixed order, the index
# ops that accumulate run serially per output). use_deterministic_algorithms
# records the mode so that code that reads it back sees what it set; no op
# needs a deterministic variant, so none warns or raises, warn_only or not.
# CPU float32 matrix products always run in full float32 precision, so the
# matmul precision is recorded and validated, as torch validates it, and
# changes no result.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import numbers
import warnings

from ._lib import Dl

_INT64_MAX = 2 ** 63 - 1

_PROFILES = {'default': (4, 1000, 3, 80), 'short': (2, 1000, 2, 80),
             'full': (4, math.inf, 3, 80)}


def _count(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError('set_printoptions(): %s must be a number, not %s'
                        % (name, type(value).__name__))
    if value != value:
        raise ValueError('set_printoptions(): %s must not be nan' % name)
    return _INT64_MAX if value >= _INT64_MAX else max(int(value), -_INT64_MAX)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """torch.set_printoptions: how tensors print from now on. As in torch,
    a profile ('default', 'short', 'full') sets the four counts first, the
    counts given then override it, and sci_mode is set on every call (None:
    chosen from the values)."""
    cur = list(Dl.get_print_options())[:4]
    if profile in _PROFILES:
        cur = list(_PROFILES[profile])
    for i, (value, name) in enumerate(((precision, 'precision'), (threshold, 'threshold'),
                                       (edgeitems, 'edgeitems'), (linewidth, 'linewidth'))):
        if value is not None:
            cur[i] = value
    cur = [_count(v, n) for v, n in zip(cur, ('precision', 'threshold', 'edgeitems',
                                              'linewidth'))]
    sci = -1 if sci_mode is None else (1 if sci_mode else 0)
    Dl.set_print_options(min(max(cur[0], 0), 100), cur[1], cur[2], cur[3], sci)


_DETERMINISTIC = {'mode': False, 'warn_only': False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records torch's deterministic mode. libdl's CPU ops are all
    deterministic already, so nothing else changes (see this module)."""
    for value, name, pos in ((mode, 'mode', " (position 1)"), (warn_only, 'warn_only', '')):
        if value is not True and value is not False:
            raise TypeError("_set_deterministic_algorithms(): argument '%s'%s must be bool, "
                            "not %s" % (name, pos, type(value).__name__))
    _DETERMINISTIC['mode'] = mode
    _DETERMINISTIC['warn_only'] = warn_only


def are_deterministic_algorithms_enabled():
    return _DETERMINISTIC['mode']


def is_deterministic_algorithms_warn_only_enabled():
    return _DETERMINISTIC['warn_only']


_MATMUL_PRECISION = ['highest']


def set_float32_matmul_precision(precision):
    """Records 'highest', 'high' or 'medium' as torch does; another string
    warns and changes nothing, as torch's does. libdl's CPU float32 matrix
    products are always computed in full float32 precision."""
    if not isinstance(precision, str):
        raise RuntimeError('set_float32_matmul_precision expects a str, but got %s'
                           % type(precision).__name__)
    if precision not in ('highest', 'high', 'medium'):
        warnings.warn("%s is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect." % precision)
        return
    _MATMUL_PRECISION[0] = precision


def get_float32_matmul_precision():
    return _MATMUL_PRECISION[0]


FUNCTIONS = {f.__name__: f for f in (
    set_printoptions, use_deterministic_algorithms, are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision,
    get_float32_matmul_precision)}
