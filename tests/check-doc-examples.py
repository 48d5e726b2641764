#!/usr/bin/python3
# check-doc-examples.py: compiles every C example of the API reference, so
# that the examples cannot drift from the API they show.
#
# An example is a `|[<!-- language="C" -->` ... `]|` block inside a gtk-doc
# comment (`/** ... */`) of a libdl source or header. Each becomes, in one
# generated file that includes <dl.h>, either
#
#   - the body of a function of its own, inside a block, after
#     `g_autoptr (GError) error = NULL;` (so a statement example may use
#     `&error` as it is or declare its own `error`); or
#   - file-scope code, when it defines a function (a line that is `{` alone,
#     as GNU style opens a function body) or its first line starts with
#     `struct`, `typedef`, `enum`, `#` or a `G_DEFINE_`/`G_DECLARE_` macro
#     (a subclass, a callback, a vfunc implementation).
#
# The file is compiled with -fsyntax-only -Werror and the warnings of the
# build; `#line` directives make every diagnostic name the source file and
# line of the example.
#
# Usage: check-doc-examples.py SRCDIR CC [CC_ARGS...]
#   SRCDIR  the libdl source folder to scan
#   CC ...  the compiler and the arguments that find <dl.h> and GLib
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import re
import subprocess
import sys
import tempfile

START = re.compile(r'^\s*\|\[\s*<!--\s*language="C"\s*-->\s*$')
END = re.compile(r'^\s*\]\|\s*$')
FILE_SCOPE = re.compile(r'^(struct\b|typedef\b|enum\b|#|G_DEFINE_|G_DECLARE_)')

WARNINGS = ['-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter',
            '-Wno-unused-function', '-Wno-unused-variable',
            '-Wno-unused-but-set-variable', '-Wno-missing-field-initializers']


def doc_lines(line):
    """A line of a doc comment without its leading ' * '."""
    s = line.strip()
    if s.startswith('*') and not s.startswith('*/'):
        s = line.split('*', 1)[1]
        return s[1:] if s.startswith(' ') else s
    return line.rstrip('\n')


def examples(path):
    """(line, [lines]) for every C example in the doc comments of @path."""
    found = []
    in_doc = False
    current = None
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not in_doc:
                if s.startswith('/**'):
                    in_doc = True
                continue
            if s.startswith('*/') or s.endswith('*/'):
                if current is not None:
                    raise SystemExit('%s:%d: C example not closed with ]|' % (path, current[0]))
                in_doc = False
                continue
            text = doc_lines(line).rstrip()
            if current is None:
                if START.match(text):
                    current = (n + 1, [])
            elif END.match(text):
                found.append(current)
                current = None
            else:
                current[1].append(text)
    return found


def main(argv):
    if len(argv) < 3:
        print('usage: check-doc-examples.py SRCDIR CC [CC_ARGS...]', file=sys.stderr)
        return 2
    srcdir, cc = argv[1], argv[2:]
    blocks = []
    for dirpath, dirnames, filenames in os.walk(srcdir):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(('.c', '.h')) and not name.endswith('-private.h'):
                path = os.path.join(dirpath, name)
                blocks += [(path, line, body) for line, body in examples(path)]
    if not blocks:
        print('check-doc-examples: no C example found under %s' % srcdir)
        return 1

    out = ['#include <dl.h>', '']
    n_file_scope = 0
    for i, (path, line, body) in enumerate(blocks):
        first = next((l for l in body if l.strip()), '')
        location = '#line %d "%s"' % (line, os.path.abspath(path))
        if FILE_SCOPE.match(first) or '{' in body:
            n_file_scope += 1
            out += [location] + body + ['']
        else:
            out += ['static void', 'doc_example_%d (void)' % i, '{',
                    '  g_autoptr (GError) error = NULL;', '  {',
                    location] + body + ['  }', '}', '']

    with tempfile.TemporaryDirectory() as tmp:
        c_file = os.path.join(tmp, 'doc-examples.c')
        with open(c_file, 'w', encoding='utf-8') as f:
            f.write('\n'.join(out))
        cmd = cc + WARNINGS + ['-fsyntax-only', c_file]
        result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True)
    print('check-doc-examples: %d C examples (%d at file scope) from %s'
          % (len(blocks), n_file_scope, srcdir))
    for path, line, body in blocks:
        print('  %s:%d' % (os.path.relpath(path, srcdir), line))
    if result.returncode != 0:
        print(result.stdout)
        print('check-doc-examples: FAIL: the examples do not compile (%s)' % ' '.join(cmd))
        return 1
    print('check-doc-examples: OK')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
