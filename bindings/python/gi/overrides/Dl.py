# Dl.py: the PyGObject override of the Dl typelib.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# With `from gi.repository import Dl as torch`, PyTorch code runs on libdl.
# The PyTorch-compatible layer is the package dl (bindings/python/dl/);
# this module imports it, makes its classes that override typelib classes
# (Tensor over DlTensor, Module over DlModule, ...) the Python classes of
# their GTypes, and gives the Dl module the package's names, so that
# Dl.tensor is dl.tensor, Dl.nn is dl.nn, and so on. (It imports the
# package's namespace, dl._api, rather than dl itself, which may be
# half-imported here: see dl/__init__.py.)

from gi.module import get_introspection_module

# libdl, and with it the OpenMP build of OpenBLAS that it links, is loaded
# before the package imports numpy (a type lookup loads it): in a process
# that imports Dl before numpy and torch, their BLAS is then that build too,
# on the one OpenMP thread pool (docs/threading.md).
get_introspection_module('Dl').DType

from dl import _api, _lib, _tensor  # noqa: E402

from ..overrides import override

for _cls in _lib.OVERRIDES:
    _module = _cls.__module__
    # override() takes classes of override modules only
    _cls.__module__ = __name__
    override(_cls)
    _cls.__module__ = _module

# The one wrapper the package holds, made now that Generator is in place.
_api._default_generator()

# PyGObject puts the names of __all__ on the proxy module gi.repository.Dl
# (the rest reach it through the typelib); __version__ is not exported by
# `from dl import *`, as torch's is not, but Dl.__version__ is there.
__version__ = _api.__version__
__all__ = _api.__all__ + ['__version__']

# Whether the Tensor operators are _dl_fast's C ones (see dl/_tensor.py).
_fast_operators = _tensor._fast_operators


def __getattr__(name):
    # the package's exports whose names are builtins (float, sum, ...) and
    # default_generator
    return getattr(_api, name)
