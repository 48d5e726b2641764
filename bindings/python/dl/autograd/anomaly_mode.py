# anomaly_mode.py: torch.autograd.detect_anomaly and set_detect_anomaly
# over libdl's anomaly mode: while it is on, each recorded op keeps the
# Python stack it ran from, and a backward pass whose node produces NaN
# raises a RuntimeError naming the node and that stack.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools
import traceback

from .._lib import Dl

__all__ = ['detect_anomaly', 'set_detect_anomaly', 'is_anomaly_enabled', 'set_anomaly_enabled']

_trace_installed = False


def _python_stack():
    # the frames of the user's code, without this function's
    return ''.join(traceback.format_stack()[:-1])


def set_anomaly_enabled(enabled):
    global _trace_installed
    if enabled and not _trace_installed:
        Dl.autograd_set_anomaly_trace_func(_python_stack)
        _trace_installed = True
    Dl.autograd_set_detect_anomaly(bool(enabled))


def is_anomaly_enabled():
    return Dl.autograd_is_anomaly_enabled()


class detect_anomaly:
    """Context manager and decorator that turns anomaly detection on."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = is_anomaly_enabled()
        set_anomaly_enabled(self.check_nan)
        return self

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turns anomaly detection on or off at once; as a context manager, puts
    the previous state back on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        set_anomaly_enabled(mode and check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev)
        return False
