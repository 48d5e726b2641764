# as_torch.py: run a PyTorch script unchanged, with `torch` bound to dl.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""Runs a PyTorch script unchanged on libdl.

    python3 -m dl.as_torch SCRIPT [ARG...]
    python3 -m dl.as_torch -m MODULE [ARG...]

runs SCRIPT (or MODULE, as ``python3 -m`` does) as ``__main__`` with
``sys.argv`` set to ``[SCRIPT, ARG...]``, after binding the name ``torch``
and every ``torch.X`` module to dl and its ``dl.X``: ``import torch``,
``import torch.nn.functional as F`` and ``from torch.utils.data import
DataLoader`` give dl's own modules (one module object under both names,
so classes and ``isinstance`` checks agree). A ``torch.X`` that dl lacks is
a ModuleNotFoundError naming it. In a program of one's own,
:func:`install` does the same binding.

The real PyTorch is not imported; libraries built on it (torchvision,
...) import dl in its place and work only as far as dl has what they
use.
"""

import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys

__all__ = ['install', 'uninstall', 'main']


class _TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A finder that answers ``torch`` and ``torch.X`` with ``dl`` and
    ``dl.X`` (the same module objects)."""

    def find_spec(self, name, path=None, target=None):
        if name != 'torch' and not name.startswith('torch.'):
            return None
        real = 'dl' + name[len('torch'):]
        if real not in sys.modules and importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        # the module itself: importlib keeps its own __name__ and __spec__
        # and records it in sys.modules under the torch name too
        return importlib.import_module('dl' + spec.name[len('torch'):])

    def exec_module(self, module):
        pass  # already executed as dl.X


_finder = _TorchAlias()


def install():
    """Binds ``torch`` and ``torch.X`` to ``dl`` and ``dl.X`` for the
    imports that follow (and for a ``torch`` module already imported: it
    is replaced in ``sys.modules``). Idempotent."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    for name in [n for n in sys.modules if n == 'torch' or n.startswith('torch.')]:
        real = 'dl' + name[len('torch'):]
        if real in sys.modules:
            sys.modules[name] = sys.modules[real]
        else:
            del sys.modules[name]


def uninstall():
    """Undoes :func:`install` for later imports and drops the ``torch``
    names it bound."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == 'torch' or n.startswith('torch.')]:
        real = 'dl' + name[len('torch'):]
        if sys.modules.get(real) is sys.modules[name]:
            del sys.modules[name]


def main(argv=None):
    """The command line: ``[-m MODULE | SCRIPT] [ARG...]``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ('-h', '--help'):
        print(__doc__.strip().split('\n\n')[1].strip().replace('    ', ''))
        return 0 if argv else 2
    install()
    if argv[0] == '-m':
        if len(argv) < 2:
            print('dl.as_torch: -m needs a module name', file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
    else:
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name='__main__')
    return 0


if __name__ == '__main__':
    sys.exit(main())
