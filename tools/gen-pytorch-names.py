#!/usr/bin/python3
# gen-pytorch-names.py: the PyTorch names that `from gi.repository import Dl
# as torch` has, read from the Python package itself, as Markdown
# (docs/pytorch-names.md).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage, from the source root with the environment of the build
# (GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl
# PYTHONPATH=bindings/python:build/bindings/python):
#
#   /usr/bin/python3 tools/gen-pytorch-names.py > docs/pytorch-names.md
#   /usr/bin/python3 tools/gen-pytorch-names.py --check docs/pytorch-names.md
#
# For each namespace PyTorch users reach (torch, torch.Tensor, torch.nn,
# torch.nn.functional, torch.optim, torch.utils.data, ...) the page lists
# the names of the package's module: its __all__, or where a module has
# none, the public names it defines. For a class (Tensor, nn.Module,
# optim.Optimizer) it lists the public attributes the package's classes
# define, and apart from them the methods that come straight from the
# typelib (libdl's C API, called with its C signature).
#
# When python3-torch is importable the page ends with the names torch has
# in the same namespaces that libdl lacks, and the names libdl has that
# torch does not. --check compares the page with the file; without torch it
# compares only the part before that section (and says so), so that the
# check passes on a machine without torch as long as the generated part
# libdl controls is current.

import argparse
import importlib
import inspect
import os
import sys
import textwrap

# (PyTorch's path, the package's path, what it is)
NAMESPACES = [
    ('torch', 'dl', 'module'),
    ('torch.Tensor', 'dl.Tensor', 'class'),
    ('torch.nn', 'dl.nn', 'module'),
    ('torch.nn.Module', 'dl.nn.Module', 'class'),
    ('torch.nn.functional', 'dl.nn.functional', 'module'),
    ('torch.nn.init', 'dl.nn.init', 'module'),
    ('torch.nn.utils', 'dl.nn.utils', 'module'),
    ('torch.nn.utils.rnn', 'dl.nn.utils.rnn', 'module'),
    ('torch.nn.parallel', 'dl.nn.parallel', 'module'),
    ('torch.optim', 'dl.optim', 'module'),
    ('torch.optim.Optimizer', 'dl.optim.Optimizer', 'class'),
    ('torch.optim.lr_scheduler', 'dl.optim.lr_scheduler', 'module'),
    ('torch.autograd', 'dl.autograd', 'module'),
    ('torch.autograd.functional', 'dl.autograd.functional', 'module'),
    ('torch.utils.data', 'dl.utils.data', 'module'),
    ('torch.utils.data.distributed', 'dl.utils.data.distributed', 'module'),
    ('torch.distributed', 'dl.distributed', 'module'),
    ('torch.multiprocessing', 'dl.multiprocessing', 'module'),
    ('torch.serialization', 'dl.serialization', 'module'),
    ('torch.cuda', 'dl.cuda', 'module'),
    ('torch.cuda.amp', 'dl.cuda.amp', 'module'),
    ('torch.amp', 'dl.amp', 'module'),
    ('torch.testing', 'dl.testing', 'module'),
    ('torch.random', 'dl.random', 'module'),
    ('torch.utils.dlpack', 'dl.utils.dlpack', 'module'),
    ('torch.linalg', 'dl.linalg', 'module'),
]

UNSUPPORTED_HEADING = '## Not in libdl'
COMMAND = 'tools/gen-pytorch-names.py > docs/pytorch-names.md'


def resolve(path):
    """The module or class at dotted @path."""
    parts = path.split('.')
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module('.'.join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def submodules(module):
    """The public names of @module that are its own submodules."""
    return {name for name, value in vars(module).items()
            if not name.startswith('_') and inspect.ismodule(value)
            and value.__name__.startswith(module.__name__ + '.')}


def defined_names(module, package):
    """The public names @module defines or takes from @package (not the
    modules and helpers it imports from elsewhere), its submodules included."""
    found = submodules(module)
    for name, value in vars(module).items():
        if name.startswith('_') or inspect.ismodule(value):
            continue
        home = getattr(value, '__module__', None)
        if home is None or home.split('.')[0] == package:
            found.add(name)
    return found


def module_names(module):
    """The package's names of @module: its __all__ and its submodules, or,
    where it has no __all__, the public names it defines."""
    names = getattr(module, '__all__', None)
    if names is None:
        return defined_names(module, 'dl')
    return set(names) | submodules(module)


def class_names(cls, skip_bases):
    """The public attributes of @cls: a dict of name -> 'python' (a class
    of the package defines it) or 'typelib' (the introspected class does),
    leaving out what @skip_bases (GObject's classes) define."""
    found = {}
    for name in dir(cls):
        if name.startswith('_'):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or owner in skip_bases or owner is object:
            continue
        module = owner.__module__ or ''
        if module.startswith('gi.repository.GObject') or module.startswith('gi._'):
            continue
        found[name] = 'typelib' if module.startswith('gi.') else 'python'
    return found


def dl_namespace(dl_path, kind, skip_bases):
    """{name: 'python' | 'typelib'} of one of the package's namespaces."""
    obj = resolve(dl_path)
    if kind == 'class':
        return class_names(obj, skip_bases)
    return {name: 'python' for name in module_names(obj)}


def torch_namespace(torch_path, kind):
    obj = resolve(torch_path)
    if kind == 'class':
        return {n for n in dir(obj) if not n.startswith('_')}
    # torch's __all__ leaves out much of what its modules define (four
    # names in torch.autograd's): both
    return {n for n in getattr(obj, '__all__', ()) if not n.startswith('_')} \
        | defined_names(obj, 'torch')


def name_list(names):
    """@names as a wrapped Markdown paragraph of code spans."""
    if not names:
        return 'none\n'
    text = ' '.join('`%s`' % n for n in sorted(names, key=lambda n: (n.lower(), n)))
    return textwrap.fill(text, width=78, break_long_words=False, break_on_hyphens=False) + '\n'


def generate(with_torch):
    import gi
    gi.require_version('Dl', '1.0')
    from gi.repository import GObject
    importlib.import_module('dl')
    skip_bases = {GObject.Object, GObject.InitiallyUnowned}

    out = []
    w = out.append
    w('Title: PyTorch names in libdl\n\n')
    w('# PyTorch names in libdl\n\n')
    w('<!-- Generated by tools/gen-pytorch-names.py from the Python package: do not\n')
    w('     edit. The meson test pytorch-names fails when this page is stale;\n')
    w('     regenerate it with the environment of the build:\n')
    w('     /usr/bin/python3 %s -->\n\n' % COMMAND)
    w('What `from gi.repository import Dl as torch` (or `import dl as torch`)\n')
    w('has, namespace by namespace, read from the Python package\n')
    w('(`bindings/python/dl/`) by `tools/gen-pytorch-names.py`: a module\'s\n')
    w('`__all__`, or the public names it defines; a class\'s public attributes.\n')
    w('The classes also have the methods of the typelib that the Python layer\n')
    w('does not wrap, listed apart: they take the C function\'s arguments, all of\n')
    w('them, in order (`x.sum_dims([1], False)`), as in GJS. The guide\n')
    w('[libdl for PyTorch users](pytorch-users.html) says what differs.\n\n')

    supported = {}
    for torch_path, dl_path, kind in NAMESPACES:
        names = dl_namespace(dl_path, kind, skip_bases)
        supported[torch_path] = names
        python = [n for n, how in names.items() if how == 'python']
        typelib = [n for n, how in names.items() if how == 'typelib']
        w('## `%s`\n\n' % torch_path)
        w('`%s`: %d names.\n\n' % (dl_path, len(python)))
        w(name_list(python))
        if typelib:
            w('\nFrom the typelib (%d, C signatures):\n\n' % len(typelib))
            w(name_list(typelib))
        w('\n')

    w(UNSUPPORTED_HEADING + '\n\n')
    if not with_torch:
        w('python3-torch was not importable when this page was generated, so it\n')
        w('does not list the names torch has and libdl lacks.\n')
        return ''.join(out)
    import torch
    w('Compared with the python3-torch this page was generated against (torch\n')
    w('%s): for each namespace above, the public names torch has (a module\'s\n'
      % torch.__version__.split('+')[0])
    w('`__all__`, or the public names it defines; a class\'s public attributes)\n')
    w('that libdl lacks, and the other way round. A few of torch\'s names\n')
    w('are internal helpers that its `__all__` happens to export.\n\n')
    for torch_path, dl_path, kind in NAMESPACES:
        theirs = torch_namespace(torch_path, kind)
        ours = set(supported[torch_path])
        missing = theirs - ours
        extra = {n for n in ours - theirs if supported[torch_path][n] == 'python'}
        w('### `%s`\n\n' % torch_path)
        w('%d of torch\'s %d names are missing:\n\n' % (len(missing), len(theirs)))
        w(name_list(missing))
        if extra:
            w('\nlibdl\'s own (%d):\n\n' % len(extra))
            w(name_list(extra))
        w('\n')
    return ''.join(out)


def main():
    parser = argparse.ArgumentParser(description='Lists the PyTorch names libdl has.')
    parser.add_argument('--check', metavar='FILE',
                        help='compare with FILE instead of printing; fail if they differ')
    parser.add_argument('--without-torch', action='store_true',
                        help='do not import torch (leave out the names libdl lacks)')
    args = parser.parse_args()

    with_torch = False
    if not args.without_torch:
        try:
            importlib.import_module('torch')
            with_torch = True
        except ImportError:
            pass
    text = generate(with_torch)
    if not args.check:
        sys.stdout.write(text)
        return 0

    with open(args.check, encoding='utf-8') as f:
        committed = f.read()
    if not with_torch:
        text = text.split(UNSUPPORTED_HEADING)[0]
        committed = committed.split(UNSUPPORTED_HEADING)[0]
        print('torch is not importable: comparing the names libdl has only')
    if text == committed:
        print('%s is current' % args.check)
        return 0
    import difflib
    sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), text.splitlines(True),
                                               args.check, 'generated now'))
    print('\n%s is stale: regenerate it from the source root, with the environment of the '
          'build (GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl '
          'PYTHONPATH=bindings/python:build/bindings/python):\n  /usr/bin/python3 %s'
          % (args.check, COMMAND))
    return 1


if __name__ == '__main__':
    os.environ.setdefault('G_DEBUG', 'fatal-criticals')
    # the Python methods, whether or not _dl_fast was built: its C methods
    # replace some of them and hand others back to the typelib's, which
    # would move names between the two lists
    os.environ['DL_PYTHON_OPERATORS'] = '1'
    sys.exit(main())
