# _callbacks.py: Python functions that libdl calls back during a backward
# pass (tensor hooks), and how their exceptions get out.
#
# PyGObject prints and swallows an exception raised in a callback unless it
# is a GLib.Error and the callback can fail: so a wrapped callback keeps the
# exception (_lib.stash_python_error) and fails with a GLib.Error, which
# stops the engine; the Python call that started the pass (backward(),
# autograd.grad(), wrapped in _lib._checked) then raises the original
# exception (_lib._translate).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools

from gi.repository import GLib

from ._lib import Dl, stash_python_error


def from_c(fn):
    """fn, made safe to call from libdl: any exception it raises is kept
    for _lib._translate (through _lib._checked, which the Python call that
    started the pass goes through) and reported to libdl as a GLib.Error."""
    @functools.wraps(fn)
    def wrapper(*args):
        try:
            return fn(*args)
        except GLib.Error:
            raise
        except BaseException as e:
            message = '%s: %s' % (type(e).__name__, e)
            stash_python_error(e, message)
            raise GLib.Error.new_literal(Dl.error_quark(), message, int(Dl.Error.FAILED))
    return wrapper

