#!/usr/bin/python3
# check-doc-blocks.py: every code block of the README and the guides runs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: check-doc-blocks.py --build-root BUILD [options] FILE.md|DIR...
#
# (a directory stands for the *.md files in it, so that a new page is
# checked without being listed anywhere)
#
# Reads the fenced code blocks (``` or ~~~) of each Markdown file and runs
# those of the four languages against the build tree, each in a fresh
# temporary directory, printing TAP (one test per program):
#
#   python               /usr/bin/python3 (this script's interpreter) with
#                        GI_TYPELIB_PATH, LD_LIBRARY_PATH and PYTHONPATH of
#                        the build
#   js, javascript       gjs -m when the block has an import statement
#                        (an ES module), plain gjs otherwise; GJS_PATH finds
#                        the companion module bindings/gjs/overrides/Dl.js
#   vala                 valac --pkg dl-1.0 against the build's
#                        dl-1.0.vapi, linked through the build's uninstalled
#                        pkg-config file, then run
#   c                    cc $(pkg-config --cflags --libs dl-1.0) against the
#                        build (-Wall -Werror), then run; a block without a
#                        main() is the body of one (and may leave variables
#                        unused):
#                          int main (void) { g_autoptr (GError) error = NULL;
#                          <block>; fails if error is set; return 0; }
#
# Each program runs in a fresh temporary directory, with DL_SOURCE_ROOT set
# to the source tree (a setup may copy a file of tests/data/ from there).
# A program passes when it exits with status 0 (G_DEBUG=fatal-criticals: a
# GLib critical, such as Vala's "uncaught error", aborts it).
#
# Blocks of the languages sh, shell, console and text are command lines
# and listings, never run: their info string is their marker. A block
# without a language, or of a language this script does not know, is an
# error, so that a misspelt info string cannot hide a block.
#
# An HTML comment right before a block (gi-docgen and GitHub do not show
# it) changes how the block runs:
#
#   <!-- doc-test: skip REASON -->       the block is not run (the reason is
#                                        required and printed with the TAP
#                                        result)
#   <!-- doc-test: continue -->          the block continues the previous
#                                        block of the same language in the
#                                        same file: they run as one program,
#                                        once, at the last part
#   <!-- doc-test: setup               code run before the block, for a
#   CODE                                 fragment that uses a variable it
#   -->                                  does not define
#
# --list prints the blocks and what would run, without running anything.

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

LANGUAGES = {
    'python': 'python', 'py': 'python',
    'js': 'gjs', 'javascript': 'gjs',
    'vala': 'vala',
    'c': 'c',
}
NOT_RUN = {'sh', 'shell', 'console', 'text'}

FENCE = re.compile(r'^(\s*)(```+|~~~+)\s*([^\s`]*)[^`]*$')
DIRECTIVE = re.compile(r'^\s*<!--\s*doc-test:\s*(\w[\w-]*)(.*?)(-->)?\s*$')


class Block:
    def __init__(self, path, line, language, code):
        self.path = path
        self.line = line            # the line of the opening fence, from 1
        self.language = language    # the info string's first word
        self.code = code
        self.directive = None       # 'skip', 'continue', 'setup' or None
        self.argument = ''          # the skip reason, or the setup code

    def name(self):
        return '%s:%d (%s)' % (self.path, self.line, self.language)


class DocError(Exception):
    pass


def read_directive(lines, end):
    """The doc-test comment ending on line @end - 1 (0-based), if any:
    (name, argument)."""
    i = end - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    if i < 0 or not lines[i].rstrip().endswith('-->'):
        return None
    j = i
    while j >= 0 and '<!--' not in lines[j]:
        j -= 1
    if j < 0:
        return None
    match = DIRECTIVE.match(lines[j])
    if not match:
        return None
    name = match.group(1)
    if j == i:
        argument = match.group(2).strip()
    else:
        body = [match.group(2)] + lines[j + 1:i] + [lines[i].rstrip()[:-3]]
        argument = '\n'.join(body).strip('\n')
    return name, argument


def parse(path, text):
    """The fenced blocks of Markdown @text, in order."""
    lines = text.split('\n')
    blocks = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent = len(match.group(1))
        fence = match.group(2)
        language = match.group(3).lower()
        body = []
        j = i + 1
        while j < len(lines) and not re.match(r'^\s*' + re.escape(fence[0]) + '{%d,}\\s*$' % len(fence),
                                              lines[j]):
            line = lines[j]
            body.append(line[indent:] if line[:indent].strip() == '' else line.lstrip())
            j += 1
        if j == len(lines):
            raise DocError('%s:%d: the code block has no closing fence' % (path, i + 1))
        block = Block(path, i + 1, language, '\n'.join(body) + '\n')
        directive = read_directive(lines, i)
        if directive:
            block.directive, block.argument = directive
        blocks.append(block)
        i = j + 1
    return blocks


class Program:
    """What runs: one block, or a chain of blocks joined by `continue`."""

    def __init__(self, blocks):
        self.blocks = blocks

    @property
    def kind(self):
        return LANGUAGES[self.blocks[0].language]

    def name(self):
        first = self.blocks[0]
        lines = ', '.join(str(b.line) for b in self.blocks)
        return '%s:%s (%s)' % (first.path, lines, first.language)

    def source(self):
        parts = []
        for block in self.blocks:
            if block.directive == 'setup':
                parts.append(block.argument + '\n')
            parts.append(block.code)
        return ''.join(parts)


def plan(blocks):
    """Programs to run and blocks skipped: a list of (Program or None,
    block, reason)."""
    items = []
    chains = {}     # language -> the open Program of that language
    for block in blocks:
        if block.language in NOT_RUN:
            if block.directive:
                raise DocError('%s: a %s block is never run; drop its doc-test comment'
                               % (block.name(), block.language))
            items.append((None, block, 'a %s block' % block.language))
            continue
        if block.language not in LANGUAGES:
            what = 'a language' if not block.language else 'a known language (%s)' % block.language
            raise DocError('%s: the code block needs %s: one of %s, or %s for listings'
                           % (block.name(), what, ', '.join(sorted(LANGUAGES)),
                              ', '.join(sorted(NOT_RUN))))
        kind = LANGUAGES[block.language]
        if block.directive == 'skip':
            if not block.argument:
                raise DocError('%s: doc-test: skip needs a reason' % block.name())
            items.append((None, block, block.argument))
            continue
        if block.directive == 'continue':
            if kind not in chains:
                raise DocError('%s: doc-test: continue, but no %s block before it'
                               % (block.name(), block.language))
            chains[kind].blocks.append(block)
            continue
        if block.directive not in (None, 'setup'):
            raise DocError('%s: unknown doc-test directive %r' % (block.name(), block.directive))
        program = Program([block])
        chains[kind] = program
        items.append((program, block, None))
    return items


# ---- running ---------------------------------------------------------------

C_WRAPPER = '''#include <dl.h>

int
main (void)
{
  g_autoptr (GError) error = NULL;

%s
  if (error != NULL)
    {
      g_printerr ("%%s\\n", error->message);
      return 1;
    }
  return 0;
}
'''


class Runner:
    def __init__(self, args):
        self.args = args
        build = os.path.abspath(args.build_root)
        source = os.path.abspath(args.source_root)
        self.env = dict(os.environ)
        self.env.update({
            'GI_TYPELIB_PATH': os.path.join(build, 'introspection'),
            'LD_LIBRARY_PATH': os.path.join(build, 'libdl'),
            'PYTHONPATH': os.path.join(source, 'bindings', 'python') + os.pathsep
            + os.path.join(build, 'bindings', 'python'),
            'GJS_PATH': os.path.join(source, 'bindings', 'gjs'),
            'PKG_CONFIG_PATH': os.path.join(build, 'meson-uninstalled'),
            'G_DEBUG': 'fatal-criticals',
            'PYTHONDONTWRITEBYTECODE': '1',
            # for a setup that reads a file of the tree (tests/data/)
            'DL_SOURCE_ROOT': source,
            # one program at a time may use both cores
            'OMP_NUM_THREADS': os.environ.get('OMP_NUM_THREADS', '2'),
        })
        self.vapidir = os.path.join(build, 'introspection')

    def run(self, argv, cwd, timeout):
        try:
            done = subprocess.run(argv, cwd=cwd, env=self.env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            return False, (e.output or b'').decode(errors='replace') + \
                '\n(killed after %d s)\n' % timeout
        except OSError as e:
            return False, '%s: %s\n' % (argv[0], e)
        out = done.stdout.decode(errors='replace')
        if done.returncode != 0:
            out += '(%s exited with status %d)\n' % (os.path.basename(argv[0]), done.returncode)
        return done.returncode == 0, out

    def pkg_config(self):
        done = subprocess.run([self.args.pkg_config, '--cflags', '--libs', 'dl-1.0'],
                              env=self.env, stdout=subprocess.PIPE, check=True)
        return done.stdout.decode().split()

    def build_and_run(self, compile_argv, tmp, source=None):
        """Compiles with @compile_argv into tmp/block and runs it; @source,
        if given, is printed numbered when the compiler fails."""
        ok, out = self.run(compile_argv, tmp, self.args.timeout)
        if not ok:
            return False, out + ('\n' + numbered(source) if source else '')
        ok, run_out = self.run([os.path.join(tmp, 'block')], tmp, self.args.timeout)
        return ok, out + run_out

    def program(self, program, tmp):
        kind, source = program.kind, program.source()
        if kind == 'gjs' and not self.args.gjs:
            return None, 'no gjs'
        if kind == 'vala' and not self.args.valac:
            return None, 'no valac'
        warnings = ['-Wall', '-Werror']
        if kind == 'c' and not re.search(r'^\w[\w\s*]*\bmain\s*\(', source, re.M):
            # a fragment shows variables it does not go on to use
            warnings += ['-Wno-unused-variable', '-Wno-unused-but-set-variable']
            source = C_WRAPPER % '\n'.join(('  ' + line if line else '')
                                           for line in source.rstrip('\n').split('\n'))
        path = os.path.join(tmp, 'block.' + {'python': 'py', 'gjs': 'js'}.get(kind, kind))
        with open(path, 'w') as f:
            f.write(source)

        if kind == 'python':
            return self.run([sys.executable, path], tmp, self.args.timeout)
        if kind == 'gjs':
            module = re.search(r'^\s*(import\s+[\w{*\'"]|export\s)', source, re.M)
            return self.run([self.args.gjs] + (['-m'] if module else []) + [path], tmp,
                            self.args.timeout)
        if kind == 'vala':
            return self.build_and_run([self.args.valac, '--vapidir', self.vapidir, '--pkg', 'dl-1.0',
                                       '--pkg', 'gio-2.0', '--target-glib=2.74', '-X', '-w',
                                       '-X', '-lm', '-o', 'block', path], tmp)
        if kind == 'c':
            return self.build_and_run(self.args.cc.split() + warnings + ['-o', 'block', path]
                                      + self.pkg_config() + ['-lm'], tmp, source)
        raise AssertionError(kind)

def numbered(source):
    return ''.join('%4d  %s\n' % (i + 1, line) for i, line in enumerate(source.split('\n')))


def main():
    parser = argparse.ArgumentParser(description='Runs the code blocks of Markdown files.')
    parser.add_argument('--build-root', required=True)
    parser.add_argument('--source-root', default=os.path.join(os.path.dirname(__file__), '..'))
    parser.add_argument('--gjs', default=shutil.which('gjs'))
    parser.add_argument('--valac', default=shutil.which('valac'))
    parser.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    parser.add_argument('--pkg-config', default='pkg-config')
    parser.add_argument('--timeout', type=int, default=90, help='seconds per program and step')
    parser.add_argument('--list', action='store_true', help='print the blocks, run nothing')
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print the output of every program, not only of those that fail')
    parser.add_argument('--expect-failure', action='store_true',
                        help='every program must fail (the check of this script)')
    parser.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 1,
                        help='programs run at once (the output keeps their order)')
    parser.add_argument('files', nargs='+')
    args = parser.parse_args()

    paths = []
    for path in args.files:
        if os.path.isdir(path):
            paths += sorted(os.path.join(path, name) for name in os.listdir(path)
                            if name.endswith('.md'))
        else:
            paths.append(path)
    items = []
    try:
        for path in paths:
            with open(path, encoding='utf-8') as f:
                text = f.read()
            shown = os.path.relpath(path, args.source_root)
            if shown.startswith('..'):
                shown = path
            items += plan(parse(shown, text))
    except (DocError, OSError) as e:
        print('Bail out! %s' % e)
        return 1

    if args.list:
        for program, block, reason in items:
            if program:
                print('run   %s' % program.name())
            else:
                print('skip  %s: %s' % (block.name(), reason))
        return 0

    runner = Runner(args)

    def run(program):
        with tempfile.TemporaryDirectory(prefix='doc-block-') as tmp:
            return runner.program(program, tmp)

    print('1..%d' % len(items))
    sys.stdout.flush()
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = [pool.submit(run, program) if program else None for program, _, _ in items]
        for n, ((program, block, reason), result) in enumerate(zip(items, results), 1):
            if program is None:
                print('ok %d %s # SKIP %s' % (n, block.name(), reason))
                continue
            ok, out = result.result()
            failed += report(n, program, ok, out, args)
    return 1 if failed else 0


def report(n, program, ok, out, args):
    """Prints the TAP line of program @n; returns 1 if it failed."""
    if ok is None:
        print('ok %d %s # SKIP %s' % (n, program.name(), out))
        return 0
    if args.expect_failure:
        ok = not ok
        out = out if ok else 'the program succeeded, and should have failed\n' + out
    print('%s %d %s' % ('ok' if ok else 'not ok', n, program.name()))
    if not ok or args.expect_failure or args.verbose:
        sys.stdout.write(''.join('# ' + line + '\n' for line in out.rstrip('\n').split('\n')))
    sys.stdout.flush()
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
