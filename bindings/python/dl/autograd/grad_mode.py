# grad_mode.py: no_grad, enable_grad, set_grad_enabled, is_grad_enabled
# and inference_mode (libdl's grad mode is thread-local, as PyTorch's is).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools
import inspect
import threading

from .._lib import Dl

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'is_grad_enabled', 'inference_mode']


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
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def _wrap_generator(self, fn):
        """A decorated generator function runs each step of its generators
        in the mode (and its caller's code between them in the caller's),
        as torch's decorators do."""
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            gen = fn(*args, **kwargs)
            step, value = gen.send, None
            while True:
                try:
                    with self.clone():
                        item = step(value)
                except StopIteration as stop:
                    return stop.value
                try:
                    value, step = (yield item), gen.send
                except GeneratorExit:
                    with self.clone():
                        gen.close()
                    raise
                except BaseException as e:  # noqa: B036: thrown into the generator
                    value, step = e, gen.throw
        return wrapper

    def clone(self):
        return self.__class__()


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

    def clone(self):
        return self.__class__(self._enabled)


is_grad_enabled = Dl.is_grad_enabled


# ---- inference mode ------------------------------------------------------
# libdl has no inference tensors: inference_mode() is no_grad() that
# torch.is_inference_mode_enabled() reports (thread-local, as torch's is).
# As torch's guard, inference_mode(mode) sets grad mode to `not mode` (so
# inference_mode(False) turns recording on, even inside no_grad) and both
# come back on exit.
_inference = threading.local()


def is_inference_mode_enabled():
    """Whether this thread is inside inference_mode()."""
    return getattr(_inference, 'enabled', False)


class inference_mode(_GradMode):
    """Disables gradient recording in a with block or a function decorated
    with inference_mode() (the parentheses are needed, as torch's);
    inference_mode(False) enables it."""

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        enabled = bool(self.mode)
        self._prev = (Dl.set_grad_enabled(not enabled), is_inference_mode_enabled())
        _inference.enabled = enabled

    def __exit__(self, *exc):
        Dl.set_grad_enabled(self._prev[0])
        _inference.enabled = self._prev[1]
        return False

    def clone(self):
        return self.__class__(self.mode)
