# dl: libdl's PyTorch-compatible Python layer.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `import dl` (or `from gi.repository import Dl`, whose override,
# gi/overrides/Dl.py, is this package) gives PyTorch's API over the Dl
# typelib: dl.tensor, dl.nn, dl.optim, ... This package is sugar only:
# argument parsing, operators, Python protocols and PyTorch's exception
# classes. Every computation happens in C, so that C, GJS and Vala users
# get it too; the hot Tensor methods have C paths (_dl_fast, see
# _tensor.py) and the rest stay one Python frame deep.
#
# The modules: _lib (the typelib, errors), _dtype (dtype, device, Size),
# _tensor (Tensor, Node), the op families _creation, _math, _indexing and
# _reductions, _functions (torch.* functions that are Tensor methods),
# _api (the top-level namespace below), and the public subpackages nn,
# optim, autograd, utils.data and datasets.
#
# The override is loaded first, whichever of the two is imported first.
# PyGObject imports gi.repository.Dl (and so runs the override) the first
# time a typelib call needs one of its types, which the package's modules
# do as they are imported; the override needs the package's classes, to
# make them the Python classes of their GTypes before any wrapper of them
# is made, and its names. So the override imports _api, which imports the
# rest, and this file imports the override before anything else: with
# `import dl` first, that runs the override, which imports _api and so the
# whole package; with gi.repository.Dl first, the override is already
# running (this package is its import) and the import below returns at once.

import importlib

import gi

gi.require_version('Dl', '1.0')
importlib.import_module('gi.repository.Dl')

from . import _api  # noqa: E402

# What `from ._api import *` does, spelled out for linters; the names that
# are Python builtins (float, sum, ...) and default_generator come from
# _api's __getattr__.
__all__ = _api.__all__
globals().update({name: getattr(_api, name) for name in __all__ if name in vars(_api)})
__getattr__ = _api.__getattr__
__version__ = _api.__version__

# torch._standard_gamma and the other private samplers torch.distributions
# calls; torch.distributions and torch.special, over the complete namespace
from ._random import _sample_dirichlet, _standard_gamma, _standard_gamma_grad  # noqa: E402,F401
from . import distributions, special  # noqa: E402
__all__ += ['distributions', 'special']
