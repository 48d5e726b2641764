# grad_mode.py: no_grad, enable_grad, set_grad_enabled and
# is_grad_enabled (libdl's grad mode is thread-local, as PyTorch's is).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools

from .._lib import Dl

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'is_grad_enabled']


class _GradMode:
    """Base of no_grad/enable_grad: a context manager and a decorator."""
    _enabled = None

    def __enter__(self):
        self._prev = Dl.set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        Dl.set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Disables gradient recording in a with block or a decorated function."""
    _enabled = False


class enable_grad(_GradMode):
    """Enables gradient recording in a with block or a decorated function."""
    _enabled = True


class set_grad_enabled(_GradMode):
    """Sets gradient recording on or off: at once, and for a with block."""

    def __init__(self, mode):
        self._enabled = bool(mode)
        self._prev = Dl.set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def __call__(self, fn):
        Dl.set_grad_enabled(self._prev)
        return _GradMode.__call__(self, fn)


is_grad_enabled = Dl.is_grad_enabled
